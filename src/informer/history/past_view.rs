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
//! Stepping: the objects a past view rebuilt are kept (by the version they show: the state after
//! a version never changes) until the next past view, which hands back those it shows again, so
//! a `[` / `]` step rebuilds only the objects that changed at that instant; the screen then
//! reprints only rows whose object it did not show before (`ui::time_travel`).
//!
//! Invariants:
//! - an object whose latest version was recorded at or before the instant, and which is live, is
//!   the live object (not rebuilt: `Since::Unchanged`);
//! - an object deleted at or before the instant is absent; one whose first version (a baseline)
//!   was recorded after it is absent; a name deleted and created again reads as the object that
//!   held it then;
//! - history evicts its oldest versions first across every object, so an instant before the
//!   oldest version held ([`PastView::earliest_ms`]) is clamped to it: a live object with no
//!   history left has had no version since then, and is shown as it is.

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference, Time};
use kube::api::DynamicObject;
use serde_json::{Map, Value};

use super::{
    History, LEAF_BOOL, LEAF_NULL, LEAF_NUM, ObjectId, Paths, SEG_INDEX, SEG_NAME, SEG_TYPE, Track,
    Version, oldest_ms, unescape, unpack,
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
/// path id (as they are packed).
fn leaves_after(track: &Track, index: Option<usize>) -> Vec<(u32, &str)> {
    let mut state = unpack(&track.last);
    let skip = index.map_or(0, |i| i + 1);
    for v in track.versions.iter().skip(skip).rev() {
        let changes: Vec<_> = v.changes().collect();
        for (path, old, _) in changes.into_iter().rev() {
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
    state
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

/// Put `leaf` at the path `segs` (each segment's shape in `shape`) under `root`. A value whose
/// shape does not fit what is already there is dropped (never a panic).
fn insert(root: &mut Value, segs: &[String], shape: &[u8], leaf: Value) {
    let mut cur = root;
    for (i, seg) in segs.iter().enumerate() {
        let kind = shape.get(i).copied().unwrap_or(super::SEG_KEY);
        let last = i + 1 == segs.len();
        let next = shape.get(i + 1).copied().filter(|_| i + 2 <= segs.len());
        cur = match (kind, cur) {
            (SEG_NAME | SEG_TYPE, Value::Array(items)) => {
                let field = if kind == SEG_NAME { "name" } else { "type" };
                let found = items
                    .iter()
                    .position(|x| x.get(field).and_then(Value::as_str) == Some(seg.as_str()));
                let at = match found {
                    Some(at) => at,
                    None => {
                        let mut item = Map::new();
                        item.insert(field.to_string(), Value::String(seg.clone()));
                        items.push(Value::Object(item));
                        items.len() - 1
                    }
                };
                match items.get_mut(at) {
                    Some(item) => item,
                    None => return,
                }
            }
            (SEG_INDEX, Value::Array(items)) => {
                let Ok(n) = seg.parse::<usize>() else { return };
                // An index far past the items is no array this object had.
                if n > items.len() + 4096 {
                    return;
                }
                if items.len() <= n {
                    items.resize(n + 1, Value::Null);
                }
                let Some(item) = items.get_mut(n) else { return };
                if last {
                    *item = leaf;
                    return;
                }
                if item.is_null() {
                    *item = container(next);
                }
                item
            }
            (_, Value::Object(m)) => {
                if last {
                    m.insert(seg.clone(), leaf);
                    return;
                }
                // Most segments are met again (an object's siblings): no key allocated then.
                if !m.contains_key(seg.as_str()) {
                    m.insert(seg.clone(), container(next));
                }
                match m.get_mut(seg.as_str()) {
                    Some(child) => child,
                    None => return,
                }
            }
            _ => return,
        };
    }
}

/// Each path's segments, unescaped, by path id: split once per past view, not once per leaf.
type Segments = Vec<Option<Arc<[String]>>>;

fn segments_of(path: u32, paths: &Paths, cache: &mut Segments) -> Arc<[String]> {
    let i = path as usize;
    if let Some(Some(s)) = cache.get(i) {
        return s.clone();
    }
    let segs: Arc<[String]> = paths.name(path).split('/').skip(1).map(unescape).collect();
    if cache.len() <= i {
        cache.resize(i + 1, None);
    }
    if let Some(slot) = cache.get_mut(i) {
        *slot = Some(segs.clone());
    }
    segs
}

/// The object `id` as its leaves `state` say, with the resourceVersion `rv`.
fn rebuild(
    id: &ObjectId,
    state: &[(u32, &str)],
    rv: &str,
    paths: &Paths,
    cache: &mut Segments,
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
    let mut data = Value::Object(Map::new());
    let time = |v: &str| serde_json::from_value::<Time>(Value::String(v.to_string())).ok();
    for &(path, value) in state {
        let shape = paths.shapes.get(path as usize).map_or(&[][..], |s| &s[..]);
        let segs = segments_of(path, paths, cache);
        match &segs[..] {
            [m, labels, k] if m == "metadata" && labels == "labels" => {
                meta.labels
                    .get_or_insert_with(Default::default)
                    .insert(k.clone(), value.to_string());
            }
            [m, t] if m == "metadata" && t == "creationTimestamp" => {
                meta.creation_timestamp = time(value)
            }
            [m, t] if m == "metadata" && t == "deletionTimestamp" => {
                meta.deletion_timestamp = time(value)
            }
            [m, o, uid] if m == "metadata" && o == "ownerReferences" => {
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
            [m, ..] if m == "metadata" => {}
            _ => {
                let kind = shape.last().copied().unwrap_or(super::LEAF_STR);
                insert(&mut data, &segs, shape, leaf_value(kind, value));
            }
        }
    }
    DynamicObject {
        types: None,
        metadata: meta,
        data,
    }
}

/// Rebuilt objects by the state they show: [`memo_key`].
pub(super) type Memo = HashMap<u64, Arc<DynamicObject>, foldhash::fast::FixedState>;

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

impl History {
    /// Forget the objects the last past view rebuilt: the next one rebuilds every object it
    /// shows (as a first `:at` does; the bench measures both).
    pub fn forget_past_views(&self) {
        self.past_memo.lock().clear();
    }

    /// The oldest instant a past view can show (the oldest version held), if any is held.
    pub fn earliest_ms(&self) -> Option<i64> {
        oldest_ms(&self.inner.lock())
    }

    /// Every object of `resource` (in `namespace`, or all) as it was at `at_ms` (clamped to
    /// [`Self::earliest_ms`]), sorted by key. `live`: the informer's objects now; those
    /// unchanged since the instant are shown as they are (and those with no history left too).
    pub fn past_view(
        &self,
        resource: &str,
        namespace: Option<&str>,
        at_ms: i64,
        live: impl IntoIterator<Item = Arc<DynamicObject>>,
    ) -> PastView {
        let inner = self.inner.lock();
        let earliest_ms = oldest_ms(&inner);
        let at = earliest_ms.map_or(at_ms, |e| at_ms.max(e));
        // The live objects by (namespace, name), borrowed: no key is built per object.
        let live: Vec<Arc<DynamicObject>> = live.into_iter().collect();
        let mut by_key: HashMap<(&str, &str), usize, foldhash::fast::FixedState> =
            HashMap::with_capacity_and_hasher(live.len(), Default::default());
        for (i, o) in live.iter().enumerate() {
            if let Some(name) = o.metadata.name.as_deref() {
                by_key.insert((o.metadata.namespace.as_deref().unwrap_or(""), name), i);
            }
        }
        // Live objects with a track in scope (the others have no history left).
        let mut tracked = vec![false; live.len()];
        let paths = self.paths.lock();
        let mut cache = Segments::new();
        let old_memo = std::mem::take(&mut *self.past_memo.lock());
        let mut memo = Memo::default();
        let mut rows = Vec::new();
        for (id, track) in inner.tracks.iter() {
            if !in_scope(id, resource, namespace) {
                continue;
            }
            let slot = by_key
                .get(&id.key.split_once('/').unwrap_or(("", &id.key)))
                .copied();
            if let Some(t) = slot.and_then(|i| tracked.get_mut(i)) {
                *t = true;
            }
            let At::After(index) = position(track, at) else {
                continue;
            };
            let changed = changed_after(track, index);
            let now = slot
                .filter(|_| !track.deleted)
                .and_then(|i| live.get(i))
                .cloned();
            let (object, since) = match now {
                Some(o) if !changed => (o, Since::Unchanged),
                _ => {
                    let since = if track.deleted {
                        Since::Deleted
                    } else if changed {
                        Since::Changed
                    } else {
                        Since::Unchanged
                    };
                    let key = memo_key(track, index);
                    let object = match key.and_then(|k| old_memo.get(&k)) {
                        Some(o) => o.clone(),
                        None => {
                            let state = leaves_after(track, index);
                            let rv = match index.and_then(|i| track.versions.get(i)) {
                                Some(v) => v.rv(),
                                None => "",
                            };
                            Arc::new(rebuild(id, &state, rv, &paths, &mut cache))
                        }
                    };
                    if let Some(k) = key {
                        memo.insert(k, object.clone());
                    }
                    (object, since)
                }
            };
            rows.push(PastRow {
                key: id.key.clone(),
                object,
                since,
                version: index,
            });
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
        *self.past_memo.lock() = memo;
        rows.sort_by(|a, b| a.key.cmp(&b.key));
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
