//! The dashboard's operating keys against the server: scale, restart, CronJobs, set image, cordon.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_scale_and_restart_keys_change_the_deployment_on_the_server() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    deploys
        .create(&PostParams::default(), &deployment("web"))
        .await
        .unwrap();
    let info = s.resource("deploy");
    let dynamic: Api<DynamicObject> =
        Api::namespaced_with(client.clone(), &s.ns, &info.api_resource);
    let obj = Arc::new(dynamic.get("web").await.unwrap());
    let row = ObjectSummary::from_object("Deployment", &obj, None).unwrap();
    let mut app = dashboard(&s, "deployments", vec![row]);

    assert!(
        press(&mut app, KeyCode::Char('s')).is_empty(),
        "a dialog first"
    );
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Char('4'));
    let fx = press(&mut app, KeyCode::Enter);
    let message = carry_out(&client, fx).await;
    assert_eq!(message, format!("deployment {}/web scaled to 4", s.ns));
    let d = deploys.get("web").await.unwrap();
    assert_eq!(d.spec.as_ref().and_then(|s| s.replicas), Some(4));

    assert!(
        press(&mut app, KeyCode::Char('r')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    carry_out(&client, fx).await;
    let d = deploys.get("web").await.unwrap();
    let annotations = d
        .spec
        .and_then(|s| s.template.metadata)
        .and_then(|m| m.annotations)
        .unwrap_or_default();
    assert!(
        annotations.contains_key("kubectl.kubernetes.io/restartedAt"),
        "{annotations:?}"
    );
    s.cleanup().await;
}

fn cronjob(name: &str) -> CronJob {
    serde_json::from_value(json!({
        "metadata": {"name": name},
        "spec": {"schedule": "0 3 * * *", "suspend": false,
                 "jobTemplate": {
                     "metadata": {"labels": {"app": name}, "annotations": {"team": "billing"}},
                     "spec": {"backoffLimit": 1, "template": {"spec": {
                         "restartPolicy": "Never",
                         "containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]}}}}}
    }))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_cronjob_keys_trigger_a_job_from_its_template_and_suspend_and_resume_it() {
    let s = setup().await;
    let client = s.conn.client.clone();
    let cronjobs: Api<CronJob> = Api::namespaced(client.clone(), &s.ns);
    let cj = cronjobs
        .create(&PostParams::default(), &cronjob("report"))
        .await
        .unwrap();
    let mut app = dashboard(&s, "cronjobs", vec![row_of(&s, "cj", "report").await]);

    // T: confirmed, then a Job made as `kubectl create job --from=cronjob/report` makes it.
    assert!(
        press(&mut app, KeyCode::Char('t')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    let message = carry_out(&client, fx).await;
    let prefix = format!(
        "cronjob {}/report triggered: job {}/report-manual-",
        s.ns, s.ns
    );
    assert!(message.starts_with(&prefix), "{message}");
    let job_name = message
        .rsplit('/')
        .next()
        .unwrap()
        .trim_end_matches(" created");
    let jobs: Api<Job> = Api::namespaced(client.clone(), &s.ns);
    let job = jobs.get(job_name).await.unwrap();
    let owner = &job.metadata.owner_references.as_ref().unwrap()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.name.as_str(), &owner.uid),
        ("CronJob", "report", cj.metadata.uid.as_ref().unwrap())
    );
    let annotations = job.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations
            .get("cronjob.kubernetes.io/instantiate")
            .map(String::as_str),
        Some("manual")
    );
    assert_eq!(annotations.get("team").map(String::as_str), Some("billing"));
    assert_eq!(
        job.metadata
            .labels
            .unwrap_or_default()
            .get("app")
            .map(String::as_str),
        Some("report")
    );
    assert_eq!(job.spec.and_then(|s| s.backoff_limit), Some(1));

    // s on a running CronJob suspends it, confirmed as k9s's cronjob.go asks...
    assert!(
        press(&mut app, KeyCode::Char('s')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    assert_eq!(
        carry_out(&client, fx).await,
        format!("cronjob {}/report suspended", s.ns)
    );
    let suspended = |c: CronJob| c.spec.and_then(|s| s.suspend);
    assert_eq!(suspended(cronjobs.get("report").await.unwrap()), Some(true));
    // ...and, once the row shows it suspended, resumes it.
    let view = app.current_view_id().unwrap();
    app.update(Action::Resync {
        view,
        rows: vec![row_of(&s, "cj", "report").await],
    });
    assert!(
        press(&mut app, KeyCode::Char('s')).is_empty(),
        "confirm first"
    );
    let fx = press(&mut app, KeyCode::Char('y'));
    assert_eq!(
        carry_out(&client, fx).await,
        format!("cronjob {}/report resumed", s.ns)
    );
    assert_eq!(
        suspended(cronjobs.get("report").await.unwrap()),
        Some(false)
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_set_image_dialog_patches_only_the_chosen_container() {
    use kinformer::runtime::operate::fetch_images;
    let s = setup().await;
    let client = s.conn.client.clone();
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &s.ns);
    let mut d = deployment("web");
    let pod = d.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
    pod.containers.push(
        serde_json::from_value(json!({"name": "proxy", "image": "envoyproxy/envoy:v1.31"}))
            .unwrap(),
    );
    pod.init_containers = Some(vec![
        serde_json::from_value(json!({"name": "migrate", "image": "busybox:1.36"})).unwrap(),
    ]);
    deploys.create(&PostParams::default(), &d).await.unwrap();
    let mut app = dashboard(&s, "deployments", vec![row_of(&s, "deploy", "web").await]);

    let fx = press(&mut app, KeyCode::Char('i'));
    let [Effect::FetchImages(write)] = &fx[..] else {
        panic!("expected the containers' fetch, got {fx:?}")
    };
    let result = fetch_images(client.clone(), write).await;
    app.update(Action::Images {
        write: write.clone(),
        result,
    });
    // The first app container (c) is selected; Down picks the proxy, its image is retyped.
    press(&mut app, KeyCode::Down);
    for _ in 0.."v1.31".len() {
        press(&mut app, KeyCode::Backspace);
    }
    for ch in "v1.32".chars() {
        press(&mut app, KeyCode::Char(ch));
    }
    let fx = press(&mut app, KeyCode::Enter);
    assert_eq!(
        carry_out(&client, fx).await,
        format!(
            "deployment {}/web: container proxy image set to envoyproxy/envoy:v1.32",
            s.ns
        )
    );
    let pod = deploys
        .get("web")
        .await
        .unwrap()
        .spec
        .unwrap()
        .template
        .spec
        .unwrap();
    let images: Vec<(String, Option<String>)> = pod
        .init_containers
        .unwrap_or_default()
        .into_iter()
        .chain(pod.containers)
        .map(|c| (c.name, c.image))
        .collect();
    let img = |n: &str, i: &str| (n.to_string(), Some(i.to_string()));
    assert_eq!(
        images,
        [
            img("migrate", "busybox:1.36"),
            img("c", "registry.k8s.io/pause:3.10"),
            img("proxy", "envoyproxy/envoy:v1.32"),
        ]
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_cordon_key_makes_the_node_unschedulable() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: it cordons a node (demo server only)");
        return s.cleanup().await;
    }
    let node = format!("{}-node", s.ns);
    let client = s.conn.client.clone();
    let nodes = create_node(&s, &node).await;
    let info = s.resource("no");
    let dynamic: Api<DynamicObject> = Api::all_with(client.clone(), &info.api_resource);
    let obj = Arc::new(dynamic.get(&node).await.unwrap());
    let row = ObjectSummary::from_object("Node", &obj, None).unwrap();
    let mut app = dashboard(&s, "nodes", vec![row]);
    // Confirmed first, as k9s's node.go asks.
    assert!(
        press(&mut app, KeyCode::Char('c')).is_empty(),
        "confirm first"
    );
    let message = carry_out(&client, press(&mut app, KeyCode::Char('y'))).await;
    assert_eq!(message, format!("node {node} cordoned"));
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), Some(true));
    assert!(
        press(&mut app, KeyCode::Char('u')).is_empty(),
        "confirm first"
    );
    carry_out(&client, press(&mut app, KeyCode::Char('y'))).await;
    let n = nodes.get(&node).await.unwrap();
    assert_eq!(n.spec.and_then(|s| s.unschedulable), None);
    let _ = nodes.delete(&node, &DeleteParams::default()).await;
    s.cleanup().await;
}
