//! The label filter answered from the label index, and its picker.

use super::*;

#[test]
fn label_filter_is_answered_from_the_label_index() {
    let (mut app, v) = app_with(config(), labelled_pods());
    assert!(app.apply_label_filter(v, "app=web,env=prod"));
    assert_eq!(shown(&app, v), ["default/web-1"]);
    let lf = app.views[&v].table.filters.label.clone().unwrap();
    assert!(lf.from_index);
    assert_eq!(
        lf.index_terms,
        vec!["app=web".to_string(), "env=prod".to_string()]
    );
}

#[test]
fn label_filter_set_terms_refine_the_index_result() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.apply_label_filter(v, "app=web,env in (prod,stage),!canary");
    assert_eq!(shown(&app, v), ["default/web-1"]);
    app.apply_label_filter(v, "env notin (prod)");
    assert_eq!(shown(&app, v), ["default/web-2", "default/web-3"]);
    assert!(
        !app.views[&v]
            .table
            .filters
            .label
            .as_ref()
            .unwrap()
            .from_index,
        "no index term: scan"
    );
    // Rows arriving later are matched against the selector.
    app.update(Action::Rows {
        view: v,
        upserts: vec![pod(PodSpec {
            name: "web-4",
            labels: &[("env", "qa")],
            ..PodSpec::default()
        })],
        deletes: vec![],
    });
    assert_eq!(shown(&app, v).len(), 3);
}

#[test]
fn slash_dash_l_applies_a_label_selector() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.update(key('/'));
    type_str(&mut app, "-l app=db");
    app.update(code(KeyCode::Enter));
    assert_eq!(shown(&app, v), ["default/db-0"]);
}

#[test]
fn invalid_label_selector_shows_an_inline_error() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    type_str(&mut app, "app in (web");
    app.update(code(KeyCode::Enter));
    match &app.mode {
        Mode::Labels(p) => assert!(
            p.error
                .as_deref()
                .unwrap()
                .contains("invalid label selector"),
            "{:?}",
            p.error
        ),
        m => panic!("picker should stay open: {m:?}"),
    }
    assert_eq!(shown(&app, v).len(), 4);
}

#[test]
fn label_picker_lists_index_values_and_applies_the_choice() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    let Mode::Labels(p) = &app.mode else { panic!() };
    let values: Vec<&str> = p.shown.iter().map(|i| p.all[*i].0.as_str()).collect();
    assert!(
        values.contains(&"app=web") && values.contains(&"canary"),
        "{values:?}"
    );
    let web = p.all.iter().find(|(v, _)| v == "app=web").unwrap();
    assert_eq!(web.1, 3, "count from the index");
    type_str(&mut app, "env=st");
    let Mode::Labels(p) = &app.mode else { panic!() };
    assert_eq!(p.shown.len(), 1);
    app.update(code(KeyCode::Tab));
    type_str(&mut app, ",app");
    app.update(code(KeyCode::Down)); // app=db
    app.update(code(KeyCode::Down)); // app=web
    let Mode::Labels(p) = &app.mode else { panic!() };
    assert_eq!(p.all[p.shown[p.selected]].0, "app=web");
    app.update(code(KeyCode::Tab));
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.mode, Mode::Normal));
    assert_eq!(
        app.views[&v].table.filters.label.as_ref().unwrap().text,
        "env=stage,app=web"
    );
    assert_eq!(shown(&app, v), ["default/web-2"]);
    assert!(
        app.message
            .clone()
            .unwrap()
            .0
            .contains("1 match (label index)")
    );
}

#[test]
fn enter_in_the_picker_takes_the_highlighted_value_for_a_partial_term() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    type_str(&mut app, "canar");
    app.update(code(KeyCode::Enter));
    assert_eq!(
        app.views[&v].table.filters.label.as_ref().unwrap().text,
        "canary"
    );
    assert_eq!(shown(&app, v), ["default/web-2"]);
}

#[test]
fn enter_in_the_picker_takes_the_highlighted_value_not_the_typed_text() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    type_str(&mut app, "app=");
    app.update(code(KeyCode::Down)); // app=db → app=web
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.mode, Mode::Normal));
    assert_eq!(
        app.views[&v].table.filters.label.as_ref().unwrap().text,
        "app=web"
    );
    assert_eq!(shown(&app, v).len(), 3);
}

#[test]
fn picker_ranks_the_exact_value_first_and_highlights_it_after_typing() {
    let (mut app, _) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    app.update(code(KeyCode::Down));
    app.update(code(KeyCode::Down));
    type_str(&mut app, "env");
    let Mode::Labels(p) = &app.mode else { panic!() };
    assert_eq!(p.selected, 0, "typing re-highlights the best match");
    assert_eq!(p.all[p.shown[0]].0, "env");
}

#[test]
fn picker_applies_a_typed_selector_that_matches_no_value() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    type_str(&mut app, "env!=prod");
    let Mode::Labels(p) = &app.mode else { panic!() };
    assert!(p.shown.is_empty());
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.mode, Mode::Normal));
    assert_eq!(
        app.views[&v].table.filters.label.as_ref().unwrap().text,
        "env!=prod"
    );
    assert_eq!(shown(&app, v), ["default/web-2", "default/web-3"]);
}

#[test]
fn picker_does_not_complete_inside_an_unclosed_set() {
    let (mut app, v) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    type_str(&mut app, "env in (prod,st");
    app.update(code(KeyCode::Enter));
    let Mode::Labels(p) = &app.mode else {
        panic!("an invalid selector keeps the picker open")
    };
    assert_eq!(p.input.value(), "env in (prod,st", "typed text kept as is");
    assert!(app.views[&v].table.filters.label.is_none());
}

#[test]
fn picker_input_starts_empty_without_a_filter() {
    let (mut app, _) = app_with(config(), labelled_pods());
    app.update(ctrl('l'));
    let Mode::Labels(p) = &app.mode else { panic!() };
    assert_eq!(p.input.value(), "");
}

#[test]
fn start_selector_is_applied_to_the_first_view() {
    let cfg = AppConfig {
        selector: Some("app=db".into()),
        ..config()
    };
    let (app, v) = app_with(cfg, labelled_pods());
    assert_eq!(shown(&app, v), ["default/db-0"]);
    assert!(
        app.views[&v]
            .table
            .filters
            .label
            .as_ref()
            .unwrap()
            .from_index,
        "answered by the index once it is attached"
    );
}

#[test]
fn resource_command_with_a_namespace_switches_both() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "deploy shop");
    let fx = app.update(code(KeyCode::Enter));
    let (_, plural, ns) = opened(&fx)[0].clone();
    assert_eq!(
        (plural.as_str(), ns.as_deref()),
        ("deployments", Some("shop"))
    );
    assert_eq!(app.namespace.as_deref(), Some("shop"));
}

#[test]
fn enter_on_a_replicaset_drills_down_to_its_pods_and_esc_returns() {
    let cfg = AppConfig {
        resource: "rs".into(),
        ..config()
    };
    let (mut app, rs_view) = app_with(cfg, vec![workload("default", "web-5d8f", Some("uid-web"))]);
    let fx = app.update(code(KeyCode::Enter));
    let pods_view = opened(&fx)[0].0;
    assert_eq!(opened(&fx)[0].1, "pods");
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("default"));
    app.update(Action::Resync {
        view: pods_view,
        rows: vec![
            pod(PodSpec {
                name: "web-5d8f-a",
                owner: Some("uid-web-5d8f"),
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "other",
                owner: Some("uid-other"),
                ..PodSpec::default()
            }),
        ],
    });
    assert_eq!(shown(&app, pods_view), ["default/web-5d8f-a"]);
    let fx = app.update(code(KeyCode::Esc));
    assert_eq!(fx, vec![Effect::CloseView { view: pods_view }]);
    assert_eq!(app.current_view_id(), Some(rs_view));
}

/// A namespace's view served by the all-namespaces informer: its index holds every namespace's
/// labels, but the picker offers (and counts) only what the view's rows carry.
#[test]
fn the_picker_of_a_namespace_view_offers_its_own_labels_only() {
    let (mut app, v) = app_with(config(), labelled_pods());
    let mut wide = labelled_pods();
    wide.push(pod(PodSpec {
        ns: "cert-manager",
        name: "cm-0",
        labels: &[("app", "web"), ("team", "platform")],
        ..PodSpec::default()
    }));
    app.update(Action::Store {
        view: v,
        store: store_of(&wide),
    });
    app.update(ctrl('l'));
    let Mode::Labels(p) = &app.mode else { panic!() };
    assert!(
        !p.all.iter().any(|(v, _)| v.starts_with("team")),
        "{:?}",
        p.all
    );
    let web = p.all.iter().find(|(v, _)| v == "app=web").unwrap();
    assert_eq!(web.1, 3, "counted in the view's namespace");
}

#[test]
fn a_label_filter_is_answered_from_the_index_while_a_deleted_row_lingers() {
    let rows = labelled_pods();
    let (mut app, v) = app_with(config(), rows.clone());
    // db-0 is deleted: gone from the store, its row struck on screen for a moment.
    let gone = rows[3].key.clone();
    app.update(Action::Rows {
        view: v,
        upserts: vec![],
        deletes: vec![gone.clone()],
    });
    let kept: Vec<_> = rows.iter().filter(|r| r.key != gone).cloned().collect();
    app.update(Action::Store {
        view: v,
        store: store_of(&kept),
    });
    assert!(app.views[&v].table.entry(&gone).is_some(), "still shown");
    app.update(ctrl('l'));
    type_str(&mut app, "app=web");
    app.update(code(KeyCode::Enter));
    assert_eq!(
        shown(&app, v),
        ["default/web-1", "default/web-2", "default/web-3"]
    );
    let message = app.message.clone().unwrap().0;
    assert!(message.contains("3 matches (label index)"), "{message}");
}
