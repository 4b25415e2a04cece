//! The xray screen through `App::update`: `:xray` opens its feeds, their indexers and rows build
//! the tree, keys open/close nodes and act on the selected object, filters narrow the tree, a
//! rollout's rows update it in place; snapshots of the tree collapsed and expanded.

mod ui_support;

use std::collections::HashMap;
use std::sync::Arc;

use crossterm::event::KeyCode;
use kinformer::informer::index::{NODE_INDEX, default_indexers, dynamic_pod_node_index_func};
use kinformer::informer::thread_safe_store::ThreadSafeStore;
use kinformer::ui::action::{Action, Effect, ObjectSummary, ViewId};
use kinformer::ui::app::{Mode, Screen};
use kinformer::ui::keys::KeyAction;
use kinformer::ui::log_stream::ContainerPick;
use kinformer::ui::operate::{Operation, Propagation, Write};
use kinformer::ui::xray::NodeKind;
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::DynamicObject;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use ui_support::*;

type Stores = HashMap<&'static str, Arc<ThreadSafeStore<DynamicObject>>>;

fn obj(v: Value) -> Arc<DynamicObject> {
    Arc::new(serde_json::from_value(v).unwrap())
}

fn deploy(name: &str, uid: &str) -> Arc<DynamicObject> {
    obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "uid": uid, "labels": {"app": name}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": name}}},
        "status": {"replicas": 2, "readyReplicas": 2}}))
}

fn rs(name: &str, uid: &str, owner: &str, rev: &str) -> Arc<DynamicObject> {
    obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default", "uid": uid,
            "annotations": {"deployment.kubernetes.io/revision": rev},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "x",
                "uid": owner, "controller": true}]},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}}}))
}

fn full_pod(name: &str, owner: &str, ready: bool) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "labels": {"app": "web"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "x",
                "uid": owner, "controller": true}]},
        "spec": {"nodeName": "node-1", "containers": [
            {"name": "app", "image": "web:1.5"}, {"name": "proxy", "image": "envoy:1.30"}]},
        "status": {"phase": if ready { "Running" } else { "Pending" },
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}],
            "containerStatuses": [
                {"name": "app", "ready": ready, "restartCount": 0,
                    "state": if ready { json!({"running": {}}) }
                        else { json!({"waiting": {"reason": "ContainerCreating"}}) }},
                {"name": "proxy", "ready": ready, "restartCount": 0,
                    "state": if ready { json!({"running": {}}) }
                        else { json!({"waiting": {"reason": "ContainerCreating"}}) }}]}})
}

/// A pod as the dashboard's cache holds it (pruned: no containers).
fn pod(name: &str, owner: &str, ready: bool) -> Arc<DynamicObject> {
    let full: DynamicObject = serde_json::from_value(full_pod(name, owner, ready)).unwrap();
    Arc::new(kinformer::render::prune("Pod", full))
}

fn summary(kind: &str, o: &Arc<DynamicObject>) -> ObjectSummary {
    ObjectSummary::from_object(kind, o, None).unwrap()
}

fn kind_of(plural: &str) -> &'static str {
    match plural {
        "deployments" => "Deployment",
        "replicasets" => "ReplicaSet",
        _ => "Pod",
    }
}

/// Put objects in a feed's store (as the informer would) and send their rows.
fn deliver(
    app: &mut App,
    stores: &Stores,
    feeds: &HashMap<String, ViewId>,
    plural: &str,
    objs: &[Arc<DynamicObject>],
) -> Vec<Effect> {
    let s = &stores[plural];
    for o in objs {
        let key = kinformer::informer::meta_namespace_key(&**o).unwrap();
        s.update(&key, o.clone()).unwrap();
    }
    app.update(Action::Rows {
        view: feeds[plural],
        upserts: objs.iter().map(|o| summary(kind_of(plural), o)).collect(),
        deletes: vec![],
    })
}

/// An app with `:xray` open on deployments: web (rs web-1, two ready pods) and api (rs api-1,
/// one pod not ready).
fn xray_app() -> (App, Stores, HashMap<String, ViewId>) {
    xray_app_with(config())
}

/// [`xray_app`] started with `cfg` (e.g. `--readonly`).
fn xray_app_with(cfg: AppConfig) -> (App, Stores, HashMap<String, ViewId>) {
    let mut app = App::new(cfg, KeyMap::defaults().unwrap());
    app.init();
    app.update(Action::Resize(100, 24));
    let mut fx = type_str(&mut app, ":xray");
    fx.extend(app.update(code(KeyCode::Enter)));
    let feeds: HashMap<String, ViewId> = opened(&fx)
        .into_iter()
        .map(|(id, plural, ns)| {
            assert_eq!(ns.as_deref(), Some("default"));
            (plural, id)
        })
        .collect();
    let mut stores: Stores = HashMap::new();
    for plural in ["deployments", "replicasets", "pods"] {
        let mut ix = default_indexers::<DynamicObject>();
        if plural == "pods" {
            ix.insert(NODE_INDEX.to_string(), dynamic_pod_node_index_func());
        }
        let s = Arc::new(ThreadSafeStore::new(ix));
        app.update(Action::Store {
            view: feeds[plural],
            store: s.clone(),
        });
        stores.insert(plural, s);
    }
    deliver(
        &mut app,
        &stores,
        &feeds,
        "deployments",
        &[deploy("web", "d1"), deploy("api", "d2")],
    );
    deliver(
        &mut app,
        &stores,
        &feeds,
        "replicasets",
        &[rs("web-1", "r1", "d1", "1"), rs("api-1", "r9", "d2", "1")],
    );
    deliver(
        &mut app,
        &stores,
        &feeds,
        "pods",
        &[
            pod("web-1-a", "r1", true),
            pod("web-1-b", "r1", true),
            pod("api-1-a", "r9", false),
        ],
    );
    (app, stores, feeds)
}

fn tree(app: &App) -> Vec<String> {
    let Some(Screen::Xray(x)) = app.current_screen() else {
        panic!("xray not on top");
    };
    x.model
        .rows()
        .iter()
        .map(|r| format!("{}{} {}/{}", "  ".repeat(r.depth), r.name, r.ready, r.total))
        .collect()
}

fn select(app: &mut App, name: &str) {
    let i = {
        let Some(Screen::Xray(x)) = app.current_screen() else {
            panic!("xray not on top");
        };
        x.model
            .rows()
            .iter()
            .position(|r| &*r.name == name)
            .unwrap()
    };
    app.update(code(KeyCode::Home));
    for _ in 0..i {
        app.update(key('j'));
    }
}

fn draw(app: &App) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(100, 24)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    terminal
}

#[test]
fn xray_opens_one_feed_per_kind_its_tree_reads_and_closes_them_when_it_closes() {
    let (mut app, _, feeds) = xray_app();
    let mut plurals: Vec<&str> = feeds.keys().map(String::as_str).collect();
    plurals.sort_unstable();
    assert_eq!(plurals, ["deployments", "pods", "replicasets"]);
    assert!(
        feeds.values().all(|id| !app.views.contains_key(id)),
        "feeds are not tables"
    );
    let fx = app.update(code(KeyCode::Esc));
    let mut closed: Vec<ViewId> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::CloseView { view } => Some(*view),
            _ => None,
        })
        .collect();
    closed.sort_unstable();
    let mut want: Vec<ViewId> = feeds.values().copied().collect();
    want.sort_unstable();
    assert_eq!(closed, want);
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn xray_completes_its_root_kinds() {
    assert_eq!(
        kinformer::ui::resources::complete(&[], &[], &[], "xray s"),
        ["xray sts", "xray svc"]
    );
    assert!(kinformer::ui::resources::complete(&[], &[], &[], "xr").contains(&"xray".to_string()));
}

#[test]
fn xray_of_an_unknown_kind_says_which_kinds_it_knows() {
    let mut app = App::new(config(), KeyMap::defaults().unwrap());
    app.init();
    type_str(&mut app, ":xray cm");
    let fx = app.update(code(KeyCode::Enter));
    assert!(opened(&fx).is_empty());
    let (msg, error) = app.message.clone().unwrap();
    assert!(
        error && msg.contains("deploy, sts, ds, job, svc, node, ns"),
        "{msg}"
    );
}

#[test]
fn the_tree_counts_ready_pods_per_level_and_keys_open_and_close_nodes() {
    let (mut app, _, _) = xray_app();
    assert_eq!(
        tree(&app),
        [
            "api 0/1",
            "  api-1 0/1",
            "    api-1-a 0/2",
            "web 2/2",
            "  web-1 2/2",
            "    web-1-a 2/2",
            "    web-1-b 2/2"
        ]
    );
    select(&mut app, "api");
    app.update(key(' '));
    assert_eq!(tree(&app)[..2], ["api 0/1", "web 2/2"]);
    app.update(key('-'));
    assert_eq!(tree(&app), ["api 0/1", "web 2/2"]);
    app.update(key('+'));
    // Every node open; the pods' containers are not fetched yet.
    assert_eq!(tree(&app).len(), 2 + 2 + 3 * 2);
}

#[test]
fn opening_a_pod_fetches_its_containers_and_l_on_a_container_streams_that_container() {
    let (mut app, _, _) = xray_app();
    select(&mut app, "web-1-a");
    // Enter on an object node opens its actions, open / close first: Enter again opens it.
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert!(matches!(app.mode, Mode::NodeActions(_)));
    let fx = app.update(code(KeyCode::Enter));
    assert!(matches!(app.mode, Mode::Normal));
    let request = match fx.as_slice() {
        [
            Effect::FetchYaml {
                request,
                resource,
                namespace,
                name,
            },
        ] => {
            assert_eq!(resource.api_resource.plural, "pods");
            assert_eq!(
                (namespace.as_deref(), name.as_str()),
                (Some("default"), "web-1-a")
            );
            *request
        }
        other => panic!("{other:?}"),
    };
    app.update(Action::Yaml {
        request,
        result: Ok(full_pod("web-1-a", "r1", true)),
    });
    assert!(
        matches!(app.current_screen(), Some(Screen::Xray(_))),
        "no YAML screen"
    );
    let t = tree(&app);
    assert_eq!(
        t[5..8],
        ["    web-1-a 2/2", "      app 1/1", "      proxy 1/1"]
    );
    app.update(key('j'));
    app.update(key('j'));
    let fx = app.update(key('L'));
    match fx.as_slice() {
        [
            Effect::OpenLogs {
                namespace,
                containers,
                ..
            },
        ] => {
            assert_eq!(namespace, "default");
            assert_eq!(containers, &ContainerPick::One("proxy".into()));
        }
        other => panic!("{other:?}"),
    }
    // A container node stands for its pod for the operating keys.
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Xray(_))));
    let w = confirmed(&mut app, ctrl('k'));
    assert_eq!(w.op, Operation::Kill);
    assert_eq!(w.what(), "pod default/web-1-a");
}

#[test]
fn y_and_d_on_a_node_show_that_objects_yaml_and_describe() {
    let (mut app, _, _) = xray_app();
    select(&mut app, "web-1");
    let fx = app.update(key('y'));
    match fx.as_slice() {
        [Effect::FetchYaml { resource, name, .. }] => {
            assert_eq!(resource.api_resource.plural, "replicasets");
            assert_eq!(name, "web-1");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(app.current_screen(), Some(Screen::Text(_))));
    app.update(code(KeyCode::Esc));
    select(&mut app, "api");
    let fx = app.update(key('d'));
    assert!(matches!(fx.as_slice(), [Effect::FetchDescribe { name, .. }] if name == "api"));
}

#[test]
fn h_on_a_node_opens_that_objects_history_timeline() {
    let (mut app, _, _) = xray_app();
    for (name, resource, object) in [
        ("web", "deployments.apps", "default/web"),
        ("web-1", "replicasets.apps", "default/web-1"),
        ("web-1-a", "pods", "default/web-1-a"),
    ] {
        select(&mut app, name);
        let fx = app.update(key('h'));
        match fx.as_slice() {
            [
                Effect::FetchHistory {
                    resource: r,
                    key: k,
                    ..
                },
            ] => {
                assert_eq!((r.as_str(), k.as_str()), (resource, object));
            }
            other => panic!("{name}: {other:?}"),
        }
        let Some(Screen::History(h)) = app.current_screen() else {
            panic!("{name}: history not on top");
        };
        assert_eq!((h.resource.as_str(), h.key.as_str()), (resource, object));
        app.update(code(KeyCode::Esc));
        assert!(matches!(app.current_screen(), Some(Screen::Xray(_))));
    }
}

/// The write a confirmed dialog sends.
fn confirmed(app: &mut App, k: Action) -> Write {
    assert!(app.update(k).is_empty(), "nothing sent before confirmation");
    assert!(matches!(app.mode, Mode::Confirm(_)), "{:?}", app.mode);
    match app.update(key('y')).as_slice() {
        [Effect::Write(w)] => w.clone(),
        other => panic!("expected one write, got {other:?}"),
    }
}

#[test]
fn operating_keys_on_a_node_write_its_object_through_the_confirmed_path() {
    let (mut app, _, _) = xray_app();
    select(&mut app, "web");
    let w = confirmed(&mut app, key('r'));
    assert_eq!(w.op, Operation::Restart);
    assert_eq!(w.what(), "deployment default/web");
    assert!(matches!(app.current_screen(), Some(Screen::Xray(_))));

    select(&mut app, "web");
    assert!(app.update(key('s')).is_empty());
    let Mode::Scale(d) = &app.mode else {
        panic!("{:?}", app.mode)
    };
    assert_eq!(d.current, Some(2), "the deployment's spec.replicas");
    assert_eq!(d.write.what(), "deployment default/web");
    app.update(code(KeyCode::Esc));

    select(&mut app, "web-1");
    let w = confirmed(&mut app, ctrl('d'));
    assert_eq!(w.op, Operation::Delete(Propagation::Background));
    assert_eq!(w.what(), "replicaset default/web-1");

    select(&mut app, "web-1-a");
    let w = confirmed(&mut app, ctrl('k'));
    assert_eq!(w.op, Operation::Kill);
    assert_eq!(w.what(), "pod default/web-1-a");
    let fx = app.update(key('s'));
    assert!(
        matches!(fx.as_slice(), [Effect::FetchContainers { namespace, pod }]
            if namespace == "default" && pod == "web-1-a"),
        "{fx:?}"
    );
}

/// The actions Enter offers on the selected node.
fn offered(app: &mut App, name: &str) -> Vec<KeyAction> {
    select(app, name);
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    let Mode::NodeActions(m) = &app.mode else {
        panic!("{name}: no actions menu: {:?}", app.mode)
    };
    m.items.iter().map(|(a, _)| *a).collect()
}

#[test]
fn enter_on_a_node_offers_the_actions_that_apply_to_its_kind() {
    use KeyAction::*;
    let (mut app, _, _) = xray_app();
    assert_eq!(
        offered(&mut app, "web"),
        [
            ToggleNode,
            Yaml,
            Describe,
            Logs,
            History,
            Delete,
            Scale,
            Restart,
            SetImage,
            PortForward,
            Edit
        ]
    );
    // An action's own key runs it: h opens the timeline.
    let fx = app.update(key('h'));
    assert!(matches!(fx.as_slice(), [Effect::FetchHistory { key, .. }] if key == "default/web"));
    assert!(matches!(app.mode, Mode::Normal));
    assert!(matches!(app.current_screen(), Some(Screen::History(_))));
    app.update(code(KeyCode::Esc));

    let pod_actions = offered(&mut app, "web-1-a");
    assert_eq!(
        pod_actions,
        [
            ToggleNode,
            Yaml,
            Describe,
            Logs,
            History,
            Delete,
            Kill,
            SetImage,
            Shell,
            PortForward,
            Edit
        ]
    );
    // ↓ to kill and Enter: the kill confirmation, as ctrl-k on a table row.
    let kill = pod_actions.iter().position(|a| *a == Kill).unwrap();
    for _ in 0..kill {
        app.update(code(KeyCode::Down));
    }
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    match app.update(key('y')).as_slice() {
        [Effect::Write(w)] => {
            assert_eq!(w.op, Operation::Kill);
            assert_eq!(w.what(), "pod default/web-1-a");
        }
        other => panic!("{other:?}"),
    }
    // Esc closes the menu and does nothing.
    offered(&mut app, "web-1");
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn enter_in_readonly_mode_offers_no_writes() {
    use KeyAction::*;
    let (mut app, _, _) = xray_app_with(AppConfig {
        readonly: true,
        ..config()
    });
    assert_eq!(
        offered(&mut app, "web-1-a"),
        [ToggleNode, Yaml, Describe, Logs, History]
    );
}

#[test]
fn operating_keys_on_a_node_of_another_kind_say_they_do_not_apply() {
    let (mut app, _, _) = xray_app();
    for (name, k, message) in [
        (
            "web-1-a",
            key('r'),
            "r: nothing to do on a Pod (restart: deploy/sts/ds · drain: nodes)",
        ),
        (
            "web-1-a",
            key('t'),
            "t: nothing to do on a Pod (trigger: cronjobs · type: :deltas)",
        ),
        ("web", ctrl('k'), "kill does not apply to a Deployment"),
        (
            "web",
            key('o'),
            "o: nothing to do on a Deployment (kind: :deltas · node: pods)",
        ),
        ("web", key('c'), "cordon does not apply to a Deployment"),
    ] {
        select(&mut app, name);
        assert!(app.update(k).is_empty(), "{message}: no effect");
        assert!(matches!(app.mode, Mode::Normal), "{message}: no dialog");
        assert_eq!(app.message, Some((message.to_string(), true)));
    }
}

#[test]
fn readonly_refuses_operating_keys_on_nodes_without_a_dialog() {
    let (mut app, _, _) = xray_app_with(AppConfig {
        readonly: true,
        ..config()
    });
    for (name, k, op) in [
        ("web", ctrl('d'), "delete"),
        ("web", key('r'), "restart"),
        ("web", key('s'), "scale"),
        ("web", key('e'), "edit"),
        ("web-1-a", ctrl('k'), "kill"),
        ("web-1-a", key('s'), "shell"),
        ("web-1-a", key('F'), "port-forward"),
    ] {
        select(&mut app, name);
        assert!(app.update(k).is_empty(), "{op}: no effect");
        assert!(matches!(app.mode, Mode::Normal), "{op}: no dialog");
        assert_eq!(
            app.message,
            Some((
                format!("read-only mode: {op} is disabled (started with --readonly)"),
                true
            ))
        );
    }
    // Reading keys still work.
    select(&mut app, "web");
    assert!(matches!(
        app.update(key('h')).as_slice(),
        [Effect::FetchHistory { .. }]
    ));
}

#[test]
fn filters_narrow_the_tree_and_esc_clears_them_before_leaving() {
    let (mut app, _, _) = xray_app();
    type_str(&mut app, "/web-1-b");
    app.update(code(KeyCode::Enter));
    assert_eq!(tree(&app), ["web 2/2", "  web-1 2/2", "    web-1-b 2/2"]);
    app.update(ctrl('l'));
    type_str(&mut app, "app=api");
    app.update(code(KeyCode::Enter));
    assert_eq!(tree(&app), ["api 0/1", "  api-1 0/1", "    api-1-a 0/2"]);
    let fx = app.update(code(KeyCode::Esc));
    assert!(fx.is_empty());
    assert_eq!(tree(&app).len(), 7);
}

#[test]
fn a_rollout_updates_the_tree_in_place_new_replicaset_filling_old_draining() {
    let (mut app, stores, feeds) = xray_app();
    deliver(
        &mut app,
        &stores,
        &feeds,
        "replicasets",
        &[rs("web-2", "r2", "d1", "2")],
    );
    deliver(
        &mut app,
        &stores,
        &feeds,
        "pods",
        &[pod("web-2-a", "r2", false)],
    );
    assert_eq!(
        tree(&app)[3..6],
        ["web 2/3", "  web-2 0/1", "    web-2-a 0/2"]
    );
    deliver(
        &mut app,
        &stores,
        &feeds,
        "pods",
        &[pod("web-2-a", "r2", true)],
    );
    stores["pods"].delete("default/web-1-a");
    app.update(Action::Rows {
        view: feeds["pods"],
        upserts: vec![],
        deletes: vec![Arc::from("default/web-1-a")],
    });
    assert_eq!(
        tree(&app)[3..],
        [
            "web 2/2",
            "  web-2 1/1",
            "    web-2-a 2/2",
            "  web-1 1/1",
            "    web-1-b 2/2"
        ]
    );
    assert!(app.take_dirty());
}

#[test]
fn snapshot_xray_expanded() {
    let (mut app, _, _) = xray_app();
    select(&mut app, "web-1-a");
    let fx = app.update(key(' '));
    let Some(Effect::FetchYaml { request, .. }) = fx.first() else {
        panic!("{fx:?}");
    };
    let mut full = full_pod("web-1-a", "r1", true);
    full["status"]["containerStatuses"][1] = json!({"name": "proxy", "ready": false,
        "restartCount": 4, "state": {"waiting": {"reason": "CrashLoopBackOff"}}});
    app.update(Action::Yaml {
        request: *request,
        result: Ok(full),
    });
    let Some(Screen::Xray(x)) = app.current_screen() else {
        panic!()
    };
    assert!(x.model.rows().iter().any(|r| r.kind == NodeKind::Container));
    insta::assert_snapshot!(draw(&app).backend());
}

#[test]
fn snapshot_xray_collapsed() {
    let (mut app, _, _) = xray_app();
    app.update(key('-'));
    insta::assert_snapshot!(draw(&app).backend());
}

#[test]
fn snapshot_xray_node_actions() {
    let (mut app, _, _) = xray_app();
    select(&mut app, "web-1-a");
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!(draw(&app).backend());
}
