//! Rendering snapshots of the main screens with ratatui's `TestBackend` (text only; colours and
//! highlights are checked on the buffer's styles where they matter).

mod ui_support;

use crossterm::event::KeyCode;
use kinformer::informer::delta_fifo::DeltaType;
use kinformer::informer::shared_informer::TapEntry;
use kinformer::ui::action::{Action, ConnectionState, InformerRow, InformerState};
use kinformer::ui::{App, AppConfig};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::{Color, Modifier};
use ui_support::*;

fn demo_pods() -> Vec<kinformer::ui::action::ObjectSummary> {
    vec![
        pod(PodSpec {
            name: "web-7d4b9c-x2lq",
            labels: &[("app", "web"), ("tier", "frontend")],
            age_secs: 7_200,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "web-7d4b9c-k8pz",
            labels: &[("app", "web"), ("tier", "frontend")],
            age_secs: 7_100,
            node: "node-2",
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "api-5f6d8-q9wt",
            status: "CrashLoopBackOff",
            restarts: 7,
            labels: &[("app", "api"), ("tier", "backend")],
            age_secs: 1_800,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "db-0",
            labels: &[("app", "db"), ("tier", "backend")],
            age_secs: 864_000,
            node: "node-3",
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "migrate-28841-7xk",
            status: "Completed",
            labels: &[("job-name", "migrate")],
            age_secs: 300,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "cache-6c9f-zz1",
            status: "Pending",
            labels: &[("app", "cache")],
            age_secs: 45,
            node: "",
            ..PodSpec::default()
        }),
    ]
}

fn app_demo(cfg: AppConfig) -> (App, u64) {
    let (mut app, v) = app_with(cfg, demo_pods());
    connected(&mut app);
    app.update(Action::Resize(100, 24));
    app.update(Action::InformerStats(vec![
        informer_row("pods", Some("default"), InformerState::Watching),
        informer_row("pods", None, InformerState::Watching),
    ]));
    (app, v)
}

#[test]
fn pods_table() {
    let (mut app, _) = app_demo(config());
    app.update(key('j'));
    insta::assert_snapshot!(draw(&mut app, 100, 24).backend());
}

#[test]
fn all_namespaces_table_has_namespace_column() {
    let cfg = AppConfig {
        namespace: None,
        ..config()
    };
    let (mut app, v) = app_with(cfg, vec![]);
    connected(&mut app);
    app.update(Action::Resize(100, 16));
    app.update(Action::Resync {
        view: v,
        rows: vec![
            pod(PodSpec {
                ns: "shop",
                name: "cart-1",
                ..PodSpec::default()
            }),
            pod(PodSpec {
                ns: "kube-system",
                name: "coredns-abc",
                ..PodSpec::default()
            }),
            pod(PodSpec {
                ns: "default",
                name: "web-1",
                ..PodSpec::default()
            }),
        ],
    });
    app.update(Action::InformerStats(vec![informer_row(
        "pods",
        None,
        InformerState::Watching,
    )]));
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
}

#[test]
fn large_table_shows_position_and_renders_only_the_window() {
    let (mut app, v) = app_with(config(), vec![]);
    connected(&mut app);
    app.update(Action::Resize(100, 16));
    let rows = (0..100_000)
        .map(|i| simple_pod("default", &format!("pod-{i:06}")))
        .collect();
    app.update(Action::Resync { view: v, rows });
    for _ in 0..3 {
        app.update(code(KeyCode::PageDown));
    }
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
}

#[test]
fn changed_rows_are_highlighted_and_deleted_rows_struck() {
    let (mut app, v) = app_demo(config());
    app.update(Action::Rows {
        view: v,
        upserts: vec![simple_pod("default", "new-pod")],
        deletes: vec!["default/db-0".into()],
    });
    let t = draw(&mut app, 100, 24);
    let buf = t.backend().buffer();
    let find = |text: &str| {
        (0..buf.area.height)
            .find(|y| {
                let line: String = (0..buf.area.width).map(|x| buf[(x, *y)].symbol()).collect();
                line.contains(text)
            })
            .unwrap()
    };
    let y_new = find("new-pod");
    assert_eq!(buf[(3, y_new)].bg, Color::Green, "added row highlighted");
    let y_del = find("db-0");
    assert_eq!(buf[(3, y_del)].fg, Color::Red);
    assert!(
        buf[(3, y_del)].modifier.contains(Modifier::CROSSED_OUT),
        "deleted row struck"
    );
}

fn tap(seq: u64, kind: &str, delta: DeltaType, tombstone: bool, key: &str) -> TapEntry {
    TapEntry {
        seq,
        at: std::time::UNIX_EPOCH + std::time::Duration::from_millis(NOW_MS as u64 + seq * 137),
        kind: kind.into(),
        delta,
        tombstone,
        key: key.into(),
        resource_version: (48_200 + seq).to_string(),
        queue_depth: (seq % 3) as usize,
        cluster: None,
    }
}

fn taps() -> Vec<TapEntry> {
    vec![
        tap(
            1,
            "Pod",
            DeltaType::Replaced,
            false,
            "default/web-7d4b9c-x2lq",
        ),
        tap(2, "Pod", DeltaType::Added, false, "default/cache-6c9f-zz1"),
        tap(3, "Deployment", DeltaType::Updated, false, "default/web"),
        tap(
            4,
            "Pod",
            DeltaType::Updated,
            false,
            "default/api-5f6d8-q9wt",
        ),
        tap(5, "Pod", DeltaType::Deleted, true, "default/old-1"),
        tap(6, "Pod", DeltaType::Deleted, false, "default/old-2"),
        tap(7, "Pod", DeltaType::Sync, false, "default/db-0"),
    ]
}

#[test]
fn event_log_full_screen() {
    let (mut app, _) = app_demo(config());
    app.update(Action::Tap(taps()));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
}

#[test]
fn event_log_screen_header_shows_the_logs_pause_and_filters() {
    let (mut app, _) = app_demo(config());
    app.update(Action::Tap(taps()));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    app.update(key('p'));
    app.update(key('t')); // type: Added
    app.update(Action::Tap(vec![tap(
        8,
        "Pod",
        DeltaType::Added,
        false,
        "default/late",
    )]));
    insta::assert_snapshot!(draw(&mut app, 100, 7).backend());
}

/// Issue 39: `:deltas` kept `[5000/5000]` in its title over a filter showing no rows; the title
/// counts the rows the filter shows.
#[test]
fn event_log_title_counts_the_rows_its_filter_shows() {
    let (mut app, _) = app_demo(config());
    app.update(Action::Tap(taps()));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    let screen = format!("{:?}", draw(&mut app, 100, 16).backend());
    assert!(screen.contains("DeltaFIFO events[7/"), "{screen}");
    app.update(key('t')); // type: Added
    let screen = format!("{:?}", draw(&mut app, 100, 16).backend());
    assert!(screen.contains("DeltaFIFO events[1 of 7]"), "{screen}");
}

#[test]
fn event_log_kind_column_fits_group_qualified_kinds_and_delta_narrows_without_tombstones() {
    let (mut app, _) = app_demo(config());
    app.update(Action::Tap(vec![
        tap(1, "deployments.apps", DeltaType::Updated, false, "shop/web"),
        tap(2, "pods", DeltaType::Added, false, "shop/web-1"),
    ]));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!(draw(&mut app, 80, 8).backend());
}

#[test]
fn event_log_pane_paused_and_filtered() {
    let (mut app, _) = app_demo(config());
    // The pane is on the first screen: no `e` needed.
    app.update(Action::Tap(taps()));
    app.update(key('p'));
    app.update(key('o')); // kind: Deployment
    app.update(key('o')); // kind: Pod
    app.update(Action::Tap(vec![tap(
        8,
        "Pod",
        DeltaType::Added,
        false,
        "default/late",
    )]));
    insta::assert_snapshot!(draw(&mut app, 100, 24).backend());
}

#[test]
fn drill_down_header_shows_the_views_own_namespace() {
    let cfg = AppConfig {
        resource: "rs".into(),
        namespace: None,
        ..config()
    };
    let (mut app, _) = app_with(
        cfg,
        vec![workload("identity", "auth-5d8f", Some("uid-auth"))],
    );
    connected(&mut app);
    let fx = app.update(code(KeyCode::Enter));
    let pods_view = opened(&fx)[0].0;
    let owned = pod(PodSpec {
        ns: "identity",
        name: "auth-5d8f-a",
        owner: Some("uid-auth-5d8f"),
        ..PodSpec::default()
    });
    // The rows come from the owner index of the store the runtime attaches.
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[owned.clone(), simple_pod("identity", "other")]),
    });
    app.update(Action::Resync {
        view: pods_view,
        rows: vec![owned],
    });
    insta::assert_snapshot!(draw(&mut app, 100, 8).backend());
}

#[test]
fn informer_panel() {
    let (mut app, _) = app_demo(config());
    let mut forbidden = informer_row(
        "secrets",
        Some("default"),
        InformerState::Forbidden {
            retry_at_ms: NOW_MS + 298_000,
        },
    );
    forbidden.forbidden = true;
    forbidden.synced = false;
    forbidden.cached = 0;
    forbidden.last_error = Some("secrets is forbidden: User \"dev\" cannot list secrets".into());
    app.update(Action::InformerStats(vec![
        informer_row("pods", Some("default"), InformerState::Watching),
        InformerRow {
            cached: 12,
            list_mode: "fallback",
            wire: "json",
            deltas_total: 40,
            deltas_per_sec: 0.0,
            ..informer_row("deployments.apps", Some("default"), InformerState::Listing)
        },
        forbidden,
    ]));
    app.update(key(':'));
    type_str(&mut app, "informers");
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!(draw(&mut app, 130, 12).backend());
    // Narrow: the right-hand columns are left out whole; none is cut at its left (`BJECTS`).
    insta::assert_snapshot!("informer_panel_narrow", draw(&mut app, 80, 12).backend());
}

#[test]
fn label_filter_with_picker() {
    let (mut app, _) = app_demo(config());
    app.update(ctrl('l'));
    type_str(&mut app, "tier=backend,app");
    insta::assert_snapshot!(draw(&mut app, 100, 24).backend());
}

#[test]
fn label_picker_with_one_value_says_value() {
    let (mut app, _) = app_demo(config());
    app.update(ctrl('l'));
    type_str(&mut app, "tier=front");
    insta::assert_snapshot!(draw(&mut app, 100, 14).backend());
}

#[test]
fn label_filter_applied_shows_match_count_from_index() {
    let (mut app, _) = app_demo(config());
    app.update(ctrl('l'));
    type_str(&mut app, "tier=backend,app in (db,api)");
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!(draw(&mut app, 100, 14).backend());
}

#[test]
fn yaml_view() {
    let (mut app, _) = app_demo(config());
    let fx = app.update(key('y'));
    let kinformer::ui::Effect::FetchYaml { request, .. } = fx[0].clone() else {
        panic!()
    };
    let obj = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "api-5f6d8-q9wt", "namespace": "default", "labels": {"app": "api"}},
        "spec": {"nodeName": "node-1", "containers": [{"name": "api", "image": "example/api:1.4"}]},
        "status": {"phase": "Running", "podIP": "10.0.0.1"}
    });
    app.update(Action::Yaml {
        request,
        result: Ok(obj),
    });
    insta::assert_snapshot!(draw(&mut app, 80, 20).backend());
}

#[test]
fn secret_yaml_view_offers_reveal_and_wraps_long_values() {
    let (mut app, _) = app_demo(config());
    let fx = app.update(key('y'));
    let kinformer::ui::Effect::FetchYaml { request, .. } = fx[0].clone() else {
        panic!()
    };
    let obj = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "tls", "namespace": "default", "annotations": {
            "note": "a long annotation value that does not fit on one line of a sixty column terminal"
        }},
        "data": {"tls.crt": "c2VjcmV0"}
    });
    app.update(Action::Yaml {
        request,
        result: Ok(obj),
    });
    insta::assert_snapshot!(draw(&mut app, 60, 16).backend());
}

#[test]
fn help_screen() {
    let (mut app, _) = app_demo(config());
    app.update(key('?'));
    insta::assert_snapshot!(draw(&mut app, 110, 46).backend());
}

#[test]
fn command_line_with_completion() {
    let (mut app, _) = app_demo(config());
    app.update(key(':'));
    type_str(&mut app, "de");
    insta::assert_snapshot!(draw(&mut app, 100, 12).backend());
}

#[test]
fn forbidden_view_says_so() {
    let cfg = AppConfig {
        resource: "secrets".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![]);
    connected(&mut app);
    let mut row = informer_row(
        "secrets",
        Some("default"),
        InformerState::Forbidden {
            retry_at_ms: NOW_MS + 300_000,
        },
    );
    row.forbidden = true;
    row.synced = false;
    row.last_error = Some("secrets is forbidden: User \"dev\" cannot list resource \"secrets\" in API group \"\" in the namespace \"default\"".into());
    app.update(Action::InformerStats(vec![row]));
    insta::assert_snapshot!(draw(&mut app, 100, 12).backend());
}

#[test]
fn unreachable_api_marks_cached_data_stale_with_countdown() {
    let (mut app, _) = app_demo(config());
    app.update(Action::Connection(ConnectionState {
        context: "kind-demo".into(),
        server_version: Some("v1.33.1".into()),
        reachable: false,
        retry_at_ms: Some(NOW_MS + 7_400),
        last_error: Some("connect: connection refused (127.0.0.1:6443)".into()),
    }));
    insta::assert_snapshot!(draw(&mut app, 100, 14).backend());
}

#[test]
fn unknown_resource_inline_error() {
    let (mut app, _) = app_demo(config());
    app.update(key(':'));
    type_str(&mut app, "gizmos");
    app.update(code(KeyCode::Enter));
    // Discovery asked again (the kind is unknown) knows it no better.
    app.update(Action::Discovery(
        kinformer::ui::resources::builtin_resources(),
    ));
    insta::assert_snapshot!(draw(&mut app, 100, 12).backend());
}

#[test]
fn delete_confirmation_dialog() {
    let (mut app, _) = app_demo(config());
    app.update(ctrl('d'));
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
}

/// Rows made by the real row functions from the render fixtures, as the runtime makes them.
#[test]
fn pods_table_from_real_objects() {
    use kinformer::ui::action::ObjectSummary;
    let mut rows = Vec::new();
    for f in [
        "pod",
        "pod_crashloop",
        "pod_init",
        "pod_terminating",
        "pod_completed",
    ] {
        let text = std::fs::read_to_string(format!("tests/fixtures/{f}.json")).unwrap();
        let obj: kube::api::DynamicObject = serde_json::from_str(&text).unwrap();
        rows.push(ObjectSummary::from_object("Pod", &std::sync::Arc::new(obj), None).unwrap());
    }
    let cfg = AppConfig {
        namespace: None,
        ..config()
    };
    let (mut app, _) = app_with(cfg, rows);
    connected(&mut app);
    app.update(Action::InformerStats(vec![informer_row(
        "pods",
        None,
        InformerState::Watching,
    )]));
    insta::assert_snapshot!(draw(&mut app, 120, 14).backend());
}

#[test]
fn rendering_never_panics_at_any_size_on_any_screen() {
    type Setup = Box<dyn Fn(&mut App)>;
    let setups: Vec<Setup> = vec![
        Box::new(|_| {}),
        Box::new(|a| {
            a.update(key('?'));
        }),
        Box::new(|a| {
            a.update(ctrl('l'));
        }),
        Box::new(|a| {
            a.update(ctrl('d'));
        }),
        // `e` hides the event log pane (shown by default).
        Box::new(|a| {
            a.update(key('E'));
            a.update(Action::Tap(taps()));
        }),
        Box::new(|a| {
            a.update(key(':'));
            type_str(a, "events");
            a.update(code(KeyCode::Enter));
        }),
        Box::new(|a| {
            a.update(key(':'));
            type_str(a, "informers");
            a.update(code(KeyCode::Enter));
        }),
        Box::new(|a| {
            a.update(key('y'));
        }),
        Box::new(|a| {
            a.update(key('/'));
            type_str(a, "web");
        }),
        Box::new(|a| {
            a.update(ctrl('k'));
        }),
        Box::new(|a| {
            a.update(key('F'));
        }),
        Box::new(|a| {
            a.update(key('s'));
            a.update(Action::Containers {
                namespace: "default".into(),
                pod: "api-5f6d8-q9wt".into(),
                result: Ok((vec!["app".into(), "a-sidecar-with-a-long-name".into()], 0)),
            });
        }),
        Box::new(|a| {
            a.update(Action::Forwards(vec![
                kinformer::ui::portforward::ForwardRow {
                    id: 1,
                    namespace: "default".into(),
                    pod: "a-pod-with-a-long-name".into(),
                    port: 8080,
                    local: 8080,
                    connections: 1,
                    active: 1,
                    bytes_in: 1 << 30,
                    bytes_out: 5,
                    errors: 0,
                    target: None,
                    moved: 0,
                },
            ]));
            a.update(key(':'));
            type_str(a, "pf");
            a.update(code(KeyCode::Enter));
        }),
    ];
    for setup in &setups {
        for (w, h) in [(0, 0), (1, 1), (5, 3), (20, 6), (40, 10), (300, 100)] {
            let (mut app, _) = app_demo(config());
            setup(&mut app);
            draw(&mut app, w, h);
        }
    }
}

#[test]
fn column_widths_stay_put_when_wide_rows_scroll_out_of_view() {
    let mut rows = vec![pod(PodSpec {
        name: "a-crashing",
        status: "CrashLoopBackOff",
        ..PodSpec::default()
    })];
    let names: Vec<String> = (0..40).map(|i| format!("p-{i:02}")).collect();
    rows.extend(names.iter().map(|n| {
        pod(PodSpec {
            name: n,
            ..PodSpec::default()
        })
    }));
    let (mut app, v) = app_with(config(), rows);
    let header_line = |t: &Terminal<TestBackend>| -> String {
        let buf = t.backend().buffer();
        (0..buf.area.width).map(|x| buf[(x, 4)].symbol()).collect()
    };
    let top = header_line(&draw(&mut app, 100, 20));
    assert!(
        app.views[&v].col_widths[2] >= 16,
        "{:?}",
        app.views[&v].col_widths
    );
    app.update(key('G'));
    let bottom = header_line(&draw(&mut app, 100, 20));
    assert!(top.contains("STATUS"), "{top}");
    assert_eq!(top, bottom, "column header must not move while scrolling");
}

fn demo_node(name: &str) -> kinformer::ui::action::ObjectSummary {
    let obj: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": "uid-node", "creationTimestamp": "2026-11-19T12:00:00Z"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}],
                   "nodeInfo": {"kubeletVersion": "v1.33.1"}}
    }))
    .unwrap();
    kinformer::ui::action::ObjectSummary::from_object("Node", &std::sync::Arc::new(obj), None)
        .unwrap()
}

#[test]
fn drain_confirmation_states_kubectls_flags() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![demo_node("worker-1")]);
    connected(&mut app);
    app.update(key('D'));
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
}

#[test]
fn drain_progress_shows_evictions_and_a_blocking_budget() {
    use kinformer::ui::drain::DrainEvent;
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![demo_node("worker-1")]);
    connected(&mut app);
    app.update(key('D'));
    app.update(key('y'));
    app.update(Action::Drain(DrainEvent::Cordoned));
    app.update(Action::Drain(DrainEvent::Planned {
        evict: vec!["shop/web-1".into(), "shop/web-2".into(), "shop/db-0".into()],
        skipped: vec![("kube-system/proxy-x".into(), "DaemonSet-managed".into())],
        warnings: vec!["shop/db-0 has emptyDir data that will be deleted".into()],
    }));
    app.update(Action::Drain(DrainEvent::Evicted("shop/web-1".into())));
    app.update(Action::Drain(DrainEvent::Blocked {
        pod: "shop/web-2".into(),
        message: "Cannot evict pod as it would violate the pod's disruption budget.".into(),
        retry_in: std::time::Duration::from_secs(2),
    }));
    insta::assert_snapshot!(draw(&mut app, 100, 20).backend());
}

#[test]
fn operating_dialogs_never_panic_at_any_size() {
    use kinformer::ui::drain::DrainEvent;
    for (w, h) in [(0, 0), (1, 1), (5, 3), (20, 6), (40, 10), (300, 100)] {
        let cfg = AppConfig {
            resource: "nodes".into(),
            ..config()
        };
        let (mut app, _) = app_with(cfg, vec![demo_node("worker-1")]);
        app.update(key('D'));
        draw(&mut app, w, h);
        app.update(key('y'));
        app.update(Action::Drain(DrainEvent::Cordoned));
        app.update(Action::Drain(DrainEvent::Failed {
            pod: "shop/x".into(),
            message: "a very long failure message ".repeat(10),
        }));
        draw(&mut app, w, h);
        app.update(Action::Drain(DrainEvent::Done {
            evicted: 0,
            failed: 1,
        }));
        draw(&mut app, w, h);
    }
}

/// A connected app showing one Deployment, `default/web` with 3 of 3 replicas ready.
fn deployment_web_app() -> App {
    let obj: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "uid-web",
                     "creationTimestamp": "2026-11-21T12:00:00Z"},
        "spec": {"replicas": 3},
        "status": {"replicas": 3, "readyReplicas": 3, "updatedReplicas": 3, "availableReplicas": 3}
    }))
    .unwrap();
    let row = kinformer::ui::action::ObjectSummary::from_object(
        "Deployment",
        &std::sync::Arc::new(obj),
        None,
    )
    .unwrap();
    let cfg = AppConfig {
        resource: "deployments".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![row]);
    connected(&mut app);
    app
}

#[test]
fn scale_dialog_shows_current_replicas_and_input() {
    let mut app = deployment_web_app();
    app.update(key('s'));
    app.update(code(KeyCode::Backspace));
    app.update(key('5'));
    insta::assert_snapshot!(draw(&mut app, 100, 16).backend());
}

#[test]
fn set_image_dialog_lists_the_containers_and_edits_the_selected_image() {
    use kinformer::ui::action::Effect;
    use kinformer::ui::operate::ContainerImage;
    let mut app = deployment_web_app();
    let fx = app.update(key('i'));
    let Some(Effect::FetchImages(write)) = fx.first() else {
        panic!("the containers are fetched first: {fx:?}")
    };
    let write = write.clone();
    let c = |name: &str, image: &str, init: bool| ContainerImage {
        name: name.into(),
        image: image.into(),
        init,
    };
    app.update(Action::Images {
        write,
        result: Ok(vec![
            c("migrate", "registry.example/web-migrate:1.4", true),
            c("web", "registry.example/web:1.4", false),
            c("proxy", "envoyproxy/envoy:v1.31", false),
        ]),
    });
    // The first app container is selected, its image in the input; edit its tag.
    for _ in 0..3 {
        app.update(code(KeyCode::Backspace));
    }
    for ch in "1.5".chars() {
        app.update(key(ch));
    }
    insta::assert_snapshot!(draw(&mut app, 100, 18).backend());
}

#[test]
fn port_forward_dialog_and_the_pf_screen() {
    use kinformer::ui::action::ContainerPort;
    use kinformer::ui::portforward::ForwardRow;
    let (mut app, _) = app_demo(config());
    app.update(key('F'));
    app.update(Action::Ports {
        namespace: "default".into(),
        pod: "api-5f6d8-q9wt".into(),
        result: Ok(vec![
            ContainerPort {
                container: "app".into(),
                port: 8080,
                name: "http".into(),
                protocol: "TCP".into(),
            },
            ContainerPort {
                container: "app".into(),
                port: 9090,
                name: "metrics".into(),
                protocol: "TCP".into(),
            },
        ]),
    });
    insta::assert_snapshot!("port_forward_dialog", draw(&mut app, 100, 18).backend());
    app.update(code(KeyCode::Esc));
    app.update(Action::Forwards(vec![ForwardRow {
        id: 1,
        namespace: "default".into(),
        pod: "api-5f6d8-q9wt".into(),
        port: 8080,
        local: 8080,
        connections: 3,
        active: 1,
        bytes_in: 48_213,
        bytes_out: 310,
        errors: 0,
        target: None,
        moved: 0,
    }]));
    app.update(key(':'));
    type_str(&mut app, "pf");
    app.update(code(KeyCode::Enter));
    insta::assert_snapshot!("pf_screen", draw(&mut app, 100, 10).backend());
    // A Deployment forward: the pod in use and its moves, then waiting for a ready pod.
    let follower = |pod: &str, moved: u64| ForwardRow {
        id: 2,
        namespace: "default".into(),
        pod: pod.into(),
        port: 8080,
        local: 9000,
        connections: 5,
        active: 0,
        bytes_in: 1_024,
        bytes_out: 200,
        errors: 0,
        target: Some("deploy/api:8080".into()),
        moved,
    };
    app.update(Action::Forwards(vec![follower("api-5f6d8-x7k2p", 2)]));
    insta::assert_snapshot!("pf_screen_deployment", draw(&mut app, 130, 8).backend());
    app.update(Action::Forwards(vec![follower("", 2)]));
    insta::assert_snapshot!(
        "pf_screen_deployment_waiting",
        draw(&mut app, 130, 8).backend()
    );
}

/// The demo's Widgets as the dashboard shows them: the printer columns of the demo CRD (plus
/// two of priority 1, as a CRD may declare), typed: REPLICAS an integer, LOAD a number, AGE a
/// date shown as an age, OWNER and LOAD (priority 1) only in wide mode.
fn widgets_app() -> (App, u64) {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
    use kinformer::cluster::ResourceInfo;
    use kinformer::demo::objects::{WidgetInfo, widget, widget_crd};
    let mut crd = widget_crd("uid-crd", NOW - 86_400);
    crd["spec"]["versions"][0]["additionalPrinterColumns"]
        .as_array_mut()
        .expect("columns")
        .extend([
            serde_json::json!({"name": "Owner", "type": "string",
                "jsonPath": ".spec.owner", "priority": 1}),
            serde_json::json!({"name": "Load", "type": "number",
                "jsonPath": ".spec.replicas", "priority": 1}),
        ]);
    let crd: kube::api::DynamicObject = serde_json::from_value(crd).expect("crd");
    let pcs = kinformer::render::printer_columns_from_crd(&crd, "v1");
    let mut widgets = ResourceInfo::from_api_resource(
        "demo.kinformer.io",
        "v1",
        &APIResource {
            name: "widgets".into(),
            kind: "Widget".into(),
            namespaced: true,
            singular_name: "widget".into(),
            short_names: Some(vec!["wdg".into()]),
            verbs: vec!["list".into(), "watch".into(), "get".into()],
            ..Default::default()
        },
    )
    .expect("listable");
    widgets.printer_columns = Some(pcs.clone());
    let mut resources = kinformer::ui::resources::builtin_resources();
    resources.push(widgets);
    let (mut app, _) = app_demo(config());
    app.update(Action::Discovery(resources));
    app.update(key(':'));
    type_str(&mut app, "wdg");
    let fx = app.update(code(KeyCode::Enter));
    let view = opened(&fx)[0].0;
    let rows: Vec<kinformer::ui::action::ObjectSummary> = [
        ("gear-large", "large", "red", 12, "Ready", 7_200),
        ("gear-small", "small", "blue", 9, "Degraded", 300),
        ("spring", "medium", "green", 100, "Pending", 90_000),
    ]
    .iter()
    .map(|(name, size, color, replicas, phase, age)| {
        let obj = widget(&WidgetInfo {
            namespace: "default".into(),
            name: name.to_string(),
            uid: format!("uid-{name}"),
            created: NOW - age,
            size,
            color,
            replicas: *replicas,
            owner: "team-a".into(),
            generation: 1,
            phase,
        });
        let obj: kube::api::DynamicObject = serde_json::from_value(obj).expect("widget");
        kinformer::ui::action::ObjectSummary::from_object(
            "Widget",
            &std::sync::Arc::new(obj),
            Some(&pcs),
        )
        .expect("named")
    })
    .collect();
    app.update(Action::Store {
        view,
        store: store_of(&rows),
    });
    app.update(Action::Resync { view, rows });
    (app, view)
}

/// Issue 39: a CRD's `additionalPrinterColumns` were dropped (NAME AGE only).
#[test]
fn widgets_table_shows_the_crds_printer_columns() {
    let (mut app, _) = widgets_app();
    insta::assert_snapshot!(draw(&mut app, 100, 12).backend());
}

#[test]
fn a_printer_column_of_priority_above_zero_shows_in_wide_mode_only() {
    let (mut app, _) = widgets_app();
    let header = |app: &mut App| {
        let screen = format!("{:?}", draw(app, 120, 12).backend());
        screen
            .lines()
            .find(|l| l.contains("NAME") && l.contains("COLOR"))
            .unwrap_or_default()
            .to_string()
    };
    assert!(!header(&mut app).contains("OWNER"));
    app.update(ctrl('w'));
    let wide = header(&mut app);
    assert!(wide.contains("OWNER") && wide.contains("LABELS"), "{wide}");
    app.update(ctrl('w'));
    assert!(!header(&mut app).contains("OWNER"));
}

/// LOAD (a `number` column) sorts as numbers: 9 < 12 < 100, not "100" < "12" < "9" (REPLICAS,
/// an `integer`, already did).
#[test]
fn a_number_printer_column_sorts_as_numbers() {
    let (mut app, view) = widgets_app();
    let col = app.views[&view]
        .columns
        .iter()
        .position(|c| c.name == "LOAD")
        .expect("LOAD");
    app.views
        .get_mut(&view)
        .expect("view")
        .table
        .set_sort(kinformer::ui::table::SortBy::Cell(col));
    assert_eq!(
        shown(&app, view),
        ["default/gear-small", "default/gear-large", "default/spring"]
    );
}

/// Issue 39: at 100 columns footer messages were cut mid-word (`…/.local/state/kinfo`). A
/// message that does not fit is cut after a whole word with `…` and says where the whole text
/// is; `:messages` shows it whole.
#[test]
fn a_long_footer_message_is_cut_at_a_word_and_messages_shows_it_whole() {
    let (mut app, _) = app_demo(config());
    app.update(key(':'));
    type_str(&mut app, "at 99:99");
    app.update(code(KeyCode::Enter));
    let (msg, _) = app.message.clone().expect("an error");
    assert!(msg.chars().count() > 50, "{msg}");
    let term = draw(&mut app, 50, 12);
    let buf = term.backend().buffer();
    let footer: String = (0..50).map(|x| buf[(x, 11)].symbol().to_string()).collect();
    let footer = footer.trim();
    let kept = footer
        .strip_suffix("… (:messages)")
        .unwrap_or_else(|| panic!("cut with the hint: {footer:?}"));
    assert!(
        msg.starts_with(kept) && msg[kept.len()..].starts_with(' '),
        "cut after a whole word: {footer:?} of {msg:?}"
    );
    app.update(key(':'));
    type_str(&mut app, "messages");
    app.update(code(KeyCode::Enter));
    let screen: String = format!("{:?}", draw(&mut app, 120, 12).backend());
    assert!(screen.contains(&format!("error: {msg}")), "{screen}");
}

/// Issue 39: `ctrl-w` at 200 columns left LABELS off screen (the widths remembered from rows
/// seen earlier kept the narrow layout's columns wide) and NODE stayed cut after wide mode
/// was turned off. Each toggle lays the table out again from the rows on screen.
#[test]
fn wide_mode_lays_the_table_out_again_so_labels_fit_and_node_is_whole_after() {
    let (mut app, v) = app_demo(config());
    // A row with a long name and status once on screen: their widths are remembered while
    // scrolling, and stay after the row is gone (NODE no longer fits whole).
    let long = pod(PodSpec {
        name: "a-pod-with-a-very-long-generated-name-from-its-job-and-its-hash",
        status: "CreateContainerConfigError-with-a-much-longer-reason",
        node: "ip-10-0-128-15.eu-west-1.compute.internal",
        ..PodSpec::default()
    });
    let fine = pod(PodSpec {
        name: "api-5f6d8-q9wt",
        labels: &[("app", "api")],
        node: "ip-10-0-128-15.eu-west-1.compute.internal",
        ..PodSpec::default()
    });
    app.update(Action::Rows {
        view: v,
        upserts: vec![long.clone(), fine.clone()],
        deletes: vec![],
    });
    // (185 columns: NODE ranks before the usage columns, so it is cut only this narrow.)
    draw(&mut app, 185, 24);
    app.update(Action::Rows {
        view: v,
        upserts: vec![],
        deletes: vec![long.key.clone()],
    });
    // Past its linger as a deleted row.
    app.update(Action::Tick(NOW_MS + 10));
    app.update(Action::Tick(NOW_MS + 5_000));
    assert!(!shown(&app, v).contains(&long.key.to_string()));
    let before = format!("{:?}", draw(&mut app, 185, 24).backend());
    assert!(
        !before.contains("ip-10-0-128-15.eu-west-1.compute.internal"),
        "the scenario: NODE cut by the remembered widths: {before}"
    );
    app.update(ctrl('w'));
    let wide = format!("{:?}", draw(&mut app, 185, 24).backend());
    assert!(
        wide.contains("LABELS") && wide.contains("app=api"),
        "{wide}"
    );
    app.update(ctrl('w'));
    let narrow = format!("{:?}", draw(&mut app, 185, 24).backend());
    assert!(
        narrow.contains("ip-10-0-128-15.eu-west-1.compute.internal"),
        "NODE whole: {narrow}"
    );
}

/// Issue 39: in wide mode the columns that do not fit are left out by priority: the kind's
/// own, then the wide ones asked for (LABELS), then the usage columns; not the rightmost ones,
/// which put LABELS off screen.
#[test]
fn wide_mode_keeps_labels_and_leaves_out_usage_columns_that_do_not_fit() {
    let (mut app, _) = app_demo(config());
    let narrow = format!("{:?}", draw(&mut app, 110, 24).backend());
    assert!(
        narrow.contains("%CPU/R"),
        "usage shown while not wide: {narrow}"
    );
    app.update(ctrl('w'));
    let wide = format!("{:?}", draw(&mut app, 110, 24).backend());
    assert!(
        wide.contains("LABELS") && wide.contains("app=web,tier=frontend"),
        "{wide}"
    );
    assert!(wide.contains("NODE") && !wide.contains("%MEM/L"), "{wide}");
}

#[test]
fn containers_table_marks_init_and_ephemeral_containers() {
    let (mut app, _) = app_demo(config());
    let fx = app.update(code(KeyCode::Enter));
    let Some(kinformer::ui::Effect::FetchPodContainers { namespace, pod }) = fx.first().cloned()
    else {
        panic!("{fx:?}")
    };
    app.update(Action::PodContainers {
        namespace,
        pod,
        result: Ok(shop_containers()),
    });
    app.update(key('j'));
    insta::assert_snapshot!(draw(&mut app, 160, 14).backend());
}

#[test]
fn a_narrow_containers_table_leaves_out_usage_columns_before_cutting_image_or_state() {
    let (mut app, _) = app_demo(config());
    let fx = app.update(code(KeyCode::Enter));
    let Some(kinformer::ui::Effect::FetchPodContainers { namespace, pod }) = fx.first().cloned()
    else {
        panic!("{fx:?}")
    };
    app.update(Action::PodContainers {
        namespace,
        pod,
        result: Ok(shop_containers()),
    });
    let text = format!("{:?}", draw(&mut app, 100, 14).backend());
    assert!(
        text.contains("shop/migrate:2") && text.contains("CrashLoopBackOff"),
        "{text}"
    );
    assert!(!text.contains("%MEM/L"), "{text}");
    assert!(text.contains("RESTARTS") && text.contains("AGE"), "{text}");
}

/// `--demo --demo-pods 60000`: the dashboard draws at once, the footer saying how far the demo
/// cluster's seed has come (the table fills as the informer sees the objects stored).
#[test]
fn the_demo_clusters_seeding_progress_is_the_footer_line_from_the_first_frame() {
    let (mut app, _) = app_demo(config());
    let seeding = |percent, seeded| {
        Action::DemoSeeding(kinformer::ui::action::DemoSeeding {
            pods: 60_000,
            percent,
            seeded,
        })
    };
    app.update(seeding(40, None));
    // The start-up banner does not hide it; an error does, until a key.
    app.update(Action::Notify {
        message: "demo cluster at http://127.0.0.1:1234".into(),
        error: false,
    });
    insta::assert_snapshot!(draw(&mut app, 100, 24).backend());
    app.update(Action::Notify {
        message: "boom".into(),
        error: true,
    });
    let text = format!("{:?}", draw(&mut app, 100, 24).backend());
    assert!(text.contains("boom") && !text.contains("seeding"), "{text}");
    app.update(key('j'));
    let text = format!("{:?}", draw(&mut app, 100, 24).backend());
    assert!(
        text.contains("demo cluster: seeding 60,000 pods… 40%"),
        "{text}"
    );
    // Done: the line leaves the footer.
    app.update(seeding(100, Some(81_234)));
    let text = format!("{:?}", draw(&mut app, 100, 24).backend());
    assert!(!text.contains("seeding"), "{text}");
}
