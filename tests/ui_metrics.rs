//! Issue 14 in the dashboard: the usage columns of the pods and nodes tables fed by metrics
//! polls, the metrics-unavailable path, sorting by usage, and the `:pulse` screen (its feeds,
//! its tiles, Enter on a tile). `App::update` tests and TestBackend snapshots.

mod ui_support;

use std::collections::HashMap;
use std::sync::Arc;

use crossterm::event::KeyCode;
use kinformer::render::metrics::Usage;
use kinformer::ui::action::{Action, Effect, InformerState, NodePods, ObjectSummary, ViewId};
use kinformer::ui::app::Screen;
use kinformer::ui::metrics::{MetricsScope, MetricsUpdate, Unavailable};
use kinformer::ui::table::SortBy;
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::DynamicObject;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use serde_json::json;
use ui_support::*;

fn summary(kind: &str, v: serde_json::Value) -> ObjectSummary {
    let obj: DynamicObject = serde_json::from_value(v).expect("object");
    ObjectSummary::from_object(kind, &Arc::new(obj), None).expect("named")
}

/// A running pod with one container's requests and limits (`None`: not set).
fn pod_with(name: &str, req: (&str, &str), lim: Option<(&str, &str)>) -> ObjectSummary {
    let mut resources = json!({"requests": {"cpu": req.0, "memory": req.1}});
    if let Some((cpu, mem)) = lim {
        resources["limits"] = json!({"cpu": cpu, "memory": mem});
    }
    summary(
        "Pod",
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
                "creationTimestamp": "2026-11-25T11:00:00Z"},
            "spec": {"nodeName": "node-1", "containers": [{"name": "app", "resources": resources}]},
            "status": {"phase": "Running", "podIP": "10.0.0.7",
                "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                    "state": {"running": {}}}]}
        }),
    )
}

fn node(name: &str, cpu: &str, mem: &str) -> ObjectSummary {
    summary(
        "Node",
        json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": format!("uid-{name}"),
                "creationTimestamp": "2026-11-22T12:00:00Z"},
            "status": {"allocatable": {"cpu": cpu, "memory": mem, "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True"}],
                "nodeInfo": {"kubeletVersion": "v1.33.1"}}
        }),
    )
}

fn pods() -> Vec<ObjectSummary> {
    vec![
        pod_with("api", ("500m", "256Mi"), Some(("1", "512Mi"))),
        pod_with("web", ("100m", "64Mi"), None),
        pod_with("batch", ("1", "1Gi"), Some(("2", "2Gi"))),
    ]
}

fn usage(items: &[(&str, u64, u64)]) -> Arc<HashMap<String, Usage>> {
    Arc::new(
        items
            .iter()
            .map(|(k, cpu_m, mem_mi)| {
                (
                    k.to_string(),
                    Usage {
                        cpu_n: cpu_m * 1_000_000,
                        mem: mem_mi << 20,
                    },
                )
            })
            .collect(),
    )
}

fn pod_poll() -> Action {
    Action::Metrics(MetricsUpdate::Usage {
        scope: MetricsScope::Pods(Some("default".into())),
        usage: usage(&[
            ("default/api", 460, 200),
            ("default/web", 20, 40),
            ("default/batch", 950, 1900),
        ]),
    })
}

fn draw(app: &mut App, w: u16, h: u16) -> Terminal<TestBackend> {
    app.update(Action::Resize(w, h));
    let app = &*app;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal
        .draw(|f| f.render_widget(app, f.area()))
        .expect("draw");
    terminal
}

fn screen_text(t: &Terminal<TestBackend>) -> String {
    let buf = t.backend().buffer();
    let mut s = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            s.push_str(buf[(x, y)].symbol());
        }
        s.push('\n');
    }
    s
}

fn usage_cells(app: &App, view: ViewId) -> Vec<String> {
    let t = draw(&mut app.clone(), 160, 12);
    let text = screen_text(&t);
    let v = &app.views[&view];
    v.table
        .list()
        .iter()
        .map(|k| {
            let name = k.rsplit('/').next().unwrap_or(k).to_string();
            let line = text
                .lines()
                .find(|l| l.contains(&format!("│{name} ")) || l.contains(&format!(" {name} ")))
                .unwrap_or_default()
                .to_string();
            line.split_whitespace()
                .filter(|w| *w != "│")
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn opening_a_pods_view_asks_for_pod_metrics_of_its_namespace() {
    let mut app = App::new(config(), KeyMap::defaults().expect("keys"));
    let fx = app.init();
    let first = opened(&fx)[0].0;
    assert!(fx.contains(&Effect::WatchMetrics {
        view: first,
        scope: MetricsScope::Pods(Some("default".into())),
    }));
    // The namespaces view shows no usage and asks for none.
    let watches = fx
        .iter()
        .filter(|e| matches!(e, Effect::WatchMetrics { .. }))
        .count();
    assert_eq!(watches, 1);
    // :no opens nodes, which poll node metrics.
    let fx = type_str(&mut app, ":no");
    let fx2 = app.update(code(KeyCode::Enter));
    let all: Vec<&Effect> = fx.iter().chain(&fx2).collect();
    assert!(all.iter().any(|e| matches!(
        e,
        Effect::WatchMetrics {
            scope: MetricsScope::Nodes,
            ..
        }
    )));
    assert!(all.contains(&&Effect::CloseView { view: first }));
}

#[test]
fn metrics_update_fills_the_usage_cells_and_redraws_once() {
    let (mut app, v) = app_with(config(), pods());
    let before = usage_cells(&app, v);
    assert!(
        before[0].contains("n/a n/a n/a n/a n/a n/a"),
        "before a poll: {before:?}"
    );
    app.take_dirty();
    app.update(pod_poll());
    assert!(app.take_dirty(), "a poll redraws the pods table");
    let after = usage_cells(&app, v);
    // api: 460m of 500m request (92%) and 1 limit (46%); 200Mi of 256Mi (78%) and 512Mi (39%).
    assert!(after[0].contains("460 200 92 46 78 39"), "{after:?}");
    // web: no limits → n/a in the limit columns.
    let web = after.iter().find(|l| l.contains("web")).expect("web row");
    assert!(web.contains("20 40 20 n/a 62 n/a"), "{web:?}");
}

#[test]
fn usage_cells_over_80_and_90_percent_are_coloured() {
    let (mut app, _) = app_with(config(), pods());
    app.update(pod_poll());
    let t = draw(&mut app, 160, 12);
    let text = screen_text(&t);
    let buf = t.backend().buffer();
    let (y, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("api "))
        .expect("api row");
    // "92" (%CPU/R of api) is critical: red.
    let x = line.find(" 92 ").expect("92 cell") + 1;
    let x = line[..x].chars().count() as u16;
    assert_eq!(buf[(x, y as u16)].fg, Color::Red);
}

#[test]
fn metrics_unavailable_says_why_once_and_cells_stay_na() {
    let (mut app, v) = app_with(config(), pods());
    app.update(Action::Metrics(MetricsUpdate::Unavailable(
        Unavailable::NotServed,
    )));
    let msg = app.message.clone().expect("footer says why");
    assert!(msg.0.contains("no metrics-server"), "{msg:?}");
    let cells = usage_cells(&app, v);
    assert!(cells[0].contains("n/a n/a n/a n/a n/a n/a"), "{cells:?}");
    // The table's bottom border keeps saying why while it lasts.
    let text = screen_text(&draw(&mut app.clone(), 160, 12));
    assert!(
        text.lines()
            .any(|l| l.starts_with("└") && l.contains("metrics.k8s.io is not served")),
        "{text}"
    );
    // A key acknowledges it; the same reason again does not repeat it.
    app.update(key('j'));
    assert!(app.message.is_none());
    app.update(Action::Metrics(MetricsUpdate::Unavailable(
        Unavailable::NotServed,
    )));
    assert!(app.message.is_none(), "said once");
    assert!(
        app.metrics_unavailable
            .as_deref()
            .is_some_and(|m| m.contains("not served"))
    );
    // Metrics come back: cells fill, the reason is gone.
    app.update(pod_poll());
    assert!(app.metrics_unavailable.is_none());
    assert!(usage_cells(&app, v)[0].contains("460 200 92 46 78 39"));
}

#[test]
fn sort_cpu_key_orders_pods_by_usage_and_follows_the_next_poll() {
    let (mut app, v) = app_with(config(), pods());
    app.update(pod_poll());
    app.update(key('C'));
    assert_eq!(app.views[&v].table.sort(), (SortBy::Joined(0), true));
    assert_eq!(
        shown(&app, v),
        ["default/batch", "default/api", "default/web"],
        "the most CPU on top first, as in k9s"
    );
    app.update(key('C'));
    assert_eq!(
        shown(&app, v),
        ["default/web", "default/api", "default/batch"],
        "again: ascending"
    );
    app.update(key('C'));
    // The next poll re-sorts: web now uses the most.
    app.update(Action::Metrics(MetricsUpdate::Usage {
        scope: MetricsScope::Pods(Some("default".into())),
        usage: usage(&[
            ("default/api", 10, 200),
            ("default/web", 3000, 40),
            ("default/batch", 5, 1900),
        ]),
    }));
    assert_eq!(
        shown(&app, v),
        ["default/web", "default/api", "default/batch"]
    );
    // M sorts by memory, the most on top first.
    app.update(key('M'));
    assert_eq!(app.views[&v].table.sort(), (SortBy::Joined(1), true));
    assert_eq!(
        shown(&app, v),
        ["default/batch", "default/api", "default/web"]
    );
}

#[test]
fn sort_next_reaches_the_usage_columns() {
    let (mut app, v) = app_with(config(), pods());
    app.update(pod_poll());
    // In the order on screen: NAME (key) → READY, STATUS, RESTARTS, AGE → CPU ... → IP, NODE.
    let before_ip = app.views[&v]
        .columns
        .iter()
        .position(|c| c.name == "IP")
        .expect("an IP column");
    for _ in 0..before_ip {
        app.update(key('>'));
    }
    assert_eq!(app.views[&v].table.sort().0, SortBy::Joined(0));
    assert_eq!(
        shown(&app, v),
        ["default/web", "default/api", "default/batch"]
    );
    // After the six usage columns, IP; `<` steps back onto the last usage column.
    for _ in 0..6 {
        app.update(key('>'));
    }
    assert_eq!(app.views[&v].table.sort().0, SortBy::Cell(before_ip));
    app.update(key('<'));
    assert_eq!(app.views[&v].table.sort().0, SortBy::Joined(5));
}

fn app_with_nodes() -> (App, ViewId) {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, v) = app_with(
        cfg,
        vec![
            node("node-1", "4", "16Gi"),
            node("node-2", "4", "16Gi"),
            node("node-3", "8", "32Gi"),
        ],
    );
    app.update(Action::Metrics(MetricsUpdate::Usage {
        scope: MetricsScope::Nodes,
        usage: usage(&[("node-1", 3700, 8192), ("node-2", 3300, 15000)]),
    }));
    app.update(node_pods(&[("node-1", 12), ("node-2", 104)]));
    (app, v)
}

fn node_pods(counts: &[(&str, u64)]) -> Action {
    Action::NodePods(NodePods::Counts(Arc::new(
        counts.iter().map(|(n, c)| (n.to_string(), *c)).collect(),
    )))
}

#[test]
fn nodes_view_asks_for_pods_per_node_and_shows_used_of_allocatable() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let mut app = App::new(cfg, KeyMap::defaults().expect("keys"));
    let fx = app.init();
    let nodes = opened(&fx)
        .into_iter()
        .find(|(_, plural, _)| plural == "nodes")
        .expect("nodes view")
        .0;
    assert!(fx.iter().any(|e| matches!(
        e,
        Effect::WatchNodePods { view, pods } if *view == nodes && pods.api_resource.plural == "pods"
    )));
    let (mut app, v) = app_with_nodes();
    let cells = usage_cells(&app, v);
    // node-2 is over 90% of its 110 pods; node-3 has none counted (0, not n/a: counted).
    assert!(cells[0].contains("12/110 3700"), "{cells:?}");
    assert!(cells[1].contains("104/110 3300"), "{cells:?}");
    assert!(cells[2].contains("0/110 n/a"), "{cells:?}");
    let _ = app.take_dirty();
    app.update(node_pods(&[
        ("node-1", 12),
        ("node-2", 104),
        ("node-3", 50),
    ]));
    assert!(app.take_dirty(), "new counts redraw the nodes table");
    // Pods forbidden across namespaces: the column says n/a and the footer says why once.
    app.update(Action::NodePods(NodePods::Unavailable(
        "pods is forbidden: User \"jane\" cannot list resource \"pods\"".into(),
    )));
    let cells = usage_cells(&app, v);
    assert!(cells[0].contains("n/a 3700"), "{cells:?}");
    assert!(screen_text(&draw(&mut app, 160, 12)).contains("PODS n/a: pods is forbidden"));
}

#[test]
fn nodes_table_with_usage() {
    let (mut app, v) = app_with_nodes();
    let cells = usage_cells(&app, v);
    assert!(cells[0].contains("3700 8192 92 50"), "{cells:?}");
    assert!(
        cells[2].contains("n/a n/a n/a n/a"),
        "no metrics: {cells:?}"
    );
    insta::assert_snapshot!(draw(&mut app, 110, 10).backend());
}

#[test]
fn pods_table_with_usage() {
    let (mut app, _) = app_with(config(), pods());
    app.update(pod_poll());
    insta::assert_snapshot!(draw(&mut app, 140, 10).backend());
}

// ------------------------------------------------------------------ pulse

/// The pulse opened from a pods view: its feeds by plural.
fn open_pulse(app: &mut App) -> HashMap<String, ViewId> {
    let fx = type_str(app, ":pulse");
    let fx2 = app.update(code(KeyCode::Enter));
    let all: Vec<Effect> = fx.into_iter().chain(fx2).collect();
    let feeds: HashMap<String, ViewId> = opened(&all)
        .into_iter()
        .map(|(id, plural, _)| (plural, id))
        .collect();
    assert!(all.contains(&Effect::WatchMetrics {
        view: feeds["nodes"],
        scope: MetricsScope::Nodes,
    }));
    feeds
}

#[test]
fn pulse_opens_its_informer_feeds_and_closes_them_when_it_closes() {
    let (mut app, v) = app_with(config(), pods());
    let feeds = open_pulse(&mut app);
    let mut plurals: Vec<&str> = feeds.keys().map(String::as_str).collect();
    plurals.sort_unstable();
    assert_eq!(plurals, ["deployments", "events", "jobs", "nodes", "pods"]);
    assert!(matches!(app.current_screen(), Some(Screen::Pulse)));
    // The feeds are not tables.
    assert!(feeds.values().all(|id| !app.views.contains_key(id)));
    // Esc closes the pulse: every feed closes, the pods view under it stays.
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
    assert!(app.pulse.is_none());
    assert_eq!(app.current_view_id(), Some(v));
    // Rows for a closed feed change nothing.
    app.update(Action::Rows {
        view: feeds["pods"],
        upserts: pods(),
        deletes: vec![],
    });
    assert_eq!(shown(&app, v).len(), 3);
}

#[test]
fn pulse_counts_the_rows_of_its_feeds() {
    let (mut app, _) = app_with(config(), pods());
    let feeds = open_pulse(&mut app);
    app.update(Action::Rows {
        view: feeds["pods"],
        upserts: pods(),
        deletes: vec![],
    });
    app.update(Action::Resync {
        view: feeds["nodes"],
        rows: vec![node("node-1", "4", "16Gi")],
    });
    let p = app.pulse.as_ref().expect("pulse open");
    assert_eq!((p.pulse.counts().pods, p.pulse.counts().nodes), (3, 1));
    app.update(Action::Rows {
        view: feeds["pods"],
        upserts: vec![],
        deletes: vec!["default/web".into()],
    });
    let p = app.pulse.as_ref().expect("pulse open");
    assert_eq!(p.pulse.counts().pods, 2);
}

/// Issue 39: Enter on a tile opens its list filtered to what is wrong (the README's promise),
/// not the whole list.
#[test]
fn enter_on_a_pulse_tile_opens_its_list_filtered_to_what_is_wrong_and_esc_returns() {
    let (mut app, _) = app_with(config(), pods());
    open_pulse(&mut app);
    // The pods tile: a pods view with only the faulty rows.
    let fx = app.update(code(KeyCode::Enter));
    let views = opened(&fx);
    assert_eq!(views[0].1, "pods");
    let rows = vec![
        simple_pod("default", "fine"),
        pod(PodSpec {
            name: "crashing",
            status: "CrashLoopBackOff",
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "waiting",
            status: "Pending",
            ..PodSpec::default()
        }),
    ];
    app.update(Action::Store {
        view: views[0].0,
        store: store_of(&rows),
    });
    app.update(Action::Resync {
        view: views[0].0,
        rows,
    });
    assert!(app.views[&views[0].0].table.filters.faults);
    assert_eq!(
        shown(&app, views[0].0),
        ["default/crashing", "default/waiting"]
    );
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Pulse)));
    // Tiles: pods, deployments, nodes, jobs, events. Two down: nodes.
    app.update(key('j'));
    app.update(key('j'));
    let fx = app.update(code(KeyCode::Enter));
    let views = opened(&fx);
    assert_eq!(views.len(), 1, "{fx:?}");
    assert_eq!(views[0].1, "nodes");
    assert!(matches!(app.current_screen(), Some(Screen::Table(id)) if *id == views[0].0));
    assert!(app.views[&views[0].0].table.filters.faults);
    // Back on the pulse: the nodes view closes, the pulse's feeds stay.
    let fx = app.update(code(KeyCode::Esc));
    assert_eq!(fx, vec![Effect::CloseView { view: views[0].0 }]);
    assert!(matches!(app.current_screen(), Some(Screen::Pulse)));
    // Events tile: opens events filtered to warnings.
    app.update(key('j'));
    app.update(key('j'));
    let fx = app.update(code(KeyCode::Enter));
    let views = opened(&fx);
    assert_eq!(views[0].1, "events");
    assert_eq!(
        app.views[&views[0].0].table.filters.text_raw.as_str(),
        "Warning"
    );
}

#[test]
fn pulse_key_opens_the_pulse_from_a_view_above_returns_to_it_and_on_it_closes_it() {
    let (mut app, _) = app_with(config(), pods());
    let fx = app.update(key('P'));
    assert_eq!(opened(&fx).len(), 5);
    assert!(matches!(app.current_screen(), Some(Screen::Pulse)));
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
    // P again goes back to the open pulse, opening nothing new.
    let fx = app.update(key('P'));
    assert!(opened(&fx).is_empty(), "{fx:?}");
    assert!(matches!(app.current_screen(), Some(Screen::Pulse)));
    assert_eq!(
        app.stack
            .iter()
            .filter(|s| matches!(s, Screen::Pulse))
            .count(),
        1
    );
    // On the pulse, P closes it (its feeds with it), as esc does.
    let fx = app.update(key('P'));
    assert!(app.pulse.is_none());
    assert!(!matches!(app.current_screen(), Some(Screen::Pulse)));
    assert_eq!(
        fx.iter()
            .filter(|e| matches!(e, Effect::CloseView { .. }))
            .count(),
        5,
        "{fx:?}"
    );
}

#[test]
fn pulse_rows_wait_for_the_second_tick_to_redraw() {
    let (mut app, _) = app_with(config(), pods());
    let feeds = open_pulse(&mut app);
    app.take_dirty();
    app.update(Action::Rows {
        view: feeds["pods"],
        upserts: pods(),
        deletes: vec![],
    });
    assert!(!app.take_dirty(), "rows alone do not redraw the pulse");
    app.update(Action::Tick(NOW_MS + 1000));
    assert!(app.take_dirty(), "the second's tick does");
}

fn crashing_pod() -> ObjectSummary {
    summary(
        "Pod",
        json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "api-crash", "namespace": "default", "uid": "uid-crash",
                "creationTimestamp": "2026-11-25T11:00:00Z"},
            "spec": {"nodeName": "node-2", "containers": [{"name": "app"}]},
            "status": {"phase": "Running",
                "containerStatuses": [{"name": "app", "ready": false, "restartCount": 7,
                    "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}
        }),
    )
}

fn warning_event() -> ObjectSummary {
    summary(
        "Event",
        json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "api-crash.1", "namespace": "default", "uid": "uid-ev",
                "creationTimestamp": "2026-11-25T11:58:00Z"},
            "type": "Warning", "reason": "BackOff", "count": 12,
            "lastTimestamp": "2026-11-25T11:59:30Z",
            "message": "Back-off restarting failed container app",
            "involvedObject": {"kind": "Pod", "name": "api-crash", "namespace": "default"}
        }),
    )
}

#[test]
fn pulse_shows_the_rates_sampled_before_it_was_opened() {
    let (mut app, _) = app_with(config(), pods());
    let stats = |total: u64| {
        let mut row = informer_row("pods", None, InformerState::Watching);
        row.deltas_total = total;
        Action::InformerStats(vec![row])
    };
    // Three seconds of stats while the pods table is on screen, the pulse closed.
    for (s, total) in [(1, 10), (2, 50), (3, 90), (4, 135)] {
        app.update(Action::Tick(NOW_MS + s * 1000));
        app.update(stats(total));
    }
    open_pulse(&mut app);
    let t = draw(&mut app, 120, 34);
    let line = screen_text(&t)
        .lines()
        .find(|l| l.contains("│pods "))
        .expect("pods sparkline")
        .to_string();
    // The last second's rate, and a sparkline of the three seconds before the pulse opened.
    assert!(line.contains("45/s"), "{line}");
    let bars = line.chars().filter(|c| ('▁'..='█').contains(c)).count();
    assert!(bars >= 3, "{line}");
}

#[test]
fn pulse_sparklines_take_one_sample_a_second_however_often_stats_arrive() {
    let (mut app, _) = app_with(config(), pods());
    open_pulse(&mut app);
    let stats = |total: u64| {
        let mut row = informer_row("pods", None, InformerState::Watching);
        row.deltas_total = total;
        Action::InformerStats(vec![row])
    };
    // Second 1: the first sample (the baseline), then stats with every frame: not sampled.
    app.update(Action::Tick(NOW_MS + 1000));
    app.update(stats(100));
    app.update(stats(130));
    app.update(stats(160));
    // Second 2: one sample holding the 60 deltas since the baseline.
    app.update(Action::Tick(NOW_MS + 2000));
    app.update(stats(160));
    let t = draw(&mut app, 120, 34);
    let line = screen_text(&t)
        .lines()
        .find(|l| l.contains("│pods "))
        .expect("pods sparkline")
        .to_string();
    assert!(line.contains("60/s"), "{line}");
}

#[test]
fn pulse_screen() {
    let (mut app, _) = app_with(config(), pods());
    let feeds = open_pulse(&mut app);
    let mut rows = pods();
    rows.push(crashing_pod());
    app.update(Action::Rows {
        view: feeds["pods"],
        upserts: rows,
        deletes: vec![],
    });
    app.update(Action::Rows {
        view: feeds["events"],
        upserts: vec![warning_event()],
        deletes: vec![],
    });
    app.update(Action::Rows {
        view: feeds["nodes"],
        upserts: vec![node("node-1", "4", "16Gi"), node("node-2", "4", "16Gi")],
        deletes: vec![],
    });
    app.update(Action::Metrics(MetricsUpdate::Usage {
        scope: MetricsScope::Nodes,
        usage: usage(&[("node-1", 3000, 8192), ("node-2", 1000, 4096)]),
    }));
    for s in 1..=3u64 {
        let mut row = informer_row("pods", Some("default"), InformerState::Watching);
        row.deltas_total = 1234 + s * 10;
        app.update(Action::Tick(NOW_MS + 1000 * s as i64));
        app.update(Action::InformerStats(vec![row]));
    }
    insta::assert_snapshot!(draw(&mut app, 120, 34).backend());
}

/// With the usage columns, the columns that do not fit whole are left out from the right, but
/// the first of them is still shown cut to the room left when that is 8 characters or more (a
/// STATUS one character wider used to drop NODE).
#[test]
fn the_last_column_that_does_not_fit_whole_is_cut_rather_than_dropped() {
    // Nodes named as on a cloud provider: a long NODE column.
    let node = "ip-10-0-64-11.eu-west-1.compute.internal";
    let (mut app, v) = app_with(config(), pods());
    let at = app.views[&v]
        .columns
        .iter()
        .position(|c| c.name == "NODE")
        .expect("a NODE column");
    let rows: Vec<ObjectSummary> = pods()
        .into_iter()
        .map(|mut p| {
            p.row.cells[at] = kinformer::render::Cell::Text(node.into());
            p
        })
        .collect();
    app.update(Action::Rows {
        view: v,
        upserts: rows,
        deletes: vec![],
    });
    app.update(pod_poll());
    let header_at = |app: &mut App, w: u16| {
        let text = screen_text(&draw(app, w, 12));
        text.lines()
            .find(|l| l.contains("NAME"))
            .unwrap_or_default()
            .to_string()
    };
    // The full table's width: where its NODE column's values end at a wide screen.
    let wide = screen_text(&draw(&mut app, 300, 12));
    let full = wide
        .lines()
        .filter_map(|l| l.find(node).map(|i| l[..i].chars().count() + node.len()))
        .max()
        .expect("node values shown");
    // Three characters short of it: NODE cut, still there.
    let header = header_at(&mut app, (full + 1 - 3) as u16);
    assert!(header.contains("NODE"), "{header}");
    // Shorter: the usage columns are left out before NODE (a narrow pods table keeps IP and
    // NODE, issue 41).
    let header = header_at(&mut app, (full + 1 - 40) as u16);
    assert!(header.contains("NODE") && header.contains("IP"), "{header}");
    assert!(!header.contains("%MEM/L"), "{header}");
}

/// Issue 41: at 100×30 with `-A` and long pod names, NAME and NAMESPACE are cut so that IP and
/// NODE still show (NODE cut to the room left); the usage columns are the ones left out.
#[test]
fn at_100_columns_with_all_namespaces_long_names_give_way_to_ip_and_node() {
    let node = "ip-10-0-64-11.eu-west-1.compute.internal";
    let long = [
        ("ingress-nginx", "ingress-nginx-controller-26j56jcgfb-xbd4t"),
        (
            "monitoring",
            "kube-prometheus-stack-operator-7d9f8b6c5d-q2w3e",
        ),
        ("payments", "payment-gateway-v78scnqt9-cxx9q"),
    ];
    let rows: Vec<ObjectSummary> = long
        .iter()
        .map(|(ns, name)| {
            summary(
                "Pod",
                json!({
                    "apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}"),
                        "creationTimestamp": "2026-11-25T11:00:00Z"},
                    "spec": {"nodeName": node, "containers": [{"name": "app",
                        "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}}]},
                    "status": {"phase": "Running", "podIP": "10.244.17.203",
                        "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0,
                            "state": {"running": {}}}]}
                }),
            )
        })
        .collect();
    let (mut app, _) = app_with(
        kinformer::ui::AppConfig {
            namespace: None,
            ..config()
        },
        rows,
    );
    app.update(Action::Metrics(MetricsUpdate::Usage {
        scope: MetricsScope::Pods(None),
        usage: usage(&[
            (
                "ingress-nginx/ingress-nginx-controller-26j56jcgfb-xbd4t",
                12,
                90,
            ),
            (
                "monitoring/kube-prometheus-stack-operator-7d9f8b6c5d-q2w3e",
                30,
                120,
            ),
            ("payments/payment-gateway-v78scnqt9-cxx9q", 5, 33),
        ]),
    }));
    let t = draw(&mut app, 100, 30);
    let text = screen_text(&t);
    let header = text
        .lines()
        .find(|l| l.contains("NAME"))
        .unwrap_or_default();
    assert!(
        header.contains("NAMESPACE") && header.contains("IP") && header.contains("NODE"),
        "{header}"
    );
    assert!(text.contains("10.244.17.203"), "{text}");
    assert!(text.contains("ip-10-0-64"), "NODE shown, cut: {text}");
    insta::assert_snapshot!(t.backend());
}
