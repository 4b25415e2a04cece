//! Builders of realistic Kubernetes objects, as `serde_json::Value`, for the demo cluster.
//!
//! Every builder returns a complete object (apiVersion, kind, metadata with name, namespace when
//! namespaced, uid and creationTimestamp) shaped like what `kubectl get -o json` shows on a real
//! kubeadm cluster running Kubernetes 1.33. The server only adds `resourceVersion` (and would add
//! uid/creationTimestamp if they were missing, which they never are here: owner references need
//! the owner's uid, so the simulator chooses uids itself).
//!
//! Invariants kept:
//! - builders are pure: the same inputs give the same JSON (no clock, no randomness inside);
//!   randomness comes from the caller's seeded RNG through [`uid`], [`suffix`] and [`template_hash`];
//! - timestamps are RFC 3339 UTC with second precision (`2026-01-01T00:00:00Z`), as the API serves
//!   `metav1.Time`; `MicroTime` fields are not used.

use rand::Rng;
use serde_json::{Map, Value, json};

use super::mutation::ResourceId;

mod workloads;
pub use workloads::*;

pub const NAMESPACES: ResourceId = ResourceId::new("", "v1", "namespaces");
pub const NODES: ResourceId = ResourceId::new("", "v1", "nodes");
pub const PODS: ResourceId = ResourceId::new("", "v1", "pods");
pub const SERVICES: ResourceId = ResourceId::new("", "v1", "services");
pub const CONFIGMAPS: ResourceId = ResourceId::new("", "v1", "configmaps");
pub const SECRETS: ResourceId = ResourceId::new("", "v1", "secrets");
pub const SERVICEACCOUNTS: ResourceId = ResourceId::new("", "v1", "serviceaccounts");
pub const EVENTS: ResourceId = ResourceId::new("", "v1", "events");
pub const DEPLOYMENTS: ResourceId = ResourceId::new("apps", "v1", "deployments");
pub const REPLICASETS: ResourceId = ResourceId::new("apps", "v1", "replicasets");
pub const STATEFULSETS: ResourceId = ResourceId::new("apps", "v1", "statefulsets");
pub const DAEMONSETS: ResourceId = ResourceId::new("apps", "v1", "daemonsets");
pub const JOBS: ResourceId = ResourceId::new("batch", "v1", "jobs");
pub const CRDS: ResourceId =
    ResourceId::new("apiextensions.k8s.io", "v1", "customresourcedefinitions");
/// The demo CRD's group, version and plural.
pub const WIDGETS: ResourceId = ResourceId::new("demo.kinformer.io", "v1", "widgets");
pub const WIDGET_CRD_NAME: &str = "widgets.demo.kinformer.io";

/// Kubernetes version the demo cluster pretends to run (kubelet, kube-proxy, static pods).
pub const KUBE_VERSION: &str = "v1.33.4";

/// The alphabet apimachinery's `rand.String` uses for generated name suffixes (no vowels, no
/// look-alike characters), so `web-7d9c8b5f4-x2kq9` looks like the real thing.
const SAFE_ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// A `generateName` suffix of `len` characters (5 for pods, as the API server generates).
pub fn suffix<R: Rng>(rng: &mut R, len: usize) -> String {
    let mut s = String::with_capacity(len);
    for _ in 0..len {
        let i = rng.random_range(0..SAFE_ALPHABET.len());
        s.push(char::from(SAFE_ALPHABET[i]));
    }
    s
}

/// A pod-template-hash / controller-revision-hash: 9 or 10 characters of the safe alphabet,
/// as the deployment controller's safe-encoded FNV hash looks.
pub fn template_hash<R: Rng>(rng: &mut R) -> String {
    let len = if rng.random_bool(0.7) { 10 } else { 9 };
    suffix(rng, len)
}

/// A random (version 4) UUID string.
pub fn uid<R: Rng>(rng: &mut R) -> String {
    let a: u128 = rng.random();
    let a = (a & !(0xF_u128 << 76) & !(0x3_u128 << 62)) | (0x4_u128 << 76) | (0x2_u128 << 62);
    let h = format!("{a:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// RFC 3339 UTC timestamp with second precision for a unix time in seconds.
pub fn rfc3339(unix_secs: i64) -> String {
    let days = unix_secs.div_euclid(86_400);
    let sod = unix_secs.rem_euclid(86_400);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y + 1 } else { y };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

/// Common metadata for a new object.
pub fn meta(namespace: Option<&str>, name: &str, uid: &str, created: i64) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("name".into(), Value::from(name));
    if let Some(ns) = namespace {
        m.insert("namespace".into(), Value::from(ns));
    }
    m.insert("uid".into(), Value::from(uid));
    m.insert("creationTimestamp".into(), Value::from(rfc3339(created)));
    m
}

fn object(api_version: &str, kind: &str, metadata: Map<String, Value>) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("apiVersion".into(), Value::from(api_version));
    o.insert("kind".into(), Value::from(kind));
    o.insert("metadata".into(), Value::Object(metadata));
    o
}

/// A label map from pairs.
pub fn labels<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Map<String, Value> {
    pairs
        .into_iter()
        .map(|(k, v)| (k.to_string(), Value::from(v)))
        .collect()
}

/// `ownerReferences` entry for a controller owner.
pub fn controller_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({
        "apiVersion": api_version,
        "kind": kind,
        "name": name,
        "uid": uid,
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

// ---------------------------------------------------------------------------------------------
// Namespaces, nodes, CRD
// ---------------------------------------------------------------------------------------------

pub fn namespace(name: &str, uid: &str, created: i64) -> Value {
    let mut md = meta(None, name, uid, created);
    md.insert(
        "labels".into(),
        json!({ "kubernetes.io/metadata.name": name }),
    );
    let mut o = object("v1", "Namespace", md);
    o.insert("spec".into(), json!({ "finalizers": ["kubernetes"] }));
    o.insert("status".into(), json!({ "phase": "Active" }));
    Value::Object(o)
}

/// What a node looks like; the simulator keeps one per node and flips its conditions.
#[derive(Debug, Clone)]
pub struct NodeInfo {
    pub name: String,
    pub uid: String,
    pub created: i64,
    pub control_plane: bool,
    pub zone: &'static str,
    pub region: &'static str,
    pub instance_type: &'static str,
    pub cpu: u32,
    pub memory_gi: u32,
    pub max_pods: u32,
    pub internal_ip: String,
    pub pod_cidr: String,
    pub ready: bool,
    pub memory_pressure: bool,
    pub disk_pressure: bool,
    /// When Ready (or its opposite) last changed.
    pub ready_since: i64,
    pub pressure_since: i64,
    /// The node's last heartbeat (unix seconds).
    pub heartbeat: i64,
    pub machine_id: String,
    pub kernel: &'static str,
}

fn condition(
    kind: &str,
    status: bool,
    heartbeat: i64,
    since: i64,
    reason: &str,
    message: &str,
) -> Value {
    json!({
        "type": kind,
        "status": if status { "True" } else { "False" },
        "lastHeartbeatTime": rfc3339(heartbeat),
        "lastTransitionTime": rfc3339(since),
        "reason": reason,
        "message": message,
    })
}

pub fn node(n: &NodeInfo) -> Value {
    let mut l = Map::new();
    let mut put = |k: &str, v: &str| {
        l.insert(k.to_string(), Value::from(v));
    };
    put("beta.kubernetes.io/arch", "amd64");
    put("beta.kubernetes.io/instance-type", n.instance_type);
    put("beta.kubernetes.io/os", "linux");
    put("failure-domain.beta.kubernetes.io/region", n.region);
    put("failure-domain.beta.kubernetes.io/zone", n.zone);
    put("kubernetes.io/arch", "amd64");
    put("kubernetes.io/hostname", &n.name);
    put("kubernetes.io/os", "linux");
    put("node.kubernetes.io/instance-type", n.instance_type);
    put("topology.kubernetes.io/region", n.region);
    put("topology.kubernetes.io/zone", n.zone);
    if n.control_plane {
        put("node-role.kubernetes.io/control-plane", "");
        put(
            "node.kubernetes.io/exclude-from-external-load-balancers",
            "",
        );
    } else {
        put("node-role.kubernetes.io/worker", "");
    }
    let mut md = meta(None, &n.name, &n.uid, n.created);
    md.insert("labels".into(), Value::Object(l));
    md.insert(
        "annotations".into(),
        json!({
            "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///run/containerd/containerd.sock",
            "node.alpha.kubernetes.io/ttl": "0",
            "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        }),
    );
    let mut taints = Vec::new();
    if n.control_plane {
        taints
            .push(json!({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}));
    }
    if !n.ready {
        taints.push(json!({"key": "node.kubernetes.io/unreachable", "effect": "NoSchedule", "timeAdded": rfc3339(n.ready_since)}));
        taints.push(json!({"key": "node.kubernetes.io/unreachable", "effect": "NoExecute", "timeAdded": rfc3339(n.ready_since)}));
    } else if n.memory_pressure {
        taints.push(json!({"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule", "timeAdded": rfc3339(n.pressure_since)}));
    }
    let mut spec = Map::new();
    spec.insert("podCIDR".into(), Value::from(n.pod_cidr.as_str()));
    spec.insert("podCIDRs".into(), json!([n.pod_cidr]));
    spec.insert(
        "providerID".into(),
        Value::from(format!(
            "aws:///{}/i-0{}",
            n.zone,
            n.machine_id.get(..16).unwrap_or(&n.machine_id)
        )),
    );
    if !taints.is_empty() {
        spec.insert("taints".into(), Value::Array(taints));
    }
    let hb = n.heartbeat;
    let conditions = if n.ready {
        vec![
            condition(
                "MemoryPressure",
                n.memory_pressure,
                hb,
                n.pressure_since,
                if n.memory_pressure {
                    "KubeletHasInsufficientMemory"
                } else {
                    "KubeletHasSufficientMemory"
                },
                if n.memory_pressure {
                    "kubelet has insufficient memory available"
                } else {
                    "kubelet has sufficient memory available"
                },
            ),
            condition(
                "DiskPressure",
                n.disk_pressure,
                hb,
                n.created,
                "KubeletHasNoDiskPressure",
                "kubelet has no disk pressure",
            ),
            condition(
                "PIDPressure",
                false,
                hb,
                n.created,
                "KubeletHasSufficientPID",
                "kubelet has sufficient PID available",
            ),
            condition(
                "Ready",
                true,
                hb,
                n.ready_since,
                "KubeletReady",
                "kubelet is posting ready status",
            ),
        ]
    } else {
        ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]
            .iter()
            .map(|t| {
                json!({
                    "type": t,
                    "status": "Unknown",
                    "lastHeartbeatTime": rfc3339(hb),
                    "lastTransitionTime": rfc3339(n.ready_since),
                    "reason": "NodeStatusUnknown",
                    "message": "Kubelet stopped posting node status.",
                })
            })
            .collect()
    };
    let cap_mem = u64::from(n.memory_gi) * 1024 * 1024 - 180_000;
    let alloc_mem = cap_mem.saturating_sub(u64::from(n.memory_gi) * 26_000 + 100_000);
    let status = json!({
        "addresses": [
            {"type": "InternalIP", "address": n.internal_ip},
            {"type": "Hostname", "address": n.name},
        ],
        "capacity": {
            "cpu": n.cpu.to_string(),
            "ephemeral-storage": "101430960Ki",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
            "memory": format!("{cap_mem}Ki"),
            "pods": n.max_pods.to_string(),
        },
        "allocatable": {
            "cpu": format!("{}m", n.cpu * 1000 - 90 - n.cpu * 6),
            "ephemeral-storage": "93478772582",
            "hugepages-1Gi": "0",
            "hugepages-2Mi": "0",
            "memory": format!("{alloc_mem}Ki"),
            "pods": n.max_pods.to_string(),
        },
        "conditions": conditions,
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "nodeInfo": {
            "architecture": "amd64",
            "bootID": format!("{}-boot", n.machine_id.get(..8).unwrap_or(&n.machine_id)),
            "containerRuntimeVersion": "containerd://1.7.27",
            "kernelVersion": n.kernel,
            "kubeProxyVersion": "",
            "kubeletVersion": KUBE_VERSION,
            "machineID": n.machine_id,
            "operatingSystem": "linux",
            "osImage": "Ubuntu 24.04.2 LTS",
            "systemUUID": format!("ec2{}", n.machine_id.get(3..).unwrap_or("")),
        },
    });
    let mut o = object("v1", "Node", md);
    o.insert("spec".into(), Value::Object(spec));
    o.insert("status".into(), status);
    Value::Object(o)
}

/// The `widgets.demo.kinformer.io` CustomResourceDefinition (namespaced, kind Widget).
pub fn widget_crd(uid: &str, created: i64) -> Value {
    let mut md = meta(None, WIDGET_CRD_NAME, uid, created);
    md.insert("generation".into(), Value::from(1));
    let mut o = object("apiextensions.k8s.io/v1", "CustomResourceDefinition", md);
    o.insert(
        "spec".into(),
        json!({
            "group": "demo.kinformer.io",
            "names": {
                "kind": "Widget",
                "listKind": "WidgetList",
                "plural": "widgets",
                "singular": "widget",
                "shortNames": ["wdg"],
                "categories": ["all"],
            },
            "scope": "Namespaced",
            "conversion": {"strategy": "None"},
            "versions": [{
                "name": "v1",
                "served": true,
                "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "Size", "type": "string", "jsonPath": ".spec.size"},
                    {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
                    {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                    {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                ],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": "Widget is a demo custom resource served by the kinformer demo cluster.",
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": {
                            "type": "object",
                            "required": ["size"],
                            "properties": {
                                "size": {"type": "string", "enum": ["small", "medium", "large"]},
                                "color": {"type": "string"},
                                "replicas": {"type": "integer", "minimum": 0},
                                "owner": {"type": "string"},
                            },
                        },
                        "status": {
                            "type": "object",
                            "properties": {
                                "phase": {"type": "string"},
                                "observedGeneration": {"type": "integer"},
                                "message": {"type": "string"},
                            },
                        },
                    },
                }},
            }],
        }),
    );
    o.insert(
        "status".into(),
        json!({
            "acceptedNames": {
                "kind": "Widget",
                "listKind": "WidgetList",
                "plural": "widgets",
                "singular": "widget",
                "shortNames": ["wdg"],
                "categories": ["all"],
            },
            "storedVersions": ["v1"],
            "conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts",
                 "message": "no conflicts found", "lastTransitionTime": rfc3339(created)},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted",
                 "message": "the initial names have been accepted", "lastTransitionTime": rfc3339(created)},
            ],
        }),
    );
    Value::Object(o)
}

/// What the simulator knows about one Widget.
#[derive(Debug, Clone)]
pub struct WidgetInfo {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    pub created: i64,
    pub size: &'static str,
    pub color: &'static str,
    pub replicas: u32,
    pub owner: String,
    pub generation: i64,
    pub phase: &'static str,
}

pub fn widget(w: &WidgetInfo) -> Value {
    let mut md = meta(Some(&w.namespace), &w.name, &w.uid, w.created);
    md.insert("generation".into(), Value::from(w.generation));
    md.insert(
        "labels".into(),
        json!({"app.kubernetes.io/managed-by": "kinformer-demo", "team": w.owner}),
    );
    let mut o = object("demo.kinformer.io/v1", "Widget", md);
    o.insert(
        "spec".into(),
        json!({"size": w.size, "color": w.color, "replicas": w.replicas, "owner": w.owner}),
    );
    let message = match w.phase {
        "Ready" => "all parts assembled",
        "Degraded" => "one or more parts are missing",
        _ => "assembling parts",
    };
    o.insert(
        "status".into(),
        json!({"phase": w.phase, "observedGeneration": w.generation, "message": message}),
    );
    Value::Object(o)
}

// ---------------------------------------------------------------------------------------------
// Pods
// ---------------------------------------------------------------------------------------------

/// Where a pod is in its life, as the kubelet reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PodStage {
    /// Created, not scheduled yet.
    Pending,
    /// Bound to a node; sandbox and containers being created.
    ContainerCreating,
    /// Container running (ready after its probe passes).
    Running,
    /// The container just exited with an error; about to be restarted.
    Error,
    /// Waiting in back-off before the next restart.
    CrashLoopBackOff,
    /// Ran to completion (jobs).
    Succeeded,
}

/// A container's previous termination (`lastState.terminated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastTermination {
    pub exit_code: i32,
    pub reason: &'static str,
    pub started: i64,
    pub finished: i64,
}

/// Everything that varies between pods of one template.
pub struct PodView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub created: i64,
    pub template: &'a PodTemplate,
    /// Labels besides the template's (pod-template-hash, controller-revision-hash, ...).
    pub extra_labels: &'a [(&'a str, &'a str)],
    pub annotations: &'a [(&'a str, &'a str)],
    /// `ownerReferences[0]`: (apiVersion, kind, name, uid).
    pub owner: (&'a str, &'a str, &'a str, &'a str),
    pub node: Option<&'a str>,
    pub host_ip: Option<&'a str>,
    pub pod_ip: Option<&'a str>,
    pub hostname: Option<&'a str>,
    pub subdomain: Option<&'a str>,
    pub pvc: Option<&'a str>,
    /// Pre-rendered `template.label_map()` and `template.pod_spec(None)`, if the caller caches
    /// them (rendering 150k pods from a cached template is several times faster).
    pub cached: Option<&'a RenderedTemplate>,
    pub stage: PodStage,
    pub scheduled_at: i64,
    /// When the current container started (Running) or the pod became ready.
    pub started_at: i64,
    pub restarts: u32,
    pub last: Option<LastTermination>,
    pub container_id: &'a str,
    pub image_id: &'a str,
}

pub fn pod(p: &PodView<'_>) -> Value {
    let t = p.template;
    let mut l = match p.cached {
        Some(c) => c.labels.clone(),
        None => t.label_map(),
    };
    for (k, v) in p.extra_labels {
        l.insert((*k).to_string(), Value::from(*v));
    }
    let mut md = meta(Some(p.namespace), p.name, p.uid, p.created);
    if p.owner.1 == "ReplicaSet" {
        // generateName is what the ReplicaSet controller sets.
        md.insert(
            "generateName".into(),
            Value::from(format!("{}-", p.owner.2)),
        );
    }
    md.insert("labels".into(), Value::Object(l));
    if !p.annotations.is_empty() {
        md.insert(
            "annotations".into(),
            Value::Object(labels(p.annotations.iter().copied())),
        );
    }
    md.insert(
        "ownerReferences".into(),
        Value::Array(vec![controller_ref(
            p.owner.0, p.owner.1, p.owner.2, p.owner.3,
        )]),
    );
    let mut spec = match p.cached {
        Some(c) => {
            let mut spec = c.spec.clone();
            if let Some(pvc) = p.pvc
                && let Some(Value::Array(vols)) = spec.get_mut("volumes")
            {
                vols.insert(
                    0,
                    json!({"name": "data", "persistentVolumeClaim": {"claimName": pvc}}),
                );
            }
            spec
        }
        None => t.pod_spec(p.pvc),
    };
    if let Some(h) = p.hostname {
        spec.insert("hostname".into(), Value::from(h));
    }
    if let Some(s) = p.subdomain {
        spec.insert("subdomain".into(), Value::from(s));
    }
    if let Some(n) = p.node {
        spec.insert("nodeName".into(), Value::from(n));
    }
    let mut o = object("v1", "Pod", md);
    o.insert("spec".into(), Value::Object(spec));
    o.insert("status".into(), pod_status(p));
    Value::Object(o)
}

fn pod_status(p: &PodView<'_>) -> Value {
    let t = p.template;
    let mut s = Map::new();
    let phase = match p.stage {
        PodStage::Pending | PodStage::ContainerCreating => "Pending",
        PodStage::Succeeded => "Succeeded",
        _ => "Running",
    };
    s.insert("phase".into(), Value::from(phase));
    if p.stage == PodStage::Pending {
        s.insert(
            "conditions".into(),
            json!([{"type": "PodScheduled", "status": "False", "lastProbeTime": null,
                    "lastTransitionTime": rfc3339(p.created), "reason": "Unschedulable",
                    "message": "0/0 nodes are available: waiting for scheduling."}]),
        );
        s.insert("qosClass".into(), Value::from(t.qos_class()));
        return Value::Object(s);
    }
    let ready = p.stage == PodStage::Running;
    let initialized_at = p.scheduled_at;
    let sandbox = p.stage != PodStage::ContainerCreating;
    let cond = |kind: &str, ok: bool, at: i64, reason: Option<&str>| {
        let mut c = json!({"type": kind, "status": if ok { "True" } else { "False" },
                           "lastProbeTime": null, "lastTransitionTime": rfc3339(at)});
        if let (Some(r), Some(m)) = (reason, c.as_object_mut()) {
            m.insert("reason".into(), Value::from(r));
            if r == "ContainersNotReady" {
                m.insert(
                    "message".into(),
                    Value::from(format!("containers with unready status: [{}]", t.container)),
                );
            }
        }
        c
    };
    let not_ready_reason = if p.stage == PodStage::Succeeded {
        Some("PodCompleted")
    } else {
        Some("ContainersNotReady")
    };
    s.insert(
        "conditions".into(),
        Value::Array(vec![
            cond(
                "PodReadyToStartContainers",
                sandbox && p.stage != PodStage::Succeeded,
                p.started_at.max(p.scheduled_at),
                None,
            ),
            cond(
                "Initialized",
                true,
                initialized_at,
                if p.stage == PodStage::Succeeded {
                    Some("PodCompleted")
                } else {
                    None
                },
            ),
            cond(
                "Ready",
                ready,
                p.started_at.max(p.scheduled_at),
                if ready { None } else { not_ready_reason },
            ),
            cond(
                "ContainersReady",
                ready,
                p.started_at.max(p.scheduled_at),
                if ready { None } else { not_ready_reason },
            ),
            cond("PodScheduled", true, p.scheduled_at, None),
        ]),
    );
    if let Some(h) = p.host_ip {
        s.insert("hostIP".into(), Value::from(h));
        s.insert("hostIPs".into(), json!([{"ip": h}]));
    }
    if sandbox && let Some(ip) = p.pod_ip {
        s.insert("podIP".into(), Value::from(ip));
        s.insert("podIPs".into(), json!([{"ip": ip}]));
    }
    s.insert("startTime".into(), Value::from(rfc3339(p.scheduled_at)));
    let state = match p.stage {
        PodStage::ContainerCreating => json!({"waiting": {"reason": "ContainerCreating"}}),
        PodStage::Running => json!({"running": {"startedAt": rfc3339(p.started_at)}}),
        PodStage::Error => match p.last {
            Some(l) => json!({"terminated": {"exitCode": l.exit_code, "reason": l.reason,
                              "startedAt": rfc3339(l.started), "finishedAt": rfc3339(l.finished),
                              "containerID": p.container_id}}),
            None => json!({"waiting": {"reason": "ContainerCreating"}}),
        },
        PodStage::CrashLoopBackOff => {
            let backoff = 10u64 << p.restarts.min(5);
            json!({"waiting": {"reason": "CrashLoopBackOff",
                   "message": format!("back-off {} restarting failed container={} pod={}_{}({})",
                                      if backoff >= 300 { "5m0s".to_string() } else if backoff >= 60 { format!("{}m{}s", backoff / 60, backoff % 60) } else { format!("{backoff}s") },
                                      t.container, p.name, p.namespace, p.uid)}})
        }
        PodStage::Succeeded => json!({"terminated": {"exitCode": 0, "reason": "Completed",
                                      "startedAt": rfc3339(p.scheduled_at + 2), "finishedAt": rfc3339(p.started_at),
                                      "containerID": p.container_id}}),
        PodStage::Pending => json!({"waiting": {"reason": "ContainerCreating"}}),
    };
    let mut cs = Map::new();
    cs.insert("name".into(), Value::from(t.container.as_str()));
    cs.insert("image".into(), Value::from(t.image.as_str()));
    if p.stage != PodStage::ContainerCreating {
        cs.insert("imageID".into(), Value::from(p.image_id));
        cs.insert("containerID".into(), Value::from(p.container_id));
    } else {
        cs.insert("imageID".into(), Value::from(""));
    }
    cs.insert("ready".into(), Value::from(ready));
    cs.insert("restartCount".into(), Value::from(p.restarts));
    cs.insert("started".into(), Value::from(p.stage == PodStage::Running));
    cs.insert("state".into(), state);
    let last = match (p.stage, p.last) {
        (PodStage::Running | PodStage::CrashLoopBackOff, Some(l)) => {
            json!({"terminated": {"exitCode": l.exit_code, "reason": l.reason,
                   "startedAt": rfc3339(l.started), "finishedAt": rfc3339(l.finished),
                   "containerID": p.container_id}})
        }
        _ => json!({}),
    };
    cs.insert("lastState".into(), last);
    if t.flavor != AppFlavor::ControlPlane {
        cs.insert(
            "volumeMounts".into(),
            json!([{"name": "kube-api-access", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                    "readOnly": true, "recursiveReadOnly": "Disabled"}]),
        );
    }
    s.insert(
        "containerStatuses".into(),
        Value::Array(vec![Value::Object(cs)]),
    );
    s.insert("qosClass".into(), Value::from(t.qos_class()));
    Value::Object(s)
}

// ---------------------------------------------------------------------------------------------
// Services, config, accounts, events
// ---------------------------------------------------------------------------------------------

pub struct ServiceView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    pub created: i64,
    pub labels: Map<String, Value>,
    /// `None` = no selector (e.g. the `kubernetes` service).
    pub selector: Option<Map<String, Value>>,
    pub cluster_ip: Option<&'a str>,
    /// (port, targetPort, name, protocol)
    pub ports: &'a [(u16, u16, &'a str, &'a str)],
    pub service_type: &'a str,
    pub node_port_base: u16,
}

pub fn service(s: &ServiceView<'_>) -> Value {
    let mut md = meta(Some(s.namespace), s.name, s.uid, s.created);
    if !s.labels.is_empty() {
        md.insert("labels".into(), Value::Object(s.labels.clone()));
    }
    let ports: Vec<Value> = s
        .ports
        .iter()
        .enumerate()
        .map(|(i, (port, target, name, proto))| {
            let mut p =
                json!({"name": name, "port": port, "protocol": proto, "targetPort": target});
            if s.service_type == "LoadBalancer"
                && let Some(m) = p.as_object_mut()
            {
                m.insert("nodePort".into(), Value::from(s.node_port_base + i as u16));
            }
            p
        })
        .collect();
    let mut spec = Map::new();
    match s.cluster_ip {
        Some(ip) => {
            spec.insert("clusterIP".into(), Value::from(ip));
            spec.insert("clusterIPs".into(), json!([ip]));
        }
        None => {
            spec.insert("clusterIP".into(), Value::from("None"));
            spec.insert("clusterIPs".into(), json!(["None"]));
        }
    }
    spec.insert("internalTrafficPolicy".into(), Value::from("Cluster"));
    spec.insert("ipFamilies".into(), json!(["IPv4"]));
    spec.insert("ipFamilyPolicy".into(), Value::from("SingleStack"));
    spec.insert("ports".into(), Value::Array(ports));
    if let Some(sel) = &s.selector {
        spec.insert("selector".into(), Value::Object(sel.clone()));
    }
    spec.insert("sessionAffinity".into(), Value::from("None"));
    spec.insert("type".into(), Value::from(s.service_type));
    let mut status = json!({"loadBalancer": {}});
    if s.service_type == "LoadBalancer" {
        spec.insert("externalTrafficPolicy".into(), Value::from("Cluster"));
        spec.insert("allocateLoadBalancerNodePorts".into(), Value::from(true));
        let id: String = s.uid.chars().filter(|c| *c != '-').take(20).collect();
        status = json!({"loadBalancer": {"ingress": [{"hostname": format!("a{id}-1893021122.eu-west-1.elb.amazonaws.com"), "ipMode": "Proxy"}]}});
    }
    let mut o = object("v1", "Service", md);
    o.insert("spec".into(), Value::Object(spec));
    o.insert("status".into(), status);
    Value::Object(o)
}

pub fn configmap(
    namespace: &str,
    name: &str,
    uid: &str,
    created: i64,
    labels: Option<Map<String, Value>>,
    data: Map<String, Value>,
) -> Value {
    let mut md = meta(Some(namespace), name, uid, created);
    if let Some(l) = labels {
        md.insert("labels".into(), Value::Object(l));
    }
    let mut o = object("v1", "ConfigMap", md);
    o.insert("data".into(), Value::Object(data));
    Value::Object(o)
}

/// A dummy CA certificate body, as in every namespace's `kube-root-ca.crt`.
pub const ROOT_CA: &str = "-----BEGIN CERTIFICATE-----\nMIIDBTCCAe2gAwIBAgIIV3kb0ZRc2yYwDQYJKoZIhvcNAQELBQAwFTETMBEGA1UE\nAxMKa3ViZXJuZXRlczAeFw0yNjAxMDEwMDAwMDBaFw0zNTEyMzAwMDAwMDBaMBUx\nEzARBgNVBAMTCmt1YmVybmV0ZXMwggEiMA0GCSqGSIb3DQEBAQUAA4IBDwAwggEK\n-----END CERTIFICATE-----\n";

pub fn secret(
    namespace: &str,
    name: &str,
    uid: &str,
    created: i64,
    secret_type: &str,
    labels: Option<Map<String, Value>>,
    data: Map<String, Value>,
) -> Value {
    let mut md = meta(Some(namespace), name, uid, created);
    if let Some(l) = labels {
        md.insert("labels".into(), Value::Object(l));
    }
    let mut o = object("v1", "Secret", md);
    o.insert("type".into(), Value::from(secret_type));
    o.insert("data".into(), Value::Object(data));
    Value::Object(o)
}

pub fn serviceaccount(
    namespace: &str,
    name: &str,
    uid: &str,
    created: i64,
    labels: Option<Map<String, Value>>,
) -> Value {
    let mut md = meta(Some(namespace), name, uid, created);
    if let Some(l) = labels {
        md.insert("labels".into(), Value::Object(l));
    }
    Value::Object(object("v1", "ServiceAccount", md))
}

/// A core/v1 Event as the event recorder writes it (deprecated `firstTimestamp`/`lastTimestamp`/
/// `count` fields filled, as kubectl get events shows them).
pub struct EventView<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    pub uid: &'a str,
    /// involvedObject: (apiVersion, kind, name, uid, fieldPath)
    pub involved: (&'a str, &'a str, &'a str, &'a str, Option<&'a str>),
    pub reason: &'a str,
    pub message: &'a str,
    pub warning: bool,
    pub count: u32,
    pub first: i64,
    pub last: i64,
    pub component: &'a str,
    pub host: Option<&'a str>,
}

pub fn event(e: &EventView<'_>) -> Value {
    let md = meta(Some(e.namespace), e.name, e.uid, e.first);
    let mut inv = Map::new();
    inv.insert("apiVersion".into(), Value::from(e.involved.0));
    inv.insert("kind".into(), Value::from(e.involved.1));
    inv.insert("name".into(), Value::from(e.involved.2));
    if e.involved.1 != "Node" {
        inv.insert("namespace".into(), Value::from(e.namespace));
    }
    inv.insert("uid".into(), Value::from(e.involved.3));
    if let Some(fp) = e.involved.4 {
        inv.insert("fieldPath".into(), Value::from(fp));
    }
    let mut source = Map::new();
    source.insert("component".into(), Value::from(e.component));
    if let Some(h) = e.host {
        source.insert("host".into(), Value::from(h));
    }
    let mut o = object("v1", "Event", md);
    o.insert("involvedObject".into(), Value::Object(inv));
    o.insert("reason".into(), Value::from(e.reason));
    o.insert("message".into(), Value::from(e.message));
    o.insert("source".into(), Value::Object(source));
    o.insert("firstTimestamp".into(), Value::from(rfc3339(e.first)));
    o.insert("lastTimestamp".into(), Value::from(rfc3339(e.last)));
    o.insert("count".into(), Value::from(e.count));
    o.insert(
        "type".into(),
        Value::from(if e.warning { "Warning" } else { "Normal" }),
    );
    o.insert("eventTime".into(), Value::Null);
    o.insert("reportingComponent".into(), Value::from(e.component));
    o.insert(
        "reportingInstance".into(),
        Value::from(e.host.unwrap_or("")),
    );
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_767_225_600), "2026-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400 + 3661), "2000-02-29T01:01:01Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn uid_is_a_version4_uuid() {
        let mut rng = SmallRng::seed_from_u64(7);
        for _ in 0..100 {
            let u = uid(&mut rng);
            assert_eq!(u.len(), 36);
            let parts: Vec<&str> = u.split('-').collect();
            assert_eq!(
                parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
                [8, 4, 4, 4, 12]
            );
            assert!(parts[2].starts_with('4'), "{u}");
            assert!(matches!(&parts[3][..1], "8" | "9" | "a" | "b"), "{u}");
        }
    }

    #[test]
    fn generated_suffixes_use_the_safe_alphabet() {
        let mut rng = SmallRng::seed_from_u64(1);
        let s = suffix(&mut rng, 5);
        assert_eq!(s.len(), 5);
        assert!(s.bytes().all(|b| SAFE_ALPHABET.contains(&b)));
        let h = template_hash(&mut rng);
        assert!(h.len() == 9 || h.len() == 10);
    }
}
