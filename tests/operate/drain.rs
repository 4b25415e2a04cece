//! Node drain: budgets honoured, cancellation, the dashboard's drain dialog.

use super::*;

/// A node with two ready pods owned by a ReplicaSet and a budget that keeps both.
async fn node_with_guarded_pods(s: &Setup, node: &str, min_available: i32) {
    let client = s.conn.client.clone();
    create_node(s, node).await;
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    for i in 0..2 {
        let name = format!("db-{i}");
        pods.create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": name, "labels": {"app": "db"},
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "db",
                                     "uid": "00000000-0000-0000-0000-000000000001", "controller": true}]},
                "spec": {"nodeName": node,
                         "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}))
            .unwrap(),
        )
        .await
        .unwrap();
        pods.patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Running",
                "conditions": [{"type": "Ready", "status": "True"}]}})),
        )
        .await
        .unwrap();
    }
    let pdb = s.resource("pdb");
    let api: Api<kube::api::DynamicObject> = Api::namespaced_with(client, &s.ns, &pdb.api_resource);
    api.create(
        &PostParams::default(),
        &serde_json::from_value(
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "db"},
            "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "db"}}}}),
        )
        .unwrap(),
    )
    .await
    .unwrap();
}

fn quick() -> DrainOptions {
    DrainOptions {
        initial_backoff: Duration::from_millis(100),
        max_backoff: Duration::from_millis(300),
        poll: Duration::from_millis(100),
        ..DrainOptions::default()
    }
}

async fn next(rx: &mut mpsc::Receiver<DrainEvent>) -> DrainEvent {
    tokio::time::timeout(HANG_GUARD, rx.recv())
        .await
        .expect("drain progress")
        .expect("drain ended without a last event")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drain_waits_while_a_budget_blocks_then_evicts_when_it_allows() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons and drains a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    node_with_guarded_pods(&s, &node, 2).await;
    let client = s.conn.client.clone();
    let (tx, mut rx) = mpsc::channel(16);
    let cancel = CancellationToken::new();
    let task = tokio::spawn(drain(
        client.clone(),
        node.clone(),
        quick(),
        tx,
        cancel.clone(),
    ));
    assert_eq!(next(&mut rx).await, DrainEvent::Cordoned);
    let DrainEvent::Planned { mut evict, .. } = next(&mut rx).await else {
        panic!("expected the plan");
    };
    evict.sort();
    assert_eq!(evict, [format!("{}/db-0", s.ns), format!("{}/db-1", s.ns)]);
    let DrainEvent::Blocked { message, .. } = next(&mut rx).await else {
        panic!("the budget blocks the first eviction");
    };
    assert!(
        message.contains("Cannot evict pod as it would violate the pod's disruption budget.")
            && message
                .contains("The disruption budget db needs 2 healthy pods and has 2 currently"),
        "{message}"
    );
    // The budget is relaxed: the retries go through.
    let pdb = s.resource("pdb");
    let api: Api<kube::api::DynamicObject> =
        Api::namespaced_with(client.clone(), &s.ns, &pdb.api_resource);
    api.patch(
        "db",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"minAvailable": 0}})),
    )
    .await
    .unwrap();
    let mut evicted = Vec::new();
    let done = loop {
        match next(&mut rx).await {
            DrainEvent::Blocked { .. } => {}
            DrainEvent::Evicted(p) => evicted.push(p),
            other => break other,
        }
    };
    assert_eq!(
        done,
        DrainEvent::Done {
            evicted: 2,
            failed: 0
        }
    );
    assert_eq!(evicted.len(), 2);
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    assert!(
        pods.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    let nodes: Api<Node> = Api::all(client);
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), Some(true));
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_drain_stops_and_leaves_the_pods() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons and drains a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    node_with_guarded_pods(&s, &node, 2).await;
    let client = s.conn.client.clone();
    let (tx, mut rx) = mpsc::channel(16);
    let cancel = CancellationToken::new();
    let task = tokio::spawn(drain(
        client.clone(),
        node.clone(),
        quick(),
        tx,
        cancel.clone(),
    ));
    loop {
        if let DrainEvent::Blocked { .. } = next(&mut rx).await {
            break;
        }
    }
    cancel.cancel();
    loop {
        match next(&mut rx).await {
            DrainEvent::Blocked { .. } => {}
            other => {
                assert_eq!(other, DrainEvent::Cancelled);
                break;
            }
        }
    }
    // The task has ended (no eviction loop left behind) and nothing more is sent.
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    assert!(rx.recv().await.is_none());
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    assert_eq!(pods.list(&Default::default()).await.unwrap().items.len(), 2);
    let nodes: Api<Node> = Api::all(client);
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_drain_dialog_runs_the_drain_and_shows_its_end() {
    use kinformer::ui::app::{DrainState, Mode};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons and drains a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    node_with_guarded_pods(&s, &node, 0).await;
    let client = s.conn.client.clone();
    let info = s.resource("no");
    let dynamic: Api<DynamicObject> = Api::all_with(client.clone(), &info.api_resource);
    let obj = Arc::new(dynamic.get(&node).await.unwrap());
    let row = ObjectSummary::from_object("Node", &obj, None).unwrap();
    let mut app = dashboard(&s, "nodes", vec![row]);
    assert!(
        press(&mut app, KeyCode::Char('D')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    let [Effect::Drain { node: target, opts }] = &fx[..] else {
        panic!("expected a drain, got {fx:?}")
    };
    assert_eq!(target, &node);
    // The runtime's part: the drain task, its events fed back as actions.
    let (tx, mut rx) = mpsc::channel(16);
    let task = tokio::spawn(drain(
        client.clone(),
        target.clone(),
        DrainOptions {
            poll: Duration::from_millis(50),
            ..opts.clone()
        },
        tx,
        CancellationToken::new(),
    ));
    while let Some(ev) = tokio::time::timeout(HANG_GUARD, rx.recv()).await.unwrap() {
        app.update(Action::Drain(ev));
    }
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    let d = app.drain.clone().unwrap();
    assert_eq!(
        d.state,
        DrainState::Finished {
            summary: format!("node {node} drained: 2 pods evicted"),
            error: false
        }
    );
    assert_eq!(d.evicted.len(), 2);
    assert!(matches!(app.mode, Mode::Drain));
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.mode, Mode::Normal));
    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    assert!(
        pods.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    let nodes: Api<Node> = Api::all(client);
    assert_eq!(
        nodes
            .get(&node)
            .await
            .unwrap()
            .spec
            .and_then(|s| s.unschedulable),
        Some(true)
    );
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}
