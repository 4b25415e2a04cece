//! The demo's kubelet for pods a client creates already bound to a node (`spec.nodeName`, as
//! k9s's node shell pod and `kubectl debug node/...` do): the node's kubelet sees the pod,
//! starts its containers and posts the status (`pods/status`, field manager `kubelet`): phase
//! `Running`, the five conditions, `hostIP`, `podIP` (the node's address with `hostNetwork`),
//! `startTime`, the QoS class and one running, ready `containerStatuses` entry per container.
//! The simulator's own pods have their own lifecycle ([`super::sim`]); this is only for the
//! others.
//!
//! Invariants: the create is answered first (`Pending`, as kube-apiserver answers it) and the
//! status follows as its own write (an informer sees ADDED, then MODIFIED); a pod naming a node
//! the cluster does not have stays `Pending` (no kubelet answers for it), as on a real cluster;
//! a pod without `spec.nodeName` is left to a scheduler, which the demo does not run for clients.
//!
//! Where this differs from a kubelet: no image pull, no ContainerCreating stage, no probes (a
//! container is ready as soon as it runs), and nothing is run (exec reaches the simulated shell).

use serde_json::{Value, json};

use super::cluster::{DemoCluster, UpdateMode, now_rfc3339};
use super::managed::WriteOptions;
use super::mutation::ResourceId;
use super::resources;

const PODS: ResourceId = ResourceId::new("", "v1", "pods");
const NODES: ResourceId = ResourceId::new("", "v1", "nodes");

/// After a client created `ns/name`: when it is bound to a node the cluster has, that node's
/// kubelet runs it (the status write). Returns whether it did.
pub fn pod_created(cluster: &DemoCluster, ns: &str, name: &str) -> bool {
    let Some(pod) = cluster.get(&PODS, Some(ns), name) else {
        return false;
    };
    let Some(node_name) = pod.pointer("/spec/nodeName").and_then(Value::as_str) else {
        return false;
    };
    let Some(node) = cluster.get(&NODES, None, node_name) else {
        return false;
    };
    let Some(idx) = resources::find_id(&PODS) else {
        return false;
    };
    let body = json!({"metadata": {"name": name, "namespace": ns},
                      "status": running_status(&pod, &node, &now_rfc3339())});
    let w = WriteOptions {
        manager: Some("kubelet".into()),
        dry_run: false,
        subresource: Some("status".into()),
    };
    match cluster.update_with(idx, Some(ns), name, body, UpdateMode::Status, &w) {
        Ok(_) => true,
        Err(e) => {
            tracing::debug!(%ns, %name, error = %e, "demo kubelet: status not written");
            false
        }
    }
}

/// The node's InternalIP, else its first address.
fn node_ip(node: &Value) -> String {
    let addrs = node
        .pointer("/status/addresses")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let by_type = |t: &str| {
        addrs
            .iter()
            .find(|a| a.get("type").and_then(Value::as_str) == Some(t))
            .and_then(|a| a.get("address").and_then(Value::as_str))
            .map(str::to_string)
    };
    by_type("InternalIP")
        .or_else(|| {
            addrs
                .first()
                .and_then(|a| a.get("address").and_then(Value::as_str))
                .map(str::to_string)
        })
        .unwrap_or_else(|| "10.0.0.1".to_string())
}

/// A pod address from the pod's name (stable, in the demo's pod range).
fn pod_ip(name: &str) -> String {
    let h = name.bytes().fold(2_166_136_261u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(16_777_619)
    });
    format!("10.244.{}.{}", (h >> 8) % 250, h % 250 + 2)
}

/// kubelet's QoS class (`pkg/apis/core/helper/qos`): Guaranteed when every container limits
/// cpu and memory (requests default to limits, or equal them), BestEffort when none asks for
/// anything, else Burstable.
fn qos_class(pod: &Value) -> &'static str {
    let containers = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut any = false;
    let mut guaranteed = !containers.is_empty();
    for c in &containers {
        let limits = c.pointer("/resources/limits").and_then(Value::as_object);
        let requests = c.pointer("/resources/requests").and_then(Value::as_object);
        any |= limits.is_some_and(|l| !l.is_empty()) || requests.is_some_and(|r| !r.is_empty());
        for r in ["cpu", "memory"] {
            let limit = limits.and_then(|l| l.get(r));
            let request = requests.and_then(|q| q.get(r)).or(limit);
            if limit.is_none() || request != limit {
                guaranteed = false;
            }
        }
    }
    match (any, guaranteed) {
        (false, _) => "BestEffort",
        (true, true) => "Guaranteed",
        (true, false) => "Burstable",
    }
}

/// The status a kubelet posts once every container of `pod` runs on `node` (`now`: RFC 3339).
pub fn running_status(pod: &Value, node: &Value, now: &str) -> Value {
    let name = pod
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let host_ip = node_ip(node);
    let host_network = pod
        .pointer("/spec/hostNetwork")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let ip = if host_network {
        host_ip.clone()
    } else {
        pod_ip(name)
    };
    let uid = pod
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or(name);
    let statuses: Vec<Value> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, c)| {
            let cname = c.get("name").and_then(Value::as_str).unwrap_or_default();
            let image = c.get("image").and_then(Value::as_str).unwrap_or_default();
            // 64 hex digits, stable for the pod and container.
            let seed = format!("{uid}/{i}/{cname}");
            let id: String = (0u32..8)
                .map(|k| {
                    let h = seed.bytes().fold(2_166_136_261u32 ^ k, |h, b| {
                        (h ^ u32::from(b)).wrapping_mul(16_777_619)
                    });
                    format!("{h:08x}")
                })
                .collect();
            json!({
                "name": cname,
                "image": image,
                "imageID": format!("{image}@sha256:{id}"),
                "containerID": format!("containerd://{id}"),
                "ready": true,
                "started": true,
                "restartCount": 0,
                "state": {"running": {"startedAt": now}},
                "lastState": {},
            })
        })
        .collect();
    let cond = |t: &str| json!({"type": t, "status": "True", "lastProbeTime": null, "lastTransitionTime": now});
    json!({
        "phase": "Running",
        "conditions": [
            cond("PodReadyToStartContainers"),
            cond("Initialized"),
            cond("Ready"),
            cond("ContainersReady"),
            cond("PodScheduled"),
        ],
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "podIP": ip,
        "podIPs": [{"ip": ip}],
        "startTime": now,
        "qosClass": qos_class(pod),
        "containerStatuses": statuses,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node() -> Value {
        json!({"metadata": {"name": "worker-1"},
               "status": {"addresses": [{"type": "Hostname", "address": "worker-1"},
                                        {"type": "InternalIP", "address": "10.0.3.7"}]}})
    }

    #[test]
    fn a_host_network_pod_runs_on_the_nodes_address_with_one_ready_status_per_container() {
        let pod = json!({"metadata": {"name": "shell", "uid": "u-1"},
            "spec": {"nodeName": "worker-1", "hostNetwork": true, "containers": [
                {"name": "a", "image": "busybox:1.35.0",
                 "resources": {"limits": {"cpu": "100m", "memory": "100Mi"}}}]}});
        let s = running_status(&pod, &node(), "2026-01-01T00:00:00Z");
        assert_eq!(s["phase"], "Running");
        assert_eq!(s["hostIP"], "10.0.3.7");
        assert_eq!(s["podIP"], "10.0.3.7");
        assert_eq!(s["qosClass"], "Guaranteed");
        assert_eq!(s["containerStatuses"][0]["name"], "a");
        assert_eq!(s["containerStatuses"][0]["ready"], true);
        assert!(s["containerStatuses"][0]["state"]["running"]["startedAt"].is_string());
        assert_eq!(s["conditions"].as_array().map(Vec::len), Some(5));
        // Typed as a client reads it.
        let typed: k8s_openapi::api::core::v1::PodStatus = serde_json::from_value(s).unwrap();
        assert_eq!(typed.phase.as_deref(), Some("Running"));
    }

    #[test]
    fn qos_follows_the_containers_requests_and_limits() {
        let with = |r: Value| json!({"spec": {"containers": [{"name": "a", "resources": r}]}});
        assert_eq!(qos_class(&with(json!({}))), "BestEffort");
        assert_eq!(
            qos_class(&with(json!({"requests": {"cpu": "10m"}}))),
            "Burstable"
        );
        assert_eq!(
            qos_class(&with(
                json!({"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1"}})
            )),
            "Guaranteed"
        );
    }
}
