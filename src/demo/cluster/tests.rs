use super::*;

const CM: ResourceId = ResourceId::new("", "v1", "configmaps");
const PODS: ResourceId = ResourceId::new("", "v1", "pods");
const DEPLOY: ResourceId = ResourceId::new("apps", "v1", "deployments");

fn idx(id: &ResourceId) -> usize {
    resources::find_id(id).unwrap()
}

fn cm(name: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name}, "data": {"v": "1"}})
}

fn rv_of(v: &Value) -> u64 {
    v.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .unwrap()
        .parse()
        .unwrap()
}

fn names(r: &ListResult) -> Vec<&str> {
    r.items.iter().map(|s| s.name.as_str()).collect()
}

fn latest(ns: Option<&str>) -> PageRequest<'_> {
    PageRequest {
        ns,
        at: ReadAt::Latest,
        after: None,
        limit: None,
        continuing: false,
    }
}

#[test]
fn every_write_gets_the_next_global_resource_version() {
    let c = DemoCluster::new(100);
    let start = c.resource_version();
    let a = c
        .apply(Mutation::Create {
            resource: CM,
            object: cm("a"),
        })
        .unwrap();
    let d = c
        .apply(Mutation::Create {
            resource: DEPLOY,
            object: json!({"metadata": {"name": "d", "namespace": "default"}, "spec": {"replicas": 1}}),
        })
        .unwrap();
    assert_eq!(rv_of(&a), start + 1);
    assert_eq!(rv_of(&d), start + 2);
    assert_eq!(d["kind"], "Deployment");
    assert_eq!(d["apiVersion"], "apps/v1");
    assert_eq!(d.pointer("/metadata/generation"), Some(&json!(1)));
    assert!(d.pointer("/metadata/uid").and_then(Value::as_str).is_some());
    assert!(
        d.pointer("/metadata/creationTimestamp")
            .and_then(Value::as_str)
            .is_some()
    );
    assert_eq!(c.resource_version(), start + 2);
}

#[test]
fn a_cordon_survives_the_simulated_node_controllers_status_updates() {
    const NODES: ResourceId = ResourceId::new("", "v1", "nodes");
    let c = DemoCluster::new(100);
    let node = |ready: &str| {
        json!({"metadata": {"name": "n1"},
               "status": {"conditions": [{"type": "Ready", "status": ready}]}})
    };
    c.apply(Mutation::Create {
        resource: NODES,
        object: node("True"),
    })
    .unwrap();
    let mut cordoned = node("True");
    cordoned["spec"] = json!({"unschedulable": true});
    c.apply(Mutation::Update {
        resource: NODES,
        object: cordoned,
    })
    .unwrap();
    let after = c
        .apply(Mutation::Update {
            resource: NODES,
            object: node("False"),
        })
        .unwrap();
    assert_eq!(after.pointer("/spec/unschedulable"), Some(&json!(true)));
    assert_eq!(
        after.pointer("/status/conditions/0/status"),
        Some(&json!("False"))
    );
}

#[test]
fn update_keeps_server_owned_metadata_and_bumps_generation_on_spec_change() {
    let c = DemoCluster::new(100);
    let created = c
        .apply(Mutation::Create {
            resource: DEPLOY,
            object: json!({"metadata": {"name": "d", "namespace": "default"}, "spec": {"replicas": 1}}),
        })
        .unwrap();
    let updated = c
        .apply(Mutation::Update {
            resource: DEPLOY,
            object: json!({"metadata": {"name": "d", "namespace": "default", "uid": "forged"},
                           "spec": {"replicas": 2}}),
        })
        .unwrap();
    assert_eq!(
        updated.pointer("/metadata/uid"),
        created.pointer("/metadata/uid")
    );
    assert_eq!(updated.pointer("/metadata/generation"), Some(&json!(2)));
    assert_eq!(rv_of(&updated), rv_of(&created) + 1);
}

#[test]
fn noop_update_does_not_bump_the_resource_version() {
    let c = DemoCluster::new(100);
    let created = c
        .apply(Mutation::Create {
            resource: CM,
            object: cm("a"),
        })
        .unwrap();
    let again = c
        .apply(Mutation::Update {
            resource: CM,
            object: created.clone(),
        })
        .unwrap();
    assert_eq!(rv_of(&again), rv_of(&created));
    assert_eq!(c.resource_version(), rv_of(&created));
}

#[test]
fn stale_resource_version_on_update_is_a_conflict() {
    let c = DemoCluster::new(100);
    let created = c.create(idx(&CM), Some("default"), cm("a")).unwrap();
    let mut next = created.clone();
    next["data"]["v"] = json!("2");
    c.update(idx(&CM), Some("default"), "a", next, UpdateMode::Full)
        .unwrap();
    let mut stale = created;
    stale["data"]["v"] = json!("3");
    let e = c
        .update(idx(&CM), Some("default"), "a", stale, UpdateMode::Full)
        .unwrap_err();
    assert_eq!((e.code, e.reason), (409, "Conflict"));
}

#[test]
fn create_in_a_missing_namespace_is_not_found() {
    let c = DemoCluster::new(100);
    let e = c.create(idx(&CM), Some("nope"), cm("a")).unwrap_err();
    assert_eq!((e.code, e.reason), (404, "NotFound"));
    assert_eq!(e.message, "namespaces \"nope\" not found");
    let e = c
        .create(
            idx(&CM),
            Some("default"),
            json!({"metadata": {"name": "Bad_Name"}}),
        )
        .unwrap_err();
    assert_eq!(e.code, 422);
}

fn owned_by(mut v: Value, owner: &Value) -> Value {
    v["metadata"]["ownerReferences"] = json!([{"apiVersion": owner["apiVersion"],
        "kind": owner["kind"], "name": owner["metadata"]["name"],
        "uid": owner["metadata"]["uid"]}]);
    v
}

fn scheduled_pod(name: &str, grace: i64) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
        "spec": {"nodeName": "node-a", "terminationGracePeriodSeconds": grace,
            "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running"}})
}

#[test]
fn foreground_deletion_removes_the_owner_after_its_last_dependent() {
    let c = DemoCluster::new(100);
    let owner = c.create(idx(&CM), Some("default"), cm("owner")).unwrap();
    c.create(
        idx(&PODS),
        Some("default"),
        owned_by(scheduled_pod("p", 60), &owner),
    )
    .unwrap();
    let opts = DeleteOptions {
        propagation: Some(Propagation::Foreground),
        ..DeleteOptions::default()
    };
    let marked = c.delete(idx(&CM), Some("default"), "owner", &opts).unwrap();
    let marked = marked.value().unwrap();
    assert!(marked.pointer("/metadata/deletionTimestamp").is_some());
    assert_eq!(finalizers(&marked), ["foregroundDeletion"]);
    // The dependent pod is in its grace period: the owner waits for it.
    let pod = c.get(&PODS, Some("default"), "p").unwrap();
    assert_eq!(pod["metadata"]["deletionGracePeriodSeconds"], json!(60));
    assert!(c.get(&CM, Some("default"), "owner").is_some());
    c.reap_terminated(Instant::now() + Duration::from_secs(61));
    assert!(c.get(&PODS, Some("default"), "p").is_none());
    assert!(
        c.get(&CM, Some("default"), "owner").is_none(),
        "the owner goes with its last dependent"
    );
}

#[test]
fn the_simulator_does_not_update_a_terminating_pod_back() {
    let c = DemoCluster::new(100);
    c.create(idx(&PODS), Some("default"), scheduled_pod("p", 30))
        .unwrap();
    c.delete(idx(&PODS), Some("default"), "p", &DeleteOptions::default())
        .unwrap();
    let mut sim = c.get(&PODS, Some("default"), "p").unwrap();
    sim["metadata"]
        .as_object_mut()
        .unwrap()
        .remove("deletionTimestamp");
    sim["status"]["phase"] = json!("Running");
    sim["status"]["podIP"] = json!("10.0.0.9");
    let before = c.resource_version();
    c.apply(Mutation::Update {
        resource: PODS,
        object: sim,
    })
    .unwrap();
    assert_eq!(
        c.resource_version(),
        before,
        "no write to a terminating pod"
    );
    let pod = c.get(&PODS, Some("default"), "p").unwrap();
    assert!(pod.pointer("/metadata/deletionTimestamp").is_some());
    // Not before the grace period is over.
    c.reap_terminated(Instant::now());
    assert!(c.get(&PODS, Some("default"), "p").is_some());
}

#[test]
fn deleting_a_namespace_deletes_its_contents_first() {
    let c = DemoCluster::new(100);
    c.create(
        RESOURCES_NAMESPACES,
        None,
        json!({"metadata": {"name": "team"}}),
    )
    .unwrap();
    c.create(idx(&CM), Some("team"), cm("x")).unwrap();
    c.create(idx(&CM), Some("default"), cm("y")).unwrap();
    let mut rx = c.subscribe();
    c.delete(
        RESOURCES_NAMESPACES,
        None,
        "team",
        &DeleteOptions::default(),
    )
    .unwrap();
    let first = rx.try_recv().unwrap();
    assert_eq!(
        (first.kind, first.obj.name.as_str()),
        (EventType::Deleted, "x")
    );
    let second = rx.try_recv().unwrap();
    assert_eq!(second.obj.name, "team");
    assert!(c.get(&CM, Some("team"), "x").is_none());
    assert!(c.get(&CM, Some("default"), "y").is_some());
}

#[test]
fn exact_list_rebuilds_the_past_state_from_history() {
    let c = DemoCluster::new(100);
    let i = idx(&CM);
    c.create(i, Some("default"), cm("a")).unwrap();
    c.create(i, Some("default"), cm("b")).unwrap();
    let then = c.resource_version();
    let mut a2 = cm("a");
    a2["data"]["v"] = json!("2");
    c.update(i, Some("default"), "a", a2, UpdateMode::Full)
        .unwrap();
    c.delete(i, Some("default"), "b", &DeleteOptions::default())
        .unwrap();
    c.create(i, Some("default"), cm("c")).unwrap();
    let now = c.list_page(i, &latest(Some("default")), &|_| true).unwrap();
    assert_eq!(names(&now), ["a", "c"]);
    let past = c
        .list_page(
            i,
            &PageRequest {
                at: ReadAt::Exact(then),
                ..latest(Some("default"))
            },
            &|_| true,
        )
        .unwrap();
    assert_eq!(past.rv, then);
    assert_eq!(names(&past), ["a", "b"]);
    assert_eq!(past.items[0].value().unwrap()["data"]["v"], "1");
}

#[test]
fn pages_continue_from_the_last_key_at_the_same_snapshot() {
    let c = DemoCluster::new(100);
    let i = idx(&CM);
    for n in ["a", "b", "c", "d", "e"] {
        c.create(i, Some("default"), cm(n)).unwrap();
    }
    let first = c
        .list_page(
            i,
            &PageRequest {
                limit: Some(2),
                ..latest(None)
            },
            &|_| true,
        )
        .unwrap();
    assert_eq!(names(&first), ["a", "b"]);
    c.delete(i, Some("default"), "c", &DeleteOptions::default())
        .unwrap();
    let (rv, key) = decode_continue(first.continue_token.as_deref().unwrap()).unwrap();
    assert_eq!((rv, key.as_str()), (first.rv, "default/b"));
    let second = c
        .list_page(
            i,
            &PageRequest {
                ns: None,
                at: ReadAt::Exact(rv),
                after: Some(&key),
                limit: Some(2),
                continuing: true,
            },
            &|_| true,
        )
        .unwrap();
    assert_eq!(names(&second), ["c", "d"]);
    assert!(second.continue_token.is_some());
}

#[test]
fn selectors_count_towards_the_limit_but_not_skipped_keys() {
    let c = DemoCluster::new(100);
    let i = idx(&CM);
    for n in ["a", "b", "c", "d"] {
        c.create(i, Some("default"), cm(n)).unwrap();
    }
    let page = c
        .list_page(
            i,
            &PageRequest {
                limit: Some(1),
                ..latest(None)
            },
            &|s| s.name != "a",
        )
        .unwrap();
    assert_eq!(names(&page), ["b"]);
    let (_, key) = decode_continue(page.continue_token.as_deref().unwrap()).unwrap();
    assert_eq!(key, "default/b");
}

#[test]
fn compaction_expires_old_reads_and_watches() {
    let c = DemoCluster::new(3);
    let i = idx(&CM);
    let old = c.resource_version();
    for n in ["a", "b", "c", "d", "e"] {
        c.create(i, Some("default"), cm(n)).unwrap();
    }
    assert!(c.compacted_resource_version() > old);
    let e = c.watch(i, None, Some(old), false).err().unwrap();
    assert_eq!((e.code, e.reason), (410, "Expired"));
    let e = c
        .list_page(
            i,
            &PageRequest {
                at: ReadAt::Exact(old),
                continuing: true,
                ..latest(None)
            },
            &|_| true,
        )
        .unwrap_err();
    assert_eq!(e.code, 410);
    // The retained window still works.
    let w = c
        .watch(i, None, Some(c.compacted_resource_version()), false)
        .unwrap();
    assert_eq!(w.backlog.len(), 3);
}

#[test]
fn watch_backlog_holds_only_this_resource_after_the_rv() {
    let c = DemoCluster::new(100);
    let from = c.resource_version();
    c.create(idx(&CM), Some("default"), cm("a")).unwrap();
    c.apply(Mutation::Create {
        resource: PODS,
        object: json!({"metadata": {"name": "p", "namespace": "default"}}),
    })
    .unwrap();
    c.create(idx(&CM), Some("default"), cm("b")).unwrap();
    let w = c.watch(idx(&CM), None, Some(from), false).unwrap();
    let got: Vec<&str> = w.backlog.iter().map(|e| e.obj.name.as_str()).collect();
    assert_eq!(got, ["a", "b"]);
    assert_eq!(w.rv, c.resource_version());
    assert!(w.initial.is_empty());
}

#[test]
fn garbage_continue_tokens_are_bad_requests() {
    for t in [
        "",
        "!!!",
        "e30=",
        "eyJ2IjoieCIsInJ2IjoxLCJzdGFydCI6ImEifQ==",
    ] {
        let e = decode_continue(t).unwrap_err();
        assert_eq!(e.code, 400, "{t}");
    }
}

#[test]
fn pod_fields_are_extracted_for_field_selectors() {
    let c = DemoCluster::new(100);
    c.apply(Mutation::Create {
        resource: PODS,
        object: json!({"metadata": {"name": "p", "namespace": "default"},
            "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}}),
    })
    .unwrap();
    let s = c.get_stored(idx(&PODS), Some("default"), "p").unwrap();
    assert_eq!(s.field("spec.nodeName"), Some("n1"));
    assert_eq!(s.field("status.phase"), Some("Running"));
    assert_eq!(s.field("metadata.namespace"), Some("default"));
    assert_eq!(s.field("status.podIP"), None);
}

fn owner_of(v: &Value, path: &str) -> String {
    let entries: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry> =
        serde_json::from_value(v["metadata"]["managedFields"].clone()).unwrap_or_default();
    crate::informer::history::Ownership::of(&entries)
        .owner(path)
        .map_or("nobody".into(), |w| w.writer.to_string())
}

#[test]
fn client_writes_are_recorded_in_managed_fields_and_the_simulated_kubelet_after_them() {
    let c = DemoCluster::new(100);
    let pod = json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "web:1.4"}]},
        "status": {"phase": "Pending"}});
    // The simulator's objects are stored as sent.
    let created = c.create(idx(&PODS), Some("default"), pod).unwrap();
    assert!(created.pointer("/metadata/managedFields").is_none());
    let label = FieldManager::new("kubectl-label", "");
    let labelled = c
        .patch_by(
            idx(&PODS),
            Some("default"),
            "web",
            PatchType::Merge,
            &json!({"metadata": {"labels": {"tier": "front"}}}),
            UpdateMode::Spec,
            Some(&label),
        )
        .unwrap();
    assert_eq!(
        owner_of(&labelled, "/metadata/labels/tier"),
        "kubectl-label (Update)"
    );
    // The simulator's next status write is the kubelet's, and the label stays kubectl's.
    let mut running = labelled.clone();
    running["status"]["phase"] = json!("Running");
    if let Some(m) = running["metadata"].as_object_mut() {
        m.remove("managedFields");
    }
    let updated = c
        .apply(Mutation::Update {
            resource: PODS,
            object: running,
        })
        .unwrap();
    assert_eq!(
        owner_of(&updated, "/status/phase"),
        "kubelet (Update, status)"
    );
    assert_eq!(
        owner_of(&updated, "/metadata/labels/tier"),
        "kubectl-label (Update)"
    );
}
