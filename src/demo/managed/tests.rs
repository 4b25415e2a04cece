use super::*;
use crate::demo::DemoCluster;
use crate::demo::cluster::{ApplyRequest, UpdateMode};
use crate::demo::resources;

const NOW: &str = "2026-11-28T18:00:00Z";

fn fields_of(obj: &Value, manager: &str, operation: &str) -> Value {
    obj.pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .and_then(|a| {
            a.iter()
                .find(|e| e["manager"] == manager && e["operation"] == operation)
        })
        .map(|e| e["fieldsV1"].clone())
        .unwrap_or(Value::Null)
}

fn cm(data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": "cfg", "namespace": "default"}, "data": data})
}

#[test]
fn a_create_owns_what_it_adds_with_the_new_maps_themselves() {
    let mut v = cm(json!({"a": "1"}));
    v["metadata"]["labels"] = json!({"app": "web"});
    record_update(None, &mut v, "kubectl-create", None, false, NOW);
    assert_eq!(
        fields_of(&v, "kubectl-create", "Update"),
        json!({"f:data": {".": {}, "f:a": {}},
               "f:metadata": {"f:labels": {".": {}, "f:app": {}}}})
    );
    let e = &v["metadata"]["managedFields"][0];
    assert_eq!(e["apiVersion"], "v1");
    assert_eq!(e["fieldsType"], "FieldsV1");
    assert_eq!(e["time"], NOW);
}

#[test]
fn an_apply_owns_exactly_its_configuration_with_keyed_list_elements() {
    let config = json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [
            {"name": "web", "image": "web:1", "args": ["-v"]}]}}}});
    let v = apply(None, &config, "kinformer", false, true, NOW).unwrap();
    assert_eq!(
        fields_of(&v, "kinformer", "Apply"),
        json!({"f:metadata": {"f:labels": {"f:app": {}}},
        "f:spec": {"f:replicas": {}, "f:template": {"f:spec": {"f:containers": {
            "k:{\"name\":\"web\"}": {".": {}, "f:args": {}, "f:image": {}, "f:name": {}}
        }}}}})
    );
}

#[test]
fn an_apply_changing_another_managers_field_conflicts_unless_forced() {
    let mut live = cm(json!({"a": "1", "b": "2"}));
    record_update(None, &mut live, "kubectl-edit", None, false, NOW);
    let config = cm(json!({"a": "9"}));
    let err = apply(Some(&live), &config, "kinformer", false, false, NOW).unwrap_err();
    assert_eq!(err.code, 409);
    assert_eq!(err.reason, "Conflict");
    assert_eq!(
        err.message,
        "Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.a"
    );
    assert_eq!(
        err.details,
        Some(json!({"causes": [{"reason": "FieldManagerConflict",
            "message": "conflict with \"kubectl-edit\" using v1", "field": ".data.a"}]}))
    );
    let forced = apply(Some(&live), &config, "kinformer", true, false, NOW).unwrap();
    assert_eq!(forced["data"], json!({"a": "9", "b": "2"}));
    assert_eq!(
        fields_of(&forced, "kinformer", "Apply"),
        json!({"f:data": {"f:a": {}}})
    );
    assert_eq!(
        fields_of(&forced, "kubectl-edit", "Update"),
        json!({"f:data": {".": {}, "f:b": {}}})
    );
}

#[test]
fn several_conflicts_are_listed_by_manager() {
    let mut live = cm(json!({"a": "1", "b": "2"}));
    record_update(None, &mut live, "kubectl-edit", None, false, NOW);
    let err = apply(
        Some(&live),
        &cm(json!({"a": "9", "b": "8"})),
        "kinformer",
        false,
        false,
        NOW,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "Apply failed with 2 conflicts: conflicts with \"kubectl-edit\" using v1:\n- .data.a\n- .data.b"
    );
}

#[test]
fn applying_the_value_another_manager_set_shares_the_field_without_conflict() {
    let mut live = cm(json!({"a": "1"}));
    record_update(None, &mut live, "kubectl-edit", None, false, NOW);
    let v = apply(
        Some(&live),
        &cm(json!({"a": "1"})),
        "kinformer",
        false,
        false,
        NOW,
    )
    .unwrap();
    assert_eq!(
        fields_of(&v, "kinformer", "Apply"),
        json!({"f:data": {"f:a": {}}})
    );
    assert_eq!(
        fields_of(&v, "kubectl-edit", "Update"),
        json!({"f:data": {".": {}, "f:a": {}}})
    );
}

#[test]
fn a_field_no_longer_applied_goes_unless_another_manager_owns_it() {
    let first = apply(
        None,
        &cm(json!({"a": "1", "b": "2"})),
        "kinformer",
        false,
        false,
        NOW,
    )
    .unwrap();
    let mut edited = first.clone();
    edited["data"]["c"] = json!("3");
    record_update(Some(&first), &mut edited, "kubectl-edit", None, false, NOW);
    let second = apply(
        Some(&edited),
        &cm(json!({"a": "1"})),
        "kinformer",
        false,
        false,
        NOW,
    )
    .unwrap();
    assert_eq!(second["data"], json!({"a": "1", "c": "3"}));
}

#[test]
fn the_first_apply_to_an_unmanaged_object_conflicts_with_before_first_apply() {
    let live = cm(json!({"a": "1"}));
    let err = apply(
        Some(&live),
        &cm(json!({"a": "2"})),
        "kinformer",
        false,
        false,
        NOW,
    )
    .unwrap_err();
    assert_eq!(
        err.message,
        "Apply failed with 1 conflict: conflict with \"before-first-apply\" using v1: .data.a"
    );
}

#[test]
fn an_apply_body_with_managed_fields_is_refused() {
    let mut config = cm(json!({}));
    config["metadata"]["managedFields"] = json!([]);
    let err = apply(None, &config, "kinformer", false, false, NOW).unwrap_err();
    assert_eq!(err.code, 400);
    assert_eq!(err.message, "metadata.managedFields must be nil");
}

#[test]
fn fields_v1_reads_back_what_it_wrote() {
    let v1 = json!({"f:data": {".": {}, "f:a": {}},
        "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {}}}}});
    let set = FieldSet::from_fields_v1(&v1);
    assert_eq!(set.to_fields_v1(), v1);
    assert!(set.contains(&[Elem::Field("data".into())]));
    assert_eq!(
        set.paths()
            .iter()
            .map(|p| path_string(p))
            .collect::<Vec<_>>(),
        [
            ".data",
            ".data.a",
            ".spec.containers[name=\"web\"]",
            ".spec.containers[name=\"web\"].image"
        ]
    );
}

fn cm_idx() -> usize {
    resources::find("", "v1", "configmaps").unwrap()
}

#[test]
fn dry_runs_answer_the_result_and_change_nothing() {
    let c = DemoCluster::new(100);
    let i = cm_idx();
    let dry = WriteOptions {
        manager: Some("kubectl-create".into()),
        dry_run: true,
        subresource: None,
    };
    let rv = c.resource_version();
    let created = c
        .create_with(i, Some("default"), cm(json!({"a": "1"})), &dry)
        .unwrap();
    assert_eq!(created.pointer("/metadata/resourceVersion"), None);
    assert!(created.pointer("/metadata/uid").is_some());
    assert_eq!(
        fields_of(&created, "kubectl-create", "Update"),
        json!({"f:data": {".": {}, "f:a": {}}})
    );
    assert_eq!(c.resource_version(), rv);
    assert!(c.get_stored(i, Some("default"), "cfg").is_err());

    let real = WriteOptions {
        dry_run: false,
        ..dry.clone()
    };
    let stored = c
        .create_with(i, Some("default"), cm(json!({"a": "1"})), &real)
        .unwrap();
    let rv = c.resource_version();
    let mut next = stored.clone();
    next["data"]["a"] = json!("2");
    let updated = c
        .update_with(i, Some("default"), "cfg", next, UpdateMode::Full, &dry)
        .unwrap();
    assert_eq!(updated["data"]["a"], "2");
    assert_eq!(updated["metadata"]["resourceVersion"], rv.to_string());
    let applied = c
        .server_side_apply(
            i,
            Some("default"),
            "cfg",
            cm(json!({"a": "3"})),
            ApplyRequest {
                manager: "kinformer",
                force: true,
                dry_run: true,
            },
            UpdateMode::Full,
        )
        .unwrap();
    assert_eq!(applied.0["data"]["a"], "3");
    assert!(!applied.1);
    assert_eq!(c.resource_version(), rv);
    let kept = c
        .get_stored(i, Some("default"), "cfg")
        .unwrap()
        .value()
        .unwrap();
    assert_eq!(kept["data"]["a"], "1");
}

#[test]
fn a_server_side_apply_creates_then_updates_and_a_no_op_keeps_the_version() {
    let c = DemoCluster::new(100);
    let i = cm_idx();
    let req = ApplyRequest {
        manager: "kinformer",
        force: false,
        dry_run: false,
    };
    let (v, created) = c
        .server_side_apply(
            i,
            Some("default"),
            "cfg",
            cm(json!({"a": "1"})),
            req,
            UpdateMode::Full,
        )
        .unwrap();
    assert!(created);
    let rv = v["metadata"]["resourceVersion"].clone();
    let (again, created) = c
        .server_side_apply(
            i,
            Some("default"),
            "cfg",
            cm(json!({"a": "1"})),
            req,
            UpdateMode::Full,
        )
        .unwrap();
    assert!(!created);
    assert_eq!(again["metadata"]["resourceVersion"], rv);
    let (changed, _) = c
        .server_side_apply(
            i,
            Some("default"),
            "cfg",
            cm(json!({"a": "2"})),
            req,
            UpdateMode::Full,
        )
        .unwrap();
    assert_ne!(changed["metadata"]["resourceVersion"], rv);
    assert_eq!(changed["data"]["a"], "2");
}

/// `manager (operation, subresource)` of each entry of `obj`.
fn writers(obj: &Value) -> Vec<String> {
    obj.pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|e| {
                    format!(
                        "{} ({}, {})",
                        e["manager"].as_str().unwrap_or(""),
                        e["operation"].as_str().unwrap_or(""),
                        e["subresource"].as_str().unwrap_or("")
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_simulators_writes_are_recorded_as_the_controller_and_the_kubelet_that_make_them() {
    use crate::demo::mutation::Mutation;
    use crate::demo::objects::{DEPLOYMENTS, PODS};
    let c = DemoCluster::new(100);
    let pod = |phase: &str| {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "default",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web-5d8f", "uid": "u-1", "controller": true}]},
            "spec": {"containers": [{"name": "web", "image": "web:1.4"}]},
            "status": {"phase": phase}})
    };
    let created = c
        .apply(Mutation::Create {
            resource: PODS,
            object: pod("Pending"),
        })
        .unwrap();
    assert_eq!(writers(&created), ["kube-controller-manager (Update, )"]);
    let running = c
        .apply(Mutation::Update {
            resource: PODS,
            object: pod("Running"),
        })
        .unwrap();
    assert_eq!(
        writers(&running),
        [
            "kube-controller-manager (Update, )",
            "kubelet (Update, status)"
        ]
    );
    let kubelet = running["metadata"]["managedFields"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["manager"] == "kubelet"))
        .map(|e| e["fieldsV1"].clone())
        .unwrap_or_default();
    assert_eq!(kubelet, json!({"f:status": {"f:phase": {}}}));

    let deployment = |ready: u32| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "default", "generation": 1},
            "spec": {"replicas": 2, "template": {"spec": {"containers": [
                {"name": "web", "image": "web:1.4"}]}}},
            "status": {"observedGeneration": 1, "readyReplicas": ready}})
    };
    let created = c
        .apply(Mutation::Create {
            resource: DEPLOYMENTS,
            object: deployment(0),
        })
        .unwrap();
    assert_eq!(writers(&created), ["kubectl-client-side-apply (Update, )"]);
    let ready = c
        .apply(Mutation::Update {
            resource: DEPLOYMENTS,
            object: deployment(2),
        })
        .unwrap();
    assert!(
        writers(&ready).contains(&"kube-controller-manager (Update, status)".to_string()),
        "{:?}",
        writers(&ready)
    );
}

#[test]
fn a_write_through_status_owns_status_fields_only_not_the_node_it_was_scheduled_to() {
    use crate::demo::mutation::Mutation;
    use crate::demo::objects::PODS;
    let c = DemoCluster::new(100);
    let pod = |node: Option<&str>, phase: &str| {
        let mut p = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "default",
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                    "name": "web-5d8f", "uid": "u-1", "controller": true}]},
            "spec": {"containers": [{"name": "web", "image": "web:1.4"}]},
            "status": {"phase": phase}});
        if let Some(n) = node {
            p["spec"]["nodeName"] = json!(n);
        }
        p
    };
    c.apply(Mutation::Create {
        resource: PODS,
        object: pod(None, "Pending"),
    })
    .unwrap();
    // The simulator schedules and starts it in one write, recorded as the kubelet's status
    // write: the kubelet may not write the spec (a status write keeps it), so it owns none of
    // it; kube-apiserver's binding (the scheduler's) records no owner for `spec.nodeName`.
    let running = c
        .apply(Mutation::Update {
            resource: PODS,
            object: pod(Some("node-1"), "Running"),
        })
        .unwrap();
    assert_eq!(running["spec"]["nodeName"], "node-1");
    assert_eq!(
        fields_of(&running, "kubelet", "Update"),
        json!({"f:status": {"f:phase": {}}})
    );
}
