//! An object's Events in its history timeline: each Event (core/v1 or events.k8s.io/v1) as
//! one line, and the order in which versions and Events are interleaved.
//!
//! client-go counterpart: none; kubectl's `describe` and k9s's describe (k9s #1678: the events
//! of one object) list an object's Events by asking the server with the field selector
//! `involvedObject.uid=`. The timeline takes them from the events informer's
//! `involved` index ([`crate::informer::index::INVOLVED_INDEX`]) instead, so no request is
//! made per refresh and a new Event shows as soon as the informer has it.
//!
//! An Event's time is the latest of `lastTimestamp` (`deprecatedLastTimestamp`), `eventTime`
//! and `series.lastObservedTime`, falling back to `firstTimestamp` and the creation time: a
//! repeated Event is placed where it last happened, as kubectl's LAST SEEN. A version's time
//! is when the informer saw it (this machine's clock), an Event's the server's or the
//! reporting component's: across a clock skew the order of a version and an Event is only as
//! good as the clocks.

use kube::api::DynamicObject;

use super::VersionView;

/// One Event about the object, as the timeline prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimelineEvent {
    /// When it last happened (milliseconds since the epoch; see the module docs).
    pub at_ms: i64,
    /// `Normal` or `Warning` (any other text as the server sent it).
    pub kind: String,
    pub reason: String,
    /// `message` (core/v1) or `note` (events.k8s.io/v1), trimmed.
    pub message: String,
    /// How many times it happened: `count`, `series.count` or `deprecatedCount` (at least 1).
    pub count: u64,
    /// The Event object itself (to open its YAML): its API group (`""` or `events.k8s.io`),
    /// namespace and name.
    pub group: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl TimelineEvent {
    /// The timeline line of an Event object; `None` when it has no time at all.
    pub fn of(event: &DynamicObject) -> Option<Self> {
        let e = crate::informer::cached::event(&event.data);
        let time = |t: &Option<std::borrow::Cow<'_, str>>| {
            t.as_deref()
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.timestamp_millis())
        };
        let series = e.series.as_ref();
        let latest = [
            time(&e.last_timestamp),
            time(&e.deprecated_last_timestamp),
            time(&e.event_time),
            series.and_then(|s| time(&s.last_observed_time)),
        ]
        .into_iter()
        .flatten()
        .max();
        let at_ms = latest
            .or_else(|| time(&e.first_timestamp))
            .or_else(|| time(&e.deprecated_first_timestamp))
            .or_else(|| {
                event
                    .metadata
                    .creation_timestamp
                    .as_ref()
                    .map(|t| t.0.as_millisecond())
            })?;
        let count = [e.count, series.and_then(|s| s.count), e.deprecated_count]
            .into_iter()
            .flatten()
            .max()
            .unwrap_or(1)
            .max(1);
        let group = event
            .types
            .as_ref()
            .and_then(|t| t.api_version.split_once('/'))
            .map(|(g, _)| g.to_string())
            .unwrap_or_default();
        Some(Self {
            at_ms,
            kind: e.type_.trim().to_string(),
            reason: e.reason.trim().to_string(),
            message: e.message.trim().to_string(),
            count,
            group,
            namespace: event.metadata.namespace.clone(),
            name: event.metadata.name.clone().unwrap_or_default(),
        })
    }

    pub fn is_warning(&self) -> bool {
        self.kind == "Warning"
    }

    /// `reason: message ×count` (the count only when it happened more than once).
    pub fn summary(&self) -> String {
        let mut s = match (self.reason.is_empty(), self.message.is_empty()) {
            (false, false) => format!("{}: {}", self.reason, self.message),
            (false, true) => self.reason.clone(),
            (true, _) => self.message.clone(),
        };
        if self.count > 1 {
            s.push_str(&format!(" ×{}", self.count));
        }
        s
    }
}

/// One line of the timeline: a version (its index, oldest = 0) or an Event (its index in the
/// events given to [`interleave`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineRow {
    Version(usize),
    Event(usize),
}

/// How [`interleave`] orders lines: time, versions before Events, then a version's index or
/// an Event's name.
type SortKey<'a> = (i64, u8, usize, &'a str);

/// Versions and Events in one list, newest first. At the same millisecond an Event is put
/// after (above, newest first) the version: an Event reports what a change did. Versions keep
/// their recorded order; Events of the same time are ordered by name, so the order does not
/// depend on how the informer listed them.
pub fn interleave(versions: &[VersionView], events: &[TimelineEvent]) -> Vec<TimelineRow> {
    let mut keyed: Vec<(SortKey, TimelineRow)> = Vec::with_capacity(versions.len() + events.len());
    keyed.extend(
        versions
            .iter()
            .enumerate()
            .map(|(i, v)| ((v.at_ms, 0, i, ""), TimelineRow::Version(i))),
    );
    keyed.extend(
        events
            .iter()
            .enumerate()
            .map(|(i, e)| ((e.at_ms, 1, 0, e.name.as_str()), TimelineRow::Event(i))),
    );
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().rev().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn version(at_ms: i64, rv: &str) -> VersionView {
        VersionView {
            at_ms,
            delta: None,
            tombstone: false,
            resource_version: rv.into(),
            baseline: false,
            changes: Vec::new(),
        }
    }

    fn event(name: &str, data: Value) -> DynamicObject {
        let mut e: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": "shop"}
        }))
        .unwrap();
        e.data = data;
        e
    }

    fn at(name: &str, at_ms: i64) -> TimelineEvent {
        TimelineEvent {
            at_ms,
            kind: "Normal".into(),
            reason: "Pulled".into(),
            message: String::new(),
            count: 1,
            group: String::new(),
            namespace: Some("shop".into()),
            name: name.into(),
        }
    }

    #[test]
    fn versions_and_events_are_interleaved_newest_first_an_event_above_a_version_of_its_time() {
        let versions = [
            version(1_000, "1"),
            version(3_000, "2"),
            version(3_000, "3"),
        ];
        // Listed out of order: the timeline orders them by time, then name.
        let events = [
            at("b", 3_000),
            at("late", 9_000),
            at("a", 3_000),
            at("early", 500),
        ];
        use TimelineRow::*;
        assert_eq!(
            interleave(&versions, &events),
            vec![
                Event(1),   // late, 9 s
                Event(0),   // b, 3 s
                Event(2),   // a, 3 s
                Version(2), // rv 3, 3 s (recorded after rv 2)
                Version(1), // rv 2, 3 s
                Version(0), // rv 1, 1 s
                Event(3),   // early, 0.5 s
            ]
        );
        assert_eq!(
            interleave(&versions, &[]),
            vec![Version(2), Version(1), Version(0)]
        );
        assert_eq!(interleave(&[], &events[..1]), vec![Event(0)]);
    }

    #[test]
    fn an_events_time_is_the_latest_of_its_last_timestamp_event_time_and_series() {
        let e = |data| TimelineEvent::of(&event("e", data)).map(|e| e.at_ms);
        assert_eq!(
            e(
                json!({"lastTimestamp": "2026-11-28T10:00:05Z", "firstTimestamp": "2026-11-28T09:00:00Z"})
            ),
            Some(1_795_860_005_000)
        );
        assert_eq!(
            e(json!({
                "eventTime": "2026-11-28T10:00:01.500000Z",
                "series": {"count": 4, "lastObservedTime": "2026-11-28T10:00:09.000000Z"},
                "lastTimestamp": null
            })),
            Some(1_795_860_009_000)
        );
        assert_eq!(
            e(json!({"firstTimestamp": "2026-11-28T10:00:00Z"})),
            Some(1_795_860_000_000)
        );
        assert_eq!(e(json!({})), None);
    }

    #[test]
    fn an_event_line_has_its_type_reason_message_and_count() {
        let warning = TimelineEvent::of(&event(
            "web.1",
            json!({
                "type": "Warning", "reason": "BackOff",
                "message": " Back-off restarting failed container ",
                "count": 5, "lastTimestamp": "2026-11-28T10:00:05Z"
            }),
        ))
        .unwrap();
        assert!(warning.is_warning());
        assert_eq!(
            warning.summary(),
            "BackOff: Back-off restarting failed container ×5"
        );
        assert_eq!(warning.group, "");
        assert_eq!(warning.namespace.as_deref(), Some("shop"));
        let mut note: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "n", "namespace": "shop"},
            "eventTime": "2026-11-28T10:00:05.000000Z",
            "type": "Normal", "reason": "Scheduled", "note": "assigned"
        }))
        .unwrap();
        note.data["series"] =
            json!({"count": 1, "lastObservedTime": "2026-11-28T10:00:06.000000Z"});
        let note = TimelineEvent::of(&note).unwrap();
        assert!(!note.is_warning());
        assert_eq!(note.summary(), "Scheduled: assigned");
        assert_eq!(note.group, "events.k8s.io");
    }
}
