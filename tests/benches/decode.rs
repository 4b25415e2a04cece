//! Decode throughput of one realistic pod (~10 KB of JSON, managedFields from two managers, as a
//! real API server sends it): the cache's masked decode next to a full decode and to the floor of
//! validating the JSON without building anything (`IgnoredAny`). Bytes per second are reported
//! (criterion's throughput), so the figures compare with a list body's transfer rate.
//!
//! `cargo bench --bench decode`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kinformer::demo::realistic::fixture_pod;
use kinformer::informer::decode::{decode_dynamic, decode_dynamic_masked};
use kinformer::render::cache_mask;
use serde::de::IgnoredAny;

fn decode(c: &mut Criterion) {
    let text = serde_json::to_string(&fixture_pod()).expect("fixture encodes");
    let mask = cache_mask("Pod");
    let mut g = c.benchmark_group("decode_realistic_pod");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("masked (the cache's decode)", |b| {
        b.iter(|| decode_dynamic_masked(std::hint::black_box(&text), &mask).expect("decodes"))
    });
    g.bench_function("full", |b| {
        b.iter(|| decode_dynamic(std::hint::black_box(&text)).expect("decodes"))
    });
    g.bench_function("validate only (floor)", |b| {
        b.iter(|| {
            serde_json::from_str::<IgnoredAny>(std::hint::black_box(&text)).expect("valid JSON")
        })
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
