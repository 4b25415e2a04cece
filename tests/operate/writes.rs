//! The write path itself: scale, restart, kill, delete, a 403, cordon and uncordon.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scale_restart_kill_and_delete_go_through_the_write_path() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    deploys
        .create(&PostParams::default(), &deployment("web"))
        .await
        .unwrap();

    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Scale(3)),
    )
    .await;
    assert_eq!(
        (out.message.as_str(), out.error),
        (
            format!("deployment {}/web scaled to 3", s.ns).as_str(),
            false
        )
    );
    let d = deploys.get("web").await.unwrap();
    assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(3));

    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Restart),
    )
    .await;
    assert!(!out.error, "{}", out.message);
    let d = deploys.get("web").await.unwrap();
    let template = d.spec.unwrap().template.metadata.unwrap();
    let restarted = template
        .annotations
        .unwrap_or_default()
        .get("kubectl.kubernetes.io/restartedAt")
        .cloned()
        .unwrap_or_default();
    assert!(restarted.contains('T'), "restartedAt: {restarted:?}");
    assert_eq!(
        template
            .labels
            .unwrap_or_default()
            .get("app")
            .map(String::as_str),
        Some("web"),
        "the template keeps its labels"
    );

    let pods: Api<Pod> = Api::namespaced(client.clone(), &s.ns);
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": "victim"},
            "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}))
        .unwrap(),
    )
    .await
    .unwrap();
    let out = execute(client.clone(), &s.write("po", "victim", Operation::Kill)).await;
    assert_eq!(out.message, format!("pod {}/victim killed", s.ns));
    if s.demo.is_some() {
        // The demo deletes at once; a real kubelet takes a moment even with grace period 0.
        assert!(pods.get_opt("victim").await.unwrap().is_none());
    }

    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Delete(Propagation::Orphan)),
    )
    .await;
    assert_eq!(
        out.message,
        format!("deployment {}/web deleted (propagation Orphan)", s.ns)
    );

    let out = execute(
        client.clone(),
        &s.write("deploy", "nope", Operation::Scale(1)),
    )
    .await;
    assert!(out.error);
    assert!(out.message.contains("not found"), "{}", out.message);
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_write_names_the_verb_and_resource() {
    let s = setup().await;
    let Some(demo) = &s.demo else {
        println!("skipping: needs the demo server's 403 injection");
        return s.cleanup().await;
    };
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    deploys
        .create(&PostParams::default(), &deployment("web"))
        .await
        .unwrap();
    demo.faults().forbid("apps", "deployments");
    let out = execute(
        client.clone(),
        &s.write("deploy", "web", Operation::Scale(2)),
    )
    .await;
    assert!(out.error);
    assert!(
        out.message.starts_with(&format!(
            "scale deployment {}/web: forbidden (patch deployments.apps/scale): ",
            s.ns
        )),
        "{}",
        out.message
    );
    assert!(out.message.contains("cannot patch"), "{}", out.message);
    demo.faults().allow("apps", "deployments");
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cordon_and_uncordon_flip_unschedulable() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    let client = s.conn.client.clone();
    let nodes = create_node(&s, &node).await;
    let out = execute(client.clone(), &s.write("no", &node, Operation::Cordon)).await;
    assert_eq!(out.message, format!("node {node} cordoned"));
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), Some(true));
    let out = execute(client.clone(), &s.write("no", &node, Operation::Uncordon)).await;
    assert_eq!(out.message, format!("node {node} uncordoned"));
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), None);
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}

/// Who each `managedFields` entry of the deployment names: `manager (operation, subresource)`.
async fn writers_of(deploys: &Api<Deployment>, name: &str) -> Vec<String> {
    let d = deploys.get(name).await.unwrap();
    d.metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .map(|e| {
            format!(
                "{} ({}, {})",
                e.manager.unwrap_or_default(),
                e.operation.unwrap_or_default(),
                e.subresource.unwrap_or_default()
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kinformers_writes_name_kinformer_as_the_field_manager() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    deploys
        .create(&PostParams::default(), &deployment("blamed"))
        .await
        .unwrap();
    assert!(
        !writers_of(&deploys, "blamed")
            .await
            .iter()
            .any(|w| w.starts_with("kinformer ")),
        "not before kinformer wrote"
    );

    let out = execute(
        client.clone(),
        &s.write("deploy", "blamed", Operation::Scale(4)),
    )
    .await;
    assert!(!out.error, "{}", out.message);
    let writers = writers_of(&deploys, "blamed").await;
    assert!(
        writers.contains(&"kinformer (Update, scale)".to_string()),
        "a scale through the scale subresource: {writers:?}"
    );

    let out = execute(
        client.clone(),
        &s.write("deploy", "blamed", Operation::Restart),
    )
    .await;
    assert!(!out.error, "{}", out.message);
    let writers = writers_of(&deploys, "blamed").await;
    assert!(
        writers.contains(&"kinformer (Update, )".to_string()),
        "a restart patches the object itself: {writers:?}"
    );
}
