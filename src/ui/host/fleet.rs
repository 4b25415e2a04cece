//! App's side of several selected clusters ([`crate::ui::fleet`]): probing the members, read-only following the current context, `:ctx +NAME` / `:ctx -NAME`, `:diff` and the header's fleet line.

use crate::fleet::select_contexts;
use crate::ui::action::{ClusterHealth, Effect, InformerRow};
use crate::ui::app::App;
use crate::ui::fleet::FleetState;
use crate::ui::kit::countdown;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

/// `spec` names exactly one member (not a glob, not a list).
fn picked_one(spec: &str, fleet: &FleetState) -> Option<String> {
    let name = spec.trim();
    (!crate::fleet::is_glob(name) && !name.contains(',') && fleet.has(name))
        .then(|| name.to_string())
}

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
    /// [`crate::ui::action::Action::Diff`]).
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
            .push(crate::ui::app::Screen::Text(crate::ui::app::TextView {
                kind: crate::ui::app::TextKind::Diff,
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
    fn informer_state(&self, row: Option<&crate::ui::action::InformerRow>) -> (String, Color) {
        use crate::ui::action::InformerState;
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
            .map(|v| crate::ui::action::resource_label(&v.resource))
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
