//! What flows into the [`App`](super::app::App) ([`Action`]) and what it asks the runtime to do
//! ([`Effect`]).
//!
//! The runtime ([`crate::runtime`]) owns every piece of I/O: terminal events, informers, API calls.
//! It turns them into [`Action`]s and feeds them to `App::update`, which returns [`Effect`]s that the
//! runtime carries out, answering with further actions. `update` never blocks on I/O, so every key
//! path is unit-testable.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;

use crossterm::event::{KeyEvent, MouseEvent};
use kube::api::DynamicObject;

use super::metrics::{MetricsScope, MetricsUpdate};
use crate::cluster::ResourceInfo;
use crate::informer::index::{NAMESPACE_INDEX, NODE_INDEX, OWNER_INDEX, USES_INDEX};
use crate::informer::meta_namespace_key;
use crate::informer::shared_informer::TapEntry;
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::render::{PrinterColumn, Row};
use crate::selector::LabelSelector;
use crate::ui::log_stream::{ContainerPick, LogEvent, PodFilter, StreamOptions};

/// Identifies one resource view (one informer subscription) for the lifetime of the app.
/// Allocated by the app in [`Effect::OpenResource`]; the runtime tags data for that view with it.
pub type ViewId = u64;

/// One kubeconfig context as the `:ctx` table lists it (defined beside `Connection`, which
/// reads it from the kubeconfig: the cluster layer never imports the UI).
pub use crate::cluster::ContextRow;

/// The view model of one cached object: its key, name and namespace, the kind's table cells
/// (`crate::render::row`), and the indexer's own object (shared, not copied) for what filters
/// and drill-down read: labels, owners, node, uid. Cheap to move.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectSummary {
    /// `namespace/name` or `name` (client-go's `MetaNamespaceKeyFunc`).
    pub key: Arc<str>,
    pub namespace: Option<Arc<str>>,
    pub name: Arc<str>,
    /// The kind's table cells (without NAMESPACE) and health.
    pub row: Row,
    /// The cached object the row was made from (the indexer's `Arc`).
    pub object: Arc<DynamicObject>,
}

/// Separates the cluster from the object's key in a merged table's row key
/// (`prod-us\u{1f}shop/web`): same-named objects of two clusters are two rows. Never in a
/// context name nor in a Kubernetes name.
pub const CLUSTER_SEP: char = '\u{1f}';

/// A merged table's row key: `cluster` + [`CLUSTER_SEP`] + the object's key.
pub fn cluster_key(cluster: &str, key: &str) -> Arc<str> {
    let mut s = String::with_capacity(cluster.len() + 1 + key.len());
    s.push_str(cluster);
    s.push(CLUSTER_SEP);
    s.push_str(key);
    Arc::from(s)
}

impl ObjectSummary {
    /// The summary of one cached object: its key and the kind's row (`crate::render::row`).
    /// `None` for an object without a name (it cannot be keyed).
    pub fn from_object(
        kind: &str,
        obj: &Arc<DynamicObject>,
        printer_columns: Option<&[PrinterColumn]>,
    ) -> Option<ObjectSummary> {
        let key: Arc<str> = Arc::from(meta_namespace_key(&**obj).ok()?);
        Self::with_key(kind, key, obj, printer_columns)
    }

    /// [`from_object`](Self::from_object) with the object's key given (the indexer's own `Arc`,
    /// shared rather than copied; it must be the object's `namespace/name` key).
    pub fn with_key(
        kind: &str,
        key: Arc<str>,
        obj: &Arc<DynamicObject>,
        printer_columns: Option<&[PrinterColumn]>,
    ) -> Option<ObjectSummary> {
        let meta = &obj.metadata;
        Some(ObjectSummary {
            key,
            namespace: meta
                .namespace
                .as_deref()
                .filter(|n| !n.is_empty())
                .map(Arc::from),
            name: Arc::from(meta.name.as_deref()?),
            row: crate::render::row(kind, obj, printer_columns),
            object: Arc::clone(obj),
        })
    }

    /// The fleet member the row came from, in a merged table (several clusters selected): the
    /// part of the key before [`CLUSTER_SEP`]. `None`: a single cluster's row (key unchanged).
    pub fn cluster(&self) -> Option<&str> {
        self.key.split_once(CLUSTER_SEP).map(|(c, _)| c)
    }

    /// The object's own key (`namespace/name` or `name`), without the cluster of a merged row.
    pub fn object_key(&self) -> &str {
        self.key
            .split_once(CLUSTER_SEP)
            .map_or(&*self.key, |(_, k)| k)
    }

    /// `metadata.uid` (`""` when absent).
    pub fn uid(&self) -> &str {
        self.object.metadata.uid.as_deref().unwrap_or("")
    }

    /// The object's labels (wherever the cache keeps them, see [`crate::informer::cached`]),
    /// for display and for evaluating a selector's set terms.
    pub fn labels(&self) -> crate::informer::cached::Labels<'_> {
        crate::informer::cached::labels(&self.object)
    }

    /// `metadata.ownerReferences[].uid`, for drill-down from owners.
    pub fn owner_uids(&self) -> impl Iterator<Item = &str> {
        self.object
            .metadata
            .owner_references
            .iter()
            .flatten()
            .map(|r| r.uid.as_str())
    }

    /// `spec.nodeName` (pods), for drill-down from nodes.
    pub fn node(&self) -> Option<&str> {
        crate::informer::index::dynamic_pod_node(&self.object.data)
    }
}

/// State of one informer as the informer panel and the header show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InformerState {
    Starting,
    Listing,
    Watching,
    /// Waiting before the next list/watch attempt, until this unix time (milliseconds).
    BackingOff {
        until_ms: i64,
    },
    /// The server refused with 403: the next attempt is far off (RBAC changes are rare), at
    /// this unix time (milliseconds); `ctrl-r` retries now.
    Forbidden {
        retry_at_ms: i64,
    },
    /// Asking the server where its history is before watching on (after a reconnect, `ctrl-r`).
    Checking,
    Stopped,
}

/// One row of the informer panel (`:informers`), built by the runtime from the informer's stats.
#[derive(Debug, Clone, PartialEq)]
pub struct InformerRow {
    /// `plural` for the core group, else `plural.group` (see [`resource_label`]).
    pub resource: String,
    /// `None` = all namespaces / cluster-scoped.
    pub namespace: Option<String>,
    pub state: InformerState,
    /// How its reflector lists: "stream" (WatchList), "list", or "fallback" (lists: the server
    /// refused streaming lists).
    pub list_mode: &'static str,
    /// The encoding its lister-watcher reads: "protobuf" or "json".
    pub wire: &'static str,
    pub last_rv: String,
    pub cached: usize,
    pub queue_depth: usize,
    pub deltas_total: u64,
    pub deltas_per_sec: f64,
    pub relists: u64,
    pub last_error: Option<String>,
    pub synced: bool,
    /// The last error was a 403: the view for this resource says so.
    pub forbidden: bool,
    /// `None`: an informer of the current context; `Some`: of that fleet member (the informer
    /// panel's CLUSTER column; views and the header read the current context's rows).
    pub cluster: Option<Arc<str>>,
    /// The list in progress, while listing (objects, bytes, the total when known).
    pub progress: Option<crate::ui::listing::ListingProgress>,
    /// An error interrupted the informer and it has not been confirmed current since: its rows
    /// may lag the server (the header says `stale`, not `synced`).
    pub stale: bool,
    /// The latest time the server's history went back and the informer listed again: the
    /// header's and the event log's line (`history went back (RV … → …: …); listed again`).
    pub history_reset: Option<String>,
}

/// A fleet member's state as its prober sees it (the header's per-cluster line, when several
/// contexts are selected: `--context a,b`, `--context 'prod-*'`, `--all-contexts`, `:ctx +name`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ClusterHealth {
    /// Not answered yet.
    #[default]
    Connecting,
    Up {
        version: String,
        /// The kinds it serves (`plural` or `plural.group`, as [`resource_label`]), from its
        /// discovery when it came up; `None`: discovery did not answer.
        kinds: Option<Vec<String>>,
    },
    /// The next probe at `retry_at_ms` (unix ms; the header counts down to it).
    Unreachable { error: String, retry_at_ms: i64 },
    /// The server answered 401/403 to this context's credentials.
    Forbidden { error: String },
}

/// Reachability of the API server, as the header shows it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConnectionState {
    pub context: String,
    pub server_version: Option<String>,
    pub reachable: bool,
    /// When unreachable: the next attempt, unix milliseconds (the header counts down to it).
    pub retry_at_ms: Option<i64>,
    pub last_error: Option<String>,
}

/// Why a view has no data: the server does not let this user list or watch the resource in
/// the view's scope (an access review said so, or a list answered 403).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Denial {
    /// The verb refused: `list` or `watch`.
    pub verb: String,
    /// The user the server named (`User "jane" cannot ...`), when it did.
    pub user: Option<String>,
    /// The server's message.
    pub message: String,
    /// When the runtime checks again by itself (unix ms); `ctrl-r` checks now.
    pub retry_at_ms: Option<i64>,
}

impl Denial {
    /// A denial read from a 403 message: the user is the one kube-apiserver names.
    pub fn from_message(verb: &str, message: &str, retry_at_ms: Option<i64>) -> Denial {
        Denial {
            verb: verb.to_string(),
            user: user_in_forbidden_message(message),
            message: message.to_string(),
            retry_at_ms,
        }
    }
}

/// `jane` from kube-apiserver's `... is forbidden: User "jane" cannot list ...`.
pub fn user_in_forbidden_message(message: &str) -> Option<String> {
    let rest = &message[message.find("User \"")? + 6..];
    let end = rest.find('"')?;
    Some(rest[..end].to_string())
}

/// What an access review answered for list and watch of a resource in a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    Allowed,
    Denied(Denial),
    /// No answer (the review API is missing or refused, or failed): open and let a 403 tell.
    Unknown,
}

/// A port a pod's container declares (`spec.containers[].ports[]`), for the port-forward dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerPort {
    pub container: String,
    pub port: u16,
    /// The port's name (`""` when unnamed).
    pub name: String,
    pub protocol: String,
}

/// What `F` forwards to: a pod, or one ready pod of a Service or Deployment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForwardKind {
    Pod,
    Service,
    Deployment,
}

impl ForwardKind {
    /// kubectl's short name (`pod`, `svc`, `deploy`).
    pub fn short(self) -> &'static str {
        match self {
            ForwardKind::Pod => "pod",
            ForwardKind::Service => "svc",
            ForwardKind::Deployment => "deploy",
        }
    }
}

/// A Service's or Deployment's forwardable ports (for a Service: its ports, each with the
/// targetPort it maps to in `remotes`, as kubectl maps them) and the label selector of its pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SelectorPorts {
    pub selector: String,
    pub ports: Vec<ContainerPort>,
    /// The pod port of each entry of `ports`.
    pub remotes: Vec<crate::ui::portforward::RemotePort>,
}

/// Everything the app reacts to.
#[derive(Debug, Clone)]
pub enum Action {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// The wall clock, unix milliseconds. Send on a slow timer (ages) and at
    /// [`App::next_deadline_ms`](super::app::App::next_deadline_ms) (highlight expiry).
    Tick(i64),
    /// Incremental changes for a view: the latest summaries of changed keys, and deleted keys.
    Rows {
        view: ViewId,
        upserts: Vec<ObjectSummary>,
        deletes: Vec<Arc<str>>,
    },
    /// Rows of a list still arriving (the informer's store gets it whole at its end): shown as
    /// they come, without highlights; `deletes` are keys the list turned out not to hold.
    ListedRows {
        view: ViewId,
        upserts: Vec<ObjectSummary>,
        deletes: Vec<Arc<str>>,
    },
    /// The complete content of a view (initial sync or relist); keys absent are deletions.
    Resync {
        view: ViewId,
        rows: Vec<ObjectSummary>,
    },
    /// The indexer behind a view: label filters and pickers read its label index.
    Store {
        view: ViewId,
        store: Arc<ThreadSafeStore<DynamicObject>>,
    },
    /// One member's indexer behind a merged view (several clusters selected): its keys are
    /// the object's own; the view's rows are `cluster` + [`CLUSTER_SEP`] + key.
    MemberStore {
        view: ViewId,
        cluster: Arc<str>,
        store: Arc<ThreadSafeStore<DynamicObject>>,
    },
    /// A view's informer failed (e.g. 403 Forbidden); shown in the view instead of rows.
    ViewError {
        view: ViewId,
        message: String,
        forbidden: bool,
    },
    InformerStats(Vec<InformerRow>),
    /// config.toml's `verify_minutes` passed: verify the current table (see `:verify`).
    VerifyTick,
    /// The answer to [`Effect::Verify`]: the view's cache compared with a fresh list.
    Verified {
        view: ViewId,
        result: Result<crate::informer::consistency::Verification, String>,
    },
    /// The view's informer was not started: the user may not list/watch it in that scope.
    Forbidden {
        view: ViewId,
        denial: Denial,
    },
    /// Answer to [`Effect::CheckAccess`].
    AccessChecked {
        view: ViewId,
        namespace: Option<String>,
        access: Access,
    },
    /// New entries of the informers' event tap, any order (the log orders by `seq`).
    Tap(Vec<TapEntry>),
    /// Answer to [`Effect::FetchYaml`]: the full object as JSON, or an error.
    Yaml {
        request: u64,
        result: Result<serde_json::Value, String>,
    },
    /// Answer to [`Effect::FetchDescribe`]: the describe text, or an error.
    Describe {
        request: u64,
        result: Result<String, String>,
    },
    Connection(ConnectionState),
    /// Answer to [`Effect::FetchDiff`]: the comparison text, or an error.
    Diff {
        request: u64,
        result: Result<String, String>,
    },
    /// A fleet member's prober reports (see [`Effect::WatchCluster`]).
    ClusterHealth {
        context: String,
        health: ClusterHealth,
    },
    Discovery(Vec<ResourceInfo>),
    /// Known contexts of the kubeconfig, for `:ctx` completion and validation.
    Contexts(Vec<String>),
    /// The kubeconfig's contexts with their cluster, user and namespace (the `:ctx` table).
    ContextRows(Vec<ContextRow>),
    /// Answer to [`Effect::FetchTargetPorts`]: the Service's or Deployment's ports and selector.
    TargetPorts {
        namespace: String,
        name: String,
        result: Result<SelectorPorts, String>,
    },
    /// Answer to [`Effect::FetchPorts`]: the pod's container ports.
    Ports {
        namespace: String,
        pod: String,
        result: Result<Vec<ContainerPort>, String>,
    },
    /// Answer to [`Effect::FetchContainers`]: the pod's container names and the index of the
    /// one kubectl would pick (its default-container annotation, else the first).
    Containers {
        namespace: String,
        pod: String,
        result: Result<(Vec<String>, usize), String>,
    },
    /// Answer to [`Effect::FetchPodContainers`]: the pod's containers, each with its usage.
    PodContainers {
        namespace: String,
        pod: String,
        result: Result<crate::ui::pod_containers::PodContainers, String>,
    },
    /// The active port-forwards (after a start or stop, and once a second while they change).
    Forwards(Vec<crate::ui::portforward::ForwardRow>),
    /// Progress of the drain started by [`Effect::Drain`].
    Drain(crate::ui::drain::DrainEvent),
    /// Answer to [`Effect::FetchImages`]: the object's containers and images.
    Images {
        write: Box<crate::ui::operate::Write>,
        result: Result<Vec<crate::ui::operate::ContainerImage>, String>,
    },
    /// How a view of several namespaces is served (one all-namespaces informer, or one per
    /// namespace and which are forbidden), for the informer panel.
    ScopeServed {
        view: ViewId,
        served: String,
    },
    /// The dry runs of a create (`ctrl-n`, `:create`) or of `:apply PATH` passed: ask the user
    /// to confirm the applies (`crate::ui::apply`).
    ApplyPlan(Box<crate::ui::apply::ApplyPlan>),
    /// The server refused a confirmed apply from the editor (400, 403, 404, 409, 422): the
    /// editor reopens on `text` with `message` over it, as `kubectl edit` does.
    ApplyRefused {
        resource: ResourceInfo,
        text: String,
        message: String,
    },
    /// A one-line message for the footer (e.g. the result of a delete).
    Notify {
        message: String,
        error: bool,
    },
    /// One poll of the metrics API (or why it cannot be used), from the poller that
    /// [`Effect::WatchMetrics`] started.
    Metrics(MetricsUpdate),
    /// The non-terminated pods per node (the nodes view's PODS column), counted from the node
    /// index of the all-namespaces pods informer that [`Effect::WatchNodePods`] started; sent
    /// when the pods changed, at most once a second.
    NodePods(NodePods),
    /// One frame's worth of events from the streams of a log view ([`Effect::OpenLogs`]),
    /// coalesced by the runtime: at most one per frame interval, never one per line.
    Log {
        view: ViewId,
        batch: Vec<LogEvent>,
    },
    /// Answer to [`Effect::SaveLogs`]: where the buffer went and how many lines, or an error.
    LogSaved {
        view: ViewId,
        result: Result<(PathBuf, usize), String>,
    },
    /// Answer to [`Effect::FetchPastView`]: the view's objects as they were, and the instants
    /// its objects changed (the stops of `[` and `]`).
    PastView {
        view: ViewId,
        past: Box<crate::informer::history::PastView>,
        times: Vec<i64>,
    },
    /// Answer to [`Effect::FetchHistory`]: the object's recorded versions (`None`: nothing held)
    /// and the recorder's budget figures.
    History {
        resource: String,
        key: String,
        timeline: Option<Box<crate::informer::history::Timeline>>,
        stats: crate::informer::history::HistoryStats,
        /// The object's Events from the events informer's `involved` index, in no order.
        events: Vec<crate::informer::history::TimelineEvent>,
        /// Why the object's Events cannot be shown: the server's 403 message when the user
        /// may not list Events there.
        events_unavailable: Option<String>,
    },
    /// Every revision of every helm release in the scope [`Effect::WatchHelm`] asked for, from
    /// helm's storage objects (sent when they change), or why they cannot be listed.
    HelmReleases(Result<Vec<crate::helm::Revision>, String>),
    /// Answer to [`Effect::FetchHelmRelease`]: the revision's release, decoded.
    HelmRelease {
        request: u64,
        result: Result<Box<crate::helm::Release>, String>,
    },
    /// Answer to [`Effect::FetchChanges`].
    Changes {
        filter: ChangesFilter,
        rows: Vec<crate::informer::history::ChangeRow>,
        stats: crate::informer::history::HistoryStats,
    },
    /// How far the built-in demo cluster's seeding has come (`--demo`).
    DemoSeeding(DemoSeeding),
    /// The demo cluster is seeded: its banner, shown unless the footer already says something
    /// (an error or a problem found meanwhile is not covered by it).
    DemoSeeded(String),
}

/// The built-in demo cluster is stored while the dashboard already runs: the footer shows how
/// far (`demo cluster: seeding 60,000 pods… 40%`) until `seeded` says it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DemoSeeding {
    /// The pods asked for (`--demo-pods`).
    pub pods: usize,
    /// Of the seed, 0 to 99 while it goes on.
    pub percent: u8,
    /// Done: the objects stored.
    pub seeded: Option<usize>,
}

/// Requests the runtime carries out.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Quit,
    /// A typed kind is not in discovery (which may come from kubectl's disk cache): ask the
    /// server's discovery again, reading no cached document, and answer [`Action::Discovery`]
    /// (empty when discovery failed).
    Rediscover,
    /// Run a k9s plugin: in the background (a task, output to a file, a footer line when it
    /// ends) or with the terminal (as a shell).
    RunPlugin(Box<crate::ui::plugin_run::PluginRun>),
    /// Start or reuse the informer for `resource` in `namespace` (`None`: all namespaces or
    /// cluster-scoped) and stream its content to `view` ([`Action::Store`], then
    /// [`Action::Resync`], then [`Action::Rows`]).
    ///
    /// `drill`: the view is a drill-down; feed it only the objects the drill's index files under
    /// its values (the app reads the initial rows from that index itself, on `Action::Store`).
    OpenResource {
        view: ViewId,
        resource: ResourceInfo,
        namespace: Option<String>,
        drill: Option<Drill>,
    },
    /// A drilled view's relation widened or narrowed (a Deployment gained a ReplicaSet): feed the
    /// view the objects of the new values from now on, and queue those already cached.
    SetDrill {
        view: ViewId,
        drill: Drill,
    },
    /// The view is gone: stop streaming to it (the informer may be stopped if unused).
    CloseView {
        view: ViewId,
    },
    /// Ask whether `resource` may be listed and watched in `namespace` (the access review the
    /// runtime caches for the session); answer with [`Action::AccessChecked`] for `view`.
    CheckAccess {
        view: ViewId,
        resource: ResourceInfo,
        namespace: Option<String>,
    },
    /// A forbidden view: forget the cached access answers for it, and check and open again now
    /// (instead of at the slow RBAC retry).
    RetryForbidden {
        view: ViewId,
    },
    /// `ctrl-r` on a view that is not forbidden: its informer asks the server where its history
    /// is before watching on (a restored etcd, a re-created cluster relist from scratch).
    CheckHistory {
        view: ViewId,
    },
    /// `:verify`: compare the view's informer cache with a fresh consistent list (relisting
    /// when they differ); answer with [`Action::Verified`].
    Verify {
        view: ViewId,
    },
    /// GET the full object; answer with [`Action::Yaml`].
    FetchYaml {
        request: u64,
        resource: ResourceInfo,
        namespace: Option<String>,
        name: String,
    },
    /// Build the describe text (object + its Events); answer with [`Action::Describe`].
    FetchDescribe {
        request: u64,
        resource: ResourceInfo,
        namespace: Option<String>,
        name: String,
    },
    /// Send one write through `crate::runtime::operate::execute` and answer with
    /// [`Action::Notify`] (the server's answer). Never emitted in read-only mode; a destructive
    /// write only after the user confirmed it.
    Write(crate::ui::operate::Write),
    /// Drain a node (`crate::runtime::drain::drain`, a cancellable task): answer with
    /// [`Action::Drain`] events. Only emitted after confirmation, never in read-only mode.
    Drain {
        node: String,
        opts: crate::ui::drain::DrainOptions,
    },
    /// Cancel the running drain (it answers `DrainEvent::Cancelled`).
    CancelDrain,
    /// GET the object a set-image write names; answer with [`Action::Images`].
    FetchImages(Box<crate::ui::operate::Write>),
    /// GET the pod; answer with [`Action::Containers`].
    FetchContainers {
        namespace: String,
        pod: String,
    },
    /// GET the pod and its PodMetrics (absent metrics: no usage); answer with
    /// [`Action::PodContainers`].
    FetchPodContainers {
        namespace: String,
        pod: String,
    },
    /// GET the pod; answer with [`Action::Ports`].
    FetchPorts {
        namespace: String,
        pod: String,
    },
    /// GET the Service or Deployment for its ports and selector; answer with
    /// [`Action::TargetPorts`].
    FetchTargetPorts {
        namespace: String,
        kind: ForwardKind,
        name: String,
    },
    /// Forward 127.0.0.1:`local` (or the next free port; 0: any) to `port` of one ready pod of
    /// `selector` in `namespace`, moving to another when it goes (`what`: `svc/web`), as a task
    /// with its own cancellation token; answers as [`Effect::StartForward`]. Never emitted in
    /// read-only mode.
    StartForwardTarget {
        id: u64,
        namespace: String,
        what: String,
        selector: String,
        port: crate::ui::portforward::RemotePort,
        local: u16,
    },
    /// Forward 127.0.0.1:`local` (or the next free port; 0: any) to `namespace/pod:port` as a
    /// task with its own cancellation token; answer with [`Action::Forwards`] and a
    /// [`Action::Notify`]. Never emitted in read-only mode.
    StartForward {
        id: u64,
        namespace: String,
        pod: String,
        port: u16,
        local: u16,
    },
    /// Stop forward `id` (listener closed, task ended); answer with [`Action::Forwards`].
    StopForward {
        id: u64,
    },
    /// Suspend the dashboard and hand the terminal to an interactive shell in the pod's
    /// container (`crate::runtime::shell`); when it exits, restore and redraw the dashboard and
    /// answer with [`Action::Notify`]. Never emitted in read-only mode.
    Shell {
        namespace: String,
        pod: String,
        container: Option<String>,
    },
    /// `s` on a node (k9s's node shell), confirmed: create `pod` (a privileged pod on `node`,
    /// see [`crate::ui::node_shell`]) in `namespace`, wait for it to run, then suspend the
    /// dashboard for a shell in it entering PID 1's namespaces, and delete the pod when the shell
    /// exits; answer with [`Action::Notify`]. Never emitted in read-only mode.
    NodeShell {
        node: String,
        namespace: String,
        name: String,
        pod: Box<serde_json::Value>,
    },
    /// As [`Effect::Shell`], attached to the container's main process (`kubectl attach -it`)
    /// instead of a new shell. Never emitted in read-only mode.
    Attach {
        namespace: String,
        pod: String,
        container: String,
    },
    /// Suspend the dashboard and edit the object in `$KUBE_EDITOR` / `$EDITOR`
    /// (`crate::runtime::edit::edit_loop`), then restore and redraw the dashboard and answer with
    /// [`Action::Notify`]. Never emitted in read-only mode.
    Edit {
        resource: ResourceInfo,
        namespace: Option<String>,
        name: String,
    },
    /// Suspend the dashboard and open the editor on a template for a new object of `resource`
    /// (`crate::runtime::apply::create_loop`); on save, dry-run the documents (served
    /// `resources`; `namespace`: the template's namespace and the default for documents
    /// without one) and answer with [`Action::ApplyPlan`], else with [`Action::Notify`].
    /// Never emitted in read-only mode.
    Create {
        resource: ResourceInfo,
        namespace: String,
        resources: Vec<ResourceInfo>,
        /// Open the editor on this text and error instead of the template (the real apply
        /// was refused).
        reopen: Option<crate::ui::apply::Reopen>,
    },
    /// `:apply PATH`: dry-run the documents of a manifest file or directory; answer with
    /// [`Action::ApplyPlan`] or [`Action::Notify`]. Never emitted in read-only mode.
    ApplyFile {
        path: PathBuf,
        namespace: String,
        resources: Vec<ResourceInfo>,
    },
    /// Send these confirmed server-side applies in order; answer with [`Action::Notify`], or,
    /// when the server refuses one and they came from the editor (`edited`: its text), with
    /// [`Action::ApplyRefused`]. Never emitted in read-only mode.
    Apply {
        writes: Vec<crate::ui::operate::Write>,
        edited: Option<String>,
    },
    /// Poll `metrics.k8s.io` for `scope` while `view` is open (one poller per scope, shared by
    /// the views asking for it; [`Effect::CloseView`] of the last one ends it). Answered with
    /// [`Action::Metrics`], one per poll.
    WatchMetrics {
        view: ViewId,
        scope: MetricsScope,
    },
    /// Count the pods on each node while `view` (a nodes view) is open: the runtime shares or
    /// starts the all-namespaces `pods` informer (after an access check) and answers with
    /// [`Action::NodePods`].
    WatchNodePods {
        view: ViewId,
        pods: ResourceInfo,
    },
    /// Switch kubeconfig context: the runtime rebuilds its client and factory, then sends
    /// Connection/Discovery again. Views are reopened by the OpenResource effects that follow.
    SwitchContext(String),
    /// Probe a fleet member (its own client from the kubeconfig) until unwatched: `GET /version`
    /// every few seconds, backing off while it is down; answered with [`Action::ClusterHealth`].
    WatchCluster(String),
    /// Stop probing a fleet member.
    UnwatchCluster(String),
    /// Carry out `effect` on fleet member `cluster` (its own connection, informers, access
    /// cache): everything aimed at an object of a merged table goes to that object's cluster,
    /// never implicitly to the current context. An `OpenResource` here feeds the view from
    /// that member only (a drill-down into one cluster's object). A member no longer selected:
    /// refused with a [`Action::Notify`], nothing is sent anywhere else.
    OnCluster {
        cluster: String,
        effect: Box<Effect>,
    },
    /// GET the object `namespace/name` from each of `contexts` (each on its own client) and
    /// compare them; answer with [`Action::Diff`].
    FetchDiff {
        request: u64,
        resource: ResourceInfo,
        namespace: Option<String>,
        name: String,
        contexts: Vec<String>,
    },
    /// Stream the logs of the pods of `namespace` matching `filter` (a pod's name, or a
    /// workload's selector: pods that appear later are followed) under a new cancellation token
    /// for `view`; answer with [`Action::Log`] batches tagged `view`.
    OpenLogs {
        view: ViewId,
        namespace: String,
        filter: PodFilter,
        containers: ContainerPick,
        options: StreamOptions,
    },
    /// The log view is gone (or restarts under a new id): cancel its token, every stream ends.
    CloseLogs {
        view: ViewId,
    },
    /// Write a log view's buffer to `path` (directories created); answer with
    /// [`Action::LogSaved`].
    SaveLogs {
        view: ViewId,
        path: PathBuf,
        contents: String,
    },
    /// Write a table's CSV (`ctrl-s`, `rows` records) to `path`; the answer is a footer line.
    SaveTable {
        path: PathBuf,
        contents: String,
        rows: usize,
    },
    /// Every object of `view` (history's `resource`, in `namespace` or all) as it was at
    /// `at_ms`; answer with [`Action::PastView`].
    FetchPastView {
        view: ViewId,
        resource: String,
        namespace: Option<String>,
        at_ms: i64,
    },
    /// The recorded history of `key` (`namespace/name`) of `resource` (`pods`,
    /// `deployments.apps`); answer with [`Action::History`]. `kind` (`Pod`; empty when not
    /// known) finds the object's Events that name it without a uid; the first ask starts an
    /// events informer for the object's namespace when none runs (see
    /// [`Effect::CloseHistory`]).
    FetchHistory {
        resource: String,
        key: String,
        kind: String,
    },
    /// The last timeline screen closed: stop the events informer its first
    /// [`Effect::FetchHistory`] started, unless a view uses it.
    CloseHistory,
    /// `:helm`: watch helm's storage objects in `namespace` (`None`: all): Secrets of type
    /// `helm.sh/release.v1` labelled `owner=helm` and ConfigMaps labelled `owner=helm`, and only
    /// those (field and label selectors), each cached as its table row; answer with
    /// [`Action::HelmReleases`] when they change. A second ask replaces the first.
    WatchHelm {
        namespace: Option<String>,
    },
    /// The last helm screen closed: stop [`Effect::WatchHelm`]'s informers.
    UnwatchHelm,
    /// GET one revision's storage object and decode its release; answer with
    /// [`Action::HelmRelease`].
    FetchHelmRelease {
        request: u64,
        namespace: String,
        storage: crate::helm::Storage,
        object: String,
    },
    /// The latest `limit` recorded versions passing `filter`, newest first; answer with
    /// [`Action::Changes`].
    FetchChanges {
        filter: ChangesFilter,
        limit: usize,
    },
}

/// `plural` for the core group, else `plural.group`: how resources are named in the informer
/// panel and matched to views.
pub fn resource_label(resource: &ResourceInfo) -> String {
    let ar = &resource.api_resource;
    if ar.group.is_empty() {
        ar.plural.clone()
    } else {
        format!("{}.{}", ar.plural, ar.group)
    }
}

/// The nodes view's PODS column: pods per node, or why they cannot be counted.
#[derive(Debug, Clone, PartialEq)]
pub enum NodePods {
    /// Non-terminated pods (phase neither Succeeded nor Failed) by node name.
    Counts(Arc<std::collections::HashMap<String, u64>>),
    /// Pods cannot be listed across namespaces (the server's message).
    Unavailable(String),
}

/// Restricts a table to the objects related to a drilled-down object. Each kind is answered by
/// one informer index ([`Drill::index`]) under [`Drill::values`], so a drilled view's rows are
/// read from the index (O(matches)); [`Filters`](crate::ui::table::Filters) re-checks each row against the same relation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Drill {
    /// Objects with an ownerReference to one of these uids (the owner index).
    Owners(HashSet<Arc<str>>),
    /// Pods scheduled on this node (the node index).
    Node(Arc<str>),
    /// Objects in this namespace (the namespace index).
    Namespace(Arc<str>),
    /// Pods that use this `namespace/Kind/name` (a ConfigMap, Secret or claim: the uses index).
    Uses(Arc<str>),
}

impl Drill {
    /// The informer index answering this drill-down.
    pub fn index(&self) -> &'static str {
        match self {
            Drill::Owners(_) => OWNER_INDEX,
            Drill::Node(_) => NODE_INDEX,
            Drill::Namespace(_) => NAMESPACE_INDEX,
            Drill::Uses(_) => USES_INDEX,
        }
    }

    /// The index values whose objects the drill-down shows (any of them).
    pub fn values(&self) -> Vec<&str> {
        match self {
            Drill::Owners(uids) => uids.iter().map(|u| &**u).collect(),
            Drill::Node(n) | Drill::Namespace(n) | Drill::Uses(n) => vec![&**n],
        }
    }

    /// True when an object filed under `value` in [`index`](Self::index) belongs to the drill.
    pub fn has_value(&self, value: &str) -> bool {
        match self {
            Drill::Owners(uids) => uids.contains(value),
            Drill::Node(n) | Drill::Namespace(n) | Drill::Uses(n) => &**n == value,
        }
    }

    /// The same relation checked on a row summary.
    pub fn matches(&self, s: &ObjectSummary) -> bool {
        match self {
            Drill::Owners(uids) => s.owner_uids().any(|u| uids.contains(u)),
            Drill::Node(n) => s.node() == Some(&**n),
            Drill::Namespace(n) => s.namespace.as_deref() == Some(&**n),
            Drill::Uses(u) => {
                let ns = s.namespace.as_deref().unwrap_or("");
                let wanted = u.strip_prefix(ns).and_then(|r| r.strip_prefix('/'));
                let data = &s.object.data;
                match crate::informer::cached::pod_record(data) {
                    Some(r) => !r.uses.is_empty() && r.uses.split(',').any(|x| wanted == Some(x)),
                    // A pod the cache transform did not prune (a past view's row, rebuilt
                    // from history with the fields the uses index reads): its spec says.
                    None if data.get("spec").is_some() => crate::render::pod_uses(data)
                        .iter()
                        .any(|x| wanted == Some(x.as_str())),
                    None => false,
                }
            }
        }
    }
}

/// What the runtime filters the recorded versions by.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ChangesFilter {
    /// History resource name (`pods`, `deployments.apps`); `None`: every resource.
    pub resource: Option<String>,
    /// `None`: every namespace (and cluster-scoped objects).
    pub namespace: Option<String>,
    /// A label selector (validated by the app); empty: everything.
    pub selector: String,
}

impl ChangesFilter {
    /// Whether a version of `id` with `labels` passes (the selector parsed once by the caller).
    pub fn passes(
        &self,
        selector: Option<&LabelSelector>,
        resource: &str,
        key: &str,
        labels: &std::collections::BTreeMap<String, String>,
    ) -> bool {
        if self.resource.as_deref().is_some_and(|r| r != resource) {
            return false;
        }
        // One namespace or several (`shop,payments`); cluster-scoped objects never pass.
        if let Some(ns) = &self.namespace {
            match key.split_once('/') {
                Some((k_ns, _)) if crate::ui::scope::holds(Some(ns), k_ns) => {}
                _ => return false,
            }
        }
        selector.is_none_or(|s| s.matches(labels))
    }
}
