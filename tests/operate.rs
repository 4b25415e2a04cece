//! The dashboard's write path (`ui::operate`) and node drain (`ui::drain`) over real HTTP, against
//! the demo server (or the cluster `KINFORMER_TEST_KUBECONFIG` points at: then node-changing
//! tests skip with a reason, and the rest run in their own namespace).
//! No assertion on elapsed time; `HANG_GUARD` only turns a hang into a failure.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Node, Pod};
use kinformer::cluster::{ConnectOptions, Connection, ResourceInfo, resolve};
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::ui::action::{Action, Effect, ObjectSummary};
use kinformer::ui::drain::{DrainEvent, DrainOptions, drain};
use kinformer::ui::edit::{edit_loop, run_editor};
use kinformer::ui::operate::{Operation, Propagation, Write, execute};
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scale_restart_kill_and_delete_go_through_the_write_path() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    deploys
        .create(&PostParams::default(), &deployment("web"))
        .await
        .unwrap();

    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Scale(3)),
    )
    .await;
    assert_eq!(
        (out.message.as_str(), out.error),
        (
            format!("deployment {}/web scaled to 3", s.ns).as_str(),
            false
        )
    );
    let d = deploys.get("web").await.unwrap();
    assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(3));

    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Restart),
    )
    .await;
    assert!(!out.error, "{}", out.message);
    let d = deploys.get("web").await.unwrap();
    let template = d.spec.unwrap().template.metadata.unwrap();
    let restarted = template
        .annotations
        .unwrap_or_default()
        .get("kubectl.kubernetes.io/restartedAt")
        .cloned()
        .unwrap_or_default();
    assert!(restarted.contains('T'), "restartedAt: {restarted:?}");
    assert_eq!(
        template
            .labels
            .unwrap_or_default()
            .get("app")
            .map(String::as_str),
        Some("web"),
        "the template keeps its labels"
    );

    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": "victim"},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}))
        .unwrap(),
    )
    .await
    .unwrap();
    let out = execute(client.clone(), &s.write("po", "victim", Operation::Kill)).await;
    assert_eq!(out.message, format!("pod {}/victim killed", s.ns));
    if s.demo.is_some() {
        // The demo deletes at once; a real kubelet takes a moment even with grace period 0.
        assert!(pods.get_opt("victim").await.unwrap().is_none());
    }

    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Delete(Propagation::Orphan)),
    )
    .await;
    assert_eq!(
        out.message,
        format!("deployment {}/web deleted (propagation Orphan)", s.ns)
    );

    let out = execute(
        client.clone(),
        &s.write("deploy", "nope", Operation::Scale(1)),
    )
    .await;
    assert!(out.error);
    assert!(out.message.contains("not found"), "{}", out.message);
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_write_names_the_verb_and_resource() {
    let s = setup().await;
    let Some(demo) = &s.demo else {
        println!("skipping: needs the demo server's 403 injection");
        return s.cleanup().await;
    };
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    deploys
        .create(&PostParams::default(), &deployment("web"))
        .await
        .unwrap();
    demo.faults().forbid("apps", "deployments");
    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Scale(2)),
    )
    .await;
    assert!(out.error);
    assert!(
        out.message.starts_with(&format!(
            "scale deployment {}/web: forbidden (patch deployments.apps/scale): ",
            s.ns
        )),
        "{}",
        out.message
    );
    assert!(out.message.contains("cannot patch"), "{}", out.message);
    demo.faults().allow("apps", "deployments");
    s.cleanup().await;
}

/// A node with two ready pods owned by a ReplicaSet and a budget that keeps both.
async fn node_with_guarded_pods(s: &Setup, node: &str, min_available: i32) {
    let client = s.conn.client.clone();
    let nodes: Api<Node> = Api::all(client.clone());
    nodes
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": node}})).unwrap(),
        )
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    for i in 0..2 {
        let name = format!("db-{i}");
        pods.create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": name, "labels": {"app": "db"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "db",
                                     "uid": "00000000-0000-0000-0000-000000000001", "controller": true}]},
                "spec": {"nodeName": node,
                         "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}))
            .unwrap(),
        )
        .await
        .unwrap();
        pods.patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Running",
                "conditions": [{"type": "Ready", "status": "True"}]}})),
        )
        .await
        .unwrap();
    }
    let pdb = s.resource("pdb");
    let api: Api<kube::api::DynamicObject> = Api::namespaced_with(client, &s.ns, &pdb.api_resource);
    api.create(
        &PostParams::default(),
        &serde_json::from_value(
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "db"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "db"}}}}),
        )
        .unwrap(),
    )
    .await
    .unwrap();
}

fn quick() -> DrainOptions {
    DrainOptions {
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(300),
        poll: Duration::from_millis(100),
        ..DrainOptions::default()
    }
}

async fn next(rx: &mut mpsc::Receiver<DrainEvent>) -> DrainEvent {
    tokio::time::timeout(HANG_GUARD, rx.recv())
        .await
        .expect("drain progress")
        .expect("drain ended without a last event")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drain_waits_while_a_budget_blocks_then_evicts_when_it_allows() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons and drains a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    node_with_guarded_pods(&s, &node, 2).await;
    let client = s.conn.client.clone();
    let (tx, mut rx) = mpsc::channel(16);
    let cancel = CancellationToken::new();
    let task = tokio::spawn(drain(
        client.clone(),
        node.clone(),
        quick(),
        tx,
        cancel.clone(),
    ));
    assert_eq!(next(&mut rx).await, DrainEvent::Cordoned);
    let DrainEvent::Planned { mut evict, .. } = next(&mut rx).await else {
        panic!("expected the plan");
    };
    evict.sort();
    assert_eq!(evict, [format!("{}/db-0", s.ns), format!("{}/db-1", s.ns)]);
    let DrainEvent::Blocked { message, .. } = next(&mut rx).await else {
        panic!("the budget blocks the first eviction");
    };
    assert!(
        message.contains("Cannot evict pod as it would violate the pod's disruption budget.")
            && message
                .contains("The disruption budget db needs 2 healthy pods and has 2 currently"),
        "{message}"
    );
    // The budget is relaxed: the retries go through.
    let pdb = s.resource("pdb");
    let api: Api<kube::api::DynamicObject> =
        Api::namespaced_with(client.clone(), &s.ns, &pdb.api_resource);
    api.patch(
        "db",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"minAvailable": 0}})),
    )
    .await
    .unwrap();
    let mut evicted = Vec::new();
    let done = loop {
        match next(&mut rx).await {
            DrainEvent::Blocked { .. } => {}
            DrainEvent::Evicted(p) => evicted.push(p),
            other => break other,
        }
    };
    assert_eq!(
        done,
        DrainEvent::Done {
            evicted: 2,
            failed: 0
        }
    );
    assert_eq!(evicted.len(), 2);
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    assert!(
        pods.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    let nodes: Api<Node> = Api::all(client);
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), Some(true));
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_drain_stops_and_leaves_the_pods() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons and drains a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    node_with_guarded_pods(&s, &node, 2).await;
    let client = s.conn.client.clone();
    let (tx, mut rx) = mpsc::channel(16);
    let cancel = CancellationToken::new();
    let task = tokio::spawn(drain(
        client.clone(),
        node.clone(),
        quick(),
        tx,
        cancel.clone(),
    ));
    loop {
        if let DrainEvent::Blocked { .. } = next(&mut rx).await {
            break;
        }
    }
    cancel.cancel();
    loop {
        match next(&mut rx).await {
            DrainEvent::Blocked { .. } => {}
            other => {
                assert_eq!(other, DrainEvent::Cancelled);
                break;
            }
        }
    }
    // The task has ended (no eviction loop left behind) and nothing more is sent.
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    assert!(rx.recv().await.is_none());
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    assert_eq!(pods.list(&Default::default()).await.unwrap().items.len(), 2);
    let nodes: Api<Node> = Api::all(client);
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cordon_and_uncordon_flip_unschedulable() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    let client = s.conn.client.clone();
    let nodes: Api<Node> = Api::all(client.clone());
    nodes
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": node}})).unwrap(),
        )
        .await
        .unwrap();
    let out = execute(client.clone(), &s.write("no", &node, Operation::Cordon)).await;
    assert_eq!(out.message, format!("node {node} cordoned"));
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), Some(true));
    let out = execute(client.clone(), &s.write("no", &node, Operation::Uncordon)).await;
    assert_eq!(out.message, format!("node {node} uncordoned"));
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), None);
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_runs_a_command_and_reports_its_exit_code() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "shell").await;
    let ap = kube::api::AttachParams::default().stdout(true).stderr(true);
    let mut p = pods
        .exec(
            "shell",
            [
                "sh",
                "-c",
                "cat /etc/config/app.yaml; echo $MODE; hostname; exit 3",
            ],
            &ap,
        )
        .await
        .unwrap();
    let status = p.take_status().unwrap();
    let out = read_all(p.stdout().unwrap()).await;
    assert_eq!(out, "port: 8080\ndemo\nshell\n");
    let st = tokio::time::timeout(HANG_GUARD, status)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st.reason.as_deref(), Some("NonZeroExitCode"));
    let code = st.details.unwrap().causes.unwrap()[0].message.clone();
    assert_eq!(code.as_deref(), Some("3"));

    // The second container, chosen by name; exit 0 is a Success status.
    let mut p = pods
        .exec(
            "shell",
            ["ls", "/etc"],
            &kube::api::AttachParams::default()
                .stdout(true)
                .stderr(true)
                .container("sidecar"),
        )
        .await
        .unwrap();
    let status = p.take_status().unwrap();
    let out = read_all(p.stdout().unwrap()).await;
    assert_eq!(
        out, "hostname\nhosts\nos-release\n",
        "no configmap mounted in the sidecar"
    );
    let st = tokio::time::timeout(HANG_GUARD, status)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st.status.as_deref(), Some("Success"));
    p.join().await.unwrap();
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interactive_tty_echoes_follows_resizes_and_exits() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "tty").await;
    let mut p = pods
        .exec(
            "tty",
            [
                "/bin/sh",
                "-c",
                "command -v bash >/dev/null 2>&1 && exec bash || exec sh",
            ],
            &kube::api::AttachParams::interactive_tty(),
        )
        .await
        .unwrap();
    let mut resize = p.terminal_size().unwrap();
    use futures::SinkExt;
    resize
        .send(kube::api::TerminalSize {
            width: 132,
            height: 40,
        })
        .await
        .unwrap();
    let mut stdin = p.stdin().unwrap();
    let mut stdout = p.stdout().unwrap();
    let status = p.take_status().unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 1024];
    // Wait for the prompt, then type (the resize went first on the same connection).
    while !seen.contains("$ ") {
        let n = tokio::time::timeout(HANG_GUARD, stdout.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "{seen:?}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    stdin.write_all(b"echo $COLUMNS\r").await.unwrap();
    while !seen.ends_with("132\r\ntty:/$ ") {
        let n = tokio::time::timeout(HANG_GUARD, stdout.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "{seen:?}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert_eq!(
        seen, "tty:/$ echo $COLUMNS\r\n132\r\ntty:/$ ",
        "echo, output, prompt"
    );
    stdin.write_all(b"exit 4\r").await.unwrap();
    let rest = read_all(stdout).await;
    assert_eq!(rest, "exit 4\r\n");
    let st = tokio::time::timeout(HANG_GUARD, status)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        st.details.unwrap().causes.unwrap()[0].message.as_deref(),
        Some("4")
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn port_forward_carries_an_http_get_through_a_local_port() {
    use kinformer::ui::portforward::{ForwardStats, bind_local, forward};
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    use tokio::io::AsyncWriteExt;
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container answering HTTP (the demo's pods)");
        return s.cleanup().await;
    }
    running_pod(&s, "web").await;
    // The preferred port is taken: the next free one is used.
    let taken = bind_local(0).await.unwrap();
    let preferred = taken.local_addr().unwrap().port();
    let listener = bind_local(preferred).await.unwrap();
    let local = listener.local_addr().unwrap();
    assert_ne!(local.port(), preferred);
    let stats = Arc::new(ForwardStats::default());
    let cancel = CancellationToken::new();
    let task = tokio::spawn(forward(
        s.conn.client.clone(),
        s.ns.clone(),
        "web".into(),
        8080,
        listener,
        stats.clone(),
        cancel.clone(),
    ));
    for _ in 0..2 {
        let mut conn = tokio::net::TcpStream::connect(local).await.unwrap();
        conn.write_all(b"GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .await
            .unwrap();
        let page = read_all(&mut conn).await;
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
        assert!(
            page.contains(&format!("kinformer demo pod {}/web", s.ns)),
            "{page}"
        );
        assert!(page.contains("container app, port 8080"), "{page}");
        assert!(page.contains("request: GET /hello HTTP/1.1"), "{page}");
    }
    assert_eq!(stats.connections.load(Ordering::Relaxed), 2);
    assert!(stats.bytes_in.load(Ordering::Relaxed) > 100);
    cancel.cancel();
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    // Stopped: the local port is closed.
    assert!(tokio::net::TcpStream::connect(local).await.is_err());
    drop(taken);
    s.cleanup().await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_scale_and_restart_keys_change_the_deployment_on_the_server() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    deploys
        .create(&PostParams::default(), &deployment("web"))
        .await
        .unwrap();
    let info = s.resource("deploy");
    let dynamic: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), &s.ns, &info.api_resource);
    let obj = Arc::new(dynamic.get("web").await.unwrap());
    let row = ObjectSummary::from_object("Deployment", &obj, None).unwrap();
    let mut app = dashboard(&s, "deployments", vec![row]);

    assert!(
        press(&mut app, KeyCode::Char('S')).is_empty(),
        "a dialog first"
    );
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Char('4'));
    let fx = press(&mut app, KeyCode::Enter);
    let message = carry_out(&client, fx).await;
    assert_eq!(message, format!("deployment {}/web scaled to 4", s.ns));
    let d = deploys.get("web").await.unwrap();
    assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(4));

    assert!(
        press(&mut app, KeyCode::Char('r')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    carry_out(&client, fx).await;
    let d = deploys.get("web").await.unwrap();
    let annotations = d
        .spec
        .and_then(|s| s.template.metadata)
        .and_then(|m| m.annotations)
        .unwrap_or_default();
    assert!(
        annotations.contains_key("kubectl.kubernetes.io/restartedAt"),
        "{annotations:?}"
    );
    s.cleanup().await;
}

fn cronjob(name: &str) -> CronJob {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"schedule": "0 3 * * *", "suspend": false,
                 "jobTemplate": {
                     "metadata": {"labels": {"app": name}, "annotations": {"team": "billing"}},
                     "spec": {"backoffLimit": 1, "template": {"spec": {
                         "restartPolicy": "Never",
                         "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}}}
    }))
    .unwrap()
}

/// The row the dashboard would show for `name` of `typed`, read back from the server.
async fn row_of(s: &Setup, typed: &str, name: &str) -> ObjectSummary {
    let info = s.resource(typed);
    let dynamic: Api<DynamicObject> =
        Api::namespaced_with(s.conn.client.clone(), &s.ns, &info.api_resource);
    let obj = Arc::new(dynamic.get(name).await.unwrap());
    ObjectSummary::from_object(&info.api_resource.kind, &obj, None).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_cronjob_keys_trigger_a_job_from_its_template_and_suspend_and_resume_it() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cronjobs: Api<CronJob> = Api::namespaced(client.clone(), &s.ns);
    let cj = cronjobs
        .create(&PostParams::default(), &cronjob("report"))
        .await
        .unwrap();
    let mut app = dashboard(&s, "cronjobs", vec![row_of(&s, "cj", "report").await]);

    // T: confirmed, then a Job made as `kubectl create job --from=cronjob/report` makes it.
    assert!(
        press(&mut app, KeyCode::Char('T')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    let message = carry_out(&client, fx).await;
    let prefix = format!(
        "cronjob {}/report triggered: job {}/report-manual-",
        s.ns, s.ns
    );
    assert!(message.starts_with(&prefix), "{message}");
    let job_name = message
        .rsplit('/')
        .next()
        .unwrap()
        .trim_end_matches(" created");
    let jobs: Api<Job> = Api::namespaced(client.clone(), &s.ns);
    let job = jobs.get(job_name).await.unwrap();
    let owner = &job.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str(), &owner.uid),
        ("CronJob", "report", cj.metadata.uid.as_ref().unwrap())
    );
    let annotations = job.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations
            .get("cronjob.kubernetes.io/instantiate")
            .map(String::as_str),
        Some("manual")
    );
    assert_eq!(annotations.get("team").map(String::as_str), Some("billing"));
    assert_eq!(
        job.metadata
            .labels
            .unwrap_or_default()
            .get("app")
            .map(String::as_str),
        Some("report")
    );
    assert_eq!(job.spec.and_then(|s| s.backoff_limit), Some(1));

    // Z on a running CronJob suspends it (no dialog: resume undoes it)...
    let fx = press(&mut app, KeyCode::Char('Z'));
    assert_eq!(
        carry_out(&client, fx).await,
        format!("cronjob {}/report suspended", s.ns)
    );
    let suspended = |c: CronJob| c.spec.and_then(|s| s.suspend);
    assert_eq!(suspended(cronjobs.get("report").await.unwrap()), Some(true));
    // ...and, once the row shows it suspended, resumes it.
    let view = app.current_view_id().unwrap();
    app.update(Action::Resync {
        view,
        rows: vec![row_of(&s, "cj", "report").await],
    });
    let fx = press(&mut app, KeyCode::Char('Z'));
    assert_eq!(
        carry_out(&client, fx).await,
        format!("cronjob {}/report resumed", s.ns)
    );
    assert_eq!(
        suspended(cronjobs.get("report").await.unwrap()),
        Some(false)
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_set_image_dialog_patches_only_the_chosen_container() {
    use kinformer::ui::operate::fetch_images;
    let s = setup().await;
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    let mut d = deployment("web");
    let pod = d.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
    pod.containers.push(
        serde_json::from_value(json!({"name": "proxy", "image": "envoyproxy/envoy:v1.31"}))
            .unwrap(),
    );
    pod.init_containers = Some(vec![
        serde_json::from_value(json!({"name": "migrate", "image": "busybox:1.36"})).unwrap(),
    ]);
    deploys.create(&PostParams::default(), &d).await.unwrap();
    let mut app = dashboard(&s, "deployments", vec![row_of(&s, "deploy", "web").await]);

    let fx = press(&mut app, KeyCode::Char('i'));
    let [Effect::FetchImages(write)] = &fx[..] else {
        panic!("expected the containers' fetch, got {fx:?}")
    };
    let result = fetch_images(client.clone(), write).await;
    app.update(Action::Images {
        write: write.clone(),
        result,
    });
    // The first app container (c) is selected; Down picks the proxy, its image is retyped.
    press(&mut app, KeyCode::Down);
    for _ in 0.."v1.31".len() {
        press(&mut app, KeyCode::Backspace);
    }
    for ch in "v1.32".chars() {
        press(&mut app, KeyCode::Char(ch));
    }
    let fx = press(&mut app, KeyCode::Enter);
    assert_eq!(
        carry_out(&client, fx).await,
        format!(
            "deployment {}/web: container proxy image set to envoyproxy/envoy:v1.32",
            s.ns
        )
    );
    let pod = deploys
        .get("web")
        .await
        .unwrap()
        .spec
        .unwrap()
        .template
        .spec
        .unwrap();
    let images: Vec<(String, Option<String>)> = pod
        .init_containers
        .unwrap_or_default()
        .into_iter()
        .chain(pod.containers)
        .map(|c| (c.name, c.image))
        .collect();
    let img = |n: &str, i: &str| (n.to_string(), Some(i.to_string()));
    assert_eq!(
        images,
        [
            img("migrate", "busybox:1.36"),
            img("c", "registry.k8s.io/pause:3.10"),
            img("proxy", "envoyproxy/envoy:v1.32"),
        ]
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_cordon_key_makes_the_node_unschedulable() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    let client = s.conn.client.clone();
    let nodes: Api<Node> = Api::all(client.clone());
    nodes
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": node}})).unwrap(),
        )
        .await
        .unwrap();
    let info = s.resource("no");
    let dynamic: Api<DynamicObject> = Api::all_with(client.clone(), &info.api_resource);
    let obj = Arc::new(dynamic.get(&node).await.unwrap());
    let row = ObjectSummary::from_object("Node", &obj, None).unwrap();
    let mut app = dashboard(&s, "nodes", vec![row]);
    let message = carry_out(&client, press(&mut app, KeyCode::Char('c'))).await;
    assert_eq!(message, format!("node {node} cordoned"));
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), Some(true));
    carry_out(&client, press(&mut app, KeyCode::Char('u'))).await;
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), None);
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_shell_session_runs_commands_and_reports_the_exit_code() {
    use kinformer::ui::shell::{Input, ShellExit, session};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "shell").await;
    let (tx, rx) = mpsc::channel(16);
    let (mut out, mut seen) = tokio::io::duplex(64 * 1024);
    let typing = tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        let mut text = String::new();
        let mut buf = [0u8; 1024];
        let mut typed = 0;
        loop {
            let n = seen.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return text;
            }
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
            // Type at each prompt: a resize, a command, then exit with a code.
            if text.matches("$ ").count() > typed {
                typed += 1;
                let line: &[u8] = match typed {
                    1 => {
                        tx.send(Input::Resize(100, 30)).await.unwrap();
                        // kube's attach task multiplexes its stdin and resize channels without
                        // an order between them: give the resize time to be sent first.
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        b"echo $COLUMNS; hostname\r"
                    }
                    _ => b"exit 3\r",
                };
                for b in line {
                    tx.send(Input::Bytes(vec![*b])).await.unwrap();
                }
            }
        }
    });
    let exit = tokio::time::timeout(
        HANG_GUARD,
        session(&pods, "shell", None, (80, 24), rx, &mut out),
    )
    .await
    .unwrap();
    drop(out);
    let text = typing.await.unwrap();
    assert_eq!(exit, ShellExit::Exited(3), "{text}");
    assert!(
        text.contains("echo $COLUMNS; hostname\r\n100\r\nshell\r\n"),
        "{text:?}"
    );
    assert!(text.ends_with("exit 3\r\n"), "{text:?}");
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_in_a_missing_pod_fails_with_the_servers_message() {
    use kinformer::ui::shell::{ShellExit, session};
    let s = setup().await;
    let pods: Api<Pod> = Api::namespaced(s.conn.client.clone(), &s.ns);
    let (_tx, rx) = mpsc::channel(1);
    let mut out = Vec::new();
    let exit = tokio::time::timeout(
        HANG_GUARD,
        session(&pods, "nope", Some("c"), (80, 24), rx, &mut out),
    )
    .await
    .unwrap();
    match exit {
        ShellExit::Failed(m) => assert!(m.contains("not found") || m.contains("404"), "{m}"),
        other => panic!("{other:?}"),
    }
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_whose_terminal_input_ends_closes_its_stdin_and_ends() {
    use kinformer::ui::shell::{ShellExit, session};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "shell").await;
    let (tx, rx) = mpsc::channel(1);
    // The terminal reader failing drops its sender: the input ends before any key.
    drop(tx);
    let mut out = Vec::new();
    let exit = tokio::time::timeout(
        HANG_GUARD,
        session(&pods, "shell", None, (80, 24), rx, &mut out),
    )
    .await
    .expect("the session ends once its input has ended");
    assert_eq!(
        exit,
        ShellExit::Exited(0),
        "{:?}",
        String::from_utf8_lossy(&out)
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dashboard_forward_carries_bytes_and_stopping_it_closes_the_port_and_ends_its_task() {
    use kinformer::ui::portforward::Forwards;
    use tokio::io::AsyncWriteExt;
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container answering HTTP (the demo's pods)");
        return s.cleanup().await;
    }
    running_pod(&s, "web").await;
    let mut forwards = Forwards::new(s.conn.client.clone());
    let local = forwards
        .start(7, s.ns.clone(), "web".into(), 8080, 0)
        .await
        .unwrap();
    assert_eq!(forwards.running(), 1);
    let mut conn = tokio::net::TcpStream::connect(("127.0.0.1", local))
        .await
        .unwrap();
    conn.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let page = tokio::time::timeout(HANG_GUARD, read_all(&mut conn))
        .await
        .unwrap();
    assert!(
        page.contains(&format!("kinformer demo pod {}/web", s.ns)),
        "{page}"
    );
    let rows = forwards.rows();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].id, rows[0].local, rows[0].port), (7, local, 8080));
    assert_eq!(rows[0].connections, 1);
    let stopped = forwards.stop(7).await.unwrap();
    assert_eq!(stopped.local, local);
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", local))
            .await
            .is_err(),
        "the listener is closed"
    );
    assert_eq!(forwards.running(), 0);
    assert!(forwards.rows().is_empty());
    assert!(forwards.stop(7).await.is_none(), "stopped once");
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_drain_dialog_runs_the_drain_and_shows_its_end() {
    use kinformer::ui::app::{DrainState, Mode};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons and drains a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    node_with_guarded_pods(&s, &node, 0).await;
    let client = s.conn.client.clone();
    let info = s.resource("no");
    let dynamic: Api<DynamicObject> = Api::all_with(client.clone(), &info.api_resource);
    let obj = Arc::new(dynamic.get(&node).await.unwrap());
    let row = ObjectSummary::from_object("Node", &obj, None).unwrap();
    let mut app = dashboard(&s, "nodes", vec![row]);
    assert!(
        press(&mut app, KeyCode::Char('D')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    let [Effect::Drain { node: target, opts }] = &fx[..] else {
        panic!("expected a drain, got {fx:?}")
    };
    assert_eq!(target, &node);
    // The runtime's part: the drain task, its events fed back as actions.
    let (tx, mut rx) = mpsc::channel(16);
    let task = tokio::spawn(drain(
        client.clone(),
        target.clone(),
        DrainOptions {
            poll: Duration::from_millis(50),
            ..opts.clone()
        },
        tx,
        CancellationToken::new(),
    ));
    while let Some(ev) = tokio::time::timeout(HANG_GUARD, rx.recv()).await.unwrap() {
        app.update(Action::Drain(ev));
    }
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    let d = app.drain.clone().unwrap();
    assert_eq!(
        d.state,
        DrainState::Finished {
            summary: format!("node {node} drained: 2 pods evicted"),
            error: false
        }
    );
    assert_eq!(d.evicted.len(), 2);
    assert!(matches!(app.mode, Mode::Drain));
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.mode, Mode::Normal));
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    assert!(
        pods.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    let nodes: Api<Node> = Api::all(client);
    assert_eq!(
        nodes
            .get(&node)
            .await
            .unwrap()
            .spec
            .and_then(|s| s.unschedulable),
        Some(true)
    );
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}

/// A scripted `$EDITOR`: `sh` running `body` with the file as `$1`.
fn editor_script(s: &Setup, name: &str, body: &str) -> Vec<String> {
    let path = s._dir.path().join(name);
    std::fs::write(&path, body).unwrap();
    vec!["sh".into(), path.display().to_string()]
}

async fn labelled_configmap(s: &Setup, name: &str) -> Api<ConfigMap> {
    let cms: Api<ConfigMap> = Api::namespaced(s.conn.client.clone(), &s.ns);
    cms.create(
        &PostParams::default(),
        &serde_json::from_value(
            json!({"metadata": {"name": name, "labels": {"app": "orig"}},
                                       "data": {"k": "v"}}),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    cms
}

fn label(cm: &ConfigMap) -> Option<String> {
    cm.metadata.labels.as_ref()?.get("app").cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edit_with_a_scripted_editor_puts_the_change_and_an_unchanged_file_sends_nothing() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cms = labelled_configmap(&s, "cfg").await;
    let info = s.resource("configmaps");
    let sed = editor_script(&s, "sed.sh", "sed -i 's/app: orig/app: edited/' \"$1\"\n");
    let mut shown = String::new();
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        shown = std::fs::read_to_string(p)?;
        run_editor(&sed, p)
    })
    .await;
    assert_eq!(
        (out.message.as_str(), out.error),
        (format!("configmap {}/cfg edited", s.ns).as_str(), false)
    );
    assert!(
        shown.starts_with("# Please edit the object below."),
        "{shown}"
    );
    assert!(!shown.contains("managedFields"), "{shown}");
    assert!(shown.contains("app: orig"), "{shown}");
    let cm = cms.get("cfg").await.unwrap();
    assert_eq!(label(&cm).as_deref(), Some("edited"));

    let rv = cm.metadata.resource_version.clone();
    let unchanged = editor_script(&s, "true.sh", "true\n");
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        run_editor(&unchanged, p)
    })
    .await;
    assert_eq!(
        (out.message.as_str(), out.error),
        ("edit cancelled, no changes", false)
    );
    assert_eq!(cms.get("cfg").await.unwrap().metadata.resource_version, rv);
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_conflict_reopens_the_editor_with_the_error_and_the_edit_kept() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cms = labelled_configmap(&s, "cfg").await;
    let info = s.resource("configmaps");
    let first = editor_script(&s, "first.sh", "sed -i 's/app: orig/app: first/' \"$1\"\n");
    let second = editor_script(
        &s,
        "second.sh",
        "sed -i 's/app: first/app: second/' \"$1\"\n",
    );
    let handle = tokio::runtime::Handle::current();
    let mut reopened = String::new();
    let mut calls = 0;
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        calls += 1;
        if calls == 1 {
            run_editor(&first, p)?;
            // Someone else changes the object between the GET and the PUT.
            let cms = cms.clone();
            tokio::task::block_in_place(|| {
                handle.block_on(cms.patch(
                    "cfg",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"data": {"other": "writer"}})),
                ))
            })
            .map_err(std::io::Error::other)?;
            Ok(())
        } else {
            reopened = std::fs::read_to_string(p)?;
            run_editor(&second, p)
        }
    })
    .await;
    assert_eq!(calls, 2, "the editor is reopened once");
    assert!(reopened.contains("# edit configmap"), "{reopened}");
    assert!(reopened.contains("(Conflict)"), "{reopened}");
    assert!(
        reopened.contains("app: first"),
        "the edit is kept: {reopened}"
    );
    assert_eq!(
        (out.message.as_str(), out.error),
        (format!("configmap {}/cfg edited", s.ns).as_str(), false)
    );
    let cm = cms.get("cfg").await.unwrap();
    assert_eq!(label(&cm).as_deref(), Some("second"));
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_edit_reopens_the_editor_and_saving_it_unchanged_gives_up() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cms = labelled_configmap(&s, "cfg").await;
    let info = s.resource("configmaps");
    let broken = editor_script(&s, "broken.sh", "printf 'data: [unclosed\\n' >> \"$1\"\n");
    let unchanged = editor_script(&s, "true.sh", "true\n");
    let mut calls = 0;
    let mut reopened = String::new();
    let out = edit_loop(client.clone(), &info, Some(&s.ns), "cfg", |p| {
        calls += 1;
        if calls == 1 {
            run_editor(&broken, p)
        } else {
            reopened = std::fs::read_to_string(p)?;
            run_editor(&unchanged, p)
        }
    })
    .await;
    assert_eq!(calls, 2);
    assert!(
        reopened.contains("# The edited file had a syntax error"),
        "{reopened}"
    );
    assert!(reopened.contains("data: [unclosed"), "{reopened}");
    assert!(out.error, "{}", out.message);
    assert!(out.message.contains("given up"), "{}", out.message);
    let cm = cms.get("cfg").await.unwrap();
    assert_eq!(label(&cm).as_deref(), Some("orig"), "nothing sent");
    s.cleanup().await;
}

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
