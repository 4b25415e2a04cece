//! What a k9s user's custom columns (views.yaml) read, kept in the cache: the decoder's mask and
//! the cache transform of a resource are widened by the fields its configured JSONPaths walk,
//! not by the whole object (k9s reads every object whole; kinformer's cache keeps only what the
//! columns read, see [`super::prune`]).
//!
//! A path under `metadata` needs nothing (names, labels, owners are always kept) but for
//! `metadata.annotations`, which then keeps the resource's annotations. A path's fields up to
//! its first index or filter are kept; from there the value is kept whole.
//!
//! The masks are made once at start from the configuration ([`install`]) and read by the
//! informer factory's hooks ([`for_resource`]), keyed by `(group, plural)`.

use std::collections::HashMap;
use std::sync::OnceLock;

use kube::api::DynamicObject;
use serde_json::Value;

use super::history_mask::union;
use super::jsonpath::JsonPath;
use crate::informer::decode::{AnnotationMask, Mask, ObjectMask, apply_mask};

/// What one resource's custom columns read beyond its own table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewMask {
    /// Data fields (`None`: only metadata).
    pub data: Option<Mask>,
    /// A column reads `metadata.annotations`.
    pub annotations: bool,
}

impl ViewMask {
    /// What `paths` read; `None` when they read only what is always kept.
    pub fn of_paths<'a>(paths: impl IntoIterator<Item = &'a JsonPath>) -> Option<ViewMask> {
        let mut data: Option<Mask> = None;
        let mut annotations = false;
        for p in paths {
            let (fields, _) = p.leading_fields();
            if fields.first() == Some(&"metadata") {
                annotations |= fields.get(1) == Some(&"annotations");
                continue;
            }
            if let Some(m) = p.data_mask() {
                data = Some(match data {
                    Some(d) => union(d, m),
                    None => m,
                });
            }
        }
        (data.is_some() || annotations).then_some(ViewMask { data, annotations })
    }

    /// A decoder mask widened by this one.
    pub fn widen(&self, m: ObjectMask) -> ObjectMask {
        ObjectMask {
            data: match self.data {
                Some(d) => union(m.data, d),
                None => m.data,
            },
            annotations: if self.annotations {
                AnnotationMask::All
            } else {
                m.annotations
            },
            ..m
        }
    }

    /// The cache transform ([`super::prune`]) keeping what this mask keeps as well.
    pub fn prune(&self, kind: &str, obj: DynamicObject) -> DynamicObject {
        let kept = self.data.map(|m| {
            let mut d = obj.data.clone();
            apply_mask(&mut d, m);
            d
        });
        let annotations = if self.annotations {
            obj.metadata.annotations.clone()
        } else {
            None
        };
        let mut out = super::prune(kind, obj);
        if let Some(k) = kept {
            // A pruned pod's or Event's data is its record: kept as a map, the fields join it.
            let key = match kind {
                "Event" => crate::informer::cached::EVENT_RECORD_KEY,
                "ReplicaSet" => crate::informer::cached::REPLICA_SET_RECORD_KEY,
                _ => crate::informer::cached::POD_RECORD_KEY,
            };
            crate::informer::cached::record_data_as_map(&mut out.data, key);
            merge_missing(&mut out.data, k);
        }
        if self.annotations {
            out.metadata.annotations = annotations;
        }
        out
    }
}

/// Add to `into` what `from` has and `into` lacks (objects merged key by key).
fn merge_missing(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(existing) => merge_missing(existing, v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (into @ Value::Null, from) => *into = from,
        _ => {}
    }
}

static MASKS: OnceLock<HashMap<(String, String), ViewMask>> = OnceLock::new();

/// Set the custom columns' masks, by `(group, plural)`, once at start (later calls are ignored).
pub fn install(masks: HashMap<(String, String), ViewMask>) {
    let _ = MASKS.set(masks);
}

/// The custom columns' mask of a resource, if its view reads more than its table.
pub fn for_resource(group: &str, plural: &str) -> Option<ViewMask> {
    MASKS
        .get()?
        .get(&(group.to_string(), plural.to_string()))
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod() -> DynamicObject {
        serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"},
                         "annotations": {"team": "shop"}},
            "spec": {"nodeName": "n1", "priorityClassName": "high", "containers": [{"name": "c", "image": "nginx"}]},
            "status": {"phase": "Running", "qosClass": "Burstable", "podIP": "10.0.0.1"}
        }))
        .unwrap()
    }

    fn paths(p: &[&str]) -> Vec<JsonPath> {
        p.iter().map(|s| JsonPath::parse(s).unwrap()).collect()
    }

    #[test]
    fn the_cache_keeps_what_custom_columns_read_and_not_the_rest() {
        let ps = paths(&[
            ".status.qosClass",
            ".spec.priorityClassName",
            ".metadata.annotations.team",
        ]);
        let m = ViewMask::of_paths(&ps).unwrap();
        let pruned = m.prune("Pod", pod());
        for p in &ps[..2] {
            assert!(p.first(&pruned.data).is_some(), "{p:?} kept");
        }
        assert_eq!(
            pruned
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("team")),
            Some(&"shop".to_string())
        );
        // The rest still goes: the container's image is read by no column.
        assert!(
            JsonPath::parse(".spec.containers")
                .unwrap()
                .first(&pruned.data)
                .is_none()
        );
        // Without the mask the pod keeps neither.
        let plain = super::super::prune("Pod", pod());
        assert!(ps[0].first(&plain.data).is_none());
        // The rows are unchanged by it.
        assert_eq!(
            super::super::row("Pod", &pruned, None),
            super::super::row("Pod", &plain, None)
        );
    }

    #[test]
    fn labels_need_no_widening_and_the_decoder_mask_grows_by_the_paths() {
        assert!(ViewMask::of_paths(&paths(&[".metadata.labels.app"])).is_none());
        let m = ViewMask::of_paths(&paths(&[".status.qosClass"])).unwrap();
        let widened = m.widen(super::super::cache_mask("Pod"));
        let mut v = json!({"status": {"qosClass": "Burstable", "hostIP": "1.2.3.4"}});
        apply_mask(&mut v, widened.data);
        assert_eq!(v["status"]["qosClass"], "Burstable");
    }

    #[test]
    fn an_events_custom_column_keeps_its_field_next_to_the_events_record() {
        let event: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "e", "namespace": "shop"},
            "involvedObject": {"kind": "Pod", "name": "web-1", "uid": "u-1"},
            "reason": "Pulled", "type": "Normal", "reportingInstance": "node-1"
        }))
        .unwrap();
        let ps = paths(&[".reportingInstance"]);
        let pruned = ViewMask::of_paths(&ps)
            .unwrap()
            .prune("Event", event.clone());
        assert_eq!(ps[0].first(&pruned.data), Some(&json!("node-1")));
        assert_eq!(
            super::super::row("Event", &pruned, None),
            super::super::row("Event", &event, None)
        );
        let plain = super::super::prune("Event", event);
        assert!(ps[0].first(&plain.data).is_none());
    }
}
