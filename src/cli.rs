//! Command-line interface: flags as kubectl users expect them.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// A terminal dashboard for Kubernetes fed by shared informers: live tables, the DeltaFIFO event
/// log, and label filters answered from the indexer.
#[derive(Debug, Parser)]
#[command(name = "kinformer", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub dashboard: DashboardArgs,
}

/// Flags of the dashboard (the default command).
#[derive(Debug, Clone, Args)]
pub struct DashboardArgs {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, global = true, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use (default: current-context). Several clusters: names
    /// and globs, comma-separated (`prod-eu,staging`, `'prod-*'`): the header shows each one's
    /// state, the tables the first (`:ctx +NAME` / `:ctx -NAME` add and remove).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Every context of the kubeconfig (as `--context '*'`).
    #[arg(long, conflicts_with = "context")]
    pub all_contexts: bool,
    /// Contexts (names and globs, comma-separated, e.g. `'prod-*'`) where writes are refused
    /// as with --readonly, while the others stay writable.
    #[arg(long, value_name = "PATTERNS")]
    pub readonly_contexts: Option<String>,
    /// Namespace scope (default: the context's namespace).
    #[arg(
        short = 'n',
        long,
        value_name = "NAMESPACE",
        conflicts_with = "all_namespaces",
        value_parser = parse_namespaces
    )]
    pub namespace: Option<String>,
    /// Show every namespace.
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector applied to the first view, e.g. `app=web,tier!=db` or `env in (prod,stage)`.
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Resource to show first (any name `:` accepts: po, deploy, svc, a CRD plural...;
    /// default: config.toml's `default_view`, else pods).
    #[arg(short = 'r', long, value_name = "RESOURCE")]
    pub resource: Option<String>,
    /// Never write to the cluster: delete and other writes are refused.
    #[arg(long)]
    pub readonly: bool,
    /// Allow writes where k9s's `readOnly: true` (its config.yaml, or the context's) would
    /// refuse them, as k9s's --write (--readonly-contexts still applies).
    #[arg(long, conflicts_with = "readonly")]
    pub write: bool,
    /// kubectl's cache directory: discovery is read from and written to DIR/discovery/HOST, as
    /// kubectl does (default: $KUBECACHEDIR, else ~/.kube/cache; fresh for 6 hours).
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Run against a built-in demo cluster on loopback (no cluster needed).
    #[arg(long)]
    pub demo: bool,
    /// Pods in the demo cluster (with --demo).
    #[arg(long, value_name = "N", default_value_t = 600)]
    pub demo_pods: usize,
    /// Custom resource kinds in the demo cluster (with --demo): N CRDs in N/10 API groups, as
    /// Crossplane providers bring, each with a few objects.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub demo_crds: u64,
    /// Run N demo clusters (prod-eu, prod-us, staging, ...; implies --demo), each its own server
    /// and seed, with one kubeconfig context per cluster, all selected (the header shows each
    /// one's state; --context NAMES picks some).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=16), conflicts_with = "demo_as_namespace_user")]
    pub demo_clusters: Option<u64>,
    /// Demo churn in events per second (with --demo).
    #[arg(long, value_name = "EV_PER_S", default_value_t = 20.0)]
    pub demo_churn: f64,
    /// Demo cluster without metrics.k8s.io (as a cluster without metrics-server).
    #[arg(long)]
    pub demo_no_metrics: bool,
    /// With --demo: connect as a user who may only get/list/watch pods, events and configmaps
    /// in namespace NS (RBAC as on a real cluster; the start view is that namespace's).
    #[arg(long, value_name = "NS")]
    pub demo_as_namespace_user: Option<String>,
    /// Seconds between two polls of metrics.k8s.io while pods/nodes or the pulse are shown
    /// (metrics-server's resolution is 15 s; default: config.toml's, else 15).
    #[arg(long, value_name = "SECONDS")]
    pub metrics_period: Option<u64>,
    /// Bytes of log lines a log view keeps (the oldest go first; the view says how many went;
    /// default: config.toml's, else 16).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub log_buffer_mib: Option<u64>,
    /// Bytes of per-object history kept (changes of every object the informers see, for `h`
    /// and `:changes`; the oldest go first; the views say how far back it goes; default:
    /// config.toml's, else 64).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub history_mib: Option<u64>,
    /// Also record every version the informers see into FILE (a recording `kinformer replay`
    /// opens; see `kinformer record`).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Keep the dashboard's own history across restarts in FILE: loaded at start (`h`, `:at`
    /// and `:changes` reach back past this run) and recorded into while it runs (default:
    /// config.toml's `history_file`).
    #[arg(long, value_name = "FILE")]
    pub history_file: Option<PathBuf>,
    /// Log lines per second each demo container writes (with --demo; a pod's
    /// `demo.kinformer.io/log-lines-per-second` annotation overrides it).
    #[arg(long, value_name = "LINES_PER_S", default_value_t = 2.0)]
    pub demo_log_rate: f64,
    /// Where logs go (default: ~/.local/state/kinformer/kinformer.log). Logs never go to the screen.
    #[arg(long, global = true, value_name = "FILE")]
    pub log_file: Option<PathBuf>,
    /// Key-binding override file (default: ~/.config/kinformer/keys.toml if it exists).
    #[arg(long, value_name = "FILE")]
    pub keys: Option<PathBuf>,
    /// kinformer's settings file (default: ~/.config/kinformer/config.toml if it exists).
    /// A k9s user's aliases, hotkeys, plugins, views and skin are read where k9s keeps them.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the demo API server standalone and write a kubeconfig for it.
    DemoServer(DemoServerArgs),
    /// Run the benchmark suite and print a table of figures.
    Bench(BenchArgs),
    /// Print the configuration read (kinformer's config.toml and a k9s user's files), where
    /// each file was looked for, and every problem found.
    Config,
    /// Record every version the informers see into a SQLite file, without a terminal, until
    /// --duration passes or SIGINT/SIGTERM (`kinformer replay FILE` plays it back).
    Record(RecordArgs),
    /// Open the dashboard on a recording, with no cluster: tables, `h`, blame, `:changes`,
    /// xray and `:at` at any recorded instant; writes are refused.
    Replay(ReplayArgs),
    /// Print a shell completion script (e.g. `kinformer completions bash > ~/.local/share/bash-completion/completions/kinformer`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Debug, Clone, Args)]
pub struct RecordArgs {
    /// The recording to write: created, or appended to (a new session) when it is one.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Stop after this long (`90s`, `15m`, `2h`, `1h30m`; default: until SIGINT/SIGTERM).
    #[arg(long, value_name = "D", value_parser = parse_duration)]
    pub duration: Option<std::time::Duration>,
    /// Kinds to record, as `:` names them (comma-separated), or `all`.
    #[arg(long, value_delimiter = ',', default_value = crate::runtime::record::DEFAULT_KINDS)]
    pub kinds: Vec<String>,
    /// Keep the file within this many MiB: the oldest versions go first.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1_048_576))]
    pub max_mib: Option<u64>,
    /// No progress line and no summary.
    #[arg(long)]
    pub quiet: bool,
    /// The kubeconfig context to record (default: current-context).
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Record one namespace (default: every namespace).
    #[arg(short = 'n', long, value_name = "NAMESPACE", value_parser = parse_namespaces)]
    pub namespace: Option<String>,
    /// Record the built-in demo cluster (no cluster needed).
    #[arg(long)]
    pub demo: bool,
    /// Pods in the demo cluster (with --demo).
    #[arg(long, value_name = "N", default_value_t = 600)]
    pub demo_pods: usize,
    /// Demo churn in events per second (with --demo).
    #[arg(long, value_name = "EV_PER_S", default_value_t = 20.0)]
    pub demo_churn: f64,
    /// The same informers with nothing recorded (the benchmark's baseline for the recording's
    /// added CPU); --out is not written.
    #[arg(long, hide = true)]
    pub informers_only: bool,
}

#[derive(Debug, Clone, Args)]
pub struct ReplayArgs {
    /// A recording (`kinformer record --out FILE`, `--record FILE`, `--history-file FILE`).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The instant to open at: `HH:MM[:SS]` (UTC, the recording's last day), `-5m` (before its
    /// end), or an RFC 3339 time (default: the end).
    #[arg(long, value_name = "TIME")]
    pub at: Option<String>,
    /// Resource to show first (default: pods).
    #[arg(short = 'r', long, value_name = "RESOURCE")]
    pub resource: Option<String>,
    /// Namespace scope (default: every namespace).
    #[arg(short = 'n', long, value_name = "NAMESPACE", value_parser = parse_namespaces)]
    pub namespace: Option<String>,
}

/// `--duration`: `90s`, `15m`, `2h`, `1h30m`, or plain seconds.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Ok(std::time::Duration::from_secs(secs));
    }
    let mut total = 0u64;
    let mut digits = String::new();
    for ch in text.chars() {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        let n: u64 = digits
            .parse()
            .map_err(|_| format!("{text:?} is not a duration (e.g. 90s, 15m, 2h, 1h30m)"))?;
        digits.clear();
        total += n * match ch {
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return Err(format!("{text:?} is not a duration (units: h, m, s)")),
        };
    }
    if !digits.is_empty() || total == 0 {
        return Err(format!(
            "{text:?} is not a duration (e.g. 90s, 15m, 2h, 1h30m)"
        ));
    }
    Ok(std::time::Duration::from_secs(total))
}

#[derive(Debug, Clone, Args)]
pub struct DemoServerArgs {
    /// Port on 127.0.0.1 (0 = any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// Write a kubeconfig for the server to this file.
    #[arg(long, value_name = "FILE", default_value = "kinformer-demo.kubeconfig")]
    pub kubeconfig_out: PathBuf,
    /// Pods to seed.
    #[arg(long, default_value_t = 600)]
    pub pods: usize,
    /// Nodes to seed (default: one per 30 pods, at least 3).
    #[arg(long)]
    pub nodes: Option<usize>,
    /// Custom resource kinds to serve: N CRDs in N/10 API groups, as Crossplane providers
    /// bring, each with a few objects.
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub crds: u64,
    /// Churn rate in events per second (0 = none).
    #[arg(long, value_name = "EV_PER_S", default_value_t = 20.0)]
    pub churn: f64,
    /// Seed of the simulator (same seed, same cluster).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Watch history kept before compaction (events); older resourceVersions get 410 Gone.
    #[arg(long, default_value_t = 50_000)]
    pub history: usize,
    /// Do not serve metrics.k8s.io (as a cluster without metrics-server).
    #[arg(long)]
    pub no_metrics: bool,
    /// Also serve a user `jane` (token `jane-token`) who may only get/list/watch pods, events and
    /// configmaps in namespace NS; the written kubeconfig's current context is hers.
    #[arg(long, value_name = "NS")]
    pub as_namespace_user: Option<String>,
    /// Pod shape: `realistic` (two containers, full status, managedFields from two managers,
    /// ~10 KB of JSON per pod, as a real cluster sends) or `compact` (~3 KB, quicker to seed).
    #[arg(long, value_enum, default_value = "realistic")]
    pub pod_shape: crate::demo::realistic::PodShape,
    /// Mimic an API server on etcd without RequestWatchProgress (before 3.4.31/3.5.13): streaming
    /// lists (`sendInitialEvents=true`) are refused, so clients fall back to list + watch.
    #[arg(long)]
    pub no_watch_list: bool,
    /// Send list and watch bodies no faster than this many MB/s, as a real kube-apiserver
    /// encoding at request time does: `JSON[,PROTOBUF]`, e.g. `58,70` (default: as fast as
    /// loopback takes them). A big list then takes seconds, as on a real cluster.
    #[arg(long, value_name = "MB_PER_S", value_parser = crate::bench::ServerMbps::parse)]
    pub server_mbps: Option<crate::bench::ServerMbps>,
    /// Serve N demo clusters (prod-eu, prod-us, staging, ...), each on its own port (--port P:
    /// P, P+1, ...) with its own seed (--seed S: S, S+1, ...); the kubeconfig has a context each.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=16), conflicts_with = "as_namespace_user")]
    pub clusters: u64,
    /// Log lines per second each container writes (a pod's `kinformer.dev/log-rate` annotation
    /// overrides it).
    #[arg(long, value_name = "LINES_PER_S", default_value_t = 2.0)]
    pub log_rate: f64,
    /// Exit when process PID (the bench that started this server) dies, even by SIGKILL
    /// (Linux: the parent-death signal). Internal: the bench passes its own pid.
    #[arg(long, value_name = "PID", hide = true)]
    pub exit_with_parent: Option<u32>,
}

#[derive(Debug, Clone, Args)]
pub struct BenchArgs {
    /// Pod counts to measure (comma-separated).
    #[arg(long, value_delimiter = ',', default_value = "10000")]
    pub pods: Vec<usize>,
    /// Runs per figure (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub runs: usize,
    /// Skip the slow kube-rs reflector peer.
    #[arg(long)]
    pub no_peer: bool,
    /// Churn rates (events/s) for the event-to-screen latency figure.
    #[arg(long, value_delimiter = ',', default_value = "100,1000")]
    pub churn: Vec<f64>,
    /// Small sizes and short windows for CI (e.g. `--pods 2000 --runs 1 --smoke`).
    #[arg(long)]
    pub smoke: bool,
    /// Only these figure groups (comma-separated; default: all).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub only: Vec<crate::bench::FigureGroup>,
    /// Pod shape the child demo server serves for the sync and memory figures (`realistic`:
    /// ~12 KB of JSON per pod with managedFields, as a real cluster; `compact`: ~3 KB).
    #[arg(long, value_enum, default_value = "realistic")]
    pub pod_shape: crate::demo::realistic::PodShape,
    /// The child demo server sends list and watch bodies no faster than this many MB/s, as a
    /// real kube-apiserver encoding at request time does: `JSON[,PROTOBUF]`, e.g. `58,70`
    /// (a real one measured ~58 MB/s for JSON, 57–87 MB/s for protobuf; protobuf takes JSON's
    /// rate when not given); default: as fast as loopback takes them.
    #[arg(long, value_name = "MB_PER_S", value_parser = crate::bench::ServerMbps::parse)]
    pub server_mbps: Option<crate::bench::ServerMbps>,
    /// Also measure N clusters at once (the first --pods count each, synced together vs one
    /// alone, RSS, the label filter over N × 100k pods); `--only fleet` for just these.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=16))]
    pub clusters: u64,
    /// Encoding the informer figures ask for: `protobuf` (first, for built-in kinds; what the
    /// dashboard does) or `json`. The wire figures measure both in the same run.
    #[arg(long, default_value = "protobuf", value_parser = parse_wire)]
    pub wire: crate::informer::pb::client::WireFormat,
}

fn parse_wire(s: &str) -> Result<crate::informer::pb::client::WireFormat, String> {
    crate::informer::pb::client::WireFormat::parse(s)
        .ok_or_else(|| format!("{s:?}: expected json or protobuf"))
}

/// `-n`'s value: one namespace or several, comma-separated (`shop,payments`), each a valid
/// namespace name (an RFC 1123 label, as kube-apiserver requires); spaces around names are
/// dropped, an empty name is an error rather than a silent fallback to the context's namespace.
pub fn parse_namespaces(text: &str) -> Result<String, String> {
    let mut names: Vec<&str> = Vec::new();
    for name in text.split(',').map(str::trim) {
        if name.is_empty() {
            return Err(if text.split(',').all(|n| n.trim().is_empty()) {
                "empty namespace name".to_string()
            } else {
                format!("empty namespace name in {text:?}")
            });
        }
        let label = name.len() <= 63
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !name.starts_with('-')
            && !name.ends_with('-');
        if !label {
            return Err(format!(
                "{name:?} is not a namespace name (lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit)"
            ));
        }
        if !names.contains(&name) {
            names.push(name);
        }
    }
    Ok(names.join(","))
}

/// A command-line error as one line: clap's first line without its `error: ` prefix (its
/// usage and `--help` lines dropped), with a pointer to `--help`.
pub fn usage_error_line(e: &clap::Error) -> String {
    let rendered = e.render().to_string();
    let first = rendered
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("invalid arguments");
    let first = first.strip_prefix("error: ").unwrap_or(first);
    format!("{first} (see --help)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn namespace_and_all_namespaces_conflict() {
        let r = Cli::try_parse_from(["kinformer", "-n", "x", "-A"]);
        assert!(r.is_err());
    }

    #[test]
    fn log_buffer_and_log_rate_flags_parse_and_a_zero_buffer_is_refused() {
        let cli = Cli::try_parse_from([
            "kinformer",
            "--demo",
            "--log-buffer-mib",
            "64",
            "--demo-log-rate",
            "500",
        ])
        .expect("parses");
        assert_eq!(cli.dashboard.log_buffer_mib, Some(64));
        assert_eq!(cli.dashboard.demo_log_rate, 500.0);
        assert_eq!(
            Cli::try_parse_from(["kinformer"])
                .expect("parses")
                .dashboard
                .log_buffer_mib,
            None,
            "unset: config.toml's log_buffer_mib, else 16 (app_main)"
        );
        assert!(Cli::try_parse_from(["kinformer", "--log-buffer-mib", "0"]).is_err());
        let Some(Command::DemoServer(args)) =
            Cli::try_parse_from(["kinformer", "demo-server", "--log-rate", "5000"])
                .expect("parses")
                .command
        else {
            panic!("demo-server subcommand");
        };
        assert_eq!(args.log_rate, 5000.0);
    }

    #[test]
    fn demo_crd_counts_parse_up_to_a_thousand() {
        let cli =
            Cli::try_parse_from(["kinformer", "--demo", "--demo-crds", "300"]).expect("parses");
        assert_eq!(cli.dashboard.demo_crds, 300);
        assert_eq!(
            Cli::try_parse_from(["kinformer"])
                .expect("parses")
                .dashboard
                .demo_crds,
            0
        );
        assert!(Cli::try_parse_from(["kinformer", "--demo-crds", "1001"]).is_err());
        let Some(Command::DemoServer(args)) =
            Cli::try_parse_from(["kinformer", "demo-server", "--crds", "40"])
                .expect("parses")
                .command
        else {
            panic!("demo-server subcommand");
        };
        assert_eq!(args.crds, 40);
    }

    #[test]
    fn demo_cluster_counts_parse_within_one_to_sixteen() {
        let cli = Cli::try_parse_from(["kinformer", "--demo-clusters", "3"]).expect("parses");
        assert_eq!(cli.dashboard.demo_clusters, Some(3));
        assert!(Cli::try_parse_from(["kinformer", "--demo-clusters", "0"]).is_err());
        assert!(Cli::try_parse_from(["kinformer", "--demo-clusters", "17"]).is_err());
        assert!(
            Cli::try_parse_from([
                "kinformer",
                "--demo-clusters",
                "2",
                "--demo-as-namespace-user",
                "shop"
            ])
            .is_err()
        );
        let Some(Command::DemoServer(args)) =
            Cli::try_parse_from(["kinformer", "demo-server", "--clusters", "4"])
                .expect("parses")
                .command
        else {
            panic!("demo-server subcommand");
        };
        assert_eq!(args.clusters, 4);
        let Some(Command::DemoServer(one)) = Cli::try_parse_from(["kinformer", "demo-server"])
            .expect("parses")
            .command
        else {
            panic!("demo-server subcommand");
        };
        assert_eq!(one.clusters, 1);
    }

    #[test]
    fn fleet_flags_parse_and_all_contexts_conflicts_with_context() {
        let cli = Cli::try_parse_from([
            "kinformer",
            "--context",
            "prod-*,staging",
            "--readonly-contexts",
            "prod-*",
        ])
        .expect("parses");
        assert_eq!(cli.dashboard.context.as_deref(), Some("prod-*,staging"));
        assert_eq!(cli.dashboard.readonly_contexts.as_deref(), Some("prod-*"));
        assert!(!cli.dashboard.all_contexts);
        let all = Cli::try_parse_from(["kinformer", "--all-contexts"]).expect("parses");
        assert!(all.dashboard.all_contexts);
        assert!(Cli::try_parse_from(["kinformer", "--all-contexts", "--context", "a"]).is_err());
    }

    #[test]
    fn kubectl_style_flags_parse() {
        let cli = Cli::try_parse_from([
            "kinformer",
            "--context",
            "prod",
            "-n",
            "shop",
            "-l",
            "app=web",
            "--readonly",
        ])
        .expect("parses");
        assert_eq!(cli.dashboard.context.as_deref(), Some("prod"));
        assert_eq!(cli.dashboard.namespace.as_deref(), Some("shop"));
        assert_eq!(cli.dashboard.selector.as_deref(), Some("app=web"));
        assert!(cli.dashboard.readonly && cli.command.is_none());
    }

    #[test]
    fn record_and_replay_parse_their_flags_and_refuse_a_bad_duration() {
        let Some(Command::Record(r)) = Cli::try_parse_from([
            "kinformer",
            "record",
            "--demo",
            "--out",
            "rec.db",
            "--duration",
            "1h30m",
            "--kinds",
            "pods,deploy",
            "--max-mib",
            "200",
            "--quiet",
        ])
        .expect("parses")
        .command
        else {
            panic!("record");
        };
        assert_eq!(r.duration, Some(std::time::Duration::from_secs(5400)));
        assert_eq!(r.kinds, ["pods", "deploy"]);
        assert_eq!((r.max_mib, r.quiet, r.demo), (Some(200), true, true));
        assert!(
            Cli::try_parse_from(["kinformer", "record", "--out", "x", "--duration", "5y"]).is_err()
        );
        assert!(
            Cli::try_parse_from(["kinformer", "record"]).is_err(),
            "--out is required"
        );
        let Some(Command::Replay(p)) =
            Cli::try_parse_from(["kinformer", "replay", "rec.db", "--at", "03:10"])
                .expect("parses")
                .command
        else {
            panic!("replay");
        };
        assert_eq!(p.at.as_deref(), Some("03:10"));
        assert_eq!(parse_duration("15"), Ok(std::time::Duration::from_secs(15)));
    }

    #[test]
    fn write_lifts_k9s_read_only_and_conflicts_with_readonly() {
        let cli = Cli::try_parse_from(["kinformer", "--write"]).expect("parses");
        assert!(cli.dashboard.write && !cli.dashboard.readonly);
        assert!(Cli::try_parse_from(["kinformer", "--write", "--readonly"]).is_err());
    }
}
