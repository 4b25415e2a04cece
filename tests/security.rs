//! Security checks on the connection layer (`kinformer::cluster`):
//! - TLS certificate verification stays on unless the kubeconfig's cluster says
//!   `insecure-skip-tls-verify: true`;
//! - a kubeconfig token never shows in `Debug` of a `Connection`, nor in log output (captured at
//!   TRACE level) while requests to the server fail.

use std::io::Write;
use std::sync::Arc;

use kinformer::cluster::{ConnectOptions, Connection};
use kinformer::demo::{DemoOptions, DemoServer};
use kinformer::informer::list_watch::{KubeListerWatcher, ListOptions, ListerWatcher};
use kube::api::DynamicObject;
use kube::config::Kubeconfig;
use kube::core::ApiResource;
use parking_lot::Mutex;

const TOKEN: &str = "kinformer-test-token-7f3a9c1e5b";

fn kubeconfig(server: &str, cluster_extra: &str) -> String {
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: {server}
{cluster_extra}contexts:
- name: ctx
  context:
    cluster: c
    user: u
    namespace: default
current-context: ctx
users:
- name: u
  user:
    token: {TOKEN}
"
    )
}

async fn connect(yaml: &str) -> Connection {
    let kc = Kubeconfig::from_yaml(yaml).unwrap();
    Connection::from_kubeconfig(kc, "test.kubeconfig".into(), None)
        .await
        .unwrap()
}

#[tokio::test]
async fn tls_verification_stays_on_without_insecure_skip_tls_verify() {
    let conn = connect(&kubeconfig("https://127.0.0.1:6443", "")).await;
    assert!(!conn.insecure_skip_tls_verify);
    let conn = connect(&kubeconfig(
        "https://127.0.0.1:6443",
        "    insecure-skip-tls-verify: false\n",
    ))
    .await;
    assert!(!conn.insecure_skip_tls_verify);
}

#[tokio::test]
async fn tls_verification_is_off_only_when_the_kubeconfig_says_so() {
    let conn = connect(&kubeconfig(
        "https://127.0.0.1:6443",
        "    insecure-skip-tls-verify: true\n",
    ))
    .await;
    assert!(conn.insecure_skip_tls_verify);
}

#[tokio::test]
async fn connection_debug_never_shows_the_token() {
    let conn = connect(&kubeconfig("https://127.0.0.1:6443", "")).await;
    let shown = format!("{conn:?} {conn:#?}");
    assert!(
        shown.contains("ctx"),
        "Debug still says which context: {shown}"
    );
    assert!(!shown.contains(TOKEN), "token in Debug: {shown}");
}

/// A `MakeWriter` collecting everything logged.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

// Current-thread runtime: the thread-local subscriber sees the client's, the informer layer's
// and the demo server's logs alike.
#[tokio::test]
async fn token_never_reaches_the_logs_during_failed_requests() {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(captured.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let demo = DemoServer::start(DemoOptions::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kc.yaml");
    std::fs::write(&path, kubeconfig(&demo.base_url(), "")).unwrap();
    let conn = Connection::open(&ConnectOptions {
        kubeconfig: Some(path),
        context: None,
    })
    .await
    .unwrap();
    tracing::debug!(?conn, "connected");

    // Failing requests: 500s, then 403 on pods, through the connection and an informer's
    // lister-watcher.
    demo.faults().fail_next(500, 3);
    assert!(conn.server_version().await.is_err(), "the 500 reaches us");
    let _ = conn.discover().await;
    demo.faults().forbid("", "pods");
    let lw = KubeListerWatcher::dynamic(
        conn.client.clone(),
        &ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
        None,
    );
    let listed = ListerWatcher::<DynamicObject>::list(&lw, &ListOptions::default()).await;
    assert!(listed.is_err(), "403 on pods");
    tracing::debug!(error = ?listed.err(), "list failed as expected");
    demo.shutdown().await;

    // And a server that is gone.
    let err = conn.server_version().await.expect_err("server is down");
    tracing::debug!(error = %err, error_debug = ?err, "request to a stopped server failed");

    let log = String::from_utf8_lossy(&captured.0.lock()).to_string();
    assert!(
        log.contains("list failed as expected"),
        "the capture works: {log}"
    );
    assert!(!log.contains(TOKEN), "token leaked into the logs:\n{log}");
    if std::env::var_os("KINFORMER_SHOW_CAPTURED_LOG").is_some() {
        println!("{log}");
    }
}
