//! A connection's background tasks: the event tap forwarded to the app, rediscovery while the
//! server is unreachable, and the header's and informer panel's stats (only changes go out).

use super::*;
use crate::ui::listing::ListingProgress;

/// Forward the factory-wide event tap (every delta popped by every informer) to the app, woken by
/// the tap's Notify and coalesced to at most ~30 batches a second. While a shell has the
/// terminal the tap is not read: its bounded ring keeps the latest entries, sent on return.
pub(super) fn spawn_tap(
    factory: &Arc<SharedInformerFactory>,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
    cluster: Option<Arc<str>>,
    mut suspended: Suspended,
) {
    let tap = factory.tap();
    tokio::spawn(async move {
        let mut seq = tap.latest_seq();
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = suspended.resumed() => {}
            }
            let notified = tap.notify().notified();
            let mut entries = tap.since(seq);
            if let Some(last) = entries.last() {
                seq = last.seq;
                // A fleet member's entries name it (the event log's CLUSTER column).
                if let Some(c) = &cluster {
                    for e in &mut entries {
                        e.cluster = Some(c.clone());
                    }
                }
                if tx.send(Action::Tap(entries)).is_err() {
                    return;
                }
            }
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = notified => {}
            }
            tokio::time::sleep(Duration::from_millis(33)).await;
        }
    });
}

/// The server version as the header shows it; `None` until the server answered.
pub(super) type SharedVersion = Arc<parking_lot::Mutex<Option<String>>>;

/// The server was unreachable at start: retry `/version` and discovery with backoff (1 s doubling
/// to 30 s) until they answer, then give the app the real resource list (CRDs included).
pub(super) fn spawn_rediscovery(
    connection: Connection,
    version: SharedVersion,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
) {
    tokio::spawn(async move {
        let mut delay = Duration::from_secs(1);
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tokio::time::sleep(delay) => {}
            }
            let attempt = async {
                let v = connection.server_version().await?;
                let r = connection.discover().await?;
                Ok::<_, crate::cluster::ClusterError>((v, r))
            };
            match attempt.await {
                Ok((v, resources)) => {
                    tracing::info!(server_version = %v, kinds = resources.len(), "server reachable again; discovery done");
                    *version.lock() = Some(v.clone());
                    let _ = tx.send(Action::Discovery(resources));
                    let _ = tx.send(Action::Connection(ConnectionState {
                        context: connection.context.clone(),
                        server_version: Some(v),
                        reachable: true,
                        retry_at_ms: None,
                        last_error: None,
                    }));
                    return;
                }
                Err(e) => {
                    tracing::debug!(error = %e, ?delay, "server still unreachable");
                    delay = (delay * 2).min(Duration::from_secs(30));
                    let _ = tx.send(Action::Connection(ConnectionState {
                        context: connection.context.clone(),
                        server_version: None,
                        reachable: false,
                        retry_at_ms: Some(now_ms() + delay.as_millis() as i64),
                        last_error: Some(e.to_string()),
                    }));
                }
            }
        }
    });
}

/// What the header and the informer panel show, computed from the factory's informers; keeps
/// what was last sent so that only changes go out.
pub(super) struct StatsSource {
    pub(super) factory: Arc<SharedInformerFactory>,
    /// The fleet members' factories (their rows name the member; the connection state is the
    /// current context's alone).
    pub(super) members: Vec<(Arc<str>, Arc<SharedInformerFactory>)>,
    pub(super) context: String,
    pub(super) server_version: SharedVersion,
    pub(super) last: Option<(Vec<InformerRow>, ConnectionState)>,
}

/// Shared by the stats task and the main loop (which refreshes it in the frame that carries rows).
pub(super) type SharedStats = Arc<parking_lot::Mutex<StatsSource>>;

impl StatsSource {
    pub(super) fn shared(
        factory: Arc<SharedInformerFactory>,
        context: String,
        server_version: SharedVersion,
    ) -> SharedStats {
        Arc::new(parking_lot::Mutex::new(Self {
            factory,
            members: Vec::new(),
            context,
            server_version,
            last: None,
        }))
    }

    /// An informer row per started informer (the current context's, then each member's), and
    /// the connection state the current context's imply.
    pub(super) fn collect(&self) -> (Vec<InformerRow>, ConnectionState) {
        let mut rows = Vec::new();
        let (any, unreachable) = informer_rows(&self.factory, None, &mut rows);
        for (name, factory) in &self.members {
            informer_rows(factory, Some(name), &mut rows);
        }
        let conn = ConnectionState {
            context: self.context.clone(),
            server_version: self.server_version.lock().clone(),
            reachable: unreachable.is_none() || !any,
            retry_at_ms: unreachable.as_ref().and_then(|u| u.1),
            last_error: unreachable.map(|u| u.0),
        };
        (rows, conn)
    }

    /// The actions to send if anything changed since the last call; none otherwise (an idle
    /// dashboard receives nothing and does not redraw).
    pub(super) fn changed(&mut self) -> Vec<Action> {
        let (rows, conn) = self.collect();
        if self
            .last
            .as_ref()
            .is_some_and(|(r, c)| r == &rows && c == &conn)
        {
            return Vec::new();
        }
        let out = vec![
            Action::InformerStats(rows.clone()),
            Action::Connection(conn.clone()),
        ];
        self.last = Some((rows, conn));
        out
    }

    /// Every informer's reflector status, to wake on its transitions (state, errors, lists;
    /// never per event).
    pub(super) fn status_receivers(&self) -> Vec<tokio::sync::watch::Receiver<ReflectorStatus>> {
        self.factory
            .informers()
            .into_iter()
            .filter_map(|(_, i)| i.reflector_status())
            .collect()
    }
}

/// Append a row per started informer of `factory` (`cluster`: `None` for the current context,
/// else the member's name); returns whether any informer had started, and the error of one
/// failing to connect (the connection state).
fn informer_rows(
    factory: &SharedInformerFactory,
    cluster: Option<&Arc<str>>,
    rows: &mut Vec<InformerRow>,
) -> (bool, Option<(String, Option<i64>)>) {
    let mut unreachable: Option<(String, Option<i64>)> = None;
    let mut any = false;
    for (key, informer) in factory.informers() {
        let stats = informer.stats();
        let Some(status) = stats.reflector.as_ref() else {
            continue;
        };
        let state = match status.state {
            ReflectorState::Listing => InformerState::Listing,
            ReflectorState::Watching => InformerState::Watching,
            ReflectorState::Backoff { until } => {
                let left = until.saturating_duration_since(tokio::time::Instant::now());
                let at = now_ms() + left.as_millis() as i64;
                if matches!(status.last_error, Some(InformerError::Forbidden(_))) {
                    InformerState::Forbidden { retry_at_ms: at }
                } else {
                    InformerState::BackingOff { until_ms: at }
                }
            }
            ReflectorState::Checking => InformerState::Checking,
            ReflectorState::Stopped => InformerState::Stopped,
        };
        let connect_err = matches!(status.last_error, Some(InformerError::Connect(_)));
        any = true;
        if connect_err && status.stale && !matches!(state, InformerState::Watching) {
            let retry = match state {
                InformerState::BackingOff { until_ms } => Some(until_ms),
                _ => None,
            };
            unreachable = Some((
                status
                    .last_error
                    .as_ref()
                    .map(|e| e.to_string())
                    .unwrap_or_default(),
                retry,
            ));
        }
        let label = if key.group.is_empty() {
            key.plural.clone()
        } else {
            format!("{}.{}", key.plural, key.group)
        };
        rows.push(InformerRow {
            resource: label,
            namespace: key.namespace.clone(),
            state,
            list_mode: status.list_mode.as_str(),
            wire: stats.wire,
            last_rv: status.last_sync_resource_version.clone(),
            cached: stats.cached_objects,
            queue_depth: stats.queue_depth,
            deltas_total: stats.deltas_total,
            deltas_per_sec: stats.deltas_per_sec,
            relists: status.relists,
            // The last error while it still holds: once the informer is current again, nothing
            // is wrong.
            last_error: status
                .last_error
                .as_ref()
                .filter(|_| status.stale)
                .map(|e| e.to_string()),
            synced: stats.has_synced,
            forbidden: matches!(status.last_error, Some(InformerError::Forbidden(_))),
            cluster: cluster.cloned(),
            progress: status
                .list_progress
                .as_ref()
                .filter(|_| matches!(status.state, ReflectorState::Listing))
                .map(|p| ListingProgress {
                    objects: p.objects,
                    bytes: p.bytes,
                    bytes_per_sec: p.bytes_per_sec(tokio::time::Instant::now()),
                    total: p.total,
                }),
            stale: status.stale && stats.has_synced,
            history_reset: status.last_history_reset.as_ref().map(|r| r.to_string()),
        });
    }
    (any, unreachable)
}

/// The stats for the frame being drawn: if this batch of actions carries rows, the informer rows
/// and connection state as of now (when changed), so the header's counts, RV and state reach the
/// screen with the rows that changed them. Once per frame, never per event.
pub(super) fn stats_with_rows(pending: &[Action], stats: &SharedStats) -> Vec<Action> {
    if pending
        .iter()
        .any(|a| matches!(a, Action::Rows { .. } | Action::ListedRows { .. }))
    {
        stats.lock().changed()
    } else {
        Vec::new()
    }
}

/// Informer panel rows and connection state: on every reflector transition (listing → watching,
/// errors, backoff, a completed list), and once a second for rates and countdowns; only when
/// changed. Rows-driven changes go out with the rows themselves (see [`stats_with_rows`]).
pub(super) fn spawn_stats(
    stats: SharedStats,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
    suspended: Suspended,
) {
    /// Receivers of every running reflector's status, with what they hold now marked as seen.
    /// Receivers of stopped reflectors report an error at once: left out, or the loop would spin.
    fn fresh(stats: &SharedStats) -> Vec<tokio::sync::watch::Receiver<ReflectorStatus>> {
        let mut receivers = stats.lock().status_receivers();
        for rx in &mut receivers {
            rx.borrow_and_update();
        }
        receivers.retain(|rx| rx.has_changed().is_ok());
        receivers
    }
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let mut receivers = fresh(&stats);
        loop {
            let transition = async {
                if receivers.is_empty() {
                    futures::future::pending::<()>().await;
                }
                let changes = receivers.iter_mut().map(|rx| Box::pin(rx.changed()));
                let _ = futures::future::select_all(changes).await;
            };
            tokio::select! {
                _ = cancel.cancelled() => return,
                _ = tick.tick() => {}
                _ = transition => {}
            }
            // Re-subscribe before collecting: a transition from here on wakes the next round.
            receivers = fresh(&stats);
            // Not while a shell has the terminal: the first round after it sends the changes.
            if suspended.is_on() {
                continue;
            }
            let actions = stats.lock().changed();
            for action in actions {
                if tx.send(action).is_err() {
                    return;
                }
            }
        }
    });
}
