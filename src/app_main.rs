//! What each command does, wired from the layers: cluster connection, demo server, dashboard
//! runtime and benchmarks. Kept out of `main.rs` so integration tests can call it.

use crate::cli::{BenchArgs, DashboardArgs, DemoServerArgs};
use std::io::IsTerminal;
use std::sync::Arc;

use parking_lot::Mutex;

use crate::cluster::{ClusterError, Connection, load_kubeconfig};
use crate::config::{ConfigEnv, LoadOptions, UserConfig};
use crate::demo::churn::run_churn;
use crate::demo::fleet::{FleetMember, MAX_FLEET, fleet_kubeconfig_yaml, member_name, member_seed};
use crate::demo::mutation::Mutation;
use crate::demo::rbac::NamespaceUser;
use crate::demo::realistic::PodShape;
use crate::demo::sim::{SimConfig, Simulator};
use crate::demo::{DemoHandle, DemoOptions, DemoServer};
use crate::fleet::{is_glob, select_contexts};
use crate::runtime::{self, RuntimeConfig};
use crate::selector::LabelSelector;
use crate::ui::AppConfig;
pub use crate::ui::action::DemoSeeding;
use crate::ui::keys::KeyMap;
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

/// Where kinformer's settings are read: `--config FILE`, else the default place.
fn load_options(args: &DashboardArgs, context: Option<(String, String)>) -> LoadOptions {
    let env = ConfigEnv::from_process();
    LoadOptions {
        config_file: args
            .config
            .clone()
            .or_else(|| crate::config::default_config_file(&env)),
        explicit: args.config.is_some(),
        env,
        context,
    }
}

/// The kubeconfig's `(cluster, context)` for `context` (else its current context), for k9s's
/// per-context files; `None` when there is no kubeconfig or no such context.
fn kubeconfig_context(args: &DashboardArgs) -> Option<(String, String)> {
    // The in-process demo's kubeconfig (see `DemoServer::kubeconfig_yaml`): cluster
    // `kinformer-demo`, context `kinformer-demo` (or `kinformer-demo-<user>`), so its k9s
    // files are `clusters/kinformer-demo/<context>/`, never the user's current context's.
    if args.demo && args.demo_clusters.is_none() {
        let context = match &args.demo_as_namespace_user {
            Some(_) => format!("{DEMO_CLUSTER}-{DEMO_NAMESPACE_USER}"),
            None => DEMO_CLUSTER.to_string(),
        };
        return Some((DEMO_CLUSTER.to_string(), context));
    }
    let (kc, _) = load_kubeconfig(args.kubeconfig.as_deref()).ok()?;
    let name = args
        .context
        .clone()
        .filter(|c| !c.contains(',') && !is_glob(c))
        .or_else(|| kc.current_context.clone())?;
    let cluster = kc
        .contexts
        .iter()
        .find(|c| c.name == name)
        .and_then(|c| c.context.as_ref())
        .map(|c| c.cluster.clone())?;
    Some((cluster, name))
}

/// k9s's `readOnly` for every context of the kubeconfig (each context's own file over
/// `config.yaml`'s), and `--write`.
fn k9s_readonly(args: &DashboardArgs, user: &UserConfig) -> crate::ui::fleet::K9sReadOnly {
    let mut contexts = Vec::new();
    if let (Some(k9s), Ok((kc, _))) = (&user.k9s, load_kubeconfig(args.kubeconfig.as_deref())) {
        for c in &kc.contexts {
            let Some(cluster) = c.context.as_ref().map(|x| x.cluster.as_str()) else {
                continue;
            };
            if let Some(r) = crate::config::context_read_only(k9s, cluster, &c.name) {
                contexts.push((c.name.clone(), r));
            }
        }
    }
    crate::ui::fleet::K9sReadOnly {
        global: user.k9s_read_only.clone(),
        contexts,
        write: args.write,
    }
}

/// The key map from the defaults, the user's key file and config (`config.toml`'s `[[bind]]`,
/// k9s hotkeys and plugins), and the problems to show on the footer: a key file that cannot
/// be used (the default keys are used meanwhile; the file is not touched), a key a user's
/// file binds to two actions that apply in the same place (one line each).
fn user_key_map(
    user_keys: Option<&crate::ui::keys::UserFile>,
    user: &UserConfig,
) -> Result<(KeyMap, Vec<crate::config::Problem>), MainError> {
    let (keys, keys_problem) = match KeyMap::load(user_keys) {
        Ok(keys) => (keys, None),
        Err(e) => {
            let crate::ui::Error::KeyMap { message, .. } = e;
            let file = user_keys
                .map(|f| std::path::PathBuf::from(&f.origin))
                .unwrap_or_default();
            let keys = KeyMap::load(None).map_err(|e| MainError::Usage(e.to_string()))?;
            let problem = crate::config::Problem::new(
                &file,
                0,
                0,
                format!("{message}; using the default keys"),
            );
            (keys, Some(problem))
        }
    };
    let (mut keys, mut key_problems) = keys.with_user_config(user);
    key_problems.extend(keys_problem);
    key_problems.extend(
        keys.take_clashes().into_iter().map(|(file, line)| {
            crate::config::Problem::new(std::path::Path::new(&file), 0, 0, line)
        }),
    );
    Ok((keys, key_problems))
}

/// `kinformer config`: what was read from where, and every problem. With `--kubeconfig`, the
/// alias targets and plugin scopes are checked against the cluster's discovery when it
/// answers (within a few seconds); otherwise the report says they were not checked.
pub async fn run_config(args: &DashboardArgs) -> Result<(), MainError> {
    let mut cfg = UserConfig::load(&load_options(args, kubeconfig_context(args)));
    // The keys the dashboard would bind: a hotkey or plugin on a key already bound is refused
    // there, and named here.
    let user_keys = args
        .keys
        .clone()
        .or_else(crate::ui::keys::user_keys_path)
        .and_then(|p| crate::runtime::user_file::read(&p).ok().flatten());
    let (_, key_problems) = user_key_map(user_keys.as_ref(), &cfg)?;
    cfg.problems.extend(key_problems);
    let mut checked = String::new();
    if args.kubeconfig.is_some() {
        let discover = async {
            let (kc, path) = load_kubeconfig(args.kubeconfig.as_deref())?;
            let conn = Connection::from_kubeconfig(kc, path, args.context.clone()).await?;
            let resources = conn.discover().await?;
            Ok::<_, ClusterError>((conn.context.clone(), resources))
        };
        match tokio::time::timeout(std::time::Duration::from_secs(10), discover).await {
            Ok(Ok((context, resources))) => {
                let (_, found) = crate::ui::user_config::check_against(&cfg, &resources);
                checked = format!(
                    "Alias targets and plugin scopes checked against {context}'s discovery ({} kinds).\n",
                    resources.len()
                );
                cfg.problems.extend(found);
            }
            Ok(Err(e)) => {
                checked = format!("Alias targets and plugin scopes not checked: {e}\n");
            }
            Err(_) => {
                checked =
                    "Alias targets and plugin scopes not checked: discovery did not answer in 10 s\n"
                        .to_string();
            }
        }
    }
    print!("{checked}{}", cfg.report());
    Ok(())
}

/// `kinformer completions SHELL`: clap's completion script on stdout.
pub fn run_completions(shell: clap_complete::Shell) -> Result<(), MainError> {
    use clap::CommandFactory;
    use std::io::Write as _;
    let mut cmd = crate::cli::Cli::command();
    // Into a buffer first: clap_complete panics on a failed write (`| head` closing the pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "kinformer", &mut script);
    match std::io::stdout().write_all(&script) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(MainError::Runtime(format!(
            "cannot write the completion script: {e}"
        ))),
    }
}

/// The dashboard (default command).
pub async fn run_dashboard(mut args: DashboardArgs) -> Result<(), MainError> {
    // Bad input is reported before the terminal is touched.
    let user = UserConfig::load(&load_options(&args, kubeconfig_context(&args)));
    for p in &user.problems {
        tracing::warn!(problem = %p, "configuration");
    }
    // What a k9s user's custom columns read stays in the cache (set before any informer).
    crate::render::view_mask::install(crate::ui::custom_columns::view_masks(
        &crate::ui::custom_columns::custom_views(&user),
    ));
    let settings = &user.settings;
    let resource = args
        .resource
        .clone()
        .or_else(|| settings.default_view.clone())
        // k9s's per-context `view.active` (the view left last time).
        .or_else(|| user.context_state.as_ref().and_then(|s| s.view.clone()))
        .unwrap_or_else(|| "pods".to_string());
    let metrics_period = args
        .metrics_period
        .or(settings.metrics_period)
        .unwrap_or(15);
    let log_buffer_mib = args
        .log_buffer_mib
        .or(settings.log_buffer_mib)
        .unwrap_or(16);
    let history_mib = args.history_mib.or(settings.history_mib).unwrap_or(64);
    if args.readonly_contexts.is_none() {
        args.readonly_contexts = settings.readonly_contexts.as_ref().map(|v| v.join(","));
    }
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
    let user_keys = match keys_path.as_deref() {
        Some(path) => crate::runtime::user_file::read(path).map_err(MainError::Usage)?,
        None => None,
    };
    let (keys, key_problems) = user_key_map(user_keys.as_ref(), &user)?;
    if let Some(sel) = &args.selector {
        LabelSelector::parse(sel)
            .map_err(|e| MainError::Usage(format!("invalid label selector {sel:?}: {e}")))?;
    }
    let demo_spec = (args.demo || args.demo_clusters.is_some()).then(|| DemoSpec {
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
    });
    // One demo cluster is seeded while the dashboard runs: its progress is the footer's line.
    let mut demo_seeding = None;
    let demo = match (demo_spec, args.demo_clusters) {
        (None, _) => None,
        (Some(spec), Some(n)) if n > 1 => {
            let fleet = start_demo_fleet(&spec, n as usize).await?;
            for (_, d) in &fleet.members {
                install_provider_crds(&d.handle, args.demo_crds as usize)?;
            }
            Some(DemoRun::Fleet(fleet))
        }
        (Some(spec), _) => {
            let d = launch_demo(&spec).await?;
            install_provider_crds(&d.handle, args.demo_crds as usize)?;
            demo_seeding = Some(d.progress.clone());
            Some(DemoRun::one(d))
        }
    };
    let connection = connect_selected(&args, demo.as_ref()).await;
    let (connection, fleet) = match connection {
        Ok(c) => c,
        Err(e) => {
            if let Some(d) = demo {
                d.stop().await;
            }
            return Err(e);
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
    if server_version.is_some() && crate::cluster::resolve(&resources, &resource).is_none() {
        return Err(MainError::Usage(format!(
            "the server doesn't have a resource type {resource:?}"
        )));
    }
    tracing::info!(context = %connection.context, ?server_version, kinds = resources.len(), "connected");
    // The demo cluster's workloads live outside `default`: without -n, show every namespace
    // (the namespace-scoped demo user starts in its namespace, as on a real cluster).
    let demo_all = demo.is_some() && args.demo_as_namespace_user.is_none();
    // k9s's per-context `namespace.active` when no -n / -A says (`all`: every namespace).
    let saved_active = user
        .context_state
        .as_ref()
        .and_then(|s| s.active_namespace.clone())
        .filter(|_| args.namespace.is_none() && !demo_all);
    let saved_namespace = saved_active.clone().filter(|n| n != "all");
    let namespace = if args.all_namespaces
        || (demo_all && args.namespace.is_none())
        || saved_active.as_deref() == Some("all")
    {
        None
    } else {
        // `-n shop,payments`: one table over several namespaces.
        Some(
            args.namespace
                .as_deref()
                .and_then(crate::ui::scope::parse)
                .or_else(|| saved_namespace.clone())
                .unwrap_or_else(|| connection.default_namespace.clone()),
        )
    };
    let banner = demo.as_ref().map(DemoRun::banner);
    let (history, recorder) = flight_recorder(
        &args,
        &user,
        &connection,
        server_version.clone(),
        history_mib,
    )?;
    let app = AppConfig {
        context: connection.context.clone(),
        namespace,
        resource,
        selector: args.selector.clone(),
        readonly: args.readonly,
        log_cap_bytes: (log_buffer_mib as usize).saturating_mul(1024 * 1024),
        context_namespace: Some(connection.default_namespace.clone()),
        fleet,
        readonly_contexts: args.readonly_contexts.clone(),
        k9s_readonly: k9s_readonly(&args, &user),
        now_ms: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0),
        user: Arc::new(user),
        config_problems: key_problems,
    };
    let result = runtime::run(RuntimeConfig {
        connection,
        server_version,
        start_error,
        resources,
        app,
        keys,
        banner,
        demo_seeding,
        metrics_period: std::time::Duration::from_secs(metrics_period.max(1)),
        history_bytes: (history_mib as usize).saturating_mul(1024 * 1024),
        recorder,
        history,
    })
    .await
    .map_err(|e| MainError::Runtime(e.to_string()));
    if let Some(d) = demo {
        d.stop().await;
    }
    result
}

/// `--record FILE` and `--history-file FILE` (or config.toml's `history_file`): the history
/// loaded from the file (this cluster's objects) and the recorder writing into it.
type Flight = (
    Option<Arc<crate::informer::history::History>>,
    Option<Arc<crate::recorder::Recorder>>,
);

fn flight_recorder(
    args: &DashboardArgs,
    user: &UserConfig,
    connection: &Connection,
    server_version: Option<String>,
    history_mib: u64,
) -> Result<Flight, MainError> {
    use crate::recorder::{Recorder, RecorderOptions, Recording, SessionInfo};
    let history_file = args
        .history_file
        .clone()
        .or_else(|| user.settings.history_file.clone())
        .map(|p| match p.strip_prefix("~") {
            Ok(rest) => dirs::home_dir().map_or(p.clone(), |h| h.join(rest)),
            Err(_) => p,
        });
    if args.record.is_some() && history_file.is_some() {
        return Err(MainError::Usage(
            "--record and --history-file both record: give one file".into(),
        ));
    }
    let cluster = crate::runtime::record::cluster_of(connection);
    let usage = |e: crate::recorder::Error| MainError::Usage(e.to_string());
    let history = match &history_file {
        Some(f) if std::fs::metadata(f).is_ok_and(|m| m.len() > 0) => {
            let h = Arc::new(crate::informer::history::History::new(
                (history_mib as usize).saturating_mul(1024 * 1024),
            ));
            Recording::open(f)
                .and_then(|r| r.load_cluster(&h, Some(&cluster), |_, _| {}))
                .map_err(usage)?;
            Some(h)
        }
        _ => None,
    };
    let Some(file) = args.record.clone().or(history_file) else {
        return Ok((history, None));
    };
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| MainError::Usage(format!("{}: {e}", dir.display())))?;
    }
    let recorder = Recorder::open(
        &file,
        SessionInfo {
            cluster,
            context: connection.context.clone(),
            server_version,
            kinds: vec!["dashboard".into()],
        },
        RecorderOptions::default(),
    )
    .map_err(usage)?;
    Ok((history, Some(Arc::new(recorder))))
}

/// `kinformer record`: the dashboard's informers without a terminal, into a recording.
pub async fn run_record(
    args: crate::cli::RecordArgs,
    kubeconfig: Option<std::path::PathBuf>,
) -> Result<(), MainError> {
    if args.namespace.as_deref().is_some_and(|n| n.contains(',')) {
        return Err(MainError::Usage(
            "record -n takes one namespace (or none: every namespace)".into(),
        ));
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
                metrics: false,
                namespace_user: None,
                pod_shape: PodShape::Compact,
                watch_list_unsupported: false,
                log_lines_per_second: 0.0,
            })
            .await?,
        )
    } else {
        None
    };
    let result = async {
        let (kc, path) = match &demo {
            Some(d) => (
                Kubeconfig::from_yaml(&d.handle.kubeconfig_yaml())
                    .map_err(|e| MainError::Runtime(format!("demo kubeconfig: {e}")))?,
                "demo".to_string(),
            ),
            None => load_kubeconfig(kubeconfig.as_deref())?,
        };
        let connection = Connection::from_kubeconfig(kc, path, args.context.clone()).await?;
        let version = connection.server_version().await?;
        let resources = connection.discover().await?;
        crate::runtime::record::resolve_kinds(&resources, &args.kinds).map_err(MainError::Usage)?;
        let stop = tokio_util::sync::CancellationToken::new();
        let on_signal = stop.clone();
        tokio::spawn(async move {
            wait_for_shutdown_signal().await;
            on_signal.cancel();
        });
        let plan = crate::runtime::record::RecordPlan {
            out: args.out.clone(),
            duration: args.duration,
            kinds: args.kinds.clone(),
            namespace: args.namespace.clone(),
            max_bytes: args.max_mib.map(|m| m.saturating_mul(1024 * 1024)),
            quiet: args.quiet,
            informers_only: args.informers_only,
        };
        crate::runtime::record::record(connection, Some(version), &resources, &plan, stop)
            .await
            .map_err(MainError::Runtime)
    }
    .await;
    if let Some(d) = demo {
        d.stop().await;
    }
    let line = result?;
    if !args.quiet {
        eprintln!("{line}");
    }
    Ok(())
}

/// `kinformer replay FILE`: the dashboard on a recording, with no cluster.
pub async fn run_replay(args: crate::cli::ReplayArgs) -> Result<(), MainError> {
    let dashboard = DashboardArgs {
        kubeconfig: None,
        context: None,
        all_contexts: false,
        readonly_contexts: None,
        namespace: None,
        all_namespaces: true,
        selector: None,
        resource: None,
        readonly: true,
        write: false,
        demo: false,
        demo_pods: 0,
        demo_crds: 0,
        cache_dir: None,
        demo_clusters: None,
        demo_churn: 0.0,
        demo_no_metrics: true,
        demo_as_namespace_user: None,
        metrics_period: None,
        log_buffer_mib: None,
        history_mib: None,
        record: None,
        history_file: None,
        demo_log_rate: 0.0,
        log_file: None,
        keys: None,
        config: None,
    };
    let user = UserConfig::load(&load_options(&dashboard, None));
    let user_keys = crate::ui::keys::user_keys_path()
        .and_then(|p| crate::runtime::user_file::read(&p).ok().flatten());
    let (keys, _) = user_key_map(user_keys.as_ref(), &user)?;
    // A bad file is one line before the terminal is touched.
    crate::recorder::Recording::open(&args.file).map_err(|e| MainError::Usage(e.to_string()))?;
    crate::runtime::replay::run(crate::runtime::replay::ReplaySetup {
        file: args.file,
        at: args.at,
        resource: args.resource,
        namespace: args.namespace,
        keys,
        user: Arc::new(user),
    })
    .await
    .map_err(MainError::Runtime)
}

/// Load the kubeconfig (the demo's, else --kubeconfig / $KUBECONFIG / ~/.kube/config), select
/// the contexts (`--context a,b`, globs, `--all-contexts`; a demo fleet: all its members unless
/// --context says) and connect to the first. Returns the connection and the selected contexts
/// when there are several (else empty: single-cluster mode).
async fn connect_selected(
    args: &DashboardArgs,
    demo: Option<&DemoRun>,
) -> Result<(Connection, Vec<String>), MainError> {
    let (kubeconfig, path, context) = match demo {
        Some(d) => {
            let kubeconfig = Kubeconfig::from_yaml(&d.kubeconfig_yaml())
                .map_err(|e| MainError::Runtime(format!("demo kubeconfig: {e}")))?;
            let context = match d {
                DemoRun::Fleet(_) => Some(args.context.clone().unwrap_or_else(|| "*".into())),
                DemoRun::One { .. } => args.context.clone(),
            };
            (kubeconfig, "demo".to_string(), context)
        }
        None => {
            let (kubeconfig, path) = load_kubeconfig(args.kubeconfig.as_deref())?;
            let context = if args.all_contexts {
                Some("*".to_string())
            } else {
                args.context.clone()
            };
            (kubeconfig, path, context)
        }
    };
    let (first, fleet) = match context {
        Some(spec) if spec.contains(',') || is_glob(&spec) => {
            let available: Vec<String> =
                kubeconfig.contexts.iter().map(|c| c.name.clone()).collect();
            let selected = select_contexts(&available, &spec, false)
                .map_err(|e| MainError::Usage(format!("--context {spec}: {e} in {path}")))?;
            let first = selected.first().cloned();
            let fleet = if selected.len() > 1 {
                selected
            } else {
                Vec::new()
            };
            (first, fleet)
        }
        other => (other, Vec::new()),
    };
    let mut connection = Connection::from_kubeconfig(kubeconfig, path, first).await?;
    // kubectl's discovery cache, shared with it; not for the demo, a fresh server on a new port
    // each run.
    if demo.is_none() {
        connection.cache_root = args
            .cache_dir
            .clone()
            .or_else(crate::cluster::discovery_cache::default_root);
    }
    Ok((connection, fleet))
}

/// The dashboard's demo: one cluster (`--demo`) or a fleet (`--demo-clusters N`).
enum DemoRun {
    /// One cluster, seeding in the background; its task ends with it running (churn started).
    One {
        url: String,
        kubeconfig: String,
        cancel: tokio_util::sync::CancellationToken,
        running: tokio::task::JoinHandle<Result<RunningDemo, MainError>>,
        /// Dropped unstopped (the dashboard returned an error): the seed stops too, or the
        /// runtime's end would wait for its thread.
        _stop_seed: tokio_util::sync::DropGuard,
    },
    Fleet(RunningFleet),
}

impl DemoRun {
    fn one(d: SeedingDemo) -> DemoRun {
        DemoRun::One {
            url: d.handle.base_url(),
            kubeconfig: d.handle.kubeconfig_yaml(),
            cancel: d.cancel.clone(),
            _stop_seed: d.cancel.clone().drop_guard(),
            running: tokio::spawn(d.seeded()),
        }
    }

    fn kubeconfig_yaml(&self) -> String {
        match self {
            DemoRun::One { kubeconfig, .. } => kubeconfig.clone(),
            DemoRun::Fleet(f) => f.kubeconfig_yaml(),
        }
    }

    /// The footer's start-up message (one cluster: once seeded, with the objects stored).
    fn banner(&self) -> String {
        match self {
            DemoRun::One { url, .. } => format!("demo cluster at {url}"),
            DemoRun::Fleet(f) => {
                let names: Vec<&str> = f.members.iter().map(|(n, _)| n.as_str()).collect();
                format!(
                    "demo fleet {} ({} objects; :ctx NAME shows just one, :diff compares an object)",
                    names.join(", "),
                    f.seeded_objects()
                )
            }
        }
    }

    async fn stop(self) {
        match self {
            DemoRun::One {
                cancel, running, ..
            } => {
                cancel.cancel();
                if let Ok(Ok(d)) = running.await {
                    d.stop().await;
                }
            }
            DemoRun::Fleet(f) => f.stop().await,
        }
    }
}

/// A running demo cluster: the HTTP server plus the churn loop feeding it.
pub struct RunningDemo {
    pub handle: DemoHandle,
    pub churn: tokio::task::JoinHandle<()>,
    /// The simulated controllers following clients' scaling and cordons.
    pub scales: tokio::task::JoinHandle<()>,
    pub seeded_objects: usize,
}

/// Serve `n` generated provider CRDs with a couple of objects each (`--demo-crds`, see
/// [`crate::demo::provider_crds`]) in one demo cluster.
fn install_provider_crds(handle: &DemoHandle, n: usize) -> Result<(), MainError> {
    if n == 0 {
        return Ok(());
    }
    handle
        .cluster()
        .install_provider_crds(n)
        .map(|_| ())
        .map_err(|e| MainError::Runtime(format!("demo CRDs: {e}")))
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

/// The in-process demo's cluster and context name in its kubeconfig.
const DEMO_CLUSTER: &str = "kinformer-demo";

/// A seed mutation reduced to what [`Simulator::rejected`] reads: its resource, namespace and
/// name (a delete is kept whole: it holds no object).
fn seed_key(m: &Mutation) -> Mutation {
    match m {
        Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
            let mut meta = serde_json::Map::new();
            for field in ["namespace", "name"] {
                if let Some(v) = object.pointer(&format!("/metadata/{field}")) {
                    meta.insert(field.into(), v.clone());
                }
            }
            let object = serde_json::json!({ "metadata": meta });
            match m {
                Mutation::Create { .. } => Mutation::Create {
                    resource: *resource,
                    object,
                },
                _ => Mutation::Update {
                    resource: *resource,
                    object,
                },
            }
        }
        Mutation::Delete { .. } => m.clone(),
    }
}

/// Start the demo API server on loopback, seed it from the simulator and start churn.
pub async fn start_demo(spec: &DemoSpec) -> Result<RunningDemo, MainError> {
    launch_demo(spec).await?.seeded().await
}

/// A demo cluster whose server already answers while the simulator's seed is stored in a
/// background thread ([`launch_demo`]); [`SeedingDemo::seeded`] waits for the seed and starts
/// churn and the simulated controllers.
pub struct SeedingDemo {
    pub handle: DemoHandle,
    /// The seed's progress: a value at every percent, the last one with the objects stored.
    pub progress: tokio::sync::watch::Receiver<DemoSeeding>,
    /// Cancelled: the seed stops at the next object (a user quitting while it goes on).
    pub cancel: tokio_util::sync::CancellationToken,
    seeding: tokio::task::JoinHandle<(Simulator, usize)>,
    churn_per_sec: f64,
}

/// Start the demo API server on loopback and seed it from the simulator in a background thread:
/// the server answers at once (discovery, lists and watches of what is stored so far), so the
/// dashboard draws while 60,000 pods are stored.
pub async fn launch_demo(spec: &DemoSpec) -> Result<SeedingDemo, MainError> {
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
        // The clock follows the wall clock instead (see the churn loop below): a fixed step per
        // change would run it ahead of real time and show ages as `<invalid>`.
        step_millis: 0,
        ..SimConfig::default()
    });
    let first = DemoSeeding {
        pods: spec.pods,
        percent: 0,
        seeded: None,
    };
    let (tx, progress) = tokio::sync::watch::channel(first);
    let cancel = tokio_util::sync::CancellationToken::new();
    let (cluster, stop) = (handle.cluster(), cancel.clone());
    let seeding = tokio::task::spawn_blocking(move || seed_demo(sim, &cluster, &tx, &stop));
    Ok(SeedingDemo {
        handle,
        progress,
        cancel,
        seeding,
        churn_per_sec: spec.churn_per_sec,
    })
}

/// Store the simulator's seed in `cluster`, publishing the progress at every percent; returns
/// the simulator (told of refused objects) and the objects offered.
fn seed_demo(
    mut sim: Simulator,
    cluster: &crate::demo::DemoCluster,
    progress: &tokio::sync::watch::Sender<DemoSeeding>,
    cancel: &tokio_util::sync::CancellationToken,
) -> (Simulator, usize) {
    let pods = progress.borrow().pods;
    // Stream the seed: each object is rendered, stored and dropped in turn, so seeding 150k pods
    // never holds every seed object at once. Refusals are reported after the iterator ends (it
    // borrows the simulator).
    let mut refused = Vec::new();
    let mut seeded_objects = 0usize;
    let mut shown = 0u8;
    let mut iter = sim.seed_iter();
    while let Some(m) = iter.next() {
        if cancel.is_cancelled() {
            break;
        }
        seeded_objects += 1;
        // What the simulator needs of a refused mutation is its key: a clone of every seed
        // object (and its drop) was ~20 % of seeding.
        let key = seed_key(&m);
        if let Err(e) = cluster.apply(m) {
            // The demo cluster creates the system namespaces and the Widget CRD itself.
            if e.code != 409 {
                tracing::warn!(error = %e, "demo seed mutation rejected");
            }
            refused.push(key);
        }
        let (done, planned) = iter.progress();
        // 100 % is said once everything is stored.
        let percent = u8::try_from((done * 100 / planned.max(1)).min(99)).unwrap_or(99);
        if percent != shown {
            shown = percent;
            progress.send_replace(DemoSeeding {
                pods,
                percent,
                seeded: None,
            });
        }
    }
    drop(iter);
    for m in &refused {
        sim.rejected(m);
    }
    progress.send_replace(DemoSeeding {
        pods,
        percent: 100,
        seeded: Some(seeded_objects),
    });
    (sim, seeded_objects)
}

impl SeedingDemo {
    /// Wait for the seed, then start churn and the simulated controllers following clients.
    pub async fn seeded(self) -> Result<RunningDemo, MainError> {
        let (sim, seeded_objects) = match self.seeding.await {
            Ok(s) => s,
            Err(e) => {
                self.handle.shutdown().await;
                return Err(MainError::Runtime(format!("demo seed: {e}")));
            }
        };
        let cluster = self.handle.cluster();
        let sim = Arc::new(Mutex::new(sim));
        let (scale_sim, cordon_sim, scale_rejected) = (sim.clone(), sim.clone(), sim.clone());
        let (template_sim, deleted_sim) = (sim.clone(), sim.clone());
        let scales = crate::demo::churn::follow_clients(
            cluster.clone(),
            move |ns, kind, name, to| live(&scale_sim).external_scale(ns, kind, name, to),
            move |node, on| live(&cordon_sim).set_cordoned(node, on),
            move |ns, kind, name, template, generation| {
                live(&template_sim).external_template(ns, kind, name, template, generation)
            },
            move |ns, name, uid, gone| live(&deleted_sim).external_pod_deleted(ns, name, uid, gone),
            move |m, _| scale_rejected.lock().rejected(m),
        );
        let tick_sim = sim.clone();
        let churn = run_churn(
            cluster,
            move |n| live(&tick_sim).tick(n),
            move |m, _| sim.lock().rejected(m),
            self.churn_per_sec,
        );
        Ok(RunningDemo {
            handle: self.handle,
            churn,
            scales,
            seeded_objects,
        })
    }
}

/// The live demo's simulator with its clock moved to the wall clock: the objects it writes
/// carry real timestamps (ages never run ahead of the dashboard's clock).
fn live(sim: &Mutex<Simulator>) -> parking_lot::MutexGuard<'_, Simulator> {
    let mut guard = sim.lock();
    guard.advance_clock_to(chrono::Utc::now());
    guard
}

impl RunningDemo {
    /// Stop churn, the simulated controllers and the server.
    pub async fn stop(self) {
        self.churn.abort();
        self.scales.abort();
        self.handle.shutdown().await;
    }
}

/// Several running demo clusters (`--demo-clusters N`), each its own server, seed and name.
pub struct RunningFleet {
    /// (name, cluster) in kubeconfig order; the first is the current context.
    pub members: Vec<(String, RunningDemo)>,
}

impl RunningFleet {
    /// One kubeconfig with a context per member (see [`crate::demo::fleet`]).
    pub fn kubeconfig_yaml(&self) -> String {
        let members: Vec<FleetMember> = self
            .members
            .iter()
            .map(|(name, d)| FleetMember {
                name: name.clone(),
                server: d.handle.base_url(),
            })
            .collect();
        fleet_kubeconfig_yaml(&members)
    }

    /// Objects seeded over every member.
    pub fn seeded_objects(&self) -> usize {
        self.members.iter().map(|(_, d)| d.seeded_objects).sum()
    }

    /// Stop every member.
    pub async fn stop(self) {
        for (_, d) in self.members {
            d.stop().await;
        }
    }
}

/// Start `clusters` demo clusters as [`start_demo`] does, concurrently; member `i` gets the name
/// [`member_name`]`(i)`, the seed [`member_seed`]`(spec.seed, i)` and, when `spec.port` is not 0,
/// the port `spec.port + i`. A member that fails to start stops the others.
pub async fn start_demo_fleet(spec: &DemoSpec, clusters: usize) -> Result<RunningFleet, MainError> {
    if clusters == 0 || clusters > MAX_FLEET {
        return Err(MainError::Usage(format!(
            "a demo fleet has 1 to {MAX_FLEET} clusters, not {clusters}"
        )));
    }
    let mut tasks = Vec::with_capacity(clusters);
    for i in 0..clusters {
        let port = if spec.port == 0 {
            0
        } else {
            u16::try_from(usize::from(spec.port) + i).map_err(|_| {
                MainError::Usage(format!(
                    "ports {} to {} do not all exist",
                    spec.port,
                    usize::from(spec.port) + clusters - 1
                ))
            })?
        };
        let member = DemoSpec {
            port,
            seed: member_seed(spec.seed, i),
            ..spec.clone()
        };
        // Seeding is CPU work: one task per member lets them seed on several cores.
        tasks.push(tokio::spawn(async move { start_demo(&member).await }));
    }
    let mut members = Vec::with_capacity(clusters);
    let mut failure = None;
    for (i, task) in tasks.into_iter().enumerate() {
        match task.await {
            Ok(Ok(d)) => members.push((member_name(i), d)),
            Ok(Err(e)) => failure = failure.or(Some(e)),
            Err(e) => failure = failure.or(Some(MainError::Runtime(format!("demo fleet: {e}")))),
        }
    }
    let fleet = RunningFleet { members };
    match failure {
        None => Ok(fleet),
        Some(e) => {
            fleet.stop().await;
            Err(e)
        }
    }
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
    if let Some(parent) = args.exit_with_parent {
        crate::process::exit_with_parent(parent)
            .map_err(|e| MainError::Runtime(format!("--exit-with-parent {parent}: {e}")))?;
    }
    let spec = DemoSpec {
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
    };
    if args.clusters > 1 {
        return run_demo_fleet_server(&args, &spec).await;
    }
    let demo = start_demo(&spec).await?;
    install_provider_crds(&demo.handle, args.crds as usize)?;
    if let Some(mbps) = args.server_mbps {
        demo.handle.faults().set_send_rates(
            mbps.json.saturating_mul(1_000_000),
            mbps.protobuf().saturating_mul(1_000_000),
        );
    }
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
    demo.stop().await;
    Ok(())
}

/// `kinformer demo-server --clusters N`: N servers, one kubeconfig with a context each.
async fn run_demo_fleet_server(args: &DemoServerArgs, spec: &DemoSpec) -> Result<(), MainError> {
    if args.as_namespace_user.is_some() {
        return Err(MainError::Usage(
            "--as-namespace-user serves one cluster: it cannot be combined with --clusters".into(),
        ));
    }
    let fleet = start_demo_fleet(spec, args.clusters as usize).await?;
    for (_, d) in &fleet.members {
        install_provider_crds(&d.handle, args.crds as usize)?;
    }
    if let Err(e) = std::fs::write(&args.kubeconfig_out, fleet.kubeconfig_yaml()) {
        fleet.stop().await;
        return Err(MainError::Runtime(format!("writing kubeconfig: {e}")));
    }
    println!(
        "demo fleet of {} clusters ({} objects seeded, {} pods each ({:?} shape), churn {}/s each):",
        fleet.members.len(),
        fleet.seeded_objects(),
        args.pods,
        args.pod_shape,
        args.churn,
    );
    for (name, d) in &fleet.members {
        println!(
            "  {name}: {0} (fault injection: POST {0}/_demo/faults/<action>, e.g. restart?downtime_ms=30000 takes it down)",
            d.handle.base_url()
        );
    }
    println!(
        "kubeconfig written to {0} with one context per cluster: kubectl --kubeconfig {0} --context {1} get pods -A; Ctrl-C stops",
        args.kubeconfig_out.display(),
        fleet
            .members
            .first()
            .map(|(n, _)| n.as_str())
            .unwrap_or_default()
    );
    wait_for_shutdown_signal().await;
    fleet.stop().await;
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
        server_mbps: args.server_mbps,
        clusters: args.clusters as usize,
        wire: args.wire,
    })
    .await
    .map_err(|e| MainError::Runtime(format!("bench: {e}")))?;
    print!("{}", report.to_table());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_mutations_key_keeps_its_kind_namespace_name_and_operation() {
        let mut sim = Simulator::new(SimConfig {
            pods: 30,
            ..SimConfig::default()
        });
        let id = |m: &Mutation| match m {
            Mutation::Create { resource, object } | Mutation::Update { resource, object } => (
                matches!(m, Mutation::Create { .. }),
                resource.plural,
                object.pointer("/metadata/namespace").cloned(),
                object.pointer("/metadata/name").cloned(),
            ),
            Mutation::Delete {
                resource,
                namespace,
                name,
            } => (
                false,
                resource.plural,
                namespace.clone().map(Into::into),
                Some(name.clone().into()),
            ),
        };
        let mut namespaced = 0;
        for m in sim.seed_iter() {
            let key = seed_key(&m);
            assert_eq!(id(&key), id(&m));
            namespaced += usize::from(id(&m).2.is_some());
        }
        assert!(namespaced > 0, "the seed has namespaced objects");
    }

    #[test]
    fn a_user_key_file_binding_one_key_to_two_actions_in_one_place_is_a_footer_problem() {
        let file = crate::ui::keys::UserFile {
            origin: "/home/me/.config/kinformer/keys.toml".into(),
            text: "[[bind]]\naction = \"yaml\"\nkeys = [\"x\"]\n\
                   [[bind]]\naction = \"describe\"\nkeys = [\"x\"]\n"
                .into(),
        };
        let (keys, problems) = user_key_map(Some(&file), &UserConfig::default()).unwrap();
        let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        assert_eq!(
            lines,
            vec![
                "/home/me/.config/kinformer/keys.toml: key x is bound to both yaml and describe, \
                 which both apply everywhere: x does yaml, describe is never reached there"
                    .to_string()
            ]
        );
        // The file is used as written.
        assert_eq!(
            keys.binding(crate::ui::keys::KeyAction::Describe)
                .map(|b| b.keys.len()),
            Some(1)
        );
    }

    #[test]
    fn each_kubeconfig_contexts_own_k9s_read_only_is_read_for_switching_to_it() {
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            "apiVersion: v1\nkind: Config\ncurrent-context: dev\n\
             clusters:\n- name: c1\n  cluster: {server: 'https://127.0.0.1:1'}\n\
             - name: c2\n  cluster: {server: 'https://127.0.0.1:2'}\n\
             contexts:\n- name: dev\n  context: {cluster: c1, user: u}\n\
             - name: prod\n  context: {cluster: c2, user: u}\n\
             users:\n- name: u\n  user: {token: t}\n",
        )
        .unwrap();
        let k9s = dir.path().join("k9s");
        let prod = k9s.join("clusters/c2/prod");
        std::fs::create_dir_all(&prod).unwrap();
        std::fs::write(prod.join("config.yaml"), "k9s:\n  readOnly: true\n").unwrap();
        let user = UserConfig {
            k9s: Some(crate::config::K9sPaths::at(k9s)),
            ..UserConfig::default()
        };
        use clap::Parser as _;
        let args = crate::cli::Cli::try_parse_from([
            "kinformer",
            "--kubeconfig",
            &kubeconfig.display().to_string(),
        ])
        .unwrap()
        .dashboard;
        let ro = k9s_readonly(&args, &user);
        assert!(ro.refuses("prod").is_some());
        assert!(ro.refuses("dev").is_none());
        assert!(!ro.write);
    }
}
