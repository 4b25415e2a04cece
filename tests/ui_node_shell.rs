//! `s` on a node: k9s's node shell, confirmed first, refused read-only; the confirmed shell is
//! one effect carrying the shell pod (k9s's `shellPod` settings) for the runtime.

mod ui_support;

use std::sync::Arc;

use crossterm::event::KeyCode;
use kinformer::config::UserConfig;
use kinformer::ui::action::Effect;
use kinformer::ui::app::Mode;
use kinformer::ui::{App, AppConfig};
use ui_support::*;

fn nodes_app(readonly: bool, mut user: UserConfig) -> App {
    user.settings.k9s_node_shell = true;
    let (app, _) = app_with(
        AppConfig {
            resource: "nodes".into(),
            readonly,
            user: Arc::new(user),
            ..config()
        },
        vec![cluster_object("worker-1", "Ready")],
    );
    app
}

fn node_shells(fx: &[Effect]) -> Vec<&Effect> {
    fx.iter()
        .filter(|e| matches!(e, Effect::NodeShell { .. }))
        .collect()
}

#[test]
fn s_on_a_node_asks_first_then_starts_the_shell_pod_on_it() {
    let mut user = UserConfig::default();
    user.settings.k9s_shell_pod.image = "alpine:3.20".into();
    let mut app = nodes_app(false, user);
    let fx = app.update(key('s'));
    assert!(node_shells(&fx).is_empty(), "nothing before the answer");
    let Mode::Confirm(c) = &app.mode else {
        panic!("{:?}", app.mode)
    };
    assert_eq!(c.verb(), "Shell");
    let screen = format!("{:?}", draw(&mut app, 120, 30).backend());
    assert!(
        screen.contains("Open a shell on node worker-1?"),
        "{screen}"
    );
    assert!(screen.contains("alpine:3.20"), "{screen}");
    let fx = app.update(key('y'));
    let [
        Effect::NodeShell {
            node,
            namespace,
            name,
            pod,
        },
    ] = node_shells(&fx)[..]
    else {
        panic!("{fx:?}")
    };
    assert_eq!((node.as_str(), namespace.as_str()), ("worker-1", "default"));
    assert!(name.starts_with("kinformer-shell-worker-1-"), "{name}");
    assert_eq!(pod["spec"]["nodeName"], "worker-1");
    assert_eq!(pod["spec"]["containers"][0]["image"], "alpine:3.20");
    assert_eq!(pod["metadata"]["name"], name.as_str());
}

#[test]
fn a_node_shell_cancelled_starts_nothing() {
    let mut app = nodes_app(false, UserConfig::default());
    app.update(key('s'));
    let fx = app.update(code(KeyCode::Esc));
    assert!(node_shells(&fx).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn a_node_shell_is_refused_read_only_without_a_dialog() {
    let mut app = nodes_app(true, UserConfig::default());
    let fx = app.update(key('s'));
    assert!(node_shells(&fx).is_empty());
    assert!(matches!(app.mode, Mode::Normal), "{:?}", app.mode);
    let (msg, error) = app.message.clone().unwrap();
    assert!(error && msg.contains("node shell"), "{msg}");
}

#[test]
fn with_the_contexts_node_shell_gate_off_s_says_in_one_line_how_to_turn_it_on() {
    let (mut app, _) = app_with(
        AppConfig {
            resource: "nodes".into(),
            user: Arc::new(UserConfig::default()),
            ..config()
        },
        vec![cluster_object("worker-1", "Ready")],
    );
    let fx = app.update(key('s'));
    assert!(node_shells(&fx).is_empty());
    assert!(
        matches!(app.mode, Mode::Normal),
        "no dialog: {:?}",
        app.mode
    );
    let (msg, error) = app.message.clone().unwrap();
    assert!(error, "{msg}");
    assert!(msg.contains("k9s.featureGates.nodeShell: true"), "{msg}");
    assert!(!msg.contains('\n'), "one line: {msg}");
}
