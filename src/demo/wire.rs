//! Protobuf answers (`application/vnd.kubernetes.protobuf`) for list, watch and get of the
//! built-in kinds that have a table in [`crate::informer::pb::schema`], as kube-apiserver gives
//! them to a client that asks for protobuf first (client-go's typed clients, kinformer).
//!
//! Negotiation as the API server does it: the first media range of `Accept` that the server can
//! serve wins, so `application/vnd.kubernetes.protobuf, application/json` gets protobuf and
//! `application/json;as=Table;...` (kubectl get) gets JSON. Kinds without a table (and objects
//! with a field the table lacks) are answered in JSON, which every client accepts.
//! Errors are negotiated as kube-apiserver negotiates them (`responsewriters.ErrorNegotiated`):
//! a client that asked for protobuf first gets its `Status` (error answers and watch ERROR
//! events) as a protobuf `v1 Status` in the `k8s\0` envelope, any other client JSON.

use crate::informer::wire_values as wv;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::cluster::Stored;
use super::error::StatusError;
use super::resources::ResourceInfo;
use crate::informer::list_body::ListMeta;
use crate::informer::pb::{self, PROTOBUF, schema::Msg};

/// Whether the first media range of `Accept` is plain protobuf (no `as=Table` or other
/// parameters): what a typed client (client-go, kubectl's create/describe, kinformer) asks.
pub fn asks_protobuf_first(headers: &HeaderMap) -> bool {
    let Some(first) = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .find(|r| !r.is_empty())
    else {
        return false;
    };
    let mut parts = first.split(';').map(str::trim);
    parts.next() == Some(PROTOBUF) && parts.next().is_none()
}

/// The protobuf table to answer with, if the client asked for protobuf first and the kind has one.
pub fn negotiate(headers: &HeaderMap, info: &ResourceInfo) -> Option<&'static Msg> {
    if !asks_protobuf_first(headers) {
        return None;
    }
    pb::schema::kind(&info.api_version(), info.kind)
}

/// A `v1 Status` as protobuf: the `k8s\0` envelope around its message. Details the table does
/// not know (none today) are left out rather than the whole answer turning into JSON.
pub fn status_envelope(e: &StatusError) -> Vec<u8> {
    let mut status = e.to_status();
    if let Some(m) = status.as_object_mut() {
        m.remove("kind");
        m.remove("apiVersion");
    }
    let empty = serde_json::Map::new();
    let raw = pb::encode_msg(status.as_object().unwrap_or(&empty), &pb::schema::STATUS)
        .or_else(|_| {
            let slim = json!({"metadata": {}, "status": wv::STATUS_FAILURE, "message": e.message,
                              "reason": e.reason, "code": e.code});
            pb::encode_msg(slim.as_object().unwrap_or(&empty), &pb::schema::STATUS)
        })
        .unwrap_or_default();
    pb::envelope("v1", "Status", &raw)
}

/// An error answer in protobuf (status code, `Content-Type`, the `Status` envelope).
pub fn status_response(code: StatusCode, e: &StatusError) -> Response {
    (
        code,
        [
            (header::CONTENT_TYPE, PROTOBUF),
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        status_envelope(e),
    )
        .into_response()
}

/// The stored object's message, encoded once.
pub fn encoded(s: &Stored, msg: &'static Msg) -> Option<Bytes> {
    s.proto
        .get_or_init(|| {
            let v: Value = serde_json::from_slice(&s.bytes).ok()?;
            match pb::encode_object(&v, msg) {
                Ok(b) => Some(Bytes::from(b)),
                Err(field) => {
                    tracing::debug!(%field, object = %s.key, "no protobuf for this object; answering JSON");
                    None
                }
            }
        })
        .clone()
}

fn proto_response(stream_or_body: Body) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, PROTOBUF),
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        stream_or_body,
    )
        .into_response()
}

/// One object (GET), or `None` when it cannot be said in protobuf.
pub fn single(info: &ResourceInfo, s: &Stored, msg: &'static Msg) -> Option<Response> {
    let raw = encoded(s, msg)?;
    Some(proto_response(Body::from(pb::envelope(
        &info.api_version(),
        info.kind,
        &raw,
    ))))
}

fn varint_len(mut v: u64) -> u64 {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// A list (`k8s\0` + `Unknown{typeMeta, raw: XxxList}`), streamed item by item no faster than
/// `send_rate` bytes per second (0: unlimited; see [`super::faults::FaultInjector::set_send_rates`]);
/// `None` when an item cannot be said in protobuf (the caller answers JSON).
pub fn list(
    info: &ResourceInfo,
    msg: &'static Msg,
    rv: u64,
    continue_token: Option<String>,
    remaining: Option<usize>,
    items: Vec<Arc<Stored>>,
    send_rate: u64,
) -> Option<Response> {
    let encoded: Vec<Bytes> = items
        .iter()
        .map(|s| encoded(s, msg))
        .collect::<Option<_>>()?;
    let meta = ListMeta {
        resource_version: Some(rv.to_string()),
        continue_token,
        remaining_item_count: remaining.and_then(|r| i64::try_from(r).ok()),
    };
    // The list message's length goes first, so it is computed before streaming the items.
    let head = pb::encode_list(&meta, &[]);
    let items_len: u64 = encoded
        .iter()
        .map(|b| 1 + varint_len(b.len() as u64) + b.len() as u64)
        .sum();
    let list_len = head.len() as u64 + items_len;
    let mut tm = Vec::new();
    pb::put_bytes(&mut tm, 1, info.api_version().as_bytes());
    pb::put_bytes(&mut tm, 2, format!("{}List", info.kind).as_bytes());
    let mut first = pb::MAGIC.to_vec();
    pb::put_bytes(&mut first, 1, &tm);
    first.push(0x12); // field 2 (raw), length-delimited
    let mut n = list_len;
    while n >= 0x80 {
        first.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    first.push(n as u8);
    first.extend_from_slice(&head);
    let stream = async_stream::stream! {
        yield Ok::<Bytes, std::io::Error>(Bytes::from(first));
        let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
        for item in &encoded {
            pb::put_bytes(&mut buf, 2, item);
            if buf.len() >= 64 * 1024 {
                yield Ok(Bytes::from(std::mem::take(&mut buf)));
                buf.reserve(64 * 1024);
            }
        }
        // contentEncoding and contentType, empty.
        buf.extend_from_slice(&[0x1a, 0, 0x22, 0]);
        yield Ok(Bytes::from(buf));
    };
    let stream = super::faults::paced(
        send_rate,
        |c: &Result<Bytes, std::io::Error>| c.as_ref().map_or(0, Bytes::len),
        stream,
    );
    Some(proto_response(Body::from_stream(stream)))
}

/// One watch frame for a JSON object (ADDED/MODIFIED/DELETED/BOOKMARK), or an ERROR frame
/// when it cannot be encoded.
pub fn event(info: &ResourceInfo, kind: &str, obj: &Bytes, msg: &'static Msg) -> Bytes {
    let raw = serde_json::from_slice::<Value>(obj)
        .map_err(|e| e.to_string())
        .and_then(|v| pb::encode_object(&v, msg));
    match raw {
        Ok(raw) => Bytes::from(pb::watch_frame(
            kind,
            &pb::envelope(&info.api_version(), info.kind, &raw),
        )),
        Err(field) => error_event(&StatusError::internal(format!(
            "cannot encode the object as protobuf: unknown field {field}"
        ))),
    }
}

/// One watch frame for an already encoded object message.
pub fn event_frame(info: &ResourceInfo, kind: &str, raw: &[u8]) -> Bytes {
    Bytes::from(pb::watch_frame(
        kind,
        &pb::envelope(&info.api_version(), info.kind, raw),
    ))
}

/// An ERROR watch frame carrying the `Status`.
pub fn error_event(e: &StatusError) -> Bytes {
    Bytes::from(pb::watch_frame("ERROR", &status_envelope(e)))
}

/// The response headers of a protobuf watch.
pub fn watch_body(stream: impl futures::Stream<Item = Bytes> + Send + 'static) -> Response {
    use futures::StreamExt as _;
    proto_response(Body::from_stream(stream.map(Ok::<Bytes, std::io::Error>)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::mutation::Mutation;
    use crate::demo::realistic::PodShape;
    use crate::demo::sim::{SimConfig, Simulator};
    use crate::informer::decode::{ObjectMask, decode_dynamic};

    #[test]
    fn every_simulated_object_with_a_table_has_a_lossless_protobuf_form() {
        let mut checked = 0;
        for shape in [PodShape::Compact, PodShape::Realistic] {
            let mut sim = Simulator::new(SimConfig {
                pods: 200,
                nodes: 5,
                pod_shape: shape,
                ..SimConfig::default()
            });
            let mut muts = sim.seed_mutations();
            for _ in 0..30 {
                muts.extend(sim.tick(50));
            }
            for m in &muts {
                let (Mutation::Create { resource, object } | Mutation::Update { resource, object }) =
                    m
                else {
                    continue;
                };
                let kind = object["kind"].as_str().unwrap_or_default();
                let api_version = object["apiVersion"].as_str().unwrap_or("v1");
                let Some(msg) = pb::schema::kind(api_version, kind) else {
                    continue;
                };
                // As the store keeps it (`omit_empty`, see `cluster::store_value`).
                let mut object = object.clone();
                if let Some(o) = object.as_object_mut() {
                    pb::omit_empty(o, msg);
                }
                let raw = pb::encode_object(&object, msg).unwrap_or_else(|f| {
                    panic!("{} {kind}: no field {f} in the table", resource.plural)
                });
                let back = pb::decode_object(&raw, msg, &ObjectMask::ALL, None).unwrap();
                let mut item = object.clone();
                item.as_object_mut()
                    .map(|o| (o.remove("apiVersion"), o.remove("kind")));
                let json = decode_dynamic(&item.to_string()).unwrap();
                assert_eq!(
                    serde_json::to_value(&back).unwrap(),
                    serde_json::to_value(&json).unwrap(),
                    "{kind}"
                );
                checked += 1;
            }
        }
        assert!(checked > 500, "{checked} objects checked");
    }

    /// Every kind of error the demo answers, encoded as a protobuf `Status` and read back, is the
    /// JSON `Status` it would have sent (details and causes included), and kinformer's client
    /// classifies it by code and reason.
    #[test]
    fn error_statuses_in_protobuf_read_back_as_the_json_status_and_classify() {
        use crate::demo::error::Target;
        use crate::informer::Error;
        let t = Target {
            group: "batch",
            plural: "cronjobs",
            name: "nightly",
        };
        let cases = [
            StatusError::not_found(&t),
            StatusError::already_exists(&t),
            StatusError::conflict(&t),
            StatusError::expired("too old resource version: 1 (42)"),
            StatusError::forbidden("list", "", "pods", Some("shop")),
            StatusError::invalid(&t, "CronJob", "spec.schedule", "Required value"),
            StatusError::too_many_requests(1),
            StatusError::internal("boom"),
            StatusError::too_large_resource_version(99, 42),
            StatusError::unknown_path(),
        ];
        for e in &cases {
            let body = status_envelope(e);
            let (types, raw) = pb::unwrap_envelope(&body).unwrap();
            assert_eq!(
                (types.api_version.as_str(), types.kind.as_str()),
                ("v1", "Status")
            );
            let mut back = serde_json::Map::new();
            pb::decode_into(
                raw,
                &pb::schema::STATUS,
                crate::informer::decode::Mask::All,
                &mut back,
            )
            .unwrap();
            let mut want = e.to_status();
            if let Some(w) = want.as_object_mut() {
                w.remove("kind");
                w.remove("apiVersion");
            }
            assert_eq!(Value::Object(back), want, "{}", e.code);
            let got = pb::decode_status(raw);
            match (e.code, &got) {
                (410, Error::Gone(_))
                | (403, Error::Forbidden(_))
                | (429, Error::TooManyRequests(_))
                | (504, Error::TooLargeResourceVersion(_)) => {}
                (
                    code,
                    Error::Api {
                        code: c, reason, ..
                    },
                ) => {
                    assert_eq!((code, reason.as_str()), (*c, e.reason));
                }
                (code, other) => panic!("{code} classified as {other:?}"),
            }
        }
        // Watch ERROR frames carry the same envelope.
        let frame = error_event(&cases[3]);
        let (kind, object) = pb::decode_watch_frame(&frame[4..]).unwrap();
        assert_eq!(kind, "ERROR");
        let (_, raw) = pb::unwrap_envelope(object).unwrap();
        assert!(matches!(pb::decode_status(raw), Error::Gone(_)));
    }

    fn stored_pod(i: usize) -> Arc<Stored> {
        let obj = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": format!("p{i}"), "namespace": "default",
                         "resourceVersion": "7", "annotations": {"pad": "x".repeat(2_000)}},
            "spec": {"nodeName": "n1"}});
        Arc::new(Stored {
            rv: 7,
            key: format!("default/p{i}"),
            namespace: Some("default".into()),
            name: format!("p{i}"),
            uid: format!("u{i}"),
            labels: Default::default(),
            owners: Vec::new(),
            fields: Vec::new(),
            bytes: Bytes::from(obj.to_string()),
            proto: Default::default(),
        })
    }

    /// A protobuf list goes out at the send rate given (the protobuf one), as JSON lists do:
    /// a real API server encodes both at request time.
    #[tokio::test(start_paused = true)]
    async fn a_protobuf_list_is_sent_at_its_send_rate() {
        use http_body_util::BodyExt as _;
        let info = crate::demo::resources::RESOURCES
            .iter()
            .find(|r| r.kind == "Pod")
            .unwrap();
        let msg = pb::schema::kind("v1", "Pod").unwrap();
        let items: Vec<Arc<Stored>> = (0..60).map(stored_pod).collect();
        let send = |rate: u64| {
            let res = list(info, msg, 7, None, None, items.clone(), rate).unwrap();
            async move {
                let start = tokio::time::Instant::now();
                let body = res.into_body().collect().await.unwrap().to_bytes();
                (start.elapsed(), body)
            }
        };
        let (unpaced, body) = send(0).await;
        assert_eq!(unpaced, std::time::Duration::ZERO);
        assert!(body.len() > 120_000, "{} bytes", body.len());
        // Half the body per second: two seconds, the same bytes.
        let (took, paced) = send(body.len() as u64 / 2).await;
        assert_eq!(paced, body);
        assert!(
            (took.as_secs_f64() - 2.0).abs() < 0.01,
            "{took:?} for {} bytes",
            body.len()
        );
    }

    #[test]
    fn protobuf_is_chosen_only_when_asked_first_and_the_kind_has_a_table() {
        let info = crate::demo::resources::RESOURCES
            .iter()
            .find(|r| r.kind == "Pod")
            .unwrap();
        let widget = crate::demo::resources::RESOURCES
            .iter()
            .find(|r| r.kind == "Widget")
            .unwrap();
        let h = |accept: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::ACCEPT, accept.parse().unwrap());
            m
        };
        assert!(
            negotiate(
                &h("application/vnd.kubernetes.protobuf, application/json"),
                info
            )
            .is_some()
        );
        assert!(
            negotiate(
                &h("application/json, application/vnd.kubernetes.protobuf"),
                info
            )
            .is_none()
        );
        assert!(
            negotiate(
                &h("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"),
                info
            )
            .is_none()
        );
        assert!(
            negotiate(
                &h("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io"),
                info
            )
            .is_none()
        );
        assert!(
            negotiate(
                &h("application/vnd.kubernetes.protobuf,application/json"),
                widget
            )
            .is_none()
        );
        assert!(negotiate(&HeaderMap::new(), info).is_none());
    }
}
