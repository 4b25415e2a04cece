//! Port-forwarding: a local TCP listener on 127.0.0.1 whose every accepted connection is carried
//! to a pod's port over kube's websocket port-forward (one websocket per connection, as kubectl
//! opens one stream pair per connection). A forward is a task owned by the runtime, stopped by its
//! [`CancellationToken`] (listener closed, open connections dropped); its [`ForwardStats`] count
//! connections and bytes for the `:pf` view.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// Live counters of one forward (shared with the view; read without locks).
#[derive(Debug, Default)]
pub struct ForwardStats {
    /// Connections accepted so far.
    pub connections: AtomicU64,
    /// Connections open now.
    pub active: AtomicU64,
    /// Bytes from the local client to the pod.
    pub bytes_out: AtomicU64,
    /// Bytes from the pod to the local client.
    pub bytes_in: AtomicU64,
    /// Connections that failed (pod gone, port refused).
    pub errors: AtomicU64,
}

/// Bind 127.0.0.1:`preferred`, or the next free port above it (up to 100 tries); `0` picks any.
pub async fn bind_local(preferred: u16) -> std::io::Result<TcpListener> {
    if preferred == 0 {
        return TcpListener::bind(("127.0.0.1", 0)).await;
    }
    let mut last = None;
    for port in preferred..=preferred.saturating_add(100) {
        match TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => return Ok(l),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free local port")))
}

/// Accept on `listener` and forward each connection to `namespace/pod:port` until cancelled.
pub async fn forward(
    client: kube::Client,
    namespace: String,
    pod: String,
    port: u16,
    listener: TcpListener,
    stats: Arc<ForwardStats>,
    cancel: CancellationToken,
) {
    let pods: Api<Pod> = Api::namespaced(client, &namespace);
    loop {
        let accepted = tokio::select! {
            _ = cancel.cancelled() => break,
            a = listener.accept() => a,
        };
        let Ok((conn, _)) = accepted else {
            continue;
        };
        stats.connections.fetch_add(1, Ordering::Relaxed);
        let pods = pods.clone();
        let pod = pod.clone();
        let stats = stats.clone();
        let cancel = cancel.child_token();
        tokio::spawn(async move {
            stats.active.fetch_add(1, Ordering::Relaxed);
            let r = tokio::select! {
                _ = cancel.cancelled() => Ok(()),
                r = carry(&pods, &pod, port, conn, &stats) => r,
            };
            if let Err(e) = r {
                stats.errors.fetch_add(1, Ordering::Relaxed);
                tracing::info!(pod = %pod, port, error = %e, "port-forward connection failed");
            }
            stats.active.fetch_sub(1, Ordering::Relaxed);
        });
    }
    tracing::info!(pod = %pod, port, "port-forward stopped");
}

async fn carry(
    pods: &Api<Pod>,
    pod: &str,
    port: u16,
    mut conn: TcpStream,
    stats: &ForwardStats,
) -> Result<(), String> {
    let mut pf = pods
        .portforward(pod, &[port])
        .await
        .map_err(|e| e.to_string())?;
    let mut upstream = pf
        .take_stream(port)
        .ok_or_else(|| "no stream for the port".to_string())?;
    let error = pf.take_error(port);
    let copied = tokio::io::copy_bidirectional(&mut conn, &mut upstream).await;
    if let Ok((out, back)) = copied {
        stats.bytes_out.fetch_add(out, Ordering::Relaxed);
        stats.bytes_in.fetch_add(back, Ordering::Relaxed);
    }
    drop(upstream);
    if let Some(error) = error
        && let Ok(Some(msg)) =
            tokio::time::timeout(std::time::Duration::from_millis(100), error).await
    {
        return Err(msg);
    }
    copied.map(drop).map_err(|e| e.to_string())
}
