//! What the cache keeps of an Event (core/v1 or events.k8s.io/v1), and the one way to read an
//! Event's data: [`event`].
//!
//! client-go counterpart: none (client-go's cache would hold a typed `v1.Event`). An Event's data
//! as a `DynamicObject` holds three JSON maps (the body, `involvedObject`, `source`), each a whole
//! B-tree leaf (~630 B) however few keys it has: 3,070 B a cached demo Event. The cache transform
//! (`render::prune`) replaces the data by ONE string, the [`EventRecord`] written as compact JSON
//! with one-letter keys (~300 B for a demo Event).
//!
//! Invariants:
//! - every reader of an Event's data (the events table's columns, describe's Events section, the
//!   involved-object index, the pulse, history's timeline) reads it through [`event`], which
//!   answers the same for the packed record, a record kept in a map (custom columns kept fields
//!   next to it, see `render::view_mask`) and the Event's JSON as the server sent it;
//! - `event(&pack_event(&r)) == r` for every record `r`; packing a packed Event again is the
//!   same record;
//! - a record that does not parse reads as an empty Event (never a panic).
//!
//! Where this differs from client-go: the fields no reader reads (`reportingInstance`, `action`,
//! `related`, the involved object's `apiVersion`, `resourceVersion` and `fieldPath`) are not
//! kept; YAML and describe of the Event itself read it from a GET.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where an Event's record is kept when its data is a map (see the module doc).
pub const EVENT_RECORD_KEY: &str = "kinformer.io/event";

/// The object an Event is about: core/v1 `involvedObject`, else events.k8s.io/v1 `regarding`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSubject<'a> {
    #[serde(borrow, rename = "k", default, skip_serializing_if = "is_empty")]
    pub kind: Cow<'a, str>,
    #[serde(borrow, rename = "n", default, skip_serializing_if = "is_empty")]
    pub name: Cow<'a, str>,
    #[serde(borrow, rename = "s", default, skip_serializing_if = "is_empty")]
    pub namespace: Cow<'a, str>,
    #[serde(borrow, rename = "u", default, skip_serializing_if = "is_empty")]
    pub uid: Cow<'a, str>,
}

/// `series` of an Event that recurs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSeries<'a> {
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(borrow, rename = "l", default, skip_serializing_if = "Option::is_none")]
    pub last_observed_time: Option<Cow<'a, str>>,
}

/// What the cache keeps of an Event: the fields its readers read, as the server wrote them
/// (times are the RFC 3339 text; each reader parses and chooses among them as before).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRecord<'a> {
    /// `type`: `Normal` or `Warning`.
    #[serde(borrow, rename = "t", default, skip_serializing_if = "is_empty")]
    pub type_: Cow<'a, str>,
    #[serde(borrow, rename = "r", default, skip_serializing_if = "is_empty")]
    pub reason: Cow<'a, str>,
    /// `message` (core/v1), else `note` (events.k8s.io/v1).
    #[serde(borrow, rename = "m", default, skip_serializing_if = "is_empty")]
    pub message: Cow<'a, str>,
    #[serde(borrow, rename = "o", default, skip_serializing_if = "Option::is_none")]
    pub subject: Option<EventSubject<'a>>,
    #[serde(
        borrow,
        rename = "lt",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub last_timestamp: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        rename = "dl",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecated_last_timestamp: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        rename = "ft",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub first_timestamp: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        rename = "df",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub deprecated_first_timestamp: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        rename = "et",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub event_time: Option<Cow<'a, str>>,
    #[serde(
        borrow,
        rename = "se",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub series: Option<EventSeries<'a>>,
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    #[serde(rename = "dc", default, skip_serializing_if = "Option::is_none")]
    pub deprecated_count: Option<u64>,
    /// `source.component`.
    #[serde(borrow, rename = "sc", default, skip_serializing_if = "is_empty")]
    pub source_component: Cow<'a, str>,
    /// `source.host`.
    #[serde(borrow, rename = "sh", default, skip_serializing_if = "is_empty")]
    pub source_host: Cow<'a, str>,
    #[serde(borrow, rename = "rc", default, skip_serializing_if = "is_empty")]
    pub reporting_component: Cow<'a, str>,
    #[serde(borrow, rename = "rl", default, skip_serializing_if = "is_empty")]
    pub reporting_controller: Cow<'a, str>,
}

// serde's `skip_serializing_if` hands the field by reference: `&Cow` is its signature.
#[allow(clippy::ptr_arg)]
fn is_empty(s: &Cow<'_, str>) -> bool {
    s.is_empty()
}

/// The Event whose data is `data`: its packed record, a record kept in a map, or its JSON.
pub fn event(data: &Value) -> EventRecord<'_> {
    let packed = match data {
        Value::String(s) => Some(s.as_str()),
        Value::Object(m) => m.get(EVENT_RECORD_KEY).and_then(Value::as_str),
        _ => None,
    };
    match packed {
        Some(s) => serde_json::from_str(s).unwrap_or_default(),
        None => from_json(data),
    }
}

/// An Event's data packed into its record (see the module doc).
pub fn pack_event(r: &EventRecord<'_>) -> Value {
    // Serializing strings and numbers into a String cannot fail.
    Value::String(serde_json::to_string(r).unwrap_or_default())
}

/// The record of an Event's JSON, read as leniently as the readers did (a field of the wrong
/// type reads as absent).
fn from_json(d: &Value) -> EventRecord<'_> {
    fn text(v: Option<&Value>) -> Cow<'_, str> {
        Cow::Borrowed(v.and_then(Value::as_str).unwrap_or(""))
    }
    let opt = |k: &str| d.get(k).and_then(Value::as_str).map(Cow::Borrowed);
    let subject = d
        .get("involvedObject")
        .filter(|v| v.is_object())
        .or_else(|| d.get("regarding"))
        .filter(|v| v.is_object())
        .map(|s| EventSubject {
            kind: text(s.get("kind")),
            name: text(s.get("name")),
            namespace: text(s.get("namespace")),
            uid: text(s.get("uid")),
        });
    let series = d
        .get("series")
        .filter(|v| v.is_object())
        .map(|s| EventSeries {
            count: s.get("count").and_then(Value::as_u64),
            last_observed_time: s
                .get("lastObservedTime")
                .and_then(Value::as_str)
                .map(Cow::Borrowed),
        });
    let source = d.get("source");
    EventRecord {
        type_: text(d.get("type")),
        reason: text(d.get("reason")),
        message: match d.get("message").and_then(Value::as_str) {
            Some(m) if !m.is_empty() => Cow::Borrowed(m),
            _ => text(d.get("note")),
        },
        subject,
        last_timestamp: opt("lastTimestamp"),
        deprecated_last_timestamp: opt("deprecatedLastTimestamp"),
        first_timestamp: opt("firstTimestamp"),
        deprecated_first_timestamp: opt("deprecatedFirstTimestamp"),
        event_time: opt("eventTime"),
        series,
        count: d.get("count").and_then(Value::as_u64),
        deprecated_count: d.get("deprecatedCount").and_then(Value::as_u64),
        source_component: text(source.and_then(|s| s.get("component"))),
        source_host: text(source.and_then(|s| s.get("host"))),
        reporting_component: text(d.get("reportingComponent")),
        reporting_controller: text(d.get("reportingController")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn core_event() -> Value {
        json!({
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web-1",
                               "namespace": "shop", "uid": "u-1", "fieldPath": "spec.containers{c}"},
            "reason": "BackOff", "message": "Back-off \"restarting\"\nfailed container",
            "source": {"component": "kubelet", "host": "node-1"},
            "firstTimestamp": "2026-11-28T10:00:00Z", "lastTimestamp": "2026-11-28T10:05:00Z",
            "count": 7, "type": "Warning", "eventTime": null,
            "reportingComponent": "kubelet", "reportingInstance": "node-1"
        })
    }

    #[test]
    fn a_packed_event_reads_back_as_its_json_reads() {
        let json = core_event();
        let packed = pack_event(&event(&json));
        assert!(packed.is_string());
        assert_eq!(event(&packed), event(&json));
        let e = event(&packed);
        assert_eq!(e.type_, "Warning");
        assert_eq!(e.message, "Back-off \"restarting\"\nfailed container");
        let s = e.subject.clone().unwrap();
        assert_eq!(
            (&*s.kind, &*s.name, &*s.namespace, &*s.uid),
            ("Pod", "web-1", "shop", "u-1")
        );
        assert_eq!(e.count, Some(7));
        assert_eq!(e.event_time, None);
        assert_eq!(
            (&*e.source_component, &*e.source_host),
            ("kubelet", "node-1")
        );
        assert_eq!(
            pack_event(&e),
            packed,
            "packing a packed Event is the same record"
        );
    }

    #[test]
    fn an_events_k8s_io_event_keeps_its_note_regarding_and_series() {
        let json = json!({
            "regarding": {"kind": "Node", "name": "n1"}, "note": "rebooted",
            "series": {"count": 4, "lastObservedTime": "2026-11-28T10:00:09.000000Z"},
            "reportingController": "kubelet", "eventTime": "2026-11-28T10:00:00.000000Z"
        });
        let packed = pack_event(&event(&json));
        let e = event(&packed);
        assert_eq!(e.message, "rebooted");
        assert_eq!(e.subject.map(|s| s.name.into_owned()), Some("n1".into()));
        let series = e.series.unwrap();
        assert_eq!(series.count, Some(4));
        assert_eq!(
            series.last_observed_time.as_deref(),
            Some("2026-11-28T10:00:09.000000Z")
        );
        assert_eq!(e.reporting_controller, "kubelet");
    }

    #[test]
    fn a_record_kept_in_a_map_reads_as_the_record_and_garbage_reads_as_empty() {
        let packed = pack_event(&event(&core_event()));
        let mut m = serde_json::Map::new();
        m.insert(EVENT_RECORD_KEY.into(), packed.clone());
        m.insert("action".into(), json!("Killing"));
        assert_eq!(event(&Value::Object(m)), event(&packed));
        for bad in [json!("{not json"), json!("7:node-1"), json!(3), Value::Null] {
            assert_eq!(event(&bad), EventRecord::default(), "{bad}");
        }
    }
}
