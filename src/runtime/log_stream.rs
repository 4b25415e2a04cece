//! Log streams: the runtime's tasks behind a log view.
//!
//! One log view owns a [`CancellationToken`]; every task below runs under a child of it, so
//! cancelling the view ends every stream and closes every connection. Lines reach the view
//! through one bounded channel ([`LOG_CHANNEL`] batches): a slow UI slows the readers down, it
//! never makes memory grow. A batch is what one read from the connection returned, so 5,000
//! lines/s arrive as a few dozen batches per second, and the view coalesces them into frames.
//!
//! - [`spawn_log_view`] follows a set of pods given by a [`PodFilter`] (one pod by name, or a
//!   label selector: a workload's selector, a Service's, a filtered pod view). The set comes from
//!   the runtime's shared pod informer (its late-handler adds, then its events): a pod that
//!   appears gets its streams at once, a pod that goes away ends them with a marker. No polling.
//! - Per pod, one task reads the pod once (the informer's cache is pruned of containers) and
//!   starts one stream per container (init and ephemeral ones included); a container that has not
//!   started yet waits for the informer's next update of its pod, not for a timer.
//! - Per container, [`stream_container`] reads `GET .../log?follow=true&timestamps=true` and, when
//!   the connection ends or fails, reconnects with `sinceTime` = the last line's timestamp (with
//!   backoff), skipping the lines at or before it that it already has: nothing repeated or lost.
//!
//! Invariants:
//! - [`LogCounters`] counts live tasks and open connections; both are zero once a view's token is
//!   cancelled and its tasks have run to their end (tests assert it);
//! - a line longer than [`MAX_LINE_BYTES`] is cut (its size said), never dropped or buffered whole.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures::AsyncBufReadExt as _;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DynamicObject};
use kube::{Client, ResourceExt};
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::informer::delta_fifo::DeltaObject;
use crate::informer::factory::DynamicInformer;
use crate::informer::shared_informer::{DeleteObject, ResourceEventHandler};
pub use crate::ui::log_stream::{
    ContainerPick, LogEvent, LogLine, PodFilter, SourceId, SourceState, StreamOptions,
};

/// Batches a view's channel holds before readers wait.
pub const LOG_CHANNEL: usize = 64;
/// Longest line kept; the rest of a longer line is counted and dropped.
pub const MAX_LINE_BYTES: usize = 16 * 1024;
/// First reconnect delay; doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(250);
const MAX_BACKOFF: Duration = Duration::from_secs(16);
/// How long a deleted pod's streams may still deliver their last lines.
const DELETE_GRACE: Duration = Duration::from_secs(3);

/// Live log tasks and connections (shared by all views of a runtime; tests read it).
#[derive(Debug, Default)]
pub struct LogCounters {
    tasks: AtomicUsize,
    connections: AtomicUsize,
}

impl LogCounters {
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
    /// Log tasks running now.
    pub fn tasks(&self) -> usize {
        self.tasks.load(Ordering::SeqCst)
    }
    /// Log connections (response bodies) open now.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }
}

/// Counts one task (or connection) for as long as it lives.
pub(crate) struct Guard(Arc<LogCounters>, bool);

impl Guard {
    pub(crate) fn task(c: &Arc<LogCounters>) -> Self {
        c.tasks.fetch_add(1, Ordering::SeqCst);
        Self(c.clone(), false)
    }
    fn connection(c: &Arc<LogCounters>) -> Self {
        c.connections.fetch_add(1, Ordering::SeqCst);
        Self(c.clone(), true)
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let c = if self.1 {
            &self.0.connections
        } else {
            &self.0.tasks
        };
        c.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Everything a log view's tasks share.
#[derive(Clone)]
pub struct LogContext {
    pub client: Client,
    pub tx: mpsc::Sender<LogEvent>,
    pub counters: Arc<LogCounters>,
    pub options: StreamOptions,
}

/// Start the tasks of one log view: pods of `namespace` matching `filter`, as `pods` (the
/// runtime's shared pod informer for that scope) knows them. Everything stops with `cancel`.
pub fn spawn_log_view(
    ctx: LogContext,
    pods: Arc<DynamicInformer>,
    namespace: Option<String>,
    filter: PodFilter,
    containers: ContainerPick,
    cancel: CancellationToken,
) {
    let (note_tx, note_rx) = mpsc::unbounded_channel();
    let handler = Arc::new(PodFeed {
        filter,
        namespace,
        tx: note_tx,
    });
    let registration = pods.add_event_handler(handler, None);
    let counters = ctx.counters.clone();
    tokio::spawn(async move {
        let _task = Guard::task(&counters);
        let Ok(registration) = registration else {
            return;
        };
        supervise(ctx, note_rx, containers, cancel).await;
        registration.remove();
    });
}

enum PodNote {
    /// The pod matches (added or updated): start its streams, or wake its waiting ones.
    Seen(String, String),
    Gone(String, String),
}

struct PodFeed {
    filter: PodFilter,
    namespace: Option<String>,
    tx: mpsc::UnboundedSender<PodNote>,
}

impl PodFeed {
    fn note(&self, obj: &DynamicObject) {
        let ns = obj.namespace().unwrap_or_default();
        if self.namespace.as_ref().is_some_and(|n| *n != ns) {
            return;
        }
        let name = obj.name_any();
        let _ = self.tx.send(if self.filter.matches(obj) {
            PodNote::Seen(ns, name)
        } else {
            PodNote::Gone(ns, name)
        });
    }
}

impl ResourceEventHandler<DynamicObject> for PodFeed {
    fn on_add(&self, obj: &Arc<DynamicObject>, _initial: bool) {
        self.note(obj);
    }
    fn on_update(&self, _old: &Arc<DynamicObject>, new: &Arc<DynamicObject>) {
        self.note(new);
    }
    fn on_delete(&self, obj: &DeleteObject<DynamicObject>) {
        let (ns, name) = match obj {
            DeltaObject::Object(o) => (o.namespace().unwrap_or_default(), o.name_any()),
            DeltaObject::Tombstone(t) => match t.key.split_once('/') {
                Some((ns, n)) => (ns.to_string(), n.to_string()),
                None => (String::new(), t.key.clone()),
            },
        };
        let _ = self.tx.send(PodNote::Gone(ns, name));
    }
}

struct PodStreams {
    cancel: CancellationToken,
    kick: watch::Sender<u64>,
}

async fn supervise(
    ctx: LogContext,
    mut notes: mpsc::UnboundedReceiver<PodNote>,
    containers: ContainerPick,
    cancel: CancellationToken,
) {
    let mut pods: HashMap<(String, String), PodStreams> = HashMap::new();
    loop {
        let note = tokio::select! {
            _ = cancel.cancelled() => break,
            n = notes.recv() => match n { Some(n) => n, None => break },
        };
        match note {
            PodNote::Seen(ns, name) => {
                let key = (ns, name);
                if let Some(p) = pods.get(&key) {
                    p.kick.send_modify(|k| *k += 1);
                    continue;
                }
                let (kick, kick_rx) = watch::channel(0);
                let token = cancel.child_token();
                let ctx2 = ctx.clone();
                let pick = containers.clone();
                let t = token.clone();
                let (ns, name) = key.clone();
                tokio::spawn(async move {
                    let _task = Guard::task(&ctx2.counters);
                    stream_pod(ctx2, ns, name, pick, kick_rx, t).await;
                });
                pods.insert(
                    key,
                    PodStreams {
                        cancel: token,
                        kick,
                    },
                );
            }
            PodNote::Gone(ns, name) => {
                if let Some(p) = pods.remove(&(ns.clone(), name.clone())) {
                    // Let the streams deliver their last lines, then stop them.
                    p.kick.send_modify(|k| *k += 1);
                    let counters = ctx.counters.clone();
                    let tx = ctx.tx.clone();
                    tokio::spawn(async move {
                        let _task = Guard::task(&counters);
                        tokio::select! {
                            _ = tokio::time::sleep(DELETE_GRACE) => {}
                            _ = p.cancel.cancelled() => {}
                        }
                        p.cancel.cancel();
                        let _ = tx
                            .send(LogEvent::PodGone {
                                namespace: ns,
                                pod: name,
                            })
                            .await;
                    });
                }
            }
        }
    }
    for (_, p) in pods {
        p.cancel.cancel();
    }
}

/// The containers of a pod in display order: init (marked by the caller), regular, ephemeral.
pub fn pod_containers(pod: &Pod) -> Vec<(String, ContainerKind)> {
    let mut out = Vec::new();
    if let Some(spec) = &pod.spec {
        for c in spec.init_containers.iter().flatten() {
            out.push((c.name.clone(), ContainerKind::Init));
        }
        for c in &spec.containers {
            out.push((c.name.clone(), ContainerKind::Regular));
        }
        for c in spec.ephemeral_containers.iter().flatten() {
            out.push((c.name.clone(), ContainerKind::Ephemeral));
        }
    }
    out
}

/// What kind of container a name is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    Init,
    Regular,
    Ephemeral,
}

async fn stream_pod(
    ctx: LogContext,
    ns: String,
    name: String,
    pick: ContainerPick,
    kick: watch::Receiver<u64>,
    cancel: CancellationToken,
) {
    let api: Api<Pod> = Api::namespaced(ctx.client.clone(), &ns);
    let pod = tokio::select! {
        _ = cancel.cancelled() => return,
        p = api.get(&name) => p,
    };
    let names: Vec<String> = match (&pick, pod) {
        (ContainerPick::One(c), _) => vec![c.clone()],
        (ContainerPick::All, Ok(pod)) => pod_containers(&pod).into_iter().map(|(n, _)| n).collect(),
        (ContainerPick::All, Err(e)) => {
            let source = Arc::new(SourceId {
                namespace: ns.clone(),
                pod: name.clone(),
                container: String::new(),
            });
            let state = match &e {
                kube::Error::Api(s) if s.code == 404 => SourceState::Ended("pod deleted".into()),
                e => SourceState::Failed(crate::cluster::one_line(&e.to_string())),
            };
            let _ = ctx.tx.send(LogEvent::State { source, state }).await;
            return;
        }
    };
    let mut set = tokio::task::JoinSet::new();
    for c in names {
        let source = Arc::new(SourceId {
            namespace: ns.clone(),
            pod: name.clone(),
            container: c,
        });
        let ctx = ctx.clone();
        let kick = kick.clone();
        let cancel = cancel.clone();
        set.spawn(async move {
            let _task = Guard::task(&ctx.counters);
            stream_container(&ctx, source, kick, cancel).await;
        });
    }
    while set.join_next().await.is_some() {}
}

fn backoff_next(d: Duration) -> Duration {
    (d * 2).min(MAX_BACKOFF)
}

/// Coalesces a view's events into frames: waits for one event, then takes everything that
/// arrives within `frame` (at most `max_events`), and hands the lot to `emit` (which sends one
/// `Action` to the app, waiting while the app's bounded channel is full: the readers then wait
/// too). 5,000 lines/s become `1 / frame` actions per second, not 5,000.
/// Returns when the channel closes, `emit` answers false, or `cancel` fires.
pub async fn coalesce<F: Future<Output = bool>>(
    mut rx: mpsc::Receiver<LogEvent>,
    frame: Duration,
    max_events: usize,
    cancel: CancellationToken,
    mut emit: impl FnMut(Vec<LogEvent>) -> F,
) {
    loop {
        let first = tokio::select! {
            _ = cancel.cancelled() => return,
            e = rx.recv() => match e { Some(e) => e, None => return },
        };
        let mut batch = vec![first];
        let deadline = tokio::time::Instant::now() + frame;
        while batch.len() < max_events {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep_until(deadline) => break,
                e = rx.recv() => match e {
                    Some(e) => batch.push(e),
                    None => break,
                },
            }
        }
        let sent = tokio::select! {
            _ = cancel.cancelled() => return,
            ok = emit(batch) => ok,
        };
        if !sent {
            return;
        }
    }
}

/// Percent-encodes a query value (unreserved characters pass).
fn enc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The request path of one read.
pub fn log_url(source: &SourceId, opts: &StreamOptions, since_ns: Option<i64>) -> String {
    let mut url = format!(
        "/api/v1/namespaces/{}/pods/{}/log?container={}&timestamps=true",
        enc(&source.namespace),
        enc(&source.pod),
        enc(&source.container)
    );
    if opts.follow && !opts.previous {
        url.push_str("&follow=true");
    }
    if opts.previous {
        url.push_str("&previous=true");
    }
    match since_ns {
        Some(ns) => {
            url.push_str("&sinceTime=");
            url.push_str(&enc(&crate::demo::logs::format_ts(ns)));
        }
        None => {
            if let Some(s) = opts.since_seconds {
                url.push_str(&format!("&sinceSeconds={s}"));
            }
            if let Some(t) = opts.tail_lines {
                url.push_str(&format!("&tailLines={t}"));
            }
        }
    }
    url
}

/// Splits the kubelet's timestamp prefix off a line.
pub fn split_timestamp(line: &str) -> (i64, &str) {
    if let Some((ts, rest)) = line.split_once(' ')
        && let Ok(t) = chrono::DateTime::parse_from_rfc3339(ts)
        && let Some(ns) = t.timestamp_nanos_opt()
    {
        return (ns, rest);
    }
    (0, line)
}

/// Resume point: the last timestamp received and how many lines carried exactly it.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Resume {
    pub last_ts: Option<i64>,
    pub at_last: usize,
}

impl Resume {
    /// Whether a line with `ts` read after reconnecting at `self` is new; `skip` counts the
    /// lines at `last_ts` seen again so far in this session.
    pub fn is_new(&self, ts: i64, skip: &mut usize) -> bool {
        match self.last_ts {
            None => true,
            Some(l) if ts < l => false,
            Some(l) if ts == l && *skip < self.at_last => {
                *skip += 1;
                false
            }
            Some(_) => true,
        }
    }

    pub fn record(&mut self, ts: i64) {
        if ts == 0 {
            return;
        }
        if self.last_ts == Some(ts) {
            self.at_last += 1;
        } else {
            self.last_ts = Some(ts);
            self.at_last = 1;
        }
    }
}

/// Splits a log body into lines as chunks arrive, however the body is cut: holds at most
/// [`MAX_LINE_BYTES`] of an unfinished line; the rest of a longer line is counted, not kept, and
/// said at the end of the line. A line's bytes are read as UTF-8 (invalid sequences replaced) and
/// a `\r` before its `\n` is dropped. A last line without `\n` (a body cut off) is not handed
/// over: the reconnect's `sinceTime` reads it again whole.
#[derive(Debug, Default)]
pub struct LineSplitter {
    partial: Vec<u8>,
    cut: usize,
}

impl LineSplitter {
    /// Feed the next chunk; `line` receives every line it completes, in order.
    pub fn push(&mut self, chunk: &[u8], line: &mut dyn FnMut(String)) {
        for piece in chunk.split_inclusive(|b| *b == b'\n') {
            let (content, complete) = match piece.split_last() {
                Some((b'\n', content)) => (content, true),
                _ => (piece, false),
            };
            let room = MAX_LINE_BYTES.saturating_sub(self.partial.len());
            let (kept, dropped) = content.split_at(content.len().min(room));
            self.partial.extend_from_slice(kept);
            self.cut += dropped.len();
            if complete {
                line(finish_line(&self.partial, self.cut));
                self.partial.clear();
                self.cut = 0;
            }
        }
    }
}

/// Cuts `raw` to [`MAX_LINE_BYTES`] (at a char boundary), saying how much was cut.
fn finish_line(raw: &[u8], cut: usize) -> String {
    let mut s = String::from_utf8_lossy(raw).into_owned();
    if s.ends_with('\r') {
        s.pop();
    }
    if cut > 0 {
        s.push_str(&format!(" … [{cut} more bytes cut]"));
    }
    s
}

enum SessionEnd {
    /// The body ended; `got` lines were new.
    Eof {
        got: usize,
    },
    Error(String),
    Cancelled,
}

/// Stream one container's log until the view is cancelled, the server refuses, or the pod is
/// gone; reconnects with `sinceTime` after a lost connection.
pub async fn stream_container(
    ctx: &LogContext,
    source: Arc<SourceId>,
    mut kick: watch::Receiver<u64>,
    cancel: CancellationToken,
) {
    let send_state = |state: SourceState| {
        let tx = ctx.tx.clone();
        let source = source.clone();
        async move {
            let _ = tx.send(LogEvent::State { source, state }).await;
        }
    };
    let mut resume = Resume::default();
    let mut backoff = MIN_BACKOFF;
    let mut empty_sessions = 0u32;
    send_state(SourceState::Connecting).await;
    loop {
        let url = log_url(&source, &ctx.options, resume.last_ts);
        let req = match http::Request::get(&url).body(Vec::new()) {
            Ok(r) => r,
            Err(e) => {
                send_state(SourceState::Failed(e.to_string())).await;
                return;
            }
        };
        let opened = tokio::select! {
            _ = cancel.cancelled() => return,
            r = ctx.client.request_stream(req) => r,
        };
        let wait_for: Option<(Duration, bool)> = match opened {
            Ok(body) => {
                let end = {
                    let _conn = Guard::connection(&ctx.counters);
                    send_state(SourceState::Streaming).await;
                    read_session(ctx, &source, body, &mut resume, &cancel).await
                };
                match end {
                    SessionEnd::Cancelled => return,
                    SessionEnd::Eof { got } => {
                        if !ctx.options.follow || ctx.options.previous {
                            send_state(SourceState::Ended("end of log".into())).await;
                            return;
                        }
                        if got > 0 {
                            empty_sessions = 0;
                            backoff = MIN_BACKOFF;
                            // Connection closed or container stopped: reconnect at once.
                            None
                        } else {
                            // Nothing new: the container has stopped; wait for the pod to change.
                            empty_sessions += 1;
                            if empty_sessions == 1 {
                                send_state(SourceState::Ended("container stopped".into())).await;
                            }
                            Some((backoff_next(backoff).max(MAX_BACKOFF), true))
                        }
                    }
                    SessionEnd::Error(e) => {
                        backoff = backoff_next(backoff);
                        send_state(SourceState::Retrying {
                            after_ms: u64::try_from(backoff.as_millis()).unwrap_or(u64::MAX),
                            error: e,
                        })
                        .await;
                        Some((backoff, false))
                    }
                }
            }
            Err(kube::Error::Api(s)) => match s.code {
                404 => {
                    send_state(SourceState::Ended("pod deleted".into())).await;
                    return;
                }
                400 if s.message.contains("waiting to start")
                    || s.message.contains("is not available") =>
                {
                    send_state(SourceState::Waiting(s.message.clone())).await;
                    Some((MAX_BACKOFF, true))
                }
                400 | 403 | 422 => {
                    send_state(SourceState::Failed(s.message.clone())).await;
                    return;
                }
                _ => {
                    backoff = backoff_next(backoff);
                    send_state(SourceState::Retrying {
                        after_ms: u64::try_from(backoff.as_millis()).unwrap_or(u64::MAX),
                        error: s.message.clone(),
                    })
                    .await;
                    Some((backoff, false))
                }
            },
            Err(e) => {
                backoff = backoff_next(backoff);
                send_state(SourceState::Retrying {
                    after_ms: u64::try_from(backoff.as_millis()).unwrap_or(u64::MAX),
                    error: crate::cluster::one_line(&e.to_string()),
                })
                .await;
                Some((backoff, false))
            }
        };
        if let Some((d, wake_on_kick)) = wait_for {
            kick.borrow_and_update();
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep(d) => {}
                r = kick.changed(), if wake_on_kick => {
                    if r.is_err() {
                        // The pod's supervisor is gone: so is the pod.
                        return;
                    }
                }
            }
        }
    }
}

async fn read_session(
    ctx: &LogContext,
    source: &Arc<SourceId>,
    body: impl futures::AsyncBufRead,
    resume: &mut Resume,
    cancel: &CancellationToken,
) -> SessionEnd {
    let mut body = std::pin::pin!(body);
    let mut splitter = LineSplitter::default();
    let mut skip = 0usize;
    let start = *resume;
    let mut got = 0usize;
    loop {
        let chunk = tokio::select! {
            _ = cancel.cancelled() => return SessionEnd::Cancelled,
            c = async { body.as_mut().fill_buf().await.map(<[u8]>::to_vec) } => match c {
                Ok(c) => c,
                Err(e) => return SessionEnd::Error(crate::cluster::one_line(&e.to_string())),
            },
        };
        if chunk.is_empty() {
            return SessionEnd::Eof { got };
        }
        body.as_mut().consume(chunk.len());
        let mut lines = Vec::new();
        splitter.push(&chunk, &mut |text| {
            let (ts, rest) = split_timestamp(&text);
            if !start.is_new(ts, &mut skip) {
                return;
            }
            resume.record(ts);
            lines.push(LogLine {
                ts_ns: ts,
                text: rest.to_string(),
            });
        });
        if !lines.is_empty() {
            got += lines.len();
            let ev = LogEvent::Lines {
                source: source.clone(),
                lines,
            };
            tokio::select! {
                _ = cancel.cancelled() => return SessionEnd::Cancelled,
                r = ctx.tx.send(ev) => if r.is_err() { return SessionEnd::Cancelled },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn coalesce_turns_a_line_flood_into_one_batch_per_frame() {
        let (tx, rx) = mpsc::channel(LOG_CHANNEL);
        let source = Arc::new(SourceId {
            namespace: "ns".into(),
            pod: "p".into(),
            container: "c".into(),
        });
        // 5,000 lines/s for one second, one line per event (the worst case).
        tokio::spawn(async move {
            for i in 0..5_000 {
                let ev = LogEvent::Lines {
                    source: source.clone(),
                    lines: vec![LogLine {
                        ts_ns: i,
                        text: format!("{i}"),
                    }],
                };
                if tx.send(ev).await.is_err() {
                    return;
                }
                if i % 5 == 4 {
                    // tokio's timer has millisecond resolution: 5 lines per millisecond.
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            }
        });
        let mut batches = Vec::new();
        coalesce(
            rx,
            Duration::from_millis(16),
            100_000,
            CancellationToken::new(),
            |b| {
                batches.push(b.len());
                async { true }
            },
        )
        .await;
        assert_eq!(batches.iter().sum::<usize>(), 5_000);
        // One second of flood: about 1 s / 16 ms batches.
        assert!(
            (55..=70).contains(&batches.len()),
            "{} batches",
            batches.len()
        );
    }

    #[test]
    fn resume_skips_lines_already_received() {
        let mut r = Resume::default();
        for ts in [10, 20, 20] {
            r.record(ts);
        }
        assert_eq!(
            r,
            Resume {
                last_ts: Some(20),
                at_last: 2
            }
        );
        let mut skip = 0;
        let new: Vec<bool> = [10, 20, 20, 20, 30]
            .iter()
            .map(|t| r.is_new(*t, &mut skip))
            .collect();
        assert_eq!(new, [false, false, false, true, true]);
    }

    #[test]
    fn timestamp_prefix_is_split_and_plain_lines_pass() {
        let (ts, rest) = split_timestamp("2026-01-01T00:00:00.000000001Z hello world");
        assert_eq!(ts, 1_767_225_600_000_000_001);
        assert_eq!(rest, "hello world");
        assert_eq!(
            split_timestamp("no timestamp here"),
            (0, "no timestamp here")
        );
    }

    #[test]
    fn log_url_resumes_with_since_time_instead_of_tail() {
        let s = SourceId {
            namespace: "shop".into(),
            pod: "web-1".into(),
            container: "web".into(),
        };
        let o = StreamOptions::default();
        assert_eq!(
            log_url(&s, &o, None),
            "/api/v1/namespaces/shop/pods/web-1/log?container=web&timestamps=true&follow=true&tailLines=200"
        );
        assert_eq!(
            log_url(&s, &o, Some(1_767_225_600_000_000_001)),
            "/api/v1/namespaces/shop/pods/web-1/log?container=web&timestamps=true&follow=true&sinceTime=2026-01-01T00%3A00%3A00.000000001Z"
        );
    }

    #[test]
    fn long_lines_are_cut_with_their_size() {
        assert_eq!(finish_line(b"abc\r", 0), "abc");
        assert_eq!(finish_line(b"abc", 5), "abc … [5 more bytes cut]");
    }
}
