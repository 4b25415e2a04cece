//! DeltaFIFO tests: unit tests per rule, and a property test against a reference model.

use super::*;
use crate::informer::index::default_indexers;
use crate::informer::thread_safe_store::ThreadSafeStore;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn cm(name: &str, rv: &str) -> Arc<ConfigMap> {
    let mut c = ConfigMap::default();
    c.metadata.name = Some(name.into());
    c.metadata.namespace = Some("ns".into());
    c.metadata.resource_version = Some(rv.into());
    Arc::new(c)
}

fn key(name: &str) -> String {
    format!("ns/{name}")
}

fn with_indexer() -> (DeltaFifo<ConfigMap>, Arc<ThreadSafeStore<ConfigMap>>) {
    let store = Arc::new(ThreadSafeStore::new(default_indexers()));
    let known: Arc<dyn KnownObjects<ConfigMap>> = store.clone();
    let fifo = DeltaFifo::new(DeltaFifoOptions {
        known_objects: Some(known),
        transform: None,
        observer: None,
    });
    (fifo, store)
}

/// client-go's `processDeltas`, minus the handlers: apply deltas to the indexer.
fn apply(store: &ThreadSafeStore<ConfigMap>, key: &str, deltas: &Deltas<ConfigMap>) {
    for d in deltas {
        match (d.kind, &d.object) {
            (DeltaType::Deleted, _) => {
                store.delete(key);
            }
            (_, DeltaObject::Object(o)) => store.update(key, Arc::clone(o)).unwrap(),
            (_, DeltaObject::Tombstone(_)) => panic!("tombstone on a non-delete delta"),
        }
    }
}

fn pop_into(fifo: &DeltaFifo<ConfigMap>, store: &ThreadSafeStore<ConfigMap>) -> Popped<ConfigMap> {
    fifo.try_pop(|k, d, _| {
        apply(store, k, d);
        Ok(())
    })
    .expect("something queued")
}

fn summary(deltas: &Deltas<ConfigMap>) -> Vec<(DeltaType, bool, Option<String>)> {
    deltas
        .iter()
        .map(|d| {
            (
                d.kind,
                d.object.is_tombstone(),
                d.object
                    .object()
                    .and_then(|o| o.metadata.resource_version.clone()),
            )
        })
        .collect()
}

fn check_invariants(fifo: &DeltaFifo<ConfigMap>) {
    let s = fifo.state.lock();
    let queued: HashSet<&Arc<str>> = s.queue.iter().collect();
    assert_eq!(queued.len(), s.queue.len(), "duplicate key in queue");
    assert_eq!(queued.len(), s.items.len(), "queue and items differ");
    for k in &s.queue {
        let d = s.items.get(k).expect("queued key in items");
        assert!(!d.is_empty(), "empty deltas for {k}");
    }
}

#[test]
fn replace_emits_deleted_final_state_unknown_for_missing_keys() {
    let (fifo, store) = with_indexer();
    fifo.replace(vec![cm("a", "1"), cm("b", "1"), cm("c", "1")], "1")
        .unwrap();
    for _ in 0..3 {
        pop_into(&fifo, &store);
    }
    // "q" is queued but never reached the indexer; "a".."c" are known.
    fifo.add(cm("q", "2")).unwrap();
    fifo.replace(vec![cm("a", "3")], "3").unwrap();
    check_invariants(&fifo);
    assert_eq!(
        fifo.list_keys(),
        vec![key("q"), key("a"), key("b"), key("c")]
    );
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![(DeltaType::Replaced, false, Some("3".into()))]
    );
    // Known but unlisted: a tombstone carrying the indexer's last known state.
    for name in ["b", "c"] {
        let d = fifo.get_by_key(&key(name)).unwrap();
        assert_eq!(
            summary(&d),
            vec![(DeltaType::Deleted, true, Some("1".into()))]
        );
        match &d[0].object {
            DeltaObject::Tombstone(t) => assert_eq!(t.key, key(name)),
            DeltaObject::Object(_) => panic!("expected a tombstone"),
        }
    }
    // Queued but unknown and unlisted: a tombstone carrying the newest queued state.
    assert_eq!(
        summary(&fifo.get_by_key(&key("q")).unwrap()),
        vec![
            (DeltaType::Added, false, Some("2".into())),
            (DeltaType::Deleted, true, Some("2".into()))
        ]
    );
    while fifo
        .try_pop(|k, d, _| {
            apply(&store, k, d);
            Ok(())
        })
        .is_some()
    {}
    assert_eq!(store.list_keys(), vec![key("a")]);
}

#[test]
fn delete_without_known_objects_is_dropped_after_pop() {
    // Without knownObjects the FIFO only knows what is still queued: once an object has been
    // popped, a DELETE for it looks like a duplicate report and is dropped, and a relist cannot
    // detect its absence either. This is why informers give the FIFO their indexer.
    let fifo = DeltaFifo::<ConfigMap>::new(DeltaFifoOptions::default());
    fifo.add(cm("a", "1")).unwrap();
    fifo.try_pop(|_, _, _| Ok(())).unwrap();
    fifo.delete(cm("a", "2")).unwrap();
    assert_eq!(fifo.len(), 0, "the Deleted event was lost");
    fifo.replace(vec![], "3").unwrap();
    assert_eq!(fifo.len(), 0, "and a relist cannot recover it");

    // The same sequence with the indexer as knownObjects keeps the deletion.
    let (fifo, store) = with_indexer();
    fifo.add(cm("a", "1")).unwrap();
    pop_into(&fifo, &store);
    fifo.delete(cm("a", "2")).unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![(DeltaType::Deleted, false, Some("2".into()))]
    );
    pop_into(&fifo, &store);
    assert!(store.is_empty());
    // A repeated DELETE of a key neither queued nor known is dropped.
    fifo.delete(cm("a", "2")).unwrap();
    assert!(fifo.is_empty());
}

#[test]
fn consecutive_deletes_are_deduplicated_keeping_non_tombstone() {
    let (fifo, store) = with_indexer();
    fifo.add(cm("a", "1")).unwrap();
    pop_into(&fifo, &store);
    // A real DELETE, then a relist that does not list "a": the tombstone is dropped.
    fifo.delete(cm("a", "2")).unwrap();
    fifo.replace(vec![], "3").unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![(DeltaType::Deleted, false, Some("2".into()))]
    );
    // Tombstone first, then a real DELETE: the real one replaces the tombstone.
    let (fifo, store) = with_indexer();
    fifo.add(cm("b", "1")).unwrap();
    pop_into(&fifo, &store);
    fifo.replace(vec![], "3").unwrap();
    fifo.delete(cm("b", "4")).unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("b")).unwrap()),
        vec![(DeltaType::Deleted, false, Some("4".into()))]
    );
    // Non-consecutive deletes are kept.
    fifo.add(cm("b", "5")).unwrap();
    fifo.delete(cm("b", "6")).unwrap();
    assert_eq!(fifo.get_by_key(&key("b")).unwrap().len(), 3);
    check_invariants(&fifo);
}

#[test]
fn resync_queues_sync_only_for_keys_with_nothing_queued() {
    let (fifo, store) = with_indexer();
    fifo.replace(vec![cm("a", "1"), cm("b", "1")], "1").unwrap();
    pop_into(&fifo, &store);
    pop_into(&fifo, &store);
    fifo.update(cm("b", "2")).unwrap();
    fifo.resync().unwrap();
    assert_eq!(fifo.list_keys(), vec![key("b"), key("a")]);
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![(DeltaType::Sync, false, Some("1".into()))]
    );
    // "b" keeps only its newer Updated: a Sync with the indexer's rv 1 would be stale.
    assert_eq!(
        summary(&fifo.get_by_key(&key("b")).unwrap()),
        vec![(DeltaType::Updated, false, Some("2".into()))]
    );
    // Resync without knownObjects does nothing.
    let bare = DeltaFifo::<ConfigMap>::new(DeltaFifoOptions::default());
    bare.resync().unwrap();
    assert!(bare.is_empty());
}

/// A frame asking whether a view synced must not wait while the FIFO's lock is held (a `replace`
/// of 100k objects, or a pop applying an object to the indexer): it stalled the dashboard's
/// frame for ~0.1 s at the end of a 100k list. And a true answer still means the indexer holds
/// the initial list: it is false while the last initial item is being processed.
#[test]
fn has_synced_answers_while_the_lock_is_held_and_turns_true_after_the_last_initial_item_is_processed()
 {
    use std::sync::mpsc;
    use std::time::Duration;
    let (fifo, store) = with_indexer();
    let fifo = Arc::new(fifo);
    fifo.replace(vec![cm("a", "1")], "1").unwrap();
    let (entered_tx, entered_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel::<()>();
    let popper = {
        let (fifo, store) = (fifo.clone(), store.clone());
        std::thread::spawn(move || {
            fifo.try_pop(|k, d, initial| {
                let _ = entered_tx.send(initial);
                // Hold the FIFO's lock until the test says so.
                let _ = release_rx.recv_timeout(Duration::from_secs(10));
                apply(&store, k, d);
                Ok(())
            })
            .is_some()
        })
    };
    assert_eq!(entered_rx.recv_timeout(Duration::from_secs(10)), Ok(true));
    // Asked from another thread while the popper holds the lock: answers at once.
    let (answer_tx, answer_rx) = mpsc::channel();
    let asker = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let _ = answer_tx.send(fifo.has_synced());
        })
    };
    let answer = answer_rx.recv_timeout(Duration::from_secs(2));
    let _ = release_tx.send(());
    assert_eq!(
        answer,
        Ok(false),
        "answered without the lock, and not yet synced"
    );
    assert!(popper.join().unwrap());
    asker.join().unwrap();
    assert!(fifo.has_synced());
    assert_eq!(store.len(), 1);
}

#[test]
fn has_synced_after_initial_population_popped() {
    let (fifo, store) = with_indexer();
    assert!(!fifo.has_synced());
    fifo.replace(vec![cm("a", "1"), cm("b", "1")], "1").unwrap();
    // Events arriving after the list do not extend the initial population.
    fifo.add(cm("c", "2")).unwrap();
    assert!(!fifo.has_synced());
    let p = pop_into(&fifo, &store);
    assert!(p.is_in_initial_list);
    assert!(!fifo.has_synced());
    let p = pop_into(&fifo, &store);
    assert!(p.is_in_initial_list);
    assert!(fifo.has_synced());
    let p = pop_into(&fifo, &store);
    assert!(!p.is_in_initial_list);
    // An empty first list syncs at once; so does a first add.
    let (fifo, _) = with_indexer();
    fifo.replace(vec![], "1").unwrap();
    assert!(fifo.has_synced());
    let (fifo, _) = with_indexer();
    fifo.add(cm("a", "1")).unwrap();
    assert!(fifo.has_synced());
}

#[test]
fn prepare_reuses_cached_object_with_same_rv() {
    let store = Arc::new(ThreadSafeStore::new(default_indexers()));
    let known: Arc<dyn KnownObjects<ConfigMap>> = store.clone();
    let fifo = DeltaFifo::new(DeltaFifoOptions {
        known_objects: Some(known),
        transform: Some(default_transform()),
        observer: None,
    });
    let mut raw = (*cm("a", "7")).clone();
    raw.metadata.managed_fields = Some(vec![ManagedFieldsEntry::default()]);
    let first = fifo.prepare(raw.clone());
    assert!(first.metadata.managed_fields.is_none(), "transform applied");
    store.add(&key("a"), Arc::clone(&first)).unwrap();
    let again = fifo.prepare(raw.clone());
    assert!(Arc::ptr_eq(&first, &again), "same rv reuses the cached Arc");
    raw.metadata.resource_version = Some("8".into());
    let newer = fifo.prepare(raw);
    assert!(!Arc::ptr_eq(&first, &newer));
    assert_eq!(newer.metadata.resource_version.as_deref(), Some("8"));
}

#[test]
fn default_transform_strips_managed_fields_and_last_applied() {
    let mut raw = (*cm("a", "1")).clone();
    raw.metadata.managed_fields = Some(vec![ManagedFieldsEntry::default()]);
    raw.metadata.annotations = Some(
        [
            (LAST_APPLIED_ANNOTATION.to_string(), "{...}".to_string()),
            ("keep".to_string(), "me".to_string()),
        ]
        .into(),
    );
    let t = default_transform::<ConfigMap>();
    let out = t(raw.clone());
    assert!(out.metadata.managed_fields.is_none());
    assert_eq!(
        out.metadata.annotations,
        Some([("keep".to_string(), "me".to_string())].into())
    );
    raw.metadata.annotations = Some([(LAST_APPLIED_ANNOTATION.to_string(), "x".into())].into());
    assert!(t(raw).metadata.annotations.is_none());
}

#[test]
fn failed_process_can_be_requeued_unless_newer_deltas_arrived() {
    let (fifo, _) = with_indexer();
    fifo.add(cm("a", "1")).unwrap();
    let p = fifo
        .try_pop(|_, _, _| Err(Error::Decode("handler failed".into())))
        .unwrap();
    assert!(p.result.is_err());
    fifo.add_if_not_present(p.deltas).unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![(DeltaType::Added, false, Some("1".into()))]
    );
    let p = fifo.try_pop(|_, _, _| Err(Error::Closed)).unwrap();
    fifo.update(cm("a", "2")).unwrap();
    fifo.add_if_not_present(p.deltas).unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![(DeltaType::Updated, false, Some("2".into()))]
    );
    check_invariants(&fifo);
}

#[tokio::test(start_paused = true)]
async fn pop_waits_for_an_item_and_fails_closed_once_drained() {
    let fifo = Arc::new(DeltaFifo::<ConfigMap>::new(DeltaFifoOptions::default()));
    let popper = {
        let fifo = Arc::clone(&fifo);
        tokio::spawn(async move {
            let mut got = Vec::new();
            loop {
                match fifo.pop(|_, _, _| Ok(())).await {
                    Ok(p) => got.push(p.key.to_string()),
                    Err(e) => return (got, e),
                }
            }
        })
    };
    tokio::time::sleep(std::time::Duration::from_secs(1)).await;
    fifo.add(cm("a", "1")).unwrap();
    tokio::task::yield_now().await;
    fifo.add(cm("b", "1")).unwrap();
    fifo.close();
    // Items queued before close are still delivered, then Closed.
    let (got, err) = popper.await.unwrap();
    assert_eq!(got, vec![key("a"), key("b")]);
    assert_eq!(err, Error::Closed);
    assert!(fifo.pop(|_, _, _| Ok(())).await.is_err());
}

#[test]
fn replace_with_an_unnamed_object_queues_nothing() {
    let (fifo, _) = with_indexer();
    let unnamed = Arc::new(ConfigMap::default());
    assert_eq!(
        fifo.replace(vec![cm("a", "1"), unnamed], "1"),
        Err(Error::MissingName)
    );
    assert!(fifo.is_empty());
    assert!(!fifo.has_synced());
}

// ---------------------------------------------------------------------------------------------
// Property test: random event sequences against a simple reference model.

const KEYS: usize = 6;

#[derive(Debug, Clone)]
enum Op {
    /// Server creates object `k`; the watch event is delivered iff `seen`.
    Create(usize, bool),
    Modify(usize, bool),
    Remove(usize, bool),
    /// The reflector relists the server's current state; with the keys computed by the caller
    /// (`replace_keyed`, as a streaming list) iff the flag is set.
    Relist(bool),
    Resync,
    Pop,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..KEYS, prop::bool::weighted(0.8)).prop_map(|(k, s)| Op::Create(k, s)),
        3 => (0..KEYS, prop::bool::weighted(0.8)).prop_map(|(k, s)| Op::Modify(k, s)),
        2 => (0..KEYS, prop::bool::weighted(0.8)).prop_map(|(k, s)| Op::Remove(k, s)),
        1 => any::<bool>().prop_map(Op::Relist),
        1 => Just(Op::Resync),
        4 => Just(Op::Pop),
    ]
}

type Sum = (DeltaType, bool, Option<String>);

/// A deliberately naive DeltaFIFO + indexer: vectors and linear scans, written from the rules.
#[derive(Default)]
struct Model {
    queue: Vec<String>,
    items: BTreeMap<String, Vec<Sum>>,
    store: BTreeMap<String, String>,
    populated: bool,
    initial: usize,
}

impl Model {
    fn push(&mut self, key: &str, d: Sum) {
        if !self.items.contains_key(key) {
            self.queue.push(key.to_string());
        }
        let ds = self.items.entry(key.to_string()).or_default();
        ds.push(d);
        let n = ds.len();
        if n >= 2 && ds[n - 1].0 == DeltaType::Deleted && ds[n - 2].0 == DeltaType::Deleted {
            let last = ds.remove(n - 1);
            if ds[n - 2].1 {
                ds[n - 2] = last;
            }
        }
    }

    fn delete(&mut self, key: &str, rv: &str) {
        self.populated = true;
        if self.items.contains_key(key) || self.store.contains_key(key) {
            self.push(key, (DeltaType::Deleted, false, Some(rv.to_string())));
        }
    }

    fn replace(&mut self, list: &BTreeMap<String, String>) {
        for (k, rv) in list {
            self.push(k, (DeltaType::Replaced, false, Some(rv.clone())));
        }
        let mut deletions = 0;
        let queued: Vec<String> = self.items.keys().cloned().collect();
        for k in queued {
            if list.contains_key(&k) {
                continue;
            }
            let last = self.items[&k].last().and_then(|d| d.2.clone());
            self.push(&k, (DeltaType::Deleted, true, last));
            deletions += 1;
        }
        let known: Vec<(String, String)> = self
            .store
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, rv) in known {
            if list.contains_key(&k) || self.items.contains_key(&k) {
                continue;
            }
            self.push(&k, (DeltaType::Deleted, true, Some(rv)));
            deletions += 1;
        }
        if !self.populated {
            self.populated = true;
            self.initial = list.len() + deletions;
        }
    }

    fn resync(&mut self) {
        let known: Vec<(String, String)> = self
            .store
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, rv) in known {
            if !self.items.contains_key(&k) {
                self.push(&k, (DeltaType::Sync, false, Some(rv)));
            }
        }
    }

    /// Returns (key, is_in_initial_list).
    fn pop(&mut self) -> Option<(String, bool)> {
        if self.queue.is_empty() {
            return None;
        }
        let initial = !(self.populated && self.initial == 0);
        let key = self.queue.remove(0);
        self.initial = self.initial.saturating_sub(1);
        let ds = self.items.remove(&key).unwrap_or_default();
        for (kind, _, rv) in ds {
            if kind == DeltaType::Deleted {
                self.store.remove(&key);
            } else if let Some(rv) = rv {
                self.store.insert(key.clone(), rv);
            }
        }
        Some((key, initial))
    }
}

fn fifo_snapshot(fifo: &DeltaFifo<ConfigMap>) -> (Vec<String>, BTreeMap<String, Vec<Sum>>) {
    let s = fifo.state.lock();
    let queue = s.queue.iter().map(|k| k.to_string()).collect();
    let items = s
        .items
        .iter()
        .map(|(k, d)| (k.to_string(), summary(d)))
        .collect();
    (queue, items)
}

fn store_snapshot(store: &ThreadSafeStore<ConfigMap>) -> BTreeMap<String, String> {
    store
        .list()
        .into_iter()
        .map(|o| {
            (
                meta_namespace_key(&*o).unwrap_or_default(),
                o.metadata.resource_version.clone().unwrap_or_default(),
            )
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fifo_matches_reference_model_and_relist_converges_to_server_state(
        ops in prop::collection::vec(op(), 1..120)
    ) {
        let (fifo, store) = with_indexer();
        let mut model = Model::default();
        let mut server: BTreeMap<String, String> = BTreeMap::new();
        let mut next_rv = 1u64;
        for op in ops {
            match op {
                Op::Create(i, seen) | Op::Modify(i, seen) | Op::Remove(i, seen) => {
                    let name = format!("o{i}");
                    let k = key(&name);
                    next_rv += 1;
                    let rv = next_rv.to_string();
                    let exists = server.contains_key(&k);
                    match op {
                        Op::Create(..) if !exists => {
                            server.insert(k.clone(), rv.clone());
                            if seen {
                                fifo.add(cm(&name, &rv)).unwrap();
                                model.populated = true;
                                model.push(&k, (DeltaType::Added, false, Some(rv)));
                            }
                        }
                        Op::Modify(..) if exists => {
                            server.insert(k.clone(), rv.clone());
                            if seen {
                                fifo.update(cm(&name, &rv)).unwrap();
                                model.populated = true;
                                model.push(&k, (DeltaType::Updated, false, Some(rv)));
                            }
                        }
                        Op::Remove(..) if exists => {
                            server.remove(&k);
                            if seen {
                                fifo.delete(cm(&name, &rv)).unwrap();
                                model.delete(&k, &rv);
                            }
                        }
                        _ => {}
                    }
                }
                Op::Relist(keyed) => {
                    let list: Vec<Arc<ConfigMap>> = server.iter().map(|(k, rv)| {
                        cm(k.trim_start_matches("ns/"), rv)
                    }).collect();
                    if keyed {
                        let list = list
                            .into_iter()
                            .map(|o| (Arc::from(meta_namespace_key(&*o).unwrap()), o))
                            .collect();
                        fifo.replace_keyed(list, "x").unwrap();
                    } else {
                        fifo.replace(list, "x").unwrap();
                    }
                    model.replace(&server);
                }
                Op::Resync => {
                    fifo.resync().unwrap();
                    let before = model.queue.len();
                    model.resync();
                    // Resync walks the indexer in its (hash) order, as client-go walks a Go map:
                    // the newly queued keys must be the same set; adopt the FIFO's order for them.
                    let (queue, _) = fifo_snapshot(&fifo);
                    let mut got: Vec<String> = queue.get(before..).unwrap_or_default().to_vec();
                    let mut want = model.queue.split_off(before);
                    got.sort();
                    want.sort();
                    prop_assert_eq!(&got, &want);
                    model.queue.extend(queue.into_iter().skip(before));
                }
                Op::Pop => {
                    let got = fifo.try_pop(|k, d, _| { apply(&store, k, d); Ok(()) });
                    let want = model.pop();
                    prop_assert_eq!(
                        got.map(|p| (p.key.to_string(), p.is_in_initial_list)),
                        want
                    );
                }
            }
            check_invariants(&fifo);
            let (queue, items) = fifo_snapshot(&fifo);
            prop_assert_eq!(&queue, &model.queue);
            prop_assert_eq!(&items, &model.items);
            prop_assert_eq!(store_snapshot(&store), model.store.clone());
            prop_assert_eq!(fifo.has_synced(), model.populated && model.initial == 0);
        }
        // Whatever was lost on the way, a relist followed by a drain converges to the server.
        let list = server.iter().map(|(k, rv)| cm(k.trim_start_matches("ns/"), rv)).collect();
        fifo.replace(list, "x").unwrap();
        while fifo.try_pop(|k, d, _| { apply(&store, k, d); Ok(()) }).is_some() {}
        prop_assert_eq!(store_snapshot(&store), server);
        prop_assert!(fifo.has_synced());
    }
}

fn cm_uid(name: &str, rv: &str, uid: &str) -> Arc<ConfigMap> {
    let mut c = (*cm(name, rv)).clone();
    c.metadata.uid = Some(uid.into());
    Arc::new(c)
}

#[test]
fn replace_emits_deleted_for_a_key_recreated_with_a_new_uid() {
    let (fifo, store) = with_indexer();
    fifo.replace(
        vec![cm_uid("a", "1", "uid-1"), cm_uid("b", "1", "uid-b")],
        "1",
    )
    .unwrap();
    pop_into(&fifo, &store);
    pop_into(&fifo, &store);
    // While the watch was down, "a" was deleted and recreated under the same name.
    fifo.replace(
        vec![cm_uid("a", "5", "uid-2"), cm_uid("b", "1", "uid-b")],
        "5",
    )
    .unwrap();
    check_invariants(&fifo);
    let d = fifo.get_by_key(&key("a")).unwrap();
    assert_eq!(
        summary(&d),
        vec![
            (DeltaType::Deleted, true, Some("1".into())),
            (DeltaType::Replaced, false, Some("5".into())),
        ]
    );
    match &d[0].object {
        DeltaObject::Tombstone(t) => {
            assert_eq!(
                t.obj.as_ref().and_then(|o| o.metadata.uid.clone()),
                Some("uid-1".into())
            );
        }
        DeltaObject::Object(_) => panic!("expected a tombstone of the old object"),
    }
    // Same uid: a plain Replaced, no deletion.
    assert_eq!(
        summary(&fifo.get_by_key(&key("b")).unwrap()),
        vec![(DeltaType::Replaced, false, Some("1".into()))]
    );
}

#[test]
fn replace_compares_uid_with_the_newest_queued_state() {
    let (fifo, _store) = with_indexer();
    // Queued but not yet popped: the recreated object replaces the queued one.
    fifo.add(cm_uid("a", "2", "uid-1")).unwrap();
    fifo.replace(vec![cm_uid("a", "4", "uid-2")], "4").unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![
            (DeltaType::Added, false, Some("2".into())),
            (DeltaType::Deleted, true, Some("2".into())),
            (DeltaType::Replaced, false, Some("4".into())),
        ]
    );
    // A queued watch deletion already reports the old object: no second tombstone.
    let (fifo, _store) = with_indexer();
    fifo.add(cm_uid("b", "2", "uid-1")).unwrap();
    fifo.delete(cm_uid("b", "3", "uid-1")).unwrap();
    fifo.replace(vec![cm_uid("b", "4", "uid-2")], "4").unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("b")).unwrap()),
        vec![
            (DeltaType::Added, false, Some("2".into())),
            (DeltaType::Deleted, false, Some("3".into())),
            (DeltaType::Replaced, false, Some("4".into())),
        ]
    );
}

/// client-go `isDeletionDup`: of two consecutive plain `Deleted` deltas the older is kept (the
/// first deletion reported is the final state); of two tombstones, the newer.
#[test]
fn consecutive_plain_deletes_keep_the_older_one() {
    let (fifo, store) = with_indexer();
    fifo.add(cm("a", "1")).unwrap();
    pop_into(&fifo, &store);
    fifo.delete(cm("a", "2")).unwrap();
    fifo.delete(cm("a", "3")).unwrap();
    assert_eq!(
        summary(&fifo.get_by_key(&key("a")).unwrap()),
        vec![(DeltaType::Deleted, false, Some("2".into()))]
    );
    // Two relists in a row without a pop: the newer tombstone wins.
    let (fifo, store) = with_indexer();
    fifo.add(cm("b", "1")).unwrap();
    pop_into(&fifo, &store);
    fifo.replace(vec![], "4").unwrap();
    fifo.replace(vec![], "5").unwrap();
    let deltas = fifo.get_by_key(&key("b")).unwrap();
    assert_eq!(deltas.len(), 1);
    assert!(deltas[0].object.is_tombstone());
    check_invariants(&fifo);
}

/// client-go `ErrZeroLengthDeltasObject`.
#[test]
fn add_if_not_present_with_no_deltas_is_an_error() {
    let (fifo, _) = with_indexer();
    assert_eq!(
        fifo.add_if_not_present(Vec::new()),
        Err(Error::ZeroLengthDeltas)
    );
    assert!(fifo.is_empty());
    check_invariants(&fifo);
}
