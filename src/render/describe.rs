//! The `d` view: a `kubectl describe`-like text (kubectl's `pkg/describe`): the common header
//! (Name, Namespace, Labels, Annotations, Controlled By), per-kind highlights (pod containers,
//! node conditions and system info, workload replicas and conditions; other kinds show their
//! spec and status as indented YAML), then the Events table of the events whose
//! `involvedObject.uid` is the object's uid, oldest first.

use std::fmt::Write as _;
use std::sync::Arc;

use kube::api::DynamicObject;
use serde_json::Value;

use super::cell::{Cell, arr_at, at, bool_at, format_age, int_at, int_opt, parse_time, str_at};
use super::pod::pod_phase_reason;
use super::resources::{event_last_seen, node_roles, node_status};
use crate::informer::cached::{EventRecord, event};

/// Describe `obj` with its `events` (any events; those about other objects are skipped), ages
/// computed against the current clock.
pub fn describe(obj: &DynamicObject, events: &[Arc<DynamicObject>]) -> String {
    describe_at(obj, events, k8s_openapi::jiff::Timestamp::now().as_second())
}

/// [`describe`] with ages computed against `now_unix` (unix seconds).
pub fn describe_at(obj: &DynamicObject, events: &[Arc<DynamicObject>], now_unix: i64) -> String {
    let obj = &*crate::informer::cached::unpacked(obj);
    let mut out = String::new();
    let kind = obj.types.as_ref().map(|t| t.kind.as_str()).unwrap_or("");
    let m = &obj.metadata;
    field(&mut out, "Name", m.name.as_deref().unwrap_or(""));
    if let Some(ns) = m.namespace.as_deref() {
        field(&mut out, "Namespace", ns);
    }
    let labels = crate::informer::cached::labels(obj).to_map();
    map_field(&mut out, "Labels", labels.as_ref());
    map_field(&mut out, "Annotations", m.annotations.as_ref());
    if let Some(t) = &m.creation_timestamp {
        let ts = t.0.as_second();
        field(
            &mut out,
            "CreationTimestamp",
            &format!("{} ({} ago)", t.0, format_age(now_unix - ts)),
        );
    }
    if let Some(owner) = m
        .owner_references
        .as_ref()
        .and_then(|o| o.iter().find(|r| r.controller == Some(true)))
    {
        field(
            &mut out,
            "Controlled By",
            &format!("{}/{}", owner.kind, owner.name),
        );
    }
    if let Some(t) = &m.deletion_timestamp {
        field(&mut out, "Deletion Requested", &t.0.to_string());
    }
    let d = &obj.data;
    match kind {
        "Pod" => describe_pod(&mut out, obj, now_unix),
        "Node" => describe_node(&mut out, obj),
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" => {
            describe_workload(&mut out, kind, d)
        }
        _ => describe_generic(&mut out, d),
    }
    describe_events(&mut out, obj, events, now_unix);
    out
}

/// `Name:` padded to 20 columns, then the value; a longer name keeps one space before it.
fn field(out: &mut String, name: &str, value: &str) {
    let _ = writeln!(out, "{:<19} {}", format!("{name}:"), value);
}

fn map_field(
    out: &mut String,
    name: &str,
    map: Option<&std::collections::BTreeMap<String, String>>,
) {
    match map {
        Some(m) if !m.is_empty() => {
            for (i, (k, v)) in m.iter().enumerate() {
                let label = if i == 0 {
                    format!("{name}:")
                } else {
                    String::new()
                };
                let _ = writeln!(out, "{label:<19} {k}={v}");
            }
        }
        _ => field(out, name, "<none>"),
    }
}

fn conditions_table(out: &mut String, d: &Value, path: &[&str]) {
    let conds = arr_at(d, path);
    if conds.is_empty() {
        return;
    }
    let _ = writeln!(out, "Conditions:");
    let _ = writeln!(
        out,
        "  {:<28}{:<8}{:<28}Message",
        "Type", "Status", "Reason"
    );
    let _ = writeln!(
        out,
        "  {:<28}{:<8}{:<28}-------",
        "----", "------", "------"
    );
    for c in conds {
        let _ = writeln!(
            out,
            "  {:<28}{:<8}{:<28}{}",
            str_at(c, &["type"]),
            str_at(c, &["status"]),
            str_at(c, &["reason"]),
            str_at(c, &["message"])
        );
    }
}

fn container_state(out: &mut String, indent: &str, label: &str, st: Option<&Value>) {
    let Some(st) = st.and_then(Value::as_object) else {
        return;
    };
    if let Some(r) = st.get("running").filter(|v| v.is_object()) {
        let _ = writeln!(out, "{indent}{label:<16}Running");
        let started = str_at(r, &["startedAt"]);
        if !started.is_empty() {
            let _ = writeln!(out, "{indent}  Started:      {started}");
        }
    } else if let Some(w) = st.get("waiting").filter(|v| v.is_object()) {
        let _ = writeln!(out, "{indent}{label:<16}Waiting");
        let _ = writeln!(out, "{indent}  Reason:       {}", str_at(w, &["reason"]));
        let msg = str_at(w, &["message"]);
        if !msg.is_empty() {
            let _ = writeln!(out, "{indent}  Message:      {msg}");
        }
    } else if let Some(t) = st.get("terminated").filter(|v| v.is_object()) {
        let _ = writeln!(out, "{indent}{label:<16}Terminated");
        let _ = writeln!(out, "{indent}  Reason:       {}", str_at(t, &["reason"]));
        let _ = writeln!(out, "{indent}  Exit Code:    {}", int_at(t, &["exitCode"]));
        for (k, name) in [("startedAt", "Started"), ("finishedAt", "Finished")] {
            let v = str_at(t, &[k]);
            if !v.is_empty() {
                let _ = writeln!(out, "{indent}  {:<14}{v}", format!("{name}:"));
            }
        }
    }
}

fn describe_containers(out: &mut String, title: &str, specs: &[Value], statuses: &[Value]) {
    if specs.is_empty() {
        return;
    }
    let _ = writeln!(out, "{title}:");
    for c in specs {
        let name = str_at(c, &["name"]);
        let _ = writeln!(out, "  {name}:");
        let _ = writeln!(out, "    {:<16}{}", "Image:", str_at(c, &["image"]));
        let ports: Vec<String> = arr_at(c, &["ports"])
            .iter()
            .map(|p| {
                let proto = match str_at(p, &["protocol"]) {
                    "" => "TCP",
                    p => p,
                };
                format!("{}/{proto}", int_at(p, &["containerPort"]))
            })
            .collect();
        if !ports.is_empty() {
            let _ = writeln!(out, "    {:<16}{}", "Ports:", ports.join(", "));
        }
        if let Some(cs) = statuses.iter().find(|s| str_at(s, &["name"]) == name) {
            container_state(out, "    ", "State:", at(cs, &["state"]));
            container_state(out, "    ", "Last State:", at(cs, &["lastState"]));
            let _ = writeln!(
                out,
                "    {:<16}{}",
                "Ready:",
                if bool_at(cs, &["ready"]) {
                    "True"
                } else {
                    "False"
                }
            );
            let _ = writeln!(
                out,
                "    {:<16}{}",
                "Restart Count:",
                int_at(cs, &["restartCount"])
            );
        }
        for (key, label) in [("limits", "Limits:"), ("requests", "Requests:")] {
            if let Some(Value::Object(r)) = at(c, &["resources", key])
                && !r.is_empty()
            {
                let _ = writeln!(out, "    {label}");
                for (k, v) in r {
                    let v = v
                        .as_str()
                        .map(str::to_string)
                        .unwrap_or_else(|| v.to_string());
                    let _ = writeln!(out, "      {k}: {v}");
                }
            }
        }
        let env = arr_at(c, &["env"]);
        if !env.is_empty() {
            let _ = writeln!(out, "    Environment:");
            for e in env {
                let value = match at(e, &["value"]).and_then(Value::as_str) {
                    Some(v) => v.to_string(),
                    None if at(e, &["valueFrom"]).is_some() => "<set from a reference>".into(),
                    None => String::new(),
                };
                let _ = writeln!(out, "      {}: {value}", str_at(e, &["name"]));
            }
        }
        let mounts = arr_at(c, &["volumeMounts"]);
        if !mounts.is_empty() {
            let _ = writeln!(out, "    Mounts:");
            for m in mounts {
                let ro = if bool_at(m, &["readOnly"]) {
                    "ro"
                } else {
                    "rw"
                };
                let _ = writeln!(
                    out,
                    "      {} from {} ({ro})",
                    str_at(m, &["mountPath"]),
                    str_at(m, &["name"])
                );
            }
        }
    }
}

fn describe_pod(out: &mut String, obj: &DynamicObject, _now: i64) {
    let d = &obj.data;
    let summary = pod_phase_reason(obj);
    let node = crate::informer::index::dynamic_pod_node(d).unwrap_or("");
    let host_ip = str_at(d, &["status", "hostIP"]);
    field(
        out,
        "Node",
        &if node.is_empty() {
            "<none>".to_string()
        } else if host_ip.is_empty() {
            node.to_string()
        } else {
            format!("{node}/{host_ip}")
        },
    );
    let start = str_at(d, &["status", "startTime"]);
    if !start.is_empty() {
        field(out, "Start Time", start);
    }
    field(out, "Status", str_at(d, &["status", "phase"]));
    if summary.reason != str_at(d, &["status", "phase"]) {
        field(out, "Reason", &summary.reason);
    }
    field(
        out,
        "Ready",
        &Cell::Ratio(summary.ready, summary.total).display(0),
    );
    field(out, "Restarts", &summary.restarts.to_string());
    let ip = str_at(d, &["status", "podIP"]);
    field(out, "IP", if ip.is_empty() { "<none>" } else { ip });
    let qos = str_at(d, &["status", "qosClass"]);
    if !qos.is_empty() {
        field(out, "QoS Class", qos);
    }
    describe_containers(
        out,
        "Init Containers",
        arr_at(d, &["spec", "initContainers"]),
        arr_at(d, &["status", "initContainerStatuses"]),
    );
    describe_containers(
        out,
        "Containers",
        arr_at(d, &["spec", "containers"]),
        arr_at(d, &["status", "containerStatuses"]),
    );
    conditions_table(out, d, &["status", "conditions"]);
    let volumes = arr_at(d, &["spec", "volumes"]);
    if !volumes.is_empty() {
        let _ = writeln!(out, "Volumes:");
        for v in volumes {
            let source = v
                .as_object()
                .and_then(|m| m.keys().find(|k| k.as_str() != "name"))
                .map(String::as_str)
                .unwrap_or("");
            let _ = writeln!(out, "  {} ({source})", str_at(v, &["name"]));
        }
    }
}

fn describe_node(out: &mut String, obj: &DynamicObject) {
    let d = &obj.data;
    let roles = node_roles(obj).join(",");
    field(
        out,
        "Roles",
        if roles.is_empty() { "<none>" } else { &roles },
    );
    field(out, "Status", &node_status(obj));
    field(
        out,
        "Unschedulable",
        if bool_at(d, &["spec", "unschedulable"]) {
            "true"
        } else {
            "false"
        },
    );
    let taints: Vec<String> = arr_at(d, &["spec", "taints"])
        .iter()
        .map(|t| {
            let v = str_at(t, &["value"]);
            let kv = if v.is_empty() {
                str_at(t, &["key"]).to_string()
            } else {
                format!("{}={v}", str_at(t, &["key"]))
            };
            format!("{kv}:{}", str_at(t, &["effect"]))
        })
        .collect();
    field(
        out,
        "Taints",
        &if taints.is_empty() {
            "<none>".to_string()
        } else {
            taints.join(", ")
        },
    );
    conditions_table(out, d, &["status", "conditions"]);
    let addrs = arr_at(d, &["status", "addresses"]);
    if !addrs.is_empty() {
        let _ = writeln!(out, "Addresses:");
        for a in addrs {
            let _ = writeln!(
                out,
                "  {:<14}{}",
                format!("{}:", str_at(a, &["type"])),
                str_at(a, &["address"])
            );
        }
    }
    for (section, path) in [("Capacity", "capacity"), ("Allocatable", "allocatable")] {
        if let Some(Value::Object(m)) = at(d, &["status", path]) {
            let _ = writeln!(out, "{section}:");
            for (k, v) in m {
                let v = v
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string());
                let _ = writeln!(out, "  {k}: {v}");
            }
        }
    }
    if let Some(Value::Object(info)) = at(d, &["status", "nodeInfo"]) {
        let _ = writeln!(out, "System Info:");
        for (k, label) in [
            ("machineID", "Machine ID"),
            ("kernelVersion", "Kernel Version"),
            ("osImage", "OS Image"),
            ("operatingSystem", "Operating System"),
            ("architecture", "Architecture"),
            ("containerRuntimeVersion", "Container Runtime Version"),
            ("kubeletVersion", "Kubelet Version"),
        ] {
            if let Some(v) = info.get(k).and_then(Value::as_str) {
                let _ = writeln!(out, "  {:<28}{v}", format!("{label}:"));
            }
        }
    }
    let pod_cidr = str_at(d, &["spec", "podCIDR"]);
    if !pod_cidr.is_empty() {
        field(out, "PodCIDR", pod_cidr);
    }
}

fn describe_workload(out: &mut String, kind: &str, d: &Value) {
    if let Some(sel) = at(d, &["spec", "selector", "matchLabels"]) {
        field(out, "Selector", &super::cell::format_labels(Some(sel)));
    }
    match kind {
        "DaemonSet" => {
            field(
                out,
                "Desired Number of Nodes Scheduled",
                &int_at(d, &["status", "desiredNumberScheduled"]).to_string(),
            );
            field(
                out,
                "Current Number of Nodes Scheduled",
                &int_at(d, &["status", "currentNumberScheduled"]).to_string(),
            );
            field(
                out,
                "Number of Nodes Scheduled with Up-to-date Pods",
                &int_at(d, &["status", "updatedNumberScheduled"]).to_string(),
            );
            field(
                out,
                "Number of Nodes Scheduled with Available Pods",
                &int_at(d, &["status", "numberAvailable"]).to_string(),
            );
        }
        _ => {
            let desired = int_opt(d, &["spec", "replicas"]).unwrap_or(1);
            let s = |k: &str| int_at(d, &["status", k]);
            field(
                out,
                "Replicas",
                &format!(
                    "{desired} desired | {} updated | {} total | {} ready | {} available | {} unavailable",
                    s("updatedReplicas"),
                    s("replicas"),
                    s("readyReplicas"),
                    s("availableReplicas"),
                    s("unavailableReplicas"),
                ),
            );
        }
    }
    let strategy = str_at(d, &["spec", "strategy", "type"]);
    if !strategy.is_empty() {
        field(out, "StrategyType", strategy);
    }
    if let Some(n) = int_opt(d, &["spec", "minReadySeconds"]) {
        field(out, "MinReadySeconds", &n.to_string());
    }
    // As kubectl: a Deployment's rolling update bounds (a count or a percentage each).
    if let Some(ru) = at(d, &["spec", "strategy", "rollingUpdate"]) {
        let bound = |k: &str| match at(ru, &[k]) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => "0".to_string(),
        };
        field(
            out,
            "RollingUpdateStrategy",
            &format!(
                "{} max unavailable, {} max surge",
                bound("maxUnavailable"),
                bound("maxSurge")
            ),
        );
    }
    // The pod template's labels and annotations (a rollout restart is an annotation there).
    let template_map = |k: &str| -> Option<std::collections::BTreeMap<String, String>> {
        let m = at(d, &["spec", "template", "metadata", k])?.as_object()?;
        Some(
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect(),
        )
    };
    if at(d, &["spec", "template"]).is_some() {
        let _ = writeln!(out, "Pod Template:");
        map_field(out, "  Labels", template_map("labels").as_ref());
        map_field(out, "  Annotations", template_map("annotations").as_ref());
    }
    let tmpl = at(d, &["spec", "template", "spec"]);
    if let Some(t) = tmpl {
        describe_containers(
            out,
            "Pod Template Containers",
            arr_at(t, &["containers"]),
            &[],
        );
    }
    conditions_table(out, d, &["status", "conditions"]);
}

fn describe_generic(out: &mut String, d: &Value) {
    let Some(m) = d.as_object() else { return };
    for (k, v) in m {
        if k == "metadata" || k == "apiVersion" || k == "kind" {
            continue;
        }
        let mut title = k.clone();
        if let Some(first) = title.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        match v {
            Value::Object(_) | Value::Array(_) => {
                let _ = writeln!(out, "{title}:");
                let yaml = serde_norway::to_string(v).unwrap_or_default();
                for line in yaml.lines() {
                    let _ = writeln!(out, "  {line}");
                }
            }
            Value::String(s) => field(out, &title, s),
            other => field(out, &title, &other.to_string()),
        }
    }
}

fn describe_events(out: &mut String, obj: &DynamicObject, events: &[Arc<DynamicObject>], now: i64) {
    let uid = obj.metadata.uid.as_deref().unwrap_or("");
    let mut mine: Vec<EventRecord<'_>> = events
        .iter()
        .map(|e| event(&e.data))
        .filter(|e| !uid.is_empty() && e.subject.as_ref().is_some_and(|s| s.uid == uid))
        .collect();
    if mine.is_empty() {
        let _ = writeln!(out, "Events:             <none>");
        return;
    }
    mine.sort_by_key(event_last_seen);
    let rows: Vec<[String; 5]> = mine
        .iter()
        .map(|e| {
            let last = event_last_seen(e);
            let first = e
                .first_timestamp
                .as_deref()
                .and_then(parse_time)
                .or_else(|| e.event_time.as_deref().and_then(parse_time))
                .or(last);
            let count = e
                .series
                .as_ref()
                .and_then(|s| s.count)
                .or(e.count)
                .unwrap_or(1);
            let age = match (last, first) {
                (Some(l), Some(f)) if count > 1 => format!(
                    "{} (x{count} over {})",
                    format_age(now - l),
                    format_age(now - f)
                ),
                (Some(l), _) => format_age(now - l),
                _ => "<unknown>".to_string(),
            };
            let component = &*e.source_component;
            let from = if component.is_empty() {
                match &*e.reporting_component {
                    "" => e.reporting_controller.to_string(),
                    c => c.to_string(),
                }
            } else {
                let host = &*e.source_host;
                if host.is_empty() {
                    component.to_string()
                } else {
                    format!("{component}, {host}")
                }
            };
            [
                e.type_.to_string(),
                e.reason.to_string(),
                age,
                from,
                e.message.trim().to_string(),
            ]
        })
        .collect();
    let headers = ["Type", "Reason", "Age", "From", "Message"];
    let mut widths = headers.map(str::len);
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r.iter()).take(4) {
            *w = (*w).max(c.chars().count());
        }
    }
    let _ = writeln!(out, "Events:");
    let line = |out: &mut String, cells: [&str; 5]| {
        let _ = writeln!(
            out,
            "  {:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
            cells[0],
            cells[1],
            cells[2],
            cells[3],
            cells[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3]
        );
    };
    line(out, headers);
    line(out, ["----", "------", "----", "----", "-------"]);
    for r in &rows {
        line(out, [&r[0], &r[1], &r[2], &r[3], &r[4]]);
    }
}
