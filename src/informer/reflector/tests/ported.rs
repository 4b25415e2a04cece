//! client-go's `reflector_test.go`, ported where our tests did not already cover the case. Each
//! test names the client-go test it ports.

use super::*;
use crate::informer::list_watch::{WatchEvent, decode_watch_line};

/// `TestReflectorWatchStoppedBefore`: a reflector cancelled before it starts neither lists nor
/// watches.
#[tokio::test(start_paused = true)]
async fn reflector_cancelled_before_start_neither_lists_nor_watches() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_list_page(vec![cm("a", "1")], "1", None);
    fake.push_watch(WatchScript::new().then_hang());
    for streaming_list in [false, true] {
        let store = Arc::new(RecordingStore::default());
        let reflector = Reflector::new(
            fake.clone(),
            store.clone(),
            ReflectorConfig {
                use_streaming_list: streaming_list,
                ..config()
            },
        );
        let cancel = CancellationToken::new();
        cancel.cancel();
        reflector.run(cancel).await;
        assert!(
            fake.list_calls().is_empty(),
            "listed (streaming: {streaming_list})"
        );
        assert!(
            fake.watch_calls().is_empty(),
            "watched (streaming: {streaming_list})"
        );
        assert!(store.ops().is_empty());
    }
}

/// `TestReflectorReplacesStoreOnUnsafeDelete`: a corrupt object's unsafe deletion reaches the
/// watch as a 500 `StorageReadError` ERROR event; the reflector relists (re-watching would meet the
/// same undecodable event), and the list's `replace` removes the object.
#[tokio::test(start_paused = true)]
async fn store_read_error_event_relists_so_an_unsafely_deleted_object_leaves_the_store() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    let pods = || vec![cm("foo-1", "1"), cm("foo-2", "2"), cm("foo-3", "3")];
    fake.push_list_page(pods(), "3", None);
    fake.push_watch(
        WatchScript::new()
            .added(cm("foo", "4"))
            .error_event(Error::Api {
                code: 500,
                reason: "StorageReadError".into(),
                message: "failed to prepare current and previous objects: corrupt object has \
                          been deleted"
                    .into(),
            })
            .then_hang(),
    );
    fake.push_list_page(pods(), "5", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(2).await;
    let listed = tags(&["foo-1@1", "foo-2@2", "foo-3@3"]);
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(listed.clone(), "3".into()),
            Rec::Add("foo@4".into()),
            Rec::Replace(listed, "5".into()),
        ]
    );
    assert_eq!(
        rvs(&fake.list_calls()),
        vec![Some("0".into()), Some("4".into())]
    );
    let status = run.stop().await;
    assert_eq!(status.last_sync_resource_version, "5");
}

/// `TestReflectorFullListIfTooLarge`'s three server formats of "too large resource version" (and
/// today's), recognised as client-go's `isTooLargeResourceVersionError` does: by the cause type;
/// on a 504 Timeout, by a cause message (1.17.0–1.18.5) or the status message (before 1.17). The
/// message alone on another status is not enough.
#[test]
fn too_large_resource_version_is_recognised_in_every_server_format() {
    let event = |status: &str| {
        let line = format!(
            r#"{{"type":"ERROR","object":{{"kind":"Status","apiVersion":"v1","status":"Failure",{status}}}}}"#
        );
        match decode_watch_line::<ConfigMap>(&line) {
            Some(WatchEvent::Error(e)) => e,
            other => panic!("not an ERROR event: {other:?}"),
        }
    };
    let too_large = [
        // Cause type (API servers since 1.18.6).
        r#""code":504,"reason":"Timeout","message":"Timeout: too large resource version","details":{"causes":[{"reason":"ResourceVersionTooLarge"}]}"#,
        // Cause message only (1.17.0-1.18.5).
        r#""code":504,"reason":"Timeout","message":"Timeout: too large resource version","details":{"causes":[{"message":"Too large resource version"}]}"#,
        // Status message only (before 1.17).
        r#""code":504,"reason":"Timeout","message":"Timeout: Too large resource version""#,
        // Today's kube-apiserver: both.
        r#""code":504,"reason":"Timeout","message":"Timeout: Too large resource version: 20, current: 10","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1}"#,
    ];
    for status in too_large {
        let err = event(status);
        assert!(
            matches!(err, Error::TooLargeResourceVersion(_)),
            "{status} -> {err:?}"
        );
        assert!(err.is_expired(), "relists with a consistent read");
    }
    // Not a timeout: the message does not make it one.
    let err =
        event(r#""code":500,"reason":"InternalError","message":"Too large resource version""#);
    assert!(matches!(err, Error::Api { code: 500, .. }), "{err:?}");
    // Expired and Gone (client-go's `isExpiredError`, both reasons for 1.17 servers).
    for reason in ["Expired", "Gone"] {
        let err = event(&format!(
            r#""code":410,"reason":"{reason}","message":"too old resource version: 1 (5)""#
        ));
        assert!(matches!(err, Error::Gone(_)), "{reason} -> {err:?}");
    }
}

/// `TestReflectorRespectStoreTransformer`: in a streaming list, the store's `replace` receives
/// exactly the objects before the initial-events-end bookmark, each prepared (transformed) once
/// (`replace` takes prepared `Arc`s only, so they cannot reach it untransformed).
#[tokio::test(start_paused = true)]
async fn streaming_list_prepares_every_object_before_replace() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_watch(
        WatchScript::new()
            .added(cm("foo-1", "1"))
            .added(cm("foo-2", "2"))
            .bookmark("3", true)
            .added(cm("foo-3", "3"))
            .then_hang(),
    );
    let run = start(&fake, streaming());
    run.store.wait_ops(2).await;
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(tags(&["foo-1@1", "foo-2@2"]), "3".into()),
            Rec::Add("foo-3@3".into()),
        ]
    );
    assert_eq!(*run.store.prepared.lock(), 3, "each object prepared once");
    assert!(
        fake.list_calls().is_empty(),
        "no list call in streaming mode"
    );
    let status = run.stop().await;
    assert_eq!(status.last_sync_resource_version, "3");
}

/// `TestNoRelistOnTooManyRequests`: four 429 answers to watch requests back off and watch again,
/// never relisting.
#[tokio::test(start_paused = true)]
async fn too_many_requests_on_watch_requests_never_relists() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_list_page(vec![cm("a", "1")], "1", None);
    for _ in 0..4 {
        fake.push_watch_error(Error::TooManyRequests("too many requests".into()));
    }
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_watch_calls(5).await;
    assert_eq!(fake.list_calls().len(), 1);
    assert!(
        fake.watch_calls()
            .iter()
            .all(|w| w.resource_version.as_deref() == Some("1"))
    );
    run.stop().await;
}

/// `TestWatchList` ("check if stopping a watcher before sync results in creating a new watch-list
/// request"): a streaming list closed before its initial-events-end bookmark (and before its
/// timeout) is requested again as a streaming list, not refused; the unfinished list is dropped.
#[tokio::test(start_paused = true)]
async fn streaming_list_closed_before_its_bookmark_streams_again() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_watch(WatchScript::new().added(cm("p1", "1")).then_close());
    fake.push_watch(
        WatchScript::new()
            .added(cm("p1", "1"))
            .bookmark("1", true)
            .then_hang(),
    );
    let run = start(&fake, streaming());
    run.store.wait_ops(1).await;
    assert!(fake.list_calls().is_empty(), "no fallback to a paged list");
    let w = fake.watch_calls();
    assert_eq!(w.len(), 2);
    assert!(w.iter().all(|w| w.send_initial_events));
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(tags(&["p1@1"]), "1".into())]
    );
    let status = run.stop().await;
    assert_eq!(status.list_mode, ListMode::Streaming, "still streaming");
}

/// `TestWatchList` ("check if Updates and Deletes events are propagated during streaming (until
/// the bookmark is received)"): the list a streaming list replaces the store with is the state at
/// the bookmark, modifications and deletions during the stream included.
#[tokio::test(start_paused = true)]
async fn streaming_list_applies_updates_and_deletes_received_before_its_bookmark() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_watch(
        WatchScript::new()
            .added(cm("p1", "1"))
            .added(cm("p2", "2"))
            .modified(cm("p1", "3"))
            .added(cm("p3", "4"))
            .deleted(cm("p3", "5"))
            .bookmark("5", true)
            .then_hang(),
    );
    let run = start(&fake, streaming());
    run.store.wait_ops(1).await;
    assert_eq!(
        run.store.ops(),
        vec![Rec::Replace(tags(&["p1@3", "p2@2"]), "5".into())]
    );
    run.stop().await;
}

/// `TestWatchList` ("stopping a watcher after synchronization results in creating a new watch
/// request"): once a streaming list has ended, a closed watch is reopened as a plain watch from
/// the last RV, not as another streaming list.
#[tokio::test(start_paused = true)]
async fn watch_closed_after_a_streaming_list_reopens_as_a_plain_watch() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_watch(
        WatchScript::new()
            .added(cm("p1", "1"))
            .added(cm("p2", "2"))
            .bookmark("2", true)
            .added(cm("p3", "3"))
            .then_close(),
    );
    fake.push_watch(WatchScript::new().added(cm("p4", "4")).then_hang());
    let run = start(&fake, streaming());
    run.store.wait_ops(3).await;
    let w = fake.watch_calls();
    assert_eq!(w.len(), 2);
    assert!(w[0].send_initial_events);
    assert!(!w[1].send_initial_events, "a plain watch");
    assert_eq!(w[1].resource_version.as_deref(), Some("3"));
    assert!(fake.list_calls().is_empty());
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(tags(&["p1@1", "p2@2"]), "2".into()),
            Rec::Add("p3@3".into()),
            Rec::Add("p4@4".into()),
        ]
    );
    run.stop().await;
}

/// `TestWatchList` ("returning any other error than apierrors.NewInvalid forces fallback"): a
/// streaming list failing with a server error is followed by a paged list and a plain watch in
/// that round; streaming stays on, so the next relist streams again.
#[tokio::test(start_paused = true)]
async fn server_error_on_a_streaming_list_lists_once_and_streams_again_next_time() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_watch_error(Error::Api {
        code: 503,
        reason: "ServiceUnavailable".into(),
        message: "dummy error".into(),
    });
    fake.push_list_page(vec![cm("p1", "1")], "10", None);
    fake.push_watch(
        WatchScript::new()
            .added(cm("p2", "11"))
            .error_event(Error::Gone("compacted".into()))
            .then_hang(),
    );
    fake.push_watch(
        WatchScript::new()
            .added(cm("p1", "1"))
            .added(cm("p2", "11"))
            .bookmark("12", true)
            .then_hang(),
    );
    let run = start(&fake, streaming());
    fake.wait_for_watch_calls(3).await;
    run.store.wait_ops(3).await;
    assert_eq!(rvs(&fake.list_calls()), vec![Some("0".into())]);
    let w = fake.watch_calls();
    assert_eq!(
        w.iter().map(|w| w.send_initial_events).collect::<Vec<_>>(),
        vec![true, false, true]
    );
    assert_eq!(w[1].resource_version.as_deref(), Some("10"));
    assert_eq!(
        run.store.ops(),
        vec![
            Rec::Replace(tags(&["p1@1"]), "10".into()),
            Rec::Add("p2@11".into()),
            Rec::Replace(tags(&["p1@1", "p2@11"]), "12".into()),
        ]
    );
    let status = run.stop().await;
    assert_eq!(status.list_mode, ListMode::Streaming);
}
