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
    store_read_error_next_watch: AtomicBool,
    /// (HTTP code, remaining count, `Retry-After` seconds) for the next requests.
    errors: Mutex<Option<(u16, u32, u32)>>,
    latency_ms: AtomicU64,
    /// `group/plural` (group empty for core) answering 403.
    forbidden: Mutex<BTreeSet<String>>,
    /// Bumped to end every open watch.
    drop_watches: watch::Sender<u64>,
    /// Asks the server task to stop listening for a while and restart on the same port.
    restart: Mutex<Option<mpsc::UnboundedSender<Duration>>>,
    /// How long the watch cache of the next restart takes to rebuild (ms).
    rebuild_ms: AtomicU64,
    /// Until then, lists and watches answer 429 `storage is (re)initializing`.
    cache_ready_at: Mutex<Option<std::time::Instant>>,
    requests: AtomicU32,
    /// Bytes per second JSON list and watch bodies are sent at (0: as fast as loopback takes
    /// them).
    send_rate: AtomicU64,
    /// The etcd backup [`FaultInjector::restore_snapshot`] restores.
    snapshot: Mutex<Option<crate::demo::cluster::Snapshot>>,
    /// The same for protobuf bodies.
    send_rate_pb: AtomicU64,
    /// The group whose discovery document (`/apis/GROUP/VERSION`) is held until released.
    discovery_hold: Mutex<Option<String>>,
    /// Bumped to release a held discovery document.
    discovery_release: watch::Sender<u64>,
    /// The group versions whose discovery documents were asked for (`v1` for the core group).
    discovery_asked: watch::Sender<BTreeSet<String>>,
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
                store_read_error_next_watch: AtomicBool::new(false),
                errors: Mutex::new(None),
                latency_ms: AtomicU64::new(0),
                forbidden: Mutex::new(BTreeSet::new()),
                drop_watches,
                restart: Mutex::new(None),
                rebuild_ms: AtomicU64::new(0),
                cache_ready_at: Mutex::new(None),
                requests: AtomicU32::new(0),
                send_rate: AtomicU64::new(0),
                snapshot: Mutex::new(None),
                send_rate_pb: AtomicU64::new(0),
                discovery_hold: Mutex::new(None),
                discovery_release: watch::channel(0).0,
                discovery_asked: watch::channel(BTreeSet::new()).0,
            }),
        }
    }

    /// Hold `group`'s discovery document: its requests wait until [`Self::release_discovery`],
    /// as a slow aggregated API server (metrics-server, a provider's webhook) keeps its clients.
    pub fn hold_discovery(&self, group: &str) {
        *self.inner.discovery_hold.lock() = Some(group.to_string());
    }

    /// Answer the held discovery requests, and hold none from now on.
    pub fn release_discovery(&self) {
        *self.inner.discovery_hold.lock() = None;
        self.inner.discovery_release.send_modify(|n| *n += 1);
    }

    /// The group versions whose discovery documents were asked for so far (`v1`: the core
    /// group; `apps/v1`, …), as they arrive: a test waits on it for an explicit signal.
    pub fn discovery_asked(&self) -> watch::Receiver<BTreeSet<String>> {
        self.inner.discovery_asked.subscribe()
    }

    /// A group version's discovery document is asked for: note it, then wait while its group
    /// is held.
    pub(crate) async fn on_discovery_request(&self, group: &str, version: &str) {
        let gv = if group.is_empty() {
            version.to_string()
        } else {
            format!("{group}/{version}")
        };
        self.inner.discovery_asked.send_modify(|s| {
            s.insert(gv);
        });
        let mut released = self.inner.discovery_release.subscribe();
        while self.inner.discovery_hold.lock().as_deref() == Some(group) && !group.is_empty() {
            if released.changed().await.is_err() {
                return;
            }
        }
    }

    /// End every open watch now (clients see the stream close cleanly, as on an apiserver restart).
    pub fn drop_watches(&self) {
        self.inner.drop_watches.send_modify(|g| *g += 1);
    }

    /// Take an etcd backup of `cluster` now, for [`Self::restore_snapshot`].
    pub fn save_snapshot(&self, cluster: &crate::demo::cluster::DemoCluster) {
        *self.inner.snapshot.lock() = Some(cluster.snapshot());
    }

    /// Restore the backup taken by [`Self::save_snapshot`] (etcd restored: fewer objects, lower
    /// resourceVersions) and end every open watch, as the API server restarted over it does.
    /// `false` without a backup.
    pub fn restore_snapshot(&self, cluster: &crate::demo::cluster::DemoCluster) -> bool {
        let Some(snap) = self.inner.snapshot.lock().clone() else {
            return false;
        };
        cluster.restore(&snap);
        self.drop_watches();
        true
    }

    /// Re-create the cluster (everything gone, revisions from zero, a new `kube-system` uid)
    /// and end every open watch.
    pub fn recreate_cluster(&self, cluster: &crate::demo::cluster::DemoCluster) {
        cluster.recreate();
        self.drop_watches();
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

    /// The next `count` API requests fail with `code` (429 or 500, or any 4xx/5xx); a 429 asks
    /// for a retry after 1 s, as kube-apiserver's `NewTooManyRequests` does.
    pub fn fail_next(&self, code: u16, count: u32) {
        self.fail_next_asking(code, count, u32::from(code == 429));
    }

    /// [`Self::fail_next`], each answer asking for a retry after `retry_after_secs` (its
    /// `Status`'s `details.retryAfterSeconds` and the `Retry-After` header kube-apiserver's
    /// `ErrorNegotiated` writes from it; 0: neither).
    pub fn fail_next_asking(&self, code: u16, count: u32, retry_after_secs: u32) {
        *self.inner.errors.lock() = (count > 0).then_some((code, count, retry_after_secs));
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

    /// [`Self::restart`], after which the new server's watch cache takes `rebuild` to build:
    /// meanwhile lists and watches answer 429 `storage is (re)initializing` (retry after 1 s),
    /// as kube-apiserver's do.
    pub fn restart_with_cache_rebuild(&self, downtime: Duration, rebuild: Duration) -> bool {
        let ms = u64::try_from(rebuild.as_millis()).unwrap_or(u64::MAX);
        self.inner.rebuild_ms.store(ms, Ordering::SeqCst);
        self.restart(downtime)
    }

    /// The server is listening again: its watch cache starts rebuilding.
    pub(crate) fn start_cache_rebuild(&self) {
        let ms = self.inner.rebuild_ms.swap(0, Ordering::SeqCst);
        *self.inner.cache_ready_at.lock() =
            (ms > 0).then(|| std::time::Instant::now() + Duration::from_millis(ms));
    }

    /// Whether the watch cache is still rebuilding after a restart.
    pub(crate) fn cache_rebuilding(&self) -> bool {
        let mut at = self.inner.cache_ready_at.lock();
        match *at {
            Some(t) if std::time::Instant::now() < t => true,
            Some(_) => {
                *at = None;
                false
            }
            None => false,
        }
    }

    /// Disarm everything (latency, errors, 410s, 403s).
    pub fn clear(&self) {
        self.inner.gone_next_watch.store(false, Ordering::SeqCst);
        self.inner.gone_next_list.store(false, Ordering::SeqCst);
        self.inner
            .store_read_error_next_watch
            .store(false, Ordering::SeqCst);
        *self.inner.errors.lock() = None;
        self.inner.latency_ms.store(0, Ordering::SeqCst);
        self.inner.forbidden.lock().clear();
        self.inner.send_rate.store(0, Ordering::SeqCst);
        self.inner.send_rate_pb.store(0, Ordering::SeqCst);
    }

    /// Send list and watch bodies no faster than `bytes_per_sec` (0: unlimited) in either
    /// encoding, as a real kube-apiserver does: it encodes each object of a list or watch at
    /// request time (the issue measured ~58 MB/s for JSON), where this server copies stored
    /// bytes at loopback speed.
    pub fn set_send_rate(&self, bytes_per_sec: u64) {
        self.set_send_rates(bytes_per_sec, bytes_per_sec);
    }

    /// Send JSON bodies no faster than `json` and protobuf bodies no faster than `protobuf`
    /// bytes per second (0: unlimited). A real kube-apiserver encodes protobuf faster than JSON
    /// (measured: 100k pods, 1.05 GB of JSON in 17–19 s, 724 MB of protobuf in 8.3–12.6 s).
    pub fn set_send_rates(&self, json: u64, protobuf: u64) {
        self.inner.send_rate.store(json, Ordering::SeqCst);
        self.inner.send_rate_pb.store(protobuf, Ordering::SeqCst);
    }

    /// The JSON send rate (bytes per second, 0: unlimited).
    pub(crate) fn send_rate(&self) -> u64 {
        self.inner.send_rate.load(Ordering::SeqCst)
    }

    /// The send rate of a body in protobuf (`proto`) or JSON.
    pub(crate) fn send_rate_for(&self, proto: bool) -> u64 {
        if proto {
            self.inner.send_rate_pb.load(Ordering::SeqCst)
        } else {
            self.send_rate()
        }
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

    /// The next injected failure: its code and the seconds it asks to wait (0: none).
    pub(crate) fn take_error(&self) -> Option<(u16, u32)> {
        let mut e = self.inner.errors.lock();
        let (code, n, wait) = (*e)?;
        *e = (n > 1).then_some((code, n - 1, wait));
        Some((code, wait))
    }

    /// The next watch opens, then sends a 500 `StorageReadError` ERROR event (what
    /// kube-apiserver sends when it cannot read an object from storage, e.g. a corrupt object's
    /// unsafe deletion) and ends.
    pub fn store_read_error_next_watch(&self) {
        self.inner
            .store_read_error_next_watch
            .store(true, Ordering::SeqCst);
    }

    pub(crate) fn take_store_read_error_watch(&self) -> bool {
        self.inner
            .store_read_error_next_watch
            .swap(false, Ordering::SeqCst)
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

/// `stream` no faster than `bytes_per_sec` (0: unchanged): each item is released when the bytes
/// before it, at that rate, would have been sent. A stream idle for a while (a watch between
/// events) starts a new budget, so idle time is not saved up for a later burst.
pub(crate) fn paced<T, S>(
    bytes_per_sec: u64,
    len: fn(&T) -> usize,
    stream: S,
) -> impl futures::Stream<Item = T> + Send + 'static
where
    T: Send + 'static,
    S: futures::Stream<Item = T> + Send + 'static,
{
    async_stream::stream! {
        use futures::StreamExt;
        let mut stream = std::pin::pin!(stream);
        let mut start = tokio::time::Instant::now();
        let mut sent: u64 = 0;
        while let Some(item) = stream.next().await {
            if bytes_per_sec > 0 {
                let now = tokio::time::Instant::now();
                let due = start + Duration::from_secs_f64(sent as f64 / bytes_per_sec as f64);
                if now > due + Duration::from_millis(100) {
                    start = now;
                    sent = 0;
                }
                sent += len(&item) as u64;
                tokio::time::sleep_until(
                    start + Duration::from_secs_f64(sent as f64 / bytes_per_sec as f64),
                )
                .await;
            }
            yield item;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    fn chunks(n: usize, size: usize) -> impl futures::Stream<Item = Vec<u8>> + Send + 'static {
        futures::stream::iter((0..n).map(move |_| vec![0u8; size]))
    }

    #[test]
    fn send_rates_are_kept_per_encoding_and_cleared() {
        let f = FaultInjector::new();
        f.set_send_rates(58_000_000, 70_000_000);
        assert_eq!(
            (f.send_rate_for(false), f.send_rate_for(true)),
            (58_000_000, 70_000_000)
        );
        f.set_send_rate(10);
        assert_eq!((f.send_rate_for(false), f.send_rate_for(true)), (10, 10));
        f.clear();
        assert_eq!((f.send_rate_for(false), f.send_rate_for(true)), (0, 0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_paced_stream_takes_its_bytes_over_the_rate() {
        let start = tokio::time::Instant::now();
        let out: Vec<Vec<u8>> = paced(10_000, Vec::len, chunks(20, 1_000)).collect().await;
        assert_eq!(out.len(), 20);
        // 20,000 bytes at 10,000 B/s: two seconds, the last chunk released when it is "sent".
        assert_eq!(start.elapsed(), Duration::from_secs(2));
    }

    #[tokio::test(start_paused = true)]
    async fn an_unlimited_rate_does_not_delay_and_idle_time_is_not_saved_up() {
        let start = tokio::time::Instant::now();
        let out: Vec<Vec<u8>> = paced(0, Vec::len, chunks(5, 1_000_000)).collect().await;
        assert_eq!((out.len(), start.elapsed()), (5, Duration::ZERO));

        // One chunk, a long pause, then a burst: the burst is paced from its own start.
        let burst = futures::stream::iter([vec![0u8; 1_000]])
            .chain(futures::stream::once(async {
                tokio::time::sleep(Duration::from_secs(10)).await;
                vec![0u8; 1_000]
            }))
            .chain(chunks(4, 1_000));
        let start = tokio::time::Instant::now();
        let out: Vec<Vec<u8>> = paced(1_000, Vec::len, burst).collect().await;
        assert_eq!(out.len(), 6);
        // 1 s for the first, 10 s idle (the second chunk arrives at 11 s), then 5 chunks at
        // 1 s each from there.
        assert_eq!(start.elapsed(), Duration::from_secs(16));
    }
}
