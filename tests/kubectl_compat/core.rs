//! kubectl get, label, create, apply, scale, errors, restarts, force deletes, cascades, cordon and drain.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_gets_labels_deletes_and_watches_pods() {
    let Some(s) = setup("kubectl_gets_labels_deletes_and_watches_pods").await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    for name in ["web-a", "web-b"] {
        let out = k
            .ok(&[
                "run",
                name,
                "--image=registry.k8s.io/pause:3.10",
                "--restart=Never",
                "-n",
                ns,
            ])
            .await;
        assert_eq!(out.trim(), format!("pod/{name} created"));
    }

    // get pods -A: a table with the namespace column and both pods.
    let out = k.ok(&["get", "pods", "-A"]).await;
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    assert_eq!(
        header,
        ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    );
    let ours: Vec<Vec<&str>> = lines
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|cols| cols.first() == Some(&ns))
        .collect();
    let names: Vec<&str> = ours.iter().map(|c| c[1]).collect();
    assert_eq!(names, ["web-a", "web-b"]);
    assert!(ours.iter().all(|c| c[2] == "0/1" || c[2] == "1/1"), "{out}");

    // get po/NAME -o yaml shows the object as stored.
    let out = k.ok(&["get", "po/web-a", "-n", ns, "-o", "yaml"]).await;
    assert!(out.contains("kind: Pod"), "{out}");
    assert!(out.contains("name: web-a"), "{out}");
    assert!(out.contains("resourceVersion:"), "{out}");

    // A watch-only session sees the label change and the deletion, and nothing before them.
    let mut watch = k
        .command(&["get", "pods", "-n", ns, "--watch-only", "-o", "name"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = watch.stdout.take().unwrap();
    // Give the watch time to be established before writing (a guard, not a timing assertion:
    // events after the watch's resourceVersion are delivered whenever it starts).
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let out = k
        .ok(&["label", "pod", "web-a", "tier=frontend", "-n", ns])
        .await;
    assert_eq!(out.trim(), "pod/web-a labeled");
    let out = k
        .ok(&["get", "pods", "-n", ns, "-l", "tier=frontend", "-o", "name"])
        .await;
    assert_eq!(out.trim(), "pod/web-a");
    let out = k
        .ok(&[
            "get",
            "pods",
            "-n",
            ns,
            "-l",
            "tier notin (frontend)",
            "-o",
            "name",
        ])
        .await;
    assert_eq!(out.trim(), "pod/web-b");

    let out = k
        .ok(&["delete", "pod", "web-b", "-n", ns, "--wait=false"])
        .await;
    assert_eq!(out.trim(), "pod \"web-b\" deleted");

    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    let mut buf = [0u8; 4096];
    while !(seen.contains("pod/web-a") && seen.contains("pod/web-b")) {
        let n = tokio::time::timeout_at(deadline, stdout.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("watch-only output so far: {seen:?}"))
            .unwrap();
        if n == 0 {
            break;
        }
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    let _ = watch.kill().await;
    if s.demo.is_some() {
        // Nothing else touches these pods on the demo (a real kubelet would update their status).
        let first = seen.lines().next().unwrap_or("");
        assert_eq!(
            first, "pod/web-a",
            "the first watch line is the label change: {seen:?}"
        );
    }
    assert!(seen.lines().any(|l| l == "pod/web-a"), "{seen:?}");
    assert!(seen.lines().any(|l| l == "pod/web-b"), "{seen:?}");

    let out = k.ok(&["get", "pods", "-n", ns, "-o", "name"]).await;
    if s.demo.is_some() {
        // An unscheduled pod has nothing to stop and goes at once (a real cluster's scheduler
        // would have bound it meanwhile, so it would still be Terminating there).
        assert_eq!(out.trim(), "pod/web-a");
    }
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_creates_applies_and_scales() {
    let Some(s) = setup("kubectl_creates_applies_and_scales").await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let out = k
        .ok(&["create", "configmap", "cfg", "-n", ns, "--from-literal=a=b"])
        .await;
    assert_eq!(out.trim(), "configmap/cfg created");
    let out = k
        .ok(&[
            "get",
            "configmap",
            "cfg",
            "-n",
            ns,
            "-o",
            "jsonpath={.data.a}",
        ])
        .await;
    assert_eq!(out, "b");
    let manifest = s.dir.path().join("deploy.yaml");
    let deploy = |replicas: u32| deployment_yaml(ns, "web", replicas, PAUSE);
    let path = manifest.to_str().unwrap();
    std::fs::write(&manifest, deploy(1)).unwrap();
    assert_eq!(
        k.ok(&["apply", "-f", path]).await.trim(),
        "deployment.apps/web created"
    );
    std::fs::write(&manifest, deploy(2)).unwrap();
    assert_eq!(
        k.ok(&["apply", "-f", path]).await.trim(),
        "deployment.apps/web configured"
    );
    let out = k
        .ok(&["scale", "deployment", "web", "-n", ns, "--replicas=3"])
        .await;
    assert_eq!(out.trim(), "deployment.apps/web scaled");
    let out = k
        .ok(&[
            "get",
            "deploy",
            "web",
            "-n",
            ns,
            "-o",
            "jsonpath={.spec.replicas}",
        ])
        .await;
    assert_eq!(out, "3");
    let out = k.ok(&["get", "deploy", "-n", ns]).await;
    let header: Vec<&str> = out
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(header, ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"]);
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reports_server_errors() {
    let Some(s) = setup("kubectl_reports_server_errors").await else {
        return;
    };
    let k = &s.kubectl;
    let (ok, _, err) = k.run(&["get", "pod", "nope", "-n", &s.ns]).await;
    assert!(!ok);
    assert!(
        err.contains("Error from server (NotFound): pods \"nope\" not found"),
        "{err}"
    );
    let (ok, _, err) = k.run(&["get", "pods", "-n", &s.ns, "-l", "a in (b"]).await;
    assert!(!ok);
    assert!(
        err.contains("BadRequest") || err.contains("unable to parse"),
        "{err}"
    );
    let (ok, _, err) = k.run(&["get", "nosuchkind"]).await;
    assert!(!ok);
    assert!(
        err.contains("the server doesn't have a resource type \"nosuchkind\""),
        "{err}"
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_restarts_rollouts_and_force_deletes_pods() {
    let Some(s) = setup("kubectl_restarts_rollouts_and_force_deletes_pods").await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    k.apply_stdin(&deployment_yaml(ns, "web", 1, PAUSE)).await;
    let out = k
        .ok(&["rollout", "restart", "deployment/web", "-n", ns])
        .await;
    assert_eq!(out.trim(), "deployment.apps/web restarted");
    let out = k
        .ok(&[
            "get",
            "deploy",
            "web",
            "-n",
            ns,
            "-o",
            "jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}",
        ])
        .await;
    assert!(
        out.len() >= 20 && out.contains('T'),
        "restartedAt is an RFC 3339 time: {out:?}"
    );
    // The template's labels survive the strategic-merge patch.
    let out = k
        .ok(&[
            "get",
            "deploy",
            "web",
            "-n",
            ns,
            "-o",
            "jsonpath={.spec.template.metadata.labels.app}",
        ])
        .await;
    assert_eq!(out, "web");

    k.ok(&[
        "run",
        "victim",
        "--image=registry.k8s.io/pause:3.10",
        "--restart=Never",
        "-n",
        ns,
    ])
    .await;
    let (ok, out, err) = k
        .run(&[
            "delete",
            "pod",
            "victim",
            "-n",
            ns,
            "--grace-period=0",
            "--force",
        ])
        .await;
    assert!(ok, "{err}{out}");
    assert!(out.contains("pod \"victim\" force deleted"), "{out}");
    assert!(err.contains("Immediate deletion"), "{err}");
    s.cleanup().await;
}

/// Graceful deletion: a pod bound to a node is Terminating for its grace period, a forced delete
/// removes it at once, and deleting a Deployment removes its ReplicaSets and their pods (the
/// background cascade). The pods are bound to the demo's `node-1`: on a real cluster no kubelet
/// would confirm their deletion, so this runs on the demo only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_shows_terminating_force_deletes_and_cascades_a_deployment_delete() {
    let test = "kubectl_shows_terminating_force_deletes_and_cascades_a_deployment_delete";
    if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        println!("skipping {test}: its pods are bound to the demo's node-1 (no real kubelet)");
        return;
    }
    let Some(s) = setup(test).await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    running_pod(k, ns, "slow", 30, false).await;
    let out = k
        .ok(&[
            "delete",
            "pod",
            "slow",
            "-n",
            ns,
            "--grace-period=600",
            "--wait=false",
        ])
        .await;
    assert_eq!(out.trim(), "pod \"slow\" deleted");
    let out = k.ok(&["get", "pods", "-n", ns, "--no-headers"]).await;
    let cols: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(
        cols.get(..3),
        Some(&["slow", "1/1", "Terminating"][..]),
        "{out}"
    );
    let (ok, out, err) = k
        .run(&[
            "delete",
            "pod",
            "slow",
            "-n",
            ns,
            "--grace-period=0",
            "--force",
        ])
        .await;
    assert!(ok, "{err}{out}");
    assert!(out.contains("pod \"slow\" force deleted"), "{out}");
    let (_, out, err) = k.run(&["get", "pods", "-n", ns]).await;
    assert!(
        out.is_empty() && err.contains("No resources found"),
        "{out}{err}"
    );

    k.apply_stdin(&deployment_yaml(ns, "web", 1, PAUSE)).await;
    let uid = k
        .ok(&[
            "get",
            "deploy",
            "web",
            "-n",
            ns,
            "-o",
            "jsonpath={.metadata.uid}",
        ])
        .await;
    k.apply_stdin(&format!(
        "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: web-1\n  namespace: {ns}\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: Deployment\n    name: web\n    uid: {uid}\n    controller: true\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: c\n        image: registry.k8s.io/pause:3.10\n"
    ))
    .await;
    let rs_uid = k
        .ok(&[
            "get",
            "rs",
            "web-1",
            "-n",
            ns,
            "-o",
            "jsonpath={.metadata.uid}",
        ])
        .await;
    k.apply_stdin(&format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1-a\n  namespace: {ns}\n  labels:\n    app: web\n  ownerReferences:\n  - apiVersion: apps/v1\n    kind: ReplicaSet\n    name: web-1\n    uid: {rs_uid}\n    controller: true\nspec:\n  nodeName: node-1\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n"
    ))
    .await;
    let out = k.ok(&["delete", "deploy", "web", "-n", ns]).await;
    assert_eq!(out.trim(), "deployment.apps \"web\" deleted");
    let (_, out, err) = k.run(&["get", "rs", "-n", ns]).await;
    assert!(
        out.is_empty() && err.contains("No resources found"),
        "the ReplicaSet follows its Deployment: {out}{err}"
    );
    // The pod goes through its one-second grace period.
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    loop {
        let (_, out, err) = k.run(&["get", "pods", "-n", ns]).await;
        if out.is_empty() && err.contains("No resources found") {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the ReplicaSet's pod is still there: {out}{err}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    s.cleanup().await;
}

/// Cordon, uncordon and drain change nodes: against a real cluster they would take a real node out
/// of service, so they run on the demo only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_cordons_and_drains_honouring_a_disruption_budget() {
    let test = "kubectl_cordons_and_drains_honouring_a_disruption_budget";
    if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        println!("skipping {test}: it cordons and drains a node (demo server only)");
        return;
    }
    let Some(s) = setup(test).await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let node = format!("{ns}-node");
    k.apply_stdin(&format!(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: {node}\n  labels:\n    kubernetes.io/hostname: {node}\n"
    ))
    .await;
    let out = k.ok(&["cordon", &node]).await;
    assert_eq!(out.trim(), format!("node/{node} cordoned"));
    let out = k
        .ok(&["get", "node", &node, "-o", "jsonpath={.spec.unschedulable}"])
        .await;
    assert_eq!(out, "true");
    let out = k.ok(&["uncordon", &node]).await;
    assert_eq!(out.trim(), format!("node/{node} uncordoned"));
    let out = k
        .ok(&["get", "node", &node, "-o", "jsonpath={.spec.unschedulable}"])
        .await;
    assert_eq!(out, "", "uncordon clears spec.unschedulable");

    for i in 0..2 {
        k.apply_stdin(&format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: db-{i}\n  namespace: {ns}\n  labels:\n    app: db\nspec:\n  nodeName: {node}\n  terminationGracePeriodSeconds: 1\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n"
        ))
        .await;
        // What a kubelet would report: running and ready (Pending pods ignore budgets).
        k.ok(&[
            "patch",
            "pod",
            &format!("db-{i}"),
            "-n",
            ns,
            "--subresource=status",
            "--type=merge",
            "-p",
            r#"{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#,
        ])
        .await;
    }
    k.apply_stdin(&format!(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: db\n  namespace: {ns}\nspec:\n  minAvailable: 2\n  selector:\n    matchLabels:\n      app: db\n"
    ))
    .await;
    let drain = [
        "drain",
        node.as_str(),
        "--ignore-daemonsets",
        "--delete-emptydir-data",
        "--force",
        "--timeout=3s",
    ];
    let (ok, out, err) = k.run(&drain).await;
    assert!(!ok, "the budget blocks the drain: {out}{err}");
    assert!(out.contains(&format!("node/{node} cordoned")), "{out}");
    assert!(
        err.contains("Cannot evict pod as it would violate the pod's disruption budget"),
        "{err}"
    );
    let out = k.ok(&["get", "pods", "-n", ns, "-o", "name"]).await;
    assert_eq!(out.lines().count(), 2, "no pod was evicted: {out}");
    let out = k.ok(&["get", "pdb", "-n", ns]).await;
    let header: Vec<&str> = out
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        [
            "NAME",
            "MIN",
            "AVAILABLE",
            "MAX",
            "UNAVAILABLE",
            "ALLOWED",
            "DISRUPTIONS",
            "AGE"
        ]
    );

    k.ok(&[
        "patch",
        "pdb",
        "db",
        "-n",
        ns,
        "--type=merge",
        "-p",
        r#"{"spec":{"minAvailable":0}}"#,
    ])
    .await;
    // Evicted pods go through their (one-second) grace period; drain waits for them.
    let (ok, out, err) = k.run(&drain).await;
    assert!(ok, "the relaxed budget allows the drain: {out}{err}");
    assert!(out.contains("pod/db-0 evicted"), "{out}");
    assert!(out.contains("pod/db-1 evicted"), "{out}");
    assert!(out.contains(&format!("node/{node} drained")), "{out}");
    let out = k.ok(&["get", "pods", "-n", ns, "-o", "name"]).await;
    assert_eq!(out.trim(), "");
    let out = k
        .ok(&["get", "node", &node, "-o", "jsonpath={.spec.unschedulable}"])
        .await;
    assert_eq!(out, "true", "a drained node stays cordoned");
    k.ok(&["delete", "node", &node]).await;
    s.cleanup().await;
}

/// `kubectl exec` over websockets (v5.channel.k8s.io) into the demo's simulated shell: output,
/// stdin, the exit code. A real cluster needs a running container: skipped there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_execs_into_a_demo_pod() {
    let test = "kubectl_execs_into_a_demo_pod";
    if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        println!("skipping {test}: needs a running container (the demo's simulated shell)");
        return;
    }
    let Some(s) = setup(test).await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    k.apply_stdin(&format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: box\n  namespace: {ns}\nspec:\n  containers:\n  - name: c\n    image: registry.k8s.io/pause:3.10\n    env:\n    - name: GREETING\n      value: hello\n"
    ))
    .await;
    k.ok(&[
        "patch",
        "pod",
        "box",
        "-n",
        ns,
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#,
    ])
    .await;
    let out = k
        .ok(&[
            "exec",
            "box",
            "-n",
            ns,
            "--",
            "sh",
            "-c",
            "echo $GREETING; hostname",
        ])
        .await;
    assert_eq!(out, "hello\nbox\n");
    let (ok, out, err) = k
        .run(&[
            "exec",
            "box",
            "-n",
            ns,
            "--",
            "sh",
            "-c",
            "cat /nope; exit 5",
        ])
        .await;
    assert!(!ok);
    assert_eq!(out, "");
    assert!(err.contains("cat: can't open '/nope'"), "{err}");
    assert!(err.contains("command terminated with exit code 5"), "{err}");
    // stdin: a script piped into an interactive (non-TTY) shell.
    let (ok, out, err) = k
        .run_stdin(
            &["exec", "-i", "box", "-n", ns, "--", "sh"],
            "echo one\nls /etc\nexit 0\n",
        )
        .await;
    assert!(ok, "{err}");
    assert_eq!(out, "one\nhostname\nhosts\nos-release\n");
    s.cleanup().await;
}

/// The demo's helm releases as helm's storage: kubectl lists them with helm's selectors, and
/// each `data.release` decodes (Secret base64, then helm's base64, gzip, JSON) with nothing of
/// kinformer's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_lists_helm_releases_with_helms_selectors() {
    use base64::Engine;
    use std::io::Read;
    let Some(s) = setup("kubectl_lists_helm_releases_with_helms_selectors").await else {
        return;
    };
    let Some(demo) = &s.demo else {
        println!("skipping the demo's releases: not the demo server");
        s.cleanup().await;
        return;
    };
    // The simulator's seed, as `--demo` stores it (the releases among it).
    let mut sim = kinformer::demo::sim::Simulator::new(kinformer::demo::sim::SimConfig {
        pods: 40,
        ..Default::default()
    });
    let cluster = demo.cluster();
    for m in sim.seed_iter() {
        // The demo cluster creates the system namespaces itself (409).
        let _ = cluster.apply(m);
    }
    let k = &s.kubectl;
    let out = k
        .ok(&[
            "get",
            "secrets",
            "-A",
            "--field-selector",
            "type=helm.sh/release.v1",
            "-l",
            "owner=helm",
            "-o",
            "json",
        ])
        .await;
    let list: serde_json::Value = serde_json::from_str(&out).unwrap();
    let items = list["items"].as_array().unwrap();
    assert!(items.len() >= 5, "{out}");
    let b64 = base64::engine::general_purpose::STANDARD;
    for item in items {
        assert_eq!(item["type"], "helm.sh/release.v1");
        let labels = &item["metadata"]["labels"];
        let wire = item["data"]["release"].as_str().unwrap();
        let helm = b64.decode(wire).unwrap();
        let gz = b64.decode(&helm).unwrap();
        assert_eq!(&gz[..3], &[0x1f, 0x8b, 0x08]);
        let mut json = String::new();
        flate2::read::GzDecoder::new(gz.as_slice())
            .read_to_string(&mut json)
            .unwrap();
        let release: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(release["name"], labels["name"]);
        assert_eq!(
            release["version"].to_string(),
            labels["version"].as_str().unwrap()
        );
        assert_eq!(release["info"]["status"], labels["status"]);
        let name = format!(
            "sh.helm.release.v1.{}.v{}",
            release["name"].as_str().unwrap(),
            release["version"]
        );
        assert_eq!(item["metadata"]["name"], name.as_str());
    }
    // No other Secret comes with helm's selectors.
    let all = k.ok(&["get", "secrets", "-A", "-o", "name"]).await;
    assert!(all.lines().count() > items.len());
    // The ConfigMap driver's releases: labelled, no type.
    let cms = k
        .ok(&["get", "configmaps", "-A", "-l", "owner=helm", "-o", "name"])
        .await;
    assert!(
        cms.contains("configmap/sh.helm.release.v1.cert-manager.v1"),
        "{cms}"
    );
    s.cleanup().await;
}
