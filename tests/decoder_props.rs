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
//!
//! And for every hand-written decoder of server (or client) bytes — the streaming JSON list
//! splitter, the protobuf list decoder, reader and schema tables, length-prefixed protobuf watch
//! frames, `Status` bodies, the log line splitter, the demo server's SPDY framing and port-forward
//! session, and its patch bodies — fed arbitrary bytes and mutations of valid bodies (truncated,
//! bits flipped, bytes overwritten, a huge length prefix spliced in), cut into arbitrary chunks:
//! - no panic; a failure is an `Err` that names what was malformed;
//! - nothing is allocated in proportion to a length the bytes merely claim: a 4 GB (or
//!   2⁶⁴ − 1) length prefix allocates nothing before its bytes exist. This binary's global
//!   allocator records the largest single allocation of the test's thread, so those tests fail
//!   (rather than abort) if a decoder reserves what a prefix claims.
//!
//! CI runs each property with the case count in its `ProptestConfig` (a few seconds each). A
//! longer run overrides it for every property:
//! `PROPTEST_CASES=10000 cargo test --test decoder_props`. Run so when the decoder properties
//! were added, in a debug build on 2 shared cores: 10,000 cases per property (112 s) and
//! 50,000 (32 min at `nice 19`), no failure. The two defects found while writing them (a
//! protobuf list item's length near 2⁶⁴ overflowing, a SPDY header block inflating without
//! limit) are fixed and pinned by the `a_*` tests below. The `Status` body property (failed
//! answers, `failed_answer::error_of_body`) was added later and run at 20,000 cases (1 s), no
//! failure; writing it made a non-`Status` body (a proxy's HTML page) one short line.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

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
    #![proptest_config(ProptestConfig { cases: cases(512), ..ProptestConfig::default() })]

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

/// The case count for a property: `PROPTEST_CASES` when set (a longer run), else `ci`.
fn cases(ci: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ci)
}

// ---------------------------------------------------------------------------------------------
// Allocation bound: the largest single allocation made by the current thread.
// ---------------------------------------------------------------------------------------------

struct LargestAllocation;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| {
        if size > l.get() {
            l.set(size);
        }
    });
}

// SAFETY: every call is forwarded to `System` unchanged; only the size is noted.
unsafe impl GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// Runs `f` and returns its result with the largest single allocation it made.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    let out = f();
    (out, LARGEST.with(Cell::get))
}

/// What "allocates nothing in proportion to the claim" means here: far below the 4 GB claimed,
/// and below the input's own size times a small factor.
const SMALL: usize = 1 << 20;

// ---------------------------------------------------------------------------------------------
// Fixtures and mutations
// ---------------------------------------------------------------------------------------------

use kinformer::demo::spdy::{Frame, Framer, MAX_HEADER_BLOCK, PortForwardSession};
use kinformer::informer::Error;
use kinformer::informer::decode::ObjectMask;
use kinformer::informer::list_body::{JsonListDecoder, ListBodyDecoder, ListMeta};
use kinformer::informer::pb::{
    self, FrameSplitter, MAGIC, ProtoListDecoder, decode_object, decode_status, decode_watch_frame,
    dynamic_item_decoder, encode_list, encode_object, envelope, schema, unwrap_envelope,
    watch_frame,
};
use kinformer::runtime::log_stream::{LineSplitter, MAX_LINE_BYTES};

fn pb_pod(i: usize) -> Vec<u8> {
    encode_object(&pod(i), &schema::POD).unwrap()
}

/// A protobuf `PodList` body of `n` pods, as an API server sends it.
fn pb_list_body(n: usize) -> Vec<u8> {
    let items: Vec<Vec<u8>> = (0..n).map(pb_pod).collect();
    let meta = ListMeta {
        resource_version: Some("99".into()),
        continue_token: Some("tok".into()),
        remaining_item_count: Some(3),
    };
    envelope("v1", "PodList", &encode_list(&meta, &items))
}

/// A protobuf watch stream: `n` ADDED frames and an ERROR frame with a `Status`.
fn pb_watch_stream(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..n {
        out.extend(watch_frame("ADDED", &envelope("v1", "Pod", &pb_pod(i))));
    }
    let mut st = Vec::new();
    pb::put_bytes(&mut st, 2, b"Failure");
    pb::put_bytes(&mut st, 3, b"too old resource version: 1 (5)");
    pb::put_bytes(&mut st, 4, b"Expired");
    out.extend(watch_frame("ERROR", &envelope("v1", "Status", &st)));
    out
}

fn json_list_body(n: usize) -> Vec<u8> {
    let items: Vec<Value> = (0..n).map(pod).collect();
    json!({"apiVersion": "v1", "kind": "PodList",
        "metadata": {"resourceVersion": "99", "continue": "tok"}, "items": items})
    .to_string()
    .into_bytes()
}

/// A varint of `v`.
fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// One way to damage a valid body.
#[derive(Debug, Clone)]
enum Mutation {
    /// Cut the body at this fraction of its length.
    Truncate(prop::sample::Index),
    /// Flip one bit.
    FlipBit(prop::sample::Index, u8),
    /// Overwrite bytes from a position.
    Overwrite(prop::sample::Index, Vec<u8>),
    /// Insert a huge length (a 4-byte big-endian u32 and a protobuf varint) at a position.
    HugeLength(prop::sample::Index, u64),
    /// Delete a range.
    Delete(prop::sample::Index, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        (any::<prop::sample::Index>(), 0u8..8).prop_map(|(i, b)| Mutation::FlipBit(i, b)),
        (
            any::<prop::sample::Index>(),
            prop::collection::vec(any::<u8>(), 1..8)
        )
            .prop_map(|(i, b)| Mutation::Overwrite(i, b)),
        (
            any::<prop::sample::Index>(),
            prop_oneof![
                Just(u64::from(u32::MAX)),
                Just(u64::MAX),
                Just(1u64 << 32),
                Just(64 << 20),
                any::<u64>()
            ]
        )
            .prop_map(|(i, n)| Mutation::HugeLength(i, n)),
        (any::<prop::sample::Index>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
    ]
}

fn mutate(body: &mut Vec<u8>, m: &Mutation) {
    if body.is_empty() {
        return;
    }
    match m {
        Mutation::Truncate(i) => body.truncate(i.index(body.len())),
        Mutation::FlipBit(i, b) => {
            let at = i.index(body.len());
            body[at] ^= 1 << b;
        }
        Mutation::Overwrite(i, bytes) => {
            let at = i.index(body.len());
            for (k, b) in bytes.iter().enumerate() {
                if let Some(x) = body.get_mut(at + k) {
                    *x = *b;
                }
            }
        }
        Mutation::HugeLength(i, n) => {
            let at = i.index(body.len() + 1);
            let mut ins = (*n as u32).to_be_bytes().to_vec();
            if *n > u64::from(u32::MAX) {
                ins = u32::MAX.to_be_bytes().to_vec();
            }
            ins.extend(varint(*n));
            body.splice(at..at, ins);
        }
        Mutation::Delete(i, n) => {
            let at = i.index(body.len());
            let end = (at + n).min(body.len());
            body.drain(at..end);
        }
    }
}

/// A body cut into chunks at the given fractions.
fn chunks(body: &[u8], cuts: &[prop::sample::Index]) -> Vec<Vec<u8>> {
    let mut at: Vec<usize> = cuts.iter().map(|c| c.index(body.len() + 1)).collect();
    at.push(0);
    at.push(body.len());
    at.sort_unstable();
    at.windows(2).map(|w| body[w[0]..w[1]].to_vec()).collect()
}

/// Everything a list decoder made of a chunked body: items, then the finish (or first error).
fn run_list<K>(
    dec: &mut dyn ListBodyDecoder<K>,
    parts: &[Vec<u8>],
) -> (Vec<K>, Result<(ListMeta, usize), Error>) {
    let mut items = Vec::new();
    for part in parts {
        if let Err(e) = dec.feed(part, &mut |k| items.push(k)) {
            return (items, Err(e));
        }
    }
    let end = dec.finish();
    (items, end)
}

fn pb_list_decoder() -> ProtoListDecoder<DynamicObject> {
    ProtoListDecoder::new(dynamic_item_decoder(&schema::POD, ObjectMask::ALL))
}

fn json_list_decoder() -> JsonListDecoder<DynamicObject> {
    JsonListDecoder::new(std::sync::Arc::new(|s: &str| serde_json::from_str(s)))
}

/// Every frame of a protobuf watch stream through the whole client path: frame → event →
/// envelope → object or `Status`.
fn run_watch_frames(parts: &[Vec<u8>]) -> Result<usize, Error> {
    let mut splitter = FrameSplitter::default();
    let mut frames = 0;
    for part in parts {
        splitter.feed(part, &mut |frame| {
            frames += 1;
            let Ok((kind, object)) = decode_watch_frame(frame) else {
                return;
            };
            let Ok((types, raw)) = unwrap_envelope(object) else {
                return;
            };
            if kind == "ERROR" {
                let _ = decode_status(raw);
            } else {
                let _ = decode_object(raw, &schema::POD, &ObjectMask::ALL, Some(types));
            }
        })?;
    }
    Ok(frames)
}

/// A SPDY connection's bytes through the demo server's framer and its port-forward session.
fn run_spdy(parts: &[Vec<u8>]) {
    let mut framer = Framer::new();
    let mut session = PortForwardSession::new(
        "ns".into(),
        "pod".into(),
        vec![(8080, "web".into(), "TCP".into())],
    );
    let mut session_ok = true;
    for part in parts {
        framer.push(part);
        while let Ok(Some(_)) = framer.next_frame() {}
        if session_ok {
            session_ok = session.feed(part).is_ok();
        }
    }
}

/// A client's SPDY opening: a SYN_STREAM with headers, then data.
fn spdy_client_bytes() -> Vec<u8> {
    let mut client = Framer::new();
    let mut out = Vec::new();
    for (stream, ty) in [(1, "error"), (3, "data")] {
        let headers = vec![
            ("streamtype".to_string(), ty.to_string()),
            ("port".to_string(), "8080".to_string()),
            ("requestid".to_string(), "0".to_string()),
        ];
        out.extend(
            client
                .encode(&Frame::SynStream {
                    stream,
                    associated: 0,
                    priority: 0,
                    flags: 0,
                    headers,
                })
                .unwrap(),
        );
    }
    out.extend(
        client
            .encode(&Frame::Data {
                stream: 3,
                flags: 0,
                data: b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            })
            .unwrap(),
    );
    out
}

fn split_lines(parts: &[Vec<u8>]) -> Vec<String> {
    let mut s = LineSplitter::default();
    let mut lines = Vec::new();
    for p in parts {
        s.push(p, &mut |l| lines.push(l));
    }
    lines
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    #[test]
    fn protobuf_list_decoder_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
        magic in any::<bool>(),
    ) {
        let mut body = if magic { MAGIC.to_vec() } else { Vec::new() };
        body.extend(bytes);
        let _ = run_list(&mut pb_list_decoder(), &chunks(&body, &cuts));
    }

    #[test]
    fn protobuf_list_decoder_never_panics_on_damaged_lists(
        n in 0usize..4,
        damage in prop::collection::vec(mutation(), 1..4),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let mut body = pb_list_body(n);
        for m in &damage {
            mutate(&mut body, m);
        }
        let ((items, end), largest) =
            largest_allocation(|| run_list(&mut pb_list_decoder(), &chunks(&body, &cuts)));
        prop_assert!(items.len() <= n + 1);
        if let Err(e) = &end {
            prop_assert!(e.to_string().contains("protobuf"), "{}", e);
        }
        prop_assert!(largest < SMALL, "{} bytes allocated for a {}-byte body", largest, body.len());
    }

    #[test]
    fn protobuf_list_items_are_the_same_whatever_the_chunking(
        n in 0usize..5,
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let body = pb_list_body(n);
        let (whole, end) = run_list(&mut pb_list_decoder(), std::slice::from_ref(&body));
        let (cut, end2) = run_list(&mut pb_list_decoder(), &chunks(&body, &cuts));
        prop_assert_eq!(whole.len(), n);
        prop_assert_eq!(&whole, &cut);
        prop_assert_eq!(end.ok(), end2.ok());
    }

    #[test]
    fn protobuf_watch_frames_never_panic_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let _ = run_watch_frames(&chunks(&bytes, &cuts));
    }

    #[test]
    fn protobuf_watch_frames_never_panic_on_damaged_streams(
        n in 0usize..3,
        damage in prop::collection::vec(mutation(), 1..4),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let mut body = pb_watch_stream(n);
        for m in &damage {
            mutate(&mut body, m);
        }
        let (r, largest) = largest_allocation(|| run_watch_frames(&chunks(&body, &cuts)));
        if let Err(e) = r {
            prop_assert!(e.to_string().contains("watch frame"), "{}", e);
        }
        prop_assert!(largest < SMALL, "{} bytes allocated for a {}-byte stream", largest, body.len());
    }

    #[test]
    fn protobuf_object_and_status_decoders_never_panic_on_damaged_messages(
        i in 0usize..4,
        damage in prop::collection::vec(mutation(), 1..4),
        kind in prop::sample::select(vec![
            ("v1", "Pod"), ("v1", "ConfigMap"), ("v1", "Node"), ("v1", "Service"), ("v1", "Secret"),
            ("v1", "Event"), ("apps/v1", "Deployment"), ("apps/v1", "DaemonSet"), ("batch/v1", "Job"),
            ("v1", "Namespace"), ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ]),
    ) {
        let mut raw = pb_pod(i);
        for m in &damage {
            mutate(&mut raw, m);
        }
        if let Some(msg) = schema::kind(kind.0, kind.1) {
            let (_, largest) = largest_allocation(|| decode_object(&raw, msg, &ObjectMask::ALL, None));
            prop_assert!(largest < SMALL);
        }
        let _ = decode_status(&raw);
        let _ = unwrap_envelope(&raw);
    }

    #[test]
    fn protobuf_decoders_never_panic_on_arbitrary_messages_of_any_kind(
        raw in prop::collection::vec(any::<u8>(), 0..256),
        kind in prop::sample::select(vec![
            ("v1", "Pod"), ("v1", "ConfigMap"), ("v1", "Node"), ("v1", "Service"), ("v1", "Secret"),
            ("v1", "Event"), ("apps/v1", "Deployment"), ("apps/v1", "ReplicaSet"),
            ("apps/v1", "StatefulSet"), ("batch/v1", "CronJob"), ("v1", "PersistentVolume"),
            ("apiextensions.k8s.io/v1", "CustomResourceDefinition"),
        ]),
    ) {
        if let Some(msg) = schema::kind(kind.0, kind.1) {
            let _ = decode_object(&raw, msg, &ObjectMask::ALL, None);
        }
        let _ = decode_status(&raw);
    }

    #[test]
    fn json_list_decoder_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let _ = run_list(&mut json_list_decoder(), &chunks(&bytes, &cuts));
    }

    #[test]
    fn json_list_decoder_never_panics_on_damaged_lists(
        n in 0usize..4,
        damage in prop::collection::vec(mutation(), 1..4),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let mut body = json_list_body(n);
        for m in &damage {
            mutate(&mut body, m);
        }
        let (items, end) = run_list(&mut json_list_decoder(), &chunks(&body, &cuts));
        prop_assert!(items.len() <= n + 1);
        if let Err(e) = end {
            prop_assert!(e.to_string().contains("list body"), "{}", e);
        }
    }

    #[test]
    fn json_list_items_are_the_same_whatever_the_chunking(
        n in 0usize..5,
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
    ) {
        let body = json_list_body(n);
        let (whole, end) = run_list(&mut json_list_decoder(), std::slice::from_ref(&body));
        let (cut, end2) = run_list(&mut json_list_decoder(), &chunks(&body, &cuts));
        prop_assert_eq!(whole.len(), n);
        prop_assert_eq!(&whole, &cut);
        prop_assert_eq!(end.ok(), end2.ok());
    }

    #[test]
    fn log_lines_are_the_same_whatever_the_chunking_and_never_longer_than_the_cap(
        body in prop::collection::vec(prop_oneof![Just(b'\n'), Just(b'\r'), Just(b'a'), any::<u8>()], 0..2048),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        long in prop::option::of(MAX_LINE_BYTES - 4..MAX_LINE_BYTES + 64),
    ) {
        let mut body = body;
        if let Some(n) = long {
            body.splice(0..0, std::iter::repeat_n(b'x', n));
        }
        let whole = split_lines(&[body.clone()]);
        let cut = split_lines(&chunks(&body, &cuts));
        prop_assert_eq!(&whole, &cut);
        prop_assert_eq!(whole.len(), body.iter().filter(|b| **b == b'\n').count());
        for line in &whole {
            // The cap (as text: invalid bytes become U+FFFD, three bytes each) and the note.
            prop_assert!(line.len() <= 3 * MAX_LINE_BYTES + 64, "{}", line.len());
        }
    }

    #[test]
    fn spdy_framing_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        run_spdy(&chunks(&bytes, &cuts));
    }

    #[test]
    fn spdy_framing_never_panics_on_damaged_client_streams(
        damage in prop::collection::vec(mutation(), 1..4),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..4),
    ) {
        let mut body = spdy_client_bytes();
        for m in &damage {
            mutate(&mut body, m);
        }
        let ((), largest) = largest_allocation(|| run_spdy(&chunks(&body, &cuts)));
        prop_assert!(largest < 16 << 20);
    }

    #[test]
    fn demo_patches_never_panic_on_any_json(
        target in arb_json(),
        patch in arb_json(),
        ops in prop::collection::vec((
            prop::sample::select(vec!["add", "remove", "replace", "move", "copy", "test", "bogus"]),
            prop::sample::select(vec!["", "/", "/metadata", "/metadata/labels/a", "/spec/containers/0",
                "/spec/containers/-", "/items/99999999999999999999", "/a~1b", "/a~2", "/items/-1"]),
            arb_json(),
        ), 0..4),
    ) {
        use kinformer::demo::patch::{PatchType, apply};
        for kind in [PatchType::Merge, PatchType::Strategic, PatchType::Json] {
            let mut t = target.clone();
            let _ = apply(kind, &mut t, &patch);
        }
        let json_patch: Vec<Value> = ops
            .into_iter()
            .map(|(op, path, value)| json!({"op": op, "path": path, "from": path, "value": value}))
            .collect();
        let mut t = target.clone();
        let _ = apply(PatchType::Json, &mut t, &Value::Array(json_patch));
    }
}

// ---------------------------------------------------------------------------------------------
// A length prefix claiming gigabytes allocates nothing (each would abort with an OOM, or fail
// the bound, if the decoder reserved what the prefix claims).
// ---------------------------------------------------------------------------------------------

#[test]
fn a_4_gb_watch_frame_prefix_is_refused_at_once_and_allocates_nothing() {
    let mut stream = u32::MAX.to_be_bytes().to_vec();
    stream.extend_from_slice(b"\x0a\x05ADDED");
    let (r, largest) = largest_allocation(|| run_watch_frames(&[stream]));
    let err = r.unwrap_err().to_string();
    assert!(err.contains("watch frame of 4294967295 bytes"), "{err}");
    assert!(largest < 4096, "{largest}");
}

#[test]
fn a_60_mb_watch_frame_prefix_waits_for_its_bytes_without_reserving_them() {
    let mut stream = (60u32 << 20).to_be_bytes().to_vec();
    stream.extend_from_slice(&[0x0a; 100]);
    let (r, largest) = largest_allocation(|| run_watch_frames(&[stream]));
    assert_eq!(r.unwrap(), 0);
    assert!(largest < 4096, "{largest}");
}

#[test]
fn a_protobuf_list_item_claiming_more_than_its_list_is_refused_before_its_bytes_arrive() {
    // The list message claims 100 bytes; its first item claims 2^64 - 1.
    let mut list = vec![0x12];
    list.extend(varint(u64::MAX));
    let mut body = MAGIC.to_vec();
    body.push(0x12);
    body.extend(varint(100));
    body.extend(list);
    let ((_, end), largest) = largest_allocation(|| run_list(&mut pb_list_decoder(), &[body]));
    let err = end.unwrap_err().to_string();
    assert!(err.contains("protobuf"), "{err}");
    assert!(err.contains("18446744073709551615"), "{err}");
    assert!(largest < 4096, "{largest}");
}

#[test]
fn a_protobuf_list_claiming_4_gb_waits_for_its_items_without_reserving_them() {
    let mut body = MAGIC.to_vec();
    body.push(0x12);
    body.extend(varint(u64::from(u32::MAX)));
    body.push(0x12);
    body.extend(varint(1 << 31));
    body.extend_from_slice(&[0u8; 64]);
    let ((items, end), largest) = largest_allocation(|| run_list(&mut pb_list_decoder(), &[body]));
    assert!(items.is_empty());
    assert!(
        end.unwrap_err()
            .to_string()
            .contains("ended before the list was complete")
    );
    assert!(largest < 4096, "{largest}");
}

#[test]
fn a_protobuf_field_claiming_4_gb_is_refused_and_allocates_nothing() {
    let mut raw = vec![0x0a];
    raw.extend(varint(u64::from(u32::MAX)));
    raw.extend_from_slice(b"short");
    let (r, largest) =
        largest_allocation(|| decode_object(&raw, &schema::POD, &ObjectMask::ALL, None));
    let err = r.unwrap_err().to_string();
    assert!(err.contains("field longer than its message"), "{err}");
    assert!(largest < 4096, "{largest}");
    assert!(matches!(decode_status(&raw), Error::Decode(_)));
}

#[test]
fn a_spdy_header_block_claiming_4_gb_of_headers_is_refused_and_allocates_nothing() {
    use kinformer::demo::spdy::parse_header_block;
    let mut raw = u32::MAX.to_be_bytes().to_vec();
    raw.extend(u32::MAX.to_be_bytes());
    raw.extend_from_slice(b"name");
    let (r, largest) = largest_allocation(|| parse_header_block(&raw));
    assert!(
        r.unwrap_err()
            .to_string()
            .contains("header block truncated")
    );
    assert!(largest < 4096, "{largest}");
}

#[test]
fn a_spdy_header_block_that_inflates_past_the_cap_is_refused_at_the_cap() {
    // 8 MB of header value deflates to a few kilobytes: a decompression bomb for a server that
    // inflates whatever arrives.
    let mut client = Framer::new();
    let bomb = client
        .encode(&Frame::SynStream {
            stream: 1,
            associated: 0,
            priority: 0,
            flags: 0,
            headers: vec![("x".into(), "a".repeat(8 << 20))],
        })
        .unwrap();
    assert!(bomb.len() < 64 << 10, "{}", bomb.len());
    let mut server = Framer::new();
    server.push(&bomb);
    let (r, largest) = largest_allocation(|| server.next_frame());
    let err = r.unwrap_err().to_string();
    assert!(err.contains("header block inflates past"), "{err}");
    assert!(largest < 2 * MAX_HEADER_BLOCK, "{largest}");
}

#[test]
fn a_log_line_of_100_mb_keeps_only_the_cap() {
    let mut s = LineSplitter::default();
    let chunk = vec![b'x'; 1 << 20];
    let mut lines = Vec::new();
    let ((), largest) = largest_allocation(|| {
        for _ in 0..100 {
            s.push(&chunk, &mut |l| lines.push(l));
        }
        s.push(b"\n", &mut |l| lines.push(l));
    });
    assert_eq!(lines.len(), 1);
    assert!(lines[0].ends_with(&format!(
        " … [{} more bytes cut]",
        100 * (1 << 20) - MAX_LINE_BYTES
    )));
    assert!(largest < 2 << 20, "{largest}");
}

// ---------------------------------------------------------------------------------------------
// `Status` bodies of failed answers (kinformer::informer::failed_answer)
// ---------------------------------------------------------------------------------------------

use kinformer::informer::failed_answer::{MAX_TEXT_MESSAGE, error_of_body};
use kinformer::informer::list_watch::classify_status;

/// A `Status` as kube-apiserver writes it, in JSON or in its protobuf envelope.
fn status_body(code: u16, reason: &str, message: &str, proto: bool) -> Vec<u8> {
    let status = json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                        "status": "Failure", "message": message, "reason": reason,
                        "details": {"retryAfterSeconds": 1}, "code": code});
    if proto {
        envelope(
            "v1",
            "Status",
            &encode_object(&status, &schema::STATUS).unwrap(),
        )
    } else {
        status.to_string().into_bytes()
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(256), ..ProptestConfig::default() })]

    /// Whatever a failed answer's body is — a valid `Status` in either encoding, one damaged,
    /// arbitrary bytes, a proxy's text — it becomes an error without a panic or a large
    /// allocation; an intact `Status` is classified by its own code and reason; anything else
    /// keeps the HTTP code, and its text is one short line.
    #[test]
    fn status_bodies_become_one_clear_error_in_either_encoding(
        http_code in 400u16..600,
        code in prop::sample::select(vec![400u16, 403, 404, 410, 422, 429, 500, 503, 504]),
        reason in prop::sample::select(vec![
            "BadRequest", "Forbidden", "NotFound", "Expired", "Gone", "Invalid", "TooManyRequests",
            "InternalError", "StorageReadError", "ServiceUnavailable", "Timeout", "",
        ]),
        message in ".{0,40}",
        proto in any::<bool>(),
        damage in prop::collection::vec(mutation(), 0..3),
        garbage in prop::option::of(prop::collection::vec(any::<u8>(), 0..512)),
    ) {
        let status = http::StatusCode::from_u16(http_code).unwrap();
        let mut body = match &garbage {
            Some(g) => g.clone(),
            None => status_body(code, reason, &message, proto),
        };
        for m in &damage {
            mutate(&mut body, m);
        }
        let (err, largest) = largest_allocation(|| error_of_body(status, proto, &body));
        prop_assert!(largest < SMALL, "{} bytes allocated for a {}-byte body", largest, body.len());
        prop_assert!(!err.to_string().is_empty());
        if garbage.is_none() && damage.is_empty() {
            prop_assert_eq!(err, classify_status(code, reason, &message));
        } else if let Error::Api { code: c, message: m, .. } = &err
            && *c == http_code
            && !body.starts_with(b"{")
            && !body.starts_with(MAGIC)
        {
            // A body that was no Status: the HTTP code and its text, on one line.
            prop_assert!(!m.contains('\n') && m.chars().count() <= MAX_TEXT_MESSAGE + 1, "{:?}", m);
        }
    }
}
