//! A k9s user's configuration on screen: a skinned table (text snapshot, colours checked on the
//! buffer) and the aliases view listing the user's aliases.

mod ui_support;

use std::sync::Arc;

use kinformer::ui::action::Action;
use kinformer::ui::{App, AppConfig};
use ratatui::style::Color;
use ui_support::*;

/// The test pods, with `status.phase` in their objects when `phase` (for views.yaml's PHASE).
fn skinned_with(resource: &str, phase: bool) -> App {
    let mut rows = vec![
        pod(PodSpec {
            name: "web-7d4b9c-x2lq",
            labels: &[("app", "web")],
            age_secs: 7_200,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "api-5f6d8-q9wt",
            status: "CrashLoopBackOff",
            restarts: 7,
            labels: &[("app", "api")],
            age_secs: 1_800,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "cache-6c9f-zz1",
            status: "Pending",
            age_secs: 45,
            node: "",
            ..PodSpec::default()
        }),
    ];
    if phase {
        for r in &mut rows {
            let status = r.row.cells[2].display(0).into_owned();
            let phase = if status == "Pending" {
                "Pending"
            } else {
                "Running"
            };
            let mut obj = (*r.object).clone();
            obj.data["status"] = serde_json::json!({ "phase": phase });
            r.object = Arc::new(obj);
        }
    }
    let (mut app, _) = app_with(
        AppConfig {
            resource: resource.into(),
            user: Arc::new(fixture_user_config()),
            ..config()
        },
        rows,
    );
    connected(&mut app);
    app.update(Action::Tick(NOW_MS + 60_000));
    app
}

fn skinned(resource: &str) -> App {
    skinned_with(resource, true)
}

/// The first cell of row `y` whose symbol starts `text`.
fn cell_at(t: &ratatui::backend::TestBackend, y: u16, text: &str) -> ratatui::buffer::Cell {
    let buf = t.buffer();
    let line: String = (0..buf.area.width)
        .map(|x| buf[(x, y)].symbol().to_string())
        .collect();
    let x = line
        .find(text)
        .unwrap_or_else(|| panic!("{text:?} not in {line:?}"));
    buf[(line[..x].chars().count() as u16, y)].clone()
}

fn row_of(t: &ratatui::backend::TestBackend, text: &str) -> u16 {
    let buf = t.buffer();
    (0..buf.area.height)
        .find(|&y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .contains(text)
        })
        .unwrap_or_else(|| panic!("{text:?} not on screen"))
}

#[test]
fn a_skinned_pods_table() {
    let mut app = skinned("pods");
    // The cursor on the healthy row (rows sort by name: api, cache, web).
    app.update(key('G'));
    let t = draw(&mut app, 100, 16);
    insta::assert_snapshot!(t.backend());
    let b = t.backend();
    // night.yaml: table fgColor aqua, cursor black on aqua, errorColor orangered,
    // modifyColor greenyellow, header white, border dodgerblue.
    let aqua = Color::Rgb(0, 255, 255);
    let y = row_of(b, "web-7d4b9c-x2lq");
    let selected = cell_at(b, y, "web-7d4b9c-x2lq");
    let api = cell_at(b, row_of(b, "api-5f6d8-q9wt"), "api-5f6d8-q9wt");
    let cache = cell_at(b, row_of(b, "cache-6c9f-zz1"), "cache-6c9f-zz1");
    let (sel_fg, sel_bg) = (selected.fg, selected.bg);
    assert_eq!(
        (sel_fg, sel_bg),
        (Color::Rgb(0, 0, 0), aqua),
        "the cursor row: black on aqua"
    );
    assert_eq!(api.fg, Color::Rgb(255, 69, 0), "an error row: orangered");
    assert_eq!(
        cache.fg,
        Color::Rgb(173, 255, 47),
        "a pending row: greenyellow"
    );
    let header = cell_at(b, row_of(b, "STATUS"), "STATUS");
    assert_eq!(header.fg, Color::Rgb(255, 255, 255));
    let border = cell_at(b, row_of(b, "Pods("), "─");
    assert_eq!(border.fg, Color::Rgb(30, 144, 255), "dodgerblue frame");
}

#[test]
fn without_a_skin_the_built_in_look_stays() {
    let (mut app, _) = app_with(config(), vec![simple_pod("default", "web-1")]);
    let t = draw(&mut app, 100, 12);
    let b = t.backend();
    let y = row_of(b, "web-1");
    let c = cell_at(b, y, "web-1");
    assert!(c.modifier.contains(ratatui::style::Modifier::REVERSED));
    assert_eq!(c.fg, Color::Cyan);
}

#[test]
fn the_aliases_view_lists_a_users_aliases() {
    let mut app = skinned("pods");
    app.update(ctrl('a'));
    let t = draw(&mut app, 100, 22);
    insta::assert_snapshot!(t.backend());
}

#[test]
fn custom_columns_show_the_view_and_a_path_that_finds_nothing_is_named_once() {
    let mut app = skinned_with("pods", false);
    let t = draw(&mut app, 100, 16);
    let b = t.backend();
    let header_row = row_of(b, "PHASE");
    let header: String = (0..100)
        .map(|x| b.buffer()[(x, header_row)].symbol().to_string())
        .collect();
    let cols: Vec<&str> = header
        .split(|c: char| c.is_whitespace() || c == '│')
        .filter(|w| !w.is_empty())
        .take(6)
        .collect();
    assert_eq!(cols, ["NAME↑", "APP", "PHASE", "READY", "STATUS", "AGE"]);
    // These test objects carry no status: PHASE is <error> and the footer says why, once;
    // a label they lack is <none>.
    let row = row_of(b, "web-7d4b9c-x2lq");
    let line: String = (0..100)
        .map(|x| b.buffer()[(x, row)].symbol().to_string())
        .collect();
    assert!(
        line.contains("<none>") && line.contains("<error>"),
        "{line}"
    );
    let (msg, error) = app.message.clone().unwrap();
    assert!(error, "{msg}");
    assert!(
        msg.contains("column PHASE shows <error>") && msg.contains(".status.phase"),
        "{msg}"
    );
    app.message = None;
    app.update(kinformer::ui::action::Action::Resync {
        view: app.current_view_id().unwrap(),
        rows: vec![simple_pod("default", "web-1")],
    });
    assert!(app.message.is_none(), "named once");
}

#[test]
fn a_custom_views_wide_column_shows_in_wide_mode_only() {
    let mut app = skinned_with("pods", true);
    let header = |app: &mut App| {
        let t = draw(app, 160, 16);
        let b = t.backend();
        let y = row_of(b, "PHASE");
        (0..160)
            .map(|x| b.buffer()[(x, y)].symbol().to_string())
            .collect::<String>()
    };
    assert!(!header(&mut app).contains("NODE"), "NODE|W is wide only");
    app.update(ctrl('w'));
    let wide = header(&mut app);
    assert!(wide.contains("NODE"), "{wide}");
    // The view's own columns only: the kind's wide columns are not added to a custom view.
    assert!(!wide.contains("LABELS"), "{wide}");
}
