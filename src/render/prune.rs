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
//! - what is dropped is described once, as the [`mask`] of the kind; the dashboard's decoder
//!   skips the same parts while reading JSON, so `prune(decode_masked(json)) == prune(decode(json))`;
//! - a pod's row inputs are replaced by its computed row summary (see
//!   [`POD_SUMMARY_KEY`](super::POD_SUMMARY_KEY)); only `spec.nodeName` stays (the phase is
//!   inside the summary's STATUS);
//! - kinds without a dedicated rule (custom resources) keep their spec and status, since their
//!   printer columns may point anywhere.

use kube::api::DynamicObject;
use serde_json::{Map, Value};

use super::metrics::{POD_RESOURCES_KEY, PodResources, pod_resources};
use super::pod::{self, POD_SUMMARY_KEY, cached_summary, pod_ip, summary_value};
use crate::informer::decode::{AnnotationMask, Mask, ObjectMask};

/// Annotations worth their bytes in the cache (the rest is read from a GET when needed).
const KEPT_ANNOTATIONS: &[&str] = &[
    "deployment.kubernetes.io/revision",
    "kubectl.kubernetes.io/default-container",
];

const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

use Mask::{All, Blank, Each, Keys};

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

/// A container's requests and limits, for the usage percentages (summed into
/// [`POD_RESOURCES_KEY`] by [`prune_pod`]).
const RESOURCES: Mask = Keys(&[("requests", All), ("limits", All)]);

/// Everything [`pod::compute`] and [`pod_ip`] read, plus what the pod keeps (node);
/// images, env, resources, volumes, probes... are never decoded.
const POD: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("nodeName", All),
            (
                "containers",
                Each(&Keys(&[("name", All), ("resources", RESOURCES)])),
            ),
            (
                "initContainers",
                Each(&Keys(&[
                    ("name", All),
                    ("restartPolicy", All),
                    ("resources", RESOURCES),
                ])),
            ),
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
    // The summary a pruned pod already carries (so pruning stays idempotent).
    (POD_SUMMARY_KEY, All),
    (POD_RESOURCES_KEY, All),
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
        "ConfigMap" => Keys(&[("data", Blank), ("binaryData", Blank)]),
        "Secret" => Keys(&[("type", All), ("data", Blank)]),
        "Node" => NODE,
        "Namespace" => Keys(&[("status", Keys(&[("phase", All)]))]),
        "ServiceAccount" => Keys(&[("secrets", Each(&Keys(&[("name", All)])))]),
        "CustomResourceDefinition" => CRD,
        // Events and custom resources keep their data: printer columns may point anywhere.
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

/// A pod keeps `spec.nodeName` (node index) and its row summary under [`POD_SUMMARY_KEY`],
/// computed here by the same printer `row` uses; its containers and statuses go (two small maps
/// instead of a dozen: each map is a 632-byte B-tree node however few keys it holds).
fn prune_pod(obj: &mut DynamicObject) {
    let (summary, ip) = match cached_summary(&obj.data) {
        Some(cached) => cached,
        None => (pod::compute(obj), pod_ip(&obj.data).to_string()),
    };
    let resources = pod_resources(&obj.data);
    let d = &mut obj.data;
    let node = d
        .get_mut("spec")
        .and_then(|s| s.get_mut("nodeName"))
        .map(Value::take);
    let mut root = Map::new();
    if let Some(node) = node {
        let mut spec = Map::new();
        spec.insert("nodeName".to_string(), node);
        root.insert("spec".to_string(), Value::Object(spec));
    }
    root.insert(POD_SUMMARY_KEY.to_string(), summary_value(&summary, &ip));
    if resources != PodResources::default() {
        root.insert(
            POD_RESOURCES_KEY.to_string(),
            Value::String(resources.encode()),
        );
    }
    *d = Value::Object(root);
}
