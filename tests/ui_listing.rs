//! Issue 28: rows and progress while a big list streams, through `App::update` and TestBackend
//! frames. The runtime hands the app the rows of a list in progress (`Action::ListedRows`) and
//! the list's progress (the informer row); the store path (`Action::Rows`) takes over when the
//! list ends.

mod ui_support;

use std::sync::Arc;

use crossterm::event::KeyCode;
use kinformer::informer::listing::ListTotal;
use kinformer::informer::thread_safe_store::ThreadSafeStore;
use kinformer::ui::action::{Action, InformerRow, InformerState, ObjectSummary, ViewId};
use kinformer::ui::listing::ListingProgress;
use kinformer::ui::{App, KeyMap};
use ratatui::buffer::Buffer;
use ratatui::style::Modifier;
use ui_support::*;

/// The screen's lines.
fn lines(buf: &Buffer) -> Vec<String> {
    (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

/// The line showing `name`, and that line's index.
fn line_of(buf: &Buffer, name: &str) -> Option<usize> {
    lines(buf)
        .iter()
        .position(|l| l.contains(&format!("│{name} ")) || l.contains(&format!(" {name} ")))
}

/// An app whose first view (pods in `default`) has an empty store: its informer is listing.
fn listing_app() -> (App, ViewId) {
    let mut app = App::new(config(), KeyMap::defaults().unwrap());
    app.update(Action::Resize(120, 30));
    let fx = app.init();
    let first = opened(&fx)[0].0;
    app.update(Action::Store {
        view: first,
        store: Arc::new(ThreadSafeStore::new(Default::default())),
    });
    connected(&mut app);
    (app, first)
}

/// The pods informer's row while listing: `objects` received of `total`.
fn listing_row(objects: u64, total: Option<ListTotal>, synced: bool) -> InformerRow {
    InformerRow {
        cached: if synced { 100 } else { 0 },
        synced,
        last_rv: if synced {
            "48213".into()
        } else {
            String::new()
        },
        progress: Some(ListingProgress {
            objects,
            bytes: Some(objects * 10_000),
            bytes_per_sec: Some(5_000_000.0),
            total,
        }),
        ..informer_row("pods", Some("default"), InformerState::Listing)
    }
}

fn watching_row() -> InformerRow {
    InformerRow {
        cached: 100,
        ..informer_row("pods", Some("default"), InformerState::Watching)
    }
}

/// Pod `p000`..`p099`, chunk `c` of 4 holding every fourth one (so later chunks insert rows
/// above the earlier ones).
fn chunk(c: usize) -> Vec<ObjectSummary> {
    (0..25)
        .map(|i| simple_pod("default", &format!("p{:03}", i * 4 + c)))
        .collect()
}

#[test]
fn a_list_arriving_in_chunks_shows_its_rows_count_and_progress_in_every_frame() {
    let (mut app, view) = listing_app();
    app.update(Action::InformerStats(vec![listing_row(
        0,
        Some(ListTotal::Estimate(100)),
        false,
    )]));
    let t = draw(&mut app, 120, 30);
    let screen = lines(t.backend().buffer()).join("\n");
    assert!(screen.contains("pods listing │ 0 of ~100 (0%)"), "{screen}");
    assert!(screen.contains("loading… (listing)"), "{screen}");

    let mut selected_line = None;
    for c in 0..4 {
        let received = (c as u64 + 1) * 25;
        app.update(Action::ListedRows {
            view,
            upserts: chunk(c),
            deletes: Vec::new(),
        });
        app.update(Action::InformerStats(vec![listing_row(
            received,
            Some(ListTotal::Estimate(100)),
            false,
        )]));
        let t = draw(&mut app, 120, 30);
        let buf = t.backend().buffer();
        let screen = lines(buf).join("\n");
        // Progress in the header and the title, the count of rows received in the title.
        let pct = received.min(99);
        assert!(
            screen.contains(&format!(
                "pods listing │ {received} of ~100 ({pct}%) │ {:.1} MB at 5.0 MB/s",
                received as f64 * 0.01
            )),
            "frame {c}: {screen}"
        );
        assert!(
            screen.contains(&format!("Pods(default)[{received}]  listing {pct}% ")),
            "frame {c}: {screen}"
        );
        // Every row received so far, in sort order.
        let mut want: Vec<String> = (0..=c).flat_map(chunk).map(|s| s.key.to_string()).collect();
        want.sort();
        assert_eq!(shown(&app, view), want, "frame {c}");
        // Rows of the first list are not news: none highlighted.
        assert!(
            app.views[&view]
                .table
                .entries()
                .all(|e| e.mark == kinformer::ui::table::Mark::None)
        );
        if c == 0 {
            // The user picks a row: it keeps its place on screen as rows arrive above it.
            for _ in 0..3 {
                app.update(key('j'));
            }
            assert_eq!(selected(&app, view).as_deref(), Some("default/p012"));
            let t = draw(&mut app, 120, 30);
            selected_line = line_of(t.backend().buffer(), "p012");
            assert!(selected_line.is_some());
        } else {
            assert_eq!(selected(&app, view).as_deref(), Some("default/p012"));
            assert_eq!(line_of(buf, "p012"), selected_line, "frame {c}");
        }
        if c == 1 {
            insta::assert_snapshot!("listing_half_way", t.backend());
        }
    }

    // The list ends: the store has it, the store path sends the same rows again.
    app.update(Action::InformerStats(vec![watching_row()]));
    app.update(Action::Rows {
        view,
        upserts: (0..4).flat_map(chunk).collect(),
        deletes: Vec::new(),
    });
    let t = draw(&mut app, 120, 30);
    let screen = lines(t.backend().buffer()).join("\n");
    assert!(screen.contains("Pods(default)[100]"), "{screen}");
    assert!(!screen.contains("listing"), "{screen}");
    assert!(screen.contains("pods watching │ 100 objects"), "{screen}");
    assert!(
        app.views[&view]
            .table
            .entries()
            .all(|e| e.mark == kinformer::ui::table::Mark::None),
        "the store's copy of a listed row is no change"
    );
}

#[test]
fn filters_during_a_list_say_their_matches_are_so_far() {
    let (mut app, view) = listing_app();
    app.update(Action::InformerStats(vec![listing_row(25, None, false)]));
    app.update(Action::ListedRows {
        view,
        upserts: chunk(0),
        deletes: Vec::new(),
    });
    app.update(key('/'));
    type_str(&mut app, "p00");
    app.update(code(KeyCode::Enter));
    let t = draw(&mut app, 120, 30);
    let screen = lines(t.backend().buffer()).join("\n");
    // p000, p004, p008 of the first chunk.
    assert_eq!(shown(&app, view).len(), 3);
    assert!(screen.contains("/p00  (3 matches so far)"), "{screen}");
    assert!(screen.contains("listing 25"), "{screen}");
    // A filter nothing matches yet says so.
    let (mut app, _) = listing_app();
    app.update(Action::InformerStats(vec![listing_row(25, None, false)]));
    app.update(key('/'));
    type_str(&mut app, "zzz");
    app.update(code(KeyCode::Enter));
    let t = draw(&mut app, 120, 30);
    let screen = lines(t.backend().buffer()).join("\n");
    assert!(
        screen.contains("no rows match the filter so far (still listing)"),
        "{screen}"
    );
}

#[test]
fn a_relist_keeps_the_previous_rows_dimmed_as_stale_until_the_new_list_brings_them() {
    let rows: Vec<ObjectSummary> = ["a", "b", "c"]
        .iter()
        .map(|n| simple_pod("default", n))
        .collect();
    let (mut app, view) = app_with(config(), rows);
    connected(&mut app);
    app.update(Action::InformerStats(vec![watching_row()]));
    // A 410: the informer lists again; the store still holds the previous list.
    app.update(Action::InformerStats(vec![listing_row(
        0,
        Some(ListTotal::Estimate(3)),
        true,
    )]));
    let stale = |app: &App, k: &str| app.views[&view].table.entry(k).map(|e| e.stale);
    assert_eq!(stale(&app, "default/a"), Some(true));
    let t = draw(&mut app, 120, 30);
    let screen = lines(t.backend().buffer()).join("\n");
    assert!(screen.contains("STALE: relisting 0%"), "{screen}");
    assert!(screen.contains("pods relisting │ 0 of ~3 (0%)"), "{screen}");

    // The new list brings b (changed) and c (unchanged); a is not in it.
    let mut b = simple_pod("default", "b");
    b.row.cells[1] = kinformer::render::Cell::Text("Pending".into());
    app.update(Action::ListedRows {
        view,
        upserts: vec![b.clone(), simple_pod("default", "c")],
        deletes: Vec::new(),
    });
    app.update(Action::InformerStats(vec![listing_row(
        2,
        Some(ListTotal::Estimate(3)),
        true,
    )]));
    assert_eq!(stale(&app, "default/a"), Some(true));
    assert_eq!(stale(&app, "default/b"), Some(false));
    assert_eq!(stale(&app, "default/c"), Some(false));
    let t = draw(&mut app, 120, 30);
    let buf = t.backend().buffer();
    let dim = |name: &str| {
        let y = line_of(buf, name).expect("row shown") as u16;
        // The NAME cell, right after the border.
        buf[(1, y)].modifier.contains(Modifier::DIM)
    };
    assert!(dim("a"), "a row the relist has not brought is dimmed");
    assert!(!dim("b"));

    // The list ends: the store path deletes a and confirms the others.
    app.update(Action::InformerStats(vec![watching_row()]));
    app.update(Action::Rows {
        view,
        upserts: vec![b, simple_pod("default", "c")],
        deletes: vec![Arc::from("default/a")],
    });
    assert!(
        app.views[&view]
            .table
            .entries()
            .filter(|e| e.mark != kinformer::ui::table::Mark::Deleted)
            .all(|e| !e.stale)
    );
    let t = draw(&mut app, 120, 30);
    let screen = lines(t.backend().buffer()).join("\n");
    assert!(!screen.contains("STALE"), "{screen}");
}

#[test]
fn rows_of_a_relist_arriving_before_its_progress_are_fresh_and_the_rest_stale() {
    let rows: Vec<ObjectSummary> = ["a", "b"]
        .iter()
        .map(|n| simple_pod("default", n))
        .collect();
    let (mut app, view) = app_with(config(), rows);
    app.update(Action::InformerStats(vec![watching_row()]));
    // The runtime sends the frame's rows before the stats that came with them.
    app.update(Action::ListedRows {
        view,
        upserts: vec![simple_pod("default", "b")],
        deletes: Vec::new(),
    });
    app.update(Action::InformerStats(vec![listing_row(
        1,
        Some(ListTotal::Estimate(2)),
        true,
    )]));
    let stale = |k: &str| app.views[&view].table.entry(k).map(|e| e.stale);
    assert_eq!(stale("default/a"), Some(true));
    assert_eq!(stale("default/b"), Some(false));
}

/// Growing the row map rehashes every row already there (~30 ms in one frame at 100k rows): a
/// list whose total is known makes room for all of it with its first rows, and a list of unknown
/// size grows as rows come.
#[test]
fn a_list_of_known_size_makes_room_for_all_its_rows_with_the_first_ones() {
    let (mut app, view) = listing_app();
    app.update(Action::InformerStats(vec![listing_row(
        0,
        Some(ListTotal::Exact(50_000)),
        false,
    )]));
    app.update(Action::ListedRows {
        view,
        upserts: chunk(0),
        deletes: vec![],
    });
    let table = &app.views[&view].table;
    assert_eq!(table.total(), 25);
    assert!(table.room() >= 50_000, "room for {}", table.room());

    let (mut app, view) = listing_app();
    app.update(Action::InformerStats(vec![listing_row(0, None, false)]));
    app.update(Action::ListedRows {
        view,
        upserts: chunk(0),
        deletes: vec![],
    });
    assert!(app.views[&view].table.room() < 1_000);
}
