//! SharedIndexInformer tests. Pipeline tests feed the informer's real DeltaFIFO exactly as the
//! reflector does (through `ReflectorStore`) and run the real pop loop, indexer and handler threads.

use super::*;
use crate::informer::meta_namespace_key;
use k8s_openapi::api::core::v1::ConfigMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};

const WAIT: Duration = Duration::from_secs(20);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Ev {
    Add(String, String, bool),
    Update(String, String, String),
    Delete(String, bool, Option<String>),
}

/// Records every notification; optionally blocks in `on_add` until `gate` yields a message.
struct Recorder {
    tx: Mutex<Sender<Ev>>,
    gate: Option<Mutex<Receiver<()>>>,
}

fn rv(o: &ConfigMap) -> String {
    o.metadata.resource_version.clone().unwrap_or_default()
}

fn k(o: &ConfigMap) -> String {
    meta_namespace_key(o).unwrap_or_default()
}

impl ResourceEventHandler<ConfigMap> for Recorder {
    fn on_add(&self, obj: &Arc<ConfigMap>, initial: bool) {
        if let Some(g) = &self.gate {
            let _ = g.lock().recv();
        }
        let _ = self.tx.lock().send(Ev::Add(k(obj), rv(obj), initial));
    }
    fn on_update(&self, old: &Arc<ConfigMap>, new: &Arc<ConfigMap>) {
        let _ = self.tx.lock().send(Ev::Update(k(new), rv(old), rv(new)));
    }
    fn on_delete(&self, obj: &DeleteObject<ConfigMap>) {
        let key = match obj {
            DeltaObject::Object(o) => k(o),
            DeltaObject::Tombstone(t) => t.key.clone(),
        };
        let last = obj.object().map(|o| rv(o));
        let _ = self
            .tx
            .lock()
            .send(Ev::Delete(key, obj.is_tombstone(), last));
    }
}

fn recorder() -> (Arc<Recorder>, Receiver<Ev>) {
    let (tx, rx) = channel();
    (
        Arc::new(Recorder {
            tx: Mutex::new(tx),
            gate: None,
        }),
        rx,
    )
}

fn gated_recorder() -> (Arc<Recorder>, Receiver<Ev>, Sender<()>) {
    let (tx, rx) = channel();
    let (gtx, grx) = channel();
    (
        Arc::new(Recorder {
            tx: Mutex::new(tx),
            gate: Some(Mutex::new(grx)),
        }),
        rx,
        gtx,
    )
}

fn cm(name: &str, rv: &str) -> Arc<ConfigMap> {
    let mut c = ConfigMap::default();
    c.metadata.name = Some(name.into());
    c.metadata.namespace = Some("ns".into());
    c.metadata.resource_version = Some(rv.into());
    Arc::new(c)
}

/// An informer whose ListerWatcher is never used by these tests (they feed the FIFO directly).
fn informer(tap_capacity: usize) -> Arc<SharedIndexInformer<ConfigMap>> {
    let lw: Arc<dyn ListerWatcher<ConfigMap>> = Arc::new(NoApi);
    SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            tap_capacity,
            ..Default::default()
        },
    )
}

/// A ListerWatcher whose list and watch never complete: the tests play the reflector's part.
struct NoApi;
impl ListerWatcher<ConfigMap> for NoApi {
    fn list(
        &self,
        _: &crate::informer::list_watch::ListOptions,
    ) -> futures::future::BoxFuture<
        '_,
        Result<crate::informer::list_watch::ListPage<ConfigMap>, Error>,
    > {
        Box::pin(futures::future::pending())
    }
    fn watch(
        &self,
        _: &crate::informer::list_watch::WatchOptions,
    ) -> futures::future::BoxFuture<
        '_,
        Result<crate::informer::list_watch::WatchStream<ConfigMap>, Error>,
    > {
        Box::pin(futures::future::pending())
    }
}

/// A configmaps informer over `fake`, which scripts a list, then a watch (no streaming list).
fn informer_over(
    fake: &Arc<crate::informer::list_watch::FakeListerWatcher<ConfigMap>>,
) -> Arc<SharedIndexInformer<ConfigMap>> {
    let lw: Arc<dyn ListerWatcher<ConfigMap>> = fake.clone();
    SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            reflector: crate::informer::reflector::ReflectorConfig {
                use_streaming_list: false,
                ..Default::default()
            },
            ..Default::default()
        },
    )
}

fn recv_n(rx: &Receiver<Ev>, n: usize) -> Vec<Ev> {
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        match rx.recv_timeout(WAIT) {
            Ok(e) => out.push(e),
            Err(RecvTimeoutError::Timeout) => panic!("got {} of {n} notifications", out.len()),
            Err(RecvTimeoutError::Disconnected) => panic!("handler gone"),
        }
    }
    out
}

fn wait_until(mut cond: impl FnMut() -> bool) {
    let deadline = std::time::Instant::now() + WAIT;
    while !cond() {
        assert!(
            std::time::Instant::now() < deadline,
            "condition not reached"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn start(
    inf: &Arc<SharedIndexInformer<ConfigMap>>,
) -> (CancellationToken, tokio::task::JoinHandle<()>) {
    let cancel = CancellationToken::new();
    let task = {
        let inf = Arc::clone(inf);
        let cancel = cancel.clone();
        tokio::spawn(async move { inf.run(cancel).await })
    };
    (cancel, task)
}

fn feed(inf: &SharedIndexInformer<ConfigMap>) -> &dyn ReflectorStore<ConfigMap> {
    &*inf.fifo
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_handler_does_not_block_others() {
    let inf = informer(100);
    let (slow, slow_rx, release) = gated_recorder();
    let (fast, fast_rx) = recorder();
    let slow_reg = inf.add_event_handler(slow, Some(Duration::ZERO)).unwrap();
    let fast_reg = inf.add_event_handler(fast, Some(Duration::ZERO)).unwrap();
    let (cancel, task) = start(&inf);
    let list: Vec<_> = (0..200).map(|i| cm(&format!("c{i}"), "1")).collect();
    feed(&inf).replace(list, "1").unwrap();

    // The fast handler gets everything while the slow one is stuck in its first on_add.
    let mut got = recv_n(&fast_rx, 200);
    assert!(got.iter().all(|e| matches!(e, Ev::Add(_, _, true))));
    feed(&inf).update(cm("c0", "2")).unwrap();
    got.extend(recv_n(&fast_rx, 1));
    assert_eq!(got[200], Ev::Update("ns/c0".into(), "1".into(), "2".into()));
    wait_until(|| fast_reg.has_synced());
    assert!(inf.has_synced());
    assert_eq!(inf.indexer().len(), 200);
    assert!(slow_rx.try_recv().is_err());
    assert!(!slow_reg.has_synced());
    assert_eq!(slow_reg.buffered(), 201);

    // Released, the slow handler catches up in order.
    for _ in 0..200 {
        release.send(()).unwrap();
    }
    let got_slow = recv_n(&slow_rx, 201);
    assert_eq!(got_slow, got);
    wait_until(|| slow_reg.has_synced());
    cancel.cancel();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn late_handler_gets_initial_adds() {
    let inf = informer(100);
    let (cancel, task) = start(&inf);
    feed(&inf)
        .replace(vec![cm("a", "1"), cm("b", "1"), cm("c", "1")], "1")
        .unwrap();
    wait_until(|| inf.has_synced() && inf.indexer().len() == 3);

    let (late, rx) = recorder();
    let reg = inf.add_event_handler(late, None).unwrap();
    let mut adds = recv_n(&rx, 3);
    adds.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(
        adds,
        vec![
            Ev::Add("ns/a".into(), "1".into(), true),
            Ev::Add("ns/b".into(), "1".into(), true),
            Ev::Add("ns/c".into(), "1".into(), true),
        ]
    );
    wait_until(|| reg.has_synced());
    // Afterwards it sees live changes only, not the snapshot again.
    feed(&inf).update(cm("b", "2")).unwrap();
    feed(&inf).add(cm("d", "3")).unwrap();
    assert_eq!(
        recv_n(&rx, 2),
        vec![
            Ev::Update("ns/b".into(), "1".into(), "2".into()),
            Ev::Add("ns/d".into(), "3".into(), false),
        ]
    );
    // A removed handler receives nothing more.
    reg.remove();
    feed(&inf).update(cm("d", "4")).unwrap();
    wait_until(|| inf.indexer().get("ns/d").is_some_and(|o| rv(&o) == "4"));
    assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
    assert_eq!(inf.stats().handlers, 0);
    cancel.cancel();
    task.await.unwrap();
    // A stopped informer accepts no handler.
    let (h, _rx) = recorder();
    assert!(matches!(inf.add_event_handler(h, None), Err(Error::Closed)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handler_sees_deleted_final_state_unknown_after_relist() {
    let inf = informer(100);
    let (h, rx) = recorder();
    inf.add_event_handler(h, None).unwrap();
    let (cancel, task) = start(&inf);
    feed(&inf)
        .replace(vec![cm("a", "1"), cm("b", "1")], "1")
        .unwrap();
    recv_n(&rx, 2);
    // The watch missed b's DELETE; the relist finds it gone and a changed.
    feed(&inf).replace(vec![cm("a", "5")], "5").unwrap();
    let mut got = recv_n(&rx, 2);
    got.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(
        got,
        vec![
            Ev::Delete("ns/b".into(), true, Some("1".into())),
            Ev::Update("ns/a".into(), "1".into(), "5".into()),
        ]
    );
    wait_until(|| inf.indexer().len() == 1);
    assert!(inf.indexer().get("ns/b").is_none());
    // A relist that changes nothing notifies nobody (equal resourceVersions = resync, none due).
    feed(&inf).replace(vec![cm("a", "5")], "6").unwrap();
    feed(&inf).add(cm("z", "7")).unwrap();
    assert_eq!(
        recv_n(&rx, 1),
        vec![Ev::Add("ns/z".into(), "7".into(), false)]
    );
    cancel.cancel();
    task.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn resync_delivers_updates_only_to_due_handlers() {
    let inf = informer(100);
    let (every10, rx10) = recorder();
    let (every30, rx30) = recorder();
    let (never, rx_never) = recorder();
    let r10 = inf
        .add_event_handler(every10, Some(Duration::from_secs(10)))
        .unwrap();
    let r30 = inf
        .add_event_handler(every30, Some(Duration::from_secs(30)))
        .unwrap();
    let rn = inf.add_event_handler(never, Some(Duration::ZERO)).unwrap();
    assert_eq!(
        inf.run_state.lock().resync_check_period,
        Some(Duration::from_secs(10))
    );

    // Play the informer loop and the reflector's resync timer by hand on the paused clock.
    let pop_all = |inf: &SharedIndexInformer<ConfigMap>| {
        while inf
            .fifo
            .try_pop(|k, d, i| inf.handle_deltas(k, d, i))
            .is_some()
        {}
    };
    feed(&inf)
        .replace(vec![cm("a", "1"), cm("b", "2")], "2")
        .unwrap();
    pop_all(&inf);
    for rx in [&rx10, &rx30, &rx_never] {
        assert_eq!(recv_n(rx, 2).len(), 2);
    }
    let tick = |inf: &SharedIndexInformer<ConfigMap>| {
        if inf.should_resync() {
            feed(inf).resync().unwrap();
        }
        pop_all(inf);
    };
    let mut syncs10 = 0;
    for step in 1..=3 {
        tokio::time::advance(Duration::from_secs(10)).await;
        tick(&inf);
        let mut got = recv_n(&rx10, 2);
        got.sort_by_key(|e| format!("{e:?}"));
        assert_eq!(
            got,
            vec![
                Ev::Update("ns/a".into(), "1".into(), "1".into()),
                Ev::Update("ns/b".into(), "2".into(), "2".into()),
            ]
        );
        syncs10 += 1;
        if step < 3 {
            // Distribution is synchronous: nothing queued for the others means nothing sent.
            assert_eq!(r30.buffered(), 0);
            assert!(rx30.try_recv().is_err());
        }
    }
    assert_eq!(syncs10, 3);
    assert_eq!(
        recv_n(&rx30, 2).len(),
        2,
        "30 s handler resynced once at t=30 s"
    );
    assert_eq!(rn.buffered(), 0);
    assert!(rx_never.try_recv().is_err());
    // A real change reaches every handler, due or not.
    feed(&inf).update(cm("a", "9")).unwrap();
    pop_all(&inf);
    for rx in [&rx10, &rx30, &rx_never] {
        assert_eq!(
            recv_n(rx, 1),
            vec![Ev::Update("ns/a".into(), "1".into(), "9".into())]
        );
    }
    drop((r10, r30, rn));
}

#[test]
fn resync_periods_follow_client_go_rules() {
    assert_eq!(
        determine_resync_period(None, Some(Duration::from_secs(5))),
        None
    );
    assert_eq!(
        determine_resync_period(Some(Duration::from_secs(3)), Some(Duration::from_secs(5))),
        Some(Duration::from_secs(5))
    );
    assert_eq!(
        determine_resync_period(Some(Duration::from_secs(30)), Some(Duration::from_secs(5))),
        Some(Duration::from_secs(30))
    );
    assert_eq!(
        determine_resync_period(Some(Duration::from_secs(30)), None),
        None
    );
}

#[test]
fn event_tap_is_bounded_and_ordered() {
    let tap = EventTap::new(5);
    assert_eq!(tap.latest_seq(), 0);
    assert!(tap.since(0).is_empty());
    let kind: Arc<str> = Arc::from("configmaps");
    for i in 0..6u32 {
        let key: Arc<str> = Arc::from(format!("ns/c{i}").as_str());
        let deltas = vec![
            super::super::delta_fifo::Delta {
                kind: DeltaType::Added,
                object: DeltaObject::Object(cm(&format!("c{i}"), &format!("{}", 2 * i))),
            },
            super::super::delta_fifo::Delta {
                kind: DeltaType::Updated,
                object: DeltaObject::Object(cm(&format!("c{i}"), &format!("{}", 2 * i + 1))),
            },
        ];
        tap.record(&kind, &key, &deltas, 10 - i as usize);
    }
    assert_eq!(tap.latest_seq(), 12);
    assert_eq!(tap.len(), 5);
    let all = tap.since(0);
    let seqs: Vec<u64> = all.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, vec![8, 9, 10, 11, 12]);
    let rvs: Vec<&str> = all.iter().map(|e| e.resource_version.as_str()).collect();
    assert_eq!(rvs, vec!["7", "8", "9", "10", "11"]);
    assert_eq!(&*all[4].key, "ns/c5");
    assert_eq!(all[4].delta, DeltaType::Updated);
    assert_eq!(all[4].queue_depth, 5);
    let tail: Vec<u64> = tap.since(10).iter().map(|e| e.seq).collect();
    assert_eq!(tail, vec![11, 12]);
    assert!(tap.since(12).is_empty());
    assert!(tap.since(u64::MAX).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informer_records_every_popped_delta_in_its_tap_and_stats() {
    let inf = informer(3);
    let (cancel, task) = start(&inf);
    feed(&inf).add(cm("a", "1")).unwrap();
    feed(&inf).update(cm("a", "2")).unwrap();
    feed(&inf).add(cm("b", "3")).unwrap();
    feed(&inf).delete(cm("b", "4")).unwrap();
    let tap = inf.tap();
    wait_until(|| tap.latest_seq() == 4);
    feed(&inf).replace(vec![], "5").unwrap();
    wait_until(|| tap.latest_seq() == 5);
    let entries = tap.since(0);
    assert_eq!(entries.len(), 3, "bounded by tap_capacity");
    let last = &entries[2];
    assert_eq!(&*last.kind, "configmaps");
    assert_eq!(last.delta, DeltaType::Deleted);
    assert!(last.tombstone, "relist-detected deletion of a");
    assert_eq!(&*last.key, "ns/a");
    assert_eq!(last.resource_version, "2");
    let stats = inf.stats();
    assert_eq!(stats.deltas_total, 5);
    assert_eq!(stats.cached_objects, 0);
    assert!(stats.running && stats.has_synced);
    // The rate leaves the initial list out: the four watch-like changes above and the relist's
    // tombstone, none of them the first list.
    assert!(stats.deltas_per_sec > 0.0);
    cancel.cancel();
    task.await.unwrap();
    assert!(!inf.stats().running);
}

#[test]
fn failing_index_function_is_counted_and_other_deltas_still_apply() {
    let lw: Arc<dyn ListerWatcher<ConfigMap>> = Arc::new(NoApi);
    let mut indexers = default_indexers::<ConfigMap>();
    indexers.insert(
        "picky".into(),
        Arc::new(|c: &ConfigMap| {
            if c.metadata.resource_version.as_deref() == Some("bad") {
                Err("no".into())
            } else {
                Ok(vec![])
            }
        }),
    );
    let inf = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            indexers,
            ..Default::default()
        },
    );
    feed(&inf).add(cm("a", "1")).unwrap();
    feed(&inf).update(cm("a", "bad")).unwrap();
    feed(&inf).delete(cm("a", "3")).unwrap();
    let p = inf
        .fifo
        .try_pop(|k, d, i| inf.handle_deltas(k, d, i))
        .unwrap();
    assert!(matches!(p.result, Err(Error::IndexFunc { .. })));
    assert_eq!(inf.malformed.load(Ordering::Relaxed), 1);
    // The delete after the rejected update was still applied.
    assert!(inf.indexer().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn informer_end_to_end_over_fake_lister_watcher() {
    use crate::informer::list_watch::{FakeListerWatcher, WatchEvent};
    use crate::informer::reflector::ReflectorState;
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    let cmv = |n: &str, rv: &str| (*cm(n, rv)).clone();
    fake.push_list_page(vec![cmv("a", "10"), cmv("b", "10")], "10", None);
    let watch = fake.push_watch_live();
    let inf = informer_over(&fake);
    let (h, rx) = recorder();
    let reg = inf.add_event_handler(h, None).unwrap();
    let (cancel, task) = start(&inf);

    let mut initial = recv_n(&rx, 2);
    initial.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(
        initial,
        vec![
            Ev::Add("ns/a".into(), "10".into(), true),
            Ev::Add("ns/b".into(), "10".into(), true),
        ]
    );
    wait_until(|| reg.has_synced());
    assert!(inf.has_synced());
    let a_before = inf.indexer().get("ns/a").unwrap();

    watch
        .send(Ok(WatchEvent::Modified(cmv("b", "11"))))
        .unwrap();
    watch.send(Ok(WatchEvent::Added(cmv("c", "12")))).unwrap();
    watch.send(Ok(WatchEvent::Deleted(cmv("b", "13")))).unwrap();
    let got = recv_n(&rx, 3);
    // b's two changes may be popped together or apart, so only per-key order is fixed.
    assert!(got.contains(&Ev::Add("ns/c".into(), "12".into(), false)));
    let b_pos = |e: &Ev| got.iter().position(|g| g == e);
    assert!(
        b_pos(&Ev::Update("ns/b".into(), "10".into(), "11".into()))
            < b_pos(&Ev::Delete("ns/b".into(), false, Some("13".into())))
    );
    assert!(got.contains(&Ev::Update("ns/b".into(), "10".into(), "11".into())));
    assert!(got.contains(&Ev::Delete("ns/b".into(), false, Some("13".into()))));

    // The watch expires; c was deleted meanwhile and d created. The relist repairs the cache.
    fake.push_list_page(vec![cmv("a", "10"), cmv("d", "15")], "16", None);
    let _watch2 = fake.push_watch_live();
    watch
        .send(Ok(WatchEvent::Error(Error::Gone("too old".into()))))
        .unwrap();
    let mut after = recv_n(&rx, 2);
    after.sort_by_key(|e| format!("{e:?}"));
    assert_eq!(
        after,
        vec![
            Ev::Add("ns/d".into(), "15".into(), false),
            Ev::Delete("ns/c".into(), true, Some("12".into())),
        ]
    );
    wait_until(|| inf.indexer().len() == 2);
    let mut keys = inf.indexer().list_keys();
    keys.sort();
    assert_eq!(keys, vec!["ns/a", "ns/d"]);
    // The unchanged object was not duplicated by the relist: the cache keeps the same Arc.
    assert!(Arc::ptr_eq(&a_before, &inf.indexer().get("ns/a").unwrap()));
    let stats = inf.stats();
    let refl = stats.reflector.clone().unwrap();
    assert_eq!(refl.relists, 1);
    assert_eq!(refl.last_sync_resource_version, "16");
    assert!(
        rx.recv_timeout(Duration::from_millis(50)).is_err(),
        "unchanged a notified nobody"
    );

    cancel.cancel();
    task.await.unwrap();
    assert_eq!(
        inf.stats().reflector.map(|r| r.state),
        Some(ReflectorState::Stopped)
    );
}

#[tokio::test(start_paused = true)]
async fn reflector_resync_timer_reaches_only_handlers_with_a_period() {
    use crate::informer::list_watch::FakeListerWatcher;
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.push_list_page(
        vec![(*cm("a", "1")).clone(), (*cm("b", "2")).clone()],
        "2",
        None,
    );
    let _watch = fake.push_watch_live();
    let inf = informer_over(&fake);
    let (every10, rx10) = recorder();
    let (none, rx_none) = recorder();
    let r10 = inf
        .add_event_handler(every10, Some(Duration::from_secs(10)))
        .unwrap();
    let rn = inf.add_event_handler(none, Some(Duration::ZERO)).unwrap();
    let (cancel, task) = start(&inf);
    // 35 s of (virtual) time: the reflector's resync timer fires at 10, 20 and 30 s.
    tokio::time::sleep(Duration::from_secs(35)).await;
    // Let the handler threads drain (real time; the paused clock does not move meanwhile).
    let deadline = std::time::Instant::now() + WAIT;
    while r10.buffered() + rn.buffered() > 0 || !r10.has_synced() {
        assert!(std::time::Instant::now() < deadline);
        std::thread::sleep(Duration::from_millis(1));
    }
    let got10: Vec<Ev> = rx10.try_iter().collect();
    let got_none: Vec<Ev> = rx_none.try_iter().collect();
    assert_eq!(got_none.len(), 2, "only the initial adds: {got_none:?}");
    let syncs: Vec<&Ev> = got10
        .iter()
        .filter(|e| matches!(e, Ev::Update(_, old, new) if old == new))
        .collect();
    assert_eq!(syncs.len(), 6, "2 objects x 3 resyncs: {got10:?}");
    cancel.cancel();
    task.await.unwrap();
}

/// A handler that rebuilds the cache from notifications alone, recording any notification that
/// does not fit what it saw before (handler panics are caught by the informer, so no asserts here).
#[derive(Default)]
struct Mirror {
    seen: Mutex<std::collections::BTreeMap<String, String>>,
    violations: Mutex<Vec<String>>,
}

impl ResourceEventHandler<ConfigMap> for Mirror {
    fn on_add(&self, obj: &Arc<ConfigMap>, _: bool) {
        if let Some(prev) = self.seen.lock().insert(k(obj), rv(obj)) {
            self.violations
                .lock()
                .push(format!("add of {} already held at rv {prev}", k(obj)));
        }
    }
    fn on_update(&self, old: &Arc<ConfigMap>, new: &Arc<ConfigMap>) {
        let prev = self.seen.lock().insert(k(new), rv(new));
        if prev != Some(rv(old)) {
            self.violations.lock().push(format!(
                "update of {}: old rv {} but handler had {prev:?}",
                k(new),
                rv(old)
            ));
        }
    }
    fn on_delete(&self, obj: &DeleteObject<ConfigMap>) {
        let key = match obj {
            DeltaObject::Object(o) => k(o),
            DeltaObject::Tombstone(t) => t.key.clone(),
        };
        if self.seen.lock().remove(&key).is_none() {
            self.violations
                .lock()
                .push(format!("delete of {key} never added"));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handlers_never_lose_or_invent_objects_under_missed_events_and_relists() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let inf = informer(1000);
    let mirror = Arc::new(Mirror::default());
    let reg = inf.add_event_handler(mirror.clone(), None).unwrap();
    let (cancel, task) = start(&inf);
    let mut rng = SmallRng::seed_from_u64(7);
    let mut server: std::collections::BTreeMap<String, String> = Default::default();
    let mut rv_counter = 1u64;
    let relist = |server: &std::collections::BTreeMap<String, String>| {
        let list = server
            .iter()
            .map(|(key, rv)| cm(key.trim_start_matches("ns/"), rv))
            .collect();
        feed(&inf).replace(list, "x").unwrap();
    };
    relist(&server);
    for _ in 0..5_000 {
        let name = format!("o{}", rng.random_range(0..40));
        let key = format!("ns/{name}");
        rv_counter += 1;
        let rv = rv_counter.to_string();
        let delivered = rng.random_bool(0.7);
        match (server.contains_key(&key), rng.random_range(0..10)) {
            (_, 0) => relist(&server),
            (false, _) => {
                server.insert(key, rv.clone());
                if delivered {
                    feed(&inf).add(cm(&name, &rv)).unwrap();
                }
            }
            (true, n) if n < 6 => {
                server.insert(key, rv.clone());
                if delivered {
                    feed(&inf).update(cm(&name, &rv)).unwrap();
                }
            }
            (true, _) => {
                server.remove(&key);
                if delivered {
                    feed(&inf).delete(cm(&name, &rv)).unwrap();
                }
            }
        }
        // Sometimes let the informer catch up, so relists also meet keys that are only in the
        // indexer (not queued): both deletion-detection paths get exercised.
        if rng.random_bool(0.2) {
            let deadline = std::time::Instant::now() + WAIT;
            while !inf.fifo.is_empty() {
                assert!(std::time::Instant::now() < deadline, "informer stuck");
                tokio::task::yield_now().await;
            }
        }
    }
    relist(&server);
    // Drain: the FIFO empties, then the handler's buffer.
    let deadline = std::time::Instant::now() + WAIT;
    while !(inf.fifo.is_empty() && reg.buffered() == 0) {
        assert!(
            std::time::Instant::now() < deadline,
            "pipeline did not drain"
        );
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let cached: std::collections::BTreeMap<String, String> =
        inf.indexer().list().iter().map(|o| (k(o), rv(o))).collect();
    assert_eq!(cached, server, "indexer converged to the server");
    assert_eq!(*mirror.violations.lock(), Vec::<String>::new());
    assert_eq!(
        *mirror.seen.lock(),
        server,
        "handler converged to the server"
    );
    cancel.cancel();
    task.await.unwrap();
}

/// client-go `determineResyncPeriod(desired, 0) == 0` (documented difference): on an informer
/// created without resync, a handler added before the start gets its period (the check period is
/// lowered to it); one added after the start gets none, as in client-go.
#[tokio::test(start_paused = true)]
async fn handler_resync_on_an_informer_created_without_resync() {
    let inf = informer(100);
    assert_eq!(inf.run_state.lock().resync_check_period, None);
    let (before, _rx_before) = recorder();
    let r_before = inf
        .add_event_handler(before, Some(Duration::from_secs(10)))
        .unwrap();
    assert_eq!(
        r_before.listener.resync.lock().period,
        Some(Duration::from_secs(10))
    );
    assert_eq!(
        inf.run_state.lock().resync_check_period,
        Some(Duration::from_secs(10))
    );

    let late = informer(100);
    let (cancel, task) = start(&late);
    while !late.is_running() {
        tokio::task::yield_now().await;
    }
    let (after, _rx_after) = recorder();
    let r_after = late
        .add_event_handler(after, Some(Duration::from_secs(10)))
        .unwrap();
    assert_eq!(
        r_after.listener.resync.lock().period,
        None,
        "after the start there is no resync timer to lower"
    );
    cancel.cancel();
    task.await.unwrap();
    drop((r_before, r_after));
}

mod ported;

/// The rate leaves the initial list out (a view just opened read hundreds of deltas per second
/// for a few seconds); the total counts it, and a watch event after the sync is in the rate.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_delta_rate_leaves_the_initial_list_out() {
    use crate::informer::list_watch::{FakeListerWatcher, WatchEvent};
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    let items: Vec<ConfigMap> = (0..50)
        .map(|i| (*cm(&format!("c{i}"), "10")).clone())
        .collect();
    fake.push_list_page(items, "10", None);
    let watch = fake.push_watch_live();
    let inf = informer_over(&fake);
    let (cancel, task) = start(&inf);
    wait_until(|| inf.stats().deltas_total == 50);
    assert_eq!(inf.stats().deltas_per_sec, 0.0);
    watch
        .send(Ok(WatchEvent::Modified((*cm("c1", "11")).clone())))
        .unwrap();
    wait_until(|| inf.stats().deltas_total == 51);
    assert!(inf.stats().deltas_per_sec > 0.0);
    cancel.cancel();
    task.await.unwrap();
}

/// A handler that panics on the object named `c0` and records the rest.
struct PanicsOnC0(Arc<Recorder>);

impl ResourceEventHandler<ConfigMap> for PanicsOnC0 {
    fn on_add(&self, obj: &Arc<ConfigMap>, initial: bool) {
        assert_ne!(obj.metadata.name.as_deref(), Some("c0"), "a handler bug");
        self.0.on_add(obj, initial);
    }
    fn on_update(&self, old: &Arc<ConfigMap>, new: &Arc<ConfigMap>) {
        self.0.on_update(old, new);
    }
    fn on_delete(&self, obj: &DeleteObject<ConfigMap>) {
        self.0.on_delete(obj);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_is_caught_and_gets_the_notifications_after_it() {
    let inf = informer(100);
    let (rec, rx) = recorder();
    let reg = inf
        .add_event_handler(Arc::new(PanicsOnC0(rec)), Some(Duration::ZERO))
        .unwrap();
    let (cancel, task) = start(&inf);
    feed(&inf)
        .replace(vec![cm("c0", "1"), cm("c1", "1")], "1")
        .unwrap();
    feed(&inf).update(cm("c1", "2")).unwrap();
    assert_eq!(
        recv_n(&rx, 2),
        [
            Ev::Add("ns/c1".into(), "1".into(), true),
            Ev::Update("ns/c1".into(), "1".into(), "2".into()),
        ]
    );
    wait_until(|| reg.has_synced());
    assert_eq!(inf.indexer().len(), 2, "the store has both");
    cancel.cancel();
    task.await.unwrap();
}
