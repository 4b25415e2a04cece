//! What per-object history tracks of each kind (see [`crate::informer::history`]), and the
//! decoder's mask when history is on: the cache mask widened by those fields, so the decoder
//! reads them (the cache transform drops them again after history has seen them).
//!
//! Invariants:
//! - the decode mask keeps everything the cache mask keeps (the cache is unchanged by history)
//!   and everything the history mask keeps, and of `managedFields` who wrote and when, not the
//!   fieldsV1 sets (see [`decode_mask`]);
//! - kinds without a rule here track what their cache mask keeps (nothing more is decoded);
//! - secret values are never tracked (a Secret's cache mask keeps their sizes only).

use std::collections::HashMap;
use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::informer::decode::{Mask, ObjectMask};

use Mask::{All, Each, Keys};

/// A pod's container: of its spec only the image can change (and, with in-place resize, the
/// resources, which the cache mask reads anyway); env, command and args are immutable on a pod.
const POD_CONTAINER: Mask = Each(&Keys(&[("name", All), ("image", All), ("resources", All)]));

/// A workload template's container as history tracks it: image, env, resources, command.
const CONTAINER: Mask = Each(&Keys(&[
    ("name", All),
    ("image", All),
    ("env", All),
    ("resources", All),
    ("command", All),
    ("args", All),
]));

/// Everything here is read by the cache mask too (nothing more is decoded for it).
const CONTAINER_STATUS: Mask = Each(&Keys(&[
    ("name", All),
    ("restartCount", All),
    ("ready", All),
    (
        "state",
        Keys(&[
            ("waiting", Keys(&[("reason", All)])),
            ("terminated", Keys(&[("reason", All), ("exitCode", All)])),
        ]),
    ),
    (
        "lastState",
        Keys(&[("terminated", Keys(&[("reason", All), ("exitCode", All)]))]),
    ),
]));

const CONDITIONS: Mask = Each(&Keys(&[("type", All), ("status", All), ("reason", All)]));

const POD: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("nodeName", All),
            ("containers", POD_CONTAINER),
            ("initContainers", POD_CONTAINER),
        ]),
    ),
    (
        "status",
        Keys(&[
            ("phase", All),
            ("reason", All),
            ("podIP", All),
            ("conditions", CONDITIONS),
            ("initContainerStatuses", CONTAINER_STATUS),
            ("containerStatuses", CONTAINER_STATUS),
        ]),
    ),
]);

/// A workload's pod template: its labels and annotations (`kubectl rollout restart` is a
/// `kubectl.kubernetes.io/restartedAt` annotation there), its containers.
const TEMPLATE: Mask = Keys(&[
    ("metadata", Keys(&[("labels", All), ("annotations", All)])),
    (
        "spec",
        Keys(&[("containers", CONTAINER), ("initContainers", CONTAINER)]),
    ),
]);

const WORKLOAD: Mask = Keys(&[
    (
        "spec",
        Keys(&[("replicas", All), ("paused", All), ("template", TEMPLATE)]),
    ),
    (
        "status",
        Keys(&[
            ("replicas", All),
            ("readyReplicas", All),
            ("updatedReplicas", All),
            ("availableReplicas", All),
            ("currentReplicas", All),
            ("desiredNumberScheduled", All),
            ("numberReady", All),
            ("updatedNumberScheduled", All),
            ("conditions", CONDITIONS),
        ]),
    ),
]);

/// A CronJob: its schedule and switches, the template of the Jobs it makes, when it last ran
/// (the cache keeps only the printer's columns).
const CRON_JOB: Mask = Keys(&[
    (
        "spec",
        Keys(&[
            ("schedule", All),
            ("timeZone", All),
            ("suspend", All),
            ("concurrencyPolicy", All),
            (
                "jobTemplate",
                Keys(&[("spec", Keys(&[("template", TEMPLATE)]))]),
            ),
        ]),
    ),
    (
        "status",
        Keys(&[("lastScheduleTime", All), ("lastSuccessfulTime", All)]),
    ),
]);

/// The fields history tracks of `kind`'s data (labels, `creationTimestamp` and
/// `deletionTimestamp` are always tracked): what the kind's rule names (images, env, the
/// template...) and everything its cache mask keeps, so a recorded version has every field the
/// kind's row reads and a past table draws each row as it read then (see
/// `informer::history::past_view`).
pub fn history_mask(kind: &str) -> Mask {
    let rule = match kind {
        "Pod" => POD,
        "Deployment" | "StatefulSet" | "ReplicaSet" | "DaemonSet" => WORKLOAD,
        "CronJob" => CRON_JOB,
        _ => return super::prune::mask(kind).data,
    };
    static MASKS: OnceLock<Mutex<HashMap<String, Mask>>> = OnceLock::new();
    let masks = MASKS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut masks = masks.lock();
    if let Some(m) = masks.get(kind) {
        return *m;
    }
    let m = union(super::prune::mask(kind).data, rule);
    masks.insert(kind.to_string(), m);
    m
}

/// The union of two masks: what either keeps. Built once per kind (see [`decode_mask`]); the
/// few slices it makes live as long as the program.
pub fn union(a: Mask, b: Mask) -> Mask {
    match (a, b) {
        (All, _) | (_, All) => All,
        (Keys(x), Keys(y)) => {
            let mut merged: Vec<(&'static str, Mask)> = x
                .iter()
                .map(|(k, m)| match y.iter().find(|(k2, _)| k2 == k) {
                    Some((_, m2)) => (*k, union(*m, *m2)),
                    None => (*k, *m),
                })
                .collect();
            merged.extend(y.iter().filter(|(k, _)| !x.iter().any(|(k2, _)| k2 == k)));
            Keys(Box::leak(merged.into_boxed_slice()))
        }
        (Each(x), Each(y)) => Each(Box::leak(Box::new(union(*x, *y)))),
        (Mask::Blank(x), Mask::Blank(y)) => Mask::Blank(if x.keep >= y.keep { x } else { y }),
        _ => All,
    }
}

/// The decoder's mask for `kind` with history on: the cache mask widened by the history mask.
pub fn decode_mask(kind: &str) -> ObjectMask {
    static MASKS: OnceLock<Mutex<HashMap<String, ObjectMask>>> = OnceLock::new();
    let masks = MASKS.get_or_init(|| Mutex::new(HashMap::new()));
    let mut masks = masks.lock();
    if let Some(m) = masks.get(kind) {
        return *m;
    }
    let cache = super::prune::mask(kind);
    let m = ObjectMask {
        data: union(cache.data, history_mask(kind)),
        // Not the fieldsV1 sets: decoding every object's managedFields took the recording cost
        // from the accepted +5.5-8.4% of sync CPU to +87% (5k pods, `bench --only history`,
        // 2026-11-28). Who wrote and when is enough to name each version's writer (see
        // `informer::history::writers`); `b` reads the whole sets from a GET.
        managed_fields: false,
        managed_writers: true,
        ..cache
    };
    masks.insert(kind.to_string(), m);
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decoded(kind: &str, v: serde_json::Value) -> kube::api::DynamicObject {
        let json = v.to_string();
        crate::informer::decode::decode_dynamic_masked(&json, &decode_mask(kind)).expect("decodes")
    }

    #[test]
    fn history_decode_mask_reads_images_the_cache_mask_drops() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "p", "namespace": "d"},
            "spec": {"nodeName": "n1", "volumes": [{"name": "v"}],
                "containers": [{"name": "web", "image": "web:1.4",
                    "env": [{"name": "A", "value": "1"}], "resources": {"limits": {"cpu": "1"}}}]},
            "status": {"phase": "Running"}});
        let obj = decoded("Pod", pod.clone());
        assert_eq!(obj.data["spec"]["containers"][0]["image"], "web:1.4");
        // Immutable on a pod: not decoded, but for what the uses index reads (the names of the
        // ConfigMaps and Secrets env and volumes refer to).
        assert_eq!(obj.data["spec"]["containers"][0]["env"], json!([{}]));
        assert_eq!(obj.data["spec"]["volumes"], json!([{}]));
        // The cache transform then gives what the cache held without history.
        let pruned = super::super::prune("Pod", obj);
        let plain = super::super::prune(
            "Pod",
            crate::informer::decode::decode_dynamic(&pod.to_string()).expect("decodes"),
        );
        assert_eq!(pruned, plain);
    }

    #[test]
    fn union_keeps_what_either_mask_keeps() {
        const A: Mask = Keys(&[("a", All), ("b", Keys(&[("x", All)]))]);
        const B: Mask = Keys(&[("b", Keys(&[("y", All)])), ("c", All)]);
        let mut v = json!({"a": 1, "b": {"x": 1, "y": 2, "z": 3}, "c": 4, "d": 5});
        crate::informer::decode::apply_mask(&mut v, union(A, B));
        assert_eq!(v, json!({"a": 1, "b": {"x": 1, "y": 2}, "c": 4}));
    }

    #[test]
    fn kinds_without_a_rule_track_their_cache_fields_only() {
        assert_eq!(history_mask("Node"), super::super::cache_mask("Node").data);
        assert_eq!(
            decode_mask("Node").data,
            super::super::cache_mask("Node").data
        );
    }
}
