//! What a log stream is, as the log view and the messages see it: which pods and containers
//! ([`PodFilter`], [`ContainerPick`]), how ([`StreamOptions`]), and what comes back ([`LogEvent`]:
//! [`LogLine`]s of a [`SourceId`], its [`SourceState`]). The tasks that stream them are
//! `crate::runtime::log_stream`.

use std::fmt;
use std::sync::Arc;

use kube::api::DynamicObject;

use crate::selector::LabelSelector;

/// Where a line comes from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceId {
    pub namespace: String,
    pub pod: String,
    pub container: String,
}

impl fmt::Display for SourceId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.pod, self.container)
    }
}

/// Which containers of a pod a view streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContainerPick {
    All,
    One(String),
}

/// Which pods a view streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PodFilter {
    Name(String),
    Selector(LabelSelector),
}

impl PodFilter {
    pub fn matches(&self, obj: &DynamicObject) -> bool {
        match self {
            PodFilter::Name(n) => obj.metadata.name.as_deref() == Some(n.as_str()),
            PodFilter::Selector(s) => s.matches(crate::informer::cached::labels(obj)),
        }
    }
}

/// What to read from each container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamOptions {
    pub follow: bool,
    pub previous: bool,
    pub tail_lines: Option<i64>,
    pub since_seconds: Option<i64>,
}

impl Default for StreamOptions {
    fn default() -> Self {
        Self {
            follow: true,
            previous: false,
            tail_lines: Some(200),
            since_seconds: None,
        }
    }
}

/// One log line as received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Unix nanoseconds from the server's timestamp, 0 if the line had none.
    pub ts_ns: i64,
    pub text: String,
}

/// The state of one source, as the view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceState {
    Connecting,
    Streaming,
    /// Container not started yet (the server's reason); the stream starts when it runs.
    Waiting(String),
    /// Connection lost or server error; reconnecting in `after_ms` with `sinceTime`.
    Retrying {
        after_ms: u64,
        error: String,
    },
    /// The log ended (container stopped, pod deleted, end of a non-follow read).
    Ended(String),
    /// The server refused (wrong container, no previous instance, 403): nothing more will come.
    Failed(String),
}

/// What the tasks send a view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogEvent {
    Lines {
        source: Arc<SourceId>,
        lines: Vec<LogLine>,
    },
    State {
        source: Arc<SourceId>,
        state: SourceState,
    },
    /// A pod left the view's set (deleted or no longer matching).
    PodGone { namespace: String, pod: String },
}

/// Which pods `L` on an object of `kind` streams, and the view's title: a pod by name, or the
/// pods a workload's or Service's selector matches. An error says why there are no logs.
pub fn log_target(
    kind: &str,
    name: &str,
    object: &kube::api::DynamicObject,
) -> Result<(String, PodFilter), String> {
    // A cached ReplicaSet is packed: its spec is read back through `unpacked`.
    let object = crate::informer::cached::unpacked(object);
    let spec_selector = object.data.pointer("/spec/selector");
    let selector = match kind {
        "Pod" => return Ok((format!("pod/{name}"), PodFilter::Name(name.to_string()))),
        "Deployment" | "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => {
            LabelSelector::from_metav1(spec_selector)
                .map_err(|e| format!("{}/{name}: invalid selector: {e}", kind.to_lowercase()))?
        }
        "Service" => LabelSelector::from_map(spec_selector),
        _ => {
            return Err(format!(
                "no logs for a {kind}: l opens the logs of a pod, a workload or a Service"
            ));
        }
    };
    match selector {
        Some(sel) if !sel.is_empty() => Ok((
            format!("{}/{name}", kind.to_lowercase()),
            PodFilter::Selector(sel),
        )),
        _ => Err(format!(
            "{}/{name} has no pod selector: no pods to show logs of",
            kind.to_lowercase()
        )),
    }
}
