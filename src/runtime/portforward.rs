//! Port-forwarding: a local TCP listener on 127.0.0.1 whose every accepted connection is carried
//! to a pod's port over kube's websocket port-forward (one websocket per connection, as kubectl
//! opens one stream pair per connection). A forward is a task owned by the runtime, stopped by its
//! [`CancellationToken`] (listener closed, open connections dropped); its [`ForwardStats`] count
//! connections and bytes for the `:pf` view.
//!
//! A forward to a Service or Deployment ([`ForwardTarget::Selector`]) goes to one ready pod of
//! its selector, chosen from a pods informer of its own (label-selected, in the namespace):
//! when that pod is deleted or becomes not ready the informer's event moves the forward to
//! another ready pod (counted in [`Following::moved`]); new connections go to the pod chosen
//! when they are accepted; with no ready pod, accepted connections are held until one appears.
//! A Service's named targetPort is resolved against the chosen pod's container ports, as
//! kubectl does.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use k8s_openapi::api::core::v1::Pod;
use kube::api::Api;
use parking_lot::Mutex;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use crate::informer::list_watch::KubeListerWatcher;
use crate::informer::reflector::ReflectorConfig;
use crate::informer::shared_informer::{
    InformerConfig, ResourceEventHandlerFuncs, SharedIndexInformer,
};
pub use crate::ui::portforward::{ForwardRow, ForwardTarget, RemotePort};

/// The pod a selector forward uses now (`None`: waiting for a ready pod) and how many times it
/// moved to another one.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Following {
    pub pod: Option<String>,
    pub moved: u64,
}

/// Ready (condition Ready=True) and not being deleted: a pod a forward may use.
pub fn pod_is_ready(p: &Pod) -> bool {
    p.metadata.deletion_timestamp.is_none()
        && p.status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// The pod to use among `pods`: the current one while it is ready, else the ready pod first by
/// name; `None` when none is ready.
fn choose(pods: &[Arc<Pod>], current: Option<&str>) -> Option<Arc<Pod>> {
    let mut ready: Vec<&Arc<Pod>> = pods.iter().filter(|p| pod_is_ready(p)).collect();
    ready.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    ready
        .iter()
        .find(|p| current.is_some() && p.metadata.name.as_deref() == current)
        .or(ready.first())
        .map(|p| Arc::clone(p))
}

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
    let (_keep, chosen) = watch::channel(Some(Arc::new(named_pod(&pod))));
    accept_loop(
        Api::namespaced(client, &namespace),
        chosen,
        RemotePort::Number(port),
        listener,
        stats,
        cancel,
    )
    .await;
    tracing::info!(pod = %pod, port, "port-forward stopped");
}

/// A pod carrying only its name (what a single-pod forward needs).
fn named_pod(name: &str) -> Pod {
    let mut p = Pod::default();
    p.metadata.name = Some(name.to_string());
    p
}

/// Accept on `listener` and forward each connection to one ready pod that `selector` picks in
/// `namespace` (see the module docs), until cancelled. `follow` shows the pod in use and the
/// moves. Returns once the informer, the chooser and every connection have stopped.
#[allow(clippy::too_many_arguments)]
pub async fn forward_selected(
    client: kube::Client,
    namespace: String,
    selector: String,
    port: RemotePort,
    listener: TcpListener,
    stats: Arc<ForwardStats>,
    follow: Arc<Mutex<Following>>,
    cancel: CancellationToken,
) {
    let lw = KubeListerWatcher::<Pod>::typed(client.clone(), Some(&namespace));
    let informer = SharedIndexInformer::new(
        Arc::new(lw),
        InformerConfig {
            kind: "pods (port-forward)".into(),
            // The container ports (a named targetPort) are needed: keep the whole pod.
            transform: None,
            reflector: ReflectorConfig {
                label_selector: Some(selector.clone()),
                ..ReflectorConfig::default()
            },
            ..InformerConfig::default()
        },
    );
    let changed = Arc::new(Notify::new());
    let (a, u, d) = (changed.clone(), changed.clone(), changed.clone());
    let handler = ResourceEventHandlerFuncs {
        add: Some(Box::new(move |_: &Arc<Pod>, _| a.notify_one())),
        update: Some(Box::new(move |_: &Arc<Pod>, _: &Arc<Pod>| u.notify_one())),
        delete: Some(Box::new(move |_: &_| d.notify_one())),
    };
    if let Err(e) = informer.add_event_handler(Arc::new(handler), None) {
        tracing::warn!(error = %e, "port-forward: cannot watch the pods");
        return;
    }
    let stop = cancel.child_token();
    let run = {
        let informer = informer.clone();
        let stop = stop.clone();
        tokio::spawn(async move { informer.run(stop).await })
    };
    let (tx, chosen) = watch::channel(None::<Arc<Pod>>);
    let chooser = {
        let indexer = informer.indexer();
        let informer = informer.clone();
        let stop = stop.clone();
        let follow = follow.clone();
        let what = selector.clone();
        tokio::spawn(async move {
            // The first choice waits for the initial list: choosing while it streams in would
            // take whichever ready pod arrived first, not the first by name (connections are
            // held meanwhile, as while no pod is ready).
            while !informer.has_synced() {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tokio::time::sleep(std::time::Duration::from_millis(10)) => {}
                }
            }
            let mut last: Option<String> = None;
            loop {
                let current = follow.lock().pod.clone();
                let next = choose(&indexer.list(), current.as_deref());
                let name = next.as_ref().and_then(|p| p.metadata.name.clone());
                if name != current {
                    let mut f = follow.lock();
                    if name.is_some() && last.is_some() && name != last {
                        f.moved += 1;
                    }
                    f.pod = name.clone();
                    drop(f);
                    match &name {
                        Some(p) => {
                            tracing::info!(selector = %what, pod = %p, "port-forward uses pod")
                        }
                        None => {
                            tracing::info!(selector = %what, "port-forward waits for a ready pod")
                        }
                    }
                    if name.is_some() {
                        last = name;
                    }
                }
                tx.send_replace(next);
                tokio::select! {
                    _ = stop.cancelled() => break,
                    _ = changed.notified() => {}
                }
            }
        })
    };
    accept_loop(
        Api::namespaced(client, &namespace),
        chosen,
        port,
        listener,
        stats,
        cancel,
    )
    .await;
    stop.cancel();
    let _ = run.await;
    let _ = chooser.await;
    tracing::info!(selector = %selector, "port-forward stopped");
}

/// Accept until cancelled; each connection waits for a chosen pod, then is carried to it.
/// Returns once every connection task has ended.
async fn accept_loop(
    pods: Api<Pod>,
    chosen: watch::Receiver<Option<Arc<Pod>>>,
    port: RemotePort,
    listener: TcpListener,
    stats: Arc<ForwardStats>,
    cancel: CancellationToken,
) {
    let mut conns = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            _ = cancel.cancelled() => break,
            a = listener.accept() => a,
        };
        // Reap finished connections as we go.
        while conns.try_join_next().is_some() {}
        let Ok((conn, _)) = accepted else {
            continue;
        };
        stats.connections.fetch_add(1, Ordering::Relaxed);
        let pods = pods.clone();
        let port = port.clone();
        let stats = stats.clone();
        let cancel = cancel.child_token();
        let mut chosen = chosen.clone();
        conns.spawn(async move {
            stats.active.fetch_add(1, Ordering::Relaxed);
            let r = tokio::select! {
                _ = cancel.cancelled() => Ok(()),
                r = async {
                    let pod = chosen
                        .wait_for(Option::is_some)
                        .await
                        .map_err(|_| "the forward stopped".to_string())?
                        .clone()
                        .ok_or_else(|| "no pod".to_string())?;
                    let name = pod.metadata.name.clone().unwrap_or_default();
                    let number = port
                        .resolve(&pod)
                        .ok_or_else(|| format!("pod {name} has no container port named {port}"))?;
                    carry(&pods, &name, number, conn, &stats).await.map_err(|e| format!("{name}:{number}: {e}"))
                } => r,
            };
            if let Err(e) = r {
                stats.errors.fetch_add(1, Ordering::Relaxed);
                tracing::info!(error = %e, "port-forward connection failed");
            }
            stats.active.fetch_sub(1, Ordering::Relaxed);
        });
    }
    drop(listener);
    while conns.join_next().await.is_some() {}
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

/// A Service's ports (each mapped to its targetPort: a number, a container port name, or the
/// port itself when unset, as kubectl maps them) or a Deployment's template ports, with the
/// label selector of its pods.
pub async fn selector_ports(
    client: kube::Client,
    namespace: &str,
    kind: crate::ui::action::ForwardKind,
    name: &str,
) -> Result<crate::ui::action::SelectorPorts, String> {
    use crate::selector::LabelSelector;
    use crate::ui::action::{ForwardKind, SelectorPorts};
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    let selector_text = |s: Option<LabelSelector>| s.map(|s| s.to_string()).unwrap_or_default();
    match kind {
        ForwardKind::Service => {
            let api: Api<k8s_openapi::api::core::v1::Service> = Api::namespaced(client, namespace);
            let svc = api
                .get(name)
                .await
                .map_err(|e| crate::cluster::one_line(&e.to_string()))?;
            let spec = svc.spec.unwrap_or_default();
            let selector = spec
                .selector
                .as_ref()
                .and_then(|m| serde_json::to_value(m).ok())
                .and_then(|v| LabelSelector::from_map(Some(&v)));
            let mut ports = Vec::new();
            let mut remotes = Vec::new();
            for p in spec.ports.iter().flatten() {
                let Ok(port) = u16::try_from(p.port) else {
                    continue;
                };
                let remote = match &p.target_port {
                    Some(IntOrString::Int(n)) => {
                        RemotePort::Number(u16::try_from(*n).unwrap_or(port))
                    }
                    Some(IntOrString::String(s)) => match s.parse::<u16>() {
                        Ok(n) => RemotePort::Number(n),
                        Err(_) => RemotePort::Name(s.clone()),
                    },
                    None => RemotePort::Number(port),
                };
                ports.push(crate::ui::action::ContainerPort {
                    container: format!("→ {remote}"),
                    port,
                    name: p.name.clone().unwrap_or_default(),
                    protocol: p.protocol.clone().unwrap_or_else(|| "TCP".into()),
                });
                remotes.push(remote);
            }
            Ok(SelectorPorts {
                selector: selector_text(selector),
                ports,
                remotes,
            })
        }
        ForwardKind::Deployment | ForwardKind::Pod => {
            let api: Api<k8s_openapi::api::apps::v1::Deployment> =
                Api::namespaced(client, namespace);
            let d = api
                .get(name)
                .await
                .map_err(|e| crate::cluster::one_line(&e.to_string()))?;
            let spec = d.spec.unwrap_or_default();
            let selector = serde_json::to_value(&spec.selector)
                .map_err(|e| e.to_string())
                .and_then(|v| LabelSelector::from_metav1(Some(&v)))?;
            let pod = k8s_openapi::api::core::v1::Pod {
                spec: spec.template.spec,
                ..Default::default()
            };
            let ports = container_ports(&pod);
            let remotes = ports.iter().map(|p| RemotePort::Number(p.port)).collect();
            Ok(SelectorPorts {
                selector: selector_text(selector),
                ports,
                remotes,
            })
        }
    }
}

/// The ports a pod's containers declare, in spec order (the port-forward dialog's choices).
pub fn container_ports(pod: &Pod) -> Vec<crate::ui::action::ContainerPort> {
    pod.spec
        .iter()
        .flat_map(|s| &s.containers)
        .flat_map(|c| {
            c.ports.iter().flatten().filter_map(|p| {
                Some(crate::ui::action::ContainerPort {
                    container: c.name.clone(),
                    port: u16::try_from(p.container_port).ok()?,
                    name: p.name.clone().unwrap_or_default(),
                    protocol: p.protocol.clone().unwrap_or_else(|| "TCP".into()),
                })
            })
        })
        .collect()
}

struct Entry {
    namespace: String,
    pod: String,
    port: u16,
    local: u16,
    target: Option<String>,
    follow: Option<Arc<Mutex<Following>>>,
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

    /// Start the next forwards on `client` (a fleet member's, for one effect); the running
    /// ones keep theirs.
    pub fn point_at(&mut self, client: kube::Client) {
        self.client = client;
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
        self.start_target(
            id,
            namespace,
            ForwardTarget::Pod(pod),
            RemotePort::Number(port),
            local,
        )
        .await
    }

    /// Bind 127.0.0.1:`local` (or the next free port; 0: any) and forward it to `target`'s
    /// `port` in `namespace` until stopped (a selector target follows its ready pods). Returns
    /// the port bound.
    pub async fn start_target(
        &mut self,
        id: u64,
        namespace: String,
        target: ForwardTarget,
        port: RemotePort,
        local: u16,
    ) -> std::io::Result<u16> {
        let listener = bind_local(local).await?;
        let local = listener.local_addr()?.port();
        let stats = Arc::new(ForwardStats::default());
        let cancel = CancellationToken::new();
        let client = self.client.clone();
        let number = match &port {
            RemotePort::Number(n) => *n,
            RemotePort::Name(_) => 0,
        };
        let (pod, label, follow, task) = match target {
            ForwardTarget::Pod(pod) => {
                let task = tokio::spawn(forward(
                    client,
                    namespace.clone(),
                    pod.clone(),
                    number,
                    listener,
                    stats.clone(),
                    cancel.clone(),
                ));
                (pod, None, None, task)
            }
            ForwardTarget::Selector { what, selector } => {
                let follow = Arc::new(Mutex::new(Following::default()));
                let task = tokio::spawn(forward_selected(
                    client,
                    namespace.clone(),
                    selector,
                    port.clone(),
                    listener,
                    stats.clone(),
                    follow.clone(),
                    cancel.clone(),
                ));
                (
                    String::new(),
                    Some(format!("{what}:{port}")),
                    Some(follow),
                    task,
                )
            }
        };
        let what = label.clone().unwrap_or_else(|| format!("{pod}:{port}"));
        tracing::info!(target: "kinformer::write", op = "port-forward", namespace = %namespace, target = %what, local, "write");
        self.entries.insert(
            id,
            Entry {
                namespace,
                pod,
                port: number,
                local,
                target: label,
                follow,
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
    let follow = e.follow.as_ref().map(|f| f.lock().clone());
    ForwardRow {
        id,
        namespace: e.namespace.clone(),
        pod: match &follow {
            Some(f) => f.pod.clone().unwrap_or_default(),
            None => e.pod.clone(),
        },
        port: e.port,
        local: e.local,
        connections: s.connections.load(Ordering::Relaxed),
        active: s.active.load(Ordering::Relaxed),
        bytes_in: s.bytes_in.load(Ordering::Relaxed),
        bytes_out: s.bytes_out.load(Ordering::Relaxed),
        errors: s.errors.load(Ordering::Relaxed),
        target: e.target.clone(),
        moved: follow.map_or(0, |f| f.moved),
    }
}
