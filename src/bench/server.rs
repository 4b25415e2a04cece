//! The demo server the sync and memory figures run against, as a child process, and its
//! fault endpoint.

use super::common::*;

// ---------------------------------------------------------------------------------------------
// The child demo server

/// `kinformer demo-server` as a child of the bench. It ends with the bench however the bench
/// ends: dropped or stopped (`kill_on_drop`), or killed outright (on Linux the child asks for
/// the parent-death signal, `--exit-with-parent`: see [`crate::process::exit_with_parent`]).
/// Spawned from an async task, so from a runtime worker thread that lives as long as the bench.
pub(super) struct ChildServer {
    pub(super) child: tokio::process::Child,
    pub(super) dir: PathBuf,
    pub(super) kubeconfig: PathBuf,
}

impl ChildServer {
    pub(super) async fn start(pods: usize, shape: PodShape) -> Result<Self, BenchError> {
        Self::start_fleet(pods, shape, 1).await
    }

    /// `clusters` demo servers of `pods` pods each (`demo-server --clusters`), one kubeconfig
    /// with a context per server.
    pub(super) async fn start_fleet(
        pods: usize,
        shape: PodShape,
        clusters: usize,
    ) -> Result<Self, BenchError> {
        let exe = std::env::current_exe()?;
        let dir = std::env::temp_dir().join(format!(
            "kinformer-bench-{}-{}x{}",
            std::process::id(),
            clusters,
            pods
        ));
        std::fs::create_dir_all(&dir)?;
        let kubeconfig = dir.join("kubeconfig");
        let mut command = tokio::process::Command::new(exe);
        command.arg("demo-server");
        // A killed bench (SIGKILL: no destructor, no `kill_on_drop`) takes its server with it.
        if cfg!(target_os = "linux") {
            command.args(["--exit-with-parent", &std::process::id().to_string()]);
        }
        let mut child = command
            .args(["--pods", &pods.to_string()])
            .args(["--churn", "0", "--port", "0"])
            .args(["--clusters", &clusters.to_string()])
            .args([
                "--pod-shape",
                match shape {
                    PodShape::Realistic => "realistic",
                    PodShape::Compact => "compact",
                },
            ])
            .arg("--kubeconfig-out")
            .arg(&kubeconfig)
            .arg("--log-file")
            .arg(dir.join("demo-server.log"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| BenchError::Child("no stdout".into()))?;
        let mut lines = BufReader::new(stdout).lines();
        let wait = async {
            while let Some(line) = lines.next_line().await? {
                // The fleet prints no "listening on" line; both print this one last.
                if line.contains("kubeconfig written to") {
                    return Ok::<bool, std::io::Error>(true);
                }
            }
            Ok(false)
        };
        match tokio::time::timeout(Duration::from_secs(600), wait).await {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => return Err(BenchError::Child("exited before listening".into())),
            Ok(Err(e)) => return Err(BenchError::Io(e)),
            Err(_) => return Err(BenchError::Timeout("demo server start".into())),
        }
        // Keep draining stdout so the child never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self {
            child,
            dir,
            kubeconfig,
        })
    }

    pub(super) async fn stop(mut self) {
        let _ = self.child.kill().await;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The cluster a figure measures: `--kubeconfig`'s, else a child demo server with `pods` pods
/// (returned, for the caller to stop), and a client for it.
pub(super) async fn bench_cluster(
    opts: &BenchOptions,
    pods: usize,
) -> Result<(Option<ChildServer>, kube::Client), BenchError> {
    let child = match &opts.kubeconfig {
        Some(_) => None,
        None => Some(ChildServer::start(pods, opts.pod_shape).await?),
    };
    let kubeconfig = match (&child, &opts.kubeconfig) {
        (Some(c), _) => c.kubeconfig.clone(),
        (None, Some(k)) => k.clone(),
        (None, None) => return Err(BenchError::Setup("no cluster".into())),
    };
    let client = client_from_kubeconfig(&kubeconfig).await?;
    Ok((child, client))
}

pub(super) async fn client_from_kubeconfig(path: &Path) -> Result<kube::Client, BenchError> {
    let kc = Kubeconfig::read_from(path).map_err(|e| BenchError::Cluster(e.to_string()))?;
    let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .map_err(|e| BenchError::Cluster(e.to_string()))?;
    Ok(client_for_informers(config)?)
}

/// Make the demo server behind `client` send JSON and protobuf bodies no faster than `mbps`
/// (a real API server's encode rates; the fault endpoint's `send-rate`).
pub(super) async fn set_send_rate(
    client: &kube::Client,
    mbps: ServerMbps,
) -> Result<(), BenchError> {
    let (json, pb) = (mbps.json, mbps.protobuf());
    post_fault(client, &format!("send-rate?mbps={json}&pb_mbps={pb}")).await
}

pub(super) async fn post_fault(client: &kube::Client, action: &str) -> Result<(), BenchError> {
    let req = http::Request::post(format!("/_demo/faults/{action}"))
        .body(Vec::new())
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    client
        .request_text(req)
        .await
        .map_err(|e| BenchError::Cluster(format!("fault {action}: {e}")))?;
    Ok(())
}
