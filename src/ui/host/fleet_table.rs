//! App's side of merged tables ([`crate::ui::fleet_table`]): stale and lacking members, read-only per object's cluster, a key routed to the selected row's cluster, and each member's indexer.

use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::ui::action::{ClusterHealth, Effect, ViewId, resource_label};
use crate::ui::app::{App, Mode};
use crate::ui::fleet_table::aimed_at_object;
use crate::ui::operate::Write;
use crate::ui::screens::Screen;
use crate::ui::screens::table::ResourceView;
use kube::api::DynamicObject;
use std::sync::Arc;

impl App {
    /// The members whose rows are stale: down or refusing this context's credentials (their
    /// probe), the current context when it is unreachable. Their rows stay, dimmed.
    pub(crate) fn stale_clusters(&self) -> Vec<&str> {
        self.fleet
            .members
            .iter()
            .filter(|(name, health)| {
                if *name == self.connection.context {
                    !self.connection.reachable
                } else {
                    matches!(
                        health,
                        ClusterHealth::Unreachable { .. } | ClusterHealth::Forbidden { .. }
                    )
                }
            })
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// The members whose discovery lacks the view's kind (a CRD installed in some only).
    pub(crate) fn clusters_lacking(&self, v: &ResourceView) -> Vec<&str> {
        let kind = resource_label(&v.resource);
        self.fleet
            .members
            .iter()
            .filter(|(_, health)| {
                matches!(health, ClusterHealth::Up { kinds: Some(k), .. } if !k.contains(&kind))
            })
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// A feed of the current context alone (the xray's and the pulse's: their keys are the
    /// objects' own), with several clusters selected; unchanged with one.
    pub(crate) fn current_cluster_only(&self, effect: Effect) -> Effect {
        if !self.fleet.is_fleet() {
            return effect;
        }
        Effect::OnCluster {
            cluster: self.connection.context.clone(),
            effect: Box::new(effect),
        }
    }

    /// Why a write on `w`'s object is refused, if it is: its own cluster's read-only state (a
    /// merged row), else the current one's.
    pub(crate) fn readonly_for_write(&self, w: &Write) -> Option<String> {
        self.readonly_for_cluster(w.cluster.as_deref())
    }

    /// Why writes are refused on an object of `cluster` (`None`: the current context's), if
    /// they are. The one read-only check of writes, dangerous plugins included.
    pub(crate) fn readonly_for_cluster(&self, cluster: Option<&str>) -> Option<String> {
        match cluster {
            Some(c) => self.fleet.readonly_reason(c),
            None => self.readonly.then(|| self.readonly_why.clone()),
        }
    }

    /// A key, with the fleet's routing: the selected row's cluster (in normal mode, on a
    /// table) becomes the target, read-only follows it while the key runs, and the effects the
    /// key aims at the object are sent to that cluster ([`Effect::OnCluster`]). Dialogs and
    /// pickers opened from a row keep its target until a table takes keys again.
    pub(crate) fn on_key_routed(&mut self, key: crossterm::event::KeyEvent, fx: &mut Vec<Effect>) {
        if !self.fleet.is_fleet() {
            return self.on_key(key, fx);
        }
        if matches!(self.mode, Mode::Normal) {
            match self.current_screen() {
                Some(Screen::Table(_)) => {
                    self.target_cluster = self
                        .selected_object()
                        .and_then(|(_, o)| o.cluster().map(str::to_string));
                }
                // Their objects come from the current context's informers, tap and history.
                Some(
                    Screen::Xray(_)
                    | Screen::Pulse
                    | Screen::Events(_)
                    | Screen::Informers(_)
                    | Screen::Changes(_),
                ) => self.target_cluster = None,
                _ => {}
            }
        }
        let target = self.target_cluster.clone();
        if let Some(c) = &target {
            self.set_readonly(self.fleet.readonly_reason(c));
        }
        let start = fx.len();
        self.on_key(key, fx);
        self.refresh_readonly();
        for e in &mut fx[start..] {
            let cluster = match &*e {
                Effect::Write(w) => w.cluster.clone(),
                other if aimed_at_object(other) => target.clone(),
                _ => None,
            };
            if let Some(cluster) = cluster {
                let inner = std::mem::replace(e, Effect::Quit);
                *e = Effect::OnCluster {
                    cluster,
                    effect: Box::new(inner),
                };
            }
        }
    }

    /// A member's indexer for a merged view: kept beside the others (replacing this
    /// member's earlier one), then the label filter and a drill-down are answered again.
    pub(crate) fn on_member_store(
        &mut self,
        view: ViewId,
        cluster: Arc<str>,
        store: Arc<ThreadSafeStore<DynamicObject>>,
        fx: &mut Vec<Effect>,
    ) {
        let Some(v) = self.views.get_mut(&view) else {
            return;
        };
        match v.member_stores.iter_mut().find(|(c, _)| *c == cluster) {
            Some(slot) => slot.1 = store,
            None => v.member_stores.push((cluster, store)),
        }
        if v.table.filters.label.is_some() {
            let cands = Self::label_candidates(v);
            v.table.refilter(cands);
            self.dirty = true;
        }
        if v.table.filters.drill.is_some() {
            self.fill_from_index(view, fx);
        }
    }

    /// `fill_from_index` of a merged drilled view: each member's index (a drill-down in a
    /// merged table is fed by the object's member only, so there is one).
    pub(crate) fn fill_merged_from_index(&mut self, id: ViewId, fx: &mut Vec<Effect>) {
        let now = self.now_ms;
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let Some(drill) = v.table.filters.drill.clone() else {
            return;
        };
        let index = drill.index();
        let mut rows = Vec::new();
        let mut answered = true;
        for (cluster, store) in &v.member_stores {
            let mut keys: Vec<Arc<str>> = Vec::new();
            for value in drill.values() {
                match store.index_keys_all(index, &[value]) {
                    Ok(k) => keys.extend(k),
                    Err(_) => answered = false,
                }
            }
            let (r, _) = crate::ui::table::rows_for_keys(
                &v.resource.api_resource.kind,
                v.resource.printer_columns.as_deref(),
                store,
                Some(cluster),
                &keys,
            );
            rows.extend(r);
        }
        if let Some(a) = v.drill_answer.as_mut() {
            a.answered = answered;
        }
        self.dirty = true;
        if !answered {
            return;
        }
        let highlight = v.synced;
        if v.live_table_mut().apply(rows, Vec::new(), now, highlight) {
            self.after_rows(id, fx);
        }
    }
}
