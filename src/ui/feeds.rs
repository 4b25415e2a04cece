//! `App::update`'s handlers of what the runtime feeds (rows, lists, stores, informer stats,
//! discovery) and of the mouse and the clock, one method per action, so that `update` only
//! routes. The state they change is the shared models' (views and their tables, informer
//! rows); the screens read it through [`super::component::Ctx`].

use crossterm::event::MouseEventKind;

use super::action::{ConnectionState, Effect, InformerRow, ViewId};
use super::app::{App, Mode, Screen};
use super::keys::KeyAction;
use super::resources::printer_columns_of;
use super::screens::text::TextResult;
use crate::cluster::{ResourceInfo, resolve};
use crate::render::columns;

/// A view's indexer as the runtime hands it over.
type StoreRef =
    std::sync::Arc<crate::informer::thread_safe_store::ThreadSafeStore<kube::api::DynamicObject>>;

impl App {
    /// The wheel scrolls the screen on top; a left click selects a table row.
    pub(super) fn on_mouse(&mut self, m: crossterm::event::MouseEvent) {
        match m.kind {
            MouseEventKind::ScrollDown => {
                self.dirty = true;
                self.nav(KeyAction::Down, 3);
            }
            MouseEventKind::ScrollUp => {
                self.dirty = true;
                self.nav(KeyAction::Up, 3);
            }
            MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
                // Table rows start below the header (3 lines), the border and the column
                // header.
                if matches!(self.mode, Mode::Normal)
                    && let Some(Screen::Table(id)) = self.current_screen().cloned()
                    && let Some(v) = self.views.get_mut(&id)
                    && m.row >= 5
                {
                    let i = v.table.offset + usize::from(m.row - 5);
                    if i < v.table.list().len() {
                        v.table.select_index(i);
                        self.dirty = true;
                    }
                }
            }
            _ => {}
        }
    }

    /// The clock: ages, fading highlights, deleted rows leaving, filter and sort passes.
    pub(super) fn on_tick(&mut self, now: i64, fx: &mut Vec<Effect>) {
        let second_changed = now / 1000 != self.now_ms / 1000;
        self.now_ms = now;
        let mut changed = second_changed | self.expire_message(now);
        for v in self.views.values_mut() {
            changed |= v.live_table_mut().expire(now);
            // A filter pass in progress checks its next slice of rows.
            changed |= v.table.continue_filter();
            // So does a sort in progress.
            changed |= v.table.continue_sort();
        }
        changed |= self.xray_tick();
        if changed {
            self.dirty = true;
            self.scroll_current();
        }
        if second_changed {
            self.refresh_history(fx);
            self.refresh_changes(fx);
        }
    }

    /// A batch of an informer's rows; false when a pulse or xray feed took it (nothing more
    /// to do this update).
    pub(super) fn on_rows(
        &mut self,
        view: ViewId,
        upserts: Vec<crate::ui::action::ObjectSummary>,
        deletes: Vec<std::sync::Arc<str>>,
        fx: &mut Vec<Effect>,
    ) -> bool {
        // Pulse feeds are not tables; the second's tick redraws the pulse.
        if self.pulse_rows(view, &upserts, &deletes) || self.xray_rows(view, &upserts, &deletes, fx)
        {
            return false;
        }
        let now = self.now_ms;
        let Some(v) = self.views.get_mut(&view) else {
            return false;
        };
        // The initial list is not news: highlight only once the view is synced.
        let highlight = v.synced;
        if v.live_table_mut().apply(upserts, deletes, now, highlight) {
            self.after_rows(view, fx);
        }
        true
    }

    /// Rows of a list in progress; false when the view is gone.
    pub(super) fn on_listed_rows(
        &mut self,
        view: ViewId,
        upserts: Vec<crate::ui::action::ObjectSummary>,
        deletes: Vec<std::sync::Arc<str>>,
        fx: &mut Vec<Effect>,
    ) -> bool {
        let now = self.now_ms;
        // The list's total, when known (a paged list's, or the last list's count).
        let total = self
            .views
            .get(&view)
            .and_then(|v| self.informer_for(v))
            .and_then(|r| r.progress.as_ref())
            .and_then(|p| p.total)
            .map(|t| usize::try_from(t.count()).unwrap_or(usize::MAX));
        let Some(v) = self.views.get_mut(&view) else {
            return false;
        };
        if let Some(total) = total {
            v.table.reserve(total);
        }
        // Rows of a new list on a synced view: a relist, possibly ahead of the progress
        // that says so. The previous rows are stale from here (not after these).
        if v.synced && !v.relisting {
            v.relisting = true;
            v.table.mark_stale();
        }
        if v.table.apply_listed(upserts, deletes, now) {
            self.after_rows(view, fx);
        }
        true
    }

    /// A view's complete list; false when a pulse or xray feed took it or the view is gone.
    pub(super) fn on_resync(
        &mut self,
        view: ViewId,
        rows: Vec<crate::ui::action::ObjectSummary>,
        fx: &mut Vec<Effect>,
    ) -> bool {
        if self.pulse_resync(view, &rows) || self.xray_resync(view, &rows, fx) {
            return false;
        }
        let now = self.now_ms;
        let Some(v) = self.views.get_mut(&view) else {
            return false;
        };
        v.synced = true;
        v.error = None;
        v.denial = None;
        v.fallback_denied = None;
        v.live_table_mut().resync(rows, now);
        self.check_custom_columns(view);
        self.dirty = true;
        self.after_rows(view, fx);
        true
    }

    /// A view's indexer; false when an xray feed took it.
    pub(super) fn on_store(&mut self, view: ViewId, store: StoreRef, fx: &mut Vec<Effect>) -> bool {
        if self.xray_store(view, &store) {
            return false;
        }
        if let Some(v) = self.views.get_mut(&view) {
            v.store = Some(store);
            // A selector given before the index was attached (`-l` at start) is now
            // answered by the index.
            if v.table.filters.label.is_some() {
                let cands = Self::label_candidates(v);
                v.table.refilter(cands);
                self.dirty = true;
            }
            // A drill-down's rows come from its index.
            if v.table.filters.drill.is_some() {
                self.fill_from_index(view, fx);
            }
        }
        true
    }

    /// An informer failed; false when it was an xray feed's.
    pub(super) fn on_view_error(&mut self, view: ViewId, message: String, forbidden: bool) -> bool {
        if self.xray_feed_error(view, &message) {
            return false;
        }
        if let Some(v) = self.views.get_mut(&view) {
            v.error = Some((message, forbidden));
            self.dirty = true;
        }
        true
    }

    /// The informers' rows: history resets said in the footer, views marked synced, relists
    /// and outages followed, a forbidden list falling back.
    pub(super) fn on_informer_stats(&mut self, rows: Vec<InformerRow>, fx: &mut Vec<Effect>) {
        self.pulse_stats(&rows);
        // A history reset of this context's informers is news: say it in the footer too.
        let reset = rows
            .iter()
            .filter(|r| r.cluster.is_none())
            .filter_map(|r| r.history_reset.as_ref().map(|h| (r, h)))
            .find(|(r, h)| {
                !self.informers.iter().any(|o| {
                    o.cluster.is_none()
                        && o.resource == r.resource
                        && o.namespace == r.namespace
                        && o.history_reset.as_ref() == Some(h)
                })
            })
            .map(|(r, h)| format!("{}: {h}", r.resource));
        if let Some(msg) = reset {
            self.info(msg);
        }
        if rows != self.informers {
            self.informers = rows;
            let synced: Vec<ViewId> = self
                .views
                .values()
                .filter(|v| !v.synced && self.informer_for(v).is_some_and(|r| r.synced))
                .map(|v| v.id)
                .collect();
            for id in synced {
                if let Some(v) = self.views.get_mut(&id) {
                    v.synced = true;
                }
            }
            self.follow_relists();
            if let Some(id) = self.current_view_id()
                && self
                    .views
                    .get(&id)
                    .and_then(|v| self.informer_for(v))
                    .is_some_and(|r| r.forbidden)
            {
                self.ask_fallback(id, fx);
            }
            self.dirty = true;
        }
    }

    /// The server refused a view's list; false when it was an xray feed's.
    pub(super) fn on_forbidden(
        &mut self,
        view: ViewId,
        denial: crate::ui::action::Denial,
        fx: &mut Vec<Effect>,
    ) -> bool {
        if self.xray_feed_error(view, &denial.message) {
            return false;
        }
        if let Some(v) = self.views.get_mut(&view) {
            v.denial = Some(denial);
            self.dirty = true;
            self.ask_fallback(view, fx);
        }
        true
    }

    /// The server's resources: config checked against them, a pending `-r` opened, printer
    /// columns refreshed.
    pub(super) fn on_discovery(&mut self, resources: Vec<ResourceInfo>, fx: &mut Vec<Effect>) {
        let pending = self.pending_command.take();
        self.apply_discovery(resources, fx);
        // The line that asked for this discovery, once more; still unknown, it says so (the
        // pending line is gone, so no third ask).
        if let Some(line) = pending {
            let name = line.split_whitespace().next().unwrap_or_default();
            if resolve(&self.resources, name).is_some() {
                self.run_command(&line, fx);
            } else {
                self.error(format!("unknown resource or command: {name}"));
            }
        }
    }

    fn apply_discovery(&mut self, resources: Vec<ResourceInfo>, fx: &mut Vec<Effect>) {
        if !resources.is_empty() {
            self.resources = resources;
            self.discovered = true;
            self.check_config_against_discovery();
            self.open_pending_resource(fx);
            for v in self.views.values_mut() {
                if let Some(fresh) = self.resources.iter().find(|r| {
                    r.api_resource.group == v.resource.api_resource.group
                        && r.api_resource.plural == v.resource.api_resource.plural
                }) && printer_columns_of(fresh) != printer_columns_of(&v.resource)
                {
                    v.columns = columns(&fresh.api_resource.kind, printer_columns_of(fresh));
                }
            }
            self.dirty = true;
        }
    }
    /// The terminal's new size.
    pub(super) fn on_resize(&mut self, w: u16, h: u16) {
        self.size = (w, h);
        self.dirty = true;
        self.scroll_current();
        self.fit_logs();
    }

    /// Time to verify the current table against the server.
    pub(super) fn on_verify_tick(&mut self, fx: &mut Vec<Effect>) {
        if let Some(view) = self.current_view_id() {
            fx.push(Effect::Verify { view });
        }
    }

    /// New DeltaFIFO event-tap entries: redraw when the pane or `:deltas` shows them.
    pub(super) fn on_tap(&mut self, entries: Vec<crate::informer::shared_informer::TapEntry>) {
        if self.events.push(entries)
            && (self.show_events_pane || matches!(self.current_screen(), Some(Screen::Events(_))))
        {
            self.dirty = true;
        }
    }

    /// A YAML fetch answered (the xray's or a text screen's).
    pub(super) fn on_yaml(&mut self, request: u64, result: Result<serde_json::Value, String>) {
        if !self.xray_fetched(request, &result) {
            self.on_text(request, result.map(TextResult::Yaml))
        }
    }

    /// The current context's connection state.
    pub(super) fn on_connection(&mut self, c: ConnectionState) {
        if c != self.connection {
            self.connection = c;
            self.dirty = true;
        }
    }

    /// The active port-forwards, as the runtime reports them.
    pub(super) fn on_forwards(&mut self, rows: Vec<crate::ui::portforward::ForwardRow>) {
        if rows != self.forwards {
            self.forwards = rows;
            if matches!(self.current_screen(), Some(Screen::PortForwards(_))) {
                self.dirty = true;
            }
        }
    }

    /// Which informers serve a view of several namespaces.
    pub(super) fn on_scope_served(&mut self, view: ViewId, served: String) {
        if let Some(v) = self.views.get_mut(&view) {
            v.served = Some(served);
            self.dirty = true;
        }
    }

    /// A write's (or a plugin's) answer for the footer.
    pub(super) fn notify(&mut self, message: String, error: bool) {
        if error {
            self.error(message);
        } else {
            self.info(message);
        }
        self.dirty = true;
    }
}
