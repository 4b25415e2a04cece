//! The nodes view's PODS column: the non-terminated pods on each node, counted from the node
//! index of the all-namespaces pods informer (shared with the pods view when one is open, started
//! here after an access check when none is). No extra API call: a count is a walk over the
//! index, redone only when the informer has delivered something since the last count, at most
//! once per [`NODE_PODS_PERIOD`], and only while a nodes view is open (the task ends with the
//! view's cancellation token).

use super::*;
use crate::informer::index::NODE_INDEX;
use crate::ui::action::NodePods;

/// How often the pods per node are recounted while the pods change.
pub(super) const NODE_PODS_PERIOD: Duration = Duration::from_secs(1);

/// Non-terminated pods (phase neither Succeeded nor Failed, as the scheduler and `kubectl describe
/// node` count them) per node, from the node index.
pub(super) fn count_pods_per_node(store: &ThreadSafeStore<DynamicObject>) -> HashMap<String, u64> {
    let mut counts = HashMap::new();
    for node in store.list_index_func_values(NODE_INDEX) {
        let Ok(pods) = store.by_index(NODE_INDEX, &node) else {
            continue;
        };
        let active = pods
            .iter()
            .filter(|p| {
                !matches!(
                    p.data.pointer("/status/phase").and_then(|v| v.as_str()),
                    Some("Succeeded" | "Failed")
                )
            })
            .count() as u64;
        counts.insert(node, active);
    }
    counts
}

/// Count pods per node for `view` until it closes, from `source`'s pods informer (the current
/// cluster's: `source.cluster` is not used).
pub(super) async fn watch_node_pods(
    view: ViewId,
    pods: ResourceInfo,
    source: FeedSource,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
    suspended: Suspended,
) {
    let FeedSource {
        factory,
        client,
        access,
        ..
    } = source;
    if !access.open_at_once(&pods, None) {
        let checked = tokio::select! {
            _ = cancel.cancelled() => return,
            a = check_access(&client, &access, &pods, None) => a,
        };
        if let Access::Denied(denial) = checked {
            tracing::info!(view, message = %denial.message, "pods per node: pods forbidden across namespaces");
            let _ = tx.send(Action::NodePods(NodePods::Unavailable(denial.message)));
            return;
        }
    }
    let key = InformerKey::new(&pods.api_resource, None);
    let informer = match factory.informers().into_iter().find(|(k, _)| *k == key) {
        Some((_, i)) => i,
        None => factory.informer_for(&pods.api_resource, None),
    };
    let tap = informer.tap();
    let mut counted_at: Option<u64> = None;
    let mut tick = tokio::time::interval(NODE_PODS_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tick.tick() => {}
        }
        if !informer.has_synced() {
            if is_forbidden(&informer) {
                let message = informer
                    .reflector_status()
                    .and_then(|s| s.borrow().last_error.as_ref().map(|e| e.to_string()))
                    .unwrap_or_else(|| "pods: forbidden".into());
                let _ = tx.send(Action::NodePods(NodePods::Unavailable(message)));
                return;
            }
            continue;
        }
        // Not counted while a shell has the terminal: the first round after it counts.
        if suspended.is_on() {
            continue;
        }
        let seq = tap.latest_seq();
        if counted_at == Some(seq) {
            continue;
        }
        counted_at = Some(seq);
        let counts = count_pods_per_node(&informer.indexer());
        if tx
            .send(Action::NodePods(NodePods::Counts(Arc::new(counts))))
            .is_err()
        {
            return;
        }
    }
}
