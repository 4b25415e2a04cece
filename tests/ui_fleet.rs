//! Several selected clusters in the app (`--context a,b`, `:ctx +name` / `:ctx -name`): probes
//! asked of the runtime, the header's per-cluster line, per-context read-only, and the
//! confirmation naming the cluster. One cluster keeps the single-cluster header and dialogs.

mod ui_support;

use crossterm::event::KeyCode;
use kinformer::ui::action::{Action, ClusterHealth, ConnectionState, Effect, InformerState};
use kinformer::ui::app::Mode;
use kinformer::ui::{App, AppConfig};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ui_support::*;

const FLEET: [&str; 3] = ["prod-eu", "prod-us", "staging"];

fn fleet_config() -> AppConfig {
    AppConfig {
        context: "prod-eu".into(),
        fleet: FLEET.iter().map(|s| s.to_string()).collect(),
        ..config()
    }
}

fn watched(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::WatchCluster(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

fn unwatched(fx: &[Effect]) -> Vec<String> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::UnwatchCluster(c) => Some(c.clone()),
            _ => None,
        })
        .collect()
}

fn header(app: &mut App, width: u16) -> String {
    app.update(Action::Resize(width, 12));
    let app = &*app;
    let mut terminal = Terminal::new(TestBackend::new(width, 12)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = terminal.backend().buffer().clone();
    (0..3)
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

fn connected(app: &mut App, context: &str) {
    app.update(Action::Connection(ConnectionState {
        context: context.into(),
        server_version: Some("v1.33.0".into()),
        reachable: true,
        retry_at_ms: None,
        last_error: None,
    }));
}

#[test]
fn a_fleet_probes_every_member_and_a_single_cluster_probes_none() {
    let mut app = App::new(
        fleet_config(),
        kinformer::ui::keys::KeyMap::defaults().unwrap(),
    );
    assert_eq!(watched(&app.init()), FLEET);
    let mut single = App::new(config(), kinformer::ui::keys::KeyMap::defaults().unwrap());
    assert!(watched(&single.init()).is_empty());
    assert!(!single.fleet.is_fleet());
}

#[test]
fn header_shows_each_cluster_state_with_one_down_and_its_countdown() {
    let (mut app, v) = app_with(fleet_config(), vec![simple_pod("default", "a")]);
    connected(&mut app, "prod-eu");
    let mut row = informer_row("pods", Some("default"), InformerState::Watching);
    row.synced = true;
    app.update(Action::InformerStats(vec![row]));
    app.update(Action::ClusterHealth {
        context: "prod-us".into(),
        health: ClusterHealth::Unreachable {
            error: "connection refused".into(),
            retry_at_ms: NOW_MS + 4_000,
        },
    });
    app.update(Action::ClusterHealth {
        context: "staging".into(),
        health: ClusterHealth::Up {
            version: "v1.32.2".into(),
            kinds: Some(vec!["pods".into(), "deployments.apps".into()]),
        },
    });
    let _ = v;
    insta::assert_snapshot!(header(&mut app, 110));
}

#[test]
fn header_says_which_clusters_have_no_such_kind() {
    let (mut app, _) = app_with(fleet_config(), vec![simple_pod("default", "a")]);
    connected(&mut app, "prod-eu");
    app.update(Action::ClusterHealth {
        context: "prod-us".into(),
        health: ClusterHealth::Up {
            version: "v1.30.0".into(),
            kinds: Some(vec!["deployments.apps".into()]),
        },
    });
    // Discovery unanswered: nothing is claimed missing.
    app.update(Action::ClusterHealth {
        context: "staging".into(),
        health: ClusterHealth::Up {
            version: "v1.30.0".into(),
            kinds: None,
        },
    });
    let h = header(&mut app, 110);
    assert!(h.contains("prod-us no pods"), "{h}");
    assert!(h.contains("staging up"), "{h}");
}

#[test]
fn a_single_cluster_header_is_unchanged() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "a")]);
    connected(&mut app, "demo");
    let h = header(&mut app, 100);
    assert!(h.starts_with(" Context: demo  Server: v1.33.0"), "{h}");
    assert!(!h.contains("Clusters:"));
}

#[test]
fn ctx_plus_adds_and_probes_ctx_minus_removes_and_moves_off_the_removed_current() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "a")]);
    app.update(Action::Contexts(
        ["demo", "prod-eu", "prod-us"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
    ));
    app.update(key(':'));
    type_str(&mut app, "ctx +prod-*");
    let fx = app.update(code(KeyCode::Enter));
    // Going from one cluster to three: the first member is probed from now on too.
    assert_eq!(watched(&fx), ["demo", "prod-eu", "prod-us"]);
    assert!(app.fleet.is_fleet());
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::SwitchContext(_))),
        "adding does not move the tables"
    );
    app.update(key(':'));
    type_str(&mut app, "ctx +nope");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert!(
        app.message.clone().unwrap().1,
        "unknown context is an error"
    );
    app.update(key(':'));
    type_str(&mut app, "ctx -demo");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(unwatched(&fx), ["demo"]);
    assert_eq!(
        fx.iter().find(|e| matches!(e, Effect::SwitchContext(_))),
        Some(&Effect::SwitchContext("prod-eu".into()))
    );
    assert_eq!(app.connection.context, "prod-eu");
    app.update(key(':'));
    type_str(&mut app, "ctx -prod-*");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert!(app.message.clone().unwrap().0.contains("at least one"));
    // `:ctx NAME` alone: just that cluster; every probe ends.
    app.update(key(':'));
    type_str(&mut app, "ctx prod-us");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(fx[0], Effect::SwitchContext("prod-us".into()));
    assert_eq!(unwatched(&fx), ["prod-eu", "prod-us"]);
    assert!(!app.fleet.is_fleet());
}

#[test]
fn readonly_contexts_refuse_writes_on_matching_clusters_only() {
    let cfg = AppConfig {
        readonly_contexts: Some("prod-*".into()),
        ..fleet_config()
    };
    let (mut app, _) = app_with(cfg, vec![simple_pod("default", "a")]);
    app.update(Action::Contexts(
        FLEET.iter().map(|s| s.to_string()).collect(),
    ));
    assert!(app.readonly, "prod-eu is read-only");
    assert!(app.update(ctrl('d')).is_empty());
    assert!(!matches!(app.mode, Mode::Confirm(_)));
    app.update(key(':'));
    type_str(&mut app, "ctx staging");
    app.update(code(KeyCode::Enter));
    assert!(!app.readonly, "staging stays writable");
}

#[test]
fn the_confirmation_names_the_cluster_when_several_are_selected() {
    let (mut app, _) = app_with(fleet_config(), vec![simple_pod("default", "a")]);
    connected(&mut app, "prod-eu");
    app.update(ctrl('d'));
    let Mode::Confirm(c) = &app.mode else {
        panic!("confirm dialog expected, got {:?}", app.mode)
    };
    assert_eq!(c.cluster.as_deref(), Some("prod-eu"));
    app.update(Action::Resize(100, 20));
    let app_ref = &app;
    let mut terminal = Terminal::new(TestBackend::new(100, 20)).unwrap();
    terminal
        .draw(|f| f.render_widget(app_ref, f.area()))
        .unwrap();
    let buf = terminal.backend().buffer().clone();
    let line = (0..20)
        .map(|y| (0..100).map(|x| buf[(x, y)].symbol()).collect::<String>())
        .find(|l| l.contains("on cluster"))
        .expect("a line naming the cluster");
    assert!(line.contains(" prod-eu "), "{line}");
    let byte = line.find("prod-eu").expect("name");
    let x = line[..byte].chars().count() as u16;
    let y = (0..20)
        .find(|y| (0..100).map(|x| buf[(x, *y)].symbol()).collect::<String>() == line)
        .expect("row");
    assert_eq!(
        buf[(x, y)].bg,
        ratatui::style::Color::LightYellow,
        "it stands out"
    );
    let (mut single, _) = app_with(config(), vec![simple_pod("default", "a")]);
    single.update(ctrl('d'));
    let Mode::Confirm(c) = &single.mode else {
        panic!("confirm dialog expected")
    };
    assert_eq!(c.cluster, None);
}

#[test]
fn diff_asks_every_member_for_the_selected_object_and_shows_the_answer() {
    let (mut app, _) = app_with(fleet_config(), vec![simple_pod("default", "a")]);
    app.update(key(':'));
    type_str(&mut app, "diff");
    let fx = app.update(code(KeyCode::Enter));
    let [
        Effect::FetchDiff {
            request,
            namespace,
            name,
            contexts,
            ..
        },
    ] = fx.as_slice()
    else {
        panic!("one FetchDiff expected, got {fx:?}")
    };
    assert_eq!(
        (namespace.as_deref(), name.as_str()),
        (Some("default"), "a")
    );
    assert_eq!(contexts, &FLEET);
    app.update(Action::Diff {
        request: *request,
        result: Ok("pods default/a across 3 clusters\n1 field differs".into()),
    });
    let Some(kinformer::ui::app::Screen::Text(t)) = app.stack.last() else {
        panic!("the diff screen is on top")
    };
    assert_eq!(t.kind, kinformer::ui::app::TextKind::Diff);
    assert_eq!(
        t.lines.clone().unwrap().unwrap()[1],
        "1 field differs".to_string()
    );
    let (mut single, _) = app_with(config(), vec![simple_pod("default", "a")]);
    single.update(key(':'));
    type_str(&mut single, "diff");
    assert!(single.update(code(KeyCode::Enter)).is_empty());
    assert!(single.message.clone().unwrap().0.contains(":ctx +NAME"));
}

#[test]
fn the_scale_dialog_names_the_cluster_when_several_are_selected() {
    let cfg = AppConfig {
        resource: "deployments".into(),
        ..fleet_config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
    app.update(key('s'));
    let Mode::Scale(d) = &app.mode else {
        panic!("scale dialog expected, got {:?}", app.mode)
    };
    assert_eq!(d.cluster.as_deref(), Some("prod-eu"));
    let (mut single, _) = app_with(
        AppConfig {
            resource: "deployments".into(),
            ..config()
        },
        vec![workload("default", "web", None)],
    );
    single.update(key('s'));
    let Mode::Scale(d) = &single.mode else {
        panic!("scale dialog expected")
    };
    assert_eq!(d.cluster, None);
}

#[test]
fn ctx_plus_on_a_member_already_selected_shows_its_tables_and_keeps_the_fleet() {
    let (mut app, v) = app_with(fleet_config(), vec![simple_pod("default", "a")]);
    app.update(Action::Contexts(
        FLEET.iter().map(|s| s.to_string()).collect(),
    ));
    app.update(key(':'));
    type_str(&mut app, "ctx +staging");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(fx[0], Effect::SwitchContext("staging".into()));
    assert!(fx.contains(&Effect::CloseView { view: v }));
    assert!(unwatched(&fx).is_empty() && watched(&fx).is_empty());
    assert_eq!(app.connection.context, "staging");
    assert_eq!(app.fleet.members.len(), 3);
}

#[test]
fn create_goes_to_the_current_context_named_in_its_dialog_and_a_readonly_one_refuses_it() {
    let cfg = AppConfig {
        readonly_contexts: Some("prod-*".into()),
        ..fleet_config()
    };
    let (mut app, _) = app_with(cfg, vec![simple_pod("default", "a")]);
    connected(&mut app, "prod-eu");
    assert!(app.update(ctrl('n')).is_empty(), "prod-eu is read-only");
    assert!(app.message.clone().unwrap().0.contains("read-only"));

    let (mut app, _) = app_with(fleet_config(), vec![simple_pod("default", "a")]);
    connected(&mut app, "prod-eu");
    let fx = app.update(ctrl('n'));
    assert!(
        matches!(&fx[..], [Effect::Create { .. }]),
        "not routed to a member: {fx:?}"
    );
    let doc = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}});
    let write =
        kinformer::ui::apply::prepare_document(&app.resources, doc, "default", false).unwrap();
    app.update(Action::ApplyPlan(Box::new(
        kinformer::ui::apply::ApplyPlan {
            docs: vec![kinformer::ui::apply::PlannedApply {
                write,
                exists: false,
                diff: Vec::new(),
                conflict: None,
            }],
            source: kinformer::ui::apply::ApplySource::File("p.yaml".into()),
        },
    )));
    let Mode::ConfirmApply(d) = &app.mode else {
        panic!("{:?}", app.mode)
    };
    assert_eq!(d.cluster.as_deref(), Some("prod-eu"));
}
