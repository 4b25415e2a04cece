//! A list in progress: its published progress and the listing log views read it from.

use super::*;
use crate::informer::listing::{
    ListProgress, ListSizeHint, ListTotal, ListedItem, ListingCursor, ListingLog, ListingPhase,
};

fn start_with_log(
    fake: &Arc<FakeListerWatcher<ConfigMap>>,
    config: ReflectorConfig,
) -> (Running, Arc<ListingLog<ConfigMap>>) {
    let store = Arc::new(RecordingStore::default());
    let log = Arc::new(ListingLog::new());
    let reflector =
        Reflector::new(fake.clone(), store.clone(), config).with_listing_log(log.clone());
    let status = reflector.status();
    let cancel = CancellationToken::new();
    let task = tokio::spawn(reflector.run(cancel.clone()));
    let run = Running {
        store,
        status,
        cancel,
        task,
        started: Instant::now(),
    };
    (run, log)
}

fn progress(run: &Running) -> Option<ListProgress> {
    run.status.borrow().list_progress.clone()
}

/// `+name@rv` for an object, `-key` for a key gone.
fn entries(items: &[ListedItem<ConfigMap>]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            ListedItem::Object(o) => format!("+{}", tag(o)),
            ListedItem::Gone(k) => format!("-{k}"),
        })
        .collect()
}

fn page(names: &[&str], cont: Option<&str>, remaining: Option<i64>) -> ListPage<ConfigMap> {
    ListPage {
        items: names.iter().map(|n| cm(n, "5")).collect(),
        resource_version: "10".into(),
        continue_token: cont.map(str::to_string),
        remaining_item_count: remaining,
        malformed: 0,
    }
}

#[tokio::test(start_paused = true)]
async fn a_paged_list_publishes_its_objects_and_the_servers_total_until_it_ends() {
    let fake = FakeListerWatcher::shared();
    fake.push_list(Ok(page(&["a", "b"], Some("c1"), Some(3))));
    let (run, log) = start_with_log(&fake, config());
    let mut cursor = ListingCursor::default();
    // The second page is asked for: the first one is in.
    fake.wait_for_list_calls(2).await;
    let p = progress(&run).expect("listing");
    assert_eq!(p.objects, 2);
    assert_eq!(p.total, Some(ListTotal::Exact(5)));
    assert_eq!(p.fraction(), Some(0.4));
    assert_eq!(p.bytes, None, "the fake does not count bytes");
    assert_eq!(run.status.borrow().state, ReflectorState::Listing);
    let read = log.read(&mut cursor, 100);
    assert_eq!(entries(&read.items), vec!["+a@5", "+b@5"]);
    assert_eq!(read.phase, ListingPhase::Listing);
    assert!(run.store.ops().is_empty(), "the store gets the list whole");

    fake.push_list(Ok(page(&["c", "d", "e"], None, None)));
    fake.push_watch(WatchScript::new().then_hang());
    fake.wait_for_watch_calls(1).await;
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(
            tags(&["a@5", "b@5", "c@5", "d@5", "e@5"]),
            "10".into()
        )]
    );
    assert_eq!(progress(&run), None, "no progress once listed");
    let read = log.read(&mut cursor, 100);
    assert_eq!(read.ended, Some(ListingPhase::Done));
    assert!(
        read.items.is_empty(),
        "what came after the last read goes to the store"
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_relist_estimates_its_total_from_the_count_of_the_scopes_last_list() {
    let fake = FakeListerWatcher::shared();
    // Another informer of this scope listed 7 objects earlier in the session.
    let hint = ListSizeHint::default();
    hint.set(7);
    let (run, _log) = start_with_log(
        &fake,
        ReflectorConfig {
            list_size_hint: Some(hint.clone()),
            ..config()
        },
    );
    fake.wait_for_list_calls(1).await;
    assert_eq!(
        progress(&run).and_then(|p| p.total),
        Some(ListTotal::Estimate(7))
    );
    fake.push_list(Ok(page(&["a", "b", "c"], None, None)));
    fake.push_watch(WatchScript::new().error_event(Error::Gone("too old".into())));
    // The relist after the 410 waits for its answer: its estimate is the first list's count.
    fake.wait_for_list_calls(2).await;
    let p = progress(&run).expect("relisting");
    assert_eq!((p.objects, p.total), (0, Some(ListTotal::Estimate(3))));
    assert_eq!(
        hint.get(),
        Some(3),
        "the scope's count is kept for later informers"
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_streaming_list_shows_its_objects_and_deletions_before_the_store_gets_them() {
    let fake = FakeListerWatcher::shared();
    fake.push_watch(
        WatchScript::new()
            .added(cm("a", "5"))
            .added(cm("b", "6"))
            .deleted(cm("a", "7"))
            .sleep(Duration::from_secs(5))
            .bookmark("8", true)
            .then_hang(),
    );
    let (run, log) = start_with_log(&fake, streaming());
    let mut changed = log.subscribe();
    let mut cursor = ListingCursor::default();
    let mut seen = Vec::new();
    while seen.len() < 3 {
        changed.changed().await.expect("log open");
        seen.extend(entries(&log.read(&mut cursor, 100).items));
    }
    assert_eq!(seen, vec!["+a@5", "+b@6", "-default/a"]);
    assert!(run.store.ops().is_empty());
    assert_eq!(progress(&run).map(|p| p.objects), Some(1));

    run.store.wait_ops(1).await;
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(tags(&["b@6"]), "8".into())]
    );
    assert_eq!(log.read(&mut cursor, 100).ended, Some(ListingPhase::Done));
    assert_eq!(progress(&run), None);
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_list_that_fails_midway_ends_its_attempt_as_aborted() {
    let fake = FakeListerWatcher::shared();
    fake.push_list(Ok(page(&["a"], Some("c1"), Some(1))));
    fake.push_list_error(Error::Connect("connection reset".into()));
    let (run, log) = start_with_log(&fake, config());
    let mut cursor = ListingCursor::default();
    fake.wait_for_list_calls(2).await;
    // The reflector backs off: the attempt is over, nothing reached the store.
    let mut status = run.status.clone();
    status
        .wait_for(|s| matches!(s.state, ReflectorState::Backoff { .. }))
        .await
        .expect("status");
    let read = log.read(&mut cursor, 100);
    assert_eq!(read.ended, Some(ListingPhase::Aborted));
    assert!(run.store.ops().is_empty());
    assert_eq!(progress(&run), None);
    run.stop().await;
}
