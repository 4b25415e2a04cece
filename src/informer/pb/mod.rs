//! `application/vnd.kubernetes.protobuf` on the wire, for the built-in kinds whose table is in
//! [`schema`]: decoding straight into the cached [`DynamicObject`] (through the cache's
//! [`ObjectMask`], skipping dropped fields by their length without decoding them) and encoding
//! JSON objects (the demo server's answers, tests).
//!
//! client-go counterpart: `k8s.io/apimachinery/pkg/runtime/serializer/protobuf` (the `k8s\0`
//! magic, then a `runtime.Unknown{typeMeta, raw, contentEncoding, contentType}` whose `raw` is
//! the object's message) and its stream serializer for watches (`LengthDelimitedFramer`: each
//! frame a 4-byte big-endian length, then a raw `metav1.WatchEvent{type, object}` whose
//! `object.raw` is again a `k8s\0` envelope). client-go decodes into the generated Go structs;
//! kinformer's cache holds [`DynamicObject`]s, so the table maps each field to its JSON name and
//! the decoder builds the same `serde_json` values the JSON path builds.
//!
//! Invariants:
//! - for every object `o` the table covers, `decode(encode(o))` is the JSON object the API
//!   server would print for it: JSON and protobuf answers give equal cached objects under every
//!   mask (`masked_decode_equals_the_json_path` pins it);
//! - a list body is decoded as it streams in; at most one item (and an unfinished chunk) is
//!   buffered;
//! - a field the table does not know is skipped when decoding (a newer server) and refused when
//!   encoding (so a server falls back to JSON rather than lose data).
//!
//! # Coverage and how it was checked
//!
//! The tables hold every field of `generated.proto` (Kubernetes 1.35) for the kinds listed in
//! [`schema`] and what they embed, but the alpha `PodSpec.workloadRef`: every PersistentVolume
//! and Pod volume source, a Pod's affinity, spread constraints, DNS config, ephemeral containers,
//! resource claims, scheduling gates and newer status fields, a Job's `podFailurePolicy` and
//! `successPolicy`. `tests/proto_independent.rs` checks them against an encoder that does not use
//! them: every field's number, name, wire shape and `repeated` against the `k8s-pb` crate's prost
//! messages (both ways: a k8s-pb field missing here fails too), and, for every kind, an object
//! with every field set, encoded by prost, must decode to the JSON `k8s-openapi` writes for it.
//! `schema_tests` encodes, for every kind, an object with every field set and checks it comes
//! back unchanged, as the JSON path caches it, and through `k8s-openapi`'s typed structs (the
//! tables against themselves); `tests/proto_wire.rs` lists
//! every kind both ways from the realistic demo; `tests/kubectl_compat/protobuf.rs` has Go's
//! generated decoder (`kubectl describe`, `kubectl create job --from`, which posts the Job back
//! in protobuf) read what the tables encode. Not in the tables: alpha fields newer than 1.35
//! (`PodSpec.schedulingGroup`, `PodStatus.volumeHealth`, `JobSpec.scheduling`...): a 1.36+
//! server's value for them is skipped, and the demo answers JSON for an object that has one.
//!
//! **Empty lists.** kube-apiserver stores built-in kinds in etcd as protobuf, which cannot tell
//! `[]` from nil, so an object read back has nil slices; its JSON writes `null` for a list
//! without `omitempty` (a Role's `rules`, an EndpointSlice's `endpoints`, a Pod's `containers`)
//! and leaves the others out. The tables mark the first kind, the decoder writes `null` for them
//! when no element came, and the demo stores objects the same way (also without empty maps or
//! the zeros of `omitempty` scalars), so both encodings give the same cached object. The one case
//! the wire cannot carry: a server storing JSON in etcd (`--storage-media-type=application/json`)
//! sends `"rules": []`, which reads `null` from protobuf. A StatefulSet's `volumeClaimTemplates`
//! keep their JSON `apiVersion`/`kind`, which `generated.proto` has no field for (JSON-only
//! constants in the table).
//!
//! **Why not `prost` / `k8s-pb`.** The cache holds `DynamicObject`s, so generated structs would
//! be decoded and then converted to `serde_json` values (twice the work) and could not skip what
//! the cache mask drops. The wire primitives are a varint and a length; the tables carry what the
//! generated code would (field numbers) plus the JSON side (names, `omitempty`, pointers), which
//! generated code does not.
//!
//! Figures (body size, decode CPU, time to synced against JSON) are in `src/bench/wire.rs`:
//! protobuf bodies are 0.69× JSON's, decoding them costs 0.29–0.32× the CPU, and a 10k-pod sync
//! at a real server's send rates takes 0.6× the time (2026-11-24).

pub mod client;
pub mod schema;

use std::sync::Arc;

use base64::Engine as _;
use kube::api::{DynamicObject, ObjectMeta, TypeMeta};
use serde_json::{Map, Value};

use self::schema::{F, Msg, Ty};
use super::Error;
use super::decode::{AnnotationMask, Mask, ObjectMask, apply_mask};
use super::list_body::{ListBodyDecoder, ListMeta};

/// The media type.
pub const PROTOBUF: &str = "application/vnd.kubernetes.protobuf";
/// What a client asks for a built-in kind (client-go's default for typed clients).
pub const ACCEPT_PROTOBUF_OR_JSON: &str = "application/vnd.kubernetes.protobuf, application/json";
/// Every protobuf message the API server sends starts with it.
pub const MAGIC: &[u8] = b"k8s\0";

fn bad(what: impl std::fmt::Display) -> Error {
    Error::Decode(format!("protobuf: {what}"))
}

// ------------------------------------------------------------------------------------------
// Wire primitives
// ------------------------------------------------------------------------------------------

/// One field's value as it is on the wire.
#[derive(Debug, Clone, Copy)]
pub enum Wire<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
    /// A fixed32/fixed64 (no kind uses one; skipped).
    Fixed,
}

/// Reads the fields of one message.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// A varint at the start of `b`: `None` if `b` ends inside it, `Some(Err)` if it is too long.
fn varint_prefix(b: &[u8]) -> Option<Result<(u64, usize), Error>> {
    let mut v = 0u64;
    for (i, &c) in b.iter().enumerate().take(10) {
        v |= u64::from(c & 0x7f) << (7 * i);
        if c & 0x80 == 0 {
            return Some(Ok((v, i + 1)));
        }
    }
    if b.len() >= 10 {
        Some(Err(bad("varint longer than 10 bytes")))
    } else {
        None
    }
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    fn varint(&mut self) -> Result<u64, Error> {
        match varint_prefix(&self.buf[self.pos..]) {
            Some(Ok((v, n))) => {
                self.pos += n;
                Ok(v)
            }
            Some(Err(e)) => Err(e),
            None => Err(bad("message ends inside a varint")),
        }
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8], Error> {
        let n = usize::try_from(n).map_err(|_| bad("length overflows"))?;
        let end = self
            .pos
            .checked_add(n)
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| bad("field longer than its message"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    /// The next field: its number and value; `None` at the end.
    pub fn field(&mut self) -> Result<Option<(u32, Wire<'a>)>, Error> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let num = u32::try_from(key >> 3).map_err(|_| bad("field number overflows"))?;
        let wire = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            1 => {
                self.take(8)?;
                Wire::Fixed
            }
            2 => {
                let n = self.varint()?;
                Wire::Bytes(self.take(n)?)
            }
            5 => {
                self.take(4)?;
                Wire::Fixed
            }
            w => return Err(bad(format_args!("wire type {w}"))),
        };
        Ok(Some((num, wire)))
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn put_key(out: &mut Vec<u8>, num: u32, wire: u64) {
    put_varint(out, (u64::from(num) << 3) | wire);
}

/// A length-delimited field.
pub fn put_bytes(out: &mut Vec<u8>, num: u32, bytes: &[u8]) {
    put_key(out, num, 2);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn put_int(out: &mut Vec<u8>, num: u32, v: i64) {
    put_key(out, num, 0);
    // Two's complement, as Go writes int32 and int64.
    put_varint(out, v as u64);
}

fn utf8(b: &[u8]) -> Result<String, Error> {
    std::str::from_utf8(b)
        .map(str::to_owned)
        .map_err(|_| bad("string is not UTF-8"))
}

// ------------------------------------------------------------------------------------------
// Decoding
// ------------------------------------------------------------------------------------------

/// What a mask keeps of the field `name` of an object under `mask`: `None` = dropped.
fn field_mask(mask: Mask, name: &str) -> Option<Mask> {
    match mask {
        Mask::Keys(keys) => keys.iter().find(|(k, _)| *k == name).map(|(_, m)| *m),
        // `Blank` is applied to the decoded object; `Each` on an object keeps it whole.
        Mask::All | Mask::Blank(_) | Mask::Each(_) => Some(Mask::All),
    }
}

/// Decode the fields of a message of type `msg` into `out` (a JSON object) under `mask`.
pub fn decode_into(
    buf: &[u8],
    msg: &Msg,
    mask: Mask,
    out: &mut Map<String, Value>,
) -> Result<(), Error> {
    let mut r = Reader::new(buf);
    while let Some((num, wire)) = r.field()? {
        let Some(f) = msg.by_num(num) else {
            tracing::trace!(
                message = msg.name,
                field = num,
                "skipping a field the table does not know"
            );
            continue;
        };
        if let Ty::Inline(sub) = f.ty {
            let Wire::Bytes(b) = wire else {
                return Err(bad(format_args!("{}.{}: not a message", msg.name, num)));
            };
            decode_into(b, sub, mask, out)?;
            continue;
        }
        let Some(sub_mask) = field_mask(mask, f.name) else {
            continue;
        };
        decode_field(f, wire, sub_mask, out).map_err(|e| match e {
            Error::Decode(m) => Error::Decode(format!("{m} (in {}.{})", msg.name, f.name)),
            other => other,
        })?;
    }
    absent_fields(msg, mask, out, true);
    if let Mask::Blank(_) = mask {
        let mut v = Value::Object(std::mem::take(out));
        apply_mask(&mut v, mask);
        if let Value::Object(m) = v {
            *out = m;
        }
    }
    Ok(())
}

/// A list without `omitempty` that had no element on the wire is `null`: Go decodes it as a
/// nil slice, which its JSON writes as `null`, so the JSON path reads `null` for the same object
/// (protobuf cannot tell `[]` from nil; a real server never sends `[]` either, see
/// [`omit_empty`]).
///
/// With `consts`, also write the JSON-only constants (one pass over the fields for both).
fn absent_fields(msg: &Msg, mask: Mask, out: &mut Map<String, Value>, consts: bool) {
    for f in msg.fields {
        if let Ty::Const(c) = f.ty {
            if consts && field_mask(mask, f.name).is_some() {
                out.insert(f.name.to_string(), Value::String(c.to_string()));
            }
        } else if f.rep && f.zero && !out.contains_key(f.name) && field_mask(mask, f.name).is_some()
        {
            out.insert(f.name.to_string(), Value::Null);
        }
    }
}

fn decode_field(
    f: &F,
    wire: Wire<'_>,
    mask: Mask,
    out: &mut Map<String, Value>,
) -> Result<(), Error> {
    match f.ty {
        Ty::MapStr | Ty::MapBytes | Ty::MapQuantity | Ty::MapTime => {
            let Wire::Bytes(b) = wire else {
                return Err(bad("map entry is not a message"));
            };
            let (k, v) = map_entry(b, f.ty)?;
            let slot = out
                .entry(f.name)
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(m) = slot {
                let v = match mask {
                    Mask::Blank(sizes) => sizes.of(&v),
                    _ => v,
                };
                m.insert(k, v);
            }
            Ok(())
        }
        _ if f.rep => {
            let elem_mask = match mask {
                Mask::Each(m) => *m,
                _ => Mask::All,
            };
            let slot = out
                .entry(f.name)
                .or_insert_with(|| Value::Array(Vec::new()));
            let Value::Array(items) = slot else {
                return Ok(());
            };
            match (f.ty, wire) {
                // A packed repeated scalar.
                (Ty::Int | Ty::Bool, Wire::Bytes(b)) => {
                    let mut pos = 0;
                    while pos < b.len() {
                        let (v, n) = varint_prefix(&b[pos..])
                            .ok_or_else(|| bad("packed varint ends early"))??;
                        pos += n;
                        items.push(scalar(f.ty, v));
                    }
                }
                _ => items.push(decode_value(f.ty, wire, elem_mask)?),
            }
            Ok(())
        }
        _ => {
            let v = decode_value(f.ty, wire, mask)?;
            if !f.zero && is_zero(&v) {
                out.remove(f.name);
            } else {
                out.insert(f.name.to_string(), v);
            }
            Ok(())
        }
    }
}

fn scalar(ty: Ty, v: u64) -> Value {
    match ty {
        Ty::Bool => Value::Bool(v != 0),
        _ => Value::from(v as i64),
    }
}

/// A zero scalar, which JSON omits for `omitempty` fields.
fn is_zero(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_i64() == Some(0),
        _ => false,
    }
}

fn decode_value(ty: Ty, wire: Wire<'_>, mask: Mask) -> Result<Value, Error> {
    Ok(match (ty, wire) {
        (Ty::Str, Wire::Bytes(b)) => Value::String(utf8(b)?),
        (Ty::Bool | Ty::Int, Wire::Varint(v)) => scalar(ty, v),
        (Ty::Bytes, Wire::Bytes(b)) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        (Ty::Msg(sub), Wire::Bytes(b)) => {
            let mut m = Map::new();
            decode_into(b, sub, mask, &mut m)?;
            Value::Object(m)
        }
        (Ty::Time, Wire::Bytes(b)) => time(b, false)?,
        (Ty::MicroTime, Wire::Bytes(b)) => time(b, true)?,
        (Ty::Quantity, Wire::Bytes(b)) => Value::String(quantity(b)?),
        (Ty::IntOrString, Wire::Bytes(b)) => int_or_string(b)?,
        (Ty::Raw, Wire::Bytes(b)) => raw_json(b)?,
        _ => return Err(bad("wire type does not match the field")),
    })
}

fn map_entry(b: &[u8], ty: Ty) -> Result<(String, Value), Error> {
    let mut r = Reader::new(b);
    let (mut k, mut v) = (String::new(), None);
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Bytes(x)) => k = utf8(x)?,
            (2, Wire::Bytes(x)) => {
                v = Some(match ty {
                    Ty::MapStr => Value::String(utf8(x)?),
                    Ty::MapBytes => {
                        Value::String(base64::engine::general_purpose::STANDARD.encode(x))
                    }
                    Ty::MapTime => time(x, false)?,
                    _ => Value::String(quantity(x)?),
                })
            }
            _ => {}
        }
    }
    let v = v.unwrap_or_else(|| match ty {
        Ty::MapQuantity => Value::String("0".into()),
        Ty::MapTime => Value::Null,
        _ => Value::String(String::new()),
    });
    Ok((k, v))
}

fn quantity(b: &[u8]) -> Result<String, Error> {
    let mut r = Reader::new(b);
    let mut s = String::new();
    while let Some((num, wire)) = r.field()? {
        if let (1, Wire::Bytes(x)) = (num, wire) {
            s = utf8(x)?;
        }
    }
    Ok(s)
}

fn int_or_string(b: &[u8]) -> Result<Value, Error> {
    let mut r = Reader::new(b);
    let (mut kind, mut int, mut string) = (0, 0i64, String::new());
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Varint(v)) => kind = v,
            (2, Wire::Varint(v)) => int = v as i32 as i64,
            (3, Wire::Bytes(x)) => string = utf8(x)?,
            _ => {}
        }
    }
    Ok(if kind == 1 {
        Value::String(string)
    } else {
        Value::from(int)
    })
}

fn raw_json(b: &[u8]) -> Result<Value, Error> {
    let mut r = Reader::new(b);
    let mut raw: &[u8] = b"";
    while let Some((num, wire)) = r.field()? {
        if let (1, Wire::Bytes(x)) = (num, wire) {
            raw = x;
        }
    }
    if raw.is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_slice(raw).map_err(|e| bad(format_args!("raw JSON: {e}")))
}

/// `metav1.Time` (seconds) or `metav1.MicroTime` as JSON: RFC 3339 in UTC, `null` when zero.
fn time(b: &[u8], micro: bool) -> Result<Value, Error> {
    let mut r = Reader::new(b);
    let (mut secs, mut nanos) = (0i64, 0i64);
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Varint(v)) => secs = v as i64,
            (2, Wire::Varint(v)) => nanos = v as i32 as i64,
            _ => {}
        }
    }
    if secs == 0 && nanos == 0 {
        return Ok(Value::Null);
    }
    let nanos = u32::try_from(nanos).map_err(|_| bad("negative nanoseconds"))?;
    let t = chrono::DateTime::from_timestamp(secs, if micro { nanos } else { 0 })
        .ok_or_else(|| bad("time out of range"))?;
    // `to_rfc3339_opts` writes the fields directly; `format` parses its pattern on every call
    // (a tenth of a pod's decode, with a dozen times per realistic pod).
    Ok(Value::String(t.to_rfc3339_opts(
        if micro {
            chrono::SecondsFormat::Micros
        } else {
            chrono::SecondsFormat::Secs
        },
        true,
    )))
}

/// Decode one object's message (`raw` of its envelope) as the cache holds it: `metadata` into
/// [`ObjectMeta`] under the mask's metadata rules, the other fields into `data` under its data
/// mask, dropped parts skipped undecoded.
pub fn decode_object(
    raw: &[u8],
    msg: &Msg,
    mask: &ObjectMask,
    types: Option<TypeMeta>,
) -> Result<DynamicObject, Error> {
    let mut r = Reader::new(raw);
    let mut data = Map::new();
    let mut metadata = ObjectMeta::default();
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Bytes(b)) => metadata = decode_meta(b, mask)?,
            _ => {
                let Some(f) = msg.by_num(num) else { continue };
                let Some(sub) = field_mask(mask.data, f.name) else {
                    continue;
                };
                decode_field(f, wire, sub, &mut data)?;
            }
        }
    }
    // A top-level object's `apiVersion`/`kind` are the envelope's, not constants.
    absent_fields(msg, mask.data, &mut data, false);
    let mut data = Value::Object(data);
    if let Mask::Blank(_) = mask.data {
        apply_mask(&mut data, mask.data);
    }
    Ok(DynamicObject {
        types,
        metadata,
        data,
    })
}

/// A string that JSON omits when empty (`omitempty`): `None` for `""`.
fn opt_str(b: &[u8]) -> Result<Option<String>, Error> {
    let s = utf8(b)?;
    Ok((!s.is_empty()).then_some(s))
}

/// `metav1.Time` as `ObjectMeta` holds it (`None` for the zero time, which JSON prints `null`).
fn meta_time(
    b: &[u8],
) -> Result<Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>, Error> {
    match time(b, false)? {
        Value::String(_) => {
            let mut r = Reader::new(b);
            let mut secs = 0i64;
            while let Some((num, wire)) = r.field()? {
                if let (1, Wire::Varint(v)) = (num, wire) {
                    secs = v as i64;
                }
            }
            let t = k8s_openapi::jiff::Timestamp::from_second(secs)
                .map_err(|e| bad(format_args!("time: {e}")))?;
            Ok(Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                t,
            )))
        }
        _ => Ok(None),
    }
}

/// A `managedFields` entry as [`ObjectMask::managed_writers`](crate::informer::decode::ObjectMask)
/// keeps it, read straight from its message (`manager` 1, `operation` 2, `time` 4, `subresource`
/// 8; `fieldsV1` skipped unread): no JSON map built, no time printed as text and parsed back, which
/// for the four or five entries of every pod in a list cost history a fifth of the sync's CPU.
fn writer_entry(
    b: &[u8],
) -> Result<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry, Error> {
    let mut e = k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry::default();
    let mut r = Reader::new(b);
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Bytes(x)) => e.manager = Some(utf8(x)?),
            (2, Wire::Bytes(x)) => e.operation = Some(utf8(x)?),
            (4, Wire::Bytes(x)) => e.time = meta_time(x)?,
            (8, Wire::Bytes(x)) => e.subresource = Some(utf8(x)?),
            _ => {}
        }
    }
    Ok(e)
}

fn owner_reference(
    b: &[u8],
) -> Result<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference, Error> {
    let mut o = k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference::default();
    let mut r = Reader::new(b);
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Bytes(x)) => o.kind = utf8(x)?,
            (3, Wire::Bytes(x)) => o.name = utf8(x)?,
            (4, Wire::Bytes(x)) => o.uid = utf8(x)?,
            (5, Wire::Bytes(x)) => o.api_version = utf8(x)?,
            (6, Wire::Varint(v)) => o.controller = Some(v != 0),
            (7, Wire::Varint(v)) => o.block_owner_deletion = Some(v != 0),
            _ => {}
        }
    }
    Ok(o)
}

/// `ObjectMeta` straight from its message (no JSON value in between), under the mask's
/// metadata rules; what JSON omits (empty strings, zero generation, the zero time) is `None`.
fn decode_meta(b: &[u8], mask: &ObjectMask) -> Result<ObjectMeta, Error> {
    let mut m = ObjectMeta::default();
    let mut managed = Vec::new();
    let mut writers = Vec::new();
    let mut r = Reader::new(b);
    while let Some((num, wire)) = r.field()? {
        let x = match wire {
            Wire::Bytes(x) => x,
            Wire::Varint(v) => {
                match num {
                    7 => m.generation = (v != 0).then_some(v as i64),
                    10 => m.deletion_grace_period_seconds = Some(v as i64),
                    _ => {}
                }
                continue;
            }
            Wire::Fixed => continue,
        };
        match num {
            1 => m.name = opt_str(x)?,
            2 if mask.generate_name => m.generate_name = opt_str(x)?,
            3 => m.namespace = opt_str(x)?,
            4 => m.self_link = opt_str(x)?,
            5 => m.uid = opt_str(x)?,
            6 => m.resource_version = opt_str(x)?,
            8 => m.creation_timestamp = meta_time(x)?,
            9 => m.deletion_timestamp = meta_time(x)?,
            11 => {
                let (k, v) = map_entry(x, Ty::MapStr)?;
                if let Value::String(v) = v {
                    m.labels.get_or_insert_with(Default::default).insert(k, v);
                }
            }
            12 if mask.annotations != AnnotationMask::Drop => {
                let (k, v) = map_entry(x, Ty::MapStr)?;
                if let Value::String(v) = v
                    && mask.keeps_annotation(&k)
                {
                    m.annotations
                        .get_or_insert_with(Default::default)
                        .insert(k, v);
                }
            }
            13 => m
                .owner_references
                .get_or_insert_with(Vec::new)
                .push(owner_reference(x)?),
            14 => m.finalizers.get_or_insert_with(Vec::new).push(utf8(x)?),
            17 if mask.managed_fields => {
                let mut e = Map::new();
                decode_into(x, &schema::MANAGED_FIELDS_ENTRY, Mask::All, &mut e)?;
                managed.push(Value::Object(e));
            }
            17 if mask.managed_writers => writers.push(writer_entry(x)?),
            _ => {}
        }
    }
    if !writers.is_empty() {
        m.managed_fields = Some(writers);
    }
    if !managed.is_empty() {
        m.managed_fields = Some(
            serde_json::from_value(Value::Array(managed))
                .map_err(|e| bad(format_args!("managedFields: {e}")))?,
        );
    }
    Ok(m)
}

/// The `k8s\0` envelope: the object's `apiVersion`, `kind` and message.
pub fn unwrap_envelope(body: &[u8]) -> Result<(TypeMeta, &[u8]), Error> {
    let rest = body
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad("missing the k8s\\0 prefix"))?;
    let mut r = Reader::new(rest);
    let mut types = TypeMeta::default();
    let mut raw: &[u8] = &[];
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Bytes(tm)) => {
                let mut m = Map::new();
                decode_into(tm, &schema::TYPE_META, Mask::All, &mut m)?;
                let get = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                types = TypeMeta {
                    api_version: get("apiVersion"),
                    kind: get("kind"),
                };
            }
            (2, Wire::Bytes(x)) => raw = x,
            _ => {}
        }
    }
    Ok((types, raw))
}

/// A `metav1.Status` answer (an error body, or a watch ERROR event's object) as an [`Error`].
pub fn decode_status(raw: &[u8]) -> Error {
    let mut m = Map::new();
    if let Err(e) = decode_into(raw, &schema::STATUS, Mask::All, &mut m) {
        return e;
    }
    let str_of = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let code = m
        .get("code")
        .and_then(Value::as_i64)
        .and_then(|c| u16::try_from(c).ok())
        .unwrap_or(0);
    let causes = m
        .get("details")
        .and_then(|d| d.get("causes"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|c| {
            let field = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("");
            (field("reason"), field("message"))
        });
    super::list_watch::classify_status_with_causes(
        code,
        &str_of("reason"),
        &str_of("message"),
        causes,
    )
}

// ------------------------------------------------------------------------------------------
// Streaming list decoding
// ------------------------------------------------------------------------------------------

/// Decodes one list item's message into `K`.
pub type ItemDecoder<K> = Arc<dyn Fn(&[u8]) -> Result<K, Error> + Send + Sync>;

/// An item decoder into the cached [`DynamicObject`] for kind `msg`, through `mask`.
pub fn dynamic_item_decoder(msg: &'static Msg, mask: ObjectMask) -> ItemDecoder<DynamicObject> {
    Arc::new(move |raw: &[u8]| decode_object(raw, msg, &mask, None))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ListState {
    /// Before the `k8s\0` prefix.
    Magic,
    /// Among the fields of the `runtime.Unknown` envelope.
    Envelope,
    /// Inside the list message (`raw`), `remaining` bytes of it to come.
    List { remaining: u64 },
}

/// [`ListBodyDecoder`] for a protobuf list body (`k8s\0` + `Unknown{raw: XxxList{metadata,
/// items}}`): hands each item over as soon as its bytes are in.
pub struct ProtoListDecoder<K> {
    state: ListState,
    /// Unconsumed bytes (at most an item, or a field header, and the rest of a chunk).
    buf: Vec<u8>,
    decode: ItemDecoder<K>,
    meta: Option<ListMeta>,
    malformed: usize,
}

impl<K> ProtoListDecoder<K> {
    pub fn new(decode: ItemDecoder<K>) -> Self {
        Self {
            state: ListState::Magic,
            buf: Vec::new(),
            decode,
            meta: None,
            malformed: 0,
        }
    }

    /// Consume what `buf` holds; items to `sink`.
    fn run(&mut self, sink: &mut dyn FnMut(K)) -> Result<(), Error> {
        let mut pos = 0;
        loop {
            let rest = &self.buf[pos..];
            match self.state {
                ListState::Magic => {
                    if rest.len() < MAGIC.len() {
                        break;
                    }
                    if !rest.starts_with(MAGIC) {
                        return Err(bad("missing the k8s\\0 prefix"));
                    }
                    pos += MAGIC.len();
                    self.state = ListState::Envelope;
                }
                ListState::Envelope | ListState::List { .. } => {
                    if rest.is_empty() {
                        break;
                    }
                    // A field header: key, and for bytes its length.
                    let Some(key) = varint_prefix(rest) else {
                        break;
                    };
                    let (key, kn) = key?;
                    let (num, wire) = (key >> 3, key & 7);
                    let (len, ln) = match wire {
                        2 => match varint_prefix(&rest[kn..]) {
                            Some(r) => r?,
                            None => break,
                        },
                        0 => match varint_prefix(&rest[kn..]) {
                            Some(r) => (0, r?.1),
                            None => break,
                        },
                        1 => (8, 0),
                        5 => (4, 0),
                        w => return Err(bad(format_args!("wire type {w}"))),
                    };
                    let header = (kn + ln) as u64;
                    if let (ListState::Envelope, 2, 2) = (self.state, num, wire) {
                        // The list message: enter it without waiting for it.
                        pos += kn + ln;
                        self.state = ListState::List { remaining: len };
                        self.leave_list_if_done();
                        continue;
                    }
                    let total = header
                        .checked_add(len)
                        .ok_or_else(|| bad(format_args!("field {num} claims {len} bytes")))?;
                    if let ListState::List { remaining } = self.state
                        && total > remaining
                    {
                        // Refused before waiting for its bytes: a corrupt length must not make us
                        // buffer the rest of the body.
                        return Err(bad(format_args!(
                            "list item of {len} bytes is longer than the {remaining} bytes left in its list"
                        )));
                    }
                    if (rest.len() as u64) < total {
                        break;
                    }
                    let total_us = usize::try_from(total).map_err(|_| bad("length overflows"))?;
                    let body = &rest[kn + ln..total_us];
                    if let ListState::List { remaining } = self.state {
                        match (num, wire) {
                            (1, 2) => {
                                let mut m = Map::new();
                                decode_into(body, &schema::LIST_META, Mask::All, &mut m)?;
                                self.meta = Some(
                                    serde_json::from_value(Value::Object(m))
                                        .map_err(|e| bad(format_args!("list metadata: {e}")))?,
                                );
                            }
                            (2, 2) => match (self.decode)(body) {
                                Ok(obj) => sink(obj),
                                Err(e) => {
                                    self.malformed += 1;
                                    tracing::warn!(error = %e, "skipping malformed object in protobuf list body");
                                }
                            },
                            _ => {}
                        }
                        self.state = ListState::List {
                            remaining: remaining - total,
                        };
                        pos += total_us;
                        self.leave_list_if_done();
                    } else {
                        // typeMeta, contentEncoding, contentType: not needed.
                        pos += total_us;
                    }
                }
            }
        }
        self.buf.drain(..pos);
        Ok(())
    }

    fn leave_list_if_done(&mut self) {
        if self.state == (ListState::List { remaining: 0 }) {
            self.state = ListState::Envelope;
            // Mark the list as read even when it had no metadata.
            self.meta.get_or_insert_with(ListMeta::default);
        }
    }
}

impl<K: Send> ListBodyDecoder<K> for ProtoListDecoder<K> {
    fn feed(&mut self, chunk: &[u8], sink: &mut dyn FnMut(K)) -> Result<(), Error> {
        self.buf.extend_from_slice(chunk);
        self.run(sink)?;
        if self.buf.is_empty() && self.buf.capacity() > 1 << 20 {
            self.buf = Vec::new();
        }
        Ok(())
    }

    fn meta(&self) -> Option<&ListMeta> {
        self.meta.as_ref()
    }

    fn finish(&mut self) -> Result<(ListMeta, usize), Error> {
        if self.state != ListState::Envelope || !self.buf.is_empty() || self.meta.is_none() {
            return Err(bad("list body ended before the list was complete"));
        }
        Ok((self.meta.take().unwrap_or_default(), self.malformed))
    }
}

// ------------------------------------------------------------------------------------------
// Watch frames
// ------------------------------------------------------------------------------------------

/// One watch frame (a raw `metav1.WatchEvent`): its type and its object's envelope bytes.
pub fn decode_watch_frame(frame: &[u8]) -> Result<(String, &[u8]), Error> {
    let mut r = Reader::new(frame);
    let (mut kind, mut object): (String, &[u8]) = (String::new(), &[]);
    while let Some((num, wire)) = r.field()? {
        match (num, wire) {
            (1, Wire::Bytes(x)) => kind = utf8(x)?,
            (2, Wire::Bytes(ext)) => {
                let mut e = Reader::new(ext);
                while let Some((n, w)) = e.field()? {
                    if let (1, Wire::Bytes(raw)) = (n, w) {
                        object = raw;
                    }
                }
            }
            _ => {}
        }
    }
    Ok((kind, object))
}

/// Splits a watch stream into its length-prefixed frames as bytes arrive.
#[derive(Debug, Default)]
pub struct FrameSplitter {
    buf: Vec<u8>,
}

/// The largest frame accepted (the API server's own limit on an object is 1.5 MB of etcd value;
/// 64 MB leaves room for anything real and stops a corrupt length from eating memory).
const MAX_FRAME: usize = 64 << 20;

impl FrameSplitter {
    /// Feed bytes; each complete frame goes to `frame`.
    pub fn feed(&mut self, chunk: &[u8], frame: &mut dyn FnMut(&[u8])) -> Result<(), Error> {
        self.buf.extend_from_slice(chunk);
        let mut pos = 0;
        while self.buf.len() - pos >= 4 {
            let mut len = [0u8; 4];
            len.copy_from_slice(&self.buf[pos..pos + 4]);
            let n = u32::from_be_bytes(len) as usize;
            if n > MAX_FRAME {
                return Err(bad(format_args!("watch frame of {n} bytes")));
            }
            if self.buf.len() - pos - 4 < n {
                break;
            }
            frame(&self.buf[pos + 4..pos + 4 + n]);
            pos += 4 + n;
        }
        self.buf.drain(..pos);
        Ok(())
    }
}

// ------------------------------------------------------------------------------------------
// Encoding
// ------------------------------------------------------------------------------------------

/// Encode a JSON object as message `msg`; a key the table does not know is an error naming it.
pub fn encode_msg(obj: &Map<String, Value>, msg: &Msg) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let used = encode_into(obj, msg, &mut out)?;
    if used != obj.len() {
        let unknown = obj
            .keys()
            .find(|k| !knows(msg, k))
            .cloned()
            .unwrap_or_default();
        return Err(format!("{}.{unknown}", msg.name));
    }
    Ok(out)
}

fn knows(msg: &Msg, key: &str) -> bool {
    msg.fields.iter().any(|f| match f.ty {
        Ty::Inline(sub) => knows(sub, key),
        _ => f.name == key,
    })
}

/// Encode the keys of `obj` that `msg` (with its inlined messages) knows; returns how many.
fn encode_into(obj: &Map<String, Value>, msg: &Msg, out: &mut Vec<u8>) -> Result<usize, String> {
    let mut used = 0;
    for f in msg.fields {
        if let Ty::Inline(sub) = f.ty {
            let mut inner = Vec::new();
            used += encode_into(obj, sub, &mut inner)?;
            put_bytes(out, f.num, &inner);
            continue;
        }
        let Some(v) = obj.get(f.name) else { continue };
        used += 1;
        let ctx = |e: String| format!("{}.{}: {e}", msg.name, f.name);
        match (f.ty, v) {
            (Ty::Const(c), Value::String(s)) if s == c => {}
            (Ty::Const(c), _) => return Err(ctx(format!("only {c:?} has a protobuf form"))),
            (Ty::MapStr | Ty::MapBytes | Ty::MapQuantity | Ty::MapTime, Value::Object(m)) => {
                for (k, v) in m {
                    let mut entry = Vec::new();
                    put_bytes(&mut entry, 1, k.as_bytes());
                    let value = match f.ty {
                        Ty::MapStr => v.as_str().map(|s| s.as_bytes().to_vec()),
                        Ty::MapBytes => v
                            .as_str()
                            .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok()),
                        Ty::MapTime => time_message(v),
                        _ => quantity_string(v).map(|s| {
                            let mut q = Vec::new();
                            put_bytes(&mut q, 1, s.as_bytes());
                            q
                        }),
                    }
                    .ok_or_else(|| ctx(format!("bad value for key {k}")))?;
                    put_bytes(&mut entry, 2, &value);
                    put_bytes(out, f.num, &entry);
                }
            }
            (_, Value::Null) if !matches!(f.ty, Ty::Time | Ty::MicroTime) => {}
            (_, Value::Array(items)) if f.rep => {
                for item in items {
                    encode_value(f, item, out).map_err(ctx)?;
                }
            }
            _ if f.rep => return Err(ctx("not an array".into())),
            _ => encode_value(f, v, out).map_err(ctx)?,
        }
    }
    Ok(used)
}

/// A `metav1.Time`/`MicroTime` message (`seconds`, `nanos`) from its JSON (RFC 3339 or `null`).
fn time_message(v: &Value) -> Option<Vec<u8>> {
    let mut ts = Vec::new();
    if let Some(s) = v.as_str() {
        let t = chrono::DateTime::parse_from_rfc3339(s).ok()?;
        put_int(&mut ts, 1, t.timestamp());
        let nanos = t.timestamp_subsec_nanos();
        if nanos != 0 {
            put_int(&mut ts, 2, i64::from(nanos));
        }
    } else if !v.is_null() {
        return None;
    }
    Some(ts)
}

fn quantity_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn encode_value(f: &F, v: &Value, out: &mut Vec<u8>) -> Result<(), String> {
    let wrong = || format!("unexpected JSON {v}");
    match f.ty {
        Ty::Str => put_bytes(out, f.num, v.as_str().ok_or_else(wrong)?.as_bytes()),
        Ty::Bool => put_int(out, f.num, i64::from(v.as_bool().ok_or_else(wrong)?)),
        Ty::Int => put_int(out, f.num, v.as_i64().ok_or_else(wrong)?),
        Ty::Bytes => {
            let b = base64::engine::general_purpose::STANDARD
                .decode(v.as_str().ok_or_else(wrong)?)
                .map_err(|e| e.to_string())?;
            put_bytes(out, f.num, &b);
        }
        Ty::Msg(sub) => {
            let m = v.as_object().ok_or_else(wrong)?;
            put_bytes(out, f.num, &encode_msg(m, sub)?);
        }
        Ty::Inline(_)
        | Ty::MapStr
        | Ty::MapBytes
        | Ty::MapQuantity
        | Ty::MapTime
        | Ty::Const(_) => {
            return Err(wrong());
        }
        Ty::Time | Ty::MicroTime => {
            let ts = time_message(v).ok_or_else(wrong)?;
            put_bytes(out, f.num, &ts);
        }
        Ty::Quantity => {
            let mut q = Vec::new();
            put_bytes(&mut q, 1, quantity_string(v).ok_or_else(wrong)?.as_bytes());
            put_bytes(out, f.num, &q);
        }
        Ty::IntOrString => {
            let mut x = Vec::new();
            match v {
                Value::Number(n) => {
                    put_int(&mut x, 1, 0);
                    put_int(&mut x, 2, n.as_i64().ok_or_else(wrong)?);
                    put_bytes(&mut x, 3, b"");
                }
                Value::String(s) => {
                    put_int(&mut x, 1, 1);
                    put_int(&mut x, 2, 0);
                    put_bytes(&mut x, 3, s.as_bytes());
                }
                _ => return Err(wrong()),
            }
            put_bytes(out, f.num, &x);
        }
        Ty::Raw => {
            let mut x = Vec::new();
            let json = serde_json::to_vec(v).map_err(|e| e.to_string())?;
            put_bytes(&mut x, 1, &json);
            put_bytes(out, f.num, &x);
        }
    }
    Ok(())
}

/// Leave out of `obj` (a JSON object of message `msg`) what kube-apiserver's JSON never has:
/// Go's `omitempty` drops empty maps (every map field of the built-in types is `omitempty`:
/// `selector: {matchLabels: {}}` reads back as `selector: {}`) and the zero of a non-pointer
/// `omitempty` scalar (`readyReplicas: 0`); protobuf has no form for the first and decodes the
/// second as absent. The demo server stores objects this way, so both encodings agree.
///
/// Lists are written as kube-apiserver writes an object it read back from etcd, where it is
/// stored in protobuf, which has no form for an empty list: an empty or `null` list is absent
/// when its Go field has `omitempty`, and `null` (also when absent) when it has not (a Role's
/// `rules`, an EndpointSlice's `endpoints`). `[]` never reaches a client.
pub fn omit_empty(obj: &mut Map<String, Value>, msg: &Msg) {
    for f in msg.fields {
        if f.rep && !matches!(f.ty, Ty::Const(_) | Ty::Inline(_)) {
            let empty = match obj.get(f.name) {
                None | Some(Value::Null) => true,
                Some(Value::Array(a)) => a.is_empty(),
                Some(_) => false,
            };
            if empty {
                if f.zero {
                    obj.insert(f.name.to_string(), Value::Null);
                } else {
                    obj.remove(f.name);
                }
                continue;
            }
        }
        match f.ty {
            Ty::Inline(sub) => omit_empty(obj, sub),
            Ty::MapStr | Ty::MapBytes | Ty::MapQuantity | Ty::MapTime
                if obj
                    .get(f.name)
                    .and_then(Value::as_object)
                    .is_some_and(Map::is_empty) =>
            {
                obj.remove(f.name);
            }
            Ty::Str | Ty::Bool | Ty::Int
                if !f.rep && !f.zero && obj.get(f.name).is_some_and(is_zero) =>
            {
                obj.remove(f.name);
            }
            Ty::Msg(sub) => match obj.get_mut(f.name) {
                Some(Value::Object(m)) => omit_empty(m, sub),
                Some(Value::Array(items)) => {
                    for m in items.iter_mut().filter_map(Value::as_object_mut) {
                        omit_empty(m, sub);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
}

/// The `k8s\0` envelope around an encoded message.
pub fn envelope(api_version: &str, kind: &str, raw: &[u8]) -> Vec<u8> {
    let mut tm = Vec::new();
    put_bytes(&mut tm, 1, api_version.as_bytes());
    put_bytes(&mut tm, 2, kind.as_bytes());
    let mut out = Vec::with_capacity(raw.len() + tm.len() + 16);
    out.extend_from_slice(MAGIC);
    put_bytes(&mut out, 1, &tm);
    put_bytes(&mut out, 2, raw);
    // contentEncoding and contentType: empty, as the API server writes them.
    put_bytes(&mut out, 3, b"");
    put_bytes(&mut out, 4, b"");
    out
}

/// Encode a JSON object (its `apiVersion`/`kind` ignored: the envelope carries them) as `msg`.
pub fn encode_object(obj: &Value, msg: &Msg) -> Result<Vec<u8>, String> {
    let mut m = obj.as_object().cloned().ok_or("not a JSON object")?;
    m.remove("apiVersion");
    m.remove("kind");
    encode_msg(&m, msg)
}

/// A list message (`XxxList{metadata, items}`) from encoded items.
pub fn encode_list(meta: &ListMeta, items: &[Vec<u8>]) -> Vec<u8> {
    let mut lm = Vec::new();
    if let Some(rv) = &meta.resource_version {
        put_bytes(&mut lm, 2, rv.as_bytes());
    }
    if let Some(c) = &meta.continue_token {
        put_bytes(&mut lm, 3, c.as_bytes());
    }
    if let Some(n) = meta.remaining_item_count {
        put_int(&mut lm, 4, n);
    }
    let mut out = Vec::with_capacity(items.iter().map(|i| i.len() + 6).sum::<usize>() + 32);
    put_bytes(&mut out, 1, &lm);
    for item in items {
        put_bytes(&mut out, 2, item);
    }
    out
}

/// A watch frame: the 4-byte length, then `WatchEvent{type, object: RawExtension{raw:
/// envelope}}`.
pub fn watch_frame(event_type: &str, object_envelope: &[u8]) -> Vec<u8> {
    let mut ext = Vec::new();
    put_bytes(&mut ext, 1, object_envelope);
    let mut ev = Vec::new();
    put_bytes(&mut ev, 1, event_type.as_bytes());
    put_bytes(&mut ev, 2, &ext);
    let mut out = Vec::with_capacity(ev.len() + 4);
    out.extend_from_slice(&(ev.len() as u32).to_be_bytes());
    out.extend_from_slice(&ev);
    out
}

#[cfg(test)]
mod schema_tests;
#[cfg(test)]
mod tests;
