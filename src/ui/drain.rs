//! Draining a node, as `kubectl drain NODE --ignore-daemonsets --delete-emptydir-data` does: the
//! dialog's switches ([`DrainOptions`]), the progress it reports ([`DrainEvent`]) and which pods are
//! evicted ([`plan`]'s pure decision). The task that carries it out is `crate::runtime::drain`.
//!
//! [`plan`] applies kubectl's filters: mirror pods (the
//! kubelet's static pods) are skipped; DaemonSet pods are skipped with `ignore_daemonsets`
//! (refused otherwise, the DaemonSet would recreate them); pods with emptyDir volumes are evicted
//! with `delete_emptydir_data` (refused otherwise, their data is lost); pods no controller
//! owns are evicted only with `force` (nothing recreates them).

use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;

/// The drain's switches (the dialog states them; defaults are kubectl's recommended flags).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainOptions {
    /// `--ignore-daemonsets`: skip DaemonSet pods instead of refusing to drain.
    pub ignore_daemonsets: bool,
    /// `--delete-emptydir-data`: evict pods with emptyDir volumes (their data is lost).
    pub delete_emptydir_data: bool,
    /// `--force`: also evict pods no controller owns (nothing recreates them).
    pub force: bool,
    /// First wait after a refused eviction; doubles up to `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// How often an evicted pod is checked for being gone.
    pub poll: Duration,
    /// Evictions in flight at once.
    pub parallel: usize,
}

impl Default for DrainOptions {
    fn default() -> Self {
        Self {
            ignore_daemonsets: true,
            delete_emptydir_data: true,
            force: false,
            initial_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(5),
            poll: Duration::from_secs(1),
            parallel: 8,
        }
    }
}

impl DrainOptions {
    /// The flags as kubectl spells them (for the dialog).
    pub fn flags(&self) -> String {
        let mut f = Vec::new();
        if self.ignore_daemonsets {
            f.push("--ignore-daemonsets");
        }
        if self.delete_emptydir_data {
            f.push("--delete-emptydir-data");
        }
        if self.force {
            f.push("--force");
        }
        f.join(" ")
    }
}

/// `namespace/name` of a pod.
pub type PodRef = String;

/// Progress of a drain, in order: `Cordoned`, `Planned`, then per pod `Blocked`* and
/// `Evicted`/`Failed`, and last exactly one of `Done`, `Error`, `Cancelled`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrainEvent {
    Cordoned,
    Planned {
        evict: Vec<PodRef>,
        /// Skipped pods and why.
        skipped: Vec<(PodRef, String)>,
        /// Pods evicted although they lose something (emptyDir data, no controller).
        warnings: Vec<String>,
    },
    /// The eviction was refused (a disruption budget, 429); retried after `retry_in`.
    Blocked {
        pod: PodRef,
        message: String,
        retry_in: Duration,
    },
    /// Evicted and gone from the node.
    Evicted(PodRef),
    Failed {
        pod: PodRef,
        message: String,
    },
    Done {
        evicted: usize,
        failed: usize,
    },
    /// The drain could not proceed (cordon or list failed, pods kubectl would refuse).
    Error(String),
    Cancelled,
}

/// Which pods a drain evicts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    pub evict: Vec<PodRef>,
    pub skipped: Vec<(PodRef, String)>,
    pub warnings: Vec<String>,
}

fn pod_ref(p: &Pod) -> PodRef {
    format!(
        "{}/{}",
        p.metadata.namespace.as_deref().unwrap_or(""),
        p.metadata.name.as_deref().unwrap_or("")
    )
}

/// kubectl drain's pod filters. `Err` lists the pods that block the drain and why.
pub fn plan(pods: &[Pod], opts: &DrainOptions) -> Result<Plan, String> {
    let mut out = Plan::default();
    let mut refused: Vec<String> = Vec::new();
    for p in pods {
        let r = pod_ref(p);
        let mirror = p
            .metadata
            .annotations
            .as_ref()
            .is_some_and(|a| a.contains_key("kubernetes.io/config.mirror"));
        if mirror {
            out.skipped.push((r, "mirror pod".into()));
            continue;
        }
        let finished = p
            .status
            .as_ref()
            .and_then(|s| s.phase.as_deref())
            .is_some_and(|ph| ph == "Succeeded" || ph == "Failed");
        let controller = p
            .metadata
            .owner_references
            .as_ref()
            .and_then(|o| o.iter().find(|o| o.controller == Some(true)));
        if let Some(c) = controller
            && c.kind == "DaemonSet"
            && !finished
        {
            if opts.ignore_daemonsets {
                out.skipped.push((r, "DaemonSet-managed".into()));
            } else {
                refused.push(format!("{r} (DaemonSet-managed; use --ignore-daemonsets)"));
            }
            continue;
        }
        if controller.is_none() && !finished {
            if opts.force {
                out.warnings
                    .push(format!("{r} declares no controller: it will not come back"));
            } else {
                refused.push(format!("{r} (declares no controller; use --force)"));
                continue;
            }
        }
        let empty_dir = p
            .spec
            .as_ref()
            .and_then(|s| s.volumes.as_ref())
            .is_some_and(|v| v.iter().any(|v| v.empty_dir.is_some()));
        if empty_dir && !finished {
            if opts.delete_emptydir_data {
                out.warnings
                    .push(format!("{r} has emptyDir data that will be deleted"));
            } else {
                refused.push(format!("{r} (local storage; use --delete-emptydir-data)"));
                continue;
            }
        }
        out.evict.push(r);
    }
    if refused.is_empty() {
        Ok(out)
    } else {
        Err(format!("cannot drain: {}", refused.join(", ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, extra: serde_json::Value) -> Pod {
        let mut v = json!({"metadata": {"name": name, "namespace": "ns",
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                                 "uid": "u", "controller": true}]},
            "spec": {"containers": []}, "status": {"phase": "Running"}});
        merge(&mut v, extra);
        serde_json::from_value(v).unwrap()
    }

    fn merge(a: &mut serde_json::Value, b: serde_json::Value) {
        match (a, b) {
            (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                for (k, v) in b {
                    merge(a.entry(k).or_insert(serde_json::Value::Null), v);
                }
            }
            (a, b) => *a = b,
        }
    }

    fn daemon() -> serde_json::Value {
        json!({"metadata": {"ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
            "name": "ds", "uid": "d", "controller": true}]}})
    }

    #[test]
    fn plan_skips_mirror_and_daemonset_pods_and_evicts_the_rest() {
        let pods = [
            pod("web", json!({})),
            pod(
                "static",
                json!({"metadata": {"annotations": {"kubernetes.io/config.mirror": "x"}}}),
            ),
            pod("agent", daemon()),
            pod(
                "cache",
                json!({"spec": {"volumes": [{"name": "v", "emptyDir": {}}]}}),
            ),
        ];
        let p = plan(&pods, &DrainOptions::default()).unwrap();
        assert_eq!(p.evict, ["ns/web", "ns/cache"]);
        assert_eq!(
            p.skipped,
            [
                ("ns/static".to_string(), "mirror pod".to_string()),
                ("ns/agent".to_string(), "DaemonSet-managed".to_string())
            ]
        );
        assert_eq!(
            p.warnings,
            ["ns/cache has emptyDir data that will be deleted"]
        );
    }

    #[test]
    fn plan_refuses_what_kubectl_refuses_without_its_flags() {
        let bare = pod("bare", json!({"metadata": {"ownerReferences": []}}));
        let err = plan(std::slice::from_ref(&bare), &DrainOptions::default()).unwrap_err();
        assert!(
            err.contains("ns/bare (declares no controller; use --force)"),
            "{err}"
        );
        let forced = DrainOptions {
            force: true,
            ..DrainOptions::default()
        };
        assert_eq!(plan(&[bare], &forced).unwrap().evict, ["ns/bare"]);
        let strict = DrainOptions {
            ignore_daemonsets: false,
            delete_emptydir_data: false,
            ..DrainOptions::default()
        };
        let err = plan(
            &[
                pod("agent", daemon()),
                pod(
                    "cache",
                    json!({"spec": {"volumes": [{"name": "v", "emptyDir": {}}]}}),
                ),
            ],
            &strict,
        )
        .unwrap_err();
        assert!(err.contains("ns/agent (DaemonSet-managed"), "{err}");
        assert!(err.contains("ns/cache (local storage"), "{err}");
        // A finished DaemonSet pod is simply removed.
        let done = pod("old", daemon());
        let mut done = done;
        done.status.as_mut().unwrap().phase = Some("Succeeded".into());
        assert_eq!(plan(&[done], &strict).unwrap().evict, ["ns/old"]);
    }

    #[test]
    fn flags_state_kubectl_defaults() {
        assert_eq!(
            DrainOptions::default().flags(),
            "--ignore-daemonsets --delete-emptydir-data"
        );
    }
}
