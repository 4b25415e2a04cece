//! `Reflector`: keeps a store in step with the API server by listing, then watching.
//!
//! client-go counterpart: `tools/cache/reflector.go` (`Reflector.ListAndWatch`, `list`,
//! `watchList`, `watch`, `handleWatch`, `relistResourceVersion`, the backoff manager) and
//! `tools/pager/pager.go` (`ListPager` with `FullListIfExpired`). Written as an explicit state
//! machine ([`State`]) in the manner of kube-runtime's `watcher.rs`, so every transition, and the
//! reason for every relist, is in one `match`.
//!
//! Invariants:
//! - every object received (listed or watched) passes through [`ReflectorStore::prepare`] exactly
//!   once, then reaches the store through exactly one of `add`/`update`/`delete`/`replace`;
//! - `last_sync_resource_version` only moves forward along what the server sent: a completed list
//!   (its RV), a watch event (its object's RV) or a bookmark (its RV); a failed list never changes it;
//! - the first list asks for RV "0" (any, served from the watch cache); later relists ask for the
//!   last synced RV; after the server says that RV is expired or too large, exactly one consistent
//!   list (RV "") follows at once, and a successful list clears that condition;
//! - a page list whose `continue` token expired restarts once as a single unpaged list at the
//!   original RV (the pager's `FullListIfExpired`), so a list never mixes two snapshots;
//! - a watch always starts from `last_sync_resource_version` with bookmarks allowed and a timeout
//!   drawn from `[min_watch_timeout, 2 × min_watch_timeout)`;
//! - a normal watch close re-watches without relisting and without backoff, unless it was a
//!   "very short watch" (under one second and nothing received), which is an error;
//! - every failure other than an expired list RV waits out the backoff before the next request;
//!   the backoff grows 800 ms × 2ⁿ up to 30 s, with jitter, and starts over after 2 minutes
//!   without a backoff;
//! - cancellation is honoured at every await: the reflector drops its request or stream and ends in
//!   [`ReflectorState::Stopped`];
//! - status: the state is published (and receivers woken) at every transition and error; counters
//!   and the RV are updated in place on every event, read them with `borrow()`.
//!
//! # Where this differs from client-go, and why
//! - **Relists stay paged.** client-go turns paging off for relists at a specific RV (so the
//!   watch cache can serve them) unless the server paged the first list. We always send
//!   `limit=page_size`: an unpaged relist of a 150k-pod fleet is a response body of a gigabyte
//!   held at once, against the memory budget (peak ≤ 1.5× steady state). Current API servers serve
//!   paged lists from the watch cache as well.
//! - **5xx on a watch request re-watches** after the backoff, like connection refused and 429;
//!   client-go relists. An API server restarting (503) does not invalidate our RV.
//! - **A refused streaming list is not retried** for the rest of the reflector's life (client-go
//!   tries again at every `ListAndWatch`): the server will not learn the feature meanwhile, and each
//!   attempt costs a request. Transient failures (connect, 429, 5xx, expired RV) do retry it.
//!   A server that silently ignores `sendInitialEvents` is detected when that watch ends without
//!   the initial-events-end bookmark (at the latest after its timeout); the events received so
//!   far are discarded, never half-applied.
//! - **Transport errors in the middle of a watch** (connection reset) count as a close, subject to
//!   the very-short-watch rule, as client-go's probable-EOF handling; other stream failures relist.
//! - **kube's client-side retry** of 429/503/504 is turned off by
//!   [`client_for_informers`](super::list_watch::client_for_informers), so those answers reach the
//!   reflector at once (a "Too large resource version" 504 must trigger the consistent relist).
//!
//! # Example
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use std::sync::Arc;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kinformer::informer::delta_fifo::{DeltaFifo, DeltaFifoOptions};
//! use kinformer::informer::list_watch::{FakeListerWatcher, WatchScript};
//! use kinformer::informer::reflector::{Reflector, ReflectorConfig};
//! use tokio_util::sync::CancellationToken;
//!
//! let mut cm = ConfigMap::default();
//! cm.metadata.name = Some("settings".into());
//! cm.metadata.namespace = Some("default".into());
//! cm.metadata.resource_version = Some("7".into());
//!
//! // A scripted API: one list page, then a watch that stays open.
//! let lw = FakeListerWatcher::shared();
//! lw.push_list_page(vec![cm], "10", None);
//! lw.push_watch(WatchScript::new().then_hang());
//!
//! let fifo = Arc::new(DeltaFifo::new(DeltaFifoOptions::default()));
//! let config = ReflectorConfig { kind: "v1/ConfigMap".into(), ..ReflectorConfig::default() };
//! let reflector = Reflector::new(lw.clone(), fifo.clone(), config);
//! let mut status = reflector.status();
//! let cancel = CancellationToken::new();
//! let task = tokio::spawn(reflector.run(cancel.clone()));
//!
//! status.wait_for(|s| s.lists == 1).await.expect("reflector running");
//! assert_eq!(fifo.list_keys(), vec!["default/settings".to_string()]);
//! assert_eq!(lw.list_calls()[0].resource_version.as_deref(), Some("0"));
//! cancel.cancel();
//! task.await.expect("reflector task");
//! # }
//! ```

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::list_watch::{ListOptions, ListerWatcher, WatchEvent, WatchOptions, WatchStream};
use super::store::{ReflectorStore, meta_namespace_key, resource_version};
use super::{Error, Object};

/// Exponential backoff of the reflector (client-go's `NewExponentialBackoffManager(800ms, 30s,
/// 2min, 2.0, 1.0)`).
#[derive(Debug, Clone, PartialEq)]
pub struct BackoffConfig {
    /// First delay (800 ms).
    pub initial: Duration,
    /// Cap of the un-jittered delay (30 s).
    pub max: Duration,
    /// Growth factor per consecutive backoff (2.0).
    pub factor: f64,
    /// Jitter: each delay is `base × (1 + jitter × r)`, `r` uniform in `[0, 1)` (1.0), as
    /// apimachinery's `wait.Jitter`.
    pub jitter: f64,
    /// The delay starts over from `initial` when the previous backoff began longer ago than this
    /// (2 minutes of health).
    pub reset_after: Duration,
}

impl Default for BackoffConfig {
    fn default() -> Self {
        Self {
            initial: Duration::from_millis(800),
            max: Duration::from_secs(30),
            factor: 2.0,
            jitter: 1.0,
            reset_after: Duration::from_secs(120),
        }
    }
}

/// The backoff state: the next un-jittered delay and when the last backoff started.
#[derive(Debug)]
struct Backoff {
    config: BackoffConfig,
    /// The un-jittered delay the next backoff uses; in `[initial, max]`.
    next: Duration,
    /// When the previous backoff started; `None` before the first.
    last_start: Option<Instant>,
}

impl Backoff {
    fn new(config: BackoffConfig) -> Self {
        Self {
            next: config.initial,
            config,
            last_start: None,
        }
    }

    /// The delay to wait now (client-go's `exponentialBackoffManagerImpl.getNextBackoff`).
    fn next_delay(&mut self, now: Instant) -> Duration {
        if let Some(last) = self.last_start
            && now.saturating_duration_since(last) > self.config.reset_after
        {
            self.next = self.config.initial;
        }
        self.last_start = Some(now);
        let base = self.next;
        let grown = base.mul_f64(self.config.factor.max(1.0));
        self.next = grown
            .min(self.config.max)
            .max(self.config.initial.min(self.config.max));
        let jitter = self.config.jitter.max(0.0);
        if jitter > 0.0 {
            base + base.mul_f64(jitter * rand::random::<f64>())
        } else {
            base
        }
    }
}

/// How a reflector behaves. `Default` gives client-go's defaults.
#[derive(Clone)]
pub struct ReflectorConfig {
    /// What is reflected, for logs and the dashboard (e.g. `"v1/Pod"`).
    pub kind: String,
    /// Page size of paged lists (`limit`); 0 lists unpaged. Default 500.
    pub page_size: u32,
    /// Try a streaming list (`sendInitialEvents=true`) instead of a paged list; falls back to the
    /// paged list if the server refuses it.
    pub use_streaming_list: bool,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// How often to call [`ReflectorStore::resync`] while watching; `None` or zero disables it.
    pub resync_period: Option<Duration>,
    /// Asked at every resync tick; resync happens only if it answers true (or is `None`).
    pub should_resync: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
    /// Watch timeouts are drawn from `[min_watch_timeout, 2 × min_watch_timeout)`. Default 5 min.
    pub min_watch_timeout: Duration,
    pub backoff: BackoffConfig,
    /// A watch that ends sooner than this having received nothing is an error. Default 1 s.
    pub very_short_watch: Duration,
}

impl Default for ReflectorConfig {
    fn default() -> Self {
        Self {
            kind: String::new(),
            page_size: 500,
            use_streaming_list: false,
            label_selector: None,
            field_selector: None,
            resync_period: None,
            should_resync: None,
            min_watch_timeout: Duration::from_secs(300),
            backoff: BackoffConfig::default(),
            very_short_watch: Duration::from_secs(1),
        }
    }
}

impl std::fmt::Debug for ReflectorConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReflectorConfig")
            .field("kind", &self.kind)
            .field("page_size", &self.page_size)
            .field("use_streaming_list", &self.use_streaming_list)
            .field("label_selector", &self.label_selector)
            .field("field_selector", &self.field_selector)
            .field("resync_period", &self.resync_period)
            .field("should_resync", &self.should_resync.is_some())
            .field("min_watch_timeout", &self.min_watch_timeout)
            .field("backoff", &self.backoff)
            .field("very_short_watch", &self.very_short_watch)
            .finish()
    }
}

/// What the reflector is doing, for the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReflectorState {
    /// Listing (paged or streaming).
    Listing,
    /// A watch is open and events are flowing into the store.
    Watching,
    /// Waiting after a failure; the next request goes out at `until`.
    Backoff { until: Instant },
    /// Not running (not started yet, or cancelled).
    Stopped,
}

/// A snapshot of a reflector's progress, published on a `tokio::sync::watch` channel.
#[derive(Debug, Clone, PartialEq)]
pub struct ReflectorStatus {
    pub state: ReflectorState,
    /// The RV the store is in sync with ("" before the first list completes).
    pub last_sync_resource_version: String,
    /// Completed lists (paged or streaming), the first one included.
    pub lists: u64,
    /// Completed lists after the first one.
    pub relists: u64,
    /// Watches opened successfully (a streaming list counts as one).
    pub watches: u64,
    /// Watch events received (added/modified/deleted/bookmark).
    pub events: u64,
    /// Objects skipped because they could not be decoded (lists and watches).
    pub malformed: u64,
    pub last_error: Option<Error>,
    pub last_error_at: Option<SystemTime>,
}

impl Default for ReflectorStatus {
    fn default() -> Self {
        Self {
            state: ReflectorState::Stopped,
            last_sync_resource_version: String::new(),
            lists: 0,
            relists: 0,
            watches: 0,
            events: 0,
            malformed: 0,
            last_error: None,
            last_error_at: None,
        }
    }
}

/// The reflector's states; each carries what it needs, the `match` in [`Reflector::step`] says
/// where each outcome leads.
enum State<K> {
    /// Do a paged list at `relist_resource_version()`; `why` is for the log.
    List { why: &'static str },
    /// Do a streaming list (a watch with `sendInitialEvents=true`).
    StreamList { why: &'static str },
    /// Open a watch from `last_sync_resource_version`.
    Watch,
    /// Consume an open watch.
    Watching {
        stream: WatchStream<K>,
        started: Instant,
        /// Items received on this watch (events, bookmarks, malformed).
        received: u64,
    },
    /// Wait until `until`, then go to `then`.
    Backoff { until: Instant, then: Box<State<K>> },
}

/// Lists and watches one kind in one scope into a [`ReflectorStore`].
pub struct Reflector<K: Object> {
    lw: Arc<dyn ListerWatcher<K>>,
    store: Arc<dyn ReflectorStore<K>>,
    config: ReflectorConfig,
    status: watch::Sender<ReflectorStatus>,
    /// The RV the store is in sync with; mirrored into the status.
    last_sync_rv: String,
    /// client-go's `isLastSyncResourceVersionUnavailable`: the server said our RV is expired or
    /// too large, so the next list must be a consistent read (RV ""). Cleared by a successful list.
    rv_unavailable: bool,
    /// The server refused a streaming list; use paged lists from now on.
    streaming_refused: bool,
    backoff: Backoff,
    /// When the next resync is due (only while watching).
    next_resync: Option<Instant>,
}

impl<K: Object> Reflector<K> {
    /// A reflector that lists and watches through `lw` into `store`.
    pub fn new(
        lw: Arc<dyn ListerWatcher<K>>,
        store: Arc<dyn ReflectorStore<K>>,
        config: ReflectorConfig,
    ) -> Self {
        let (status, _) = watch::channel(ReflectorStatus::default());
        Self {
            lw,
            store,
            backoff: Backoff::new(config.backoff.clone()),
            config,
            status,
            last_sync_rv: String::new(),
            rv_unavailable: false,
            streaming_refused: false,
            next_resync: None,
        }
    }

    /// A receiver of the reflector's status; usable before and after `run`.
    pub fn status(&self) -> watch::Receiver<ReflectorStatus> {
        self.status.subscribe()
    }

    /// Run until `cancel` fires; ends in [`ReflectorState::Stopped`].
    pub async fn run(mut self, cancel: CancellationToken) {
        tracing::debug!(kind = %self.config.kind, "reflector starting");
        self.next_resync = self.resync_period().map(|p| Instant::now() + p);
        let mut state = self.list_state("first list");
        loop {
            let next = tokio::select! {
                biased;
                _ = cancel.cancelled() => break,
                next = self.step(state) => next,
            };
            state = next;
        }
        self.set_state(ReflectorState::Stopped);
        tracing::debug!(kind = %self.config.kind, "reflector stopped");
    }

    fn resync_period(&self) -> Option<Duration> {
        self.config.resync_period.filter(|p| !p.is_zero())
    }

    /// The list to do next: a streaming list when asked for and not refused, else a paged list.
    fn list_state(&self, why: &'static str) -> State<K> {
        if self.config.use_streaming_list && !self.streaming_refused {
            State::StreamList { why }
        } else {
            State::List { why }
        }
    }

    /// client-go's `relistResourceVersion`.
    fn relist_resource_version(&self) -> String {
        if self.rv_unavailable {
            // The server told us our RV is expired or too large: a consistent read from etcd.
            String::new()
        } else if self.last_sync_rv.is_empty() {
            // First list: any version, served from the API server's watch cache.
            "0".to_string()
        } else {
            // Data at least as new as what we have seen, still served from the watch cache.
            self.last_sync_rv.clone()
        }
    }

    fn watch_timeout_seconds(&self) -> u32 {
        let secs = self.config.min_watch_timeout.as_secs_f64() * (1.0 + rand::random::<f64>());
        secs.clamp(1.0, f64::from(u32::MAX)) as u32
    }

    fn set_state(&self, state: ReflectorState) {
        self.status.send_if_modified(|s| {
            let changed = s.state != state;
            s.state = state;
            changed
        });
    }

    fn record_error(&self, err: &Error) {
        self.status.send_modify(|s| {
            s.last_error = Some(err.clone());
            s.last_error_at = Some(SystemTime::now());
        });
    }

    fn set_last_sync_rv(&mut self, rv: &str) {
        if rv.is_empty() || rv == self.last_sync_rv {
            return;
        }
        self.last_sync_rv.clear();
        self.last_sync_rv.push_str(rv);
        self.status.send_if_modified(|s| {
            s.last_sync_resource_version.clear();
            s.last_sync_resource_version.push_str(rv);
            false
        });
    }

    fn count_malformed(&self, n: u64) {
        if n > 0 {
            self.status.send_if_modified(|s| {
                s.malformed += n;
                false
            });
        }
    }

    fn list_completed(&self) {
        self.status.send_modify(|s| {
            if s.lists > 0 {
                s.relists += 1;
            }
            s.lists += 1;
        });
    }

    /// Wait out the backoff, then list again (streaming or paged, see [`Self::list_state`]).
    fn backoff_then_list(&mut self, why: &'static str) -> State<K> {
        let then = self.list_state(why);
        self.backoff(then)
    }

    /// Wait out the backoff, then go to `then`.
    fn backoff(&mut self, then: State<K>) -> State<K> {
        let now = Instant::now();
        let delay = self.backoff.next_delay(now);
        State::Backoff {
            until: now + delay,
            then: Box::new(then),
        }
    }

    /// Run one state to its outcome and return the next state.
    async fn step(&mut self, state: State<K>) -> State<K> {
        match state {
            State::List { why } => {
                self.set_state(ReflectorState::Listing);
                tracing::debug!(kind = %self.config.kind, why, "listing");
                match self.list().await {
                    Ok(()) => State::Watch,
                    Err(err) => {
                        tracing::warn!(kind = %self.config.kind, error = %err, "list failed");
                        self.record_error(&err);
                        // Relist: the store has no consistent state to watch from.
                        self.backoff_then_list("previous list failed")
                    }
                }
            }
            State::StreamList { why } => {
                self.set_state(ReflectorState::Listing);
                tracing::debug!(kind = %self.config.kind, why, "streaming list");
                match self.stream_list().await {
                    Ok((stream, started)) => {
                        self.set_state(ReflectorState::Watching);
                        State::Watching {
                            stream,
                            started,
                            received: 1,
                        }
                    }
                    Err(StreamListError::Retry(err)) => {
                        tracing::warn!(kind = %self.config.kind, error = %err, "streaming list failed; retrying");
                        self.record_error(&err);
                        if err.is_expired() {
                            // Relist consistently: the RV we asked to be at least as new as is
                            // unknown to this server.
                            self.rv_unavailable = true;
                        }
                        self.backoff(State::StreamList {
                            why: "previous streaming list failed",
                        })
                    }
                    Err(StreamListError::Refused(err)) => {
                        tracing::warn!(kind = %self.config.kind, error = %err,
                            "server refused the streaming list; falling back to paged lists");
                        self.record_error(&err);
                        self.streaming_refused = true;
                        // Relist with a paged list at once: making progress beats waiting.
                        State::List {
                            why: "streaming list refused",
                        }
                    }
                }
            }
            State::Watch => self.open_watch().await,
            State::Watching {
                stream,
                started,
                received,
            } => self.watching(stream, started, received).await,
            State::Backoff { until, then } => {
                self.set_state(ReflectorState::Backoff { until });
                tracing::debug!(kind = %self.config.kind, delay = ?until.saturating_duration_since(Instant::now()), "backing off");
                tokio::time::sleep_until(until).await;
                *then
            }
        }
    }

    /// A paged list at `relist_resource_version()`; on an expired or too large RV, one more list
    /// at once as a consistent read (client-go's `Reflector.list`).
    async fn list(&mut self) -> Result<(), Error> {
        let rv = self.relist_resource_version();
        let started = Instant::now();
        let (items, list_rv) = match self.list_pages(&rv).await {
            Ok(done) => done,
            Err(err) if err.is_expired() && !rv.is_empty() => {
                // Relist once with RV "": the RV we asked for is compacted away, or this API
                // server has not caught up with it; only a consistent read can succeed.
                tracing::info!(kind = %self.config.kind, rv = %rv, error = %err,
                    "list RV unavailable; relisting with a consistent read");
                self.rv_unavailable = true;
                self.list_pages("").await?
            }
            Err(err) => {
                if err.is_expired() {
                    self.rv_unavailable = true;
                }
                return Err(err);
            }
        };
        let listed = started.elapsed();
        let count = items.len();
        self.store.replace(items, &list_rv)?;
        tracing::info!(kind = %self.config.kind, items = count, rv = %list_rv,
            list_ms = listed.as_millis() as u64,
            replace_ms = (started.elapsed() - listed).as_millis() as u64, "listed");
        self.rv_unavailable = false;
        self.set_last_sync_rv(&list_rv);
        self.list_completed();
        Ok(())
    }

    /// All pages of one list (client-go's `ListPager` with `FullListIfExpired`). Objects are
    /// prepared page by page, so a page's decoded copies are dropped as soon as the store has
    /// matched them.
    async fn list_pages(&mut self, rv: &str) -> Result<(Vec<Arc<K>>, String), Error> {
        let first = ListOptions {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            limit: (self.config.page_size > 0).then_some(self.config.page_size),
            continue_token: None,
            resource_version: Some(rv.to_string()),
            resource_version_match: None,
        };
        let mut opts = first.clone();
        let mut items: Vec<Arc<K>> = Vec::new();
        loop {
            let page = match self.lw.list(&opts).await {
                Ok(page) => page,
                Err(Error::Gone(msg)) if opts.continue_token.is_some() => {
                    // The continue token expired mid-list: the snapshot it pointed into is gone.
                    // Start over as one unpaged list at the original RV so the result is still
                    // one snapshot (client-go's pager, FullListIfExpired).
                    tracing::info!(kind = %self.config.kind, error = %msg,
                        "continue token expired; falling back to a full list");
                    items.clear();
                    let full = ListOptions {
                        limit: None,
                        ..first.clone()
                    };
                    let page = self.lw.list(&full).await?;
                    self.count_malformed(page.malformed as u64);
                    items.reserve(page.items.len());
                    items.extend(page.items.into_iter().map(|o| self.store.prepare(o)));
                    return Ok((items, page.resource_version));
                }
                Err(err) => return Err(err),
            };
            self.count_malformed(page.malformed as u64);
            items.reserve(page.items.len());
            items.extend(page.items.into_iter().map(|o| self.store.prepare(o)));
            match page.continue_token {
                Some(token) if !token.is_empty() => {
                    // The token pins the snapshot; resourceVersion must not be sent with it.
                    opts = ListOptions {
                        continue_token: Some(token),
                        resource_version: None,
                        resource_version_match: None,
                        ..first.clone()
                    };
                }
                _ => return Ok((items, page.resource_version)),
            }
        }
    }

    /// A streaming list (client-go's `watchList`): a watch with `sendInitialEvents=true` whose
    /// events up to the bookmark annotated `k8s.io/initial-events-end` are the list. On success the
    /// store has been replaced and the same watch continues.
    async fn stream_list(&mut self) -> Result<(WatchStream<K>, Instant), StreamListError> {
        let rv = if self.rv_unavailable {
            String::new()
        } else {
            self.last_sync_rv.clone()
        };
        let opts = WatchOptions {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            resource_version: Some(rv),
            timeout_seconds: Some(self.watch_timeout_seconds()),
            allow_watch_bookmarks: true,
            send_initial_events: true,
            resource_version_match: Some("NotOlderThan".to_string()),
        };
        let started = Instant::now();
        let mut stream = self
            .lw
            .watch(&opts)
            .await
            .map_err(StreamListError::classify)?;
        self.status.send_modify(|s| s.watches += 1);
        let mut initial: HashMap<String, Arc<K>> = HashMap::new();
        loop {
            let Some(item) = stream.next().await else {
                // The server closed the watch without the initial-events-end bookmark: it does not
                // support streaming lists (or ignored sendInitialEvents).
                return Err(StreamListError::Refused(Error::Api {
                    code: 0,
                    reason: "StreamingListUnsupported".to_string(),
                    message: "watch ended before the initial-events-end bookmark".to_string(),
                }));
            };
            let event = item.map_err(StreamListError::classify)?;
            self.status.send_if_modified(|s| {
                s.events += 1;
                false
            });
            match event {
                WatchEvent::Added(obj) | WatchEvent::Modified(obj) => {
                    let obj = self.store.prepare(obj);
                    match meta_namespace_key(obj.as_ref()) {
                        Ok(key) => {
                            initial.insert(key, obj);
                        }
                        Err(err) => {
                            tracing::warn!(kind = %self.config.kind, error = %err, "skipping object without a key");
                        }
                    }
                }
                WatchEvent::Deleted(obj) => {
                    if let Ok(key) = meta_namespace_key(&obj) {
                        initial.remove(&key);
                    }
                }
                WatchEvent::Bookmark {
                    resource_version,
                    initial_events_end,
                } => {
                    if initial_events_end {
                        let list: Vec<Arc<K>> = initial.into_values().collect();
                        self.store
                            .replace(list, &resource_version)
                            .map_err(StreamListError::Retry)?;
                        self.rv_unavailable = false;
                        self.set_last_sync_rv(&resource_version);
                        self.list_completed();
                        return Ok((stream, started));
                    }
                }
                WatchEvent::Error(err) => return Err(StreamListError::classify(err)),
                WatchEvent::Malformed(_) => self.count_malformed(1),
            }
        }
    }

    /// Open a watch from the last synced RV (client-go's `Reflector.watch`, request part).
    async fn open_watch(&mut self) -> State<K> {
        let opts = WatchOptions {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            resource_version: Some(self.last_sync_rv.clone()),
            timeout_seconds: Some(self.watch_timeout_seconds()),
            allow_watch_bookmarks: true,
            send_initial_events: false,
            resource_version_match: None,
        };
        match self.lw.watch(&opts).await {
            Ok(stream) => {
                // The watch's age counts from when it is open (as `handleWatch` does), so a
                // slow request is not mistaken for a long-lived watch.
                let started = Instant::now();
                self.status.send_modify(|s| {
                    s.watches += 1;
                    s.state = ReflectorState::Watching;
                });
                State::Watching {
                    stream,
                    started,
                    received: 0,
                }
            }
            Err(err) => {
                tracing::warn!(kind = %self.config.kind, error = %err, "watch request failed");
                self.record_error(&err);
                if is_retriable_watch_error(&err) {
                    // Server unreachable or overloaded: our RV is still good, so back off and
                    // watch again from it; no relist.
                    self.backoff(State::Watch)
                } else {
                    // The RV is expired (relist at the last synced RV, which the watch cache may
                    // still serve; if not, the list falls back to a consistent read) or the
                    // request is refused for another reason: relist after the backoff.
                    self.backoff_then_list("watch request failed")
                }
            }
        }
    }

    /// Consume an open watch until it ends (client-go's `handleWatch`), resyncing on schedule.
    async fn watching(
        &mut self,
        mut stream: WatchStream<K>,
        started: Instant,
        mut received: u64,
    ) -> State<K> {
        loop {
            let resync_at = self.next_resync;
            let item = tokio::select! {
                item = stream.next() => item,
                _ = sleep_until_opt(resync_at) => {
                    self.resync();
                    continue;
                }
            };
            match item {
                None => return self.watch_closed(started, received, None),
                Some(Err(err @ Error::Connect(_))) => {
                    // The connection dropped: like client-go's probable-EOF handling, this is
                    // a close, not a failure.
                    return self.watch_closed(started, received, Some(err));
                }
                Some(Err(err)) => {
                    tracing::warn!(kind = %self.config.kind, error = %err, "watch stream failed");
                    self.record_error(&err);
                    // Relist: events may have been lost with the undecodable part of the stream.
                    return self.backoff_then_list("watch stream failed");
                }
                Some(Ok(event)) => {
                    received += 1;
                    if let Some(next) = self.handle_event(event) {
                        return next;
                    }
                }
            }
        }
    }

    fn resync(&mut self) {
        let Some(period) = self.resync_period() else {
            self.next_resync = None;
            return;
        };
        self.next_resync = Some(Instant::now() + period);
        let should = self.config.should_resync.as_ref().is_none_or(|f| f());
        if should {
            tracing::trace!(kind = %self.config.kind, "resync");
            if let Err(err) = self.store.resync() {
                tracing::warn!(kind = %self.config.kind, error = %err, "resync failed");
                self.record_error(&err);
            }
        }
    }

    /// Apply one watch event; `Some(next)` ends the watch.
    fn handle_event(&mut self, event: WatchEvent<K>) -> Option<State<K>> {
        let (obj, op): (K, Op) = match event {
            WatchEvent::Added(o) => (o, Op::Add),
            WatchEvent::Modified(o) => (o, Op::Update),
            WatchEvent::Deleted(o) => (o, Op::Delete),
            WatchEvent::Bookmark {
                resource_version, ..
            } => {
                // A bookmark carries no object: it only advances our RV.
                self.count_event();
                self.set_last_sync_rv(&resource_version);
                return None;
            }
            WatchEvent::Malformed(msg) => {
                tracing::debug!(kind = %self.config.kind, %msg, "malformed watch event skipped");
                self.count_malformed(1);
                return None;
            }
            WatchEvent::Error(err) => {
                tracing::info!(kind = %self.config.kind, error = %err, "watch ended by an ERROR event");
                self.record_error(&err);
                // client-go keeps `isLastSyncResourceVersionUnavailable` false here: a list at
                // the last synced RV already means "at least as new", so relist from it; if the
                // server cannot serve it either, the list falls back to a consistent read.
                let why = if err.is_expired() {
                    "watch RV expired"
                } else {
                    "watch ERROR event"
                };
                return Some(self.backoff_then_list(why));
            }
        };
        self.count_event();
        let obj = self.store.prepare(obj);
        // A second handle (a refcount, not a copy) to read the RV after the store took the object.
        let seen = Arc::clone(&obj);
        let res = match op {
            Op::Add => self.store.add(obj),
            Op::Update => self.store.update(obj),
            Op::Delete => self.store.delete(obj),
        };
        if let Err(err) = res {
            tracing::warn!(kind = %self.config.kind, error = %err, ?op, "store rejected a watch event");
            self.record_error(&err);
        }
        self.set_last_sync_rv(resource_version(seen.as_ref()));
        None
    }

    fn count_event(&self) {
        self.status.send_if_modified(|s| {
            s.events += 1;
            false
        });
    }

    /// The watch ended without an ERROR event.
    fn watch_closed(&mut self, started: Instant, received: u64, cause: Option<Error>) -> State<K> {
        let lasted = started.elapsed();
        if received == 0 && lasted < self.config.very_short_watch {
            // A watch that closes at once with nothing received is a symptom (a proxy cutting
            // connections, a server refusing quietly): an error. Back off, then relist as
            // client-go does after any watch error.
            let err = Error::Connect(format!(
                "very short watch: lasted {lasted:?} and received no items{}",
                cause.map(|c| format!(" ({c})")).unwrap_or_default()
            ));
            tracing::warn!(kind = %self.config.kind, error = %err, "unexpected watch close");
            self.record_error(&err);
            return self.backoff_then_list("very short watch");
        }
        tracing::debug!(kind = %self.config.kind, ?lasted, received, "watch closed; watching again");
        // A normal close (server timeout, load balancing): our RV is good, re-watch from it at
        // once without relisting.
        State::Watch
    }
}

#[derive(Debug, Clone, Copy)]
enum Op {
    Add,
    Update,
    Delete,
}

/// Why a streaming list failed.
enum StreamListError {
    /// Transient or RV-related: try the streaming list again after the backoff.
    Retry(Error),
    /// The server does not do streaming lists: fall back to paged lists.
    Refused(Error),
}

impl StreamListError {
    fn classify(err: Error) -> Self {
        if is_retriable_watch_error(&err) || err.is_expired() {
            StreamListError::Retry(err)
        } else {
            StreamListError::Refused(err)
        }
    }
}

/// client-go's `isWatchErrorRetriable` (connection refused, 429), plus 5xx: the server is
/// unreachable or overloaded, nothing is wrong with our RV.
fn is_retriable_watch_error(err: &Error) -> bool {
    match err {
        Error::Connect(_) | Error::TooManyRequests(_) => true,
        Error::Api { code, .. } => *code >= 500,
        _ => false,
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => futures::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;
    use parking_lot::Mutex;
    use tokio::sync::Notify;

    use super::*;
    use crate::informer::list_watch::{FakeListerWatcher, ListPage, WatchScript};

    fn cm(name: &str, rv: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.to_string()),
                namespace: Some("default".to_string()),
                resource_version: Some(rv.to_string()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    fn tag(obj: &ConfigMap) -> String {
        format!(
            "{}@{}",
            obj.metadata.name.as_deref().unwrap_or("?"),
            resource_version(obj)
        )
    }

    #[derive(Debug, Clone, PartialEq)]
    enum Rec {
        Add(String),
        Update(String),
        Delete(String),
        Replace(Vec<String>, String),
        Resync,
    }

    /// Records what the reflector writes, in order.
    #[derive(Default)]
    struct RecordingStore {
        ops: Mutex<Vec<Rec>>,
        prepared: Mutex<u64>,
        changed: Notify,
    }

    impl RecordingStore {
        fn push(&self, rec: Rec) {
            self.ops.lock().push(rec);
            self.changed.notify_waiters();
        }
        fn ops(&self) -> Vec<Rec> {
            self.ops.lock().clone()
        }
        async fn wait_ops(&self, n: usize) {
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if self.ops.lock().len() >= n {
                    return;
                }
                notified.await;
            }
        }
    }

    impl ReflectorStore<ConfigMap> for RecordingStore {
        fn add(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
            self.push(Rec::Add(tag(&obj)));
            Ok(())
        }
        fn update(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
            self.push(Rec::Update(tag(&obj)));
            Ok(())
        }
        fn delete(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
            self.push(Rec::Delete(tag(&obj)));
            Ok(())
        }
        fn replace(&self, list: Vec<Arc<ConfigMap>>, rv: &str) -> Result<(), Error> {
            let mut tags: Vec<String> = list.iter().map(|o| tag(o)).collect();
            tags.sort();
            self.push(Rec::Replace(tags, rv.to_string()));
            Ok(())
        }
        fn prepare(&self, obj: ConfigMap) -> Arc<ConfigMap> {
            *self.prepared.lock() += 1;
            Arc::new(obj)
        }
        fn resync(&self) -> Result<(), Error> {
            self.push(Rec::Resync);
            Ok(())
        }
    }

    fn config() -> ReflectorConfig {
        ReflectorConfig {
            kind: "v1/ConfigMap".to_string(),
            backoff: BackoffConfig {
                jitter: 0.0,
                ..BackoffConfig::default()
            },
            ..ReflectorConfig::default()
        }
    }

    struct Running {
        store: Arc<RecordingStore>,
        status: watch::Receiver<ReflectorStatus>,
        cancel: CancellationToken,
        task: tokio::task::JoinHandle<()>,
        started: Instant,
    }

    fn start(fake: &Arc<FakeListerWatcher<ConfigMap>>, config: ReflectorConfig) -> Running {
        let store = Arc::new(RecordingStore::default());
        let reflector = Reflector::new(fake.clone(), store.clone(), config);
        let status = reflector.status();
        let cancel = CancellationToken::new();
        let task = tokio::spawn(reflector.run(cancel.clone()));
        Running {
            store,
            status,
            cancel,
            task,
            started: Instant::now(),
        }
    }

    impl Running {
        async fn stop(self) -> ReflectorStatus {
            self.cancel.cancel();
            let _ = self.task.await;
            self.status.borrow().clone()
        }
    }

    fn tags(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn rvs(calls: &[ListOptions]) -> Vec<Option<String>> {
        calls.iter().map(|c| c.resource_version.clone()).collect()
    }

    #[test]
    fn reflector_run_future_is_send() {
        fn assert_send<T: Send>(_: &T) {}
        let fake: Arc<FakeListerWatcher<ConfigMap>> = FakeListerWatcher::shared();
        let store = Arc::new(RecordingStore::default());
        let reflector = Reflector::new(fake, store, config());
        let fut = reflector.run(CancellationToken::new());
        assert_send(&fut);
    }

    #[tokio::test(start_paused = true)]
    async fn first_list_uses_rv_zero_and_pages_with_continue() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5"), cm("b", "7")], "10", Some("c1"));
        fake.push_list_page(vec![cm("c", "9")], "10", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(1).await;

        let lists = fake.list_calls();
        assert_eq!(lists.len(), 2);
        assert_eq!(lists[0].resource_version.as_deref(), Some("0"));
        assert_eq!(lists[0].limit, Some(500));
        assert_eq!(lists[0].continue_token, None);
        assert_eq!(lists[1].continue_token.as_deref(), Some("c1"));
        assert_eq!(lists[1].limit, Some(500));
        assert_eq!(
            lists[1].resource_version, None,
            "rv must not be sent with continue"
        );
        assert_eq!(
            run.store.ops(),
            vec![Rec::Replace(tags(&["a@5", "b@7", "c@9"]), "10".to_string())]
        );
        assert_eq!(*run.store.prepared.lock(), 3);
        let status = run.stop().await;
        assert_eq!(status.lists, 1);
        assert_eq!(status.relists, 0);
        assert_eq!(status.last_sync_resource_version, "10");
        assert_eq!(status.state, ReflectorState::Stopped);
    }

    #[tokio::test(start_paused = true)]
    async fn relist_after_gone_uses_consistent_read() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        // The watch's RV is compacted away.
        fake.push_watch(WatchScript::new().error_event(Error::Gone("too old".into())));
        // The relist at the last synced RV is refused too...
        fake.push_list_error(Error::Gone("too old".into()));
        // ...so the reflector lists at once with a consistent read.
        fake.push_list_page(vec![cm("a", "15"), cm("b", "18")], "20", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(2).await;

        assert_eq!(
            rvs(&fake.list_calls()),
            vec![Some("0".into()), Some("10".into()), Some("".into())]
        );
        let times = fake.list_call_times();
        // One backoff (800 ms, no jitter) after the ERROR event, none between the two relists.
        assert_eq!(times[1] - times[0], Duration::from_millis(800));
        assert_eq!(times[2], times[1]);
        assert_eq!(
            fake.watch_calls()[1].resource_version.as_deref(),
            Some("20")
        );
        assert_eq!(
            run.store.ops().last(),
            Some(&Rec::Replace(tags(&["a@15", "b@18"]), "20".into()))
        );
        let status = run.stop().await;
        assert_eq!(status.relists, 1);
        assert_eq!(status.last_sync_resource_version, "20");
        assert!(matches!(status.last_error, Some(Error::Gone(_))));
    }

    #[tokio::test(start_paused = true)]
    async fn too_large_resource_version_relists_with_consistent_read() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_error(Error::TooLargeResourceVersion("lagging".into()));
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(1).await;
        assert_eq!(
            rvs(&fake.list_calls()),
            vec![Some("0".into()), Some("".into())]
        );
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn expired_continue_token_falls_back_to_full_list() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", Some("c1"));
        fake.push_list_error(Error::Gone("continue token expired".into()));
        fake.push_list_page(vec![cm("a", "5"), cm("b", "11")], "12", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(1).await;

        let lists = fake.list_calls();
        assert_eq!(lists.len(), 3);
        assert_eq!(lists[1].continue_token.as_deref(), Some("c1"));
        // The fallback is one unpaged list at the original RV, without the token.
        assert_eq!(lists[2].continue_token, None);
        assert_eq!(lists[2].limit, None);
        assert_eq!(lists[2].resource_version.as_deref(), Some("0"));
        // Only the full list reaches the store: no page of the abandoned snapshot.
        assert_eq!(
            run.store.ops(),
            vec![Rec::Replace(tags(&["a@5", "b@11"]), "12".into())]
        );
        assert_eq!(
            fake.watch_calls()[0].resource_version.as_deref(),
            Some("12")
        );
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn watch_starts_from_list_rv_with_bookmarks() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(
            &fake,
            ReflectorConfig {
                label_selector: Some("app=web".into()),
                field_selector: Some("metadata.name!=x".into()),
                min_watch_timeout: Duration::from_secs(10),
                ..config()
            },
        );
        fake.wait_for_watch_calls(1).await;
        let w = &fake.watch_calls()[0];
        assert_eq!(w.resource_version.as_deref(), Some("10"));
        assert!(w.allow_watch_bookmarks);
        assert!(!w.send_initial_events);
        let timeout = w.timeout_seconds.unwrap_or(0);
        assert!(
            (10..20).contains(&timeout),
            "timeout {timeout} not in [10, 20)"
        );
        assert_eq!(w.label_selector.as_deref(), Some("app=web"));
        assert_eq!(w.field_selector.as_deref(), Some("metadata.name!=x"));
        assert_eq!(
            fake.list_calls()[0].label_selector.as_deref(),
            Some("app=web")
        );
        let status = run.status.borrow().clone();
        assert_eq!(status.state, ReflectorState::Watching);
        assert_eq!(status.watches, 1);
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn watch_timeouts_are_spread_between_min_and_twice_min() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![], "10", None);
        for _ in 0..20 {
            // Each lasts 2 s with an event, then closes normally: a re-watch follows.
            fake.push_watch(
                WatchScript::new()
                    .bookmark("10", false)
                    .sleep(Duration::from_secs(2)),
            );
        }
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(21).await;
        let timeouts: Vec<u32> = fake
            .watch_calls()
            .iter()
            .map(|w| w.timeout_seconds.unwrap_or(0))
            .collect();
        assert!(
            timeouts.iter().all(|t| (300..600).contains(t)),
            "{timeouts:?}"
        );
        let first = timeouts[0];
        assert!(
            timeouts.iter().any(|t| *t != first),
            "timeouts not randomized: {timeouts:?}"
        );
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn bookmark_advances_rv_without_event() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(
            WatchScript::new()
                .bookmark("15", false)
                .sleep(Duration::from_secs(2)),
        );
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(2).await;
        assert_eq!(
            run.store.ops().len(),
            1,
            "a bookmark must not reach the store"
        );
        assert_eq!(
            fake.watch_calls()[1].resource_version.as_deref(),
            Some("15")
        );
        assert_eq!(fake.list_calls().len(), 1);
        let status = run.stop().await;
        assert_eq!(status.last_sync_resource_version, "15");
        assert_eq!(status.events, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn normal_watch_close_rewatches_without_relist() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(
            WatchScript::new()
                .added(cm("d", "11"))
                .modified(cm("a", "12"))
                .deleted(cm("d", "13"))
                .then_close(),
        );
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(2).await;
        assert_eq!(fake.list_calls().len(), 1, "a normal close must not relist");
        assert_eq!(
            fake.watch_calls()[1].resource_version.as_deref(),
            Some("13")
        );
        let times = fake.watch_call_times();
        assert_eq!(
            times[1], times[0],
            "a normal close re-watches without backoff"
        );
        assert_eq!(
            run.store.ops(),
            vec![
                Rec::Replace(tags(&["a@5"]), "10".into()),
                Rec::Add("d@11".into()),
                Rec::Update("a@12".into()),
                Rec::Delete("d@13".into()),
            ]
        );
        let status = run.stop().await;
        assert_eq!(status.events, 3);
        assert_eq!(status.watches, 2);
        assert_eq!(status.last_error, None);
    }

    #[tokio::test(start_paused = true)]
    async fn gone_during_watch_relists() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(
            WatchScript::new()
                .modified(cm("a", "11"))
                .error_event(Error::Gone("compacted".into()))
                .then_hang(),
        );
        fake.push_list_page(vec![cm("a", "30")], "30", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(2).await;
        // The relist asks for the last synced RV (what the watch delivered), not RV "".
        assert_eq!(
            rvs(&fake.list_calls()),
            vec![Some("0".into()), Some("11".into())]
        );
        let times = fake.list_call_times();
        assert_eq!(times[1] - times[0], Duration::from_millis(800));
        assert_eq!(
            fake.watch_calls()[1].resource_version.as_deref(),
            Some("30")
        );
        assert_eq!(
            run.store.ops().last(),
            Some(&Rec::Replace(tags(&["a@30"]), "30".into()))
        );
        let status = run.stop().await;
        assert_eq!(status.relists, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn very_short_watch_backs_off() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        // Closes at once with nothing received: an error.
        fake.push_watch(WatchScript::new().then_close());
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        // Lasts two seconds with nothing received: a normal close.
        fake.push_watch(WatchScript::new().sleep(Duration::from_secs(2)));
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(3).await;

        let status = run.status.borrow().clone();
        let err = status.last_error.map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("very short watch"), "{err}");
        let lists = fake.list_call_times();
        let watches = fake.watch_call_times();
        assert_eq!(lists.len(), 2, "only the very short watch relists");
        assert_eq!(lists[1] - watches[0], Duration::from_millis(800));
        assert_eq!(watches[2] - watches[1], Duration::from_secs(2));
        run.stop().await;
    }

    #[test]
    fn backoff_doubles_to_cap_and_resets_after_health() {
        let mut b = Backoff::new(BackoffConfig {
            jitter: 0.0,
            ..BackoffConfig::default()
        });
        let t0 = Instant::now();
        let delays: Vec<u64> = (0..8)
            .map(|i| b.next_delay(t0 + Duration::from_secs(i)).as_millis() as u64)
            .collect();
        assert_eq!(
            delays,
            vec![800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]
        );
        // Two minutes since the last backoff began: start over.
        let later = t0 + Duration::from_secs(7) + Duration::from_secs(121);
        assert_eq!(b.next_delay(later), Duration::from_millis(800));
        // Not yet healthy for two minutes: keep growing.
        let soon = later + Duration::from_secs(60);
        assert_eq!(b.next_delay(soon), Duration::from_millis(1600));

        // With client-go's jitter of 1.0 every delay is in [base, 2 × base).
        let mut j = Backoff::new(BackoffConfig::default());
        for (i, base) in [800u64, 1600, 3200, 6400, 12800, 25600, 30000]
            .into_iter()
            .enumerate()
        {
            let d = j.next_delay(t0 + Duration::from_secs(i as u64)).as_millis() as u64;
            assert!(
                (base..2 * base).contains(&d),
                "{d} not in [{base}, {})",
                2 * base
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn repeated_watch_failures_back_off_exponentially() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![], "10", None);
        for _ in 0..3 {
            fake.push_watch_error(Error::Connect("connection refused".into()));
        }
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(4).await;
        let t = fake.watch_call_times();
        let gaps: Vec<Duration> = t.windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(
            gaps,
            vec![
                Duration::from_millis(800),
                Duration::from_millis(1600),
                Duration::from_millis(3200)
            ]
        );
        assert_eq!(
            fake.list_calls().len(),
            1,
            "connection refused must not relist"
        );
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn too_many_requests_backs_off_and_rewatches() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch_error(Error::TooManyRequests("slow down".into()));
        fake.push_watch_error(Error::Api {
            code: 503,
            reason: "ServiceUnavailable".into(),
            message: "apiserver restarting".into(),
        });
        fake.push_watch(WatchScript::new().then_hang());
        let mut run = start(&fake, config());
        // The reflector reports when it will try again.
        let backoff = run
            .status
            .wait_for(|s| matches!(s.state, ReflectorState::Backoff { .. }))
            .await
            .map(|s| s.state);
        assert_eq!(
            backoff.ok(),
            Some(ReflectorState::Backoff {
                until: run.started + Duration::from_millis(800)
            })
        );
        fake.wait_for_watch_calls(3).await;
        assert_eq!(fake.list_calls().len(), 1, "429 and 5xx must not relist");
        let w = fake.watch_calls();
        assert!(
            w.iter()
                .all(|w| w.resource_version.as_deref() == Some("10"))
        );
        let t = fake.watch_call_times();
        assert_eq!(t[1] - t[0], Duration::from_millis(800));
        assert_eq!(t[2] - t[1], Duration::from_millis(1600));
        let status = run.stop().await;
        assert!(matches!(
            status.last_error,
            Some(Error::Api { code: 503, .. })
        ));
    }

    fn streaming() -> ReflectorConfig {
        ReflectorConfig {
            use_streaming_list: true,
            ..config()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn streaming_list_ends_at_initial_events_end_bookmark() {
        let fake = FakeListerWatcher::shared();
        fake.push_watch(
            WatchScript::new()
                .added(cm("a", "5"))
                .added(cm("b", "7"))
                .bookmark("18", false) // a progress bookmark does not end the list
                .added(cm("c", "9"))
                .bookmark("20", true)
                .modified(cm("a", "21"))
                .then_hang(),
        );
        let run = start(&fake, streaming());
        run.store.wait_ops(2).await;
        assert!(
            fake.list_calls().is_empty(),
            "no paged list when streaming works"
        );
        let w = &fake.watch_calls()[0];
        assert!(w.send_initial_events);
        assert!(w.allow_watch_bookmarks);
        assert_eq!(w.resource_version_match.as_deref(), Some("NotOlderThan"));
        assert_eq!(w.resource_version.as_deref(), Some(""));
        assert_eq!(
            run.store.ops(),
            vec![
                Rec::Replace(tags(&["a@5", "b@7", "c@9"]), "20".into()),
                Rec::Update("a@21".into()),
            ]
        );
        assert_eq!(fake.watch_calls().len(), 1, "the same watch continues");
        let status = run.stop().await;
        assert_eq!(status.lists, 1);
        assert_eq!(status.watches, 1);
        assert_eq!(status.last_sync_resource_version, "21");
    }

    #[tokio::test(start_paused = true)]
    async fn streaming_list_falls_back_to_paged_list_when_refused() {
        let fake = FakeListerWatcher::shared();
        fake.push_watch_error(Error::Api {
            code: 422,
            reason: "Invalid".into(),
            message: "sendInitialEvents is not supported".into(),
        });
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(WatchScript::new().sleep(Duration::from_secs(2)));
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, streaming());
        fake.wait_for_watch_calls(3).await;
        let w = fake.watch_calls();
        assert!(w[0].send_initial_events);
        assert!(!w[1].send_initial_events);
        assert!(
            !w[2].send_initial_events,
            "once refused, no more streaming lists"
        );
        assert_eq!(rvs(&fake.list_calls()), vec![Some("0".into())]);
        assert_eq!(
            fake.list_call_times()[0],
            fake.watch_call_times()[0],
            "no backoff"
        );
        assert_eq!(
            run.store.ops(),
            vec![Rec::Replace(tags(&["a@5"]), "10".into())]
        );
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn streaming_list_without_initial_events_end_falls_back_to_paged_list() {
        let fake = FakeListerWatcher::shared();
        // An old server ignores sendInitialEvents: events, then a close, never the bookmark.
        fake.push_watch(WatchScript::new().added(cm("a", "5")).then_close());
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, streaming());
        fake.wait_for_watch_calls(2).await;
        assert_eq!(fake.list_calls().len(), 1);
        // The unfinished streaming list never reaches the store.
        assert_eq!(
            run.store.ops(),
            vec![Rec::Replace(tags(&["a@5"]), "10".into())]
        );
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn relist_after_gone_during_watch_streams_again_from_last_rv() {
        let fake = FakeListerWatcher::shared();
        fake.push_watch(
            WatchScript::new()
                .added(cm("a", "5"))
                .bookmark("20", true)
                .modified(cm("a", "22"))
                .error_event(Error::Gone("compacted".into()))
                .then_hang(),
        );
        fake.push_watch(
            WatchScript::new()
                .added(cm("a", "30"))
                .bookmark("31", true)
                .then_hang(),
        );
        let run = start(&fake, streaming());
        run.store.wait_ops(3).await;
        assert!(fake.list_calls().is_empty());
        let w = fake.watch_calls();
        assert_eq!(w.len(), 2);
        assert!(
            w[1].send_initial_events,
            "the relist is a streaming list too"
        );
        assert_eq!(w[1].resource_version.as_deref(), Some("22"));
        let t = fake.watch_call_times();
        assert_eq!(t[1] - t[0], Duration::from_millis(800));
        assert_eq!(
            run.store.ops().last(),
            Some(&Rec::Replace(tags(&["a@30"]), "31".into()))
        );
        let status = run.stop().await;
        assert_eq!(status.relists, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn malformed_objects_are_counted_not_fatal() {
        let fake = FakeListerWatcher::shared();
        fake.push_list(Ok(ListPage {
            items: vec![cm("a", "5")],
            resource_version: "10".into(),
            continue_token: None,
            remaining_item_count: None,
            malformed: 2,
        }));
        fake.push_watch(
            WatchScript::new()
                .event(WatchEvent::Malformed("bad object".into()))
                .added(cm("d", "11"))
                .then_hang(),
        );
        let run = start(&fake, config());
        run.store.wait_ops(2).await;
        assert_eq!(
            run.store.ops(),
            vec![
                Rec::Replace(tags(&["a@5"]), "10".into()),
                Rec::Add("d@11".into())
            ]
        );
        let status = run.stop().await;
        assert_eq!(status.malformed, 3);
        assert_eq!(status.last_sync_resource_version, "11");
        assert_eq!(
            status.watches, 1,
            "a malformed event does not end the watch"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn resync_calls_store_when_should_resync_says_so() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(WatchScript::new().then_hang());
        let allow = Arc::new(AtomicBool::new(false));
        let allow2 = allow.clone();
        let run = start(
            &fake,
            ReflectorConfig {
                resync_period: Some(Duration::from_secs(30)),
                should_resync: Some(Arc::new(move || allow2.load(Ordering::SeqCst))),
                ..config()
            },
        );
        fake.wait_for_watch_calls(1).await;
        tokio::time::sleep(Duration::from_secs(31)).await;
        assert_eq!(run.store.ops().len(), 1, "should_resync said no");
        allow.store(true, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_secs(30)).await;
        assert_eq!(run.store.ops().last(), Some(&Rec::Resync));
        assert_eq!(run.store.ops().len(), 2);
        run.stop().await;
    }

    #[tokio::test(start_paused = true)]
    async fn failed_list_backs_off_and_lists_again_at_the_same_rv() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_error(Error::Forbidden("rbac".into()));
        fake.push_list_error(Error::Connect("refused".into()));
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(1).await;
        assert_eq!(
            rvs(&fake.list_calls()),
            vec![Some("0".into()), Some("0".into()), Some("0".into())],
            "a failed list must not change the RV asked for"
        );
        let t = fake.list_call_times();
        assert_eq!(t[1] - t[0], Duration::from_millis(800));
        assert_eq!(t[2] - t[1], Duration::from_millis(1600));
        let status = run.stop().await;
        assert_eq!(status.lists, 1, "only completed lists count");
        assert_eq!(status.relists, 0);
        assert!(matches!(status.last_error, Some(Error::Connect(_))));
        assert!(status.last_error_at.is_some());
    }

    #[tokio::test(start_paused = true)]
    async fn watch_error_event_relists_after_backoff_from_last_rv() {
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![cm("a", "5")], "10", None);
        fake.push_watch(
            WatchScript::new()
                .bookmark("14", false)
                .error_event(Error::Api {
                    code: 500,
                    reason: "InternalError".into(),
                    message: "etcd leader changed".into(),
                })
                .then_hang(),
        );
        fake.push_list_page(vec![cm("a", "5")], "16", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(2).await;
        assert_eq!(
            rvs(&fake.list_calls()),
            vec![Some("0".into()), Some("14".into())]
        );
        let status = run.stop().await;
        assert_eq!(status.relists, 1);
        assert_eq!(status.last_sync_resource_version, "16");
    }

    #[tokio::test(start_paused = true)]
    async fn cancel_stops_reflector() {
        // Cancelled while a list is outstanding.
        let fake = FakeListerWatcher::shared();
        let run = start(&fake, config());
        fake.wait_for_list_calls(1).await;
        assert_eq!(run.status.borrow().state, ReflectorState::Listing);
        run.cancel.cancel();
        let joined = tokio::time::timeout(Duration::from_millis(10), run.task).await;
        assert!(joined.is_ok(), "reflector did not stop promptly");
        assert_eq!(run.status.borrow().state, ReflectorState::Stopped);

        // Cancelled while watching, and while backing off.
        let fake = FakeListerWatcher::shared();
        fake.push_list_page(vec![], "10", None);
        fake.push_watch(WatchScript::new().then_hang());
        let run = start(&fake, config());
        fake.wait_for_watch_calls(1).await;
        assert_eq!(run.status.borrow().state, ReflectorState::Watching);
        assert_eq!(run.stop().await.state, ReflectorState::Stopped);

        let fake = FakeListerWatcher::shared();
        fake.push_list_error(Error::Connect("refused".into()));
        let mut run = start(&fake, config());
        let _ = run
            .status
            .wait_for(|s| matches!(s.state, ReflectorState::Backoff { .. }))
            .await;
        run.cancel.cancel();
        let joined = tokio::time::timeout(Duration::from_millis(10), run.task).await;
        assert!(
            joined.is_ok(),
            "reflector did not stop promptly during backoff"
        );
        assert_eq!(run.status.borrow().state, ReflectorState::Stopped);
        assert_eq!(fake.list_calls().len(), 1);
    }
}
