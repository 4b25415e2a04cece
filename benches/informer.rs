//! Informer benchmarks: `cargo bench --bench informer`.
//!
//! - `pipeline/*`: deltas per second from a 100k-pod list through the reflector, DeltaFIFO,
//!   indexer and one handler (`informer_100k`), and through DeltaFIFO → indexer alone
//!   (`fifo_indexer_100k`).
//! - `by_index/*`: a label value matching 1% of 100k pods, answered from the label index vs a
//!   linear scan of the cache (what the index replaces).

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

/// 100k pods cloned from the realistic fixture (managedFields, containers, env, volumes), each
/// with its own name, rv, node and an `app` label shared by 1% of them.
fn pods(n: usize) -> Vec<Pod> {
    let base: Pod = match serde_json::from_str(include_str!("../tests/fixtures/pod.json")) {
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

criterion_group!(benches, pipeline, by_index);
criterion_main!(benches);
