//! The DeltaFIFO event log: a bounded ring of the informers' tap entries, newest first, with
//! pause/resume and filters by delta type and kind.
//!
//! Invariants: the ring never holds more than `capacity` entries (oldest dropped first);
//! pausing freezes what is shown (new entries are still recorded, and counted as "new").

use std::borrow::Cow;
use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use crate::informer::delta_fifo::DeltaType;
use crate::informer::shared_informer::TapEntry;

/// Default ring capacity.
pub const EVENT_LOG_CAPACITY: usize = 5_000;

/// Delta types in the order the type filter cycles through them.
pub const DELTA_TYPES: [DeltaType; 5] = [
    DeltaType::Added,
    DeltaType::Updated,
    DeltaType::Deleted,
    DeltaType::Replaced,
    DeltaType::Sync,
];

/// client-go's names of delta types.
pub fn delta_name(d: DeltaType) -> &'static str {
    match d {
        DeltaType::Added => "Added",
        DeltaType::Updated => "Updated",
        DeltaType::Deleted => "Deleted",
        DeltaType::Replaced => "Replaced",
        DeltaType::Sync => "Sync",
    }
}

/// An informer's kind (`replicasets.apps@shop`) as the KIND column shows it: without the
/// `@namespace` of a namespace-scoped informer (the KEY column starts with the namespace).
pub fn shown_kind(kind: &str) -> &str {
    kind.split_once('@').map_or(kind, |(k, _)| k)
}

/// The widest resource column a table of `width` cells gives: a fifth of it, at least 20.
pub fn resource_cap(width: u16) -> usize {
    usize::from(width / 5).max(20)
}

/// A resource (`plural` or `plural.group`) fitted to `width` cells: as it is when it fits, else
/// its plural alone (`widgets.demo.kinformer.io` → `widgets`), cut with `…` only when the plural
/// itself is wider.
pub fn fit_resource(resource: &str, width: usize) -> Cow<'_, str> {
    if resource.chars().count() <= width {
        return Cow::Borrowed(resource);
    }
    let plural = resource.split('.').next().unwrap_or(resource);
    if plural.chars().count() <= width {
        return Cow::Borrowed(plural);
    }
    let mut t: String = plural.chars().take(width.saturating_sub(1)).collect();
    t.push('…');
    Cow::Owned(t)
}

/// A change of the log's pause or filters (the keys of the full-screen log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogChange {
    TogglePause,
    CycleType,
    CycleKind,
}

#[derive(Debug, Clone)]
pub struct EventLog {
    ring: VecDeque<TapEntry>,
    capacity: usize,
    /// Entries ever appended.
    appended: u64,
    /// `appended` when paused.
    paused_at: Option<u64>,
    pub type_filter: Option<DeltaType>,
    pub kind_filter: Option<Arc<str>>,
    kinds: BTreeSet<Arc<str>>,
    /// Widest kind ever recorded as the column shows it ([`shown_kind`], chars): the KIND
    /// column's stable width.
    kind_width: usize,
    /// Tombstone (DeletedFinalStateUnknown) entries currently in the ring.
    tombstones: usize,
}

impl Default for EventLog {
    fn default() -> Self {
        Self::with_capacity(EVENT_LOG_CAPACITY)
    }
}

impl EventLog {
    pub fn with_capacity(capacity: usize) -> Self {
        EventLog {
            ring: VecDeque::with_capacity(capacity.min(1024)),
            capacity: capacity.max(1),
            appended: 0,
            paused_at: None,
            type_filter: None,
            kind_filter: None,
            kinds: BTreeSet::new(),
            kind_width: 0,
            tombstones: 0,
        }
    }

    /// Record entries (in arrival order). Returns true if what is shown changed.
    pub fn push(&mut self, entries: Vec<TapEntry>) -> bool {
        if entries.is_empty() {
            return false;
        }
        for e in entries {
            if !self.kinds.contains(&e.kind) {
                self.kind_width = self.kind_width.max(shown_kind(&e.kind).chars().count());
                self.kinds.insert(e.kind.clone());
            }
            if self.ring.len() == self.capacity
                && let Some(old) = self.ring.pop_front()
                && old.tombstone
            {
                self.tombstones -= 1;
            }
            if e.tombstone {
                self.tombstones += 1;
            }
            self.ring.push_back(e);
            self.appended += 1;
        }
        true
    }

    pub fn len(&self) -> usize {
        self.ring.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Width of the widest kind recorded so far, as the column shows it ([`shown_kind`]).
    pub fn kind_width(&self) -> usize {
        self.kind_width
    }

    /// Whether any tombstone (DeletedFinalStateUnknown) entry is in the ring.
    pub fn has_tombstones(&self) -> bool {
        self.tombstones > 0
    }

    pub fn paused(&self) -> bool {
        self.paused_at.is_some()
    }

    /// Entries recorded since the pause.
    pub fn new_while_paused(&self) -> u64 {
        self.paused_at.map_or(0, |p| self.appended - p)
    }

    /// Carry out a change the event log screen asks for.
    pub fn change(&mut self, change: LogChange) {
        match change {
            LogChange::TogglePause => self.toggle_pause(),
            LogChange::CycleType => self.cycle_type(),
            LogChange::CycleKind => self.cycle_kind(),
        }
    }

    pub fn toggle_pause(&mut self) {
        self.paused_at = match self.paused_at {
            Some(_) => None,
            None => Some(self.appended),
        };
    }

    /// Cycle the type filter: all → Added → Updated → Deleted → Replaced → Sync → all.
    pub fn cycle_type(&mut self) {
        self.type_filter = match self.type_filter {
            None => Some(DELTA_TYPES[0]),
            Some(t) => DELTA_TYPES
                .iter()
                .position(|x| *x == t)
                .and_then(|i| DELTA_TYPES.get(i + 1))
                .copied(),
        };
    }

    /// Cycle the kind filter through the kinds seen so far.
    pub fn cycle_kind(&mut self) {
        self.kind_filter = match &self.kind_filter {
            None => self.kinds.iter().next().cloned(),
            Some(k) => self
                .kinds
                .range::<Arc<str>, _>((std::ops::Bound::Excluded(k), std::ops::Bound::Unbounded))
                .next()
                .cloned(),
        };
    }

    fn passes(&self, e: &TapEntry) -> bool {
        self.type_filter.is_none_or(|t| t == e.delta)
            && self.kind_filter.as_ref().is_none_or(|k| *k == e.kind)
    }

    /// Shown entries, newest first (frozen while paused), after filters.
    pub fn shown(&self) -> impl Iterator<Item = &TapEntry> {
        let hidden_new = self.new_while_paused().min(self.ring.len() as u64) as usize;
        self.ring
            .iter()
            .rev()
            .skip(hidden_new)
            .filter(|e| self.passes(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn entry(seq: u64, kind: &str, delta: DeltaType) -> TapEntry {
        TapEntry {
            seq,
            at: SystemTime::UNIX_EPOCH,
            kind: kind.into(),
            delta,
            tombstone: false,
            key: format!("default/p{seq}").into(),
            resource_version: seq.to_string(),
            queue_depth: 0,
            cluster: None,
        }
    }

    #[test]
    fn event_log_is_bounded_and_newest_first() {
        let mut log = EventLog::with_capacity(3);
        log.push((1..=5).map(|i| entry(i, "Pod", DeltaType::Added)).collect());
        assert_eq!(log.len(), 3);
        let seqs: Vec<u64> = log.shown().map(|e| e.seq).collect();
        assert_eq!(seqs, vec![5, 4, 3]);
    }

    #[test]
    fn event_log_tracks_kind_width_and_tombstones_in_the_ring() {
        let mut log = EventLog::with_capacity(2);
        let mut t = entry(1, "deployments.apps", DeltaType::Deleted);
        t.tombstone = true;
        log.push(vec![t, entry(2, "pods", DeltaType::Added)]);
        assert_eq!(log.kind_width(), "deployments.apps".len());
        assert!(log.has_tombstones());
        log.push(vec![entry(3, "pods", DeltaType::Added)]);
        assert!(!log.has_tombstones(), "the tombstone fell out of the ring");
        assert_eq!(log.kind_width(), 16, "width never shrinks");
        // A namespace-scoped informer's kind is as wide as the column shows it (no `@ns`).
        log.push(vec![entry(
            4,
            "replicasets.apps@identity",
            DeltaType::Added,
        )]);
        assert_eq!(log.kind_width(), "replicasets.apps".len());
    }

    #[test]
    fn a_resource_too_wide_for_its_column_shows_its_plural() {
        assert_eq!(shown_kind("replicasets.apps@identity"), "replicasets.apps");
        assert_eq!(shown_kind("pods"), "pods");
        assert_eq!(fit_resource("replicasets.apps", 20), "replicasets.apps");
        assert_eq!(fit_resource("widgets.demo.kinformer.io", 20), "widgets");
        assert_eq!(
            fit_resource("customresourcedefinitions.apiextensions.k8s.io", 20),
            "customresourcedefin…"
        );
        assert_eq!(
            fit_resource("customresourcedefinitions.apiextensions.k8s.io", 30),
            "customresourcedefinitions"
        );
        assert_eq!(resource_cap(100), 20);
        assert_eq!(resource_cap(200), 40);
    }

    #[test]
    fn paused_event_log_freezes_and_counts_new_entries() {
        let mut log = EventLog::default();
        log.push(vec![entry(1, "Pod", DeltaType::Added)]);
        log.toggle_pause();
        log.push(vec![entry(2, "Pod", DeltaType::Updated)]);
        assert_eq!(log.shown().map(|e| e.seq).collect::<Vec<_>>(), vec![1]);
        assert_eq!(log.new_while_paused(), 1);
        log.toggle_pause();
        assert_eq!(log.shown().map(|e| e.seq).collect::<Vec<_>>(), vec![2, 1]);
    }

    #[test]
    fn event_log_filters_by_type_and_kind() {
        let mut log = EventLog::default();
        log.push(vec![
            entry(1, "Pod", DeltaType::Added),
            entry(2, "Deployment", DeltaType::Updated),
            entry(3, "Pod", DeltaType::Deleted),
        ]);
        log.cycle_type(); // Added
        assert_eq!(log.shown().map(|e| e.seq).collect::<Vec<_>>(), vec![1]);
        log.cycle_type(); // Updated
        log.cycle_kind(); // Deployment (sorted first)
        assert_eq!(log.shown().map(|e| e.seq).collect::<Vec<_>>(), vec![2]);
        log.cycle_kind(); // Pod
        assert!(log.shown().next().is_none());
        for _ in 0..4 {
            log.cycle_type(); // Deleted, Replaced, Sync, all
        }
        assert_eq!(log.type_filter, None);
        log.cycle_kind(); // back to all kinds
        assert_eq!(log.shown().count(), 3);
    }
}
