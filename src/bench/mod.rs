//! `kinformer bench`: the benchmark suite, printed as one table (each row PASS or MISS against its
//! target).
//!
//! Figures (each the median of `--runs` where a run is repeatable):
//! 1. time to synced for N pods: kinformer's `SharedIndexInformer<DynamicObject>` over
//!    [`KubeListerWatcher`] with the dashboard's cache transform (`render::prune("Pod", ..)`),
//!    next to the floor measured in the same run (raw paged HTTP list, page size 500, plus
//!    `serde_json` parse into `k8s_openapi` `Pod`) and kube-rs' `runtime::reflector` + `watcher`
//!    (same page size) until its first `InitDone`;
//!    Next to them: all pods on screen (time to synced, then the store and every row handed to
//!    the dashboard's [`App`] and its first frame drawn) and the raw JSON list (one unpaged
//!    `resourceVersion=0` GET read to its end, no decode) with the list body's bytes per pod;
//! 2. memory: RSS after sync (the App holding every row included), bytes per cached pod (RSS
//!    delta over a baseline taken before the informer starts), and peak RSS (VmHWM after
//!    `clear_refs`) during a forced relist (the demo server answers the next watch with 410 and
//!    drops watches) vs steady RSS;
//! 3. pipeline throughput: watch events/s through DeltaFIFO → indexer → handler → workqueue →
//!    `Action::Rows` → the dashboard's [`App`] (in-process, [`FakeListerWatcher`]);
//! 4. event → frame latency (p50/p99) under churn: in-process demo server; each pod mutation is
//!    timestamped when it is applied; informer handler → workqueue → indexer read →
//!    `ObjectSummary::from_object` → `Action::Rows` → `App::update` (pods sorted by STATUS) →
//!    the first frame drawn after the App holds the new state (`&App` on a 200×60 `TestBackend`,
//!    drawn only when `App::take_dirty()`, as src/ui/runtime.rs does);
//! 5. label filter: `index_keys_all(LABEL_INDEX, ..)` (the keys, what the App asks) and
//!    `by_index_all` (the objects) for selectors matching 1% / 10% of the pods next to a linear
//!    scan with [`LabelSelector::matches`], and the App's `l` filter
//!    (`App::apply_label_filter` over the store attached with `Action::Store`) plus its frame;
//! 6. render: sort of 100k rows of the App's table by a column and the App's frame at 100k rows;
//!    CPU while idle with the App loop run as the runtime runs it (1 s `Action::Tick`, a frame
//!    only when dirty).
//!
//! 7. drill-down at 150k pods: the App's Enter on a node, a deployment (its ReplicaSets by the
//!    owner index, then their pods) and a namespace, up to the drilled table holding its rows
//!    (`Action::Store` → index lookup → rows), next to what a drill-down cost before the
//!    indexes answered it: every row sent to the new view and a scan of them for the matches.
//! 8. xray at 150k pods (`src/bench/xray.rs`): one deployment's owner tree built from the indexes, the same
//!    pods by a scan, a pod update rebuilding its root in place, one namespace's whole tree.
//! 9. history (`src/bench/history.rs`): sync with per-object history off and on (CPU and wall), the
//!    history held, the event path's added cost per object.
//! 10. rows while listing (`src/bench/listing.rs`): first rows and all rows on screen, the frames
//!     drawn while the list streams.
//! 11. scale (`src/bench/scale.rs`): the App's frame while a list streams, sort, filter, scrolling
//!     frame, one event and the idle loop at 10k, 100k, 150k and 300k pods.
//! 12. cache by kind (`src/bench/kinds.rs`): bytes per cached ReplicaSet, Event, ConfigMap and
//!     Secret, N of one kind at a time (`--pods 100000 --only kinds` for 100k).
//!
//! The demo server of figures 1-2 runs as a child process (`kinformer demo-server`, realistic
//! pods by default: `--pod-shape`, see [`crate::demo::realistic`]), so the RSS of this process
//! is the informer's and the App's alone. `--kubeconfig` benchmarks any cluster instead (then
//! the forced relist is skipped: it needs the demo server's fault endpoint).
//!
//! Figures 3, 4, 5 (filtered frame) and 6 drive the dashboard's real [`App`] through the
//! runtime's protocol (src/ui/mod.rs); none keeps a row model of its own.
//!
//! # The dashboard's RSS next to the App's (figure 2)
//!
//! Figure 2 is this process: the informer and the App. The dashboard as users run it (`kinformer
//! -A` in a terminal, release build, against `demo-server --churn 0`; RSS after the first metrics
//! poll, `/proc/PID/smaps_rollup`, peaks from heaptrack; 2026-12-07 21:20-21:45 UTC, load 9-11)
//! held more, and where it went:
//! - the metrics poller: the `PodMetricsList` was parsed into a JSON tree (~4.7 KB of maps a pod)
//!   and its items copied once more, every 15 s: 93 MB at 10k pods, ~1 GB at 100k, most of the
//!   2.5 GiB a 100k dashboard held (and 65 of its 76 s to the first full screen). Now read into
//!   borrowed structs from the one body buffer (`runtime::metrics::usage_by_key`): what stays is
//!   the usage map (~90 B a pod) and, per poll, the body (~460 B a pod, 46 MB at 100k) that the
//!   allocator keeps for the next poll;
//! - per-object history: up to its 64 MiB budget (~70 MB with its index at 100k; ~2 MB at 10k);
//! - the log writer's channel: its 128,000 slots were allocated up front (3.9 MB); now 4,096;
//! - code: ~20 MB of the binary's and libc's pages (file-backed; the bench has them too);
//! - the allocator: freed decode and list buffers stay in the two tokio workers' malloc arenas
//!   (`malloc_trim` after sync gave back ~6 MB at 10k; not done: it needs `unsafe` FFI);
//! - thread stacks touch little (7 threads: main, 2 tokio workers, the log writer, handlers).
//!
//! Before → after (same machine and load): 10k pods 175 → 84 MiB (peak 237 → 85), 100k pods
//! 2,507 → 467-496 MiB (peak 2,560 → 543), and 100k's first full screen 76 → 11 s. Targets 50 and 300 MiB: MISS. What is left at 100k
//! (heaptrack): the pods' cache ~170 MB (objects, packed records, indexes), their rows ~55 MB,
//! history ~70 MB, the metrics body and usage ~55 MB, hyper's stream buffers ~50 MB at peak.
//!
//! Then the metrics list was read as it arrives, one item at a time
//! (`runtime::metrics_stream`), so no poll holds its body: 10k pods 84 → 75.6 MiB (21 MiB of it
//! file-backed code, 55 MiB anonymous), 100k pods 467-496 → 424 MiB, peak = steady (release,
//! `kinformer -A` in tmux against `demo-server --churn 0`, after metrics polls; 2026-12-08
//! 00:37 and 00:51 UTC, load 14-15). Still MISS: at 100k the cache, rows, history and stream
//! buffers above (~345 MB) are more than the target on their own; at 10k the anonymous 55 MiB
//! are ~28 MB of cache, rows and history and the rest allocator arenas and buffers.
//!
//! # Reproducing
//!
//! ```text
//! cargo run --release -- bench --pods 10000 --runs 3               # the full table
//! cargo run --release -- bench --pods 100000 --runs 3 --only sync  # sync and memory at 100k
//! cargo run --release -- bench --pods 2000 --runs 1 --smoke        # CI's smoke size (~25 s)
//! cargo run --release -- bench --pods 10000 --server-mbps 58,70    # server paced as a real one
//! cargo run --release -- bench --pods 10000 --clusters 3 --only fleet
//! cargo run --release -- --kubeconfig K bench --pods 10000         # against any cluster
//! cargo bench --bench informer     # criterion: store, FIFO, `-- sync_tail` (Replace + pops)
//! cargo bench --bench decode       # one realistic pod: masked, full, validate-only
//! cargo bench --bench history      # per-object history on the event path
//! cargo bench --bench logs         # the log view's frame costs
//! cargo test --release --test informer_memory -- --nocapture   # bytes per cached pod and row
//! ```
//!
//! # Where the figures and findings are
//!
//! Each figure group's module documents what it measures, the latest figures with their date,
//! machine load and command, and what the figures led to: `sync.rs` (sync, memory, the raw
//! list, the decode micro-benchmark, the compact-pod history), `wire.rs` (JSON against protobuf,
//! where a sync's CPU goes, the tail after the last byte), `history.rs` (per-object history's
//! cost and the optimisations tried), `screen.rs` (label filter, drill-down), `xray.rs`,
//! `fleet.rs` (several clusters). The log view's frame costs are in [`crate::ui::log_view`].

mod common;
mod fleet;
mod history;
mod kinds;
mod listing;
mod names;
mod pipeline;
mod scale;
mod screen;
mod server;
mod sync;
mod wire;
mod xray;

use common::*;
pub use common::{BenchError, BenchOptions, Figure, FigureGroup, Report, ServerMbps, Verdict};
use pipeline::*;
use screen::*;
use sync::*;

/// Run every figure and return the report.
pub async fn run(opts: BenchOptions) -> Result<Report, BenchError> {
    let mut report = Report::default();
    machine_header(&mut report);
    report.header.push((
        "inputs".into(),
        format!(
            "pods {:?}, runs {}, churn {:?} ev/s, peer {}, cluster {}{}",
            opts.pods,
            opts.runs,
            opts.churn,
            if opts.no_peer {
                "off"
            } else {
                "kube-rs reflector"
            },
            match &opts.kubeconfig {
                Some(p) => format!("{}", p.display()),
                None => "demo server (child process)".into(),
            },
            if opts.smoke { ", SMOKE sizes" } else { "" }
        ),
    ));
    if opts.wants(FigureGroup::Sync) {
        if opts.pods.len() > 1 {
            report.notes.push(
                "memory figures of the second and later pod counts include heap this process kept \
                 from the earlier ones (the floor and peer runs decode full pods); for clean \
                 memory figures run one count per invocation (e.g. `--pods 100000 --only sync`)"
                    .into(),
            );
        }
        for (i, &pods) in opts.pods.iter().enumerate() {
            tracing::info!(pods, "bench: sync and memory");
            sync_and_memory(&opts, pods, i == 0, &mut report).await?;
        }
    }
    if opts.wants(FigureGroup::Listing) {
        for &pods in &opts.pods {
            tracing::info!(pods, "bench: rows while listing");
            listing::listing_figures(&opts, pods, &mut report).await?;
        }
    }
    if opts.wants(FigureGroup::Scale) {
        scale::scale_figures(&opts, &mut report)?;
    }
    if opts.wants(FigureGroup::Pipeline) {
        tracing::info!("bench: pipeline");
        pipeline_throughput(&opts, &mut report).await?;
    }
    if opts.wants(FigureGroup::Latency) {
        for &rate in &opts.churn {
            tracing::info!(rate, "bench: latency");
            latency(&opts, rate, &mut report).await?;
        }
    }
    if opts.wants(FigureGroup::Render) {
        tracing::info!("bench: label filter and render");
        label_and_render(&opts, &mut report)?;
        tracing::info!("bench: pulse draw");
        pulse_draw(&opts, &mut report)?;
    }
    if opts.wants(FigureGroup::History) {
        for &pods in &opts.pods {
            tracing::info!(pods, "bench: history cost");
            history::history_cost(&opts, pods, &mut report).await?;
        }
    }
    if opts.wants(FigureGroup::Drill) {
        tracing::info!("bench: drill-down");
        drill_down(&opts, &mut report)?;
    }
    if opts.clusters > 1 && opts.wants(FigureGroup::Fleet) {
        if opts.kubeconfig.is_some() {
            report
                .notes
                .push("fleet figures skipped: they need demo clusters (no --kubeconfig)".into());
        } else {
            tracing::info!(clusters = opts.clusters, "bench: fleet");
            fleet::fleet_figures(&opts, &mut report).await?;
        }
    }
    if opts.wants(FigureGroup::Xray) {
        tracing::info!("bench: xray");
        xray::xray_tree(&opts, &mut report)?;
    }
    if opts.wants(FigureGroup::Kinds) {
        tracing::info!("bench: cache bytes by kind");
        kinds::kind_figures(&opts, &mut report)?;
    }
    if opts.wants(FigureGroup::Names) {
        tracing::info!("bench: many kinds and names");
        names::names_figures(&opts, &mut report).await?;
    }
    report.notes.push(
        "figures 4 and 6 drive the dashboard's App (Action::Rows of ObjectSummary::from_object, \
         drawn with `&App` on a 200×60 TestBackend, a frame only when take_dirty())"
            .into(),
    );
    report.notes.push(
        "event → frame: from just before the demo server applies a pod mutation to the end of \
         the first frame drawn after the App holds that state"
            .into(),
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summaries(objs: &[Arc<DynamicObject>]) -> Vec<ObjectSummary> {
        objs.iter()
            .filter_map(|o| ObjectSummary::from_object("Pod", o, None))
            .collect()
    }

    fn pod(name: &str, phase: &str) -> DynamicObject {
        let mut p = match fixture_pod() {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        p.metadata.name = Some(name.into());
        p.data["status"]["phase"] = Value::String(phase.into());
        p
    }

    #[test]
    fn server_mbps_takes_a_json_rate_and_an_optional_protobuf_rate() {
        let both = ServerMbps::parse("58,70").unwrap();
        assert_eq!((both.json, both.protobuf()), (58, 70));
        let one = ServerMbps::parse("58").unwrap();
        assert_eq!((one.json, one.protobuf), (58, None));
        assert_eq!(one.protobuf(), 58);
        assert!(ServerMbps::parse("fast").is_err());
        assert!(ServerMbps::parse("58,").is_err());
    }

    /// The drill-down figure checks that each drill-down shows exactly the pods of its node,
    /// deployment (through its two ReplicaSets) and namespace, and names the index that answered.
    #[test]
    fn drill_down_figures_show_the_indexes_answers() -> Result<(), BenchError> {
        let opts = BenchOptions {
            pods: Vec::new(),
            runs: 1,
            no_peer: true,
            churn: Vec::new(),
            kubeconfig: None,
            smoke: true,
            only: vec![FigureGroup::Drill],
            pod_shape: PodShape::Compact,
            server_mbps: None,
            clusters: 1,
            wire: crate::informer::pb::client::WireFormat::Protobuf,
        };
        let mut report = Report::default();
        drill_down(&opts, &mut report)?;
        let names: Vec<&str> = report.figures.iter().map(|f| f.name.as_str()).collect();
        for want in [
            "node index → 40 pods",
            "owner index: 2 replicasets → 40 pods",
        ] {
            assert!(names.iter().any(|n| n.contains(want)), "{want}: {names:?}");
        }
        Ok(())
    }

    #[test]
    fn bench_app_sorts_fed_rows_by_status_and_draws_them() -> Result<(), BenchError> {
        let (mut app, view) = pods_app()?;
        let objs: Vec<Arc<DynamicObject>> = [("c", "Running"), ("a", "Pending"), ("b", "Running")]
            .into_iter()
            .map(|(n, ph)| Arc::new(pod(n, ph)))
            .collect();
        app.update(Action::Rows {
            view,
            upserts: summaries(&objs),
            deletes: Vec::new(),
        });
        if let Some(tb) = table(&mut app, view) {
            tb.set_sort(SortBy::Cell(SORT_COLUMN));
        }
        let names: Vec<String> = app.views[&view]
            .table
            .list()
            .iter()
            .map(|k| k.rsplit('/').next().unwrap_or("").to_string())
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(app.take_dirty());
        let mut term = new_terminal()?;
        draw(&mut term, &app)?;
        let screen: String = term
            .backend()
            .buffer()
            .content()
            .iter()
            .map(|c| c.symbol())
            .collect();
        for name in ["a", "b", "c"] {
            assert!(screen.contains(&format!(" {name} ")), "{name} not drawn");
        }
        // A delete through Action::Rows: the row leaves the view.
        app.update(Action::Rows {
            view,
            upserts: Vec::new(),
            deletes: vec![Arc::from(
                format!("{}/a", objs[1].metadata.namespace.as_deref().unwrap_or("")).as_str(),
            )],
        });
        // Struck for a while (the App's linger), gone once the clock has passed it.
        assert_eq!(shown_rows(&app, view), 3);
        // The linger counts from the first tick after the delete (the first frame showing it).
        app.update(Action::Tick(now_ms() + 3_600_000));
        app.update(Action::Tick(now_ms() + 7_200_000));
        assert_eq!(shown_rows(&app, view), 2);
        Ok(())
    }

    #[test]
    fn percentile_uses_the_nearest_rank() {
        let v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&v, 0.5), Duration::from_millis(51));
        assert_eq!(percentile(&v, 0.99), Duration::from_millis(99));
        assert_eq!(percentile(&[], 0.99), Duration::ZERO);
    }

    #[test]
    fn report_table_marks_misses_and_passes() {
        let mut r = Report::default();
        r.fig("s", "fast", "1 ms".into(), "≤ 2 ms", verdict(true));
        r.fig("s", "slow", "3 ms".into(), "≤ 2 ms", verdict(false));
        let t = r.to_table();
        assert!(
            t.lines()
                .any(|l| l.contains("s · fast") && l.contains("PASS"))
        );
        assert!(
            t.lines()
                .any(|l| l.contains("s · slow") && l.contains("MISS"))
        );
    }

    #[test]
    fn proc_readers_return_plausible_values() {
        let rss = rss_bytes().unwrap_or(0);
        assert!(rss > 0);
        assert!(peak_rss_bytes().unwrap_or(0) >= rss);
        assert!(cpu_time().is_some());
    }

    #[test]
    fn fixture_pods_label_one_and_ten_percent() {
        let pods = match fixture_pods(1000) {
            Ok(p) => p,
            Err(e) => panic!("{e}"),
        };
        let sel = |s: &str| match LabelSelector::parse(s) {
            Ok(x) => x,
            Err(e) => panic!("{e}"),
        };
        let count = |s: &LabelSelector| {
            pods.iter()
                .filter(|p| s.matches(crate::informer::cached::labels(p)))
                .count()
        };
        assert_eq!(count(&sel("app=app-7")), 10);
        assert_eq!(count(&sel("tier=tier-3")), 100);
    }
}
