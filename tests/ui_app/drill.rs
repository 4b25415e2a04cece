//! Drill-downs (Enter) read from the owner, node and namespace indexes.

use super::*;

#[test]
fn enter_on_a_deployment_shows_the_pods_of_its_replicasets() {
    let cfg = AppConfig {
        resource: "deploy".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
    let fx = app.update(code(KeyCode::Enter));
    let views = opened(&fx);
    let pods_view = views.iter().find(|(_, p, _)| p == "pods").unwrap().0;
    let rs_view = views.iter().find(|(_, p, _)| p == "replicasets").unwrap().0;
    app.update(Action::Resync {
        view: pods_view,
        rows: vec![
            pod(PodSpec {
                name: "web-5d8f-a",
                owner: Some("uid-web-5d8f"),
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "api-77-b",
                owner: Some("uid-api-77"),
                ..PodSpec::default()
            }),
        ],
    });
    assert!(
        shown(&app, pods_view).is_empty(),
        "ReplicaSets not known yet"
    );
    app.update(Action::Resync {
        view: rs_view,
        rows: vec![
            workload("default", "web-5d8f", Some("uid-web")),
            workload("default", "api-77", Some("uid-api")),
        ],
    });
    assert_eq!(shown(&app, pods_view), ["default/web-5d8f-a"]);
    let fx = app.update(key('q'));
    assert!(fx.contains(&Effect::CloseView { view: pods_view }));
    assert!(
        fx.contains(&Effect::CloseView { view: rs_view }),
        "the feeder goes with it"
    );
}

#[test]
fn enter_on_a_node_shows_the_pods_on_it_in_all_namespaces() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let (pods_view, _, ns) = opened(&fx)[0].clone();
    assert_eq!(ns, None);
    app.update(Action::Resync {
        view: pods_view,
        rows: vec![
            pod(PodSpec {
                ns: "shop",
                name: "a",
                node: "node-2",
                ..PodSpec::default()
            }),
            pod(PodSpec {
                name: "b",
                node: "node-1",
                ..PodSpec::default()
            }),
        ],
    });
    assert_eq!(shown(&app, pods_view), ["shop/a"]);
}

#[test]
fn enter_on_a_namespace_shows_its_pods() {
    let cfg = AppConfig {
        resource: "ns".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("shop", "Active")]);
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].1, "pods");
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("shop"));
}

#[test]
fn deployment_drill_down_reads_its_replicasets_then_their_pods_from_the_owner_index() {
    let cfg = AppConfig {
        resource: "deploy".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
    let fx = app.update(code(KeyCode::Enter));
    let d = drills(&fx);
    let (pods_view, _, pods_drill) = d.iter().find(|(_, p, _)| p == "pods").unwrap().clone();
    let (rs_view, _, rs_drill) = d
        .iter()
        .find(|(_, p, _)| p == "replicasets")
        .unwrap()
        .clone();
    let owned_by_web = Drill::Owners(["uid-web".into()].into_iter().collect());
    assert_eq!(pods_drill.as_ref(), Some(&owned_by_web));
    assert_eq!(
        rs_drill.as_ref(),
        Some(&owned_by_web),
        "the ReplicaSets are drilled too"
    );

    // The runtime sends each view its informer's indexer; no rows at all.
    let replicasets = [
        workload("default", "web-5d8f", Some("uid-web")),
        workload("default", "web-6c1a", Some("uid-web")),
        workload("default", "api-77", Some("uid-api")),
    ];
    let fx = app.update(Action::Store {
        view: rs_view,
        store: store_of(&replicasets),
    });
    assert_eq!(
        shown(&app, rs_view),
        ["default/web-5d8f", "default/web-6c1a"]
    );
    let widened = Drill::Owners(
        ["uid-web", "uid-web-5d8f", "uid-web-6c1a"]
            .into_iter()
            .map(Into::into)
            .collect(),
    );
    assert_eq!(
        fx,
        vec![Effect::SetDrill {
            view: pods_view,
            drill: widened
        }],
        "the runtime feeds the pods of the new owners from now on"
    );
    let owned = |name: &'static str, owner: &'static str| {
        pod(PodSpec {
            name,
            owner: Some(owner),
            ..PodSpec::default()
        })
    };
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[
            owned("web-5d8f-a", "uid-web-5d8f"),
            owned("web-6c1a-b", "uid-web-6c1a"),
            owned("api-77-c", "uid-api-77"),
        ]),
    });
    assert_eq!(
        shown(&app, pods_view),
        ["default/web-5d8f-a", "default/web-6c1a-b"]
    );
    assert_eq!(
        header_filter_line(&app, pods_view),
        "deployments/web  owner index: 2 replicasets → 2 pods"
    );
}

#[test]
fn node_drill_down_reads_the_pods_from_the_node_index() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let (pods_view, _, drill) = drills(&fx)[0].clone();
    assert_eq!(drill, Some(Drill::Node("node-2".into())));
    let on = |ns: &'static str, name: &'static str, node: &'static str| {
        pod(PodSpec {
            ns,
            name,
            node,
            ..PodSpec::default()
        })
    };
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[
            on("shop", "a", "node-2"),
            on("default", "b", "node-1"),
            on("kube-system", "c", "node-2"),
        ]),
    });
    assert_eq!(shown(&app, pods_view), ["kube-system/c", "shop/a"]);
    assert_eq!(
        header_filter_line(&app, pods_view),
        "nodes/node-2  node index → 2 pods"
    );
}

#[test]
fn enter_on_a_namespace_makes_it_the_scope_of_every_view_and_a_favourite_as_k9s() {
    let cfg = AppConfig {
        resource: "ns".into(),
        namespace: None,
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("shop", "Active")]);
    let fx = app.update(code(KeyCode::Enter));
    let views = opened(&fx);
    assert_eq!(views.len(), 1, "{fx:?}");
    assert_eq!(views[0].1, "pods");
    assert_eq!(views[0].2.as_deref(), Some("shop"));
    assert_eq!(app.namespace.as_deref(), Some("shop"));
    assert_eq!(app.favourites, ["shop"]);
    // Sticky: the next kind opens in the same namespace.
    app.update(key(':'));
    type_str(&mut app, "dp");
    let fx = app.update(code(KeyCode::Enter));
    let (_, plural, ns) = opened(&fx)[0].clone();
    assert_eq!(
        (plural.as_str(), ns.as_deref()),
        ("deployments", Some("shop"))
    );
}

#[test]
fn a_pod_created_after_a_drill_down_appears_in_it_and_others_do_not() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let pods_view = drills(&fx)[0].0;
    let on = |name: &'static str, node: &'static str| {
        pod(PodSpec {
            name,
            node,
            ..PodSpec::default()
        })
    };
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&[on("a", "node-2")]),
    });
    assert_eq!(shown(&app, pods_view), ["default/a"]);
    app.update(Action::Rows {
        view: pods_view,
        upserts: vec![on("late", "node-2"), on("elsewhere", "node-1")],
        deletes: vec![],
    });
    assert_eq!(shown(&app, pods_view), ["default/a", "default/late"]);
    assert_eq!(
        header_filter_line(&app, pods_view),
        "nodes/node-2  node index → 2 pods"
    );
}

#[test]
fn a_replicaset_created_after_a_deployment_drill_down_brings_its_pods() {
    let cfg = AppConfig {
        resource: "deploy".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
    let fx = app.update(code(KeyCode::Enter));
    let d = drills(&fx);
    let pods_view = d.iter().find(|(_, p, _)| p == "pods").unwrap().0;
    let rs_view = d.iter().find(|(_, p, _)| p == "replicasets").unwrap().0;
    let old_rs = workload("default", "web-5d8f", Some("uid-web"));
    let new_rs = workload("default", "web-9e2b", Some("uid-web"));
    let owned = |name: &'static str, owner: &'static str| {
        pod(PodSpec {
            name,
            owner: Some(owner),
            ..PodSpec::default()
        })
    };
    let pods = pod_store_of(&[
        owned("web-5d8f-a", "uid-web-5d8f"),
        owned("web-9e2b-a", "uid-web-9e2b"),
    ]);
    app.update(Action::Store {
        view: pods_view,
        store: pods.clone(),
    });
    app.update(Action::Store {
        view: rs_view,
        store: store_of(std::slice::from_ref(&old_rs)),
    });
    assert_eq!(shown(&app, pods_view), ["default/web-5d8f-a"]);
    // A rollout: the new ReplicaSet arrives, its pods are already cached.
    let fx = app.update(Action::Rows {
        view: rs_view,
        upserts: vec![new_rs],
        deletes: vec![],
    });
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::SetDrill { view, .. } if *view == pods_view))
    );
    assert_eq!(
        shown(&app, pods_view),
        ["default/web-5d8f-a", "default/web-9e2b-a"]
    );
    assert_eq!(
        header_filter_line(&app, pods_view),
        "deployments/web  owner index: 2 replicasets → 2 pods"
    );
}

#[test]
fn without_the_drill_index_the_drill_down_says_it_scanned() {
    let cfg = AppConfig {
        resource: "nodes".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![cluster_object("node-2", "Ready")]);
    let fx = app.update(code(KeyCode::Enter));
    let pods_view = drills(&fx)[0].0;
    let rows = vec![
        pod(PodSpec {
            name: "a",
            node: "node-2",
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "b",
            node: "node-1",
            ..PodSpec::default()
        }),
    ];
    // An indexer without the node index: the runtime sends every row, the view filters them.
    app.update(Action::Store {
        view: pods_view,
        store: store_of(&rows),
    });
    app.update(Action::Resync {
        view: pods_view,
        rows,
    });
    assert_eq!(shown(&app, pods_view), ["default/a"]);
    assert_eq!(
        header_filter_line(&app, pods_view),
        "nodes/node-2  scan → 1 pod"
    );
}

#[test]
fn yaml_key_fetches_the_object_and_hides_secret_values_until_x() {
    let cfg = AppConfig {
        resource: "secrets".into(),
        ..config()
    };
    let (mut app, _) = app_with(cfg, vec![workload("default", "db-creds", None)]);
    let fx = app.update(key('y'));
    let Effect::FetchYaml {
        request,
        name,
        namespace,
        ..
    } = fx[0].clone()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(
        (name.as_str(), namespace.as_deref()),
        ("db-creds", Some("default"))
    );
    let secret = serde_json::json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db-creds"}, "data": {"password": "aHVudGVyMg=="}});
    app.update(Action::Yaml {
        request,
        result: Ok(secret),
    });
    let text = |app: &App| match app.current_screen() {
        Some(Screen::Text(t)) => t.lines.clone().unwrap().unwrap().join("\n"),
        _ => panic!(),
    };
    assert!(!text(&app).contains("aHVudGVyMg=="));
    app.update(key('x'));
    assert!(
        text(&app).contains("password: hunter2"),
        "decoded as k9s shows it"
    );
    app.update(key('x'));
    assert!(!text(&app).contains("aHVudGVyMg=="));
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn enter_on_a_job_statefulset_or_daemonset_shows_the_pods_it_owns() {
    for resource in ["jobs", "statefulsets", "daemonsets"] {
        let cfg = AppConfig {
            resource: resource.into(),
            ..config()
        };
        let (mut app, _) = app_with(cfg, vec![workload("default", "web", None)]);
        let fx = app.update(code(KeyCode::Enter));
        let d = drills(&fx);
        let (pods_view, _, drill) = d.iter().find(|(_, p, _)| p == "pods").unwrap().clone();
        assert_eq!(
            drill,
            Some(Drill::Owners(["uid-web".into()].into_iter().collect())),
            "{resource}"
        );
        let owned = |name: &'static str, owner: &'static str| {
            pod(PodSpec {
                name,
                owner: Some(owner),
                ..PodSpec::default()
            })
        };
        app.update(Action::Resync {
            view: pods_view,
            rows: vec![owned("web-0", "uid-web"), owned("api-0", "uid-api")],
        });
        assert_eq!(shown(&app, pods_view), ["default/web-0"], "{resource}");
    }
}

#[test]
fn enter_on_a_crd_shows_the_objects_of_the_kind_it_defines() {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
    use kinformer::cluster::ResourceInfo;
    let cfg = AppConfig {
        resource: "crd".into(),
        ..config()
    };
    let mut crd = cluster_object("widgets.demo.kinformer.dev", "");
    crd.object = std::sync::Arc::new(
        serde_json::from_value(serde_json::json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": { "name": "widgets.demo.kinformer.dev", "uid": "uid-crd" },
            "spec": { "group": "demo.kinformer.dev", "names": { "plural": "widgets", "kind": "Widget" } },
        }))
        .unwrap(),
    );
    let (mut app, _) = app_with(cfg, vec![crd]);
    let widget = ResourceInfo::from_api_resource(
        "demo.kinformer.dev",
        "v1",
        &APIResource {
            name: "widgets".into(),
            kind: "Widget".into(),
            namespaced: true,
            singular_name: "widget".into(),
            verbs: vec!["list".into(), "watch".into(), "get".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let mut resources = kinformer::ui::resources::builtin_resources();
    resources.push(widget);
    app.update(Action::Discovery(resources));
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].1, "widgets");
}
