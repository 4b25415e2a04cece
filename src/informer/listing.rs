//! A list while it streams: its progress ([`ListProgress`], published in the reflector's status)
//! and the objects decoded so far ([`ListingLog`], read by views that show a partial list).
//!
//! client-go counterpart: none. client-go's reflector hands a list to its store only whole
//! (`Replace` at the end), and nothing outside it sees a list in progress; a dashboard built on it
//! shows an empty table until the list ends (8–16 s for 100k pods). Here the store keeps
//! client-go's semantics (it is replaced atomically at the end of a list: no phantom deletions in
//! the middle of a relist), and the reflector also records, for a view only:
//! - how far the list is ([`ListProgress`]: objects, bytes, the total when the server says it —
//!   `remainingItemCount` on paged lists — or the count of this scope's previous list, marked as
//!   an estimate);
//! - the objects decoded so far, in a [`ListingLog`] a view reads from as they arrive. The log
//!   holds the prepared objects the list accumulates anyway (one `Arc` each), and is emptied when
//!   the list ends, whichever way.
//!
//! Invariants:
//! - a log's attempt number grows by one at every list attempt ([`ListingLog::begin`]); a reader
//!   sees every entry of the attempt it follows exactly once, in order, until that attempt ends;
//! - an ended attempt says how ([`ListingPhase::Done`]: the store was handed the list;
//!   [`ListingPhase::Aborted`]: it was not, and the store still holds the previous state);
//! - [`ListSizeHint`] holds the object count of the last completed list of one informer key (0:
//!   none yet); it outlives the informer (the factory keeps it), so a scope listed again in the
//!   same session has an estimated total.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use tokio::sync::watch;
use tokio::time::Instant;

/// How many objects a list will hold, when known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListTotal {
    /// The server said so (`remainingItemCount` plus the items received).
    Exact(u64),
    /// The previous list of this scope held this many (shown with `~`).
    Estimate(u64),
}

impl ListTotal {
    pub fn count(self) -> u64 {
        match self {
            ListTotal::Exact(n) | ListTotal::Estimate(n) => n,
        }
    }
}

/// A list in progress, as the reflector publishes it in its status.
#[derive(Debug, Clone, PartialEq)]
pub struct ListProgress {
    /// When this list attempt started.
    pub started: Instant,
    /// Objects received so far (decoded, malformed ones excluded).
    pub objects: u64,
    /// Body bytes received so far; `None` when the lister-watcher does not count them.
    pub bytes: Option<u64>,
    pub total: Option<ListTotal>,
}

impl ListProgress {
    pub fn new(started: Instant, estimate: Option<u64>) -> Self {
        Self {
            started,
            objects: 0,
            bytes: None,
            total: estimate.filter(|n| *n > 0).map(ListTotal::Estimate),
        }
    }

    /// Bytes per second since the start, as of `now` (`None` without a byte count or time).
    pub fn bytes_per_sec(&self, now: Instant) -> Option<f64> {
        let secs = now.saturating_duration_since(self.started).as_secs_f64();
        let bytes = self.bytes?;
        (secs > 0.0).then(|| bytes as f64 / secs)
    }

    /// The fraction received, in `[0, 1]`, when a total is known.
    pub fn fraction(&self) -> Option<f64> {
        let total = self.total?.count();
        (total > 0).then(|| (self.objects as f64 / total as f64).min(1.0))
    }
}

/// The object count of a scope's last completed list, shared by the informers of one key over
/// the session (see the module docs).
#[derive(Debug, Default, Clone)]
pub struct ListSizeHint(Arc<AtomicU64>);

impl ListSizeHint {
    /// The last list's count, if one completed.
    pub fn get(&self) -> Option<u64> {
        Some(self.0.load(Ordering::Relaxed)).filter(|n| *n > 0)
    }

    pub fn set(&self, n: u64) {
        self.0.store(n, Ordering::Relaxed);
    }
}

/// One entry of a list in progress.
#[derive(Debug, Clone)]
pub enum ListedItem<K> {
    /// An object of the list (prepared, as the store will get it).
    Object(Arc<K>),
    /// A key listed earlier in this attempt that is not part of it after all (a streaming
    /// list's initial events may delete what they added).
    Gone(Arc<str>),
}

/// How the attempt a reader follows stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListingPhase {
    /// No list has started yet.
    Idle,
    /// Objects are arriving.
    Listing,
    /// The list completed and was handed to the store (which applies it shortly).
    Done,
    /// The list failed or was restarted: the store was not touched.
    Aborted,
}

struct LogState<K> {
    attempt: u64,
    phase: ListingPhase,
    items: Vec<ListedItem<K>>,
}

/// The objects of the list in progress, for views (see the module docs).
pub struct ListingLog<K> {
    state: Mutex<LogState<K>>,
    /// Bumped at every change; readers wait on it.
    changed: watch::Sender<u64>,
}

impl<K> std::fmt::Debug for ListingLog<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.lock();
        f.debug_struct("ListingLog")
            .field("attempt", &s.attempt)
            .field("phase", &s.phase)
            .field("items", &s.items.len())
            .finish()
    }
}

impl<K> Default for ListingLog<K> {
    fn default() -> Self {
        Self {
            state: Mutex::new(LogState {
                attempt: 0,
                phase: ListingPhase::Idle,
                items: Vec::new(),
            }),
            changed: watch::channel(0).0,
        }
    }
}

/// Where a reader is in a [`ListingLog`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListingCursor {
    attempt: u64,
    next: usize,
}

/// What one [`ListingLog::read`] returns.
#[derive(Debug)]
pub struct ListingRead<K> {
    /// The attempt the reader followed ended (with this phase) before these items: what the
    /// reader showed of it is over.
    pub ended: Option<ListingPhase>,
    /// New entries of the attempt in progress, in order.
    pub items: Vec<ListedItem<K>>,
    /// The phase of the attempt the cursor now follows.
    pub phase: ListingPhase,
}

impl<K> ListingLog<K> {
    pub fn new() -> Self {
        Self::default()
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// A list attempt starts: what the previous one held is dropped.
    pub fn begin(&self) {
        {
            let mut s = self.state.lock();
            s.attempt += 1;
            s.phase = ListingPhase::Listing;
            s.items = Vec::new();
        }
        self.bump();
    }

    /// Entries of the attempt in progress (ignored when none is).
    pub fn extend(&self, items: impl IntoIterator<Item = ListedItem<K>>) {
        let added = {
            let mut s = self.state.lock();
            if s.phase != ListingPhase::Listing {
                return;
            }
            let before = s.items.len();
            s.items.extend(items);
            s.items.len() > before
        };
        if added {
            self.bump();
        }
    }

    /// One object of the attempt in progress.
    pub fn push(&self, obj: Arc<K>) {
        self.extend(std::iter::once(ListedItem::Object(obj)));
    }

    /// The attempt in progress ends; `completed`: its list went to the store. Its entries are
    /// released.
    pub fn end(&self, completed: bool) {
        {
            let mut s = self.state.lock();
            if s.phase != ListingPhase::Listing {
                return;
            }
            s.phase = if completed {
                ListingPhase::Done
            } else {
                ListingPhase::Aborted
            };
            s.items = Vec::new();
        }
        self.bump();
    }

    /// The current phase (of the latest attempt).
    pub fn phase(&self) -> ListingPhase {
        self.state.lock().phase
    }

    /// Entries after `cursor`, at most `max`, advancing it. When the attempt the cursor followed
    /// has ended (or another began), `ended` says how, and the cursor moves to the latest attempt.
    pub fn read(&self, cursor: &mut ListingCursor, max: usize) -> ListingRead<K>
    where
        K: Clone,
    {
        let s = self.state.lock();
        let mut ended = None;
        if cursor.attempt != s.attempt {
            // A reader that had followed an attempt (attempt > 0) sees it end: either it ended
            // in place (phase of the same attempt, below) or a new one replaced it (aborted:
            // nothing of it reached the store as such).
            if cursor.attempt > 0 {
                ended = Some(ListingPhase::Aborted);
            }
            *cursor = ListingCursor {
                attempt: s.attempt,
                next: 0,
            };
        }
        match s.phase {
            ListingPhase::Listing => {
                let end = s.items.len().min(cursor.next.saturating_add(max.max(1)));
                let items = s.items.get(cursor.next..end).unwrap_or(&[]).to_vec();
                cursor.next = end;
                ListingRead {
                    ended,
                    items,
                    phase: s.phase,
                }
            }
            phase @ (ListingPhase::Done | ListingPhase::Aborted) => {
                // Report an attempt's end once: the cursor moves past it.
                let seen = cursor.next == usize::MAX;
                cursor.next = usize::MAX;
                ListingRead {
                    ended: if seen { ended } else { Some(phase) },
                    items: Vec::new(),
                    phase,
                }
            }
            ListingPhase::Idle => ListingRead {
                ended,
                items: Vec::new(),
                phase: s.phase,
            },
        }
    }

    /// Whether entries (or an end) wait after `cursor`.
    pub fn has_news(&self, cursor: &ListingCursor) -> bool {
        let s = self.state.lock();
        cursor.attempt != s.attempt
            || match s.phase {
                ListingPhase::Listing => s.items.len() > cursor.next,
                ListingPhase::Done | ListingPhase::Aborted => cursor.next != usize::MAX,
                ListingPhase::Idle => false,
            }
    }

    /// A receiver woken at every change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn objects(r: &ListingRead<u32>) -> Vec<u32> {
        r.items
            .iter()
            .filter_map(|i| match i {
                ListedItem::Object(o) => Some(**o),
                ListedItem::Gone(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_reader_sees_each_entry_of_an_attempt_once_in_order_then_its_end() {
        let log = ListingLog::<u32>::new();
        let mut c = ListingCursor::default();
        assert_eq!(log.read(&mut c, 10).phase, ListingPhase::Idle);
        log.begin();
        for i in 0..5 {
            log.push(Arc::new(i));
        }
        let r = log.read(&mut c, 3);
        assert_eq!((objects(&r), r.ended), (vec![0, 1, 2], None));
        log.push(Arc::new(5));
        let r = log.read(&mut c, 10);
        assert_eq!(objects(&r), vec![3, 4, 5]);
        assert!(!log.has_news(&c));
        log.end(true);
        assert!(log.has_news(&c));
        let r = log.read(&mut c, 10);
        assert_eq!(r.ended, Some(ListingPhase::Done));
        assert!(r.items.is_empty());
        // Reported once.
        assert_eq!(log.read(&mut c, 10).ended, None);
        assert!(!log.has_news(&c));
    }

    #[test]
    fn a_new_attempt_ends_the_one_a_reader_followed_as_aborted() {
        let log = ListingLog::<u32>::new();
        let mut c = ListingCursor::default();
        log.begin();
        log.push(Arc::new(1));
        assert_eq!(objects(&log.read(&mut c, 10)), vec![1]);
        // A paged list restarted (expired continue token): a new attempt.
        log.begin();
        log.push(Arc::new(2));
        let r = log.read(&mut c, 10);
        assert_eq!(r.ended, Some(ListingPhase::Aborted));
        assert_eq!(objects(&r), vec![2]);
        log.end(false);
        assert_eq!(log.read(&mut c, 10).ended, Some(ListingPhase::Aborted));
        // Entries pushed after the end are not part of any attempt.
        log.push(Arc::new(3));
        assert!(!log.has_news(&c));
    }

    #[test]
    fn progress_fraction_and_rate_follow_objects_bytes_and_time() {
        let t0 = Instant::now();
        let mut p = ListProgress::new(t0, Some(200));
        assert_eq!(p.total, Some(ListTotal::Estimate(200)));
        assert_eq!(p.fraction(), Some(0.0));
        p.objects = 50;
        p.bytes = Some(4_000_000);
        assert_eq!(p.fraction(), Some(0.25));
        let rate = p.bytes_per_sec(t0 + std::time::Duration::from_secs(2));
        assert_eq!(rate, Some(2_000_000.0));
        p.objects = 300;
        assert_eq!(p.fraction(), Some(1.0), "an estimate exceeded shows full");
        assert_eq!(ListProgress::new(t0, Some(0)).total, None);
        assert_eq!(ListProgress::new(t0, None).fraction(), None);
    }
}
