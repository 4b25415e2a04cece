//! The history screens through `App::update`: `h` on a row → timeline, Enter → diff, Space to
//! mark two versions, Enter on an event-log line, `:changes` with its filters; insta snapshots
//! of the timeline, the diff and the changes screen.

mod ui_support;

use crossterm::event::KeyCode;
use kinformer::informer::delta_fifo::{Delta, DeltaObject, DeltaType};
use kinformer::informer::history::{ChangeRow, History};
use kinformer::informer::shared_informer::TapEntry;
use kinformer::ui::action::{Action, ConnectionState, Effect};
use kinformer::ui::app::Mode;
use kinformer::ui::screens::Screen;
use kinformer::ui::screens::changes::ChangesFilter;
use kinformer::ui::{App, AppConfig};
use kube::api::DynamicObject;
use serde_json::json;
use std::sync::Arc;
use ui_support::*;

fn app() -> (App, u64) {
    let (mut app, v) = app_with(
        config(),
        vec![
            pod(PodSpec {
                name: "web-1",
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "web-2",
                ..PodSpec::default()
            }),
        ],
    );
    app.update(Action::Connection(ConnectionState {
        context: "kind-demo".into(),
        server_version: Some("v1.33.1".into()),
        reachable: true,
        retry_at_ms: None,
        last_error: None,
    }));
    (app, v)
}

fn pod_version(
    rv: &str,
    phase: &str,
    restarts: u32,
    image: &str,
    reason: Option<&str>,
) -> DynamicObject {
    let mut status = json!({"phase": phase, "containerStatuses": [
        {"name": "web", "restartCount": restarts, "ready": phase == "Running"}]});
    if let Some(r) = reason {
        status["containerStatuses"][0]["lastState"] = json!({"terminated": {"reason": r}});
    }
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web-1", "namespace": "default", "resourceVersion": rv,
            "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": image}]},
        "status": status}))
    .unwrap()
}

/// A recorder that saw web-1 created, started, upgraded, crash and get deleted.
fn recorded() -> History {
    let h = History::with_mib(1);
    let mask = kinformer::render::history_mask("Pod");
    let versions = [
        (
            DeltaType::Added,
            pod_version("100", "Pending", 0, "web:1.4", None),
        ),
        (
            DeltaType::Updated,
            pod_version("101", "Running", 0, "web:1.4", None),
        ),
        (
            DeltaType::Updated,
            pod_version("102", "Running", 0, "web:1.5", None),
        ),
        (
            DeltaType::Updated,
            pod_version("103", "Running", 1, "web:1.5", Some("OOMKilled")),
        ),
        (
            DeltaType::Deleted,
            pod_version("104", "Failed", 1, "web:1.5", Some("OOMKilled")),
        ),
    ];
    for (i, (d, o)) in versions.into_iter().enumerate() {
        let at = NOW_MS - 600_000 + 60_000 * i as i64;
        h.observe_at("pods", &o, mask, at);
        h.popped_at(
            "pods",
            "default/web-1",
            &[Delta {
                kind: d,
                object: DeltaObject::Object(Arc::new(o)),
            }],
            at,
        );
    }
    h
}

fn answer_history(app: &mut App, h: &History) {
    app.update(Action::History {
        resource: "pods".into(),
        key: "default/web-1".into(),
        timeline: h.timeline("pods", "default/web-1").map(Box::new),
        stats: h.stats(),
        events: Vec::new(),
        events_unavailable: None,
    });
}

fn open_timeline() -> App {
    let (mut app, _) = app();
    let fx = app.update(key('h'));
    assert_eq!(
        fx,
        vec![Effect::FetchHistory {
            resource: "pods".into(),
            key: "default/web-1".into(),
            kind: "Pod".into(),
        }]
    );
    answer_history(&mut app, &recorded());
    app
}

#[test]
fn h_on_a_row_asks_for_that_objects_history_and_shows_the_timeline_newest_first() {
    let mut app = open_timeline();
    let Some(Screen::History(h)) = app.current_screen() else {
        panic!("timeline not on top");
    };
    assert_eq!(h.selected, 0);
    let text = format!("{:?}", draw(&mut app, 110, 14).backend());
    let deleted = text.find("Deleted").unwrap();
    let added = text.find("Added").unwrap();
    assert!(deleted < added, "newest first");
}

#[test]
fn timeline_snapshot() {
    let mut app = open_timeline();
    insta::assert_snapshot!(draw(&mut app, 120, 14).backend());
}

#[test]
fn enter_diffs_the_selected_version_against_the_one_before() {
    let mut app = open_timeline();
    app.update(key('j')); // the crash (rv 103)
    app.update(code(KeyCode::Enter));
    let Some(Screen::HistoryDiff(d)) = app.current_screen() else {
        panic!("diff not on top");
    };
    assert!(d.title.contains("rv 103"), "{}", d.title);
    let text = format!("{:?}", d.lines);
    assert!(
        text.contains("restartCount: 0") && text.contains("restartCount: 1"),
        "{text}"
    );
    assert!(
        !text.contains("image: web:1.4"),
        "only the crash's changes differ: {text}"
    );
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
}

#[test]
fn space_marks_a_version_and_enter_diffs_the_two() {
    let mut app = open_timeline();
    app.update(key('G')); // the first version (rv 100)
    app.update(code(KeyCode::Char(' ')));
    app.update(key('g')); // the deletion (rv 104)
    app.update(code(KeyCode::Enter));
    let Some(Screen::HistoryDiff(d)) = app.current_screen() else {
        panic!("diff not on top");
    };
    assert!(d.title.contains("rv 100 → rv 104"), "{}", d.title);
    let text = format!("{:?}", d.lines);
    assert!(
        text.contains("image: web:1.4") && text.contains("image: web:1.5"),
        "{text}"
    );
    assert!(
        text.contains("phase: Pending") && text.contains("phase: Failed"),
        "{text}"
    );
    // Back returns to the timeline with the mark kept.
    app.update(code(KeyCode::Esc));
    let Some(Screen::History(h)) = app.current_screen() else {
        panic!("timeline not back on top");
    };
    assert_eq!(h.marked, Some(0));
}

#[test]
fn the_timeline_is_asked_again_every_second_and_keeps_the_selection_as_versions_arrive() {
    let (mut app, _) = app();
    app.update(key('h'));
    let h = History::with_mib(1);
    let mask = kinformer::render::history_mask("Pod");
    let v1 = pod_version("1", "Pending", 0, "web:1", None);
    h.observe_at("pods", &v1, mask, NOW_MS);
    answer_history(&mut app, &h);
    let fx = app.update(Action::Tick(NOW_MS + 1_000));
    assert!(fx.contains(&Effect::FetchHistory {
        resource: "pods".into(),
        key: "default/web-1".into(),
        kind: "Pod".into(),
    }));
    h.observe_at(
        "pods",
        &pod_version("2", "Running", 0, "web:1", None),
        mask,
        NOW_MS + 500,
    );
    answer_history(&mut app, &h);
    let Some(Screen::History(view)) = app.current_screen() else {
        panic!("timeline not on top");
    };
    assert_eq!(view.selected, 0, "the newest stays selected at the top");
}

#[test]
fn an_object_without_history_says_so() {
    let (mut app, _) = app();
    app.update(key('h'));
    app.update(Action::History {
        resource: "pods".into(),
        key: "default/web-1".into(),
        timeline: None,
        stats: History::with_mib(1).stats(),
        events: Vec::new(),
        events_unavailable: None,
    });
    let text = format!("{:?}", draw(&mut app, 120, 10).backend());
    assert!(
        text.contains("no history recorded for this object"),
        "{text}"
    );
}

fn tap(seq: u64, kind: &str, key: &str, rv: &str) -> TapEntry {
    TapEntry {
        seq,
        at: std::time::UNIX_EPOCH,
        kind: kind.into(),
        delta: DeltaType::Updated,
        tombstone: false,
        key: key.into(),
        resource_version: rv.into(),
        queue_depth: 0,
        cluster: None,
    }
}

#[test]
fn enter_on_an_event_log_line_opens_that_objects_history_at_that_version() {
    let (mut app, _) = app();
    app.update(Action::Tap(vec![
        tap(1, "deployments.apps@shop", "shop/web", "7"),
        tap(2, "pods", "default/web-1", "103"),
    ]));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    app.update(key('j')); // the older line: the namespaced deployments informer
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        fx,
        vec![Effect::FetchHistory {
            resource: "deployments.apps".into(),
            key: "shop/web".into(),
            kind: "Deployment".into(),
        }]
    );
    assert!(matches!(app.current_screen(), Some(Screen::History(_))));
}

#[test]
fn timeline_opened_with_a_version_selects_it() {
    let (mut app, _) = app();
    app.update(Action::Tap(vec![tap(1, "pods", "default/web-1", "102")]));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    app.update(code(KeyCode::Enter));
    answer_history(&mut app, &recorded());
    let Some(Screen::History(h)) = app.current_screen() else {
        panic!("timeline not on top");
    };
    // rv 102 is the third of five versions: row 2 from the newest.
    assert_eq!(h.selected, 2);
}

fn changes_rows(h: &History, filter: &ChangesFilter) -> Vec<ChangeRow> {
    let sel = kinformer::selector::LabelSelector::parse(&filter.selector)
        .ok()
        .filter(|s| !s.is_empty());
    h.latest(100, |id, labels| {
        filter.passes(sel.as_ref(), &id.resource, &id.key, labels)
    })
}

fn open_changes(app: &mut App, line: &str) -> ChangesFilter {
    app.update(key(':'));
    type_str(app, line);
    let fx = app.update(code(KeyCode::Enter));
    match fx.as_slice() {
        [Effect::FetchChanges { filter, .. }] => filter.clone(),
        other => panic!("expected one FetchChanges, got {other:?}"),
    }
}

#[test]
fn changes_takes_resource_namespace_and_selector_like_the_tables() {
    let (mut app, _) = app();
    let f = open_changes(&mut app, "changes");
    assert_eq!(
        f.namespace.as_deref(),
        Some("default"),
        "the current namespace"
    );
    assert_eq!(f.resource, None);
    app.update(code(KeyCode::Esc));
    let f = open_changes(&mut app, "changes pods -A -l app=web");
    assert_eq!(
        f,
        ChangesFilter {
            resource: Some("pods".into()),
            namespace: None,
            selector: "app=web".into()
        }
    );
    let h = recorded();
    assert_eq!(changes_rows(&h, &f).len(), 5);
    let none = ChangesFilter {
        selector: "app=db".into(),
        ..f.clone()
    };
    assert!(changes_rows(&h, &none).is_empty());
    let other_ns = ChangesFilter {
        namespace: Some("shop".into()),
        ..f
    };
    assert!(changes_rows(&h, &other_ns).is_empty());
}

#[test]
fn changes_snapshot_and_enter_opens_the_history_at_that_version() {
    let (mut app, _) = app();
    let f = open_changes(&mut app, "changes");
    let h = recorded();
    app.update(Action::Changes {
        filter: f.clone(),
        rows: changes_rows(&h, &f),
        stats: h.stats(),
    });
    insta::assert_snapshot!(draw(&mut app, 120, 12).backend());
    app.update(key('j'));
    app.update(key('j'));
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        fx,
        vec![Effect::FetchHistory {
            resource: "pods".into(),
            key: "default/web-1".into(),
            kind: "Pod".into(),
        }]
    );
    answer_history(&mut app, &h);
    let Some(Screen::History(view)) = app.current_screen() else {
        panic!("timeline not on top");
    };
    assert_eq!(view.selected, 2, "the line's version (rv 102) is selected");
}

#[test]
fn slash_on_changes_filters_lines_and_dash_l_asks_again_with_a_selector() {
    let (mut app, _) = app();
    let f = open_changes(&mut app, "changes");
    let h = recorded();
    app.update(Action::Changes {
        filter: f.clone(),
        rows: changes_rows(&h, &f),
        stats: h.stats(),
    });
    app.update(key('/'));
    type_str(&mut app, "oomkilled");
    let Some(Screen::Changes(c)) = app.current_screen() else {
        panic!("changes not on top");
    };
    assert_eq!(c.shown().count(), 1);
    app.update(code(KeyCode::Esc));
    app.update(key('/'));
    type_str(&mut app, "-l app=web");
    let fx = app.update(code(KeyCode::Enter));
    match fx.as_slice() {
        [Effect::FetchChanges { filter, .. }] => assert_eq!(filter.selector, "app=web"),
        other => panic!("expected a new FetchChanges, got {other:?}"),
    }
}

#[test]
fn l_on_changes_picks_a_label_of_the_listed_changes_and_asks_again_with_it() {
    let (mut app, _) = app();
    let f = open_changes(&mut app, "changes");
    let h = recorded();
    app.update(Action::Changes {
        filter: f.clone(),
        rows: changes_rows(&h, &f),
        stats: h.stats(),
    });
    assert!(app.update(ctrl('l')).is_empty());
    let Mode::Labels(p) = &app.mode else {
        panic!("no label picker: {:?}", app.mode)
    };
    assert_eq!(p.source, "changes listed");
    let values: Vec<&str> = p.all.iter().map(|(v, _)| v.as_str()).collect();
    assert!(values.contains(&"app=web"), "{values:?}");
    type_str(&mut app, "app=w");
    let fx = app.update(code(KeyCode::Enter));
    match fx.as_slice() {
        [Effect::FetchChanges { filter, .. }] => assert_eq!(filter.selector, "app=web"),
        other => panic!("expected a new FetchChanges, got {other:?}"),
    }
    assert!(matches!(app.mode, Mode::Normal));
    // The picker reopens on the selector in force; esc leaves it unchanged.
    app.update(ctrl('l'));
    let Mode::Labels(p) = &app.mode else {
        panic!("no label picker: {:?}", app.mode)
    };
    assert_eq!(p.input.value(), "app=web");
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    let Some(Screen::Changes(c)) = app.current_screen() else {
        panic!("changes not on top");
    };
    assert_eq!(c.filter.selector, "app=web");
}

#[test]
fn help_lists_the_history_keys() {
    let cfg = AppConfig { ..config() };
    let (mut app, _) = app_with(cfg, vec![]);
    app.update(key('?'));
    let text = format!("{:?}", draw(&mut app, 140, 60).backend());
    assert!(
        text.contains("History of the selected object (delta"),
        "{text}"
    );
}

#[test]
fn the_selected_changes_line_stays_selected_as_newer_lines_arrive() {
    let (mut app, _) = app();
    let f = open_changes(&mut app, "changes");
    let h = recorded();
    let rows = changes_rows(&h, &f);
    let mut before = rows[1..].to_vec();
    before[0].delta = None; // still in the FIFO when first listed
    app.update(Action::Changes {
        filter: f.clone(),
        rows: before,
        stats: h.stats(),
    });
    app.update(key('j')); // rv 102
    // The newest version arrives on top, and the old top line's delta type changed meanwhile.
    app.update(Action::Changes {
        filter: f.clone(),
        rows: rows.clone(),
        stats: h.stats(),
    });
    let Some(Screen::Changes(c)) = app.current_screen() else {
        panic!("changes not on top");
    };
    let selected = c
        .shown()
        .nth(c.selected)
        .map(|r| r.resource_version.clone());
    assert_eq!(selected.as_deref(), Some("102"));
}

/// web-1 as kube-apiserver sends it with its managedFields: created by the ReplicaSet
/// controller, its image set by `kubectl set image`, its status written by the kubelet.
fn managed_pod(
    rv: &str,
    image: &str,
    phase: &str,
    managers: &[serde_json::Value],
) -> DynamicObject {
    let mut o = pod_version(rv, phase, 0, image, None);
    o.metadata.managed_fields = serde_json::from_value(json!(managers)).unwrap();
    o
}

fn blamed() -> History {
    let created = json!({"manager": "kube-controller-manager", "operation": "Update",
        "apiVersion": "v1", "time": "2026-11-25T11:50:00Z", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {},
                "f:name": {}}}}}});
    let set = json!({"manager": "kubectl-set", "operation": "Update", "apiVersion": "v1",
        "time": "2026-11-25T11:55:00Z", "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {"f:image": {}}}}}});
    let kubelet = json!({"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
        "time": "2026-11-25T11:56:00Z", "fieldsType": "FieldsV1", "subresource": "status",
        "fieldsV1": {"f:status": {"f:containerStatuses": {}, "f:phase": {}}}});
    let h = History::with_mib(1);
    let mask = kinformer::render::history_mask("Pod");
    let versions = [
        (
            DeltaType::Added,
            managed_pod("100", "web:1.4", "Pending", std::slice::from_ref(&created)),
        ),
        (
            DeltaType::Updated,
            managed_pod(
                "101",
                "web:1.4",
                "Running",
                &[created.clone(), kubelet.clone()],
            ),
        ),
        (
            DeltaType::Updated,
            managed_pod("102", "web:1.5", "Running", &[created, kubelet, set]),
        ),
    ];
    for (i, (d, o)) in versions.into_iter().enumerate() {
        h.observe_as_at(
            "pods",
            &o,
            mask,
            Some(d),
            NOW_MS - 300_000 + 60_000 * i as i64,
        );
    }
    h
}

#[test]
fn the_timeline_and_the_diff_name_who_made_each_change() {
    let (mut app, _) = app();
    app.update(key('h'));
    answer_history(&mut app, &blamed());
    let text = format!("{:?}", draw(&mut app, 120, 10).backend());
    assert!(
        text.contains("image web:1.4→web:1.5 · kubectl-set (Update)"),
        "{text}"
    );
    assert!(text.contains("· kubelet (Update, status)"), "{text}");
    // The newest version (the image) is selected: its diff says who set it.
    app.update(code(KeyCode::Enter));
    let Some(Screen::HistoryDiff(d)) = app.current_screen() else {
        panic!("diff not on top");
    };
    let text = format!("{:?}", d.lines);
    assert!(
        text.contains("spec.containers.web.image: web:1.5  · kubectl-set (Update)"),
        "{text}"
    );
    insta::assert_snapshot!(draw(&mut app, 100, 12).backend());
}

#[test]
fn b_shows_the_fields_grouped_by_the_manager_owning_them() {
    let (mut app, _) = app();
    let fx = app.update(key('b'));
    let request = match fx.as_slice() {
        [Effect::FetchYaml { request, name, .. }] if name == "web-1" => *request,
        other => panic!("expected one FetchYaml of web-1, got {other:?}"),
    };
    let mut obj = serde_json::to_value(managed_pod("102", "web:1.5", "Running", &[])).unwrap();
    obj["metadata"]["managedFields"] = json!([
        {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1",
         "time": "2026-11-25T11:50:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:labels": {"f:app": {}}}}},
        {"manager": "kubectl-set", "operation": "Update", "apiVersion": "v1",
         "time": "2026-11-25T11:55:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {"f:image": {}}}}}}
    ]);
    app.update(Action::Yaml {
        request,
        result: Ok(obj),
    });
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!("text screen not on top");
    };
    assert_eq!(t.title, "Blame: default/web-1");
    let lines = t.lines.clone().and_then(Result::ok).unwrap_or_default();
    assert_eq!(
        lines,
        [
            "kubectl-set (Update) · last write 11:55:00 (−5m0s) · 1 field",
            "    spec.containers.web.image: web:1.5",
            "",
            "kube-controller-manager (Update) · last write 11:50:00 (−10m0s) · 1 field",
            "    metadata.labels.app: web",
            "",
        ]
    );
}

/// An Event about web-1 that last happened `ago_ms` before the tests' now.
fn web_event(
    name: &str,
    kind: &str,
    reason: &str,
    message: &str,
    count: u64,
    ago_ms: i64,
) -> kinformer::informer::history::TimelineEvent {
    let at = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(NOW_MS - ago_ms)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let e: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-1", "uid": "u-1"},
        "type": kind, "reason": reason, "message": message, "count": count,
        "firstTimestamp": at, "lastTimestamp": at
    }))
    .unwrap();
    kinformer::informer::history::TimelineEvent::of(&e).unwrap()
}

/// The crash's BackOff (a Warning, at the crash's time) and the upgrade's image pull.
fn web_events() -> Vec<kinformer::informer::history::TimelineEvent> {
    vec![
        web_event(
            "web-1.backoff",
            "Warning",
            "BackOff",
            "Back-off restarting failed container web",
            5,
            420_000,
        ),
        web_event(
            "web-1.pulled",
            "Normal",
            "Pulled",
            "Successfully pulled image \"web:1.5\"",
            1,
            510_000,
        ),
    ]
}

fn answer_with_events(
    app: &mut App,
    h: &History,
    events: Vec<kinformer::informer::history::TimelineEvent>,
) {
    app.update(Action::History {
        resource: "pods".into(),
        key: "default/web-1".into(),
        timeline: h.timeline("pods", "default/web-1").map(Box::new),
        stats: h.stats(),
        events,
        events_unavailable: None,
    });
}

/// The timeline's lines as drawn, top to bottom, without the borders.
fn timeline_lines(app: &mut App) -> Vec<String> {
    let term = draw(app, 120, 16);
    let buf = term.backend().buffer().clone();
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .filter(|l| {
            l.contains("event")
                || l.contains("Deleted")
                || l.contains("Updated")
                || l.contains("Added")
        })
        .collect()
}

#[test]
fn events_arriving_while_the_timeline_is_open_are_interleaved_by_time_and_the_selection_stays() {
    let mut app = open_timeline();
    let h = recorded();
    app.update(key('j')); // the crash (rv 103)
    answer_with_events(&mut app, &h, web_events());
    let Some(Screen::History(view)) = app.current_screen() else {
        panic!("timeline not on top");
    };
    assert_eq!(view.events.len(), 2);
    // The BackOff (same time as the crash) above it: the crash stays selected, one line down.
    assert_eq!(view.selected, 2);
    let lines = timeline_lines(&mut app);
    let order: Vec<&str> = lines
        .iter()
        .map(|l| {
            ["rv", "BackOff", "Pulled", "104", "103", "102", "101", "100"]
                .into_iter()
                .find(|w| l.contains(w) && *w != "rv")
                .unwrap_or("?")
        })
        .collect();
    assert_eq!(
        order,
        vec!["104", "BackOff", "103", "102", "Pulled", "101", "100"]
    );
    assert!(
        lines[1].contains("Warning") && lines[1].contains("×5"),
        "{}",
        lines[1]
    );
    assert!(
        !lines[4].contains('×'),
        "a count of one is not printed: {}",
        lines[4]
    );

    // Refreshed without them (expired): the crash stays selected.
    answer_with_events(&mut app, &h, Vec::new());
    let Some(Screen::History(view)) = app.current_screen() else {
        panic!("timeline not on top");
    };
    assert_eq!(view.selected, 1);
}

#[test]
fn enter_on_an_event_line_opens_the_events_yaml_and_closing_the_timeline_releases_its_events() {
    let mut app = open_timeline();
    answer_with_events(&mut app, &recorded(), web_events());
    app.update(key('j')); // the BackOff
    // Space on an Event line marks nothing.
    app.update(code(KeyCode::Char(' ')));
    let Some(Screen::History(view)) = app.current_screen() else {
        panic!("timeline not on top");
    };
    assert_eq!(view.marked, None);
    let fx = app.update(code(KeyCode::Enter));
    match fx.as_slice() {
        [
            Effect::FetchYaml {
                resource,
                namespace,
                name,
                ..
            },
        ] => {
            assert_eq!(resource.api_resource.kind, "Event");
            assert_eq!(namespace.as_deref(), Some("default"));
            assert_eq!(name, "web-1.backoff");
        }
        other => panic!("{other:?}"),
    }
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!("no text screen");
    };
    assert_eq!(t.title, "YAML: default/web-1.backoff");
    assert!(
        !app.update(code(KeyCode::Esc))
            .contains(&Effect::CloseHistory)
    );
    assert!(
        app.update(code(KeyCode::Esc))
            .contains(&Effect::CloseHistory)
    );
}

#[test]
fn timeline_with_events_snapshot_and_a_warning_in_the_themes_warning_colour() {
    let mut app = open_timeline();
    answer_with_events(&mut app, &recorded(), web_events());
    let term = draw(&mut app, 120, 16);
    insta::assert_snapshot!(term.backend());
    let buf = term.backend().buffer();
    let at = |word: &str| {
        (0..buf.area.height)
            .flat_map(|y| (0..buf.area.width).map(move |x| (x, y)))
            .find(|&(x, y)| {
                (0..word.len() as u16).all(|i| {
                    x + i < buf.area.width
                        && buf[(x + i, y)].symbol() == &word[i as usize..i as usize + 1]
                })
            })
            .unwrap()
    };
    assert_eq!(buf[at("BackOff")].fg, app.theme.warning);
    assert_ne!(buf[at("Pulled")].fg, app.theme.warning);
}

#[test]
fn a_forbidden_events_list_says_why_in_one_line_over_the_timeline() {
    let mut app = open_timeline();
    let message = r#"events is forbidden: User "jane" cannot list resource "events" in API group "" in the namespace "default""#;
    let h = recorded();
    app.update(Action::History {
        resource: "pods".into(),
        key: "default/web-1".into(),
        timeline: h.timeline("pods", "default/web-1").map(Box::new),
        stats: h.stats(),
        events: Vec::new(),
        events_unavailable: Some(message.into()),
    });
    let term = draw(&mut app, 160, 16);
    insta::assert_snapshot!(term.backend());
    let text = format!("{:?}", term.backend());
    assert_eq!(
        text.matches(&format!("Events not shown: {message}"))
            .count(),
        1,
        "{text}"
    );
    // The versions are still all there, under it.
    assert!(text.contains("first seen"), "{text}");
    // Allowed again: the line goes.
    answer_history(&mut app, &h);
    let text = format!("{:?}", draw(&mut app, 160, 16).backend());
    assert!(!text.contains("Events not shown"), "{text}");
}

#[test]
fn blame_and_the_diff_name_fields_by_the_same_dotted_path_quoting_keys_with_dots_or_slashes() {
    let (mut app, _) = app();
    let fx = app.update(key('b'));
    let request = match fx.as_slice() {
        [Effect::FetchYaml { request, .. }] => *request,
        other => panic!("expected one FetchYaml, got {other:?}"),
    };
    let mut obj = serde_json::to_value(managed_pod("102", "web:1.5", "Running", &[])).unwrap();
    obj["metadata"]["labels"]["app.kubernetes.io/name"] = json!("web");
    obj["metadata"]["managedFields"] = json!([
        {"manager": "helm", "operation": "Update", "apiVersion": "v1",
         "time": "2026-11-25T11:50:00Z", "fieldsType": "FieldsV1",
         "fieldsV1": {"f:metadata": {"f:labels": {"f:app.kubernetes.io/name": {}}}}}
    ]);
    app.update(Action::Yaml {
        request,
        result: Ok(obj),
    });
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!("text screen not on top");
    };
    let lines = t.lines.clone().and_then(Result::ok).unwrap_or_default();
    assert_eq!(
        lines[1],
        r#"    metadata.labels["app.kubernetes.io/name"]: web"#
    );
    // The timeline's diff names the same field the same way.
    let path: std::sync::Arc<str> = "/metadata/labels/app.kubernetes.io~1name".into();
    let old = std::collections::BTreeMap::new();
    let new = std::collections::BTreeMap::from([(path, "web".to_string())]);
    assert!(
        kinformer::informer::history::unified_diff(&old, &new).contains(
            &kinformer::informer::history::DiffLine::Added(
                r#"metadata.labels["app.kubernetes.io/name"]: web"#.into()
            )
        )
    );
}
