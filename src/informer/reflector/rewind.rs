//! The reflector's history check: noticing a server whose history went back (an etcd restored
//! from a backup, a cluster re-created under the same address), which client-go never notices.
//!
//! client-go counterpart: none. After an etcd restore, resourceVersions start again from the
//! backup's revision, lower than the one a reflector watches from; kube-apiserver accepts a watch
//! from a resourceVersion it has not reached yet and stays silent until its revision passes it
//! (`watchCache.getAllEventsSinceLocked`), so a client-go informer shows the old state as current
//! for as long as the process lives (Kubernetes' etcd-restore guide tells operators to restart every
//! component). A re-created cluster may even have reached a higher revision than the old one.
//!
//! What the reflector does (see the module docs of [`super`] for the state machine):
//! - after every reconnect (the server was unreachable, answered 5xx or 429, a watch was cut off
//!   before its timeout: a restarted server) and on demand ([`ReflectorControl::check_history`],
//!   `ctrl-r`), before watching again, it asks [`ListerWatcher::history_mark`]: one consistent
//!   `limit=1` read (the server's revision, and `remainingItemCount`) and the `kube-system`
//!   namespace's uid (the cluster's identity; unknown on 403);
//! - a revision lower than the one the store is synced to, or a different identity, means the
//!   store describes a history the server no longer has: the reflector drops its watch, lists
//!   from scratch with a consistent read and replaces the store (a Deleted delta for every object
//!   that is gone, as `Replace` does), and publishes a [`HistoryReset`];
//! - a watch event whose resourceVersion is lower than the last one seen is the same news, from
//!   the watch itself (one integer comparison per event: the only cost in steady state).
//!
//! Invariants:
//! - no request in steady state: the check runs only after a failure, an early watch close or on
//!   demand, and once when the reflector starts (the identity to compare with later);
//! - the identity seen first is the one compared with; an unknown identity (403) is never a change;
//! - RVs are compared only when both are integers (as every kube-apiserver sends); an opaque RV
//!   never triggers a reset.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

use tokio::sync::Notify;

use super::{Reflector, ReflectorState, State};
use crate::informer::Object;
use crate::informer::list_watch::HistoryMark;

/// Asks a running reflector to check the server's history now, or to list again from scratch.
/// Cheap to clone; a request made while the reflector lists is served when the list ends.
#[derive(Clone, Default)]
pub struct ReflectorControl(Arc<ControlInner>);

#[derive(Default)]
struct ControlInner {
    notify: Notify,
    check: AtomicBool,
    relist: AtomicBool,
}

impl std::fmt::Debug for ReflectorControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReflectorControl").finish_non_exhaustive()
    }
}

/// What a [`ReflectorControl`] asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Request {
    /// Check the history before watching on (`ctrl-r`).
    Check,
    /// List again with a consistent read and replace the store (`:verify` found differences).
    Relist,
}

impl ReflectorControl {
    /// Check the server's history before watching on (ends the open watch; cuts a backoff short).
    pub fn check_history(&self) {
        self.0.check.store(true, Ordering::SeqCst);
        self.0.notify.notify_one();
    }

    /// List again from scratch (a consistent read) and replace the store.
    pub fn relist(&self) {
        self.0.relist.store(true, Ordering::SeqCst);
        self.0.notify.notify_one();
    }

    /// Wait for a request; a relist wins over a check.
    pub(super) async fn requested(&self) -> Request {
        loop {
            if let Some(r) = self.take() {
                return r;
            }
            self.0.notify.notified().await;
        }
    }

    fn take(&self) -> Option<Request> {
        if self.0.relist.swap(false, Ordering::SeqCst) {
            self.0.check.store(false, Ordering::SeqCst);
            Some(Request::Relist)
        } else if self.0.check.swap(false, Ordering::SeqCst) {
            Some(Request::Check)
        } else {
            None
        }
    }
}

/// Why the reflector decided the server's history went back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RewindCause {
    /// The server's revision is lower than the one the store was synced to.
    OlderRevision,
    /// A watch event carried a resourceVersion lower than the last one seen.
    OlderWatchEvent,
    /// The `kube-system` namespace's uid changed: another cluster answers at this address.
    NewCluster,
}

/// A history reset: the store was listed again from scratch because the server's history went
/// back. Its `Display` is the line the header and the event log show.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryReset {
    /// The RV the store was synced to.
    pub from: String,
    /// The server's RV that revealed it (the probe's, or the older watch event's).
    pub to: String,
    pub cause: RewindCause,
    pub at: SystemTime,
}

impl std::fmt::Display for HistoryReset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let why = match self.cause {
            RewindCause::OlderRevision | RewindCause::OlderWatchEvent => {
                "etcd restored or cluster re-created"
            }
            RewindCause::NewCluster => "cluster re-created: new kube-system uid",
        };
        write!(
            f,
            "history went back (RV {} → {}: {why}); listed again",
            group_digits(&self.from),
            group_digits(&self.to)
        )
    }
}

/// `213522` → `213,522`; anything but digits as is.
fn group_digits(rv: &str) -> String {
    if rv.is_empty() || !rv.bytes().all(|b| b.is_ascii_digit()) {
        return rv.to_string();
    }
    let mut out = String::with_capacity(rv.len() + rv.len() / 3);
    for (i, c) in rv.chars().enumerate() {
        if i > 0 && (rv.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Whether `rv` is older than `than`, both integers (opaque RVs are never compared).
pub(super) fn rv_is_older(rv: &str, than: Option<u64>) -> bool {
    match (than, rv.parse::<u64>()) {
        (Some(than), Ok(rv)) => rv < than,
        _ => false,
    }
}

impl<K: Object> Reflector<K> {
    /// Ask where the server's history is, then go to `then`, or list from scratch if it went
    /// back. Without [`ListerWatcher::history_mark`] this is `then` at once.
    pub(super) async fn check_history(&mut self, then: State<K>) -> State<K> {
        let Some(ask) = self.lw.history_mark() else {
            return then;
        };
        self.set_state(ReflectorState::Checking);
        match ask.await {
            Ok(mark) => self.after_history_mark(mark, then),
            Err(err) => {
                tracing::warn!(kind = %self.config.kind, error = %err, "history check failed");
                self.record_error(&err);
                // Ask again after the backoff: what follows a reconnect is not trusted before
                // the server said where its history is.
                self.backoff(State::CheckHistory {
                    then: Box::new(then),
                })
            }
        }
    }

    fn publish_mark(&mut self, mark: &HistoryMark) {
        let unfiltered =
            self.config.label_selector.is_none() && self.config.field_selector.is_none();
        let fresh = mark
            .total
            .filter(|_| unfiltered)
            .map_or(0, |n| n.saturating_add(1));
        self.fresh_total.store(fresh, Ordering::Relaxed);
        self.status.send_if_modified(|s| {
            s.server_resource_version = Some(mark.resource_version.clone());
            s.server_total = mark.total;
            false
        });
    }

    fn after_history_mark(&mut self, mark: HistoryMark, then: State<K>) -> State<K> {
        self.publish_mark(&mark);
        let known = self.cluster_uid.clone();
        if let (Some(now), Some(before)) = (&mark.cluster_uid, &known)
            && now != before
        {
            self.cluster_uid = mark.cluster_uid.clone();
            return self.history_went_back(&mark.resource_version, RewindCause::NewCluster);
        }
        if known.is_none() {
            self.cluster_uid = mark.cluster_uid.clone();
        }
        if !self.last_sync_rv.is_empty() && rv_is_older(&mark.resource_version, self.last_sync_rv_n)
        {
            return self.history_went_back(&mark.resource_version, RewindCause::OlderRevision);
        }
        // The server is where we left it: the store is current again.
        self.recovered();
        then
    }

    /// The store describes a history the server no longer has: say so, and list from scratch
    /// with a consistent read (the RV we hold means nothing to this server).
    pub(super) fn history_went_back(&mut self, server_rv: &str, cause: RewindCause) -> State<K> {
        let reset = HistoryReset {
            from: self.last_sync_rv.clone(),
            to: server_rv.to_string(),
            cause,
            at: SystemTime::now(),
        };
        tracing::warn!(kind = %self.config.kind, %reset, "history went back");
        self.rv_unavailable = true;
        self.expired_watch_rv = None;
        self.status.send_modify(|s| {
            s.history_resets += 1;
            s.last_history_reset = Some(reset);
        });
        self.list_state("history went back")
    }

    /// A relist asked for from outside (`:verify` found differences): a consistent read.
    pub(super) fn requested_relist(&mut self) -> State<K> {
        tracing::info!(kind = %self.config.kind, "relist requested");
        self.rv_unavailable = true;
        self.expired_watch_rv = None;
        self.list_state("relist requested")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_history_reset_reads_as_the_header_says_it() {
        let r = HistoryReset {
            from: "213522".into(),
            to: "20589".into(),
            cause: RewindCause::OlderRevision,
            at: SystemTime::UNIX_EPOCH,
        };
        assert_eq!(
            r.to_string(),
            "history went back (RV 213,522 → 20,589: etcd restored or cluster re-created); listed again"
        );
        assert_eq!(group_digits("999"), "999");
        assert_eq!(group_digits("1000"), "1,000");
        assert_eq!(group_digits("abc"), "abc");
    }

    #[test]
    fn only_integer_rvs_compare_as_older() {
        assert!(rv_is_older("9", Some(10)));
        assert!(!rv_is_older("10", Some(10)));
        assert!(!rv_is_older("x", Some(10)));
        assert!(!rv_is_older("9", None));
    }
}
