//! Server-side printing: `meta.k8s.io/v1 Table` responses, as kubectl asks for them
//! (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`). Columns follow kube-apiserver's
//! printers for pods, deployments, nodes and namespaces, the CRD's additionalPrinterColumns for
//! widgets, and `NAME, AGE` for everything else.

use serde_json::{Value, json};

use super::resources::ResourceInfo;

/// What `includeObject` asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IncludeObject {
    None,
    Metadata,
    Object,
}

impl IncludeObject {
    pub fn parse(s: Option<&str>) -> Self {
        match s {
            Some("None") => Self::None,
            Some("Object") => Self::Object,
            _ => Self::Metadata,
        }
    }
}

fn col(name: &str, ty: &str, format: &str, priority: u8, description: &str) -> Value {
    json!({"name": name, "type": ty, "format": format, "description": description,
           "priority": priority})
}

fn name_col() -> Value {
    col(
        "Name",
        "string",
        "name",
        0,
        "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.",
    )
}

fn age_col() -> Value {
    col(
        "Age",
        "string",
        "",
        0,
        "CreationTimestamp is a timestamp representing the server time when this object was created.",
    )
}

/// The column definitions for a resource.
pub fn columns(info: &ResourceInfo) -> Vec<Value> {
    match info.id.plural {
        "pods" => vec![
            name_col(),
            col(
                "Ready",
                "string",
                "",
                0,
                "The aggregate readiness state of this pod for accepting traffic.",
            ),
            col(
                "Status",
                "string",
                "",
                0,
                "The aggregate status of the containers in this pod.",
            ),
            col(
                "Restarts",
                "string",
                "",
                0,
                "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.",
            ),
            age_col(),
            col(
                "IP",
                "string",
                "",
                1,
                "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
            ),
            col(
                "Node",
                "string",
                "",
                1,
                "NodeName is a request to schedule this pod onto a specific node.",
            ),
            col(
                "Nominated Node",
                "string",
                "",
                1,
                "nominatedNodeName is set when this pod preempts other pods on the node.",
            ),
            col(
                "Readiness Gates",
                "string",
                "",
                1,
                "If specified, all readiness gates will be evaluated for pod readiness.",
            ),
        ],
        "deployments" => vec![
            name_col(),
            col(
                "Ready",
                "string",
                "",
                0,
                "Number of the pod with ready state",
            ),
            col(
                "Up-to-date",
                "string",
                "",
                0,
                "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
            ),
            col(
                "Available",
                "string",
                "",
                0,
                "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
            ),
            age_col(),
            col(
                "Containers",
                "string",
                "",
                1,
                "Names of each container in the template.",
            ),
            col(
                "Images",
                "string",
                "",
                1,
                "Images referenced by each container in the template.",
            ),
            col("Selector", "string", "", 1, "Label selector for pods."),
        ],
        "nodes" => vec![
            name_col(),
            col("Status", "string", "", 0, "The status of the node"),
            col("Roles", "string", "", 0, "The roles of the node"),
            age_col(),
            col(
                "Version",
                "string",
                "",
                0,
                "Kubelet Version reported by the node.",
            ),
        ],
        "namespaces" => vec![
            name_col(),
            col("Status", "string", "", 0, "The status of the namespace"),
            age_col(),
        ],
        "widgets" => vec![
            name_col(),
            col("Color", "string", "", 0, ""),
            col("Size", "integer", "", 0, ""),
            col("Phase", "string", "", 0, ""),
            age_col(),
        ],
        _ => vec![name_col(), age_col()],
    }
}

/// `5s`, `3m`, `2d4h`... (apimachinery's `duration.HumanDuration`, simplified).
pub fn human_age(created: Option<&str>) -> String {
    let Some(t) = created.and_then(|c| chrono::DateTime::parse_from_rfc3339(c).ok()) else {
        return "<unknown>".into();
    };
    let secs = (chrono::Utc::now() - t.with_timezone(&chrono::Utc))
        .num_seconds()
        .max(0);
    let (m, h, d) = (secs / 60, secs / 3600, secs / 86_400);
    if secs < 120 {
        format!("{secs}s")
    } else if m < 10 {
        let s = secs % 60;
        if s == 0 {
            format!("{m}m")
        } else {
            format!("{m}m{s}s")
        }
    } else if h < 3 {
        format!("{m}m")
    } else if h < 8 {
        let mm = m % 60;
        if mm == 0 {
            format!("{h}h")
        } else {
            format!("{h}h{mm}m")
        }
    } else if h < 48 {
        format!("{h}h")
    } else if d < 8 {
        let hh = h % 24;
        if hh == 0 {
            format!("{d}d")
        } else {
            format!("{d}d{hh}h")
        }
    } else if d < 365 * 2 {
        format!("{d}d")
    } else {
        format!("{}y", d / 365)
    }
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn n(v: &Value, ptr: &str) -> i64 {
    v.pointer(ptr).and_then(Value::as_i64).unwrap_or(0)
}

fn pod_cells(p: &Value, age: String) -> Vec<Value> {
    let containers = p
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let statuses = p
        .pointer("/status/containerStatuses")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let ready = statuses
        .iter()
        .filter(|c| c.get("ready").and_then(Value::as_bool) == Some(true))
        .count();
    let restarts: i64 = statuses.iter().map(|c| n(c, "/restartCount")).sum();
    let mut reason = s(p, "/status/phase").to_string();
    if !s(p, "/status/reason").is_empty() {
        reason = s(p, "/status/reason").to_string();
    }
    for c in statuses.iter().rev() {
        let w = s(c, "/state/waiting/reason");
        let t = s(c, "/state/terminated/reason");
        if !w.is_empty() {
            reason = w.to_string();
        } else if !t.is_empty() {
            reason = t.to_string();
        }
    }
    if p.pointer("/metadata/deletionTimestamp").is_some() {
        reason = "Terminating".into();
    }
    let ip = match s(p, "/status/podIP") {
        "" => "<none>",
        ip => ip,
    };
    let node = match s(p, "/spec/nodeName") {
        "" => "<none>",
        n => n,
    };
    vec![
        json!(s(p, "/metadata/name")),
        json!(format!("{ready}/{containers}")),
        json!(reason),
        json!(restarts.to_string()),
        json!(age),
        json!(ip),
        json!(node),
        json!("<none>"),
        json!("<none>"),
    ]
}

fn join(items: Vec<String>) -> String {
    if items.is_empty() {
        "<none>".into()
    } else {
        items.join(",")
    }
}

fn cells(info: &ResourceInfo, o: &Value) -> Vec<Value> {
    let age = human_age(
        o.pointer("/metadata/creationTimestamp")
            .and_then(Value::as_str),
    );
    let name = json!(s(o, "/metadata/name"));
    match info.id.plural {
        "pods" => pod_cells(o, age),
        "deployments" => {
            let containers = o
                .pointer("/spec/template/spec/containers")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            let selector = o
                .pointer("/spec/selector/matchLabels")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                        .collect()
                })
                .unwrap_or_default();
            vec![
                name,
                json!(format!(
                    "{}/{}",
                    n(o, "/status/readyReplicas"),
                    n(o, "/spec/replicas")
                )),
                json!(n(o, "/status/updatedReplicas")),
                json!(n(o, "/status/availableReplicas")),
                json!(age),
                json!(join(
                    containers
                        .iter()
                        .map(|c| s(c, "/name").to_string())
                        .collect()
                )),
                json!(join(
                    containers
                        .iter()
                        .map(|c| s(c, "/image").to_string())
                        .collect()
                )),
                json!(join(selector)),
            ]
        }
        "nodes" => {
            let ready = o
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .and_then(|cs| cs.iter().find(|c| s(c, "/type") == "Ready"))
                .map(|c| s(c, "/status") == "True");
            let mut status = match ready {
                Some(true) => "Ready".to_string(),
                Some(false) => "NotReady".to_string(),
                None => "Unknown".to_string(),
            };
            if o.pointer("/spec/unschedulable").and_then(Value::as_bool) == Some(true) {
                status.push_str(",SchedulingDisabled");
            }
            let roles: Vec<String> = o
                .pointer("/metadata/labels")
                .and_then(Value::as_object)
                .map(|m| {
                    m.keys()
                        .filter_map(|k| k.strip_prefix("node-role.kubernetes.io/"))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            vec![
                name,
                json!(status),
                json!(join(roles)),
                json!(age),
                json!(s(o, "/status/nodeInfo/kubeletVersion")),
            ]
        }
        "namespaces" => vec![name, json!(s(o, "/status/phase")), json!(age)],
        "widgets" => vec![
            name,
            o.pointer("/spec/color").cloned().unwrap_or(Value::Null),
            o.pointer("/spec/size").cloned().unwrap_or(Value::Null),
            o.pointer("/status/phase").cloned().unwrap_or(Value::Null),
            json!(age),
        ],
        _ => vec![name, json!(age)],
    }
}

/// One table row for an object.
pub fn row(info: &ResourceInfo, o: &Value, include: IncludeObject) -> Value {
    let mut r = json!({"cells": cells(info, o)});
    match include {
        IncludeObject::None => {}
        IncludeObject::Object => r["object"] = o.clone(),
        IncludeObject::Metadata => {
            r["object"] = json!({
                "kind": "PartialObjectMetadata",
                "apiVersion": "meta.k8s.io/v1",
                "metadata": o.get("metadata").cloned().unwrap_or(json!({})),
            });
        }
    }
    r
}

/// A whole `Table`.
pub fn table(
    info: &ResourceInfo,
    rows: Vec<Value>,
    resource_version: u64,
    continue_token: Option<&str>,
) -> Value {
    let mut meta = json!({"resourceVersion": resource_version.to_string()});
    if let Some(c) = continue_token {
        meta["continue"] = json!(c);
    }
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": meta,
        "columnDefinitions": columns(info),
        "rows": rows,
    })
}
