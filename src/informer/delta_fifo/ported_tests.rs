//! client-go's `tools/cache/delta_fifo_test.go`, ported case by case. Each test names the
//! client-go test it ports. Objects are ConfigMaps in namespace `ns` whose resourceVersion plays
//! the part of client-go's `testFifoObject.val`. Where client-go's test runs with
//! `EmitDeltaTypeReplaced: false` and expects `Sync` from `Replace`, the port expects `Replaced`
//! (this FIFO always emits it, as informers configure client-go's).

use super::*;
use k8s_openapi::api::core::v1::ConfigMap;
use std::sync::atomic::{AtomicUsize, Ordering};

fn cm(name: &str, rv: u32) -> Arc<ConfigMap> {
    let mut c = ConfigMap::default();
    c.metadata.name = Some(name.into());
    c.metadata.namespace = Some("ns".into());
    c.metadata.resource_version = Some(rv.to_string());
    Arc::new(c)
}

fn key(name: &str) -> String {
    format!("ns/{name}")
}

/// client-go's `literalListerGetter`: known objects that never change.
struct Literal(Vec<Arc<ConfigMap>>);

impl KnownObjects<ConfigMap> for Literal {
    fn list_keys(&self) -> Vec<String> {
        self.0
            .iter()
            .filter_map(|o| meta_namespace_key(&**o).ok())
            .collect()
    }
    fn get_by_key(&self, key: &str) -> Option<Arc<ConfigMap>> {
        self.0
            .iter()
            .find(|o| meta_namespace_key(&***o).ok().as_deref() == Some(key))
            .cloned()
    }
}

fn fifo() -> DeltaFifo<ConfigMap> {
    DeltaFifo::new(DeltaFifoOptions::default())
}

fn fifo_knowing(known: &[(&str, u32)]) -> DeltaFifo<ConfigMap> {
    let objects = known.iter().map(|(n, rv)| cm(n, *rv)).collect();
    let known: Arc<dyn KnownObjects<ConfigMap>> = Arc::new(Literal(objects));
    DeltaFifo::new(DeltaFifoOptions {
        known_objects: Some(known),
        transform: None,
        observer: None,
    })
}

/// What one delta says: its type, whether it is a tombstone (and for which key), and the
/// resourceVersion of the object it carries.
#[derive(Debug, Clone, PartialEq)]
enum D {
    Obj(DeltaType, u32),
    Tomb(String, Option<u32>),
}

fn rv_of(o: &ConfigMap) -> u32 {
    o.metadata
        .resource_version
        .as_deref()
        .and_then(|rv| rv.parse().ok())
        .expect("numeric resourceVersion")
}

fn describe(deltas: &Deltas<ConfigMap>) -> Vec<D> {
    deltas
        .iter()
        .map(|d| match &d.object {
            DeltaObject::Object(o) => D::Obj(d.kind, rv_of(o)),
            DeltaObject::Tombstone(t) => {
                assert_eq!(
                    d.kind,
                    DeltaType::Deleted,
                    "tombstone on a non-delete delta"
                );
                D::Tomb(t.key.clone(), t.obj.as_deref().map(rv_of))
            }
        })
        .collect()
}

/// Pop one key: (key, deltas described).
fn pop(f: &DeltaFifo<ConfigMap>) -> (String, Vec<D>) {
    let p = f.try_pop(|_, _, _| Ok(())).expect("something queued");
    (p.key.to_string(), describe(&p.deltas))
}

/// The resourceVersion of the newest object popped (client-go's `testPop(f).val`).
fn pop_newest(f: &DeltaFifo<ConfigMap>) -> u32 {
    let p = f.try_pop(|_, _, _| Ok(())).expect("something queued");
    let newest = p.deltas.last().and_then(|d| d.object.object().cloned());
    rv_of(&newest.expect("an object"))
}

fn tomb(name: &str, rv: u32) -> D {
    D::Tomb(key(name), Some(rv))
}

use DeltaType::{Added, Deleted, Replaced, Sync, Updated};

/// `TestDeltaFIFO_basic`: two producers; each one's keys come out in the order it added them.
#[tokio::test(start_paused = true)]
async fn keys_from_concurrent_producers_pop_in_each_producers_order() {
    let f = Arc::new(fifo());
    const AMOUNT: u32 = 500;
    let producers: Vec<_> = ["a", "b"]
        .into_iter()
        .map(|prefix| {
            let f = Arc::clone(&f);
            tokio::spawn(async move {
                for i in 0..AMOUNT {
                    f.add(cm(&format!("{prefix}-{i}"), i + 1)).expect("add");
                    if i % 7 == 0 {
                        tokio::task::yield_now().await;
                    }
                }
            })
        })
        .collect();
    let (mut last_a, mut last_b) = (0, 0);
    for _ in 0..AMOUNT * 2 {
        let p = f.pop(|_, _, _| Ok(())).await.expect("pop");
        let newest = p.deltas.last().and_then(|d| d.object.object().cloned());
        let v = rv_of(&newest.expect("object"));
        let last = if p.key.starts_with("ns/a-") {
            &mut last_a
        } else {
            &mut last_b
        };
        assert!(v > *last, "{} out of order: {v} after {last}", p.key);
        *last = v;
    }
    for p in producers {
        p.await.expect("producer");
    }
    assert_eq!((last_a, last_b), (AMOUNT, AMOUNT));
}

/// `TestDeltaFIFO_replaceWithDeleteDeltaIn` (kubernetes#83810): a relist that lists an object
/// whose queued newest delta is a deletion still queues it, so its re-creation is not missed.
#[test]
fn replace_after_a_queued_delete_still_queues_the_listed_object() {
    let f = fifo_knowing(&[("foo", 1)]);
    f.delete(cm("foo", 1)).unwrap();
    f.replace(vec![cm("foo", 2)], "").unwrap();
    assert_eq!(
        pop(&f),
        (key("foo"), vec![D::Obj(Deleted, 1), D::Obj(Replaced, 2)])
    );
}

/// `TestDeltaFIFOW_ReplaceMakesDeletionsForObjectsOnlyInQueue`, all six cases, with and without
/// known objects: an object only in the queue gets exactly one deletion from a relist missing it.
#[test]
fn replace_deletes_objects_only_in_the_queue_exactly_once() {
    type Ops = fn(&DeltaFifo<ConfigMap>);
    let cases: Vec<(&str, Ops, Vec<D>)> = vec![
        (
            "added object is deleted on replace",
            |f| {
                f.add(cm("foo", 2)).unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Obj(Added, 2), tomb("foo", 2)],
        ),
        (
            "replaced object has only a single delete",
            |f| {
                f.add(cm("foo", 2)).unwrap();
                f.replace(vec![cm("foo", 2)], "0").unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Obj(Added, 2), D::Obj(Replaced, 2), tomb("foo", 2)],
        ),
        (
            "deleted object has only a single delete",
            |f| {
                f.add(cm("foo", 2)).unwrap();
                f.delete(cm("foo", 2)).unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![D::Obj(Added, 2), D::Obj(Deleted, 2)],
        ),
        (
            "synced object has a single delete",
            |f| {
                f.add(cm("foo", 2)).unwrap();
                f.replace(vec![cm("foo", 2)], "0").unwrap();
                f.replace(vec![cm("foo", 2)], "0").unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![
                D::Obj(Added, 2),
                D::Obj(Replaced, 2),
                D::Obj(Replaced, 2),
                tomb("foo", 2),
            ],
        ),
        (
            "added object has a single delete on multiple replaces",
            |f| {
                f.add(cm("foo", 2)).unwrap();
                f.replace(vec![], "0").unwrap();
                f.replace(vec![], "1").unwrap();
            },
            vec![D::Obj(Added, 2), tomb("foo", 2)],
        ),
        (
            "added, deleted and added object is deleted with its newest state",
            |f| {
                f.add(cm("foo", 2)).unwrap();
                f.delete(cm("foo", 2)).unwrap();
                f.add(cm("foo", 3)).unwrap();
                f.replace(vec![], "0").unwrap();
            },
            vec![
                D::Obj(Added, 2),
                D::Obj(Deleted, 2),
                D::Obj(Added, 3),
                tomb("foo", 3),
            ],
        ),
    ];
    for (name, ops, expected) in cases {
        for f in [fifo_knowing(&[]), fifo()] {
            let with_known = f.known_objects().is_some();
            ops(&f);
            assert_eq!(
                pop(&f),
                (key("foo"), expected.clone()),
                "{name} (known objects: {with_known})"
            );
            assert!(
                f.is_empty(),
                "{name}: no extra deltas (known objects: {with_known})"
            );
        }
    }
}

/// `TestDeltaFIFO_addUpdate`: add, update and delete of one key pop once, with the newest state.
#[test]
fn add_update_delete_of_one_key_pop_once_with_the_newest_state() {
    let f = fifo();
    f.add(cm("foo", 10)).unwrap();
    f.update(cm("foo", 12)).unwrap();
    f.delete(cm("foo", 15)).unwrap();
    assert_eq!(f.list_keys(), vec![key("foo")]);
    assert_eq!(pop_newest(&f), 15);
    assert!(f.try_pop(|_, _, _| Ok(())).is_none(), "got a second value");
    assert!(
        f.get_by_key(&key("foo")).is_none(),
        "item did not get removed"
    );
}

/// `TestDeltaFIFO_transformer`: every object is transformed exactly once, however often it is
/// queued, and tombstones carry the transformed object. Here the transform runs in `prepare`
/// (the reflector's call for each object received) instead of inside `add`/`update`/`delete`.
#[test]
fn objects_are_transformed_once_and_tombstones_carry_the_transformed_object() {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    let transform: Transform<ConfigMap> = Arc::new(move |mut c: ConfigMap| {
        counted.fetch_add(1, Ordering::SeqCst);
        let labels = c.metadata.labels.get_or_insert_with(Default::default);
        labels.entry("xfrm".into()).or_default().push('x');
        c
    });
    let f = DeltaFifo::new(DeltaFifoOptions {
        known_objects: None,
        transform: Some(transform),
        observer: None,
    });
    let mk = |name: &str, rv: u32| f.prepare((*cm(name, rv)).clone());
    f.add(mk("foo", 10)).unwrap();
    f.add(mk("bar", 11)).unwrap();
    f.update(mk("foo", 12)).unwrap();
    f.delete(mk("foo", 15)).unwrap();
    f.replace(vec![], "").unwrap();
    f.add(mk("bar", 16)).unwrap();
    f.replace(vec![], "").unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 5);
    assert_eq!(f.list_keys(), vec![key("foo"), key("bar")]);
    let times = |o: &ConfigMap| {
        o.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("xfrm"))
            .map(String::len)
    };
    for expected in ["foo", "bar"] {
        let p = f.try_pop(|_, _, _| Ok(())).expect("popped");
        assert_eq!(&*p.key, key(expected));
        let newest = p.deltas.last().expect("deltas");
        let obj = newest.object.object().expect("object");
        match expected {
            "foo" => {
                assert!(!newest.object.is_tombstone(), "regular deletion of foo");
                assert_eq!(rv_of(obj), 15);
            }
            _ => {
                assert!(newest.object.is_tombstone(), "tombstone deletion of bar");
                assert_eq!(rv_of(obj), 16);
            }
        }
        assert_eq!(times(obj), Some(1), "{expected} transformed once");
    }
}

/// `TestDeltaFIFO_enqueueingNoLister`: without known objects, deleting an unqueued key queues
/// nothing.
#[test]
fn without_known_objects_a_delete_of_an_unqueued_key_is_dropped() {
    let f = fifo();
    f.add(cm("foo", 10)).unwrap();
    f.update(cm("bar", 15)).unwrap();
    f.add(cm("qux", 17)).unwrap();
    f.delete(cm("qux", 18)).unwrap();
    f.delete(cm("baz", 20)).unwrap();
    let got: Vec<u32> = (0..3).map(|_| pop_newest(&f)).collect();
    assert_eq!(got, vec![10, 15, 18]);
    assert!(f.is_empty());
}

/// `TestDeltaFIFO_enqueueingWithLister`: a delete of a key only the known objects hold is queued.
#[test]
fn with_known_objects_a_delete_of_a_known_key_is_queued() {
    let f = fifo_knowing(&[("foo", 5), ("bar", 6), ("baz", 7)]);
    f.add(cm("foo", 10)).unwrap();
    f.update(cm("bar", 15)).unwrap();
    f.delete(cm("baz", 20)).unwrap();
    let got: Vec<u32> = (0..3).map(|_| pop_newest(&f)).collect();
    assert_eq!(got, vec![10, 15, 20]);
    assert!(f.is_empty());
}

/// `TestDeltaFIFO_addReplace`: an add followed by a relist of the same key pops once, newest.
#[test]
fn add_then_replace_of_one_key_pops_once_with_the_listed_state() {
    let f = fifo();
    f.add(cm("foo", 10)).unwrap();
    f.replace(vec![cm("foo", 15)], "0").unwrap();
    assert_eq!(pop_newest(&f), 15);
    assert!(f.try_pop(|_, _, _| Ok(())).is_none(), "got a second value");
    assert!(f.get_by_key(&key("foo")).is_none());
}

/// `TestDeltaFIFO_ResyncNonExisting` and `TestDeltaFIFO_Resync`: resync adds `Sync` for a known
/// key, but not on top of a queued deletion.
#[test]
fn resync_queues_sync_for_known_keys_but_not_over_a_queued_delete() {
    let f = fifo_knowing(&[("foo", 5)]);
    f.delete(cm("foo", 10)).unwrap();
    f.resync().unwrap();
    assert_eq!(
        describe(&f.get_by_key(&key("foo")).expect("queued")),
        vec![D::Obj(Deleted, 10)]
    );

    let f = fifo_knowing(&[("foo", 5)]);
    f.resync().unwrap();
    assert_eq!(
        describe(&f.get_by_key(&key("foo")).expect("queued")),
        vec![D::Obj(Sync, 5)]
    );
}

/// `TestDeltaFIFO_DeleteExistingNonPropagated`: a delete of a key that is queued but not yet known
/// is queued after its add.
#[test]
fn delete_of_a_queued_but_unknown_key_is_queued() {
    let f = fifo_knowing(&[]);
    f.add(cm("foo", 5)).unwrap();
    f.delete(cm("foo", 6)).unwrap();
    assert_eq!(
        describe(&f.get_by_key(&key("foo")).expect("queued")),
        vec![D::Obj(Added, 5), D::Obj(Deleted, 6)]
    );
}

/// `TestDeltaFIFO_ReplaceMakesDeletions` (all five variants) and
/// `TestDeltaFIFO_ReplaceMakesDeletionsReplaced`: a relist tombstones every queued or known key
/// it does not list, with the newest queued state, else the known one.
#[test]
fn replace_tombstones_unlisted_keys_with_their_newest_state() {
    let known = [("foo", 5), ("bar", 6), ("baz", 7)];

    // A pre-existing queued delete is not doubled.
    let f = fifo_knowing(&known);
    f.delete(cm("baz", 10)).unwrap();
    f.replace(vec![cm("foo", 5)], "0").unwrap();
    assert_eq!(pop(&f), (key("baz"), vec![D::Obj(Deleted, 10)]));
    assert_eq!(pop(&f), (key("foo"), vec![D::Obj(Replaced, 5)]));
    assert_eq!(pop(&f), (key("bar"), vec![tomb("bar", 6)]));

    // A queued add is tombstoned with the queued (newer) state, not the known one.
    let f = fifo_knowing(&known);
    f.add(cm("baz", 10)).unwrap();
    f.replace(vec![cm("foo", 5)], "0").unwrap();
    assert_eq!(
        pop(&f),
        (key("baz"), vec![D::Obj(Added, 10), tomb("baz", 10)])
    );
    assert_eq!(pop(&f), (key("foo"), vec![D::Obj(Replaced, 5)]));
    assert_eq!(pop(&f), (key("bar"), vec![tomb("bar", 6)]));

    // Deleted and re-created in the queue, then missing from the relist.
    let f = fifo_knowing(&known);
    f.delete(cm("bar", 6)).unwrap();
    f.add(cm("bar", 100)).unwrap();
    f.replace(vec![cm("foo", 5)], "0").unwrap();
    assert_eq!(
        pop(&f),
        (
            key("bar"),
            vec![D::Obj(Deleted, 6), D::Obj(Added, 100), tomb("bar", 100)]
        )
    );
    assert_eq!(pop(&f), (key("foo"), vec![D::Obj(Replaced, 5)]));
    assert_eq!(pop(&f), (key("baz"), vec![tomb("baz", 7)]));

    // Listed first, then missing from the next relist: tombstoned with the listed state.
    let f = fifo_knowing(&known);
    f.replace(vec![cm("bar", 100), cm("foo", 5)], "0").unwrap();
    f.replace(vec![cm("foo", 5)], "0").unwrap();
    assert_eq!(
        pop(&f),
        (key("bar"), vec![D::Obj(Replaced, 100), tomb("bar", 100)])
    );
    assert_eq!(
        pop(&f),
        (key("foo"), vec![D::Obj(Replaced, 5), D::Obj(Replaced, 5)])
    );
    assert_eq!(pop(&f), (key("baz"), vec![tomb("baz", 7)]));

    // Without known objects only queued keys can be tombstoned.
    let f = fifo();
    f.add(cm("baz", 10)).unwrap();
    f.replace(vec![cm("foo", 5)], "0").unwrap();
    assert_eq!(
        pop(&f),
        (key("baz"), vec![D::Obj(Added, 10), tomb("baz", 10)])
    );
    assert_eq!(pop(&f), (key("foo"), vec![D::Obj(Replaced, 5)]));
    assert!(f.is_empty());

    // `ReplaceMakesDeletionsReplaced`: the listed object's new state is the one queued.
    let f = fifo_knowing(&known);
    f.delete(cm("baz", 10)).unwrap();
    f.replace(vec![cm("foo", 6)], "0").unwrap();
    assert_eq!(pop(&f), (key("baz"), vec![D::Obj(Deleted, 10)]));
    assert_eq!(pop(&f), (key("foo"), vec![D::Obj(Replaced, 6)]));
    assert_eq!(pop(&f), (key("bar"), vec![tomb("bar", 6)]));
}

/// `TestDeltaFIFO_ReplaceDeltaType`: a relist of a known, unchanged object queues `Replaced`.
#[test]
fn replace_of_a_known_object_queues_replaced() {
    let f = fifo_knowing(&[("foo", 5)]);
    f.replace(vec![cm("foo", 5)], "0").unwrap();
    assert_eq!(pop(&f), (key("foo"), vec![D::Obj(Replaced, 5)]));
    assert!(f.is_empty());
}

/// `TestDeltaFIFO_UpdateResyncRace`: a resync does not queue the known (older) state behind a
/// queued update.
#[test]
fn resync_after_an_update_does_not_queue_the_older_known_state() {
    let f = fifo_knowing(&[("foo", 5)]);
    f.update(cm("foo", 6)).unwrap();
    f.resync().unwrap();
    assert_eq!(pop(&f), (key("foo"), vec![D::Obj(Updated, 6)]));
    assert!(f.is_empty());
}

/// `TestDeltaFIFO_HasSyncedCorrectOnDeletion`: tombstones queued by the first relist belong to
/// the initial population: not synced until they are popped, and popped as initial-list items.
#[test]
fn has_synced_waits_for_the_tombstones_of_the_first_replace() {
    let f = fifo_knowing(&[("foo", 5), ("bar", 6), ("baz", 7)]);
    f.replace(vec![cm("foo", 5)], "0").unwrap();
    let expected = [
        (key("foo"), vec![D::Obj(Replaced, 5)]),
        (key("bar"), vec![tomb("bar", 6)]),
        (key("baz"), vec![tomb("baz", 7)]),
    ];
    for e in expected {
        assert!(!f.has_synced());
        let p = f.try_pop(|_, _, _| Ok(())).expect("queued");
        assert_eq!((p.key.to_string(), describe(&p.deltas)), e);
        assert!(p.is_in_initial_list, "{} is an initial-list item", p.key);
    }
    assert!(f.has_synced());
}

/// `TestDeltaFIFO_detectLineJumpers`: a key keeps its place in line when more deltas arrive, and
/// goes to the back once popped.
#[test]
fn a_queued_key_keeps_its_place_and_a_popped_one_goes_to_the_back() {
    let f = fifo();
    f.add(cm("foo", 10)).unwrap();
    f.add(cm("bar", 1)).unwrap();
    f.add(cm("foo", 11)).unwrap();
    f.add(cm("foo", 13)).unwrap();
    f.add(cm("zab", 30)).unwrap();
    assert_eq!(pop_newest(&f), 13);
    f.add(cm("foo", 14)).unwrap();
    assert_eq!(pop_newest(&f), 1);
    assert_eq!(pop_newest(&f), 30);
    assert_eq!(pop_newest(&f), 14);
}

/// `TestDeltaFIFO_addIfNotPresent` (client-go before the `ErrRequeue` removal): requeued deltas are
/// dropped for a key already queued, queued at the back otherwise; empty deltas are refused.
#[test]
fn add_if_not_present_requeues_only_keys_not_queued() {
    let f = fifo();
    assert_eq!(
        f.add_if_not_present(Vec::new()),
        Err(Error::ZeroLengthDeltas)
    );
    f.add(cm("b", 3)).unwrap();
    let b3 = f.try_pop(|_, _, _| Ok(())).expect("b").deltas;
    f.add(cm("c", 4)).unwrap();
    let c4 = f.try_pop(|_, _, _| Ok(())).expect("c").deltas;
    assert!(f.is_empty());
    f.add(cm("a", 1)).unwrap();
    f.add(cm("b", 2)).unwrap();
    f.add_if_not_present(b3).unwrap();
    f.add_if_not_present(c4).unwrap();
    assert_eq!(f.len(), 3);
    let got: Vec<u32> = (0..3).map(|_| pop_newest(&f)).collect();
    assert_eq!(got, vec![1, 2, 4]);
}

/// `TestDeltaFIFO_KeyOf`: deltas are keyed by their newest object, or a tombstone's key.
#[test]
fn deltas_are_keyed_by_their_newest_object_or_tombstone() {
    let object = vec![Delta {
        kind: Added,
        object: DeltaObject::Object(cm("c", 1)),
    }];
    assert_eq!(deltas_key(&object), Ok(key("c")));
    let tombstone: Deltas<ConfigMap> = vec![Delta {
        kind: Deleted,
        object: DeltaObject::Tombstone(DeletedFinalStateUnknown {
            key: "ns/d".into(),
            obj: None,
        }),
    }];
    assert_eq!(deltas_key(&tombstone), Ok(key("d")));
    // A tombstone-only requeue lands under the tombstone's key.
    let f = fifo();
    f.add_if_not_present(tombstone).unwrap();
    assert_eq!(f.list_keys(), vec![key("d")]);
}

/// `TestDeltaFIFO_HasSynced`, all seven cases.
#[test]
fn has_synced_after_the_first_population_is_popped() {
    type Ops = fn(&DeltaFifo<ConfigMap>);
    let pop_one: fn(&DeltaFifo<ConfigMap>) = |f| {
        f.try_pop(|_, _, _| Ok(())).expect("queued");
    };
    let replace_ab: Ops = |f| f.replace(vec![cm("a", 1), cm("b", 2)], "0").unwrap();
    let cases: Vec<(Vec<Ops>, bool)> = vec![
        (vec![], false),
        (vec![|f| f.add(cm("a", 1)).unwrap()], true),
        (vec![|f| f.replace(vec![], "0").unwrap()], true),
        (vec![replace_ab], false),
        (vec![replace_ab, pop_one], false),
        (vec![replace_ab, pop_one, pop_one], true),
        // Duplicate keys in one list (a broken apiserver): one key, one pop.
        (
            vec![
                |f| f.replace(vec![cm("a", 1), cm("a", 2)], "0").unwrap(),
                pop_one,
            ],
            true,
        ),
    ];
    for (i, (ops, expected)) in cases.into_iter().enumerate() {
        let f = fifo();
        for op in ops {
            op(&f);
        }
        assert_eq!(f.has_synced(), expected, "case {i}");
    }
}

/// `TestDeltaFIFO_PopShouldUnblockWhenClosed`: every `pop` blocked on an empty FIFO returns once
/// it is closed.
#[tokio::test(start_paused = true)]
async fn close_unblocks_every_waiting_pop() {
    let f = Arc::new(fifo_knowing(&[("foo", 5)]));
    let poppers: Vec<_> = (0..10)
        .map(|_| {
            let f = Arc::clone(&f);
            tokio::spawn(async move { f.pop(|_, _, _| Ok(())).await.map(|p| p.key) })
        })
        .collect();
    tokio::task::yield_now().await;
    f.close();
    for p in poppers {
        let res = tokio::time::timeout(std::time::Duration::from_millis(500), p)
            .await
            .expect("pop returned after close")
            .expect("task");
        assert_eq!(res, Err(Error::Closed));
    }
}
