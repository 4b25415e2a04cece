//! `App::update` tests: every key path, and data arriving and leaving with the selection kept.

mod ui_support;

use crossterm::event::KeyCode;
use kinformer::informer::delta_fifo::DeltaType;
use kinformer::informer::shared_informer::TapEntry;
use kinformer::ui::action::{
    Access, Action, ConnectionState, Denial, Effect, InformerState, ViewId,
};
use kinformer::ui::app::{Mode, Screen};
use kinformer::ui::operate::{Operation, Propagation};
use kinformer::ui::table::{Drill, Mark, SortBy};
use kinformer::ui::{App, AppConfig, KeyMap};
use ui_support::*;

fn three_pods() -> Vec<kinformer::ui::action::ObjectSummary> {
    vec![
        simple_pod("default", "web-2"),
        simple_pod("default", "api-1"),
        simple_pod("default", "db-0"),
    ]
}

#[test]
fn init_opens_first_resource_in_namespace_and_the_namespaces_view() {
    let mut app = App::new(config(), KeyMap::defaults().unwrap());
    let fx = app.init();
    let views = opened(&fx);
    assert_eq!(views[0].1, "pods");
    assert_eq!(views[0].2.as_deref(), Some("default"));
    assert!(
        views
            .iter()
            .any(|(_, p, ns)| p == "namespaces" && ns.is_none())
    );
}

#[test]
fn unknown_start_resource_shows_error_and_falls_back_to_pods() {
    let cfg = AppConfig {
        resource: "gizmos".into(),
        ..config()
    };
    let mut app = App::new(cfg, KeyMap::defaults().unwrap());
    let fx = app.init();
    assert_eq!(opened(&fx)[0].1, "pods");
    assert!(app.message.as_ref().unwrap().0.contains("gizmos"));
}

#[test]
fn rows_are_sorted_by_name_and_first_row_selected() {
    let (app, v) = app_with(config(), three_pods());
    assert_eq!(
        shown(&app, v),
        ["default/api-1", "default/db-0", "default/web-2"]
    );
    assert_eq!(selected(&app, v).as_deref(), Some("default/api-1"));
}

#[test]
fn navigation_keys_move_the_selection() {
    let rows = (0..50)
        .map(|i| simple_pod("default", &format!("p{i:02}")))
        .collect();
    let (mut app, v) = app_with(config(), rows);
    app.update(key('j'));
    app.update(code(KeyCode::Down));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p02"));
    app.update(key('k'));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p01"));
    app.update(key('G'));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p49"));
    app.update(key('g'));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p00"));
    app.update(code(KeyCode::PageDown));
    let page = app.table_height() - 1;
    assert_eq!(app.views[&v].table.cursor(), page);
    app.update(code(KeyCode::PageUp));
    assert_eq!(app.views[&v].table.cursor(), 0);
    app.update(code(KeyCode::Up));
    assert_eq!(app.views[&v].table.cursor(), 0, "clamped at the top");
}

#[test]
fn selection_stays_on_the_same_object_when_rows_move() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('j')); // db-0
    assert_eq!(selected(&app, v).as_deref(), Some("default/db-0"));
    // New rows sorting before the selection shift it down.
    app.update(Action::Rows {
        view: v,
        upserts: vec![simple_pod("default", "aaa"), simple_pod("default", "abc")],
        deletes: vec![],
    });
    assert_eq!(selected(&app, v).as_deref(), Some("default/db-0"));
    assert_eq!(app.views[&v].table.cursor(), 3);
    // Sorting by RESTARTS, an update moving the selected row keeps it selected.
    app.update(key('>')); // READY
    app.update(key('>')); // STATUS
    app.update(key('>')); // RESTARTS
    assert_eq!(app.views[&v].table.sort().0, SortBy::Cell(3));
    app.update(Action::Rows {
        view: v,
        upserts: vec![pod(PodSpec {
            name: "db-0",
            restarts: 9,
            ..PodSpec::default()
        })],
        deletes: vec![],
    });
    assert_eq!(selected(&app, v).as_deref(), Some("default/db-0"));
    assert_eq!(
        shown(&app, v).last().map(String::as_str),
        Some("default/db-0")
    );
    assert_eq!(app.views[&v].table.cursor(), 4);
}

#[test]
fn deleting_the_selected_row_selects_its_neighbour() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('j')); // db-0
    app.update(Action::Rows {
        view: v,
        upserts: vec![],
        deletes: vec!["default/db-0".into()],
    });
    assert_eq!(selected(&app, v).as_deref(), Some("default/web-2"));
    // The deleted row lingers, struck, then goes.
    let e = app.views[&v].table.entry("default/db-0").unwrap();
    assert_eq!(e.mark, Mark::Deleted);
    app.update(Action::Tick(NOW_MS));
    app.update(Action::Tick(NOW_MS + 1_100));
    assert!(app.views[&v].table.entry("default/db-0").is_none());
    assert_eq!(shown(&app, v), ["default/api-1", "default/web-2"]);
    assert_eq!(selected(&app, v).as_deref(), Some("default/web-2"));
}

#[test]
fn deleting_the_last_selected_row_selects_the_previous_one() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('G'));
    app.update(Action::Rows {
        view: v,
        upserts: vec![],
        deletes: vec!["default/web-2".into()],
    });
    assert_eq!(selected(&app, v).as_deref(), Some("default/db-0"));
}

#[test]
fn initial_list_is_not_highlighted_but_later_changes_are_then_fade() {
    let mut app = App::new(config(), KeyMap::defaults().unwrap());
    let v = opened(&app.init())[0].0;
    app.update(Action::Rows {
        view: v,
        upserts: three_pods(),
        deletes: vec![],
    });
    let t = &app.views[&v].table;
    assert!(
        t.entries().all(|e| e.mark == Mark::None),
        "initial list is not news"
    );
    app.update(Action::InformerStats(vec![informer_row(
        "pods",
        Some("default"),
        InformerState::Watching,
    )]));
    app.update(Action::Rows {
        view: v,
        upserts: vec![
            simple_pod("default", "new-1"),
            pod(PodSpec {
                name: "web-2",
                restarts: 1,
                ..PodSpec::default()
            }),
        ],
        deletes: vec![],
    });
    let t = &app.views[&v].table;
    assert_eq!(
        t.entry("default/new-1").unwrap().mark_at(NOW_MS),
        Mark::Added
    );
    assert_eq!(
        t.entry("default/web-2").unwrap().mark_at(NOW_MS),
        Mark::Updated
    );
    let deadline = app.next_deadline_ms().unwrap();
    assert!(deadline > NOW_MS);
    app.update(Action::Tick(deadline));
    assert_eq!(
        app.views[&v]
            .table
            .entry("default/new-1")
            .unwrap()
            .mark_at(deadline),
        Mark::None
    );
    assert_eq!(app.next_deadline_ms(), None, "idle: nothing to wake up for");
}

#[test]
fn identical_rows_do_not_redraw() {
    let (mut app, v) = app_with(config(), three_pods());
    app.take_dirty();
    app.update(Action::Rows {
        view: v,
        upserts: vec![simple_pod("default", "web-2")],
        deletes: vec![],
    });
    assert!(!app.take_dirty());
    app.update(Action::Resync {
        view: v,
        rows: three_pods(),
    });
    assert!(app.views[&v].table.entries().all(|e| e.mark == Mark::None));
}

#[test]
fn resync_deletes_rows_missing_from_the_new_list() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(Action::Resync {
        view: v,
        rows: vec![simple_pod("default", "api-1")],
    });
    app.update(Action::Tick(NOW_MS));
    app.update(Action::Tick(NOW_MS + 2_000));
    assert_eq!(shown(&app, v), ["default/api-1"]);
}

#[test]
fn large_batches_are_applied_in_bulk_and_sorted() {
    let mut app = App::new(config(), KeyMap::defaults().unwrap());
    let v = opened(&app.init())[0].0;
    let mut rows: Vec<_> = (0..20_000)
        .map(|i| simple_pod("default", &format!("p{:05}", (i * 7919) % 20_000)))
        .collect();
    let second = rows.split_off(10_000);
    app.update(Action::Rows {
        view: v,
        upserts: rows,
        deletes: vec![],
    });
    app.update(Action::Rows {
        view: v,
        upserts: second,
        deletes: vec![],
    });
    let keys = shown(&app, v);
    assert_eq!(keys.len(), 20_000);
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(selected(&app, v).as_deref(), Some("default/p00000"));
}

#[test]
fn sort_keys_choose_columns_and_flip_order() {
    let rows = vec![
        pod(PodSpec {
            name: "a",
            age_secs: 10,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "b",
            age_secs: 300,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "c",
            age_secs: 60,
            ..PodSpec::default()
        }),
    ];
    let (mut app, v) = app_with(config(), rows);
    app.update(key('A')); // by AGE, youngest first
    assert_eq!(app.views[&v].table.sort(), (SortBy::Cell(4), false));
    assert_eq!(shown(&app, v), ["default/a", "default/c", "default/b"]);
    app.update(key('A')); // again: flipped
    assert_eq!(shown(&app, v), ["default/b", "default/c", "default/a"]);
    app.update(key('N'));
    assert_eq!(shown(&app, v), ["default/a", "default/b", "default/c"]);
    app.update(key('R'));
    assert_eq!(shown(&app, v), ["default/c", "default/b", "default/a"]);
    assert_eq!(
        app.views[&v].table.sort().0,
        SortBy::Key,
        "NAME is the key order in one namespace"
    );
    app.update(key('>'));
    assert_eq!(app.views[&v].table.sort().0, SortBy::Cell(1));
    app.update(key('<'));
    app.update(key('<'));
    assert_eq!(
        app.views[&v].table.sort().0,
        SortBy::Joined(5),
        "wraps around to the last column: %MEM/L, joined from metrics"
    );
}

#[test]
fn command_line_opens_a_resource_by_short_name_and_closes_the_old_view() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key(':'));
    assert!(matches!(app.mode, Mode::Command { .. }));
    let mut fx = type_str(&mut app, "deploy");
    fx.extend(app.update(code(KeyCode::Enter)));
    assert!(fx.contains(&Effect::CloseView { view: v }));
    let opened = opened(&fx);
    assert_eq!(opened.len(), 1);
    assert_eq!(opened[0].1, "deployments");
    assert_eq!(opened[0].2.as_deref(), Some("default"));
    assert!(matches!(app.current_screen(), Some(Screen::Table(id)) if *id == opened[0].0));
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn tab_completes_the_command_line() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "inf");
    app.update(code(KeyCode::Tab));
    match &app.mode {
        Mode::Command { input, .. } => assert_eq!(input.value(), "informers"),
        m => panic!("{m:?}"),
    }
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Informers)));
}

#[test]
fn unknown_resource_shows_an_inline_error() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "gizmos");
    let fx = app.update(code(KeyCode::Enter));
    assert!(fx.is_empty());
    let (msg, err) = app.message.clone().unwrap();
    assert!(
        err && msg.contains("unknown resource") && msg.contains("gizmos"),
        "{msg}"
    );
    assert_eq!(app.current_view_id(), Some(v));
}

#[test]
fn ns_command_switches_namespace_and_rejects_unknown_ones() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "ns nosuch");
    let fx = app.update(code(KeyCode::Enter));
    assert!(fx.is_empty());
    assert!(
        app.message
            .clone()
            .unwrap()
            .0
            .contains("unknown namespace: nosuch")
    );

    app.update(key(':'));
    type_str(&mut app, "ns kube-system");
    let fx = app.update(code(KeyCode::Enter));
    assert!(fx.contains(&Effect::CloseView { view: v }));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("kube-system"));
    assert_eq!(app.namespace.as_deref(), Some("kube-system"));

    app.update(key(':'));
    type_str(&mut app, "ns");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].2, None, ":ns alone = all namespaces");
    assert_eq!(app.namespace, None);
}

#[test]
fn ns_command_trusts_the_user_when_namespaces_cannot_be_listed() {
    let mut app = App::new(config(), KeyMap::defaults().unwrap());
    let fx = app.init();
    let ns_view = opened(&fx)
        .iter()
        .find(|(_, p, _)| p == "namespaces")
        .unwrap()
        .0;
    app.update(Action::ViewError {
        view: ns_view,
        message: "namespaces is forbidden".into(),
        forbidden: true,
    });
    app.update(key(':'));
    type_str(&mut app, "ns team-a");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("team-a"));
}

#[test]
fn ctx_command_switches_context_and_reopens_the_view() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(Action::Contexts(vec!["demo".into(), "prod".into()]));
    app.update(key(':'));
    type_str(&mut app, "ctx nope");
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert!(app.message.clone().unwrap().0.contains("unknown context"));
    app.update(key(':'));
    type_str(&mut app, "ctx prod");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(fx[0], Effect::SwitchContext("prod".into()));
    assert!(fx.contains(&Effect::CloseView { view: v }));
    assert!(opened(&fx).iter().any(|(_, p, _)| p == "pods"));
    assert_eq!(app.connection.context, "prod");
}

#[test]
fn quit_command_and_keys_quit() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "q");
    assert_eq!(app.update(code(KeyCode::Enter)), vec![Effect::Quit]);
    let (mut app, _) = app_with(config(), three_pods());
    assert_eq!(app.update(key('q')), vec![Effect::Quit]);
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    assert_eq!(
        app.update(ctrl('c')),
        vec![Effect::Quit],
        "ctrl-c quits from any mode"
    );
}

#[test]
fn esc_cancels_the_command_line() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "deploy");
    assert!(app.update(code(KeyCode::Esc)).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    app.update(key(':'));
    type_str(&mut app, "d");
    app.update(code(KeyCode::Backspace));
    assert!(matches!(app.mode, Mode::Command { .. }));
    app.update(code(KeyCode::Backspace));
    assert!(
        matches!(app.mode, Mode::Normal),
        "backspace on an empty line leaves"
    );
}

#[test]
fn text_filter_matches_substrings_live_and_regex_with_tilde() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('/'));
    type_str(&mut app, "WEB");
    assert_eq!(shown(&app, v), ["default/web-2"], "live, case-insensitive");
    app.update(code(KeyCode::Enter));
    assert_eq!(selected(&app, v).as_deref(), Some("default/web-2"));
    // New matching rows join the filtered list; others stay hidden.
    app.update(Action::Rows {
        view: v,
        upserts: vec![simple_pod("default", "web-1"), simple_pod("default", "zzz")],
        deletes: vec![],
    });
    assert_eq!(shown(&app, v), ["default/web-1", "default/web-2"]);
    assert_eq!(selected(&app, v).as_deref(), Some("default/web-2"));
    app.update(code(KeyCode::Esc)); // clears the filter
    assert_eq!(shown(&app, v).len(), 5);
    app.update(key('/'));
    type_str(&mut app, "~^(api|db)-");
    app.update(code(KeyCode::Enter));
    assert_eq!(shown(&app, v), ["default/api-1", "default/db-0"]);
}

#[test]
fn invalid_regex_shows_an_inline_error() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key('/'));
    type_str(&mut app, "~(unclosed");
    app.update(code(KeyCode::Enter));
    assert!(app.message.clone().unwrap().0.contains("invalid regex"));
    assert_eq!(shown(&app, v).len(), 3, "rows stay visible");
}

fn labelled_pods() -> Vec<kinformer::ui::action::ObjectSummary> {
    vec![
        pod(PodSpec {
            name: "web-1",
            labels: &[("app", "web"), ("env", "prod")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "web-2",
            labels: &[("app", "web"), ("env", "stage"), ("canary", "true")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "web-3",
            labels: &[("app", "web"), ("env", "dev")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "db-0",
            labels: &[("app", "db"), ("env", "prod")],
            ..PodSpec::default()
        }),
    ]
}

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
    app.update(key('l'));
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
    app.update(key('l'));
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
    app.update(key('l'));
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
    app.update(key('l'));
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
    app.update(key('l'));
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
    app.update(key('l'));
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
    app.update(key('l'));
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
    app.update(key('l'));
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

#[test]
fn enter_on_a_deployment_shows_the_pods_of_its_replicasets() {
    let cfg = AppConfig {
        resource: "deploy".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
    let fx = app.update(code(KeyCode::Enter));
    let views = opened(&fx);
    let pods_view = views.iter().find(|(_, p, _)| p == "pods").unwrap().0;
    let rs_view = views.iter().find(|(_, p, _)| p == "replicasets").unwrap().0;
    app.update(Action::Resync {
        view: pods_view,
        rows: vec![
            pod(PodSpec {
                name: "web-5d8f-a",
                owner: Some("uid-web-5d8f"),
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "api-77-b",
                owner: Some("uid-api-77"),
                ..PodSpec::default()
            }),
        ],
    });
    assert!(
        shown(&app, pods_view).is_empty(),
        "ReplicaSets not known yet"
    );
    app.update(Action::Resync {
        view: rs_view,
        rows: vec![
            workload("default", "web-5d8f", Some("uid-web")),
            workload("default", "api-77", Some("uid-api")),
        ],
    });
    assert_eq!(shown(&app, pods_view), ["default/web-5d8f-a"]);
    let fx = app.update(key('q'));
    assert!(fx.contains(&Effect::CloseView { view: pods_view }));
    assert!(
        fx.contains(&Effect::CloseView { view: rs_view }),
        "the feeder goes with it"
    );
}

#[test]
fn enter_on_a_node_shows_the_pods_on_it_in_all_namespaces() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let (pods_view, _, ns) = opened(&fx)[0].clone();
    assert_eq!(ns, None);
    app.update(Action::Resync {
        view: pods_view,
        rows: vec![
            pod(PodSpec {
                ns: "shop",
                name: "a",
                node: "node-2",
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "b",
                node: "node-1",
                ..PodSpec::default()
            }),
        ],
    });
    assert_eq!(shown(&app, pods_view), ["shop/a"]);
}

#[test]
fn enter_on_a_namespace_shows_its_pods() {
    let cfg = AppConfig {
        resource: "ns".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("shop", "Active")]);
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].1, "pods");
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("shop"));
}

/// The drill-down (`Effect::OpenResource { drill }`) each opened view was given.
fn drills(fx: &[Effect]) -> Vec<(ViewId, String, Option<Drill>)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::OpenResource {
                view,
                resource,
                drill,
                ..
            } => Some((*view, resource.api_resource.plural.clone(), drill.clone())),
            _ => None,
        })
        .collect()
}

fn header_filter_line(app: &App, view: ViewId) -> String {
    app.views[&view].drill_text().unwrap_or_default()
}

#[test]
fn deployment_drill_down_reads_its_replicasets_then_their_pods_from_the_owner_index() {
    let cfg = AppConfig {
        resource: "deploy".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
    let fx = app.update(code(KeyCode::Enter));
    let d = drills(&fx);
    let (pods_view, _, pods_drill) = d.iter().find(|(_, p, _)| p == "pods").unwrap().clone();
    let (rs_view, _, rs_drill) = d
        .iter()
        .find(|(_, p, _)| p == "replicasets")
        .unwrap()
        .clone();
    let owned_by_web = Drill::Owners(["uid-web".into()].into_iter().collect());
    assert_eq!(pods_drill.as_ref(), Some(&owned_by_web));
    assert_eq!(
        rs_drill.as_ref(),
        Some(&owned_by_web),
        "the ReplicaSets are drilled too"
    );

    // The runtime sends each view its informer's indexer; no rows at all.
    let replicasets = [
        workload("default", "web-5d8f", Some("uid-web")),
        workload("default", "web-6c1a", Some("uid-web")),
        workload("default", "api-77", Some("uid-api")),
    ];
    let fx = app.update(Action::Store {
        view: rs_view,
        store: store_of(&replicasets),
    });
    assert_eq!(
        shown(&app, rs_view),
        ["default/web-5d8f", "default/web-6c1a"]
    );
    let widened = Drill::Owners(
        ["uid-web", "uid-web-5d8f", "uid-web-6c1a"]
            .into_iter()
            .map(Into::into)
            .collect(),
    );
    assert_eq!(
        fx,
        vec![Effect::SetDrill {
            view: pods_view,
            drill: widened
        }],
        "the runtime feeds the pods of the new owners from now on"
    );
    let owned = |name: &'static str, owner: &'static str| {
        pod(PodSpec {
            name,
            owner: Some(owner),
            ..PodSpec::default()
        })
    };
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[
            owned("web-5d8f-a", "uid-web-5d8f"),
            owned("web-6c1a-b", "uid-web-6c1a"),
            owned("api-77-c", "uid-api-77"),
        ]),
    });
    assert_eq!(
        shown(&app, pods_view),
        ["default/web-5d8f-a", "default/web-6c1a-b"]
    );
    assert_eq!(
        header_filter_line(&app, pods_view),
        "deployments/web  owner index: 2 replicasets → 2 pods"
    );
}

#[test]
fn node_drill_down_reads_the_pods_from_the_node_index() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let (pods_view, _, drill) = drills(&fx)[0].clone();
    assert_eq!(drill, Some(Drill::Node("node-2".into())));
    let on = |ns: &'static str, name: &'static str, node: &'static str| {
        pod(PodSpec {
            ns,
            name,
            node,
            ..PodSpec::default()
        })
    };
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[
            on("shop", "a", "node-2"),
            on("default", "b", "node-1"),
            on("kube-system", "c", "node-2"),
        ]),
    });
    assert_eq!(shown(&app, pods_view), ["kube-system/c", "shop/a"]);
    assert_eq!(
        header_filter_line(&app, pods_view),
        "nodes/node-2  node index → 2 pods"
    );
}

#[test]
fn namespace_drill_down_reads_the_pods_from_the_namespace_index() {
    let cfg = AppConfig {
        resource: "ns".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("shop", "Active")]);
    let fx = app.update(code(KeyCode::Enter));
    let (pods_view, _, drill) = drills(&fx)[0].clone();
    assert_eq!(drill, Some(Drill::Namespace("shop".into())));
    // A namespace view may be served by the all-namespaces informer: its indexer holds more.
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[
            simple_pod("shop", "cart-0"),
            simple_pod("default", "web-1"),
            simple_pod("shop", "pay-0"),
        ]),
    });
    assert_eq!(shown(&app, pods_view), ["shop/cart-0", "shop/pay-0"]);
    assert_eq!(
        header_filter_line(&app, pods_view),
        "namespaces/shop  namespace index → 2 pods"
    );
}

#[test]
fn a_pod_created_after_a_drill_down_appears_in_it_and_others_do_not() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let pods_view = drills(&fx)[0].0;
    let on = |name: &'static str, node: &'static str| {
        pod(PodSpec {
            name,
            node,
            ..PodSpec::default()
        })
    };
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[on("a", "node-2")]),
    });
    assert_eq!(shown(&app, pods_view), ["default/a"]);
    app.update(Action::Rows {
        view: pods_view,
        upserts: vec![on("late", "node-2"), on("elsewhere", "node-1")],
        deletes: vec![],
    });
    assert_eq!(shown(&app, pods_view), ["default/a", "default/late"]);
    assert_eq!(
        header_filter_line(&app, pods_view),
        "nodes/node-2  node index → 2 pods"
    );
}

#[test]
fn a_replicaset_created_after_a_deployment_drill_down_brings_its_pods() {
    let cfg = AppConfig {
        resource: "deploy".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
    let fx = app.update(code(KeyCode::Enter));
    let d = drills(&fx);
    let pods_view = d.iter().find(|(_, p, _)| p == "pods").unwrap().0;
    let rs_view = d.iter().find(|(_, p, _)| p == "replicasets").unwrap().0;
    let old_rs = workload("default", "web-5d8f", Some("uid-web"));
    let new_rs = workload("default", "web-9e2b", Some("uid-web"));
    let owned = |name: &'static str, owner: &'static str| {
        pod(PodSpec {
            name,
            owner: Some(owner),
            ..PodSpec::default()
        })
    };
    let pods = pod_store_of(&[
        owned("web-5d8f-a", "uid-web-5d8f"),
        owned("web-9e2b-a", "uid-web-9e2b"),
    ]);
    app.update(Action::Store {
        view: pods_view,
        store: pods.clone(),
    });
    app.update(Action::Store {
        view: rs_view,
        store: store_of(std::slice::from_ref(&old_rs)),
    });
    assert_eq!(shown(&app, pods_view), ["default/web-5d8f-a"]);
    // A rollout: the new ReplicaSet arrives, its pods are already cached.
    let fx = app.update(Action::Rows {
        view: rs_view,
        upserts: vec![new_rs],
        deletes: vec![],
    });
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::SetDrill { view, .. } if *view == pods_view))
    );
    assert_eq!(
        shown(&app, pods_view),
        ["default/web-5d8f-a", "default/web-9e2b-a"]
    );
    assert_eq!(
        header_filter_line(&app, pods_view),
        "deployments/web  owner index: 2 replicasets → 2 pods"
    );
}

#[test]
fn without_the_drill_index_the_drill_down_says_it_scanned() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let pods_view = drills(&fx)[0].0;
    let rows = vec![
        pod(PodSpec {
            name: "a",
            node: "node-2",
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "b",
            node: "node-1",
            ..PodSpec::default()
        }),
    ];
    // An indexer without the node index: the runtime sends every row, the view filters them.
    app.update(Action::Store {
        view: pods_view,
        store: store_of(&rows),
    });
    app.update(Action::Resync {
        view: pods_view,
        rows,
    });
    assert_eq!(shown(&app, pods_view), ["default/a"]);
    assert_eq!(
        header_filter_line(&app, pods_view),
        "nodes/node-2  scan → 1 pod"
    );
}

#[test]
fn yaml_key_fetches_the_object_and_hides_secret_values_until_x() {
    let cfg = AppConfig {
        resource: "secrets".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "db-creds", None)]);
    let fx = app.update(key('y'));
    let Effect::FetchYaml {
        request,
        name,
        namespace,
        ..
    } = fx[0].clone()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(
        (name.as_str(), namespace.as_deref()),
        ("db-creds", Some("default"))
    );
    let secret = serde_json::json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db-creds"}, "data": {"password": "aHVudGVyMg=="}});
    app.update(Action::Yaml {
        request,
        result: Ok(secret),
    });
    let text = |app: &App| match app.current_screen() {
        Some(Screen::Text(t)) => t.lines.clone().unwrap().unwrap().join("\n"),
        _ => panic!(),
    };
    assert!(!text(&app).contains("aHVudGVyMg=="));
    app.update(key('x'));
    assert!(text(&app).contains("aHVudGVyMg=="));
    app.update(key('x'));
    assert!(!text(&app).contains("aHVudGVyMg=="));
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

fn describe_with(app: &mut kinformer::ui::App, body: String) {
    let fx = app.update(key('d'));
    let Effect::FetchDescribe { request, .. } = fx[0].clone() else {
        panic!("{fx:?}")
    };
    app.update(Action::Describe {
        request,
        result: Ok(body),
    });
}

fn text_scroll(app: &kinformer::ui::App) -> usize {
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!()
    };
    t.scroll
}

#[test]
fn bottom_of_a_text_view_is_the_last_full_page_and_paging_stops_there() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Resize(80, 20)); // 14 text rows
    describe_with(&mut app, (0..40).map(|i| format!("line {i}\n")).collect());
    app.update(key('G'));
    assert_eq!(text_scroll(&app), 40 - 14);
    for _ in 0..5 {
        app.update(code(KeyCode::PageDown));
    }
    assert_eq!(text_scroll(&app), 26);
    // A text shorter than a page does not scroll at all.
    app.update(key('q'));
    describe_with(&mut app, "a\nb\n".to_string());
    app.update(key('G'));
    assert_eq!(text_scroll(&app), 0);
}

#[test]
fn wrapped_long_lines_take_their_rows_in_the_last_page_and_w_toggles_wrap() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Resize(80, 20)); // 78 wide, 14 rows
    let mut body: String = (0..20).map(|i| format!("line {i}\n")).collect();
    body.push_str(&"x".repeat(78 * 3)); // the last line wraps onto 3 rows
    describe_with(&mut app, body);
    app.update(key('G'));
    // 21 lines; the last takes 3 rows, so the last page starts 12 lines before it.
    assert_eq!(text_scroll(&app), 21 - 12);
    app.update(key('w'));
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!()
    };
    assert!(!t.wrap);
    app.update(key('G'));
    assert_eq!(text_scroll(&app), 21 - 14, "unwrapped: one row per line");
}

#[test]
fn text_views_scroll_and_show_fetch_errors() {
    let (mut app, _) = app_with(config(), three_pods());
    let fx = app.update(key('d'));
    let Effect::FetchDescribe { request, .. } = fx[0].clone() else {
        panic!("{fx:?}")
    };
    let body: String = (0..100).map(|i| format!("line {i}\n")).collect();
    app.update(Action::Describe {
        request,
        result: Ok(body),
    });
    app.update(key('j'));
    app.update(key('j'));
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!()
    };
    assert_eq!(t.scroll, 2);
    app.update(key('G'));
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!()
    };
    assert_eq!(
        t.scroll,
        100 - 24,
        "G stops at the last full page (30 rows - 6 of chrome)"
    );
    app.update(key('q'));
    let fx = app.update(key('y'));
    let Effect::FetchYaml { request, .. } = fx[0].clone() else {
        panic!()
    };
    app.update(Action::Yaml {
        request,
        result: Err("pods \"api-1\" not found".into()),
    });
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!()
    };
    assert!(t.lines.clone().unwrap().is_err());
}

#[test]
fn ctrl_d_asks_for_confirmation_before_deleting() {
    let (mut app, _) = app_with(config(), three_pods());
    assert!(app.update(ctrl('d')).is_empty());
    assert!(matches!(app.mode, Mode::Confirm(_)));
    assert!(
        app.update(code(KeyCode::Enter)).is_empty(),
        "Cancel has the focus"
    );
    assert!(matches!(app.mode, Mode::Normal));
    app.update(ctrl('d'));
    app.update(code(KeyCode::Tab));
    let fx = app.update(code(KeyCode::Enter));
    match &fx[..] {
        [Effect::Write(w)] => {
            assert_eq!(w.name, "api-1");
            assert_eq!(w.namespace.as_deref(), Some("default"));
            assert_eq!(w.resource.api_resource.plural, "pods");
            assert_eq!(w.op, Operation::Delete(Propagation::Background));
        }
        other => panic!("{other:?}"),
    }
    app.update(ctrl('d'));
    assert_eq!(app.update(key('y')).len(), 1);
    app.update(ctrl('d'));
    assert!(app.update(code(KeyCode::Esc)).is_empty());
}

#[test]
fn delete_is_refused_in_readonly_mode() {
    let cfg = AppConfig {
        readonly: true,
        ..config()
    };
    let (mut app, _) = app_with(cfg, three_pods());
    assert!(app.update(ctrl('d')).is_empty());
    assert!(matches!(app.mode, Mode::Normal), "no confirmation dialog");
    assert!(app.message.clone().unwrap().0.contains("read-only"));
}

fn tap(seq: u64, delta: DeltaType, tombstone: bool) -> TapEntry {
    TapEntry {
        seq,
        at: std::time::UNIX_EPOCH + std::time::Duration::from_millis(NOW_MS as u64 + seq),
        kind: "Pod".into(),
        delta,
        tombstone,
        key: format!("default/p{seq}").into(),
        resource_version: (1000 + seq).to_string(),
        queue_depth: 0,
        cluster: None,
    }
}

#[test]
fn event_log_pane_toggles_and_event_screen_pauses_and_filters() {
    let (mut app, _) = app_with(config(), three_pods());
    assert!(app.show_events_pane, "the event log is on the first screen");
    app.update(key('e'));
    assert!(!app.show_events_pane, "e hides it");
    app.update(key('e'));
    assert!(app.show_events_pane, "and shows it again");
    app.update(Action::Tap(vec![
        tap(1, DeltaType::Added, false),
        tap(2, DeltaType::Deleted, true),
    ]));
    assert!(app.take_dirty(), "visible pane redraws on new entries");
    app.update(key('e'));
    app.take_dirty();
    app.update(Action::Tap(vec![tap(3, DeltaType::Sync, false)]));
    assert!(!app.take_dirty(), "hidden log does not redraw");
    app.update(key(':'));
    type_str(&mut app, "events");
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Events)));
    app.update(key('p'));
    assert!(app.events.paused());
    app.update(Action::Tap(vec![tap(4, DeltaType::Updated, false)]));
    assert_eq!(app.events.shown().next().unwrap().seq, 3);
    app.update(key('p'));
    app.update(key('t')); // Added only
    assert_eq!(
        app.events.shown().map(|e| e.seq).collect::<Vec<_>>(),
        vec![1]
    );
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn informer_stats_and_connection_changes_redraw_only_when_different() {
    let (mut app, _) = app_with(config(), three_pods());
    let rows = vec![informer_row(
        "pods",
        Some("default"),
        InformerState::Watching,
    )];
    app.update(Action::InformerStats(rows.clone()));
    assert!(app.take_dirty());
    app.update(Action::InformerStats(rows));
    assert!(!app.take_dirty());
    let down = ConnectionState {
        context: "demo".into(),
        reachable: false,
        retry_at_ms: Some(NOW_MS + 4_500),
        last_error: Some("connection refused".into()),
        ..ConnectionState::default()
    };
    app.update(Action::Connection(down));
    assert!(app.take_dirty());
    assert_eq!(
        app.next_deadline_ms(),
        Some(NOW_MS + 1_000),
        "countdown ticks each second"
    );
}

#[test]
fn help_opens_with_question_mark_and_closes_with_any_other_key() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(key('?'));
    assert!(matches!(app.mode, Mode::Help { .. }));
    app.update(key('j'));
    assert!(matches!(app.mode, Mode::Help { scroll: 1 }));
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.mode, Mode::Normal));
}

#[test]
fn rows_for_closed_views_are_ignored() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key(':'));
    type_str(&mut app, "svc");
    app.update(code(KeyCode::Enter));
    let fx = app.update(Action::Rows {
        view: v,
        upserts: three_pods(),
        deletes: vec![],
    });
    assert!(fx.is_empty());
    assert!(!app.views.contains_key(&v));
}

#[test]
fn discovered_custom_resources_open_by_plural_with_their_printer_columns() {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
    use kinformer::cluster::ResourceInfo;
    use kinformer::render::PrinterColumn;
    let (mut app, _) = app_with(config(), three_pods());
    let mut widget = ResourceInfo::from_api_resource(
        "demo.kinformer.dev",
        "v1",
        &APIResource {
            name: "widgets".into(),
            kind: "Widget".into(),
            namespaced: true,
            singular_name: "widget".into(),
            short_names: Some(vec!["wg".into()]),
            verbs: vec!["list".into(), "watch".into(), "get".into()],
            ..Default::default()
        },
    )
    .unwrap();
    widget.printer_columns = Some(vec![PrinterColumn {
        name: "Size".into(),
        json_path: ".spec.size".into(),
        type_: "integer".into(),
        priority: 0,
    }]);
    let mut resources = kinformer::ui::resources::builtin_resources();
    resources.push(widget);
    app.update(Action::Discovery(resources));
    app.update(key(':'));
    type_str(&mut app, "wg");
    let fx = app.update(code(KeyCode::Enter));
    let (view, plural, _) = opened(&fx)[0].clone();
    assert_eq!(plural, "widgets");
    let names: Vec<String> = app.views[&view]
        .columns
        .iter()
        .map(|c| c.name.clone())
        .collect();
    assert!(names.contains(&"SIZE".to_string()), "{names:?}");
}

fn denial(verb: &str, message: &str) -> Denial {
    Denial::from_message(verb, message, Some(NOW_MS + 300_000))
}

const JANE_DEPLOY_ALL: &str = "deployments.apps is forbidden: User \"jane\" cannot list resource \"deployments\" in API group \"apps\" at the cluster scope";
const JANE_DEPLOY_BENCH: &str = "deployments.apps is forbidden: User \"jane\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"bench\"";

/// An initialised app whose first view has received nothing yet (no rows, no sync).
fn fresh_app(cfg: AppConfig) -> (App, ViewId, ViewId) {
    let mut app = App::new(cfg, KeyMap::defaults().unwrap());
    app.update(Action::Resize(120, 30));
    let fx = app.init();
    let views = opened(&fx);
    let ns_view = views.iter().find(|(_, p, _)| p == "namespaces").unwrap().0;
    (app, views[0].0, ns_view)
}

fn screen_text(app: &App) -> String {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(app.size.0, app.size.1)).unwrap();
    terminal.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

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
    // Not forbidden (yet): nothing to retry.
    assert!(app.update(ctrl('r')).is_empty());
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
    assert!(matches!(app.current_screen(), Some(Screen::Informers)));
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

#[test]
fn a_deleted_row_lingers_its_full_time_after_the_first_tick_that_sees_it() {
    let (mut app, v) = app_with(config(), three_pods());
    // The app's clock was last read long ago; the deletion arrives now.
    app.update(Action::Rows {
        view: v,
        upserts: vec![],
        deletes: vec!["default/db-0".into()],
    });
    assert!(
        app.next_deadline_ms().unwrap() <= NOW_MS,
        "asks for a tick at once"
    );
    app.update(Action::Tick(NOW_MS + 900));
    assert!(
        app.views[&v].table.entry("default/db-0").is_some(),
        "still shown after the late tick"
    );
    app.update(Action::Tick(NOW_MS + 1_800));
    assert!(app.views[&v].table.entry("default/db-0").is_some());
    app.update(Action::Tick(NOW_MS + 1_900));
    assert!(app.views[&v].table.entry("default/db-0").is_none());
}

#[test]
fn start_up_banner_is_transient_and_errors_stay_until_a_key() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Notify {
        message: "demo cluster at http://127.0.0.1:1234 (601 objects)".into(),
        error: false,
    });
    assert!(app.message.is_some());
    app.update(Action::Tick(NOW_MS + 1_000)); // the countdown starts at the first tick
    app.update(Action::Tick(NOW_MS + 5_999));
    assert!(app.message.is_some(), "still shown before its time is up");
    assert_eq!(
        app.next_deadline_ms().map(|d| d <= NOW_MS + 6_000),
        Some(true),
        "the runtime is asked to tick when it expires"
    );
    app.update(Action::Tick(NOW_MS + 6_000));
    assert!(app.message.is_none(), "the footer hints come back");

    app.update(Action::Notify {
        message: "boom".into(),
        error: true,
    });
    app.update(Action::Tick(NOW_MS + 7_000));
    app.update(Action::Tick(NOW_MS + 60_000));
    assert!(app.message.is_some(), "errors wait for a key");
}
