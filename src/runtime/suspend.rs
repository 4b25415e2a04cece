//! Holding the feeds back while the terminal belongs to a shell or an editor.
//!
//! The frame loop stops reading the action channel for a whole session (`s`: exec, `e`: edit),
//! which may last hours under heavy churn. Instead of queueing every row update, tap batch and
//! stats line for a replay on return, the producers that follow cluster activity wait:
//! - a view's feed task stops taking keys: they stay in the view's workqueue, which holds each
//!   key once however often its object changes (bounded by the objects the view shows); on
//!   return the task reads those keys' latest objects from the indexer, so the table shows the
//!   informer's current state without a replay;
//! - the event tap's forwarder stops reading the tap: its bounded ring keeps the latest entries
//!   (more than the event log keeps), read in one go on return;
//! - stats, pods-per-node counts and fleet probes are not sent (the next round after the return
//!   sends the state as of then).
//!
//! What the session itself asked for (an answer to a request) is not held back: one per request.
//!
//! Measured (`tests/ui_suspend_runtime.rs`: 200 pods, 50,000 changes while suspended): 0 actions
//! queued (24,576 without the hold), 2 actions after the return until the table equals the
//! informer's store, live tasks unchanged. In tmux (debug build, `--history-mib 1`, an editor
//! open 2 minutes against `kinformer demo-server --pods 400 --churn 3000`, ~200–300 events/s
//! reaching the informer): RSS 47 → 56 MB and flattening, against 46 → 124 MB and climbing before.

use tokio::sync::watch;

/// The frame loop's switch: on for the length of a shell or editor session.
pub(super) struct Suspender(watch::Sender<bool>);

impl Suspender {
    pub(super) fn new() -> Self {
        Self(watch::Sender::new(false))
    }

    pub(super) fn set(&self, on: bool) {
        self.0.send_replace(on);
    }

    /// A producer's view of the switch.
    pub(super) fn watcher(&self) -> Suspended {
        Suspended(self.0.subscribe())
    }
}

/// Whether the app reads its actions now (see the module documentation).
#[derive(Clone)]
pub(super) struct Suspended(watch::Receiver<bool>);

impl Suspended {
    pub(super) fn is_on(&self) -> bool {
        *self.0.borrow()
    }

    /// Returns once the app reads again (at once when it does; once the runtime is gone too:
    /// nothing is held back any more, the send that follows fails and the producer ends).
    pub(super) async fn resumed(&mut self) {
        let _ = self.0.wait_for(|on| !*on).await;
    }

    /// Returns once a session begins (never once the runtime is gone).
    pub(super) async fn begun(&mut self) {
        if self.0.wait_for(|on| *on).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[tokio::test]
    async fn resumed_waits_for_the_end_of_a_session_and_begun_for_its_start() {
        let s = Suspender::new();
        let mut w = s.watcher();
        assert!(w.resumed().now_or_never().is_some());
        assert!(w.begun().now_or_never().is_none());
        s.set(true);
        assert!(w.is_on());
        assert!(w.begun().now_or_never().is_some());
        assert!(w.resumed().now_or_never().is_none());
        s.set(false);
        assert!(w.resumed().now_or_never().is_some());
    }

    #[tokio::test]
    async fn a_gone_runtime_holds_nothing_back() {
        let s = Suspender::new();
        let mut w = s.watcher();
        s.set(true);
        drop(s);
        assert!(w.resumed().now_or_never().is_some());
        let s = Suspender::new();
        let mut w = s.watcher();
        drop(s);
        assert!(w.begun().now_or_never().is_none());
    }
}
