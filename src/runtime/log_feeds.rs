//! The runtime's side of the log screen: [`Effect::OpenLogs`], [`Effect::CloseLogs`] and
//! [`Effect::SaveLogs`] carried out, and the streams' events turned into [`Action::Log`] frames.
//!
//! Per log view: one [`CancellationToken`] (a child of the connection's), the streams of
//! [`spawn_log_view`] under a child of it, and one forwarder task that coalesces the streams'
//! events into at most one batch per [`LOG_FRAME`] and sends it to the app through one bounded
//! channel shared by all views. A slow UI fills that channel, the forwarders wait, the streams'
//! channels fill, the readers wait: memory never grows with the line rate.
//!
//! Invariants:
//! - [`LogFeeds::close`] cancels the view's token: every stream, connection and the forwarder end
//!   ([`LogCounters`] counts them all, the forwarder included);
//! - batches are tagged with the view id they were opened under; the app drops the ones for an
//!   id it no longer shows.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::Client;
use kube::discovery::ApiResource;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::log_stream::{
    ContainerPick, Guard, LOG_CHANNEL, LogContext, LogCounters, LogEvent, PodFilter, StreamOptions,
    coalesce, spawn_log_view,
};
use crate::informer::factory::{DynamicInformer, InformerKey, SharedInformerFactory};
use crate::ui::action::{Action, Effect, ViewId};

/// One frame of log lines: the streams' events are coalesced over this long into one
/// [`Action::Log`], so a 5,000 lines/s stream costs at most ~30 redraws a second.
pub const LOG_FRAME: Duration = Duration::from_millis(33);
/// Most events (reads from a connection) in one batch: a workload of many pods still gets
/// frames of bounded size.
pub const MAX_BATCH_EVENTS: usize = 2048;
/// Batches the app's log channel holds before the forwarders wait (all views together).
pub const APP_LOG_CHANNEL: usize = 8;

/// The channel the app's log batches arrive on (the runtime turns them into [`Action::Log`]).
pub type LogBatchRx = mpsc::Receiver<(ViewId, Vec<LogEvent>)>;

/// The log views the runtime runs.
pub struct LogFeeds {
    client: Client,
    factory: Arc<SharedInformerFactory>,
    counters: Arc<LogCounters>,
    out: mpsc::Sender<(ViewId, Vec<LogEvent>)>,
    parent: CancellationToken,
    views: HashMap<ViewId, CancellationToken>,
}

impl LogFeeds {
    /// Log views of `client`'s cluster, following pods through `factory`'s pod informers; all of
    /// them end with `parent`. Batches go out on the returned receiver.
    pub fn new(
        client: Client,
        factory: Arc<SharedInformerFactory>,
        parent: CancellationToken,
    ) -> (LogFeeds, LogBatchRx) {
        let (out, rx) = mpsc::channel(APP_LOG_CHANNEL);
        let feeds = LogFeeds {
            client,
            factory,
            counters: LogCounters::new(),
            out,
            parent,
            views: HashMap::new(),
        };
        (feeds, rx)
    }

    /// The same views' channel and counters for a new connection (after a context switch):
    /// the old views are closed.
    pub fn reconnect(
        &mut self,
        client: Client,
        factory: Arc<SharedInformerFactory>,
        parent: CancellationToken,
    ) {
        self.close_all();
        self.client = client;
        self.factory = factory;
        self.parent = parent;
    }

    /// Open the next views on `client` and `factory` (a fleet member's, for one effect:
    /// [`crate::ui::action::Effect::OnCluster`]); the views open now keep their streams.
    pub fn point_at(&mut self, client: Client, factory: Arc<SharedInformerFactory>) {
        self.client = client;
        self.factory = factory;
    }

    /// Live log tasks and connections of every view.
    pub fn counters(&self) -> Arc<LogCounters> {
        self.counters.clone()
    }

    /// Views open now.
    pub fn open_views(&self) -> usize {
        self.views.len()
    }

    /// Carry out a log effect; false for any other effect (not taken).
    pub fn carry_out(&mut self, effect: &Effect, app_tx: &mpsc::UnboundedSender<Action>) -> bool {
        match effect {
            Effect::OpenLogs {
                view,
                namespace,
                filter,
                containers,
                options,
            } => self.open(*view, namespace, filter, containers, *options),
            Effect::CloseLogs { view } => self.close(*view),
            Effect::SaveLogs {
                view,
                path,
                contents,
            } => save(*view, path.clone(), contents.clone(), app_tx.clone()),
            _ => return false,
        }
        true
    }

    /// Start the streams of one view.
    pub fn open(
        &mut self,
        view: ViewId,
        namespace: &str,
        filter: &PodFilter,
        containers: &ContainerPick,
        options: StreamOptions,
    ) {
        self.close(view);
        let token = self.parent.child_token();
        let (tx, rx) = mpsc::channel(LOG_CHANNEL);
        spawn_log_view(
            LogContext {
                client: self.client.clone(),
                tx,
                counters: self.counters.clone(),
                options,
            },
            self.pod_informer(namespace),
            Some(namespace.to_string()),
            filter.clone(),
            containers.clone(),
            token.child_token(),
        );
        let out = self.out.clone();
        let counters = self.counters.clone();
        let cancel = token.clone();
        tokio::spawn(async move {
            let _task = Guard::task(&counters);
            coalesce(rx, LOG_FRAME, MAX_BATCH_EVENTS, cancel, |batch| {
                let out = out.clone();
                async move { out.send((view, batch)).await.is_ok() }
            })
            .await;
        });
        tracing::info!(view, namespace, ?filter, "log view opened");
        self.views.insert(view, token);
    }

    /// Stop every stream of one view.
    pub fn close(&mut self, view: ViewId) {
        if let Some(token) = self.views.remove(&view) {
            token.cancel();
            tracing::info!(view, "log view closed");
        }
    }

    pub fn close_all(&mut self) {
        for (_, token) in self.views.drain() {
            token.cancel();
        }
    }

    /// The shared pod informer that sees `namespace`: the all-namespaces one when the dashboard
    /// runs one (one watch per kind), else the namespace's own (started if new).
    fn pod_informer(&self, namespace: &str) -> Arc<DynamicInformer> {
        let pods = ApiResource::erase::<Pod>(&());
        let wide = InformerKey::new(&pods, None);
        self.factory
            .informers()
            .into_iter()
            .find(|(k, _)| *k == wide)
            .map(|(_, i)| i)
            .unwrap_or_else(|| self.factory.informer_for(&pods, Some(namespace)))
    }
}

/// Write a view's buffer off the UI thread; answer with [`Action::LogSaved`].
fn save(view: ViewId, path: PathBuf, contents: String, tx: mpsc::UnboundedSender<Action>) {
    tokio::task::spawn_blocking(move || {
        let lines = contents.lines().count();
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, contents.as_bytes()));
        let result = match written {
            Ok(()) => {
                tracing::info!(path = %path.display(), lines, "log view saved");
                Ok((path, lines))
            }
            Err(e) => Err(format!("{}: {e}", path.display())),
        };
        let _ = tx.send(Action::LogSaved { view, result });
    });
}
