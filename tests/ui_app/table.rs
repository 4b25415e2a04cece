//! Rows arriving and leaving, the selection kept, sorting.

use super::*;

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
    app.update(key('~'));
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
        SortBy::Cell(6),
        "wraps around to the last column on screen: NODE (the usage columns sit before IP)"
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

/// A text filter over more rows than one slice is a pass spread over updates: typed, it shows
/// the matches among the first slice at once, says `… so far` and asks for a tick at once; each
/// tick checks one more slice; the pass ends within rows / slice ticks with exactly the rows a
/// filter at once shows, in the same order.
#[test]
fn a_filter_over_many_rows_fills_in_over_ticks_and_ends_with_the_one_shot_result() {
    let rows: Vec<_> = (0..2_000)
        .map(|i| {
            simple_pod(
                if i % 2 == 0 { "default" } else { "shop" },
                &format!("pod-{i:04}"),
            )
        })
        .collect();
    // The same filter at once (one slice holds every row).
    let (mut at_once, v1) = at_once_app(rows.clone());
    at_once.update(key('/'));
    type_str(&mut at_once, "pod-1");
    assert!(!at_once.views[&v1].table.filtering());
    let expected = shown(&at_once, v1);
    assert_eq!(expected.len(), 1_000, "pod-1000..pod-1999");

    let (mut app, v) = app_with(config(), rows);
    let slice = 300;
    app.views.get_mut(&v).unwrap().table.set_slice_rows(slice);
    app.update(key('/'));
    type_str(&mut app, "pod-1");
    let mut ticks = 0;
    let mut now = app.now_ms;
    while app.views[&v].table.filtering() {
        // Partial: a sorted prefix of the final result, marked so far, a tick wanted now.
        let so_far = shown(&app, v);
        assert_eq!(so_far, expected[..so_far.len()], "a prefix of the result");
        assert!(screen_text(&app).contains(&format!("({} matches so far)", so_far.len())));
        assert_eq!(app.next_deadline_ms(), Some(app.now_ms));
        now += 16;
        app.update(Action::Tick(now));
        ticks += 1;
        assert!(ticks <= 2_000 / slice + 1, "the pass does not end");
    }
    assert!(
        ticks >= 2_000 / slice - 1,
        "one slice per tick: {ticks} ticks"
    );
    assert_eq!(shown(&app, v), expected);
    assert!(!screen_text(&app).contains("so far"));
}

/// An App over `rows` whose table does every filter and sort in one update (a slice holds
/// every row): the one-shot result a sliced run must end with.
fn at_once_app(rows: Vec<kinformer::ui::action::ObjectSummary>) -> (App, ViewId) {
    let (mut app, v) = app_with(config(), rows);
    app.views.get_mut(&v).unwrap().table.set_slice_rows(10_000);
    (app, v)
}

/// 2,000 pods with ages and restarts that do not follow their names.
fn pods_to_sort(n: usize) -> Vec<kinformer::ui::action::ObjectSummary> {
    (0..n)
        .map(|i| {
            let name = format!("pod-{i:04}");
            pod(PodSpec {
                ns: if i % 2 == 0 { "default" } else { "shop" },
                name: &name,
                age_secs: ((i * 7_919) % 1_000) as i64,
                restarts: ((i * 31) % 17) as i64,
                ..PodSpec::default()
            })
        })
        .collect()
}

#[test]
fn a_sort_over_many_rows_runs_over_ticks_keeps_the_old_order_meanwhile_and_ends_as_the_one_shot_sort()
 {
    let rows = pods_to_sort(2_000);
    // The same sort at once (a slice large enough for every row).
    let (mut at_once, v1) = at_once_app(rows.clone());
    at_once.update(key('A'));
    assert!(at_once.views[&v1].table.sorting().is_none());
    let expected = shown(&at_once, v1);

    let (mut app, v) = app_with(config(), rows);
    app.views.get_mut(&v).unwrap().table.set_slice_rows(100);
    let before = shown(&app, v);
    app.update(key('A'));
    assert_eq!(
        app.views[&v].table.sort(),
        (SortBy::Cell(4), false),
        "the sort asked for, at once"
    );
    let mut ticks = 0;
    let mut now = app.now_ms;
    let mut last_pct = 0;
    while let Some(pct) = app.views[&v].table.sorting() {
        assert_eq!(shown(&app, v), before, "the previous order until the end");
        assert!(
            pct >= last_pct,
            "progress goes forward: {last_pct} then {pct}"
        );
        last_pct = pct;
        assert!(
            screen_text(&app).contains(&format!("sorting {pct}%")),
            "{}",
            screen_text(&app)
        );
        assert_eq!(app.next_deadline_ms(), Some(app.now_ms), "a tick at once");
        now += 16;
        app.update(Action::Tick(now));
        ticks += 1;
        assert!(ticks < 1_000, "the sort does not end");
    }
    assert!(ticks >= 5, "spread over updates: {ticks} ticks");
    assert_eq!(shown(&app, v), expected);
    assert!(!screen_text(&app).contains("sorting"));
    // Sorting again by the same column flips it, as at once.
    app.update(key('A'));
    while app.views[&v].table.sorting().is_some() {
        now += 16;
        app.update(Action::Tick(now));
    }
    let mut flipped = expected.clone();
    flipped.reverse();
    assert_eq!(shown(&app, v), flipped);
}

#[test]
fn rows_changed_added_and_deleted_during_a_sliced_sort_end_in_their_sorted_place() {
    let rows = pods_to_sort(2_000);
    let (mut app, v) = app_with(config(), rows.clone());
    app.views.get_mut(&v).unwrap().table.set_slice_rows(100);
    app.update(key('A'));
    let mut now = app.now_ms;
    let mut step = 0;
    let mut changes = rows.clone();
    while app.views[&v].table.sorting().is_some() {
        step += 1;
        // Every few ticks: one row aged, one new row, one row deleted for good.
        if step % 3 == 0 {
            let i = (step * 13) % 2_000;
            let name = format!("pod-{i:04}");
            let aged = pod(PodSpec {
                ns: if i % 2 == 0 { "default" } else { "shop" },
                name: &name,
                age_secs: 5_000 + step as i64,
                ..PodSpec::default()
            });
            let new_name = format!("new-{step:03}");
            let added = pod(PodSpec {
                name: &new_name,
                age_secs: (step as i64 * 37) % 1_000,
                ..PodSpec::default()
            });
            let gone = changes[(step * 29) % changes.len()].key.clone();
            changes.retain(|s| s.key != gone && s.key != aged.key);
            changes.push(aged.clone());
            changes.push(added.clone());
            app.update(Action::Rows {
                view: v,
                upserts: vec![aged, added],
                deletes: vec![gone],
            });
            // The deleted row lingers, struck, then leaves for good.
            now += 10_000;
        } else {
            now += 16;
        }
        app.update(Action::Tick(now));
        assert!(step < 2_000, "the sort does not end");
    }
    now += 10_000;
    app.update(Action::Tick(now));
    // The same rows sorted at once.
    let (mut at_once, v1) = at_once_app(changes);
    at_once.update(key('A'));
    assert_eq!(shown(&app, v), shown(&at_once, v1));
}

fn arrow(right: bool) -> Action {
    Action::Key(crossterm::event::KeyEvent::new(
        if right { KeyCode::Right } else { KeyCode::Left },
        crossterm::event::KeyModifiers::SHIFT,
    ))
}

#[test]
fn shift_arrows_pick_a_column_and_shift_o_sorts_by_it() {
    let (mut app, v) = app_with(
        config(),
        vec![
            pod(PodSpec {
                name: "a",
                status: "Running",
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "b",
                status: "CrashLoopBackOff",
                ..PodSpec::default()
            }),
        ],
    );
    // NAME (key order) → READY → STATUS.
    app.update(arrow(true));
    app.update(arrow(true));
    assert_eq!(app.views[&v].sort_pick, Some(SortBy::Cell(2)));
    assert!(
        screen_text(&app).contains("[STATUS]"),
        "{}",
        screen_text(&app)
    );
    app.update(Action::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('O'),
        crossterm::event::KeyModifiers::SHIFT,
    )));
    assert_eq!(app.views[&v].table.sort().0, SortBy::Cell(2));
    assert_eq!(
        shown(&app, v),
        ["default/b", "default/a"],
        "CrashLoop… before Running"
    );
    // Back left to NAME.
    app.update(arrow(false));
    app.update(arrow(false));
    assert_eq!(app.views[&v].sort_pick, Some(SortBy::Key));
}

#[test]
fn shift_o_without_a_picked_column_sorts_pods_by_node_as_k9s() {
    let (mut app, v) = app_with(config(), three_pods());
    app.update(Action::Key(crossterm::event::KeyEvent::new(
        KeyCode::Char('O'),
        crossterm::event::KeyModifiers::SHIFT,
    )));
    let node = app.views[&v]
        .columns
        .iter()
        .position(|c| c.name == "NODE")
        .unwrap();
    assert_eq!(app.views[&v].table.sort().0, SortBy::Cell(node));
}
