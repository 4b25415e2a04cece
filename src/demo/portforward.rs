//! `pods/{name}/portforward` over a websocket, the protocol kube-rs speaks (kube-apiserver's
//! `v4.channel.k8s.io` port-forward): `?ports=80,8080` asks for one data channel (`2i`) and one
//! error channel (`2i+1`) per port; the server's first frame on each channel is the port number
//! (two bytes, little endian); then bytes flow on the data channel, and a failure to reach the
//! port is one text message on the error channel.
//!
//! Each demo pod answers HTTP on the container ports its spec declares: a small page naming the
//! pod, container and port (no process runs: a simulation). A port the pod does not declare is
//! refused on the error channel, as a kubelet reports a connection refused. After answering, the
//! pod side closes the websocket (`Connection: close`), which ends the forwarded connection.
//!
//! kubectl 1.31+ tunnels SPDY inside the websocket (`SPDY/3.1+portforward.k8s.io`, ports in
//! stream headers, no `ports` query) and older kubectl upgrades to plain SPDY/3.1: both are
//! served by [`super::spdy`].

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::response::{IntoResponse, Response};
use futures::{SinkExt as _, StreamExt as _};
use serde_json::Value;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use super::cluster::DemoCluster;
use super::error::StatusError;
use super::exec::{normal_close, pod_and_container, query_pairs, upgrade};
use super::spdy;

const PROTOCOLS: [&str; 3] = [
    "v4.channel.k8s.io",
    "v5.channel.k8s.io",
    "portforward.k8s.io",
];

/// The declared container ports of a pod: (port, container name, port name).
pub fn declared_ports(pod: &Value) -> Vec<(u16, String, String)> {
    let mut out = Vec::new();
    for c in pod
        .pointer("/spec/containers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let cname = c.get("name").and_then(Value::as_str).unwrap_or("");
        for p in c
            .get("ports")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(n) = p
                .get("containerPort")
                .and_then(Value::as_u64)
                .and_then(|n| u16::try_from(n).ok())
            {
                let pname = p.get("name").and_then(Value::as_str).unwrap_or("");
                out.push((n, cname.to_string(), pname.to_string()));
            }
        }
    }
    out
}

/// The page a demo pod serves on one of its ports.
pub fn http_page(ns: &str, pod: &str, container: &str, port: u16, request_line: &str) -> String {
    let body = format!(
        "kinformer demo pod {ns}/{pod}\ncontainer {container}, port {port}\nrequest: {request_line}\n(simulated: no process runs in demo pods)\n"
    );
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nX-Kinformer-Demo-Pod: {ns}/{pod}\r\n\r\n{body}",
        body.len()
    )
}

pub(super) async fn portforward(
    State(cluster): State<Arc<DemoCluster>>,
    path: Result<Path<(String, String)>, axum::extract::rejection::PathRejection>,
    req: Request,
) -> Response {
    let (ns, name) = match super::exec::pod_path(path) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    if spdy::offers_tunnel(req.headers()) || spdy::is_spdy_upgrade(req.headers()) {
        return portforward_spdy(&cluster, ns, name, req);
    }
    let q = query_pairs(req.uri());
    let ports: Result<Vec<u16>, StatusError> = q
        .iter()
        .filter(|(k, _)| k == "ports")
        .flat_map(|(_, v)| v.split(',').map(str::to_string).collect::<Vec<_>>())
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.trim()
                .parse::<u16>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| StatusError::bad_request(format!("invalid port {p:?}")))
        })
        .collect();
    let ports = match ports {
        Ok(p) if !p.is_empty() => p,
        Ok(_) => {
            return StatusError::bad_request("query parameter \"ports\" is required")
                .into_response();
        }
        Err(e) => return e.into_response(),
    };
    let pod = match pod_and_container(&cluster, &ns, &name, None) {
        Ok((pod, _)) => pod,
        Err(e) => return e.into_response(),
    };
    let declared = declared_ports(&pod);
    tracing::info!(%ns, pod = %name, ?ports, "demo port-forward");
    upgrade(req, &PROTOCOLS, move |ws, _protocol| async move {
        serve(ws, ns, name, ports, declared).await;
    })
}

/// `kubectl port-forward`: SPDY tunneled in a websocket, or a plain SPDY/3.1 upgrade.
fn portforward_spdy(cluster: &DemoCluster, ns: String, name: String, req: Request) -> Response {
    let pod = match pod_and_container(cluster, &ns, &name, None) {
        Ok((pod, _)) => pod,
        Err(e) => return e.into_response(),
    };
    let session = spdy::PortForwardSession::new(ns.clone(), name.clone(), declared_ports(&pod));
    if spdy::offers_tunnel(req.headers()) {
        tracing::info!(%ns, pod = %name, "demo port-forward (SPDY over websocket)");
        upgrade(
            req,
            &[spdy::TUNNEL_PROTOCOL],
            move |ws, _protocol| async move {
                spdy::serve_tunneled(ws, session).await;
            },
        )
    } else {
        tracing::info!(%ns, pod = %name, "demo port-forward (SPDY/3.1)");
        spdy::upgrade_raw(req, session)
    }
}

async fn serve<S>(
    ws: WebSocketStream<S>,
    ns: String,
    pod: String,
    ports: Vec<u16>,
    declared: Vec<(u16, String, String)>,
) where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    let (mut tx, mut rx) = ws.split();
    // The initial frames: the port number on each data and error channel.
    for (i, port) in ports.iter().enumerate() {
        let Ok(i) = u8::try_from(i) else {
            return;
        };
        for ch in [2 * i, 2 * i + 1] {
            let [lo, hi] = port.to_le_bytes();
            if tx.send(Message::binary(vec![ch, lo, hi])).await.is_err() {
                return;
            }
        }
    }
    let mut requests: Vec<Vec<u8>> = vec![Vec::new(); ports.len()];
    let mut answered = vec![false; ports.len()];
    while let Some(Ok(msg)) = rx.next().await {
        let data = match msg {
            Message::Binary(b) => b,
            Message::Close(_) => break,
            _ => continue,
        };
        let Some((&ch, payload)) = data.split_first() else {
            continue;
        };
        let idx = usize::from(ch / 2);
        if ch % 2 == 1 || idx >= ports.len() || answered[idx] {
            continue;
        }
        let port = ports[idx];
        let Some((_, container, _)) = declared.iter().find(|(p, _, _)| *p == port) else {
            let msg = format!(
                "error forwarding port {port} to pod {ns}/{pod}: failed to connect to localhost:{port}: connection refused (the pod declares no such container port)"
            );
            let mut f = vec![ch + 1];
            f.extend_from_slice(msg.as_bytes());
            let _ = tx.send(Message::binary(f)).await;
            answered[idx] = true;
            break;
        };
        requests[idx].extend_from_slice(payload);
        let head_end = requests[idx].windows(4).position(|w| w == b"\r\n\r\n");
        if head_end.is_none() && requests[idx].len() < 64 * 1024 {
            continue;
        }
        let text = String::from_utf8_lossy(&requests[idx]).into_owned();
        let line = text.lines().next().unwrap_or("").to_string();
        let page = http_page(&ns, &pod, container, port, &line);
        let mut f = vec![ch];
        f.extend_from_slice(page.as_bytes());
        if tx.send(Message::binary(f)).await.is_err() {
            return;
        }
        answered[idx] = true;
        if answered.iter().all(|a| *a) {
            break;
        }
    }
    let _ = tx.send(normal_close()).await;
    let _ = tx.flush().await;
}
