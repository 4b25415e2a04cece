//! Runtime tests over a fake lister-watcher: drill gates, node describe from the index, stats
//! in the frame that carries rows.

use super::*;
use crate::informer::list_watch::{FakeListerWatcher, ListerWatcher, WatchEvent};
use kube::discovery::ApiResource;

fn pods() -> ApiResource {
    ApiResource {
        group: String::new(),
        version: "v1".into(),
        api_version: "v1".into(),
        kind: "Pod".into(),
        plural: "pods".into(),
    }
}

fn pod(name: &str, rv: &str) -> DynamicObject {
    let mut o = DynamicObject::new(name, &pods()).within("default");
    o.metadata.resource_version = Some(rv.into());
    o
}

fn rows() -> Action {
    Action::Rows {
        view: 1,
        upserts: Vec::new(),
        deletes: Vec::new(),
    }
}

fn informer_row(actions: &[Action]) -> Option<InformerRow> {
    actions.iter().find_map(|a| match a {
        Action::InformerStats(rows) => rows.first().cloned(),
        _ => None,
    })
}

async fn until(mut f: impl FnMut() -> bool) {
    for _ in 0..10_000 {
        if f() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("condition not reached");
}

/// A started factory whose informers all read `fake`, listing then watching (the fake
/// scripts list pages; streaming lists are the default).
fn started_factory(fake: &Arc<FakeListerWatcher<DynamicObject>>) -> Arc<SharedInformerFactory> {
    let lw = fake.clone();
    let maker: crate::informer::factory::ListerWatcherMaker =
        Arc::new(move |_, _| lw.clone() as Arc<dyn ListerWatcher<DynamicObject>>);
    let options = FactoryOptions {
        reflector: crate::informer::reflector::ReflectorConfig {
            use_streaming_list: false,
            ..Default::default()
        },
        ..FactoryOptions::default()
    };
    let factory = Arc::new(SharedInformerFactory::new(maker, options));
    factory.start();
    factory
}

fn on_node(name: &str, rv: &str, node: &str) -> DynamicObject {
    let mut o = pod(name, rv);
    o.data = serde_json::json!({ "spec": { "nodeName": node } });
    o
}

/// Every key queued now, without waiting.
fn queued(queue: &RateLimitingQueue<Arc<str>>) -> Vec<String> {
    let mut keys = Vec::new();
    while let Some(Some(k)) = queue.get().now_or_never() {
        queue.done(&k);
        keys.push(k.to_string());
    }
    keys.sort();
    keys
}

/// Issue 11: a drilled view is fed from the drill's index: the cached pods on the node are
/// queued from the node index (the registration's replay of the whole cache is skipped),
/// later changes only when they concern the node, and a widened drill queues the new
/// value's pods.
#[tokio::test]
async fn a_drilled_view_is_fed_only_the_objects_its_index_files_under_the_drill() {
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    fake.push_list_page(
        vec![
            on_node("a", "10", "n1"),
            on_node("b", "11", "n2"),
            on_node("c", "12", "n1"),
        ],
        "12",
        None,
    );
    let live = fake.push_watch_live();
    let factory = started_factory(&fake);
    let informer = factory.informer_for(&pods(), None);
    until(|| {
        informer.has_synced()
            && informer
                .reflector_status()
                .is_some_and(|s| s.borrow().state == ReflectorState::Watching)
    })
    .await;

    let Subscription {
        queue,
        gate,
        registration,
    } = subscribe(&informer, Some(Drill::Node("n1".into())));
    let registration = registration.expect("registered");
    let gate = gate.expect("pods informers have the node index");
    assert!(gate.skip_replay);
    until(|| registration.has_synced()).await;
    assert_eq!(queued(&queue), ["default/a", "default/c"]);

    live.send(Ok(WatchEvent::Added(on_node("d", "13", "n2"))))
        .expect("watch open");
    live.send(Ok(WatchEvent::Added(on_node("e", "14", "n1"))))
        .expect("watch open");
    // Moves off the node: sent once more so the view hides it.
    live.send(Ok(WatchEvent::Modified(on_node("a", "15", "n2"))))
        .expect("watch open");
    until(|| informer.indexer().len() == 5 && queue.len() >= 2).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(queued(&queue), ["default/a", "default/e"]);

    *gate.drill.write() = Drill::Node("n2".into());
    gate.seed(&informer.indexer(), &queue);
    assert_eq!(queued(&queue), ["default/a", "default/b", "default/d"]);
    factory.shutdown().await;
}

/// Issue 14: `d` on a node reads the node's pods from the node index of a synced
/// all-namespaces pods informer (no API call); before it has synced, there is no cached
/// answer (the describe lists by spec.nodeName instead).
#[tokio::test]
async fn node_describe_takes_the_nodes_pods_from_the_node_index_once_synced() {
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    let factory = started_factory(&fake);
    assert!(
        pods_on_node_from_cache(&factory, "n1").is_none(),
        "no informer yet"
    );
    let informer = factory.informer_for(&pods(), None);
    assert!(
        pods_on_node_from_cache(&factory, "n1").is_none(),
        "not synced yet"
    );
    fake.push_list_page(
        vec![
            on_node("a", "10", "n1"),
            on_node("b", "11", "n2"),
            on_node("c", "12", "n1"),
        ],
        "12",
        None,
    );
    let _live = fake.push_watch_live();
    until(|| informer.has_synced()).await;
    let mut names: Vec<String> = pods_on_node_from_cache(&factory, "n1")
        .expect("synced")
        .iter()
        .filter_map(|p| p.metadata.name.clone())
        .collect();
    names.sort();
    assert_eq!(names, ["a", "c"]);
    factory.shutdown().await;
}

/// Issue 11: the header's informer line (count, RV, state) reaches the screen in the frame
/// that carries the rows, not up to a second later; frames without rows compute nothing, and
/// an unchanged informer sends nothing.
#[tokio::test]
async fn informer_stats_go_out_in_the_frame_that_carries_rows() {
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    fake.push_list_page(vec![pod("a", "10"), pod("b", "11")], "11", None);
    let live = fake.push_watch_live();
    let factory = started_factory(&fake);
    let informer = factory.informer_for(&pods(), None);
    let stats = StatsSource::shared(
        factory.clone(),
        "ctx".into(),
        Arc::new(parking_lot::Mutex::new(Some("v1.33".into()))),
    );
    until(|| {
        informer.has_synced()
            && informer
                .reflector_status()
                .is_some_and(|s| s.borrow().state == ReflectorState::Watching)
    })
    .await;

    assert!(
        stats_with_rows(&[Action::Tick(0)], &stats).is_empty(),
        "no rows in the batch: nothing computed"
    );
    let first = stats_with_rows(&[rows()], &stats);
    let row = informer_row(&first).expect("stats with the rows");
    assert_eq!(
        (row.cached, row.last_rv.as_str(), row.synced),
        (2, "11", true)
    );
    assert_eq!(row.state, InformerState::Watching);
    assert!(first.iter().any(|a| matches!(a, Action::Connection(_))));

    live.send(Ok(WatchEvent::Added(pod("c", "12"))))
        .expect("watch open");
    until(|| informer.indexer().len() == 3).await;
    let next = stats_with_rows(&[rows()], &stats);
    let row = informer_row(&next).expect("the change goes out with the rows");
    assert_eq!((row.cached, row.last_rv.as_str()), (3, "12"));
    let row_again = stats_with_rows(&[rows()], &stats);
    // Only the rate may move between two calls; counts and RV are the same.
    if let Some(r) = informer_row(&row_again) {
        assert_eq!((r.cached, r.last_rv.as_str()), (3, "12"));
    }
    factory.shutdown().await;
}

fn in_phase(name: &str, rv: &str, node: &str, phase: &str) -> DynamicObject {
    let mut o = on_node(name, rv, node);
    o.data["status"] = serde_json::json!({ "phase": phase });
    o
}

/// Issue 14: the nodes view's PODS column counts the non-terminated pods per node from the
/// pods informer's node index, sends a count once synced and again only after the pods
/// changed, and stops with the view.
#[tokio::test(start_paused = true)]
async fn pods_per_node_are_counted_from_the_node_index_and_recounted_on_change() {
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    let factory = started_factory(&fake);
    fake.push_list_page(
        vec![
            in_phase("a", "10", "n1", "Running"),
            in_phase("b", "11", "n2", "Pending"),
            in_phase("c", "12", "n1", "Succeeded"),
            in_phase("d", "13", "n1", "Failed"),
        ],
        "13",
        None,
    );
    let live = fake.push_watch_live();
    let client = kube::Client::try_from(kube::Config::new(
        "http://127.0.0.1:9".parse().expect("url"),
    ))
    .expect("client");
    let access = AccessCache::default();
    // No review API: open at once (the informer's own 403 would tell).
    access
        .unavailable
        .store(true, std::sync::atomic::Ordering::Relaxed);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let pods_info = ResourceInfo {
        api_resource: pods(),
        namespaced: true,
        singular: "pod".into(),
        short_names: vec!["po".into()],
        verbs: vec!["list".into(), "watch".into()],
        printer_columns: None,
    };
    let suspend = Suspender::new();
    let task = tokio::spawn(watch_node_pods(
        7,
        pods_info,
        FeedSource {
            factory: factory.clone(),
            client,
            access,
            cluster: None,
        },
        tx,
        cancel.clone(),
        suspend.watcher(),
    ));
    let counts = |a: Option<Action>| match a {
        Some(Action::NodePods(crate::ui::action::NodePods::Counts(c))) => {
            let mut v: Vec<(String, u64)> = c.iter().map(|(k, v)| (k.clone(), *v)).collect();
            v.sort();
            v
        }
        other => panic!("expected counts, got {other:?}"),
    };
    assert_eq!(
        counts(rx.recv().await),
        [("n1".to_string(), 1), ("n2".to_string(), 1)]
    );
    // Nothing changed: no recount goes out.
    tokio::time::sleep(NODE_PODS_PERIOD * 3).await;
    assert!(
        rx.try_recv().is_err(),
        "an unchanged cache is not recounted"
    );
    live.send(Ok(WatchEvent::Added(in_phase("e", "14", "n2", "Running"))))
        .expect("watch open");
    assert_eq!(
        counts(rx.recv().await),
        [("n1".to_string(), 1), ("n2".to_string(), 2)]
    );
    cancel.cancel();
    task.await.expect("task ends with the view");
    factory.shutdown().await;
}

/// A UI slower than the churn: the feed sends at most `ROWS_IN_FLIGHT` batches the frame loop has
/// not taken, then waits with its keys in the workqueue (each once, however often it changed);
/// as batches are taken it sends again, each time the object's state as of then, so nothing is
/// lost and the backlog never grows past the bound.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn row_batches_in_flight_are_bounded_and_the_waiting_keys_send_their_latest_state() {
    use super::feeds::{FeedTarget, ROWS_IN_FLIGHT, RowsInFlight, feed_view};
    let store = Arc::new(ThreadSafeStore::<DynamicObject>::new(Default::default()));
    let queue = Arc::new(RateLimitingQueue::<Arc<str>>::new());
    let (tx, mut rx) = mpsc::unbounded_channel();
    let rows = RowsInFlight::default();
    let suspend = Suspender::new();
    let feed = tokio::spawn(feed_view(
        FeedTarget {
            view: 1,
            kind: "Pod".into(),
            printer: None,
            only_namespace: None,
            cluster: None,
            listing: None,
        },
        store.clone(),
        queue.clone(),
        tx,
        suspend.watcher(),
        rows.clone(),
    ));
    let put = |name: &str, rv: u32| {
        let key = format!("default/{name}");
        store
            .add(&key, Arc::new(pod(name, &rv.to_string())))
            .expect("stored");
        queue.add(Arc::from(key.as_str()));
    };
    // One key at a time, each sent alone, until the bound is reached.
    for i in 0..ROWS_IN_FLIGHT {
        put(&format!("p{i}"), 1);
        until(|| rows.in_flight() == i + 1).await;
    }
    // The next batch is read but held; its key changes three times meanwhile.
    put("late", 1);
    tokio::time::sleep(Duration::from_millis(50)).await;
    for rv in 2..=4 {
        put("late", rv);
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(rows.in_flight(), ROWS_IN_FLIGHT);
    assert_eq!(rx.len(), ROWS_IN_FLIGHT, "no batch past the bound");
    // The frame loop takes every batch, as it does each frame.
    let mut late_rvs = Vec::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while late_rvs.last().map(String::as_str) != Some("4") {
        let action = tokio::time::timeout_at(deadline, rx.recv())
            .await
            .expect("the held batch is sent once batches are taken")
            .expect("feed alive");
        rows.taken(1);
        assert!(rows.in_flight() <= ROWS_IN_FLIGHT);
        if let Action::Rows { upserts, .. } = action {
            late_rvs.extend(
                upserts
                    .iter()
                    .filter(|r| &*r.key == "default/late")
                    .map(|r| {
                        r.object
                            .metadata
                            .resource_version
                            .clone()
                            .unwrap_or_default()
                    }),
            );
        }
    }
    // At most the state read before it waited and then the latest: not one batch per change.
    assert!(late_rvs.len() <= 2, "late sent {late_rvs:?}");
    feed.abort();
}

/// The rows of a list in progress reach the view from the informer's listing log before the
/// store has them; a list aborted midway gives the view back the store's state: its keys are
/// queued, so rows the store never had are deleted and the others show the store's objects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listed_rows_arrive_before_the_store_and_an_aborted_list_hands_back_to_the_store() {
    use super::feeds::{FeedTarget, Listing, RowsInFlight, feed_view};
    use crate::informer::listing::ListingLog;
    let store = Arc::new(ThreadSafeStore::<DynamicObject>::new(Default::default()));
    store
        .add("default/kept", Arc::new(pod("kept", "1")))
        .expect("stored");
    let queue = Arc::new(RateLimitingQueue::<Arc<str>>::new());
    let log = Arc::new(ListingLog::<DynamicObject>::new());
    let (tx, mut rx) = mpsc::unbounded_channel();
    let rows = RowsInFlight::default();
    let suspend = Suspender::new();
    let feed = tokio::spawn(feed_view(
        FeedTarget {
            view: 1,
            kind: "Pod".into(),
            printer: None,
            only_namespace: None,
            cluster: None,
            listing: Some(Listing {
                log: log.clone(),
                gate: None,
            }),
        },
        store.clone(),
        queue.clone(),
        tx,
        suspend.watcher(),
        rows.clone(),
    ));
    let keys = |rows: &[crate::ui::action::ObjectSummary]| -> Vec<String> {
        let mut k: Vec<String> = rows.iter().map(|r| r.key.to_string()).collect();
        k.sort();
        k
    };
    log.begin();
    log.push(Arc::new(pod("kept", "2")));
    log.push(Arc::new(pod("new", "2")));
    let mut listed = Vec::new();
    while listed.len() < 2 {
        match next_action(&mut rx).await {
            Action::ListedRows {
                upserts, deletes, ..
            } => {
                assert!(deletes.is_empty());
                listed.extend(upserts);
            }
            other => panic!("expected listed rows, got {other:?}"),
        }
        rows.taken(1);
    }
    assert_eq!(keys(&listed), ["default/kept", "default/new"]);
    assert_eq!(store.len(), 1, "the store is untouched while listing");
    // The list fails: the view falls back to what the store holds.
    log.end(false);
    match next_action(&mut rx).await {
        Action::Rows {
            upserts, deletes, ..
        } => {
            assert_eq!(keys(&upserts), ["default/kept"]);
            assert_eq!(
                upserts[0].object.metadata.resource_version.as_deref(),
                Some("1"),
                "the store's object, not the aborted list's"
            );
            assert_eq!(deletes, vec![Arc::<str>::from("default/new")]);
        }
        other => panic!("expected the store's rows, got {other:?}"),
    }
    feed.abort();
}

async fn next_action(rx: &mut mpsc::UnboundedReceiver<Action>) -> Action {
    tokio::time::timeout(Duration::from_secs(10), rx.recv())
        .await
        .expect("a batch in time")
        .expect("feed alive")
}

/// A frame's neighbouring list batches of one view reach its table as one merge; batches of
/// other views, other actions, and a batch after deletions keep their order and stay apart.
#[test]
fn neighbouring_listed_rows_of_a_view_are_merged_and_nothing_moves_past_another() {
    use crate::ui::action::ObjectSummary;
    let summary = |name: &str| {
        ObjectSummary::from_object("Pod", &Arc::new(pod(name, "1")), None).expect("a row")
    };
    let listed = |view, names: &[&str], deletes: &[&str]| Action::ListedRows {
        view,
        upserts: names.iter().map(|n| summary(n)).collect(),
        deletes: deletes.iter().map(|d| Arc::from(*d)).collect(),
    };
    let out = super::coalesce_listed_rows(vec![
        listed(1, &["a"], &[]),
        listed(1, &["b"], &[]),
        listed(2, &["c"], &[]),
        listed(1, &["d"], &["default/x"]),
        listed(1, &["e"], &[]),
        Action::Tick(0),
        listed(1, &["f"], &[]),
    ]);
    let shape: Vec<String> = out
        .iter()
        .map(|a| match a {
            Action::ListedRows {
                view,
                upserts,
                deletes,
            } => format!(
                "{view}:{}/{}",
                upserts
                    .iter()
                    .map(|u| u.name.clone())
                    .collect::<Vec<_>>()
                    .join(","),
                deletes.len()
            ),
            _ => "tick".to_string(),
        })
        .collect();
    assert_eq!(
        shape,
        ["1:a,b/0", "2:c/0", "1:d/1", "1:e/0", "tick", "1:f/0"]
    );
}

/// Issue 38: `:informers`' LAST ERROR and the header's `stale` hold while the informer is out of
/// step after a failure, and clear once the watch delivers again.
#[tokio::test(start_paused = true)]
async fn last_error_and_stale_clear_when_the_informer_recovers() {
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    fake.push_list_page(vec![pod("a", "10")], "10", None);
    fake.push_watch_error(crate::informer::Error::Connect("connection refused".into()));
    let live = fake.push_watch_live();
    let factory = started_factory(&fake);
    let informer = factory.informer_for(&pods(), None);
    let stats = StatsSource::shared(
        factory.clone(),
        "ctx".into(),
        Arc::new(parking_lot::Mutex::new(Some("v1.33".into()))),
    );
    // The failed watch, then the backoff, then a watch that opens but has not delivered.
    fake.wait_for_watch_calls(2).await;
    let row = informer_row(&stats_with_rows(&[rows()], &stats)).expect("a row");
    assert!(row.stale, "{row:?}");
    assert_eq!(
        row.last_error.as_deref(),
        Some("cannot reach the API server: connection refused")
    );
    live.send(Ok(WatchEvent::Added(pod("b", "11"))))
        .expect("watch open");
    until(|| informer.indexer().len() == 2).await;
    let row = informer_row(&stats_with_rows(&[rows()], &stats)).expect("a row");
    assert!(!row.stale, "{row:?}");
    assert_eq!(row.last_error, None);
    factory.shutdown().await;
}

/// The demo's seed in the background: each progress the seeder publishes reaches the app, and
/// once it is done the start-up banner says how many objects it stored.
#[tokio::test]
async fn the_demo_seeds_progress_reaches_the_app_and_its_end_brings_the_banner() {
    use crate::ui::action::DemoSeeding;
    let at = |percent, seeded| DemoSeeding {
        pods: 60_000,
        percent,
        seeded,
    };
    let (seeder, progress) = tokio::sync::watch::channel(at(0, None));
    let (tx, mut rx) = mpsc::unbounded_channel();
    forward_demo_seeding(progress, Some("demo cluster at http://x".into()), tx);
    let Some(Action::DemoSeeding(first)) = rx.recv().await else {
        panic!("the progress first")
    };
    assert_eq!(first, at(0, None));
    seeder.send_replace(at(40, None));
    let Some(Action::DemoSeeding(s)) = rx.recv().await else {
        panic!("the next progress")
    };
    assert_eq!(s, at(40, None));
    seeder.send_replace(at(100, Some(81_234)));
    let Some(Action::DemoSeeding(done)) = rx.recv().await else {
        panic!("the end")
    };
    assert_eq!(done.seeded, Some(81_234));
    match rx.recv().await {
        Some(Action::DemoSeeded(message)) => {
            assert_eq!(message, "demo cluster at http://x (81234 objects)");
        }
        other => panic!("the banner, not {other:?}"),
    }
    assert!(rx.recv().await.is_none(), "nothing more once seeded");
}
