//! Figure 11 (issue 28): how the App's costs grow with the number of objects — 10k, 100k, 150k,
//! 300k and 1M pods (`--smoke`: 2k and 20k; 1M needs ~3 GB). For each size, the dashboard's real [`App`] holds that
//! many fixture pods (pruned by the cache transform, in an indexer with the dashboard's indexes
//! attached as the runtime attaches it) and the bench measures:
//! - the list streaming in: every pod sent as `Action::ListedRows` in batches of
//!   [`LISTED_BATCH`] (what a 16 ms frame receives from a fast server), each batch applied and
//!   drawn, the pods informer's row saying the list's total (as the runtime's does once a
//!   second: a paged list's `remainingItemCount`, or the last list's count); the longest of
//!   those frames, and the last one (the table at its fullest);
//! - a sort by STATUS (on a sort key change: the one full sort the table ever does), as a user
//!   sees it: the frame that asks for it, then a tick and a frame per step of a sort spread over
//!   several updates (`TableModel`'s sort job: runs of 5k rows, then merges of 10k rows a
//!   step) until the rows show sorted; the longest frame (≤ 16 ms) and the total;
//! - a text filter pasted (`/pod-01`: `App::set_text_filter`) and the same typed one key at a
//!   time, as a user sees them: the frame that sets it, then a tick and a frame per slice of its
//!   pass over the rows (`TableModel::refilter_sliced`, 5k rows a slice) until every
//!   match is shown; the longest frame (≤ 16 ms) and the total;
//! - a frame of the visible rows while scrolling (median and longest of 101);
//! - one watch event's cost to the view (summary + `Action::Rows` into the sorted table);
//! - the App loop while idle: a 1 s `Action::Tick` and the frame it asks for, as a share of one
//!   core (the informer's own idle share, a watch with nothing on it, does not grow with the
//!   number of objects: figure 6b measures it);
//! - memory per pod once the App holds them all: RSS above the bench's start (the store, its
//!   indexes, the rows and the table) over the pods; a size above 100k is held to the 100k
//!   figure + 10 %.
//!
//! The table is sorted by key while the list streams (the default), then by STATUS. Frames are
//! reported by wall time and by that less the time their thread waited for a CPU (`on-CPU`,
//! [`crate::process::thread_run_delay`]): on this shared
//! machine (load 6–11 from other builds) a frame's wall time includes other processes' turns,
//! and the targets are judged on the work the frame itself does.
//!
//! # Measured
//!
//! Release, 2026-11-29 01:20 UTC, load 3.4, `bench --only scale`; own time (on-CPU):
//!
//! | step | 10k | 100k | 150k | 300k |
//! |---|---|---|---|---|
//! | frame while the list streams, longest | 2.7 ms | 5.3 ms | 6.8 ms | 9.1 ms |
//! | frame while scrolling, longest | 0.9 ms | 1.0 ms | 1.0 ms | 1.1 ms |
//! | one watch event + frame | 0.64 ms | 0.72 ms | 0.73 ms | 0.76 ms |
//! | idle App loop, share of a core | 0.07 % | 0.07 % | 0.07 % | 0.07 % |
//! | sort by STATUS: longest frame / until sorted (frames), 01:50 UTC, load 0.9 | 2.0 ms (1) | 7.9 / 301 ms (68) | 8.8 / 514 ms (105) | 12.9 / 1,408 ms (239) |
//! | filter pasted: longest frame / all matches (frames) | 4.6 / 9.1 ms (2) | 10 / 156 ms (20) | 9.1 / 240 ms (30) | 13 / 602 ms (60) |
//! | filter typed: longest frame / all keys (frames) | 3.4 / 23 ms (12) | 8.8 / 471 ms (120) | 9.6 / 780 ms (180) | 15 / 1,951 ms (360) |
//!
//! Before the sort over several updates (01:20, load 3.4) a sort was one update of 1.1 / 40 / 69 /
//! 157 ms. Before the filter's pass in slices (00:28, load 7–10): the filter pasted was one update of
//! 12 / 144 / 241 / 527 ms, its slowest typed key 12 / 164 / 151 / 452 ms. Earlier (2026-11-28
//! 21:46, load 9.2, wall only): the streaming frame's last batch took 4.3 / 13.2 / 26 ms at 100k /
//! 150k / 300k (the merge cloned every key), the filter 1.3 s at 300k (every cell lowercased).
//! Frames, events and the idle loop are flat; a sort (n log n) and a filter (n) grow with the rows
//! (a row's cost is memory: a hash lookup and the cells behind pointers) but are spread over
//! frames, so no frame grows past ~13 ms at 300k.

use super::common::*;
use super::pipeline::{
    SORT_COLUMN, draw, fixture_pod, fixture_pod_at, new_terminal, now_ms, pods_app, shown_rows,
    store_rows, table,
};
use super::sync::{dashboard_pod_indexers, pod_transform};

/// Rows per `ListedRows` while the list streams: about what a 16 ms frame receives from a server
/// sending 60 MB/s of realistic pods (~6k pods a second), rounded up fivefold.
const LISTED_BATCH: usize = 500;

/// The frame budget (60 frames a second).
const FRAME_BUDGET: Duration = Duration::from_millis(16);

/// The sizes measured.
fn sizes(opts: &BenchOptions) -> Vec<usize> {
    if opts.smoke {
        vec![2_000, 20_000]
    } else {
        vec![10_000, 100_000, 150_000, 300_000, 1_000_000]
    }
}

/// The size whose memory per pod the larger ones are held to.
const MEMORY_REFERENCE: usize = 100_000;

/// How much more memory per pod than at [`MEMORY_REFERENCE`] a larger size may take.
const MEMORY_GROWTH: f64 = 1.10;

pub(super) fn scale_figures(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    // Memory is read as RSS above this baseline: what a smaller size freed is kept by the
    // allocator and reused by the next (sizes grow), so an RSS delta from before each size would
    // not see the part reused.
    let baseline = rss_bytes().unwrap_or(0);
    let mut reference: Option<f64> = None;
    for n in sizes(opts) {
        tracing::info!(n, "bench: scale");
        let per_pod = scale_at(n, baseline, report)?;
        let sec = scale_section(n);
        let (target, v) = match reference {
            Some(r) if n > MEMORY_REFERENCE => (
                format!("≤ {:.0} B (the 100k figure + 10 %)", r * MEMORY_GROWTH),
                verdict(per_pod <= r * MEMORY_GROWTH),
            ),
            _ => (String::new(), Verdict::Info),
        };
        report.fig(
            &sec,
            "memory per pod: RSS above the bench's start over the pods (cache + rows + App)",
            format!("{per_pod:.0} B"),
            &target,
            v,
        );
        if n == MEMORY_REFERENCE {
            reference = Some(per_pod);
        }
    }
    Ok(())
}

fn scale_section(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("scale {}M", n / 1_000_000)
    } else {
        format!("scale {}k", n / 1000)
    }
}

/// The figures at `n` pods; returns the memory per pod with the App holding them all (RSS
/// above `baseline`).
fn scale_at(n: usize, baseline: u64, report: &mut Report) -> Result<f64, BenchError> {
    let sec = scale_section(n);
    let sec = sec.as_str();
    let store = Arc::new(ThreadSafeStore::new(dashboard_pod_indexers()));
    let transform = pod_transform();
    let base = fixture_pod()?;
    for i in 0..n {
        let p = Arc::new(transform(fixture_pod_at(&base, i)));
        store.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
    }
    let rows = store_rows(&store);
    let (mut app, view) = pods_app()?;
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    let mut term = new_terminal()?;
    app.update(Action::InformerStats(vec![listing_row(n)]));

    // The list streaming in: ListedRows batches, each applied and drawn.
    let mut longest = Cost::default();
    let mut last = Cost::default();
    let mut batches = rows.chunks(LISTED_BATCH).peekable();
    while let Some(batch) = batches.next() {
        let upserts = batch.to_vec();
        let (drawn, took) = timed(|| {
            app.update(Action::ListedRows {
                view,
                upserts,
                deletes: Vec::new(),
            });
            draw(&mut term, &app)
        });
        drawn?;
        longest = longest.max(took);
        if batches.peek().is_none() {
            last = took;
        }
    }
    if shown_rows(&app, view) != n {
        return Err(BenchError::Setup(format!(
            "scale: the App shows {} rows of {n} listed",
            shown_rows(&app, view)
        )));
    }
    // The list ends: the store path's resync of the same rows (nothing changes on screen).
    app.update(Action::Resync { view, rows });
    let per_pod = rss_bytes().unwrap_or(0).saturating_sub(baseline) as f64 / n as f64;
    report.fig(
        sec,
        &format!(
            "frame while the list streams ({LISTED_BATCH} rows: apply + draw), longest / last, \
             on-CPU (wall)"
        ),
        format!("{} / {}", longest.text(), last.text()),
        "≤ 16 ms",
        verdict(longest.cpu <= FRAME_BUDGET),
    );

    // Sort by STATUS (on a sort change): its first frame, then the ticks (one frame each) of a
    // sort over several updates until the rows show in the new order; back to key order (and
    // drained) between runs.
    let mut t_sort: Vec<FilterRun> = Vec::new();
    for _ in 0..3 {
        sort_frames(&mut app, view, &mut term, SortBy::Key)?;
        t_sort.push(sort_frames(
            &mut app,
            view,
            &mut term,
            SortBy::Cell(SORT_COLUMN),
        )?);
    }
    t_sort.sort_by_key(|r| r.total);
    let sort = t_sort[t_sort.len() / 2];
    report.fig(
        sec,
        "sort by STATUS (on a sort change): longest frame / until the rows show sorted (frames), \
         on-CPU (wall)",
        sort.text(),
        "≤ 16 ms",
        verdict(sort.longest.cpu <= FRAME_BUDGET),
    );

    // A text filter over every row, pasted: its first frame, then the ticks (one frame each)
    // of its pass in slices until every match is shown; then cleared (and drained).
    let mut t_filter: Vec<FilterRun> = Vec::new();
    for _ in 0..5 {
        t_filter.push(filter_frames(&mut app, view, &mut term, "pod-01")?);
        filter_frames(&mut app, view, &mut term, "")?;
    }
    t_filter.sort_by_key(|r| r.total);
    let run = t_filter[t_filter.len() / 2];
    report.fig(
        sec,
        "text filter `/pod-01` pasted: longest frame / until every match is shown (frames), \
         on-CPU (wall)",
        run.text(),
        "≤ 16 ms",
        verdict(run.longest.cpu <= FRAME_BUDGET),
    );

    // The same filter typed one key at a time, as a user types it: each key's frames until its
    // matches are all shown (a key narrows the shown rows when they fit in a slice, else is a
    // pass in slices). The longest frame of all keys, and the time from the first key to the
    // last key's every match.
    let mut t_keys: Vec<FilterRun> = Vec::new();
    for _ in 0..5 {
        let mut typed = FilterRun::default();
        for i in 1..="pod-01".len() {
            let r = filter_frames(&mut app, view, &mut term, &"pod-01"[..i])?;
            typed.longest = typed.longest.max(r.longest);
            typed.total = typed.total.plus(r.total);
            typed.frames += r.frames;
        }
        filter_frames(&mut app, view, &mut term, "")?;
        t_keys.push(typed);
    }
    t_keys.sort_by_key(|r| r.longest);
    let typed = t_keys[t_keys.len() / 2];
    report.fig(
        sec,
        "`/pod-01` typed one key at a time: longest frame / all keys' frames (frames), on-CPU \
         (wall)",
        typed.text(),
        "≤ 16 ms",
        verdict(typed.longest.cpu <= FRAME_BUDGET),
    );

    // Frames while scrolling through the sorted table.
    let height = app.table_height();
    let mut offset = 0usize;
    let mut frames: Vec<Cost> = (0..101)
        .map(|_| {
            offset = (offset + 997) % n;
            timed(|| {
                if let Some(tb) = table(&mut app, view) {
                    tb.select_index(offset);
                    tb.scroll_into_view(height);
                }
                draw(&mut term, &app)
            })
            .1
        })
        .collect();
    frames.sort();
    let worst = frames.last().copied().unwrap_or_default();
    report.fig(
        sec,
        "frame while scrolling (visible rows), median / longest of 101, on-CPU (wall)",
        format!("{} / {}", frames[frames.len() / 2].text(), worst.text()),
        "≤ 16 ms",
        verdict(worst.cpu <= FRAME_BUDGET),
    );

    // One watch event into the sorted table.
    let sample = table(&mut app, view).and_then(|tb| tb.list().get(n / 2).cloned());
    if let Some(key) = sample
        && let Some(obj) = store.get(&key)
    {
        let mut t_upd: Vec<Cost> = (0..101)
            .map(|_| {
                timed(|| {
                    let upserts: Vec<ObjectSummary> = ObjectSummary::from_object("Pod", &obj, None)
                        .into_iter()
                        .collect();
                    app.update(Action::Rows {
                        view,
                        upserts,
                        deletes: Vec::new(),
                    });
                    draw(&mut term, &app)
                })
                .1
            })
            .collect();
        t_upd.sort();
        report.fig(
            sec,
            "one watch event (summary + Action::Rows + frame), on-CPU (wall)",
            t_upd[t_upd.len() / 2].text(),
            "",
            Verdict::Info,
        );
    }

    // The idle App loop: one tick a second (ages change) and the frame it asks for.
    let mut now = now_ms();
    let mut ticks: Vec<Cost> = (0..21)
        .map(|_| {
            now += 1_000;
            timed(|| {
                app.update(Action::Tick(now));
                if app.take_dirty() {
                    let _ = draw(&mut term, &app);
                }
            })
            .1
        })
        .collect();
    ticks.sort();
    let tick = ticks[ticks.len() / 2];
    let pct = tick.cpu.as_secs_f64() * 100.0;
    report.fig(
        sec,
        "idle App loop: a 1 s tick and its frame, share of a core, on-CPU (wall)",
        format!("{pct:.2}% ({})", tick.text()),
        "≤ 1%",
        verdict(pct <= 1.0),
    );
    Ok(per_pod)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_figure_goes_to_a_million_pods_named_in_millions() {
        let opts = BenchOptions {
            pods: Vec::new(),
            runs: 1,
            no_peer: true,
            churn: Vec::new(),
            kubeconfig: None,
            smoke: false,
            only: vec![FigureGroup::Scale],
            pod_shape: PodShape::Compact,
            server_mbps: None,
            clusters: 1,
            wire: crate::informer::pb::client::WireFormat::Protobuf,
        };
        assert_eq!(sizes(&opts).last(), Some(&1_000_000));
        assert!(sizes(&opts).contains(&MEMORY_REFERENCE));
        assert_eq!(scale_section(1_000_000), "scale 1M");
        assert_eq!(scale_section(150_000), "scale 150k");
    }
}

/// What a measured step cost: on a CPU, and in wall time. Ordered by the CPU time.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Cost {
    cpu: Duration,
    wall: Duration,
}

impl Cost {
    fn plus(self, other: Cost) -> Cost {
        Cost {
            cpu: self.cpu + other.cpu,
            wall: self.wall + other.wall,
        }
    }

    /// `1.20 ms (3.40 ms)`: on-CPU, then wall.
    fn text(&self) -> String {
        format!("{} ({})", ms(self.cpu), ms(self.wall))
    }
}

/// A text filter's or a sort's frames: the one where it is set, then one per tick while its work
/// in slices lasts (as the runtime draws them: the App asks for a tick at once meanwhile).
#[derive(Debug, Default, Clone, Copy)]
struct FilterRun {
    longest: Cost,
    total: Cost,
    frames: usize,
}

impl FilterRun {
    /// `longest / total (frames)`, each as [`Cost::text`].
    fn text(&self) -> String {
        format!(
            "{} / {} ({})",
            self.longest.text(),
            self.total.text(),
            self.frames
        )
    }
}

/// Set the text filter of `view` to `text` and draw, then tick and draw until every match is
/// shown.
fn filter_frames(
    app: &mut App,
    view: ViewId,
    term: &mut Terminal<TestBackend>,
    text: &str,
) -> Result<FilterRun, BenchError> {
    frames_until(
        app,
        view,
        term,
        |app| app.set_text_filter(view, text),
        |t| t.filtering(),
    )
}

/// Sort `view` by `by` and draw, then tick and draw until the sort (spread over several updates
/// on a big table) has ended.
fn sort_frames(
    app: &mut App,
    view: ViewId,
    term: &mut Terminal<TestBackend>,
    by: SortBy,
) -> Result<FilterRun, BenchError> {
    frames_until(
        app,
        view,
        term,
        |app| {
            if let Some(tb) = table(app, view)
                && tb.sort().0 != by
            {
                tb.set_sort(by);
            }
        },
        |t| t.sorting().is_some(),
    )
}

/// Run `start` on the App and draw, then a tick and a frame at a time while `busy` says the
/// table's work in slices goes on (as the runtime draws them: the App asks for a tick at once
/// meanwhile).
fn frames_until(
    app: &mut App,
    view: ViewId,
    term: &mut Terminal<TestBackend>,
    start: impl FnOnce(&mut App),
    busy: impl Fn(&crate::ui::table::TableModel) -> bool,
) -> Result<FilterRun, BenchError> {
    let (drawn, first) = timed(|| {
        start(app);
        draw(term, app)
    });
    drawn?;
    let mut run = FilterRun {
        longest: first,
        total: first,
        frames: 1,
    };
    let mut now = app.now_ms;
    while table(app, view).is_some_and(|t| busy(t)) {
        now += 16;
        let (drawn, took) = timed(|| {
            app.update(Action::Tick(now));
            draw(term, app)
        });
        drawn?;
        run.longest = run.longest.max(took);
        run.total = run.total.plus(took);
        run.frames += 1;
    }
    Ok(run)
}

/// Run `f` and say what it cost: its wall time, and that less the time its thread waited for a
/// CPU meanwhile ([`crate::process::thread_run_delay`]; the wall time when unreadable).
fn timed<T>(f: impl FnOnce() -> T) -> (T, Cost) {
    let waited = crate::process::thread_run_delay();
    let t = Instant::now();
    let out = std::hint::black_box(f());
    let wall = t.elapsed();
    let cpu = crate::process::thread_run_delay()
        .zip(waited)
        .map_or(wall, |(b, a)| wall.saturating_sub(b.saturating_sub(a)));
    (out, Cost { cpu, wall })
}

/// The pods informer's row while its list streams, saying the list's total.
fn listing_row(total: usize) -> crate::ui::action::InformerRow {
    crate::ui::action::InformerRow {
        resource: "pods".into(),
        namespace: None,
        state: crate::ui::action::InformerState::Listing,
        list_mode: "list",
        wire: "protobuf",
        last_rv: String::new(),
        cached: 0,
        queue_depth: 0,
        deltas_total: 0,
        deltas_per_sec: 0.0,
        relists: 0,
        last_error: None,
        synced: false,
        forbidden: false,
        cluster: None,
        progress: Some(crate::ui::listing::ListingProgress {
            objects: 0,
            bytes: None,
            bytes_per_sec: None,
            total: Some(crate::informer::listing::ListTotal::Exact(total as u64)),
        }),
        stale: false,
        history_reset: None,
    }
}
