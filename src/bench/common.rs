//! What every figure group shares: the options, the report and its figures, the errors, and
//! the small helpers (medians, units, waiting). Its own file, so the groups import it without
//! importing `bench` (whose `run` calls every group).

pub(super) use std::collections::{BTreeMap, HashMap};
pub(super) use std::path::{Path, PathBuf};
pub(super) use std::sync::Arc;
pub(super) use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering as AtomicOrdering};
pub(super) use std::time::{Duration, Instant};

pub(super) use futures::TryStreamExt;
pub(super) use k8s_openapi::api::core::v1::Pod;
pub(super) use kube::api::{ApiResource, DynamicObject};
pub(super) use kube::config::{KubeConfigOptions, Kubeconfig};
pub(super) use parking_lot::Mutex;
pub(super) use ratatui::Terminal;
pub(super) use ratatui::backend::TestBackend;
pub(super) use serde_json::Value;
pub(super) use tokio::io::{AsyncBufReadExt, BufReader};
pub(super) use tokio::task::JoinHandle;
pub(super) use tokio_util::sync::CancellationToken;

pub(super) use crate::demo::churn::apply_all;
pub(super) use crate::demo::mutation::Mutation;
pub(super) use crate::demo::realistic::PodShape;
pub(super) use crate::demo::sim::{SimConfig, Simulator};
pub(super) use crate::demo::{DemoCluster, DemoOptions, DemoServer};
pub(super) use crate::informer::delta_fifo::DeltaObject;
pub(super) use crate::informer::index::{LABEL_INDEX, NODE_INDEX, default_indexers, label_value};
pub(super) use crate::informer::list_watch::{
    FakeListerWatcher, KubeListerWatcher, ListOptions, ListerWatcher, WatchEvent,
    client_for_informers, list_url,
};
pub(super) use crate::informer::reflector::ReflectorConfig;
pub(super) use crate::informer::shared_informer::{
    DeleteObject, InformerConfig, ResourceEventHandler, SharedIndexInformer,
};
pub(super) use crate::informer::thread_safe_store::ThreadSafeStore;
pub(super) use crate::informer::workqueue::RateLimitingQueue;
pub(super) use crate::process::{cpu_time, peak_rss_bytes, reset_peak_rss, rss_bytes};
pub(super) use crate::render;
pub(super) use crate::runtime::next_key_batch;
pub(super) use crate::selector::LabelSelector;
pub(super) use crate::ui::action::{Action, Effect, ObjectSummary, ViewId};
pub(super) use crate::ui::table::SortBy;
pub(super) use crate::ui::table::rows_for_keys;
pub(super) use crate::ui::{App, AppConfig, KeyMap};

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
    /// The child demo server's send rates for list and watch bodies (`None`: unlimited).
    pub server_mbps: Option<ServerMbps>,
    /// Clusters of the fleet figures (`--clusters N`; 1: none), see the `fleet` figures.
    pub clusters: usize,
    /// The encoding the informer figures ask for (`--wire`; the wire figures measure both).
    pub wire: crate::informer::pb::client::WireFormat,
}

/// The child demo server's send rates, MB/s (`--server-mbps JSON[,PROTOBUF]`): a real
/// kube-apiserver encodes each object at request time, protobuf faster than JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerMbps {
    pub json: u64,
    /// Protobuf bodies' rate; JSON's when not given.
    pub protobuf: Option<u64>,
}

impl ServerMbps {
    /// `58` (both encodings) or `58,70` (JSON, protobuf).
    pub fn parse(s: &str) -> Result<ServerMbps, String> {
        let num = |v: &str| {
            v.trim()
                .parse::<u64>()
                .map_err(|e| format!("{v:?}: {e} (want MB/s: JSON[,PROTOBUF], e.g. 58,70)"))
        };
        match s.split_once(',') {
            None => Ok(ServerMbps {
                json: num(s)?,
                protobuf: None,
            }),
            Some((j, p)) => Ok(ServerMbps {
                json: num(j)?,
                protobuf: Some(num(p)?),
            }),
        }
    }

    /// Protobuf bodies' rate, MB/s.
    pub fn protobuf(&self) -> u64 {
        self.protobuf.unwrap_or(self.json)
    }
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
    /// With `--clusters N`: N clusters synced together vs one, RSS, merged label filter.
    Fleet,
    /// Figure 8: the xray owner tree built from the indexes.
    Xray,
    /// Figure 9: per-object history's cost on the sync and event paths.
    History,
    /// Figure 10: first rows and all rows on screen while the pods list streams.
    Listing,
    /// Figure 11: the App's frame, sort, filter and idle costs at 10k, 100k, 150k and 300k pods.
    Scale,
    /// Figure 12: bytes per cached ReplicaSet, Event, ConfigMap and Secret (N = the first
    /// `--pods` count of each).
    Kinds,
    /// Figure 13: many kinds and names: discovery with 300 CRDs (cold and warm disk cache), `:`
    /// completion over 1,000 names, `:ns` with 2,000 namespaces, 5,000 nodes.
    Names,
}

impl BenchOptions {
    pub(super) fn wants(&self, group: FigureGroup) -> bool {
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
    pub(super) fn fig(
        &mut self,
        section: &str,
        name: &str,
        value: String,
        target: &str,
        verdict: Verdict,
    ) {
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

pub(super) fn verdict(ok: bool) -> Verdict {
    if ok { Verdict::Pass } else { Verdict::Miss }
}

pub(super) fn machine_header(report: &mut Report) {
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

pub(super) fn median(v: &mut [Duration]) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort();
    v[v.len() / 2]
}

pub(super) fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

pub(super) fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

pub(super) fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

pub(super) fn mib(b: u64) -> String {
    format!("{:.1} MiB", b as f64 / 1024.0 / 1024.0)
}

pub(super) async fn wait_until(
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

// Entry point
