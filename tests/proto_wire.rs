//! Protobuf on the wire, end to end over HTTP: the lister-watcher asks
//! `application/vnd.kubernetes.protobuf, application/json` for built-in kinds and the server (the
//! demo server, or `KINFORMER_TEST_KUBECONFIG`'s cluster) answers protobuf; the cached objects are
//! the ones the JSON path gives.
//!
//! Portable tests run unchanged on a real cluster (in their own namespace); the one that needs a
//! server answering JSON to a protobuf request is demo-only and says why it skips.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::informer::Error;
use kinformer::informer::delta_fifo::{DeltaFifo, DeltaFifoOptions};
use kinformer::informer::list_watch::{
    KubeListerWatcher, ListOptions, ListerWatcher, WatchEvent, WatchOptions, client_for_informers,
};
use kinformer::informer::pb::{self, client::WireFormat};
use kinformer::informer::reflector::{Reflector, ReflectorConfig, ReflectorState};
use kinformer::render;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::discovery::ApiResource;
use kube::{Client, Config};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Only guards against a hang; no test asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(20);

const PROTOBUF_FIRST: &str = "application/vnd.kubernetes.protobuf, application/json";

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
                kinformer::informer::cached::to_json(&o).unwrap(),
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

/// A page of a protobuf list says how many objects follow (`remainingItemCount`) as its JSON
/// twin does: the first list's `12,345 of 100,000` and the history check read it.
#[tokio::test]
async fn a_protobuf_page_says_how_many_follow_as_the_json_page_does() {
    let env = env(None).await.unwrap();
    for n in ["a", "b", "c"] {
        env.create_pod(n, json!({})).await;
    }
    let first_page = ListOptions {
        limit: Some(1),
        ..ListOptions::default()
    };
    let proto = env.lister(WireFormat::Protobuf);
    let json = env.lister(WireFormat::Json);
    let from_proto = tokio::time::timeout(HANG_GUARD, proto.list(&first_page))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(proto.wire(), "protobuf");
    let from_json = tokio::time::timeout(HANG_GUARD, json.list(&first_page))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        from_proto.remaining_item_count,
        from_json.remaining_item_count
    );
    if env.demo.is_some() {
        assert_eq!(from_proto.remaining_item_count, Some(2));
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
    // one no release has, as a field newer than the tables would be); a real API server always
    // has the table, so this is demo-only.
    let Some(env) = env(Some("a_server_answering_json_is_read_and_remembered")).await else {
        return;
    };
    // Posted as raw JSON: a typed Pod would drop the field.
    let raw: Api<DynamicObject> =
        Api::namespaced_with(env.client.clone(), &env.ns, &ApiResource::erase::<Pod>(&()));
    let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "aff"},
        "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}],
                 "aFieldFromANewerRelease": {"x": 1}}});
    raw.create(
        &PostParams::default(),
        &serde_json::from_value(pod).unwrap(),
    )
    .await
    .unwrap();
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
    // CustomResourceDefinitions (apiextensions.k8s.io) have no table.
    let ar = ApiResource {
        group: "apiextensions.k8s.io".into(),
        version: "v1".into(),
        api_version: "apiextensions.k8s.io/v1".into(),
        kind: "CustomResourceDefinition".into(),
        plural: "customresourcedefinitions".into(),
    };
    let lw = KubeListerWatcher::dynamic(env.client.clone(), &ar, None);
    assert_eq!(lw.wire(), "json");
    lw.list(&ListOptions::default()).await.unwrap();
    env.cleanup().await;
}

/// A raw GET asking protobuf first: the status code, the `Content-Type` and the body.
async fn raw_get(client: &Client, path: &str, accept: &str) -> (u16, String, Vec<u8>) {
    use http_body_util::BodyExt as _;
    let req = http::Request::get(path)
        .header(http::header::ACCEPT, accept)
        .body(kube::client::Body::from(Vec::new()))
        .unwrap();
    let res = tokio::time::timeout(HANG_GUARD, client.send(req))
        .await
        .unwrap()
        .unwrap();
    let ct = res
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    let code = res.status().as_u16();
    let body = res.into_body().collect().await.unwrap().to_bytes().to_vec();
    (code, ct, body)
}

/// Errors come back in the encoding the client asked for, as kube-apiserver negotiates them: a
/// protobuf request gets a protobuf `v1 Status` (`k8s\0` envelope), a JSON one a JSON `Status`;
/// the lister reads code and reason from either (403 is forbidden, 410 expired), and a watch
/// ERROR event over protobuf is Gone too. Demo-only: the 403 and 410 come from the demo's fault
/// injection.
#[tokio::test]
async fn protobuf_error_answers_keep_their_code_and_reason() {
    let Some(env) = env(Some("protobuf_error_answers_keep_their_code_and_reason")).await else {
        return;
    };
    let faults = env.demo.as_ref().unwrap().faults();
    let pods = format!("/api/v1/namespaces/{}/pods", env.ns);
    let (code, ct, body) = raw_get(&env.client, &format!("{pods}/nope"), PROTOBUF_FIRST).await;
    assert_eq!(code, 404);
    assert_eq!(ct, "application/vnd.kubernetes.protobuf");
    let (types, raw) = pb::unwrap_envelope(&body).unwrap();
    assert_eq!(
        (types.api_version.as_str(), types.kind.as_str()),
        ("v1", "Status")
    );
    match pb::decode_status(raw) {
        Error::Api {
            code,
            reason,
            message,
        } => {
            assert_eq!((code, reason.as_str()), (404, "NotFound"));
            assert!(message.contains("\"nope\" not found"), "{message}");
        }
        other => panic!("expected a NotFound Status, got {other:?}"),
    }
    let (code, ct, _) = raw_get(&env.client, &format!("{pods}/nope"), "application/json").await;
    assert_eq!((code, ct.as_str()), (404, "application/json"));

    let lw = env.lister(WireFormat::Protobuf);
    faults.forbid("", "pods");
    let (code, ct, _) = raw_get(&env.client, &pods, PROTOBUF_FIRST).await;
    assert_eq!(
        (code, ct.as_str()),
        (403, "application/vnd.kubernetes.protobuf")
    );
    let err = lw.list(&ListOptions::default()).await.unwrap_err();
    assert!(matches!(err, Error::Forbidden(_)), "{err:?}");
    // A forbidden answer is not a refusal of protobuf: the lister keeps asking for it.
    assert_eq!(lw.wire(), "protobuf");
    faults.allow("", "pods");

    faults.gone_next_list();
    let err = lw.list(&ListOptions::default()).await.unwrap_err();
    assert!(matches!(err, Error::Gone(_)), "{err:?}");
    let page = lw.list(&ListOptions::default()).await.unwrap();
    faults.gone_next_watch();
    let mut stream = lw
        .watch(&WatchOptions {
            resource_version: Some(page.resource_version),
            ..WatchOptions::default()
        })
        .await
        .unwrap();
    let first = tokio::time::timeout(HANG_GUARD, stream.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(
        matches!(first, WatchEvent::Error(Error::Gone(_))),
        "{first:?}"
    );
    assert_eq!(lw.wire(), "protobuf");
    env.cleanup().await;
}

/// The reflector over protobuf: a watch that the server answers with a protobuf 410 ERROR event
/// sends it back to a list (a relist), which succeeds; the store keeps every pod. Demo-only: the
/// expired watch is the demo's fault injection.
#[tokio::test]
async fn a_reflector_over_protobuf_relists_when_its_watch_expires() {
    let Some(env) = env(Some(
        "a_reflector_over_protobuf_relists_when_its_watch_expires",
    ))
    .await
    else {
        return;
    };
    let faults = env.demo.as_ref().unwrap().faults();
    for n in ["r1", "r2"] {
        env.create_pod(n, json!({})).await;
    }
    let lw = Arc::new(env.lister(WireFormat::Protobuf));
    let fifo = Arc::new(DeltaFifo::new(DeltaFifoOptions::default()));
    let reflector = Reflector::new(
        lw.clone(),
        fifo.clone(),
        ReflectorConfig {
            kind: "v1/Pod".into(),
            use_streaming_list: false,
            ..ReflectorConfig::default()
        },
    );
    let mut status = reflector.status();
    let cancel = CancellationToken::new();
    let task = tokio::spawn(reflector.run(cancel.clone()));
    tokio::time::timeout(
        HANG_GUARD,
        status.wait_for(|s| s.lists == 1 && s.state == ReflectorState::Watching),
    )
    .await
    .unwrap()
    .unwrap();
    // End the open watch; the reflector's next one is answered 410 Expired.
    faults.gone_next_watch();
    faults.drop_watches();
    let after = tokio::time::timeout(
        HANG_GUARD,
        status.wait_for(|s| s.relists >= 1 && s.state == ReflectorState::Watching),
    )
    .await
    .unwrap()
    .unwrap()
    .clone();
    assert!(
        matches!(after.last_error, Some(Error::Gone(_))),
        "{:?}",
        after.last_error
    );
    assert_eq!(after.malformed, 0);
    assert_eq!(lw.wire(), "protobuf");
    let mut keys = fifo.list_keys();
    keys.sort();
    assert_eq!(
        keys,
        vec![format!("{}/r1", env.ns), format!("{}/r2", env.ns)]
    );
    cancel.cancel();
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
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
        ApiResource::erase::<k8s_openapi::api::policy::v1::PodDisruptionBudget>(&()),
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
                    (key, kinformer::informer::cached::to_json(&o).unwrap())
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

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The kinds whose tables came after the workloads, each created from its realistic fixture (as
/// an API server prints it; identity, owners and history stripped): the server lists and gets
/// them in protobuf, and the lister caches what the JSON path caches. Cluster-scoped kinds only
/// on the demo (on a real cluster a PriorityClass marked `globalDefault` or a PersistentVolume
/// would touch more than the test's namespace).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_newer_builtin_kinds_round_trip_the_server_in_protobuf_as_in_json() {
    let env = env(None).await.unwrap();
    let on_demo = env.demo.is_some();
    let kinds: [(&str, &str, &str, &str, bool); 17] = [
        ("cronjob", "batch", "v1", "cronjobs", true),
        ("pvc", "", "v1", "persistentvolumeclaims", true),
        ("ingress", "networking.k8s.io", "v1", "ingresses", true),
        ("pdb", "policy", "v1", "poddisruptionbudgets", true),
        ("hpa", "autoscaling", "v2", "horizontalpodautoscalers", true),
        ("role", "rbac.authorization.k8s.io", "v1", "roles", true),
        (
            "rolebinding",
            "rbac.authorization.k8s.io",
            "v1",
            "rolebindings",
            true,
        ),
        (
            "networkpolicy",
            "networking.k8s.io",
            "v1",
            "networkpolicies",
            true,
        ),
        (
            "endpointslice",
            "discovery.k8s.io",
            "v1",
            "endpointslices",
            true,
        ),
        ("lease", "coordination.k8s.io", "v1", "leases", true),
        ("resourcequota", "", "v1", "resourcequotas", true),
        ("limitrange", "", "v1", "limitranges", true),
        ("pv", "", "v1", "persistentvolumes", false),
        (
            "clusterrole",
            "rbac.authorization.k8s.io",
            "v1",
            "clusterroles",
            false,
        ),
        (
            "clusterrolebinding",
            "rbac.authorization.k8s.io",
            "v1",
            "clusterrolebindings",
            false,
        ),
        (
            "storageclass",
            "storage.k8s.io",
            "v1",
            "storageclasses",
            false,
        ),
        (
            "priorityclass",
            "scheduling.k8s.io",
            "v1",
            "priorityclasses",
            false,
        ),
    ];
    let mut checked = 0;
    for (fixture_name, group, version, plural, namespaced) in kinds {
        if !namespaced && !on_demo {
            println!(
                "skipping cluster-scoped {plural}: demo-only (KINFORMER_TEST_KUBECONFIG is set)"
            );
            continue;
        }
        let mut obj = fixture(fixture_name);
        let kind = obj["kind"].as_str().unwrap().to_string();
        let name = format!("{}-{}", obj["metadata"]["name"].as_str().unwrap(), env.ns);
        let md = &obj["metadata"];
        let mut meta = json!({"name": name});
        for k in ["labels", "annotations"] {
            if let Some(v) = md.get(k) {
                meta[k] = v.clone();
            }
        }
        if let Some(l) = meta["labels"].as_object_mut() {
            // Not a slice for the EndpointSlice controller of a real cluster to manage.
            l.remove("endpointslice.kubernetes.io/managed-by");
        }
        obj["metadata"] = meta;
        let ar = ApiResource {
            group: group.into(),
            version: version.into(),
            api_version: if group.is_empty() {
                version.into()
            } else {
                format!("{group}/{version}")
            },
            kind: kind.clone(),
            plural: plural.into(),
        };
        let ns = namespaced.then_some(env.ns.as_str());
        let api: Api<DynamicObject> = match ns {
            Some(ns) => Api::namespaced_with(env.client.clone(), ns, &ar),
            None => Api::all_with(env.client.clone(), &ar),
        };
        api.create(
            &PostParams::default(),
            &serde_json::from_value(obj).unwrap(),
        )
        .await
        .unwrap_or_else(|e| panic!("creating {kind}: {e}"));
        let lister = |wire| {
            KubeListerWatcher::dynamic(env.client.clone(), &ar, ns)
                .with_mask(render::cache_mask(&kind))
                .with_wire(wire)
        };
        let (proto, json) = (lister(WireFormat::Protobuf), lister(WireFormat::Json));
        let cached_of = |items: Vec<DynamicObject>| {
            items
                .into_iter()
                .filter(|o| o.metadata.name.as_deref() == Some(name.as_str()))
                .map(|o| kinformer::informer::cached::to_json(&render::prune(&kind, o)).unwrap())
                .collect::<Vec<_>>()
        };
        // (A real cluster's controllers may write the object between the two lists: retry.)
        let mut same = false;
        for _ in 0..5 {
            let from_proto = cached_of(proto.list(&ListOptions::default()).await.unwrap().items);
            assert_eq!(
                proto.wire(),
                "protobuf",
                "{kind} was not answered in protobuf"
            );
            let from_json = cached_of(json.list(&ListOptions::default()).await.unwrap().items);
            assert_eq!(from_proto.len(), 1, "{kind}");
            let rv = |v: &[Value]| v[0]["metadata"]["resourceVersion"].clone();
            if rv(&from_proto) == rv(&from_json) {
                assert_eq!(from_proto, from_json, "{kind}");
                same = true;
                break;
            }
        }
        assert!(same, "{kind} kept changing between lists");
        // A get in protobuf (what kubectl describe does) answers protobuf too.
        let path = match ns {
            Some(ns) => format!("{}/namespaces/{ns}/{plural}/{name}", api_root(&ar)),
            None => format!("{}/{plural}/{name}", api_root(&ar)),
        };
        let (code, ct, _) = raw_get(&env.client, &path, PROTOBUF_FIRST).await;
        assert_eq!(
            (code, ct.as_str()),
            (200, "application/vnd.kubernetes.protobuf"),
            "{kind}"
        );
        if !namespaced {
            let _ = api.delete(&name, &DeleteParams::default()).await;
        }
        checked += 1;
    }
    assert!(checked >= 12);
    env.cleanup().await;
}

fn api_root(ar: &ApiResource) -> String {
    if ar.group.is_empty() {
        format!("/api/{}", ar.version)
    } else {
        format!("/apis/{}/{}", ar.group, ar.version)
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
