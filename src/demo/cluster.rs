//! The demo cluster's storage: an etcd-like keyspace with one global, monotonically increasing
//! resourceVersion, a bounded event history (compaction) and a broadcast of committed events.
//!
//! Invariants:
//! - every write gets `rv = previous rv + 1` and produces exactly one [`Event`], so the history is
//!   contiguous: all events with `rv > compacted` are in `history`, in rv order;
//! - events are broadcast while the state lock is held, so every subscriber sees them in rv order,
//!   and a watcher that subscribes under the lock misses nothing after its snapshot;
//! - objects are stored pre-serialized (`bytes`, with `metadata.resourceVersion` set) together with
//!   the few parsed fields selectors need; lists and watches never re-serialize them;
//! - a past state (continue tokens, `resourceVersionMatch=Exact`) is rebuilt from the current state
//!   and the history's `prev` objects; it is refused with 410 Expired once compacted away.

use crate::informer::wire_values as wv;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine as _;
use bytes::Bytes;
use parking_lot::Mutex;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::error::{StatusError, Target};
use super::managed::{self, WriteOptions};
use super::mutation::{Mutation, ResourceId};
use super::patch::{self, PatchType};
use super::resources::{self, RESOURCES, ResourceInfo};

mod apply;
mod delete;
mod reads;

pub use reads::decode_continue;
use reads::key_bounds;

pub use apply::ApplyRequest;

/// One stored object version.
#[derive(Debug)]
pub struct Stored {
    pub rv: u64,
    /// `namespace/name` or `name` (etcd key order).
    pub key: String,
    pub namespace: Option<String>,
    pub name: String,
    pub uid: String,
    pub labels: BTreeMap<String, String>,
    /// The uids its `metadata.ownerReferences` name (the garbage collector's graph).
    pub owners: Vec<String>,
    /// Field selector values (besides name and namespace) this resource supports.
    pub fields: Vec<(&'static str, String)>,
    /// The JSON object, `metadata.resourceVersion` included.
    pub bytes: Bytes,
    /// Its protobuf message, encoded on first request (`None`: the kind has no protobuf table
    /// or the object a field it lacks), as kube-apiserver's watch cache keeps each object's
    /// serializations.
    pub proto: std::sync::OnceLock<Option<Bytes>>,
}

impl Stored {
    /// A field selector value; absent fields read as `None` (matched as `""`).
    pub fn field(&self, field: &str) -> Option<&str> {
        match field {
            "metadata.name" => Some(&self.name),
            "metadata.namespace" => Some(self.namespace.as_deref().unwrap_or("")),
            f => self
                .fields
                .iter()
                .find(|(k, _)| *k == f)
                .map(|(_, v)| v.as_str()),
        }
    }

    /// The parsed object.
    pub fn value(&self) -> Result<Value, StatusError> {
        serde_json::from_slice(&self.bytes)
            .map_err(|e| StatusError::internal(format!("stored object is corrupt: {e}")))
    }
}

/// Watch event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One committed change.
#[derive(Debug)]
pub struct Event {
    pub rv: u64,
    /// Index into [`RESOURCES`].
    pub resource: usize,
    pub kind: EventType,
    /// The new object (for `Deleted`: the last state, carrying the deletion's rv).
    pub obj: Arc<Stored>,
    /// The object before this change (`None` for `Added`).
    pub prev: Option<Arc<Stored>>,
}

struct State {
    rv: u64,
    objects: Vec<BTreeMap<String, Arc<Stored>>>,
    history: VecDeque<Arc<Event>>,
    /// Every event with `rv > compacted` is in `history`.
    compacted: u64,
    /// The RV the API server's watch cache started at (its last restart): watches from an older
    /// RV get 410 although etcd still has the history, as a restarted kube-apiserver answers.
    watch_cache_since: u64,
    /// The garbage collector's graph: owner uid -> its dependents `(resource, key)`.
    dependents: HashMap<String, BTreeSet<(usize, String)>>,
    /// The simulated kubelet's timer queue: pods in their grace period, by deadline
    /// (`(deadline, rv at marking)` -> `(resource, key, uid)`). A shortened grace adds an earlier
    /// entry; the later one then finds the pod gone.
    kubelet: BTreeMap<(Instant, u64), (usize, String, String)>,
    /// Owners in foreground deletion (uid -> `(resource, key)`), removed once their dependents are.
    foreground: HashMap<String, (usize, String)>,
}

/// `DeleteOptions.propagationPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Propagation {
    /// Remove the owner now; the garbage collector deletes its dependents afterwards.
    Background,
    /// Mark the owner (`foregroundDeletion` finalizer), delete its dependents, then the owner.
    Foreground,
    /// Strip the dependents' ownerReferences to the owner, then remove it.
    Orphan,
}

impl Propagation {
    /// Parse the wire value; an unknown policy is a 400, as the apiserver's validation answers.
    pub fn parse(s: &str) -> Result<Self, StatusError> {
        match s {
            "Background" => Ok(Self::Background),
            "Foreground" => Ok(Self::Foreground),
            "Orphan" => Ok(Self::Orphan),
            other => Err(StatusError::bad_request(format!(
                "DeleteOptions.propagationPolicy: Unsupported value: \"{other}\": supported values: \"Foreground\", \"Background\", \"Orphan\""
            ))),
        }
    }
}

/// What a DELETE asks for (query parameters and the `DeleteOptions` body).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteOptions {
    /// `gracePeriodSeconds`; `None`: the pod's `spec.terminationGracePeriodSeconds` (30 if unset).
    pub grace_period_seconds: Option<i64>,
    /// `propagationPolicy`; `None`: Background.
    pub propagation: Option<Propagation>,
    pub precondition_rv: Option<u64>,
    pub precondition_uid: Option<String>,
}

impl DeleteOptions {
    /// Remove at once (`gracePeriodSeconds=0`), background cascade.
    pub fn now() -> Self {
        Self {
            grace_period_seconds: Some(0),
            ..Self::default()
        }
    }
}

fn is_pod(idx: usize) -> bool {
    RESOURCES[idx].id.group.is_empty() && RESOURCES[idx].id.plural == "pods"
}

fn finalizers(v: &Value) -> Vec<String> {
    v.pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn rfc3339_in(secs: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::seconds(secs))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// Whether a `deletionTimestamp` has passed (an unparsable one counts as passed).
fn deadline_passed(v: &Value) -> bool {
    v.pointer("/metadata/deletionTimestamp")
        .and_then(Value::as_str)
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .is_none_or(|t| t <= chrono::Utc::now())
}

/// Which state a list reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadAt {
    /// The current state (consistent read, or "not older than").
    Latest,
    /// Exactly this resourceVersion.
    Exact(u64),
}

/// What one list page asks for.
#[derive(Debug, Clone, Copy)]
pub struct PageRequest<'a> {
    /// Namespace, or `None` for all namespaces / cluster-scoped.
    pub ns: Option<&'a str>,
    pub at: ReadAt,
    /// The last key returned by the previous page (from a continue token).
    pub after: Option<&'a str>,
    /// Page size; `None` = everything.
    pub limit: Option<usize>,
    /// Whether this continues a previous page (changes the 410 message).
    pub continuing: bool,
}

/// One list page, ready to serialize.
#[derive(Debug)]
pub struct ListResult {
    pub rv: u64,
    pub items: Vec<Arc<Stored>>,
    pub continue_token: Option<String>,
}

/// What a new watch starts with.
pub struct WatchStart {
    /// Synthetic `ADDED` objects (state at `rv`), when requested.
    pub initial: Vec<Arc<Stored>>,
    /// History events after the requested rv, up to `rv`.
    pub backlog: Vec<Arc<Event>>,
    pub rx: broadcast::Receiver<Arc<Event>>,
    /// The cluster rv at subscription time.
    pub rv: u64,
}

/// The demo cluster's state, shared by the HTTP server, the churn loop and tests.
pub struct DemoCluster {
    state: Mutex<State>,
    history_limit: usize,
    events: broadcast::Sender<Arc<Event>>,
    /// Wakes the simulated kubelet when a pod enters its grace period.
    grace_started: tokio::sync::Notify,
}

impl std::fmt::Debug for DemoCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DemoCluster")
            .field("resource_version", &self.resource_version())
            .finish()
    }
}

fn target<'a>(info: &'a ResourceInfo, name: &'a str) -> Target<'a> {
    Target {
        group: info.id.group,
        plural: info.id.plural,
        name,
    }
}

fn make_key(ns: Option<&str>, name: &str) -> String {
    match ns {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    }
}

fn lookup<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |cur, seg| cur.get(seg))
}

fn field_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn random_suffix(n: usize) -> String {
    use rand::Rng as _;
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut rng = rand::rng();
    (0..n)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

fn new_uid() -> String {
    let b: [u8; 16] = rand::random();
    format!(
        "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-4{:01x}{:02x}-{:01x}{:01x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
        b[0],
        b[1],
        b[2],
        b[3],
        b[4],
        b[5],
        b[6] & 0x0f,
        b[7],
        8 | (b[8] & 0x3),
        b[8] >> 4,
        b[9],
        b[10],
        b[11],
        b[12],
        b[13],
        b[14],
        b[15]
    )
}

/// `metav1.Time` formatting, as the apiserver writes `creationTimestamp`.
pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn is_dns_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|l| {
            let ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
            l.chars().next().is_some_and(ok)
                && l.chars().last().is_some_and(ok)
                && l.chars().all(|c| ok(c) || c == '-')
        })
}

/// Parse a resourceVersion parameter.
pub fn parse_rv(s: &str) -> Result<u64, StatusError> {
    s.parse::<u64>()
        .map_err(|_| StatusError::bad_request(format!("invalid resource version: {s:?}")))
}

/// Turn a JSON value into a stored object, setting `metadata.resourceVersion`.
fn store_value(
    info: &ResourceInfo,
    mut v: Value,
    rv: u64,
) -> Result<(Arc<Stored>, Value), StatusError> {
    let meta = v
        .get_mut("metadata")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| StatusError::bad_request("object has no metadata"))?;
    meta.insert("resourceVersion".into(), Value::String(rv.to_string()));
    let name = meta
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let namespace = meta
        .get("namespace")
        .and_then(Value::as_str)
        .map(str::to_string);
    let uid = meta
        .get("uid")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let labels = meta
        .get("labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
                .collect()
        })
        .unwrap_or_default();
    let owners = meta
        .get("ownerReferences")
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .filter_map(|r| r.get("uid").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let fields = info
        .extra_fields
        .iter()
        .filter_map(|f| lookup(&v, f).and_then(field_string).map(|s| (*f, s)))
        .collect();
    // Stored as kube-apiserver returns it: no empty maps nor `omitempty` zeros, so the JSON
    // and the protobuf answers read back the same.
    if let (Some(msg), Some(obj)) = (
        crate::informer::pb::schema::kind(&info.api_version(), info.kind),
        v.as_object_mut(),
    ) {
        crate::informer::pb::omit_empty(obj, msg);
    }
    let bytes = serde_json::to_vec(&v)
        .map_err(|e| StatusError::internal(format!("cannot serialize object: {e}")))?;
    let stored = Stored {
        rv,
        key: make_key(namespace.as_deref(), &name),
        namespace,
        name,
        uid,
        labels,
        owners,
        fields,
        bytes: Bytes::from(bytes),
        proto: std::sync::OnceLock::new(),
    };
    Ok((Arc::new(stored), v))
}

/// A copy of `obj` with another resourceVersion (for DELETED events of objects leaving a selector).
pub fn with_rv(obj: &Stored, rv: u64) -> Result<Bytes, StatusError> {
    let mut v = obj.value()?;
    if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        m.insert("resourceVersion".into(), Value::String(rv.to_string()));
    }
    serde_json::to_vec(&v)
        .map(Bytes::from)
        .map_err(|e| StatusError::internal(e.to_string()))
}

/// How a write treats the incoming object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UpdateMode {
    /// Replace everything but server-owned metadata (what the simulator does).
    Full,
    /// A main-resource PUT/PATCH: `status` is kept from the stored object.
    Spec,
    /// A `/status` PUT/PATCH: only `status` is taken from the request.
    Status,
}

/// Who a simulator write is recorded as in `managedFields`, as kube-apiserver records the
/// component behind each write on a real cluster: a pod's or node's status by the `kubelet`, a
/// workload's status by `kube-controller-manager` (both through `status`), a pod created for a
/// workload by `kube-controller-manager`, anything else created by
/// `kubectl-client-side-apply` (how most clusters' objects come). Events and objects carrying
/// their own entries (the realistic pod shape) record nothing.
fn simulated_writer(resource: &ResourceId, create: bool, object: &Value) -> WriteOptions {
    let none = WriteOptions::default();
    if object.pointer("/metadata/managedFields").is_some() || resource.plural == "events" {
        return none;
    }
    let owned = object.pointer("/metadata/ownerReferences/0").is_some();
    let (manager, subresource) = match (resource.plural, create) {
        ("pods", true) if owned => ("kube-controller-manager", None),
        (_, true) => ("kubectl-client-side-apply", None),
        ("pods" | "nodes", false) => ("kubelet", Some("status")),
        (
            "deployments" | "replicasets" | "statefulsets" | "daemonsets" | "jobs" | "cronjobs",
            false,
        ) => ("kube-controller-manager", Some("status")),
        _ => return none,
    };
    WriteOptions {
        manager: Some(manager.into()),
        dry_run: false,
        subresource: subresource.map(str::to_string),
    }
}

/// kube-apiserver's defaulting of a written object (it defaults every body it decodes: a
/// create, an update, a patch's result), for the fields a printer or the dashboard shows: a
/// CronJob's `suspend` (`SetDefaults_CronJob`: `false`, with `concurrencyPolicy: Allow` and
/// history limits 3 and 1). Other kinds are stored as sent.
fn apply_defaults(kind: &str, v: &mut Value) {
    if kind != "CronJob" {
        return;
    }
    let Some(spec) = v.get_mut("spec").and_then(Value::as_object_mut) else {
        return;
    };
    for (field, default) in [
        ("concurrencyPolicy", json!("Allow")),
        ("suspend", json!(false)),
        ("successfulJobsHistoryLimit", json!(3)),
        ("failedJobsHistoryLimit", json!(1)),
    ] {
        if spec.get(field).is_none_or(Value::is_null) {
            spec.insert(field.into(), default);
        }
    }
}

/// What an etcd backup holds: every object at one revision (see [`DemoCluster::restore`]).
#[derive(Clone)]
pub struct Snapshot {
    rv: u64,
    objects: Vec<BTreeMap<String, Arc<Stored>>>,
}

impl Snapshot {
    /// The revision it was taken at.
    pub fn resource_version(&self) -> u64 {
        self.rv
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot").field("rv", &self.rv).finish()
    }
}

impl State {
    fn empty() -> Self {
        State {
            rv: 0,
            objects: RESOURCES.iter().map(|_| BTreeMap::new()).collect(),
            history: VecDeque::new(),
            compacted: 0,
            watch_cache_since: 0,
            dependents: HashMap::new(),
            kubelet: BTreeMap::new(),
            foreground: HashMap::new(),
        }
    }
}

impl DemoCluster {
    /// An empty cluster with the built-in namespaces and the demo CRD.
    pub fn new(history_limit: usize) -> Arc<Self> {
        let (events, _) = broadcast::channel(65_536);
        let cluster = Arc::new(Self {
            state: Mutex::new(State::empty()),
            history_limit: history_limit.max(1),
            events,
            grace_started: tokio::sync::Notify::new(),
        });
        cluster.seed_builtin();
        cluster
    }

    /// Every object at the current revision (an etcd backup).
    pub fn snapshot(&self) -> Snapshot {
        let st = self.state.lock();
        Snapshot {
            rv: st.rv,
            objects: st.objects.clone(),
        }
    }

    /// etcd restored from `snap`: the objects and the revision go back to the snapshot's (lower
    /// resourceVersions than clients have seen), the history before it is gone, and the watch
    /// cache starts over there. Open watches are not ended here (a restore under a running
    /// API server leaves them silent: their RV is from the future); see
    /// [`super::FaultInjector::restore_snapshot`].
    pub fn restore(&self, snap: &Snapshot) {
        let mut st = self.state.lock();
        st.rv = snap.rv;
        st.objects = snap.objects.clone();
        st.history.clear();
        st.compacted = snap.rv;
        st.watch_cache_since = snap.rv;
        st.kubelet.clear();
        st.foreground.clear();
        let mut dependents: HashMap<String, BTreeSet<(usize, String)>> = HashMap::new();
        for (idx, objects) in st.objects.iter().enumerate() {
            for s in objects.values() {
                for o in &s.owners {
                    dependents
                        .entry(o.clone())
                        .or_default()
                        .insert((idx, s.key.clone()));
                }
            }
        }
        st.dependents = dependents;
    }

    /// Another cluster at the same address: everything is gone, the revision starts again from
    /// zero, and the built-in namespaces come back with new uids (`kube-system`'s uid is the
    /// cluster's identity).
    pub fn recreate(&self) {
        *self.state.lock() = State::empty();
        self.seed_builtin();
    }

    /// The built-in namespaces and the demo CRD.
    fn seed_builtin(&self) {
        let cluster = self;
        let ns = RESOURCES_NAMESPACES;
        for name in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let obj = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name},
                "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
            if let Err(e) = cluster.create(ns, None, obj) {
                tracing::warn!(error = %e, "cannot create built-in namespace");
            }
        }
        if let Some(crd) =
            resources::find("apiextensions.k8s.io", "v1", "customresourcedefinitions")
            && let Err(e) = cluster.create(crd, None, resources::widget_crd())
        {
            tracing::warn!(error = %e, "cannot create the demo CRD");
        }
    }

    /// Whether the kind at `idx` of [`RESOURCES`] is served: the built-in ones always, a generated
    /// provider kind ([`super::provider_crds`]) while its CustomResourceDefinition is stored.
    pub fn serves(&self, idx: usize) -> bool {
        if idx < resources::builtin_len() {
            return true;
        }
        let Some(info) = RESOURCES.get(idx) else {
            return false;
        };
        let Some(crds) = resources::find("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        else {
            return false;
        };
        let name = super::provider_crds::crd_name(info);
        self.state.lock().objects[crds].contains_key(&make_key(None, &name))
    }

    /// `--demo-crds N`: store the first `n` generated provider CRDs (at most
    /// [`super::provider_crds::MAX`]) and two objects of each kind; the kinds are served from then
    /// on. Returns how many CRDs were stored.
    pub fn install_provider_crds(&self, n: usize) -> Result<usize, StatusError> {
        let Some(crds) = resources::find("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        else {
            return Err(StatusError::internal(
                "customresourcedefinitions are not served",
            ));
        };
        let n = n.min(super::provider_crds::MAX);
        let base = resources::builtin_len();
        for i in 0..n {
            let info = &RESOURCES[base + i];
            match self.create(crds, None, super::provider_crds::crd(info)) {
                Ok(_) => {}
                Err(e) if e.code == 409 => continue,
                Err(e) => return Err(e),
            }
            for k in 0..2 {
                self.create(base + i, None, super::provider_crds::object(info, i, k))?;
            }
        }
        Ok(n)
    }

    /// Objects of resource `idx` in `ns` (all namespaces: `None`) after `key`, for a page's
    /// `remainingItemCount`.
    pub fn count_after(&self, idx: usize, ns: Option<&str>, key: &str) -> usize {
        let st = self.state.lock();
        let bounds = key_bounds(ns, Some(key));
        if reads::bounds_empty(&bounds) {
            return 0;
        }
        st.objects.get(idx).map_or(0, |o| o.range(bounds).count())
    }

    /// An API server restart: the store (etcd) is kept, the watch cache starts over at the
    /// current revision, so watches from older RVs get 410 (exact lists at older RVs still work
    /// until compaction).
    pub fn restart_watch_cache(&self) {
        let mut st = self.state.lock();
        st.watch_cache_since = st.rv;
    }

    /// The RV the watch cache started at (see [`Self::restart_watch_cache`]).
    pub fn watch_cache_resource_version(&self) -> u64 {
        self.state.lock().watch_cache_since
    }

    /// The latest committed resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.state.lock().rv
    }

    /// The oldest resourceVersion one can still watch from or list exactly.
    pub fn compacted_resource_version(&self) -> u64 {
        self.state.lock().compacted
    }

    /// Number of objects of a resource.
    pub fn len(&self, id: &ResourceId) -> usize {
        resources::find_id(id)
            .map(|i| self.state.lock().objects[i].len())
            .unwrap_or(0)
    }

    /// Whether the cluster holds no object of this resource.
    pub fn is_empty(&self, id: &ResourceId) -> bool {
        self.len(id) == 0
    }

    /// Subscribe to all committed events.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Event>> {
        self.events.subscribe()
    }

    /// Apply a simulator mutation exactly as the equivalent API request would be applied.
    pub fn apply(&self, m: Mutation) -> Result<Value, StatusError> {
        let unknown = |id: &ResourceId| {
            StatusError::new(
                404,
                wv::REASON_NOT_FOUND,
                format!(
                    "the server could not find the requested resource {}",
                    id.plural
                ),
            )
        };
        match m {
            Mutation::Create { resource, object } => {
                let idx = resources::find_id(&resource).ok_or_else(|| unknown(&resource))?;
                let ns = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let ns = if RESOURCES[idx].namespaced {
                    Some(ns.unwrap_or_else(|| "default".into()))
                } else {
                    None
                };
                let w = simulated_writer(&resource, true, &object);
                self.create_with(idx, ns.as_deref(), object, &w)
            }
            Mutation::Update {
                resource,
                mut object,
            } => {
                let idx = resources::find_id(&resource).ok_or_else(|| unknown(&resource))?;
                let ns = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string)
                    .filter(|_| RESOURCES[idx].namespaced);
                let name = object
                    .pointer("/metadata/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                if let Some(m) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                    m.remove("resourceVersion");
                }
                if is_pod(idx)
                    && let Ok(current) = self.get_stored(idx, ns.as_deref(), &name)
                    && let Ok(cv) = current.value()
                    && cv.pointer("/metadata/deletionTimestamp").is_some()
                {
                    // A terminating pod belongs to the kubelet stopping it: the simulator must
                    // not report it Running again.
                    return Ok(cv);
                }
                if resource.group.is_empty() && resource.plural == "nodes" {
                    // The node lifecycle controller updates status; a cordon (kubectl's
                    // `spec.unschedulable`) is the user's and survives it.
                    let cordoned = self
                        .get_stored(idx, None, &name)
                        .ok()
                        .and_then(|o| o.value().ok())
                        .and_then(|o| o.pointer("/spec/unschedulable").cloned());
                    if let Some(u) = cordoned
                        && let Some(obj) = object.as_object_mut()
                    {
                        let spec = obj
                            .entry("spec")
                            .or_insert_with(|| Value::Object(Default::default()));
                        if let Some(spec) = spec.as_object_mut() {
                            spec.insert("unschedulable".into(), u);
                        }
                    }
                }
                if resource.group == "apps"
                    && matches!(
                        resource.plural,
                        "deployments" | "statefulsets" | "daemonsets"
                    )
                {
                    // A client changed the spec (the stored generation is ahead of the one the
                    // simulator saw): the simulated controller writes its status, not over the
                    // client's spec, until it has observed it.
                    let stored = self
                        .get_stored(idx, ns.as_deref(), &name)
                        .ok()
                        .and_then(|o| o.value().ok());
                    let generation = |v: &Value| v.pointer("/metadata/generation")?.as_i64();
                    if let Some(stored) = stored
                        && let (Some(theirs), Some(ours)) =
                            (generation(&stored), generation(&object))
                        && theirs > ours
                        && let (Some(spec), Some(obj)) =
                            (stored.get("spec"), object.as_object_mut())
                    {
                        obj.insert("spec".into(), spec.clone());
                    }
                }
                let w = simulated_writer(&resource, false, &object);
                self.update_with(idx, ns.as_deref(), &name, object, UpdateMode::Full, &w)
            }
            Mutation::Delete {
                resource,
                namespace,
                name,
            } => {
                let idx = resources::find_id(&resource).ok_or_else(|| unknown(&resource))?;
                // The simulator's pods die at once (the kubelet's final delete); its own
                // controllers delete dependents before their owners.
                self.delete(idx, namespace.as_deref(), &name, &DeleteOptions::now())
                    .and_then(|s| s.value())
            }
        }
    }

    /// Get an object as JSON (test helper).
    pub fn get(&self, id: &ResourceId, namespace: Option<&str>, name: &str) -> Option<Value> {
        let idx = resources::find_id(id)?;
        self.get_stored(idx, namespace, name).ok()?.value().ok()
    }

    /// All objects of a resource (in one namespace, or all), as JSON (test helper).
    pub fn list(&self, id: &ResourceId, namespace: Option<&str>) -> Vec<Value> {
        let Some(idx) = resources::find_id(id) else {
            return Vec::new();
        };
        let st = self.state.lock();
        st.objects[idx]
            .range(key_bounds(namespace, None))
            .filter_map(|(_, s)| s.value().ok())
            .collect()
    }

    pub(crate) fn get_stored(
        &self,
        idx: usize,
        ns: Option<&str>,
        name: &str,
    ) -> Result<Arc<Stored>, StatusError> {
        let st = self.state.lock();
        st.objects[idx]
            .get(&make_key(ns, name))
            .cloned()
            .ok_or_else(|| StatusError::not_found(&target(&RESOURCES[idx], name)))
    }

    /// Commit one change: assign nothing (the caller used `st.rv`), record and broadcast.
    fn commit(
        &self,
        st: &mut State,
        idx: usize,
        kind: EventType,
        obj: Arc<Stored>,
        prev: Option<Arc<Stored>>,
    ) {
        // The garbage collector's graph changes only when the owners do.
        let same_owners =
            kind != EventType::Deleted && prev.as_ref().is_some_and(|p| p.owners == obj.owners);
        if let Some(p) = prev.as_ref().filter(|_| !same_owners) {
            for o in &p.owners {
                if let Some(set) = st.dependents.get_mut(o) {
                    set.remove(&(idx, p.key.clone()));
                    if set.is_empty() {
                        st.dependents.remove(o);
                    }
                }
            }
        }
        if kind != EventType::Deleted && !same_owners {
            for o in &obj.owners {
                st.dependents
                    .entry(o.clone())
                    .or_default()
                    .insert((idx, obj.key.clone()));
            }
        }
        match kind {
            EventType::Deleted => {
                st.objects[idx].remove(&obj.key);
            }
            _ => {
                st.objects[idx].insert(obj.key.clone(), obj.clone());
            }
        }
        let ev = Arc::new(Event {
            rv: obj.rv,
            resource: idx,
            kind,
            obj,
            prev,
        });
        st.history.push_back(ev.clone());
        while st.history.len() > self.history_limit {
            if let Some(old) = st.history.pop_front() {
                st.compacted = old.rv;
            }
        }
        // No receiver is fine.
        let _ = self.events.send(ev);
    }

    fn check_kind(info: &ResourceInfo, v: &mut Value) -> Result<(), StatusError> {
        let Some(obj) = v.as_object_mut() else {
            return Err(StatusError::bad_request(
                "the body of the request must be a JSON object",
            ));
        };
        let api_version = info.api_version();
        match obj.get("apiVersion").and_then(Value::as_str) {
            None | Some("") => {
                obj.insert("apiVersion".into(), Value::String(api_version));
            }
            Some(a) if a == api_version => {}
            Some(a) => {
                return Err(StatusError::bad_request(format!(
                    "the API version in the data ({a}) does not match the expected API version ({api_version})"
                )));
            }
        }
        match obj.get("kind").and_then(Value::as_str) {
            None | Some("") => {
                obj.insert("kind".into(), Value::String(info.kind.into()));
            }
            Some(k) if k == info.kind => {}
            Some(k) => {
                return Err(StatusError::bad_request(format!(
                    "the kind in the data ({k}) does not match the expected kind ({})",
                    info.kind
                )));
            }
        }
        match obj.get("metadata") {
            None => {
                obj.insert("metadata".into(), json!({}));
            }
            Some(Value::Object(_)) => {}
            Some(_) => return Err(StatusError::bad_request("metadata must be an object")),
        }
        Ok(())
    }

    /// Create an object (`POST`). `ns` is the request namespace for namespaced kinds.
    pub fn create(&self, idx: usize, ns: Option<&str>, v: Value) -> Result<Value, StatusError> {
        self.create_with(idx, ns, v, &WriteOptions::default())
    }

    /// [`Self::create`] by a client: its field manager's `Update` entry recorded; a dry run
    /// answers the object that would be stored (no resourceVersion) and stores nothing.
    pub fn create_with(
        &self,
        idx: usize,
        ns: Option<&str>,
        mut v: Value,
        w: &WriteOptions,
    ) -> Result<Value, StatusError> {
        let info = &RESOURCES[idx];
        Self::check_kind(info, &mut v)?;
        apply_defaults(info.kind, &mut v);
        let mut st = self.state.lock();
        let meta = v
            .get_mut("metadata")
            .and_then(Value::as_object_mut)
            .ok_or_else(|| StatusError::bad_request("metadata must be an object"))?;
        // Name / generateName.
        let mut name = meta
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        if name.is_empty()
            && let Some(g) = meta.get("generateName").and_then(Value::as_str)
        {
            name = format!("{g}{}", random_suffix(5));
        }
        let t = target(info, &name);
        if name.is_empty() {
            return Err(StatusError::invalid(
                &t,
                info.kind,
                "metadata.name",
                "Required value: name or generateName is required",
            ));
        }
        if !is_dns_subdomain(&name) {
            return Err(StatusError::invalid(
                &t,
                info.kind,
                "metadata.name",
                &format!(
                    "Invalid value: {name:?}: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
                ),
            ));
        }
        meta.insert("name".into(), Value::String(name.clone()));
        let ns = if info.namespaced {
            let body_ns = meta.get("namespace").and_then(Value::as_str).unwrap_or("");
            let ns = match ns {
                Some(ns) => {
                    if !body_ns.is_empty() && body_ns != ns {
                        return Err(StatusError::bad_request(
                            "the namespace of the provided object does not match the namespace sent on the request",
                        ));
                    }
                    ns.to_string()
                }
                None if !body_ns.is_empty() => body_ns.to_string(),
                None => "default".to_string(),
            };
            meta.insert("namespace".into(), Value::String(ns.clone()));
            Some(ns)
        } else {
            meta.remove("namespace");
            None
        };
        if let Some(ns) = &ns
            && !st.objects[RESOURCES_NAMESPACES].contains_key(ns.as_str())
        {
            return Err(StatusError::not_found(&Target {
                group: "",
                plural: "namespaces",
                name: ns,
            }));
        }
        let key = make_key(ns.as_deref(), &name);
        if st.objects[idx].contains_key(&key) {
            return Err(StatusError::already_exists(&t));
        }
        if meta
            .get("uid")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            meta.insert("uid".into(), Value::String(new_uid()));
        }
        if meta
            .get("creationTimestamp")
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            meta.insert("creationTimestamp".into(), Value::String(now_rfc3339()));
        }
        meta.remove("deletionTimestamp");
        meta.remove("deletionGracePeriodSeconds");
        if v.get("spec").is_some()
            && v.pointer("/metadata/generation").is_none()
            && let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut)
        {
            m.insert("generation".into(), json!(1));
        }
        if let Some(m) = &w.manager {
            managed::record_update(
                None,
                &mut v,
                m,
                None,
                info.status_subresource,
                &now_rfc3339(),
            );
        }
        if w.dry_run {
            let (_, mut v) = store_value(info, v, st.rv)?;
            if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                m.remove("resourceVersion");
            }
            return Ok(v);
        }
        let rv = st.rv + 1;
        let (stored, v) = store_value(info, v, rv)?;
        st.rv = rv;
        self.commit(&mut st, idx, EventType::Added, stored, None);
        Ok(v)
    }

    /// Replace an object (`PUT`). A non-empty `metadata.resourceVersion` must equal the stored one.
    pub fn update(
        &self,
        idx: usize,
        ns: Option<&str>,
        name: &str,
        v: Value,
        mode: UpdateMode,
    ) -> Result<Value, StatusError> {
        self.update_with(idx, ns, name, v, mode, &WriteOptions::default())
    }

    /// [`Self::update`] by a client: its field manager's `Update` entry recorded (the stored
    /// entries kept when there is none); a dry run answers the object that would be stored
    /// (the current resourceVersion) and stores nothing.
    pub fn update_with(
        &self,
        idx: usize,
        ns: Option<&str>,
        name: &str,
        mut v: Value,
        mode: UpdateMode,
        w: &WriteOptions,
    ) -> Result<Value, StatusError> {
        let info = &RESOURCES[idx];
        Self::check_kind(info, &mut v)?;
        apply_defaults(info.kind, &mut v);
        let mut st = self.state.lock();
        let t = target(info, name);
        let key = make_key(ns, name);
        let current = st.objects[idx]
            .get(&key)
            .cloned()
            .ok_or_else(|| StatusError::not_found(&t))?;
        let body_name = v
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !body_name.is_empty() && body_name != name {
            return Err(StatusError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        if let Some(body_ns) = v.pointer("/metadata/namespace").and_then(Value::as_str)
            && !body_ns.is_empty()
            && Some(body_ns) != ns
        {
            return Err(StatusError::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
        if let Some(rv) = v
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            && !rv.is_empty()
            && parse_rv(rv)? != current.rv
        {
            return Err(StatusError::conflict(&t));
        }
        let old = current.value()?;
        let mut new = match mode {
            UpdateMode::Full | UpdateMode::Spec => v,
            UpdateMode::Status => {
                let mut n = old.clone();
                match v.get("status") {
                    Some(s) => n["status"] = s.clone(),
                    None => {
                        if let Some(o) = n.as_object_mut() {
                            o.remove("status");
                        }
                    }
                }
                n
            }
        };
        if mode == UpdateMode::Spec {
            match old.get("status") {
                Some(s) => new["status"] = s.clone(),
                None => {
                    if let Some(o) = new.as_object_mut() {
                        o.remove("status");
                    }
                }
            }
        }
        {
            let meta = new
                .get_mut("metadata")
                .and_then(Value::as_object_mut)
                .ok_or_else(|| StatusError::bad_request("metadata must be an object"))?;
            meta.insert("name".into(), Value::String(name.to_string()));
            match ns {
                Some(ns) => {
                    meta.insert("namespace".into(), Value::String(ns.to_string()));
                }
                None => {
                    meta.remove("namespace");
                }
            }
            for f in [
                "uid",
                "creationTimestamp",
                "generation",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
            ] {
                match old.pointer(&format!("/metadata/{f}")) {
                    Some(x) => {
                        meta.insert(f.into(), x.clone());
                    }
                    None => {
                        meta.remove(f);
                    }
                }
            }
        }
        if new.get("spec") != old.get("spec") && new.get("spec").is_some() {
            let g = old
                .pointer("/metadata/generation")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            if let Some(m) = new.get_mut("metadata").and_then(Value::as_object_mut) {
                m.insert("generation".into(), json!(g + 1));
            }
        }
        match &w.manager {
            Some(m) => managed::record_update(
                Some(&old),
                &mut new,
                m,
                w.subresource
                    .as_deref()
                    .or((mode == UpdateMode::Status).then_some("status")),
                // A simulator's whole-object write (Full) through `status` compares the status.
                info.status_subresource && mode == UpdateMode::Spec,
                &now_rfc3339(),
            ),
            None => {
                if new.pointer("/metadata/managedFields").is_none()
                    && let Some(kept) = old.pointer("/metadata/managedFields").cloned()
                    && let Some(m) = new.get_mut("metadata").and_then(Value::as_object_mut)
                {
                    m.insert("managedFields".into(), kept);
                }
            }
        }
        // A no-op update does not bump the resourceVersion (as kube-apiserver does).
        let mut probe = new.clone();
        if let Some(m) = probe.get_mut("metadata").and_then(Value::as_object_mut) {
            m.insert(
                "resourceVersion".into(),
                Value::String(current.rv.to_string()),
            );
        }
        if probe == old {
            return Ok(old);
        }
        if w.dry_run {
            return store_value(info, new, current.rv).map(|(_, v)| v);
        }
        let rv = st.rv + 1;
        // The last finalizer of an object being deleted is gone: the update removes it (one
        // DELETED event with the final state), as the registry's `ShouldDeleteDuringUpdate`.
        // A pod still in its grace period waits for the kubelet.
        let remove = new.pointer("/metadata/deletionTimestamp").is_some()
            && finalizers(&new).is_empty()
            && (!is_pod(idx) || deadline_passed(&new));
        let (stored, new) = store_value(info, new, rv)?;
        st.rv = rv;
        if remove {
            self.remove_locked(&mut st, idx, stored, current)?;
        } else {
            self.commit(&mut st, idx, EventType::Modified, stored, Some(current));
        }
        Ok(new)
    }

    /// Patch an object (`PATCH`).
    pub fn patch(
        &self,
        idx: usize,
        ns: Option<&str>,
        name: &str,
        kind: PatchType,
        body: &Value,
        mode: UpdateMode,
    ) -> Result<Value, StatusError> {
        self.patch_with(idx, ns, name, kind, body, mode, &WriteOptions::default())
    }

    /// [`Self::patch`] by a client (see [`Self::update_with`]).
    #[allow(clippy::too_many_arguments)]
    pub fn patch_with(
        &self,
        idx: usize,
        ns: Option<&str>,
        name: &str,
        kind: PatchType,
        body: &Value,
        mode: UpdateMode,
        w: &WriteOptions,
    ) -> Result<Value, StatusError> {
        // Retry on a concurrent write, as the apiserver's GuaranteedUpdate does, unless the patch
        // itself carries a resourceVersion precondition.
        for _ in 0..16 {
            let current = self.get_stored(idx, ns, name)?;
            let mut v = current.value()?;
            patch::apply(kind, &mut v, body)?;
            let pinned = v
                .pointer("/metadata/resourceVersion")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_default();
            if pinned.is_empty() || pinned == current.rv.to_string() {
                // Pin to the version we patched so a concurrent write makes us retry.
                if let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                    m.insert(
                        "resourceVersion".into(),
                        Value::String(current.rv.to_string()),
                    );
                }
                match self.update_with(idx, ns, name, v, mode, w) {
                    Err(e) if e.reason == wv::REASON_CONFLICT && pinned.is_empty() => continue,
                    r => return r,
                }
            }
            return self.update_with(idx, ns, name, v, mode, w);
        }
        Err(StatusError::conflict(&target(&RESOURCES[idx], name)))
    }
}

/// Index of `namespaces` in [`RESOURCES`] (it is first).
pub const RESOURCES_NAMESPACES: usize = 0;

#[cfg(test)]
mod tests;
