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

/// One active forward as the `:pf` view shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForwardRow {
    pub id: u64,
    pub namespace: String,
    pub pod: String,
    pub port: u16,
    /// The local port bound on 127.0.0.1.
    pub local: u16,
    pub connections: u64,
    pub active: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    pub errors: u64,
}

struct Entry {
    namespace: String,
    pod: String,
    port: u16,
    local: u16,
    stats: Arc<ForwardStats>,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

/// The runtime's forwards: each a [`forward`] task with its own [`CancellationToken`].
pub struct Forwards {
    client: kube::Client,
    entries: std::collections::BTreeMap<u64, Entry>,
}

impl Forwards {
    pub fn new(client: kube::Client) -> Self {
        Forwards {
            client,
            entries: Default::default(),
        }
    }

    /// Bind 127.0.0.1:`local` (or the next free port; 0: any) and forward it to
    /// `namespace/pod:port` until stopped. Returns the port bound.
    pub async fn start(
        &mut self,
        id: u64,
        namespace: String,
        pod: String,
        port: u16,
        local: u16,
    ) -> std::io::Result<u16> {
        let listener = bind_local(local).await?;
        let local = listener.local_addr()?.port();
        let stats = Arc::new(ForwardStats::default());
        let cancel = CancellationToken::new();
        let task = tokio::spawn(forward(
            self.client.clone(),
            namespace.clone(),
            pod.clone(),
            port,
            listener,
            stats.clone(),
            cancel.clone(),
        ));
        tracing::info!(target: "kinformer::write", op = "port-forward", namespace = %namespace, pod = %pod, port, local, "write");
        self.entries.insert(
            id,
            Entry {
                namespace,
                pod,
                port,
                local,
                stats,
                cancel,
                task,
            },
        );
        Ok(local)
    }

    /// Stop one forward: its listener is closed and its connections dropped when this returns.
    /// The row it was, if it existed.
    pub async fn stop(&mut self, id: u64) -> Option<ForwardRow> {
        let e = self.entries.remove(&id)?;
        let row = row(id, &e);
        e.cancel.cancel();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(5), e.task).await;
        Some(row)
    }

    /// Stop every forward (the dashboard is quitting or switching context).
    pub async fn stop_all(&mut self) {
        let ids: Vec<u64> = self.entries.keys().copied().collect();
        for id in ids {
            self.stop(id).await;
        }
    }

    /// The active forwards with their counters.
    pub fn rows(&self) -> Vec<ForwardRow> {
        self.entries.iter().map(|(id, e)| row(*id, e)).collect()
    }

    /// Forward tasks still running.
    pub fn running(&self) -> usize {
        self.entries
            .values()
            .filter(|e| !e.task.is_finished())
            .count()
    }
}

fn row(id: u64, e: &Entry) -> ForwardRow {
    let s = &e.stats;
    ForwardRow {
        id,
        namespace: e.namespace.clone(),
        pod: e.pod.clone(),
        port: e.port,
        local: e.local,
        connections: s.connections.load(Ordering::Relaxed),
        active: s.active.load(Ordering::Relaxed),
        bytes_in: s.bytes_in.load(Ordering::Relaxed),
        bytes_out: s.bytes_out.load(Ordering::Relaxed),
        errors: s.errors.load(Ordering::Relaxed),
    }
}
