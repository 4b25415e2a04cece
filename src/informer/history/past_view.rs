//! Time travel: every object of a scope (resource, namespace) as it was at an instant, rebuilt
//! from the recorded versions, and the instants at which the scope changed (to step through
//! them).
//!
//! client-go counterpart: none (an informer's cache holds only the latest version of each
//! object; k9s shows only the live cache). The nearest piece is a `Lister` over the indexer,
//! which this answers for a past instant.
//!
//! How an object is rebuilt: its latest leaves with the changes of the versions recorded after
//! the instant undone (as [`super::Timeline::state_at`] does), then each `(path, value)` leaf put
//! back into a JSON object by its path's shape (recorded once, when a path is first named: which
//! segments are keys, which address array items by `name`, `type` or index, and whether the
//! value was a string, number, bool or null). Labels, owners (by uid) and the creation and
//! deletion timestamps are tracked for every kind (a drilled view picks its rows by owner), and each kind's history mask keeps everything its cache mask keeps
//! (see `render::history_mask`), so the row printers draw a rebuilt object as they drew the
//! live one then.
//!
//! Each path's place in a rebuilt object (a label, an owner, a timestamp, or its segments under
//! `data`) is worked out once per past view, not once per leaf, and the leaves of each object
//! are undone in buffers reused from object to object.
//!
//! Stepping: a past view leaves behind the objects it rebuilt (by the version they show: the
//! state after a version never changes) and itself, with its scope's versions indexed by time.
//! The next past view of the same scope, while nothing was evicted since, is that view moved
//! to the new instant: only the objects with a version between the two instants, or recorded
//! since, are looked at again (a binary search in the index, then a merge by key), so a `[` /
//! `]` step looks at what changed at that instant, not at every object of the scope (the rows
//! are still copied out and the live objects mapped by key: pointer work); the screen then reprints
//! only rows whose object it did not show before (`ui::time_travel`). Otherwise (another
//! scope, an eviction since, a version waiting for its delta type) every object of the scope
//! is looked at, reusing the objects rebuilt before that it shows again.
//!
//! Invariants:
//! - an object whose latest version was recorded at or before the instant, and which is live, is
//!   the live object (not rebuilt: `Since::Unchanged`);
//! - an object deleted at or before the instant is absent; one whose first version (a baseline)
//!   was recorded after it is absent; a name deleted and created again reads as the object that
//!   held it then;
//! - history evicts its oldest versions first across every object, so an instant before the
//!   oldest version held ([`PastView::earliest_ms`]) is clamped to it: a live object with no
//!   history left has had no version since then, and is shown as it is;
//! - a view reached by a step equals the view of that instant looked at object by object.

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};
use kube::api::DynamicObject;
use serde_json::{Map, Value};

use super::{
    ChangeRef, History, Inner, LEAF_BOOL, LEAF_NULL, LEAF_NUM, ObjectId, Paths, SEG_INDEX,
    SEG_NAME, SEG_TYPE, Track, Version, leaves, oldest_ms, text, unescape,
};
use crate::informer::delta_fifo::DeltaType;
use crate::informer::store::meta_namespace_key;

/// How a row of a past view compares with now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Since {
    /// As it is now.
    Unchanged,
    /// Changed since (it may have been deleted and created again).
    Changed,
    /// Deleted since.
    Deleted,
}

/// One object as it was.
#[derive(Debug, Clone, PartialEq)]
pub struct PastRow {
    /// `namespace/name`.
    pub key: Arc<str>,
    pub object: Arc<DynamicObject>,
    pub since: Since,
    /// Which recorded version it is (the index in its [`super::Timeline`]'s versions), `None`
    /// for a live object whose history was evicted.
    pub version: Option<usize>,
}

/// A scope as it was at an instant.
#[derive(Debug, Clone, PartialEq)]
pub struct PastView {
    /// The instant asked for.
    pub asked_ms: i64,
    /// The instant shown: the one asked for, or the earliest available if that was earlier.
    pub at_ms: i64,
    /// The oldest version history still holds (older ones were evicted by `--history-mib`).
    pub earliest_ms: Option<i64>,
    /// By key.
    pub rows: Vec<PastRow>,
}

impl PastView {
    /// The instant asked for was before the earliest one available.
    pub fn clamped(&self) -> bool {
        self.at_ms != self.asked_ms
    }
}

/// Whether `id` is an object of `resource` in `namespace`: one namespace, several separated by
/// commas (a view of a set; a namespace name holds no comma), or all (`None`).
fn in_scope(id: &ObjectId, resource: &str, namespace: Option<&str>) -> bool {
    &*id.resource == resource
        && namespace.is_none_or(|set| {
            id.key
                .split_once('/')
                .is_some_and(|(key_ns, _)| set.split(',').any(|ns| ns.trim() == key_ns))
        })
}

/// Where a track stands at an instant: absent, or present after version `index` (`None`: before
/// its first version held, whose earlier versions were evicted).
enum At {
    Absent,
    After(Option<usize>),
}

fn position(track: &Track, at_ms: i64) -> At {
    let after = track.versions.iter().rposition(|v| v.at_ms <= at_ms);
    match after {
        Some(i) if track.versions.get(i).and_then(|v| v.delta) == Some(DeltaType::Deleted) => {
            At::Absent
        }
        Some(i) => At::After(Some(i)),
        // Before the first version held: it existed (as that version, or as the earlier ones
        // evicted left it) unless that version created it (an Added: a watch saw it created, or
        // a name created again after a deletion). A listed object (Replaced) existed before.
        None => match track.versions.front() {
            Some(first) if first.delta != Some(DeltaType::Added) => At::After(None),
            _ => At::Absent,
        },
    }
}

/// The leaves of `track` after version `index` (`None`: before its first version), sorted by
/// path id (as they are packed), into `state`; `changes` is scratch. Both buffers are reused
/// from object to object (a past view rebuilds thousands).
fn leaves_after<'t>(
    track: &'t Track,
    index: Option<usize>,
    state: &mut Vec<(u32, &'t str)>,
    changes: &mut Vec<ChangeRef<'t>>,
) {
    state.clear();
    state.extend(leaves(&track.last).map(|(id, v)| (id, text(v))));
    let skip = index.map_or(0, |i| i + 1);
    for v in track.versions.iter().skip(skip).rev() {
        changes.clear();
        changes.extend(v.changes());
        for &(path, old, _) in changes.iter().rev() {
            match (state.binary_search_by_key(&path, |(p, _)| *p), old) {
                (Ok(i), Some(old)) => {
                    if let Some(leaf) = state.get_mut(i) {
                        leaf.1 = old;
                    }
                }
                (Ok(i), None) => {
                    state.remove(i);
                }
                (Err(i), Some(old)) => state.insert(i, (path, old)),
                (Err(_), None) => {}
            }
        }
    }
}

/// A leaf's value back to its JSON kind (as recorded in its path's shape).
fn leaf_value(kind: u8, v: &str) -> Value {
    match kind {
        LEAF_NUM => serde_json::from_str::<serde_json::Number>(v)
            .map(Value::Number)
            .unwrap_or_else(|_| Value::String(v.to_string())),
        LEAF_BOOL => Value::Bool(v == "true"),
        LEAF_NULL => Value::Null,
        _ => Value::String(v.to_string()),
    }
}

/// An empty container for a segment of shape `next` (an array for an item's segment).
fn container(next: Option<u8>) -> Value {
    match next {
        Some(SEG_NAME | SEG_TYPE | SEG_INDEX) => Value::Array(Vec::new()),
        _ => Value::Object(Map::new()),
    }
}

/// The item of `items` whose `field` (`name` or `type`) is `seg`, added if there is none.
fn item<'v>(items: &'v mut Vec<Value>, field: &str, seg: &str) -> Option<&'v mut Value> {
    let found = items
        .iter()
        .position(|x| x.get(field).and_then(Value::as_str) == Some(seg));
    let at = match found {
        Some(at) => at,
        None => {
            let mut item = Map::new();
            item.insert(field.to_string(), Value::String(seg.to_string()));
            items.push(Value::Object(item));
            items.len() - 1
        }
    };
    items.get_mut(at)
}

/// The array slot `seg` (an index) of `items`, grown to it with nulls; `None` for an index
/// far past the items (no array this object had).
fn slot<'v>(items: &'v mut Vec<Value>, seg: &str) -> Option<&'v mut Value> {
    let n = seg.parse::<usize>().ok()?;
    if n > items.len() + 4096 {
        return None;
    }
    if items.len() <= n {
        items.resize(n + 1, Value::Null);
    }
    items.get_mut(n)
}

/// The container at the path `segs` (each segment's shape in `shape`, which goes on with the
/// shape of the segment below) under `root`, made as needed; `None` when the shape does not fit
/// what is already there.
fn descend<'v>(root: &'v mut Value, segs: &[String], shape: &[u8]) -> Option<&'v mut Value> {
    let mut cur = root;
    for (i, seg) in segs.iter().enumerate() {
        let kind = shape.get(i).copied().unwrap_or(super::SEG_KEY);
        let next = shape.get(i + 1).copied();
        cur = match (kind, cur) {
            (SEG_NAME, Value::Array(items)) => item(items, "name", seg)?,
            (SEG_TYPE, Value::Array(items)) => item(items, "type", seg)?,
            (SEG_INDEX, Value::Array(items)) => {
                let item = slot(items, seg)?;
                if item.is_null() {
                    *item = container(next);
                }
                item
            }
            (_, Value::Object(m)) => {
                // Most segments are met again (an object's siblings): no key allocated then.
                if !m.contains_key(seg.as_str()) {
                    m.insert(seg.clone(), container(next));
                }
                m.get_mut(seg.as_str())?
            }
            _ => return None,
        };
    }
    Some(cur)
}

/// Put `leaf` at the last segment `seg` (of shape `kind`) in `parent`. A value whose shape does
/// not fit what is there is dropped (never a panic); so is one addressed as an array item.
fn put(parent: &mut Value, seg: &str, kind: u8, leaf: Value) {
    match (kind, parent) {
        (SEG_NAME, Value::Array(items)) => {
            item(items, "name", seg);
        }
        (SEG_TYPE, Value::Array(items)) => {
            item(items, "type", seg);
        }
        (SEG_INDEX, Value::Array(items)) => {
            if let Some(item) = slot(items, seg) {
                *item = leaf;
            }
        }
        (_, Value::Object(m)) => {
            m.insert(seg.to_string(), leaf);
        }
        _ => {}
    }
}

/// Put each leaf `(segments, shape, value)` at its path under `root`: leaves under the same
/// parent, one after another (their path ids were given in walk order), share one descent.
fn insert_all(root: &mut Value, leaves: &[(&[String], &[u8], &str)]) {
    let mut i = 0;
    while let Some(&(segs, shape, _)) = leaves.get(i) {
        let Some((_, parent)) = segs.split_last() else {
            i += 1;
            continue;
        };
        let n = parent.len();
        let same_parent = |(s, sh, _): &(&[String], &[u8], &str)| {
            s.len() == segs.len() && s.get(..n) == Some(parent) && sh.get(..n) == shape.get(..n)
        };
        let group = leaves
            .get(i..)
            .unwrap_or_default()
            .iter()
            .take_while(|l| same_parent(l))
            .count()
            .max(1);
        if let Some(at) = descend(root, parent, shape) {
            for &(segs, shape, value) in leaves.get(i..i + group).unwrap_or_default() {
                let kind = shape.get(n).copied().unwrap_or(super::SEG_KEY);
                let leaf_kind = shape.last().copied().unwrap_or(super::LEAF_STR);
                if let Some(seg) = segs.last() {
                    put(at, seg, kind, leaf_value(leaf_kind, value));
                }
            }
        }
        i += group;
    }
}

/// Where a path's leaf goes in a rebuilt object, worked out once per path and past view (not
/// once per leaf): the metadata fields the row printers and drills read, or a place in `data`.
enum Place {
    Label(String),
    Created,
    Deleted,
    /// An owner reference, by uid (the value is `Kind/name`).
    Owner(String),
    /// Metadata a rebuilt object does not carry.
    Skip,
    /// Under `data`, at these segments (unescaped).
    Data(Box<[String]>),
}

/// Each path's place, by path id.
type Places = Vec<Option<Place>>;

fn place_of(path: &str) -> Place {
    let segs: Vec<String> = path.split('/').skip(1).map(unescape).collect();
    match &segs[..] {
        [m, labels, k] if m == "metadata" && labels == "labels" => Place::Label(k.clone()),
        [m, t] if m == "metadata" && t == "creationTimestamp" => Place::Created,
        [m, t] if m == "metadata" && t == "deletionTimestamp" => Place::Deleted,
        [m, o, uid] if m == "metadata" && o == "ownerReferences" => Place::Owner(uid.clone()),
        [m, ..] if m == "metadata" => Place::Skip,
        _ => Place::Data(segs.into_boxed_slice()),
    }
}

/// Work out the place of `path` unless known.
fn place(path: u32, paths: &Paths, places: &mut Places) {
    let i = path as usize;
    if places.len() <= i {
        places.resize_with(i + 1, || None);
    }
    if let Some(slot @ None) = places.get_mut(i) {
        *slot = Some(place_of(&paths.name(path)));
    }
}

/// A recorded time (RFC 3339) as metadata holds it; parsed in place, no string built.
fn time(v: &str) -> Option<Time> {
    v.parse::<k8s_openapi::jiff::Timestamp>().ok().map(Time)
}

/// The object `id` as its leaves `state` say, with the resourceVersion `rv`.
fn rebuild(
    id: &ObjectId,
    state: &[(u32, &str)],
    rv: &str,
    paths: &Paths,
    places: &mut Places,
) -> DynamicObject {
    let (namespace, name) = match id.key.split_once('/') {
        Some((ns, name)) => (Some(ns.to_string()), name.to_string()),
        None => (None, id.key.to_string()),
    };
    let mut meta = ObjectMeta {
        name: Some(name),
        namespace,
        resource_version: (!rv.is_empty()).then(|| rv.to_string()),
        ..ObjectMeta::default()
    };
    for &(path, _) in state {
        place(path, paths, places);
    }
    let places = &*places;
    let mut data_leaves: Vec<(&[String], &[u8], &str)> = Vec::with_capacity(state.len());
    for &(path, value) in state {
        let Some(Some(place)) = places.get(path as usize) else {
            continue;
        };
        match place {
            Place::Label(k) => {
                meta.labels
                    .get_or_insert_with(Default::default)
                    .insert(k.clone(), value.to_string());
            }
            Place::Created => meta.creation_timestamp = time(value),
            Place::Deleted => meta.deletion_timestamp = time(value),
            Place::Owner(uid) => {
                let (kind, name) = value.split_once('/').unwrap_or((value, ""));
                meta.owner_references
                    .get_or_insert_with(Vec::new)
                    .push(OwnerReference {
                        uid: uid.clone(),
                        kind: kind.to_string(),
                        name: name.to_string(),
                        ..OwnerReference::default()
                    });
            }
            Place::Skip => {}
            Place::Data(segs) => {
                let shape = paths.shapes.get(path as usize).map_or(&[][..], |s| &s[..]);
                data_leaves.push((segs, shape, value));
            }
        }
    }
    let mut data = Value::Object(Map::new());
    insert_all(&mut data, &data_leaves);
    DynamicObject {
        types: None,
        metadata: meta,
        data,
    }
}

/// Rebuilt objects by the state they show: [`memo_key`].
type Memo = HashMap<u64, Arc<DynamicObject>, foldhash::fast::FixedState>;

/// What the last past view leaves for the next one: the objects it rebuilt ([`Memo`]) and the
/// view itself with an index of its scope's versions by time, so that a step to another
/// instant of the same scope redoes only the objects with a version between the two instants
/// (or recorded since), not the whole scope.
#[derive(Default)]
pub(super) struct PastCache {
    memo: Memo,
    last: Option<Last>,
}

/// The last past view, valid while nothing was evicted and no version waits for its name.
struct Last {
    resource: String,
    namespace: Option<String>,
    /// The instant shown.
    at: i64,
    /// `Inner::next_seq` then: versions recorded since have a sequence number from here.
    next_seq: u64,
    /// `Inner::evicted` then.
    evicted: u64,
    /// The scope's versions by time: (when, object), oldest first.
    by_time: Vec<(i64, ObjectId)>,
    /// By key.
    rows: Vec<PastRow>,
}

/// The state of `track` after version `index` (`None`: before its first), named by that
/// version's sequence number: the state after a version never changes (later versions are
/// undone to reach it), and sequence numbers are never reused.
fn memo_key(track: &Track, index: Option<usize>) -> Option<u64> {
    match index {
        Some(i) => track.versions.get(i).map(|v| v.seq.saturating_mul(2)),
        None => track
            .versions
            .front()
            .map(|v| v.seq.saturating_mul(2).saturating_add(1)),
    }
}

/// Some version after `index` (`None`: from the first) changed a tracked field or deleted it.
fn changed_after(track: &Track, index: Option<usize>) -> bool {
    let skip = index.map_or(0, |i| i + 1);
    track
        .versions
        .iter()
        .skip(skip)
        .any(|v: &Version| v.changes().next().is_some() || v.delta == Some(DeltaType::Deleted))
}

/// The live objects by (namespace, name), borrowed: no key is built per object.
type ByKey<'l> = HashMap<(&'l str, &'l str), usize, foldhash::fast::FixedState>;

fn by_key(live: &[Arc<DynamicObject>]) -> ByKey<'_> {
    let mut by_key = ByKey::with_capacity_and_hasher(live.len(), Default::default());
    for (i, o) in live.iter().enumerate() {
        if let Some(name) = o.metadata.name.as_deref() {
            by_key.insert((o.metadata.namespace.as_deref().unwrap_or(""), name), i);
        }
    }
    by_key
}

fn slot_of(id: &ObjectId, by_key: &ByKey<'_>) -> Option<usize> {
    by_key
        .get(&id.key.split_once('/').unwrap_or(("", &id.key)))
        .copied()
}

/// What rebuilding a row needs, shared by every row of one past view.
struct Rebuilder<'a> {
    paths: &'a Paths,
    old_memo: &'a Memo,
    memo: Memo,
    places: Places,
}

impl Rebuilder<'_> {
    /// The row of `track` at `at` (`None`: absent then); `now`: the live object of its key.
    fn row<'t>(
        &mut self,
        id: &ObjectId,
        track: &'t Track,
        at: i64,
        now: Option<&Arc<DynamicObject>>,
        scratch: &mut (Vec<(u32, &'t str)>, Vec<ChangeRef<'t>>),
    ) -> Option<PastRow> {
        let At::After(index) = position(track, at) else {
            return None;
        };
        let changed = changed_after(track, index);
        let now = now.filter(|_| !track.deleted);
        let (object, since) = match now {
            Some(o) if !changed => (o.clone(), Since::Unchanged),
            _ => {
                let since = if track.deleted {
                    Since::Deleted
                } else if changed {
                    Since::Changed
                } else {
                    Since::Unchanged
                };
                let key = memo_key(track, index);
                let memo = key.and_then(|k| self.memo.get(&k).or_else(|| self.old_memo.get(&k)));
                let object = match memo {
                    Some(o) => o.clone(),
                    None => {
                        let (state, changes) = scratch;
                        leaves_after(track, index, state, changes);
                        let rv = match index.and_then(|i| track.versions.get(i)) {
                            Some(v) => v.rv(),
                            None => "",
                        };
                        Arc::new(rebuild(id, state, rv, self.paths, &mut self.places))
                    }
                };
                if let Some(k) = key {
                    self.memo.insert(k, object.clone());
                }
                (object, since)
            }
        };
        Some(PastRow {
            key: id.key.clone(),
            object,
            since,
            version: index,
        })
    }
}

impl History {
    /// Forget the objects the last past view rebuilt: the next one rebuilds every object it
    /// shows (as a first `:at` does; the bench measures both).
    pub fn forget_past_views(&self) {
        *self.past_memo.lock() = PastCache::default();
    }

    /// The oldest instant a past view can show (the oldest version held), if any is held.
    pub fn earliest_ms(&self) -> Option<i64> {
        oldest_ms(&self.inner.lock())
    }

    /// Every object of `resource` (in `namespace`, or all) as it was at `at_ms` (clamped to
    /// [`Self::earliest_ms`]), sorted by key. `live`: the informer's objects now; those
    /// unchanged since the instant are shown as they are (and those with no history left too).
    ///
    /// After a past view of the same scope (and while nothing was evicted since), only the
    /// objects with a version between its instant and this one, or recorded since, are looked
    /// at again (a `[` / `]` step); otherwise every object of the scope is.
    pub fn past_view(
        &self,
        resource: &str,
        namespace: Option<&str>,
        at_ms: i64,
        live: impl IntoIterator<Item = Arc<DynamicObject>>,
    ) -> PastView {
        let inner = self.inner.lock();
        let paths = self.paths.lock();
        let mut cache = self.past_memo.lock();
        let earliest_ms = oldest_ms(&inner);
        let at = earliest_ms.map_or(at_ms, |e| at_ms.max(e));
        let live: Vec<Arc<DynamicObject>> = live.into_iter().collect();
        let cache = &mut *cache;
        let last = cache.last.take().filter(|l| {
            l.resource == resource
                && l.namespace.as_deref() == namespace
                && l.evicted == inner.evicted
                && self.pending.load(std::sync::atomic::Ordering::Relaxed) == 0
        });
        // A step keeps the objects rebuilt before and lets go of those it no longer shows; a
        // whole view takes from them those it shows again.
        let kept = std::mem::take(&mut cache.memo);
        let (memo, old_memo) = match last {
            Some(_) => (kept, Memo::default()),
            None => (Memo::default(), kept),
        };
        let mut rebuilder = Rebuilder {
            paths: &paths,
            old_memo: &old_memo,
            memo,
            places: Places::new(),
        };
        let last = match last {
            Some(last) => step(&inner, &mut rebuilder, last, at, &live),
            None => full(&inner, &mut rebuilder, resource, namespace, at, &live),
        };
        let rows = last.rows.clone();
        cache.memo = rebuilder.memo;
        // A version still waiting for its delta type may yet read as a deletion: no step from
        // here then.
        cache.last = (self.pending.load(std::sync::atomic::Ordering::Relaxed) == 0).then_some(last);
        PastView {
            asked_ms: at_ms,
            at_ms: at,
            earliest_ms,
            rows,
        }
    }

    /// Every instant a version of `resource` (in `namespace`, or all) was recorded, oldest
    /// first, without repeats: the stops of `[` and `]`.
    pub fn change_times(&self, resource: &str, namespace: Option<&str>) -> Vec<i64> {
        let inner = self.inner.lock();
        // The last past view's index of this scope, while nothing was recorded or evicted since.
        if let Some(last) = self.past_memo.lock().last.as_ref().filter(|l| {
            l.resource == resource
                && l.namespace.as_deref() == namespace
                && l.evicted == inner.evicted
                && l.next_seq == inner.next_seq
        }) {
            let mut times: Vec<i64> = last.by_time.iter().map(|(t, _)| *t).collect();
            times.dedup();
            return times;
        }
        let mut times: Vec<i64> = inner
            .tracks
            .iter()
            .filter(|(id, _)| in_scope(id, resource, namespace))
            .flat_map(|(_, t)| t.versions.iter().map(|v| v.at_ms))
            .collect();
        times.sort_unstable();
        times.dedup();
        times
    }
}

/// Every object of the scope at `at`, looked at one by one.
fn full(
    inner: &Inner,
    rebuilder: &mut Rebuilder<'_>,
    resource: &str,
    namespace: Option<&str>,
    at: i64,
    live: &[Arc<DynamicObject>],
) -> Last {
    let by_key = by_key(live);
    // Live objects with a track in scope (the others have no history left).
    let mut tracked = vec![false; live.len()];
    let mut scratch = (Vec::new(), Vec::new());
    let mut rows = Vec::new();
    let mut by_time = Vec::new();
    for (id, track) in inner.tracks.iter() {
        if !in_scope(id, resource, namespace) {
            continue;
        }
        by_time.extend(track.versions.iter().map(|v| (v.at_ms, id.clone())));
        let slot = slot_of(id, &by_key);
        if let Some(t) = slot.and_then(|i| tracked.get_mut(i)) {
            *t = true;
        }
        let now = slot.and_then(|i| live.get(i));
        rows.extend(rebuilder.row(id, track, at, now, &mut scratch));
    }
    // Live objects with no history left: unchanged since before the earliest instant.
    for (object, _) in live.iter().zip(&tracked).filter(|(_, t)| !**t) {
        let Ok(key) = meta_namespace_key(&**object) else {
            continue;
        };
        let probe = ObjectId {
            resource: Arc::from(resource),
            key: Arc::from(key.as_str()),
        };
        if !in_scope(&probe, resource, namespace) {
            continue;
        }
        rows.push(PastRow {
            key: probe.key,
            object: object.clone(),
            since: Since::Unchanged,
            version: None,
        });
    }
    rows.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    by_time.sort_unstable_by_key(|(t, _)| *t);
    Last {
        resource: resource.to_string(),
        namespace: namespace.map(str::to_string),
        at,
        next_seq: inner.next_seq,
        evicted: inner.evicted,
        by_time,
        rows,
    }
}

/// The last view moved to `at`: only the objects with a version between its instant and `at`,
/// or recorded since it, are looked at again.
fn step(
    inner: &Inner,
    rebuilder: &mut Rebuilder<'_>,
    mut last: Last,
    at: i64,
    live: &[Arc<DynamicObject>],
) -> Last {
    let (resource, namespace) = (last.resource.clone(), last.namespace.clone());
    // Versions recorded since: into the index, and their objects looked at again.
    let from = inner.order.partition_point(|(seq, _)| *seq < last.next_seq);
    let mut fresh: Vec<(i64, ObjectId)> = inner
        .order
        .range(from..)
        .filter(|(_, id)| in_scope(id, &resource, namespace.as_deref()))
        .filter_map(|(seq, id)| {
            let track = inner.tracks.get(id)?;
            let v = track.versions.iter().rev().find(|v| v.seq == *seq)?;
            Some((v.at_ms, id.clone()))
        })
        .collect();
    let (lo, hi) = (last.at.min(at), last.at.max(at));
    let start = last.by_time.partition_point(|(t, _)| *t <= lo);
    let end = last.by_time.partition_point(|(t, _)| *t <= hi);
    let mut touched: Vec<ObjectId> = last
        .by_time
        .get(start..end)
        .unwrap_or_default()
        .iter()
        .chain(&fresh)
        .map(|(_, id)| id.clone())
        .collect();
    if !fresh.is_empty() {
        last.by_time.append(&mut fresh);
        last.by_time.sort_by_key(|(t, _)| *t);
    }
    touched.sort_unstable_by(|a, b| a.key.cmp(&b.key));
    touched.dedup_by(|a, b| a.key == b.key);
    if !touched.is_empty() {
        let by_key = by_key(live);
        let mut scratch = (Vec::new(), Vec::new());
        // The new rows of the touched keys (`None`: absent at `at`), by key; the object an
        // old row rebuilt is let go (the memo holds what the view shows).
        let redone: Vec<(Arc<str>, Option<PastRow>)> = touched
            .iter()
            .map(|id| {
                let Some(track) = inner.tracks.get(id) else {
                    return (id.key.clone(), None);
                };
                let old = last
                    .rows
                    .binary_search_by(|r| r.key.cmp(&id.key))
                    .ok()
                    .and_then(|i| last.rows.get(i))
                    .filter(|r| r.since != Since::Unchanged)
                    .and_then(|r| memo_key(track, r.version));
                let now = slot_of(id, &by_key).and_then(|i| live.get(i));
                let row = rebuilder.row(id, track, at, now, &mut scratch);
                let new = row
                    .as_ref()
                    .filter(|r| r.since != Since::Unchanged)
                    .and_then(|r| memo_key(track, r.version));
                if let Some(old) = old.filter(|o| Some(*o) != new) {
                    rebuilder.memo.remove(&old);
                }
                (id.key.clone(), row)
            })
            .collect();
        // Merge: both sorted by key.
        let old = std::mem::take(&mut last.rows);
        let mut rows = Vec::with_capacity(old.len() + redone.len());
        let mut redone = redone.into_iter().peekable();
        for row in old {
            while let Some((_, new)) = redone.next_if(|(k, _)| *k < row.key) {
                rows.extend(new);
            }
            match redone.next_if(|(k, _)| *k == row.key) {
                Some((_, new)) => rows.extend(new),
                None => rows.push(row),
            }
        }
        rows.extend(redone.flat_map(|(_, new)| new));
        last.rows = rows;
    }
    last.at = at;
    last.next_seq = inner.next_seq;
    last
}

/// The instant `[` goes to from `at_ms`: just before the latest change at or before it (so the
/// view shows what that change changed, undone). `None`: no earlier change.
pub fn step_back(times: &[i64], at_ms: i64) -> Option<i64> {
    let n = times.partition_point(|&t| t <= at_ms);
    n.checked_sub(1)
        .and_then(|i| times.get(i))
        .map(|t| t.saturating_sub(1))
}

/// The instant `]` goes to from `at_ms`: the first change after it. `None`: no later change
/// (the view is live).
pub fn step_forward(times: &[i64], at_ms: i64) -> Option<i64> {
    let n = times.partition_point(|&t| t <= at_ms);
    times.get(n).copied()
}

#[cfg(test)]
#[path = "past_view_tests.rs"]
mod tests;
