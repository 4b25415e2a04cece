//! Content negotiation for [`super::super::list_watch::KubeListerWatcher`]: ask for protobuf
//! first for a built-in kind, read whichever encoding the server answers with, and remember a
//! server that will not speak protobuf for this kind.
//!
//! client-go counterpart: `rest.ClientContentConfig` with `AcceptContentTypes:
//! "application/vnd.kubernetes.protobuf,application/json"` (what `kubernetes.NewForConfig`
//! sets for typed clients) and its decoding by the response's `Content-Type`.
//!
//! Invariants:
//! - a request asks `application/vnd.kubernetes.protobuf, application/json` until the server
//!   answers a 406/415 or a JSON body for it; from then on it asks JSON only (both remembered in
//!   `Proto::json_only`, shared by clones);
//! - a 406/415 is retried at once in JSON and never reaches the reflector;
//! - the body is decoded by its `Content-Type`, never by what was asked; error bodies too
//!   (a protobuf `Status` or a JSON one), classified like every other `Status`.
//!
//! Difference from the JSON path: the next page of a paged list is not requested ahead
//! (prefetch) in protobuf; the informer's lists are answered whole by the watch cache (RV "0",
//! relists without `limit`) or streamed (WatchList), so pages are rare.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use futures::{StreamExt as _, TryStreamExt as _};
use http_body_util::BodyExt as _;
use kube::api::{DynamicObject, TypeMeta};
use kube::discovery::ApiResource;

use super::{
    ACCEPT_PROTOBUF_OR_JSON, FrameSplitter, ItemDecoder, PROTOBUF, ProtoListDecoder, decode_object,
    decode_status, decode_watch_frame, schema, unwrap_envelope,
};
use crate::informer::Error;
use crate::informer::decode::ObjectMask;
use crate::informer::failed_answer::{AskedWait, read_failed_answer};
use crate::informer::list_body::{JsonListDecoder, JsonObjectDecoder, ListBodyDecoder};
use crate::informer::list_watch::{
    ListPage, WatchEvent, WatchStream, decode_watch_line_with, map_kube_error,
};

/// Which encoding a lister-watcher asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WireFormat {
    /// JSON only.
    Json,
    /// Protobuf first for kinds with a table, JSON otherwise (client-go's default).
    #[default]
    Protobuf,
}

impl WireFormat {
    pub fn parse(s: &str) -> Option<WireFormat> {
        match s {
            "json" => Some(WireFormat::Json),
            "protobuf" | "proto" => Some(WireFormat::Protobuf),
            _ => None,
        }
    }
}

/// The protobuf side of one lister-watcher.
pub struct Proto<K> {
    decode: ItemDecoder<K>,
    /// The server answered 406/415 or JSON: ask JSON only.
    json_only: Arc<AtomicBool>,
}

impl<K> Clone for Proto<K> {
    fn clone(&self) -> Self {
        Self {
            decode: self.decode.clone(),
            json_only: self.json_only.clone(),
        }
    }
}

impl Proto<DynamicObject> {
    /// For `resource` through `mask`, if its kind has a protobuf table.
    pub fn for_resource(resource: &ApiResource, mask: ObjectMask) -> Option<Self> {
        let msg = schema::kind(&resource.api_version, &resource.kind)?;
        let types = TypeMeta {
            api_version: resource.api_version.clone(),
            kind: resource.kind.clone(),
        };
        Some(Self {
            decode: Arc::new(move |raw: &[u8]| decode_object(raw, msg, &mask, Some(types.clone()))),
            json_only: Arc::new(AtomicBool::new(false)),
        })
    }
}

/// The answer to one request: its encoding and its body.
struct Answer {
    proto: bool,
    body: kube::client::Body,
}

fn content_type_is_proto(res: &http::Response<kube::client::Body>) -> bool {
    res.headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.trim_start().starts_with(PROTOBUF))
}

fn request(
    url: &str,
    watch: bool,
    accept: &str,
) -> Result<http::Request<kube::client::Body>, Error> {
    let mut b = http::Request::get(url).header(http::header::ACCEPT, accept);
    if watch {
        b = b.header(http::header::ACCEPT_ENCODING, "identity");
    }
    b.body(kube::client::Body::from(Vec::new()))
        .map_err(|e| Error::Api {
            code: 0,
            reason: crate::informer::wire_values::REASON_BAD_REQUEST.to_string(),
            message: e.to_string(),
        })
}

impl<K> Proto<K> {
    /// Whether requests still ask for protobuf.
    pub fn active(&self) -> bool {
        !self.json_only.load(Ordering::Relaxed)
    }
}

impl<K: Send + 'static> Proto<K> {
    async fn send(
        &self,
        client: &kube::Client,
        url: &str,
        watch: bool,
        wait: &AskedWait,
    ) -> Result<Answer, Error> {
        let mut accept = if self.active() {
            ACCEPT_PROTOBUF_OR_JSON
        } else {
            "application/json"
        };
        loop {
            wait.set(None);
            let res = client
                .send(request(url, watch, accept)?)
                .await
                .map_err(map_kube_error)?;
            let status = res.status();
            let proto = content_type_is_proto(&res);
            if matches!(status.as_u16(), 406 | 415) && accept != "application/json" {
                tracing::info!(%url, code = status.as_u16(), "the server refuses protobuf for this kind; using JSON");
                self.json_only.store(true, Ordering::Relaxed);
                accept = "application/json";
                continue;
            }
            if status.is_client_error() || status.is_server_error() {
                let (err, asked) = read_failed_answer(res, proto).await;
                wait.set(asked);
                return Err(err);
            }
            if !proto && accept != "application/json" {
                tracing::info!(%url, "the server answered JSON to a protobuf request; using JSON for this kind");
                self.json_only.store(true, Ordering::Relaxed);
            }
            return Ok(Answer {
                proto,
                body: res.into_body(),
            });
        }
    }

    /// List one page, items to `sink` as they stream in, in whichever encoding the server answers.
    pub async fn list_each(
        &self,
        client: &kube::Client,
        url: &str,
        json: JsonObjectDecoder<K>,
        sink: &mut (dyn FnMut(K) + Send),
        received: &AtomicU64,
        wait: &AskedWait,
    ) -> Result<ListPage<K>, Error> {
        let answer = self.send(client, url, false, wait).await?;
        let mut decoder: Box<dyn ListBodyDecoder<K>> = if answer.proto {
            Box::new(ProtoListDecoder::new(self.decode.clone()))
        } else {
            Box::new(JsonListDecoder::new(json))
        };
        let mut body = answer.body.into_data_stream();
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| Error::Connect(format!("list body: {e}")))?;
            received.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            decoder.feed(&chunk, sink)?;
        }
        let (meta, malformed) = decoder.finish()?;
        Ok(ListPage {
            items: Vec::new(),
            resource_version: meta.resource_version.unwrap_or_default(),
            continue_token: meta.continue_token.filter(|c| !c.is_empty()),
            remaining_item_count: meta.remaining_item_count,
            malformed,
        })
    }

    /// Open a watch, read in whichever encoding the server answers.
    pub async fn watch(
        &self,
        client: &kube::Client,
        url: &str,
        json: JsonObjectDecoder<K>,
        received: Arc<AtomicU64>,
        wait: &AskedWait,
    ) -> Result<WatchStream<K>, Error> {
        let answer = self.send(client, url, true, wait).await?;
        let counted = received.clone();
        let body = answer.body.into_data_stream().inspect(move |c| {
            if let Ok(c) = c {
                counted.fetch_add(c.len() as u64, Ordering::Relaxed);
            }
        });
        if !answer.proto {
            let reader = body
                .map(|r| r.map_err(std::io::Error::other))
                .into_async_read();
            let lines = futures::AsyncBufReadExt::lines(reader);
            return Ok(lines
                .filter_map(move |line| {
                    futures::future::ready(match line {
                        Ok(line) => decode_watch_line_with(&line, |s| json(s)).map(Ok),
                        Err(e) => Some(Err(Error::Connect(format!("watch stream: {e}")))),
                    })
                })
                .boxed());
        }
        let decode = self.decode.clone();
        let stream = async_stream::stream! {
            let mut frames = FrameSplitter::default();
            let mut body = body;
            while let Some(chunk) = body.next().await {
                let chunk = match chunk {
                    Ok(c) => c,
                    Err(e) => {
                        yield Err(Error::Connect(format!("watch stream: {e}")));
                        return;
                    }
                };
                let mut events = Vec::new();
                if let Err(e) = frames.feed(&chunk, &mut |f| events.push(watch_event(f, &decode))) {
                    yield Err(e);
                    return;
                }
                for ev in events {
                    yield Ok(ev);
                }
            }
        };
        Ok(stream.boxed())
    }
}

const METADATA_ONLY: ObjectMask = ObjectMask {
    data: crate::informer::decode::Mask::Keys(&[]),
    ..ObjectMask::ALL
};

/// One protobuf watch frame as an event (never fails: an undecodable one is `Malformed`).
fn watch_event<K>(frame: &[u8], decode: &ItemDecoder<K>) -> WatchEvent<K> {
    let (kind, object) = match decode_watch_frame(frame) {
        Ok(x) => x,
        Err(e) => return WatchEvent::Malformed(format!("watch event envelope: {e}")),
    };
    let raw = match unwrap_envelope(object) {
        Ok((_, raw)) => raw,
        Err(e) => return WatchEvent::Malformed(format!("{kind} object: {e}")),
    };
    let obj = |ctor: fn(K) -> WatchEvent<K>| match decode(raw) {
        Ok(o) => ctor(o),
        Err(e) => {
            tracing::warn!(error = %e, event = %kind, "skipping malformed object in watch event");
            WatchEvent::Malformed(format!("{kind} object: {e}"))
        }
    };
    match kind.as_str() {
        "ADDED" => obj(WatchEvent::Added),
        "MODIFIED" => obj(WatchEvent::Modified),
        "DELETED" => obj(WatchEvent::Deleted),
        // Every kind's message has its metadata as field 1: read only that.
        "BOOKMARK" => match decode_object(raw, &schema::POD, &METADATA_ONLY, None) {
            Ok(o) => WatchEvent::Bookmark {
                resource_version: o.metadata.resource_version.unwrap_or_default(),
                initial_events_end: o
                    .metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(crate::informer::list_watch::INITIAL_EVENTS_END_ANNOTATION))
                    .is_some_and(|v| v == "true"),
            },
            Err(e) => WatchEvent::Malformed(format!("BOOKMARK object: {e}")),
        },
        "ERROR" => WatchEvent::Error(decode_status(raw)),
        other => WatchEvent::Malformed(format!("unknown watch event type {other:?}")),
    }
}
