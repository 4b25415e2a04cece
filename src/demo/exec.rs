//! `pods/{name}/exec` and `pods/{name}/attach` over websockets, as kube-apiserver serves them to
//! kubectl (1.30+) and kube-rs: the `v5.channel.k8s.io` subprotocol (or `v4.channel.k8s.io`), one
//! binary frame per write, its first byte the channel — 0 stdin, 1 stdout, 2 stderr, 3 error (a
//! `v1 Status` with the exit code when the command ends), 4 resize (`{"Width":..,"Height":..}`),
//! and in v5 `[255, channel]` closing a channel (stdin's end of input).
//!
//! What runs on the other side is the simulated shell of [`super::shell`] over a filesystem built
//! from the pod (environment, mounted ConfigMaps and Secrets, hostname): clearly a simulation, no
//! process is started. With `tty=true` the session does what a terminal's line discipline does
//! (echo, backspace, `\r\n`), and a resize sets `$COLUMNS`/`$LINES`.
//!
//! Differences from kube-apiserver: SPDY (the pre-websocket streaming protocol) is refused for
//! exec and attach with a 400 naming the websocket protocols, so clients that fall back to it
//! report a clear error (port-forward does speak it: [`super::spdy`]); the
//! demo's fault injection (403s, latency) does not apply to streams.

use crate::informer::wire_values as wv;
use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use base64::Engine as _;
use futures::{SinkExt as _, StreamExt as _};
use serde_json::{Value, json};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::Role;

use super::cluster::DemoCluster;
use super::error::{StatusError, Target};
use super::mutation::ResourceId;
use super::shell::{ContainerImage, LineEditor, Shell};

const PODS: ResourceId = ResourceId::new("", "v1", "pods");
const CONFIGMAPS: ResourceId = ResourceId::new("", "v1", "configmaps");
const SECRETS: ResourceId = ResourceId::new("", "v1", "secrets");

pub const STDIN: u8 = 0;
pub const STDOUT: u8 = 1;
pub const STDERR: u8 = 2;
pub const ERROR: u8 = 3;
pub const RESIZE: u8 = 4;
pub const CLOSE: u8 = 255;

/// The streaming routes, to merge into the server's router.
pub fn router<S: Clone + Send + Sync + 'static>(cluster: Arc<DemoCluster>) -> Router<S> {
    Router::new()
        .route("/api/v1/namespaces/{ns}/pods/{name}/exec", any(exec))
        .route("/api/v1/namespaces/{ns}/pods/{name}/attach", any(attach))
        .route(
            "/api/v1/namespaces/{ns}/pods/{name}/portforward",
            any(super::portforward::portforward),
        )
        .with_state(cluster)
}

/// Repeated query parameters (`command=sh&command=-c&command=...`).
pub fn query_pairs(uri: &axum::http::Uri) -> Vec<(String, String)> {
    form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn flag(q: &[(String, String)], k: &str) -> bool {
    q.iter()
        .any(|(key, v)| key == k && matches!(v.as_str(), "true" | "1"))
}

/// The channel protocols offered, in order of preference.
const PROTOCOLS: [&str; 2] = ["v5.channel.k8s.io", "v4.channel.k8s.io"];

/// Pick the subprotocol and answer the websocket handshake; `Err` is the refusal to send.
pub fn accept(
    headers: &HeaderMap,
    protocols: &[&'static str],
) -> Result<(Response, &'static str), StatusError> {
    let is_ws = headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.eq_ignore_ascii_case("websocket"));
    if !is_ws {
        return Err(StatusError::bad_request(format!(
            "Upgrade request required: the kinformer demo server streams over websockets only ({})",
            protocols.join(", ")
        )));
    }
    let offered: Vec<String> = headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|p| p.trim().to_string()))
        .collect();
    let Some(chosen) = protocols.iter().find(|p| offered.iter().any(|o| o == *p)) else {
        return Err(StatusError::bad_request(format!(
            "none of the offered subprotocols ({}) is supported; supported: {}",
            offered.join(", "),
            protocols.join(", ")
        )));
    };
    let key = headers
        .get(header::SEC_WEBSOCKET_KEY)
        .ok_or_else(|| StatusError::bad_request("missing Sec-WebSocket-Key"))?;
    let accept = tokio_tungstenite::tungstenite::handshake::derive_accept_key(key.as_bytes());
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = r.headers_mut();
    h.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(
        header::SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&accept).map_err(|e| StatusError::internal(e.to_string()))?,
    );
    h.insert(
        header::SEC_WEBSOCKET_PROTOCOL,
        HeaderValue::from_static(chosen),
    );
    Ok((r, chosen))
}

/// Answer the handshake and run `session` on the upgraded connection.
pub fn upgrade<F, Fut>(mut req: Request, protocols: &[&'static str], session: F) -> Response
where
    F: FnOnce(
            WebSocketStream<hyper_util::rt::TokioIo<hyper::upgrade::Upgraded>>,
            &'static str,
        ) -> Fut
        + Send
        + 'static,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let (resp, protocol) = match accept(req.headers(), protocols) {
        Ok(x) => x,
        Err(e) => return e.into_response(),
    };
    let on_upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => {
                let io = hyper_util::rt::TokioIo::new(upgraded);
                let ws = WebSocketStream::from_raw_socket(io, Role::Server, None).await;
                session(ws, protocol).await;
            }
            Err(e) => tracing::debug!(error = %e, "stream upgrade failed"),
        }
    });
    resp
}

/// The pod, and the container the request names (default: the first).
pub fn pod_and_container(
    cluster: &DemoCluster,
    ns: &str,
    name: &str,
    container: Option<&str>,
) -> Result<(Value, String), StatusError> {
    let pod = cluster.get(&PODS, Some(ns), name).ok_or_else(|| {
        StatusError::not_found(&Target {
            group: "",
            plural: "pods",
            name,
        })
    })?;
    let names: Vec<String> = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("name").and_then(Value::as_str).map(str::to_string))
        .collect();
    let c = match container {
        Some(c) if names.iter().any(|n| n == c) => c.to_string(),
        Some(c) => {
            return Err(StatusError::bad_request(format!(
                "container {c} is not valid for pod {name}"
            )));
        }
        None => names.first().cloned().ok_or_else(|| {
            StatusError::bad_request(format!("pod {name} does not have a container"))
        })?,
    };
    let phase = pod
        .pointer("/status/phase")
        .and_then(Value::as_str)
        .unwrap_or("");
    if phase != "Running" {
        return Err(StatusError::bad_request(format!(
            "unable to upgrade connection: container {c} in pod {name} is not running (phase {phase:?})"
        )));
    }
    Ok((pod, c))
}

/// The fake filesystem of one container of `pod`.
pub fn container_image(cluster: &DemoCluster, pod: &Value, container: &str) -> ContainerImage {
    let ns = pod
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or("default");
    let name = pod
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or("pod");
    let spec = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .and_then(|cs| {
            cs.iter()
                .find(|c| c.get("name").and_then(Value::as_str) == Some(container))
        })
        .cloned()
        .unwrap_or(json!({}));
    let mut files = BTreeMap::new();
    files.insert("/etc/hostname".to_string(), format!("{name}\n"));
    let ip = pod
        .pointer("/status/podIP")
        .and_then(Value::as_str)
        .unwrap_or("10.0.0.1");
    files.insert(
        "/etc/hosts".to_string(),
        format!("127.0.0.1\tlocalhost\n{ip}\t{name}\n"),
    );
    files.insert(
        "/etc/os-release".to_string(),
        "NAME=\"kinformer demo\"\nID=kinformer-demo\nPRETTY_NAME=\"kinformer demo container (simulated)\"\n".to_string(),
    );
    files.insert(
        "/README".to_string(),
        format!(
            "This is the kinformer demo's simulated shell in {ns}/{name} ({container}).\nNo process runs here; type `help` for the commands it knows.\n"
        ),
    );
    let mut env: Vec<(String, String)> = vec![
        (
            "PATH".into(),
            "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into(),
        ),
        ("HOME".into(), "/root".into()),
    ];
    for e in spec
        .get("env")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(k) = e.get("name").and_then(Value::as_str) else {
            continue;
        };
        let v = match e.get("value").and_then(Value::as_str) {
            Some(v) => v.to_string(),
            None => resolve_env_from(cluster, ns, pod, e.get("valueFrom")).unwrap_or_default(),
        };
        env.push((k.to_string(), v));
    }
    // Volumes: ConfigMap and Secret keys become files under the mount path.
    let volumes: BTreeMap<String, Value> = pod
        .pointer("/spec/volumes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| Some((v.get("name")?.as_str()?.to_string(), v.clone())))
        .collect();
    for m in spec
        .get("volumeMounts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(vol), Some(path)) = (
            m.get("name").and_then(Value::as_str),
            m.get("mountPath").and_then(Value::as_str),
        ) else {
            continue;
        };
        let path = path.trim_end_matches('/');
        let Some(v) = volumes.get(vol) else {
            continue;
        };
        let data: Vec<(String, String)> =
            if let Some(cm) = v.pointer("/configMap/name").and_then(Value::as_str) {
                cluster
                    .get(&CONFIGMAPS, Some(ns), cm)
                    .and_then(|c| c.get("data").and_then(Value::as_object).cloned())
                    .map(|d| {
                        d.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
                            .collect()
                    })
                    .unwrap_or_default()
            } else if let Some(s) = v.pointer("/secret/secretName").and_then(Value::as_str) {
                cluster
                    .get(&SECRETS, Some(ns), s)
                    .and_then(|c| c.get("data").and_then(Value::as_object).cloned())
                    .map(|d| {
                        d.iter()
                            .map(|(k, v)| {
                                let raw = base64::engine::general_purpose::STANDARD
                                    .decode(v.as_str().unwrap_or_default())
                                    .unwrap_or_default();
                                (k.clone(), String::from_utf8_lossy(&raw).into_owned())
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
        if data.is_empty() {
            files.insert(format!("{path}/.keep"), String::new());
        }
        for (k, v) in data {
            files.insert(format!("{path}/{k}"), v);
        }
    }
    let command = spec
        .get("command")
        .or_else(|| spec.get("args"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|s| !s.is_empty())
        .or_else(|| {
            spec.get("image")
                .and_then(Value::as_str)
                .map(|i| format!("/entrypoint ({i})"))
        })
        .unwrap_or_else(|| "/entrypoint".into());
    ContainerImage {
        files,
        env,
        hostname: name.to_string(),
        command,
    }
}

/// `nsenter -t 1 ... -- CMD` (k9s's node shell): with the host's PID namespace and a
/// privileged container, PID 1 is the node's init and CMD runs in the node's namespaces (the
/// simulated shell of the node: its hostname, its `/etc`); without them it fails as nsenter
/// does (PID 1 is the container's own without `hostPID`; entering needs privileges).
fn nsenter(
    cluster: &DemoCluster,
    pod: &Value,
    container: &str,
    image: ContainerImage,
    command: Vec<String>,
) -> (ContainerImage, Vec<String>) {
    let rest: Vec<String> = match command.iter().position(|w| w == "--") {
        Some(i) => command[i + 1..].to_vec(),
        None => Vec::new(),
    };
    let rest = if rest.is_empty() {
        vec!["sh".to_string()]
    } else {
        rest
    };
    let privileged = pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find(|c| c.get("name").and_then(Value::as_str) == Some(container))
        .and_then(|c| c.pointer("/securityContext/privileged"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let host_pid = pod
        .pointer("/spec/hostPID")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if !privileged {
        let fail = "echo \"nsenter: reassociate to namespace 'ns/ipc' failed: Operation not permitted\"; exit 1";
        return (image, vec!["sh".into(), "-c".into(), fail.into()]);
    }
    if !host_pid {
        // PID 1 is the container's own process: nsenter enters the container again.
        return (image, rest);
    }
    let node = pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .unwrap_or("node")
        .to_string();
    let pod_name = pod
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let ns = pod
        .pointer("/metadata/namespace")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let ip = cluster
        .get(&ResourceId::new("", "v1", "nodes"), None, &node)
        .and_then(|n| {
            n.pointer("/status/addresses")?
                .as_array()?
                .iter()
                .find(|a| a.get("type").and_then(Value::as_str) == Some("InternalIP"))?
                .get("address")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_else(|| "10.0.0.1".into());
    let mut files = BTreeMap::new();
    files.insert("/etc/hostname".to_string(), format!("{node}\n"));
    files.insert(
        "/etc/hosts".to_string(),
        format!("127.0.0.1\tlocalhost\n{ip}\t{node}\n"),
    );
    files.insert(
        "/etc/os-release".to_string(),
        "NAME=\"kinformer demo\"\nID=kinformer-demo\nPRETTY_NAME=\"kinformer demo node (simulated)\"\n"
            .to_string(),
    );
    files.insert(
        "/README".to_string(),
        format!(
            "This is the kinformer demo's simulated shell on node {node}, entered with nsenter from pod {ns}/{pod_name}.\nNo process runs here; type `help` for the commands it knows.\n"
        ),
    );
    let node_image = ContainerImage {
        files,
        env: vec![
            (
                "PATH".into(),
                "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin".into(),
            ),
            ("HOME".into(), "/root".into()),
        ],
        hostname: node,
        command: "/sbin/init".into(),
    };
    (node_image, rest)
}

fn resolve_env_from(
    cluster: &DemoCluster,
    ns: &str,
    pod: &Value,
    from: Option<&Value>,
) -> Option<String> {
    let from = from?;
    if let Some(r) = from.get("configMapKeyRef") {
        let cm = cluster.get(&CONFIGMAPS, Some(ns), r.get("name")?.as_str()?)?;
        return cm
            .pointer(&format!("/data/{}", r.get("key")?.as_str()?))
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    if let Some(r) = from.get("secretKeyRef") {
        let s = cluster.get(&SECRETS, Some(ns), r.get("name")?.as_str()?)?;
        let b = s
            .pointer(&format!("/data/{}", r.get("key")?.as_str()?))
            .and_then(Value::as_str)?;
        let raw = base64::engine::general_purpose::STANDARD.decode(b).ok()?;
        return Some(String::from_utf8_lossy(&raw).into_owned());
    }
    if let Some(f) = from.pointer("/fieldRef/fieldPath").and_then(Value::as_str) {
        let ptr = format!("/{}", f.replace('.', "/"));
        return pod
            .pointer(&ptr)
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    None
}

/// The exit Status sent on the error channel, as the kubelet reports it.
pub fn exit_status(command: &[String], code: i32) -> Value {
    if code == 0 {
        return json!({"metadata": {}, "status": wv::STATUS_SUCCESS});
    }
    json!({
        "metadata": {},
        "status": wv::STATUS_FAILURE,
        "message": format!(
            "command terminated with non-zero exit code: error executing command [{}], exit code {code}",
            command.join(" ")
        ),
        "reason": wv::REASON_NON_ZERO_EXIT_CODE,
        "details": {"causes": [{"reason": wv::CAUSE_EXIT_CODE, "message": code.to_string()}]},
    })
}

/// The namespace and pod of a streaming route. A segment that does not decode (a
/// percent-escape that is not UTF-8) is a 400 `Status`, as any other bad request, never axum's
/// plain-text rejection.
pub fn pod_path(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), StatusError> {
    path.map(|Path(p)| p).map_err(|e| {
        StatusError::bad_request(format!(
            "invalid path: {}",
            e.body_text().replace('\n', " ")
        ))
    })
}

async fn exec(
    State(cluster): State<Arc<DemoCluster>>,
    path: Result<Path<(String, String)>, PathRejection>,
    req: Request,
) -> Response {
    match pod_path(path) {
        Ok((ns, name)) => start(cluster, ns, name, req, false),
        Err(e) => e.into_response(),
    }
}

async fn attach(
    State(cluster): State<Arc<DemoCluster>>,
    path: Result<Path<(String, String)>, PathRejection>,
    req: Request,
) -> Response {
    match pod_path(path) {
        Ok((ns, name)) => start(cluster, ns, name, req, true),
        Err(e) => e.into_response(),
    }
}

fn start(
    cluster: Arc<DemoCluster>,
    ns: String,
    name: String,
    req: Request,
    attach: bool,
) -> Response {
    let q = query_pairs(req.uri());
    let container = q
        .iter()
        .find(|(k, _)| k == "container")
        .map(|(_, v)| v.as_str());
    let (pod, container) = match pod_and_container(&cluster, &ns, &name, container) {
        Ok(x) => x,
        Err(e) => return e.into_response(),
    };
    let mut command: Vec<String> = q
        .iter()
        .filter(|(k, _)| k == "command")
        .map(|(_, v)| v.clone())
        .collect();
    if attach {
        // Attaching reaches the container's main process: the simulation gives it a shell.
        command = vec!["sh".into()];
    } else if command.is_empty() {
        return StatusError::bad_request("you must specify at least 1 command").into_response();
    }
    let mut image = container_image(&cluster, &pod, &container);
    if !attach
        && command
            .first()
            .is_some_and(|c| c.rsplit('/').next() == Some("nsenter"))
    {
        (image, command) = nsenter(&cluster, &pod, &container, image, command);
    }
    let opts = SessionOptions {
        stdin: flag(&q, "stdin"),
        tty: flag(&q, "tty"),
        command,
    };
    tracing::info!(%ns, pod = %name, %container, command = ?opts.command, tty = opts.tty, "demo exec");
    upgrade(req, &PROTOCOLS, move |ws, protocol| async move {
        run_session(ws, protocol, image, opts).await;
    })
}

/// What the exec request asked for.
#[derive(Debug, Clone)]
pub struct SessionOptions {
    pub stdin: bool,
    pub tty: bool,
    pub command: Vec<String>,
}

fn frame(channel: u8, data: &[u8]) -> Message {
    let mut v = Vec::with_capacity(data.len() + 1);
    v.push(channel);
    v.extend_from_slice(data);
    Message::binary(v)
}

/// What the command line asks the simulated container to do.
enum Start {
    /// Run once, then exit with its status.
    Once(String),
    /// An interactive shell reading stdin.
    Interactive,
}

fn plan(command: &[String], shell: &mut Shell) -> (Start, super::shell::Output) {
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
    match command {
        [sh] if matches!(base(sh).as_str(), "sh" | "ash") => {
            (Start::Interactive, super::shell::Output::default())
        }
        [sh, c, script] if matches!(base(sh).as_str(), "sh" | "ash" | "bash") && c == "-c" => {
            let o = shell.run_line(script);
            if o.interactive {
                (Start::Interactive, o)
            } else {
                (Start::Once(String::new()), o)
            }
        }
        words => {
            let line = words
                .iter()
                .map(|w| format!("'{}'", w.replace('\'', "")))
                .collect::<Vec<_>>()
                .join(" ");
            (Start::Once(line), super::shell::Output::default())
        }
    }
}

/// Run one exec session on an accepted websocket.
pub async fn run_session<S>(
    ws: WebSocketStream<S>,
    protocol: &str,
    image: ContainerImage,
    opts: SessionOptions,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let v5 = protocol.starts_with("v5");
    let (mut tx, mut rx) = ws.split();
    let tty = opts.tty;
    let out = |s: &str| -> Vec<u8> {
        if tty {
            s.replace('\n', "\r\n").into_bytes()
        } else {
            s.as_bytes().to_vec()
        }
    };
    let mut shell = Shell::new(image);
    let (start, first) = plan(&opts.command, &mut shell);
    let mut code: i32 = 0;
    let mut sent_ok = true;
    if !first.stdout.is_empty() {
        sent_ok &= tx.send(frame(STDOUT, &out(&first.stdout))).await.is_ok();
    }
    if !first.stderr.is_empty() {
        let ch = if tty { STDOUT } else { STDERR };
        sent_ok &= tx.send(frame(ch, &out(&first.stderr))).await.is_ok();
    }
    match start {
        Start::Once(line) => {
            let o = if line.is_empty() {
                // `sh -c SCRIPT` already ran (its output is sent): only its status is left.
                super::shell::Output {
                    status: first.status,
                    exit: first.exit,
                    ..super::shell::Output::default()
                }
            } else {
                shell.run_line(&line)
            };
            if !o.stdout.is_empty() {
                sent_ok &= tx.send(frame(STDOUT, &out(&o.stdout))).await.is_ok();
            }
            if !o.stderr.is_empty() {
                let ch = if tty { STDOUT } else { STDERR };
                sent_ok &= tx.send(frame(ch, &out(&o.stderr))).await.is_ok();
            }
            code = o.exit.unwrap_or(o.status);
        }
        Start::Interactive => {
            let mut editor = LineEditor::default();
            let mut pending = String::new();
            if tty {
                sent_ok &= tx
                    .send(frame(STDOUT, shell.prompt().as_bytes()))
                    .await
                    .is_ok();
            }
            'session: while sent_ok {
                let Some(msg) = rx.next().await else {
                    return; // connection dropped: nothing to report to
                };
                let data = match msg {
                    Ok(Message::Binary(b)) => b,
                    Ok(Message::Close(_)) | Err(_) => return,
                    Ok(_) => continue,
                };
                let Some((&ch, payload)) = data.split_first() else {
                    continue;
                };
                let lines: Vec<String> = match ch {
                    STDIN if opts.stdin => {
                        let text = String::from_utf8_lossy(payload);
                        if tty {
                            let e = editor.feed(&text);
                            if !e.echo.is_empty() {
                                sent_ok &= tx.send(frame(STDOUT, e.echo.as_bytes())).await.is_ok();
                            }
                            if e.eof {
                                code = shell_status(&mut shell);
                                break 'session;
                            }
                            e.lines
                        } else {
                            pending.push_str(&text);
                            let mut done = Vec::new();
                            while let Some(i) = pending.find('\n') {
                                done.push(pending[..i].to_string());
                                pending.drain(..=i);
                            }
                            done
                        }
                    }
                    RESIZE => {
                        if let Ok(size) = serde_json::from_slice::<Value>(payload) {
                            shell.set_size(
                                size.get("Width").and_then(Value::as_u64).unwrap_or(80),
                                size.get("Height").and_then(Value::as_u64).unwrap_or(24),
                            );
                        }
                        continue;
                    }
                    CLOSE if v5 && payload.first() == Some(&STDIN) => {
                        // End of input: a last unterminated line still runs.
                        if !pending.is_empty() {
                            let o = shell.run_line(&std::mem::take(&mut pending));
                            let _ = tx.send(frame(STDOUT, &out(&o.stdout))).await;
                            let _ = tx.send(frame(STDERR, &out(&o.stderr))).await;
                            if let Some(c) = o.exit {
                                code = c;
                                break 'session;
                            }
                        }
                        code = shell_status(&mut shell);
                        break 'session;
                    }
                    _ => continue,
                };
                for line in lines {
                    let o = shell.run_line(&line);
                    if !o.stdout.is_empty() {
                        sent_ok &= tx.send(frame(STDOUT, &out(&o.stdout))).await.is_ok();
                    }
                    if !o.stderr.is_empty() {
                        let ch = if tty { STDOUT } else { STDERR };
                        sent_ok &= tx.send(frame(ch, &out(&o.stderr))).await.is_ok();
                    }
                    if let Some(c) = o.exit {
                        code = c;
                        break 'session;
                    }
                    if tty {
                        sent_ok &= tx
                            .send(frame(STDOUT, shell.prompt().as_bytes()))
                            .await
                            .is_ok();
                    }
                }
            }
        }
    }
    if !sent_ok {
        return;
    }
    let status = exit_status(&opts.command, code);
    let _ = tx
        .send(frame(
            ERROR,
            &serde_json::to_vec(&status).unwrap_or_default(),
        ))
        .await;
    let _ = tx.send(normal_close()).await;
    let _ = tx.flush().await;
}

/// A close frame with code 1000: clients (gorilla/websocket in kubectl) treat a close without a
/// status as an error.
pub fn normal_close() -> Message {
    Message::Close(Some(tokio_tungstenite::tungstenite::protocol::CloseFrame {
        code: tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode::Normal,
        reason: "".into(),
    }))
}

fn shell_status(shell: &mut Shell) -> i32 {
    shell.run_line("").status
}
