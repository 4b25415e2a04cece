//! `GET /api/v1/namespaces/{ns}/pods/{name}/log`: container logs, as kube-apiserver serves them
//! from the kubelet (`pkg/registry/core/pod/rest/log.go`, `pkg/kubelet/kubelet_pods.go`
//! `validateContainerLogStatus`, `pkg/kubelet/kuberuntime/logs/logs.go`).
//!
//! The demo has no container runtime, so a container instance's log is a pure function of the
//! instance: line `i` of the instance that started at `start` has the timestamp
//! `start + i / rate` (plus a deterministic jitter below half a period) and a text drawn from the
//! app's style (HTTP access logs, JSON structured logs with levels, logfmt, klog, a database,
//! ANSI-coloured worker logs), the first lines being a startup banner. A crashed instance ends with a panic and
//! its stack trace. Nothing is stored: a log costs memory only while it is being written out.
//!
//! Invariants:
//! - timestamps within one instance strictly increase, so `sinceTime` of the last line seen plus
//!   skipping lines at or before it never repeats nor loses a line on reconnect;
//! - an instance is identified by (pod uid, container, start time): the running instance and the
//!   same instance later read as `previous` have the same lines (the crash trace is appended);
//! - like the kubelet, only the last [`ROTATED_AFTER`] lines of an instance are kept;
//! - errors are the apiserver's: 400 for an invalid container, a missing previous instance, a
//!   container that has not started, bad parameters; 404 for a missing pod; `Status` bodies;
//! - a follow stream ends when the pod is deleted, the container instance stops, or watches are
//!   dropped by fault injection (as when an apiserver restarts), after writing what was due.

use crate::informer::wire_values as wv;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use serde_json::Value;

use super::cluster::{DemoCluster, EventType};
use super::error::StatusError;
use super::faults::FaultInjector;
use super::resources;

/// Lines of an instance the demo "kubelet" keeps (older ones are rotated away).
pub const ROTATED_AFTER: u64 = 100_000;
/// Pod annotation overriding the demo's log rate for that pod's containers.
pub const RATE_ANNOTATION: &str = "demo.kinformer.io/log-lines-per-second";
/// Lines of the crash trace a crashed instance ends with.
const CRASH_LINES: u64 = 7;
/// A follow stream wakes at most this often (lines due meanwhile go out in one chunk).
const FOLLOW_TICK: Duration = Duration::from_millis(10);
/// Bytes per chunk of a non-follow answer.
const CHUNK: usize = 64 * 1024;

/// `["api","v1","namespaces",ns,"pods",name,"log"]` → (ns, name).
pub fn log_path(path: &str) -> Option<(String, String)> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segs.as_slice() {
        ["api", "v1", "namespaces", ns, "pods", name, "log"]
            if !ns.is_empty() && !name.is_empty() =>
        {
            Some(((*ns).to_string(), (*name).to_string()))
        }
        _ => None,
    }
}

/// The query of a log request (`PodLogOptions`), validated as the apiserver does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogOptions {
    pub container: Option<String>,
    pub follow: bool,
    pub previous: bool,
    pub tail_lines: Option<u64>,
    pub since_seconds: Option<u64>,
    /// Unix nanoseconds.
    pub since_time: Option<i64>,
    pub timestamps: bool,
    pub limit_bytes: Option<u64>,
}

fn query_bool(q: &HashMap<String, String>, k: &str) -> Result<bool, StatusError> {
    match q.get(k).map(String::as_str) {
        None | Some("") => Ok(false),
        Some("true" | "1") => Ok(true),
        Some("false" | "0") => Ok(false),
        Some(v) => Err(StatusError::bad_request(format!(
            "invalid value for {k}: {v:?}"
        ))),
    }
}

fn query_int(q: &HashMap<String, String>, k: &str) -> Result<Option<i64>, StatusError> {
    match q.get(k).map(String::as_str) {
        None | Some("") => Ok(None),
        Some(v) => v
            .parse::<i64>()
            .map(Some)
            .map_err(|_| StatusError::bad_request(format!("invalid value for {k}: {v:?}"))),
    }
}

impl LogOptions {
    pub fn parse(q: &HashMap<String, String>) -> Result<Self, StatusError> {
        let invalid = |field: &str, v: i64, msg: &str| {
            StatusError::new(
                422,
                wv::REASON_INVALID,
                format!("PodLogOptions \"\" is invalid: {field}: Invalid value: {v}: {msg}"),
            )
        };
        let tail = query_int(q, "tailLines")?;
        if let Some(t) = tail
            && t < 0
        {
            return Err(invalid(
                "tailLines",
                t,
                "must be greater than or equal to 0",
            ));
        }
        let since = query_int(q, "sinceSeconds")?;
        if let Some(s) = since
            && s < 1
        {
            return Err(invalid("sinceSeconds", s, "must be greater than 0"));
        }
        let limit = query_int(q, "limitBytes")?;
        if let Some(l) = limit
            && l < 1
        {
            return Err(invalid("limitBytes", l, "must be greater than 0"));
        }
        let since_time = match q.get("sinceTime").map(String::as_str) {
            None | Some("") => None,
            Some(v) => Some(
                chrono::DateTime::parse_from_rfc3339(v)
                    .map_err(|e| {
                        StatusError::bad_request(format!("invalid value for sinceTime: {v:?}: {e}"))
                    })?
                    .timestamp_nanos_opt()
                    .ok_or_else(|| {
                        StatusError::bad_request(format!("sinceTime out of range: {v:?}"))
                    })?,
            ),
        };
        if since.is_some() && since_time.is_some() {
            return Err(StatusError::new(
                422,
                wv::REASON_INVALID,
                "PodLogOptions \"\" is invalid: : Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified",
            ));
        }
        Ok(Self {
            container: q.get("container").filter(|c| !c.is_empty()).cloned(),
            follow: query_bool(q, "follow")?,
            previous: query_bool(q, "previous")?,
            tail_lines: tail.map(|t| t.unsigned_abs()),
            since_seconds: since.map(|s| s.unsigned_abs()),
            since_time,
            timestamps: query_bool(q, "timestamps")?,
            limit_bytes: limit.map(|l| l.unsigned_abs()),
        })
    }
}

/// The kind of program writing a log, chosen from the image and app name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogStyle {
    /// nginx-style combined access log lines.
    Access,
    /// One JSON object per line with `level` and `msg`.
    Json,
    /// logfmt `key=value` pairs (go-kit, Prometheus, Loki), with a request's fields.
    Logfmt,
    /// Kubernetes components (klog header).
    Klog,
    /// A database server.
    Database,
    /// A worker with ANSI-coloured levels (what a developer's logger does on a TTY).
    Coloured,
}

impl LogStyle {
    fn of(image: &str, app: &str) -> Self {
        let i = image.to_ascii_lowercase();
        let has = |s: &str| i.contains(s) || app.contains(s);
        if has("ingress") || has("nginx") || has("grafana") || has("envoy") {
            LogStyle::Access
        } else if has("postgres")
            || has("redis")
            || has("kafka")
            || has("clickhouse")
            || has("mysql")
            || has("etcd")
        {
            LogStyle::Database
        } else if i.starts_with("registry.k8s.io/") || has("calico") || has("coredns") {
            LogStyle::Klog
        } else {
            match hash(&[app.as_bytes()]) % 4 {
                0 => LogStyle::Access,
                1 => LogStyle::Json,
                2 => LogStyle::Logfmt,
                _ => LogStyle::Coloured,
            }
        }
    }
}

/// One container instance whose log is served.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub container: String,
    pub app: String,
    pub style: LogStyle,
    /// Unix nanoseconds of the container's start.
    pub start_ns: i64,
    /// Unix nanoseconds of its end, if it has ended.
    pub end_ns: Option<i64>,
    /// Ended with a non-zero exit code: the log ends with a crash trace.
    pub crashed: bool,
    pub lines_per_second: f64,
    seed: u64,
}

fn hash(parts: &[&[u8]]) -> u64 {
    // FNV-1a, then a splitmix64 finaliser: stable across runs and platforms.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    mix(h)
}

fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn parse_time_ns(v: Option<&Value>) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(v?.as_str()?)
        .ok()?
        .timestamp_nanos_opt()
}

/// Unix nanoseconds now.
pub fn now_ns() -> i64 {
    chrono::Utc::now().timestamp_nanos_opt().unwrap_or(i64::MAX)
}

/// kubelet's output timestamp format (`2006-01-02T15:04:05.000000000Z07:00`).
pub fn format_ts(ns: i64) -> String {
    chrono::DateTime::from_timestamp_nanos(ns)
        .format("%Y-%m-%dT%H:%M:%S%.9fZ")
        .to_string()
}

fn names(pod: &Value, list: &str) -> Vec<String> {
    pod.pointer(&format!("/spec/{list}"))
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Which instance of which container a request reads, or the apiserver/kubelet error.
/// `Ok(None)`: the pod has no node yet (the apiserver answers an empty log).
pub fn resolve(
    pod: &Value,
    opts: &LogOptions,
    default_rate: f64,
) -> Result<Option<Instance>, StatusError> {
    let name = pod
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("");
    let containers = names(pod, "containers");
    let inits = names(pod, "initContainers");
    let ephemeral = names(pod, "ephemeralContainers");
    let container = match &opts.container {
        Some(c) => c.clone(),
        None if containers.len() == 1 => containers[0].clone(),
        None => {
            let mut msg = format!(
                "a container name must be specified for pod {name}, choose one of: [{}]",
                containers.join(" ")
            );
            if !inits.is_empty() {
                msg.push_str(&format!(
                    " or one of the init containers: [{}]",
                    inits.join(" ")
                ));
            }
            if !ephemeral.is_empty() {
                msg.push_str(&format!(
                    " or one of the ephemeral containers: [{}]",
                    ephemeral.join(" ")
                ));
            }
            return Err(StatusError::bad_request(msg));
        }
    };
    let (spec_list, status_list) = if containers.contains(&container) {
        ("containers", "containerStatuses")
    } else if inits.contains(&container) {
        ("initContainers", "initContainerStatuses")
    } else if ephemeral.contains(&container) {
        ("ephemeralContainers", "ephemeralContainerStatuses")
    } else {
        return Err(StatusError::bad_request(format!(
            "container {container} is not valid for pod {name}"
        )));
    };
    if pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .is_none_or(str::is_empty)
    {
        return Ok(None);
    }
    let status = pod
        .pointer(&format!("/status/{status_list}"))
        .and_then(Value::as_array)
        .and_then(|ss| {
            ss.iter()
                .find(|s| s.get("name").and_then(Value::as_str) == Some(container.as_str()))
        })
        .ok_or_else(|| {
            StatusError::bad_request(format!(
                "container {container:?} in pod {name:?} is waiting to start: ContainerCreating"
            ))
        })?;
    let image = pod
        .pointer(&format!("/spec/{spec_list}"))
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("name").and_then(Value::as_str) == Some(container.as_str()))
        })
        .and_then(|c| c.get("image"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let labels = pod.pointer("/metadata/labels");
    let app = labels
        .and_then(|l| {
            l.get("app.kubernetes.io/name")
                .or_else(|| l.get("app"))
                .and_then(Value::as_str)
        })
        .unwrap_or(container.as_str())
        .to_string();
    let rate = pod
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(RATE_ANNOTATION))
        .and_then(Value::as_str)
        .and_then(|r| r.parse::<f64>().ok())
        .unwrap_or(default_rate);
    let rate = if rate.is_finite() {
        rate.clamp(0.001, 1_000_000.0)
    } else {
        default_rate
    };
    let uid = pod
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap_or(name);
    let terminated_instance = |t: &Value| -> Option<(i64, i64, bool)> {
        let id = t.get("containerID").and_then(Value::as_str).unwrap_or("");
        if id.is_empty() {
            return None;
        }
        let start = parse_time_ns(t.get("startedAt"))?;
        let end = parse_time_ns(t.get("finishedAt")).unwrap_or(start);
        let code = t.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
        Some((start, end.max(start), code != 0))
    };
    let state = status.get("state");
    let last = status.pointer("/lastState/terminated");
    let (start, end, crashed) = if opts.previous {
        last.and_then(terminated_instance).ok_or_else(|| {
            StatusError::bad_request(format!(
                "previous terminated container {container:?} in pod {name:?} not found"
            ))
        })?
    } else if let Some(r) = state.and_then(|s| s.get("running")) {
        let start = parse_time_ns(r.get("startedAt")).unwrap_or_else(now_ns);
        (start, i64::MAX, false)
    } else if let Some(t) = state.and_then(|s| s.get("terminated")) {
        terminated_instance(t)
            .or_else(|| last.and_then(terminated_instance))
            .ok_or_else(|| {
                StatusError::bad_request(format!(
                    "container {container:?} in pod {name:?} is terminated"
                ))
            })?
    } else if let Some(t) = last {
        terminated_instance(t).ok_or_else(|| {
            StatusError::bad_request(format!(
                "container {container:?} in pod {name:?} is terminated"
            ))
        })?
    } else {
        let reason = state
            .and_then(|s| s.pointer("/waiting/reason"))
            .and_then(Value::as_str)
            .unwrap_or("ContainerCreating");
        let reason = match reason {
            "ErrImagePull" => "image can't be pulled",
            "ImagePullBackOff" => "trying and failing to pull image",
            r => r,
        };
        return Err(StatusError::bad_request(format!(
            "container {container:?} in pod {name:?} is waiting to start: {reason}"
        )));
    };
    let seed = hash(&[uid.as_bytes(), container.as_bytes(), &start.to_le_bytes()]);
    Ok(Some(Instance {
        style: LogStyle::of(image, &app),
        container,
        app,
        start_ns: start,
        end_ns: (end != i64::MAX).then_some(end),
        crashed,
        lines_per_second: rate,
        seed,
    }))
}

impl Instance {
    fn period_ns(&self) -> i64 {
        ((1e9 / self.lines_per_second) as i64).max(2)
    }

    /// Timestamp of normal line `i`.
    fn normal_ts(&self, i: u64) -> i64 {
        let p = self.period_ns();
        let i = i64::try_from(i).unwrap_or(i64::MAX / 2);
        let jitter =
            i64::try_from(mix(self.seed ^ i.unsigned_abs()) % (p / 2).max(1).unsigned_abs())
                .unwrap_or(0);
        self.start_ns
            .saturating_add(i.saturating_mul(p))
            .saturating_add(jitter)
    }

    /// Normal lines written at or before `t`.
    fn normal_count_at(&self, t: i64) -> u64 {
        if t < self.start_ns {
            return 0;
        }
        let k = u64::try_from((t - self.start_ns) / self.period_ns()).unwrap_or(0);
        if self.normal_ts(k) <= t { k + 1 } else { k }
    }

    fn normal_total(&self, now: i64) -> u64 {
        self.normal_count_at(self.end_ns.map_or(now, |e| e.min(now)))
    }

    /// Lines written by `now` (crash trace included once the instance has ended).
    pub fn count_at(&self, now: i64) -> u64 {
        let n = self.normal_total(now);
        match self.end_ns {
            Some(e) if self.crashed && now >= e => n + CRASH_LINES,
            _ => n,
        }
    }

    /// Timestamp of line `i` (crash lines follow the last normal line by a microsecond each).
    pub fn ts(&self, i: u64, now: i64) -> i64 {
        let n = self.normal_total(now);
        if i < n || !self.crashed || self.end_ns.is_none() {
            return self.normal_ts(i);
        }
        let base = if n == 0 {
            self.start_ns
        } else {
            self.normal_ts(n - 1)
        };
        base + i64::try_from((i - n + 1) * 1_000).unwrap_or(0)
    }

    /// First line index not before `t` (lines `< index` are older than `t`).
    fn first_at_or_after(&self, t: i64, now: i64) -> u64 {
        let total = self.count_at(now);
        let mut i = self.normal_count_at(t.saturating_sub(1)).min(total);
        while i > 0 && self.ts(i - 1, now) >= t {
            i -= 1;
        }
        while i < total && self.ts(i, now) < t {
            i += 1;
        }
        i
    }

    /// The lines a request selects at `now`: rotation, then `sinceTime`/`sinceSeconds`, then
    /// `tailLines` (the kubelet reads the last N lines and drops those before `since`).
    pub fn select(&self, opts: &LogOptions, now: i64) -> std::ops::Range<u64> {
        let total = self.count_at(now);
        let mut from = total.saturating_sub(ROTATED_AFTER);
        let since = opts.since_time.or_else(|| {
            opts.since_seconds.map(|s| {
                now.saturating_sub(i64::try_from(s).unwrap_or(i64::MAX / 2) * 1_000_000_000)
            })
        });
        if let Some(t) = since {
            from = from.max(self.first_at_or_after(t, now));
        }
        if let Some(n) = opts.tail_lines {
            from = from.max(total.saturating_sub(n));
        }
        from.min(total)..total
    }

    /// Text of line `i` (no timestamp prefix, no newline).
    pub fn text(&self, i: u64, now: i64) -> String {
        let n = self.normal_total(now);
        if self.crashed && self.end_ns.is_some() && i >= n {
            return self.crash_line(i - n);
        }
        let r = mix(self.seed ^ i.wrapping_mul(0x9e37_79b9));
        let ts = self.normal_ts(i);
        if i < 4 {
            return self.banner(i, ts);
        }
        line_text(self.style, &self.app, r, ts)
    }

    /// The line as written on the wire (with its timestamp when asked, newline-terminated).
    pub fn wire_line(&self, i: u64, now: i64, timestamps: bool, out: &mut Vec<u8>) {
        if timestamps {
            out.extend_from_slice(format_ts(self.ts(i, now)).as_bytes());
            out.push(b' ');
        }
        out.extend_from_slice(self.text(i, now).as_bytes());
        out.push(b'\n');
    }

    fn banner(&self, i: u64, ts: i64) -> String {
        let app = &self.app;
        let version = format!("1.{}.{}", self.seed % 20, (self.seed >> 8) % 10);
        match (self.style, i) {
            (LogStyle::Json, 0) => format!(
                r#"{{"time":"{}","level":"info","msg":"starting {app}","version":"{version}","go":"go1.24.6"}}"#,
                format_ts(ts)
            ),
            (LogStyle::Json, 1) => format!(
                r#"{{"time":"{}","level":"info","msg":"configuration loaded","source":"/etc/{app}/config.yaml"}}"#,
                format_ts(ts)
            ),
            (LogStyle::Json, _) => format!(
                r#"{{"time":"{}","level":"info","msg":"listening","addr":":8080","component":"http"}}"#,
                format_ts(ts)
            ),
            (LogStyle::Logfmt, 0) => format!(
                "ts={} caller=main.go:41 level=info msg=\"starting {app}\" version={version}",
                format_ts(ts)
            ),
            (LogStyle::Logfmt, _) => format!(
                "ts={} caller=main.go:{} level=info msg=\"listening\" addr=:8080 step={i}",
                format_ts(ts),
                50 + i
            ),
            (LogStyle::Klog, _) => klog(
                'I',
                ts,
                "main.go",
                40 + i,
                &format!("\"Starting {app}\" version=\"v{version}\" step={i}"),
            ),
            (LogStyle::Database, 0) => {
                format!("{} [1] LOG:  starting {app} {version}", db_time(ts))
            }
            (LogStyle::Database, 1) => {
                format!(
                    "{} [1] LOG:  listening on IPv4 address \"0.0.0.0\", port 5432",
                    db_time(ts)
                )
            }
            (LogStyle::Database, _) => format!(
                "{} [1] LOG:  database system is ready to accept connections",
                db_time(ts)
            ),
            (_, 0) => format!("Starting {app} v{version}"),
            (_, 1) => format!("Loaded configuration from /etc/{app}/config.yaml"),
            (_, 2) => "Connected to upstream services".to_string(),
            _ => "Listening on 0.0.0.0:8080".to_string(),
        }
    }

    fn crash_line(&self, k: u64) -> String {
        let app = &self.app;
        match k {
            0 => "panic: runtime error: invalid memory address or nil pointer dereference".into(),
            1 => "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6a2f1c]".into(),
            2 => String::new(),
            3 => "goroutine 1 [running]:".into(),
            4 => format!("main.(*Server).handle(0xc000124000, {{0x7f8a9c, 0xc0001a2000}})\n\t/src/cmd/{app}/server.go:142 +0x1c")
                .replace('\n', " "),
            5 => format!("main.main()\t/src/cmd/{app}/main.go:57 +0x2a5"),
            _ => "exit status 2".into(),
        }
    }
}

fn klog(sev: char, ts: i64, file: &str, line: u64, msg: &str) -> String {
    let t = chrono::DateTime::from_timestamp_nanos(ts);
    format!(
        "{sev}{}       1 {file}:{line}] {msg}",
        t.format("%m%d %H:%M:%S%.6f")
    )
}

fn db_time(ts: i64) -> String {
    chrono::DateTime::from_timestamp_nanos(ts)
        .format("%Y-%m-%d %H:%M:%S%.3f UTC")
        .to_string()
}

const PATHS: &[&str] = &[
    "/api/v1/orders",
    "/api/v1/orders/{id}",
    "/api/v1/users/{id}",
    "/api/v1/cart",
    "/healthz",
    "/metrics",
    "/static/app.js",
    "/api/v1/search?q=shoes",
];
const AGENTS: &[&str] = &[
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36",
    "kube-probe/1.33",
    "Go-http-client/1.1",
    "Prometheus/3.1.0",
    "curl/8.5.0",
];

fn line_text(style: LogStyle, app: &str, r: u64, ts: i64) -> String {
    let pick = |n: usize, shift: u32| usize::try_from((r >> shift) % n as u64).unwrap_or(0);
    let id = (r >> 20) % 100_000;
    let ms = (r >> 40) % 900 + 1;
    let level = match r % 100 {
        0..=1 => "error",
        2..=9 => "warn",
        10..=14 => "debug",
        _ => "info",
    };
    match style {
        LogStyle::Access => {
            let path = PATHS[pick(PATHS.len(), 8)].replace("{id}", &id.to_string());
            let status = match r % 100 {
                0..=1 => 500,
                2..=5 => 404,
                6..=8 => 304,
                9 => 201,
                _ => 200,
            };
            let method = if r.is_multiple_of(7) { "POST" } else { "GET" };
            let t = chrono::DateTime::from_timestamp_nanos(ts);
            format!(
                "10.244.{}.{} - - [{}] \"{method} {path} HTTP/1.1\" {status} {} \"-\" \"{}\" rt={}.{:03}",
                (r >> 12) % 8,
                (r >> 16) % 250 + 2,
                t.format("%d/%b/%Y:%H:%M:%S +0000"),
                (r >> 24) % 20_000 + 120,
                AGENTS[pick(AGENTS.len(), 32)],
                ms / 1000,
                ms % 1000,
            )
        }
        LogStyle::Json => {
            let msg = match level {
                "error" => "request failed: upstream timeout",
                "warn" => "slow query",
                "debug" => "cache lookup",
                _ => ["order processed", "message consumed", "request served"][pick(3, 8)],
            };
            format!(
                r#"{{"time":"{}","level":"{level}","logger":"{app}","msg":"{msg}","id":{id},"duration_ms":{ms}}}"#,
                format_ts(ts)
            )
        }
        LogStyle::Logfmt => {
            let (msg, status) = match level {
                "error" => ("\"request failed\" error=\"upstream connect timeout\"", 503),
                "warn" => ("\"slow request\"", 200),
                "debug" => ("\"cache hit\"", 200),
                _ => ("\"request served\"", [200, 200, 201, 204, 404][pick(5, 8)]),
            };
            let path = PATHS[pick(PATHS.len(), 12)].replace("{id}", &id.to_string());
            let user = ["jane", "bob", "amir", "li", "sofia"][pick(5, 16)];
            format!(
                "ts={} caller=handler.go:{} level={level} msg={msg} method={} path={path} status={status} user={user} duration_ms={ms} trace_id={:016x}",
                format_ts(ts),
                100 + (r >> 44) % 60,
                if r.is_multiple_of(7) { "POST" } else { "GET" },
                r >> 3,
            )
        }
        LogStyle::Klog => {
            let sev = match level {
                "error" => 'E',
                "warn" => 'W',
                _ => 'I',
            };
            let msg = match sev {
                'E' => "\"Unhandled Error\" err=\"context deadline exceeded\"".to_string(),
                'W' => format!("\"Slow sync\" duration=\"{ms}ms\""),
                _ => format!("\"Caches populated\" type=\"*v1.Pod\" items={id}"),
            };
            klog(sev, ts, "reflector.go", 376 + (r >> 50) % 30, &msg)
        }
        LogStyle::Database => {
            let msg = match level {
                "error" => format!(
                    "ERROR:  duplicate key value violates unique constraint \"orders_pkey\" (id={id})"
                ),
                "warn" => format!(
                    "LOG:  duration: {ms}.{:03} ms  statement: SELECT * FROM orders WHERE id = {id}",
                    r % 1000
                ),
                _ => [
                    "LOG:  checkpoint starting: time".to_string(),
                    format!("LOG:  checkpoint complete: wrote {} buffers", id % 900),
                    format!("LOG:  connection authorized: user=app database={app}"),
                ][pick(3, 8)]
                .clone(),
            };
            format!("{} [{}] {msg}", db_time(ts), (r >> 8) % 400 + 30)
        }
        LogStyle::Coloured => {
            let (colour, lvl) = match level {
                "error" => ("31", "ERROR"),
                "warn" => ("33", "WARN "),
                "debug" => ("34", "DEBUG"),
                _ => ("32", "INFO "),
            };
            let t = chrono::DateTime::from_timestamp_nanos(ts);
            format!(
                "\x1b[2m{}\x1b[0m \x1b[{colour}m{lvl}\x1b[0m {app}: job {id} done in {ms}ms",
                t.format("%H:%M:%S%.3f")
            )
        }
    }
}

fn pod_key(ns: &str, name: &str) -> String {
    format!("{ns}/{name}")
}

/// Serve one log request. `Err` is answered as a Status; `Ok` is the body stream.
pub fn serve(
    cluster: &Arc<DemoCluster>,
    faults: &FaultInjector,
    ns: &str,
    name: &str,
    opts: LogOptions,
    default_rate: f64,
) -> Result<impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static, StatusError>
{
    let pods = resources::find("", "v1", "pods")
        .ok_or_else(|| StatusError::internal("pods are not served"))?;
    // Subscribe before reading the pod so no change between the two is missed.
    let mut events = cluster.subscribe();
    let mut dropped = faults.drop_signal();
    dropped.borrow_and_update();
    let stored = cluster.get_stored(pods, Some(ns), name)?;
    let pod = stored.value()?;
    let inst = resolve(&pod, &opts, default_rate)?;
    let cluster = cluster.clone();
    let key = pod_key(ns, name);
    let (ns, name) = (ns.to_string(), name.to_string());
    Ok(async_stream::stream! {
        let Some(mut inst) = inst else { return };
        let mut budget = opts.limit_bytes.unwrap_or(u64::MAX);
        let now = now_ns();
        let range = inst.select(&opts, now);
        let mut next = range.start;
        let mut buf = Vec::with_capacity(CHUNK);
        // Writes lines next..upto; false once limitBytes is spent.
        let mut emit = |inst: &Instance, next: &mut u64, upto: u64, now: i64, buf: &mut Vec<u8>| -> bool {
            while *next < upto {
                let start = buf.len();
                inst.wire_line(*next, now, opts.timestamps, buf);
                *next += 1;
                let len = (buf.len() - start) as u64;
                if len >= budget {
                    buf.truncate(start + usize::try_from(budget).unwrap_or(0));
                    budget = 0;
                    return false;
                }
                budget -= len;
                if buf.len() >= CHUNK { break; }
            }
            true
        };
        loop {
            let more = emit(&inst, &mut next, range.end, now, &mut buf);
            if !buf.is_empty() { yield Ok(Bytes::from(std::mem::take(&mut buf))); }
            if !more { return; }
            if next >= range.end { break; }
        }
        if !opts.follow || opts.previous || inst.end_ns.is_some() {
            return;
        }
        let mut last_wake = tokio::time::Instant::now();
        loop {
            let now = now_ns();
            let due = inst.ts(next, now);
            let wait = Duration::from_nanos(u64::try_from(due.saturating_sub(now)).unwrap_or(0));
            let wake = (tokio::time::Instant::now() + wait).max(last_wake + FOLLOW_TICK);
            let mut finished = false;
            tokio::select! {
                _ = tokio::time::sleep_until(wake) => {}
                ev = events.recv() => {
                    let changed = match ev {
                        Ok(ev) if ev.resource == pods && ev.obj.key == key => {
                            if ev.kind == EventType::Deleted { None } else { Some(ev.obj.value().ok()) }
                        }
                        Ok(_) => continue,
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                            cluster.get_stored(pods, Some(&ns), &name).ok().map(|s| s.value().ok())
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => None,
                    };
                    match changed {
                        // Deleted (or unreadable): write what was due, then end.
                        None | Some(None) => finished = true,
                        Some(Some(pod)) => {
                            let current = LogOptions { container: Some(inst.container.clone()), ..LogOptions::default() };
                            let prev = LogOptions { previous: true, ..current.clone() };
                            match resolve(&pod, &current, default_rate) {
                                Ok(Some(i)) if i.start_ns == inst.start_ns => {
                                    if i.end_ns.is_some() { inst = i; finished = true; }
                                }
                                _ => {
                                    // A new instance (or none): ours ended; its final state is
                                    // the previous one now, if the kubelet reports it.
                                    if let Ok(Some(p)) = resolve(&pod, &prev, default_rate)
                                        && p.start_ns == inst.start_ns
                                    {
                                        inst = p;
                                    }
                                    finished = true;
                                }
                            }
                        }
                    }
                }
                _ = dropped.changed() => return,
            }
            last_wake = tokio::time::Instant::now();
            let now = now_ns();
            let upto = inst.count_at(now);
            loop {
                let more = emit(&inst, &mut next, upto, now, &mut buf);
                if !buf.is_empty() { yield Ok(Bytes::from(std::mem::take(&mut buf))); }
                if !more { return; }
                if next >= upto { break; }
            }
            if finished { return; }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn running_pod(started: &str) -> Value {
        json!({
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u-1",
                         "labels": {"app": "web"}},
            "spec": {"nodeName": "n1", "containers": [{"name": "web", "image": "shop/web:1.0"}],
                     "initContainers": [{"name": "migrate", "image": "shop/migrate:1.0"}]},
            "status": {"containerStatuses": [{"name": "web", "restartCount": 1,
                "state": {"running": {"startedAt": started}},
                "lastState": {"terminated": {"exitCode": 2, "reason": "Error",
                    "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:01:00Z",
                    "containerID": "containerd://abc"}}}],
                "initContainerStatuses": [{"name": "migrate",
                    "state": {"terminated": {"exitCode": 0, "reason": "Completed",
                        "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:00:05Z",
                        "containerID": "containerd://init"}}}]}
        })
    }

    fn opts(container: Option<&str>) -> LogOptions {
        LogOptions {
            container: container.map(str::to_string),
            ..LogOptions::default()
        }
    }

    #[test]
    fn log_path_matches_only_the_pod_log_subresource() {
        assert_eq!(
            log_path("/api/v1/namespaces/shop/pods/web-1/log"),
            Some(("shop".into(), "web-1".into()))
        );
        assert_eq!(log_path("/api/v1/namespaces/shop/pods/web-1"), None);
        assert_eq!(log_path("/api/v1/namespaces//pods/web-1/log"), None);
    }

    #[test]
    fn unknown_container_is_the_apiservers_400() {
        let e = resolve(
            &running_pod("2026-01-01T00:02:00Z"),
            &opts(Some("nope")),
            1.0,
        )
        .unwrap_err();
        assert_eq!(e.code, 400);
        assert_eq!(e.message, "container nope is not valid for pod web-1");
    }

    #[test]
    fn previous_instance_is_the_last_termination_and_ends_with_a_crash_trace() {
        let pod = running_pod("2026-01-01T00:02:00Z");
        let o = LogOptions {
            previous: true,
            ..opts(None)
        };
        let i = resolve(&pod, &o, 1.0).unwrap().unwrap();
        assert!(i.crashed);
        let now = now_ns();
        let n = i.count_at(now);
        assert_eq!(n, 60 + CRASH_LINES);
        assert!(i.text(n - CRASH_LINES, now).starts_with("panic:"));
        // Timestamps strictly increase through the crash trace.
        for k in 1..n {
            assert!(i.ts(k, now) > i.ts(k - 1, now), "line {k}");
        }
    }

    #[test]
    fn no_previous_instance_is_a_400() {
        let mut pod = running_pod("2026-01-01T00:02:00Z");
        pod["status"]["containerStatuses"][0]["lastState"] = json!({});
        let o = LogOptions {
            previous: true,
            ..opts(None)
        };
        let e = resolve(&pod, &o, 1.0).unwrap_err();
        assert_eq!(
            e.message,
            "previous terminated container \"web\" in pod \"web-1\" not found"
        );
    }

    #[test]
    fn waiting_container_says_why() {
        let mut pod = running_pod("2026-01-01T00:02:00Z");
        pod["status"]["containerStatuses"][0]["state"] =
            json!({"waiting": {"reason": "ContainerCreating"}});
        pod["status"]["containerStatuses"][0]["lastState"] = json!({});
        let e = resolve(&pod, &opts(None), 1.0).unwrap_err();
        assert_eq!(e.code, 400);
        assert_eq!(
            e.message,
            "container \"web\" in pod \"web-1\" is waiting to start: ContainerCreating"
        );
    }

    #[test]
    fn init_container_logs_are_served_and_unscheduled_pods_are_empty() {
        let pod = running_pod("2026-01-01T00:02:00Z");
        let i = resolve(&pod, &opts(Some("migrate")), 1.0).unwrap().unwrap();
        assert_eq!(i.count_at(now_ns()), 5);
        let mut p = pod.clone();
        p["spec"]["nodeName"] = Value::Null;
        assert_eq!(resolve(&p, &opts(None), 1.0).unwrap(), None);
    }

    #[test]
    fn since_time_and_tail_select_the_right_lines() {
        let pod = running_pod("2026-01-01T00:02:00Z");
        let i = resolve(&pod, &opts(None), 10.0).unwrap().unwrap();
        // Line k is written in [start + k/10 s, start + k/10 s + 50 ms): 1001 lines by now.
        let now = i.start_ns + 100 * 1_000_000_000 + 60_000_000;
        assert_eq!(i.count_at(now), 1001);
        let all = i.select(&opts(None), now);
        assert_eq!(all, 0..1001);
        let t = i.ts(500, now);
        let since = LogOptions {
            since_time: Some(t),
            ..opts(None)
        };
        assert_eq!(i.select(&since, now), 500..1001);
        let since_after = LogOptions {
            since_time: Some(t + 1),
            ..opts(None)
        };
        assert_eq!(i.select(&since_after, now), 501..1001);
        let tail = LogOptions {
            tail_lines: Some(10),
            ..opts(None)
        };
        assert_eq!(i.select(&tail, now), 991..1001);
        let secs = LogOptions {
            since_seconds: Some(10),
            ..opts(None)
        };
        let r = i.select(&secs, now);
        assert!((900..=901).contains(&r.start), "{r:?}");
    }

    #[test]
    fn logfmt_lines_parse_with_their_level_and_request_fields() {
        use crate::ui::log_view::fields::{Format, parse};
        let mut seen = std::collections::HashSet::new();
        for r in 0..400u64 {
            let r = mix(r);
            let line = line_text(LogStyle::Logfmt, "cart", r, 1_764_331_200_000_000_000);
            let p = parse(&line).unwrap_or_else(|| panic!("{line}"));
            assert_eq!(p.format, Format::Logfmt);
            assert!(
                p.get("status").is_some() && p.get("path").is_some(),
                "{line}"
            );
            seen.insert(p.level.map(|l| l.label()));
        }
        assert!(
            seen.contains(&Some("error")) && seen.contains(&Some("info")),
            "{seen:?}"
        );
    }

    #[test]
    fn lines_are_deterministic_per_instance() {
        let pod = running_pod("2026-01-01T00:02:00Z");
        let a = resolve(&pod, &opts(None), 5.0).unwrap().unwrap();
        let b = resolve(&pod, &opts(None), 5.0).unwrap().unwrap();
        let now = now_ns();
        for k in [0, 3, 4, 100, 5000] {
            assert_eq!(a.text(k, now), b.text(k, now));
            assert_eq!(a.ts(k, now), b.ts(k, now));
        }
    }

    #[test]
    fn bad_parameters_are_rejected_like_the_apiserver() {
        let q = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
                .collect::<HashMap<_, _>>()
        };
        assert!(LogOptions::parse(&q(&[("tailLines", "-1")])).is_err());
        assert!(LogOptions::parse(&q(&[("sinceSeconds", "0")])).is_err());
        assert!(
            LogOptions::parse(&q(&[
                ("sinceSeconds", "5"),
                ("sinceTime", "2026-01-01T00:00:00Z")
            ]))
            .is_err()
        );
        assert!(LogOptions::parse(&q(&[("follow", "maybe")])).is_err());
        let o = LogOptions::parse(&q(&[
            ("sinceTime", "2026-01-01T00:00:00.5Z"),
            ("timestamps", "true"),
        ]))
        .unwrap();
        assert_eq!(o.since_time, Some(1_767_225_600_500_000_000));
        assert!(o.timestamps);
    }
}
