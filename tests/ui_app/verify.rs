//! `:verify`: the view's cache compared with the server.

use super::*;
use kinformer::informer::consistency::{Difference, DifferenceKind, Verification};

#[test]
fn verify_asks_the_runtime_for_the_current_view() {
    let (mut app, v) = app_with(config(), three_pods());
    type_str(&mut app, ":verify");
    let fx = app.update(code(KeyCode::Enter));
    assert!(fx.contains(&Effect::Verify { view: v }), "{fx:?}");
}

#[test]
fn a_cache_that_matches_says_so_in_one_line() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(Action::Verified {
        view: v,
        result: Ok(Verification {
            resource_version: "42".into(),
            server_objects: 10_000,
            matched: 10_000,
            differences: vec![],
        }),
    });
    assert_eq!(
        app.message.as_ref().map(|(m, _)| m.as_str()),
        Some("10,000 objects match the server")
    );
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn differences_are_shown_as_a_table_missing_extra_older() {
    let (mut app, v) = app_with(config(), three_pods());
    let d = |key: &str, kind, cached: Option<&str>, server: Option<&str>| Difference {
        key: key.into(),
        kind,
        cached: cached.map(str::to_string),
        server: server.map(str::to_string),
    };
    app.update(Action::Verified {
        view: v,
        result: Ok(Verification {
            resource_version: "42".into(),
            server_objects: 3,
            matched: 1,
            differences: vec![
                d(
                    "default/api-1",
                    DifferenceKind::Older,
                    Some("5"),
                    Some("40"),
                ),
                d("default/db-0", DifferenceKind::Extra, Some("7"), None),
                d("default/new-1", DifferenceKind::Missing, None, Some("41")),
            ],
        }),
    });
    let text = screen_text(&app);
    assert!(
        text.contains("3 of 3 objects differ from the server (list at RV 42); listed again."),
        "{text}"
    );
    for row in [
        "default/api-1  older                  5            40",
        "default/db-0   extra                  7             -",
        "default/new-1  missing                -            41",
    ] {
        assert!(text.contains(row), "{row:?} in\n{text}");
    }
}

#[test]
fn the_periodic_check_verifies_the_current_table() {
    let (mut app, v) = app_with(config(), three_pods());
    assert_eq!(
        app.update(Action::VerifyTick),
        vec![Effect::Verify { view: v }]
    );
}
