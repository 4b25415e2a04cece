//! The xray model: a live owner tree built from the informers' indexes (`:xray`).
//!
//! Namespace → Deployment → ReplicaSet → Pod → containers; StatefulSet / DaemonSet / Job → Pod;
//! Service → the pods its selector picks (label index); Node → its pods (node index). Each root's
//! subtree is built by index lookups only (owner uid, label, node, namespace), so a
//! deployment's tree costs O(its objects) however large the cache is.
//!
//! Updates are incremental: a batch of changed objects marks the roots they belong to (found
//! through the membership maps kept while building: key → roots, owner uid → root, a pod's node,
//! the Services selecting a pod, an object's namespace) and only those roots are rebuilt. A burst
//! touching many roots (an initial list) is coalesced: it is rebuilt at the next tick instead of
//! per batch. The visible rows are a flattening of the expanded nodes, redone when something
//! changed; drawing reads them only.
//!
//! The cache holds pruned pods (no containers): a pod's containers come from a GET of the pod
//! when the user expands it ([`Xray::set_containers`]), refreshed when the pod changes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use kube::api::DynamicObject;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};
use serde_json::Value;

use crate::informer::index::{LABEL_INDEX, NAMESPACE_INDEX, NODE_INDEX, OWNER_INDEX, label_value};
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::render::{Health, pod_health, pod_phase_reason};
use crate::selector::LabelSelector;
use crate::ui::table::TextFilter;

/// The kinds of objects in a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum XKind {
    Namespace,
    Deployment,
    StatefulSet,
    DaemonSet,
    Job,
    Service,
    Node,
    ReplicaSet,
    Pod,
}

impl XKind {
    /// The plural the `:` command line resolves (the informer to open).
    pub fn resource(self) -> &'static str {
        match self {
            XKind::Namespace => "namespaces",
            XKind::Deployment => "deployments",
            XKind::StatefulSet => "statefulsets",
            XKind::DaemonSet => "daemonsets",
            XKind::Job => "jobs",
            XKind::Service => "services",
            XKind::Node => "nodes",
            XKind::ReplicaSet => "replicasets",
            XKind::Pod => "pods",
        }
    }

    /// The short name shown in the tree.
    pub fn short(self) -> &'static str {
        match self {
            XKind::Namespace => "ns",
            XKind::Deployment => "deploy",
            XKind::StatefulSet => "sts",
            XKind::DaemonSet => "ds",
            XKind::Job => "job",
            XKind::Service => "svc",
            XKind::Node => "node",
            XKind::ReplicaSet => "rs",
            XKind::Pod => "pod",
        }
    }

    /// The Kind (`Deployment`), for rows, YAML and logs.
    pub fn kind(self) -> &'static str {
        match self {
            XKind::Namespace => "Namespace",
            XKind::Deployment => "Deployment",
            XKind::StatefulSet => "StatefulSet",
            XKind::DaemonSet => "DaemonSet",
            XKind::Job => "Job",
            XKind::Service => "Service",
            XKind::Node => "Node",
            XKind::ReplicaSet => "ReplicaSet",
            XKind::Pod => "Pod",
        }
    }

    /// The root kind `:xray ARG` names (default: deployments); `None` when not a root kind.
    pub fn root_from_arg(arg: Option<&str>) -> Option<XKind> {
        Some(match arg.unwrap_or("deploy") {
            "deploy" | "deployment" | "deployments" | "dp" => XKind::Deployment,
            "sts" | "statefulset" | "statefulsets" => XKind::StatefulSet,
            "ds" | "daemonset" | "daemonsets" => XKind::DaemonSet,
            "job" | "jobs" => XKind::Job,
            "svc" | "service" | "services" => XKind::Service,
            "node" | "nodes" | "no" => XKind::Node,
            "ns" | "namespace" | "namespaces" => XKind::Namespace,
            _ => return None,
        })
    }

    /// The kinds a tree of this root reads (one informer each).
    pub fn feeds(self) -> &'static [XKind] {
        match self {
            XKind::Deployment => &[XKind::Deployment, XKind::ReplicaSet, XKind::Pod],
            XKind::StatefulSet => &[XKind::StatefulSet, XKind::Pod],
            XKind::DaemonSet => &[XKind::DaemonSet, XKind::Pod],
            XKind::Job => &[XKind::Job, XKind::Pod],
            XKind::Service => &[XKind::Service, XKind::Pod],
            XKind::Node => &[XKind::Node, XKind::Pod],
            XKind::Namespace => &[
                XKind::Namespace,
                XKind::Deployment,
                XKind::ReplicaSet,
                XKind::StatefulSet,
                XKind::DaemonSet,
                XKind::Job,
                XKind::Pod,
            ],
            XKind::ReplicaSet | XKind::Pod => &[],
        }
    }
}

/// A tree node: an object, or one container of a pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Object(XKind),
    Container,
    /// A pod whose containers are not known yet (being fetched).
    Loading,
    /// A Deployment's old revisions (ReplicaSets scaled to zero), folded into one node.
    Revisions,
}

/// One node of the tree.
#[derive(Debug, Clone)]
pub struct XNode {
    pub kind: NodeKind,
    /// Unique in the tree: `deploy/ns/name`, `pod/ns/name/c/app`.
    pub id: Arc<str>,
    pub name: Arc<str>,
    /// The object's store key (`namespace/name`; the pod's key for a container).
    pub key: Arc<str>,
    pub health: Health,
    /// Good (ready or completed) pods of the subtree / pods of the subtree; for a pod its ready
    /// / total containers; for a container 1/1 or 0/1.
    pub ready: u32,
    pub total: u32,
    pub detail: Arc<str>,
    pub object: Option<Arc<DynamicObject>>,
    pub children: Vec<XNode>,
}

/// A container as the full pod describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerInfo {
    pub name: String,
    pub image: String,
    pub ready: bool,
    /// `running`, `waiting: CrashLoopBackOff`, `terminated: Completed`.
    pub state: String,
    pub restarts: i64,
    /// An init container.
    pub init: bool,
}

impl ContainerInfo {
    /// The containers of a full pod (spec for names and images, status for the rest).
    pub fn of_pod(pod: &Value) -> Vec<ContainerInfo> {
        let mut out = Vec::new();
        for (spec_key, status_key, init) in [
            ("initContainers", "initContainerStatuses", true),
            ("containers", "containerStatuses", false),
        ] {
            let statuses = pod
                .get("status")
                .and_then(|s| s.get(status_key))
                .and_then(Value::as_array);
            let specs = pod
                .get("spec")
                .and_then(|s| s.get(spec_key))
                .and_then(Value::as_array);
            for c in specs.into_iter().flatten() {
                let name = c.get("name").and_then(Value::as_str).unwrap_or_default();
                let st = statuses
                    .into_iter()
                    .flatten()
                    .find(|s| s.get("name").and_then(Value::as_str) == Some(name));
                let state = st.and_then(|s| s.get("state")).map_or_else(
                    || "waiting".to_string(),
                    |s| {
                        if s.get("running").is_some() {
                            "running".to_string()
                        } else if let Some(w) = s.get("waiting") {
                            let r = w.get("reason").and_then(Value::as_str).unwrap_or("");
                            format!("waiting: {r}").trim_end_matches(": ").to_string()
                        } else if let Some(t) = s.get("terminated") {
                            let r = t.get("reason").and_then(Value::as_str).unwrap_or("");
                            format!("terminated: {r}")
                                .trim_end_matches(": ")
                                .to_string()
                        } else {
                            "waiting".to_string()
                        }
                    },
                );
                out.push(ContainerInfo {
                    name: name.to_string(),
                    image: c
                        .get("image")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string(),
                    ready: st
                        .and_then(|s| s.get("ready"))
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                    state,
                    restarts: st
                        .and_then(|s| s.get("restartCount"))
                        .and_then(Value::as_i64)
                        .unwrap_or(0),
                    init,
                });
            }
        }
        out
    }
}

/// One visible line of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct XRow {
    pub depth: usize,
    pub id: Arc<str>,
    pub kind: NodeKind,
    pub name: Arc<str>,
    pub key: Arc<str>,
    pub health: Health,
    pub ready: u32,
    pub total: u32,
    pub detail: Arc<str>,
    pub expandable: bool,
    pub expanded: bool,
}

/// What the tree is filtered by (`/` and `l`): a node stays when it matches, with its whole
/// subtree, or when a descendant matches (as the path to it).
#[derive(Debug, Clone, Default)]
pub struct XFilter {
    pub text: Option<TextFilter>,
    pub label: Option<LabelSelector>,
    /// What the user typed (shown in the header).
    pub raw: String,
}

impl XFilter {
    pub fn is_empty(&self) -> bool {
        self.text.is_none() && self.label.is_none()
    }

    fn matches(&self, n: &XNode) -> bool {
        let text_ok = self.text.as_ref().is_none_or(|t| t.matches_str(&n.name));
        let label_ok = self.label.as_ref().is_none_or(|sel| {
            n.object
                .as_ref()
                .is_some_and(|o| sel.matches(crate::informer::cached::labels(o)))
        });
        text_ok && label_ok
    }
}

static LOADING_NAME: std::sync::LazyLock<Arc<str>> =
    std::sync::LazyLock::new(|| Arc::from("containers…"));
static LOADING_DETAIL: std::sync::LazyLock<Arc<str>> =
    std::sync::LazyLock::new(|| Arc::from("open the pod to fetch them"));

/// How many dirty roots are rebuilt at once in the batch that marked them; more wait for the
/// next tick (an initial list of thousands of pods is one rebuild of each root, not one per
/// batch).
pub const REBUILD_NOW_MAX: usize = 32;

/// Objects the dirty roots may hold (as last built) to be rebuilt in the batch that marked them;
/// a larger tree (a namespace of 100k pods) is rebuilt at most once a tick.
pub const REBUILD_NOW_OBJECTS: usize = 10_000;

/// Which nodes are open unless toggled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expand {
    /// Every object down to the pods (a pod's containers are fetched when it is opened).
    Objects,
    /// Everything (`+`): pods too, showing the containers already known.
    All,
    /// Nothing (`-`): the roots only.
    Roots,
}

/// The tree and its view state.
#[derive(Debug, Clone)]
pub struct Xray {
    pub root: XKind,
    /// The namespace scope (`None`: all namespaces).
    pub namespace: Option<String>,
    stores: HashMap<XKind, Arc<ThreadSafeStore<DynamicObject>>>,
    /// Root key → its subtree, in key order.
    roots: BTreeMap<Arc<str>, XNode>,
    /// (kind, key) → the roots the object appears under.
    member: HashMap<(XKind, Arc<str>), Vec<Arc<str>>>,
    /// uid of an owner in a tree (the root, a ReplicaSet) → its root.
    owner_root: HashMap<String, Arc<str>>,
    /// Roots to rebuild.
    dirty: BTreeSet<Arc<str>>,
    /// Pod key → its containers, from a GET (pods the user expanded).
    containers: HashMap<Arc<str>, Vec<ContainerInfo>>,
    /// What is open unless toggled; `+` / `-` change it.
    expand: Expand,
    /// Nodes toggled away from the default.
    toggled: HashMap<Arc<str>, bool>,
    pub filter: XFilter,
    rows: Vec<XRow>,
    cursor: usize,
    pub offset: usize,
    /// The selected node's id: the selection follows it through rebuilds.
    selected: Option<Arc<str>>,
    /// Roots rebuilt since start (for the header and the bench).
    pub rebuilds: u64,
    /// Objects in the tree, counted after each rebuild.
    objects: usize,
    /// Objects under each root, as last built.
    sizes: HashMap<Arc<str>, usize>,
}

impl Xray {
    pub fn new(root: XKind, namespace: Option<String>) -> Xray {
        Xray {
            root,
            namespace,
            stores: HashMap::new(),
            roots: BTreeMap::new(),
            member: HashMap::new(),
            owner_root: HashMap::new(),
            dirty: BTreeSet::new(),
            containers: HashMap::new(),
            expand: Expand::Objects,
            toggled: HashMap::new(),
            filter: XFilter::default(),
            rows: Vec::new(),
            cursor: 0,
            offset: 0,
            selected: None,
            rebuilds: 0,
            objects: 0,
            sizes: HashMap::new(),
        }
    }

    /// The indexer of a kind's informer arrived: every root is rebuilt (its lookups can be
    /// answered now), and the roots it holds are added.
    pub fn set_store(&mut self, kind: XKind, store: Arc<ThreadSafeStore<DynamicObject>>) {
        if kind == self.root {
            for key in store.list_keys() {
                if self.in_scope_key(&key) {
                    self.dirty.insert(Arc::from(key));
                }
            }
        }
        self.stores.insert(kind, store);
        self.dirty.extend(self.roots.keys().cloned());
    }

    fn in_scope_key(&self, key: &str) -> bool {
        // One namespace or several (`shop,payments`, see `ui::scope`).
        let scope = self.namespace.as_deref();
        match key.split_once('/') {
            Some((k_ns, _)) => crate::ui::scope::holds(scope, k_ns),
            None => self.root != XKind::Namespace || crate::ui::scope::holds(scope, key),
        }
    }

    fn in_scope(&self, obj: &DynamicObject) -> bool {
        match obj.metadata.namespace.as_deref() {
            Some(o) => crate::ui::scope::holds(self.namespace.as_deref(), o),
            None => true,
        }
    }

    /// Changed objects of a kind (upserts) and deleted keys: mark the roots they belong to.
    /// Returns the expanded pods whose containers must be fetched again (they changed).
    pub fn apply(
        &mut self,
        kind: XKind,
        upserts: impl IntoIterator<Item = Arc<DynamicObject>>,
        deletes: &[Arc<str>],
    ) -> Vec<Arc<str>> {
        let mut refetch = Vec::new();
        for obj in upserts {
            let Ok(key) = crate::informer::meta_namespace_key(&*obj) else {
                continue;
            };
            let key: Arc<str> = Arc::from(key);
            if kind == XKind::Pod && self.containers.remove(&key).is_some() {
                refetch.push(key.clone());
            }
            self.mark_for(kind, &key, &obj);
        }
        for key in deletes {
            if kind == self.root {
                self.dirty.insert(key.clone());
            }
            if let Some(roots) = self.member.get(&(kind, key.clone())) {
                self.dirty.extend(roots.iter().cloned());
            }
            if kind == XKind::Pod {
                self.containers.remove(key);
            }
        }
        refetch
    }

    fn mark_for(&mut self, kind: XKind, key: &Arc<str>, obj: &DynamicObject) {
        if kind == self.root {
            if self.in_scope(obj) && self.in_scope_key(key) {
                self.dirty.insert(key.clone());
            }
            return;
        }
        if let Some(roots) = self.member.get(&(kind, key.clone())) {
            self.dirty.extend(roots.iter().cloned());
        }
        for r in obj.metadata.owner_references.iter().flatten() {
            if let Some(root) = self.owner_root.get(&r.uid) {
                self.dirty.insert(root.clone());
            }
        }
        match self.root {
            XKind::Namespace => {
                if let Some(ns) = obj.metadata.namespace.as_deref()
                    && self.roots.contains_key(ns)
                {
                    self.dirty.insert(Arc::from(ns));
                }
            }
            XKind::Node if kind == XKind::Pod => {
                if let Some(node) = pod_node(obj)
                    && self.roots.contains_key(node)
                {
                    self.dirty.insert(Arc::from(node));
                }
            }
            XKind::Service if kind == XKind::Pod => {
                let labels = crate::informer::cached::labels(obj);
                let ns = obj.metadata.namespace.as_deref().unwrap_or_default();
                let svcs = self
                    .stores
                    .get(&XKind::Service)
                    .and_then(|s| s.by_index(NAMESPACE_INDEX, ns).ok())
                    .unwrap_or_default();
                for svc in svcs {
                    if service_selector(&svc).is_some_and(|sel| sel.matches(labels))
                        && let Ok(k) = crate::informer::meta_namespace_key(&*svc)
                    {
                        self.dirty.insert(Arc::from(k));
                    }
                }
            }
            _ => {}
        }
    }

    /// Every root is rebuilt (a feed's complete content arrived: roots whose object is gone
    /// leave).
    pub fn mark_all(&mut self) {
        self.dirty.extend(self.roots.keys().cloned());
    }

    /// Roots waiting for a rebuild.
    pub fn pending(&self) -> usize {
        self.dirty.len()
    }

    /// Rebuild the dirty roots (all of them when `force`, else only when few) and the visible
    /// rows; true when something was rebuilt.
    pub fn flush(&mut self, force: bool) -> bool {
        if self.dirty.is_empty() {
            return false;
        }
        if !force {
            let objects: usize = self
                .dirty
                .iter()
                .map(|k| self.sizes.get(k).copied().unwrap_or(1))
                .sum();
            if self.dirty.len() > REBUILD_NOW_MAX || objects > REBUILD_NOW_OBJECTS {
                return false;
            }
        }
        let keys = std::mem::take(&mut self.dirty);
        let few = keys.len() <= REBUILD_NOW_MAX;
        for key in &keys {
            self.rebuild_root(key);
            if few {
                self.splice_root(key);
            }
        }
        self.objects = self.member.len();
        if few {
            self.follow_selection();
        } else {
            self.reflatten();
        }
        true
    }

    fn forget_members(&mut self, root_key: &Arc<str>) {
        self.sizes.remove(root_key);
        let Some(old) = self.roots.remove(root_key) else {
            return;
        };
        let mut stack = vec![&old];
        while let Some(n) = stack.pop() {
            if let NodeKind::Object(k) = n.kind {
                if let Some(v) = self.member.get_mut(&(k, n.key.clone())) {
                    v.retain(|r| r != root_key);
                    if v.is_empty() {
                        self.member.remove(&(k, n.key.clone()));
                    }
                }
                if let Some(uid) = n.object.as_ref().and_then(|o| o.metadata.uid.as_deref())
                    && self.owner_root.get(uid) == Some(root_key)
                {
                    self.owner_root.remove(uid);
                }
            }
            stack.extend(n.children.iter());
        }
    }

    fn remember_members(&mut self, root_key: &Arc<str>, node: &XNode) {
        let mut stack = vec![node];
        let mut size = 0;
        while let Some(n) = stack.pop() {
            size += usize::from(matches!(n.kind, NodeKind::Object(_)));
            if let NodeKind::Object(k) = n.kind {
                let v = self.member.entry((k, n.key.clone())).or_default();
                if !v.contains(root_key) {
                    v.push(root_key.clone());
                }
                if k != XKind::Pod
                    && let Some(uid) = n.object.as_ref().and_then(|o| o.metadata.uid.as_deref())
                {
                    self.owner_root.insert(uid.to_string(), root_key.clone());
                }
            }
            stack.extend(n.children.iter());
        }
        self.sizes.insert(root_key.clone(), size);
    }

    /// Rebuild one root's subtree from the indexes (O(its objects)).
    pub fn rebuild_root(&mut self, key: &Arc<str>) {
        self.forget_members(key);
        let obj = self.stores.get(&self.root).and_then(|s| s.get(key));
        let Some(obj) = obj.filter(|o| self.in_scope(o) && self.in_scope_key(key)) else {
            return;
        };
        let node = self.build(self.root, key.clone(), obj);
        self.rebuilds += 1;
        self.remember_members(key, &node);
        self.roots.insert(key.clone(), node);
    }

    fn by_index(&self, kind: XKind, index: &str, value: &str) -> Vec<Arc<DynamicObject>> {
        self.stores
            .get(&kind)
            .and_then(|s| s.by_index(index, value).ok())
            .unwrap_or_default()
    }

    /// The subtree of one object.
    fn build(&self, kind: XKind, key: Arc<str>, obj: Arc<DynamicObject>) -> XNode {
        let uid = obj.metadata.uid.clone().unwrap_or_default();
        let name = obj.metadata.name.clone().unwrap_or_default();
        let mut children: Vec<XNode> = match kind {
            XKind::Pod => return self.pod_node(key, obj),
            XKind::Namespace => {
                let mut out = Vec::new();
                for k in [
                    XKind::Deployment,
                    XKind::StatefulSet,
                    XKind::DaemonSet,
                    XKind::Job,
                ] {
                    let mut objs = self.by_index(k, NAMESPACE_INDEX, &name);
                    objs.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
                    out.extend(objs.into_iter().filter_map(|o| self.child(k, o)));
                }
                out
            }
            XKind::Deployment => {
                let mut rs = self.by_index(XKind::ReplicaSet, OWNER_INDEX, &uid);
                // Newest first: a rollout's new ReplicaSet above the old one.
                rs.sort_by(|a, b| {
                    revision(b)
                        .cmp(&revision(a))
                        .then_with(|| a.metadata.name.cmp(&b.metadata.name))
                });
                let nodes = rs
                    .into_iter()
                    .filter_map(|o| self.child(XKind::ReplicaSet, o))
                    .collect();
                fold::fold_old_revisions(&key, nodes)
            }
            XKind::ReplicaSet | XKind::StatefulSet | XKind::DaemonSet | XKind::Job => {
                self.pods(self.by_index(XKind::Pod, OWNER_INDEX, &uid))
            }
            XKind::Service => match service_selector(&obj) {
                Some(sel) => {
                    let terms: Vec<String> = sel
                        .requirements
                        .iter()
                        .filter_map(|r| r.values.first().map(|v| label_value(&r.key, v)))
                        .collect();
                    let terms: Vec<&str> = terms.iter().map(String::as_str).collect();
                    let ns = obj.metadata.namespace.as_deref();
                    let pods = self
                        .stores
                        .get(&XKind::Pod)
                        .and_then(|s| s.by_index_all(LABEL_INDEX, &terms).ok())
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|p| p.metadata.namespace.as_deref() == ns)
                        .collect();
                    self.pods(pods)
                }
                None => Vec::new(),
            },
            XKind::Node => {
                let pods = self
                    .by_index(XKind::Pod, NODE_INDEX, &name)
                    .into_iter()
                    .filter(|p| self.in_scope(p))
                    .collect();
                self.pods(pods)
            }
        };
        if kind == XKind::Namespace {
            children.retain(|c| c.total > 0 || c.object.is_some());
        }
        let (ready, total) = if kind == XKind::ReplicaSet
            || matches!(
                kind,
                XKind::StatefulSet | XKind::DaemonSet | XKind::Job | XKind::Service | XKind::Node
            ) {
            pod_counts(&children)
        } else {
            children
                .iter()
                .fold((0, 0), |(r, t), c| (r + c.ready, t + c.total))
        };
        let own = crate::render::row(kind.kind(), &obj, None).health;
        let health = if total == 0 {
            own
        } else if ready == total {
            if own == Health::Error || own == Health::Terminating {
                own
            } else {
                Health::Ok
            }
        } else if ready == 0 {
            Health::Error
        } else {
            Health::Warning
        };
        XNode {
            kind: NodeKind::Object(kind),
            id: Arc::from(format!("{}/{key}", kind.short())),
            name: Arc::from(name),
            detail: Arc::from(detail(kind, &obj)),
            key,
            health,
            ready,
            total,
            object: Some(obj),
            children,
        }
    }

    fn child(&self, kind: XKind, obj: Arc<DynamicObject>) -> Option<XNode> {
        let key = Arc::from(crate::informer::meta_namespace_key(&*obj).ok()?);
        Some(self.build(kind, key, obj))
    }

    fn pods(&self, mut pods: Vec<Arc<DynamicObject>>) -> Vec<XNode> {
        pods.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        pods.into_iter()
            .filter_map(|p| {
                let key = Arc::from(crate::informer::meta_namespace_key(&*p).ok()?);
                Some(self.pod_node(key, p))
            })
            .collect()
    }

    fn pod_node(&self, key: Arc<str>, obj: Arc<DynamicObject>) -> XNode {
        let s = pod_phase_reason(&obj);
        let health = pod_health(&s);
        let id: Arc<str> = Arc::from(format!("pod/{key}"));
        // The cache's pods are pruned: containers come from the pod itself when it has them
        // (an unpruned cache), else from a GET (fetched on expand).
        let infos = self.containers.get(&key).cloned().or_else(|| {
            obj.data
                .get("spec")
                .and_then(|s| s.get("containers"))
                .map(|_| ContainerInfo::of_pod(&obj.data))
        });
        let children = match infos {
            Some(cs) => cs
                .into_iter()
                .map(|c| XNode {
                    kind: NodeKind::Container,
                    id: Arc::from(format!("{id}/c/{}", c.name)),
                    name: Arc::from(if c.init {
                        format!("{} (init)", c.name)
                    } else {
                        c.name.clone()
                    }),
                    key: key.clone(),
                    health: container_health(&c),
                    ready: u32::from(c.ready),
                    total: 1,
                    detail: Arc::from(container_detail(&c)),
                    object: None,
                    children: Vec::new(),
                })
                .collect(),
            None => vec![XNode {
                kind: NodeKind::Loading,
                id: Arc::from(format!("{id}/loading")),
                name: LOADING_NAME.clone(),
                key: key.clone(),
                health: Health::Pending,
                ready: 0,
                total: 0,
                detail: LOADING_DETAIL.clone(),
                object: None,
                children: Vec::new(),
            }],
        };
        let mut detail = s.reason.clone();
        if s.restarts > 0 {
            detail.push_str(&format!(" ↻{}", s.restarts));
        }
        if let Some(n) = pod_node(&obj) {
            detail.push_str(&format!(" on {n}"));
        }
        XNode {
            kind: NodeKind::Object(XKind::Pod),
            id,
            name: Arc::from(obj.metadata.name.as_deref().unwrap_or_default()),
            key,
            health,
            ready: s.ready,
            total: s.total,
            detail: Arc::from(detail),
            object: Some(obj),
            children,
        }
    }

    /// A pod's containers from its GET: the pod's node is rebuilt with them.
    pub fn set_containers(&mut self, pod_key: Arc<str>, containers: Vec<ContainerInfo>) {
        self.containers.insert(pod_key.clone(), containers);
        if let Some(roots) = self.member.get(&(XKind::Pod, pod_key)) {
            self.dirty.extend(roots.iter().cloned());
        }
        self.flush(true);
    }

    /// Whether the pod's containers are known (fetched or in the cache).
    pub fn has_containers(&self, pod_key: &str) -> bool {
        self.containers.contains_key(pod_key)
    }

    // ------------------------------------------------------------------ view state

    fn is_expanded(&self, n: &XNode) -> bool {
        self.toggled
            .get(&n.id)
            .copied()
            .unwrap_or(match self.expand {
                Expand::All => true,
                Expand::Roots => false,
                Expand::Objects => {
                    !matches!(n.kind, NodeKind::Object(XKind::Pod) | NodeKind::Revisions)
                }
            })
    }

    /// Recompute the visible rows (O(visible nodes), O(tree) under a filter).
    pub fn reflatten(&mut self) {
        let mut rows = Vec::with_capacity(self.rows.len());
        for root in self.roots.values() {
            self.flatten(root, 0, false, &mut rows);
        }
        self.rows = rows;
        self.follow_selection();
    }

    /// Replace one root's rows (O(its visible rows) plus a scan of the roots' rows).
    fn splice_root(&mut self, key: &Arc<str>) {
        let is_root = |r: &XRow| r.depth == 0;
        let (start, end) = match self.rows.iter().position(|r| is_root(r) && r.key == *key) {
            Some(s) => {
                let len = self.rows[s + 1..]
                    .iter()
                    .position(is_root)
                    .unwrap_or(self.rows.len() - s - 1);
                (s, s + 1 + len)
            }
            None => {
                let s = self
                    .rows
                    .iter()
                    .position(|r| is_root(r) && *r.key > **key)
                    .unwrap_or(self.rows.len());
                (s, s)
            }
        };
        let mut rows = Vec::new();
        if let Some(root) = self.roots.get(key) {
            self.flatten(root, 0, false, &mut rows);
        }
        self.rows.splice(start..end, rows);
    }

    /// The cursor follows the selected node's id (it stays in place when the node left).
    fn follow_selection(&mut self) {
        self.cursor = match &self.selected {
            Some(id) => self
                .rows
                .iter()
                .position(|r| &r.id == id)
                .unwrap_or(self.cursor),
            None => self.cursor,
        }
        .min(self.rows.len().saturating_sub(1));
    }

    /// True when the node or a descendant matches the filter.
    fn any_match(&self, n: &XNode) -> bool {
        self.filter.matches(n) || n.children.iter().any(|c| self.any_match(c))
    }

    fn flatten(&self, n: &XNode, depth: usize, matched: bool, out: &mut Vec<XRow>) {
        let filtering = !self.filter.is_empty() && !matched;
        let self_match = filtering && self.filter.matches(n);
        if filtering && !self_match && !self.any_match(n) {
            return;
        }
        let expandable = !n.children.is_empty();
        // A node on the path to a match is open so that the match shows.
        let expanded = expandable
            && (self.is_expanded(n)
                || (filtering && !self_match && !self.toggled.contains_key(&n.id)));
        out.push(XRow {
            depth,
            id: n.id.clone(),
            kind: n.kind,
            name: n.name.clone(),
            key: n.key.clone(),
            health: n.health,
            ready: n.ready,
            total: n.total,
            detail: n.detail.clone(),
            expandable,
            expanded,
        });
        if expanded {
            let inside = matched || self_match || self.filter.is_empty();
            for c in &n.children {
                self.flatten(c, depth + 1, inside, out);
            }
        }
    }

    pub fn rows(&self) -> &[XRow] {
        &self.rows
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn selected(&self) -> Option<&XRow> {
        self.rows.get(self.cursor)
    }

    /// The selected node's object (for YAML, describe, logs), with its kind.
    pub fn selected_object(&self) -> Option<(XKind, Arc<DynamicObject>)> {
        let row = self.selected()?;
        let kind = match row.kind {
            NodeKind::Object(k) => k,
            NodeKind::Container | NodeKind::Loading => XKind::Pod,
            NodeKind::Revisions => return None,
        };
        let store = self.stores.get(&kind)?;
        Some((kind, store.get(&row.key)?))
    }

    /// The node with `id`, searched in the tree.
    pub fn node(&self, id: &str) -> Option<&XNode> {
        fn find<'a>(n: &'a XNode, id: &str) -> Option<&'a XNode> {
            if &*n.id == id {
                return Some(n);
            }
            n.children.iter().find_map(|c| find(c, id))
        }
        self.roots.values().find_map(|r| find(r, id))
    }

    /// The roots' subtrees, in key order.
    pub fn roots(&self) -> impl Iterator<Item = &XNode> {
        self.roots.values()
    }

    pub fn root_count(&self) -> usize {
        self.roots.len()
    }

    /// Objects in the tree (every node but containers; an object under two roots once).
    pub fn object_count(&self) -> usize {
        self.objects
    }

    pub fn select(&mut self, i: usize) {
        if self.rows.is_empty() {
            return;
        }
        self.cursor = i.min(self.rows.len() - 1);
        self.selected = self.rows.get(self.cursor).map(|r| r.id.clone());
    }

    pub fn scroll_into_view(&mut self, height: usize) {
        let h = height.max(1);
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + h {
            self.offset = self.cursor + 1 - h;
        }
    }

    /// Toggle the selected node; returns the pod key whose containers must be fetched when a
    /// pod was opened without them.
    pub fn toggle(&mut self) -> Option<Arc<str>> {
        let row = self.selected()?.clone();
        if !row.expandable {
            return None;
        }
        self.toggled.insert(row.id.clone(), !row.expanded);
        self.reflatten();
        (!row.expanded
            && row.kind == NodeKind::Object(XKind::Pod)
            && !self.has_containers(&row.key))
        .then_some(row.key)
    }

    /// `+`: everything open; `-`: only the roots.
    pub fn expand_all(&mut self, open: bool) {
        self.expand = if open { Expand::All } else { Expand::Roots };
        self.toggled.clear();
        self.reflatten();
    }

    pub fn set_filter(&mut self, filter: XFilter) {
        self.filter = filter;
        self.reflatten();
    }

    // ------------------------------------------------------------------ drawing

    /// Draw the visible window of the tree.
    pub fn draw(&self, area: Rect, buf: &mut Buffer) {
        let title = format!(
            " Xray {}({}) [{}, {}] ",
            self.root.resource(),
            self.namespace.as_deref().unwrap_or("all"),
            counted(self.root_count(), "root", "roots"),
            counted(self.object_count(), "object", "objects")
        );
        let mut title_spans = vec![Span::styled(
            title,
            Style::default()
                .fg(Color::LightBlue)
                .add_modifier(Modifier::BOLD),
        )];
        if !self.filter.raw.is_empty() {
            title_spans.push(Span::styled(
                format!("</{}> ", self.filter.raw),
                Style::default().fg(Color::Yellow),
            ));
        }
        let block = Block::bordered().title(Line::from(title_spans));
        let inner = block.inner(area);
        block.render(area, buf);
        if self.rows.is_empty() {
            let msg = if self.stores.contains_key(&self.root) {
                format!("no {} here", self.root.resource())
            } else {
                "loading…".to_string()
            };
            Paragraph::new(msg).render(inner, buf);
            return;
        }
        let h = usize::from(inner.height);
        for (i, row) in self.rows.iter().enumerate().skip(self.offset).take(h) {
            let y = inner.y + (i - self.offset) as u16;
            // An all-namespaces tree names each namespaced root's namespace.
            let ns = (crate::ui::scope::spans_namespaces(self.namespace.as_deref(), true)
                && row.depth == 0)
                .then(|| row.key.split_once('/').map(|(ns, _)| ns))
                .flatten();
            let line = row_line(row, ns);
            buf.set_line(inner.x, y, &line, inner.width);
            if i == self.cursor {
                buf.set_style(
                    Rect::new(inner.x, y, inner.width, 1),
                    Style::default().add_modifier(Modifier::REVERSED),
                );
            }
        }
    }
}

/// `n` and the noun for it (`1 object`, `3 objects`).
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A row of the tree; `namespace`: shown before a root's name (an all-namespaces tree).
fn row_line(row: &XRow, namespace: Option<&str>) -> Line<'static> {
    let indent = "  ".repeat(row.depth);
    let arrow = match (row.expandable, row.expanded) {
        (false, _) => "  ",
        (true, true) => "▾ ",
        (true, false) => "▸ ",
    };
    let (glyph, color) = glyph(row.health);
    let kind = match row.kind {
        NodeKind::Object(k) => k.short(),
        NodeKind::Container => "ctr",
        NodeKind::Loading => "",
        NodeKind::Revisions => XKind::ReplicaSet.short(),
    };
    let not_ready = row.total > 0 && row.ready < row.total;
    let count_style = if not_ready {
        Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)
    } else {
        Style::default().fg(Color::Green)
    };
    let mut spans = vec![
        Span::raw(format!("{indent}{arrow}")),
        Span::styled(format!("{glyph} "), Style::default().fg(color)),
        Span::styled(format!("{kind:<6} "), Style::default().fg(Color::DarkGray)),
    ];
    if let Some(ns) = namespace {
        spans.push(Span::styled(
            format!("{ns}/"),
            Style::default().fg(Color::DarkGray),
        ));
    }
    spans.push(Span::styled(
        row.name.to_string(),
        Style::default().add_modifier(Modifier::BOLD),
    ));
    if row.total > 0 {
        spans.push(Span::styled(
            format!(" {}/{}", row.ready, row.total),
            count_style,
        ));
    }
    if !row.detail.is_empty() {
        spans.push(Span::styled(
            format!("  {}", row.detail),
            Style::default().fg(Color::Gray),
        ));
    }
    Line::from(spans)
}

/// The status glyph and its colour.
pub fn glyph(h: Health) -> (&'static str, Color) {
    match h {
        Health::Ok => ("●", Color::Green),
        Health::Pending => ("◐", Color::Yellow),
        Health::Warning => ("◑", Color::LightYellow),
        Health::Error => ("✗", Color::Red),
        Health::Terminating => ("◌", Color::Magenta),
        Health::Completed => ("✓", Color::DarkGray),
    }
}

/// (good, total) pods among direct children (good: ready or completed).
fn pod_counts(children: &[XNode]) -> (u32, u32) {
    children
        .iter()
        .filter(|c| c.kind == NodeKind::Object(XKind::Pod))
        .fold((0, 0), |(r, t), c| {
            (
                r + u32::from(matches!(c.health, Health::Ok | Health::Completed)),
                t + 1,
            )
        })
}

fn pod_node(obj: &DynamicObject) -> Option<&str> {
    crate::informer::index::dynamic_pod_node(&obj.data)
}

fn service_selector(svc: &DynamicObject) -> Option<LabelSelector> {
    LabelSelector::from_map(svc.data.get("spec").and_then(|s| s.get("selector")))
}

fn revision(obj: &DynamicObject) -> i64 {
    crate::informer::cached::unpacked(obj)
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("deployment.kubernetes.io/revision"))
        .and_then(|r| r.parse().ok())
        .unwrap_or(0)
}

fn detail(kind: XKind, obj: &DynamicObject) -> String {
    // A packed ReplicaSet's replicas and revision read as they were.
    let obj = &*crate::informer::cached::unpacked(obj);
    let replicas = obj
        .data
        .get("spec")
        .and_then(|s| s.get("replicas"))
        .and_then(Value::as_i64);
    match kind {
        XKind::ReplicaSet => {
            let mut d = format!("rev {}", revision(obj));
            if let Some(r) = replicas {
                d.push_str(&format!(" · want {r}"));
            }
            d
        }
        XKind::Deployment | XKind::StatefulSet => {
            replicas.map(|r| format!("want {r}")).unwrap_or_default()
        }
        XKind::Service => service_selector(obj)
            .map(|s| format!("selector {s}"))
            .unwrap_or_else(|| "no selector".to_string()),
        XKind::Node => {
            let ready = obj
                .data
                .get("status")
                .and_then(|s| s.get("conditions"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .find(|c| c.get("type").and_then(Value::as_str) == Some("Ready"))
                .and_then(|c| c.get("status").and_then(Value::as_str))
                == Some("True");
            if ready { "Ready" } else { "NotReady" }.to_string()
        }
        _ => String::new(),
    }
}

fn container_health(c: &ContainerInfo) -> Health {
    if c.ready {
        Health::Ok
    } else if c.state == "terminated: Completed" {
        Health::Completed
    } else if c.state.starts_with("waiting: ") && c.state != "waiting: ContainerCreating"
        || c.state.starts_with("terminated")
    {
        Health::Error
    } else {
        Health::Pending
    }
}

fn container_detail(c: &ContainerInfo) -> String {
    let mut d = c.state.clone();
    if c.restarts > 0 {
        d.push_str(&format!(" ↻{}", c.restarts));
    }
    if !c.image.is_empty() {
        d.push_str(&format!(" · {}", c.image));
    }
    d
}

mod fold;

#[cfg(test)]
mod tests;
