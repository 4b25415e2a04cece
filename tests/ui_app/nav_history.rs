//! k9s's navigation: `[` / `]` through the view commands run, `-` the last one, breadcrumbs
//! (`ctrl-g`) and the header (`ctrl-e`).

use super::*;

fn run_line(app: &mut App, line: &str) -> Vec<Effect> {
    app.update(key(':'));
    type_str(app, line);
    app.update(code(KeyCode::Enter))
}

fn plural(app: &App) -> String {
    app.current_view()
        .unwrap()
        .resource
        .api_resource
        .plural
        .clone()
}

#[test]
fn brackets_go_back_and_forward_through_the_view_commands_run() {
    let (mut app, _) = app_with(config(), three_pods());
    run_line(&mut app, "deploy");
    run_line(&mut app, "svc shop");
    assert_eq!(plural(&app), "services");
    let fx = app.update(key('['));
    assert!(
        opened(&fx).iter().any(|(_, p, _)| p == "deployments"),
        "{fx:?}"
    );
    assert_eq!(plural(&app), "deployments");
    app.update(key('['));
    assert_eq!(plural(&app), "pods");
    // At the start: nothing earlier, the footer says so.
    assert!(app.update(key('[')).is_empty());
    assert!(
        app.message
            .clone()
            .unwrap()
            .0
            .contains("no earlier command")
    );
    app.update(key(']'));
    app.update(key(']'));
    assert_eq!(plural(&app), "services");
    assert_eq!(app.namespace.as_deref(), Some("shop"), ":svc shop again");
    assert!(app.update(key(']')).is_empty());
    // A command typed after going back drops the ones ahead.
    app.update(key('['));
    run_line(&mut app, "cm");
    assert!(app.update(key(']')).is_empty());
    app.update(key('['));
    assert_eq!(plural(&app), "deployments");
}

#[test]
fn dash_returns_to_the_last_view_command_and_again_back() {
    let (mut app, _) = app_with(config(), three_pods());
    run_line(&mut app, "deploy");
    app.update(key('-'));
    assert_eq!(plural(&app), "pods");
    app.update(key('-'));
    assert_eq!(plural(&app), "deployments");
}

#[test]
fn brackets_step_through_time_in_a_past_view_not_through_commands() {
    let (mut app, _) = app_with(config(), three_pods());
    run_line(&mut app, "deploy");
    run_line(&mut app, "at -5m");
    assert!(app.current_view().unwrap().past.is_some());
    let fx = app.update(key('['));
    assert!(opened(&fx).is_empty(), "{fx:?}");
    assert_eq!(plural(&app), "deployments");
}

#[test]
fn breadcrumbs_name_the_screens_open_and_ctrl_g_hides_them() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    app.update(code(KeyCode::Enter));
    assert_eq!(
        kinformer::ui::nav_history::crumbs(&app),
        ["pods", "containers(web-1)"]
    );
    let text = screen_text(&app);
    assert!(
        text.contains("<pods>") && text.contains("<containers(web-1)>"),
        "{text}"
    );
    app.update(ctrl('g'));
    let text = screen_text(&app);
    assert!(!text.contains("<pods>"), "{text}");
}

#[test]
fn ctrl_e_hides_the_header_and_the_table_gets_its_rows() {
    let (mut app, _) = app_with(config(), three_pods());
    let rows = app.table_height();
    assert!(screen_text(&app).contains("Context:"));
    app.update(ctrl('e'));
    assert!(!screen_text(&app).contains("Context:"));
    assert_eq!(app.table_height(), rows + 3);
    assert!(
        app.show_events_pane,
        "ctrl-e is no longer the event pane (E is)"
    );
    app.update(ctrl('e'));
    assert!(screen_text(&app).contains("Context:"));
}

#[test]
fn a_command_goes_back_to_the_scope_it_ran_in() {
    let (mut app, _) = app_with(config(), three_pods());
    run_line(&mut app, "pod /web");
    run_line(&mut app, "pod shop");
    assert_eq!(app.namespace.as_deref(), Some("shop"));
    app.update(key('['));
    assert_eq!(
        app.namespace.as_deref(),
        Some("default"),
        "pod /web ran in default"
    );
    assert_eq!(app.current_view().unwrap().table.filters.text_raw, "web");
}

#[test]
fn the_event_pane_is_one_line_at_30_rows_and_a_quarter_of_the_body_above() {
    use kinformer::ui::app::events_pane_rows;
    assert_eq!(events_pane_rows(30), 1);
    assert_eq!(events_pane_rows(24), 1);
    assert!(events_pane_rows(50) > 3);
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Resize(100, 30));
    let text = screen_text(&app);
    assert!(text.contains("DeltaFIFO["), "{text}");
    assert!(
        !text.contains("DeltaFIFO events["),
        "one line, not the pane: {text}"
    );
    app.update(Action::Resize(200, 50));
    assert!(screen_text(&app).contains("DeltaFIFO events["));
}

#[test]
fn a_command_over_the_containers_replaces_the_stack_and_brackets_still_go_back() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    app.update(code(KeyCode::Enter));
    assert_eq!(
        kinformer::ui::nav_history::crumbs(&app),
        ["pods", "containers(web-1)"]
    );
    run_line(&mut app, "helm");
    assert_eq!(kinformer::ui::nav_history::crumbs(&app), ["helm"]);
    let text = screen_text(&app);
    assert!(!text.contains("<containers(web-1)>"), "{text}");
    // `[`: the command before, its table alone on the stack.
    app.update(key('['));
    assert_eq!(kinformer::ui::nav_history::crumbs(&app), ["pods"]);
    // `]`: forward to :helm, and esc there returns to the command before, as k9s's esc.
    app.update(key(']'));
    assert_eq!(kinformer::ui::nav_history::crumbs(&app), ["helm"]);
    app.update(code(KeyCode::Esc));
    assert_eq!(kinformer::ui::nav_history::crumbs(&app), ["pods"]);
}

/// The views that are not resources (`:xray`, `:pulse`, `:pf`, `:aliases`, `:deltas`,
/// `:informers`) open over the current one, and esc returns to it: a deliberate difference from
/// k9s, whose commands all replace the stack.
#[test]
fn views_that_are_not_resources_open_over_the_table_and_esc_returns_to_it() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    for line in ["xray", "pulse", "pf", "aliases", "deltas", "informers"] {
        run_line(&mut app, line);
        let crumbs = kinformer::ui::nav_history::crumbs(&app);
        assert_eq!(
            crumbs.first().map(String::as_str),
            Some("pods"),
            "{line}: {crumbs:?}"
        );
        assert_eq!(crumbs.len(), 2, "{line}: {crumbs:?}");
        app.update(code(KeyCode::Esc));
        assert_eq!(kinformer::ui::nav_history::crumbs(&app), ["pods"], "{line}");
    }
}
