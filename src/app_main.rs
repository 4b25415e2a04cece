//! What each command does, wired from the layers: cluster connection, demo server, dashboard
//! runtime and benchmarks. Kept out of `main.rs` so integration tests can call it.

use crate::cli::{BenchArgs, DashboardArgs, DemoServerArgs};
use std::io::IsTerminal;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::cluster::{ClusterError, ConnectOptions, Connection};
use crate::demo::churn::run_churn;
use crate::demo::rbac::NamespaceUser;
use crate::demo::realistic::PodShape;
use crate::demo::sim::{SimConfig, Simulator};
use crate::demo::{DemoHandle, DemoOptions, DemoServer};
use crate::selector::LabelSelector;
use crate::ui::AppConfig;
use crate::ui::keys::KeyMap;
use crate::ui::runtime::{self, RuntimeConfig};
use kube::config::Kubeconfig;

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
                | ClusterError::NoKubeconfig { .. }
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
    // Bad input is reported before the terminal is touched.
    let keys_path = match &args.keys {
        Some(p) if !p.exists() => {
            return Err(MainError::Usage(format!(
                "key-binding file {} not found",
                p.display()
            )));
        }
        Some(p) => Some(p.clone()),
        None => crate::ui::keys::user_keys_path(),
    };
    let keys = KeyMap::load(keys_path.as_deref()).map_err(|e| MainError::Usage(e.to_string()))?;
    if let Some(sel) = &args.selector {
        LabelSelector::parse(sel)
            .map_err(|e| MainError::Usage(format!("invalid label selector {sel:?}: {e}")))?;
    }
    let demo = if args.demo {
        Some(
            start_demo(&DemoSpec {
                port: 0,
                pods: args.demo_pods,
                nodes: None,
                churn_per_sec: args.demo_churn,
                seed: 1,
                history: 100_000,
                metrics: !args.demo_no_metrics,
                namespace_user: args
                    .demo_as_namespace_user
                    .as_deref()
                    .map(|ns| NamespaceUser::new(DEMO_NAMESPACE_USER, ns)),
                pod_shape: PodShape::Compact,
                watch_list_unsupported: false,
                log_lines_per_second: args.demo_log_rate,
            })
            .await?,
        )
    } else {
        None
    };
    let connection = match &demo {
        Some(d) => {
            let kubeconfig = Kubeconfig::from_yaml(&d.handle.kubeconfig_yaml())
                .map_err(|e| MainError::Runtime(format!("demo kubeconfig: {e}")))?;
            Connection::from_kubeconfig(kubeconfig, "demo".into(), None).await?
        }
        None => {
            Connection::open(&ConnectOptions {
                kubeconfig: args.kubeconfig.clone(),
                context: args.context.clone(),
            })
            .await?
        }
    };
    // Unreachable at start: with a terminal, the dashboard starts anyway (the header shows the
    // outage and its retry countdown, discovery is retried); without one, exit with one line.
    let (server_version, start_error, resources) = match connection.server_version().await {
        Ok(v) => (Some(v), None, connection.discover().await?),
        Err(e @ ClusterError::Unreachable { .. }) if std::io::stdout().is_terminal() => {
            tracing::warn!(error = %e, "API server unreachable at start; retrying in the background");
            (
                None,
                Some(e.to_string()),
                crate::ui::resources::builtin_resources(),
            )
        }
        Err(e) => return Err(e.into()),
    };
    if server_version.is_some() && crate::cluster::resolve(&resources, &args.resource).is_none() {
        return Err(MainError::Usage(format!(
            "the server doesn't have a resource type {:?}",
            args.resource
        )));
    }
    tracing::info!(context = %connection.context, ?server_version, kinds = resources.len(), "connected");
    // The demo cluster's workloads live outside `default`: without -n, show every namespace
    // (the namespace-scoped demo user starts in its namespace, as on a real cluster).
    let demo_all = demo.is_some() && args.demo_as_namespace_user.is_none();
    let namespace = if args.all_namespaces || (demo_all && args.namespace.is_none()) {
        None
    } else {
        Some(
            args.namespace
                .clone()
                .unwrap_or_else(|| connection.default_namespace.clone()),
        )
    };
    let banner = demo.as_ref().map(|d| {
        format!(
            "demo cluster at {} ({} objects)",
            d.handle.base_url(),
            d.seeded_objects
        )
    });
    let app = AppConfig {
        context: connection.context.clone(),
        namespace,
        resource: args.resource.clone(),
        selector: args.selector.clone(),
        readonly: args.readonly,
        log_cap_bytes: (args.log_buffer_mib as usize).saturating_mul(1024 * 1024),
        context_namespace: Some(connection.default_namespace.clone()),
        now_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0),
    };
    let result = runtime::run(RuntimeConfig {
        connection,
        server_version,
        start_error,
        resources,
        app,
        keys,
        banner,
        metrics_period: std::time::Duration::from_secs(args.metrics_period.max(1)),
    })
    .await
    .map_err(|e| MainError::Runtime(e.to_string()));
    if let Some(d) = demo {
        d.churn.abort();
        d.scales.abort();
        d.handle.shutdown().await;
    }
    result
}

/// A running demo cluster: the HTTP server plus the churn loop feeding it.
pub struct RunningDemo {
    pub handle: DemoHandle,
    pub churn: tokio::task::JoinHandle<()>,
    /// The simulated controllers following clients' scaling and cordons.
    pub scales: tokio::task::JoinHandle<()>,
    pub seeded_objects: usize,
}

/// What a demo cluster should look like.
#[derive(Debug, Clone)]
pub struct DemoSpec {
    pub port: u16,
    pub pods: usize,
    pub nodes: Option<usize>,
    pub churn_per_sec: f64,
    pub seed: u64,
    pub history: usize,
    /// Serve `metrics.k8s.io` (false: as a cluster without metrics-server).
    pub metrics: bool,
    /// A namespace-scoped user, the kubeconfig's current context (see [`crate::demo::rbac`]).
    pub namespace_user: Option<NamespaceUser>,
    /// How pods are rendered (compact, or realistic with managedFields).
    pub pod_shape: PodShape,
    /// Refuse streaming lists as an API server on etcd without RequestWatchProgress does.
    pub watch_list_unsupported: bool,
    /// Log lines per second each demo container writes.
    pub log_lines_per_second: f64,
}

/// The name of the demo's namespace-scoped user (`--as-namespace-user`).
pub const DEMO_NAMESPACE_USER: &str = "jane";

/// Start the demo API server on loopback, seed it from the simulator and start churn.
pub async fn start_demo(spec: &DemoSpec) -> Result<RunningDemo, MainError> {
    let handle = DemoServer::start(DemoOptions {
        port: spec.port,
        history: spec.history,
        metrics: spec.metrics,
        namespace_user: spec.namespace_user.clone(),
        watch_list_unsupported: spec.watch_list_unsupported,
        log_lines_per_second: sanitize_log_rate(spec.log_lines_per_second),
        ..DemoOptions::default()
    })
    .await
    .map_err(|e| MainError::Runtime(format!("demo server: {e}")))?;
    let sim = Simulator::new(SimConfig {
        pods: spec.pods,
        nodes: spec.nodes.unwrap_or((spec.pods / 30).max(3)),
        seed: spec.seed,
        start: chrono::Utc::now(),
        pod_shape: spec.pod_shape,
        ..SimConfig::default()
    });
    // Stream the seed: each object is rendered, stored and dropped in turn, so seeding 150k pods
    // never holds every seed object at once. Refusals are reported after the iterator ends (it
    // borrows the simulator).
    let mut sim = sim;
    let cluster = handle.cluster();
    let mut refused = Vec::new();
    let mut seeded_objects = 0usize;
    for m in sim.seed_iter() {
        seeded_objects += 1;
        if let Err(e) = cluster.apply(m.clone()) {
            // The demo cluster creates the system namespaces and the Widget CRD itself.
            if e.code != 409 {
                tracing::warn!(error = %e, "demo seed mutation rejected");
            }
            refused.push(m);
        }
    }
    for m in &refused {
        sim.rejected(m);
    }
    let sim = Arc::new(Mutex::new(sim));
    let (scale_sim, cordon_sim, scale_rejected) = (sim.clone(), sim.clone(), sim.clone());
    let scales = crate::demo::churn::follow_clients(
        cluster.clone(),
        move |ns, kind, name, to| scale_sim.lock().external_scale(ns, kind, name, to),
        move |node, on| cordon_sim.lock().set_cordoned(node, on),
        move |m, _| scale_rejected.lock().rejected(m),
    );
    let tick_sim = sim.clone();
    let churn = run_churn(
        cluster,
        move |n| tick_sim.lock().tick(n),
        move |m, _| sim.lock().rejected(m),
        spec.churn_per_sec,
    );
    Ok(RunningDemo {
        handle,
        churn,
        scales,
        seeded_objects,
    })
}

/// `kinformer demo-server`: serve until Ctrl-C / SIGTERM.
/// A log rate the demo can keep: finite and positive (else its default of 2 lines/s), at most
/// 100,000 lines/s per container.
fn sanitize_log_rate(rate: f64) -> f64 {
    if rate.is_finite() && rate > 0.0 {
        rate.min(100_000.0)
    } else {
        2.0
    }
}

pub async fn run_demo_server(args: DemoServerArgs) -> Result<(), MainError> {
    let demo = start_demo(&DemoSpec {
        port: args.port,
        pods: args.pods,
        nodes: args.nodes,
        churn_per_sec: args.churn,
        seed: args.seed,
        history: args.history,
        metrics: !args.no_metrics,
        namespace_user: args
            .as_namespace_user
            .as_deref()
            .map(|ns| NamespaceUser::new(DEMO_NAMESPACE_USER, ns)),
        pod_shape: args.pod_shape,
        watch_list_unsupported: args.no_watch_list,
        log_lines_per_second: sanitize_log_rate(args.log_rate),
    })
    .await?;
    demo.handle
        .write_kubeconfig(&args.kubeconfig_out)
        .map_err(|e| MainError::Runtime(format!("writing kubeconfig: {e}")))?;
    println!(
        "demo API server listening on {} ({} objects seeded, {} pods ({:?} shape), churn {}/s{})",
        demo.handle.base_url(),
        demo.seeded_objects,
        args.pods,
        args.pod_shape,
        args.churn,
        if args.no_watch_list {
            ", streaming lists refused"
        } else {
            ""
        }
    );
    println!(
        "kubeconfig written to {0}: kubectl --kubeconfig {0} get pods -A",
        args.kubeconfig_out.display()
    );
    if let Some(ns) = &args.as_namespace_user {
        println!(
            "the kubeconfig's current context is user {DEMO_NAMESPACE_USER:?}, who may only get/list/watch pods, events and configmaps in namespace {ns:?} (context kinformer-demo is unrestricted)"
        );
    }
    println!(
        "fault injection: POST {}/_demo/faults/<action>; Ctrl-C stops",
        demo.handle.base_url()
    );
    wait_for_shutdown_signal().await;
    demo.churn.abort();
    demo.scales.abort();
    demo.handle.shutdown().await;
    Ok(())
}

async fn wait_for_shutdown_signal() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// `kinformer bench`.
pub async fn run_bench(
    args: BenchArgs,
    kubeconfig: Option<std::path::PathBuf>,
) -> Result<(), MainError> {
    if args.pods.is_empty() || args.pods.contains(&0) {
        return Err(MainError::Usage("--pods needs positive counts".into()));
    }
    let report = crate::bench::run(crate::bench::BenchOptions {
        pods: args.pods,
        runs: args.runs.max(1),
        no_peer: args.no_peer,
        churn: args.churn,
        kubeconfig,
        smoke: args.smoke,
        only: args.only,
        pod_shape: args.pod_shape,
        wire: args.wire,
    })
    .await
    .map_err(|e| MainError::Runtime(format!("bench: {e}")))?;
    print!("{}", report.to_table());
    Ok(())
}
