//! kubectl against the demo server: `get pods -A`, `label`, `delete`, `get --watch-only`.
//!
//! Skips (with a printed reason) when `kubectl` is not on PATH. With `KINFORMER_TEST_KUBECONFIG`
//! set it runs against that cluster instead, in its own namespace, asserting nothing demo-only.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// Only guards against a hang; nothing asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn kubectl_on_path() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("kubectl"))
        .find(|p| p.is_file())
}

struct Kubectl {
    bin: PathBuf,
    kubeconfig: PathBuf,
}

impl Kubectl {
    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.bin);
        c.arg("--kubeconfig").arg(&self.kubeconfig).args(args);
        c.kill_on_drop(true);
        c
    }

    /// Run to completion; returns (success, stdout, stderr).
    async fn run(&self, args: &[&str]) -> (bool, String, String) {
        let out = tokio::time::timeout(HANG_GUARD, self.command(args).output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} hung"))
            .unwrap_or_else(|e| panic!("kubectl {args:?} could not run: {e}"));
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    async fn ok(&self, args: &[&str]) -> String {
        let (ok, out, err) = self.run(args).await;
        assert!(ok, "kubectl {args:?} failed: {err}{out}");
        out
    }
}

struct Setup {
    kubectl: Kubectl,
    _demo: Option<DemoHandle>,
    dir: tempfile::TempDir,
    ns: String,
}

async fn setup(test: &str) -> Option<Setup> {
    let Some(bin) = kubectl_on_path() else {
        println!("skipping {test}: kubectl is not on PATH");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let (kubeconfig, demo) = match std::env::var("KINFORMER_TEST_KUBECONFIG") {
        Ok(p) => (PathBuf::from(p), None),
        Err(_) => {
            let h = DemoServer::start(DemoOptions::default()).await.unwrap();
            let path = dir.path().join("kubeconfig");
            h.write_kubeconfig(&path).unwrap();
            (path, Some(h))
        }
    };
    let kubectl = Kubectl { bin, kubeconfig };
    let ns = format!("kinformer-kubectl-{}", rand::random::<u32>());
    // A typed-client create: kubectl sends this one as protobuf.
    let out = kubectl.ok(&["create", "namespace", &ns]).await;
    assert_eq!(out.trim(), format!("namespace/{ns} created"));
    Some(Setup {
        kubectl,
        _demo: demo,
        dir,
        ns,
    })
}

impl Setup {
    async fn cleanup(self) {
        let _ = self
            .kubectl
            .run(&["delete", "namespace", &self.ns, "--wait=false"])
            .await;
    }
}

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
    assert!(ours.iter().all(|c| c[2] == "0/1"), "{out}");

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
    let first = seen.lines().next().unwrap_or("");
    assert_eq!(
        first, "pod/web-a",
        "the first watch line is the label change: {seen:?}"
    );
    assert!(seen.lines().any(|l| l == "pod/web-b"), "{seen:?}");

    let out = k.ok(&["get", "pods", "-n", ns, "-o", "name"]).await;
    if s._demo.is_some() {
        // The demo deletes immediately (no kubelet, no grace period).
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
    let deploy = |replicas: u32| {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: {ns}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: c\n        image: registry.k8s.io/pause:3.10\n"
        )
    };
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
