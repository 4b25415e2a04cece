//! The history check (see `reflector/rewind.rs`): a server whose history went back is noticed
//! after a reconnect, on demand and from an older watch event, and the store is listed again.

use super::*;
use crate::informer::list_watch::HistoryMark;

fn mark(rv: &str, uid: &str) -> Result<HistoryMark, Error> {
    Ok(HistoryMark {
        resource_version: rv.to_string(),
        total: Some(2),
        cluster_uid: Some(uid.to_string()),
    })
}

fn connect() -> Error {
    Error::Connect("tcp connect error: Connection refused".into())
}

/// `start`, keeping the reflector's control.
fn start_with_control(fake: &Arc<FakeListerWatcher<ConfigMap>>) -> (Running, ReflectorControl) {
    let store = Arc::new(RecordingStore::default());
    let reflector = Reflector::new(fake.clone(), store.clone(), config());
    let status = reflector.status();
    let control = reflector.control();
    let cancel = CancellationToken::new();
    let task = tokio::spawn(reflector.run(cancel.clone()));
    (
        Running {
            store,
            status,
            cancel,
            task,
            started: Instant::now(),
        },
        control,
    )
}

/// Synced at RV 10 (a@5, b@6), then the watch fails as unreachable; `after` is what the
/// server's history check says once it is back.
async fn reconnect_to(
    after: Result<HistoryMark, Error>,
) -> (Arc<FakeListerWatcher<ConfigMap>>, Running) {
    let fake = FakeListerWatcher::shared();
    fake.set_history(mark("10", "uid-1"));
    fake.push_list_page(vec![cm("a", "5"), cm("b", "6")], "10", None);
    fake.push_watch_error(connect());
    let (run, _) = start_with_control(&fake);
    fake.wait_for_watch_calls(1).await;
    assert_eq!(fake.history_calls(), 1, "one check before the first list");
    fake.set_history(after);
    (fake, run)
}

#[tokio::test(start_paused = true)]
async fn a_reconnect_to_a_server_whose_revision_went_back_relists_from_scratch() {
    let (fake, mut run) = reconnect_to(mark("3", "uid-1")).await;
    fake.push_list_page(vec![cm("a", "2")], "3", None);
    fake.push_watch(WatchScript::new().then_hang());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.history_calls(), 2, "one check after the reconnect");
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some(String::new())],
        "the relist is a consistent read: RV 10 means nothing to this server"
    );
    assert_eq!(fake.watch_calls()[1].resource_version.as_deref(), Some("3"));
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["a@2"]), "3".into())),
        "the store is replaced: b is gone"
    );
    run.status
        .wait_for(|s| s.state == ReflectorState::Watching)
        .await
        .unwrap();
    let status = run.stop().await;
    assert_eq!(status.history_resets, 1);
    assert_eq!(
        status.last_history_reset.map(|r| r.to_string()).as_deref(),
        Some("history went back (RV 10 → 3: etcd restored or cluster re-created); listed again")
    );
    assert!(!status.stale, "the relist made the store current");
}

#[tokio::test(start_paused = true)]
async fn a_reconnect_to_a_recreated_cluster_relists_even_at_a_higher_revision() {
    let (fake, run) = reconnect_to(mark("50", "uid-2")).await;
    fake.push_list_page(vec![cm("c", "40")], "50", None);
    fake.push_watch(WatchScript::new().then_hang());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.list_calls().len(), 2);
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["c@40"]), "50".into()))
    );
    let status = run.stop().await;
    assert_eq!(
        status.last_history_reset.map(|r| r.cause),
        Some(RewindCause::NewCluster)
    );
}

#[tokio::test(start_paused = true)]
async fn a_reconnect_to_the_same_history_watches_on_from_the_last_rv_and_clears_the_error() {
    let (fake, mut run) = reconnect_to(mark("12", "uid-1")).await;
    run.status.wait_for(|s| s.stale).await.unwrap();
    fake.push_watch(WatchScript::new().then_hang());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.history_calls(), 2);
    assert_eq!(fake.list_calls().len(), 1, "no relist");
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("10")
    );
    let status = run.stop().await;
    assert_eq!(status.history_resets, 0);
    assert!(
        !status.stale,
        "the check found the server where the store left it"
    );
    assert_eq!(status.server_resource_version.as_deref(), Some("12"));
}

#[tokio::test(start_paused = true)]
async fn an_unknown_identity_is_never_a_new_cluster() {
    let (fake, run) = reconnect_to(Ok(HistoryMark {
        resource_version: "12".into(),
        total: None,
        cluster_uid: None,
    }))
    .await;
    fake.push_watch(WatchScript::new().then_hang());
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.list_calls().len(), 1);
    assert_eq!(run.stop().await.history_resets, 0);
}

#[tokio::test(start_paused = true)]
async fn a_watch_event_older_than_the_last_one_relists() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .modified(cm("a", "11"))
            .added(cm("z", "4"))
            .then_hang(),
    );
    fake.push_list_page(vec![cm("z", "4")], "4", None);
    fake.push_watch(WatchScript::new().then_hang());
    let (run, _) = start_with_control(&fake);
    fake.wait_for_watch_calls(2).await;
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some(String::new())]
    );
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(tags(&["a@5"]), "10".into()),
            Rec::Update("a@11".into()),
            Rec::Replace(tags(&["z@4"]), "4".into()),
        ],
        "the older event is not applied; the relist replaces the store"
    );
    let status = run.stop().await;
    assert_eq!(
        status.last_history_reset.map(|r| (r.cause, r.from, r.to)),
        Some((RewindCause::OlderWatchEvent, "11".into(), "4".into()))
    );
}

#[tokio::test(start_paused = true)]
async fn ctrl_r_checks_the_history_of_an_open_watch() {
    let fake = FakeListerWatcher::shared();
    fake.set_history(mark("10", "uid-1"));
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    fake.push_watch(WatchScript::new().then_hang());
    let (run, control) = start_with_control(&fake);
    fake.wait_for_watch_calls(1).await;
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(fake.history_calls(), 1, "no request in steady state");
    control.check_history();
    fake.wait_for_watch_calls(2).await;
    assert_eq!(fake.history_calls(), 2);
    assert_eq!(fake.list_calls().len(), 1);
    assert_eq!(
        fake.watch_calls()[1].resource_version.as_deref(),
        Some("10")
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_requested_relist_is_a_consistent_read_that_replaces_the_store() {
    let fake = FakeListerWatcher::shared();
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    fake.push_watch(WatchScript::new().then_hang());
    fake.push_list_page(vec![cm("b", "12")], "12", None);
    fake.push_watch(WatchScript::new().then_hang());
    let (run, control) = start_with_control(&fake);
    fake.wait_for_watch_calls(1).await;
    control.relist();
    fake.wait_for_watch_calls(2).await;
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some(String::new())]
    );
    assert_eq!(
        run.store.ops().last(),
        Some(&Rec::Replace(tags(&["b@12"]), "12".into()))
    );
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_watch_cut_off_before_its_timeout_checks_the_history_and_one_that_ran_out_does_not() {
    let fake = FakeListerWatcher::shared();
    fake.set_history(mark("10", "uid-1"));
    fake.push_list_page(vec![cm("a", "5")], "10", None);
    // Cut after 5 s (the timeout is at least 300 s): a restarted server.
    fake.push_watch(
        WatchScript::new()
            .sleep(Duration::from_secs(5))
            .then_close(),
    );
    // Runs past any timeout it was given (under 600 s): a timeout.
    fake.push_watch(
        WatchScript::new()
            .sleep(Duration::from_secs(601))
            .then_close(),
    );
    fake.push_watch(WatchScript::new().then_hang());
    let (run, _) = start_with_control(&fake);
    fake.wait_for_watch_calls(2).await;
    assert_eq!(
        fake.history_calls(),
        2,
        "the cut watch was followed by a check"
    );
    fake.wait_for_watch_calls(3).await;
    assert_eq!(fake.history_calls(), 2, "a watch that timed out is not");
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn the_first_list_knows_its_total_from_the_history_check() {
    let fake = FakeListerWatcher::shared();
    fake.set_history(mark("10", "uid-1"));
    let (run, _) = start_with_control(&fake);
    // The list is asked and not answered yet: its progress already has the server's count.
    fake.wait_for_list_calls(1).await;
    let total = run
        .status
        .borrow()
        .list_progress
        .as_ref()
        .and_then(|p| p.total);
    assert_eq!(total, Some(ListTotal::Exact(2)));
    run.stop().await;
}
