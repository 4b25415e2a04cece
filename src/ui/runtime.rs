//! The dashboard's runtime: all I/O around the pure [`App`].
//!
//! Terminal events, informer notifications, the event tap and timers become [`Action`]s; the
//! [`Effect`]s `App::update` returns are carried out here (informers, GETs, deletes, context
//! switches). The screen is redrawn only when the app says something changed — no busy loop and
//! no fixed repaint timer: idle CPU is a timer tick per second for the AGE column.
//!
//! Per view, informer handlers feed a [`RateLimitingQueue`] of keys; one task per view takes keys
//! in batches, reads the latest object from the indexer and sends row summaries, so a burst of
//! updates to one object costs one row update (client-go's controller pattern).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::{FutureExt, StreamExt};
use kube::Resource;
use kube::api::{Api, DynamicObject, ListParams};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::action::ContainerPort;
use super::action::{
    Access, Action, ConnectionState, Denial, Effect, InformerRow, InformerState, ObjectSummary,
    ViewId,
};
use super::app::{App, AppConfig};
use super::keys::KeyMap;
use super::log_feeds::{LogBatchRx, LogFeeds};
use super::log_view::{LogKeyMap, user_log_keys_path};
use super::metrics::{KubeMetricsSource, MetricsHub, MetricsScope, MetricsUpdate};
use super::table::Drill;
use super::terminal;
use super::{drain, edit, operate, portforward, shell};
use crate::cluster::{Connection, ResourceInfo, one_line};
use crate::informer::delta_fifo::{DeltaObject, Transform};
use crate::informer::factory::{FactoryOptions, InformerKey, SharedInformerFactory};
use crate::informer::index::IndexFunc;
use crate::informer::reflector::{ReflectorState, ReflectorStatus};
use crate::informer::shared_informer::{
    DeleteObject, HandlerRegistration, ResourceEventHandler, SharedIndexInformer,
};
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::informer::workqueue::RateLimitingQueue;
use crate::informer::{Error as InformerError, meta_namespace_key};
use crate::render;

/// Errors of the UI layer.
#[derive(Debug, thiserror::Error)]
pub enum UiError {
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
    #[error("key bindings: {0}")]
    Keys(String),
}

/// Everything the runtime needs to start.
pub struct RuntimeConfig {
    pub connection: Connection,
    /// `None`: the server could not be reached at start; the dashboard starts anyway (header
    /// shows it, informers back off) and discovery is retried until it answers.
    pub server_version: Option<String>,
    /// Why the server could not be reached at start.
    pub start_error: Option<String>,
    pub resources: Vec<ResourceInfo>,
    pub app: AppConfig,
    pub keys: KeyMap,
    /// Extra line for the header, e.g. "demo cluster on 127.0.0.1:PORT".
    pub banner: Option<String>,
    /// How often the metrics API is polled while a pods/nodes view or the pulse is open.
    pub metrics_period: Duration,
}

/// Metrics updates in flight between the pollers and the app (a poller waits when it is full).
const METRICS_CHANNEL: usize = 8;

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Most keys taken from the workqueue before one `Rows` action is sent.
const BATCH: usize = 4096;

/// Handler that turns informer notifications into keys on the view's workqueue.
struct KeyFeed {
    queue: Arc<RateLimitingQueue<Arc<str>>>,
    /// A drilled view is fed only its drill's objects.
    gate: Option<Arc<DrillGate>>,
}

/// What a drilled view is fed: the objects its drill's index files under one of the drill's
/// values. The view reads the objects already cached from the index (O(matches)); this gate
/// passes it the later changes of those objects only, so it never receives (nor renders, nor
/// sorts) the rest of the informer's objects.
struct DrillGate {
    drill: parking_lot::RwLock<Drill>,
    /// The index function of `drill.index()`, as the indexer applies it.
    index_fn: IndexFunc<DynamicObject>,
    /// The informer had synced when the view registered, so the adds marked as part of the
    /// initial list are the registration's replay of the cache: skipped, the view reads the
    /// index instead (and the queue is seeded from it).
    skip_replay: bool,
}

impl DrillGate {
    fn admits(&self, obj: &DynamicObject) -> bool {
        match (self.index_fn)(obj) {
            Ok(values) => {
                let drill = self.drill.read();
                values.iter().any(|v| drill.has_value(v))
            }
            Err(_) => false,
        }
    }

    /// Queue the keys the index files under the drill's values (O(matches)).
    fn seed(&self, store: &ThreadSafeStore<DynamicObject>, queue: &RateLimitingQueue<Arc<str>>) {
        let drill = self.drill.read();
        for value in drill.values() {
            for key in store
                .index_keys_all(drill.index(), &[value])
                .unwrap_or_default()
            {
                queue.add(key);
            }
        }
    }
}

/// A view's subscription to `informer`: a handler feeding a new workqueue with the keys of
/// changed objects. For a drill-down, only the drill's objects: the handler is gated and the
/// queue seeded from the drill's index (the objects already cached, O(matches)). Without the
/// drill's index (an informer built without it) the view gets every object and filters them.
fn subscribe(
    informer: &Arc<SharedIndexInformer<DynamicObject>>,
    drill: Option<Drill>,
) -> Subscription {
    let queue = Arc::new(RateLimitingQueue::<Arc<str>>::new());
    let store = informer.indexer();
    let gate = drill.and_then(|drill| {
        let index_fn = store.get_indexers().remove(drill.index())?;
        Some(Arc::new(DrillGate {
            drill: parking_lot::RwLock::new(drill),
            index_fn,
            skip_replay: informer.has_synced(),
        }))
    });
    let registration = informer.add_event_handler(
        Arc::new(KeyFeed {
            queue: queue.clone(),
            gate: gate.clone(),
        }),
        None,
    );
    if let Some(g) = &gate {
        // After registering: what the skipped replay held is in the index by now.
        g.seed(&store, &queue);
    }
    Subscription {
        queue,
        gate,
        registration,
    }
}

/// What [`subscribe`] set up.
struct Subscription {
    queue: Arc<RateLimitingQueue<Arc<str>>>,
    gate: Option<Arc<DrillGate>>,
    registration: Result<HandlerRegistration<DynamicObject>, InformerError>,
}

/// A drilled view's gate, with its queue and store (for `Effect::SetDrill`).
struct FedGate {
    gate: Arc<DrillGate>,
    queue: Arc<RateLimitingQueue<Arc<str>>>,
    store: Arc<ThreadSafeStore<DynamicObject>>,
}

impl KeyFeed {
    fn push<K: Resource>(&self, obj: &K) {
        if let Ok(key) = meta_namespace_key(obj) {
            self.queue.add(Arc::from(key));
        }
    }
}

impl ResourceEventHandler<DynamicObject> for KeyFeed {
    fn on_add(&self, obj: &Arc<DynamicObject>, is_in_initial_list: bool) {
        if let Some(g) = &self.gate
            && ((is_in_initial_list && g.skip_replay) || !g.admits(obj))
        {
            return;
        }
        self.push(obj.as_ref());
    }
    fn on_update(&self, old: &Arc<DynamicObject>, new: &Arc<DynamicObject>) {
        // An object leaving the drill is sent too: the view re-checks and hides it.
        if let Some(g) = &self.gate
            && !g.admits(new)
            && !g.admits(old)
        {
            return;
        }
        self.push(new.as_ref());
    }
    fn on_delete(&self, obj: &DeleteObject<DynamicObject>) {
        match obj {
            DeltaObject::Object(o) => {
                if self.gate.as_ref().is_none_or(|g| g.admits(o)) {
                    self.push(o.as_ref())
                }
            }
            DeltaObject::Tombstone(t) => self.queue.add(Arc::from(t.key.as_str())),
        }
    }
}

/// One open view: what it shows, its informer subscription (once access allows it) and the
/// tasks feeding it.
struct ViewFeed {
    resource: ResourceInfo,
    namespace: Option<String>,
    /// A drill-down's index and values (kept for a reopen after a forbidden view's retry).
    drill: Option<Drill>,
    opened: OpenedSlot,
    cancel: CancellationToken,
}

/// The informer a view was attached to: filled by the task that checked access first.
type OpenedSlot = Arc<parking_lot::Mutex<Option<Opened>>>;

struct Opened {
    key: InformerKey,
    informer: Arc<crate::informer::factory::DynamicInformer>,
    registration: Option<HandlerRegistration<DynamicObject>>,
    /// A drilled view's gate (for `Effect::SetDrill`).
    gate: Option<FedGate>,
}

/// How long a forbidden view waits before the runtime asks the server again by itself
/// (permissions change rarely); `ctrl-r` asks at once.
pub const FORBIDDEN_RECHECK: Duration = Duration::from_secs(300);

/// `(verb, group, plural, namespace)`.
type AccessKey = (&'static str, String, String, Option<String>);

/// Access review answers for the session (per connection): `true`/`false` per verb, group,
/// resource and namespace; and whether the review API answers at all.
#[derive(Clone, Default)]
struct AccessCache {
    answers: Arc<parking_lot::Mutex<HashMap<AccessKey, bool>>>,
    /// The server has no SelfSubjectAccessReview for us (404/403): open and let a 403 tell.
    unavailable: Arc<std::sync::atomic::AtomicBool>,
}

impl AccessCache {
    fn key(verb: &'static str, resource: &ResourceInfo, ns: Option<&str>) -> AccessKey {
        let ar = &resource.api_resource;
        (
            verb,
            ar.group.clone(),
            ar.plural.clone(),
            ns.map(str::to_string),
        )
    }

    /// Known to be allowed (both verbs), or not answerable: open without asking.
    fn open_at_once(&self, resource: &ResourceInfo, ns: Option<&str>) -> bool {
        if self.unavailable.load(std::sync::atomic::Ordering::Relaxed) {
            return true;
        }
        let answers = self.answers.lock();
        ["list", "watch"]
            .iter()
            .all(|v| answers.get(&Self::key(v, resource, ns)) == Some(&true))
    }

    fn forget(&self, resource: &ResourceInfo, ns: Option<&str>) {
        let mut answers = self.answers.lock();
        for v in ["list", "watch"] {
            answers.remove(&Self::key(v, resource, ns));
        }
    }
}

/// Whether `resource` may be listed and watched in `ns`: SelfSubjectAccessReviews (cached), and
/// for a refused list, the server's own 403 message from a one-item list.
async fn check_access(
    client: &kube::Client,
    cache: &AccessCache,
    resource: &ResourceInfo,
    ns: Option<&str>,
) -> Access {
    use std::sync::atomic::Ordering;
    for verb in ["list", "watch"] {
        let key = AccessCache::key(verb, resource, ns);
        let cached = cache.answers.lock().get(&key).copied();
        let allowed = match cached {
            Some(a) => a,
            None => {
                if cache.unavailable.load(Ordering::Relaxed) {
                    return Access::Unknown;
                }
                match access_review(client, verb, resource, ns).await {
                    Ok(a) => {
                        cache.answers.lock().insert(key, a);
                        a
                    }
                    Err(ReviewError::Unavailable(why)) => {
                        tracing::info!(
                            why,
                            "no SelfSubjectAccessReview on this server: opening informers unchecked"
                        );
                        cache.unavailable.store(true, Ordering::Relaxed);
                        return Access::Unknown;
                    }
                    Err(ReviewError::Failed(why)) => {
                        tracing::debug!(why, "access review failed; opening unchecked");
                        return Access::Unknown;
                    }
                }
            }
        };
        if !allowed {
            let message = forbidden_message(client, verb, resource, ns).await;
            return Access::Denied(Denial::from_message(verb, &message, None));
        }
    }
    Access::Allowed
}

enum ReviewError {
    /// 404 or 403 for the review itself.
    Unavailable(String),
    /// Anything else (unreachable, 5xx): no answer this time.
    Failed(String),
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` (what `kubectl auth can-i`
/// asks): may this user `verb` the resource in `ns` (cluster scope when `None`)?
async fn access_review(
    client: &kube::Client,
    verb: &str,
    resource: &ResourceInfo,
    ns: Option<&str>,
) -> Result<bool, ReviewError> {
    let ar = &resource.api_resource;
    let mut attrs = serde_json::json!({"verb": verb, "group": ar.group, "resource": ar.plural});
    if let Some(ns) = ns {
        attrs["namespace"] = serde_json::json!(ns);
    }
    let body = serde_json::json!({"apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview", "spec": {"resourceAttributes": attrs}});
    let bytes = serde_json::to_vec(&body).map_err(|e| ReviewError::Failed(e.to_string()))?;
    let req = http::Request::post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(bytes)
        .map_err(|e| ReviewError::Failed(e.to_string()))?;
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        client.request::<serde_json::Value>(req),
    )
    .await
    .map_err(|_| ReviewError::Failed("timed out".into()))?;
    match answer {
        Ok(v) => v
            .pointer("/status/allowed")
            .and_then(serde_json::Value::as_bool)
            .ok_or_else(|| ReviewError::Unavailable("the review has no status.allowed".into())),
        Err(kube::Error::Api(s)) if s.code == 404 || s.code == 403 => {
            Err(ReviewError::Unavailable(s.message))
        }
        Err(e) => Err(ReviewError::Failed(one_line(&e.to_string()))),
    }
}

/// The server's words for a refused `verb`: a one-item list answers kube-apiserver's 403 with
/// the user's name; a refused watch (list allowed) is described from the review.
async fn forbidden_message(
    client: &kube::Client,
    verb: &str,
    resource: &ResourceInfo,
    ns: Option<&str>,
) -> String {
    let ar = &resource.api_resource;
    let qualified = if ar.group.is_empty() {
        ar.plural.clone()
    } else {
        format!("{}.{}", ar.plural, ar.group)
    };
    let scope = match ns {
        Some(n) => format!("in the namespace \"{n}\""),
        None => "at the cluster scope".to_string(),
    };
    let fallback = format!(
        "{qualified} is forbidden: the server's access review denies {verb} on resource \"{}\" in API group \"{}\" {scope}",
        ar.plural, ar.group
    );
    if verb != "list" {
        return fallback;
    }
    let api: Api<DynamicObject> = match ns {
        Some(n) if resource.namespaced => Api::namespaced_with(client.clone(), n, ar),
        _ => Api::all_with(client.clone(), ar),
    };
    match tokio::time::timeout(
        Duration::from_secs(10),
        api.list_metadata(&ListParams::default().limit(1)),
    )
    .await
    {
        Ok(Err(kube::Error::Api(s))) if s.code == 403 => s.message,
        _ => fallback,
    }
}

/// The dashboard's I/O: informers per view (opened once access allows), GETs, deletes, context
/// switches, streams; tests drive it without a terminal through [`Headless`].
struct Runtime {
    connection: Connection,
    factory: Arc<SharedInformerFactory>,
    tx: mpsc::UnboundedSender<Action>,
    views: HashMap<ViewId, ViewFeed>,
    /// Cancels background tasks of the current connection (stats, taps).
    conn_cancel: CancellationToken,
    /// The header's and informer panel's source, refreshed with every frame that carries rows.
    stats: SharedStats,
    access: AccessCache,
    /// The metrics pollers of the views that show usage.
    metrics: MetricsHub,
    /// The log screens' streams.
    logs: LogFeeds,
    /// Cancels the running node drain.
    drain: Option<CancellationToken>,
    /// Active port-forwards, and the rows last sent for them.
    forwards: portforward::Forwards,
    forward_rows: Vec<portforward::ForwardRow>,
}

fn make_factory(connection: &Connection) -> Arc<SharedInformerFactory> {
    let options = FactoryOptions {
        transform: Some(Arc::new(|ar: &kube::discovery::ApiResource| {
            let kind = ar.kind.clone();
            Some(
                Arc::new(move |obj: DynamicObject| render::prune(&kind, obj))
                    as Transform<DynamicObject>,
            )
        })),
        decode_mask: Some(Arc::new(|ar: &kube::discovery::ApiResource| {
            Some(render::cache_mask(&ar.kind))
        })),
        ..FactoryOptions::default()
    };
    Arc::new(SharedInformerFactory::from_client(
        connection.client.clone(),
        options,
    ))
}

/// The bounded streams a runtime's frame loop reads besides its action channel.
struct Streams {
    metrics_rx: mpsc::Receiver<MetricsUpdate>,
    log_rx: LogBatchRx,
}

impl Runtime {
    /// Start the informer factory, the stats task, the event tap and the metrics hub for
    /// `connection`; metrics updates and log batches arrive on the bounded receivers returned
    /// (read by the frame loop, so a slow UI slows the streams instead of growing memory).
    fn start(
        connection: Connection,
        version: SharedVersion,
        metrics_period: Duration,
        tx: mpsc::UnboundedSender<Action>,
    ) -> (Runtime, Streams) {
        let factory = make_factory(&connection);
        factory.start();
        let conn_cancel = CancellationToken::new();
        let stats = StatsSource::shared(factory.clone(), connection.context.clone(), version);
        spawn_stats(stats.clone(), tx.clone(), conn_cancel.clone());
        let (metrics_tx, metrics_rx) = mpsc::channel(METRICS_CHANNEL);
        let metrics = MetricsHub::new(
            Arc::new(KubeMetricsSource::new(connection.client.clone())),
            metrics_period,
            metrics_tx,
            conn_cancel.child_token(),
        );
        spawn_tap(&factory, tx.clone(), conn_cancel.clone());
        let connection_client = connection.client.clone();
        let (logs, log_rx) = LogFeeds::new(
            connection.client.clone(),
            factory.clone(),
            conn_cancel.clone(),
        );
        let rt = Runtime {
            connection,
            factory,
            tx,
            views: HashMap::new(),
            conn_cancel,
            stats,
            access: AccessCache::default(),
            metrics,
            logs,
            drain: None,
            forwards: portforward::Forwards::new(connection_client),
            forward_rows: Vec::new(),
        };
        (rt, Streams { metrics_rx, log_rx })
    }

    /// Close every view, end the connection's tasks and stop the informers.
    pub async fn shutdown(&mut self) {
        self.forwards.stop_all().await;
        for view in self.views.keys().copied().collect::<Vec<_>>() {
            self.close_view(view);
        }
        self.logs.close_all();
        self.conn_cancel.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(2), self.factory.shutdown()).await;
    }

    /// Open a view: its informer starts once the server's access review allows list and watch
    /// in the view's scope (answers cached for the session). Refused: no informer; the view is
    /// told why ([`Action::Forbidden`]) and access is checked again every
    /// [`FORBIDDEN_RECHECK`]. Without an answer (no review API): open and let a 403 tell.
    fn open_view(
        &mut self,
        view: ViewId,
        resource: ResourceInfo,
        namespace: Option<String>,
        drill: Option<Drill>,
    ) {
        self.close_view(view);
        let ns = if resource.namespaced {
            namespace.clone()
        } else {
            None
        };
        let cancel = self.conn_cancel.child_token();
        let opened: OpenedSlot = Arc::default();
        let attach = Attach {
            view,
            resource: resource.clone(),
            namespace: ns.clone(),
            factory: self.factory.clone(),
            tx: self.tx.clone(),
            cancel: cancel.clone(),
            opened: opened.clone(),
            drill: drill.clone(),
        };
        if self.access.open_at_once(&resource, ns.as_deref()) {
            attach.run();
        } else {
            let client = self.connection.client.clone();
            let cache = self.access.clone();
            let tx = self.tx.clone();
            tokio::spawn(async move {
                loop {
                    let access = check_access(
                        &client,
                        &cache,
                        &attach.resource,
                        attach.namespace.as_deref(),
                    )
                    .await;
                    if attach.cancel.is_cancelled() {
                        return;
                    }
                    match access {
                        Access::Allowed | Access::Unknown => {
                            attach.run();
                            return;
                        }
                        Access::Denied(mut denial) => {
                            tracing::info!(view, message = %denial.message, "view forbidden: informer not started");
                            denial.retry_at_ms =
                                Some(now_ms() + FORBIDDEN_RECHECK.as_millis() as i64);
                            if tx.send(Action::Forbidden { view, denial }).is_err() {
                                return;
                            }
                        }
                    }
                    tokio::select! {
                        _ = attach.cancel.cancelled() => return,
                        _ = tokio::time::sleep(FORBIDDEN_RECHECK) => {}
                    }
                    cache.forget(&attach.resource, attach.namespace.as_deref());
                }
            });
        }
        self.views.insert(
            view,
            ViewFeed {
                resource,
                namespace,
                drill,
                opened,
                cancel,
            },
        );
    }

    /// Stop streaming to a view. Its informer stops too when no other view uses it and it is
    /// forbidden (it would only keep listing and failing, e.g. the all-namespaces informer a
    /// fallback to the context's namespace replaced).
    fn close_view(&mut self, view: ViewId) {
        // A view may poll metrics without a feed of its own (the pulse's node usage).
        self.metrics.close_view(view);
        let Some(feed) = self.views.remove(&view) else {
            return;
        };
        feed.cancel.cancel();
        let Some(opened) = feed.opened.lock().take() else {
            return;
        };
        if let Some(r) = opened.registration {
            r.remove();
        }
        let shared = self.views.values().any(|f| {
            f.opened
                .lock()
                .as_ref()
                .is_some_and(|o| o.key == opened.key)
        });
        if !shared && is_forbidden(&opened.informer) {
            self.factory.stop(&opened.key);
        }
    }

    /// Carry out one effect of `App::update`; false once the app asked to quit.
    pub async fn carry_out(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::Quit => return false,
            Effect::OpenResource {
                view,
                resource,
                namespace,
                drill,
            } => self.open_view(view, resource, namespace, drill),
            Effect::SetDrill { view, drill } => {
                if let Some(f) = self.views.get_mut(&view) {
                    f.drill = Some(drill.clone());
                    if let Some(g) = f.opened.lock().as_ref().and_then(|o| o.gate.as_ref()) {
                        *g.gate.drill.write() = drill;
                        g.gate.seed(&g.store, &g.queue);
                    }
                }
            }
            Effect::CloseView { view } => self.close_view(view),
            Effect::CheckAccess {
                view,
                resource,
                namespace,
            } => {
                let client = self.connection.client.clone();
                let cache = self.access.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let ns = namespace.as_deref().filter(|_| resource.namespaced);
                    let access = check_access(&client, &cache, &resource, ns).await;
                    let _ = tx.send(Action::AccessChecked {
                        view,
                        namespace,
                        access,
                    });
                });
            }
            Effect::RetryForbidden { view } => {
                if let Some(feed) = self.views.get(&view) {
                    let (resource, namespace, drill) = (
                        feed.resource.clone(),
                        feed.namespace.clone(),
                        feed.drill.clone(),
                    );
                    let ns = namespace.as_deref().filter(|_| resource.namespaced);
                    self.access.forget(&resource, ns);
                    // A forbidden informer waits minutes before its next list: start afresh.
                    let key = feed.opened.lock().as_ref().map(|o| o.key.clone());
                    self.close_view(view);
                    if let Some(key) = key
                        && self
                            .factory
                            .informers()
                            .iter()
                            .any(|(k, i)| *k == key && is_forbidden(i))
                    {
                        self.factory.stop(&key);
                    }
                    self.open_view(view, resource, namespace, drill);
                }
            }
            Effect::WatchMetrics { view, scope } => self.metrics.watch(view, scope),
            e @ (Effect::OpenLogs { .. } | Effect::CloseLogs { .. } | Effect::SaveLogs { .. }) => {
                self.logs.carry_out(&e, &self.tx);
            }
            Effect::FetchYaml {
                request,
                resource,
                namespace,
                name,
            } => {
                let api = self.api(&resource, namespace.as_deref());
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = match api.get(&name).await {
                        Ok(obj) => serde_json::to_value(&obj).map_err(|e| e.to_string()),
                        Err(e) => Err(one_line(&e.to_string())),
                    };
                    let _ = tx.send(Action::Yaml { request, result });
                });
            }
            Effect::FetchDescribe {
                request,
                resource,
                namespace,
                name,
            } => {
                let api = self.api(&resource, namespace.as_deref());
                let client = self.connection.client.clone();
                let tx = self.tx.clone();
                let is_node =
                    resource.api_resource.group.is_empty() && resource.api_resource.kind == "Node";
                // A node's pods from the node index of a synced all-namespaces pods informer
                // (no request); else one LIST by spec.nodeName, as kubectl describe node does.
                let cached_pods = is_node
                    .then(|| pods_on_node_from_cache(&self.factory, &name))
                    .flatten();
                tokio::spawn(async move {
                    let node = is_node.then_some(cached_pods);
                    let result = describe(client, api, namespace, &name, node).await;
                    let _ = tx.send(Action::Describe { request, result });
                });
            }
            Effect::Write(w) => {
                let client = self.connection.client.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let o = operate::execute(client, &w).await;
                    let _ = tx.send(Action::Notify {
                        message: o.message,
                        error: o.error,
                    });
                });
            }
            Effect::Drain { node, opts } => {
                if let Some(old) = self.drain.take() {
                    old.cancel();
                }
                let cancel = self.conn_cancel.child_token();
                self.drain = Some(cancel.clone());
                let (dtx, mut drx) = mpsc::channel(64);
                tokio::spawn(drain::drain(
                    self.connection.client.clone(),
                    node,
                    opts,
                    dtx,
                    cancel,
                ));
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    while let Some(ev) = drx.recv().await {
                        if tx.send(Action::Drain(ev)).is_err() {
                            break;
                        }
                    }
                });
            }
            Effect::CancelDrain => {
                if let Some(c) = self.drain.take() {
                    c.cancel();
                }
            }
            Effect::FetchContainers { namespace, pod } => {
                let pods: Api<k8s_openapi::api::core::v1::Pod> =
                    Api::namespaced(self.connection.client.clone(), &namespace);
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = match pods.get(&pod).await {
                        Ok(p) => Ok(shell::containers(&p)),
                        Err(e) => Err(one_line(&e.to_string())),
                    };
                    let _ = tx.send(Action::Containers {
                        namespace,
                        pod,
                        result,
                    });
                });
            }
            Effect::FetchPorts { namespace, pod } => {
                let pods: Api<k8s_openapi::api::core::v1::Pod> =
                    Api::namespaced(self.connection.client.clone(), &namespace);
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = match pods.get(&pod).await {
                        Ok(p) => Ok(container_ports(&p)),
                        Err(e) => Err(one_line(&e.to_string())),
                    };
                    let _ = tx.send(Action::Ports {
                        namespace,
                        pod,
                        result,
                    });
                });
            }
            Effect::StartForward {
                id,
                namespace,
                pod,
                port,
                local,
            } => {
                let what = format!("{namespace}/{pod}:{port}");
                let (message, error) =
                    match self.forwards.start(id, namespace, pod, port, local).await {
                        Ok(bound) => (
                            format!("forwarding 127.0.0.1:{bound} → {what} (:pf lists forwards)"),
                            false,
                        ),
                        Err(e) => (format!("port-forward {what}: {e}"), true),
                    };
                let _ = self.tx.send(Action::Notify { message, error });
                self.send_forward_rows();
            }
            Effect::StopForward { id } => {
                if let Some(r) = self.forwards.stop(id).await {
                    let _ = self.tx.send(Action::Notify {
                        message: format!(
                            "stopped 127.0.0.1:{} → {}/{}:{}",
                            r.local, r.namespace, r.pod, r.port
                        ),
                        error: false,
                    });
                }
                self.send_forward_rows();
            }
            // It needs the terminal: the run loop carries it out (`shell_session`).
            Effect::Shell { .. } | Effect::Edit { .. } => {}
            Effect::SwitchContext(name) => match self.connection.switch_context(&name).await {
                Ok(conn) => {
                    let version = conn.server_version().await;
                    let resources = conn.discover().await;
                    for view in self.views.keys().copied().collect::<Vec<_>>() {
                        self.close_view(view);
                    }
                    self.conn_cancel.cancel();
                    self.forwards.stop_all().await;
                    self.forwards = portforward::Forwards::new(conn.client.clone());
                    self.send_forward_rows();
                    self.factory.shutdown().await;
                    self.conn_cancel = CancellationToken::new();
                    // Another context may be another user.
                    self.access = AccessCache::default();
                    self.metrics.replace_source(
                        Arc::new(KubeMetricsSource::new(conn.client.clone())),
                        self.conn_cancel.child_token(),
                    );
                    self.connection = conn;
                    self.factory = make_factory(&self.connection);
                    self.factory.start();
                    self.logs.reconnect(
                        self.connection.client.clone(),
                        self.factory.clone(),
                        self.conn_cancel.clone(),
                    );
                    spawn_tap(&self.factory, self.tx.clone(), self.conn_cancel.clone());
                    self.stats = StatsSource::shared(
                        self.factory.clone(),
                        self.connection.context.clone(),
                        Arc::new(parking_lot::Mutex::new(version.as_ref().ok().cloned())),
                    );
                    spawn_stats(
                        self.stats.clone(),
                        self.tx.clone(),
                        self.conn_cancel.clone(),
                    );
                    let (reachable, server_version, last_error) = match &version {
                        Ok(v) => (true, Some(v.clone()), None),
                        Err(e) => (false, None, Some(e.to_string())),
                    };
                    let _ = self.tx.send(Action::Connection(ConnectionState {
                        context: self.connection.context.clone(),
                        server_version,
                        reachable,
                        retry_at_ms: None,
                        last_error,
                    }));
                    match resources {
                        Ok(r) => {
                            let _ = self.tx.send(Action::Discovery(r));
                        }
                        Err(e) => {
                            let _ = self.tx.send(Action::Notify {
                                message: e.to_string(),
                                error: true,
                            });
                        }
                    }
                }
                Err(e) => {
                    let _ = self.tx.send(Action::Notify {
                        message: e.to_string(),
                        error: true,
                    });
                }
            },
        }
        true
    }

    /// Send the port-forward rows if they changed since last sent.
    fn send_forward_rows(&mut self) {
        let rows = self.forwards.rows();
        if rows != self.forward_rows {
            self.forward_rows = rows.clone();
            let _ = self.tx.send(Action::Forwards(rows));
        }
    }

    fn api(&self, resource: &ResourceInfo, namespace: Option<&str>) -> Api<DynamicObject> {
        let client = self.connection.client.clone();
        match namespace {
            Some(ns) if resource.namespaced => {
                Api::namespaced_with(client, ns, &resource.api_resource)
            }
            _ => Api::all_with(client, &resource.api_resource),
        }
    }
}

/// Whether an informer's last error is a 403 and it holds nothing (it never listed).
fn is_forbidden(informer: &crate::informer::factory::DynamicInformer) -> bool {
    !informer.has_synced()
        && informer
            .reflector_status()
            .is_some_and(|s| matches!(s.borrow().last_error, Some(InformerError::Forbidden(_))))
}

/// What attaching a view to its informer needs (run at once, or by the access-check task).
struct Attach {
    view: ViewId,
    resource: ResourceInfo,
    /// `None` for all namespaces and cluster-scoped kinds.
    namespace: Option<String>,
    factory: Arc<SharedInformerFactory>,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
    opened: OpenedSlot,
    /// A drill-down: the view is fed only what the drill's index files under its values.
    drill: Option<Drill>,
}

impl Attach {
    /// Start or reuse the informer, register the view's handler and start feeding its rows.
    fn run(&self) {
        let view = self.view;
        let resource = &self.resource;
        let ns = self.namespace.as_deref();
        // The slot's lock orders this against `close_view`: a view closed meanwhile gets no
        // handler (close cancels before it takes the slot).
        let mut slot = self.opened.lock();
        if self.cancel.is_cancelled() {
            return;
        }
        // One watch per kind: a namespace view of a kind already watched across all namespaces
        // is served from that informer, its rows filtered to the namespace (not from one that
        // is forbidden: it holds nothing).
        let wide = ns.and_then(|_| {
            let want = InformerKey::new(&resource.api_resource, None);
            self.factory
                .informers()
                .into_iter()
                .find(|(k, i)| *k == want && !is_forbidden(i))
        });
        let (key, informer, only_namespace) = match wide {
            Some((k, i)) => (k, i, ns.map(str::to_string)),
            None => (
                InformerKey::new(&resource.api_resource, ns),
                self.factory.informer_for(&resource.api_resource, ns),
                None,
            ),
        };
        let _ = self.tx.send(Action::Store {
            view,
            store: informer.indexer(),
        });
        let Subscription {
            queue,
            gate,
            registration,
        } = subscribe(&informer, self.drill.clone());
        let registration = match registration {
            Ok(r) => Some(r),
            Err(e) => {
                let _ = self.tx.send(Action::ViewError {
                    view,
                    message: e.to_string(),
                    forbidden: false,
                });
                None
            }
        };
        let tx = self.tx.clone();
        let kind = resource.api_resource.kind.clone();
        let printer = resource.printer_columns.clone();
        let store = informer.indexer();
        let gate = gate.map(|gate| FedGate {
            gate,
            queue: queue.clone(),
            store: store.clone(),
        });
        let task_cancel = self.cancel.clone();
        tokio::spawn(async move {
            let q = queue.clone();
            tokio::select! {
                _ = task_cancel.cancelled() => { q.shut_down(); }
                _ = feed_view(view, kind, printer, only_namespace, store, queue, tx) => {}
            }
        });
        *slot = Some(Opened {
            key,
            informer,
            registration,
            gate,
        });
    }
}

/// Take keys from the view's queue in batches, read the latest objects from the indexer and send
/// their rows. A key updated many times while queued is taken once.
async fn feed_view(
    view: ViewId,
    kind: String,
    printer: Option<Vec<render::PrinterColumn>>,
    only_namespace: Option<String>,
    store: Arc<ThreadSafeStore<DynamicObject>>,
    queue: Arc<RateLimitingQueue<Arc<str>>>,
    tx: mpsc::UnboundedSender<Action>,
) {
    let printer = printer.as_deref();
    let prefix = only_namespace.as_ref().map(|ns| format!("{ns}/"));
    while let Some(keys) = next_key_batch(&queue, BATCH).await {
        let keys: Vec<Arc<str>> = match &prefix {
            Some(p) => keys
                .into_iter()
                .filter(|k| k.starts_with(p.as_str()))
                .collect(),
            None => keys,
        };
        let (upserts, deletes) = rows_for_keys(&kind, printer, &store, &keys);
        if tx
            .send(Action::Rows {
                view,
                upserts,
                deletes,
            })
            .is_err()
        {
            return;
        }
    }
}

/// Wait for a key, then take every key already ready, up to `max`, and mark them done (the
/// caller reads the indexer after this, so a key re-added meanwhile is queued again and read
/// again). `None` once the queue is shut down.
pub async fn next_key_batch(
    queue: &RateLimitingQueue<Arc<str>>,
    max: usize,
) -> Option<Vec<Arc<str>>> {
    let first = queue.get().await?;
    let mut keys = vec![first];
    while keys.len() < max {
        // `get` takes an item synchronously when one is ready, so polling it once is a
        // non-blocking take; dropping the pending future takes nothing.
        match queue.get().now_or_never() {
            Some(Some(k)) => keys.push(k),
            _ => break,
        }
    }
    for key in &keys {
        queue.done(key);
    }
    Some(keys)
}

/// The latest row summaries of `keys` from the indexer, and the keys it no longer holds.
pub fn rows_for_keys(
    kind: &str,
    printer: Option<&[render::PrinterColumn]>,
    store: &ThreadSafeStore<DynamicObject>,
    keys: &[Arc<str>],
) -> (Vec<ObjectSummary>, Vec<Arc<str>>) {
    let mut upserts = Vec::with_capacity(keys.len());
    let mut deletes = Vec::new();
    for key in keys {
        match store.get_key_value(key) {
            Some((k, obj)) => upserts.extend(ObjectSummary::with_key(kind, k, &obj, printer)),
            None => deletes.push(key.clone()),
        }
    }
    (upserts, deletes)
}

/// The pods the node index files under `node`, when an all-namespaces pods informer has synced
/// (its cache holds every pod, pruned but with their summed requests and limits).
fn pods_on_node_from_cache(
    factory: &SharedInformerFactory,
    node: &str,
) -> Option<Vec<Arc<DynamicObject>>> {
    let pods = InformerKey::new(
        &kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
        None,
    );
    let (_, informer) = factory.informers().into_iter().find(|(k, _)| *k == pods)?;
    if !informer.has_synced() {
        return None;
    }
    informer
        .indexer()
        .by_index(crate::informer::index::NODE_INDEX, node)
        .ok()
}

/// Describe text for `name`; `node`: `Some` for a Node, with its pods when the cache had them.
async fn describe(
    client: kube::Client,
    api: Api<DynamicObject>,
    namespace: Option<String>,
    name: &str,
    node: Option<Option<Vec<Arc<DynamicObject>>>>,
) -> Result<String, String> {
    let obj = api.get(name).await.map_err(|e| one_line(&e.to_string()))?;
    let node_section = match node {
        Some(cached) => Some(node_resources(client.clone(), &obj, name, cached).await),
        None => None,
    };
    let uid = obj.metadata.uid.clone().unwrap_or_default();
    let events_api: Api<DynamicObject> = {
        let ar = kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Event>(&());
        match namespace.as_deref() {
            Some(ns) => Api::namespaced_with(client, ns, &ar),
            None => Api::all_with(client, &ar),
        }
    };
    let events = match events_api
        .list(&ListParams::default().fields(&format!("involvedObject.uid={uid}")))
        .await
    {
        Ok(list) => list.items.into_iter().map(Arc::new).collect::<Vec<_>>(),
        // Events are a bonus: describe still works without permission to list them.
        Err(e) => {
            tracing::debug!(error = %e, "listing events for describe failed");
            Vec::new()
        }
    };
    let mut text = render::describe(&obj, &events);
    if let Some(section) = node_section {
        // Before the Events, as `kubectl describe node` puts "Allocated resources".
        match text.find("\nEvents:") {
            Some(at) => text.insert_str(at + 1, &section),
            None => text.push_str(&section),
        }
    }
    Ok(text)
}

/// A node's requests (its non-terminated pods, as `kubectl describe node` lists them) and usage
/// (its NodeMetrics) against allocatable, on the user's `d` only. The pods come from the cache
/// (`cached`: the node index) when it has them, else from one LIST by `spec.nodeName`.
async fn node_resources(
    client: kube::Client,
    node: &DynamicObject,
    name: &str,
    cached: Option<Vec<Arc<DynamicObject>>>,
) -> String {
    let pods: Result<Vec<Arc<DynamicObject>>, String> = match cached {
        Some(pods) => Ok(pods),
        None => {
            let pods_api: Api<DynamicObject> = Api::all_with(
                client.clone(),
                &kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
            );
            pods_api
                .list(&ListParams::default().fields(&format!("spec.nodeName={name}")))
                .await
                .map(|l| l.items.into_iter().map(Arc::new).collect())
                .map_err(|e| one_line(&e.to_string()))
        }
    };
    let usage = KubeMetricsSource::new(client).node_usage(name).await;
    let pod_data: Result<Vec<&serde_json::Value>, String> = match &pods {
        Ok(list) => Ok(list.iter().map(|p| &p.data).collect()),
        Err(e) => Err(e.clone()),
    };
    render::node_detail::describe_section(
        &node.data,
        pod_data.as_ref().map(Vec::as_slice).map_err(Clone::clone),
        usage,
    )
}

/// Forward the factory-wide event tap (every delta popped by every informer) to the app, woken by
/// the tap's Notify and coalesced to at most ~30 batches a second.
fn spawn_tap(
    factory: &Arc<SharedInformerFactory>,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
) {
    let tap = factory.tap();
    tokio::spawn(async move {
        let mut seq = tap.latest_seq();
        loop {
            let notified = tap.notify().notified();
            let entries = tap.since(seq);
            if let Some(last) = entries.last() {
                seq = last.seq;
                if tx.send(Action::Tap(entries)).is_err() {
                    return;
                }
            }
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = notified => {}
            }
            tokio::time::sleep(Duration::from_millis(33)).await;
        }
    });
}

/// The server version as the header shows it; `None` until the server answered.
type SharedVersion = Arc<parking_lot::Mutex<Option<String>>>;

/// The server was unreachable at start: retry `/version` and discovery with backoff (1 s doubling
/// to 30 s) until they answer, then give the app the real resource list (CRDs included).
fn spawn_rediscovery(
    connection: Connection,
    version: SharedVersion,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
) {
    tokio::spawn(async move {
        let mut delay = Duration::from_secs(1);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep(delay) => {}
            }
            let attempt = async {
                let v = connection.server_version().await?;
                let r = connection.discover().await?;
                Ok::<_, crate::cluster::ClusterError>((v, r))
            };
            match attempt.await {
                Ok((v, resources)) => {
                    tracing::info!(server_version = %v, kinds = resources.len(), "server reachable again; discovery done");
                    *version.lock() = Some(v.clone());
                    let _ = tx.send(Action::Discovery(resources));
                    let _ = tx.send(Action::Connection(ConnectionState {
                        context: connection.context.clone(),
                        server_version: Some(v),
                        reachable: true,
                        retry_at_ms: None,
                        last_error: None,
                    }));
                    return;
                }
                Err(e) => {
                    tracing::debug!(error = %e, ?delay, "server still unreachable");
                    delay = (delay * 2).min(Duration::from_secs(30));
                    let _ = tx.send(Action::Connection(ConnectionState {
                        context: connection.context.clone(),
                        server_version: None,
                        reachable: false,
                        retry_at_ms: Some(now_ms() + delay.as_millis() as i64),
                        last_error: Some(e.to_string()),
                    }));
                }
            }
        }
    });
}

/// What the header and the informer panel show, computed from the factory's informers; keeps
/// what was last sent so that only changes go out.
struct StatsSource {
    factory: Arc<SharedInformerFactory>,
    context: String,
    server_version: SharedVersion,
    last: Option<(Vec<InformerRow>, ConnectionState)>,
}

/// Shared by the stats task and the main loop (which refreshes it in the frame that carries rows).
type SharedStats = Arc<parking_lot::Mutex<StatsSource>>;

impl StatsSource {
    fn shared(
        factory: Arc<SharedInformerFactory>,
        context: String,
        server_version: SharedVersion,
    ) -> SharedStats {
        Arc::new(parking_lot::Mutex::new(Self {
            factory,
            context,
            server_version,
            last: None,
        }))
    }

    /// An informer row per started informer, and the connection state they imply.
    fn collect(&self) -> (Vec<InformerRow>, ConnectionState) {
        let mut rows = Vec::new();
        let mut unreachable: Option<(String, Option<i64>)> = None;
        let mut any = false;
        for (key, informer) in self.factory.informers() {
            let stats = informer.stats();
            let Some(status) = stats.reflector.as_ref() else {
                continue;
            };
            let state = match status.state {
                ReflectorState::Listing => InformerState::Listing,
                ReflectorState::Watching => InformerState::Watching,
                ReflectorState::Backoff { until } => {
                    let left = until.saturating_duration_since(tokio::time::Instant::now());
                    let at = now_ms() + left.as_millis() as i64;
                    if matches!(status.last_error, Some(InformerError::Forbidden(_))) {
                        InformerState::Forbidden { retry_at_ms: at }
                    } else {
                        InformerState::BackingOff { until_ms: at }
                    }
                }
                ReflectorState::Stopped => InformerState::Stopped,
            };
            let connect_err = matches!(status.last_error, Some(InformerError::Connect(_)));
            any = true;
            if connect_err && !matches!(state, InformerState::Watching) {
                let retry = match state {
                    InformerState::BackingOff { until_ms } => Some(until_ms),
                    _ => None,
                };
                unreachable = Some((
                    status
                        .last_error
                        .as_ref()
                        .map(|e| e.to_string())
                        .unwrap_or_default(),
                    retry,
                ));
            }
            let label = if key.group.is_empty() {
                key.plural.clone()
            } else {
                format!("{}.{}", key.plural, key.group)
            };
            rows.push(InformerRow {
                resource: label,
                namespace: key.namespace.clone(),
                state,
                list_mode: status.list_mode.as_str(),
                last_rv: status.last_sync_resource_version.clone(),
                cached: stats.cached_objects,
                queue_depth: stats.queue_depth,
                deltas_total: stats.deltas_total,
                deltas_per_sec: stats.deltas_per_sec,
                relists: status.relists,
                last_error: status.last_error.as_ref().map(|e| e.to_string()),
                synced: stats.has_synced,
                forbidden: matches!(status.last_error, Some(InformerError::Forbidden(_))),
            });
        }
        let conn = ConnectionState {
            context: self.context.clone(),
            server_version: self.server_version.lock().clone(),
            reachable: unreachable.is_none() || !any,
            retry_at_ms: unreachable.as_ref().and_then(|u| u.1),
            last_error: unreachable.map(|u| u.0),
        };
        (rows, conn)
    }

    /// The actions to send if anything changed since the last call; none otherwise (an idle
    /// dashboard receives nothing and does not redraw).
    fn changed(&mut self) -> Vec<Action> {
        let (rows, conn) = self.collect();
        if self
            .last
            .as_ref()
            .is_some_and(|(r, c)| r == &rows && c == &conn)
        {
            return Vec::new();
        }
        let out = vec![
            Action::InformerStats(rows.clone()),
            Action::Connection(conn.clone()),
        ];
        self.last = Some((rows, conn));
        out
    }

    /// Every informer's reflector status, to wake on its transitions (state, errors, lists;
    /// never per event).
    fn status_receivers(&self) -> Vec<tokio::sync::watch::Receiver<ReflectorStatus>> {
        self.factory
            .informers()
            .into_iter()
            .filter_map(|(_, i)| i.reflector_status())
            .collect()
    }
}

/// The stats for the frame being drawn: if this batch of actions carries rows, the informer rows
/// and connection state as of now (when changed), so the header's counts, RV and state reach the
/// screen with the rows that changed them. Once per frame, never per event.
fn stats_with_rows(pending: &[Action], stats: &SharedStats) -> Vec<Action> {
    if pending.iter().any(|a| matches!(a, Action::Rows { .. })) {
        stats.lock().changed()
    } else {
        Vec::new()
    }
}

/// Informer panel rows and connection state: on every reflector transition (listing → watching,
/// errors, backoff, a completed list), and once a second for rates and countdowns; only when
/// changed. Rows-driven changes go out with the rows themselves (see [`stats_with_rows`]).
fn spawn_stats(stats: SharedStats, tx: mpsc::UnboundedSender<Action>, cancel: CancellationToken) {
    /// Receivers of every running reflector's status, with what they hold now marked as seen.
    /// Receivers of stopped reflectors report an error at once: left out, or the loop would spin.
    fn fresh(stats: &SharedStats) -> Vec<tokio::sync::watch::Receiver<ReflectorStatus>> {
        let mut receivers = stats.lock().status_receivers();
        for rx in &mut receivers {
            rx.borrow_and_update();
        }
        receivers.retain(|rx| rx.has_changed().is_ok());
        receivers
    }
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut receivers = fresh(&stats);
        loop {
            let transition = async {
                if receivers.is_empty() {
                    futures::future::pending::<()>().await;
                }
                let changes = receivers.iter_mut().map(|rx| Box::pin(rx.changed()));
                let _ = futures::future::select_all(changes).await;
            };
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tick.tick() => {}
                _ = transition => {}
            }
            // Re-subscribe before collecting: a transition from here on wakes the next round.
            receivers = fresh(&stats);
            let actions = stats.lock().changed();
            for action in actions {
                if tx.send(action).is_err() {
                    return;
                }
            }
        }
    });
}

/// Log, once, the first frame that shows every object of a synced all-namespaces view (the
/// "launch → all rows on screen" figure of the README): time since process start and RSS.
fn log_first_complete_frame(app: &App, feeds: &HashMap<ViewId, ViewFeed>) -> bool {
    let Some(view) = app.current_view() else {
        return false;
    };
    // The view's handler has seen every object of the initial list (the view's own `synced`
    // flag follows the once-a-second informer stats, too coarse for this figure).
    let handler_synced = feeds.get(&view.id).is_some_and(|f| {
        f.opened
            .lock()
            .as_ref()
            .and_then(|o| o.registration.as_ref())
            .is_some_and(|r| r.has_synced())
    });
    let Some(store) = view.store.as_ref() else {
        return false;
    };
    let rows = view.table.list().len();
    if !handler_synced || view.namespace.is_some() || rows == 0 || rows < store.len() {
        return false;
    }
    tracing::info!(
        kind = %view.resource.api_resource.plural,
        rows,
        since_start_ms = crate::process::since_process_start().as_millis() as u64,
        rss_mib = crate::process::rss_bytes().unwrap_or(0) / (1024 * 1024),
        "first frame with every row"
    );
    true
}

/// Run the dashboard until the user quits or a signal arrives; the terminal is restored on every
/// way out.
pub async fn run(config: RuntimeConfig) -> Result<(), UiError> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Action>();
    let version: SharedVersion = Arc::new(parking_lot::Mutex::new(config.server_version.clone()));
    let connection = config.connection.clone();
    let (
        mut rt,
        Streams {
            mut metrics_rx,
            mut log_rx,
        },
    ) = Runtime::start(
        config.connection,
        version.clone(),
        config.metrics_period,
        tx.clone(),
    );
    if config.server_version.is_none() {
        spawn_rediscovery(connection, version, tx.clone(), rt.conn_cancel.clone());
    }
    let mut app = App::new(config.app, config.keys);
    // The log screen's keys: the defaults, overlaid by the user's file when there is one.
    match LogKeyMap::load(user_log_keys_path().as_deref()) {
        Ok(keys) => app.log_keys = keys,
        Err(message) => {
            let _ = tx.send(Action::Notify {
                message,
                error: true,
            });
        }
    }
    let _ = tx.send(Action::Connection(ConnectionState {
        context: rt.connection.context.clone(),
        reachable: config.server_version.is_some(),
        server_version: config.server_version,
        retry_at_ms: None,
        last_error: config.start_error,
    }));
    let _ = tx.send(Action::Contexts(rt.connection.contexts.clone()));
    let _ = tx.send(Action::Discovery(config.resources));
    if let Some(banner) = config.banner {
        let _ = tx.send(Action::Notify {
            message: banner,
            error: false,
        });
    }

    let (mut tui, _guard) = terminal::setup()?;
    let mut events = EventStream::new();
    let mut sigterm = signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut sigint = signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut sighup = signal(tokio::signal::unix::SignalKind::hangup())?;
    let mut ages = tokio::time::interval(Duration::from_secs(1));
    ages.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);

    // The app's paging, column-width memory and text pages depend on the real screen size: give
    // it before the first frame (crossterm reports only later changes).
    if let Ok(s) = tui.size() {
        app.update(Action::Resize(s.width, s.height));
    }
    let mut running = true;
    let mut first_complete_frame_logged = false;
    for effect in app.init() {
        running &= rt.carry_out(effect).await;
    }
    tui.draw(|f| f.render_widget(&app, f.area()))?;
    while running {
        let deadline = app.next_deadline_ms();
        let sleep_for = deadline
            .map(|d| Duration::from_millis((d - now_ms()).max(0) as u64))
            .unwrap_or(Duration::from_secs(3600));
        let action = tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => Some(Action::Key(k)),
                Some(Ok(Event::Mouse(m))) => Some(Action::Mouse(m)),
                Some(Ok(Event::Resize(w, h))) => Some(Action::Resize(w, h)),
                Some(Ok(_)) => None,
                Some(Err(e)) => { tracing::error!(error = %e, "terminal input failed"); running = false; None }
                None => { running = false; None }
            },
            a = rx.recv() => a,
            u = metrics_rx.recv() => u.map(Action::Metrics),
            // At most one batch per log view per frame (coalesced in `LogFeeds`).
            b = log_rx.recv() => b.map(|(view, batch)| Action::Log { view, batch }),
            _ = ages.tick() => Some(Action::Tick(now_ms())),
            _ = tokio::time::sleep(sleep_for), if deadline.is_some() => Some(Action::Tick(now_ms())),
            _ = sigterm.recv() => { tracing::info!("SIGTERM: exiting"); running = false; None }
            _ = sigint.recv() => { tracing::info!("SIGINT: exiting"); running = false; None }
            _ = sighup.recv() => { tracing::info!("SIGHUP: exiting"); running = false; None }
        };
        if matches!(action, Some(Action::Tick(_))) {
            // The :pf counters, once a second while they change.
            rt.send_forward_rows();
        }
        let mut pending: Vec<Action> = action.into_iter().collect();
        // Drain what is already queued so a burst becomes one redraw.
        while pending.len() < 256 {
            match rx.try_recv() {
                Ok(a) => pending.push(a),
                Err(_) => break,
            }
        }
        while let Ok((view, batch)) = log_rx.try_recv() {
            pending.push(Action::Log { view, batch });
        }
        // The header's informer line in the same frame as the rows (not up to a second later).
        let with_rows = stats_with_rows(&pending, &rt.stats);
        pending.extend(with_rows);
        for action in pending {
            for effect in app.update(action) {
                if let Effect::Shell {
                    namespace,
                    pod,
                    container,
                } = effect
                {
                    let client = rt.connection.client.clone();
                    let (message, error) = shell_session(&mut tui, &mut events, async move {
                        shell::run_in_terminal(client, &namespace, &pod, container.as_deref()).await
                    })
                    .await?;
                    if let Ok(s) = tui.size() {
                        app.update(Action::Resize(s.width, s.height));
                    }
                    app.update(Action::Notify { message, error });
                    continue;
                }
                if let Effect::Edit {
                    resource,
                    namespace,
                    name,
                } = effect
                {
                    let client = rt.connection.client.clone();
                    let (message, error) = shell_session(&mut tui, &mut events, async move {
                        let command = edit::editor_command();
                        let o =
                            edit::edit_loop(client, &resource, namespace.as_deref(), &name, |p| {
                                // The editor gets the terminal as a shell would give it (cooked,
                                // as kubectl edit runs it); the dashboard takes raw mode back.
                                tokio::task::block_in_place(|| {
                                    let _ = crossterm::terminal::disable_raw_mode();
                                    let r = edit::run_editor(&command, p);
                                    let _ = crossterm::terminal::enable_raw_mode();
                                    r
                                })
                            })
                            .await;
                        (o.message, o.error)
                    })
                    .await?;
                    if let Ok(s) = tui.size() {
                        app.update(Action::Resize(s.width, s.height));
                    }
                    app.update(Action::Notify { message, error });
                    continue;
                }
                if !rt.carry_out(effect).await {
                    running = false;
                }
            }
        }
        if running && app.take_dirty() {
            tui.draw(|f| f.render_widget(&app, f.area()))?;
            if !first_complete_frame_logged {
                first_complete_frame_logged = log_first_complete_frame(&app, &rt.views);
            }
        }
    }
    terminal::restore();
    rt.shutdown().await;
    Ok(())
}

/// The runtime without a terminal, for integration tests: [`Effect`]s in, [`Action`]s out,
/// with the same informers, feeds, stats, event tap and metrics pollers as the dashboard.
pub struct Headless {
    rt: Runtime,
    rx: mpsc::UnboundedReceiver<Action>,
    metrics_rx: mpsc::Receiver<MetricsUpdate>,
    log_rx: LogBatchRx,
}

impl Headless {
    pub fn start(connection: Connection, metrics_period: Duration) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let version: SharedVersion = Arc::new(parking_lot::Mutex::new(None));
        let (rt, Streams { metrics_rx, log_rx }) =
            Runtime::start(connection, version, metrics_period, tx);
        Self {
            rt,
            rx,
            metrics_rx,
            log_rx,
        }
    }

    /// Carry out one effect; false for [`Effect::Quit`].
    pub async fn carry_out(&mut self, effect: Effect) -> bool {
        self.rt.carry_out(effect).await
    }

    /// The next action for the app (`None`: every sender is gone).
    pub async fn next_action(&mut self) -> Option<Action> {
        tokio::select! {
            a = self.rx.recv() => a,
            u = self.metrics_rx.recv() => u.map(Action::Metrics),
            b = self.log_rx.recv() => b.map(|(view, batch)| Action::Log { view, batch }),
        }
    }

    /// The informer factory of the current connection.
    pub fn factory(&self) -> &Arc<SharedInformerFactory> {
        &self.rt.factory
    }

    /// Metrics poller tasks still running.
    pub fn live_metrics_tasks(&mut self) -> usize {
        self.rt.metrics.live_tasks()
    }

    /// The scopes polled now.
    pub fn metrics_scopes(&self) -> Vec<MetricsScope> {
        self.rt.metrics.scopes()
    }

    pub async fn shutdown(mut self) {
        self.rt.shutdown().await;
    }
}

/// The ports a pod's containers declare, in spec order.
fn container_ports(pod: &k8s_openapi::api::core::v1::Pod) -> Vec<ContainerPort> {
    pod.spec
        .iter()
        .flat_map(|s| &s.containers)
        .flat_map(|c| {
            c.ports.iter().flatten().filter_map(|p| {
                Some(ContainerPort {
                    container: c.name.clone(),
                    port: u16::try_from(p.container_port).ok()?,
                    name: p.name.clone().unwrap_or_default(),
                    protocol: p.protocol.clone().unwrap_or_else(|| "TCP".into()),
                })
            })
        })
        .collect()
}

/// Suspend the dashboard for `session` (an interactive shell): stop reading terminal events (the
/// session reads the keys), leave the alternate screen with raw mode kept, run it, then take the
/// screen back and clear it so the next frame redraws everything (also the editor of `E`).
async fn shell_session<F: std::future::Future<Output = (String, bool)>>(
    tui: &mut terminal::Tui,
    events: &mut EventStream,
    session: F,
) -> std::io::Result<(String, bool)> {
    // Dropping the stream stops its reader; the new one starts reading when first polled,
    // after the session.
    drop(std::mem::replace(events, EventStream::new()));
    crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    )?;
    let result = session.await;
    crossterm::execute!(std::io::stdout(), crossterm::terminal::EnterAlternateScreen)?;
    // Clear the screen and forget the last frame (both buffers empty) so the next draw repaints
    // every cell. Not `Terminal::clear`: it reads the cursor position, which fails when the
    // session was quick (an editor saving at once) while the dropped event reader still runs.
    crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )?;
    tui.swap_buffers();
    Ok(result)
}

fn signal(kind: tokio::signal::unix::SignalKind) -> std::io::Result<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::list_watch::{FakeListerWatcher, ListerWatcher, WatchEvent};
    use kube::discovery::ApiResource;

    fn pods() -> ApiResource {
        ApiResource {
            group: String::new(),
            version: "v1".into(),
            api_version: "v1".into(),
            kind: "Pod".into(),
            plural: "pods".into(),
        }
    }

    fn pod(name: &str, rv: &str) -> DynamicObject {
        let mut o = DynamicObject::new(name, &pods()).within("default");
        o.metadata.resource_version = Some(rv.into());
        o
    }

    fn rows() -> Action {
        Action::Rows {
            view: 1,
            upserts: Vec::new(),
            deletes: Vec::new(),
        }
    }

    fn informer_row(actions: &[Action]) -> Option<InformerRow> {
        actions.iter().find_map(|a| match a {
            Action::InformerStats(rows) => rows.first().cloned(),
            _ => None,
        })
    }

    async fn until(mut f: impl FnMut() -> bool) {
        for _ in 0..10_000 {
            if f() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        panic!("condition not reached");
    }

    /// A started factory whose informers all read `fake`, listing then watching (the fake
    /// scripts list pages; streaming lists are the default).
    fn started_factory(fake: &Arc<FakeListerWatcher<DynamicObject>>) -> Arc<SharedInformerFactory> {
        let lw = fake.clone();
        let maker: crate::informer::factory::ListerWatcherMaker =
            Arc::new(move |_, _| lw.clone() as Arc<dyn ListerWatcher<DynamicObject>>);
        let options = FactoryOptions {
            reflector: crate::informer::reflector::ReflectorConfig {
                use_streaming_list: false,
                ..Default::default()
            },
            ..FactoryOptions::default()
        };
        let factory = Arc::new(SharedInformerFactory::new(maker, options));
        factory.start();
        factory
    }

    fn on_node(name: &str, rv: &str, node: &str) -> DynamicObject {
        let mut o = pod(name, rv);
        o.data = serde_json::json!({ "spec": { "nodeName": node } });
        o
    }

    /// Every key queued now, without waiting.
    fn queued(queue: &RateLimitingQueue<Arc<str>>) -> Vec<String> {
        let mut keys = Vec::new();
        while let Some(Some(k)) = queue.get().now_or_never() {
            queue.done(&k);
            keys.push(k.to_string());
        }
        keys.sort();
        keys
    }

    /// Issue 11: a drilled view is fed from the drill's index: the cached pods on the node are
    /// queued from the node index (the registration's replay of the whole cache is skipped),
    /// later changes only when they concern the node, and a widened drill queues the new
    /// value's pods.
    #[tokio::test]
    async fn a_drilled_view_is_fed_only_the_objects_its_index_files_under_the_drill() {
        let fake = FakeListerWatcher::<DynamicObject>::shared();
        fake.push_list_page(
            vec![
                on_node("a", "10", "n1"),
                on_node("b", "11", "n2"),
                on_node("c", "12", "n1"),
            ],
            "12",
            None,
        );
        let live = fake.push_watch_live();
        let factory = started_factory(&fake);
        let informer = factory.informer_for(&pods(), None);
        until(|| {
            informer.has_synced()
                && informer
                    .reflector_status()
                    .is_some_and(|s| s.borrow().state == ReflectorState::Watching)
        })
        .await;

        let Subscription {
            queue,
            gate,
            registration,
        } = subscribe(&informer, Some(Drill::Node("n1".into())));
        let registration = registration.expect("registered");
        let gate = gate.expect("pods informers have the node index");
        assert!(gate.skip_replay);
        until(|| registration.has_synced()).await;
        assert_eq!(queued(&queue), ["default/a", "default/c"]);

        live.send(Ok(WatchEvent::Added(on_node("d", "13", "n2"))))
            .expect("watch open");
        live.send(Ok(WatchEvent::Added(on_node("e", "14", "n1"))))
            .expect("watch open");
        // Moves off the node: sent once more so the view hides it.
        live.send(Ok(WatchEvent::Modified(on_node("a", "15", "n2"))))
            .expect("watch open");
        until(|| informer.indexer().len() == 5 && queue.len() >= 2).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(queued(&queue), ["default/a", "default/e"]);

        *gate.drill.write() = Drill::Node("n2".into());
        gate.seed(&informer.indexer(), &queue);
        assert_eq!(queued(&queue), ["default/a", "default/b", "default/d"]);
        factory.shutdown().await;
    }

    /// Issue 14: `d` on a node reads the node's pods from the node index of a synced
    /// all-namespaces pods informer (no API call); before it has synced, there is no cached
    /// answer (the describe lists by spec.nodeName instead).
    #[tokio::test]
    async fn node_describe_takes_the_nodes_pods_from_the_node_index_once_synced() {
        let fake = FakeListerWatcher::<DynamicObject>::shared();
        let factory = started_factory(&fake);
        assert!(
            pods_on_node_from_cache(&factory, "n1").is_none(),
            "no informer yet"
        );
        let informer = factory.informer_for(&pods(), None);
        assert!(
            pods_on_node_from_cache(&factory, "n1").is_none(),
            "not synced yet"
        );
        fake.push_list_page(
            vec![
                on_node("a", "10", "n1"),
                on_node("b", "11", "n2"),
                on_node("c", "12", "n1"),
            ],
            "12",
            None,
        );
        let _live = fake.push_watch_live();
        until(|| informer.has_synced()).await;
        let mut names: Vec<String> = pods_on_node_from_cache(&factory, "n1")
            .expect("synced")
            .iter()
            .filter_map(|p| p.metadata.name.clone())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "c"]);
        factory.shutdown().await;
    }

    /// Issue 11: the header's informer line (count, RV, state) reaches the screen in the frame
    /// that carries the rows, not up to a second later; frames without rows compute nothing, and
    /// an unchanged informer sends nothing.
    #[tokio::test]
    async fn informer_stats_go_out_in_the_frame_that_carries_rows() {
        let fake = FakeListerWatcher::<DynamicObject>::shared();
        fake.push_list_page(vec![pod("a", "10"), pod("b", "11")], "11", None);
        let live = fake.push_watch_live();
        let factory = started_factory(&fake);
        let informer = factory.informer_for(&pods(), None);
        let stats = StatsSource::shared(
            factory.clone(),
            "ctx".into(),
            Arc::new(parking_lot::Mutex::new(Some("v1.33".into()))),
        );
        until(|| {
            informer.has_synced()
                && informer
                    .reflector_status()
                    .is_some_and(|s| s.borrow().state == ReflectorState::Watching)
        })
        .await;

        assert!(
            stats_with_rows(&[Action::Tick(0)], &stats).is_empty(),
            "no rows in the batch: nothing computed"
        );
        let first = stats_with_rows(&[rows()], &stats);
        let row = informer_row(&first).expect("stats with the rows");
        assert_eq!(
            (row.cached, row.last_rv.as_str(), row.synced),
            (2, "11", true)
        );
        assert_eq!(row.state, InformerState::Watching);
        assert!(first.iter().any(|a| matches!(a, Action::Connection(_))));

        live.send(Ok(WatchEvent::Added(pod("c", "12"))))
            .expect("watch open");
        until(|| informer.indexer().len() == 3).await;
        let next = stats_with_rows(&[rows()], &stats);
        let row = informer_row(&next).expect("the change goes out with the rows");
        assert_eq!((row.cached, row.last_rv.as_str()), (3, "12"));
        let row_again = stats_with_rows(&[rows()], &stats);
        // Only the rate may move between two calls; counts and RV are the same.
        if let Some(r) = informer_row(&row_again) {
            assert_eq!((r.cached, r.last_rv.as_str()), (3, "12"));
        }
        factory.shutdown().await;
    }
}
