//! Informer benchmarks: `cargo bench --bench informer`.
//!
//! - `pipeline/*`: deltas per second from a 100k-pod list through the reflector, DeltaFIFO,
//!   indexer and one handler (`informer_100k`), and through DeltaFIFO → indexer alone
//!   (`fifo_indexer_100k`).
//! - `sync_tail/*`: the end of a streaming list, as the dashboard's pods informer meets it: the
//!   realistic pods (decoded as `DynamicObject`, pruned as the cache keeps them) have all arrived
//!   through the watch and are held by the reflector; timed from the initial-events-end bookmark
//!   to `has_synced` (the `Replace` into the DeltaFIFO and every pop into the indexer with the
//!   dashboard's pod indexes). The part of a sync that comes after the list's last byte.
//! - `by_index/*`: a label value matching 1% of 100k pods, answered from the label index vs a
//!   linear scan of the cache (what the index replaces).
//! - `memory/*`: bytes per cached pod, counted by a counting global allocator: live heap after
//!   decoding realistic pods (tests/fixtures/pod*.json, each with a unique name) and storing them
//!   in an indexer with the default indexes, minus live heap before decoding, divided by the
//!   count. Printed once as `bytes per cached pod (...)` lines; the timed part is transform +
//!   insert of the batch.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::delta_fifo::{
    DeltaFifo, DeltaFifoOptions, DeltaObject, DeltaType, KnownObjects, default_transform,
};
use kinformer::informer::index::{LABEL_INDEX, NODE_INDEX, default_indexers, pod_node_index_func};
use kinformer::informer::list_watch::{FakeListerWatcher, ListerWatcher};
use kinformer::informer::reflector::ReflectorConfig;
use kinformer::informer::shared_informer::{
    DeleteObject, InformerConfig, ResourceEventHandler, SharedIndexInformer,
};
use kinformer::informer::thread_safe_store::ThreadSafeStore;
use tokio_util::sync::CancellationToken;

/// 100k objects under `cargo bench`; 10k when `cargo test --all-targets` runs the benches once
/// in test mode (a debug build), so CI stays quick.
fn n() -> usize {
    if std::env::args().any(|a| a == "--bench") {
        100_000
    } else {
        10_000
    }
}

/// The system allocator, counting live bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded to the system allocator with the caller's layout.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as GlobalAlloc::realloc, forwarded.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
            LIVE.fetch_add(new_size, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// 100k pods cloned from the realistic fixture (managedFields, containers, env, volumes), each
/// with its own name, rv, node and an `app` label shared by 1% of them.
fn pods(n: usize) -> Vec<Pod> {
    let base: Pod = match serde_json::from_str(include_str!("../fixtures/pod.json")) {
        Ok(p) => p,
        Err(e) => panic!("fixture: {e}"),
    };
    (0..n)
        .map(|i| {
            let mut p = base.clone();
            p.metadata.name = Some(format!("pod-{i}"));
            p.metadata.namespace = Some(format!("ns-{}", i % 50));
            p.metadata.resource_version = Some(format!("{}", 1000 + i));
            p.metadata.uid = Some(format!("uid-{i}"));
            let labels = p.metadata.labels.get_or_insert_with(Default::default);
            labels.insert("app".into(), format!("app-{}", i % 100));
            if let Some(spec) = p.spec.as_mut() {
                spec.node_name = Some(format!("node-{}", i % 500));
            }
            p
        })
        .collect()
}

struct Counter(AtomicUsize);

impl ResourceEventHandler<Pod> for Counter {
    fn on_add(&self, _: &Arc<Pod>, _: bool) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    fn on_update(&self, _: &Arc<Pod>, _: &Arc<Pod>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    fn on_delete(&self, _: &DeleteObject<Pod>) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn pipeline(c: &mut Criterion) {
    let n = n();
    let fixture = pods(n);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("runtime: {e}"),
    };
    let mut g = c.benchmark_group("pipeline");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(n as u64));

    g.bench_function("informer_100k", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let fake = FakeListerWatcher::<Pod>::shared();
                fake.push_list_page(fixture.clone(), "200000", None);
                let _watch = fake.push_watch_live();
                let lw: Arc<dyn ListerWatcher<Pod>> = fake;
                let mut indexers = default_indexers::<Pod>();
                indexers.insert(NODE_INDEX.into(), pod_node_index_func());
                let inf = SharedIndexInformer::new(
                    lw,
                    InformerConfig {
                        kind: "v1/pods".into(),
                        indexers,
                        // The fake scripts a list, then a watch (no streaming list).
                        reflector: ReflectorConfig {
                            use_streaming_list: false,
                            ..Default::default()
                        },
                        ..Default::default()
                    },
                );
                let counter = Arc::new(Counter(AtomicUsize::new(0)));
                let reg = match inf.add_event_handler(counter.clone(), None) {
                    Ok(r) => r,
                    Err(e) => panic!("handler: {e}"),
                };
                let cancel = CancellationToken::new();
                let start = Instant::now();
                let task = {
                    let inf = Arc::clone(&inf);
                    let cancel = cancel.clone();
                    rt.spawn(async move { inf.run(cancel).await })
                };
                while counter.0.load(Ordering::Relaxed) < n || !reg.has_synced() {
                    std::thread::sleep(Duration::from_micros(200));
                }
                total += start.elapsed();
                cancel.cancel();
                let _ = rt.block_on(task);
            }
            total
        })
    });

    g.bench_function("fifo_indexer_100k", |b| {
        let arcs: Vec<Arc<Pod>> = fixture
            .iter()
            .map(|p| Arc::new(default_transform::<Pod>()(p.clone())))
            .collect();
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let store = Arc::new(ThreadSafeStore::new(default_indexers::<Pod>()));
                let known: Arc<dyn KnownObjects<Pod>> = store.clone();
                let fifo = DeltaFifo::new(DeltaFifoOptions {
                    known_objects: Some(known),
                    transform: None,
                    observer: None,
                });
                let list = arcs.clone();
                let start = Instant::now();
                if let Err(e) = fifo.replace(list, "1") {
                    panic!("replace: {e}");
                }
                let mut handled = 0usize;
                while let Some(p) = fifo.try_pop(|key, deltas, _| {
                    for d in deltas {
                        match (&d.kind, &d.object) {
                            (DeltaType::Deleted, _) => {
                                store.delete(key);
                            }
                            (_, DeltaObject::Object(o)) => store.update(key, Arc::clone(o))?,
                            _ => {}
                        }
                    }
                    Ok(())
                }) {
                    handled += p.deltas.len();
                }
                total += start.elapsed();
                black_box(handled);
            }
            total
        })
    });
    g.finish();
}

fn by_index(c: &mut Criterion) {
    let n = n();
    let store = ThreadSafeStore::new(default_indexers::<Pod>());
    for p in pods(n) {
        let key = format!(
            "{}/{}",
            p.metadata.namespace.as_deref().unwrap_or_default(),
            p.metadata.name.as_deref().unwrap_or_default()
        );
        if let Err(e) = store.add(&key, Arc::new(default_transform::<Pod>()(p))) {
            panic!("add: {e}");
        }
    }
    assert_eq!(store.index_cardinality(LABEL_INDEX, "app=app-7"), n / 100);
    let mut g = c.benchmark_group("by_index");
    g.sample_size(20);
    g.bench_function("label_1pct_of_100k_index", |b| {
        b.iter(|| black_box(store.by_index(LABEL_INDEX, black_box("app=app-7"))))
    });
    g.bench_function("label_1pct_of_100k_scan", |b| {
        b.iter(|| {
            let hits: Vec<Arc<Pod>> = store
                .list()
                .into_iter()
                .filter(|p| {
                    p.metadata
                        .labels
                        .as_ref()
                        .and_then(|l| l.get("app"))
                        .is_some_and(|v| v == black_box("app-7"))
                })
                .collect();
            black_box(hits)
        })
    });
    g.bench_function("two_terms_intersection_index", |b| {
        b.iter(|| black_box(store.by_index_all(LABEL_INDEX, black_box(&["app=app-7", "app"]))))
    });
    g.finish();
}

const MEM_N: usize = 10_000;

/// The JSON texts of `n` realistic pods: the pod fixtures in turn, each with a unique
/// name, uid and resourceVersion (decoded from text, so strings are sized as a real decode).
fn pod_texts(n: usize) -> Vec<String> {
    let fixtures = [
        include_str!("../fixtures/pod.json"),
        include_str!("../fixtures/pod_completed.json"),
        include_str!("../fixtures/pod_crashloop.json"),
        include_str!("../fixtures/pod_init.json"),
        include_str!("../fixtures/pod_terminating.json"),
    ];
    let bases: Vec<serde_json::Value> = fixtures
        .iter()
        .map(|t| match serde_json::from_str(t) {
            Ok(v) => v,
            Err(e) => panic!("fixture: {e}"),
        })
        .collect();
    (0..n)
        .map(|i| {
            let mut v = bases[i % bases.len()].clone();
            v["metadata"]["name"] = format!("pod-{i:06}-x2x9z").into();
            v["metadata"]["uid"] = format!("6f1c2e7a-0000-4000-8000-{i:012}").into();
            v["metadata"]["resourceVersion"] = format!("{}", 100_000 + i).into();
            v.to_string()
        })
        .collect()
}

/// Live heap bytes per pod kept by an indexer (default indexes) holding `n` pods decoded from
/// `texts` as `K` and passed through `transform`.
fn cached_bytes_per_pod<K>(texts: &[String], transform: impl Fn(K) -> K) -> usize
where
    K: kinformer::informer::Object + serde::de::DeserializeOwned,
{
    let before = LIVE.load(Ordering::Relaxed);
    let store = ThreadSafeStore::new(default_indexers::<K>());
    for t in texts {
        let obj: K = match serde_json::from_str(t) {
            Ok(o) => o,
            Err(e) => panic!("decode: {e}"),
        };
        let obj = transform(obj);
        let key = match kinformer::informer::meta_namespace_key(&obj) {
            Ok(k) => k,
            Err(e) => panic!("key: {e}"),
        };
        if let Err(e) = store.add(&key, Arc::new(obj)) {
            panic!("add: {e}");
        }
    }
    let after = LIVE.load(Ordering::Relaxed);
    let per = after.saturating_sub(before) / texts.len().max(1);
    drop(black_box(store));
    per
}

fn memory(c: &mut Criterion) {
    use kube::api::DynamicObject;
    let texts = pod_texts(MEM_N);
    let raw_json: usize = texts.iter().map(String::len).sum::<usize>() / MEM_N;
    let typed_default = cached_bytes_per_pod::<Pod>(&texts, |p| default_transform::<Pod>()(p));
    let dyn_default =
        cached_bytes_per_pod::<DynamicObject>(&texts, |p| default_transform::<DynamicObject>()(p));
    let dyn_prune =
        cached_bytes_per_pod::<DynamicObject>(&texts, |p| kinformer::render::prune("Pod", p));
    println!("bytes per cached pod ({MEM_N} pods, fixtures pod*.json, JSON {raw_json} B each):");
    println!("  typed Pod + default transform:          {typed_default} B");
    println!("  DynamicObject + default transform:      {dyn_default} B");
    println!("  DynamicObject + render::prune(\"Pod\"): {dyn_prune} B (target <= 6144 B)");

    let mut g = c.benchmark_group("memory");
    g.sample_size(10);
    g.throughput(Throughput::Elements(MEM_N as u64));
    g.bench_function("decode_prune_insert_10k", |b| {
        b.iter(|| {
            black_box(cached_bytes_per_pod::<DynamicObject>(&texts, |p| {
                kinformer::render::prune("Pod", p)
            }))
        })
    });
    g.finish();
}

/// `n` realistic pods (the demo's fixture) as the dashboard's cache keeps them: decoded as
/// `DynamicObject` and pruned, each with its own name, uid, resourceVersion and node, spread over
/// 50 namespaces.
fn pruned_dynamic_pods(n: usize) -> Vec<kube::api::DynamicObject> {
    let base = kinformer::demo::realistic::fixture_pod();
    (0..n)
        .map(|i| {
            let mut v = base.clone();
            v["metadata"]["name"] = format!("checkout-7d4b9c6f8-{i:06}").into();
            v["metadata"]["namespace"] = format!("ns-{}", i % 50).into();
            v["metadata"]["uid"] = format!("6f1c2e7a-0000-4000-8000-{i:012}").into();
            v["metadata"]["resourceVersion"] = format!("{}", 100_000 + i).into();
            v["spec"]["nodeName"] = format!("node-{}", i % 500).into();
            let obj: kube::api::DynamicObject = match serde_json::from_value(v) {
                Ok(o) => o,
                Err(e) => panic!("fixture: {e}"),
            };
            kinformer::render::prune("Pod", obj)
        })
        .collect()
}

fn sync_tail(c: &mut Criterion) {
    use kinformer::informer::index::dynamic_pod_node_index_func;
    use kinformer::informer::list_watch::WatchEvent;
    use kube::api::DynamicObject;
    let n = n();
    let fixture = pruned_dynamic_pods(n);
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => panic!("runtime: {e}"),
    };
    let mut g = c.benchmark_group("sync_tail");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function(format!("streaming_list_end_{}k", n / 1000), |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let fake = FakeListerWatcher::<DynamicObject>::shared();
                let tx = fake.push_watch_live();
                let lw: Arc<dyn ListerWatcher<DynamicObject>> = fake;
                let mut indexers = default_indexers::<DynamicObject>();
                indexers.insert(NODE_INDEX.into(), dynamic_pod_node_index_func());
                let inf = SharedIndexInformer::new(
                    lw,
                    InformerConfig {
                        kind: "pods".into(),
                        indexers,
                        ..Default::default()
                    },
                );
                let cancel = CancellationToken::new();
                let task = {
                    let inf = Arc::clone(&inf);
                    let cancel = cancel.clone();
                    rt.spawn(async move { inf.run(cancel).await })
                };
                for p in &fixture {
                    if tx.send(Ok(WatchEvent::Added(p.clone()))).is_err() {
                        panic!("watch closed");
                    }
                }
                // Every object received and held by the reflector before the clock starts.
                loop {
                    let received = inf
                        .reflector_status()
                        .map(|rx| rx.borrow().events)
                        .unwrap_or(0);
                    if received >= n as u64 {
                        break;
                    }
                    std::thread::sleep(Duration::from_micros(200));
                }
                let start = Instant::now();
                let end = WatchEvent::Bookmark {
                    resource_version: "200000".into(),
                    initial_events_end: true,
                };
                if tx.send(Ok(end)).is_err() {
                    panic!("watch closed");
                }
                while !inf.has_synced() {
                    std::thread::sleep(Duration::from_micros(200));
                }
                total += start.elapsed();
                assert_eq!(inf.indexer().len(), n);
                cancel.cancel();
                let _ = rt.block_on(task);
            }
            total
        })
    });
    g.finish();
}

criterion_group!(benches, pipeline, by_index, memory, sync_tail);
criterion_main!(benches);
