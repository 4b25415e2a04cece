//! `Reflector`: keeps a store in step with the API server by listing, then watching.
//!
//! client-go counterpart: `tools/cache/reflector.go` (`Reflector.ListAndWatch`, `list`,
//! `watchList`, `watch`, `handleWatch`, `relistResourceVersion`, the backoff manager) and
//! `tools/pager/pager.go` (`ListPager` with `FullListIfExpired`). Written as an explicit state
//! machine (`State`) in the manner of kube-runtime's `watcher.rs`, so every transition, and the
//! reason for every relist, is in one `match`.
//!
//! Invariants:
//! - every object received (listed or watched) passes through [`ReflectorStore::prepare_as`]
//!   exactly once, named with the delta type it is handed over as (listed: `Replaced`; watched:
//!   `Added`/`Updated`/`Deleted`), then reaches the store through exactly one of
//!   `add`/`update`/`delete`/`replace`;
//! - `last_sync_resource_version` only moves forward along what the server sent: a completed list
//!   (its RV), a watch event (its object's RV) or a bookmark (its RV); a failed list never changes it.
//!   The one exception is a history reset (see the `rewind` module): the consistent list that follows it
//!   sets the (lower) RV of the server's new history; a watch event or bookmark older than it is
//!   never applied;
//! - every relist has a reason in the `match` that leads to it: the first list; a failed list or
//!   streaming list; an expired or too large RV (410, 504); a watch ERROR event other than
//!   429/5xx; an undecodable watch stream; a very short watch; a failed resync; the server's
//!   history went back (a history check, an older watch event: consistent read); a relist asked
//!   for ([`ReflectorControl::relist`], `:verify` found differences: consistent read);
//! - after a reconnect (the failure before the backoff was unreachable, 5xx or 429), after a
//!   watch cut off before its timeout (a transport error, or well before it: a restarted server),
//!   and on [`ReflectorControl::check_history`], a history check (`State::CheckHistory`) comes
//!   before the next watch or list; nothing else sends it (no request in steady state, apart from
//!   one check before the first list);
//! - [`ReflectorStatus::stale`] is set by every recorded error and cleared only by a completed
//!   list, a passed history check or a watch event;
//! - the first list asks for RV "0" (any, served from the watch cache); later relists ask for the
//!   last synced RV; after the server says that RV is expired or too large, exactly one consistent
//!   list (RV "") follows at once, and a successful list clears that condition;
//! - a list at RV "" or "0" sends `limit=page_size`; a relist at a specific RV sends no `limit`
//!   (so the watch cache answers it with data at least as new, where a limit would make it an
//!   exact read of that RV from etcd) unless the server paged the first list (`paginated_result`:
//!   no watch cache);
//! - after a watch is refused as too old at RV X, a list (or streaming list) whose RV is not newer
//!   than X is never applied: a consistent read replaces it, so no sequence of answers makes the
//!   reflector relist and re-watch one RV forever;
//! - list bodies are decoded as they stream in ([`ListerWatcher::list_each`]); each item is
//!   prepared as soon as it is decoded, so only prepared objects accumulate;
//! - every list attempt (a list, its consistent-read retry, a pager's full-list fallback, a
//!   streaming list) publishes its progress in [`ReflectorStatus::list_progress`] (cleared when
//!   it ends) and records each prepared object in the listing log, if one is attached
//!   ([`Reflector::with_listing_log`]); the store still gets the list only whole, at its end;
//! - a page list whose `continue` token expired restarts once as a single unpaged list at the
//!   original RV (the pager's `FullListIfExpired`), so a list never mixes two snapshots;
//! - a watch always starts from `last_sync_resource_version` with bookmarks allowed and a timeout
//!   drawn from `[min_watch_timeout, 2 × min_watch_timeout)`;
//! - a normal watch close re-watches without relisting and without backoff, unless it was a
//!   "very short watch" (under one second and nothing received), which is an error;
//! - a failed resync of the store ends the watch: relist after the backoff (client-go's
//!   `startResync` error path);
//! - every failure other than an expired list RV waits out the backoff before the next request;
//!   the backoff grows 800 ms × 2ⁿ up to 30 s, with jitter, and starts over after 2 minutes
//!   without a backoff;
//! - cancellation is honoured at every await: the reflector drops its request or stream and ends in
//!   [`ReflectorState::Stopped`];
//! - status: the state is published (and receivers woken) at every transition and error; counters
//!   and the RV are updated in place on every event, read them with `borrow()`.
//!
//! # Where this differs from client-go, and why
//! - **A server whose history went back is noticed** (see the `rewind` module). After every reconnect and
//!   on `ctrl-r` the reflector asks one consistent `limit=1` read and the `kube-system` uid before
//!   watching again; an RV lower than the store's, or another cluster identity, relists from
//!   scratch and says so ([`ReflectorStatus::last_history_reset`]); so does a watch event older
//!   than the last one. client-go keeps watching from an RV the restored etcd has not reached,
//!   which kube-apiserver accepts and leaves silent, and shows the old state indefinitely. The
//!   cost: one check before the first list, one after each reconnect, an integer comparison per
//!   watch event.
//! - **A list in progress is visible** (see [`super::listing`]): its progress and its objects so
//!   far, for a dashboard that would otherwise show nothing for the 8–16 s a 100k-pod list takes.
//!   Nothing else changes: the store is replaced as in client-go, at the end.
//! - **Streaming lists are the default** (`use_streaming_list`), as client-go's WatchList since
//!   1.35; paged lists are the fallback.
//! - **5xx on a watch request re-watches** after the backoff, like connection refused and 429;
//!   client-go relists. An API server restarting (503) does not invalidate our RV.
//! - **A refused streaming list is not retried** for the rest of the reflector's life (client-go
//!   tries again at every `ListAndWatch`): the server will not learn the feature meanwhile, and each
//!   attempt costs a request. Transient failures (connect, 429, expired RV) retry it after the
//!   backoff; a 5xx is followed by one paged list (after the backoff), and the next relist streams
//!   again, as client-go's per-`ListAndWatch` fallback does (client-go also lists after transport
//!   errors other than connection refused, where we retry the streaming list); a 500 naming
//!   RequestWatchProgress (an etcd without progress notifications) is a refusal.
//!   [`ReflectorStatus::list_mode`] says which mode is in use.
//! - **A list no newer than an expired watch RV is replaced by a consistent read.** client-go
//!   applies it and relies on the watch cache answering "at least as new"; a server that answers
//!   an old state (an exact read, a paging server without a watch cache) would make it relist the
//!   same RV forever.
//!   A server that silently ignores `sendInitialEvents` is detected when that watch runs to its
//!   timeout without the initial-events-end bookmark; the events received so far are discarded,
//!   never half-applied. A streaming list closed before its timeout (an API server shutting
//!   down) is requested again after the backoff, as client-go's `watchList` loop does at once.
//! - **Transport errors in the middle of a watch** (connection reset) count as a close, subject to
//!   the very-short-watch rule, as client-go's probable-EOF handling; other stream failures relist.
//! - **5xx in an ERROR event inside an open watch** (etcd "no leader" as a 500) re-watches from the
//!   last synced RV after the backoff; client-go relists unless `MaxInternalErrorRetryDuration`
//!   is set (kube-apiserver's own watch cache sets it to 30 s for this case). The exception is a
//!   500 `StorageReadError` (a corrupt object, or its unsafe deletion), which relists as in
//!   client-go: re-watching would meet the same undecodable event again. 429 in an ERROR
//!   event re-watches after the backoff as in client-go; 410 and "too large resource version"
//!   relist; any other code (403, 404, 401...) relists after the backoff as in client-go.
//! - **`min_watch_timeout` is not clamped.** client-go never asks for watch timeouts under its
//!   5-minute minimum (`MinWatchTimeout` below that is ignored). We honour the configured value,
//!   default 5 minutes: the chaos tests set seconds so that watches time out and re-open many
//!   times per run against the demo server, which is how the re-watch path gets exercised.
//!   Against a shared API server keep the default.
//! - **`page_size` is the pager's default page size** (500, as client-go's pager): a relist at a
//!   specific RV is unpaged unless the server paged the first list. client-go's
//!   `WatchListPageSize` override, which pages (an exact etcd read) even there, is not offered.
//! - **A recovery probe shortens backoffs after an outage.** While the reflector waits out a
//!   backoff because the server was unreachable or answered 5xx, it asks
//!   [`ListerWatcher::probe`] (`GET /readyz`) every [`ReflectorConfig::recovery_probe`] (1 s) and
//!   retries at once when the server answers after having been seen down (the failed request
//!   itself if it was unreachable, else a failed probe). client-go waits the full backoff: after
//!   an 8 s API server restart its delay has grown to 6.4–12.8 s (up to twice that with
//!   jitter), so a dashboard would say "backing off" for up to 20 s after the server is back;
//!   with the probe it converges within a probe interval. The cost is one small request per
//!   interval per informer during the outage, and, against a server that answers `/readyz` but
//!   refuses connections for lists, at most one retry per interval. A 429 `storage is
//!   (re)initializing` (a restarted server's watch cache rebuilding; it asks for a retry after
//!   1 s) counts as an outage too; any other 429, and 403, do not: the server is up and asked us
//!   to wait, so the backoff is waited out. A backoff cut short by a probe also starts the
//!   backoff over from its initial delay: what follows an outage (the 410 of a rebuilt watch
//!   cache) should not wait a delay grown while the server was down.
//! - **kube's client-side retry** of 429/503/504 is turned off by
//!   [`client_for_informers`](super::list_watch::client_for_informers), so those answers reach the
//!   reflector at once (a "Too large resource version" 504 must trigger the consistent relist).
//!   The wait a 429 or 5xx asks for in `Retry-After` is honoured by the backoff instead: the next
//!   request goes out no sooner than `max(backoff, Retry-After)` after the failure (probes
//!   included), which is client-go's rest client's schedule (`checkWait`), with the retry
//!   counted by the reflector (see [`super::failed_answer`]); a `Retry-After` over
//!   [`MAX_RETRY_AFTER`] is cut to it.
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
//! let config = ReflectorConfig {
//!     kind: "v1/ConfigMap".into(),
//!     use_streaming_list: false, // a list, then a watch
//!     ..ReflectorConfig::default()
//! };
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
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use futures::StreamExt;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::delta_fifo::DeltaType;
use super::list_watch::{ListOptions, ListerWatcher, WatchEvent, WatchOptions, WatchStream};
use super::listing::{ListProgress, ListSizeHint, ListTotal, ListedItem, ListingLog};
use super::store::{ReflectorStore, meta_namespace_key, resource_version};
use super::wire_values::STORAGE_INITIALIZING_MESSAGE;
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

    /// Start over from the initial delay.
    fn reset(&mut self) {
        self.next = self.config.initial;
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
    /// paged list if the server refuses it. Default on, as client-go's WatchList since 1.35.
    pub use_streaming_list: bool,
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// How often to call [`ReflectorStore::resync`] while watching; `None` or zero disables it.
    pub resync_period: Option<Duration>,
    /// Asked at every resync tick; resync happens only if it answers true (or is `None`).
    pub should_resync: Option<Arc<dyn Fn() -> bool + Send + Sync>>,
    /// Watch timeouts are drawn from `[min_watch_timeout, 2 × min_watch_timeout)`. Default 5 min.
    /// Honoured as given, unlike client-go, which raises anything below 5 min to 5 min (see the
    /// module docs); do not set it lower against a shared API server.
    pub min_watch_timeout: Duration,
    pub backoff: BackoffConfig,
    /// The wait after a 403 Forbidden instead of the backoff: permissions change rarely, so a
    /// forbidden reflector asks again after this long (default 5 min), not every 30 s.
    pub forbidden_retry: Duration,
    /// A watch that ends sooner than this having received nothing is an error. Default 1 s.
    pub very_short_watch: Duration,
    /// While waiting out a backoff because the server was unreachable or answered 5xx, ask it
    /// this often whether it is back ([`ListerWatcher::probe`]) and retry at once when it is.
    /// Default 1 s; `None` waits every backoff out, as client-go does.
    pub recovery_probe: Option<Duration>,
    /// The object count of this scope's last list, kept across informers of the same scope: the
    /// estimated total of a list in progress (see [`super::listing`]). `None`: this reflector's
    /// own last list only.
    pub list_size_hint: Option<ListSizeHint>,
}

impl Default for ReflectorConfig {
    fn default() -> Self {
        Self {
            kind: String::new(),
            page_size: 500,
            use_streaming_list: true,
            label_selector: None,
            field_selector: None,
            resync_period: None,
            should_resync: None,
            min_watch_timeout: Duration::from_secs(300),
            backoff: BackoffConfig::default(),
            forbidden_retry: Duration::from_secs(300),
            very_short_watch: Duration::from_secs(1),
            recovery_probe: Some(Duration::from_secs(1)),
            list_size_hint: None,
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
            .field("forbidden_retry", &self.forbidden_retry)
            .field("very_short_watch", &self.very_short_watch)
            .field("recovery_probe", &self.recovery_probe)
            .field("list_size_hint", &self.list_size_hint)
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
    /// Asking the server where its history is before watching on (see the `rewind` module).
    Checking,
    /// Not running (not started yet, or cancelled).
    Stopped,
}

/// How a reflector lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ListMode {
    /// Streaming lists (WatchList: `sendInitialEvents=true`), the default.
    #[default]
    Streaming,
    /// Lists, paged where the server pages (configured so).
    Paged,
    /// Lists, because the server refused streaming lists.
    PagedAfterRefusal,
}

impl ListMode {
    /// Short text for the informer panel.
    pub fn as_str(self) -> &'static str {
        match self {
            ListMode::Streaming => "stream",
            ListMode::Paged => "list",
            ListMode::PagedAfterRefusal => "fallback",
        }
    }
}

/// A snapshot of a reflector's progress, published on a `tokio::sync::watch` channel.
#[derive(Debug, Clone, PartialEq)]
pub struct ReflectorStatus {
    pub state: ReflectorState,
    /// How this reflector lists (streaming, or lists and why).
    pub list_mode: ListMode,
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
    /// Recovery probes sent while backing off (see [`ReflectorConfig::recovery_probe`]).
    pub probes: u64,
    /// Backoffs cut short because a probe found the server back.
    pub recoveries: u64,
    pub last_error: Option<Error>,
    pub last_error_at: Option<SystemTime>,
    /// The list in progress (while listing): objects and bytes received, the total when known.
    pub list_progress: Option<ListProgress>,
    /// An error interrupted the informer since its store was last known to be current: the
    /// store may lag the server, and `last_error` says why. Cleared when a list completes, a
    /// history check finds the server where the store left it, or a watch delivers an event.
    pub stale: bool,
    /// Times the server's history went back (see the `rewind` module) and the store was listed again.
    pub history_resets: u64,
    /// The latest of those, for the header and the event log.
    pub last_history_reset: Option<HistoryReset>,
    /// The server's resourceVersion at the last history check (a consistent `limit=1` read).
    pub server_resource_version: Option<String>,
    /// The collection's object count at the last history check (`remainingItemCount` + 1),
    /// when the server said it.
    pub server_total: Option<u64>,
}

impl Default for ReflectorStatus {
    fn default() -> Self {
        Self {
            state: ReflectorState::Stopped,
            list_mode: ListMode::default(),
            last_sync_resource_version: String::new(),
            lists: 0,
            relists: 0,
            watches: 0,
            events: 0,
            malformed: 0,
            probes: 0,
            recoveries: 0,
            last_error: None,
            last_error_at: None,
            list_progress: None,
            stale: false,
            history_resets: 0,
            last_history_reset: None,
            server_resource_version: None,
            server_total: None,
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
        /// The timeout the watch was asked for: closing well before it is a cut, not a timeout.
        timeout: Duration,
    },
    /// Ask the server where its history is ([`ListerWatcher::history_mark`]), then go to
    /// `then`, or list from scratch if the history went back (see the `rewind` module).
    CheckHistory { then: Box<State<K>> },
    /// Wait until `until`, then go to `then`; with an `outage`, probe the server meanwhile and
    /// go to `then` as soon as it is back, but never before `not_before` (the server's
    /// `Retry-After`).
    Backoff {
        until: Instant,
        not_before: Instant,
        then: Box<State<K>>,
        outage: Option<Outage>,
    },
}

/// The longest `Retry-After` honoured: a server asking for more (a bug, a hostile proxy) gets
/// retried after this, so a dashboard never sits idle for hours on one header. client-go has no
/// cap; kube-apiserver asks for 1–5 s.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Why the request before a backoff failed, when the recovery probe applies to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outage {
    /// The server could not be reached (connection refused or reset, a timeout): any answer to
    /// a probe means it is back.
    Unreachable,
    /// The server answered 5xx: it is back once a probe, having failed, succeeds (a probe that
    /// succeeds at once says the server is up and this request failed anyway: wait the backoff
    /// out).
    ServerError,
    /// 429 `storage is (re)initializing`: the server is back, its watch cache is rebuilding,
    /// and it asked for a retry after one second. Retry when a probe answers, as for
    /// [`Outage::Unreachable`], rather than after a backoff grown while the server was down.
    Initializing,
}

impl Outage {
    fn of(err: &Error) -> Option<Self> {
        match err {
            Error::Connect(_) => Some(Outage::Unreachable),
            Error::Api { code, .. } if *code >= 500 => Some(Outage::ServerError),
            Error::TooManyRequests(msg) if msg == STORAGE_INITIALIZING_MESSAGE => {
                Some(Outage::Initializing)
            }
            _ => None,
        }
    }
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
    /// client-go's `paginatedResult`: the first list (RV "0") came back in pages, so this server
    /// honours `limit` without a watch cache; relists stay paged. When false, relists at a
    /// specific RV are sent without `limit`, so the watch cache answers them with data at least
    /// as new as that RV (with a limit and no `resourceVersionMatch` the server would read that
    /// exact, possibly old, RV from etcd).
    paginated_result: bool,
    /// The RV a watch was just refused from as too old (410); cleared by the next completed
    /// list. A list whose RV is not newer than this would lead to the same 410 again: it is
    /// followed at once by a consistent read instead, so no answer can make us relist one RV
    /// forever.
    expired_watch_rv: Option<String>,
    backoff: Backoff,
    /// The error just recorded was a 403: the next wait is [`ReflectorConfig::forbidden_retry`].
    just_forbidden: bool,
    /// The error just recorded says the server is down or failing: the next backoff probes it.
    outage: Option<Outage>,
    /// When the next resync is due (only while watching).
    next_resync: Option<Instant>,
    /// Where the objects of a list in progress are recorded for views (see [`super::listing`]).
    listing: Option<Arc<ListingLog<K>>>,
    /// The object count of the last completed list (the estimate without a shared hint).
    last_list_count: ListSizeHint,
    /// `last_sync_rv` as an integer (`None`: empty or opaque), compared with each watch event's.
    last_sync_rv_n: Option<u64>,
    /// The cluster's identity (`kube-system`'s uid) as first seen by a history check.
    cluster_uid: Option<String>,
    /// The error just recorded was a reconnect (unreachable, 5xx, 429): what follows the backoff
    /// is preceded by a history check.
    reconnect: bool,
    /// Mirrors [`ReflectorStatus::stale`] (read per watch event without touching the channel).
    stale: bool,
    /// Requests from outside: check the history now (`ctrl-r`), relist (`:verify`).
    control: ReflectorControl,
    /// The collection's size from a history check just made, for the next list's progress
    /// (only without selectors: the count is the whole collection's); stored plus one, 0: none.
    fresh_total: AtomicU64,
}

impl<K: Object> Reflector<K> {
    /// A reflector that lists and watches through `lw` into `store`.
    pub fn new(
        lw: Arc<dyn ListerWatcher<K>>,
        store: Arc<dyn ReflectorStore<K>>,
        config: ReflectorConfig,
    ) -> Self {
        let (status, _) = watch::channel(ReflectorStatus {
            list_mode: if config.use_streaming_list {
                ListMode::Streaming
            } else {
                ListMode::Paged
            },
            ..ReflectorStatus::default()
        });
        Self {
            lw,
            store,
            backoff: Backoff::new(config.backoff.clone()),
            just_forbidden: false,
            outage: None,
            config,
            status,
            last_sync_rv: String::new(),
            rv_unavailable: false,
            streaming_refused: false,
            paginated_result: false,
            expired_watch_rv: None,
            next_resync: None,
            listing: None,
            last_list_count: ListSizeHint::default(),
            last_sync_rv_n: None,
            cluster_uid: None,
            reconnect: false,
            stale: false,
            control: ReflectorControl::default(),
            fresh_total: AtomicU64::new(0),
        }
    }

    /// Take requests through `control` (a handle made before the reflector, e.g. by the
    /// informer that owns it).
    pub fn with_control(mut self, control: ReflectorControl) -> Self {
        self.control = control;
        self
    }

    /// A handle to ask this reflector for a history check or a relist (see the `rewind` module).
    pub fn control(&self) -> ReflectorControl {
        self.control.clone()
    }

    /// Record the objects of every list in progress in `log` (for views that show a list as it
    /// arrives); the store still gets each list whole, at its end.
    pub fn with_listing_log(mut self, log: Arc<ListingLog<K>>) -> Self {
        self.listing = Some(log);
        self
    }

    /// A receiver of the reflector's status; usable before and after `run`.
    pub fn status(&self) -> watch::Receiver<ReflectorStatus> {
        self.status.subscribe()
    }

    /// Run until `cancel` fires; ends in [`ReflectorState::Stopped`].
    pub async fn run(mut self, cancel: CancellationToken) {
        tracing::debug!(kind = %self.config.kind, "reflector starting");
        self.next_resync = self.resync_period().map(|p| Instant::now() + p);
        // A history check first: the identity later checks compare with, and the collection's
        // size for the first list's progress. It fails as the list would (same path, same
        // server), and is retried after the backoff as the list would be.
        let mut state = State::CheckHistory {
            then: Box::new(self.list_state("first list")),
        };
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

    /// The `limit` of a list at `rv` (client-go's choice of the pager's page size in `list`).
    fn list_limit(&self, rv: &str) -> Option<u32> {
        if self.config.page_size == 0 {
            return None;
        }
        if rv.is_empty() || rv == "0" || self.paginated_result {
            // "" is a consistent read (etcd, paged); a watch cache ignores `limit` at "0", and a
            // server without one (paginated_result) pages anything.
            return Some(self.config.page_size);
        }
        // A specific RV with a limit and no resourceVersionMatch is an exact read from etcd: the
        // state at that RV, however old (and a thundering herd on etcd after an API server
        // restart). Without a limit the watch cache answers with data at least as new.
        None
    }

    /// A timeout in `[min_watch_timeout, 2 × min_watch_timeout)`; `min_watch_timeout` is used as
    /// given, also below 5 minutes (see the module docs).
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

    fn record_error(&mut self, err: &Error) {
        self.just_forbidden = matches!(err, Error::Forbidden(_));
        self.outage = Outage::of(err);
        self.reconnect = is_retriable_watch_error(err);
        self.stale = true;
        self.status.send_modify(|s| {
            s.last_error = Some(err.clone());
            s.last_error_at = Some(SystemTime::now());
            s.stale = true;
        });
    }

    /// The store is known to be current again (a list completed, a history check passed, a
    /// watch delivered).
    fn recovered(&mut self) {
        if std::mem::take(&mut self.stale) {
            self.status.send_modify(|s| s.stale = false);
        }
    }

    fn set_last_sync_rv(&mut self, rv: &str) {
        if rv.is_empty() || rv == self.last_sync_rv {
            return;
        }
        self.last_sync_rv_n = rv.parse().ok();
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

    fn list_completed(&mut self) {
        self.stale = false;
        self.status.send_modify(|s| {
            s.stale = false;
            if s.lists > 0 {
                s.relists += 1;
            }
            s.lists += 1;
        });
    }

    /// A list attempt starts: fresh progress (with the estimated total: this scope's last count)
    /// and a new attempt in the listing log. Returns the tap each listed object goes through.
    fn begin_list_attempt(&self) -> ListTap<'_, K> {
        let estimate = self
            .config
            .list_size_hint
            .as_ref()
            .unwrap_or(&self.last_list_count)
            .get();
        let mut progress = ListProgress::new(Instant::now(), estimate);
        if let Some(total) = self.fresh_total.swap(0, Ordering::Relaxed).checked_sub(1) {
            // The server counted the collection just before this list (a history check).
            progress.total = Some(ListTotal::Exact(total));
        }
        // Wakes the dashboard: a list starting is a transition.
        self.status
            .send_modify(|s| s.list_progress = Some(progress));
        if let Some(log) = &self.listing {
            log.begin();
        }
        ListTap {
            status: &self.status,
            lw: self.lw.as_ref(),
            bytes_base: self.lw.received_bytes(),
            log: self.listing.as_deref(),
        }
    }

    /// The list attempt ended; `completed`: its objects went to the store (`count` of them).
    fn end_list_attempt(&self, completed: Option<usize>) {
        if let Some(log) = &self.listing {
            log.end(completed.is_some());
        }
        if let Some(n) = completed {
            self.last_list_count.set(n as u64);
            if let Some(hint) = &self.config.list_size_hint {
                hint.set(n as u64);
            }
        }
        // The state transition that follows wakes the dashboard.
        self.status.send_if_modified(|s| {
            s.list_progress = None;
            false
        });
    }

    /// Wait out the backoff, then list again (streaming or paged, see [`Self::list_state`]).
    fn backoff_then_list(&mut self, why: &'static str) -> State<K> {
        let then = self.list_state(why);
        self.backoff(then)
    }

    /// Wait out the backoff, then go to `then`. The wait lasts at least as long as the failed
    /// answer's `Retry-After` asked (capped at [`MAX_RETRY_AFTER`]), as client-go's rest client
    /// waits `max(backoff, Retry-After)` before it sends the request again.
    fn backoff(&mut self, then: State<K>) -> State<K> {
        // After a reconnect, the server may not be the one we left (a restored etcd, a
        // re-created cluster): ask before watching or listing on.
        let then =
            if std::mem::take(&mut self.reconnect) && !matches!(then, State::CheckHistory { .. }) {
                State::CheckHistory {
                    then: Box::new(then),
                }
            } else {
                then
            };
        let now = Instant::now();
        let delay = if std::mem::take(&mut self.just_forbidden) {
            self.config.forbidden_retry
        } else {
            self.backoff.next_delay(now)
        };
        let asked = self
            .lw
            .take_retry_after()
            .unwrap_or_default()
            .min(MAX_RETRY_AFTER);
        if !asked.is_zero() {
            tracing::debug!(kind = %self.config.kind, ?asked, ?delay, "the server asked for a wait (Retry-After)");
        }
        State::Backoff {
            until: now + delay.max(asked),
            not_before: now + asked,
            then: Box::new(then),
            outage: self.outage.take(),
        }
    }

    /// Wait until `until`, probing the server every `every` (client-go has no counterpart: it
    /// waits the backoff out). Returns early, `true`, once a probe succeeds after the server was
    /// seen down: by the request that failed (unreachable) or by an earlier probe. A probe
    /// takes at most `every`, and never carries the wait past `until`.
    async fn wait_or_recover(&self, until: Instant, every: Duration, outage: Outage) -> bool {
        let mut seen_down = outage != Outage::ServerError;
        loop {
            let at = Instant::now() + every;
            if at >= until {
                tokio::time::sleep_until(until).await;
                return false;
            }
            tokio::time::sleep_until(at).await;
            let Some(probe) = self.lw.probe() else {
                tokio::time::sleep_until(until).await;
                return false;
            };
            self.status.send_if_modified(|s| {
                s.probes += 1;
                false
            });
            let deadline = (Instant::now() + every).min(until);
            match tokio::time::timeout_at(deadline, probe).await {
                Ok(Ok(())) if seen_down => {
                    tracing::info!(kind = %self.config.kind, "the server answers again; retrying before the backoff ends");
                    self.status.send_if_modified(|s| {
                        s.recoveries += 1;
                        false
                    });
                    return true;
                }
                Ok(Ok(())) => {}
                Ok(Err(err)) => {
                    tracing::debug!(kind = %self.config.kind, error = %err, "recovery probe failed");
                    seen_down = true;
                }
                Err(_) => seen_down = true,
            }
            if Instant::now() >= until {
                return false;
            }
        }
    }

    /// Run one state to its outcome and return the next state.
    async fn step(&mut self, state: State<K>) -> State<K> {
        match state {
            State::List { why } => {
                self.set_state(ReflectorState::Listing);
                tracing::debug!(kind = %self.config.kind, why, "listing");
                let listed = self.list().await;
                self.end_list_attempt(listed.as_ref().ok().copied());
                match listed {
                    Ok(_) => State::Watch,
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
                let listed = self.stream_list().await;
                self.end_list_attempt(listed.as_ref().ok().map(|(_, _, n, _)| *n));
                match listed {
                    Ok((stream, started, _, timeout)) => {
                        self.set_state(ReflectorState::Watching);
                        State::Watching {
                            stream,
                            started,
                            received: 1,
                            timeout,
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
                        if matches!(err, Error::Api { code, .. } if code >= 500) {
                            // A server error: list (paged) this round, as client-go's
                            // `ListAndWatch` falls back to LIST when `watchList` fails with
                            // anything but 429, connection refused or an expired RV ("making
                            // progress is better than deadlocking"); the next relist streams
                            // again.
                            self.backoff(State::List {
                                why: "streaming list failed with a server error",
                            })
                        } else {
                            self.backoff(State::StreamList {
                                why: "previous streaming list failed",
                            })
                        }
                    }
                    Err(StreamListError::Refused(err)) => {
                        tracing::warn!(kind = %self.config.kind, error = %err,
                            "server refused the streaming list; falling back to paged lists");
                        self.record_error(&err);
                        self.streaming_refused = true;
                        self.status
                            .send_modify(|s| s.list_mode = ListMode::PagedAfterRefusal);
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
                timeout,
            } => self.watching(stream, started, received, timeout).await,
            State::CheckHistory { then } => self.check_history(*then).await,
            State::Backoff {
                until,
                not_before,
                then,
                outage,
            } => {
                self.set_state(ReflectorState::Backoff { until });
                tracing::debug!(kind = %self.config.kind, delay = ?until.saturating_duration_since(Instant::now()), ?outage, "backing off");
                let probe_every = self.config.recovery_probe.filter(|p| !p.is_zero());
                let control = self.control.clone();
                let waited = async {
                    match (outage, probe_every) {
                        // The server is down or failing: probe it, and go on as soon as it is
                        // back (the next state is the same either way).
                        (Some(outage), Some(every)) => {
                            if self.wait_or_recover(until, every, outage).await {
                                // The outage is over: the delay it grew to says nothing about
                                // the server now. What follows (a 410 from a rebuilt watch
                                // cache, say) backs off from the start.
                                self.backoff.reset();
                                // But not before the server said it would be ready.
                                tokio::time::sleep_until(not_before).await;
                            }
                        }
                        _ => tokio::time::sleep_until(until).await,
                    }
                };
                // `ctrl-r` (or a relist asked for) cuts the wait short, never the server's
                // `Retry-After`.
                let asked = tokio::select! {
                    _ = waited => None,
                    req = async {
                        let req = control.requested().await;
                        tokio::time::sleep_until(not_before).await;
                        req
                    } => Some(req),
                };
                match asked {
                    None => *then,
                    Some(rewind::Request::Relist) => self.requested_relist(),
                    Some(rewind::Request::Check) => match *then {
                        State::CheckHistory { then } => State::CheckHistory { then },
                        then => State::CheckHistory {
                            then: Box::new(then),
                        },
                    },
                }
            }
        }
    }

    /// A paged list at `relist_resource_version()`; on an expired or too large RV, one more list
    /// at once as a consistent read (client-go's `Reflector.list`).
    async fn list(&mut self) -> Result<usize, Error> {
        let rv = self.relist_resource_version();
        let started = Instant::now();
        let (items, list_rv) = match self.list_pages(&rv).await {
            Ok((items, list_rv, paged)) => {
                if rv == "0" && paged {
                    // client-go: the server paged an RV "0" list, so no watch cache answered it
                    // (a watch cache ignores `limit` there); keep relists paged.
                    self.paginated_result = true;
                }
                match self.expired_watch_rv.clone() {
                    Some(expired) if !rv.is_empty() && !rv_is_newer(&list_rv, &expired) => {
                        // The server answered with a state no newer than the RV the watch was
                        // just refused from: watching from it would get the same 410, and
                        // relisting would get the same answer. Only a consistent read (RV "")
                        // is sure to be newer.
                        tracing::info!(kind = %self.config.kind, rv = %rv, list_rv = %list_rv,
                            expired = %expired,
                            "list is not newer than the expired watch RV; relisting with a consistent read");
                        drop(items);
                        self.rv_unavailable = true;
                        let (items, list_rv, _) = self.list_pages("").await?;
                        (items, list_rv)
                    }
                    _ => (items, list_rv),
                }
            }
            Err(err) if err.is_expired() && !rv.is_empty() => {
                // Relist once with RV "": the RV we asked for is compacted away, or this API
                // server has not caught up with it; only a consistent read can succeed.
                tracing::info!(kind = %self.config.kind, rv = %rv, error = %err,
                    "list RV unavailable; relisting with a consistent read");
                self.rv_unavailable = true;
                let (items, list_rv, _) = self.list_pages("").await?;
                (items, list_rv)
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
        self.expired_watch_rv = None;
        self.set_last_sync_rv(&list_rv);
        self.list_completed();
        Ok(count)
    }

    /// All pages of one list (client-go's `ListPager` with `FullListIfExpired`). Objects are
    /// prepared page by page, so a page's decoded copies are dropped as soon as the store has
    /// matched them.
    ///
    /// Returns the items, the list's RV and whether the server paged it.
    async fn list_pages(&mut self, rv: &str) -> Result<(Vec<Arc<K>>, String, bool), Error> {
        let first = ListOptions {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            limit: self.list_limit(rv),
            continue_token: None,
            resource_version: Some(rv.to_string()),
            resource_version_match: None,
        };
        let mut opts = first.clone();
        let mut items: Vec<Arc<K>> = Vec::new();
        let mut paged = false;
        let store = Arc::clone(&self.store);
        let mut tap = self.begin_list_attempt();
        loop {
            // Items are prepared as the body is decoded: only the prepared (masked, pruned)
            // objects accumulate, never the response body.
            let listed = {
                let mut sink = |obj: K| {
                    let obj = store.prepare_as(obj, DeltaType::Replaced);
                    tap.listed(&obj);
                    items.push(obj)
                };
                self.lw.list_each(&opts, &mut sink).await
            };
            let page = match listed {
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
                    // A new attempt: what was shown of the pages so far is dropped.
                    tap = self.begin_list_attempt();
                    let page = {
                        let mut sink = |obj: K| {
                            let obj = store.prepare_as(obj, DeltaType::Replaced);
                            tap.listed(&obj);
                            items.push(obj)
                        };
                        self.lw.list_each(&full, &mut sink).await?
                    };
                    self.count_malformed(page.malformed as u64);
                    return Ok((items, page.resource_version, true));
                }
                Err(err) => return Err(err),
            };
            self.count_malformed(page.malformed as u64);
            tap.page_listed(page.remaining_item_count);
            match page.continue_token {
                Some(token) if !token.is_empty() => {
                    paged = true;
                    // The token pins the snapshot; resourceVersion must not be sent with it.
                    opts = ListOptions {
                        continue_token: Some(token),
                        resource_version: None,
                        resource_version_match: None,
                        ..first.clone()
                    };
                }
                _ => return Ok((items, page.resource_version, paged)),
            }
        }
    }

    /// A streaming list (client-go's `watchList`): a watch with `sendInitialEvents=true` whose
    /// events up to the bookmark annotated `k8s.io/initial-events-end` are the list. On success the
    /// store has been replaced and the same watch continues.
    async fn stream_list(
        &mut self,
    ) -> Result<(WatchStream<K>, Instant, usize, Duration), StreamListError> {
        let rv = if self.rv_unavailable {
            String::new()
        } else {
            self.last_sync_rv.clone()
        };
        let timeout_seconds = self.watch_timeout_seconds();
        let opts = WatchOptions {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            resource_version: Some(rv.clone()),
            timeout_seconds: Some(timeout_seconds),
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
        // Keyed as they arrive (the keys go on to the FIFO with the objects); hashed with
        // foldhash, seeded per process.
        let mut initial: HashMap<Arc<str>, Arc<K>, foldhash::fast::RandomState> =
            HashMap::default();
        let tap = self.begin_list_attempt();
        loop {
            let Some(item) = stream.next().await else {
                if started.elapsed() < Duration::from_secs(u64::from(timeout_seconds)) {
                    // Closed early (an API server shutting down, a proxy): the unfinished list is
                    // dropped and a new streaming list requested, as client-go's `watchList`
                    // loop does (after the backoff here; client-go asks again at once).
                    return Err(StreamListError::Retry(Error::Connect(format!(
                        "streaming list closed after {:?}, before the initial-events-end bookmark",
                        started.elapsed()
                    ))));
                }
                // The server let the watch run to its timeout without the initial-events-end
                // bookmark: it does not support streaming lists (or ignored sendInitialEvents).
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
                    // The initial events end in one `replace`: each object is queued Replaced.
                    let obj = self.store.prepare_as(obj, DeltaType::Replaced);
                    match meta_namespace_key(obj.as_ref()) {
                        Ok(key) => {
                            tap.listed(&obj);
                            initial.insert(Arc::from(key), obj);
                        }
                        Err(err) => {
                            tracing::warn!(kind = %self.config.kind, error = %err, "skipping object without a key");
                        }
                    }
                }
                WatchEvent::Deleted(obj) => {
                    if let Ok(key) = meta_namespace_key(&obj)
                        && let Some((key, _)) = initial.remove_entry(key.as_str())
                    {
                        tap.gone(key);
                    }
                }
                WatchEvent::Bookmark {
                    resource_version,
                    initial_events_end,
                } => {
                    if initial_events_end {
                        if let Some(expired) = self.expired_watch_rv.as_deref()
                            && !rv.is_empty()
                            && !rv_is_newer(&resource_version, expired)
                        {
                            // Not newer than the RV a watch was just refused from: watching on
                            // would meet the same 410. Start over with a consistent read.
                            self.rv_unavailable = true;
                            return Err(StreamListError::Retry(Error::Gone(format!(
                                "streaming list at RV {rv} ended at RV {resource_version}, not newer than the expired watch RV {expired}"
                            ))));
                        }
                        let count = initial.len();
                        let list: Vec<(Arc<str>, Arc<K>)> = initial.into_iter().collect();
                        self.store
                            .replace_keyed(list, &resource_version)
                            .map_err(StreamListError::Retry)?;
                        self.rv_unavailable = false;
                        self.expired_watch_rv = None;
                        self.set_last_sync_rv(&resource_version);
                        self.list_completed();
                        return Ok((
                            stream,
                            started,
                            count,
                            Duration::from_secs(u64::from(timeout_seconds)),
                        ));
                    }
                }
                WatchEvent::Error(err) => return Err(StreamListError::classify(err)),
                WatchEvent::Malformed(_) => self.count_malformed(1),
            }
        }
    }

    /// Open a watch from the last synced RV (client-go's `Reflector.watch`, request part).
    async fn open_watch(&mut self) -> State<K> {
        let timeout_seconds = self.watch_timeout_seconds();
        let opts = WatchOptions {
            label_selector: self.config.label_selector.clone(),
            field_selector: self.config.field_selector.clone(),
            resource_version: Some(self.last_sync_rv.clone()),
            timeout_seconds: Some(timeout_seconds),
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
                    timeout: Duration::from_secs(u64::from(timeout_seconds)),
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
                    if err.is_expired() {
                        self.expired_watch_rv = Some(self.last_sync_rv.clone());
                    }
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
        timeout: Duration,
    ) -> State<K> {
        let control = self.control.clone();
        loop {
            let resync_at = self.next_resync;
            let item = tokio::select! {
                item = stream.next() => item,
                req = control.requested() => {
                    // The watch ends here; the next one starts from the last synced RV, so
                    // nothing is lost.
                    return match req {
                        rewind::Request::Check => State::CheckHistory {
                            then: Box::new(State::Watch),
                        },
                        rewind::Request::Relist => self.requested_relist(),
                    };
                }
                _ = sleep_until_opt(resync_at) => {
                    if let Err(err) = self.resync() {
                        // client-go's `startResync` hands the error to the watch, which ends;
                        // the next `ListAndWatch` relists after the backoff. A store that cannot
                        // resync is out of step with us: rebuild it from a list.
                        tracing::warn!(kind = %self.config.kind, error = %err, "resync failed; ending the watch");
                        self.record_error(&err);
                        return self.backoff_then_list("resync failed");
                    }
                    continue;
                }
            };
            match item {
                None => return self.watch_closed(started, received, timeout, None),
                Some(Err(err @ Error::Connect(_))) => {
                    // The connection dropped: like client-go's probable-EOF handling, this is
                    // a close, not a failure.
                    return self.watch_closed(started, received, timeout, Some(err));
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

    /// Resync the store if due and `should_resync` agrees; an error ends the watch (see
    /// `watching`).
    fn resync(&mut self) -> Result<(), Error> {
        let Some(period) = self.resync_period() else {
            self.next_resync = None;
            return Ok(());
        };
        self.next_resync = Some(Instant::now() + period);
        let should = self.config.should_resync.as_ref().is_none_or(|f| f());
        if should {
            tracing::trace!(kind = %self.config.kind, "resync");
            self.store.resync()?;
        }
        Ok(())
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
                // A bookmark carries no object: it only advances our RV (or, older than it,
                // says the server's history went back).
                self.count_event();
                if rewind::rv_is_older(&resource_version, self.last_sync_rv_n) {
                    return Some(
                        self.history_went_back(&resource_version, RewindCause::OlderWatchEvent),
                    );
                }
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
                // The RV a watch was refused from: a list no newer than it must not be trusted
                // (see `expired_watch_rv`).
                if err.is_expired() {
                    self.expired_watch_rv = Some(self.last_sync_rv.clone());
                }
                return Some(self.after_watch_error_event(&err));
            }
        };
        self.count_event();
        // An event older than the last one seen: this server's history is not the one the store
        // follows (an etcd restored under a running watch). Nothing of it is applied.
        if rewind::rv_is_older(resource_version(&obj), self.last_sync_rv_n) {
            let rv = resource_version(&obj).to_string();
            return Some(self.history_went_back(&rv, RewindCause::OlderWatchEvent));
        }
        if self.stale {
            // The watch delivers: the store is current again.
            self.recovered();
        }
        let obj = self.store.prepare_as(
            obj,
            match op {
                Op::Add => DeltaType::Added,
                Op::Update => DeltaType::Updated,
                Op::Delete => DeltaType::Deleted,
            },
        );
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

    /// Where an ERROR event inside an open watch leads (client-go's `Reflector.watch` after
    /// `handleWatch` returned the event's status). The events before it were applied in order,
    /// so the last synced RV stays good unless the server says otherwise.
    fn after_watch_error_event(&mut self, err: &Error) -> State<K> {
        match err {
            // 410 Gone / Expired: the server no longer has our RV's history. Relist after the
            // backoff. client-go leaves `isLastSyncResourceVersionUnavailable` false here: a list
            // at the last synced RV already means "at least as new", so relist from it; if the
            // server cannot serve that either, the list falls back to a consistent read.
            Error::Gone(_) => self.backoff_then_list("watch RV expired"),
            // "Too large resource version": this server has not caught up with our RV. Relist,
            // as client-go's default branch does; the list meets the same answer and retries at
            // once as a consistent read.
            Error::TooLargeResourceVersion(_) => self.backoff_then_list("watch RV too large"),
            // 429: the server is overloaded. Back off and watch again from the last synced RV
            // (client-go `TestBackoffOnTooManyRequests`): a relist is the most expensive answer
            // to an overloaded server.
            Error::TooManyRequests(_) => self.backoff(State::Watch),
            // 500 `StorageReadError` (apimachinery's `StatusReasonStoreReadError`): the server
            // could not decode an object it was about to send (a corrupt object; its unsafe
            // deletion fails the same way). Watching again from our RV would meet the same event
            // forever: relist after the backoff, as client-go does
            // (`TestReflectorReplacesStoreOnUnsafeDelete`); the list no longer has the object.
            err if err.is_store_read_error() => {
                self.backoff_then_list("watch ERROR event: store read error")
            }
            // 5xx (e.g. etcd "no leader" as a 500): nothing is wrong with our RV. Back off and
            // watch again from it. client-go relists here unless `MaxInternalErrorRetryDuration`
            // is set (the API server's own watch cache sets it to 30 s for exactly this case);
            // we retry, with backoff, as for 5xx on the watch request (documented difference).
            Error::Api { code, .. } if *code >= 500 => self.backoff(State::Watch),
            // Anything else (403 after an RBAC change, 404 after a CRD was removed, 401, an
            // undecodable status): the watch itself was refused, and watching again would be
            // refused the same way. Relist after the backoff, as client-go's default branch
            // does; the list reports the refusal to the view (e.g. the 403 message).
            _ => self.backoff_then_list("watch ERROR event"),
        }
    }

    fn count_event(&self) {
        self.status.send_if_modified(|s| {
            s.events += 1;
            false
        });
    }

    /// The watch ended without an ERROR event.
    fn watch_closed(
        &mut self,
        started: Instant,
        received: u64,
        timeout: Duration,
        cause: Option<Error>,
    ) -> State<K> {
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
            // The server (or a proxy) answered, then closed: not an outage the probe could see
            // end, so the backoff grows as usual.
            self.outage = None;
            return self.backoff_then_list("very short watch");
        }
        // Cut off well before its timeout, or by a transport error: the server may have been
        // restarted, possibly over a restored etcd. Check its history before watching again
        // (one request; a watch that ran to its timeout is the steady state and asks nothing).
        let slack = (timeout / 10).max(Duration::from_secs(1));
        if cause.is_some() || lasted + slack < timeout {
            tracing::debug!(kind = %self.config.kind, ?lasted, received, "watch cut off; checking the server's history");
            return State::CheckHistory {
                then: Box::new(State::Watch),
            };
        }
        tracing::debug!(kind = %self.config.kind, ?lasted, received, "watch closed; watching again");
        // A normal close (server timeout): our RV is good, re-watch from it at once without
        // relisting.
        State::Watch
    }
}

/// What each object of a list in progress updates besides the list: the progress in the status
/// (never waking receivers: per object) and the listing log.
struct ListTap<'a, K> {
    status: &'a watch::Sender<ReflectorStatus>,
    lw: &'a dyn ListerWatcher<K>,
    /// The lister-watcher's byte count when the attempt started.
    bytes_base: Option<u64>,
    log: Option<&'a ListingLog<K>>,
}

impl<K: Object> ListTap<'_, K> {
    fn bytes(&self) -> Option<u64> {
        Some(self.lw.received_bytes()?.saturating_sub(self.bytes_base?))
    }

    /// One object received.
    fn listed(&self, obj: &Arc<K>) {
        let bytes = self.bytes();
        self.status.send_if_modified(|s| {
            if let Some(p) = &mut s.list_progress {
                p.objects += 1;
                p.bytes = bytes.or(p.bytes);
            }
            false
        });
        if let Some(log) = self.log {
            log.push(Arc::clone(obj));
        }
    }

    /// A key received earlier in this attempt is not part of it after all.
    fn gone(&self, key: Arc<str>) {
        self.status.send_if_modified(|s| {
            if let Some(p) = &mut s.list_progress {
                p.objects = p.objects.saturating_sub(1);
            }
            false
        });
        if let Some(log) = self.log {
            log.extend(std::iter::once(ListedItem::Gone(key)));
        }
    }

    /// A page ended; the server said how many items remain after it (paged lists).
    fn page_listed(&self, remaining: Option<i64>) {
        let bytes = self.bytes();
        self.status.send_if_modified(|s| {
            if let Some(p) = &mut s.list_progress {
                p.bytes = bytes.or(p.bytes);
                if let Some(r) = remaining.and_then(|r| u64::try_from(r).ok()) {
                    p.total = Some(ListTotal::Exact(p.objects + r));
                } else if matches!(p.total, Some(ListTotal::Exact(_))) {
                    // The last page: the count is what arrived.
                    p.total = Some(ListTotal::Exact(p.objects));
                }
            }
            false
        });
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
        if let Error::Api { message, .. } = &err
            && message.contains("RequestWatchProgress")
        {
            // "a watch stream was requested by the client but the required storage feature
            // RequestWatchProgress is disabled": a 500 that no retry will cure (its etcd lacks
            // progress notifications).
            return StreamListError::Refused(err);
        }
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

/// Whether `rv` is newer than `than`. RVs are opaque to clients; this only compares them when
/// both are integers (etcd revisions, as every API server sends) and otherwise treats any
/// different RV as newer, so the caller's fallback fires exactly on an identical RV.
fn rv_is_newer(rv: &str, than: &str) -> bool {
    match (rv.parse::<u64>(), than.parse::<u64>()) {
        (Ok(a), Ok(b)) => a > b,
        _ => rv != than,
    }
}

async fn sleep_until_opt(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => futures::future::pending().await,
    }
}

mod rewind;
pub use rewind::{HistoryReset, ReflectorControl, RewindCause};

#[cfg(test)]
mod tests;
