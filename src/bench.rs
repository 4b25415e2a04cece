//! `kinformer bench`: the benchmark suite of issue 5, printed as one table.
//!
//! Figures (each the median of `--runs` where a run is repeatable):
//! 1. time to synced for N pods: kinformer's `SharedIndexInformer<DynamicObject>` over
//!    [`KubeListerWatcher`] with the dashboard's cache transform (`render::prune("Pod", ..)`),
//!    next to the floor measured in the same run (raw paged HTTP list, page size 500, plus
//!    `serde_json` parse into `k8s_openapi` `Pod`) and kube-rs' `runtime::reflector` + `watcher`
//!    (same page size) until its first `InitDone`;
//! 2. memory: RSS after sync, bytes per cached pod (RSS delta over a baseline taken before the
//!    informer starts), and peak RSS (VmHWM after `clear_refs`) during a forced relist (the demo
//!    server answers the next watch with 410 and drops watches) vs steady RSS;
//! 3. pipeline throughput: watch events/s through DeltaFIFO → indexer → handler → workqueue →
//!    row model (in-process, [`FakeListerWatcher`]);
//! 4. event → frame latency (p50/p99) under churn: in-process demo server; each pod mutation is
//!    timestamped when it is applied; informer handler → workqueue → indexer read →
//!    `render::row` → sorted row model → draw of the visible rows to a ratatui `TestBackend`;
//! 5. label filter: `by_index_all(LABEL_INDEX, ..)` for selectors matching 1% / 10% of the pods
//!    next to a linear scan with [`LabelSelector::matches`], and the full filtered frame;
//! 6. render: sort of 100k rows by a column and the frame time at 100k rows; CPU while idle.
//!
//! The demo server of figures 1-2 runs as a child process (`kinformer demo-server`), so the RSS
//! of this process is the informer's alone. `--kubeconfig` benchmarks any cluster instead (then
//! the forced relist is skipped: it needs the demo server's fault endpoint).
//!
//! The dashboard's `App` is not driven here yet (its row types are still placeholders); figures
//! 4 and 6 draw a table of the same rows with ratatui's `Table`, which is what the pods view
//! draws, and the output says so.

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
use ratatui::layout::Constraint;
use ratatui::widgets::{Block, Borders, Row as TuiRow, Table};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::demo::churn::apply_all;
use crate::demo::mutation::Mutation;
use crate::demo::sim::{SimConfig, Simulator};
use crate::demo::{DemoCluster, DemoOptions, DemoServer};
use crate::informer::delta_fifo::DeltaObject;
use crate::informer::index::{LABEL_INDEX, NODE_INDEX, default_indexers, label_value};
use crate::informer::list_watch::{
    FakeListerWatcher, KubeListerWatcher, ListOptions, ListerWatcher, WatchEvent,
    client_for_informers, list_url,
};
use crate::informer::shared_informer::{
    DeleteObject, InformerConfig, ResourceEventHandler, SharedIndexInformer,
};
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::informer::workqueue::RateLimitingQueue;
use crate::render;
use crate::selector::LabelSelector;

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
        let w_name = self
            .figures
            .iter()
            .map(|f| f.section.len() + f.name.len() + 3)
            .max()
            .unwrap_or(10);
        let w_val = self
            .figures
            .iter()
            .map(|f| f.value.len())
            .max()
            .unwrap_or(5);
        let w_tgt = self
            .figures
            .iter()
            .map(|f| f.target.len())
            .max()
            .unwrap_or(6)
            .max(6);
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

// ---------------------------------------------------------------------------------------------
// Process measurements (/proc)

/// A `VmXxx:` line of /proc/self/status, in bytes.
fn proc_status_bytes(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// Resident set size now.
pub fn rss_bytes() -> Option<u64> {
    proc_status_bytes("VmRSS:")
}

/// Peak resident set size since start or the last [`reset_peak_rss`].
pub fn peak_rss_bytes() -> Option<u64> {
    proc_status_bytes("VmHWM:")
}

/// Reset VmHWM to the current RSS (`echo 5 > /proc/self/clear_refs`).
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// User + system CPU time of this process (all threads), from /proc/self/stat (USER_HZ = 100).
pub fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may contain spaces).
    let rest = s.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state); utime is field 14, stime field 15.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
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
    async fn start(pods: usize) -> Result<Self, BenchError> {
        let exe = std::env::current_exe()?;
        let dir =
            std::env::temp_dir().join(format!("kinformer-bench-{}-{}", std::process::id(), pods));
        std::fs::create_dir_all(&dir)?;
        let kubeconfig = dir.join("kubeconfig");
        let mut child = tokio::process::Command::new(exe)
            .arg("demo-server")
            .args(["--pods", &pods.to_string()])
            .args(["--churn", "0", "--port", "0"])
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
    let informer = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "pods".into(),
            indexers: dashboard_pod_indexers(),
            transform: Some(pod_transform()),
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
    let lw: Arc<dyn ListerWatcher<DynamicObject>> =
        Arc::new(KubeListerWatcher::dynamic(client.clone(), &ar, None));
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
        None => Some(ChildServer::start(pods).await?),
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
    let cached = running.informer.indexer().len();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let steady = rss_bytes().unwrap_or(0);
    let per_pod = steady.saturating_sub(baseline) / cached.max(1) as u64;
    report.fig(sec, "cached pods", cached.to_string(), "", Verdict::Info);
    report.fig(sec, "RSS after sync", mib(steady), "", Verdict::Info);
    report.fig(
        sec,
        "bytes per cached pod (RSS delta)",
        format!("{per_pod} B"),
        "≤ 6 KB (at 100k)",
        verdict(per_pod <= 6 * 1024),
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
                "≤ 1.5×",
                verdict(ratio <= 1.5),
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
    running.stop().await;

    let mut kin = vec![t_first];
    let mut floor = Vec::new();
    let mut peer = Vec::new();
    for run in 0..opts.runs.max(1) {
        if run > 0 {
            let (t, r) = kinformer_sync(client).await?;
            r.stop().await;
            kin.push(t);
        }
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
            "≤ 1.3 s",
            verdict(k.as_secs_f64() <= 1.3),
        );
    }
    Ok(())
}

/// Figure 6b: CPU of a synced, idle informer plus an app loop (1 s tick that redraws the ages).
async fn idle_cpu(opts: &BenchOptions, running: &RunningInformer, report: &mut Report) {
    let window = if opts.smoke {
        Duration::from_secs(3)
    } else {
        Duration::from_secs(10)
    };
    let store = running.informer.indexer();
    let mut model = RowModel::default();
    for o in store.list() {
        model.upsert(&o);
    }
    model.sort_by(SORT_COLUMN);
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
    let Some(c0) = cpu_time() else {
        report
            .notes
            .push("idle CPU: /proc/self/stat unreadable".into());
        return;
    };
    let start = Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    while start.elapsed() < window {
        tick.tick().await;
        let _ = draw(&mut term, &model, 0);
    }
    let elapsed = start.elapsed();
    let Some(c1) = cpu_time() else { return };
    let pct = (c1.saturating_sub(c0)).as_secs_f64() / elapsed.as_secs_f64() * 100.0;
    report.fig(
        "render",
        &format!(
            "idle CPU over {} s (synced informer + 1 Hz redraw)",
            window.as_secs()
        ),
        format!("{pct:.2}% of a core"),
        "≤ 1%",
        verdict(pct <= 1.0),
    );
}

// ---------------------------------------------------------------------------------------------
// The row model and the frame (what the pods view keeps and draws)

/// Column the table is sorted by in figures 4 and 6 (index into the pod row's cells: NODE is the
/// last column kubectl shows without -o wide for pods; we sort by STATUS).
const SORT_COLUMN: usize = 2;

/// A pods table model: rows by key and the keys in display order. Keeps the order incrementally
/// (binary search on insert/update), as the dashboard's table model does.
#[derive(Default)]
struct RowModel {
    rows: HashMap<Arc<str>, (Option<Arc<str>>, render::Row)>,
    order: Vec<Arc<str>>,
    sort: Option<usize>,
}

impl RowModel {
    fn cmp_keys(&self, col: usize, a: &Arc<str>, b: &Arc<str>) -> std::cmp::Ordering {
        let ca = self.rows.get(a).and_then(|r| r.1.cells.get(col));
        let cb = self.rows.get(b).and_then(|r| r.1.cells.get(col));
        match (ca, cb) {
            (Some(x), Some(y)) => x.cmp_for_sort(y).then_with(|| a.cmp(b)),
            _ => a.cmp(b),
        }
    }

    fn position(&self, key: &Arc<str>) -> Result<usize, usize> {
        match self.sort {
            Some(col) => self.order.binary_search_by(|k| self.cmp_keys(col, k, key)),
            None => self.order.binary_search(key),
        }
    }

    fn upsert(&mut self, obj: &DynamicObject) {
        let Ok(key) = crate::informer::meta_namespace_key(obj) else {
            return;
        };
        let key: Arc<str> = Arc::from(key.as_str());
        let row = render::row("Pod", obj, None);
        let ns = obj.metadata.namespace.as_deref().map(Arc::from);
        if self.rows.contains_key(&key)
            && let Ok(i) = self.position(&key)
        {
            self.order.remove(i);
        }
        self.rows.insert(key.clone(), (ns, row));
        let at = match self.position(&key) {
            Ok(i) | Err(i) => i,
        };
        self.order.insert(at, key);
    }

    fn remove(&mut self, key: &str) {
        let key: Arc<str> = Arc::from(key);
        if self.rows.contains_key(&key) {
            if let Ok(i) = self.position(&key) {
                self.order.remove(i);
            }
            self.rows.remove(&key);
        }
    }

    fn sort_by(&mut self, col: usize) {
        self.sort = Some(col);
        let mut order = std::mem::take(&mut self.order);
        order.sort_by(|a, b| self.cmp_keys(col, a, b));
        self.order = order;
    }
}

/// Draw the visible window of `model` starting at row `offset`: header, NAMESPACE + the pod
/// columns, only the rows that fit (as the dashboard renders only visible rows).
fn draw(
    term: &mut Terminal<TestBackend>,
    model: &RowModel,
    offset: usize,
) -> Result<(), BenchError> {
    let now = chrono::Utc::now().timestamp();
    let cols = render::columns("Pod", None);
    term.draw(|f| {
        let area = f.area();
        let height = area.height.saturating_sub(3) as usize;
        let rows: Vec<TuiRow> = model
            .order
            .iter()
            .skip(offset)
            .take(height)
            .filter_map(|k| model.rows.get(k))
            .map(|(ns, row)| {
                let mut cells: Vec<String> = Vec::with_capacity(row.cells.len() + 1);
                cells.push(ns.as_deref().unwrap_or("").to_string());
                cells.extend(row.cells.iter().map(|c| c.display(now).into_owned()));
                TuiRow::new(cells)
            })
            .collect();
        let mut widths = vec![Constraint::Min(12)];
        widths.extend(
            cols.iter()
                .filter(|c| !c.wide)
                .map(|c| Constraint::Min(c.min_width)),
        );
        let mut header = vec!["NAMESPACE".to_string()];
        header.extend(cols.iter().filter(|c| !c.wide).map(|c| c.name.clone()));
        let table = Table::new(rows, widths).header(TuiRow::new(header)).block(
            Block::default()
                .borders(Borders::ALL)
                .title(format!(" pods [{}] ", model.order.len())),
        );
        f.render_widget(table, area);
    })
    .map_err(|e| BenchError::Setup(format!("draw: {e}")))?;
    Ok(())
}

fn new_terminal() -> Result<Terminal<TestBackend>, BenchError> {
    Terminal::new(TestBackend::new(200, 60))
        .map_err(|e| BenchError::Setup(format!("terminal: {e}")))
}

// ---------------------------------------------------------------------------------------------
// Fixture pods (figures 3, 5, 6)

fn fixture_pod() -> Result<DynamicObject, BenchError> {
    serde_json::from_str(include_str!("../tests/fixtures/pod.json"))
        .map_err(|e| BenchError::Setup(format!("pod fixture: {e}")))
}

/// `n` realistic pods (the fixture: managedFields, containers, env, volumes), each with its own
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

/// The consumer: workqueue → indexer read → `render::row` → row model; bumps `applied` and
/// wakes the renderer.
fn spawn_consumer(
    queue: RateLimitingQueue<Arc<str>>,
    store: Arc<ThreadSafeStore<DynamicObject>>,
    model: Arc<Mutex<RowModel>>,
    applied: Arc<AtomicU64>,
    on_applied: impl Fn(&Arc<str>) + Send + 'static,
    dirty: Arc<Notify>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(key) = queue.get().await {
            match store.get(&key) {
                Some(obj) => model.lock().upsert(&obj),
                None => model.lock().remove(&key),
            }
            on_applied(&key);
            queue.done(&key);
            applied.fetch_add(1, AtomicOrdering::Relaxed);
            dirty.notify_one();
        }
    })
}

async fn pipeline_throughput(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let (objects, events) = if opts.smoke {
        (2_000, 20_000)
    } else {
        (10_000, 200_000)
    };
    let pods = fixture_pods(objects)?;
    // Pre-build the watch events (the clock starts after): each a MODIFIED with a new rv and a
    // changed label, cycling through the pods.
    let mut rv = 1_000_000u64;
    let evs: Vec<WatchEvent<DynamicObject>> = (0..events)
        .map(|i| {
            let mut p = pods[i % objects].clone();
            rv += 1;
            p.metadata.resource_version = Some(rv.to_string());
            if let Some(l) = p.metadata.labels.as_mut() {
                l.insert("gen".into(), (i / objects).to_string());
            }
            WatchEvent::Modified(p)
        })
        .collect();
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    fake.push_list_page(pods, "1000000", None);
    let sender = fake.push_watch_live();
    let lw: Arc<dyn ListerWatcher<DynamicObject>> = fake;
    let running = start_informer(lw);
    let queue: RateLimitingQueue<Arc<str>> = RateLimitingQueue::new();
    let handler = Arc::new(QueueHandler {
        queue: queue.clone(),
        seen: AtomicUsize::new(0),
        rvs: None,
    });
    let reg = running.informer.add_event_handler(handler.clone(), None)?;
    let model = Arc::new(Mutex::new(RowModel::default()));
    let applied = Arc::new(AtomicU64::new(0));
    let consumer = spawn_consumer(
        queue.clone(),
        running.informer.indexer(),
        model.clone(),
        applied.clone(),
        |_| {},
        Arc::new(Notify::new()),
    );
    wait_until("pipeline initial sync", Duration::from_secs(300), || {
        reg.has_synced() && handler.seen.load(AtomicOrdering::Relaxed) >= objects
    })
    .await?;
    wait_until("pipeline initial model", Duration::from_secs(300), || {
        queue.is_empty() && model.lock().order.len() == objects
    })
    .await?;
    let seen0 = handler.seen.load(AtomicOrdering::Relaxed);
    let start = Instant::now();
    for ev in evs {
        if sender.send(Ok(ev)).is_err() {
            return Err(BenchError::Setup("fake watch closed".into()));
        }
    }
    wait_until("pipeline events", Duration::from_secs(600), || {
        handler.seen.load(AtomicOrdering::Relaxed) >= seen0 + events
    })
    .await?;
    let t_handler = start.elapsed();
    wait_until("pipeline model", Duration::from_secs(600), || {
        queue.is_empty()
    })
    .await?;
    // The item being processed when the queue empties: wait for the consumer to settle.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let t_model = start.elapsed().saturating_sub(Duration::from_millis(5));
    queue.shut_down();
    let _ = consumer.await;
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
        "watch ev/s → … → workqueue → row model",
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
    let model = Arc::new(Mutex::new(RowModel::default()));
    model.lock().sort_by(SORT_COLUMN);
    let applied_n = Arc::new(AtomicU64::new(0));
    // rvs whose new state is in the model and waits for the next frame.
    let in_model: Arc<Mutex<Vec<String>>> = Arc::default();
    let dirty = Arc::new(Notify::new());
    let consumer = {
        let rvs = rvs.clone();
        let in_model = in_model.clone();
        spawn_consumer(
            queue.clone(),
            running.informer.indexer(),
            model.clone(),
            applied_n.clone(),
            move |key| {
                if let Some(v) = rvs.lock().remove(key) {
                    in_model.lock().extend(v);
                }
            },
            dirty.clone(),
        )
    };
    let inf = running.informer.clone();
    wait_until("latency sync", Duration::from_secs(300), || {
        inf.has_synced() && reg.has_synced()
    })
    .await?;
    wait_until("latency model", Duration::from_secs(300), || {
        queue.is_empty()
    })
    .await?;
    in_model.lock().clear();

    // The renderer: one frame per wake-up (wake-ups coalesce), visible rows only.
    let applied_at: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let samples: Arc<Mutex<Vec<Duration>>> = Arc::default();
    let frames = Arc::new(AtomicU64::new(0));
    let stop = CancellationToken::new();
    let renderer = {
        let model = model.clone();
        let in_model = in_model.clone();
        let applied_at = applied_at.clone();
        let samples = samples.clone();
        let frames = frames.clone();
        let dirty = dirty.clone();
        let stop = stop.clone();
        tokio::spawn(async move {
            let mut term = match new_terminal() {
                Ok(t) => t,
                Err(_) => return,
            };
            loop {
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = dirty.notified() => {}
                }
                let shown: Vec<String> = std::mem::take(&mut *in_model.lock());
                {
                    let m = model.lock();
                    if draw(&mut term, &m, 0).is_err() {
                        break;
                    }
                }
                let now = Instant::now();
                frames.fetch_add(1, AtomicOrdering::Relaxed);
                let at = applied_at.lock();
                let mut s = samples.lock();
                for rv in shown {
                    if let Some(t0) = at.get(&rv) {
                        s.push(now.saturating_duration_since(*t0));
                    }
                }
            }
        })
    };

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
        && (!queue.is_empty() || !in_model.lock().is_empty())
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    stop.cancel();
    let _ = renderer.await;
    queue.shut_down();
    let _ = consumer.await;
    running.stop().await;
    handle.shutdown().await;

    let mut s = std::mem::take(&mut *samples.lock());
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
            frames.load(AtomicOrdering::Relaxed)
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
    let transform = pod_transform();
    let mut model = RowModel::default();
    for p in fixture_pods(n)? {
        let p = Arc::new(transform(p));
        store.add(&crate::informer::meta_namespace_key(p.as_ref())?, p.clone())?;
        model.upsert(&p);
    }
    let runs = 21;
    // Figure 5: label filter.
    for (sel, pct) in [("app=app-7", "1%"), ("tier=tier-3", "10%")] {
        let selector = LabelSelector::parse(sel).map_err(|e| BenchError::Setup(e.to_string()))?;
        let (k, v) = sel.split_once('=').unwrap_or((sel, ""));
        let idx_term = label_value(k, v);
        let hits = store.by_index_all(LABEL_INDEX, &[idx_term.as_str()])?.len();
        let t_index = time_median(runs, || {
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
            &format!("by_index_all `{sel}` ({hits} hits)"),
            ms(t_index),
            "≤ 1 ms",
            verdict(t_index <= Duration::from_millis(1)),
        );
        report.fig(
            &sec,
            "linear scan with LabelSelector::matches",
            ms(t_scan),
            "",
            Verdict::Info,
        );
        // Full frame: index lookup → rows → sort → draw.
        let mut term = new_terminal()?;
        let t_frame = time_median(runs, || {
            let hits = store
                .by_index_all(LABEL_INDEX, &[idx_term.as_str()])
                .unwrap_or_default();
            let mut fm = RowModel::default();
            for o in &hits {
                fm.upsert(o);
            }
            fm.sort_by(SORT_COLUMN);
            draw(&mut term, &fm, 0)
        });
        report.fig(
            &sec,
            "filtered frame (lookup + rows + sort + draw)",
            ms(t_frame),
            "≤ 10 ms",
            verdict(t_frame <= Duration::from_millis(10)),
        );
    }

    // Figure 6: sort 100k rows by a column, then frames of the visible rows.
    let mut t_sort = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        model.sort_by(SORT_COLUMN);
        t_sort.push(t.elapsed());
        model.sort_by(0);
    }
    model.sort_by(SORT_COLUMN);
    let t_sort = median(&mut t_sort);
    let mut term = new_terminal()?;
    let mut offset = 0usize;
    let t_frame = time_median(101, || {
        offset = (offset + 997) % n;
        draw(&mut term, &model, offset)
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
        "frame (visible rows, 200×60 TestBackend)",
        ms(t_frame),
        "≤ 10 ms",
        verdict(t_frame <= Duration::from_millis(10)),
    );
    // Incremental update of one row in the sorted model (what one watch event costs the view).
    let sample = model.order.get(n / 2).cloned();
    if let Some(key) = sample
        && let Some(obj) = store.get(&key)
    {
        let t_upd = time_median(101, || model.upsert(&obj));
        report.fig(
            &sec,
            "one row update in the sorted model",
            ms(t_upd),
            "",
            Verdict::Info,
        );
    }
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
    for (i, &pods) in opts.pods.iter().enumerate() {
        tracing::info!(pods, "bench: sync and memory");
        sync_and_memory(&opts, pods, i == 0, &mut report).await?;
    }
    tracing::info!("bench: pipeline");
    pipeline_throughput(&opts, &mut report).await?;
    for &rate in &opts.churn {
        tracing::info!(rate, "bench: latency");
        latency(&opts, rate, &mut report).await?;
    }
    tracing::info!("bench: label filter and render");
    label_and_render(&opts, &mut report)?;
    report.notes.push(
        "figures 4 and 6 draw the pods table with ratatui's Table from render::row rows (the \
         dashboard App is not driven yet: its row types are still placeholders)"
            .into(),
    );
    report.notes.push(
        "event → frame: from just before the demo server applies a pod mutation to the end of \
         the first frame drawn after the row model holds that state"
            .into(),
    );
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn row_model_keeps_rows_sorted_by_column_across_updates() {
        let mut m = RowModel::default();
        m.sort_by(0);
        for n in ["c", "a", "b"] {
            m.upsert(&pod(n, "Running"));
        }
        let names: Vec<&str> = m
            .order
            .iter()
            .map(|k| k.rsplit('/').next().unwrap_or(""))
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
        // Re-inserting an existing key must not duplicate it.
        m.upsert(&pod("b", "Running"));
        assert_eq!(m.order.len(), 3);
        m.remove("shop/a");
        assert_eq!(m.order.len(), 2);
        assert_eq!(m.rows.len(), 2);
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
