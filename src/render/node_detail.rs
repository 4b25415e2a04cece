//! A node's pressure and capacity for the nodes view: taints, conditions (Ready, MemoryPressure,
//! DiskPressure, PIDPressure), allocatable, and the pods on it (from the node index) with their
//! summed requests and limits against allocatable — `kubectl describe node`'s "Allocated
//! resources", from the cache.
//!
//! Pure: the caller passes the node and the pods the node index returns.

use serde_json::Value;

use super::metrics::{
    Allocatable, PodResources, Usage, UsageCell, nanos_to_milli, percent, pod_resources,
};

/// Conditions shown, in order.
pub const CONDITIONS: [&str; 4] = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/// What the nodes view shows about one node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeDetail {
    /// `key=value:Effect` (or `key:Effect`).
    pub taints: Vec<String>,
    /// `(type, status)` for [`CONDITIONS`] the node reports.
    pub conditions: Vec<(String, String)>,
    pub allocatable: Allocatable,
    /// Pods on the node that hold resources (not Succeeded/Failed).
    pub pods: u64,
    /// Summed requests and limits of those pods.
    pub requested: PodResources,
}

impl NodeDetail {
    pub fn of(node: &Value, pods_on_node: &[&Value]) -> Self {
        let taints = node
            .pointer("/spec/taints")
            .and_then(Value::as_array)
            .map(|ts| {
                ts.iter()
                    .map(|t| {
                        let s = |k: &str| t.get(k).and_then(Value::as_str).unwrap_or("");
                        if s("value").is_empty() {
                            format!("{}:{}", s("key"), s("effect"))
                        } else {
                            format!("{}={}:{}", s("key"), s("value"), s("effect"))
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let conds = node
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let conditions = CONDITIONS
            .iter()
            .filter_map(|t| {
                conds
                    .iter()
                    .find(|c| c.get("type").and_then(Value::as_str) == Some(*t))
                    .map(|c| {
                        let st = c.get("status").and_then(Value::as_str).unwrap_or("Unknown");
                        (t.to_string(), st.to_string())
                    })
            })
            .collect();
        let mut requested = PodResources::default();
        let mut pods = 0;
        for p in pods_on_node {
            // Terminated pods hold nothing (the scheduler does not count them either).
            // A pruned pod has no phase left: its STATUS `Completed` says Succeeded.
            let done = match p.pointer("/status/phase").and_then(Value::as_str) {
                Some(phase) => matches!(phase, "Succeeded" | "Failed"),
                None => super::pod::cached_summary(p).is_some_and(|(s, _)| s.reason == "Completed"),
            };
            if done {
                continue;
            }
            pods += 1;
            let r = pod_resources(p);
            let add = |a: Option<u64>, b: Option<u64>| match (a, b) {
                (Some(a), Some(b)) => Some(a + b),
                (a, None) => a,
                (None, b) => b,
            };
            requested.cpu_request_m = add(requested.cpu_request_m, r.cpu_request_m);
            requested.cpu_limit_m = add(requested.cpu_limit_m, r.cpu_limit_m);
            requested.mem_request = add(requested.mem_request, r.mem_request);
            requested.mem_limit = add(requested.mem_limit, r.mem_limit);
        }
        NodeDetail {
            taints,
            conditions,
            allocatable: Allocatable::of_node(node),
            pods,
            requested,
        }
    }

    /// Whether any pressure condition is True.
    pub fn under_pressure(&self) -> bool {
        self.conditions
            .iter()
            .any(|(t, s)| t != "Ready" && s == "True")
    }

    /// `%` of allocatable CPU and memory requested.
    pub fn requested_percent(&self) -> (UsageCell, UsageCell) {
        (
            percent(
                self.requested.cpu_request_m.unwrap_or(0),
                self.allocatable.cpu_m,
            ),
            percent(
                self.requested.mem_request.unwrap_or(0),
                self.allocatable.mem,
            ),
        )
    }

    /// The detail as text lines (the nodes view's side panel).
    pub fn lines(&self) -> Vec<String> {
        let (cpu_p, mem_p) = self.requested_percent();
        let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_else(|| "n/a".into());
        let mib = |v: Option<u64>| {
            v.map(|v| format!("{}Mi", v >> 20))
                .unwrap_or_else(|| "n/a".into())
        };
        let mut out = vec![
            format!(
                "Taints:      {}",
                if self.taints.is_empty() {
                    "<none>".to_string()
                } else {
                    self.taints.join(", ")
                }
            ),
            format!(
                "Conditions:  {}",
                self.conditions
                    .iter()
                    .map(|(t, s)| format!("{t}={s}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            format!(
                "Allocatable: cpu {}m, memory {}, pods {}",
                opt(self.allocatable.cpu_m),
                mib(self.allocatable.mem),
                opt(self.allocatable.pods)
            ),
            format!("Pods:        {}/{}", self.pods, opt(self.allocatable.pods)),
        ];
        out.push(format!(
            "Requests:    cpu {}m ({}%), memory {} ({}%)",
            self.requested.cpu_request_m.unwrap_or(0),
            cpu_p.display(),
            mib(Some(self.requested.mem_request.unwrap_or(0))),
            mem_p.display()
        ));
        out.push(format!(
            "Limits:      cpu {}m, memory {}",
            self.requested.cpu_limit_m.unwrap_or(0),
            mib(Some(self.requested.mem_limit.unwrap_or(0)))
        ));
        out
    }
}

/// The section `d` (describe) adds for a node: [`NodeDetail::lines`] from the pods on it, and
/// its usage against allocatable (`usage`: the node's `NodeMetrics`, or why there is none).
pub fn describe_section(
    node: &Value,
    pods_on_node: Result<&[&Value], String>,
    usage: Result<Usage, String>,
) -> String {
    let mut out = String::from("Resources (pods on the node, usage from metrics.k8s.io):\n");
    let detail = match &pods_on_node {
        Ok(pods) => NodeDetail::of(node, pods),
        Err(_) => NodeDetail::of(node, &[]),
    };
    for (i, line) in detail.lines().into_iter().enumerate() {
        // Lines 3..: pods, requests, limits; without the pods they are unknown.
        if i >= 3
            && let Err(e) = &pods_on_node
        {
            if i == 3 {
                out.push_str(&format!("  Pods:        n/a ({e})\n"));
            }
            continue;
        }
        out.push_str("  ");
        out.push_str(&line);
        out.push('\n');
    }
    let line = match usage {
        Ok(u) => {
            let cpu_m = nanos_to_milli(u.cpu_n);
            format!(
                "  Usage:       cpu {cpu_m}m ({}%), memory {}Mi ({}%)\n",
                percent(cpu_m, detail.allocatable.cpu_m).display(),
                u.mem >> 20,
                percent(u.mem, detail.allocatable.mem).display()
            )
        }
        Err(why) => format!("  Usage:       n/a ({why})\n"),
    };
    out.push_str(&line);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn node_detail_sums_requests_of_its_running_pods_against_allocatable() {
        let node = json!({"spec": {"taints": [
                {"key": "dedicated", "value": "db", "effect": "NoSchedule"},
                {"key": "node.kubernetes.io/memory-pressure", "effect": "NoSchedule"}]},
            "status": {"allocatable": {"cpu": "3900m", "memory": "15Gi", "pods": "110"},
                "conditions": [{"type": "MemoryPressure", "status": "True"},
                               {"type": "Ready", "status": "True"},
                               {"type": "DiskPressure", "status": "False"}]}});
        let pod = |cpu: &str, mem: &str, phase: &str| {
            json!({"spec": {"containers": [{"name": "c",
                "resources": {"requests": {"cpu": cpu, "memory": mem}, "limits": {"memory": mem}}}]},
                "status": {"phase": phase}})
        };
        let pods = [
            pod("1", "1Gi", "Running"),
            pod("950m", "2Gi", "Pending"),
            pod("2", "4Gi", "Succeeded"),
        ];
        let refs: Vec<&Value> = pods.iter().collect();
        let d = NodeDetail::of(&node, &refs);
        assert_eq!(
            d.taints,
            [
                "dedicated=db:NoSchedule",
                "node.kubernetes.io/memory-pressure:NoSchedule"
            ]
        );
        assert_eq!(
            d.conditions,
            [
                ("Ready".to_string(), "True".to_string()),
                ("MemoryPressure".to_string(), "True".to_string()),
                ("DiskPressure".to_string(), "False".to_string())
            ]
        );
        assert!(d.under_pressure());
        assert_eq!(d.pods, 2);
        assert_eq!(d.requested.cpu_request_m, Some(1950));
        assert_eq!(
            d.requested_percent(),
            (UsageCell::Percent(50), UsageCell::Percent(20))
        );
        let lines = d.lines();
        assert_eq!(lines[3], "Pods:        2/110");
        assert_eq!(
            lines[4],
            "Requests:    cpu 1950m (50%), memory 3072Mi (20%)"
        );
    }

    #[test]
    fn node_without_allocatable_says_na() {
        let d = NodeDetail::of(&json!({}), &[]);
        assert_eq!(
            d.requested_percent(),
            (UsageCell::NotAvailable, UsageCell::NotAvailable)
        );
        assert!(d.lines()[0].ends_with("<none>"));
        assert!(!d.under_pressure());
    }

    #[test]
    fn describe_section_shows_requests_and_usage_against_allocatable() {
        let node = json!({"status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True"},
                {"type": "MemoryPressure", "status": "True"}]}});
        let pod = json!({"status": {"phase": "Running"}, "spec": {"containers": [
            {"resources": {"requests": {"cpu": "1", "memory": "2Gi"}}}]}});
        let text = describe_section(
            &node,
            Ok(&[&pod]),
            Ok(Usage {
                cpu_n: 3_000_000_000,
                mem: 4 << 30,
            }),
        );
        assert!(text.contains("MemoryPressure=True"), "{text}");
        assert!(
            text.contains("Requests:    cpu 1000m (25%), memory 2048Mi (25%)"),
            "{text}"
        );
        assert!(
            text.contains("Usage:       cpu 3000m (75%), memory 4096Mi (50%)"),
            "{text}"
        );
        let text = describe_section(
            &node,
            Err("forbidden".into()),
            Err("no metrics-server".into()),
        );
        assert!(text.contains("Pods:        n/a (forbidden)"), "{text}");
        assert!(!text.contains("Requests:"), "{text}");
        assert!(
            text.contains("Usage:       n/a (no metrics-server)"),
            "{text}"
        );
    }
}
