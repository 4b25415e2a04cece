use super::*;
use crate::informer::decode::Mask;
use crate::informer::delta_fifo::{Delta, DeltaObject};
use serde_json::json;

fn obj(v: Value) -> DynamicObject {
    serde_json::from_value(v).expect("fixture is an object")
}

fn pod(name: &str, rv: &str, phase: &str, image: &str) -> DynamicObject {
    obj(json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "resourceVersion": rv,
            "creationTimestamp": "2026-11-28T10:00:00Z", "labels": {"app": "web"}},
        "spec": {"nodeName": "n1", "containers": [{"name": "web", "image": image}]},
        "status": {"phase": phase, "podIP": "10.0.0.7", "containerStatuses": [
            {"name": "web", "restartCount": 0, "ready": phase == "Running",
             "state": {"running": {"startedAt": "2026-11-28T10:00:05Z"}}}]}}))
}

fn mask() -> Mask {
    crate::render::history_mask("Pod")
}

/// Observe `o` at `at` with its delta type, as the informer's FIFO does.
fn see(h: &History, o: &DynamicObject, kind: DeltaType, at: i64) {
    h.observe_as_at("pods", o, mask(), Some(kind), at);
    let key = meta_namespace_key(o).expect("key");
    let d = Delta {
        kind,
        object: DeltaObject::Object(Arc::new(o.clone())),
    };
    h.popped_at("pods", &key, &[d], at);
}

fn names(v: &PastView) -> Vec<&str> {
    v.rows.iter().map(|r| &*r.key).collect()
}

fn phase(r: &PastRow) -> &str {
    r.object.data["status"]["phase"].as_str().unwrap_or("")
}

#[test]
fn a_past_view_shows_an_object_as_it_was_before_an_update() {
    let h = History::with_mib(1);
    let (v1, v2) = (
        pod("a", "1", "Pending", "web:1.4"),
        pod("a", "2", "Running", "web:1.5"),
    );
    see(&h, &v1, DeltaType::Added, 1_000);
    see(&h, &v2, DeltaType::Updated, 2_000);
    let live = [Arc::new(v2.clone())];

    let before = h.past_view("pods", Some("shop"), 1_500, live.clone());
    assert_eq!(names(&before), ["shop/a"]);
    let row = &before.rows[0];
    assert_eq!(row.since, Since::Changed);
    assert_eq!(row.version, Some(0));
    assert_eq!(phase(row), "Pending");
    assert_eq!(
        row.object.data["spec"]["containers"][0]["image"],
        json!("web:1.4")
    );
    assert_eq!(row.object.metadata.resource_version.as_deref(), Some("1"));
    assert_eq!(
        row.object
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("app")),
        Some(&"web".to_string())
    );

    let after = h.past_view("pods", Some("shop"), 2_000, live);
    assert_eq!(after.rows[0].since, Since::Unchanged);
    assert_eq!(phase(&after.rows[0]), "Running");
    // Unchanged since: the live object itself, not a rebuilt one.
    assert!(after.rows[0].object.metadata.creation_timestamp.is_some());
}

#[test]
fn an_object_deleted_since_is_back_in_a_past_view() {
    let h = History::with_mib(1);
    let a = pod("a", "1", "Running", "web:1.4");
    see(&h, &a, DeltaType::Added, 1_000);
    see(&h, &a, DeltaType::Deleted, 3_000);

    let then = h.past_view("pods", None, 2_000, []);
    assert_eq!(names(&then), ["shop/a"]);
    assert_eq!(then.rows[0].since, Since::Deleted);
    assert_eq!(phase(&then.rows[0]), "Running");
    assert!(h.past_view("pods", None, 3_000, []).rows.is_empty());
}

#[test]
fn an_object_created_since_is_absent_from_a_past_view() {
    let h = History::with_mib(1);
    let a = pod("a", "1", "Running", "web:1.4");
    let b = pod("b", "2", "Pending", "web:1.4");
    see(&h, &a, DeltaType::Replaced, 1_000);
    see(&h, &b, DeltaType::Added, 5_000);
    let live = [Arc::new(a), Arc::new(b)];

    assert_eq!(
        names(&h.past_view("pods", None, 4_999, live.clone())),
        ["shop/a"]
    );
    assert_eq!(
        names(&h.past_view("pods", None, 5_000, live)),
        ["shop/a", "shop/b"]
    );
}

#[test]
fn a_name_created_again_reads_as_the_object_that_held_it_then() {
    let h = History::with_mib(1);
    let old = pod("a", "1", "Running", "web:1.4");
    let new = pod("a", "7", "Pending", "web:2.0");
    see(&h, &old, DeltaType::Added, 1_000);
    see(&h, &old, DeltaType::Deleted, 2_000);
    see(&h, &new, DeltaType::Added, 3_000);
    let live = [Arc::new(new.clone())];

    let first = h.past_view("pods", None, 1_500, live.clone());
    assert_eq!(first.rows[0].since, Since::Changed);
    assert_eq!(
        first.rows[0].object.data["spec"]["containers"][0]["image"],
        json!("web:1.4")
    );
    assert!(
        h.past_view("pods", None, 2_500, live.clone())
            .rows
            .is_empty(),
        "between the deletion and the new object, the name held nothing"
    );
    let second = h.past_view("pods", None, 3_000, live);
    assert_eq!(second.rows[0].since, Since::Unchanged);
    assert_eq!(phase(&second.rows[0]), "Pending");
}

#[test]
fn an_instant_before_the_oldest_version_held_is_clamped_to_it() {
    // A budget that holds a few dozen versions: the oldest are evicted first.
    let h = History::new(6_000);
    let quiet = pod("quiet", "1", "Running", "web:1.4");
    see(&h, &quiet, DeltaType::Replaced, 1_000);
    let mut busy = pod("busy", "2", "Running", "web:1.0");
    see(&h, &busy, DeltaType::Replaced, 1_000);
    for i in 0..200 {
        busy = pod(
            "busy",
            &format!("{}", 10 + i),
            "Running",
            &format!("web:1.{i}"),
        );
        see(&h, &busy, DeltaType::Updated, 2_000 + i64::from(i) * 10);
    }
    assert!(h.stats().evicted > 0, "the budget evicted versions");
    assert!(
        h.timeline("pods", "shop/quiet").is_none(),
        "quiet's history went"
    );
    let earliest = h.earliest_ms().expect("some versions held");
    assert!(earliest > 2_000);

    let live = [Arc::new(quiet), Arc::new(busy)];
    let v = h.past_view("pods", None, 0, live);
    assert!(v.clamped());
    assert_eq!(
        (v.asked_ms, v.at_ms, v.earliest_ms),
        (0, earliest, Some(earliest))
    );
    assert_eq!(names(&v), ["shop/busy", "shop/quiet"]);
    // busy as the oldest version held says; quiet (no history left) as it is.
    let busy_then = &v.rows[0];
    assert_eq!(busy_then.since, Since::Changed);
    let n = (earliest - 2_000) / 10;
    assert_eq!(
        busy_then.object.data["spec"]["containers"][0]["image"],
        json!(format!("web:1.{n}"))
    );
    assert_eq!(
        (v.rows[1].since, v.rows[1].version),
        (Since::Unchanged, None)
    );
}

#[test]
fn a_namespace_scope_keeps_only_its_objects() {
    let h = History::with_mib(1);
    see(
        &h,
        &pod("a", "1", "Running", "web:1"),
        DeltaType::Added,
        1_000,
    );
    let mut other = pod("b", "2", "Running", "web:1");
    other.metadata.namespace = Some("ops".into());
    see(&h, &other, DeltaType::Added, 1_000);
    assert_eq!(
        names(&h.past_view("pods", Some("ops"), 2_000, [])),
        ["ops/b"]
    );
    // A view of several namespaces (`-n ops,shop`) holds both.
    assert_eq!(
        names(&h.past_view("pods", Some("ops,shop"), 2_000, [])).len(),
        2
    );
    assert!(
        h.past_view("pods", Some("dev,qa"), 2_000, [])
            .rows
            .is_empty()
    );
    assert!(
        h.past_view("deployments.apps", None, 2_000, [])
            .rows
            .is_empty()
    );
}

#[test]
fn stepping_goes_to_just_before_the_previous_change_and_to_the_next_one() {
    let h = History::with_mib(1);
    see(
        &h,
        &pod("a", "1", "Pending", "web:1"),
        DeltaType::Added,
        1_000,
    );
    see(
        &h,
        &pod("a", "2", "Running", "web:1"),
        DeltaType::Updated,
        2_000,
    );
    see(
        &h,
        &pod("b", "3", "Running", "web:1"),
        DeltaType::Added,
        2_000,
    );
    let times = h.change_times("pods", None);
    assert_eq!(times, [1_000, 2_000]);
    // From now: before the last change, where a was Pending and b did not exist.
    let back = step_back(&times, 10_000).expect("an earlier change");
    assert_eq!(back, 1_999);
    let v = h.past_view("pods", None, back, []);
    assert_eq!(names(&v), ["shop/a"]);
    assert_eq!(phase(&v.rows[0]), "Pending");
    assert_eq!(step_back(&times, back), Some(999));
    assert_eq!(step_back(&times, 999), None);
    assert_eq!(step_forward(&times, 999), Some(1_000));
    assert_eq!(step_forward(&times, 1_999), Some(2_000));
    assert_eq!(
        step_forward(&times, 2_000),
        None,
        "past the last change: live"
    );
}

/// Every fixture of a built-in kind, decoded as the informers decode it with history on,
/// recorded, and rebuilt from the record: its row reads as the live (pruned) object's row.
#[test]
fn a_row_drawn_from_a_recorded_version_reads_as_the_live_row() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut checked = Vec::new();
    for entry in std::fs::read_dir(dir).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        let json = std::fs::read_to_string(&path).expect("readable");
        let raw: Value = serde_json::from_str(&json).expect("json");
        let kind = raw["kind"].as_str().unwrap_or("").to_string();
        if kind.is_empty() {
            continue;
        }
        let decoded = crate::informer::decode::decode_dynamic_masked(
            &json,
            &crate::render::history_decode_mask(&kind),
        )
        .expect("decodes");
        let h = History::with_mib(1);
        let resource = format!("{kind}s");
        h.observe_as_at(
            &resource,
            &decoded,
            crate::render::history_mask(&kind),
            Some(DeltaType::Replaced),
            1_000,
        );
        let live = crate::render::prune(&kind, decoded);
        // Asked before the version: the object as recorded, rebuilt (live is not consulted).
        let view = h.past_view(&resource, None, 1_000, []);
        let [row] = view.rows.as_slice() else {
            panic!("{}: one row, got {:?}", path.display(), names(&view));
        };
        assert_eq!(
            crate::render::row(&kind, &row.object, None),
            crate::render::row(&kind, &live, None),
            "{}: the row from the record differs from the live row",
            path.display()
        );
        checked.push(kind);
    }
    for kind in ["Pod", "Deployment", "Service", "Node", "Job", "Event"] {
        assert!(checked.iter().any(|k| k == kind), "{kind} was checked");
    }
}

fn owned(name: &str, rv: &str, phase: &str, owner: &str) -> DynamicObject {
    let mut o = pod(name, rv, phase, "web:1.4");
    o.metadata.owner_references = Some(vec![OwnerReference {
        api_version: "apps/v1".into(),
        kind: "ReplicaSet".into(),
        name: format!("rs-{owner}"),
        uid: owner.into(),
        ..OwnerReference::default()
    }]);
    o
}

#[test]
fn an_object_deleted_since_comes_back_with_its_owners() {
    let h = History::with_mib(1);
    see(
        &h,
        &owned("a", "1", "Running", "u-1"),
        DeltaType::Added,
        1_000,
    );
    see(
        &h,
        &owned("a", "2", "Running", "u-1"),
        DeltaType::Deleted,
        2_000,
    );
    let past = h.past_view("pods", Some("shop"), 1_500, []);
    let refs = past.rows[0]
        .object
        .metadata
        .owner_references
        .clone()
        .unwrap_or_default();
    assert_eq!(refs.len(), 1);
    assert_eq!(
        (
            refs[0].uid.as_str(),
            refs[0].kind.as_str(),
            refs[0].name.as_str()
        ),
        ("u-1", "ReplicaSet", "rs-u-1")
    );
}

#[test]
fn a_step_hands_back_the_objects_the_previous_view_rebuilt() {
    let h = History::with_mib(1);
    see(
        &h,
        &pod("a", "1", "Pending", "web:1.4"),
        DeltaType::Added,
        1_000,
    );
    see(
        &h,
        &pod("b", "2", "Pending", "web:1.4"),
        DeltaType::Added,
        1_000,
    );
    see(
        &h,
        &pod("a", "3", "Running", "web:1.4"),
        DeltaType::Updated,
        3_000,
    );
    see(
        &h,
        &pod("b", "4", "Running", "web:1.4"),
        DeltaType::Updated,
        4_000,
    );
    let first = h.past_view("pods", Some("shop"), 2_000, []);
    // One step later: `b` shows the same version, `a` a later one.
    let step = h.past_view("pods", Some("shop"), 3_000, []);
    assert!(Arc::ptr_eq(&first.rows[1].object, &step.rows[1].object));
    assert!(!Arc::ptr_eq(&first.rows[0].object, &step.rows[0].object));
    assert_eq!(phase(&step.rows[0]), "Running");
    assert_eq!(phase(&step.rows[1]), "Pending");
    // Forgotten: rebuilt, and the same as before.
    h.forget_past_views();
    let again = h.past_view("pods", Some("shop"), 3_000, []);
    assert!(!Arc::ptr_eq(&again.rows[1].object, &step.rows[1].object));
    assert_eq!(again.rows, step.rows);
}

/// A history of five pods: updates, a deletion, a name created again, one pod never changed.
fn churned() -> (History, Vec<Arc<DynamicObject>>) {
    let h = History::with_mib(1);
    for (i, name) in ["a", "b", "c", "d", "e"].iter().enumerate() {
        let rv = (10 + i).to_string();
        see(
            &h,
            &pod(name, &rv, "Pending", "web:1.4"),
            DeltaType::Replaced,
            1_000,
        );
    }
    see(
        &h,
        &pod("a", "20", "Running", "web:1.4"),
        DeltaType::Updated,
        2_000,
    );
    see(
        &h,
        &pod("b", "21", "Running", "web:1.4"),
        DeltaType::Updated,
        3_000,
    );
    see(
        &h,
        &pod("a", "22", "Running", "web:1.5"),
        DeltaType::Updated,
        3_000,
    );
    see(
        &h,
        &pod("c", "23", "Running", "web:1.4"),
        DeltaType::Deleted,
        4_000,
    );
    see(
        &h,
        &pod("f", "24", "Pending", "web:1.4"),
        DeltaType::Added,
        5_000,
    );
    see(
        &h,
        &pod("c", "25", "Pending", "web:1.6"),
        DeltaType::Added,
        6_000,
    );
    see(
        &h,
        &pod("d", "26", "Failed", "web:1.4"),
        DeltaType::Updated,
        6_000,
    );
    let live = [
        pod("a", "22", "Running", "web:1.5"),
        pod("b", "21", "Running", "web:1.4"),
        pod("c", "25", "Pending", "web:1.6"),
        pod("d", "26", "Failed", "web:1.4"),
        pod("e", "14", "Pending", "web:1.4"),
        pod("f", "24", "Pending", "web:1.4"),
    ];
    (h, live.into_iter().map(Arc::new).collect())
}

/// The view at `at` looked at object by object (nothing kept from a view before).
fn whole(h: &History, at: i64, live: &[Arc<DynamicObject>]) -> PastView {
    h.forget_past_views();
    h.past_view("pods", Some("shop"), at, live.iter().cloned())
}

#[test]
fn a_step_from_any_instant_to_any_other_reads_as_the_whole_view_there() {
    let (h, live) = churned();
    let instants = [
        500, 1_000, 1_500, 2_000, 3_000, 3_500, 4_000, 5_000, 6_000, 9_000,
    ];
    for &from in &instants {
        for &to in &instants {
            let want = whole(&h, to, &live);
            whole(&h, from, &live);
            let step = h.past_view("pods", Some("shop"), to, live.iter().cloned());
            assert_eq!(step, want, "from {from} to {to}");
        }
    }
    // `[` pressed again and again, then `]`: each view as a whole one reads.
    let times = h.change_times("pods", Some("shop"));
    assert_eq!(times, [1_000, 2_000, 3_000, 4_000, 5_000, 6_000]);
    h.forget_past_views();
    let mut at = 9_000;
    let mut seen = Vec::new();
    while let Some(back) = step_back(&times, at) {
        let step = h.past_view("pods", Some("shop"), back, live.iter().cloned());
        seen.push((back, step));
        at = back;
    }
    while let Some(next) = step_forward(&times, at) {
        let step = h.past_view("pods", Some("shop"), next, live.iter().cloned());
        seen.push((next, step));
        at = next;
    }
    assert!(seen.len() > 8, "{}", seen.len());
    for (at, step) in seen {
        assert_eq!(step, whole(&h, at, &live), "at {at}");
    }
}

#[test]
fn a_step_after_new_versions_were_recorded_shows_them() {
    let (h, mut live) = churned();
    h.past_view("pods", Some("shop"), 3_500, live.iter().cloned());
    // Meanwhile: e changes for the first time, b is deleted, g is created.
    see(
        &h,
        &pod("e", "30", "Running", "web:1.4"),
        DeltaType::Updated,
        7_000,
    );
    see(
        &h,
        &pod("b", "31", "Running", "web:1.4"),
        DeltaType::Deleted,
        7_000,
    );
    see(
        &h,
        &pod("g", "32", "Pending", "web:1.4"),
        DeltaType::Added,
        7_000,
    );
    live.retain(|o| !matches!(o.metadata.name.as_deref(), Some("b" | "e")));
    live.push(Arc::new(pod("e", "30", "Running", "web:1.4")));
    live.push(Arc::new(pod("g", "32", "Pending", "web:1.4")));
    for at in [2_500, 7_000, 6_500, 1_000] {
        let step = h.past_view("pods", Some("shop"), at, live.iter().cloned());
        let e = step.rows.iter().find(|r| &*r.key == "shop/e");
        if at < 7_000 {
            assert_eq!(e.map(|r| r.since), Some(Since::Changed), "at {at}");
        }
        assert_eq!(step, whole(&h, at, &live), "at {at}");
        // Stepping on from the whole view just made.
    }
    let times = h.change_times("pods", Some("shop"));
    assert_eq!(times.last(), Some(&7_000), "the new instant is a stop");
}
