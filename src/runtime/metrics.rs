//! The metrics poller: a stream task owned by the runtime that polls `metrics.k8s.io/v1beta1`
//! (PodMetrics, NodeMetrics) for the views that show usage.
//!
//! The metrics API has no watch, so it is polled: one LIST per kind and scope per period
//! (metrics-server's resolution, 15 s by default), only while a view that shows usage is open
//! (the view's [`CancellationToken`] ends the task), each result sent through a bounded channel
//! as one [`MetricsUpdate`] (one redraw per poll, never per item). The poller never blocks a
//! frame: the App only reads the last update it was sent.
//!
//! Absent or failing API: discovery first (`GET /apis/metrics.k8s.io/v1beta1`). A 404 (no
//! metrics-server), 503 (APIService down), 403 (RBAC) or a transport error is reported once as
//! [`MetricsUpdate::Unavailable`] with its reason (again only when the reason changes), and the
//! poller waits [`Backoff`] (period, doubling, at most [`MAX_BACKOFF`]) before asking again:
//! nothing retries in a tight loop.
//!
//! Invariants:
//! - at most one request in flight per poller; between two requests at least the period, or the
//!   backoff after a failure;
//! - cancellation ends the task at its next await (an in-flight request is dropped);
//! - [`MetricsPoller::live`] counts its running task (1, then 0 once ended), for tests.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::metrics_stream::MetricsListReader;
use crate::informer::Error;
use crate::render::metrics::{Usage, parse_bytes, parse_cpu_nanos};
use crate::ui::action::ViewId;
pub use crate::ui::metrics::{
    GROUP_VERSION, MAX_BACKOFF, MetricsScope, MetricsUpdate, Unavailable,
};

/// The door to the metrics API (a kube client, or a fake in tests).
pub trait MetricsSource: Send + Sync {
    /// Whether the group version is served (`GET /apis/metrics.k8s.io/v1beta1`).
    fn discover(&self) -> BoxFuture<'_, Result<(), Error>>;
    /// One LIST: the usage of each item of the `PodMetricsList` / `NodeMetricsList` by informer
    /// key ([`usage_by_key`] of the list's body).
    fn list(&self, scope: &MetricsScope) -> BoxFuture<'_, Result<HashMap<String, Usage>, Error>>;
}

/// [`MetricsSource`] over a kube client.
#[derive(Clone)]
pub struct KubeMetricsSource {
    client: kube::Client,
}

impl KubeMetricsSource {
    pub fn new(client: kube::Client) -> Self {
        Self { client }
    }

    async fn get(&self, path: String) -> Result<Value, Error> {
        let req = http::Request::get(path)
            .body(Vec::new())
            .map_err(|e| Error::Api {
                code: 0,
                reason: "BadRequest".into(),
                message: e.to_string(),
            })?;
        self.client
            .request::<Value>(req)
            .await
            .map_err(crate::informer::list_watch::map_kube_error)
    }
}

impl KubeMetricsSource {
    /// One pod's PodMetrics item (`GET .../namespaces/NS/pods/NAME`: per container usage).
    pub async fn pod_metrics(&self, namespace: &str, pod: &str) -> Result<Value, Error> {
        self.get(format!(
            "/apis/{GROUP_VERSION}/namespaces/{namespace}/pods/{pod}"
        ))
        .await
    }

    /// One node's usage (`GET .../nodes/NAME`, for describe), or why there is none.
    pub async fn node_usage(&self, name: &str) -> Result<Usage, String> {
        let v = self
            .get(format!("/apis/{GROUP_VERSION}/nodes/{name}"))
            .await
            .map_err(|e| Unavailable::of(&e).message())?;
        Usage::of_node_metrics(&v).ok_or_else(|| "metrics n/a: undecodable NodeMetrics".into())
    }
}

impl MetricsSource for KubeMetricsSource {
    fn discover(&self) -> BoxFuture<'_, Result<(), Error>> {
        Box::pin(async move { self.get(format!("/apis/{GROUP_VERSION}")).await.map(|_| ()) })
    }

    fn list(&self, scope: &MetricsScope) -> BoxFuture<'_, Result<HashMap<String, Usage>, Error>> {
        let path = scope.path();
        let scope = scope.clone();
        Box::pin(async move {
            use http_body_util::BodyExt as _;
            let req = http::Request::get(path)
                .body(Vec::new())
                .map_err(|e| Error::Connect(e.to_string()))?;
            let wait = crate::informer::failed_answer::AskedWait::default();
            let res =
                crate::informer::failed_answer::send_checked(&self.client, req, &wait).await?;
            // Read as it arrives, an item at a time: the body is never held whole.
            let mut body = res.into_body();
            let mut reader = MetricsListReader::new(scope);
            while let Some(frame) = body.frame().await {
                let frame = frame.map_err(|e| Error::Connect(format!("metrics body: {e}")))?;
                if let Some(chunk) = frame.data_ref() {
                    reader.feed(chunk)?;
                }
            }
            reader.finish()
        })
    }
}

/// What the usage columns read of a `PodMetrics` / `NodeMetrics` item, borrowed from the list's
/// text: its name and namespace, and each container's (a pod's) or its own (a node's) usage.
/// The rest (labels, timestamps, window) is skipped while parsing.
#[derive(serde::Deserialize)]
pub(super) struct MetricsItem<'a> {
    #[serde(borrow, default)]
    metadata: ItemMeta<'a>,
    #[serde(borrow, default)]
    containers: Option<Vec<ContainerUsage<'a>>>,
    #[serde(borrow, default)]
    usage: Option<UsageText<'a>>,
}

#[derive(serde::Deserialize, Default)]
struct ItemMeta<'a> {
    #[serde(borrow, default)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    namespace: Option<std::borrow::Cow<'a, str>>,
}

#[derive(serde::Deserialize)]
struct ContainerUsage<'a> {
    #[serde(borrow, default)]
    usage: Option<UsageText<'a>>,
}

#[derive(serde::Deserialize)]
struct UsageText<'a> {
    #[serde(borrow, default)]
    cpu: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow, default)]
    memory: Option<std::borrow::Cow<'a, str>>,
}

impl UsageText<'_> {
    fn usage(&self) -> Option<Usage> {
        Some(Usage {
            cpu_n: parse_cpu_nanos(self.cpu.as_deref()?).ok()?,
            mem: parse_bytes(self.memory.as_deref()?).ok()?,
        })
    }
}

#[derive(serde::Deserialize)]
struct MetricsList<'a> {
    #[serde(borrow, default)]
    items: Option<Vec<MetricsItem<'a>>>,
}

/// Usage by informer key from a metrics list's JSON text; items that do not parse are skipped.
///
/// The list is read into [`MetricsItem`]s that borrow from `text`, not into a JSON tree: a
/// `PodMetrics` as a `serde_json::Value` is ~4.7 KB of maps, so 10k pods' list held 47 MB (and
/// a copy of its items as much again) at every poll, 100k pods' nearly 1 GB.
pub fn usage_by_key(scope: &MetricsScope, text: &[u8]) -> Result<HashMap<String, Usage>, Error> {
    let list: MetricsList<'_> =
        serde_json::from_slice(text).map_err(|e| Error::Decode(format!("metrics list: {e}")))?;
    let items = list.items.unwrap_or_default();
    let mut out = HashMap::with_capacity(items.len());
    for item in items {
        fold_item(scope, item, &mut out);
    }
    Ok(out)
}

/// Add one item's usage to `out` under its informer key (a pod's: summed over its containers,
/// none when one container has none); an item without a name or usage adds nothing.
pub(super) fn fold_item(
    scope: &MetricsScope,
    item: MetricsItem<'_>,
    out: &mut HashMap<String, Usage>,
) {
    let (Some(name), ns) = (item.metadata.name, item.metadata.namespace) else {
        return;
    };
    let (key, usage) = match (scope, ns) {
        (MetricsScope::Pods(_), Some(ns)) => {
            let mut u = item.containers.as_ref().map(|_| Usage::default());
            for c in item.containers.iter().flatten() {
                u = match (u, c.usage.as_ref().and_then(UsageText::usage)) {
                    (Some(acc), Some(c)) => Some(Usage {
                        cpu_n: acc.cpu_n.saturating_add(c.cpu_n),
                        mem: acc.mem.saturating_add(c.mem),
                    }),
                    _ => None,
                };
            }
            (format!("{ns}/{name}"), u)
        }
        (MetricsScope::Nodes, _) => (
            name.into_owned(),
            item.usage.as_ref().and_then(UsageText::usage),
        ),
        _ => return,
    };
    if let Some(u) = usage {
        out.insert(key, u);
    }
}

/// Doubling wait after failures: `period`, `2 × period`, ... at most [`MAX_BACKOFF`].
#[derive(Debug, Clone)]
pub struct Backoff {
    period: Duration,
    next: Duration,
}

impl Backoff {
    pub fn new(period: Duration) -> Self {
        Self {
            period,
            next: period,
        }
    }

    /// The wait before the next attempt after a failure.
    pub fn fail(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(MAX_BACKOFF.max(self.period));
        d
    }

    pub fn reset(&mut self) {
        self.next = self.period;
    }
}

/// A running poller; dropping it (or cancelling its token) ends the task.
pub struct MetricsPoller {
    cancel: CancellationToken,
    task: Option<tokio::task::JoinHandle<()>>,
    live: Arc<AtomicUsize>,
}

impl MetricsPoller {
    /// Poll `scopes` every `period` until `cancel` is cancelled, sending updates to `tx`.
    pub fn spawn(
        source: Arc<dyn MetricsSource>,
        scopes: Vec<MetricsScope>,
        period: Duration,
        tx: mpsc::Sender<MetricsUpdate>,
        cancel: CancellationToken,
    ) -> Self {
        let live = Arc::new(AtomicUsize::new(1));
        let guard = LiveGuard(live.clone());
        let token = cancel.clone();
        let task = tokio::spawn(async move {
            let _guard = guard;
            tokio::select! {
                _ = token.cancelled() => {}
                _ = poll_loop(source, scopes, period, tx) => {}
            }
        });
        Self {
            cancel,
            task: Some(task),
            live,
        }
    }

    /// Running tasks of this poller (1 while it runs, 0 once it ended).
    pub fn live(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }

    /// Cancel and wait for the task to end.
    pub async fn stop(mut self) {
        self.cancel.cancel();
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for MetricsPoller {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

struct LiveGuard(Arc<AtomicUsize>);

impl Drop for LiveGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The pollers the runtime runs for the views: one per scope (kind and namespace), shared by the
/// views that asked for it ([`Effect::WatchMetrics`](crate::ui::action::Effect::WatchMetrics)), ended
/// when the last of them closes. Every poller sends into the one bounded channel given to
/// [`MetricsHub::new`]; each poller's token is a child of the hub's, so cancelling that (a
/// context switch, the dashboard exiting) ends them all.
pub struct MetricsHub {
    source: Arc<dyn MetricsSource>,
    period: Duration,
    tx: mpsc::Sender<MetricsUpdate>,
    cancel: CancellationToken,
    pollers: HashMap<MetricsScope, (MetricsPoller, HashSet<ViewId>)>,
    /// Live counters of pollers told to stop, until their task has ended.
    stopping: Vec<Arc<AtomicUsize>>,
}

impl MetricsHub {
    pub fn new(
        source: Arc<dyn MetricsSource>,
        period: Duration,
        tx: mpsc::Sender<MetricsUpdate>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            source,
            period,
            tx,
            cancel,
            pollers: HashMap::new(),
            stopping: Vec::new(),
        }
    }

    /// `view` shows usage of `scope`: start its poller unless one runs.
    pub fn watch(&mut self, view: ViewId, scope: MetricsScope) {
        if let Some((_, views)) = self.pollers.get_mut(&scope) {
            views.insert(view);
            return;
        }
        tracing::debug!(?scope, "metrics poller starts");
        let poller = MetricsPoller::spawn(
            self.source.clone(),
            vec![scope.clone()],
            self.period,
            self.tx.clone(),
            self.cancel.child_token(),
        );
        self.pollers.insert(scope, (poller, HashSet::from([view])));
    }

    /// `view` closed: a poller no view uses any more is cancelled.
    pub fn close_view(&mut self, view: ViewId) {
        let unused: Vec<MetricsScope> = self
            .pollers
            .iter_mut()
            .filter_map(|(scope, (_, views))| {
                (views.remove(&view) && views.is_empty()).then(|| scope.clone())
            })
            .collect();
        for scope in unused {
            if let Some((poller, _)) = self.pollers.remove(&scope) {
                tracing::debug!(?scope, "metrics poller stops");
                self.stopping.push(poller.live.clone());
                drop(poller);
            }
        }
    }

    /// Stop every poller and poll through `source` from now on (a context switch).
    pub fn replace_source(&mut self, source: Arc<dyn MetricsSource>, cancel: CancellationToken) {
        for (_, (poller, _)) in self.pollers.drain() {
            self.stopping.push(poller.live.clone());
        }
        self.source = source;
        self.cancel = cancel;
    }

    /// The scopes polled now.
    pub fn scopes(&self) -> Vec<MetricsScope> {
        self.pollers.keys().cloned().collect()
    }

    /// Poller tasks still running, those told to stop included until they end (for tests and
    /// the informer panel).
    pub fn live_tasks(&mut self) -> usize {
        self.stopping.retain(|l| l.load(Ordering::SeqCst) > 0);
        self.pollers.values().map(|(p, _)| p.live()).sum::<usize>()
            + self
                .stopping
                .iter()
                .map(|l| l.load(Ordering::SeqCst))
                .sum::<usize>()
    }
}

async fn poll_loop(
    source: Arc<dyn MetricsSource>,
    scopes: Vec<MetricsScope>,
    period: Duration,
    tx: mpsc::Sender<MetricsUpdate>,
) {
    let mut backoff = Backoff::new(period);
    let mut reported: Option<Unavailable> = None;
    let mut discovered = false;
    loop {
        let result: Result<Vec<MetricsUpdate>, Error> = async {
            if !discovered {
                source.discover().await?;
                discovered = true;
            }
            let mut out = Vec::with_capacity(scopes.len());
            for scope in &scopes {
                let usage = source.list(scope).await?;
                out.push(MetricsUpdate::Usage {
                    scope: scope.clone(),
                    usage: Arc::new(usage),
                });
            }
            Ok(out)
        }
        .await;
        let wait = match result {
            Ok(updates) => {
                backoff.reset();
                reported = None;
                for u in updates {
                    if tx.send(u).await.is_err() {
                        return;
                    }
                }
                period
            }
            Err(e) => {
                let why = Unavailable::of(&e);
                // A 404 on a list means the API went away: discover again before listing.
                if why == Unavailable::NotServed {
                    discovered = false;
                }
                tracing::debug!(error = %e, "metrics poll failed");
                if reported.as_ref() != Some(&why) {
                    tracing::info!(reason = %why.message(), "metrics API unavailable");
                    if tx
                        .send(MetricsUpdate::Unavailable(why.clone()))
                        .await
                        .is_err()
                    {
                        return;
                    }
                    reported = Some(why);
                }
                backoff.fail()
            }
        };
        tokio::time::sleep(wait).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use parking_lot::Mutex;
    use serde_json::json;

    /// A scriptable source counting its calls.
    #[derive(Default)]
    struct Fake {
        discover: Mutex<Option<Error>>,
        list: Mutex<Option<Error>>,
        discovers: AtomicUsize,
        lists: AtomicUsize,
    }

    impl MetricsSource for Fake {
        fn discover(&self) -> BoxFuture<'_, Result<(), Error>> {
            self.discovers.fetch_add(1, Ordering::SeqCst);
            let r = self.discover.lock().clone();
            Box::pin(async move { r.map_or(Ok(()), Err) })
        }

        fn list(
            &self,
            scope: &MetricsScope,
        ) -> BoxFuture<'_, Result<HashMap<String, Usage>, Error>> {
            self.lists.fetch_add(1, Ordering::SeqCst);
            let r = self.list.lock().clone();
            let item = match scope {
                MetricsScope::Pods(_) => json!({"metadata": {"name": "p", "namespace": "ns"},
                    "containers": [{"name": "c", "usage": {"cpu": "250m", "memory": "1Mi"}}]}),
                MetricsScope::Nodes => json!({"metadata": {"name": "n1"},
                    "usage": {"cpu": "1", "memory": "1Gi"}}),
            };
            let text = json!({"kind": "PodMetricsList", "items": [item]}).to_string();
            let usage = usage_by_key(scope, text.as_bytes());
            Box::pin(async move { r.map_or(usage, Err) })
        }
    }

    fn not_found() -> Error {
        Error::Api {
            code: 404,
            reason: "NotFound".into(),
            message: "the server could not find the requested resource".into(),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn poller_lists_each_scope_once_per_period() {
        let fake = Arc::new(Fake::default());
        let (tx, mut rx) = mpsc::channel(8);
        let p = MetricsPoller::spawn(
            fake.clone(),
            vec![MetricsScope::Pods(None), MetricsScope::Nodes],
            Duration::from_secs(15),
            tx,
            CancellationToken::new(),
        );
        let mut got = Vec::new();
        for _ in 0..4 {
            got.push(rx.recv().await.expect("update"));
        }
        // Two polls: 0 s and 15 s.
        assert_eq!(fake.lists.load(Ordering::SeqCst), 4);
        assert_eq!(fake.discovers.load(Ordering::SeqCst), 1);
        let MetricsUpdate::Usage { scope, usage } = &got[0] else {
            panic!("{got:?}")
        };
        assert_eq!(scope, &MetricsScope::Pods(None));
        assert_eq!(
            usage.get("ns/p"),
            Some(&Usage {
                cpu_n: 250_000_000,
                mem: 1 << 20
            })
        );
        let MetricsUpdate::Usage { usage, .. } = &got[1] else {
            panic!("{got:?}")
        };
        assert!(usage.contains_key("n1"));
        tokio::time::sleep(Duration::from_secs(14)).await;
        assert_eq!(
            fake.lists.load(Ordering::SeqCst),
            4,
            "not before the period"
        );
        p.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn absent_api_is_reported_once_and_retried_with_doubling_backoff() {
        let fake = Arc::new(Fake::default());
        *fake.discover.lock() = Some(not_found());
        let (tx, mut rx) = mpsc::channel(8);
        let p = MetricsPoller::spawn(
            fake.clone(),
            vec![MetricsScope::Pods(None)],
            Duration::from_secs(15),
            tx,
            CancellationToken::new(),
        );
        assert_eq!(
            rx.recv().await,
            Some(MetricsUpdate::Unavailable(Unavailable::NotServed))
        );
        // 0, 15, 45, 105, 225, 465, 765, 1065 s: 8 attempts in 18 minutes, never a tight loop.
        tokio::time::sleep(Duration::from_secs(18 * 60)).await;
        assert_eq!(fake.discovers.load(Ordering::SeqCst), 8);
        assert_eq!(fake.lists.load(Ordering::SeqCst), 0);
        assert!(rx.try_recv().is_err(), "said once");
        // The server gains metrics-server: the next attempt lists.
        *fake.discover.lock() = None;
        let u = rx.recv().await.expect("update");
        assert!(matches!(u, MetricsUpdate::Usage { .. }));
        p.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn forbidden_and_unavailable_lists_say_why_once_each() {
        let fake = Arc::new(Fake::default());
        *fake.list.lock() = Some(Error::Forbidden("no".into()));
        let (tx, mut rx) = mpsc::channel(8);
        let p = MetricsPoller::spawn(
            fake.clone(),
            vec![MetricsScope::Nodes],
            Duration::from_secs(15),
            tx,
            CancellationToken::new(),
        );
        assert_eq!(
            rx.recv().await,
            Some(MetricsUpdate::Unavailable(Unavailable::Forbidden(
                "no".into()
            )))
        );
        tokio::time::sleep(Duration::from_secs(100)).await;
        assert!(rx.try_recv().is_err());
        *fake.list.lock() = Some(Error::Api {
            code: 503,
            reason: "ServiceUnavailable".into(),
            message: "down".into(),
        });
        let u = rx.recv().await.expect("update");
        assert_eq!(
            u,
            MetricsUpdate::Unavailable(Unavailable::ServiceUnavailable("down".into()))
        );
        assert!(u_message_is_one_line(&u));
        p.stop().await;
    }

    fn u_message_is_one_line(u: &MetricsUpdate) -> bool {
        matches!(u, MetricsUpdate::Unavailable(w) if !w.message().contains('\n'))
    }

    #[tokio::test(start_paused = true)]
    async fn cancelling_the_view_token_ends_the_task() {
        let fake = Arc::new(Fake::default());
        let (tx, mut rx) = mpsc::channel(1);
        let cancel = CancellationToken::new();
        let p = MetricsPoller::spawn(
            fake.clone(),
            vec![MetricsScope::Pods(Some("ns".into())), MetricsScope::Nodes],
            Duration::from_secs(15),
            tx,
            cancel.clone(),
        );
        // The channel is full after one update: the poller waits (bounded), it does not pile up.
        let _ = rx.recv().await;
        tokio::time::sleep(Duration::from_secs(60)).await;
        // Poll 1 (2 lists) and poll 2 (2 lists), whose second update waits for room.
        assert_eq!(fake.lists.load(Ordering::SeqCst), 4);
        assert_eq!(p.live(), 1);
        cancel.cancel();
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(p.live(), 0);
        let lists = fake.lists.load(Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(120)).await;
        assert_eq!(fake.lists.load(Ordering::SeqCst), lists);
        drop(p);
    }

    #[tokio::test(start_paused = true)]
    async fn hub_shares_one_poller_per_scope_and_ends_it_with_its_last_view() {
        let fake = Arc::new(Fake::default());
        let (tx, mut rx) = mpsc::channel(8);
        let mut hub = MetricsHub::new(
            fake.clone(),
            Duration::from_secs(15),
            tx,
            CancellationToken::new(),
        );
        hub.watch(1, MetricsScope::Pods(None));
        hub.watch(2, MetricsScope::Pods(None));
        hub.watch(3, MetricsScope::Nodes);
        assert_eq!(hub.live_tasks(), 2, "two scopes, two pollers");
        rx.recv().await.expect("update");
        rx.recv().await.expect("update");
        assert_eq!(fake.lists.load(Ordering::SeqCst), 2, "one list per scope");
        hub.close_view(1);
        assert_eq!(hub.live_tasks(), 2, "view 2 still shows pods");
        hub.close_view(2);
        hub.close_view(3);
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(hub.live_tasks(), 0);
        assert!(hub.scopes().is_empty());
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(
            fake.lists.load(Ordering::SeqCst),
            2,
            "nothing polls any more"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn replacing_the_source_stops_every_poller() {
        let fake = Arc::new(Fake::default());
        let (tx, _rx) = mpsc::channel(8);
        let mut hub = MetricsHub::new(
            fake.clone(),
            Duration::from_secs(15),
            tx,
            CancellationToken::new(),
        );
        hub.watch(1, MetricsScope::Nodes);
        hub.replace_source(fake.clone(), CancellationToken::new());
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(hub.live_tasks(), 0);
        hub.watch(2, MetricsScope::Nodes);
        assert_eq!(
            hub.live_tasks(),
            1,
            "a view opened after the switch polls again"
        );
    }

    #[test]
    fn a_metrics_list_reads_as_usage_by_key_as_the_json_tree_read_it() {
        let pods = json!({"kind": "PodMetricsList", "items": [
            {"metadata": {"name": "a", "namespace": "ns", "labels": {"app": "x"}},
             "timestamp": "2026-01-01T00:00:00Z", "window": "15s",
             "containers": [{"name": "c1", "usage": {"cpu": "250m", "memory": "1Mi"}},
                            {"name": "c2", "usage": {"cpu": "1", "memory": "1Ki"}}]},
            {"metadata": {"name": "bad", "namespace": "ns"},
             "containers": [{"name": "c", "usage": {"cpu": "lots", "memory": "1Mi"}}]},
            {"metadata": {"name": "no-namespace"}, "containers": []},
            {"metadata": {"name": "none", "namespace": "ns"}}
        ]});
        let got = usage_by_key(&MetricsScope::Pods(None), pods.to_string().as_bytes()).unwrap();
        let want: HashMap<String, Usage> = pods["items"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| {
                let key = format!(
                    "{}/{}",
                    i["metadata"]["namespace"].as_str()?,
                    i["metadata"]["name"].as_str()?
                );
                Some((key, Usage::of_pod_metrics(i)?))
            })
            .collect();
        assert_eq!(got, want);
        assert_eq!(
            got["ns/a"],
            Usage {
                cpu_n: 1_250_000_000,
                mem: 1024 * 1024 + 1024
            }
        );
        let nodes = json!({"items": [{"metadata": {"name": "n1"}, "usage": {"cpu": "2", "memory": "1Gi"}}]});
        let got = usage_by_key(&MetricsScope::Nodes, nodes.to_string().as_bytes()).unwrap();
        assert_eq!(
            got["n1"],
            Usage::of_node_metrics(&nodes["items"][0]).unwrap()
        );
        assert!(usage_by_key(&MetricsScope::Nodes, b"{\"items\": 3}").is_err());
    }

    #[test]
    fn scope_paths_are_the_metrics_server_paths() {
        assert_eq!(
            MetricsScope::Pods(Some("shop".into())).path(),
            "/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods"
        );
        assert_eq!(
            MetricsScope::Pods(None).path(),
            "/apis/metrics.k8s.io/v1beta1/pods"
        );
        assert_eq!(
            MetricsScope::Nodes.path(),
            "/apis/metrics.k8s.io/v1beta1/nodes"
        );
    }
}
