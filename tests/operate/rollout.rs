//! Rollout restart: a new ReplicaSet replaces every pod.

use super::*;

/// The deployment to restart, its namespace and what keeps it alive: on the demo a deployment
/// the simulator seeded (its controllers only run what they created), on a real cluster one the
/// test creates and waits for.
struct RolloutTarget {
    client: kube::Client,
    deploy: ResourceInfo,
    ns: String,
    name: String,
    _demo: Option<kinformer::app_main::RunningDemo>,
    setup: Option<Setup>,
    _dir: tempfile::TempDir,
}

async fn rollout_target() -> RolloutTarget {
    let dir = tempfile::tempdir().unwrap();
    if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        let s = setup().await;
        let client = s.conn.client.clone();
        let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
        let mut d = deployment("web");
        if let Some(spec) = d.spec.as_mut() {
            spec.replicas = Some(2);
        }
        deploys.create(&PostParams::default(), &d).await.unwrap();
        let ns = s.ns.clone();
        return RolloutTarget {
            client,
            deploy: s.resource("deploy"),
            ns,
            name: "web".into(),
            _demo: None,
            setup: Some(s),
            _dir: dir,
        };
    }
    let demo = kinformer::app_main::start_demo(&kinformer::app_main::DemoSpec {
        port: 0,
        pods: 60,
        nodes: Some(3),
        churn_per_sec: 300.0,
        seed: 11,
        history: 10_000,
        metrics: false,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 2.0,
    })
    .await
    .unwrap();
    let path = dir.path().join("kubeconfig");
    demo.handle.write_kubeconfig(&path).unwrap();
    let conn = Connection::open(&ConnectOptions {
        kubeconfig: Some(path),
        context: None,
    })
    .await
    .unwrap();
    let all: Api<Deployment> = Api::all(conn.client.clone());
    let mut candidates: Vec<Deployment> = all
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|d| {
            d.metadata.namespace.as_deref() != Some("kube-system")
                && d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0) >= 2
        })
        .collect();
    candidates.sort_by_key(|d| d.metadata.name.clone());
    let d = candidates
        .first()
        .expect("a seeded deployment with 2+ replicas");
    let resources = conn.discover().await.unwrap();
    RolloutTarget {
        client: conn.client.clone(),
        deploy: resolve(&resources, "deploy").unwrap().clone(),
        ns: d.metadata.namespace.clone().unwrap_or_default(),
        name: d.metadata.name.clone().unwrap_or_default(),
        _demo: Some(demo),
        setup: None,
        _dir: dir,
    }
}

/// The ReplicaSets a deployment controls (by owner uid), and their pods.
async fn owned_sets_and_pods(
    client: &kube::Client,
    ns: &str,
    uid: &str,
) -> (Vec<k8s_openapi::api::apps::v1::ReplicaSet>, Vec<Pod>) {
    use k8s_openapi::api::apps::v1::ReplicaSet;
    let controlled_by =
        |refs: &Option<Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>>,
         uids: &[String]| {
            refs.iter()
                .flatten()
                .any(|r| r.controller == Some(true) && uids.contains(&r.uid))
        };
    let sets: Vec<ReplicaSet> = Api::<ReplicaSet>::namespaced(client.clone(), ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|rs| controlled_by(&rs.metadata.owner_references, &[uid.to_string()]))
        .collect();
    let set_uids: Vec<String> = sets
        .iter()
        .filter_map(|rs| rs.metadata.uid.clone())
        .collect();
    let pods = Api::<Pod>::namespaced(client.clone(), ns)
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter(|p| controlled_by(&p.metadata.owner_references, &set_uids))
        .collect();
    (sets, pods)
}

fn revision_of(meta: &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta) -> u64 {
    meta.annotations
        .as_ref()
        .and_then(|a| a.get("deployment.kubernetes.io/revision"))
        .and_then(|r| r.parse().ok())
        .unwrap_or(0)
}

/// Waits (polling, `HANG_GUARD` times two at most) until the deployment is fully rolled out:
/// its status observed the spec, every replica updated and available, no old pod left.
async fn rolled_out(deploys: &Api<Deployment>, name: &str) -> Deployment {
    let deadline = tokio::time::Instant::now() + HANG_GUARD * 2;
    loop {
        let d = deploys.get(name).await.unwrap();
        let want = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
        let st = d.status.clone().unwrap_or_default();
        if st.observed_generation >= d.metadata.generation
            && st.updated_replicas == Some(want)
            && st.replicas == Some(want)
            && st.available_replicas == Some(want)
        {
            return d;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not rolled out: {st:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restart_creates_a_new_replicaset_that_replaces_every_pod() {
    let t = rollout_target().await;
    let deploys: Api<Deployment> = Api::namespaced(t.client.clone(), &t.ns);
    let before = rolled_out(&deploys, &t.name).await;
    let uid = before.metadata.uid.clone().unwrap_or_default();
    let old_revision = revision_of(&before.metadata);
    let (old_sets, old_pods) = owned_sets_and_pods(&t.client, &t.ns, &uid).await;
    let old_current = old_sets
        .iter()
        .find(|rs| revision_of(&rs.metadata) == old_revision)
        .and_then(|rs| rs.metadata.name.clone())
        .expect("the current ReplicaSet");
    let old_pod_names: Vec<String> = old_pods
        .iter()
        .filter_map(|p| p.metadata.name.clone())
        .collect();
    assert!(!old_pod_names.is_empty());

    let out = execute(
        t.client.clone(),
        &Write {
            resource: t.deploy.clone(),
            namespace: Some(t.ns.clone()),
            name: t.name.clone(),
            op: Operation::Restart,
            cluster: None,
        },
    )
    .await;
    assert!(!out.error, "{}", out.message);

    let deadline = tokio::time::Instant::now() + HANG_GUARD * 2;
    let (new_set, pods) = loop {
        let d = rolled_out(&deploys, &t.name).await;
        let (sets, pods) = owned_sets_and_pods(&t.client, &t.ns, &uid).await;
        let new_set = sets
            .iter()
            .find(|rs| revision_of(&rs.metadata) == revision_of(&d.metadata))
            .cloned();
        let settled = revision_of(&d.metadata) > old_revision
            && pods.iter().all(|p| {
                p.metadata.deletion_timestamp.is_none()
                    && !old_pod_names.contains(p.metadata.name.as_ref().unwrap_or(&String::new()))
            });
        if let (true, Some(new_set)) = (settled, new_set) {
            break (new_set, pods);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "old pods left: {:?}",
            pods.iter()
                .map(|p| p.metadata.name.clone())
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(revision_of(&new_set.metadata), old_revision + 1);
    let new_name = new_set.metadata.name.clone().unwrap_or_default();
    assert_ne!(new_name, old_current, "a new ReplicaSet");
    let new_uid = new_set.metadata.uid.clone().unwrap_or_default();
    assert!(!pods.is_empty());
    for p in &pods {
        let owner = p
            .metadata
            .owner_references
            .iter()
            .flatten()
            .find(|r| r.controller == Some(true))
            .map(|r| r.uid.clone());
        assert_eq!(
            owner.as_deref(),
            Some(new_uid.as_str()),
            "{:?}",
            p.metadata.name
        );
    }
    let old = Api::<k8s_openapi::api::apps::v1::ReplicaSet>::namespaced(t.client.clone(), &t.ns)
        .get(&old_current)
        .await
        .expect("the old ReplicaSet is kept");
    assert_eq!(old.spec.and_then(|s| s.replicas), Some(0));
    if let Some(s) = t.setup {
        s.cleanup().await;
    }
}
