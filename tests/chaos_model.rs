//! Faults on a model of kube-apiserver, on tokio's paused clock: each scenario runs a
//! `SharedIndexInformer` over [`ModelServer`], a `ListerWatcher` that behaves as an API server with
//! a watch cache over etcd does for the faults under test, breaks it the way a real server breaks,
//! writes to "etcd" meanwhile, and checks that the informer converges to the server's state, every
//! object and resourceVersion (nothing lost or invented), within a bound measured on tokio's clock
//! from the end of the fault.
//!
//! The model: every write bumps the RV and is logged; a list at RV "" answers the current state
//! (paged with continue tokens over a snapshot), at RV "0" the watch cache answers it whole, at a
//! specific RV with a limit (or with none, without a watch cache) it is an exact read of etcd at
//! that RV; once etcd compacts, exact reads and continue tokens older than the compaction get 410
//! `Expired` with kube-apiserver's messages; a slow server takes a while per listed object; a watch from RV X replays the log after X, then follows it; a
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
    HistoryMark, ListOptions, ListPage, ListerWatcher, WatchEvent, WatchOptions, WatchStream,
    decode_watch_line,
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
    /// etcd's compaction revision: exact reads and continue tokens older than it get 410.
    compacted: u64,
    /// After the first page of the next paged list: write, then compact etcd at the new RV.
    compact_after_first_page: bool,
    /// Whether lists at a specific RV without a limit are served by a watch cache (data at least
    /// as new); without one, every list at a specific RV is an exact read from etcd.
    no_watch_cache: bool,
    /// The next list at a specific RV gets 504 "Too large resource version" (an API server
    /// whose watch cache lags behind the RV, e.g. after failing over to another one).
    too_large_next_list: bool,
    /// A slow server: each listed object (paged or streamed) takes this long to arrive.
    per_object: Option<Duration>,
    /// Every list request: `(resourceVersion, limit, continue?, answer)`.
    list_log: Vec<String>,
    requests: u64,
    probes: u64,
    /// The cluster's identity (`kube-system`'s uid).
    uid: String,
    /// An etcd backup: its revision, objects and write-log length.
    backup: Option<(u64, BTreeMap<String, ConfigMap>, usize)>,
    /// Watches pass every write through, also one older than the RV they started from (an API
    /// server without a watch cache over a restored etcd); kube-apiserver's watch cache sends only
    /// events newer than a watch's RV.
    unfiltered_watches: bool,
    /// History checks answered.
    history_checks: u64,
    /// Restores so far, and the log length the latest cut the log to (open watches follow on
    /// from there).
    restores: u64,
    cut_at: usize,
}

impl Inner {
    /// The objects as they were at `rv` (etcd's MVCC read), from the write log.
    fn state_at(&self, rv: u64) -> Vec<ConfigMap> {
        let mut at: BTreeMap<String, ConfigMap> = BTreeMap::new();
        for (op, o) in self.log.iter().take_while(|(_, o)| rv_of(o) <= rv) {
            let name = o.metadata.name.clone().unwrap_or_default();
            match op {
                Op::Deleted => at.remove(&name),
                Op::Added | Op::Modified => at.insert(name, o.clone()),
            };
        }
        at.into_values().collect()
    }
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
                uid: "uid-1".into(),
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

    /// Take an etcd backup now.
    fn backup(&self) {
        let mut s = self.inner.lock();
        s.backup = Some((s.rv, s.objects.clone(), s.log.len()));
    }

    /// etcd restored from the backup: objects and revision go back (lower RVs than the informer
    /// has seen), the history after the backup is gone, and the watch cache starts over there.
    /// `end_watches`: the API server restarts over it (its open watches end); otherwise they stay
    /// open and silent, or, with `unfiltered_watches`, pass the new writes through.
    fn restore(&self, end_watches: bool) {
        let mut s = self.inner.lock();
        let (rv, objects, log_len) = s.backup.clone().expect("a backup");
        s.rv = rv;
        s.objects = objects;
        s.log.truncate(log_len);
        s.restores += 1;
        s.cut_at = log_len;
        s.cache_start = rv;
        s.compacted = rv;
        s.snapshots.clear();
        if end_watches {
            s.epoch += 1;
        }
        drop(s);
        self.changed.notify_waiters();
    }

    /// Another cluster at the same address: nothing in it, revisions from 0, a new identity; the
    /// API server restarts (open watches end).
    fn recreate(&self) {
        let mut s = self.inner.lock();
        s.rv = 0;
        s.objects.clear();
        s.log.clear();
        s.cache_start = 0;
        s.compacted = 0;
        s.snapshots.clear();
        s.uid = "uid-2".into();
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
            let answer = self.answer_list(&opts);
            let mut s = self.inner.lock();
            s.list_log.push(format!(
                "rv={:?} limit={} continue={} -> {}",
                opts.resource_version.as_deref(),
                opts.limit.unwrap_or(0),
                opts.continue_token.is_some(),
                match &answer {
                    Ok(p) => format!("{} items at {}", p.items.len(), p.resource_version),
                    Err(e) => e.to_string(),
                }
            ));
            let compact = answer.as_ref().is_ok_and(|p| p.continue_token.is_some())
                && std::mem::take(&mut s.compact_after_first_page);
            drop(s);
            if compact {
                // Writes land between two pages, then etcd compacts past the list's snapshot
                // (kube-apiserver compacts every 5 minutes; a slow paged list can straddle one).
                self.put("cm-02", "compacted");
                self.delete("cm-05");
                self.put("cm-later", "a");
                let mut s = self.inner.lock();
                s.compacted = s.rv;
            }
            answer
        }
        .boxed()
    }

    fn list_each<'a>(
        &'a self,
        opts: &ListOptions,
        sink: &'a mut (dyn FnMut(ConfigMap) + Send),
    ) -> BoxFuture<'a, Result<ListPage<ConfigMap>, Error>> {
        let list = self.list(opts);
        async move {
            let mut page = list.await?;
            let per_object = self.inner.lock().per_object;
            for obj in std::mem::take(&mut page.items) {
                if let Some(d) = per_object {
                    tokio::time::sleep(d).await;
                }
                sink(obj);
            }
            Ok(page)
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
                let asked = opts.resource_version.as_deref().unwrap_or("");
                if asked.parse::<u64>().is_ok_and(|n| n > s.rv) {
                    return Err(too_large(asked, s.rv));
                }
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
            let per_object = s.per_object;
            // The watch cache sends only events newer than the watch's RV: a watch from an RV
            // the server has not reached stays silent until it passes it.
            let newer_than = (!s.unfiltered_watches).then_some(from);
            drop(s);
            Ok(self.follow(first, pos, epoch, per_object, newer_than))
        }
        .boxed()
    }

    /// One consistent `limit=1` read and the `kube-system` uid.
    fn history_mark(&self) -> Option<BoxFuture<'_, Result<HistoryMark, Error>>> {
        Some(
            async move {
                self.admit()?;
                let mut s = self.inner.lock();
                s.history_checks += 1;
                Ok(HistoryMark {
                    resource_version: s.rv.to_string(),
                    total: Some(s.objects.len() as u64),
                    cluster_uid: Some(s.uid.clone()),
                })
            }
            .boxed(),
        )
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

/// The 410 kube-apiserver answers for `status`'s message (reason `Expired`), through the
/// client's decoder.
fn expired(message: &str) -> Error {
    match error_event(&format!(
        r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":{},"reason":"Expired","code":410}}"#,
        serde_json::Value::from(message)
    )) {
        WatchEvent::Error(e) => e,
        other => panic!("{other:?}"),
    }
}

/// The 504 a lagging watch cache answers (apimachinery's `NewTooLargeResourceVersionError`).
fn too_large(asked: &str, current: u64) -> Error {
    match error_event(&format!(
        r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"Timeout: Too large resource version: {asked}, current: {current}","reason":"Timeout","details":{{"causes":[{{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}}],"retryAfterSeconds":1}},"code":504}}"#
    )) {
        WatchEvent::Error(e) => e,
        other => panic!("{other:?}"),
    }
}

impl ModelServer {
    /// One list page as kube-apiserver over etcd answers it: a continue token reads its
    /// snapshot (410 once etcd compacted past it); RV "" and "0" read the current state; a
    /// specific RV with a limit (or any, without a watch cache) is an exact read of that RV
    /// (410 once compacted), without a limit the watch cache answers with the current state.
    fn answer_list(&self, opts: &ListOptions) -> Result<ListPage<ConfigMap>, Error> {
        let mut s = self.inner.lock();
        let asked = opts.resource_version.as_deref().unwrap_or("");
        let limit = if asked == "0" && opts.continue_token.is_none() && !s.no_watch_cache {
            // The watch cache answers RV "0" whole, ignoring `limit`.
            0
        } else {
            opts.limit.unwrap_or(0) as usize
        };
        let (snapshot_rv, offset) = match &opts.continue_token {
            Some(tok) => {
                let (rv, off) = tok.split_once(':').expect("our token");
                let rv = rv.parse::<u64>().unwrap();
                if rv < s.compacted {
                    // apiserver's storage/etcd3 `handleCompactedErrorForPaging`.
                    return Err(expired(
                        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
                    ));
                }
                (rv, off.parse::<usize>().unwrap())
            }
            None => {
                if !matches!(asked, "" | "0") && std::mem::take(&mut s.too_large_next_list) {
                    return Err(too_large(asked, s.rv));
                }
                if asked.parse::<u64>().is_ok_and(|n| n > s.rv) {
                    // An RV this server has not reached (after an etcd restore): kube-apiserver
                    // waits up to 3 s for it, then answers 504.
                    return Err(too_large(asked, s.rv));
                }
                let exact = match asked.parse::<u64>() {
                    Ok(rv) if rv > 0 && (limit > 0 || s.no_watch_cache) => Some(rv),
                    _ => None,
                };
                let (rv, items) = match exact {
                    Some(rv) if rv < s.compacted => {
                        // apiserver's storage/etcd3 `interpretListError` for ErrCompacted.
                        return Err(expired(
                            "The resourceVersion for the provided list is too old.",
                        ));
                    }
                    Some(rv) => (rv, s.state_at(rv)),
                    None => (s.rv, s.objects.values().cloned().collect()),
                };
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

    /// A watch stream: `first` (its ADDED events, a streaming list's, `per_object` apart), then
    /// the log from `pos` as it grows (only events newer than `newer_than`, when given), until a
    /// restart. A log cut by a restore is followed from its new end.
    fn follow(
        &self,
        first: Vec<Result<WatchEvent<ConfigMap>, Error>>,
        pos: usize,
        epoch: u64,
        per_object: Option<Duration>,
        newer_than: Option<u64>,
    ) -> WatchStream<ConfigMap> {
        let this = self.0.clone();
        let head = futures::stream::iter(first).then(move |ev| async move {
            if let (Some(d), Ok(WatchEvent::Added(_))) = (per_object, &ev) {
                tokio::time::sleep(d).await;
            }
            ev
        });
        let restores = self.inner.lock().restores;
        let tail = futures::stream::unfold(
            (this, pos, restores),
            move |(srv, mut pos, mut restores)| async move {
                let ev = loop {
                    let notified = srv.changed.notified();
                    tokio::pin!(notified);
                    notified.as_mut().enable();
                    let next = {
                        let s = srv.inner.lock();
                        if s.epoch != epoch {
                            return None;
                        }
                        if s.restores != restores {
                            restores = s.restores;
                            pos = pos.min(s.cut_at);
                        }
                        s.log.get(pos).map(|(op, o)| {
                            let ev = match op {
                                Op::Added => WatchEvent::Added(o.clone()),
                                Op::Modified => WatchEvent::Modified(o.clone()),
                                Op::Deleted => WatchEvent::Deleted(o.clone()),
                            };
                            (newer_than.is_none_or(|from| rv_of(o) > from)).then_some(ev)
                        })
                    };
                    match next {
                        Some(Some(ev)) => break ev,
                        Some(None) => pos += 1,
                        None => notified.await,
                    }
                };
                Some((Ok(ev), (srv, pos + 1, restores)))
            },
        );
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
            // A server that pages its lists (no watch cache answering RV "0" whole).
            s.no_watch_cache = true;
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

/// etcd compacts while a relist pages: the first page of the relist is served, writes land,
/// etcd compacts past the list's snapshot, and the continue token gets 410 `Expired`. As
/// client-go's pager (`FullListIfExpired`) the reflector starts over as one unpaged list at the
/// same RV, and as client-go's `Reflector.list` it reads consistently (RV "") when that RV is
/// expired too. Two servers:
/// - with a watch cache, the relist at the last synced RV meets a lagging cache (504 "Too large
///   resource version"), so it reads consistently from etcd, paged; the full list that replaces
///   the expired pages is a consistent read too;
/// - without a watch cache (RV "0" was paged, so relists are paged exact reads of the last synced
///   RV), the full list at that RV is an exact read of a compacted RV: 410, then a consistent read.
///
/// No page of the old snapshot is mixed with the new state, and the informer converges within
/// one backoff (800 ms, after the StorageReadError that causes the relist) of the fault.
#[tokio::test(start_paused = true)]
async fn an_etcd_compaction_during_a_paged_relist_falls_back_and_converges() {
    let page_expired = "resource version expired (410 Gone): The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";
    let rv_expired = "resource version expired (410 Gone): The resourceVersion for the provided list is too old.";
    for watch_cache in [true, false] {
        let server = ModelServer::new();
        seed(&server, 10);
        server.inner.lock().no_watch_cache = !watch_cache;
        let run = start(&server, false, Some(Duration::from_secs(1)));
        converged(&server, &run, Duration::from_secs(5)).await;
        let x = server.inner.lock().rv;
        let lists_before = run.informer.stats().reflector.unwrap_or_default().lists;
        // A relist (the watch meets a StorageReadError), during whose paging etcd compacts.
        {
            let mut s = server.inner.lock();
            s.list_log.clear();
            s.too_large_next_list = watch_cache;
            s.compact_after_first_page = true;
            s.store_read_error_next_watch = true;
            s.epoch += 1;
        }
        server.changed.notify_waiters();
        let fault_at = Instant::now();
        while run.informer.stats().reflector.unwrap_or_default().lists == lists_before {
            assert!(fault_at.elapsed() < Duration::from_secs(10), "no relist");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let at = converged(&server, &run, Duration::from_secs(10)).await;
        let now = server.inner.lock().rv;
        let x_str = x.to_string();
        let expected = if watch_cache {
            vec![
                format!(
                    "rv=Some({x_str:?}) limit=0 continue=false -> {}",
                    too_large(&x_str, x)
                ),
                format!("rv=Some(\"\") limit=4 continue=false -> 4 items at {x}"),
                format!("rv=None limit=4 continue=true -> {page_expired}"),
                format!("rv=Some(\"\") limit=0 continue=false -> 10 items at {now}"),
            ]
        } else {
            vec![
                format!("rv=Some({x_str:?}) limit=4 continue=false -> 4 items at {x}"),
                format!("rv=None limit=4 continue=true -> {page_expired}"),
                format!("rv=Some({x_str:?}) limit=0 continue=false -> {rv_expired}"),
                format!("rv=Some(\"\") limit=4 continue=false -> 4 items at {now}"),
                format!("rv=None limit=4 continue=true -> 4 items at {now}"),
                format!("rv=None limit=4 continue=true -> 2 items at {now}"),
            ]
        };
        assert_eq!(
            server.inner.lock().list_log,
            expected,
            "watch cache {watch_cache}"
        );
        let st = run.informer.stats().reflector.unwrap_or_default();
        assert_eq!(st.lists, lists_before + 1, "watch cache {watch_cache}");
        assert_eq!(
            run.state().get("default/cm-02").map(String::as_str),
            Some((x + 1).to_string().as_str()),
            "the write between the pages is in"
        );
        assert!(
            at - fault_at <= Duration::from_millis(900),
            "watch cache {watch_cache}: {:?}",
            at - fault_at
        );
        // The watch from the new list's RV follows later writes.
        server.put("cm-03", "after");
        converged(&server, &run, Duration::from_secs(5)).await;
    }
}

/// A slow server sends one listed object per second (paged or streamed): the list takes its
/// time and completes, nothing gives up on it (no error, one list), its progress counts up
/// one object a second for the list view's rows, the store gets the whole list at its end, and
/// the informer then follows writes.
#[tokio::test(start_paused = true)]
async fn a_server_sending_one_object_per_second_completes_its_list_and_rows_progress() {
    const OBJECTS: u64 = 20;
    for streaming in [false, true] {
        let server = ModelServer::new();
        seed(&server, OBJECTS as usize);
        server.inner.lock().per_object = Some(Duration::from_secs(1));
        let started = Instant::now();
        let run = start(&server, streaming, Some(Duration::from_secs(1)));
        tokio::time::sleep(Duration::from_millis(10)).await;
        let status = run.informer.reflector_status().expect("running");
        for second in 0..OBJECTS {
            tokio::time::sleep_until(started + Duration::from_millis(second * 1_000 + 500)).await;
            let progress = status.borrow().list_progress.clone();
            assert_eq!(
                progress.map(|p| p.objects),
                Some(second),
                "streaming {streaming}: progress at {second}.5 s"
            );
            assert!(run.state().is_empty(), "the list is applied whole");
        }
        let at = converged(&server, &run, Duration::from_secs(5)).await;
        assert!(
            at - started <= Duration::from_secs(OBJECTS) + Duration::from_millis(20),
            "streaming {streaming}: {:?}",
            at - started
        );
        let st = run.informer.stats().reflector.unwrap_or_default();
        assert_eq!(
            (st.lists, st.last_error, st.list_progress),
            (1, None, None),
            "streaming {streaming}"
        );
        server.put("cm-00", "later");
        server.delete("cm-01");
        converged(&server, &run, Duration::from_secs(5)).await;
    }
}

/// Issue 38: etcd restored from a backup under a running informer (an API server restarted over
/// it: the open watch ends). The server now has fewer objects at lower resourceVersions; a watch
/// from the informer's RV would be accepted and stay silent. The history check after the cut
/// watch sees the lower revision, the informer lists from scratch, and its store equals the
/// server's, every object and RV, within a second; later writes (still below the old RV) follow.
#[tokio::test(start_paused = true)]
async fn an_etcd_restored_to_an_older_snapshot_is_noticed_and_listed_again() {
    for streaming in [false, true] {
        let server = ModelServer::new();
        seed(&server, 5);
        server.backup();
        for i in 5..12 {
            server.put(&format!("cm-{i:02}"), "a");
        }
        server.put("cm-00", "b");
        let run = start(&server, streaming, Some(Duration::from_secs(1)));
        converged(&server, &run, Duration::from_secs(5)).await;
        tokio::time::sleep(Duration::from_secs(30)).await;
        let before = run.informer.stats().reflector.unwrap_or_default();
        server.restore(true);
        let restored_at = Instant::now();
        assert!(server.state().len() < run.state().len(), "fewer objects");
        let at = converged(&server, &run, Duration::from_secs(10)).await;
        assert!(
            at - restored_at <= Duration::from_secs(1),
            "streaming {streaming}: {:?}",
            at - restored_at
        );
        let st = run.informer.stats().reflector.unwrap_or_default();
        assert_eq!(st.history_resets, 1, "streaming {streaming}");
        assert_eq!(
            st.last_history_reset
                .as_ref()
                .map(|r| (r.from.clone(), r.to.clone())),
            Some((before.last_sync_resource_version, "105".to_string())),
            "streaming {streaming}"
        );
        // Writes after the restore carry RVs below the old ones, and arrive.
        server.put("cm-01", "after");
        server.put("cm-new", "a");
        converged(&server, &run, Duration::from_secs(5)).await;
        run.cancel.cancel();
    }
}

/// A cluster re-created at the same address (a new `kube-system` uid) that has already gone past
/// the old cluster's revision: only the identity tells. The informer lists from scratch and
/// holds exactly the new cluster's objects.
#[tokio::test(start_paused = true)]
async fn a_recreated_cluster_past_the_old_revision_is_noticed_by_its_identity() {
    let server = ModelServer::new();
    seed(&server, 10);
    let run = start(&server, false, Some(Duration::from_secs(1)));
    converged(&server, &run, Duration::from_secs(5)).await;
    let old_rv = server.inner.lock().rv;
    server.recreate();
    for i in 0..(old_rv as usize + 20) {
        server.put(&format!("new-{i:03}"), "a");
    }
    assert!(server.inner.lock().rv > old_rv);
    let at = Instant::now();
    let done = converged(&server, &run, Duration::from_secs(10)).await;
    assert!(done - at <= Duration::from_secs(1), "{:?}", done - at);
    let st = run.informer.stats().reflector.unwrap_or_default();
    assert_eq!(
        st.last_history_reset.map(|r| r.cause),
        Some(kinformer::informer::reflector::RewindCause::NewCluster)
    );
    run.cancel.cancel();
}

/// A watch that passes a restored etcd's new writes through (no watch cache filtering them)
/// delivers an event older than the last one seen: the informer applies nothing of it, lists
/// from scratch and converges to the server's state.
#[tokio::test(start_paused = true)]
async fn a_watch_event_older_than_the_last_one_relists_and_converges() {
    let server = ModelServer::new();
    server.inner.lock().unfiltered_watches = true;
    seed(&server, 4);
    server.backup();
    seed(&server, 8);
    let run = start(&server, false, Some(Duration::from_secs(1)));
    converged(&server, &run, Duration::from_secs(5)).await;
    let checks = server.inner.lock().history_checks;
    server.restore(false);
    server.put("cm-00", "older");
    let at = Instant::now();
    let done = converged(&server, &run, Duration::from_secs(10)).await;
    assert!(done - at <= Duration::from_secs(1), "{:?}", done - at);
    let st = run.informer.stats().reflector.unwrap_or_default();
    assert_eq!(
        st.last_history_reset.map(|r| r.cause),
        Some(kinformer::informer::reflector::RewindCause::OlderWatchEvent)
    );
    assert_eq!(
        server.inner.lock().history_checks,
        checks,
        "the watch event said it: no check needed"
    );
    run.cancel.cancel();
}
