//! Several selected clusters (`--context a,b`, `--context 'prod-*'`, `--all-contexts`,
//! `:ctx +name` / `:ctx -name`): each member is probed on its own client by the runtime
//! ([`Effect::WatchCluster`], which also gives it its own connection, informers and access
//! cache: `runtime/members.rs`) and the header shows every member's state in one compact line.
//! Tables are merged over the members ([`super::fleet_table`]): a CLUSTER column, rows keyed
//! (cluster, key), and everything aimed at a row goes to that row's cluster. The event log
//! hears every member's informers (a CLUSTER column); the current context (marked in the
//! line) is the one of the informer panel, the xray, the pulse and the usage columns. `--readonly-contexts` makes some members read-only, and with several
//! members every confirmation names the cluster of the object it acts on.
//!
//! With one member nothing changes: no probes, the single-cluster header, keys and dialogs.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use super::action::{ClusterHealth, Effect, InformerRow};
use super::app::App;
use super::kit::countdown;
use crate::fleet::{matches_any, select_contexts};

/// The selected clusters and which of them are read-only.
#[derive(Debug, Clone, Default)]
pub struct FleetState {
    /// Selected contexts in order with their probed state.
    pub members: Vec<(String, ClusterHealth)>,
    /// `--readonly`: every cluster is read-only.
    pub readonly_all: bool,
    /// `--readonly-contexts`: comma-separated names and globs of read-only contexts.
    pub readonly_contexts: Option<String>,
    /// k9s's `readOnly` settings (see [`K9sReadOnly`]).
    pub k9s: K9sReadOnly,
}

/// k9s's `readOnly` as k9s decides it (k9s `internal/config/k9s.go` `IsReadOnly`): a context's
/// own `config.yaml` over the global `config.yaml`, and the command line over both (`--write`
/// turns it off; `--readonly` is [`FleetState::readonly_all`]).
#[derive(Debug, Clone, Default)]
pub struct K9sReadOnly {
    /// `config.yaml`'s `k9s.readOnly`.
    pub global: Option<crate::config::ReadOnlySetting>,
    /// Each context's own `k9s.readOnly`, by context name.
    pub contexts: Vec<(String, crate::config::ReadOnlySetting)>,
    /// `--write`: k9s's setting is not applied.
    pub write: bool,
}

impl K9sReadOnly {
    /// The setting that makes `context` read-only, if one does.
    pub fn refuses(&self, context: &str) -> Option<&crate::config::ReadOnlySetting> {
        if self.write {
            return None;
        }
        let own = self.contexts.iter().find(|(c, _)| c == context);
        own.map(|(_, s)| s)
            .or(self.global.as_ref())
            .filter(|s| s.read_only)
    }
}

impl FleetState {
    pub fn new(members: &[String], readonly_all: bool, readonly_contexts: Option<String>) -> Self {
        FleetState {
            members: members
                .iter()
                .map(|m| (m.clone(), ClusterHealth::default()))
                .collect(),
            readonly_all,
            readonly_contexts,
            k9s: K9sReadOnly::default(),
        }
    }

    /// More than one cluster selected.
    pub fn is_fleet(&self) -> bool {
        self.members.len() > 1
    }

    /// Is `context` read-only (`--readonly`, it matches `--readonly-contexts`, or k9s's
    /// `readOnly` says so)?
    pub fn readonly_for(&self, context: &str) -> bool {
        self.readonly_reason(context).is_some()
    }

    /// Why `context` is read-only (for the footer's refusal), if it is.
    pub fn readonly_reason(&self, context: &str) -> Option<String> {
        if self.readonly_all {
            return Some("started with --readonly".into());
        }
        if self
            .readonly_contexts
            .as_deref()
            .is_some_and(|p| matches_any(p, context))
        {
            return Some(format!("{context} matches --readonly-contexts"));
        }
        self.k9s
            .refuses(context)
            .map(|s| format!("{s}; --write allows writes"))
    }

    fn has(&self, name: &str) -> bool {
        self.members.iter().any(|(m, _)| m == name)
    }

    pub(crate) fn names(&self) -> Vec<String> {
        self.members.iter().map(|(m, _)| m.clone()).collect()
    }
}

/// `spec` names exactly one member (not a glob, not a list).
fn picked_one(spec: &str, fleet: &FleetState) -> Option<String> {
    let name = spec.trim();
    (!crate::fleet::is_glob(name) && !name.contains(',') && fleet.has(name))
        .then(|| name.to_string())
}

pub use super::kit::cluster_style;

impl App {
    /// Start probing the members (at start, with several selected).
    pub(crate) fn init_fleet(&mut self, fx: &mut Vec<Effect>) {
        if self.fleet.members.is_empty() {
            let current = self.connection.context.clone();
            self.fleet.members.push((current, ClusterHealth::default()));
        }
        self.refresh_readonly();
        if self.fleet.is_fleet() {
            fx.extend(self.fleet.names().into_iter().map(Effect::WatchCluster));
        }
    }

    /// Read-only follows the current context (`--readonly-contexts`, k9s's per-context
    /// `readOnly`).
    pub(crate) fn refresh_readonly(&mut self) {
        self.set_readonly(self.fleet.readonly_reason(&self.connection.context));
    }

    /// Read-only on (with why) or off.
    pub(crate) fn set_readonly(&mut self, why: Option<String>) {
        // A replay has no cluster to write to, whatever the context's settings say.
        let why = match self.replay {
            Some(_) => Some(crate::ui::operate::REPLAY_READ_ONLY.to_string()),
            None => why,
        };
        self.readonly = why.is_some();
        self.readonly_why = why.unwrap_or_default();
    }

    pub(crate) fn on_cluster_health(&mut self, context: String, health: ClusterHealth) {
        if let Some((_, h)) = self.fleet.members.iter_mut().find(|(m, _)| *m == context)
            && *h != health
        {
            *h = health;
            self.dirty = true;
        }
    }

    /// `:ctx NAME` alone: the fleet becomes just that one (the caller switches to it).
    pub(crate) fn fleet_only(&mut self, name: &str, fx: &mut Vec<Effect>) {
        if self.fleet.is_fleet() {
            fx.extend(self.fleet.names().into_iter().map(Effect::UnwatchCluster));
        }
        self.fleet.members = vec![(name.to_string(), ClusterHealth::default())];
        self.connection.context = name.to_string();
        self.refresh_readonly();
    }

    /// `:ctx +NAMES`: add contexts (names or globs, comma-separated) to the fleet; `+NAME` of
    /// a member already selected shows its tables instead.
    pub(crate) fn fleet_add(&mut self, spec: &str, fx: &mut Vec<Effect>) {
        let picked = if self.contexts.is_empty() {
            // The kubeconfig's contexts are not known (yet): take the names as given.
            spec.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        } else {
            match select_contexts(&self.contexts, spec, false) {
                Ok(p) => p,
                Err(e) => return self.error(e.to_string()),
            }
        };
        let was_fleet = self.fleet.is_fleet();
        let added: Vec<String> = picked.into_iter().filter(|p| !self.fleet.has(p)).collect();
        if added.is_empty() {
            // One member already selected: show its tables, the fleet stays.
            return match picked_one(spec, &self.fleet) {
                Some(name) if name != self.connection.context => self.switch_to_context(&name, fx),
                _ => self.info(format!("{spec} is already in the fleet")),
            };
        }
        if !was_fleet {
            // The member so far was not probed: it is from now on.
            fx.extend(self.fleet.names().into_iter().map(Effect::WatchCluster));
        }
        for a in &added {
            self.fleet
                .members
                .push((a.clone(), ClusterHealth::default()));
            fx.push(Effect::WatchCluster(a.clone()));
        }
        if !was_fleet {
            // The tables so far are one cluster's: reopen them merged.
            self.reopen_merged(fx);
        }
        let n = self.fleet.members.len();
        self.info(format!(
            "added {} to the fleet ({n} clusters)",
            added.join(", ")
        ));
    }

    /// `:ctx -NAMES`: remove contexts from the fleet; removing the current one shows the first
    /// member left. The last member cannot go.
    pub(crate) fn fleet_remove(&mut self, spec: &str, fx: &mut Vec<Effect>) {
        let names = self.fleet.names();
        let gone = match select_contexts(&names, spec, false) {
            Ok(g) => g,
            Err(_) => {
                return self.error(format!("{spec} is not in the fleet ({})", names.join(", ")));
            }
        };
        if gone.len() == names.len() {
            return self
                .error("the fleet keeps at least one cluster (:ctx NAME switches to another)");
        }
        self.fleet.members.retain(|(m, _)| !gone.contains(m));
        fx.extend(gone.iter().cloned().map(Effect::UnwatchCluster));
        if !self.fleet.is_fleet() {
            fx.extend(self.fleet.names().into_iter().map(Effect::UnwatchCluster));
        }
        let n = self.fleet.members.len();
        if gone.contains(&self.connection.context)
            && let Some(first) = self.fleet.members.first().map(|(m, _)| m.clone())
        {
            self.switch_to_context(&first, fx);
        } else {
            // The rows of the clusters gone leave with them.
            self.reopen_merged(fx);
        }
        self.info(format!(
            "removed {} from the fleet ({n} left)",
            gone.join(", ")
        ));
    }

    /// Reopen the table shown (and the namespaces view) so they are fed by the members
    /// selected now.
    fn reopen_merged(&mut self, fx: &mut Vec<Effect>) {
        if let Some(ns) = self.ns_view.take() {
            self.close_view(ns, fx);
        }
        if let Some(r) = self.current_view().map(|v| v.resource.clone()) {
            self.reset_to(r, fx);
        }
        self.open_ns_view(fx);
    }

    /// `:diff`: the selected object across every member (the screen waits for
    /// [`super::action::Action::Diff`]).
    pub(crate) fn fetch_diff(&mut self, fx: &mut Vec<Effect>) {
        if !self.fleet.is_fleet() {
            return self
                .error(":diff compares an object across clusters: add some with :ctx +NAME");
        }
        let Some((view, obj)) = self.selected_object() else {
            return self.error(":diff needs a selected object");
        };
        let resource = view.resource.clone();
        let namespace = obj.namespace.as_deref().map(str::to_string);
        let name = obj.name.to_string();
        let title = format!(
            "Diff: {} across {}",
            obj.object_key(),
            self.fleet.names().join(", ")
        );
        let request = self.next_request;
        self.next_request += 1;
        fx.push(Effect::FetchDiff {
            request,
            resource,
            namespace,
            name,
            contexts: self.fleet.names(),
        });
        self.stack
            .push(super::app::Screen::Text(super::app::TextView {
                kind: super::app::TextKind::Diff,
                title,
                request,
                lines: None,
                value: None,
                reveal: false,
                scroll: 0,
                wrap: true,
                search: None,
                hit: None,
            }));
    }

    /// The header's fleet line: every member with its state, the current one marked.
    pub(crate) fn fleet_spans(&self, label: Style) -> Vec<Span<'_>> {
        let mut spans = vec![Span::styled(" Clusters:", label)];
        for (name, health) in &self.fleet.members {
            let current = *name == self.connection.context;
            let name_style = if current {
                Style::default()
                    .fg(Color::White)
                    .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
            } else {
                Style::default().fg(Color::White)
            };
            spans.push(Span::raw(if current { " ▸" } else { "  " }));
            spans.push(Span::styled(name.as_str(), name_style));
            let (text, color) = if current {
                self.current_cluster_state()
            } else {
                match health {
                    ClusterHealth::Connecting => ("connecting".to_string(), Color::Yellow),
                    ClusterHealth::Up {
                        kinds: Some(kinds), ..
                    } if let Some(kind) = self.current_kind()
                        && !kinds.contains(&kind) =>
                    {
                        (format!("no {kind}"), Color::Yellow)
                    }
                    ClusterHealth::Up { .. } => self
                        .member_informer_state(name)
                        .unwrap_or_else(|| ("up".to_string(), Color::Green)),
                    ClusterHealth::Unreachable { retry_at_ms, .. } => (
                        format!("down {}", countdown(self.now_ms, *retry_at_ms)),
                        Color::Red,
                    ),
                    ClusterHealth::Forbidden { .. } => ("forbidden".to_string(), Color::Red),
                }
            };
            spans.push(Span::styled(format!(" {text}"), Style::default().fg(color)));
            if self.fleet.readonly_for(name) {
                spans.push(Span::styled(" ro", Style::default().fg(Color::LightRed)));
            }
        }
        spans
    }

    /// A reachable member's state from its own informer of the kind shown (merged tables feed
    /// from it), read as the current member's is. `None` without one.
    fn member_informer_state(&self, member: &str) -> Option<(String, Color)> {
        let kind = self.current_kind()?;
        let row = self
            .informers
            .iter()
            .find(|r| r.cluster.as_deref() == Some(member) && r.resource == kind)?;
        Some(self.informer_state(Some(row)))
    }

    /// An informer's state as the header line words it: forbidden, backoff with its countdown
    /// (also after a sync: its rows are going stale), synced, or listing (also without an
    /// informer yet).
    fn informer_state(&self, row: Option<&super::action::InformerRow>) -> (String, Color) {
        use super::action::InformerState;
        match row {
            Some(r) if r.forbidden || matches!(r.state, InformerState::Forbidden { .. }) => {
                ("forbidden".to_string(), Color::Red)
            }
            Some(InformerRow {
                state: InformerState::BackingOff { until_ms },
                ..
            }) => (
                format!("backoff {}", countdown(self.now_ms, *until_ms)),
                Color::Red,
            ),
            Some(r) if r.synced && r.stale => ("stale".to_string(), Color::Yellow),
            Some(r) if r.synced => ("synced".to_string(), Color::Green),
            _ => ("listing".to_string(), Color::Yellow),
        }
    }

    /// The kind of the table shown (`plural` or `plural.group`).
    fn current_kind(&self) -> Option<String> {
        self.current_view()
            .map(|v| super::action::resource_label(&v.resource))
    }

    /// The current member's state from its own informers (finer than a probe).
    fn current_cluster_state(&self) -> (String, Color) {
        let c = &self.connection;
        if !c.reachable {
            return match c.retry_at_ms {
                Some(at) => (format!("down {}", countdown(self.now_ms, at)), Color::Red),
                None => ("down".to_string(), Color::Red),
            };
        }
        let Some(view) = self.current_view() else {
            return ("connecting".to_string(), Color::Yellow);
        };
        if view.denial.is_some() {
            return ("forbidden".to_string(), Color::Red);
        }
        self.informer_state(self.informer_for(view))
    }
}
