//! What the dashboard's cache keeps of an object in a compact form, and the one way to read it:
//! [`labels`] for any object's labels, [`pod_record`] for a pruned pod's data, [`event`] for an
//! Event's data and [`unpacked`] for a ReplicaSet's data and annotations (packed the same way:
//! see their modules).
//!
//! client-go counterpart: nothing; client-go's caches hold typed objects (or whatever a
//! `TransformFunc` returns), and a dashboard's transform would return a smaller typed struct.
//! The dashboard's cache holds [`DynamicObject`]s (the same type for every kind and custom
//! resource), whose maps cost a whole B-tree leaf (11 slots, ~540 B for labels, ~630 B for a JSON
//! object) however few keys they hold. So the cache transform (`render::prune`) packs what it
//! keeps of a pod into ONE string:
//! - a pruned pod's `data` is `Value::String(record)` ([`pack_pod`]): its node, its row summary
//!   (STATUS, READY, RESTARTS, last restart, IP), its summed requests and limits, what it uses
//!   (ConfigMaps, Secrets, claims) and its labels; `metadata.labels` is then `None`;
//! - when a custom column keeps more of the pod's data (`render::view_mask`), `data` is a map
//!   holding those fields and the record under [`POD_RECORD_KEY`].
//!
//! A record is a sequence of fields, each written `<byte length>:<bytes>` (so any text round
//! trips, separators included, and reading borrows from the record without copying): node,
//! reason, ready, total, restarts, last restart (empty: none), IP, resources, uses, then the
//! labels as key, value pairs sorted by key.
//!
//! Invariants:
//! - every reader of a cached object's labels goes through [`labels`] (or [`labels_of`] for a
//!   generic object): the packed labels of a pruned pod, else `metadata.labels`; the two are
//!   never both set on an object the cache transform made;
//! - every reader of a pruned pod's data goes through [`pod_record`]; a record that does not
//!   parse reads as absent (never a panic), as does a pod that was never pruned;
//! - `pod_record(&pack_pod(r)) == Some(r)` for every record `r`;
//! - a pruned pod is not serializable as it is (`serde_json::to_value` fails: its data is not a
//!   map): nothing serializes a cached object but through [`to_json`] or [`metadata_json`]
//!   (YAML, describe, edit and diff read the object from a GET).

use std::any::Any;
use std::borrow::Cow;
use std::collections::BTreeMap;

use kube::Resource;
use kube::api::DynamicObject;
use serde_json::Value;

use crate::selector::LabelSet;

mod event;
mod replica_set;
pub use event::{EVENT_RECORD_KEY, EventRecord, EventSeries, EventSubject, event, pack_event};
pub use replica_set::{REPLICA_SET_RECORD_KEY, is_packed_replica_set, pack_replica_set, unpacked};

/// Where a pruned pod's record is kept when its data is a map (a custom column kept some of its
/// fields): see the module doc.
pub const POD_RECORD_KEY: &str = "kinformer.io/pod";

/// An object's labels, wherever the cache keeps them; iterated in key order.
#[derive(Debug, Clone, Copy)]
pub enum Labels<'a> {
    /// `metadata.labels` (or no labels: `None`).
    Map(Option<&'a BTreeMap<String, String>>),
    /// A pruned pod's packed labels: `<len>:key<len>:value` pairs.
    Packed(&'a str),
}

impl<'a> Labels<'a> {
    /// The labels as `(key, value)` pairs, in key order.
    pub fn iter(self) -> LabelsIter<'a> {
        match self {
            Labels::Map(m) => LabelsIter {
                map: m.map(BTreeMap::iter),
                packed: Fields(""),
            },
            Labels::Packed(p) => LabelsIter {
                map: None,
                packed: Fields(p),
            },
        }
    }

    /// The value of label `key`.
    pub fn get(self, key: &str) -> Option<&'a str> {
        match self {
            Labels::Map(m) => m?.get(key).map(String::as_str),
            Labels::Packed(_) => self.iter().find(|(k, _)| *k == key).map(|(_, v)| v),
        }
    }

    /// How many labels there are.
    pub fn len(self) -> usize {
        match self {
            Labels::Map(m) => m.map_or(0, BTreeMap::len),
            Labels::Packed(_) => self.iter().count(),
        }
    }

    /// Whether there are no labels.
    pub fn is_empty(self) -> bool {
        self.iter().next().is_none()
    }

    /// The labels as an owned map (`None` when there are none), as `metadata.labels` holds them.
    pub fn to_map(self) -> Option<BTreeMap<String, String>> {
        match self {
            Labels::Map(m) => m.cloned(),
            Labels::Packed(_) if self.is_empty() => None,
            Labels::Packed(_) => Some(
                self.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
        }
    }
}

impl<'a> IntoIterator for Labels<'a> {
    type Item = (&'a str, &'a str);
    type IntoIter = LabelsIter<'a>;

    fn into_iter(self) -> LabelsIter<'a> {
        self.iter()
    }
}

/// The `(key, value)` pairs of [`Labels`], in key order.
pub struct LabelsIter<'a> {
    map: Option<std::collections::btree_map::Iter<'a, String, String>>,
    packed: Fields<'a>,
}

impl<'a> Iterator for LabelsIter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<(&'a str, &'a str)> {
        if let Some(m) = &mut self.map {
            return m.next().map(|(k, v)| (k.as_str(), v.as_str()));
        }
        Some((self.packed.next()?, self.packed.next()?))
    }
}

impl LabelSet for Labels<'_> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key)
    }
}

impl PartialEq for Labels<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

/// The labels of `obj`: a pruned pod's packed labels, else `metadata.labels`.
pub fn labels(obj: &DynamicObject) -> Labels<'_> {
    if obj.metadata.labels.is_none() {
        if let Some(r) = pod_record(&obj.data) {
            return r.labels;
        }
        if let Some(l) = replica_set::packed_labels(&obj.data) {
            return l;
        }
    }
    Labels::Map(obj.metadata.labels.as_ref())
}

/// [`labels`] for any resource: a [`DynamicObject`]'s as the cache keeps them, a typed object's
/// `metadata.labels`.
pub fn labels_of<K: Resource + 'static>(obj: &K) -> Labels<'_> {
    match (obj as &dyn Any).downcast_ref::<DynamicObject>() {
        Some(d) => labels(d),
        None => Labels::Map(obj.meta().labels.as_ref()),
    }
}

/// `metadata` of `obj` as JSON, its labels read through [`labels`] (`None`: not serializable).
pub fn metadata_json(obj: &DynamicObject) -> Option<Value> {
    let obj = &*unpacked(obj);
    let mut meta = serde_json::to_value(&obj.metadata).ok()?;
    if obj.metadata.labels.is_none()
        && let (Some(l), Value::Object(m)) = (labels(obj).to_map(), &mut meta)
    {
        m.insert("labels".to_string(), serde_json::to_value(l).ok()?);
    }
    Some(meta)
}

/// `obj` as JSON, as the cache holds it: `serde_json::to_value` of a pruned pod fails (its data
/// is a string, and a `DynamicObject`'s data is flattened into the object), so its data is
/// written as a map holding its record (see [`pod_data_as_map`]) and its labels at
/// `metadata.labels`.
pub fn to_json(obj: &DynamicObject) -> Result<Value, serde_json::Error> {
    if let Cow::Owned(o) = unpacked(obj) {
        return serde_json::to_value(&o);
    }
    let mut o = obj.clone();
    if o.metadata.labels.is_none() {
        o.metadata.labels = labels(obj).to_map();
    }
    let key = match o.types.as_ref().map(|t| t.kind.as_str()) {
        Some("Event") => EVENT_RECORD_KEY,
        _ => POD_RECORD_KEY,
    };
    record_data_as_map(&mut o.data, key);
    serde_json::to_value(&o)
}

/// What the cache keeps of a pod, borrowed from its record (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PodRecord<'a> {
    /// `spec.nodeName` (empty: not scheduled).
    pub node: &'a str,
    /// kubectl's STATUS.
    pub reason: &'a str,
    /// READY's ready containers.
    pub ready: u32,
    /// READY's containers.
    pub total: u32,
    /// RESTARTS.
    pub restarts: i64,
    /// Unix seconds of the latest counted restart.
    pub last_restart: Option<i64>,
    /// The IP column.
    pub ip: &'a str,
    /// Summed requests and limits as `render::metrics::PodResources::encode` writes them (empty:
    /// none set).
    pub resources: &'a str,
    /// `Kind/name` of what the pod uses, joined by `,` (see `index::USES_INDEX`).
    pub uses: &'a str,
    /// The pod's labels.
    pub labels: Labels<'a>,
}

/// The record of a pruned pod whose data is `data` (`None`: not a pruned pod, or malformed).
pub fn pod_record(data: &Value) -> Option<PodRecord<'_>> {
    let record = match data {
        Value::String(s) => s,
        Value::Object(m) => m.get(POD_RECORD_KEY)?.as_str()?,
        _ => return None,
    };
    let mut f = Fields(record);
    let node = f.next()?;
    let reason = f.next()?;
    let ready = f.next()?.parse().ok()?;
    let total = f.next()?.parse().ok()?;
    let restarts = f.next()?.parse().ok()?;
    let last_restart = match f.next()? {
        "" => None,
        s => Some(s.parse().ok()?),
    };
    let ip = f.next()?;
    let resources = f.next()?;
    let uses = f.next()?;
    Some(PodRecord {
        node,
        reason,
        ready,
        total,
        restarts,
        last_restart,
        ip,
        resources,
        uses,
        labels: Labels::Packed(f.0),
    })
}

/// A pod's record as its data ([`pod_record`] reads it back): one string, sized to fit.
pub fn pack_pod(r: &PodRecord<'_>) -> Value {
    let last = r.last_restart.map(|t| t.to_string()).unwrap_or_default();
    let (ready, total, restarts) = (
        r.ready.to_string(),
        r.total.to_string(),
        r.restarts.to_string(),
    );
    let fields = [
        r.node,
        r.reason,
        &ready,
        &total,
        &restarts,
        &last,
        r.ip,
        r.resources,
        r.uses,
    ];
    let labels = r.labels.iter().flat_map(|(k, v)| [k, v]);
    let all: Vec<&str> = fields.into_iter().chain(labels).collect();
    let len: usize = all.iter().map(|f| f.len() + digits(f.len()) + 1).sum();
    let mut s = String::with_capacity(len);
    for f in all {
        s.push_str(&f.len().to_string());
        s.push(':');
        s.push_str(f);
    }
    Value::String(s)
}

/// A pruned pod's data as a map holding its record under [`POD_RECORD_KEY`], so that fields a
/// custom column keeps can be added next to it (data that is already a map is left as it is).
pub fn pod_data_as_map(data: &mut Value) {
    record_data_as_map(data, POD_RECORD_KEY);
}

/// A packed object's data (a pod's or an Event's record) as a map holding it under `key`
/// ([`POD_RECORD_KEY`], [`EVENT_RECORD_KEY`]); data that is already a map is left as it is.
pub fn record_data_as_map(data: &mut Value, key: &str) {
    if let Value::String(s) = data {
        let record = Value::String(std::mem::take(s));
        let mut m = serde_json::Map::new();
        m.insert(key.to_string(), record);
        *data = Value::Object(m);
    }
}

fn digits(mut n: usize) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// The `<len>:<bytes>` fields of a record, in order; stops at the end or at a malformed field.
struct Fields<'a>(&'a str);

impl<'a> Iterator for Fields<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let (len, rest) = self.0.split_once(':')?;
        let len: usize = len.parse().ok()?;
        let field = rest.get(..len)?;
        self.0 = &rest[len..];
        Some(field)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record<'a>(labels: &'a str) -> PodRecord<'a> {
        PodRecord {
            node: "node-7",
            reason: "Init:ExitCode:1",
            ready: 1,
            total: 2,
            restarts: 3,
            last_restart: Some(1_700_000_000),
            ip: "10.0.0.9",
            resources: "250,,,",
            uses: "ConfigMap/a,Secret/b",
            labels: Labels::Packed(labels),
        }
    }

    #[test]
    fn a_packed_pod_reads_back_field_for_field_whatever_its_text() {
        let map: BTreeMap<String, String> = [
            ("app".to_string(), "web".to_string()),
            ("odd:key".to_string(), "1:2 \u{1f}é".to_string()),
            ("empty".to_string(), String::new()),
        ]
        .into();
        let packed = pack_pod(&PodRecord {
            labels: Labels::Map(Some(&map)),
            reason: "a:b:9:",
            ..record("")
        });
        let r = pod_record(&packed).unwrap();
        assert_eq!(r.reason, "a:b:9:");
        assert_eq!(r.node, "node-7");
        assert_eq!((r.ready, r.total, r.restarts), (1, 2, 3));
        assert_eq!(r.last_restart, Some(1_700_000_000));
        assert_eq!((r.ip, r.resources, r.uses), record("").tuple());
        assert_eq!(r.labels.to_map(), Some(map.clone()));
        assert_eq!(r.labels.get("odd:key"), Some("1:2 \u{1f}é"));
        assert_eq!(r.labels.get("empty"), Some(""));
        assert_eq!(r.labels.get("missing"), None);
        assert_eq!(r.labels.len(), 3);
        assert_eq!(r.labels, Labels::Map(Some(&map)));
        assert_eq!(
            pack_pod(&r),
            packed,
            "packing what was read is the same record"
        );
    }

    impl PodRecord<'_> {
        fn tuple(&self) -> (&str, &str, &str) {
            (self.ip, self.resources, self.uses)
        }
    }

    #[test]
    fn a_pod_without_labels_or_restarts_packs_and_reads_back_empty() {
        let packed = pack_pod(&PodRecord {
            last_restart: None,
            node: "",
            ..record("")
        });
        let r = pod_record(&packed).unwrap();
        assert_eq!(r.last_restart, None);
        assert_eq!(r.node, "");
        assert!(r.labels.is_empty());
        assert_eq!(r.labels.to_map(), None);
    }

    #[test]
    fn malformed_or_foreign_data_is_not_a_record_and_never_panics() {
        for data in [
            Value::Null,
            Value::String(String::new()),
            Value::String("6:node-7".into()),
            Value::String("99:short".into()),
            Value::String("x:y".into()),
            // A length that would cut a character in two.
            Value::String("1:é".into()),
            serde_json::json!({"spec": {"nodeName": "n"}}),
        ] {
            assert_eq!(pod_record(&data), None, "{data}");
        }
        // Labels cut short read as the pairs that are whole.
        let packed = pack_pod(&record(""));
        let Value::String(mut s) = packed else {
            unreachable!()
        };
        s.push_str("3:app3:web4:tier");
        let v = Value::String(s);
        let r = pod_record(&v).unwrap();
        assert_eq!(r.labels.iter().collect::<Vec<_>>(), vec![("app", "web")]);
    }

    #[test]
    fn a_pruned_pod_serializes_through_to_json_with_its_labels_and_record() {
        let mut o: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}
        }))
        .unwrap();
        o.data = pack_pod(&record("3:app3:web"));
        assert!(serde_json::to_value(&o).is_err(), "why to_json exists");
        let v = to_json(&o).unwrap();
        assert_eq!(v["metadata"]["labels"], serde_json::json!({"app": "web"}));
        assert_eq!(v[POD_RECORD_KEY], o.data);
        assert_eq!(v["kind"], "Pod");
    }

    #[test]
    fn a_record_kept_in_a_map_reads_as_the_same_record() {
        let before = pack_pod(&record("3:app3:web"));
        let mut data = before.clone();
        pod_data_as_map(&mut data);
        assert!(data.is_object());
        assert_eq!(data[POD_RECORD_KEY], before);
        assert_eq!(pod_record(&data), pod_record(&before));
        assert!(pod_record(&data).is_some());
    }

    #[test]
    fn an_objects_labels_are_its_packed_ones_when_pruned_else_its_metadata_labels() {
        let mut o: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "c", "labels": {"app": "db"}}
        }))
        .unwrap();
        assert_eq!(labels(&o).get("app"), Some("db"));
        assert_eq!(labels_of(&o).get("app"), Some("db"));
        o.data = pack_pod(&record("3:app3:web"));
        assert_eq!(
            labels(&o).get("app"),
            Some("db"),
            "metadata.labels, when set, wins"
        );
        o.metadata.labels = None;
        assert_eq!(labels(&o).get("app"), Some("web"));
        assert_eq!(labels_of(&o).get("app"), Some("web"));
        let typed = k8s_openapi::api::core::v1::ConfigMap {
            metadata: kube::api::ObjectMeta {
                labels: Some([("a".to_string(), "b".to_string())].into()),
                ..Default::default()
            },
            ..Default::default()
        };
        assert_eq!(labels_of(&typed).get("a"), Some("b"));
    }
}
