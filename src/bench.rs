//! `kinformer bench`: the benchmark suite of issue 5, printed as one table.
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
//!
//! The demo server of figures 1-2 runs as a child process (`kinformer demo-server`, realistic
//! pods by default: `--pod-shape`, see [`crate::demo::realistic`]), so the RSS of this process
//! is the informer's and the App's alone. `--kubeconfig` benchmarks any cluster instead (then
//! the forced relist is skipped: it needs the demo server's fault endpoint).
//!
//! Figures 3, 4, 5 (filtered frame) and 6 drive the dashboard's real [`App`] through the
//! runtime's protocol (src/ui/mod.rs); none keeps a row model of its own.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{ApiResource, DynamicObject};
use kube::config::{KubeConfigOptions, Kubeconfig};
use parking_lot::Mutex;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::demo::churn::apply_all;
use crate::demo::mutation::Mutation;
use crate::demo::realistic::PodShape;
use crate::demo::sim::{SimConfig, Simulator};
use crate::demo::{DemoCluster, DemoOptions, DemoServer};
use crate::informer::delta_fifo::DeltaObject;
use crate::informer::index::{LABEL_INDEX, NODE_INDEX, default_indexers, label_value};
use crate::informer::list_watch::{
    FakeListerWatcher, KubeListerWatcher, ListOptions, ListerWatcher, WatchEvent,
    client_for_informers, list_url,
};
use crate::informer::reflector::ReflectorConfig;
use crate::informer::shared_informer::{
    DeleteObject, InformerConfig, ResourceEventHandler, SharedIndexInformer,
};
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::informer::workqueue::RateLimitingQueue;
use crate::process::{cpu_time, peak_rss_bytes, reset_peak_rss, rss_bytes};
use crate::render;
use crate::selector::LabelSelector;
use crate::ui::action::{Action, Effect, ObjectSummary, ViewId};
use crate::ui::runtime::{next_key_batch, rows_for_keys};
use crate::ui::table::SortBy;
use crate::ui::{App, AppConfig, KeyMap};

/// Errors of the benchmark run, each printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("setup: {0}")]
    Setup(String),
    #[error("demo server child process: {0}")]
    Child(String),
    #[error("cluster: {0}")]
    Cluster(String),
    #[error("timed out: {0}")]
    Timeout(String),
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("informer: {0}")]
    Informer(#[from] crate::informer::Error),
}

/// What to measure.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// Pod counts for figures 1-2.
    pub pods: Vec<usize>,
    /// Runs per figure (median reported).
    pub runs: usize,
    /// Skip the kube-rs reflector peer.
    pub no_peer: bool,
    /// Churn rates (events/s) for figure 4.
    pub churn: Vec<f64>,
    /// Benchmark this cluster instead of a child demo server.
    pub kubeconfig: Option<PathBuf>,
    /// Small sizes and short windows (CI): figures 3-6 use fewer objects and shorter windows.
    pub smoke: bool,
    /// Only these figure groups (empty: all).
    pub only: Vec<FigureGroup>,
    /// Pod shape the child demo server serves (figures 1-2); the fixture pods of figures 3, 5
    /// and 6 are always realistic.
    pub pod_shape: PodShape,
}

/// A group of figures `--only` can select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FigureGroup {
    /// Figures 1-2 and the idle CPU: time to synced, memory, relist peak.
    Sync,
    /// Figure 3: pipeline throughput.
    Pipeline,
    /// Figure 4: event → frame latency under churn.
    Latency,
    /// Figures 5-6: label filter and render; the pulse frame.
    Render,
    /// Figure 7: drill-down (node, deployment, namespace) through the indexes.
    Drill,
}

impl BenchOptions {
    fn wants(&self, group: FigureGroup) -> bool {
        self.only.is_empty() || self.only.contains(&group)
    }
}

/// PASS / MISS against a target, or an informational figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Miss,
    Info,
}

/// One line of the results table.
#[derive(Debug, Clone)]
pub struct Figure {
    pub section: String,
    pub name: String,
    pub value: String,
    pub target: String,
    pub verdict: Verdict,
}

/// The whole report: machine, inputs, figures, notes.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub header: Vec<(String, String)>,
    pub figures: Vec<Figure>,
    pub notes: Vec<String>,
}

impl Report {
    fn fig(&mut self, section: &str, name: &str, value: String, target: &str, verdict: Verdict) {
        self.figures.push(Figure {
            section: section.into(),
            name: name.into(),
            value,
            target: target.into(),
            verdict,
        });
    }

    /// The table as printed on stdout.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        for (k, v) in &self.header {
            out.push_str(&format!("{k:<10} {v}\n"));
        }
        out.push('\n');
        // Column widths: the widest cell, at least the header's.
        let width = |cell: fn(&Figure) -> usize, header: &str| {
            self.figures
                .iter()
                .map(cell)
                .max()
                .unwrap_or(0)
                .max(header.len())
        };
        let w_name = width(|f| f.section.len() + f.name.len() + 3, "figure");
        let w_val = width(|f| f.value.len(), "value");
        let w_tgt = width(|f| f.target.len(), "target");
        out.push_str(&format!(
            "| {:<w_name$} | {:>w_val$} | {:<w_tgt$} | result |\n",
            "figure", "value", "target"
        ));
        out.push_str(&format!(
            "|{}|{}|{}|--------|\n",
            "-".repeat(w_name + 2),
            "-".repeat(w_val + 2),
            "-".repeat(w_tgt + 2)
        ));
        for f in &self.figures {
            let name = format!("{} · {}", f.section, f.name);
            let verdict = match f.verdict {
                Verdict::Pass => "PASS",
                Verdict::Miss => "MISS",
                Verdict::Info => "",
            };
            out.push_str(&format!(
                "| {name:<w_name$} | {:>w_val$} | {:<w_tgt$} | {verdict:<6} |\n",
                f.value, f.target
            ));
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for n in &self.notes {
                out.push_str(&format!("note: {n}\n"));
            }
        }
        out
    }
}

fn verdict(ok: bool) -> Verdict {
    if ok { Verdict::Pass } else { Verdict::Miss }
}

fn machine_header(report: &mut Report) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find(|l| l.starts_with("model name"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .unwrap_or_else(|| "unknown".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map(|kb| format!("{:.1} GiB", kb as f64 / 1024.0 / 1024.0))
        .unwrap_or_else(|| "unknown".into());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_default();
    report
        .header
        .push(("machine".into(), format!("{model}, {cores} cores, {mem}")));
    report.header.push((
        "load".into(),
        format!("{load} (1-min load average at start)"),
    ));
    report.header.push((
        "date".into(),
        chrono::Utc::now().format("%Y-%m-%d %H:%M UTC").to_string(),
    ));
    report.header.push((
        "build".into(),
        if cfg!(debug_assertions) {
            "DEBUG build: figures are not meaningful, use --release".into()
        } else {
            "release".into()
        },
    ));
}

// ---------------------------------------------------------------------------------------------
// Small statistics helpers

fn median(v: &mut [Duration]) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    v[v.len() / 2]
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn mib(b: u64) -> String {
    format!("{:.1} MiB", b as f64 / 1024.0 / 1024.0)
}

async fn wait_until(
    what: &str,
    timeout: Duration,
    mut f: impl FnMut() -> bool,
) -> Result<(), BenchError> {
    let deadline = Instant::now() + timeout;
    while !f() {
        if Instant::now() > deadline {
            return Err(BenchError::Timeout(what.into()));
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The child demo server

struct ChildServer {
    child: tokio::process::Child,
    dir: PathBuf,
    kubeconfig: PathBuf,
}

impl ChildServer {
    async fn start(pods: usize, shape: PodShape) -> Result<Self, BenchError> {
        let exe = std::env::current_exe()?;
        let dir =
            std::env::temp_dir().join(format!("kinformer-bench-{}-{}", std::process::id(), pods));
        std::fs::create_dir_all(&dir)?;
        let kubeconfig = dir.join("kubeconfig");
        let mut child = tokio::process::Command::new(exe)
            .arg("demo-server")
            .args(["--pods", &pods.to_string()])
            .args(["--churn", "0", "--port", "0"])
            .args([
                "--pod-shape",
                match shape {
                    PodShape::Realistic => "realistic",
                    PodShape::Compact => "compact",
                },
            ])
            .arg("--kubeconfig-out")
            .arg(&kubeconfig)
            .arg("--log-file")
            .arg(dir.join("demo-server.log"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Child("no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        let wait = async {
            while let Some(line) = lines.next_line().await? {
                if line.contains("listening on") {
                    return Ok::<bool, std::io::Error>(true);
                }
            }
            Ok(false)
        };
        match tokio::time::timeout(Duration::from_secs(600), wait).await {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => return Err(BenchError::Child("exited before listening".into())),
            Ok(Err(e)) => return Err(BenchError::Io(e)),
            Err(_) => return Err(BenchError::Timeout("demo server start".into())),
        }
        // Keep draining stdout so the child never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self {
            child,
            dir,
            kubeconfig,
        })
    }

    async fn stop(mut self) {
        let _ = self.child.kill().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn client_from_kubeconfig(path: &Path) -> Result<kube::Client, BenchError> {
    let kc = Kubeconfig::read_from(path).map_err(|e| BenchError::Cluster(e.to_string()))?;
    let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .map_err(|e| BenchError::Cluster(e.to_string()))?;
    Ok(client_for_informers(config)?)
}

async fn post_fault(client: &kube::Client, action: &str) -> Result<(), BenchError> {
    let req = http::Request::post(format!("/_demo/faults/{action}"))
        .body(Vec::new())
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    client
        .request_text(req)
        .await
        .map_err(|e| BenchError::Cluster(format!("fault {action}: {e}")))?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Figure 1: the three syncs

fn pod_transform() -> crate::informer::delta_fifo::Transform<DynamicObject> {
    Arc::new(|o| render::prune("Pod", o))
}

fn dashboard_pod_indexers() -> crate::informer::index::Indexers<DynamicObject> {
    let mut indexers = default_indexers::<DynamicObject>();
    indexers.insert(
        NODE_INDEX.into(),
        crate::informer::index::dynamic_pod_node_index_func(),
    );
    indexers
}

struct RunningInformer {
    informer: Arc<SharedIndexInformer<DynamicObject>>,
    cancel: CancellationToken,
    task: JoinHandle<()>,
}

impl RunningInformer {
    async fn stop(self) {
        self.cancel.cancel();
        let _ = self.task.await;
    }
}

fn start_informer(lw: Arc<dyn ListerWatcher<DynamicObject>>) -> RunningInformer {
    start_informer_with(lw, ReflectorConfig::default())
}

/// An informer with the dashboard's indexers and transform, and `reflector` for how it lists.
fn start_informer_with(
    lw: Arc<dyn ListerWatcher<DynamicObject>>,
    reflector: ReflectorConfig,
) -> RunningInformer {
    let informer = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "pods".into(),
            indexers: dashboard_pod_indexers(),
            transform: Some(pod_transform()),
            reflector,
            ..Default::default()
        },
    );
    let cancel = CancellationToken::new();
    let task = {
        let informer = informer.clone();
        let cancel = cancel.clone();
        tokio::spawn(async move { informer.run(cancel).await })
    };
    RunningInformer {
        informer,
        cancel,
        task,
    }
}

/// kinformer: informer over the cluster until has_synced. Returns the time and the running informer.
async fn kinformer_sync(client: &kube::Client) -> Result<(Duration, RunningInformer), BenchError> {
    let ar = ApiResource::erase::<Pod>(&());
    let lw: Arc<dyn ListerWatcher<DynamicObject>> = Arc::new(
        KubeListerWatcher::dynamic(client.clone(), &ar, None).with_mask(render::cache_mask("Pod")),
    );
    let start = Instant::now();
    let running = start_informer(lw);
    let inf = running.informer.clone();
    wait_until("kinformer sync", Duration::from_secs(900), || {
        inf.has_synced()
    })
    .await?;
    Ok((start.elapsed(), running))
}

/// The floor: paged raw HTTP list (500 per page) + serde_json into `Pod`, kept in a Vec.
async fn floor_sync(client: &kube::Client) -> Result<(Duration, usize), BenchError> {
    let start = Instant::now();
    let mut pods: Vec<Pod> = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let url = list_url(
            "/api/v1/pods",
            &ListOptions {
                limit: Some(500),
                continue_token: token.take(),
                ..Default::default()
            },
        );
        let req = http::Request::get(url)
            .body(Vec::new())
            .map_err(|e| BenchError::Setup(e.to_string()))?;
        let body = client
            .request_text(req)
            .await
            .map_err(|e| BenchError::Cluster(e.to_string()))?;
        let list: k8s_openapi::List<Pod> =
            serde_json::from_str(&body).map_err(|e| BenchError::Cluster(e.to_string()))?;
        pods.extend(list.items);
        match list.metadata.continue_ {
            Some(c) if !c.is_empty() => token = Some(c),
            _ => break,
        }
    }
    Ok((start.elapsed(), pods.len()))
}

/// The raw JSON list: one unpaged `GET /api/v1/pods?resourceVersion=0` (answered whole from the
/// API server's cache), the body read to its end and dropped, as `kubectl get --raw` into
/// /dev/null. Returns the time and the body's size in bytes.
async fn raw_list(client: &kube::Client) -> Result<(Duration, u64), BenchError> {
    let url = list_url(
        "/api/v1/pods",
        &ListOptions {
            resource_version: Some("0".into()),
            ..Default::default()
        },
    );
    let req = http::Request::get(url)
        .body(Vec::new())
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let start = Instant::now();
    let reader = client
        .request_stream(req)
        .await
        .map_err(|e| BenchError::Cluster(e.to_string()))?;
    let mut reader = std::pin::pin!(reader);
    let mut bytes = 0u64;
    loop {
        let chunk = futures::AsyncBufReadExt::fill_buf(&mut reader).await?;
        if chunk.is_empty() {
            break;
        }
        let n = chunk.len();
        bytes += n as u64;
        futures::AsyncBufReadExt::consume_unpin(&mut reader, n);
    }
    Ok((start.elapsed(), bytes))
}

/// The peer: kube-rs `reflector(store, watcher(..))` until the first `InitDone`.
async fn peer_sync(client: &kube::Client) -> Result<(Duration, usize), BenchError> {
    use kube::runtime::{reflector, watcher};
    let start = Instant::now();
    let api: kube::Api<Pod> = kube::Api::all(client.clone());
    let (reader, writer) = reflector::store();
    let stream = reflector::reflector(
        writer,
        watcher::watcher(api, watcher::Config::default().page_size(500)),
    );
    futures::pin_mut!(stream);
    while let Some(ev) = stream
        .try_next()
        .await
        .map_err(|e| BenchError::Cluster(format!("kube-rs watcher: {e}")))?
    {
        if matches!(ev, watcher::Event::InitDone) {
            break;
        }
    }
    Ok((start.elapsed(), reader.state().len()))
}

/// Figures 1 and 2 (and the idle CPU of figure 6 for the first size) for one pod count.
async fn sync_and_memory(
    opts: &BenchOptions,
    pods: usize,
    first: bool,
    report: &mut Report,
) -> Result<(), BenchError> {
    let child = match &opts.kubeconfig {
        Some(_) => None,
        None => Some(ChildServer::start(pods, opts.pod_shape).await?),
    };
    let kubeconfig = match (&child, &opts.kubeconfig) {
        (Some(c), _) => c.kubeconfig.clone(),
        (None, Some(k)) => k.clone(),
        (None, None) => return Err(BenchError::Setup("no cluster".into())),
    };
    let client = client_from_kubeconfig(&kubeconfig).await?;
    let result = sync_and_memory_on(opts, &client, child.is_some(), pods, first, report).await;
    if let Some(c) = child {
        c.stop().await;
    }
    result
}

async fn sync_and_memory_on(
    opts: &BenchOptions,
    client: &kube::Client,
    demo: bool,
    pods: usize,
    first: bool,
    report: &mut Report,
) -> Result<(), BenchError> {
    let sec = format!("{}k pods", pods as f64 / 1000.0);
    let sec = sec.as_str();
    // Warm the connection (TLS/TCP, discovery-free) so that run 1 is not penalised.
    let _ = client
        .request_text(
            http::Request::get("/version")
                .body(Vec::new())
                .map_err(|e| BenchError::Setup(e.to_string()))?,
        )
        .await;

    // Run 1 of kinformer doubles as the memory measurement: it comes first, on a clean heap.
    let baseline = rss_bytes().unwrap_or(0);
    let (t_first, running) = kinformer_sync(client).await?;
    // All pods on screen: the synced store handed to the dashboard's App as the runtime does
    // (Action::Store, then Action::Resync with every row) and its first frame drawn.
    let (screen, on_screen) = first_screen(&running)?;
    let t_screen = t_first + screen;
    let cached = running.informer.indexer().len();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let steady = rss_bytes().unwrap_or(0);
    let per_pod = steady.saturating_sub(baseline) / cached.max(1) as u64;
    report.fig(sec, "cached pods", cached.to_string(), "", Verdict::Info);
    report.fig(
        sec,
        "all pods on screen (first screen, run 1)",
        secs(t_screen),
        if pods == 10_000 { "≤ 1.2 s" } else { "" },
        if pods == 10_000 {
            verdict(t_screen.as_secs_f64() <= 1.2 && on_screen.shown == cached)
        } else {
            Verdict::Info
        },
    );
    report.fig(
        sec,
        "RSS with all pods on screen (steady)",
        mib(steady),
        if pods == 10_000 { "≤ 80 MiB" } else { "" },
        if pods == 10_000 {
            verdict(steady <= 80 * 1024 * 1024)
        } else {
            Verdict::Info
        },
    );
    report.fig(
        sec,
        "bytes per cached pod (RSS delta)",
        format!("{per_pod} B"),
        "≤ 6 KB (at 100k)",
        // At small counts the fixed heap of the App and the runtime dominates the delta.
        if pods >= 100_000 {
            verdict(per_pod <= 6 * 1024)
        } else {
            Verdict::Info
        },
    );

    if demo {
        if reset_peak_rss() {
            let relists_before = running
                .informer
                .stats()
                .reflector
                .map(|r| r.relists)
                .unwrap_or(0);
            post_fault(client, "gone-next-watch").await?;
            post_fault(client, "drop-watches").await?;
            let inf = running.informer.clone();
            wait_until("forced relist", Duration::from_secs(900), || {
                inf.stats()
                    .reflector
                    .is_some_and(|r| r.relists > relists_before)
                    && inf.has_synced()
            })
            .await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            let peak = peak_rss_bytes().unwrap_or(0);
            let ratio = peak as f64 / steady.max(1) as f64;
            report.fig(sec, "relist peak RSS", mib(peak), "", Verdict::Info);
            report.fig(
                sec,
                "relist peak / steady RSS",
                format!("{ratio:.2}×"),
                "≤ 1.3×",
                verdict(ratio <= 1.3),
            );
        } else {
            report
                .notes
                .push("cannot write /proc/self/clear_refs: relist peak not measured".into());
        }
    } else {
        report.notes.push(
            "--kubeconfig: forced relist skipped (needs the demo server's fault endpoint)".into(),
        );
    }

    if first {
        idle_cpu(opts, &running, report).await;
    }
    drop(on_screen);
    running.stop().await;

    let mut kin = vec![t_first];
    let mut floor = Vec::new();
    let mut peer = Vec::new();
    let mut raw = Vec::new();
    let mut raw_bytes = 0;
    for run in 0..opts.runs.max(1) {
        if run > 0 {
            let (t, r) = kinformer_sync(client).await?;
            r.stop().await;
            kin.push(t);
        }
        let (t, b) = raw_list(client).await?;
        raw.push(t);
        raw_bytes = b;
        let (t, n) = floor_sync(client).await?;
        if n != cached {
            report.notes.push(format!(
                "{sec}: floor listed {n} pods, informer cached {cached}"
            ));
        }
        floor.push(t);
        if !opts.no_peer {
            let (t, n) = peer_sync(client).await?;
            if n != cached {
                report.notes.push(format!(
                    "{sec}: kube-rs reflector cached {n}, informer {cached}"
                ));
            }
            peer.push(t);
        }
    }
    let k = median(&mut kin);
    let f = median(&mut floor);
    let r = median(&mut raw);
    report.fig(
        sec,
        "list body (RV=0, unpaged): bytes per pod",
        format!(
            "{} B ({} total)",
            raw_bytes / cached.max(1) as u64,
            mib(raw_bytes)
        ),
        "",
        Verdict::Info,
    );
    report.fig(
        sec,
        "raw JSON list (GET, body read, no decode)",
        secs(r),
        "",
        Verdict::Info,
    );
    report.fig(
        sec,
        "kinformer ingest rate (list body bytes / time to synced)",
        format!(
            "{:.0} MB/s (raw list {:.0} MB/s)",
            raw_bytes as f64 / 1e6 / k.as_secs_f64().max(1e-9),
            raw_bytes as f64 / 1e6 / r.as_secs_f64().max(1e-9)
        ),
        "",
        Verdict::Info,
    );
    let raw_ratio = k.as_secs_f64() / r.as_secs_f64().max(1e-9);
    report.fig(
        sec,
        "kinformer / raw JSON list",
        format!("{raw_ratio:.2}×"),
        "≤ 1.1× (at 100k)",
        if pods >= 100_000 {
            verdict(raw_ratio <= 1.1)
        } else {
            Verdict::Info
        },
    );
    let ratio = k.as_secs_f64() / f.as_secs_f64().max(1e-9);
    report.fig(sec, "time to synced: kinformer", secs(k), "", Verdict::Info);
    report.fig(
        sec,
        "time to synced: floor (HTTP+serde)",
        secs(f),
        "",
        Verdict::Info,
    );
    report.fig(
        sec,
        "kinformer / floor",
        format!("{ratio:.2}×"),
        "≤ 1.3×",
        verdict(ratio <= 1.3),
    );
    if !opts.no_peer {
        let p = median(&mut peer);
        report.fig(
            sec,
            "time to synced: kube-rs reflector",
            secs(p),
            "kinformer faster",
            verdict(k < p),
        );
    }
    if pods == 10_000 {
        report.fig(
            sec,
            "time to synced (absolute)",
            secs(k),
            "≤ 1.2 s",
            verdict(k.as_secs_f64() <= 1.2),
        );
    }
    Ok(())
}

/// The dashboard's App holding every row of the synced store, as after its first frame.
struct OnScreen {
    shown: usize,
    _app: App,
}

/// Time from a synced store to its first frame: the App gets the store and all rows (pods
/// sorted by the default column) and draws. Returns the App (its rows count in the RSS a user
/// sees) and the rows it shows.
fn first_screen(running: &RunningInformer) -> Result<(Duration, OnScreen), BenchError> {
    let start = Instant::now();
    let store = running.informer.indexer();
    let (mut app, view) = pods_app()?;
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    app.update(Action::Resync {
        view,
        rows: store_rows(&store),
    });
    let mut term = new_terminal()?;
    draw(&mut term, &app)?;
    let shown = shown_rows(&app, view);
    Ok((start.elapsed(), OnScreen { shown, _app: app }))
}

/// Figure 6b: CPU of a synced, idle informer plus the dashboard's App loop as the runtime runs
/// it: `Action::Tick` once a second (and at `App::next_deadline_ms`), a frame only when
/// `App::take_dirty()` says so.
async fn idle_cpu(opts: &BenchOptions, running: &RunningInformer, report: &mut Report) {
    let window = if opts.smoke {
        Duration::from_secs(3)
    } else {
        Duration::from_secs(10)
    };
    let store = running.informer.indexer();
    let (mut app, view) = match pods_app() {
        Ok(a) => a,
        Err(e) => {
            report.notes.push(format!("idle CPU: {e}"));
            return;
        }
    };
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    app.update(Action::Resync {
        view,
        rows: store_rows(&store),
    });
    let mut term = match new_terminal() {
        Ok(t) => t,
        Err(e) => {
            report.notes.push(format!("idle CPU: terminal: {e}"));
            return;
        }
    };
    // Idle means idle: the forced relist of figure 2 may still be draining its deltas through
    // the FIFO (and the reflector may still be re-opening its watch); measuring then would count
    // that work as idle CPU.
    let inf = running.informer.clone();
    let settled = wait_until("informer idle", Duration::from_secs(300), || {
        let s = inf.stats();
        s.queue_depth == 0
            && s.handler_backlog == 0
            && s.reflector
                .is_some_and(|r| r.state == crate::informer::reflector::ReflectorState::Watching)
    })
    .await;
    if settled.is_err() {
        report
            .notes
            .push("idle CPU: the informer did not settle within 300 s".into());
    }
    if app.take_dirty() {
        let _ = draw(&mut term, &app);
    }
    let Some(c0) = cpu_time() else {
        report
            .notes
            .push("idle CPU: /proc/self/stat unreadable".into());
        return;
    };
    let start = Instant::now();
    let mut ages = tokio::time::interval(Duration::from_secs(1));
    ages.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut frames = 0u64;
    // Wall time inside App::update + draw: the App loop's own share of the idle CPU.
    let mut busy = Duration::ZERO;
    while start.elapsed() < window {
        let sleep_for = app
            .next_deadline_ms()
            .map(|d| Duration::from_millis((d - now_ms()).max(0) as u64))
            .unwrap_or(Duration::from_secs(3600));
        tokio::select! {
            _ = ages.tick() => {}
            _ = tokio::time::sleep(sleep_for) => {}
        }
        let t = Instant::now();
        app.update(Action::Tick(now_ms()));
        if app.take_dirty() {
            let _ = draw(&mut term, &app);
            frames += 1;
        }
        busy += t.elapsed();
    }
    let elapsed = start.elapsed();
    let Some(c1) = cpu_time() else { return };
    let pct = (c1.saturating_sub(c0)).as_secs_f64() / elapsed.as_secs_f64() * 100.0;
    report.fig(
        "render",
        &format!(
            "idle CPU over {} s (synced informer + App loop: 1 s Tick, {frames} frames when dirty)",
            window.as_secs()
        ),
        format!("{pct:.2}% of a core"),
        "≤ 1%",
        verdict(pct <= 1.0),
    );
    report.fig(
        "render",
        "of which App loop (Tick + draw when dirty)",
        format!(
            "{:.2}% of a core",
            busy.as_secs_f64() / elapsed.as_secs_f64() * 100.0
        ),
        "",
        Verdict::Info,
    );
}

// ---------------------------------------------------------------------------------------------
// The dashboard App as the runtime drives it (src/ui/runtime.rs)

/// The frame size of figures 4 and 6.
const WIDTH: u16 = 200;
const HEIGHT: u16 = 60;

/// Column the pods table is sorted by in figures 4 and 6 (index into the pod row's cells:
/// NAME READY STATUS ...; we sort by STATUS).
const SORT_COLUMN: usize = 2;
/// Rows per `Action::Rows` when feeding the pulse (the runtime's batch size).
const BATCH_ROWS: usize = 4096;

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// The dashboard's App at 200×60 on all namespaces, initialised; returns the pods view it opened.
fn pods_app() -> Result<(App, ViewId), BenchError> {
    let keys = KeyMap::defaults().map_err(|e| BenchError::Setup(format!("key map: {e}")))?;
    let mut app = App::new(
        AppConfig {
            context: "bench".into(),
            namespace: None,
            now_ms: now_ms(),
            ..AppConfig::default()
        },
        keys,
    );
    app.update(Action::Resize(WIDTH, HEIGHT));
    let view = app
        .init()
        .into_iter()
        .find_map(|e| match e {
            Effect::OpenResource { view, resource, .. }
                if resource.api_resource.plural == "pods" =>
            {
                Some(view)
            }
            _ => None,
        })
        .ok_or_else(|| BenchError::Setup("the app opened no pods view".into()))?;
    Ok((app, view))
}

/// The runtime's summaries of cached pods.
/// Every cached pod's row as the runtime makes it (`rows_for_keys`: the indexer's key `Arc`s).
fn store_rows(store: &ThreadSafeStore<DynamicObject>) -> Vec<ObjectSummary> {
    let keys: Vec<Arc<str>> = store.list_keys().into_iter().map(Arc::from).collect();
    rows_for_keys("Pod", None, store, &keys).0
}

/// Rows in the App's view (after filters).
fn shown_rows(app: &App, view: ViewId) -> usize {
    app.views.get(&view).map_or(0, |v| v.table.list().len())
}

/// The App's table of `view`.
fn table(app: &mut App, view: ViewId) -> Option<&mut crate::ui::table::TableModel> {
    app.views.get_mut(&view).map(|v| &mut v.table)
}

/// Draw the App as the runtime does (`impl Widget for &App`, visible rows only).
fn draw(term: &mut Terminal<TestBackend>, app: &App) -> Result<(), BenchError> {
    term.draw(|f| f.render_widget(app, f.area()))
        .map_err(|e| BenchError::Setup(format!("draw: {e}")))?;
    Ok(())
}

fn new_terminal() -> Result<Terminal<TestBackend>, BenchError> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT))
        .map_err(|e| BenchError::Setup(format!("terminal: {e}")))
}

// ---------------------------------------------------------------------------------------------
// Fixture pods (figures 3, 5, 6)

fn fixture_pod() -> Result<DynamicObject, BenchError> {
    serde_json::from_value(crate::demo::realistic::fixture_pod())
        .map_err(|e| BenchError::Setup(format!("pod fixture: {e}")))
}

/// `n` realistic pods ([`crate::demo::realistic::fixture_pod`]: ~12 KB of JSON, managedFields
/// from two managers, two containers with env, probes and volumes), each with its own
/// name/uid/rv/node, label `app=app-{i % 100}` (1% each) and `tier=tier-{i % 10}` (10% each).
fn fixture_pods(n: usize) -> Result<Vec<DynamicObject>, BenchError> {
    let base = fixture_pod()?;
    Ok((0..n)
        .map(|i| {
            let mut p = base.clone();
            p.metadata.name = Some(format!("pod-{i:06}"));
            p.metadata.namespace = Some(format!("ns-{}", i % 50));
            p.metadata.uid = Some(format!("uid-{i}"));
            p.metadata.resource_version = Some(format!("{}", 1000 + i));
            let labels = p.metadata.labels.get_or_insert_with(BTreeMap::new);
            labels.insert("app".into(), format!("app-{}", i % 100));
            labels.insert("tier".into(), format!("tier-{}", i % 10));
            if let Some(spec) = p.data.get_mut("spec").and_then(Value::as_object_mut) {
                spec.insert(
                    "nodeName".into(),
                    Value::String(format!("node-{}", i % 500)),
                );
            }
            p
        })
        .collect())
}

// ---------------------------------------------------------------------------------------------
// Figure 3: pipeline throughput

/// resourceVersions received per key, not yet in the row model.
type PendingRvs = Arc<Mutex<HashMap<Arc<str>, Vec<String>>>>;

/// Handler → workqueue, as the dashboard's informer glue does; counts notifications.
struct QueueHandler {
    queue: RateLimitingQueue<Arc<str>>,
    seen: AtomicUsize,
    /// Pending resourceVersions per key (figure 4 only).
    rvs: Option<PendingRvs>,
}

impl QueueHandler {
    fn push(&self, obj: &DynamicObject) {
        let Ok(key) = crate::informer::meta_namespace_key(obj) else {
            return;
        };
        let key: Arc<str> = Arc::from(key.as_str());
        if let (Some(rvs), Some(rv)) = (&self.rvs, obj.metadata.resource_version.as_ref()) {
            rvs.lock().entry(key.clone()).or_default().push(rv.clone());
        }
        self.queue.add(key);
        self.seen.fetch_add(1, AtomicOrdering::Relaxed);
    }
}

impl ResourceEventHandler<DynamicObject> for QueueHandler {
    fn on_add(&self, obj: &Arc<DynamicObject>, _: bool) {
        self.push(obj);
    }
    fn on_update(&self, _: &Arc<DynamicObject>, new: &Arc<DynamicObject>) {
        self.push(new);
    }
    fn on_delete(&self, obj: &DeleteObject<DynamicObject>) {
        match obj {
            DeltaObject::Object(o) => self.push(o),
            DeltaObject::Tombstone(t) => {
                self.queue.add(Arc::from(t.key.as_str()));
                self.seen.fetch_add(1, AtomicOrdering::Relaxed);
            }
        }
    }
}

/// Rows for the App with the resourceVersions they carry (figure 4).
type Feed = (Action, Vec<String>);

/// The runtime's `feed_view`: workqueue (batches of ready keys) → indexer read →
/// `ObjectSummary::from_object` → `Action::Rows`; `fed` counts the keys sent.
fn spawn_feeder(
    view: ViewId,
    queue: RateLimitingQueue<Arc<str>>,
    store: Arc<ThreadSafeStore<DynamicObject>>,
    rvs: Option<PendingRvs>,
    fed: Arc<AtomicU64>,
    tx: tokio::sync::mpsc::UnboundedSender<Feed>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(keys) = next_key_batch(&queue, 256).await {
            let (upserts, deletes) = rows_for_keys("Pod", None, &store, &keys);
            let mut carried = Vec::new();
            if let Some(r) = &rvs {
                let mut pending = r.lock();
                for key in &keys {
                    if let Some(v) = pending.remove(key) {
                        carried.extend(v);
                    }
                }
            }
            fed.fetch_add(keys.len() as u64, AtomicOrdering::Relaxed);
            let action = Action::Rows {
                view,
                upserts,
                deletes,
            };
            if tx.send((action, carried)).is_err() {
                return;
            }
        }
    })
}

/// What the App loop shares with the bench while it runs.
#[derive(Default)]
struct AppLoopStats {
    /// Keys applied (upserts + deletes of the `Action::Rows` taken).
    applied: AtomicU64,
    /// Rows in the view after the last batch.
    rows: AtomicUsize,
    frames: AtomicU64,
    /// Event → frame latencies (figure 4).
    samples: Mutex<Vec<Duration>>,
}

/// The runtime's main loop minus the terminal: take an action, drain what is queued (a burst is
/// one redraw), update the App, draw when `take_dirty()` (only if `terminal` is given). Each rv
/// carried by a batch is sampled at the end of the first frame after the App took it.
fn spawn_app_loop(
    mut app: App,
    view: ViewId,
    mut terminal: Option<Terminal<TestBackend>>,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<Feed>,
    applied_at: Arc<Mutex<HashMap<String, Instant>>>,
    stats: Arc<AppLoopStats>,
    stop: CancellationToken,
) -> JoinHandle<App> {
    tokio::spawn(async move {
        let mut in_app: Vec<String> = Vec::new();
        loop {
            let first = tokio::select! {
                _ = stop.cancelled() => break,
                f = rx.recv() => match f { Some(f) => f, None => break },
            };
            let mut pending = vec![first];
            while pending.len() < 256 {
                match rx.try_recv() {
                    Ok(f) => pending.push(f),
                    Err(_) => break,
                }
            }
            let mut n = 0u64;
            for (action, rvs) in pending {
                if let Action::Rows {
                    upserts, deletes, ..
                } = &action
                {
                    n += (upserts.len() + deletes.len()) as u64;
                }
                app.update(action);
                in_app.extend(rvs);
            }
            stats
                .rows
                .store(shown_rows(&app, view), AtomicOrdering::Relaxed);
            stats.applied.fetch_add(n, AtomicOrdering::Relaxed);
            if let Some(term) = terminal.as_mut()
                && app.take_dirty()
            {
                if draw(term, &app).is_err() {
                    break;
                }
                let now = Instant::now();
                stats.frames.fetch_add(1, AtomicOrdering::Relaxed);
                let at = applied_at.lock();
                let mut s = stats.samples.lock();
                for rv in in_app.drain(..) {
                    if let Some(t0) = at.get(&rv) {
                        s.push(now.saturating_duration_since(*t0));
                    }
                }
            }
        }
        app
    })
}

async fn pipeline_throughput(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let (objects, events) = if opts.smoke {
        (2_000, 20_000)
    } else {
        (10_000, 200_000)
    };
    let pods = fixture_pods(objects)?;
    // The watch events are made while the clock runs, by a producer thread, from the pods as
    // the dashboard's decoder hands them to the informer (through the cache mask), each a
    // MODIFIED with a new rv and a changed label, cycling through the pods. Making one costs
    // ~1 µs (a clone of a masked pod), well under the pipeline's per-event cost; building
    // 200k full pods up front instead would take ~15 GB.
    let mask = render::cache_mask("Pod");
    let masked: Vec<DynamicObject> = pods
        .into_iter()
        .map(|mut p| {
            mask.apply(&mut p);
            p
        })
        .collect();
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    fake.push_list_page(masked.clone(), "1000000", None);
    let sender = fake.push_watch_live();
    let lw: Arc<dyn ListerWatcher<DynamicObject>> = fake;
    // The fake scripts a list then a live watch, so the reflector lists then watches (a
    // streaming list would ask the fake's only watch for initial events it never sends).
    let running = start_informer_with(
        lw,
        ReflectorConfig {
            use_streaming_list: false,
            ..ReflectorConfig::default()
        },
    );
    let queue: RateLimitingQueue<Arc<str>> = RateLimitingQueue::new();
    let handler = Arc::new(QueueHandler {
        queue: queue.clone(),
        seen: AtomicUsize::new(0),
        rvs: None,
    });
    let reg = running.informer.add_event_handler(handler.clone(), None)?;
    let (app, view) = pods_app()?;
    let fed = Arc::new(AtomicU64::new(0));
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let feeder = spawn_feeder(
        view,
        queue.clone(),
        running.informer.indexer(),
        None,
        fed.clone(),
        tx,
    );
    let stats = Arc::new(AppLoopStats::default());
    let stop = CancellationToken::new();
    let app_loop = spawn_app_loop(
        app,
        view,
        None,
        rx,
        Arc::default(),
        stats.clone(),
        stop.clone(),
    );
    wait_until("pipeline initial sync", Duration::from_secs(300), || {
        reg.has_synced() && handler.seen.load(AtomicOrdering::Relaxed) >= objects
    })
    .await?;
    wait_until("pipeline initial rows", Duration::from_secs(300), || {
        queue.is_empty() && stats.rows.load(AtomicOrdering::Relaxed) == objects
    })
    .await?;
    let seen0 = handler.seen.load(AtomicOrdering::Relaxed);
    let start = Instant::now();
    let seen = handler.clone();
    let producer = std::thread::spawn(move || {
        let mut rv = 1_000_000u64;
        for i in 0..events {
            // At most 20k events in flight (a steady stream, not 200k objects queued at once).
            while i > 20_000
                + seen
                    .seen
                    .load(AtomicOrdering::Relaxed)
                    .saturating_sub(seen0)
            {
                std::thread::sleep(Duration::from_micros(200));
            }
            let mut p = masked[i % objects].clone();
            rv += 1;
            p.metadata.resource_version = Some(rv.to_string());
            if let Some(l) = p.metadata.labels.as_mut() {
                l.insert("gen".into(), (i / objects).to_string());
            }
            if sender.send(Ok(WatchEvent::Modified(p))).is_err() {
                return false;
            }
        }
        true
    });
    wait_until("pipeline events", Duration::from_secs(600), || {
        handler.seen.load(AtomicOrdering::Relaxed) >= seen0 + events
    })
    .await?;
    let t_handler = start.elapsed();
    if !producer.join().unwrap_or(false) {
        return Err(BenchError::Setup("fake watch closed".into()));
    }
    // Drained: nothing queued and every key the feeder sent is in the App; a key taken by the
    // feeder but not yet counted is caught by checking again 5 ms later.
    let drained = || {
        queue.is_empty()
            && fed.load(AtomicOrdering::Relaxed) == stats.applied.load(AtomicOrdering::Relaxed)
    };
    loop {
        wait_until("pipeline rows", Duration::from_secs(600), drained).await?;
        tokio::time::sleep(Duration::from_millis(5)).await;
        if drained() {
            break;
        }
    }
    let t_model = start.elapsed().saturating_sub(Duration::from_millis(5));
    queue.shut_down();
    let _ = feeder.await;
    stop.cancel();
    let _ = app_loop.await;
    running.stop().await;
    let rate_h = events as f64 / t_handler.as_secs_f64();
    let rate_m = events as f64 / t_model.as_secs_f64();
    let sec = "pipeline";
    report.fig(
        sec,
        &format!("watch ev/s → FIFO → indexer → handler ({events} ev, {objects} pods)"),
        format!("{rate_h:.0} ev/s"),
        "",
        Verdict::Info,
    );
    report.fig(
        sec,
        "watch ev/s → … → workqueue → Action::Rows → App",
        format!("{rate_m:.0} ev/s"),
        "",
        Verdict::Info,
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Figure 4: event → frame latency

async fn latency(opts: &BenchOptions, rate: f64, report: &mut Report) -> Result<(), BenchError> {
    let pods = if opts.smoke { 2_000 } else { 10_000 };
    let window = if opts.smoke {
        Duration::from_secs(3)
    } else {
        Duration::from_secs(10)
    };
    let handle = DemoServer::start(DemoOptions {
        port: 0,
        history: 200_000,
        ..DemoOptions::default()
    })
    .await
    .map_err(|e| BenchError::Setup(format!("demo server: {e}")))?;
    let mut sim = Simulator::new(SimConfig {
        pods,
        nodes: (pods / 30).max(3),
        seed: 7,
        start: chrono::Utc::now(),
        ..SimConfig::default()
    });
    let cluster = handle.cluster();
    let seed = sim.seed_mutations();
    let sim = Arc::new(Mutex::new(sim));
    apply_all(&cluster, seed, |m, _| sim.lock().rejected(m));

    let kc = Kubeconfig::from_yaml(&handle.kubeconfig_yaml())
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let client = client_for_informers(config)?;
    let ar = ApiResource::erase::<Pod>(&());
    let lw: Arc<dyn ListerWatcher<DynamicObject>> =
        Arc::new(KubeListerWatcher::dynamic(client, &ar, None));
    let running = start_informer(lw);

    let rvs: PendingRvs = Arc::default();
    let queue: RateLimitingQueue<Arc<str>> = RateLimitingQueue::new();
    let handler = Arc::new(QueueHandler {
        queue: queue.clone(),
        seen: AtomicUsize::new(0),
        rvs: Some(rvs.clone()),
    });
    let reg = running.informer.add_event_handler(handler.clone(), None)?;
    let (mut app, view) = pods_app()?;
    let store = running.informer.indexer();
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    if let Some(v) = app.views.get_mut(&view) {
        v.table.set_sort(SortBy::Cell(SORT_COLUMN));
    }
    let fed = Arc::new(AtomicU64::new(0));
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let feeder = spawn_feeder(
        view,
        queue.clone(),
        store,
        Some(rvs.clone()),
        fed.clone(),
        tx,
    );
    let applied_at: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let stats = Arc::new(AppLoopStats::default());
    let stop = CancellationToken::new();
    let app_loop = spawn_app_loop(
        app,
        view,
        Some(new_terminal()?),
        rx,
        applied_at.clone(),
        stats.clone(),
        stop.clone(),
    );
    let inf = running.informer.clone();
    wait_until("latency sync", Duration::from_secs(300), || {
        inf.has_synced() && reg.has_synced()
    })
    .await?;
    wait_until("latency rows", Duration::from_secs(300), || {
        queue.is_empty()
            && fed.load(AtomicOrdering::Relaxed) == stats.applied.load(AtomicOrdering::Relaxed)
    })
    .await?;
    // Samples start with the churn (no initial-list rv is in `applied_at`).
    stats.samples.lock().clear();
    let frames0 = stats.frames.load(AtomicOrdering::Relaxed);

    // Churn: the simulator's mutations at `rate` per second, in 10 ms ticks; pod mutations are
    // timestamped just before they are applied.
    let start = Instant::now();
    let mut due = 0.0f64;
    let mut sent_pods = 0usize;
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    while start.elapsed() < window {
        tick.tick().await;
        due += rate / 100.0;
        let n = due.floor() as usize;
        due -= n as f64;
        if n == 0 {
            continue;
        }
        let muts = sim.lock().tick(n);
        for m in muts {
            sent_pods += apply_timed(&cluster, &sim, &applied_at, m);
        }
    }
    // Let the tail drain.
    let drain = Instant::now();
    while drain.elapsed() < Duration::from_secs(2)
        && (!queue.is_empty()
            || fed.load(AtomicOrdering::Relaxed) != stats.applied.load(AtomicOrdering::Relaxed))
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    queue.shut_down();
    let _ = feeder.await;
    stop.cancel();
    let _ = app_loop.await;
    running.stop().await;
    handle.shutdown().await;

    let mut s = std::mem::take(&mut *stats.samples.lock());
    s.sort();
    let p50 = percentile(&s, 0.50);
    let p99 = percentile(&s, 0.99);
    let target = if rate <= 100.0 { 50 } else { 100 };
    let sec = format!("latency {rate:.0} ev/s");
    report.fig(
        &sec,
        &format!(
            "event → frame p50 ({} pod events, {} samples, {} frames)",
            sent_pods,
            s.len(),
            stats.frames.load(AtomicOrdering::Relaxed) - frames0
        ),
        ms(p50),
        "",
        Verdict::Info,
    );
    report.fig(
        &sec,
        "event → frame p99",
        ms(p99),
        &format!("≤ {target} ms"),
        verdict(!s.is_empty() && p99 <= Duration::from_millis(target)),
    );
    Ok(())
}

/// Apply one mutation; if it is a pod's, record when it was applied under its new rv.
fn apply_timed(
    cluster: &Arc<DemoCluster>,
    sim: &Arc<Mutex<Simulator>>,
    applied_at: &Arc<Mutex<HashMap<String, Instant>>>,
    m: Mutation,
) -> usize {
    let is_pod = match &m {
        Mutation::Create { resource, .. }
        | Mutation::Update { resource, .. }
        | Mutation::Delete { resource, .. } => {
            resource.plural == "pods" && resource.group.is_empty()
        }
    };
    let t0 = Instant::now();
    match cluster.apply(m.clone()) {
        Ok(v) => {
            if is_pod {
                if let Some(rv) = v
                    .pointer("/metadata/resourceVersion")
                    .and_then(Value::as_str)
                {
                    applied_at.lock().insert(rv.to_string(), t0);
                }
                return 1;
            }
            0
        }
        Err(_) => {
            sim.lock().rejected(&m);
            0
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Figures 5 and 6: label filter and render at 100k rows

fn time_median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    median(&mut v)
}

fn label_and_render(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = if opts.smoke { 20_000 } else { 100_000 };
    let nk = format!("{}k", n / 1000);
    let store = ThreadSafeStore::new(dashboard_pod_indexers());
    let store = Arc::new(store);
    let transform = pod_transform();
    for p in fixture_pods(n)? {
        let p = Arc::new(transform(p));
        store.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
    }
    // The App's pods view holding every row, with the indexer attached (as the runtime does).
    let (mut app, view) = pods_app()?;
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    app.update(Action::Resync {
        view,
        rows: store_rows(&store),
    });
    let runs = 21;
    // Figure 5: label filter.
    for (sel, pct) in [("app=app-7", "1%"), ("tier=tier-3", "10%")] {
        let selector = LabelSelector::parse(sel).map_err(|e| BenchError::Setup(e.to_string()))?;
        let (k, v) = sel.split_once('=').unwrap_or((sel, ""));
        let idx_term = label_value(k, v);
        let hits = store
            .index_keys_all(LABEL_INDEX, &[idx_term.as_str()])?
            .len();
        // What the App's `l` filter asks the index: the matching keys.
        let t_index = time_median(runs, || {
            store.index_keys_all(LABEL_INDEX, &[idx_term.as_str()])
        });
        let t_objects = time_median(runs, || {
            store.by_index_all(LABEL_INDEX, &[idx_term.as_str()])
        });
        let t_scan = time_median(runs, || {
            store
                .list()
                .into_iter()
                .filter(|o| {
                    o.metadata
                        .labels
                        .as_ref()
                        .is_some_and(|l| selector.matches(l))
                })
                .count()
        });
        let sec = format!("label {pct} of {nk}");
        report.fig(
            &sec,
            &format!("index lookup `{sel}`: index_keys_all ({hits} keys)"),
            ms(t_index),
            "≤ 1 ms",
            verdict(t_index <= Duration::from_millis(1)),
        );
        report.fig(
            &sec,
            "the same with the objects (by_index_all)",
            ms(t_objects),
            "",
            Verdict::Info,
        );
        report.fig(
            &sec,
            "linear scan with LabelSelector::matches",
            ms(t_scan),
            "",
            Verdict::Info,
        );
        // Full frame: `l` filter on the App (label index → refilter) → draw.
        let mut term = new_terminal()?;
        let mut shown = 0;
        let t_frame = time_median(runs, || {
            app.apply_label_filter(view, sel);
            shown = shown_rows(&app, view);
            draw(&mut term, &app)
        });
        if shown != hits {
            return Err(BenchError::Setup(format!(
                "label filter `{sel}`: the App shows {shown} rows, the index has {hits}"
            )));
        }
        report.fig(
            &sec,
            "filtered frame (App `l` filter via label index + draw)",
            ms(t_frame),
            "≤ 10 ms",
            verdict(t_frame <= Duration::from_millis(10)),
        );
        app.apply_label_filter(view, "");
    }

    // Figure 6: sort 100k rows by a column, then frames of the visible rows.
    let mut t_sort = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        if let Some(tb) = table(&mut app, view) {
            tb.set_sort(SortBy::Cell(SORT_COLUMN));
        }
        t_sort.push(t.elapsed());
        if let Some(tb) = table(&mut app, view) {
            tb.set_sort(SortBy::Key);
        }
    }
    if let Some(tb) = table(&mut app, view) {
        tb.set_sort(SortBy::Cell(SORT_COLUMN));
    }
    let t_sort = median(&mut t_sort);
    let mut term = new_terminal()?;
    let height = app.table_height();
    let mut offset = 0usize;
    let t_frame = time_median(101, || {
        offset = (offset + 997) % n;
        if let Some(tb) = table(&mut app, view) {
            tb.select_index(offset);
            tb.scroll_into_view(height);
        }
        draw(&mut term, &app)
    });
    let sec = format!("render {nk} rows");
    report.fig(
        &sec,
        "sort by STATUS (full, on sort change)",
        ms(t_sort),
        "",
        Verdict::Info,
    );
    report.fig(
        &sec,
        "App frame (visible rows, 200×60 TestBackend)",
        ms(t_frame),
        "≤ 10 ms",
        verdict(t_frame <= Duration::from_millis(10)),
    );
    // One watch event's cost to the view: summary + `Action::Rows` into the sorted App table.
    let sample = table(&mut app, view).and_then(|tb| tb.list().get(n / 2).cloned());
    if let Some(key) = sample
        && let Some(obj) = store.get(&key)
    {
        let t_upd = time_median(101, || {
            let upserts: Vec<ObjectSummary> = ObjectSummary::from_object("Pod", &obj, None)
                .into_iter()
                .collect();
            app.update(Action::Rows {
                view,
                upserts,
                deletes: Vec::new(),
            })
        });
        report.fig(
            &sec,
            "one row update (summary + Action::Rows, sorted App table)",
            ms(t_upd),
            "",
            Verdict::Info,
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Pulse draw (issue 14): the frame reads counters kept incrementally, so it costs the same at 1k
// and at 150k pods.

/// The App with the pulse open over its pods view, fed `pods` pods (as the pulse's pods feed
/// receives them) and 500 nodes with node metrics.
fn pulse_app(pods: &[ObjectSummary]) -> Result<App, BenchError> {
    let (mut app, _) = pods_app()?;
    let fx = app.update(Action::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('P'),
        crossterm::event::KeyModifiers::SHIFT,
    )));
    let feed = |plural: &str| {
        fx.iter().find_map(|e| match e {
            Effect::OpenResource { view, resource, .. }
                if resource.api_resource.plural == plural =>
            {
                Some(*view)
            }
            _ => None,
        })
    };
    let (Some(pods_feed), Some(nodes_feed)) = (feed("pods"), feed("nodes")) else {
        return Err(BenchError::Setup(
            "the pulse opened no pods/nodes feed".into(),
        ));
    };
    for chunk in pods.chunks(BATCH_ROWS) {
        app.update(Action::Rows {
            view: pods_feed,
            upserts: chunk.to_vec(),
            deletes: Vec::new(),
        });
    }
    let mut usage = HashMap::new();
    let nodes: Vec<ObjectSummary> = (0..500)
        .filter_map(|i| {
            let name = format!("node-{i}");
            usage.insert(
                name.clone(),
                crate::render::metrics::Usage {
                    cpu_n: 2_000_000_000,
                    mem: 8 << 30,
                },
            );
            let obj: DynamicObject = serde_json::from_value(serde_json::json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name},
                "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                    "conditions": [{"type": "Ready", "status": "True"}]}
            }))
            .ok()?;
            ObjectSummary::from_object("Node", &Arc::new(obj), None)
        })
        .collect();
    app.update(Action::Rows {
        view: nodes_feed,
        upserts: nodes,
        deletes: Vec::new(),
    });
    app.update(Action::Metrics(crate::ui::metrics::MetricsUpdate::Usage {
        scope: crate::ui::metrics::MetricsScope::Nodes,
        usage: Arc::new(usage),
    }));
    let counted = app.pulse.as_ref().map_or(0, |p| p.pulse.counts().pods);
    if counted != pods.len() {
        return Err(BenchError::Setup(format!(
            "the pulse counts {counted} pods, {} were fed",
            pods.len()
        )));
    }
    Ok(app)
}

fn pulse_draw(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = if opts.smoke { 20_000 } else { 150_000 };
    let transform = pod_transform();
    let rows: Vec<ObjectSummary> = fixture_pods(n)?
        .into_iter()
        .filter_map(|p| ObjectSummary::from_object("Pod", &Arc::new(transform(p)), None))
        .collect();
    let mut frames = Vec::new();
    for count in [1_000, n] {
        let app = pulse_app(&rows[..count.min(rows.len())])?;
        let mut term = new_terminal()?;
        frames.push((count, time_median(101, || draw(&mut term, &app))));
    }
    let sec = "pulse";
    for (count, t) in &frames {
        report.fig(
            sec,
            &format!("pulse frame at {}k pods (200×60 TestBackend)", count / 1000),
            ms(*t),
            "≤ 10 ms",
            verdict(*t <= Duration::from_millis(10)),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Figure 7: drill-down through the indexes

/// ReplicaSets of the drill-down fixture: `rs-{k}` (uid `rs-uid-{k}`) in `ns-{k % 50}`, owned by
/// Deployment `deploy-uid-{k % 500}` (two ReplicaSets each, as after a rollout).
const FIXTURE_REPLICASETS: usize = 1_000;

fn owner_ref(kind: &str, name: &str, uid: &str) -> Value {
    serde_json::json!([{ "apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid,
        "controller": true }])
}

/// A workload object as the informer would cache it (what drill-down reads: uid, owners).
fn workload_object(
    kind: &str,
    ns: &str,
    name: &str,
    uid: &str,
    owner: Option<Value>,
) -> Result<DynamicObject, BenchError> {
    let mut v = serde_json::json!({
        "apiVersion": "apps/v1", "kind": kind,
        "metadata": { "name": name, "namespace": ns, "uid": uid, "resourceVersion": "1" },
        "spec": { "replicas": 2 }, "status": { "replicas": 2, "readyReplicas": 2 },
    });
    if let Some(o) = owner {
        v["metadata"]["ownerReferences"] = o;
    }
    serde_json::from_value(v).map_err(|e| BenchError::Setup(format!("{kind} fixture: {e}")))
}

/// An App showing `resource` with one row (`obj`, as `kind`) selected; Enter drills into it.
fn app_on(resource: &str, kind: &str, obj: DynamicObject) -> Result<(App, ViewId), BenchError> {
    let keys = KeyMap::defaults().map_err(|e| BenchError::Setup(format!("key map: {e}")))?;
    let mut app = App::new(
        AppConfig {
            context: "bench".into(),
            namespace: None,
            resource: resource.into(),
            now_ms: now_ms(),
            ..AppConfig::default()
        },
        keys,
    );
    app.update(Action::Resize(WIDTH, HEIGHT));
    let view = app
        .init()
        .into_iter()
        .find_map(|e| match e {
            // The first view comes first (then the namespaces view behind `:ns`).
            Effect::OpenResource { view, .. } => Some(view),
            _ => None,
        })
        .ok_or_else(|| BenchError::Setup(format!("the app opened no {resource} view")))?;
    let row = ObjectSummary::from_object(kind, &Arc::new(obj), None)
        .ok_or_else(|| BenchError::Setup(format!("{kind} fixture has no name")))?;
    app.update(Action::Resync {
        view,
        rows: vec![row],
    });
    Ok((app, view))
}

/// Press Enter on the selected row and hand each opened view its informer's store, as the
/// runtime does; returns the drilled pods view's rows and header. `stores`: plural → store.
fn drill_once(
    app: &mut App,
    stores: &HashMap<&str, Arc<ThreadSafeStore<DynamicObject>>>,
) -> Result<(usize, String), BenchError> {
    let fx = app.update(Action::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    )));
    let mut pods_view = None;
    // The feeder (ReplicaSets) first: the order the runtime sends them in does not matter.
    let mut opened: Vec<(ViewId, String)> = fx
        .into_iter()
        .filter_map(|e| match e {
            Effect::OpenResource { view, resource, .. } => {
                Some((view, resource.api_resource.plural))
            }
            _ => None,
        })
        .collect();
    opened.reverse();
    for (view, plural) in opened {
        if plural == "pods" {
            pods_view = Some(view);
        }
        let store = stores
            .get(plural.as_str())
            .ok_or_else(|| BenchError::Setup(format!("no {plural} store")))?;
        app.update(Action::Store {
            view,
            store: store.clone(),
        });
    }
    let v = pods_view
        .and_then(|id| app.views.get(&id))
        .ok_or_else(|| BenchError::Setup("the drill-down opened no pods view".into()))?;
    Ok((v.table.list().len(), v.drill_text().unwrap_or_default()))
}

/// Back from a drill-down (Esc closes its views).
fn drill_back(app: &mut App) {
    app.update(Action::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Esc,
        crossterm::event::KeyModifiers::NONE,
    )));
}

fn drill_down(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = if opts.smoke { 20_000 } else { 150_000 };
    let nk = format!("{}k", n / 1000);
    let sec = format!("drill-down at {nk} pods");
    // Pods as in figures 5-6 (node-{i % 500}, ns-{i % 50}), each owned by ReplicaSet
    // rs-{i % 1000}.
    let pods = Arc::new(ThreadSafeStore::new(dashboard_pod_indexers()));
    let transform = pod_transform();
    for (i, mut p) in fixture_pods(n)?.into_iter().enumerate() {
        let k = i % FIXTURE_REPLICASETS;
        if let Ok(refs) = serde_json::from_value(owner_ref(
            "ReplicaSet",
            &format!("rs-{k}"),
            &format!("rs-uid-{k}"),
        )) {
            p.metadata.owner_references = Some(refs);
        }
        let p = Arc::new(transform(p));
        pods.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
    }
    let replicasets = Arc::new(ThreadSafeStore::new(default_indexers::<DynamicObject>()));
    for k in 0..FIXTURE_REPLICASETS {
        let d = k % 500;
        let rs = Arc::new(workload_object(
            "ReplicaSet",
            &format!("ns-{}", k % 50),
            &format!("rs-{k}"),
            &format!("rs-uid-{k}"),
            Some(owner_ref(
                "Deployment",
                &format!("deploy-{d}"),
                &format!("deploy-uid-{d}"),
            )),
        )?);
        replicasets.add(&crate::informer::meta_namespace_key(rs.as_ref())?, rs)?;
    }
    let stores: HashMap<&str, Arc<ThreadSafeStore<DynamicObject>>> =
        [("pods", pods.clone()), ("replicasets", replicasets.clone())]
            .into_iter()
            .collect();
    let runs = 21;
    let node: DynamicObject =
        serde_json::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-7", "uid": "node-uid-7"}}))
        .map_err(|e| BenchError::Setup(format!("node fixture: {e}")))?;
    let namespace: DynamicObject =
        serde_json::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "ns-7", "uid": "ns-uid-7"}}))
        .map_err(|e| BenchError::Setup(format!("namespace fixture: {e}")))?;
    let deployment = workload_object("Deployment", "ns-7", "deploy-7", "deploy-uid-7", None)?;
    let cases = [
        ("node", "nodes", "Node", node, n / 500),
        (
            "deployment",
            "deployments",
            "Deployment",
            deployment,
            n / FIXTURE_REPLICASETS * 2,
        ),
        ("namespace", "namespaces", "Namespace", namespace, n / 50),
    ];
    for (what, resource, kind, obj, expect) in cases {
        let (mut app, _) = app_on(resource, kind, obj)?;
        let mut shown = 0;
        let mut header = String::new();
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            (shown, header) = drill_once(&mut app, &stores)?;
            times.push(t.elapsed());
            drill_back(&mut app);
        }
        if shown != expect {
            return Err(BenchError::Setup(format!(
                "{what} drill-down shows {shown} pods, expected {expect} ({header})"
            )));
        }
        let t = median(&mut times);
        let per_row = t.as_secs_f64() * 1e6 / shown.max(1) as f64;
        // The node and deployment drill-downs have a target; the namespace one (ten times the
        // matches) shows how the cost follows the matches, not the cache.
        let (target, v) = if what == "namespace" {
            ("", Verdict::Info)
        } else {
            ("≤ 10 ms", verdict(t <= Duration::from_millis(10)))
        };
        report.fig(
            &sec,
            &format!("{what} drill-down (Enter → index → {shown} rows): {header}"),
            format!("{} ({per_row:.1} µs per row)", ms(t)),
            target,
            v,
        );
    }
    // Before: the drilled view received every pod's row and filtered them with a scan.
    let (mut app, view) = pods_app()?;
    let t_rows = time_median(3, || {
        let rows = store_rows(&pods);
        app.update(Action::Resync { view, rows })
    });
    let t_scan = time_median(runs, || {
        if let Some(tb) = table(&mut app, view) {
            tb.filters.drill = Some(crate::ui::table::Drill::Node(Arc::from("node-7")));
            tb.refilter(None);
        }
        shown_rows(&app, view)
    });
    report.fig(
        &sec,
        &format!("before: every row to the drilled view ({nk} summaries + Resync)"),
        ms(t_rows),
        "",
        Verdict::Info,
    );
    report.fig(
        &sec,
        &format!("before: node filter by a scan of the {nk} rows"),
        ms(t_scan),
        "",
        Verdict::Info,
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Entry point

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
    if opts.wants(FigureGroup::Drill) {
        tracing::info!("bench: drill-down");
        drill_down(&opts, &mut report)?;
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
        };
        let mut report = Report::default();
        drill_down(&opts, &mut report)?;
        let names: Vec<&str> = report.figures.iter().map(|f| f.name.as_str()).collect();
        for want in [
            "node index → 40 pods",
            "owner index: 2 replicasets → 40 pods",
            "namespace index → 400 pods",
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
                .filter(|p| p.metadata.labels.as_ref().is_some_and(|l| s.matches(l)))
                .count()
        };
        assert_eq!(count(&sel("app=app-7")), 10);
        assert_eq!(count(&sel("tier=tier-3")), 100);
    }
}
