//! Merged tables against a demo fleet (`--demo-clusters`): each member feeds a view from its
//! own connection and informers, rows keyed under their cluster; a write aimed at one member's
//! object lands on that member only; a member going down and coming back while the other keeps
//! updating.
//!
//! Demo-only by nature (it needs several clusters and the fault endpoint): skipped, with the
//! reason printed, when `KINFORMER_TEST_KUBECONFIG` is set.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer::app_main::{DemoSpec, RunningFleet, start_demo_fleet};
use kinformer::cluster::{Connection, ResourceInfo};
use kinformer::demo::realistic::PodShape;
use kinformer::runtime::Headless;
use kinformer::ui::action::{Action, CLUSTER_SEP, Effect};
use kinformer::ui::operate::{Operation, Propagation, Write};
use kube::api::{Api, PostParams};
use kube::config::Kubeconfig;

/// Only guards against a hang; nothing asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(30);

async fn fleet(test: &str) -> Option<RunningFleet> {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping {test}: demo-only behaviour, KINFORMER_TEST_KUBECONFIG is set");
        return None;
    }
    let spec = DemoSpec {
        port: 0,
        pods: 10,
        nodes: None,
        churn_per_sec: 0.0,
        seed: 1,
        history: 10_000,
        metrics: false,
        namespace_user: None,
        pod_shape: PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 1.0,
    };
    Some(start_demo_fleet(&spec, 2).await.unwrap())
}

async fn connect(yaml: &str, context: &str) -> Connection {
    let kc = Kubeconfig::from_yaml(yaml).unwrap();
    Connection::from_kubeconfig(kc, "fleet".into(), Some(context.to_string()))
        .await
        .unwrap()
}

async fn create_cm(conn: &Connection, name: &str) {
    let cms: Api<ConfigMap> = Api::namespaced(conn.client.clone(), "default");
    let cm: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": name},
        "data": {"k": "v"}
    }))
    .unwrap();
    tokio::time::timeout(HANG_GUARD, cms.create(&PostParams::default(), &cm))
        .await
        .expect("create hung")
        .unwrap();
}

async fn cm_exists(conn: &Connection, name: &str) -> bool {
    let cms: Api<ConfigMap> = Api::namespaced(conn.client.clone(), "default");
    tokio::time::timeout(HANG_GUARD, cms.get_opt(name))
        .await
        .expect("get hung")
        .unwrap()
        .is_some()
}

fn row_key(cluster: &str, name: &str) -> String {
    format!("{cluster}{CLUSTER_SEP}default/{name}")
}

/// Read actions until every key of `want` was upserted into `view` (deleted ones: `gone`);
/// the clusters named by the event tap entries seen meanwhile (`-` for the current one's).
async fn until_rows(
    rt: &mut Headless,
    view: u64,
    want: &[String],
    gone: &[String],
) -> BTreeSet<String> {
    let mut tapped = BTreeSet::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut deleted: BTreeSet<String> = BTreeSet::new();
    let deadline = Instant::now() + HANG_GUARD;
    while !want.iter().all(|k| seen.contains(k)) || !gone.iter().all(|k| deleted.contains(k)) {
        let action = tokio::time::timeout_at(deadline.into(), rt.next_action())
            .await
            .unwrap_or_else(|_| panic!("rows {want:?} / deletions {gone:?} never came: {seen:?}"))
            .expect("runtime alive");
        match action {
            Action::Rows {
                view: v,
                upserts,
                deletes,
            } if v == view => {
                for s in upserts {
                    assert!(
                        s.cluster().is_some(),
                        "a merged view's rows name their cluster: {}",
                        s.key
                    );
                    seen.insert(s.key.to_string());
                }
                deleted.extend(deletes.iter().map(|k| k.to_string()));
            }
            Action::Tap(entries) => tapped.extend(
                entries
                    .iter()
                    .map(|e| e.cluster.as_deref().unwrap_or("-").to_string()),
            ),
            _ => {}
        }
    }
    tapped
}

async fn configmaps(conn: &Connection) -> ResourceInfo {
    conn.discover()
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.api_resource.plural == "configmaps")
        .expect("configmaps discovered")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merged_view_keeps_same_named_objects_apart_and_a_delete_lands_on_its_own_cluster() {
    let Some(fleet) =
        fleet("a_merged_view_keeps_same_named_objects_apart_and_a_delete_lands_on_its_own_cluster")
            .await
    else {
        return;
    };
    let yaml = fleet.kubeconfig_yaml();
    let eu = connect(&yaml, "prod-eu").await;
    let us = connect(&yaml, "prod-us").await;
    for c in [&eu, &us] {
        create_cm(c, "payments").await;
    }
    let resource = configmaps(&eu).await;
    let mut rt = Headless::start(connect(&yaml, "prod-eu").await, Duration::from_secs(60));
    for member in ["prod-eu", "prod-us"] {
        rt.carry_out(Effect::WatchCluster(member.into())).await;
    }
    assert_eq!(
        rt.members(),
        ["prod-us"],
        "the current context is no member"
    );
    rt.carry_out(Effect::OpenResource {
        view: 1,
        resource: resource.clone(),
        namespace: None,
        drill: None,
    })
    .await;
    let both = [
        row_key("prod-eu", "payments"),
        row_key("prod-us", "payments"),
    ];
    let mut tapped = until_rows(&mut rt, 1, &both, &[]).await;
    // The informer panel's stats cover both clusters' configmaps informers, the member's named.
    let deadline = Instant::now() + HANG_GUARD;
    let mut clusters: BTreeSet<String> = BTreeSet::new();
    while clusters.len() < 2 {
        let action = tokio::time::timeout_at(deadline.into(), rt.next_action())
            .await
            .unwrap_or_else(|_| panic!("stats named only {clusters:?}"))
            .expect("runtime alive");
        match action {
            Action::InformerStats(rows) => {
                clusters = rows
                    .iter()
                    .filter(|r| r.resource == "configmaps" && r.synced)
                    .map(|r| r.cluster.as_deref().unwrap_or("-").to_string())
                    .collect();
            }
            Action::Tap(entries) => tapped.extend(
                entries
                    .iter()
                    .map(|e| e.cluster.as_deref().unwrap_or("-").to_string()),
            ),
            _ => {}
        }
    }
    assert_eq!(
        clusters,
        BTreeSet::from(["-".to_string(), "prod-us".to_string()])
    );

    // Delete prod-us's payments: the write names its cluster and goes there only.
    let write = Write {
        resource,
        namespace: Some("default".into()),
        name: "payments".into(),
        op: Operation::Delete(Propagation::Background),
        cluster: Some("prod-us".into()),
    };
    rt.carry_out(Effect::OnCluster {
        cluster: "prod-us".into(),
        effect: Box::new(Effect::Write(write)),
    })
    .await;
    tapped.extend(until_rows(&mut rt, 1, &[], &[row_key("prod-us", "payments")]).await);
    // The event log hears both: the current context's tap and the member's, named.
    create_cm(&eu, "tapped").await;
    let deadline = Instant::now() + HANG_GUARD;
    while !(tapped.contains("-") && tapped.contains("prod-us")) {
        let action = tokio::time::timeout_at(deadline.into(), rt.next_action())
            .await
            .unwrap_or_else(|_| panic!("the taps named only {tapped:?}"))
            .expect("runtime alive");
        if let Action::Tap(entries) = action {
            tapped.extend(
                entries
                    .iter()
                    .map(|e| e.cluster.as_deref().unwrap_or("-").to_string()),
            );
        }
    }
    assert!(!cm_exists(&us, "payments").await, "gone from prod-us");
    assert!(cm_exists(&eu, "payments").await, "prod-eu's is untouched");

    // An effect for a cluster not selected goes nowhere.
    rt.carry_out(Effect::OnCluster {
        cluster: "staging".into(),
        effect: Box::new(Effect::FetchYaml {
            request: 9,
            resource: configmaps(&eu).await,
            namespace: Some("default".into()),
            name: "payments".into(),
        }),
    })
    .await;
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        match tokio::time::timeout_at(deadline.into(), rt.next_action())
            .await
            .expect("no refusal")
            .expect("runtime alive")
        {
            Action::Notify { message, error } if message.contains("staging") => {
                assert!(error, "{message}");
                break;
            }
            Action::Yaml { .. } => panic!("a YAML of another cluster was fetched"),
            _ => {}
        }
    }
    rt.shutdown().await;
    fleet.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_member_going_down_and_back_rejoins_the_merged_view_while_the_other_keeps_updating() {
    let Some(fleet) = fleet(
        "a_member_going_down_and_back_rejoins_the_merged_view_while_the_other_keeps_updating",
    )
    .await
    else {
        return;
    };
    let yaml = fleet.kubeconfig_yaml();
    let eu = connect(&yaml, "prod-eu").await;
    let us = connect(&yaml, "prod-us").await;
    create_cm(&eu, "before").await;
    create_cm(&us, "before").await;
    let resource = configmaps(&eu).await;
    let mut rt = Headless::start(connect(&yaml, "prod-eu").await, Duration::from_secs(60));
    rt.set_probe_period(Duration::from_millis(200));
    for member in ["prod-eu", "prod-us"] {
        rt.carry_out(Effect::WatchCluster(member.into())).await;
    }
    rt.carry_out(Effect::OpenResource {
        view: 1,
        resource,
        namespace: None,
        drill: None,
    })
    .await;
    until_rows(
        &mut rt,
        1,
        &[row_key("prod-eu", "before"), row_key("prod-us", "before")],
        &[],
    )
    .await;
    // prod-us goes down for a while; prod-eu keeps updating its rows meanwhile.
    let (_, us_member) = &fleet.members[1];
    assert!(
        us_member
            .handle
            .faults()
            .restart(Duration::from_millis(1500))
    );
    create_cm(&eu, "during").await;
    until_rows(&mut rt, 1, &[row_key("prod-eu", "during")], &[]).await;
    // Back: prod-us's informer lists and watches again and its new objects reach the view.
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let us = connect(&yaml, "prod-us").await;
        let cms: Api<ConfigMap> = Api::namespaced(us.client.clone(), "default");
        if tokio::time::timeout(Duration::from_secs(2), cms.get_opt("before"))
            .await
            .is_ok_and(|r| r.is_ok())
        {
            break;
        }
        assert!(Instant::now() < deadline, "prod-us never came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    create_cm(&us, "after").await;
    until_rows(&mut rt, 1, &[row_key("prod-us", "after")], &[]).await;
    rt.shutdown().await;
    fleet.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logs_of_a_members_pod_stream_from_that_member() {
    use k8s_openapi::api::core::v1::Pod;
    use kinformer::ui::log_stream::{ContainerPick, LogEvent, PodFilter, StreamOptions};
    let Some(fleet) = fleet("logs_of_a_members_pod_stream_from_that_member").await else {
        return;
    };
    let yaml = fleet.kubeconfig_yaml();
    let eu = connect(&yaml, "prod-eu").await;
    let us = connect(&yaml, "prod-us").await;
    let names = |pods: Vec<Pod>| -> BTreeSet<(String, String)> {
        pods.into_iter()
            .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
            .map(|p| {
                (
                    p.metadata.namespace.unwrap_or_default(),
                    p.metadata.name.unwrap_or_default(),
                )
            })
            .collect()
    };
    let list = |c: &Connection| {
        let api: Api<Pod> = Api::all(c.client.clone());
        async move { api.list(&Default::default()).await.unwrap().items }
    };
    let eu_pods = names(list(&eu).await);
    let (namespace, pod) = names(list(&us).await)
        .into_iter()
        .find(|p| !eu_pods.contains(p))
        .expect("a running pod prod-us has and prod-eu has not");
    let mut rt = Headless::start(connect(&yaml, "prod-eu").await, Duration::from_secs(60));
    for member in ["prod-eu", "prod-us"] {
        rt.carry_out(Effect::WatchCluster(member.into())).await;
    }
    rt.carry_out(Effect::OnCluster {
        cluster: "prod-us".into(),
        effect: Box::new(Effect::OpenLogs {
            view: 3,
            namespace: namespace.clone(),
            filter: PodFilter::Name(pod.clone()),
            containers: ContainerPick::All,
            options: StreamOptions::default(),
        }),
    })
    .await;
    let deadline = Instant::now() + HANG_GUARD;
    'wait: loop {
        let action = tokio::time::timeout_at(deadline.into(), rt.next_action())
            .await
            .expect("no log lines from prod-us")
            .expect("runtime alive");
        if let Action::Log { view: 3, batch } = action {
            for e in batch {
                if let LogEvent::Lines { source, lines } = e
                    && source.pod == pod
                    && !lines.is_empty()
                {
                    break 'wait;
                }
            }
        }
    }
    rt.shutdown().await;
    fleet.stop().await;
}
