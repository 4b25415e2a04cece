//! The Eviction subresource (`POST .../pods/{name}/eviction`) and the part of the disruption
//! controller that computes a PodDisruptionBudget's status, as kube-apiserver's
//! `pkg/registry/core/pod/storage/eviction.go` and kube-controller-manager's
//! `pkg/controller/disruption` do.
//!
//! Semantics kept:
//! - a pod that is Pending, Succeeded or Failed, or already terminating, is deleted without looking
//!   at budgets (`canIgnorePDB`);
//! - no budget selecting the pod → the pod is deleted; more than one → 500, as the apiserver
//!   refuses to choose;
//! - one budget: the pod is deleted only while `disruptionsAllowed > 0`; the budget's status is
//!   written first (one fewer disruption allowed, the pod under `disruptedPods`), so two concurrent
//!   evictions cannot both spend the last disruption (a conflicting status write retries);
//! - a pod that is not Ready may be evicted when the budget is already met
//!   (`unhealthyPodEvictionPolicy: IfHealthyBudget`, the default) or always (`AlwaysAllow`);
//! - a refusal is a 429 `TooManyRequests` naming the budget and its healthy counts, without
//!   `Retry-After` (clients such as `kubectl drain` retry on their own schedule).
//!
//! Difference: the demo has no disruption controller running between requests; the budget's status
//! is recomputed from the pods it selects at each eviction ([`budget_status`]), so
//! `disruptionsAllowed` is always current when it matters. `expectedPods` is the number of selected
//! pods (the real controller asks the pods' controller for its scale).

use crate::informer::wire_values as wv;
use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::cluster::{DemoCluster, UpdateMode};
use super::error::{StatusError, Target};
use super::resources;
use crate::selector::LabelSelector;

/// What a budget's status says about the pods it selects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BudgetStatus {
    pub expected_pods: i64,
    pub current_healthy: i64,
    pub desired_healthy: i64,
    pub disruptions_allowed: i64,
}

/// The label selector of a `metav1.LabelSelector` (`matchLabels` + `matchExpressions`).
/// `None` (absent or null) selects nothing; `{}` selects everything, as for policy/v1 budgets.
pub fn label_selector(sel: Option<&Value>) -> Result<Option<LabelSelector>, String> {
    LabelSelector::from_metav1(sel)
}

fn labels_of(obj: &Value) -> BTreeMap<String, String> {
    obj.pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// `Ready=True` and not terminating.
pub fn pod_is_healthy(pod: &Value) -> bool {
    pod.pointer("/metadata/deletionTimestamp").is_none()
        && pod
            .pointer("/status/conditions")
            .and_then(Value::as_array)
            .is_some_and(|cs| {
                cs.iter().any(|c| {
                    c.get("type").and_then(Value::as_str) == Some("Ready")
                        && c.get("status").and_then(Value::as_str) == Some("True")
                })
            })
}

/// An intstr (`2` or `"50%"`) resolved against `total`; percentages round up, as the disruption
/// controller's `GetScaledValueFromIntOrPercent(..., true)` does.
fn scaled(v: &Value, total: i64) -> Result<i64, String> {
    if let Some(n) = v.as_i64() {
        return Ok(n);
    }
    let s = v.as_str().ok_or("must be an integer or a percentage")?;
    let pct: i64 = s
        .strip_suffix('%')
        .and_then(|p| p.parse().ok())
        .ok_or_else(|| format!("invalid value {s:?}: must be an integer or a percentage"))?;
    Ok((pct * total + 99) / 100)
}

/// The status the disruption controller would compute for `pdb` over the pods it selects.
pub fn budget_status(pdb: &Value, selected: &[&Value]) -> Result<BudgetStatus, String> {
    let expected = i64::try_from(selected.len()).unwrap_or(i64::MAX);
    let healthy =
        i64::try_from(selected.iter().filter(|p| pod_is_healthy(p)).count()).unwrap_or(i64::MAX);
    let desired = match (
        pdb.pointer("/spec/minAvailable"),
        pdb.pointer("/spec/maxUnavailable"),
    ) {
        (Some(min), _) if !min.is_null() => scaled(min, expected)?,
        (_, Some(max)) if !max.is_null() => (expected - scaled(max, expected)?).max(0),
        // Neither set: kube defaults minAvailable to 1.
        _ => 1,
    };
    Ok(BudgetStatus {
        expected_pods: expected,
        current_healthy: healthy,
        desired_healthy: desired,
        disruptions_allowed: (healthy - desired).max(0),
    })
}

fn pdb_index() -> Result<usize, StatusError> {
    resources::find("policy", "v1", "poddisruptionbudgets")
        .ok_or_else(|| StatusError::internal("poddisruptionbudgets are not served"))
}

fn pods_index() -> Result<usize, StatusError> {
    resources::find("", "v1", "pods").ok_or_else(|| StatusError::internal("pods are not served"))
}

/// Write the computed status into a budget object (keeping `disruptedPods`).
fn with_status(mut pdb: Value, st: &BudgetStatus, disrupted: Option<(&str, &str)>) -> Value {
    let generation = pdb.pointer("/metadata/generation").cloned();
    let mut disrupted_pods = pdb
        .pointer("/status/disruptedPods")
        .cloned()
        .unwrap_or(json!({}));
    if let Some((pod, at)) = disrupted
        && let Some(m) = disrupted_pods.as_object_mut()
    {
        m.insert(pod.to_string(), json!(at));
    }
    let allowed = st.disruptions_allowed - i64::from(disrupted.is_some());
    let mut status = json!({
        "expectedPods": st.expected_pods,
        "currentHealthy": st.current_healthy,
        "desiredHealthy": st.desired_healthy,
        "disruptionsAllowed": allowed.max(0),
        "conditions": [{
            "type": "DisruptionAllowed",
            "status": if allowed > 0 { "True" } else { "False" },
            "reason": if allowed > 0 { "SufficientPods" } else { "InsufficientPods" },
            "message": "",
            "lastTransitionTime": super::cluster::now_rfc3339(),
        }],
    });
    if let Some(g) = generation {
        status["observedGeneration"] = g;
    }
    if disrupted_pods.as_object().is_some_and(|m| !m.is_empty()) {
        status["disruptedPods"] = disrupted_pods;
    }
    pdb["status"] = status;
    pdb
}

/// Recompute and store the status of every budget in `ns` (what the disruption controller keeps
/// up to date); returns how many budgets changed.
pub fn refresh_budgets(cluster: &DemoCluster, ns: &str) -> Result<usize, StatusError> {
    let pdb_idx = pdb_index()?;
    let pdb_id = resources::RESOURCES[pdb_idx].id;
    let budgets = cluster.list(&pdb_id, Some(ns));
    if budgets.is_empty() {
        return Ok(0);
    }
    let pods = cluster.list(&resources::RESOURCES[pods_index()?].id, Some(ns));
    let mut changed = 0;
    for pdb in budgets {
        let Ok(Some(sel)) = label_selector(pdb.pointer("/spec/selector")) else {
            continue;
        };
        let selected: Vec<&Value> = pods.iter().filter(|p| sel.matches(labels_of(p))).collect();
        let Ok(st) = budget_status(&pdb, &selected) else {
            continue;
        };
        let same = |k: &str, v: i64| {
            pdb.pointer(&format!("/status/{k}")).and_then(Value::as_i64) == Some(v)
        };
        if same("expectedPods", st.expected_pods)
            && same("currentHealthy", st.current_healthy)
            && same("desiredHealthy", st.desired_healthy)
            && same("disruptionsAllowed", st.disruptions_allowed)
        {
            continue;
        }
        let name = pdb
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let next = with_status(pdb, &st, None);
        match cluster.update(pdb_idx, Some(ns), &name, next, UpdateMode::Status) {
            Ok(_) => changed += 1,
            // Someone wrote it meanwhile: the next refresh sees the new version.
            Err(e) if e.code == 409 || e.code == 404 => {}
            Err(e) => return Err(e),
        }
    }
    Ok(changed)
}

/// The `Status` a successful eviction answers with (201 Created).
pub fn success_status() -> Value {
    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": wv::STATUS_SUCCESS, "code": 201})
}

fn budget_refusal(pdb_name: &str, st: &BudgetStatus) -> StatusError {
    StatusError {
        details: Some(json!({"causes": [{
            "reason": "DisruptionBudget",
            "message": format!(
                "The disruption budget {pdb_name} needs {} healthy pods and has {} currently",
                st.desired_healthy, st.current_healthy
            ),
        }]})),
        ..StatusError::new(
            429,
            wv::REASON_TOO_MANY_REQUESTS,
            "Cannot evict pod as it would violate the pod's disruption budget.",
        )
    }
}

/// `POST /api/v1/namespaces/{ns}/pods/{name}/eviction` with a policy/v1 `Eviction` body.
pub fn evict(
    cluster: &DemoCluster,
    ns: &str,
    name: &str,
    body: &Value,
) -> Result<Value, StatusError> {
    let pods_idx = pods_index()?;
    let pdb_idx = pdb_index()?;
    let target = Target {
        group: "",
        plural: "pods",
        name,
    };
    if let Some(n) = body.pointer("/metadata/name").and_then(Value::as_str)
        && n != name
    {
        return Err(StatusError::bad_request(format!(
            "name in URL does not match name in Eviction object: {n} != {name}"
        )));
    }
    let precondition_rv = body
        .pointer("/deleteOptions/preconditions/resourceVersion")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(super::cluster::parse_rv)
        .transpose()?;
    let precondition_uid = body
        .pointer("/deleteOptions/preconditions/uid")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty());
    let grace_period_seconds = body
        .pointer("/deleteOptions/gracePeriodSeconds")
        .and_then(Value::as_i64);
    // Each round reads the pod and its budget; a concurrent budget write makes it start over.
    for _ in 0..16 {
        let pod = cluster.get_stored(pods_idx, Some(ns), name)?;
        let pod_v = pod.value()?;
        let phase = pod_v
            .pointer("/status/phase")
            .and_then(Value::as_str)
            .unwrap_or("");
        let ignore_budgets = matches!(phase, "Pending" | "Succeeded" | "Failed" | "")
            || pod_v.pointer("/metadata/deletionTimestamp").is_some();
        // An evicted pod goes through graceful deletion, as any DELETE of a pod.
        let opts = super::cluster::DeleteOptions {
            grace_period_seconds,
            propagation: None,
            precondition_rv,
            precondition_uid: precondition_uid.map(str::to_string),
        };
        let delete = || {
            cluster
                .delete(pods_idx, Some(ns), name, &opts)
                .map(|_| success_status())
        };
        if ignore_budgets {
            return delete();
        }
        let budgets: Vec<Value> = cluster
            .list(&resources::RESOURCES[pdb_idx].id, Some(ns))
            .into_iter()
            .filter(|pdb| {
                label_selector(pdb.pointer("/spec/selector"))
                    .ok()
                    .flatten()
                    .is_some_and(|s| s.matches(&pod.labels))
            })
            .collect();
        let pdb = match budgets.as_slice() {
            [] => return delete(),
            [one] => one.clone(),
            _ => {
                return Err(StatusError::internal(
                    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                ));
            }
        };
        let pdb_name = pdb
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let sel = label_selector(pdb.pointer("/spec/selector"))
            .map_err(StatusError::bad_request)?
            .unwrap_or_default();
        let pods = cluster.list(&resources::RESOURCES[pods_idx].id, Some(ns));
        let selected: Vec<&Value> = pods.iter().filter(|p| sel.matches(labels_of(p))).collect();
        let st = budget_status(&pdb, &selected).map_err(|m| {
            StatusError::invalid(
                &Target {
                    group: "policy",
                    plural: "poddisruptionbudgets",
                    name: &pdb_name,
                },
                "PodDisruptionBudget",
                "spec",
                &m,
            )
        })?;
        if !pod_is_healthy(&pod_v) {
            let always = pdb
                .pointer("/spec/unhealthyPodEvictionPolicy")
                .and_then(Value::as_str)
                == Some("AlwaysAllow");
            if always || st.current_healthy >= st.desired_healthy {
                return delete();
            }
            return Err(budget_refusal(&pdb_name, &st));
        }
        if st.disruptions_allowed <= 0 {
            // Keep the stored status truthful before refusing.
            let _ = cluster.update(
                pdb_idx,
                Some(ns),
                &pdb_name,
                with_status(pdb, &st, None),
                UpdateMode::Status,
            );
            return Err(budget_refusal(&pdb_name, &st));
        }
        let next = with_status(pdb, &st, Some((name, &super::cluster::now_rfc3339())));
        match cluster.update(pdb_idx, Some(ns), &pdb_name, next, UpdateMode::Status) {
            Ok(_) => {}
            Err(e) if e.code == 409 => continue,
            Err(e) => return Err(e),
        }
        return delete();
    }
    Err(StatusError::conflict(&target))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(labels: Value, ready: bool) -> Value {
        json!({"metadata": {"labels": labels}, "status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": if ready {"True"} else {"False"}}]}})
    }

    #[test]
    fn min_available_and_max_unavailable_give_the_allowed_disruptions() {
        let p = [
            pod(json!({}), true),
            pod(json!({}), true),
            pod(json!({}), false),
        ];
        let sel: Vec<&Value> = p.iter().collect();
        let min2 = json!({"spec": {"minAvailable": 2}});
        let st = budget_status(&min2, &sel).unwrap();
        assert_eq!(
            (st.expected_pods, st.current_healthy, st.desired_healthy),
            (3, 2, 2)
        );
        assert_eq!(st.disruptions_allowed, 0);
        let max1 = json!({"spec": {"maxUnavailable": 1}});
        assert_eq!(budget_status(&max1, &sel).unwrap().desired_healthy, 2);
        let pct = json!({"spec": {"minAvailable": "50%"}});
        // 50% of 3 rounds up to 2.
        assert_eq!(budget_status(&pct, &sel).unwrap().desired_healthy, 2);
        let min1 = json!({"spec": {"minAvailable": 1}});
        assert_eq!(budget_status(&min1, &sel).unwrap().disruptions_allowed, 1);
        assert!(budget_status(&json!({"spec": {"minAvailable": "x%"}}), &sel).is_err());
    }

    #[test]
    fn selectors_follow_match_labels_and_expressions() {
        let s = label_selector(Some(&json!({"matchLabels": {"app": "web"},
            "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["db"]}]})))
        .unwrap()
        .unwrap();
        let l = |v: Value| labels_of(&json!({"metadata": {"labels": v}}));
        assert!(s.matches(l(json!({"app": "web"}))));
        assert!(s.matches(l(json!({"app": "web", "tier": "fe"}))));
        assert!(!s.matches(l(json!({"app": "web", "tier": "db"}))));
        assert!(!s.matches(l(json!({"app": "api"}))));
        assert!(label_selector(None).unwrap().is_none());
        assert!(
            label_selector(Some(&json!({})))
                .unwrap()
                .unwrap()
                .is_empty()
        );
        assert!(
            label_selector(Some(
                &json!({"matchExpressions": [{"key": "a", "operator": "Nope"}]})
            ))
            .is_err()
        );
    }
}
