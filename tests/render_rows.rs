//! Row functions against realistic fixtures (`tests/fixtures/*.json`): every cell as
//! `kubectl get` prints it, pruning that keeps rows identical, YAML/describe views, and a
//! proptest that no object shape makes any of them panic.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell as StdCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, Ordering};

use kinformer::informer::cached;
use kinformer::render::{
    self, Cell, Health, PrinterColumn, columns, describe_at, printer_columns_from_crd, prune, row,
    to_yaml,
};
use kube::api::DynamicObject;
use proptest::prelude::*;
use serde_json::{Value, json};

// ---- a per-thread allocation counter, to measure what a pruned pod keeps resident ------------

struct Counting;

static NET: AtomicIsize = AtomicIsize::new(0);
thread_local! {
    static COUNTING: StdCell<bool> = const { StdCell::new(false) };
}

fn counting() -> bool {
    COUNTING.try_with(StdCell::get).unwrap_or(false)
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            NET.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if counting() {
            NET.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            NET.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

// ---- helpers ---------------------------------------------------------------------------------

/// 2026-11-22T12:00:00Z: fixtures are created at 2026-11-20T10:00:00Z (AGE 2d2h).
const NOW: i64 = 1_795_348_800;

fn fixture_json(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn obj(v: Value) -> DynamicObject {
    serde_json::from_value(v).expect("object")
}

fn fixture(name: &str) -> DynamicObject {
    obj(fixture_json(name))
}

fn kind_of(o: &DynamicObject) -> String {
    o.types.as_ref().map(|t| t.kind.clone()).unwrap_or_default()
}

/// The row as the strings kubectl prints.
fn texts(kind: &str, o: &DynamicObject, pcs: Option<&[PrinterColumn]>) -> Vec<String> {
    row(kind, o, pcs)
        .cells
        .iter()
        .map(|c| c.display(NOW).into_owned())
        .collect()
}

fn headers(kind: &str, pcs: Option<&[PrinterColumn]>) -> Vec<String> {
    columns(kind, pcs).into_iter().map(|c| c.name).collect()
}

fn pod_status(o: &DynamicObject) -> String {
    texts("Pod", o, None)[2].clone()
}

/// pod.json with `edit` applied to its JSON.
fn pod_with(edit: impl FnOnce(&mut Value)) -> DynamicObject {
    let mut v = fixture_json("pod");
    edit(&mut v);
    obj(v)
}

const ALL_FIXTURES: &[&str] = &[
    "pod",
    "pod_crashloop",
    "pod_terminating",
    "pod_init",
    "pod_completed",
    "deployment",
    "replicaset",
    "statefulset",
    "daemonset",
    "job",
    "cronjob",
    "service",
    "configmap",
    "secret",
    "serviceaccount",
    "namespace",
    "node",
    "event",
    "crd",
];

// ---- Pod -------------------------------------------------------------------------------------

#[test]
fn pod_columns_are_kubectls() {
    assert_eq!(
        headers("Pod", None),
        ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
    );
}

#[test]
fn running_pod_row_matches_kubectl() {
    let p = fixture("pod");
    assert_eq!(
        texts("Pod", &p, None),
        [
            "web-7d9c8b7f6d-x2x9z",
            "2/2",
            "Running",
            "0",
            "2d2h",
            "10.244.1.17",
            "node-a"
        ]
    );
    assert_eq!(row("Pod", &p, None).health, Health::Ok);
}

#[test]
fn pod_status_shows_crashloopbackoff_from_waiting_reason() {
    let p = fixture("pod_crashloop");
    let r = row("Pod", &p, None);
    assert_eq!(
        texts("Pod", &p, None)[..4],
        [
            "web-7d9c8b7f6d-crash",
            "1/2",
            "CrashLoopBackOff",
            "5 (2m ago)"
        ]
    );
    assert_eq!(r.health, Health::Error);
}

#[test]
fn pod_restarts_keep_last_restart_time_for_draw_time_rendering() {
    let p = fixture("pod_crashloop");
    let r = row("Pod", &p, None);
    // finishedAt 2026-11-22T11:58:00Z
    assert_eq!(r.cells[3], Cell::Restarts(5, Some(NOW - 120)));
    assert_eq!(r.cells[3].display(NOW + 3600), "5 (62m ago)");
}

#[test]
fn terminating_pod_shows_terminating() {
    let p = fixture("pod_terminating");
    assert_eq!(pod_status(&p), "Terminating");
    assert_eq!(row("Pod", &p, None).health, Health::Terminating);
}

#[test]
fn pod_in_terminal_phase_keeps_its_status_while_deleted() {
    let mut v = fixture_json("pod_completed");
    v["metadata"]["deletionTimestamp"] = json!("2026-11-22T11:59:00Z");
    assert_eq!(pod_status(&obj(v)), "Completed");
}

#[test]
fn deleted_pod_on_lost_node_shows_unknown() {
    let p = pod_with(|v| {
        v["metadata"]["deletionTimestamp"] = json!("2026-11-22T11:59:00Z");
        v["status"]["reason"] = json!("NodeLost");
    });
    assert_eq!(pod_status(&p), "Unknown");
}

#[test]
fn pod_with_running_init_container_shows_init_progress() {
    let p = fixture("pod_init");
    assert_eq!(
        texts("Pod", &p, None),
        [
            "api-5f6c7d8e9f-init",
            "0/2",
            "Init:1/2",
            "0",
            "2d2h",
            "10.244.2.5",
            "node-b"
        ]
    );
    assert_eq!(row("Pod", &p, None).health, Health::Pending);
}

#[test]
fn failing_init_container_shows_init_reason() {
    let mut v = fixture_json("pod_init");
    v["status"]["initContainerStatuses"][1]["state"] =
        json!({"waiting": {"reason": "CrashLoopBackOff"}});
    assert_eq!(pod_status(&obj(v.clone())), "Init:CrashLoopBackOff");
    v["status"]["initContainerStatuses"][1]["state"] =
        json!({"terminated": {"exitCode": 2, "reason": "Error"}});
    assert_eq!(pod_status(&obj(v.clone())), "Init:Error");
    v["status"]["initContainerStatuses"][1]["state"] = json!({"terminated": {"exitCode": 3}});
    assert_eq!(pod_status(&obj(v.clone())), "Init:ExitCode:3");
    v["status"]["initContainerStatuses"][1]["state"] =
        json!({"terminated": {"exitCode": 137, "signal": 9}});
    assert_eq!(pod_status(&obj(v.clone())), "Init:Signal:9");
    assert_eq!(row("Pod", &obj(v), None).health, Health::Error);
}

#[test]
fn completed_job_pod_shows_completed() {
    let p = fixture("pod_completed");
    assert_eq!(
        texts("Pod", &p, None)[..5],
        [
            "daily-report-29123456-kq7ws",
            "0/1",
            "Completed",
            "0",
            "2d2h"
        ]
    );
    assert_eq!(row("Pod", &p, None).health, Health::Completed);
}

#[test]
fn pod_status_shows_image_pull_and_creation_waiting_reasons() {
    for reason in ["ImagePullBackOff", "ErrImagePull", "ContainerCreating"] {
        let p = pod_with(|v| {
            v["status"]["containerStatuses"][0]["state"] = json!({"waiting": {"reason": reason}});
            v["status"]["containerStatuses"][0]["ready"] = json!(false);
        });
        assert_eq!(pod_status(&p), reason);
        assert_eq!(texts("Pod", &p, None)[1], "1/2");
    }
}

#[test]
fn pod_status_shows_oomkilled_and_exit_codes() {
    let term = |t: Value| {
        pod_with(move |v| {
            v["status"]["containerStatuses"][1]["state"] = json!({ "terminated": t });
            v["status"]["containerStatuses"][1]["ready"] = json!(false);
        })
    };
    assert_eq!(
        pod_status(&term(json!({"exitCode": 137, "reason": "OOMKilled"}))),
        "OOMKilled"
    );
    assert_eq!(
        pod_status(&term(json!({"exitCode": 1, "reason": "Error"}))),
        "Error"
    );
    assert_eq!(pod_status(&term(json!({"exitCode": 2}))), "ExitCode:2");
    assert_eq!(
        pod_status(&term(json!({"exitCode": 143, "signal": 15}))),
        "Signal:15"
    );
}

#[test]
fn completed_container_next_to_running_one_reads_running_or_notready() {
    let done = |ready_cond: &str| {
        let ready_cond = ready_cond.to_string();
        pod_with(move |v| {
            // the first container (checked last) exited 0, the second still runs
            v["status"]["containerStatuses"][0]["state"] =
                json!({"terminated": {"exitCode": 0, "reason": "Completed"}});
            v["status"]["containerStatuses"][0]["ready"] = json!(false);
            v["status"]["conditions"][2]["status"] = json!(ready_cond);
        })
    };
    assert_eq!(pod_status(&done("True")), "Running");
    assert_eq!(pod_status(&done("False")), "NotReady");
}

#[test]
fn started_sidecar_init_container_counts_as_ready_container() {
    let p = pod_with(|v| {
        v["spec"]["initContainers"] =
            json!([{"name": "proxy", "image": "envoy", "restartPolicy": "Always"}]);
        v["status"]["initContainerStatuses"] = json!([{
            "name": "proxy", "ready": true, "started": true, "restartCount": 2,
            "state": {"running": {"startedAt": "2026-11-22T11:00:00Z"}},
            "lastState": {"terminated": {"exitCode": 1, "finishedAt": "2026-11-22T11:00:00Z"}}
        }]);
    });
    let t = texts("Pod", &p, None);
    assert_eq!(t[1], "3/3");
    assert_eq!(t[2], "Running");
    // sidecar restarts count even after initialization
    assert_eq!(t[3], "2 (60m ago)");
}

#[test]
fn scheduling_gated_and_unscheduled_pods() {
    let p = pod_with(|v| {
        v["spec"].as_object_mut().map(|s| s.remove("nodeName"));
        v["status"] = json!({"phase": "Pending", "conditions": [
            {"type": "PodScheduled", "status": "False", "reason": "SchedulingGated"}]});
    });
    assert_eq!(
        texts("Pod", &p, None)[1..],
        ["0/2", "SchedulingGated", "0", "2d2h", "<none>", "<none>"]
    );
    let p = pod_with(|v| {
        v["status"] = json!({"phase": "Pending"});
    });
    assert_eq!(pod_status(&p), "Pending");
    assert_eq!(row("Pod", &p, None).health, Health::Pending);
}

#[test]
fn evicted_pod_shows_status_reason() {
    let p = pod_with(|v| {
        v["status"] = json!({"phase": "Failed", "reason": "Evicted",
            "message": "The node was low on resource: memory."});
    });
    assert_eq!(pod_status(&p), "Evicted");
    assert_eq!(row("Pod", &p, None).health, Health::Error);
}

#[test]
fn running_pod_with_unready_container_is_a_warning() {
    let p = pod_with(|v| {
        v["status"]["containerStatuses"][1]["ready"] = json!(false);
    });
    assert_eq!(texts("Pod", &p, None)[1..3], ["1/2", "Running"]);
    assert_eq!(row("Pod", &p, None).health, Health::Warning);
}

// ---- other kinds -----------------------------------------------------------------------------

#[test]
fn deployment_row_shows_ready_uptodate_available() {
    let d = fixture("deployment");
    assert_eq!(
        headers("Deployment", None),
        ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]
    );
    assert_eq!(
        texts("Deployment", &d, None),
        ["web", "2/3", "3", "2", "2d2h"]
    );
    assert_eq!(row("Deployment", &d, None).health, Health::Warning);
}

#[test]
fn replicaset_and_statefulset_rows() {
    assert_eq!(
        headers("ReplicaSet", None),
        ["NAME", "DESIRED", "CURRENT", "READY", "AGE"]
    );
    assert_eq!(
        texts("ReplicaSet", &fixture("replicaset"), None),
        ["web-7d9c8b7f6d", "3", "3", "2", "2d2h"]
    );
    assert_eq!(headers("StatefulSet", None), ["NAME", "READY", "AGE"]);
    let s = fixture("statefulset");
    assert_eq!(texts("StatefulSet", &s, None), ["db", "3/3", "2d2h"]);
    assert_eq!(row("StatefulSet", &s, None).health, Health::Ok);
}

#[test]
fn daemonset_row_shows_sorted_node_selector() {
    assert_eq!(
        headers("DaemonSet", None),
        [
            "NAME",
            "DESIRED",
            "CURRENT",
            "READY",
            "UP-TO-DATE",
            "AVAILABLE",
            "NODE SELECTOR",
            "AGE"
        ]
    );
    assert_eq!(
        texts("DaemonSet", &fixture("daemonset"), None),
        [
            "node-exporter",
            "4",
            "4",
            "3",
            "4",
            "3",
            "disk=ssd,kubernetes.io/os=linux",
            "2d2h"
        ]
    );
}

#[test]
fn job_row_shows_status_completions_and_duration() {
    assert_eq!(
        headers("Job", None),
        ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    );
    let j = fixture("job");
    assert_eq!(
        texts("Job", &j, None),
        ["daily-report-29123456", "Complete", "1/1", "4m5s", "2d2h"]
    );
    assert_eq!(row("Job", &j, None).health, Health::Completed);
}

#[test]
fn running_job_duration_grows_with_the_clock() {
    let mut v = fixture_json("job");
    v["status"] = json!({"startTime": "2026-11-22T11:59:00Z", "active": 2});
    v["spec"] = json!({"parallelism": 3});
    let j = obj(v);
    let r = row("Job", &j, None);
    assert_eq!(r.cells[1].display(NOW), "Running");
    assert_eq!(r.cells[2].display(NOW), "0/1 of 3");
    assert_eq!(r.cells[3].display(NOW), "60s");
    assert_eq!(r.cells[3].display(NOW + 60), "2m");
}

#[test]
fn failed_and_suspended_jobs() {
    let mut v = fixture_json("job");
    v["status"]["conditions"] = json!([{"type": "Failed", "status": "True"}]);
    assert_eq!(texts("Job", &obj(v.clone()), None)[1], "Failed");
    v["status"]["conditions"] = json!([{"type": "Suspended", "status": "True"}]);
    assert_eq!(texts("Job", &obj(v), None)[1], "Suspended");
}

#[test]
fn cronjob_row_shows_kubectls_schedule_timezone_suspend_active_and_last_schedule() {
    assert_eq!(
        headers("CronJob", None),
        [
            "NAME",
            "SCHEDULE",
            "TIMEZONE",
            "SUSPEND",
            "ACTIVE",
            "LAST SCHEDULE",
            "AGE"
        ]
    );
    let mut v = fixture_json("cronjob");
    v["status"] = json!({
        "active": [{"kind": "Job", "name": "daily-report-1", "namespace": "shop"}],
        "lastScheduleTime": "2026-11-22T11:50:00Z"
    });
    assert_eq!(
        texts("CronJob", &obj(v.clone()), None),
        [
            "daily-report",
            "0 3 * * *",
            "Etc/UTC",
            "False",
            "1",
            "10m",
            "2d2h"
        ]
    );
    assert_eq!(row("CronJob", &obj(v.clone()), None).health, Health::Ok);
    // Never scheduled, no time zone, suspended; `suspend` unset prints as kubectl's `<unset>`.
    v["status"] = json!({});
    v["spec"]["suspend"] = json!(true);
    v["spec"].as_object_mut().unwrap().remove("timeZone");
    let suspended = obj(v.clone());
    assert_eq!(
        texts("CronJob", &suspended, None)[2..6],
        ["<none>", "True", "0", "<none>"]
    );
    assert_eq!(row("CronJob", &suspended, None).health, Health::Warning);
    v["spec"].as_object_mut().unwrap().remove("suspend");
    assert_eq!(texts("CronJob", &obj(v), None)[3], "<unset>");
}

#[test]
fn service_row_shows_load_balancer_ip_and_node_ports() {
    assert_eq!(
        headers("Service", None),
        [
            "NAME",
            "TYPE",
            "CLUSTER-IP",
            "EXTERNAL-IP",
            "PORT(S)",
            "AGE"
        ]
    );
    assert_eq!(
        texts("Service", &fixture("service"), None),
        [
            "web-lb",
            "LoadBalancer",
            "10.96.12.34",
            "203.0.113.10",
            "80:31380/TCP,443:31443/TCP",
            "2d2h"
        ]
    );
}

#[test]
fn service_external_ip_variants() {
    let mut v = fixture_json("service");
    v["status"] = json!({"loadBalancer": {}});
    assert_eq!(texts("Service", &obj(v.clone()), None)[3], "<pending>");
    v["spec"]["type"] = json!("ClusterIP");
    v["spec"]["ports"] = json!([{"port": 53, "protocol": "UDP"}]);
    let t = texts("Service", &obj(v.clone()), None);
    assert_eq!(t[3], "<none>");
    assert_eq!(t[4], "53/UDP");
    v["spec"]["clusterIPs"] = json!(["None"]);
    v["spec"]["ports"] = json!([]);
    let t = texts("Service", &obj(v.clone()), None);
    assert_eq!(t[2], "None");
    assert_eq!(t[4], "<none>");
    v["spec"]["type"] = json!("ExternalName");
    v["spec"]["externalName"] = json!("db.example.com");
    assert_eq!(texts("Service", &obj(v), None)[3], "db.example.com");
}

#[test]
fn configmap_secret_and_serviceaccount_count_entries() {
    assert_eq!(headers("ConfigMap", None), ["NAME", "DATA", "AGE"]);
    assert_eq!(
        texts("ConfigMap", &fixture("configmap"), None),
        ["web-config", "4", "2d2h"]
    );
    assert_eq!(headers("Secret", None), ["NAME", "TYPE", "DATA", "AGE"]);
    assert_eq!(
        texts("Secret", &fixture("secret"), None),
        ["db-credentials", "Opaque", "3", "2d2h"]
    );
    assert_eq!(headers("ServiceAccount", None), ["NAME", "SECRETS", "AGE"]);
    assert_eq!(
        texts("ServiceAccount", &fixture("serviceaccount"), None),
        ["builder", "1", "2d2h"]
    );
}

#[test]
fn node_row_shows_ready_schedulingdisabled_and_roles() {
    assert_eq!(
        headers("Node", None),
        ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    );
    let n = fixture("node");
    assert_eq!(
        texts("Node", &n, None),
        [
            "node-a",
            "Ready,SchedulingDisabled",
            "control-plane,worker",
            "2d2h",
            "v1.33.2"
        ]
    );
    assert_eq!(row("Node", &n, None).health, Health::Warning);
}

#[test]
fn node_without_ready_condition_is_unknown_and_notready_is_an_error() {
    let mut v = fixture_json("node");
    v["spec"]["unschedulable"] = json!(false);
    v["metadata"]["labels"] = json!({"kubernetes.io/role": "edge"});
    v["status"]["conditions"] = json!([{"type": "Ready", "status": "False"}]);
    let t = texts("Node", &obj(v.clone()), None);
    assert_eq!(t[1..3], ["NotReady", "edge"]);
    assert_eq!(row("Node", &obj(v.clone()), None).health, Health::Error);
    v["status"]["conditions"] = json!([]);
    v["metadata"]["labels"] = json!({});
    assert_eq!(texts("Node", &obj(v), None)[1..3], ["Unknown", "<none>"]);
}

#[test]
fn namespace_row_shows_phase() {
    assert_eq!(headers("Namespace", None), ["NAME", "STATUS", "AGE"]);
    assert_eq!(
        texts("Namespace", &fixture("namespace"), None),
        ["shop", "Active", "2d2h"]
    );
}

#[test]
fn event_row_shows_kubectls_and_k9ss_columns() {
    assert_eq!(
        headers("Event", None),
        [
            "LAST SEEN",
            "TYPE",
            "REASON",
            "OBJECT",
            "SOURCE",
            "MESSAGE",
            "COUNT",
            "FIRST SEEN"
        ]
    );
    let e = fixture("event");
    assert_eq!(
        texts("Event", &e, None),
        [
            "2m",
            "Warning",
            "BackOff",
            "pod/web-7d9c8b7f6d-crash",
            "kubelet, node-a",
            "Back-off restarting failed container web in pod web-7d9c8b7f6d-crash_shop(uid)",
            "42",
            "30m"
        ]
    );
    assert_eq!(row("Event", &e, None).health, Health::Warning);
}

#[test]
fn event_count_and_source_follow_kubectl_for_series_and_the_new_api() {
    let mut v = fixture_json("event");
    // A series: its count, not the deprecated one.
    v["series"] = json!({"count": 3, "lastObservedTime": "2026-11-22T11:59:30.123456Z"});
    assert_eq!(texts("Event", &obj(v.clone()), None)[6], "3");
    // An events.k8s.io/v1 singleton: no count at all reads 1; no source: the controller.
    let v = json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "n1.1", "namespace": "default"},
        "regarding": {"kind": "Node", "name": "n1"},
        "reason": "Rebooted", "note": "rebooted", "type": "Warning",
        "reportingController": "kubelet",
        "eventTime": "2026-11-22T11:00:00.000000Z"
    });
    let t = texts("Event", &obj(v), None);
    assert_eq!((t[4].as_str(), t[6].as_str()), ("kubelet", "1"));
    assert_eq!(t[7], "60m", "FIRST SEEN falls back to eventTime");
}

#[test]
fn event_last_seen_prefers_series_then_falls_back_to_event_time() {
    let mut v = fixture_json("event");
    v["series"] = json!({"count": 3, "lastObservedTime": "2026-11-22T11:59:30.123456Z"});
    assert_eq!(texts("Event", &obj(v.clone()), None)[0], "30s");
    v.as_object_mut().map(|m| m.remove("series"));
    v["lastTimestamp"] = Value::Null;
    v["firstTimestamp"] = Value::Null;
    v["eventTime"] = json!("2026-11-22T11:00:00.000000Z");
    assert_eq!(texts("Event", &obj(v.clone()), None)[0], "60m");
    v["eventTime"] = Value::Null;
    assert_eq!(texts("Event", &obj(v), None)[0], "<unknown>");
}

#[test]
fn events_k8s_io_event_reads_regarding_and_note() {
    let e = obj(json!({
        "apiVersion": "events.k8s.io/v1", "kind": "Event",
        "metadata": {"name": "e1", "namespace": "shop"},
        "regarding": {"kind": "Deployment", "name": "web", "uid": "uid-web"},
        "note": "Scaled up replica set web-7d9c8b7f6d to 3",
        "reason": "ScalingReplicaSet", "type": "Normal",
        "eventTime": "2026-11-22T11:59:00.000000Z",
        "reportingController": "deployment-controller"
    }));
    assert_eq!(
        texts("Event", &e, None),
        [
            "60s",
            "Normal",
            "ScalingReplicaSet",
            "deployment/web",
            "deployment-controller",
            "Scaled up replica set web-7d9c8b7f6d to 3",
            "1",
            "60s"
        ]
    );
    let text = describe_at(&fixture("deployment"), &[Arc::new(e)], NOW);
    assert!(text.contains("deployment-controller"), "{text}");
    assert!(text.contains("Scaled up replica set"), "{text}");
}

#[test]
fn crd_row_shows_created_at() {
    assert_eq!(
        headers("CustomResourceDefinition", None),
        ["NAME", "CREATED AT"]
    );
    assert_eq!(
        texts("CustomResourceDefinition", &fixture("crd"), None),
        ["certificates.cert-manager.io", "2026-11-20T10:00:00Z"]
    );
}

#[test]
fn custom_resource_uses_additional_printer_columns() {
    let crd = fixture("crd");
    let pcs = printer_columns_from_crd(&crd, "v1");
    assert_eq!(pcs.len(), 6);
    let cols = columns("Certificate", Some(&pcs));
    let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "NAME", "READY", "SECRET", "ISSUER", "STATUS", "RENEWALS", "AGE"
        ]
    );
    let wide: Vec<bool> = cols.iter().map(|c| c.wide).collect();
    assert_eq!(wide, [false, false, false, true, true, false, false]);
    let cr = fixture("crd_instance");
    assert_eq!(
        texts("Certificate", &cr, Some(&pcs)),
        [
            "shop-tls",
            "True",
            "shop-tls-secret",
            "letsencrypt",
            "Certificate is up to date and has not expired",
            "",
            "2d2h"
        ]
    );
}

#[test]
fn custom_resource_without_printer_columns_gets_name_and_age() {
    let mut crd = fixture_json("crd");
    crd["spec"]["versions"][0]
        .as_object_mut()
        .map(|v| v.remove("additionalPrinterColumns"));
    let pcs = printer_columns_from_crd(&obj(crd), "v1");
    assert_eq!(headers("Certificate", Some(&pcs)), ["NAME", "AGE"]);
    assert_eq!(
        texts("Certificate", &fixture("crd_instance"), Some(&pcs)),
        ["shop-tls", "2d2h"]
    );
}

#[test]
fn integer_printer_column_sorts_numerically() {
    let pcs = vec![PrinterColumn {
        name: "Replicas".into(),
        json_path: ".spec.replicas".into(),
        type_: "integer".into(),
        priority: 0,
    }];
    let a = obj(
        json!({"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a"},
        "spec": {"replicas": 9}}),
    );
    let b = obj(
        json!({"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "b"},
        "spec": {"replicas": 10}}),
    );
    let ra = row("X", &a, Some(&pcs));
    let rb = row("X", &b, Some(&pcs));
    assert_eq!(ra.cells[1], Cell::Int(9));
    assert!(ra.cells[1].cmp_for_sort(&rb.cells[1]).is_lt());
}

#[test]
fn unknown_kind_gets_name_and_age() {
    let o = obj(json!({"apiVersion": "v1", "kind": "LimitRange",
        "metadata": {"name": "limits", "creationTimestamp": "2026-11-22T11:55:00Z"}}));
    assert_eq!(headers("LimitRange", None), ["NAME", "AGE"]);
    assert_eq!(texts("LimitRange", &o, None), ["limits", "5m"]);
}

#[test]
fn object_without_creation_timestamp_shows_unknown_age() {
    let o = obj(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}));
    assert_eq!(texts("ConfigMap", &o, None), ["x", "0", "<unknown>"]);
}

#[test]
fn every_row_has_one_cell_per_column() {
    for name in ALL_FIXTURES {
        let o = fixture(name);
        let kind = kind_of(&o);
        assert_eq!(
            row(&kind, &o, None).cells.len(),
            columns(&kind, None).len(),
            "{name}"
        );
    }
}

// ---- pruning ---------------------------------------------------------------------------------

#[test]
fn pruned_rows_are_identical_for_every_fixture() {
    for name in ALL_FIXTURES {
        let o = fixture(name);
        let kind = kind_of(&o);
        let before = row(&kind, &o, None);
        let after = row(&kind, &prune(&kind, o), None);
        assert_eq!(before, after, "{name}");
    }
    let pcs = printer_columns_from_crd(&prune("CustomResourceDefinition", fixture("crd")), "v1");
    assert_eq!(pcs, printer_columns_from_crd(&fixture("crd"), "v1"));
    let cr = fixture("crd_instance");
    assert_eq!(
        row("Certificate", &cr, Some(&pcs)),
        row("Certificate", &prune("Certificate", cr.clone()), Some(&pcs))
    );
}

#[test]
fn masked_decoding_then_prune_equals_decoding_then_prune_for_every_fixture() {
    use kinformer::informer::decode::{decode_dynamic, decode_dynamic_masked};
    for name in ALL_FIXTURES {
        let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let full = decode_dynamic(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let kind = kind_of(&full);
        let masked = decode_dynamic_masked(&text, &render::cache_mask(&kind))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        // The mask alone equals the mask applied after a full decode...
        let mut applied = full.clone();
        render::cache_mask(&kind).apply(&mut applied);
        assert_eq!(masked, applied, "{name}: mask while decoding vs after");
        // ...and the cache holds the same object either way, with the same row.
        let via_mask = prune(&kind, masked);
        assert_eq!(via_mask, prune(&kind, full.clone()), "{name}");
        assert_eq!(
            row(&kind, &via_mask, None),
            row(&kind, &full, None),
            "{name}"
        );
    }
}

#[test]
fn pod_mask_skips_images_env_volumes_and_annotations_while_decoding() {
    use kinformer::informer::decode::decode_dynamic_masked;
    let text = fixture_json("pod").to_string();
    let p = decode_dynamic_masked(&text, &render::cache_mask("Pod")).expect("decodes");
    assert!(p.metadata.annotations.is_none());
    assert!(p.metadata.managed_fields.is_none());
    // Of volumes and env, only the names of what they use (for the uses index).
    assert_eq!(
        p.data["spec"]["volumes"][0],
        json!({"configMap": {"name": "web-config"}})
    );
    assert!(p.data["spec"]["containers"][0].get("image").is_none());
    let env = &p.data["spec"]["containers"][0]["env"];
    assert_eq!(env[0], json!({}), "a value is not decoded");
    assert_eq!(
        env[9],
        json!({"valueFrom": {"secretKeyRef": {"name": "db"}}})
    );
    assert_eq!(
        p.data["spec"]["containers"][0]["name"],
        fixture_json("pod")["spec"]["containers"][0]["name"]
    );
    assert!(
        p.data["status"]["containerStatuses"][0]
            .get("imageID")
            .is_none()
    );
    assert_eq!(p.metadata.labels, fixture("pod").metadata.labels);
}

#[test]
fn pruned_pod_renders_same_row() {
    for name in [
        "pod",
        "pod_crashloop",
        "pod_terminating",
        "pod_init",
        "pod_completed",
    ] {
        let p = fixture(name);
        assert_eq!(
            row("Pod", &p, None),
            row("Pod", &prune("Pod", p.clone()), None)
        );
    }
}

#[test]
fn prune_drops_managed_fields_annotations_and_container_details() {
    let p = prune("Pod", fixture("pod"));
    assert!(p.metadata.managed_fields.is_none());
    assert!(p.metadata.annotations.is_none());
    // what the indexes read stays: labels (packed into the pod's record), owner, namespace,
    // node
    assert_eq!(cached::labels(&p).get("app"), Some("web"));
    assert!(p.metadata.labels.is_none(), "labels live in the record");
    assert_eq!(p.metadata.owner_references.as_ref().map(Vec::len), Some(1));
    assert_eq!(p.metadata.namespace.as_deref(), Some("shop"));
    // the data is one string: no `spec` or `status` map (each ~630 bytes a pod)
    assert!(p.data.is_string(), "{}", p.data);
    assert!(p.data.get("spec").is_none());
    assert!(p.data.get("status").is_none());
    let r = cached::pod_record(&p.data).expect("a pruned pod has a record");
    assert_eq!(r.node, "node-a");
    // containers, env, volumes and statuses are replaced by the row summary
    assert_eq!(
        (r.reason, r.ready, r.total, r.restarts, r.last_restart, r.ip),
        ("Running", 2, 2, 0, None, "10.244.1.17")
    );
    // ... and the containers' summed requests/limits by the usage percentages' string
    assert_eq!(r.resources, "200,1000,268435456,536870912");
    // ... and what it uses by one string, for the uses index (`u`)
    assert_eq!(
        r.uses,
        "ConfigMap/kube-root-ca.crt,ConfigMap/web-config,Secret/db"
    );
}

#[test]
fn pruned_pod_summary_keeps_restart_time_and_terminating() {
    let p = prune("Pod", fixture("pod_crashloop"));
    let r = cached::pod_record(&p.data).expect("a pruned pod has a record");
    assert_eq!(
        (r.reason, r.ready, r.total, r.restarts, r.last_restart, r.ip),
        ("CrashLoopBackOff", 1, 2, 5, Some(NOW - 120), "10.244.1.17")
    );
    let t = prune("Pod", fixture("pod_terminating"));
    assert_eq!(texts("Pod", &t, None)[2], "Terminating");
}

#[test]
fn malformed_pod_record_falls_back_to_the_status() {
    let mut v = fixture_json("pod_crashloop");
    v[cached::POD_RECORD_KEY] = json!("5:x");
    assert_eq!(pod_status(&obj(v)), "CrashLoopBackOff");
}

/// A Secret in the cache: each key with the decoded size of its value, never the value, whether
/// the cache transform or the decoder's mask made it (`x`, YAML and describe GET the object).
#[test]
fn a_cached_secret_keeps_each_keys_decoded_size_and_never_its_value() {
    let text = fixture_json("secret").to_string();
    let decoded = kinformer::informer::decode::decode_dynamic_masked(
        &text,
        &kinformer::render::cache_mask("Secret"),
    )
    .unwrap();
    for s in [prune("Secret", fixture("secret")), prune("Secret", decoded)] {
        // admin, hunter2, postgres://db:5432/shop
        assert_eq!(
            s.data["data"],
            json!({"username": 5, "password": 7, "url": 23})
        );
        assert_eq!(texts("Secret", &s, None)[2], "3");
        let all = cached::to_json(&s).unwrap().to_string();
        for value in [
            "YWRtaW4=",
            "aHVudGVyMg==",
            "cG9zdGdyZXM6Ly9kYjo1NDMyL3Nob3A=",
        ] {
            assert!(!all.contains(value), "{all}");
        }
        // Pruning again keeps the sizes.
        assert_eq!(prune("Secret", s.clone()), s);
    }
}

/// A ConfigMap in the cache keeps a value of at most 128 bytes (history shows it change), the
/// size of a longer one and of binary data.
#[test]
fn a_cached_configmap_keeps_short_values_and_the_size_of_longer_ones() {
    let c = prune("ConfigMap", fixture("configmap"));
    let long = fixture_json("configmap")["data"]["app.yaml"]
        .as_str()
        .unwrap()
        .len();
    assert!(long > 128);
    assert_eq!(
        c.data["data"],
        json!({"app.yaml": long, "LOG_LEVEL": "info", "FEATURES": "a,b,c"})
    );
    // A 1×1 PNG: 70 bytes.
    assert_eq!(c.data["binaryData"], json!({"logo.png": 70}));
    assert_eq!(texts("ConfigMap", &c, None)[1], "4");
    assert!(c.metadata.annotations.is_none());
    let at_cap = json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "c", "namespace": "d"},
        "data": {"128": "x".repeat(128), "129": "x".repeat(129)}});
    let c = prune("ConfigMap", serde_json::from_value(at_cap).unwrap());
    assert_eq!(c.data["data"], json!({"128": "x".repeat(128), "129": 129}));
}

#[test]
fn prune_keeps_custom_resource_spec_and_status_but_drops_last_applied() {
    let cr = prune("Certificate", fixture("crd_instance"));
    assert!(cr.metadata.annotations.is_none());
    assert_eq!(cr.data["spec"]["secretName"], json!("shop-tls-secret"));
    assert!(cr.data["status"]["conditions"].is_array());
}

#[test]
fn prune_is_idempotent() {
    for name in ALL_FIXTURES {
        let o = fixture(name);
        let kind = kind_of(&o);
        let once = prune(&kind, o);
        let twice = prune(&kind, once.clone());
        assert_eq!(
            cached::to_json(&once).unwrap(),
            cached::to_json(&twice).unwrap(),
            "{name}"
        );
    }
}

/// Bytes a decoded-and-pruned pod keeps on the heap (measured with the counting allocator),
/// averaged over many copies so allocator noise washes out.
fn resident_bytes_per_pod(name: &str, pruned: bool) -> isize {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("fixture");
    const N: usize = 200;
    let mut kept: Vec<Arc<DynamicObject>> = Vec::with_capacity(N);
    COUNTING.with(|c| c.set(true));
    let start = NET.load(Ordering::Relaxed);
    for _ in 0..N {
        let o: DynamicObject = serde_json::from_str(&text).expect("pod");
        let o = if pruned { prune("Pod", o) } else { o };
        kept.push(Arc::new(o));
    }
    let used = NET.load(Ordering::Relaxed) - start;
    COUNTING.with(|c| c.set(false));
    drop(kept);
    used / N as isize
}

#[test]
fn pruned_pod_stays_under_6kb_resident() {
    for name in ["pod", "pod_crashloop", "pod_init", "pod_completed"] {
        let full = resident_bytes_per_pod(name, false);
        let pruned = resident_bytes_per_pod(name, true);
        eprintln!("{name}: {full} bytes resident unpruned, {pruned} pruned");
        assert!(pruned < 6 * 1024, "{name}: {pruned} bytes");
        assert!(pruned < full / 2, "{name}: {pruned} of {full} bytes");
    }
}

// ---- YAML and describe -----------------------------------------------------------------------

#[test]
fn yaml_hides_secret_values_and_drops_managed_fields() {
    let s = fixture_json("secret");
    let y = to_yaml(&s, false);
    assert!(y.contains("password: '<hidden: 7 bytes>'"), "{y}");
    assert!(!y.contains("aHVudGVyMg=="));
    assert!(!y.contains("managedFields"));
    assert!(to_yaml(&s, true).contains("password: hunter2"));
    let p = to_yaml(&fixture_json("pod"), false);
    assert!(p.contains("nodeName: node-a"));
    assert!(!p.contains("managedFields"));
}

#[test]
fn describe_pod_lists_containers_state_and_its_events_only() {
    let p = fixture("pod_crashloop");
    let mine = Arc::new(fixture("event"));
    let mut other = fixture_json("event");
    other["involvedObject"]["uid"] = json!("someone-else");
    other["reason"] = json!("FailedMount");
    let text = describe_at(&p, &[mine, Arc::new(obj(other))], NOW);
    for want in [
        "Name:               web-7d9c8b7f6d-crash",
        "Namespace:          shop",
        "app=web",
        "Controlled By:      ReplicaSet/web-7d9c8b7f6d",
        "Reason:             CrashLoopBackOff",
        "Restart Count:  5",
        "CrashLoopBackOff",
        "Exit Code:    1",
        "Events:",
        "BackOff",
        "2m (x42 over 30m)",
        "kubelet, node-a",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    assert!(!text.contains("FailedMount"), "{text}");
}

#[test]
fn describe_node_shows_conditions_and_system_info() {
    let text = describe_at(&fixture("node"), &[], NOW);
    for want in [
        "Roles:              control-plane,worker",
        "Ready,SchedulingDisabled",
        "KubeletReady",
        "Kubelet Version:",
        "v1.33.2",
        "node.kubernetes.io/unschedulable:NoSchedule",
        "Events:             <none>",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

#[test]
fn describe_deployment_shows_replicas_and_conditions() {
    let text = describe_at(&fixture("deployment"), &[], NOW);
    for want in [
        "3 desired | 3 updated | 3 total | 2 ready | 2 available | 1 unavailable",
        "MinimumReplicasAvailable",
        "StrategyType:       RollingUpdate",
        // As kubectl describe: the rolling update bounds and the pod template's metadata.
        "RollingUpdateStrategy: 25% max unavailable, 25% max surge",
        "Pod Template:\n  Labels:           app=web\n  Annotations:      <none>",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

#[test]
fn describe_custom_resource_shows_spec_and_status() {
    let text = describe_at(&fixture("crd_instance"), &[], NOW);
    assert!(text.contains("secretName: shop-tls-secret"), "{text}");
    assert!(text.contains("Status:"), "{text}");
}

// ---- never panics ----------------------------------------------------------------------------

const KINDS: &[&str] = &[
    "Pod",
    "Deployment",
    "ReplicaSet",
    "StatefulSet",
    "DaemonSet",
    "Job",
    "Service",
    "ConfigMap",
    "Secret",
    "Node",
    "Namespace",
    "Event",
    "ServiceAccount",
    "CustomResourceDefinition",
    "Widget",
];

/// Field names the printers read, so random objects reach deep code paths.
const KEYS: &[&str] = &[
    "spec",
    "status",
    "containers",
    "initContainers",
    "containerStatuses",
    "initContainerStatuses",
    "state",
    "lastState",
    "waiting",
    "running",
    "terminated",
    "reason",
    "exitCode",
    "signal",
    "finishedAt",
    "ready",
    "started",
    "restartCount",
    "restartPolicy",
    "name",
    "conditions",
    "type",
    "phase",
    "podIPs",
    "ip",
    "nodeName",
    "replicas",
    "readyReplicas",
    "completions",
    "parallelism",
    "startTime",
    "completionTime",
    "ports",
    "port",
    "nodePort",
    "clusterIPs",
    "externalIPs",
    "loadBalancer",
    "ingress",
    "data",
    "secrets",
    "involvedObject",
    "series",
    "lastObservedTime",
    "lastTimestamp",
    "template",
    "nodeSelector",
    "versions",
    "additionalPrinterColumns",
    "jsonPath",
    "nodeInfo",
    "unschedulable",
];

const STRINGS: &[&str] = &[
    "Running",
    "Pending",
    "Succeeded",
    "Failed",
    "True",
    "False",
    "Ready",
    "Initialized",
    "PodScheduled",
    "Always",
    "Completed",
    "CrashLoopBackOff",
    "LoadBalancer",
    "ClusterIP",
    "ExternalName",
    "Complete",
    "2026-11-22T11:00:00Z",
    "not-a-date",
    ".status.conditions[?(@.type==\"Ready\")].status",
    ".a[",
    "",
    "Secret",
];

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null)),
        prop::sample::select(STRINGS).prop_map(|s| Value::String(s.to_string())),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(5, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kvs| {
                Value::Object(kvs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

fn arb_object() -> impl Strategy<Value = (Value, Option<String>)> {
    (
        prop::collection::vec((prop::sample::select(KEYS), arb_json()), 0..6),
        proptest::option::of(prop::sample::select(STRINGS)),
        any::<bool>(),
        proptest::option::of(prop::collection::btree_map(".{0,8}", ".{0,8}", 0..4)),
    )
        .prop_map(|(top, ts, deleting, labels)| {
            let mut m = serde_json::Map::new();
            for (k, v) in top {
                m.insert(k.to_string(), v);
            }
            let mut meta = json!({"name": "x", "namespace": "ns", "uid": "u"});
            if let Some(ts) = ts.filter(|t| t.starts_with("2026")) {
                meta["creationTimestamp"] = json!(ts);
                if deleting {
                    meta["deletionTimestamp"] = json!(ts);
                }
            }
            if let Some(labels) = labels {
                meta["labels"] = json!(labels);
            }
            m.insert("metadata".into(), meta);
            (Value::Object(m), ts.map(str::to_string))
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn rows_never_panic_and_pruning_never_changes_them((v, path) in arb_object()) {
        let Ok(o) = serde_json::from_value::<DynamicObject>(v.clone()) else {
            return Ok(());
        };
        let pcs = vec![PrinterColumn {
            name: "X".into(),
            json_path: path.unwrap_or_default(),
            type_: "string".into(),
            priority: 0,
        }, PrinterColumn {
            name: "Y".into(),
            json_path: ".spec.replicas".into(),
            type_: "integer".into(),
            priority: 0,
        }];
        for kind in KINDS {
            let r = row(kind, &o, None);
            prop_assert_eq!(r.cells.len(), columns(kind, None).len());
            for c in &r.cells {
                let _ = c.display(NOW);
            }
            let pruned = prune(kind, o.clone());
            prop_assert_eq!(&r, &row(kind, &pruned, None), "kind {}", kind);
            // Wide mode's cells (LABELS for every kind) and the labels every reader sees.
            for c in render::wide_columns(kind) {
                prop_assert_eq!((c.cell)(&o), (c.cell)(&pruned), "kind {} {}", kind, c.name);
            }
            prop_assert_eq!(cached::labels(&o), cached::labels(&pruned), "kind {}", kind);
            let again = prune(kind, pruned.clone());
            prop_assert_eq!(&again.data, &pruned.data, "pruning twice, kind {}", kind);
            prop_assert_eq!(cached::labels(&again), cached::labels(&pruned));
            let _ = row(kind, &o, Some(&pcs));
            let _ = printer_columns_from_crd(&o, "v1");
        }
        let _ = describe_at(&o, &[Arc::new(o.clone())], NOW);
        let _ = to_yaml(&v, false);
        let _ = render::format_age(0);
    }
}
