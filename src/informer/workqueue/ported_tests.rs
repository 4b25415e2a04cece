//! client-go's workqueue tests, ported case by case (`queue_test.go`, `delaying_queue_test.go`,
//! `rate_limiting_queue_test.go`, `default_rate_limiters_test.go`). Each test names the client-go
//! test it ports; timing runs on tokio's paused clock instead of client-go's fake clock.

use super::*;
use std::collections::HashSet;

fn plain_queue<T: Hash + Eq + Clone + Send + Sync + 'static>() -> RateLimitingQueue<T> {
    RateLimitingQueue::new()
}

fn exponential(base: Duration, max: Duration) -> ItemExponentialFailureRateLimiter<&'static str> {
    ItemExponentialFailureRateLimiter::new(base, max)
}

const MS: Duration = Duration::from_millis(1);

/// `TestItemExponentialFailureRateLimiter`.
#[test]
fn exponential_limiter_doubles_per_item_and_restarts_after_forget() {
    let limiter = exponential(MS, Duration::from_secs(1));
    for e in [1, 2, 4, 8, 16] {
        assert_eq!(limiter.when(&"one"), e * MS);
    }
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(limiter.when(&"two"), MS);
    assert_eq!(limiter.when(&"two"), 2 * MS);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), MS);
}

/// `TestItemExponentialFailureRateLimiterOverFlow`.
#[test]
fn exponential_limiter_stays_at_its_cap_after_a_thousand_failures() {
    let limiter = exponential(MS, Duration::from_secs(1000));
    for _ in 0..5 {
        limiter.when(&"one");
    }
    assert_eq!(limiter.when(&"one"), 32 * MS);
    for _ in 0..1000 {
        limiter.when(&"overflow1");
    }
    assert_eq!(limiter.when(&"overflow1"), Duration::from_secs(1000));

    let minute = Duration::from_secs(60);
    let limiter = exponential(minute, 1000 * 60 * minute);
    for _ in 0..2 {
        limiter.when(&"two");
    }
    assert_eq!(limiter.when(&"two"), 4 * minute);
    for _ in 0..1000 {
        limiter.when(&"overflow2");
    }
    assert_eq!(limiter.when(&"overflow2"), 1000 * 60 * minute);
}

/// `TestItemFastSlowRateLimiter`.
#[test]
fn fast_slow_limiter_turns_slow_after_max_fast_attempts() {
    let limiter = ItemFastSlowRateLimiter::new(5 * MS, Duration::from_secs(10), 3);
    let answers: Vec<Duration> = (0..5).map(|_| limiter.when(&"one")).collect();
    let slow = Duration::from_secs(10);
    assert_eq!(answers, vec![5 * MS, 5 * MS, 5 * MS, slow, slow]);
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), 5 * MS);
}

/// `TestMaxOfRateLimiter`.
#[test]
fn max_of_limiter_answers_the_longest_delay_and_forgets_in_every_limiter() {
    let limiter: MaxOfRateLimiter<&'static str> = MaxOfRateLimiter::new(vec![
        Box::new(ItemFastSlowRateLimiter::new(
            5 * MS,
            Duration::from_secs(3),
            3,
        )),
        Box::new(exponential(MS, Duration::from_secs(1))),
    ]);
    let answers: Vec<Duration> = (0..5).map(|_| limiter.when(&"one")).collect();
    let slow = Duration::from_secs(3);
    assert_eq!(answers, vec![5 * MS, 5 * MS, 5 * MS, slow, slow]);
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), 5 * MS);
}

/// Wait for the next item and say how long it took.
async fn timed_get(q: &RateLimitingQueue<&'static str>) -> (Option<&'static str>, Duration) {
    let start = Instant::now();
    let item = q.get().await;
    (item, start.elapsed())
}

/// `TestRateLimitingQueue`: `add_rate_limited` waits the limiter's answer for that item; a second
/// call while the first is still waiting does not postpone it (the earlier time wins).
#[tokio::test(start_paused = true)]
async fn rate_limited_adds_wait_the_per_item_backoff() {
    let q = RateLimitingQueue::with_rate_limiter(Box::new(exponential(MS, Duration::from_secs(1))));
    q.add_rate_limited("one");
    q.add_rate_limited("one");
    assert_eq!(q.num_requeues(&"one"), 2);
    assert_eq!(timed_get(&q).await, (Some("one"), MS));
    q.done(&"one");
    // The 2 ms answer was superseded by the earlier 1 ms one: not delivered again.
    assert_eq!(
        tokio::time::timeout(Duration::from_secs(1), q.get())
            .await
            .ok(),
        None
    );

    q.add_rate_limited("two");
    assert_eq!(timed_get(&q).await, (Some("two"), MS));
    q.done(&"two");
    q.add_rate_limited("two");
    assert_eq!(timed_get(&q).await, (Some("two"), 2 * MS));
    q.done(&"two");

    q.forget(&"one");
    assert_eq!(q.num_requeues(&"one"), 0);
    q.add_rate_limited("one");
    assert_eq!(timed_get(&q).await, (Some("one"), MS));
}

/// Run `producers` tasks adding `per_producer` items each (1 ms apart) and 10 consumers taking
/// 3 ms per item, each consumer re-adding an item `readds` times while processing it; then
/// (after a second of quiet if `settle`) shut down, with drain or not, and add one more item. Returns the items processed per consumer. Panics if two
/// consumers ever hold the same item at once.
async fn producers_and_consumers(
    producers: u32,
    per_producer: u32,
    readds: u32,
    settle: bool,
    drain: bool,
) -> Vec<Vec<u32>> {
    const AFTER_SHUTDOWN: u32 = u32::MAX;
    let q: RateLimitingQueue<u32> = plain_queue();
    let in_flight: Arc<Mutex<HashSet<u32>>> = Arc::default();
    let producer_tasks: Vec<_> = (0..producers)
        .map(|i| {
            let q = q.clone();
            tokio::spawn(async move {
                for _ in 0..per_producer {
                    q.add(i);
                    tokio::time::sleep(MS).await;
                }
            })
        })
        .collect();
    let consumer_tasks: Vec<_> = (0..10)
        .map(|_| {
            let q = q.clone();
            let in_flight = Arc::clone(&in_flight);
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut counters: HashMap<u32, u32> = HashMap::new();
                while let Some(item) = q.get().await {
                    assert_ne!(item, AFTER_SHUTDOWN, "got an item added after shutdown");
                    assert!(
                        in_flight.lock().insert(item),
                        "item {item} handed to two consumers at once"
                    );
                    seen.push(item);
                    let n = counters.entry(item).or_insert(0);
                    *n += 1;
                    if *n <= readds {
                        q.add(item);
                    }
                    tokio::time::sleep(3 * MS).await;
                    in_flight.lock().remove(&item);
                    q.done(&item);
                }
                seen
            })
        })
        .collect();
    for p in producer_tasks {
        p.await.expect("producer");
    }
    if settle {
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    if drain {
        q.shut_down_with_drain().await;
    } else {
        q.shut_down();
    }
    q.add(AFTER_SHUTDOWN);
    let mut per_consumer = Vec::new();
    for c in consumer_tasks {
        per_consumer.push(c.await.expect("consumer"));
    }
    assert_eq!(q.len(), 0, "the queue must be empty once consumers quit");
    per_consumer
}

/// `TestBasic`, with `ShutDown` and `ShutDownWithDrain`.
#[tokio::test(start_paused = true)]
async fn many_producers_and_consumers_share_the_queue_and_adds_after_shutdown_are_ignored() {
    for drain in [false, true] {
        let seen = producers_and_consumers(50, 50, 0, false, drain).await;
        let distinct: HashSet<u32> = seen.iter().flatten().copied().collect();
        // Every producer's item was processed at least once (its adds may coalesce).
        assert_eq!(distinct, (0..50).collect(), "drain={drain}");
        assert!(
            seen.iter().filter(|s| !s.is_empty()).count() > 1,
            "work was spread over several consumers"
        );
    }
}

/// `TestAddWhileProcessing`: each consumer re-adds an item it processes (the dirty-while-processing
/// case); the item comes back after `done`, never to two consumers at once. client-go shuts down
/// right after the producers (re-adds then race the shutdown and only termination is checked);
/// here the queue settles first, so every item must have been processed at least twice.
#[tokio::test(start_paused = true)]
async fn items_re_added_while_processing_come_back_after_done() {
    for drain in [false, true] {
        let seen = producers_and_consumers(50, 1, 1, true, drain).await;
        let all: Vec<u32> = seen.iter().flatten().copied().collect();
        let distinct: HashSet<u32> = all.iter().copied().collect();
        assert_eq!(distinct, (0..50).collect(), "drain={drain}");
        for item in 0..50 {
            let runs = all.iter().filter(|i| **i == item).count();
            assert!(
                runs >= 2,
                "item {item} processed again after its re-add, got {runs} runs"
            );
        }
    }
}

/// Take items until the queue says it is shut down and empty.
async fn get_until_shut_down(q: &RateLimitingQueue<&'static str>) {
    while q.get().await.is_some() {}
}

/// `TestQueueDrainageUsingShutDownWithDrain`: `get` reports shutdown while items are in flight,
/// and the drain returns once they are done.
#[tokio::test(start_paused = true)]
async fn shut_down_with_drain_returns_once_items_in_flight_are_done() {
    let q = plain_queue();
    q.add("foo");
    q.add("bar");
    let first = q.get().await.expect("foo");
    let second = q.get().await.expect("bar");
    let drainer = {
        let q = q.clone();
        tokio::spawn(async move { q.shut_down_with_drain().await })
    };
    tokio::task::yield_now().await;
    get_until_shut_down(&q).await;
    assert!(!drainer.is_finished());
    q.done(&first);
    tokio::task::yield_now().await;
    assert!(!drainer.is_finished(), "bar is still in flight");
    q.done(&second);
    tokio::time::timeout(Duration::from_secs(1), drainer)
        .await
        .expect("drain returns")
        .expect("drain task");
}

/// `TestNoQueueDrainageUsingShutDown`: `shut_down` does not wait for items in flight.
#[tokio::test(start_paused = true)]
async fn shut_down_returns_without_waiting_for_items_in_flight() {
    let q = plain_queue();
    q.add("foo");
    q.add("bar");
    assert!(q.get().await.is_some());
    assert!(q.get().await.is_some());
    q.shut_down();
    assert!(q.is_shutting_down());
    assert_eq!(q.get().await, None);
}

/// `TestQueueDrainageUsingShutDownWithDrainWithDirtyItem`: an item re-added while processing is
/// handed out again after `done` even though the queue is draining, and only then is it empty.
#[tokio::test(start_paused = true)]
async fn draining_queue_still_hands_out_an_item_re_added_while_processing() {
    let q = plain_queue();
    q.add("foo");
    let gotten = q.get().await.expect("foo");
    q.add("foo");
    let drainer = {
        let q = q.clone();
        tokio::spawn(async move { q.shut_down_with_drain().await })
    };
    tokio::task::yield_now().await;
    get_until_shut_down(&q).await;
    q.done(&gotten);
    let again = q.get().await;
    assert_eq!(again, Some("foo"), "done queued the dirty item again");
    assert!(!drainer.is_finished(), "foo is in flight again");
    q.done(&"foo");
    assert_eq!(q.get().await, None, "now really done");
    tokio::time::timeout(Duration::from_secs(1), drainer)
        .await
        .expect("drain returns")
        .expect("drain task");
}

/// `TestGarbageCollection`: the queue keeps no reference to an item once it is done.
#[tokio::test(start_paused = true)]
async fn queue_keeps_no_reference_to_an_item_after_done() {
    let q: RateLimitingQueue<Arc<str>> = plain_queue();
    let item: Arc<str> = Arc::from("big object");
    q.add(Arc::clone(&item));
    assert!(Arc::strong_count(&item) > 1);
    let got = q.get().await.expect("item");
    q.done(&got);
    drop(got);
    assert_eq!(Arc::strong_count(&item), 1);
}

/// `TestSimpleQueue`: an item added with a delay is not queued before it, is queued after it, and
/// only once.
#[tokio::test(start_paused = true)]
async fn delayed_item_is_queued_once_its_time_has_come() {
    let q = plain_queue();
    q.add_after("foo", 50 * MS);
    assert_eq!(q.len(), 0, "should not have added");
    tokio::time::advance(60 * MS).await;
    assert_eq!(q.len(), 1, "should have added");
    let item = q.get().await.expect("foo");
    q.done(&item);
    tokio::time::advance(Duration::from_secs(10)).await;
    assert_eq!(q.len(), 0, "should not have added again");
}

/// `TestDeduping`: a later `add_after` of a waiting item is ignored, an earlier one wins, and an
/// `add_after` of an item being processed queues it again once its time has come and it is done.
#[tokio::test(start_paused = true)]
async fn delayed_adds_of_one_item_dedupe_to_the_earliest_time() {
    let q = plain_queue();
    q.add_after("foo", 50 * MS);
    q.add_after("foo", 70 * MS);
    assert_eq!(q.len(), 0);
    tokio::time::advance(60 * MS).await;
    assert_eq!(q.len(), 1);
    let item = q.get().await.expect("foo");
    q.done(&item);
    tokio::time::advance(20 * MS).await;
    assert_eq!(q.len(), 0, "the 70 ms add was merged into the 50 ms one");

    q.add_after("foo", 50 * MS);
    q.add_after("foo", 30 * MS);
    assert_eq!(q.len(), 0);
    tokio::time::advance(40 * MS).await;
    assert_eq!(q.len(), 1, "the earlier time overrides");
    let item = q.get().await.expect("foo");
    q.done(&item);
    tokio::time::advance(20 * MS).await;
    assert_eq!(q.len(), 0);

    q.add("foo");
    let item = q.get().await.expect("foo");
    q.add_after("foo", 5 * MS);
    tokio::time::advance(10 * MS).await;
    assert_eq!(q.len(), 0, "not handed out while processed");
    q.done(&item);
    assert_eq!(q.len(), 1, "queued again by done");
}

/// `TestAddTwoFireEarly`: a shorter delay added later fires first; a longer one added after the
/// first fired keeps its own time.
#[tokio::test(start_paused = true)]
async fn shorter_delay_added_later_fires_first() {
    let q = plain_queue();
    q.add_after("foo", Duration::from_secs(1));
    q.add_after("bar", 50 * MS);
    assert_eq!(q.len(), 0);
    tokio::time::advance(60 * MS).await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.get().await, Some("bar"));
    q.add_after("baz", Duration::from_secs(2));
    tokio::time::advance(Duration::from_secs(1)).await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.get().await, Some("foo"));
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(q.len(), 1);
    assert_eq!(q.get().await, Some("baz"));
}

/// `TestCopyShifting`: items that become ready together are queued by ready time, not by the
/// order they were added in.
#[tokio::test(start_paused = true)]
async fn items_ready_together_are_queued_in_ready_time_order() {
    let q = plain_queue();
    q.add_after("foo", Duration::from_secs(1));
    q.add_after("bar", 500 * MS);
    q.add_after("baz", 250 * MS);
    assert_eq!(q.len(), 0);
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(q.len(), 3);
    assert_eq!(q.get().await, Some("baz"));
    assert_eq!(q.get().await, Some("bar"));
    assert_eq!(q.get().await, Some("foo"));
}

/// A documented difference: items with the same ready time are queued in `add_after` order
/// (client-go's heap leaves their order unspecified).
#[tokio::test(start_paused = true)]
async fn items_with_equal_ready_times_are_queued_in_add_order() {
    let q: RateLimitingQueue<u32> = plain_queue();
    let order: Vec<u32> = vec![7, 3, 9, 1, 5, 8, 2, 6, 4, 0];
    for i in &order {
        q.add_after(*i, Duration::from_secs(1));
    }
    tokio::time::advance(Duration::from_secs(1)).await;
    let mut got = Vec::new();
    while !q.is_empty() {
        got.push(q.get().await.expect("ready"));
    }
    assert_eq!(got, order);
}

/// A documented difference: a stray `done` for an item that is queued but was never handed out
/// does not queue it twice (client-go's `Done` would push a duplicate).
#[tokio::test(start_paused = true)]
async fn done_for_an_item_never_handed_out_does_not_queue_it_twice() {
    let q = plain_queue();
    q.add("a");
    q.done(&"a");
    assert_eq!(q.len(), 1);
    assert_eq!(q.get().await, Some("a"));
    assert_eq!(
        tokio::time::timeout(Duration::from_secs(1), q.get())
            .await
            .ok(),
        None,
        "handed out once"
    );
}
