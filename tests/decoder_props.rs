//! Property tests for the parsers that read untrusted input: label and field selectors (typed by
//! the user) and the watch-event / list-page decoders (read from the API server).
//!
//! - no input (arbitrary bytes, selector-like strings, JSON of the right shape with wrong types)
//!   makes them panic;
//! - a selector that parses prints to a canonical form that parses back to the same selector;
//! - a malformed object inside an otherwise valid list page is skipped and counted while every
//!   other item decodes, in order; the same object in a watch event is `Malformed`, not an error;
//! - decoding through the dashboard's cache mask of any kind gives the same object as a full
//!   decode with the mask applied afterwards, for every object the full decode accepts.

use k8s_openapi::api::core::v1::Pod;
use kinformer::informer::list_watch::{WatchEvent, decode_list_page, decode_watch_line};
use kinformer::selector::{FieldSelector, LabelSelector};
use kube::api::DynamicObject;
use proptest::prelude::*;
use serde_json::{Value, json};

/// Any JSON value, nested a few levels.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        ".{0,12}".prop_map(Value::String),
        prop::sample::select(vec![
            "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR", "v1", "Pod", "Status", "",
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "metadata",
                    "name",
                    "namespace",
                    "resourceVersion",
                    "uid",
                    "labels",
                    "annotations",
                    "spec",
                    "status",
                    "containers",
                    "items",
                    "continue",
                    "remainingItemCount",
                    "code",
                    "reason",
                    "message",
                    "kind",
                    "apiVersion",
                    "type",
                    "object",
                ])
                .prop_map(str::to_string),
                inner,
                0..6,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A watch event envelope whose type is a real one (or not) and whose object is anything.
fn arb_event_line() -> impl Strategy<Value = String> {
    (
        prop_oneof![
            prop::sample::select(vec!["ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"])
                .prop_map(|s| json!(s)),
            arb_json(),
        ],
        arb_json(),
        any::<bool>(),
    )
        .prop_map(|(ty, object, with_object)| {
            if with_object {
                json!({"type": ty, "object": object}).to_string()
            } else {
                json!({"type": ty}).to_string()
            }
        })
}

/// A list envelope with any metadata and any items.
fn arb_list_body() -> impl Strategy<Value = String> {
    (
        arb_json(),
        prop_oneof![
            prop::collection::vec(arb_json(), 0..6).prop_map(Value::Array),
            arb_json()
        ],
    )
        .prop_map(|(metadata, items)| {
            json!({"apiVersion": "v1", "kind": "PodList", "metadata": metadata, "items": items})
                .to_string()
        })
}

fn pod(i: usize) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": format!("p{i}"), "namespace": "ns", "resourceVersion": format!("{}", 10 + i)},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}

/// Objects a `Pod` cannot be decoded from.
fn malformed_pod() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(42)),
        Just(json!("a string")),
        Just(json!([1, 2])),
        Just(json!({"metadata": {"name": 7}})),
        Just(json!({"metadata": "not an object"})),
        Just(json!({"metadata": {"name": "x", "labels": {"a": 1}}})),
        Just(json!({"metadata": {"name": "x"}, "spec": {"containers": "nope"}})),
        Just(json!({"metadata": {"name": "x", "resourceVersion": 5}})),
    ]
}

/// Selector-like text: mostly the selector alphabet, so the parser gets deep.
fn selector_like() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a",
            "b",
            "app",
            "tier",
            "x.io/",
            "k8s.io/name",
            "=",
            "==",
            "!=",
            "!",
            ",",
            " ",
            "in",
            "notin",
            "(",
            ")",
            ">",
            "<",
            "1",
            "-",
            "_",
            ".",
            "/",
            "\\",
            "é",
            "\u{0}",
            "63",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        ]),
        0..16,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn masked_decoding_equals_full_decoding_then_mask(
        v in arb_json(),
        kind in prop::sample::select(vec![
            "Pod", "Deployment", "DaemonSet", "Job", "Service", "ConfigMap", "Secret", "Node",
            "Namespace", "ServiceAccount", "CustomResourceDefinition", "Widget",
        ]),
    ) {
        use kinformer::informer::decode::{decode_dynamic, decode_dynamic_masked};
        let text = v.to_string();
        let mask = kinformer::render::cache_mask(kind);
        if let Ok(mut full) = decode_dynamic(&text) {
            mask.apply(&mut full);
            let masked = decode_dynamic_masked(&text, &mask);
            prop_assert_eq!(masked.ok(), Some(full));
        }
    }

    #[test]
    fn decoders_never_panic_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = decode_watch_line::<Pod>(&text);
        let _ = decode_watch_line::<DynamicObject>(&text);
        let _ = decode_list_page::<Pod>(&text);
        let _ = decode_list_page::<DynamicObject>(&text);
    }

    #[test]
    fn watch_decoder_never_panics_and_never_yields_an_object_from_garbage(line in arb_event_line()) {
        match decode_watch_line::<Pod>(&line) {
            // A decoded Pod must really be one (it carried an object that decodes as a Pod).
            Some(WatchEvent::Added(p) | WatchEvent::Modified(p) | WatchEvent::Deleted(p)) => {
                let v: Value = serde_json::from_str(&line).unwrap();
                let back: Result<Pod, _> = serde_json::from_value(v["object"].clone());
                prop_assert_eq!(back.ok(), Some(p));
            }
            Some(_) => {}
            None => prop_assert!(line.trim().is_empty()),
        }
        let _ = decode_watch_line::<DynamicObject>(&line);
    }

    #[test]
    fn list_decoder_never_panics_on_json_of_the_wrong_shape(body in arb_list_body()) {
        let _ = decode_list_page::<Pod>(&body);
        if let Ok(page) = decode_list_page::<DynamicObject>(&body) {
            prop_assert!(page.items.len() + page.malformed <= 6);
        }
    }

    #[test]
    fn malformed_object_in_a_list_page_is_skipped_and_counted(
        good in 0usize..8,
        bad in prop::collection::vec((malformed_pod(), any::<prop::sample::Index>()), 1..4),
    ) {
        let mut items: Vec<Value> = (0..good).map(pod).collect();
        for (obj, at) in &bad {
            let pos = at.index(items.len() + 1);
            items.insert(pos, obj.clone());
        }
        let body = json!({"apiVersion": "v1", "kind": "PodList",
            "metadata": {"resourceVersion": "99", "continue": "tok"}, "items": items}).to_string();
        let page = decode_list_page::<Pod>(&body).unwrap();
        prop_assert_eq!(page.malformed, bad.len());
        let names: Vec<String> = page.items.iter().filter_map(|p| p.metadata.name.clone()).collect();
        let want: Vec<String> = (0..good).map(|i| format!("p{i}")).collect();
        prop_assert_eq!(names, want);
        prop_assert_eq!(page.resource_version, "99");
        prop_assert_eq!(page.continue_token.as_deref(), Some("tok"));
    }

    #[test]
    fn malformed_object_in_a_watch_event_is_malformed_not_fatal(
        obj in malformed_pod(),
        ty in prop::sample::select(vec!["ADDED", "MODIFIED", "DELETED"]),
    ) {
        let line = json!({"type": ty, "object": obj}).to_string();
        let ev = decode_watch_line::<Pod>(&line);
        prop_assert!(matches!(ev, Some(WatchEvent::Malformed(_))), "{:?}", ev);
    }

    #[test]
    fn label_selector_parser_never_panics_on_arbitrary_text(s in ".{0,64}") {
        let _ = LabelSelector::parse(&s);
        let _ = FieldSelector::parse(&s);
    }

    #[test]
    fn label_selector_that_parses_round_trips_through_its_canonical_form(s in selector_like()) {
        if let Ok(sel) = LabelSelector::parse(&s) {
            let printed = sel.to_string();
            let again = LabelSelector::parse(&printed);
            prop_assert_eq!(again.as_ref().ok(), Some(&sel), "{:?} printed as {:?}", s, printed);
        }
        if let Ok(sel) = FieldSelector::parse(&s) {
            let printed = sel.to_string();
            let again = FieldSelector::parse(&printed);
            prop_assert_eq!(again.as_ref().ok(), Some(&sel), "{:?} printed as {:?}", s, printed);
        }
    }

    #[test]
    fn equality_label_selectors_of_valid_keys_and_values_parse(
        reqs in prop::collection::vec(
            ("[a-z]([a-z0-9-]{0,10}[a-z0-9])?".prop_filter("`in` and `notin` are operators, not keys (apimachinery's lexer)", |k| k != "in" && k != "notin"), prop::sample::select(vec!["=", "==", "!="]), "([A-Za-z0-9]([A-Za-z0-9_.-]{0,10}[A-Za-z0-9])?)?"),
            1..5,
        )
    ) {
        let s = reqs.iter().map(|(k, op, v)| format!("{k}{op}{v}")).collect::<Vec<_>>().join(",");
        let sel = LabelSelector::parse(&s);
        prop_assert!(sel.is_ok(), "{:?}: {:?}", s, sel);
    }
}
