//! The realistic pod shape: what kube-apiserver sends for a pod of a typical production workload,
//! so that list bodies, decode times and cache memory measured against the demo server predict a
//! real cluster (a real kube-apiserver v1.36 sent ~10.5 KB of JSON per pod, about 41% of it
//! `managedFields`; this shape is 11–12 KB, 40–44%). The compact shape (~3 KB without
//! managedFields) hid the whole-body buffering of list responses that this one exposed.
//!
//! [`make_realistic`] turns a pod rendered by [`super::objects::pod`] (one container, no
//! `managedFields`: the compact shape) into that shape:
//! - a second container (a log-shipping sidecar) and at least 12 env vars per container, both with
//!   liveness/readiness probes, resources and volumeMounts; an `emptyDir` and a configMap volume
//!   next to the projected service account token;
//! - a `containerStatuses` entry for each container (a crash-looping app does not stop its
//!   sidecar);
//! - `managedFields` from two managers, with `fieldsV1` sets as structured-merge-diff writes
//!   them: the creating controller (`kube-controller-manager`, or `kubelet` for a mirror pod)
//!   owns metadata and spec at creation, minus what admission adds (the service account token
//!   volume and mounts, default tolerations, priority); the kubelet owns status through the
//!   `status` subresource (the scheduler's PodScheduled condition while a pod is pending).
//!
//! [`fields_v1`] derives a `fieldsV1` set from an object: associative lists are keyed as the pod
//! schema declares (`k:{"name":..}`, `k:{"containerPort":..,"protocol":..}`), atomic lists and
//! atomic structs are leaves, maps and list items carry `"."` for themselves.

use serde_json::{Map, Value, json};

/// Which pod shape the demo server stores.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PodShape {
    /// One container, no managedFields (~3 KB of JSON per pod): small and quick to seed.
    #[default]
    Compact,
    /// Two containers with env/probes/volumes, full status and managedFields from two managers
    /// (~10 KB per pod, ~40% managedFields), as a real cluster sends.
    Realistic,
}

/// The sidecar every realistic pod runs next to its main container.
pub const SIDECAR: &str = "log-shipper";
const SIDECAR_IMAGE: &str = "cr.fluentbit.io/fluent/fluent-bit:3.2.4";
const SIDECAR_IMAGE_ID: &str = "cr.fluentbit.io/fluent/fluent-bit@sha256:\
    8f2d3a6c1b7e4f9a0c5d2e8b3f6a1c4d7e0b9a2f5c8e1d4b7a0f3c6e9d2b5a8f";
const SA_VOLUME: &str = "kube-api-access";
/// Env vars per container at least.
const MIN_ENV: usize = 10;

/// Turns a compact pod (as [`super::objects::pod`] renders it) into the realistic shape.
/// Objects that are not pods are left alone.
pub fn make_realistic(pod: &mut Value) {
    let Some(o) = pod.as_object_mut() else { return };
    if o.get("kind").and_then(Value::as_str) != Some("Pod") {
        return;
    }
    let app = o
        .get("metadata")
        .and_then(|m| m.get("labels"))
        .and_then(|l| {
            l.get("app.kubernetes.io/name")
                .or_else(|| l.get("app"))
                .and_then(Value::as_str)
        })
        .unwrap_or("app")
        .to_string();
    if let Some(spec) = o.get_mut("spec").and_then(Value::as_object_mut) {
        realistic_spec(spec, &app);
    }
    if let Some(status) = pod.get_mut("status").and_then(Value::as_object_mut) {
        realistic_status(status);
    }
    let managed = managed_fields(pod);
    if let Some(md) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
        md.insert("managedFields".into(), Value::Array(managed));
    }
}

/// Env vars a typical service carries besides its own settings (telemetry, runtime tuning,
/// downward API), added when the container does not set them already.
fn common_env(app: &str) -> Vec<Value> {
    vec![
        json!({"name": "LOG_LEVEL", "value": "info"}),
        json!({"name": "OTEL_SERVICE_NAME", "value": app}),
        json!({"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability:4317"}),
        json!({"name": "GOMEMLIMIT", "valueFrom": {"resourceFieldRef": {"divisor": "1", "resource": "limits.memory"}}}),
        json!({"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}),
        json!({"name": "LOG_FORMAT", "value": "json"}),
        json!({"name": "TZ", "value": "UTC"}),
        json!({"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}),
        json!({"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"divisor": "1", "resource": "limits.cpu"}}}),
        json!({"name": "OTEL_TRACES_SAMPLER", "value": "parentbased_traceidratio"}),
    ]
}

fn sidecar_env(app: &str) -> Vec<Value> {
    vec![
        json!({"name": "FLB_LOG_LEVEL", "value": "warn"}),
        json!({"name": "FLB_INPUT_PATH", "value": "/var/log/app/*.log"}),
        json!({"name": "FLB_OUTPUT_HOST", "value": "logs-gateway.observability"}),
        json!({"name": "FLB_OUTPUT_PORT", "value": "24224"}),
        json!({"name": "FLB_BUFFER_LIMIT", "value": "5MB"}),
        json!({"name": "FLB_TAG", "value": format!("kube.{app}")}),
        json!({"name": "FLB_HTTP_SERVER", "value": "On"}),
        json!({"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}),
        json!({"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}}),
        json!({"name": "FLB_STORAGE_PATH", "value": "/var/log/app/.flb"}),
    ]
}

fn probe_exec() -> Value {
    json!({"exec": {"command": ["/bin/sh", "-c", "test -f /tmp/healthy"]}, "initialDelaySeconds": 5,
           "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1, "failureThreshold": 3})
}

fn realistic_spec(spec: &mut Map<String, Value>, app: &str) {
    let Some(Value::Array(containers)) = spec.get_mut("containers") else {
        return;
    };
    if containers
        .iter()
        .any(|c| c.get("name") == Some(&json!(SIDECAR)))
    {
        return;
    }
    if let Some(main) = containers.first_mut().and_then(Value::as_object_mut) {
        let env = main
            .entry("env")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(env) = env {
            for var in common_env(app) {
                if env.len() >= MIN_ENV {
                    break;
                }
                if !env.iter().any(|e| e.get("name") == var.get("name")) {
                    env.push(var);
                }
            }
        }
        main.entry("livenessProbe").or_insert_with(probe_exec);
        main.entry("readinessProbe").or_insert_with(probe_exec);
        let mounts = main
            .entry("volumeMounts")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(mounts) = mounts {
            let at = mounts.len().saturating_sub(1);
            mounts.insert(at, json!({"name": "varlog", "mountPath": "/var/log/app"}));
        }
    }
    containers.push(json!({
        "name": SIDECAR,
        "image": SIDECAR_IMAGE,
        "imagePullPolicy": "IfNotPresent",
        "env": sidecar_env(app),
        "livenessProbe": {"tcpSocket": {"port": 2020}, "periodSeconds": 10, "timeoutSeconds": 1,
                          "successThreshold": 1, "failureThreshold": 3},
        "readinessProbe": {"httpGet": {"path": "/api/v1/health", "port": 2020, "scheme": "HTTP"},
                           "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1,
                           "failureThreshold": 3},
        "resources": {"limits": {"memory": "128Mi"}, "requests": {"cpu": "20m", "memory": "64Mi"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"name": "varlog", "mountPath": "/var/log/app", "readOnly": true},
            {"name": SA_VOLUME, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true},
        ],
    }));
    if let Value::Array(volumes) = spec
        .entry("volumes")
        .or_insert_with(|| Value::Array(Vec::new()))
    {
        let at = volumes.len().saturating_sub(1);
        volumes.insert(at, json!({"name": "varlog", "emptyDir": {}}));
    }
}

fn realistic_status(status: &mut Map<String, Value>) {
    let phase = status
        .get("phase")
        .and_then(Value::as_str)
        .map(str::to_string);
    let phase = phase.as_deref();
    let started_at = status.get("startTime").cloned();
    let Some(Value::Array(statuses)) = status.get_mut("containerStatuses") else {
        return;
    };
    let Some(main) = statuses.first().cloned() else {
        return;
    };
    if statuses
        .iter()
        .any(|s| s.get("name") == Some(&json!(SIDECAR)))
    {
        return;
    }
    let mut side = main;
    if let Some(s) = side.as_object_mut() {
        s.insert("name".into(), Value::from(SIDECAR));
        s.insert("image".into(), Value::from(SIDECAR_IMAGE));
        if s.get("imageID").and_then(Value::as_str) != Some("") {
            s.insert("imageID".into(), Value::from(SIDECAR_IMAGE_ID));
        }
        if let Some(id) = s.get("containerID").and_then(Value::as_str) {
            let id = format!("{}5e", id.get(..id.len().saturating_sub(2)).unwrap_or(id));
            s.insert("containerID".into(), Value::from(id));
        }
        s.insert("restartCount".into(), Value::from(0));
        s.insert("lastState".into(), json!({}));
        // A crash-looping main container does not stop its sidecar.
        let main_down = s.get("state").is_some_and(|st| {
            st.get("terminated").is_some()
                || st.get("waiting").and_then(|w| w.get("reason"))
                    == Some(&json!("CrashLoopBackOff"))
        });
        if main_down && phase == Some("Running") {
            let since = started_at.clone().unwrap_or(Value::Null);
            s.insert("state".into(), json!({"running": {"startedAt": since}}));
            s.insert("ready".into(), Value::from(true));
            s.insert("started".into(), Value::from(true));
        }
        s.insert(
            "volumeMounts".into(),
            json!([
                {"name": SA_VOLUME, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true, "recursiveReadOnly": "Disabled"},
            ]),
        );
    }
    statuses.push(side);
}

// ---------------------------------------------------------------------------------------------
// managedFields
// ---------------------------------------------------------------------------------------------

/// How the pod schema merges a list field: by these keys, or atomically (`None`).
pub(crate) fn list_keys(field: &str) -> Option<&'static [&'static str]> {
    match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "env"
        | "volumes"
        | "imagePullSecrets"
        | "resourceClaims" => Some(&["name"]),
        "volumeMounts" => Some(&["mountPath"]),
        "ports" => Some(&["containerPort", "protocol"]),
        "conditions" => Some(&["type"]),
        "podIPs" | "hostIPs" => Some(&["ip"]),
        "ownerReferences" => Some(&["uid"]),
        _ => None,
    }
}

/// Structs the pod schema declares atomic (`+structType=atomic`): one leaf each.
fn atomic_struct(field: &str) -> bool {
    matches!(
        field,
        "fieldRef" | "resourceFieldRef" | "secretKeyRef" | "configMapKeyRef"
    )
}

/// Lists that exist before the manager writes its items (no `"."` of their own).
fn list_without_self(field: &str) -> bool {
    matches!(field, "containers" | "conditions")
}

/// The `fieldsV1` set of `v` (an object's fields below the root): `f:<field>` for fields,
/// `k:{..}` for items of associative lists, `"."` for a map or item that is itself owned,
/// `{}` for leaves.
pub fn fields_v1(v: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, child) in v {
        out.insert(format!("f:{k}"), Value::Object(field_set(k, child)));
    }
    out
}

fn field_set(name: &str, v: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    match v {
        Value::Object(m) if !m.is_empty() && !atomic_struct(name) => {
            out.insert(".".into(), json!({}));
            for (k, child) in m {
                out.insert(format!("f:{k}"), Value::Object(field_set(k, child)));
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let Some(keys) = list_keys(name) else {
                return out; // atomic list: a leaf
            };
            if !list_without_self(name) {
                out.insert(".".into(), json!({}));
            }
            for item in items {
                let Some(m) = item.as_object() else { continue };
                let key: Map<String, Value> = keys
                    .iter()
                    .filter_map(|k| m.get(*k).map(|v| ((*k).to_string(), v.clone())))
                    .collect();
                let key = format!("k:{}", Value::Object(key));
                let set = if name == "ownerReferences" {
                    Map::new() // OwnerReference is an atomic struct
                } else {
                    let mut s = Map::new();
                    s.insert(".".into(), json!({}));
                    for (k, child) in m {
                        s.insert(format!("f:{k}"), Value::Object(field_set(k, child)));
                    }
                    s
                };
                out.insert(key, Value::Object(set));
            }
        }
        _ => {}
    }
    out
}

fn entry(
    manager: &str,
    time: &str,
    subresource: Option<&str>,
    fields: Map<String, Value>,
) -> Value {
    let mut e = Map::new();
    e.insert("manager".into(), Value::from(manager));
    e.insert("operation".into(), Value::from("Update"));
    e.insert("apiVersion".into(), Value::from("v1"));
    e.insert("time".into(), Value::from(time));
    e.insert("fieldsType".into(), Value::from("FieldsV1"));
    e.insert("fieldsV1".into(), Value::Object(fields));
    if let Some(s) = subresource {
        e.insert("subresource".into(), Value::from(s));
    }
    Value::Object(e)
}

/// What the creating controller sent: the spec minus what the scheduler and admission add.
fn created_spec(spec: &Map<String, Value>) -> Map<String, Value> {
    let mut s = spec.clone();
    for admitted in ["nodeName", "priority", "preemptionPolicy", "serviceAccount"] {
        s.remove(admitted);
    }
    if let Some(Value::Array(t)) = s.get("tolerations") {
        // DefaultTolerationSeconds adds the not-ready/unreachable tolerations.
        let own = t
            .iter()
            .any(|t| t.get("tolerationSeconds") != Some(&json!(300)));
        if !own {
            s.remove("tolerations");
        }
    }
    let not_sa = |v: &Value| v.get("name") != Some(&json!(SA_VOLUME));
    if let Some(Value::Array(vols)) = s.get_mut("volumes") {
        vols.retain(not_sa);
    }
    if let Some(Value::Array(cs)) = s.get_mut("containers") {
        for c in cs.iter_mut().filter_map(Value::as_object_mut) {
            if let Some(Value::Array(m)) = c.get_mut("volumeMounts") {
                m.retain(not_sa);
            }
        }
    }
    s
}

/// The two managers' entries, derived from the pod as it is now.
fn managed_fields(pod: &Value) -> Vec<Value> {
    let empty = Map::new();
    let md = pod
        .get("metadata")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let created = md
        .get("creationTimestamp")
        .and_then(Value::as_str)
        .unwrap_or("");
    let mirror = md
        .get("ownerReferences")
        .and_then(|o| o.get(0))
        .and_then(|o| o.get("kind"))
        == Some(&json!("Node"));
    let mut meta = Map::new();
    for k in ["generateName", "labels", "annotations", "ownerReferences"] {
        if let Some(v) = md.get(k) {
            meta.insert(k.into(), v.clone());
        }
    }
    let mut creator = Map::new();
    creator.insert("f:metadata".into(), Value::Object(fields_v1(&meta)));
    if let Some(spec) = pod.get("spec").and_then(Value::as_object) {
        creator.insert(
            "f:spec".into(),
            Value::Object(fields_v1(&created_spec(spec))),
        );
    }
    let mut out = vec![entry(
        if mirror {
            "kubelet"
        } else {
            "kube-controller-manager"
        },
        created,
        None,
        creator,
    )];
    let Some(status) = pod.get("status").and_then(Value::as_object) else {
        return out;
    };
    let latest = status
        .get("conditions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("lastTransitionTime").and_then(Value::as_str))
        .max()
        .unwrap_or(created);
    let mut st = status.clone();
    st.remove("qosClass"); // set by the API server on create
    if status.get("phase") == Some(&json!("Pending")) && !status.contains_key("hostIP") {
        // Unschedulable: only the scheduler has written status.
        st.retain(|k, _| k == "conditions");
        let fields = json!({"f:status": fields_v1(&st)});
        if let Value::Object(f) = fields {
            out.push(entry("kube-scheduler", latest, Some("status"), f));
        }
        return out;
    }
    let mut kubelet = Map::new();
    kubelet.insert("f:status".into(), Value::Object(fields_v1(&st)));
    out.push(entry("kubelet", latest, Some("status"), kubelet));
    out
}

/// One running pod of a Deployment's ReplicaSet in the realistic shape: an HTTP service with a
/// configMap, a secret, probes and its log-shipping sidecar (the benchmark's fixture).
pub fn fixture_pod() -> Value {
    use super::objects::{AppFlavor, PodStage, PodTemplate, PodView, pod};
    let template = PodTemplate {
        app: "checkout".into(),
        container: "checkout".into(),
        image: "registry.example.com/shop/checkout:v2.14.3".into(),
        port: Some((8080, "http")),
        flavor: AppFlavor::Http,
        cpu_request: "250m",
        memory_request: "256Mi",
        memory_limit: "512Mi",
        cpu_limit: Some("1"),
        service_account: "checkout".into(),
        host_network: false,
        priority_class: None,
        config_map: Some("checkout-config".into()),
        secret: Some("checkout-db".into()),
        env: vec![
            ("HTTP_PORT".into(), "8080".into()),
            ("METRICS_PORT".into(), "9090".into()),
            (
                "DATABASE_URL".into(),
                "postgres://checkout-db:5432/checkout".into(),
            ),
            ("CACHE_TTL_SECONDS".into(), "300".into()),
        ],
        labels: vec![
            ("app.kubernetes.io/name".into(), "checkout".into()),
            ("app.kubernetes.io/instance".into(), "checkout-prod".into()),
            ("app.kubernetes.io/version".into(), "v2.14.3".into()),
        ],
    };
    let created = 1_788_000_000;
    let mut v = pod(&PodView {
        namespace: "shop",
        name: "checkout-7d4b9c6f8-x2x9q",
        uid: "3f1c2b4a-8e7d-4c6b-9a5f-1e2d3c4b5a69",
        created,
        template: &template,
        extra_labels: &[("pod-template-hash", "7d4b9c6f8")],
        annotations: &[
            ("prometheus.io/scrape", "true"),
            ("prometheus.io/port", "9090"),
        ],
        owner: (
            "apps/v1",
            "ReplicaSet",
            "checkout-7d4b9c6f8",
            "b5a4c3d2-e1f0-4a9b-8c7d-6e5f4a3b2c1d",
        ),
        node: Some("ip-10-0-12-34.eu-west-1.compute.internal"),
        host_ip: Some("10.0.12.34"),
        pod_ip: Some("10.0.13.107"),
        hostname: None,
        subdomain: None,
        pvc: None,
        cached: None,
        stage: PodStage::Running,
        scheduled_at: created + 1,
        started_at: created + 9,
        restarts: 0,
        last: None,
        container_id: "containerd://4c1f0e9d8b7a6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d",
        image_id: "registry.example.com/shop/checkout@sha256:\
            1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b",
    });
    make_realistic(&mut v);
    v
}

/// Serialised size of `pod` and of its `metadata.managedFields`, in bytes (compact JSON, as
/// kube-apiserver writes it).
pub fn json_sizes(pod: &Value) -> (usize, usize) {
    let total = serde_json::to_vec(pod).map(|b| b.len()).unwrap_or(0);
    let managed = pod
        .get("metadata")
        .and_then(|m| m.get("managedFields"))
        .and_then(|m| serde_json::to_vec(m).ok())
        .map(|b| b.len())
        .unwrap_or(0);
    (total, managed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_real_server_size(pod: &Value, what: &str) {
        let (total, managed) = json_sizes(pod);
        let share = managed as f64 / total as f64;
        assert!(
            (9 * 1024..=12 * 1024).contains(&total),
            "{what}: {total} bytes of JSON, want 9-12 KB"
        );
        assert!(
            (0.35..=0.45).contains(&share),
            "{what}: managedFields {managed} of {total} bytes ({:.0}%), want 35-45%",
            share * 100.0
        );
    }

    #[test]
    fn fixture_pod_is_the_size_kube_apiserver_sends_with_managed_fields_share() {
        assert_real_server_size(&fixture_pod(), "fixture pod");
    }

    #[test]
    fn realistic_pod_has_two_managers_two_containers_and_their_statuses() {
        let pod = fixture_pod();
        let managers: Vec<(&str, Option<&str>)> = pod["metadata"]["managedFields"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| {
                        (
                            e["manager"].as_str().unwrap_or(""),
                            e.get("subresource").and_then(Value::as_str),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            managers,
            [
                ("kube-controller-manager", None),
                ("kubelet", Some("status"))
            ]
        );
        let containers = pod["spec"]["containers"].as_array().expect("containers");
        assert_eq!(containers.len(), 2);
        for c in containers {
            assert!(c["env"].as_array().is_some_and(|e| e.len() >= 10), "{c}");
            assert!(c.get("livenessProbe").is_some() && c.get("readinessProbe").is_some());
        }
        assert_eq!(
            pod["status"]["containerStatuses"].as_array().map(Vec::len),
            Some(2)
        );
        // What admission adds is not the controller's: the token volume, default tolerations.
        let kcm = pod["metadata"]["managedFields"][0]["fieldsV1"].to_string();
        assert!(!kcm.contains("kube-api-access") && !kcm.contains("f:tolerations"));
        assert!(kcm.contains(r#"k:{\"name\":\"varlog\"}"#), "{kcm}");
    }

    #[test]
    fn fields_v1_keys_associative_lists_and_marks_owned_maps() {
        let spec = json!({
            "containers": [{"name": "web", "image": "nginx", "resources": {},
                            "ports": [{"containerPort": 80, "protocol": "TCP"}],
                            "env": [{"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}]}],
            "tolerations": [{"operator": "Exists"}],
            "securityContext": {},
        });
        let Value::Object(spec) = spec else {
            panic!("object")
        };
        let got = Value::Object(fields_v1(&spec)).to_string();
        assert_eq!(
            got,
            r#"{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:fieldRef":{}}}},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:resources":{}}},"f:securityContext":{},"f:tolerations":{}}"#
        );
    }

    #[test]
    fn simulator_in_realistic_shape_renders_every_pod_with_managed_fields_at_real_sizes() {
        use crate::demo::mutation::Mutation;
        use crate::demo::sim::{SimConfig, Simulator};
        let mut sim = Simulator::new(SimConfig {
            pods: 300,
            nodes: 10,
            pod_shape: PodShape::Realistic,
            ..SimConfig::default()
        });
        let mut muts = sim.seed_mutations();
        for _ in 0..20 {
            muts.extend(sim.tick(50));
        }
        let pods: Vec<&Value> = muts
            .iter()
            .filter_map(|m| match m {
                Mutation::Create { resource, object } | Mutation::Update { resource, object }
                    if resource.plural == "pods" =>
                {
                    Some(object)
                }
                _ => None,
            })
            .collect();
        assert!(pods.len() > 300, "{} pod writes", pods.len());
        let (mut total, mut managed) = (0, 0);
        for p in &pods {
            let (t, m) = json_sizes(p);
            assert!(m > 0, "no managedFields: {p}");
            assert_eq!(
                p["spec"]["containers"].as_array().map(Vec::len),
                Some(2),
                "{p}"
            );
            total += t;
            managed += m;
        }
        let avg = total / pods.len();
        let share = managed as f64 / total as f64;
        assert!((8 * 1024..=13 * 1024).contains(&avg), "average pod {avg} B");
        assert!(
            (0.33..=0.47).contains(&share),
            "managedFields share {share:.2}"
        );
    }
}
