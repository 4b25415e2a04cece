//! `App`'s side of the [pulse](crate::ui::screens::pulse): opening it (its feeds and node
//! metrics), handing its model the feeds' rows and the informers' stats, closing its feeds,
//! and opening the list its Enter asks for.

use std::sync::Arc;

use crate::cluster::ResourceInfo;
use crate::ui::action::{Effect, InformerRow, ObjectSummary, ViewId};
use crate::ui::app::{App, Screen};
use crate::ui::metrics::MetricsScope;
use crate::ui::pulse::PulseKind;
use crate::ui::resources::resolve;
use crate::ui::screens::pulse::PulseScreen;

impl App {
    /// Show the pulse: open it (its feeds and node metrics), or go back to it if it is on the
    /// stack already (closing the screens above it).
    pub(crate) fn open_pulse(&mut self, fx: &mut Vec<Effect>) {
        if self.stack.iter().any(|s| matches!(s, Screen::Pulse)) {
            while !matches!(self.current_screen(), Some(Screen::Pulse)) && self.stack.len() > 1 {
                self.pop_screen(fx);
            }
            self.dirty = true;
            return;
        }
        let mut screen = PulseScreen {
            namespace: self.namespace.clone(),
            ..PulseScreen::default()
        };
        for kind in PulseKind::ALL {
            let Some(resource) = resolve(&self.resources, kind.resource()).cloned() else {
                continue;
            };
            let view = self.next_view;
            self.next_view += 1;
            let namespace = self.scope_for(&resource);
            // With several clusters the feed is merged (every cluster's objects, keyed under
            // it): the tiles sum them and the per-cluster strip breaks them down.
            fx.push(Effect::OpenResource {
                view,
                resource,
                namespace,
                drill: None,
            });
            if kind == PulseKind::Nodes {
                fx.push(Effect::WatchMetrics {
                    view,
                    scope: MetricsScope::Nodes,
                });
            }
            screen.feeds.insert(view, kind);
        }
        screen.pulse.rates = self.rates.clone();
        if self.fleet.is_fleet() {
            screen.pulse.set_current_cluster(&self.connection.context);
        }
        self.pulse = Some(Box::new(screen));
        self.stack.push(Screen::Pulse);
        self.dirty = true;
    }

    /// The pulse left the stack: close its feeds.
    pub(crate) fn close_pulse(&mut self, fx: &mut Vec<Effect>) {
        if let Some(p) = self.pulse.take() {
            let mut ids: Vec<ViewId> = p.feeds.keys().copied().collect();
            ids.sort_unstable();
            fx.extend(ids.into_iter().map(|view| Effect::CloseView { view }));
        }
    }

    /// Rows of a pulse feed go to the model; false when `view` is not one.
    pub(crate) fn pulse_rows(
        &mut self,
        view: ViewId,
        upserts: &[ObjectSummary],
        deletes: &[Arc<str>],
    ) -> bool {
        let Some(p) = self.pulse.as_mut() else {
            return false;
        };
        let Some(kind) = p.feeds.get(&view).copied() else {
            return false;
        };
        p.pulse.apply(kind, upserts, deletes);
        true
    }

    /// The complete content of a pulse feed; false when `view` is not one.
    pub(crate) fn pulse_resync(&mut self, view: ViewId, rows: &[ObjectSummary]) -> bool {
        let Some(p) = self.pulse.as_mut() else {
            return false;
        };
        let Some(kind) = p.feeds.get(&view).copied() else {
            return false;
        };
        p.pulse.resync(kind, rows);
        true
    }

    /// A sparkline sample per informer, at most one a second (the deltas of skipped stats add
    /// up in the next sample), kept whether the pulse is open or not.
    pub(crate) fn pulse_stats(&mut self, rows: &[InformerRow]) {
        if self.rates.record(rows, self.now_ms.div_euclid(1000))
            && let Some(p) = self.pulse.as_mut()
        {
            p.pulse.rates = self.rates.clone();
        }
    }

    /// A table of `resource` on top, filtered to `filter` and, with `faults`, to the faulty
    /// rows (the pulse's Enter).
    pub(crate) fn open_filtered(
        &mut self,
        resource: ResourceInfo,
        filter: Option<String>,
        faults: bool,
        fx: &mut Vec<Effect>,
    ) {
        let ns = self.scope_for(&resource);
        let id = self.open_view(resource, ns, fx);
        self.stack.push(Screen::Table(id));
        if let Some(f) = filter {
            self.set_text_filter(id, &f);
        }
        if faults && let Some(v) = self.views.get_mut(&id) {
            v.table.filters.faults = true;
            let cands = Self::label_candidates(v);
            v.table.refilter(cands);
        }
        self.scroll_current();
    }
}
