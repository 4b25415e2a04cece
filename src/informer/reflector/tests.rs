//! Reflector tests: the state machine driven by the scripted fake, with tokio's paused clock.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use parking_lot::Mutex;
use tokio::sync::Notify;

use super::*;
use crate::informer::list_watch::{FakeListerWatcher, ListPage, WatchScript};

fn cm(name: &str, rv: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: Some("default".to_string()),
            resource_version: Some(rv.to_string()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}

fn tag(obj: &ConfigMap) -> String {
    format!(
        "{}@{}",
        obj.metadata.name.as_deref().unwrap_or("?"),
        resource_version(obj)
    )
}

#[derive(Debug, Clone, PartialEq)]
enum Rec {
    Add(String),
    Update(String),
    Delete(String),
    Replace(Vec<String>, String),
    Resync,
}

/// Records what the reflector writes, in order.
#[derive(Default)]
struct RecordingStore {
    ops: Mutex<Vec<Rec>>,
    prepared: Mutex<u64>,
    changed: Notify,
}

impl RecordingStore {
    fn push(&self, rec: Rec) {
        self.ops.lock().push(rec);
        self.changed.notify_waiters();
    }
    fn ops(&self) -> Vec<Rec> {
        self.ops.lock().clone()
    }
    async fn wait_ops(&self, n: usize) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.ops.lock().len() >= n {
                return;
            }
            notified.await;
        }
    }
}

impl ReflectorStore<ConfigMap> for RecordingStore {
    fn add(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
        self.push(Rec::Add(tag(&obj)));
        Ok(())
    }
    fn update(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
        self.push(Rec::Update(tag(&obj)));
        Ok(())
    }
    fn delete(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
        self.push(Rec::Delete(tag(&obj)));
        Ok(())
    }
    fn replace(&self, list: Vec<Arc<ConfigMap>>, rv: &str) -> Result<(), Error> {
        let mut tags: Vec<String> = list.iter().map(|o| tag(o)).collect();
        tags.sort();
        self.push(Rec::Replace(tags, rv.to_string()));
        Ok(())
    }
    fn prepare(&self, obj: ConfigMap) -> Arc<ConfigMap> {
        *self.prepared.lock() += 1;
        Arc::new(obj)
    }
    fn resync(&self) -> Result<(), Error> {
        self.push(Rec::Resync);
        Ok(())
    }
}

fn config() -> ReflectorConfig {
    ReflectorConfig {
        kind: "v1/ConfigMap".to_string(),
        // Lists unless a test asks for streaming lists (see `streaming()`).
        use_streaming_list: false,
        backoff: BackoffConfig {
            jitter: 0.0,
            ..BackoffConfig::default()
        },
        ..ReflectorConfig::default()
    }
}

struct Running {
    store: Arc<RecordingStore>,
    status: watch::Receiver<ReflectorStatus>,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
    started: Instant,
}

fn start(fake: &Arc<FakeListerWatcher<ConfigMap>>, config: ReflectorConfig) -> Running {
    let store = Arc::new(RecordingStore::default());
    let reflector = Reflector::new(fake.clone(), store.clone(), config);
    let status = reflector.status();
    let cancel = CancellationToken::new();
    let task = tokio::spawn(reflector.run(cancel.clone()));
    Running {
        store,
        status,
        cancel,
        task,
        started: Instant::now(),
    }
}

impl Running {
    async fn stop(self) -> ReflectorStatus {
        self.cancel.cancel();
        let _ = self.task.await;
        self.status.borrow().clone()
    }
}

fn tags(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn rvs(calls: &[ListOptions]) -> Vec<Option<String>> {
    calls.iter().map(|c| c.resource_version.clone()).collect()
}

#[test]
fn reflector_run_future_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let fake: Arc<FakeListerWatcher<ConfigMap>> = FakeListerWatcher::shared();
    let store = Arc::new(RecordingStore::default());
    let reflector = Reflector::new(fake, store, config());
    let fut = reflector.run(CancellationToken::new());
    assert_send(&fut);
}

#[tokio::test(start_paused = true)]
async fn first_list_uses_rv_zero_and_pages_with_continue() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5"), cm("b", "7")], "10", Some("c1"));
    fake.push_list_page(vec![cm("c", "9")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(1).await;

    let lists = fake.list_calls();
    assert_eq!(lists.len(), 2);
    assert_eq!(lists[0].resource_version.as_deref(), Some("0"));
    assert_eq!(lists[0].limit, Some(500));
    assert_eq!(lists[0].continue_token, None);
    assert_eq!(lists[1].continue_token.as_deref(), Some("c1"));
    assert_eq!(lists[1].limit, Some(500));
    assert_eq!(
        lists[1].resource_version, None,
        "rv must not be sent with continue"
    );
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(tags(&["a@5", "b@7", "c@9"]), "10".to_string())]
    );
    assert_eq!(*run.store.prepared.lock(), 3);
    let status = run.stop().await;
    assert_eq!(status.lists, 1);
    assert_eq!(status.relists, 0);
    assert_eq!(status.last_sync_resource_version, "10");
    assert_eq!(status.state, ReflectorState::Stopped);
}

#[tokio::test(start_paused = true)]
async fn relist_after_gone_uses_consistent_read() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    // The watch's RV is compacted away.
    fake.push_watch(WatchScript::new().error_event(Error::Gone("too old".into())));
    // The relist at the last synced RV is refused too...
    fake.push_list_error(Error::Gone("too old".into()));
    // ...so the reflector lists at once with a consistent read.
    fake.push_list_page(vec![cm("a", "15"), cm("b", "18")], "20", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;

    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some("10".into()), Some("".into())]
    );
    let times = fake.list_call_times();
    // One backoff (800 ms, no jitter) after the ERROR event, none between the two relists.
    assert_eq!(times[1] - times[0], Duration::from_millis(800));
    assert_eq!(times[2], times[1]);
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("20")
    );
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["a@15", "b@18"]), "20".into()))
    );
    let status = run.stop().await;
    assert_eq!(status.relists, 1);
    assert_eq!(status.last_sync_resource_version, "20");
    assert!(matches!(status.last_error, Some(Error::Gone(_))));
}

#[tokio::test(start_paused = true)]
async fn too_large_resource_version_relists_with_consistent_read() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_error(Error::TooLargeResourceVersion("lagging".into()));
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(1).await;
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some("".into())]
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn expired_continue_token_falls_back_to_full_list() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", Some("c1"));
    fake.push_list_error(Error::Gone("continue token expired".into()));
    fake.push_list_page(vec![cm("a", "5"), cm("b", "11")], "12", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(1).await;

    let lists = fake.list_calls();
    assert_eq!(lists.len(), 3);
    assert_eq!(lists[1].continue_token.as_deref(), Some("c1"));
    // The fallback is one unpaged list at the original RV, without the token.
    assert_eq!(lists[2].continue_token, None);
    assert_eq!(lists[2].limit, None);
    assert_eq!(lists[2].resource_version.as_deref(), Some("0"));
    // Only the full list reaches the store: no page of the abandoned snapshot.
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(tags(&["a@5", "b@11"]), "12".into())]
    );
    assert_eq!(
        fake.watch_calls()[0].resource_version.as_deref(),
        Some("12")
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn watch_starts_from_list_rv_with_bookmarks() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(
        &fake,
        ReflectorConfig {
            label_selector: Some("app=web".into()),
            field_selector: Some("metadata.name!=x".into()),
            min_watch_timeout: Duration::from_secs(10),
            ..config()
        },
    );
    fake.wait_for_watch_calls(1).await;
    let w = &fake.watch_calls()[0];
    assert_eq!(w.resource_version.as_deref(), Some("10"));
    assert!(w.allow_watch_bookmarks);
    assert!(!w.send_initial_events);
    let timeout = w.timeout_seconds.unwrap_or(0);
    assert!(
        (10..20).contains(&timeout),
        "timeout {timeout} not in [10, 20)"
    );
    assert_eq!(w.label_selector.as_deref(), Some("app=web"));
    assert_eq!(w.field_selector.as_deref(), Some("metadata.name!=x"));
    assert_eq!(
        fake.list_calls()[0].label_selector.as_deref(),
        Some("app=web")
    );
    let status = run.status.borrow().clone();
    assert_eq!(status.state, ReflectorState::Watching);
    assert_eq!(status.watches, 1);
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn watch_timeouts_are_spread_between_min_and_twice_min() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![], "10", None);
    for _ in 0..20 {
        // Each lasts 2 s with an event, then closes normally: a re-watch follows.
        fake.push_watch(
            WatchScript::new()
                .bookmark("10", false)
                .sleep(Duration::from_secs(2)),
        );
    }
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(21).await;
    let timeouts: Vec<u32> = fake
        .watch_calls()
        .iter()
        .map(|w| w.timeout_seconds.unwrap_or(0))
        .collect();
    assert!(
        timeouts.iter().all(|t| (300..600).contains(t)),
        "{timeouts:?}"
    );
    let first = timeouts[0];
    assert!(
        timeouts.iter().any(|t| *t != first),
        "timeouts not randomized: {timeouts:?}"
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn bookmark_advances_rv_without_event() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .bookmark("15", false)
            .sleep(Duration::from_secs(2)),
    );
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(
        run.store.ops().len(),
        1,
        "a bookmark must not reach the store"
    );
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("15")
    );
    assert_eq!(fake.list_calls().len(), 1);
    let status = run.stop().await;
    assert_eq!(status.last_sync_resource_version, "15");
    assert_eq!(status.events, 1);
}

#[tokio::test(start_paused = true)]
async fn normal_watch_close_rewatches_without_relist() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .added(cm("d", "11"))
            .modified(cm("a", "12"))
            .deleted(cm("d", "13"))
            .then_close(),
    );
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.list_calls().len(), 1, "a normal close must not relist");
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("13")
    );
    let times = fake.watch_call_times();
    assert_eq!(
        times[1], times[0],
        "a normal close re-watches without backoff"
    );
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(tags(&["a@5"]), "10".into()),
            Rec::Add("d@11".into()),
            Rec::Update("a@12".into()),
            Rec::Delete("d@13".into()),
        ]
    );
    let status = run.stop().await;
    assert_eq!(status.events, 3);
    assert_eq!(status.watches, 2);
    assert_eq!(status.last_error, None);
}

#[tokio::test(start_paused = true)]
async fn gone_during_watch_relists() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .modified(cm("a", "11"))
            .error_event(Error::Gone("compacted".into()))
            .then_hang(),
    );
    fake.push_list_page(vec![cm("a", "30")], "30", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    // The relist asks for the last synced RV (what the watch delivered), not RV "".
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some("11".into())]
    );
    let times = fake.list_call_times();
    assert_eq!(times[1] - times[0], Duration::from_millis(800));
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("30")
    );
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["a@30"]), "30".into()))
    );
    let status = run.stop().await;
    assert_eq!(status.relists, 1);
}

#[tokio::test(start_paused = true)]
async fn very_short_watch_backs_off() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    // Closes at once with nothing received: an error.
    fake.push_watch(WatchScript::new().then_close());
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    // Lasts two seconds with nothing received: a normal close.
    fake.push_watch(WatchScript::new().sleep(Duration::from_secs(2)));
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(3).await;

    let status = run.status.borrow().clone();
    let err = status.last_error.map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("very short watch"), "{err}");
    let lists = fake.list_call_times();
    let watches = fake.watch_call_times();
    assert_eq!(lists.len(), 2, "only the very short watch relists");
    assert_eq!(lists[1] - watches[0], Duration::from_millis(800));
    assert_eq!(watches[2] - watches[1], Duration::from_secs(2));
    run.stop().await;
}

#[test]
fn backoff_doubles_to_cap_and_resets_after_health() {
    let mut b = Backoff::new(BackoffConfig {
        jitter: 0.0,
        ..BackoffConfig::default()
    });
    let t0 = Instant::now();
    let delays: Vec<u64> = (0..8)
        .map(|i| b.next_delay(t0 + Duration::from_secs(i)).as_millis() as u64)
        .collect();
    assert_eq!(
        delays,
        vec![800, 1600, 3200, 6400, 12800, 25600, 30000, 30000]
    );
    // Two minutes since the last backoff began: start over.
    let later = t0 + Duration::from_secs(7) + Duration::from_secs(121);
    assert_eq!(b.next_delay(later), Duration::from_millis(800));
    // Not yet healthy for two minutes: keep growing.
    let soon = later + Duration::from_secs(60);
    assert_eq!(b.next_delay(soon), Duration::from_millis(1600));

    // With client-go's jitter of 1.0 every delay is in [base, 2 × base).
    let mut j = Backoff::new(BackoffConfig::default());
    for (i, base) in [800u64, 1600, 3200, 6400, 12800, 25600, 30000]
        .into_iter()
        .enumerate()
    {
        let d = j.next_delay(t0 + Duration::from_secs(i as u64)).as_millis() as u64;
        assert!(
            (base..2 * base).contains(&d),
            "{d} not in [{base}, {})",
            2 * base
        );
    }
}

#[tokio::test(start_paused = true)]
async fn repeated_watch_failures_back_off_exponentially() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![], "10", None);
    for _ in 0..3 {
        fake.push_watch_error(Error::Connect("connection refused".into()));
    }
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(4).await;
    let t = fake.watch_call_times();
    let gaps: Vec<Duration> = t.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(
        gaps,
        vec![
            Duration::from_millis(800),
            Duration::from_millis(1600),
            Duration::from_millis(3200)
        ]
    );
    assert_eq!(
        fake.list_calls().len(),
        1,
        "connection refused must not relist"
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn too_many_requests_backs_off_and_rewatches() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch_error(Error::TooManyRequests("slow down".into()));
    fake.push_watch_error(Error::Api {
        code: 503,
        reason: "ServiceUnavailable".into(),
        message: "apiserver restarting".into(),
    });
    fake.push_watch(WatchScript::new().then_hang());
    let mut run = start(&fake, config());
    // The reflector reports when it will try again.
    let backoff = run
        .status
        .wait_for(|s| matches!(s.state, ReflectorState::Backoff { .. }))
        .await
        .map(|s| s.state);
    assert_eq!(
        backoff.ok(),
        Some(ReflectorState::Backoff {
            until: run.started + Duration::from_millis(800)
        })
    );
    fake.wait_for_watch_calls(3).await;
    assert_eq!(fake.list_calls().len(), 1, "429 and 5xx must not relist");
    let w = fake.watch_calls();
    assert!(
        w.iter()
            .all(|w| w.resource_version.as_deref() == Some("10"))
    );
    let t = fake.watch_call_times();
    assert_eq!(t[1] - t[0], Duration::from_millis(800));
    assert_eq!(t[2] - t[1], Duration::from_millis(1600));
    let status = run.stop().await;
    assert!(matches!(
        status.last_error,
        Some(Error::Api { code: 503, .. })
    ));
}

fn streaming() -> ReflectorConfig {
    ReflectorConfig {
        use_streaming_list: true,
        ..config()
    }
}

#[tokio::test(start_paused = true)]
async fn streaming_list_ends_at_initial_events_end_bookmark() {
    let fake = FakeListerWatcher::shared();
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "5"))
            .added(cm("b", "7"))
            .bookmark("18", false) // a progress bookmark does not end the list
            .added(cm("c", "9"))
            .bookmark("20", true)
            .modified(cm("a", "21"))
            .then_hang(),
    );
    let run = start(&fake, streaming());
    run.store.wait_ops(2).await;
    assert!(
        fake.list_calls().is_empty(),
        "no paged list when streaming works"
    );
    let w = &fake.watch_calls()[0];
    assert!(w.send_initial_events);
    assert!(w.allow_watch_bookmarks);
    assert_eq!(w.resource_version_match.as_deref(), Some("NotOlderThan"));
    assert_eq!(w.resource_version.as_deref(), Some(""));
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(tags(&["a@5", "b@7", "c@9"]), "20".into()),
            Rec::Update("a@21".into()),
        ]
    );
    assert_eq!(fake.watch_calls().len(), 1, "the same watch continues");
    let status = run.stop().await;
    assert_eq!(status.lists, 1);
    assert_eq!(status.watches, 1);
    assert_eq!(status.last_sync_resource_version, "21");
}

#[tokio::test(start_paused = true)]
async fn streaming_list_falls_back_to_paged_list_when_refused() {
    let fake = FakeListerWatcher::shared();
    fake.push_watch_error(Error::Api {
        code: 422,
        reason: "Invalid".into(),
        message: "sendInitialEvents is not supported".into(),
    });
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().sleep(Duration::from_secs(2)));
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, streaming());
    fake.wait_for_watch_calls(3).await;
    let w = fake.watch_calls();
    assert!(w[0].send_initial_events);
    assert!(!w[1].send_initial_events);
    assert!(
        !w[2].send_initial_events,
        "once refused, no more streaming lists"
    );
    assert_eq!(rvs(&fake.list_calls()), vec![Some("0".into())]);
    assert_eq!(
        fake.list_call_times()[0],
        fake.watch_call_times()[0],
        "no backoff"
    );
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(tags(&["a@5"]), "10".into())]
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn streaming_list_without_initial_events_end_falls_back_to_paged_list() {
    let fake = FakeListerWatcher::shared();
    // An old server ignores sendInitialEvents: events, then a close at the watch's timeout (at
    // most twice the 5-minute minimum), never the bookmark.
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "5"))
            .sleep(Duration::from_secs(600))
            .then_close(),
    );
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, streaming());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.list_calls().len(), 1);
    // The unfinished streaming list never reaches the store.
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(tags(&["a@5"]), "10".into())]
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn relist_after_gone_during_watch_streams_again_from_last_rv() {
    let fake = FakeListerWatcher::shared();
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "5"))
            .bookmark("20", true)
            .modified(cm("a", "22"))
            .error_event(Error::Gone("compacted".into()))
            .then_hang(),
    );
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "30"))
            .bookmark("31", true)
            .then_hang(),
    );
    let run = start(&fake, streaming());
    run.store.wait_ops(3).await;
    assert!(fake.list_calls().is_empty());
    let w = fake.watch_calls();
    assert_eq!(w.len(), 2);
    assert!(
        w[1].send_initial_events,
        "the relist is a streaming list too"
    );
    assert_eq!(w[1].resource_version.as_deref(), Some("22"));
    let t = fake.watch_call_times();
    assert_eq!(t[1] - t[0], Duration::from_millis(800));
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["a@30"]), "31".into()))
    );
    let status = run.stop().await;
    assert_eq!(status.relists, 1);
}

#[tokio::test(start_paused = true)]
async fn malformed_objects_are_counted_not_fatal() {
    let fake = FakeListerWatcher::shared();
    fake.push_list(Ok(ListPage {
        items: vec![cm("a", "5")],
        resource_version: "10".into(),
        continue_token: None,
        remaining_item_count: None,
        malformed: 2,
    }));
    fake.push_watch(
        WatchScript::new()
            .event(WatchEvent::Malformed("bad object".into()))
            .added(cm("d", "11"))
            .then_hang(),
    );
    let run = start(&fake, config());
    run.store.wait_ops(2).await;
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(tags(&["a@5"]), "10".into()),
            Rec::Add("d@11".into())
        ]
    );
    let status = run.stop().await;
    assert_eq!(status.malformed, 3);
    assert_eq!(status.last_sync_resource_version, "11");
    assert_eq!(
        status.watches, 1,
        "a malformed event does not end the watch"
    );
}

#[tokio::test(start_paused = true)]
async fn resync_calls_store_when_should_resync_says_so() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let allow = Arc::new(AtomicBool::new(false));
    let allow2 = allow.clone();
    let run = start(
        &fake,
        ReflectorConfig {
            resync_period: Some(Duration::from_secs(30)),
            should_resync: Some(Arc::new(move || allow2.load(Ordering::SeqCst))),
            ..config()
        },
    );
    fake.wait_for_watch_calls(1).await;
    tokio::time::sleep(Duration::from_secs(31)).await;
    assert_eq!(run.store.ops().len(), 1, "should_resync said no");
    allow.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert_eq!(run.store.ops().last(), Some(&Rec::Resync));
    assert_eq!(run.store.ops().len(), 2);
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn failed_list_backs_off_and_lists_again_at_the_same_rv() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_error(Error::Connect("refused".into()));
    fake.push_list_error(Error::Connect("refused".into()));
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(1).await;
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some("0".into()), Some("0".into())],
        "a failed list must not change the RV asked for"
    );
    let t = fake.list_call_times();
    assert_eq!(t[1] - t[0], Duration::from_millis(800));
    assert_eq!(t[2] - t[1], Duration::from_millis(1600));
    let status = run.stop().await;
    assert_eq!(status.lists, 1, "only completed lists count");
    assert_eq!(status.relists, 0);
    assert!(matches!(status.last_error, Some(Error::Connect(_))));
    assert!(status.last_error_at.is_some());
}

/// Issue 11: a 403 is not an outage. The reflector asks again after `forbidden_retry` (5 min by
/// default: permissions change rarely), not after the 800 ms-30 s backoff; and the next failure
/// of another kind backs off as usual again.
#[tokio::test(start_paused = true)]
async fn forbidden_list_waits_the_slow_rbac_retry_not_the_backoff() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_error(Error::Forbidden("rbac".into()));
    fake.push_list_error(Error::Connect("refused".into()));
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(1).await;
    let t = fake.list_call_times();
    assert_eq!(t[1] - t[0], Duration::from_secs(300));
    assert_eq!(t[2] - t[1], Duration::from_millis(800));
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn watch_error_event_relists_after_backoff_from_last_rv() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .bookmark("14", false)
            .error_event(Error::Forbidden("rbac changed".into()))
            .then_hang(),
    );
    fake.push_list_page(vec![cm("a", "5")], "16", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some("14".into())]
    );
    let status = run.stop().await;
    assert_eq!(status.relists, 1);
    assert_eq!(status.last_sync_resource_version, "16");
}

#[tokio::test(start_paused = true)]
async fn cancel_stops_reflector() {
    // Cancelled while a list is outstanding.
    let fake = FakeListerWatcher::shared();
    let run = start(&fake, config());
    fake.wait_for_list_calls(1).await;
    assert_eq!(run.status.borrow().state, ReflectorState::Listing);
    run.cancel.cancel();
    let joined = tokio::time::timeout(Duration::from_millis(10), run.task).await;
    assert!(joined.is_ok(), "reflector did not stop promptly");
    assert_eq!(run.status.borrow().state, ReflectorState::Stopped);

    // Cancelled while watching, and while backing off.
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(1).await;
    assert_eq!(run.status.borrow().state, ReflectorState::Watching);
    assert_eq!(run.stop().await.state, ReflectorState::Stopped);

    let fake = FakeListerWatcher::shared();
    fake.push_list_error(Error::Connect("refused".into()));
    let mut run = start(&fake, config());
    let _ = run
        .status
        .wait_for(|s| matches!(s.state, ReflectorState::Backoff { .. }))
        .await;
    run.cancel.cancel();
    let joined = tokio::time::timeout(Duration::from_millis(10), run.task).await;
    assert!(
        joined.is_ok(),
        "reflector did not stop promptly during backoff"
    );
    assert_eq!(run.status.borrow().state, ReflectorState::Stopped);
    assert_eq!(fake.list_calls().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn relists_at_a_specific_rv_are_unpaged_when_the_first_list_came_whole() {
    // The first list at RV "0" came back whole (a watch cache ignores `limit` there): relists at
    // a specific RV go without `limit`, so the watch cache answers them with data at least as
    // new (with a limit, a real server reads that exact RV from etcd).
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            // A refused watch relists (a 5xx would re-watch without relisting).
            .error_event(Error::Forbidden("rbac changed".into()))
            .then_hang(),
    );
    fake.push_list_page(vec![cm("a", "12")], "12", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    let lists = fake.list_calls();
    assert_eq!(rvs(&lists), vec![Some("0".into()), Some("10".into())]);
    assert_eq!(lists[0].limit, Some(500));
    assert_eq!(
        lists[1].limit, None,
        "a relist at an RV must not be an exact read"
    );
    assert_eq!(lists[1].resource_version_match, None);
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn relists_stay_paged_when_the_server_paged_the_first_list() {
    // client-go's paginatedResult: a server that pages RV "0" has no watch cache to protect.
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", Some("c1"));
    fake.push_list_page(vec![cm("b", "6")], "10", None);
    fake.push_watch(
        WatchScript::new()
            // A refused watch relists (a 5xx would re-watch without relisting).
            .error_event(Error::Forbidden("rbac changed".into()))
            .then_hang(),
    );
    fake.push_list_page(vec![cm("a", "12")], "12", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    let lists = fake.list_calls();
    assert_eq!(lists.len(), 3);
    assert_eq!(lists[2].resource_version.as_deref(), Some("10"));
    assert_eq!(lists[2].limit, Some(500));
    run.stop().await;
}

/// The sequence seen on a real API server after a restart: synced at RV 21979, the new watch
/// cache starts at 22066, the watch from 21979 gets 410, and a relist at 21979 is answered with
/// the state at 21979 again (a server reading that exact RV). Watching from it would get the same
/// 410 forever; the reflector must follow with a consistent read at once.
async fn restart_livelock_sequence(first_list_paged: bool) {
    let fake = FakeListerWatcher::shared();
    if first_list_paged {
        fake.push_list_page(vec![cm("a", "21000")], "21979", Some("c1"));
        fake.push_list_page(vec![cm("b", "21500")], "21979", None);
    } else {
        fake.push_list_page(vec![cm("a", "21000"), cm("b", "21500")], "21979", None);
    }
    let too_old = || Error::Gone("too old resource version: 21979 (22066)".into());
    fake.push_watch(WatchScript::new().error_event(too_old()).then_hang());
    // The relist: the old state at the RV asked for, as an exact read answers it.
    fake.push_list_page(vec![cm("a", "21000"), cm("b", "21500")], "21979", None);
    // The consistent read: today's state.
    fake.push_list_page(vec![cm("a", "22100")], "22466", None);
    fake.push_watch(WatchScript::new().then_hang());
    // If the reflector watched from 21979 again, the server would refuse it again.
    fake.push_watch(WatchScript::new().error_event(too_old()).then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    // First pages of each list (a continue page carries no RV).
    let lists = fake.list_calls();
    let firsts: Vec<usize> = (0..lists.len())
        .filter(|&i| lists[i].continue_token.is_none())
        .collect();
    let first_lists: Vec<ListOptions> = firsts.iter().map(|&i| lists[i].clone()).collect();
    assert_eq!(
        rvs(&first_lists),
        vec![Some("0".into()), Some("21979".into()), Some("".into())]
    );
    let times = fake.list_call_times();
    assert_eq!(
        times[firsts[2]], times[firsts[1]],
        "the consistent read follows the stale list at once"
    );
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("22466"),
        "the watch resumes from the consistent read, not from the RV it was refused"
    );
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["a@22100"]), "22466".into()))
    );
    let status = run.stop().await;
    assert_eq!(status.last_sync_resource_version, "22466");
    assert_eq!(status.relists, 1, "the stale list is never applied");
}

#[tokio::test(start_paused = true)]
async fn a_relist_no_newer_than_the_expired_watch_rv_is_followed_by_a_consistent_read() {
    restart_livelock_sequence(false).await;
}

#[tokio::test(start_paused = true)]
async fn a_paged_relist_no_newer_than_the_expired_watch_rv_is_followed_by_a_consistent_read() {
    restart_livelock_sequence(true).await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_relist_no_newer_than_the_expired_watch_rv_streams_consistently() {
    let fake = FakeListerWatcher::shared();
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "21000"))
            .bookmark("21979", true)
            .error_event(Error::Gone(
                "too old resource version: 21979 (22066)".into(),
            ))
            .then_hang(),
    );
    // A server answering the streaming relist with the old state.
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "21000"))
            .bookmark("21979", true)
            .then_hang(),
    );
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "22100"))
            .bookmark("22466", true)
            .then_hang(),
    );
    let run = start(&fake, streaming());
    fake.wait_for_watch_calls(3).await;
    let calls = fake.watch_calls();
    let rvs: Vec<Option<&str>> = calls
        .iter()
        .map(|c| c.resource_version.as_deref())
        .collect();
    assert_eq!(rvs, vec![Some(""), Some("21979"), Some("")]);
    assert!(calls.iter().all(|c| c.send_initial_events));
    let mut status = run.status.clone();
    status
        .wait_for(|s| s.last_sync_resource_version == "22466")
        .await
        .unwrap();
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["a@22100"]), "22466".into()))
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn request_watch_progress_disabled_falls_back_to_lists_and_says_so() {
    let fake = FakeListerWatcher::shared();
    fake.push_watch(WatchScript::new().error_event(Error::Api {
        code: 500,
        reason: "InternalError".into(),
        message: "a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled".into(),
    }));
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, streaming());
    assert_eq!(run.status.borrow().list_mode, ListMode::Streaming);
    fake.wait_for_watch_calls(2).await;
    assert_eq!(rvs(&fake.list_calls()), vec![Some("0".into())]);
    assert!(!fake.watch_calls()[1].send_initial_events);
    let status = run.stop().await;
    assert_eq!(status.list_mode, ListMode::PagedAfterRefusal);
}

// ---------------------------------------------------------------------------------------
// Fidelity with client-go (issue 11): ERROR events inside a watch, resync failures.

/// client-go `TestBackoffOnTooManyRequests`: a 429, on the watch request or as an ERROR event
/// inside an open watch, backs off and watches again from the last RV; never a relist.
#[tokio::test(start_paused = true)]
async fn too_many_requests_error_event_backs_off_and_rewatches_from_last_rv() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch_error(Error::TooManyRequests("slow down".into()));
    fake.push_watch(
        WatchScript::new()
            .modified(cm("a", "11"))
            .error_event(Error::TooManyRequests("still too many".into()))
            .then_hang(),
    );
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(3).await;
    assert_eq!(fake.list_calls().len(), 1, "a 429 must not relist");
    let rvs: Vec<Option<String>> = fake
        .watch_calls()
        .iter()
        .map(|w| w.resource_version.clone())
        .collect();
    assert_eq!(
        rvs,
        vec![Some("10".into()), Some("10".into()), Some("11".into())],
        "each watch starts from the last synced RV"
    );
    let t = fake.watch_call_times();
    assert_eq!(t[1] - t[0], Duration::from_millis(800));
    assert_eq!(t[2] - t[1], Duration::from_millis(1600), "backed off again");
    let status = run.stop().await;
    assert_eq!(status.relists, 0);
    assert!(matches!(status.last_error, Some(Error::TooManyRequests(_))));
}

/// An ERROR event with a 5xx (etcd "no leader") re-watches from the last RV after the backoff
/// (documented difference: client-go relists unless `MaxInternalErrorRetryDuration` is set).
#[tokio::test(start_paused = true)]
async fn internal_error_event_backs_off_and_rewatches_from_last_rv() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .bookmark("14", false)
            .error_event(Error::Api {
                code: 500,
                reason: "InternalError".into(),
                message: "etcdserver: no leader".into(),
            })
            .then_hang(),
    );
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.list_calls().len(), 1, "a 500 event must not relist");
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("14")
    );
    let t = fake.watch_call_times();
    assert_eq!(t[1] - t[0], Duration::from_millis(800));
    assert_eq!(run.stop().await.relists, 0);
}

/// "Too large resource version" as an ERROR event relists (like 410).
#[tokio::test(start_paused = true)]
async fn too_large_resource_version_error_event_relists() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .error_event(Error::TooLargeResourceVersion("not yet".into()))
            .then_hang(),
    );
    fake.push_list_page(vec![cm("a", "5")], "12", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some("10".into())]
    );
    assert_eq!(run.stop().await.relists, 1);
}

/// A store whose `resync` fails on the `fail_on`-th call (and only then).
struct FailingResyncStore {
    inner: RecordingStore,
    resyncs: AtomicU32,
    fail_on: u32,
}

impl ReflectorStore<ConfigMap> for FailingResyncStore {
    fn add(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
        self.inner.add(obj)
    }
    fn update(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
        self.inner.update(obj)
    }
    fn delete(&self, obj: Arc<ConfigMap>) -> Result<(), Error> {
        self.inner.delete(obj)
    }
    fn replace(&self, list: Vec<Arc<ConfigMap>>, rv: &str) -> Result<(), Error> {
        self.inner.replace(list, rv)
    }
    fn prepare(&self, obj: ConfigMap) -> Arc<ConfigMap> {
        self.inner.prepare(obj)
    }
    fn resync(&self) -> Result<(), Error> {
        let n = self.resyncs.fetch_add(1, Ordering::SeqCst) + 1;
        self.inner.push(Rec::Resync);
        if n == self.fail_on {
            Err(Error::Closed)
        } else {
            Ok(())
        }
    }
}

/// client-go `TestReflectorResync`: when the store's resync fails the watch ends (exactly two
/// resyncs with a 1 ms period, not one every millisecond) and the reflector relists after the
/// backoff.
#[tokio::test(start_paused = true)]
async fn failed_resync_ends_the_watch_and_relists_after_backoff() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let store = Arc::new(FailingResyncStore {
        inner: RecordingStore::default(),
        resyncs: AtomicU32::new(0),
        fail_on: 2,
    });
    let reflector = Reflector::new(
        fake.clone(),
        store.clone(),
        ReflectorConfig {
            resync_period: Some(Duration::from_millis(1)),
            ..config()
        },
    );
    let status = reflector.status();
    let cancel = CancellationToken::new();
    let task = tokio::spawn(reflector.run(cancel.clone()));
    fake.wait_for_list_calls(2).await;
    let t = fake.list_call_times();
    let w = fake.watch_call_times();
    // Watch opened at t0; resyncs at +1 ms and +2 ms (the second fails); backoff 800 ms.
    assert_eq!(t[1] - w[0], Duration::from_millis(2 + 800));
    let ops = store.inner.ops();
    assert_eq!(
        ops[..3],
        [
            Rec::Replace(tags(&["a@5"]), "10".into()),
            Rec::Resync,
            Rec::Resync
        ],
        "exactly two resyncs before the watch ended: {ops:?}"
    );
    assert_eq!(
        ops[3],
        Rec::Replace(tags(&["a@5"]), "10".into()),
        "relisted"
    );
    cancel.cancel();
    let _ = task.await;
    let status = status.borrow().clone();
    assert_eq!(status.relists, 1);
    assert_eq!(status.last_error, Some(Error::Closed));
}

/// client-go raises `MinWatchTimeout` below 5 min to 5 min; we honour it (documented
/// difference, used by the chaos tests), and the default is client-go's 5 min.
#[tokio::test(start_paused = true)]
async fn min_watch_timeout_below_five_minutes_is_honoured_and_default_is_five() {
    assert_eq!(
        ReflectorConfig::default().min_watch_timeout,
        Duration::from_secs(300)
    );
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(
        &fake,
        ReflectorConfig {
            min_watch_timeout: Duration::from_secs(5),
            ..config()
        },
    );
    fake.wait_for_watch_calls(1).await;
    let timeout = fake.watch_calls()[0].timeout_seconds.unwrap_or(0);
    assert!((5..10).contains(&timeout), "{timeout}");
    run.stop().await;
}

mod ported;
mod probe;
mod rewind;

mod listing;
