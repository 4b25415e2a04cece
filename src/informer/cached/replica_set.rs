//! What the cache keeps of a ReplicaSet, packed as a pod is, and the one way to read it:
//! [`unpacked`].
//!
//! client-go counterpart: none (client-go's cache would hold a typed `v1.ReplicaSet`). A
//! ReplicaSet's kept data (`spec.replicas`, its selector, its template's containers' names and
//! images, its status counts and conditions) as a `DynamicObject` is a tree of ~9 JSON maps, each
//! a whole B-tree leaf (~630 B), and its labels and kept annotation two more: 8,370 B a cached
//! demo ReplicaSet, 2.5× a pod, while real clusters keep ten old ReplicaSets per Deployment. The
//! cache transform (`render::prune`) packs them into ONE string, [`pack_replica_set`]:
//! `R`, then `<len>:<bytes>` fields (as a pod's record): the kept data as compact JSON, the
//! number of annotations, the annotations' key/value pairs, then the labels' pairs. Its
//! `metadata.labels` and `metadata.annotations` are then `None`.
//!
//! Invariants:
//! - every reader of a cached ReplicaSet's data or annotations reads through [`unpacked`] (the
//!   object as it was before packing: data, labels, annotations); its labels read through
//!   `cached::labels` as every object's do (borrowed from the record, no parse);
//! - `unpacked(pack(o)) == o` for every pruned ReplicaSet `o`; an object that is not a packed
//!   ReplicaSet is borrowed as it is; a record that does not parse reads as an object without
//!   data (never a panic);
//! - when a custom column keeps more of the data (`render::view_mask`), the data is a map holding
//!   the record under [`REPLICA_SET_RECORD_KEY`] and the kept fields; unpacking merges the two.
//!
//! Where this differs from client-go: the data is parsed again by each reader (a row, xray's
//! detail, `l`'s selector): rows are built once per change of the object, not per frame.

use std::borrow::Cow;
use std::collections::BTreeMap;

use kube::api::DynamicObject;
use serde_json::Value;

use super::{Fields, Labels};

/// Where a ReplicaSet's record is kept when its data is a map (see the module doc).
pub const REPLICA_SET_RECORD_KEY: &str = "kinformer.io/replicaset";

/// The first character of a packed ReplicaSet's data (a pod's record starts with a digit).
const MARK: char = 'R';

/// Pack a pruned ReplicaSet in place: its data, labels and annotations become one record.
pub fn pack_replica_set(obj: &mut DynamicObject) {
    let data = std::mem::take(&mut obj.data);
    let json = serde_json::to_string(&data).unwrap_or_default();
    let annotations = obj.metadata.annotations.take().unwrap_or_default();
    let labels = obj.metadata.labels.take().unwrap_or_default();
    let count = annotations.len().to_string();
    let fields = [json.as_str(), count.as_str()]
        .into_iter()
        .chain(
            annotations
                .iter()
                .flat_map(|(k, v)| [k.as_str(), v.as_str()]),
        )
        .chain(labels.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()]));
    let mut s = String::from(MARK);
    for f in fields {
        s.push_str(&f.len().to_string());
        s.push(':');
        s.push_str(f);
    }
    s.shrink_to_fit();
    obj.data = Value::String(s);
}

/// Whether `data` is a packed ReplicaSet's (packing it again leaves it as it is).
pub fn is_packed_replica_set(data: &Value) -> bool {
    record(data).is_some()
}

/// The record of a packed ReplicaSet's data (a string, or a map holding it).
fn record(data: &Value) -> Option<&str> {
    let s = match data {
        Value::String(s) => s.as_str(),
        Value::Object(m) => m.get(REPLICA_SET_RECORD_KEY)?.as_str()?,
        _ => return None,
    };
    s.strip_prefix(MARK)
}

/// A record's fields: its data's JSON, its annotations, and its packed labels.
type Parts<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a str);

/// The fields of a record (see [`Parts`]).
fn parts(record: &str) -> Option<Parts<'_>> {
    let mut f = Fields(record);
    let json = f.next()?;
    let count: usize = f.next()?.parse().ok()?;
    let mut annotations = Vec::with_capacity(count);
    for _ in 0..count {
        annotations.push((f.next()?, f.next()?));
    }
    Some((json, annotations, f.0))
}

/// A packed ReplicaSet's labels (`None`: `data` is not a packed ReplicaSet's).
pub(super) fn packed_labels(data: &Value) -> Option<Labels<'_>> {
    parts(record(data)?).map(|(_, _, labels)| Labels::Packed(labels))
}

/// `obj` as it was before it was packed (its data, labels and annotations back in place);
/// borrowed when it is not a packed ReplicaSet.
pub fn unpacked(obj: &DynamicObject) -> Cow<'_, DynamicObject> {
    let Some(record) = record(&obj.data) else {
        return Cow::Borrowed(obj);
    };
    let mut out = DynamicObject {
        types: obj.types.clone(),
        metadata: obj.metadata.clone(),
        data: Value::Null,
    };
    let Some((json, annotations, labels)) = parts(record) else {
        return Cow::Owned(out);
    };
    let mut data: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    // Fields a custom column kept next to the record.
    if let (Value::Object(kept), Value::Object(d)) = (&obj.data, &mut data) {
        for (k, v) in kept {
            if k != REPLICA_SET_RECORD_KEY {
                d.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    out.data = data;
    if out.metadata.annotations.is_none() && !annotations.is_empty() {
        out.metadata.annotations = Some(
            annotations
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
        );
    }
    if out.metadata.labels.is_none() {
        out.metadata.labels = Labels::Packed(labels).to_map();
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica_set() -> DynamicObject {
        serde_json::from_value(serde_json::json!({
            "apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-7d4b9c", "namespace": "shop", "uid": "u1",
                "labels": {"app": "web", "pod-template-hash": "7d4b9c", "odd:key": "1:2 é"},
                "annotations": {"deployment.kubernetes.io/revision": "3"}},
            "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
                "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}},
            "status": {"replicas": 3, "readyReplicas": 2}
        }))
        .unwrap()
    }

    #[test]
    fn a_packed_replica_set_unpacks_to_the_object_it_was() {
        let rs = replica_set();
        let mut packed = rs.clone();
        pack_replica_set(&mut packed);
        assert!(packed.data.is_string());
        assert!(packed.metadata.labels.is_none() && packed.metadata.annotations.is_none());
        assert_eq!(*unpacked(&packed), rs);
        assert_eq!(super::super::labels(&packed).to_map(), rs.metadata.labels);
        assert!(matches!(unpacked(&rs), Cow::Borrowed(_)));
    }

    #[test]
    fn a_replica_set_record_that_does_not_parse_reads_as_no_data() {
        let mut rs = replica_set();
        rs.metadata.labels = None;
        rs.data = Value::String("R12:{\"spec\"".into());
        let u = unpacked(&rs);
        assert_eq!(u.data, Value::Null);
        assert!(super::super::labels(&rs).is_empty());
    }

    #[test]
    fn fields_a_custom_column_kept_join_the_unpacked_data() {
        let rs = replica_set();
        let mut packed = rs.clone();
        pack_replica_set(&mut packed);
        super::super::record_data_as_map(&mut packed.data, REPLICA_SET_RECORD_KEY);
        if let Value::Object(m) = &mut packed.data {
            m.insert("extra".into(), serde_json::json!({"x": 1}));
        }
        let u = unpacked(&packed);
        assert_eq!(u.data["extra"]["x"], 1);
        assert_eq!(u.data["spec"]["replicas"], 3);
    }
}
