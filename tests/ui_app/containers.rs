//! Enter on a pod opens its containers (k9s's container view); the keys there act on the
//! selected container.

use kinformer::ui::log_stream::ContainerPick;

use super::*;

/// The pods table with `web-1`, Enter pressed and the pod's containers answered.
pub(crate) fn containers_open(cfg: AppConfig) -> (App, ViewId) {
    let (mut app, view) = app_with(cfg, vec![simple_pod("default", "web-1")]);
    let fx = app.update(code(KeyCode::Enter));
    assert!(
        fx.iter().any(|e| matches!(e,
            Effect::FetchPodContainers { namespace, pod } if namespace == "default" && pod == "web-1")),
        "Enter on a pod reads its containers: {fx:?}"
    );
    app.update(Action::PodContainers {
        namespace: "default".into(),
        pod: "web-1".into(),
        result: Ok(shop_containers()),
    });
    (app, view)
}

fn names(app: &App) -> Vec<String> {
    let Some(Screen::Containers(v)) = app.current_screen() else {
        panic!("not the containers screen: {:?}", app.current_screen())
    };
    match &v.rows {
        Some(Ok(rows)) => rows.iter().map(|r| r.name.clone()).collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn enter_on_a_pod_opens_its_containers_init_first_and_ephemeral_last() {
    let (app, _) = containers_open(config());
    assert_eq!(names(&app), ["migrate", "web", "proxy", "debugger"]);
    let text = screen_text(&app);
    assert!(text.contains("Containers(default/web-1)[4]"), "{text}");
    assert!(text.contains("ephemeral"), "{text}");
}

#[test]
fn enter_and_l_on_a_container_open_its_logs_and_p_its_previous_instances() {
    for (k, previous) in [
        (code(KeyCode::Enter), false),
        (key('l'), false),
        (key('p'), true),
    ] {
        let (mut app, _) = containers_open(config());
        app.update(key('j'));
        let fx = app.update(k.clone());
        let opened = fx.iter().find_map(|e| match e {
            Effect::OpenLogs {
                containers,
                options,
                ..
            } => Some((containers.clone(), options.previous)),
            _ => None,
        });
        assert_eq!(
            opened,
            Some((ContainerPick::One("web".into()), previous)),
            "{k:?}: {fx:?}"
        );
        assert!(matches!(app.current_screen(), Some(Screen::Logs(_))));
    }
}

#[test]
fn s_and_a_on_a_container_open_a_shell_in_it_and_attach_to_it() {
    let (mut app, _) = containers_open(config());
    app.update(key('j'));
    app.update(key('j'));
    let fx = app.update(key('s'));
    assert!(
        fx.iter().any(|e| matches!(e,
            Effect::Shell { pod, container: Some(c), .. } if pod == "web-1" && c == "proxy")),
        "{fx:?}"
    );
    let fx = app.update(key('a'));
    assert!(
        fx.iter().any(|e| matches!(e,
            Effect::Attach { pod, container, .. } if pod == "web-1" && container == "proxy")),
        "{fx:?}"
    );
}

#[test]
fn shell_attach_and_port_forward_on_a_container_are_refused_when_read_only() {
    let cfg = AppConfig {
        readonly: true,
        ..config()
    };
    let (mut app, _) = containers_open(cfg);
    app.update(key('j'));
    for k in [key('s'), key('a'), key('F')] {
        let fx = app.update(k.clone());
        assert!(
            !fx.iter()
                .any(|e| matches!(e, Effect::Shell { .. } | Effect::Attach { .. })),
            "{fx:?}"
        );
        assert!(matches!(app.mode, Mode::Normal), "{k:?}: {:?}", app.mode);
        let (msg, error) = app.message.clone().unwrap();
        assert!(error && msg.contains("read-only"), "{msg}");
    }
}

#[test]
fn shift_f_on_a_container_offers_its_own_ports() {
    let (mut app, _) = containers_open(config());
    app.update(key('j'));
    app.update(key('F'));
    let Mode::Forward(d) = &app.mode else {
        panic!("{:?}", app.mode)
    };
    let ports: Vec<u16> = d
        .ports
        .as_ref()
        .unwrap()
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| p.port)
        .collect();
    assert_eq!(ports, [8080, 9090]);
    assert_eq!(d.local.value(), "8080");
    // A container without ports says so.
    app.update(code(KeyCode::Esc));
    app.update(key('j'));
    app.update(key('F'));
    assert!(matches!(app.mode, Mode::Normal));
    assert!(app.message.clone().unwrap().0.contains("no ports"));
}

#[test]
fn a_new_version_of_the_pod_reads_its_containers_again_and_esc_returns_to_the_pods() {
    let (mut app, view) = containers_open(config());
    let mut changed = simple_pod("default", "web-1");
    let mut obj = (*changed.object).clone();
    obj.metadata.resource_version = Some("11".into());
    changed.object = std::sync::Arc::new(obj);
    let fx = app.update(Action::Rows {
        view,
        upserts: vec![changed.clone()],
        deletes: vec![],
    });
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::FetchPodContainers { pod, .. } if pod == "web-1")),
        "{fx:?}"
    );
    // The same version again: nothing to read.
    let fx = app.update(Action::Rows {
        view,
        upserts: vec![changed],
        deletes: vec![],
    });
    assert!(
        !fx.iter()
            .any(|e| matches!(e, Effect::FetchPodContainers { .. })),
        "{fx:?}"
    );
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Table(v)) if *v == view));
}

#[test]
fn y_still_shows_a_pods_yaml() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    let fx = app.update(key('y'));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::FetchYaml { .. })),
        "{fx:?}"
    );
}

#[test]
fn a_on_a_pod_attaches_to_its_container_and_is_refused_when_read_only() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    let fx = app.update(key('a'));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::FetchContainers { .. })),
        "{fx:?}"
    );
    let fx = app.update(Action::Containers {
        namespace: "default".into(),
        pod: "web-1".into(),
        result: Ok((vec!["web".into()], 0)),
    });
    assert!(
        fx.iter().any(|e| matches!(e,
            Effect::Attach { pod, container, .. } if pod == "web-1" && container == "web")),
        "one container: attached at once: {fx:?}"
    );
    let cfg = AppConfig {
        readonly: true,
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![simple_pod("default", "web-1")]);
    assert!(app.update(key('a')).is_empty());
    assert!(app.message.clone().unwrap().0.contains("read-only"));
}
