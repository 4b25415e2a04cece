//! Issue 25's UI defects, each pinned through `App::update` and TestBackend snapshots: the help
//! overlay's keys and wrapping, the label picker's error and text, the pulse's panel sizes,
//! resource names cut in the event log, pulse and `:changes`, and xray's namespaces and folded
//! old revisions.

mod ui_support;

use std::collections::HashMap;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::informer::delta_fifo::DeltaType;
use kinformer::informer::index::{NODE_INDEX, default_indexers, dynamic_pod_node_index_func};
use kinformer::informer::shared_informer::TapEntry;
use kinformer::informer::thread_safe_store::ThreadSafeStore;
use kinformer::ui::action::{Action, Effect, InformerState, ObjectSummary, ViewId};
use kinformer::ui::app::{Mode, Screen};
use kinformer::ui::keys::KeyAction;
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::DynamicObject;
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;
use serde_json::{Value, json};
use ui_support::*;

/// The first key bound to `action` (the key map is data: tests do not hard-code its keys).
fn press(app: &mut App, action: KeyAction) -> Vec<Effect> {
    let spec = app
        .keys
        .bindings()
        .iter()
        .find(|b| b.action == action)
        .and_then(|b| b.keys.first().copied())
        .unwrap_or_else(|| panic!("{action:?} is not bound"));
    let mut m = KeyModifiers::NONE;
    if spec.ctrl {
        m |= KeyModifiers::CONTROL;
    }
    if spec.alt {
        m |= KeyModifiers::ALT;
    }
    app.update(Action::Key(KeyEvent::new(spec.code, m)))
}

/// Every key bound to `action`.
fn keys_of(app: &App, action: KeyAction) -> Vec<Action> {
    app.keys
        .bindings()
        .iter()
        .filter(|b| b.action == action)
        .flat_map(|b| b.keys.iter())
        .map(|spec| {
            let mut m = KeyModifiers::NONE;
            if spec.ctrl {
                m |= KeyModifiers::CONTROL;
            }
            if spec.alt {
                m |= KeyModifiers::ALT;
            }
            Action::Key(KeyEvent::new(spec.code, m))
        })
        .collect()
}

/// The text of rows `y0..y1`, columns `x0..x1` of a buffer.
fn region(buf: &Buffer, x0: u16, x1: u16, y0: u16, y1: u16) -> Vec<String> {
    (y0..y1)
        .map(|y| (x0..x1).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .collect()
}

fn screen(buf: &Buffer) -> String {
    let a = buf.area;
    region(buf, 0, a.width, 0, a.height).join("\n")
}

fn words(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn help_scroll(app: &App) -> Option<usize> {
    match app.mode {
        Mode::Help { scroll } => Some(scroll),
        _ => None,
    }
}

// ------------------------------------------------------------------ 1. help

#[test]
fn every_navigation_key_scrolls_the_help_and_only_esc_q_and_question_mark_close_it() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    app.update(Action::Resize(100, 30));
    press(&mut app, KeyAction::Help);
    assert_eq!(help_scroll(&app), Some(0));
    // G / end: the last page, the help still open.
    press(&mut app, KeyAction::Bottom);
    let bottom = help_scroll(&app).expect("G keeps the help open");
    assert!(bottom > 0);
    // At 100×30 the overlay shows 24 lines: a page moves 23.
    let page = 23;
    let cases: [(KeyAction, &[KeyAction], usize); 6] = [
        (KeyAction::Bottom, &[KeyAction::Top], bottom),
        (KeyAction::Top, &[KeyAction::Bottom], 0),
        (KeyAction::Down, &[KeyAction::Top], 1),
        (
            KeyAction::Up,
            &[KeyAction::Top, KeyAction::Down, KeyAction::Down],
            1,
        ),
        (KeyAction::PageDown, &[KeyAction::Top], page),
        (KeyAction::PageUp, &[KeyAction::Bottom], bottom - page),
    ];
    for (action, from, want) in cases {
        // Every key of the action (`j` and `down`, `G` and `end`...) from the same place.
        for k in keys_of(&app, action) {
            for f in from {
                press(&mut app, *f);
            }
            app.update(k.clone());
            assert_eq!(help_scroll(&app), Some(want), "{action:?} {k:?}");
        }
    }
    // Down at the bottom stays there: no scrolling past the end.
    press(&mut app, KeyAction::Bottom);
    press(&mut app, KeyAction::Down);
    assert_eq!(help_scroll(&app), Some(bottom));
    // A key that is no navigation key leaves it open.
    press(&mut app, KeyAction::Yaml);
    assert!(help_scroll(&app).is_some());
    // esc, q (Back's keys) and ? close it (q closes the help, not the app).
    let closers = [
        keys_of(&app, KeyAction::Back),
        keys_of(&app, KeyAction::Help),
    ]
    .concat();
    assert_eq!(closers.len(), 3, "{closers:?}");
    for close in closers {
        if help_scroll(&app).is_none() {
            press(&mut app, KeyAction::Help);
        }
        app.update(close.clone());
        assert!(
            matches!(app.mode, Mode::Normal),
            "{close:?}: {:?}",
            app.mode
        );
        assert!(!app.should_quit);
    }
}

/// The overlay's inside at 100×30, every line of the help once (scrolled a line at a time).
fn help_text_at_100x30(app: &mut App) -> Vec<String> {
    // The overlay: centred, 8 columns and 4 rows smaller than the terminal, bordered.
    let (x0, x1, y0, y1) = (5, 95, 3, 27);
    press(app, KeyAction::Help);
    let mut t = draw(app, 100, 30);
    let mut lines = region(t.backend().buffer(), x0, x1, y0, y1);
    loop {
        let before = help_scroll(app);
        press(app, KeyAction::Down);
        if help_scroll(app) == before {
            break;
        }
        t = draw(app, 100, 30);
        lines.extend(region(t.backend().buffer(), x0, x1, y1 - 1, y1));
    }
    press(app, KeyAction::Back);
    lines
}

#[test]
fn help_descriptions_wrap_under_their_column_at_100_columns() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    connected(&mut app);
    let lines = help_text_at_100x30(&mut app);
    let all = words(&lines.join(" "));
    for b in app.keys.bindings() {
        assert!(
            all.contains(&words(&b.help)),
            "{:?} is cut or missing in the help",
            b.help
        );
    }
    // Continuation lines hang under the description column (18 cells in).
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with(&" ".repeat(18)) && !l[18..].starts_with(' ')),
        "no wrapped description:\n{}",
        lines.join("\n")
    );
    press(&mut app, KeyAction::Help);
    insta::assert_snapshot!(draw(&mut app, 100, 30).backend());
}

// ------------------------------------------------------------------ 2. label picker

fn labelled_pods() -> Vec<ObjectSummary> {
    [("web-1", "web"), ("web-2", "web"), ("db-0", "db")]
        .into_iter()
        .map(|(name, app)| {
            pod(PodSpec {
                name,
                labels: &[("app", app)],
                ..PodSpec::default()
            })
        })
        .collect()
}

fn picker_input(app: &App) -> (String, usize, Option<String>) {
    match &app.mode {
        Mode::Labels(p) => (
            p.input.value().to_string(),
            p.input.cursor(),
            p.error.clone(),
        ),
        m => panic!("the picker is not open: {m:?}"),
    }
}

#[test]
fn an_invalid_selector_keeps_the_picker_open_with_its_whole_error_and_the_text_editable() {
    let (mut app, v) = app_with(config(), labelled_pods());
    connected(&mut app);
    press(&mut app, KeyAction::LabelFilter);
    type_str(&mut app, "app in (a");
    app.update(code(KeyCode::Enter));
    let (text, cursor, error) = picker_input(&app);
    assert_eq!((text.as_str(), cursor), ("app in (a", 9));
    let error = error.expect("an inline error");
    // The whole error shows inside the picker, wrapped.
    let t = draw(&mut app, 100, 30);
    // Inside the picker: 64 columns centred at 100, bordered.
    let text = words(&region(t.backend().buffer(), 19, 81, 0, 30).join(" "));
    assert!(
        text.contains(&words(&error)),
        "{error:?} is cut:\n{}",
        screen(t.backend().buffer())
    );
    insta::assert_snapshot!(t.backend());
    // The next keys edit the text where the cursor is: no copy of the old text.
    type_str(&mut app, ",b");
    assert_eq!(picker_input(&app).0, "app in (a,b");
    app.update(code(KeyCode::Left));
    app.update(code(KeyCode::Left));
    type_str(&mut app, "x");
    let (text, cursor, error) = picker_input(&app);
    assert_eq!((text.as_str(), cursor, error), ("app in (ax,b", 10, None));
    // The cursor is drawn where it is: on the `,` after the inserted `x`.
    let t = draw(&mut app, 100, 30);
    let buf = t.backend().buffer();
    let (x, y) = (0..30)
        .flat_map(|y| (19..81).map(move |x| (x, y)))
        .find(|&(x, y)| buf[(x, y)].modifier.contains(Modifier::REVERSED))
        .expect("a cursor");
    assert_eq!(buf[(x, y)].symbol(), ",");
    assert_eq!(buf[(x - 1, y)].symbol(), "x");
    // Fixed, it applies.
    app.update(code(KeyCode::End));
    for _ in 0.."ax,b".len() {
        app.update(code(KeyCode::Backspace));
    }
    type_str(&mut app, "web,db)");
    assert_eq!(picker_input(&app).0, "app in (web,db)");
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.mode, Mode::Normal), "{:?}", app.mode);
    assert_eq!(shown(&app, v).len(), 3);
}

// ------------------------------------------------------------------ 3. pulse

fn summary(kind: &str, v: Value) -> ObjectSummary {
    let obj: DynamicObject = serde_json::from_value(v).unwrap();
    ObjectSummary::from_object(kind, &Arc::new(obj), None).unwrap()
}

fn restarting_pod(i: usize) -> ObjectSummary {
    summary(
        "Pod",
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("api-{i}"), "namespace": "shop", "uid": format!("p{i}")},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c"}]},
            "status": {"phase": "Running", "containerStatuses": [{"name": "c", "ready": true,
                "restartCount": 20 - i, "state": {"running": {}}}]}}),
    )
}

fn warning(i: usize) -> ObjectSummary {
    summary(
        "Event",
        json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": format!("e{i}"), "namespace": "shop", "uid": format!("e{i}")},
        "type": "Warning", "reason": "BackOff",
        "lastTimestamp": chrono::DateTime::from_timestamp(NOW - 600 + 30 * i as i64, 0)
            .unwrap()
            .to_rfc3339(),
        "involvedObject": {"kind": "Pod", "name": format!("api-{i}")},
        "message": if i % 4 == 3 {
            "Failed to pull image \"registry.example.com/shop/api:1.4.2\": rpc error: \
             code = NotFound desc = failed to resolve reference"
        } else {
            "Back-off restarting failed container"
        }}),
    )
}

/// A pulse over 12 restarting pods, 12 warnings and three informers' rates (one of them the
/// CRD informer, whose name is long).
fn pulse_app() -> App {
    let (mut app, _) = app_with(
        AppConfig {
            namespace: None,
            ..config()
        },
        vec![],
    );
    connected(&mut app);
    let mut fx = type_str(&mut app, ":pulse");
    fx.extend(app.update(code(KeyCode::Enter)));
    let feeds: HashMap<String, ViewId> = opened(&fx)
        .into_iter()
        .map(|(id, plural, _)| (plural, id))
        .collect();
    app.update(Action::Resync {
        view: feeds["pods"],
        rows: (0..12).map(restarting_pod).collect(),
    });
    app.update(Action::Resync {
        view: feeds["events"],
        rows: (0..12).map(warning).collect(),
    });
    app.update(Action::InformerStats(vec![
        informer_row("pods", None, InformerState::Watching),
        informer_row("events", None, InformerState::Watching),
        informer_row(
            "customresourcedefinitions.apiextensions.k8s.io",
            None,
            InformerState::Watching,
        ),
    ]));
    app
}

/// Rows of the panel whose top border carries `title`.
fn panel_height(buf: &Buffer, title: &str) -> u16 {
    let lines = region(buf, 0, buf.area.width, 0, buf.area.height);
    let (top, x) = lines
        .iter()
        .enumerate()
        .find_map(|(y, l)| l.find(title).map(|x| (y, l[..x].chars().count())))
        .unwrap_or_else(|| panic!("no panel {title:?}:\n{}", lines.join("\n")));
    // The panel's left border column: the `┌` at or before the title.
    let left = lines[top][..]
        .chars()
        .take(x)
        .collect::<Vec<_>>()
        .iter()
        .rposition(|c| *c == '┌')
        .unwrap_or(0);
    let bottom = (top + 1..lines.len())
        .find(|&y| lines[y].chars().nth(left) == Some('└'))
        .unwrap_or(lines.len());
    (bottom - top + 1) as u16
}

#[test]
fn the_pulse_sizes_its_panels_by_their_content() {
    let mut app = pulse_app();
    for (w, h) in [(200u16, 50u16), (100, 30)] {
        let t = draw(&mut app, w, h);
        let buf = t.backend().buffer();
        // Three informers: three rows and the border.
        assert_eq!(panel_height(buf, "Deltas/s per informer"), 5, "{w}×{h}");
        // The lists take the rest: more than the five entries they had.
        let lists = panel_height(buf, "Most restarts");
        let want = h - 3 - 1 - 7 - 3 - 5;
        assert_eq!(lists, want, "{w}×{h}");
        let text = screen(buf);
        let listed = (0..12)
            .filter(|i| text.contains(&format!("  api-{i}  shop")))
            .count();
        assert_eq!(listed, usize::from(want - 2).min(12), "{w}×{h}:\n{text}");
        // The CRD informer's name is not cut.
        assert!(text.contains("customresourcedefinitions "), "{text}");
    }
}

#[test]
fn pulse_snapshot_200x50() {
    let mut app = pulse_app();
    insta::assert_snapshot!(draw(&mut app, 200, 50).backend());
}

#[test]
fn pulse_snapshot_100x30() {
    let mut app = pulse_app();
    insta::assert_snapshot!(draw(&mut app, 100, 30).backend());
}

// ------------------------------------------------------------------ 4. cut text

fn tap(seq: u64, kind: &str, key: &str) -> TapEntry {
    TapEntry {
        seq,
        at: std::time::UNIX_EPOCH,
        kind: kind.into(),
        delta: DeltaType::Updated,
        tombstone: false,
        key: key.into(),
        resource_version: "7".into(),
        queue_depth: 0,
        cluster: None,
    }
}

#[test]
fn the_event_log_names_namespaced_and_group_qualified_kinds_without_cutting_them() {
    let (mut app, _) = app_with(config(), vec![]);
    connected(&mut app);
    app.update(Action::Tap(vec![
        tap(1, "replicasets.apps@identity", "identity/auth-6f7c9-x"),
        tap(2, "widgets.demo.kinformer.io", "shop/blue"),
        tap(3, "pods", "default/web-1"),
    ]));
    type_str(&mut app, ":deltas");
    app.update(code(KeyCode::Enter));
    let t = draw(&mut app, 100, 30);
    let text = screen(t.backend().buffer());
    for want in [
        "replicasets.apps  ",
        "widgets.demo.kinformer.io",
        "identity/auth-6f7c9-x",
    ] {
        // At 100 columns the group of a long resource gives way to its plural.
        let want = if want == "widgets.demo.kinformer.io" {
            "widgets  "
        } else {
            want
        };
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
    assert!(!text.contains("@identit"), "{text}");
    insta::assert_snapshot!(t.backend());
}

/// A generated name as long as a pod's of a long Deployment name.
const LONG_NAME: &str = "blue-gear-with-a-rather-long-generated-name-7d4b9c8f6d-x2lq9";

#[test]
fn changes_names_a_custom_resource_whole_and_counts_in_the_singular() {
    use kinformer::informer::delta_fifo::{Delta, DeltaObject};
    use kinformer::informer::history::History;
    let (mut app, _) = app_with(config(), vec![]);
    connected(&mut app);
    type_str(&mut app, ":changes -A");
    let fx = app.update(code(KeyCode::Enter));
    let filter = match fx.as_slice() {
        [Effect::FetchChanges { filter, .. }] => filter.clone(),
        other => panic!("{other:?}"),
    };
    let h = History::with_mib(1);
    let widget: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "demo.kinformer.io/v1", "kind": "Widget",
        "metadata": {"name": LONG_NAME, "namespace": "shop", "resourceVersion": "5"},
        "spec": {"size": 3}}))
    .unwrap();
    let at = NOW_MS - 60_000;
    h.observe_at(
        "widgets.demo.kinformer.io",
        &widget,
        kinformer::render::history_mask("Widget"),
        at,
    );
    h.popped_at(
        "widgets.demo.kinformer.io",
        &format!("shop/{LONG_NAME}"),
        &[Delta {
            kind: DeltaType::Added,
            object: DeltaObject::Object(Arc::new(widget)),
        }],
        at,
    );
    let rows = h.latest(100, |_, _| true);
    app.update(Action::Changes {
        filter,
        rows,
        stats: h.stats(),
    });
    let t = draw(&mut app, 200, 12);
    let text = screen(t.backend().buffer());
    assert!(text.contains("widgets.demo.kinformer.io"), "{text}");
    assert!(text.contains("1 version of 1 object"), "{text}");
    let t = draw(&mut app, 100, 12);
    let text = screen(t.backend().buffer());
    assert!(text.contains(" widgets "), "{text}");
    assert!(!text.contains("widgets.demo.kin "), "{text}");
    // A long key leaves CHANGES its room.
    assert!(text.contains("first seen ("), "{text}");
}

// ------------------------------------------------------------------ 5. xray

type Stores = HashMap<&'static str, Arc<ThreadSafeStore<DynamicObject>>>;

fn obj(v: Value) -> Arc<DynamicObject> {
    Arc::new(serde_json::from_value(v).unwrap())
}

fn deploy(ns: &str, name: &str, uid: &str) -> Arc<DynamicObject> {
    obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns, "uid": uid},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}}},
        "status": {"replicas": 1, "readyReplicas": 1, "availableReplicas": 1}}))
}

fn rs(ns: &str, name: &str, uid: &str, owner: &str, rev: u32, replicas: i64) -> Arc<DynamicObject> {
    obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": ns, "uid": uid,
            "annotations": {"deployment.kubernetes.io/revision": rev.to_string()},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "x",
                "uid": owner, "controller": true}]},
        "spec": {"replicas": replicas}, "status": {"replicas": replicas}}))
}

fn xpod(ns: &str, name: &str, owner: &str) -> Arc<DynamicObject> {
    let full: DynamicObject = serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"),
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "x",
                "uid": owner, "controller": true}]},
        "spec": {"nodeName": "node-1", "containers": [{"name": "app", "image": "web:1"}]},
        "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": "True"}],
            "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                "state": {"running": {}}}]}}))
    .unwrap();
    Arc::new(kinformer::render::prune("Pod", full))
}

fn kind_of(plural: &str) -> &'static str {
    match plural {
        "deployments" => "Deployment",
        "replicasets" => "ReplicaSet",
        _ => "Pod",
    }
}

fn deliver(
    app: &mut App,
    stores: &Stores,
    feeds: &HashMap<String, ViewId>,
    plural: &'static str,
    objs: &[Arc<DynamicObject>],
) {
    for o in objs {
        let key = kinformer::informer::meta_namespace_key(&**o).unwrap();
        stores[plural].update(&key, o.clone()).unwrap();
    }
    app.update(Action::Rows {
        view: feeds[plural],
        upserts: objs
            .iter()
            .map(|o| ObjectSummary::from_object(kind_of(plural), o, None).unwrap())
            .collect(),
        deletes: vec![],
    });
}

/// `:xray` over all namespaces: `auth` in identity with three rollouts behind it (two old
/// ReplicaSets scaled to zero, one live with a pod), and `web` in shop with one ReplicaSet.
fn xray_all_namespaces() -> App {
    let mut app = App::new(
        AppConfig {
            namespace: None,
            ..config()
        },
        KeyMap::defaults().unwrap(),
    );
    app.init();
    connected(&mut app);
    app.update(Action::Resize(100, 30));
    let mut fx = type_str(&mut app, ":xray");
    fx.extend(app.update(code(KeyCode::Enter)));
    let feeds: HashMap<String, ViewId> = opened(&fx)
        .into_iter()
        .map(|(id, plural, ns)| {
            assert_eq!(ns, None, "all namespaces");
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
        &[
            deploy("identity", "auth", "d1"),
            deploy("shop", "web", "d2"),
        ],
    );
    deliver(
        &mut app,
        &stores,
        &feeds,
        "replicasets",
        &[
            rs("identity", "auth-1", "r1", "d1", 1, 0),
            rs("identity", "auth-2", "r2", "d1", 2, 0),
            rs("identity", "auth-3", "r3", "d1", 3, 1),
            rs("shop", "web-1", "r4", "d2", 1, 1),
        ],
    );
    deliver(
        &mut app,
        &stores,
        &feeds,
        "pods",
        &[
            xpod("identity", "auth-3-a", "r3"),
            xpod("shop", "web-1-a", "r4"),
        ],
    );
    app
}

fn tree(app: &App) -> Vec<String> {
    let Some(Screen::Xray(x)) = app.current_screen() else {
        panic!("xray not on top");
    };
    x.model
        .rows()
        .iter()
        .map(|r| format!("{}{}", "  ".repeat(r.depth), r.name))
        .collect()
}

#[test]
fn xray_over_all_namespaces_names_each_roots_namespace() {
    let mut app = xray_all_namespaces();
    let t = draw(&mut app, 100, 30);
    let text = screen(t.backend().buffer());
    assert!(text.contains("deploy identity/auth 1/1"), "{text}");
    assert!(text.contains("deploy shop/web 1/1"), "{text}");
    // Children keep their own names (their namespace is their root's).
    assert!(text.contains("rs     auth-3 1/1"), "{text}");
    assert!(!text.contains("identity/auth-3"), "{text}");
}

#[test]
fn replicasets_scaled_to_zero_fold_into_one_old_revisions_line_that_the_toggle_key_opens() {
    let mut app = xray_all_namespaces();
    assert_eq!(
        tree(&app),
        [
            "auth",
            "  auth-3",
            "    auth-3-a",
            "  2 old revisions",
            "web",
            "  web-1",
            "    web-1-a",
        ]
    );
    insta::assert_snapshot!(draw(&mut app, 100, 30).backend());
    // The toggle key opens the fold: the old ReplicaSets, newest first.
    press(&mut app, KeyAction::Top);
    for _ in 0..3 {
        press(&mut app, KeyAction::Down);
    }
    press(&mut app, KeyAction::ToggleNode);
    assert_eq!(
        tree(&app)[3..6],
        ["  2 old revisions", "    auth-2", "    auth-1"]
    );
    let t = draw(&mut app, 100, 30);
    let text = screen(t.backend().buffer());
    assert!(
        text.contains("▾ ✓ rs     2 old revisions  rev 1–2"),
        "{text}"
    );
    // And closes it again.
    press(&mut app, KeyAction::ToggleNode);
    assert_eq!(tree(&app).len(), 7);
    // Enter on the fold (no object of its own) opens it too.
    press(&mut app, KeyAction::Enter);
    assert_eq!(tree(&app).len(), 9);
}
