//! The cache transform (client-go's `TransformFunc` as `kubectl`-like dashboards use it): keep
//! only what the rows ([`super::row`]), the indexes (labels, ownerReferences, `spec.nodeName`,
//! namespace) and drill-down read, and drop the rest. The full object is fetched with a GET for
//! YAML and describe.
//!
//! Invariants:
//! - `row(kind, &prune(kind, o)) == row(kind, &o)` for every kind and object;
//! - metadata keeps name, namespace, uid, resourceVersion, generation, timestamps, labels,
//!   ownerReferences and finalizers; `managedFields` and the last-applied annotation always go;
//! - pruning works in place on the owned object (no deep clone) and is idempotent;
//! - a pod's row inputs are replaced by its computed row summary (see
//!   [`POD_SUMMARY_KEY`](super::POD_SUMMARY_KEY)); only `spec.nodeName` and `status.phase` stay;
//! - kinds without a dedicated rule (custom resources) keep their spec and status, since their
//!   printer columns may point anywhere.

use kube::api::DynamicObject;
use serde_json::{Map, Value};

use super::pod::{self, POD_SUMMARY_KEY, cached_summary, pod_ip, summary_value};

/// Annotations worth their bytes in the cache (the rest is read from a GET when needed).
const KEPT_ANNOTATIONS: &[&str] = &[
    "deployment.kubernetes.io/revision",
    "kubectl.kubernetes.io/default-container",
];

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Strip `obj` of kind `kind` down to what rows, indexes and drill-down need.
pub fn prune(kind: &str, mut obj: DynamicObject) -> DynamicObject {
    obj.metadata.managed_fields = None;
    if kind == "Pod" {
        // Pods are the bulk of a cache: no annotations at all, no generateName.
        obj.metadata.annotations = None;
        obj.metadata.generate_name = None;
    }
    let builtin = is_builtin(kind);
    if let Some(ann) = obj.metadata.annotations.as_mut() {
        if builtin {
            ann.retain(|k, _| KEPT_ANNOTATIONS.contains(&k.as_str()));
        } else {
            ann.remove(LAST_APPLIED);
        }
        if ann.is_empty() {
            obj.metadata.annotations = None;
        }
    }
    if kind == "Pod" {
        prune_pod(&mut obj);
        return obj;
    }
    let d = &mut obj.data;
    match kind {
        "Deployment" | "ReplicaSet" | "StatefulSet" => {
            keep(d, &["spec", "status"]);
            with(d, "spec", |s| keep(s, &["replicas", "selector"]));
            with(d, "status", |s| {
                keep(
                    s,
                    &[
                        "replicas",
                        "readyReplicas",
                        "updatedReplicas",
                        "availableReplicas",
                        "currentReplicas",
                        "conditions",
                        "observedGeneration",
                    ],
                );
                each(s, "conditions", |c| {
                    keep(c, &["type", "status", "reason"]);
                });
            });
        }
        "DaemonSet" => {
            keep(d, &["spec", "status"]);
            with(d, "spec", |s| {
                keep(s, &["selector", "template"]);
                with(s, "template", |t| {
                    keep(t, &["spec"]);
                    with(t, "spec", |ts| keep(ts, &["nodeSelector"]));
                });
            });
            with(d, "status", |s| {
                keep(
                    s,
                    &[
                        "desiredNumberScheduled",
                        "currentNumberScheduled",
                        "numberReady",
                        "updatedNumberScheduled",
                        "numberAvailable",
                        "numberMisscheduled",
                    ],
                )
            });
        }
        "Job" => {
            keep(d, &["spec", "status"]);
            with(d, "spec", |s| {
                keep(s, &["completions", "parallelism", "selector", "suspend"])
            });
            with(d, "status", |s| {
                keep(
                    s,
                    &[
                        "conditions",
                        "startTime",
                        "completionTime",
                        "succeeded",
                        "failed",
                        "active",
                        "ready",
                    ],
                );
                each(s, "conditions", |c| keep(c, &["type", "status", "reason"]));
            });
        }
        "Service" => {
            keep(d, &["spec", "status"]);
            with(d, "spec", |s| {
                keep(
                    s,
                    &[
                        "type",
                        "clusterIP",
                        "clusterIPs",
                        "externalIPs",
                        "externalName",
                        "ports",
                        "selector",
                    ],
                );
                each(s, "ports", |p| {
                    keep(p, &["name", "port", "nodePort", "protocol", "targetPort"])
                });
            });
        }
        "ConfigMap" => {
            keep(d, &["data", "binaryData"]);
            blank_values(d, "data");
            blank_values(d, "binaryData");
        }
        "Secret" => {
            keep(d, &["type", "data"]);
            blank_values(d, "data");
        }
        "Node" => {
            keep(d, &["spec", "status"]);
            with(d, "spec", |s| keep(s, &["unschedulable", "podCIDR"]));
            with(d, "status", |s| {
                keep(s, &["conditions", "nodeInfo", "addresses"]);
                each(s, "conditions", |c| keep(c, &["type", "status", "reason"]));
                with(s, "nodeInfo", |n| {
                    keep(
                        n,
                        &[
                            "kubeletVersion",
                            "osImage",
                            "kernelVersion",
                            "containerRuntimeVersion",
                        ],
                    )
                });
            });
        }
        "Namespace" => {
            keep(d, &["status"]);
            with(d, "status", |s| keep(s, &["phase"]));
        }
        "ServiceAccount" => {
            keep(d, &["secrets"]);
            each(d, "secrets", |s| keep(s, &["name"]));
        }
        "CustomResourceDefinition" => {
            keep(d, &["spec"]);
            with(d, "spec", |s| {
                keep(
                    s,
                    &[
                        "group",
                        "names",
                        "scope",
                        "versions",
                        "additionalPrinterColumns",
                    ],
                );
                each(s, "versions", |v| {
                    keep(
                        v,
                        &["name", "served", "storage", "additionalPrinterColumns"],
                    )
                });
            });
        }
        _ => {}
    }
    obj
}

fn is_builtin(kind: &str) -> bool {
    matches!(
        kind,
        "Pod"
            | "Deployment"
            | "ReplicaSet"
            | "StatefulSet"
            | "DaemonSet"
            | "Job"
            | "Service"
            | "ConfigMap"
            | "Secret"
            | "Node"
            | "Namespace"
            | "Event"
            | "ServiceAccount"
            | "CustomResourceDefinition"
    )
}

/// A pod keeps `spec.nodeName` (node index), `status.phase` (field selectors) and its row
/// summary under [`POD_SUMMARY_KEY`], computed here by the same printer `row` uses; its
/// containers and statuses go (three small maps instead of a dozen).
fn prune_pod(obj: &mut DynamicObject) {
    let (summary, ip) = match cached_summary(&obj.data) {
        Some(cached) => cached,
        None => (pod::compute(obj), pod_ip(&obj.data).to_string()),
    };
    let d = &mut obj.data;
    let node = d
        .get_mut("spec")
        .and_then(|s| s.get_mut("nodeName"))
        .map(Value::take);
    let phase = d
        .get_mut("status")
        .and_then(|s| s.get_mut("phase"))
        .map(Value::take);
    let mut root = Map::new();
    if let Some(node) = node {
        let mut spec = Map::new();
        spec.insert("nodeName".to_string(), node);
        root.insert("spec".to_string(), Value::Object(spec));
    }
    if let Some(phase) = phase {
        let mut status = Map::new();
        status.insert("phase".to_string(), phase);
        root.insert("status".to_string(), Value::Object(status));
    }
    root.insert(POD_SUMMARY_KEY.to_string(), summary_value(&summary, &ip));
    *d = Value::Object(root);
}

/// Keep only `keys` of the object `v` (non-objects are left alone).
fn keep(v: &mut Value, keys: &[&str]) {
    if let Value::Object(m) = v {
        m.retain(|k, _| keys.contains(&k.as_str()));
    }
}

/// Apply `f` to `v[key]` when present.
fn with(v: &mut Value, key: &str, f: impl FnOnce(&mut Value)) {
    if let Some(x) = v.as_object_mut().and_then(|m| m.get_mut(key)) {
        f(x);
    }
}

/// Apply `f` to every element of the array `v[key]`.
fn each(v: &mut Value, key: &str, mut f: impl FnMut(&mut Value)) {
    if let Some(Value::Array(a)) = v.as_object_mut().and_then(|m| m.get_mut(key)) {
        for x in a.iter_mut() {
            f(x);
        }
    }
}

/// Replace every value of the map `v[key]` by `""` (keeps the key count, drops the payload).
fn blank_values(v: &mut Value, key: &str) {
    if let Some(Value::Object(m)) = v.as_object_mut().and_then(|m| m.get_mut(key)) {
        let blanked: Map<String, Value> = std::mem::take(m)
            .into_iter()
            .map(|(k, _)| (k, Value::String(String::new())))
            .collect();
        *m = blanked;
    }
}
