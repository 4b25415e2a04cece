//! A filter pass spread over several updates: a text filter typed over 300k rows checks
//! [`SLICE_ROWS`] rows per update (one per frame: the App asks for a tick at once while a pass is
//! in progress), and the rows found so far are shown, marked `… so far`, as while a list streams.
//!
//! k9s counterpart: k9s filters its whole table on every key typed, in the UI goroutine (a
//! frame at 100k rows lasts as long as that pass); here no update does more than a slice.
//!
//! Invariant while a pass is in progress (`scan` set): `visible` holds, in order, exactly the
//! rows of `order` up to and including `frontier` that pass the filters (none when `frontier` is
//! `None`). Rows inserted before the frontier are checked as they come; rows after it are left to
//! the pass; removing the frontier's row moves the frontier to the row before it. A re-sort
//! starts the pass over; a batch of rows that moved ends it in one pass over every row (started
//! over, a stream of such batches would never let it end).

use std::cmp::Ordering;
use std::sync::Arc;

use super::{Entry, TableModel, cmp_entries};

/// Rows a sliced filter checks per update. A row's check costs 0.8 µs at 10k rows and ~1.5-1.8
/// µs at 100k-300k (release; cache misses: a hash lookup, then the row's cells), so a slice is
/// ~9 ms at most, within a 16 ms frame with the frame's drawing (~1 ms).
pub(super) const SLICE_ROWS: usize = 5_000;

/// A filter pass in progress.
#[derive(Debug, Clone, Default)]
pub(super) struct FilterScan {
    /// The last row of `order` checked; `None`: none yet.
    frontier: Option<Arc<str>>,
}

impl TableModel {
    /// Recompute the shown list after a text filter change, in slices: the first
    /// `SLICE_ROWS` (5,000) rows now, the rest over the next updates ([`Self::continue_filter`]). A
    /// table of at most one slice is filtered at once ([`Self::refilter`] without index
    /// candidates).
    pub fn refilter_sliced(&mut self) {
        if !self.filters.active() || self.order.len() <= self.slice_rows {
            self.refilter(None);
            return;
        }
        self.filtered = true;
        self.visible.clear();
        self.scan = Some(FilterScan::default());
        self.continue_filter();
    }

    /// Whether a filter pass is in progress: the shown rows are the matches so far.
    pub fn filtering(&self) -> bool {
        self.scan.is_some()
    }

    /// Check the next slice of rows of a filter pass in progress. Returns whether the shown
    /// list changed (a pass was in progress).
    pub fn continue_filter(&mut self) -> bool {
        let Some(scan) = &self.scan else {
            return false;
        };
        let start = match scan.frontier.as_deref().and_then(|k| self.entries.get(k)) {
            Some(e) => self.search(&self.order, e).map_or_else(|p| p, |i| i + 1),
            None => 0,
        };
        let end = start.saturating_add(self.slice_rows).min(self.order.len());
        let (entries, filters) = (&self.entries, &self.filters);
        let found = self.order[start..end]
            .iter()
            .filter(|k| entries.get(*k).is_some_and(|e| filters.passes(&e.summary)));
        self.visible.extend(found.cloned());
        self.scan = if end < self.order.len() {
            Some(FilterScan {
                frontier: self.order.get(end.wrapping_sub(1)).cloned(),
            })
        } else {
            None
        };
        self.fix_selection(None);
        true
    }

    /// Rows a filter pass checks per update (a small number lets tests see a pass in slices).
    pub fn set_slice_rows(&mut self, rows: usize) {
        self.slice_rows = rows.max(1);
    }

    /// Whether a row at `e`'s place in `order` has been checked by the pass in progress (always,
    /// without one): at or before the frontier. A row inserted there is shown now if it passes,
    /// else the pass will see it.
    pub(super) fn scanned(&self, e: &Entry) -> bool {
        let Some(scan) = &self.scan else {
            return true;
        };
        scan.frontier
            .as_deref()
            .and_then(|k| self.entries.get(k))
            .is_some_and(|f| cmp_entries(self.sort, self.descending, e, f) != Ordering::Greater)
    }

    /// The row at `i` of `order` is about to be removed: when it is the pass's frontier, the
    /// row before it becomes the frontier.
    pub(super) fn scan_forgets(&mut self, i: usize) {
        let Some(scan) = &mut self.scan else {
            return;
        };
        if scan
            .frontier
            .as_ref()
            .is_some_and(|f| self.order.get(i).is_some_and(|k| Arc::ptr_eq(k, f)))
        {
            scan.frontier = i.checked_sub(1).and_then(|j| self.order.get(j)).cloned();
        }
    }
}
