//! Per-object history: a compact change list per version of every object the informers see,
//! bounded by a global byte budget.
//!
//! client-go counterpart: nothing exactly. The nearest pieces are the DeltaFIFO's deltas (every
//! version passes through it once, then only the latest is kept by the indexer), the
//! `OnUpdate(old, new)` pair a `ResourceEventHandler` sees, and a `TransformFunc` (which sees
//! every object before the cache drops parts of it). Nothing in client-go keeps past versions.
//!
//! How it hangs together:
//! - the informer's FIFO shows [`History::observe_as`] each object as decoded, before the cache
//!   transform prunes it, with the delta type the object is queued as (the reflector says which:
//!   a listed object is `Replaced`, a watch event `Added`, `Updated` or `Deleted`), so the version
//!   is named as it is recorded; the decoder's mask is widened by the fields history tracks (see
//!   `render::history_mask`), so images, env, replicas, labels and status are seen even where
//!   the cache drops them. `observe` flattens the tracked fields into `(JSON pointer, scalar)`
//!   leaves (a leaf longer than [`MAX_LEAF`] bytes is kept as a hash), compares them with the
//!   object's previous leaves and records only what changed (old and new value per pointer);
//! - each version's changes name their writer: the `managedFields` entry whose time moved since
//!   the previous version (the decoder keeps who wrote and when, not the fieldsV1 sets; see
//!   `writers`), or, for an object that carries its fieldsV1 sets, the manager owning each
//!   changed field ([`Ownership`]); a track keeps the entries' stamps, not the entries;
//! - after a pop, [`History::popped`] records the deletions no object arrived for (a relist's
//!   tombstones) and names versions observed without their delta type ([`History::observe`]);
//!   a pop with neither returns before taking a lock;
//! - per object only the latest leaves are held whole, packed in one byte buffer; an earlier
//!   state is rebuilt by undoing the later change lists ([`Timeline::state_at`]); a version's
//!   resourceVersion and changes are one allocation (`Version::data`);
//! - while flattening, a path is known by a 64-bit hash chained over its segments from a root
//!   hash random per recorder, never by its text: a thread remembers the hash and id at each
//!   leaf position of its previous object (objects of a kind share a shape, so the id is one
//!   integer comparison away), other paths are looked up by hash, and only a path new to the
//!   recorder is named, by a second walk that writes path texts (`resolve`). Two paths whose
//!   hashes collide (about n²/2⁶⁵ for n distinct paths) would share one name.
//!
//! What it costs on the sync and event paths, the figures and the optimisations tried (kept and
//! reverted) are in the history figure's docs, `src/bench/history.rs`
//! (`kinformer bench --only history`): about +7 % of a sync's CPU and +2 µs a watch event, ~690 B
//! an object held (2026-11-24).
//!
//! Invariants:
//! - the bytes accounted ([`History::bytes`]) never exceed the budget after an `observe` or
//!   `popped` returns: the oldest versions are evicted first (across all objects); an object
//!   whose versions are all evicted loses its leaves too (its next version starts a new
//!   baseline) and a deleted object keeps its history until its versions are evicted;
//! - a version is recorded only when the resourceVersion changed (a relist or resync of the same
//!   version records nothing), so a version's change list may be empty (a change outside the
//!   tracked fields);
//! - `state_at(last) == latest leaves` and `state_at(i-1) == undo(changes(i), state_at(i))`.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{BuildHasher, Hash, Hasher};
use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use kube::api::DynamicObject;
use parking_lot::Mutex;
use serde_json::Value;

mod blame;
mod events;
mod flatten;
mod past_view;
mod summary;
mod writers;

use flatten::*;
use writers::{NO_WRITER, Stamp, Writers};

pub use blame::{BlameGroup, Ownership, Write, Writer};
pub use events::{TimelineEvent, TimelineRow, interleave};
pub use past_view::{PastRow, PastView, Since, step_back, step_forward};
pub use summary::{DiffLine, display_path, summarize, text_diff, unescape, unified_diff};

use super::decode::Mask;
use super::delta_fifo::{Delta, DeltaType};
use super::store::resource_version;

/// Leaves longer than this are recorded as `#` and a 64-bit hash in hex. Long enough for the
/// texts a row prints (an Event's message, a waiting container's message), so a past table
/// reads as it did.
pub const MAX_LEAF: usize = 256;

/// The default budget (`--history-mib`).
pub const DEFAULT_BUDGET_MIB: usize = 64;

/// Which object: the informer's resource (`pods`, `deployments.apps`) and the object's key
/// (`namespace/name`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ObjectId {
    pub resource: Arc<str>,
    pub key: Arc<str>,
}

/// An object's (resource, key) as borrowed strings: the tracks are looked up with it, so an
/// observe or pop of an object already held allocates no [`ObjectId`].
trait IdRef {
    fn parts(&self) -> (&str, &str);
}

impl IdRef for ObjectId {
    fn parts(&self) -> (&str, &str) {
        (&self.resource, &self.key)
    }
}

impl IdRef for (&str, &str) {
    fn parts(&self) -> (&str, &str) {
        (self.0, self.1)
    }
}

impl<'a> Borrow<dyn IdRef + 'a> for ObjectId {
    fn borrow(&self) -> &(dyn IdRef + 'a) {
        self
    }
}

// The same hash for an ObjectId and its borrowed form (as `Borrow` requires).
impl Hash for ObjectId {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.parts().hash(h);
    }
}

impl Hash for dyn IdRef + '_ {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.parts().hash(h);
    }
}

impl PartialEq for dyn IdRef + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for dyn IdRef + '_ {}

/// The name history files a resource's objects under: `pods`, `deployments.apps` (the
/// informer's short label without its namespace, so every informer of a kind shares one).
pub fn history_resource(resource: &kube::discovery::ApiResource) -> String {
    if resource.group.is_empty() {
        resource.plural.clone()
    } else {
        format!("{}.{}", resource.plural, resource.group)
    }
}

/// One field that changed between two versions; `None`: absent on that side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldChange {
    /// JSON pointer (`/status/containerStatuses/web/restartCount`; list items that have a
    /// `name` or `type` are addressed by it, others by index).
    pub path: Arc<str>,
    pub old: Option<String>,
    pub new: Option<String>,
    /// Who made it: the manager owning the field in the version's `managedFields` (see
    /// [`Ownership`]); `None` when the object came without them or nobody owns the field.
    pub by: Option<Arc<Writer>>,
}

/// One recorded version as the screens read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionView {
    pub at_ms: i64,
    /// `None` until the informer popped it (a version still in the FIFO).
    pub delta: Option<DeltaType>,
    pub tombstone: bool,
    pub resource_version: String,
    /// The first version recorded for the object (its changes are not listed: everything is).
    pub baseline: bool,
    pub changes: Vec<FieldChange>,
}

impl VersionView {
    /// The delta type as the timeline prints it.
    pub fn delta_label(&self) -> &'static str {
        match (self.delta, self.tombstone) {
            (Some(DeltaType::Deleted), true) => "Deleted†",
            (Some(d), _) => d.as_str(),
            (None, _) => "Queued",
        }
    }

    /// The one-line summary of this version.
    pub fn summary(&self, fields: usize) -> String {
        if self.delta == Some(DeltaType::Deleted) {
            return if self.tombstone {
                "deleted (tombstone: missed by the watch, found by a relist)".into()
            } else if self.changes.is_empty() {
                "deleted".into()
            } else {
                format!("deleted, {}", summarize(&self.changes))
            };
        }
        if self.baseline {
            return format!("first seen ({fields} fields tracked)");
        }
        let line = summarize(&self.changes);
        match self.writers().as_slice() {
            [] => line,
            writers => {
                let by: Vec<String> = writers.iter().map(ToString::to_string).collect();
                format!("{line} · {}", by.join(", "))
            }
        }
    }

    /// Who made this version's changes, in the order first met, without repeats.
    pub fn writers(&self) -> Vec<Arc<Writer>> {
        let mut out: Vec<Arc<Writer>> = Vec::new();
        for w in self.changes.iter().filter_map(|c| c.by.as_ref()) {
            if !out.contains(w) {
                out.push(w.clone());
            }
        }
        out
    }
}

/// An object's history, oldest version first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    pub id: ObjectId,
    pub versions: Vec<VersionView>,
    /// The tracked fields after the last version.
    pub latest: BTreeMap<Arc<str>, String>,
    pub deleted: bool,
    /// Earlier versions of this object were evicted by the budget.
    pub truncated: bool,
    /// When the oldest version still held (any object) was recorded.
    pub oldest_ms: Option<i64>,
}

impl Timeline {
    /// The tracked fields as they were after version `index` (clamped to the last).
    pub fn state_at(&self, index: usize) -> BTreeMap<Arc<str>, String> {
        let mut state = self.latest.clone();
        for v in self.versions.iter().skip(index.saturating_add(1)).rev() {
            for c in v.changes.iter().rev() {
                match &c.old {
                    Some(old) => {
                        state.insert(c.path.clone(), old.clone());
                    }
                    None => {
                        state.remove(&c.path);
                    }
                }
            }
        }
        state
    }

    /// The tracked fields just before version `index` (empty before a baseline).
    pub fn state_before(&self, index: usize) -> BTreeMap<Arc<str>, String> {
        match self.versions.get(index) {
            Some(v) if v.baseline => BTreeMap::new(),
            _ if index == 0 => self.state_at(0),
            _ => self.state_at(index - 1),
        }
    }
}

/// One line of the cluster-wide list of changes (`:changes`), newest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRow {
    pub id: ObjectId,
    pub at_ms: i64,
    pub delta: Option<DeltaType>,
    pub tombstone: bool,
    pub resource_version: String,
    pub summary: String,
    /// `metadata.labels` at the time of the version, for the label filter.
    pub labels: BTreeMap<String, String>,
}

/// Budget figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HistoryStats {
    pub bytes: usize,
    pub budget: usize,
    pub objects: usize,
    pub versions: usize,
    pub evicted: u64,
    pub oldest_ms: Option<i64>,
}

struct Version {
    seq: u64,
    at_ms: i64,
    delta: Option<DeltaType>,
    tombstone: bool,
    baseline: bool,
    /// The resourceVersion and the changes, packed in one allocation: a u16 length and the
    /// resourceVersion's bytes, then per change a u32 path id, the old and new values' u16
    /// lengths ([`ABSENT`]: the field is absent on that side) and their bytes.
    data: Box<[u8]>,
    /// Who made each change, in the changes' order: an index in [`Inner::writers`], or
    /// `NO_WRITER`; empty when the object came without `managedFields`.
    owners: Box<[u16]>,
}

/// A packed change's length for a value absent on that side.
const ABSENT: u16 = u16::MAX;

/// The longest value a leaf keeps (longer ones are cut; [`MAX_LEAF`] makes them hashes first).
const MAX_VALUE: usize = ABSENT as usize - 1;

/// One change as a version holds it: (path id, old, new).
type ChangeRef<'a> = (u32, Option<&'a str>, Option<&'a str>);

impl Version {
    fn new(seq: u64, at_ms: i64, rv: &str, baseline: bool, changes: &[u8]) -> Self {
        let rv = &rv.as_bytes()[..rv.len().min(MAX_VALUE)];
        let mut data = Vec::with_capacity(2 + rv.len() + changes.len());
        data.extend_from_slice(&(rv.len() as u16).to_le_bytes());
        data.extend_from_slice(rv);
        data.extend_from_slice(changes);
        Self {
            seq,
            at_ms,
            delta: None,
            tombstone: false,
            baseline,
            data: data.into_boxed_slice(),
            owners: Box::default(),
        }
    }

    fn rv_len(&self) -> usize {
        match self.data.get(..2) {
            Some(&[a, b]) => usize::from(u16::from_le_bytes([a, b])),
            _ => 0,
        }
    }

    fn rv(&self) -> &str {
        text(self.data.get(2..2 + self.rv_len()).unwrap_or_default())
    }

    fn changes(&self) -> Changes<'_> {
        Changes {
            buf: self.data.get(2 + self.rv_len()..).unwrap_or_default(),
        }
    }

    /// The changes as the screens read them.
    fn field_changes(&self, paths: &Paths, writers: &[Arc<Writer>]) -> Vec<FieldChange> {
        self.changes()
            .enumerate()
            .map(|(i, (path, old, new))| FieldChange {
                path: paths.name(path),
                old: old.map(str::to_string),
                new: new.map(str::to_string),
                by: self
                    .owners
                    .get(i)
                    .and_then(|w| writers.get(usize::from(*w)))
                    .cloned(),
            })
            .collect()
    }

    fn bytes(&self) -> usize {
        // The version, its entry in the eviction order, the values it holds.
        std::mem::size_of::<Version>()
            + std::mem::size_of::<(u64, ObjectId)>()
            + self.data.len()
            + 2 * self.owners.len()
    }
}

/// A version's packed changes, in order.
struct Changes<'a> {
    buf: &'a [u8],
}

impl<'a> Iterator for Changes<'a> {
    type Item = ChangeRef<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        let head = self.buf.get(..8)?;
        let path = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        let (a, b) = (
            u16::from_le_bytes([head[4], head[5]]),
            u16::from_le_bytes([head[6], head[7]]),
        );
        let rest = &self.buf[8..];
        let len = |l: u16| if l == ABSENT { 0 } else { usize::from(l) };
        let (old, rest) = rest.split_at(len(a).min(rest.len()));
        let (new, rest) = rest.split_at(len(b).min(rest.len()));
        self.buf = rest;
        let side = |l: u16, v: &'a [u8]| (l != ABSENT).then(|| text(v));
        Some((path, side(a, old), side(b, new)))
    }
}

/// Append one change to a packed change list.
fn push_change(out: &mut Vec<u8>, path: u32, old: Option<&[u8]>, new: Option<&[u8]>) {
    out.extend_from_slice(&path.to_le_bytes());
    let len = |v: Option<&[u8]>| v.map_or(ABSENT, |v| v.len().min(MAX_VALUE) as u16);
    out.extend_from_slice(&len(old).to_le_bytes());
    out.extend_from_slice(&len(new).to_le_bytes());
    for v in [old, new].into_iter().flatten() {
        out.extend_from_slice(&v[..v.len().min(MAX_VALUE)]);
    }
}

struct Track {
    /// The latest leaves, packed: per leaf a u32 path id, a u16 length, the bytes; by path id.
    /// Rewritten in place by each version (its allocation is reused).
    last: Vec<u8>,
    deleted: bool,
    truncated: bool,
    /// The latest version's `managedFields` stamps: the next version's writers are the
    /// entries that moved since (see `writers`).
    stamps: Box<[Stamp]>,
    /// Never empty (a track whose versions are all evicted is dropped); the newest is last, and
    /// its resourceVersion is the last one observed.
    versions: VecDeque<Version>,
}

impl Track {
    fn bytes(&self, id: &ObjectId) -> usize {
        std::mem::size_of::<Track>()
            + 64
            + id.key.len()
            + self.last.capacity()
            + std::mem::size_of_val(&*self.stamps)
    }

    /// The resourceVersion of the newest version recorded.
    fn last_rv(&self) -> &str {
        self.versions.back().map_or("", Version::rv)
    }
}

/// Every path met, by id. A path is known by the hash of its segments while flattening (see
/// [`Sink::id`]) and by its text when it is first named; both map to one id.
#[derive(Default)]
struct Paths {
    ids: HashMap<Arc<str>, u32, foldhash::fast::FixedState>,
    by_hash: HashMap<u64, u32, foldhash::fast::FixedState>,
    names: Vec<Arc<str>>,
    /// Each path's shape, by id (see [`Scratch::shape`]): how a past state is rebuilt as an
    /// object (`past_view`).
    shapes: Vec<Box<[u8]>>,
}

impl Paths {
    /// The id of `path`, whose segments hash to `hash` (several hashes may name one path: an
    /// array index and a key of the same digits).
    fn intern(&mut self, hash: u64, path: &str, shape: &[u8], bytes: &mut usize) -> u32 {
        let id = match self.ids.get(path) {
            Some(id) => *id,
            None => {
                let id = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
                let name: Arc<str> = Arc::from(path);
                *bytes += 2 * path.len() + 48 + shape.len() + 16;
                self.names.push(name.clone());
                self.shapes.push(shape.into());
                self.ids.insert(name, id);
                id
            }
        };
        *bytes += 24;
        self.by_hash.insert(hash, id);
        id
    }

    fn name(&self, id: u32) -> Arc<str> {
        self.names
            .get(id as usize)
            .cloned()
            .unwrap_or_else(|| Arc::from("?"))
    }
}

/// The tracks' map: the keys are hashed by foldhash, seeded per process.
type Tracks = HashMap<ObjectId, Track, foldhash::fast::RandomState>;

#[derive(Default)]
struct Inner {
    tracks: Tracks,
    /// Every held version, oldest first: (seq, object).
    order: VecDeque<(u64, ObjectId)>,
    bytes: usize,
    next_seq: u64,
    evicted: u64,
    /// Resource names, shared by every ObjectId of a resource.
    resources: HashMap<String, Arc<str>>,
    /// Every writer met (field managers), by the index versions hold ([`Version::owners`]).
    writers: Writers,
}

/// Name the writer of each of `v`'s changes from the object's `managedFields` (the fields'
/// owners, see [`Ownership`]): only for a version that changed something, so a list of
/// unchanged objects costs no ownership walk.
fn owners_of(
    v: &mut Version,
    entries: &[k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry],
    paths: &Mutex<Paths>,
    writers: &mut Writers,
    bytes: &mut usize,
) {
    let ownership = Ownership::of(entries);
    if ownership.is_empty() {
        return;
    }
    let paths = paths.lock();
    let owners: Vec<u16> = v
        .changes()
        .map(|(path, _, _)| match ownership.owner(&paths.name(path)) {
            Some(w) => writers.id_of(&w.writer, bytes),
            None => NO_WRITER,
        })
        .collect();
    v.owners = owners.into_boxed_slice();
}

/// The history recorder shared by every informer of a factory.
///
/// Two locks, never held together by a writer: `paths` while an observe interns a path its
/// thread has not met at that leaf position just before (rare once a kind's shape is known),
/// `inner` for the short bookkeeping after the flattening (the resourceVersion check, the diff
/// against the previous leaves, the budget). The flattening, most of an observe's work, holds
/// neither in the steady state. Readers (`timeline`, `latest`) take `inner` then `paths`.
pub struct History {
    budget: usize,
    /// Unique per recorder: path ids are its own (a thread's cached ids of another recorder
    /// are dropped, see `Scratch::seen`).
    id: u64,
    /// The hash of the root path, random per recorder: a path's hash chains its segments from
    /// here (see [`seg_hash`]), so which texts collide is not known in advance.
    root: u64,
    paths: Mutex<Paths>,
    inner: Mutex<Inner>,
    /// Versions recorded without their delta type (see [`History::observe`]) and not yet named
    /// by a pop: while it is zero, a pop that carries no deletion has nothing to name and
    /// [`History::popped`] returns without a lookup.
    pending: AtomicUsize,
    /// The objects the last past view rebuilt, by the version they show (see `past_view`):
    /// a `[` / `]` step rebuilds only what it did not show before. Holds one view's objects at
    /// most (outside the budget: what the screen holds anyway).
    past_memo: Mutex<past_view::PastCache>,
}

thread_local! {
    /// Each thread's flattening buffers (kept between observes, so they are not reallocated).
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("History")
            .field("stats", &self.stats())
            .finish()
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl History {
    /// A recorder holding at most `budget_bytes` (accounted, see [`HistoryStats::bytes`]).
    pub fn new(budget_bytes: usize) -> Self {
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Self {
            budget: budget_bytes,
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            root: foldhash::fast::RandomState::default().hash_one(budget_bytes),
            paths: Mutex::new(Paths::default()),
            inner: Mutex::new(Inner::default()),
            pending: AtomicUsize::new(0),
            past_memo: Mutex::default(),
        }
    }

    /// A recorder with a budget in MiB.
    pub fn with_mib(mib: usize) -> Self {
        Self::new(mib.saturating_mul(1024 * 1024))
    }

    /// Record `obj` of `resource` as seen now, tracking the fields `mask` keeps (and labels);
    /// its delta type is named when the informer pops it ([`Self::popped`]).
    pub fn observe(&self, resource: &str, obj: &DynamicObject, mask: Mask) {
        self.observe_at(resource, obj, mask, now_ms());
    }

    /// [`Self::observe`] at a given time.
    pub fn observe_at(&self, resource: &str, obj: &DynamicObject, mask: Mask, at_ms: i64) {
        self.observe_as_at(resource, obj, mask, None, at_ms);
    }

    /// Record `obj` as [`Self::observe`] does, already named with the delta type the FIFO gives
    /// it (the informer's FIFO knows it when the object arrives: a listed object is `Replaced`,
    /// a watch event `Added`, `Updated` or `Deleted`), so its pop has nothing left to name.
    /// `None`: named at the pop, as [`Self::observe`].
    pub fn observe_as(
        &self,
        resource: &str,
        obj: &DynamicObject,
        mask: Mask,
        delta: Option<DeltaType>,
    ) {
        self.observe_as_at(resource, obj, mask, delta, now_ms());
    }

    /// [`Self::observe_as`] at a given time.
    pub fn observe_as_at(
        &self,
        resource: &str,
        obj: &DynamicObject,
        mask: Mask,
        delta: Option<DeltaType>,
        at_ms: i64,
    ) {
        let what = Observed {
            resource,
            obj,
            mask,
            delta,
            at_ms,
        };
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut s) => self.record(&what, &mut s),
            // Not reached (an observe does not observe), but a fresh buffer is always right.
            Err(_) => self.record(&what, &mut Scratch::default()),
        });
    }

    /// Record one version: the resourceVersion check first (a version already recorded costs
    /// one lookup, no allocation, no flattening), then the flattening under `paths` only, then
    /// the bookkeeping under `inner`.
    fn record(&self, what: &Observed<'_>, s: &mut Scratch) {
        let &Observed {
            resource,
            obj,
            mask,
            delta,
            at_ms,
        } = what;
        let Some(name) = obj.metadata.name.as_deref() else {
            return;
        };
        // The key as `meta_namespace_key` makes it, in the reused buffer.
        s.key.clear();
        if let Some(ns) = obj
            .metadata
            .namespace
            .as_deref()
            .filter(|ns| !ns.is_empty())
        {
            s.key.push_str(ns);
            s.key.push('/');
        }
        s.key.push_str(name);
        let rv = resource_version(obj);
        // Recorded already: this resourceVersion, or a deletion of an object recorded deleted
        // (a watch's DELETED of an object a relist found gone, which the FIFO drops too).
        let seen = |t: &Track| {
            (!rv.is_empty() && t.last_rv() == rv)
                || (delta == Some(DeltaType::Deleted) && t.deleted)
        };
        if self
            .inner
            .lock()
            .tracks
            .get(&(resource, s.key.as_str()) as &dyn IdRef)
            .is_some_and(seen)
        {
            return;
        }
        if s.owner != self.id {
            s.owner = self.id;
            s.seen.clear();
        }
        let mut path_bytes = 0;
        flatten(obj, mask, &self.paths, self.root, &mut path_bytes, s);
        let mut inner = self.inner.lock();
        let inner = &mut *inner;
        inner.bytes += path_bytes;
        let seq = inner.next_seq;
        let id = match inner
            .tracks
            .get_key_value(&(resource, s.key.as_str()) as &dyn IdRef)
        {
            // Recorded meanwhile by another informer of the same resource.
            Some((_, t)) if seen(t) => {
                self.evict(inner);
                return;
            }
            Some((id, _)) => id.clone(),
            None => {
                inner.next_seq += 1;
                let resource = match inner.resources.get(resource) {
                    Some(r) => r.clone(),
                    None => {
                        let r: Arc<str> = Arc::from(resource);
                        inner.resources.insert(resource.to_string(), r.clone());
                        r
                    }
                };
                let id = ObjectId {
                    resource,
                    key: Arc::from(s.key.as_str()),
                };
                let mut last = Vec::new();
                pack(s, &mut last);
                let mut first = Version::new(seq, at_ms, rv, true, &[]);
                self.name(&mut first, delta);
                let stamps = obj
                    .metadata
                    .managed_fields
                    .as_deref()
                    .map_or_else(Box::default, |e| {
                        writers::stamps(e, &mut inner.writers, &mut inner.bytes)
                    });
                let track = Track {
                    last,
                    deleted: delta == Some(DeltaType::Deleted),
                    truncated: false,
                    stamps,
                    versions: VecDeque::from([first]),
                };
                inner.bytes +=
                    track.bytes(&id) + track.versions.iter().map(Version::bytes).sum::<usize>();
                inner.tracks.insert(id.clone(), track);
                inner.order.push_back((seq, id));
                self.evict(inner);
                return;
            }
        };
        inner.next_seq += 1;
        if let Some(track) = inner.tracks.get_mut(&id) {
            let before = track.bytes(&id);
            if diff(&track.last, s) {
                pack(s, &mut track.last);
            }
            let mut v = Version::new(seq, at_ms, rv, false, &s.changes);
            self.name(&mut v, delta);
            if let Some(entries) = obj.metadata.managed_fields.as_deref() {
                let stamps = writers::stamps(entries, &mut inner.writers, &mut inner.bytes);
                // Only for a version that changed something, so a list of unchanged objects
                // costs no attribution. Exact ownership when the fieldsV1 sets came along (a
                // GET, a test); else the entries whose time moved (the live decoder skips them).
                if !s.changes.is_empty() {
                    if entries.iter().any(|e| e.fields_v1.is_some()) {
                        owners_of(
                            &mut v,
                            entries,
                            &self.paths,
                            &mut inner.writers,
                            &mut inner.bytes,
                        );
                    } else {
                        let moved = writers::moved(&track.stamps, &stamps);
                        let paths = self.paths.lock();
                        v.owners = v
                            .changes()
                            .map(|(p, _, _)| {
                                writers::writer_of(&paths.name(p), &moved, &inner.writers)
                            })
                            .collect();
                    }
                }
                track.stamps = stamps;
            } else {
                track.stamps = Box::default();
            }
            inner.bytes = (inner.bytes + v.bytes() + track.bytes(&id)).saturating_sub(before);
            track.deleted = delta == Some(DeltaType::Deleted);
            track.versions.push_back(v);
        }
        inner.order.push_back((seq, id));
        self.evict(inner);
    }

    /// A new version's delta type, when the observer knew it; else it waits for its pop.
    fn name(&self, v: &mut Version, delta: Option<DeltaType>) {
        v.delta = delta;
        if delta.is_none() {
            self.pending.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Name the versions of one pop with their delta types; a deletion of a version already
    /// named (or a tombstone) adds a Deleted version. Returns at once, without a lookup, when
    /// the pop carries no deletion and no version waits for its name (every version was
    /// observed with its delta type, as the informers' FIFO records them).
    pub fn popped<K: kube::Resource>(&self, resource: &str, key: &str, deltas: &[Delta<K>]) {
        self.popped_at(resource, key, deltas, now_ms());
    }

    /// [`Self::popped`] at a given time.
    pub fn popped_at<K: kube::Resource>(
        &self,
        resource: &str,
        key: &str,
        deltas: &[Delta<K>],
        at_ms: i64,
    ) {
        if self.pending.load(Ordering::Relaxed) == 0
            && deltas.iter().all(|d| d.kind != DeltaType::Deleted)
        {
            return;
        }
        let mut inner = self.inner.lock();
        let inner = &mut *inner;
        let at = &(resource, key) as &dyn IdRef;
        for d in deltas {
            let rv = d
                .object
                .object()
                .map(|o| resource_version(&**o))
                .unwrap_or_default();
            let tombstone = d.object.is_tombstone();
            // Objects without a track (never observed, or evicted whole) have nothing to name.
            let Some(track) = inner.tracks.get_mut(at) else {
                return;
            };
            let latest = rv.is_empty() || track.last_rv() == rv;
            let pending = track
                .versions
                .iter_mut()
                .rev()
                .find(|v| v.delta.is_none() && v.rv() == rv);
            match pending {
                Some(v) => {
                    self.pending.fetch_sub(1, Ordering::Relaxed);
                    v.delta = Some(d.kind);
                    v.tombstone = tombstone;
                    if d.kind == DeltaType::Deleted {
                        track.deleted = true;
                    }
                }
                // A deletion of the latest version recorded (a relist's tombstone carries the
                // last state the informer held). When a newer version is already recorded, the
                // key was deleted and created again while nobody watched (a relist queues the
                // old object's tombstone and the new object together) and the new object is
                // not deleted.
                None if d.kind == DeltaType::Deleted && !track.deleted && latest => {
                    track.deleted = true;
                    let seq = inner.next_seq;
                    inner.next_seq += 1;
                    let mut v = Version::new(seq, at_ms, rv, false, &[]);
                    v.delta = Some(DeltaType::Deleted);
                    v.tombstone = tombstone;
                    inner.bytes += v.bytes();
                    track.versions.push_back(v);
                    if let Some((id, _)) = inner.tracks.get_key_value(at) {
                        inner.order.push_back((seq, id.clone()));
                    }
                }
                None => {}
            }
        }
        self.evict(inner);
    }

    fn evict(&self, inner: &mut Inner) {
        while inner.bytes > self.budget {
            let Some((seq, id)) = inner.order.pop_front() else {
                // Nothing but leaves of live objects: drop them all (they restart as baselines).
                let freed: usize = inner.tracks.iter().map(|(id, t)| t.bytes(id)).sum();
                inner.tracks.clear();
                inner.bytes = inner.bytes.saturating_sub(freed);
                break;
            };
            let Some(track) = inner.tracks.get_mut(&id) else {
                continue;
            };
            if track.versions.front().is_some_and(|v| v.seq == seq)
                && let Some(v) = track.versions.pop_front()
            {
                if v.delta.is_none() {
                    self.pending.fetch_sub(1, Ordering::Relaxed);
                }
                inner.bytes = inner.bytes.saturating_sub(v.bytes());
                inner.evicted += 1;
                track.truncated = true;
            }
            if track.versions.is_empty() {
                let freed = track.bytes(&id);
                inner.tracks.remove(&id);
                inner.bytes = inner.bytes.saturating_sub(freed);
            }
        }
    }

    /// Bytes accounted now.
    pub fn bytes(&self) -> usize {
        self.inner.lock().bytes
    }

    /// The budget and what it holds.
    pub fn stats(&self) -> HistoryStats {
        let inner = self.inner.lock();
        HistoryStats {
            bytes: inner.bytes,
            budget: self.budget,
            objects: inner.tracks.len(),
            versions: inner.order.len(),
            evicted: inner.evicted,
            oldest_ms: oldest_ms(&inner),
        }
    }

    /// The history of one object, if any is held.
    pub fn timeline(&self, resource: &str, key: &str) -> Option<Timeline> {
        let inner = self.inner.lock();
        let id = ObjectId {
            resource: inner.resources.get(resource)?.clone(),
            key: Arc::from(key),
        };
        let track = inner.tracks.get(&id)?;
        let paths = self.paths.lock();
        let versions = track
            .versions
            .iter()
            .map(|v| VersionView {
                at_ms: v.at_ms,
                delta: v.delta,
                tombstone: v.tombstone,
                resource_version: v.rv().to_string(),
                baseline: v.baseline,
                changes: v.field_changes(&paths, &inner.writers.list),
            })
            .collect();
        let latest = unpack(&track.last)
            .into_iter()
            .map(|(p, v)| (paths.name(p), v.to_string()))
            .collect();
        Some(Timeline {
            id,
            versions,
            latest,
            deleted: track.deleted,
            truncated: track.truncated,
            oldest_ms: oldest_ms(&inner),
        })
    }

    /// The latest `limit` versions across every object, newest first, that `keep` accepts
    /// (given the object and its labels at that version).
    pub fn latest(
        &self,
        limit: usize,
        mut keep: impl FnMut(&ObjectId, &BTreeMap<String, String>) -> bool,
    ) -> Vec<ChangeRow> {
        let inner = self.inner.lock();
        let paths = self.paths.lock();
        let mut out = Vec::new();
        let label_prefix = "/metadata/labels/";
        for (seq, id) in inner.order.iter().rev() {
            if out.len() >= limit {
                break;
            }
            let Some(track) = inner.tracks.get(id) else {
                continue;
            };
            let Some(pos) = track.versions.iter().position(|v| v.seq == *seq) else {
                continue;
            };
            // Labels at that version: the latest ones with the later changes undone.
            let mut labels: BTreeMap<String, String> = unpack(&track.last)
                .into_iter()
                .filter_map(|(p, v)| {
                    let name = paths.name(p);
                    name.strip_prefix(label_prefix)
                        .map(|k| (unescape(k), v.to_string()))
                })
                .collect();
            // Fields at that version: the latest count with the later additions and removals undone.
            let mut fields = unpack(&track.last).len();
            for later in track.versions.iter().skip(pos + 1).rev() {
                for (path, old, new) in later.changes() {
                    match (old, new) {
                        (None, Some(_)) => fields = fields.saturating_sub(1),
                        (Some(_), None) => fields += 1,
                        _ => {}
                    }
                    let name = paths.name(path);
                    if let Some(k) = name.strip_prefix(label_prefix) {
                        match old {
                            Some(o) => labels.insert(unescape(k), o.to_string()),
                            None => labels.remove(&unescape(k)),
                        };
                    }
                }
            }
            if !keep(id, &labels) {
                continue;
            }
            let Some(v) = track.versions.get(pos) else {
                continue;
            };
            let view = VersionView {
                at_ms: v.at_ms,
                delta: v.delta,
                tombstone: v.tombstone,
                resource_version: v.rv().to_string(),
                baseline: v.baseline,
                changes: v.field_changes(&paths, &inner.writers.list),
            };
            out.push(ChangeRow {
                id: id.clone(),
                at_ms: v.at_ms,
                delta: v.delta,
                tombstone: v.tombstone,
                resource_version: v.rv().to_string(),
                summary: view.summary(fields),
                labels,
            });
        }
        out
    }
}

fn oldest_ms(inner: &Inner) -> Option<i64> {
    let (seq, id) = inner.order.front()?;
    inner
        .tracks
        .get(id)?
        .versions
        .iter()
        .find(|v| v.seq == *seq)
        .map(|v| v.at_ms)
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
