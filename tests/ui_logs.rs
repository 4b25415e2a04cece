//! The log screen inside the dashboard, through `App::update`: `L` on a pod or a workload asks
//! for the right streams, keys go to the log view, every way out closes the streams, batches for
//! a stream the screen no longer shows are dropped; and a snapshot of the dashboard with it.

mod ui_support;

use std::sync::Arc;

use crossterm::event::KeyCode;
use kinformer::selector::LabelSelector;
use kinformer::ui::action::{Action, ConnectionState, Effect, ObjectSummary, ViewId};
use kinformer::ui::app::Screen;
use kinformer::ui::log_stream::{
    ContainerPick, LogEvent, LogLine, PodFilter, SourceId, SourceState, StreamOptions,
};
use kinformer::ui::{App, AppConfig};
use serde_json::{Value, json};
use ui_support::*;

fn shop_pods() -> Vec<ObjectSummary> {
    vec![
        pod(PodSpec {
            ns: "shop",
            name: "api-7d9f-abcde",
            labels: &[("app", "api")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            ns: "shop",
            name: "web-1",
            labels: &[("app", "web")],
            ..PodSpec::default()
        }),
    ]
}

/// A workload summary whose cached object carries `spec.selector` (the cache keeps it).
fn with_spec(mut s: ObjectSummary, kind: &str, spec: Value) -> ObjectSummary {
    let mut v = serde_json::to_value(&*s.object).unwrap();
    v["kind"] = json!(kind);
    v["spec"] = spec;
    s.object = Arc::new(serde_json::from_value(v).unwrap());
    s
}

fn app_on(resource: &str, rows: Vec<ObjectSummary>) -> App {
    let (app, _) = app_with(
        AppConfig {
            resource: resource.into(),
            namespace: Some("shop".into()),
            ..config()
        },
        rows,
    );
    app
}

/// The one `OpenLogs` among `fx`.
fn open_logs(fx: &[Effect]) -> (ViewId, String, PodFilter, ContainerPick, StreamOptions) {
    let opens: Vec<_> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::OpenLogs {
                view,
                namespace,
                filter,
                containers,
                options,
            } => Some((
                *view,
                namespace.clone(),
                filter.clone(),
                containers.clone(),
                *options,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(opens.len(), 1, "one OpenLogs expected in {fx:?}");
    opens.into_iter().next().unwrap()
}

fn closed_logs(fx: &[Effect]) -> Vec<ViewId> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::CloseLogs { view } => Some(*view),
            _ => None,
        })
        .collect()
}

fn log_screen(app: &App) -> &kinformer::ui::screens::logs::LogScreen {
    match app.current_screen() {
        Some(Screen::Logs(l)) => l,
        other => panic!("log screen expected on top, got {other:?}"),
    }
}

fn source(pod: &str, container: &str) -> Arc<SourceId> {
    Arc::new(SourceId {
        namespace: "shop".into(),
        pod: pod.into(),
        container: container.into(),
    })
}

fn lines(pod: &str, container: &str, texts: &[&str]) -> LogEvent {
    LogEvent::Lines {
        source: source(pod, container),
        lines: texts
            .iter()
            .enumerate()
            .map(|(i, t)| LogLine {
                ts_ns: NOW_MS * 1_000_000 + i as i64,
                text: t.to_string(),
            })
            .collect(),
    }
}

#[test]
fn capital_l_on_a_pod_opens_its_logs_for_every_container() {
    let mut app = app_on("pods", shop_pods());
    let fx = app.update(key('L'));
    let (view, ns, filter, containers, options) = open_logs(&fx);
    assert_eq!(ns, "shop");
    assert_eq!(filter, PodFilter::Name("api-7d9f-abcde".into()));
    assert_eq!(containers, ContainerPick::All);
    assert_eq!(options, StreamOptions::default(), "follow, tail 200");
    let l = log_screen(&app);
    assert_eq!(l.stream, view);
    assert_eq!(l.view.title, "pod/api-7d9f-abcde");
}

#[test]
fn the_log_buffer_cap_comes_from_the_config() {
    let (mut app, _) = app_with(
        AppConfig {
            resource: "pods".into(),
            namespace: Some("shop".into()),
            log_cap_bytes: 3 * 1024 * 1024,
            ..config()
        },
        shop_pods(),
    );
    app.update(key('L'));
    assert_eq!(log_screen(&app).view.cap(), 3 * 1024 * 1024);
    // The default is the documented 16 MiB.
    let mut app = app_on("pods", shop_pods());
    app.update(key('L'));
    assert_eq!(log_screen(&app).view.cap(), 16 * 1024 * 1024);
}

#[test]
fn lower_case_l_opens_logs_as_in_k9s_and_ctrl_l_the_label_picker() {
    let mut app = app_on("pods", shop_pods());
    let fx = app.update(ctrl('l'));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
    assert!(matches!(app.mode, kinformer::ui::app::Mode::Labels(_)));
    let mut app = app_on("pods", shop_pods());
    let fx = app.update(key('l'));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::OpenLogs { .. })),
        "{fx:?}"
    );
    assert!(matches!(app.current_screen(), Some(Screen::Logs(_))));
}

#[test]
fn capital_l_on_a_deployment_streams_the_pods_of_its_selector() {
    let deploy = with_spec(
        workload("shop", "api", None),
        "Deployment",
        json!({"replicas": 3, "selector": {
            "matchLabels": {"app": "api"},
            "matchExpressions": [{"key": "track", "operator": "NotIn", "values": ["canary"]}]
        }}),
    );
    let mut app = app_on("deployments", vec![deploy]);
    let fx = app.update(key('L'));
    let (_, ns, filter, containers, _) = open_logs(&fx);
    assert_eq!(ns, "shop");
    assert_eq!(
        filter,
        PodFilter::Selector(LabelSelector::parse("app=api,track notin (canary)").unwrap())
    );
    assert_eq!(containers, ContainerPick::All);
    assert_eq!(log_screen(&app).view.title, "deployment/api");
}

#[test]
fn capital_l_on_a_service_streams_the_pods_it_selects_and_says_when_it_selects_none() {
    let svc = with_spec(
        workload("shop", "web", None),
        "Service",
        json!({"type": "ClusterIP", "selector": {"app": "web", "tier": "frontend"}}),
    );
    let headless = with_spec(
        workload("shop", "zz-external", None),
        "Service",
        json!({"type": "ClusterIP"}),
    );
    let mut app = app_on("services", vec![svc, headless]);
    let (_, _, filter, _, _) = open_logs(&app.update(key('L')));
    assert_eq!(
        filter,
        PodFilter::Selector(LabelSelector::parse("app=web,tier=frontend").unwrap())
    );
    app.update(code(KeyCode::Esc));
    app.update(key('j'));
    let fx = app.update(key('L'));
    assert!(fx.is_empty(), "no streams for a Service without selector");
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
    let (msg, error) = app.message.clone().expect("an inline error");
    assert!(error && msg.contains("no pod selector"), "{msg}");
}

#[test]
fn capital_l_on_a_kind_without_logs_is_an_inline_error() {
    let cm = with_spec(workload("shop", "settings", None), "ConfigMap", json!({}));
    let mut app = app_on("configmaps", vec![cm]);
    let fx = app.update(key('L'));
    assert!(closed_logs(&fx).is_empty() && fx.is_empty(), "{fx:?}");
    let (msg, error) = app.message.clone().expect("an inline error");
    assert!(error && msg.contains("no logs for a ConfigMap"), "{msg}");
}

#[test]
fn esc_and_q_close_the_log_screen_and_its_streams() {
    for close in [code(KeyCode::Esc), key('q')] {
        let mut app = app_on("pods", shop_pods());
        let (view, ..) = open_logs(&app.update(key('L')));
        let fx = app.update(close);
        assert_eq!(closed_logs(&fx), vec![view]);
        assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
        assert!(
            !fx.iter()
                .any(|e| matches!(e, Effect::CloseView { .. } | Effect::Quit)),
            "the table beneath stays open: {fx:?}"
        );
    }
}

#[test]
fn a_command_that_replaces_the_stack_closes_the_log_streams() {
    let mut app = app_on("pods", shop_pods());
    let (view, ..) = open_logs(&app.update(key('L')));
    let mut fx = app.update(key(':'));
    fx.extend(type_str(&mut app, "deploy"));
    fx.extend(app.update(code(KeyCode::Enter)));
    assert_eq!(closed_logs(&fx), vec![view]);
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn keys_go_to_the_log_view_not_to_the_table_beneath() {
    let mut app = app_on("pods", shop_pods());
    let table = app.current_view_id().unwrap();
    let selected_before = selected(&app, table);
    app.update(key('L'));
    let view = log_screen(&app).stream;
    // More lines than a page, so scrolling up has somewhere to go.
    let texts: Vec<String> = (0..60)
        .map(|i| format!("GET /{i} {}", if i == 30 { 500 } else { 200 }))
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    app.update(Action::Log {
        view,
        batch: vec![lines("api-7d9f-abcde", "api", &texts)],
    });
    // j/k scroll the log (k pauses it), not the table's selection.
    app.update(key('k'));
    assert!(!log_screen(&app).view.is_following(), "k pauses autoscroll");
    app.update(key('j'));
    assert_eq!(selected(&app, table), selected_before);
    // `&` opens the log's filter line: typed text goes there (not to the table's filter).
    app.update(key('&'));
    type_str(&mut app, "500");
    app.update(code(KeyCode::Enter));
    assert_eq!(log_screen(&app).view.visible_texts(), vec!["GET /30 500"]);
    assert!(app.views[&table].table.filters.text_raw.is_empty());
    // `G` resumes following.
    app.update(key('G'));
    assert!(log_screen(&app).view.is_following());
    // esc first clears the log's filter, then closes.
    let fx = app.update(code(KeyCode::Esc));
    assert!(closed_logs(&fx).is_empty());
    assert_eq!(log_screen(&app).view.visible_texts().len(), 60);
    assert_eq!(closed_logs(&app.update(code(KeyCode::Esc))), vec![view]);
}

#[test]
fn help_and_command_line_still_open_over_the_log_screen() {
    let mut app = app_on("pods", shop_pods());
    app.update(key('L'));
    app.update(key('?'));
    assert!(matches!(app.mode, kinformer::ui::app::Mode::Help { .. }));
    app.update(code(KeyCode::Esc));
    app.update(key(':'));
    assert!(matches!(app.mode, kinformer::ui::app::Mode::Command { .. }));
}

#[test]
fn since_and_previous_restart_the_streams_under_a_new_id_and_drop_old_batches() {
    let mut app = app_on("pods", shop_pods());
    let (first, ..) = open_logs(&app.update(key('L')));
    let fx = app.update(key('2'));
    assert_eq!(closed_logs(&fx), vec![first]);
    let (second, ns, filter, _, options) = open_logs(&fx);
    assert_ne!(second, first);
    assert_eq!(
        (ns.as_str(), filter),
        ("shop", PodFilter::Name("api-7d9f-abcde".into()))
    );
    assert_eq!(
        (options.tail_lines, options.since_seconds),
        (None, Some(60))
    );
    assert_eq!(log_screen(&app).stream, second);

    // A batch of the old streams still in flight is dropped; the new streams' lines land.
    app.take_dirty();
    app.update(Action::Log {
        view: first,
        batch: vec![lines("api-7d9f-abcde", "api", &["before the restart"])],
    });
    assert!(log_screen(&app).view.is_empty());
    assert!(!app.take_dirty(), "a dropped batch does not redraw");
    app.update(Action::Log {
        view: second,
        batch: vec![lines("api-7d9f-abcde", "api", &["after"])],
    });
    assert_eq!(log_screen(&app).view.texts(), vec!["after"]);
    assert!(app.take_dirty());

    let fx = app.update(key('p'));
    assert_eq!(closed_logs(&fx), vec![second]);
    let (_, _, _, _, options) = open_logs(&fx);
    assert!(options.previous);
}

#[test]
fn ctrl_s_asks_the_runtime_to_save_and_the_answer_shows_in_the_log_footer() {
    let mut app = app_on("pods", shop_pods());
    app.update(key('L'));
    let view = log_screen(&app).stream;
    app.update(Action::Log {
        view,
        batch: vec![lines("api-7d9f-abcde", "api", &["one", "two"])],
    });
    let fx = app.update(ctrl('s'));
    let (path, contents) = fx
        .iter()
        .find_map(|e| match e {
            Effect::SaveLogs {
                view: v,
                path,
                contents,
            } if *v == view => Some((path.clone(), contents.clone())),
            _ => None,
        })
        .expect("SaveLogs");
    assert_eq!(contents, "one\ntwo\n");
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("shop_api-7d9f-abcde_"), "{name}");
    app.update(Action::LogSaved {
        view,
        result: Ok((path.clone(), 2)),
    });
    let screen = render(&mut app, 200, 20);
    assert!(
        screen.contains("saved 2 lines to ") && screen.contains(&name),
        "{screen}"
    );
}

#[test]
fn batches_redraw_only_while_the_log_screen_is_on_top() {
    let mut app = app_on("pods", shop_pods());
    app.update(key('L'));
    let view = log_screen(&app).stream;
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Events(_))));
    app.take_dirty();
    app.update(Action::Log {
        view,
        batch: vec![lines("api-7d9f-abcde", "api", &["hidden"])],
    });
    assert!(!app.take_dirty(), "the log screen is not visible");
    // The lines were kept: they show once the log screen is back on top.
    app.update(code(KeyCode::Esc));
    assert_eq!(log_screen(&app).view.texts(), vec!["hidden"]);
}

fn render(app: &mut App, w: u16, h: u16) -> String {
    draw(app, w, h)
        .backend()
        .buffer()
        .content()
        .chunks(usize::from(w))
        .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn snapshot_dashboard_with_a_workload_log_screen() {
    let deploy = with_spec(
        workload("shop", "api", None),
        "Deployment",
        json!({"replicas": 2, "selector": {"matchLabels": {"app": "api"}}}),
    );
    let mut app = app_on("deployments", vec![deploy]);
    app.update(Action::Connection(ConnectionState {
        context: "kind-demo".into(),
        server_version: Some("v1.33.1".into()),
        reachable: true,
        retry_at_ms: None,
        last_error: None,
    }));
    app.update(key('L'));
    let view = log_screen(&app).stream;
    let state = |pod: &str, state: SourceState| LogEvent::State {
        source: source(pod, "api"),
        state,
    };
    app.update(Action::Log {
        view,
        batch: vec![
            state("api-7d9f-abcde", SourceState::Streaming),
            state("api-7d9f-fghij", SourceState::Connecting),
            lines(
                "api-7d9f-abcde",
                "api",
                &[
                    r#"{"level":"info","msg":"listening","port":8080}"#,
                    r#"{"level":"info","msg":"GET /orders 200","ms":12}"#,
                ],
            ),
            state("api-7d9f-fghij", SourceState::Streaming),
            lines(
                "api-7d9f-fghij",
                "api",
                &[r#"{"level":"warn","msg":"slow query","ms":812}"#],
            ),
            LogEvent::PodGone {
                namespace: "shop".into(),
                pod: "api-7d9f-abcde".into(),
            },
        ],
    });
    insta::assert_snapshot!(draw(&mut app, 110, 16).backend());
}

#[test]
fn a_key_with_no_action_in_the_log_view_says_so_in_its_footer() {
    let mut app = app_on("pods", shop_pods());
    app.update(key('L'));
    // `y` (YAML on a table) means nothing over the logs.
    let fx = app.update(key('y'));
    assert!(fx.is_empty(), "{fx:?}");
    let status = log_screen(&app).view.status().map(str::to_string);
    assert!(
        status
            .as_deref()
            .is_some_and(|s| s.starts_with("y: no action in the log view")),
        "{status:?}"
    );
}

#[test]
fn j_then_a_level_filter_shows_only_error_lines_with_their_fields() {
    let mut app = app_on("pods", shop_pods());
    app.update(key('L'));
    let view = log_screen(&app).stream;
    app.update(Action::Log {
        view,
        batch: vec![
            LogEvent::State {
                source: source("api-7d9f-abcde", "api"),
                state: SourceState::Streaming,
            },
            lines(
                "api-7d9f-abcde",
                "api",
                &[
                    r#"{"time":"2026-01-01T00:00:01","level":"info","msg":"order processed","id":1}"#,
                    r#"ts=2026-01-01T00:00:02 level=error msg="request failed" error="upstream connect timeout" status=503 path=/api/v1/cart"#,
                    "plain line mentioning error",
                    r#"{"time":"2026-01-01T00:00:03","level":"ERROR","msg":"payment declined","user":"jane"}"#,
                ],
            ),
        ],
    });
    // Times without a zone show as written (the snapshot does not depend on the local zone).
    app.update(key('J'));
    app.update(key('&'));
    type_str(&mut app, "level=error");
    app.update(code(KeyCode::Enter));
    let texts = log_screen(&app).view.visible_texts();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts.iter().all(|t| !t.starts_with("plain")), "{texts:?}");
    let screen = render(&mut app, 120, 12);
    assert!(screen.contains("ERROR request failed"), "{screen}");
    assert!(
        screen.contains(r#"error="upstream connect timeout""#),
        "{screen}"
    );
    assert!(screen.contains("2 of 4 lines match"), "{screen}");
    insta::assert_snapshot!(draw(&mut app, 120, 12).backend());
}

#[test]
fn cols_command_sets_the_log_views_field_columns() {
    let mut app = app_on("pods", shop_pods());
    app.update(key('l'));
    app.update(key(':'));
    type_str(&mut app, "cols level,status,path");
    app.update(code(KeyCode::Enter));
    assert_eq!(log_screen(&app).view.columns(), ["level", "status", "path"]);
    app.update(key(':'));
    type_str(&mut app, "cols");
    app.update(code(KeyCode::Enter));
    assert!(log_screen(&app).view.columns().is_empty());
    // Elsewhere it says what it is for.
    let mut app = app_on("pods", shop_pods());
    app.update(key(':'));
    type_str(&mut app, "cols level");
    app.update(code(KeyCode::Enter));
    assert!(
        app.message.clone().unwrap().0.contains("open logs first"),
        "{:?}",
        app.message
    );
}
