//! Fast JSON decoding of [`DynamicObject`].
//!
//! client-go counterpart: none directly (client-go decodes into `unstructured.Unstructured` with
//! its own JSON reader); this replaces serde's derived `Deserialize` of kube's `DynamicObject`,
//! whose two `#[serde(flatten)]` fields make serde buffer the whole object into its internal
//! `Content` tree first and then convert that tree again (about 2-3x the work).
//!
//! Invariants:
//! - [`decode_dynamic`] returns exactly what `serde_json::from_str::<DynamicObject>` returns for
//!   every input: the fast visitor handles the common shape (a JSON object with string
//!   `apiVersion` and `kind` both present or both absent, an optional `metadata` object, any other
//!   keys, no duplicate keys) and every other input, including every error, is decoded again by
//!   serde's derived implementation, whose result (or error) is returned;
//! - `metadata` is decoded into `ObjectMeta` straight from the JSON reader, every other key into
//!   `data` as a `serde_json::Value`, so `data` never holds `apiVersion`, `kind` or `metadata`
//!   (as with the derived implementation).

use std::fmt;

use kube::api::{DynamicObject, ObjectMeta, TypeMeta};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

/// Decode one object as [`DynamicObject`]; same result as `serde_json::from_str`, faster.
pub fn decode_dynamic(json: &str) -> Result<DynamicObject, serde_json::Error> {
    match decode_fast(json) {
        Ok(obj) => Ok(obj),
        // Unusual shape or invalid input: the derived implementation decides (and explains).
        Err(_) => serde_json::from_str(json),
    }
}

fn decode_fast(json: &str) -> Result<DynamicObject, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(json);
    let obj = (&mut de).deserialize_map(ObjectVisitor)?;
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

struct ObjectVisitor;

/// Makes the fast path give up (the caller then uses the derived implementation).
fn give_up<E: de::Error>(why: &str) -> E {
    E::custom(format_args!(
        "fast DynamicObject decoding not applicable: {why}"
    ))
}

impl<'de> Visitor<'de> for ObjectVisitor {
    type Value = DynamicObject;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Kubernetes object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DynamicObject, A::Error> {
        let mut api_version: Option<String> = None;
        let mut kind: Option<String> = None;
        let mut metadata: Option<ObjectMeta> = None;
        let mut data = Map::new();
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
                    metadata = Some(map.next_value::<ObjectMeta>()?);
                }
                Key::Other(k) => {
                    let v = map.next_value::<Value>()?;
                    if data.insert(k, v).is_some() {
                        return Err(give_up("duplicate key"));
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(decode_fast(json).is_ok());
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
}
