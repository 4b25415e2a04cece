//! The churn loop: pulls mutations from a generator (the simulator) at a steady rate and applies
//! them to the cluster exactly as API writes.

use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::cluster::DemoCluster;
use super::error::StatusError;
use super::mutation::Mutation;

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
