//! Index functions: how the indexer files objects under secondary keys.
//!
//! client-go counterpart: `tools/cache/index.go` (`IndexFunc`, `Indexers`, `Indices`,
//! `MetaNamespaceIndexFunc`, `NamespaceIndex`).
//!
//! Invariants:
//! - an index function is pure: the same object always yields the same values (the indexer
//!   recomputes an object's old values from the old object instead of storing them);
//! - an index function never panics; it returns `Err(message)` for an object it cannot index, and
//!   the indexer turns that into [`Error::IndexFunc`](super::Error::IndexFunc);
//! - the values an index function returns for one object are distinct (the built-in ones dedup).
//!
//! Besides client-go's namespace index, this file provides the indexes the dashboard needs to
//! answer its common queries in O(matches): labels (`key=value` and bare `key`, so both equality
//! and existence selector terms hit an index), pod node name and owner-reference uid.

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use kube::api::DynamicObject;

use super::Object;

/// An index function: the values under which an object is filed (client-go's `IndexFunc`).
pub type IndexFunc<K> = Arc<dyn Fn(&K) -> Result<Vec<String>, String> + Send + Sync>;

/// Index name → index function (client-go's `Indexers`).
pub type Indexers<K> = HashMap<String, IndexFunc<K>>;

/// Objects by namespace (client-go's `NamespaceIndex`); cluster-scoped objects are filed under `""`.
pub const NAMESPACE_INDEX: &str = "namespace";
/// Objects by label: every label `k: v` files the object under `k=v` and under `k`.
pub const LABEL_INDEX: &str = "label";
/// Pods by `spec.nodeName` (unscheduled pods are not filed).
pub const NODE_INDEX: &str = "node";
/// Objects by the uid of each of their `metadata.ownerReferences`.
pub const OWNER_INDEX: &str = "owner";

/// client-go's `MetaNamespaceIndexFunc`: the object's namespace (`""` when cluster-scoped).
pub fn namespace_index_func<K: Object>() -> IndexFunc<K> {
    Arc::new(|obj: &K| Ok(vec![obj.meta().namespace.clone().unwrap_or_default()]))
}

/// Files an object under `key=value` and under `key` for each of its labels, so that both
/// `app=web` and `app` (existence) selector terms can be answered from the index.
pub fn label_index_func<K: Object>() -> IndexFunc<K> {
    Arc::new(|obj: &K| {
        let labels = super::cached::labels_of(obj);
        let mut out = Vec::with_capacity(labels.len() * 2);
        // Label keys are unique in a map and `key=value` always contains '=' while label keys
        // never do, so the values produced here are distinct.
        for (k, v) in labels.iter() {
            out.push(label_value(k, v));
            out.push(k.to_string());
        }
        Ok(out)
    })
}

/// The label-index value for the selector term `key=value`.
pub fn label_value(key: &str, value: &str) -> String {
    let mut s = String::with_capacity(key.len() + value.len() + 1);
    s.push_str(key);
    s.push('=');
    s.push_str(value);
    s
}

/// Files an object under the uid of each owner reference.
pub fn owner_index_func<K: Object>() -> IndexFunc<K> {
    Arc::new(|obj: &K| {
        let Some(refs) = obj.meta().owner_references.as_ref() else {
            return Ok(Vec::new());
        };
        let mut out: Vec<String> = Vec::with_capacity(refs.len());
        for r in refs {
            if !r.uid.is_empty() && !out.contains(&r.uid) {
                out.push(r.uid.clone());
            }
        }
        Ok(out)
    })
}

/// Files a typed [`Pod`] under its `spec.nodeName`; pods not yet scheduled are not filed.
pub fn pod_node_index_func() -> IndexFunc<Pod> {
    Arc::new(|pod: &Pod| {
        Ok(pod
            .spec
            .as_ref()
            .and_then(|s| s.node_name.as_deref())
            .filter(|n| !n.is_empty())
            .map(|n| vec![n.to_string()])
            .unwrap_or_default())
    })
}

/// A whole dynamic pod's `spec.nodeName` (a pruned pod keeps its node in its record, see
/// [`super::cached`]).
fn pod_node_value(data: &serde_json::Value) -> Option<&serde_json::Value> {
    data.get("spec").and_then(|s| s.get("nodeName"))
}

/// A dynamic pod's node name (`spec.nodeName`, whole or pruned), when it is a non-empty string.
pub fn dynamic_pod_node(data: &serde_json::Value) -> Option<&str> {
    match super::cached::pod_record(data) {
        Some(r) => Some(r.node),
        None => pod_node_value(data).and_then(serde_json::Value::as_str),
    }
    .filter(|n| !n.is_empty())
}

/// Files a dynamic object under `data.spec.nodeName` (pods seen through the dynamic API; a
/// pruned pod's record). Objects without a string node name are not filed; a non-string
/// `nodeName` is an error.
pub fn dynamic_pod_node_index_func() -> IndexFunc<DynamicObject> {
    Arc::new(|obj: &DynamicObject| {
        if let Some(r) = super::cached::pod_record(&obj.data) {
            return Ok(if r.node.is_empty() {
                Vec::new()
            } else {
                vec![r.node.to_string()]
            });
        }
        match pod_node_value(&obj.data) {
            None | Some(serde_json::Value::Null) => Ok(Vec::new()),
            Some(serde_json::Value::String(n)) if n.is_empty() => Ok(Vec::new()),
            Some(serde_json::Value::String(n)) => Ok(vec![n.clone()]),
            Some(other) => Err(format!("spec.nodeName is not a string: {other}")),
        }
    })
}

/// What a pruned pod uses (see [`USES_INDEX`]): `Kind/name` entries joined by `,` (a
/// Kubernetes name holds neither), from its record (see [`super::cached`]); `""` for a pod
/// that was never pruned.
pub fn pruned_pod_uses(data: &serde_json::Value) -> &str {
    super::cached::pod_record(data).map_or("", |r| r.uses)
}

/// Pods by what they use: `namespace/Kind/name` of each ConfigMap, Secret and
/// PersistentVolumeClaim a pod mounts or reads (volumes, projected sources, env, envFrom,
/// imagePullSecrets), as k9s's "used by" (`u`) asks. Not a client-go index.
pub const USES_INDEX: &str = "uses";

/// Files a pruned pod under [`USES_INDEX`] from its record's [`pruned_pod_uses`].
pub fn dynamic_pod_uses_index_func() -> IndexFunc<DynamicObject> {
    Arc::new(|obj: &DynamicObject| {
        let ns = obj.metadata.namespace.as_deref().unwrap_or("");
        Ok(match pruned_pod_uses(&obj.data) {
            "" => Vec::new(),
            uses => uses.split(',').map(|u| format!("{ns}/{u}")).collect(),
        })
    })
}

/// Events by the object they are about (core/v1 `involvedObject`, events.k8s.io/v1
/// `regarding`): its uid, or `namespace/Kind/name` ([`involved_name_key`]) when the reference
/// has no uid. Not a client-go index: kubectl and k9s ask the server with the field selector
/// `involvedObject.uid=` for one object's Events; the history timeline asks the cache.
pub const INVOLVED_INDEX: &str = "involved";

/// The [`INVOLVED_INDEX`] value of an object reference without a uid. A cluster-scoped
/// object's namespace is empty (`/Node/kind-worker`).
pub fn involved_name_key(namespace: &str, kind: &str, name: &str) -> String {
    format!("{namespace}/{kind}/{name}")
}

/// Files an Event under [`INVOLVED_INDEX`]. A reference without a namespace of its own is
/// taken to be in the Event's namespace (where the API server puts an Event about a
/// namespaced object), unless the Event is in `default` and the reference has none (events
/// about cluster-scoped objects such as nodes are written to `default`): then it is filed
/// under both. An Event without a reference is not filed.
pub fn dynamic_event_involved_index_func() -> IndexFunc<DynamicObject> {
    Arc::new(|obj: &DynamicObject| {
        let record = super::cached::event(&obj.data);
        let Some(subject) = record.subject else {
            return Ok(Vec::new());
        };
        if !subject.uid.is_empty() {
            return Ok(vec![subject.uid.into_owned()]);
        }
        let (kind, name) = (&*subject.kind, &*subject.name);
        if name.is_empty() {
            return Ok(Vec::new());
        }
        let own_ns = obj.metadata.namespace.as_deref().unwrap_or("");
        Ok(match &*subject.namespace {
            "" if own_ns == "default" => vec![
                involved_name_key(own_ns, kind, name),
                involved_name_key("", kind, name),
            ],
            "" => vec![involved_name_key(own_ns, kind, name)],
            ns => vec![involved_name_key(ns, kind, name)],
        })
    })
}

/// The indexers every informer gets: namespace, label and owner.
pub fn default_indexers<K: Object>() -> Indexers<K> {
    let mut m: Indexers<K> = HashMap::new();
    m.insert(NAMESPACE_INDEX.to_string(), namespace_index_func::<K>());
    m.insert(LABEL_INDEX.to_string(), label_index_func::<K>());
    m.insert(OWNER_INDEX.to_string(), owner_index_func::<K>());
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ConfigMap, PodSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
    use std::collections::BTreeMap;

    fn event(ns: &str, data: serde_json::Value) -> DynamicObject {
        let mut e: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": ns}
        }))
        .unwrap();
        e.data = data;
        e
    }

    #[test]
    fn an_event_is_filed_under_its_objects_uid_or_else_under_namespace_kind_and_name() {
        let f = dynamic_event_involved_index_func();
        let with_uid = event(
            "shop",
            serde_json::json!({"involvedObject": {"kind": "Pod", "name": "web", "uid": "u-1"}}),
        );
        assert_eq!(f(&with_uid).unwrap(), vec!["u-1".to_string()]);
        // events.k8s.io/v1 names it `regarding`.
        let regarding = event(
            "shop",
            serde_json::json!({"regarding": {"kind": "Pod", "name": "web", "uid": "u-2"}}),
        );
        assert_eq!(f(&regarding).unwrap(), vec!["u-2".to_string()]);
        let no_uid = event(
            "shop",
            serde_json::json!({"involvedObject": {"kind": "Pod", "name": "web"}}),
        );
        assert_eq!(f(&no_uid).unwrap(), vec!["shop/Pod/web".to_string()]);
        let node = event(
            "default",
            serde_json::json!({"involvedObject": {"kind": "Node", "name": "n1"}}),
        );
        assert_eq!(
            f(&node).unwrap(),
            vec!["default/Node/n1".to_string(), "/Node/n1".to_string()]
        );
        assert!(f(&event("shop", serde_json::json!({}))).unwrap().is_empty());
    }

    fn cm(ns: Option<&str>, labels: &[(&str, &str)]) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some("c".into()),
                namespace: ns.map(String::from),
                labels: if labels.is_empty() {
                    None
                } else {
                    Some(
                        labels
                            .iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect::<BTreeMap<_, _>>(),
                    )
                },
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn namespace_index_files_cluster_scoped_under_empty_string() {
        let f = namespace_index_func::<ConfigMap>();
        assert_eq!(f(&cm(Some("ns1"), &[])), Ok(vec!["ns1".to_string()]));
        assert_eq!(f(&cm(None, &[])), Ok(vec![String::new()]));
    }

    #[test]
    fn label_index_emits_pair_and_existence_values() {
        let f = label_index_func::<ConfigMap>();
        let mut v = f(&cm(Some("a"), &[("app", "web"), ("tier", "")])).unwrap_or_default();
        v.sort();
        assert_eq!(v, vec!["app", "app=web", "tier", "tier="]);
        assert_eq!(f(&cm(Some("a"), &[])), Ok(vec![]));
    }

    #[test]
    fn owner_index_emits_distinct_owner_uids() {
        let f = owner_index_func::<ConfigMap>();
        let mut c = cm(Some("a"), &[]);
        let owner = |uid: &str| OwnerReference {
            uid: uid.into(),
            name: "rs".into(),
            kind: "ReplicaSet".into(),
            api_version: "apps/v1".into(),
            ..Default::default()
        };
        c.metadata.owner_references = Some(vec![owner("u1"), owner("u2"), owner("u1")]);
        assert_eq!(f(&c), Ok(vec!["u1".to_string(), "u2".to_string()]));
    }

    #[test]
    fn pod_node_index_skips_unscheduled_pods() {
        let f = pod_node_index_func();
        let mut p = Pod::default();
        assert_eq!(f(&p), Ok(vec![]));
        p.spec = Some(PodSpec {
            node_name: Some("node-1".into()),
            ..Default::default()
        });
        assert_eq!(f(&p), Ok(vec!["node-1".to_string()]));
    }

    #[test]
    fn dynamic_pod_node_index_reads_spec_node_name_and_rejects_non_strings() {
        let f = dynamic_pod_node_index_func();
        let ar = kube::api::ApiResource::erase::<Pod>(&());
        let mut o = DynamicObject::new("p", &ar);
        assert_eq!(f(&o), Ok(vec![]));
        o.data = serde_json::json!({"spec": {"nodeName": "n7"}});
        assert_eq!(f(&o), Ok(vec!["n7".to_string()]));
        o.data = serde_json::json!({"spec": {"nodeName": 3}});
        assert!(f(&o).is_err());
    }

    #[test]
    fn default_indexers_cover_namespace_label_owner() {
        let mut names: Vec<String> = default_indexers::<ConfigMap>().into_keys().collect();
        names.sort();
        assert_eq!(names, vec!["label", "namespace", "owner"]);
    }
}
