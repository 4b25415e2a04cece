//! Server-side printing: `meta.k8s.io/v1 Table` responses, as kubectl asks for them
//! (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`). Columns follow kube-apiserver's
//! printers for pods, deployments, replicasets, nodes, namespaces, services, events, configmaps
//! and secrets, the CRD's additionalPrinterColumns for
//! widgets and the generated provider kinds, and `NAME, AGE` for everything else.

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
    if super::provider_crds::is_generated(info) {
        let mut cols = vec![name_col()];
        cols.extend(
            super::provider_crds::table_columns()
                .iter()
                .map(|(name, ty)| col(name, ty, "", 0, "")),
        );
        return cols;
    }
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
        "poddisruptionbudgets" => vec![
            name_col(),
            col(
                "Min Available",
                "string",
                "",
                0,
                "The minimum number of pods that must be available",
            ),
            col(
                "Max Unavailable",
                "string",
                "",
                0,
                "The maximum number of pods that may be unavailable",
            ),
            col(
                "Allowed Disruptions",
                "integer",
                "",
                0,
                "Calculated number of pods that may be disrupted at this time",
            ),
            age_col(),
        ],
        "widgets" => vec![
            name_col(),
            col("Color", "string", "", 0, ""),
            col("Size", "integer", "", 0, ""),
            col("Phase", "string", "", 0, ""),
            age_col(),
        ],
        "events" => vec![
            col(
                "Last Seen",
                "string",
                "",
                0,
                "Time when this Event was last observed.",
            ),
            col(
                "Type",
                "string",
                "",
                0,
                "Type of this event (Normal, Warning).",
            ),
            col(
                "Reason",
                "string",
                "",
                0,
                "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
            ),
            col(
                "Object",
                "string",
                "",
                0,
                "The object that this event is about.",
            ),
            col(
                "Message",
                "string",
                "",
                0,
                "A human-readable description of the status of this operation.",
            ),
        ],
        "services" => vec![
            name_col(),
            col("Type", "string", "", 0, "The type of service."),
            col(
                "Cluster-IP",
                "string",
                "",
                0,
                "The cluster IP of the service.",
            ),
            col(
                "External-IP",
                "string",
                "",
                0,
                "The external IP of the service.",
            ),
            col("Port(s)", "string", "", 0, "The ports of the service."),
            age_col(),
        ],
        "replicasets" => vec![
            name_col(),
            col("Desired", "integer", "", 0, "Number of desired pods."),
            col("Current", "integer", "", 0, "Number of actual replicas."),
            col("Ready", "integer", "", 0, "The number of ready replicas."),
            age_col(),
        ],
        "cronjobs" => vec![
            name_col(),
            col("Schedule", "string", "", 0, "The schedule in Cron format."),
            col(
                "Timezone",
                "string",
                "",
                0,
                "The time zone name for the given schedule.",
            ),
            col(
                "Suspend",
                "boolean",
                "",
                0,
                "Whether subsequent executions are suspended.",
            ),
            col(
                "Active",
                "integer",
                "",
                0,
                "A list of pointers to currently running jobs.",
            ),
            col(
                "Last Schedule",
                "string",
                "",
                0,
                "Information when was the last time the job was successfully scheduled.",
            ),
            age_col(),
        ],
        "configmaps" => vec![
            name_col(),
            col(
                "Data",
                "string",
                "",
                0,
                "Number of entries in data and binaryData.",
            ),
            age_col(),
        ],
        "secrets" => vec![
            name_col(),
            col("Type", "string", "", 0, "The type of the secret."),
            col("Data", "string", "", 0, "Number of entries in data."),
            age_col(),
        ],
        _ => vec![name_col(), age_col()],
    }
}

fn count(o: &Value, ptr: &str) -> usize {
    o.pointer(ptr)
        .and_then(Value::as_object)
        .map_or(0, |m| m.len())
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
    if super::provider_crds::is_generated(info) {
        let mut cells = vec![name];
        cells.extend(super::provider_crds::table_cells(o));
        cells.push(json!(age));
        return cells;
    }
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
        "poddisruptionbudgets" => {
            let intstr = |p: &str| match o.pointer(p) {
                Some(Value::Number(n)) => n.to_string(),
                Some(Value::String(v)) => v.clone(),
                _ => "N/A".to_string(),
            };
            vec![
                name,
                json!(intstr("/spec/minAvailable")),
                json!(intstr("/spec/maxUnavailable")),
                json!(n(o, "/status/disruptionsAllowed")),
                json!(age),
            ]
        }
        "widgets" => vec![
            name,
            o.pointer("/spec/color").cloned().unwrap_or(Value::Null),
            o.pointer("/spec/size").cloned().unwrap_or(Value::Null),
            o.pointer("/status/phase").cloned().unwrap_or(Value::Null),
            json!(age),
        ],
        "events" => {
            let last = o
                .pointer("/lastTimestamp")
                .or_else(|| o.pointer("/eventTime"))
                .or_else(|| o.pointer("/metadata/creationTimestamp"))
                .and_then(Value::as_str);
            let kind = s(o, "/involvedObject/kind").to_lowercase();
            vec![
                json!(human_age(last)),
                json!(s(o, "/type")),
                json!(s(o, "/reason")),
                json!(format!("{kind}/{}", s(o, "/involvedObject/name"))),
                json!(s(o, "/message")),
            ]
        }
        "services" => {
            let ports: Vec<String> = o
                .pointer("/spec/ports")
                .and_then(Value::as_array)
                .map(|ps| {
                    ps.iter()
                        .map(|p| {
                            let proto = match s(p, "/protocol") {
                                "" => "TCP",
                                x => x,
                            };
                            match p.pointer("/nodePort").and_then(Value::as_i64) {
                                Some(np) => format!("{}:{np}/{proto}", n(p, "/port")),
                                None => format!("{}/{proto}", n(p, "/port")),
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            let external: Vec<String> = o
                .pointer("/status/loadBalancer/ingress")
                .and_then(Value::as_array)
                .map(|is| {
                    is.iter()
                        .map(|i| {
                            let ip = s(i, "/ip");
                            if ip.is_empty() { s(i, "/hostname") } else { ip }.to_string()
                        })
                        .collect()
                })
                .unwrap_or_default();
            let ty = match s(o, "/spec/type") {
                "" => "ClusterIP",
                t => t,
            };
            let cluster_ip = match s(o, "/spec/clusterIP") {
                "" => "<none>",
                ip => ip,
            };
            let external = if external.is_empty() && ty == "LoadBalancer" {
                "<pending>".to_string()
            } else {
                join(external)
            };
            vec![
                name,
                json!(ty),
                json!(cluster_ip),
                json!(external),
                json!(join(ports)),
                json!(age),
            ]
        }
        "replicasets" => vec![
            name,
            json!(n(o, "/spec/replicas")),
            json!(n(o, "/status/replicas")),
            json!(n(o, "/status/readyReplicas")),
            json!(age),
        ],
        "cronjobs" => vec![
            name,
            json!(s(o, "/spec/schedule")),
            json!(match s(o, "/spec/timeZone") {
                "" => "<none>",
                tz => tz,
            }),
            json!(match o.pointer("/spec/suspend").and_then(Value::as_bool) {
                Some(true) => "True",
                Some(false) => "False",
                None => "<unset>",
            }),
            json!(
                o.pointer("/status/active")
                    .and_then(Value::as_array)
                    .map_or(0, Vec::len)
            ),
            json!(match o
                .pointer("/status/lastScheduleTime")
                .and_then(Value::as_str)
            {
                Some(t) => human_age(Some(t)),
                None => "<none>".to_string(),
            }),
            json!(age),
        ],
        "configmaps" => vec![
            name,
            json!((count(o, "/data") + count(o, "/binaryData")).to_string()),
            json!(age),
        ],
        "secrets" => vec![
            name,
            json!(s(o, "/type")),
            json!(count(o, "/data").to_string()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::resources::{RESOURCES, find};

    fn info(group: &str, plural: &str) -> &'static ResourceInfo {
        &RESOURCES[find(group, "v1", plural).unwrap()]
    }

    #[test]
    fn pod_row_shows_waiting_reason_readiness_and_restarts() {
        let p = json!({"metadata": {"name": "p", "creationTimestamp": "2020-01-01T00:00:00Z"},
            "spec": {"nodeName": "n1", "containers": [{"name": "a"}, {"name": "b"}]},
            "status": {"phase": "Running", "podIP": "10.0.0.9", "containerStatuses": [
                {"name": "a", "ready": true, "restartCount": 2, "state": {"running": {}}},
                {"name": "b", "ready": false, "restartCount": 5,
                 "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}});
        let r = row(info("", "pods"), &p, IncludeObject::Metadata);
        let cells = r["cells"].as_array().unwrap();
        assert_eq!(
            cells[..4],
            [
                json!("p"),
                json!("1/2"),
                json!("CrashLoopBackOff"),
                json!("7")
            ]
        );
        assert_eq!(cells[5..7], [json!("10.0.0.9"), json!("n1")]);
        assert_eq!(r["object"]["kind"], "PartialObjectMetadata");
        assert_eq!(columns(info("", "pods")).len(), cells.len());
    }

    #[test]
    fn every_kind_has_as_many_cells_as_columns() {
        let o = json!({"metadata": {"name": "x"}});
        for i in RESOURCES.iter() {
            assert_eq!(columns(i).len(), cells(i, &o).len(), "{}", i.id.plural);
        }
    }

    #[test]
    fn human_age_rounds_like_kubectl() {
        let ago = |secs: i64| {
            (chrono::Utc::now() - chrono::Duration::seconds(secs))
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        };
        assert_eq!(human_age(Some(&ago(30))), "30s");
        assert_eq!(human_age(Some(&ago(150))), "2m30s");
        assert_eq!(human_age(Some(&ago(3 * 86_400 + 4 * 3600))), "3d4h");
        assert_eq!(human_age(None), "<unknown>");
    }
}
