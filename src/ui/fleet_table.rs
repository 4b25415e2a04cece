//! Merged tables (several clusters selected, see [`super::fleet`]): every member feeds each
//! table view from its own informers, its rows keyed `cluster` + [`CLUSTER_SEP`](super::action::CLUSTER_SEP) + key so
//! same-named objects of two clusters are two rows. Sorting and the text filter run over the
//! union; the label filter asks each member's label index and merges the answers; a drill-down
//! reads the index of the object's own member.
//!
//! Routing: what a key aims at the selected object (YAML, describe, edit, logs, shell,
//! port-forward, drill-down, history, drain, every write) is wrapped in
//! [`Effect::OnCluster`] naming the object's cluster, so the runtime carries it out on that
//! member's connection, never implicitly on the current context. Read-only follows the
//! object's cluster (`--readonly-contexts`).
//!
//! With one cluster nothing here runs: keys stay `namespace/name`, no CLUSTER column.

use std::sync::Arc;

use kube::api::DynamicObject;

use super::action::{Effect, cluster_key};
use crate::informer::thread_safe_store::ThreadSafeStore;

/// Each member's index answer for `terms` (all of them), its keys under the member's name;
/// `None` when there are no terms or a member's store lacks the index (the rows are scanned).
pub(crate) fn merged_index_keys(
    stores: &[(Arc<str>, Arc<ThreadSafeStore<DynamicObject>>)],
    index: &str,
    terms: &[&str],
) -> Option<Vec<Arc<str>>> {
    if terms.is_empty() {
        return None;
    }
    let mut out = Vec::new();
    for (cluster, store) in stores {
        let keys = store.index_keys_all(index, terms).ok()?;
        out.extend(keys.iter().map(|k| cluster_key(cluster, k)));
    }
    Some(out)
}

/// The effects a key aims at the selected object: they go to the object's own cluster.
pub(crate) fn aimed_at_object(e: &Effect) -> bool {
    matches!(
        e,
        Effect::FetchYaml { .. }
            | Effect::FetchDescribe { .. }
            | Effect::Edit { .. }
            | Effect::Shell { .. }
            | Effect::FetchContainers { .. }
            | Effect::FetchPodContainers { .. }
            | Effect::Attach { .. }
            | Effect::FetchImages(_)
            | Effect::FetchPorts { .. }
            | Effect::FetchTargetPorts { .. }
            | Effect::StartForward { .. }
            | Effect::StartForwardTarget { .. }
            | Effect::OpenLogs { .. }
            | Effect::FetchHistory { .. }
            | Effect::Drain { .. }
            | Effect::OpenResource { drill: Some(_), .. }
    )
}
