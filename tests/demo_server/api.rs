//! List, watch, patch, fault and discovery semantics, as kube-apiserver answers them.

use super::*;

#[tokio::test]
async fn list_pages_with_continue_return_a_consistent_snapshot() {
    let env = env().await;
    let api = env.cms();
    for i in 0..25 {
        api.create(
            &PostParams::default(),
            &cm(&format!("cm-{i:02}"), json!({})),
        )
        .await
        .unwrap();
    }
    let mut names = Vec::new();
    let mut token: Option<String> = None;
    let mut pages = 0;
    loop {
        let mut lp = ListParams::default().limit(10);
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let page = api.list(&lp).await.unwrap();
        pages += 1;
        assert!(page.items.len() <= 10);
        names.extend(page.items.iter().filter_map(|c| c.metadata.name.clone()));
        token = page.metadata.continue_.filter(|c| !c.is_empty());
        if token.is_none() {
            break;
        }
        // Writes between pages must not show up: a continued list reads the first page's snapshot.
        if pages == 1 {
            api.create(&PostParams::default(), &cm("cm-99-late", json!({})))
                .await
                .unwrap();
            api.delete("cm-24", &DeleteParams::default()).await.unwrap();
        }
    }
    assert_eq!(pages, 3);
    let expected: Vec<String> = (0..25).map(|i| format!("cm-{i:02}")).collect();
    assert_eq!(names, expected);
    env.cleanup().await;
}

#[tokio::test]
async fn expired_continue_token_is_410_expired() {
    let Some(env) = demo_only(
        DemoOptions {
            history: 10,
            ..Default::default()
        },
        "expired_continue_token_is_410_expired",
    )
    .await
    else {
        return;
    };
    let api = env.cms();
    for i in 0..5 {
        api.create(&PostParams::default(), &cm(&format!("a{i}"), json!({})))
            .await
            .unwrap();
    }
    let page = api.list(&ListParams::default().limit(2)).await.unwrap();
    let token = page.metadata.continue_.unwrap();
    for i in 0..20 {
        api.create(&PostParams::default(), &cm(&format!("b{i}"), json!({})))
            .await
            .unwrap();
    }
    let err = api
        .list(&ListParams::default().limit(2).continue_token(&token))
        .await
        .unwrap_err();
    assert_eq!(api_code(&err), Some((410, "Expired".into())));
    env.cleanup().await;
}

#[tokio::test]
async fn watch_sends_periodic_bookmarks() {
    let Some(env) = demo_only(
        DemoOptions {
            bookmark_interval: Duration::from_millis(100),
            ..Default::default()
        },
        "watch_sends_periodic_bookmarks",
    )
    .await
    else {
        return;
    };
    let api = env.cms();
    let rv = list_rv(&api).await;
    let mut w = api
        .watch(&WatchParams::default().timeout(30), &rv)
        .await
        .unwrap()
        .boxed();
    api.create(&PostParams::default(), &cm("x", json!({})))
        .await
        .unwrap();
    // Bookmarks may come before the ADDED; after it, one must carry an rv at least as new.
    let mut created_rv = None;
    loop {
        match next_event(&mut w).await {
            WatchEvent::Added(o) => created_rv = o.metadata.resource_version.clone(),
            WatchEvent::Bookmark(b) => {
                let b: u64 = b.metadata.resource_version.parse().unwrap();
                assert!(b >= rv.parse::<u64>().unwrap());
                if let Some(c) = &created_rv {
                    assert!(b >= c.parse::<u64>().unwrap());
                    break;
                }
            }
            other => panic!("unexpected {:?}", name_of(&other)),
        }
    }
    env.cleanup().await;
}

#[tokio::test]
async fn watch_from_compacted_resource_version_is_410() {
    let Some(env) = demo_only(
        DemoOptions {
            history: 5,
            ..Default::default()
        },
        "watch_from_compacted_resource_version_is_410",
    )
    .await
    else {
        return;
    };
    let api = env.cms();
    let rv = list_rv(&api).await;
    for i in 0..10 {
        api.create(&PostParams::default(), &cm(&format!("c{i}"), json!({})))
            .await
            .unwrap();
    }
    let mut w = api
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();
    match next_event(&mut w).await {
        WatchEvent::Error(s) => {
            assert_eq!(s.code, 410);
            assert_eq!(s.reason, "Expired");
        }
        other => panic!("expected a 410 ERROR, got {:?}", name_of(&other)),
    }
    env.cleanup().await;
}

#[tokio::test]
async fn watch_from_resource_version_replays_every_change_in_order() {
    let env = env().await;
    let api = env.cms();
    let rv = list_rv(&api).await;
    api.create(&PostParams::default(), &cm("one", json!({})))
        .await
        .unwrap();
    api.create(&PostParams::default(), &cm("two", json!({})))
        .await
        .unwrap();
    api.delete("one", &DeleteParams::default()).await.unwrap();
    let mut w = api
        .watch(&WatchParams::default().timeout(60), &rv)
        .await
        .unwrap()
        .boxed();
    let mut seen = Vec::new();
    let mut last_rv = 0u64;
    for _ in 0..3 {
        let ev = next_event(&mut w).await;
        if let WatchEvent::Added(o) | WatchEvent::Deleted(o) = &ev {
            let r: u64 = o
                .metadata
                .resource_version
                .as_ref()
                .unwrap()
                .parse()
                .unwrap();
            assert!(r > last_rv, "resourceVersions increase");
            last_rv = r;
        }
        let (t, n) = name_of(&ev);
        seen.push(format!("{t} {n}"));
    }
    assert_eq!(seen, ["ADDED one", "ADDED two", "DELETED one"]);
    env.cleanup().await;
}

#[tokio::test]
async fn objects_entering_and_leaving_a_selector_are_added_and_deleted() {
    let env = env().await;
    let api = env.cms();
    let rv = list_rv(&api).await;
    let mut w = api
        .watch(&WatchParams::default().labels("app=web").timeout(60), &rv)
        .await
        .unwrap()
        .boxed();
    api.create(&PostParams::default(), &cm("s", json!({"app": "db"})))
        .await
        .unwrap();
    let pp = PatchParams::default();
    api.patch(
        "s",
        &pp,
        &Patch::Merge(json!({"metadata": {"labels": {"app": "web"}}})),
    )
    .await
    .unwrap();
    api.patch("s", &pp, &Patch::Merge(json!({"data": {"k": "changed"}})))
        .await
        .unwrap();
    api.patch(
        "s",
        &pp,
        &Patch::Merge(json!({"metadata": {"labels": {"app": "other"}}})),
    )
    .await
    .unwrap();
    let mut seen = Vec::new();
    for _ in 0..3 {
        let ev = next_event(&mut w).await;
        if let WatchEvent::Deleted(o) = &ev {
            // The DELETED object is the last state that matched.
            assert_eq!(o.metadata.labels.as_ref().unwrap()["app"], "web");
        }
        let (t, n) = name_of(&ev);
        seen.push(format!("{t} {n}"));
    }
    assert_eq!(seen, ["ADDED s", "MODIFIED s", "DELETED s"]);
    env.cleanup().await;
}

#[tokio::test]
async fn update_with_stale_resource_version_is_409_conflict() {
    let env = env().await;
    let api = env.cms();
    let created = api
        .create(&PostParams::default(), &cm("u", json!({})))
        .await
        .unwrap();
    let mut fresh = created.clone();
    fresh.data = Some([("k".to_string(), "new".to_string())].into());
    let updated = api
        .replace("u", &PostParams::default(), &fresh)
        .await
        .unwrap();
    assert_ne!(
        updated.metadata.resource_version,
        created.metadata.resource_version
    );
    let mut stale = created;
    stale.data = Some([("k".to_string(), "lost".to_string())].into());
    let err = api
        .replace("u", &PostParams::default(), &stale)
        .await
        .unwrap_err();
    assert_eq!(api_code(&err), Some((409, "Conflict".into())));
    assert_eq!(api.get("u").await.unwrap().data.unwrap()["k"], "new");
    env.cleanup().await;
}

#[tokio::test]
async fn merge_json_and_strategic_patches_apply() {
    let env = env().await;
    let api = env.cms();
    api.create(
        &PostParams::default(),
        &cm("p", json!({"a": "1", "b": "2"})),
    )
    .await
    .unwrap();
    let pp = PatchParams::default();
    let v = api
        .patch(
            "p",
            &pp,
            &Patch::Merge(json!({"metadata": {"labels": {"a": null, "c": "3"}}})),
        )
        .await
        .unwrap();
    let labels = v.metadata.labels.unwrap();
    assert_eq!(labels.len(), 2);
    assert_eq!(labels["c"], "3");
    let v = api
        .patch(
            "p",
            &pp,
            &Patch::<()>::Json(
                serde_json::from_value(json!([{"op": "add", "path": "/data/j", "value": "x"}]))
                    .unwrap(),
            ),
        )
        .await
        .unwrap();
    assert_eq!(v.data.unwrap()["j"], "x");
    let v = api
        .patch(
            "p",
            &pp,
            &Patch::Strategic(json!({"metadata": {"labels": {"s": "y"}}})),
        )
        .await
        .unwrap();
    let labels = v.metadata.labels.unwrap();
    assert_eq!((labels["b"].as_str(), labels["s"].as_str()), ("2", "y"));
    let err = api
        .patch(
            "p",
            &pp,
            &Patch::<()>::Json(
                serde_json::from_value(json!([{"op": "test", "path": "/data/k", "value": "nope"}]))
                    .unwrap(),
            ),
        )
        .await
        .unwrap_err();
    assert!(api_code(&err).is_some_and(|(c, _)| (400..500).contains(&c)));
    env.cleanup().await;
}

#[tokio::test]
async fn forbidden_fault_answers_403_for_one_kind_only() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "forbidden_fault_answers_403_for_one_kind_only",
    )
    .await
    else {
        return;
    };
    let faults = env.demo.as_ref().unwrap().faults();
    faults.forbid("", "configmaps");
    let err = env.cms().list(&ListParams::default()).await.unwrap_err();
    assert_eq!(api_code(&err), Some((403, "Forbidden".into())));
    let pods: Api<Pod> = Api::namespaced(env.client.clone(), &env.ns);
    assert!(pods.list(&ListParams::default()).await.is_ok());
    faults.allow("", "configmaps");
    assert!(env.cms().list(&ListParams::default()).await.is_ok());
    env.cleanup().await;
}

#[tokio::test]
async fn injected_errors_and_gone_answer_once_then_recover() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "injected_errors_and_gone_answer_once_then_recover",
    )
    .await
    else {
        return;
    };
    let faults = env.demo.as_ref().unwrap().faults();
    let api = env.cms();
    // kube's client retries a 429 (with Retry-After) by itself: two requests, one success.
    let before = faults.request_count();
    faults.fail_next(429, 1);
    assert!(api.list(&ListParams::default()).await.is_ok());
    assert_eq!(faults.request_count() - before, 2);
    faults.fail_next(500, 1);
    let err = api.list(&ListParams::default()).await.unwrap_err();
    assert_eq!(api_code(&err), Some((500, "InternalError".into())));
    faults.gone_next_list();
    let err = api.list(&ListParams::default()).await.unwrap_err();
    assert_eq!(api_code(&err), Some((410, "Expired".into())));
    faults.gone_next_watch();
    let mut w = api
        .watch(&WatchParams::default(), "0")
        .await
        .unwrap()
        .boxed();
    assert_eq!(
        name_of(&next_event(&mut w).await),
        ("ERROR", "Expired".into())
    );
    assert!(api.list(&ListParams::default()).await.is_ok());
    env.cleanup().await;
}

#[tokio::test]
async fn dropped_watch_ends_and_restart_keeps_state_on_the_same_port() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "dropped_watch_ends_and_restart_keeps_state_on_the_same_port",
    )
    .await
    else {
        return;
    };
    let h = env.demo.as_ref().unwrap();
    let api = env.cms();
    api.create(&PostParams::default(), &cm("keep", json!({})))
        .await
        .unwrap();
    let rv = list_rv(&api).await;
    let mut w = api
        .watch(&WatchParams::default(), &rv)
        .await
        .unwrap()
        .boxed();
    h.faults().drop_watches();
    let end = tokio::time::timeout(HANG_GUARD, w.next()).await.unwrap();
    assert!(end.is_none(), "the watch must end when watches are dropped");
    let addr = h.addr();
    assert!(h.faults().restart(Duration::from_millis(200)));
    let mut got = None;
    for _ in 0..200 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if let Ok(c) = api.get("keep").await {
            got = Some(c);
            break;
        }
    }
    assert!(got.is_some(), "the restarted server serves the old state");
    assert_eq!(h.addr(), addr);
    assert_eq!(list_rv(&api).await, rv);
    env.cleanup().await;
}

#[tokio::test]
async fn streaming_list_ends_with_initial_events_end_bookmark() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "streaming_list_ends_with_initial_events_end_bookmark",
    )
    .await
    else {
        return;
    };
    let api = env.cms();
    for i in 0..3 {
        api.create(&PostParams::default(), &cm(&format!("i{i}"), json!({})))
            .await
            .unwrap();
    }
    let mut w = api
        .watch(&WatchParams::streaming_lists().timeout(30), "")
        .await
        .unwrap()
        .boxed();
    let mut added = Vec::new();
    loop {
        match next_event(&mut w).await {
            WatchEvent::Added(o) => added.push(o.metadata.name.unwrap()),
            WatchEvent::Bookmark(b) => {
                assert_eq!(
                    b.metadata
                        .annotations
                        .get("k8s.io/initial-events-end")
                        .map(String::as_str),
                    Some("true")
                );
                break;
            }
            other => panic!("unexpected {:?}", name_of(&other)),
        }
    }
    assert_eq!(added, ["i0", "i1", "i2"]);
    env.cleanup().await;
}

#[tokio::test]
async fn discovery_lists_every_served_kind() {
    let env = env().await;
    let d = kube::discovery::Discovery::new(env.client.clone())
        .run()
        .await
        .unwrap();
    let mut kinds = Vec::new();
    for g in d.groups() {
        for (ar, caps) in g.recommended_resources() {
            kinds.push((
                ar.kind.clone(),
                caps.scope == kube::discovery::Scope::Namespaced,
            ));
        }
    }
    for (kind, namespaced) in [
        ("Pod", true),
        ("Namespace", false),
        ("Node", false),
        ("Deployment", true),
        ("ReplicaSet", true),
        ("StatefulSet", true),
        ("DaemonSet", true),
        ("Job", true),
        ("ConfigMap", true),
        ("Secret", true),
        ("Service", true),
        ("Event", true),
        ("ServiceAccount", true),
        ("CustomResourceDefinition", false),
        ("CronJob", true),
        ("PersistentVolumeClaim", true),
        ("PersistentVolume", false),
        ("Ingress", true),
        ("HorizontalPodAutoscaler", true),
        ("Role", true),
        ("ClusterRoleBinding", false),
        ("EndpointSlice", true),
        ("PriorityClass", false),
    ] {
        assert!(
            kinds.contains(&(kind.to_string(), namespaced)),
            "{kind} missing from discovery"
        );
    }
    if env.demo.is_some() {
        assert!(kinds.contains(&("Widget".to_string(), true)));
    }
    env.cleanup().await;
}

#[tokio::test]
async fn bad_requests_get_4xx_status_objects() {
    let env = env().await;
    let api = env.cms();
    let err = api
        .list(&ListParams::default().labels("a in (b"))
        .await
        .unwrap_err();
    assert_eq!(api_code(&err), Some((400, "BadRequest".into())));
    let err = api
        .list(&ListParams::default().fields("no.such.field=x"))
        .await
        .unwrap_err();
    assert_eq!(api_code(&err).map(|c| c.0), Some(400));
    let req = http::Request::post(format!("/api/v1/namespaces/{}/configmaps", env.ns))
        .header("content-type", "application/json")
        .body(b"{not json".to_vec())
        .unwrap();
    let err = env.client.request::<ConfigMap>(req).await.unwrap_err();
    assert_eq!(api_code(&err).map(|c| c.0), Some(400));
    let req = http::Request::get("/api/v1/nosuchthings")
        .body(Vec::new())
        .unwrap();
    let err = env
        .client
        .request::<serde_json::Value>(req)
        .await
        .unwrap_err();
    assert_eq!(api_code(&err), Some((404, "NotFound".into())));
    let err = api.get("missing").await.unwrap_err();
    assert_eq!(api_code(&err), Some((404, "NotFound".into())));
    api.create(&PostParams::default(), &cm("dup", json!({})))
        .await
        .unwrap();
    let err = api
        .create(&PostParams::default(), &cm("dup", json!({})))
        .await
        .unwrap_err();
    assert_eq!(api_code(&err), Some((409, "AlreadyExists".into())));
    env.cleanup().await;
}

#[tokio::test]
async fn pod_field_selectors_filter_on_node_and_phase() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "pod_field_selectors_filter_on_node_and_phase",
    )
    .await
    else {
        return;
    };
    // Pods are written through the cluster (as the simulator does): status is server-owned.
    let cluster = env.demo.as_ref().unwrap().cluster();
    let pods = ResourceId::new("", "v1", "pods");
    for (i, (node, phase)) in [("n1", "Running"), ("n1", "Pending"), ("n2", "Running")]
        .iter()
        .enumerate()
    {
        cluster
            .apply(Mutation::Create {
                resource: pods,
                object: pod(&env.ns, &format!("p{i}"), node, phase),
            })
            .unwrap();
    }
    let api: Api<Pod> = Api::namespaced(env.client.clone(), &env.ns);
    let names = |l: kube::core::ObjectList<Pod>| -> Vec<String> {
        l.items
            .into_iter()
            .filter_map(|p| p.metadata.name)
            .collect()
    };
    let l = api
        .list(&ListParams::default().fields("spec.nodeName=n1,status.phase!=Pending"))
        .await
        .unwrap();
    assert_eq!(names(l), ["p0"]);
    let l = api
        .list(&ListParams::default().fields("status.phase=Running"))
        .await
        .unwrap();
    assert_eq!(names(l), ["p0", "p2"]);
    env.cleanup().await;
}

#[tokio::test]
async fn large_list_streams_every_pod() {
    let Some(env) = demo_only(DemoOptions::default(), "large_list_streams_every_pod").await else {
        return;
    };
    let cluster = env.demo.as_ref().unwrap().cluster();
    let pods = ResourceId::new("", "v1", "pods");
    for i in 0..20_000 {
        cluster
            .apply(Mutation::Create {
                resource: pods,
                object: pod(&env.ns, &format!("p{i:05}"), "n1", "Running"),
            })
            .unwrap();
    }
    let api: Api<Pod> = Api::namespaced(env.client.clone(), &env.ns);
    let all = api.list(&ListParams::default()).await.unwrap();
    assert_eq!(all.items.len(), 20_000);
    let mut paged = 0;
    let mut token: Option<String> = None;
    loop {
        let mut lp = ListParams::default().limit(5000).labels("app=big");
        if let Some(t) = &token {
            lp = lp.continue_token(t);
        }
        let page = api.list(&lp).await.unwrap();
        paged += page.items.len();
        token = page.metadata.continue_;
        if token.is_none() {
            break;
        }
    }
    assert_eq!(paged, 20_000);
    env.cleanup().await;
}

#[tokio::test]
async fn admin_endpoint_arms_faults_over_http() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "admin_endpoint_arms_faults_over_http",
    )
    .await
    else {
        return;
    };
    let post = |path: &str| {
        http::Request::post(path.to_string())
            .body(Vec::new())
            .unwrap()
    };
    env.client
        .request_text(post("/_demo/faults/forbid?resource=configmaps"))
        .await
        .unwrap();
    let err = env.cms().list(&ListParams::default()).await.unwrap_err();
    assert_eq!(api_code(&err), Some((403, "Forbidden".into())));
    env.client
        .request_text(post("/_demo/faults/clear"))
        .await
        .unwrap();
    assert!(env.cms().list(&ListParams::default()).await.is_ok());
    let err = env
        .client
        .request_text(post("/_demo/faults/no-such-fault"))
        .await
        .unwrap_err();
    assert_eq!(api_code(&err).map(|c| c.0), Some(404));
    env.cleanup().await;
}

#[tokio::test]
async fn watch_ends_after_timeout_seconds() {
    let env = env().await;
    let api = env.cms();
    let rv = list_rv(&api).await;
    let mut w = api
        .watch(&WatchParams::default().timeout(1).disable_bookmarks(), &rv)
        .await
        .unwrap()
        .boxed();
    let end = tokio::time::timeout(HANG_GUARD, w.next()).await.unwrap();
    assert!(
        end.is_none(),
        "the server closes the watch at timeoutSeconds"
    );
    env.cleanup().await;
}

#[tokio::test]
async fn resource_version_match_exact_and_not_older_than() {
    use kube::api::VersionMatch;
    let env = env().await;
    let api = env.cms();
    api.create(&PostParams::default(), &cm("old", json!({})))
        .await
        .unwrap();
    let then = list_rv(&api).await;
    api.create(&PostParams::default(), &cm("new", json!({})))
        .await
        .unwrap();
    let exact = api
        .list(
            &ListParams::default()
                .at(&then)
                .matching(VersionMatch::Exact),
        )
        .await
        .unwrap();
    assert_eq!(
        exact.metadata.resource_version.as_deref(),
        Some(then.as_str())
    );
    let names: Vec<_> = exact
        .items
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    assert_eq!(names, ["old"]);
    let newer = api
        .list(
            &ListParams::default()
                .at(&then)
                .matching(VersionMatch::NotOlderThan),
        )
        .await
        .unwrap();
    assert_eq!(newer.items.len(), 2);
    env.cleanup().await;
}

/// One raw HTTP/1.1 GET (no client retries): (status code, body).
async fn raw_get(addr: std::net::SocketAddr, path: &str) -> (u16, serde_json::Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut buf = Vec::new();
    tokio::time::timeout(HANG_GUARD, s.read_to_end(&mut buf))
        .await
        .unwrap()
        .unwrap();
    let split = buf
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(buf.len());
    let head = String::from_utf8_lossy(&buf[..split]).to_ascii_lowercase();
    let code = head[9..12].parse().unwrap();
    let mut body = buf.get(split + 4..).unwrap_or_default().to_vec();
    if head.contains("transfer-encoding: chunked") {
        // Streamed answers (lists, watches) come chunked.
        let mut out = Vec::new();
        let mut rest = &body[..];
        while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
            let size = usize::from_str_radix(std::str::from_utf8(&rest[..eol]).unwrap().trim(), 16)
                .unwrap();
            if size == 0 {
                break;
            }
            out.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
            rest = &rest[eol + 2 + size + 2..];
        }
        body = out;
    }
    // A watch answers one JSON value per line: the first one.
    let first = serde_json::Deserializer::from_slice(&body)
        .into_iter::<serde_json::Value>()
        .next()
        .and_then(Result::ok);
    (code, first.unwrap_or(serde_json::Value::Null))
}

#[tokio::test]
async fn too_large_resource_version_is_504_with_a_cause() {
    // kube's client retries 504s with a long backoff, so this one goes over a raw socket.
    let Some(env) = demo_only(
        DemoOptions::default(),
        "too_large_resource_version_is_504_with_a_cause",
    )
    .await
    else {
        return;
    };
    let addr = env.demo.as_ref().unwrap().addr();
    let (code, status) = raw_get(
        addr,
        &format!(
            "/api/v1/namespaces/{}/configmaps?resourceVersion=999999999&resourceVersionMatch=NotOlderThan",
            env.ns
        ),
    )
    .await;
    assert_eq!(code, 504);
    assert_eq!(status["reason"], "Timeout");
    // storage's `NewTooLargeResourceVersionError` through apimachinery's `NewTimeoutError`.
    let current = env.demo.as_ref().unwrap().cluster().resource_version();
    assert_eq!(
        status["message"],
        format!("Timeout: Too large resource version: 999999999, current: {current}")
    );
    assert_eq!(
        status["details"]["causes"][0]["reason"],
        "ResourceVersionTooLarge"
    );
    assert_eq!(
        status["details"]["causes"][0]["message"],
        "Too large resource version"
    );
    assert_eq!(status["details"]["retryAfterSeconds"], 1);
    let (code, status) = raw_get(
        addr,
        &format!(
            "/api/v1/namespaces/{}/configmaps?resourceVersionMatch=Exact",
            env.ns
        ),
    )
    .await;
    // apimachinery's ValidateListOptions, answered as `NewInvalid(meta.k8s.io ListOptions)`.
    assert_eq!((code, status["reason"].as_str()), (422, Some("Invalid")));
    assert_eq!(
        status["message"],
        "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
    );
    assert_eq!(
        status["details"]["causes"][0]["reason"],
        "FieldValueForbidden"
    );
    env.cleanup().await;
}

/// A `NotOlderThan` list at an RV the server has not reached waits for it (kube-apiserver's
/// `waitUntilFreshAndBlock`, up to 3 s) and is answered once the revision passes it.
#[tokio::test]
async fn a_not_older_than_list_from_the_future_is_answered_once_the_revision_passes_it() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "a_not_older_than_list_from_the_future_is_answered_once_the_revision_passes_it",
    )
    .await
    else {
        return;
    };
    let demo = env.demo.as_ref().unwrap();
    let (addr, faults, cluster) = (demo.addr(), demo.faults(), demo.cluster());
    let ahead = cluster.resource_version() + 2;
    let before = faults.request_count();
    let ns = env.ns.clone();
    let writer = tokio::spawn(async move {
        // Only once the list is in the server, waiting.
        while faults.request_count() == before {
            tokio::task::yield_now().await;
        }
        for name in ["w1", "w2"] {
            cluster
                .apply(Mutation::Create {
                    resource: ResourceId {
                        group: "",
                        version: "v1",
                        plural: "configmaps",
                    },
                    object: json!({"apiVersion": "v1", "kind": "ConfigMap",
                                   "metadata": {"name": name, "namespace": ns}}),
                })
                .unwrap();
        }
    });
    let (code, list) = raw_get(
        addr,
        &format!(
            "/api/v1/namespaces/{}/configmaps?resourceVersion={ahead}&resourceVersionMatch=NotOlderThan",
            env.ns
        ),
    )
    .await;
    writer.await.unwrap();
    assert_eq!(code, 200, "{list}");
    let rv: u64 = list["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(rv >= ahead, "{rv} < {ahead}");
    env.cleanup().await;
}

/// `limit=1` without a resourceVersion is a consistent read that says the current RV and how
/// many objects follow (`remainingItemCount`, sent when nothing filters the list).
#[tokio::test]
async fn a_limit_1_consistent_read_says_the_rv_and_the_remaining_count() {
    let env = env().await;
    let api = env.cms();
    for i in 0..4 {
        api.create(&PostParams::default(), &cm(&format!("r{i}"), json!({})))
            .await
            .unwrap();
    }
    let page = api.list(&ListParams::default().limit(1)).await.unwrap();
    assert_eq!(page.items.len(), 1);
    assert!(page.metadata.resource_version.is_some());
    // The namespace may hold the cluster's own configmaps (kube-root-ca.crt on a real one).
    let all = api.list(&ListParams::default()).await.unwrap().items.len() as i64;
    assert_eq!(page.metadata.remaining_item_count, Some(all - 1));
    env.cleanup().await;
}

/// kube-apiserver's list semantics (cacher `shouldDelegateList`): RV "0" is answered whole by the
/// watch cache whatever the limit; an RV with a limit and no match is an exact read of that RV;
/// an RV without a limit, or with `NotOlderThan`, is at least as new; "" pages.
#[tokio::test]
async fn list_semantics_follow_the_watch_cache_and_etcd_rules() {
    let env = env().await;
    let api = env.cms();
    for i in 0..5 {
        api.create(&PostParams::default(), &cm(&format!("a{i}"), json!({})))
            .await
            .unwrap();
    }
    let then = list_rv(&api).await;
    api.create(&PostParams::default(), &cm("later", json!({})))
        .await
        .unwrap();
    // RV "0" with a limit: whole, no continue (a watch cache ignores the limit). kube drops
    // RV "0" when a limit is set, so this one goes over a raw socket (demo only).
    if let Some(demo) = &env.demo {
        let (code, any) = raw_get(
            demo.addr(),
            &format!(
                "/api/v1/namespaces/{}/configmaps?limit=2&resourceVersion=0",
                env.ns
            ),
        )
        .await;
        assert_eq!(code, 200);
        assert_eq!(any["items"].as_array().map(Vec::len), Some(6));
        assert!(any["metadata"]["continue"].is_null());
    }
    // RV "" with a limit: a consistent read, paged.
    let consistent = api.list(&ListParams::default().limit(2)).await.unwrap();
    assert_eq!(consistent.items.len(), 2);
    assert!(consistent.metadata.continue_.is_some());
    // RV N with a limit and no match: the exact state at N (the legacy exact read).
    let exact = api
        .list(&ListParams::default().limit(10).at(&then))
        .await
        .unwrap();
    assert_eq!(
        exact.metadata.resource_version.as_deref(),
        Some(then.as_str())
    );
    assert_eq!(exact.items.len(), 5);
    // RV N without a limit: at least as new (the watch cache's current state).
    let fresh = api.list(&ListParams::default().at(&then)).await.unwrap();
    assert_eq!(fresh.items.len(), 6);
    assert_ne!(
        fresh.metadata.resource_version.as_deref(),
        Some(then.as_str())
    );
    env.cleanup().await;
}

/// An API server restart keeps etcd but starts a new watch cache at the current revision:
/// watches from older RVs get 410 while exact lists at those RVs still succeed.
#[tokio::test]
async fn restart_starts_a_new_watch_cache_at_the_current_revision() {
    let Some(env) = demo_only(
        DemoOptions::default(),
        "restart_starts_a_new_watch_cache_at_the_current_revision",
    )
    .await
    else {
        return;
    };
    let api = env.cms();
    api.create(&PostParams::default(), &cm("before", json!({})))
        .await
        .unwrap();
    let old = list_rv(&api).await;
    let demo = env.demo.as_ref().unwrap();
    assert!(demo.faults().restart(Duration::from_millis(100)));
    // A write while the server is down (straight to the store, as another API server would).
    let cluster = demo.cluster();
    cluster
        .apply(Mutation::Create {
            resource: ResourceId::new("", "v1", "configmaps"),
            object: json!({"apiVersion": "v1", "kind": "ConfigMap",
                "metadata": {"name": "after", "namespace": env.ns}}),
        })
        .unwrap();
    let guard = std::time::Instant::now() + Duration::from_secs(10);
    while cluster.watch_cache_resource_version() <= old.parse::<u64>().unwrap() {
        assert!(std::time::Instant::now() < guard, "server did not restart");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let addr = demo.addr();
    let (code, body) = raw_get(
        addr,
        &format!(
            "/api/v1/namespaces/{}/configmaps?watch=true&resourceVersion={old}&timeoutSeconds=1",
            env.ns
        ),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(body["type"], "ERROR");
    assert_eq!(body["object"]["code"], 410);
    let exact = api
        .list(&ListParams::default().limit(10).at(&old))
        .await
        .unwrap();
    assert_eq!(exact.items.len(), 1);
    env.cleanup().await;
}

/// An API server whose etcd lacks RequestWatchProgress refuses streaming lists with a 500 ERROR
/// event.
#[tokio::test]
async fn watch_list_unsupported_refuses_streaming_lists() {
    let Some(env) = demo_only(
        DemoOptions {
            watch_list_unsupported: true,
            ..DemoOptions::default()
        },
        "watch_list_unsupported_refuses_streaming_lists",
    )
    .await
    else {
        return;
    };
    let (code, body) = raw_get(
        env.demo.as_ref().unwrap().addr(),
        &format!(
            "/api/v1/namespaces/{}/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1",
            env.ns
        ),
    )
    .await;
    assert_eq!(code, 200);
    assert_eq!(body["type"], "ERROR");
    assert_eq!(body["object"]["code"], 500);
    assert!(
        body["object"]["message"]
            .as_str()
            .unwrap()
            .contains("RequestWatchProgress is disabled")
    );
    env.cleanup().await;
}

/// After a restart whose watch cache rebuilds, the demo answers lists and watches as
/// kube-apiserver does meanwhile: 429, reason `TooManyRequests`, message `storage is
/// (re)initializing`, `retryAfterSeconds: 1` and `Retry-After: 1`; `/readyz` answers; then the
/// cache is ready and lists are served.
#[tokio::test]
async fn a_rebuilding_watch_cache_answers_429_storage_is_reinitializing() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let handle = DemoServer::start(DemoOptions::default()).await.unwrap();
    let addr = handle.addr();
    let get = |path: &'static str| async move {
        let mut s = tokio::net::TcpStream::connect(addr).await?;
        let req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes()).await?;
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).await?;
        Ok::<String, std::io::Error>(String::from_utf8_lossy(&buf).into_owned())
    };
    assert!(
        handle
            .faults()
            .restart_with_cache_rebuild(Duration::from_millis(200), Duration::from_secs(2))
    );
    let guard = tokio::time::Instant::now() + HANG_GUARD;
    let answer = loop {
        if let Ok(a) = get("/api/v1/namespaces/default/configmaps").await {
            break a;
        }
        assert!(tokio::time::Instant::now() < guard, "never back");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(answer.starts_with("HTTP/1.1 429"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("\r\nretry-after: 1\r\n"),
        "{answer}"
    );
    let body: serde_json::Value =
        serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap()).unwrap();
    assert_eq!(body["reason"], "TooManyRequests");
    assert_eq!(body["message"], "storage is (re)initializing");
    assert_eq!(body["details"]["retryAfterSeconds"], 1);
    assert_eq!(body["code"], 429);
    assert!(get("/readyz").await.unwrap().starts_with("HTTP/1.1 200"));
    tokio::time::sleep(Duration::from_secs(2)).await;
    let served = get("/api/v1/namespaces/default/configmaps").await.unwrap();
    assert!(served.starts_with("HTTP/1.1 200"), "{served}");
    handle.shutdown().await;
}
