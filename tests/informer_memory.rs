//! Bytes per cached Pod, measured with a counting allocator: realistic pods (the fixture has
//! managedFields, several containers, env, volumes) go through the DeltaFIFO's `prepare` (the
//! default transform) into the indexer with the default indexes plus the node index.
//!
//! Two figures are printed (`cargo test --test informer_memory -- --nocapture`): with the
//! informer's default transform (managedFields and last-applied dropped, the object otherwise
//! whole), and with the dashboard's cache transform (`render::prune`, plugged in through the
//! factory's transform hook), which must fit the 6 KB budget; and, for the dashboard's cache of
//! the demo pods, where those bytes go by field (the memory profile of issue 28), which must fit
//! [`CACHE_BUDGET`].
//!
//! The profile of the demo pods' cache (requested bytes a pod, debug build, 5,000 pods):
//!
//! | field                                   | 2026-11-28 | packed record (2026-11-29) |
//! |-----------------------------------------|-----------:|---------------------------:|
//! | metadata.labels                         |      702 B | in the record              |
//! | metadata.ownerReferences                |      204 B |                      204 B |
//! | metadata, the rest                      |      345 B |                      345 B |
//! | data (row summary, node, uses, ...)     |    1,011 B |  276 B (labels included)   |
//! | apiVersion/kind                         |       53 B |                       53 B |
//! | the object struct and its Arc           |      456 B |                      456 B |
//! | store key, indexes                      |      488 B |                      465 B |
//! | **cache**                               | **3,356 B in 35.4 allocations** | **1,927 B in 14.5** |
//!
//! The other big kinds, the same way (2026-11-29; the demo's objects, whatever their number:
//! bytes scale linearly, so 100k of them cost 100,000 times this):
//!
//! | kind       | bytes and allocations per cached object | what holds them |
//! |------------|-----------------------------------------|-----------------|
//! | ReplicaSet | 8,370 B in 59.2; packed record (2026-12-07): **2,224 B in 16.4** | metadata and one string: its kept data as compact JSON, its labels and kept annotation (`kinformer::informer::cached::unpacked`) |
//! | Event      | 3,070 B in 43.2; packed record (2026-12-07): **1,199 B in 8.0** | metadata and one string: what its readers read, as compact JSON (`kinformer::informer::cached::event`) |
//! | ConfigMap  | 2,828 B in 19.5                         | metadata, labels and kept annotations (`data` keeps its keys, each value `""`) |
//!
//! A ReplicaSet cost 2.5 times a Pod until it was packed into one record as a Pod and an Event
//! are (the target is 2,500 B: real clusters keep ten old ReplicaSets per Deployment).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

use kinformer::informer::delta_fifo::{
    DeltaFifo, DeltaFifoOptions, KnownObjects, Transform, default_transform,
};
use kinformer::informer::index::{NODE_INDEX, default_indexers, dynamic_pod_node_index_func};
use kinformer::informer::meta_namespace_key;
use kinformer::informer::thread_safe_store::ThreadSafeStore;
use kube::api::DynamicObject;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
/// Live allocations (malloc adds 8 bytes of its own to each and rounds sizes up to 16).
static ALLOCS: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        ALLOCS.fetch_sub(1, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const N: usize = 5_000;

/// Bytes a demo pod may cost in the dashboard's cache: the packed record (labels and the pod's
/// data in one string, see `kinformer::informer::cached`) holds it near 1,930 B; the labels map
/// and the data map it replaced cost ~1,400 B more (3,356 B).
const CACHE_BUDGET: f64 = 2_100.0;
/// Allocations a demo pod may hold in the cache (35.4 before the record, 14.5 with it).
const CACHE_ALLOCATIONS: f64 = 17.0;

/// Live bytes added by caching N distinct pods, decoded as the dynamic API decodes them, through
/// `DeltaFifo::prepare` with `transform` into an indexer with the factory's pod indexes.
fn bytes_per_cached_pod(transform: Transform<DynamicObject>) -> f64 {
    let json: serde_json::Value = serde_json::from_str(include_str!("fixtures/pod.json")).unwrap();
    assert!(
        json["metadata"]["managedFields"].is_array(),
        "fixture carries managedFields"
    );
    let mut indexers = default_indexers::<DynamicObject>();
    indexers.insert(NODE_INDEX.into(), dynamic_pod_node_index_func());
    let store = Arc::new(ThreadSafeStore::new(indexers));
    let known: Arc<dyn KnownObjects<DynamicObject>> = store.clone();
    let fifo = DeltaFifo::new(DeltaFifoOptions {
        known_objects: Some(known),
        transform: Some(transform),
        observer: None,
    });
    let before = LIVE.load(Ordering::Relaxed);
    for i in 0..N {
        let mut v = json.clone();
        v["metadata"]["name"] = format!("web-7d4b9c8f6d-{i:05}").into();
        v["metadata"]["namespace"] = format!("team-{}", i % 40).into();
        v["metadata"]["uid"] = format!("6f1c2b9e-0000-4000-8000-{i:012}").into();
        v["metadata"]["resourceVersion"] = format!("{}", 100_000 + i).into();
        v["spec"]["nodeName"] = format!("node-{}", i % 300).into();
        let obj: DynamicObject = serde_json::from_value(v).unwrap();
        let obj = fifo.prepare(obj);
        let key = meta_namespace_key(&*obj).unwrap();
        store.add(&key, obj).unwrap();
    }
    let after = LIVE.load(Ordering::Relaxed);
    assert_eq!(store.len(), N);
    let per_pod = (after - before) as f64 / N as f64;
    drop(store);
    per_pod
}

#[test]
fn cached_pod_after_cache_transform_fits_the_memory_budget() {
    // One test in this binary, so no other test allocates while we count.
    let whole = bytes_per_cached_pod(default_transform());
    let prune: Transform<DynamicObject> = Arc::new(|o| kinformer::render::prune("Pod", o));
    let pruned = bytes_per_cached_pod(prune);
    println!("bytes per cached pod: default transform {whole:.0}, render::prune {pruned:.0}");
    assert!(pruned < whole, "pruning must shrink the cache");
    assert!(
        pruned <= 6.0 * 1024.0,
        "{pruned:.0} bytes per cached pod exceeds 6 KB"
    );
    let ((cache, cache_allocs), (rows, row_allocs)) = dashboard_bytes_per_pod();
    println!(
        "dashboard, demo pods: cache {cache:.0} B in {cache_allocs:.1} allocations per pod, \
         App rows {rows:.0} B in {row_allocs:.1} allocations per pod"
    );
    assert!(
        cache <= CACHE_BUDGET,
        "{cache:.0} bytes per cached pod exceed {CACHE_BUDGET} (did a map come back?)"
    );
    assert!(
        cache_allocs <= CACHE_ALLOCATIONS,
        "{cache_allocs:.1} allocations per cached pod exceed {CACHE_ALLOCATIONS}"
    );
    // The other big kinds, as the dashboard caches the demo cluster's.
    for (plural, kind, budget, alloc_budget) in OTHER_KINDS {
        let (n, bytes, allocs) = dashboard_bytes_per_object(plural, kind);
        println!(
            "dashboard, demo {plural}: {n} cached, {bytes:.0} B in {allocs:.1} allocations each"
        );
        assert!(n > 0, "the demo makes {plural}");
        assert!(
            bytes <= budget,
            "{bytes:.0} bytes per cached {kind} exceed {budget}"
        );
        assert!(
            allocs <= alloc_budget,
            "{allocs:.1} allocations per cached {kind} exceed {alloc_budget}"
        );
    }
}

/// The other big kinds and the bytes and allocations one of the demo's may cost in the
/// dashboard's cache: what they cost now (see the module doc) and a little room, so that a cache
/// that grows fails here. An Event is one packed record (1,199 B in 8.0; the target is 2,000 B),
/// a ReplicaSet too (2,224 B in 16.4; the target 2,500 B): their maps coming back fails.
const OTHER_KINDS: [(&str, &str, f64, f64); 3] = [
    ("replicasets", "ReplicaSet", 2_500.0, 18.0),
    ("configmaps", "ConfigMap", 3_200.0, 21.0),
    ("events", "Event", 1_400.0, 9.0),
];

/// Live bytes and allocations per object of `plural` as the dashboard caches the demo cluster's
/// (decoded through the kind's cache mask, pruned into an indexer with the default indexes).
fn dashboard_bytes_per_object(plural: &str, kind: &str) -> (usize, f64, f64) {
    use kinformer::demo::mutation::Mutation;
    use kinformer::demo::sim::{SimConfig, Simulator};
    use kinformer::informer::decode::decode_dynamic_masked;

    let mut sim = Simulator::new(SimConfig {
        pods: N,
        ..SimConfig::default()
    });
    let objects: Vec<String> = sim
        .seed_iter()
        .filter_map(|m| match m {
            Mutation::Create { resource, object } if resource.plural == plural => {
                Some(object.to_string())
            }
            _ => None,
        })
        .collect();
    let mask = kinformer::render::cache_mask(kind);
    let store = Arc::new(ThreadSafeStore::new(default_indexers::<DynamicObject>()));
    let (b0, a0) = (LIVE.load(Ordering::Relaxed), ALLOCS.load(Ordering::Relaxed));
    for json in &objects {
        let obj = decode_dynamic_masked(json, &mask).unwrap();
        let obj = Arc::new(kinformer::render::prune(kind, obj));
        let key = meta_namespace_key(&*obj).unwrap();
        store.add(&key, obj).unwrap();
    }
    let (b1, a1) = (LIVE.load(Ordering::Relaxed), ALLOCS.load(Ordering::Relaxed));
    let n = store.len();
    drop(store);
    let per = |d: isize| d as f64 / n.max(1) as f64;
    (n, per(b1 - b0), per(a1 - a0))
}

/// Live bytes and allocations per pod, as the dashboard holds the demo cluster's pods: the list
/// JSON decoded through the cache mask, pruned into the indexer, then one row summary per pod
/// in the App's pods view.
fn dashboard_bytes_per_pod() -> ((f64, f64), (f64, f64)) {
    use kinformer::demo::mutation::Mutation;
    use kinformer::demo::sim::{SimConfig, Simulator};
    use kinformer::informer::decode::decode_dynamic_masked;
    use kinformer::ui::action::{Action, Effect, ObjectSummary};
    use kinformer::ui::{App, AppConfig, KeyMap};

    let mut sim = Simulator::new(SimConfig {
        pods: N,
        ..SimConfig::default()
    });
    let pods: Vec<String> = sim
        .seed_iter()
        .filter_map(|m| match m {
            Mutation::Create { resource, object } if resource.plural == "pods" => {
                Some(object.to_string())
            }
            _ => None,
        })
        .collect();
    let mask = kinformer::render::cache_mask("Pod");
    let mut indexers = default_indexers::<DynamicObject>();
    indexers.insert(NODE_INDEX.into(), dynamic_pod_node_index_func());
    let store = Arc::new(ThreadSafeStore::new(indexers));
    let live = || LIVE.load(Ordering::Relaxed);
    let allocs = || ALLOCS.load(Ordering::Relaxed);
    let (b0, a0) = (live(), allocs());
    for json in &pods {
        let obj = decode_dynamic_masked(json, &mask).unwrap();
        let obj = Arc::new(kinformer::render::prune("Pod", obj));
        let key = meta_namespace_key(&*obj).unwrap();
        store.add(&key, obj).unwrap();
    }
    let (b1, a1) = (live(), allocs());
    for o in store.list() {
        let labels = kinformer::informer::cached::labels(&o);
        assert!(
            o.metadata.labels.is_none() && !labels.is_empty(),
            "a cached pod's labels are packed in its record: {:?}",
            o.metadata.labels
        );
    }
    field_profile(&store, (b1 - b0) as f64);
    let mut app = App::new(AppConfig::default(), KeyMap::defaults().unwrap());
    let view = app
        .init()
        .into_iter()
        .find_map(|e| match e {
            Effect::OpenResource { view, .. } => Some(view),
            _ => None,
        })
        .unwrap();
    let (b2, a2) = (live(), allocs());
    let upserts: Vec<ObjectSummary> = store
        .list()
        .iter()
        .filter_map(|o| ObjectSummary::from_object("Pod", o, None))
        .collect();
    app.update(Action::Rows {
        view,
        upserts,
        deletes: Vec::new(),
    });
    let (b3, a3) = (live(), allocs());
    let n = store.len() as f64;
    assert_eq!(store.len(), pods.len());
    let cache = ((b1 - b0) as f64 / n, (a1 - a0) as f64 / n);
    let rows = ((b3 - b2) as f64 / n, (a3 - a2) as f64 / n);
    drop(app);
    drop(store);
    cache.0.is_finite().then_some((cache, rows)).unwrap()
}

/// Live bytes (requested sizes; malloc adds ~8 B and rounding to each allocation) a cached pod
/// holds, by field, measured by deep-cloning each part of every cached object; what is left of
/// `cache_total` is the store's and the indexes' own (keys, maps, index sets, the `Arc`).
fn field_profile(store: &ThreadSafeStore<DynamicObject>, cache_total: f64) {
    let live = || LIVE.load(Ordering::Relaxed);
    let objs = store.list();
    let n = objs.len() as f64;
    let cost = |f: &dyn Fn(&DynamicObject) -> Box<dyn std::any::Any>| -> f64 {
        let mut total = 0isize;
        for o in &objs {
            let before = live();
            let held = f(o);
            total += live() - before;
            drop(held);
        }
        total as f64 / n
    };
    let labels = cost(&|o| Box::new(o.metadata.labels.clone()));
    let annotations = cost(&|o| Box::new(o.metadata.annotations.clone()));
    let owners = cost(&|o| Box::new(o.metadata.owner_references.clone()));
    let metadata = cost(&|o| Box::new(o.metadata.clone()));
    let spec = cost(&|o| Box::new(o.data.get("spec").cloned()));
    let status = cost(&|o| Box::new(o.data.get("status").cloned()));
    let data = cost(&|o| Box::new(o.data.clone()));
    let packed_labels = objs
        .iter()
        .map(|o| match kinformer::informer::cached::labels(o) {
            kinformer::informer::cached::Labels::Packed(p) => p.len(),
            kinformer::informer::cached::Labels::Map(_) => 0,
        })
        .sum::<usize>() as f64
        / n;
    let types = cost(&|o| Box::new(o.types.clone()));
    let object = metadata + data + types + std::mem::size_of::<DynamicObject>() as f64 + 16.0;
    println!("bytes per cached pod by field (live bytes, demo pods):");
    for (what, b) in [
        ("metadata.labels", labels),
        ("metadata.annotations", annotations),
        ("metadata.ownerReferences", owners),
        (
            "metadata, the rest (name, namespace, uid, rv, times)",
            metadata - labels - annotations - owners,
        ),
        ("spec", spec),
        ("status", status),
        (
            "data, the rest (the pod's record: summary, node, labels...)",
            data - spec - status,
        ),
        ("  of which the packed labels", packed_labels),
        ("apiVersion/kind", types),
        (
            "the object struct and its Arc",
            object - metadata - data - types,
        ),
        ("store key, indexes", cache_total / n - object),
    ] {
        println!("  {what:<55} {b:>6.0} B");
    }
}
