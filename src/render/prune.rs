//! The cache transform (client-go's `TransformFunc` as `kubectl`-like dashboards use it): keep
//! only what the rows ([`super::row`]), the indexes (labels, ownerReferences, `spec.nodeName`,
//! namespace) and drill-down read, and drop the rest. The full object is fetched with a GET for
//! YAML and describe.
//!
//! Where this differs from client-go: a `TransformFunc` there returns any smaller typed object
//! the informer then holds; the dashboard's cache holds `DynamicObject`s of every kind, so what
//! it keeps of a pod is packed inside one (its data is a string, its labels move into it), and
//! every reader of a cached object's labels or a pod's data reads through
//! [`crate::informer::cached`].
//!
//! Invariants:
//! - `row(kind, &prune(kind, o)) == row(kind, &o)` for every kind and object;
//! - metadata keeps name, namespace, uid, resourceVersion, generation, timestamps, labels,
//!   ownerReferences and finalizers; `managedFields` and the last-applied annotation always go;
//! - pruning works in place on the owned object (no deep clone) and is idempotent;
//! - what is dropped is described once, as the [`mask`] of the kind; the dashboard's decoder
//!   skips the same parts while reading JSON, so `prune(decode_masked(json)) == prune(decode(json))`;
//! - a pod is packed into one record (see [`crate::informer::cached`], read only through its
//!   accessors `labels` and `pod_record`): its data becomes one string holding its node, its
//!   row summary (STATUS, READY, RESTARTS, IP: computed here, from the container statuses that
//!   then go), its summed requests and limits, what it uses, and its labels, which leave
//!   `metadata.labels`. A JSON map or a `BTreeMap` costs a whole B-tree leaf (~540-630 bytes)
//!   however few keys it holds: a pod's labels and its small data map were ~1,700 of its ~3,350
//!   bytes, the record is ~150;
//! - an Event is packed the same way (see `crate::informer::cached::event`, its one reader):
//!   its data becomes one string holding what the events table, describe's Events, the
//!   involved-object index, the pulse and history's timeline read (3,070 -> 1,199 B a demo
//!   Event); its mask ([`mask`]) decodes only that;
//! - a ReplicaSet is packed too, its labels and kept annotation with its data (see
//!   `crate::informer::cached::unpacked`, its readers' one door): 8,370 B a demo ReplicaSet
//!   before;
//! - Secrets never keep their values: `data` keeps its keys, each with the size of its decoded
//!   value (the DATA column counts them); a ConfigMap keeps a value of at most 128 bytes
//!   ([`CONFIG_MAP_VALUES`]), of a longer one (and of `binaryData`) its size; YAML, describe and
//!   `x` read the object from a GET;
//! - kinds without a dedicated rule (custom resources) keep their spec and status, since their
//!   printer columns may point anywhere.

use kube::api::DynamicObject;
use serde_json::Value;

use super::metrics::{PodResources, pod_resources};
use super::pod::{self, pod_ip};
use crate::informer::cached::{
    EVENT_RECORD_KEY, Labels, POD_RECORD_KEY, PodRecord, event, is_packed_replica_set, pack_event,
    pack_pod, pack_replica_set, pod_record,
};
use crate::informer::decode::{AnnotationMask, Mask, ObjectMask, Sizes};

/// Annotations worth their bytes in the cache (the rest is read from a GET when needed).
const KEPT_ANNOTATIONS: &[&str] = &[
    "deployment.kubernetes.io/revision",
    "kubectl.kubernetes.io/default-container",
];

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

use Mask::{All, Blank, Each, Keys};

/// A ConfigMap's `data` in the cache: values of at most 128 bytes (a log level, a feature flag,
/// a URL: what history's diffs show changing), the size of longer ones (a whole config file, a
/// CA bundle, a dashboard's JSON: YAML and describe read them from a GET). 128 B × a few keys
/// keeps a ConfigMap near the size of its metadata.
pub const CONFIG_MAP_VALUES: Sizes = Sizes {
    keep: 128,
    base64: false,
};

/// A Secret's `data` and a ConfigMap's `binaryData` in the cache: the decoded size of each
/// value, never the value (`x`, YAML and describe read the object from a GET).
pub const BASE64_SIZES: Sizes = Sizes {
    keep: 0,
    base64: true,
};

/// Conditions as rows and describe's summary read them.
const CONDITIONS: Mask = Each(&Keys(&[("type", All), ("status", All), ("reason", All)]));

/// A container status as kubectl's pod STATUS/READY/RESTARTS read it.
const CONTAINER_STATUSES: Mask = Each(&Keys(&[
    ("name", All),
    ("restartCount", All),
    ("state", All),
    ("lastState", All),
    ("started", All),
    ("ready", All),
]));

/// A container's requests and limits, for the usage percentages (summed into the pod's record
/// by [`prune_pod`]).
const RESOURCES: Mask = Keys(&[("requests", All), ("limits", All)]);

/// The names a container reads from ConfigMaps and Secrets (env, envFrom), for the uses index.
const NAME_ONLY: Mask = Keys(&[("name", All)]);
const ENV_FROM: Mask = Each(&Keys(&[
    ("configMapRef", NAME_ONLY),
    ("secretRef", NAME_ONLY),
]));
const ENV: Mask = Each(&Keys(&[(
    "valueFrom",
    Keys(&[("configMapKeyRef", NAME_ONLY), ("secretKeyRef", NAME_ONLY)]),
)]));
/// The ConfigMaps, Secrets and claims a pod's volumes name, for the uses index.
const VOLUMES: Mask = Each(&Keys(&[
    ("configMap", NAME_ONLY),
    ("secret", Keys(&[("secretName", All)])),
    ("persistentVolumeClaim", Keys(&[("claimName", All)])),
    (
        "projected",
        Keys(&[(
            "sources",
            Each(&Keys(&[("configMap", NAME_ONLY), ("secret", NAME_ONLY)])),
        )]),
    ),
]));

/// Everything [`pod::compute`] and [`pod_ip`] read, plus what the pod keeps (node, what it
/// uses); images, resources' details, probes... are never decoded.
const POD: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("nodeName", All),
            (
                "containers",
                Each(&Keys(&[
                    ("name", All),
                    ("resources", RESOURCES),
                    ("env", ENV),
                    ("envFrom", ENV_FROM),
                ])),
            ),
            (
                "initContainers",
                Each(&Keys(&[
                    ("name", All),
                    ("restartPolicy", All),
                    ("resources", RESOURCES),
                    ("env", ENV),
                    ("envFrom", ENV_FROM),
                ])),
            ),
            ("volumes", VOLUMES),
            ("imagePullSecrets", Each(&NAME_ONLY)),
        ]),
    ),
    (
        "status",
        Keys(&[
            ("phase", All),
            ("reason", All),
            ("conditions", CONDITIONS),
            ("initContainerStatuses", CONTAINER_STATUSES),
            ("containerStatuses", CONTAINER_STATUSES),
            ("podIP", All),
            ("podIPs", Each(&Keys(&[("ip", All)]))),
        ]),
    ),
    // The record a pruned pod kept as a map carries (see `crate::informer::cached`).
    (POD_RECORD_KEY, All),
]);

/// What wide mode's CONTAINERS and IMAGES read of a pod template.
const TEMPLATE: Mask = Keys(&[(
    "spec",
    Keys(&[("containers", Each(&Keys(&[("name", All), ("image", All)])))]),
)]);

const WORKLOAD: Mask = Keys(&[
    (
        "spec",
        Keys(&[("replicas", All), ("selector", All), ("template", TEMPLATE)]),
    ),
    (
        "status",
        Keys(&[
            ("replicas", All),
            ("readyReplicas", All),
            ("updatedReplicas", All),
            ("availableReplicas", All),
            ("currentReplicas", All),
            ("conditions", CONDITIONS),
            ("observedGeneration", All),
        ]),
    ),
]);

const DAEMON_SET: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("selector", All),
            (
                "template",
                Keys(&[(
                    "spec",
                    Keys(&[
                        ("nodeSelector", All),
                        ("containers", Each(&Keys(&[("name", All), ("image", All)]))),
                    ]),
                )]),
            ),
        ]),
    ),
    (
        "status",
        Keys(&[
            ("desiredNumberScheduled", All),
            ("currentNumberScheduled", All),
            ("numberReady", All),
            ("updatedNumberScheduled", All),
            ("numberAvailable", All),
            ("numberMisscheduled", All),
        ]),
    ),
]);

const JOB: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("completions", All),
            ("parallelism", All),
            ("selector", All),
            ("suspend", All),
            ("template", TEMPLATE),
        ]),
    ),
    (
        "status",
        Keys(&[
            ("conditions", CONDITIONS),
            ("startTime", All),
            ("completionTime", All),
            ("succeeded", All),
            ("failed", All),
            ("active", All),
            ("ready", All),
        ]),
    ),
]);

/// The CronJob printer's inputs and wide mode's; the whole job template is read from a GET when
/// a Job is made from it.
const CRON_JOB: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("schedule", All),
            ("timeZone", All),
            ("suspend", All),
            (
                "jobTemplate",
                Keys(&[("spec", Keys(&[("selector", All), ("template", TEMPLATE)]))]),
            ),
        ]),
    ),
    (
        "status",
        Keys(&[
            ("active", All),
            ("lastScheduleTime", All),
            ("lastSuccessfulTime", All),
        ]),
    ),
]);

const SERVICE: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("type", All),
            ("clusterIP", All),
            ("clusterIPs", All),
            ("externalIPs", All),
            ("externalName", All),
            (
                "ports",
                Each(&Keys(&[
                    ("name", All),
                    ("port", All),
                    ("nodePort", All),
                    ("protocol", All),
                    ("targetPort", All),
                ])),
            ),
            ("selector", All),
        ]),
    ),
    ("status", All),
]);

const NODE: Mask = Keys(&[
    (
        "spec",
        Keys(&[("unschedulable", All), ("podCIDR", All), ("taints", All)]),
    ),
    (
        "status",
        Keys(&[
            ("conditions", CONDITIONS),
            ("allocatable", All),
            ("capacity", All),
            (
                "nodeInfo",
                Keys(&[
                    ("kubeletVersion", All),
                    ("osImage", All),
                    ("kernelVersion", All),
                    ("containerRuntimeVersion", All),
                ]),
            ),
            ("addresses", All),
        ]),
    ),
]);

const CRD: Mask = Keys(&[(
    "spec",
    Keys(&[
        ("group", All),
        ("names", All),
        ("scope", All),
        (
            "versions",
            Each(&Keys(&[
                ("name", All),
                ("served", All),
                ("storage", All),
                ("additionalPrinterColumns", All),
            ])),
        ),
        ("additionalPrinterColumns", All),
    ]),
)]);

/// What `crate::informer::cached::event` reads of an Event (both API groups), and a record an
/// Event kept as a map carries: the rest (`reportingInstance`, `action`, `related`, the
/// involved object's `apiVersion` and `fieldPath`) is never decoded.
const SUBJECT: Mask = Keys(&[
    ("kind", All),
    ("name", All),
    ("namespace", All),
    ("uid", All),
]);
const EVENT: Mask = Keys(&[
    ("type", All),
    ("reason", All),
    ("message", All),
    ("note", All),
    ("involvedObject", SUBJECT),
    ("regarding", SUBJECT),
    ("lastTimestamp", All),
    ("deprecatedLastTimestamp", All),
    ("firstTimestamp", All),
    ("deprecatedFirstTimestamp", All),
    ("eventTime", All),
    ("series", Keys(&[("count", All), ("lastObservedTime", All)])),
    ("count", All),
    ("deprecatedCount", All),
    ("source", Keys(&[("component", All), ("host", All)])),
    ("reportingComponent", All),
    ("reportingController", All),
    (EVENT_RECORD_KEY, All),
]);

/// What the cache keeps of an object of kind `kind`: [`prune`] applies it, and the dashboard's
/// lister-watchers decode through it (so the dropped parts are never built).
pub fn mask(kind: &str) -> ObjectMask {
    let data = match kind {
        "Pod" => POD,
        "Deployment" | "ReplicaSet" | "StatefulSet" => WORKLOAD,
        "DaemonSet" => DAEMON_SET,
        "Job" => JOB,
        "CronJob" => CRON_JOB,
        "Service" => SERVICE,
        "ConfigMap" => Keys(&[
            ("data", Blank(CONFIG_MAP_VALUES)),
            ("binaryData", Blank(BASE64_SIZES)),
        ]),
        "Secret" => Keys(&[("type", All), ("data", Blank(BASE64_SIZES))]),
        "Node" => NODE,
        "Namespace" => Keys(&[("status", Keys(&[("phase", All)]))]),
        "ServiceAccount" => Keys(&[("secrets", Each(&Keys(&[("name", All)])))]),
        "CustomResourceDefinition" => CRD,
        "Event" => EVENT,
        // Custom resources keep their data: printer columns may point anywhere.
        _ => All,
    };
    let annotations = if kind == "Pod" {
        // Pods are the bulk of a cache: no annotations at all.
        AnnotationMask::Drop
    } else if is_builtin(kind) {
        AnnotationMask::Only(KEPT_ANNOTATIONS)
    } else {
        AnnotationMask::AllBut(&[LAST_APPLIED])
    };
    ObjectMask {
        data,
        annotations,
        managed_fields: false,
        managed_writers: false,
        generate_name: kind != "Pod",
    }
}

/// Strip `obj` of kind `kind` down to what rows, indexes and drill-down need.
pub fn prune(kind: &str, mut obj: DynamicObject) -> DynamicObject {
    let mask = mask(kind);
    if kind == "Pod" {
        // A pod's data is replaced whole by what `prune_pod` computes from it, and it reads only
        // what the mask keeps: masking the data first would be a walk thrown away.
        mask.apply_metadata(&mut obj);
        prune_pod(&mut obj);
    } else if kind == "Event" {
        // Likewise an Event's: its data becomes one record (`crate::informer::cached::event`).
        mask.apply_metadata(&mut obj);
        obj.data = pack_event(&event(&obj.data));
    } else if kind == "ReplicaSet" {
        // A ReplicaSet's data, labels and annotations become one record
        // (`crate::informer::cached::unpacked` reads it back); a packed one stays as it is.
        if is_packed_replica_set(&obj.data) {
            mask.apply_metadata(&mut obj);
        } else {
            mask.apply(&mut obj);
            pack_replica_set(&mut obj);
        }
    } else {
        mask.apply(&mut obj);
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
            | "CronJob"
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

/// `Kind/name` of every ConfigMap, Secret and PersistentVolumeClaim a pod's spec uses, sorted,
/// each once: volumes (and projected sources), containers' and init containers' env and
/// envFrom, imagePullSecrets.
pub fn pod_uses(data: &Value) -> Vec<String> {
    let spec = data.get("spec").unwrap_or(&Value::Null);
    let mut out = std::collections::BTreeSet::new();
    let mut add = |kind: &str, name: Option<&Value>| {
        if let Some(n) = name.and_then(Value::as_str).filter(|n| !n.is_empty()) {
            out.insert(format!("{kind}/{n}"));
        }
    };
    let list = |v: Option<&Value>| v.and_then(Value::as_array).cloned().unwrap_or_default();
    for v in list(spec.get("volumes")) {
        add("ConfigMap", v.get("configMap").and_then(|c| c.get("name")));
        add("Secret", v.get("secret").and_then(|c| c.get("secretName")));
        add(
            "PersistentVolumeClaim",
            v.get("persistentVolumeClaim")
                .and_then(|c| c.get("claimName")),
        );
        let sources = v.get("projected").and_then(|p| p.get("sources"));
        for s in list(sources) {
            add("ConfigMap", s.get("configMap").and_then(|c| c.get("name")));
            add("Secret", s.get("secret").and_then(|c| c.get("name")));
        }
    }
    for c in list(spec.get("containers"))
        .into_iter()
        .chain(list(spec.get("initContainers")))
    {
        for e in list(c.get("envFrom")) {
            add(
                "ConfigMap",
                e.get("configMapRef").and_then(|r| r.get("name")),
            );
            add("Secret", e.get("secretRef").and_then(|r| r.get("name")));
        }
        for e in list(c.get("env")) {
            let from = e.get("valueFrom");
            add(
                "ConfigMap",
                from.and_then(|f| f.get("configMapKeyRef"))
                    .and_then(|r| r.get("name")),
            );
            add(
                "Secret",
                from.and_then(|f| f.get("secretKeyRef"))
                    .and_then(|r| r.get("name")),
            );
        }
    }
    for s in list(spec.get("imagePullSecrets")) {
        add("Secret", s.get("name"));
    }
    out.into_iter().collect()
}

/// A pod keeps one record (see [`crate::informer::cached`]) instead of its data and labels:
/// its node (node index), its row summary computed here by the same printer `row` uses, its
/// summed requests and limits, what it uses (uses index) and its labels; its spec, containers
/// and statuses go. A pod pruned again keeps its record (labels set since win).
fn prune_pod(obj: &mut DynamicObject) {
    let packed = match pod_record(&obj.data) {
        Some(r) => {
            let labels = obj.metadata.labels.take();
            let labels = labels.as_ref().map_or(r.labels, |l| Labels::Map(Some(l)));
            pack_pod(&PodRecord { labels, ..r })
        }
        None => {
            let summary = pod::compute(obj);
            let ip = pod_ip(&obj.data);
            let resources = pod_resources(&obj.data);
            let resources = if resources == PodResources::default() {
                String::new()
            } else {
                resources.encode()
            };
            let uses = pod_uses(&obj.data).join(",");
            let node = obj.data.pointer("/spec/nodeName").and_then(Value::as_str);
            let labels = obj.metadata.labels.take();
            pack_pod(&PodRecord {
                node: node.unwrap_or(""),
                reason: &summary.reason,
                ready: summary.ready,
                total: summary.total,
                restarts: summary.restarts,
                last_restart: summary.last_restart,
                ip,
                resources: &resources,
                uses: &uses,
                labels: Labels::Map(labels.as_ref()),
            })
        }
    };
    obj.data = packed;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pruned_pod_keeps_what_it_uses_for_the_uses_index_and_pruning_again_keeps_it() {
        let pod: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop"},
            "spec": {
                "nodeName": "n1",
                "imagePullSecrets": [{"name": "registry"}],
                "volumes": [
                    {"name": "config", "configMap": {"name": "web-config"}},
                    {"name": "tls", "secret": {"secretName": "web-tls"}},
                    {"name": "data", "persistentVolumeClaim": {"claimName": "web-data"}},
                    {"name": "api", "projected": {"sources": [
                        {"serviceAccountToken": {"path": "token"}},
                        {"configMap": {"name": "kube-root-ca.crt"}}]}}
                ],
                "containers": [{"name": "web", "image": "web:1",
                    "envFrom": [{"secretRef": {"name": "web-env"}}],
                    "env": [{"name": "A", "value": "1"},
                            {"name": "B", "valueFrom": {"configMapKeyRef": {"name": "flags", "key": "b"}}}]}],
                "initContainers": [{"name": "init", "image": "i:1",
                    "envFrom": [{"configMapRef": {"name": "web-config"}}]}]
            },
            "status": {"phase": "Running"}
        }))
        .unwrap();
        let want = "ConfigMap/flags,ConfigMap/kube-root-ca.crt,ConfigMap/web-config,\
                    PersistentVolumeClaim/web-data,Secret/registry,Secret/web-env,Secret/web-tls";
        let pruned = prune("Pod", pod);
        assert_eq!(crate::informer::index::pruned_pod_uses(&pruned.data), want);
        assert!(pruned.data.get("spec").is_none(), "volumes themselves go");
        let again = prune("Pod", pruned.clone());
        assert_eq!(again.data, pruned.data);
        let f = crate::informer::index::dynamic_pod_uses_index_func();
        let values = f(&pruned).unwrap();
        assert!(
            values.contains(&"shop/Secret/web-tls".to_string()),
            "{values:?}"
        );
        assert_eq!(values.len(), 7);
    }

    #[test]
    fn a_pruned_pod_keeps_its_node_without_a_spec_map_and_every_reader_finds_it() {
        let pod: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop"},
            "spec": {"nodeName": "node-7", "containers": [{"name": "web", "image": "web:1"}]},
            "status": {"phase": "Running", "podIP": "10.0.0.9"}
        }))
        .unwrap();
        let whole_row = crate::render::row("Pod", &pod, None);
        let pruned = prune("Pod", pod);
        assert!(pruned.data.get("spec").is_none(), "{}", pruned.data);
        assert_eq!(pod_record(&pruned.data).map(|r| r.node), Some("node-7"));
        assert_eq!(
            crate::informer::index::dynamic_pod_node(&pruned.data),
            Some("node-7")
        );
        let f = crate::informer::index::dynamic_pod_node_index_func();
        assert_eq!(f(&pruned).unwrap(), vec!["node-7".to_string()]);
        assert_eq!(crate::render::row("Pod", &pruned, None), whole_row);
        let again = prune("Pod", pruned.clone());
        assert_eq!(again.data, pruned.data, "pruning again keeps the node");
    }

    #[test]
    fn a_pruned_event_is_one_record_and_its_row_and_readers_are_unchanged() {
        let json = serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "web-1.17a", "namespace": "shop", "uid": "e-1",
                         "creationTimestamp": "2026-11-28T10:00:00Z"},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web-1",
                               "namespace": "shop", "uid": "u-1", "fieldPath": "spec.containers{c}"},
            "reason": "BackOff", "message": "Back-off restarting failed container",
            "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": "2026-11-28T10:00:00Z", "lastTimestamp": "2026-11-28T10:05:00Z",
            "count": 7, "type": "Warning", "eventTime": null,
            "reportingComponent": "kubelet", "reportingInstance": "node-1"
        });
        let whole: DynamicObject = serde_json::from_value(json).unwrap();
        let pruned = prune("Event", whole.clone());
        assert!(pruned.data.is_string(), "one record: {}", pruned.data);
        assert_eq!(
            super::super::row("Event", &pruned, None),
            super::super::row("Event", &whole, None)
        );
        assert_eq!(event(&pruned.data), event(&whole.data));
        let involved = crate::informer::index::dynamic_event_involved_index_func();
        assert_eq!(involved(&pruned).unwrap(), vec!["u-1".to_string()]);
        assert_eq!(prune("Event", pruned.clone()), pruned, "idempotent");
    }
}
