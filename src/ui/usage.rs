//! The usage columns of the pods and nodes tables: CPU, MEM, %CPU/R, %CPU/L, %MEM/R,
//! %MEM/L for pods and CPU, MEM, %CPU, %MEM for nodes, as k9s shows them.
//!
//! Metrics are not rows: the poller ([`crate::ui::metrics`]) sends one usage map per scope and
//! poll ([`Action::Metrics`](crate::ui::action::Action::Metrics)), the app keeps the last one,
//! and the table joins it to its visible rows at draw time (one hash lookup per visible row).
//! Sorting by a usage column copies each row's value into its entry once per poll
//! ([`TableModel::set_joined_keys`](crate::ui::table::TableModel::set_joined_keys)).
//!
//! Metrics unavailable (no metrics-server, 403, 503): every cell says `n/a` and the footer says
//! why, once per reason (the poller reports a reason once and backs off).
//!
//! This is the model the table draws from; `App`'s side (asking for metrics, keeping each
//! poll, filling a usage sort's keys) is `ui/host/usage.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::style::{Color, Modifier, Style};

use crate::cluster::ResourceInfo;
use crate::render::metrics::{
    Allocatable, Level, NODE_COLUMNS, POD_COLUMNS, Usage, UsageCell, node_pods_cell,
    node_usage_cells, pod_resources, pod_usage_cells,
};
use crate::ui::action::{NodePods, ObjectSummary};
use crate::ui::metrics::MetricsScope;
use crate::ui::view::ResourceView;

/// Usage by informer key, from one poll.
pub type UsageMap = Arc<HashMap<String, Usage>>;

/// Which usage columns a table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UsageKind {
    Pods,
    Nodes,
}

impl UsageKind {
    /// Core pods and nodes show usage; every other kind none.
    pub fn of(resource: &ResourceInfo) -> Option<Self> {
        let ar = &resource.api_resource;
        if !ar.group.is_empty() {
            return None;
        }
        match ar.kind.as_str() {
            "Pod" => Some(UsageKind::Pods),
            "Node" => Some(UsageKind::Nodes),
            _ => None,
        }
    }

    /// The column names, in order (after the kind's own columns).
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            UsageKind::Pods => &POD_COLUMNS,
            UsageKind::Nodes => &NODE_COLUMNS,
        }
    }

    /// What a view of this kind polls: pod metrics in its namespace (or all: also for a set of
    /// namespaces, whose rows are joined by their `namespace/name` keys), node metrics.
    pub fn scope(self, namespace: Option<&str>) -> MetricsScope {
        match self {
            UsageKind::Pods => MetricsScope::Pods(
                namespace
                    .filter(|ns| !crate::ui::scope::several(Some(ns)))
                    .map(str::to_string),
            ),
            UsageKind::Nodes => MetricsScope::Nodes,
        }
    }

    /// One row's usage cells: `n/a` everywhere without metrics for it; a node's PODS from the
    /// pods counted on it (`n/a` until counted).
    pub fn cells(self, summary: &ObjectSummary, usage: Option<&Joined<'_>>) -> Vec<UsageCell> {
        // A merged row of another cluster than the one polled: nothing joined.
        let usage = usage.filter(|j| summary.cluster().is_none_or(|c| j.cluster == Some(c)));
        let u = usage
            .and_then(|j| j.metrics)
            .and_then(|m| m.get(summary.object_key()))
            .copied();
        match self {
            UsageKind::Pods => pod_usage_cells(&pod_resources(&summary.object.data), u).to_vec(),
            UsageKind::Nodes => {
                let alloc = Allocatable::of_node(&summary.object.data);
                let pods = match usage.and_then(|j| j.node_pods) {
                    Some(NodePods::Counts(c)) => Some(c.get(&*summary.name).copied().unwrap_or(0)),
                    _ => None,
                };
                let mut cells = vec![node_pods_cell(&alloc, pods)];
                cells.extend(node_usage_cells(&alloc, u));
                cells
            }
        }
    }
}

/// The colour of a usage cell over the row's own colour: ≥ 80% yellow, ≥ 90% red.
pub fn level_style(base: Style, level: Level) -> Style {
    match level {
        Level::Normal => base,
        Level::Warn => base.fg(Color::Yellow),
        Level::Critical => base.fg(Color::Red).add_modifier(Modifier::BOLD),
    }
}

/// What a table joins to its rows: the last metrics poll for its scope (`None`: not polled
/// yet, or unavailable) and, for nodes, the pods counted per node.
#[derive(Clone, Copy)]
pub struct Joined<'a> {
    pub metrics: Option<&'a UsageMap>,
    pub node_pods: Option<&'a NodePods>,
    /// Several clusters selected: the one the metrics and pod counts are of (the current
    /// context); rows of the others show `n/a`.
    pub cluster: Option<&'a str>,
}

/// The usage columns of `v` and what they join.
pub fn view_usage<'a>(
    metrics: &'a HashMap<MetricsScope, UsageMap>,
    node_pods: Option<&'a NodePods>,
    cluster: Option<&'a str>,
    v: &ResourceView,
) -> Option<(UsageKind, Joined<'a>)> {
    let kind = UsageKind::of(&v.resource)?;
    let scope = kind.scope(v.namespace.as_deref());
    Some((
        kind,
        Joined {
            metrics: metrics.get(&scope),
            node_pods: node_pods.filter(|_| kind == UsageKind::Nodes),
            cluster,
        },
    ))
}

/// Copy usage column `col` of every row of `v` into its sort key.
pub fn fill_joined(
    metrics: &HashMap<MetricsScope, UsageMap>,
    node_pods: Option<&NodePods>,
    cluster: Option<&str>,
    v: &mut ResourceView,
    col: usize,
) {
    let Some((kind, joined)) = view_usage(metrics, node_pods, cluster, v) else {
        return;
    };
    v.table.set_joined_keys(|e| {
        kind.cells(&e.summary, Some(&joined))
            .get(col)
            .and_then(UsageCell::sort_key)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_of_namespaces_polls_pod_metrics_across_namespaces() {
        assert_eq!(
            UsageKind::Pods.scope(Some("shop")),
            MetricsScope::Pods(Some("shop".into()))
        );
        assert_eq!(
            UsageKind::Pods.scope(Some("shop,payments")),
            MetricsScope::Pods(None)
        );
        assert_eq!(UsageKind::Pods.scope(None), MetricsScope::Pods(None));
    }
}
