//! Faults on a model of kube-apiserver, on tokio's paused clock: each scenario runs a
//! `SharedIndexInformer` over [`ModelServer`], a `ListerWatcher` that behaves as an API server with
//! a watch cache over etcd does for the faults under test, breaks it the way a real server breaks,
//! writes to "etcd" meanwhile, and checks that the informer converges to the server's state, every
//! object and resourceVersion (nothing lost or invented), within a bound measured on tokio's clock
//! from the end of the fault.
//!
//! The model: every write bumps the RV and is logged; a list answers the current state (paged with
//! continue tokens over a snapshot); a watch from RV X replays the log after X, then follows it; a
//! streaming list sends the state as ADDED events, then the `k8s.io/initial-events-end` bookmark.
//! A restart refuses connections for its downtime and ends every open watch; the server then
//! answers 429 `storage is (re)initializing` while its watch cache rebuilds, and that cache starts
//! at the RV of its rebuild: a watch from an older RV gets a 410 `Expired` ERROR event. ERROR
//! events are decoded from the JSON kube-apiserver writes, through the client's decoder.
//! `/readyz` (the recovery probe) answers once the server accepts connections.
//!
//! The real-time counterpart over HTTP with the demo server is `tests/chaos.rs`.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kinformer::informer::Error;
use kinformer::informer::list_watch::{
    ListOptions, ListPage, ListerWatcher, WatchEvent, WatchOptions, WatchStream, decode_watch_line,
};
use kinformer::informer::reflector::{BackoffConfig, ReflectorConfig};
use kinformer::informer::shared_informer::{InformerConfig, SharedIndexInformer};
use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

// ---------------------------------------------------------------------------------------------
// The model server

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Added,
    Modified,
    Deleted,
}

#[derive(Default)]
struct Inner {
    rv: u64,
    objects: BTreeMap<String, ConfigMap>,
    log: Vec<(Op, ConfigMap)>,
    /// The oldest RV a watch may start from (the watch cache's start).
    cache_start: u64,
    /// Refusing connections until then (a restart).
    down_until: Option<Instant>,
    /// How long the watch cache takes to rebuild once the server is back.
    init_for: Duration,
    /// Answering 429 `storage is (re)initializing` until then.
    initializing_until: Option<Instant>,
    /// Bumped at each restart: watches of an older epoch end (the connection is gone).
    epoch: u64,
    /// Snapshots paged lists read from, by RV.
    snapshots: HashMap<u64, Vec<ConfigMap>>,
    /// Cut the connection of the next list request after this many pages / the next streaming
    /// list after this many objects.
    cut_paged_list_at_page: Option<usize>,
    cut_streaming_list_after: Option<usize>,
    /// Send a 500 `StorageReadError` ERROR event in the next watch, at its start.
    store_read_error_next_watch: bool,
    requests: u64,
    probes: u64,
}

/// What the server and its open watch streams share.
struct Shared {
    inner: Mutex<Inner>,
    changed: Notify,
}

struct ModelServer(Arc<Shared>);

impl std::ops::Deref for ModelServer {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

fn cm(name: &str, rv: u64, data: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some("default".to_string()),
            resource_version: Some(rv.to_string()),
            ..ObjectMeta::default()
        },
        data: Some([("v".to_string(), data.to_string())].into()),
        ..ConfigMap::default()
    }
}

/// The ERROR event kube-apiserver writes for `status`, through the client's decoder.
fn error_event(status: &str) -> WatchEvent<ConfigMap> {
    decode_watch_line(&format!(r#"{{"type":"ERROR","object":{status}}}"#)).expect("an ERROR event")
}

impl ModelServer {
    fn new() -> Arc<Self> {
        Arc::new(Self(Arc::new(Shared {
            inner: Mutex::new(Inner {
                rv: 100,
                cache_start: 1,
                ..Inner::default()
            }),
            changed: Notify::new(),
        })))
    }

    /// Write to etcd (whatever the API server is doing).
    fn put(&self, name: &str, data: &str) {
        let mut s = self.inner.lock();
        s.rv += 1;
        let obj = cm(name, s.rv, data);
        let op = if s.objects.contains_key(name) {
            Op::Modified
        } else {
            Op::Added
        };
        s.objects.insert(name.to_string(), obj.clone());
        s.log.push((op, obj));
        drop(s);
        self.changed.notify_waiters();
    }

    fn delete(&self, name: &str) {
        let mut s = self.inner.lock();
        let Some(mut obj) = s.objects.remove(name) else {
            return;
        };
        s.rv += 1;
        obj.metadata.resource_version = Some(s.rv.to_string());
        s.log.push((Op::Deleted, obj));
        drop(s);
        self.changed.notify_waiters();
    }

    /// Stop serving for `downtime` (every open watch ends); then rebuild the watch cache for
    /// `init`, answering 429 meanwhile.
    fn restart(&self, downtime: Duration, init: Duration) {
        let mut s = self.inner.lock();
        s.down_until = Some(Instant::now() + downtime);
        s.init_for = init;
        s.epoch += 1;
        drop(s);
        self.changed.notify_waiters();
    }

    /// When the server serves lists and watches again (after a restart's downtime and rebuild).
    fn serving_at(&self) -> Option<Instant> {
        let s = self.inner.lock();
        match (s.down_until, s.initializing_until) {
            (Some(d), _) => Some(d + s.init_for),
            (None, Some(i)) => Some(i),
            (None, None) => None,
        }
    }

    /// `(key, rv)` of every object.
    fn state(&self) -> BTreeMap<String, String> {
        let s = self.inner.lock();
        s.objects
            .values()
            .map(|o| {
                (
                    format!("default/{}", o.metadata.name.clone().unwrap_or_default()),
                    o.metadata.resource_version.clone().unwrap_or_default(),
                )
            })
            .collect()
    }

    /// Whether a request is answered now: connection refused while down, 429 while the watch
    /// cache rebuilds. The end of a downtime starts the rebuild, and the cache starts at the RV
    /// of that moment.
    fn admit(&self) -> Result<(), Error> {
        let mut s = self.inner.lock();
        s.requests += 1;
        let now = Instant::now();
        if let Some(d) = s.down_until {
            if now < d {
                return Err(Error::Connect(
                    "tcp connect error: Connection refused".into(),
                ));
            }
            s.down_until = None;
            s.cache_start = s.rv;
            s.initializing_until = Some(d + s.init_for);
        }
        if let Some(i) = s.initializing_until {
            if now < i {
                drop(s);
                return match error_event(
                    r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}"#,
                ) {
                    WatchEvent::Error(e) => Err(e),
                    other => panic!("{other:?}"),
                };
            }
            s.initializing_until = None;
        }
        Ok(())
    }
}

fn page(items: Vec<ConfigMap>, rv: u64, continue_token: Option<String>) -> ListPage<ConfigMap> {
    ListPage {
        items,
        resource_version: rv.to_string(),
        continue_token,
        remaining_item_count: None,
        malformed: 0,
    }
}

impl ListerWatcher<ConfigMap> for ModelServer {
    fn list(&self, opts: &ListOptions) -> BoxFuture<'_, Result<ListPage<ConfigMap>, Error>> {
        let opts = opts.clone();
        async move {
            self.admit()?;
            let mut s = self.inner.lock();
            let limit = opts.limit.unwrap_or(0) as usize;
            let (snapshot_rv, offset) = match &opts.continue_token {
                Some(tok) => {
                    let (rv, off) = tok.split_once(':').expect("our token");
                    (rv.parse::<u64>().unwrap(), off.parse::<usize>().unwrap())
                }
                None => {
                    let rv = s.rv;
                    let items: Vec<ConfigMap> = s.objects.values().cloned().collect();
                    s.snapshots.insert(rv, items);
                    (rv, 0)
                }
            };
            if offset > 0
                && let Some(n) = s.cut_paged_list_at_page
            {
                if n <= 1 {
                    s.cut_paged_list_at_page = None;
                    return Err(Error::Connect("connection reset by peer".into()));
                }
                s.cut_paged_list_at_page = Some(n - 1);
            }
            let all = s.snapshots.get(&snapshot_rv).cloned().unwrap_or_default();
            let end = if limit == 0 {
                all.len()
            } else {
                (offset + limit).min(all.len())
            };
            let next = (end < all.len()).then(|| format!("{snapshot_rv}:{end}"));
            Ok(page(all[offset..end].to_vec(), snapshot_rv, next))
        }
        .boxed()
    }

    fn watch(&self, opts: &WatchOptions) -> BoxFuture<'_, Result<WatchStream<ConfigMap>, Error>> {
        let opts = opts.clone();
        async move {
            self.admit()?;
            let mut s = self.inner.lock();
            let epoch = s.epoch;
            let mut first: Vec<Result<WatchEvent<ConfigMap>, Error>> = Vec::new();
            let from = if opts.send_initial_events {
                let objs: Vec<ConfigMap> = s.objects.values().cloned().collect();
                let cut = s.cut_streaming_list_after.take();
                for (i, o) in objs.into_iter().enumerate() {
                    if cut == Some(i) {
                        first.push(Err(Error::Connect("connection reset by peer".into())));
                        return Ok(futures::stream::iter(first).boxed());
                    }
                    first.push(Ok(WatchEvent::Added(o)));
                }
                first.push(Ok(WatchEvent::Bookmark {
                    resource_version: s.rv.to_string(),
                    initial_events_end: true,
                }));
                s.rv
            } else {
                let from: u64 = opts
                    .resource_version
                    .as_deref()
                    .unwrap_or("0")
                    .parse()
                    .unwrap_or(0);
                if from < s.cache_start {
                    first.push(Ok(error_event(&format!(
                        r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"too old resource version: {from} ({})","reason":"Expired","code":410}}"#,
                        s.cache_start
                    ))));
                    return Ok(futures::stream::iter(first).boxed());
                }
                from
            };
            if std::mem::take(&mut s.store_read_error_next_watch) {
                first.push(Ok(error_event(
                    r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to prepare current and previous objects: corrupt object has been deleted","reason":"StorageReadError","code":500}"#,
                )));
                return Ok(futures::stream::iter(first).boxed());
            }
            // The log's position after `from`.
            let pos = s.log.partition_point(|(_, o)| rv_of(o) <= from);
            drop(s);
            Ok(self.follow(first, pos, epoch))
        }
        .boxed()
    }

    fn probe(&self) -> Option<BoxFuture<'_, Result<(), Error>>> {
        let mut s = self.inner.lock();
        s.probes += 1;
        let down = s.down_until.is_some_and(|d| Instant::now() < d);
        Some(
            futures::future::ready(if down {
                Err(Error::Connect(
                    "tcp connect error: Connection refused".into(),
                ))
            } else {
                Ok(())
            })
            .boxed(),
        )
    }
}

fn rv_of(o: &ConfigMap) -> u64 {
    o.metadata
        .resource_version
        .as_deref()
        .unwrap_or("0")
        .parse()
        .unwrap_or(0)
}

impl ModelServer {
    /// A watch stream: `first`, then the log from `pos` as it grows, until a restart.
    fn follow(
        &self,
        first: Vec<Result<WatchEvent<ConfigMap>, Error>>,
        pos: usize,
        epoch: u64,
    ) -> WatchStream<ConfigMap> {
        let this = self.0.clone();
        let head = futures::stream::iter(first);
        let tail = futures::stream::unfold((this, pos), move |(srv, pos)| async move {
            let ev = loop {
                let notified = srv.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let next = {
                    let s = srv.inner.lock();
                    if s.epoch != epoch {
                        return None;
                    }
                    s.log.get(pos).map(|(op, o)| match op {
                        Op::Added => WatchEvent::Added(o.clone()),
                        Op::Modified => WatchEvent::Modified(o.clone()),
                        Op::Deleted => WatchEvent::Deleted(o.clone()),
                    })
                };
                match next {
                    Some(ev) => break ev,
                    None => notified.await,
                }
            };
            Some((Ok(ev), (srv, pos + 1)))
        });
        head.chain(tail).boxed()
    }
}

// ---------------------------------------------------------------------------------------------
// Informers over the model

struct Run {
    informer: Arc<SharedIndexInformer<ConfigMap>>,
    cancel: CancellationToken,
}

impl Run {
    fn state(&self) -> BTreeMap<String, String> {
        self.informer
            .indexer()
            .list()
            .iter()
            .map(|o| {
                (
                    format!("default/{}", o.metadata.name.clone().unwrap_or_default()),
                    o.metadata.resource_version.clone().unwrap_or_default(),
                )
            })
            .collect()
    }
}

impl Drop for Run {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// client-go's backoff without jitter, so the bounds below are exact.
fn backoff() -> BackoffConfig {
    BackoffConfig {
        jitter: 0.0,
        ..BackoffConfig::default()
    }
}

fn start(server: &Arc<ModelServer>, streaming: bool, probe: Option<Duration>) -> Run {
    let informer = SharedIndexInformer::new(
        server.clone(),
        InformerConfig {
            kind: "configmaps".into(),
            reflector: ReflectorConfig {
                page_size: 4,
                use_streaming_list: streaming,
                backoff: backoff(),
                recovery_probe: probe,
                ..ReflectorConfig::default()
            },
            ..InformerConfig::default()
        },
    );
    let cancel = CancellationToken::new();
    let (inf, c) = (informer.clone(), cancel.clone());
    tokio::spawn(async move { inf.run(c).await });
    Run { informer, cancel }
}

/// Wait (on tokio's clock) until the informer holds exactly the server's state; returns when.
async fn converged(server: &ModelServer, run: &Run, guard: Duration) -> Instant {
    let give_up = Instant::now() + guard;
    loop {
        if run.state() == server.state() {
            return Instant::now();
        }
        assert!(
            Instant::now() < give_up,
            "not converged after {guard:?}: informer {:?}\nserver {:?}",
            run.state(),
            server.state()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

fn seed(server: &ModelServer, n: usize) {
    for i in 0..n {
        server.put(&format!("cm-{i:02}"), "a");
    }
}

/// Writes while the server is down: deletes, updates and creates.
fn write_while_down(server: &ModelServer) {
    server.delete("cm-00");
    server.delete("cm-01");
    server.put("cm-02", "b");
    server.put("cm-new", "a");
}

/// The time from the server serving again (after a restart of `downtime`, and `init` of cache
/// rebuild, with writes meanwhile) to the informer holding its state.
async fn restart_recovery(
    streaming: bool,
    probe: Option<Duration>,
    downtime: Duration,
    init: Duration,
) -> Duration {
    let server = ModelServer::new();
    seed(&server, 10);
    let run = start(&server, streaming, probe);
    converged(&server, &run, Duration::from_secs(5)).await;
    // Some quiet time, so the restart finds a watch that has been open a while.
    tokio::time::sleep(Duration::from_secs(30)).await;
    server.restart(downtime, init);
    tokio::time::sleep(Duration::from_millis(100)).await;
    write_while_down(&server);
    let serving = server.serving_at().expect("restarting");
    tokio::time::sleep_until(serving).await;
    let at = converged(&server, &run, Duration::from_secs(120)).await;
    at.saturating_duration_since(serving)
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/// Issue 25: after an 8 s API server restart the header still said "backing off, retry in 18s"
/// 21 s later. With the recovery probe the informer converges within 2 s of the server serving
/// again; without it (client-go's behaviour) it waits out a backoff grown during the outage.
#[tokio::test(start_paused = true)]
async fn an_informer_converges_within_2s_of_an_8s_apiserver_restart_thanks_to_the_probe() {
    for streaming in [false, true] {
        let with = restart_recovery(
            streaming,
            Some(Duration::from_secs(1)),
            Duration::from_secs(8),
            Duration::ZERO,
        )
        .await;
        assert!(
            with <= Duration::from_secs(2),
            "streaming {streaming}: converged {with:?} after the server was back"
        );
        let without =
            restart_recovery(streaming, None, Duration::from_secs(8), Duration::ZERO).await;
        assert!(
            without > Duration::from_secs(3),
            "streaming {streaming}: without the probe it converged in {without:?}: the scenario no longer tells them apart"
        );
        println!(
            "8 s restart (streaming {streaming}): {with:?} with the probe, {without:?} without"
        );
    }
}

/// A restarted server answers 429 `storage is (re)initializing` while its watch cache rebuilds,
/// then 410 to a watch from the RV before the restart (its cache starts after the writes made
/// while it was down). The informer relists and converges within one (initial) backoff of the
/// cache being ready.
#[tokio::test(start_paused = true)]
async fn a_restart_with_a_rebuilding_watch_cache_429_then_410_converges_within_one_backoff() {
    for streaming in [false, true] {
        let took = restart_recovery(
            streaming,
            Some(Duration::from_secs(1)),
            Duration::from_secs(5),
            Duration::from_secs(3),
        )
        .await;
        // One probe interval to notice the cache is ready, then the 410 and one initial
        // backoff (800 ms) before the relist.
        assert!(
            took <= Duration::from_millis(2_000),
            "streaming {streaming}: {took:?}"
        );
    }
}

/// The connection drops in the middle of a paged list (after the first page) or of a streaming
/// list (after a few objects): nothing half-listed is applied, and the relist converges.
#[tokio::test(start_paused = true)]
async fn a_connection_cut_mid_list_relists_and_converges() {
    for streaming in [false, true] {
        let server = ModelServer::new();
        seed(&server, 10);
        {
            let mut s = server.inner.lock();
            s.cut_paged_list_at_page = Some(1);
            s.cut_streaming_list_after = Some(5);
        }
        let started = Instant::now();
        let run = start(&server, streaming, Some(Duration::from_secs(1)));
        let at = converged(&server, &run, Duration::from_secs(10)).await;
        // One failed list and one backoff (800 ms).
        assert!(
            at - started <= Duration::from_secs(2),
            "streaming {streaming}: {:?}",
            at - started
        );
        let st = run.informer.stats().reflector.unwrap_or_default();
        assert_eq!(st.lists, 1, "streaming {streaming}: one completed list");
        assert!(
            st.last_error.is_some(),
            "streaming {streaming}: the cut was seen"
        );
        // Writes after the cut arrive through the watch.
        server.put("cm-03", "c");
        server.delete("cm-04");
        converged(&server, &run, Duration::from_secs(5)).await;
    }
}

/// A 500 `StorageReadError` ERROR event inside an open watch (a corrupt object's unsafe
/// deletion) makes the informer relist, as client-go does: the object deleted meanwhile leaves
/// the store, and nothing else changes.
#[tokio::test(start_paused = true)]
async fn a_storage_read_error_inside_a_watch_relists_and_converges() {
    let server = ModelServer::new();
    seed(&server, 6);
    let run = start(&server, false, Some(Duration::from_secs(1)));
    converged(&server, &run, Duration::from_secs(5)).await;
    let lists_before = run.informer.stats().reflector.unwrap_or_default().lists;
    // The corrupt object is removed from etcd behind the watch's back (no event for it), and the
    // server reports it on the next watch.
    {
        let mut s = server.inner.lock();
        s.objects.remove("cm-03");
        s.rv += 1;
        s.store_read_error_next_watch = true;
        s.epoch += 1; // end the open watch: the next one carries the error
    }
    server.changed.notify_waiters();
    let fault_at = Instant::now();
    let at = converged(&server, &run, Duration::from_secs(10)).await;
    let st = run.informer.stats().reflector.unwrap_or_default();
    assert!(st.lists > lists_before, "relisted");
    assert!(
        matches!(&st.last_error, Some(e) if e.is_store_read_error()),
        "{:?}",
        st.last_error
    );
    // Within one backoff (800 ms) of the error.
    assert!(
        at - fault_at <= Duration::from_secs(2),
        "{:?}",
        at - fault_at
    );
}
