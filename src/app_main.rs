//! What each command does, wired from the layers: cluster connection, demo server, dashboard
//! runtime and benchmarks. Kept out of `main.rs` so integration tests can call it.

use crate::cli::{BenchArgs, DashboardArgs, DemoServerArgs};
use crate::cluster::{ClusterError, ConnectOptions, Connection};

/// Top-level errors, each printed as one line.
#[derive(Debug, thiserror::Error)]
pub enum MainError {
    #[error("{0}")]
    Cluster(#[from] ClusterError),
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Runtime(String),
}

impl MainError {
    /// 2 for bad input (flags, kubeconfig, context), 1 for everything else.
    pub fn exit_code(&self) -> u8 {
        match self {
            MainError::Usage(_) => 2,
            MainError::Cluster(
                ClusterError::KubeconfigMissing { .. }
                | ClusterError::NoKubeconfig
                | ClusterError::KubeconfigInvalid { .. }
                | ClusterError::UnknownContext { .. }
                | ClusterError::NoCurrentContext { .. },
            ) => 2,
            _ => 1,
        }
    }
}

/// The dashboard (default command).
pub async fn run_dashboard(args: DashboardArgs) -> Result<(), MainError> {
    let conn = Connection::open(&ConnectOptions {
        kubeconfig: args.kubeconfig.clone(),
        context: args.context.clone(),
    })
    .await?;
    let version = conn.server_version().await?;
    let resources = conn.discover().await?;
    tracing::info!(context = %conn.context, %version, kinds = resources.len(), "connected");
    Err(MainError::Runtime("the dashboard is not wired yet".into()))
}

/// `kinformer demo-server`.
pub async fn run_demo_server(_args: DemoServerArgs) -> Result<(), MainError> {
    Err(MainError::Runtime(
        "the demo server is not wired yet".into(),
    ))
}

/// `kinformer bench`.
pub async fn run_bench(_args: BenchArgs) -> Result<(), MainError> {
    Err(MainError::Runtime(
        "the benchmarks are not wired yet".into(),
    ))
}
