//! Time travel's cost (see `kinformer::informer::history::past_view`): 10,000 realistic pods
//! recorded as a list (baselines), then 30 rounds of churn at one-second steps, each changing
//! 200 pods (a new phase-bearing label and restart count), deleting 20 and creating 20; the
//! live objects are the pruned latest ones, as the informer's cache holds them.
//!
//! - `past_view`: every pod as it was in the middle of the churn (the `:at` path);
//! - `step`: `[` pressed again and again from there: the change instants of the view, then the
//!   view just before the previous change, moved from the view before it (what a `[` or `]` key
//!   press costs); the first bench forgets the view before each time (a first `:at`), freeing its
//!   objects outside the timing (a first `:at` has none to free; measured inside, as until
//!   2026-11-29, the frees of ~3,300 rebuilt objects were about a quarter of the figure).
//!
//! Targets (issue 30): a past view of 10k objects ≤ 100 ms, a step ≤ 50 ms.
//!
//! `cargo bench --bench past_view`

use std::sync::Arc;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use kinformer::demo::realistic::fixture_pod;
use kinformer::informer::decode::decode_dynamic_masked;
use kinformer::informer::delta_fifo::DeltaType;
use kinformer::informer::history::{History, step_back};
use kinformer::render::{history_decode_mask, history_mask, prune};
use kube::api::DynamicObject;
use serde_json::Value;

const PODS: usize = 10_000;
const ROUNDS: usize = 30;
const CHANGED: usize = 200;
const CHURNED: usize = 20;

fn pod(base: &Value, name: &str, rv: usize, round: usize) -> DynamicObject {
    let mut v = base.clone();
    v["metadata"]["name"] = Value::String(name.to_string());
    v["metadata"]["resourceVersion"] = Value::String(rv.to_string());
    v["metadata"]["labels"]["round"] = Value::String(round.to_string());
    if let Some(s) = v.pointer_mut("/status/containerStatuses/0/restartCount") {
        *s = Value::from(round);
    }
    decode_dynamic_masked(&v.to_string(), &history_decode_mask("Pod")).expect("decodes")
}

/// The recorder after the churn, and the live (pruned) pods.
fn setup() -> (History, Vec<Arc<DynamicObject>>) {
    let base = fixture_pod();
    let h = History::with_mib(256);
    let mask = history_mask("Pod");
    let mut live: std::collections::BTreeMap<String, DynamicObject> = Default::default();
    let mut rv = 1_000_000;
    for i in 0..PODS {
        let name = format!("checkout-{i}");
        let o = pod(&base, &name, rv, 0);
        rv += 1;
        h.observe_as_at("pods", &o, mask, Some(DeltaType::Replaced), 1_000);
        live.insert(name, o);
    }
    let mut next = PODS;
    for round in 1..=ROUNDS {
        let at = 1_000 + 1_000 * round as i64;
        let names: Vec<String> = live.keys().cloned().collect();
        for name in names
            .iter()
            .skip(round * 7)
            .step_by(names.len() / CHANGED)
            .take(CHANGED)
        {
            let o = pod(&base, name, rv, round);
            rv += 1;
            h.observe_as_at("pods", &o, mask, Some(DeltaType::Updated), at);
            live.insert(name.clone(), o);
        }
        for name in names
            .iter()
            .skip(round)
            .step_by(names.len() / CHURNED)
            .take(CHURNED)
        {
            if live.remove(name).is_some() {
                // A watch's DELETED carries the deletion's resourceVersion.
                let gone = pod(&base, name, rv, round);
                rv += 1;
                h.observe_as_at("pods", &gone, mask, Some(DeltaType::Deleted), at);
            }
            let fresh = format!("checkout-{next}");
            next += 1;
            let o = pod(&base, &fresh, rv, round);
            rv += 1;
            h.observe_as_at("pods", &o, mask, Some(DeltaType::Added), at);
            live.insert(fresh, o);
        }
    }
    let live = live
        .into_values()
        .map(|o| Arc::new(prune("Pod", o)))
        .collect();
    (h, live)
}

fn past_view(c: &mut Criterion) {
    let (h, live) = setup();
    let middle = 1_000 + 1_000 * (ROUNDS as i64 / 2) + 500;
    let ns = live
        .first()
        .and_then(|o| o.metadata.namespace.clone())
        .unwrap_or_default();
    let view = h.past_view("pods", Some(&ns), middle, live.iter().cloned());
    assert!(view.rows.len() >= PODS, "every pod of the time is there");
    let mut g = c.benchmark_group("past_view");
    g.sample_size(20);
    // A first `:at`: nothing rebuilt before. The objects the view before rebuilt are let go in
    // the untimed setup (a first `:at` has none to free), and each view is dropped untimed.
    g.bench_function("10k pods at an instant", |b| {
        b.iter_batched(
            || h.forget_past_views(),
            |()| h.past_view("pods", Some(&ns), middle, live.iter().cloned()),
            BatchSize::PerIteration,
        )
    });
    // `[` pressed again and again from the middle of the churn (back to the middle when the
    // oldest change is reached): each press asks for the change instants, then the view just
    // before the previous change, with what the view before it rebuilt at hand.
    let mut at = middle;
    h.past_view("pods", Some(&ns), at, live.iter().cloned());
    g.bench_function("step [ (change instants, then the view)", |b| {
        b.iter(|| {
            let times = h.change_times("pods", Some(&ns));
            at = match step_back(&times, at) {
                Some(t) if t > 1_000 => t,
                _ => middle,
            };
            h.past_view("pods", Some(&ns), at, live.iter().cloned())
        })
    });
    g.finish();
}

criterion_group!(benches, past_view);
criterion_main!(benches);
