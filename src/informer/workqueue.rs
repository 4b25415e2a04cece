//! A rate-limited, delaying work queue of keys.
//!
//! client-go counterpart: `util/workqueue` — `queue.go` (`Typed`: dirty and processing sets),
//! `delaying_queue.go` (`AddAfter` with a heap of ready times), `rate_limiting_queue.go`
//! (`AddRateLimited`, `Forget`, `NumRequeues`) and `default_rate_limiters.go`
//! (`ItemExponentialFailureRateLimiter`, `ItemFastSlowRateLimiter`, `BucketRateLimiter`,
//! `MaxOfRateLimiter`, `DefaultControllerRateLimiter`).
//!
//! Invariants (as in `queue.go`):
//! - `queue` holds no duplicates, and every item in `queue` is also in `dirty`;
//! - an item is never in `queue` and `processing` at once: an item is handed to one worker at a
//!   time; adding it again while it is processed marks it dirty, and `done` queues it once;
//! - `waiting` (the delaying part) holds each item at most once, at the earliest time it was
//!   asked for; an item becomes ready when a getter observes its time has come;
//! - after `shut_down`, adds are ignored; `get` keeps handing out what is already queued and
//!   returns `None` once the queue is empty; items still waiting for their delay are dropped;
//! - `shut_down_with_drain` returns once no item is being processed, or as soon as `shut_down`
//!   is called (client-go's `ShutDown` clears `drain` and wakes the drainer: the "second Ctrl-C
//!   forces shutdown" pattern).
//!
//! Differences from client-go (each checked by a test in `ported_tests`, the port of client-go's
//! `queue_test.go`, `delaying_queue_test.go`, `rate_limiting_queue_test.go` and
//! `default_rate_limiters_test.go`):
//! - the delaying part needs no goroutine (task) of its own: `get` (and `len`) move the items whose
//!   time has come into the queue, and `get` sleeps until the earliest waiting item is ready, so a
//!   queue can be created outside a runtime and there is no 10 s heartbeat;
//! - items waiting with the same ready time are queued in the order `add_after` was called
//!   (client-go's `waitForPriorityQueue` is a heap ordered by time only, so their order there is
//!   unspecified): deterministic, and fair to the item that failed first;
//! - `add_after` on an item already waiting keeps the earlier time in place instead of
//!   `heap.Fix`ing the entry: the superseded heap entry is skipped when popped (same outcome);
//! - `done` for an item that is queued but was never handed out changes nothing; client-go's
//!   `Done` pushes it again, a duplicate that two workers could then process at once;
//! - no `Find`, metrics provider or queue name: nothing here reads them.
//!
//! # Example
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! use kinformer::informer::workqueue::RateLimitingQueue;
//!
//! let queue = RateLimitingQueue::new();
//! // A burst of updates to one object coalesces into one work item.
//! for _ in 0..3 {
//!     queue.add("default/web-1".to_string());
//! }
//! assert_eq!(queue.len(), 1);
//! while let Some(key) = queue.get().await {
//!     // ... handle `key`; on failure: queue.add_rate_limited(key.clone());
//!     queue.forget(&key);
//!     queue.done(&key);
//!     if queue.is_empty() {
//!         queue.shut_down();
//!     }
//! }
//! # }
//! ```

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::Notify;
use tokio::time::Instant;

/// Decides how long an item waits before it is retried.
pub trait RateLimiter<T>: Send + Sync {
    /// How long `item` should wait now; records one more failure for it.
    fn when(&self, item: &T) -> Duration;
    /// Stop tracking `item` (it succeeded).
    fn forget(&self, item: &T);
    /// How many times `item` has been rate limited since it was last forgotten.
    fn num_requeues(&self, item: &T) -> u32;
}

/// Per-item exponential backoff: `base × 2^failures`, capped at `max`
/// (client-go's `ItemExponentialFailureRateLimiter`).
pub struct ItemExponentialFailureRateLimiter<T> {
    base: Duration,
    max: Duration,
    /// Failures per item since it was last forgotten.
    failures: Mutex<HashMap<T, u32>>,
}

impl<T: Hash + Eq + Clone + Send + Sync> ItemExponentialFailureRateLimiter<T> {
    pub fn new(base: Duration, max: Duration) -> Self {
        Self {
            base,
            max,
            failures: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Hash + Eq + Clone + Send + Sync> RateLimiter<T> for ItemExponentialFailureRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        let exp = {
            let mut failures = self.failures.lock();
            let n = failures.entry(item.clone()).or_insert(0);
            let exp = *n;
            *n = n.saturating_add(1);
            exp
        };
        // 2^exp overflows quickly; anything past 2^63 is far beyond any cap.
        if exp >= 63 {
            return self.max;
        }
        let factor = 1u64 << exp;
        let nanos = (self.base.as_nanos()).saturating_mul(u128::from(factor));
        let d = Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
        d.min(self.max)
    }

    fn forget(&self, item: &T) {
        self.failures.lock().remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.failures.lock().get(item).copied().unwrap_or(0)
    }
}

/// `fast` for the first `max_fast_attempts` failures of an item, `slow` after that
/// (client-go's `ItemFastSlowRateLimiter`).
pub struct ItemFastSlowRateLimiter<T> {
    fast: Duration,
    slow: Duration,
    max_fast_attempts: u32,
    /// Failures per item since it was last forgotten.
    failures: Mutex<HashMap<T, u32>>,
}

impl<T: Hash + Eq + Clone + Send + Sync> ItemFastSlowRateLimiter<T> {
    pub fn new(fast: Duration, slow: Duration, max_fast_attempts: u32) -> Self {
        Self {
            fast,
            slow,
            max_fast_attempts,
            failures: Mutex::new(HashMap::new()),
        }
    }
}

impl<T: Hash + Eq + Clone + Send + Sync> RateLimiter<T> for ItemFastSlowRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        let mut failures = self.failures.lock();
        let n = failures.entry(item.clone()).or_insert(0);
        *n = n.saturating_add(1);
        if *n <= self.max_fast_attempts {
            self.fast
        } else {
            self.slow
        }
    }

    fn forget(&self, item: &T) {
        self.failures.lock().remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.failures.lock().get(item).copied().unwrap_or(0)
    }
}

/// An overall token bucket: `rate` tokens per second, at most `burst` saved up
/// (client-go's `BucketRateLimiter` over `golang.org/x/time/rate`). It does not track items.
pub struct BucketRateLimiter {
    rate: f64,
    burst: f64,
    state: Mutex<Bucket>,
}

struct Bucket {
    /// Tokens available at `last`; negative when reservations are outstanding.
    tokens: f64,
    last: Option<Instant>,
}

impl BucketRateLimiter {
    pub fn new(rate_per_second: f64, burst: u32) -> Self {
        let burst = f64::from(burst);
        Self {
            rate: rate_per_second.max(f64::MIN_POSITIVE),
            burst,
            state: Mutex::new(Bucket {
                tokens: burst,
                last: None,
            }),
        }
    }
}

impl<T> RateLimiter<T> for BucketRateLimiter {
    fn when(&self, _item: &T) -> Duration {
        let now = Instant::now();
        let mut b = self.state.lock();
        if let Some(last) = b.last {
            let elapsed = now.saturating_duration_since(last).as_secs_f64();
            b.tokens = (b.tokens + elapsed * self.rate).min(self.burst);
        }
        b.last = Some(now);
        b.tokens -= 1.0;
        if b.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-b.tokens / self.rate)
        }
    }
    fn forget(&self, _item: &T) {}
    fn num_requeues(&self, _item: &T) -> u32 {
        0
    }
}

/// The worst (longest) answer of several limiters (client-go's `MaxOfRateLimiter`).
pub struct MaxOfRateLimiter<T> {
    limiters: Vec<Box<dyn RateLimiter<T>>>,
}

impl<T> MaxOfRateLimiter<T> {
    pub fn new(limiters: Vec<Box<dyn RateLimiter<T>>>) -> Self {
        Self { limiters }
    }
}

impl<T> RateLimiter<T> for MaxOfRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        // Every limiter is asked, so each records the failure.
        self.limiters
            .iter()
            .map(|l| l.when(item))
            .max()
            .unwrap_or(Duration::ZERO)
    }
    fn forget(&self, item: &T) {
        for l in &self.limiters {
            l.forget(item);
        }
    }
    fn num_requeues(&self, item: &T) -> u32 {
        self.limiters
            .iter()
            .map(|l| l.num_requeues(item))
            .max()
            .unwrap_or(0)
    }
}

/// client-go's `DefaultControllerRateLimiter`: per item 5 ms doubling to 1000 s, overall 10/s
/// with a burst of 100.
pub fn default_controller_rate_limiter<T: Hash + Eq + Clone + Send + Sync + 'static>()
-> MaxOfRateLimiter<T> {
    MaxOfRateLimiter::new(vec![
        Box::new(ItemExponentialFailureRateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
        Box::new(BucketRateLimiter::new(10.0, 100)),
    ])
}

struct QueueState<T> {
    /// Items ready to be handed out, in order; no duplicates; each is also in `dirty`.
    queue: VecDeque<T>,
    /// Items that need processing: queued, or re-added while being processed.
    dirty: HashSet<T>,
    /// Items handed out by `get` and not yet `done`.
    processing: HashSet<T>,
    /// Items waiting for their delay: the ready time and the sequence number of the live heap
    /// entry (older heap entries for the same item are stale and skipped).
    waiting: HashMap<T, (Instant, u64)>,
    /// Min-heap of (ready time, sequence, item); may hold stale entries, see `waiting`.
    heap: BinaryHeap<Reverse<(Instant, u64, HeapItem<T>)>>,
    seq: u64,
    shutting_down: bool,
    /// A `shut_down_with_drain` is waiting for `processing` to empty; cleared by `shut_down`,
    /// which releases it at once (client-go's `drain`).
    drain: bool,
}

/// Wrapper so the heap orders by (time, seq) only, without requiring `T: Ord`.
struct HeapItem<T>(T);
impl<T> PartialEq for HeapItem<T> {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl<T> Eq for HeapItem<T> {}
impl<T> PartialOrd for HeapItem<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for HeapItem<T> {
    fn cmp(&self, _: &Self) -> std::cmp::Ordering {
        std::cmp::Ordering::Equal
    }
}

impl<T: Hash + Eq + Clone> QueueState<T> {
    /// `queue.go`'s `Add` under the lock; true if a getter should be woken.
    fn add(&mut self, item: T) -> bool {
        if self.shutting_down || self.dirty.contains(&item) {
            return false;
        }
        if self.processing.contains(&item) {
            // Queued again by `done`.
            self.dirty.insert(item);
            return false;
        }
        self.dirty.insert(item.clone());
        self.queue.push_back(item);
        true
    }

    /// Move every waiting item whose time has come into the queue; returns the next ready time.
    fn promote_ready(&mut self, now: Instant) -> Option<Instant> {
        while let Some(Reverse((at, seq, _))) = self.heap.peek() {
            let (at, seq) = (*at, *seq);
            if at > now {
                return Some(at);
            }
            let Some(Reverse((_, _, HeapItem(item)))) = self.heap.pop() else {
                break;
            };
            if self.waiting.get(&item).is_some_and(|(_, s)| *s == seq) {
                self.waiting.remove(&item);
                self.add(item);
            }
        }
        None
    }
}

struct Inner<T> {
    state: Mutex<QueueState<T>>,
    /// Woken when an item is queued or the queue shuts down.
    ready: Notify,
    /// Woken when processing becomes empty (for `shut_down_with_drain`).
    drained: Notify,
    limiter: Box<dyn RateLimiter<T>>,
}

/// A work queue of keys with delays and rate limiting (client-go's `TypedRateLimitingInterface`).
/// Cloning gives another handle to the same queue.
pub struct RateLimitingQueue<T> {
    inner: Arc<Inner<T>>,
}

impl<T> Clone for RateLimitingQueue<T> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

impl<T: Hash + Eq + Clone + Send + Sync + 'static> Default for RateLimitingQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Hash + Eq + Clone + Send + Sync + 'static> RateLimitingQueue<T> {
    /// A queue with [`default_controller_rate_limiter`].
    pub fn new() -> Self {
        Self::with_rate_limiter(Box::new(default_controller_rate_limiter()))
    }

    /// A queue with the given rate limiter.
    pub fn with_rate_limiter(limiter: Box<dyn RateLimiter<T>>) -> Self {
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(QueueState {
                    queue: VecDeque::new(),
                    dirty: HashSet::new(),
                    processing: HashSet::new(),
                    waiting: HashMap::new(),
                    heap: BinaryHeap::new(),
                    seq: 0,
                    shutting_down: false,
                    drain: false,
                }),
                ready: Notify::new(),
                drained: Notify::new(),
                limiter,
            }),
        }
    }

    /// Queue `item` for processing, unless it is already queued (or waiting for `done`).
    pub fn add(&self, item: T) {
        let wake = self.inner.state.lock().add(item);
        if wake {
            self.inner.ready.notify_waiters();
        }
    }

    /// Queue `item` after `delay`; if it is already waiting, the earlier time wins.
    pub fn add_after(&self, item: T, delay: Duration) {
        if delay.is_zero() {
            self.add(item);
            return;
        }
        let at = Instant::now() + delay;
        {
            let mut st = self.inner.state.lock();
            if st.shutting_down {
                return;
            }
            if let Some((existing, _)) = st.waiting.get(&item)
                && *existing <= at
            {
                return;
            }
            st.seq += 1;
            let seq = st.seq;
            st.waiting.insert(item.clone(), (at, seq));
            st.heap.push(Reverse((at, seq, HeapItem(item))));
        }
        // A getter may be sleeping until a later item: let it re-evaluate its deadline.
        self.inner.ready.notify_waiters();
    }

    /// Queue `item` after the rate limiter's delay for it.
    pub fn add_rate_limited(&self, item: T) {
        let delay = self.inner.limiter.when(&item);
        self.add_after(item, delay);
    }

    /// The item succeeded: stop its backoff (does not remove it from the queue).
    pub fn forget(&self, item: &T) {
        self.inner.limiter.forget(item);
    }

    /// How many times `item` has been rate limited since it was last forgotten.
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.inner.limiter.num_requeues(item)
    }

    /// Items ready to be handed out (not counting those waiting for a delay).
    pub fn len(&self) -> usize {
        let mut st = self.inner.state.lock();
        st.promote_ready(Instant::now());
        st.queue.len()
    }

    /// Whether no item is ready.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether `shut_down` (or `shut_down_with_drain`) has been called.
    pub fn is_shutting_down(&self) -> bool {
        self.inner.state.lock().shutting_down
    }

    /// Wait for the next item; `None` once the queue is shut down and empty. The caller must call
    /// [`done`](Self::done) with the item when finished with it.
    pub async fn get(&self) -> Option<T> {
        loop {
            let notified = self.inner.ready.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let next_ready = {
                let mut st = self.inner.state.lock();
                let next_ready = if st.shutting_down {
                    None
                } else {
                    st.promote_ready(Instant::now())
                };
                if let Some(item) = st.queue.pop_front() {
                    st.dirty.remove(&item);
                    st.processing.insert(item.clone());
                    return Some(item);
                }
                if st.shutting_down {
                    return None;
                }
                next_ready
            };
            match next_ready {
                Some(at) => {
                    tokio::select! {
                        _ = notified => {}
                        _ = tokio::time::sleep_until(at) => {}
                    }
                }
                None => notified.await,
            }
        }
    }

    /// Mark `item` as processed; if it was added again meanwhile, queue it now.
    pub fn done(&self, item: &T) {
        let (wake, drained) = {
            let mut st = self.inner.state.lock();
            let was_processing = st.processing.remove(item);
            let mut wake = false;
            // Only an item handed out can be dirty without being queued; client-go's `Done`
            // pushes any dirty item, so a stray `done` would queue a duplicate.
            if was_processing && st.dirty.contains(item) {
                st.queue.push_back(item.clone());
                wake = true;
            }
            (wake, st.processing.is_empty())
        };
        if wake {
            self.inner.ready.notify_waiters();
        }
        if drained {
            self.inner.drained.notify_waiters();
        }
    }

    /// Stop accepting items; getters drain what is queued, then get `None`. A caller blocked in
    /// [`shut_down_with_drain`](Self::shut_down_with_drain) returns at once, items still in flight
    /// or not (client-go's `ShutDown`).
    pub fn shut_down(&self) {
        self.stop(false);
    }

    /// Mark the queue shutting down; `drain` says whether a drainer is (still) waiting.
    fn stop(&self, drain: bool) {
        {
            let mut st = self.inner.state.lock();
            st.shutting_down = true;
            st.drain = drain;
            st.waiting.clear();
            st.heap.clear();
        }
        self.inner.ready.notify_waiters();
        self.inner.drained.notify_waiters();
    }

    /// Like [`shut_down`](Self::shut_down), then wait until every item handed out is `done`, or
    /// until `shut_down` is called (which forces this to return without waiting any longer).
    pub async fn shut_down_with_drain(&self) {
        self.stop(true);
        loop {
            let notified = self.inner.drained.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let st = self.inner.state.lock();
                if st.processing.is_empty() || !st.drain {
                    return;
                }
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod ported_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn plain_queue() -> RateLimitingQueue<&'static str> {
        RateLimitingQueue::new()
    }

    async fn get_within(q: &RateLimitingQueue<&'static str>, d: Duration) -> Option<&'static str> {
        tokio::time::timeout(d, q.get()).await.ok().flatten()
    }

    #[tokio::test(start_paused = true)]
    async fn add_dedups_keys_not_yet_processed() {
        let q = plain_queue();
        q.add("a");
        q.add("b");
        q.add("a");
        assert_eq!(q.len(), 2);
        assert_eq!(q.get().await, Some("a"));
        assert_eq!(q.get().await, Some("b"));
        assert_eq!(get_within(&q, Duration::from_secs(1)).await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn readd_while_processing_is_queued_once_after_done() {
        let q = plain_queue();
        q.add("a");
        assert_eq!(q.get().await, Some("a"));
        q.add("a");
        q.add("a");
        assert_eq!(
            q.len(),
            0,
            "an item being processed is not handed out again"
        );
        assert_eq!(
            get_within(&q, Duration::from_secs(1)).await,
            None,
            "a second worker must not get an item still being processed"
        );
        q.done(&"a");
        assert_eq!(q.len(), 1);
        assert_eq!(q.get().await, Some("a"));
        q.done(&"a");
        assert_eq!(q.len(), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn waiting_getter_is_woken_by_add() {
        let q = plain_queue();
        let q2 = q.clone();
        let worker = tokio::spawn(async move { q2.get().await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        q.add("x");
        assert_eq!(worker.await.ok().flatten(), Some("x"));
    }

    #[tokio::test(start_paused = true)]
    async fn add_after_delivers_after_delay() {
        let q = plain_queue();
        let start = Instant::now();
        q.add_after("a", Duration::from_secs(10));
        q.add_after("a", Duration::from_secs(2)); // the earlier time wins
        q.add_after("a", Duration::from_secs(5)); // a later time does not postpone it
        assert_eq!(q.len(), 0);
        assert_eq!(q.get().await, Some("a"));
        assert_eq!(start.elapsed(), Duration::from_secs(2));
        q.done(&"a");
        // Delivered once, not again at 5 s or 10 s.
        assert_eq!(get_within(&q, Duration::from_secs(20)).await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn add_after_wakes_a_getter_already_waiting() {
        let q = plain_queue();
        let q2 = q.clone();
        let start = Instant::now();
        let worker = tokio::spawn(async move { q2.get().await });
        tokio::task::yield_now().await;
        q.add_after("late", Duration::from_secs(30));
        q.add_after("soon", Duration::from_millis(500));
        assert_eq!(worker.await.ok().flatten(), Some("soon"));
        assert_eq!(start.elapsed(), Duration::from_millis(500));
    }

    #[tokio::test(start_paused = true)]
    async fn rate_limited_backoff_doubles_per_item() {
        let limiter = ItemExponentialFailureRateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        );
        let delays: Vec<u128> = (0..5).map(|_| limiter.when(&"a").as_millis()).collect();
        assert_eq!(delays, vec![5, 10, 20, 40, 80]);
        assert_eq!(limiter.num_requeues(&"a"), 5);
        assert_eq!(limiter.when(&"b"), Duration::from_millis(5), "per item");
        for _ in 0..30 {
            limiter.when(&"c");
        }
        assert_eq!(limiter.when(&"c"), Duration::from_secs(1000), "capped");
        for _ in 0..100 {
            limiter.when(&"c");
        }
        assert_eq!(limiter.when(&"c"), Duration::from_secs(1000), "no overflow");

        // Through the queue: the second retry waits twice as long as the first.
        let q = plain_queue();
        let start = Instant::now();
        q.add_rate_limited("k");
        assert_eq!(q.get().await, Some("k"));
        assert_eq!(start.elapsed(), Duration::from_millis(5));
        q.done(&"k");
        let again = Instant::now();
        q.add_rate_limited("k");
        assert_eq!(q.get().await, Some("k"));
        assert_eq!(again.elapsed(), Duration::from_millis(10));
        assert_eq!(q.num_requeues(&"k"), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn forget_resets_backoff() {
        let q = plain_queue();
        q.add_rate_limited("k");
        q.add_rate_limited("k");
        assert_eq!(q.num_requeues(&"k"), 2);
        q.forget(&"k");
        assert_eq!(q.num_requeues(&"k"), 0);
        let limiter = ItemExponentialFailureRateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        );
        limiter.when(&"k");
        limiter.when(&"k");
        limiter.forget(&"k");
        assert_eq!(limiter.when(&"k"), Duration::from_millis(5));
    }

    #[tokio::test(start_paused = true)]
    async fn bucket_limits_burst() {
        let bucket = BucketRateLimiter::new(10.0, 100);
        let when = |item: &str| RateLimiter::<&str>::when(&bucket, &item);
        for i in 0..100 {
            assert_eq!(
                when("x"),
                Duration::ZERO,
                "burst item {i} must pass at once"
            );
        }
        assert_eq!(when("x"), Duration::from_millis(100));
        assert_eq!(when("x"), Duration::from_millis(200));
        // After a second, ten tokens are back: the debt of two is repaid and eight remain.
        tokio::time::advance(Duration::from_secs(1)).await;
        for _ in 0..8 {
            assert_eq!(when("x"), Duration::ZERO);
        }
        assert_eq!(when("x"), Duration::from_millis(100));

        // The default limiter is the max of both: the bucket dominates a burst of new items.
        let limiter = default_controller_rate_limiter::<u32>();
        for i in 0..100 {
            assert_eq!(limiter.when(&i), Duration::from_millis(5));
        }
        assert_eq!(limiter.when(&1000), Duration::from_millis(100));
    }

    #[tokio::test(start_paused = true)]
    async fn shutdown_with_drain_waits_for_in_flight() {
        let q = plain_queue();
        q.add("a");
        q.add("b");
        assert_eq!(q.get().await, Some("a"));
        let q2 = q.clone();
        let drain = tokio::spawn(async move { q2.shut_down_with_drain().await });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(
            !drain.is_finished(),
            "drain must wait for the item in flight"
        );
        q.add("c");
        assert_eq!(
            q.get().await,
            Some("b"),
            "queued items are still handed out"
        );
        q.done(&"a");
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!drain.is_finished(), "b is still in flight");
        q.done(&"b");
        assert!(
            tokio::time::timeout(Duration::from_secs(1), drain)
                .await
                .is_ok()
        );
        assert_eq!(
            q.get().await,
            None,
            "c was added after shutdown and is ignored"
        );
    }

    #[derive(Debug, Clone)]
    enum Op {
        Add(u8),
        Get,
        Done(usize),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            (0u8..6).prop_map(Op::Add),
            Just(Op::Get),
            (0usize..8).prop_map(Op::Done),
        ]
    }

    proptest::proptest! {
        /// Against a reference model of `queue.go`: the order items are handed out, that no item is
        /// handed out while being processed, and that a re-add during processing is queued once.
        #[test]
        fn queue_matches_reference_model(ops in proptest::collection::vec(op(), 1..200)) {
            use futures::FutureExt;
            let q: RateLimitingQueue<u8> = RateLimitingQueue::new();
            let mut queue: VecDeque<u8> = VecDeque::new();
            let mut dirty: HashSet<u8> = HashSet::new();
            let mut processing: Vec<u8> = Vec::new();
            for op in ops {
                match op {
                    Op::Add(k) => {
                        q.add(k);
                        if dirty.insert(k) && !processing.contains(&k) {
                            queue.push_back(k);
                        }
                    }
                    Op::Get => {
                        let got = q.get().now_or_never();
                        match queue.pop_front() {
                            Some(k) => {
                                proptest::prop_assert_eq!(got, Some(Some(k)));
                                proptest::prop_assert!(!processing.contains(&k));
                                dirty.remove(&k);
                                processing.push(k);
                            }
                            None => proptest::prop_assert_eq!(got, None, "nothing is ready"),
                        }
                    }
                    Op::Done(i) => {
                        if processing.is_empty() {
                            continue;
                        }
                        let k = processing.remove(i % processing.len());
                        q.done(&k);
                        if dirty.contains(&k) {
                            queue.push_back(k);
                        }
                    }
                }
                proptest::prop_assert_eq!(q.len(), queue.len());
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn shut_down_wakes_getters_with_none() {
        let q = plain_queue();
        let q2 = q.clone();
        let worker = tokio::spawn(async move { q2.get().await });
        tokio::task::yield_now().await;
        q.add_after("never", Duration::from_secs(1));
        q.shut_down();
        assert_eq!(worker.await.ok().flatten(), None);
        assert!(q.is_shutting_down());
    }

    /// client-go `TestForceQueueShutdownUsingShutDown`: `shut_down` releases a drain that is
    /// still waiting for items in flight.
    #[tokio::test(start_paused = true)]
    async fn shut_down_releases_a_caller_blocked_in_shut_down_with_drain() {
        let q = plain_queue();
        q.add("a");
        q.add("b");
        assert_eq!(q.get().await, Some("a"));
        let q2 = q.clone();
        let drain = tokio::spawn(async move { q2.shut_down_with_drain().await });
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(!drain.is_finished(), "a is still in flight");
        // The second Ctrl-C: force the shutdown.
        q.shut_down();
        assert!(
            tokio::time::timeout(Duration::from_secs(1), drain)
                .await
                .is_ok(),
            "shut_down must release the drain although a is not done"
        );
        assert!(q.is_shutting_down());
        assert_eq!(
            q.get().await,
            Some("b"),
            "queued items are still handed out"
        );
        q.done(&"a");
        q.done(&"b");
        assert_eq!(q.get().await, None);
        // A drain called after the forced shutdown does not wait either.
        let q3 = plain_queue();
        q3.add("x");
        assert_eq!(q3.get().await, Some("x"));
        q3.shut_down();
        let q4 = q3.clone();
        let again = tokio::spawn(async move { q4.shut_down_with_drain().await });
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!again.is_finished(), "a new drain waits for x again");
        q3.shut_down();
        assert!(
            tokio::time::timeout(Duration::from_secs(1), again)
                .await
                .is_ok()
        );
    }
}
