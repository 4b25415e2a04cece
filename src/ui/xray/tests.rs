//! Tree building from fixtures: stores indexed as the informers index them, objects as the
//! cache holds them (pods pruned).

use super::*;
use crate::informer::index::{default_indexers, dynamic_pod_node_index_func};
use serde_json::json;

pub(crate) fn store(kind: XKind) -> Arc<ThreadSafeStore<DynamicObject>> {
    let mut ix = default_indexers::<DynamicObject>();
    if kind == XKind::Pod {
        ix.insert(NODE_INDEX.to_string(), dynamic_pod_node_index_func());
    }
    Arc::new(ThreadSafeStore::new(ix))
}

pub(crate) fn obj(v: Value) -> Arc<DynamicObject> {
    Arc::new(serde_json::from_value(v).expect("fixture"))
}

pub(crate) fn put(s: &ThreadSafeStore<DynamicObject>, o: &Arc<DynamicObject>) {
    let key = crate::informer::meta_namespace_key(&**o).expect("key");
    s.update(&key, o.clone()).expect("add");
}

pub(crate) fn deploy(name: &str, uid: &str, replicas: i64) -> Arc<DynamicObject> {
    obj(json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default", "uid": uid, "labels": {"app": name}},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}}},
        "status": {"replicas": replicas, "readyReplicas": replicas, "availableReplicas": replicas}}))
}

pub(crate) fn rs(
    name: &str,
    uid: &str,
    owner: &str,
    rev: &str,
    replicas: i64,
) -> Arc<DynamicObject> {
    obj(json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": {"name": name, "namespace": "default", "uid": uid,
            "annotations": {"deployment.kubernetes.io/revision": rev},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web",
                "uid": owner, "controller": true}]},
        "spec": {"replicas": replicas}, "status": {"replicas": replicas}}))
}

/// A pod as the cache holds it: pruned (its row summary instead of containers).
pub(crate) fn pod(name: &str, owner: &str, ready: bool, node: &str) -> Arc<DynamicObject> {
    let full: DynamicObject =
        serde_json::from_value(full_pod(name, owner, ready, node)).expect("pod");
    Arc::new(crate::render::prune("Pod", full))
}

pub(crate) fn full_pod(name: &str, owner: &str, ready: bool, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
            "labels": {"app": "web"},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                "uid": owner, "controller": true}]},
        "spec": {"nodeName": node, "containers": [{"name": "app", "image": "web:1.4"}]},
        "status": {"phase": if ready { "Running" } else { "Pending" },
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" }}],
            "containerStatuses": [{"name": "app", "ready": ready, "restartCount": 0,
                "state": if ready { json!({"running": {}}) }
                    else { json!({"waiting": {"reason": "ContainerCreating"}}) }}]}})
}

/// A deployment `web` with one ReplicaSet of three ready pods, and one unrelated deployment
/// with its own pod.
fn fixture() -> (Xray, HashMap<XKind, Arc<ThreadSafeStore<DynamicObject>>>) {
    let stores: HashMap<_, _> = [XKind::Deployment, XKind::ReplicaSet, XKind::Pod]
        .into_iter()
        .map(|k| (k, store(k)))
        .collect();
    put(&stores[&XKind::Deployment], &deploy("web", "d1", 3));
    put(&stores[&XKind::Deployment], &deploy("api", "d2", 1));
    put(
        &stores[&XKind::ReplicaSet],
        &rs("web-1", "r1", "d1", "1", 3),
    );
    put(
        &stores[&XKind::ReplicaSet],
        &rs("api-1", "r9", "d2", "1", 1),
    );
    for i in 0..3 {
        put(
            &stores[&XKind::Pod],
            &pod(&format!("web-1-{i}"), "r1", true, "n1"),
        );
    }
    put(&stores[&XKind::Pod], &pod("api-1-0", "r9", true, "n2"));
    let mut x = Xray::new(XKind::Deployment, Some("default".into()));
    for (k, s) in &stores {
        x.set_store(*k, s.clone());
    }
    x.flush(true);
    (x, stores)
}

fn names(x: &Xray) -> Vec<String> {
    x.rows()
        .iter()
        .map(|r| {
            format!(
                "{}{} {}/{}{}",
                "  ".repeat(r.depth),
                r.name,
                r.ready,
                r.total,
                if r.expanded { " +" } else { "" }
            )
        })
        .collect()
}

#[test]
fn a_deployment_tree_holds_its_replicasets_and_their_pods_from_the_owner_index() {
    let (x, _) = fixture();
    assert_eq!(
        names(&x),
        vec![
            "api 1/1 +",
            "  api-1 1/1 +",
            "    api-1-0 1/1",
            "web 3/3 +",
            "  web-1 3/3 +",
            "    web-1-0 1/1",
            "    web-1-1 1/1",
            "    web-1-2 1/1",
        ]
    );
    assert_eq!(x.root_count(), 2);
    assert_eq!(x.object_count(), 8);
    let web = x.node("deploy/default/web").expect("web");
    assert_eq!(web.health, Health::Ok);
}

#[test]
fn a_rollout_shows_the_new_replicaset_filling_and_the_old_draining_rebuilding_only_its_root() {
    let (mut x, stores) = fixture();
    let before = x.rebuilds;
    // Rollout: a new ReplicaSet with one pod not ready yet, one old pod gone.
    let new_rs = rs("web-2", "r2", "d1", "2", 1);
    put(&stores[&XKind::ReplicaSet], &new_rs);
    x.apply(XKind::ReplicaSet, [new_rs], &[]);
    let p = pod("web-2-0", "r2", false, "n1");
    put(&stores[&XKind::Pod], &p);
    x.apply(XKind::Pod, [p], &[]);
    stores[&XKind::Pod].delete("default/web-1-2");
    x.apply(XKind::Pod, [], &[Arc::from("default/web-1-2")]);
    assert!(x.flush(false));
    assert_eq!(x.rebuilds - before, 1, "only web's tree is rebuilt");
    let rows = names(&x);
    assert_eq!(
        rows[3..],
        [
            "web 2/3 +",
            "  web-2 0/1 +",
            "    web-2-0 0/1",
            "  web-1 2/2 +",
            "    web-1-0 1/1",
            "    web-1-1 1/1",
        ]
    );
    let web = x.node("deploy/default/web").expect("web");
    assert_eq!(web.health, Health::Warning);
    assert_eq!(
        x.node("rs/default/web-2").expect("rs").health,
        Health::Error
    );
}

#[test]
fn a_burst_over_many_roots_waits_for_the_tick_then_rebuilds_each_root_once() {
    let (mut x, stores) = fixture();
    for i in 0..(REBUILD_NOW_MAX + 1) {
        let d = deploy(&format!("d{i:02}"), &format!("u{i}"), 1);
        put(&stores[&XKind::Deployment], &d);
        x.apply(XKind::Deployment, [d], &[]);
    }
    let before = x.rebuilds;
    assert!(!x.flush(false), "too many roots for this batch");
    assert_eq!(x.pending(), REBUILD_NOW_MAX + 1);
    assert!(x.flush(true));
    assert_eq!(x.rebuilds - before, REBUILD_NOW_MAX as u64 + 1);
    assert_eq!(x.root_count(), REBUILD_NOW_MAX + 3);
}

#[test]
fn collapse_and_expand_keys_toggle_one_node_or_all() {
    let (mut x, _) = fixture();
    x.select(3); // web
    assert_eq!(x.toggle(), None);
    assert_eq!(
        names(&x),
        vec!["api 1/1 +", "  api-1 1/1 +", "    api-1-0 1/1", "web 3/3"]
    );
    x.expand_all(false);
    assert_eq!(names(&x), vec!["api 1/1", "web 3/3"]);
    x.expand_all(true);
    // Every pod is open too, its containers not fetched yet.
    assert_eq!(x.rows().len(), 2 + 2 + 4 * 2);
    assert!(x.rows().iter().any(|r| r.kind == NodeKind::Loading));
}

#[test]
fn opening_a_pruned_pod_asks_for_its_containers_and_shows_them_once_fetched() {
    let (mut x, _) = fixture();
    let i = x
        .rows()
        .iter()
        .position(|r| &*r.name == "web-1-0")
        .expect("pod");
    x.select(i);
    let want = x.toggle().expect("containers to fetch");
    assert_eq!(&*want, "default/web-1-0");
    let mut full = full_pod("web-1-0", "r1", false, "n1");
    full["status"]["containerStatuses"][0] = json!({"name": "app", "ready": false,
        "restartCount": 4, "state": {"waiting": {"reason": "CrashLoopBackOff"}}});
    x.set_containers(want.clone(), ContainerInfo::of_pod(&full));
    let c = x.rows().get(i + 1).expect("container row");
    assert_eq!(c.kind, NodeKind::Container);
    assert_eq!(&*c.name, "app");
    assert_eq!(&*c.detail, "waiting: CrashLoopBackOff ↻4 · web:1.4");
    assert_eq!(c.health, Health::Error);
    // The pod changes: its containers are fetched again (they are stale).
    let p = pod("web-1-0", "r1", true, "n1");
    assert_eq!(x.apply(XKind::Pod, [p], &[]), vec![want]);
}

#[test]
fn a_service_tree_holds_the_pods_its_selector_picks_from_the_label_index() {
    let pods = store(XKind::Pod);
    let svcs = store(XKind::Service);
    for i in 0..2 {
        put(&pods, &pod(&format!("web-{i}"), "r1", i == 0, "n1"));
    }
    let mut other = full_pod("db-0", "r5", true, "n1");
    other["metadata"]["labels"] = json!({"app": "db"});
    put(
        &pods,
        &Arc::new(crate::render::prune(
            "Pod",
            serde_json::from_value(other).expect("pod"),
        )),
    );
    let svc = obj(json!({"apiVersion": "v1", "kind": "Service",
        "metadata": {"name": "web", "namespace": "default", "uid": "s1"},
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}));
    put(&svcs, &svc);
    let mut x = Xray::new(XKind::Service, Some("default".into()));
    x.set_store(XKind::Service, svcs);
    x.set_store(XKind::Pod, pods.clone());
    x.flush(true);
    assert_eq!(names(&x), vec!["web 1/2 +", "  web-0 1/1", "  web-1 0/1"]);
    // A new pod with the label joins the tree (its Service is found from its labels).
    let p = pod("web-2", "r1", true, "n2");
    put(&pods, &p);
    x.apply(XKind::Pod, [p], &[]);
    x.flush(false);
    assert_eq!(x.node("svc/default/web").map(|n| n.total), Some(3));
}

#[test]
fn a_node_tree_holds_its_pods_from_the_node_index() {
    let pods = store(XKind::Pod);
    let nodes = store(XKind::Node);
    put(&pods, &pod("a", "r1", true, "n1"));
    put(&pods, &pod("b", "r1", true, "n2"));
    put(
        &nodes,
        &obj(json!({"apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "n1", "uid": "nn1"},
        "status": {"conditions": [{"type": "Ready", "status": "True"}]}})),
    );
    let mut x = Xray::new(XKind::Node, Some("default".into()));
    x.set_store(XKind::Node, nodes);
    x.set_store(XKind::Pod, pods.clone());
    x.flush(true);
    assert_eq!(names(&x), vec!["n1 1/1 +", "  a 1/1"]);
    let moved = pod("b", "r1", true, "n1");
    put(&pods, &moved);
    x.apply(XKind::Pod, [moved], &[]);
    x.flush(false);
    assert_eq!(names(&x), vec!["n1 2/2 +", "  a 1/1", "  b 1/1"]);
}

#[test]
fn filters_keep_matches_with_their_subtree_and_the_path_to_them() {
    let (mut x, _) = fixture();
    x.set_filter(XFilter {
        text: TextFilter::parse("web-1-1").ok(),
        label: None,
        raw: "web-1-1".into(),
    });
    assert_eq!(
        names(&x),
        vec!["web 3/3 +", "  web-1 3/3 +", "    web-1-1 1/1"]
    );
    x.set_filter(XFilter {
        text: TextFilter::parse("api").ok(),
        label: None,
        raw: "api".into(),
    });
    assert_eq!(
        names(&x),
        vec!["api 1/1 +", "  api-1 1/1 +", "    api-1-0 1/1"]
    );
    x.set_filter(XFilter {
        text: None,
        label: LabelSelector::parse("app=api").ok(),
        raw: "-l app=api".into(),
    });
    // Only the deployment api carries app=api: its whole tree.
    assert_eq!(
        names(&x),
        vec!["api 1/1 +", "  api-1 1/1 +", "    api-1-0 1/1"]
    );
}

#[test]
fn deleting_the_root_removes_its_tree_and_memberships() {
    let (mut x, stores) = fixture();
    stores[&XKind::Deployment].delete("default/web");
    x.apply(XKind::Deployment, [], &[Arc::from("default/web")]);
    x.flush(false);
    assert_eq!(
        names(&x),
        vec!["api 1/1 +", "  api-1 1/1 +", "    api-1-0 1/1"]
    );
    assert!(
        !x.member
            .contains_key(&(XKind::Pod, Arc::from("default/web-1-0")))
    );
    assert!(!x.owner_root.contains_key("r1"));
}

#[test]
fn a_change_under_a_root_larger_than_the_batch_budget_waits_for_the_tick() {
    let (mut x, stores) = fixture();
    x.sizes
        .insert(Arc::from("default/web"), REBUILD_NOW_OBJECTS + 1);
    let p = pod("web-1-9", "r1", true, "n1");
    put(&stores[&XKind::Pod], &p);
    x.apply(XKind::Pod, [p], &[]);
    assert!(!x.flush(false), "a large root is rebuilt at the tick");
    assert!(x.flush(true));
    assert_eq!(x.node("deploy/default/web").map(|n| n.total), Some(4));
    assert_eq!(
        x.sizes.get("default/web"),
        Some(&6),
        "its size is measured again"
    );
}

#[test]
fn a_complete_resend_removes_roots_whose_object_is_gone() {
    let (mut x, stores) = fixture();
    // Gone from the cache without a delete seen (a relist while the feed was away).
    stores[&XKind::Deployment].delete("default/api");
    x.mark_all();
    x.flush(true);
    assert_eq!(x.root_count(), 1);
    assert!(x.node("deploy/default/api").is_none());
}

#[test]
fn rows_spliced_per_root_equal_a_full_flattening() {
    let (mut x, stores) = fixture();
    x.set_filter(XFilter {
        text: TextFilter::parse("-").ok(),
        label: None,
        raw: "-".into(),
    });
    let steps: Vec<(XKind, Arc<DynamicObject>)> = vec![
        (XKind::Deployment, deploy("aaa", "d0", 1)),
        (XKind::ReplicaSet, rs("web-2", "r2", "d1", "2", 1)),
        (XKind::Pod, pod("web-2-0", "r2", false, "n1")),
        (XKind::Deployment, deploy("zzz", "d9", 1)),
    ];
    for (kind, o) in steps {
        put(&stores[&kind], &o);
        x.apply(kind, [o], &[]);
        assert!(x.flush(false));
        let spliced = x.rows().to_vec();
        x.reflatten();
        assert_eq!(spliced, x.rows());
    }
    stores[&XKind::Deployment].delete("default/api");
    x.apply(XKind::Deployment, [], &[Arc::from("default/api")]);
    x.flush(false);
    let spliced = x.rows().to_vec();
    x.reflatten();
    assert_eq!(spliced, x.rows());
    assert!(!spliced.iter().any(|r| &*r.name == "api"));
}
