//! Logging to a file (never to the screen under the TUI), via `tracing`.

use std::path::{Path, PathBuf};

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;

/// kinformer's state directory: `$XDG_STATE_HOME/kinformer` (or `~/.local/state/kinformer`,
/// else under the temporary directory). Its log, saved logs and table dumps go there.
pub fn state_dir() -> PathBuf {
    dirs::state_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".local").join("state")))
        .unwrap_or_else(std::env::temp_dir)
        .join("kinformer")
}

/// The default log file: `$XDG_STATE_HOME/kinformer/kinformer.log` (or `~/.local/state/...`).
pub fn default_log_file() -> PathBuf {
    state_dir().join("kinformer.log")
}

/// Send all `tracing` output to `path` (appending). `RUST_LOG` sets the filter (default `info`).
/// Keep the returned guard alive until exit so buffered lines are flushed.
pub fn init(path: &Path) -> std::io::Result<WorkerGuard> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    // 4,096 lines in flight, not the default 128,000: the channel's slots are allocated up front
    // (3.9 MB of every dashboard's RSS); the log writes a few lines a second, and lines beyond
    // the limit are dropped rather than block a frame (lossy, as by default).
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(4_096)
        .finish(file);
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    // A second init (tests) is harmless: keep the first subscriber.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        .with_ansi(false)
        .try_init();
    Ok(guard)
}
