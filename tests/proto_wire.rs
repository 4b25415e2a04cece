//! Protobuf on the wire, end to end over HTTP: the lister-watcher asks
//! `application/vnd.kubernetes.protobuf, application/json` for built-in kinds and the server (the
//! demo server, or `KINFORMER_TEST_KUBECONFIG`'s cluster) answers protobuf; the cached objects are
//! the ones the JSON path gives.
//!
//! Portable tests run unchanged on a real cluster (in their own namespace); the one that needs a
//! server answering JSON to a protobuf request is demo-only and says why it skips.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::informer::list_watch::{
    KubeListerWatcher, ListOptions, ListerWatcher, WatchEvent, WatchOptions, client_for_informers,
};
use kinformer::informer::pb::client::WireFormat;
use kinformer::render;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::ApiResource;
use kube::{Client, Config};
use serde_json::{Value, json};

/// Only guards against a hang; no test asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(20);

struct Env {
    client: Client,
    demo: Option<DemoHandle>,
    ns: String,
}

async fn env(demo_only: Option<&str>) -> Option<Env> {
    let (client, demo) = match std::env::var("KINFORMER_TEST_KUBECONFIG") {
        Ok(path) => {
            if let Some(test) = demo_only {
                println!(
                    "skipping {test}: needs a server that answers JSON to a protobuf request (demo-only), KINFORMER_TEST_KUBECONFIG is set"
                );
                return None;
            }
            (
                config_client(&std::fs::read_to_string(path).unwrap()).await,
                None,
            )
        }
        Err(_) => {
            let h = DemoServer::start(DemoOptions::default()).await.unwrap();
            (config_client(&h.kubeconfig_yaml()).await, Some(h))
        }
    };
    let ns = format!("kinformer-test-{}", rand::random::<u32>());
    let nss: Api<Namespace> = Api::all(client.clone());
    nss.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap(),
    )
    .await
    .unwrap();
    Some(Env { client, demo, ns })
}

async fn config_client(yaml: &str) -> Client {
    let kc = Kubeconfig::from_yaml(yaml).unwrap();
    let cfg = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .unwrap();
    client_for_informers(cfg).unwrap()
}

impl Env {
    fn pods(&self) -> Api<Pod> {
        Api::namespaced(self.client.clone(), &self.ns)
    }

    fn lister(&self, wire: WireFormat) -> KubeListerWatcher<DynamicObject> {
        let ar = ApiResource::erase::<Pod>(&());
        KubeListerWatcher::dynamic(self.client.clone(), &ar, Some(&self.ns))
            .with_mask(render::cache_mask("Pod"))
            .with_wire(wire)
    }

    async fn create_pod(&self, name: &str, extra_spec: Value) {
        let mut spec = json!({"containers": [
            {"name": "app", "image": "registry.k8s.io/pause:3.10",
             "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
             "env": [{"name": "A", "value": "1"}],
             "readinessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 5}}]});
        if let (Some(s), Some(extra)) = (spec.as_object_mut(), extra_spec.as_object()) {
            s.extend(extra.clone());
        }
        let pod = json!({"metadata": {"name": name, "labels": {"app": "wire"},
                                      "annotations": {"note": "dropped by the cache"}},
                         "spec": spec});
        self.pods()
            .create(
                &PostParams::default(),
                &serde_json::from_value(pod).unwrap(),
            )
            .await
            .unwrap();
    }

    async fn cleanup(self) {
        let nss: Api<Namespace> = Api::all(self.client.clone());
        let _ = nss.delete(&self.ns, &DeleteParams::default()).await;
        if let Some(h) = self.demo {
            h.shutdown().await;
        }
    }
}

/// The cached form (what the dashboard's informer stores), keyed by name.
async fn cached(lw: &KubeListerWatcher<DynamicObject>) -> (Vec<(String, Value)>, String) {
    let page = lw.list(&ListOptions::default()).await.unwrap();
    let mut out: Vec<(String, Value)> = page
        .items
        .into_iter()
        .map(|o| {
            let o = render::prune("Pod", o);
            (
                o.metadata.name.clone().unwrap_or_default(),
                serde_json::to_value(&o).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    (out, page.resource_version)
}

#[tokio::test]
async fn protobuf_and_json_lists_cache_the_same_pods() {
    let env = env(None).await.unwrap();
    for n in ["a", "b", "c"] {
        env.create_pod(n, json!({})).await;
    }
    let proto = env.lister(WireFormat::Protobuf);
    let json = env.lister(WireFormat::Json);
    assert_eq!(proto.wire(), "protobuf");
    assert_eq!(json.wire(), "json");
    let (from_proto, _) = tokio::time::timeout(HANG_GUARD, cached(&proto))
        .await
        .unwrap();
    // Still protobuf: the server answered in protobuf.
    assert_eq!(proto.wire(), "protobuf");
    let (from_json, _) = tokio::time::timeout(HANG_GUARD, cached(&json))
        .await
        .unwrap();
    assert_eq!(from_proto.len(), 3);
    // On a real cluster the scheduler may write a pod between the two lists: compare those
    // that did not change.
    let same_rv =
        |a: &Value, b: &Value| a["metadata"]["resourceVersion"] == b["metadata"]["resourceVersion"];
    for ((name, p), (_, j)) in from_proto.iter().zip(&from_json) {
        if same_rv(p, j) {
            assert_eq!(p, j, "pod {name}");
        }
    }
    env.cleanup().await;
}

#[tokio::test]
async fn a_protobuf_watch_delivers_modified_and_deleted_pods() {
    let env = env(None).await.unwrap();
    env.create_pod("w", json!({})).await;
    let lw = env.lister(WireFormat::Protobuf);
    let (_, rv) = cached(&lw).await;
    let mut stream = lw
        .watch(&WatchOptions {
            resource_version: Some(rv),
            allow_watch_bookmarks: true,
            ..WatchOptions::default()
        })
        .await
        .unwrap();
    assert_eq!(lw.wire(), "protobuf");
    env.pods()
        .patch(
            "w",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "gold"}}})),
        )
        .await
        .unwrap();
    env.pods()
        .delete("w", &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    let mut seen = Vec::new();
    tokio::time::timeout(HANG_GUARD, async {
        while let Some(ev) = stream.next().await {
            match ev.unwrap() {
                WatchEvent::Modified(o) => {
                    if o.metadata
                        .labels
                        .as_ref()
                        .and_then(|l| l.get("tier"))
                        .map(String::as_str)
                        == Some("gold")
                    {
                        seen.push("MODIFIED");
                    }
                    // The cache mask applies to watch objects too.
                    assert!(o.metadata.annotations.is_none());
                }
                WatchEvent::Deleted(o) => {
                    assert_eq!(o.metadata.name.as_deref(), Some("w"));
                    seen.push("DELETED");
                    break;
                }
                WatchEvent::Malformed(m) => panic!("malformed event: {m}"),
                WatchEvent::Error(e) => panic!("watch error: {e}"),
                _ => {}
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(seen.first(), Some(&"MODIFIED"));
    assert_eq!(seen.last(), Some(&"DELETED"));
    env.cleanup().await;
}

#[tokio::test]
async fn a_server_answering_json_is_read_and_remembered() {
    // The demo server answers JSON when an object has a field its protobuf table lacks (here
    // `affinity`); a real API server always has the table, so this is demo-only.
    let Some(env) = env(Some("a_server_answering_json_is_read_and_remembered")).await else {
        return;
    };
    env.create_pod(
        "aff",
        json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}}),
    )
    .await;
    let lw = env.lister(WireFormat::Protobuf);
    let (items, _) = cached(&lw).await;
    assert_eq!(items.len(), 1);
    assert_eq!(lw.wire(), "json");
    // Later requests ask JSON only, and still work.
    let (again, _) = cached(&lw).await;
    assert_eq!(again, items);
    env.cleanup().await;
}

#[tokio::test]
async fn kinds_without_a_protobuf_table_ask_json() {
    let env = env(None).await.unwrap();
    let ar = ApiResource::erase::<k8s_openapi::api::policy::v1::PodDisruptionBudget>(&());
    let lw = KubeListerWatcher::dynamic(env.client.clone(), &ar, Some(&env.ns));
    assert_eq!(lw.wire(), "json");
    let page = lw.list(&ListOptions::default()).await.unwrap();
    assert!(page.items.is_empty());
    env.cleanup().await;
}

/// Every built-in kind with a protobuf table, listed cluster-wide from the realistic demo (or
/// `KINFORMER_TEST_KUBECONFIG`'s cluster): the server answers protobuf (no object of the kind
/// falls back to JSON) and the cached objects are those the JSON path caches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_builtin_kind_with_a_table_lists_in_protobuf_as_in_json() {
    use k8s_openapi::api::{apps::v1 as apps, batch::v1 as batch, core::v1 as core};
    let (client, demo) = match std::env::var("KINFORMER_TEST_KUBECONFIG") {
        Ok(path) => (
            config_client(&std::fs::read_to_string(path).unwrap()).await,
            None,
        ),
        Err(_) => {
            let d = kinformer::app_main::start_demo(&kinformer::app_main::DemoSpec {
                port: 0,
                pods: 60,
                nodes: Some(3),
                churn_per_sec: 0.0,
                seed: 7,
                history: 10_000,
                metrics: false,
                namespace_user: None,
                pod_shape: kinformer::demo::realistic::PodShape::Realistic,
                watch_list_unsupported: false,
                log_lines_per_second: 0.0,
            })
            .await
            .unwrap();
            (config_client(&d.handle.kubeconfig_yaml()).await, Some(d))
        }
    };
    let kinds = [
        ApiResource::erase::<core::Node>(&()),
        ApiResource::erase::<core::Service>(&()),
        ApiResource::erase::<core::Event>(&()),
        ApiResource::erase::<core::Secret>(&()),
        ApiResource::erase::<core::ServiceAccount>(&()),
        ApiResource::erase::<apps::Deployment>(&()),
        ApiResource::erase::<apps::ReplicaSet>(&()),
        ApiResource::erase::<apps::StatefulSet>(&()),
        ApiResource::erase::<apps::DaemonSet>(&()),
        ApiResource::erase::<batch::Job>(&()),
    ];
    for ar in &kinds {
        let lister = |wire| {
            KubeListerWatcher::dynamic(client.clone(), ar, None)
                .with_mask(render::cache_mask(&ar.kind))
                .with_wire(wire)
        };
        let (proto, json) = (lister(WireFormat::Protobuf), lister(WireFormat::Json));
        assert_eq!(proto.wire(), "protobuf", "{}", ar.kind);
        let list = |lw: KubeListerWatcher<DynamicObject>| async move {
            let page = tokio::time::timeout(HANG_GUARD, lw.list(&ListOptions::default()))
                .await
                .unwrap()
                .unwrap();
            let mut out: Vec<(String, Value)> = page
                .items
                .into_iter()
                .map(|o| {
                    let o = render::prune(&ar.kind, o);
                    let key = format!(
                        "{}/{}",
                        o.metadata.namespace.clone().unwrap_or_default(),
                        o.metadata.name.clone().unwrap_or_default()
                    );
                    (key, serde_json::to_value(&o).unwrap())
                })
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            (out, lw)
        };
        let (from_proto, proto) = list(proto).await;
        // The server answered every object of the kind in protobuf.
        assert_eq!(proto.wire(), "protobuf", "{}", ar.kind);
        let (from_json, _) = list(json).await;
        if demo.is_some() {
            assert!(
                !from_proto.is_empty(),
                "the realistic demo has {}s",
                ar.kind
            );
        }
        let json_by_key: std::collections::HashMap<_, _> = from_json.into_iter().collect();
        for (key, p) in &from_proto {
            // A real cluster may write an object between the two lists.
            if let Some(j) = json_by_key.get(key)
                && p["metadata"]["resourceVersion"] == j["metadata"]["resourceVersion"]
            {
                assert_eq!(p, j, "{} {key}", ar.kind);
            }
        }
    }
    if let Some(d) = demo {
        d.churn.abort();
        d.scales.abort();
        d.handle.shutdown().await;
    }
}

/// `send-rate?mbps=J&pb_mbps=P` paces each encoding at its own rate, lists and watches alike:
/// the body takes at least its size over the rate of its encoding. Demo-only (fault endpoint);
/// the one test here that looks at elapsed time, and only as a lower bound.
#[tokio::test]
async fn the_demo_send_rate_paces_protobuf_and_json_bodies_at_their_own_rates() {
    let Some(env) = env(Some(
        "the_demo_send_rate_paces_protobuf_and_json_bodies_at_their_own_rates",
    ))
    .await
    else {
        return;
    };
    // About 400 KB in either encoding, so that the rates below are over 1 MB/s.
    for i in 0..4 {
        let pod = json!({"metadata": {"name": format!("p{i}"),
                                      "annotations": {"pad": "x".repeat(100_000)}},
                         "spec": {"containers": [{"name": "app", "image": "pause"}]}});
        env.pods()
            .create(
                &PostParams::default(),
                &serde_json::from_value(pod).unwrap(),
            )
            .await
            .unwrap();
    }
    let list = |accept: &'static str| {
        let client = env.client.clone();
        let url = format!("/api/v1/namespaces/{}/pods", env.ns);
        async move {
            let req = http::Request::get(url)
                .header(http::header::ACCEPT, accept)
                .body(Vec::new())
                .unwrap();
            let start = std::time::Instant::now();
            let res = tokio::time::timeout(HANG_GUARD, client.send(req.map(Into::into)))
                .await
                .unwrap()
                .unwrap();
            let proto = res.headers()[http::header::CONTENT_TYPE]
                .to_str()
                .unwrap()
                .starts_with(kinformer::informer::pb::PROTOBUF);
            let body = http_body_util::BodyExt::collect(res.into_body())
                .await
                .unwrap()
                .to_bytes();
            (start.elapsed(), body.len(), proto)
        }
    };
    const PB: &str = kinformer::informer::pb::ACCEPT_PROTOBUF_OR_JSON;
    let post = |q: &str| {
        http::Request::post(format!("/_demo/faults/send-rate?{q}"))
            .body(Vec::new())
            .unwrap()
    };
    let (_, json_len, _) = list("application/json").await;
    let (_, pb_len, proto) = list(PB).await;
    assert!(proto && pb_len < json_len, "{pb_len} vs {json_len}");
    // A rate per encoding, in MB/s; the slow one makes the body last about 0.3 s.
    let slow = |len: usize| ((len as f64 / 0.3 / 1e6) as u64).max(1);
    let at_least =
        |len: usize, mbps: u64| Duration::from_secs_f64(len as f64 / (mbps * 1_000_000) as f64);
    env.client
        .request_text(post(&format!("mbps=1000&pb_mbps={}", slow(pb_len))))
        .await
        .unwrap();
    let (t, len, proto) = list(PB).await;
    assert!(
        proto && t >= at_least(len, slow(pb_len)),
        "protobuf: {t:?} for {len} B"
    );
    env.client
        .request_text(post(&format!("mbps={}&pb_mbps=1000", slow(json_len))))
        .await
        .unwrap();
    let (t, len, proto) = list("application/json").await;
    assert!(
        !proto && t >= at_least(len, slow(json_len)),
        "JSON: {t:?} for {len} B"
    );
    // Without `pb_mbps`, protobuf takes JSON's rate.
    env.client
        .request_text(post(&format!("mbps={}", slow(pb_len))))
        .await
        .unwrap();
    let (t, len, _) = list(PB).await;
    assert!(
        t >= at_least(len, slow(pb_len)),
        "protobuf at JSON's rate: {t:?} for {len} B"
    );
    env.client.request_text(post("mbps=0")).await.unwrap();
    env.cleanup().await;
}
