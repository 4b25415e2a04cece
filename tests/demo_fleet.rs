//! `--demo-clusters N` / `demo-server --clusters N`: N demo API servers, one kubeconfig with a
//! context each. Every context reaches its own cluster (kube client, and kubectl when on PATH),
//! the members differ (own seeds), and taking one down leaves the others answering.
//!
//! Demo-only by nature: skipped (with the reason printed) when `KINFORMER_TEST_KUBECONFIG` is set.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Pod;
use kinformer::app_main::{DemoSpec, RunningFleet, start_demo_fleet};
use kinformer::cluster::Connection;
use kinformer::demo::realistic::PodShape;
use kube::api::{Api, ListParams};
use kube::config::Kubeconfig;

/// Only guards against a hang; nothing asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(30);
const PODS: usize = 40;

fn spec() -> DemoSpec {
    DemoSpec {
        port: 0,
        pods: PODS,
        nodes: None,
        churn_per_sec: 0.0,
        seed: 1,
        history: 10_000,
        metrics: false,
        namespace_user: None,
        pod_shape: PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 1.0,
    }
}

async fn fleet(test: &str, clusters: usize) -> Option<RunningFleet> {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping {test}: demo-only behaviour, KINFORMER_TEST_KUBECONFIG is set");
        return None;
    }
    Some(start_demo_fleet(&spec(), clusters).await.unwrap())
}

async fn connect(yaml: &str, context: &str) -> Connection {
    let kc = Kubeconfig::from_yaml(yaml).unwrap();
    Connection::from_kubeconfig(kc, "fleet".into(), Some(context.to_string()))
        .await
        .unwrap()
}

async fn pod_names(conn: &Connection) -> Result<BTreeSet<String>, kube::Error> {
    let pods: Api<Pod> = Api::all(conn.client.clone());
    let list = tokio::time::timeout(HANG_GUARD, pods.list(&ListParams::default()))
        .await
        .expect("list hung")?;
    Ok(list
        .items
        .iter()
        .map(|p| {
            format!(
                "{}/{}",
                p.metadata.namespace.clone().unwrap_or_default(),
                p.metadata.name.clone().unwrap_or_default()
            )
        })
        .collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fleet_context_reaches_its_own_seeded_cluster() {
    let Some(fleet) = fleet("every_fleet_context_reaches_its_own_seeded_cluster", 3).await else {
        return;
    };
    let yaml = fleet.kubeconfig_yaml();
    let kc = Kubeconfig::from_yaml(&yaml).unwrap();
    let contexts: Vec<String> = kc.contexts.iter().map(|c| c.name.clone()).collect();
    assert_eq!(contexts, ["prod-eu", "prod-us", "staging"]);
    assert_eq!(kc.current_context.as_deref(), Some("prod-eu"));
    let mut seen = Vec::new();
    for ((name, member), context) in fleet.members.iter().zip(&contexts) {
        assert_eq!(name, context);
        let conn = connect(&yaml, context).await;
        assert_eq!(conn.context, *context);
        assert_eq!(
            conn.server.trim_end_matches('/'),
            member.handle.base_url(),
            "{context} points at its own server"
        );
        assert_eq!(conn.contexts, contexts);
        let names = pod_names(&conn).await.unwrap();
        assert_eq!(names.len(), PODS, "{context} serves its seeded pods");
        seen.push(names);
    }
    // Own seeds: no two members are the same cluster.
    assert_ne!(seen[0], seen[1]);
    assert_ne!(seen[1], seen[2]);
    assert_ne!(seen[0], seen[2]);
    fleet.stop().await;
}

fn kubectl_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("kubectl"))
        .find(|p| p.is_file())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reaches_each_fleet_context() {
    let Some(kubectl) = kubectl_on_path() else {
        println!("skipping kubectl_reaches_each_fleet_context: kubectl is not on PATH");
        return;
    };
    let Some(fleet) = fleet("kubectl_reaches_each_fleet_context", 2).await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    std::fs::write(&path, fleet.kubeconfig_yaml()).unwrap();
    for (name, member) in &fleet.members {
        let conn = connect(&fleet.kubeconfig_yaml(), name).await;
        let expected = pod_names(&conn).await.unwrap();
        let mut cmd = tokio::process::Command::new(&kubectl);
        cmd.arg("--kubeconfig")
            .arg(&path)
            .args(["--context", name, "get", "pods", "-A", "--no-headers"])
            .args([
                "-o",
                "custom-columns=NS:.metadata.namespace,NAME:.metadata.name",
            ])
            .kill_on_drop(true);
        let out = tokio::time::timeout(HANG_GUARD, cmd.output())
            .await
            .expect("kubectl hung")
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "kubectl --context {name}: {stderr}");
        let got: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let mut f = l.split_whitespace();
                Some(format!("{}/{}", f.next()?, f.next()?))
            })
            .collect();
        assert_eq!(
            got,
            expected,
            "kubectl --context {name} lists {}",
            member.handle.base_url()
        );
    }
    fleet.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn taking_one_fleet_member_down_leaves_the_others_answering() {
    let Some(fleet) = fleet(
        "taking_one_fleet_member_down_leaves_the_others_answering",
        2,
    )
    .await
    else {
        return;
    };
    let yaml = fleet.kubeconfig_yaml();
    let eu = connect(&yaml, "prod-eu").await;
    let us = connect(&yaml, "prod-us").await;
    let us_before = pod_names(&us).await.unwrap();
    // Through the member's own fault endpoint, as `demo-server --clusters` prints it.
    us.client
        .request_text(
            http::Request::post("/_demo/faults/restart?downtime_ms=3000")
                .body(Vec::new())
                .unwrap(),
        )
        .await
        .unwrap();
    // The restart is asynchronous: wait until prod-us stops answering.
    let deadline = Instant::now() + HANG_GUARD;
    while pod_names(&us).await.is_ok() {
        assert!(Instant::now() < deadline, "prod-us never went down");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        pod_names(&eu).await.unwrap().len(),
        PODS,
        "prod-eu answers while prod-us is down"
    );
    let deadline = Instant::now() + HANG_GUARD;
    let us_after = loop {
        match pod_names(&us).await {
            Ok(names) => break names,
            Err(_) => {
                assert!(Instant::now() < deadline, "prod-us never came back");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    };
    assert_eq!(us_after, us_before, "prod-us comes back with its state");
    fleet.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runtime_probes_see_one_member_go_down_and_back_while_the_other_stays_up() {
    use kinformer::runtime::Headless;
    use kinformer::ui::action::{Action, ClusterHealth, Effect};
    let Some(fleet) = fleet(
        "runtime_probes_see_one_member_go_down_and_back_while_the_other_stays_up",
        2,
    )
    .await
    else {
        return;
    };
    let yaml = fleet.kubeconfig_yaml();
    let eu = connect(&yaml, "prod-eu").await;
    let mut rt = Headless::start(eu, Duration::from_secs(60));
    rt.set_probe_period(Duration::from_millis(100));
    for member in ["prod-eu", "prod-us"] {
        rt.carry_out(Effect::WatchCluster(member.into())).await;
    }
    // A second watch of the same member starts nothing.
    rt.carry_out(Effect::WatchCluster("prod-us".into())).await;
    assert_eq!(rt.probed_clusters(), ["prod-eu", "prod-us"]);
    let (_, us) = &fleet.members[1];
    let mut phase = 0; // 0: both up, 1: prod-us down, 2: prod-us back
    let mut eu_up = false;
    let deadline = Instant::now() + HANG_GUARD;
    while phase < 2 || !eu_up {
        let action = tokio::time::timeout_at(deadline.into(), rt.next_action())
            .await
            .unwrap_or_else(|_| panic!("stuck in phase {phase}"))
            .expect("runtime alive");
        let Action::ClusterHealth { context, health } = action else {
            continue;
        };
        match (context.as_str(), &health, phase) {
            ("prod-eu", ClusterHealth::Up { kinds, .. }, _) => {
                let kinds = kinds.as_ref().expect("discovered when it came up");
                assert!(kinds.iter().any(|k| k == "deployments.apps"), "{kinds:?}");
                eu_up = true
            }
            ("prod-eu", other, _) => panic!("prod-eu left up: {other:?}"),
            ("prod-us", ClusterHealth::Up { .. }, 0) => {
                assert!(us.handle.faults().restart(Duration::from_millis(1500)));
                phase = 1;
            }
            ("prod-us", ClusterHealth::Unreachable { retry_at_ms, .. }, 1) => {
                assert!(*retry_at_ms > 0, "a countdown to the next probe");
                phase = 2;
            }
            ("prod-us", ClusterHealth::Unreachable { .. }, 2) => {}
            ("prod-us", ClusterHealth::Up { .. }, 2) => phase = 3,
            (c, h, p) => panic!("unexpected {c} {h:?} in phase {p}"),
        }
    }
    // Until prod-us answered again.
    while phase < 3 {
        let action = tokio::time::timeout_at(deadline.into(), rt.next_action())
            .await
            .expect("prod-us never came back")
            .expect("runtime alive");
        match action {
            Action::ClusterHealth { context, health } if context == "prod-us" => {
                if matches!(health, ClusterHealth::Up { .. }) {
                    phase = 3;
                }
            }
            Action::ClusterHealth { context, health } => {
                assert!(
                    matches!(health, ClusterHealth::Up { .. }),
                    "{context}: {health:?}"
                )
            }
            _ => {}
        }
    }
    rt.carry_out(Effect::UnwatchCluster("prod-us".into())).await;
    assert_eq!(rt.probed_clusters(), ["prod-eu"]);
    rt.shutdown().await;
    fleet.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_compares_the_same_named_object_across_members() {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kinformer::runtime::Headless;
    use kinformer::ui::action::{Action, Effect};
    use kube::api::PostParams;
    let Some(fleet) = fleet("diff_compares_the_same_named_object_across_members", 3).await else {
        return;
    };
    let yaml = fleet.kubeconfig_yaml();
    for (context, image) in [("prod-eu", "payments:1.4.2"), ("prod-us", "payments:1.4.1")] {
        let conn = connect(&yaml, context).await;
        let cms: Api<ConfigMap> = Api::namespaced(conn.client.clone(), "default");
        let cm: ConfigMap = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "payments"},
            "data": {"image": image, "region": "any"}
        }))
        .unwrap();
        cms.create(&PostParams::default(), &cm).await.unwrap();
    }
    let eu = connect(&yaml, "prod-eu").await;
    let configmaps = eu
        .discover()
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.api_resource.plural == "configmaps")
        .expect("configmaps discovered");
    let mut rt = Headless::start(eu, Duration::from_secs(60));
    rt.carry_out(Effect::FetchDiff {
        request: 7,
        resource: configmaps,
        namespace: Some("default".into()),
        name: "payments".into(),
        contexts: vec!["prod-eu".into(), "prod-us".into(), "staging".into()],
    })
    .await;
    let text = loop {
        let action = tokio::time::timeout(HANG_GUARD, rt.next_action())
            .await
            .expect("no diff")
            .expect("runtime alive");
        if let Action::Diff { request: 7, result } = action {
            break result.unwrap();
        }
    };
    assert!(text.contains("staging: not found"), "{text}");
    assert!(
        text.contains("data.image\n  prod-eu  payments:1.4.2\n  prod-us  payments:1.4.1"),
        "{text}"
    );
    assert!(
        !text.contains("data.region"),
        "equal fields are not listed: {text}"
    );
    assert!(!text.contains("resourceVersion"), "{text}");
    rt.shutdown().await;
    fleet.stop().await;
}
