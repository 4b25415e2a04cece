//! `kinformer record`: the dashboard's informers without a terminal, every version they see
//! written to a recording (see [`crate::recorder`]).
//!
//! The informers are the dashboard's own ([`make_factory`]: the same reflector, decoder masks
//! and cache transform), so a recording holds what the dashboard would have shown. Deletions a
//! relist finds (tombstones) reach the recorder through the factory's pop observer, as with
//! `--record`; the server's
//! outages are the gaps: from the first informer backing off after an error to every informer
//! watching again.

use std::collections::HashSet;
use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::factory_with;
use crate::cluster::{Connection, ResourceInfo, one_line};
use crate::informer::factory::InformerKey;
use crate::informer::history::history_resource;
use crate::informer::reflector::ReflectorState;
use crate::recorder::{Recorder, RecorderOptions, SessionInfo};

/// The kinds `record` follows unless `--kinds` says.
pub const DEFAULT_KINDS: &str = "pods,deploy,rs,sts,ds,jobs,cronjobs,svc,nodes,events";

/// What to record, and how.
#[derive(Debug, Clone)]
pub struct RecordPlan {
    pub out: PathBuf,
    pub duration: Option<Duration>,
    /// Names as `:` takes them, or `["all"]`.
    pub kinds: Vec<String>,
    /// `None`: every namespace.
    pub namespace: Option<String>,
    pub max_bytes: Option<u64>,
    pub quiet: bool,
    /// The benchmark's baseline: the same informers, nothing recorded (`out` is not opened).
    pub informers_only: bool,
}

/// The kinds of `names` among `resources` (`all`: every kind that can be listed and
/// watched); an unknown name is an error naming it.
pub fn resolve_kinds<'a>(
    resources: &'a [ResourceInfo],
    names: &[String],
) -> Result<Vec<&'a ResourceInfo>, String> {
    if names.iter().any(|n| n.trim() == "all") {
        return Ok(resources.iter().collect());
    }
    let mut out: Vec<&ResourceInfo> = Vec::new();
    for name in names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()) {
        let r = crate::cluster::resolve(resources, name)
            .ok_or_else(|| format!("--kinds: the server doesn't have a resource type {name:?}"))?;
        if !out.iter().any(|o| o.api_resource == r.api_resource) {
            out.push(r);
        }
    }
    if out.is_empty() {
        return Err("--kinds: no kind to record".into());
    }
    Ok(out)
}

/// The benchmark's baseline: the same factory and informers as [`record`], no recorder.
async fn informers_only(
    connection: &Connection,
    kinds: &[&ResourceInfo],
    plan: &RecordPlan,
    stop: CancellationToken,
) -> Result<String, String> {
    let factory = factory_with(connection, None, None);
    for k in kinds {
        let ns = plan.namespace.as_deref().filter(|_| k.namespaced);
        factory.informer_for(&k.api_resource, ns);
    }
    factory.start();
    let started = Instant::now();
    tokio::select! {
        _ = stop.cancelled() => {}
        _ = async {
            match plan.duration {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        } => {}
    }
    let _ = tokio::time::timeout(Duration::from_secs(5), factory.shutdown()).await;
    Ok(format!(
        "ran the informers of {} kinds for {} (nothing recorded)",
        kinds.len(),
        clock(started.elapsed())
    ))
}

/// The kubeconfig cluster of the connection's context (the context's name when unknown):
/// what a recording's objects are filed under.
pub fn cluster_of(connection: &Connection) -> String {
    connection
        .context_rows()
        .into_iter()
        .find(|c| c.name == connection.context)
        .map(|c| c.cluster)
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| connection.context.clone())
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn clock(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60)
}

/// Record until `plan.duration` passes or `stop` is cancelled (SIGINT, SIGTERM). Returns the
/// summary line.
pub async fn record(
    connection: Connection,
    server_version: Option<String>,
    resources: &[ResourceInfo],
    plan: &RecordPlan,
    stop: CancellationToken,
) -> Result<String, String> {
    let kinds = resolve_kinds(resources, &plan.kinds)?;
    if plan.informers_only {
        return informers_only(&connection, &kinds, plan, stop).await;
    }
    let cluster = cluster_of(&connection);
    let recorder = Arc::new(
        Recorder::open(
            &plan.out,
            SessionInfo {
                cluster,
                context: connection.context.clone(),
                server_version,
                kinds: kinds
                    .iter()
                    .map(|k| history_resource(&k.api_resource))
                    .collect(),
            },
            RecorderOptions {
                max_bytes: plan.max_bytes,
                block_when_full: true,
                ..RecorderOptions::default()
            },
        )
        .map_err(|e| e.to_string())?,
    );
    // The dashboard's factory, without per-object history: the recording is the history.
    let factory = factory_with(&connection, None, Some(&recorder));
    let mut keys = Vec::new();
    for k in &kinds {
        let ns = plan.namespace.as_deref().filter(|_| k.namespaced);
        factory.informer_for(&k.api_resource, ns);
        keys.push(InformerKey::new(&k.api_resource, ns));
    }
    factory.start();
    let started = Instant::now();
    let deadline = plan.duration.map(|d| tokio::time::Instant::now() + d);
    let tty = std::io::stderr().is_terminal();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut in_gap = false;
    let mut last_line = Instant::now();
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            } => break,
            _ = tick.tick() => {}
        }
        // Gaps: some informer backing off after an error, until all watch again.
        let mut failing: HashSet<String> = HashSet::new();
        let mut reason = String::new();
        for (key, informer) in factory.informers() {
            if !keys.contains(&key) {
                continue;
            }
            if let Some(rx) = informer.reflector_status() {
                let status = rx.borrow();
                if matches!(status.state, ReflectorState::Backoff { .. })
                    && let Some(e) = &status.last_error
                {
                    failing.insert(key.to_string());
                    if reason.is_empty() {
                        reason = one_line(&e.to_string());
                    }
                }
            }
        }
        if !failing.is_empty() && !in_gap {
            in_gap = true;
            recorder.gap_started(&reason);
        } else if failing.is_empty() && in_gap {
            in_gap = false;
            recorder.gap_ended();
        }
        if let Some(e) = recorder.error() {
            factory.shutdown().await;
            recorder.finish();
            return Err(e);
        }
        let s = recorder.stats();
        let line = format!(
            "recording {}: {} versions of {} objects · {} · {}{}",
            plan.out.display(),
            s.versions,
            s.objects,
            mib(s.bytes),
            clock(started.elapsed()),
            if in_gap {
                format!(" · server unreachable: {reason}")
            } else if s.gaps > 0 {
                format!(" · {} gaps", s.gaps)
            } else {
                String::new()
            }
        );
        if !plan.quiet {
            if tty {
                eprint!("\r\x1b[2K{line}");
                let _ = std::io::stderr().flush();
            } else if last_line.elapsed() >= Duration::from_secs(10) {
                eprintln!("{line}");
                last_line = Instant::now();
            }
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(5), factory.shutdown()).await;
    drop(factory);
    let s = recorder.finish();
    if !plan.quiet && tty {
        eprintln!();
    }
    if let Some(e) = s.error {
        return Err(e);
    }
    Ok(format!(
        "recorded {} versions of {} objects into {} ({}{}) in {}",
        s.versions,
        s.objects,
        plan.out.display(),
        mib(s.bytes),
        if s.pruned > 0 {
            format!(
                ", {} oldest versions dropped to stay within --max-mib",
                s.pruned
            )
        } else {
            String::new()
        },
        clock(started.elapsed())
    ))
}
