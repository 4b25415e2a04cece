//! SharedIndexInformer: reflector → DeltaFIFO → indexer → event handlers.
//!
//! client-go counterpart: `tools/cache/shared_informer.go` (`sharedIndexInformer`,
//! `sharedProcessor`, `processorListener`) and `tools/cache/controller.go` (`processDeltas`,
//! `controller.processLoop`).
//!
//! Invariants:
//! - deltas are applied to the indexer in pop order, and each handler sees the notifications for
//!   one key in the order they were applied (one FIFO consumer, one ordered buffer per handler);
//! - the indexer is updated *before* handlers are notified, so a handler that reads the indexer
//!   sees at least the state it was told about;
//! - every handler has its own unbounded buffer drained by its own thread: a slow (or blocked)
//!   handler never delays the informer or other handlers; its buffer grows instead;
//! - adding a handler and distributing deltas exclude each other (client-go's `blockDeltas`): a
//!   handler added after start gets one synthetic `on_add(obj, true)` for every cached object and
//!   then exactly the changes applied after that snapshot;
//! - an update whose old and new resourceVersion are equal (a `Sync`, or a relist that found no
//!   change) reaches only the handlers whose resync period is due;
//! - a handler's `has_synced` is true once the informer has synced *and* the handler has
//!   processed every notification that was part of the initial list;
//! - the event tap holds at most `capacity` entries; sequence numbers increase by one per entry.
//!
//! # Where this differs from client-go, and why
//! - If the indexer rejects an object (a failing index function) the remaining deltas of the same
//!   pop are still applied (client-go drops them), the failure is counted as malformed and logged.
//! - Handler panics are caught and logged so a bug in one callback does not stop that handler's
//!   stream.
//! - **A handler's resync period is honoured on an informer created without one**, if the handler
//!   is added before the informer starts: the informer's resync check period is lowered to the
//!   handler's period, exactly as client-go lowers a non-zero check period. client-go instead
//!   keeps a check period of 0 and silently disables that handler's resync
//!   (`determineResyncPeriod(desired, 0) == 0`, only a log line): a period the caller asked for
//!   explicitly is lost because of a default someone else chose when creating the shared
//!   informer. After the start the reflector's resync timer is fixed, so there, as in client-go,
//!   the period is dropped with a warning.
//! - The transform, indexers given at creation and reflector settings are fixed when the
//!   informer is built (no `SetTransform`/`SetWatchErrorHandler`), so client-go's start races
//!   (`TestSharedInformerStartRace`) cannot arise; list and watch errors are reported in the
//!   reflector status (shown by the dashboard) instead of to a watch error handler.
//! - A [`HandlerRegistration`] removes itself from the informer it came from, so client-go's
//!   "remove a foreign registration" case (`TestSharedInformerRemoveForeignHandler`) cannot be
//!   expressed; adding a handler to a stopped informer fails with [`Error::Closed`].
//! - Besides the handlers, an optional pop observer ([`InformerConfig::pop_observer`]) is shown
//!   each pop's deltas, tombstones included, with no listener buffer between: the flight
//!   recorder's view of the deletions a relist finds (client-go has no such hook; a handler
//!   would do, but every runtime path that makes an informer would have to add it).
//!
//! client-go's `shared_informer_test.go` is ported case by case in `tests/ported.rs`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, SystemTime};

use parking_lot::Mutex;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::delta_fifo::{
    Delta, DeltaFifo, DeltaFifoOptions, DeltaObject, DeltaType, Deltas, KnownObjects, Observer,
    Popped, Transform, default_transform,
};
use super::history::History;
use super::index::{Indexers, default_indexers};
use super::list_watch::ListerWatcher;
use super::listing::ListingLog;
use super::reflector::{Reflector, ReflectorConfig, ReflectorStatus};
use super::store::{ReflectorStore, resource_version};
use super::thread_safe_store::ThreadSafeStore;
use super::{Error, Object};

/// What `on_delete` receives: the deleted object, or a [`DeletedFinalStateUnknown`] tombstone
/// when the deletion was discovered by a relist.
///
/// [`DeletedFinalStateUnknown`]: super::delta_fifo::DeletedFinalStateUnknown
pub type DeleteObject<K> = DeltaObject<K>;

/// Receives an informer's notifications (client-go's `ResourceEventHandler`). Called from the
/// handler's own thread, one notification at a time, in order.
pub trait ResourceEventHandler<K>: Send + Sync {
    /// An object appeared (or was listed). `is_in_initial_list` is true for the objects of the
    /// informer's first list and for the synthetic adds a late handler receives.
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool);
    /// An object changed; `old` and `new` have the same resourceVersion for a resync.
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>);
    /// An object was deleted.
    fn on_delete(&self, obj: &DeleteObject<K>);
}

type AddFn<K> = Box<dyn Fn(&Arc<K>, bool) + Send + Sync>;
type UpdateFn<K> = Box<dyn Fn(&Arc<K>, &Arc<K>) + Send + Sync>;
type DeleteFn<K> = Box<dyn Fn(&DeleteObject<K>) + Send + Sync>;

/// A handler made of optional closures (client-go's `ResourceEventHandlerFuncs`).
pub struct ResourceEventHandlerFuncs<K> {
    pub add: Option<AddFn<K>>,
    pub update: Option<UpdateFn<K>>,
    pub delete: Option<DeleteFn<K>>,
}

impl<K> Default for ResourceEventHandlerFuncs<K> {
    fn default() -> Self {
        Self {
            add: None,
            update: None,
            delete: None,
        }
    }
}

impl<K: Send + Sync> ResourceEventHandler<K> for ResourceEventHandlerFuncs<K> {
    fn on_add(&self, obj: &Arc<K>, is_in_initial_list: bool) {
        if let Some(f) = &self.add {
            f(obj, is_in_initial_list);
        }
    }
    fn on_update(&self, old: &Arc<K>, new: &Arc<K>) {
        if let Some(f) = &self.update {
            f(old, new);
        }
    }
    fn on_delete(&self, obj: &DeleteObject<K>) {
        if let Some(f) = &self.delete {
            f(obj);
        }
    }
}

/// client-go's `minimumResyncPeriod`: shorter handler resync periods are raised to this.
pub const MINIMUM_RESYNC_PERIOD: Duration = Duration::from_secs(1);

/// Items popped one after another without awaiting the FIFO when they are already queued (each
/// still one `pop`: its own lock, its own `process`, in FIFO order); then the loop yields to the
/// runtime. Registering a wakeup and polling the cancellation for every item of a 100k list was
/// a tenth of the instructions of applying it.
const POP_BATCH: usize = 256;

/// Default capacity of an informer's own event tap.
pub const DEFAULT_TAP_CAPACITY: usize = 10_000;

/// Width of the sliding window behind [`InformerStats::deltas_per_sec`].
const RATE_WINDOW_SECS: u64 = 5;

// ---------------------------------------------------------------------------------------------
// Event tap

/// One delta popped by an informer, as the dashboard's event log shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TapEntry {
    /// Position in the tap; increases by one per entry, starting at 1.
    pub seq: u64,
    /// When the delta was popped.
    pub at: SystemTime,
    /// The informer's kind (shared string).
    pub kind: Arc<str>,
    /// The delta's type.
    pub delta: DeltaType,
    /// Whether the delta carried a `DeletedFinalStateUnknown` (deletion found by a relist).
    pub tombstone: bool,
    /// The object's key (shared with the FIFO).
    pub key: Arc<str>,
    /// The object's resourceVersion (`""` for a tombstone without a last known state).
    pub resource_version: String,
    /// FIFO depth right after this key was popped.
    pub queue_depth: usize,
    /// The cluster of the informer it came from, when a dashboard watches several (set by
    /// the reader of the tap; `None` as recorded).
    pub cluster: Option<Arc<str>>,
}

struct TapRing {
    /// Oldest first; `entries[i].seq == entries[0].seq + i`; never longer than `capacity`.
    entries: VecDeque<TapEntry>,
    /// Sequence number of the last entry ever recorded (0 = none yet).
    last_seq: u64,
}

/// A bounded ring of every delta popped, shared by any number of informers (the factory uses
/// one for all of its informers). Readers poll [`EventTap::since`] and may await
/// [`EventTap::notify`], which is woken after each recorded batch.
pub struct EventTap {
    capacity: usize,
    ring: Mutex<TapRing>,
    notify: Notify,
}

impl std::fmt::Debug for EventTap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventTap")
            .field("capacity", &self.capacity)
            .field("latest_seq", &self.latest_seq())
            .finish()
    }
}

impl EventTap {
    /// A tap keeping the last `capacity` entries (at least 1).
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            capacity,
            ring: Mutex::new(TapRing {
                entries: VecDeque::with_capacity(capacity.min(1024)),
                last_seq: 0,
            }),
            notify: Notify::new(),
        }
    }

    /// How many entries the tap keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Entries currently held.
    pub fn len(&self) -> usize {
        self.ring.lock().entries.len()
    }

    /// Whether nothing was recorded yet (or the tap holds nothing).
    pub fn is_empty(&self) -> bool {
        self.ring.lock().entries.is_empty()
    }

    /// Sequence number of the newest entry (0 when nothing was recorded).
    pub fn latest_seq(&self) -> u64 {
        self.ring.lock().last_seq
    }

    /// Entries with `seq > after`, oldest first. Entries already evicted are skipped; a reader
    /// that sees a gap between `after` and the first returned `seq` has lost that many.
    pub fn since(&self, after: u64) -> Vec<TapEntry> {
        let ring = self.ring.lock();
        let Some(first) = ring.entries.front().map(|e| e.seq) else {
            return Vec::new();
        };
        let skip =
            usize::try_from(after.saturating_add(1).saturating_sub(first)).unwrap_or(usize::MAX);
        ring.entries.iter().skip(skip).cloned().collect()
    }

    /// Woken (`notify_waiters`) after every recorded batch.
    pub fn notify(&self) -> &Notify {
        &self.notify
    }

    /// Record the deltas of one pop.
    pub fn record(
        &self,
        kind: &Arc<str>,
        key: &Arc<str>,
        deltas: &Deltas<impl Object>,
        queue_depth: usize,
    ) {
        if deltas.is_empty() {
            return;
        }
        let at = SystemTime::now();
        {
            let mut ring = self.ring.lock();
            for d in deltas {
                ring.last_seq += 1;
                let entry = TapEntry {
                    seq: ring.last_seq,
                    at,
                    kind: Arc::clone(kind),
                    delta: d.kind,
                    tombstone: d.object.is_tombstone(),
                    key: Arc::clone(key),
                    resource_version: d
                        .object
                        .object()
                        .map(|o| resource_version(&**o).to_string())
                        .unwrap_or_default(),
                    queue_depth,
                    cluster: None,
                };
                if ring.entries.len() == self.capacity {
                    ring.entries.pop_front();
                }
                ring.entries.push_back(entry);
            }
        }
        self.notify.notify_waiters();
    }
}

// ---------------------------------------------------------------------------------------------
// Handlers (client-go's sharedProcessor / processorListener)

enum Notification<K> {
    Add(Arc<K>, bool),
    Update(Arc<K>, Arc<K>),
    Delete(DeleteObject<K>),
}

impl<K> Clone for Notification<K> {
    fn clone(&self) -> Self {
        match self {
            Notification::Add(o, i) => Notification::Add(Arc::clone(o), *i),
            Notification::Update(a, b) => Notification::Update(Arc::clone(a), Arc::clone(b)),
            Notification::Delete(d) => Notification::Delete(d.clone()),
        }
    }
}

struct ResyncState {
    /// Effective period (after adjusting to the informer's resync check period); `None` = never.
    period: Option<Duration>,
    /// When the next resync is due.
    next: tokio::time::Instant,
    /// Whether the last `should_resync` found this listener due (client-go `syncingListeners`).
    syncing: bool,
}

struct Listener<K> {
    id: u64,
    /// Sender to the handler's thread; `None` once removed or stopped.
    tx: Mutex<Option<std::sync::mpsc::Sender<Notification<K>>>>,
    /// Set on removal: the thread stops without draining its buffer (as client-go does).
    removed: Arc<AtomicBool>,
    /// The period the caller asked for (client-go `requestedResyncPeriod`).
    requested_resync: Option<Duration>,
    resync: Mutex<ResyncState>,
    /// Initial-list notifications sent but not yet processed by the handler.
    initial_pending: Arc<AtomicUsize>,
    /// Notifications sent but not yet processed (the handler's buffer depth).
    buffered: Arc<AtomicUsize>,
}

impl<K> Listener<K> {
    fn send(&self, n: Notification<K>) {
        let tx = self.tx.lock();
        let Some(tx) = tx.as_ref() else {
            return;
        };
        let initial = matches!(n, Notification::Add(_, true));
        if initial {
            self.initial_pending.fetch_add(1, Ordering::SeqCst);
        }
        self.buffered.fetch_add(1, Ordering::Relaxed);
        if tx.send(n).is_err() {
            // The handler thread is gone; undo the bookkeeping so has_synced cannot hang on it.
            self.buffered.fetch_sub(1, Ordering::Relaxed);
            if initial {
                self.initial_pending.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }

    fn stop(&self) {
        self.removed.store(true, Ordering::SeqCst);
        self.tx.lock().take();
    }
}

fn spawn_listener_thread<K: Object>(
    name: String,
    handler: Arc<dyn ResourceEventHandler<K>>,
    rx: std::sync::mpsc::Receiver<Notification<K>>,
    removed: Arc<AtomicBool>,
    initial_pending: Arc<AtomicUsize>,
    buffered: Arc<AtomicUsize>,
) -> std::io::Result<()> {
    std::thread::Builder::new().name(name).spawn(move || {
        while let Ok(n) = rx.recv() {
            if removed.load(Ordering::SeqCst) {
                break;
            }
            let initial = matches!(n, Notification::Add(_, true));
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &n {
                Notification::Add(o, i) => handler.on_add(o, *i),
                Notification::Update(a, b) => handler.on_update(a, b),
                Notification::Delete(d) => handler.on_delete(d),
            }));
            if outcome.is_err() {
                tracing::error!("event handler panicked; notification skipped");
            }
            buffered.fetch_sub(1, Ordering::Relaxed);
            if initial {
                initial_pending.fetch_sub(1, Ordering::SeqCst);
            }
        }
    })?;
    Ok(())
}

/// client-go's `determineResyncPeriod`.
fn determine_resync_period(desired: Option<Duration>, check: Option<Duration>) -> Option<Duration> {
    let desired = desired.filter(|d| !d.is_zero())?;
    let Some(check) = check.filter(|c| !c.is_zero()) else {
        tracing::warn!(
            ?desired,
            "resync requested but the informer's resync check period is 0; resync disabled"
        );
        return None;
    };
    Some(desired.max(check))
}

/// A registered handler (client-go's `ResourceEventHandlerRegistration`).
pub struct HandlerRegistration<K: Object> {
    listener: Arc<Listener<K>>,
    informer: Weak<SharedIndexInformer<K>>,
}

impl<K: Object> std::fmt::Debug for HandlerRegistration<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandlerRegistration")
            .field("id", &self.listener.id)
            .finish()
    }
}

impl<K: Object> HandlerRegistration<K> {
    /// True once the informer has synced and this handler has processed every notification of
    /// the initial list (for a late handler: every synthetic add).
    pub fn has_synced(&self) -> bool {
        let Some(informer) = self.informer.upgrade() else {
            return false;
        };
        informer.has_synced() && self.listener.initial_pending.load(Ordering::SeqCst) == 0
    }

    /// Notifications waiting in this handler's buffer.
    pub fn buffered(&self) -> usize {
        self.listener.buffered.load(Ordering::Relaxed)
    }

    /// Unregister the handler: it receives nothing more (buffered notifications are dropped).
    pub fn remove(&self) {
        if let Some(informer) = self.informer.upgrade() {
            informer
                .listeners
                .lock()
                .retain(|l| l.id != self.listener.id);
        }
        self.listener.stop();
    }
}

// ---------------------------------------------------------------------------------------------
// The informer

/// How to build a [`SharedIndexInformer`].
pub struct InformerConfig<K> {
    /// Display name of the kind (e.g. `pods` or `apps/v1/deployments`), used in logs, stats and
    /// the event tap.
    pub kind: String,
    /// Resync period for handlers added with `resync: None` (client-go's
    /// `defaultEventHandlerResyncPeriod`); `None` or zero = never.
    pub resync_period: Option<Duration>,
    /// The indexer's indexes; more can be added later with
    /// [`SharedIndexInformer::add_indexers`].
    pub indexers: Indexers<K>,
    /// Applied to every received object before it is stored; [`default_transform`] by default.
    pub transform: Option<Transform<K>>,
    /// The tap to record popped deltas into; `None` = a tap of its own.
    pub tap: Option<Arc<EventTap>>,
    /// Capacity of the informer's own tap (when `tap` is `None`).
    pub tap_capacity: usize,
    /// Reflector settings (paging, selectors, streaming list). `kind`, `resync_period` and
    /// `should_resync` are set by the informer.
    pub reflector: ReflectorConfig,
    /// Shown every received object before the transform, with the delta type it is queued as
    /// (per-object history records the versions here, see [`super::history`]).
    pub observer: Option<Observer<K>>,
    /// The history recorder told of every pop (it names deletions and tombstones, and versions
    /// observed without their delta type), and this informer's resource name there.
    pub history: Option<(Arc<str>, Arc<History>)>,
    /// Shown every pop's key and deltas after the handlers (a flight recorder learns here of
    /// the deletions a relist finds, which no decoded object carries).
    pub pop_observer: Option<PopObserver<K>>,
}

/// Shown each pop's key and deltas (see [`InformerConfig::pop_observer`]).
pub type PopObserver<K> = Arc<dyn Fn(&str, &[Delta<K>]) + Send + Sync>;

impl<K: Object> Default for InformerConfig<K> {
    fn default() -> Self {
        Self {
            kind: String::new(),
            resync_period: None,
            indexers: default_indexers(),
            transform: Some(default_transform()),
            tap: None,
            tap_capacity: DEFAULT_TAP_CAPACITY,
            reflector: ReflectorConfig::default(),
            observer: None,
            history: None,
            pop_observer: None,
        }
    }
}

/// A snapshot of an informer's counters and its reflector's status, for the dashboard.
#[derive(Debug, Clone)]
pub struct InformerStats {
    pub kind: String,
    /// Deltas popped since start.
    pub deltas_total: u64,
    /// Deltas popped per second over the last few seconds, the initial list's left out (its
    /// burst is the sync, not the cluster's rate of change: a view just opened would read
    /// hundreds per second for a few seconds).
    pub deltas_per_sec: f64,
    /// Keys waiting in the DeltaFIFO.
    pub queue_depth: usize,
    /// Objects in the indexer.
    pub cached_objects: usize,
    /// Objects skipped: undecodable (counted by the reflector) or rejected by the indexer.
    pub malformed: u64,
    /// Registered handlers.
    pub handlers: usize,
    /// Notifications buffered across all handlers.
    pub handler_backlog: usize,
    pub has_synced: bool,
    pub running: bool,
    /// The reflector's status; `None` before the informer starts.
    pub reflector: Option<ReflectorStatus>,
    /// The encoding its lister-watcher reads ([`ListerWatcher::wire`]).
    pub wire: &'static str,
}

/// Per-second buckets over a short sliding window.
struct RateWindow {
    origin: tokio::time::Instant,
    /// (second since origin, count), oldest first, only seconds within the window.
    buckets: VecDeque<(u64, u64)>,
}

impl RateWindow {
    fn new() -> Self {
        Self {
            origin: tokio::time::Instant::now(),
            buckets: VecDeque::new(),
        }
    }

    fn now_sec(&self) -> u64 {
        tokio::time::Instant::now()
            .saturating_duration_since(self.origin)
            .as_secs()
    }

    fn trim(&mut self, now: u64) {
        while self
            .buckets
            .front()
            .is_some_and(|(s, _)| *s + RATE_WINDOW_SECS <= now)
        {
            self.buckets.pop_front();
        }
    }

    fn record(&mut self, n: u64) {
        let now = self.now_sec();
        self.trim(now);
        match self.buckets.back_mut() {
            Some((s, c)) if *s == now => *c += n,
            _ => self.buckets.push_back((now, n)),
        }
    }

    fn rate(&mut self) -> f64 {
        let elapsed = tokio::time::Instant::now().saturating_duration_since(self.origin);
        let now = elapsed.as_secs();
        self.trim(now);
        let total: u64 = self.buckets.iter().map(|(_, c)| c).sum();
        // Divide by the time the window actually covers (short right after start).
        let span = elapsed.as_secs_f64().min(RATE_WINDOW_SECS as f64).max(1.0);
        total as f64 / span
    }
}

struct RunState {
    started: bool,
    stopped: bool,
    /// client-go's `resyncCheckPeriod`: how often the reflector asks `should_resync`.
    resync_check_period: Option<Duration>,
}

/// client-go's `sharedIndexInformer`. Build with [`SharedIndexInformer::new`], register handlers
/// with [`SharedIndexInformer::add_event_handler`], then drive it with
/// [`SharedIndexInformer::run`] (usually through the factory).
pub struct SharedIndexInformer<K: Object> {
    kind: Arc<str>,
    lw: Arc<dyn ListerWatcher<K>>,
    indexer: Arc<ThreadSafeStore<K>>,
    fifo: Arc<DeltaFifo<K>>,
    reflector_config: ReflectorConfig,
    default_resync: Option<Duration>,
    /// Registered handlers. Locked (briefly) by distribution and by (un)registration.
    listeners: Mutex<Vec<Arc<Listener<K>>>>,
    next_listener_id: AtomicU64,
    /// client-go's `blockDeltas` + `startedLock`: held while a popped item is applied and
    /// distributed, and while a handler joins.
    run_state: Mutex<RunState>,
    tap: Arc<EventTap>,
    deltas_total: AtomicU64,
    malformed: AtomicU64,
    rate: Mutex<RateWindow>,
    reflector_status: Mutex<Option<watch::Receiver<ReflectorStatus>>>,
    /// Asks the reflector for a history check or a relist (see the reflector's `rewind`).
    control: crate::informer::reflector::ReflectorControl,
    history: Option<(Arc<str>, Arc<History>)>,
    pop_observer: Option<PopObserver<K>>,
    /// The objects of the list in progress, for views that show a list as it arrives.
    listing: Arc<ListingLog<K>>,
}

impl<K: Object> std::fmt::Debug for SharedIndexInformer<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedIndexInformer")
            .field("kind", &self.kind)
            .field("cached", &self.indexer.len())
            .finish()
    }
}

impl<K: Object> SharedIndexInformer<K> {
    /// A new informer over `lw`. Nothing happens until [`Self::run`].
    pub fn new(lw: Arc<dyn ListerWatcher<K>>, config: InformerConfig<K>) -> Arc<Self> {
        let indexer = Arc::new(ThreadSafeStore::new(config.indexers));
        let known: Arc<dyn KnownObjects<K>> = indexer.clone();
        let fifo = Arc::new(DeltaFifo::new(DeltaFifoOptions {
            known_objects: Some(known),
            transform: config.transform,
            observer: config.observer,
        }));
        let default_resync = config.resync_period.filter(|d| !d.is_zero());
        let tap = config
            .tap
            .unwrap_or_else(|| Arc::new(EventTap::new(config.tap_capacity)));
        Arc::new(Self {
            kind: Arc::from(config.kind.as_str()),
            lw,
            indexer,
            fifo,
            reflector_config: config.reflector,
            default_resync,
            listeners: Mutex::new(Vec::new()),
            next_listener_id: AtomicU64::new(1),
            run_state: Mutex::new(RunState {
                started: false,
                stopped: false,
                resync_check_period: default_resync,
            }),
            tap,
            deltas_total: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
            rate: Mutex::new(RateWindow::new()),
            reflector_status: Mutex::new(None),
            control: crate::informer::reflector::ReflectorControl::default(),
            history: config.history,
            pop_observer: config.pop_observer,
            listing: Arc::new(ListingLog::new()),
        })
    }

    /// The kind this informer watches.
    pub fn kind(&self) -> &str {
        &self.kind
    }

    /// The indexer (client-go's `GetIndexer`): read it freely; only the informer writes it.
    pub fn indexer(&self) -> Arc<ThreadSafeStore<K>> {
        Arc::clone(&self.indexer)
    }

    /// The objects of the list in progress (see [`super::listing`]): a view reads the rows of a
    /// list from it as they arrive; the indexer gets the list whole, at its end.
    pub fn listing(&self) -> Arc<ListingLog<K>> {
        Arc::clone(&self.listing)
    }

    /// The event tap this informer records into.
    pub fn tap(&self) -> Arc<EventTap> {
        Arc::clone(&self.tap)
    }

    /// Add indexes, also after start (existing objects are indexed at once).
    pub fn add_indexers(&self, indexers: Indexers<K>) -> Result<(), Error> {
        if self.run_state.lock().stopped {
            return Err(Error::Closed);
        }
        self.indexer.add_indexers(indexers)
    }

    /// True once the first list has been applied to the indexer (client-go `HasSynced`).
    pub fn has_synced(&self) -> bool {
        self.fifo.has_synced()
    }

    /// Whether [`Self::run`] is running (started and not stopped).
    pub fn is_running(&self) -> bool {
        let s = self.run_state.lock();
        s.started && !s.stopped
    }

    /// A receiver of the reflector's status (woken on its transitions: state, errors, completed
    /// lists; not per event); `None` before the informer starts.
    pub fn reflector_status(&self) -> Option<watch::Receiver<ReflectorStatus>> {
        self.reflector_status.lock().clone()
    }

    /// Ask the reflector to check the server's history before watching on (`ctrl-r`).
    pub fn check_history(&self) {
        self.control.check_history();
    }

    /// Ask the reflector to list again from scratch (a consistent read) and replace the store.
    pub fn relist(&self) {
        self.control.relist();
    }

    /// Compare the cache with a fresh consistent list of the server (paged, in this informer's
    /// encoding) by key and resourceVersion (see [`crate::informer::consistency`]); when they
    /// differ, ask the reflector to list again.
    pub async fn verify(&self) -> Result<crate::informer::consistency::Verification, Error> {
        let cache_rv = self.last_sync_resource_version();
        // Read once the list is in: what changed meanwhile is newer than the list, not wrong.
        let cached = || {
            self.indexer
                .list()
                .iter()
                .filter_map(|o| {
                    let key = crate::informer::store::meta_namespace_key(o.as_ref()).ok()?;
                    let rv = crate::informer::store::resource_version(o.as_ref()).to_string();
                    Some((key, rv))
                })
                .collect()
        };
        let v = crate::informer::consistency::verify(
            self.lw.as_ref(),
            cached,
            &cache_rv,
            self.reflector_config.page_size,
            self.reflector_config.label_selector.clone(),
            self.reflector_config.field_selector.clone(),
        )
        .await?;
        if !v.differences.is_empty() {
            self.relist();
        }
        Ok(v)
    }

    /// The reflector's last resourceVersion (client-go `LastSyncResourceVersion`).
    pub fn last_sync_resource_version(&self) -> String {
        self.reflector_status
            .lock()
            .as_ref()
            .map(|rx| rx.borrow().last_sync_resource_version.clone())
            .unwrap_or_default()
    }

    /// Register a handler. `resync`: `None` = the informer's default period, `Some(ZERO)` =
    /// never. Periods below [`MINIMUM_RESYNC_PERIOD`] are raised to it; after start, periods
    /// below the informer's resync check period are raised to that (as client-go does).
    /// Fails with [`Error::Closed`] once the informer has stopped.
    pub fn add_event_handler(
        self: &Arc<Self>,
        handler: Arc<dyn ResourceEventHandler<K>>,
        resync: Option<Duration>,
    ) -> Result<HandlerRegistration<K>, Error> {
        let mut requested = resync.or(self.default_resync).filter(|d| !d.is_zero());
        if let Some(r) = requested
            && r < MINIMUM_RESYNC_PERIOD
        {
            tracing::warn!(kind = %self.kind, ?r, "resync period too small; raised to {MINIMUM_RESYNC_PERIOD:?}");
            requested = Some(MINIMUM_RESYNC_PERIOD);
        }

        // Hold blockDeltas for the whole join so no delta is distributed in between.
        let mut state = self.run_state.lock();
        if state.stopped {
            return Err(Error::Closed);
        }
        if let Some(r) = requested
            && state.resync_check_period.is_none_or(|c| r < c)
        {
            if state.started {
                tracing::warn!(kind = %self.kind, ?r, check = ?state.resync_check_period,
                    "informer already started; handler resync period raised to the check period");
                requested = state.resync_check_period.or(Some(r));
            } else {
                state.resync_check_period = Some(r);
                for l in self.listeners.lock().iter() {
                    l.resync.lock().period = determine_resync_period(l.requested_resync, Some(r));
                }
            }
        }

        let id = self.next_listener_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = std::sync::mpsc::channel();
        let removed = Arc::new(AtomicBool::new(false));
        let initial_pending = Arc::new(AtomicUsize::new(0));
        let buffered = Arc::new(AtomicUsize::new(0));
        let period = determine_resync_period(requested, state.resync_check_period);
        let listener = Arc::new(Listener {
            id,
            tx: Mutex::new(Some(tx)),
            removed: Arc::clone(&removed),
            requested_resync: requested,
            resync: Mutex::new(ResyncState {
                period,
                next: tokio::time::Instant::now() + period.unwrap_or_default(),
                syncing: false,
            }),
            initial_pending: Arc::clone(&initial_pending),
            buffered: Arc::clone(&buffered),
        });
        if let Err(e) = spawn_listener_thread(
            format!("handler-{}-{id}", self.kind),
            handler,
            rx,
            removed,
            initial_pending,
            buffered,
        ) {
            tracing::error!(kind = %self.kind, error = %e, "cannot start a handler thread");
            return Err(Error::Closed);
        }
        self.listeners.lock().push(Arc::clone(&listener));
        if state.started {
            for obj in self.indexer.list() {
                listener.send(Notification::Add(obj, true));
            }
        }
        drop(state);
        Ok(HandlerRegistration {
            listener,
            informer: Arc::downgrade(self),
        })
    }

    /// client-go `sharedProcessor.shouldResync`: mark the listeners whose resync is due; true if
    /// any is. The reflector calls this on its resync timer before `resync`.
    fn should_resync(&self) -> bool {
        let now = tokio::time::Instant::now();
        let mut any = false;
        for l in self.listeners.lock().iter() {
            let mut r = l.resync.lock();
            r.syncing = false;
            if let Some(p) = r.period
                && now >= r.next
            {
                r.syncing = true;
                r.next = now + p;
                any = true;
            }
        }
        any
    }

    fn distribute(&self, n: Notification<K>, is_sync: bool) {
        for l in self.listeners.lock().iter() {
            if !is_sync || l.resync.lock().syncing {
                l.send(n.clone());
            }
        }
    }

    /// client-go `HandleDeltas` + `processDeltas`: apply one key's deltas to the indexer and
    /// notify handlers. Runs under the FIFO's lock.
    fn handle_deltas(
        &self,
        key: &Arc<str>,
        deltas: &Deltas<K>,
        is_in_initial_list: bool,
    ) -> Result<(), Error> {
        let _block = self.run_state.lock();
        let mut first_err = None;
        for d in deltas {
            match d.kind {
                DeltaType::Deleted => {
                    self.indexer.delete(key);
                    self.distribute(Notification::Delete(d.object.clone()), false);
                }
                DeltaType::Sync | DeltaType::Replaced | DeltaType::Added | DeltaType::Updated => {
                    let DeltaObject::Object(obj) = &d.object else {
                        tracing::error!(kind = %self.kind, %key, delta = %d.kind, "tombstone on a non-delete delta; skipped");
                        self.malformed.fetch_add(1, Ordering::Relaxed);
                        continue;
                    };
                    let old = match self.indexer.update_shared(key, Arc::clone(obj)) {
                        Ok(old) => old,
                        Err(e) => {
                            tracing::warn!(kind = %self.kind, %key, error = %e, "indexer rejected object");
                            self.malformed.fetch_add(1, Ordering::Relaxed);
                            first_err.get_or_insert(e);
                            continue;
                        }
                    };
                    match old {
                        Some(old) => {
                            let is_sync = resource_version(&*old) == resource_version(&**obj);
                            self.distribute(Notification::Update(old, Arc::clone(obj)), is_sync);
                        }
                        None => self.distribute(
                            Notification::Add(Arc::clone(obj), is_in_initial_list),
                            false,
                        ),
                    }
                }
            }
        }
        first_err.map_or(Ok(()), Err)
    }

    fn popped(&self, p: &Popped<K>) {
        self.after_pop(p);
        if let Err(e) = &p.result {
            tracing::debug!(kind = %self.kind, key = %p.key, error = %e, "delta processing reported an error");
        }
    }

    fn after_pop(&self, popped: &Popped<K>) {
        let n = popped.deltas.len() as u64;
        self.deltas_total.fetch_add(n, Ordering::Relaxed);
        if !popped.is_in_initial_list {
            self.rate.lock().record(n);
        }
        self.tap
            .record(&self.kind, &popped.key, &popped.deltas, popped.queue_depth);
        if let Some((resource, history)) = &self.history {
            history.popped(resource, &popped.key, &popped.deltas);
        }
        if let Some(observe) = &self.pop_observer {
            observe(&popped.key, &popped.deltas);
        }
    }

    /// Run until `cancel` fires: start the reflector and apply popped deltas. On return the
    /// reflector has stopped, the FIFO is closed and handlers receive nothing more. Calling it a
    /// second time (concurrently or after stop) returns at once.
    pub async fn run(self: &Arc<Self>, cancel: CancellationToken) {
        let check_period = {
            let mut s = self.run_state.lock();
            if s.started || s.stopped {
                tracing::warn!(kind = %self.kind, "informer already started; run ignored");
                return;
            }
            s.started = true;
            s.resync_check_period
        };
        let mut config = self.reflector_config.clone();
        config.kind = self.kind.to_string();
        config.resync_period = check_period;
        let weak = Arc::downgrade(self);
        config.should_resync = Some(Arc::new(move || {
            weak.upgrade().is_some_and(|i| i.should_resync())
        }));
        let store: Arc<dyn ReflectorStore<K>> = self.fifo.clone();
        let reflector = Reflector::new(Arc::clone(&self.lw), store, config)
            .with_listing_log(Arc::clone(&self.listing))
            .with_control(self.control.clone());
        *self.reflector_status.lock() = Some(reflector.status());
        let reflector_cancel = cancel.child_token();
        let reflector_task = tokio::spawn(reflector.run(reflector_cancel.clone()));

        loop {
            let popped = tokio::select! {
                biased;
                _ = cancel.cancelled() => break,
                p = self.fifo.pop(|k, d, i| self.handle_deltas(k, d, i)) => p,
            };
            match popped {
                Ok(p) => self.popped(&p),
                Err(_) => break,
            }
            for _ in 1..POP_BATCH {
                if cancel.is_cancelled() {
                    break;
                }
                match self.fifo.try_pop(|k, d, i| self.handle_deltas(k, d, i)) {
                    Some(p) => self.popped(&p),
                    None => break,
                }
            }
        }

        reflector_cancel.cancel();
        self.fifo.close();
        if let Err(e) = reflector_task.await {
            tracing::error!(kind = %self.kind, error = %e, "reflector task failed");
        }
        let listeners = {
            let mut s = self.run_state.lock();
            s.stopped = true;
            std::mem::take(&mut *self.listeners.lock())
        };
        for l in listeners {
            l.stop();
        }
        tracing::debug!(kind = %self.kind, "informer stopped");
    }

    #[cfg(test)]
    pub(crate) fn fifo_prepare_for_test(&self, obj: K) -> Arc<K> {
        self.fifo.prepare(obj)
    }

    #[cfg(test)]
    pub(crate) fn reflector_config_for_test(&self) -> &ReflectorConfig {
        &self.reflector_config
    }

    /// Counters and reflector status for the dashboard's informer panel.
    pub fn stats(&self) -> InformerStats {
        let listeners = self.listeners.lock();
        let handler_backlog = listeners
            .iter()
            .map(|l| l.buffered.load(Ordering::Relaxed))
            .sum();
        let handlers = listeners.len();
        drop(listeners);
        let reflector = self
            .reflector_status
            .lock()
            .as_ref()
            .map(|rx| rx.borrow().clone());
        let reflector_malformed = reflector.as_ref().map_or(0, |r| r.malformed);
        InformerStats {
            kind: self.kind.to_string(),
            deltas_total: self.deltas_total.load(Ordering::Relaxed),
            deltas_per_sec: self.rate.lock().rate(),
            queue_depth: self.fifo.len(),
            cached_objects: self.indexer.len(),
            malformed: self.malformed.load(Ordering::Relaxed) + reflector_malformed,
            handlers,
            handler_backlog,
            has_synced: self.has_synced(),
            running: self.is_running(),
            reflector,
            wire: self.lw.wire(),
        }
    }
}

#[cfg(test)]
mod tests;
