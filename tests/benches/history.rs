//! Per-object history's cost on the event path (see `kinformer::informer::history`): one
//! realistic pod (~10 KB of JSON) as a watch event delivers a new version of it, decoded through
//! the cache's mask and pruned (history off) next to decoded through the widened mask, observed
//! and pruned, with the pop hook naming the version (history on). 2,000 pods, each seen once as a
//! baseline first, so every measured observe is a change to an object already tracked (a new
//! resourceVersion and a changed label, as the bench's figure 9 and the demo's churn make).
//!
//! `cargo bench --bench history`

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use kinformer::demo::realistic::fixture_pod;
use kinformer::informer::decode::{Mask, ObjectMask, decode_dynamic_masked};
use kinformer::informer::delta_fifo::{Delta, DeltaObject, DeltaType};
use kinformer::informer::history::History;
use kinformer::render::{cache_mask, history_decode_mask, history_mask, prune};
use kube::api::DynamicObject;
use serde_json::Value;

const PODS: usize = 2_000;

/// Version `round` of pod `i`: its own name, a new resourceVersion and a changed label.
fn version(base: &Value, i: usize, round: usize) -> String {
    let mut v = base.clone();
    v["metadata"]["name"] = Value::String(format!("checkout-{i}"));
    v["metadata"]["resourceVersion"] = Value::String(format!("{}", 1_000_000 + round * PODS + i));
    v["metadata"]["labels"]["bench-round"] = Value::String(round.to_string());
    v.to_string()
}

fn key_of(obj: &kube::api::DynamicObject) -> String {
    kinformer::informer::meta_namespace_key(obj).unwrap_or_default()
}

type Event = (String, [Delta<DynamicObject>; 1]);

/// A watch event's object with history off: decoded through the cache's mask, pruned, keyed.
#[inline(never)]
fn event_off(json: &str, cache: &ObjectMask) -> Event {
    let obj = prune("Pod", decode_dynamic_masked(json, cache).expect("decodes"));
    let key = key_of(&obj);
    let deltas = [Delta {
        kind: DeltaType::Updated,
        object: DeltaObject::Object(Arc::new(obj)),
    }];
    (key, deltas)
}

/// The same with history on: decoded through the widened mask, observed, pruned, keyed, and
/// the pop hook naming the version.
#[inline(never)]
fn event_on(json: &str, wide: &ObjectMask, tracked: Mask, history: &History) -> Event {
    let obj = decode_dynamic_masked(json, wide).expect("decodes");
    history.observe_as("pods", &obj, tracked, Some(DeltaType::Updated));
    let obj = prune("Pod", obj);
    let key = key_of(&obj);
    let deltas = [Delta {
        kind: DeltaType::Updated,
        object: DeltaObject::Object(Arc::new(obj)),
    }];
    history.popped("pods", &key, &deltas);
    (key, deltas)
}

fn event_path(c: &mut Criterion) {
    let base = fixture_pod();
    let first: Vec<String> = (0..PODS).map(|i| version(&base, i, 0)).collect();
    let (cache, wide, tracked) = (
        cache_mask("Pod"),
        history_decode_mask("Pod"),
        history_mask("Pod"),
    );
    let history = Arc::new(History::with_mib(64));
    for json in &first {
        let obj = decode_dynamic_masked(json, &wide).expect("decodes");
        history.observe_as("pods", &obj, tracked, Some(DeltaType::Replaced));
    }
    let mut g = c.benchmark_group("history_event_path");
    // Fresh versions each iteration (a version already recorded would cost one lookup only),
    // made outside the timed part, and the events dropped outside it, alike on both sides.
    let mut round = 1usize;
    let mut i = 0usize;
    let base2 = base.clone();
    let mut next = move || {
        i += 1;
        if i == PODS {
            i = 0;
            round += 1;
        }
        version(&base2, i, round + 4)
    };
    g.bench_function("off: decode (cache mask) + prune", |b| {
        b.iter_batched(
            &mut next,
            |json| event_off(&json, &cache),
            criterion::BatchSize::SmallInput,
        )
    });
    g.bench_function(
        "on: decode (widened mask) + observe + prune + pop hook",
        |b| {
            b.iter_batched(
                &mut next,
                |json| event_on(&json, &wide, tracked, &history),
                criterion::BatchSize::SmallInput,
            )
        },
    );
    // The same with the decode mask history had before it read the writers (no managedFields
    // at all): what naming each version's writer adds is the difference with the bench above.
    let no_writers = ObjectMask {
        managed_writers: false,
        ..wide
    };
    let history_nw = Arc::new(History::with_mib(64));
    for json in &first {
        let obj = decode_dynamic_masked(json, &no_writers).expect("decodes");
        history_nw.observe_as("pods", &obj, tracked, Some(DeltaType::Replaced));
    }
    g.bench_function(
        "on, no writers: decode (widened mask, no managedFields) + observe + prune + pop hook",
        |b| {
            b.iter_batched(
                &mut next,
                |json| event_on(&json, &no_writers, tracked, &history_nw),
                criterion::BatchSize::SmallInput,
            )
        },
    );
    let objs: Vec<_> = (0..PODS)
        .map(|i| decode_dynamic_masked(&version(&base, i, 100), &wide).expect("decodes"))
        .collect();
    let mut k = 0usize;
    let mut rv = 10_000_000u64;
    g.bench_function("observe alone (a changed version)", |b| {
        b.iter_batched(
            || {
                k = (k + 1) % PODS;
                rv += 1;
                let mut o = objs[k].clone();
                o.metadata.resource_version = Some(rv.to_string());
                if let Some(l) = o.metadata.labels.as_mut() {
                    l.insert("bench-round".into(), rv.to_string());
                }
                o
            },
            |o| {
                history.observe_as("pods", &o, tracked, Some(DeltaType::Updated));
                o
            },
            criterion::BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, event_path);
criterion_main!(benches);
