//! A k9s user's configuration in the app: aliases on the command line and in the aliases view,
//! hotkeys, and configuration problems in the footer.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::config::UserConfig;
use kinformer::ui::action::{Action, ObjectSummary, ViewId};
use kinformer::ui::app::Screen;
use kinformer::ui::resources::builtin_resources;
use kinformer::ui::{App, AppConfig};

use crate::ui_support::*;

fn on_with(user: UserConfig, resource: &str, rows: Vec<ObjectSummary>) -> (App, ViewId) {
    app_with(
        AppConfig {
            resource: resource.into(),
            user: Arc::new(user),
            ..config()
        },
        rows,
    )
}

fn shift(c: char) -> Action {
    Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::SHIFT))
}

fn run(app: &mut App, line: &str) -> Vec<kinformer::ui::action::Effect> {
    app.update(key(':'));
    type_str(app, line);
    app.update(code(KeyCode::Enter))
}

#[test]
fn a_k9s_alias_opens_its_kind_and_an_alias_of_it_carries_namespace_and_selector() {
    let (mut app, _) = on_with(fixture_user_config(), "deploy", vec![]);
    let fx = run(&mut app, "pp");
    assert_eq!(opened(&fx)[0].1, "pods");
    let fx = run(&mut app, "web");
    let (id, plural, ns) = opened(&fx)[0].clone();
    assert_eq!((plural.as_str(), ns.as_deref()), ("pods", Some("default")));
    let label = app.views[&id]
        .table
        .filters
        .label
        .as_ref()
        .map(|l| l.text.clone());
    assert_eq!(label.as_deref(), Some("app=web"));
    // A GVR with a group.
    let fx = run(&mut app, "dep kube-system");
    assert_eq!(
        opened(&fx)[0].clone().1,
        "deployments",
        "dep: apps/v1/deployments"
    );
    assert_eq!(app.namespace.as_deref(), Some("kube-system"));
}

#[test]
fn ctrl_a_lists_a_users_aliases_with_the_built_in_names() {
    let (mut app, _) = on_with(fixture_user_config(), "pods", vec![]);
    app.update(ctrl('a'));
    assert!(matches!(app.current_screen(), Some(Screen::Aliases(_))));
    let rows = kinformer::ui::screens::aliases::alias_rows(&app.resources, &app.user.aliases);
    let pods = rows.iter().find(|r| r.resource == "pods").unwrap();
    for n in ["po", "pp", "web (default app=web)"] {
        assert!(pods.names.iter().any(|x| x == n), "{n}: {pods:?}");
    }
}

#[test]
fn a_hotkey_runs_its_command_and_keep_history_opens_on_top() {
    let (mut app, _) = on_with(fixture_user_config(), "services", vec![]);
    // Shift-1: `dp` with keepHistory → deployments on top of services.
    let fx = app.update(shift('!'));
    assert_eq!(opened(&fx)[0].1, "deployments");
    let tables = app
        .stack
        .iter()
        .filter(|s| matches!(s, Screen::Table(_)))
        .count();
    assert_eq!(tables, 2, "services stays under deployments");
    app.update(code(KeyCode::Esc));
    assert_eq!(
        app.current_view()
            .map(|v| v.resource.api_resource.plural.as_str()),
        Some("services")
    );
    // Shift-0: `pods` without keepHistory → replaces, as `:pods`.
    let fx = app.update(shift(')'));
    assert_eq!(opened(&fx)[0].1, "pods");
    assert_eq!(app.stack.len(), 1);
}

#[test]
fn an_unknown_alias_target_or_plugin_scope_is_named_in_the_footer_once_discovery_answers() {
    let dir = tempfile::tempdir().unwrap();
    let k9s = dir.path().join("k9s");
    std::fs::create_dir_all(&k9s).unwrap();
    std::fs::write(k9s.join("aliases.yaml"), "aliases:\n  zz: v1/nopes\n").unwrap();
    let user = UserConfig::load(&kinformer::config::LoadOptions {
        env: kinformer::config::ConfigEnv {
            xdg_config_home: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
        ..Default::default()
    });
    let (mut app, _) = on_with(user, "pods", vec![]);
    assert!(app.message.is_none());
    app.update(Action::Discovery(builtin_resources()));
    let (msg, error) = app.message.clone().unwrap();
    assert!(error);
    assert!(
        msg.contains("aliases.yaml:2:3:") && msg.contains("nopes"),
        "{msg}"
    );
    assert_eq!(app.config_problems.len(), 1);
    // Once: a later discovery does not repeat it.
    app.message = None;
    app.update(Action::Discovery(builtin_resources()));
    assert!(app.message.is_none());
}

#[test]
fn a_bad_file_is_named_with_line_and_column_in_the_footer_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let k9s = dir.path().join("k9s");
    std::fs::create_dir_all(&k9s).unwrap();
    std::fs::write(k9s.join("hotkeys.yaml"), "hotKeys:\n\tbad: x\n").unwrap();
    std::fs::write(k9s.join("aliases.yaml"), "aliases:\n  pp: v1/pods\n").unwrap();
    let user = UserConfig::load(&kinformer::config::LoadOptions {
        env: kinformer::config::ConfigEnv {
            xdg_config_home: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
        ..Default::default()
    });
    let (mut app, _) = on_with(user, "pods", vec![]);
    let (msg, error) = app.message.clone().unwrap();
    assert!(error);
    assert!(msg.contains("hotkeys.yaml:2:1:"), "{msg}");
    // The good file next to it works.
    let fx = run(&mut app, "pp");
    assert_eq!(opened(&fx)[0].1, "pods");
}

fn plugin_index(app: &App, name: &str) -> u16 {
    app.user
        .plugins
        .iter()
        .position(|p| p.name == name)
        .unwrap() as u16
}

fn plugin_runs(fx: &[kinformer::ui::action::Effect]) -> Vec<kinformer::ui::plugin_run::PluginRun> {
    fx.iter()
        .filter_map(|e| match e {
            kinformer::ui::action::Effect::RunPlugin(r) => Some((**r).clone()),
            _ => None,
        })
        .collect()
}

fn footer(app: &mut App, width: u16) -> String {
    let t = draw(app, width, 30);
    let buf = t.backend().buffer();
    (0..width)
        .map(|x| buf[(x, 29)].symbol().to_string())
        .collect()
}

#[test]
fn a_plugin_is_in_the_footer_and_applies_only_in_the_scopes_it_names() {
    let (mut app, _) = on_with(
        fixture_user_config(),
        "pods",
        vec![simple_pod("default", "web-1")],
    );
    // (The footer first names views.yaml's PHASE column, which these test objects lack.)
    app.message = None;
    let foot = footer(&mut app, 320);
    assert!(foot.contains("<W>Write where"), "{foot}");
    assert!(foot.contains("<ctrl-t>Describe (background)"), "{foot}");
    // `where` names pods only: on services it is not offered, and its key says so.
    run(&mut app, "svc");
    let foot = footer(&mut app, 320);
    assert!(!foot.contains("Write where"), "{foot}");
    assert!(foot.contains("Delete with kubectl"), "scope all: {foot}");
    let fx = app.update(shift('W'));
    assert!(plugin_runs(&fx).is_empty());
    let (msg, _) = app.message.clone().unwrap();
    assert!(msg.contains("where") && msg.contains("pods"), "{msg}");
}

#[test]
fn a_plugin_runs_with_k9s_variables_expanded_into_its_argv() {
    let (mut app, _) = on_with(
        fixture_user_config(),
        "pods",
        vec![simple_pod("default", "web-1")],
    );
    let fx = app.update(shift('W'));
    let runs = plugin_runs(&fx);
    assert_eq!(runs.len(), 1, "{fx:?}");
    let r = &runs[0];
    assert_eq!(r.command, "sh");
    assert_eq!(
        r.args,
        vec![
            "-c".to_string(),
            "echo \"default/web-1\" >> \"$KINFORMER_PLUGIN_OUT\"".to_string()
        ],
        "k9s's variables expanded, the environment's left to the runtime"
    );
    assert!(!r.background);
    // The background one: kubectl describe pods web-1 -n default --context demo.
    let fx = app.update(ctrl('t'));
    let r = &plugin_runs(&fx)[0];
    assert!(r.background);
    assert_eq!(
        r.args,
        [
            "describe",
            "pods",
            "web-1",
            "-n",
            "default",
            "--context",
            "demo"
        ]
    );
    let (msg, error) = app.message.clone().unwrap();
    assert!(!error && msg.contains("background"), "{msg}");
    let i = plugin_index(&app, "describe-bg");
    assert!(app.key_applies(kinformer::ui::keys::KeyAction::Plugin(i)));
}

#[test]
fn a_confirm_plugin_asks_first_and_a_dangerous_one_is_refused_read_only() {
    let (mut app, _) = on_with(
        fixture_user_config(),
        "pods",
        vec![simple_pod("default", "web-1")],
    );
    let fx = app.update(shift('X'));
    assert!(plugin_runs(&fx).is_empty());
    assert!(matches!(app.mode, kinformer::ui::app::Mode::Confirm(_)));
    let fx = app.update(key('y'));
    let runs = plugin_runs(&fx);
    assert_eq!(runs[0].args, ["delete", "pods", "web-1", "-n", "default"]);
    // Read-only: the write path's check refuses it before any dialog.
    let (mut app, _) = app_with(
        AppConfig {
            readonly: true,
            user: Arc::new(fixture_user_config()),
            ..config()
        },
        vec![simple_pod("default", "web-1")],
    );
    let fx = app.update(shift('X'));
    assert!(plugin_runs(&fx).is_empty());
    assert!(matches!(app.mode, kinformer::ui::app::Mode::Normal));
    let (msg, error) = app.message.clone().unwrap();
    assert!(error && msg.contains("read-only"), "{msg}");
    // A plugin that is not dangerous still runs read-only.
    let fx = app.update(shift('W'));
    assert_eq!(plugin_runs(&fx).len(), 1);
}

#[test]
fn a_plugin_runs_once_on_each_marked_row_after_one_confirmation() {
    let (mut app, v) = on_with(
        fixture_user_config(),
        "pods",
        vec![
            simple_pod("default", "web-1"),
            simple_pod("shop", "web-2"),
            simple_pod("shop", "web-3"),
        ],
    );
    // Marked: web-1 and web-2 (space moves the cursor down); the cursor is on web-3.
    app.update(key(' '));
    app.update(key(' '));
    let fx = app.update(shift('W'));
    let runs = plugin_runs(&fx);
    let argv: Vec<&str> = runs.iter().map(|r| r.args[1].as_str()).collect();
    assert_eq!(
        argv,
        [
            "echo \"default/web-1\" >> \"$KINFORMER_PLUGIN_OUT\"",
            "echo \"shop/web-2\" >> \"$KINFORMER_PLUGIN_OUT\""
        ],
        "one run per marked row, never the cursor's unmarked row"
    );
    assert!(
        app.views[&v].marked.is_empty(),
        "the marks go with the runs"
    );
    // A `confirm: true` plugin asks once for all of them.
    app.update(key('k'));
    app.update(key(' '));
    app.update(key(' '));
    assert_eq!(app.views[&v].marked.len(), 2);
    let fx = app.update(shift('X'));
    assert!(plugin_runs(&fx).is_empty());
    assert!(
        matches!(app.mode, kinformer::ui::app::Mode::Confirm(_)),
        "{:?} {:?}",
        app.mode,
        app.message
    );
    let text = {
        let t = draw(&mut app, 120, 30);
        let buf = t.backend().buffer();
        let mut s = String::new();
        for y in 0..30 {
            for x in 0..120 {
                s.push_str(buf[(x, y)].symbol());
            }
            s.push('\n');
        }
        s
    };
    assert!(text.contains("Run plugin nuke on 2 marked rows?"), "{text}");
    let fx = app.update(key('y'));
    let runs = plugin_runs(&fx);
    assert_eq!(runs.len(), 2, "{fx:?}");
    assert!(runs.iter().all(|r| r.more.is_empty()));
    assert!(matches!(app.mode, kinformer::ui::app::Mode::Normal));
}
