//! The HTTP face of the demo cluster: an axum server on 127.0.0.1 that speaks the kube-apiserver
//! REST protocol for the resources in [`super::resources::RESOURCES`].
//!
//! Invariants:
//! - every API failure is a `v1 Status` with the apiserver's code and reason, never a panic;
//! - lists stream pre-serialized objects in chunks (no whole-body string for 100k pods);
//! - a watch sends history after its resourceVersion, then live events, in rv order; objects
//!   entering a selector arrive as ADDED, leaving as DELETED; a too-old rv is a 410 ERROR event;
//! - bookmarks carry the rv of the last event this watch has seen (from any kind), never more.

use crate::informer::wire_values as wv;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::StreamExt as _;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::task::JoinHandle;

use super::cluster::{
    DeleteOptions, DemoCluster, EventType, PageRequest, Propagation, ReadAt, Stored, UpdateMode,
    decode_continue, parse_rv, with_rv,
};
use super::error::{DemoError, StatusError};
use super::faults::FaultInjector;
use super::managed::WriteOptions;
use super::metrics::{DemoMetrics, MetricsMode};
use super::patch::PatchType;
use super::rbac::{self, NamespaceUser, RequestAttributes, Subject};
use super::resources::{self, RESOURCES, ResourceInfo};
use super::table::{self, IncludeObject};
use crate::selector::{FieldSelector, LabelSelector};

mod lists;
mod writes;
use lists::*;

/// How to start the demo server.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    /// TCP port on 127.0.0.1; 0 picks a free port.
    pub port: u16,
    /// Number of events kept for watch resumption and consistent continuation (etcd compaction).
    pub history: usize,
    /// Period of BOOKMARK events on watches that allow them.
    pub bookmark_interval: Duration,
    /// Watches without `timeoutSeconds` end after a random time in `[t, 2t)` (kube-apiserver's
    /// `--min-request-timeout` behaviour).
    pub min_request_timeout: Duration,
    /// Serve `metrics.k8s.io` (false: absent, as without metrics-server).
    pub metrics: bool,
    /// metrics-server's `--metric-resolution`: how often usage changes.
    pub metrics_resolution: Duration,
    /// Mimic an API server whose etcd lacks RequestWatchProgress (etcd before 3.4.31/3.5.13):
    /// streaming lists (`sendInitialEvents=true`) are refused with a 500 ERROR event.
    pub watch_list_unsupported: bool,
    /// Lines per second each running container writes to its log (see [`super::logs`]); a pod
    /// annotation `demo.kinformer.io/log-lines-per-second` overrides it.
    pub log_lines_per_second: f64,
    /// A namespace-scoped user (see [`super::rbac`]): requests with its bearer token may only
    /// read pods, events and configmaps in its namespace; the kubeconfig's current context is
    /// that user's.
    pub namespace_user: Option<NamespaceUser>,
}

impl Default for DemoOptions {
    fn default() -> Self {
        Self {
            port: 0,
            history: 100_000,
            bookmark_interval: Duration::from_secs(60),
            min_request_timeout: Duration::from_secs(1800),
            metrics: true,
            metrics_resolution: Duration::from_secs(15),
            watch_list_unsupported: false,
            log_lines_per_second: 2.0,
            namespace_user: None,
        }
    }
}

/// Entry point.
pub struct DemoServer;

impl DemoServer {
    /// Bind 127.0.0.1:`port` and serve a fresh cluster.
    pub async fn start(opts: DemoOptions) -> Result<DemoHandle, DemoError> {
        let cluster = DemoCluster::new(opts.history);
        Self::start_with(opts, cluster).await
    }

    /// Serve an existing cluster.
    pub async fn start_with(
        opts: DemoOptions,
        cluster: Arc<DemoCluster>,
    ) -> Result<DemoHandle, DemoError> {
        let listener = TcpListener::bind(("127.0.0.1", opts.port))
            .await
            .map_err(|source| DemoError::Bind {
                port: opts.port,
                source,
            })?;
        let addr = listener.local_addr()?;
        let faults = FaultInjector::new();
        let (restart_tx, restart_rx) = mpsc::unbounded_channel();
        faults.set_restart_channel(restart_tx);
        let metrics = DemoMetrics::new(opts.metrics, opts.metrics_resolution);
        let app = Arc::new(App {
            cluster: cluster.clone(),
            faults: faults.clone(),
            opts: opts.clone(),
            addr,
            metrics: metrics.clone(),
        });
        let router = Router::new()
            .route("/_demo/faults/{action}", post(admin))
            .merge(super::exec::router(cluster.clone()))
            .fallback(api)
            .layer(axum::middleware::from_fn_with_state(app.clone(), authorize))
            .with_state(app);
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        tokio::spawn(super::metrics::run_oom_killer(
            metrics.clone(),
            cluster.clone(),
            shutdown_rx.clone(),
        ));
        tokio::spawn(run_kubelet(cluster.clone(), shutdown_rx.clone()));
        let task = tokio::spawn(serve_loop(
            cluster.clone(),
            listener,
            addr,
            router.clone(),
            faults.clone(),
            restart_rx,
            shutdown_rx,
        ));
        tracing::info!(%addr, "demo API server listening");
        Ok(DemoHandle {
            namespace_user: opts.namespace_user.clone(),
            addr,
            router,
            cluster,
            faults,
            metrics,
            shutdown_tx,
            task,
        })
    }
}

/// The simulated kubelet: removes pods whose grace period has passed. Sleeps until the next
/// deadline, or until a pod enters its grace period (its deadline may be the nearest).
async fn run_kubelet(cluster: Arc<DemoCluster>, mut shutdown_rx: watch::Receiver<bool>) {
    loop {
        let now = std::time::Instant::now();
        cluster.reap_terminated(now);
        let wait = cluster
            .next_grace_deadline()
            .map_or(Duration::from_secs(3600), |d| {
                d.saturating_duration_since(now)
            })
            .max(Duration::from_millis(5));
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = cluster.grace_started() => {}
            _ = shutdown_rx.changed() => return,
        }
    }
}

async fn serve_loop(
    cluster: Arc<DemoCluster>,
    listener: TcpListener,
    addr: SocketAddr,
    router: Router,
    faults: FaultInjector,
    mut restart_rx: mpsc::UnboundedReceiver<Duration>,
    mut shutdown_rx: watch::Receiver<bool>,
) {
    let mut listener = Some(listener);
    loop {
        let l = match listener.take() {
            Some(l) => l,
            None => match TcpListener::bind(addr).await {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(%addr, error = %e, "cannot re-bind the demo server; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_millis(100)) => continue,
                        _ = shutdown_rx.changed() => return,
                    }
                }
            },
        };
        let (stop_tx, stop_rx) = oneshot::channel::<()>();
        let serve = axum::serve(l, router.clone()).with_graceful_shutdown(async move {
            let _ = stop_rx.await;
        });
        let mut serving = tokio::spawn(async move { serve.await });
        let downtime = tokio::select! {
            d = restart_rx.recv() => d,
            _ = shutdown_rx.changed() => None,
            r = &mut serving => {
                tracing::warn!(?r, "demo server stopped");
                return;
            }
        };
        faults.drop_watches();
        let _ = stop_tx.send(());
        if tokio::time::timeout(Duration::from_secs(2), &mut serving)
            .await
            .is_err()
        {
            serving.abort();
        }
        match downtime {
            Some(d) => {
                tracing::info!(?d, "demo server restarting");
                tokio::time::sleep(d).await;
                // The new API server's watch cache starts at the current revision.
                cluster.restart_watch_cache();
                faults.start_cache_rebuild();
            }
            None => return,
        }
    }
}

/// A running demo server.
#[derive(Debug)]
pub struct DemoHandle {
    namespace_user: Option<NamespaceUser>,
    addr: SocketAddr,
    router: Router,
    cluster: Arc<DemoCluster>,
    faults: FaultInjector,
    metrics: Arc<DemoMetrics>,
    shutdown_tx: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl DemoHandle {
    /// The server's request handling (authorization, routing, every handler), to send it
    /// requests in-process, without a socket (the request-parsing property tests do).
    pub fn router(&self) -> Router {
        self.router.clone()
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A kubeconfig with context `kinformer-demo` pointing at this server (namespace `default`).
    /// With a [`DemoOptions::namespace_user`], it also has that user's context
    /// `kinformer-demo-<user>` (its namespace, its token), and that context is the current one.
    pub fn kubeconfig_yaml(&self) -> String {
        let (current, extra_context, extra_user) = match &self.namespace_user {
            None => ("kinformer-demo".to_string(), String::new(), String::new()),
            Some(u) => (
                format!("kinformer-demo-{}", u.name),
                format!(
                    "- name: kinformer-demo-{0}\n  context:\n    cluster: kinformer-demo\n    user: {0}\n    namespace: {1}\n",
                    u.name, u.namespace
                ),
                // `as:` too: kubectl sends no bearer token over plain HTTP.
                format!(
                    "- name: {0}\n  user:\n    token: {1}\n    as: {0}\n",
                    u.name, u.token
                ),
            ),
        };
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: kinformer-demo\n  cluster:\n    server: {}\ncontexts:\n- name: kinformer-demo\n  context:\n    cluster: kinformer-demo\n    user: kinformer-demo\n    namespace: default\n{extra_context}current-context: {current}\nusers:\n- name: kinformer-demo\n  user: {{}}\n{extra_user}preferences: {{}}\n",
            self.base_url()
        )
    }

    /// Write [`Self::kubeconfig_yaml`] to `path`.
    pub fn write_kubeconfig(&self, path: impl AsRef<Path>) -> Result<(), DemoError> {
        std::fs::write(path, self.kubeconfig_yaml())?;
        Ok(())
    }

    pub fn cluster(&self) -> Arc<DemoCluster> {
        self.cluster.clone()
    }

    pub fn faults(&self) -> FaultInjector {
        self.faults.clone()
    }

    /// The `metrics.k8s.io` API (its mode: serving, absent, unavailable, forbidden).
    pub fn metrics(&self) -> Arc<DemoMetrics> {
        self.metrics.clone()
    }

    /// Stop serving (open watches are closed) and wait for the server task.
    pub async fn shutdown(self) {
        let _ = self.shutdown_tx.send(true);
        let _ = self.task.await;
    }
}

struct App {
    cluster: Arc<DemoCluster>,
    faults: FaultInjector,
    opts: DemoOptions,
    addr: SocketAddr,
    metrics: Arc<DemoMetrics>,
}

/// RBAC in front of every route (API, exec/attach/port-forward): a request of the
/// namespace-scoped user that its rules do not grant gets kube-apiserver's 403.
async fn authorize(
    State(app): State<Arc<App>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let subject = Subject::of(app.opts.namespace_user.as_ref(), req.headers());
    if let Subject::User(_) = subject {
        let path = req.uri().path();
        let watch = Query::<Params>::try_from_uri(req.uri())
            .ok()
            .and_then(|Query(q)| q.get("watch").cloned())
            .is_some_and(|w| w == "true" || w == "1");
        let denied = if path.starts_with("/_demo/") {
            None
        } else {
            match RequestAttributes::parse(req.method().as_str(), path, watch) {
                Some(a) => subject.authorize(&a.borrowed()).err(),
                None => {
                    let verb = req.method().as_str().to_ascii_lowercase();
                    (!subject.allows_path(&verb, path))
                        .then(|| rbac::forbidden_path(subject.name(), &verb, path))
                }
            }
        };
        if let Some(e) = denied {
            tracing::debug!(uri = %req.uri(), user = subject.name(), "demo RBAC: forbidden");
            return negotiated_status_response(&e, req.headers());
        }
    }
    next.run(req).await
}

fn json_response(code: StatusCode, v: &Value) -> Response {
    let body = serde_json::to_vec(v).unwrap_or_default();
    (
        code,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        body,
    )
        .into_response()
}

fn bytes_response(code: StatusCode, b: Bytes) -> Response {
    (
        code,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        b,
    )
        .into_response()
}

fn status_response(e: &StatusError) -> Response {
    status_response_as(e, false)
}

/// The error answer in the encoding the request negotiated (protobuf for a client that asked
/// for it first, as kube-apiserver's `ErrorNegotiated`; JSON otherwise).
fn negotiated_status_response(e: &StatusError, headers: &HeaderMap) -> Response {
    status_response_as(e, super::wire::asks_protobuf_first(headers))
}

fn status_response_as(e: &StatusError, proto: bool) -> Response {
    let code = StatusCode::from_u16(e.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut r = if proto {
        super::wire::status_response(code, e)
    } else {
        json_response(code, &e.to_status())
    };
    // kube-apiserver's `ErrorNegotiated` writes `Retry-After` from `details.retryAfterSeconds`
    // when it is positive, whatever the code; a 429 without it (an eviction refused by a
    // disruption budget) has none: clients retry on their own schedule.
    let retry_after = e
        .details
        .as_ref()
        .and_then(|d| d.get("retryAfterSeconds"))
        .and_then(serde_json::Value::as_u64)
        .filter(|s| *s > 0)
        .or((e.code == 504).then_some(1));
    if let Some(secs) = retry_after {
        r.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from(secs));
    }
    r
}

impl IntoResponse for StatusError {
    fn into_response(self) -> Response {
        status_response(&self)
    }
}

async fn admin(
    State(app): State<Arc<App>>,
    axum::extract::Path(action): axum::extract::Path<String>,
    uri: Uri,
) -> Response {
    let q: HashMap<String, String> = Query::try_from_uri(&uri)
        .map(|Query(q)| q)
        .unwrap_or_default();
    let num = |k: &str, d: u64| q.get(k).and_then(|v| v.parse::<u64>().ok()).unwrap_or(d);
    let f = &app.faults;
    match action.as_str() {
        "drop-watches" => f.drop_watches(),
        "gone-next-watch" => f.gone_next_watch(),
        "gone-next-list" => f.gone_next_list(),
        "fail" => {
            let code = u16::try_from(num("code", 500)).unwrap_or(500);
            f.fail_next_asking(
                code,
                u32::try_from(num("count", 1)).unwrap_or(1),
                u32::try_from(num("retry_after", u64::from(code == 429))).unwrap_or(1),
            )
        }
        "latency" => f.set_latency(Duration::from_millis(num("ms", 0))),
        "send-rate" => {
            // `pb_mbps` for protobuf bodies; JSON's rate when absent.
            let json = num("mbps", 0);
            f.set_send_rates(
                json.saturating_mul(1_000_000),
                num("pb_mbps", json).saturating_mul(1_000_000),
            )
        }
        "forbid" | "allow" => {
            let Some(res) = q.get("resource") else {
                return StatusError::bad_request("resource is required").into_response();
            };
            let group = q.get("group").map(String::as_str).unwrap_or("");
            if action == "forbid" {
                f.forbid(group, res);
            } else {
                f.allow(group, res);
            }
        }
        "restart" => {
            if !f.restart(Duration::from_millis(num("downtime_ms", 500))) {
                return StatusError::internal("server is not running").into_response();
            }
        }
        "snapshot" => f.save_snapshot(&app.cluster),
        "restore" => {
            if !f.restore_snapshot(&app.cluster) {
                return StatusError::bad_request("no snapshot: call snapshot first")
                    .into_response();
            }
        }
        "recreate" => f.recreate_cluster(&app.cluster),
        "clear" => f.clear(),
        "metrics" => {
            let Some(mode) = q.get("mode").and_then(|m| MetricsMode::parse(m)) else {
                return StatusError::bad_request(
                    "mode must be serving, absent, unavailable or forbidden",
                )
                .into_response();
            };
            app.metrics.set_mode(mode);
        }
        _ => return StatusError::unknown_path().into_response(),
    }
    json_response(StatusCode::OK, &json!({"ok": true, "action": action}))
}

/// `/openapi/v2`: the gnostic `openapi_v2.Document` with only `swagger` and `info`, as protobuf
/// (what kubectl asks for) or JSON.
fn openapi_v2(headers: &HeaderMap) -> Response {
    let wants_pb = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("protobuf"));
    if !wants_pb {
        return json_response(
            StatusCode::OK,
            &json!({"swagger": "2.0", "info": {"title": "Kubernetes", "version": "v1.33.0"},
                    "paths": {}, "definitions": {}}),
        );
    }
    fn field(out: &mut Vec<u8>, tag: u8, bytes: &[u8]) {
        out.push(tag);
        // All lengths here are < 128: a one-byte varint.
        out.push(u8::try_from(bytes.len()).unwrap_or(0));
        out.extend_from_slice(bytes);
    }
    let mut info = Vec::new();
    field(&mut info, 0x0a, b"Kubernetes"); // Info.title = 1
    field(&mut info, 0x12, b"v1.33.0"); // Info.version = 2
    let mut doc = Vec::new();
    field(&mut doc, 0x0a, b"2.0"); // Document.swagger = 1
    field(&mut doc, 0x12, &info); // Document.info = 2
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
        )],
        doc,
    )
        .into_response()
}

fn has_scale(info: &ResourceInfo) -> bool {
    matches!(
        info.id.plural,
        "deployments" | "replicasets" | "statefulsets"
    )
}

/// The `autoscaling/v1 Scale` view of a workload.
fn scale_of(obj: &Value) -> Value {
    let selector = obj
        .pointer("/spec/selector/matchLabels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or("")))
                .collect::<Vec<_>>()
                .join(",")
        })
        .unwrap_or_default();
    let meta = obj.get("metadata").cloned().unwrap_or(json!({}));
    let mut m = json!({});
    for f in [
        "name",
        "namespace",
        "uid",
        "resourceVersion",
        "creationTimestamp",
    ] {
        if let Some(v) = meta.get(f) {
            m[f] = v.clone();
        }
    }
    json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": m,
        "spec": {"replicas": obj.pointer("/spec/replicas").cloned().unwrap_or(json!(1))},
        "status": {
            "replicas": obj.pointer("/status/replicas").cloned().unwrap_or(json!(0)),
            "selector": selector,
        },
    })
}

/// GET / PUT / PATCH on `.../{name}/scale`.
fn scale_handler(
    app: &Arc<App>,
    t: &Target,
    verb: &str,
    headers: &HeaderMap,
    body: &[u8],
    write: &WriteOptions,
) -> Result<Response, StatusError> {
    let name = t.name.as_deref().unwrap_or_default();
    let ns = t.ns.as_deref();
    let cluster = &app.cluster;
    let current = cluster.get_stored(t.idx, ns, name)?;
    let obj = current.value()?;
    let mut scale = scale_of(&obj);
    match verb {
        "get" => return Ok(json_response(StatusCode::OK, &scale)),
        "update" => scale = parse_body(headers, body)?,
        "patch" => {
            let ct = headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let kind = PatchType::from_content_type(ct)?;
            let patch: Value = serde_json::from_slice(body)
                .map_err(|e| StatusError::bad_request(format!("error decoding patch: {e}")))?;
            super::patch::apply(kind, &mut scale, &patch)?;
        }
        _ => {
            return Err(StatusError::method_not_allowed(format!(
                "{verb} is not allowed on the scale subresource"
            )));
        }
    }
    let replicas = scale
        .pointer("/spec/replicas")
        .and_then(Value::as_i64)
        .filter(|r| *r >= 0)
        .ok_or_else(|| StatusError::bad_request("spec.replicas must be a non-negative integer"))?;
    let mut next = obj;
    next["spec"]["replicas"] = json!(replicas);
    // A resourceVersion in the Scale is a precondition on the workload.
    let rv = scale
        .pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .unwrap_or_else(|| current.rv.to_string());
    next["metadata"]["resourceVersion"] = json!(rv);
    // Recorded as kube-apiserver records it: the client's manager, through `scale`.
    let write = WriteOptions {
        subresource: Some("scale".into()),
        ..write.clone()
    };
    let updated = cluster.update_with(t.idx, ns, name, next, UpdateMode::Spec, &write)?;
    Ok(json_response(StatusCode::OK, &scale_of(&updated)))
}

/// Parsed request target.
struct Target {
    idx: usize,
    ns: Option<String>,
    name: Option<String>,
    status: bool,
    /// The `scale` subresource (deployments, replicasets, statefulsets).
    scale: bool,
    /// The `eviction` subresource of pods (POST only).
    eviction: bool,
}

enum Route {
    Doc(Value),
    /// `/healthz`, `/livez`, `/readyz`: plain-text `ok`.
    Healthy,
    /// A schema-less OpenAPI v2 document: kubectl's client-side validation finds no schema for
    /// any kind and skips validation (as it does for kinds a server does not describe).
    OpenApiV2,
    Resource(Target),
}

fn route(path: &str, served: resources::Served<'_>) -> Result<Route, StatusError> {
    let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
    let not_found = StatusError::unknown_path;
    let (group, version, rest): (&str, &str, &[&str]) = match segs.as_slice() {
        ["version"] => return Ok(Route::Doc(resources::version_info())),
        ["api"] => return Ok(Route::Doc(resources::api_versions("127.0.0.1"))),
        ["apis"] => return Ok(Route::Doc(resources::api_group_list(served))),
        ["healthz" | "livez" | "readyz"] => return Ok(Route::Healthy),
        ["api", v] => {
            return resources::api_resource_list("", v, served)
                .map(Route::Doc)
                .ok_or_else(not_found);
        }
        ["apis", g] => {
            return resources::api_group_doc(g, served)
                .map(Route::Doc)
                .ok_or_else(not_found);
        }
        ["apis", g, v] => {
            return resources::api_resource_list(g, v, served)
                .map(Route::Doc)
                .ok_or_else(not_found);
        }
        ["openapi", "v2"] => return Ok(Route::OpenApiV2),
        ["openapi", "v3"] => return Ok(Route::Doc(super::openapi::index())),
        ["openapi", "v3", "apis", g, v] => {
            return super::openapi::group_version_doc(g, v)
                .map(Route::Doc)
                .ok_or_else(not_found);
        }
        ["api", v, rest @ ..] => ("", *v, rest),
        ["apis", g, v, rest @ ..] => (*g, *v, rest),
        _ => return Err(not_found()),
    };
    let namespaced_prefix = rest.len() >= 3
        && rest[0] == "namespaces"
        && resources::find(group, version, rest[2])
            .is_some_and(|i| RESOURCES[i].namespaced && served(i));
    let (ns, rest) = if namespaced_prefix {
        (Some(rest[1].to_string()), &rest[2..])
    } else {
        (None, rest)
    };
    let (plural, name, sub) = match rest {
        [p] => (*p, None, None),
        [p, n] => (*p, Some(n.to_string()), None),
        [p, n, s] => (*p, Some(n.to_string()), Some(*s)),
        _ => return Err(not_found()),
    };
    let idx = resources::find(group, version, plural)
        .filter(|i| served(*i))
        .ok_or_else(not_found)?;
    let info = &RESOURCES[idx];
    if (ns.is_some() && !info.namespaced) || name.as_deref() == Some("") {
        return Err(not_found());
    }
    if info.namespaced && ns.is_none() && name.is_some() {
        return Err(not_found());
    }
    let (status, scale, eviction) = match sub {
        None => (false, false, false),
        Some("status") if info.status_subresource => (true, false, false),
        Some("scale") if has_scale(info) => (false, true, false),
        Some("eviction") if info.id.plural == "pods" && info.id.group.is_empty() => {
            (false, false, true)
        }
        Some(_) => return Err(not_found()),
    };
    Ok(Route::Resource(Target {
        idx,
        ns,
        name,
        status,
        scale,
        eviction,
    }))
}

type Params = HashMap<String, String>;

fn param<'a>(q: &'a Params, k: &str) -> Option<&'a str> {
    q.get(k).map(String::as_str).filter(|s| !s.is_empty())
}

fn bool_param(q: &Params, k: &str) -> Result<Option<bool>, StatusError> {
    match param(q, k) {
        None => Ok(None),
        Some("true" | "1") => Ok(Some(true)),
        Some("false" | "0") => Ok(Some(false)),
        Some(v) => Err(StatusError::bad_request(format!(
            "invalid value for {k}: {v:?}"
        ))),
    }
}

/// Representation the client asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Output {
    Json,
    Table(IncludeObject),
    Metadata,
    /// `application/vnd.kubernetes.protobuf` (see [`super::wire`]).
    Protobuf(&'static crate::informer::pb::schema::Msg),
}

fn output(headers: &HeaderMap, q: &Params) -> Output {
    let accept: String = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect::<Vec<_>>()
        .join(",")
        .replace(' ', "");
    for range in accept.split(',') {
        let params: Vec<&str> = range.split(';').skip(1).collect();
        let has = |p: &str| params.contains(&p);
        if has("g=meta.k8s.io") && has("v=v1") {
            if has("as=Table") {
                return Output::Table(IncludeObject::parse(param(q, "includeObject")));
            }
            if has("as=PartialObjectMetadataList") || has("as=PartialObjectMetadata") {
                return Output::Metadata;
            }
        }
    }
    Output::Json
}

fn metadata_object(v: &Value) -> Value {
    json!({"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
           "metadata": v.get("metadata").cloned().unwrap_or(json!({}))})
}

/// The selectors of a request, validated.
struct Filter {
    ns: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
}

impl Filter {
    fn new(info: &ResourceInfo, ns: Option<String>, q: &Params) -> Result<Self, StatusError> {
        let labels =
            LabelSelector::parse(param(q, "labelSelector").unwrap_or("")).map_err(|e| {
                StatusError::bad_request(format!("unable to parse requested label selector: {e}"))
            })?;
        let fields =
            FieldSelector::parse(param(q, "fieldSelector").unwrap_or("")).map_err(|e| {
                StatusError::bad_request(format!("unable to parse requested field selector: {e}"))
            })?;
        for r in &fields.requirements {
            if !info.supports_field(&r.field) {
                return Err(StatusError::bad_request(format!(
                    "field label not supported: {}",
                    r.field
                )));
            }
        }
        Ok(Self { ns, labels, fields })
    }

    fn matches(&self, s: &Stored) -> bool {
        if let Some(ns) = &self.ns
            && s.namespace.as_deref() != Some(ns.as_str())
        {
            return false;
        }
        self.labels
            .matches_fn(|k| s.labels.get(k).map(String::as_str))
            && self.fields.matches(|f| s.field(f))
    }
}

async fn api(
    State(app): State<Arc<App>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match handle(&app, method, &uri, &headers, body).await {
        Ok(r) => r,
        Err(e) => {
            tracing::debug!(%uri, error = %e, "demo API request failed");
            negotiated_status_response(&e, &headers)
        }
    }
}

fn verb(method: &Method, t: &Target, watch: bool) -> &'static str {
    match (method.as_str(), t.name.is_some()) {
        ("GET", _) if watch => "watch",
        ("GET", true) => "get",
        ("GET", false) => "list",
        ("POST", _) => "create",
        ("PUT", _) => "update",
        ("PATCH", _) => "patch",
        ("DELETE", true) => "delete",
        ("DELETE", false) => "deletecollection",
        _ => "unknown",
    }
}

/// The RV a list or streaming list asks the watch cache to be at least as new as (`NotOlderThan`,
/// or an RV without a limit; a streaming list's RV), if any.
fn watch_cache_read_rv(verb: &str, q: &Params) -> Option<u64> {
    let rv = param(q, "resourceVersion").filter(|r| !r.is_empty() && *r != "0")?;
    let rvm = param(q, "resourceVersionMatch");
    let cached = match verb {
        "list" => {
            param(q, "continue").is_none()
                && (rvm == Some("NotOlderThan") || (rvm.is_none() && param(q, "limit").is_none()))
        }
        "watch" => param(q, "sendInitialEvents") == Some("true"),
        _ => false,
    };
    cached.then(|| rv.parse().ok()).flatten()
}

/// Wait until the cluster's revision reaches `rv`, for at most `within`.
async fn wait_for_revision(cluster: &DemoCluster, rv: u64, within: Duration) {
    let mut events = cluster.subscribe();
    let deadline = tokio::time::Instant::now() + within;
    while cluster.resource_version() < rv {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(_)) | Ok(Err(broadcast::error::RecvError::Lagged(_))) => {}
            _ => return,
        }
    }
}

async fn handle(
    app: &Arc<App>,
    method: Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: Bytes,
) -> Result<Response, StatusError> {
    let faults = &app.faults;
    faults.count_request();
    let latency = faults.latency();
    if !latency.is_zero() {
        tokio::time::sleep(latency).await;
    }
    if let Some((code, wait)) = faults.take_error() {
        let mut e = match code {
            429 => StatusError::too_many_requests(wait),
            500 => StatusError::internal("injected fault"),
            503 => StatusError::new(
                503,
                wv::REASON_SERVICE_UNAVAILABLE,
                "the server is currently unable to handle the request",
            ),
            c => StatusError::new(c, wv::REASON_INTERNAL_ERROR, "injected fault"),
        };
        if wait > 0
            && let Some(d) = e
                .details
                .get_or_insert_with(|| serde_json::json!({}))
                .as_object_mut()
        {
            d.insert("retryAfterSeconds".into(), wait.into());
        }
        return Err(e);
    }
    if faults.cache_rebuilding()
        && !matches!(uri.path(), "/readyz" | "/livez" | "/healthz" | "/version")
    {
        return Err(StatusError::storage_initializing());
    }
    let q: Params = Query::try_from_uri(uri)
        .map(|Query(q)| q)
        .map_err(|e| StatusError::bad_request(format!("malformed query: {e}")))?;
    if let Some(r) = authorization_api(app, &method, uri.path(), headers, &body) {
        return r;
    }
    if let Some(r) = app.metrics.serve(&app.cluster, &method, uri.path(), &q) {
        return r.map(|v| json_response(StatusCode::OK, &v));
    }
    if let Some((ns, name)) = super::logs::log_path(uri.path()) {
        return pod_log(app, &method, &ns, &name, &q);
    }
    match uri
        .path()
        .trim_matches('/')
        .split('/')
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["api", v] => faults.on_discovery_request("", v).await,
        ["apis", g, v] => faults.on_discovery_request(g, v).await,
        _ => {}
    }
    let t = match route(uri.path(), &|i| app.cluster.serves(i))? {
        Route::Doc(mut v) => {
            if method != Method::GET {
                return Err(StatusError::method_not_allowed(format!(
                    "the server does not allow this method on the requested resource ({method})"
                )));
            }
            if uri.path().trim_matches('/') == "api" {
                v = resources::api_versions(&app.addr.to_string());
            }
            if uri.path().trim_matches('/') == "apis" {
                app.metrics.extend_group_list(&mut v);
            }
            return Ok(json_response(StatusCode::OK, &v));
        }
        Route::OpenApiV2 => return Ok(openapi_v2(headers)),
        Route::Healthy => {
            return Ok((
                StatusCode::OK,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "ok",
            )
                .into_response());
        }
        Route::Resource(t) => t,
    };
    let info = &RESOURCES[t.idx];
    let watch = method == Method::GET && bool_param(&q, "watch")?.unwrap_or(false);
    let verb = verb(&method, &t, watch);
    if faults.is_forbidden(info.id.group, info.id.plural) {
        return Err(StatusError::forbidden(
            verb,
            info.id.group,
            info.id.plural,
            t.ns.as_deref(),
        ));
    }
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let apply = verb == "patch" && PatchType::from_content_type(ct) == Ok(PatchType::Apply);
    let (write, force) = match verb {
        "create" | "update" | "patch" | "delete" => {
            writes::write_options(verb, apply, &q, headers)?
        }
        _ if param(&q, "dryRun").is_some() => {
            return Err(StatusError::bad_request(format!(
                "dryRun on {verb} is not supported by the kinformer demo server"
            )));
        }
        _ => Default::default(),
    };
    let out = match (output(headers, &q), super::wire::negotiate(headers, info)) {
        (Output::Json, Some(msg)) => Output::Protobuf(msg),
        (out, _) => out,
    };
    if t.scale {
        if write.dry_run {
            return Err(StatusError::bad_request(
                "dryRun on the scale subresource is not supported by the kinformer demo server",
            ));
        }
        return scale_handler(app, &t, verb, headers, &body, &write);
    }
    if t.eviction {
        if verb != "create" {
            return Err(StatusError::method_not_allowed(format!(
                "{verb} is not allowed on the eviction subresource"
            )));
        }
        let v = parse_body(headers, &body)?;
        let ns = t.ns.as_deref().unwrap_or("default");
        let name = t.name.as_deref().unwrap_or_default();
        let st = super::eviction::evict(&app.cluster, ns, name, &v)?;
        return Ok(json_response(StatusCode::CREATED, &st));
    }
    let mode = if t.status {
        UpdateMode::Status
    } else if info.status_subresource {
        UpdateMode::Spec
    } else {
        UpdateMode::Full
    };
    let cluster = &app.cluster;
    if let Some(rv) = watch_cache_read_rv(verb, &q) {
        // kube-apiserver's watch cache waits up to 3 s for a revision it has not reached
        // (`waitUntilFreshAndBlock`), then answers "Too large resource version".
        wait_for_revision(cluster, rv, Duration::from_secs(3)).await;
    }
    match verb {
        "watch" => watch_handler(app, &t, &q, out),
        "list" => list_handler(app, &t, &q, out),
        "get" => {
            let name = t.name.as_deref().unwrap_or_default();
            let s = cluster.get_stored(t.idx, t.ns.as_deref(), name)?;
            if let Output::Protobuf(msg) = out
                && let Some(r) = super::wire::single(info, &s, msg)
            {
                return Ok(r);
            }
            single(info, &s.bytes, out, s.rv)
        }
        "create" => {
            if t.status {
                return Err(StatusError::method_not_allowed(
                    "create is not allowed on status",
                ));
            }
            if info.namespaced && t.ns.is_none() {
                return Err(StatusError::unknown_path());
            }
            let mut v = parse_body(headers, &body)?;
            reset_status_on_create(info, &mut v);
            let v = cluster.create_with(t.idx, t.ns.as_deref(), v, &write)?;
            // A pod bound to a node at create: that node's kubelet runs it (its own write).
            if info.id.plural == "pods"
                && !write.dry_run
                && let (Some(ns), Some(name)) = (
                    t.ns.as_deref(),
                    v.pointer("/metadata/name").and_then(Value::as_str),
                )
            {
                super::kubelet::pod_created(cluster, ns, name);
            }
            Ok(json_response(StatusCode::CREATED, &v))
        }
        "update" => {
            let v = parse_body(headers, &body)?;
            let name = t.name.as_deref().unwrap_or_default();
            let v = cluster.update_with(t.idx, t.ns.as_deref(), name, v, mode, &write)?;
            Ok(json_response(StatusCode::OK, &v))
        }
        "patch" if apply => writes::apply_patch(app, &t, &body, &write, force, mode),
        "patch" => {
            let kind = PatchType::from_content_type(ct)?;
            let patch: Value = serde_json::from_slice(&body)
                .map_err(|e| StatusError::bad_request(format!("error decoding patch: {e}")))?;
            let name = t.name.as_deref().unwrap_or_default();
            let v = cluster.patch_with(t.idx, t.ns.as_deref(), name, kind, &patch, mode, &write)?;
            Ok(json_response(StatusCode::OK, &v))
        }
        "delete" => {
            if t.status {
                return Err(StatusError::method_not_allowed(
                    "delete is not allowed on status",
                ));
            }
            let opts = delete_options(&q, &body)?;
            let name = t.name.as_deref().unwrap_or_default();
            if write.dry_run {
                // What would be deleted, as it is: nothing is marked nor removed.
                let s = cluster.get_stored(t.idx, t.ns.as_deref(), name)?;
                return Ok(bytes_response(StatusCode::OK, s.bytes.clone()));
            }
            let s = cluster.delete(t.idx, t.ns.as_deref(), name, &opts)?;
            Ok(bytes_response(StatusCode::OK, s.bytes.clone()))
        }
        "deletecollection" => {
            let filter = Filter::new(info, t.ns.clone(), &q)?;
            let req = PageRequest {
                ns: t.ns.as_deref(),
                at: ReadAt::Latest,
                after: None,
                limit: None,
                continuing: false,
            };
            let page = cluster.list_page(t.idx, &req, &|s| filter.matches(s))?;
            let opts = DeleteOptions {
                precondition_rv: None,
                precondition_uid: None,
                ..delete_options(&q, &body)?
            };
            let mut items = Vec::new();
            for s in page.items {
                match cluster.delete(t.idx, s.namespace.as_deref(), &s.name, &opts) {
                    Ok(d) => items.push(d),
                    Err(e) if e.code == 404 => {}
                    Err(e) => return Err(e),
                }
            }
            let rv = cluster.resource_version();
            Ok(list_body(info, rv, None, None, items, 0))
        }
        _ => Err(StatusError::method_not_allowed(format!(
            "the server does not allow this method on the requested resource ({method})"
        ))),
    }
}

/// `authorization.k8s.io/v1`: its discovery document and the self-subject reviews, answered
/// from the requester's RBAC rules (see [`super::rbac`]). `None`: another path.
fn authorization_api(
    app: &Arc<App>,
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Option<Result<Response, StatusError>> {
    let rest = path
        .trim_matches('/')
        .strip_prefix("apis/authorization.k8s.io")?;
    let subject = Subject::of(app.opts.namespace_user.as_ref(), headers);
    // `forbid("authorization.k8s.io", "selfsubjectaccessreviews")`: a server whose reviews are
    // refused (clients must do without them).
    for plural in ["selfsubjectaccessreviews", "selfsubjectrulesreviews"] {
        if rest.ends_with(plural) && app.faults.is_forbidden("authorization.k8s.io", plural) {
            return Some(Err(StatusError::forbidden(
                "create",
                "authorization.k8s.io",
                plural,
                None,
            )));
        }
    }
    let only = |m: Method| -> Result<(), StatusError> {
        if *method == m {
            Ok(())
        } else {
            Err(StatusError::method_not_allowed(format!(
                "the server does not allow this method on the requested resource ({method})"
            )))
        }
    };
    Some(match rest {
        "" => only(Method::GET)
            .map(|()| json_response(StatusCode::OK, &resources::authorization_group_doc())),
        "/v1" => {
            only(Method::GET).map(|()| json_response(StatusCode::OK, &rbac::api_resource_list()))
        }
        "/v1/selfsubjectaccessreviews" => only(Method::POST)
            .and_then(|()| parse_body(headers, body))
            .and_then(|v| subject.access_review(&v))
            .map(|v| json_response(StatusCode::CREATED, &v)),
        "/v1/selfsubjectrulesreviews" => only(Method::POST)
            .and_then(|()| parse_body(headers, body))
            .and_then(|v| subject.rules_review(&v))
            .map(|v| json_response(StatusCode::CREATED, &v)),
        _ => Err(StatusError::unknown_path()),
    })
}

/// `GET .../pods/{name}/log` (RBAC resource `pods/log`): see [`super::logs`].
fn pod_log(
    app: &Arc<App>,
    method: &Method,
    ns: &str,
    name: &str,
    q: &Params,
) -> Result<Response, StatusError> {
    if method != Method::GET {
        return Err(StatusError::method_not_allowed(format!(
            "the server does not allow this method on the requested resource ({method})"
        )));
    }
    if app.faults.is_forbidden("", "pods/log") || app.faults.is_forbidden("", "pods") {
        return Err(StatusError::forbidden("get", "", "pods/log", Some(ns)));
    }
    let opts = super::logs::LogOptions::parse(q)?;
    let stream = super::logs::serve(
        &app.cluster,
        &app.faults,
        ns,
        name,
        opts,
        app.opts.log_lines_per_second,
    )?;
    Ok(Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/plain")
        .body(Body::from_stream(stream))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response()))
}

/// What the create strategies of kube-apiserver do to `status`: it is owned by controllers (and,
/// for pods, the kubelet), so a client's create starts from the initial status.
fn reset_status_on_create(info: &ResourceInfo, v: &mut Value) {
    let Some(obj) = v.as_object_mut() else {
        return;
    };
    match info.id.plural {
        "pods" => {
            obj.insert(
                "status".into(),
                json!({"phase": "Pending", "qosClass": "BestEffort"}),
            );
        }
        "namespaces" => {
            obj.insert("status".into(), json!({"phase": "Active"}));
        }
        _ if info.status_subresource && !matches!(info.id.plural, "customresourcedefinitions") => {
            obj.remove("status");
        }
        _ => {}
    }
}

fn parse_body(headers: &HeaderMap, body: &[u8]) -> Result<Value, StatusError> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("application/json");
    if ct.contains("protobuf") {
        return super::proto::decode(body);
    }
    let v: Value = if ct.contains("yaml") {
        serde_norway::from_slice(body)
            .map_err(|e| StatusError::bad_request(format!("error decoding YAML: {e}")))?
    } else {
        serde_json::from_slice(body).map_err(|e| {
            StatusError::bad_request(format!(
                "the object provided is unrecognized (must be of type JSON object): {e}"
            ))
        })?
    };
    if !v.is_object() {
        return Err(StatusError::bad_request(
            "the object provided is unrecognized (must be a JSON object)",
        ));
    }
    Ok(v)
}

/// `DeleteOptions` from the query (`gracePeriodSeconds`, `propagationPolicy`) and the body; the
/// body wins where both say something, as the apiserver decodes the body over the query.
fn delete_options(q: &Params, body: &[u8]) -> Result<DeleteOptions, StatusError> {
    let mut opts = DeleteOptions::default();
    if let Some(g) = param(q, "gracePeriodSeconds") {
        opts.grace_period_seconds =
            Some(g.parse::<i64>().map_err(|_| {
                StatusError::bad_request(format!("invalid gracePeriodSeconds: {g:?}"))
            })?);
    }
    if let Some(p) = param(q, "propagationPolicy") {
        opts.propagation = Some(Propagation::parse(p)?);
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(opts);
    }
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| StatusError::bad_request(format!("error decoding DeleteOptions: {e}")))?;
    if let Some(g) = v.get("gracePeriodSeconds").and_then(Value::as_i64) {
        opts.grace_period_seconds = Some(g);
    }
    if let Some(p) = v.get("propagationPolicy").and_then(Value::as_str) {
        opts.propagation = Some(Propagation::parse(p)?);
    } else if let Some(orphan) = v.get("orphanDependents").and_then(Value::as_bool) {
        // The deprecated form kubectl < 1.9 sent.
        opts.propagation = Some(if orphan {
            Propagation::Orphan
        } else {
            Propagation::Background
        });
    }
    opts.precondition_rv = v
        .pointer("/preconditions/resourceVersion")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(parse_rv)
        .transpose()?;
    opts.precondition_uid = v
        .pointer("/preconditions/uid")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    Ok(opts)
}
