//! YAML, describe, logs, operations, the event log, informer stats, help and custom resources.

use super::*;

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

#[test]
fn event_log_pane_toggles_and_event_screen_pauses_and_filters() {
    let (mut app, _) = app_with(config(), three_pods());
    assert!(app.show_events_pane, "the event log is on the first screen");
    app.update(key('E'));
    assert!(!app.show_events_pane, "e hides it");
    app.update(key('E'));
    assert!(app.show_events_pane, "and shows it again");
    app.update(Action::Tap(vec![
        tap(1, DeltaType::Added, false),
        tap(2, DeltaType::Deleted, true),
    ]));
    assert!(app.take_dirty(), "visible pane redraws on new entries");
    app.update(key('E'));
    app.take_dirty();
    app.update(Action::Tap(vec![tap(3, DeltaType::Sync, false)]));
    assert!(!app.take_dirty(), "hidden log does not redraw");
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Events(_))));
    // `:events` is the Event objects, as in kubectl and k9s (the DeltaFIFO log is `:deltas`).
    app.update(key(':'));
    type_str(&mut app, "events");
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].1, "events");
    app.update(key(':'));
    type_str(&mut app, "deltas");
    app.update(code(KeyCode::Enter));
    assert!(matches!(app.current_screen(), Some(Screen::Events(_))));
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

/// Issue 39: `-r gadgets` (a CRD's name) when the server could not be discovered at start
/// (only the built-in kinds known) said "unknown resource" and stayed on Pods for good; it
/// opens once discovery names it, by short name too.
#[test]
fn r_naming_a_custom_resource_opens_it_once_discovery_names_it() {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
    use kinformer::cluster::ResourceInfo;
    let cfg = AppConfig {
        resource: "gdg".into(),
        ..config()
    };
    let mut app = App::new(cfg, KeyMap::defaults().unwrap());
    let fx = app.init();
    assert_eq!(opened(&fx)[0].1, "pods");
    let gadget = ResourceInfo::from_api_resource(
        "demo.kinformer.dev",
        "v1",
        &APIResource {
            name: "gadgets".into(),
            kind: "Gadget".into(),
            namespaced: true,
            singular_name: "gadget".into(),
            short_names: Some(vec!["gdg".into()]),
            verbs: vec!["list".into(), "watch".into(), "get".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let mut resources = kinformer::ui::resources::builtin_resources();
    resources.push(gadget);
    let fx = app.update(Action::Discovery(resources.clone()));
    let (view, plural, _) = opened(&fx)[0].clone();
    assert_eq!(plural, "gadgets");
    assert!(matches!(app.current_screen(), Some(Screen::Table(id)) if *id == view));
    // Once only: a later discovery does not move the user again.
    app.update(key(':'));
    type_str(&mut app, "po");
    app.update(code(KeyCode::Enter));
    let fx = app.update(Action::Discovery(resources));
    assert!(opened(&fx).is_empty(), "{fx:?}");
}

/// An Event view has no NAME column: it opens sorted by LAST SEEN, newest first, with the arrow
/// on LAST SEEN (key order is not claimed for it), and `>` steps onto LAST SEEN too.
#[test]
fn events_open_newest_first_by_last_seen() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Discovery(
        kinformer::ui::resources::builtin_resources(),
    ));
    app.update(key(':'));
    type_str(&mut app, "ev");
    let fx = app.update(code(KeyCode::Enter));
    let (view, plural, _) = opened(&fx)[0].clone();
    assert_eq!(plural, "events");
    let event = |name: &str, ago_s: i64| {
        let at = chrono::DateTime::from_timestamp(NOW_MS / 1000 - ago_s, 0)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let obj: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default"},
            "involvedObject": {"kind": "Pod", "name": "web"},
            "reason": "Pulled", "type": "Normal", "message": name,
            "lastTimestamp": at}))
        .unwrap();
        kinformer::ui::action::ObjectSummary::from_object("Event", &std::sync::Arc::new(obj), None)
            .unwrap()
    };
    app.update(Action::Resync {
        view,
        rows: vec![event("a", 300), event("b", 5), event("c", 60)],
    });
    // MESSAGE takes the room left, up to its longest value (it was cut at 60); at 160 columns
    // SOURCE, COUNT and FIRST SEEN fit next to it.
    app.update(Action::Resize(160, 30));
    let long = format!("Successfully pulled image {}", "x".repeat(50));
    let mut e = event("d", 400);
    e.row.cells[5] = kinformer::render::Cell::Text(long.clone());
    app.update(Action::Rows {
        view,
        upserts: vec![e],
        deletes: vec![],
    });
    let text = screen_text(&app);
    assert!(text.contains(&long), "{text}");
    assert!(text.contains("FIRST SEEN"), "{text}");
    app.update(Action::Rows {
        view,
        upserts: vec![],
        deletes: vec!["default/d".into()],
    });
    app.update(Action::Tick(NOW_MS + 5_000));
    app.update(Action::Tick(NOW_MS + 7_000));
    assert_eq!(
        shown(&app, view),
        ["default/b", "default/c", "default/a"],
        "newest first"
    );
    let text = screen_text(&app);
    assert!(text.contains("LAST SEEN↑"), "{text}");
    // `N` is the name (key) order; no column claims it.
    app.update(key('N'));
    assert_eq!(shown(&app, view), ["default/a", "default/b", "default/c"]);
    assert!(!screen_text(&app).contains("LAST SEEN↑"));
    // `>` from the key order goes to LAST SEEN, the first column.
    app.update(key('>'));
    assert_eq!(app.views[&view].table.sort().0, SortBy::Cell(0));
}

/// `/` on a YAML or describe screen searches its text (the table beneath keeps its filter):
/// Enter goes to the first line holding it, `n` and `N` to the next and previous (wrapping
/// around), the footer says where or that nothing holds it.
#[test]
fn slash_searches_a_text_screen_and_n_and_shift_n_step_through_the_matches() {
    let (mut app, v) = app_with(config(), three_pods());
    let fx = app.update(key('d'));
    let Effect::FetchDescribe { request, .. } = fx[0].clone() else {
        panic!("{fx:?}")
    };
    let body: String = (0..100)
        .map(|i| {
            if i % 30 == 7 {
                format!("  Image: web:{i}\n")
            } else {
                format!("line {i}\n")
            }
        })
        .collect();
    app.update(Action::Describe {
        request,
        result: Ok(body),
    });
    let text = |app: &App| match app.current_screen() {
        Some(Screen::Text(t)) => (t.scroll, t.hit),
        _ => panic!("text screen expected"),
    };
    let footer = |app: &App| app.message.clone().map(|m| m.0).unwrap_or_default();
    app.update(key('/'));
    type_str(&mut app, "IMAGE");
    app.update(code(KeyCode::Enter));
    assert_eq!(
        text(&app),
        (7, Some(7)),
        "case ignored, first match from the top"
    );
    assert_eq!(footer(&app), "/IMAGE: line 8 of 100");
    app.update(key('n'));
    assert_eq!(text(&app), (37, Some(37)));
    app.update(key('n'));
    app.update(key('n'));
    // Line 97 is on the last page (100 lines, 24 rows): the page stops there, the match is on it.
    assert_eq!(text(&app), (100 - 24, Some(97)));
    app.update(key('n'));
    assert_eq!(text(&app), (7, Some(7)), "wraps around to the first");
    app.update(key('N'));
    assert_eq!(text(&app).1, Some(97), "and back");
    // The highlight is drawn on the screen.
    assert!(screen_text(&app).contains("Image: web:97"));
    app.update(key('/'));
    type_str(&mut app, "-nothing");
    app.update(code(KeyCode::Enter));
    assert!(footer(&app).contains("not found"), "{}", footer(&app));
    // The table beneath was not filtered.
    app.update(code(KeyCode::Esc));
    assert_eq!(shown(&app, v).len(), 3);
    assert!(app.views[&v].table.filters.text.is_none());
}

/// The Events table has kubectl's (`-o wide`) and k9s's columns: LAST SEEN, TYPE, REASON,
/// OBJECT, SOURCE, MESSAGE, COUNT, FIRST SEEN; the message takes the room left.
#[test]
fn the_events_table_shows_kubectls_and_k9ss_columns() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Discovery(
        kinformer::ui::resources::builtin_resources(),
    ));
    app.update(key(':'));
    type_str(&mut app, "events");
    let (view, ..) = opened(&app.update(code(KeyCode::Enter)))[0].clone();
    let at = |ago_s: i64| {
        chrono::DateTime::from_timestamp(NOW_MS / 1000 - ago_s, 0)
            .unwrap()
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    };
    let event = |name: &str, data: serde_json::Value| {
        let mut v = serde_json::json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "default"},
        });
        for (k, x) in data.as_object().unwrap() {
            v[k] = x.clone();
        }
        let obj: kube::api::DynamicObject = serde_json::from_value(v).unwrap();
        kinformer::ui::action::ObjectSummary::from_object("Event", &std::sync::Arc::new(obj), None)
            .unwrap()
    };
    let rows = vec![
        event(
            "web-1.a",
            serde_json::json!({
                "involvedObject": {"kind": "Pod", "name": "web-1"},
                "reason": "BackOff", "type": "Warning",
                "message": "Back-off restarting failed container web in pod web-1",
                "source": {"component": "kubelet", "host": "worker-1"},
                "firstTimestamp": at(1800), "lastTimestamp": at(120), "count": 42,
            }),
        ),
        event(
            "web.b",
            serde_json::json!({
                "involvedObject": {"kind": "Deployment", "name": "web"},
                "reason": "ScalingReplicaSet", "type": "Normal",
                "message": "Scaled up replica set web-5d8f to 3",
                "source": {"component": "deployment-controller"},
                "firstTimestamp": at(600), "lastTimestamp": at(600), "count": 1,
            }),
        ),
    ];
    app.update(Action::Resync { view, rows });
    // Wide enough, every column; the message takes the rest.
    insta::assert_snapshot!("events_table_at_160", draw(&mut app, 160, 10).backend());
    // At 100 columns the message keeps its room: SOURCE, COUNT and FIRST SEEN are left out
    // first (kubectl's default columns stay).
    insta::assert_snapshot!("events_table_at_100", draw(&mut app, 100, 10).backend());
    // Narrower than the message needs: kubectl's default columns stay, squeezed.
    draw(&mut app, 60, 10);
    let text = screen_text(&app);
    let header = text.lines().nth(4).unwrap_or_default();
    assert!(
        header.contains("MESSAGE") && !header.contains("SOURCE"),
        "{text}"
    );
}

/// The demo's banner arrives when its seed is stored, seconds after the start: it must not
/// cover what the footer says by then (a forbidden namespace's fallback, a config problem).
#[test]
fn the_demos_seeded_banner_never_covers_a_message_already_in_the_footer() {
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::DemoSeeded(
        "demo cluster at http://x (5 objects)".into(),
    ));
    assert_eq!(
        app.message,
        Some(("demo cluster at http://x (5 objects)".to_string(), false))
    );
    let (mut app, _) = app_with(config(), three_pods());
    app.update(Action::Notify {
        message: "listing pods in all namespaces is forbidden".into(),
        error: true,
    });
    app.update(Action::DemoSeeded(
        "demo cluster at http://x (5 objects)".into(),
    ));
    assert_eq!(
        app.message,
        Some((
            "listing pods in all namespaces is forbidden".to_string(),
            true
        ))
    );
}
