//! Fault injection: what a misbehaving kube-apiserver does to its clients.
//!
//! Shared by the HTTP handlers (which consult it on every API request) and by tests and the admin
//! endpoint (`/_demo/faults/...`) which arm it.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::{mpsc, watch};

/// The fault switches. Cheap to clone (an `Arc` handle).
#[derive(Clone, Debug)]
pub struct FaultInjector {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    gone_next_watch: AtomicBool,
    gone_next_list: AtomicBool,
    /// (HTTP code, remaining count) for the next requests.
    errors: Mutex<Option<(u16, u32)>>,
    latency_ms: AtomicU64,
    /// `group/plural` (group empty for core) answering 403.
    forbidden: Mutex<BTreeSet<String>>,
    /// Bumped to end every open watch.
    drop_watches: watch::Sender<u64>,
    /// Asks the server task to stop listening for a while and restart on the same port.
    restart: Mutex<Option<mpsc::UnboundedSender<Duration>>>,
    requests: AtomicU32,
}

impl Default for FaultInjector {
    fn default() -> Self {
        Self::new()
    }
}

impl FaultInjector {
    pub fn new() -> Self {
        let (drop_watches, _) = watch::channel(0);
        Self {
            inner: Arc::new(Inner {
                gone_next_watch: AtomicBool::new(false),
                gone_next_list: AtomicBool::new(false),
                errors: Mutex::new(None),
                latency_ms: AtomicU64::new(0),
                forbidden: Mutex::new(BTreeSet::new()),
                drop_watches,
                restart: Mutex::new(None),
                requests: AtomicU32::new(0),
            }),
        }
    }

    /// End every open watch now (clients see the stream close cleanly, as on an apiserver restart).
    pub fn drop_watches(&self) {
        self.inner.drop_watches.send_modify(|g| *g += 1);
    }

    /// A receiver that changes when watches must be dropped.
    pub fn drop_signal(&self) -> watch::Receiver<u64> {
        self.inner.drop_watches.subscribe()
    }

    /// The next watch gets a `410 Expired` ERROR event.
    pub fn gone_next_watch(&self) {
        self.inner.gone_next_watch.store(true, Ordering::SeqCst);
    }

    /// The next list gets a `410 Expired` Status.
    pub fn gone_next_list(&self) {
        self.inner.gone_next_list.store(true, Ordering::SeqCst);
    }

    /// The next `count` API requests fail with `code` (429 or 500, or any 4xx/5xx).
    pub fn fail_next(&self, code: u16, count: u32) {
        *self.inner.errors.lock() = (count > 0).then_some((code, count));
    }

    /// Delay every API request by `latency`.
    pub fn set_latency(&self, latency: Duration) {
        let ms = u64::try_from(latency.as_millis()).unwrap_or(u64::MAX);
        self.inner.latency_ms.store(ms, Ordering::SeqCst);
    }

    /// Make a resource (`group`, `plural`; group `""` for core) answer 403 Forbidden.
    pub fn forbid(&self, group: &str, plural: &str) {
        self.inner
            .forbidden
            .lock()
            .insert(format!("{group}/{plural}"));
    }

    /// Undo [`Self::forbid`].
    pub fn allow(&self, group: &str, plural: &str) {
        self.inner
            .forbidden
            .lock()
            .remove(&format!("{group}/{plural}"));
    }

    /// Stop listening (closing every connection), wait `downtime`, and listen again on the same
    /// port with the same state. Returns false if the server is not running.
    pub fn restart(&self, downtime: Duration) -> bool {
        self.inner
            .restart
            .lock()
            .as_ref()
            .is_some_and(|tx| tx.send(downtime).is_ok())
    }

    /// Disarm everything (latency, errors, 410s, 403s).
    pub fn clear(&self) {
        self.inner.gone_next_watch.store(false, Ordering::SeqCst);
        self.inner.gone_next_list.store(false, Ordering::SeqCst);
        *self.inner.errors.lock() = None;
        self.inner.latency_ms.store(0, Ordering::SeqCst);
        self.inner.forbidden.lock().clear();
    }

    /// How many API requests were served (for tests).
    pub fn request_count(&self) -> u32 {
        self.inner.requests.load(Ordering::SeqCst)
    }

    pub(crate) fn set_restart_channel(&self, tx: mpsc::UnboundedSender<Duration>) {
        *self.inner.restart.lock() = Some(tx);
    }

    pub(crate) fn count_request(&self) {
        self.inner.requests.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn latency(&self) -> Duration {
        Duration::from_millis(self.inner.latency_ms.load(Ordering::SeqCst))
    }

    pub(crate) fn take_error(&self) -> Option<u16> {
        let mut e = self.inner.errors.lock();
        let (code, n) = (*e)?;
        *e = (n > 1).then_some((code, n - 1));
        Some(code)
    }

    pub(crate) fn take_gone_watch(&self) -> bool {
        self.inner.gone_next_watch.swap(false, Ordering::SeqCst)
    }

    pub(crate) fn take_gone_list(&self) -> bool {
        self.inner.gone_next_list.swap(false, Ordering::SeqCst)
    }

    pub(crate) fn is_forbidden(&self, group: &str, plural: &str) -> bool {
        self.inner
            .forbidden
            .lock()
            .contains(&format!("{group}/{plural}"))
    }
}
