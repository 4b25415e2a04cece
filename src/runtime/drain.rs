//! Draining a node, as `kubectl drain NODE --ignore-daemonsets --delete-emptydir-data` does: cordon
//! it, then evict every pod on it through the Eviction API (so PodDisruptionBudgets are honoured),
//! retrying an eviction the budget refuses (429) with backoff, and wait for each evicted pod to be
//! gone. It runs as a task owned by the runtime, reports progress through a bounded channel and
//! stops promptly when its [`CancellationToken`] is cancelled (the node stays cordoned, as after an
//! interrupted `kubectl drain`). Which pods go is [`crate::ui::drain::plan`]'s pure decision.

use super::operate::{evict_params, patch_params};
use crate::cluster::one_line;
use crate::ui::drain::{DrainEvent, DrainOptions, PodRef, plan};
use futures::StreamExt as _;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, Patch};
use kube::core::Status;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Drain `node`. Always ends by sending exactly one of `Done`, `Error`, `Cancelled` (unless the
/// receiver is gone, which also stops the drain).
pub async fn drain(
    client: kube::Client,
    node: String,
    opts: DrainOptions,
    tx: mpsc::Sender<DrainEvent>,
    cancel: CancellationToken,
) {
    let last = tokio::select! {
        biased;
        _ = cancel.cancelled() => DrainEvent::Cancelled,
        ev = run(client, &node, &opts, &tx, &cancel) => ev,
    };
    tracing::info!(target: "kinformer::write", op = "drain", node = %node, result = ?last, "write");
    let _ = tx.send(last).await;
}

async fn run(
    client: kube::Client,
    node: &str,
    opts: &DrainOptions,
    tx: &mpsc::Sender<DrainEvent>,
    cancel: &CancellationToken,
) -> DrainEvent {
    let nodes: Api<k8s_openapi::api::core::v1::Node> = Api::all(client.clone());
    let cordon = Patch::Strategic(json!({"spec": {"unschedulable": true}}));
    if let Err(e) = nodes.patch(node, &patch_params(), &cordon).await {
        return DrainEvent::Error(format!("cordon node {node}: {}", api_message(&e)));
    }
    if tx.send(DrainEvent::Cordoned).await.is_err() {
        return DrainEvent::Cancelled;
    }
    let all: Api<Pod> = Api::all(client.clone());
    let lp = ListParams::default().fields(&format!("spec.nodeName={node}"));
    let pods = match all.list(&lp).await {
        Ok(l) => l.items,
        Err(e) => return DrainEvent::Error(format!("list pods on {node}: {}", api_message(&e))),
    };
    let plan = match plan(&pods, opts) {
        Ok(p) => p,
        Err(m) => return DrainEvent::Error(m),
    };
    let targets = plan.evict.clone();
    let planned = DrainEvent::Planned {
        evict: plan.evict,
        skipped: plan.skipped,
        warnings: plan.warnings,
    };
    if tx.send(planned).await.is_err() {
        return DrainEvent::Cancelled;
    }
    let results: Vec<bool> = futures::stream::iter(targets)
        .map(|r| evict_one(client.clone(), r, opts, tx, cancel))
        .buffer_unordered(opts.parallel.max(1))
        .collect()
        .await;
    if cancel.is_cancelled() {
        return DrainEvent::Cancelled;
    }
    let evicted = results.iter().filter(|ok| **ok).count();
    DrainEvent::Done {
        evicted,
        failed: results.len() - evicted,
    }
}

fn api_message(e: &kube::Error) -> String {
    match e {
        kube::Error::Api(s) => one_line(&s.message),
        e => one_line(&e.to_string()),
    }
}

/// A refused eviction's explanation: the message and the budget's cause.
fn refusal(s: &Status) -> String {
    let cause = s
        .details
        .as_ref()
        .and_then(|d| d.causes.first())
        .map(|c| c.message.clone())
        .filter(|m| !m.is_empty());
    match cause {
        Some(c) => format!("{} {c}", s.message),
        None => s.message.clone(),
    }
}

/// Evict one pod (retrying while refused) and wait until it is gone; true when it is.
async fn evict_one(
    client: kube::Client,
    r: PodRef,
    opts: &DrainOptions,
    tx: &mpsc::Sender<DrainEvent>,
    cancel: &CancellationToken,
) -> bool {
    let (ns, name) = r.split_once('/').unwrap_or(("default", r.as_str()));
    let pods: Api<Pod> = Api::namespaced(client, ns);
    let uid = match pods.get_opt(name).await {
        Ok(Some(p)) => p.metadata.uid,
        Ok(None) => {
            let _ = tx.send(DrainEvent::Evicted(r.clone())).await;
            return true;
        }
        Err(e) => {
            let message = api_message(&e);
            let _ = tx.send(DrainEvent::Failed { pod: r, message }).await;
            return false;
        }
    };
    let mut backoff = opts.initial_backoff;
    loop {
        if cancel.is_cancelled() {
            return false;
        }
        match pods.evict(name, &evict_params()).await {
            Ok(_) => break,
            Err(kube::Error::Api(s)) if s.code == 404 => break,
            Err(kube::Error::Api(s)) if s.code == 429 => {
                let blocked = DrainEvent::Blocked {
                    pod: r.clone(),
                    message: refusal(&s),
                    retry_in: backoff,
                };
                if tx.send(blocked).await.is_err() {
                    return false;
                }
                tokio::select! {
                    _ = cancel.cancelled() => return false,
                    _ = tokio::time::sleep(backoff) => {}
                }
                backoff = (backoff * 2).min(opts.max_backoff);
            }
            Err(e) => {
                let message = api_message(&e);
                let _ = tx.send(DrainEvent::Failed { pod: r, message }).await;
                return false;
            }
        }
    }
    // Wait until the pod is gone (or replaced by a new pod of the same name).
    loop {
        match pods.get_opt(name).await {
            Ok(None) => break,
            Ok(Some(p)) if p.metadata.uid != uid => break,
            Ok(Some(_)) => {}
            Err(e) => {
                let message = api_message(&e);
                let _ = tx.send(DrainEvent::Failed { pod: r, message }).await;
                return false;
            }
        }
        tokio::select! {
            _ = cancel.cancelled() => return false,
            _ = tokio::time::sleep(opts.poll) => {}
        }
    }
    tx.send(DrainEvent::Evicted(r)).await.is_ok()
}
