//! `App::update` tests of the operating keys on a resource table: the effect each key emits, the
//! confirmation destructive ones need, the scale and drain dialogs, and refusal in `--readonly`.

mod ui_support;

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::KeyCode;
use kinformer::ui::action::{Action, Effect, ObjectSummary};
use kinformer::ui::app::{DrainState, Mode};
use kinformer::ui::drain::{DrainEvent, DrainOptions};
use kinformer::ui::operate::{Operation, Propagation, Write};
use kinformer::ui::{App, AppConfig};
use kube::api::DynamicObject;
use serde_json::json;
use ui_support::*;

fn summary(kind: &str, v: serde_json::Value) -> ObjectSummary {
    let obj: DynamicObject = serde_json::from_value(v).unwrap();
    ObjectSummary::from_object(kind, &Arc::new(obj), None).unwrap()
}

fn deployment(name: &str, replicas: i64) -> ObjectSummary {
    summary(
        "Deployment",
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}")},
               "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}}}),
    )
}

fn node(name: &str) -> ObjectSummary {
    summary(
        "Node",
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": name, "uid": format!("uid-{name}")}}),
    )
}

fn app_of(resource: &str, rows: Vec<ObjectSummary>, readonly: bool) -> App {
    let cfg = AppConfig {
        resource: resource.into(),
        readonly,
        ..config()
    };
    app_with(cfg, rows).0
}

/// The one write among the effects.
fn the_write(fx: &[Effect]) -> &Write {
    match fx {
        [Effect::Write(w)] => w,
        other => panic!("expected one write, got {other:?}"),
    }
}

fn footer(app: &App) -> (String, bool) {
    app.message.clone().expect("a footer message")
}

#[test]
fn scale_opens_a_dialog_with_the_current_replicas_and_sends_the_typed_count() {
    let mut app = app_of("deployments", vec![deployment("web", 3)], false);
    assert!(app.update(key('s')).is_empty());
    let Mode::Scale(d) = &app.mode else {
        panic!("scale dialog expected, got {:?}", app.mode)
    };
    assert_eq!(d.current, Some(3));
    assert_eq!(d.input.value(), "3");
    app.update(code(KeyCode::Backspace));
    assert!(type_str(&mut app, "5").is_empty());
    let fx = app.update(code(KeyCode::Enter));
    let w = the_write(&fx);
    assert_eq!(w.op, Operation::Scale(5));
    assert_eq!(
        (w.namespace.as_deref(), w.name.as_str()),
        (Some("default"), "web")
    );
    assert_eq!(w.resource.api_resource.plural, "deployments");
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn scale_keeps_the_dialog_open_on_what_is_not_a_count_and_esc_sends_nothing() {
    let mut app = app_of("deployments", vec![deployment("web", 2)], false);
    app.update(key('s'));
    app.update(code(KeyCode::Backspace));
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    let Mode::Scale(d) = &app.mode else { panic!() };
    assert_eq!(d.error.as_deref(), Some("type a replica count"));
    app.update(key('x'));
    let Mode::Scale(d) = &app.mode else { panic!() };
    assert_eq!(d.input.value(), "", "a letter is not typed");
    assert_eq!(d.error.as_deref(), Some("digits only"));
    type_str(&mut app, "99999");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    let Mode::Scale(d) = &app.mode else { panic!() };
    assert_eq!(d.error.as_deref(), Some("at most 10000 replicas"));
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
}

/// The current count is shown selected: a count typed at once replaces it (it used to be
/// appended: `3` then `5` scaled to 35); a cursor key keeps it for editing.
#[test]
fn a_count_typed_into_the_scale_dialog_replaces_the_current_one() {
    let mut app = app_of("deployments", vec![deployment("web", 3)], false);
    app.update(key('s'));
    type_str(&mut app, "12");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(the_write(&fx).op, Operation::Scale(12));
    app.update(key('s'));
    app.update(code(KeyCode::End));
    type_str(&mut app, "0");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(the_write(&fx).op, Operation::Scale(30));
}

#[test]
fn restart_and_drain_on_a_pod_say_where_they_apply() {
    let mut app = app_of("pods", vec![simple_pod("default", "api-1")], false);
    // `r` restarts workloads and drains nodes (as in k9s): neither fits a pod.
    assert!(app.update(key('r')).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    let (m, error) = footer(&app);
    assert!(error);
    assert_eq!(
        m,
        "r: nothing to do on a Pod (restart: deploy/sts/ds · drain: nodes)"
    );
    assert!(app.update(key('D')).is_empty());
    assert_eq!(footer(&app).0, "drain does not apply to a Pod");
}

#[test]
fn restart_is_sent_only_after_confirmation() {
    let mut app = app_of("deployments", vec![deployment("web", 2)], false);
    assert!(app.update(key('r')).is_empty());
    assert!(matches!(app.mode, Mode::Confirm(_)));
    assert!(app.update(code(KeyCode::Esc)).is_empty(), "esc cancels");
    assert!(matches!(app.mode, Mode::Normal));
    app.update(key('r'));
    let fx = app.update(key('y'));
    assert_eq!(the_write(&fx).op, Operation::Restart);
    // The footer says it is under way; the runtime's Notify replaces it with the answer.
    assert_eq!(footer(&app).0, "restart deployment default/web…");
    app.update(Action::Notify {
        message: "deployment default/web restarted".into(),
        error: false,
    });
    assert_eq!(
        footer(&app),
        ("deployment default/web restarted".to_string(), false)
    );
}

#[test]
fn kill_needs_confirmation_and_sends_a_grace_zero_delete_of_the_pod() {
    let mut app = app_of("pods", vec![simple_pod("default", "api-1")], false);
    assert!(app.update(ctrl('k')).is_empty());
    let Mode::Confirm(c) = &app.mode else {
        panic!()
    };
    assert_eq!(c.verb(), "Kill");
    assert!(
        app.update(code(KeyCode::Enter)).is_empty(),
        "Cancel has the focus"
    );
    app.update(ctrl('k'));
    app.update(code(KeyCode::Tab));
    let fx = app.update(code(KeyCode::Enter));
    let w = the_write(&fx);
    assert_eq!((w.op.clone(), w.name.as_str()), (Operation::Kill, "api-1"));
}

#[test]
fn kill_on_a_deployment_is_refused() {
    let mut app = app_of("deployments", vec![deployment("web", 1)], false);
    assert!(app.update(ctrl('k')).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    assert_eq!(footer(&app).0, "kill does not apply to a Deployment");
}

#[test]
fn the_delete_dialog_cycles_the_propagation_policy() {
    let mut app = app_of("deployments", vec![deployment("web", 1)], false);
    app.update(ctrl('d'));
    app.update(key('p'));
    app.update(key('p'));
    let fx = app.update(key('y'));
    assert_eq!(
        the_write(&fx).op,
        Operation::Delete(Propagation::Orphan),
        "background → foreground → orphan"
    );
    app.update(ctrl('d'));
    app.update(key('p'));
    let fx = app.update(key('y'));
    assert_eq!(
        the_write(&fx).op,
        Operation::Delete(Propagation::Foreground)
    );
}

#[test]
fn cordon_and_uncordon_are_confirmed_as_k9s_does_on_a_node_only() {
    let mut app = app_of("nodes", vec![node("worker-1")], false);
    // k9s asks "Cordon worker-1?" (internal/view/node.go): nothing goes out before `y`.
    assert!(app.update(key('c')).is_empty());
    assert!(matches!(app.mode, Mode::Confirm(_)), "{:?}", app.mode);
    let fx = app.update(key('y'));
    let w = the_write(&fx);
    assert_eq!(
        (w.op.clone(), w.name.as_str()),
        (Operation::Cordon, "worker-1")
    );
    assert_eq!(w.namespace, None);
    assert!(app.update(key('u')).is_empty());
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    app.update(key('u'));
    assert_eq!(the_write(&app.update(key('y'))).op, Operation::Uncordon);
    let mut pods = app_of("pods", vec![simple_pod("default", "a")], false);
    assert!(pods.update(key('c')).is_empty());
    assert_eq!(footer(&pods).0, "cordon does not apply to a Pod");
}

#[test]
fn drain_is_confirmed_shows_progress_and_esc_cancels_it() {
    let mut app = app_of("nodes", vec![node("worker-1")], false);
    assert!(app.update(key('D')).is_empty());
    let Mode::Confirm(c) = &app.mode else {
        panic!()
    };
    assert_eq!(c.verb(), "Drain");
    let fx = app.update(key('y'));
    assert_eq!(
        fx,
        vec![Effect::Drain {
            node: "worker-1".into(),
            opts: DrainOptions::default()
        }]
    );
    assert!(matches!(app.mode, Mode::Drain));
    app.update(Action::Drain(DrainEvent::Cordoned));
    app.update(Action::Drain(DrainEvent::Planned {
        evict: vec!["shop/web-1".into(), "shop/web-2".into()],
        skipped: vec![("kube-system/proxy".into(), "DaemonSet-managed".into())],
        warnings: vec![],
    }));
    app.update(Action::Drain(DrainEvent::Blocked {
        pod: "shop/web-2".into(),
        message: "Cannot evict pod as it would violate the pod's disruption budget.".into(),
        retry_in: Duration::from_secs(1),
    }));
    app.update(Action::Drain(DrainEvent::Evicted("shop/web-1".into())));
    let d = app.drain.clone().unwrap();
    assert!(d.cordoned);
    assert_eq!((d.planned, d.skipped, d.evicted.len()), (Some(2), 1, 1));
    assert_eq!(d.blocked.as_ref().map(|b| b.0.as_str()), Some("shop/web-2"));
    assert!(app.update(key('j')).is_empty(), "other keys do not stop it");
    assert_eq!(app.update(code(KeyCode::Esc)), vec![Effect::CancelDrain]);
    assert_eq!(app.drain.as_ref().unwrap().state, DrainState::Cancelling);
    assert!(
        app.update(code(KeyCode::Esc)).is_empty(),
        "cancel is asked once"
    );
    app.update(Action::Drain(DrainEvent::Cancelled));
    assert_eq!(
        footer(&app).0,
        "drain node worker-1 cancelled after 1 evictions (the node stays cordoned)"
    );
    assert!(matches!(app.mode, Mode::Drain), "the summary stays up");
    assert!(app.update(key('q')).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    assert!(app.drain.is_none());
}

#[test]
fn a_drain_that_ends_in_failure_says_so_in_red() {
    let mut app = app_of("nodes", vec![node("worker-1")], false);
    app.update(key('D'));
    app.update(key('y'));
    app.update(Action::Drain(DrainEvent::Error(
        "cannot drain: shop/lonely (declares no controller; use --force)".into(),
    )));
    assert_eq!(
        footer(&app),
        (
            "drain node worker-1: cannot drain: shop/lonely (declares no controller; use --force)"
                .to_string(),
            true
        )
    );
}

#[test]
fn readonly_refuses_every_operating_key_without_a_dialog() {
    let cases: [(&str, Vec<ObjectSummary>, Action, &str); 7] = [
        (
            "pods",
            vec![simple_pod("default", "a")],
            ctrl('d'),
            "delete",
        ),
        ("pods", vec![simple_pod("default", "a")], ctrl('k'), "kill"),
        ("deployments", vec![deployment("web", 1)], key('s'), "scale"),
        (
            "deployments",
            vec![deployment("web", 1)],
            key('r'),
            "restart",
        ),
        ("nodes", vec![node("n")], key('c'), "cordon"),
        ("nodes", vec![node("n")], key('u'), "uncordon"),
        ("nodes", vec![node("n")], key('D'), "drain"),
    ];
    for (resource, rows, k, name) in cases {
        let mut app = app_of(resource, rows, true);
        assert!(app.update(k).is_empty(), "{name}: no effect");
        assert!(matches!(app.mode, Mode::Normal), "{name}: no dialog");
        assert_eq!(
            footer(&app),
            (
                format!("read-only mode: {name} is disabled (started with --readonly)"),
                true
            )
        );
    }
}

#[test]
fn s_opens_a_shell_in_the_selected_pod_and_only_in_a_pod() {
    let mut app = app_of("pods", vec![simple_pod("default", "api-1")], false);
    assert_eq!(
        app.update(key('s')),
        vec![Effect::FetchContainers {
            namespace: "default".into(),
            pod: "api-1".into(),
        }]
    );
    assert!(matches!(app.mode, Mode::Containers(_)));
    // One container: the shell opens at once.
    let fx = app.update(Action::Containers {
        namespace: "default".into(),
        pod: "api-1".into(),
        result: Ok((vec!["app".into()], 0)),
    });
    assert_eq!(
        fx,
        vec![Effect::Shell {
            namespace: "default".into(),
            pod: "api-1".into(),
            container: Some("app".into()),
        }]
    );
    assert!(matches!(app.mode, Mode::Normal));
    let mut ro = app_of("pods", vec![simple_pod("default", "api-1")], true);
    assert!(ro.update(key('s')).is_empty());
    assert_eq!(
        footer(&ro).0,
        "read-only mode: shell is disabled (started with --readonly)"
    );
    // On a Deployment `s` scales (k9s): the dialog opens, no shell.
    let mut deploys = app_of("deployments", vec![deployment("web", 1)], false);
    assert!(deploys.update(key('s')).is_empty());
    assert!(matches!(deploys.mode, Mode::Scale(_)), "{:?}", deploys.mode);
}

#[test]
fn a_pod_with_several_containers_asks_which_starting_at_the_default() {
    let mut app = app_of("pods", vec![simple_pod("default", "api-1")], false);
    app.update(key('s'));
    let fx = app.update(Action::Containers {
        namespace: "default".into(),
        pod: "api-1".into(),
        result: Ok((vec!["app".into(), "proxy".into(), "log".into()], 1)),
    });
    assert!(fx.is_empty(), "a choice to make first");
    let Mode::Containers(p) = &app.mode else {
        panic!()
    };
    assert_eq!(p.selected, 1, "the default container is selected");
    app.update(code(KeyCode::Down));
    assert_eq!(
        app.update(code(KeyCode::Enter)),
        vec![Effect::Shell {
            namespace: "default".into(),
            pod: "api-1".into(),
            container: Some("log".into()),
        }]
    );
    // Esc while loading: nothing opens later.
    app.update(key('s'));
    app.update(code(KeyCode::Esc));
    let late = app.update(Action::Containers {
        namespace: "default".into(),
        pod: "api-1".into(),
        result: Ok((vec!["app".into()], 0)),
    });
    assert!(late.is_empty(), "a late answer opens no shell");
}

#[test]
fn shift_f_fetches_the_pods_ports_then_starts_the_chosen_forward() {
    use kinformer::ui::action::ContainerPort;
    let mut app = app_of("pods", vec![simple_pod("default", "api-1")], false);
    assert_eq!(
        app.update(key('F')),
        vec![Effect::FetchPorts {
            namespace: "default".into(),
            pod: "api-1".into()
        }]
    );
    assert!(matches!(app.mode, Mode::Forward(_)));
    let port = |container: &str, port: u16, name: &str| ContainerPort {
        container: container.into(),
        port,
        name: name.into(),
        protocol: "TCP".into(),
    };
    // An answer for another pod is not this dialog's.
    app.update(Action::Ports {
        namespace: "default".into(),
        pod: "other".into(),
        result: Ok(vec![port("x", 1, "")]),
    });
    let Mode::Forward(d) = &app.mode else {
        panic!()
    };
    assert!(d.ports.is_none());
    app.update(Action::Ports {
        namespace: "default".into(),
        pod: "api-1".into(),
        result: Ok(vec![port("app", 8080, "http"), port("metrics", 9090, "")]),
    });
    let Mode::Forward(d) = &app.mode else {
        panic!()
    };
    assert_eq!(
        d.local.value(),
        "8080",
        "the local port follows the pod port"
    );
    app.update(code(KeyCode::Down));
    let Mode::Forward(d) = &app.mode else {
        panic!()
    };
    assert_eq!(d.local.value(), "9090");
    app.update(code(KeyCode::Backspace));
    type_str(&mut app, "1");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(
        fx,
        vec![Effect::StartForward {
            id: 1,
            namespace: "default".into(),
            pod: "api-1".into(),
            port: 9090,
            local: 9091,
        }]
    );
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn port_forward_is_refused_in_readonly_and_off_pods() {
    let mut ro = app_of("pods", vec![simple_pod("default", "api-1")], true);
    assert!(ro.update(key('F')).is_empty());
    assert!(matches!(ro.mode, Mode::Normal));
    assert_eq!(
        footer(&ro).0,
        "read-only mode: port-forward is disabled (started with --readonly)"
    );
    let mut nodes = app_of("nodes", vec![node("n")], false);
    assert!(nodes.update(key('F')).is_empty());
    assert_eq!(footer(&nodes).0, "port-forward does not apply to a Node");
}

#[test]
fn shift_f_on_a_service_forwards_to_one_of_its_pods_through_the_target_port() {
    use kinformer::ui::action::{ContainerPort, ForwardKind, SelectorPorts};
    use kinformer::ui::portforward::RemotePort;
    let svc = summary(
        "Service",
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "web", "namespace": "default", "uid": "uid-svc"}}),
    );
    let mut app = app_of("services", vec![svc], false);
    assert_eq!(
        app.update(key('F')),
        vec![Effect::FetchTargetPorts {
            namespace: "default".into(),
            kind: ForwardKind::Service,
            name: "web".into(),
        }]
    );
    // A pod's ports for a same-named pod are not this dialog's.
    app.update(Action::Ports {
        namespace: "default".into(),
        pod: "web".into(),
        result: Ok(vec![]),
    });
    let Mode::Forward(d) = &app.mode else {
        panic!()
    };
    assert!(d.ports.is_none());
    let port = |port: u16, name: &str, to: &RemotePort| ContainerPort {
        container: format!("→ {to}"),
        port,
        name: name.into(),
        protocol: "TCP".into(),
    };
    let (http, admin) = (RemotePort::Name("http".into()), RemotePort::Number(9000));
    app.update(Action::TargetPorts {
        namespace: "default".into(),
        name: "web".into(),
        result: Ok(SelectorPorts {
            selector: "app=web".into(),
            ports: vec![port(8080, "web", &http), port(9001, "admin", &admin)],
            remotes: vec![http.clone(), admin],
        }),
    });
    let Mode::Forward(d) = &app.mode else {
        panic!()
    };
    assert_eq!(
        d.local.value(),
        "8080",
        "the local port follows the service port"
    );
    assert_eq!(
        app.update(code(KeyCode::Enter)),
        vec![Effect::StartForwardTarget {
            id: 1,
            namespace: "default".into(),
            what: "svc/web".into(),
            selector: "app=web".into(),
            port: http,
            local: 8080,
        }]
    );
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn a_deployment_forward_without_a_selector_or_in_readonly_starts_nothing() {
    use kinformer::ui::action::{ForwardKind, SelectorPorts};
    let mut app = app_of("deployments", vec![deployment("web", 2)], false);
    assert_eq!(
        app.update(key('F')),
        vec![Effect::FetchTargetPorts {
            namespace: "default".into(),
            kind: ForwardKind::Deployment,
            name: "web".into(),
        }]
    );
    app.update(Action::TargetPorts {
        namespace: "default".into(),
        name: "web".into(),
        result: Ok(SelectorPorts {
            selector: String::new(),
            ports: vec![],
            remotes: vec![],
        }),
    });
    let Mode::Forward(d) = &app.mode else {
        panic!()
    };
    assert_eq!(
        d.ports.clone().and_then(Result::err).as_deref(),
        Some("the deployment has no selector: no pods to forward to")
    );
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert!(
        matches!(app.mode, Mode::Forward(_)),
        "stays open with the error"
    );

    let mut ro = app_of("deployments", vec![deployment("web", 2)], true);
    assert!(ro.update(key('F')).is_empty());
    assert_eq!(
        footer(&ro).0,
        "read-only mode: port-forward is disabled (started with --readonly)"
    );
}

#[test]
fn pf_lists_the_forwards_and_ctrl_d_stops_the_selected_one() {
    use kinformer::ui::app::Screen;
    use kinformer::ui::portforward::ForwardRow;
    let mut app = app_of("pods", vec![simple_pod("default", "api-1")], false);
    let row = |id: u64, local: u16| ForwardRow {
        id,
        namespace: "default".into(),
        pod: "api-1".into(),
        port: 8080,
        local,
        connections: 0,
        active: 0,
        bytes_in: 0,
        bytes_out: 0,
        errors: 0,
        target: None,
        moved: 0,
    };
    app.update(Action::Forwards(vec![row(1, 8080), row(2, 8081)]));
    app.update(key(':'));
    type_str(&mut app, "pf");
    app.update(code(KeyCode::Enter));
    assert!(matches!(
        app.current_screen(),
        Some(Screen::PortForwards(_))
    ));
    assert!(
        app.update(key('s')).is_empty(),
        "table keys do not apply here"
    );
    assert!(matches!(app.mode, Mode::Normal));
    app.update(key('j'));
    assert_eq!(app.update(ctrl('d')), vec![Effect::StopForward { id: 2 }]);
    app.update(Action::Forwards(vec![row(1, 8080)]));
    assert_eq!(app.update(ctrl('d')), vec![Effect::StopForward { id: 1 }]);
    app.update(Action::Forwards(vec![]));
    assert!(app.update(ctrl('d')).is_empty());
    assert_eq!(footer(&app).0, "no port-forward to stop");
}

#[test]
fn e_emits_the_edit_of_the_selected_object_as_in_k9s() {
    let mut app = app_of("deployments", vec![deployment("web", 1)], false);
    let fx = app.update(key('e'));
    match &fx[..] {
        [
            Effect::Edit {
                resource,
                namespace,
                name,
            },
        ] => {
            assert_eq!(resource.api_resource.kind, "Deployment");
            assert_eq!(namespace.as_deref(), Some("default"));
            assert_eq!(name, "web");
        }
        other => panic!("expected one edit, got {other:?}"),
    }
    assert!(matches!(app.mode, Mode::Normal), "no dialog: the editor is");
    // Any kind: a node (cluster-scoped) too.
    let mut app = app_of("nodes", vec![node("n")], false);
    assert!(matches!(
        &app.update(key('e'))[..],
        [Effect::Edit { namespace: None, name, .. }] if name == "n"
    ));
}

#[test]
fn readonly_refuses_edit_before_any_editor_opens() {
    let mut app = app_of("deployments", vec![deployment("web", 1)], true);
    assert!(app.update(key('e')).is_empty());
    assert_eq!(
        footer(&app),
        (
            "read-only mode: edit is disabled (started with --readonly)".to_string(),
            true
        )
    );
}

#[test]
fn the_edits_answer_reaches_the_footer() {
    let mut app = app_of("deployments", vec![deployment("web", 1)], false);
    app.update(key('e'));
    app.update(Action::Notify {
        message: "edit cancelled, no changes".into(),
        error: false,
    });
    assert_eq!(
        footer(&app),
        ("edit cancelled, no changes".to_string(), false)
    );
}
