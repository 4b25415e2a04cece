//! Rows for the built-in kinds other than Pod, following kubectl's printers (`printDeployment`,
//! `printReplicaSet`, `printStatefulSet`, `printDaemonSet`, `printJob`, `printService`,
//! `printConfigMap`, `printSecret`, `printNode`, `printNamespace`, `printEvent`,
//! `printServiceAccount`).

use kube::api::DynamicObject;
use serde_json::Value;

use super::{
    Cell, Column, Health, Row, age_cell, arr_at, at, bool_at, format_labels, int_at, int_opt,
    len_at, name_cell, or_none, str_at, time_at,
};

fn terminating(obj: &DynamicObject) -> bool {
    obj.metadata.deletion_timestamp.is_some()
}

fn u32_of(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

/// `spec.replicas`, defaulted to 1 as the API server does for workloads.
fn desired_replicas(data: &Value) -> i64 {
    int_opt(data, &["spec", "replicas"]).unwrap_or(1)
}

fn replica_health(obj: &DynamicObject, ready: i64, desired: i64) -> Health {
    if terminating(obj) {
        Health::Terminating
    } else if ready >= desired {
        Health::Ok
    } else {
        Health::Warning
    }
}

// ---- Deployment ---------------------------------------------------------------------------

pub(super) fn deployment_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("READY", 5),
        Column::new("UP-TO-DATE", 10),
        Column::new("AVAILABLE", 9),
        Column::new("AGE", 5),
    ]
}

pub(super) fn deployment_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let desired = desired_replicas(d);
    let ready = int_at(d, &["status", "readyReplicas"]);
    Row {
        cells: vec![
            name_cell(obj),
            Cell::Ratio(u32_of(ready), u32_of(desired)),
            Cell::Int(int_at(d, &["status", "updatedReplicas"])),
            Cell::Int(int_at(d, &["status", "availableReplicas"])),
            age_cell(obj),
        ],
        health: replica_health(obj, ready, desired),
    }
}

// ---- ReplicaSet ---------------------------------------------------------------------------

pub(super) fn replicaset_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("DESIRED", 7),
        Column::new("CURRENT", 7),
        Column::new("READY", 5),
        Column::new("AGE", 5),
    ]
}

pub(super) fn replicaset_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let desired = desired_replicas(d);
    let ready = int_at(d, &["status", "readyReplicas"]);
    Row {
        cells: vec![
            name_cell(obj),
            Cell::Int(desired),
            Cell::Int(int_at(d, &["status", "replicas"])),
            Cell::Int(ready),
            age_cell(obj),
        ],
        health: replica_health(obj, ready, desired),
    }
}

// ---- StatefulSet --------------------------------------------------------------------------

pub(super) fn statefulset_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("READY", 5),
        Column::new("AGE", 5),
    ]
}

pub(super) fn statefulset_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let desired = desired_replicas(d);
    let ready = int_at(d, &["status", "readyReplicas"]);
    Row {
        cells: vec![
            name_cell(obj),
            Cell::Ratio(u32_of(ready), u32_of(desired)),
            age_cell(obj),
        ],
        health: replica_health(obj, ready, desired),
    }
}

// ---- DaemonSet ----------------------------------------------------------------------------

pub(super) fn daemonset_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("DESIRED", 7),
        Column::new("CURRENT", 7),
        Column::new("READY", 5),
        Column::new("UP-TO-DATE", 10),
        Column::new("AVAILABLE", 9),
        Column::new("NODE SELECTOR", 13),
        Column::new("AGE", 5),
    ]
}

pub(super) fn daemonset_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let desired = int_at(d, &["status", "desiredNumberScheduled"]);
    let ready = int_at(d, &["status", "numberReady"]);
    Row {
        cells: vec![
            name_cell(obj),
            Cell::Int(desired),
            Cell::Int(int_at(d, &["status", "currentNumberScheduled"])),
            Cell::Int(ready),
            Cell::Int(int_at(d, &["status", "updatedNumberScheduled"])),
            Cell::Int(int_at(d, &["status", "numberAvailable"])),
            Cell::Text(format_labels(at(
                d,
                &["spec", "template", "spec", "nodeSelector"],
            ))),
            age_cell(obj),
        ],
        health: replica_health(obj, ready, desired),
    }
}

// ---- Job ----------------------------------------------------------------------------------

pub(super) fn job_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("STATUS", 8),
        Column::new("COMPLETIONS", 11),
        Column::new("DURATION", 8),
        Column::new("AGE", 5),
    ]
}

fn has_true_condition(data: &Value, type_: &str) -> bool {
    arr_at(data, &["status", "conditions"])
        .iter()
        .any(|c| str_at(c, &["type"]) == type_ && str_at(c, &["status"]) == "True")
}

/// kubectl's Job STATUS column.
pub(super) fn job_status(obj: &DynamicObject) -> &'static str {
    let d = &obj.data;
    if has_true_condition(d, "Complete") {
        "Complete"
    } else if has_true_condition(d, "Failed") {
        "Failed"
    } else if terminating(obj) {
        "Terminating"
    } else if has_true_condition(d, "Suspended") {
        "Suspended"
    } else if has_true_condition(d, "FailureTarget") {
        "FailureTarget"
    } else if has_true_condition(d, "SuccessCriteriaMet") {
        "SuccessCriteriaMet"
    } else {
        "Running"
    }
}

pub(super) fn job_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let succeeded = int_at(d, &["status", "succeeded"]);
    let completions = match int_opt(d, &["spec", "completions"]) {
        Some(c) => Cell::Ratio(u32_of(succeeded), u32_of(c)),
        None => {
            let parallelism = int_opt(d, &["spec", "parallelism"]).unwrap_or(0);
            if parallelism > 1 {
                Cell::Text(format!("{succeeded}/1 of {parallelism}"))
            } else {
                Cell::Ratio(u32_of(succeeded), 1)
            }
        }
    };
    let duration = match time_at(d, &["status", "startTime"]) {
        None => Cell::Text(String::new()),
        Some(start) => Cell::Elapsed {
            start,
            end: time_at(d, &["status", "completionTime"]),
        },
    };
    let status = job_status(obj);
    let health = match status {
        "Complete" | "SuccessCriteriaMet" => Health::Completed,
        "Failed" | "FailureTarget" => Health::Error,
        "Terminating" => Health::Terminating,
        "Suspended" => Health::Warning,
        _ => Health::Pending,
    };
    Row {
        cells: vec![
            name_cell(obj),
            Cell::text(status),
            completions,
            duration,
            age_cell(obj),
        ],
        health,
    }
}

// ---- CronJob ------------------------------------------------------------------------------

/// kubectl's CronJob columns (`printCronJob`).
pub(super) fn cronjob_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("SCHEDULE", 13),
        Column::new("TIMEZONE", 8),
        Column::new("SUSPEND", 7),
        Column::new("ACTIVE", 6),
        Column::new("LAST SCHEDULE", 13),
        Column::new("AGE", 5),
    ]
}

pub(super) fn cronjob_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    // kubectl's `printBoolPtr`: unset is `<unset>` (the API server defaults it to false).
    let suspend = match at(d, &["spec", "suspend"]).and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    };
    let last = match time_at(d, &["status", "lastScheduleTime"]) {
        Some(t) => Cell::Age(Some(t)),
        None => Cell::text("<none>"),
    };
    let health = if terminating(obj) {
        Health::Terminating
    } else if suspend == "True" {
        Health::Warning
    } else {
        Health::Ok
    };
    Row {
        cells: vec![
            name_cell(obj),
            Cell::text(str_at(d, &["spec", "schedule"])),
            Cell::text(or_none(str_at(d, &["spec", "timeZone"]))),
            Cell::text(suspend),
            Cell::Int(len_at(d, &["status", "active"]) as i64),
            last,
            age_cell(obj),
        ],
        health,
    }
}

// ---- Service ------------------------------------------------------------------------------

pub(super) fn service_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("TYPE", 9),
        Column::new("CLUSTER-IP", 10),
        Column::new("EXTERNAL-IP", 11),
        Column::new("PORT(S)", 8),
        Column::new("AGE", 5),
    ]
}

fn strings_at(v: &Value, path: &[&str]) -> Vec<String> {
    arr_at(v, path)
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_string)
        .collect()
}

/// kubectl's `loadBalancerStatusStringer` (not wide: cut to 13 chars + "..." past 16).
fn load_balancer_ips(d: &Value) -> String {
    let ips: Vec<&str> = arr_at(d, &["status", "loadBalancer", "ingress"])
        .iter()
        .filter_map(|i| {
            let ip = str_at(i, &["ip"]);
            let host = str_at(i, &["hostname"]);
            if !ip.is_empty() {
                Some(ip)
            } else if !host.is_empty() {
                Some(host)
            } else {
                None
            }
        })
        .collect();
    let r = ips.join(",");
    if r.chars().count() > 16 {
        let cut: String = r.chars().take(13).collect();
        format!("{cut}...")
    } else {
        r
    }
}

fn service_external_ip(d: &Value) -> String {
    let external = strings_at(d, &["spec", "externalIPs"]);
    match str_at(d, &["spec", "type"]) {
        "ClusterIP" | "NodePort" => {
            if external.is_empty() {
                "<none>".to_string()
            } else {
                external.join(",")
            }
        }
        "LoadBalancer" => {
            let lb = load_balancer_ips(d);
            if !external.is_empty() {
                let mut all: Vec<String> = if lb.is_empty() {
                    Vec::new()
                } else {
                    lb.split(',').map(str::to_string).collect()
                };
                all.extend(external);
                all.join(",")
            } else if !lb.is_empty() {
                lb
            } else {
                "<pending>".to_string()
            }
        }
        "ExternalName" => str_at(d, &["spec", "externalName"]).to_string(),
        _ => "<unknown>".to_string(),
    }
}

fn service_ports(d: &Value) -> String {
    let pieces: Vec<String> = arr_at(d, &["spec", "ports"])
        .iter()
        .map(|p| {
            let port = int_at(p, &["port"]);
            let proto = str_at(p, &["protocol"]);
            let node_port = int_at(p, &["nodePort"]);
            if node_port > 0 {
                format!("{port}:{node_port}/{proto}")
            } else {
                format!("{port}/{proto}")
            }
        })
        .collect();
    if pieces.is_empty() {
        "<none>".to_string()
    } else {
        pieces.join(",")
    }
}

pub(super) fn service_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let cluster_ip = arr_at(d, &["spec", "clusterIPs"])
        .first()
        .and_then(Value::as_str)
        .unwrap_or_else(|| str_at(d, &["spec", "clusterIP"]));
    let external = service_external_ip(d);
    let health = if terminating(obj) {
        Health::Terminating
    } else if external == "<pending>" {
        Health::Pending
    } else {
        Health::Ok
    };
    Row {
        cells: vec![
            name_cell(obj),
            Cell::text(str_at(d, &["spec", "type"])),
            Cell::Text(or_none(cluster_ip)),
            Cell::Text(external),
            Cell::Text(service_ports(d)),
            age_cell(obj),
        ],
        health,
    }
}

// ---- ConfigMap / Secret / ServiceAccount ---------------------------------------------------

pub(super) fn configmap_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("DATA", 4),
        Column::new("AGE", 5),
    ]
}

pub(super) fn configmap_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let n = len_at(d, &["data"]) + len_at(d, &["binaryData"]);
    Row {
        cells: vec![name_cell(obj), Cell::Int(n as i64), age_cell(obj)],
        health: simple_health(obj),
    }
}

pub(super) fn secret_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("TYPE", 20),
        Column::new("DATA", 4),
        Column::new("AGE", 5),
    ]
}

pub(super) fn secret_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    Row {
        cells: vec![
            name_cell(obj),
            Cell::text(str_at(d, &["type"])),
            Cell::Int(len_at(d, &["data"]) as i64),
            age_cell(obj),
        ],
        health: simple_health(obj),
    }
}

pub(super) fn serviceaccount_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("SECRETS", 7),
        Column::new("AGE", 5),
    ]
}

pub(super) fn serviceaccount_row(obj: &DynamicObject) -> Row {
    Row {
        cells: vec![
            name_cell(obj),
            Cell::Int(len_at(&obj.data, &["secrets"]) as i64),
            age_cell(obj),
        ],
        health: simple_health(obj),
    }
}

fn simple_health(obj: &DynamicObject) -> Health {
    if terminating(obj) {
        Health::Terminating
    } else {
        Health::Ok
    }
}

// ---- Node ---------------------------------------------------------------------------------

pub(super) fn node_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("STATUS", 8),
        Column::new("ROLES", 13),
        Column::new("AGE", 5),
        Column::new("VERSION", 8),
    ]
}

/// kubectl's `findNodeRoles`: `node-role.kubernetes.io/<role>` label keys and the value of
/// `kubernetes.io/role`, sorted and de-duplicated.
pub(super) fn node_roles(obj: &DynamicObject) -> Vec<String> {
    let mut roles = std::collections::BTreeSet::new();
    if let Some(labels) = &obj.metadata.labels {
        for (k, v) in labels {
            if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
                if !role.is_empty() {
                    roles.insert(role.to_string());
                }
            } else if k == "kubernetes.io/role" && !v.is_empty() {
                roles.insert(v.clone());
            }
        }
    }
    roles.into_iter().collect()
}

/// kubectl's node STATUS: `Ready`/`NotReady`/`Unknown`, plus `,SchedulingDisabled`.
pub(super) fn node_status(obj: &DynamicObject) -> String {
    let d = &obj.data;
    // The last Ready condition wins, as in kubectl's condition map.
    let ready = arr_at(d, &["status", "conditions"])
        .iter()
        .rev()
        .find(|c| str_at(c, &["type"]) == "Ready");
    let mut status = match ready {
        Some(c) if str_at(c, &["status"]) == "True" => "Ready".to_string(),
        Some(_) => "NotReady".to_string(),
        None => "Unknown".to_string(),
    };
    if bool_at(d, &["spec", "unschedulable"]) {
        status.push_str(",SchedulingDisabled");
    }
    status
}

pub(super) fn node_row(obj: &DynamicObject) -> Row {
    let status = node_status(obj);
    let roles = node_roles(obj).join(",");
    let health = if terminating(obj) {
        Health::Terminating
    } else if status == "Ready" {
        Health::Ok
    } else if status.starts_with("Ready,") {
        Health::Warning
    } else {
        Health::Error
    };
    Row {
        cells: vec![
            name_cell(obj),
            Cell::Text(status),
            Cell::Text(or_none(&roles)),
            age_cell(obj),
            Cell::text(str_at(&obj.data, &["status", "nodeInfo", "kubeletVersion"])),
        ],
        health,
    }
}

// ---- Namespace ----------------------------------------------------------------------------

pub(super) fn namespace_columns() -> Vec<Column> {
    vec![
        Column::new("NAME", 20),
        Column::new("STATUS", 11),
        Column::new("AGE", 5),
    ]
}

pub(super) fn namespace_row(obj: &DynamicObject) -> Row {
    let phase = str_at(&obj.data, &["status", "phase"]);
    let health = match phase {
        "Terminating" => Health::Terminating,
        _ if terminating(obj) => Health::Terminating,
        _ => Health::Ok,
    };
    Row {
        cells: vec![name_cell(obj), Cell::text(phase), age_cell(obj)],
        health,
    }
}

// ---- Event --------------------------------------------------------------------------------

pub(super) fn event_columns() -> Vec<Column> {
    vec![
        Column::new("LAST SEEN", 9),
        Column::new("TYPE", 7),
        Column::new("REASON", 10),
        Column::new("OBJECT", 20),
        Column::new("MESSAGE", 30),
    ]
}

/// kubectl's LAST SEEN for an event: `series.lastObservedTime`, else `lastTimestamp`, else
/// `firstTimestamp`, else `eventTime` (events.k8s.io/v1 spells the first two
/// `deprecatedLastTimestamp` / `deprecatedFirstTimestamp`).
pub(super) fn event_last_seen(d: &Value) -> Option<i64> {
    if at(d, &["series"]).is_some_and(Value::is_object) {
        return time_at(d, &["series", "lastObservedTime"]);
    }
    time_at(d, &["lastTimestamp"])
        .or_else(|| time_at(d, &["deprecatedLastTimestamp"]))
        .or_else(|| time_at(d, &["firstTimestamp"]))
        .or_else(|| time_at(d, &["deprecatedFirstTimestamp"]))
        .or_else(|| time_at(d, &["eventTime"]))
}

/// The object an event is about: core/v1 `involvedObject`, events.k8s.io/v1 `regarding`.
pub(super) fn event_subject(d: &Value) -> Option<&Value> {
    at(d, &["involvedObject"])
        .filter(|v| v.is_object())
        .or_else(|| at(d, &["regarding"]))
}

/// The event text: core/v1 `message`, events.k8s.io/v1 `note`.
pub(super) fn event_message(d: &Value) -> &str {
    match str_at(d, &["message"]) {
        "" => str_at(d, &["note"]),
        m => m,
    }
}

/// `kind/name` of the involved object, kind lower-cased, as kubectl's OBJECT column.
pub(super) fn event_object(d: &Value) -> String {
    let subject = event_subject(d).unwrap_or(&Value::Null);
    let kind = str_at(subject, &["kind"]).to_lowercase();
    let name = str_at(subject, &["name"]);
    if name.is_empty() {
        kind
    } else {
        format!("{kind}/{name}")
    }
}

pub(super) fn event_row(obj: &DynamicObject) -> Row {
    let d = &obj.data;
    let type_ = str_at(d, &["type"]);
    Row {
        cells: vec![
            Cell::Age(event_last_seen(d)),
            Cell::text(type_),
            Cell::text(str_at(d, &["reason"])),
            Cell::Text(event_object(d)),
            Cell::text(event_message(d).trim()),
        ],
        health: if type_ == "Warning" {
            Health::Warning
        } else {
            Health::Ok
        },
    }
}
