//! k9s's marks: `space` marks a row, `ctrl-space` a range, `ctrl-\` clears; `ctrl-d` and
//! `ctrl-k` act on every marked row through the one write path.

use kinformer::ui::app::Pending;

use super::*;

fn writes(fx: &[Effect]) -> Vec<(String, Operation)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Write(w) => Some((w.name.clone(), w.op.clone())),
            _ => None,
        })
        .collect()
}

fn marked(app: &App, v: ViewId) -> Vec<String> {
    app.views[&v].marked.clone()
}

fn question(app: &App) -> String {
    screen_text(app)
}

#[test]
fn space_marks_rows_and_ctrl_d_deletes_every_marked_one_after_one_confirmation() {
    let (mut app, v) = app_with(config(), three_pods());
    // Sorted by name: api-1, db-0, web-2.
    app.update(key(' '));
    app.update(key(' '));
    assert_eq!(marked(&app, v), ["default/api-1", "default/db-0"]);
    let fx = app.update(ctrl('d'));
    assert!(writes(&fx).is_empty(), "confirmed first: {fx:?}");
    let Mode::Confirm(c) = &app.mode else {
        panic!("{:?}", app.mode)
    };
    assert!(matches!(&c.pending, Pending::Writes(ws) if ws.len() == 2));
    let text = question(&app);
    assert!(text.contains("Delete 2 pods"), "{text}");
    assert!(text.contains("default/api-1, default/db-0"), "{text}");
    let fx = app.update(key('y'));
    assert_eq!(
        writes(&fx),
        [
            (
                "api-1".to_string(),
                Operation::Delete(Propagation::Background)
            ),
            (
                "db-0".to_string(),
                Operation::Delete(Propagation::Background)
            ),
        ]
    );
    assert!(marked(&app, v).is_empty(), "the marks go with the write");
}

#[test]
fn ctrl_k_kills_every_marked_pod_and_without_marks_only_the_selected_one() {
    let (mut app, _) = app_with(config(), three_pods());
    let fx = {
        app.update(ctrl('k'));
        app.update(key('y'))
    };
    assert_eq!(writes(&fx), [("api-1".to_string(), Operation::Kill)]);
    app.update(key(' '));
    app.update(key(' '));
    app.update(key(' '));
    app.update(ctrl('k'));
    let fx = app.update(key('y'));
    assert_eq!(writes(&fx).len(), 3);
    assert!(writes(&fx).iter().all(|(_, op)| *op == Operation::Kill));
}

#[test]
fn ctrl_space_marks_a_range_and_ctrl_backslash_clears_the_marks() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(key(' ')); // api-1, the cursor moves to db-0
    app.update(key('j')); // web-2
    app.update(Action::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char(' '),
        crossterm::event::KeyModifiers::CONTROL,
    )));
    assert_eq!(
        marked(&app, v),
        ["default/api-1", "default/db-0", "default/web-2"]
    );
    // ctrl-\ reaches crossterm as ctrl-4 from most terminals; both clear.
    app.update(ctrl('\\'));
    assert!(marked(&app, v).is_empty());
    app.update(key(' '));
    app.update(ctrl('4'));
    assert!(marked(&app, v).is_empty());
}

#[test]
fn marked_writes_are_refused_in_read_only_mode_before_any_dialog() {
    let cfg = AppConfig {
        readonly: true,
        ..config()
    };
    let (mut app, _) = app_with(cfg, three_pods());
    app.update(key(' '));
    let fx = app.update(ctrl('d'));
    assert!(writes(&fx).is_empty());
    assert!(matches!(app.mode, Mode::Normal));
    assert!(app.message.clone().unwrap().0.contains("read-only"));
}
