//! kubectl auth can-i, edit and rollouts.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_edit_with_a_scripted_editor_changes_the_object() {
    let Some(s) = setup("kubectl_edit_with_a_scripted_editor_changes_the_object").await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    k.ok(&["create", "configmap", "cfg", "--from-literal=k=v", "-n", ns])
        .await;
    let script = s.dir.path().join("editor.sh");
    std::fs::write(&script, "sed -i 's/^  k: v$/  k: edited/' \"$1\"\n").unwrap();
    let mut c = k.command(&["edit", "configmap", "cfg", "-n", ns]);
    c.env("KUBE_EDITOR", format!("sh {}", script.display()));
    let out = tokio::time::timeout(HANG_GUARD, c.output())
        .await
        .expect("kubectl edit hung")
        .expect("kubectl edit runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}{stdout}");
    assert_eq!(stdout.trim(), "configmap/cfg edited");
    let value = k
        .ok(&[
            "get",
            "configmap",
            "cfg",
            "-n",
            ns,
            "-o",
            "jsonpath={.data.k}",
        ])
        .await;
    assert_eq!(value, "edited");
    s.cleanup().await;
}

/// `kubectl set image` on one container of two: the strategic-merge patch merges the containers
/// by name, so the other keeps its image (a list replaced whole would lose it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_set_image_changes_one_container_and_keeps_the_other() {
    let Some(s) = setup("kubectl_set_image_changes_one_container_and_keeps_the_other").await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    k.apply_stdin(&deployment_yaml(
        ns,
        "two",
        1,
        &[
            ("web", "registry.k8s.io/pause:3.10"),
            ("proxy", "registry.k8s.io/pause:3.9"),
        ],
    ))
    .await;
    k.ok(&[
        "set",
        "image",
        "deployment/two",
        "proxy=registry.k8s.io/pause:3.10",
        "-n",
        ns,
    ])
    .await;
    let images = k
        .ok(&[
            "get",
            "deployment",
            "two",
            "-n",
            ns,
            "-o",
            "jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}",
        ])
        .await;
    assert_eq!(
        images.trim(),
        "web=registry.k8s.io/pause:3.10 proxy=registry.k8s.io/pause:3.10"
    );
    s.cleanup().await;
}

/// `kubectl get cronjobs` prints the server's Table columns (as kube-apiserver's CronJob
/// printer), `kubectl patch` suspends one, and `kubectl create job --from` makes a Job of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_gets_cronjobs_with_their_columns_suspends_one_and_makes_a_job_from_it() {
    let Some(s) =
        setup("kubectl_gets_cronjobs_with_their_columns_suspends_one_and_makes_a_job_from_it")
            .await
    else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    k.ok(&[
        "create",
        "cronjob",
        "report",
        "--image=registry.k8s.io/pause:3.10",
        "--schedule=0 3 * * *",
        "-n",
        ns,
    ])
    .await;
    let table = k.ok(&["get", "cronjobs", "-n", ns]).await;
    let header: Vec<&str> = table
        .lines()
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    assert_eq!(
        header,
        [
            "NAME", "SCHEDULE", "TIMEZONE", "SUSPEND", "ACTIVE", "LAST", "SCHEDULE", "AGE"
        ],
        "{table}"
    );
    let first = table.lines().nth(1).unwrap_or("");
    assert!(first.starts_with("report"), "{table}");
    // NAME, the five schedule fields, TIMEZONE, then SUSPEND: defaulted to false on create.
    assert_eq!(first.split_whitespace().nth(7), Some("False"), "{table}");
    k.ok(&[
        "patch",
        "cronjob",
        "report",
        "-n",
        ns,
        "-p",
        r#"{"spec":{"suspend":true}}"#,
    ])
    .await;
    let suspend = k
        .ok(&[
            "get",
            "cronjob",
            "report",
            "-n",
            ns,
            "-o",
            "custom-columns=S:.spec.suspend",
            "--no-headers",
        ])
        .await;
    assert_eq!(suspend.trim(), "true");
    let row = k
        .ok(&["get", "cronjob", "report", "-n", ns, "--no-headers"])
        .await;
    assert_eq!(row.split_whitespace().nth(7), Some("True"), "{row}");
    // A patch that unsets it gets the default back, as every write is defaulted.
    k.ok(&[
        "patch",
        "cronjob",
        "report",
        "-n",
        ns,
        "--type=merge",
        "-p",
        r#"{"spec":{"suspend":null}}"#,
    ])
    .await;
    let row = k
        .ok(&["get", "cronjob", "report", "-n", ns, "--no-headers"])
        .await;
    assert_eq!(row.split_whitespace().nth(7), Some("False"), "{row}");
    k.ok(&[
        "create",
        "job",
        "by-hand",
        "--from=cronjob/report",
        "-n",
        ns,
    ])
    .await;
    let owner = k
        .ok(&[
            "get",
            "job",
            "by-hand",
            "-n",
            ns,
            "-o",
            "jsonpath={.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}",
        ])
        .await;
    assert_eq!(owner, "CronJob/report");
    s.cleanup().await;
}

/// `kubectl rollout restart` then `kubectl rollout status --timeout`: a new ReplicaSet at the
/// next revision takes every replica, the old one is kept at 0. On the demo the deployment is
/// one the simulator seeded (its controllers run what they created); on a real cluster the test
/// creates one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_rollout_restart_replaces_the_replicaset_and_rollout_status_waits_for_it() {
    let test = "kubectl_rollout_restart_replaces_the_replicaset_and_rollout_status_waits_for_it";
    let Some(bin) = kubectl_on_path() else {
        println!("skipping {test}: kubectl is not on PATH");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (k, ns, name, _demo, real) = if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        let Some(s) = setup(test).await else { return };
        let ns = s.ns.clone();
        s.kubectl
            .apply_stdin(&deployment_yaml(&ns, "web", 2, PAUSE))
            .await;
        let k = Kubectl {
            bin: s.kubectl.bin.clone(),
            kubeconfig: s.kubectl.kubeconfig.clone(),
        };
        (k, ns, "web".to_string(), None, Some(s))
    } else {
        let demo = seeded_demo_churning(false, 300.0).await;
        let kubeconfig = dir.path().join("kubeconfig");
        demo.handle.write_kubeconfig(&kubeconfig).unwrap();
        let k = Kubectl { bin, kubeconfig };
        let out = k
            .ok(&[
                "get",
                "deploy",
                "-A",
                "-o",
                "jsonpath={range .items[*]}{.metadata.namespace} {.metadata.name} {.spec.replicas}{\"\\n\"}{end}",
            ])
            .await;
        let mut picks: Vec<(String, String)> = out
            .lines()
            .filter_map(|l| {
                let c: Vec<&str> = l.split_whitespace().collect();
                (c.len() == 3 && c[0] != "kube-system" && c[2].parse::<u32>().unwrap_or(0) >= 2)
                    .then(|| (c[0].to_string(), c[1].to_string()))
            })
            .collect();
        picks.sort();
        let (ns, name) = picks.into_iter().next().expect("a seeded deployment");
        (k, ns, name, Some(demo), None)
    };
    let target = format!("deployment/{name}");
    let out = rollout_status(&k, &target, &ns).await;
    assert!(out.contains("successfully rolled out"), "{out}");
    let before = deployment_revision(&k, &name, &ns).await;

    let out = k.ok(&["rollout", "restart", &target, "-n", &ns]).await;
    assert_eq!(out.trim(), format!("deployment.apps/{name} restarted"));
    let out = rollout_status(&k, &target, &ns).await;
    assert!(
        out.trim_end()
            .ends_with(&format!("deployment \"{name}\" successfully rolled out")),
        "{out}"
    );
    assert_eq!(deployment_revision(&k, &name, &ns).await, before + 1);
    // One line per ReplicaSet of the deployment: revision and desired replicas.
    let out = k
        .ok(&[
            "get",
            "rs",
            "-n",
            &ns,
            "-o",
            "jsonpath={range .items[*]}{.metadata.ownerReferences[0].name} {.metadata.annotations.deployment\\.kubernetes\\.io/revision} {.spec.replicas}{\"\\n\"}{end}",
        ])
        .await;
    let sets: Vec<(u32, u32)> = out
        .lines()
        .filter_map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            (c.len() == 3 && c[0] == name).then(|| (c[1].parse().unwrap(), c[2].parse().unwrap()))
        })
        .collect();
    assert!(
        sets.contains(&(before, 0)),
        "old ReplicaSet kept at 0: {out}"
    );
    assert!(
        sets.iter().any(|&(r, n)| r == before + 1 && n >= 1),
        "new ReplicaSet: {out}"
    );
    if let Some(s) = real {
        s.cleanup().await;
    }
}

/// `kubectl port-forward` over SPDY/3.1 — tunneled in a websocket (kubectl 1.31+'s default) and
/// over a plain SPDY upgrade (`KUBECTL_PORT_FORWARD_WEBSOCKETS=false`) — then HTTP GETs through
/// the local port answered by the demo pod's page. A real cluster needs a container listening on
/// the port: skipped there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_port_forwards_to_a_demo_pod_over_spdy() {
    use tokio::io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader};
    let test = "kubectl_port_forwards_to_a_demo_pod_over_spdy";
    if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        println!("skipping {test}: needs a container serving HTTP on its port (the demo's pages)");
        return;
    }
    let Some(s) = setup(test).await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    k.apply_stdin(&format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: {ns}\nspec:\n  containers:\n  - name: app\n    image: registry.k8s.io/pause:3.10\n    ports:\n    - containerPort: 8080\n      name: http\n"
    ))
    .await;
    k.ok(&[
        "patch",
        "pod",
        "web",
        "-n",
        ns,
        "--subresource=status",
        "--type=merge",
        "-p",
        r#"{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}"#,
    ])
    .await;
    for websockets in ["true", "false"] {
        let mut child = k
            .command(&["port-forward", "-n", ns, "pod/web", ":8080"])
            .env("KUBECTL_PORT_FORWARD_WEBSOCKETS", websockets)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let line = tokio::time::timeout(HANG_GUARD, lines.next_line())
            .await
            .expect("kubectl port-forward printed nothing")
            .unwrap();
        let Some(line) = line else {
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err).await;
            panic!("kubectl port-forward (websockets={websockets}) exited: {err}");
        };
        // "Forwarding from 127.0.0.1:40123 -> 8080"
        let local = line
            .strip_prefix("Forwarding from ")
            .and_then(|l| l.split(" -> ").next())
            .unwrap_or_else(|| panic!("unexpected line {line:?}"))
            .to_string();
        // Two connections through one forward: the SPDY connection stays up between them.
        for path in ["/", "/second"] {
            let mut conn = tokio::net::TcpStream::connect(&local).await.unwrap();
            conn.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut page = String::new();
            tokio::time::timeout(HANG_GUARD, conn.read_to_string(&mut page))
                .await
                .expect("no answer through the forward")
                .unwrap();
            assert!(page.starts_with("HTTP/1.1 200 OK"), "{websockets}: {page}");
            assert!(page.contains(&format!("demo pod {ns}/web")), "{page}");
            assert!(page.contains("container app, port 8080"), "{page}");
            assert!(
                page.contains(&format!("request: GET {path} HTTP/1.1")),
                "{page}"
            );
        }
        child.kill().await.unwrap();
    }
    // A port no container declares: the connection closes empty and kubectl reports the
    // refusal the demo wrote on the error stream.
    let mut child = k
        .command(&["port-forward", "-n", ns, "pod/web", ":9999"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(HANG_GUARD, lines.next_line())
        .await
        .expect("kubectl port-forward printed nothing")
        .unwrap()
        .expect("kubectl port-forward exited");
    let local = line
        .strip_prefix("Forwarding from ")
        .and_then(|l| l.split(" -> ").next())
        .unwrap_or_else(|| panic!("unexpected line {line:?}"))
        .to_string();
    let mut conn = tokio::net::TcpStream::connect(&local).await.unwrap();
    conn.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
    let mut page = String::new();
    tokio::time::timeout(HANG_GUARD, conn.read_to_string(&mut page))
        .await
        .expect("the refused connection is closed")
        .unwrap();
    assert_eq!(page, "");
    let mut errs = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    loop {
        let line = tokio::time::timeout(HANG_GUARD, errs.next_line())
            .await
            .expect("kubectl reported nothing")
            .unwrap();
        let Some(line) = line else {
            panic!("no refusal reported: {seen:?}");
        };
        if line.contains("error forwarding port 9999") {
            assert!(line.contains("connection refused"), "{line}");
            break;
        }
        seen.push(line);
    }
    child.kill().await.unwrap();
    s.cleanup().await;
}

/// `kubectl delete pod` of a seeded Deployment's pod: as soon as the pod is terminating (its
/// grace period running), its ReplicaSet creates a replacement, as kube-controller-manager does
/// (demo-only: it checks the demo's simulated controllers).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_delete_pod_of_a_replicaset_gets_a_replacement() {
    let Some(bin) = kubectl_on_path() else {
        println!("skipping kubectl_delete_pod_of_a_replicaset_gets_a_replacement: no kubectl");
        return;
    };
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping: it checks the demo's simulated controllers (demo-only)");
        return;
    }
    let demo = seeded_demo(false).await;
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    demo.handle.write_kubeconfig(&kubeconfig).unwrap();
    let k = Kubectl { bin, kubeconfig };
    // A pod owned by a ReplicaSet: namespace, name, owner.
    let out = k
        .ok(&[
            "get",
            "pods",
            "-A",
            "-o",
            "jsonpath={range .items[*]}{.metadata.namespace} {.metadata.name} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name}{\"\\n\"}{end}",
        ])
        .await;
    let (ns, pod, rs) = out
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .find(|c| c.len() == 4 && c[2] == "ReplicaSet")
        .map(|c| (c[0].to_string(), c[1].to_string(), c[3].to_string()))
        .expect("a ReplicaSet's pod");
    let owned = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.ends_with(&format!(" {rs}")))
            .map(|l| l.split_whitespace().next().unwrap_or("").to_string())
            .collect()
    };
    let list = [
        "get",
        "pods",
        "-n",
        ns.as_str(),
        "-o",
        "jsonpath={range .items[*]}{.metadata.name} {.metadata.ownerReferences[0].name}{\"\\n\"}{end}",
    ];
    let before = owned(&k.ok(&list).await);
    k.ok(&["delete", "pod", &pod, "-n", &ns, "--wait=false"])
        .await;
    // The deleted pod may still be listed, terminating; the others are the set's count again.
    let mut others = Vec::new();
    for _ in 0..100 {
        others = owned(&k.ok(&list).await);
        others.retain(|p| *p != pod);
        if others.len() == before.len() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(
        others.len(),
        before.len(),
        "replaced: {before:?} → {others:?}"
    );
    let fresh: Vec<&String> = others.iter().filter(|p| !before.contains(p)).collect();
    assert_eq!(fresh.len(), 1, "one new pod: {before:?} → {others:?}");
    demo.churn.abort();
    demo.handle.shutdown().await;
}
