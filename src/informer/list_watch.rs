//! `ListerWatcher`: the informer's only door to the API server.
//!
//! client-go counterpart: `tools/cache/listwatch.go` (`ListerWatcher`, `ListWatch`).
//!
//! Invariants:
//! - `list` returns one page; the caller drives pagination with `continue_token`;
//!   [`KubeListerWatcher`] requests the next page (same options, the new token, no
//!   resourceVersion: what the reflector's pager asks next) while it decodes the current one, and
//!   answers a `list` call from it only when the URLs are identical;
//! - `watch` returns a stream of events that ends when the server closes the watch; an `ERROR`
//!   event carrying a 410 is surfaced as [`WatchEvent::Error`] with [`Error::Gone`];
//! - nothing outside this file performs cluster I/O for the informer;
//! - a malformed object (in a list page or a watch event) never fails the request: it is skipped,
//!   logged, and counted ([`ListPage::malformed`], [`WatchEvent::Malformed`]); the rest arrives;
//! - every non-success `Status` is classified into [`Error`] by [`classify_status`] the same way
//!   for lists, watch requests and watch `ERROR` events.
//!
//! Implementations: [`KubeListerWatcher`] (over a [`kube::Client`], typed or dynamic kinds) and
//! [`FakeListerWatcher`] (scriptable, for tests anywhere in the crate and in `tests/`).
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use k8s_openapi::api::core::v1::Pod;
//! use kube::core::{ApiResource, GroupVersionKind};
//! use kinformer::informer::list_watch::{client_for_informers, KubeListerWatcher};
//!
//! let client = client_for_informers(kube::Config::infer().await?)?;
//! // Pods in one namespace, typed.
//! let pods = KubeListerWatcher::<Pod>::typed(client.clone(), Some("default"));
//! // Any kind, e.g. a CRD found by discovery, cluster-wide.
//! let gvk = GroupVersionKind::gvk("example.com", "v1", "Widget");
//! let widgets = KubeListerWatcher::dynamic(client, &ApiResource::from_gvk_with_plural(&gvk, "widgets"), None);
//! # let _ = (pods, widgets);
//! # Ok(())
//! # }
//! ```

use std::collections::{BTreeMap, VecDeque};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::BoxStream;
use futures::{AsyncBufReadExt, FutureExt, StreamExt};
use kube::Resource;
use kube::api::DynamicObject;
use kube::discovery::ApiResource;
use parking_lot::Mutex;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use tokio::sync::{Notify, mpsc};

use super::decode::ObjectMask;
use super::failed_answer::{AskedWait, send_checked};
use super::list_body::{JsonListDecoder, ListBodyDecoder};
use super::pb::client::{Proto, WireFormat};
use super::{Error, Object};

/// Parameters of one list request (a subset of `metav1.ListOptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListOptions {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    /// Page size (`limit`); `None` or 0 means unpaged.
    pub limit: Option<u32>,
    /// `continue` token from the previous page.
    pub continue_token: Option<String>,
    /// `resourceVersion`: `None`/`""` = most recent (consistent read), `"0"` = any (cache).
    pub resource_version: Option<String>,
    /// `resourceVersionMatch`: `NotOlderThan` or `Exact`.
    pub resource_version_match: Option<String>,
}

/// Parameters of one watch request (a subset of `metav1.ListOptions` with `watch=true`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WatchOptions {
    pub label_selector: Option<String>,
    pub field_selector: Option<String>,
    pub resource_version: Option<String>,
    pub timeout_seconds: Option<u32>,
    pub allow_watch_bookmarks: bool,
    /// Streaming list: `sendInitialEvents=true` (with `resourceVersionMatch=NotOlderThan`).
    pub send_initial_events: bool,
    /// `resourceVersionMatch`, only meaningful with `send_initial_events`.
    pub resource_version_match: Option<String>,
}

/// One page of a list.
#[derive(Debug, Clone)]
pub struct ListPage<K> {
    pub items: Vec<K>,
    /// The list's `metadata.resourceVersion`.
    pub resource_version: String,
    /// The list's `metadata.continue`; `None` when this was the last page.
    pub continue_token: Option<String>,
    /// `metadata.remainingItemCount` when the server reports it.
    pub remaining_item_count: Option<i64>,
    /// Items that could not be decoded (skipped, logged).
    pub malformed: usize,
}

/// One watch event (client-go's `watch.Event`).
#[derive(Debug, Clone)]
pub enum WatchEvent<K> {
    Added(K),
    Modified(K),
    Deleted(K),
    /// A BOOKMARK: only `resource_version` (and annotations) are meaningful.
    Bookmark {
        resource_version: String,
        /// `metadata.annotations["k8s.io/initial-events-end"] == "true"`.
        initial_events_end: bool,
    },
    /// An ERROR event (a `Status`), already classified.
    Error(Error),
    /// An event whose object could not be decoded; it was skipped (and logged) and the watch
    /// continues. The reflector counts these in its status.
    Malformed(String),
}

/// A stream of watch events; an `Err` item is a transport/decode failure that ends the watch.
pub type WatchStream<K> = BoxStream<'static, Result<WatchEvent<K>, Error>>;

/// The only door to the API: list one page, or open a watch.
pub trait ListerWatcher<K: Object>: Send + Sync {
    /// List one page.
    fn list(&self, opts: &ListOptions) -> BoxFuture<'_, Result<ListPage<K>, Error>>;
    /// List one page, handing each item to `sink` as soon as it is decoded; the page returned has
    /// no items. [`KubeListerWatcher`] decodes the body as it streams in (see
    /// [`super::list_body`]), so a whole-list body is never held; the default lists, then hands
    /// the items over.
    fn list_each<'a>(
        &'a self,
        opts: &ListOptions,
        sink: &'a mut (dyn FnMut(K) + Send),
    ) -> BoxFuture<'a, Result<ListPage<K>, Error>> {
        let list = self.list(opts);
        async move {
            let mut page = list.await?;
            for obj in std::mem::take(&mut page.items) {
                sink(obj);
            }
            Ok(page)
        }
        .boxed()
    }
    /// Open a watch.
    fn watch(&self, opts: &WatchOptions) -> BoxFuture<'_, Result<WatchStream<K>, Error>>;
    /// Response body bytes read so far by its lists and watches, a running count (a list's
    /// progress reads how it grows). `None`: not counted.
    fn received_bytes(&self) -> Option<u64> {
        None
    }
    /// The encoding its requests read now: `"protobuf"` or `"json"`.
    fn wire(&self) -> &'static str {
        "json"
    }
    /// A cheap question to the server, asked while the reflector waits out a backoff after the
    /// server was unreachable or failing (see the reflector's recovery probe): `Ok` once it
    /// answers as serving. `None`: this lister-watcher cannot ask, and the reflector waits the
    /// backoff out, as client-go does.
    fn probe(&self) -> Option<BoxFuture<'_, Result<(), Error>>> {
        None
    }
    /// The wait the server asked for (`Retry-After`, see [`super::failed_answer`]) with the
    /// answer to the latest request, if that failed with one; taken, so it applies once. The
    /// reflector's backoff after that failure lasts at least this long.
    fn take_retry_after(&self) -> Option<Duration> {
        None
    }
    /// Where the server's history is now, for the reflector's history check (see
    /// [`super::reflector`]): one consistent read, `limit=1` with no resourceVersion and no
    /// selector, and the cluster's identity. `None`: this lister-watcher cannot ask, and the
    /// reflector skips the check (as client-go, which never asks).
    fn history_mark(&self) -> Option<BoxFuture<'_, Result<HistoryMark, Error>>> {
        None
    }
}

/// The answer to a history check ([`ListerWatcher::history_mark`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HistoryMark {
    /// The list's `metadata.resourceVersion`: the server's current revision.
    pub resource_version: String,
    /// Objects in the collection (`remainingItemCount` + the items of the one-item page), when
    /// the server says (a consistent read without selector does).
    pub total: Option<u64>,
    /// The `kube-system` namespace's uid (the cluster's identity); `None` when the server does
    /// not tell this user (403, 404).
    pub cluster_uid: Option<String>,
}

// ---------------------------------------------------------------------------------------------
// Status classification
// ---------------------------------------------------------------------------------------------

pub use super::error::{
    classify_status, classify_status_with_causes, is_too_large_resource_version,
};

fn classify_kube_status(status: &kube::core::Status) -> Error {
    let causes = status.details.iter().flat_map(|d| {
        d.causes
            .iter()
            .map(|c| (c.reason.as_str(), c.message.as_str()))
    });
    classify_status_with_causes(status.code, &status.reason, &status.message, causes)
}

/// Map a `kube` client error into the informer's [`Error`].
pub fn map_kube_error(err: kube::Error) -> Error {
    match err {
        kube::Error::Api(status) => classify_kube_status(&status),
        kube::Error::SerdeError(e) => Error::Decode(e.to_string()),
        kube::Error::FromUtf8(e) => Error::Decode(e.to_string()),
        kube::Error::LinesCodecMaxLineLengthExceeded => {
            Error::Decode("watch line too long".to_string())
        }
        kube::Error::BuildRequest(e) => Error::Api {
            code: 0,
            reason: super::wire_values::REASON_BAD_REQUEST.to_string(),
            message: e.to_string(),
        },
        kube::Error::HttpError(e) => Error::Api {
            code: 0,
            reason: super::wire_values::REASON_BAD_REQUEST.to_string(),
            message: e.to_string(),
        },
        kube::Error::Auth(e) => Error::Api {
            code: 401,
            reason: super::wire_values::REASON_UNAUTHORIZED.to_string(),
            message: e.to_string(),
        },
        // Hyper, service (timeouts, connection refused), TLS, read errors: the server is not
        // reachable right now.
        other => Error::Connect(other.to_string()),
    }
}

// ---------------------------------------------------------------------------------------------
// Query building (our own, so the parameters are exactly client-go's: kube's `ListParams` drops
// `resourceVersion=0` when a limit is set, which changes the served semantics)
// ---------------------------------------------------------------------------------------------

fn push_param(query: &mut String, key: &str, value: &str) {
    query.push(if query.contains('?') { '&' } else { '?' });
    query.push_str(key);
    query.push('=');
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                query.push(b as char)
            }
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                query.push('%');
                query.push(HEX[usize::from(b >> 4)] as char);
                query.push(HEX[usize::from(b & 0xf)] as char);
            }
        }
    }
}

/// The URL (path and query) of a list request, as client-go's `ListOptions` encodes it.
pub fn list_url(path: &str, opts: &ListOptions) -> String {
    let mut url = path.to_string();
    if let Some(s) = opts.label_selector.as_deref().filter(|s| !s.is_empty()) {
        push_param(&mut url, "labelSelector", s);
    }
    if let Some(s) = opts.field_selector.as_deref().filter(|s| !s.is_empty()) {
        push_param(&mut url, "fieldSelector", s);
    }
    if let Some(limit) = opts.limit.filter(|l| *l > 0) {
        push_param(&mut url, "limit", &limit.to_string());
    }
    if let Some(token) = opts.continue_token.as_deref().filter(|s| !s.is_empty()) {
        // The token encodes the snapshot; resourceVersion must not be sent with it.
        push_param(&mut url, "continue", token);
    } else if let Some(rv) = opts.resource_version.as_deref().filter(|s| !s.is_empty()) {
        push_param(&mut url, "resourceVersion", rv);
        if let Some(m) = opts.resource_version_match.as_deref() {
            push_param(&mut url, "resourceVersionMatch", m);
        }
    }
    url
}

/// The URL (path and query) of a watch request.
pub fn watch_url(path: &str, opts: &WatchOptions) -> String {
    let mut url = path.to_string();
    push_param(&mut url, "watch", "true");
    if let Some(s) = opts.label_selector.as_deref().filter(|s| !s.is_empty()) {
        push_param(&mut url, "labelSelector", s);
    }
    if let Some(s) = opts.field_selector.as_deref().filter(|s| !s.is_empty()) {
        push_param(&mut url, "fieldSelector", s);
    }
    if let Some(rv) = opts.resource_version.as_deref().filter(|s| !s.is_empty()) {
        push_param(&mut url, "resourceVersion", rv);
    }
    if let Some(t) = opts.timeout_seconds {
        push_param(&mut url, "timeoutSeconds", &t.to_string());
    }
    if opts.allow_watch_bookmarks {
        push_param(&mut url, "allowWatchBookmarks", "true");
    }
    if opts.send_initial_events {
        push_param(&mut url, "sendInitialEvents", "true");
        let m = opts
            .resource_version_match
            .as_deref()
            .unwrap_or("NotOlderThan");
        push_param(&mut url, "resourceVersionMatch", m);
    }
    url
}

// ---------------------------------------------------------------------------------------------
// Decoding, one item / one event at a time
// ---------------------------------------------------------------------------------------------

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct ListMetaLite {
    #[serde(default)]
    resource_version: Option<String>,
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
    #[serde(default)]
    remaining_item_count: Option<i64>,
}

#[derive(Deserialize)]
struct ListEnvelope<'a> {
    #[serde(default)]
    metadata: ListMetaLite,
    #[serde(default, borrow)]
    items: Option<Vec<&'a RawValue>>,
}

/// Decode a list response body: the envelope first, then each item on its own, so a malformed
/// item is skipped and counted instead of failing the page.
pub fn decode_list_page<K: DeserializeOwned>(body: &str) -> Result<ListPage<K>, Error> {
    decode_list_page_with(body, serde_decode::<K>)
}

/// serde's `Deserialize` of `K` from JSON text (the default object decoder).
fn serde_decode<K: DeserializeOwned>(json: &str) -> Result<K, serde_json::Error> {
    serde_json::from_str(json)
}

/// [`decode_list_page`] with a given item decoder (e.g. [`super::decode::decode_dynamic`]).
pub fn decode_list_page_with<K>(
    body: &str,
    decode: impl Fn(&str) -> Result<K, serde_json::Error>,
) -> Result<ListPage<K>, Error> {
    let env: ListEnvelope<'_> =
        serde_json::from_str(body).map_err(|e| Error::Decode(format!("list envelope: {e}")))?;
    let raw_items = env.items.unwrap_or_default();
    let mut items = Vec::with_capacity(raw_items.len());
    let mut malformed = 0;
    for raw in raw_items {
        match decode(raw.get()) {
            Ok(obj) => items.push(obj),
            Err(e) => {
                malformed += 1;
                tracing::warn!(error = %e, item = %identify(raw.get()), "skipping malformed object in list page");
            }
        }
    }
    Ok(ListPage {
        items,
        resource_version: env.metadata.resource_version.unwrap_or_default(),
        continue_token: env.metadata.continue_token.filter(|c| !c.is_empty()),
        remaining_item_count: env.metadata.remaining_item_count,
        malformed,
    })
}

#[derive(Deserialize)]
struct EventEnvelope<'a> {
    #[serde(rename = "type")]
    kind: String,
    #[serde(borrow)]
    object: &'a RawValue,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct BookmarkMeta {
    #[serde(default)]
    resource_version: Option<String>,
    #[serde(default)]
    annotations: Option<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
struct BookmarkObject {
    #[serde(default)]
    metadata: BookmarkMeta,
}

/// The annotation a server puts on the bookmark that ends a streaming list's initial events.
pub use super::wire_values::INITIAL_EVENTS_END_ANNOTATION;

/// Decode one line of a watch stream. `None` for a blank line. Never fails: an undecodable line
/// or object becomes [`WatchEvent::Malformed`].
pub fn decode_watch_line<K: DeserializeOwned>(line: &str) -> Option<WatchEvent<K>> {
    decode_watch_line_with(line, serde_decode::<K>)
}

/// [`decode_watch_line`] with a given object decoder (e.g. [`super::decode::decode_dynamic`]).
pub fn decode_watch_line_with<K>(
    line: &str,
    decode_object: impl Fn(&str) -> Result<K, serde_json::Error>,
) -> Option<WatchEvent<K>> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let env: EventEnvelope<'_> = match serde_json::from_str(line) {
        Ok(env) => env,
        Err(e) => {
            tracing::warn!(error = %e, bytes = line.len(), "skipping undecodable watch line");
            return Some(WatchEvent::Malformed(format!("watch event envelope: {e}")));
        }
    };
    let obj = env.object.get();
    let decode = |ctor: fn(K) -> WatchEvent<K>| match decode_object(obj) {
        Ok(o) => ctor(o),
        Err(e) => {
            tracing::warn!(error = %e, event = %env.kind, object = %identify(obj), "skipping malformed object in watch event");
            WatchEvent::Malformed(format!("{} object: {e}", env.kind))
        }
    };
    Some(match env.kind.as_str() {
        "ADDED" => decode(WatchEvent::Added),
        "MODIFIED" => decode(WatchEvent::Modified),
        "DELETED" => decode(WatchEvent::Deleted),
        "BOOKMARK" => match serde_json::from_str::<BookmarkObject>(obj) {
            Ok(b) => WatchEvent::Bookmark {
                resource_version: b.metadata.resource_version.unwrap_or_default(),
                initial_events_end: b
                    .metadata
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(INITIAL_EVENTS_END_ANNOTATION))
                    .is_some_and(|v| v == "true"),
            },
            Err(e) => {
                tracing::warn!(error = %e, "skipping malformed bookmark");
                WatchEvent::Malformed(format!("BOOKMARK object: {e}"))
            }
        },
        "ERROR" => match serde_json::from_str::<kube::core::Status>(obj) {
            Ok(status) => WatchEvent::Error(classify_kube_status(&status)),
            Err(e) => WatchEvent::Error(Error::Decode(format!("ERROR event status: {e}"))),
        },
        other => {
            tracing::warn!(event = %other, "skipping watch event of unknown type");
            WatchEvent::Malformed(format!("unknown watch event type {other:?}"))
        }
    })
}

/// Names a malformed object for the log by kind and key only: its content (a Secret's data, say)
/// never reaches the log.
pub(crate) fn identify(raw: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Meta {
        name: Option<String>,
        namespace: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Head {
        kind: Option<String>,
        metadata: Option<Meta>,
    }
    match serde_json::from_str::<Head>(raw) {
        Ok(h) => {
            let (ns, name) = h
                .metadata
                .map(|m| (m.namespace, m.name))
                .unwrap_or((None, None));
            format!(
                "{} {}{}",
                h.kind.as_deref().unwrap_or("<no kind>"),
                ns.map(|n| format!("{n}/")).unwrap_or_default(),
                name.as_deref().unwrap_or("<no name>")
            )
        }
        Err(_) => format!("<{} bytes, unparseable>", raw.len()),
    }
}

// ---------------------------------------------------------------------------------------------
// KubeListerWatcher
// ---------------------------------------------------------------------------------------------

/// Build a [`kube::Client`] for informers: like `Client::try_from(config)`, but with kube's
/// built-in retry of 429/503/504 turned off. The reflector backs off and classifies those errors
/// itself (a 504 "Too large resource version" must come back at once to trigger a consistent
/// relist; kube's retry would hide it for minutes behind 15 exponential retries).
pub fn client_for_informers(mut config: kube::Config) -> Result<kube::Client, Error> {
    config.default_retry = false;
    kube::Client::try_from(config).map_err(map_kube_error)
}

/// A [`ListerWatcher`] over a [`kube::Client`] for one kind in one scope (a namespace or the
/// whole cluster). Works for typed kinds (`KubeListerWatcher::<Pod>::typed`) and for any kind as
/// [`DynamicObject`] described by an [`ApiResource`] (`KubeListerWatcher::dynamic`).
///
/// Prefer a client made by [`client_for_informers`]: with kube's default retry policy, 429/503/504
/// answers are retried inside the client before the reflector sees them.
pub struct KubeListerWatcher<K> {
    client: kube::Client,
    /// Collection path, e.g. `/api/v1/namespaces/ns/pods`; never changes.
    path: String,
    /// Decoder of one object; `None` = serde's `Deserialize` of `K`.
    decode: Option<ObjectDecoder<K>>,
    /// Protobuf first (a built-in kind with a table, see [`super::pb::client`]); `None` = JSON.
    proto: Option<Proto<K>>,
    /// The kind (dynamic lister-watchers) and the mask its objects are decoded through.
    resource: Option<ApiResource>,
    mask: ObjectMask,
    /// The next page of a list in progress, requested while this page is decoded. At most one;
    /// taken by the `list` call whose URL it is, aborted by any other `list` call or on drop.
    prefetch: Mutex<Option<Prefetch>>,
    /// Response body bytes read by its lists and watches ([`ListerWatcher::received_bytes`]).
    received: Arc<AtomicU64>,
    /// The wait the latest failed answer asked for ([`ListerWatcher::take_retry_after`]).
    asked_wait: AskedWait,
    _kind: PhantomData<fn() -> K>,
}

/// A list page requested before the reflector asked for it.
struct Prefetch {
    url: String,
    task: tokio::task::JoinHandle<Result<String, Error>>,
}

impl<K> Drop for KubeListerWatcher<K> {
    fn drop(&mut self) {
        if let Some(p) = self.prefetch.get_mut().take() {
            p.task.abort();
        }
    }
}

/// The `continue` token of a list body, reading only up to the list's `metadata` (which API
/// servers write before `items`; if it comes after them, the whole body is read).
fn peek_continue(body: &str) -> Option<String> {
    struct Prefix<'a>(&'a mut Option<String>);
    impl<'de> serde::de::Visitor<'de> for Prefix<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a list")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            while let Some(key) = map.next_key::<String>()? {
                if key == "metadata" {
                    let meta: ListMetaLite = map.next_value()?;
                    *self.0 = meta.continue_token.filter(|c| !c.is_empty());
                    // Stop here: the items are decoded by the caller.
                    return Err(serde::de::Error::custom("metadata read"));
                }
                map.next_value::<serde::de::IgnoredAny>()?;
            }
            Ok(())
        }
    }
    let mut token = None;
    let mut de = serde_json::Deserializer::from_str(body);
    let _ = serde::Deserializer::deserialize_map(&mut de, Prefix(&mut token));
    token
}

/// Decodes one object from its JSON text.
type ObjectDecoder<K> = Arc<dyn Fn(&str) -> Result<K, serde_json::Error> + Send + Sync>;

impl<K> Clone for KubeListerWatcher<K> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            path: self.path.clone(),
            decode: self.decode.clone(),
            proto: self.proto.clone(),
            resource: self.resource.clone(),
            mask: self.mask,
            prefetch: Mutex::new(None),
            received: Arc::default(),
            asked_wait: AskedWait::default(),
            _kind: PhantomData,
        }
    }
}

impl<K> std::fmt::Debug for KubeListerWatcher<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KubeListerWatcher")
            .field("path", &self.path)
            .finish()
    }
}

impl<K: Resource<DynamicType = ()>> KubeListerWatcher<K> {
    /// A lister-watcher for a typed kind; `namespace: None` means all namespaces (or a
    /// cluster-scoped kind).
    pub fn typed(client: kube::Client, namespace: Option<&str>) -> Self {
        Self {
            client,
            path: K::url_path(&(), namespace),
            decode: None,
            proto: None,
            resource: None,
            mask: ObjectMask::ALL,
            prefetch: Mutex::new(None),
            received: Arc::default(),
            asked_wait: AskedWait::default(),
            _kind: PhantomData,
        }
    }
}

impl KubeListerWatcher<DynamicObject> {
    /// A lister-watcher for any kind (CRDs included) found by discovery.
    pub fn dynamic(client: kube::Client, resource: &ApiResource, namespace: Option<&str>) -> Self {
        Self {
            client,
            path: DynamicObject::url_path(resource, namespace),
            decode: Some(Arc::new(super::decode::decode_dynamic)),
            proto: Proto::for_resource(resource, ObjectMask::ALL),
            resource: Some(resource.clone()),
            mask: ObjectMask::ALL,
            prefetch: Mutex::new(None),
            received: Arc::default(),
            asked_wait: AskedWait::default(),
            _kind: PhantomData,
        }
    }

    /// Which encoding to ask for: [`WireFormat::Protobuf`] (the default) asks protobuf first for
    /// built-in kinds that have a table; [`WireFormat::Json`] asks JSON only.
    pub fn with_wire(mut self, wire: WireFormat) -> Self {
        self.proto = match (wire, &self.resource) {
            (WireFormat::Protobuf, Some(r)) => Proto::for_resource(r, self.mask),
            _ => None,
        };
        self
    }

    /// Decode list items and watch objects through `mask`: the parts it drops are skipped by the
    /// JSON reader instead of being built (see [`super::decode`]). The informer's transform must
    /// drop at least what the mask drops (the mask is that transform pushed into the decoder).
    pub fn with_mask(mut self, mask: ObjectMask) -> Self {
        self.decode = Some(Arc::new(move |json: &str| {
            super::decode::decode_dynamic_masked(json, &mask)
        }));
        self.mask = mask;
        if self.proto.is_some()
            && let Some(r) = &self.resource
        {
            self.proto = Proto::for_resource(r, mask);
        }
        self
    }
}

impl<K> KubeListerWatcher<K> {
    /// The collection path this lister-watcher lists and watches.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The encoding its requests ask for now: `"protobuf"` or `"json"` (after a server answered
    /// JSON or refused protobuf, or for kinds without a protobuf table).
    pub fn wire(&self) -> &'static str {
        self.current_wire()
    }

    fn current_wire(&self) -> &'static str {
        match &self.proto {
            Some(p) if p.active() => "protobuf",
            _ => "json",
        }
    }

    fn get(&self, url: String, watch: bool) -> Result<http::Request<Vec<u8>>, Error> {
        let mut builder = http::Request::get(url);
        if watch {
            // One JSON event per line; keep the stream uncompressed so it can be read as it comes.
            builder = builder.header(http::header::ACCEPT_ENCODING, "identity");
        }
        builder.body(Vec::new()).map_err(|e| Error::Api {
            code: 0,
            reason: super::wire_values::REASON_BAD_REQUEST.to_string(),
            message: e.to_string(),
        })
    }
}

impl<K> KubeListerWatcher<K> {
    /// Send `req` and read its body as it arrives (kube's `request_stream`, keeping the wait a
    /// failed answer asks for).
    async fn body_reader(
        &self,
        req: http::Request<Vec<u8>>,
    ) -> Result<impl futures::AsyncBufRead + use<K>, Error> {
        use futures::TryStreamExt as _;
        use http_body_util::BodyExt as _;
        let res = send_checked(&self.client, req, &self.asked_wait).await?;
        Ok(res
            .into_body()
            .into_data_stream()
            .map_err(std::io::Error::other)
            .into_async_read())
    }

    /// Request the page after `token` now, so that it travels while the current page is decoded.
    /// Its URL is the one the reflector's pager asks next (same options, the new token, no
    /// resourceVersion); a `list` call for any other URL discards it.
    async fn start_prefetch(&self, opts: &ListOptions, token: String) -> Result<(), Error> {
        let next = ListOptions {
            continue_token: Some(token),
            resource_version: None,
            resource_version_match: None,
            ..opts.clone()
        };
        let next_url = list_url(&self.path, &next);
        let req = self.get(next_url.clone(), false)?;
        let client = self.client.clone();
        let wait = self.asked_wait.clone();
        let task = tokio::spawn(async move {
            use http_body_util::BodyExt as _;
            let res = send_checked(&client, req, &wait).await?;
            let bytes = res
                .into_body()
                .collect()
                .await
                .map_err(|e| Error::Connect(format!("list body: {e}")))?
                .to_bytes();
            String::from_utf8(bytes.to_vec()).map_err(|e| Error::Decode(e.to_string()))
        });
        if let Some(old) = self.prefetch.lock().replace(Prefetch {
            url: next_url,
            task,
        }) {
            old.task.abort();
        }
        // Let the request go out: a task spawned from a task sits in this worker's LIFO slot,
        // which other workers cannot steal, until this task yields.
        tokio::task::yield_now().await;
        Ok(())
    }
}

impl<K: Object + DeserializeOwned> ListerWatcher<K> for KubeListerWatcher<K> {
    fn wire(&self) -> &'static str {
        self.current_wire()
    }

    fn received_bytes(&self) -> Option<u64> {
        Some(self.received.load(Ordering::Relaxed))
    }

    fn take_retry_after(&self) -> Option<Duration> {
        self.asked_wait.take()
    }

    /// `GET /readyz`: 200 once the API server serves. A 4xx other than 429 also counts as
    /// serving (the endpoint is hidden from this identity, but something answered it); a
    /// connection failure, a 429 or a 5xx (`/readyz` fails while the server starts) does not.
    fn probe(&self) -> Option<BoxFuture<'_, Result<(), Error>>> {
        Some(
            async move {
                let req = http::Request::get("/readyz")
                    .body(Vec::new())
                    .map_err(|e| Error::Connect(e.to_string()))?;
                match self.client.request_text(req).await {
                    Ok(_) => Ok(()),
                    Err(kube::Error::Api(s)) if (400..500).contains(&s.code) && s.code != 429 => {
                        Ok(())
                    }
                    Err(e) => Err(map_kube_error(e)),
                }
            }
            .boxed(),
        )
    }

    /// `GET <collection>?limit=1` (JSON, metadata read only) and `GET
    /// /api/v1/namespaces/kube-system`; a 401/403/404 on the latter leaves the identity unknown.
    fn history_mark(&self) -> Option<BoxFuture<'_, Result<HistoryMark, Error>>> {
        Some(
            async move {
                #[derive(Deserialize, Default)]
                #[serde(rename_all = "camelCase")]
                struct Meta {
                    resource_version: Option<String>,
                    remaining_item_count: Option<i64>,
                    #[serde(rename = "continue")]
                    continue_token: Option<String>,
                    uid: Option<String>,
                }
                #[derive(Deserialize)]
                struct Head {
                    #[serde(default)]
                    metadata: Meta,
                    #[serde(default)]
                    items: Vec<serde::de::IgnoredAny>,
                }
                use http_body_util::BodyExt as _;
                // The one-item page and the cluster's identity are asked at once: one round
                // trip, not two, before the watch (or the first list) goes on.
                let page = async {
                    let url = format!("{}?limit=1", self.path);
                    // Through `send_checked`, so a refusal's `Retry-After` reaches the backoff.
                    let res =
                        send_checked(&self.client, self.get(url, false)?, &self.asked_wait).await?;
                    let body = res
                        .into_body()
                        .collect()
                        .await
                        .map_err(|e| Error::Connect(format!("list body: {e}")))?
                        .to_bytes();
                    serde_json::from_slice::<Head>(&body).map_err(|e| Error::Decode(e.to_string()))
                };
                // Its own asked wait: the two answers arrive in either order, and a refusal of
                // either (429 with Retry-After) must reach the backoff.
                let identity_wait = AskedWait::default();
                let identity = async {
                    let ns = self.get("/api/v1/namespaces/kube-system".to_string(), false)?;
                    match send_checked(&self.client, ns, &identity_wait).await {
                        Ok(res) => {
                            let body = res
                                .into_body()
                                .collect()
                                .await
                                .map_err(|e| Error::Connect(format!("namespace body: {e}")))?
                                .to_bytes();
                            Ok(serde_json::from_slice::<Head>(&body)
                                .ok()
                                .and_then(|h| h.metadata.uid))
                        }
                        // A user who may not read kube-system: the identity is unknown.
                        Err(Error::Forbidden(_)) => Ok(None),
                        Err(Error::Api {
                            code: 401 | 404, ..
                        }) => Ok(None),
                        Err(e) => Err(e),
                    }
                };
                let (head, cluster_uid) = match futures::future::try_join(page, identity).await {
                    Ok(both) => both,
                    Err(e) => {
                        let asked = self.asked_wait.take().max(identity_wait.take());
                        self.asked_wait.set(asked);
                        return Err(e);
                    }
                };
                let items = head.items.len() as u64;
                // A one-item page says how many follow; a page without `continue` is all.
                let total = match head.metadata.remaining_item_count {
                    Some(r) => u64::try_from(r).ok().map(|r| r + items),
                    None if head.metadata.continue_token.is_none_or(|c| c.is_empty()) => {
                        Some(items)
                    }
                    None => None,
                };
                Ok(HistoryMark {
                    resource_version: head.metadata.resource_version.unwrap_or_default(),
                    total,
                    cluster_uid,
                })
            }
            .boxed(),
        )
    }

    fn list(&self, opts: &ListOptions) -> BoxFuture<'_, Result<ListPage<K>, Error>> {
        let opts = opts.clone();
        async move {
            let mut items = Vec::new();
            let mut page = self.list_each(&opts, &mut |obj| items.push(obj)).await?;
            page.items = items;
            Ok(page)
        }
        .boxed()
    }

    fn list_each<'a>(
        &'a self,
        opts: &ListOptions,
        sink: &'a mut (dyn FnMut(K) + Send),
    ) -> BoxFuture<'a, Result<ListPage<K>, Error>> {
        let url = list_url(&self.path, opts);
        let opts = opts.clone();
        async move {
            let decode: ObjectDecoder<K> = self
                .decode
                .clone()
                .unwrap_or_else(|| Arc::new(serde_decode::<K>));
            if let Some(p) = self.proto.as_ref().filter(|p| p.active()) {
                // No prefetch: protobuf is asked for lists a watch cache answers whole.
                return p
                    .list_each(
                        &self.client,
                        &url,
                        decode,
                        sink,
                        &self.received,
                        &self.asked_wait,
                    )
                    .await;
            }
            let mut decoder = JsonListDecoder::new(decode);
            let pending = self.prefetch.lock().take();
            let prefetched = match pending {
                Some(p) if p.url == url => p.task.await.ok(),
                Some(p) => {
                    p.task.abort();
                    None
                }
                None => None,
            };
            match prefetched {
                Some(body) => {
                    // A page requested ahead (bounded by `limit`): ask for the next one, then
                    // decode this one.
                    let body = body?;
                    self.received
                        .fetch_add(body.len() as u64, Ordering::Relaxed);
                    if let Some(token) = peek_continue(&body) {
                        self.start_prefetch(&opts, token).await?;
                    }
                    decoder.feed(body.as_bytes(), sink)?;
                }
                None => {
                    // Decode the body as it arrives: a list answered whole by a watch cache is
                    // never held whole.
                    let req = self.get(url, false)?;
                    let reader = self.body_reader(req).await?;
                    let mut reader = std::pin::pin!(reader);
                    let mut prefetching = false;
                    loop {
                        let chunk = reader
                            .fill_buf()
                            .await
                            .map_err(|e| Error::Connect(format!("list body: {e}")))?;
                        if chunk.is_empty() {
                            break;
                        }
                        let n = chunk.len();
                        self.received.fetch_add(n as u64, Ordering::Relaxed);
                        decoder.feed(chunk, sink)?;
                        reader.consume_unpin(n);
                        if !prefetching
                            && let Some(token) = decoder
                                .meta()
                                .and_then(|m| m.continue_token.clone())
                                .filter(|t| !t.is_empty())
                        {
                            prefetching = true;
                            self.start_prefetch(&opts, token).await?;
                        }
                    }
                }
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
        .boxed()
    }

    fn watch(&self, opts: &WatchOptions) -> BoxFuture<'_, Result<WatchStream<K>, Error>> {
        let url = watch_url(&self.path, opts);
        async move {
            if let Some(p) = self.proto.as_ref().filter(|p| p.active()) {
                let decode: ObjectDecoder<K> = self
                    .decode
                    .clone()
                    .unwrap_or_else(|| Arc::new(serde_decode::<K>));
                return p
                    .watch(
                        &self.client,
                        &url,
                        decode,
                        self.received.clone(),
                        &self.asked_wait,
                    )
                    .await;
            }
            let req = self.get(url, true)?;
            let reader = self.body_reader(req).await?;
            let decode: ObjectDecoder<K> = self
                .decode
                .clone()
                .unwrap_or_else(|| Arc::new(serde_decode::<K>));
            // Decoding is synchronous: each line is decoded in the closure, no per-event task.
            let received = self.received.clone();
            let stream = reader.lines().filter_map(move |line| {
                futures::future::ready(match line {
                    Ok(line) => {
                        received.fetch_add(line.len() as u64 + 1, Ordering::Relaxed);
                        decode_watch_line_with(&line, |json| decode(json)).map(Ok)
                    }
                    Err(e) => Some(Err(Error::Connect(format!("watch stream: {e}")))),
                })
            });
            Ok(stream.boxed())
        }
        .boxed()
    }
}

// ---------------------------------------------------------------------------------------------
// FakeListerWatcher
// ---------------------------------------------------------------------------------------------

/// One step of a scripted watch.
#[derive(Debug)]
pub enum WatchStep<K> {
    /// Deliver this event.
    Event(WatchEvent<K>),
    /// Deliver a transport error (an `Err` item); the stream ends after it.
    Fail(Error),
    /// Wait this long (on tokio's clock) before the next step.
    Sleep(Duration),
}

/// How a scripted watch ends after its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WatchEnd {
    /// The server closes the watch normally.
    Close,
    /// The watch stays open (silent) until the consumer drops it.
    Hang,
}

/// A scripted watch: steps, then an end. Build with [`WatchScript::new`] and the builder methods.
#[derive(Debug)]
pub struct WatchScript<K> {
    steps: Vec<WatchStep<K>>,
    end: WatchEnd,
    live: Option<mpsc::UnboundedReceiver<Result<WatchEvent<K>, Error>>>,
}

impl<K> Default for WatchScript<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> WatchScript<K> {
    /// An empty script that closes normally.
    pub fn new() -> Self {
        Self {
            steps: Vec::new(),
            end: WatchEnd::Close,
            live: None,
        }
    }
    /// Deliver `event`.
    pub fn event(mut self, event: WatchEvent<K>) -> Self {
        self.steps.push(WatchStep::Event(event));
        self
    }
    /// Deliver an `ADDED`.
    pub fn added(self, obj: K) -> Self {
        self.event(WatchEvent::Added(obj))
    }
    /// Deliver a `MODIFIED`.
    pub fn modified(self, obj: K) -> Self {
        self.event(WatchEvent::Modified(obj))
    }
    /// Deliver a `DELETED`.
    pub fn deleted(self, obj: K) -> Self {
        self.event(WatchEvent::Deleted(obj))
    }
    /// Deliver a `BOOKMARK`.
    pub fn bookmark(self, rv: &str, initial_events_end: bool) -> Self {
        self.event(WatchEvent::Bookmark {
            resource_version: rv.to_string(),
            initial_events_end,
        })
    }
    /// Deliver an `ERROR` event carrying `err`.
    pub fn error_event(self, err: Error) -> Self {
        self.event(WatchEvent::Error(err))
    }
    /// Wait `d` before the next step.
    pub fn sleep(mut self, d: Duration) -> Self {
        self.steps.push(WatchStep::Sleep(d));
        self
    }
    /// End with a transport error.
    pub fn then_fail(mut self, err: Error) -> Self {
        self.steps.push(WatchStep::Fail(err));
        self.end = WatchEnd::Close;
        self
    }
    /// End with a normal close (the default).
    pub fn then_close(mut self) -> Self {
        self.end = WatchEnd::Close;
        self
    }
    /// Stay open until the consumer drops the stream.
    pub fn then_hang(mut self) -> Self {
        self.end = WatchEnd::Hang;
        self
    }
}

impl<K: Send + 'static> WatchScript<K> {
    fn into_stream(self) -> WatchStream<K> {
        let WatchScript { steps, end, live } = self;
        async_stream::stream! {
            for step in steps {
                match step {
                    WatchStep::Event(ev) => yield Ok(ev),
                    WatchStep::Fail(err) => {
                        yield Err(err);
                        return;
                    }
                    WatchStep::Sleep(d) => tokio::time::sleep(d).await,
                }
            }
            if let Some(mut rx) = live {
                while let Some(item) = rx.recv().await {
                    let failed = item.is_err();
                    yield item;
                    if failed {
                        return;
                    }
                }
                return;
            }
            if end == WatchEnd::Hang {
                futures::future::pending::<()>().await;
            }
        }
        .boxed()
    }
}

struct FakeState<K> {
    lists: VecDeque<Result<ListPage<K>, Error>>,
    watches: VecDeque<Result<WatchScript<K>, Error>>,
    list_calls: Vec<ListOptions>,
    watch_calls: Vec<WatchOptions>,
    /// When each call arrived (tokio's clock), parallel to `list_calls` / `watch_calls`.
    list_times: Vec<tokio::time::Instant>,
    watch_times: Vec<tokio::time::Instant>,
    /// `None`: the fake cannot be probed; `Some(up)`: probes answer `Ok` when `up`.
    probe_up: Option<bool>,
    probe_times: Vec<tokio::time::Instant>,
    /// `None`: no history check; `Some`: what every history check answers.
    history: Option<Result<HistoryMark, Error>>,
    history_calls: usize,
}

/// A scriptable [`ListerWatcher`] for tests: queue list responses and watch scripts, then assert
/// on the options every call received. A call with nothing queued waits (until the caller gives
/// up on it), so an over-eager consumer is visible as a recorded call, not as an invented answer.
pub struct FakeListerWatcher<K> {
    state: Mutex<FakeState<K>>,
    /// Signalled after every recorded call and every newly queued response.
    changed: Notify,
}

impl<K> Default for FakeListerWatcher<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> FakeListerWatcher<K> {
    /// An empty fake.
    pub fn new() -> Self {
        Self {
            state: Mutex::new(FakeState {
                lists: VecDeque::new(),
                watches: VecDeque::new(),
                list_calls: Vec::new(),
                watch_calls: Vec::new(),
                list_times: Vec::new(),
                watch_times: Vec::new(),
                probe_up: None,
                probe_times: Vec::new(),
                history: None,
                history_calls: 0,
            }),
            changed: Notify::new(),
        }
    }

    /// Answer recovery probes from now on: `Ok` when `up`, a connection error otherwise.
    pub fn set_probe(&self, up: bool) {
        self.state.lock().probe_up = Some(up);
    }

    /// When each probe arrived (tokio's clock).
    pub fn probe_call_times(&self) -> Vec<tokio::time::Instant> {
        self.state.lock().probe_times.clone()
    }

    /// Answer history checks ([`ListerWatcher::history_mark`]) with `answer` from now on.
    pub fn set_history(&self, answer: Result<HistoryMark, Error>) {
        self.state.lock().history = Some(answer);
        self.changed.notify_waiters();
    }

    /// History checks asked so far.
    pub fn history_calls(&self) -> usize {
        self.state.lock().history_calls
    }

    /// Queue one list page.
    pub fn push_list_page(
        &self,
        items: Vec<K>,
        resource_version: &str,
        continue_token: Option<&str>,
    ) {
        self.push_list(Ok(ListPage {
            items,
            resource_version: resource_version.to_string(),
            continue_token: continue_token.map(str::to_string),
            remaining_item_count: None,
            malformed: 0,
        }));
    }

    /// Queue one list response (a page, or an error).
    pub fn push_list(&self, response: Result<ListPage<K>, Error>) {
        self.state.lock().lists.push_back(response);
        self.changed.notify_waiters();
    }

    /// Queue one list error.
    pub fn push_list_error(&self, err: Error) {
        self.push_list(Err(err));
    }

    /// Queue one watch script.
    pub fn push_watch(&self, script: WatchScript<K>) {
        self.state.lock().watches.push_back(Ok(script));
        self.changed.notify_waiters();
    }

    /// Queue one failing watch request.
    pub fn push_watch_error(&self, err: Error) {
        self.state.lock().watches.push_back(Err(err));
        self.changed.notify_waiters();
    }

    /// Queue a live watch: events sent on the returned sender are delivered as they come; an `Err`
    /// ends the watch with that transport error; dropping the sender closes it normally.
    pub fn push_watch_live(&self) -> mpsc::UnboundedSender<Result<WatchEvent<K>, Error>> {
        let (tx, rx) = mpsc::unbounded_channel();
        let script = WatchScript {
            steps: Vec::new(),
            end: WatchEnd::Close,
            live: Some(rx),
        };
        self.state.lock().watches.push_back(Ok(script));
        self.changed.notify_waiters();
        tx
    }

    /// Every `ListOptions` received so far, in order.
    pub fn list_calls(&self) -> Vec<ListOptions> {
        self.state.lock().list_calls.clone()
    }

    /// Every `WatchOptions` received so far, in order.
    pub fn watch_calls(&self) -> Vec<WatchOptions> {
        self.state.lock().watch_calls.clone()
    }

    /// When each list call arrived (tokio's clock).
    pub fn list_call_times(&self) -> Vec<tokio::time::Instant> {
        self.state.lock().list_times.clone()
    }

    /// When each watch call arrived (tokio's clock).
    pub fn watch_call_times(&self) -> Vec<tokio::time::Instant> {
        self.state.lock().watch_times.clone()
    }

    /// Responses queued and not yet consumed: (lists, watches).
    pub fn pending(&self) -> (usize, usize) {
        let st = self.state.lock();
        (st.lists.len(), st.watches.len())
    }

    /// Wait until at least `n` list calls have been received.
    pub async fn wait_for_list_calls(&self, n: usize) {
        self.wait_until(|st| st.list_calls.len() >= n).await;
    }

    /// Wait until at least `n` watch calls have been received.
    pub async fn wait_for_watch_calls(&self, n: usize) {
        self.wait_until(|st| st.watch_calls.len() >= n).await;
    }

    async fn wait_until(&self, cond: impl Fn(&FakeState<K>) -> bool) {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if cond(&self.state.lock()) {
                return;
            }
            notified.await;
        }
    }
}

impl<K: Object> ListerWatcher<K> for FakeListerWatcher<K> {
    fn list(&self, opts: &ListOptions) -> BoxFuture<'_, Result<ListPage<K>, Error>> {
        let opts = opts.clone();
        async move {
            {
                let mut st = self.state.lock();
                st.list_calls.push(opts);
                st.list_times.push(tokio::time::Instant::now());
            }
            self.changed.notify_waiters();
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                if let Some(resp) = self.state.lock().lists.pop_front() {
                    return resp;
                }
                notified.await;
            }
        }
        .boxed()
    }

    fn watch(&self, opts: &WatchOptions) -> BoxFuture<'_, Result<WatchStream<K>, Error>> {
        let opts = opts.clone();
        async move {
            {
                let mut st = self.state.lock();
                st.watch_calls.push(opts);
                st.watch_times.push(tokio::time::Instant::now());
            }
            self.changed.notify_waiters();
            loop {
                let notified = self.changed.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                let next = self.state.lock().watches.pop_front();
                if let Some(resp) = next {
                    return resp.map(WatchScript::into_stream);
                }
                notified.await;
            }
        }
        .boxed()
    }

    fn history_mark(&self) -> Option<BoxFuture<'_, Result<HistoryMark, Error>>> {
        let mut st = self.state.lock();
        let answer = st.history.clone()?;
        st.history_calls += 1;
        drop(st);
        self.changed.notify_waiters();
        Some(futures::future::ready(answer).boxed())
    }

    fn probe(&self) -> Option<BoxFuture<'_, Result<(), Error>>> {
        let mut st = self.state.lock();
        let up = st.probe_up?;
        st.probe_times.push(tokio::time::Instant::now());
        Some(
            futures::future::ready(if up {
                Ok(())
            } else {
                Err(Error::Connect("connection refused".into()))
            })
            .boxed(),
        )
    }
}

/// Share a fake as the `Arc<dyn ListerWatcher<K>>` the reflector takes, keeping a handle.
impl<K: Object> FakeListerWatcher<K> {
    /// A new fake in an `Arc`.
    pub fn shared() -> Arc<Self> {
        Arc::new(Self::new())
    }
}

#[cfg(test)]
mod tests;
