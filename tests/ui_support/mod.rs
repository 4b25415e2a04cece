//! Shared builders for the UI tests: pods/deployments as the runtime would summarise them, a
//! label-indexed store, key events, and an app with a synced first view.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::informer::index::{NODE_INDEX, default_indexers, dynamic_pod_node_index_func};
use kinformer::informer::thread_safe_store::ThreadSafeStore;
use kinformer::render::{Cell, Health, Row};
use kinformer::ui::action::{Action, Effect, InformerRow, InformerState, ObjectSummary, ViewId};
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::DynamicObject;

/// 2026-11-22T12:00:00Z, the tests' "now".
pub const NOW: i64 = 1_795_608_000;
pub const NOW_MS: i64 = NOW * 1000;

pub struct PodSpec<'a> {
    pub ns: &'a str,
    pub name: &'a str,
    pub status: &'a str,
    pub restarts: i64,
    pub age_secs: i64,
    pub node: &'a str,
    pub labels: &'a [(&'a str, &'a str)],
    pub owner: Option<&'a str>,
}

impl Default for PodSpec<'_> {
    fn default() -> Self {
        PodSpec {
            ns: "default",
            name: "pod",
            status: "Running",
            restarts: 0,
            age_secs: 3600,
            node: "node-1",
            labels: &[],
            owner: None,
        }
    }
}

fn labels(l: &[(&str, &str)]) -> BTreeMap<String, String> {
    l.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The cached object behind a summary: what filters and drill-down read (uid, labels, owner,
/// node), as the indexer would hold it.
fn object(
    ns: Option<&str>,
    name: &str,
    labels: BTreeMap<String, String>,
    owner: Option<&str>,
    node: Option<&str>,
) -> Arc<DynamicObject> {
    let mut v = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": ns,
            "uid": format!("uid-{name}"),
            "labels": labels,
        }
    });
    if let Some(o) = owner {
        v["metadata"]["ownerReferences"] = serde_json::json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": o, "uid": o}]);
    }
    if let Some(n) = node {
        v["spec"] = serde_json::json!({ "nodeName": n });
    }
    Arc::new(serde_json::from_value(v).unwrap())
}

/// A pod summary with kubectl's pod columns.
pub fn pod(p: PodSpec<'_>) -> ObjectSummary {
    let health = match p.status {
        "Running" => Health::Ok,
        "Pending" | "ContainerCreating" => Health::Pending,
        "Completed" => Health::Completed,
        "Terminating" => Health::Terminating,
        _ => Health::Error,
    };
    let ready: u32 = if p.status == "Running" { 1 } else { 0 };
    ObjectSummary {
        key: format!("{}/{}", p.ns, p.name).into(),
        namespace: Some(p.ns.into()),
        name: p.name.into(),
        row: Row {
            cells: vec![
                Cell::Text(p.name.into()),
                Cell::Ratio(ready, 1),
                Cell::Text(p.status.into()),
                Cell::Restarts(p.restarts, None),
                Cell::Age(Some(NOW - p.age_secs)),
                Cell::Text("10.0.0.1".into()),
                Cell::Text(p.node.into()),
            ],
            health,
        },
        object: object(Some(p.ns), p.name, labels(p.labels), p.owner, Some(p.node)),
    }
}

pub fn simple_pod(ns: &str, name: &str) -> ObjectSummary {
    pod(PodSpec {
        ns,
        name,
        ..PodSpec::default()
    })
}

/// A workload summary (Deployment/ReplicaSet...) with NAME READY AGE-like cells.
pub fn workload(ns: &str, name: &str, owner: Option<&str>) -> ObjectSummary {
    ObjectSummary {
        key: format!("{ns}/{name}").into(),
        namespace: Some(ns.into()),
        name: name.into(),
        row: Row {
            cells: vec![
                Cell::Text(name.into()),
                Cell::Ratio(2, 2),
                Cell::Int(2),
                Cell::Int(2),
                Cell::Age(Some(NOW - 86_400)),
            ],
            health: Health::Ok,
        },
        object: object(Some(ns), name, BTreeMap::new(), owner, None),
    }
}

/// A cluster-scoped summary (Node, Namespace).
pub fn cluster_object(name: &str, status: &str) -> ObjectSummary {
    ObjectSummary {
        key: name.into(),
        namespace: None,
        name: name.into(),
        row: Row {
            cells: vec![
                Cell::Text(name.into()),
                Cell::Text(status.into()),
                Cell::Age(Some(NOW - 86_400 * 3)),
            ],
            health: Health::Ok,
        },
        object: object(None, name, BTreeMap::new(), None, None),
    }
}

/// A label-indexed store holding these summaries as DynamicObjects, as the informer's indexer.
pub fn store_of(rows: &[ObjectSummary]) -> Arc<ThreadSafeStore<DynamicObject>> {
    let store = Arc::new(ThreadSafeStore::<DynamicObject>::new(default_indexers()));
    for s in rows {
        store.add(&s.key, Arc::clone(&s.object)).unwrap();
    }
    store
}

/// A pods informer's indexer as the factory builds it: the default indexes and the node index.
pub fn pod_store_of(rows: &[ObjectSummary]) -> Arc<ThreadSafeStore<DynamicObject>> {
    let mut indexers = default_indexers();
    indexers.insert(NODE_INDEX.to_string(), dynamic_pod_node_index_func());
    let store = Arc::new(ThreadSafeStore::<DynamicObject>::new(indexers));
    for s in rows {
        store.add(&s.key, Arc::clone(&s.object)).unwrap();
    }
    store
}

pub fn key(c: char) -> Action {
    let m = if c.is_ascii_uppercase() {
        KeyModifiers::SHIFT
    } else {
        KeyModifiers::NONE
    };
    Action::Key(KeyEvent::new(KeyCode::Char(c), m))
}

pub fn code(c: KeyCode) -> Action {
    Action::Key(KeyEvent::new(c, KeyModifiers::NONE))
}

pub fn ctrl(c: char) -> Action {
    Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// Type a string key by key, collecting effects.
pub fn type_str(app: &mut App, s: &str) -> Vec<Effect> {
    s.chars().flat_map(|c| app.update(key(c))).collect()
}

/// The user configuration of `tests/fixtures/config` (k9s files in k9s's formats), read as the
/// dashboard reads it with `XDG_CONFIG_HOME` pointing there.
pub fn fixture_user_config() -> kinformer::config::UserConfig {
    let home = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config");
    kinformer::config::UserConfig::load(&kinformer::config::LoadOptions {
        env: kinformer::config::ConfigEnv {
            xdg_config_home: Some(home.clone()),
            xdg_data_home: Some(home.join("no-data")),
            ..Default::default()
        },
        ..Default::default()
    })
}

pub fn config() -> AppConfig {
    AppConfig {
        context: "demo".into(),
        namespace: Some("default".into()),
        now_ms: NOW_MS,
        ..AppConfig::default()
    }
}

/// The first view's id among init effects.
pub fn opened(fx: &[Effect]) -> Vec<(ViewId, String, Option<String>)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::OpenResource {
                view,
                resource,
                namespace,
                ..
            } => Some((
                *view,
                resource.api_resource.plural.clone(),
                namespace.clone(),
            )),
            _ => None,
        })
        .collect()
}

/// An app at `size`, initialised, with the namespaces view synced and `rows` in the first view.
pub fn app_with(cfg: AppConfig, rows: Vec<ObjectSummary>) -> (App, ViewId) {
    // The user's keys (k9s hotkeys, plugins) as the dashboard binds them.
    let (keys, _) = KeyMap::defaults().unwrap().with_user_config(&cfg.user);
    let mut app = App::new(cfg, keys);
    app.update(Action::Resize(120, 30));
    let fx = app.init();
    let views = opened(&fx);
    let first = views[0].0;
    if let Some((ns_view, _, _)) = views.iter().find(|(_, p, _)| p == "namespaces") {
        app.update(Action::Resync {
            view: *ns_view,
            rows: vec![
                cluster_object("default", "Active"),
                cluster_object("kube-system", "Active"),
                cluster_object("shop", "Active"),
            ],
        });
    }
    app.update(Action::Store {
        view: first,
        store: store_of(&rows),
    });
    app.update(Action::Resync { view: first, rows });
    (app, first)
}

pub fn informer_row(resource: &str, ns: Option<&str>, state: InformerState) -> InformerRow {
    InformerRow {
        resource: resource.into(),
        namespace: ns.map(str::to_string),
        state,
        list_mode: "stream",
        wire: "protobuf",
        last_rv: "48213".into(),
        cached: 3,
        queue_depth: 0,
        deltas_total: 1234,
        deltas_per_sec: 12.5,
        relists: 1,
        last_error: None,
        synced: true,
        forbidden: false,
        cluster: None,
        progress: None,
        stale: false,
        history_reset: None,
    }
}

/// Keys of the shown rows in order.
pub fn shown(app: &App, view: ViewId) -> Vec<String> {
    app.views[&view]
        .table
        .list()
        .iter()
        .map(|k| k.to_string())
        .collect()
}

pub fn selected(app: &App, view: ViewId) -> Option<String> {
    app.views[&view].table.selected_key().map(|k| k.to_string())
}

/// Draw `app` at `w`×`h` on a `TestBackend` (after telling it the size, as the runtime does).
pub fn draw(app: &mut App, w: u16, h: u16) -> ratatui::Terminal<ratatui::backend::TestBackend> {
    app.update(Action::Resize(w, h));
    let app = &*app;
    let mut terminal = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    terminal
}

/// The app connected to `kind-demo` (server v1.33.1), as the header shows it.
pub fn connected(app: &mut App) {
    app.update(Action::Connection(kinformer::ui::action::ConnectionState {
        context: "kind-demo".into(),
        server_version: Some("v1.33.1".into()),
        reachable: true,
        retry_at_ms: None,
        last_error: None,
    }));
}

/// A pod with an init container, two app containers (one with ports and probes) and an
/// ephemeral one, and its PodMetrics.
pub fn shop_pod() -> (k8s_openapi::api::core::v1::Pod, serde_json::Value) {
    let pod = serde_json::json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "default", "uid": "uid-web-1",
            "resourceVersion": "10", "creationTimestamp": "2026-11-25T09:00:00Z"},
        "spec": {
            "initContainers": [{"name": "migrate", "image": "shop/migrate:2"}],
            "containers": [
                {"name": "web", "image": "shop/web:1.4",
                 "ports": [{"name": "http", "containerPort": 8080}, {"containerPort": 9090, "protocol": "UDP"}],
                 "livenessProbe": {"httpGet": {"path": "/", "port": 8080}},
                 "readinessProbe": {"httpGet": {"path": "/ready", "port": 8080}},
                 "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"cpu": "200m", "memory": "128Mi"}}},
                {"name": "proxy", "image": "envoy:1.30",
                 "resources": {"limits": {"cpu": "50m", "memory": "32Mi"}}}
            ],
            "ephemeralContainers": [{"name": "debugger", "image": "busybox"}]
        },
        "status": {
            "initContainerStatuses": [{"name": "migrate", "image": "shop/migrate:2", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}],
            "containerStatuses": [
                {"name": "web", "image": "shop/web:1.4", "imageID": "", "ready": true, "restartCount": 2,
                 "state": {"running": {"startedAt": "2026-11-26T08:01:00Z"}}},
                {"name": "proxy", "image": "envoy:1.30", "imageID": "", "ready": false, "restartCount": 5,
                 "state": {"waiting": {"reason": "CrashLoopBackOff"}}}
            ],
            "ephemeralContainerStatuses": [{"name": "debugger", "image": "busybox", "imageID": "", "ready": false, "restartCount": 0,
                "state": {"running": {}}}]
        }
    });
    let metrics = serde_json::json!({
        "containers": [
            {"name": "web", "usage": {"cpu": "150m", "memory": "96Mi"}},
            {"name": "proxy", "usage": {"cpu": "10m", "memory": "8Mi"}}
        ]
    });
    (serde_json::from_value(pod).unwrap(), metrics)
}

pub fn shop_containers() -> kinformer::ui::screens::containers::PodContainers {
    let (pod, metrics) = shop_pod();
    kinformer::ui::screens::containers::pod_containers(&pod, Some(&metrics))
}
