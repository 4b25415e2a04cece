use super::*;
use crate::informer::delta_fifo::{DeletedFinalStateUnknown, Delta, DeltaObject};
use crate::informer::store::meta_namespace_key;
use serde_json::json;

fn obj(v: serde_json::Value) -> DynamicObject {
    serde_json::from_value(v).expect("fixture is an object")
}

fn pod(rv: &str, phase: &str, restarts: u32, last_reason: Option<&str>) -> DynamicObject {
    let mut status = json!({"phase": phase, "containerStatuses": [
        {"name": "web", "restartCount": restarts, "ready": phase == "Running"}]});
    if let Some(r) = last_reason {
        status["containerStatuses"][0]["lastState"] =
            json!({"terminated": {"reason": r, "exitCode": 137}});
    }
    obj(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "shop", "resourceVersion": rv,
            "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "web:1.4"}]},
        "status": status}))
}

fn deploy(rv: &str, image: &str, replicas: u32, labels: serde_json::Value) -> DynamicObject {
    obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop", "resourceVersion": rv, "labels": labels},
        "spec": {"replicas": replicas, "template": {"spec": {"containers": [
            {"name": "web", "image": image, "env": [{"name": "MODE", "value": "fast"}]}]}}}}))
}

fn pod_mask() -> Mask {
    crate::render::history_mask("Pod")
}

fn deploy_mask() -> Mask {
    crate::render::history_mask("Deployment")
}

fn delta(kind: DeltaType, o: &DynamicObject) -> Delta<DynamicObject> {
    Delta {
        kind,
        object: DeltaObject::Object(Arc::new(o.clone())),
    }
}

/// Observe `versions` in order (each popped as `kinds[i]`), return the last timeline.
fn record(
    h: &History,
    resource: &str,
    mask: Mask,
    versions: &[(DeltaType, DynamicObject)],
) -> Timeline {
    for (i, (kind, o)) in versions.iter().enumerate() {
        h.observe_at(resource, o, mask, 1_000 * i as i64);
        let key = meta_namespace_key(o).expect("key");
        h.popped_at(resource, &key, &[delta(*kind, o)], 1_000 * i as i64);
    }
    let key = meta_namespace_key(&versions[0].1).expect("key");
    h.timeline(resource, &key).expect("history held")
}

#[test]
fn crash_loop_summary_names_restarts_and_the_termination_reason() {
    let h = History::with_mib(1);
    let t = record(
        &h,
        "pods",
        pod_mask(),
        &[
            (DeltaType::Added, pod("1", "Pending", 3, None)),
            (
                DeltaType::Updated,
                pod("2", "Running", 4, Some("OOMKilled")),
            ),
        ],
    );
    assert_eq!(t.versions.len(), 2);
    assert_eq!(
        t.versions[0].summary(t.state_at(0).len()),
        "first seen (5 fields tracked)"
    );
    assert_eq!(
        t.versions[1].summary(0),
        "status.phase Pending→Running, restartCount 3→4, lastState.terminated.reason OOMKilled, \
         ready false→true, exitCode 137"
    );
    assert_eq!(t.versions[1].delta_label(), "Updated");
}

#[test]
fn rollout_summary_names_the_image_and_an_env_change() {
    let h = History::with_mib(1);
    let mut v2 = deploy("2", "web:1.5", 3, json!({"app": "web"}));
    v2.data["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = json!("safe");
    let t = record(
        &h,
        "deployments.apps",
        deploy_mask(),
        &[
            (
                DeltaType::Added,
                deploy("1", "web:1.4", 3, json!({"app": "web"})),
            ),
            (DeltaType::Updated, v2),
        ],
    );
    assert_eq!(t.versions[1].summary(0), "image web:1.4→web:1.5, env MODE");
}

#[test]
fn scale_and_label_change_summaries() {
    let h = History::with_mib(1);
    let t = record(
        &h,
        "deployments.apps",
        deploy_mask(),
        &[
            (
                DeltaType::Replaced,
                deploy("1", "web:1", 3, json!({"app": "web"})),
            ),
            (
                DeltaType::Updated,
                deploy("2", "web:1", 5, json!({"app": "web"})),
            ),
            (
                DeltaType::Updated,
                deploy("3", "web:1", 5, json!({"app": "web", "canary": "true"})),
            ),
        ],
    );
    assert_eq!(t.versions[0].delta_label(), "Replaced");
    assert_eq!(t.versions[1].summary(0), "replicas 3→5");
    assert_eq!(t.versions[2].summary(0), "labels +canary=true");
}

#[test]
fn deletion_is_recorded_and_the_history_kept_with_tombstones_marked() {
    let h = History::with_mib(1);
    let p1 = pod("1", "Running", 0, None);
    h.observe_at("pods", &p1, pod_mask(), 0);
    h.popped_at("pods", "shop/web-1", &[delta(DeltaType::Added, &p1)], 0);
    // A relist found it gone: a tombstone carrying the last known state.
    let tomb = [Delta {
        kind: DeltaType::Deleted,
        object: DeltaObject::Tombstone(DeletedFinalStateUnknown {
            key: "shop/web-1".into(),
            obj: Some(Arc::new(p1.clone())),
        }),
    }];
    h.popped_at("pods", "shop/web-1", &tomb, 5_000);
    let t = h
        .timeline("pods", "shop/web-1")
        .expect("kept after deletion");
    assert!(t.deleted);
    assert_eq!(t.versions.len(), 2);
    assert_eq!(t.versions[1].delta_label(), "Deleted†");
    assert!(t.versions[1].summary(0).starts_with("deleted (tombstone"));
    // A second delete notification for the same object adds nothing.
    h.popped_at("pods", "shop/web-1", &tomb, 6_000);
    assert_eq!(
        h.timeline("pods", "shop/web-1").map(|t| t.versions.len()),
        Some(2)
    );
}

#[test]
fn watch_deletion_names_the_final_version_deleted() {
    let h = History::with_mib(1);
    let t = record(
        &h,
        "pods",
        pod_mask(),
        &[
            (DeltaType::Added, pod("1", "Running", 0, None)),
            (DeltaType::Deleted, pod("2", "Succeeded", 0, None)),
        ],
    );
    assert!(t.deleted);
    assert_eq!(t.versions[1].delta_label(), "Deleted");
    assert_eq!(
        t.versions[1].summary(0),
        "deleted, status.phase Running→Succeeded, ready true→false"
    );
}

#[test]
fn the_same_resource_version_twice_records_once() {
    let h = History::with_mib(1);
    let p = pod("7", "Running", 0, None);
    h.observe_at("pods", &p, pod_mask(), 0);
    h.observe_at("pods", &p, pod_mask(), 1);
    h.popped_at("pods", "shop/web-1", &[delta(DeltaType::Sync, &p)], 1);
    let t = h.timeline("pods", "shop/web-1").expect("held");
    assert_eq!(t.versions.len(), 1);
    assert_eq!(t.versions[0].delta_label(), "Sync");
}

#[test]
fn state_at_undoes_later_changes() {
    let h = History::with_mib(1);
    let t = record(
        &h,
        "pods",
        pod_mask(),
        &[
            (DeltaType::Added, pod("1", "Pending", 0, None)),
            (DeltaType::Updated, pod("2", "Running", 1, None)),
            (DeltaType::Updated, pod("3", "Failed", 2, Some("Error"))),
        ],
    );
    let s0 = t.state_at(0);
    assert_eq!(s0.get("/status/phase").map(String::as_str), Some("Pending"));
    assert_eq!(
        s0.get("/status/containerStatuses/web/restartCount")
            .map(String::as_str),
        Some("0")
    );
    assert!(!s0.contains_key("/status/containerStatuses/web/lastState/terminated/reason"));
    assert_eq!(t.state_at(2), t.latest);
    assert_eq!(t.state_before(0), BTreeMap::new());
    let diff = unified_diff(&t.state_at(0), &t.state_at(1));
    assert!(diff.contains(&DiffLine::Removed("status.phase: Pending".into())));
    assert!(diff.contains(&DiffLine::Added("status.phase: Running".into())));
    assert!(matches!(diff.first(), Some(DiffLine::Hunk(_))));
}

#[test]
fn long_values_are_recorded_as_a_hash() {
    let h = History::with_mib(1);
    let long = "x".repeat(500);
    let mut d = deploy("1", "web:1", 1, json!({}));
    d.data["spec"]["template"]["spec"]["containers"][0]["env"][0]["value"] = json!(long);
    h.observe_at("deployments.apps", &d, deploy_mask(), 0);
    let t = h.timeline("deployments.apps", "shop/web").expect("held");
    let v = t
        .latest
        .get("/spec/template/spec/containers/web/env/MODE/value")
        .expect("tracked");
    assert!(v.starts_with('#') && v.ends_with("(500 bytes)"), "{v}");
    assert!(h.bytes() < 2_000, "{}", h.bytes());
}

#[test]
fn budget_evicts_the_oldest_versions_first_and_never_exceeds_it() {
    let budget = 40_000;
    let h = History::new(budget);
    for i in 0..2_000u32 {
        let mut p = pod(&(i + 1).to_string(), "Running", i, None);
        p.metadata.name = Some(format!("web-{}", i % 20));
        h.observe_at("pods", &p, pod_mask(), i64::from(i));
        assert!(h.bytes() <= budget, "{} > {budget}", h.bytes());
    }
    let stats = h.stats();
    assert!(stats.evicted > 0);
    // The oldest held version is recent: the early ones went first.
    assert!(stats.oldest_ms.is_some_and(|t| t > 1_000), "{stats:?}");
    // The newest of every object is still there.
    let t = h
        .timeline("pods", "shop/web-19")
        .expect("recent object held");
    assert_eq!(
        t.versions.last().map(|v| v.resource_version.as_str()),
        Some("2000")
    );
    assert!(t.truncated);
}

#[test]
fn a_deleted_object_keeps_its_history_until_evicted() {
    let h = History::new(30_000);
    let gone = pod("1", "Running", 0, None);
    h.observe_at("pods", &gone, pod_mask(), 0);
    h.popped_at("pods", "shop/web-1", &[delta(DeltaType::Deleted, &gone)], 0);
    for i in 0..10u32 {
        let mut p = pod(&(i + 10).to_string(), "Running", 0, None);
        p.metadata.name = Some(format!("other-{i}"));
        h.observe_at("pods", &p, pod_mask(), 10);
    }
    assert!(h.timeline("pods", "shop/web-1").is_some_and(|t| t.deleted));
    for i in 0..400u32 {
        let mut p = pod(&(i + 100).to_string(), "Running", i, None);
        p.metadata.name = Some(format!("other-{}", i % 10));
        h.observe_at("pods", &p, pod_mask(), 20);
    }
    assert!(h.timeline("pods", "shop/web-1").is_none());
}

#[test]
fn latest_lists_newest_first_with_labels_for_filtering() {
    let h = History::with_mib(1);
    record(
        &h,
        "deployments.apps",
        deploy_mask(),
        &[
            (
                DeltaType::Added,
                deploy("1", "web:1", 3, json!({"app": "web"})),
            ),
            (
                DeltaType::Updated,
                deploy("2", "web:1", 3, json!({"app": "web", "canary": "true"})),
            ),
        ],
    );
    let rows = h.latest(10, |_, _| true);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].resource_version, "2");
    assert_eq!(rows[0].summary, "labels +canary=true");
    assert_eq!(
        rows[0].labels.get("canary").map(String::as_str),
        Some("true")
    );
    assert_eq!(rows[1].labels.get("canary"), None);
    let canary = h.latest(10, |_, l| l.contains_key("canary"));
    assert_eq!(canary.len(), 1);
}

fn change(path: &str, old: Option<&str>, new: Option<&str>) -> FieldChange {
    FieldChange {
        path: Arc::from(path),
        old: old.map(str::to_string),
        new: new.map(str::to_string),
        by: None,
    }
}

/// `kubectl rollout restart` (and `r` here) stamps the pod template with an annotation: the
/// version says so, where it said only that no tracked field changed.
#[test]
fn a_rollout_restart_is_named_in_a_deployments_history() {
    let h = History::with_mib(1);
    let mut v1 = deploy("1", "web:1.4", 3, json!({"app": "web"}));
    let mut v2 = v1.clone();
    v2.metadata.resource_version = Some("2".into());
    v2.data["spec"]["template"]["metadata"] = json!({"annotations": {
        "kubectl.kubernetes.io/restartedAt": "2026-11-24T09:05:48Z"}});
    v1.data["spec"]["template"]["metadata"] = json!({"labels": {"app": "web"}});
    v2.data["spec"]["template"]["metadata"]["labels"] = json!({"app": "web"});
    let t = record(
        &h,
        "deployments.apps",
        deploy_mask(),
        &[(DeltaType::Replaced, v1), (DeltaType::Updated, v2)],
    );
    assert_eq!(
        t.versions[1].summary(0),
        "rollout restart 2026-11-24T09:05:48Z"
    );
}

/// A scale to 5 with a surge: the spec's `replicas` and the pods there (`status.replicas`) are
/// told apart, so the surge does not read as a second scale.
#[test]
fn spec_replicas_and_status_replicas_are_told_apart() {
    assert_eq!(
        summarize(&[
            change("/spec/replicas", Some("3"), Some("5")),
            change("/status/replicas", Some("5"), Some("7")),
        ]),
        "replicas 3→5, status.replicas 5→7"
    );
}

#[test]
fn counts_the_server_omits_at_zero_read_as_zero_and_other_fields_say_none() {
    // The API server leaves `readyReplicas` out once it is 0: the change is 1→0, not "-1".
    assert_eq!(
        summarize(&[
            change("/status/readyReplicas", Some("1"), None),
            change("/status/availableReplicas", None, Some("2")),
        ]),
        "readyReplicas 1→0, availableReplicas 0→2"
    );
    // A container status that appears carries `restartCount 0`: no restart to report.
    assert_eq!(
        summarize(&[
            change(
                "/status/containerStatuses/web/restartCount",
                None,
                Some("0")
            ),
            change("/status/containerStatuses/web/ready", None, Some("false")),
        ]),
        "ready (none)→false"
    );
    assert_eq!(
        summarize(&[change(
            "/status/containerStatuses/web/restartCount",
            Some("3"),
            Some("4")
        )]),
        "restartCount 3→4"
    );
    assert_eq!(
        summarize(&[change(
            "/status/containerStatuses/web/restartCount",
            None,
            Some("0")
        )]),
        "1 tracked fields changed"
    );
    assert_eq!(
        summarize(&[change("/spec/nodeName", None, Some("node-a"))]),
        "spec.nodeName (none)→node-a"
    );
    assert_eq!(
        summarize(&[change(
            "/spec/template/spec/containers/web/image",
            Some("web:1"),
            None
        )]),
        "image web:1→(none)"
    );
}

/// A ConfigMap as the informer test's fake server sends it.
fn cm(name: &str, rv: &str, data: &str) -> DynamicObject {
    obj(json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "ns", "resourceVersion": rv},
        "data": {"v": data}}))
}

/// The delta labels of `key`'s timeline, oldest first.
fn labels_of(h: &History, key: &str) -> Vec<&'static str> {
    h.timeline("configmaps", key)
        .map(|t| t.versions.iter().map(VersionView::delta_label).collect())
        .unwrap_or_default()
}

/// Versions are named with the delta type the FIFO queues them as when the informer records
/// them, so a pop names nothing: a list is Replaced, watch events Added, Updated and Deleted,
/// and only a relist's tombstone (which no object arrives for) is recorded by the pop hook.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_informer_records_each_version_with_its_delta_type_and_pops_name_only_tombstones() {
    use crate::informer::list_watch::{FakeListerWatcher, ListerWatcher, WatchEvent};
    use crate::informer::shared_informer::{InformerConfig, SharedIndexInformer};
    let h = Arc::new(History::with_mib(1));
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    fake.push_list_page(vec![cm("a", "10", "1"), cm("b", "10", "1")], "10", None);
    let watch = fake.push_watch_live();
    let lw: Arc<dyn ListerWatcher<DynamicObject>> = fake.clone();
    let recorder = Arc::clone(&h);
    let inf = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            reflector: crate::informer::reflector::ReflectorConfig {
                use_streaming_list: false,
                ..Default::default()
            },
            observer: Some(Arc::new(move |o: &DynamicObject, delta| {
                recorder.observe_as("configmaps", o, Mask::All, delta)
            })),
            history: Some((Arc::from("configmaps"), Arc::clone(&h))),
            ..Default::default()
        },
    );
    let cancel = tokio_util::sync::CancellationToken::new();
    let task = tokio::spawn({
        let (inf, cancel) = (Arc::clone(&inf), cancel.clone());
        async move { inf.run(cancel).await }
    });
    let until = |what: &str, cond: &dyn Fn() -> bool| {
        let start = std::time::Instant::now();
        while !cond() {
            assert!(
                start.elapsed().as_secs() < 10,
                "timed out waiting for {what}"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    };
    until("the sync", &|| inf.has_synced());
    for e in [
        WatchEvent::Modified(cm("b", "11", "2")),
        WatchEvent::Added(cm("c", "12", "1")),
        WatchEvent::Deleted(cm("b", "13", "2")),
    ] {
        watch.send(Ok(e)).expect("watch open");
    }
    until("b's deletion", &|| inf.indexer().get("ns/b").is_none());
    // c is deleted while nobody watches: the relist finds it gone (a tombstone).
    fake.push_list_page(vec![cm("a", "10", "1"), cm("d", "15", "1")], "16", None);
    let _watch2 = fake.push_watch_live();
    watch
        .send(Ok(WatchEvent::Error(crate::informer::Error::Gone(
            "too old".into(),
        ))))
        .expect("watch open");
    until("the relist", &|| inf.indexer().get("ns/d").is_some());
    until("c's tombstone", &|| inf.indexer().get("ns/c").is_none());
    cancel.cancel();
    task.await.expect("informer task");

    assert_eq!(
        labels_of(&h, "ns/a"),
        ["Replaced"],
        "a relisted unchanged: one version"
    );
    assert_eq!(labels_of(&h, "ns/b"), ["Replaced", "Updated", "Deleted"]);
    assert_eq!(labels_of(&h, "ns/c"), ["Added", "Deleted†"]);
    assert_eq!(labels_of(&h, "ns/d"), ["Replaced"]);
    assert_eq!(
        h.pending.load(Ordering::Relaxed),
        0,
        "no version waits for a pop"
    );
    let b = h.timeline("configmaps", "ns/b").expect("b held");
    assert!(b.deleted);
    assert_eq!(b.versions[1].summary(1), "data.v 1→2");
}

#[test]
fn a_pop_names_versions_observed_without_their_delta_type_and_then_skips_the_lookup() {
    let h = History::with_mib(1);
    let (v1, v2) = (cm("a", "1", "x"), cm("a", "2", "y"));
    h.observe_at("configmaps", &v1, Mask::All, 0);
    assert_eq!(labels_of(&h, "ns/a"), ["Queued"]);
    assert_eq!(h.pending.load(Ordering::Relaxed), 1);
    h.popped_at("configmaps", "ns/a", &[delta(DeltaType::Added, &v1)], 0);
    assert_eq!(labels_of(&h, "ns/a"), ["Added"]);
    assert_eq!(h.pending.load(Ordering::Relaxed), 0);
    // Named when observed: the pop has nothing to do.
    h.observe_as_at("configmaps", &v2, Mask::All, Some(DeltaType::Updated), 1);
    h.popped_at("configmaps", "ns/a", &[delta(DeltaType::Updated, &v2)], 1);
    assert_eq!(labels_of(&h, "ns/a"), ["Added", "Updated"]);
    // A version evicted before its pop is no longer waited for.
    let small = History::new(1);
    small.observe_at("configmaps", &v1, Mask::All, 0);
    assert_eq!(small.stats().versions, 0);
    assert_eq!(small.pending.load(Ordering::Relaxed), 0);
}

/// A relist's tombstone of `key`, carrying the last state the informer held.
fn tombstone(key: &str, last: DynamicObject) -> Delta<DynamicObject> {
    Delta {
        kind: DeltaType::Deleted,
        object: DeltaObject::Tombstone(DeletedFinalStateUnknown {
            key: key.into(),
            obj: Some(Arc::new(last)),
        }),
    }
}

/// A watch's DELETED of an object a relist already found gone (the FIFO drops it: the key is
/// neither queued nor known) records no second deletion.
#[test]
fn a_deletion_of_an_object_recorded_deleted_adds_no_version() {
    let h = History::with_mib(1);
    let (live, gone) = (cm("a", "5", "x"), cm("a", "7", "x"));
    h.observe_as_at("configmaps", &live, Mask::All, Some(DeltaType::Replaced), 0);
    let tomb = tombstone("ns/a", live);
    h.popped_at("configmaps", "ns/a", &[tomb], 1);
    h.observe_as_at("configmaps", &gone, Mask::All, Some(DeltaType::Deleted), 2);
    assert_eq!(labels_of(&h, "ns/a"), ["Replaced", "Deleted†"]);
}

/// A relist that finds a key deleted and created again queues the old object's tombstone with
/// the new object: the new object's version is already recorded (Replaced) and stays the live
/// one, rather than a deletion being recorded after it.
#[test]
fn a_tombstone_older_than_the_recorded_version_does_not_mark_the_new_object_deleted() {
    let h = History::with_mib(1);
    let (old, new) = (cm("a", "5", "x"), cm("a", "9", "y"));
    h.observe_as_at("configmaps", &old, Mask::All, Some(DeltaType::Replaced), 0);
    h.observe_as_at("configmaps", &new, Mask::All, Some(DeltaType::Replaced), 1);
    let tomb = tombstone("ns/a", old);
    h.popped_at(
        "configmaps",
        "ns/a",
        &[tomb, delta(DeltaType::Replaced, &new)],
        2,
    );
    let t = h.timeline("configmaps", "ns/a").expect("held");
    assert!(!t.deleted);
    assert_eq!(labels_of(&h, "ns/a"), ["Replaced", "Replaced"]);
}

#[test]
fn objects_without_a_namespace_are_keyed_by_name_as_the_store_keys_them() {
    let h = History::with_mib(1);
    for (rv, ns) in [("1", None), ("2", Some(""))] {
        let mut node = obj(json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "n1", "resourceVersion": rv, "labels": {"zone": rv}}}));
        node.metadata.namespace = ns.map(str::to_string);
        h.observe_at("nodes", &node, Mask::All, 0);
        let key = meta_namespace_key(&node).expect("key");
        assert_eq!(key, "n1");
        h.popped_at("nodes", &key, &[delta(DeltaType::Updated, &node)], 0);
    }
    let t = h.timeline("nodes", "n1").expect("held under its name");
    assert_eq!(t.versions.len(), 2);
    assert!(
        t.versions
            .iter()
            .all(|v| v.delta == Some(DeltaType::Updated))
    );
    assert_eq!(t.versions[1].summary(0), "labels zone=1→2");
}

#[test]
fn concurrent_observers_record_each_version_once_within_the_budget() {
    let budget = 60_000;
    let h = Arc::new(History::new(budget));
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let h = Arc::clone(&h);
            std::thread::spawn(move || {
                for i in 0..300u32 {
                    // Objects of this thread: rv 1, 2, 3... each a new version.
                    let mut own = pod(&(i + 1).to_string(), "Running", i / 10, None);
                    own.metadata.name = Some(format!("web-{t}-{}", i % 10));
                    h.observe_at("pods", &own, pod_mask(), i64::from(i));
                    // Objects both threads see (two informers of one resource): one version
                    // each, recorded once (again only if evicted whole in between).
                    let mut shared = pod("1", "Running", 0, None);
                    shared.metadata.name = Some(format!("both-{i}"));
                    h.observe_at("pods", &shared, pod_mask(), i64::from(i));
                    assert!(h.bytes() <= budget, "{} > {budget}", h.bytes());
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("observer thread");
    }
    let stats = h.stats();
    assert!(stats.bytes <= budget, "{stats:?}");
    assert!(stats.evicted > 0, "the budget was exercised: {stats:?}");
    // What is held depends on how the threads interleaved; what is held is exact.
    let mut held = 0;
    for t in 0..2 {
        for n in 0..10u32 {
            let Some(tl) = h.timeline("pods", &format!("shop/web-{t}-{n}")) else {
                continue;
            };
            held += 1;
            let rvs: Vec<u32> = tl
                .versions
                .iter()
                .map(|v| v.resource_version.parse().expect("rv"))
                .collect();
            // A suffix of the object's versions, each once, the newest last.
            assert!(rvs.windows(2).all(|w| w[0] + 10 == w[1]), "{rvs:?}");
            assert_eq!(rvs.last().copied(), Some(291 + n));
        }
    }
    for i in 0..300 {
        if let Some(tl) = h.timeline("pods", &format!("shop/both-{i}")) {
            held += 1;
            assert_eq!(tl.versions.len(), 1, "recorded twice: {:?}", tl.versions);
        }
    }
    assert!(held > 0);
}

/// The tracked fields of `o` as the plain reference reads them: every leaf's JSON pointer
/// (array items by `name`, else `type`, else index) built as text, and its value.
fn reference_leaves(o: &DynamicObject, mask: Mask) -> BTreeMap<String, String> {
    fn esc(s: &str) -> String {
        s.replace('~', "~0").replace('/', "~1")
    }
    fn walk(
        v: &Value,
        mask: Mask,
        path: &str,
        skip: Option<&str>,
        out: &mut BTreeMap<String, String>,
    ) {
        match (v, mask) {
            (Value::Object(m), Mask::Keys(keys)) => {
                for (name, sub) in keys.iter() {
                    if Some(*name) != skip
                        && let Some(x) = m.get(*name)
                    {
                        walk(x, *sub, &format!("{path}/{}", esc(name)), None, out);
                    }
                }
            }
            (Value::Object(m), Mask::Blank(sizes)) => {
                for (k, x) in m {
                    walk(
                        &sizes.of(x),
                        Mask::All,
                        &format!("{path}/{}", esc(k)),
                        None,
                        out,
                    );
                }
            }
            (Value::Object(m), _) => {
                for (k, x) in m {
                    if Some(k.as_str()) != skip {
                        walk(x, Mask::All, &format!("{path}/{}", esc(k)), None, out);
                    }
                }
            }
            (Value::Array(items), m) => {
                let sub = match m {
                    Mask::Each(sub) => *sub,
                    _ => Mask::All,
                };
                for (i, x) in items.iter().enumerate() {
                    let named = ["name", "type"]
                        .into_iter()
                        .find_map(|k| x.get(k).and_then(Value::as_str).map(|n| (k, n)));
                    let seg = named.map_or(i.to_string(), |(_, n)| esc(n));
                    walk(x, sub, &format!("{path}/{seg}"), named.map(|(k, _)| k), out);
                }
            }
            (Value::String(s), _) if s.len() > MAX_LEAF => {
                let h = foldhash::fast::FixedState::with_seed(0).hash_one(s.as_bytes());
                out.insert(path.to_string(), format!("#{h:016x} ({} bytes)", s.len()));
            }
            (Value::String(s), _) => {
                out.insert(path.to_string(), s.clone());
            }
            (Value::Null, _) => {
                out.insert(path.to_string(), "null".into());
            }
            (scalar, _) => {
                out.insert(path.to_string(), scalar.to_string());
            }
        }
    }
    let mut out = BTreeMap::new();
    for (k, v) in o.metadata.labels.iter().flatten() {
        out.insert(format!("/metadata/labels/{}", esc(k)), v.clone());
    }
    walk(&o.data, mask, "", None, &mut out);
    out
}

/// A pod of a random shape: labels (some with `/` and `~` in the key), containers with and
/// without names, conditions, a number of container statuses, an unnamed list.
fn shaped_pod(
    rv: u32,
    labels: &[(u8, u8)],
    containers: &[(bool, u8)],
    restarts: &[u8],
    conditions: &[(u8, bool)],
) -> DynamicObject {
    let label_keys = [
        "app",
        "tier",
        "app.kubernetes.io/name",
        "a~b/c",
        "0",
        "version",
    ];
    let labels: serde_json::Map<String, Value> = labels
        .iter()
        .map(|(k, v)| {
            (
                label_keys[*k as usize % 6].to_string(),
                json!(format!("v{v}")),
            )
        })
        .collect();
    let containers: Vec<Value> = containers
        .iter()
        .enumerate()
        .map(|(i, (named, image))| {
            let mut c = json!({"image": format!("img:{image}"),
                "resources": {"requests": {"cpu": format!("{image}m")}}});
            if *named {
                c["name"] = json!(format!("c{i}"));
            }
            c
        })
        .collect();
    let statuses: Vec<Value> = restarts
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"name": format!("c{i}"), "restartCount": r, "ready": r % 2 == 0}))
        .collect();
    let types = ["Ready", "PodScheduled", "Initialized", "0"];
    let conditions: Vec<Value> = conditions
        .iter()
        .map(|(t, ok)| json!({"type": types[*t as usize % 4], "status": if *ok { "True" } else { "False" }}))
        .collect();
    obj(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "p", "namespace": "d", "resourceVersion": rv.to_string(), "labels": labels},
        "spec": {"containers": containers, "nodeName": "n1"},
        "status": {"phase": "Running", "conditions": conditions, "containerStatuses": statuses}}))
}

proptest::proptest! {
    /// Paths are known by a hash of their segments while flattening (texts are only built for
    /// paths new to the recorder, and a thread reuses the ids of the previous object's leaf
    /// positions): whatever sequence of shapes two objects go through, on one thread or
    /// alternating, the latest state named by the recorder is the plain reference flattening.
    #[test]
    fn hashed_paths_name_every_leaf_as_the_reference_flattening(
        shapes in proptest::collection::vec((
            proptest::collection::vec((0u8..6, 0u8..3), 0..5),
            proptest::collection::vec((proptest::bool::ANY, 0u8..3), 0..4),
            proptest::collection::vec(0u8..3, 0..4),
            proptest::collection::vec((0u8..4, proptest::bool::ANY), 0..4),
        ), 1..8),
    ) {
        let h = History::with_mib(64);
        let other = History::with_mib(64);
        let mask = pod_mask();
        for (i, (labels, containers, restarts, conditions)) in shapes.iter().enumerate() {
            let o = shaped_pod(i as u32 + 1, labels, containers, restarts, conditions);
            h.observe_at("pods", &o, mask, i as i64);
            // Another recorder on the same thread in between: its path ids are its own.
            other.observe_at("pods", &shaped_pod(i as u32 + 1, &[], &[], restarts, &[]), mask, 0);
            let t = h.timeline("pods", "d/p").expect("held");
            let got: BTreeMap<String, String> = t
                .state_at(usize::MAX)
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            proptest::prop_assert_eq!(&got, &reference_leaves(&o, mask));
            // Each version's changes rebuild the previous state.
            if i > 0 {
                let prev = shaped_pod(i as u32, &shapes[i - 1].0, &shapes[i - 1].1, &shapes[i - 1].2, &shapes[i - 1].3);
                let before: BTreeMap<String, String> = t
                    .state_at(t.versions.len() - 2)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                proptest::prop_assert_eq!(&before, &reference_leaves(&prev, mask));
            }
        }
    }
}

#[test]
fn a_recorded_path_reads_dotted_with_keys_holding_dots_or_slashes_quoted() {
    assert_eq!(display_path("/data/key"), "data.key");
    assert_eq!(
        display_path("/spec/containers/web/image"),
        "spec.containers.web.image"
    );
    assert_eq!(
        display_path("/metadata/labels/app.kubernetes.io~1name"),
        r#"metadata.labels["app.kubernetes.io/name"]"#
    );
    assert_eq!(
        display_path("/metadata/annotations/a~0b/x"),
        "metadata.annotations.a~b.x"
    );
    assert_eq!(display_path("/data/say \"hi\""), r#"data["say \"hi\""]"#);
    assert_eq!(display_path("/data/"), r#"data[""]"#);
    // A key with a dot at the top.
    assert_eq!(display_path("/a.b/c"), r#"["a.b"].c"#);
    assert_eq!(display_path(""), "");
    // A list item keyed by other fields than a name, as blame names it.
    assert_eq!(
        display_path("/spec/containers/web/ports/containerPort=8080,protocol=TCP/protocol"),
        "spec.containers.web.ports[containerPort=8080,protocol=TCP].protocol"
    );
    assert_eq!(
        display_path("/status/podIPs/ip=10.244.1.7"),
        "status.podIPs[ip=10.244.1.7]"
    );
}
