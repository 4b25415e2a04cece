//! The timeline's Events (`h`): each [`Effect::FetchHistory`] answer carries the object's
//! Events, looked up in an events informer's `involved` index
//! ([`crate::informer::index::INVOLVED_INDEX`]) by the live object's uid, and by
//! `namespace/Kind/name` for Events whose reference has no uid.
//!
//! Which informer: one already running for events (core/v1 or events.k8s.io/v1) in the
//! object's namespace or in all namespaces, shared as views share informers; when there is
//! none the first fetch starts a core/v1 one through the shared informer factory (for the
//! object's namespace; all namespaces for a cluster-scoped object, whose Events the API
//! server files in `default` or elsewhere) and [`Effect::CloseHistory`] stops it, unless a
//! view uses it by then. kubectl and k9s instead list `involvedObject.uid=<uid>` from the
//! server for a describe; a timeline refreshed every second would make that request every
//! second.
//!
//! When the user may not list Events there (the informer's list answered 403), the answer
//! carries the server's message and the timeline says in one line why it shows no Events.
//!
//! Until the informer has listed, the timeline shows the versions alone; the next refresh
//! (a second later) brings the Events. A fleet member's timeline uses that member's
//! informers (the member's factory is in place while its effect runs, see
//! [`Runtime::carry_out_on`]).

use super::*;
use crate::informer::factory::DynamicInformer;
use crate::informer::history::TimelineEvent;
use crate::informer::index::{INVOLVED_INDEX, involved_name_key};

/// The Events about one object in an events store, looked up in its `involved` index: under
/// the object's uid (`uid`), under `namespace/Kind/name` (Events whose reference has no uid)
/// and, for a Node, under the node's name: kubelet (and kube-proxy) write their Events about
/// their node with a reference whose uid is the node's name (kubelet's `nodeRef`), while the
/// node controller's carry the node's real uid. Only Events about a Node are taken from the
/// name's entry, so an object whose uid happens to equal a node's name does not lend its own.
pub(super) fn events_about(
    store: &ThreadSafeStore<DynamicObject>,
    uid: Option<&str>,
    namespace: Option<&str>,
    kind: &str,
    name: &str,
) -> Vec<Arc<DynamicObject>> {
    let mut values: Vec<(String, bool)> = uid.map(|u| (u.to_string(), false)).into_iter().collect();
    if !kind.is_empty() {
        values.push((
            involved_name_key(namespace.unwrap_or(""), kind, name),
            false,
        ));
    }
    if kind == "Node" && uid != Some(name) {
        values.push((name.to_string(), true));
    }
    // An Event is filed under one of them (its uid, or its name key without one).
    let mut found: Vec<Arc<DynamicObject>> = Vec::new();
    for (v, only_nodes) in &values {
        match store.by_index(INVOLVED_INDEX, v) {
            Ok(some) => found.extend(
                some.into_iter()
                    .filter(|e| !*only_nodes || subject_kind(e).as_deref() == Some("Node")),
            ),
            Err(e) => tracing::debug!(error = %e, "history: events index"),
        }
    }
    found
}

/// The server's 403 message when `events` may not list (it never listed and its last error
/// is a 403), as a forbidden view shows it.
fn forbidden_message(events: &DynamicInformer) -> Option<String> {
    if !super::feeds::is_forbidden(events) {
        return None;
    }
    let status = events.reflector_status()?;
    let message = match &status.borrow().last_error {
        Some(InformerError::Forbidden(m)) => m.clone(),
        _ => return None,
    };
    Some(message)
}

/// The kind an Event is about (core/v1 `involvedObject`, events.k8s.io/v1 `regarding`).
fn subject_kind(event: &DynamicObject) -> Option<String> {
    crate::informer::cached::event(&event.data)
        .subject
        .map(|s| s.kind.into_owned())
}

/// An events informer a timeline started: stopped when the last timeline closes.
pub(super) struct HistoryLease {
    factory: Arc<SharedInformerFactory>,
    key: InformerKey,
}

fn is_events(key: &InformerKey) -> bool {
    key.plural == "events" && matches!(key.group.as_str(), "" | "events.k8s.io")
}

impl Runtime {
    /// The Events of `key` (`namespace/name`) of `resource` (history's name: `pods`), of
    /// kind `kind` (empty: unknown), in no order; and why there are none when the events
    /// informer may not list them (its 403: the server's message).
    pub(super) fn history_events(
        &mut self,
        resource: &str,
        key: &str,
        kind: &str,
    ) -> (Vec<TimelineEvent>, Option<String>) {
        let (ns, name) = match key.split_once('/') {
            Some((ns, name)) => (Some(ns), name),
            None => (None, key),
        };
        let informers = self.factory.informers();
        // The live object's uid, from any informer of its resource that holds it.
        let uid = informers
            .iter()
            .filter(|(k, _)| k.short_label().split('@').next() == Some(resource))
            .find_map(|(_, i)| i.indexer().get(key))
            .and_then(|o| o.metadata.uid.clone())
            .filter(|u| !u.is_empty());
        let events = informers
            .iter()
            .filter(|(k, _)| {
                is_events(k) && (k.namespace.is_none() || k.namespace.as_deref() == ns)
            })
            .map(|(_, i)| Arc::clone(i))
            .next()
            .unwrap_or_else(|| self.start_history_events(ns));
        let found = events_about(&events.indexer(), uid.as_deref(), ns, kind, name)
            .iter()
            .filter_map(|e| TimelineEvent::of(e))
            .collect();
        (found, forbidden_message(&events))
    }

    /// Start a core/v1 events informer for `namespace` (all namespaces: `None`), leased to
    /// the timeline screens.
    fn start_history_events(&mut self, namespace: Option<&str>) -> Arc<DynamicInformer> {
        let ar = kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Event>(&());
        let informer = self.factory.informer_for(&ar, namespace);
        let key = InformerKey::new(&ar, namespace);
        tracing::debug!(%key, "history: events informer started for the timeline");
        self.history_leases.push(HistoryLease {
            factory: Arc::clone(&self.factory),
            key,
        });
        informer
    }

    /// [`Effect::CloseHistory`]: stop the events informers the timelines started, but those a
    /// view has come to use meanwhile.
    pub(super) fn close_history_events(&mut self) {
        for lease in std::mem::take(&mut self.history_leases) {
            let Some((_, informer)) = lease
                .factory
                .informers()
                .into_iter()
                .find(|(k, _)| *k == lease.key)
            else {
                continue;
            };
            let uses = |slot: &OpenedSlot| {
                slot.lock()
                    .as_ref()
                    .is_some_and(|o| Arc::ptr_eq(&o.informer, &informer))
            };
            let used = self
                .views
                .values()
                .any(|f| uses(&f.opened) || f.members.iter().any(|(_, s)| uses(s)));
            if !used {
                lease.factory.stop(&lease.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::index::dynamic_event_involved_index_func;
    use std::collections::HashMap;

    fn store(events: &[(&str, &str, serde_json::Value)]) -> ThreadSafeStore<DynamicObject> {
        let mut indexers: crate::informer::index::Indexers<DynamicObject> = HashMap::new();
        indexers.insert(INVOLVED_INDEX.into(), dynamic_event_involved_index_func());
        let s = ThreadSafeStore::new(indexers);
        for (ns, name, involved) in events {
            let e: DynamicObject = serde_json::from_value(serde_json::json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": name, "namespace": ns},
                "involvedObject": involved,
            }))
            .unwrap();
            s.add(&format!("{ns}/{name}"), Arc::new(e)).unwrap();
        }
        s
    }

    fn names(found: Vec<Arc<DynamicObject>>) -> Vec<String> {
        let mut n: Vec<String> = found
            .iter()
            .filter_map(|e| e.metadata.name.clone())
            .collect();
        n.sort();
        n
    }

    #[test]
    fn a_nodes_events_include_kubelets_whose_reference_uid_is_the_nodes_name() {
        let s = store(&[
            // kubelet: uid = the node's name, no namespace, written to `default`.
            (
                "default",
                "kind-worker.kubelet",
                serde_json::json!({"kind": "Node", "name": "kind-worker", "uid": "kind-worker"}),
            ),
            // node controller: the node's real uid.
            (
                "default",
                "kind-worker.controller",
                serde_json::json!({"kind": "Node", "name": "kind-worker", "uid": "5f3c-node"}),
            ),
            // Another node's kubelet.
            (
                "default",
                "kind-other.kubelet",
                serde_json::json!({"kind": "Node", "name": "kind-other", "uid": "kind-other"}),
            ),
            // Not a node, though its uid reads as the node's name.
            (
                "shop",
                "pod.odd",
                serde_json::json!({"kind": "Pod", "name": "p", "uid": "kind-worker"}),
            ),
        ]);
        assert_eq!(
            names(events_about(
                &s,
                Some("5f3c-node"),
                None,
                "Node",
                "kind-worker"
            )),
            vec!["kind-worker.controller", "kind-worker.kubelet"]
        );
        // A pod's lookup does not take node-name entries.
        assert_eq!(
            names(events_about(
                &s,
                Some("u-pod"),
                Some("shop"),
                "Pod",
                "kind-worker"
            )),
            Vec::<String>::new()
        );
    }
}
