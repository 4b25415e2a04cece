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

    // -----------------------------------------------------------------------------------------
    // Seeding
    // -----------------------------------------------------------------------------------------

    /// Everything that exists when the cluster starts, in an order a server can apply
    /// (namespaces and the CRD before what lives in them). Calling it twice returns nothing new.
    pub fn seed_mutations(&mut self) -> Vec<Mutation> {
        self.seed_iter().collect()
    }

    /// The same mutations as [`Simulator::seed_mutations`], rendered one at a time: the model is
    /// built first, JSON is made as the iterator is consumed, so a server that stores each object
    /// as it comes never holds the JSON trees of 150k pods at once.
    pub fn seed_iter(&mut self) -> SeedIter<'_> {
        let plan = self.build_seed();
        SeedIter {
            sim: self,
            plan: plan.into_iter(),
            buf: VecDeque::new(),
        }
    }

    fn build_seed(&mut self) -> Vec<Seed> {
        if self.seeded {
            return Vec::new();
        }
        self.seeded = true;
        let start = self.now_s();
        let cluster_created = start - 47 * 86_400 - 3 * 3600 - self.below(86_400) as i64;
        let mut out = SeedOut(Vec::with_capacity(self.cfg.pods * 5 / 4 + 256));

        // Namespaces.
        let count = self.cfg.namespaces.max(2);
        let mut names: Vec<String> = NAMESPACE_ORDER
            .iter()
            .take(count)
            .map(|s| s.to_string())
            .collect();
        let mut team = 1;
        while names.len() < count {
            names.push(format!(
                "team-{}",
                GENERIC_PREFIXES[team % GENERIC_PREFIXES.len()]
            ));
            if team >= GENERIC_PREFIXES.len() {
                let last = names.len() - 1;
                names[last] = format!(
                    "team-{}-{}",
                    GENERIC_PREFIXES[team % GENERIC_PREFIXES.len()],
                    team / GENERIC_PREFIXES.len() + 1
                );
            }
            team += 1;
        }
        for n in &names {
            let created = if SYSTEM_NAMESPACES.contains(&n.as_str()) {
                cluster_created
            } else {
                cluster_created + 3600 + self.below(30 * 86_400) as i64
            };
            let uid = self.new_uid();
            out.push(Mutation::Create {
                resource: NAMESPACES,
                object: objects::namespace(n, &uid, created),
            });
            self.statics.insert((NAMESPACES.plural, n.clone()), ());
            self.namespaces.push(Arc::from(n.as_str()));
        }

        // The demo CRD.
        let crd_uid = self.new_uid();
        out.push(Mutation::Create {
            resource: CRDS,
            object: objects::widget_crd(&crd_uid, cluster_created + 3 * 86_400 + 1234),
        });
        self.statics
            .insert((CRDS.plural, objects::WIDGET_CRD_NAME.to_string()), ());

        // Nodes.
        self.seed_nodes(cluster_created, &mut out);

        // Per-namespace objects every namespace has.
        for ns in self.namespaces.clone() {
            let created = cluster_created + 1;
            let uid = self.new_uid();
            out.push(self.create_static(
                SERVICEACCOUNTS,
                &ns,
                "default",
                objects::serviceaccount(&ns, "default", &uid, created, None),
            ));
            let uid = self.new_uid();
            let mut data = Map::new();
            data.insert("ca.crt".into(), Value::from(objects::ROOT_CA));
            let mut ann = Map::new();
            ann.insert(
                "kubernetes.io/description".into(),
                Value::from("Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."),
            );
            let mut cm = objects::configmap(&ns, "kube-root-ca.crt", &uid, created, None, data);
            if let Some(md) = cm.get_mut("metadata").and_then(Value::as_object_mut) {
                md.insert("annotations".into(), Value::Object(ann));
            }
            out.push(self.create_static(CONFIGMAPS, &ns, "kube-root-ca.crt", cm));
        }
        if self.namespaces.iter().any(|n| &**n == "default") {
            let uid = self.new_uid();
            let mut l = Map::new();
            l.insert("component".into(), Value::from("apiserver"));
            l.insert("provider".into(), Value::from("kubernetes"));
            let svc = objects::service(&objects::ServiceView {
                namespace: "default",
                name: "kubernetes",
                uid: &uid,
                created: cluster_created,
                labels: l,
                selector: None,
                cluster_ip: Some("10.96.0.1"),
                ports: &[(443, 6443, "https", "TCP")],
                service_type: "ClusterIP",
                node_port_base: 0,
            });
            out.push(self.create_static(SERVICES, "default", "kubernetes", svc));
        }

        // Workloads and their pods.
        let mut budget = self.cfg.pods;
        self.seed_system(cluster_created, &mut budget, &mut out);
        self.seed_apps(cluster_created, &mut budget, &mut out);

        // Widgets.
        self.seed_widgets(cluster_created, &mut out);

        // Recent events: what happened to the youngest pods and the crash-loopers.
        self.seed_events(&mut out);
        out.0
    }

    fn create_static(
        &mut self,
        resource: ResourceId,
        ns: &str,
        name: &str,
        object: Value,
    ) -> Mutation {
        self.statics.insert((resource.plural, key(ns, name)), ());
        Mutation::Create { resource, object }
    }

    fn seed_nodes(&mut self, cluster_created: i64, out: &mut SeedOut) {
        let n = self.cfg.nodes.max(1);
        let cps = if n >= 6 {
            3
        } else if n >= 2 {
            1
        } else {
            0
        };
        self.control_planes = cps;
        let workers = (n - cps).max(1);
        let per_worker = self.cfg.pods.div_ceil(workers);
        let max_pods = if per_worker > 100 {
            (per_worker as u32 * 5 / 4).max(250)
        } else {
            110
        };
        for i in 0..n {
            let control_plane = i < cps;
            let zone_idx = i % ZONES.len();
            let third = zone_idx * 64 + (i / 250) % 64;
            let fourth = i % 250 + 4;
            let ip = format!("10.0.{third}.{fourth}");
            let name = format!("ip-10-0-{third}-{fourth}.eu-west-1.compute.internal");
            let (itype, cpu, mem) = if control_plane {
                ("m6i.xlarge", 4, 16)
            } else {
                INSTANCE_TYPES[self.below(INSTANCE_TYPES.len())]
            };
            let created = if control_plane {
                cluster_created - 120
            } else {
                cluster_created + 600 + self.below(40 * 86_400) as i64
            };
            let uid = self.new_uid();
            let machine = self.hex64();
            let info = NodeInfo {
                name,
                uid: uid.to_string(),
                created,
                control_plane,
                zone: ZONES[zone_idx],
                region: "eu-west-1",
                instance_type: itype,
                cpu,
                memory_gi: mem,
                max_pods: if control_plane { 110 } else { max_pods },
                internal_ip: ip,
                pod_cidr: format!("10.{}.{}.0/24", 64 + i / 256, i % 256),
                ready: true,
                memory_pressure: false,
                disk_pressure: false,
                ready_since: created + 25,
                pressure_since: created + 5,
                heartbeat: self.now_s() - self.below(40) as i64,
                machine_id: machine[..32].to_string(),
                kernel: "6.8.0-1024-aws",
            };
            out.push(Mutation::Create {
                resource: NODES,
                object: objects::node(&info),
            });
            self.nodes.push(NodeSlot {
                info,
                alive: true,
                next_ip: 2,
            });
        }
    }

    fn pick_worker(&mut self) -> Option<u32> {
        let cps = self.control_planes;
        let workers = self.nodes.len() - cps;
        for _ in 0..8 {
            let i = if workers > 0 {
                cps + self.below(workers)
            } else {
                self.below(self.nodes.len())
            };
            if self.nodes.get(i).is_some_and(|n| n.alive && n.info.ready) {
                return Some(i as u32);
            }
        }
        self.nodes
            .iter()
            .position(|n| n.alive && n.info.ready && !n.info.control_plane)
            .or_else(|| self.nodes.iter().position(|n| n.alive))
            .map(|i| i as u32)
    }

    fn next_pod_ip(&mut self, node: u32) -> Option<String> {
        let slot = self.nodes.get_mut(node as usize)?;
        let host = slot.next_ip;
        slot.next_ip = if slot.next_ip >= 254 {
            2
        } else {
            slot.next_ip + 1
        };
        let i = node as usize;
        Some(format!("10.{}.{}.{host}", 64 + i / 256, i % 256))
    }

    fn next_cluster_ip(&mut self) -> String {
        self.service_ip += 1;
        let n = self.service_ip;
        format!(
            "10.{}.{}.{}",
            96 + n / 65_536 % 16,
            (n / 256) % 256,
            n % 256
        )
    }

    fn make_template(&mut self, t: TemplateSpec<'_>) -> PodTemplate {
        let (cpu, mem, mem_limit, cpu_limit): (&str, &str, &str, Option<&str>) = match t.flavor {
            AppFlavor::Database => ("500m", "1Gi", "2Gi", None),
            AppFlavor::Agent | AppFlavor::ControlPlane => ("100m", "128Mi", "256Mi", None),
            AppFlavor::Batch => ("250m", "256Mi", "512Mi", None),
            AppFlavor::Worker => {
                const W: [(&str, &str, &str); 3] = [
                    ("100m", "128Mi", "256Mi"),
                    ("200m", "256Mi", "512Mi"),
                    ("250m", "512Mi", "1Gi"),
                ];
                let (a, b, c) = W[self.below(W.len())];
                (a, b, c, None)
            }
            AppFlavor::Http => {
                const H: [(&str, &str, &str, Option<&str>); 4] = [
                    ("50m", "64Mi", "128Mi", None),
                    ("100m", "128Mi", "256Mi", None),
                    ("250m", "256Mi", "512Mi", Some("1")),
                    ("500m", "512Mi", "512Mi", Some("500m")),
                ];
                H[self.below(H.len())]
            }
        };
        let port = match t.flavor {
            AppFlavor::Http => Some((8080, "http")),
            AppFlavor::Database => Some((5432, "tcp")),
            AppFlavor::Agent => Some((9100, "metrics")),
            AppFlavor::Worker | AppFlavor::Batch | AppFlavor::ControlPlane => None,
        };
        let log_level = if self.chance(0.2) { "debug" } else { "info" };
        let mut env = vec![
            ("LOG_LEVEL".to_string(), log_level.to_string()),
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT".to_string(),
                "http://otel-collector.monitoring:4317".to_string(),
            ),
        ];
        if t.flavor == AppFlavor::Http {
            env.push(("PORT".to_string(), "8080".to_string()));
        }
        if t.flavor == AppFlavor::Worker {
            env.push((
                "KAFKA_BROKERS".to_string(),
                "kafka-0.kafka.data:9092,kafka-1.kafka.data:9092".to_string(),
            ));
        }
        let _ = t.ns;
        PodTemplate {
            app: t.app.to_string(),
            container: t.container.to_string(),
            image: t.image,
            port,
            flavor: t.flavor,
            cpu_request: cpu,
            memory_request: mem,
            memory_limit: mem_limit,
            cpu_limit,
            service_account: t.service_account,
            host_network: false,
            priority_class: None,
            config_map: t.config_map,
            secret: t.secret,
            env,
            labels: t.labels,
        }
    }

    /// Registers a workload (no pods yet) and returns its index.
    #[allow(clippy::too_many_arguments)]
    fn add_workload(
        &mut self,
        kind: WKind,
        ns: &str,
        name: &str,
        created: i64,
        replicas: u32,
        repo: &str,
        tag_prefix: &'static str,
        version: (u32, u32, u32),
        template: PodTemplate,
    ) -> u32 {
        let uid = self.new_uid();
        let idx = self.workloads.len() as u32;
        let mut w = Workload {
            kind,
            ns: Arc::from(ns),
            name: Arc::from(name),
            uid: uid.clone(),
            created,
            replicas,
            generation: 1,
            repo: repo.to_string(),
            tag_prefix,
            version,
            sets: Vec::new(),
            next_set_id: 0,
            alive: true,
            rolling: false,
            available_since: created + 30,
            progressing_since: created,
            node: None,
            completed: None,
        };
        let image_id = format!(
            "{}@sha256:{}",
            repo.split(':').next().unwrap_or(repo),
            self.hex64()
        );
        let hash = objects::template_hash(&mut self.rng);
        let (set_name, set_uid) = if kind == WKind::Deployment {
            (Arc::from(format!("{name}-{hash}").as_str()), self.new_uid())
        } else {
            (w.name.clone(), uid)
        };
        w.sets.push(PodSet {
            id: 0,
            name: set_name,
            uid: set_uid,
            hash,
            revision: 1,
            rendered: Arc::new(objects::RenderedTemplate::new(&template)),
            template: Arc::new(template),
            image_id,
            replicas,
            pods: Vec::new(),
            created,
            generation: 1,
        });
        w.next_set_id = 1;
        let plural = plural_of(kind);
        self.workload_index.insert((plural, key(ns, name)), idx);
        self.workloads.push(w);
        idx
    }

    /// Gives an existing deployment `old` older revisions (ReplicaSets scaled to zero), as a
    /// cluster that has seen rollouts has.
    fn add_history(&mut self, w: u32, old: u32) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if wl.kind != WKind::Deployment || old == 0 {
            return;
        }
        let (name, created, repo, prefix, (ma, mi, pa)) = (
            wl.name.clone(),
            wl.created,
            wl.repo.clone(),
            wl.tag_prefix,
            wl.version,
        );
        let Some(cur) = wl.current() else { return };
        let template = (*cur.template).clone();
        let mut history = Vec::new();
        let span = (self.now_ms / 1000 - created).max(2 * i64::from(old) + 2);
        for r in 0..old {
            let created = created + span / 2 * i64::from(r) / i64::from(old);
            let back = old - r;
            let version = (ma, mi.saturating_sub(back / 2), pa + back);
            let mut t = template.clone();
            t.image = format!("{repo}:{prefix}{}.{}.{}", version.0, version.1, version.2);
            let hash = objects::template_hash(&mut self.rng);
            let uid = self.new_uid();
            let image_id = format!("{repo}@sha256:{}", self.hex64());
            history.push(PodSet {
                id: r,
                name: Arc::from(format!("{name}-{hash}").as_str()),
                uid,
                hash,
                revision: r + 1,
                rendered: Arc::new(objects::RenderedTemplate::new(&t)),
                template: Arc::new(t),
                image_id,
                replicas: 0,
                pods: Vec::new(),
                created,
                generation: 3,
            });
        }
        if let Some(wl) = self.workloads.get_mut(w as usize) {
            let span = (self.now_ms / 1000 - wl.created).max(1);
            if let Some(cur) = wl.sets.last_mut() {
                cur.id = old;
                cur.revision = old + 1;
                cur.created = wl.created + span / 2;
            }
            wl.next_set_id = old + 1;
            wl.generation = i64::from(old) + 1;
            history.append(&mut wl.sets);
            wl.sets = history;
            wl.progressing_since = wl.created + span / 2;
        }
    }

    /// Creates `count` pods for the current set of workload `w` at seed time.
    fn seed_pods(&mut self, w: u32, count: u32, out: &mut SeedOut) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let kind = wl.kind;
        let set_created = wl.current().map(|s| s.created).unwrap_or(wl.created);
        let Some(set_id) = wl.current().map(|s| s.id) else {
            return;
        };
        let now = self.now_s();
        for i in 0..count {
            let node = match kind {
                WKind::DaemonSet => Some(i),
                WKind::Static => wl_node(&self.workloads, w),
                _ => self.pick_worker(),
            };
            let age_span = (now - set_created).max(60);
            let created =
                set_created + 20 + self.below(age_span as usize).min(age_span as usize) as i64 / 2;
            let created = created.min(now - 30);
            let roll = self.rng.random::<f64>();
            let crashy =
                crash_prone(kind, &wl_ns(&self.workloads, w)) && roll < self.cfg.crash_fraction;
            let stage = if kind == WKind::Job {
                PodStage::Succeeded
            } else if crashy {
                PodStage::CrashLoopBackOff
            } else if roll < self.cfg.crash_fraction + 0.004 {
                PodStage::ContainerCreating
            } else {
                PodStage::Running
            };
            // Pods still starting were created moments ago.
            let created = if stage == PodStage::ContainerCreating {
                now - 3 - self.below(40) as i64
            } else {
                created
            };
            let ordinal = matches!(kind, WKind::StatefulSet).then_some(i);
            let idx = self.insert_pod(w, set_id, node, created, stage, ordinal);
            let restarts = 3 + self.below(37) as u32;
            if let Some(p) = idx.and_then(|i| self.pods.get_mut(i)) {
                p.scheduled = created + 1;
                p.started = created + 4 + (i64::from(i) % 7);
                if crashy {
                    p.restarts = restarts;
                    p.crashy = true;
                    p.last = Some(LastTermination {
                        exit_code: 1,
                        reason: "Error",
                        started: now - 95,
                        finished: now - 62,
                    });
                }
                if kind == WKind::Job {
                    p.started = created + 40 + (i64::from(i) % 50);
                }
            }
            if let Some(i) = idx {
                let k = key(&self.pods[i].ns, &self.pods[i].name);
                if crashy {
                    self.crashing.push(k.clone());
                }
                if stage == PodStage::ContainerCreating {
                    self.progress.push_back(k);
                }
                out.0.push(Seed::Pod(i));
            }
        }
    }

    /// Adds a pod to the model (node assigned, IP allocated) and returns its position.
    fn insert_pod(
        &mut self,
        w: u32,
        set_id: u32,
        node: Option<u32>,
        created: i64,
        stage: PodStage,
        ordinal: Option<u32>,
    ) -> Option<usize> {
        let wl = self.workloads.get(w as usize)?;
        let set = wl.set(set_id)?;
        let ns = wl.ns.clone();
        let (kind, wname, set_name) = (wl.kind, wl.name.clone(), set.name.clone());
        let host_network = set.template.host_network;
        let name: Arc<str> = match kind {
            WKind::Deployment => {
                let base = set_name;
                loop {
                    let s = objects::suffix(&mut self.rng, 5);
                    let n = format!("{base}-{s}");
                    if !self.pod_index.contains_key(&key(&ns, &n)) {
                        break Arc::from(n.as_str());
                    }
                }
            }
            WKind::StatefulSet => Arc::from(format!("{wname}-{}", ordinal.unwrap_or(0)).as_str()),
            WKind::Static => {
                let node_name = node
                    .and_then(|n| self.nodes.get(n as usize))
                    .map(|n| n.info.name.clone())
                    .unwrap_or_default();
                Arc::from(format!("{wname}-{node_name}").as_str())
            }
            WKind::DaemonSet | WKind::Job => {
                let base = wname;
                loop {
                    let s = objects::suffix(&mut self.rng, 5);
                    let n = format!("{base}-{s}");
                    if !self.pod_index.contains_key(&key(&ns, &n)) {
                        break Arc::from(n.as_str());
                    }
                }
            }
        };
        let k = key(&ns, &name);
        if self.pod_index.contains_key(&k) {
            return None;
        }
        let uid = self.new_uid();
        let ip = match (node, stage) {
            (_, PodStage::Pending) | (None, _) => None,
            (Some(n), _) if host_network => self
                .nodes
                .get(n as usize)
                .map(|s| s.info.internal_ip.clone()),
            (Some(n), _) => self.next_pod_ip(n),
        };
        let container_id = format!("containerd://{}", self.hex64());
        let pod = Pod {
            ns,
            name: name.clone(),
            uid,
            workload: w,
            set: set_id,
            node: if stage == PodStage::Pending {
                None
            } else {
                node
            },
            target_node: node,
            ip,
            created,
            scheduled: created + 1,
            started: created + 5,
            stage,
            restarts: 0,
            crashy: false,
            last: None,
            container_id,
            ordinal,
        };
        let pos = self.pods.len();
        self.pods.push(pod);
        self.pod_index.insert(k, pos);
        if let Some(set) = self
            .workloads
            .get_mut(w as usize)
            .and_then(|wl| wl.set_mut(set_id))
        {
            set.pods.push(name);
        }
        Some(pos)
    }

    fn seed_system(&mut self, cc: i64, budget: &mut usize, out: &mut SeedOut) {
        let n_nodes = self.nodes.len();
        let cps: Vec<u32> = (0..n_nodes as u32)
            .filter(|&i| self.nodes[i as usize].info.control_plane)
            .collect();
        let static_pods = cps.len() * 4;
        let ds_pods = n_nodes * 2;
        let has = |s: &Self, ns: &str| s.namespaces.iter().any(|n| &**n == ns);
        // Only clusters with room for their system pods get them (tiny test configs may not).
        if *budget >= static_pods + ds_pods + 4 && *budget >= 2 * (static_pods + ds_pods) {
            for (i, &node) in cps.iter().enumerate() {
                for (comp, image, cpu) in [
                    ("etcd", "registry.k8s.io/etcd:3.5.21-0", "100m"),
                    (
                        "kube-apiserver",
                        "registry.k8s.io/kube-apiserver:v1.33.4",
                        "250m",
                    ),
                    (
                        "kube-controller-manager",
                        "registry.k8s.io/kube-controller-manager:v1.33.4",
                        "200m",
                    ),
                    (
                        "kube-scheduler",
                        "registry.k8s.io/kube-scheduler:v1.33.4",
                        "100m",
                    ),
                ] {
                    let mut t = self.system_template(
                        comp,
                        image,
                        vec![
                            ("component".into(), comp.into()),
                            ("tier".into(), "control-plane".into()),
                        ],
                    );
                    t.host_network = true;
                    t.flavor = AppFlavor::ControlPlane;
                    t.priority_class = Some("system-node-critical");
                    t.cpu_request = cpu;
                    t.port = None;
                    let (repo, ver) = split_image(image);
                    let w = self.add_workload(
                        WKind::Static,
                        "kube-system",
                        comp,
                        cc - 60 + i as i64,
                        1,
                        repo,
                        "",
                        ver,
                        t,
                    );
                    if let Some(wl) = self.workloads.get_mut(w as usize) {
                        wl.node = Some(node);
                    }
                    self.seed_pods(w, 1, out);
                }
            }
            *budget -= static_pods;
            for (name, image, labels) in [
                (
                    "kube-proxy",
                    "registry.k8s.io/kube-proxy:v1.33.4",
                    vec![("k8s-app".to_string(), "kube-proxy".to_string())],
                ),
                (
                    "calico-node",
                    "docker.io/calico/node:v3.29.3",
                    vec![("k8s-app".to_string(), "calico-node".to_string())],
                ),
            ] {
                let mut t = self.system_template(name, image, labels);
                t.host_network = true;
                t.flavor = AppFlavor::Agent;
                t.priority_class = Some("system-node-critical");
                let (repo, ver) = split_image(image);
                let w = self.add_workload(
                    WKind::DaemonSet,
                    "kube-system",
                    name,
                    cc + 30,
                    n_nodes as u32,
                    repo,
                    "v",
                    ver,
                    t,
                );
                out.0.push(Seed::Workload(w));
                self.seed_pods(w, n_nodes as u32, out);
            }
            *budget -= ds_pods;
            for (name, image, replicas, labels) in [
                (
                    "coredns",
                    "registry.k8s.io/coredns/coredns:v1.12.0",
                    2u32,
                    vec![("k8s-app".to_string(), "kube-dns".to_string())],
                ),
                (
                    "metrics-server",
                    "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
                    1,
                    vec![("k8s-app".to_string(), "metrics-server".to_string())],
                ),
                (
                    "calico-kube-controllers",
                    "docker.io/calico/kube-controllers:v3.29.3",
                    1,
                    vec![("k8s-app".to_string(), "calico-kube-controllers".to_string())],
                ),
            ] {
                if *budget < replicas as usize {
                    break;
                }
                let mut t = self.system_template(name, image, labels);
                t.priority_class = Some("system-cluster-critical");
                t.flavor = AppFlavor::Http;
                t.port = Some((
                    if name == "coredns" { 53 } else { 10250 },
                    if name == "coredns" { "dns" } else { "https" },
                ));
                let (repo, ver) = split_image(image);
                let w = self.add_workload(
                    WKind::Deployment,
                    "kube-system",
                    name,
                    cc + 40,
                    replicas,
                    repo,
                    "v",
                    ver,
                    t,
                );
                out.0.push(Seed::Workload(w));
                self.seed_pods(w, replicas, out);
                *budget -= replicas as usize;
                if name == "coredns" {
                    let uid = self.new_uid();
                    let mut sel = Map::new();
                    sel.insert("k8s-app".into(), Value::from("kube-dns"));
                    let svc = objects::service(&objects::ServiceView {
                        namespace: "kube-system",
                        name: "kube-dns",
                        uid: &uid,
                        created: cc + 40,
                        labels: objects::labels([
                            ("k8s-app", "kube-dns"),
                            ("kubernetes.io/name", "CoreDNS"),
                        ]),
                        selector: Some(sel),
                        cluster_ip: Some("10.96.0.10"),
                        ports: &[
                            (53, 53, "dns", "UDP"),
                            (53, 53, "dns-tcp", "TCP"),
                            (9153, 9153, "metrics", "TCP"),
                        ],
                        service_type: "ClusterIP",
                        node_port_base: 0,
                    });
                    out.push(self.create_static(SERVICES, "kube-system", "kube-dns", svc));
                }
            }
            // Daemonset agents of infra namespaces.
            for (ns, name, image) in [
                (
                    "monitoring",
                    "node-exporter",
                    "quay.io/prometheus/node-exporter:v1.8.2",
                ),
                (
                    "logging",
                    "fluent-bit",
                    "cr.fluentbit.io/fluent/fluent-bit:3.2.4",
                ),
            ] {
                if !has(self, ns) || *budget < 4 * n_nodes {
                    continue;
                }
                let labels = vec![
                    ("app.kubernetes.io/name".to_string(), name.to_string()),
                    ("app.kubernetes.io/instance".to_string(), name.to_string()),
                    (
                        "app.kubernetes.io/managed-by".to_string(),
                        "Helm".to_string(),
                    ),
                ];
                let mut t = self.system_template(name, image, labels);
                t.flavor = AppFlavor::Agent;
                t.host_network = name == "node-exporter";
                t.service_account = name.to_string();
                let (repo, ver) = split_image(image);
                let w = self.add_workload(
                    WKind::DaemonSet,
                    ns,
                    name,
                    cc + 5 * 86_400,
                    n_nodes as u32,
                    repo,
                    "v",
                    ver,
                    t,
                );
                out.0.push(Seed::Workload(w));
                self.seed_pods(w, n_nodes as u32, out);
                self.seed_app_accessories(w, out);
                *budget -= n_nodes;
            }
        }
        // Infra deployments / statefulsets.
        let infra: [(&str, &str, &str, u32, WKind); 8] = [
            (
                "monitoring",
                "prometheus-server",
                "quay.io/prometheus/prometheus:v2.55.1",
                2,
                WKind::StatefulSet,
            ),
            (
                "monitoring",
                "alertmanager",
                "quay.io/prometheus/alertmanager:v0.27.0",
                3,
                WKind::StatefulSet,
            ),
            (
                "monitoring",
                "grafana",
                "docker.io/grafana/grafana:11.3.1",
                1,
                WKind::Deployment,
            ),
            (
                "monitoring",
                "kube-state-metrics",
                "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0",
                1,
                WKind::Deployment,
            ),
            (
                "ingress-nginx",
                "ingress-nginx-controller",
                "registry.k8s.io/ingress-nginx/controller:v1.12.1",
                3,
                WKind::Deployment,
            ),
            (
                "cert-manager",
                "cert-manager",
                "quay.io/jetstack/cert-manager-controller:v1.16.2",
                1,
                WKind::Deployment,
            ),
            (
                "cert-manager",
                "cert-manager-webhook",
                "quay.io/jetstack/cert-manager-webhook:v1.16.2",
                1,
                WKind::Deployment,
            ),
            (
                "cert-manager",
                "cert-manager-cainjector",
                "quay.io/jetstack/cert-manager-cainjector:v1.16.2",
                1,
                WKind::Deployment,
            ),
        ];
        for (ns, name, image, replicas, kind) in infra {
            if !has(self, ns) || *budget < 2 * replicas as usize + 10 {
                continue;
            }
            let labels = vec![
                ("app.kubernetes.io/name".to_string(), name.to_string()),
                ("app.kubernetes.io/instance".to_string(), ns.to_string()),
                (
                    "app.kubernetes.io/managed-by".to_string(),
                    "Helm".to_string(),
                ),
            ];
            let mut t = self.system_template(name, image, labels);
            t.service_account = name.to_string();
            t.flavor = if kind == WKind::StatefulSet {
                AppFlavor::Database
            } else {
                AppFlavor::Http
            };
            t.port = Some(match name {
                "grafana" => (3000, "grafana"),
                "prometheus-server" => (9090, "web"),
                "alertmanager" => (9093, "web"),
                "ingress-nginx-controller" => (80, "http"),
                _ => (8080, "http"),
            });
            let (repo, ver) = split_image(image);
            let created = cc + 4 * 86_400 + self.below(86_400) as i64;
            let w = self.add_workload(kind, ns, name, created, replicas, repo, "v", ver, t);
            if kind == WKind::Deployment && self.chance(0.6) {
                let old = 1 + self.below(3) as u32;
                self.add_history(w, old);
            }
            out.0.push(Seed::Workload(w));
            self.seed_pods(w, replicas, out);
            self.seed_app_accessories(w, out);
            *budget -= replicas as usize;
        }
    }

    fn system_template(
        &mut self,
        name: &str,
        image: &str,
        labels: Vec<(String, String)>,
    ) -> PodTemplate {
        let mut t = self.make_template(TemplateSpec {
            ns: "kube-system",
            app: name,
            container: name,
            image: image.to_string(),
            flavor: AppFlavor::Http,
            labels,
            service_account: name.to_string(),
            config_map: None,
            secret: None,
        });
        t.env.truncate(1);
        t
    }

    fn seed_apps(&mut self, cc: i64, budget: &mut usize, out: &mut SeedOut) {
        let app_ns: Vec<Arc<str>> = {
            let v: Vec<Arc<str>> = self
                .namespaces
                .iter()
                .filter(|n| {
                    !SYSTEM_NAMESPACES.contains(&&***n) && !INFRA_NAMESPACES.contains(&&***n)
                })
                .cloned()
                .collect();
            if v.is_empty() {
                vec![Arc::from("default")]
            } else {
                v
            }
        };
        let scale = ((self.cfg.pods as f64 / 4_000.0).sqrt()).max(1.0);
        let mut used: HashMap<String, u32> = HashMap::new();
        let mut round = 0usize;
        // Stateful backing services first (one per a few namespaces), then deployments round-robin.
        for (i, ns) in app_ns.iter().enumerate() {
            let (name, image, replicas) = match (&**ns, i % 3) {
                ("search", _) => (
                    "elasticsearch",
                    "docker.elastic.co/elasticsearch/elasticsearch:8.15.3",
                    3u32,
                ),
                ("data", _) => ("kafka", "docker.io/bitnami/kafka:3.8.1", 3),
                ("analytics", _) => (
                    "clickhouse",
                    "docker.io/clickhouse/clickhouse-server:24.8.4",
                    2,
                ),
                (_, 0) => ("postgres", "docker.io/bitnami/postgresql:16.4.0", 2),
                (_, 1) => ("redis", "docker.io/library/redis:7.4.1", 1),
                _ => continue,
            };
            if *budget < replicas as usize * 4 {
                continue;
            }
            used.insert(key(ns, name), 1);
            let labels = vec![
                ("app.kubernetes.io/name".to_string(), name.to_string()),
                (
                    "app.kubernetes.io/instance".to_string(),
                    format!("{ns}-{name}"),
                ),
                (
                    "app.kubernetes.io/component".to_string(),
                    "primary".to_string(),
                ),
            ];
            let mut t = self.make_template(TemplateSpec {
                ns,
                app: name,
                container: name,
                image: image.to_string(),
                flavor: AppFlavor::Database,
                labels,
                service_account: name.to_string(),
                config_map: None,
                secret: Some(format!("{name}-credentials")),
            });
            t.port = Some(match name {
                "elasticsearch" => (9200, "http"),
                "kafka" => (9092, "kafka"),
                "clickhouse" => (8123, "http"),
                "redis" => (6379, "redis"),
                _ => (5432, "tcp-postgresql"),
            });
            let (repo, ver) = split_image(image);
            let created = cc + 86_400 * (2 + self.below(20) as i64);
            let w = self.add_workload(
                WKind::StatefulSet,
                ns,
                name,
                created,
                replicas,
                repo,
                "",
                ver,
                t,
            );
            out.0.push(Seed::Workload(w));
            self.seed_pods(w, replicas, out);
            self.seed_app_accessories(w, out);
            *budget -= replicas as usize;
        }
        // A couple of completed jobs (migrations, reports).
        for ns in app_ns.iter().take(4) {
            if *budget < 20 {
                break;
            }
            let ts = self.now_s() / 60 - self.below(600) as i64;
            let name = if self.chance(0.5) {
                format!("db-migrate-{}", objects::suffix(&mut self.rng, 5))
            } else {
                format!("nightly-report-{ts}")
            };
            let labels = vec![("app.kubernetes.io/name".to_string(), "batch".to_string())];
            let image = format!("ghcr.io/acme/{ns}-tools:1.{}.0", 3 + self.below(9));
            let t = self.make_template(TemplateSpec {
                ns,
                app: &name,
                container: "job",
                image: image.clone(),
                flavor: AppFlavor::Batch,
                labels,
                service_account: "default".to_string(),
                config_map: None,
                secret: None,
            });
            let (repo, ver) = split_image(&image);
            let created = self.now_s() - 3600 - self.below(20 * 3600) as i64;
            let w = self.add_workload(WKind::Job, ns, &name, created, 1, repo, "", ver, t);
            self.seed_pods(w, 1, out);
            if let Some(wl) = self.workloads.get_mut(w as usize) {
                wl.completed = Some(created + 95);
            }
            out.0.push(Seed::Workload(w));
            *budget -= 1;
        }
        // Deployments until the pod budget is spent.
        let mut i = 0usize;
        while *budget > 0 {
            let ns = app_ns[i % app_ns.len()].clone();
            i += 1;
            let own = namespace_apps(&ns);
            let base: String = if round < own.len() && i <= app_ns.len() * (round + 1) {
                own.get(round).map(|s| s.to_string()).unwrap_or_default()
            } else {
                String::new()
            };
            if i.is_multiple_of(app_ns.len()) {
                round += 1;
            }
            let base = if base.is_empty() {
                let p = GENERIC_PREFIXES[self.below(GENERIC_PREFIXES.len())];
                let s = GENERIC_SUFFIXES[self.below(GENERIC_SUFFIXES.len())];
                format!("{p}-{s}")
            } else {
                base
            };
            let n = used.entry(key(&ns, &base)).or_insert(0);
            *n += 1;
            let name = if *n == 1 {
                base.clone()
            } else {
                format!("{base}-{}", *n)
            };
            let draw = match self.below(100) {
                0..=19 => 1,
                20..=49 => 2,
                50..=74 => 3,
                75..=89 => 4 + self.below(3),
                90..=96 => 8 + self.below(5),
                _ => 20 + self.below(21),
            } as f64;
            let replicas = ((draw * scale).round() as usize).clamp(1, *budget) as u32;
            let flavor = flavor_of(&base);
            let labels = vec![
                ("app".to_string(), name.clone()),
                ("app.kubernetes.io/name".to_string(), name.clone()),
                ("app.kubernetes.io/part-of".to_string(), ns.to_string()),
                ("team".to_string(), format!("{ns}-team")),
            ];
            let version = (
                1 + self.below(3) as u32,
                self.below(20) as u32,
                self.below(12) as u32,
            );
            let repo = format!("ghcr.io/acme/{ns}/{base}");
            let config_map = self.chance(0.5).then(|| format!("{name}-config"));
            let secret = self.chance(0.3).then(|| format!("{name}-secrets"));
            let t = self.make_template(TemplateSpec {
                ns: &ns,
                app: &name,
                container: &base,
                image: format!("{repo}:v{}.{}.{}", version.0, version.1, version.2),
                flavor,
                labels,
                service_account: name.clone(),
                config_map,
                secret,
            });
            let created = cc + 86_400 + self.below(44 * 86_400) as i64;
            let w = self.add_workload(
                WKind::Deployment,
                &ns,
                &name,
                created,
                replicas,
                &repo,
                "v",
                version,
                t,
            );
            if self.chance(0.7) {
                let old = 1 + self.below(4) as u32;
                self.add_history(w, old);
            }
            out.0.push(Seed::Workload(w));
            self.seed_pods(w, replicas, out);
            self.seed_app_accessories(w, out);
            *budget -= replicas as usize;
        }
    }

    /// Service, service account, config map and secret of a seeded workload.
    fn seed_app_accessories(&mut self, w: u32, out: &mut SeedOut) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let Some(t) = wl.current().map(|s| s.template.clone()) else {
            return;
        };
        let (ns, name, kind, created) = (wl.ns.clone(), wl.name.clone(), wl.kind, wl.created);
        if t.service_account != "default"
            && !self
                .statics
                .contains_key(&(SERVICEACCOUNTS.plural, key(&ns, &t.service_account)))
        {
            let uid = self.new_uid();
            let l = t.selector_map();
            out.push(self.create_static(
                SERVICEACCOUNTS,
                &ns,
                &t.service_account,
                objects::serviceaccount(&ns, &t.service_account, &uid, created - 2, Some(l)),
            ));
        }
        if let Some(cm) = &t.config_map {
            let uid = self.new_uid();
            let mut data = Map::new();
            data.insert(
                "config.yaml".into(),
                Value::from(format!(
                    "server:\n  port: 8080\n  gracefulShutdown: 20s\nlogging:\n  level: info\n  format: json\nservice:\n  name: {name}\n  namespace: {ns}\n"
                )),
            );
            data.insert(
                "FEATURE_FLAGS".into(),
                Value::from("new-checkout=false,fast-path=true"),
            );
            out.push(self.create_static(
                CONFIGMAPS,
                &ns,
                cm,
                objects::configmap(&ns, cm, &uid, created - 1, Some(t.selector_map()), data),
            ));
        }
        if let Some(sec) = &t.secret {
            let uid = self.new_uid();
            let mut data = Map::new();
            let pw = objects::suffix(&mut self.rng, 24);
            data.insert("username".into(), Value::from(b64(name.as_bytes())));
            data.insert("password".into(), Value::from(b64(pw.as_bytes())));
            out.push(self.create_static(
                SECRETS,
                &ns,
                sec,
                objects::secret(
                    &ns,
                    sec,
                    &uid,
                    created - 1,
                    "Opaque",
                    Some(t.selector_map()),
                    data,
                ),
            ));
        }
        if t.port.is_some() && matches!(kind, WKind::Deployment | WKind::StatefulSet) {
            let (port, pname) = t.port.unwrap_or((8080, "http"));
            let uid = self.new_uid();
            let headless = kind == WKind::StatefulSet;
            let ip = if headless {
                None
            } else {
                Some(self.next_cluster_ip())
            };
            let lb = &*name == "ingress-nginx-controller";
            let svc_port = if t.flavor == AppFlavor::Http && !lb {
                80
            } else {
                port
            };
            let ports: Vec<(u16, u16, &str, &str)> = if lb {
                vec![(80, 80, "http", "TCP"), (443, 443, "https", "TCP")]
            } else {
                vec![(svc_port, port, pname, "TCP")]
            };
            let node_port_base = 30_000 + self.below(2_000) as u16;
            let svc = objects::service(&objects::ServiceView {
                namespace: &ns,
                name: &name,
                uid: &uid,
                created: created - 1,
                labels: t.selector_map(),
                selector: Some(t.selector_map()),
                cluster_ip: ip.as_deref(),
                ports: &ports,
                service_type: if lb { "LoadBalancer" } else { "ClusterIP" },
                node_port_base,
            });
            out.push(self.create_static(SERVICES, &ns, &name, svc));
        }
    }

    fn seed_widgets(&mut self, cc: i64, out: &mut SeedOut) {
        let app_ns: Vec<Arc<str>> = self
            .namespaces
            .iter()
            .filter(|n| !SYSTEM_NAMESPACES.contains(&&***n) || &***n == "default")
            .cloned()
            .collect();
        for i in 0..self.cfg.widgets {
            let ns = app_ns[i % app_ns.len().max(1)].clone();
            let color = WIDGET_COLORS[self.below(WIDGET_COLORS.len())];
            let size = WIDGET_SIZES[self.below(WIDGET_SIZES.len())];
            let name = format!(
                "{color}-{}-{}",
                ["gizmo", "sprocket", "flange", "gear"][i % 4],
                i / 4 + 1
            );
            let uid = self.new_uid();
            let w = WidgetInfo {
                namespace: ns.to_string(),
                name,
                uid: uid.to_string(),
                created: cc + 4 * 86_400 + self.below(40 * 86_400) as i64,
                size,
                color,
                replicas: 1 + self.below(5) as u32,
                owner: format!("{ns}-team"),
                generation: 1 + self.below(4) as i64,
                phase: if self.chance(0.85) {
                    "Ready"
                } else {
                    "Degraded"
                },
            };
            out.push(Mutation::Create {
                resource: WIDGETS,
                object: objects::widget(&w),
            });
            self.widgets.push(Some(w));
        }
    }

    fn seed_events(&mut self, seed_out: &mut SeedOut) {
        let mut tmp = Vec::new();
        let out = &mut tmp;
        let limit = (self.cfg.max_events / 3).min(400);
        let n = self.pods.len();
        let mut done = 0;
        // Crash-loopers first (their BackOff warnings are what operators look for).
        let crashing = self.crashing.clone();
        for k in crashing.iter().take(limit / 2) {
            if let Some(&i) = self.pod_index.get(k) {
                let restarts = self.pods[i].restarts;
                let node_name = self.pod_node_name(i);
                let msg = format!(
                    "Back-off restarting failed container {} in pod {}_{}({})",
                    self.pod_container(i),
                    self.pods[i].name,
                    self.pods[i].ns,
                    self.pods[i].uid
                );
                self.record_pod_event(i, "BackOff", msg, true, "kubelet", node_name, out);
                if let Some(last) = self
                    .event_agg
                    .get(&(self.pods[i].uid.clone(), "BackOff"))
                    .cloned()
                    && let Some(e) = self.events.get_mut(&last)
                {
                    e.count = restarts * 3 + 2;
                    e.first = e.last - i64::from(restarts) * 300;
                }
                done += 1;
            }
        }
        // The youngest running pods' start-up events.
        let mut youngest: Vec<usize> = (0..n).collect();
        youngest.sort_by_key(|&i| std::cmp::Reverse(self.pods[i].created));
        for &i in youngest.iter().take(limit.saturating_sub(done) / 3) {
            if self.pods[i].stage != PodStage::Running {
                continue;
            }
            let node_name = self.pod_node_name(i);
            let msg = format!(
                "Successfully assigned {}/{} to {}",
                self.pods[i].ns,
                self.pods[i].name,
                node_name.as_deref().unwrap_or("")
            );
            self.record_pod_event(i, "Scheduled", msg, false, "default-scheduler", None, out);
            self.started_events(i, out);
        }
        // Rendered at the end, so that aggregated counts are the final ones.
        for m in tmp {
            if let Mutation::Create { resource, object } = m
                && resource == EVENTS
            {
                let name = object.pointer("/metadata/name").and_then(Value::as_str);
                let ns = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str);
                if let (Some(name), Some(ns)) = (name, ns) {
                    seed_out.0.push(Seed::Event(key(ns, name)));
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Rendering
    // -----------------------------------------------------------------------------------------

    fn pod_node_name(&self, i: usize) -> Option<String> {
        self.pods
            .get(i)
            .and_then(|p| p.node)
            .and_then(|n| self.nodes.get(n as usize))
            .map(|n| n.info.name.clone())
    }

    fn pod_container(&self, i: usize) -> String {
        self.pods
            .get(i)
            .and_then(|p| {
                self.workloads
                    .get(p.workload as usize)
                    .and_then(|w| w.set(p.set))
            })
            .map(|s| s.template.container.clone())
            .unwrap_or_default()
    }

    fn render_pod(&self, i: usize) -> Option<Value> {
        let p = self.pods.get(i)?;
        let w = self.workloads.get(p.workload as usize)?;
        let set = w.set(p.set)?;
        let node = p.node.and_then(|n| self.nodes.get(n as usize));
        let node_name = node.map(|n| n.info.name.as_str());
        let host_ip = node.map(|n| n.info.internal_ip.as_str());
        let ord = p.ordinal.map(|o| o.to_string());
        let rev;
        let gen_s;
        let mut extra: Vec<(&str, &str)> = Vec::with_capacity(4);
        let mut ann: Vec<(&str, &str)> = Vec::new();
        let owner_ref;
        let pvc;
        match w.kind {
            WKind::Deployment => {
                extra.push(("pod-template-hash", &set.hash));
                owner_ref = ("apps/v1", "ReplicaSet", &*set.name, &*set.uid);
                pvc = None;
            }
            WKind::StatefulSet => {
                rev = format!("{}-{}", w.name, set.hash);
                extra.push(("controller-revision-hash", &rev));
                if let Some(o) = &ord {
                    extra.push(("apps.kubernetes.io/pod-index", o));
                }
                extra.push(("statefulset.kubernetes.io/pod-name", &p.name));
                owner_ref = ("apps/v1", "StatefulSet", &*w.name, &*w.uid);
                pvc = Some(format!("data-{}", p.name));
            }
            WKind::DaemonSet => {
                gen_s = w.generation.to_string();
                extra.push(("controller-revision-hash", &set.hash));
                extra.push(("pod-template-generation", &gen_s));
                owner_ref = ("apps/v1", "DaemonSet", &*w.name, &*w.uid);
                pvc = None;
            }
            WKind::Job => {
                extra.push(("batch.kubernetes.io/controller-uid", &w.uid));
                extra.push(("batch.kubernetes.io/job-name", &w.name));
                extra.push(("controller-uid", &w.uid));
                extra.push(("job-name", &w.name));
                ann.push(("batch.kubernetes.io/job-tracking", ""));
                owner_ref = ("batch/v1", "Job", &*w.name, &*w.uid);
                pvc = None;
            }
            WKind::Static => {
                ann.push(("kubernetes.io/config.source", "file"));
                ann.push(("kubernetes.io/config.hash", &set.hash));
                ann.push(("kubernetes.io/config.mirror", &set.hash));
                let n = node?;
                owner_ref = ("v1", "Node", n.info.name.as_str(), n.info.uid.as_str());
                pvc = None;
            }
        }
        let is_sts = w.kind == WKind::StatefulSet;
        Some(objects::pod(&objects::PodView {
            namespace: &p.ns,
            name: &p.name,
            uid: &p.uid,
            created: p.created,
            template: &set.template,
            extra_labels: &extra,
            annotations: &ann,
            owner: owner_ref,
            node: node_name,
            host_ip,
            pod_ip: p.ip.as_deref(),
            hostname: is_sts.then_some(&*p.name),
            subdomain: is_sts.then_some(&*w.name),
            pvc: pvc.as_deref(),
            stage: p.stage,
            scheduled_at: p.scheduled,
            started_at: p.started,
            restarts: p.restarts,
            last: p.last,
            container_id: &p.container_id,
            image_id: &set.image_id,
            cached: Some(&set.rendered),
        }))
    }

    fn counts(&self, w: &Workload, set: Option<&PodSet>) -> ReplicaCounts {
        let sets: Vec<&PodSet> = match set {
            Some(s) => vec![s],
            None => w.sets.iter().collect(),
        };
        let mut c = ReplicaCounts {
            desired: match set {
                Some(s) => s.replicas,
                None => w.replicas,
            },
            ..Default::default()
        };
        let newest = w.sets.last().map(|s| s.id);
        for s in sets {
            for name in &s.pods {
                if let Some(&i) = self.pod_index.get(&key(&w.ns, name)) {
                    let p = &self.pods[i];
                    c.current += 1;
                    if p.stage == PodStage::Running
                        || (w.kind == WKind::Job && p.stage == PodStage::Succeeded)
                    {
                        c.ready += 1;
                    }
                    if Some(s.id) == newest {
                        c.updated += 1;
                    }
                }
            }
        }
        c
    }

    /// Renders workload `w` (and, for deployments, its ReplicaSets when `with_sets`).
    fn render_workload(&self, w: u32, with_sets: bool) -> Vec<(ResourceId, Value)> {
        let mut out = Vec::new();
        let Some(wl) = self.workloads.get(w as usize) else {
            return out;
        };
        let Some(cur) = wl.current() else { return out };
        let now = self.now_s();
        match wl.kind {
            WKind::Deployment => {
                out.push((
                    DEPLOYMENTS,
                    objects::deployment(&objects::DeploymentView {
                        namespace: &wl.ns,
                        name: &wl.name,
                        uid: &wl.uid,
                        created: wl.created,
                        generation: wl.generation,
                        revision: cur.revision,
                        template: &cur.template,
                        counts: self.counts(wl, None),
                        available_since: wl.available_since,
                        progressing_since: wl.progressing_since,
                        now,
                        new_rs: &cur.name,
                    }),
                ));
                if with_sets {
                    for s in &wl.sets {
                        out.push((REPLICASETS, self.render_rs(wl, s)));
                    }
                }
            }
            WKind::StatefulSet => out.push((
                STATEFULSETS,
                objects::statefulset(&objects::StatefulSetView {
                    namespace: &wl.ns,
                    name: &wl.name,
                    uid: &wl.uid,
                    created: wl.created,
                    generation: wl.generation,
                    revision_hash: &cur.hash,
                    template: &cur.template,
                    service: &wl.name,
                    counts: self.counts(wl, None),
                }),
            )),
            WKind::DaemonSet => {
                let mut c = self.counts(wl, None);
                c.desired = self.nodes.iter().filter(|n| n.alive).count() as u32;
                out.push((
                    DAEMONSETS,
                    objects::daemonset(&objects::DaemonSetView {
                        namespace: &wl.ns,
                        name: &wl.name,
                        uid: &wl.uid,
                        created: wl.created,
                        generation: wl.generation,
                        template: &cur.template,
                        counts: c,
                        control_plane_too: true,
                    }),
                ))
            }
            WKind::Job => {
                let c = self.counts(wl, None);
                let succeeded = cur
                    .pods
                    .iter()
                    .filter(|n| {
                        self.pod_index
                            .get(&key(&wl.ns, n))
                            .is_some_and(|&i| self.pods[i].stage == PodStage::Succeeded)
                    })
                    .count() as u32;
                let ready = c.ready - succeeded.min(c.ready);
                out.push((
                    JOBS,
                    objects::job(&objects::JobView {
                        namespace: &wl.ns,
                        name: &wl.name,
                        uid: &wl.uid,
                        created: wl.created,
                        template: &cur.template,
                        controller_uid: &wl.uid,
                        completions: wl.replicas,
                        active: c.current - succeeded.min(c.current),
                        succeeded,
                        ready,
                        start: wl.created,
                        completed_at: wl.completed,
                    }),
                ))
            }
            WKind::Static => {}
        }
        out
    }

    fn render_rs(&self, wl: &Workload, s: &PodSet) -> Value {
        objects::replicaset(&objects::ReplicaSetView {
            namespace: &wl.ns,
            name: &s.name,
            uid: &s.uid,
            created: s.created,
            hash: &s.hash,
            revision: s.revision,
            template: &s.template,
            deployment: &wl.name,
            deployment_uid: &wl.uid,
            deployment_replicas: wl.replicas,
            generation: s.generation,
            counts: self.counts(wl, Some(s)),
        })
    }

    fn emit_workload(&self, w: u32, out: &mut Vec<Mutation>, create: bool) {
        for (resource, object) in self.render_workload(w, create) {
            out.push(if create {
                Mutation::Create { resource, object }
            } else {
                Mutation::Update { resource, object }
            });
        }
    }

    // -----------------------------------------------------------------------------------------
    // Events
    // -----------------------------------------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    fn record_event(
        &mut self,
        ns: Arc<str>,
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
        component: &'static str,
        host: Option<String>,
        out: &mut Vec<Mutation>,
    ) {
        let now = self.now_s();
        let agg_key = (involved.3.clone(), reason);
        if let Some(k) = self.event_agg.get(&agg_key).cloned()
            && let Some(e) = self.events.get_mut(&k)
            && e.message == message
        {
            e.count += 1;
            e.last = now;
            out.push(Mutation::Update {
                resource: EVENTS,
                object: render_event(e),
            });
            return;
        }
        self.event_seq += 1;
        let nanos = self.now_ms as u64 * 1_000_000 + self.event_seq % 1_000_000;
        let name = format!("{}.{nanos:x}", involved.2);
        let uid = self.new_uid().to_string();
        let e = Ev {
            ns,
            name: name.clone(),
            uid,
            involved,
            reason,
            message,
            warning,
            count: 1,
            first: now,
            last: now,
            component,
            host,
        };
        out.push(Mutation::Create {
            resource: EVENTS,
            object: render_event(&e),
        });
        let k = key(&e.ns, &name);
        self.event_agg.insert(agg_key, k.clone());
        self.events.insert(k.clone(), e);
        self.event_order.push_back(k);
    }

    #[allow(clippy::too_many_arguments)]
    fn record_pod_event(
        &mut self,
        i: usize,
        reason: &'static str,
        message: String,
        warning: bool,
        component: &'static str,
        host: Option<String>,
        out: &mut Vec<Mutation>,
    ) {
        let Some(p) = self.pods.get(i) else { return };
        let fp = (component == "kubelet")
            .then(|| format!("spec.containers{{{}}}", self.pod_container(i)));
        let involved = ("v1", "Pod", p.name.clone(), p.uid.clone(), fp);
        let ns = p.ns.clone();
        self.record_event(ns, involved, reason, message, warning, component, host, out);
    }

    fn started_events(&mut self, i: usize, out: &mut Vec<Mutation>) {
        let Some(p) = self.pods.get(i) else { return };
        let Some(w) = self.workloads.get(p.workload as usize) else {
            return;
        };
        let Some(set) = w.set(p.set) else { return };
        let image = set.template.image.clone();
        let container = set.template.container.clone();
        let host = self.pod_node_name(i);
        let restarts = p.restarts;
        if restarts == 0 {
            let ms = 400 + self.below(9_000);
            let size = 20_000_000 + self.below(180_000_000);
            self.record_pod_event(
                i,
                "Pulling",
                format!("Pulling image \"{image}\""),
                false,
                "kubelet",
                host.clone(),
                out,
            );
            self.record_pod_event(
                i,
                "Pulled",
                format!(
                    "Successfully pulled image \"{image}\" in {}.{:03}s ({}.{:03}s including waiting). Image size: {} bytes.",
                    ms / 1000, ms % 1000, ms / 1000, ms % 1000 + 3, size
                ),
                false,
                "kubelet",
                host.clone(),
                out,
            );
        } else {
            self.record_pod_event(
                i,
                "Pulled",
                format!("Container image \"{image}\" already present on machine"),
                false,
                "kubelet",
                host.clone(),
                out,
            );
        }
        self.record_pod_event(
            i,
            "Created",
            format!("Created container: {container}"),
            false,
            "kubelet",
            host.clone(),
            out,
        );
        self.record_pod_event(
            i,
            "Started",
            format!("Started container {container}"),
            false,
            "kubelet",
            host,
            out,
        );
    }

    fn gc_events(&mut self, out: &mut Vec<Mutation>) {
        let ttl_edge = self.now_s() - 3600;
        while let Some(k) = self.event_order.front() {
            let Some(e) = self.events.get(k) else {
                self.event_order.pop_front();
                continue;
            };
            if self.events.len() <= self.cfg.max_events && e.last >= ttl_edge {
                break;
            }
            let Some(k) = self.event_order.pop_front() else {
                break;
            };
            if let Some(e) = self.events.remove(&k) {
                let agg = (e.involved.3.clone(), e.reason);
                if self.event_agg.get(&agg) == Some(&k) {
                    self.event_agg.remove(&agg);
                }
                out.push(Mutation::Delete {
                    resource: EVENTS,
                    namespace: Some(e.ns.to_string()),
                    name: e.name,
                });
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Churn
    // -----------------------------------------------------------------------------------------

    /// The next `n` changes (exactly `n` unless `n` is 0). Seeds first if not seeded yet? No:
    /// ticks before `seed_mutations` only see an empty cluster and return nothing.
    pub fn tick(&mut self, n: usize) -> Vec<Mutation> {
        let mut out = Vec::with_capacity(n);
        if !self.seeded || self.workloads.is_empty() && self.nodes.is_empty() {
            return out;
        }
        let mut guard = 0usize;
        while out.len() < n {
            if let Some(m) = self.pending.pop_front() {
                out.push(m);
                continue;
            }
            let mut batch = Vec::new();
            self.step(&mut batch);
            self.pending.extend(batch);
            guard += 1;
            if self.pending.is_empty() && guard > n * 50 + 1000 {
                break;
            }
        }
        out
    }

    fn step(&mut self, out: &mut Vec<Mutation>) {
        self.now_ms += self.cfg.step_millis as i64;
        if let Some((w, set)) = self.dirty.pop_front() {
            self.top_up(w, set, out);
            return;
        }
        let r = self.below(100);
        match r {
            0..=34 if !self.progress.is_empty() => self.advance_progress(out),
            0..=34 => self.advance_crash(out),
            35..=52 => self.advance_crash(out),
            53..=64 => self.kill_pod(out),
            65..=72 => self.scale(out),
            73..=74 => self.start_rollout(out),
            75..=90 if !self.rollouts.is_empty() => self.rollout_step(out),
            75..=90 => self.advance_progress(out),
            91..=92 => self.flip_node(out),
            93..=95 => self.touch_widget(out),
            _ => self.node_heartbeat(out),
        }
        self.gc_events(out);
    }

    fn top_up(&mut self, w: u32, set_id: u32, out: &mut Vec<Mutation>) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        let Some(set) = wl.set(set_id) else { return };
        let missing = set.replicas.saturating_sub(set.pods.len() as u32);
        for _ in 0..missing {
            self.create_replacement(w, set_id, None, None, out);
        }
        if missing > 0 {
            self.emit_status(w, set_id, out);
        }
    }

    /// The owner's controller creates a new pod for `set` (Pending, queued to progress).
    fn create_replacement(
        &mut self,
        w: u32,
        set_id: u32,
        ordinal: Option<u32>,
        node_hint: Option<u32>,
        out: &mut Vec<Mutation>,
    ) {
        let now = self.now_s();
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let kind = wl.kind;
        let node = match kind {
            WKind::Static => wl.node,
            WKind::DaemonSet => node_hint,
            _ => None,
        };
        let ordinal = match (kind, ordinal) {
            (WKind::StatefulSet, Some(o)) => Some(o),
            (WKind::StatefulSet, None) => {
                let taken: Vec<u32> = wl
                    .set(set_id)
                    .map(|s| {
                        s.pods
                            .iter()
                            .filter_map(|n| n.rsplit('-').next().and_then(|x| x.parse().ok()))
                            .collect()
                    })
                    .unwrap_or_default();
                (0..).find(|o| !taken.contains(o))
            }
            _ => None,
        };
        let stage = if kind == WKind::Static {
            PodStage::ContainerCreating
        } else {
            PodStage::Pending
        };
        let Some(i) = self.insert_pod(w, set_id, node, now, stage, ordinal) else {
            return;
        };
        let crashy =
            crash_prone(kind, &wl_ns(&self.workloads, w)) && self.chance(self.cfg.crash_fraction);
        if let Some(p) = self.pods.get_mut(i) {
            p.crashy = crashy;
            p.scheduled = now;
            p.started = now;
        }
        if let Some(v) = self.render_pod(i) {
            out.push(Mutation::Create {
                resource: PODS,
                object: v,
            });
        }
        let (pname, ns) = (self.pods[i].name.clone(), self.pods[i].ns.clone());
        self.progress.push_back(key(&ns, &pname));
        if let Some(wl) = self.workloads.get(w as usize)
            && let Some(set) = wl.set(set_id)
        {
            let (api, kind_s, owner, uid, component) = match kind {
                WKind::Deployment => (
                    "apps/v1",
                    "ReplicaSet",
                    set.name.clone(),
                    set.uid.clone(),
                    "replicaset-controller",
                ),
                WKind::StatefulSet => (
                    "apps/v1",
                    "StatefulSet",
                    wl.name.clone(),
                    wl.uid.clone(),
                    "statefulset-controller",
                ),
                WKind::DaemonSet => (
                    "apps/v1",
                    "DaemonSet",
                    wl.name.clone(),
                    wl.uid.clone(),
                    "daemonset-controller",
                ),
                WKind::Job => (
                    "batch/v1",
                    "Job",
                    wl.name.clone(),
                    wl.uid.clone(),
                    "job-controller",
                ),
                WKind::Static => return,
            };
            let msg = if kind == WKind::StatefulSet {
                format!("create Pod {pname} in StatefulSet {} successful", wl.name)
            } else {
                format!("Created pod: {pname}")
            };
            self.record_event(
                ns,
                (api, kind_s, owner, uid, None),
                "SuccessfulCreate",
                msg,
                false,
                component,
                None,
                out,
            );
        }
    }

    /// Emits status updates for a pod's owners (ReplicaSet + Deployment, or the workload).
    fn emit_status(&mut self, w: u32, set_id: u32, out: &mut Vec<Mutation>) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        if wl.kind == WKind::Deployment
            && let Some(s) = wl.set(set_id)
        {
            out.push(Mutation::Update {
                resource: REPLICASETS,
                object: self.render_rs(wl, s),
            });
        }
        self.emit_workload(w, out, false);
    }

    fn advance_progress(&mut self, out: &mut Vec<Mutation>) {
        let Some(k) = self.progress.pop_front() else {
            return self.advance_crash(out);
        };
        let Some(&i) = self.pod_index.get(&k) else {
            return;
        };
        let now = self.now_s();
        let stage = self.pods[i].stage;
        let (w, set) = (self.pods[i].workload, self.pods[i].set);
        let kind = self.workloads.get(w as usize).map(|wl| wl.kind);
        match stage {
            PodStage::Pending => {
                let node = match kind {
                    Some(WKind::DaemonSet) => {
                        self.pods[i].target_node.or_else(|| self.pick_worker())
                    }
                    _ => self.pick_worker(),
                };
                let Some(node) = node else {
                    self.progress.push_back(k);
                    return;
                };
                let host_network = self
                    .workloads
                    .get(w as usize)
                    .and_then(|wl| wl.set(set))
                    .is_some_and(|s| s.template.host_network);
                let ip = if host_network {
                    self.nodes
                        .get(node as usize)
                        .map(|n| n.info.internal_ip.clone())
                } else {
                    self.next_pod_ip(node)
                };
                if let Some(p) = self.pods.get_mut(i) {
                    p.node = Some(node);
                    p.ip = ip;
                    p.stage = PodStage::ContainerCreating;
                    p.scheduled = now;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                let node_name = self.pod_node_name(i).unwrap_or_default();
                let msg = format!("Successfully assigned {} to {node_name}", k);
                self.record_pod_event(i, "Scheduled", msg, false, "default-scheduler", None, out);
                self.progress.push_back(k);
            }
            PodStage::ContainerCreating => {
                if let Some(p) = self.pods.get_mut(i) {
                    p.stage = PodStage::Running;
                    p.started = now;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                self.started_events(i, out);
                if self.pods[i].crashy {
                    self.crashing.push(k.clone());
                }
                if kind == Some(WKind::Job) {
                    self.progress.push_back(k);
                }
                self.emit_status(w, set, out);
            }
            PodStage::Running if kind == Some(WKind::Job) => {
                if let Some(p) = self.pods.get_mut(i) {
                    p.stage = PodStage::Succeeded;
                    p.started = now;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                if let Some(wl) = self.workloads.get_mut(w as usize) {
                    wl.completed = Some(now);
                }
                self.emit_status(w, set, out);
                if let Some(wl) = self.workloads.get(w as usize) {
                    let inv = ("batch/v1", "Job", wl.name.clone(), wl.uid.clone(), None);
                    let ns = wl.ns.clone();
                    self.record_event(
                        ns,
                        inv,
                        "Completed",
                        "Job completed".into(),
                        false,
                        "job-controller",
                        None,
                        out,
                    );
                }
            }
            _ => {}
        }
    }

    fn pick_crashing(&mut self) -> Option<usize> {
        for _ in 0..4 {
            if self.crashing.is_empty() {
                return None;
            }
            let j = self.below(self.crashing.len());
            match self.pod_index.get(&self.crashing[j]) {
                Some(&i)
                    if self.pods[i].crashy
                        && self.pods[i].stage != PodStage::Pending
                        && self.pods[i].stage != PodStage::ContainerCreating =>
                {
                    return Some(i);
                }
                Some(_) => return None,
                None => {
                    self.crashing.swap_remove(j);
                }
            }
        }
        None
    }

    fn advance_crash(&mut self, out: &mut Vec<Mutation>) {
        let Some(i) = self.pick_crashing() else {
            return self.node_heartbeat(out);
        };
        let now = self.now_s();
        let (w, set) = (self.pods[i].workload, self.pods[i].set);
        let host = self.pod_node_name(i);
        let stage = self.pods[i].stage;
        match stage {
            PodStage::Running => {
                let code = if self.chance(0.2) { 137 } else { 1 };
                if let Some(p) = self.pods.get_mut(i) {
                    p.last = Some(LastTermination {
                        exit_code: code,
                        reason: if code == 137 { "OOMKilled" } else { "Error" },
                        started: p.started,
                        finished: now,
                    });
                    p.stage = PodStage::Error;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                self.emit_status(w, set, out);
            }
            PodStage::Error => {
                if let Some(p) = self.pods.get_mut(i) {
                    p.stage = PodStage::CrashLoopBackOff;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                let p = &self.pods[i];
                let msg = format!(
                    "Back-off restarting failed container {} in pod {}_{}({})",
                    self.pod_container(i),
                    p.name,
                    p.ns,
                    p.uid
                );
                self.record_pod_event(i, "BackOff", msg, true, "kubelet", host, out);
            }
            PodStage::CrashLoopBackOff => {
                let cid = format!("containerd://{}", self.hex64());
                if let Some(p) = self.pods.get_mut(i) {
                    p.restarts += 1;
                    p.stage = PodStage::Running;
                    p.started = now;
                    p.container_id = cid;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                self.started_events(i, out);
                self.emit_status(w, set, out);
            }
            _ => {}
        }
    }

    /// Deletes a random pod (evicted, or a user/automation killed it); its controller replaces it.
    fn kill_pod(&mut self, out: &mut Vec<Mutation>) {
        if self.pods.is_empty() {
            return;
        }
        let i = self.below(self.pods.len());
        let (w, set) = (self.pods[i].workload, self.pods[i].set);
        let kind = self.workloads.get(w as usize).map(|wl| wl.kind);
        if matches!(kind, Some(WKind::Job | WKind::Static) | None) {
            return self.advance_progress(out);
        }
        let host = self.pod_node_name(i);
        if host.is_some() && self.pods[i].stage != PodStage::Pending {
            let c = self.pod_container(i);
            self.record_pod_event(
                i,
                "Killing",
                format!("Stopping container {c}"),
                false,
                "kubelet",
                host,
                out,
            );
        }
        let ordinal = self.pods[i].ordinal;
        let node_hint = self.pods[i].node.or(self.pods[i].target_node);
        let (ns, name) = (self.pods[i].ns.clone(), self.pods[i].name.clone());
        self.remove_pod(&key(&ns, &name));
        out.push(Mutation::Delete {
            resource: PODS,
            namespace: Some(ns.to_string()),
            name: name.to_string(),
        });
        self.create_replacement(w, set, ordinal, node_hint, out);
        self.emit_status(w, set, out);
    }

    /// Forgets a pod: dense-vector swap-remove plus index fixes, and its owner set's list.
    fn remove_pod(&mut self, k: &str) -> Option<Pod> {
        let i = self.pod_index.remove(k)?;
        let p = self.pods.swap_remove(i);
        if let Some(moved) = self.pods.get(i) {
            let mk = key(&moved.ns, &moved.name);
            self.pod_index.insert(mk, i);
        }
        if let Some(set) = self
            .workloads
            .get_mut(p.workload as usize)
            .and_then(|w| w.set_mut(p.set))
            && let Some(pos) = set.pods.iter().position(|n| *n == p.name)
        {
            set.pods.remove(pos);
        }
        Some(p)
    }

    fn pick_workload(&mut self, kinds: &[WKind]) -> Option<u32> {
        for _ in 0..16 {
            let w = self.below(self.workloads.len());
            let wl = self.workloads.get(w)?;
            if wl.alive && !wl.rolling && kinds.contains(&wl.kind) {
                return Some(w as u32);
            }
        }
        None
    }

    fn scale(&mut self, out: &mut Vec<Mutation>) {
        let Some(w) = self.pick_workload(&[WKind::Deployment, WKind::StatefulSet]) else {
            return self.advance_progress(out);
        };
        let total = self.pods.len();
        let target = self.cfg.pods;
        let Some(from) = self.workloads.get(w as usize).map(|wl| wl.replicas) else {
            return;
        };
        let up = if total < target {
            self.chance(0.8)
        } else if total > target {
            self.chance(0.2)
        } else {
            self.chance(0.5)
        };
        let delta = 1 + self.below(if from >= 10 { 4 } else { 2 }) as u32;
        let to = if up {
            from + delta
        } else {
            from.saturating_sub(delta).max(1)
        };
        if to == from {
            return self.advance_progress(out);
        }
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let kind = wl.kind;
        let (ns, name, uid) = (wl.ns.clone(), wl.name.clone(), wl.uid.clone());
        let Some(set_id) = wl.current().map(|s| s.id) else {
            return;
        };
        let set_name = wl.current().map(|s| s.name.clone()).unwrap_or_default();
        if let Some(wl) = self.workloads.get_mut(w as usize) {
            wl.replicas = to;
            wl.generation += 1;
            if let Some(s) = wl.set_mut(set_id) {
                s.replicas = to;
                s.generation += 1;
            }
        }
        if kind == WKind::Deployment {
            let msg = format!(
                "Scaled {} replica set {set_name} from {from} to {to}",
                if up { "up" } else { "down" }
            );
            self.record_event(
                ns.clone(),
                ("apps/v1", "Deployment", name.clone(), uid.clone(), None),
                "ScalingReplicaSet",
                msg,
                false,
                "deployment-controller",
                None,
                out,
            );
        }
        self.emit_status(w, set_id, out);
        if up {
            for _ in from..to {
                self.create_replacement(w, set_id, None, None, out);
            }
        } else {
            for _ in to..from {
                self.delete_from_set(w, set_id, out);
            }
        }
        self.emit_status(w, set_id, out);
    }

    /// The set's controller deletes one of its pods (newest first for ReplicaSets, highest
    /// ordinal for StatefulSets).
    fn delete_from_set(&mut self, w: u32, set_id: u32, out: &mut Vec<Mutation>) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let Some(set) = wl.set(set_id) else { return };
        let victim = if wl.kind == WKind::StatefulSet {
            set.pods
                .iter()
                .max_by_key(|n| {
                    n.rsplit('-')
                        .next()
                        .and_then(|x| x.parse::<u32>().ok())
                        .unwrap_or(0)
                })
                .cloned()
        } else {
            set.pods.last().cloned()
        };
        let Some(victim) = victim else { return };
        let ns = wl.ns.clone();
        let (api, kind_s, owner, uid, component) = match wl.kind {
            WKind::Deployment => (
                "apps/v1",
                "ReplicaSet",
                set.name.clone(),
                set.uid.clone(),
                "replicaset-controller",
            ),
            _ => (
                "apps/v1",
                "StatefulSet",
                wl.name.clone(),
                wl.uid.clone(),
                "statefulset-controller",
            ),
        };
        let msg = if kind_s == "StatefulSet" {
            format!("delete Pod {victim} in StatefulSet {owner} successful")
        } else {
            format!("Deleted pod: {victim}")
        };
        let k = key(&ns, &victim);
        if let Some(&i) = self.pod_index.get(&k)
            && self.pods[i].node.is_some()
        {
            let host = self.pod_node_name(i);
            let c = self.pod_container(i);
            self.record_pod_event(
                i,
                "Killing",
                format!("Stopping container {c}"),
                false,
                "kubelet",
                host,
                out,
            );
        }
        self.remove_pod(&k);
        out.push(Mutation::Delete {
            resource: PODS,
            namespace: Some(ns.to_string()),
            name: victim.to_string(),
        });
        self.record_event(
            ns,
            (api, kind_s, owner, uid, None),
            "SuccessfulDelete",
            msg,
            false,
            component,
            None,
            out,
        );
    }

    fn start_rollout(&mut self, out: &mut Vec<Mutation>) {
        let Some(w) = self.pick_workload(&[WKind::Deployment]) else {
            return self.advance_progress(out);
        };
        let now = self.now_s();
        let hash = objects::template_hash(&mut self.rng);
        let uid = self.new_uid();
        let digest = self.hex64();
        let bump_minor = self.chance(0.3);
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        if wl.replicas == 0 || wl.current().is_none() {
            return;
        }
        let (a, b, c) = wl.version;
        wl.version = if bump_minor {
            (a, b + 1, 0)
        } else {
            (a, b, c + 1)
        };
        let image = wl.image();
        let Some(cur) = wl.current() else { return };
        let mut t = (*cur.template).clone();
        t.image = image;
        let revision = cur.revision + 1;
        let id = wl.next_set_id;
        wl.next_set_id += 1;
        wl.generation += 1;
        wl.rolling = true;
        wl.progressing_since = now;
        let name: Arc<str> = Arc::from(format!("{}-{hash}", wl.name).as_str());
        wl.sets.push(PodSet {
            id,
            name: name.clone(),
            uid,
            hash,
            revision,
            rendered: Arc::new(objects::RenderedTemplate::new(&t)),
            template: Arc::new(t),
            image_id: format!("{}@sha256:{digest}", wl.repo),
            replicas: 0,
            pods: Vec::new(),
            created: now,
            generation: 1,
        });
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if let Some(s) = wl.set(id) {
            out.push(Mutation::Create {
                resource: REPLICASETS,
                object: self.render_rs(wl, s),
            });
        }
        self.emit_workload(w, out, false);
        self.rollouts.push_back(w);
    }

    fn rollout_step(&mut self, out: &mut Vec<Mutation>) {
        let Some(w) = self.rollouts.pop_front() else {
            return;
        };
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        let Some(new) = wl.current() else { return };
        let new_id = new.id;
        let new_name = new.name.clone();
        let new_replicas = new.replicas;
        let old = wl
            .sets
            .iter()
            .find(|s| s.id != new_id && s.replicas > 0)
            .map(|s| (s.id, s.name.clone(), s.replicas));
        let (ns, name, uid, target) = (wl.ns.clone(), wl.name.clone(), wl.uid.clone(), wl.replicas);
        let inv = ("apps/v1", "Deployment", name.clone(), uid.clone(), None);
        if new_replicas < target {
            if let Some(s) = self
                .workloads
                .get_mut(w as usize)
                .and_then(|wl| wl.set_mut(new_id))
            {
                s.replicas += 1;
                s.generation += 1;
            }
            let msg = format!(
                "Scaled up replica set {new_name} from {new_replicas} to {}",
                new_replicas + 1
            );
            self.record_event(
                ns.clone(),
                inv.clone(),
                "ScalingReplicaSet",
                msg,
                false,
                "deployment-controller",
                None,
                out,
            );
            self.create_replacement(w, new_id, None, None, out);
            self.emit_status(w, new_id, out);
        }
        if let Some((old_id, old_name, old_replicas)) = old {
            if let Some(s) = self
                .workloads
                .get_mut(w as usize)
                .and_then(|wl| wl.set_mut(old_id))
            {
                s.replicas -= 1;
                s.generation += 1;
            }
            let msg = format!(
                "Scaled down replica set {old_name} from {old_replicas} to {}",
                old_replicas - 1
            );
            self.record_event(
                ns.clone(),
                inv,
                "ScalingReplicaSet",
                msg,
                false,
                "deployment-controller",
                None,
                out,
            );
            self.delete_from_set(w, old_id, out);
            self.emit_status(w, old_id, out);
        }
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let done = wl.current().is_some_and(|s| s.replicas >= target)
            && wl.sets.iter().all(|s| s.id == new_id || s.replicas == 0);
        if done {
            let now = self.now_s();
            let mut removed = Vec::new();
            if let Some(wl) = self.workloads.get_mut(w as usize) {
                wl.rolling = false;
                wl.progressing_since = now;
                // Keep the three newest old ReplicaSets (revision history), delete the rest.
                while wl.sets.len() > 4 && wl.sets.first().is_some_and(|s| s.pods.is_empty()) {
                    let s = wl.sets.remove(0);
                    removed.push(s.name);
                }
            }
            for n in removed {
                out.push(Mutation::Delete {
                    resource: REPLICASETS,
                    namespace: Some(ns.to_string()),
                    name: n.to_string(),
                });
            }
            self.emit_workload(w, out, false);
        } else {
            self.rollouts.push_back(w);
        }
    }

    fn flip_node(&mut self, out: &mut Vec<Mutation>) {
        let now = self.now_s();
        let down = self.nodes.iter().position(|n| n.alive && !n.info.ready);
        let mp = self
            .nodes
            .iter()
            .position(|n| n.alive && n.info.memory_pressure);
        let i = if let Some(i) = down.filter(|_| self.chance(0.7)) {
            let n = &mut self.nodes[i].info;
            n.ready = true;
            n.ready_since = now;
            n.heartbeat = now;
            i
        } else if let Some(i) = mp.filter(|_| self.chance(0.6)) {
            let n = &mut self.nodes[i].info;
            n.memory_pressure = false;
            n.pressure_since = now;
            n.heartbeat = now;
            i
        } else {
            let Some(i) = self.pick_worker() else { return };
            let make_down = self.chance(0.5);
            let n = &mut self.nodes[i as usize].info;
            if make_down {
                n.ready = false;
                n.ready_since = now;
            } else {
                n.memory_pressure = true;
                n.pressure_since = now;
                n.heartbeat = now;
            }
            i as usize
        };
        let info = &self.nodes[i].info;
        out.push(Mutation::Update {
            resource: NODES,
            object: objects::node(info),
        });
        let (reason, msg, warn, comp): (&'static str, String, bool, &'static str) = if !info.ready {
            (
                "NodeNotReady",
                format!("Node {} status is now: NodeNotReady", info.name),
                true,
                "node-controller",
            )
        } else if info.memory_pressure {
            (
                "NodeHasInsufficientMemory",
                format!(
                    "Node {} status is now: NodeHasInsufficientMemory",
                    info.name
                ),
                true,
                "kubelet",
            )
        } else if info.ready_since == now {
            (
                "NodeReady",
                format!("Node {} status is now: NodeReady", info.name),
                false,
                "kubelet",
            )
        } else {
            (
                "NodeHasSufficientMemory",
                format!("Node {} status is now: NodeHasSufficientMemory", info.name),
                false,
                "kubelet",
            )
        };
        let name: Arc<str> = Arc::from(info.name.as_str());
        let uid: Arc<str> = Arc::from(info.uid.as_str());
        let host = (comp == "kubelet").then(|| info.name.clone());
        self.record_event(
            Arc::from("default"),
            ("v1", "Node", name, uid, None),
            reason,
            msg,
            warn,
            comp,
            host,
            out,
        );
    }

    /// A kubelet posts its node status (heartbeat), as every node does every few seconds.
    fn node_heartbeat(&mut self, out: &mut Vec<Mutation>) {
        if self.nodes.is_empty() {
            return;
        }
        let i = self.below(self.nodes.len());
        let now = self.now_s();
        let n = &mut self.nodes[i];
        if !n.alive || !n.info.ready {
            return;
        }
        n.info.heartbeat = now;
        out.push(Mutation::Update {
            resource: NODES,
            object: objects::node(&n.info),
        });
    }

    fn touch_widget(&mut self, out: &mut Vec<Mutation>) {
        let live: Vec<usize> = (0..self.widgets.len())
            .filter(|&i| self.widgets[i].is_some())
            .collect();
        if live.is_empty() {
            return self.node_heartbeat(out);
        }
        let i = live[self.below(live.len())];
        let bump = self.chance(0.4);
        let replicas = 1 + self.below(6) as u32;
        let Some(w) = self.widgets.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        w.phase = match w.phase {
            "Ready" if bump => "Pending",
            "Ready" => "Degraded",
            "Pending" => "Ready",
            _ => "Ready",
        };
        if bump {
            w.generation += 1;
            w.replicas = replicas;
        }
        out.push(Mutation::Update {
            resource: WIDGETS,
            object: objects::widget(w),
        });
    }

    // -----------------------------------------------------------------------------------------
    // Rejections
    // -----------------------------------------------------------------------------------------

    /// The server refused `m` (typically: the object was deleted or replaced behind the
    /// simulator's back, e.g. with kubectl). The model forgets the object, cascades what the
    /// garbage collector would (pods of a forgotten ReplicaSet, ReplicaSets of a forgotten
    /// Deployment) and lets controllers recreate what they own on later ticks.
    pub fn rejected(&mut self, m: &Mutation) {
        let (resource, ns, name, was_create) = match m {
            Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
                let ns = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let Some(name) = object.pointer("/metadata/name").and_then(Value::as_str) else {
                    return;
                };
                (
                    *resource,
                    ns,
                    name.to_string(),
                    matches!(m, Mutation::Create { .. }),
                )
            }
            // A refused delete means the object is already gone; the model forgot it already.
            Mutation::Delete { .. } => return,
        };
        let _ = was_create;
        let k = match &ns {
            Some(ns) => key(ns, &name),
            None => name.clone(),
        };
        self.purge_pending(resource, ns.as_deref(), &name);
        match resource.plural {
            "pods" => {
                if let Some(p) = self.remove_pod(&k) {
                    self.dirty.push_back((p.workload, p.set));
                }
            }
            "replicasets" => {
                let Some(ns) = ns else { return };
                let found = self.workloads.iter().enumerate().find_map(|(wi, wl)| {
                    (wl.kind == WKind::Deployment && *wl.ns == *ns)
                        .then(|| {
                            wl.sets
                                .iter()
                                .find(|s| *s.name == *name)
                                .map(|s| (wi as u32, s.id))
                        })
                        .flatten()
                });
                if let Some((w, set_id)) = found {
                    self.forget_set(w, set_id);
                }
            }
            "deployments" | "statefulsets" | "daemonsets" | "jobs" => {
                if let Some(&w) = self.workload_index.get(&(resource.plural, k.clone())) {
                    self.forget_workload(w);
                }
            }
            "nodes" => {
                if let Some(i) = self
                    .nodes
                    .iter()
                    .position(|n| n.info.name == name && n.alive)
                {
                    self.nodes[i].alive = false;
                    let on_node: Vec<String> = self
                        .pods
                        .iter()
                        .filter(|p| p.node == Some(i as u32))
                        .map(|p| key(&p.ns, &p.name))
                        .collect();
                    for pk in on_node {
                        if let Some(p) = self.remove_pod(&pk) {
                            self.pending.push_back(Mutation::Delete {
                                resource: PODS,
                                namespace: Some(p.ns.to_string()),
                                name: p.name.to_string(),
                            });
                            let kind = self.workloads.get(p.workload as usize).map(|w| w.kind);
                            if matches!(kind, Some(WKind::Deployment | WKind::StatefulSet)) {
                                self.dirty.push_back((p.workload, p.set));
                            }
                        }
                    }
                }
            }
            "events" => {
                if let Some(e) = self.events.remove(&k) {
                    let agg = (e.involved.3.clone(), e.reason);
                    if self.event_agg.get(&agg) == Some(&k) {
                        self.event_agg.remove(&agg);
                    }
                }
            }
            "widgets" => {
                for w in self.widgets.iter_mut() {
                    if w.as_ref()
                        .is_some_and(|x| x.name == name && Some(&x.namespace) == ns.as_ref())
                    {
                        *w = None;
                    }
                }
            }
            other => {
                self.statics.remove(&(other, k));
            }
        }
    }

    fn purge_pending(&mut self, resource: ResourceId, ns: Option<&str>, name: &str) {
        self.pending.retain(|m| match m {
            Mutation::Create {
                resource: r,
                object,
            }
            | Mutation::Update {
                resource: r,
                object,
            } => {
                !(*r == resource
                    && object.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
                    && object
                        .pointer("/metadata/namespace")
                        .and_then(Value::as_str)
                        == ns)
            }
            Mutation::Delete {
                resource: r,
                namespace,
                name: n,
            } => !(*r == resource && n == name && namespace.as_deref() == ns),
        });
    }

    /// A ReplicaSet vanished: its pods are garbage-collected; if it was the deployment's current
    /// one, the deployment controller creates it again (same template hash, new uid).
    fn forget_set(&mut self, w: u32, set_id: u32) {
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        let Some(pos) = wl.sets.iter().position(|s| s.id == set_id) else {
            return;
        };
        let is_current = pos + 1 == wl.sets.len();
        let ns = wl.ns.clone();
        let pods: Vec<Arc<str>> = wl.sets[pos].pods.clone();
        for p in pods {
            let k = key(&ns, &p);
            if self.remove_pod(&k).is_some() {
                self.purge_pending(PODS, Some(&ns), &p);
                self.pending.push_back(Mutation::Delete {
                    resource: PODS,
                    namespace: Some(ns.to_string()),
                    name: p.to_string(),
                });
            }
        }
        let uid = self.new_uid();
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        if is_current {
            if let Some(s) = wl.sets.get_mut(pos) {
                s.uid = uid;
            }
            let Some(wl) = self.workloads.get(w as usize) else {
                return;
            };
            if let Some(s) = wl.set(set_id) {
                self.pending.push_back(Mutation::Create {
                    resource: REPLICASETS,
                    object: self.render_rs(wl, s),
                });
            }
            self.dirty.push_back((w, set_id));
        } else {
            wl.sets.remove(pos);
        }
    }

    /// A workload vanished: everything it owns is garbage-collected.
    fn forget_workload(&mut self, w: u32) {
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        wl.alive = false;
        wl.rolling = false;
        let ns = wl.ns.clone();
        let kind = wl.kind;
        let sets: Vec<(Arc<str>, Vec<Arc<str>>)> = wl
            .sets
            .iter()
            .map(|s| (s.name.clone(), s.pods.clone()))
            .collect();
        wl.sets.iter_mut().for_each(|s| s.replicas = 0);
        for (set_name, pods) in sets {
            for p in pods {
                let k = key(&ns, &p);
                if self.remove_pod(&k).is_some() {
                    self.purge_pending(PODS, Some(&ns), &p);
                    self.pending.push_back(Mutation::Delete {
                        resource: PODS,
                        namespace: Some(ns.to_string()),
                        name: p.to_string(),
                    });
                }
            }
            if kind == WKind::Deployment {
                self.purge_pending(REPLICASETS, Some(&ns), &set_name);
                self.pending.push_back(Mutation::Delete {
                    resource: REPLICASETS,
                    namespace: Some(ns.to_string()),
                    name: set_name.to_string(),
                });
            }
        }
        self.rollouts.retain(|&x| x != w);
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

fn render_event(e: &Ev) -> Value {
    objects::event(&objects::EventView {
        namespace: &e.ns,
        name: &e.name,
        uid: &e.uid,
        involved: (
            e.involved.0,
            e.involved.1,
            &e.involved.2,
            &e.involved.3,
            e.involved.4.as_deref(),
        ),
        reason: e.reason,
        message: &e.message,
        warning: e.warning,
        count: e.count,
        first: e.first,
        last: e.last,
        component: e.component,
        host: e.host.as_deref(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, HashSet};
    use std::time::Instant;

    /// A strict stand-in for the server's store: creates must be new, updates and deletes must
    /// target an existing object.
    #[derive(Default)]
    struct Shadow {
        objs: BTreeMap<(&'static str, String), Value>,
    }

    fn target(m: &Mutation) -> (&'static str, String) {
        match m {
            Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
                let ns = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str);
                let name = object
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                (
                    resource.plural,
                    ns.map(|n| key(n, name)).unwrap_or_else(|| name.to_string()),
                )
            }
            Mutation::Delete {
                resource,
                namespace,
                name,
            } => (
                resource.plural,
                namespace
                    .as_deref()
                    .map(|n| key(n, name))
                    .unwrap_or_else(|| name.clone()),
            ),
        }
    }

    impl Shadow {
        fn apply(&mut self, m: &Mutation) -> Result<(), String> {
            let k = target(m);
            match m {
                Mutation::Create { object, .. } => {
                    if self.objs.contains_key(&k) {
                        return Err(format!("create of existing {k:?}"));
                    }
                    self.objs.insert(k, object.clone());
                }
                Mutation::Update { object, .. } => match self.objs.get_mut(&k) {
                    Some(v) => *v = object.clone(),
                    None => return Err(format!("update of missing {k:?}")),
                },
                Mutation::Delete { .. } => {
                    if self.objs.remove(&k).is_none() {
                        return Err(format!("delete of missing {k:?}"));
                    }
                }
            }
            Ok(())
        }
        fn count(&self, plural: &str) -> usize {
            self.objs.keys().filter(|(p, _)| *p == plural).count()
        }
        fn get(&self, plural: &'static str, k: &str) -> Option<&Value> {
            self.objs.get(&(plural, k.to_string()))
        }
    }

    fn small() -> SimConfig {
        SimConfig {
            pods: 400,
            nodes: 8,
            namespaces: 10,
            seed: 42,
            max_events: 500,
            ..SimConfig::default()
        }
    }

    fn run(cfg: SimConfig, ticks: usize, per_tick: usize) -> (Vec<Mutation>, Vec<Vec<Mutation>>) {
        let mut sim = Simulator::new(cfg);
        let seed = sim.seed_mutations();
        let batches = (0..ticks).map(|_| sim.tick(per_tick)).collect();
        (seed, batches)
    }

    fn str_at<'a>(v: &'a Value, ptr: &str) -> &'a str {
        v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
    }

    #[test]
    fn same_seed_gives_same_mutations() {
        let a = run(small(), 40, 50);
        let b = run(small(), 40, 50);
        assert_eq!(a, b);
        let c = run(
            SimConfig {
                seed: 43,
                ..small()
            },
            40,
            50,
        );
        assert_ne!(a.0, c.0);
    }

    #[test]
    fn seed_counts_match_config() {
        for (pods, nodes, namespaces) in [(5, 1, 2), (30, 3, 4), (1_000, 12, 12), (2_500, 40, 25)] {
            let mut sim = Simulator::new(SimConfig {
                pods,
                nodes,
                namespaces,
                ..SimConfig::default()
            });
            let mut shadow = Shadow::default();
            for m in sim.seed_mutations() {
                shadow.apply(&m).unwrap();
            }
            assert_eq!(
                shadow.count("pods"),
                pods,
                "pods for {pods}/{nodes}/{namespaces}"
            );
            assert_eq!(shadow.count("nodes"), nodes);
            assert_eq!(shadow.count("namespaces"), namespaces);
            assert_eq!(sim.pod_count(), pods);
            assert_eq!(shadow.count("customresourcedefinitions"), 1);
            assert_eq!(shadow.count("widgets"), sim.config().widgets);
            for ns in ["default", "kube-system"] {
                assert!(shadow.get("namespaces", ns).is_some(), "{ns} missing");
            }
        }
    }

    #[test]
    fn seed_has_every_kind_a_real_cluster_has() {
        let mut sim = Simulator::new(SimConfig::default());
        let mut shadow = Shadow::default();
        for m in sim.seed_mutations() {
            shadow.apply(&m).unwrap();
        }
        for plural in [
            "namespaces",
            "nodes",
            "pods",
            "services",
            "configmaps",
            "secrets",
            "serviceaccounts",
            "events",
            "deployments",
            "replicasets",
            "statefulsets",
            "daemonsets",
            "jobs",
            "customresourcedefinitions",
            "widgets",
        ] {
            assert!(shadow.count(plural) > 0, "no {plural} seeded");
        }
        let roles: HashSet<bool> = shadow
            .objs
            .iter()
            .filter(|((p, _), _)| *p == "nodes")
            .map(|(_, v)| {
                v.pointer("/metadata/labels/node-role.kubernetes.io~1control-plane")
                    .is_some()
            })
            .collect();
        assert_eq!(roles.len(), 2, "control-plane and worker nodes");
        let crd = shadow.get("customresourcedefinitions", WIDGET_CRD).unwrap();
        assert_eq!(str_at(crd, "/spec/names/kind"), "Widget");
        assert_eq!(str_at(crd, "/spec/scope"), "Namespaced");
        assert!(
            crd.pointer("/spec/versions/0/additionalPrinterColumns/0")
                .is_some()
        );
    }

    const WIDGET_CRD: &str = objects::WIDGET_CRD_NAME;

    fn namespaced(plural: &str) -> bool {
        !matches!(plural, "namespaces" | "nodes" | "customresourcedefinitions")
    }

    #[test]
    fn every_mutation_is_a_well_formed_object() {
        let (seed, batches) = run(small(), 60, 100);
        for m in seed.iter().chain(batches.iter().flatten()) {
            match m {
                Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
                    let text = serde_json::to_string(object).unwrap();
                    let back: Value = serde_json::from_str(&text).unwrap();
                    let gv = if resource.group.is_empty() {
                        resource.version.to_string()
                    } else {
                        format!("{}/{}", resource.group, resource.version)
                    };
                    assert_eq!(str_at(&back, "/apiVersion"), gv, "{text}");
                    assert!(!str_at(&back, "/kind").is_empty(), "{text}");
                    assert!(!str_at(&back, "/metadata/name").is_empty(), "{text}");
                    assert!(!str_at(&back, "/metadata/uid").is_empty(), "{text}");
                    assert!(
                        !str_at(&back, "/metadata/creationTimestamp").is_empty(),
                        "{text}"
                    );
                    assert_eq!(
                        back.pointer("/metadata/namespace").is_some(),
                        namespaced(resource.plural),
                        "{text}"
                    );
                }
                Mutation::Delete {
                    resource,
                    namespace,
                    name,
                } => {
                    assert!(!name.is_empty());
                    assert_eq!(namespace.is_some(), namespaced(resource.plural));
                }
            }
        }
    }

    #[test]
    fn ticks_only_update_or_delete_objects_that_exist() {
        let mut sim = Simulator::new(small());
        let mut shadow = Shadow::default();
        for m in sim.seed_mutations() {
            shadow.apply(&m).unwrap();
        }
        let mut kinds = HashSet::new();
        for _ in 0..300 {
            let batch = sim.tick(100);
            assert_eq!(batch.len(), 100);
            for m in &batch {
                shadow.apply(m).unwrap();
                kinds.insert((std::mem::discriminant(m), target(m).0));
            }
        }
        // The churn is varied: pods are created, updated and deleted; events come and go.
        for (m, plural) in [
            (
                Mutation::Delete {
                    resource: PODS,
                    namespace: None,
                    name: String::new(),
                },
                "pods",
            ),
            (
                Mutation::Delete {
                    resource: EVENTS,
                    namespace: None,
                    name: String::new(),
                },
                "events",
            ),
        ] {
            assert!(
                kinds.contains(&(std::mem::discriminant(&m), plural)),
                "no delete of {plural}"
            );
        }
        for plural in [
            "pods",
            "replicasets",
            "deployments",
            "nodes",
            "events",
            "widgets",
        ] {
            let upd = Mutation::Update {
                resource: PODS,
                object: Value::Null,
            };
            assert!(
                kinds.contains(&(std::mem::discriminant(&upd), plural)),
                "no update of {plural}"
            );
        }
    }

    /// Checks every pod's controller reference against the shadow store.
    fn assert_pods_owned(shadow: &Shadow) {
        let mut rs_owned = 0;
        for ((plural, k), pod) in &shadow.objs {
            if *plural != "pods" {
                continue;
            }
            let ns = str_at(pod, "/metadata/namespace");
            let refs = pod
                .pointer("/metadata/ownerReferences")
                .and_then(Value::as_array)
                .unwrap();
            let controllers: Vec<&Value> = refs
                .iter()
                .filter(|r| r.get("controller") == Some(&Value::Bool(true)))
                .collect();
            assert_eq!(controllers.len(), 1, "{k}");
            let r = controllers[0];
            let (kind, name, uid) = (str_at(r, "/kind"), str_at(r, "/name"), str_at(r, "/uid"));
            let owner = match kind {
                "ReplicaSet" => shadow.get("replicasets", &key(ns, name)),
                "StatefulSet" => shadow.get("statefulsets", &key(ns, name)),
                "DaemonSet" => shadow.get("daemonsets", &key(ns, name)),
                "Job" => shadow.get("jobs", &key(ns, name)),
                "Node" => shadow.get("nodes", name),
                other => panic!("unexpected owner kind {other}"),
            };
            let owner = owner.unwrap_or_else(|| panic!("{k}: owner {kind} {name} missing"));
            assert_eq!(str_at(owner, "/metadata/uid"), uid, "{k}");
            if kind == "ReplicaSet" {
                rs_owned += 1;
                let hash = str_at(pod, "/metadata/labels/pod-template-hash");
                assert_eq!(
                    str_at(owner, "/metadata/labels/pod-template-hash"),
                    hash,
                    "{k}"
                );
                assert!(
                    k.starts_with(&format!("{ns}/{name}-")),
                    "{k} not named after {name}"
                );
                let d = str_at(owner, "/metadata/ownerReferences/0/name");
                let duid = str_at(owner, "/metadata/ownerReferences/0/uid");
                assert_eq!(
                    str_at(owner, "/metadata/ownerReferences/0/kind"),
                    "Deployment"
                );
                let dep = shadow
                    .get("deployments", &key(ns, d))
                    .unwrap_or_else(|| panic!("{k}: deployment {d} missing"));
                assert_eq!(str_at(dep, "/metadata/uid"), duid);
            }
        }
        assert!(rs_owned > 0);
    }

    #[test]
    fn pods_are_owned_by_replicasets_owned_by_existing_deployments() {
        let mut sim = Simulator::new(small());
        let mut shadow = Shadow::default();
        for m in sim.seed_mutations() {
            shadow.apply(&m).unwrap();
        }
        assert_pods_owned(&shadow);
        for round in 0..20 {
            for m in sim.tick(250) {
                shadow.apply(&m).unwrap();
            }
            if round % 5 == 4 {
                assert_pods_owned(&shadow);
            }
        }
        // Every ReplicaSet is owned by an existing Deployment too.
        for ((plural, k), rs) in &shadow.objs {
            if *plural == "replicasets" {
                let ns = str_at(rs, "/metadata/namespace");
                let d = str_at(rs, "/metadata/ownerReferences/0/name");
                assert!(shadow.get("deployments", &key(ns, d)).is_some(), "{k}");
            }
        }
    }

    #[test]
    fn crash_looping_pods_restart_count_only_rises() {
        let mut sim = Simulator::new(SimConfig {
            crash_fraction: 0.1,
            ..small()
        });
        let mut restarts: HashMap<String, u64> = HashMap::new();
        let mut rises = 0;
        let mut backoffs = 0;
        let (seed, ticks) = (
            sim.seed_mutations(),
            (0..200).flat_map(|_| sim.tick(100)).collect::<Vec<_>>(),
        );
        for m in seed.iter().chain(ticks.iter()) {
            if let Mutation::Create { resource, object } | Mutation::Update { resource, object } = m
                && *resource == PODS
            {
                let uid = str_at(object, "/metadata/uid").to_string();
                let n = object
                    .pointer("/status/containerStatuses/0/restartCount")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                if str_at(object, "/status/containerStatuses/0/state/waiting/reason")
                    == "CrashLoopBackOff"
                {
                    backoffs += 1;
                    assert!(
                        object
                            .pointer("/status/containerStatuses/0/lastState/terminated/exitCode")
                            .is_some()
                    );
                }
                if let Some(prev) = restarts.insert(uid.clone(), n) {
                    assert!(n >= prev, "restartCount of {uid} fell from {prev} to {n}");
                    if n > prev {
                        rises += 1;
                    }
                }
            }
        }
        assert!(rises > 10, "only {rises} restarts observed");
        assert!(
            backoffs > 10,
            "only {backoffs} CrashLoopBackOff states observed"
        );
    }

    #[test]
    fn new_pods_move_from_pending_through_container_creating_to_running() {
        let mut sim = Simulator::new(small());
        sim.seed_mutations();
        let mut seen: HashMap<String, Vec<String>> = HashMap::new();
        for _ in 0..100 {
            for m in sim.tick(100) {
                if let Mutation::Create { resource, object } | Mutation::Update { resource, object } =
                    &m
                    && *resource == PODS
                {
                    let phase = str_at(object, "/status/phase");
                    let waiting =
                        str_at(object, "/status/containerStatuses/0/state/waiting/reason");
                    let ready = object.pointer("/status/containerStatuses/0/ready")
                        == Some(&Value::Bool(true));
                    let label = match (phase, waiting, ready) {
                        ("Pending", "ContainerCreating", _) => "ContainerCreating",
                        ("Pending", _, _) => "Pending",
                        ("Running", _, true) => {
                            assert!(!str_at(object, "/status/podIP").is_empty());
                            assert!(!str_at(object, "/spec/nodeName").is_empty());
                            assert!(!str_at(object, "/status/startTime").is_empty());
                            "Running"
                        }
                        _ => "other",
                    };
                    seen.entry(str_at(object, "/metadata/uid").to_string())
                        .or_default()
                        .push(label.to_string());
                }
            }
        }
        let full = seen
            .values()
            .filter(|v| {
                v.len() >= 3
                    && v[0] == "Pending"
                    && v[1] == "ContainerCreating"
                    && v[2] == "Running"
            })
            .count();
        assert!(
            full > 20,
            "only {full} pods went Pending → ContainerCreating → Running"
        );
    }

    #[test]
    fn rollouts_create_a_replicaset_with_a_new_template_hash_and_move_pods() {
        let mut sim = Simulator::new(small());
        let mut shadow = Shadow::default();
        for m in sim.seed_mutations() {
            shadow.apply(&m).unwrap();
        }
        let mut new_rs = Vec::new();
        for _ in 0..300 {
            for m in sim.tick(100) {
                if let Mutation::Create { resource, object } = &m
                    && *resource == REPLICASETS
                {
                    new_rs.push(key(
                        str_at(object, "/metadata/namespace"),
                        str_at(object, "/metadata/name"),
                    ));
                }
                shadow.apply(&m).unwrap();
            }
        }
        assert!(!new_rs.is_empty(), "no rollout happened");
        let moved = new_rs.iter().any(|k| {
            shadow.get("replicasets", k).is_some_and(|rs| {
                let hash = str_at(rs, "/metadata/labels/pod-template-hash");
                rs.pointer("/spec/replicas")
                    .and_then(Value::as_u64)
                    .unwrap_or(0)
                    > 0
                    && shadow.objs.iter().any(|((p, _), pod)| {
                        *p == "pods" && str_at(pod, "/metadata/labels/pod-template-hash") == hash
                    })
            })
        });
        assert!(moved, "no new ReplicaSet got pods");
    }

    #[test]
    fn events_describe_what_happened_and_old_ones_are_deleted() {
        let mut sim = Simulator::new(SimConfig {
            max_events: 200,
            ..small()
        });
        let mut shadow = Shadow::default();
        for m in sim.seed_mutations() {
            shadow.apply(&m).unwrap();
        }
        let mut reasons = HashSet::new();
        for _ in 0..200 {
            for m in sim.tick(100) {
                shadow.apply(&m).unwrap();
                if let Mutation::Create { resource, object } | Mutation::Update { resource, object } =
                    &m
                    && *resource == EVENTS
                {
                    reasons.insert(str_at(object, "/reason").to_string());
                    for f in [
                        "/involvedObject/kind",
                        "/involvedObject/name",
                        "/involvedObject/uid",
                        "/message",
                        "/type",
                        "/firstTimestamp",
                        "/lastTimestamp",
                        "/source/component",
                    ] {
                        assert!(!str_at(object, f).is_empty(), "{f} missing in {object}");
                    }
                    assert!(object.get("count").and_then(Value::as_u64).unwrap_or(0) >= 1);
                }
            }
            assert!(
                shadow.count("events") <= 200 + 60,
                "{} events kept",
                shadow.count("events")
            );
        }
        for r in [
            "Scheduled",
            "Pulled",
            "Created",
            "Started",
            "BackOff",
            "Killing",
            "SuccessfulCreate",
            "SuccessfulDelete",
            "ScalingReplicaSet",
        ] {
            assert!(reasons.contains(r), "no {r} event in {reasons:?}");
        }
    }

    #[test]
    fn timestamps_follow_the_configured_start() {
        let cfg = small();
        let start = cfg.start.timestamp();
        let (seed, batches) = run(cfg.clone(), 20, 50);
        let parse = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().timestamp();
        for m in seed.iter().chain(batches.iter().flatten()) {
            if let Mutation::Create { object, .. } | Mutation::Update { object, .. } = m {
                let t = parse(str_at(object, "/metadata/creationTimestamp"));
                assert!(t <= start + 3600, "{object}");
                assert!(t > start - 200 * 86_400, "{object}");
            }
        }
        let later = SimConfig {
            start: cfg.start + chrono::Duration::days(10),
            ..cfg
        };
        let (seed2, _) = run(later, 0, 0);
        let t1 = parse(str_at(
            seed.last()
                .map(|m| match m {
                    Mutation::Create { object, .. } => object,
                    _ => panic!(),
                })
                .unwrap(),
            "/metadata/creationTimestamp",
        ));
        let t2 = parse(str_at(
            seed2
                .last()
                .map(|m| match m {
                    Mutation::Create { object, .. } => object,
                    _ => panic!(),
                })
                .unwrap(),
            "/metadata/creationTimestamp",
        ));
        assert_eq!(t2 - t1, 10 * 86_400);
    }

    #[test]
    fn rejected_objects_are_forgotten_and_not_touched_again() {
        let mut sim = Simulator::new(SimConfig { seed: 9, ..small() });
        let mut shadow = Shadow::default();
        for m in sim.seed_mutations() {
            shadow.apply(&m).unwrap();
        }
        // A user deletes some pods, a ReplicaSet and a Deployment behind the simulator's back.
        let victims: Vec<(&'static str, String)> = {
            let pods: Vec<_> = shadow
                .objs
                .keys()
                .filter(|(p, _)| *p == "pods")
                .step_by(7)
                .cloned()
                .collect();
            let rs = shadow
                .objs
                .keys()
                .find(|(p, _)| *p == "replicasets")
                .cloned();
            let dep = shadow
                .objs
                .keys()
                .filter(|(p, _)| *p == "deployments")
                .nth(3)
                .cloned();
            pods.into_iter().chain(rs).chain(dep).collect()
        };
        for v in &victims {
            shadow.objs.remove(v);
        }
        let mut forgotten: HashMap<(&'static str, String), usize> = HashMap::new();
        let mut rejections = 0;
        for round in 0..400 {
            for m in sim.tick(50) {
                let k = target(&m);
                if let Mutation::Create { .. } = &m {
                    // A controller may recreate a name (StatefulSet pods do).
                    forgotten.remove(&k);
                }
                if let (Mutation::Update { .. }, Some(&r)) = (&m, forgotten.get(&k)) {
                    assert!(
                        r == round,
                        "{k:?} updated in tick {round} after its rejection in tick {r}"
                    );
                }
                if shadow.apply(&m).is_err() {
                    rejections += 1;
                    sim.rejected(&m);
                    forgotten.entry(k).or_insert(round);
                }
            }
        }
        assert!(rejections > 0);
        assert!(
            rejections < victims.len() * 4 + 50,
            "{rejections} rejections"
        );
        // The model stays consistent: pods it manages still point at owners it manages.
        let mut fresh = Shadow::default();
        let mut sim2 = Simulator::new(SimConfig { seed: 9, ..small() });
        for m in sim2.seed_mutations() {
            fresh.apply(&m).unwrap();
        }
        assert!(sim.pod_count() > 0);
    }

    /// User + system CPU seconds of this process (Linux), to report a time that does not depend
    /// on how busy the machine is. 0 where /proc is unavailable.
    fn cpu_seconds() -> f64 {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        let after = stat.rsplit(')').next().unwrap_or("");
        let f: Vec<&str> = after.split_whitespace().collect();
        let ticks: f64 = f.get(11).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0)
            + f.get(12).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
        ticks / 100.0
    }

    fn peak_rss() -> String {
        std::fs::read_to_string("/proc/self/status")
            .unwrap_or_default()
            .lines()
            .find(|l| l.starts_with("VmHWM"))
            .unwrap_or("")
            .to_string()
    }

    #[test]
    fn seeding_150k_pods_is_fast() {
        let cpu0 = cpu_seconds();
        let t = Instant::now();
        let mut sim = Simulator::new(SimConfig {
            pods: 150_000,
            nodes: 1_000,
            namespaces: 40,
            ..SimConfig::default()
        });
        // Consumed as a server would: each object handled, serialized and dropped in turn.
        let (mut pods, mut total, mut bytes) = (0usize, 0usize, 0usize);
        let iter = sim.seed_iter();
        let model = t.elapsed();
        let model_cpu = cpu_seconds() - cpu0;
        for m in iter {
            total += 1;
            if let Mutation::Create { resource, object } = &m
                && *resource == PODS
            {
                pods += 1;
                bytes += serde_json::to_vec(object).map(|v| v.len()).unwrap_or(0);
            }
        }
        let elapsed = t.elapsed();
        let cpu = cpu_seconds() - cpu0;
        println!(
            "seeded 150000 pods ({total} mutations, serialized) in {elapsed:?} wall, \
             {cpu:.2}s process CPU (model: {model:?} wall, {model_cpu:.2}s CPU); \
             {} bytes of JSON per pod; peak {}",
            bytes / 150_000,
            peak_rss()
        );
        assert_eq!(pods, 150_000);
        assert_eq!(sim.pod_count(), 150_000);
        let t = Instant::now();
        let ticks = sim.tick(10_000);
        println!(
            "10000 churn mutations on a 150k-pod cluster in {:?}",
            t.elapsed()
        );
        assert_eq!(ticks.len(), 10_000);
    }
}
