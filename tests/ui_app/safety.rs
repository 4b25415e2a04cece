//! Nothing unsafe by surprise: k9s's `readOnly` honoured (per context over global, `--write`
//! over both), Esc then a key typed fast (Alt+key) taken as Esc and the key, the writes k9s
//! confirms confirmed, plugins and hotkeys on keys already bound refused as k9s refuses them,
//! plugin inputs asked, and an alias to what the cluster does not serve dropped.

use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::config::{ReadOnlySetting, UserConfig};
use kinformer::ui::action::{Action, Effect};
use kinformer::ui::app::Mode;
use kinformer::ui::fleet::K9sReadOnly;
use kinformer::ui::resources::builtin_resources;
use kinformer::ui::{App, AppConfig, KeyMap};

use crate::ui_support::*;

fn alt(c: char) -> Action {
    Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::ALT))
}

fn setting(read_only: bool, file: &str) -> ReadOnlySetting {
    ReadOnlySetting {
        read_only,
        file: PathBuf::from(file),
        line: 3,
    }
}

fn pods_with(k9s: K9sReadOnly) -> App {
    app_with(
        AppConfig {
            k9s_readonly: k9s,
            ..config()
        },
        vec![simple_pod("default", "web-1")],
    )
    .0
}

fn message(app: &App) -> String {
    app.message.clone().map(|(m, _)| m).unwrap_or_default()
}

#[test]
fn esc_then_slash_typed_fast_opens_the_filter_and_runs_no_table_key() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    // One burst "\x1b/web": crossterm reports Alt-/ then w, e, b.
    let mut fx = app.update(alt('/'));
    fx.extend(type_str(&mut app, "web"));
    match &app.mode {
        Mode::Filter { input } => assert_eq!(input.value(), "web"),
        other => panic!("expected the filter prompt, got {other:?}"),
    }
    // `e` would have opened the editor on the pod.
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::Edit { .. })),
        "{fx:?}"
    );
}

#[test]
fn an_unbound_alt_key_is_esc_then_the_key() {
    let (mut app, view) = app_with(
        config(),
        vec![
            simple_pod("default", "web-1"),
            simple_pod("default", "db-1"),
        ],
    );
    app.update(key('/'));
    type_str(&mut app, "web");
    app.update(code(KeyCode::Enter));
    assert_eq!(shown(&app, view).len(), 1);
    // Esc clears the filter, then `?` opens the help.
    app.update(alt('?'));
    assert_eq!(shown(&app, view).len(), 2);
    assert!(matches!(app.mode, Mode::Help { .. }), "{:?}", app.mode);
}

#[test]
fn k9s_read_only_refuses_ctrl_d_and_names_the_file() {
    let mut app = pods_with(K9sReadOnly {
        global: Some(setting(true, "/k9s/config.yaml")),
        ..Default::default()
    });
    assert!(app.readonly);
    let fx = app.update(ctrl('d'));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(matches!(app.mode, Mode::Normal), "{:?}", app.mode);
    let m = message(&app);
    assert!(
        m.contains("read-only mode: delete is disabled")
            && m.contains("k9s readOnly: true in /k9s/config.yaml:3"),
        "{m}"
    );
    // The header says so, as with --readonly.
    let t = draw(&mut app, 120, 30);
    let top: String = (0..120)
        .map(|x| t.backend().buffer()[(x, 0)].symbol().to_string())
        .collect();
    assert!(top.contains("[readonly]"), "{top}");
}

#[test]
fn a_contexts_read_only_goes_over_the_global_one_and_write_over_both() {
    // The context's own file says false: writes allowed although config.yaml says true.
    let mut app = pods_with(K9sReadOnly {
        global: Some(setting(true, "/k9s/config.yaml")),
        contexts: vec![(
            "demo".into(),
            setting(false, "/k9s/clusters/c/demo/config.yaml"),
        )],
        write: false,
    });
    assert!(!app.readonly);
    app.update(ctrl('d'));
    assert!(matches!(app.mode, Mode::Confirm(_)), "{:?}", app.mode);
    // The context's file says true: refused.
    let mut app = pods_with(K9sReadOnly {
        global: None,
        contexts: vec![(
            "demo".into(),
            setting(true, "/k9s/clusters/c/demo/config.yaml"),
        )],
        write: false,
    });
    app.update(ctrl('d'));
    assert!(matches!(app.mode, Mode::Normal));
    assert!(message(&app).contains("clusters/c/demo/config.yaml:3"));
    // --write: k9s's setting does not apply.
    let mut app = pods_with(K9sReadOnly {
        global: Some(setting(true, "/k9s/config.yaml")),
        contexts: vec![],
        write: true,
    });
    app.update(ctrl('d'));
    assert!(matches!(app.mode, Mode::Confirm(_)), "{:?}", app.mode);
}

#[test]
fn the_k9s_read_only_setting_is_read_from_config_yaml_and_the_contexts_file() {
    let dir = tempfile::tempdir().unwrap();
    let k9s = dir.path().join("k9s");
    let ctx = dir.path().join("data/k9s/clusters/kind-c/kind-c");
    std::fs::create_dir_all(&k9s).unwrap();
    std::fs::create_dir_all(&ctx).unwrap();
    std::fs::write(
        k9s.join("config.yaml"),
        "k9s:\n  refreshRate: 2\n  readOnly: true\n  logger:\n    tail: 200\n",
    )
    .unwrap();
    let load = || {
        UserConfig::load(&kinformer::config::LoadOptions {
            env: kinformer::config::ConfigEnv {
                xdg_config_home: Some(dir.path().to_path_buf()),
                xdg_data_home: Some(dir.path().join("data")),
                ..Default::default()
            },
            context: Some(("kind-c".into(), "kind-c".into())),
            ..Default::default()
        })
    };
    let user = load();
    let ro = user.k9s_readonly().unwrap();
    assert!(ro.read_only);
    assert_eq!(ro.line, 3);
    std::fs::write(
        ctx.join("config.yaml"),
        "k9s:\n  cluster: kind-c\n  readOnly: false\n",
    )
    .unwrap();
    let user = load();
    let ro = user.k9s_readonly().unwrap();
    assert!(!ro.read_only);
    assert!(ro.file.ends_with("kind-c/kind-c/config.yaml"));
    // Every setting read is listed; the unused ones are named, and no "No problems" over them.
    let report = user.report();
    assert!(
        report.contains("config.yaml:3  k9s.readOnly = true\n"),
        "{report}"
    );
    assert!(
        report.contains("config.yaml:5  k9s.logger.tail = 200\n"),
        "{report}"
    );
    assert!(
        report.contains("k9s.cluster = kind-c  not supported"),
        "{report}"
    );
    assert!(!report.contains("No problems"), "{report}");
    assert!(report.contains("1 setting is not supported"), "{report}");
}

#[test]
fn suspend_resume_and_trigger_of_a_cronjob_are_confirmed() {
    let cj = kinformer::ui::action::ObjectSummary::from_object(
        "CronJob",
        &Arc::new(
            serde_json::from_value(serde_json::json!({
                "apiVersion": "batch/v1", "kind": "CronJob",
                "metadata": {"name": "nightly", "namespace": "default", "uid": "u1"},
                "spec": {"suspend": true, "schedule": "0 0 * * *"}
            }))
            .unwrap(),
        ),
        None,
    )
    .unwrap();
    let (mut app, _) = app_with(
        AppConfig {
            resource: "cronjobs".into(),
            ..config()
        },
        vec![cj],
    );
    for k in ['s', 't'] {
        assert!(app.update(key(k)).is_empty(), "{k}");
        assert!(matches!(app.mode, Mode::Confirm(_)), "{k}: {:?}", app.mode);
        app.update(code(KeyCode::Esc));
    }
    app.update(key('s'));
    let fx = app.update(key('y'));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Write(w)
            if w.op == kinformer::ui::operate::Operation::Suspend(false))),
        "{fx:?}"
    );
}

/// A user configuration of these k9s files (under `k9s/`).
fn user_of(files: &[(&str, &str)]) -> (tempfile::TempDir, UserConfig) {
    let dir = tempfile::tempdir().unwrap();
    let k9s = dir.path().join("k9s");
    std::fs::create_dir_all(k9s.join("plugins")).unwrap();
    for (name, text) in files {
        std::fs::write(k9s.join(name), text).unwrap();
    }
    let user = UserConfig::load(&kinformer::config::LoadOptions {
        env: kinformer::config::ConfigEnv {
            xdg_config_home: Some(dir.path().to_path_buf()),
            xdg_data_home: Some(dir.path().join("data")),
            ..Default::default()
        },
        ..Default::default()
    });
    (dir, user)
}

#[test]
fn plugins_and_hotkeys_on_keys_already_bound_are_refused_as_k9s_does_unless_override() {
    let (_dir, user) = user_of(&[
        (
            "plugins.yaml",
            "plugins:\n  clash:\n    shortCut: Ctrl-D\n    description: x\n    scopes: [pods]\n    command: echo\n  blame-all:\n    shortCut: b\n    scopes: [all]\n    command: echo\n  mine:\n    shortCut: Ctrl-L\n    override: true\n    scopes: [pods]\n    command: echo\n    args: [$NAME]\n  nodes-only:\n    shortCut: Shift-K\n    scopes: [nodes]\n    command: echo\n",
        ),
        (
            "hotkeys.yaml",
            "hotKeys:\n  del:\n    shortCut: Ctrl-D\n    command: dp\n",
        ),
    ]);
    let (keys, problems) = KeyMap::defaults().unwrap().with_user_config(&user);
    let lines: Vec<String> = problems.iter().map(|p| p.message.clone()).collect();
    assert!(
        lines.contains(&r#"duplicate plugin key found for "Ctrl-D" in "clash""#.to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&r#"duplicate plugin key found for "b" in "blame-all""#.to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&r#"duplicate hotkey found for "Ctrl-D" in "del""#.to_string()),
        "{lines:?}"
    );
    assert_eq!(problems.len(), 3, "{lines:?}");
    // The problem names where the plugin is written.
    assert!(problems[0].line > 0);
    // ctrl-d still deletes; `override: true` takes ctrl-l on pods; a key free where the plugin
    // applies (K on nodes) is bound.
    assert!(
        keys.binding(kinformer::ui::keys::KeyAction::Plugin(3))
            .is_some()
    );
    // The app binds the same keys (app_with builds them as the dashboard does).
    let (mut app, _) = app_with(
        AppConfig {
            user: Arc::new(user),
            ..config()
        },
        vec![simple_pod("default", "web-1")],
    );
    app.update(ctrl('d'));
    assert!(matches!(app.mode, Mode::Confirm(_)), "{:?}", app.mode);
    app.update(code(KeyCode::Esc));
    let fx = app.update(ctrl('l'));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::RunPlugin(r) if r.args == ["web-1"])),
        "{fx:?}"
    );
}

#[test]
fn a_plugins_inputs_are_asked_then_confirmed_and_passed_as_input_variables() {
    let (_dir, user) = user_of(&[(
        "plugins.yaml",
        "plugins:\n  tail:\n    shortCut: Shift-V\n    description: Tail\n    scopes: [pods]\n    command: kubectl\n    args: [logs, $NAME, --tail, $INPUT_LINES, --timestamps=$INPUT_TS, -c, $INPUT_CONTAINER]\n    inputs:\n      - name: lines\n        label: Lines\n        type: number\n        required: true\n        default: \"100\"\n      - name: ts\n        type: bool\n      - name: container\n        type: dropdown\n        options: [app, sidecar]\n",
    )]);
    assert!(user.problems.is_empty(), "{:?}", user.problems);
    let (mut app, _) = app_with(
        AppConfig {
            user: Arc::new(user),
            ..config()
        },
        vec![simple_pod("default", "web-1")],
    );
    let fx = app.update(key('V'));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(matches!(app.mode, Mode::PluginInputs(_)), "{:?}", app.mode);
    insta::assert_snapshot!("plugin_inputs_dialog", draw(&mut app, 100, 16).backend());
    // A number field refuses a word.
    app.update(code(KeyCode::Backspace));
    app.update(code(KeyCode::Backspace));
    app.update(code(KeyCode::Backspace));
    type_str(&mut app, "x");
    app.update(code(KeyCode::Enter));
    match &app.mode {
        Mode::PluginInputs(d) => {
            assert_eq!(d.error.as_deref(), Some(r#"Lines: "x" is not a number"#))
        }
        other => panic!("{other:?}"),
    }
    app.update(code(KeyCode::Backspace));
    type_str(&mut app, "50");
    app.update(code(KeyCode::Tab));
    app.update(key(' '));
    app.update(code(KeyCode::Tab));
    app.update(code(KeyCode::Right));
    // Inputs default to a confirmation (k9s ShouldConfirm).
    let fx = app.update(code(KeyCode::Enter));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(matches!(app.mode, Mode::Confirm(_)), "{:?}", app.mode);
    let fx = app.update(key('y'));
    let run = fx
        .iter()
        .find_map(|e| match e {
            Effect::RunPlugin(r) => Some(r.clone()),
            _ => None,
        })
        .expect("the plugin runs");
    assert_eq!(
        run.args,
        [
            "logs",
            "web-1",
            "--tail",
            "50",
            "--timestamps=true",
            "-c",
            "sidecar"
        ]
    );
    assert!(
        run.vars
            .contains(&("INPUT_LINES".to_string(), "50".to_string()))
    );
}

#[test]
fn an_alias_to_a_resource_the_cluster_does_not_serve_is_reported_and_not_loaded() {
    let (_dir, user) = user_of(&[("aliases.yaml", "aliases:\n  dp: apps/v1/nope\n")]);
    let (mut app, _) = app_with(
        AppConfig {
            user: Arc::new(user),
            ..config()
        },
        vec![],
    );
    app.update(Action::Discovery(builtin_resources()));
    let m = message(&app);
    assert!(
        m.contains("aliases.yaml:2:3") && m.contains("nope") && m.contains("not loaded"),
        "{m}"
    );
    app.update(key(':'));
    type_str(&mut app, "dp");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].1, "deployments", "{fx:?}");
}

#[test]
fn community_plugins_on_keys_already_bound_are_refused_and_the_rest_load() {
    let fixtures =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/k9s_plugins");
    let dir = tempfile::tempdir().unwrap();
    let plugins = dir.path().join("k9s/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    for e in std::fs::read_dir(&fixtures).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, plugins.join(p.file_name().unwrap())).unwrap();
    }
    let user = UserConfig::load(&kinformer::config::LoadOptions {
        env: kinformer::config::ConfigEnv {
            xdg_config_home: Some(dir.path().to_path_buf()),
            xdg_data_home: Some(dir.path().join("data")),
            ..Default::default()
        },
        ..Default::default()
    });
    assert!(user.problems.is_empty(), "{:?}", user.problems);
    assert_eq!(user.plugins.len(), 4);
    let debug = user.plugins.iter().find(|p| p.name == "debug").unwrap();
    assert_eq!(debug.inputs.len(), 2);
    assert!(debug.confirm, "inputs default to a confirmation");
    let (_, problems) = KeyMap::defaults().unwrap().with_user_config(&user);
    let mut lines: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    lines.sort();
    assert_eq!(lines.len(), 3, "{lines:?}");
    // k9s's `pipes` are not run: the report says so.
    assert!(
        user.report()
            .contains("plugins.stern.pipes = (list)  not supported"),
        "{}",
        user.report()
    );
    assert!(
        lines[0].contains(
            "log-full.yaml:3:3: duplicate plugin key found for \"Ctrl-L\" in \"log-full\""
        ),
        "{lines:?}"
    );
    assert!(
        lines[1]
            .contains("log-stern.yaml:3:3: duplicate plugin key found for \"Ctrl-L\" in \"stern\""),
        "{lines:?}"
    );
    assert!(
        lines[2]
            .contains("watch-all.yaml:3:3: duplicate plugin key found for \"b\" in \"watch-all\""),
        "{lines:?}"
    );
}

#[test]
fn alt_backspace_in_the_filter_prompt_still_deletes_a_word() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    app.update(key('/'));
    type_str(&mut app, "web db");
    app.update(Action::Key(KeyEvent::new(
        KeyCode::Backspace,
        KeyModifiers::ALT,
    )));
    match &app.mode {
        Mode::Filter { input } => assert_eq!(input.value().trim_end(), "web"),
        other => panic!("the prompt stays open: {other:?}"),
    }
}
