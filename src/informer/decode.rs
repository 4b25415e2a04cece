//! Fast JSON decoding of [`DynamicObject`], optionally through an [`ObjectMask`].
//!
//! client-go counterpart: none directly (client-go decodes into `unstructured.Unstructured` with
//! its own JSON reader, then a `TransformFunc` strips what the cache does not need); this replaces
//! serde's derived `Deserialize` of kube's `DynamicObject`, whose two `#[serde(flatten)]` fields
//! make serde buffer the whole object into its internal `Content` tree first and then convert that
//! tree again (about 2-3x the work), and lets a cache transform be pushed down into the decoder
//! as a mask, so the parts the transform would drop are skipped by the reader instead of being
//! built and freed.
//!
//! Invariants:
//! - [`decode_dynamic`] returns exactly what `serde_json::from_str::<DynamicObject>` returns for
//!   every input: the fast visitor handles the common shape (a JSON object with string
//!   `apiVersion` and `kind` both present or both absent, an optional `metadata` object, any other
//!   keys, no duplicate keys) and every other input, including every error, is decoded again by
//!   serde's derived implementation, whose result (or error) is returned;
//! - `metadata` is decoded into `ObjectMeta` straight from the JSON reader, every other key into
//!   `data` as a `serde_json::Value`, so `data` never holds `apiVersion`, `kind` or `metadata`
//!   (as with the derived implementation);
//! - masking commutes with decoding: for every object `json` that [`decode_dynamic`] accepts,
//!   `decode_dynamic_masked(json, m) == { let mut o = decode_dynamic(json)?; m.apply(&mut o); o }`.
//!   A masked decode skips dropped parts without building them, so it also accepts an object that
//!   is malformed only inside a part the mask drops (a cache that never holds that part loses
//!   nothing by not validating it); when the fast path does not apply, the derived implementation
//!   decodes and the mask is applied to its result.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use kube::api::{DynamicObject, ObjectMeta, TypeMeta};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// What a masked decode keeps of one JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mask {
    /// The value, whole.
    All,
    /// An object keeps only these keys, each under its own mask.
    Keys(&'static [(&'static str, Mask)]),
    /// Each element of an array under this mask.
    Each(&'static Mask),
    /// An object keeps its keys, each value replaced by its size (see [`Sizes`]): the keys and
    /// how big each is, without the payload.
    Blank(Sizes),
}

/// What a [`Mask::Blank`] keeps of each value of an object: its size in bytes as a JSON number
/// (of the decoded bytes when the values are base64, as a Secret's are), or, when it is a string
/// of at most `keep` bytes, the value itself. A value already a number (a size: masking twice)
/// stays; any other value (not a string: a malformed object) becomes `""`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Strings of at most this many bytes are kept as they are.
    pub keep: u16,
    /// The values are base64 (a Secret's `data`, a ConfigMap's `binaryData`).
    pub base64: bool,
}

impl Sizes {
    /// Never a value, only sizes (a Secret's data).
    pub const ONLY: Sizes = Sizes {
        keep: 0,
        base64: false,
    };

    /// What is kept of the string `s`.
    pub fn of_str(self, s: &str) -> Value {
        if s.len() <= usize::from(self.keep) {
            return Value::String(s.to_owned());
        }
        let size = if self.base64 {
            // Every 4 characters are 3 bytes, less the padding.
            let pad = s.bytes().rev().take(2).filter(|b| *b == b'=').count();
            (s.len() / 4 * 3 + s.len() % 4 * 3 / 4).saturating_sub(pad)
        } else {
            s.len()
        };
        Value::from(size)
    }

    /// What is kept of the value `v`.
    pub fn of(self, v: &Value) -> Value {
        match v {
            Value::String(s) => self.of_str(s),
            Value::Number(n) => Value::Number(n.clone()),
            _ => Value::String(String::new()),
        }
    }
}

/// Which annotations a masked decode keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnnotationMask {
    /// Every annotation.
    All,
    /// None at all (`metadata.annotations` becomes absent).
    Drop,
    /// Only these keys.
    Only(&'static [&'static str]),
    /// Every key but these.
    AllBut(&'static [&'static str]),
}

/// What a cache keeps of an object: a mask over `data` (everything but `apiVersion`, `kind` and
/// `metadata`) and rules for the bulky metadata fields. A value whose shape does not fit its mask
/// (`Keys` or `Blank` on a non-object, `Each` on a non-array) is kept whole, so a malformed object
/// reaches the row printers as it came. An annotation map left empty is absent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectMask {
    pub data: Mask,
    pub annotations: AnnotationMask,
    /// Keep `metadata.managedFields`.
    pub managed_fields: bool,
    /// Without `managed_fields`: keep of each `metadata.managedFields` entry only who wrote and
    /// when (manager, operation, subresource, time), skipping its `fieldsV1` unread (most of an
    /// entry's bytes and nearly all of its decoding cost). History names a version's writer
    /// from these (see `informer::history`).
    pub managed_writers: bool,
    /// Keep `metadata.generateName`.
    pub generate_name: bool,
}

impl ObjectMask {
    /// Keeps everything.
    pub const ALL: ObjectMask = ObjectMask {
        data: Mask::All,
        annotations: AnnotationMask::All,
        managed_fields: true,
        managed_writers: true,
        generate_name: true,
    };

    /// Apply the mask to an already decoded object (what [`decode_dynamic_masked`] skips).
    pub fn apply(&self, obj: &mut DynamicObject) {
        self.apply_metadata(obj);
        apply_mask(&mut obj.data, self.data);
    }

    /// The metadata half of [`apply`](Self::apply): managedFields, generateName, annotations.
    pub fn apply_metadata(&self, obj: &mut DynamicObject) {
        let meta = &mut obj.metadata;
        if !self.managed_fields {
            if self.managed_writers {
                if let Some(entries) = meta.managed_fields.as_mut() {
                    entries.iter_mut().for_each(keep_writer);
                }
            } else {
                meta.managed_fields = None;
            }
        }
        if !self.generate_name {
            meta.generate_name = None;
        }
        if self.annotations != AnnotationMask::All
            && let Some(ann) = meta.annotations.as_mut()
        {
            ann.retain(|k, _| self.keeps_annotation(k));
            if ann.is_empty() {
                meta.annotations = None;
            }
        }
    }

    pub(crate) fn keeps_annotation(&self, key: &str) -> bool {
        match self.annotations {
            AnnotationMask::All => true,
            AnnotationMask::Drop => false,
            AnnotationMask::Only(keep) => keep.contains(&key),
            AnnotationMask::AllBut(drop) => !drop.contains(&key),
        }
    }
}

/// Apply `mask` to a decoded value in place.
pub fn apply_mask(v: &mut Value, mask: Mask) {
    match (mask, v) {
        (Mask::All, _) => {}
        (Mask::Each(sub), Value::Array(items)) => {
            for x in items {
                apply_mask(x, *sub);
            }
        }
        (Mask::Keys(keys), Value::Object(m)) => {
            m.retain(|k, _| keys.iter().any(|(name, _)| name == k));
            for (name, sub) in keys {
                if let Some(x) = m.get_mut(*name) {
                    apply_mask(x, *sub);
                }
            }
        }
        (Mask::Blank(sizes), Value::Object(m)) => {
            for x in m.values_mut() {
                *x = sizes.of(x);
            }
        }
        _ => {}
    }
}

/// Decode one object as [`DynamicObject`]; same result as `serde_json::from_str`, faster.
pub fn decode_dynamic(json: &str) -> Result<DynamicObject, serde_json::Error> {
    decode_dynamic_masked(json, &ObjectMask::ALL)
}

/// Decode one object keeping only what `mask` keeps (see the module invariants).
pub fn decode_dynamic_masked(
    json: &str,
    mask: &ObjectMask,
) -> Result<DynamicObject, serde_json::Error> {
    match decode_fast(json, mask) {
        Ok(obj) => Ok(obj),
        // Unusual shape or invalid input: the derived implementation decides (and explains).
        Err(_) => {
            let mut obj: DynamicObject = serde_json::from_str(json)?;
            mask.apply(&mut obj);
            Ok(obj)
        }
    }
}

fn decode_fast(json: &str, mask: &ObjectMask) -> Result<DynamicObject, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let obj = (&mut de).deserialize_map(ObjectVisitor { mask })?;
    de.end()?;
    Ok(obj)
}

/// The top-level keys the visitor treats specially.
enum Key {
    ApiVersion,
    Kind,
    Metadata,
    Other(String),
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
        Ok(match v {
            "apiVersion" => Key::ApiVersion,
            "kind" => Key::Kind,
            "metadata" => Key::Metadata,
            other => Key::Other(other.to_owned()),
        })
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Key, E> {
        Ok(match v.as_str() {
            "apiVersion" => Key::ApiVersion,
            "kind" => Key::Kind,
            "metadata" => Key::Metadata,
            _ => Key::Other(v),
        })
    }
}

/// A map key, borrowed from the input when it has no escapes (so a skipped key costs nothing).
struct CowKey;

impl<'de> DeserializeSeed<'de> for CowKey {
    type Value = Cow<'de, str>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for CowKey {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
    }
}

struct ObjectVisitor<'m> {
    mask: &'m ObjectMask,
}

/// Makes the fast path give up (the caller then uses the derived implementation).
fn give_up<E: de::Error>(why: &str) -> E {
    E::custom(format_args!(
        "fast DynamicObject decoding not applicable: {why}"
    ))
}

/// What happens to the value of `key` in an object under `mask`.
#[derive(Clone, Copy)]
enum Field {
    Keep(Mask),
    Blank(Sizes),
    Drop,
}

fn field(mask: Mask, key: &str) -> Field {
    match mask {
        Mask::All | Mask::Each(_) => Field::Keep(Mask::All),
        Mask::Keys(keys) => keys
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(Field::Drop, |(_, m)| Field::Keep(*m)),
        Mask::Blank(sizes) => Field::Blank(sizes),
    }
}

impl<'de> Visitor<'de> for ObjectVisitor<'_> {
    type Value = DynamicObject;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DynamicObject, A::Error> {
        let mut api_version: Option<String> = None;
        let mut kind: Option<String> = None;
        let mut metadata: Option<ObjectMeta> = None;
        let mut data = Map::new();
        let mut dropped: Vec<String> = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::ApiVersion | Key::Kind => {
                    let slot = if matches!(key, Key::ApiVersion) {
                        &mut api_version
                    } else {
                        &mut kind
                    };
                    if slot.is_some() {
                        return Err(give_up("duplicate type field"));
                    }
                    match map.next_value::<Value>()? {
                        Value::String(s) => *slot = Some(s),
                        _ => return Err(give_up("non-string type field")),
                    }
                }
                Key::Metadata => {
                    if metadata.is_some() {
                        return Err(give_up("duplicate metadata"));
                    }
                    metadata = Some(map.next_value_seed(MetaSeed { mask: self.mask })?);
                }
                Key::Other(k) => {
                    if data.contains_key(&k) || dropped.contains(&k) {
                        return Err(give_up("duplicate key"));
                    }
                    match field(self.mask.data, &k) {
                        Field::Keep(sub) => {
                            let v = map.next_value_seed(Masked(sub))?;
                            data.insert(k, v);
                        }
                        Field::Blank(sizes) => {
                            data.insert(k, map.next_value_seed(Sized(sizes))?);
                        }
                        Field::Drop => {
                            map.next_value::<IgnoredAny>()?;
                            dropped.push(k);
                        }
                    }
                }
            }
        }
        let types = match (api_version, kind) {
            (Some(api_version), Some(kind)) => Some(TypeMeta { api_version, kind }),
            (None, None) => None,
            _ => return Err(give_up("only one of apiVersion and kind")),
        };
        Ok(DynamicObject {
            types,
            metadata: metadata.unwrap_or_default(),
            data: Value::Object(data),
        })
    }
}

/// Decodes one value of a [`Mask::Blank`] object as [`Sizes::of`] keeps it, the string read
/// without a copy when it has no escapes and never kept when it is longer than `keep`.
#[derive(Clone, Copy)]
struct Sized(Sizes);

impl<'de> DeserializeSeed<'de> for Sized {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Sized {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(self.0.of_str(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(self
            .0
            .of(&serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Value, E> {
        Ok(Value::String(String::new()))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::String(String::new()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Value::String(String::new()))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Value::String(String::new()))
    }
}

/// Decodes a value under a [`Mask`] into a `serde_json::Value`, skipping what the mask drops.
#[derive(Clone, Copy)]
struct Masked(Mask);

impl<'de> DeserializeSeed<'de> for Masked {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        match self.0 {
            Mask::All => Value::deserialize(d),
            _ => d.deserialize_any(self),
        }
    }
}

impl<'de> Visitor<'de> for Masked {
    type Value = Value;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        // As serde_json's own Value visitor: a non-finite float becomes null.
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        self.deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let element = match self.0 {
            Mask::Each(sub) => Masked(*sub),
            _ => Masked(Mask::All),
        };
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(v) = seq.next_element_seed(element)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(CowKey)? {
            match field(self.0, &key) {
                Field::Keep(sub) => {
                    let v = map.next_value_seed(Masked(sub))?;
                    out.insert(key.into_owned(), v);
                }
                Field::Blank(sizes) => {
                    let v = map.next_value_seed(Sized(sizes))?;
                    out.insert(key.into_owned(), v);
                }
                Field::Drop => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(Value::Object(out))
    }
}

/// Decodes `metadata` into `ObjectMeta` as k8s-openapi's derived implementation does (unknown
/// keys ignored, a repeated key's last value wins), skipping what the mask drops.
struct MetaSeed<'m> {
    mask: &'m ObjectMask,
}

impl<'de> DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = ObjectMeta;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<ObjectMeta, D::Error> {
        if *self.mask == ObjectMask::ALL {
            return ObjectMeta::deserialize(d);
        }
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MetaSeed<'_> {
    type Value = ObjectMeta;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ObjectMeta")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ObjectMeta, A::Error> {
        let mask = self.mask;
        let mut m = ObjectMeta::default();
        while let Some(key) = map.next_key_seed(CowKey)? {
            match &*key {
                "annotations" => {
                    m.annotations = match mask.annotations {
                        AnnotationMask::All => map.next_value()?,
                        AnnotationMask::Drop => {
                            map.next_value::<IgnoredAny>()?;
                            None
                        }
                        _ => map
                            .next_value_seed(AnnotationSeed { mask })?
                            .filter(|a| !a.is_empty()),
                    }
                }
                "creationTimestamp" => m.creation_timestamp = map.next_value()?,
                "deletionGracePeriodSeconds" => {
                    m.deletion_grace_period_seconds = map.next_value()?
                }
                "deletionTimestamp" => m.deletion_timestamp = map.next_value()?,
                "finalizers" => m.finalizers = map.next_value()?,
                "generateName" if mask.generate_name => m.generate_name = map.next_value()?,
                "generation" => m.generation = map.next_value()?,
                "labels" => m.labels = map.next_value()?,
                "managedFields" if mask.managed_fields => m.managed_fields = map.next_value()?,
                "managedFields" if mask.managed_writers => {
                    m.managed_fields = map
                        .next_value::<Option<Vec<WriterEntry>>>()?
                        .map(|v| v.into_iter().map(WriterEntry::into_entry).collect())
                }
                "name" => m.name = map.next_value()?,
                "namespace" => m.namespace = map.next_value()?,
                "ownerReferences" => m.owner_references = map.next_value()?,
                "resourceVersion" => m.resource_version = map.next_value()?,
                "selfLink" => m.self_link = map.next_value()?,
                "uid" => m.uid = map.next_value()?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(m)
    }
}

/// A `managedFields` entry as [`ObjectMask::managed_writers`] decodes it: who wrote and when;
/// every other key (`fieldsV1`, `apiVersion`, `fieldsType`) is skipped unread. The time is
/// borrowed from the body and read by [`meta_time`] (no string allocated for it, no general
/// RFC 3339 parser for the form the API server writes).
#[derive(Deserialize)]
struct WriterEntry<'a> {
    manager: Option<String>,
    operation: Option<String>,
    subresource: Option<String>,
    #[serde(borrow)]
    time: Option<Cow<'a, str>>,
}

impl WriterEntry<'_> {
    fn into_entry(self) -> ManagedFieldsEntry {
        ManagedFieldsEntry {
            manager: self.manager,
            operation: self.operation,
            subresource: self.subresource,
            time: self.time.as_deref().and_then(meta_time),
            ..Default::default()
        }
    }
}

/// A `metav1.Time` as JSON carries it. The API server writes `YYYY-MM-DDTHH:MM:SSZ`
/// (apimachinery's `Time.MarshalJSON`, RFC 3339 in UTC at second precision): that form is read
/// by hand; any other (an offset, fractions, a leap second) goes through jiff, as
/// k8s-openapi's own `Time` deserializer does. `None` for a value neither reads.
pub(crate) fn meta_time(s: &str) -> Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::Time> {
    let secs = match utc_seconds(s) {
        Some(secs) => k8s_openapi::jiff::Timestamp::from_second(secs).ok(),
        None => s.parse::<k8s_openapi::jiff::Timestamp>().ok(),
    };
    secs.map(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time)
}

/// Unix seconds of `YYYY-MM-DDTHH:MM:SSZ` (a valid date and time of day, no leap second).
fn utc_seconds(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    if b[16] != b':' || b[19] != b'Z' {
        return None;
    }
    let num = |from: usize, to: usize| {
        b[from..to].iter().try_fold(0i64, |n, &d| {
            d.is_ascii_digit().then(|| n * 10 + i64::from(d - b'0'))
        })
    };
    let (y, m, d) = (num(0, 4)?, num(5, 7)?, num(8, 10)?);
    let (hh, mm, ss) = (num(11, 13)?, num(14, 16)?, num(17, 19)?);
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let month_days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    if y == 0 || d == 0 || d > month_days || hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3_600 + mm * 60 + ss)
}

/// What [`ObjectMask::managed_writers`] keeps of an already decoded entry.
pub(crate) fn keep_writer(e: &mut ManagedFieldsEntry) {
    e.api_version = None;
    e.fields_type = None;
    e.fields_v1 = None;
}

/// Decodes `metadata.annotations` keeping only the keys the mask keeps (a dropped value, such
/// as a large last-applied configuration, is skipped unread).
struct AnnotationSeed<'m> {
    mask: &'m ObjectMask,
}

impl<'de> DeserializeSeed<'de> for AnnotationSeed<'_> {
    type Value = Option<BTreeMap<String, String>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for AnnotationSeed<'_> {
    type Value = Option<BTreeMap<String, String>>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of strings")
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = BTreeMap::new();
        while let Some(key) = map.next_key_seed(CowKey)? {
            if self.mask.keeps_annotation(&key) {
                let v: String = map.next_value()?;
                out.insert(key.into_owned(), v);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_managed_fields_time_reads_as_jiff_reads_it() {
        for t in [
            "2026-11-28T22:25:00Z",
            "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z",
            "2000-02-29T12:00:00Z",
            "1999-12-31T23:59:59Z",
            "2100-03-01T00:00:01Z",
            "0001-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            // Not the API server's form: read through jiff (or not at all) either way.
            "2026-11-28T22:25:00.5Z",
            "2026-11-28T22:25:00+01:00",
            "2023-02-29T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-11-31T00:00:00Z",
            "2026-11-28T24:00:00Z",
            "2026-11-28T22:60:00Z",
            "2026-11-28 22:25:00Z",
            "2026-1a-28T22:25:00Z",
            "",
        ] {
            let want = t
                .parse::<k8s_openapi::jiff::Timestamp>()
                .ok()
                .map(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time);
            assert_eq!(meta_time(t), want, "{t}");
        }
        assert!(
            utc_seconds("2026-11-28T22:25:00Z").is_some(),
            "read by hand"
        );
        assert_eq!(utc_seconds("1970-01-02T00:00:01Z"), Some(86_401));
    }

    fn same_as_serde(json: &str) {
        let fast = decode_dynamic(json).map_err(|e| e.to_string());
        let slow = serde_json::from_str::<DynamicObject>(json).map_err(|e| e.to_string());
        assert_eq!(fast, slow, "input: {json}");
    }

    #[test]
    fn fixture_pods_decode_exactly_as_the_derived_implementation() {
        same_as_serde(include_str!("../../tests/fixtures/pod.json"));
    }

    #[test]
    fn the_fast_path_is_taken_for_the_common_shape() {
        let json = include_str!("../../tests/fixtures/pod.json");
        assert!(decode_fast(json, &ObjectMask::ALL).is_ok());
    }

    #[test]
    fn unusual_shapes_decode_exactly_as_the_derived_implementation() {
        for json in [
            r#"{}"#,
            r#"{"apiVersion":"v1","kind":"Pod"}"#,
            r#"{"apiVersion":"v1"}"#,
            r#"{"kind":"Pod","spec":{"a":1}}"#,
            r#"{"apiVersion":1,"kind":"Pod"}"#,
            r#"{"apiVersion":"v1","kind":"Pod","apiVersion":"v2"}"#,
            r#"{"metadata":{"name":"a"},"metadata":{"name":"b"}}"#,
            r#"{"metadata":null}"#,
            r#"{"metadata":{"name":1}}"#,
            r#"{"metadata":{"name":"a","labels":{"x":"y"}},"spec":[1,2.5,-3,null,true],"x":"y"}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"a":1} trailing"#,
            r#"[1,2]"#,
            r#""string""#,
            r#"null"#,
            r#"{"a":"#,
            r#"{"a":18446744073709551615,"b":-9223372036854775808,"c":1e400}"#,
            r#"{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a\u00e9\"b"},"status":{}}"#,
        ] {
            same_as_serde(json);
        }
    }

    const MASK: ObjectMask = ObjectMask {
        data: Mask::Keys(&[
            (
                "spec",
                Mask::Keys(&[
                    ("keep", Mask::All),
                    ("items", Mask::Each(&Mask::Keys(&[("a", Mask::All)]))),
                ]),
            ),
            ("blank", Mask::Blank(Sizes::ONLY)),
            ("whole", Mask::All),
        ]),
        annotations: AnnotationMask::Only(&["keep.me/x"]),
        managed_fields: false,
        managed_writers: false,
        generate_name: false,
    };

    /// A blanked value keeps its size (of the decoded bytes for base64), a short one itself
    /// under a cap; masking again keeps the sizes; escapes count as the text they stand for.
    #[test]
    fn blanked_values_keep_their_sizes_and_short_ones_under_the_cap() {
        const SIZES: ObjectMask = ObjectMask {
            data: Mask::Keys(&[
                (
                    "b64",
                    Mask::Blank(Sizes {
                        keep: 0,
                        base64: true,
                    }),
                ),
                (
                    "text",
                    Mask::Blank(Sizes {
                        keep: 3,
                        base64: false,
                    }),
                ),
            ]),
            ..ObjectMask::ALL
        };
        let json = r#"{"b64":{"a":"aHVudGVyMg==","b":"YWI=","c":"YWJj","d":"","e":null,"f":[1]},"text":{"s":"abc","l":"abcd","n":"a\nbc","u":"é"}}"#;
        let o = decode_dynamic_masked(json, &SIZES).expect("decodes");
        assert_eq!(
            o.data,
            serde_json::json!({"b64":{"a":7,"b":2,"c":3,"d":"","e":"","f":""},
                "text":{"s":"abc","l":4,"n":4,"u":"é"}})
        );
        masked_same_as_decode_then_apply(json, &SIZES);
        let mut again = o.clone();
        SIZES.apply(&mut again);
        assert_eq!(again, o);
    }

    fn masked_same_as_decode_then_apply(json: &str, mask: &ObjectMask) {
        let masked = decode_dynamic_masked(json, mask).map_err(|e| e.to_string());
        let applied = decode_dynamic(json)
            .map(|mut o| {
                mask.apply(&mut o);
                o
            })
            .map_err(|e| e.to_string());
        assert_eq!(masked, applied, "input: {json}");
    }

    #[test]
    fn masked_decoding_equals_decoding_then_applying_the_mask() {
        for json in [
            r#"{"apiVersion":"v1","kind":"X","metadata":{"name":"a","generateName":"a-","annotations":{"keep.me/x":"1","big":"zzz"},"managedFields":[{"manager":"m"}]},"spec":{"keep":{"deep":[1,2]},"drop":{"x":1},"items":[{"a":1,"b":2},{"b":3},7,null]},"blank":{"k1":"v","k2":{"n":1}},"whole":{"x":[1.5,-2,true,null,"s"]},"other":1}"#,
            r#"{"metadata":{"annotations":{"big":"zzz"}},"spec":[{"keep":1,"x":2}],"blank":[{"a":1}],"whole":null}"#,
            r#"{"metadata":{"annotations":null,"name":"a\u00e9"},"spec":{"k\u0065ep":"escaped key","items":{"a":{"z":1},"b":2}}}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"spec":{"keep":1},"spec":{"keep":2}}"#,
            r#"{"apiVersion":"v1"}"#,
            r#"{"metadata":{"name":1}}"#,
            r#"{"a":18446744073709551615,"spec":{"keep":-9223372036854775808,"items":[1e400]}}"#,
            r#"{"a":"#,
            r#"[1]"#,
        ] {
            masked_same_as_decode_then_apply(json, &MASK);
            masked_same_as_decode_then_apply(json, &ObjectMask::ALL);
        }
        masked_same_as_decode_then_apply(include_str!("../../tests/fixtures/pod.json"), &MASK);
    }

    #[test]
    fn a_writers_mask_keeps_who_wrote_and_when_and_skips_the_fields_sets() {
        let writers = ObjectMask {
            managed_writers: true,
            ..MASK
        };
        let json = r#"{"metadata":{"name":"a","managedFields":[{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2026-11-28T10:41:09Z","fieldsType":"FieldsV1","subresource":"status","fieldsV1":{"f:status":{"f:phase":{}}}},{"manager":"m","fieldsV1":"not a set"}]},"spec":{"keep":1}}"#;
        let o = decode_dynamic_masked(json, &writers).expect("decodes");
        let entries = o.metadata.managed_fields.expect("entries kept");
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].manager.as_deref(), Some("kubelet"));
        assert_eq!(entries[0].operation.as_deref(), Some("Update"));
        assert_eq!(entries[0].subresource.as_deref(), Some("status"));
        assert_eq!(
            entries[0].time.as_ref().map(|t| t.0.as_second()),
            Some(1_795_862_469)
        );
        assert!(
            entries
                .iter()
                .all(|e| e.fields_v1.is_none() && e.api_version.is_none())
        );
        masked_same_as_decode_then_apply(include_str!("../../tests/fixtures/pod.json"), &writers);
    }

    #[test]
    fn masked_decoding_drops_keys_and_keeps_only_the_sizes_of_blanked_values() {
        let json = r#"{"metadata":{"name":"a","generateName":"a-","annotations":{"keep.me/x":"1","big":"zzz"},"managedFields":[{"manager":"m"}]},"spec":{"keep":1,"drop":2,"items":[{"a":1,"b":2}]},"blank":{"k":"secret"},"other":1}"#;
        let o = decode_dynamic_masked(json, &MASK).expect("decodes");
        assert_eq!(
            o.data,
            serde_json::json!({"spec":{"keep":1,"items":[{"a":1}]},"blank":{"k":6}})
        );
        assert_eq!(o.metadata.name.as_deref(), Some("a"));
        assert!(o.metadata.generate_name.is_none());
        assert!(o.metadata.managed_fields.is_none());
        assert_eq!(
            o.metadata.annotations,
            Some(BTreeMap::from([("keep.me/x".to_string(), "1".to_string())]))
        );
    }

    #[test]
    fn an_object_malformed_only_in_a_dropped_part_is_accepted_by_a_masked_decode() {
        // managedFields must be a list: the full decode rejects the object, the mask never reads it.
        let json = r#"{"metadata":{"name":"a","managedFields":"not a list"},"drop":{"x":1}}"#;
        assert!(decode_dynamic(json).is_err());
        let o = decode_dynamic_masked(json, &MASK).expect("dropped part is not validated");
        assert_eq!(o.metadata.name.as_deref(), Some("a"));
    }

    #[test]
    fn an_annotation_map_left_empty_by_the_mask_is_absent() {
        let json = r#"{"metadata":{"name":"a","annotations":{"big":"zzz"}}}"#;
        let o = decode_dynamic_masked(json, &MASK).expect("decodes");
        assert!(o.metadata.annotations.is_none());
    }
}
