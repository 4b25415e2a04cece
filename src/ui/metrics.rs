//! Metrics as the dashboard sees them: which metrics a view asks for ([`MetricsScope`]) and what
//! comes back ([`MetricsUpdate`]: usage by informer key, or why it is [`Unavailable`]). The poller
//! that lists `metrics.k8s.io/v1beta1` is `crate::runtime::metrics`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::informer::Error;
use crate::render::metrics::Usage;

/// The API group and version polled.
pub const GROUP_VERSION: &str = "metrics.k8s.io/v1beta1";
/// Longest wait between attempts while the API is unavailable.
pub const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// Which metrics a poll lists.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MetricsScope {
    /// PodMetrics in one namespace, or all (`None`).
    Pods(Option<String>),
    /// NodeMetrics (cluster-scoped).
    Nodes,
}

impl MetricsScope {
    /// The LIST path for this scope.
    pub fn path(&self) -> String {
        match self {
            MetricsScope::Pods(Some(ns)) => format!("/apis/{GROUP_VERSION}/namespaces/{ns}/pods"),
            MetricsScope::Pods(None) => format!("/apis/{GROUP_VERSION}/pods"),
            MetricsScope::Nodes => format!("/apis/{GROUP_VERSION}/nodes"),
        }
    }
}

/// Why usage is not shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unavailable {
    /// 404: the server does not serve metrics.k8s.io (no metrics-server).
    NotServed,
    /// 503: the APIService exists but its backend does not answer.
    ServiceUnavailable(String),
    /// 403: this identity may not list metrics.
    Forbidden(String),
    /// Anything else (transport errors, 5xx, undecodable answers).
    Failed(String),
}

impl Unavailable {
    pub fn of(e: &Error) -> Self {
        match e {
            Error::Forbidden(m) => Unavailable::Forbidden(m.clone()),
            Error::Api { code: 404, .. } => Unavailable::NotServed,
            Error::Api {
                code: 503, message, ..
            } => Unavailable::ServiceUnavailable(message.clone()),
            other => Unavailable::Failed(other.to_string()),
        }
    }

    /// One line for the header.
    pub fn message(&self) -> String {
        match self {
            Unavailable::NotServed => {
                "metrics n/a: metrics.k8s.io is not served (no metrics-server)".into()
            }
            Unavailable::ServiceUnavailable(_) => {
                "metrics n/a: metrics.k8s.io unavailable (503, metrics-server not ready)".into()
            }
            Unavailable::Forbidden(_) => {
                "metrics n/a: forbidden to list metrics.k8s.io (403)".into()
            }
            Unavailable::Failed(m) => format!("metrics n/a: {m}"),
        }
    }
}

/// What the poller sends.
#[derive(Debug, Clone, PartialEq)]
pub enum MetricsUpdate {
    /// One LIST's result: usage by informer key (`ns/name` for pods, `name` for nodes).
    Usage {
        scope: MetricsScope,
        usage: Arc<HashMap<String, Usage>>,
    },
    /// The API cannot be used (sent once per distinct reason).
    Unavailable(Unavailable),
}
