//! k9s's keys by default: a shared key takes the action that fits the selected object, jumps,
//! favourites, faults, CSV, aliases, and what a key that does nothing here says.

use std::sync::Arc;

use kinformer::render::{Cell, Health, Row};
use kinformer::ui::action::ObjectSummary;

use super::*;

fn on(resource: &str, rows: Vec<ObjectSummary>) -> (App, ViewId) {
    let cfg = AppConfig {
        resource: resource.into(),
        ..config()
    };
    app_with(cfg, rows)
}

/// An object of any kind whose cached data is `data` (spec, metadata extras).
fn object_with(ns: Option<&str>, name: &str, data: serde_json::Value) -> ObjectSummary {
    let mut v = serde_json::json!({
        "apiVersion": "v1",
        "kind": "Thing",
        "metadata": {"name": name, "namespace": ns, "uid": format!("uid-{name}")},
    });
    if let (Some(m), Some(extra)) = (v.as_object_mut(), data.as_object()) {
        for (k, x) in extra {
            if k == "metadata" {
                for (mk, mv) in x.as_object().into_iter().flatten() {
                    m["metadata"][mk] = mv.clone();
                }
            } else {
                m.insert(k.clone(), x.clone());
            }
        }
    }
    ObjectSummary {
        key: match ns {
            Some(ns) => format!("{ns}/{name}").into(),
            None => name.into(),
        },
        namespace: ns.map(Into::into),
        name: name.into(),
        row: Row {
            cells: vec![Cell::Text(name.into()), Cell::Age(Some(NOW - 60))],
            health: Health::Ok,
        },
        object: Arc::new(serde_json::from_value(v).unwrap()),
    }
}

fn footer(app: &App) -> String {
    app.message.clone().map(|(m, _)| m).unwrap_or_default()
}

#[test]
fn s_is_a_shell_on_a_pod_scale_on_a_deployment_and_suspend_on_a_cronjob() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    let fx = app.update(key('s'));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::FetchContainers { .. })),
        "a shell starts by asking for the pod's containers: {fx:?}"
    );
    assert!(matches!(app.mode, Mode::Containers(_)));

    let (mut app, _) = on("deployments", vec![workload("default", "web", None)]);
    app.update(key('s'));
    assert!(matches!(app.mode, Mode::Scale(_)), "{:?}", app.mode);

    let cj = object_with(
        Some("default"),
        "nightly",
        serde_json::json!({"spec": {"suspend": false}}),
    );
    let (mut app, _) = on("cronjobs", vec![cj]);
    // Confirmed first, as k9s's "Suspend CronJob default/nightly?".
    assert!(app.update(key('s')).is_empty());
    let fx = app.update(key('y'));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Write(w) if w.op == Operation::Suspend(true))),
        "{fx:?}"
    );
}

#[test]
fn a_shared_key_that_fits_nothing_here_says_so_in_the_footer() {
    let svc = object_with(Some("default"), "web", serde_json::json!({}));
    let (mut app, _) = on("services", vec![svc]);
    let fx = app.update(key('s'));
    assert!(fx.is_empty(), "{fx:?}");
    let m = footer(&app);
    assert!(m.contains("s: nothing to do on a Service"), "{m}");
    assert!(m.contains("shell: pods"), "{m}");
    assert!(m.contains("scale: deploy/sts/rs"), "{m}");
}

#[test]
fn an_unbound_letter_says_so_in_the_footer() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    assert!(app.update(key('z')).is_empty());
    assert!(
        footer(&app).contains("z: no key binding here"),
        "{}",
        footer(&app)
    );
}

#[test]
fn l_opens_logs_and_p_the_previous_instances_logs() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    let fx = app.update(key('p'));
    let prev = fx.iter().find_map(|e| match e {
        Effect::OpenLogs { options, .. } => Some(options.previous),
        _ => None,
    });
    assert_eq!(prev, Some(true), "{fx:?}");
    app.update(code(KeyCode::Esc));
    let fx = app.update(key('l'));
    let prev = fx.iter().find_map(|e| match e {
        Effect::OpenLogs { options, .. } => Some(options.previous),
        _ => None,
    });
    assert_eq!(prev, Some(false), "{fx:?}");
}

#[test]
fn e_edits_and_capital_e_toggles_the_event_pane() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    let fx = app.update(key('e'));
    assert!(
        fx.iter().any(|e| matches!(e, Effect::Edit { .. })),
        "{fx:?}"
    );
    let shown_before = app.show_events_pane;
    app.update(key('E'));
    assert_ne!(app.show_events_pane, shown_before);
}

#[test]
fn shift_j_jumps_to_the_owner_and_selects_it_once_it_arrives() {
    let p = pod(PodSpec {
        name: "web-1-abc",
        owner: Some("web-1"),
        ..PodSpec::default()
    });
    let (mut app, _) = on("pods", vec![p]);
    let fx = app.update(key('J'));
    let views = opened(&fx);
    assert_eq!(views.len(), 1, "{fx:?}");
    let (rs_view, plural, ns) = views[0].clone();
    assert_eq!(
        (plural.as_str(), ns.as_deref()),
        ("replicasets", Some("default"))
    );
    assert!(matches!(app.current_screen(), Some(Screen::Table(v)) if *v == rs_view));
    app.update(Action::Resync {
        view: rs_view,
        rows: vec![
            workload("default", "api-1", None),
            workload("default", "web-1", None),
        ],
    });
    assert_eq!(selected(&app, rs_view).as_deref(), Some("default/web-1"));
    // Esc returns to the pods.
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Table(v)) if *v != rs_view));
}

#[test]
fn shift_j_on_an_object_without_owner_says_so() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "lonely")]);
    assert!(app.update(key('J')).is_empty());
    assert!(footer(&app).contains("has no owner"), "{}", footer(&app));
}

#[test]
fn o_opens_the_nodes_table_on_the_pods_node() {
    let p = pod(PodSpec {
        name: "web-1",
        node: "node-2",
        ..PodSpec::default()
    });
    let (mut app, _) = on("pods", vec![p]);
    let fx = app.update(key('o'));
    let (nodes_view, plural, _) = opened(&fx)[0].clone();
    assert_eq!(plural, "nodes");
    app.update(Action::Resync {
        view: nodes_view,
        rows: vec![
            cluster_object("node-1", "Ready"),
            cluster_object("node-2", "Ready"),
            cluster_object("node-3", "Ready"),
        ],
    });
    assert_eq!(selected(&app, nodes_view).as_deref(), Some("node-2"));
}

#[test]
fn ctrl_z_keeps_only_the_faulty_rows_and_again_all() {
    let rows = vec![
        simple_pod("default", "ok-1"),
        pod(PodSpec {
            name: "crash-1",
            status: "CrashLoopBackOff",
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "done-1",
            status: "Completed",
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "pending-1",
            status: "Pending",
            ..PodSpec::default()
        }),
    ];
    let (mut app, v) = on("pods", rows);
    app.update(ctrl('z'));
    assert_eq!(shown(&app, v), ["default/crash-1", "default/pending-1"]);
    // A faulty pod arriving later is shown; a healthy one is not.
    app.update(Action::Rows {
        view: v,
        upserts: vec![
            pod(PodSpec {
                name: "crash-2",
                status: "Error",
                ..PodSpec::default()
            }),
            simple_pod("default", "ok-2"),
        ],
        deletes: vec![],
    });
    assert_eq!(
        shown(&app, v),
        ["default/crash-1", "default/crash-2", "default/pending-1"]
    );
    app.update(ctrl('z'));
    assert_eq!(shown(&app, v).len(), 6);
}

#[test]
fn ctrl_s_saves_the_shown_rows_as_csv_with_the_header() {
    let rows = vec![
        simple_pod("default", "web-1"),
        simple_pod("default", "api-1"),
    ];
    let (mut app, _) = on("pods", rows);
    type_str(&mut app, "/");
    type_str(&mut app, "web");
    app.update(code(KeyCode::Enter));
    let fx = app.update(ctrl('s'));
    let [
        Effect::SaveTable {
            path,
            contents,
            rows,
        },
    ] = &fx[..]
    else {
        panic!("{fx:?}")
    };
    assert_eq!(*rows, 1);
    assert!(path.to_string_lossy().ends_with(".csv"), "{path:?}");
    assert!(
        path.to_string_lossy().contains("demo-pods-default-"),
        "{path:?}"
    );
    let lines: Vec<&str> = contents.lines().collect();
    assert_eq!(lines[0], "NAME,READY,STATUS,RESTARTS,AGE,IP,NODE");
    assert!(lines[1].starts_with("web-1,1/1,Running,0,"), "{}", lines[1]);
    assert_eq!(lines.len(), 2);
}

#[test]
fn digits_switch_to_namespace_favourites_and_zero_to_all_namespaces() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    assert_eq!(app.favourites, ["default"]);
    app.update(key(':'));
    type_str(&mut app, "ns shop");
    app.update(code(KeyCode::Enter));
    assert_eq!(app.favourites, ["shop", "default"]);
    let fx = app.update(key('2'));
    assert_eq!(opened(&fx)[0].2.as_deref(), Some("default"));
    assert_eq!(app.namespace.as_deref(), Some("default"));
    assert_eq!(app.favourites, ["default", "shop"], "most recent first");
    let fx = app.update(key('0'));
    assert_eq!(opened(&fx)[0].2, None);
    assert_eq!(app.namespace, None);
    assert!(app.update(key('7')).is_empty());
    assert!(footer(&app).contains("no favourite 7"), "{}", footer(&app));
}

#[test]
fn enter_on_a_service_shows_the_pods_its_selector_chooses() {
    let svc = object_with(
        Some("default"),
        "web",
        serde_json::json!({"spec": {"selector": {"app": "web", "tier": "front"}}}),
    );
    let (mut app, _) = on("services", vec![svc]);
    let fx = app.update(code(KeyCode::Enter));
    let (pods_view, plural, ns) = opened(&fx)[0].clone();
    assert_eq!((plural.as_str(), ns.as_deref()), ("pods", Some("default")));
    let rows = vec![
        pod(PodSpec {
            name: "web-1",
            labels: &[("app", "web"), ("tier", "front")],
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "web-canary",
            labels: &[("app", "web")],
            ..PodSpec::default()
        }),
        simple_pod("default", "db-0"),
    ];
    app.update(Action::Store {
        view: pods_view,
        store: pod_store_of(&rows),
    });
    app.update(Action::Resync {
        view: pods_view,
        rows,
    });
    assert_eq!(shown(&app, pods_view), ["default/web-1"]);
    assert_eq!(
        app.views[&pods_view].drilled_from.as_deref(),
        Some("services/web")
    );
    // Esc goes back to the services (the selector is the drill's, not a filter to clear).
    app.update(code(KeyCode::Esc));
    assert!(matches!(app.current_screen(), Some(Screen::Table(v)) if *v != pods_view));
}

#[test]
fn enter_on_a_service_without_selector_says_so() {
    let svc = object_with(Some("default"), "external", serde_json::json!({"spec": {}}));
    let (mut app, _) = on("services", vec![svc]);
    assert!(app.update(code(KeyCode::Enter)).is_empty());
    assert!(footer(&app).contains("has no selector"), "{}", footer(&app));
}

#[test]
fn enter_on_a_cronjob_shows_its_jobs_from_the_owner_index() {
    let cj = object_with(Some("default"), "nightly", serde_json::json!({}));
    let (mut app, _) = on("cronjobs", vec![cj]);
    let fx = app.update(code(KeyCode::Enter));
    let (_, plural, drill) = drills(&fx)[0].clone();
    assert_eq!(plural, "jobs");
    assert_eq!(
        drill,
        Some(Drill::Owners(["uid-nightly".into()].into_iter().collect()))
    );
}

#[test]
fn k9s_aliases_open_their_resources() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    for (alias, plural) in [
        ("dp", "deployments"),
        ("sec", "secrets"),
        ("cm", "configmaps"),
    ] {
        app.update(key(':'));
        type_str(&mut app, alias);
        let fx = app.update(code(KeyCode::Enter));
        assert_eq!(opened(&fx)[0].1, plural, ":{alias}");
    }
}

#[test]
fn ctrl_a_lists_the_aliases_and_enter_opens_the_selected_resource() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    app.update(ctrl('a'));
    assert!(matches!(app.current_screen(), Some(Screen::Aliases(_))));
    let rows = kinformer::ui::screens::aliases::alias_rows(&app.resources, &app.user.aliases);
    let i = rows
        .iter()
        .position(|r| r.resource == "deployments.apps")
        .unwrap();
    for _ in 0..i {
        app.update(key('j'));
    }
    let fx = app.update(code(KeyCode::Enter));
    assert_eq!(opened(&fx)[0].1, "deployments");
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn shift_letters_sort_by_their_column_as_in_k9s() {
    let rows = vec![
        pod(PodSpec {
            name: "a",
            restarts: 5,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "b",
            restarts: 1,
            ..PodSpec::default()
        }),
        pod(PodSpec {
            name: "c",
            restarts: 9,
            ..PodSpec::default()
        }),
    ];
    let (mut app, v) = on("pods", rows);
    app.update(key('T'));
    assert_eq!(shown(&app, v), ["default/c", "default/a", "default/b"]);
    app.update(key('T'));
    assert_eq!(shown(&app, v), ["default/b", "default/a", "default/c"]);
    // A column the table lacks is named in the footer.
    let (mut app, _) = on("deployments", vec![workload("default", "web", None)]);
    app.update(key('I'));
    assert!(footer(&app).contains("no IP column"), "{}", footer(&app));
}

#[test]
fn an_invalid_regex_filter_shows_what_was_typed_not_applied_over_every_row() {
    let (mut app, v) = on(
        "pods",
        vec![
            simple_pod("default", "web-1"),
            simple_pod("default", "api-1"),
        ],
    );
    app.update(key('/'));
    type_str(&mut app, "~web(");
    let f = &app.views[&v].table.filters;
    assert_eq!(f.text_raw, "~web(");
    assert!(f.text_invalid);
    assert_eq!(
        shown(&app, v).len(),
        2,
        "not the rows of the last valid prefix"
    );
    assert!(footer(&app).contains("invalid regex"), "{}", footer(&app));
    // The error stays until the input changes; a valid pattern applies and clears it.
    type_str(&mut app, ")");
    let f = &app.views[&v].table.filters;
    assert!(!f.text_invalid);
    assert_eq!(shown(&app, v), ["default/web-1"]);
    assert!(!footer(&app).contains("invalid regex"), "{}", footer(&app));
}

#[test]
fn x_on_a_secret_opens_its_yaml_with_the_data_decoded() {
    let secret = object_with(Some("default"), "db-creds", serde_json::json!({}));
    let (mut app, _) = on("secrets", vec![secret]);
    let fx = app.update(key('x'));
    let Some(Effect::FetchYaml { request, .. }) = fx.first().cloned() else {
        panic!("{fx:?}")
    };
    app.update(Action::Yaml {
        request,
        result: Ok(serde_json::json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db-creds", "namespace": "default"},
            "data": {"password": "aHVudGVyMg=="}
        })),
    });
    let Some(Screen::Text(t)) = app.current_screen() else {
        panic!("{:?}", app.current_screen())
    };
    assert!(t.reveal);
    let text = t.lines.clone().unwrap().unwrap().join("\n");
    assert!(text.contains("hunter2"), "{text}");
    // On another kind it says what it is for.
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    assert!(app.update(key('x')).is_empty());
    assert!(
        footer(&app).contains("x decodes a Secret"),
        "{}",
        footer(&app)
    );
}

fn contexts() -> Vec<kinformer::ui::action::ContextRow> {
    ["demo", "prod-eu", "prod-us"]
        .iter()
        .map(|n| kinformer::ui::action::ContextRow {
            name: n.to_string(),
            cluster: format!("{n}-cluster"),
            user: format!("{n}-admin"),
            namespace: None,
        })
        .collect()
}

/// An app whose kubeconfig holds demo, prod-eu and prod-us, with `:ctx` open.
fn on_ctx_table() -> App {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    app.update(Action::Contexts(vec![
        "demo".into(),
        "prod-eu".into(),
        "prod-us".into(),
    ]));
    app.update(Action::ContextRows(contexts()));
    app.update(key(':'));
    type_str(&mut app, "ctx");
    app.update(code(KeyCode::Enter));
    app
}

#[test]
fn ctx_lists_the_contexts_and_enter_switches_to_the_selected_one() {
    let mut app = on_ctx_table();
    let Some(Screen::Contexts(v)) = app.current_screen() else {
        panic!("{:?}", app.current_screen())
    };
    assert_eq!(v.cursor, 0, "the current context (demo) is selected");
    app.update(key('j'));
    let fx = app.update(code(KeyCode::Enter));
    assert!(
        fx.contains(&Effect::SwitchContext("prod-eu".into())),
        "{fx:?}"
    );
    assert_eq!(app.connection.context, "prod-eu");
    assert!(matches!(app.current_screen(), Some(Screen::Table(_))));
}

#[test]
fn space_marks_several_contexts_and_enter_shows_them_together() {
    let mut app = on_ctx_table();
    app.update(key('j'));
    app.update(key(' ')); // prod-eu marked, cursor on prod-us
    app.update(key(' ')); // prod-us marked
    app.update(key('k'));
    let fx = app.update(code(KeyCode::Enter));
    assert!(
        fx.contains(&Effect::SwitchContext("prod-eu".into())),
        "{fx:?}"
    );
    assert!(
        fx.contains(&Effect::WatchCluster("prod-us".into())),
        "{fx:?}"
    );
    assert!(app.fleet.is_fleet());
}

#[test]
fn ctrl_w_shows_kubectls_wide_columns_and_labels_for_the_visible_rows_and_again_hides_them() {
    let obj: kube::api::DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "uid": "u-web",
                     "labels": {"app": "web"}, "creationTimestamp": "2026-01-01T00:00:00Z"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"spec": {"containers": [{"name": "web", "image": "web:1.5"}]}}},
        "status": {"readyReplicas": 2, "updatedReplicas": 2, "availableReplicas": 2}
    }))
    .unwrap();
    let row = ObjectSummary::from_object("Deployment", &Arc::new(obj), None).unwrap();
    let (mut app, v) = on("deployments", vec![row]);
    app.update(Action::Resize(200, 20));
    let before = screen_text(&app);
    assert!(!before.contains("IMAGES"), "{before}");
    app.update(ctrl('w'));
    let wide = screen_text(&app);
    for text in [
        "CONTAINERS",
        "IMAGES",
        "SELECTOR",
        "LABELS",
        "web:1.5",
        "app=web",
    ] {
        assert!(wide.contains(text), "{text} missing:\n{wide}");
    }
    assert!(footer(&app).contains("IMAGES"), "{}", footer(&app));
    // Rows and sort are untouched: the wide cells are read, not stored.
    assert_eq!(shown(&app, v), ["default/web"]);
    app.update(ctrl('w'));
    assert!(!screen_text(&app).contains("IMAGES"));
    assert_eq!(footer(&app), "wide columns off");
}

#[test]
fn u_on_a_configmap_or_secret_shows_the_pods_that_use_it_from_the_uses_index() {
    // (The test cluster serves no claims; the index files them the same way: render::prune.)
    for (plural, kind) in [("configmaps", "ConfigMap"), ("secrets", "Secret")] {
        let obj = object_with(Some("shop"), "web-config", serde_json::json!({}));
        let (mut app, _) = on(plural, vec![obj]);
        let fx = app.update(key('u'));
        assert!(!drills(&fx).is_empty(), "{plural}: {fx:?} {}", footer(&app));
        let (view, pods, drill) = drills(&fx)[0].clone();
        assert_eq!(pods, "pods");
        let want = format!("shop/{kind}/web-config");
        assert_eq!(drill, Some(Drill::Uses(want.as_str().into())));
        // The drill's relation, re-checked per row: a pod whose cached uses name it matches,
        // one in another namespace with the same name does not.
        let using = pod_using("shop", "web-1", &format!("{kind}/web-config,Secret/x"));
        let other_ns = pod_using("dev", "web-1", &format!("{kind}/web-config"));
        let Some(Drill::Uses(_)) = &app.views[&view].table.filters.drill else {
            panic!("no drill on the pods view")
        };
        let d = Drill::Uses(want.as_str().into());
        assert!(d.matches(&using));
        assert!(!d.matches(&other_ns));
    }
    // On a Deployment, u does nothing and says where it applies.
    let (mut app, _) = on("deployments", vec![workload("default", "web", None)]);
    assert!(drills(&app.update(key('u'))).is_empty());
    assert!(footer(&app).contains("u:"), "{}", footer(&app));
}

fn pod_using(ns: &str, name: &str, uses: &str) -> ObjectSummary {
    let mut p = simple_pod(ns, name);
    use kinformer::informer::cached::{PodRecord, pack_pod, pod_record};
    let mut obj = kinformer::render::prune("Pod", (*p.object).clone());
    let record = pod_record(&obj.data).expect("a pruned pod has a record");
    obj.data = pack_pod(&PodRecord { uses, ..record });
    p.object = Arc::new(obj);
    p
}

#[test]
fn a_sort_keys_first_press_orders_as_k9s_most_restarts_on_top_names_and_ages_ascending() {
    let spec = |name, restarts, age_secs| {
        pod(PodSpec {
            name,
            restarts,
            age_secs,
            ..PodSpec::default()
        })
    };
    let rows = vec![spec("a", 5, 300), spec("b", 1, 60), spec("c", 9, 600)];
    let (mut app, v) = on("pods", rows);
    // shift-t: the most restarts on top (k9s sorts RESTARTS descending first).
    app.update(key('T'));
    assert_eq!(shown(&app, v), ["default/c", "default/a", "default/b"]);
    assert!(app.views[&v].table.sort().1, "descending");
    // shift-a: the youngest on top (k9s's ascending AGE), whatever the order before.
    app.update(key('A'));
    assert_eq!(shown(&app, v), ["default/b", "default/a", "default/c"]);
    // shift-n: names ascending.
    app.update(key('T'));
    app.update(key('N'));
    assert_eq!(shown(&app, v), ["default/a", "default/b", "default/c"]);
    assert!(!app.views[&v].table.sort().1);
}

#[test]
fn a_narrow_header_shows_the_favourites_that_fit_and_says_how_many_more() {
    let (mut app, _) = on("pods", vec![simple_pod("default", "web-1")]);
    app.favourites = (1..=9).map(|i| format!("team-namespace-{i}")).collect();
    app.update(Action::Resize(100, 30));
    let text = screen_text(&app);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.contains("<0>all") && first.contains("<1>team-namespace-1"),
        "{first}"
    );
    let shown = (1..=9)
        .filter(|i| first.contains(&format!("<{i}>team-namespace-{i}")))
        .count();
    assert!(shown < 9, "{first}");
    assert!(first.contains(&format!("+{} more", 9 - shown)), "{first}");
    // Wide enough for all of them: no note.
    app.update(Action::Resize(300, 30));
    let text = screen_text(&app);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.contains("<9>team-namespace-9") && !first.contains("more"),
        "{first}"
    );
}
