//! Just enough of the Kubernetes protobuf wire format to accept what kubectl's typed clients send
//! (`kubectl create namespace|configmap|secret|serviceaccount` post
//! `application/vnd.kubernetes.protobuf`): the `k8s\0` envelope (`runtime.Unknown`) and the
//! fields of those kinds, turned into the JSON the rest of the server stores; the other kinds with
//! a table in [`crate::informer::pb::schema`] (`kubectl create
//! deployment|job|cronjob|service|ingress|pdb|role|rolebinding|priorityclass`) through its decoder. Anything else is a 415 asking for JSON; malformed bytes are a 400.

use crate::informer::wire_values as wv;
use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::error::StatusError;

const MAGIC: &[u8] = b"k8s\0";

enum Wire<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    Fixed,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

fn malformed() -> StatusError {
    StatusError::bad_request("the protobuf body of the request is malformed")
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    fn varint(&mut self) -> Result<u64, StatusError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *self.buf.get(self.pos).ok_or_else(malformed)?;
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(malformed())
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], StatusError> {
        let end = self.pos.checked_add(n).ok_or_else(malformed)?;
        let s = self.buf.get(self.pos..end).ok_or_else(malformed)?;
        self.pos = end;
        Ok(s)
    }

    fn next(&mut self) -> Result<Option<(u64, Wire<'a>)>, StatusError> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let wire = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Wire::Fixed
            }
            2 => {
                let n = usize::try_from(self.varint()?).map_err(|_| malformed())?;
                Wire::Bytes(self.take(n)?)
            }
            5 => {
                self.take(4)?;
                Wire::Fixed
            }
            _ => return Err(malformed()),
        };
        Ok(Some((key >> 3, wire)))
    }
}

fn string(b: &[u8]) -> Result<String, StatusError> {
    String::from_utf8(b.to_vec()).map_err(|_| malformed())
}

/// A `map<string, string|bytes>` entry.
fn map_entry(b: &[u8]) -> Result<(String, Vec<u8>), StatusError> {
    let mut r = Reader::new(b);
    let (mut k, mut v) = (String::new(), Vec::new());
    while let Some((f, w)) = r.next()? {
        match (f, w) {
            (1, Wire::Bytes(x)) => k = string(x)?,
            (2, Wire::Bytes(x)) => v = x.to_vec(),
            _ => {}
        }
    }
    Ok((k, v))
}

fn insert_string_entry(m: &mut Map<String, Value>, b: &[u8]) -> Result<(), StatusError> {
    let (k, v) = map_entry(b)?;
    m.insert(k, Value::String(string(&v)?));
    Ok(())
}

fn insert_bytes_entry(m: &mut Map<String, Value>, b: &[u8]) -> Result<(), StatusError> {
    let (k, v) = map_entry(b)?;
    m.insert(
        k,
        Value::String(base64::engine::general_purpose::STANDARD.encode(v)),
    );
    Ok(())
}

fn object_meta(b: &[u8]) -> Result<Value, StatusError> {
    let mut r = Reader::new(b);
    let mut meta = Map::new();
    let (mut labels, mut annotations) = (Map::new(), Map::new());
    let mut finalizers = Vec::new();
    while let Some((f, w)) = r.next()? {
        let Wire::Bytes(x) = w else { continue };
        match f {
            1 => {
                meta.insert("name".into(), Value::String(string(x)?));
            }
            2 => {
                meta.insert("generateName".into(), Value::String(string(x)?));
            }
            3 => {
                meta.insert("namespace".into(), Value::String(string(x)?));
            }
            11 => insert_string_entry(&mut labels, x)?,
            12 => insert_string_entry(&mut annotations, x)?,
            14 => finalizers.push(Value::String(string(x)?)),
            _ => {}
        }
    }
    if !labels.is_empty() {
        meta.insert("labels".into(), Value::Object(labels));
    }
    if !annotations.is_empty() {
        meta.insert("annotations".into(), Value::Object(annotations));
    }
    if !finalizers.is_empty() {
        meta.insert("finalizers".into(), Value::Array(finalizers));
    }
    Ok(Value::Object(meta))
}

fn decode_kind(kind: &str, api_version: &str, raw: &[u8]) -> Result<Value, StatusError> {
    let mut obj = json!({"apiVersion": api_version, "kind": kind});
    let mut r = Reader::new(raw);
    let (mut data, mut binary, mut string_data) = (Map::new(), Map::new(), Map::new());
    while let Some((f, w)) = r.next()? {
        match (kind, f, w) {
            (_, 1, Wire::Bytes(x)) => obj["metadata"] = object_meta(x)?,
            ("Namespace", 2, Wire::Bytes(x)) => {
                let mut spec = Reader::new(x);
                let mut fin = Vec::new();
                while let Some((sf, sw)) = spec.next()? {
                    if let (1, Wire::Bytes(s)) = (sf, sw) {
                        fin.push(Value::String(string(s)?));
                    }
                }
                obj["spec"] = json!({"finalizers": fin});
            }
            ("ConfigMap", 2, Wire::Bytes(x)) => insert_string_entry(&mut data, x)?,
            ("ConfigMap", 3, Wire::Bytes(x)) => insert_bytes_entry(&mut binary, x)?,
            ("Secret", 2, Wire::Bytes(x)) => insert_bytes_entry(&mut data, x)?,
            ("Secret", 3, Wire::Bytes(x)) => obj["type"] = Value::String(string(x)?),
            ("Secret", 5, Wire::Bytes(x)) => insert_string_entry(&mut string_data, x)?,
            ("ConfigMap" | "Secret", 4, Wire::Varint(v)) => obj["immutable"] = json!(v != 0),
            _ => {}
        }
    }
    if !data.is_empty() {
        obj["data"] = Value::Object(data);
    }
    if !binary.is_empty() {
        obj["binaryData"] = Value::Object(binary);
    }
    if !string_data.is_empty() {
        obj["stringData"] = Value::Object(string_data);
    }
    Ok(obj)
}

/// The string fields of a message, by field number, named.
fn string_fields(b: &[u8], names: &[(u64, &str)]) -> Result<Value, StatusError> {
    let mut r = Reader::new(b);
    let mut m = Map::new();
    while let Some((f, w)) = r.next()? {
        if let (Wire::Bytes(x), Some((_, name))) = (w, names.iter().find(|(n, _)| *n == f)) {
            m.insert((*name).to_string(), Value::String(string(x)?));
        }
    }
    Ok(Value::Object(m))
}

/// `authorization.k8s.io/v1` `SelfSubjectAccessReview` (spec: resource or non-resource
/// attributes) and `SelfSubjectRulesReview` (spec: namespace), as `kubectl auth can-i` posts them.
fn decode_review(kind: &str, api_version: &str, raw: &[u8]) -> Result<Value, StatusError> {
    let mut obj = json!({"apiVersion": api_version, "kind": kind, "spec": {}});
    let mut r = Reader::new(raw);
    while let Some((f, w)) = r.next()? {
        let Wire::Bytes(x) = w else { continue };
        match (kind, f) {
            (_, 1) => obj["metadata"] = object_meta(x)?,
            ("SelfSubjectAccessReview", 2) => {
                let mut spec = Reader::new(x);
                while let Some((sf, sw)) = spec.next()? {
                    match (sf, sw) {
                        (1, Wire::Bytes(a)) => {
                            obj["spec"]["resourceAttributes"] = string_fields(
                                a,
                                &[
                                    (1, "namespace"),
                                    (2, "verb"),
                                    (3, "group"),
                                    (4, "version"),
                                    (5, "resource"),
                                    (6, "subresource"),
                                    (7, "name"),
                                ],
                            )?
                        }
                        (2, Wire::Bytes(a)) => {
                            obj["spec"]["nonResourceAttributes"] =
                                string_fields(a, &[(1, "path"), (2, "verb")])?
                        }
                        _ => {}
                    }
                }
            }
            ("SelfSubjectRulesReview", 2) => {
                obj["spec"] = string_fields(x, &[(1, "namespace")])?;
            }
            _ => {}
        }
    }
    Ok(obj)
}

/// Decode a `application/vnd.kubernetes.protobuf` body into its JSON object.
pub fn decode(body: &[u8]) -> Result<Value, StatusError> {
    let rest = body.strip_prefix(MAGIC).ok_or_else(malformed)?;
    let mut r = Reader::new(rest);
    let (mut api_version, mut kind, mut raw) = (String::new(), String::new(), &[][..]);
    while let Some((f, w)) = r.next()? {
        match (f, w) {
            (1, Wire::Bytes(tm)) => {
                let mut t = Reader::new(tm);
                while let Some((tf, tw)) = t.next()? {
                    match (tf, tw) {
                        (1, Wire::Bytes(x)) => api_version = string(x)?,
                        (2, Wire::Bytes(x)) => kind = string(x)?,
                        _ => {}
                    }
                }
            }
            (2, Wire::Bytes(x)) => raw = x,
            _ => {}
        }
    }
    match kind.as_str() {
        "Namespace" | "ConfigMap" | "Secret" | "ServiceAccount" => {
            decode_kind(&kind, &api_version, raw)
        }
        "SelfSubjectAccessReview" | "SelfSubjectRulesReview" => {
            decode_review(&kind, &api_version, raw)
        }
        // The kinds with a protobuf table (`kubectl create deployment|job|service ...`): the
        // same table-driven decoder as the client's, every field kept.
        _ => match crate::informer::pb::schema::kind(&api_version, &kind) {
            Some(msg) => decode_with_table(msg, &api_version, &kind, raw),
            None => Err(StatusError::new(
                415,
                wv::REASON_UNSUPPORTED_MEDIA_TYPE,
                format!(
                    "the demo server has no protobuf form of {kind:?} ({api_version}); send application/json (e.g. kubectl create -f)"
                ),
            )),
        },
    }
}

fn decode_with_table(
    msg: &'static crate::informer::pb::schema::Msg,
    api_version: &str,
    kind: &str,
    raw: &[u8],
) -> Result<Value, StatusError> {
    use crate::informer::decode::ObjectMask;
    let obj = crate::informer::pb::decode_object(raw, msg, &ObjectMask::ALL, None)
        .map_err(|_| malformed())?;
    let mut v = serde_json::to_value(&obj).map_err(|_| malformed())?;
    if let Some(o) = v.as_object_mut() {
        o.insert("apiVersion".into(), Value::from(api_version));
        o.insert("kind".into(), Value::from(kind));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(out: &mut Vec<u8>, tag: u64, bytes: &[u8]) {
        let mut key = (tag << 3) | 2;
        loop {
            let b = (key & 0x7f) as u8;
            key >>= 7;
            if key == 0 {
                out.push(b);
                break;
            }
            out.push(b | 0x80);
        }
        out.push(u8::try_from(bytes.len()).unwrap());
        out.extend_from_slice(bytes);
    }

    fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
        let mut tm = Vec::new();
        field(&mut tm, 1, api_version.as_bytes());
        field(&mut tm, 2, kind.as_bytes());
        let mut u = MAGIC.to_vec();
        field(&mut u, 1, &tm);
        field(&mut u, 2, raw);
        u
    }

    #[test]
    fn decodes_a_configmap_with_labels_and_data() {
        let mut meta = Vec::new();
        field(&mut meta, 1, b"cfg");
        field(&mut meta, 3, b"team");
        let mut label = Vec::new();
        field(&mut label, 1, b"app");
        field(&mut label, 2, b"web");
        field(&mut meta, 11, &label);
        let mut raw = Vec::new();
        field(&mut raw, 1, &meta);
        let mut entry = Vec::new();
        field(&mut entry, 1, b"k");
        field(&mut entry, 2, b"v");
        field(&mut raw, 2, &entry);
        let v = decode(&envelope("v1", "ConfigMap", &raw)).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "cfg", "namespace": "team", "labels": {"app": "web"}},
                   "data": {"k": "v"}})
        );
    }

    #[test]
    fn secret_data_is_base64_encoded() {
        let mut raw = Vec::new();
        let mut meta = Vec::new();
        field(&mut meta, 1, b"s");
        field(&mut raw, 1, &meta);
        let mut entry = Vec::new();
        field(&mut entry, 1, b"pw");
        field(&mut entry, 2, b"hunter2");
        field(&mut raw, 2, &entry);
        field(&mut raw, 3, b"Opaque");
        let v = decode(&envelope("v1", "Secret", &raw)).unwrap();
        assert_eq!(v["data"]["pw"], "aHVudGVyMg==");
        assert_eq!(v["type"], "Opaque");
    }

    #[test]
    fn decodes_a_self_subject_access_review() {
        let mut attrs = Vec::new();
        field(&mut attrs, 1, b"bench");
        field(&mut attrs, 2, b"list");
        field(&mut attrs, 5, b"pods");
        let mut spec = Vec::new();
        field(&mut spec, 1, &attrs);
        let mut raw = Vec::new();
        field(&mut raw, 2, &spec);
        let v = decode(&envelope(
            "authorization.k8s.io/v1",
            "SelfSubjectAccessReview",
            &raw,
        ))
        .unwrap();
        assert_eq!(
            v["spec"]["resourceAttributes"],
            json!({"namespace": "bench", "verb": "list", "resource": "pods"})
        );
    }

    #[test]
    fn kinds_with_a_table_decode_through_it_every_field_kept() {
        let d: Value =
            serde_json::from_str(include_str!("../../tests/fixtures/deployment.json")).unwrap();
        let msg = &crate::informer::pb::schema::workloads::DEPLOYMENT;
        let raw = crate::informer::pb::encode_object(&d, msg).unwrap();
        let v = decode(&crate::informer::pb::envelope(
            "apps/v1",
            "Deployment",
            &raw,
        ))
        .unwrap();
        assert_eq!(v, d);
    }

    #[test]
    fn unknown_kinds_are_415_and_garbage_is_400() {
        let e = decode(&envelope("storage.k8s.io/v1", "CSIDriver", &[])).unwrap_err();
        assert_eq!(e.code, 415);
        assert_eq!(decode(b"nope").unwrap_err().code, 400);
        assert_eq!(decode(b"k8s\0\x0a\xff").unwrap_err().code, 400);
        assert_eq!(decode(b"k8s\0\x0f").unwrap_err().code, 400);
    }
}
