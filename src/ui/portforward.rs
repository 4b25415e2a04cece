//! Port-forwards as the dashboard sees them: what a forward goes to ([`ForwardTarget`],
//! [`RemotePort`]) and one active forward's row in the `:pf` view ([`ForwardRow`]). The listeners
//! and their connections are `crate::runtime::portforward`.

use k8s_openapi::api::core::v1::Pod;

/// What a forward goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForwardTarget {
    /// One pod, by name.
    Pod(String),
    /// One ready pod among those `selector` (a label selector) picks, e.g. a Service's or a
    /// Deployment's; `what` names the owner for the `:pf` view (`svc/web`, `deploy/web`).
    Selector { what: String, selector: String },
}

/// The pod's port: a number, or a container port name (a Service's named targetPort),
/// resolved against the pod the connection goes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemotePort {
    Number(u16),
    Name(String),
}

impl RemotePort {
    /// The container port of `pod` this names (a number is taken as is).
    pub fn resolve(&self, pod: &Pod) -> Option<u16> {
        match self {
            RemotePort::Number(n) => Some(*n),
            RemotePort::Name(name) => pod
                .spec
                .as_ref()?
                .containers
                .iter()
                .flat_map(|c| c.ports.iter().flatten())
                .find(|p| p.name.as_deref() == Some(name))
                .and_then(|p| u16::try_from(p.container_port).ok()),
        }
    }
}

impl std::fmt::Display for RemotePort {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RemotePort::Number(n) => write!(f, "{n}"),
            RemotePort::Name(n) => f.write_str(n),
        }
    }
}

/// One active forward as the `:pf` view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardRow {
    pub id: u64,
    pub namespace: String,
    pub pod: String,
    pub port: u16,
    /// The local port bound on 127.0.0.1.
    pub local: u16,
    pub connections: u64,
    pub active: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub errors: u64,
    /// For a Service or Deployment forward: what it follows (`svc/web:http`); `pod` is then the
    /// pod in use, empty while waiting for a ready pod.
    pub target: Option<String>,
    /// Times a Service or Deployment forward moved to another pod.
    pub moved: u64,
}

impl ForwardRow {
    /// What the forward goes to: `ns/pod:port`, or `ns/svc/web:http` for a selector forward.
    pub fn remote(&self) -> String {
        match &self.target {
            Some(t) => format!("{}/{t}", self.namespace),
            None => format!("{}/{}:{}", self.namespace, self.pod, self.port),
        }
    }
}
