//! The resource table screen, still written as App's own code (not yet a component; its model
//! is [`ResourceView`], wrapping [`TableModel`](crate::ui::table::TableModel)): its keys
//! (filters, sort, drill-down, YAML/describe/logs/delete of the selection) and its drawing
//! (`table/draw.rs`). It lives on App's side (`ui/host/`) so no file under `ui/screens/`
//! imports App.

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Cell as TCell, Paragraph, Row as TRow, Scrollbar, ScrollbarOrientation, ScrollbarState,
    StatefulWidget, Table, Widget,
};

mod draw;

use crate::informer::history::Since;
use crate::informer::index::LABEL_INDEX;
use crate::render::Column;
use crate::ui::action::{Access, Denial, Effect, ObjectSummary, ViewId};
use crate::ui::app::{App, Mode};
use crate::ui::component::FilterLine;
use crate::ui::fleet_table::merged_index_keys;
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, centered};
use crate::ui::resources::resolve;
use crate::ui::screens::Screen;
use crate::ui::screens::prompt::Prompt;
use crate::ui::screens::text::TextKind;
use crate::ui::table::rows_for_keys;
use crate::ui::table::{Drill, LabelFilter, Mark, SortBy, TextFilter};
use crate::ui::usage::{UsageKind, level_style, view_usage};
use crate::ui::view::{DrillVia, OwnerFeed, ResourceView};
use draw::{Shown, custom_cell, shown_columns};
/// The columns a table sorts by, in the order on screen: Key (NAMESPACE in an all-namespaces
/// view, else NAME), the cells (skipping NAME when Key stands for it), the usage columns before
/// IP.
pub(crate) fn sort_sequence(v: &ResourceView) -> Vec<SortBy> {
    let cols = &v.columns;
    let all_ns = crate::ui::scope::spans_namespaces(v.namespace.as_deref(), v.resource.namespaced);
    let joined = UsageKind::of(&v.resource).map_or(0, |k| k.columns().len());
    let mut seq: Vec<SortBy> = vec![SortBy::Key];
    let named = cols.first().is_some_and(|c| c.name == "NAME");
    let first = if all_ns || !named { 0 } else { 1 };
    let ip = cols
        .iter()
        .position(|c| c.name == "IP")
        .unwrap_or(cols.len())
        .max(first);
    seq.extend((first..ip).map(SortBy::Cell));
    seq.extend((0..joined).map(SortBy::Joined));
    seq.extend((ip..cols.len()).map(SortBy::Cell));
    seq
}

impl App {
    /// Keys for the resource table under the current screen (filters, drill-down, YAML,
    /// describe, delete, sort); false when `action` is not one of them.
    pub(crate) fn on_table_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        match action {
            KeyAction::Filter => {
                if let Some(v) = self.current_view() {
                    let raw = v.table.filters.text_raw.clone();
                    self.mode = Mode::Filter {
                        input: Prompt::filter(raw),
                    };
                }
            }
            KeyAction::LabelFilter => self.open_picker(),
            // A past view: the selected object's history at the version shown, its recorded
            // state (it is not on the server as it was).
            KeyAction::Enter | KeyAction::History if self.in_past() => self.past_history(fx),
            KeyAction::Yaml | KeyAction::Describe if self.in_past() => self.past_text(),
            KeyAction::Mark => self.mark_row(),
            KeyAction::MarkRange => self.mark_range(),
            KeyAction::ClearMarks => self.clear_marks(),
            KeyAction::Enter => self.enter(fx),
            KeyAction::Blame => self.fetch_text(TextKind::Blame, fx),
            KeyAction::Yaml => self.fetch_text(TextKind::Yaml, fx),
            KeyAction::History => self.history_of_selection(fx),
            KeyAction::Describe => self.fetch_text(TextKind::Describe, fx),
            KeyAction::Logs => self.open_logs(false, fx),
            KeyAction::Create => self.create_here(fx),
            KeyAction::Delete
            | KeyAction::Kill
            | KeyAction::Scale
            | KeyAction::Restart
            | KeyAction::Trigger
            | KeyAction::Suspend
            | KeyAction::SetImage
            | KeyAction::Cordon
            | KeyAction::Uncordon
            | KeyAction::Drain
            | KeyAction::Shell
            | KeyAction::Attach
            | KeyAction::Edit
            | KeyAction::PortForward => {
                self.on_operate_key(action, fx);
            }
            KeyAction::SortName => {
                // Outside -A the key order is the name order.
                let all_ns = self.current_view().is_some_and(|v| {
                    crate::ui::scope::spans_namespaces(
                        v.namespace.as_deref(),
                        v.resource.namespaced,
                    )
                });
                let by = if all_ns { SortBy::Cell(0) } else { SortBy::Key };
                self.sort_table(move |_, _| by, true, false)
            }
            KeyAction::SortAge => self.sort_table(
                |cols, _| {
                    cols.iter()
                        .position(|c| c.name == "AGE")
                        .map_or(SortBy::Key, SortBy::Cell)
                },
                true,
                // Youngest first, as k9s's ascending AGE (the shortest age on top).
                false,
            ),
            KeyAction::SortCpu => self.sort_by_usage("CPU"),
            KeyAction::SortMem => self.sort_by_usage("MEM"),
            KeyAction::SortNext | KeyAction::SortPrev => {
                let fwd = action == KeyAction::SortNext;
                let Some(seq) = self.current_view().map(sort_sequence) else {
                    return true;
                };
                self.sort_table(
                    move |_, cur| {
                        let i = seq.iter().position(|s| *s == cur).unwrap_or(0);
                        let n = seq.len();
                        seq[if fwd { (i + 1) % n } else { (i + n - 1) % n }]
                    },
                    false,
                    false,
                )
            }
            KeyAction::PickColumnLeft | KeyAction::PickColumnRight => {
                let fwd = action == KeyAction::PickColumnRight;
                if let Some(id) = self.current_view_id()
                    && let Some(v) = self.views.get_mut(&id)
                {
                    let seq = sort_sequence(v);
                    let cur = v.sort_pick.unwrap_or(v.table.sort().0);
                    let i = seq.iter().position(|s| *s == cur).unwrap_or(0);
                    let n = seq.len().max(1);
                    v.sort_pick = seq
                        .get(if fwd { (i + 1) % n } else { (i + n - 1) % n })
                        .copied();
                    self.dirty = true;
                }
            }
            KeyAction::SortPicked => {
                let Some(pick) = self.current_view().and_then(|v| v.sort_pick) else {
                    self.error("shift-o sorts by the column picked with shift-left / shift-right");
                    return true;
                };
                // As k9s's first press: the most restarts, CPU and memory on top.
                let desc = match pick {
                    SortBy::Joined(_) => true,
                    SortBy::Cell(i) => self
                        .current_view()
                        .and_then(|v| v.columns.get(i))
                        .is_some_and(|c| c.name == "RESTARTS"),
                    SortBy::Key => false,
                };
                self.sort_table(move |_, _| pick, true, desc);
            }
            KeyAction::Retry => self.retry_forbidden(fx),
            KeyAction::TimeBack => self.time_step(true, fx),
            KeyAction::TimeForward => self.time_step(false, fx),
            KeyAction::SortFlip => {
                if let Some(id) = self.current_view_id()
                    && let Some(v) = self.views.get_mut(&id)
                {
                    v.table.flip_sort();
                }
                self.scroll_current();
            }
            other => return self.on_k9s_table_key(other, fx),
        }
        true
    }

    pub(crate) fn nav_table(&mut self, id: ViewId, action: KeyAction, n: usize) {
        let n = n as isize;
        if let Some(v) = self.views.get_mut(&id) {
            match action {
                KeyAction::Up | KeyAction::PageUp => v.table.move_by(-n),
                KeyAction::Down | KeyAction::PageDown => v.table.move_by(n),
                KeyAction::Top => v.table.select_index(0),
                _ => v.table.select_index(usize::MAX),
            }
        }
        self.scroll_current();
    }

    /// Grow the current table's remembered column widths to fit its visible rows (O(visible
    /// rows), never a scan of the whole table).
    pub(crate) fn remember_col_widths(&mut self) {
        let h = self.table_height();
        let now_unix = self.now_ms.div_euclid(1000);
        let Some(id) = self.current_view_id() else {
            return;
        };
        let merged = self.fleet.is_fleet();
        let Some(key) = self.views.get(&id).map(|v| {
            let ar = &v.resource.api_resource;
            (ar.group.clone(), ar.plural.clone())
        }) else {
            return;
        };
        let custom = self.custom_views.get(&key);
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let shown = shown_columns(v, custom);
        let all_ns =
            crate::ui::scope::spans_namespaces(v.namespace.as_deref(), v.resource.namespaced);
        let merged = usize::from(merged);
        let skip = usize::from(all_ns) + merged;
        let ncols = shown.len() + skip;
        if v.col_widths.len() != ncols {
            v.col_widths = vec![0; ncols];
        }
        let list = v.table.list();
        let n = list.len();
        let start = v.table.offset.min(n);
        for key in &list[start..(start + h).min(n)] {
            let Some(e) = v.table.entry(key) else {
                continue;
            };
            if merged == 1
                && let Some(w) = v.col_widths.first_mut()
            {
                let len = e.summary.cluster().map_or(0, str::len);
                *w = (*w).max(len.min(60) as u16);
            }
            if all_ns && let Some(w) = v.col_widths.get_mut(merged) {
                let len = e.summary.namespace.as_deref().map_or(0, str::len);
                *w = (*w).max(len.min(60) as u16);
            }
            for (w, s) in v.col_widths.iter_mut().skip(skip).zip(&shown) {
                let len = match s {
                    Shown::Own(i) => e
                        .summary
                        .row
                        .cells
                        .get(*i)
                        .map_or(0, |c| c.display(now_unix).chars().count()),
                    Shown::Path(c) => custom_cell(c, &e.summary).chars().count(),
                };
                *w = (*w).max(len.min(60) as u16);
            }
        }
    }

    /// Whether a view cannot show anything because the user may not list/watch it there: the
    /// server's denial (no informer started), or its informer's 403 (the user, the message).
    pub fn forbidden_view(&self, v: &ResourceView) -> Option<Denial> {
        if let Some(d) = &v.denial {
            return Some(d.clone());
        }
        if let Some((m, true)) = &v.error {
            return Some(Denial::from_message("list", m, None));
        }
        let row = self.informer_for(v).filter(|r| r.forbidden)?;
        let message = row.last_error.clone().unwrap_or_else(|| "forbidden".into());
        let retry = match row.state {
            crate::ui::action::InformerState::Forbidden { retry_at_ms } => Some(retry_at_ms),
            _ => None,
        };
        Some(Denial::from_message("list", &message, retry))
    }

    /// A forbidden all-namespaces view asks (once a session) whether the context's namespace
    /// is allowed; only then does it switch there ([`Self::on_access_checked`]).
    pub(crate) fn ask_fallback(&mut self, id: ViewId, fx: &mut Vec<Effect>) {
        if self.current_view_id() != Some(id) {
            return;
        }
        let Some(v) = self.views.get(&id) else { return };
        if v.namespace.is_some() || !v.resource.namespaced || v.drilled_from.is_some() {
            return;
        }
        let Some(ns) = self.context_namespace.take() else {
            return;
        };
        fx.push(Effect::CheckAccess {
            view: id,
            resource: v.resource.clone(),
            namespace: Some(ns),
        });
    }

    /// The answer for the context's namespace: allowed (or unknown: no review API) → show that
    /// namespace instead of all; refused → the view says both scopes are forbidden.
    pub(crate) fn on_access_checked(
        &mut self,
        id: ViewId,
        namespace: Option<String>,
        access: Access,
        fx: &mut Vec<Effect>,
    ) {
        let Some(ns) = namespace else { return };
        let Some(v) = self.views.get(&id) else { return };
        if v.namespace.is_some() || self.current_view_id() != Some(id) {
            return;
        }
        let resource = v.resource.clone();
        let plural = resource.api_resource.plural.clone();
        let who = self
            .forbidden_view(v)
            .and_then(|d| d.user)
            .map(|u| format!(" for user {u}"))
            .unwrap_or_default();
        match access {
            Access::Allowed | Access::Unknown => {
                self.namespace = Some(ns.clone());
                self.reset_to(resource, fx);
                self.error(format!(
                    "listing {plural} in all namespaces is forbidden{who}: showing namespace {ns}"
                ));
            }
            Access::Denied(d) => {
                if let Some(v) = self.views.get_mut(&id) {
                    v.fallback_denied = Some((ns, d));
                }
            }
        }
        self.dirty = true;
    }

    /// `ctrl-r` on a forbidden view (and the namespaces view behind `:ns`, if forbidden too):
    /// forget the denial and ask the runtime to check and open again now.
    pub(crate) fn retry_forbidden(&mut self, fx: &mut Vec<Effect>) {
        let mut ids: Vec<ViewId> = Vec::new();
        if let Some(id) = self.current_view_id()
            && self
                .views
                .get(&id)
                .is_some_and(|v| self.forbidden_view(v).is_some())
        {
            ids.push(id);
        }
        if ids.is_empty() {
            // Not forbidden: check the server's history now (cuts a backoff short too).
            if let Some(id) = self.current_view_id() {
                fx.push(Effect::CheckHistory { view: id });
                self.info("checking the server's history…");
            }
            return;
        }
        if let Some(ns) = self.ns_view
            && self.views.get(&ns).is_some_and(|v| v.denial.is_some())
        {
            ids.push(ns);
        }
        for id in ids {
            if let Some(v) = self.views.get_mut(&id) {
                v.denial = None;
                v.fallback_denied = None;
                v.error = None;
                fx.push(Effect::RetryForbidden { view: id });
            }
        }
        self.info("checking access again…");
    }

    pub(crate) fn after_rows(&mut self, view: ViewId, fx: &mut Vec<Effect>) {
        self.dirty = true;
        if self.current_view_id() == Some(view) {
            self.follow_containers_pod(fx);
        }
        let feed = self.views.get(&view).and_then(|v| v.feeds.clone());
        if let Some(feed) = feed {
            self.refresh_owner_feed(view, &feed, fx);
        }
        self.select_arrived(view);
        self.scroll_current();
    }

    /// `space`: mark (or unmark) the selected row and move down. `ctrl-d`, `ctrl-k` and plugins
    /// then act on every marked row; in the namespaces table Enter shows the marked ones
    /// together.
    pub(crate) fn mark_row(&mut self) {
        let Some(Screen::Table(id)) = self.current_screen().cloned() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let Some(name) = v.table.selected().map(|e| e.summary.key.to_string()) else {
            return;
        };
        match v.marked.iter().position(|m| *m == name) {
            Some(i) => {
                v.marked.remove(i);
            }
            None => v.marked.push(name),
        }
        self.dirty = true;
        crate::ui::screens::nav(self, KeyAction::Down, 1);
    }

    /// `ctrl-space`: mark every row from the last one marked to the selected one (k9s's span
    /// mark); with none marked, the selected row.
    pub(crate) fn mark_range(&mut self) {
        let Some(Screen::Table(id)) = self.current_screen().cloned() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let list = v.table.list();
        let cursor = v.table.cursor().min(list.len().saturating_sub(1));
        let from = v
            .marked
            .last()
            .and_then(|m| list.iter().position(|k| **k == **m))
            .unwrap_or(cursor);
        let (a, b) = (from.min(cursor), from.max(cursor));
        let span: Vec<String> = list
            .get(a..=b)
            .unwrap_or_default()
            .iter()
            .map(|k| k.to_string())
            .collect();
        for k in span {
            if !v.marked.contains(&k) {
                v.marked.push(k);
            }
        }
        self.dirty = true;
    }

    /// `ctrl-\`: unmark every row.
    pub(crate) fn clear_marks(&mut self) {
        if let Some(id) = self.current_view_id()
            && let Some(v) = self.views.get_mut(&id)
        {
            v.marked.clear();
            self.dirty = true;
        }
    }

    /// The marked rows of the current table that are still there (not deleted since).
    pub(crate) fn marked_objects(&self) -> Vec<ObjectSummary> {
        let Some(v) = self.current_view() else {
            return Vec::new();
        };
        v.marked
            .iter()
            .filter_map(|k| v.table.entry(k))
            .filter(|e| e.mark != crate::ui::table::Mark::Deleted)
            .map(|e| e.summary.clone())
            .collect()
    }

    /// Read a drilled view's rows from its index: the keys filed under the drill's values, then
    /// their objects, O(matches) (never a pass over the informer's other objects). Rows that
    /// arrive later are matched one by one as they come (`Filters::passes`). Without the index
    /// (or before the store arrives) the rows the runtime sends are filtered instead.
    pub(crate) fn fill_from_index(&mut self, id: ViewId, fx: &mut Vec<Effect>) {
        let now = self.now_ms;
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        if !v.member_stores.is_empty() {
            return self.fill_merged_from_index(id, fx);
        }
        let (Some(drill), Some(store)) = (v.table.filters.drill.clone(), v.store.clone()) else {
            return;
        };
        let index = drill.index();
        let mut keys: Vec<Arc<str>> = Vec::new();
        let mut answered = true;
        for value in drill.values() {
            match store.index_keys_all(index, &[value]) {
                Ok(k) => keys.extend(k),
                Err(_) => {
                    answered = false;
                    break;
                }
            }
        }
        // An informer wider than the view (all namespaces behind several) files other
        // namespaces' objects under the same values.
        keys.retain(|k| crate::ui::scope::holds_key(v.namespace.as_deref(), k));
        if let Some(a) = v.drill_answer.as_mut() {
            a.answered = answered;
        }
        self.dirty = true;
        if !answered {
            return;
        }
        let (rows, _) = rows_for_keys(
            &v.resource.api_resource.kind,
            v.resource.printer_columns.as_deref(),
            &store,
            None,
            &keys,
        );
        let highlight = v.synced;
        if v.live_table_mut().apply(rows, Vec::new(), now, highlight) {
            self.after_rows(id, fx);
        }
    }

    /// Recompute the owner uids a feeder view provides (e.g. a Deployment's ReplicaSets); when
    /// they changed, widen the target's drill-down, read the new owners' objects from the owner
    /// index and tell the runtime (`Effect::SetDrill`).
    pub(crate) fn refresh_owner_feed(
        &mut self,
        feeder: ViewId,
        feed: &OwnerFeed,
        fx: &mut Vec<Effect>,
    ) {
        let Some(src) = self.views.get(&feeder) else {
            return;
        };
        let (singular, plural) = (
            src.resource.singular.clone(),
            src.resource.api_resource.plural.clone(),
        );
        let mut uids: HashSet<Arc<str>> = src
            .table
            .entries()
            .filter(|e| e.mark != Mark::Deleted)
            .filter(|e| e.summary.owner_uids().any(|u| u == &*feed.root))
            .map(|e| Arc::from(e.summary.uid()))
            .collect();
        let count = uids.len();
        uids.insert(feed.root.clone());
        let Some(target) = self.views.get_mut(&feed.target) else {
            return;
        };
        if let Some(a) = target.drill_answer.as_mut() {
            a.via = Some(DrillVia {
                singular,
                plural,
                count,
            });
        }
        let new = Drill::Owners(uids);
        if target.table.filters.drill.as_ref() != Some(&new) {
            target.table.filters.drill = Some(new.clone());
            target.table.refilter(None);
            fx.push(Effect::SetDrill {
                view: feed.target,
                drill: new,
            });
            self.fill_from_index(feed.target, fx);
        }
    }

    /// Sort the current table by the column `pick` chooses; the same column again flips the
    /// order when `same_flips`; a new column starts descending when `descending_first`.
    pub(crate) fn sort_table(
        &mut self,
        pick: impl Fn(&[Column], SortBy) -> SortBy,
        same_flips: bool,
        descending_first: bool,
    ) {
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let (cur, _) = v.table.sort();
        let by = pick(&v.columns, cur);
        if by == cur && !same_flips {
            return;
        }
        self.prepare_joined_sort(id, by);
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        v.table.set_sort_first(by, descending_first);
        self.scroll_current();
    }

    pub(crate) fn selected_object(&self) -> Option<(&ResourceView, &ObjectSummary)> {
        let Some(Screen::Table(id)) = self.current_screen() else {
            return None;
        };
        let v = self.views.get(id)?;
        let e = v.table.selected()?;
        Some((v, &e.summary))
    }

    pub(crate) fn enter(&mut self, fx: &mut Vec<Effect>) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let kind = view.resource.api_resource.kind.clone();
        let view_id = view.id;
        let ns = obj.namespace.as_deref().map(str::to_string);
        let name = obj.name.to_string();
        let uid: Arc<str> = Arc::from(obj.uid());
        match kind.as_str() {
            // As k9s: the namespace becomes the scope of every view (and a favourite); the
            // namespaces marked with space, if any, together.
            "Namespace" if obj.cluster().is_none() => {
                let marked = self
                    .views
                    .get_mut(&view_id)
                    .map(|v| std::mem::take(&mut v.marked))
                    .unwrap_or_default();
                let scope = if marked.is_empty() {
                    Some(name)
                } else {
                    crate::ui::scope::of(&marked)
                };
                self.use_namespace(scope, fx);
                return;
            }
            "Service" => {
                let selector = obj
                    .object
                    .data
                    .get("spec")
                    .and_then(|s| s.get("selector"))
                    .cloned();
                self.drill_by_selector("services", ns, &name, selector.as_ref(), fx);
                return;
            }
            "CronJob" => {
                if let Some(jobs) = resolve(&self.resources, "jobs").cloned() {
                    let id = self.open_view_with(
                        jobs,
                        ns,
                        Some(Drill::Owners([uid].into_iter().collect())),
                        fx,
                    );
                    if let Some(v) = self.views.get_mut(&id) {
                        v.drilled_from = Some(format!("cronjobs/{name}"));
                    }
                    self.stack.push(Screen::Table(id));
                    self.scroll_current();
                }
                return;
            }
            "CustomResourceDefinition" => {
                let crd = obj.object.clone();
                self.open_crd_instances(&crd.data, fx);
                return;
            }
            // As k9s: a pod's containers (its YAML stays on `y`).
            "Pod" if view.resource.api_resource.group.is_empty() => {
                let pod = obj.clone();
                self.open_containers(pod, fx);
                return;
            }
            _ => {}
        }
        let Some(pods) = resolve(&self.resources, "pods").cloned() else {
            return;
        };
        // Each drill-down is answered by an index of the pods informer: the owner index (for a
        // Deployment, twice: its ReplicaSets, then their pods), the node or the namespace index.
        let owned_by = |uid: &Arc<str>| Drill::Owners([uid.clone()].into_iter().collect());
        let (scope, drill, feeder) = match kind.as_str() {
            "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => {
                (ns.clone(), owned_by(&uid), None)
            }
            "Deployment" => (
                ns.clone(),
                owned_by(&uid),
                resolve(&self.resources, "replicasets").cloned(),
            ),
            "Node" => (None, Drill::Node(Arc::from(name.as_str())), None),
            "Namespace" => (
                Some(name.clone()),
                Drill::Namespace(Arc::from(name.as_str())),
                None,
            ),
            _ => {
                // Other kinds: Enter shows the YAML, as k9s's default "view" action.
                self.fetch_text(TextKind::Yaml, fx);
                return;
            }
        };
        let plural = view.resource.api_resource.plural.clone();
        let id = self.open_view_with(pods, scope.clone(), Some(drill), fx);
        if let Some(v) = self.views.get_mut(&id) {
            v.drilled_from = Some(format!("{plural}/{name}"));
        }
        if let Some(rs) = feeder {
            let (rs_singular, rs_plural) = (rs.singular.clone(), rs.api_resource.plural.clone());
            // The ReplicaSets come from the owner index too (only the Deployment's own).
            let fid = self.open_view_with(rs, scope, Some(owned_by(&uid)), fx);
            if let Some(f) = self.views.get_mut(&fid) {
                f.feeds = Some(OwnerFeed {
                    target: id,
                    root: uid,
                });
            }
            if let Some(v) = self.views.get_mut(&id)
                && let Some(a) = v.drill_answer.as_mut()
            {
                a.via = Some(DrillVia {
                    singular: rs_singular,
                    plural: rs_plural,
                    count: 0,
                });
            }
        }
        self.stack.push(Screen::Table(id));
        self.scroll_current();
    }

    /// The `/` line over a table: live substring/regex filtering while typing (`-l` waits for
    /// Enter, a label selector); Esc clears; Enter keeps it and pins the row it led to.
    pub(crate) fn on_table_filter_line(&mut self, line: FilterLine) {
        match line {
            FilterLine::Esc => {
                if let Some(id) = self.current_view_id() {
                    self.set_text_filter(id, "");
                }
            }
            FilterLine::Enter(text) => {
                let text = text.trim();
                if let Some(sel) = text.strip_prefix("-l") {
                    if let Some(id) = self.current_view_id() {
                        self.set_text_filter(id, "");
                        self.apply_label_filter(id, sel.trim());
                    }
                } else if let Some(id) = self.current_view_id() {
                    self.set_text_filter(id, text);
                }
                // The row the filter led to is the user's pick: it stays selected as rows come.
                if let Some(id) = self.current_view_id()
                    && let Some(v) = self.views.get_mut(&id)
                {
                    v.table.pin_selection();
                }
            }
            FilterLine::Typed(text) => {
                if !text.starts_with("-l")
                    && let Some(id) = self.current_view_id()
                {
                    self.set_text_filter(id, &text);
                }
            }
        }
    }

    pub(crate) fn set_text_filter(&mut self, id: ViewId, text: &str) {
        let parsed = if text.is_empty() {
            Ok(None)
        } else {
            TextFilter::parse(text).map(Some)
        };
        match parsed {
            Ok(f) => {
                if self
                    .message
                    .as_ref()
                    .is_some_and(|(m, e)| *e && m.starts_with("invalid regex"))
                {
                    self.message = None;
                }
                if let Some(v) = self.views.get_mut(&id) {
                    let was_valid = !v.table.filters.text_invalid;
                    v.table.filters.text_raw = text.to_string();
                    v.table.filters.text_invalid = false;
                    let narrowed = match f {
                        Some(f) if was_valid => match v.table.narrow_text(f) {
                            Ok(()) => true,
                            Err(f) => {
                                v.table.filters.text = Some(f);
                                false
                            }
                        },
                        f => {
                            v.table.filters.text = f;
                            false
                        }
                    };
                    if !narrowed {
                        Self::refilter_text(v);
                    }
                }
                self.scroll_current();
            }
            // The header shows what was typed, marked not applied, over every row (not the rows
            // of the last valid prefix under a header naming it); the error stays in the footer
            // until the input changes.
            Err(e) => {
                if let Some(v) = self.views.get_mut(&id) {
                    v.table.filters.text = None;
                    v.table.filters.text_raw = text.to_string();
                    v.table.filters.text_invalid = true;
                    Self::refilter_text(v);
                }
                self.scroll_current();
                self.error(e);
            }
        }
    }

    /// Recompute the shown rows after a text filter change: from the label index's candidates
    /// when it answers, else a pass over every row in slices (a frame's worth per update, the
    /// rest on the ticks the App asks for while it lasts: `TableModel::refilter_sliced`).
    fn refilter_text(v: &mut ResourceView) {
        match Self::label_candidates(v) {
            Some(cands) => v.table.refilter(Some(cands)),
            None => v.table.refilter_sliced(),
        }
    }

    /// Candidates from the label index for the view's label filter (None: scan all rows).
    pub(crate) fn label_candidates(v: &mut ResourceView) -> Option<Vec<Arc<str>>> {
        if v.past.is_some() {
            // The index answers for now: a past view's rows are scanned.
            return None;
        }
        // Rows of objects deleted a moment ago linger, struck: not rows the store lacks.
        let rows = v.table.live_total();
        let lf = v.table.filters.label.as_mut()?;
        let terms: Vec<&str> = lf.index_terms.iter().map(String::as_str).collect();
        let from_index = if !v.member_stores.is_empty() {
            // A merged view: each member's label index, its keys under the member's name.
            merged_index_keys(&v.member_stores, LABEL_INDEX, &terms)
        } else {
            match v.store.as_ref() {
                // A view showing a list in progress holds rows its store has not got yet (it
                // gets the list whole at its end): scan the rows instead.
                Some(s) if !terms.is_empty() && !v.relisting && s.len() >= rows => {
                    s.index_keys_all(LABEL_INDEX, &terms).ok()
                }
                _ => None,
            }
        };
        lf.from_index = from_index.is_some();
        // The store's keys are `namespace/name`, as the table's (a key the table has not
        // received yet is skipped by `refilter`).
        from_index
    }

    /// Parse and apply a label selector to a view (empty: clear). Invalid → inline error.
    pub fn apply_label_filter(&mut self, id: ViewId, text: &str) -> bool {
        let parsed = if text.trim().is_empty() {
            Ok(None)
        } else {
            LabelFilter::parse(text.trim()).map(Some)
        };
        match parsed {
            Ok(f) => {
                if let Some(v) = self.views.get_mut(&id) {
                    v.table.filters.label = f;
                    let cands = Self::label_candidates(v);
                    v.table.refilter(cands);
                }
                self.scroll_current();
                true
            }
            Err(e) => {
                self.error(format!("invalid label selector {text:?}: {e}"));
                false
            }
        }
    }
}
