//! The demo API server over real HTTP, through `kube::Client`.
//!
//! With `KINFORMER_TEST_KUBECONFIG` set, the portable tests run against that cluster instead (in
//! their own namespace, deleted afterwards); demo-only tests (fault injection, compaction, tight
//! bookmark periods, server-owned status) print why and skip there.

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Pod};
use kinformer::demo::mutation::{Mutation, ResourceId};
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kube::api::{
    Api, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde_json::json;

/// Only guards against a hang; no test asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(20);

struct Env {
    client: Client,
    demo: Option<DemoHandle>,
    ns: String,
}

async fn client_for(yaml: &str) -> Client {
    let kc = Kubeconfig::from_yaml(yaml).unwrap();
    let cfg = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .unwrap();
    Client::try_from(cfg).unwrap()
}

/// A client and a fresh namespace, on the demo server or on `KINFORMER_TEST_KUBECONFIG`.
async fn env() -> Env {
    env_with(DemoOptions::default()).await
}

async fn env_with(opts: DemoOptions) -> Env {
    let (client, demo) = match std::env::var("KINFORMER_TEST_KUBECONFIG") {
        Ok(path) => {
            let yaml = std::fs::read_to_string(path).unwrap();
            (client_for(&yaml).await, None)
        }
        Err(_) => {
            let h = DemoServer::start(opts).await.unwrap();
            (client_for(&h.kubeconfig_yaml()).await, Some(h))
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
    Env { client, demo, ns }
}

/// A demo server only (fault injection, compaction): `None` on a real cluster.
async fn demo_only(opts: DemoOptions, test: &str) -> Option<Env> {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping {test}: demo-only behaviour, KINFORMER_TEST_KUBECONFIG is set");
        return None;
    }
    Some(env_with(opts).await)
}

impl Env {
    fn cms(&self) -> Api<ConfigMap> {
        Api::namespaced(self.client.clone(), &self.ns)
    }

    async fn cleanup(self) {
        let nss: Api<Namespace> = Api::all(self.client.clone());
        let _ = nss.delete(&self.ns, &DeleteParams::default()).await;
        if let Some(h) = self.demo {
            h.shutdown().await;
        }
    }
}

fn cm(name: &str, labels: serde_json::Value) -> ConfigMap {
    serde_json::from_value(
        json!({"metadata": {"name": name, "labels": labels}, "data": {"k": "v"}}),
    )
    .unwrap()
}

fn api_code(e: &kube::Error) -> Option<(u16, String)> {
    match e {
        kube::Error::Api(s) => Some((s.code, s.reason.clone())),
        _ => None,
    }
}

async fn next_event<K>(
    s: &mut (impl futures::Stream<Item = kube::Result<WatchEvent<K>>> + Unpin),
) -> WatchEvent<K> {
    tokio::time::timeout(HANG_GUARD, s.next())
        .await
        .expect("watch event within the hang guard")
        .expect("watch stream still open")
        .expect("watch event decodes")
}

fn name_of<K: kube::Resource>(ev: &WatchEvent<K>) -> (&'static str, String) {
    match ev {
        WatchEvent::Added(o) => ("ADDED", o.meta().name.clone().unwrap_or_default()),
        WatchEvent::Modified(o) => ("MODIFIED", o.meta().name.clone().unwrap_or_default()),
        WatchEvent::Deleted(o) => ("DELETED", o.meta().name.clone().unwrap_or_default()),
        WatchEvent::Bookmark(_) => ("BOOKMARK", String::new()),
        WatchEvent::Error(s) => ("ERROR", s.reason.clone()),
    }
}

async fn list_rv(api: &Api<ConfigMap>) -> String {
    api.list(&ListParams::default())
        .await
        .unwrap()
        .metadata
        .resource_version
        .unwrap()
}

fn pod(ns: &str, name: &str, node: &str, phase: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": "big"}},
        "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": phase}})
}

mod api;
mod discovery;
mod lifecycle;
mod rbac;
