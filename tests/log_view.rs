//! The log screen's state machine (pause/resume, search, filter, byte cap, sources joining and
//! leaving, restart and save effects) and snapshots of its drawing.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::ui::log_stream::{LogEvent, LogLine, SourceId, SourceState};
use kinformer::ui::log_view::{LogEffect, LogKeyMap, LogView, source_colour};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

const T0: i64 = 1_767_225_600_000_000_000; // 2026-01-01T00:00:00Z

fn src(pod: &str, container: &str) -> Arc<SourceId> {
    Arc::new(SourceId {
        namespace: "shop".into(),
        pod: pod.into(),
        container: container.into(),
    })
}

fn lines(
    source: &Arc<SourceId>,
    from: usize,
    n: usize,
    text: impl Fn(usize) -> String,
) -> LogEvent {
    LogEvent::Lines {
        source: source.clone(),
        lines: (from..from + n)
            .map(|i| LogLine {
                ts_ns: T0 + i as i64 * 1_000_000,
                text: text(i),
            })
            .collect(),
    }
}

fn streaming(source: &Arc<SourceId>) -> LogEvent {
    LogEvent::State {
        source: source.clone(),
        state: SourceState::Streaming,
    }
}

fn view(cap: usize) -> LogView {
    let mut v = LogView::new("pod/web-1", "shop_web-1_web", cap)
        .with_env(3600, std::path::PathBuf::from("/tmp/kinformer-test-logs"));
    v.set_viewport(80, 12);
    v
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn press(v: &mut LogView, keys: &LogKeyMap, k: KeyEvent) -> Vec<LogEffect> {
    v.handle_key(&k, keys, 0)
}

fn type_line(v: &mut LogView, keys: &LogKeyMap, s: &str) {
    for c in s.chars() {
        press(v, keys, key(c));
    }
    press(v, keys, KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
}

fn draw(v: &LogView, keys: &LogKeyMap, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| v.render_with(f.area(), f.buffer_mut(), Some(keys)))
        .unwrap();
    t
}

#[test]
fn scrolling_up_pauses_new_lines_are_counted_and_g_resumes() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![
        streaming(&web),
        lines(&web, 0, 100, |i| format!("line {i}")),
    ]);
    assert!(v.is_following());
    press(&mut v, &keys, key('k'));
    assert!(!v.is_following());
    v.ingest(vec![lines(&web, 100, 7, |i| format!("line {i}"))]);
    assert_eq!(v.unseen(), 7);
    let screen = format!("{:?}", draw(&v, &keys, 80, 12).backend());
    assert!(
        screen.contains("PAUSED · 7 new lines · G to resume"),
        "{screen}"
    );
    // One line up from the bottom (lines 89..=98 of 0..=99), and the position does not move
    // with the new lines.
    assert!(
        screen.contains("line 98") && !screen.contains("line 99"),
        "{screen}"
    );
    assert!(!screen.contains("line 106"), "{screen}");
    press(&mut v, &keys, key('G'));
    assert!(v.is_following());
    assert_eq!(v.unseen(), 0);
    let screen = format!("{:?}", draw(&v, &keys, 80, 12).backend());
    assert!(
        screen.contains("line 106") && screen.contains("FOLLOW"),
        "{screen}"
    );
}

#[test]
fn byte_cap_drops_the_oldest_lines_and_says_how_many() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(10_000);
    v.ingest(vec![lines(&web, 0, 1_000, |i| format!("{i:>60}"))]);
    assert!(v.bytes() <= 10_000, "{} bytes", v.bytes());
    assert_eq!(v.dropped() + v.len() as u64, 1_000);
    assert!(v.dropped() > 800);
    assert_eq!(v.texts().last().map(|t| t.trim()), Some("999"));
    let screen = format!("{:?}", draw(&v, &keys, 100, 12).backend());
    assert!(
        screen.contains(&format!("{} oldest lines dropped", v.dropped())),
        "{screen}"
    );
}

/// Issue 39: head (`1`) showed lines from the middle of the log under "74,755 oldest lines
/// dropped". Head keeps the start of the log up to the cap and counts the rest; back on `0`
/// (tail) the counts start again.
#[test]
fn head_keeps_the_start_of_the_log_up_to_the_cap_and_tail_counts_drops_afresh() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(10_000);
    v.ingest(vec![lines(&web, 0, 1_000, |i| format!("{i:>60}"))]);
    assert!(v.dropped() > 800);
    let fx = press(&mut v, &keys, key('1'));
    assert!(matches!(fx.as_slice(), [LogEffect::Restart(_)]), "{fx:?}");
    assert_eq!(v.dropped(), 0, "a restart starts the count again");
    v.ingest(vec![
        streaming(&web),
        lines(&web, 0, 600, |i| format!("{i:>60}")),
        lines(&web, 600, 400, |i| format!("{i:>60}")),
    ]);
    assert!(v.bytes() <= 10_000, "{} bytes", v.bytes());
    assert_eq!(v.dropped(), 0);
    let kept: Vec<&str> = v.texts().into_iter().map(str::trim).collect();
    let first_log = kept.iter().position(|t| *t == "0").expect("line 0 kept");
    let n = kept.len() - first_log;
    assert!(n > 10, "{kept:?}");
    let want: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    assert_eq!(kept[first_log..], want, "the start of the log, in order");
    assert_eq!(v.not_kept() + n as u64, 1_000);
    let screen = format!("{:?}", draw(&v, &keys, 120, 12).backend());
    assert!(
        screen.contains(&format!("{} later lines not kept", v.not_kept()))
            && !screen.contains("oldest lines dropped"),
        "{screen}"
    );
    // Back on tail: the newest lines again, the counts from zero.
    press(&mut v, &keys, key('0'));
    assert_eq!((v.dropped(), v.not_kept()), (0, 0));
    v.ingest(vec![lines(&web, 0, 300, |i| format!("{i:>60}"))]);
    assert_eq!(v.texts().last().map(|t| t.trim()), Some("299"));
    assert_eq!(v.dropped() + v.len() as u64, 300);
}

#[test]
fn search_highlights_and_n_n_walk_the_matches() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![lines(&web, 0, 60, |i| {
        if i % 10 == 3 {
            format!("{i} ERROR upstream timeout")
        } else {
            format!("{i} ok")
        }
    })]);
    press(&mut v, &keys, key('/'));
    type_line(&mut v, &keys, "error");
    // Enter goes to the newest match (53) and pauses there.
    assert!(!v.is_following());
    let screen = format!("{:?}", draw(&v, &keys, 80, 12).backend());
    assert!(screen.contains("match 6 of 6"), "{screen}");
    press(&mut v, &keys, key('N'));
    let screen = format!("{:?}", draw(&v, &keys, 80, 12).backend());
    assert!(
        screen.contains("match 5 of 6") && screen.contains("43 ERROR"),
        "{screen}"
    );
    // Case-insensitive: "error" highlighted "ERROR" (yellow background on its cells).
    let t = draw(&v, &keys, 80, 12);
    let buf = t.backend().buffer();
    let highlighted = (0..buf.area.height).any(|y| {
        (0..buf.area.width).any(|x| buf[(x, y)].symbol() == "E" && buf[(x, y)].bg != Color::Reset)
    });
    assert!(highlighted);
    // Regex search.
    press(&mut v, &keys, key('/'));
    type_line(&mut v, &keys, "~^1[0-9] ok$");
    let screen = format!("{:?}", draw(&v, &keys, 80, 12).backend());
    assert!(screen.contains("of 9"), "{screen}");
}

#[test]
fn filter_shows_only_matching_lines_and_esc_clears_it() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![lines(&web, 0, 50, |i| {
        if i % 5 == 0 {
            format!("{i} WARN slow")
        } else {
            format!("{i} fine")
        }
    })]);
    press(&mut v, &keys, key('&'));
    type_line(&mut v, &keys, "warn");
    assert_eq!(v.visible_texts().len(), 10);
    press(&mut v, &keys, key('&'));
    // The input starts with the current filter; replace it with a regex.
    for _ in 0..4 {
        press(
            &mut v,
            &keys,
            KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
        );
    }
    // A regex with a space is quoted (terms are space-separated).
    type_line(&mut v, &keys, "~\"^[0-4] \"");
    assert_eq!(
        v.visible_texts(),
        ["0 WARN slow", "1 fine", "2 fine", "3 fine", "4 fine"]
    );
    // A bad regex is reported, the filter kept.
    press(&mut v, &keys, key('&'));
    type_line(&mut v, &keys, "~(");
    assert_eq!(v.visible_texts().len(), 5);
    assert!(format!("{:?}", draw(&v, &keys, 80, 12).backend()).contains("invalid regex"));
    press(
        &mut v,
        &keys,
        KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE),
    );
    assert_eq!(v.visible_texts().len(), 50);
    assert_eq!(
        press(
            &mut v,
            &keys,
            KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
        ),
        [LogEffect::Close]
    );
}

#[test]
fn sources_joining_and_leaving_leave_markers() {
    let web = src("web-1", "web");
    let web2 = src("web-2", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![
        streaming(&web),
        lines(&web, 0, 2, |i| format!("a{i}")),
    ]);
    v.ingest(vec![
        streaming(&web2),
        lines(&web2, 0, 1, |i| format!("b{i}")),
    ]);
    v.ingest(vec![
        LogEvent::State {
            source: web.clone(),
            state: SourceState::Ended("pod deleted".into()),
        },
        LogEvent::PodGone {
            namespace: "shop".into(),
            pod: "web-1".into(),
        },
    ]);
    assert_eq!(
        v.texts(),
        [
            "a0",
            "a1",
            "── web-2/web joined ──",
            "b0",
            "── web-1/web ended: pod deleted ──",
            "── pod/web-1 gone: its streams ended ──"
        ]
    );
    assert_eq!(v.source_count(), 2);
}

#[test]
fn since_and_previous_restart_the_streams_and_save_writes_the_buffer() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![lines(&web, 0, 3, |i| format!("l{i}"))]);
    let fx = press(
        &mut v,
        &keys,
        KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL),
    );
    match fx.as_slice() {
        [LogEffect::Save { path, contents }] => {
            assert_eq!(contents, "l0\nl1\nl2\n");
            assert!(path.starts_with("/tmp/kinformer-test-logs"));
            assert_eq!(
                path.file_name().unwrap().to_str().unwrap(),
                "shop_web-1_web_19700101T000000Z.log"
            );
        }
        other => panic!("{other:?}"),
    }
    let fx = press(&mut v, &keys, key('S'));
    match fx.as_slice() {
        [LogEffect::Restart(o)] => {
            assert_eq!((o.tail_lines, o.since_seconds), (None, Some(60)));
        }
        other => panic!("{other:?}"),
    }
    assert!(v.is_empty(), "a restart clears the buffer");
    let fx = press(&mut v, &keys, key('p'));
    assert!(matches!(fx.as_slice(), [LogEffect::Restart(o)] if o.previous));
}

#[test]
fn snapshot_single_container() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![
        streaming(&web),
        lines(&web, 0, 6, |i| {
            format!("10.244.1.{i} - - \"GET /api/v1/orders/{i} HTTP/1.1\" 200 512")
        }),
        lines(&web, 6, 1, |_| {
            "\x1b[31mERROR\x1b[0m db timeout\x1b[2J\x1b[H".into()
        }),
    ]);
    press(&mut v, &keys, key('t'));
    insta::assert_snapshot!(draw(&v, &keys, 90, 11).backend());
}

#[test]
fn snapshot_workload_with_source_prefixes_and_colours() {
    let keys = LogKeyMap::defaults().unwrap();
    let a = src("api-7d9f-x2k4p", "api");
    let b = src("api-7d9f-q8m2z", "api");
    let c = src("api-7d9f-q8m2z", "envoy");
    let mut v = LogView::new("deploy/api (3 sources)", "shop_api", 1 << 20)
        .with_env(0, std::path::PathBuf::from("/tmp"));
    v.set_viewport(90, 12);
    v.ingest(vec![
        streaming(&a),
        lines(&a, 0, 2, |i| {
            format!("{{\"level\":\"info\",\"msg\":\"order processed\",\"id\":{i}}}")
        }),
        streaming(&b),
        lines(&b, 2, 2, |i| {
            format!("{{\"level\":\"warn\",\"msg\":\"slow query\",\"id\":{i}}}")
        }),
        streaming(&c),
        lines(&c, 4, 2, |i| {
            format!("[2026-01-01T00:00:0{i}Z] \"GET /healthz\" 200")
        }),
    ]);
    let t = draw(&v, &keys, 90, 12);
    // Each source's prefix is drawn in its stable colour.
    let buf = t.backend().buffer();
    for s in [&a, &c] {
        let row = (0..buf.area.height)
            .find(|y| {
                let text: String = (0..buf.area.width).map(|x| buf[(x, *y)].symbol()).collect();
                text.starts_with(&s.to_string())
            })
            .unwrap();
        assert_eq!(buf[(0, row)].fg, source_colour(s));
    }
    assert_eq!(
        source_colour(&a),
        source_colour(&src("api-7d9f-x2k4p", "api"))
    );
    insta::assert_snapshot!(t.backend());
}

#[test]
fn snapshot_search_highlights_and_wrap() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.set_viewport(60, 10);
    v.ingest(vec![lines(&web, 0, 5, |i| {
        format!("{i} request id=abc{i} took 12ms and the payload was a rather long JSON document")
    })]);
    press(&mut v, &keys, key('w'));
    press(&mut v, &keys, key('/'));
    type_line(&mut v, &keys, "ABC3");
    insta::assert_snapshot!(draw(&v, &keys, 60, 10).backend());
}

#[test]
fn long_source_names_keep_their_distinguishing_end_and_wide_screens_show_them_whole() {
    let keys = LogKeyMap::defaults().unwrap();
    let a = src("notification-api-s2bf89md5-j2nnr", "notification-api");
    let b = src("notification-api-s2bf89md5-lphps", "notification-api");
    let mut v = view(1 << 20);
    v.ingest(vec![
        streaming(&a),
        streaming(&b),
        lines(&a, 0, 1, |_| "from a".into()),
        lines(&b, 1, 1, |_| "from b".into()),
    ]);
    let row = |t: &Terminal<TestBackend>, w: u16, text: &str| -> String {
        let buf = t.backend().buffer();
        (0..buf.area.height)
            .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>())
            .find(|r| r.contains(text))
            .unwrap_or_default()
    };
    // 80 columns: the 49-character name is cut to 40 from the front.
    let narrow = draw(&v, &keys, 80, 12);
    let r = row(&narrow, 80, "from a");
    assert!(
        r.starts_with("…on-api-s2bf89md5-j2nnr/notification-api from a"),
        "{r:?}"
    );
    assert!(
        row(&narrow, 80, "from b").starts_with("…on-api-s2bf89md5-lphps/notification-api from b")
    );
    // 160 columns: a third of the screen holds the whole name.
    let wide = draw(&v, &keys, 160, 12);
    assert!(
        row(&wide, 160, "from a")
            .starts_with("notification-api-s2bf89md5-j2nnr/notification-api from a"),
        "{:?}",
        row(&wide, 160, "from a")
    );
}

#[test]
fn a_user_log_key_file_replaces_the_keys_of_the_actions_it_lists() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log_keys.toml");
    // `x` closes instead of esc/q; `q` now searches (and leaves close).
    std::fs::write(
        &path,
        "[[bind]]\naction = \"close\"\nkeys = [\"x\"]\n\n[[bind]]\naction = \"search\"\nkeys = [\"q\"]\n",
    )
    .unwrap();
    let read = |p: &std::path::Path| kinformer::runtime::user_file::read(p).unwrap();
    let keys = LogKeyMap::load(read(&path).as_ref()).unwrap();
    use kinformer::ui::log_view::LogKey;
    assert_eq!(keys.action(&key('x')), Some(LogKey::Close));
    assert_eq!(keys.action(&key('q')), Some(LogKey::Search));
    let esc = KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(keys.action(&esc), None);
    assert_eq!(keys.action(&key('/')), None);
    // Untouched actions keep their defaults.
    assert_eq!(keys.action(&key('s')), Some(LogKey::Autoscroll));
    // A missing file is the defaults; an invalid one is an error naming it.
    let defaults = LogKeyMap::load(read(&dir.path().join("none.toml")).as_ref()).unwrap();
    assert_eq!(defaults.action(&esc), Some(LogKey::Close));
    std::fs::write(&path, "[[bind]]\naction = \"fly\"\nkeys = [\"f\"]\n").unwrap();
    let err = LogKeyMap::load(read(&path).as_ref()).unwrap_err();
    assert!(err.contains(&path.display().to_string()), "{err}");
}

#[test]
fn number_keys_pick_k9s_since_presets_and_restart_the_streams() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    let want = [
        ('0', (Some(200), None)),
        ('1', (None, None)),
        ('2', (None, Some(60))),
        ('3', (None, Some(300))),
        ('4', (None, Some(900))),
        ('5', (None, Some(1800))),
        ('6', (None, Some(3600))),
    ];
    for (k, expected) in want {
        v.ingest(vec![lines(&web, 0, 3, |i| format!("l{i}"))]);
        match press(&mut v, &keys, key(k)).as_slice() {
            [LogEffect::Restart(o)] => {
                assert_eq!((o.tail_lines, o.since_seconds), expected, "key {k}")
            }
            other => panic!("key {k}: {other:?}"),
        }
        assert!(
            v.is_empty(),
            "key {k} clears the buffer for the new streams"
        );
    }
    let screen = format!("{}", draw(&v, &keys, 100, 6).backend());
    assert!(
        screen.contains("1h"),
        "the header names the preset:\n{screen}"
    );
}

#[test]
fn s_toggles_autoscroll_and_new_lines_leave_the_screen_still() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![lines(&web, 0, 30, |i| format!("line {i}"))]);
    assert!(v.is_following());
    press(&mut v, &keys, key('s'));
    assert!(!v.is_following());
    let before = format!("{}", draw(&v, &keys, 80, 12).backend());
    v.ingest(vec![lines(&web, 30, 5, |i| format!("line {i}"))]);
    let after = format!("{}", draw(&v, &keys, 80, 12).backend());
    let body = |s: &str| s.lines().skip(1).take(9).collect::<Vec<_>>().join("\n");
    assert_eq!(
        body(&before),
        body(&after),
        "paused: the body does not move"
    );
    assert_eq!(v.unseen(), 5);
    assert!(after.contains("5 new lines"), "{after}");
    press(&mut v, &keys, key('s'));
    assert!(v.is_following());
    assert!(format!("{}", draw(&v, &keys, 80, 12).backend()).contains("line 34"));
}

#[test]
fn c_copies_the_lines_the_filter_shows_to_a_file_the_footer_names() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![lines(&web, 0, 6, |i| {
        if i % 2 == 0 {
            format!("GET /a {i}")
        } else {
            format!("POST /b {i}")
        }
    })]);
    press(&mut v, &keys, key('&'));
    type_line(&mut v, &keys, "POST");
    let fx = press(&mut v, &keys, key('c'));
    let path = match fx.as_slice() {
        [LogEffect::Save { path, contents }] => {
            assert_eq!(contents, "POST /b 1\nPOST /b 3\nPOST /b 5\n");
            assert!(path.to_str().unwrap().ends_with("_copy.log"), "{path:?}");
            path.clone()
        }
        other => panic!("{other:?}"),
    };
    v.saved(Ok((path.clone(), 3)));
    let screen = format!("{}", draw(&v, &keys, 160, 12).backend());
    assert!(screen.contains("copied 3 lines to"), "{screen}");
    assert!(screen.contains("no clipboard"), "{screen}");
}

#[test]
fn m_marks_a_separator_that_the_filter_keeps_and_shift_c_clears() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![lines(&web, 0, 2, |i| format!("before {i}"))]);
    // 2026-01-01T00:00:05Z, shown at UTC+1.
    v.handle_key(&key('m'), &keys, 1_767_225_605_000);
    v.ingest(vec![lines(&web, 2, 2, |i| format!("after {i}"))]);
    press(&mut v, &keys, key('&'));
    type_line(&mut v, &keys, "after");
    let texts = v.visible_texts();
    assert_eq!(texts.len(), 3, "{texts:?}");
    assert!(texts[0].contains("mark 01:00:05"), "{texts:?}");
    press(
        &mut v,
        &keys,
        KeyEvent::new(KeyCode::Char('l'), KeyModifiers::CONTROL),
    );
    assert!(v.is_empty());
    // Lower-case c is copy now, not clear.
    v.ingest(vec![lines(&web, 4, 1, |i| format!("x {i}"))]);
    press(&mut v, &keys, key('c'));
    assert_eq!(v.len(), 1);
}

fn enter() -> KeyEvent {
    KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)
}

/// One line of each format the parser reads, and a plain one.
fn mixed(source: &Arc<SourceId>) -> LogEvent {
    let texts = [
        r#"{"time":"2026-01-01T00:00:01.250Z","level":"info","msg":"order processed","id":17,"duration_ms":12,"caller":"orders.go:88"}"#,
        r#"ts=2026-01-01T00:00:02Z level=error msg="payment declined" user=jane status=502 error="card expired""#,
        r#"W0101 00:00:03.000000       1 reflector.go:376] "Slow sync" duration="812ms""#,
        "Connected to upstream services",
        r#"{"time":"2026-01-01T00:00:04Z","level":"warn","msg":"slow query","user":"bob","status":200}"#,
    ];
    LogEvent::Lines {
        source: source.clone(),
        lines: texts
            .iter()
            .enumerate()
            .map(|(i, t)| LogLine {
                ts_ns: T0 + i as i64,
                text: t.to_string(),
            })
            .collect(),
    }
}

#[test]
fn snapshot_structured_view_of_json_logfmt_klog_and_plain_lines() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![streaming(&web), mixed(&web)]);
    press(&mut v, &keys, key('J'));
    let t = draw(&v, &keys, 110, 9);
    let screen = format!("{}", t.backend());
    assert!(screen.contains("structured web"), "{screen}");
    // The level is coloured (error red), whatever the format wrote.
    let buf = t.backend().buffer();
    let row = (0..9)
        .find(|y| {
            (0..110)
                .map(|x| buf[(x, *y)].symbol())
                .collect::<String>()
                .contains("payment")
        })
        .unwrap();
    let error_cell = (0..110).find(|x| buf[(*x, row)].symbol() == "E").unwrap();
    assert_eq!(buf[(error_cell, row)].fg, Color::Red);
    insta::assert_snapshot!(t.backend());
    // J again: the lines as they came.
    press(&mut v, &keys, key('J'));
    let screen = format!("{}", draw(&v, &keys, 110, 9).backend());
    assert!(
        screen.contains(r#"{"time":"2026-01-01T00:00:04Z""#),
        "{screen}"
    );
}

#[test]
fn structured_view_is_remembered_per_container() {
    let keys = LogKeyMap::defaults().unwrap();
    let (app, proxy) = (src("web-1", "app"), src("web-1", "proxy"));
    let mut v = view(1 << 20);
    v.ingest(vec![
        streaming(&app),
        streaming(&proxy),
        mixed(&proxy),
        mixed(&app),
    ]);
    // The newest line is app's: J turns app structured, proxy stays as it came.
    press(&mut v, &keys, key('J'));
    let screen = format!("{}", draw(&v, &keys, 140, 14).backend());
    assert!(screen.contains("structured app"), "{screen}");
    assert!(screen.contains("INFO  order processed"), "{screen}");
    assert!(
        screen.contains(r#"proxy {"time":"2026-01-01T00:00:01.250Z""#),
        "{screen}"
    );
    // A restart keeps the choice (the view lives on).
    press(&mut v, &keys, key('2'));
    v.ingest(vec![streaming(&app), mixed(&app)]);
    let screen = format!("{}", draw(&v, &keys, 140, 14).backend());
    assert!(screen.contains("INFO  order processed"), "{screen}");
}

#[test]
fn a_field_filter_keeps_the_lines_whose_fields_match_and_the_header_counts_them() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![streaming(&web), mixed(&web)]);
    press(&mut v, &keys, key('&'));
    type_line(&mut v, &keys, "level>=warn !user=jane");
    let texts = v.visible_texts();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(
        texts[0].starts_with('W') && texts[1].contains("slow query"),
        "{texts:?}"
    );
    press(&mut v, &keys, key('&'));
    for _ in 0.."level>=warn !user=jane".len() {
        press(
            &mut v,
            &keys,
            KeyEvent::new(KeyCode::Backspace, KeyModifiers::NONE),
        );
    }
    type_line(&mut v, &keys, "status>=500");
    assert_eq!(v.visible_texts().len(), 1);
    // Lines arriving later are filtered as they come.
    v.ingest(vec![mixed(&web)]);
    assert_eq!(v.visible_texts().len(), 2);
    let screen = format!("{}", draw(&v, &keys, 120, 8).backend());
    assert!(screen.contains("2 of 10 lines match"), "{screen}");
}

#[test]
fn snapshot_context_lines_around_matches_with_a_separator_between_groups() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![lines(&web, 0, 20, |i| {
        if i == 4 || i == 13 {
            format!("level=error msg=\"failed {i}\" n={i}")
        } else {
            format!("level=info msg=\"ok {i}\" n={i}")
        }
    })]);
    press(&mut v, &keys, key('&'));
    type_line(&mut v, &keys, "level=error");
    assert_eq!(v.visible_texts().len(), 2);
    press(&mut v, &keys, key('C'));
    press(&mut v, &keys, key('C'));
    assert_eq!(
        v.visible_texts().len(),
        10,
        "2 lines either side of each match"
    );
    // A line arriving just after a match shows as its context.
    v.ingest(vec![lines(&web, 20, 1, |_| "level=error msg=late".into())]);
    v.ingest(vec![lines(&web, 21, 3, |i| {
        format!("level=info msg=after{i}")
    })]);
    assert_eq!(v.visible_texts().len(), 15);
    let t = draw(&v, &keys, 90, 20);
    assert!(
        format!("{}", t.backend()).contains("\"--"),
        "separator drawn"
    );
    insta::assert_snapshot!(t.backend());
}

#[test]
fn snapshot_columns_show_chosen_fields_across_pods() {
    let keys = LogKeyMap::defaults().unwrap();
    let (a, b) = (src("api-1", "api"), src("api-2", "api"));
    let mut v = view(1 << 20);
    v.ingest(vec![streaming(&a), streaming(&b), mixed(&a), mixed(&b)]);
    press(&mut v, &keys, key('o'));
    type_line(&mut v, &keys, "level,status,user");
    let t = draw(&v, &keys, 100, 14);
    let screen = format!("{}", t.backend());
    assert!(screen.contains("LEVEL  STATUS  USER"), "{screen}");
    insta::assert_snapshot!(t.backend());
}

#[test]
fn snapshot_enter_shows_the_current_line_pretty_printed() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let mut v = view(1 << 20);
    v.ingest(vec![streaming(&web), mixed(&web)]);
    // Following: the newest line is the current one.
    press(&mut v, &keys, enter());
    let t = draw(&v, &keys, 70, 14);
    insta::assert_snapshot!(t.backend());
    press(&mut v, &keys, enter());
    let screen = format!("{}", draw(&v, &keys, 70, 14).backend());
    assert!(!screen.contains("esc or enter closes"), "{screen}");
}

#[test]
fn parsed_fields_count_against_the_byte_cap() {
    let keys = LogKeyMap::defaults().unwrap();
    let web = src("web-1", "web");
    let cap = 64 * 1024;
    let mut v = view(cap);
    press(&mut v, &keys, key('&'));
    type_line(&mut v, &keys, "level=error");
    for k in 0..20 {
        v.ingest(vec![lines(&web, k * 100, 100, |i| {
            format!(r#"{{"level":"info","msg":"m","a":"{i}","b":"x","c":"y","d":"z"}}"#)
        })]);
        assert!(v.bytes() <= cap, "{} > {cap}", v.bytes());
    }
    let with_fields = v.len();
    let mut plain = view(cap);
    plain.ingest(vec![lines(&web, 0, 2000, |i| {
        format!(r#"{{"level":"info","msg":"m","a":"{i}","b":"x","c":"y","d":"z"}}"#)
    })]);
    assert!(
        with_fields < plain.len(),
        "parsed lines cost more: {with_fields} vs {}",
        plain.len()
    );
}

/// k9s's `logger.buffer`: the most lines kept, the oldest dropped first (the byte cap too).
#[test]
fn k9s_logger_buffer_keeps_that_many_lines() {
    let web = src("web-1", "web");
    let logger = kinformer::config::K9sLogger {
        buffer: Some(100),
        ..Default::default()
    };
    let mut v = view(1 << 20).with_k9s_logger(&logger);
    v.ingest(vec![
        streaming(&web),
        lines(&web, 0, 1_000, |i| format!("line {i}")),
    ]);
    assert_eq!(v.len(), 100);
    assert_eq!(v.texts().last().map(|t| t.trim()), Some("line 999"));
    let mut unbounded = view(1 << 20);
    unbounded.ingest(vec![lines(&web, 0, 1_000, |i| format!("line {i}"))]);
    assert_eq!(unbounded.len(), 1_000);
}
