//! k9s's `config.yaml` settings the dashboard honours, each by what it changes on screen:
//! `logger.tail`, `sinceSeconds`, `textWrap`, `showTime` and `buffer` start the log view,
//! `ui.headless` drops the header.

mod ui_support;

use std::sync::Arc;

use kinformer::config::{K9sLogger, UserConfig};
use kinformer::ui::action::Effect;
use kinformer::ui::app::Screen;
use kinformer::ui::log_stream::StreamOptions;
use kinformer::ui::{App, AppConfig};
use ui_support::*;

fn app_with_user(user: UserConfig) -> App {
    let (mut app, _) = app_with(
        AppConfig {
            user: Arc::new(user),
            ..config()
        },
        vec![simple_pod("default", "web-1")],
    );
    connected(&mut app);
    app
}

fn with_logger(logger: K9sLogger) -> App {
    let mut user = UserConfig::default();
    user.settings.k9s_logger = logger;
    app_with_user(user)
}

fn log_options(app: &mut App) -> StreamOptions {
    let fx = app.update(key('l'));
    fx.iter()
        .find_map(|e| match e {
            Effect::OpenLogs { options, .. } => Some(*options),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no OpenLogs in {fx:?}"))
}

#[test]
fn logger_tail_from_the_k9s_config_is_the_log_views_first_tail() {
    let mut plain = with_logger(K9sLogger::default());
    assert_eq!(log_options(&mut plain).tail_lines, Some(200));
    let mut app = with_logger(K9sLogger {
        tail: Some(50),
        ..K9sLogger::default()
    });
    let o = log_options(&mut app);
    assert_eq!((o.tail_lines, o.since_seconds), (Some(50), None));
}

#[test]
fn logger_since_seconds_reads_that_far_back_and_zero_the_whole_log() {
    let mut app = with_logger(K9sLogger {
        since_seconds: Some(300),
        ..K9sLogger::default()
    });
    let o = log_options(&mut app);
    assert_eq!((o.tail_lines, o.since_seconds), (None, Some(300)));
    let mut app = with_logger(K9sLogger {
        since_seconds: Some(0),
        ..K9sLogger::default()
    });
    let o = log_options(&mut app);
    assert_eq!((o.tail_lines, o.since_seconds), (None, None));
    // k9s's -1: the tail.
    let mut app = with_logger(K9sLogger {
        since_seconds: Some(-1),
        tail: Some(30),
        ..K9sLogger::default()
    });
    assert_eq!(log_options(&mut app).tail_lines, Some(30));
}

#[test]
fn logger_text_wrap_and_show_time_start_the_log_view_wrapped_with_timestamps() {
    let mut app = with_logger(K9sLogger {
        text_wrap: Some(true),
        show_time: Some(true),
        ..K9sLogger::default()
    });
    log_options(&mut app);
    let Some(Screen::Logs(l)) = app.current_screen() else {
        panic!()
    };
    assert!(l.view.wrap && l.view.timestamps);
}

#[test]
fn headless_draws_no_header_and_the_table_takes_its_rows() {
    let mut plain = app_with_user(UserConfig::default());
    let with = format!("{:?}", draw(&mut plain, 100, 30).backend());
    assert!(with.contains("Context: kind-demo"), "{with}");
    let mut user = UserConfig::default();
    user.settings.k9s_ui.headless = true;
    let mut app = app_with_user(user);
    let without = format!("{:?}", draw(&mut app, 100, 30).backend());
    assert!(!without.contains("Context: kind-demo"), "{without}");
    assert_eq!(app.table_height(), plain.table_height() + 3);
}

/// k9s's `ui.headless` is how the dashboard starts: ctrl-e brings the header back.
#[test]
fn headless_starts_without_the_header_and_ctrl_e_brings_it_back() {
    let mut user = UserConfig::default();
    user.settings.k9s_ui.headless = true;
    let mut app = app_with_user(user);
    let without = format!("{:?}", draw(&mut app, 100, 30).backend());
    assert!(!without.contains("Context: kind-demo"), "{without}");
    app.update(ctrl('e'));
    let with = format!("{:?}", draw(&mut app, 100, 30).backend());
    assert!(with.contains("Context: kind-demo"), "{with}");
}

/// k9s's `ui.crumbsless`: no breadcrumbs at start (ctrl-g shows them), where they would show.
#[test]
fn crumbsless_starts_without_the_breadcrumbs_and_ctrl_g_shows_them() {
    let open_deltas = |app: &mut App| {
        app.update(key(':'));
        for c in "deltas".chars() {
            app.update(key(c));
        }
        app.update(code(crossterm::event::KeyCode::Enter));
    };
    let mut plain = app_with_user(UserConfig::default());
    open_deltas(&mut plain);
    let shown = format!("{:?}", draw(&mut plain, 100, 30).backend());
    assert!(shown.contains("<pods>"), "{shown}");
    let mut user = UserConfig::default();
    user.settings.k9s_ui.crumbsless = true;
    let mut app = app_with_user(user);
    open_deltas(&mut app);
    let hidden = format!("{:?}", draw(&mut app, 100, 30).backend());
    assert!(!hidden.contains("<pods>"), "{hidden}");
    app.update(ctrl('g'));
    let back = format!("{:?}", draw(&mut app, 100, 30).backend());
    assert!(back.contains("<pods>"), "{back}");
}

fn with_saved_favourites(favs: &[&str]) -> App {
    app_with_user(UserConfig {
        context_state: Some(kinformer::config::context_state::ContextState {
            favorites: favs.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }),
        ..Default::default()
    })
}

#[test]
fn the_contexts_saved_favourites_are_1_to_9_at_start_in_k9ss_order() {
    let mut app = with_saved_favourites(&["shop", "kube-system", "default"]);
    assert_eq!(app.favourites, ["shop", "kube-system", "default"]);
    app.update(key('2'));
    assert_eq!(app.namespace.as_deref(), Some("kube-system"));
    // The start namespace joins them in front when they lack it.
    let app = with_saved_favourites(&["shop"]);
    assert_eq!(app.favourites, ["default", "shop"]);
}

#[test]
fn the_state_saved_on_exit_is_the_namespace_the_favourites_and_the_view() {
    let mut app = with_saved_favourites(&["default"]);
    app.update(key(':'));
    type_str(&mut app, "ns kube-system");
    app.update(code(crossterm::event::KeyCode::Enter));
    let s = app.k9s_state();
    assert_eq!(s.active_namespace, "kube-system");
    assert_eq!(s.favorites, ["kube-system", "default"]);
    assert_eq!(s.view, "pods");
    app.update(key('0'));
    assert_eq!(app.k9s_state().active_namespace, "all");
}
