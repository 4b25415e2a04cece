//! The demo cluster's `metrics.k8s.io/v1beta1` API, as metrics-server serves it through the
//! aggregation layer: `PodMetrics` and `NodeMetrics`, get and list only (no watch), listed in
//! discovery like an aggregated API.
//!
//! Usage follows the simulation: each running pod's containers use a baseline of their requests
//! (by a per-pod seed) with noise per scrape window; a few pods are hot (CPU at or over their
//! limit); a few are memory climbers whose memory rises to their limit, at which point the
//! kubelet would OOM-kill the container: [`run_oom_killer`] writes that into the pod's container
//! status (`lastState.terminated.reason: OOMKilled`, `restartCount + 1`) and the climb restarts.
//! A node's usage is the sum of its running pods' usage plus system overhead.
//!
//! Values change once per scrape window ([`DemoMetrics::resolution`], metrics-server's
//! `--metric-resolution`, 15 s by default): two reads in one window agree, as they do against
//! metrics-server.
//!
//! Modes ([`MetricsMode`], set with `POST /_demo/faults/metrics?mode=...` or
//! [`DemoMetrics::set_mode`]): serving; absent (no metrics-server: the group is not in discovery,
//! every path is 404); unavailable (an APIService whose backend is down: listed in `/apis`, but
//! the group version and every request answer 503); forbidden (discovery works, lists are 403).
//!
//! Invariants:
//! - only pods in phase `Running` and scheduled on a node have metrics (metrics-server reports
//!   what the kubelet scraped);
//! - a pod's container list is parsed once per uid (its containers and their resources do not
//!   change during its life) and the cache forgets pods that are gone on the next list;
//! - usage never exceeds a container's memory limit (above it the container is killed).

use crate::informer::wire_values as wv;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::time::Instant;

use super::cluster::{DemoCluster, PageRequest, ReadAt, Stored, UpdateMode};
use super::error::{StatusError, Target};
use super::resources;
use crate::selector::{FieldSelector, LabelSelector};

/// The API group metrics-server registers.
pub const GROUP: &str = "metrics.k8s.io";
/// Its only served version.
pub const VERSION: &str = "v1beta1";

/// System overhead on every node (kubelet, container runtime, OS): CPU in nanocores, bytes.
const NODE_OVERHEAD_CPU_N: u64 = 180_000_000;
const NODE_OVERHEAD_MEM: u64 = 900 * 1024 * 1024;
/// How long a memory climber takes from its start to its limit.
pub const CLIMB_PERIOD: Duration = Duration::from_secs(180);

/// Whether and how the metrics API answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum MetricsMode {
    Serving = 0,
    /// No metrics-server: not in discovery, 404 everywhere.
    Absent = 1,
    /// APIService unavailable: in `/apis`, 503 on the group version and every request.
    Unavailable = 2,
    /// RBAC: discovery works, get/list are 403.
    Forbidden = 3,
}

impl MetricsMode {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "serving" | "on" => Self::Serving,
            "absent" | "off" => Self::Absent,
            "unavailable" | "503" => Self::Unavailable,
            "forbidden" | "403" => Self::Forbidden,
            _ => return None,
        })
    }

    fn from_u8(v: u8) -> Self {
        match v {
            1 => Self::Absent,
            2 => Self::Unavailable,
            3 => Self::Forbidden,
            _ => Self::Serving,
        }
    }
}

/// How a pod's usage behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Normal,
    /// CPU at 85–110% of its limit (3× its request without one), memory high.
    Hot,
    /// Memory rising linearly to its limit over [`CLIMB_PERIOD`], then OOMKilled.
    Climber,
}

/// One container's resources, from the pod spec (CPU in millicores, memory in bytes).
#[derive(Debug, Clone, Default, PartialEq)]
struct ContainerShape {
    name: String,
    cpu_request_m: Option<u64>,
    cpu_limit_m: Option<u64>,
    mem_request: Option<u64>,
    mem_limit: Option<u64>,
}

#[derive(Debug, Clone)]
struct PodShape {
    uid: String,
    containers: Vec<ContainerShape>,
    seed: u64,
    profile: Profile,
    /// When the current climb started (climbers only): first seen, or the last OOM kill.
    climb_start: Instant,
}

/// One container's usage: CPU in nanocores, memory in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub cpu_n: u64,
    pub mem: u64,
}

/// The demo metrics-server.
#[derive(Debug)]
pub struct DemoMetrics {
    mode: AtomicU8,
    resolution: Duration,
    start: Instant,
    start_wall: chrono::DateTime<chrono::Utc>,
    /// Pod key (`ns/name`) → its shape.
    pods: Mutex<HashMap<String, PodShape>>,
}

impl DemoMetrics {
    pub fn new(enabled: bool, resolution: Duration) -> Arc<Self> {
        let mode = if enabled {
            MetricsMode::Serving
        } else {
            MetricsMode::Absent
        };
        Arc::new(Self {
            mode: AtomicU8::new(mode as u8),
            resolution: resolution.max(Duration::from_millis(100)),
            start: Instant::now(),
            start_wall: chrono::Utc::now(),
            pods: Mutex::new(HashMap::new()),
        })
    }

    pub fn mode(&self) -> MetricsMode {
        MetricsMode::from_u8(self.mode.load(Ordering::Relaxed))
    }

    pub fn set_mode(&self, mode: MetricsMode) {
        self.mode.store(mode as u8, Ordering::Relaxed);
    }

    /// The scrape window (metrics-server's `--metric-resolution`).
    pub fn resolution(&self) -> Duration {
        self.resolution
    }

    /// Add the group to an `/apis` `APIGroupList` unless the API is absent.
    pub fn extend_group_list(&self, list: &mut Value) {
        if self.mode() == MetricsMode::Absent {
            return;
        }
        if let Some(groups) = list.get_mut("groups").and_then(Value::as_array_mut) {
            groups.push(group_doc());
        }
    }

    /// Index of the current scrape window and its start time.
    fn window(&self) -> (u64, chrono::DateTime<chrono::Utc>) {
        let elapsed = Instant::now().saturating_duration_since(self.start);
        let res_ms = self.resolution.as_millis().max(1);
        let idx = u64::try_from(elapsed.as_millis() / res_ms).unwrap_or(u64::MAX);
        let offset = u64::try_from(self.resolution.as_millis())
            .unwrap_or(0)
            .saturating_mul(idx);
        let ts = self.start_wall
            + chrono::Duration::milliseconds(i64::try_from(offset).unwrap_or(i64::MAX));
        (idx, ts)
    }

    /// The shape of a stored pod, parsed once per uid.
    fn shape_of(&self, cache: &mut HashMap<String, PodShape>, s: &Stored) -> Option<PodShape> {
        if let Some(p) = cache.get(&s.key)
            && p.uid == s.uid
        {
            return Some(p.clone());
        }
        let doc: PodDoc = serde_json::from_slice(&s.bytes).ok()?;
        let containers: Vec<ContainerShape> = doc
            .spec
            .containers
            .into_iter()
            .map(|c| {
                let r = c.resources.unwrap_or_default();
                let get = |m: &Option<BTreeMap<String, Value>>, k: &str| {
                    m.as_ref()
                        .and_then(|m| m.get(k))
                        .and_then(quantity_str)
                        .map(str::to_string)
                };
                ContainerShape {
                    name: c.name,
                    cpu_request_m: get(&r.requests, "cpu")
                        .and_then(|q| crate::render::metrics::parse_cpu_nanos(&q).ok())
                        .map(|n| n / 1_000_000),
                    cpu_limit_m: get(&r.limits, "cpu")
                        .and_then(|q| crate::render::metrics::parse_cpu_nanos(&q).ok())
                        .map(|n| n / 1_000_000),
                    mem_request: get(&r.requests, "memory")
                        .and_then(|q| crate::render::metrics::parse_bytes(&q).ok()),
                    mem_limit: get(&r.limits, "memory")
                        .and_then(|q| crate::render::metrics::parse_bytes(&q).ok()),
                }
            })
            .collect();
        let seed = hash64(s.uid.as_bytes());
        let has_mem_limit = containers.iter().any(|c| c.mem_limit.is_some());
        let profile = if seed % 29 == 3 {
            Profile::Hot
        } else if seed % 101 == 7 && has_mem_limit {
            Profile::Climber
        } else {
            Profile::Normal
        };
        // A climber first seen mid-life starts part-way up (by its seed), so a fresh demo shows
        // climbers at different heights rather than all in step.
        let head_start = CLIMB_PERIOD.mul_f64(((seed >> 20) % 70) as f64 / 100.0);
        let now = Instant::now();
        let shape = PodShape {
            uid: s.uid.clone(),
            containers,
            seed,
            profile,
            climb_start: now.checked_sub(head_start).unwrap_or(now),
        };
        cache.insert(s.key.clone(), shape.clone());
        Some(shape)
    }

    /// Usage of every container of a pod in scrape window `window`.
    fn pod_usage(&self, p: &PodShape, window: u64) -> Vec<Usage> {
        let climb = Instant::now()
            .saturating_duration_since(p.climb_start)
            .as_secs_f64()
            / CLIMB_PERIOD.as_secs_f64();
        p.containers
            .iter()
            .enumerate()
            .map(|(i, c)| container_usage(c, p.profile, p.seed ^ (i as u64), window, climb))
            .collect()
    }

    fn running_pods(
        &self,
        cluster: &DemoCluster,
        ns: Option<&str>,
        filter: &dyn Fn(&Stored) -> bool,
    ) -> Result<Vec<Arc<Stored>>, StatusError> {
        let idx = resources::find("", "v1", "pods").ok_or_else(StatusError::unknown_path)?;
        let req = PageRequest {
            ns,
            at: ReadAt::Latest,
            after: None,
            limit: None,
            continuing: false,
        };
        let page = cluster.list_page(idx, &req, &|s| {
            s.field("status.phase") == Some("Running")
                && s.field("spec.nodeName").is_some_and(|n| !n.is_empty())
                && filter(s)
        })?;
        Ok(page.items)
    }

    /// `PodMetrics` of the running pods matching `filter` (in `ns`, or all namespaces).
    fn pod_metrics(
        &self,
        cluster: &DemoCluster,
        ns: Option<&str>,
        filter: &dyn Fn(&Stored) -> bool,
        unfiltered: bool,
    ) -> Result<Vec<Value>, StatusError> {
        let pods = self.running_pods(cluster, ns, filter)?;
        let (window, ts) = self.window();
        let ts = ts.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let window_s = format!("{}s", self.resolution.as_secs_f64());
        let mut cache = self.pods.lock();
        // Only a list of every running pod may prune the cache of pods gone since.
        let full_list = ns.is_none() && unfiltered;
        let mut seen = HashSet::new();
        let mut out = Vec::with_capacity(pods.len());
        for s in &pods {
            let Some(shape) = self.shape_of(&mut cache, s) else {
                continue;
            };
            if full_list {
                seen.insert(s.key.clone());
            }
            let usage = self.pod_usage(&shape, window);
            let containers: Vec<Value> = shape
                .containers
                .iter()
                .zip(&usage)
                .map(|(c, u)| json!({"name": c.name, "usage": usage_json(*u)}))
                .collect();
            out.push(json!({
                "metadata": {
                    "name": s.name,
                    "namespace": s.namespace,
                    "creationTimestamp": ts,
                    "labels": s.labels,
                },
                "timestamp": ts,
                "window": window_s,
                "containers": containers,
            }));
        }
        if full_list {
            cache.retain(|k, _| seen.contains(k));
        }
        Ok(out)
    }

    /// `NodeMetrics` of every node: the sum of its running pods plus overhead.
    fn node_metrics(
        &self,
        cluster: &DemoCluster,
        filter: &dyn Fn(&Stored) -> bool,
    ) -> Result<Vec<Value>, StatusError> {
        let nidx = resources::find("", "v1", "nodes").ok_or_else(StatusError::unknown_path)?;
        let req = PageRequest {
            ns: None,
            at: ReadAt::Latest,
            after: None,
            limit: None,
            continuing: false,
        };
        let nodes = cluster.list_page(nidx, &req, filter)?.items;
        let pods = self.running_pods(cluster, None, &|_| true)?;
        let (window, ts) = self.window();
        let mut per_node: HashMap<&str, Usage> = HashMap::new();
        {
            let mut cache = self.pods.lock();
            for s in &pods {
                let Some(node) = s.field("spec.nodeName") else {
                    continue;
                };
                let Some(shape) = self.shape_of(&mut cache, s) else {
                    continue;
                };
                let e = per_node.entry(node).or_default();
                for u in self.pod_usage(&shape, window) {
                    e.cpu_n += u.cpu_n;
                    e.mem += u.mem;
                }
            }
            // Every running pod was read: forget the ones gone since.
            let seen: HashSet<&str> = pods.iter().map(|s| s.key.as_str()).collect();
            cache.retain(|k, _| seen.contains(k.as_str()));
        }
        let ts = ts.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let window_s = format!("{}s", self.resolution.as_secs_f64());
        Ok(nodes
            .iter()
            .map(|n| {
                let u = per_node.get(n.name.as_str()).copied().unwrap_or_default();
                let noise = jitter(hash64(n.name.as_bytes()) ^ window, 0.95, 1.05);
                let u = Usage {
                    cpu_n: u.cpu_n + (NODE_OVERHEAD_CPU_N as f64 * noise) as u64,
                    mem: u.mem + NODE_OVERHEAD_MEM,
                };
                json!({
                    "metadata": {"name": n.name, "creationTimestamp": ts, "labels": n.labels},
                    "timestamp": ts,
                    "window": window_s,
                    "usage": usage_json(u),
                })
            })
            .collect())
    }

    /// Climbers whose memory reached their limit: `(pod key, uid)`. Their climb restarts now.
    fn take_oom_victims(&self) -> Vec<(String, String)> {
        let now = Instant::now();
        let mut out = Vec::new();
        for (key, p) in self.pods.lock().iter_mut() {
            if p.profile == Profile::Climber
                && now.saturating_duration_since(p.climb_start) >= CLIMB_PERIOD
            {
                p.climb_start = now;
                out.push((key.clone(), p.uid.clone()));
            }
        }
        out
    }

    /// Answer a request under `/apis/metrics.k8s.io`, or `None` if `path` is not one.
    pub fn serve(
        &self,
        cluster: &DemoCluster,
        method: &http::Method,
        path: &str,
        query: &HashMap<String, String>,
    ) -> Option<Result<Value, StatusError>> {
        let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
        let rest: &[&str] = match segs.as_slice() {
            ["apis", GROUP, rest @ ..] => rest,
            _ => return None,
        };
        Some(self.serve_group(cluster, method, rest, query))
    }

    fn serve_group(
        &self,
        cluster: &DemoCluster,
        method: &http::Method,
        rest: &[&str],
        query: &HashMap<String, String>,
    ) -> Result<Value, StatusError> {
        let mode = self.mode();
        if mode == MetricsMode::Absent {
            return Err(StatusError::unknown_path());
        }
        if mode == MetricsMode::Unavailable && !rest.is_empty() {
            return Err(StatusError::new(
                503,
                wv::REASON_SERVICE_UNAVAILABLE,
                "the server is currently unable to handle the request",
            ));
        }
        let (ns, plural, name): (Option<&str>, &str, Option<&str>) = match rest {
            [] => {
                let mut g = group_doc();
                g["kind"] = json!("APIGroup");
                g["apiVersion"] = json!("v1");
                return Ok(g);
            }
            [VERSION] => return Ok(resource_list()),
            [VERSION, "nodes"] => (None, "nodes", None),
            [VERSION, "nodes", n] => (None, "nodes", Some(*n)),
            [VERSION, "pods"] => (None, "pods", None),
            [VERSION, "namespaces", ns, "pods"] => (Some(*ns), "pods", None),
            [VERSION, "namespaces", ns, "pods", n] => (Some(*ns), "pods", Some(*n)),
            _ => return Err(StatusError::unknown_path()),
        };
        let verb = if name.is_some() { "get" } else { "list" };
        if *method != http::Method::GET
            || query.get("watch").is_some_and(|w| w == "true" || w == "1")
        {
            return Err(StatusError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            )));
        }
        if mode == MetricsMode::Forbidden {
            return Err(StatusError::forbidden(verb, GROUP, plural, ns));
        }
        let sel = |k: &str| query.get(k).map(String::as_str).unwrap_or("");
        let labels = LabelSelector::parse(sel("labelSelector")).map_err(|e| {
            StatusError::bad_request(format!("unable to parse requested label selector: {e}"))
        })?;
        let fields = FieldSelector::parse(sel("fieldSelector")).map_err(|e| {
            StatusError::bad_request(format!("unable to parse requested field selector: {e}"))
        })?;
        let filter = |s: &Stored| {
            name.is_none_or(|n| s.name == n)
                && labels.matches_fn(|k| s.labels.get(k).map(String::as_str))
                && fields.matches(|f| s.field(f))
        };
        let unfiltered = name.is_none() && labels.is_empty() && sel("fieldSelector").is_empty();
        let items = if plural == "pods" {
            self.pod_metrics(cluster, ns, &filter, unfiltered)?
        } else {
            self.node_metrics(cluster, &filter)?
        };
        let kind = if plural == "pods" {
            "PodMetrics"
        } else {
            "NodeMetrics"
        };
        if let Some(n) = name {
            let mut items = items;
            return match items.pop() {
                Some(mut v) => {
                    v["kind"] = json!(kind);
                    v["apiVersion"] = json!(format!("{GROUP}/{VERSION}"));
                    Ok(v)
                }
                None => {
                    let qualified = match ns {
                        Some(ns) => format!("{ns}/{n}"),
                        None => n.to_string(),
                    };
                    Err(StatusError::not_found(&Target {
                        group: GROUP,
                        plural: if plural == "pods" {
                            "podmetrics"
                        } else {
                            "nodemetrics"
                        },
                        name: &qualified,
                    }))
                }
            };
        }
        Ok(json!({
            "kind": format!("{kind}List"),
            "apiVersion": format!("{GROUP}/{VERSION}"),
            "metadata": {},
            "items": items,
        }))
    }
}

fn group_doc() -> Value {
    let gv = json!({"groupVersion": format!("{GROUP}/{VERSION}"), "version": VERSION});
    json!({"name": GROUP, "versions": [gv.clone()], "preferredVersion": gv})
}

fn resource_list() -> Value {
    json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": format!("{GROUP}/{VERSION}"),
        "resources": [
            {"name": "nodes", "singularName": "", "namespaced": false, "kind": "NodeMetrics",
             "verbs": ["get", "list"]},
            {"name": "pods", "singularName": "", "namespaced": true, "kind": "PodMetrics",
             "verbs": ["get", "list"]},
        ],
    })
}

/// metrics-server's format: CPU in nanocores (`123456n`), memory in KiB (`45678Ki`).
fn usage_json(u: Usage) -> Value {
    json!({"cpu": format!("{}n", u.cpu_n), "memory": format!("{}Ki", u.mem / 1024)})
}

fn quantity_str(v: &Value) -> Option<&str> {
    v.as_str()
}

/// Usage of one container in a window. `climb` is the climber's progress (1.0 = at its limit).
fn container_usage(
    c: &ContainerShape,
    profile: Profile,
    seed: u64,
    window: u64,
    climb: f64,
) -> Usage {
    let cpu_req_n = c.cpu_request_m.unwrap_or(50) * 1_000_000;
    let mem_req = c.mem_request.unwrap_or(64 * 1024 * 1024);
    // A per-pod baseline in [0.2, 0.7) of requests, and noise per window.
    let base_cpu = 0.2 + (seed % 1000) as f64 / 2000.0;
    let base_mem = 0.5 + ((seed >> 10) % 1000) as f64 / 2500.0;
    let cpu_noise = jitter(seed ^ window.wrapping_mul(0x9e37_79b9), 0.7, 1.3);
    let mem_noise = jitter(seed ^ window.wrapping_mul(0x85eb_ca6b), 0.97, 1.03);
    let (cpu_n, mem) = match profile {
        Profile::Normal => (
            cpu_req_n as f64 * base_cpu * cpu_noise,
            mem_req as f64 * base_mem * mem_noise,
        ),
        Profile::Hot => {
            let cpu = match c.cpu_limit_m {
                Some(l) => (l * 1_000_000) as f64 * jitter(seed ^ window, 0.85, 1.1),
                None => cpu_req_n as f64 * 3.0 * cpu_noise,
            };
            let mem = match c.mem_limit {
                Some(l) => l as f64 * jitter(seed ^ window ^ 1, 0.8, 0.9),
                None => mem_req as f64 * 1.5,
            };
            (cpu, mem)
        }
        Profile::Climber => {
            let mem = match c.mem_limit {
                Some(l) => l as f64 * (0.3 + 0.7 * climb.clamp(0.0, 1.0)),
                None => mem_req as f64 * base_mem,
            };
            (cpu_req_n as f64 * base_cpu * cpu_noise, mem)
        }
    };
    let mut mem = mem as u64;
    if let Some(l) = c.mem_limit {
        mem = mem.min(l);
    }
    Usage {
        cpu_n: cpu_n as u64,
        mem,
    }
}

/// A deterministic value in `[lo, hi)` from a seed.
fn jitter(seed: u64, lo: f64, hi: f64) -> f64 {
    let x = splitmix(seed);
    lo + (hi - lo) * ((x >> 11) as f64 / (1u64 << 53) as f64)
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a, then splitmix: stable across runs and platforms.
fn hash64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    splitmix(h)
}

#[derive(Deserialize)]
struct PodDoc {
    spec: PodSpecDoc,
}

#[derive(Deserialize)]
struct PodSpecDoc {
    #[serde(default)]
    containers: Vec<ContainerDoc>,
}

#[derive(Deserialize)]
struct ContainerDoc {
    name: String,
    #[serde(default)]
    resources: Option<ResourcesDoc>,
}

#[derive(Deserialize, Default)]
struct ResourcesDoc {
    #[serde(default)]
    requests: Option<BTreeMap<String, Value>>,
    #[serde(default)]
    limits: Option<BTreeMap<String, Value>>,
}

/// The kubelet's side of a memory climber: once per scrape window, every climber that reached its
/// memory limit gets its container status rewritten as an OOM kill and restart. Ends when
/// `stop` changes.
pub async fn run_oom_killer(
    metrics: Arc<DemoMetrics>,
    cluster: Arc<DemoCluster>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut tick = tokio::time::interval(metrics.resolution());
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = tick.tick() => {}
            _ = stop.changed() => return,
        }
        if metrics.mode() == MetricsMode::Absent {
            continue;
        }
        for (key, uid) in metrics.take_oom_victims() {
            if let Err(e) = oom_kill(&cluster, &key, &uid) {
                tracing::debug!(%key, error = %e, "demo OOM kill not recorded");
            }
        }
    }
}

/// Record an OOM kill and restart of a pod's first container with a memory limit.
pub fn oom_kill(cluster: &DemoCluster, key: &str, uid: &str) -> Result<(), StatusError> {
    let idx = resources::find("", "v1", "pods").ok_or_else(StatusError::unknown_path)?;
    let (ns, name) = key.split_once('/').ok_or_else(StatusError::unknown_path)?;
    let stored = cluster.get_stored(idx, Some(ns), name)?;
    if stored.uid != uid {
        return Ok(());
    }
    let mut pod = stored.value()?;
    let limited: Option<String> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.pointer("/resources/limits/memory").is_some())
        })
        .and_then(|c| c.get("name"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let Some(cname) = limited else {
        return Ok(());
    };
    let now = super::cluster::now_rfc3339();
    let Some(statuses) = pod
        .pointer_mut("/status/containerStatuses")
        .and_then(Value::as_array_mut)
    else {
        return Ok(());
    };
    let Some(cs) = statuses
        .iter_mut()
        .find(|c| c.get("name").and_then(Value::as_str) == Some(cname.as_str()))
    else {
        return Ok(());
    };
    let started = cs
        .pointer("/state/running/startedAt")
        .cloned()
        .unwrap_or_else(|| json!(now));
    let restarts = cs.get("restartCount").and_then(Value::as_i64).unwrap_or(0);
    let container_id = cs.get("containerID").cloned().unwrap_or(Value::Null);
    cs["lastState"] = json!({"terminated": {
        "exitCode": 137, "reason": "OOMKilled", "startedAt": started, "finishedAt": now,
        "containerID": container_id,
    }});
    cs["state"] = json!({"running": {"startedAt": now}});
    cs["restartCount"] = json!(restarts + 1);
    cs["ready"] = json!(true);
    cs["started"] = json!(true);
    cluster.update(idx, Some(ns), name, pod, UpdateMode::Status)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(profile: Profile) -> ContainerShape {
        let _ = profile;
        ContainerShape {
            name: "app".into(),
            cpu_request_m: Some(100),
            cpu_limit_m: Some(500),
            mem_request: Some(128 << 20),
            mem_limit: Some(256 << 20),
        }
    }

    #[test]
    fn usage_is_stable_within_a_window_and_moves_between_windows() {
        let c = shape(Profile::Normal);
        let a = container_usage(&c, Profile::Normal, 42, 7, 0.0);
        let b = container_usage(&c, Profile::Normal, 42, 7, 0.0);
        let n = container_usage(&c, Profile::Normal, 42, 8, 0.0);
        assert_eq!(a, b);
        assert_ne!(a.cpu_n, n.cpu_n);
        // Baseline 0.2–0.7 of requests with ±30% noise stays under the request × 0.91.
        assert!(a.cpu_n < 100_000_000);
    }

    #[test]
    fn hot_pod_runs_near_its_cpu_limit() {
        let c = shape(Profile::Hot);
        let u = container_usage(&c, Profile::Hot, 3, 1, 0.0);
        assert!(u.cpu_n >= 425_000_000 && u.cpu_n <= 550_000_000, "{u:?}");
    }

    #[test]
    fn climber_memory_rises_to_its_limit_and_never_past_it() {
        let c = shape(Profile::Climber);
        let start = container_usage(&c, Profile::Climber, 9, 1, 0.0);
        let mid = container_usage(&c, Profile::Climber, 9, 1, 0.5);
        let end = container_usage(&c, Profile::Climber, 9, 1, 1.4);
        assert!(start.mem < mid.mem && mid.mem < end.mem);
        assert_eq!(end.mem, 256 << 20);
    }

    fn running_pod(ns: &str, name: &str) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": "mem"}},
            "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "x",
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
                              "limits": {"memory": "256Mi"}}}]},
            "status": {"phase": "Running", "containerStatuses": [{"name": "app", "ready": true,
                "restartCount": 2, "containerID": "containerd://abc",
                "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}})
    }

    #[tokio::test(start_paused = true)]
    async fn memory_climber_is_oom_killed_at_its_limit_and_restarts() {
        let cluster = DemoCluster::new(1000);
        let pods = resources::find("", "v1", "pods").expect("pods");
        let ns = resources::find("", "v1", "namespaces").expect("ns");
        let _ = cluster.create(
            ns,
            None,
            json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": "shop"}}),
        );
        cluster
            .create(pods, Some("shop"), running_pod("shop", "climber"))
            .expect("pod");
        let m = DemoMetrics::new(true, Duration::from_secs(15));
        let q = HashMap::new();
        let list = |m: &DemoMetrics| {
            m.serve(
                &cluster,
                &http::Method::GET,
                "/apis/metrics.k8s.io/v1beta1/pods",
                &q,
            )
            .expect("ours")
            .expect("list")
        };
        assert_eq!(list(&m)["items"].as_array().map(Vec::len), Some(1));
        {
            let mut cache = m.pods.lock();
            let p = cache.get_mut("shop/climber").expect("cached");
            p.profile = Profile::Climber;
            p.climb_start = Instant::now();
        }
        let mem = |v: &Value| {
            crate::render::metrics::parse_bytes(
                v["items"][0]["containers"][0]["usage"]["memory"]
                    .as_str()
                    .unwrap_or(""),
            )
            .expect("memory")
        };
        let low = mem(&list(&m));
        tokio::time::advance(CLIMB_PERIOD / 2).await;
        let mid = mem(&list(&m));
        assert!(low < mid && mid < 256 << 20, "{low} {mid}");
        assert!(m.take_oom_victims().is_empty(), "not yet at the limit");
        tokio::time::advance(CLIMB_PERIOD / 2).await;
        assert_eq!(mem(&list(&m)), 256 << 20);
        let victims = m.take_oom_victims();
        assert_eq!(victims.len(), 1);
        oom_kill(&cluster, &victims[0].0, &victims[0].1).expect("kill");
        let pod = cluster
            .get(
                &super::super::mutation::ResourceId::new("", "v1", "pods"),
                Some("shop"),
                "climber",
            )
            .expect("pod");
        let cs = &pod["status"]["containerStatuses"][0];
        assert_eq!(cs["restartCount"], 3);
        assert_eq!(cs["lastState"]["terminated"]["reason"], "OOMKilled");
        assert_eq!(cs["lastState"]["terminated"]["exitCode"], 137);
        assert!(cs["state"]["running"].is_object());
        // The climb starts again from the bottom.
        assert!(mem(&list(&m)) < mid);
    }

    #[test]
    fn mode_parses_admin_spellings() {
        assert_eq!(MetricsMode::parse("absent"), Some(MetricsMode::Absent));
        assert_eq!(MetricsMode::parse("503"), Some(MetricsMode::Unavailable));
        assert_eq!(MetricsMode::parse("403"), Some(MetricsMode::Forbidden));
        assert_eq!(MetricsMode::parse("on"), Some(MetricsMode::Serving));
        assert_eq!(MetricsMode::parse("nope"), None);
    }
}
