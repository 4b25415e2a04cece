//! The runtime without a terminal, for integration tests.

use super::*;

/// The runtime without a terminal, for integration tests: [`Effect`]s in, [`Action`]s out,
/// with the same informers, feeds, stats, event tap and metrics pollers as the dashboard.
pub struct Headless {
    rt: Runtime,
    rx: mpsc::UnboundedReceiver<Action>,
    metrics_rx: mpsc::Receiver<MetricsUpdate>,
    log_rx: LogBatchRx,
}

impl Headless {
    pub fn start(connection: Connection, metrics_period: Duration) -> Self {
        Self::start_recording(connection, metrics_period, None)
    }

    /// [`Self::start`] with a flight recorder fed as `--record FILE` feeds it.
    pub fn start_recording(
        connection: Connection,
        metrics_period: Duration,
        recorder: Option<Arc<crate::recorder::Recorder>>,
    ) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        let version: SharedVersion = Arc::new(parking_lot::Mutex::new(None));
        let (rt, Streams { metrics_rx, log_rx }) = Runtime::start(
            connection,
            version,
            metrics_period,
            Arc::new(History::with_mib(DEFAULT_BUDGET_MIB)),
            recorder,
            tx,
        );
        Self {
            rt,
            rx,
            metrics_rx,
            log_rx,
        }
    }

    /// Carry out one effect; false for [`Effect::Quit`].
    pub async fn carry_out(&mut self, effect: Effect) -> bool {
        self.rt.carry_out(effect).await
    }

    /// The next action for the app (`None`: every sender is gone).
    pub async fn next_action(&mut self) -> Option<Action> {
        let action = tokio::select! {
            a = self.rx.recv() => a,
            u = self.metrics_rx.recv() => u.map(Action::Metrics),
            b = self.log_rx.recv() => b.map(|(view, batch)| Action::Log { view, batch }),
        };
        if matches!(
            action,
            Some(Action::Rows { .. } | Action::ListedRows { .. })
        ) {
            self.rt.rows.taken(1);
        }
        action
    }

    /// Row batches the feeds sent that [`Self::next_action`] has not returned yet.
    pub fn rows_in_flight(&self) -> usize {
        self.rt.rows.in_flight()
    }

    /// Probe fleet members every `period` (default [`PROBE_PERIOD`]); for probes started later.
    pub fn set_probe_period(&mut self, period: Duration) {
        self.rt.probe_period = period;
    }

    /// The contexts probed now.
    pub fn probed_clusters(&self) -> Vec<String> {
        self.rt.probes.live()
    }

    /// The fleet members with their own connection and informers (not the current context).
    pub fn members(&self) -> Vec<String> {
        self.rt.member_names()
    }

    /// A member's informer factory.
    pub fn member_factory(&self, context: &str) -> Option<Arc<SharedInformerFactory>> {
        self.rt.member_factory(context)
    }

    /// The per-object history the views' past views read.
    pub fn history(&self) -> &Arc<History> {
        &self.rt.history
    }

    /// The informer factory of the current connection.
    pub fn factory(&self) -> &Arc<SharedInformerFactory> {
        &self.rt.factory
    }

    /// Metrics poller tasks still running.
    pub fn live_metrics_tasks(&mut self) -> usize {
        self.rt.metrics.live_tasks()
    }

    /// The scopes polled now.
    pub fn metrics_scopes(&self) -> Vec<MetricsScope> {
        self.rt.metrics.scopes()
    }

    /// Hold the feeds back as the dashboard does while a shell or an editor has the terminal.
    pub fn suspend(&self) {
        self.rt.suspend.set(true);
    }

    /// End [`suspend`](Self::suspend): the feeds send what changed meanwhile, as of now.
    pub fn resume(&self) {
        self.rt.suspend.set(false);
    }

    /// Actions queued for the app and not read yet.
    pub fn queued(&self) -> usize {
        self.rx.len()
    }

    pub async fn shutdown(mut self) {
        self.rt.shutdown().await;
    }
}
