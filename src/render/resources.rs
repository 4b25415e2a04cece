//! The tables of the built-in kinds other than Pod, as data: per kind, its columns (header,
//! width, wide-only, how the cell reads an object; the typed [`Cell`] is also the sort key) and
//! the row colour. They follow kubectl's printers (`printDeployment`, `printReplicaSet`,
//! `printStatefulSet`, `printDaemonSet`, `printJob`, `printCronJob`, `printService`,
//! `printConfigMap`, `printSecret`, `printNode`, `printNamespace`, `printEvent`,
//! `printServiceAccount`). A row is its columns' cells in order ([`KindTable::row`]); adding a
//! column is one [`ColumnDef`] line, the form k9s's views.yaml custom columns extend.
//!
//! Pod keeps its own printer (`render::pod`): its READY, STATUS and RESTARTS columns share one
//! pass over the container statuses, which a column-at-a-time reader would repeat per column on
//! the 100k-pod path.

use kube::api::DynamicObject;
use serde_json::Value;

use crate::informer::cached::{EventRecord, event};

use super::cell::{
    Cell, Column, Health, Row, age_cell, arr_at, at, bool_at, format_labels, int_at, int_opt,
    len_at, name_cell, or_none, str_at, time_at,
};

/// One column of a built-in kind's table.
#[derive(Debug, Clone, Copy)]
pub struct ColumnDef {
    /// The header, upper-case as kubectl prints it.
    pub name: &'static str,
    /// A width under which the column's usual content would be cut.
    pub min_width: u16,
    /// Shown only in wide mode.
    pub wide: bool,
    /// The cell of an object (also its sort key).
    pub cell: fn(&DynamicObject) -> Cell,
}

/// A built-in kind's table: its columns, in order, the columns wide mode adds after them
/// (kubectl's `-o wide`; k9s's `ctrl-w`), and the row's colour.
#[derive(Debug)]
pub struct KindTable {
    pub kind: &'static str,
    pub columns: &'static [ColumnDef],
    /// Read for the visible rows only when wide mode is on: never stored in a row.
    pub wide: &'static [ColumnDef],
    pub health: fn(&DynamicObject) -> Health,
}

impl KindTable {
    /// The columns as the table widget takes them.
    pub fn columns(&self) -> Vec<Column> {
        self.columns
            .iter()
            .map(|c| Column {
                name: c.name.to_string(),
                min_width: c.min_width,
                wide: c.wide,
            })
            .collect()
    }

    /// The row of `obj`: each column's cell, in order, and the health.
    pub fn row(&self, obj: &DynamicObject) -> Row {
        Row {
            cells: self.columns.iter().map(|c| (c.cell)(obj)).collect(),
            health: (self.health)(obj),
        }
    }
}

/// The columns wide mode adds for `kind` (k9s's `ctrl-w`): kubectl's `-o wide` columns where it
/// has them, then LABELS for every kind. Their cells are read from the cached object for the
/// rows on screen, so wide mode costs nothing while it is off.
pub fn wide_columns(kind: &str) -> Vec<ColumnDef> {
    let own = match kind {
        "Pod" => &[][..],
        _ => table(kind).map_or(&[][..], |t| t.wide),
    };
    own.iter().copied().chain([LABELS]).collect()
}

/// The table of `kind`, when it is one of [`TABLES`].
pub fn table(kind: &str) -> Option<&'static KindTable> {
    TABLES.iter().find(|t| t.kind == kind)
}

const fn col(name: &'static str, min_width: u16, cell: fn(&DynamicObject) -> Cell) -> ColumnDef {
    ColumnDef {
        name,
        min_width,
        wide: false,
        cell,
    }
}

const fn wide(name: &'static str, min_width: u16, cell: fn(&DynamicObject) -> Cell) -> ColumnDef {
    ColumnDef {
        name,
        min_width,
        wide: true,
        cell,
    }
}

const NAME: ColumnDef = col("NAME", 20, name_cell);
const LABELS: ColumnDef = wide("LABELS", 6, |o| {
    let labels = crate::informer::cached::labels(o);
    Cell::Text(if labels.is_empty() {
        "<none>".to_string()
    } else {
        let pairs: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        pairs.join(",")
    })
});

/// kubectl's wide CONTAINERS, IMAGES and SELECTOR of a workload whose pod template is at
/// `spec.template` and selector at `spec.selector`.
const TEMPLATE_WIDE: &[ColumnDef] = &[
    wide("CONTAINERS", 10, |o| {
        template_containers(o, &["spec", "template"], "name")
    }),
    wide("IMAGES", 6, |o| {
        template_containers(o, &["spec", "template"], "image")
    }),
    wide("SELECTOR", 8, |o| {
        Cell::Text(format_selector(at(&o.data, &["spec", "selector"])))
    }),
];
const AGE: ColumnDef = col("AGE", 5, age_cell);

/// An integer at `path` of the object's body.
fn int_cell(obj: &DynamicObject, path: &[&str]) -> Cell {
    Cell::Int(int_at(&obj.data, path))
}

/// The text at `path` of the object's body.
fn text_cell(obj: &DynamicObject, path: &[&str]) -> Cell {
    Cell::text(str_at(&obj.data, path))
}

/// Every built-in kind's table but Pod's.
pub static TABLES: &[KindTable] = &[
    KindTable {
        kind: "Deployment",
        columns: &[
            NAME,
            col("READY", 5, |o| ready_of(o, &["status", "readyReplicas"])),
            col("UP-TO-DATE", 10, |o| {
                int_cell(o, &["status", "updatedReplicas"])
            }),
            col("AVAILABLE", 9, |o| {
                int_cell(o, &["status", "availableReplicas"])
            }),
            AGE,
        ],
        wide: TEMPLATE_WIDE,
        health: |o| replica_health(o, &["status", "readyReplicas"]),
    },
    KindTable {
        kind: "ReplicaSet",
        columns: &[
            NAME,
            col("DESIRED", 7, |o| Cell::Int(desired_replicas(&o.data))),
            col("CURRENT", 7, |o| int_cell(o, &["status", "replicas"])),
            col("READY", 5, |o| int_cell(o, &["status", "readyReplicas"])),
            AGE,
        ],
        wide: TEMPLATE_WIDE,
        health: |o| replica_health(o, &["status", "readyReplicas"]),
    },
    KindTable {
        kind: "StatefulSet",
        columns: &[
            NAME,
            col("READY", 5, |o| ready_of(o, &["status", "readyReplicas"])),
            AGE,
        ],
        wide: &[TEMPLATE_WIDE[0], TEMPLATE_WIDE[1]],
        health: |o| replica_health(o, &["status", "readyReplicas"]),
    },
    KindTable {
        kind: "DaemonSet",
        columns: &[
            NAME,
            col("DESIRED", 7, |o| {
                int_cell(o, &["status", "desiredNumberScheduled"])
            }),
            col("CURRENT", 7, |o| {
                int_cell(o, &["status", "currentNumberScheduled"])
            }),
            col("READY", 5, |o| int_cell(o, &["status", "numberReady"])),
            col("UP-TO-DATE", 10, |o| {
                int_cell(o, &["status", "updatedNumberScheduled"])
            }),
            col("AVAILABLE", 9, |o| {
                int_cell(o, &["status", "numberAvailable"])
            }),
            col("NODE SELECTOR", 13, |o| {
                Cell::Text(format_labels(at(
                    &o.data,
                    &["spec", "template", "spec", "nodeSelector"],
                )))
            }),
            AGE,
        ],
        wide: TEMPLATE_WIDE,
        health: |o| {
            let d = &o.data;
            health_of_counts(
                o,
                int_at(d, &["status", "numberReady"]),
                int_at(d, &["status", "desiredNumberScheduled"]),
            )
        },
    },
    KindTable {
        kind: "Job",
        columns: &[
            NAME,
            col("STATUS", 8, |o| Cell::text(job_status(o))),
            col("COMPLETIONS", 11, job_completions),
            col("DURATION", 8, job_duration),
            AGE,
        ],
        wide: TEMPLATE_WIDE,
        health: |o| match job_status(o) {
            "Complete" | "SuccessCriteriaMet" => Health::Completed,
            "Failed" | "FailureTarget" => Health::Error,
            "Terminating" => Health::Terminating,
            "Suspended" => Health::Warning,
            _ => Health::Pending,
        },
    },
    KindTable {
        kind: "CronJob",
        columns: &[
            NAME,
            col("SCHEDULE", 13, |o| text_cell(o, &["spec", "schedule"])),
            col("TIMEZONE", 8, |o| {
                Cell::text(or_none(str_at(&o.data, &["spec", "timeZone"])))
            }),
            col("SUSPEND", 7, |o| Cell::text(cronjob_suspend(o))),
            col("ACTIVE", 6, |o| {
                Cell::Int(len_at(&o.data, &["status", "active"]) as i64)
            }),
            col("LAST SCHEDULE", 13, |o| {
                match time_at(&o.data, &["status", "lastScheduleTime"]) {
                    Some(t) => Cell::Age(Some(t)),
                    None => Cell::text("<none>"),
                }
            }),
            AGE,
        ],
        wide: &[
            wide("CONTAINERS", 10, |o| {
                template_containers(o, &["spec", "jobTemplate", "spec", "template"], "name")
            }),
            wide("IMAGES", 6, |o| {
                template_containers(o, &["spec", "jobTemplate", "spec", "template"], "image")
            }),
            wide("SELECTOR", 8, |o| {
                Cell::Text(format_selector(at(
                    &o.data,
                    &["spec", "jobTemplate", "spec", "selector"],
                )))
            }),
        ],
        health: |o| {
            if terminating(o) {
                Health::Terminating
            } else if cronjob_suspend(o) == "True" {
                Health::Warning
            } else {
                Health::Ok
            }
        },
    },
    KindTable {
        kind: "Service",
        columns: &[
            NAME,
            col("TYPE", 9, |o| text_cell(o, &["spec", "type"])),
            col("CLUSTER-IP", 10, |o| {
                let d = &o.data;
                let ip = arr_at(d, &["spec", "clusterIPs"])
                    .first()
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| str_at(d, &["spec", "clusterIP"]));
                Cell::Text(or_none(ip))
            }),
            col("EXTERNAL-IP", 11, |o| {
                Cell::Text(service_external_ip(&o.data))
            }),
            col("PORT(S)", 8, |o| Cell::Text(service_ports(&o.data))),
            AGE,
        ],
        wide: &[wide("SELECTOR", 8, |o| {
            Cell::Text(format_labels(at(&o.data, &["spec", "selector"])))
        })],
        health: |o| {
            if terminating(o) {
                Health::Terminating
            } else if service_external_ip(&o.data) == "<pending>" {
                Health::Pending
            } else {
                Health::Ok
            }
        },
    },
    KindTable {
        kind: "ConfigMap",
        columns: &[
            NAME,
            col("DATA", 4, |o| {
                let d = &o.data;
                Cell::Int((len_at(d, &["data"]) + len_at(d, &["binaryData"])) as i64)
            }),
            AGE,
        ],
        wide: &[],
        health: simple_health,
    },
    KindTable {
        kind: "Secret",
        columns: &[
            NAME,
            col("TYPE", 20, |o| text_cell(o, &["type"])),
            col("DATA", 4, |o| Cell::Int(len_at(&o.data, &["data"]) as i64)),
            AGE,
        ],
        wide: &[],
        health: simple_health,
    },
    KindTable {
        kind: "ServiceAccount",
        columns: &[
            NAME,
            col("SECRETS", 7, |o| {
                Cell::Int(len_at(&o.data, &["secrets"]) as i64)
            }),
            AGE,
        ],
        wide: &[],
        health: simple_health,
    },
    KindTable {
        kind: "Node",
        columns: &[
            NAME,
            col("STATUS", 8, |o| Cell::Text(node_status(o))),
            col("ROLES", 13, |o| {
                Cell::Text(or_none(&node_roles(o).join(",")))
            }),
            AGE,
            col("VERSION", 8, |o| {
                text_cell(o, &["status", "nodeInfo", "kubeletVersion"])
            }),
        ],
        wide: &[
            wide("INTERNAL-IP", 11, |o| {
                Cell::Text(node_address(o, "InternalIP"))
            }),
            wide("EXTERNAL-IP", 11, |o| {
                Cell::Text(node_address(o, "ExternalIP"))
            }),
            wide("OS-IMAGE", 8, |o| {
                text_cell(o, &["status", "nodeInfo", "osImage"])
            }),
            wide("KERNEL-VERSION", 14, |o| {
                text_cell(o, &["status", "nodeInfo", "kernelVersion"])
            }),
            wide("CONTAINER-RUNTIME", 17, |o| {
                text_cell(o, &["status", "nodeInfo", "containerRuntimeVersion"])
            }),
        ],
        health: |o| {
            let status = node_status(o);
            if terminating(o) {
                Health::Terminating
            } else if status == "Ready" {
                Health::Ok
            } else if status.starts_with("Ready,") {
                Health::Warning
            } else {
                Health::Error
            }
        },
    },
    KindTable {
        kind: "Namespace",
        columns: &[
            NAME,
            col("STATUS", 11, |o| text_cell(o, &["status", "phase"])),
            AGE,
        ],
        wide: &[],
        health: |o| match str_at(&o.data, &["status", "phase"]) {
            "Terminating" => Health::Terminating,
            _ if terminating(o) => Health::Terminating,
            _ => Health::Ok,
        },
    },
    KindTable {
        kind: "Event",
        columns: &[
            col("LAST SEEN", 9, |o| {
                Cell::Age(event_last_seen(&event(&o.data)))
            }),
            col("TYPE", 7, |o| Cell::text(event(&o.data).type_.into_owned())),
            col("REASON", 10, |o| {
                Cell::text(event(&o.data).reason.into_owned())
            }),
            col("OBJECT", 20, |o| Cell::Text(event_object(&event(&o.data)))),
            col("SOURCE", 10, |o| Cell::Text(event_source(&event(&o.data)))),
            col("MESSAGE", 30, |o| Cell::text(event(&o.data).message.trim())),
            col("COUNT", 5, |o| Cell::Int(event_count(&event(&o.data)))),
            col("FIRST SEEN", 10, |o| {
                Cell::Age(event_first_seen(&event(&o.data)))
            }),
        ],
        wide: &[],
        health: |o| {
            if event(&o.data).type_ == "Warning" {
                Health::Warning
            } else {
                Health::Ok
            }
        },
    },
];

/// The `field` (`name` or `image`) of every container of the pod template at `template`,
/// comma-separated, as kubectl's wide CONTAINERS and IMAGES.
fn template_containers(obj: &DynamicObject, template: &[&str], field: &str) -> Cell {
    let mut path: Vec<&str> = template.to_vec();
    path.extend(["spec", "containers"]);
    let values: Vec<&str> = arr_at(&obj.data, &path)
        .iter()
        .map(|c| str_at(c, &[field]))
        .collect();
    Cell::Text(values.join(","))
}

/// kubectl's `metav1.FormatLabelSelector`: `app=web,tier in (a,b),!legacy`; `<none>` for an
/// empty or missing selector.
fn format_selector(sel: Option<&Value>) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let Some(Value::Object(m)) = sel.and_then(|s| s.get("matchLabels")) {
        let mut pairs: Vec<String> = m
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect();
        pairs.sort();
        parts.extend(pairs);
    }
    for e in arr_at(sel.unwrap_or(&Value::Null), &["matchExpressions"]) {
        let key = str_at(e, &["key"]);
        let values: Vec<&str> = arr_at(e, &["values"])
            .iter()
            .filter_map(Value::as_str)
            .collect();
        parts.push(match str_at(e, &["operator"]) {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            op => format!("{key} {op} ({})", values.join(",")),
        });
    }
    if parts.is_empty() {
        "<none>".to_string()
    } else {
        parts.join(",")
    }
}

/// The node's first address of `type_` (`InternalIP`, `ExternalIP`), `<none>` without one.
fn node_address(obj: &DynamicObject, type_: &str) -> String {
    arr_at(&obj.data, &["status", "addresses"])
        .iter()
        .find(|a| str_at(a, &["type"]) == type_)
        .map_or_else(
            || "<none>".to_string(),
            |a| str_at(a, &["address"]).to_string(),
        )
}

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

/// `ready/desired` with the ready count at `ready`.
fn ready_of(obj: &DynamicObject, ready: &[&str]) -> Cell {
    let d = &obj.data;
    Cell::Ratio(u32_of(int_at(d, ready)), u32_of(desired_replicas(d)))
}

fn replica_health(obj: &DynamicObject, ready: &[&str]) -> Health {
    let d = &obj.data;
    health_of_counts(obj, int_at(d, ready), desired_replicas(d))
}

fn health_of_counts(obj: &DynamicObject, ready: i64, desired: i64) -> Health {
    if terminating(obj) {
        Health::Terminating
    } else if ready >= desired {
        Health::Ok
    } else {
        Health::Warning
    }
}

fn simple_health(obj: &DynamicObject) -> Health {
    if terminating(obj) {
        Health::Terminating
    } else {
        Health::Ok
    }
}

fn job_completions(obj: &DynamicObject) -> Cell {
    let d = &obj.data;
    let succeeded = int_at(d, &["status", "succeeded"]);
    match int_opt(d, &["spec", "completions"]) {
        Some(c) => Cell::Ratio(u32_of(succeeded), u32_of(c)),
        None => {
            let parallelism = int_opt(d, &["spec", "parallelism"]).unwrap_or(0);
            if parallelism > 1 {
                Cell::Text(format!("{succeeded}/1 of {parallelism}"))
            } else {
                Cell::Ratio(u32_of(succeeded), 1)
            }
        }
    }
}

fn job_duration(obj: &DynamicObject) -> Cell {
    let d = &obj.data;
    match time_at(d, &["status", "startTime"]) {
        None => Cell::Text(String::new()),
        Some(start) => Cell::Elapsed {
            start,
            end: time_at(d, &["status", "completionTime"]),
        },
    }
}

/// kubectl's `printBoolPtr` of `spec.suspend`: unset is `<unset>` (the API server defaults it
/// to false).
fn cronjob_suspend(obj: &DynamicObject) -> &'static str {
    match at(&obj.data, &["spec", "suspend"]).and_then(Value::as_bool) {
        Some(true) => "True",
        Some(false) => "False",
        None => "<unset>",
    }
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

/// kubectl's `findNodeRoles`: `node-role.kubernetes.io/<role>` label keys and the value of
/// `kubernetes.io/role`, sorted and de-duplicated.
pub(super) fn node_roles(obj: &DynamicObject) -> Vec<String> {
    let mut roles = std::collections::BTreeSet::new();
    for (k, v) in crate::informer::cached::labels(obj) {
        if let Some(role) = k.strip_prefix("node-role.kubernetes.io/") {
            if !role.is_empty() {
                roles.insert(role.to_string());
            }
        } else if k == "kubernetes.io/role" && !v.is_empty() {
            roles.insert(v.to_string());
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

/// kubectl's LAST SEEN for an event: `series.lastObservedTime`, else `lastTimestamp`, else
/// `firstTimestamp`, else `eventTime` (events.k8s.io/v1 spells the first two
/// `deprecatedLastTimestamp` / `deprecatedFirstTimestamp`).
pub(super) fn event_last_seen(e: &EventRecord<'_>) -> Option<i64> {
    let t = |s: &Option<std::borrow::Cow<'_, str>>| s.as_deref().and_then(super::cell::parse_time);
    if let Some(series) = &e.series {
        return t(&series.last_observed_time);
    }
    t(&e.last_timestamp)
        .or_else(|| t(&e.deprecated_last_timestamp))
        .or_else(|| t(&e.first_timestamp))
        .or_else(|| t(&e.deprecated_first_timestamp))
        .or_else(|| t(&e.event_time))
}

/// kubectl's FIRST SEEN: `firstTimestamp` (`deprecatedFirstTimestamp`), else `eventTime`.
pub(super) fn event_first_seen(e: &EventRecord<'_>) -> Option<i64> {
    let t = |s: &Option<std::borrow::Cow<'_, str>>| s.as_deref().and_then(super::cell::parse_time);
    t(&e.first_timestamp)
        .or_else(|| t(&e.deprecated_first_timestamp))
        .or_else(|| t(&e.event_time))
}

/// kubectl's COUNT: `series.count` for a series, else `count` (`deprecatedCount`); a singleton
/// Event of the new API has none: 1.
pub(super) fn event_count(e: &EventRecord<'_>) -> i64 {
    let n = match &e.series {
        Some(s) => s.count.unwrap_or(0),
        None => e.count.or(e.deprecated_count).unwrap_or(0),
    };
    i64::try_from(n).unwrap_or(i64::MAX).max(1)
}

/// kubectl's SOURCE: `source.component` (else the reporting controller), then `, host` when
/// `source.host` is set.
pub(super) fn event_source(e: &EventRecord<'_>) -> String {
    let component = [
        &e.source_component,
        &e.reporting_component,
        &e.reporting_controller,
    ]
    .into_iter()
    .find(|c| !c.is_empty())
    .map_or("", |c| &**c);
    match &*e.source_host {
        "" => component.to_string(),
        host => format!("{component}, {host}"),
    }
}

/// `kind/name` of the involved object, kind lower-cased, as kubectl's OBJECT column.
pub(super) fn event_object(e: &EventRecord<'_>) -> String {
    let Some(subject) = &e.subject else {
        return String::new();
    };
    let kind = subject.kind.to_lowercase();
    if subject.name.is_empty() {
        kind
    } else {
        format!("{kind}/{}", subject.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_makes_one_cell_per_column_even_from_an_empty_object() {
        let empty: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "X", "metadata": {"name": "x"}
        }))
        .unwrap();
        for t in TABLES {
            let row = t.row(&empty);
            assert_eq!(row.cells.len(), t.columns().len(), "{}", t.kind);
            assert_eq!(table(t.kind).map(|f| f.kind), Some(t.kind));
        }
        assert!(table("Pod").is_none(), "Pod keeps its own printer");
    }

    fn object(v: serde_json::Value) -> DynamicObject {
        serde_json::from_value(v).unwrap()
    }

    fn wide_cells(kind: &str, o: &DynamicObject) -> Vec<(String, String)> {
        wide_columns(kind)
            .iter()
            .map(|c| (c.name.to_string(), (c.cell)(o).display(0).to_string()))
            .collect()
    }

    #[test]
    fn wide_mode_adds_kubectls_wide_columns_and_labels() {
        let d = object(serde_json::json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "labels": {"app": "web"}},
            "spec": {"selector": {"matchLabels": {"app": "web"},
                      "matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]},
                                           {"key": "legacy", "operator": "DoesNotExist"}]},
                     "template": {"spec": {"containers": [
                         {"name": "web", "image": "web:1.5"}, {"name": "proxy", "image": "envoy:1"}]}}}
        }));
        assert_eq!(
            wide_cells("Deployment", &d),
            [
                ("CONTAINERS", "web,proxy"),
                ("IMAGES", "web:1.5,envoy:1"),
                ("SELECTOR", "app=web,tier in (a,b),!legacy"),
                ("LABELS", "app=web"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        let n = object(serde_json::json!({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
            "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
                       "nodeInfo": {"osImage": "Ubuntu", "kernelVersion": "6.8",
                                    "containerRuntimeVersion": "containerd://2.0"}}
        }));
        let cells = wide_cells("Node", &n);
        assert_eq!(cells[0].1, "10.0.0.1");
        assert_eq!(cells[1].1, "<none>");
        assert_eq!(cells[4].1, "containerd://2.0");
        assert_eq!(cells[5], ("LABELS".to_string(), "<none>".to_string()));
        // Every other kind gets LABELS.
        assert_eq!(wide_cells("Pod", &n).len(), 1);
        assert_eq!(wide_cells("Widget", &n).len(), 1);
    }
}
