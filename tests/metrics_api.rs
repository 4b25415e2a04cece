//! `metrics.k8s.io` end to end: the demo server's PodMetrics/NodeMetrics over real HTTP, and the
//! dashboard's metrics poller against it (polling, absent API, 503, 403). No assertion on elapsed
//! time; `HANG_GUARD` only turns a hang into a failure.
//!
//! With `KINFORMER_TEST_KUBECONFIG` set these tests skip: whether a real cluster runs
//! metrics-server, and what it reports, is not ours to assert.

use std::sync::Arc;
use std::time::Duration;

use kinformer::app_main::{DemoSpec, RunningDemo, start_demo};
use kinformer::demo::metrics::MetricsMode;
use kinformer::informer::list_watch::client_for_informers;
use kinformer::render::metrics::{Usage, parse_bytes, parse_cpu_nanos};
use kinformer::runtime::metrics::{
    KubeMetricsSource, MetricsPoller, MetricsScope, MetricsSource, MetricsUpdate, Unavailable,
};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const HANG_GUARD: Duration = Duration::from_secs(30);

fn real_cluster(test: &str) -> bool {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping {test}: asserts the demo metrics-server's behaviour");
        return true;
    }
    false
}

async fn demo(metrics: bool) -> RunningDemo {
    start_demo(&DemoSpec {
        port: 0,
        pods: 90,
        nodes: Some(3),
        churn_per_sec: 0.0,
        seed: 3,
        history: 10_000,
        metrics,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 2.0,
    })
    .await
    .expect("demo")
}

fn source(d: &RunningDemo) -> Arc<dyn MetricsSource> {
    let url = d.handle.base_url().parse().expect("url");
    let client = client_for_informers(kube::Config::new(url)).expect("client");
    Arc::new(KubeMetricsSource::new(client))
}

async fn get(d: &RunningDemo, path: &str) -> (u16, Value) {
    let url = format!("{}{path}", d.handle.base_url());
    let body = tokio::time::timeout(HANG_GUARD, async {
        let client =
            client_for_informers(kube::Config::new(d.handle.base_url().parse().expect("url")))
                .expect("client");
        let req = http::Request::get(path).body(Vec::new()).expect("request");
        client.request_text(req).await
    })
    .await
    .expect("hang");
    match body {
        Ok(text) => (200, serde_json::from_str(&text).expect("json")),
        Err(kube::Error::Api(s)) => (s.code, Value::Null),
        Err(e) => panic!("{url}: {e}"),
    }
}

async fn next(rx: &mut mpsc::Receiver<MetricsUpdate>) -> MetricsUpdate {
    tokio::time::timeout(HANG_GUARD, rx.recv())
        .await
        .expect("no metrics update")
        .expect("poller ended")
}

fn running_pods(d: &RunningDemo) -> Vec<(String, String)> {
    let pods = kinformer::demo::mutation::ResourceId::new("", "v1", "pods");
    d.handle
        .cluster()
        .list(&pods, None)
        .into_iter()
        .filter(|p| p.pointer("/status/phase").and_then(Value::as_str) == Some("Running"))
        .filter(|p| {
            p.pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_empty())
        })
        .map(|p| {
            let s = |k: &str| {
                p.pointer(k)
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            (s("/metadata/namespace"), s("/metadata/name"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_group_is_discovered_like_an_aggregated_api() {
    if real_cluster("metrics_group_is_discovered_like_an_aggregated_api") {
        return;
    }
    let d = demo(true).await;
    let (code, apis) = get(&d, "/apis").await;
    assert_eq!(code, 200);
    let groups: Vec<&str> = apis["groups"]
        .as_array()
        .expect("groups")
        .iter()
        .filter_map(|g| g["name"].as_str())
        .collect();
    assert!(groups.contains(&"metrics.k8s.io"), "{groups:?}");
    let (code, list) = get(&d, "/apis/metrics.k8s.io/v1beta1").await;
    assert_eq!(code, 200);
    let kinds: Vec<(&str, &str)> = list["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or(""),
                r["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(kinds, [("nodes", "NodeMetrics"), ("pods", "PodMetrics")]);

    // Without metrics-server: not listed, 404.
    d.handle.metrics().set_mode(MetricsMode::Absent);
    let (_, apis) = get(&d, "/apis").await;
    assert!(!apis.to_string().contains("metrics.k8s.io"));
    assert_eq!(get(&d, "/apis/metrics.k8s.io/v1beta1").await.0, 404);
    // An APIService whose backend is down: listed, but 503.
    d.handle.metrics().set_mode(MetricsMode::Unavailable);
    assert!(
        get(&d, "/apis")
            .await
            .1
            .to_string()
            .contains("metrics.k8s.io")
    );
    assert_eq!(get(&d, "/apis/metrics.k8s.io/v1beta1").await.0, 503);
    d.handle.metrics().set_mode(MetricsMode::Forbidden);
    assert_eq!(get(&d, "/apis/metrics.k8s.io/v1beta1/pods").await.0, 403);
    d.churn.abort();
    d.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pod_metrics_cover_running_pods_and_nodes_sum_their_pods() {
    if real_cluster("pod_metrics_cover_running_pods_and_nodes_sum_their_pods") {
        return;
    }
    let d = demo(true).await;
    // Both lists from one scrape window (a window boundary between them is retried).
    let (pods, nodes) = loop {
        let (code, pods) = get(&d, "/apis/metrics.k8s.io/v1beta1/pods").await;
        assert_eq!(code, 200);
        let (code, nodes) = get(&d, "/apis/metrics.k8s.io/v1beta1/nodes").await;
        assert_eq!(code, 200);
        if pods["items"][0]["timestamp"] == nodes["items"][0]["timestamp"] {
            break (pods, nodes);
        }
    };
    assert_eq!(pods["kind"], "PodMetricsList");
    let items = pods["items"].as_array().expect("items");
    let mut listed: Vec<(String, String)> = items
        .iter()
        .map(|i| {
            (
                i["metadata"]["namespace"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
                i["metadata"]["name"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let mut running = running_pods(&d);
    listed.sort();
    running.sort();
    assert!(!running.is_empty());
    assert_eq!(listed, running, "exactly the running, scheduled pods");
    let mut pod_cpu = 0u64;
    let mut pod_mem = 0u64;
    for i in items {
        assert!(i["timestamp"].is_string() && i["window"].is_string());
        for c in i["containers"].as_array().expect("containers") {
            pod_cpu += parse_cpu_nanos(c["usage"]["cpu"].as_str().expect("cpu")).expect("cpu");
            pod_mem += parse_bytes(c["usage"]["memory"].as_str().expect("mem")).expect("mem");
        }
    }
    let nodes = nodes["items"].as_array().expect("items");
    assert_eq!(nodes.len(), 3);
    let node_cpu: u64 = nodes
        .iter()
        .map(|n| parse_cpu_nanos(n["usage"]["cpu"].as_str().unwrap_or("")).expect("cpu"))
        .sum();
    let node_mem: u64 = nodes
        .iter()
        .map(|n| parse_bytes(n["usage"]["memory"].as_str().unwrap_or("")).expect("mem"))
        .sum();
    // Node usage = its pods + system overhead.
    assert!(node_cpu > pod_cpu && node_mem > pod_mem);
    assert!(
        node_cpu < pod_cpu + 3 * 200_000_000,
        "{node_cpu} vs {pod_cpu}"
    );

    // One namespace, one pod, a label selector, and a pod that does not exist.
    let (ns, name) = &listed[0];
    let (code, one) = get(
        &d,
        &format!("/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods/{name}"),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(one["kind"], "PodMetrics");
    let (_, in_ns) = get(
        &d,
        &format!("/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods"),
    )
    .await;
    assert!(
        in_ns["items"]
            .as_array()
            .expect("items")
            .iter()
            .all(|i| i["metadata"]["namespace"] == ns.as_str())
    );
    let (code, _) = get(
        &d,
        &format!("/apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods/nope"),
    )
    .await;
    assert_eq!(code, 404);
    let (code, none) = get(
        &d,
        "/apis/metrics.k8s.io/v1beta1/pods?labelSelector=no-such-label%3Dx",
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(none["items"].as_array().map(Vec::len), Some(0));
    d.churn.abort();
    d.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poller_delivers_usage_per_scope_and_stops_with_its_view() {
    if real_cluster("poller_delivers_usage_per_scope_and_stops_with_its_view") {
        return;
    }
    let d = demo(true).await;
    let (tx, mut rx) = mpsc::channel(4);
    let cancel = CancellationToken::new();
    let poller = MetricsPoller::spawn(
        source(&d),
        vec![MetricsScope::Pods(None), MetricsScope::Nodes],
        Duration::from_millis(100),
        tx,
        cancel.clone(),
    );
    assert_eq!(poller.live(), 1);
    let running = running_pods(&d);
    for _ in 0..2 {
        let MetricsUpdate::Usage { scope, usage } = next(&mut rx).await else {
            panic!("expected pod usage");
        };
        assert_eq!(scope, MetricsScope::Pods(None));
        assert_eq!(usage.len(), running.len());
        for (ns, name) in &running {
            let u: &Usage = usage.get(&format!("{ns}/{name}")).expect("usage by key");
            assert!(u.mem > 0);
        }
        let MetricsUpdate::Usage { scope, usage } = next(&mut rx).await else {
            panic!("expected node usage");
        };
        assert_eq!(scope, MetricsScope::Nodes);
        assert_eq!(usage.len(), 3);
    }
    let before = d.handle.faults().request_count();
    cancel.cancel();
    tokio::time::timeout(HANG_GUARD, async {
        while poller.live() != 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("poller did not stop");
    tokio::time::sleep(Duration::from_millis(300)).await;
    // At most the request in flight when cancelled.
    assert!(d.handle.faults().request_count() <= before + 1);
    poller.stop().await;
    d.churn.abort();
    d.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absent_metrics_api_is_reported_once_and_not_retried_in_a_loop() {
    if real_cluster("absent_metrics_api_is_reported_once_and_not_retried_in_a_loop") {
        return;
    }
    let d = demo(false).await;
    let (tx, mut rx) = mpsc::channel(4);
    let poller = MetricsPoller::spawn(
        source(&d),
        vec![MetricsScope::Pods(None)],
        Duration::from_millis(50),
        tx,
        CancellationToken::new(),
    );
    assert_eq!(
        next(&mut rx).await,
        MetricsUpdate::Unavailable(Unavailable::NotServed)
    );
    let start = d.handle.faults().request_count();
    tokio::time::sleep(Duration::from_millis(800)).await;
    // Backoff 50, 100, 200, 400 ms...: a handful of discovery requests, not hundreds.
    let asked = d.handle.faults().request_count() - start;
    assert!(asked <= 5, "{asked} requests in 800 ms");
    assert!(rx.try_recv().is_err(), "the reason is said once");

    // metrics-server comes up: usage flows.
    d.handle.metrics().set_mode(MetricsMode::Serving);
    let u = next(&mut rx).await;
    assert!(matches!(u, MetricsUpdate::Usage { .. }), "{u:?}");
    // ... and goes down behind its APIService (503), then RBAC takes it away (403).
    d.handle.metrics().set_mode(MetricsMode::Unavailable);
    loop {
        match next(&mut rx).await {
            MetricsUpdate::Usage { .. } => continue,
            MetricsUpdate::Unavailable(Unavailable::ServiceUnavailable(_)) => break,
            other => panic!("{other:?}"),
        }
    }
    d.handle.metrics().set_mode(MetricsMode::Forbidden);
    let u = next(&mut rx).await;
    assert!(
        matches!(u, MetricsUpdate::Unavailable(Unavailable::Forbidden(_))),
        "{u:?}"
    );
    poller.stop().await;
    d.churn.abort();
    d.handle.shutdown().await;
}
