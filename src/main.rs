//! kinformer's entry point: parses flags, sets up logging to a file, and runs the dashboard,
//! the standalone demo server, or the benchmarks.

use std::process::ExitCode;

use clap::Parser;
use kinformer::cli::{Cli, Command};

fn main() -> ExitCode {
    kinformer::process::mark_process_start();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(
                e.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) {
                e.exit();
            }
            // Bad flags: one line and exit 2, as every other usage error.
            eprintln!("kinformer: {}", kinformer::cli::usage_error_line(&e));
            return ExitCode::from(2);
        }
    };
    let log_path = cli
        .dashboard
        .log_file
        .clone()
        .unwrap_or_else(kinformer::logging::default_log_file);
    let _guard = match kinformer::logging::init(&log_path) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!(
                "kinformer: cannot open log file {}: {e} (continuing without logs)",
                log_path.display()
            );
            None
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("kinformer: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            None => kinformer::app_main::run_dashboard(cli.dashboard).await,
            Some(Command::DemoServer(args)) => kinformer::app_main::run_demo_server(args).await,
            Some(Command::Config) => kinformer::app_main::run_config(&cli.dashboard).await,
            Some(Command::Completions { shell }) => kinformer::app_main::run_completions(shell),
            Some(Command::Record(args)) => {
                kinformer::app_main::run_record(args, cli.dashboard.kubeconfig).await
            }
            Some(Command::Replay(args)) => kinformer::app_main::run_replay(args).await,
            Some(Command::Bench(args)) => {
                kinformer::app_main::run_bench(args, cli.dashboard.kubeconfig).await
            }
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "exiting with an error");
            eprintln!("kinformer: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
