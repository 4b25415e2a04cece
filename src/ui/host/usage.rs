//! `App`'s side of the [usage columns](crate::ui::usage): asking for metrics when a pods or
//! nodes table opens, keeping each poll, and filling a usage sort's keys.

use crate::ui::action::{Effect, NodePods, ViewId};
use crate::ui::app::{App, Screen};
use crate::ui::metrics::{MetricsScope, MetricsUpdate};
use crate::ui::resources::resolve;
use crate::ui::table::SortBy;
use crate::ui::usage::{UsageKind, fill_joined};

impl App {
    /// Ask for usage when a pods or nodes view opens (the runtime shares one poller per scope).
    pub(crate) fn watch_usage(&self, view: ViewId, fx: &mut Vec<Effect>) {
        if let Some(v) = self.views.get(&view)
            && v.feeds.is_none()
            && let Some(kind) = UsageKind::of(&v.resource)
        {
            fx.push(Effect::WatchMetrics {
                view,
                scope: kind.scope(v.namespace.as_deref()),
            });
            if kind == UsageKind::Nodes
                && let Some(pods) = resolve(&self.resources, "pods")
            {
                fx.push(Effect::WatchNodePods {
                    view,
                    pods: pods.clone(),
                });
            }
        }
    }

    /// Pods were counted per node (or cannot be): the nodes tables' PODS column.
    pub(crate) fn on_node_pods(&mut self, update: NodePods) {
        if let NodePods::Unavailable(why) = &update
            && self.node_pods.as_ref() != Some(&update)
        {
            self.info(format!("PODS n/a: {why}"));
        }
        self.node_pods = Some(update);
        let ids: Vec<ViewId> = self
            .views
            .values()
            .filter(|v| UsageKind::of(&v.resource) == Some(UsageKind::Nodes))
            .map(|v| v.id)
            .collect();
        self.refill_usage_sorts(ids);
        if matches!(self.current_screen(), Some(Screen::Table(id)) if self
            .views
            .get(id)
            .is_some_and(|v| UsageKind::of(&v.resource) == Some(UsageKind::Nodes)))
        {
            self.dirty = true;
            self.scroll_current();
        }
    }

    /// One poll arrived (or the API is unavailable).
    pub(crate) fn on_metrics(&mut self, update: MetricsUpdate) {
        match update {
            MetricsUpdate::Usage { scope, usage } => {
                if scope == MetricsScope::Nodes
                    && let Some(p) = self.pulse.as_mut()
                {
                    p.pulse.set_node_usage(usage.clone());
                }
                self.metrics.insert(scope.clone(), usage);
                self.metrics_unavailable = None;
                let ids: Vec<ViewId> = self
                    .views
                    .values()
                    .filter(|v| {
                        UsageKind::of(&v.resource)
                            .is_some_and(|k| k.scope(v.namespace.as_deref()) == scope)
                    })
                    .map(|v| v.id)
                    .collect();
                self.refill_usage_sorts(ids);
                if self.shows_usage() {
                    self.dirty = true;
                    self.scroll_current();
                }
            }
            MetricsUpdate::Unavailable(why) => {
                let msg = why.message();
                self.metrics.clear();
                if let Some(p) = self.pulse.as_mut() {
                    p.pulse.set_metrics_unavailable(msg.clone());
                }
                // Said once per reason (the poller sends a reason once).
                // An error already in the footer (a forbidden view's fallback, say) stays: the
                // table's border says why usage is n/a as well.
                if self.metrics_unavailable.as_deref() != Some(msg.as_str()) {
                    self.metrics_unavailable = Some(msg.clone());
                    if !matches!(self.message, Some((_, true))) {
                        self.info(msg);
                    }
                }
                self.dirty = true;
            }
        }
    }

    /// The screen on top shows usage (a pods/nodes table, or the pulse).
    fn shows_usage(&self) -> bool {
        match self.current_screen() {
            Some(Screen::Table(id)) => self
                .views
                .get(id)
                .is_some_and(|v| UsageKind::of(&v.resource).is_some()),
            Some(Screen::Pulse) => true,
            _ => false,
        }
    }

    /// Sort the current table by its usage column `name` (`CPU`, `MEM`); again: flip.
    pub(crate) fn sort_by_usage(&mut self, name: &str) {
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get(&id) else {
            return;
        };
        let Some(kind) = UsageKind::of(&v.resource) else {
            self.info(format!("no {name} column here (pods and nodes show usage)"));
            return;
        };
        let Some(col) = kind.columns().iter().position(|c| *c == name) else {
            return;
        };
        let by = SortBy::Joined(col);
        self.prepare_joined_sort(id, by);
        // As k9s: the most CPU or memory on top first.
        if let Some(v) = self.views.get_mut(&id) {
            v.table.set_sort_first(by, true);
        }
        self.scroll_current();
    }

    /// Before a sort change to a usage column: fill its keys.
    pub(crate) fn prepare_joined_sort(&mut self, id: ViewId, by: SortBy) {
        if let SortBy::Joined(col) = by
            && self.views.get(&id).is_some_and(|v| v.table.sort().0 != by)
        {
            self.fill_usage_keys(id, col);
        }
    }

    /// The views `ids` sorted by a usage column: their keys again, from the latest poll.
    fn refill_usage_sorts(&mut self, ids: Vec<ViewId>) {
        for id in ids {
            if let Some((SortBy::Joined(col), _)) = self.views.get(&id).map(|v| v.table.sort()) {
                self.fill_usage_keys(id, col);
            }
        }
    }

    /// Fill view `id`'s keys for its usage column `col` from the polls kept.
    fn fill_usage_keys(&mut self, id: ViewId, col: usize) {
        let fleet_context = self
            .fleet
            .is_fleet()
            .then_some(self.connection.context.as_str());
        if let Some(v) = self.views.get_mut(&id) {
            fill_joined(
                &self.metrics,
                self.node_pods.as_ref(),
                fleet_context,
                v,
                col,
            );
        }
    }
}
