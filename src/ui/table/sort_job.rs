//! A sort spread over several updates: `shift-s` on 300k rows sorts in runs of
//! [`SORT_RUN_SLICES`] filter slices, then merges them pairwise, at most
//! [`SORT_MERGE_SLICES`] filter slices of rows an update (one per frame: the App asks for a tick at
//! once while a sort is in progress). The table keeps its previous order until the new one is
//! complete, and its title says `sorting N%` meanwhile; scrolling, filtering and the watch keep
//! going.
//!
//! k9s counterpart: k9s sorts its whole table in the UI goroutine on every refresh (a frame at
//! 100k rows lasts as long as that sort); here no update sorts or merges more than a few slices.
//!
//! Invariants while a sort is in progress (`TableModel::sorting` set):
//! - `TableModel::sort`/`descending` and `order` are still the previous sort's (every insert and
//!   removal keeps `order` sorted by it, as without a job); [`SortJob::target`] is what the user
//!   asked for, and what [`TableModel::sort`](super::TableModel::sort) answers;
//! - `dirty` holds every key whose entry was inserted, replaced or removed since the job began;
//!   the job skips those keys (their values may have changed under it, which would break the
//!   order of a merge), and the end puts the ones still present in their place by binary search;
//! - every key of the job's lists that is not dirty has the same entry as when the job began, so
//!   the runs and merges of those keys are consistent with one another.

use std::cmp::Ordering;
use std::sync::Arc;

use super::{FastSet, SortBy, TableModel, cmp_entries, sorted_keys};

/// A table longer than this many filter slices is sorted over several updates.
pub(super) const SORT_SLICED_ABOVE: usize = 4;
/// The length of the first runs, in filter slices (sorted within one update each).
const SORT_RUN_SLICES: usize = 1;
/// Rows merged per update, in filter slices. A merge step costs two hash lookups and a
/// comparison a row (~0.6-0.8 µs at 300k rows, release: cache misses), so 10k rows is ~8 ms of
/// a 16 ms frame (`bench --only scale`: the longest sort frame 7.9 ms at 100k, 12.9 ms at
/// 300k; 20k rows a step made it 13 and 19 ms).
const SORT_MERGE_SLICES: usize = 2;

/// A sort in progress (see the module doc).
#[derive(Debug, Clone)]
pub(super) struct SortJob {
    /// The sort asked for: column and direction.
    pub(super) target: (SortBy, bool),
    /// Keys changed since the job began: skipped, placed at the end.
    dirty: FastSet<Arc<str>>,
    /// The keys of the current pass, in runs that are each sorted by `target`.
    src: Vec<Arc<str>>,
    /// Where each run of `src` starts, then `src.len()`.
    bounds: Vec<usize>,
    /// The next pass being built: merged runs, and where each starts.
    dst: Vec<Arc<str>>,
    dst_bounds: Vec<usize>,
    /// The pair of runs being merged (its first run's index in `bounds`) and the cursors in
    /// each; unused while the first runs are being sorted.
    pair: usize,
    left: usize,
    right: usize,
    /// How many of the first runs are sorted (the first phase).
    runs_sorted: usize,
    /// The first runs are sorted: merging.
    merging: bool,
    /// Rows the whole job has to go through, for the progress shown (`done` of `work`).
    work: usize,
    done: usize,
}

impl TableModel {
    /// Sort by `by`, descending or not: at once for a table of a few slices, else over the next
    /// updates ([`Self::continue_sort`]), the previous order shown meanwhile.
    pub(super) fn sort_to(&mut self, by: SortBy, descending: bool) {
        self.sorting = None;
        if by == self.sort {
            if descending != self.descending {
                self.descending = descending;
                // Reversing a total order is a reverse of the list.
                self.order.reverse();
                self.visible.reverse();
                if self.scan.is_some() {
                    self.refilter_sliced();
                    return;
                }
            }
            self.fix_selection(None);
            return;
        }
        let slice = self.slice_rows;
        if self.order.len() <= slice.saturating_mul(SORT_SLICED_ABOVE) {
            self.sort = by;
            self.descending = descending;
            self.resort();
            return;
        }
        let run = slice.saturating_mul(SORT_RUN_SLICES).max(1);
        let src = self.order.clone();
        let mut bounds: Vec<usize> = (0..src.len()).step_by(run).collect();
        bounds.push(src.len());
        let runs = bounds.len() - 1;
        let passes = usize::BITS - (runs.max(1) - 1).leading_zeros();
        let work = src.len().saturating_mul(1 + passes as usize);
        self.sorting = Some(Box::new(SortJob {
            target: (by, descending),
            dirty: FastSet::default(),
            dst: Vec::with_capacity(src.len()),
            src,
            bounds,
            dst_bounds: Vec::new(),
            pair: 0,
            left: 0,
            right: 0,
            runs_sorted: 0,
            merging: false,
            work,
            done: 0,
        }));
        self.continue_sort();
    }

    /// Whether a sort is in progress, and how far (0–100).
    pub fn sorting(&self) -> Option<u8> {
        self.sorting.as_ref().map(|j| {
            let pct = j.done.saturating_mul(100) / j.work.max(1);
            u8::try_from(pct.min(99)).unwrap_or(99)
        })
    }

    /// A key's entry was inserted, replaced or removed: a sort in progress places it at its end.
    pub(super) fn touched(&mut self, key: &Arc<str>) {
        if let Some(j) = &mut self.sorting {
            j.dirty.insert(key.clone());
        }
    }

    /// Restart a sort in progress from the current rows (after a change to every row's sort
    /// key, e.g. a resync or a metrics poll).
    pub(super) fn restart_sort(&mut self) {
        if let Some(j) = self.sorting.take() {
            let (by, descending) = j.target;
            self.sort_to(by, descending);
        }
    }

    /// Do the next step of a sort in progress; at its end the new order replaces the old one.
    /// Returns whether anything shown changed (the progress, or the order at the end).
    pub fn continue_sort(&mut self) -> bool {
        let Some(mut job) = self.sorting.take() else {
            return false;
        };
        let slice = self.slice_rows;
        let (by, descending) = job.target;
        if !job.merging {
            let runs = job.bounds.len() - 1;
            // First phase: sort one run.
            let (a, b) = (job.bounds[job.runs_sorted], job.bounds[job.runs_sorted + 1]);
            let dirty = &job.dirty;
            let keys = job.src[a..b]
                .iter()
                .filter(|k| dirty.is_empty() || !dirty.contains(*k));
            let sorted = sorted_keys(&self.entries, keys, by, descending);
            job.done += b - a;
            // Runs keep their place; a run that lost keys (deleted, or dirty) is shorter.
            job.dst_bounds.push(job.dst.len());
            job.dst.extend(sorted);
            job.runs_sorted += 1;
            if job.runs_sorted == runs {
                job.dst_bounds.push(job.dst.len());
                next_pass(&mut job);
                job.merging = true;
            }
        } else {
            let mut budget = slice.saturating_mul(SORT_MERGE_SLICES).max(1);
            while budget > 0 && job.bounds.len() > 2 {
                budget = budget.saturating_sub(self.merge_step(&mut job, budget));
            }
        }
        if job.merging && job.bounds.len() <= 2 {
            self.finish_sort(*job);
        } else {
            self.sorting = Some(job);
        }
        true
    }

    /// Merge up to `budget` rows of the current pair of runs (or carry a lone last run over);
    /// returns the rows gone through.
    fn merge_step(&self, job: &mut SortJob, budget: usize) -> usize {
        let (by, descending) = job.target;
        let p = job.pair;
        if p + 1 >= job.bounds.len() - 1 {
            // A lone last run: carried over as it is.
            let (a, b) = (job.bounds[p], job.bounds[p + 1]);
            job.dst_bounds.push(job.dst.len());
            job.dst.extend(job.src[a..b].iter().cloned());
            job.done += b - a;
            job.dst_bounds.push(job.dst.len());
            next_pass(job);
            return (b - a).max(1);
        }
        let (a, m, b) = (job.bounds[p], job.bounds[p + 1], job.bounds[p + 2]);
        if job.left == 0 && job.right == 0 {
            job.dst_bounds.push(job.dst.len());
            job.left = a;
            job.right = m;
        }
        let skip = |k: &Arc<str>| !job.dirty.is_empty() && job.dirty.contains(k);
        let mut steps = 0;
        let (mut i, mut j) = (job.left, job.right);
        let mut out = Vec::with_capacity(budget.min(b - a));
        while steps < budget && (i < m || j < b) {
            steps += 1;
            let take_left = if i >= m {
                false
            } else if j >= b {
                true
            } else {
                let (x, y) = (&job.src[i], &job.src[j]);
                if skip(x) || !self.entries.contains_key(x) {
                    i += 1;
                    continue;
                }
                if skip(y) || !self.entries.contains_key(y) {
                    j += 1;
                    continue;
                }
                match (self.entries.get(x), self.entries.get(y)) {
                    (Some(ex), Some(ey)) => {
                        let o = match by {
                            SortBy::Key if !descending => x.cmp(y),
                            SortBy::Key => y.cmp(x),
                            _ => cmp_entries(by, descending, ex, ey),
                        };
                        o != Ordering::Greater
                    }
                    _ => true,
                }
            };
            let k = if take_left {
                i += 1;
                &job.src[i - 1]
            } else {
                j += 1;
                &job.src[j - 1]
            };
            if !skip(k) && self.entries.contains_key(k) {
                out.push(k.clone());
            }
        }
        job.dst.extend(out);
        job.done += steps;
        if i >= m && j >= b {
            job.left = 0;
            job.right = 0;
            job.pair += 2;
            if job.pair >= job.bounds.len() - 1 {
                job.dst_bounds.push(job.dst.len());
                next_pass(job);
            }
        } else {
            job.left = i;
            job.right = j;
        }
        steps.max(1)
    }

    /// The sorted keys replace `order`: the keys changed meanwhile are merged in at their place.
    fn finish_sort(&mut self, job: SortJob) {
        let SortJob {
            target: (by, descending),
            dirty,
            src,
            ..
        } = job;
        self.sort = by;
        self.descending = descending;
        let mut order = src;
        if !dirty.is_empty() {
            order.retain(|k| !dirty.contains(k) && self.entries.contains_key(k));
            let present: Vec<&Arc<str>> = dirty
                .iter()
                .filter_map(|k| self.entries.get_key_value(k).map(|(k, _)| k))
                .collect();
            let extra = sorted_keys(&self.entries, present.into_iter(), by, descending);
            order = self.merge(order, extra);
        }
        self.order = order;
        if self.scan.is_some()
            || (self.filtered && self.visible.len() > self.slice_rows.saturating_mul(4))
        {
            // The shown rows are a filtered copy of the old order: checked anew in slices.
            self.refilter_sliced();
            return;
        }
        if self.filtered {
            self.visible = sorted_keys(&self.entries, self.visible.iter(), by, descending);
        }
        self.fix_selection(None);
    }
}

/// The pass built in `dst` becomes the one to merge next.
fn next_pass(job: &mut SortJob) {
    job.src = std::mem::take(&mut job.dst);
    job.bounds = std::mem::take(&mut job.dst_bounds);
    // Runs that lost every key are empty: dropped.
    job.bounds.dedup();
    if job.bounds.first() != Some(&0) {
        job.bounds.insert(0, 0);
    }
    if job.bounds.last() != Some(&job.src.len()) {
        job.bounds.push(job.src.len());
    }
    job.dst = Vec::with_capacity(job.src.len());
    job.pair = 0;
    job.left = 0;
    job.right = 0;
}
