//! App's side of the k9s keys of a resource table ([`crate::ui::screens::k9s`] says what they
//! are): what a key means on the screen on top (`App::resolve_key`, `App::key_applies`, the one
//! table [`applies`]), jumps, favourites, faults, wide, CSV dumps, sorting by a named column.

use std::sync::Arc;

use crossterm::event::KeyEvent;

use crate::cluster::ResourceInfo;
use crate::ui::action::{Drill, Effect};
use crate::ui::app::App;
use crate::ui::keys::{KeyAction, KeySpec, Place, ViewState, applies};
use crate::ui::kit::hint_name;
use crate::ui::resources::resolve;
use crate::ui::screens::Screen;
use crate::ui::screens::k9s::{
    FAVOURITES, KeyMeaning, csv_line, default_dump_dir, is_pod, sanitize,
};
use crate::ui::table::SortBy;
use crate::ui::view::SelectOnArrival;

impl App {
    /// What `key` means on the current screen (see the module documentation).
    pub(crate) fn resolve_key(&self, key: &KeyEvent) -> KeyMeaning {
        let actions = self.keys.actions(key);
        if let Some(a) = actions.iter().find(|a| self.key_applies(**a)) {
            return KeyMeaning::Action(*a);
        }
        match actions {
            [] => KeyMeaning::Unbound,
            // One action: its own handler says why it does not apply (it knows best).
            [only] => KeyMeaning::Action(*only),
            many => {
                let what = match self.operate_target() {
                    Some((r, _)) => format!("on a {}", r.api_resource.kind),
                    None => "here".to_string(),
                };
                let uses: Vec<String> = many
                    .iter()
                    .map(|a| match applies(*a) {
                        Some(w) => format!("{}: {}", hint_name(*a), w.words),
                        None => hint_name(*a).to_string(),
                    })
                    .collect();
                KeyMeaning::NotHere(format!(
                    "{}: nothing to do {what} ({})",
                    KeySpec::from_event(key),
                    uses.join(" · ")
                ))
            }
        }
    }

    /// Whether `action` applies to the selected object (or the screen) now, as the one table
    /// [`applies`] says; actions that are not specific to a kind or a screen always do.
    pub fn key_applies(&self, action: KeyAction) -> bool {
        // A plugin applies in the scopes it names.
        if let KeyAction::Plugin(i) = action {
            return self.plugin_applies(i);
        }
        // The containers of a pod: its keys act on the selected container.
        if matches!(self.current_screen(), Some(Screen::Containers(_))) {
            return !matches!(
                action,
                KeyAction::Scale
                    | KeyAction::Suspend
                    | KeyAction::Pause
                    | KeyAction::Mark
                    | KeyAction::TimeBack
                    | KeyAction::TimeForward
                    | KeyAction::CollapseAll
            );
        }
        let Some(places) = applies(action).map(|a| a.places).filter(|p| !p.is_empty()) else {
            return true;
        };
        let screen = self.current_screen();
        let target = self.operate_target().map(|(r, _)| r);
        places.iter().any(|p| match *p {
            Place::Kind(group, kind) => target
                .as_ref()
                .is_some_and(|r| r.api_resource.group == group && r.api_resource.kind == kind),
            Place::Table(kind) => {
                matches!(screen, Some(Screen::Table(_)))
                    && self
                        .current_view()
                        .is_some_and(|v| v.resource.api_resource.kind == kind)
            }
            Place::Screen(name) => screen.map(Screen::name) == Some(name),
            Place::AnyTable => matches!(screen, Some(Screen::Table(_))),
            // A replay is all past: `[` / `]` step through its time, as in `:at`.
            Place::State(ViewState::Past) => self.in_past() || self.replay.is_some(),
            Place::State(ViewState::Live) => !self.in_past() && self.replay.is_none(),
            Place::State(ViewState::PickedColumn) => {
                self.current_view().is_some_and(|v| v.sort_pick.is_some())
            }
        })
    }

    /// The k9s keys of a resource table this module handles; false for other actions.
    pub(crate) fn on_k9s_table_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        match action {
            KeyAction::PreviousLogs => self.open_logs(true, fx),
            KeyAction::JumpOwner => self.jump_to_owner(fx),
            KeyAction::PodNode => self.jump_to_node(fx),
            KeyAction::ShowForwards => self.show_forwards(),
            KeyAction::ToggleFaults => self.toggle_faults(),
            KeyAction::ToggleWide => self.toggle_wide(),
            KeyAction::UsedBy => self.used_by(fx),
            KeyAction::SaveTable => self.save_table(fx),
            KeyAction::SortReady => self.sort_by_column("READY"),
            KeyAction::SortStatus => self.sort_by_column("STATUS"),
            KeyAction::SortRestarts => self.sort_by_column("RESTARTS"),
            KeyAction::SortIp => self.sort_by_column("IP"),
            KeyAction::SortNode => self.sort_by_column("NODE"),
            KeyAction::RevealSecrets => self.decode_secret(fx),
            _ => return false,
        }
        true
    }

    /// Sort the current table by the column named `name` (again: flip), as k9s's
    /// `shift-<letter>`; the footer says when the table has no such column.
    pub(crate) fn sort_by_column(&mut self, name: &'static str) {
        let has = self
            .current_view()
            .is_some_and(|v| v.columns.iter().any(|c| c.name == name));
        if !has {
            let kind = self
                .current_view()
                .map_or_else(String::new, |v| v.resource.api_resource.kind.clone());
            self.error(format!("no {name} column in the {kind} table"));
            return;
        }
        self.sort_table(
            move |cols, _| {
                cols.iter()
                    .position(|c| c.name == name)
                    .map_or(SortBy::Key, SortBy::Cell)
            },
            true,
            // As k9s: the most restarts on top first; READY, STATUS, IP and NODE ascending.
            name == "RESTARTS",
        );
    }

    /// `x` on a Secret (k9s's decode): its YAML with the data decoded.
    fn decode_secret(&mut self, fx: &mut Vec<Effect>) {
        let Some((resource, _)) = self.operate_target() else {
            return;
        };
        let ar = &resource.api_resource;
        if !(ar.group.is_empty() && ar.kind == "Secret") {
            self.error(format!("x decodes a Secret's data; this is a {}", ar.kind));
            return;
        }
        self.fetch_text(crate::ui::app::TextKind::Yaml, fx);
        if let Some(Screen::Text(t)) = self.stack.last_mut() {
            t.reveal = true;
        }
    }

    /// `ctrl-z`: only the rows that are not healthy (k9s's "faults": pending, failing, not ready,
    /// terminating); again: every row.
    fn toggle_faults(&mut self) {
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        v.table.filters.faults = !v.table.filters.faults;
        let on = v.table.filters.faults;
        let cands = Self::label_candidates(v);
        v.table.refilter(cands);
        let n = v.table.list().len();
        self.scroll_current();
        if on {
            self.info(format!(
                "faulty rows only: {n} {} (ctrl-z again: all)",
                if n == 1 { "row" } else { "rows" }
            ));
        } else {
            self.info("all rows");
        }
    }

    /// `ctrl-w`: the kind's wide columns (kubectl's `-o wide`, then LABELS) after its own; again:
    /// the usual columns. Per view, as in k9s.
    fn toggle_wide(&mut self) {
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        v.wide = !v.wide;
        // The layout is recomputed from the rows on screen (widths remembered while narrow
        // must not squeeze, or be squeezed by, the other mode's columns).
        v.col_widths.clear();
        // A custom resource's printer columns of priority > 0, then the kind's wide ones.
        let mut names: Vec<String> = v
            .columns
            .iter()
            .filter(|c| c.wide)
            .map(|c| c.name.clone())
            .collect();
        names.extend(
            crate::render::wide_columns(&v.resource.api_resource.kind)
                .iter()
                .map(|c| c.name.to_string()),
        );
        if v.wide {
            self.info(format!("wide: {} (ctrl-w again: off)", names.join(", ")));
        } else {
            self.info("wide columns off");
        }
    }

    /// `ctrl-s`: the table as shown (filters and sort applied) to a CSV file; the runtime writes
    /// it and the footer names the path.
    fn save_table(&mut self, fx: &mut Vec<Effect>) {
        let Some(v) = self.current_view() else {
            return;
        };
        let now = self.now_ms.div_euclid(1000);
        let all_ns = v.namespace.is_none() && v.resource.namespaced;
        let mut header: Vec<&str> = Vec::new();
        if all_ns {
            header.push("NAMESPACE");
        }
        header.extend(v.columns.iter().map(|c| c.name.as_str()));
        let mut out = csv_line(header.iter().copied());
        let mut rows = 0usize;
        for key in v.table.list() {
            let Some(e) = v.table.entry(key) else {
                continue;
            };
            let ns = e.summary.namespace.as_deref().unwrap_or("");
            let cells = e.summary.row.cells.iter().map(|c| c.display(now));
            let line = if all_ns {
                csv_line(std::iter::once(std::borrow::Cow::Borrowed(ns)).chain(cells))
            } else {
                csv_line(cells)
            };
            out.push_str(&line);
            rows += 1;
        }
        let scope = v.namespace.as_deref().unwrap_or("all");
        let file = format!(
            "{}-{}-{}-{}.csv",
            sanitize(&self.connection.context),
            sanitize(&v.resource.api_resource.plural),
            sanitize(scope),
            self.now_ms
        );
        fx.push(Effect::SaveTable {
            path: default_dump_dir().join(file),
            contents: out,
            rows,
        });
    }

    /// `shift-j`: the selected object's controller (its first owner without one), opened as a
    /// table on the stack with that object selected once it arrives.
    fn jump_to_owner(&mut self, fx: &mut Vec<Effect>) {
        let Some((resource, obj)) = self.operate_target() else {
            return;
        };
        let refs = obj
            .object
            .metadata
            .owner_references
            .clone()
            .unwrap_or_default();
        let Some(owner) = refs
            .iter()
            .find(|r| r.controller == Some(true))
            .or_else(|| refs.first())
        else {
            self.error(format!(
                "{} {} has no owner",
                resource.api_resource.kind, obj.name
            ));
            return;
        };
        let group = owner
            .api_version
            .split_once('/')
            .map_or("", |(g, _)| g)
            .to_string();
        let Some(target) = self
            .resources
            .iter()
            .find(|r| r.api_resource.kind == owner.kind && r.api_resource.group == group)
            .cloned()
        else {
            self.error(format!(
                "owner {}/{}: the server does not serve that kind",
                owner.kind, owner.name
            ));
            return;
        };
        let namespace = if target.namespaced {
            obj.namespace.as_deref().map(str::to_string)
        } else {
            None
        };
        let what = format!("{} {}", owner.kind, owner.name);
        self.open_selecting(target, namespace, owner.name.clone(), fx);
        self.info(format!("owner: {what}"));
    }

    /// `o` on a pod: the node it runs on, selected in the nodes table.
    fn jump_to_node(&mut self, fx: &mut Vec<Effect>) {
        let Some((resource, obj)) = self.operate_target() else {
            return;
        };
        if !is_pod(&resource) {
            self.error(format!(
                "o shows a pod's node; this is a {}",
                resource.api_resource.kind
            ));
            return;
        }
        let node = crate::informer::index::dynamic_pod_node(&obj.object.data).map(str::to_string);
        let Some(node) = node else {
            self.error(format!("pod {} is not scheduled on a node yet", obj.name));
            return;
        };
        let Some(nodes) = resolve(&self.resources, "nodes").cloned() else {
            self.error("the server does not serve nodes");
            return;
        };
        self.open_selecting(nodes, None, node, fx);
    }

    /// `u` on a ConfigMap, Secret or PersistentVolumeClaim: the pods that use it (volumes,
    /// projected sources, env, envFrom, imagePullSecrets), live from the pods informer's uses
    /// index, as k9s's "used by".
    fn used_by(&mut self, fx: &mut Vec<Effect>) {
        let Some((resource, obj)) = self.operate_target() else {
            return;
        };
        let kind = resource.api_resource.kind.clone();
        let Some(ns) = obj.namespace.as_deref().map(str::to_string) else {
            return;
        };
        let Some(pods) = resolve(&self.resources, "pods").cloned() else {
            self.error("the server does not serve pods");
            return;
        };
        let uses: Arc<str> = Arc::from(format!("{ns}/{kind}/{}", obj.name));
        let id = self.open_view_with(pods, Some(ns), Some(Drill::Uses(uses)), fx);
        if let Some(v) = self.views.get_mut(&id) {
            v.drilled_from = Some(format!(
                "{} {} (used by)",
                resource.api_resource.plural, obj.name
            ));
        }
        self.stack.push(Screen::Table(id));
        self.scroll_current();
    }

    /// Push a table of `resource` in `namespace` that selects `name` once its row arrives.
    fn open_selecting(
        &mut self,
        resource: ResourceInfo,
        namespace: Option<String>,
        name: String,
        fx: &mut Vec<Effect>,
    ) {
        let id = self.open_view(resource, namespace.clone(), fx);
        if let Some(v) = self.views.get_mut(&id) {
            v.select_on_arrival = Some(SelectOnArrival { namespace, name });
        }
        self.stack.push(Screen::Table(id));
        self.select_arrived(id);
    }

    /// Select a view's awaited row if it is there now (called as rows arrive); a synced view
    /// that does not hold it stops waiting and says so.
    pub(crate) fn select_arrived(&mut self, id: crate::ui::action::ViewId) {
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let Some(want) = v.select_on_arrival.clone() else {
            return;
        };
        let key: Arc<str> = match &want.namespace {
            Some(ns) => Arc::from(format!("{ns}/{}", want.name)),
            None => Arc::from(want.name.as_str()),
        };
        // Called for every row batch while it waits: a hash lookup first, and the shown list is
        // scanned only once the row is there (a merged table keys it `cluster␟key`).
        let merged = !v.member_stores.is_empty();
        let arrived = merged || v.table.entry(&key).is_some();
        let suffix = format!("{}{key}", crate::ui::action::CLUSTER_SEP);
        let found = arrived
            .then(|| {
                v.table
                    .list()
                    .iter()
                    .position(|k| **k == *key || (merged && k.ends_with(suffix.as_str())))
            })
            .flatten();
        match found {
            Some(i) => {
                v.table.select_index(i);
                v.select_on_arrival = None;
                self.scroll_current();
            }
            None if v.synced => {
                v.select_on_arrival = None;
                self.error(format!("{key} is not in the table (deleted?)"));
            }
            None => {}
        }
    }

    /// Enter on a Service (`kind_plural`/`name`): its pods, chosen by its selector and answered
    /// from the pods informer's label index, as k9s.
    pub(crate) fn drill_by_selector(
        &mut self,
        kind_plural: &str,
        namespace: Option<String>,
        name: &str,
        selector: Option<&serde_json::Value>,
        fx: &mut Vec<Effect>,
    ) {
        let terms: Vec<String> = selector
            .and_then(|s| s.as_object())
            .map(|m| {
                let mut t: Vec<String> = m
                    .iter()
                    .filter_map(|(k, v)| Some(format!("{k}={}", v.as_str()?)))
                    .collect();
                t.sort();
                t
            })
            .unwrap_or_default();
        if terms.is_empty() {
            self.error(format!(
                "{kind_plural}/{name} has no selector: no pods are chosen by its labels"
            ));
            return;
        }
        let Some(pods) = resolve(&self.resources, "pods").cloned() else {
            return;
        };
        let id = self.open_view(pods, namespace, fx);
        if let Some(v) = self.views.get_mut(&id) {
            v.drilled_from = Some(format!("{kind_plural}/{name}"));
        }
        self.stack.push(Screen::Table(id));
        self.apply_label_filter(id, &terms.join(","));
    }

    /// Enter on a CustomResourceDefinition: its objects (the kind it defines), as k9s.
    pub(crate) fn open_crd_instances(&mut self, crd: &serde_json::Value, fx: &mut Vec<Effect>) {
        let spec = crd.get("spec");
        let group = spec.and_then(|s| s.get("group")).and_then(|g| g.as_str());
        let plural = spec
            .and_then(|s| s.get("names"))
            .and_then(|n| n.get("plural"))
            .and_then(|p| p.as_str());
        let (Some(group), Some(plural)) = (group, plural) else {
            self.error("this CustomResourceDefinition names no group or plural");
            return;
        };
        let name = format!("{plural}.{group}");
        let Some(r) = resolve(&self.resources, &name).cloned() else {
            self.error(format!(
                "{name} is not served (yet): discovery does not list it"
            ));
            return;
        };
        let ns = self.scope_for(&r);
        let id = self.open_view(r, ns, fx);
        self.stack.push(Screen::Table(id));
        self.scroll_current();
    }

    /// `0`–`9`: the namespace favourites (`0`: all namespaces; `i`: the i-th most recently used).
    pub(crate) fn use_favourite(&mut self, i: usize, fx: &mut Vec<Effect>) {
        if i == 0 {
            self.use_namespace(None, fx);
            return;
        }
        match self.favourites.get(i - 1).cloned() {
            Some(ns) => self.use_namespace(Some(ns), fx),
            None => self.error(format!(
                "no favourite {i}: namespaces you switch to (:ns, Enter on a namespace) become 1-{FAVOURITES}"
            )),
        }
    }

    /// Make `ns` the scope of every view from now on (sticky, as k9s), remember it as the most
    /// recent favourite, and show the current kind there (pods from the namespaces table).
    pub(crate) fn use_namespace(&mut self, ns: Option<String>, fx: &mut Vec<Effect>) {
        if let Some(n) = &ns {
            self.remember_favourite(n);
        }
        self.namespace = ns.clone();
        let current = self
            .current_view()
            .map(|v| v.resource.clone())
            .filter(|r| r.namespaced)
            .or_else(|| resolve(&self.resources, "pods").cloned());
        if let Some(r) = current {
            self.reset_to(r, fx);
        }
        self.info(match ns {
            Some(n) if crate::ui::scope::several(Some(&n)) => format!("namespaces: {n}"),
            Some(n) => format!("namespace: {n}"),
            None => "all namespaces".to_string(),
        });
    }

    /// Put `ns` first among the favourites (each once, at most [`FAVOURITES`]).
    pub(crate) fn remember_favourite(&mut self, ns: &str) {
        self.favourites.retain(|f| f != ns);
        self.favourites.insert(0, ns.to_string());
        self.favourites.truncate(FAVOURITES);
    }
}
