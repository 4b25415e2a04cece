//! Log view costs per frame with a full 16 MiB buffer: ingesting one frame of a 5,000 lines/s
//! stream, one frame of a 50 pods × 100 lines/s workload, and key → frame (scroll + draw) with a
//! rare-match filter (the worst case: the draw scans back through the buffer); and the
//! structured view: lines/s through a field filter (`level>=warn status>=500`, every line
//! parsed), and a frame of a 5,000 lines/s stream with the structured view, columns and that
//! filter on. `cargo bench --bench logs`; figures and machine state go in the log view's module
//! docs (`src/ui/log_view.rs`).

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::ui::log_stream::{LogEvent, LogLine, SourceId};
use kinformer::ui::log_view::{DEFAULT_CAP_BYTES, LogKeyMap, LogView};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn source(i: usize) -> Arc<SourceId> {
    Arc::new(SourceId {
        namespace: "shop".into(),
        pod: format!("api-7d9f-{i:05}"),
        container: "api".into(),
    })
}

fn line(i: usize) -> LogLine {
    LogLine {
        ts_ns: i as i64,
        text: format!(
            "{{\"time\":\"2026-01-01T00:00:00Z\",\"level\":\"info\",\"msg\":\"order processed\",\"id\":{i},\"duration_ms\":12}}"
        ),
    }
}

/// A view whose buffer is at its cap, from `sources` sources.
fn full_view(sources: usize) -> LogView {
    let mut v = LogView::new("deploy/api", "shop_api", DEFAULT_CAP_BYTES);
    v.set_viewport(200, 50);
    let mut i = 0;
    while v.dropped() == 0 {
        let batch: Vec<LogEvent> = (0..sources)
            .map(|s| LogEvent::Lines {
                source: source(s),
                lines: (0..100).map(|k| line(i + k)).collect(),
            })
            .collect();
        i += 100;
        v.ingest(batch);
    }
    v
}

/// A logfmt/JSON mix with levels and statuses, as the demo's apps write.
fn structured_line(i: usize) -> LogLine {
    let (level, status) = match i % 100 {
        0..=1 => ("error", 503),
        2..=9 => ("warn", 200),
        _ => ("info", 200),
    };
    let text = if i.is_multiple_of(2) {
        format!(
            "ts=2026-01-01T00:00:00Z caller=handler.go:120 level={level} msg=\"request served\" method=GET path=/api/v1/orders/{i} status={status} user=jane duration_ms=12"
        )
    } else {
        format!(
            "{{\"time\":\"2026-01-01T00:00:00Z\",\"level\":\"{level}\",\"msg\":\"order processed\",\"id\":{i},\"status\":{status}}}"
        )
    };
    LogLine {
        ts_ns: i as i64,
        text,
    }
}

fn type_keys(v: &mut LogView, keys: &LogKeyMap, s: &str) {
    for ch in s.chars() {
        v.handle_key(
            &KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE),
            keys,
            0,
        );
    }
    v.handle_key(&KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), keys, 0);
}

fn frame(v: &LogView, buf: &mut Buffer) {
    buf.reset();
    v.render_with(buf.area, buf, None);
}

fn benches(c: &mut Criterion) {
    let area = Rect::new(0, 0, 200, 50);
    let mut buf = Buffer::empty(area);

    let mut one = full_view(1);
    let mut n = 0;
    // 5,000 lines/s at 60 frames/s: ~84 lines per frame.
    c.bench_function("log_frame_one_pod_5000_lines_per_s", |b| {
        b.iter(|| {
            one.ingest(vec![LogEvent::Lines {
                source: source(0),
                lines: (0..84).map(|k| line(n + k)).collect(),
            }]);
            n += 84;
            frame(&one, &mut buf);
            black_box(&buf);
        })
    });

    let mut wl = full_view(50);
    // 50 pods × 100 lines/s at 60 frames/s: ~84 lines from 50 sources per frame.
    c.bench_function("log_frame_workload_50_pods_100_lines_per_s", |b| {
        b.iter(|| {
            let evs: Vec<LogEvent> = (0..50)
                .map(|s| LogEvent::Lines {
                    source: source(s),
                    lines: (0..2).map(|k| line(n + k)).collect(),
                })
                .collect();
            n += 2;
            wl.ingest(evs);
            frame(&wl, &mut buf);
            black_box(&buf);
        })
    });

    let keys = LogKeyMap::defaults().expect("default log keys");
    let mut filtered = full_view(1);
    // A filter few lines pass (1 in 10,000 ids): drawing a page scans far back.
    for ch in "&~\"id\":[0-9]*0000,".chars() {
        filtered.handle_key(
            &KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE),
            &keys,
            0,
        );
    }
    filtered.handle_key(&KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), &keys, 0);
    let up = KeyEvent::new(KeyCode::Char('k'), KeyModifiers::NONE);
    let follow = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::NONE);
    c.bench_function("log_key_to_frame_full_buffer_rare_filter", |b| {
        b.iter(|| {
            filtered.handle_key(&up, &keys, 0);
            frame(&filtered, &mut buf);
            filtered.handle_key(&follow, &keys, 0);
            frame(&filtered, &mut buf);
            black_box(&buf);
        })
    });
}

fn structured(c: &mut Criterion) {
    let area = Rect::new(0, 0, 200, 50);
    let mut buf = Buffer::empty(area);
    let keys = LogKeyMap::defaults().expect("default log keys");

    // Lines/s through a field filter: every line is parsed (and its fields kept, counted).
    let mut v = LogView::new("deploy/api", "shop_api", DEFAULT_CAP_BYTES);
    v.set_viewport(200, 50);
    type_keys(&mut v, &keys, "&level>=warn status>=500");
    let mut n = 0;
    let mut g = c.benchmark_group("log_field_filter");
    g.throughput(Throughput::Elements(1000));
    g.bench_function("ingest_1000_lines_level_ge_warn_status_ge_500", |b| {
        b.iter(|| {
            v.ingest(vec![LogEvent::Lines {
                source: source(0),
                lines: (0..1000).map(|k| structured_line(n + k)).collect(),
            }]);
            n += 1000;
        })
    });
    g.finish();

    // A frame of a 5,000 lines/s stream at 30 frames/s (167 lines) with J, columns and the
    // field filter on, over a buffer at its cap.
    let mut s = LogView::new("deploy/api", "shop_api", DEFAULT_CAP_BYTES);
    s.set_viewport(200, 50);
    let mut i = 0;
    while s.dropped() == 0 {
        s.ingest(vec![LogEvent::Lines {
            source: source(0),
            lines: (0..1000).map(|k| structured_line(i + k)).collect(),
        }]);
        i += 1000;
    }
    s.handle_key(
        &KeyEvent::new(KeyCode::Char('J'), KeyModifiers::NONE),
        &keys,
        0,
    );
    type_keys(&mut s, &keys, "olevel,status");
    type_keys(&mut s, &keys, "&level>=warn");
    c.bench_function("log_frame_structured_5000_lines_per_s_filtered", |b| {
        b.iter(|| {
            s.ingest(vec![LogEvent::Lines {
                source: source(0),
                lines: (0..167).map(|k| structured_line(i + k)).collect(),
            }]);
            i += 167;
            frame(&s, &mut buf);
            black_box(&buf);
        })
    });
}

criterion_group!(log_benches, benches, structured);
criterion_main!(log_benches);
