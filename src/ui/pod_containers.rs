//! A pod's containers as the containers screen shows them (k9s's columns), read from a GET of
//! the pod and its PodMetrics: the model, apart from the screen so the messages
//! ([`crate::ui::action::Action::PodContainers`]) can name it without importing a screen.

use k8s_openapi::api::core::v1::{
    Container, ContainerPort as K8sPort, ContainerStatus, EphemeralContainer, Pod,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::render::Health;
use crate::render::metrics::{
    PodResources, Usage, UsageCell, nanos_to_milli, parse_bytes, parse_cpu_nanos,
};
use crate::ui::action::ContainerPort;

/// Where a container sits in the pod's spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContainerKind {
    Init,
    App,
    Ephemeral,
}

/// One container of the pod, as read from its spec, status and metrics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerRow {
    pub name: String,
    pub image: String,
    pub kind: ContainerKind,
    pub ready: bool,
    /// kubectl's state word: `Running`, a waiting or terminated reason, `Waiting`, `-`.
    pub state: String,
    pub restarts: i32,
    pub liveness: bool,
    pub readiness: bool,
    pub ports: Vec<ContainerPort>,
    /// This container's requests (defaulting to its limits, as k9s) and limits.
    pub resources: PodResources,
    /// Its measured usage; `None` without metrics.
    pub usage: Option<Usage>,
}

/// What the GET of a pod (and its metrics) gives the screen.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PodContainers {
    /// The pod's creation, unix seconds (every row's AGE, as k9s).
    pub created: Option<i64>,
    pub rows: Vec<ContainerRow>,
}

/// A pod's containers, from the pod and (when served) its PodMetrics item.
pub fn pod_containers(pod: &Pod, metrics: Option<&serde_json::Value>) -> PodContainers {
    PodContainers {
        created: pod
            .metadata
            .creation_timestamp
            .as_ref()
            .map(|t| t.0.as_second()),
        rows: container_rows(pod, metrics),
    }
}

/// A pod's containers: init ones first, then the app's, then the ephemeral ones.
pub fn container_rows(pod: &Pod, metrics: Option<&serde_json::Value>) -> Vec<ContainerRow> {
    let (spec, status) = (pod.spec.as_ref(), pod.status.as_ref());
    let status_of = |list: Option<&Vec<ContainerStatus>>, name: &str| {
        list.and_then(|l| l.iter().find(|s| s.name == name))
            .cloned()
    };
    let usage_of = |name: &str| -> Option<Usage> {
        let c = metrics?
            .get("containers")?
            .as_array()?
            .iter()
            .find(|c| c.get("name").and_then(|n| n.as_str()) == Some(name))?;
        Some(Usage {
            cpu_n: parse_cpu_nanos(c.pointer("/usage/cpu")?.as_str()?).ok()?,
            mem: parse_bytes(c.pointer("/usage/memory")?.as_str()?).ok()?,
        })
    };
    let mut rows = Vec::new();
    let inits = spec.and_then(|s| s.init_containers.as_ref());
    for c in inits.into_iter().flatten() {
        let st = status_of(
            status.and_then(|s| s.init_container_statuses.as_ref()),
            &c.name,
        );
        rows.push(row_of(c, ContainerKind::Init, st, usage_of(&c.name)));
    }
    for c in spec.map(|s| s.containers.as_slice()).unwrap_or_default() {
        let st = status_of(status.and_then(|s| s.container_statuses.as_ref()), &c.name);
        rows.push(row_of(c, ContainerKind::App, st, usage_of(&c.name)));
    }
    let ephemeral = spec.and_then(|s| s.ephemeral_containers.as_ref());
    for c in ephemeral.into_iter().flatten() {
        let st = status_of(
            status.and_then(|s| s.ephemeral_container_statuses.as_ref()),
            &c.name,
        );
        rows.push(row_of(
            &ephemeral_as_container(c),
            ContainerKind::Ephemeral,
            st,
            usage_of(&c.name),
        ));
    }
    rows
}

/// The fields an ephemeral container shares with a container (what the row reads).
fn ephemeral_as_container(c: &EphemeralContainer) -> Container {
    Container {
        name: c.name.clone(),
        image: c.image.clone(),
        ports: c.ports.clone(),
        resources: c.resources.clone(),
        liveness_probe: c.liveness_probe.clone(),
        readiness_probe: c.readiness_probe.clone(),
        ..Container::default()
    }
}

fn row_of(
    c: &Container,
    kind: ContainerKind,
    status: Option<ContainerStatus>,
    usage: Option<Usage>,
) -> ContainerRow {
    let (ready, state, restarts) = match &status {
        Some(s) => (s.ready, state_word(s), s.restart_count),
        None => (false, "-".to_string(), 0),
    };
    ContainerRow {
        name: c.name.clone(),
        image: c.image.clone().unwrap_or_default(),
        kind,
        ready,
        state,
        restarts,
        liveness: c.liveness_probe.is_some(),
        readiness: c.readiness_probe.is_some(),
        ports: c
            .ports
            .iter()
            .flatten()
            .map(|p| port_of(&c.name, p))
            .collect(),
        resources: resources_of(c),
        usage,
    }
}

fn port_of(container: &str, p: &K8sPort) -> ContainerPort {
    ContainerPort {
        container: container.to_string(),
        port: u16::try_from(p.container_port).unwrap_or(0),
        name: p.name.clone().unwrap_or_default(),
        protocol: p.protocol.clone().unwrap_or_else(|| "TCP".into()),
    }
}

/// kubectl's (and k9s's) state word of a container status.
fn state_word(s: &ContainerStatus) -> String {
    let Some(st) = &s.state else {
        return "-".into();
    };
    if let Some(w) = &st.waiting {
        return w
            .reason
            .clone()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "Waiting".into());
    }
    if let Some(t) = &st.terminated {
        return t
            .reason
            .clone()
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| "Terminating".into());
    }
    if st.running.is_some() {
        return "Running".into();
    }
    "-".into()
}

/// One container's requests and limits; its requests are its limits when it sets none (k9s).
fn resources_of(c: &Container) -> PodResources {
    let Some(r) = &c.resources else {
        return PodResources::default();
    };
    let get = |list: Option<&std::collections::BTreeMap<String, Quantity>>, k: &str| {
        list.and_then(|m| m.get(k)).map(|q| q.0.clone())
    };
    let requests = if r.requests.as_ref().is_some_and(|m| !m.is_empty()) {
        r.requests.as_ref()
    } else {
        r.limits.as_ref()
    };
    let cpu = |q: Option<String>| q.and_then(|q| parse_cpu_nanos(&q).ok()).map(nanos_to_milli);
    let mem = |q: Option<String>| q.and_then(|q| parse_bytes(&q).ok());
    PodResources {
        cpu_request_m: cpu(get(requests, "cpu")),
        cpu_limit_m: cpu(get(r.limits.as_ref(), "cpu")),
        mem_request: mem(get(requests, "memory")),
        mem_limit: mem(get(r.limits.as_ref(), "memory")),
    }
}

impl ContainerRow {
    /// k9s's PORTS cell: `name:port`, `╱UDP` after a port that is not TCP, comma separated.
    pub fn ports_cell(&self) -> String {
        self.ports
            .iter()
            .map(|p| {
                let mut s = if p.name.is_empty() {
                    String::new()
                } else {
                    format!("{}:", p.name)
                };
                s.push_str(&p.port.to_string());
                if p.protocol != "TCP" {
                    s.push('╱');
                    s.push_str(&p.protocol);
                }
                s
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    /// CPU, MEM, %CPU/R, %CPU/L, %MEM/R, %MEM/L.
    pub fn usage_cells(&self) -> [UsageCell; 6] {
        crate::render::metrics::pod_usage_cells(&self.resources, self.usage)
    }

    pub(crate) fn init_cell(&self) -> &'static str {
        match self.kind {
            ContainerKind::Init => "true",
            ContainerKind::App => "false",
            ContainerKind::Ephemeral => "ephemeral",
        }
    }

    pub(crate) fn health(&self) -> Health {
        match self.state.as_str() {
            "Running" if self.ready || self.kind != ContainerKind::App => Health::Ok,
            "Running" => Health::Warning,
            "Completed" => Health::Completed,
            "ContainerCreating" | "PodInitializing" | "Waiting" | "-" => Health::Pending,
            "Terminating" => Health::Terminating,
            _ => Health::Error,
        }
    }
}
