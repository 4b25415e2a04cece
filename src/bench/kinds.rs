//! Figure 12: bytes per cached object of each big kind but Pod (ReplicaSet, Event, ConfigMap,
//! Secret), N objects of one kind at a time, as the dashboard caches them: each object's JSON
//! decoded through the kind's cache mask, pruned (`render::prune`) and added to a store with the
//! default indexes. N is the first `--pods` count (`--pods 100000 --only kinds` for the figure
//! at 100k). The objects are the demo's (one of each kind from its seed), copied N times with a
//! name, uid and resourceVersion of their own.
//!
//! The figure is the RSS delta over N (so allocator overhead is in it). Every kind's store is
//! held until the last kind is measured: memory freed by one is kept by the allocator and would
//! be reused, unseen, by the next (at 100k the four stores hold ~1.5 GB together). It sits next
//! to the exact
//! live-bytes figure `tests/informer_memory.rs` pins with a counting allocator: the two differ
//! by malloc's per-allocation overhead and the store's spare capacity.
//!
//! Latest (2026-12-08 00:21 UTC, debug build: the bytes do not depend on the build; 2 shared
//! cores at load 14, `--pods 100000 --only kinds`): ReplicaSet 1,872 B, Event 1,342 B,
//! ConfigMap 2,142 B, Secret 3,008 B. A Secret keeps each key with its value's decoded size, never
//! the value; a ConfigMap its values of at most 128 B, the size of longer ones (the demo's
//! ConfigMap copied here is `kube-root-ca.crt`, whose one 1.1 KB value is a size); a number costs
//! what the `""` kept before did (2026-12-07 22:12, load 8-10: 1,869 / 1,343 / 2,135 / 3,008 B).
//! Neither has a record of its own yet: a Secret is metadata (labels, annotations kept) and a
//! map of keys. The counting allocator's figures for the demo's objects: 2,224 / 1,199 / 2,828 B
//! (ConfigMaps differ: the demo's first ConfigMap, copied here, is smaller than their average
//! there).

use super::common::*;

/// The kinds measured, their plural (to pick one of the demo's) and the target per object.
const KINDS: [(&str, &str, Option<u64>); 4] = [
    ("ReplicaSet", "replicasets", Some(2_500)),
    ("Event", "events", Some(2_000)),
    ("ConfigMap", "configmaps", None),
    ("Secret", "secrets", None),
];

pub(super) fn kind_figures(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = opts.pods.first().copied().unwrap_or(10_000).max(1);
    let sec = "cache by kind";
    let mut sim = Simulator::new(SimConfig {
        pods: 200,
        ..SimConfig::default()
    });
    let mut templates: HashMap<&str, Value> = HashMap::new();
    for m in sim.seed_iter() {
        if let Mutation::Create { resource, object } = m
            && let Some((_, plural, _)) = KINDS.iter().find(|(_, p, _)| *p == resource.plural)
        {
            templates.entry(plural).or_insert(object);
        }
    }
    let mut held = Vec::new();
    for (kind, plural, target) in KINDS {
        let Some(template) = templates.get(plural) else {
            report
                .notes
                .push(format!("no demo {plural}: its figure is skipped"));
            continue;
        };
        let (per, store) = bytes_per_object(kind, template, n)?;
        held.push(store);
        report.fig(
            sec,
            &format!("bytes per cached {kind} (RSS delta, {n} objects)"),
            format!("{per} B"),
            &target.map_or(String::new(), |t| format!("≤ {t} B (at 100k)")),
            match target {
                Some(t) if n >= 100_000 => verdict(per <= t),
                _ => Verdict::Info,
            },
        );
    }
    drop(held);
    Ok(())
}

/// RSS delta per object of `n` copies of `template` cached as the dashboard caches `kind`, and
/// the store holding them.
fn bytes_per_object(
    kind: &str,
    template: &Value,
    n: usize,
) -> Result<(u64, ThreadSafeStore<DynamicObject>), BenchError> {
    let mask = render::cache_mask(kind);
    let store = ThreadSafeStore::new(default_indexers::<DynamicObject>());
    let before = rss_bytes().unwrap_or(0);
    for i in 0..n {
        let mut v = template.clone();
        v["metadata"]["name"] = format!("{kind}-{i:07}").to_lowercase().into();
        v["metadata"]["uid"] = format!("6f1c2b9e-0000-4000-8000-{i:012}").into();
        v["metadata"]["resourceVersion"] = (100_000 + i).to_string().into();
        let json = serde_json::to_string(&v).map_err(|e| BenchError::Setup(e.to_string()))?;
        let obj = crate::informer::decode::decode_dynamic_masked(&json, &mask)
            .map_err(|e| BenchError::Setup(e.to_string()))?;
        let obj = Arc::new(render::prune(kind, obj));
        let key = crate::informer::meta_namespace_key(&*obj)
            .map_err(|e| BenchError::Setup(e.to_string()))?;
        store
            .add(&key, obj)
            .map_err(|e| BenchError::Setup(e.to_string()))?;
    }
    let after = rss_bytes().unwrap_or(0);
    Ok((after.saturating_sub(before) / n as u64, store))
}
