//! Fixtures are objects as kube-apiserver sends them (managedFields with their fieldsV1 sets),
//! decoded through the dashboard's history decode mask, which keeps who wrote and when and skips
//! the sets: what a live informer records.

use serde_json::{Value, json};

use super::super::{History, Timeline};
use crate::informer::delta_fifo::DeltaType;

const CREATE: &str = r#"{"manager": "kubectl-create", "operation": "Update", "apiVersion": "apps/v1",
    "time": "2026-11-28T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {
    "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
    "f:spec": {"f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:selector": {},
        "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {},
                "f:name": {}}}}}}}}"#;

/// The deployment controller's status write at `time`.
fn controller(time: &str) -> Value {
    json!({"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1",
        "time": time, "fieldsType": "FieldsV1", "subresource": "status",
        "fieldsV1": {"f:status": {"f:availableReplicas": {}, "f:readyReplicas": {},
            "f:replicas": {}, "f:updatedReplicas": {}}}})
}

/// `kubectl scale --replicas=N` at `time` (through the scale subresource).
fn scale(time: &str) -> Value {
    json!({"manager": "kubectl-scale", "operation": "Update", "apiVersion": "apps/v1",
        "time": time, "fieldsType": "FieldsV1", "subresource": "scale",
        "fieldsV1": {"f:spec": {"f:replicas": {}}}})
}

/// `kubectl set image deploy/web web=…` at `time`.
fn set_image(time: &str) -> Value {
    json!({"manager": "kubectl-set", "operation": "Update", "apiVersion": "apps/v1",
        "time": time, "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {"f:template": {
            "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {"f:image": {}}}}}}}})
}

/// `kubectl label deploy/web tier=…` at `time`.
fn label(time: &str) -> Value {
    json!({"manager": "kubectl-label", "operation": "Update", "apiVersion": "apps/v1",
        "time": time, "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {"f:tier": {}}}}})
}

struct Deploy {
    replicas: u32,
    ready: u32,
    image: &'static str,
    tier: Option<&'static str>,
    managed: Vec<Value>,
}

fn deployment(rv: usize, d: &Deploy) -> String {
    let mut labels = json!({"app": "web"});
    if let Some(t) = d.tier {
        labels["tier"] = json!(t);
    }
    let create: Value = serde_json::from_str(CREATE).expect("fixture");
    let mut managed = vec![create];
    managed.extend(d.managed.iter().cloned());
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": rv.to_string(),
            "labels": labels, "managedFields": managed},
        "spec": {"replicas": d.replicas, "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": d.image}]}}},
        "status": {"replicas": d.ready, "readyReplicas": d.ready}})
    .to_string()
}

/// Record `versions` (JSON as the API server sends them) as a live informer does.
fn record(kind: &str, resource: &str, key: &str, versions: &[String]) -> Timeline {
    let h = History::with_mib(1);
    let decode = crate::render::history_decode_mask(kind);
    let mask = crate::render::history_mask(kind);
    for (i, json) in versions.iter().enumerate() {
        let o = crate::informer::decode::decode_dynamic_masked(json, &decode).expect("decodes");
        assert!(
            o.metadata
                .managed_fields
                .iter()
                .flatten()
                .all(|e| e.fields_v1.is_none() && e.manager.is_some()),
            "the live decoder keeps who wrote, not the fields sets"
        );
        let delta = if i == 0 {
            DeltaType::Replaced
        } else {
            DeltaType::Updated
        };
        h.observe_as_at(resource, &o, mask, Some(delta), 1_000 * i as i64);
    }
    h.timeline(resource, key).expect("recorded")
}

fn deployment_timeline(versions: &[Deploy]) -> Timeline {
    let json: Vec<String> = versions
        .iter()
        .enumerate()
        .map(|(i, d)| deployment(i + 1, d))
        .collect();
    record("Deployment", "deployments.apps", "shop/web", &json)
}

/// Each change of version `i` as `path by`.
fn by(t: &Timeline, i: usize) -> Vec<String> {
    t.versions[i]
        .changes
        .iter()
        .map(|c| {
            let who = c.by.as_deref().map_or("nobody".into(), ToString::to_string);
            format!("{} {who}", c.path)
        })
        .collect()
}

fn created() -> Deploy {
    Deploy {
        replicas: 3,
        ready: 3,
        image: "web:1.4",
        tier: None,
        managed: vec![controller("2026-11-28T10:00:05Z")],
    }
}

#[test]
fn kubectl_scale_is_named_from_the_entry_that_appeared() {
    let scaled = Deploy {
        replicas: 5,
        managed: vec![
            controller("2026-11-28T10:00:05Z"),
            scale("2026-11-28T10:40:00Z"),
        ],
        ..created()
    };
    let t = deployment_timeline(&[created(), scaled]);
    assert_eq!(
        t.versions[1].summary(0),
        "replicas 3→5 · kubectl-scale (Update, scale)"
    );
}

#[test]
fn the_controllers_status_write_is_named_from_the_entry_whose_time_moved() {
    let scaled = || Deploy {
        replicas: 5,
        managed: vec![
            controller("2026-11-28T10:00:05Z"),
            scale("2026-11-28T10:40:00Z"),
        ],
        ..created()
    };
    let caught_up = Deploy {
        ready: 5,
        managed: vec![
            controller("2026-11-28T10:40:02Z"),
            scale("2026-11-28T10:40:00Z"),
        ],
        ..scaled()
    };
    let t = deployment_timeline(&[created(), scaled(), caught_up]);
    assert_eq!(
        by(&t, 2),
        [
            "/status/readyReplicas kube-controller-manager (Update, status)",
            "/status/replicas kube-controller-manager (Update, status)",
        ]
    );
}

#[test]
fn kubectl_set_image_is_named_for_the_image_it_changed() {
    let set = Deploy {
        image: "web:1.5",
        managed: vec![
            controller("2026-11-28T10:00:05Z"),
            set_image("2026-11-28T10:41:00Z"),
        ],
        ..created()
    };
    let t = deployment_timeline(&[created(), set]);
    assert_eq!(
        t.versions[1].summary(0),
        "image web:1.4→web:1.5 · kubectl-set (Update)"
    );
}

#[test]
fn kubectl_label_is_named_for_the_label_it_added_and_again_when_it_changes_it() {
    let labelled = |tier, time| Deploy {
        tier: Some(tier),
        managed: vec![controller("2026-11-28T10:00:05Z"), label(time)],
        ..created()
    };
    let t = deployment_timeline(&[
        created(),
        labelled("web", "2026-11-28T10:42:00Z"),
        labelled("front", "2026-11-28T10:43:00Z"),
    ]);
    assert_eq!(by(&t, 1), ["/metadata/labels/tier kubectl-label (Update)"]);
    assert_eq!(by(&t, 2), ["/metadata/labels/tier kubectl-label (Update)"]);
}

#[test]
fn a_second_write_within_the_same_second_names_the_latest_writer_of_that_kind() {
    // The controller writes status twice in 10:40:02; the times do not move the second time.
    let at = |ready| Deploy {
        replicas: 5,
        ready,
        managed: vec![
            controller("2026-11-28T10:40:02Z"),
            scale("2026-11-28T10:40:02Z"),
        ],
        ..created()
    };
    let t = deployment_timeline(&[created(), at(4), at(5)]);
    assert_eq!(
        by(&t, 2),
        [
            "/status/readyReplicas kube-controller-manager (Update, status)",
            "/status/replicas kube-controller-manager (Update, status)",
        ]
    );
}

#[test]
fn versions_missed_in_between_give_status_and_spec_changes_to_their_own_writers() {
    // A scale and the controller's catch-up both happened between two recorded versions (a
    // relist after the watch broke).
    let both = Deploy {
        replicas: 5,
        ready: 5,
        managed: vec![
            controller("2026-11-28T10:40:02Z"),
            scale("2026-11-28T10:40:00Z"),
        ],
        ..created()
    };
    let t = deployment_timeline(&[created(), both]);
    assert_eq!(
        by(&t, 1),
        [
            "/spec/replicas kubectl-scale (Update, scale)",
            "/status/readyReplicas kube-controller-manager (Update, status)",
            "/status/replicas kube-controller-manager (Update, status)",
        ]
    );
}

/// A pod made by the ReplicaSet controller, its status written by the kubelet at `kubelet`.
fn pod(rv: usize, phase: &str, ready: bool, kubelet: &str, deleting: bool) -> String {
    let mut meta = json!({"name": "web-7d4b9", "namespace": "shop",
        "resourceVersion": rv.to_string(), "labels": {"app": "web"},
        "managedFields": [
            {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
             "time": "2026-11-28T10:41:01Z", "fieldsType": "FieldsV1", "fieldsV1": {
                "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {},
                    "f:image": {}, "f:name": {}}}}}},
            {"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
             "time": kubelet, "fieldsType": "FieldsV1", "subresource": "status",
             "fieldsV1": {"f:status": {"f:conditions": {
                    "k:{\"type\":\"Ready\"}": {".": {}, "f:status": {}, "f:type": {}}},
                "f:containerStatuses": {}, "f:phase": {}, "f:podIP": {}}}}]});
    if deleting {
        meta["deletionTimestamp"] = json!("2026-11-28T10:50:00Z");
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta,
        "spec": {"nodeName": "n1", "containers": [{"name": "web", "image": "web:1.5"}]},
        "status": {"phase": phase, "podIP": "10.244.1.7",
            "containerStatuses": [{"name": "web", "ready": ready, "restartCount": 0}]}})
    .to_string()
}

#[test]
fn the_kubelet_is_named_for_a_pods_status_written_through_the_status_subresource() {
    let t = record(
        "Pod",
        "pods",
        "shop/web-7d4b9",
        &[
            pod(1, "Pending", false, "2026-11-28T10:41:02Z", false),
            pod(2, "Running", true, "2026-11-28T10:41:09Z", false),
        ],
    );
    assert_eq!(
        by(&t, 1),
        [
            "/status/containerStatuses/web/ready kubelet (Update, status)",
            "/status/phase kubelet (Update, status)",
        ]
    );
}

#[test]
fn a_deletion_timestamp_names_nobody() {
    // A DELETE sets it without touching managedFields: no entry moved, and guessing the latest
    // writer would blame the kubelet.
    let t = record(
        "Pod",
        "pods",
        "shop/web-7d4b9",
        &[
            pod(1, "Running", true, "2026-11-28T10:41:09Z", false),
            pod(2, "Running", true, "2026-11-28T10:41:09Z", true),
        ],
    );
    assert_eq!(by(&t, 1), ["/metadata/deletionTimestamp nobody"]);
}
