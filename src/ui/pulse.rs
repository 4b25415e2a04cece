//! The pulse screen (`:pulse`): "is the cluster healthy right now", on one screen.
//!
//! Tiles per kind with counts and state breakdowns (pods by phase and not ready, deployments not
//! available, nodes NotReady / cordoned / under pressure, jobs failed), cluster CPU and memory
//! from node metrics against allocatable, a sparkline per informer of deltas per second over the
//! last five minutes, the pods with the most restarts and the latest Warning events. Enter on a
//! tile opens the matching view ([`PulseOpen`]).
//!
//! Everything is kept incrementally from the same rows the informers feed the views with
//! ([`Pulse::apply`] per changed or deleted key, [`Pulse::resync`] after a relist): each cached
//! object's class is remembered by key, and a change moves one count from its old class to its
//! new one. Drawing reads the counters, the top of two ordered sets and the sparkline rings: its
//! cost does not depend on the number of pods. Nothing here does I/O.
//!
//! Invariants:
//! - for every kind, `counts == Σ classes` of the keys currently known (checked in tests against a
//!   recount after random changes);
//! - `restarts` holds exactly the pods with a restart count > 0, `warnings` exactly the known
//!   Warning events;
//! - a rate ring never holds more than [`RATE_WINDOW`] samples.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::Arc;

use serde_json::Value;

use super::action::{CLUSTER_SEP, InformerRow, ObjectSummary};
use crate::render::metrics::{Allocatable, Level, Usage, percent};
use crate::render::pod_phase_reason;

/// Samples (one per second) kept per informer for the sparkline: five minutes.
pub const RATE_WINDOW: usize = 300;
/// Entries [`Pulse::top_restarts`] and [`Pulse::latest_warnings`] give (the screen shows as many
/// as its lists have rows).
pub const TOP_N: usize = 5;

/// The kinds the pulse follows (one informer each, shared with the views).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PulseKind {
    Pods,
    Deployments,
    Nodes,
    Jobs,
    Events,
}

impl PulseKind {
    pub const ALL: [PulseKind; 5] = [
        PulseKind::Pods,
        PulseKind::Deployments,
        PulseKind::Nodes,
        PulseKind::Jobs,
        PulseKind::Events,
    ];

    /// The Kubernetes Kind.
    pub fn kind(self) -> &'static str {
        match self {
            PulseKind::Pods => "Pod",
            PulseKind::Deployments => "Deployment",
            PulseKind::Nodes => "Node",
            PulseKind::Jobs => "Job",
            PulseKind::Events => "Event",
        }
    }

    /// The resource name `:` understands.
    pub fn resource(self) -> &'static str {
        match self {
            PulseKind::Pods => "pods",
            PulseKind::Deployments => "deployments",
            PulseKind::Nodes => "nodes",
            PulseKind::Jobs => "jobs",
            PulseKind::Events => "events",
        }
    }

    pub fn of_kind(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.kind() == kind)
    }
}

/// A pod's phase as the pulse buckets it (from kubectl's STATUS).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PodPhase {
    Running,
    Pending,
    Succeeded,
    Failed,
    Unknown,
}

const PHASES: [PodPhase; 5] = [
    PodPhase::Running,
    PodPhase::Pending,
    PodPhase::Succeeded,
    PodPhase::Failed,
    PodPhase::Unknown,
];

fn phase_of_reason(reason: &str) -> PodPhase {
    match reason {
        "Running" | "Terminating" => PodPhase::Running,
        "Completed" | "Succeeded" => PodPhase::Succeeded,
        "Pending" | "ContainerCreating" | "PodInitializing" | "SchedulingGated" => {
            PodPhase::Pending
        }
        "Unknown" | "" => PodPhase::Unknown,
        r if r.starts_with("Init:") => PodPhase::Pending,
        // CrashLoopBackOff, Error, OOMKilled, ImagePullBackOff, ErrImagePull, Evicted, Failed,
        // ExitCode:N, Signal:N, NotReady...
        _ => PodPhase::Failed,
    }
}

/// What the pulse remembers of one object.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Class {
    Pod {
        phase: PodPhase,
        not_ready: bool,
        restarts: i64,
    },
    Deployment {
        unavailable: bool,
    },
    Node {
        not_ready: bool,
        cordoned: bool,
        pressure: bool,
        alloc: Allocatable,
    },
    Job {
        failed: bool,
        active: bool,
    },
    Event {
        warning: Option<Arc<Warning>>,
    },
}

/// One Warning event line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Unix seconds of `lastTimestamp` / `eventTime` / creation.
    pub at: i64,
    pub reason: String,
    /// `kind/name` of the involved object.
    pub object: String,
    pub message: String,
    pub count: i64,
}

fn condition(data: &Value, type_: &str) -> Option<String> {
    data.pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c.get("type").and_then(Value::as_str) == Some(type_))
        .and_then(|c| c.get("status"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn int(data: &Value, ptr: &str) -> i64 {
    data.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

/// Unix seconds of an RFC 3339 time.
fn unix(t: &Option<std::borrow::Cow<'_, str>>) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(t.as_deref()?)
        .ok()
        .map(|t| t.timestamp())
}

fn classify(kind: PulseKind, s: &ObjectSummary) -> Class {
    let data = &s.object.data;
    match kind {
        PulseKind::Pods => {
            let sum = pod_phase_reason(&s.object);
            let phase = phase_of_reason(&sum.reason);
            Class::Pod {
                phase,
                not_ready: sum.ready < sum.total && sum.reason != "Completed",
                restarts: sum.restarts,
            }
        }
        PulseKind::Deployments => {
            let want = data
                .pointer("/spec/replicas")
                .and_then(Value::as_i64)
                .unwrap_or(1);
            let available = int(data, "/status/availableReplicas");
            Class::Deployment {
                unavailable: available < want
                    || condition(data, "Available").as_deref() == Some("False"),
            }
        }
        PulseKind::Nodes => Class::Node {
            not_ready: condition(data, "Ready").as_deref() != Some("True"),
            cordoned: data
                .pointer("/spec/unschedulable")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            pressure: ["MemoryPressure", "DiskPressure", "PIDPressure"]
                .iter()
                .any(|c| condition(data, c).as_deref() == Some("True")),
            alloc: Allocatable::of_node(data),
        },
        PulseKind::Jobs => Class::Job {
            failed: condition(data, "Failed").as_deref() == Some("True"),
            active: int(data, "/status/active") > 0,
        },
        PulseKind::Events => {
            let e = crate::informer::cached::event(data);
            let warning = (e.type_ == "Warning").then(|| {
                let at = unix(&e.last_timestamp)
                    .or_else(|| unix(&e.event_time))
                    .or_else(|| {
                        s.object
                            .metadata
                            .creation_timestamp
                            .as_ref()
                            .map(|t| t.0.as_second())
                    })
                    .unwrap_or(0);
                let (kind, name) = e
                    .subject
                    .as_ref()
                    .map_or(("", ""), |o| (&*o.kind, &*o.name));
                Arc::new(Warning {
                    at,
                    reason: e.reason.to_string(),
                    object: format!("{}/{name}", kind.to_lowercase()),
                    message: e.message.to_string(),
                    count: e.count.map_or(0, |c| c as i64).max(1),
                })
            });
            Class::Event { warning }
        }
    }
}

/// Counts per kind, kept incrementally.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    pub pods: usize,
    /// Indexed like `PHASES`: Running, Pending, Succeeded, Failed, Unknown.
    pub pods_by_phase: [usize; 5],
    pub pods_not_ready: usize,
    pub deployments: usize,
    pub deployments_unavailable: usize,
    pub nodes: usize,
    pub nodes_not_ready: usize,
    pub nodes_cordoned: usize,
    pub nodes_pressure: usize,
    pub jobs: usize,
    pub jobs_failed: usize,
    pub jobs_active: usize,
    pub events: usize,
    pub warnings: usize,
    /// Σ allocatable over nodes that report it (millicores, bytes).
    pub alloc_cpu_m: u64,
    pub alloc_mem: u64,
}

impl Counts {
    fn add(&mut self, c: &Class, sign: i8) {
        let up = |n: &mut usize, yes: bool| {
            if yes {
                if sign > 0 {
                    *n += 1;
                } else {
                    *n = n.saturating_sub(1);
                }
            }
        };
        match c {
            Class::Pod {
                phase, not_ready, ..
            } => {
                up(&mut self.pods, true);
                let i = PHASES.iter().position(|p| p == phase).unwrap_or(4);
                up(&mut self.pods_by_phase[i], true);
                up(&mut self.pods_not_ready, *not_ready);
            }
            Class::Deployment { unavailable } => {
                up(&mut self.deployments, true);
                up(&mut self.deployments_unavailable, *unavailable);
            }
            Class::Node {
                not_ready,
                cordoned,
                pressure,
                alloc,
            } => {
                up(&mut self.nodes, true);
                up(&mut self.nodes_not_ready, *not_ready);
                up(&mut self.nodes_cordoned, *cordoned);
                up(&mut self.nodes_pressure, *pressure);
                let (cpu, mem) = (alloc.cpu_m.unwrap_or(0), alloc.mem.unwrap_or(0));
                if sign > 0 {
                    self.alloc_cpu_m += cpu;
                    self.alloc_mem += mem;
                } else {
                    self.alloc_cpu_m = self.alloc_cpu_m.saturating_sub(cpu);
                    self.alloc_mem = self.alloc_mem.saturating_sub(mem);
                }
            }
            Class::Job { failed, active } => {
                up(&mut self.jobs, true);
                up(&mut self.jobs_failed, *failed);
                up(&mut self.jobs_active, *active);
            }
            Class::Event { warning } => {
                up(&mut self.events, true);
                up(&mut self.warnings, warning.is_some());
            }
        }
    }
}

/// What Enter on a tile opens: the tile's list filtered to what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PulseOpen {
    /// A name `:` resolves (`pods`, `deployments`, ...).
    pub resource: &'static str,
    /// A row filter for the view (`/` syntax): the events tile's `Warning`.
    pub filter: Option<String>,
    /// Only the faulty rows (`ctrl-z`'s filter: not ready, failing, pending, unavailable).
    pub faults: bool,
}

/// The pulse screen's state.
#[derive(Debug, Clone, Default)]
pub struct Pulse {
    classes: HashMap<(PulseKind, Arc<str>), Class>,
    counts: Counts,
    /// `(restarts, key)` of pods that restarted.
    restarts: BTreeSet<(i64, Arc<str>)>,
    /// `(at, key)` → the Warning event.
    warnings: BTreeMap<(i64, Arc<str>), Arc<Warning>>,
    /// Deltas per second per informer (the App's, copied at each sample).
    pub rates: Rates,
    /// Several clusters (merged feeds, keys under their cluster): each one's counts, and the
    /// current one (the node metrics are its own: the usage tile compares them with its nodes).
    by_cluster: BTreeMap<Arc<str>, Counts>,
    current: Option<Arc<str>>,
    /// Node metrics (by node name), the last poll.
    node_usage: Option<Arc<HashMap<String, Usage>>>,
    /// Why metrics are not shown (said once in the CPU/MEM tile).
    metrics_note: Option<String>,
    /// The selected tile.
    selected: usize,
}

/// Deltas per second per informer over the last [`RATE_WINDOW`] seconds. The App keeps one
/// from its start (the pulse shows the five minutes before it was opened, not only those after),
/// sampled from the informers' stats. Stats are sent only when they change, so a second without
/// any is a second without deltas: it is filled with zeros at the next sample.
///
/// Invariants: at most one sample a second per informer; a ring never holds more than
/// [`RATE_WINDOW`] samples; the samples of a ring add up to the informer's `deltas_total` growth
/// over the seconds they cover.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rates {
    /// Informer label → (last `deltas_total`, per-second deltas, oldest first).
    by_informer: BTreeMap<String, (u64, VecDeque<u64>)>,
    /// The second (unix) of the last sample.
    sampled_at_s: Option<i64>,
}

impl Rates {
    /// Take this second's sample from the informers' stats; false (nothing recorded) when
    /// this second was sampled already: its deltas go into the next sample.
    pub fn record(&mut self, rows: &[InformerRow], now_s: i64) -> bool {
        if self.sampled_at_s == Some(now_s) {
            return false;
        }
        // Seconds between the last sample and this one had no stats, so no deltas.
        let idle = match self.sampled_at_s {
            Some(last) if now_s > last => (now_s - last - 1).min(RATE_WINDOW as i64) as usize,
            _ => 0,
        };
        self.sampled_at_s = Some(now_s);
        for ring in self.by_informer.values_mut() {
            for _ in 0..idle {
                push(&mut ring.1, 0);
            }
        }
        for r in rows {
            let mut label = match &r.namespace {
                Some(ns) => format!("{} ({ns})", r.resource),
                None => r.resource.clone(),
            };
            // A fleet member's informers: the rates per cluster.
            if let Some(c) = &r.cluster {
                label = format!("{label} @{c}");
            }
            let e = self
                .by_informer
                .entry(label)
                .or_insert_with(|| (r.deltas_total, VecDeque::new()));
            let d = r.deltas_total.saturating_sub(e.0);
            e.0 = r.deltas_total;
            push(&mut e.1, d);
        }
        true
    }

    /// Each informer's label and its samples, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &VecDeque<u64>)> {
        self.by_informer.iter().map(|(l, (_, ring))| (l, ring))
    }

    /// How many informers have samples.
    pub fn len(&self) -> usize {
        self.by_informer.len()
    }

    /// No informer has samples yet.
    pub fn is_empty(&self) -> bool {
        self.by_informer.is_empty()
    }

    /// The samples of one informer.
    pub fn ring(&self, label: &str) -> Option<&VecDeque<u64>> {
        self.by_informer.get(label).map(|(_, ring)| ring)
    }
}

fn push(ring: &mut VecDeque<u64>, sample: u64) {
    if ring.len() == RATE_WINDOW {
        ring.pop_front();
    }
    ring.push_back(sample);
}

/// The tiles, in screen order.
pub const TILES: [PulseKind; 5] = PulseKind::ALL;

impl Pulse {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    fn forget(&mut self, kind: PulseKind, key: &Arc<str>) {
        if let Some(old) = self.classes.remove(&(kind, key.clone())) {
            self.counts.add(&old, -1);
            if let Some(c) = self.cluster_counts(key) {
                c.add(&old, -1);
            }
            match old {
                Class::Pod { restarts, .. } if restarts > 0 => {
                    self.restarts.remove(&(restarts, key.clone()));
                }
                Class::Event { warning: Some(w) } => {
                    self.warnings.remove(&(w.at, key.clone()));
                }
                _ => {}
            }
        }
    }

    /// The counts of `key`'s cluster (a merged feed's key), made on first sight.
    fn cluster_counts(&mut self, key: &str) -> Option<&mut Counts> {
        let (cluster, _) = key.split_once(CLUSTER_SEP)?;
        if !self.by_cluster.contains_key(cluster) {
            self.by_cluster
                .insert(Arc::from(cluster), Counts::default());
        }
        self.by_cluster.get_mut(cluster)
    }

    /// Several clusters feed this pulse; `current`'s node metrics are the ones polled.
    pub fn set_current_cluster(&mut self, current: &str) {
        self.current = Some(Arc::from(current));
    }

    /// Each cluster's counts (empty with one cluster).
    pub fn cluster_counts_all(&self) -> &BTreeMap<Arc<str>, Counts> {
        &self.by_cluster
    }

    /// The counts the usage tile compares node metrics with: the current cluster's nodes.
    fn usage_counts(&self) -> &Counts {
        self.current
            .as_ref()
            .and_then(|c| self.by_cluster.get(c))
            .unwrap_or(&self.counts)
    }

    fn remember(&mut self, kind: PulseKind, key: Arc<str>, class: Class) {
        self.counts.add(&class, 1);
        if let Some(c) = self.cluster_counts(&key) {
            c.add(&class, 1);
        }
        match &class {
            Class::Pod { restarts, .. } if *restarts > 0 => {
                self.restarts.insert((*restarts, key.clone()));
            }
            Class::Event { warning: Some(w) } => {
                self.warnings.insert((w.at, key.clone()), w.clone());
            }
            _ => {}
        }
        self.classes.insert((kind, key), class);
    }

    /// Changed objects and deleted keys of one kind (an informer's rows).
    pub fn apply(&mut self, kind: PulseKind, upserts: &[ObjectSummary], deletes: &[Arc<str>]) {
        for key in deletes {
            self.forget(kind, key);
        }
        for s in upserts {
            let class = classify(kind, s);
            if self.classes.get(&(kind, s.key.clone())) == Some(&class) {
                continue;
            }
            self.forget(kind, &s.key);
            self.remember(kind, s.key.clone(), class);
        }
    }

    /// The complete content of one kind (initial sync, relist): keys not in `rows` are gone.
    pub fn resync(&mut self, kind: PulseKind, rows: &[ObjectSummary]) {
        let keep: std::collections::HashSet<&str> = rows.iter().map(|r| &*r.key).collect();
        let gone: Vec<Arc<str>> = self
            .classes
            .keys()
            .filter(|(k, key)| *k == kind && !keep.contains(&**key))
            .map(|(_, key)| key.clone())
            .collect();
        self.apply(kind, rows, &gone);
    }

    /// The latest node metrics.
    pub fn set_node_usage(&mut self, usage: Arc<HashMap<String, Usage>>) {
        self.node_usage = Some(usage);
        self.metrics_note = None;
    }

    /// Metrics are not available, and why.
    pub fn set_metrics_unavailable(&mut self, why: String) {
        self.node_usage = None;
        self.metrics_note = Some(why);
    }

    pub fn selected(&self) -> PulseKind {
        TILES[self.selected.min(TILES.len() - 1)]
    }

    pub fn select_next(&mut self) {
        self.selected = (self.selected + 1) % TILES.len();
    }

    pub fn select_prev(&mut self) {
        self.selected = (self.selected + TILES.len() - 1) % TILES.len();
    }

    /// What Enter on the selected tile opens: its list filtered to what is wrong (pods,
    /// deployments, nodes and jobs: the faulty rows; events: the Warnings), empty when nothing
    /// is.
    pub fn open_selected(&self) -> PulseOpen {
        let kind = self.selected();
        let events = kind == PulseKind::Events;
        PulseOpen {
            resource: kind.resource(),
            filter: events.then(|| "Warning".to_string()),
            faults: !events,
        }
    }

    /// The pods with the most restarts, most first: `(restarts, key)`.
    pub fn top_restarts(&self) -> impl Iterator<Item = &(i64, Arc<str>)> {
        self.restarts.iter().rev().take(TOP_N)
    }

    /// The latest Warning events, newest first.
    pub fn latest_warnings(&self) -> impl Iterator<Item = &Arc<Warning>> {
        self.warnings.values().rev().take(TOP_N)
    }

    /// Cluster CPU (millicores) and memory (bytes) used, from node metrics.
    pub fn cluster_usage(&self) -> Option<Usage> {
        let u = self.node_usage.as_ref()?;
        Some(u.values().fold(Usage::default(), |a, b| Usage {
            cpu_n: a.cpu_n + b.cpu_n,
            mem: a.mem + b.mem,
        }))
    }
}

mod draw;

#[cfg(test)]
mod tests {
    use super::*;
    use kube::api::DynamicObject;
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use serde_json::json;

    fn summary(kind: &str, v: Value) -> ObjectSummary {
        let obj: DynamicObject = serde_json::from_value(v).expect("object");
        ObjectSummary::from_object(kind, &Arc::new(obj), None).expect("summary")
    }

    fn pod(name: &str, phase: &str, ready: bool, restarts: i64) -> ObjectSummary {
        let state = if phase == "Running" {
            json!({"running": {"startedAt": "2026-01-01T00:00:00Z"}})
        } else {
            json!({"waiting": {"reason": "ContainerCreating"}})
        };
        summary(
            "Pod",
            json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "ns"},
                "spec": {"nodeName": "n1", "containers": [{"name": "c"}]},
                "status": {"phase": phase, "containerStatuses": [{"name": "c", "ready": ready,
                    "restartCount": restarts, "state": state}]}}),
        )
    }

    fn node(name: &str, ready: &str, cordoned: bool, pressure: bool) -> ObjectSummary {
        summary(
            "Node",
            json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                "spec": {"unschedulable": cordoned},
                "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                    "conditions": [{"type": "Ready", "status": ready},
                    {"type": "MemoryPressure", "status": if pressure {"True"} else {"False"}}]}}),
        )
    }

    fn warning(name: &str, at: &str, reason: &str) -> ObjectSummary {
        summary(
            "Event",
            json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": name, "namespace": "ns"}, "type": "Warning",
                "reason": reason, "message": "Back-off restarting failed container",
                "lastTimestamp": at, "count": 3,
                "involvedObject": {"kind": "Pod", "name": "web-1"}}),
        )
    }

    /// The counts a full recount gives (the reference the incremental counts must equal).
    fn recount(p: &Pulse) -> Counts {
        let mut c = Counts::default();
        for class in p.classes.values() {
            c.add(class, 1);
        }
        c
    }

    #[test]
    fn counts_follow_changes_incrementally() {
        let mut p = Pulse::new();
        p.resync(
            PulseKind::Pods,
            &[
                pod("a", "Running", true, 0),
                pod("b", "Running", false, 4),
                pod("c", "Pending", false, 0),
            ],
        );
        let c = p.counts();
        assert_eq!((c.pods, c.pods_by_phase[0], c.pods_by_phase[1]), (3, 2, 1));
        assert_eq!(c.pods_not_ready, 2);
        // b becomes ready and restarts again; c is deleted.
        p.apply(
            PulseKind::Pods,
            &[pod("b", "Running", true, 5)],
            &[Arc::from("ns/c")],
        );
        let c = p.counts().clone();
        assert_eq!((c.pods, c.pods_by_phase[1], c.pods_not_ready), (2, 0, 0));
        assert_eq!(c, recount(&p));
        assert_eq!(
            p.top_restarts().cloned().collect::<Vec<_>>(),
            [(5, Arc::from("ns/b"))]
        );
        // A relist without a: a is gone.
        p.resync(PulseKind::Pods, &[pod("b", "Running", true, 5)]);
        assert_eq!(p.counts().pods, 1);
    }

    #[test]
    fn incremental_counts_equal_a_recount_after_random_changes() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut p = Pulse::new();
        for _ in 0..2000 {
            let name = format!("p{}", rng.random_range(0..40));
            if rng.random_bool(0.2) {
                p.apply(PulseKind::Pods, &[], &[Arc::from(format!("ns/{name}"))]);
            } else {
                let phase = ["Running", "Pending"][rng.random_range(0..2)];
                let s = pod(&name, phase, rng.random_bool(0.5), rng.random_range(0..3));
                p.apply(PulseKind::Pods, &[s], &[]);
            }
            let name = format!("n{}", rng.random_range(0..5));
            let s = node(
                &name,
                ["True", "False"][rng.random_range(0..2)],
                rng.random_bool(0.3),
                rng.random_bool(0.3),
            );
            p.apply(PulseKind::Nodes, &[s], &[]);
        }
        assert_eq!(p.counts(), &recount(&p));
        let restarted = p
            .classes
            .values()
            .filter(|c| matches!(c, Class::Pod { restarts, .. } if *restarts > 0))
            .count();
        assert_eq!(p.restarts.len(), restarted);
    }

    #[test]
    fn nodes_count_not_ready_cordoned_pressure_and_allocatable() {
        let mut p = Pulse::new();
        p.resync(
            PulseKind::Nodes,
            &[
                node("n1", "True", false, false),
                node("n2", "False", true, true),
            ],
        );
        let c = p.counts();
        assert_eq!(
            (
                c.nodes,
                c.nodes_not_ready,
                c.nodes_cordoned,
                c.nodes_pressure
            ),
            (2, 1, 1, 1)
        );
        assert_eq!((c.alloc_cpu_m, c.alloc_mem), (8000, 32 << 30));
        p.set_node_usage(Arc::new(HashMap::from([(
            "n1".to_string(),
            Usage {
                cpu_n: 2_000_000_000,
                mem: 1 << 30,
            },
        )])));
        assert_eq!(p.cluster_usage().map(|u| u.cpu_n), Some(2_000_000_000));
    }

    #[test]
    fn tile_navigation_wraps_and_enter_opens_the_list_filtered_to_what_is_wrong() {
        let mut p = Pulse::new();
        assert_eq!(p.selected(), PulseKind::Pods);
        assert_eq!(
            p.open_selected(),
            PulseOpen {
                resource: "pods",
                filter: None,
                faults: true,
            }
        );
        p.select_prev();
        assert_eq!(p.selected(), PulseKind::Events);
        assert_eq!(
            p.open_selected(),
            PulseOpen {
                resource: "events",
                filter: Some("Warning".into()),
                faults: false,
            }
        );
        p.select_next();
        p.select_next();
        p.select_next();
        assert_eq!(p.selected(), PulseKind::Nodes);
        // Filtered whether or not anything is wrong now: an empty list says nothing is.
        assert!(p.open_selected().faults);
        p.resync(PulseKind::Nodes, &[node("n2", "False", false, false)]);
        assert!(p.open_selected().faults);
    }

    fn stats(deltas_total: u64) -> InformerRow {
        InformerRow {
            resource: "pods".into(),
            namespace: None,
            state: crate::ui::action::InformerState::Watching,
            list_mode: "stream",
            wire: "protobuf",
            last_rv: String::new(),
            cached: 0,
            queue_depth: 0,
            deltas_total,
            deltas_per_sec: 3.0,
            relists: 0,
            last_error: None,
            synced: true,
            forbidden: false,
            cluster: None,
            progress: None,
            stale: false,
            history_reset: None,
        }
    }

    #[test]
    fn rate_rings_keep_five_minutes_of_per_second_deltas() {
        let mut rates = Rates::default();
        for i in 0..400u64 {
            assert!(rates.record(&[stats(i * 3)], 1_000 + i as i64));
            // A second sample within the same second is not taken.
            assert!(!rates.record(&[stats(i * 3)], 1_000 + i as i64));
        }
        let ring = rates.ring("pods").unwrap();
        assert_eq!(ring.len(), RATE_WINDOW);
        assert!(ring.iter().all(|d| *d == 3));
    }

    #[test]
    fn seconds_without_stats_are_zero_samples_and_deltas_add_up() {
        let mut rates = Rates::default();
        rates.record(&[stats(100)], 10);
        // No stats for seconds 11..=14 (nothing changed), then 7 deltas by second 15.
        rates.record(&[stats(107)], 15);
        rates.record(&[stats(109)], 16);
        let ring: Vec<u64> = rates.ring("pods").unwrap().iter().copied().collect();
        assert_eq!(ring, [0, 0, 0, 0, 0, 7, 2]);
        assert_eq!(ring.iter().sum::<u64>(), 9);
        // An idle hour leaves a ring of zeros no longer than the window, then the new sample.
        rates.record(&[stats(110)], 16 + 3_600);
        let ring = rates.ring("pods").unwrap();
        assert_eq!(ring.len(), RATE_WINDOW);
        assert_eq!(ring.back(), Some(&1));
        assert_eq!(ring.iter().sum::<u64>(), 1);
    }

    fn screen(p: &Pulse) -> String {
        let area = Rect::new(0, 0, 110, 26);
        let mut buf = Buffer::empty(area);
        p.draw(1_767_225_900, area, &mut buf);
        (0..area.height)
            .map(|y| {
                (0..area.width)
                    .map(|x| buf[(x, y)].symbol())
                    .collect::<String>()
                    .trim_end()
                    .to_string()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn pulse_screen_snapshot() {
        let mut p = Pulse::new();
        p.resync(
            PulseKind::Pods,
            &[
                pod("web-1", "Running", true, 7),
                pod("web-2", "Running", false, 2),
                pod("api-1", "Pending", false, 0),
            ],
        );
        p.resync(
            PulseKind::Nodes,
            &[
                node("n1", "True", false, false),
                node("n2", "False", true, true),
            ],
        );
        p.resync(
            PulseKind::Events,
            &[
                warning("e1", "2026-01-01T00:00:00Z", "BackOff"),
                warning("e2", "2026-01-01T00:04:00Z", "OOMKilling"),
            ],
        );
        for i in 0..60u64 {
            let mut row = stats(i * i);
            row.cached = 3;
            row.deltas_per_sec = 0.0;
            p.rates.record(&[row], i as i64);
        }
        p.set_node_usage(Arc::new(HashMap::from([
            (
                "n1".to_string(),
                Usage {
                    cpu_n: 3_700_000_000,
                    mem: 6 << 30,
                },
            ),
            (
                "n2".to_string(),
                Usage {
                    cpu_n: 3_600_000_000,
                    mem: 2 << 30,
                },
            ),
        ])));
        insta::assert_snapshot!(screen(&p));
        p.set_metrics_unavailable(
            "metrics n/a: metrics.k8s.io is not served (no metrics-server)".into(),
        );
        let s = screen(&p);
        assert!(
            s.contains("metrics n/a: metrics.k8s.io is not served"),
            "{s}"
        );
    }
}
