//! Time travel through `App::update`: `:at TIME` asks for the table as it was and shows it with
//! its banner, `[` / `]` step between recorded changes, esc and `:at now` return to live, rows
//! arriving meanwhile go to the live table; an insta snapshot of a past table.

mod ui_support;

use crossterm::event::KeyCode;
use kinformer::informer::delta_fifo::DeltaType;
use kinformer::informer::history::History;
use kinformer::ui::App;
use kinformer::ui::action::{Action, Effect, ViewId};
use kube::api::DynamicObject;
use serde_json::json;
use ui_support::*;

/// `pod_version` owned by the ReplicaSet whose uid is `owner`.
fn owned_version(name: &str, rv: &str, owner: &str) -> DynamicObject {
    let mut o = pod_version(name, rv, "Running");
    o.metadata.owner_references = Some(vec![
        serde_json::from_value(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "name": owner, "uid": owner}))
        .unwrap(),
    ]);
    o
}

fn pod_version(name: &str, rv: &str, phase: &str) -> DynamicObject {
    serde_json::from_value(json!({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": name, "namespace": "default", "resourceVersion": rv,
        "creationTimestamp": "2026-11-25T08:00:00Z", "labels": {"app": "web"}},
    "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "web:1.4"}]},
    "status": {"phase": phase, "podIP": "10.0.0.9", "containerStatuses": [
        {"name": "web", "restartCount": 0, "ready": phase == "Running",
         "state": if phase == "Running" {
            json!({"running": {"startedAt": "2026-11-25T08:00:05Z"}})
         } else {
            json!({"waiting": {"reason": "ContainerCreating"}})
         }}]}}))
    .unwrap()
}

const MIN: i64 = 60_000;

/// web-1 created Pending 10 minutes ago and Running 4 minutes ago; web-2 created 10 minutes
/// ago and deleted 2 minutes ago; web-3 created a minute ago.
fn recorded() -> History {
    let h = History::with_mib(1);
    let mask = kinformer::render::history_mask("Pod");
    let seen = [
        (
            DeltaType::Added,
            pod_version("web-1", "100", "Pending"),
            -10,
        ),
        (
            DeltaType::Added,
            pod_version("web-2", "101", "Running"),
            -10,
        ),
        (
            DeltaType::Updated,
            pod_version("web-1", "102", "Running"),
            -4,
        ),
        (
            DeltaType::Deleted,
            pod_version("web-2", "103", "Running"),
            -2,
        ),
        (DeltaType::Added, pod_version("web-3", "104", "Pending"), -1),
    ];
    for (d, o, min) in seen {
        h.observe_as_at("pods", &o, mask, Some(d), NOW_MS + min * MIN);
    }
    h
}

/// The app with today's pods: web-1 and web-3.
fn app() -> (App, ViewId) {
    let (mut app, v) = app_with(
        config(),
        vec![
            pod(PodSpec {
                name: "web-1",
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "web-3",
                status: "Pending",
                ..PodSpec::default()
            }),
        ],
    );
    connected(&mut app);
    (app, v)
}

fn command(app: &mut App, line: &str) -> Vec<Effect> {
    app.update(key(':'));
    type_str(app, line);
    app.update(code(KeyCode::Enter))
}

/// The one past-view question among `fx`: (view, resource, namespace, instant).
fn asked(fx: &[Effect]) -> (ViewId, String, Option<String>, i64) {
    match fx {
        [
            Effect::FetchPastView {
                view,
                resource,
                namespace,
                at_ms,
            },
        ] => (*view, resource.clone(), namespace.clone(), *at_ms),
        other => panic!("expected one FetchPastView, got {other:?}"),
    }
}

/// Answer a past-view question from `h` as the runtime does (with no live objects: every row
/// rebuilt from the record).
fn answer(app: &mut App, h: &History, fx: &[Effect]) -> Vec<Effect> {
    let (view, resource, ns, at) = asked(fx);
    app.update(Action::PastView {
        view,
        past: Box::new(h.past_view(&resource, ns.as_deref(), at, [])),
        times: h.change_times(&resource, ns.as_deref()),
    })
}

fn travelled(app: &mut App, h: &History, line: &str) {
    let fx = command(app, line);
    answer(app, h, &fx);
}

#[test]
fn at_a_time_shows_the_table_as_it_was_then() {
    let (mut app, v) = app();
    let h = recorded();
    let fx = command(&mut app, "at -5m");
    assert_eq!(
        asked(&fx),
        (v, "pods".into(), Some("default".into()), NOW_MS - 5 * MIN)
    );
    answer(&mut app, &h, &fx);
    // web-2 (deleted since) is back, web-3 (created since) is not there yet.
    assert_eq!(shown(&app, v), ["default/web-1", "default/web-2"]);
    let past = app.views[&v].past.as_ref().expect("a past view");
    assert_eq!(past.at_ms, NOW_MS - 5 * MIN);
    assert!(past.banner(NOW_MS, 200).starts_with(" AS OF "));
    assert!(past.banner(NOW_MS, 200).contains("(−5m0s) · live: esc"));
    // How far back the view goes, when there is room; what does not fit is left out, never
    // the instant itself.
    assert!(past.banner(NOW_MS, 200).contains("history from"));
    let narrow = past.banner(NOW_MS, 40);
    assert!(narrow.contains("(−5m0s) · live: esc"), "{narrow}");
    assert!(!narrow.contains("history from"), "{narrow}");
}

#[test]
fn esc_returns_the_table_to_live() {
    let (mut app, v) = app();
    let h = recorded();
    travelled(&mut app, &h, "at -5m");
    app.update(code(KeyCode::Esc));
    assert!(app.views[&v].past.is_none());
    assert_eq!(shown(&app, v), ["default/web-1", "default/web-3"]);
}

#[test]
fn at_now_returns_the_table_to_live() {
    let (mut app, v) = app();
    let h = recorded();
    travelled(&mut app, &h, "at -5m");
    assert!(command(&mut app, "at now").is_empty());
    assert_eq!(shown(&app, v), ["default/web-1", "default/web-3"]);
}

#[test]
fn rows_arriving_in_a_past_view_go_to_the_live_table() {
    let (mut app, v) = app();
    let h = recorded();
    travelled(&mut app, &h, "at -5m");
    app.update(Action::Rows {
        view: v,
        upserts: vec![pod(PodSpec {
            name: "web-4",
            ..PodSpec::default()
        })],
        deletes: Vec::new(),
    });
    assert_eq!(shown(&app, v), ["default/web-1", "default/web-2"]);
    app.update(code(KeyCode::Esc));
    assert_eq!(
        shown(&app, v),
        ["default/web-1", "default/web-3", "default/web-4"]
    );
}

#[test]
fn brackets_step_to_the_previous_and_next_recorded_change() {
    let (mut app, v) = app();
    let h = recorded();
    travelled(&mut app, &h, "at -3m");
    // The latest change at or before −3m is web-1 Running at −4m: `[` shows just before it.
    let fx = app.update(key('['));
    assert_eq!(asked(&fx).3, NOW_MS - 4 * MIN - 1);
    answer(&mut app, &h, &fx);
    let web1 = app.views[&v]
        .table
        .entry("default/web-1")
        .expect("web-1 then");
    assert_eq!(
        web1.summary.object.data["status"]["phase"],
        json!("Pending")
    );
    // `]` goes to the change itself, then the next ones, then live.
    let fx = app.update(key(']'));
    assert_eq!(asked(&fx).3, NOW_MS - 4 * MIN);
    answer(&mut app, &h, &fx);
    for at in [-2, -1] {
        let fx = app.update(key(']'));
        assert_eq!(asked(&fx).3, NOW_MS + at * MIN);
        answer(&mut app, &h, &fx);
    }
    assert!(app.update(key(']')).is_empty());
    assert!(app.views[&v].past.is_none(), "past the last change: live");
}

#[test]
fn at_then_bracket_steps_back_from_the_time_shown() {
    let (mut app, v) = app();
    let h = recorded();
    // On a live table `[` is k9s's command history: the past starts with `:at`.
    let fx = command(&mut app, "at -30s");
    assert_eq!(asked(&fx).3, NOW_MS - 30_000);
    answer(&mut app, &h, &fx);
    let fx = app.update(key('['));
    assert_eq!(asked(&fx).3, NOW_MS - MIN - 1);
    answer(&mut app, &h, &fx);
    assert_eq!(shown(&app, v), ["default/web-1"]);
}

#[test]
fn an_unknown_time_says_what_at_takes() {
    let (mut app, v) = app();
    assert!(command(&mut app, "at 25:00").is_empty());
    assert!(app.views[&v].past.is_none());
    let msg = app
        .message
        .as_ref()
        .map(|m| m.0.clone())
        .unwrap_or_default();
    assert!(msg.contains("HH:MM"), "{msg}");
}

#[test]
fn snapshot_of_a_past_table_with_its_banner() {
    let (mut app, _) = app();
    let h = recorded();
    travelled(&mut app, &h, "at -5m");
    insta::assert_snapshot!(draw(&mut app, 120, 10).backend());
}

#[test]
fn enter_in_a_past_view_opens_the_history_at_the_version_shown() {
    let (mut app, _) = app();
    let h = recorded();
    travelled(&mut app, &h, "at -5m");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        fx,
        [Effect::FetchHistory {
            resource: "pods".into(),
            key: "default/web-1".into(),
            kind: "Pod".into(),
        }]
    );
    match app.current_screen() {
        Some(kinformer::ui::screens::Screen::History(v)) => {
            assert_eq!(v.select_rv.as_deref(), Some("100"))
        }
        other => panic!("expected the history screen, got {other:?}"),
    }
}

#[test]
fn y_in_a_past_view_shows_the_recorded_state_without_asking_the_server() {
    let (mut app, _) = app();
    let h = recorded();
    travelled(&mut app, &h, "at -5m");
    assert!(app.update(key('y')).is_empty());
    match app.current_screen() {
        Some(kinformer::ui::screens::Screen::Text(t)) => {
            assert!(
                t.title
                    .starts_with("Recorded state: default/web-1 as of 11:55:00")
            );
            let lines = t.lines.clone().and_then(Result::ok).unwrap_or_default();
            assert!(
                lines.iter().any(|l| l.trim() == "phase: Pending"),
                "{lines:?}"
            );
        }
        other => panic!("expected the text screen, got {other:?}"),
    }
}

#[test]
fn at_on_a_drilled_view_shows_only_that_views_objects_as_they_were() {
    // The pods of ReplicaSet web-5d8f (Enter on it): web-5d8f-b was deleted 2 minutes ago, as
    // was api-1 of another ReplicaSet.
    let cfg = kinformer::ui::AppConfig {
        resource: "rs".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web-5d8f", None)]);
    connected(&mut app);
    let fx = app.update(code(KeyCode::Enter));
    let (pods, _, _) = opened(&fx)
        .into_iter()
        .find(|(_, p, _)| p == "pods")
        .expect("the ReplicaSet's pods open");
    let h = History::with_mib(1);
    let mask = kinformer::render::history_mask("Pod");
    let seen = [
        (
            DeltaType::Added,
            owned_version("web-5d8f-a", "1", "uid-web-5d8f"),
            -10,
        ),
        (
            DeltaType::Added,
            owned_version("web-5d8f-b", "2", "uid-web-5d8f"),
            -10,
        ),
        (
            DeltaType::Added,
            owned_version("api-1", "3", "uid-api"),
            -10,
        ),
        (
            DeltaType::Added,
            owned_version("api-2", "4", "uid-api"),
            -10,
        ),
        (
            DeltaType::Deleted,
            owned_version("web-5d8f-b", "5", "uid-web-5d8f"),
            -2,
        ),
        (
            DeltaType::Deleted,
            owned_version("api-1", "6", "uid-api"),
            -2,
        ),
    ];
    for (d, o, min) in seen {
        h.observe_as_at("pods", &o, mask, Some(d), NOW_MS + min * MIN);
    }
    let fx = command(&mut app, "at -5m");
    assert_eq!(asked(&fx).0, pods, "asked for the drilled view");
    answer(&mut app, &h, &fx);
    assert_eq!(
        shown(&app, pods),
        ["default/web-5d8f-a", "default/web-5d8f-b"],
        "the ReplicaSet's pods as they were, the one deleted since back, no other pod"
    );
}

/// `pod_version` mounting the ConfigMap `config` (a volume) when given.
fn mounting(name: &str, rv: &str, config: Option<&str>) -> DynamicObject {
    let mut o = pod_version(name, rv, "Running");
    if let Some(c) = config {
        o.data["spec"]["volumes"] = json!([{"name": "cfg", "configMap": {"name": c}}]);
    }
    o
}

#[test]
fn at_on_the_pods_using_a_configmap_shows_the_rebuilt_pods_that_used_it() {
    // `u` on ConfigMap web-config: the pods that use it. web-1 (mounting it) and web-2 (not)
    // were deleted 2 minutes ago, so 5 minutes ago both are rebuilt from the record, without
    // the uses the cache transform writes on a live pod.
    let cfg = kinformer::ui::AppConfig {
        resource: "configmaps".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web-config", None)]);
    connected(&mut app);
    let fx = app.update(key('u'));
    let (pods, _, _) = opened(&fx)
        .into_iter()
        .find(|(_, p, _)| p == "pods")
        .expect("the pods using it open");
    let h = History::with_mib(1);
    let mask = kinformer::render::history_mask("Pod");
    let seen = [
        (
            DeltaType::Added,
            mounting("web-1", "1", Some("web-config")),
            -10,
        ),
        (DeltaType::Added, mounting("web-2", "2", Some("other")), -10),
        (DeltaType::Added, mounting("web-3", "3", None), -10),
        (
            DeltaType::Deleted,
            mounting("web-1", "4", Some("web-config")),
            -2,
        ),
        (
            DeltaType::Deleted,
            mounting("web-2", "5", Some("other")),
            -2,
        ),
        (DeltaType::Deleted, mounting("web-3", "6", None), -2),
    ];
    for (d, o, min) in seen {
        h.observe_as_at("pods", &o, mask, Some(d), NOW_MS + min * MIN);
    }
    let fx = command(&mut app, "at -5m");
    assert_eq!(asked(&fx).0, pods, "asked for the drilled view");
    answer(&mut app, &h, &fx);
    assert_eq!(
        shown(&app, pods),
        ["default/web-1"],
        "the pod that mounted web-config then, no other"
    );
}
