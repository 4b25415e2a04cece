//! The resource table's model: one informer-fed table ([`ResourceView`]) and what hangs off it
//! (a drill-down's answer, an owner feed, a jump's target, a past view). Plain data that every
//! screen may read through [`super::component::Ctx`]; the table screen
//! ([`super::screens::table`]) changes it. This module imports no screen and not the `App`.

use std::collections::HashMap;
use std::sync::Arc;

use kube::api::DynamicObject;

use crate::cluster::ResourceInfo;
use crate::informer::history::Since;
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::render::Column;
use crate::ui::action::{Denial, ViewId};
use crate::ui::table::TableModel;

/// One resource table (one informer subscription).
#[derive(Debug, Clone)]
pub struct ResourceView {
    pub id: ViewId,
    pub resource: ResourceInfo,
    pub namespace: Option<String>,
    pub columns: Vec<Column>,
    pub table: TableModel,
    /// The informer failed: message and whether it was a 403.
    pub error: Option<(String, bool)>,
    /// The server does not let this user list/watch the resource in the view's scope: no
    /// informer was started (the runtime checks again every few minutes; `ctrl-r` now).
    pub denial: Option<Denial>,
    /// An all-namespaces view whose fallback namespace (the context's) is forbidden too.
    pub fallback_denied: Option<(String, Denial)>,
    /// At least one Resync arrived.
    pub synced: bool,
    /// Its informer is relisting: the rows shown are the previous list's until the new one
    /// brings them again (marked stale when the relist started).
    pub relisting: bool,
    /// Its informer is stale (an outage, not yet confirmed current): rows are marked stale until
    /// the watch delivers again or the history check passes.
    pub outdated: bool,
    pub store: Option<Arc<ThreadSafeStore<DynamicObject>>>,
    /// A merged view's indexers, one per fleet member (keys without the cluster).
    pub member_stores: Vec<(Arc<str>, Arc<ThreadSafeStore<DynamicObject>>)>,
    /// What was drilled into, shown in the title (`deployments/web`).
    pub drilled_from: Option<String>,
    /// A drill-down's index and what it answered (the header names it).
    pub drill_answer: Option<DrillAnswer>,
    /// Not shown: feeds the owner uids of another view (Deployment → ReplicaSets → pods).
    pub feeds: Option<OwnerFeed>,
    /// Widest cell seen per rendered column (NAMESPACE first in an all-namespaces view), from
    /// the rows that were visible: grows while the view is open, never shrinks, so columns do
    /// not jump as rows scroll in and out.
    pub col_widths: Vec<u16>,
    /// Wide mode (`ctrl-w`): the kind's wide columns after its own, read for the visible rows.
    pub wide: bool,
    /// A jump's target (`shift-j`, `o`): selected once its row arrives.
    pub select_on_arrival: Option<SelectOnArrival>,
    /// A view of several namespaces: which informers serve it (the runtime's word).
    pub served: Option<String>,
    /// The rows marked with `space` (keys, in the order marked): `ctrl-d`, `ctrl-k` and plugins
    /// act on them all; in the namespaces table Enter shows the marked ones together.
    pub marked: Vec<String>,
    /// Shown as it was (`:at`, `[`, `]`): the past rows are in `table`, the live ones aside.
    pub past: Option<Box<PastTable>>,
    /// The column `shift-left` / `shift-right` picked for `shift-o` (shown in brackets).
    pub sort_pick: Option<crate::ui::table::SortBy>,
}

/// Which index a drilled view's rows come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrillAnswer {
    /// The informer index asked (`owner`, `node`, `namespace`).
    pub index: &'static str,
    /// Objects the drill-down goes through (a Deployment's ReplicaSets).
    pub via: Option<DrillVia>,
    /// The index answered (the view's store has the index); false: the rows are filtered by a
    /// scan instead.
    pub answered: bool,
}

/// The intermediate objects of a drill-down: their kind's names and how many there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrillVia {
    pub singular: String,
    pub plural: String,
    pub count: usize,
}

/// `1 pod`, `2 pods`.
fn counted(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

impl ResourceView {
    /// The table the informer's rows go to: `table`, or the live one kept aside while a past
    /// view is shown.
    pub fn live_table_mut(&mut self) -> &mut TableModel {
        match &mut self.past {
            Some(p) if p.swapped => &mut p.live,
            _ => &mut self.table,
        }
    }

    /// The header's account of a drill-down: what was drilled into and which index answered,
    /// e.g. `deployments/web  owner index: 3 replicasets → 12 pods`.
    pub fn drill_text(&self) -> Option<String> {
        let from = self.drilled_from.as_deref()?;
        let Some(a) = &self.drill_answer else {
            return Some(from.to_string());
        };
        let rows = counted(
            self.table.list().len(),
            &self.resource.singular,
            &self.resource.api_resource.plural,
        );
        let via = a
            .via
            .as_ref()
            .map(|v| format!(": {}", counted(v.count, &v.singular, &v.plural)))
            .unwrap_or_default();
        Some(if a.answered {
            format!("{from}  {} index{via} → {rows}", a.index)
        } else {
            format!("{from}  scan{via} → {rows}")
        })
    }
}

/// An auxiliary view whose rows owned by `root` become owner uids of `target`'s drill filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerFeed {
    pub target: ViewId,
    pub root: Arc<str>,
}

/// A row the table selects once it arrives (a jump's target): its namespace and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectOnArrival {
    pub namespace: Option<String>,
    pub name: String,
}

/// A table shown as it was.
#[derive(Debug, Clone)]
pub struct PastTable {
    /// The instant shown (unix ms).
    pub at_ms: i64,
    /// The instant asked for (earlier than `at_ms` when history does not go back so far).
    pub asked_ms: i64,
    /// How far back this view can go.
    pub earliest_ms: Option<i64>,
    /// The instants the view's objects changed, oldest first (`[` and `]` stop there).
    pub times: Vec<i64>,
    /// How each shown row compares with now.
    pub since: HashMap<Arc<str>, Since>,
    /// The live table, kept up to date aside while the past one is shown.
    pub live: TableModel,
    /// Asked, not answered yet.
    pub pending: bool,
    /// The past rows are in the view's `table` and the live ones in `live` (from the first
    /// answer on).
    pub swapped: bool,
}

/// What a text screen shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextKind {
    Yaml,
    Describe,
    /// `:diff`: the object across the fleet's clusters (see [`crate::ui::fleet_diff`]).
    Diff,
    /// `b`: the object's fields grouped by the manager owning them (see [`crate::ui::blame`]).
    Blame,
}

/// Known namespace names from the namespaces view `ns_view`. With several clusters its rows
/// are keyed under their cluster: each name once, whichever clusters have it.
pub fn namespace_names(ns_view: Option<&ResourceView>) -> Vec<String> {
    let Some(v) = ns_view else {
        return Vec::new();
    };
    let mut seen = std::collections::HashSet::new();
    v.table
        .list()
        .iter()
        .map(|k| {
            k.split_once(crate::ui::action::CLUSTER_SEP)
                .map_or(&**k, |(_, name)| name)
        })
        .filter(|name| seen.insert(*name))
        .map(str::to_string)
        .collect()
}
