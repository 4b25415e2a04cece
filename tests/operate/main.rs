//! The dashboard's write path (`ui::operate`) and node drain (`ui::drain`) over real HTTP, against
//! the demo server (or the cluster `KINFORMER_TEST_KUBECONFIG` points at: then node-changing
//! tests skip with a reason, and the rest run in their own namespace).
//! No assertion on elapsed time; `HANG_GUARD` only turns a hang into a failure.
//!
//! Split by concept (the file had passed 1,500 lines): `writes` (the write path itself),
//! `dashboard` (the operating keys through `App`), `drain`, `exec` (exec and the shell), `forward`,
//! `edit`, `rollout`. The setup and the helpers several of them use are here.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Node, Pod};
use kinformer::cluster::{ConnectOptions, Connection, ResourceInfo, resolve};
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::runtime::drain::drain;
use kinformer::runtime::edit::{edit_loop, run_editor};
use kinformer::runtime::operate::execute;
use kinformer::ui::action::{Action, Effect, ObjectSummary};
use kinformer::ui::drain::{DrainEvent, DrainOptions};
use kinformer::ui::operate::{Operation, Propagation, Write};
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

const HANG_GUARD: Duration = Duration::from_secs(60);

struct Setup {
    conn: Connection,
    resources: Vec<ResourceInfo>,
    demo: Option<DemoHandle>,
    _dir: tempfile::TempDir,
    ns: String,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (kubeconfig, demo) = match std::env::var("KINFORMER_TEST_KUBECONFIG") {
        Ok(p) => (PathBuf::from(p), None),
        Err(_) => {
            let h = DemoServer::start(DemoOptions::default()).await.unwrap();
            let path = dir.path().join("kubeconfig");
            h.write_kubeconfig(&path).unwrap();
            (path, Some(h))
        }
    };
    let conn = Connection::open(&ConnectOptions {
        kubeconfig: Some(kubeconfig),
        context: None,
    })
    .await
    .unwrap();
    let resources = conn.discover().await.unwrap();
    let ns = format!("kinformer-operate-{}", rand::random::<u32>());
    let nss: Api<Namespace> = Api::all(conn.client.clone());
    nss.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap(),
    )
    .await
    .unwrap();
    Setup {
        conn,
        resources,
        demo,
        _dir: dir,
        ns,
    }
}

impl Setup {
    fn resource(&self, typed: &str) -> ResourceInfo {
        resolve(&self.resources, typed)
            .unwrap_or_else(|| panic!("{typed} is not served"))
            .clone()
    }

    fn write(&self, typed: &str, name: &str, op: Operation) -> Write {
        let resource = self.resource(typed);
        let namespace = resource.namespaced.then(|| self.ns.clone());
        Write {
            resource,
            namespace,
            name: name.into(),
            op,
            cluster: None,
        }
    }

    async fn cleanup(self) {
        let nss: Api<Namespace> = Api::all(self.conn.client.clone());
        let _ = nss.delete(&self.ns, &DeleteParams::default()).await;
    }
}

fn deployment(name: &str) -> Deployment {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}
    }))
    .unwrap()
}

/// Create a bare Node named `node` (the demo's scheduler then may place pods on it); returns
/// the nodes API.
async fn create_node(s: &Setup, node: &str) -> Api<Node> {
    let nodes: Api<Node> = Api::all(s.conn.client.clone());
    nodes
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": node}})).unwrap(),
        )
        .await
        .unwrap();
    nodes
}

/// A running pod (the demo has no kubelet: the test reports it running, as a kubelet would).
async fn running_pod(s: &Setup, name: &str) -> Api<Pod> {
    let client = s.conn.client.clone();
    let cms: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), &s.ns);
    cms.create(
        &PostParams::default(),
        &serde_json::from_value(
            json!({"metadata": {"name": "cfg"}, "data": {"app.yaml": "port: 8080\n"}}),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    let pods: Api<Pod> = Api::namespaced(client, &s.ns);
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": name},
            "spec": {"volumes": [{"name": "cfg", "configMap": {"name": "cfg"}}],
                     "containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                        "env": [{"name": "MODE", "value": "demo"}],
                        "ports": [{"containerPort": 8080, "name": "http"}],
                        "volumeMounts": [{"name": "cfg", "mountPath": "/etc/config"}]},
                                    {"name": "sidecar", "image": "registry.k8s.io/pause:3.10"}]}}))
        .unwrap(),
    )
    .await
    .unwrap();
    pods.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}]}})),
    )
    .await
    .unwrap();
    pods
}

async fn read_all(mut r: impl tokio::io::AsyncRead + Unpin) -> String {
    use tokio::io::AsyncReadExt;
    let mut s = String::new();
    tokio::time::timeout(HANG_GUARD, r.read_to_string(&mut s))
        .await
        .expect("output ends")
        .unwrap();
    s
}

/// An app showing `rows` of `resource` in the test namespace, as the runtime would feed it.
fn dashboard(s: &Setup, resource: &str, rows: Vec<kinformer::ui::action::ObjectSummary>) -> App {
    let cfg = AppConfig {
        resource: resource.into(),
        namespace: Some(s.ns.clone()),
        ..AppConfig::default()
    };
    let mut app = App::new(cfg, KeyMap::defaults().unwrap());
    app.update(Action::Discovery(s.resources.clone()));
    let fx = app.init();
    let Some(Effect::OpenResource { view, .. }) = fx.first() else {
        panic!("no view opened: {fx:?}")
    };
    app.update(Action::Resync { view: *view, rows });
    app
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    let m = match code {
        KeyCode::Char(c) if c.is_ascii_uppercase() => KeyModifiers::SHIFT,
        _ => KeyModifiers::NONE,
    };
    app.update(Action::Key(KeyEvent::new(code, m)))
}

async fn carry_out(client: &kube::Client, fx: Vec<Effect>) -> String {
    match &fx[..] {
        [Effect::Write(w)] => {
            let out = execute(client.clone(), w).await;
            assert!(!out.error, "{}", out.message);
            out.message
        }
        other => panic!("expected one write, got {other:?}"),
    }
}

/// The row the dashboard would show for `name` of `typed`, read back from the server.
async fn row_of(s: &Setup, typed: &str, name: &str) -> ObjectSummary {
    let info = s.resource(typed);
    let dynamic: Api<DynamicObject> =
        Api::namespaced_with(s.conn.client.clone(), &s.ns, &info.api_resource);
    let obj = Arc::new(dynamic.get(name).await.unwrap());
    ObjectSummary::from_object(&info.api_resource.kind, &obj, None).unwrap()
}

mod apply;
mod dashboard;
mod drain;
mod edit;
mod exec;
mod forward;
mod rollout;
mod writes;
