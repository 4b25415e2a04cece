//! Mouse, lingering deleted rows and the start-up banner.

use super::*;

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
fn the_title_counts_objects_not_the_deleted_rows_still_shown() {
    let (mut app, v) = app_with(config(), three_pods());
    assert!(screen_text(&app).contains("Pods(default)[3]"));
    app.update(Action::Rows {
        view: v,
        upserts: vec![],
        deletes: vec!["default/db-0".into()],
    });
    app.update(Action::Tick(NOW_MS));
    let text = screen_text(&app);
    assert!(text.contains("db-0"), "the deleted row is still shown");
    assert!(text.contains("Pods(default)[2]"), "but not counted: {text}");
    // With a filter the lingering row matches, the same.
    app.update(key('/'));
    type_str(&mut app, "db");
    app.update(code(KeyCode::Enter));
    let text = screen_text(&app);
    assert!(
        text.contains("db-0") && text.contains("Pods(default)[0]"),
        "{text}"
    );
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
