//! The dashboard's `App` and a headless runtime on a demo cluster: the setup of the runtime
//! tests (a demo server, its kubeconfig, a connection, discovery, the App's first views).
// Each test binary uses its own part of it.
#![allow(dead_code)]

use std::time::Duration;

use kinformer::app_main::{DemoSpec, RunningDemo, start_demo};
use kinformer::cluster::{ConnectOptions, Connection};
use kinformer::runtime::Headless;
use kinformer::ui::action::Action;
use kinformer::ui::{App, AppConfig, KeyMap};

pub struct Setup {
    pub app: App,
    pub rt: Headless,
    pub demo: RunningDemo,
    _dir: tempfile::TempDir,
}

/// A demo cluster as `spec` says, the App on all namespaces with the default keys, discovery
/// applied and its first effects carried out by a headless runtime (metrics polled every
/// `period`).
pub async fn headless_on_demo(spec: &DemoSpec, period: Duration) -> Setup {
    let demo = start_demo(spec).await.expect("demo");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("kubeconfig");
    demo.handle.write_kubeconfig(&path).expect("kubeconfig");
    let conn = Connection::open(&ConnectOptions {
        kubeconfig: Some(path),
        context: None,
    })
    .await
    .expect("connect");
    let resources = conn.discover().await.expect("discovery");
    let mut app = App::new(
        AppConfig {
            namespace: None,
            ..AppConfig::default()
        },
        KeyMap::defaults().expect("keys"),
    );
    app.update(Action::Discovery(resources));
    let mut rt = Headless::start(conn, period);
    for e in app.init() {
        rt.carry_out(e).await;
    }
    Setup {
        app,
        rt,
        demo,
        _dir: dir,
    }
}

/// True (and says why) when the tests run against a real cluster (`KINFORMER_TEST_KUBECONFIG`):
/// `test` asserts what only the demo server does, `why`.
pub fn skip_on_real_cluster(test: &str, why: &str) -> bool {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping {test}: {why}");
        return true;
    }
    false
}
