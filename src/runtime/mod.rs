//! The dashboard's runtime: all I/O around the pure [`App`] ([`crate::ui`]), and the only place
//! that does any: the frame loop and the terminal ([`terminal`], suspend for a shell, an editor or
//! a plugin), the informer feeds, the log streams ([`log_stream`], [`log_feeds`]), the shell
//! ([`shell`]), port-forwards ([`portforward`]), the metrics poller ([`metrics`]), the writes
//! ([`operate`], [`drain`], [`edit`]) and the fleet's members.
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

use crate::cluster::{Connection, ResourceInfo, one_line};
use crate::informer::delta_fifo::{Delta, DeltaObject, DeltaType, Observer, Transform};
use crate::informer::factory::{
    FactoryOptions, InformerKey, PopObserverHook, SharedInformerFactory,
};
use crate::informer::history::{DEFAULT_BUDGET_MIB, History, history_resource};
use crate::informer::index::IndexFunc;
use crate::informer::reflector::{ReflectorState, ReflectorStatus};
use crate::informer::shared_informer::{
    DeleteObject, HandlerRegistration, PopObserver, ResourceEventHandler, SharedIndexInformer,
};
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::informer::workqueue::RateLimitingQueue;
use crate::informer::{Error as InformerError, meta_namespace_key};
use crate::recorder::Recorder;
use crate::render;
use crate::ui::action::{
    Access, Action, ConnectionState, Denial, Effect, InformerRow, InformerState, ViewId,
};
use crate::ui::app::{App, AppConfig};
use crate::ui::keys::KeyMap;
use crate::ui::log_view::{LogKeyMap, user_log_keys_path};
use crate::ui::table::Drill;
use log_feeds::{LogBatchRx, LogFeeds};
use metrics::{KubeMetricsSource, MetricsHub, MetricsScope, MetricsUpdate};

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
    /// The start-up message, e.g. "demo cluster at http://127.0.0.1:PORT (601 objects)"; with
    /// `demo_seeding`, shown when the seed is done, with the objects it stored.
    pub banner: Option<String>,
    /// The demo cluster's seed going on in the background: its progress, forwarded to the app
    /// (the footer's line) until it is done.
    pub demo_seeding: Option<tokio::sync::watch::Receiver<crate::ui::action::DemoSeeding>>,
    /// How often the metrics API is polled while a pods/nodes view or the pulse is open.
    pub metrics_period: Duration,
    /// Per-object history budget (`--history-mib`).
    pub history_bytes: usize,
    /// `--record FILE`: every version the informers see is also written there.
    pub recorder: Option<Arc<Recorder>>,
    /// History loaded from `--history-file` (else a fresh one of `history_bytes`).
    pub history: Option<Arc<History>>,
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

mod access;
pub mod apply;
mod background;
mod describe;
pub mod drain;
pub mod edit;
mod feeds;
mod fleet;
mod headless;
mod helm_feed;
mod history_events;
pub mod log_feeds;
pub mod log_stream;
mod members;
pub mod metrics;
pub mod metrics_stream;
mod node_pods;
mod node_shell;
pub mod operate;
pub mod plugins;
pub mod portforward;
pub mod record;
pub mod replay;
mod scopes;
mod session;
pub mod shell;
mod suspend;
pub mod terminal;
mod views;
/// Consecutive `ListedRows` of one view become one action: a table merges a big batch in one
/// pass (O(n + m log m)), so a frame that takes sixteen batches of a 100k-row list pays for one
/// merge, not sixteen. Only neighbours are joined, so no action moves past another.
fn coalesce_listed_rows(pending: Vec<Action>) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::with_capacity(pending.len());
    for action in pending {
        if let Action::ListedRows {
            view,
            upserts,
            deletes,
        } = action
        {
            if let Some(Action::ListedRows {
                view: last,
                upserts: u,
                deletes: d,
            }) = out.last_mut()
                && *last == view
                && d.is_empty()
            {
                u.extend(upserts);
                d.extend(deletes);
                continue;
            }
            out.push(Action::ListedRows {
                view,
                upserts,
                deletes,
            });
        } else {
            out.push(action);
        }
    }
    out
}

#[cfg(test)]
mod tests;
pub mod user_file;

pub use access::FORBIDDEN_RECHECK;
use access::*;
use background::*;
use describe::*;
pub use feeds::next_key_batch;
use feeds::*;
pub use fleet::{PROBE_BACKOFF_MAX, PROBE_PERIOD};
pub use headless::Headless;
use members::FeedSource;
use node_pods::*;
use session::{EditorRedraw, ExitSignals, shell_session};
use suspend::{Suspended, Suspender};

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
    /// The fleet members' probes (they outlive context switches).
    probes: fleet::Probes,
    /// The other selected contexts (not the current one), each with its own connection,
    /// informers and access cache: merged views are fed from them too.
    members: std::collections::BTreeMap<String, members::Member>,
    probe_period: Duration,
    /// Per-object history, fed by the informers' transforms (a fresh one per context).
    history: Arc<History>,
    /// On while a shell or an editor has the terminal: the feeds hold back (see [`suspend`]).
    suspend: Suspender,
    /// Row batches sent by the feeds and not yet taken by the frame loop.
    rows: feeds::RowsInFlight,
    /// Events informers started for the timeline screens (see [`history_events`]).
    history_leases: Vec<history_events::HistoryLease>,
    /// Ends the `:helm` screens' feed ([`helm_feed`]).
    helm: Option<CancellationToken>,
    /// `--record FILE`: the flight recorder fed with the current context's informers.
    recorder: Option<Arc<Recorder>>,
}

/// The factory's hooks: history records each object as decoded (through the cache mask widened
/// by what history tracks) with its delta type, then the cache transform prunes it.
///
/// With a flight recorder (`--record`, `kinformer record`), the recorder is shown the same
/// objects, with the same delta types.
pub(crate) fn make_factory(
    connection: &Connection,
    history: &Arc<History>,
    flight: Option<&Arc<Recorder>>,
) -> Arc<SharedInformerFactory> {
    factory_with(connection, Some(history), flight)
}

/// [`make_factory`], with per-object history optional (`kinformer record` keeps none: the
/// recording is its history).
pub(crate) fn factory_with(
    connection: &Connection,
    history: Option<&Arc<History>>,
    flight: Option<&Arc<Recorder>>,
) -> Arc<SharedInformerFactory> {
    let recorder = history.cloned();
    let observed = flight.cloned();
    let options = FactoryOptions {
        transform: Some(Arc::new(move |ar: &kube::discovery::ApiResource| {
            let kind = ar.kind.clone();
            // A k9s user's custom columns keep what their JSONPaths read.
            Some(
                match render::view_mask::for_resource(&ar.group, &ar.plural) {
                    Some(m) => Arc::new(move |obj: DynamicObject| m.prune(&kind, obj))
                        as Transform<DynamicObject>,
                    None => Arc::new(move |obj: DynamicObject| render::prune(&kind, obj)),
                },
            )
        })),
        observer: Some(Arc::new(move |ar: &kube::discovery::ApiResource| {
            let resource = history_resource(ar);
            let mask = render::history_mask(&ar.kind);
            let history = recorder.clone();
            let flight = observed.clone();
            if let Some(f) = &flight {
                f.kind_seen(ar);
            }
            let kind: Arc<str> = Arc::from(ar.kind.as_str());
            let label: Arc<str> = Arc::from(resource.as_str());
            Some(Arc::new(move |obj: &DynamicObject, delta| {
                // One instant for both, so a replay's past views match the dashboard's.
                let at = now_ms();
                if let Some(history) = &history {
                    history.observe_as_at(&resource, obj, mask, delta, at);
                }
                if let Some(f) = &flight {
                    f.observe_at(&label, &kind, obj, delta, at);
                }
            }) as Observer<DynamicObject>)
        })),
        decode_mask: Some(Arc::new(|ar: &kube::discovery::ApiResource| {
            let mask = render::history_decode_mask(&ar.kind);
            Some(
                match render::view_mask::for_resource(&ar.group, &ar.plural) {
                    Some(m) => m.widen(mask),
                    None => mask,
                },
            )
        })),
        history: history.cloned(),
        // The deletions a relist finds (tombstones) carry no decoded object: the observer
        // above never sees them, the pops do.
        pop_observer: flight.map(|f| {
            let f = Arc::clone(f);
            Arc::new(move |ar: &kube::discovery::ApiResource| {
                let f = Arc::clone(&f);
                let resource: Arc<str> = Arc::from(history_resource(ar).as_str());
                Some(Arc::new(move |key: &str, deltas: &[Delta<DynamicObject>]| {
                    if deltas
                        .iter()
                        .any(|d| d.kind == DeltaType::Deleted && d.object.is_tombstone())
                    {
                        f.deleted(&resource, key);
                    }
                }) as PopObserver<DynamicObject>)
            }) as PopObserverHook
        }),
        ..FactoryOptions::default()
    };
    Arc::new(SharedInformerFactory::from_client(
        connection.client.clone(),
        options,
    ))
}

/// The answer to [`Effect::FetchChanges`] from `history` (the live runtime's and a replay's).
pub(crate) fn changes(
    history: &History,
    filter: crate::ui::action::ChangesFilter,
    limit: usize,
) -> Action {
    let selector = crate::selector::LabelSelector::parse(&filter.selector)
        .ok()
        .filter(|s| !s.is_empty());
    let rows = history.latest(limit, |id, labels| {
        filter.passes(selector.as_ref(), &id.resource, &id.key, labels)
    });
    let stats = history.stats();
    Action::Changes {
        filter,
        rows,
        stats,
    }
}

/// [`Effect::SaveTable`]: write the table, and the footer's line saying so (or why not).
pub(crate) fn save_table(path: &std::path::Path, contents: &str, rows: usize) -> Action {
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, contents.as_bytes()));
    let (message, error) = match written {
        Ok(()) => {
            tracing::info!(path = %path.display(), rows, "table saved");
            (format!("saved {rows} rows to {}", path.display()), false)
        }
        Err(e) => (format!("saving the table: {}: {e}", path.display()), true),
    };
    Action::Notify { message, error }
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
        history: Arc<History>,
        recorder: Option<Arc<Recorder>>,
        tx: mpsc::UnboundedSender<Action>,
    ) -> (Runtime, Streams) {
        let factory = make_factory(&connection, &history, recorder.as_ref());
        factory.start();
        let conn_cancel = CancellationToken::new();
        let stats = StatsSource::shared(factory.clone(), connection.context.clone(), version);
        let suspend = Suspender::new();
        spawn_stats(
            stats.clone(),
            tx.clone(),
            conn_cancel.clone(),
            suspend.watcher(),
        );
        let (metrics_tx, metrics_rx) = mpsc::channel(METRICS_CHANNEL);
        let metrics = MetricsHub::new(
            Arc::new(KubeMetricsSource::new(connection.client.clone())),
            metrics_period,
            metrics_tx,
            conn_cancel.child_token(),
        );
        spawn_tap(
            &factory,
            tx.clone(),
            conn_cancel.clone(),
            None,
            suspend.watcher(),
        );
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
            probes: fleet::Probes::default(),
            members: std::collections::BTreeMap::new(),
            probe_period: fleet::PROBE_PERIOD,
            history,
            suspend,
            rows: feeds::RowsInFlight::default(),
            history_leases: Vec::new(),
            helm: None,
            recorder,
        };
        (rt, Streams { metrics_rx, log_rx })
    }

    /// Close every view, end the connection's tasks and stop the informers.
    pub async fn shutdown(&mut self) {
        self.probes.stop_all();
        for (_, m) in std::mem::take(&mut self.members) {
            m.cancel.cancel();
            let _ = tokio::time::timeout(Duration::from_secs(2), m.factory.shutdown()).await;
        }
        self.forwards.stop_all().await;
        for view in self.views.keys().copied().collect::<Vec<_>>() {
            self.close_view(view);
        }
        self.logs.close_all();
        self.conn_cancel.cancel();
        let _ = tokio::time::timeout(Duration::from_secs(2), self.factory.shutdown()).await;
    }

    /// Carry out one effect of `App::update`; false once the app asked to quit.
    /// The kubeconfig file a plugin gets as `KUBECONFIG` (none for the demo's, kept in memory).
    fn kubeconfig_file(&self) -> Option<std::path::PathBuf> {
        let p = std::path::PathBuf::from(&self.connection.kubeconfig_path);
        p.is_file().then_some(p)
    }

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
            Effect::WatchCluster(context) => {
                self.add_member(&context).await;
                self.watch_cluster(context);
            }
            Effect::UnwatchCluster(context) => {
                self.unwatch_cluster(&context);
                self.remove_member(&context);
            }
            Effect::OnCluster { cluster, effect } => {
                return Box::pin(self.carry_out_on(cluster, *effect)).await;
            }
            Effect::FetchDiff {
                request,
                resource,
                namespace,
                name,
                contexts,
            } => self.fetch_diff(request, resource, namespace, name, contexts),
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
            Effect::CheckHistory { view } => {
                if let Some(feed) = self.views.get(&view) {
                    let key = feed.opened.lock().as_ref().map(|o| o.key.clone());
                    if let Some(key) = key
                        && let Some((_, informer)) = self
                            .factory
                            .informers()
                            .into_iter()
                            .find(|(k, _)| *k == key)
                    {
                        informer.check_history();
                    }
                }
            }
            Effect::Rediscover => {
                let (connection, tx) = (self.connection.clone(), self.tx.clone());
                tokio::spawn(async move {
                    let resources = connection.rediscover().await.unwrap_or_else(|e| {
                        tracing::warn!(error = %e, "discovery asked again failed");
                        Vec::new()
                    });
                    let _ = tx.send(Action::Discovery(resources));
                });
            }
            Effect::Verify { view } => {
                let informer = self.views.get(&view).and_then(|feed| {
                    let key = feed.opened.lock().as_ref().map(|o| o.key.clone())?;
                    self.factory
                        .informers()
                        .into_iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, i)| i)
                });
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = match informer {
                        Some(i) => i.verify().await.map_err(|e| e.to_string()),
                        None => Err("this view has no informer yet".to_string()),
                    };
                    let _ = tx.send(Action::Verified { view, result });
                });
            }
            Effect::RetryForbidden { view } => {
                if let Some(feed) = self.views.get(&view) {
                    let (resource, namespace, drill, only) = (
                        feed.resource.clone(),
                        feed.namespace.clone(),
                        feed.drill.clone(),
                        feed.only.clone(),
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
                    self.open_view_on(view, resource, namespace, drill, only);
                }
            }
            Effect::WatchMetrics { view, scope } => self.metrics.watch(view, scope),
            Effect::WatchNodePods { view, pods } => {
                if let Some(feed) = self.views.get(&view) {
                    let source = FeedSource {
                        factory: self.factory.clone(),
                        client: self.connection.client.clone(),
                        access: self.access.clone(),
                        cluster: None,
                    };
                    tokio::spawn(watch_node_pods(
                        view,
                        pods,
                        source,
                        self.tx.clone(),
                        feed.cancel.clone(),
                        self.suspend.watcher(),
                    ));
                }
            }
            Effect::FetchPastView {
                view,
                resource,
                namespace,
                at_ms,
            } => {
                // The view's live objects: those unchanged since are shown as they are.
                let live = self
                    .views
                    .get(&view)
                    .and_then(|f| {
                        f.opened
                            .lock()
                            .as_ref()
                            .map(|o| o.informer.indexer().list())
                    })
                    .unwrap_or_default();
                let ns = namespace.as_deref();
                let past = self.history.past_view(&resource, ns, at_ms, live);
                let times = self.history.change_times(&resource, ns);
                let _ = self.tx.send(Action::PastView {
                    view,
                    past: Box::new(past),
                    times,
                });
            }
            Effect::FetchHistory {
                resource,
                key,
                kind,
            } => {
                let timeline = self.history.timeline(&resource, &key).map(Box::new);
                let stats = self.history.stats();
                let (events, events_unavailable) = self.history_events(&resource, &key, &kind);
                let _ = self.tx.send(Action::History {
                    resource,
                    key,
                    timeline,
                    stats,
                    events,
                    events_unavailable,
                });
            }
            Effect::CloseHistory => self.close_history_events(),
            Effect::WatchHelm { namespace } => {
                if let Some(old) = self.helm.take() {
                    old.cancel();
                }
                let cancel = self.conn_cancel.child_token();
                self.helm = Some(cancel.clone());
                tokio::spawn(helm_feed::watch_helm(
                    self.connection.client.clone(),
                    namespace,
                    self.tx.clone(),
                    cancel,
                ));
            }
            Effect::UnwatchHelm => {
                if let Some(old) = self.helm.take() {
                    old.cancel();
                }
            }
            Effect::FetchHelmRelease {
                request,
                namespace,
                storage,
                object,
            } => {
                let client = self.connection.client.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result =
                        helm_feed::fetch_release(client, &namespace, storage, &object).await;
                    let _ = tx.send(Action::HelmRelease { request, result });
                });
            }
            Effect::FetchChanges { filter, limit } => {
                let _ = self.tx.send(changes(&self.history, filter, limit));
            }
            Effect::SaveTable {
                path,
                contents,
                rows,
            } => {
                let tx = self.tx.clone();
                tokio::task::spawn_blocking(move || {
                    let _ = tx.send(save_table(&path, &contents, rows));
                });
            }
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
            Effect::RunPlugin(run) if run.background => {
                let tx = self.tx.clone();
                let kubeconfig = self.kubeconfig_file();
                let state = crate::logging::state_dir();
                tokio::spawn(async move {
                    let (message, error) = plugins::run_background(*run, state, kubeconfig).await;
                    let _ = tx.send(Action::Notify { message, error });
                });
            }
            // A foreground plugin needs the terminal: the run loop carries it out.
            Effect::RunPlugin(_) => {}
            Effect::FetchImages(write) => {
                let client = self.connection.client.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = operate::fetch_images(client, &write).await;
                    let _ = tx.send(Action::Images { write, result });
                });
            }
            Effect::FetchContainers { namespace, pod } => {
                self.read_pod(
                    namespace,
                    pod,
                    shell::containers,
                    |namespace, pod, result| Action::Containers {
                        namespace,
                        pod,
                        result,
                    },
                );
            }
            Effect::FetchPodContainers { namespace, pod } => {
                let pods: Api<k8s_openapi::api::core::v1::Pod> =
                    Api::namespaced(self.connection.client.clone(), &namespace);
                let metrics = metrics::KubeMetricsSource::new(self.connection.client.clone());
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = match pods.get(&pod).await {
                        Ok(p) => {
                            // No metrics (no metrics-server, a pod not measured yet): no usage.
                            let usage = metrics.pod_metrics(&namespace, &pod).await.ok();
                            Ok(crate::ui::screens::containers::pod_containers(
                                &p,
                                usage.as_ref(),
                            ))
                        }
                        Err(e) => Err(one_line(&e.to_string())),
                    };
                    let _ = tx.send(Action::PodContainers {
                        namespace,
                        pod,
                        result,
                    });
                });
            }
            Effect::FetchPorts { namespace, pod } => {
                self.read_pod(
                    namespace,
                    pod,
                    portforward::container_ports,
                    |namespace, pod, result| Action::Ports {
                        namespace,
                        pod,
                        result,
                    },
                );
            }
            Effect::FetchTargetPorts {
                namespace,
                kind,
                name,
            } => {
                let client = self.connection.client.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let result = portforward::selector_ports(client, &namespace, kind, &name).await;
                    let _ = tx.send(Action::TargetPorts {
                        namespace,
                        name,
                        result,
                    });
                });
            }
            Effect::StartForwardTarget {
                id,
                namespace,
                what,
                selector,
                port,
                local,
            } => {
                let shown = format!("{namespace}/{what}:{port}");
                let target = crate::ui::portforward::ForwardTarget::Selector { what, selector };
                let (message, error) = match self
                    .forwards
                    .start_target(id, namespace, target, port, local)
                    .await
                {
                    Ok(bound) => (
                        format!("forwarding 127.0.0.1:{bound} → {shown} (:pf lists forwards)"),
                        false,
                    ),
                    Err(e) => (format!("port-forward {shown}: {e}"), true),
                };
                let _ = self.tx.send(Action::Notify { message, error });
                self.send_forward_rows();
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
                        message: format!("stopped 127.0.0.1:{} → {}", r.local, r.remote()),
                        error: false,
                    });
                }
                self.send_forward_rows();
            }
            // It needs the terminal: the run loop carries it out (`shell_session`).
            Effect::Shell { .. }
            | Effect::NodeShell { .. }
            | Effect::Attach { .. }
            | Effect::Edit { .. }
            | Effect::Create { .. } => {}
            Effect::ApplyFile {
                path,
                namespace,
                resources,
            } => {
                let client = self.connection.client.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let prepared = apply::plan_paths(client, &resources, &path, &namespace).await;
                    let _ = tx.send(apply::prepared_action(prepared));
                });
            }
            Effect::Apply { writes, edited } => {
                let client = self.connection.client.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let (o, code) = apply::apply_writes_with_code(client, &writes).await;
                    let action = match (edited, code, writes.first()) {
                        // Refused: the editor reopens on the user's text (as `e` does).
                        (Some(text), Some(400 | 403 | 404 | 409 | 422), Some(w)) => {
                            Action::ApplyRefused {
                                resource: w.resource.clone(),
                                text,
                                message: o.message,
                            }
                        }
                        _ => Action::Notify {
                            message: o.message,
                            error: o.error,
                        },
                    };
                    let _ = tx.send(action);
                });
            }
            Effect::SwitchContext(name) => match self.connection.switch_context(&name).await {
                Ok(conn) => {
                    // The new current context is no member any more; the old one becomes
                    // one while it is still selected.
                    let old_context = self.connection.context.clone();
                    self.remove_member(&name);
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
                    // Another cluster: its objects get a history of their own.
                    self.history = Arc::new(History::new(self.history.stats().budget));
                    // A recording is of one cluster: it ends here.
                    if let Some(r) = self.recorder.take() {
                        let stats = r.finish();
                        let _ = self.tx.send(Action::Notify {
                            message: format!(
                                "recording into {} ended ({} versions): it is of {old_context}",
                                r.path().display(),
                                stats.versions
                            ),
                            error: false,
                        });
                    }
                    self.factory = make_factory(&self.connection, &self.history, None);
                    self.factory.start();
                    self.logs.reconnect(
                        self.connection.client.clone(),
                        self.factory.clone(),
                        self.conn_cancel.clone(),
                    );
                    spawn_tap(
                        &self.factory,
                        self.tx.clone(),
                        self.conn_cancel.clone(),
                        None,
                        self.suspend.watcher(),
                    );
                    self.stats = StatsSource::shared(
                        self.factory.clone(),
                        self.connection.context.clone(),
                        Arc::new(parking_lot::Mutex::new(version.as_ref().ok().cloned())),
                    );
                    spawn_stats(
                        self.stats.clone(),
                        self.tx.clone(),
                        self.conn_cancel.clone(),
                        self.suspend.watcher(),
                    );
                    self.stats_members();
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
                    if self.probes.live().contains(&old_context) {
                        self.add_member(&old_context).await;
                    }
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
    /// GET pod `namespace/pod` in the background (the cache keeps no containers) and answer with
    /// `answer(namespace, pod, read(pod))`, or the server's refusal on one line.
    fn read_pod<T: Send + 'static>(
        &self,
        namespace: String,
        pod: String,
        read: fn(&k8s_openapi::api::core::v1::Pod) -> T,
        answer: fn(String, String, Result<T, String>) -> Action,
    ) {
        let pods: Api<k8s_openapi::api::core::v1::Pod> =
            Api::namespaced(self.connection.client.clone(), &namespace);
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = match pods.get(&pod).await {
                Ok(p) => Ok(read(&p)),
                Err(e) => Err(one_line(&e.to_string())),
            };
            let _ = tx.send(answer(namespace, pod, result));
        });
    }

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

/// The demo cluster's seeding progress as actions, then, once it is done, the banner with the
/// objects it stored.
fn forward_demo_seeding(
    mut seeding: tokio::sync::watch::Receiver<crate::ui::action::DemoSeeding>,
    banner: Option<String>,
    tx: mpsc::UnboundedSender<Action>,
) {
    tokio::spawn(async move {
        loop {
            let s = *seeding.borrow_and_update();
            if tx.send(Action::DemoSeeding(s)).is_err() {
                return;
            }
            if let Some(objects) = s.seeded {
                if let Some(b) = banner {
                    let _ = tx.send(Action::DemoSeeded(format!("{b} ({objects} objects)")));
                }
                return;
            }
            if seeding.changed().await.is_err() {
                return;
            }
        }
    });
}

/// Run the dashboard until the user quits or a signal arrives; the terminal is restored on every
/// way out.
pub async fn run(config: RuntimeConfig) -> Result<(), UiError> {
    let start_context = config.app.context.clone();
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
        config
            .history
            .clone()
            .unwrap_or_else(|| Arc::new(History::new(config.history_bytes))),
        config.recorder.clone(),
        tx.clone(),
    );
    if config.server_version.is_none() {
        spawn_rediscovery(connection, version, tx.clone(), rt.conn_cancel.clone());
    }
    let mut app = App::new(config.app, config.keys);
    // The log screen's keys: the defaults, overlaid by the user's file when there is one.
    let user = match user_log_keys_path() {
        Some(path) => user_file::read(&path),
        None => Ok(None),
    };
    match user.and_then(|file| LogKeyMap::load(file.as_ref())) {
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
    let _ = tx.send(Action::ContextRows(rt.connection.context_rows()));
    // The demo's banner, unless the footer has configuration problems to name at start; then
    // discovery before the first view: `-r` resolves against every kind the server serves (a
    // CRD's plural, short name or plural.group), as `:` does, and the alias and plugin-scope
    // problems discovery finds show over the banner.
    let mut start_fx = Vec::new();
    let banner = match config.demo_seeding {
        Some(seeding) => {
            // In the first frame already.
            app.update(Action::DemoSeeding(*seeding.borrow()));
            forward_demo_seeding(seeding, config.banner, tx.clone());
            None
        }
        None => config.banner,
    };
    if let Some(banner) = banner
        && app.config_problems.is_empty()
    {
        start_fx.extend(app.update(Action::Notify {
            message: banner,
            error: false,
        }));
    }
    start_fx.extend(app.update(Action::Discovery(config.resources)));

    let (mut tui, _guard) = terminal::setup(app.user.settings.k9s_ui.enable_mouse == Some(true))?;
    // `None` while a shell or an editor has the terminal (see `suspended_session`); made anew
    // when the frame loop next reads.
    let mut events: Option<EventStream> = Some(EventStream::new());
    let mut signals = ExitSignals::new()?;
    // Ages and countdowns: config.toml's refresh_seconds, else k9s's refreshRate, else 1 s.
    let mut ages = tokio::time::interval(app.user.settings.refresh());
    ages.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // config.toml's opt-in periodic `:verify`.
    let mut verify_every = app.user.settings.verify_minutes.map(|m| {
        let period = Duration::from_secs(m.saturating_mul(60));
        let mut i = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        i
    });

    // The app's paging, column-width memory and text pages depend on the real screen size: give
    // it before the first frame (crossterm reports only later changes).
    if let Ok(s) = tui.size() {
        app.update(Action::Resize(s.width, s.height));
    }
    let mut running = true;
    let mut first_complete_frame_logged = false;
    start_fx.extend(app.init());
    for effect in start_fx {
        running &= rt.carry_out(effect).await;
    }
    tui.draw(|f| f.render_widget(&app, f.area()))?;
    while running {
        let deadline = app.next_deadline_ms();
        let sleep_for = deadline
            .map(|d| Duration::from_millis((d - now_ms()).max(0) as u64))
            .unwrap_or(Duration::from_secs(3600));
        let action = tokio::select! {
            ev = events.get_or_insert_with(EventStream::new).next() => match ev {
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
            _ = async {
                match verify_every.as_mut() {
                    Some(i) => {
                        i.tick().await;
                    }
                    None => futures::future::pending::<()>().await,
                }
            } => Some(Action::VerifyTick),
            _ = tokio::time::sleep(sleep_for), if deadline.is_some() => Some(Action::Tick(now_ms())),
            s = signals.recv() => { tracing::info!("{s}: exiting"); running = false; None }
        };
        if matches!(action, Some(Action::Tick(_))) {
            // The :pf counters, once a second while they change.
            rt.send_forward_rows();
            // A recording that stopped (a full disk) says so once; the dashboard goes on.
            if let Some(message) = rt.recorder.as_ref().and_then(|r| r.error()) {
                rt.recorder = None;
                app.update(Action::Notify {
                    message,
                    error: true,
                });
            }
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
        // The row batches taken: feeds held at the bound may read and send again.
        rt.rows.taken(
            pending
                .iter()
                .filter(|a| matches!(a, Action::Rows { .. } | Action::ListedRows { .. }))
                .count(),
        );
        // A list's batches of one frame go to its table in one merge, not one per batch.
        let mut pending = coalesce_listed_rows(pending);
        // The header's informer line in the same frame as the rows (not up to a second later).
        let with_rows = stats_with_rows(&pending, &rt.stats);
        pending.extend(with_rows);
        for action in pending {
            if !running {
                break;
            }
            for effect in app.update(action) {
                // A shell or an editor for an object of another fleet member: its client.
                let (effect, client) = match effect {
                    Effect::OnCluster { cluster, effect }
                        if matches!(
                            *effect,
                            Effect::Shell { .. } | Effect::Attach { .. } | Effect::Edit { .. }
                        ) =>
                    {
                        match rt.client_for(&cluster) {
                            Some(c) => (*effect, c),
                            None => {
                                app.update(Action::Notify {
                                    message: format!("{cluster} is no longer in the fleet"),
                                    error: true,
                                });
                                continue;
                            }
                        }
                    }
                    e => (e, rt.connection.client.clone()),
                };
                // A shell or an editor takes the terminal until it ends (the feeds hold back
                // meanwhile); its outcome goes to the footer. An editor's exits come back on
                // `editor_back` (the dashboard is drawn while the server is asked).
                let (editor_tx, editor_back) = mpsc::unbounded_channel::<String>();
                let is_editor = matches!(effect, Effect::Create { .. } | Effect::Edit { .. });
                let session: std::pin::Pin<Box<dyn std::future::Future<Output = (String, bool)>>> =
                    match effect {
                        Effect::Shell {
                            namespace,
                            pod,
                            container,
                        } => Box::pin(async move {
                            shell::run_in_terminal(client, &namespace, &pod, container.as_deref())
                                .await
                        }),
                        Effect::NodeShell {
                            node,
                            namespace,
                            name,
                            pod,
                        } => Box::pin(async move {
                            node_shell::run(client, &node, &namespace, &name, *pod).await
                        }),
                        Effect::Attach {
                            namespace,
                            pod,
                            container,
                        } => Box::pin(async move {
                            shell::run_session_in_terminal(
                                shell::Session::Attach,
                                client,
                                &namespace,
                                &pod,
                                Some(&container),
                            )
                            .await
                        }),
                        Effect::RunPlugin(run) if !run.background => {
                            let kubeconfig = rt.kubeconfig_file();
                            Box::pin(async move {
                                tokio::task::block_in_place(|| {
                                    plugins::run_foreground(&run, kubeconfig.as_deref())
                                })
                            })
                        }
                        Effect::Create {
                            resource,
                            namespace,
                            resources,
                            reopen,
                        } => {
                            let tx = rt.tx.clone();
                            Box::pin(async move {
                                let prepared = apply::create_loop(
                                    client,
                                    &resources,
                                    &resource,
                                    &namespace,
                                    reopen,
                                    edit::terminal_editor(
                                        format!(
                                            "new {}: checking it with the server (dry run)…",
                                            resource.api_resource.kind
                                        ),
                                        editor_tx,
                                    ),
                                )
                                .await;
                                match prepared {
                                    apply::Prepared::Done(o) => (o.message, o.error),
                                    plan => {
                                        let _ = tx.send(apply::prepared_action(plan));
                                        ("dry run passed: confirm the apply".to_string(), false)
                                    }
                                }
                            })
                        }
                        Effect::Edit {
                            resource,
                            namespace,
                            name,
                        } => Box::pin(async move {
                            let o = edit::edit_loop(
                                client,
                                &resource,
                                namespace.as_deref(),
                                &name,
                                edit::terminal_editor(
                                    format!(
                                        "edit {} {name}: saving…",
                                        resource.api_resource.kind.to_lowercase()
                                    ),
                                    editor_tx,
                                ),
                            )
                            .await;
                            (o.message, o.error)
                        }),
                        effect => {
                            if !rt.carry_out(effect).await {
                                running = false;
                            }
                            continue;
                        }
                    };
                let editor = is_editor.then(|| EditorRedraw {
                    back: editor_back,
                    draw: Box::new(|tui: &mut terminal::Tui, note: String| {
                        if let Ok(s) = tui.size() {
                            app.update(Action::Resize(s.width, s.height));
                        }
                        app.update(Action::Notify {
                            message: note,
                            error: false,
                        });
                        tui.draw(|f| f.render_widget(&app, f.area())).map(|_| ())
                    }),
                });
                let Some((message, error)) = shell_session(
                    &mut tui,
                    &mut events,
                    &rt.suspend,
                    &mut signals,
                    session,
                    editor,
                )
                .await?
                else {
                    running = false;
                    break;
                };
                if let Ok(s) = tui.size() {
                    app.update(Action::Resize(s.width, s.height));
                }
                app.update(Action::Notify { message, error });
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
    save_k9s_state(&app, &start_context);
    rt.shutdown().await;
    if let Some(r) = &rt.recorder {
        r.finish();
    }
    Ok(())
}

/// k9s's per-context state (namespace, favourites, view) written back to the start context's
/// `config.yaml`, as k9s does on exit; not when the dashboard ended on another context.
fn save_k9s_state(app: &App, start_context: &str) {
    let Some(state) = &app.user.context_state else {
        return;
    };
    if app.connection.context != start_context || app.fleet.is_fleet() {
        return;
    }
    let s = app.k9s_state();
    match crate::config::context_state::save(
        &state.path,
        start_context,
        &s.active_namespace,
        &s.favorites,
        &s.view,
    ) {
        Ok(()) => {
            tracing::info!(path = %state.path.display(), namespace = %s.active_namespace, view = %s.view, "k9s context state saved")
        }
        Err(e) => tracing::warn!(error = %e, "k9s context state not saved"),
    }
}
