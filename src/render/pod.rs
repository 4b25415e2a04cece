//! Pod rows: kubectl's `printPod` (READY, STATUS, RESTARTS exactly as `kubectl get pods`).
//!
//! STATUS is computed in kubectl's order: the phase (or `status.reason`), `SchedulingGated`, then
//! the first init container that has not succeeded (`Init:N/M`, `Init:<reason>`,
//! `Init:ExitCode:N`, `Init:Signal:N`; started restartable "sidecar" init containers count as
//! running), then the app containers from the last to the first (a waiting reason, a terminated
//! reason, `ExitCode:N`/`Signal:N`), `Completed` turned back into `Running`/`NotReady` while a
//! container still runs, and finally `Terminating` (or `Unknown` for a pod on an unreachable
//! node) when `deletionTimestamp` is set on a pod that is not in a terminal phase.

use kube::api::DynamicObject;
use serde_json::Value;

use crate::informer::cached::pod_record;

use super::cell::{
    Cell, Column, Health, Row, age_cell, arr_at, at, bool_at, int_at, name_cell, or_none, str_at,
    time_at,
};

pub(super) fn columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("READY", 5),
        Column::new("STATUS", 10),
        Column::new("RESTARTS", 8),
        Column::new("AGE", 5),
        // kubectl shows IP and NODE with -o wide only; k9s (and the issue) show them always.
        Column::new("IP", 8),
        Column::new("NODE", 8),
    ]
}

/// What [`pod_phase_reason`] computes: the STATUS text, READY counts and RESTARTS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodSummary {
    /// kubectl's STATUS column.
    pub reason: String,
    /// Ready containers (app containers, plus started restartable init containers).
    pub ready: u32,
    /// App containers plus restartable init containers.
    pub total: u32,
    /// Restarts as kubectl counts them.
    pub restarts: i64,
    /// Unix seconds of the latest `lastState.terminated.finishedAt` counted in `restarts`.
    pub last_restart: Option<i64>,
}

fn is_restartable_init(spec_init: &[Value], name: &str) -> bool {
    spec_init
        .iter()
        .find(|c| str_at(c, &["name"]) == name)
        .is_some_and(|c| str_at(c, &["restartPolicy"]) == "Always")
}

fn last_terminated_at(status: &Value) -> Option<i64> {
    time_at(status, &["lastState", "terminated", "finishedAt"])
}

fn max_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

fn has_condition(data: &Value, type_: &str) -> bool {
    arr_at(data, &["status", "conditions"])
        .iter()
        .any(|c| str_at(c, &["type"]) == type_ && str_at(c, &["status"]) == "True")
}

/// The summary and IP a pruned pod carries in its record (see [`crate::informer::cached`]):
/// [`super::prune`] computes them once, from the container statuses it then drops.
pub(super) fn cached_summary(data: &Value) -> Option<(PodSummary, String)> {
    let r = pod_record(data)?;
    Some((
        PodSummary {
            reason: r.reason.to_string(),
            ready: r.ready,
            total: r.total,
            restarts: r.restarts,
            last_restart: r.last_restart,
        },
        r.ip.to_string(),
    ))
}

/// The IP column: `status.podIPs[0].ip` as kubectl reads it, falling back to the legacy
/// single `status.podIP`.
pub(super) fn pod_ip(data: &Value) -> &str {
    arr_at(data, &["status", "podIPs"])
        .first()
        .map(|p| str_at(p, &["ip"]))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| str_at(data, &["status", "podIP"]))
}

/// Compute kubectl's STATUS, READY and RESTARTS for a pod (`printPod`); a pruned pod answers
/// from the summary [`super::prune`] stored.
pub fn pod_phase_reason(obj: &DynamicObject) -> PodSummary {
    if let Some((s, _)) = cached_summary(&obj.data) {
        return s;
    }
    compute(obj)
}

pub(super) fn compute(obj: &DynamicObject) -> PodSummary {
    let data = &obj.data;
    let spec_init = arr_at(data, &["spec", "initContainers"]);
    let phase = str_at(data, &["status", "phase"]);
    let status_reason = str_at(data, &["status", "reason"]);
    let mut reason = if status_reason.is_empty() {
        phase.to_string()
    } else {
        status_reason.to_string()
    };
    for c in arr_at(data, &["status", "conditions"]) {
        if str_at(c, &["type"]) == "PodScheduled" && str_at(c, &["reason"]) == "SchedulingGated" {
            reason = "SchedulingGated".to_string();
        }
    }

    let mut total = arr_at(data, &["spec", "containers"]).len() as u32;
    total += spec_init
        .iter()
        .filter(|c| str_at(c, &["restartPolicy"]) == "Always")
        .count() as u32;
    let mut ready = 0u32;
    let mut restarts = 0i64;
    let mut last_restart = None;
    let mut sidecar_restarts = 0i64;
    let mut sidecar_last_restart = None;

    let mut initializing = false;
    for (i, cs) in arr_at(data, &["status", "initContainerStatuses"])
        .iter()
        .enumerate()
    {
        let name = str_at(cs, &["name"]);
        let restartable = is_restartable_init(spec_init, name);
        restarts += int_at(cs, &["restartCount"]);
        last_restart = max_opt(last_restart, last_terminated_at(cs));
        if restartable {
            sidecar_restarts += int_at(cs, &["restartCount"]);
            sidecar_last_restart = max_opt(sidecar_last_restart, last_terminated_at(cs));
        }
        let terminated = at(cs, &["state", "terminated"]).filter(|v| v.is_object());
        let waiting_reason = str_at(cs, &["state", "waiting", "reason"]);
        if let Some(t) = terminated
            && int_at(t, &["exitCode"]) == 0
        {
            continue;
        }
        if restartable && bool_at(cs, &["started"]) {
            if bool_at(cs, &["ready"]) {
                ready += 1;
            }
            continue;
        }
        if let Some(t) = terminated {
            let r = str_at(t, &["reason"]);
            reason = if !r.is_empty() {
                format!("Init:{r}")
            } else if int_at(t, &["signal"]) != 0 {
                format!("Init:Signal:{}", int_at(t, &["signal"]))
            } else {
                format!("Init:ExitCode:{}", int_at(t, &["exitCode"]))
            };
        } else if !waiting_reason.is_empty() && waiting_reason != "PodInitializing" {
            reason = format!("Init:{waiting_reason}");
        } else {
            reason = format!("Init:{i}/{}", spec_init.len());
        }
        initializing = true;
        break;
    }

    if !initializing || has_condition(data, "Initialized") {
        restarts = sidecar_restarts;
        last_restart = sidecar_last_restart;
        let mut has_running = false;
        for cs in arr_at(data, &["status", "containerStatuses"]).iter().rev() {
            restarts += int_at(cs, &["restartCount"]);
            last_restart = max_opt(last_restart, last_terminated_at(cs));
            let waiting = str_at(cs, &["state", "waiting", "reason"]);
            let terminated = at(cs, &["state", "terminated"]).filter(|v| v.is_object());
            if !waiting.is_empty() {
                reason = waiting.to_string();
            } else if let Some(t) = terminated {
                let r = str_at(t, &["reason"]);
                reason = if !r.is_empty() {
                    r.to_string()
                } else if int_at(t, &["signal"]) != 0 {
                    format!("Signal:{}", int_at(t, &["signal"]))
                } else {
                    format!("ExitCode:{}", int_at(t, &["exitCode"]))
                };
            } else if bool_at(cs, &["ready"])
                && at(cs, &["state", "running"]).is_some_and(Value::is_object)
            {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" && has_running {
            reason = if has_condition(data, "Ready") {
                "Running".to_string()
            } else {
                "NotReady".to_string()
            };
        }
    }

    if obj.metadata.deletion_timestamp.is_some() {
        if status_reason == "NodeLost" {
            reason = "Unknown".to_string();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".to_string();
        }
    }

    PodSummary {
        reason,
        ready,
        total,
        restarts,
        last_restart,
    }
}

/// Row colour from the computed STATUS.
/// The row colour of a pod from its summary (what `row` gives the pod, without the cells).
pub fn pod_health(s: &PodSummary) -> Health {
    let r = s.reason.as_str();
    match r {
        "Terminating" => Health::Terminating,
        "Completed" | "Succeeded" => Health::Completed,
        "Running" if s.ready == s.total => Health::Ok,
        "Running" | "NotReady" => Health::Warning,
        "Pending" | "ContainerCreating" | "PodInitializing" | "SchedulingGated" => Health::Pending,
        _ if r.starts_with("Init:") => {
            let rest = &r["Init:".len()..];
            // Init:1/3 is progress; Init:CrashLoopBackOff, Init:Error... are failures.
            if rest.contains('/') && rest.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                Health::Pending
            } else {
                Health::Error
            }
        }
        _ => Health::Error,
    }
}

pub(super) fn row(obj: &DynamicObject) -> Row {
    let data = &obj.data;
    let (s, ip) = match cached_summary(data) {
        Some((s, ip)) => (s, ip),
        None => (compute(obj), pod_ip(data).to_string()),
    };
    let node = crate::informer::index::dynamic_pod_node(data).unwrap_or("");
    let health = pod_health(&s);
    Row {
        cells: vec![
            name_cell(obj),
            Cell::Ratio(s.ready, s.total),
            Cell::Text(s.reason),
            Cell::Restarts(s.restarts, s.last_restart),
            age_cell(obj),
            Cell::Text(or_none(&ip)),
            Cell::Text(or_none(node)),
        ],
        health,
    }
}
