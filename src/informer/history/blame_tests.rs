use super::*;
use serde_json::json;

fn entries(v: Value) -> Vec<ManagedFieldsEntry> {
    serde_json::from_value(v).expect("managedFields fixture")
}

/// A Deployment's managedFields as kube-apiserver keeps them after `kubectl create`,
/// `kubectl scale --replicas=5` (through the scale subresource), `kubectl set image`,
/// `kubectl label` and the deployment controller's status writes.
fn deployment() -> Vec<ManagedFieldsEntry> {
    entries(json!([
        {"manager": "kubectl-create", "operation": "Update", "apiVersion": "apps/v1",
         "time": "2026-11-28T10:00:00Z", "fieldsType": "FieldsV1", "fieldsV1": {
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:progressDeadlineSeconds": {}, "f:revisionHistoryLimit": {},
                "f:selector": {}, "f:strategy": {"f:rollingUpdate": {".": {},
                    "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
                "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
                    "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {},
                        "f:imagePullPolicy": {}, "f:name": {}, "f:resources": {},
                        "f:terminationMessagePath": {}}},
                        "f:dnsPolicy": {}, "f:restartPolicy": {}}}}}},
        {"manager": "kubectl-scale", "operation": "Update", "apiVersion": "apps/v1",
         "time": "2026-11-28T10:40:00Z", "fieldsType": "FieldsV1", "subresource": "scale",
         "fieldsV1": {"f:spec": {"f:replicas": {}}}},
        {"manager": "kubectl-set", "operation": "Update", "apiVersion": "apps/v1",
         "time": "2026-11-28T10:41:00Z", "fieldsType": "FieldsV1", "fieldsV1": {
            "f:spec": {"f:template": {"f:spec": {"f:containers": {
                "k:{\"name\":\"web\"}": {"f:image": {}}}}}}}},
        {"manager": "kubectl-label", "operation": "Update", "apiVersion": "apps/v1",
         "time": "2026-11-28T10:42:00Z", "fieldsType": "FieldsV1", "fieldsV1": {
            "f:metadata": {"f:labels": {"f:tier": {}}}}},
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1",
         "time": "2026-11-28T10:42:13Z", "fieldsType": "FieldsV1", "subresource": "status",
         "fieldsV1": {"f:metadata": {"f:annotations": {".": {},
                "f:deployment.kubernetes.io/revision": {}}},
            "f:status": {"f:availableReplicas": {}, "f:conditions": {".": {},
                "k:{\"type\":\"Available\"}": {".": {}, "f:lastTransitionTime": {},
                    "f:lastUpdateTime": {}, "f:message": {}, "f:reason": {}, "f:status": {},
                    "f:type": {}}},
                "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {},
                "f:updatedReplicas": {}}}}
    ]))
}

/// A Pod's managedFields: created by the ReplicaSet controller, status written by the kubelet
/// (conditions keyed by type, `containerStatuses` atomic, podIPs keyed by ip).
fn pod() -> Vec<ManagedFieldsEntry> {
    entries(json!([
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
         "time": "2026-11-28T10:41:01Z", "fieldsType": "FieldsV1", "fieldsV1": {
            "f:metadata": {"f:generateName": {}, "f:labels": {".": {}, "f:app": {},
                "f:pod-template-hash": {}},
                "f:ownerReferences": {".": {}, "k:{\"uid\":\"6f1c\"}": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {},
                "f:name": {}, "f:ports": {".": {},
                    "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {".": {},
                        "f:containerPort": {}, "f:protocol": {}}}}}}}},
        {"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
         "time": "2026-11-28T10:41:09Z", "fieldsType": "FieldsV1", "subresource": "status",
         "fieldsV1": {"f:status": {"f:conditions": {
                "k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {},
                    "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {},
                    "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
            "f:containerStatuses": {}, "f:hostIP": {}, "f:phase": {}, "f:podIP": {},
            "f:podIPs": {".": {}, "k:{\"ip\":\"10.244.1.7\"}": {".": {}, "f:ip": {}}},
            "f:startTime": {}}}}
    ]))
}

fn owner(o: &Ownership, path: &str) -> String {
    o.owner(path)
        .map_or("nobody".into(), |w| w.writer.to_string())
}

#[test]
fn kubectl_scale_owns_the_replicas_through_the_scale_subresource() {
    let o = Ownership::of(&deployment());
    assert_eq!(owner(&o, "/spec/replicas"), "kubectl-scale (Update, scale)");
}

#[test]
fn kubectl_set_image_owns_the_image_of_the_container_it_named() {
    let o = Ownership::of(&deployment());
    assert_eq!(
        owner(&o, "/spec/template/spec/containers/web/image"),
        "kubectl-set (Update)"
    );
    // The container's other fields stay with their creator.
    assert_eq!(
        owner(&o, "/spec/template/spec/containers/web/imagePullPolicy"),
        "kubectl-create (Update)"
    );
}

#[test]
fn kubectl_label_owns_the_label_it_added_and_not_the_others() {
    let o = Ownership::of(&deployment());
    assert_eq!(owner(&o, "/metadata/labels/tier"), "kubectl-label (Update)");
    assert_eq!(owner(&o, "/metadata/labels/app"), "kubectl-create (Update)");
}

#[test]
fn a_controllers_status_write_owns_the_status_counts_and_conditions() {
    let o = Ownership::of(&deployment());
    assert_eq!(
        owner(&o, "/status/readyReplicas"),
        "kube-controller-manager (Update, status)"
    );
    assert_eq!(
        owner(&o, "/status/conditions/Available/status"),
        "kube-controller-manager (Update, status)"
    );
    assert_eq!(
        owner(
            &o,
            "/metadata/annotations/deployment.kubernetes.io~1revision"
        ),
        "kube-controller-manager (Update, status)"
    );
}

#[test]
fn the_kubelet_owns_a_pods_status_and_everything_under_its_atomic_container_statuses() {
    let o = Ownership::of(&pod());
    assert_eq!(owner(&o, "/status/phase"), "kubelet (Update, status)");
    assert_eq!(
        owner(&o, "/status/containerStatuses/web/restartCount"),
        "kubelet (Update, status)"
    );
    assert_eq!(
        owner(&o, "/status/conditions/Ready/status"),
        "kubelet (Update, status)"
    );
    assert_eq!(
        owner(&o, "/spec/containers/web/image"),
        "kube-controller-manager (Update)"
    );
    assert_eq!(owner(&o, "/spec/nodeName"), "nobody");
}

#[test]
fn fields_are_grouped_by_writer_with_the_latest_write_first() {
    let groups = Ownership::of(&deployment()).groups();
    let order: Vec<String> = groups.iter().map(|g| g.write.writer.to_string()).collect();
    assert_eq!(
        order,
        [
            "kube-controller-manager (Update, status)",
            "kubectl-label (Update)",
            "kubectl-set (Update)",
            "kubectl-scale (Update, scale)",
            "kubectl-create (Update)",
        ]
    );
    assert_eq!(groups[3].fields, ["/spec/replicas"]);
    assert_eq!(groups[3].write.at, Some(1_795_860_000 + 40 * 60));
}

#[test]
fn a_malformed_fields_set_owns_nothing_and_does_not_panic() {
    let o = Ownership::of(&entries(json!([
        {"manager": "odd", "operation": "Apply",
         "fieldsV1": {"x:what": {}, "k:{not json": {"f:a": {}}, "f:spec": "not a set"}}
    ])));
    assert_eq!(owner(&o, "/spec"), "nobody");
    assert_eq!(o.groups()[0].fields, Vec::<String>::new());
}

/// A Deployment as kube-apiserver sends it, with its managedFields.
fn deployment_object(
    rv: &str,
    replicas: u32,
    image: &str,
    managed: Value,
) -> kube::api::DynamicObject {
    serde_json::from_value(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": rv,
            "labels": {"app": "web"}, "managedFields": managed},
        "spec": {"replicas": replicas, "template": {"spec": {"containers": [
            {"name": "web", "image": image}]}}}}))
    .expect("fixture")
}

#[test]
fn a_recorded_change_names_the_manager_that_owns_the_field() {
    use crate::informer::delta_fifo::DeltaType;
    let h = super::super::History::with_mib(1);
    let mask = crate::render::history_mask("Deployment");
    let created = json!([deployment_managed()[0].clone()]);
    let mut scaled = created.clone();
    if let Some(a) = scaled.as_array_mut() {
        a.push(deployment_managed()[1].clone());
    }
    let mut set = scaled.clone();
    if let Some(a) = set.as_array_mut() {
        a.push(deployment_managed()[2].clone());
    }
    let versions = [
        deployment_object("1", 3, "web:1.4", created),
        deployment_object("2", 5, "web:1.4", scaled),
        deployment_object("3", 5, "web:1.5", set),
    ];
    for (i, o) in versions.iter().enumerate() {
        h.observe_as_at(
            "deployments.apps",
            o,
            mask,
            Some(DeltaType::Updated),
            i as i64,
        );
    }
    let t = h
        .timeline("deployments.apps", "shop/web")
        .expect("recorded");
    assert_eq!(
        t.versions[1].summary(0),
        "replicas 3→5 · kubectl-scale (Update, scale)"
    );
    assert_eq!(
        t.versions[2].summary(0),
        "image web:1.4→web:1.5 · kubectl-set (Update)"
    );
    let by = t.versions[2].changes[0]
        .by
        .as_deref()
        .map(ToString::to_string);
    assert_eq!(by.as_deref(), Some("kubectl-set (Update)"));
}

#[test]
fn a_change_recorded_without_managed_fields_names_nobody() {
    use crate::informer::delta_fifo::DeltaType;
    let h = super::super::History::with_mib(1);
    let mask = crate::render::history_mask("Deployment");
    for (i, n) in [3, 5].into_iter().enumerate() {
        let mut o = deployment_object(&format!("{i}"), n, "web:1.4", json!([]));
        o.metadata.managed_fields = None;
        h.observe_as_at(
            "deployments.apps",
            &o,
            mask,
            Some(DeltaType::Updated),
            i as i64,
        );
    }
    let t = h
        .timeline("deployments.apps", "shop/web")
        .expect("recorded");
    assert_eq!(t.versions[1].summary(0), "replicas 3→5");
    assert!(t.versions[1].changes.iter().all(|c| c.by.is_none()));
}

/// [`deployment`]'s entries as JSON.
fn deployment_managed() -> Vec<Value> {
    deployment()
        .iter()
        .map(|e| serde_json::to_value(e).expect("serializes"))
        .collect()
}

#[test]
fn a_list_item_keyed_by_other_fields_than_a_name_is_named_by_them() {
    let o = Ownership::of(&pod());
    let fields: Vec<String> = o.groups().into_iter().flat_map(|g| g.fields).collect();
    for want in [
        "/metadata/ownerReferences/uid=6f1c",
        "/spec/containers/web/ports/containerPort=8080,protocol=TCP/protocol",
        "/status/podIPs/ip=10.244.1.7/ip",
    ] {
        assert!(fields.iter().any(|f| f == want), "{want} in {fields:?}");
    }
}
