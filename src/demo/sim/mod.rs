//! The demo cluster's churn simulator: a deterministic model of a busy Kubernetes cluster that
//! emits [`Mutation`]s for the demo server to apply.
//!
//! It plays the part of the controllers and kubelets of a real cluster: the deployment controller
//! (rollouts create a ReplicaSet with a new pod-template-hash and move pods over), the ReplicaSet /
//! StatefulSet / DaemonSet / Job controllers (pods are replaced when deleted), the scheduler
//! (pods get a `spec.nodeName`), kubelets (Pending → ContainerCreating → Running, crash loops with
//! a rising restartCount and `lastState`), the node lifecycle controller (nodes go NotReady and come
//! back) and the event recorder (core/v1 Events, aggregated by count, deleted when old).
//!
//! Invariants kept:
//! - determinism: the output depends only on [`SimConfig`] (seed and start time included) and the
//!   sequence of calls (`seed_mutations`, `tick`, `rejected`); no wall clock, no `HashMap`
//!   iteration order is ever observable (maps are only used for lookups);
//! - every Update/Delete the simulator emits targets an object it created and has not deleted
//!   (and that was not reported through [`Simulator::rejected`]);
//! - every pod has exactly one controller ownerReference naming an object the model holds;
//!   every ReplicaSet is owned by a Deployment the model holds;
//! - a pod's restartCount never decreases;
//! - `seed_mutations` creates exactly `pods` pods, `nodes` nodes and `namespaces` namespaces
//!   (namespaces and nodes at least 2 and 1).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::{Map, Value};

use super::mutation::{Mutation, ResourceId};
use super::objects::{
    self, AppFlavor, CONFIGMAPS, CRDS, DAEMONSETS, DEPLOYMENTS, EVENTS, JOBS, LastTermination,
    NAMESPACES, NODES, NodeInfo, PODS, PodStage, PodTemplate, REPLICASETS, ReplicaCounts, SECRETS,
    SERVICEACCOUNTS, SERVICES, STATEFULSETS, WIDGETS, WidgetInfo,
};

mod bookkeeping;
mod catalog;
mod churn;
mod events;
mod helm;
mod render;
mod rollout;
mod seed;
#[cfg(test)]
mod tests;

use events::render_event;

/// Size, seed and flavour of the simulated cluster.
#[derive(Debug, Clone)]
pub struct SimConfig {
    /// Pods that exist after seeding (exactly); churn keeps the count near it.
    pub pods: usize,
    /// Nodes (at least 1; 3 become control-plane nodes from 6 nodes on).
    pub nodes: usize,
    /// Namespaces, including `default` and `kube-system` (at least 2).
    pub namespaces: usize,
    pub seed: u64,
    /// The simulated clock's start: seeded objects are older than this, churn happens after it.
    /// Defaults to a fixed instant so that `Default` is deterministic; a live demo sets it to now.
    pub start: DateTime<Utc>,
    /// How much simulated time one simulated change takes (keeps timestamps moving).
    pub step_millis: u64,
    /// Fraction of pods that crash-loop.
    pub crash_fraction: f64,
    /// Events kept before the oldest are deleted (the API server's event TTL, by count).
    pub max_events: usize,
    /// Widget custom resources created at seed.
    pub widgets: usize,
    /// How pods are rendered (see [`crate::demo::realistic`]).
    pub pod_shape: crate::demo::realistic::PodShape,
}

impl Default for SimConfig {
    fn default() -> Self {
        Self {
            pods: 1_000,
            nodes: 12,
            namespaces: 12,
            seed: 1,
            start: Utc
                .with_ymd_and_hms(2026, 1, 1, 12, 0, 0)
                .single()
                .unwrap_or(DateTime::<Utc>::UNIX_EPOCH),
            step_millis: 250,
            crash_fraction: 0.02,
            max_events: 3_000,
            widgets: 12,
            pod_shape: crate::demo::realistic::PodShape::Compact,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WKind {
    Deployment,
    StatefulSet,
    DaemonSet,
    Job,
    /// Mirror pods of static pods (owned by their Node).
    Static,
}

/// A set of identical pods owned by one controller object: a ReplicaSet of a Deployment, or the
/// single set of a StatefulSet / DaemonSet / Job / static pod.
#[derive(Debug)]
struct PodSet {
    id: u32,
    /// ReplicaSet name (the workload's name for non-deployments).
    name: Arc<str>,
    uid: Arc<str>,
    hash: String,
    revision: u32,
    template: Arc<PodTemplate>,
    /// The template's labels and pod spec, rendered once.
    rendered: Arc<objects::RenderedTemplate>,
    image_id: String,
    /// Desired pods of this set.
    replicas: u32,
    /// Names of the pods the model holds for this set, oldest first.
    pods: Vec<Arc<str>>,
    created: i64,
    generation: i64,
    /// The pod template exactly as a client wrote it (`kubectl rollout restart`, `set image`,
    /// edit), rendered verbatim in the workload's, ReplicaSet's and pods' specs; `None` for the
    /// simulator's own templates.
    client_template: Option<Arc<Value>>,
}

#[derive(Debug)]
struct Workload {
    kind: WKind,
    ns: Arc<str>,
    name: Arc<str>,
    uid: Arc<str>,
    created: i64,
    /// Desired replicas (deployments, statefulsets) or completions (jobs).
    replicas: u32,
    generation: i64,
    /// Image repository and version (major, minor, patch); rollouts bump the version.
    repo: String,
    tag_prefix: &'static str,
    version: (u32, u32, u32),
    /// Sets, oldest first; the last is the current one.
    sets: Vec<PodSet>,
    next_set_id: u32,
    alive: bool,
    rolling: bool,
    available_since: i64,
    progressing_since: i64,
    /// Node of a static pod.
    node: Option<u32>,
    /// Job completion time.
    completed: Option<i64>,
}

impl Workload {
    fn image(&self) -> String {
        let (a, b, c) = self.version;
        format!("{}:{}{a}.{b}.{c}", self.repo, self.tag_prefix)
    }
    fn current(&self) -> Option<&PodSet> {
        self.sets.last()
    }
    fn set(&self, id: u32) -> Option<&PodSet> {
        self.sets.iter().find(|s| s.id == id)
    }
    fn set_mut(&mut self, id: u32) -> Option<&mut PodSet> {
        self.sets.iter_mut().find(|s| s.id == id)
    }
}

#[derive(Debug)]
struct Pod {
    ns: Arc<str>,
    name: Arc<str>,
    uid: Arc<str>,
    workload: u32,
    set: u32,
    node: Option<u32>,
    /// The node a DaemonSet / static pod is made for (its scheduling target).
    target_node: Option<u32>,
    ip: Option<String>,
    created: i64,
    scheduled: i64,
    started: i64,
    stage: PodStage,
    restarts: u32,
    crashy: bool,
    last: Option<LastTermination>,
    container_id: String,
    ordinal: Option<u32>,
}

#[derive(Debug)]
struct NodeSlot {
    info: NodeInfo,
    alive: bool,
    /// Cordoned by a client (`spec.unschedulable`): the scheduler places no new pod here.
    cordoned: bool,
    next_ip: u32,
}

#[derive(Debug)]
struct Ev {
    ns: Arc<str>,
    name: String,
    uid: String,
    involved: (
        &'static str,
        &'static str,
        Arc<str>,
        Arc<str>,
        Option<String>,
    ),
    reason: &'static str,
    message: String,
    warning: bool,
    count: u32,
    first: i64,
    last: i64,
    component: &'static str,
    host: Option<String>,
}

/// One entry of the seed plan, rendered when the seed iterator reaches it.
enum Seed {
    Ready(Mutation),
    Pod(usize),
    /// A workload and, for deployments, its ReplicaSets.
    Workload(u32),
    /// An event by "ns/name".
    Event(String),
}

struct SeedOut(Vec<Seed>);

impl SeedOut {
    fn push(&mut self, m: Mutation) {
        self.0.push(Seed::Ready(m));
    }
}

/// Iterator over the seed mutations, see [`Simulator::seed_iter`].
pub struct SeedIter<'a> {
    sim: &'a Simulator,
    plan: std::vec::IntoIter<Seed>,
    buf: VecDeque<Mutation>,
    /// Entries the plan had (see [`SeedIter::progress`]).
    planned: usize,
}

impl SeedIter<'_> {
    /// How far the seed has come: (plan entries taken, plan entries), an entry being an object
    /// or a workload with its ReplicaSets; `(0, 0)` for a simulator seeded before.
    pub fn progress(&self) -> (usize, usize) {
        (self.planned - self.plan.len(), self.planned)
    }
}

impl Iterator for SeedIter<'_> {
    type Item = Mutation;

    fn next(&mut self) -> Option<Mutation> {
        loop {
            if let Some(m) = self.buf.pop_front() {
                return Some(m);
            }
            match self.plan.next()? {
                Seed::Ready(m) => return Some(m),
                Seed::Pod(i) => {
                    if let Some(object) = self.sim.render_pod(i) {
                        return Some(Mutation::Create {
                            resource: PODS,
                            object,
                        });
                    }
                }
                Seed::Workload(w) => {
                    for (resource, object) in self.sim.render_workload(w, true) {
                        self.buf.push_back(Mutation::Create { resource, object });
                    }
                }
                Seed::Event(k) => {
                    if let Some(e) = self.sim.events.get(&k) {
                        return Some(Mutation::Create {
                            resource: EVENTS,
                            object: render_event(e),
                        });
                    }
                }
            }
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.plan.len() + self.buf.len(), None)
    }
}

/// The simulator. See the module docs.
pub struct Simulator {
    cfg: SimConfig,
    rng: SmallRng,
    /// Simulated clock, unix milliseconds.
    now_ms: i64,
    seeded: bool,
    namespaces: Vec<Arc<str>>,
    nodes: Vec<NodeSlot>,
    workloads: Vec<Workload>,
    /// Index of a workload by (plural, "ns/name").
    workload_index: HashMap<(&'static str, String), u32>,
    /// Dense pod storage for O(1) random picks; `pod_index` maps "ns/name" → position.
    pods: Vec<Pod>,
    pod_index: HashMap<String, usize>,
    /// Pods still moving towards Running/Succeeded, in order.
    progress: VecDeque<String>,
    /// Crash-looping pods (may hold stale keys; checked on use).
    crashing: Vec<String>,
    /// Deployments with a rollout in progress.
    rollouts: VecDeque<u32>,
    /// Sets that lost pods through `rejected` and must be topped up: (workload, set id).
    dirty: VecDeque<(u32, u32)>,
    events: HashMap<String, Ev>,
    event_order: VecDeque<String>,
    event_agg: HashMap<(Arc<str>, &'static str), String>,
    event_seq: u64,
    widgets: Vec<Option<WidgetInfo>>,
    /// Other objects created at seed and never changed: (plural, key).
    statics: HashMap<(&'static str, String), ()>,
    pending: VecDeque<Mutation>,
    service_ip: u32,
    /// Nodes `0..control_planes` are control-plane nodes.
    control_planes: usize,
}

fn key(ns: &str, name: &str) -> String {
    let mut k = String::with_capacity(ns.len() + name.len() + 1);
    k.push_str(ns);
    k.push('/');
    k.push_str(name);
    k
}

const SYSTEM_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];
const INFRA_NAMESPACES: [&str; 4] = ["monitoring", "ingress-nginx", "cert-manager", "logging"];
const NAMESPACE_ORDER: [&str; 20] = [
    "default",
    "kube-system",
    "shop",
    "payments",
    "monitoring",
    "kube-public",
    "search",
    "kube-node-lease",
    "ingress-nginx",
    "identity",
    "cert-manager",
    "notifications",
    "data",
    "logging",
    "analytics",
    "ml-serving",
    "inventory",
    "fulfillment",
    "platform",
    "marketing",
];

fn namespace_apps(ns: &str) -> &'static [&'static str] {
    match ns {
        "shop" => &[
            "storefront",
            "cart",
            "checkout",
            "catalog",
            "recommendations",
            "reviews",
            "shipping-quotes",
            "email-sender",
            "order-events-consumer",
            "image-resizer",
        ],
        "payments" => &[
            "payment-gateway",
            "ledger",
            "fraud-detector",
            "invoice-service",
            "refunds-worker",
            "currency-rates",
            "payout-scheduler",
        ],
        "search" => &[
            "search-api",
            "query-router",
            "indexer",
            "autocomplete",
            "ranking-model",
        ],
        "identity" => &["auth-api", "token-service", "user-profile", "oauth-proxy"],
        "notifications" => &[
            "notification-api",
            "push-worker",
            "sms-gateway",
            "digest-mailer",
        ],
        "data" => &["schema-registry", "kafka-connect", "cdc-worker"],
        "analytics" => &["event-collector", "dashboard-api", "sessionizer"],
        "ml-serving" => &["model-server", "feature-store", "embedding-api"],
        "inventory" => &["stock-api", "warehouse-sync", "reservation-worker"],
        "fulfillment" => &["picking-api", "label-printer", "carrier-webhooks"],
        "platform" => &["feature-flags", "config-service", "audit-log"],
        "marketing" => &["campaign-api", "promo-engine", "newsletter-worker"],
        _ => &[],
    }
}

const GENERIC_PREFIXES: [&str; 30] = [
    "user",
    "order",
    "account",
    "billing",
    "pricing",
    "promo",
    "media",
    "geo",
    "audit",
    "report",
    "webhook",
    "export",
    "import",
    "sync",
    "scheduler",
    "gateway",
    "profile",
    "loyalty",
    "content",
    "asset",
    "tax",
    "quote",
    "tracking",
    "routing",
    "chat",
    "feed",
    "ads",
    "consent",
    "survey",
    "partner",
];
const GENERIC_SUFFIXES: [&str; 8] = [
    "api", "worker", "service", "consumer", "web", "grpc", "sync", "cache",
];
const INSTANCE_TYPES: [(&str, u32, u32); 4] = [
    ("m6i.2xlarge", 8, 32),
    ("m6i.4xlarge", 16, 64),
    ("c6i.4xlarge", 16, 32),
    ("r6i.2xlarge", 8, 64),
];
const ZONES: [&str; 3] = ["eu-west-1a", "eu-west-1b", "eu-west-1c"];
const WIDGET_COLORS: [&str; 6] = ["red", "green", "blue", "amber", "violet", "teal"];
const WIDGET_SIZES: [&str; 3] = ["small", "medium", "large"];

fn flavor_of(name: &str) -> AppFlavor {
    if name.ends_with("worker")
        || name.ends_with("consumer")
        || name.ends_with("scheduler")
        || name.ends_with("sync")
        || name == "indexer"
        || name == "sessionizer"
        || name == "digest-mailer"
        || name == "email-sender"
        || name == "cdc-worker"
    {
        AppFlavor::Worker
    } else {
        AppFlavor::Http
    }
}

/// Inputs of a template, to keep `make_template` readable.
struct TemplateSpec<'a> {
    ns: &'a str,
    app: &'a str,
    container: &'a str,
    image: String,
    flavor: AppFlavor,
    labels: Vec<(String, String)>,
    service_account: String,
    config_map: Option<String>,
    secret: Option<String>,
}

impl Simulator {
    pub fn new(cfg: SimConfig) -> Simulator {
        let rng = SmallRng::seed_from_u64(cfg.seed);
        let now_ms = cfg.start.timestamp_millis();
        Simulator {
            cfg,
            rng,
            now_ms,
            seeded: false,
            namespaces: Vec::new(),
            nodes: Vec::new(),
            workloads: Vec::new(),
            workload_index: HashMap::new(),
            pods: Vec::new(),
            pod_index: HashMap::new(),
            progress: VecDeque::new(),
            crashing: Vec::new(),
            rollouts: VecDeque::new(),
            dirty: VecDeque::new(),
            events: HashMap::new(),
            event_order: VecDeque::new(),
            event_agg: HashMap::new(),
            event_seq: 0,
            widgets: Vec::new(),
            statics: HashMap::new(),
            pending: VecDeque::new(),
            service_ip: 20,
            control_planes: 0,
        }
    }

    /// The configuration the simulator runs with.
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// Pods the model currently holds.
    pub fn pod_count(&self) -> usize {
        self.pods.len()
    }

    /// The simulated clock.
    pub fn now(&self) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp_millis(self.now_ms).unwrap_or(self.cfg.start)
    }

    /// Moves the simulated clock forward to `now` (never backwards), e.g. to follow the wall
    /// clock in a live demo. Determinism then depends on the instants given.
    pub fn advance_clock_to(&mut self, now: DateTime<Utc>) {
        self.now_ms = self.now_ms.max(now.timestamp_millis());
    }

    fn now_s(&self) -> i64 {
        self.now_ms.div_euclid(1000)
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p.clamp(0.0, 1.0))
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            self.rng.random_range(0..n)
        }
    }

    fn new_uid(&mut self) -> Arc<str> {
        Arc::from(objects::uid(&mut self.rng))
    }

    fn hex64(&mut self) -> String {
        let a: u128 = self.rng.random();
        let b: u128 = self.rng.random();
        format!("{a:032x}{b:032x}")
    }
}

/// Application pods crash-loop now and then; system and batch pods are left alone.
fn crash_prone(kind: WKind, ns: &str) -> bool {
    matches!(kind, WKind::Deployment | WKind::StatefulSet) && ns != "kube-system"
}

fn wl_ns(workloads: &[Workload], w: u32) -> Arc<str> {
    workloads
        .get(w as usize)
        .map(|wl| wl.ns.clone())
        .unwrap_or_else(|| Arc::from(""))
}

fn wl_node(workloads: &[Workload], w: u32) -> Option<u32> {
    workloads.get(w as usize).and_then(|wl| wl.node)
}

fn plural_of(kind: WKind) -> &'static str {
    match kind {
        WKind::Deployment => DEPLOYMENTS.plural,
        WKind::StatefulSet => STATEFULSETS.plural,
        WKind::DaemonSet => DAEMONSETS.plural,
        WKind::Job => JOBS.plural,
        WKind::Static => "staticpods",
    }
}

/// Splits `repo:v1.2.3` (or `repo:1.2.3-0`) into the repository and a numeric version.
fn split_image(image: &str) -> (&str, (u32, u32, u32)) {
    let (repo, tag) = image.rsplit_once(':').unwrap_or((image, "0.0.0"));
    let mut nums = tag
        .trim_start_matches('v')
        .split(['.', '-'])
        .map(|x| x.parse::<u32>().unwrap_or(0));
    let a = nums.next().unwrap_or(0);
    let b = nums.next().unwrap_or(0);
    let c = nums.next().unwrap_or(0);
    (repo, (a, b, c))
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
