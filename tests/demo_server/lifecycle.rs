//! Object lifecycles: graceful pod deletion, finalizers, cascading deletes, and the live demo clock.

use super::*;

/// Poll `check` until it holds (a real cluster's garbage collector works asynchronously).
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    while !check().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "not within the hang guard: {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn gone<K>(api: &Api<K>, name: &str) -> bool
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    matches!(api.get(name).await, Err(e) if api_code(&e).map(|c| c.0) == Some(404))
}

#[tokio::test]
async fn graceful_pod_delete_marks_terminating_then_the_kubelet_removes_it_after_the_grace() {
    // A real cluster removes the pod only once its (real) kubelet confirms; a pod bound to a
    // node without a kubelet would stay Terminating.
    let Some(env) = demo_only(
        DemoOptions::default(),
        "graceful_pod_delete_marks_terminating_then_the_kubelet_removes_it_after_the_grace",
    )
    .await
    else {
        return;
    };
    let pods: Api<Pod> = Api::namespaced(env.client.clone(), &env.ns);
    let mut p = pod(&env.ns, "slow", "node-a", "Running");
    p["spec"]["terminationGracePeriodSeconds"] = json!(600);
    let created = pods
        .create(&PostParams::default(), &serde_json::from_value(p).unwrap())
        .await
        .unwrap();
    let rv = created.metadata.resource_version.clone().unwrap();
    let mut w = pods
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();

    // No grace in the request: the pod's own terminationGracePeriodSeconds.
    let marked = pods
        .delete("slow", &DeleteParams::default())
        .await
        .unwrap()
        .left()
        .expect("a graceful delete answers with the pod, not a Status");
    assert_eq!(marked.metadata.deletion_grace_period_seconds, Some(600));
    assert!(marked.metadata.deletion_timestamp.is_some());
    assert_ne!(
        marked.metadata.resource_version,
        created.metadata.resource_version
    );
    let still = pods.get("slow").await.unwrap();
    assert_eq!(still.metadata.deletion_grace_period_seconds, Some(600));
    let ev = next_event(&mut w).await;
    assert_eq!(name_of(&ev), ("MODIFIED", "slow".to_string()));

    // A second delete with a shorter grace shortens it.
    let shortened = pods
        .delete("slow", &DeleteParams::default().grace_period(1))
        .await
        .unwrap()
        .left()
        .expect("still terminating");
    assert_eq!(shortened.metadata.deletion_grace_period_seconds, Some(1));
    let ev = next_event(&mut w).await;
    assert_eq!(name_of(&ev), ("MODIFIED", "slow".to_string()));

    // The kubelet removes it once the second has passed.
    let ev = next_event(&mut w).await;
    assert_eq!(name_of(&ev), ("DELETED", "slow".to_string()));
    assert!(gone(&pods, "slow").await);
    env.cleanup().await;
}

#[tokio::test]
async fn delete_with_grace_period_zero_removes_the_pod_at_once() {
    let env = env().await;
    let pods: Api<Pod> = Api::namespaced(env.client.clone(), &env.ns);
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(pod(&env.ns, "victim", "node-a", "Running")).unwrap(),
    )
    .await
    .unwrap();
    pods.delete("victim", &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    assert!(
        gone(&pods, "victim").await,
        "no Terminating phase at grace 0"
    );
    env.cleanup().await;
}

#[tokio::test]
async fn finalizers_hold_a_deleted_object_until_an_update_removes_them() {
    let env = env().await;
    let cms = env.cms();
    let mut held = cm("held", json!({}));
    held.metadata.finalizers = Some(vec!["example.com/hold".into()]);
    cms.create(&PostParams::default(), &held).await.unwrap();
    cms.delete("held", &DeleteParams::default()).await.unwrap();
    let still = cms.get("held").await.unwrap();
    assert!(still.metadata.deletion_timestamp.is_some());
    assert_eq!(
        still.metadata.finalizers.as_deref(),
        Some(&["example.com/hold".to_string()][..])
    );
    cms.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .unwrap();
    eventually("the unfinalized object is removed", || gone(&cms, "held")).await;
    env.cleanup().await;
}

fn owner_ref(api_version: &str, kind: &str, name: &str, uid: &str) -> serde_json::Value {
    json!([{"apiVersion": api_version, "kind": kind, "name": name, "uid": uid,
        "controller": true, "blockOwnerDeletion": true}])
}

#[tokio::test]
async fn background_cascade_deletes_the_deployments_replicasets_and_their_pods() {
    // A real cluster's deployment and replicaset controllers would manage a hand-made chain.
    let Some(env) = demo_only(
        DemoOptions::default(),
        "background_cascade_deletes_the_deployments_replicasets_and_their_pods",
    )
    .await
    else {
        return;
    };
    use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
    let ns = env.ns.clone();
    let deploys: Api<Deployment> = Api::namespaced(env.client.clone(), &ns);
    let sets: Api<ReplicaSet> = Api::namespaced(env.client.clone(), &ns);
    let pods: Api<Pod> = Api::namespaced(env.client.clone(), &ns);
    let template = json!({"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "i"}]}});
    let d = deploys
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": "web"}, "spec": {
                "replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template}}))
            .unwrap(),
        )
        .await
        .unwrap();
    let d_uid = d.metadata.uid.unwrap();
    let rs = sets
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": "web-1",
                "ownerReferences": owner_ref("apps/v1", "Deployment", "web", &d_uid)}, "spec": {
                "replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template}}))
            .unwrap(),
        )
        .await
        .unwrap();
    let rs_uid = rs.metadata.uid.unwrap();
    for (name, node) in [("web-1-a", "node-a"), ("web-1-b", "")] {
        let mut p = pod(&ns, name, node, "Running");
        p["metadata"]["ownerReferences"] = owner_ref("apps/v1", "ReplicaSet", "web-1", &rs_uid);
        p["spec"]["terminationGracePeriodSeconds"] = json!(1);
        pods.create(&PostParams::default(), &serde_json::from_value(p).unwrap())
            .await
            .unwrap();
    }
    deploys
        .delete("web", &DeleteParams::default())
        .await
        .unwrap();
    assert!(gone(&deploys, "web").await);
    assert!(
        gone(&sets, "web-1").await,
        "the ReplicaSet follows its Deployment"
    );
    assert!(
        gone(&pods, "web-1-b").await,
        "an unscheduled pod goes at once"
    );
    let terminating = pods.get("web-1-a").await.unwrap();
    assert_eq!(terminating.metadata.deletion_grace_period_seconds, Some(1));
    eventually(
        "the scheduled pod is removed after its grace period",
        || gone(&pods, "web-1-a"),
    )
    .await;
    env.cleanup().await;
}

#[tokio::test]
async fn orphan_delete_keeps_dependents_and_strips_their_owner_references() {
    let env = env().await;
    let cms = env.cms();
    let owner = cms
        .create(&PostParams::default(), &cm("owner", json!({})))
        .await
        .unwrap();
    let uid = owner.metadata.uid.unwrap();
    let mut dep = serde_json::to_value(cm("dep", json!({}))).unwrap();
    dep["metadata"]["ownerReferences"] = json!([{"apiVersion": "v1", "kind": "ConfigMap",
        "name": "owner", "uid": uid}]);
    cms.create(
        &PostParams::default(),
        &serde_json::from_value(dep).unwrap(),
    )
    .await
    .unwrap();
    cms.delete("owner", &DeleteParams::orphan()).await.unwrap();
    eventually("the owner is removed", || gone(&cms, "owner")).await;
    eventually("the dependent loses its ownerReference", || async {
        cms.get("dep")
            .await
            .unwrap()
            .metadata
            .owner_references
            .unwrap_or_default()
            .is_empty()
    })
    .await;
    env.cleanup().await;
}

/// The live demo (`--demo`) stamps what its simulator writes with the wall clock: at a high churn
/// rate the simulated clock used to advance a fixed step per change and ran minutes ahead, so
/// the dashboard showed pods' and events' ages as `<invalid>`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_demo_timestamps_never_run_ahead_of_the_wall_clock() {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping: the live demo's simulator is demo-only");
        return;
    }
    let demo = kinformer::app_main::start_demo(&kinformer::app_main::DemoSpec {
        port: 0,
        pods: 60,
        nodes: Some(3),
        churn_per_sec: 400.0,
        seed: 5,
        history: 10_000,
        metrics: false,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 1.0,
    })
    .await
    .unwrap();
    let client = client_for(&demo.handle.kubeconfig_yaml()).await;
    // 400 changes/s for 1.5 s: a 250 ms step per change would put the clock 150 s ahead.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let slack = chrono::Duration::seconds(2);
    let now = chrono::Utc::now() + slack;
    let pods: Api<Pod> = Api::all(client.clone());
    let pods = tokio::time::timeout(HANG_GUARD, pods.list(&ListParams::default()))
        .await
        .unwrap()
        .unwrap();
    let mut stamps = 0;
    for p in &pods.items {
        let created = at(p.metadata.creation_timestamp.as_ref().unwrap());
        assert!(
            created <= now,
            "pod {:?} created at {created}, after {now}",
            p.metadata.name
        );
        stamps += 1;
        for c in p
            .status
            .iter()
            .flat_map(|s| s.container_statuses.iter().flatten())
        {
            if let Some(t) = c
                .state
                .as_ref()
                .and_then(|s| s.running.as_ref())
                .and_then(|r| r.started_at.as_ref())
            {
                assert!(
                    at(t) <= now,
                    "container of {:?} started at {}, after {now}",
                    p.metadata.name,
                    t.0
                );
                stamps += 1;
            }
        }
    }
    let events: Api<k8s_openapi::api::core::v1::Event> = Api::all(client);
    let events = tokio::time::timeout(HANG_GUARD, events.list(&ListParams::default()))
        .await
        .unwrap()
        .unwrap();
    for e in &events.items {
        if let Some(t) = &e.last_timestamp {
            assert!(
                at(t) <= now,
                "event {:?} last seen at {}, after {now}",
                e.metadata.name,
                t.0
            );
            stamps += 1;
        }
    }
    assert!(stamps > 60, "too few timestamps checked: {stamps}");
    demo.stop().await;
}

/// A `metav1.Time` as chrono's instant (k8s-openapi's own type prints RFC 3339).
fn at(t: &k8s_openapi::apimachinery::pkg::apis::meta::v1::Time) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(&t.0.to_string())
        .unwrap()
        .with_timezone(&chrono::Utc)
}

fn seeding_spec(pods: usize) -> kinformer::app_main::DemoSpec {
    kinformer::app_main::DemoSpec {
        port: 0,
        pods,
        nodes: None,
        churn_per_sec: 0.0,
        seed: 7,
        history: 1_000_000,
        metrics: false,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 0.0,
    }
}

/// `--demo --demo-pods 60000` draws at once: the server answers as soon as it listens, the seed
/// is stored in the background and says how far it is at every percent, and what it stores is
/// the cluster `start_demo` makes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launched_demo_answers_while_its_seed_is_stored_and_publishes_its_progress() {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping: the live demo's simulator is demo-only");
        return;
    }
    let demo = kinformer::app_main::launch_demo(&seeding_spec(3_000))
        .await
        .unwrap();
    let client = client_for(&demo.handle.kubeconfig_yaml()).await;
    tokio::time::timeout(HANG_GUARD, client.apiserver_version())
        .await
        .unwrap()
        .unwrap();
    let mut progress = demo.progress.clone();
    let mut seen = Vec::new();
    loop {
        let s = *progress.borrow_and_update();
        seen.push(s);
        if s.seeded.is_some() {
            break;
        }
        tokio::time::timeout(HANG_GUARD, progress.changed())
            .await
            .unwrap()
            .unwrap();
    }
    assert!(seen.iter().all(|s| s.pods == 3_000));
    assert!(
        seen.windows(2).all(|w| w[0].percent <= w[1].percent),
        "the percent never goes back: {seen:?}"
    );
    assert!(
        seen.iter()
            .all(|s| (s.percent == 100) == s.seeded.is_some()),
        "100 % only once stored: {seen:?}"
    );
    let running = demo.seeded().await.unwrap();
    let whole = kinformer::app_main::start_demo(&seeding_spec(3_000))
        .await
        .unwrap();
    assert_eq!(seen.last().unwrap().seeded, Some(running.seeded_objects));
    assert_eq!(running.seeded_objects, whole.seeded_objects);
    let pods: Api<Pod> = Api::all(client);
    let listed = pods.list(&ListParams::default()).await.unwrap().items.len();
    let whole_pods = whole.handle.cluster().len(&kinformer::demo::objects::PODS);
    assert_eq!(
        listed, whole_pods,
        "the same pods as a seed stored up front"
    );
    running.stop().await;
    whole.stop().await;
}

/// Quitting the dashboard while the demo is seeded stops the seed at the next object (the
/// dashboard's exit does not wait for 60,000 pods to be stored).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_demo_seed_stops_before_storing_everything() {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping: the live demo's simulator is demo-only");
        return;
    }
    let demo = kinformer::app_main::launch_demo(&seeding_spec(30_000))
        .await
        .unwrap();
    demo.cancel.cancel();
    let progress = demo.progress.clone();
    let running = tokio::time::timeout(HANG_GUARD, demo.seeded())
        .await
        .unwrap()
        .unwrap();
    let pods = running
        .handle
        .cluster()
        .len(&kinformer::demo::objects::PODS);
    assert!(pods < 30_000, "{pods} pods stored after the cancel");
    assert_eq!(progress.borrow().seeded, Some(running.seeded_objects));
    running.stop().await;
}
