//! This process's own measurements, read from /proc (Linux): time since start, resident memory,
//! peak resident memory, CPU time. Used by the dashboard's start-up log line and by the benchmark.
//! Also [`exit_with_parent`]: a child process (the bench's demo server) that dies with its parent.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

static PROCESS_START: OnceLock<Instant> = OnceLock::new();

/// Record the process start (first thing `main` does); later calls keep the first instant.
pub fn mark_process_start() {
    let _ = PROCESS_START.get_or_init(Instant::now);
}

/// Time since [`mark_process_start`] (or since this first call, if it was never marked).
pub fn since_process_start() -> Duration {
    PROCESS_START.get_or_init(Instant::now).elapsed()
}

/// A `VmXxx:` line of /proc/self/status, in bytes.
fn proc_status_bytes(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

/// Resident set size now.
pub fn rss_bytes() -> Option<u64> {
    proc_status_bytes("VmRSS:")
}

/// Peak resident set size since start or the last [`reset_peak_rss`].
pub fn peak_rss_bytes() -> Option<u64> {
    proc_status_bytes("VmHWM:")
}

/// Reset VmHWM to the current RSS (`echo 5 > /proc/self/clear_refs`).
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// User + system CPU time of this process (all threads), from /proc/self/stat (USER_HZ = 100).
pub fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may contain spaces).
    let rest = s.rsplit_once(')')?.1;
    let f: Vec<&str> = rest.split_whitespace().collect();
    // rest starts at field 3 (state); utime is field 14, stime field 15.
    let utime: u64 = f.get(11)?.parse().ok()?;
    let stime: u64 = f.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// Time the calling thread has waited on a run queue, ready while other tasks ran
/// (`/proc/thread-self/schedstat`'s second field). The kernel adds each wait when the thread gets
/// a CPU back, to the nanosecond, so a step's wall time less this delta is the time the step
/// itself ran: on a loaded machine a frame's wall time includes other processes' turns. (The
/// first field, time on a CPU, is only brought up to date at scheduler ticks: 4 ms steps.)
pub fn thread_run_delay() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: u64 = s.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Why [`exit_with_parent`] could not arrange it.
#[derive(Debug, thiserror::Error)]
pub enum ParentDeathError {
    /// The parent-death signal could not be set (prctl failed).
    #[error("cannot ask for the parent-death signal: {0}")]
    Prctl(std::io::Error),
    /// Not Linux: there is no parent-death signal to ask for.
    #[error("the parent-death signal is Linux-only")]
    Unsupported,
}

/// Die (SIGKILL) when process `parent` dies, however it dies: the bench's child demo server
/// calls this first thing, so a bench killed with SIGKILL (no destructor runs, `kill_on_drop`
/// never fires) does not leave a server holding gigabytes behind.
///
/// Linux's `PR_SET_PDEATHSIG`, set in the child itself (no `pre_exec`, no `unsafe`). Two facts
/// shape it:
/// - The race: if `parent` died between fork and this call, the signal will never come, so
///   after setting it the parent pid is checked; a different one (we were re-parented) exits
///   at once.
/// - The kernel sends the signal when the *thread* that forked this process ends, not the whole
///   process: the bench spawns its child from a tokio worker thread, which lives as long as the
///   bench's runtime (a `spawn_blocking` thread would not: it ends after 10 s idle).
#[cfg(target_os = "linux")]
pub fn exit_with_parent(parent: u32) -> Result<(), ParentDeathError> {
    use rustix::process::{Signal, getppid, set_parent_process_death_signal};
    set_parent_process_death_signal(Some(Signal::KILL))
        .map_err(|e| ParentDeathError::Prctl(e.into()))?;
    let still_parent = getppid().is_some_and(|p| p.as_raw_pid() as u32 == parent);
    if !still_parent {
        std::process::exit(1);
    }
    Ok(())
}

/// Not Linux: no parent-death signal (the bench's `kill_on_drop` still stops the child when the
/// bench ends normally).
#[cfg(not(target_os = "linux"))]
pub fn exit_with_parent(_parent: u32) -> Result<(), ParentDeathError> {
    Err(ParentDeathError::Unsupported)
}
