//! Who made a version, without reading `fieldsV1`: the writer of each recorded change, named
//! from the `managedFields` entries' stamps (manager, operation, subresource, time).
//!
//! client-go / apimachinery counterpart: the API server's managed-fields updater
//! (`managedfields/internal/managedfieldsupdater.go`) sets an entry's `time` to now whenever the
//! request of that manager changed any field of the object, and every write is one request of
//! one manager. So between two recorded versions of an object, the entry whose time moved (or
//! that appeared) is the writer of every change in between. This reads no `fieldsV1` at all: the
//! decoder skips them unread (`ObjectMask::managed_writers`), because decoding them for every
//! listed object took history's recording cost from +12 % to +87 % of a sync's CPU. Reading who
//! and when alone costs history +9–15 % of a 10k sync's CPU and +7.5–11 % on the event path
//! (release, 2026-11-28, `bench --only history`), above the +5.5–8.4 % accepted before. The
//! writers are not where that went: profiled (perf, 2026-11-29), the stamps, `moved` and
//! `writer_of` are under 1 % of the event path's samples and the JSON decoder's entry (now with
//! its time read by hand and borrowed, no general RFC 3339 parser) is mostly the skipping of
//! `fieldsV1`, which an unread `managedFields` costs too; the flattening of the tracked fields
//! is two thirds of `observe`, and those fields grew this round (the columns a past view
//! draws, the names the uses index reads). Alternated with the previous build at load 3.7–4.0
//! (01:22 UTC): event path +5.4 → +5.3 µs, its decode +1.0 → +0.5 µs; sync CPU +15.6 % →
//! +21.0–23.6 % on a path this round did not touch (the protobuf decoder, `observe`): the
//! machine's spread, not a change. Where an
//! object does carry `fieldsV1` (a GET, a test), the exact field ownership is used instead
//! ([`super::Ownership`]). Nothing in client-go or kubectl names a change's writer.
//!
//! Invariants:
//! - a version's stamps are compact (a writer index and a time per entry, 16 bytes), never the
//!   entries themselves;
//! - when several entries moved (versions missed, e.g. across a relist), a change under
//!   `/status` goes to a writer through the `status` subresource, any other change to a writer
//!   of the object itself, when there is one; then the latest write wins;
//! - when no entry moved, the times have one-second resolution and a manager wrote twice within
//!   the second: the latest write (by the same rule) is named;
//! - `deletionTimestamp` is never named: the API server sets it on a DELETE, which records no
//!   writer.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;

use super::Writer;

/// One `managedFields` entry as a track keeps it: the writer's index in [`Writers`] and the
/// time of its last write (Unix seconds; `i64::MIN` when the entry has none).
pub(super) type Stamp = (u16, i64);

/// An owner index for a change nobody owns.
pub(super) const NO_WRITER: u16 = u16::MAX;

/// Every writer met (field managers), by the index versions hold.
#[derive(Default)]
pub(super) struct Writers {
    pub(super) list: Vec<Arc<Writer>>,
    /// By the hash of (manager, operation, subresource); a collision is resolved by a scan.
    by_hash: HashMap<u64, u16, foldhash::fast::FixedState>,
}

impl Writers {
    /// The index of the writer (`NO_WRITER` past 65 534 writers); `bytes` grows by what a new
    /// one holds. No allocation for a writer already met.
    pub(super) fn id(
        &mut self,
        manager: &str,
        operation: &str,
        subresource: &str,
        bytes: &mut usize,
    ) -> u16 {
        let same = |w: &Writer| {
            &*w.manager == manager && &*w.operation == operation && &*w.subresource == subresource
        };
        let hash = self
            .by_hash
            .hasher()
            .hash_one((manager, operation, subresource));
        if let Some(&id) = self.by_hash.get(&hash)
            && self.list.get(usize::from(id)).is_some_and(|w| same(w))
        {
            return id;
        }
        // A hash collision (or a new writer): the list is short, a scan is cheap.
        if let Some(id) = self.list.iter().position(|w| same(w)) {
            return u16::try_from(id).unwrap_or(NO_WRITER);
        }
        let id = match u16::try_from(self.list.len()) {
            Ok(id) if id != NO_WRITER => id,
            _ => return NO_WRITER,
        };
        let w = Writer {
            manager: Arc::from(manager),
            operation: Arc::from(operation),
            subresource: Arc::from(subresource),
        };
        *bytes += manager.len() + operation.len() + subresource.len() + 96;
        self.list.push(Arc::new(w));
        self.by_hash.entry(hash).or_insert(id);
        id
    }

    /// The index of `w` (see [`Self::id`]).
    pub(super) fn id_of(&mut self, w: &Writer, bytes: &mut usize) -> u16 {
        self.id(&w.manager, &w.operation, &w.subresource, bytes)
    }

    pub(super) fn get(&self, id: u16) -> Option<&Arc<Writer>> {
        self.list.get(usize::from(id))
    }
}

/// The stamps of an object's `managedFields`.
pub(super) fn stamps(
    entries: &[ManagedFieldsEntry],
    writers: &mut Writers,
    bytes: &mut usize,
) -> Box<[Stamp]> {
    entries
        .iter()
        .map(|e| {
            let id = writers.id(
                e.manager.as_deref().unwrap_or(""),
                e.operation.as_deref().unwrap_or(""),
                e.subresource.as_deref().unwrap_or(""),
                bytes,
            );
            (id, e.time.as_ref().map_or(i64::MIN, |t| t.0.as_second()))
        })
        .collect()
}

/// The writers of the changes between a version stamped `before` and one stamped `now`: the
/// entries that appeared or whose time moved, or, when none did, every entry (the latest of
/// them is then named, see [`writer_of`]).
pub(super) fn moved(before: &[Stamp], now: &[Stamp]) -> Vec<Stamp> {
    let out: Vec<Stamp> = now
        .iter()
        .filter(|(id, at)| !before.iter().any(|(b, t)| b == id && t >= at))
        .copied()
        .collect();
    if out.is_empty() { now.to_vec() } else { out }
}

/// Who made the change at `path` among `candidates` (see the module invariants).
pub(super) fn writer_of(path: &str, candidates: &[Stamp], writers: &Writers) -> u16 {
    if path.starts_with("/metadata/deletionTimestamp") {
        return NO_WRITER;
    }
    let status = path == "/status" || path.starts_with("/status/");
    let through_status = |id: u16| writers.get(id).is_some_and(|w| &*w.subresource == "status");
    let latest = |keep: &dyn Fn(u16) -> bool| {
        candidates
            .iter()
            .enumerate()
            .filter(|(_, (id, _))| keep(*id))
            .max_by_key(|(i, (_, at))| (*at, *i))
            .map(|(_, (id, _))| *id)
    };
    latest(&|id| through_status(id) == status)
        .or_else(|| latest(&|_| true))
        .unwrap_or(NO_WRITER)
}

#[cfg(test)]
#[path = "writers_tests.rs"]
mod tests;
