//! kubectl against the demo server: `get pods -A`, `label`, `delete`, `get --watch-only`, server-side
//! `apply` with its conflicts and dry runs.
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

/// A Deployment manifest: `name` in `ns` with `replicas` pods of `containers` (name, image), its
/// pods labelled `app: NAME`.
fn deployment_yaml(ns: &str, name: &str, replicas: u32, containers: &[(&str, &str)]) -> String {
    let mut y = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: {ns}\nspec:\n  replicas: {replicas}\n  selector:\n    matchLabels:\n      app: {name}\n  template:\n    metadata:\n      labels:\n        app: {name}\n    spec:\n      containers:\n"
    );
    for (c, image) in containers {
        y.push_str(&format!("      - name: {c}\n        image: {image}\n"));
    }
    y
}

/// The usual one: `web`, one container `c` running pause.
const PAUSE: &[(&str, &str)] = &[("c", "registry.k8s.io/pause:3.10")];

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
    demo: Option<DemoHandle>,
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
        demo,
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

impl Kubectl {
    /// Run with `input` on stdin; returns (success, stdout, stderr).
    async fn run_stdin(&self, args: &[&str], input: &str) -> (bool, String, String) {
        use tokio::io::AsyncWriteExt;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("kubectl {args:?} could not run: {e}"));
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).await.unwrap();
        drop(stdin);
        let out = tokio::time::timeout(HANG_GUARD, child.wait_with_output())
            .await
            .unwrap_or_else(|_| panic!("kubectl {args:?} hung"))
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    async fn apply_stdin(&self, manifest: &str) -> String {
        let (ok, out, err) = self.run_stdin(&["apply", "-f", "-"], manifest).await;
        assert!(ok, "kubectl apply failed: {err}{out}\n{manifest}");
        out
    }
}

/// A demo cluster seeded by the simulator (running pods on nodes), for `kubectl top`.
async fn seeded_demo(metrics: bool) -> kinformer::app_main::RunningDemo {
    seeded_demo_churning(metrics, 0.0).await
}

/// A seeded demo whose simulated controllers and kubelets run (`churn_per_sec` changes a
/// second), so rollouts progress.
async fn seeded_demo_churning(
    metrics: bool,
    churn_per_sec: f64,
) -> kinformer::app_main::RunningDemo {
    kinformer::app_main::start_demo(&kinformer::app_main::DemoSpec {
        port: 0,
        pods: 60,
        nodes: Some(3),
        churn_per_sec,
        seed: 7,
        history: 10_000,
        metrics,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 2.0,
    })
    .await
    .unwrap()
}

/// A pod created by kubectl on the node `node-1` whose container the test marks running since
/// `age_s` seconds (the demo has no kubelet: the status is written through the status
/// subresource, as a kubelet would), with one crashed previous instance when `restarted`.
async fn running_pod(k: &Kubectl, ns: &str, name: &str, age_s: i64, restarted: bool) {
    let out = k
        .ok(&[
            "run",
            name,
            "--image=docker.io/shop/web:1.0",
            "--restart=Always",
            "--labels=app=web",
            "--overrides={\"spec\":{\"nodeName\":\"node-1\"}}",
            "-n",
            ns,
        ])
        .await;
    assert_eq!(out.trim(), format!("pod/{name} created"));
    let now = chrono::Utc::now().timestamp();
    let t = |s: i64| {
        chrono::DateTime::from_timestamp(s, 0)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    };
    let last = if restarted {
        serde_json::json!({"terminated": {"exitCode": 2, "reason": "Error",
            "startedAt": t(now - age_s - 40), "finishedAt": t(now - age_s - 10),
            "containerID": "containerd://prev"}})
    } else {
        serde_json::json!({})
    };
    let status = serde_json::json!({"status": {"phase": "Running", "containerStatuses": [{
        "name": name, "image": "docker.io/shop/web:1.0", "imageID": "", "ready": true,
        "started": true, "restartCount": u32::from(restarted), "containerID": "containerd://cur",
        "state": {"running": {"startedAt": t(now - age_s)}}, "lastState": last}]}});
    k.ok(&[
        "patch",
        "pod",
        name,
        "-n",
        ns,
        "--subresource=status",
        "--type=merge",
        "-p",
        &status.to_string(),
    ])
    .await;
}

async fn rollout_status(k: &Kubectl, target: &str, ns: &str) -> String {
    k.ok(&["rollout", "status", target, "-n", ns, "--timeout=25s"])
        .await
}

async fn deployment_revision(k: &Kubectl, name: &str, ns: &str) -> u32 {
    let out = k
        .ok(&[
            "get",
            "deploy",
            name,
            "-n",
            ns,
            "-o",
            "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}",
        ])
        .await;
    out.trim()
        .parse()
        .unwrap_or_else(|_| panic!("revision: {out:?}"))
}

fn fixture(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

mod apply;
mod core;
mod crds;
mod forward;
mod operate;
mod protobuf;
mod streams;
