//! Bad input typed by people, one table per input kind: each row is what was typed, the one
//! line the footer shows for it, and a check that nothing else changed (the view, its rows, no
//! filter applied, the namespace, no effect sent to the runtime). A bad regex stays in the
//! table's header as typed, marked not applied (by design, see `set_text_filter`).

use super::*;

/// What a bad input must leave as it was.
#[derive(Debug, PartialEq)]
struct Unchanged {
    view: Option<ViewId>,
    namespace: Option<String>,
    rows: Vec<String>,
    /// Whether a text filter is applied.
    filtered: bool,
    views: usize,
}

fn unchanged(app: &App, v: ViewId) -> Unchanged {
    Unchanged {
        view: app.current_view_id(),
        namespace: app.namespace.clone(),
        rows: shown(app, v),
        filtered: app
            .views
            .get(&v)
            .is_some_and(|view| view.table.filters.text.is_some()),
        views: app.views.len(),
    }
}

/// `:` commands: an unknown command or kind, a bad `:at` time, bad `:ns` names.
#[test]
fn each_bad_command_is_one_error_line_and_changes_nothing() {
    let usage = ":at TIME (10:42, 10:42:13 UTC, -5m, -30s, now)";
    let unknown_time =
        |t: &str| format!("unknown time \"{t}\": HH:MM, HH:MM:SS (UTC), -5m, -30s or now");
    let rows: Vec<(&str, String)> = vec![
        ("gizmos", "unknown resource or command: gizmos".into()),
        (
            "gizmos nosuch",
            "unknown resource or command: gizmos".into(),
        ),
        ("po/", "unknown resource or command: po/".into()),
        ("ns nosuch", "unknown namespace: nosuch".into()),
        ("ns default,nosuch", "unknown namespace: nosuch".into()),
        ("ns Bad_Name!", "unknown namespace: Bad_Name!".into()),
        (
            "ns ,",
            "no namespace in \",\": :ns NAME[,NAME...], or :ns alone for all".into(),
        ),
        ("at", usage.into()),
        ("at yesterday", unknown_time("yesterday")),
        ("at 25:61", unknown_time("25:61")),
        ("at +5m", unknown_time("+5m")),
        (
            "at 99999999999999999999s",
            unknown_time("99999999999999999999s"),
        ),
        ("at -5x", "bad duration \"-5x\" (units: h, m, s)".into()),
    ];
    for (typed, want) in rows {
        let (mut app, v) = app_with(config(), three_pods());
        let before = unchanged(&app, v);
        app.update(key(':'));
        type_str(&mut app, typed);
        let mut fx = app.update(code(KeyCode::Enter));
        if fx == [Effect::Rediscover] {
            // An unknown kind: discovery is asked again once, and knows it no better.
            fx = app.update(Action::Discovery(
                kinformer::ui::resources::builtin_resources(),
            ));
        }
        assert_eq!(app.message, Some((want, true)), ":{typed}");
        assert!(fx.is_empty(), ":{typed}: {fx:?}");
        assert_eq!(unchanged(&app, v), before, ":{typed}");
    }
}

/// `/` filters (regexes) and label selectors, typed as `/-l ...` or in the label picker
/// (ctrl-l), which stays open with the error.
#[test]
fn each_bad_filter_or_selector_is_one_line_and_keeps_the_table() {
    let selector = |s: &str, why: &str| format!("invalid label selector \"{s}\": {why}");
    let rows: Vec<(&str, String)> = vec![
        (
            "~(unclosed",
            "invalid regex /~(unclosed: unclosed group".into(),
        ),
        (
            "~[z-a]",
            "invalid regex /~[z-a]: invalid character class range, the start must be <= the end"
                .into(),
        ),
        (
            "~a{99999999}",
            "invalid regex /~a{99999999}: Compiled regex exceeds size limit of 10485760 bytes."
                .into(),
        ),
        (
            "-l app in (web",
            selector(
                "app in (web",
                "unable to parse requirement at position 11: found end of input, expected: ')'",
            ),
        ),
        (
            "-l =",
            selector(
                "=",
                "unable to parse requirement at position 0: found '=', expected: '!' or identifier",
            ),
        ),
        (
            "-l a b c",
            selector(
                "a b c",
                "unable to parse requirement at position 2: found 'b', expected: '=', '!=', '==', 'in', 'notin', '>', '<', ',' or end of input",
            ),
        ),
        (
            "-l app==x==y",
            selector(
                "app==x==y",
                "unable to parse requirement at position 6: found '==', expected: ',' or end of input",
            ),
        ),
        (
            "-l !",
            selector(
                "!",
                "unable to parse requirement at position 1: found end of input, expected: identifier after '!'",
            ),
        ),
        (
            "-l a,,b",
            selector(
                "a,,b",
                "unable to parse requirement at position 2: found ',', expected: '!' or identifier",
            ),
        ),
    ];
    for (typed, want) in rows {
        let (mut app, v) = app_with(config(), labelled_pods());
        let before = unchanged(&app, v);
        app.update(key('/'));
        type_str(&mut app, typed);
        let fx = app.update(code(KeyCode::Enter));
        assert_eq!(app.message, Some((want, true)), "/{typed}");
        assert!(fx.is_empty(), "/{typed}: {fx:?}");
        assert_eq!(unchanged(&app, v), before, "/{typed}");
        if typed.starts_with('~') {
            assert!(app.views[&v].table.filters.text_invalid, "/{typed}");
        }
    }
    for (typed, why) in [
        (
            "app in (web",
            "unable to parse requirement at position 11: found end of input, expected: ')'",
        ),
        (
            "a b c",
            "unable to parse requirement at position 2: found 'b', expected: '=', '!=', '==', 'in', 'notin', '>', '<', ',' or end of input",
        ),
        (
            "!",
            "unable to parse requirement at position 1: found end of input, expected: identifier after '!'",
        ),
    ] {
        let (mut app, v) = app_with(config(), labelled_pods());
        let before = unchanged(&app, v);
        app.update(ctrl('l'));
        type_str(&mut app, typed);
        let fx = app.update(code(KeyCode::Enter));
        match &app.mode {
            Mode::Labels(p) => assert_eq!(p.error, Some(selector(typed, why)), "{typed}"),
            m => panic!("{typed}: the picker should stay open: {m:?}"),
        }
        assert!(fx.is_empty(), "{typed}: {fx:?}");
        assert_eq!(unchanged(&app, v), before, "{typed}");
    }
}
