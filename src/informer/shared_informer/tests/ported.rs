//! client-go's `shared_informer_test.go`, ported case by case. Each test names the client-go test
//! it ports. Where client-go drives a fake controller source and a fake clock, these tests feed
//! the informer's DeltaFIFO as the reflector does, or run a `FakeListerWatcher` on tokio's paused
//! clock.

use super::*;
use crate::informer::list_watch::{FakeListerWatcher, WatchEvent};
use std::collections::BTreeSet;

fn labelled(name: &str, rv: &str, labels: &[&str]) -> Arc<ConfigMap> {
    let mut c = (*cm(name, rv)).clone();
    c.metadata.labels = Some(
        labels
            .iter()
            .map(|k| (k.to_string(), format!("{k}-val")))
            .collect(),
    );
    Arc::new(c)
}

/// Index function: the object's label keys.
fn label_keys() -> crate::informer::index::IndexFunc<ConfigMap> {
    Arc::new(|c: &ConfigMap| {
        Ok(c.metadata
            .labels
            .as_ref()
            .map(|l| l.keys().cloned().collect())
            .unwrap_or_default())
    })
}

fn sorted_names(objs: Vec<Arc<ConfigMap>>) -> Vec<String> {
    let mut n: Vec<String> = objs
        .iter()
        .filter_map(|o| o.metadata.name.clone())
        .collect();
    n.sort();
    n
}

/// `TestIndexer`: indexes added before the start and after it both answer `by_index`, including
/// for objects added later.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn indexes_added_before_and_after_start_answer_by_index() {
    let inf = informer(100);
    inf.add_indexers([("labels".to_string(), label_keys())].into())
        .unwrap();
    let (cancel, task) = start(&inf);
    feed(&inf)
        .replace(
            vec![
                labelled("pod1", "1", &["a", "b"]),
                labelled("pod2", "1", &["b"]),
            ],
            "1",
        )
        .unwrap();
    wait_until(|| inf.has_synced());
    let by = |index: &str, v: &str| sorted_names(inf.indexer().by_index(index, v).unwrap());
    assert_eq!(by("labels", "a"), vec!["pod1"]);

    feed(&inf).add(labelled("pod3", "2", &["a"])).unwrap();
    wait_until(|| by("labels", "a") == vec!["pod1", "pod3"]);

    inf.add_indexers([("labels-again".to_string(), label_keys())].into())
        .unwrap();
    assert_eq!(by("labels-again", "a"), vec!["pod1", "pod3"], "immediately");
    for index in ["labels", "labels-again"] {
        let values: BTreeSet<String> = inf
            .indexer()
            .list_index_func_values(index)
            .into_iter()
            .collect();
        assert_eq!(values, ["a".to_string(), "b".to_string()].into());
    }
    cancel.cancel();
    task.await.unwrap();
}

/// An informer over a `FakeListerWatcher` that lists `objects` once and then keeps a live watch
/// open (returned, so the test can send events or end it).
type LiveWatch = tokio::sync::mpsc::UnboundedSender<Result<WatchEvent<ConfigMap>, Error>>;

fn listed_informer(
    objects: Vec<Arc<ConfigMap>>,
    resync: Option<Duration>,
    transform: Option<Transform<ConfigMap>>,
) -> (Arc<SharedIndexInformer<ConfigMap>>, LiveWatch) {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_list_page(objects.iter().map(|o| (**o).clone()).collect(), "10", None);
    let watch = fake.push_watch_live();
    let lw: Arc<dyn ListerWatcher<ConfigMap>> = fake;
    let inf = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            resync_period: resync,
            transform,
            reflector: crate::informer::reflector::ReflectorConfig {
                use_streaming_list: false,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    (inf, watch)
}

/// Wait (real time: handler threads do not run on the paused clock) until every registration
/// has an empty buffer and has synced, then take what each handler received.
fn drained(regs: &[&HandlerRegistration<ConfigMap>], rxs: &[&Receiver<Ev>]) -> Vec<Vec<Ev>> {
    wait_until(|| regs.iter().all(|r| r.buffered() == 0 && r.has_synced()));
    rxs.iter().map(|rx| rx.try_iter().collect()).collect()
}

fn names_of(evs: &[Ev]) -> BTreeSet<String> {
    evs.iter()
        .map(|e| match e {
            Ev::Add(k, _, _) | Ev::Update(k, _, _) | Ev::Delete(k, _, _) => k.clone(),
        })
        .collect()
}

fn set(keys: &[&str]) -> BTreeSet<String> {
    keys.iter().map(|k| format!("ns/{k}")).collect()
}

/// `TestListenerResyncPeriods`: on an informer resyncing every second, handlers asking for no
/// resync, 2 s and 3 s each get the initial list, and then resyncs only when their own period is
/// due.
#[tokio::test(start_paused = true)]
async fn handlers_resync_on_their_own_periods() {
    let (inf, _watch) = listed_informer(
        vec![cm("pod1", "1"), cm("pod2", "2")],
        Some(Duration::from_secs(1)),
        None,
    );
    let (h1, rx1) = recorder();
    let (h2, rx2) = recorder();
    let (h3, rx3) = recorder();
    let r1 = inf.add_event_handler(h1, Some(Duration::ZERO)).unwrap();
    let r2 = inf
        .add_event_handler(h2, Some(Duration::from_secs(2)))
        .unwrap();
    let r3 = inf
        .add_event_handler(h3, Some(Duration::from_secs(3)))
        .unwrap();
    let (cancel, task) = start(&inf);
    let regs = [&r1, &r2, &r3];
    let rxs = [&rx1, &rx2, &rx3];

    tokio::time::sleep(Duration::from_millis(500)).await;
    for got in drained(&regs, &rxs) {
        assert_eq!(names_of(&got), set(&["pod1", "pod2"]), "initial list");
    }

    tokio::time::sleep(Duration::from_secs(2)).await; // t = 2.5 s: listener 2 resynced
    let got = drained(&regs, &rxs);
    assert!(got[0].is_empty(), "listener1 never resyncs: {:?}", got[0]);
    assert_eq!(names_of(&got[1]), set(&["pod1", "pod2"]), "listener2");
    assert!(got[2].is_empty(), "listener3 not due yet: {:?}", got[2]);

    tokio::time::sleep(Duration::from_secs(1)).await; // t = 3.5 s: listener 3 resynced
    let got = drained(&regs, &rxs);
    assert!(got[0].is_empty(), "listener1: {:?}", got[0]);
    assert!(got[1].is_empty(), "listener2 next due at 4 s: {:?}", got[1]);
    assert_eq!(names_of(&got[2]), set(&["pod1", "pod2"]), "listener3");
    cancel.cancel();
    task.await.unwrap();
}

/// `TestResyncCheckPeriod`: before the start, each handler with a shorter period lowers the
/// informer's resync check period to it, and every handler keeps the period it asked for.
#[test]
fn shorter_handler_periods_lower_the_check_period_before_start() {
    let hour = Duration::from_secs(3600);
    let lw: Arc<dyn ListerWatcher<ConfigMap>> = Arc::new(NoApi);
    let inf = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            resync_period: Some(12 * hour),
            ..Default::default()
        },
    );
    let check = |inf: &SharedIndexInformer<ConfigMap>| inf.run_state.lock().resync_check_period;
    let period = |r: &HandlerRegistration<ConfigMap>| r.listener.resync.lock().period;
    let (h, _rx1) = recorder();
    let r1 = inf.add_event_handler(h, Some(Duration::ZERO)).unwrap();
    assert_eq!(check(&inf), Some(12 * hour));
    assert_eq!(period(&r1), None);

    let minute = Duration::from_secs(60);
    let (h, _rx2) = recorder();
    let r2 = inf.add_event_handler(h, Some(minute)).unwrap();
    assert_eq!(check(&inf), Some(minute));
    assert_eq!((period(&r1), period(&r2)), (None, Some(minute)));

    let (h, _rx3) = recorder();
    let r3 = inf
        .add_event_handler(h, Some(Duration::from_secs(55)))
        .unwrap();
    assert_eq!(check(&inf), Some(Duration::from_secs(55)));
    assert_eq!(
        (period(&r1), period(&r2), period(&r3)),
        (None, Some(minute), Some(Duration::from_secs(55)))
    );

    let (h, _rx4) = recorder();
    let r4 = inf
        .add_event_handler(h, Some(Duration::from_secs(5)))
        .unwrap();
    assert_eq!(check(&inf), Some(Duration::from_secs(5)));
    assert_eq!(
        (period(&r1), period(&r2), period(&r3), period(&r4)),
        (
            None,
            Some(minute),
            Some(Duration::from_secs(55)),
            Some(Duration::from_secs(5))
        )
    );
}

/// `TestSharedInformerInitializationRace` (kubernetes#59822): adding a handler while the informer
/// starts and stops neither panics nor hangs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adding_a_handler_while_the_informer_starts_and_stops_neither_hangs_nor_panics() {
    for _ in 0..20 {
        let inf = informer(100);
        let adder = {
            let inf = Arc::clone(&inf);
            tokio::spawn(async move {
                let (h, _rx) = recorder();
                inf.add_event_handler(h, None).map(|_| ())
            })
        };
        let (cancel, task) = start(&inf);
        cancel.cancel();
        let added = tokio::time::timeout(WAIT, adder).await.unwrap().unwrap();
        assert!(matches!(added, Ok(()) | Err(Error::Closed)), "{added:?}");
        tokio::time::timeout(WAIT, task).await.unwrap().unwrap();
    }
}

/// `TestSharedInformerWatchDisruption`: changes the watch missed arrive with the relist; a
/// handler whose resync was due at the last check also gets the unchanged objects again.
#[tokio::test(start_paused = true)]
async fn relist_after_a_watch_disruption_reaches_resyncing_handlers_with_unchanged_objects() {
    let lw: Arc<dyn ListerWatcher<ConfigMap>> = Arc::new(NoApi);
    let inf = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            resync_period: Some(Duration::from_secs(1)),
            ..Default::default()
        },
    );
    let (no_resync, rx_no) = recorder();
    let (resync, rx_re) = recorder();
    let r_no = inf
        .add_event_handler(no_resync, Some(Duration::ZERO))
        .unwrap();
    let r_re = inf
        .add_event_handler(resync, Some(Duration::from_secs(1)))
        .unwrap();
    let pop_all = |inf: &SharedIndexInformer<ConfigMap>| {
        while inf
            .fifo
            .try_pop(|k, d, i| inf.handle_deltas(k, d, i))
            .is_some()
        {}
    };
    let regs = [&r_no, &r_re];
    let rxs = [&rx_no, &rx_re];

    feed(&inf)
        .replace(vec![cm("pod1", "1"), cm("pod2", "2")], "2")
        .unwrap();
    pop_all(&inf);
    for got in drained(&regs, &rxs) {
        assert_eq!(names_of(&got), set(&["pod1", "pod2"]));
    }

    // pod3 added and pod2 modified while the watch is down: nobody sees anything yet. One second
    // later the reflector's resync timer asks `should_resync` and resyncs the FIFO.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(inf.should_resync());
    feed(&inf).resync().unwrap();
    pop_all(&inf);
    // The relist after the disruption.
    feed(&inf)
        .replace(vec![cm("pod1", "1"), cm("pod2", "4"), cm("pod3", "3")], "4")
        .unwrap();
    pop_all(&inf);
    let got = drained(&regs, &rxs);
    assert_eq!(
        got[0],
        vec![
            Ev::Update("ns/pod2".into(), "2".into(), "4".into()),
            Ev::Add("ns/pod3".into(), "3".into(), false),
        ],
        "the handler without resync sees only real changes"
    );
    assert_eq!(names_of(&got[1]), set(&["pod1", "pod2", "pod3"]));
    assert!(
        got[1].contains(&Ev::Update("ns/pod1".into(), "1".into(), "1".into())),
        "the resyncing handler gets the unchanged pod1: {:?}",
        got[1]
    );
}

/// `TestSharedInformerErrorHandling`: a list error reaches the informer's error reporting (client-go:
/// the watch error handler; here: the reflector status the dashboard shows).
#[tokio::test(start_paused = true)]
async fn list_errors_are_reported_in_the_reflector_status() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_list_error(Error::Forbidden("Access Denied".into()));
    let lw: Arc<dyn ListerWatcher<ConfigMap>> = fake;
    let inf = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            reflector: crate::informer::reflector::ReflectorConfig {
                use_streaming_list: false,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    let (cancel, task) = start(&inf);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let status = inf.reflector_status().expect("started");
    let err = status.borrow().last_error.clone().expect("an error");
    assert!(err.to_string().contains("Access Denied"), "{err}");
    assert!(!inf.has_synced());
    cancel.cancel();
    task.await.unwrap();
}

/// `TestSharedInformerTransformer`: handlers see the transformed objects.
#[tokio::test(start_paused = true)]
async fn handlers_see_transformed_objects() {
    let upper: Transform<ConfigMap> = Arc::new(|mut c: ConfigMap| {
        c.metadata.name = c.metadata.name.map(|n| n.to_uppercase());
        c
    });
    let (inf, _watch) = listed_informer(vec![cm("pod1", "1"), cm("pod2", "2")], None, Some(upper));
    let (h, rx) = recorder();
    let reg = inf.add_event_handler(h, None).unwrap();
    let (cancel, task) = start(&inf);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let got = drained(&[&reg], &[&rx]).remove(0);
    assert_eq!(names_of(&got), set(&["POD1", "POD2"]));
    cancel.cancel();
    task.await.unwrap();
}

/// `TestSharedInformerRemoveHandler` and `TestRemovingRemovedSharedInformer`: handlers are removed
/// one at a time, and removing a removed registration is harmless.
#[test]
fn handlers_are_removed_one_at_a_time_and_twice_is_harmless() {
    let inf = informer(100);
    let (h1, _rx1) = recorder();
    let (h2, _rx2) = recorder();
    let r1 = inf.add_event_handler(h1, None).unwrap();
    let r2 = inf.add_event_handler(h2, None).unwrap();
    assert_eq!(inf.stats().handlers, 2);
    r2.remove();
    assert_eq!(inf.stats().handlers, 1);
    r1.remove();
    assert_eq!(inf.stats().handlers, 0);
    r1.remove();
    assert_eq!(inf.stats().handlers, 0);
}

/// `TestSharedInformerMultipleRegistration`: one handler registered twice is two registrations,
/// each notified; removing one leaves the other.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_handler_registered_twice_is_two_independent_registrations() {
    let inf = informer(100);
    let (h, rx) = recorder();
    let r1 = inf.add_event_handler(h.clone(), None).unwrap();
    let r2 = inf.add_event_handler(h, None).unwrap();
    assert_eq!(inf.stats().handlers, 2);
    let (cancel, task) = start(&inf);
    feed(&inf).replace(vec![cm("pod1", "1")], "1").unwrap();
    assert_eq!(recv_n(&rx, 2).len(), 2, "one add per registration");
    r1.remove();
    assert_eq!(inf.stats().handlers, 1);
    feed(&inf).add(cm("pod2", "2")).unwrap();
    assert_eq!(
        recv_n(&rx, 1),
        vec![Ev::Add("ns/pod2".into(), "2".into(), false)]
    );
    assert!(
        rx.recv_timeout(Duration::from_millis(50)).is_err(),
        "only once"
    );
    r2.remove();
    assert_eq!(inf.stats().handlers, 0);
    cancel.cancel();
    task.await.unwrap();
}

/// `TestSharedInformerHandlerAbuse`: many tasks adding and removing handlers while events flow and
/// while the informer stops: no panic, no hang, and once stopped every add is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_added_and_removed_concurrently_with_events_and_stop() {
    let inf = informer(100);
    let (cancel, task) = start(&inf);
    feed(&inf).replace(Vec::new(), "0").unwrap();
    let workers: Vec<_> = (0..8u64)
        .map(|seed| {
            let inf = Arc::clone(&inf);
            tokio::spawn(async move {
                let mut regs = Vec::new();
                let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                loop {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    if (x >> 33) % 2 == 0 || regs.is_empty() {
                        let (h, _rx) = recorder();
                        match inf.add_event_handler(h, Some(Duration::from_secs(1))) {
                            Ok(r) => regs.push(r),
                            Err(Error::Closed) => return regs.len(),
                            Err(e) => panic!("unexpected error {e}"),
                        }
                    } else {
                        let i = ((x >> 40) as usize) % regs.len();
                        regs.swap_remove(i).remove();
                    }
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    let mut live: Vec<usize> = Vec::new();
    for i in 0..2000usize {
        match i % 3 {
            0 => {
                feed(&inf)
                    .add(cm(&format!("pod{i}"), &i.to_string()))
                    .unwrap();
                live.push(i);
            }
            1 if !live.is_empty() => {
                let n = live[i % live.len()];
                feed(&inf)
                    .update(cm(&format!("pod{n}"), &i.to_string()))
                    .unwrap();
            }
            _ if !live.is_empty() => {
                let n = live.swap_remove(i % live.len());
                feed(&inf)
                    .delete(cm(&format!("pod{n}"), &i.to_string()))
                    .unwrap();
            }
            _ => {}
        }
        if i % 100 == 0 {
            tokio::task::yield_now().await;
        }
    }
    cancel.cancel();
    tokio::time::timeout(WAIT, task).await.unwrap().unwrap();
    for w in workers {
        tokio::time::timeout(WAIT, w).await.unwrap().unwrap();
    }
    let (h, _rx) = recorder();
    assert!(matches!(inf.add_event_handler(h, None), Err(Error::Closed)));
}

/// `TestStateSharedInformer`: not running before `run`, running while it runs, not running after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informer_runs_only_between_start_and_stop() {
    let inf = informer(100);
    let (h, rx) = recorder();
    inf.add_event_handler(h, Some(Duration::ZERO)).unwrap();
    assert!(!inf.is_running(), "running after creation");
    let (cancel, task) = start(&inf);
    feed(&inf).replace(vec![cm("pod1", "1")], "1").unwrap();
    recv_n(&rx, 1);
    assert!(inf.is_running(), "handling events but not running");
    cancel.cancel();
    task.await.unwrap();
    assert!(!inf.is_running(), "running after stop");
    assert!(!inf.stats().running);
}

/// `TestRemoveOnStoppedSharedInformer`: a registration can be removed after the informer stopped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn removing_a_handler_of_a_stopped_informer_is_harmless() {
    let inf = informer(100);
    let (h, _rx) = recorder();
    let reg = inf.add_event_handler(h, None).unwrap();
    let (cancel, task) = start(&inf);
    cancel.cancel();
    task.await.unwrap();
    reg.remove();
    assert_eq!(inf.stats().handlers, 0);
}

/// `TestAddWhileActive`: `has_synced` is per registration: false before the start, and for a
/// handler added while active, false until it has processed its synthetic initial adds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn has_synced_is_per_registration() {
    let inf = informer(100);
    let (h1, rx1) = recorder();
    let r1 = inf.add_event_handler(h1, None).unwrap();
    assert!(!r1.has_synced(), "synced before run");
    let (cancel, task) = start(&inf);
    feed(&inf).replace(Vec::new(), "1").unwrap();
    feed(&inf).add(cm("pod1", "1")).unwrap();
    assert_eq!(
        recv_n(&rx1, 1),
        vec![Ev::Add("ns/pod1".into(), "1".into(), false)]
    );
    wait_until(|| r1.has_synced());

    let (h2, rx2, release) = gated_recorder();
    let r2 = inf.add_event_handler(h2, None).unwrap();
    assert!(
        !r2.has_synced(),
        "synced before processing its initial adds"
    );
    release.send(()).unwrap();
    feed(&inf).add(cm("pod2", "2")).unwrap();
    release.send(()).unwrap();
    assert_eq!(
        recv_n(&rx2, 2),
        vec![
            Ev::Add("ns/pod1".into(), "1".into(), true),
            Ev::Add("ns/pod2".into(), "2".into(), false),
        ]
    );
    wait_until(|| r2.has_synced());
    assert_eq!(
        recv_n(&rx1, 1),
        vec![Ev::Add("ns/pod2".into(), "2".into(), false)]
    );
    assert_eq!(inf.stats().handlers, 2);
    cancel.cancel();
    task.await.unwrap();
}

/// `TestShutdown` (client-go checks for leaked goroutines): every handler thread ends once the
/// informer stops, whether the handler joined before the start or after the sync, and when the
/// informer never ran but is dropped. A handler thread owns one reference to its handler.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handler_threads_end_when_the_informer_stops_or_is_dropped() {
    // Joined before the start.
    let inf = informer(100);
    let (h, _rx) = recorder();
    inf.add_event_handler(h.clone(), None).unwrap();
    let (cancel, task) = start(&inf);
    feed(&inf).replace(Vec::new(), "1").unwrap();
    wait_until(|| inf.has_synced());
    cancel.cancel();
    task.await.unwrap();
    wait_until(|| Arc::strong_count(&h) == 1);

    // Joined after the sync.
    let inf = informer(100);
    let (cancel, task) = start(&inf);
    feed(&inf).replace(Vec::new(), "1").unwrap();
    wait_until(|| inf.has_synced());
    let (h, _rx) = recorder();
    let reg = inf.add_event_handler(h.clone(), None).unwrap();
    reg.remove();
    cancel.cancel();
    task.await.unwrap();
    wait_until(|| Arc::strong_count(&h) == 1);

    // Never run.
    let inf = informer(100);
    let (h, _rx) = recorder();
    let reg = inf.add_event_handler(h.clone(), None).unwrap();
    drop(reg);
    drop(inf);
    wait_until(|| Arc::strong_count(&h) == 1);
}
