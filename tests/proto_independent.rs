//! kinformer's protobuf tables (`src/informer/pb/schema`) against an encoder that does not use
//! them: the `k8s-pb` crate's prost bindings, generated from Kubernetes' `generated.proto`.
//! The tables are transcribed by hand and the demo server encodes with the same tables, so a
//! mis-numbered field would pass every other test and be wrong on a real cluster.
//!
//! For every kind the tables speak, `objects.rs` (written by `proto_independent/generate.py`
//! from the `k8s-pb` and `k8s-openapi` sources) builds a `k8s-pb` object with every field set,
//! each scalar distinct, and the JSON Kubernetes prints for it (names from `k8s-openapi`'s serde
//! code). prost encodes it, prost wraps it in the `k8s\0` + `runtime.Unknown` envelope, and
//! kinformer decodes it; the cached object must be that JSON, field for field. The JSON itself is
//! checked against `k8s-openapi`: deserializing it into the typed struct and serializing back
//! changes nothing (for the fields the project's `v1_33` types have).

#[rustfmt::skip]
#[path = "proto_independent/objects.rs"]
mod objects;

use base64::Engine as _;
use k8s_pb::apimachinery::pkg::api::resource::Quantity;
use k8s_pb::apimachinery::pkg::apis::meta::v1::{FieldsV1, MicroTime, Time};
use k8s_pb::apimachinery::pkg::runtime::{RawExtension, TypeMeta, Unknown};
use k8s_pb::apimachinery::pkg::util::intstr::IntOrString;
use kinformer::informer::decode::ObjectMask;
use kinformer::informer::pb::{self, schema};
use serde_json::{Map, Value, json};

/// Fields of `generated.proto` (1.35) the tables leave out on purpose, as (k8s-pb message, JSON
/// name): a server's value for them is skipped (see `pb`'s module doc).
const NOT_IN_TABLES: &[(&str, &str)] = &[("api::core::v1::PodSpec", "workloadRef")];

/// Hands out distinct values: the n-th scalar is `s{n}`, `n`, ... so a value decoded under the
/// wrong name cannot match by chance. Each gives (prost value, JSON, JSON for `v1_33`).
pub struct C {
    n: i64,
}

impl C {
    fn next(&mut self) -> i64 {
        self.n += 1;
        self.n
    }
    pub fn string(&mut self) -> (String, Value, Value) {
        let s = format!("s{}", self.next());
        (s.clone(), json!(s), json!(s))
    }
    pub fn int32(&mut self) -> (i32, Value, Value) {
        let n = self.next();
        (i32::try_from(n).unwrap(), json!(n), json!(n))
    }
    pub fn int64(&mut self) -> (i64, Value, Value) {
        let n = self.next() + (1 << 40);
        (n, json!(n), json!(n))
    }
    /// `true`: a `false` is left out of JSON by `omitempty` on most fields, so it would not
    /// show where it went.
    pub fn boolean(&mut self) -> (bool, Value, Value) {
        self.next();
        (true, json!(true), json!(true))
    }
    pub fn bytes(&mut self) -> (Vec<u8>, Value, Value) {
        let b = format!("b{}", self.next()).into_bytes();
        let j = json!(base64::engine::general_purpose::STANDARD.encode(&b));
        (b, j.clone(), j)
    }
    fn seconds(&mut self) -> (i64, String) {
        let secs = 1_700_000_000 + self.next() * 3_661;
        let t = chrono::DateTime::from_timestamp(secs, 0).unwrap();
        (secs, t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
    }
    pub fn time(&mut self) -> (Time, Value, Value) {
        let (seconds, text) = self.seconds();
        let t = Time {
            seconds: Some(seconds),
            nanos: None,
        };
        (t, json!(text), json!(text))
    }
    pub fn micro_time(&mut self) -> (MicroTime, Value, Value) {
        let (seconds, text) = self.seconds();
        let micros = 100_000 + self.n;
        let text = format!("{}.{micros:06}Z", text.trim_end_matches('Z'));
        let t = MicroTime {
            seconds: Some(seconds),
            nanos: Some(i32::try_from(micros * 1000).unwrap()),
        };
        (t, json!(text), json!(text))
    }
    pub fn quantity(&mut self) -> (Quantity, Value, Value) {
        let s = format!("{}Mi", self.next());
        let q = Quantity {
            string: Some(s.clone()),
        };
        (q, json!(s), json!(s))
    }
    /// Odd ones an int, even ones a string.
    pub fn int_or_string(&mut self) -> (IntOrString, Value, Value) {
        let n = self.next();
        if n % 2 == 1 {
            let v = IntOrString {
                r#type: Some(0),
                int_val: Some(i32::try_from(n).unwrap()),
                str_val: None,
            };
            (v, json!(n), json!(n))
        } else {
            let s = format!("p{n}");
            let v = IntOrString {
                r#type: Some(1),
                int_val: None,
                str_val: Some(s.clone()),
            };
            (v, json!(s), json!(s))
        }
    }
    fn raw(&mut self) -> (Vec<u8>, Value) {
        let n = self.next();
        let v = json!({ format!("f:k{n}"): { "n": n } });
        (serde_json::to_vec(&v).unwrap(), v)
    }
    pub fn raw_extension(&mut self) -> (RawExtension, Value, Value) {
        let (raw, v) = self.raw();
        (RawExtension { raw: Some(raw) }, v.clone(), v)
    }
    pub fn fields_v1(&mut self) -> (FieldsV1, Value, Value) {
        let (raw, v) = self.raw();
        (FieldsV1 { raw: Some(raw) }, v.clone(), v)
    }
    pub fn map_entry<V>(&mut self, v: V, j: Value, o: Value) -> (String, V, Value, Value) {
        let key = format!("k{}", self.next());
        let (j, o) = (json!({ key.clone(): j }), json!({ key.clone(): o }));
        (key, v, j, o)
    }
}

/// Set JSON field `name` (and in the `v1_33` JSON when the field is there).
pub fn field(
    js: &mut Map<String, Value>,
    jo: &mut Map<String, Value>,
    name: &str,
    j: Value,
    o: Value,
    in_v1_33: bool,
) {
    js.insert(name.into(), j);
    if in_v1_33 {
        jo.insert(name.into(), o);
    }
}

/// Merge an inlined message's JSON fields into its parent's.
pub fn merge(
    js: &mut Map<String, Value>,
    jo: &mut Map<String, Value>,
    j: Value,
    o: Value,
    in_v1_33: bool,
) {
    if let Value::Object(j) = j {
        js.extend(j);
    }
    if let (true, Value::Object(o)) = (in_v1_33, o) {
        jo.extend(o);
    }
}

/// `body` as kinformer caches it (every field kept), as JSON.
fn kinformer_decodes(body: &[u8]) -> Value {
    let (types, raw) = pb::unwrap_envelope(body).unwrap();
    let msg = schema::kind(&types.api_version, &types.kind)
        .unwrap_or_else(|| panic!("no table for {types:?}"));
    let obj = pb::decode_object(raw, msg, &ObjectMask::ALL, Some(types)).unwrap();
    serde_json::to_value(&obj).unwrap()
}

/// prost's `k8s\0` envelope: the magic, then a `runtime.Unknown` around the message.
fn prost_envelope(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta {
            api_version: Some(api_version.into()),
            kind: Some(kind.into()),
        }),
        raw: Some(raw),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut out = b"k8s\0".to_vec();
    out.extend(prost::Message::encode_to_vec(&unknown));
    out
}

/// Remove every key `name` (a field the tables leave out) from `v`.
fn strip(v: &mut Value, name: &str) {
    match v {
        Value::Object(m) => {
            m.remove(name);
            m.values_mut().for_each(|v| strip(v, name));
        }
        Value::Array(a) => a.iter_mut().for_each(|v| strip(v, name)),
        _ => {}
    }
}

/// Where `got` and `want` differ, one line each (path: got vs want).
fn differences(path: &str, got: &Value, want: &Value, out: &mut Vec<String>) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (k, wv) in w {
                match g.get(k) {
                    Some(gv) => differences(&format!("{path}.{k}"), gv, wv, out),
                    None => out.push(format!("{path}.{k}: missing, want {wv}")),
                }
            }
            for k in g.keys().filter(|k| !w.contains_key(*k)) {
                out.push(format!("{path}.{k}: {} not expected", g[k]));
            }
        }
        (Value::Array(g), Value::Array(w)) if g.len() == w.len() => {
            for (i, (gv, wv)) in g.iter().zip(w).enumerate() {
                differences(&format!("{path}[{i}]"), gv, wv, out);
            }
        }
        _ if got != want => out.push(format!("{path}: {got} want {want}")),
        _ => {}
    }
}

#[test]
fn every_kind_encoded_by_prost_decodes_to_the_json_kubernetes_prints() {
    assert!(
        objects::NO_JSON_NAME.is_empty(),
        "k8s-pb fields left unset (no JSON name in k8s-openapi): {:?}",
        objects::NO_JSON_NAME
    );
    let mut wrong = Vec::new();
    for (api_version, kind, _, make) in objects::KINDS {
        let (raw, mut want, _) = make(&mut C { n: 0 });
        for (_, name) in NOT_IN_TABLES {
            strip(&mut want, name);
        }
        let got = kinformer_decodes(&prost_envelope(api_version, kind, raw));
        differences(kind, &got, &want, &mut wrong);
    }
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The expected JSON is `k8s-openapi`'s: its typed struct reads it and writes it back unchanged
/// (so every name is one `k8s-openapi` knows, every value of the type it expects).
#[test]
fn the_expected_json_is_what_k8s_openapi_writes_for_the_same_object() {
    use k8s_openapi::api::{apps, autoscaling, batch, coordination, core, discovery, networking};
    use k8s_openapi::api::{policy, rbac, scheduling, storage};
    fn typed<T: serde::de::DeserializeOwned + serde::Serialize>(v: &Value) -> Value {
        serde_json::to_value(serde_json::from_value::<T>(v.clone()).unwrap()).unwrap()
    }
    let mut wrong = Vec::new();
    for (_, kind, _, make) in objects::KINDS {
        let (_, _, v1_33) = make(&mut C { n: 0 });
        let back = match *kind {
            "Pod" => typed::<core::v1::Pod>(&v1_33),
            "Namespace" => typed::<core::v1::Namespace>(&v1_33),
            "ConfigMap" => typed::<core::v1::ConfigMap>(&v1_33),
            "Node" => typed::<core::v1::Node>(&v1_33),
            "Service" => typed::<core::v1::Service>(&v1_33),
            "Endpoints" => typed::<core::v1::Endpoints>(&v1_33),
            "Event" => typed::<core::v1::Event>(&v1_33),
            "Secret" => typed::<core::v1::Secret>(&v1_33),
            "ServiceAccount" => typed::<core::v1::ServiceAccount>(&v1_33),
            "PersistentVolumeClaim" => typed::<core::v1::PersistentVolumeClaim>(&v1_33),
            "PersistentVolume" => typed::<core::v1::PersistentVolume>(&v1_33),
            "ResourceQuota" => typed::<core::v1::ResourceQuota>(&v1_33),
            "LimitRange" => typed::<core::v1::LimitRange>(&v1_33),
            "Deployment" => typed::<apps::v1::Deployment>(&v1_33),
            "ReplicaSet" => typed::<apps::v1::ReplicaSet>(&v1_33),
            "StatefulSet" => typed::<apps::v1::StatefulSet>(&v1_33),
            "DaemonSet" => typed::<apps::v1::DaemonSet>(&v1_33),
            "Job" => typed::<batch::v1::Job>(&v1_33),
            "CronJob" => typed::<batch::v1::CronJob>(&v1_33),
            "Ingress" => typed::<networking::v1::Ingress>(&v1_33),
            "NetworkPolicy" => typed::<networking::v1::NetworkPolicy>(&v1_33),
            "PodDisruptionBudget" => typed::<policy::v1::PodDisruptionBudget>(&v1_33),
            "HorizontalPodAutoscaler" => typed::<autoscaling::v2::HorizontalPodAutoscaler>(&v1_33),
            "Role" => typed::<rbac::v1::Role>(&v1_33),
            "RoleBinding" => typed::<rbac::v1::RoleBinding>(&v1_33),
            "ClusterRole" => typed::<rbac::v1::ClusterRole>(&v1_33),
            "ClusterRoleBinding" => typed::<rbac::v1::ClusterRoleBinding>(&v1_33),
            "StorageClass" => typed::<storage::v1::StorageClass>(&v1_33),
            "EndpointSlice" => typed::<discovery::v1::EndpointSlice>(&v1_33),
            "Lease" => typed::<coordination::v1::Lease>(&v1_33),
            "PriorityClass" => typed::<scheduling::v1::PriorityClass>(&v1_33),
            other => panic!("no k8s-openapi type for {other}"),
        };
        differences(kind, &back, &v1_33, &mut wrong);
    }
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// The shape `k8s-pb` gives a field (see `objects::MESSAGES`) for a table's type.
fn shape_of(ty: schema::Ty) -> Vec<&'static str> {
    use schema::Ty;
    match ty {
        Ty::Str => vec!["string"],
        Ty::Bool => vec!["bool"],
        Ty::Int => vec!["int32", "int64"],
        Ty::Bytes => vec!["bytes"],
        Ty::Msg(_) | Ty::Inline(_) => vec![],
        Ty::Time => vec!["msg:apimachinery::pkg::apis::meta::v1::Time"],
        Ty::MicroTime => vec!["msg:apimachinery::pkg::apis::meta::v1::MicroTime"],
        Ty::Quantity => vec!["msg:apimachinery::pkg::api::resource::Quantity"],
        Ty::IntOrString => vec!["msg:apimachinery::pkg::util::intstr::IntOrString"],
        Ty::Raw => vec![
            "msg:apimachinery::pkg::runtime::RawExtension",
            "msg:apimachinery::pkg::apis::meta::v1::FieldsV1",
        ],
        Ty::MapStr => vec!["map:string"],
        Ty::MapBytes => vec!["map:bytes"],
        Ty::MapQuantity => vec!["map:apimachinery::pkg::api::resource::Quantity"],
        Ty::MapTime => vec!["map:apimachinery::pkg::apis::meta::v1::Time"],
        Ty::Const(_) => vec![],
    }
}

/// A table type in one line (a message by its name, not its fields).
fn ty_name(ty: schema::Ty) -> String {
    match ty {
        schema::Ty::Msg(m) => format!("Msg({})", m.name),
        schema::Ty::Inline(m) => format!("Inline({})", m.name),
        other => format!("{other:?}"),
    }
}

/// Walk table `msg` beside k8s-pb's message `path`: every field's number, JSON name, shape and
/// `repeated`, both ways (a k8s-pb field the table lacks is reported unless in
/// [`NOT_IN_TABLES`]).
fn compare(msg: &'static schema::Msg, path: &str, seen: &mut Vec<String>, wrong: &mut Vec<String>) {
    let key = format!("{}={path}", msg.name);
    if seen.contains(&key) {
        return;
    }
    seen.push(key);
    let Some((_, pb_fields)) = objects::MESSAGES.iter().find(|(p, _)| *p == path) else {
        wrong.push(format!("{}: no k8s-pb message {path}", msg.name));
        return;
    };
    for f in msg.fields {
        if let schema::Ty::Const(_) = f.ty {
            continue;
        }
        let Some(&(_, json_name, shape, rep)) = pb_fields.iter().find(|(n, ..)| *n == f.num) else {
            wrong.push(format!(
                "{}.{} = {}: k8s-pb {path} has no field {}",
                msg.name, f.name, f.num, f.num
            ));
            continue;
        };
        let sub = match f.ty {
            schema::Ty::Msg(sub) => shape.strip_prefix("msg:").map(|p| (sub, p)),
            schema::Ty::Inline(sub) => shape.strip_prefix("inline:").map(|p| (sub, p)),
            _ => None,
        };
        let inline = matches!(f.ty, schema::Ty::Inline(_));
        let name_ok = if inline {
            json_name.is_empty()
        } else {
            json_name == f.name
        };
        let shape_ok = match f.ty {
            schema::Ty::Msg(_) | schema::Ty::Inline(_) => sub.is_some(),
            ty => shape_of(ty).contains(&shape),
        };
        if !name_ok || !shape_ok || rep != f.rep {
            wrong.push(format!(
                "{}.{} = {} ({}, repeated {}): k8s-pb {path} field {} is {json_name:?} ({shape}, repeated {rep})",
                msg.name,
                f.name,
                f.num,
                ty_name(f.ty),
                f.rep,
                f.num
            ));
        }
        if let Some((sub, p)) = sub {
            compare(sub, p, seen, wrong);
        }
    }
    for (num, json_name, shape, _) in pb_fields.iter() {
        let skipped = NOT_IN_TABLES.contains(&(path, *json_name));
        if msg.by_num(*num).is_none() && !skipped {
            wrong.push(format!(
                "{}: lacks k8s-pb {path} field {num} {json_name:?} ({shape})",
                msg.name
            ));
        }
    }
}

#[test]
fn every_table_field_has_k8s_pbs_number_name_and_wire_shape() {
    let (mut seen, mut wrong) = (Vec::new(), Vec::new());
    for (api_version, kind, path, _) in objects::KINDS {
        let msg = schema::kind(api_version, kind).unwrap_or_else(|| panic!("no table for {kind}"));
        compare(msg, path, &mut seen, &mut wrong);
    }
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

/// A newer server's fields are skipped, not an error: a Pod with the alpha `workloadRef` (not
/// in the tables) and fields numbered past every known one, of each wire type, at the top and
/// inside the spec, decodes as the same Pod without them.
#[test]
fn fields_a_newer_server_adds_are_skipped() {
    use k8s_pb::api::core::v1::{Pod, PodSpec, WorkloadReference};
    let (_, kind, _, make) = objects::KINDS.iter().find(|k| k.1 == "Pod").unwrap();
    let (raw, mut want, _) = make(&mut C { n: 0 });
    strip(&mut want, "workloadRef");
    let mut pod: Pod = prost::Message::decode(raw.as_slice()).unwrap();
    let spec: &mut PodSpec = pod.spec.as_mut().unwrap();
    assert!(
        spec.workload_ref.is_some(),
        "the generated Pod sets workloadRef"
    );
    spec.workload_ref = Some(WorkloadReference {
        name: Some("w".into()),
        pod_group: Some("g".into()),
        pod_group_replica_key: Some("k".into()),
    });
    // Numbers 1000 to 1003.
    let unknown: &[u8] = &[
        0xc0, 0x3e, 0x07, // varint 7
        0xc9, 0x3e, 1, 2, 3, 4, 5, 6, 7, 8, // fixed64
        0xd2, 0x3e, 0x02, b'h', b'i', // bytes "hi"
        0xdd, 0x3e, 1, 2, 3, 4, // fixed32
    ];
    let mut spec_bytes = prost::Message::encode_to_vec(pod.spec.as_ref().unwrap());
    spec_bytes.extend_from_slice(unknown);
    pod.spec = None;
    let mut body = prost::Message::encode_to_vec(&pod);
    pb::put_bytes(&mut body, 2, &spec_bytes);
    body.extend_from_slice(unknown);
    let got = kinformer_decodes(&prost_envelope("v1", kind, body));
    let mut wrong = Vec::new();
    differences(kind, &got, &want, &mut wrong);
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
