//! DeltaFIFO: a queue of per-object change lists between the reflector and the indexer.
//!
//! client-go counterpart: `tools/cache/delta_fifo.go` (`DeltaFIFO`, `Delta`, `Deltas`,
//! `DeletedFinalStateUnknown`, `KeyListerGetter`), with `EmitDeltaTypeReplaced` always on.
//!
//! The reflector writes watch events (`add`/`update`/`delete`) and relists (`replace`) here; one
//! consumer `pop`s a key together with every change queued for it since the last pop, oldest
//! first, and applies them to the indexer (which this FIFO consults as its `knownObjects`).
//!
//! Invariants (kept on the fields of `State`, as client-go documents them):
//! - a key is in `queue` iff it is in `items`, and `queue` never holds a key twice;
//! - `items` never holds an empty `Deltas`;
//! - two consecutive `Deleted` deltas for a key are collapsed into one: the older one, unless the
//!   older one is a [`DeletedFinalStateUnknown`] tombstone and so carries no real final state
//!   (client-go's `isDeletionDup`);
//! - `delete` of a key that is neither queued nor known is dropped (it was already reported,
//!   presumably by a relist);
//! - `replace` queues `Replaced` for every listed object and a `Deleted` tombstone for every key
//!   that is queued or known but not listed, so a missed watch DELETE is never lost; a listed
//!   object whose uid differs from the queued or known object under its key (deleted and
//!   recreated while unwatched) gets a `Deleted` tombstone of the old object first (a deviation
//!   from client-go, which reports that as an update between two different objects);
//! - `resync` queues `Sync` only for known keys with nothing queued (a queued change is newer than
//!   the indexer's copy, and a `Sync` carrying the older copy would resurrect stale state);
//! - `process` runs under the FIFO's lock, so `replace`/`resync` never observe an object that has
//!   been popped but not yet applied to the indexer;
//! - `has_synced` is true once the first `replace` (or first `add`/`update`/`delete`) happened
//!   and every item that the first `replace` queued has been popped and processed; it never
//!   turns false again.
//!
//! Differences from client-go (checked against its `delta_fifo_test.go`, ported case by case in
//! `ported_tests`):
//! - `replace` always queues `Replaced` (client-go's `EmitDeltaTypeReplaced: true`, which every
//!   informer sets); the legacy `Sync`-on-replace mode is not offered;
//! - the transform runs in `prepare`, which the reflector calls once per object received, rather
//!   than inside `add`/`update`/`delete`; the outcome client-go's `TestDeltaFIFO_transformer`
//!   checks (each object transformed once, tombstones carry the transformed object) is the same,
//!   and `prepare` may reuse the indexer's copy when the resourceVersion is unchanged; the key is
//!   therefore computed from the transformed object (client-go: from the object received), so a
//!   transform must not change the name or namespace;
//! - a listed object whose uid differs from the queued or known one gets a tombstone first (see
//!   above);
//! - tombstones for known keys missing from a relist are queued in key order (client-go: the
//!   indexer's map order);
//! - no `ErrRequeue`: `pop` returns the process result with the deltas, and the caller requeues
//!   them with `add_if_not_present` if it wants to;
//! - keys are always `namespace/name` (no `KeyFunction` option);
//! - an optional observer (no client-go counterpart) is shown each object `prepare` transforms,
//!   before the transform, with the delta type the reflector will queue it as
//!   ([`ReflectorStore::prepare_as`]); per-object history records versions there. It sees what
//!   the transform sees and changes nothing queued;
//! - `has_synced` reads a flag instead of taking the FIFO's lock (client-go's `HasSynced` locks):
//!   a `replace` of 100k objects holds the lock ~0.1 s, and the pops after it hold it per
//!   object while the indexer applies it, so a caller on a UI frame (the dashboard's frame loop
//!   asks whether its view synced after each frame) stalled a frame for the whole `replace`.
//!   The flag is set under the lock after the last initial item was processed, so what a true
//!   answer promises is client-go's: the indexer holds the initial list.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;
use tokio::sync::Notify;

use super::store::{ReflectorStore, resource_version};
use super::{Error, Object, meta_namespace_key};

/// The annotation `kubectl apply` keeps a full copy of the object in.
pub const LAST_APPLIED_ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// The kind of change a [`Delta`] records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeltaType {
    /// A watch ADDED event.
    Added,
    /// A watch MODIFIED event.
    Updated,
    /// A watch DELETED event, or a deletion detected by a relist (then with a tombstone).
    Deleted,
    /// The object was part of a relist (`replace`).
    Replaced,
    /// A periodic resync of an object already known.
    Sync,
}

impl DeltaType {
    /// The name client-go uses for this delta type.
    pub fn as_str(self) -> &'static str {
        match self {
            DeltaType::Added => "Added",
            DeltaType::Updated => "Updated",
            DeltaType::Deleted => "Deleted",
            DeltaType::Replaced => "Replaced",
            DeltaType::Sync => "Sync",
        }
    }
}

impl std::fmt::Display for DeltaType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A deletion the watch never reported, discovered by a relist: the object's final state is
/// unknown and `obj` is the last state this process knew (if any).
#[derive(Debug)]
pub struct DeletedFinalStateUnknown<K> {
    /// The deleted object's key.
    pub key: String,
    /// The last known state, possibly stale.
    pub obj: Option<Arc<K>>,
}

impl<K> Clone for DeletedFinalStateUnknown<K> {
    fn clone(&self) -> Self {
        Self {
            key: self.key.clone(),
            obj: self.obj.clone(),
        }
    }
}

/// What a [`Delta`] carries: the object, or for relist-detected deletions a tombstone.
#[derive(Debug)]
pub enum DeltaObject<K> {
    /// The object as received.
    Object(Arc<K>),
    /// A deletion detected by a relist.
    Tombstone(DeletedFinalStateUnknown<K>),
}

impl<K> Clone for DeltaObject<K> {
    fn clone(&self) -> Self {
        match self {
            DeltaObject::Object(o) => DeltaObject::Object(Arc::clone(o)),
            DeltaObject::Tombstone(t) => DeltaObject::Tombstone(t.clone()),
        }
    }
}

impl<K> DeltaObject<K> {
    /// The object, or a tombstone's last known state.
    pub fn object(&self) -> Option<&Arc<K>> {
        match self {
            DeltaObject::Object(o) => Some(o),
            DeltaObject::Tombstone(t) => t.obj.as_ref(),
        }
    }

    /// Whether this is a [`DeletedFinalStateUnknown`].
    pub fn is_tombstone(&self) -> bool {
        matches!(self, DeltaObject::Tombstone(_))
    }
}

/// One change to one object.
#[derive(Debug)]
pub struct Delta<K> {
    /// What happened.
    pub kind: DeltaType,
    /// The object after the change (for `Deleted`: its final or last known state).
    pub object: DeltaObject<K>,
}

impl<K> Clone for Delta<K> {
    fn clone(&self) -> Self {
        Self {
            kind: self.kind,
            object: self.object.clone(),
        }
    }
}

/// The changes queued for one key, oldest first. Never empty inside the FIFO.
pub type Deltas<K> = Vec<Delta<K>>;

/// A transform applied once to every object entering the FIFO (client-go's `TransformFunc`).
pub type Transform<K> = Arc<dyn Fn(K) -> K + Send + Sync>;

/// Shown each object a FIFO prepares, before its transform, and the delta type it will be
/// queued as when known (`None`: prepared by a caller that did not say). Per-object history
/// records versions with it (see [`super::history`]); client-go has no such hook (a
/// `TransformFunc` sees the object but not its delta type).
pub type Observer<K> = Arc<dyn Fn(&K, Option<DeltaType>) + Send + Sync>;

/// The transform informers use by default: drops `metadata.managedFields` and the
/// `kubectl.kubernetes.io/last-applied-configuration` annotation, which together are often more
/// than half of an object's size and which the dashboard never shows.
pub fn default_transform<K: Object>() -> Transform<K> {
    Arc::new(|mut obj: K| {
        let meta = obj.meta_mut();
        meta.managed_fields = None;
        if let Some(ann) = meta.annotations.as_mut() {
            ann.remove(LAST_APPLIED_ANNOTATION);
            if ann.is_empty() {
                meta.annotations = None;
            }
        }
        obj
    })
}

/// The indexer as seen by the DeltaFIFO (client-go's `KeyListerGetter`): consulted by `delete`,
/// `replace`, `resync` and `prepare`.
pub trait KnownObjects<K>: Send + Sync {
    /// Every key currently held.
    fn list_keys(&self) -> Vec<String>;
    /// The object held under `key`.
    fn get_by_key(&self, key: &str) -> Option<Arc<K>>;
}

/// How to build a [`DeltaFifo`].
pub struct DeltaFifoOptions<K> {
    /// The indexer the popped deltas are applied to. Without it, deletions found by a relist of
    /// objects already popped cannot be detected (see the module tests).
    pub known_objects: Option<Arc<dyn KnownObjects<K>>>,
    /// Applied by [`ReflectorStore::prepare`] to every object received.
    pub transform: Option<Transform<K>>,
    /// Shown every object received, as decoded (before the transform), with the delta type it
    /// will be queued as when the reflector says (see [`ReflectorStore::prepare_as`]).
    pub observer: Option<Observer<K>>,
}

impl<K> Default for DeltaFifoOptions<K> {
    fn default() -> Self {
        Self {
            known_objects: None,
            transform: None,
            observer: None,
        }
    }
}

/// The result of one [`DeltaFifo::pop`].
#[derive(Debug)]
pub struct Popped<K> {
    /// The key popped.
    pub key: Arc<str>,
    /// Its deltas, oldest first (ownership passes to the caller).
    pub deltas: Deltas<K>,
    /// Whether this item was part of the initial population (the first `replace`).
    pub is_in_initial_list: bool,
    /// Queue depth right after this item was removed.
    pub queue_depth: usize,
    /// What `process` returned. On an error the caller may requeue the deltas with
    /// [`DeltaFifo::add_if_not_present`] (client-go's `ErrRequeue`).
    pub result: Result<(), Error>,
}

/// The FIFO's maps are hashed with foldhash (seeded per process) rather than SipHash: a
/// `replace` of 100k objects hashes every key several times under the lock.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;

struct State<K> {
    /// key → changes not yet popped, oldest first. Never holds an empty `Deltas`.
    /// A key is in `items` iff it is in `queue`.
    items: FastMap<Arc<str>, Deltas<K>>,
    /// Keys in FIFO order. No duplicates; same key set as `items`; an `Arc<str>` shared with
    /// `items`.
    queue: VecDeque<Arc<str>>,
    /// Whether the first `replace` or `add`/`update`/`delete`/`add_if_not_present` happened.
    populated: bool,
    /// Items queued by the first `replace` that have not been popped yet.
    initial_population_count: usize,
    /// Set by `close`; `pop` fails with [`Error::Closed`] once the queue is empty.
    closed: bool,
}

/// client-go's `DeltaFIFO`.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer::informer::delta_fifo::{DeltaFifo, DeltaFifoOptions, DeltaType};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let fifo = DeltaFifo::<ConfigMap>::new(DeltaFifoOptions::default());
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("a".into());
/// fifo.add(Arc::new(cm.clone())).unwrap();
/// fifo.update(Arc::new(cm)).unwrap();
/// let popped = fifo.pop(|_key, _deltas, _initial| Ok(())).await.unwrap();
/// let kinds: Vec<DeltaType> = popped.deltas.iter().map(|d| d.kind).collect();
/// assert_eq!(kinds, [DeltaType::Added, DeltaType::Updated]);
/// # });
/// ```
pub struct DeltaFifo<K> {
    state: Mutex<State<K>>,
    /// `State::has_synced`, published under the lock once it turns true (it never turns false):
    /// read without the lock by [`DeltaFifo::has_synced`].
    synced: AtomicBool,
    /// Woken (`notify_waiters`) after every change that may let a waiting `pop` proceed.
    notify: Notify,
    known_objects: Option<Arc<dyn KnownObjects<K>>>,
    transform: Option<Transform<K>>,
    /// Called in `prepare` before the transform, for objects the transform sees (not for a
    /// copy reused from the indexer).
    observer: Option<Observer<K>>,
}

impl<K> std::fmt::Debug for DeltaFifo<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.lock();
        f.debug_struct("DeltaFifo")
            .field("queue", &s.queue.len())
            .field("populated", &s.populated)
            .field("initial_population_count", &s.initial_population_count)
            .field("closed", &s.closed)
            .finish()
    }
}

/// The key a `Deltas` is queued under: that of its newest delta.
fn deltas_key<K: Object>(deltas: &Deltas<K>) -> Result<String, Error> {
    match deltas.last().map(|d| &d.object) {
        Some(DeltaObject::Tombstone(t)) => Ok(t.key.clone()),
        Some(DeltaObject::Object(o)) => meta_namespace_key(&**o),
        None => Err(Error::MissingName),
    }
}

/// client-go's `dedupDeltas`: collapse the last two deltas when both are deletions.
fn dedup_last_two<K>(deltas: &mut Deltas<K>) {
    let n = deltas.len();
    if n < 2 {
        return;
    }
    if deltas[n - 1].kind != DeltaType::Deleted || deltas[n - 2].kind != DeltaType::Deleted {
        return;
    }
    // Keep the older one unless it is a tombstone (client-go's `isDeletionDup`): the first real
    // deletion reported is the object's final state; a tombstone only stands in for one.
    let Some(newest) = deltas.pop() else {
        return;
    };
    if deltas[n - 2].object.is_tombstone() {
        deltas[n - 2] = newest;
    }
}

impl<K: Object> State<K> {
    /// client-go's `queueActionLocked`.
    fn queue_action(&mut self, key: &str, kind: DeltaType, object: DeltaObject<K>) {
        self.queue_action_with(key, || Arc::from(key), kind, object);
    }

    /// [`Self::queue_action`] with the key's `Arc<str>` made by `new_key` only when the key is
    /// not queued yet (then shared by `queue` and `items`).
    fn queue_action_with(
        &mut self,
        key: &str,
        new_key: impl FnOnce() -> Arc<str>,
        kind: DeltaType,
        object: DeltaObject<K>,
    ) {
        let delta = Delta { kind, object };
        if let Some(existing) = self.items.get_mut(key) {
            existing.push(delta);
            dedup_last_two(existing);
        } else {
            let key = new_key();
            self.queue.push_back(Arc::clone(&key));
            self.items.insert(key, vec![delta]);
        }
    }

    fn has_synced(&self) -> bool {
        self.populated && self.initial_population_count == 0
    }
}

impl<K: Object> DeltaFifo<K> {
    /// A new, empty FIFO.
    pub fn new(options: DeltaFifoOptions<K>) -> Self {
        Self {
            state: Mutex::new(State {
                items: FastMap::default(),
                queue: VecDeque::new(),
                populated: false,
                initial_population_count: 0,
                closed: false,
            }),
            synced: AtomicBool::new(false),
            notify: Notify::new(),
            known_objects: options.known_objects,
            transform: options.transform,
            observer: options.observer,
        }
    }

    fn queue_object(&self, kind: DeltaType, obj: Arc<K>) -> Result<(), Error> {
        let key = meta_namespace_key(&*obj)?;
        {
            let mut s = self.state.lock();
            s.populated = true;
            self.publish_synced(&s);
            s.queue_action(&key, kind, DeltaObject::Object(obj));
        }
        self.notify.notify_waiters();
        Ok(())
    }

    /// Queue an `Added` delta.
    pub fn add(&self, obj: Arc<K>) -> Result<(), Error> {
        self.queue_object(DeltaType::Added, obj)
    }

    /// Queue an `Updated` delta.
    pub fn update(&self, obj: Arc<K>) -> Result<(), Error> {
        self.queue_object(DeltaType::Updated, obj)
    }

    /// Queue a `Deleted` delta, unless the key is neither queued nor known (then the deletion
    /// was already reported, presumably by a relist, and is dropped).
    pub fn delete(&self, obj: Arc<K>) -> Result<(), Error> {
        let key = meta_namespace_key(&*obj)?;
        {
            let mut s = self.state.lock();
            s.populated = true;
            self.publish_synced(&s);
            let queued = s.items.contains_key(key.as_str());
            let known = match &self.known_objects {
                Some(k) => k.get_by_key(&key).is_some(),
                None => false,
            };
            if !queued && !known {
                return Ok(());
            }
            s.queue_action(&key, DeltaType::Deleted, DeltaObject::Object(obj));
        }
        self.notify.notify_waiters();
        Ok(())
    }

    /// Requeue deltas returned by a failed `process`, unless newer deltas for the key have been
    /// queued meanwhile (those are newer and win). client-go's `AddIfNotPresent`.
    /// An empty `deltas` is refused with [`Error::ZeroLengthDeltas`] (client-go's
    /// `ErrZeroLengthDeltasObject`): it names no key and would break "`items` never holds an empty
    /// `Deltas`".
    pub fn add_if_not_present(&self, deltas: Deltas<K>) -> Result<(), Error> {
        if deltas.is_empty() {
            return Err(Error::ZeroLengthDeltas);
        }
        let key = deltas_key(&deltas)?;
        {
            let mut s = self.state.lock();
            s.populated = true;
            self.publish_synced(&s);
            if s.items.contains_key(key.as_str()) {
                return Ok(());
            }
            let key: Arc<str> = Arc::from(key);
            s.queue.push_back(Arc::clone(&key));
            s.items.insert(key, deltas);
        }
        self.notify.notify_waiters();
        Ok(())
    }

    /// A complete list: queue `Replaced` for each listed object and a `Deleted`
    /// [`DeletedFinalStateUnknown`] for every queued or known key missing from it. All listed
    /// objects must have a name; otherwise nothing is queued and the error is returned.
    pub fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), Error> {
        let mut keyed = Vec::with_capacity(list.len());
        for obj in list {
            keyed.push((Arc::from(meta_namespace_key(&*obj)?), obj));
        }
        self.replace_keyed(keyed, resource_version)
    }

    /// [`Self::replace`] with each object's key already computed (its `namespace/name`, as
    /// [`meta_namespace_key`] gives it): the reflector keys a streaming list's objects as they
    /// arrive, and the FIFO keeps those keys instead of computing and allocating them again.
    pub fn replace_keyed(
        &self,
        keyed: Vec<(Arc<str>, Arc<K>)>,
        _resource_version: &str,
    ) -> Result<(), Error> {
        {
            let mut s = self.state.lock();
            let mut listed: FastSet<&str> =
                FastSet::with_capacity_and_hasher(keyed.len(), Default::default());
            s.items.reserve(keyed.len());
            s.queue.reserve(keyed.len());
            for (key, obj) in &keyed {
                listed.insert(key);
                // The key was deleted and recreated (new uid) while nobody watched: the old
                // object's deletion must reach the handlers as a delete, not hide inside an
                // update from one object to another (client-go only compares keys here).
                if let Some(old) = self.replaced_object(&s, key, obj) {
                    let tomb = DeletedFinalStateUnknown {
                        key: key.to_string(),
                        obj: Some(old),
                    };
                    s.queue_action_with(
                        key,
                        || Arc::clone(key),
                        DeltaType::Deleted,
                        DeltaObject::Tombstone(tomb),
                    );
                }
                s.queue_action_with(
                    key,
                    || Arc::clone(key),
                    DeltaType::Replaced,
                    DeltaObject::Object(Arc::clone(obj)),
                );
            }

            // Deletion detection against objects in the queue.
            let missing_queued: Vec<(Arc<str>, Option<Arc<K>>)> = s
                .items
                .iter()
                .filter(|(k, _)| !listed.contains(&***k))
                .map(|(k, deltas)| {
                    let last = deltas.last().and_then(|d| d.object.object().cloned());
                    (Arc::clone(k), last)
                })
                .collect();
            // Tombstones of recreated keys share their key with a listed object: not counted.
            let mut queued_deletions = missing_queued.len();
            for (key, obj) in missing_queued {
                let tomb = DeletedFinalStateUnknown {
                    key: key.to_string(),
                    obj,
                };
                s.queue_action(&key, DeltaType::Deleted, DeltaObject::Tombstone(tomb));
            }

            // Deletion detection against objects already handed to the indexer.
            if let Some(known) = &self.known_objects {
                let mut missing: Vec<String> = known
                    .list_keys()
                    .into_iter()
                    .filter(|k| !listed.contains(k.as_str()) && !s.items.contains_key(k.as_str()))
                    .collect();
                // Deterministic order for the newly queued tombstones (usually few).
                missing.sort_unstable();
                for key in missing {
                    let obj = known.get_by_key(&key);
                    if obj.is_none() {
                        tracing::info!(%key, "key vanished from known objects during replace; tombstone without object");
                    }
                    queued_deletions += 1;
                    let tomb = DeletedFinalStateUnknown {
                        key: key.clone(),
                        obj,
                    };
                    s.queue_action(&key, DeltaType::Deleted, DeltaObject::Tombstone(tomb));
                }
            }

            if !s.populated {
                s.populated = true;
                s.initial_population_count = listed.len() + queued_deletions;
                self.publish_synced(&s);
            }
        }
        self.notify.notify_waiters();
        Ok(())
    }

    /// The object `listed` replaces under `key` if that is another object (both have a uid and
    /// they differ): the newest queued state unless the newest delta is already a deletion, else
    /// the indexer's copy.
    fn replaced_object(&self, s: &State<K>, key: &str, listed: &K) -> Option<Arc<K>> {
        let new_uid = listed.meta().uid.as_deref().filter(|u| !u.is_empty())?;
        let current = match s.items.get(key) {
            Some(deltas) => match deltas.last() {
                Some(d) if d.kind == DeltaType::Deleted => None,
                Some(d) => d.object.object().cloned(),
                None => None,
            },
            None => self.known_objects.as_ref()?.get_by_key(key),
        }?;
        let old_uid = current.meta().uid.as_deref().filter(|u| !u.is_empty())?;
        (old_uid != new_uid).then_some(current)
    }

    /// Queue `Sync` for every known key that has nothing queued (client-go's `Resync`).
    pub fn resync(&self) -> Result<(), Error> {
        let Some(known) = &self.known_objects else {
            return Ok(());
        };
        let mut queued_any = false;
        {
            let mut s = self.state.lock();
            for key in known.list_keys() {
                if s.items.contains_key(key.as_str()) {
                    continue;
                }
                let Some(obj) = known.get_by_key(&key) else {
                    continue;
                };
                s.queue_action(&key, DeltaType::Sync, DeltaObject::Object(obj));
                queued_any = true;
            }
        }
        if queued_any {
            self.notify.notify_waiters();
        }
        Ok(())
    }

    /// Pop the oldest key if one is queued, calling `process(key, deltas, is_in_initial_list)`
    /// under the FIFO's lock. `None` when the queue is empty (closed or not).
    pub fn try_pop<F>(&self, process: F) -> Option<Popped<K>>
    where
        F: FnOnce(&Arc<str>, &Deltas<K>, bool) -> Result<(), Error>,
    {
        let mut s = self.state.lock();
        loop {
            let is_in_initial_list = !s.has_synced();
            let key = s.queue.pop_front()?;
            if s.initial_population_count > 0 {
                s.initial_population_count -= 1;
            }
            let Some(deltas) = s.items.remove(&key) else {
                // Unreachable while the queue/items invariant holds.
                tracing::error!(%key, "key was in the queue but not in items; ignoring");
                continue;
            };
            let queue_depth = s.queue.len();
            let result = process(&key, &deltas, is_in_initial_list);
            // Only now: a true `has_synced` promises the indexer holds the initial list.
            self.publish_synced(&s);
            return Some(Popped {
                key,
                deltas,
                is_in_initial_list,
                queue_depth,
                result,
            });
        }
    }

    /// Wait for a key, pop it and call `process(key, deltas, is_in_initial_list)` under the
    /// FIFO's lock (so `replace`/`resync` cannot interleave with applying it to the indexer).
    /// Fails with [`Error::Closed`] once the FIFO is closed and empty.
    pub async fn pop<F>(&self, process: F) -> Result<Popped<K>, Error>
    where
        F: FnOnce(&Arc<str>, &Deltas<K>, bool) -> Result<(), Error>,
    {
        let mut process = Some(process);
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            // Register before checking, so a change between the check and the await wakes us.
            notified.as_mut().enable();
            {
                let s = self.state.lock();
                if s.queue.is_empty() && s.closed {
                    return Err(Error::Closed);
                }
            }
            if let Some(f) = process.take() {
                let mut f = Some(f);
                let mut wrapped = |k: &Arc<str>, d: &Deltas<K>, i: bool| match f.take() {
                    Some(f) => f(k, d, i),
                    None => Ok(()),
                };
                if let Some(p) = self.try_pop(&mut wrapped) {
                    return Ok(p);
                }
                process = f;
            }
            notified.await;
        }
    }

    /// Close the FIFO: waiting and future `pop`s fail with [`Error::Closed`] once it is empty.
    pub fn close(&self) {
        self.state.lock().closed = true;
        self.notify.notify_waiters();
    }

    /// Whether [`Self::close`] was called.
    pub fn is_closed(&self) -> bool {
        self.state.lock().closed
    }

    /// Whether the initial population has been popped and processed (client-go's `HasSynced`),
    /// without waiting for the FIFO's lock (see the module docs).
    pub fn has_synced(&self) -> bool {
        self.synced.load(Ordering::Acquire)
    }

    /// Publish `State::has_synced` once it holds (called under the lock, after each change that
    /// may make it true).
    fn publish_synced(&self, s: &State<K>) {
        if s.has_synced() {
            self.synced.store(true, Ordering::Release);
        }
    }

    /// Queue depth: number of keys waiting.
    pub fn len(&self) -> usize {
        self.state.lock().queue.len()
    }

    /// Whether no key is waiting.
    pub fn is_empty(&self) -> bool {
        self.state.lock().queue.is_empty()
    }

    /// Keys waiting, in pop order.
    pub fn list_keys(&self) -> Vec<String> {
        self.state
            .lock()
            .queue
            .iter()
            .map(|k| k.to_string())
            .collect()
    }

    /// The deltas queued for `key` (a copy; shares the objects).
    pub fn get_by_key(&self, key: &str) -> Option<Deltas<K>> {
        self.state.lock().items.get(key).cloned()
    }

    /// The FIFO's `knownObjects`, if any.
    pub fn known_objects(&self) -> Option<&Arc<dyn KnownObjects<K>>> {
        self.known_objects.as_ref()
    }

    /// Transform a received object, or reuse the copy the indexer already holds when it has the
    /// same key and a non-empty, equal resourceVersion. See [`ReflectorStore::prepare`].
    pub fn prepare(&self, obj: K) -> Arc<K> {
        self.prepare_inner(obj, None)
    }

    /// [`Self::prepare`] of an object the caller will queue as `kind`: the observer is told.
    pub fn prepare_as(&self, obj: K, kind: DeltaType) -> Arc<K> {
        self.prepare_inner(obj, Some(kind))
    }

    fn prepare_inner(&self, obj: K, kind: Option<DeltaType>) -> Arc<K> {
        if let Some(known) = &self.known_objects {
            let rv = resource_version(&obj);
            if !rv.is_empty()
                && let Ok(key) = meta_namespace_key(&obj)
                && let Some(existing) = known.get_by_key(&key)
                && resource_version(&*existing) == rv
            {
                return existing;
            }
        }
        if let Some(observe) = &self.observer {
            observe(&obj, kind);
        }
        match &self.transform {
            Some(t) => Arc::new(t(obj)),
            None => Arc::new(obj),
        }
    }
}

impl<K: Object> ReflectorStore<K> for DeltaFifo<K> {
    fn add(&self, obj: Arc<K>) -> Result<(), Error> {
        DeltaFifo::add(self, obj)
    }
    fn update(&self, obj: Arc<K>) -> Result<(), Error> {
        DeltaFifo::update(self, obj)
    }
    fn delete(&self, obj: Arc<K>) -> Result<(), Error> {
        DeltaFifo::delete(self, obj)
    }
    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), Error> {
        DeltaFifo::replace(self, list, resource_version)
    }
    fn replace_keyed(
        &self,
        list: Vec<(Arc<str>, Arc<K>)>,
        resource_version: &str,
    ) -> Result<(), Error> {
        DeltaFifo::replace_keyed(self, list, resource_version)
    }
    fn prepare(&self, obj: K) -> Arc<K> {
        DeltaFifo::prepare(self, obj)
    }
    fn prepare_as(&self, obj: K, kind: DeltaType) -> Arc<K> {
        DeltaFifo::prepare_as(self, obj, kind)
    }
    fn resync(&self) -> Result<(), Error> {
        DeltaFifo::resync(self)
    }
}

#[cfg(test)]
mod ported_tests;
#[cfg(test)]
mod tests;
