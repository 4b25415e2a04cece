//! Forbidden views: the access review, fallbacks, retries and what the user is told.

use super::*;

#[test]
fn informer_panel_counts_only_informers_failing_now() {
    let (mut app, _) = app_with(config(), three_pods());
    let mut recovered = informer_row("pods", Some("default"), InformerState::Watching);
    recovered.list_mode = "fallback";
    recovered.last_error = Some("500: RequestWatchProgress is disabled".into());
    let backing_off = InformerState::BackingOff {
        until_ms: app.now_ms + 5_000,
    };
    let mut failing = informer_row("deployments.apps", Some("default"), backing_off);
    failing.last_error = Some("connection refused".into());
    app.update(Action::InformerStats(vec![recovered, failing]));
    app.update(key(':'));
    type_str(&mut app, "informers");
    app.update(code(KeyCode::Enter));
    let text = screen_text(&app);
    assert!(text.contains("1 failing"), "{text}");
    assert!(text.contains("fallback"), "{text}");
}

#[test]
fn forbidden_all_namespaces_view_falls_back_to_the_context_namespace_once_it_is_allowed() {
    let cfg = AppConfig {
        namespace: None,
        context_namespace: Some("team-a".into()),
        ..config()
    };
    let (mut app, v) = app_with(cfg, vec![]);
    let mut row = informer_row(
        "pods",
        None,
        InformerState::Forbidden {
            retry_at_ms: NOW_MS + 300_000,
        },
    );
    row.forbidden = true;
    row.last_error = Some("pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" at the cluster scope".into());
    let fx = app.update(Action::InformerStats(vec![row]));
    // First the question (is the context's namespace allowed?), no switch yet.
    assert_eq!(
        fx.iter()
            .filter_map(|e| match e {
                Effect::CheckAccess {
                    view, namespace, ..
                } => Some((*view, namespace.clone())),
                _ => None,
            })
            .collect::<Vec<_>>(),
        vec![(v, Some("team-a".to_string()))]
    );
    assert!(opened(&fx).is_empty());
    let fx = app.update(Action::AccessChecked {
        view: v,
        namespace: Some("team-a".into()),
        access: Access::Allowed,
    });
    assert!(fx.contains(&Effect::CloseView { view: v }));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("team-a"));
    assert_eq!(app.namespace.as_deref(), Some("team-a"));
    assert_eq!(
        app.message.clone().unwrap().0,
        "listing pods in all namespaces is forbidden for user jane: showing namespace team-a"
    );
}

#[test]
fn all_namespaces_view_stays_and_says_both_are_forbidden_when_the_context_namespace_is_too() {
    let cfg = AppConfig {
        namespace: None,
        resource: "deployments".into(),
        context_namespace: Some("bench".into()),
        ..config()
    };
    let (mut app, v, _) = fresh_app(cfg);
    let fx = app.update(Action::Forbidden {
        view: v,
        denial: denial("list", JANE_DEPLOY_ALL),
    });
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::CheckAccess { namespace: Some(n), .. } if n == "bench"))
    );
    let fx = app.update(Action::AccessChecked {
        view: v,
        namespace: Some("bench".into()),
        access: Access::Denied(Denial::from_message("list", JANE_DEPLOY_BENCH, None)),
    });
    assert!(fx.is_empty(), "no switch to a forbidden namespace: {fx:?}");
    assert_eq!(app.current_view_id(), Some(v));
    assert_eq!(app.namespace, None);
    let text = screen_text(&app);
    assert!(
        text.contains("listing deployments is forbidden for user jane in all namespaces and in namespace bench"),
        "{text}"
    );
    assert!(text.contains("at the cluster scope"), "{text}");
    // The server's messages wrap: compare without the wrapping.
    let flat = |t: &str| t.replace(['│', '\n', ' '], "");
    assert!(flat(&text).contains(&flat(JANE_DEPLOY_BENCH)), "{text}");
}

#[test]
fn a_view_the_review_denies_says_plainly_who_may_not_list_what_where() {
    let cfg = AppConfig {
        namespace: Some("bench".into()),
        resource: "deployments".into(),
        ..config()
    };
    let (mut app, v, _) = fresh_app(cfg);
    app.update(Action::Forbidden {
        view: v,
        denial: denial("list", JANE_DEPLOY_BENCH),
    });
    let text = screen_text(&app);
    assert!(
        text.contains("listing deployments is forbidden for user jane in namespace bench"),
        "{text}"
    );
    assert!(
        text.contains("cannot list resource \"deployments\""),
        "{text}"
    );
    assert!(
        text.contains("checked again in 5m") || text.contains("again in 300s"),
        "{text}"
    );
    assert!(text.contains("forbidden: not started"), "header: {text}");
    for transient in ["backing off", "syncing", "loading"] {
        assert!(!text.contains(transient), "{transient:?} in {text}");
    }
}

#[test]
fn retry_key_on_a_forbidden_view_emits_the_retry_effect() {
    let cfg = AppConfig {
        namespace: Some("bench".into()),
        resource: "deployments".into(),
        ..config()
    };
    let (mut app, v, ns_view) = fresh_app(cfg);
    app.update(Action::Forbidden {
        view: ns_view,
        denial: denial("list", "namespaces is forbidden: User \"jane\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope"),
    });
    // Not forbidden (yet): ctrl-r checks the server's history instead.
    assert_eq!(
        app.update(ctrl('r')),
        vec![Effect::CheckHistory { view: v }]
    );
    app.update(Action::Forbidden {
        view: v,
        denial: denial("list", JANE_DEPLOY_BENCH),
    });
    let fx = app.update(ctrl('r'));
    assert_eq!(
        fx,
        vec![
            Effect::RetryForbidden { view: v },
            Effect::RetryForbidden { view: ns_view }
        ]
    );
    assert!(
        app.views[&v].denial.is_none(),
        "the view waits for the answer"
    );
}

#[test]
fn ns_command_switches_by_hand_and_says_there_is_no_completion_when_namespaces_are_forbidden() {
    let (mut app, _, ns_view) = fresh_app(config());
    app.update(Action::Forbidden {
        view: ns_view,
        denial: denial("list", "namespaces is forbidden: User \"jane\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope"),
    });
    app.update(key(':'));
    type_str(&mut app, "ns bench");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("bench"));
    let (msg, _) = app.message.clone().unwrap();
    assert!(msg.contains("no completion"), "{msg}");
}

#[test]
fn a_forbidden_informer_reads_forbidden_with_its_slow_retry_not_backing_off() {
    let cfg = AppConfig {
        resource: "secrets".into(),
        ..config()
    };
    let (mut app, _, _) = fresh_app(cfg);
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
    let text = screen_text(&app);
    assert!(text.contains("forbidden, retry in 300s"), "{text}");
    assert!(
        text.contains("listing secrets is forbidden for user dev in namespace default"),
        "{text}"
    );
    for transient in ["backing off", "syncing"] {
        assert!(!text.contains(transient), "{transient:?} in {text}");
    }
}

#[test]
fn forbidden_namespaced_view_stays_and_says_so() {
    let cfg = AppConfig {
        context_namespace: Some("team-a".into()),
        ..config()
    };
    let (mut app, v) = app_with(cfg, vec![]);
    let mut row = informer_row("pods", Some("default"), InformerState::Watching);
    row.forbidden = true;
    assert!(app.update(Action::InformerStats(vec![row])).is_empty());
    assert_eq!(app.current_view_id(), Some(v));
}

#[test]
fn enter_on_an_informer_row_opens_its_resource() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::InformerStats(vec![
        informer_row("pods", Some("default"), InformerState::Watching),
        informer_row("deployments.apps", Some("shop"), InformerState::Watching),
    ]));
    app.update(key(':'));
    type_str(&mut app, "informers");
    app.update(code(KeyCode::Enter));
    app.update(key('j'));
    let fx = app.update(code(KeyCode::Enter));
    let (view, plural, ns) = opened(&fx)[0].clone();
    assert_eq!(
        (plural.as_str(), ns.as_deref()),
        ("deployments", Some("shop"))
    );
    assert_eq!(app.current_view_id(), Some(view));
    let fx = app.update(code(KeyCode::Esc));
    assert_eq!(fx, vec![Effect::CloseView { view }]);
    assert!(matches!(app.current_screen(), Some(Screen::Informers(_))));
}

#[test]
fn mouse_wheel_scrolls_and_click_selects_a_row() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let rows = (0..30)
        .map(|i| simple_pod("default", &format!("p{i:02}")))
        .collect();
    let (mut app, v) = app_with(config(), rows);
    let mouse = |kind, row| {
        Action::Mouse(MouseEvent {
            kind,
            column: 10,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    app.update(mouse(MouseEventKind::ScrollDown, 10));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p03"));
    app.update(mouse(MouseEventKind::ScrollUp, 10));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p00"));
    app.update(mouse(MouseEventKind::Down(MouseButton::Left), 7));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p02"));
}
