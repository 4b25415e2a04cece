//! kubectl exec, top and logs: the streaming endpoints.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_top_pods_and_nodes_read_the_demo_metrics_api() {
    let Some(bin) = kubectl_on_path() else {
        println!("skipping kubectl_top_pods_and_nodes_read_the_demo_metrics_api: no kubectl");
        return;
    };
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping kubectl_top: a real cluster may have no metrics-server (demo-only)");
        return;
    }
    let demo = seeded_demo(true).await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    demo.handle.write_kubeconfig(&kubeconfig).unwrap();
    let k = Kubectl { bin, kubeconfig };

    let out = k.ok(&["top", "pods", "-A"]).await;
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    assert_eq!(header, ["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"]);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
    assert!(rows.len() >= 20, "{out}");
    for r in &rows {
        assert!(r[2].ends_with('m') && r[3].ends_with("Mi"), "{r:?}");
    }
    // Per-namespace, by name, and with a label selector.
    let (ns, name) = (rows[0][0], rows[0][1]);
    let out = k.ok(&["top", "pod", name, "-n", ns, "--containers"]).await;
    assert!(out.contains(name), "{out}");
    let out = k.ok(&["top", "pods", "-n", ns]).await;
    assert!(out.lines().skip(1).all(|l| !l.is_empty()), "{out}");

    let out = k.ok(&["top", "nodes"]).await;
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    assert_eq!(
        header,
        ["NAME", "CPU(cores)", "CPU(%)", "MEMORY(bytes)", "MEMORY(%)"]
    );
    assert_eq!(lines.count(), 3, "{out}");

    // Without metrics-server kubectl says so.
    demo.handle
        .metrics()
        .set_mode(kinformer::demo::metrics::MetricsMode::Absent);
    let (ok, _, err) = k.run(&["top", "pods", "-A"]).await;
    assert!(!ok);
    assert!(err.contains("Metrics API not available"), "{err}");
    demo.churn.abort();
    demo.handle.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_logs_reads_follows_and_reports_errors() {
    let Some(s) = setup("kubectl_logs_reads_follows_and_reports_errors").await else {
        return;
    };
    if s.demo.is_none() {
        // A real cluster's kubelet runs the image instead of the demo's log generator, and
        // replaces the status this test writes.
        println!(
            "skipping kubectl_logs_reads_follows_and_reports_errors: needs the demo's kubelet-less pods"
        );
        s.cleanup().await;
        return;
    }
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let marked = std::time::Instant::now();
    running_pod(k, ns, "web-a", 30, true).await;
    running_pod(k, ns, "web-b", 30, false).await;

    // The whole log: 2 lines/s since the container started 30 s before it was marked running
    // (plus the time the test has taken since, on a loaded machine), starting with the banner.
    let out = k.ok(&["logs", "web-a", "-n", ns]).await;
    let lines: Vec<&str> = out.lines().collect();
    let most = 65 + 2 * marked.elapsed().as_secs() as usize;
    assert!(
        (55..=most).contains(&lines.len()),
        "{} lines: {out}",
        lines.len()
    );
    assert!(
        lines[0].starts_with("Starting web") || lines[0].contains("starting web"),
        "{out}"
    );
    // The same lines again (deterministic per container instance).
    let again = k.ok(&["logs", "web-a", "-n", ns, "--tail=5"]).await;
    assert_eq!(again.lines().count(), 5, "{again}");
    assert!(out.contains(again.lines().next().unwrap()), "{again}");

    // Timestamps are RFC3339 with nanoseconds; --since-time keeps later lines only.
    let out = k
        .ok(&["logs", "web-a", "-n", ns, "--timestamps", "--tail=3"])
        .await;
    for l in out.lines() {
        let ts = l.split(' ').next().unwrap();
        assert!(
            chrono::DateTime::parse_from_rfc3339(ts).is_ok() && ts.len() == 30,
            "{l}"
        );
    }
    let out = k.ok(&["logs", "web-a", "-n", ns, "--since=10s"]).await;
    assert!((15..=25).contains(&out.lines().count()), "{out}");

    // The previous instance ends with its crash.
    let out = k.ok(&["logs", "web-a", "-n", ns, "--previous"]).await;
    assert!(out.contains("panic: runtime error"), "{out}");
    assert_eq!(out.lines().last(), Some("exit status 2"), "{out}");

    // The apiserver's errors.
    let (ok, _, err) = k.run(&["logs", "web-b", "-n", ns, "--previous"]).await;
    assert!(!ok);
    assert!(
        err.contains("previous terminated container \"web-b\" in pod \"web-b\" not found"),
        "{err}"
    );
    let (ok, _, err) = k.run(&["logs", "web-a", "-n", ns, "-c", "nope"]).await;
    assert!(!ok);
    assert!(
        err.contains("container nope is not valid for pod web-a"),
        "{err}"
    );
    let (ok, _, err) = k.run(&["logs", "nope", "-n", ns]).await;
    assert!(!ok);
    assert!(err.contains("pods \"nope\" not found"), "{err}");

    // -l with --prefix: every pod's lines, prefixed.
    let out = k
        .ok(&["logs", "-l", "app=web", "-n", ns, "--prefix", "--tail=2"])
        .await;
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(out.contains("[pod/web-a/web-a] "), "{out}");
    assert!(out.contains("[pod/web-b/web-b] "), "{out}");

    // -f: a chunked stream that keeps delivering new lines.
    let mut follow = k
        .command(&["logs", "-f", "web-a", "-n", ns, "--tail=0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = follow.stdout.take().unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    while seen.lines().count() < 3 {
        let n = tokio::time::timeout_at(deadline, stdout.read(&mut buf))
            .await
            .unwrap_or_else(|_| panic!("follow output so far: {seen:?}"))
            .unwrap();
        assert!(n > 0, "follow ended early: {seen:?}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    let _ = follow.kill().await;
    s.cleanup().await;
}

/// `kubectl auth can-i` as a namespace-scoped user (the demo's `jane`, reading pods, events and
/// configmaps in `bench` only): answered by SelfSubjectAccessReview, "yes" exits 0, "no" 1; and
/// a refused `get` prints kube-apiserver's message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_auth_can_i_answers_for_a_namespace_scoped_user() {
    let test = "kubectl_auth_can_i_answers_for_a_namespace_scoped_user";
    let Some(bin) = kubectl_on_path() else {
        println!("skipping {test}: kubectl is not on PATH");
        return;
    };
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!(
            "skipping {test}: needs a namespace-scoped user; the test does not set up RBAC on the cluster KINFORMER_TEST_KUBECONFIG names"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let h = DemoServer::start(DemoOptions {
        namespace_user: Some(kinformer::demo::rbac::NamespaceUser::new("jane", "bench")),
        ..DemoOptions::default()
    })
    .await
    .unwrap();
    let path = dir.path().join("kubeconfig");
    h.write_kubeconfig(&path).unwrap();
    let k = Kubectl {
        bin,
        kubeconfig: path,
    };
    k.ok(&[
        "--context",
        "kinformer-demo",
        "create",
        "namespace",
        "bench",
    ])
    .await;
    for (args, answer) in [
        (vec!["auth", "can-i", "list", "pods", "-n", "bench"], true),
        (
            vec!["auth", "can-i", "watch", "configmaps", "-n", "bench"],
            true,
        ),
        (vec!["auth", "can-i", "list", "pods", "-A"], false),
        (
            vec!["auth", "can-i", "list", "deployments", "-n", "bench"],
            false,
        ),
        (
            vec!["auth", "can-i", "delete", "pods", "-n", "bench"],
            false,
        ),
        (vec!["auth", "can-i", "list", "namespaces"], false),
    ] {
        let (ok, out, err) = k.run(&args).await;
        assert_eq!(
            (ok, out.trim()),
            (answer, if answer { "yes" } else { "no" }),
            "kubectl {args:?}: {err}"
        );
    }
    // The unrestricted context may do anything.
    let out = k
        .ok(&[
            "--context",
            "kinformer-demo",
            "auth",
            "can-i",
            "list",
            "deployments",
            "-A",
        ])
        .await;
    assert_eq!(out.trim(), "yes");
    let (ok, _, err) = k.run(&["get", "deployments", "-n", "bench"]).await;
    assert!(!ok);
    assert!(
        err.contains("deployments.apps is forbidden: User \"jane\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"bench\""),
        "{err}"
    );
    // `auth can-i --list` is a SelfSubjectRulesReview.
    let out = k.ok(&["auth", "can-i", "--list", "-n", "bench"]).await;
    assert!(
        out.lines()
            .any(|l| l.starts_with("pods ") && l.contains("[get list watch]")),
        "{out}"
    );
    h.shutdown().await;
}
