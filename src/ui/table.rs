//! The view model of one resource table: rows kept sorted incrementally, filters, highlights of
//! recent changes, and a selection that follows its object.
//!
//! Invariants:
//! - `order` holds every key of `entries` exactly once, sorted by `cmp_entries`
//!   (sort cell, then key; reversed when descending). An update costs a binary search and one
//!   `Vec` insert/remove (a memmove of pointers), never a re-sort.
//! - `visible` holds, in the same order, exactly the keys of `order` whose entry passes the
//!   filters; it is only maintained while a filter is active (`filtered`), else `order` is shown.
//! - `selected`, when set, is a key of the shown list; `cursor` is its index there.
//! - a deleted object stays (marked) for [`DELETED_LINGER_MS`] so the user sees it go, then is
//!   removed; `expiries` lists those removals and highlight ends in deadline order.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

use regex::Regex;

pub use super::action::Drill;
use super::action::ObjectSummary;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;
use crate::selector::{LabelSelector, Operator};

mod rows;
mod sliced;
mod sort_job;

/// How long an added/updated row stays highlighted.
pub const HIGHLIGHT_MS: i64 = 1_500;
/// How long a deleted row stays on screen (struck, red) before it is removed.
pub const DELETED_LINGER_MS: i64 = 1_000;
/// Batches larger than this are merged in one pass instead of inserted one by one.
const BULK_THRESHOLD: usize = 32;

/// Why a row is highlighted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    None,
    Added,
    Updated,
    Deleted,
}

/// One object in the table.
#[derive(Debug, Clone)]
pub struct Entry {
    pub summary: ObjectSummary,
    pub mark: Mark,
    /// When `mark` was set (unix ms).
    pub since_ms: i64,
    /// The sort key of a column joined at draw time (a usage column: metrics arrive apart
    /// from the rows), set by [`TableModel::set_joined_keys`]; `None` sorts as `n/a`.
    pub joined: Option<u64>,
    /// The row is the previous list's: a relist is in progress and has not brought it again
    /// yet (drawn dimmed; see [`TableModel::mark_stale`]).
    pub stale: bool,
}

impl Entry {
    /// The highlight to draw at `now_ms` (None once it has faded).
    pub fn mark_at(&self, now_ms: i64) -> Mark {
        match self.mark {
            Mark::Deleted => Mark::Deleted,
            Mark::None => Mark::None,
            m if now_ms - self.since_ms < HIGHLIGHT_MS => m,
            _ => Mark::None,
        }
    }
}

/// The sort column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortBy {
    /// By key (`namespace/name`): NAMESPACE then NAME, kubectl's order.
    Key,
    /// By the row's cell at this index (0 = NAME).
    Cell(usize),
    /// By the joined column at this index (after the row's cells: CPU, MEM...), from
    /// [`Entry::joined`].
    Joined(usize),
}

/// A text filter, as k9s reads what follows `/`: a regular expression (`fred|blee`), `!x` the
/// rows that do not match, `-f x` fuzzy (the name holds x's characters in order). Text without
/// regex metacharacters (most filters: a name fragment) is a plain case-insensitive substring
/// search, the fast path; `~re` is a regex too (kinformer's older syntax).
#[derive(Debug, Clone)]
pub enum TextFilter {
    Substring(String),
    Regex(Regex),
    /// Lower-case characters the name must hold in order (k9s's `-f`).
    Fuzzy(String),
    /// The rows the inner filter does not match (k9s's `!`).
    Not(Box<TextFilter>),
}

/// Characters that make a filter a regular expression rather than plain text.
const REGEX_META: &str = "\\.+*?()|[]{}^$";

impl TextFilter {
    /// Parse what the user typed after `/` (see the type). An invalid regex is one line naming
    /// what was typed and what is wrong.
    pub fn parse(text: &str) -> Result<TextFilter, String> {
        if let Some(rest) = text.strip_prefix('!') {
            // `!` alone (typed on the way to `!x`) filters nothing yet.
            if rest.is_empty() {
                return Ok(TextFilter::Substring(String::new()));
            }
            return Ok(TextFilter::Not(Box::new(Self::parse(rest)?)));
        }
        if let Some(q) = text.strip_prefix("-f ").or_else(|| text.strip_prefix("-f")) {
            return Ok(TextFilter::Fuzzy(
                q.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<String>()
                    .to_lowercase(),
            ));
        }
        let re = match text.strip_prefix('~') {
            Some(re) => re,
            None if text.contains(|c| REGEX_META.contains(c)) => text,
            None => return Ok(TextFilter::Substring(text.to_lowercase())),
        };
        // regex's message is several lines (the pattern, a caret, the error): its last line
        // says what is wrong, and the pattern is the one typed (without `(?i)`).
        Regex::new(&format!("(?i){re}"))
            .map(TextFilter::Regex)
            .map_err(|e| {
                let why = e.to_string();
                let why = why.lines().last().unwrap_or("").trim();
                let why = why.strip_prefix("error: ").unwrap_or(why);
                format!("invalid regex /{text}: {why}")
            })
    }

    pub(crate) fn matches_str(&self, s: &str) -> bool {
        match self {
            TextFilter::Substring(sub) => contains_folded(s, sub),
            TextFilter::Regex(re) => re.is_match(s),
            TextFilter::Fuzzy(q) => fuzzy_match(s, q),
            TextFilter::Not(inner) => !inner.matches_str(s),
        }
    }

    fn matches(&self, s: &ObjectSummary) -> bool {
        match self {
            // Not: none of the row's text matches; fuzzy: the name, as k9s.
            TextFilter::Not(inner) => return !inner.matches(s),
            TextFilter::Fuzzy(q) => return fuzzy_match(&s.name, q),
            _ => {}
        }
        if self.matches_str(&s.name)
            || s.namespace.as_deref().is_some_and(|n| self.matches_str(n))
            || s.cluster().is_some_and(|c| self.matches_str(c))
        {
            return true;
        }
        // Only textual cells: ages and counts change meaning with time.
        s.row.cells.iter().any(|c| match c {
            crate::render::Cell::Text(t) => self.matches_str(t),
            _ => false,
        })
    }
}

/// Whether `hay` holds `needle`'s (lower-case) characters in order, ignoring case.
fn fuzzy_match(hay: &str, needle: &str) -> bool {
    let mut want = needle.chars().peekable();
    for c in hay.chars().flat_map(char::to_lowercase) {
        if want.peek() == Some(&c) {
            want.next();
        }
    }
    want.peek().is_none()
}

/// Whether `hay` contains `needle` (already lowercase), ignoring case. ASCII text, what names,
/// statuses, IPs and nodes are, is compared in place: a filter typed over 300k rows is a pass
/// over their cells with no allocation (lowercasing each cell cost 0.6 s at 300k). Other text
/// is lowercased first (Unicode case folding may change lengths).
fn contains_folded(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if hay.is_ascii() && needle.is_ascii() {
        return hay
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()));
    }
    hay.to_lowercase().contains(needle)
}

/// A label selector filter and how it was answered.
#[derive(Debug, Clone)]
pub struct LabelFilter {
    pub text: String,
    pub selector: LabelSelector,
    /// Label-index values (`key=value`, `key`) answering the equality and existence terms.
    pub index_terms: Vec<String>,
    /// True when the index answered the initial match (else a scan of the rows did).
    pub from_index: bool,
    /// Every term of the selector is an index term: the index's answer needs no re-check.
    pub exact: bool,
}

impl LabelFilter {
    /// Parse a selector and split out the terms the label index can answer.
    pub fn parse(text: &str) -> Result<LabelFilter, String> {
        let selector = LabelSelector::parse(text).map_err(|e| e.to_string())?;
        let mut index_terms = Vec::new();
        let mut exact = true;
        for r in &selector.requirements {
            match (r.op, r.values.as_slice()) {
                (Operator::Equals | Operator::DoubleEquals | Operator::In, [v]) => {
                    index_terms.push(format!("{}={}", r.key, v))
                }
                (Operator::Exists, _) => index_terms.push(r.key.clone()),
                // The key's existence narrows the candidates; the values are checked per row.
                (Operator::In, _) => {
                    index_terms.push(r.key.clone());
                    exact = false;
                }
                // NotIn, DoesNotExist, !=: checked per row.
                _ => exact = false,
            }
        }
        Ok(LabelFilter {
            text: text.to_string(),
            selector,
            index_terms,
            from_index: false,
            exact,
        })
    }
}

/// All active filters of a table.
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub drill: Option<Drill>,
    pub text: Option<TextFilter>,
    pub text_raw: String,
    pub label: Option<LabelFilter>,
    /// `ctrl-z`: only the rows that are not healthy.
    pub faults: bool,
    /// `text_raw` does not parse (an invalid `/~regex`): no text filter is applied.
    pub text_invalid: bool,
}

impl Filters {
    fn active(&self) -> bool {
        self.drill.is_some() || self.text.is_some() || self.label.is_some() || self.faults
    }

    fn passes(&self, s: &ObjectSummary) -> bool {
        self.passes_with(s, false)
    }

    /// [`passes`](Self::passes); `label_answered`: the label term is already known to hold (the
    /// row came from an exact label-index answer).
    fn passes_with(&self, s: &ObjectSummary, label_answered: bool) -> bool {
        if self.faults && !is_fault(s.row.health) {
            return false;
        }
        if let Some(d) = &self.drill
            && !d.matches(s)
        {
            return false;
        }
        if let Some(t) = &self.text
            && !t.matches(s)
        {
            return false;
        }
        if let Some(l) = &self.label
            && !label_answered
            && !l.selector.matches(s.labels())
        {
            return false;
        }
        true
    }
}

/// The rows of one resource view.
#[derive(Debug, Clone)]
pub struct TableModel {
    /// Hashed with foldhash (keys are ours, not attacker-chosen, and SipHash dominated lookups), in
    /// shards that grow one at a time ([`rows`]).
    entries: rows::Rows,
    /// Every key, sorted. Each element is the very `Arc` that keys `entries` (pointer-equal, not
    /// only string-equal), so a set of row pointers can test membership without hashing strings.
    order: Vec<Arc<str>>,
    /// The keys passing the filters, in `order`'s order; same `Arc`s as `order`.
    visible: Vec<Arc<str>>,
    filtered: bool,
    pub filters: Filters,
    sort: SortBy,
    descending: bool,
    selected: Option<Arc<str>>,
    /// The user chose a row (a move, a click, a search): from then on the selection follows
    /// that object wherever the sort puts it. Before, the first row stays selected while rows
    /// stream in, as a table opening at its top should (else the first object to arrive drags
    /// the cursor down the list as the rest is inserted above it).
    pinned: bool,
    cursor: usize,
    /// First shown row (scroll position), kept so the cursor stays in the viewport.
    pub offset: usize,
    expiries: VecDeque<(i64, Option<Arc<str>>)>,
    /// Deletions stamped with the app's last clock reading, not yet seen by a tick: the first
    /// tick after them restarts their linger from its (fresh) time, so a deleted row stays its
    /// full [`DELETED_LINGER_MS`] however long ago the previous tick was.
    unconfirmed: Vec<(Arc<str>, i64)>,
    /// A text filter's pass over the rows in progress, spread over several updates
    /// ([`TableModel::refilter_sliced`]); `visible` then holds the rows checked so far.
    scan: Option<sliced::FilterScan>,
    /// How many rows a sliced filter checks per update.
    slice_rows: usize,
    /// A sort spread over several updates ([`sort_job`]); `sort`, `descending` and `order`
    /// stay the previous sort's until it ends.
    sorting: Option<Box<sort_job::SortJob>>,
}

impl Default for TableModel {
    fn default() -> Self {
        TableModel {
            entries: rows::Rows::default(),
            order: Vec::new(),
            visible: Vec::new(),
            filtered: false,
            filters: Filters::default(),
            sort: SortBy::Key,
            descending: false,
            selected: None,
            pinned: false,
            cursor: 0,
            offset: 0,
            expiries: VecDeque::new(),
            unconfirmed: Vec::new(),
            scan: None,
            slice_rows: sliced::SLICE_ROWS,
            sorting: None,
        }
    }
}

fn cmp_entries(sort: SortBy, descending: bool, a: &Entry, b: &Entry) -> Ordering {
    let primary = match sort {
        SortBy::Key => Ordering::Equal,
        SortBy::Cell(i) => match (a.summary.row.cells.get(i), b.summary.row.cells.get(i)) {
            (Some(x), Some(y)) => x.cmp_for_sort(y),
            (x, y) => x.is_some().cmp(&y.is_some()),
        },
        SortBy::Joined(_) => a.joined.cmp(&b.joined),
    };
    let o = primary.then_with(|| a.summary.key.cmp(&b.summary.key));
    if descending { o.reverse() } else { o }
}

/// Identity of a row's key `Arc` (see `TableModel::order`).
fn row_ptr(k: &Arc<str>) -> usize {
    Arc::as_ptr(k) as *const u8 as usize
}

/// Sort keys by their entries, resolving each key once (not once per comparison).
fn sorted_keys<'a>(
    entries: &'a rows::Rows,
    keys: impl Iterator<Item = &'a Arc<str>>,
    sort: SortBy,
    descending: bool,
) -> Vec<Arc<str>> {
    let mut pairs: Vec<(&Arc<str>, &Entry)> =
        keys.filter_map(|k| entries.get_key_value(k)).collect();
    match sort {
        // Key order needs no entry: plain string comparison.
        SortBy::Key if !descending => pairs.sort_unstable_by(|a, b| a.0.cmp(b.0)),
        SortBy::Key => pairs.sort_unstable_by(|a, b| b.0.cmp(a.0)),
        _ => pairs.sort_unstable_by(|a, b| cmp_entries(sort, descending, a.1, b.1)),
    }
    pairs.into_iter().map(|(k, _)| k.clone()).collect()
}

impl TableModel {
    /// Number of objects held (including rows about to disappear).
    pub fn total(&self) -> usize {
        self.entries.len()
    }

    /// Make room for `rows` objects at once (a list whose total is known): the row map then
    /// never grows while the list streams in, and growing it rehashes every row already there
    /// (~30 ms in one frame at 100k rows).
    pub fn reserve(&mut self, rows: usize) {
        self.entries
            .reserve(rows.saturating_sub(self.entries.len()));
    }

    /// How many objects the table holds without growing its row map.
    pub fn room(&self) -> usize {
        self.entries.capacity()
    }

    /// The objects held that are still there: [`Self::total`] without the deleted rows shown
    /// for a moment. Reads only the rows lingering now.
    pub fn live_total(&self) -> usize {
        self.total()
            .saturating_sub(self.lingering_deleted(|_| true))
    }

    /// The shown rows that are objects still there: [`Self::list`]'s length without the deleted
    /// rows shown for a moment (what a title's count says: under churn the rows of the last
    /// second's deletions would otherwise add to it). Reads only the rows lingering now.
    pub fn live_len(&self) -> usize {
        let shown =
            |e: &Entry| !self.filtered || self.filters.passes(&e.summary) && self.scanned(e);
        self.list()
            .len()
            .saturating_sub(self.lingering_deleted(shown))
    }

    /// How many rows of deleted objects linger now, of those `counted` says.
    fn lingering_deleted(&self, counted: impl Fn(&Entry) -> bool) -> usize {
        let mut gone: FastSet<&Arc<str>> = FastSet::default();
        let lingering = self
            .expiries
            .iter()
            .filter_map(|(_, k)| k.as_ref())
            .chain(self.unconfirmed.iter().map(|(k, _)| k));
        for k in lingering {
            if self
                .entries
                .get(k)
                .is_some_and(|e| e.mark == Mark::Deleted && counted(e))
            {
                gone.insert(k);
            }
        }
        gone.len()
    }

    /// The shown rows' keys, in order.
    pub fn list(&self) -> &[Arc<str>] {
        if self.filtered {
            &self.visible
        } else {
            &self.order
        }
    }

    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.get(key)
    }

    /// The sort the rows are shown in: [`Self::sort`], or the previous one while a sort runs
    /// over several updates.
    pub fn shown_sort(&self) -> (SortBy, bool) {
        (self.sort, self.descending)
    }

    /// The sort asked for (a sort in progress: its target; the rows still show the previous
    /// order until it ends).
    pub fn sort(&self) -> (SortBy, bool) {
        match &self.sorting {
            Some(j) => j.target,
            None => (self.sort, self.descending),
        }
    }

    pub fn selected(&self) -> Option<&Entry> {
        self.selected.as_deref().and_then(|k| self.entries.get(k))
    }

    pub fn selected_key(&self) -> Option<&Arc<str>> {
        self.selected.as_ref()
    }

    /// Index of the selection in [`list`](Self::list).
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    fn search(&self, list: &[Arc<str>], e: &Entry) -> Result<usize, usize> {
        if self.sort == SortBy::Key {
            let key = &*e.summary.key;
            return if self.descending {
                list.binary_search_by(|k| key.cmp(k))
            } else {
                list.binary_search_by(|k| (**k).cmp(key))
            };
        }
        list.binary_search_by(|k| match self.entries.get(k) {
            Some(p) => cmp_entries(self.sort, self.descending, p, e),
            None => Ordering::Less,
        })
    }

    fn remove_positions(&mut self, key: &str) {
        let Some(e) = self.entries.get(key) else {
            return;
        };
        let at = self.search(&self.order, e).ok();
        let shown_at = if self.filtered {
            self.search(&self.visible, e).ok()
        } else {
            None
        };
        if let Some(i) = at {
            self.scan_forgets(i);
            self.order.remove(i);
        }
        if let Some(i) = shown_at {
            self.visible.remove(i);
        }
    }

    fn insert_positions(&mut self, key: &Arc<str>) {
        // The entries' own key (an update keeps the first Arc of that key): see `order`.
        let Some((key, e)) = self.entries.get_key_value(key) else {
            return;
        };
        let key = key.clone();
        let pos = self.search(&self.order, e).unwrap_or_else(|p| p);
        let vis = self.filtered && self.filters.passes(&e.summary) && self.scanned(e);
        let vpos = if vis {
            Some(self.search(&self.visible, e).unwrap_or_else(|p| p))
        } else {
            None
        };
        self.order.insert(pos, key.clone());
        if let Some(vp) = vpos {
            self.visible.insert(vp, key.clone());
        }
    }

    /// Add or replace an object. Identical summaries are ignored (a resync or Sync delta is not
    /// a change). Returns true when the table changed.
    pub fn upsert(&mut self, summary: ObjectSummary, now_ms: i64) -> bool {
        self.upsert_marked(summary, now_ms, true)
    }

    /// [`upsert`](Self::upsert); `highlight = false` for the initial list (nothing to point out).
    pub fn upsert_marked(&mut self, summary: ObjectSummary, now_ms: i64, highlight: bool) -> bool {
        let key = summary.key.clone();
        let mark = match self.entries.get(&key) {
            Some(old) if old.mark != Mark::Deleted && old.summary == summary => {
                // Unchanged, but brought again by a relist: no longer stale.
                return self.entries.get_mut(&key).is_some_and(|e| {
                    let was = e.stale;
                    e.stale = false;
                    was
                });
            }
            _ if !highlight => Mark::None,
            Some(old) if old.mark != Mark::Deleted => Mark::Updated,
            _ => Mark::Added,
        };
        let joined = self.entries.get(&key).and_then(|o| o.joined);
        let new = Entry {
            summary,
            mark,
            since_ms: now_ms,
            joined,
            stale: false,
        };
        let keeps_place = self.entries.get(&key).is_some_and(|old| {
            cmp_entries(self.sort, false, old, &new) == Ordering::Equal
                && (!self.filtered
                    || self.filters.passes(&old.summary) == self.filters.passes(&new.summary))
        });
        self.touched(&key);
        if keeps_place {
            self.entries.insert(key, new);
        } else {
            self.remove_positions(&key);
            self.entries.insert(key.clone(), new);
            self.insert_positions(&key);
        }
        if highlight {
            self.expiries.push_back((now_ms + HIGHLIGHT_MS, None));
        }
        self.fix_selection(None);
        true
    }

    /// Apply a batch of changes. A batch large against the table (the initial list arriving in
    /// chunks, a relist) is applied in bulk with one sort, O((n+m) log(n+m)), instead of m
    /// insertions that each move up to n pointers.
    pub fn apply(
        &mut self,
        upserts: Vec<ObjectSummary>,
        deletes: Vec<Arc<str>>,
        now_ms: i64,
        highlight: bool,
    ) -> bool {
        let mut changed = false;
        if upserts.len() > BULK_THRESHOLD {
            changed = self.apply_bulk(upserts, now_ms, highlight);
        } else {
            for s in upserts {
                changed |= self.upsert_marked(s, now_ms, highlight);
            }
        }
        for k in deletes {
            changed |= self.delete(&k, now_ms);
        }
        changed
    }

    /// Rows of a list in progress: applied without highlights (the first list is not news),
    /// and a selection the user made keeps its place on screen as rows arrive above it (the
    /// scroll offset moves with it).
    pub fn apply_listed(
        &mut self,
        upserts: Vec<ObjectSummary>,
        deletes: Vec<Arc<str>>,
        now_ms: i64,
    ) -> bool {
        let before = self.pinned.then(|| (self.selected.clone(), self.cursor));
        let changed = self.apply(upserts, deletes, now_ms, false);
        if let Some((selected, cursor)) = before
            && selected.is_some()
            && selected == self.selected
        {
            if self.cursor >= cursor {
                self.offset += self.cursor - cursor;
            } else {
                self.offset = self.offset.saturating_sub(cursor - self.cursor);
            }
        }
        changed
    }

    /// A relist started: every row is the previous list's until the new list brings it again
    /// (an upsert clears the mark) or the list ends without it (a delete). Returns whether any
    /// row was marked.
    pub fn mark_stale(&mut self) -> bool {
        let mut any = false;
        for e in self.entries.values_mut() {
            if e.mark != Mark::Deleted && !e.stale {
                e.stale = true;
                any = true;
            }
        }
        any
    }

    /// The informer is confirmed current again without a relist: no row is stale any more.
    /// Returns whether any row was marked.
    pub fn clear_stale(&mut self) -> bool {
        let mut any = false;
        for e in self.entries.values_mut() {
            if e.stale {
                e.stale = false;
                any = true;
            }
        }
        any
    }

    /// Many upserts at once: O(n + m log m) — entries replaced in place when their sort position
    /// holds, the others sorted among themselves and merged into `order` in one pass.
    fn apply_bulk(&mut self, upserts: Vec<ObjectSummary>, now_ms: i64, highlight: bool) -> bool {
        let mut changed = false;
        // Keys to (re)insert into `order`, and those of them currently placed there.
        let mut moving: FastSet<Arc<str>> = FastSet::default();
        let mut placed_moving: FastSet<Arc<str>> = FastSet::default();
        let mut membership_changed = false;
        for summary in upserts {
            let key = summary.key.clone();
            let old = self.entries.get(&key);
            let mark = match old {
                Some(o) if o.mark != Mark::Deleted && o.summary == summary => {
                    if o.stale
                        && let Some(e) = self.entries.get_mut(&key)
                    {
                        e.stale = false;
                        changed = true;
                    }
                    continue;
                }
                _ if !highlight => Mark::None,
                Some(o) if o.mark != Mark::Deleted => Mark::Updated,
                _ => Mark::Added,
            };
            changed = true;
            let new = Entry {
                summary,
                mark,
                since_ms: now_ms,
                joined: old.and_then(|o| o.joined),
                stale: false,
            };
            match old {
                Some(o) if !moving.contains(&key) => {
                    if cmp_entries(self.sort, false, o, &new) != Ordering::Equal {
                        placed_moving.insert(key.clone());
                        moving.insert(key.clone());
                    } else if self.filtered
                        && self.filters.passes(&o.summary) != self.filters.passes(&new.summary)
                    {
                        membership_changed = true;
                    }
                }
                Some(_) => {}
                None => {
                    moving.insert(key.clone());
                }
            }
            self.touched(&key);
            self.entries.insert(key, new);
        }
        if !changed {
            return false;
        }
        if highlight {
            self.expiries.push_back((now_ms + HIGHLIGHT_MS, None));
        }
        if !placed_moving.is_empty() {
            self.order.retain(|k| !placed_moving.contains(k));
        }
        let incoming = sorted_keys(&self.entries, moving.iter(), self.sort, self.descending);
        let incoming_all = if self.filtered {
            incoming.clone()
        } else {
            Vec::new()
        };
        let old_order = std::mem::take(&mut self.order);
        self.order = self.merge(old_order, incoming);
        if self.filtered {
            // The shown list is a filtered copy of `order`. Rows only added (a list streaming
            // in): the new ones that pass are merged into it, O(n) moves and no filter pass over
            // the rows already there. Rows that moved or changed membership: rebuilt in one pass.
            // Rows moved: a pass in progress (whose last checked row may have moved) ends here
            // in one pass over every row. Not started over: under a stream of such batches it
            // would never end.
            if !placed_moving.is_empty() || membership_changed {
                self.refilter(None);
            } else if !moving.is_empty() {
                let shown: Vec<Arc<str>> = incoming_all
                    .into_iter()
                    .filter(|k| {
                        self.entries
                            .get(k)
                            .is_some_and(|e| self.filters.passes(&e.summary) && self.scanned(e))
                    })
                    .collect();
                let visible = std::mem::take(&mut self.visible);
                self.visible = self.merge(visible, shown);
                self.fix_selection(None);
            }
        } else {
            self.fix_selection(None);
        }
        true
    }

    /// Merge `b` (few, sorted) into `a` (many, sorted): each element of `b` finds its place by
    /// binary search, O(m log n) comparisons, then the runs of `a` are moved in one pass. `a`'s
    /// keys are moved, never cloned: a clone (and the drop of the old list) would touch every
    /// key's reference count, a cache miss each, ~20 ms a frame at 100k rows.
    fn merge(&self, a: Vec<Arc<str>>, b: Vec<Arc<str>>) -> Vec<Arc<str>> {
        if b.is_empty() {
            return a;
        }
        let mut places = Vec::with_capacity(b.len());
        let mut start = 0;
        for k in &b {
            let pos = match self.entries.get(k) {
                // Key order: compare the keys themselves, no lookups.
                Some(_) if self.sort == SortBy::Key => {
                    start
                        + a[start..].partition_point(|x| {
                            if self.descending {
                                **x > **k
                            } else {
                                **x < **k
                            }
                        })
                }
                Some(e) => {
                    start
                        + a[start..].partition_point(|x| match self.entries.get(x) {
                            Some(ex) => {
                                cmp_entries(self.sort, self.descending, ex, e) == Ordering::Less
                            }
                            None => true,
                        })
                }
                None => start,
            };
            places.push(pos);
            start = pos;
        }
        let mut out = Vec::with_capacity(a.len() + b.len());
        let mut rest = a.into_iter();
        let mut moved = 0;
        for (k, pos) in b.into_iter().zip(places) {
            out.extend(rest.by_ref().take(pos - moved));
            moved = pos;
            out.push(k);
        }
        out.extend(rest);
        out
    }

    /// Mark an object deleted: it stays, struck, for [`DELETED_LINGER_MS`], then
    /// [`expire`](Self::expire) removes it. Returns true when the table changed.
    pub fn delete(&mut self, key: &str, now_ms: i64) -> bool {
        let Some(e) = self.entries.get_mut(key) else {
            return false;
        };
        if e.mark == Mark::Deleted {
            return false;
        }
        e.mark = Mark::Deleted;
        e.since_ms = now_ms;
        let key = e.summary.key.clone();
        self.expiries
            .push_back((now_ms + DELETED_LINGER_MS, Some(key.clone())));
        self.unconfirmed.push((key.clone(), now_ms));
        if self.selected.as_deref() == Some(&*key) {
            self.select_live_neighbour();
        }
        true
    }

    /// Replace the whole content (initial sync or relist): absent keys are deleted, identical
    /// rows untouched. The first fill sorts once instead of inserting row by row.
    pub fn resync(&mut self, rows: Vec<ObjectSummary>, now_ms: i64) -> bool {
        if self.entries.is_empty() {
            if rows.is_empty() {
                return false;
            }
            self.sorting = None;
            for s in rows {
                self.entries.insert(
                    s.key.clone(),
                    Entry {
                        summary: s,
                        mark: Mark::None,
                        since_ms: now_ms,
                        joined: None,
                        stale: false,
                    },
                );
            }
            self.order = self.entries.keys().cloned().collect();
            self.resort();
            if self.filtered {
                self.refilter(None);
            }
            return true;
        }
        let present: FastSet<Arc<str>> = rows.iter().map(|s| s.key.clone()).collect();
        let gone: Vec<Arc<str>> = self
            .entries
            .keys()
            .filter(|k| !present.contains(*k))
            .cloned()
            .collect();
        let mut changed = false;
        for s in rows {
            changed |= self.upsert(s, now_ms);
        }
        for k in gone {
            changed |= self.delete(&k, now_ms);
        }
        changed
    }

    /// Remove deleted rows whose time is up. Returns true if something changed on screen (a row
    /// removed or a highlight faded).
    pub fn expire(&mut self, now_ms: i64) -> bool {
        let mut changed = false;
        for (key, stamp) in std::mem::take(&mut self.unconfirmed) {
            if now_ms <= stamp {
                continue;
            }
            if let Some(e) = self.entries.get_mut(&key)
                && e.mark == Mark::Deleted
                && e.since_ms == stamp
            {
                e.since_ms = now_ms;
                self.expiries
                    .push_back((now_ms + DELETED_LINGER_MS, Some(key)));
            }
        }
        while let Some((deadline, _)) = self.expiries.front() {
            if *deadline > now_ms {
                break;
            }
            changed = true;
            let Some((_, key)) = self.expiries.pop_front() else {
                break;
            };
            if let Some(key) = key {
                let due = self.entries.get(&key).is_some_and(|e| {
                    e.mark == Mark::Deleted && e.since_ms + DELETED_LINGER_MS <= now_ms
                });
                if due {
                    self.remove_key(&key);
                }
            }
        }
        changed
    }

    /// The next time something on screen changes by itself (a highlight fades, a deleted row goes).
    pub fn next_deadline(&self) -> Option<i64> {
        // Unconfirmed deletions want a tick at once (their stamp is already past).
        let first = self.unconfirmed.iter().map(|(_, t)| *t).min();
        match (first, self.expiries.front().map(|(d, _)| *d)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn remove_key(&mut self, key: &Arc<str>) {
        let was_selected = self.selected.as_deref() == Some(&**key);
        self.touched(key);
        self.remove_positions(key);
        self.entries.remove(key);
        if was_selected {
            self.selected = None;
            let list = self.list();
            if !list.is_empty() {
                let i = self.cursor.min(list.len() - 1);
                self.selected = Some(list[i].clone());
            }
        }
        self.fix_selection(None);
    }

    fn select_live_neighbour(&mut self) {
        let list = self.list();
        let n = list.len();
        let cur = self.cursor.min(n.saturating_sub(1));
        let live = |i: usize| {
            self.entries
                .get(&list[i])
                .is_some_and(|e| e.mark != Mark::Deleted)
        };
        let pick = (cur + 1..n)
            .find(|&i| live(i))
            .or_else(|| (0..cur).rev().find(|&i| live(i)));
        if let Some(i) = pick {
            self.selected = Some(list[i].clone());
            self.cursor = i;
        }
    }

    /// Recompute `cursor` from `selected` (or select the first row when nothing is selected).
    fn fix_selection(&mut self, _hint: Option<usize>) {
        if !self.pinned {
            let first = self.list().first().cloned();
            self.cursor = 0;
            self.selected = first;
            return;
        }
        let found = self
            .selected
            .as_deref()
            .and_then(|k| self.entries.get(k))
            .and_then(|e| self.search(self.list(), e).ok());
        match found {
            Some(i) => self.cursor = i,
            None => {
                let list = self.list();
                if list.is_empty() {
                    self.selected = None;
                    self.cursor = 0;
                } else {
                    let i = self.cursor.min(list.len() - 1);
                    self.selected = Some(list[i].clone());
                    self.cursor = i;
                }
            }
        }
    }

    fn resort(&mut self) {
        self.order = sorted_keys(&self.entries, self.order.iter(), self.sort, self.descending);
        if self.scan.is_some() {
            // The rows checked so far were a prefix of the old order: check anew.
            self.refilter_sliced();
            return;
        }
        if self.filtered {
            self.visible = sorted_keys(
                &self.entries,
                self.visible.iter(),
                self.sort,
                self.descending,
            );
        }
        self.fix_selection(None);
    }

    /// Sort by `by`, ascending first; choosing the current column again flips the order (k9s
    /// behaviour).
    pub fn set_sort(&mut self, by: SortBy) {
        self.set_sort_first(by, false);
    }

    /// Sort by `by`, descending on the first choice when `descending_first` (k9s puts the most
    /// CPU, memory and restarts on top); choosing the current column again flips the order.
    pub fn set_sort_first(&mut self, by: SortBy, descending_first: bool) {
        let (current, descending) = self.sort();
        if current == by {
            self.sort_to(by, !descending);
        } else {
            self.sort_to(by, descending_first);
        }
    }

    /// Set every row's joined sort key (e.g. when a metrics poll arrives) and, when the table is
    /// sorted by a joined column, re-sort once: O(n log n) per poll, not per frame. Rows that
    /// arrive later keep `None` (n/a) until the next call.
    pub fn set_joined_keys(&mut self, key_of: impl Fn(&Entry) -> Option<u64>) {
        for e in self.entries.values_mut() {
            e.joined = key_of(e);
        }
        if matches!(self.sort, SortBy::Joined(_)) {
            self.resort();
        }
        if self
            .sorting
            .as_ref()
            .is_some_and(|j| matches!(j.target.0, SortBy::Joined(_)))
        {
            self.restart_sort();
        }
    }

    /// Flip the sort order.
    pub fn flip_sort(&mut self) {
        self.set_sort(self.sort().0);
    }

    /// Recompute the shown list after a filter change. With a label filter and an index, the
    /// candidates come from the index (`index_keys`: O(matches)); else from all rows.
    pub fn refilter(&mut self, index_candidates: Option<Vec<Arc<str>>>) {
        self.filtered = self.filters.active();
        self.visible.clear();
        self.scan = None;
        if self.filtered {
            // Candidates come only from the label index (`App::label_candidates`).
            let label_answered =
                index_candidates.is_some() && self.filters.label.as_ref().is_some_and(|l| l.exact);
            let needs_check = self.filters.drill.is_some()
                || self.filters.text.is_some()
                || self.filters.faults
                || (self.filters.label.is_some() && !label_answered);
            let passes = |k: &Arc<str>| {
                !needs_check
                    || self
                        .entries
                        .get(k)
                        .is_some_and(|e| self.filters.passes_with(&e.summary, label_answered))
            };
            // Rows deleted but still shown for a moment are not in the index any more; they
            // stay shown when they pass, as with a scan (their reappearance relies on it).
            let lingering =
                |cands: &mut Vec<Arc<str>>| {
                    for k in self.expiries.iter().filter_map(|(_, k)| k.as_ref()) {
                        if self.entries.get(k).is_some_and(|e| {
                            e.mark == Mark::Deleted && self.filters.passes(&e.summary)
                        }) {
                            cands.push(k.clone());
                        }
                    }
                };
            match index_candidates {
                // Few candidates: sort them (m log m comparisons of their rows).
                Some(mut keys) if keys.len() * 16 < self.order.len() => {
                    keys.retain(|k| passes(k));
                    lingering(&mut keys);
                    let unique: FastSet<Arc<str>> = keys.into_iter().collect();
                    self.visible =
                        sorted_keys(&self.entries, unique.iter(), self.sort, self.descending);
                }
                // Many: one pass over the sorted keys testing row pointers, which touches
                // neither the key strings nor the rows (a sort of 10k rows chases ~500k
                // pointers; this reads 100k contiguous ones).
                Some(mut keys) => {
                    lingering(&mut keys);
                    let wanted: FastSet<usize> = keys
                        .iter()
                        .filter_map(|k| self.entries.get_key_value(k))
                        .map(|(k, _)| row_ptr(k))
                        .collect();
                    self.visible = self
                        .order
                        .iter()
                        .filter(|k| wanted.contains(&row_ptr(k)) && passes(k))
                        .cloned()
                        .collect();
                }
                None => {
                    self.visible = self.order.iter().filter(|k| passes(k)).cloned().collect();
                }
            }
        }
        self.fix_selection(None);
    }

    /// Replace the text filter with one that matches a subset of what the current one matches
    /// (a substring typed longer: `/po` → `/pod`), re-checking only the rows shown now instead of
    /// every row: typing a filter over 300k rows costs one pass for the first character, then
    /// passes over fewer and fewer rows. Any other change needs a [`refilter`](Self::refilter):
    /// the filter is then handed back, unset.
    pub fn narrow_text(&mut self, new: TextFilter) -> Result<(), TextFilter> {
        let narrower = match (&self.filters.text, &new) {
            (Some(TextFilter::Substring(old)), TextFilter::Substring(sub)) => {
                sub.contains(old.as_str())
            }
            _ => false,
        };
        // Narrowing is a pass over the shown rows in one update: over many, a sliced pass
        // from scratch keeps each update short instead.
        if !narrower || !self.filtered || self.visible.len() > self.slice_rows {
            return Err(new);
        }
        self.filters.text = Some(new);
        let (entries, filters) = (&self.entries, &self.filters);
        self.visible
            .retain(|k| entries.get(k).is_some_and(|e| filters.passes(&e.summary)));
        self.fix_selection(None);
        Ok(())
    }

    /// Key of a table row held by this model (index candidates may name rows not received yet).
    pub fn intern(&self, key: &str) -> Option<Arc<str>> {
        self.entries.get_key_value(key).map(|(k, _)| k.clone())
    }

    /// Move the cursor by `delta` rows (clamped).
    pub fn move_by(&mut self, delta: isize) {
        let n = self.list().len();
        if n == 0 {
            return;
        }
        let cur = self.cursor.min(n - 1) as isize;
        let i = (cur + delta).clamp(0, n as isize - 1) as usize;
        self.select_index(i);
    }

    /// Keep the selected object selected from now on, wherever the sort puts it (as after a
    /// move by the user).
    pub fn pin_selection(&mut self) {
        self.pinned = self.selected.is_some();
    }

    /// An empty table with this one's filters and sort (the same table at another time).
    pub fn with_settings_of(other: &TableModel) -> TableModel {
        TableModel {
            filters: other.filters.clone(),
            sort: other.sort,
            descending: other.descending,
            ..TableModel::default()
        }
    }

    /// Select the row of `key` when it is shown.
    pub fn select_key(&mut self, key: &str) {
        if let Some(i) = self.list().iter().position(|k| &**k == key) {
            self.select_index(i);
        }
    }

    /// Select the row at `i` of the shown list (clamped).
    pub fn select_index(&mut self, i: usize) {
        let list = self.list();
        if list.is_empty() {
            return;
        }
        let i = i.min(list.len() - 1);
        self.selected = Some(list[i].clone());
        self.cursor = i;
        self.pinned = true;
    }

    /// Adjust `offset` so the cursor is inside a viewport of `height` rows.
    pub fn scroll_into_view(&mut self, height: usize) {
        let height = height.max(1);
        if self.cursor < self.offset {
            self.offset = self.cursor;
        } else if self.cursor >= self.offset + height {
            self.offset = self.cursor + 1 - height;
        }
        let n = self.list().len();
        if self.offset + height > n {
            self.offset = n.saturating_sub(height);
        }
    }

    /// Iterate over all entries (any order).
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }
}

/// The latest row summaries of `keys` from the indexer, and the keys it no longer holds. With
/// `cluster` (a merged view's member), rows and deletions are keyed under it
/// ([`cluster_key`](crate::ui::action::cluster_key)); without, they share the indexer's keys.
pub fn rows_for_keys(
    kind: &str,
    printer: Option<&[crate::render::PrinterColumn]>,
    store: &crate::informer::thread_safe_store::ThreadSafeStore<kube::api::DynamicObject>,
    cluster: Option<&str>,
    keys: &[Arc<str>],
) -> (Vec<ObjectSummary>, Vec<Arc<str>>) {
    let keyed = |k: Arc<str>| match cluster {
        Some(c) => crate::ui::action::cluster_key(c, &k),
        None => k,
    };
    let mut upserts = Vec::with_capacity(keys.len());
    let mut deletes = Vec::new();
    for key in keys {
        match store.get_key_value(key) {
            Some((k, obj)) => {
                upserts.extend(ObjectSummary::with_key(kind, keyed(k), &obj, printer))
            }
            None => deletes.push(keyed(key.clone())),
        }
    }
    (upserts, deletes)
}

/// Whether a row is one of `ctrl-z`'s faulty rows.
pub fn is_fault(health: crate::render::Health) -> bool {
    !matches!(
        health,
        crate::render::Health::Ok | crate::render::Health::Completed
    )
}
