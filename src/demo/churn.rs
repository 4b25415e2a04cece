//! The churn loop: pulls mutations from a generator (the simulator) at a steady rate and applies
//! them to the cluster exactly as API writes.
//!
//! Two loops are offered:
//! - [`run_churn`] spawns a task applying a `tick(n)` generator to a [`DemoCluster`] in 100 ms steps;
//! - [`run_paced`] owns a [`Simulator`] and hands its mutations to any `apply` closure at a
//!   [`ChurnRate`], batching high rates, following tokio's clock (testable on a paused clock).
//!
//! Invariants kept by [`run_paced`]:
//! - over any whole number of periods, the number of mutations applied is the requested rate times
//!   the elapsed (tokio) time, rounded down: fractional owed changes carry over;
//! - at most [`ChurnRate::MAX_TICKS_PER_SEC`] wake-ups per second: high rates are applied in
//!   batches, low rates one change per period;
//! - a mutation the server refuses is reported through [`Simulator::rejected`] and the loop goes on;
//! - the simulated clock follows tokio's clock (start instant + elapsed), so timestamps look live
//!   in a demo and stay deterministic under a paused test clock;
//! - cancellation is checked before every batch; nothing is applied after it.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::task::JoinHandle;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use super::cluster::DemoCluster;
use super::error::StatusError;
use super::mutation::Mutation;
use super::sim::Simulator;

/// Apply `tick(n)`'s mutations at about `events_per_sec`, in 100 ms steps, until the task is
/// aborted. Mutations the cluster refuses are handed to `rejected` (the simulator's
/// `sim.rejected(&m)`), so the generator can resynchronise its model.
pub fn run_churn<T, R>(
    cluster: Arc<DemoCluster>,
    mut tick: T,
    mut rejected: R,
    events_per_sec: f64,
) -> JoinHandle<()>
where
    T: FnMut(usize) -> Vec<Mutation> + Send + 'static,
    R: FnMut(&Mutation, &StatusError) + Send + 'static,
{
    tokio::spawn(async move {
        if events_per_sec.is_nan() || events_per_sec <= 0.0 {
            return;
        }
        let step = Duration::from_millis(100);
        let mut interval = tokio::time::interval(step);
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut budget = 0.0_f64;
        loop {
            interval.tick().await;
            budget += events_per_sec * step.as_secs_f64();
            let n = budget.floor();
            if n < 1.0 {
                continue;
            }
            budget -= n;
            let count = n as usize;
            for m in tick(count) {
                if let Err(e) = cluster.apply(m.clone()) {
                    tracing::debug!(error = %e, "churn mutation rejected");
                    rejected(&m, &e);
                }
            }
        }
    })
}

/// The simulated controllers' answer to clients: follow the cluster's committed changes and,
/// when a Deployment's or StatefulSet's `spec.replicas` changes (`kubectl scale`, the dashboard's
/// `S`), hand it to `scale(namespace, kind, name, replicas)` (the simulator's
/// `external_scale`: a no-op for its own scaling) and apply the pods it creates or deletes; when
/// a node's `spec.unschedulable` changes (cordon, uncordon, drain), tell `cordon(node, on)` (the
/// simulator's scheduler then avoids it); when a Deployment's, StatefulSet's or DaemonSet's
/// `spec.template` changes (`kubectl rollout restart`, `set image`, edit), hand the template and
/// the object's generation to `template(namespace, kind, name, template, generation)` (the
/// simulator's `external_template`, a no-op for its own rollouts) and apply the rollout's first
/// step; when a pod starts terminating (or is deleted at once), hand it to
/// `deleted(namespace, name, uid, gone)` (the simulator's
/// `external_pod_deleted`: its set's replacement; a no-op for its own deletions). Runs until the
/// task is aborted.
pub fn follow_clients<S, C, T, D, R>(
    cluster: Arc<DemoCluster>,
    mut scale: S,
    mut cordon: C,
    mut template: T,
    mut deleted: D,
    mut rejected: R,
) -> JoinHandle<()>
where
    S: FnMut(&str, &str, &str, u32) -> Vec<Mutation> + Send + 'static,
    C: FnMut(&str, bool) + Send + 'static,
    T: FnMut(&str, &str, &str, &Value, i64) -> Vec<Mutation> + Send + 'static,
    D: FnMut(&str, &str, &str, bool) -> Vec<Mutation> + Send + 'static,
    R: FnMut(&Mutation, &StatusError) + Send + 'static,
{
    let mut events = cluster.subscribe();
    tokio::spawn(async move {
        loop {
            let ev = match events.recv().await {
                Ok(ev) => ev,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            let kind = super::resources::RESOURCES
                .get(ev.resource)
                .map_or("", |r| r.kind);
            if kind == "Pod" {
                // A pod leaves its set when it starts terminating (its deletionTimestamp set;
                // gone at once without a grace period), as the ReplicaSet controller counts it:
                // the replacement is made then, not a grace period later. Every pod event passes
                // here (the simulator's churn too): no JSON is parsed, and the simulator answers
                // only for a pod its model still holds under that uid (not its own deletions,
                // not a second event of the same deletion).
                let gone = ev.kind == super::cluster::EventType::Deleted;
                let started = match ev.kind {
                    super::cluster::EventType::Deleted => true,
                    super::cluster::EventType::Modified => {
                        terminating(&ev.obj) && !ev.prev.as_deref().is_some_and(terminating)
                    }
                    super::cluster::EventType::Added => false,
                };
                if started && let Some(ns) = ev.obj.namespace.as_deref() {
                    for m in deleted(ns, &ev.obj.name, &ev.obj.uid, gone) {
                        if let Err(e) = cluster.apply(m.clone()) {
                            rejected(&m, &e);
                        }
                    }
                }
                continue;
            }
            let Some(prev) = ev.prev.as_ref() else {
                continue;
            };
            if kind == "Node" {
                let unschedulable = |s: &super::cluster::Stored| {
                    s.value().ok().is_some_and(|v| {
                        v.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true)
                    })
                };
                let now = unschedulable(&ev.obj);
                if now != unschedulable(prev) {
                    cordon(&ev.obj.name, now);
                }
                continue;
            }
            if !matches!(kind, "Deployment" | "StatefulSet" | "DaemonSet") {
                continue;
            }
            let (Ok(before), Ok(after)) = (prev.value(), ev.obj.value()) else {
                continue;
            };
            if let (Some(old_t), Some(new_t), Some(ns)) = (
                before.pointer("/spec/template"),
                after.pointer("/spec/template"),
                ev.obj.namespace.as_deref(),
            ) && old_t != new_t
            {
                let generation = after
                    .pointer("/metadata/generation")
                    .and_then(Value::as_i64)
                    .unwrap_or(0);
                for m in template(ns, kind, &ev.obj.name, new_t, generation) {
                    if let Err(e) = cluster.apply(m.clone()) {
                        rejected(&m, &e);
                    }
                }
            }
            if kind == "DaemonSet" {
                continue;
            }
            let replicas = |v: &Value| v.pointer("/spec/replicas").and_then(Value::as_u64);
            let (Some(before), Some(after)) = (replicas(&before), replicas(&after)) else {
                continue;
            };
            if before == after || ev.obj.namespace.is_none() {
                continue;
            }
            let ns = ev.obj.namespace.as_deref().unwrap_or_default();
            let to = u32::try_from(after).unwrap_or(u32::MAX);
            for m in scale(ns, kind, &ev.obj.name, to) {
                if let Err(e) = cluster.apply(m.clone()) {
                    rejected(&m, &e);
                }
            }
        }
    })
}

/// Whether a stored object carries a `deletionTimestamp` (read from its JSON bytes, unparsed).
fn terminating(s: &super::cluster::Stored) -> bool {
    const KEY: &[u8] = b"\"deletionTimestamp\"";
    s.bytes.windows(KEY.len()).any(|w| w == KEY)
}

/// Apply a batch (e.g. the simulator's seed) and return how many were rejected.
pub fn apply_all(
    cluster: &DemoCluster,
    mutations: impl IntoIterator<Item = Mutation>,
    mut rejected: impl FnMut(&Mutation, &StatusError),
) -> usize {
    let mut failures = 0;
    for m in mutations {
        if let Err(e) = cluster.apply(m.clone()) {
            failures += 1;
            rejected(&m, &e);
        }
    }
    failures
}

/// How fast to churn.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChurnRate {
    /// Changes (mutations) per second; 0 or less (or NaN) means no churn.
    pub events_per_sec: f64,
}

impl ChurnRate {
    /// Wake-ups per second at most; above this rate, changes are applied in batches.
    pub const MAX_TICKS_PER_SEC: f64 = 100.0;

    pub fn new(events_per_sec: f64) -> Self {
        Self { events_per_sec }
    }

    fn active(&self) -> bool {
        self.events_per_sec.is_finite() && self.events_per_sec > 0.0
    }

    /// The pacing period: one change per period for low rates, 1/MAX_TICKS_PER_SEC for high ones.
    pub fn period(&self) -> Duration {
        if !self.active() {
            return Duration::from_secs(3600);
        }
        let per_sec = self.events_per_sec.min(Self::MAX_TICKS_PER_SEC);
        Duration::from_secs_f64(1.0 / per_sec)
    }
}

/// What a churn loop did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChurnStats {
    /// Mutations the server accepted.
    pub applied: u64,
    /// Mutations the server refused (reported to the simulator).
    pub rejected: u64,
    /// Batches (wake-ups that applied at least one change).
    pub batches: u64,
}

/// A stand-in carrying only what [`Simulator::rejected`] reads (resource, namespace, name), so
/// the loop does not clone whole objects just in case the server refuses them.
fn rejection_key(m: &Mutation) -> Mutation {
    match m {
        Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
            let mut md = Map::new();
            for k in ["name", "namespace"] {
                if let Some(v) = object.pointer(&format!("/metadata/{k}")) {
                    md.insert(k.to_string(), v.clone());
                }
            }
            let mut o = Map::new();
            o.insert("metadata".into(), Value::Object(md));
            Mutation::Update {
                resource: *resource,
                object: Value::Object(o),
            }
        }
        Mutation::Delete { .. } => m.clone(),
    }
}

/// Runs the simulator itself at `rate` until `cancel` fires, handing each mutation to `apply` (the
/// demo server's apply; `Err` = refused). Returns the simulator (to continue later) and stats.
pub async fn run_paced<F>(
    mut apply: F,
    mut sim: Simulator,
    rate: ChurnRate,
    cancel: CancellationToken,
) -> (Simulator, ChurnStats)
where
    F: FnMut(Mutation) -> Result<(), String>,
{
    let mut stats = ChurnStats::default();
    if !rate.active() {
        cancel.cancelled().await;
        return (sim, stats);
    }
    let period = rate.period();
    let per_period = rate.events_per_sec * period.as_secs_f64();
    let started = Instant::now();
    let sim_start = sim.now();
    let mut interval = tokio::time::interval_at(started + period, period);
    interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut owed = 0.0_f64;
    loop {
        tokio::select! {
            biased;
            () = cancel.cancelled() => break,
            _ = interval.tick() => {}
        }
        if cancel.is_cancelled() {
            break;
        }
        owed += per_period;
        // Absurd rates are capped per batch rather than allocating without bound.
        let n = owed.floor().min(1_000_000.0);
        owed -= n;
        owed = owed.min(1_000_000.0);
        let n = n as usize;
        if n == 0 {
            continue;
        }
        let elapsed = chrono::Duration::from_std(started.elapsed()).unwrap_or_default();
        sim.advance_clock_to(sim_start + elapsed);
        let batch = sim.tick(n);
        stats.batches += 1;
        for m in batch {
            let key = rejection_key(&m);
            match apply(m) {
                Ok(()) => stats.applied += 1,
                Err(reason) => {
                    tracing::debug!(%reason, "demo churn: mutation refused");
                    stats.rejected += 1;
                    sim.rejected(&key);
                }
            }
        }
    }
    (sim, stats)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::sim::SimConfig;
    use std::collections::HashSet;
    use std::sync::{Arc, Mutex};

    fn seeded() -> Simulator {
        let mut sim = Simulator::new(SimConfig {
            pods: 200,
            nodes: 6,
            namespaces: 6,
            ..SimConfig::default()
        });
        let _ = sim.seed_mutations();
        sim
    }

    async fn run_for(rate: f64, secs: u64) -> (ChurnStats, Vec<Instant>) {
        let cancel = CancellationToken::new();
        let times = Arc::new(Mutex::new(Vec::new()));
        let t2 = times.clone();
        let apply = move |_m: Mutation| {
            if let Ok(mut t) = t2.lock() {
                t.push(Instant::now());
            }
            Ok(())
        };
        let task = tokio::spawn(run_paced(
            apply,
            seeded(),
            ChurnRate::new(rate),
            cancel.clone(),
        ));
        tokio::time::sleep(Duration::from_secs(secs) + Duration::from_millis(1)).await;
        cancel.cancel();
        let (_, stats) = task.await.unwrap();
        let times = times.lock().unwrap().clone();
        (stats, times)
    }

    #[tokio::test(start_paused = true)]
    async fn churn_applies_the_requested_rate() {
        let (stats, times) = run_for(50.0, 10).await;
        assert_eq!(stats.applied, 500);
        assert_eq!(times.len(), 500);
        assert_eq!(stats.batches, 500, "one change per period at low rates");
    }

    #[tokio::test(start_paused = true)]
    async fn fractional_rates_carry_over() {
        let (stats, _) = run_for(2.5, 4).await;
        // period 0.4 s → 10 wake-ups in 4 s, 1 change each
        assert_eq!(stats.applied, 10);
        let (stats, _) = run_for(250.0, 1).await;
        // 100 wake-ups of 2.5 changes: 250 in total
        assert_eq!(stats.applied, 250);
    }

    #[tokio::test(start_paused = true)]
    async fn high_rates_are_applied_in_batches() {
        let (stats, times) = run_for(20_000.0, 2).await;
        assert_eq!(stats.applied, 40_000);
        let distinct: HashSet<Instant> = times.iter().copied().collect();
        assert_eq!(distinct.len(), 200, "100 wake-ups per second");
        assert_eq!(stats.batches, 200);
    }

    #[tokio::test(start_paused = true)]
    async fn cancel_stops_the_loop_before_anything_more_is_applied() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        let (_, stats) = run_paced(|_| Ok(()), seeded(), ChurnRate::new(1_000.0), cancel).await;
        assert_eq!(stats, ChurnStats::default());
        let cancel = CancellationToken::new();
        let c2 = cancel.clone();
        let (_, stats) = run_paced(
            move |_| {
                c2.cancel();
                Ok(())
            },
            seeded(),
            ChurnRate::new(10.0),
            cancel,
        )
        .await;
        assert_eq!(stats.applied, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn zero_rate_waits_for_cancel_without_churning() {
        let cancel = CancellationToken::new();
        let c2 = cancel.clone();
        let task = tokio::spawn(run_paced(|_| Ok(()), seeded(), ChurnRate::new(0.0), c2));
        tokio::time::sleep(Duration::from_secs(30)).await;
        assert!(!task.is_finished());
        cancel.cancel();
        let (_, stats) = task.await.unwrap();
        assert_eq!(stats.applied, 0);
    }

    #[tokio::test(start_paused = true)]
    async fn refused_mutations_are_reported_and_the_loop_goes_on() {
        let cancel = CancellationToken::new();
        // The server refuses every pod update (as if each pod had been deleted with kubectl).
        let apply = |m: Mutation| match &m {
            Mutation::Update { resource, .. } if resource.plural == "pods" => {
                Err("NotFound".to_string())
            }
            _ => Ok(()),
        };
        let task = tokio::spawn(run_paced(
            apply,
            seeded(),
            ChurnRate::new(200.0),
            cancel.clone(),
        ));
        tokio::time::sleep(Duration::from_secs(20) + Duration::from_millis(1)).await;
        cancel.cancel();
        let (sim, stats) = task.await.unwrap();
        assert!(stats.rejected > 0);
        assert!(stats.applied > 0);
        assert_eq!(stats.applied + stats.rejected, 4_000);
        // Forgotten pods were replaced by their controllers, not lost for good.
        assert!(sim.pod_count() > 100, "{} pods left", sim.pod_count());
    }

    #[tokio::test(start_paused = true)]
    async fn simulated_clock_follows_the_tokio_clock() {
        let sim = seeded();
        let before = sim.now();
        let cancel = CancellationToken::new();
        let task = tokio::spawn(run_paced(
            |_| Ok(()),
            sim,
            ChurnRate::new(1.0),
            cancel.clone(),
        ));
        tokio::time::sleep(Duration::from_secs(600)).await;
        cancel.cancel();
        let (sim, _) = task.await.unwrap();
        let advanced = (sim.now() - before).num_seconds();
        assert!((598..=601).contains(&advanced), "{advanced}");
    }

    #[test]
    fn a_simulator_write_keeps_a_client_spec_it_has_not_observed_yet() {
        use crate::demo::cluster::UpdateMode;
        use crate::demo::objects::DEPLOYMENTS;
        use serde_json::json;
        let c = DemoCluster::new(100);
        let deployment = |generation: i64, image: &str, ready: u32| {
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": "web", "namespace": "default", "generation": generation},
                   "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "c", "image": image}]}}},
                   "status": {"observedGeneration": generation, "readyReplicas": ready}})
        };
        c.apply(Mutation::Create {
            resource: DEPLOYMENTS,
            object: deployment(1, "a", 0),
        })
        .unwrap();
        let idx = crate::demo::resources::find_id(&DEPLOYMENTS).unwrap();
        // A client's edit: the server bumps the generation to 2.
        let edited = c
            .update(
                idx,
                Some("default"),
                "web",
                deployment(1, "b", 0),
                UpdateMode::Spec,
            )
            .unwrap();
        assert_eq!(edited.pointer("/metadata/generation"), Some(&json!(2)));
        // The simulator, still at generation 1, writes its status: the client's spec stays.
        let after = c
            .apply(Mutation::Update {
                resource: DEPLOYMENTS,
                object: deployment(1, "a", 1),
            })
            .unwrap();
        assert_eq!(
            after.pointer("/spec/template/spec/containers/0/image"),
            Some(&json!("b"))
        );
        assert_eq!(after.pointer("/status/readyReplicas"), Some(&json!(1)));
        assert_eq!(after.pointer("/metadata/generation"), Some(&json!(2)));
        // Once it has observed generation 2, its own spec changes go through.
        let after = c
            .apply(Mutation::Update {
                resource: DEPLOYMENTS,
                object: deployment(2, "c", 1),
            })
            .unwrap();
        assert_eq!(
            after.pointer("/spec/template/spec/containers/0/image"),
            Some(&json!("c"))
        );
        assert_eq!(after.pointer("/metadata/generation"), Some(&json!(3)));
    }
}
