//! Merged tables (several clusters selected): rows keyed (cluster, key) so same-named objects
//! of two clusters are two rows, a CLUSTER column first, sorting and the text filter over the
//! union, the label filter answered by each member's label index, every effect aimed at a row
//! wrapped for that row's cluster, read-only per cluster, and a member that is down keeping its
//! rows dimmed with the title saying so.

mod ui_support;

use std::sync::Arc;

use crossterm::event::KeyCode;
use kinformer::ui::action::{
    Action, ClusterHealth, ConnectionState, Effect, ObjectSummary, ViewId, cluster_key,
};
use kinformer::ui::app::Mode;
use kinformer::ui::operate::Operation;
use kinformer::ui::table::SortBy;
use kinformer::ui::{App, AppConfig};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ui_support::*;

const FLEET: [&str; 2] = ["prod-eu", "prod-us"];

fn fleet_config() -> AppConfig {
    AppConfig {
        context: "prod-eu".into(),
        fleet: FLEET.iter().map(|s| s.to_string()).collect(),
        ..config()
    }
}

/// `s` as a row of `cluster` in a merged view.
fn on(cluster: &str, s: ObjectSummary) -> ObjectSummary {
    ObjectSummary {
        key: cluster_key(cluster, &s.key),
        ..s
    }
}

fn labelled(ns: &str, name: &str, app: &str) -> ObjectSummary {
    pod(PodSpec {
        ns,
        name,
        labels: &[("app", app)],
        ..PodSpec::default()
    })
}

/// A merged pods view fed by both members: prod-eu has `a` and `b`, prod-us has `a` and `c`.
fn merged_app(cfg: AppConfig) -> (App, ViewId) {
    let (mut app, view) = app_with(cfg, Vec::new());
    app.update(Action::Connection(ConnectionState {
        context: "prod-eu".into(),
        server_version: Some("v1.33.0".into()),
        reachable: true,
        retry_at_ms: None,
        last_error: None,
    }));
    let eu = vec![
        labelled("default", "a", "web"),
        labelled("default", "b", "db"),
    ];
    let us = vec![
        labelled("default", "a", "web"),
        labelled("default", "c", "web"),
    ];
    for (cluster, rows) in [("prod-eu", &eu), ("prod-us", &us)] {
        app.update(Action::MemberStore {
            view,
            cluster: Arc::from(cluster),
            store: store_of(rows),
        });
        app.update(Action::Rows {
            view,
            upserts: rows.iter().cloned().map(|s| on(cluster, s)).collect(),
            deletes: Vec::new(),
        });
    }
    (app, view)
}

fn k(cluster: &str, key: &str) -> String {
    cluster_key(cluster, key).to_string()
}

fn select(app: &mut App, view: ViewId, key: &str) {
    let i = shown(app, view)
        .iter()
        .position(|s| s == key)
        .expect("row shown");
    app.views.get_mut(&view).unwrap().table.select_index(i);
}

#[test]
fn same_named_objects_of_two_clusters_are_two_rows_sorted_over_the_union() {
    let (mut app, view) = merged_app(fleet_config());
    assert_eq!(
        shown(&app, view),
        [
            k("prod-eu", "default/a"),
            k("prod-eu", "default/b"),
            k("prod-us", "default/a"),
            k("prod-us", "default/c"),
        ]
    );
    // Deleting prod-us's `a` leaves prod-eu's.
    app.update(Action::Rows {
        view,
        upserts: Vec::new(),
        deletes: vec![cluster_key("prod-us", "default/a")],
    });
    let gone = &app.views[&view].table;
    assert!(
        gone.entry(&k("prod-us", "default/a")).unwrap().mark == kinformer::ui::table::Mark::Deleted
    );
    assert!(
        gone.entry(&k("prod-eu", "default/a")).unwrap().mark != kinformer::ui::table::Mark::Deleted
    );
    app.update(Action::Tick(NOW_MS));
    app.update(Action::Tick(NOW_MS + 1_100));
    app.update(Action::Tick(NOW_MS + 2_200));
    assert_eq!(
        shown(&app, view),
        [
            k("prod-eu", "default/a"),
            k("prod-eu", "default/b"),
            k("prod-us", "default/c"),
        ]
    );
}

#[test]
fn the_text_filter_runs_over_the_union_and_matches_the_cluster_name() {
    let (mut app, view) = merged_app(fleet_config());
    app.update(key('/'));
    type_str(&mut app, "prod-us");
    app.update(code(KeyCode::Enter));
    assert_eq!(
        shown(&app, view),
        [k("prod-us", "default/a"), k("prod-us", "default/c")]
    );
    app.update(code(KeyCode::Esc));
    app.update(key('/'));
    type_str(&mut app, "~^a$");
    app.update(code(KeyCode::Enter));
    assert_eq!(
        shown(&app, view),
        [k("prod-eu", "default/a"), k("prod-us", "default/a")]
    );
}

#[test]
fn the_label_filter_asks_each_members_index_and_merges_the_answers() {
    let (mut app, view) = merged_app(fleet_config());
    assert!(app.apply_label_filter(view, "app=web"));
    let lf = app.views[&view].table.filters.label.clone().unwrap();
    assert!(lf.from_index, "answered by the members' label indexes");
    assert_eq!(
        shown(&app, view),
        [
            k("prod-eu", "default/a"),
            k("prod-us", "default/a"),
            k("prod-us", "default/c"),
        ]
    );
}

#[test]
fn effects_aimed_at_a_row_go_to_that_rows_cluster() {
    let (mut app, view) = merged_app(fleet_config());
    select(&mut app, view, &k("prod-us", "default/a"));
    let fx = app.update(key('y'));
    let [Effect::OnCluster { cluster, effect }] = fx.as_slice() else {
        panic!("one routed effect expected, got {fx:?}")
    };
    assert_eq!(cluster, "prod-us");
    let Effect::FetchYaml {
        name, namespace, ..
    } = &**effect
    else {
        panic!("a YAML fetch expected, got {effect:?}")
    };
    assert_eq!(
        (namespace.as_deref(), name.as_str()),
        (Some("default"), "a")
    );
    app.update(code(KeyCode::Esc));

    // A delete: the dialog names prod-us, the write carries it and is routed there.
    select(&mut app, view, &k("prod-us", "default/a"));
    app.update(ctrl('d'));
    let Mode::Confirm(c) = &app.mode else {
        panic!("confirm dialog expected, got {:?}", app.mode)
    };
    assert_eq!(c.cluster.as_deref(), Some("prod-us"));
    let fx = app.update(key('y'));
    let [Effect::OnCluster { cluster, effect }] = fx.as_slice() else {
        panic!("one routed write expected, got {fx:?}")
    };
    assert_eq!(cluster, "prod-us");
    let Effect::Write(w) = &**effect else {
        panic!("a write expected, got {effect:?}")
    };
    assert!(matches!(w.op, Operation::Delete(_)));
    assert_eq!(w.cluster.as_deref(), Some("prod-us"));
    assert_eq!(w.name, "a");

    // The same-named pod of the current context: routed to prod-eu, not left implicit.
    select(&mut app, view, &k("prod-eu", "default/a"));
    let fx = app.update(key('d'));
    assert!(
        matches!(fx.as_slice(), [Effect::OnCluster { cluster, .. }] if cluster == "prod-eu"),
        "{fx:?}"
    );
}

#[test]
fn readonly_follows_the_rows_cluster() {
    let cfg = AppConfig {
        readonly_contexts: Some("prod-us".into()),
        ..fleet_config()
    };
    let (mut app, view) = merged_app(cfg);
    select(&mut app, view, &k("prod-us", "default/c"));
    assert!(app.update(ctrl('d')).is_empty());
    assert!(
        !matches!(app.mode, Mode::Confirm(_)),
        "no dialog for a read-only cluster's row"
    );
    assert!(
        !app.readonly,
        "the current context (prod-eu) stays writable"
    );
    select(&mut app, view, &k("prod-eu", "default/b"));
    app.update(ctrl('d'));
    let Mode::Confirm(c) = &app.mode else {
        panic!("prod-eu's row may be deleted, got {:?}", app.mode)
    };
    assert_eq!(c.cluster.as_deref(), Some("prod-eu"));
}

fn screen(app: &mut App, width: u16, height: u16) -> String {
    app.update(Action::Resize(width, height));
    let app = &*app;
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = terminal.backend().buffer().clone();
    (0..height)
        .map(|y| {
            (0..width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn merged_pods_view_shows_a_cluster_column_first() {
    let (mut app, _) = merged_app(fleet_config());
    app.update(Action::ClusterHealth {
        context: "prod-us".into(),
        health: ClusterHealth::Up {
            version: "v1.33.0".into(),
            kinds: None,
        },
    });
    let text = screen(&mut app, 110, 14);
    assert!(text.contains("CLUSTER"), "{text}");
    assert!(!text.contains("STALE"), "{text}");
    insta::assert_snapshot!(text);
}

/// Key order sorts by cluster first: the arrow is on CLUSTER alone, not also on NAMESPACE (all
/// namespaces) or NAME (one namespace).
#[test]
fn a_merged_table_sorted_by_key_shows_the_arrow_on_the_cluster_column_only() {
    for namespace in [None, Some("default".to_string())] {
        let (mut app, view) = merged_app(AppConfig {
            namespace: namespace.clone(),
            ..fleet_config()
        });
        assert_eq!(app.views[&view].table.sort(), (SortBy::Key, false));
        let text = screen(&mut app, 110, 10);
        let header = text
            .lines()
            .find(|l| l.contains("CLUSTER"))
            .expect("header line");
        assert!(header.contains("CLUSTER↑"), "{header}");
        assert_eq!(header.matches('↑').count(), 1, "{header}");
        if namespace.is_none() {
            assert!(header.contains("NAMESPACE "), "{header}");
            insta::assert_snapshot!(text);
        }
    }
}

#[test]
fn a_member_down_keeps_its_rows_dimmed_and_the_title_names_it() {
    let (mut app, view) = merged_app(fleet_config());
    app.update(Action::ClusterHealth {
        context: "prod-us".into(),
        health: ClusterHealth::Unreachable {
            error: "connection refused".into(),
            retry_at_ms: NOW_MS + 4_000,
        },
    });
    let text = screen(&mut app, 110, 14);
    assert!(text.contains("STALE: prod-us"), "{text}");
    insta::assert_snapshot!(text);
    // Its rows stay, dimmed; prod-eu's are not.
    assert_eq!(shown(&app, view).len(), 4);
    let app_ref = &app;
    let mut terminal = Terminal::new(TestBackend::new(110, 14)).unwrap();
    terminal
        .draw(|f| f.render_widget(app_ref, f.area()))
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    let row_of = |cluster: &str, name: &str| {
        (0..14u16)
            .find(|y| {
                let line: String = (0..110).map(|x| buf[(x, *y)].symbol()).collect();
                line.contains(cluster) && line.contains(&format!(" {name} "))
            })
            .expect("row drawn")
    };
    let dim =
        |y: u16| (0..110u16).any(|x| buf[(x, y)].modifier.contains(ratatui::style::Modifier::DIM));
    assert!(dim(row_of("prod-us", "c")));
    assert!(!dim(row_of("prod-eu", "b")));
}

#[test]
fn a_single_cluster_has_no_cluster_column_and_unchanged_keys() {
    let (mut app, view) = app_with(config(), vec![simple_pod("default", "a")]);
    assert_eq!(shown(&app, view), ["default/a"]);
    let text = screen(&mut app, 110, 10);
    assert!(!text.contains("CLUSTER"), "{text}");
    let fx = app.update(key('y'));
    assert!(
        matches!(fx.as_slice(), [Effect::FetchYaml { .. }]),
        "not wrapped: {fx:?}"
    );
}

#[test]
fn a_drill_down_from_a_merged_row_is_fed_by_that_rows_cluster_only() {
    let cfg = AppConfig {
        resource: "deployments".into(),
        ..fleet_config()
    };
    let (mut app, view) = app_with(cfg, Vec::new());
    for cluster in FLEET {
        let rows = vec![workload("shop", "web", None)];
        app.update(Action::MemberStore {
            view,
            cluster: Arc::from(cluster),
            store: store_of(&rows),
        });
        app.update(Action::Rows {
            view,
            upserts: rows.into_iter().map(|s| on(cluster, s)).collect(),
            deletes: Vec::new(),
        });
    }
    select(&mut app, view, &k("prod-us", "shop/web"));
    let fx = app.update(code(KeyCode::Enter));
    let opened: Vec<(&str, bool)> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::OnCluster { cluster, effect } => match &**effect {
                Effect::OpenResource { drill, .. } => Some((cluster.as_str(), drill.is_some())),
                _ => None,
            },
            Effect::OpenResource { .. } => panic!("a drill-down left unrouted: {fx:?}"),
            _ => None,
        })
        .collect();
    assert!(!opened.is_empty(), "{fx:?}");
    assert!(
        opened
            .iter()
            .all(|(c, drilled)| *c == "prod-us" && *drilled),
        "{opened:?}"
    );
}

#[test]
fn the_pulse_sums_every_cluster_and_breaks_the_counts_down_per_cluster() {
    let (mut app, _) = merged_app(fleet_config());
    app.update(key(':'));
    type_str(&mut app, "pulse");
    let fx = app.update(code(KeyCode::Enter));
    // Its feeds are merged ones (every cluster's objects keyed under it), not the current
    // cluster's alone.
    let feeds: Vec<(ViewId, String)> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::OpenResource {
                view,
                resource,
                drill: None,
                ..
            } => Some((*view, resource.api_resource.plural.clone())),
            _ => None,
        })
        .collect();
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::OnCluster { .. })),
        "{fx:?}"
    );
    let pods_feed = feeds
        .iter()
        .find(|(_, p)| p == "pods")
        .map(|(v, _)| *v)
        .expect("a pods feed");
    // prod-eu: 2 pods, one not ready; prod-us: 3 pods.
    let pod_of = |name: &str, ready: bool| {
        let obj: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c"}]},
            "status": {"phase": "Running", "containerStatuses": [{"name": "c", "ready": ready,
                "restartCount": 0, "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}
        }))
        .unwrap();
        ObjectSummary::from_object("Pod", &Arc::new(obj), None).unwrap()
    };
    app.update(Action::Rows {
        view: pods_feed,
        upserts: vec![
            on("prod-eu", pod_of("a", true)),
            on("prod-eu", pod_of("b", false)),
            on("prod-us", pod_of("a", true)),
            on("prod-us", pod_of("c", true)),
            on("prod-us", pod_of("d", true)),
        ],
        deletes: Vec::new(),
    });
    let text = screen(&mut app, 150, 40);
    assert!(text.contains("Pods 5"), "{text}");
    let line = |cluster: &str| {
        text.lines()
            .find(|l| l.contains(&format!("{cluster}  pods")))
            .unwrap_or_else(|| panic!("no {cluster} line in\n{text}"))
            .to_string()
    };
    assert!(
        line("prod-eu").contains("pods 2") && line("prod-eu").contains("1 not ready"),
        "{text}"
    );
    assert!(
        line("prod-us").contains("pods 3") && !line("prod-us").contains("not ready"),
        "{text}"
    );
    assert!(text.contains("Cluster usage (prod-eu)"), "{text}");
    // A deletion in one cluster leaves the same-named pod of the other.
    app.update(Action::Rows {
        view: pods_feed,
        upserts: Vec::new(),
        deletes: vec![cluster_key("prod-us", "default/a")],
    });
    let text = screen(&mut app, 150, 40);
    assert!(text.contains("Pods 4"), "{text}");
    insta::assert_snapshot!(text);
}

#[test]
fn the_event_log_targets_the_current_cluster_after_a_merged_row_was_selected() {
    let (mut app, view) = merged_app(fleet_config());
    select(&mut app, view, &k("prod-us", "default/a"));
    app.update(key('y'));
    app.update(code(KeyCode::Esc));
    assert_eq!(app.target_cluster.as_deref(), Some("prod-us"));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    app.update(key('j'));
    assert_eq!(
        app.target_cluster, None,
        "the event log is the current cluster's"
    );
}

#[test]
fn usage_columns_join_the_current_clusters_rows_only() {
    use kinformer::render::metrics::Usage;
    use kinformer::ui::metrics::{MetricsScope, MetricsUpdate};
    let (mut app, _) = merged_app(fleet_config());
    // The current context's metrics: pod default/a has usage there; prod-us's `a` is
    // another pod and must not show it.
    let usage = std::collections::HashMap::from([(
        "default/a".to_string(),
        Usage {
            cpu_n: 250 * 1_000_000,
            mem: 64 << 20,
        },
    )]);
    app.update(Action::Metrics(MetricsUpdate::Usage {
        scope: MetricsScope::Pods(Some("default".into())),
        usage: Arc::new(usage),
    }));
    let text = screen(&mut app, 110, 14);
    let line = |cluster: &str| {
        text.lines()
            .find(|l| l.contains(cluster) && l.contains(" a "))
            .unwrap_or_else(|| panic!("{cluster}'s a drawn: {text}"))
            .to_string()
    };
    assert!(line("prod-eu").contains(" 250  64 "), "{text}");
    assert!(!line("prod-us").contains(" 250 "), "{text}");
}

fn tap_entry(
    seq: u64,
    key: &str,
    cluster: Option<&str>,
) -> kinformer::informer::shared_informer::TapEntry {
    kinformer::informer::shared_informer::TapEntry {
        seq,
        at: std::time::UNIX_EPOCH + std::time::Duration::from_millis(NOW_MS as u64),
        kind: Arc::from("pods"),
        delta: kinformer::informer::delta_fifo::DeltaType::Updated,
        tombstone: false,
        key: Arc::from(key),
        resource_version: "7".into(),
        queue_depth: 0,
        cluster: cluster.map(Arc::from),
    }
}

#[test]
fn the_event_log_names_each_entrys_cluster_and_enter_opens_that_clusters_history() {
    let (mut app, _) = merged_app(fleet_config());
    app.update(Action::Tap(vec![
        tap_entry(1, "default/a", None),
        tap_entry(1, "default/c", Some("prod-us")),
    ]));
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    let text = screen(&mut app, 120, 14);
    assert!(text.contains("CLUSTER"), "{text}");
    let line = |key: &str| {
        text.lines()
            .find(|l| l.contains(key))
            .unwrap_or_else(|| panic!("{key} listed: {text}"))
            .to_string()
    };
    assert!(line("default/c").contains("prod-us"), "{text}");
    assert!(line("default/a").contains("prod-eu"), "{text}");
    // The newest (top) entry is prod-us's: Enter opens its history there.
    let fx = app.update(code(KeyCode::Enter));
    assert!(
        matches!(fx.as_slice(), [Effect::OnCluster { cluster, effect }]
            if cluster == "prod-us" && matches!(**effect, Effect::FetchHistory { .. })),
        "{fx:?}"
    );
}

#[test]
fn the_current_cluster_forbidding_the_kind_keeps_the_other_clusters_rows() {
    let (mut app, view) = merged_app(fleet_config());
    app.update(Action::Forbidden {
        view,
        denial: kinformer::ui::action::Denial::from_message(
            "list",
            "pods is forbidden: User \"jane\" cannot list resource \"pods\"",
            None,
        ),
    });
    let text = screen(&mut app, 110, 14);
    assert!(text.contains("forbidden on prod-eu"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.contains("prod-us") && l.contains(" c ")),
        "prod-us's rows stay: {text}"
    );
}

#[test]
fn the_informer_panel_lists_every_clusters_informers_and_the_header_reads_a_members_own() {
    let (mut app, _) = merged_app(fleet_config());
    app.update(Action::ClusterHealth {
        context: "prod-us".into(),
        health: ClusterHealth::Up {
            version: "v1.33.0".into(),
            kinds: None,
        },
    });
    let member = |state| {
        let mut r = informer_row("pods", None, state);
        r.cluster = Some(Arc::from("prod-us"));
        r
    };
    // prod-us's pods informer is still listing: the header says so rather than "up".
    let mut listing = member(kinformer::ui::action::InformerState::Listing);
    listing.synced = false;
    app.update(Action::InformerStats(vec![
        informer_row("pods", None, kinformer::ui::action::InformerState::Watching),
        listing,
    ]));
    let text = screen(&mut app, 110, 14);
    let header = text.lines().next().unwrap_or_default().to_string();
    assert!(header.contains("prod-us listing"), "{header}");
    // Backing off: with its countdown.
    app.update(Action::InformerStats(vec![
        informer_row("pods", None, kinformer::ui::action::InformerState::Watching),
        member(kinformer::ui::action::InformerState::BackingOff {
            until_ms: NOW_MS + 7_000,
        }),
    ]));
    let text = screen(&mut app, 110, 14);
    let header = text.lines().next().unwrap_or_default().to_string();
    assert!(header.contains("prod-us backoff 7s"), "{header}");
    // The panel: one row per informer of each cluster, the CLUSTER column first.
    app.update(Action::InformerStats(vec![
        informer_row("pods", None, kinformer::ui::action::InformerState::Watching),
        member(kinformer::ui::action::InformerState::Watching),
    ]));
    type_str(&mut app, ":informers");
    app.update(code(KeyCode::Enter));
    let text = screen(&mut app, 110, 10);
    assert!(text.contains("CLUSTER"), "{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(" pods ")).collect();
    assert_eq!(rows.len(), 2, "{text}");
    assert!(
        rows[0].contains("prod-eu") && rows[1].contains("prod-us"),
        "{text}"
    );
    insta::assert_snapshot!(text);
}

#[test]
fn a_plugin_on_a_merged_row_gets_the_rows_own_cluster_as_context() {
    let (mut app, view) = merged_app(AppConfig {
        user: Arc::new(fixture_user_config()),
        ..fleet_config()
    });
    app.message = None;
    select(&mut app, view, &k("prod-us", "default/c"));
    // describe-bg (ctrl-t): kubectl describe pods c -n default --context $CONTEXT.
    let fx = app.update(ctrl('t'));
    let run = fx
        .iter()
        .find_map(|e| match e {
            kinformer::ui::action::Effect::RunPlugin(r) => Some((**r).clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no plugin run: {fx:?}"));
    assert_eq!(
        run.args,
        [
            "describe",
            "pods",
            "c",
            "-n",
            "default",
            "--context",
            "prod-us"
        ]
    );
    assert_eq!(run.context, "prod-us");
}

/// Issue 39: with several clusters the namespaces view's rows are keyed under their cluster;
/// `:ns shop` finds `shop` there (it is in one cluster only) and the completion offers it once.
#[test]
fn ns_name_is_known_when_a_member_cluster_has_that_namespace() {
    let (mut app, _) = merged_app(fleet_config());
    let ns_view = app.ns_view.expect("the namespaces view");
    app.update(Action::Rows {
        view: ns_view,
        upserts: vec![
            on("prod-eu", cluster_object("payments", "Active")),
            on("prod-us", cluster_object("payments", "Active")),
            on("prod-us", cluster_object("billing", "Active")),
        ],
        deletes: vec![],
    });
    let names = app.namespace_names();
    assert_eq!(
        names.iter().filter(|n| *n == "payments").count(),
        1,
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.contains('\u{1f}')), "{names:?}");
    app.update(key(':'));
    type_str(&mut app, "ns billing");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        app.namespace.as_deref(),
        Some("billing"),
        "{:?}",
        app.message
    );
    assert!(!fx.is_empty());
    app.update(key(':'));
    type_str(&mut app, "ns nosuch");
    app.update(code(KeyCode::Enter));
    let (msg, error) = app.message.clone().expect("an error");
    assert!(error && msg == "unknown namespace: nosuch", "{msg}");
}

/// Issue 39: with several clusters the informer line said `596 objects` (the current cluster's
/// informer) over a table of every cluster's rows; it sums the clusters' informers.
#[test]
fn the_informer_line_counts_every_clusters_objects() {
    let (mut app, _) = merged_app(fleet_config());
    let mut member = informer_row("pods", None, kinformer::ui::action::InformerState::Watching);
    member.cluster = Some(Arc::from("prod-us"));
    member.cached = 1_797;
    app.update(Action::InformerStats(vec![
        informer_row("pods", None, kinformer::ui::action::InformerState::Watching),
        member,
    ]));
    let text = screen(&mut app, 140, 14);
    let line = text
        .lines()
        .find(|l| l.contains("Informer:"))
        .unwrap_or_default();
    assert!(line.contains("1,800 objects in 2 clusters"), "{text}");
}
