use std::sync::Arc;

use kube::api::DynamicObject;
use serde_json::json;

use super::writer::{object_at, prune_oldest};
use super::*;
use crate::informer::delta_fifo::DeltaType;
use crate::informer::history::History;

fn pod(name: &str, rv: u64, restarts: u64, image: &str, phase: &str) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "uid": format!("uid-{name}"),
            "resourceVersion": rv.to_string(),
            "labels": {"app": "web"},
            "creationTimestamp": "2026-12-07T03:00:00Z",
            "managedFields": [
                {"manager": "kubelet", "operation": "Update", "time": format!("2026-12-07T03:{:02}:00Z", rv % 60)}
            ]
        },
        "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": image}]},
        "status": {
            "phase": phase,
            "containerStatuses": [{"name": "web", "restartCount": restarts, "ready": true}]
        }
    }))
    .expect("a pod")
}

fn session() -> SessionInfo {
    SessionInfo {
        cluster: "demo".into(),
        context: "demo".into(),
        server_version: Some("v1.33.0".into()),
        kinds: vec!["pods".into()],
    }
}

fn pods_ar() -> kube::discovery::ApiResource {
    kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&())
}

/// The same versions, in the same order and at the same instants, to a live history and to a
/// recorder; returns the live history.
fn record_script(recorder: &Arc<Recorder>, steps: &[(i64, DeltaType, DynamicObject)]) -> History {
    let live = History::with_mib(64);
    let observer = recorder.observer(&pods_ar());
    drop(observer);
    let resource: Arc<str> = Arc::from("pods");
    let kind: Arc<str> = Arc::from("Pod");
    let mask = crate::render::history_mask("Pod");
    for (at, delta, obj) in steps {
        live.observe_as_at("pods", obj, mask, Some(*delta), *at);
        recorder.observe_at(&resource, &kind, obj, Some(*delta), *at);
    }
    recorder.flush();
    live
}

fn script() -> Vec<(i64, DeltaType, DynamicObject)> {
    let t = 1_765_076_400_000; // 2025-12-07T03:00:00Z
    vec![
        (t, DeltaType::Replaced, pod("a", 1, 0, "web:1", "Running")),
        (t, DeltaType::Replaced, pod("b", 2, 0, "web:1", "Running")),
        (
            t + 60_000,
            DeltaType::Updated,
            pod("a", 3, 1, "web:1", "Running"),
        ),
        (
            t + 120_000,
            DeltaType::Updated,
            pod("b", 4, 0, "web:2", "Running"),
        ),
        (
            t + 180_000,
            DeltaType::Added,
            pod("c", 5, 0, "web:2", "Pending"),
        ),
        (
            t + 240_000,
            DeltaType::Deleted,
            pod("a", 6, 1, "web:1", "Running"),
        ),
        (
            t + 300_000,
            DeltaType::Updated,
            pod("c", 7, 2, "web:2", "Running"),
        ),
    ]
}

fn rows(h: &History, at: i64, live: Vec<Arc<DynamicObject>>) -> Vec<(String, serde_json::Value)> {
    h.past_view("pods", None, at, live)
        .rows
        .into_iter()
        .map(|r| {
            (
                r.key.to_string(),
                serde_json::to_value(&*r.object).expect("json"),
            )
        })
        .collect()
}

#[test]
fn a_replayed_recording_shows_the_same_past_rows_as_the_live_history_at_every_instant() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("rec.db");
    let recorder =
        Arc::new(Recorder::open(&path, session(), RecorderOptions::default()).expect("opens"));
    let steps = script();
    let live = record_script(&recorder, &steps);
    let stats = recorder.finish();
    assert_eq!((stats.versions, stats.error), (7, None));
    let replayed = History::with_mib(64);
    let loaded = Recording::open(&path)
        .expect("a recording")
        .load(&replayed, |_, _| {})
        .expect("loads");
    let end = loaded.end.get("pods").cloned().unwrap_or_default();
    let mut keys: Vec<_> = end.iter().filter_map(|o| o.metadata.name.clone()).collect();
    keys.sort();
    assert_eq!(keys, ["b", "c"], "a deleted, b and c at the end");
    // The live dashboard's objects now: the last version of each object still there.
    let live_now: Vec<Arc<DynamicObject>> = ["b", "c"]
        .iter()
        .map(|n| {
            let last = steps
                .iter()
                .rev()
                .find(|(_, _, o)| o.metadata.name.as_deref() == Some(*n))
                .map(|(_, _, o)| o.clone())
                .expect("recorded");
            Arc::new(last)
        })
        .collect();
    for (at, _, _) in &steps {
        for instant in [*at, at + 30_000] {
            assert_eq!(
                rows(&replayed, instant, end.clone()),
                rows(&live, instant, live_now.clone()),
                "at {instant}"
            );
        }
    }
    let a = replayed.timeline("pods", "shop/a").expect("a's history");
    assert_eq!(
        a.versions
            .iter()
            .map(|v| v.delta_label())
            .collect::<Vec<_>>(),
        ["Replaced", "Updated", "Deleted"]
    );
    assert_eq!(
        replayed.change_times("pods", None),
        live.change_times("pods", None)
    );
}

#[test]
fn the_changed_fields_and_the_writer_are_kept_for_queries() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("rec.db");
    let recorder =
        Arc::new(Recorder::open(&path, session(), RecorderOptions::default()).expect("opens"));
    record_script(&recorder, &script());
    recorder.finish();
    let rec = Recording::open(&path).expect("opens");
    let restarted: Vec<String> = rec
        .connection()
        .prepare(
            "SELECT DISTINCT o.name FROM versions v JOIN objects o ON o.id = v.object_id
             WHERE v.fields LIKE '%/restartCount%' ORDER BY o.name",
        )
        .expect("sql")
        .query_map([], |r| r.get(0))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("names");
    assert_eq!(restarted, ["a", "c"]);
    let writer: Option<String> = rec
        .connection()
        .query_row(
            "SELECT v.writer FROM versions v JOIN objects o ON o.id = v.object_id
             WHERE o.name = 'b' AND v.fields LIKE '%/image%'",
            [],
            |r| r.get(0),
        )
        .expect("b's image change");
    assert_eq!(writer.as_deref(), Some("kubelet (Update)"));
}

#[test]
fn each_bad_file_is_named_in_one_line() {
    let dir = tempfile::tempdir().expect("tmp");
    let at = |name: &str| dir.path().join(name);
    // A good recording to cut short, one with a newer schema, a foreign SQLite database.
    let good = at("good.db");
    {
        let r = Recorder::open(&good, session(), RecorderOptions::default()).expect("opens");
        let resource: Arc<str> = Arc::from("pods");
        let kind: Arc<str> = Arc::from("Pod");
        for i in 0..300 {
            r.observe(
                &resource,
                &kind,
                &pod(&format!("p{i}"), i, 0, "x", "Running"),
                None,
            );
        }
        r.finish();
    }
    let bytes = std::fs::read(&good).expect("read");
    std::fs::write(at("truncated.db"), &bytes[..bytes.len() / 2]).expect("write");
    std::fs::write(at("header.db"), &bytes[..50]).expect("write");
    for (name, version) in [("newer.db", 99), ("older.db", 1)] {
        std::fs::copy(&good, at(name)).expect("copy");
        rusqlite::Connection::open(at(name))
            .and_then(|c| c.pragma_update(None, "user_version", version))
            .expect("bump");
    }
    rusqlite::Connection::open(at("foreign.db"))
        .and_then(|c| c.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);"))
        .expect("foreign");
    std::fs::write(at("text.db"), "apiVersion: v1\nkind: Pod\n").expect("write");
    std::fs::write(at("empty.db"), "").expect("write");
    let cases = [
        ("missing.db", "no such file"),
        ("empty.db", "empty file, not a recording"),
        ("text.db", "not a SQLite file"),
        (
            "foreign.db",
            "a SQLite database, but not a kinformer recording",
        ),
        (
            "newer.db",
            "recorded by a newer kinformer (schema 99; this one reads up to 2)",
        ),
        (
            "older.db",
            "an older recording (schema 1; this kinformer reads and writes schema 2 only)",
        ),
        ("truncated.db", "truncated ("),
        ("header.db", "truncated (50 bytes of 100)"),
    ];
    for (file, expected) in cases {
        let e = Recording::open(&at(file)).expect_err(file).to_string();
        assert!(
            e.contains(expected) && e.contains(file) && !e.contains('\n'),
            "{file}: {e}"
        );
    }
    // And recording into one is refused the same way (not overwritten).
    for (file, expected) in [
        ("foreign.db", "not a kinformer recording"),
        ("text.db", "not a SQLite"),
    ] {
        let e = Recorder::open(&at(file), session(), RecorderOptions::default())
            .err()
            .expect(file)
            .to_string();
        assert!(e.contains(expected), "{file}: {e}");
    }
    assert!(Recording::open(&good).is_ok());
}

#[test]
fn a_full_disk_stops_the_recording_with_one_line_and_the_observers_go_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("full.db");
    let conn = schema::open_for_writing(&path).expect("opens");
    // What a full disk answers: SQLITE_FULL once the file may not grow.
    let pages: i64 = conn
        .query_row("PRAGMA page_count", [], |r| r.get(0))
        .expect("pages");
    conn.pragma_update(None, "max_page_count", pages + 4)
        .expect("limit");
    let r = Recorder::start(conn, &path, session(), RecorderOptions::default()).expect("starts");
    let resource: Arc<str> = Arc::from("pods");
    let kind: Arc<str> = Arc::from("Pod");
    for i in 0..2000 {
        r.observe(
            &resource,
            &kind,
            &pod(&format!("pod-{i}"), i, 0, "x", "Running"),
            None,
        );
    }
    r.flush();
    let error = r.error().expect("stopped");
    assert!(
        error.starts_with("recording stopped: ") && error.ends_with("full.db: the disk is full"),
        "{error}"
    );
    // Still observing after the stop costs nothing and never blocks.
    for i in 0..20_000 {
        r.observe(
            &resource,
            &kind,
            &pod("late", 10_000 + i, 0, "x", "Running"),
            None,
        );
    }
    assert_eq!(r.finish().error, Some(error));
}

#[test]
fn pruning_drops_the_oldest_versions_and_every_object_still_starts_whole() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("pruned.db");
    let r = Recorder::open(
        &path,
        session(),
        RecorderOptions {
            whole_every: 5,
            ..RecorderOptions::default()
        },
    )
    .expect("opens");
    let resource: Arc<str> = Arc::from("pods");
    let kind: Arc<str> = Arc::from("Pod");
    let mut rv = 0;
    let mut last = Vec::new();
    for round in 0..23 {
        for p in 0..4 {
            rv += 1;
            let obj = pod(&format!("p{p}"), rv, round, "x", "Running");
            r.observe_at(&resource, &kind, &obj, Some(DeltaType::Updated), rv as i64);
            if round == 22 {
                last.push(serde_json::to_value(&obj).expect("json"));
            }
        }
    }
    r.finish();
    let conn = rusqlite::Connection::open(&path).expect("open");
    let gone = prune_oldest(&conn, 55).expect("prunes");
    assert_eq!(gone, 50);
    let firsts: Vec<(i64, i64, bool)> = conn
        .prepare(
            "SELECT f.object_id, f.first, w.whole FROM
             (SELECT object_id, MIN(id) AS first FROM versions GROUP BY object_id) f
             JOIN versions w ON w.id = f.first",
        )
        .expect("sql")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("firsts");
    assert_eq!(firsts.len(), 4);
    assert!(firsts.iter().all(|(_, _, whole)| *whole), "{firsts:?}");
    // What remains reads back to the same latest objects.
    for (object, _, _) in &firsts {
        let newest: i64 = conn
            .query_row(
                "SELECT MAX(id) FROM versions WHERE object_id = ?1",
                [object],
                |r| r.get(0),
            )
            .expect("newest");
        let obj = object_at(&conn, *object, newest).expect("rebuilt");
        assert!(last.contains(&obj), "{obj}");
    }
    let h = History::with_mib(8);
    let loaded = Recording::open(&path)
        .expect("opens")
        .load(&h, |_, _| {})
        .expect("loads");
    assert_eq!((loaded.versions, loaded.unreadable), (42, 0));
}

fn deployment(image: &str, rv: u64, manager: &str, minute: u32) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": "web", "namespace": "shop", "uid": "uid-web",
            "resourceVersion": rv.to_string(),
            "managedFields": [
                {"manager": "helm", "operation": "Apply", "time": "2026-12-07T02:00:00Z"},
                {"manager": manager, "operation": "Update", "time": format!("2026-12-07T03:{minute:02}:00Z")}
            ]
        },
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "web", "image": image}]}}}
    }))
    .expect("a deployment")
}

/// The README's `sqlite3` examples, each the SQL between its blank lines in the ```sql block.
fn readme_queries() -> Vec<String> {
    let readme = include_str!("../../README.md");
    let block = readme
        .split("```sql\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("the README's sql block");
    block
        .split("\n\n")
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readmes_two_queries_answer_on_a_recording() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("rec.db");
    let r = Recorder::open(&path, session(), RecorderOptions::default()).expect("opens");
    let pods: Arc<str> = Arc::from("pods");
    let deploys: Arc<str> = Arc::from("deployments.apps");
    let (pod_kind, deploy_kind): (Arc<str>, Arc<str>) = (Arc::from("Pod"), Arc::from("Deployment"));
    let t = |h: i64, m: i64| 1_796_601_600_000 + (h * 3600 + m * 60) * 1000; // 2026-12-07 00:00Z
    let steps: Vec<(i64, &Arc<str>, &Arc<str>, DynamicObject)> = vec![
        (
            t(2, 50),
            &deploys,
            &deploy_kind,
            deployment("web:1", 1, "helm", 0),
        ),
        (
            t(2, 50),
            &pods,
            &pod_kind,
            pod("a", 2, 0, "web:1", "Running"),
        ),
        (
            t(2, 50),
            &pods,
            &pod_kind,
            pod("b", 3, 0, "web:1", "Running"),
        ),
        (
            t(2, 50),
            &pods,
            &pod_kind,
            pod("c", 4, 0, "web:1", "Running"),
        ),
        (
            t(2, 55),
            &pods,
            &pod_kind,
            pod("c", 5, 1, "web:1", "Running"),
        ),
        (
            t(3, 5),
            &deploys,
            &deploy_kind,
            deployment("web:2", 6, "kubectl-set", 5),
        ),
        (
            t(3, 10),
            &pods,
            &pod_kind,
            pod("a", 7, 1, "web:1", "Running"),
        ),
        (
            t(3, 12),
            &pods,
            &pod_kind,
            pod("a", 8, 1, "web:1", "Succeeded"),
        ),
        (
            t(3, 15),
            &deploys,
            &deploy_kind,
            deployment("web:2", 9, "kubectl-scale", 15),
        ),
        (
            t(3, 30),
            &pods,
            &pod_kind,
            pod("b", 10, 1, "web:1", "Running"),
        ),
    ];
    for (at, resource, kind, obj) in &steps {
        r.observe_at(resource, kind, obj, Some(DeltaType::Updated), *at);
    }
    r.finish();
    let queries = readme_queries();
    assert_eq!(queries.len(), 2, "{queries:?}");
    let rec = Recording::open(&path).expect("opens");
    let conn = rec.connection();
    let who: Vec<(String, Option<String>)> = conn
        .prepare(&queries[0])
        .expect("the image query")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("answers");
    assert_eq!(
        who,
        [(
            "2026-12-07 03:05:00".to_string(),
            Some("kubectl-set (Update)".to_string())
        )],
        "the image changed once, by kubectl set image; the scale is not an image change"
    );
    let restarted: Vec<(String, String)> = conn
        .prepare(&queries[1])
        .expect("the restart query")
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .expect("rows")
        .collect::<Result<_, _>>()
        .expect("answers");
    assert_eq!(
        restarted,
        [("shop".to_string(), "a".to_string())],
        "c restarted before 03:00, b after 03:20"
    );
}

fn event(count: u64, rv: u64) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": "web-1.17f",
            "namespace": "shop",
            "uid": "uid-event",
            "resourceVersion": rv.to_string(),
            "creationTimestamp": "2026-12-07T03:00:00Z"
        },
        "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "shop", "uid": "uid-web-1"},
        "type": "Warning",
        "reason": "BackOff",
        "message": "Back-off restarting failed container web",
        "count": count,
        "firstTimestamp": "2026-12-07T03:00:00Z",
        "lastTimestamp": format!("2026-12-07T03:0{count}:00Z"),
        "source": {"component": "kubelet", "host": "node-1"}
    }))
    .expect("an event")
}

#[test]
fn an_event_is_stored_once_and_replays_as_it_was_seen() {
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("rec.db");
    let r = Arc::new(Recorder::open(&path, session(), RecorderOptions::default()).expect("opens"));
    let resource: Arc<str> = Arc::from("events");
    let kind: Arc<str> = Arc::from("Event");
    let t = 1_796_612_400_000;
    r.observe_at(&resource, &kind, &event(1, 10), Some(DeltaType::Added), t);
    // A relist of the same version writes nothing.
    r.observe_at(
        &resource,
        &kind,
        &event(1, 10),
        Some(DeltaType::Replaced),
        t + 1,
    );
    r.observe_at(
        &resource,
        &kind,
        &event(2, 11),
        Some(DeltaType::Updated),
        t + 60_000,
    );
    r.flush();
    let rec = Recording::open(&path).expect("opens");
    let count = |sql: &str| -> i64 {
        rec.connection()
            .query_row(sql, [], |x| x.get(0))
            .expect("count")
    };
    assert_eq!(count("SELECT COUNT(*) FROM events"), 2, "one row a version");
    assert_eq!(
        count("SELECT COUNT(*) FROM versions"),
        0,
        "and nothing else"
    );
    assert_eq!(count("SELECT COUNT(*) FROM objects"), 0);
    let h = History::with_mib(16);
    let loaded = rec.load(&h, |_, _| {}).expect("loads");
    let end = loaded.end.get("events").expect("the Event at the end");
    assert_eq!(
        serde_json::to_value(&*end[0]).expect("json"),
        serde_json::to_value(event(2, 11)).expect("json"),
        "the Event rebuilt from its row is the one seen"
    );
    let about = rec.events_about("uid-web-1").expect("events about the pod");
    assert_eq!(
        about.iter().map(|e| e.count).collect::<Vec<_>>(),
        vec![1, 2]
    );
    // A relist finds it gone: a deletion row, and the replay's end no longer holds it.
    r.deleted(&resource, "shop/web-1.17f");
    r.flush();
    assert_eq!(
        count("SELECT COUNT(*) FROM events WHERE delta = 'Deleted'"),
        1
    );
    let h = History::with_mib(16);
    let loaded = rec.load(&h, |_, _| {}).expect("loads");
    assert!(loaded.end.get("events").is_none_or(Vec::is_empty));
    assert_eq!(loaded.unreadable, 0);
    assert_eq!(rec.events_about("uid-web-1").expect("events").len(), 2);
}
