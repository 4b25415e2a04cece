//! How a view is fed: the informer handler that queues keys (gated by a drill-down's index),
//! attaching a view to its informer once access allows, and the key batches read back from the
//! indexer as row summaries (client-go's controller pattern: a burst of updates to one object costs
//! one row update).

use super::*;
pub use crate::ui::table::rows_for_keys;

/// Most row batches sent by the feeds and not yet taken by the frame loop. Above it a feed waits
/// before it reads its next batch from the indexer, and its keys wait in the view's workqueue,
/// each once however often it changes: a UI slower than the cluster's churn bounds its backlog
/// to this many batches (of at most [`BATCH`] rows) and then shows each object's latest state,
/// instead of an ever longer queue of stale rows.
pub(super) const ROWS_IN_FLIGHT: usize = 16;

/// The count of row batches in flight between the feeds and the frame loop (see
/// [`ROWS_IN_FLIGHT`]), shared by every feed of a runtime.
#[derive(Clone, Default)]
pub(super) struct RowsInFlight(Arc<RowsCount>);

#[derive(Default)]
pub(super) struct RowsCount {
    sent: std::sync::atomic::AtomicUsize,
    taken: tokio::sync::Notify,
}

impl RowsInFlight {
    /// Wait until fewer than [`ROWS_IN_FLIGHT`] batches are in flight, then count one more.
    pub(super) async fn reserve(&self) {
        use std::sync::atomic::Ordering;
        loop {
            // Registered before the check, so a batch taken in between still wakes it.
            let taken = self.0.taken.notified();
            let reserved = self
                .0
                .sent
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < ROWS_IN_FLIGHT).then_some(n + 1)
                })
                .is_ok();
            if reserved {
                return;
            }
            taken.await;
        }
    }

    /// The frame loop took `n` batches: the feeds waiting may send again.
    pub(super) fn taken(&self, n: usize) {
        use std::sync::atomic::Ordering;
        if n == 0 {
            return;
        }
        let _ = self
            .0
            .sent
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |c| {
                Some(c.saturating_sub(n))
            });
        self.0.taken.notify_waiters();
    }

    /// Batches in flight now.
    pub(super) fn in_flight(&self) -> usize {
        self.0.sent.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// Handler that turns informer notifications into keys on the view's workqueue.
pub(super) struct KeyFeed {
    pub(super) queue: Arc<RateLimitingQueue<Arc<str>>>,
    /// A drilled view is fed only its drill's objects.
    pub(super) gate: Option<Arc<DrillGate>>,
}

/// What a drilled view is fed: the objects its drill's index files under one of the drill's
/// values. The view reads the objects already cached from the index (O(matches)); this gate
/// passes it the later changes of those objects only, so it never receives (nor renders, nor
/// sorts) the rest of the informer's objects.
pub(super) struct DrillGate {
    pub(super) drill: parking_lot::RwLock<Drill>,
    /// The index function of `drill.index()`, as the indexer applies it.
    pub(super) index_fn: IndexFunc<DynamicObject>,
    /// The informer had synced when the view registered, so the adds marked as part of the
    /// initial list are the registration's replay of the cache: skipped, the view reads the
    /// index instead (and the queue is seeded from it).
    pub(super) skip_replay: bool,
}

impl DrillGate {
    pub(super) fn admits(&self, obj: &DynamicObject) -> bool {
        match (self.index_fn)(obj) {
            Ok(values) => {
                let drill = self.drill.read();
                values.iter().any(|v| drill.has_value(v))
            }
            Err(_) => false,
        }
    }

    /// Queue the keys the index files under the drill's values (O(matches)).
    pub(super) fn seed(
        &self,
        store: &ThreadSafeStore<DynamicObject>,
        queue: &RateLimitingQueue<Arc<str>>,
    ) {
        let drill = self.drill.read();
        for value in drill.values() {
            for key in store
                .index_keys_all(drill.index(), &[value])
                .unwrap_or_default()
            {
                queue.add(key);
            }
        }
    }
}

/// A view's subscription to `informer`: a handler feeding a new workqueue with the keys of
/// changed objects. For a drill-down, only the drill's objects: the handler is gated and the
/// queue seeded from the drill's index (the objects already cached, O(matches)). Without the
/// drill's index (an informer built without it) the view gets every object and filters them.
pub(super) fn subscribe(
    informer: &Arc<SharedIndexInformer<DynamicObject>>,
    drill: Option<Drill>,
) -> Subscription {
    let queue = Arc::new(RateLimitingQueue::<Arc<str>>::new());
    let store = informer.indexer();
    let gate = drill.and_then(|drill| {
        let index_fn = store.get_indexers().remove(drill.index())?;
        Some(Arc::new(DrillGate {
            drill: parking_lot::RwLock::new(drill),
            index_fn,
            skip_replay: informer.has_synced(),
        }))
    });
    let registration = informer.add_event_handler(
        Arc::new(KeyFeed {
            queue: queue.clone(),
            gate: gate.clone(),
        }),
        None,
    );
    if let Some(g) = &gate {
        // After registering: what the skipped replay held is in the index by now.
        g.seed(&store, &queue);
    }
    Subscription {
        queue,
        gate,
        registration,
    }
}

/// What [`subscribe`] set up.
pub(super) struct Subscription {
    pub(super) queue: Arc<RateLimitingQueue<Arc<str>>>,
    pub(super) gate: Option<Arc<DrillGate>>,
    pub(super) registration: Result<HandlerRegistration<DynamicObject>, InformerError>,
}

/// A drilled view's gate, with its queue and store (for `Effect::SetDrill`).
pub(super) struct FedGate {
    pub(super) gate: Arc<DrillGate>,
    pub(super) queue: Arc<RateLimitingQueue<Arc<str>>>,
    pub(super) store: Arc<ThreadSafeStore<DynamicObject>>,
}

impl KeyFeed {
    pub(super) fn push<K: Resource>(&self, obj: &K) {
        if let Ok(key) = meta_namespace_key(obj) {
            self.queue.add(Arc::from(key));
        }
    }
}

impl ResourceEventHandler<DynamicObject> for KeyFeed {
    fn on_add(&self, obj: &Arc<DynamicObject>, is_in_initial_list: bool) {
        if let Some(g) = &self.gate
            && ((is_in_initial_list && g.skip_replay) || !g.admits(obj))
        {
            return;
        }
        self.push(obj.as_ref());
    }
    fn on_update(&self, old: &Arc<DynamicObject>, new: &Arc<DynamicObject>) {
        // An object leaving the drill is sent too: the view re-checks and hides it.
        if let Some(g) = &self.gate
            && !g.admits(new)
            && !g.admits(old)
        {
            return;
        }
        self.push(new.as_ref());
    }
    fn on_delete(&self, obj: &DeleteObject<DynamicObject>) {
        match obj {
            DeltaObject::Object(o) => {
                if self.gate.as_ref().is_none_or(|g| g.admits(o)) {
                    self.push(o.as_ref())
                }
            }
            DeltaObject::Tombstone(t) => self.queue.add(Arc::from(t.key.as_str())),
        }
    }
}

/// One open view: what it shows, its informer subscription (once access allows it) and the
/// tasks feeding it.
pub(super) struct ViewFeed {
    pub(super) resource: ResourceInfo,
    pub(super) namespace: Option<String>,
    /// A drill-down's index and values (kept for a reopen after a forbidden view's retry).
    pub(super) drill: Option<Drill>,
    pub(super) opened: OpenedSlot,
    pub(super) cancel: CancellationToken,
    /// A merged view (several clusters selected): the other members' subscriptions, by
    /// context; the current context's is `opened`.
    pub(super) members: Vec<(String, OpenedSlot)>,
    /// Fed by this member only ([`Effect::OnCluster`]: a drill-down into one cluster's object).
    pub(super) only: Option<String>,
    /// Its rows are keyed under their cluster (a member added later feeds it too).
    pub(super) merged: bool,
}

/// The informer a view was attached to: filled by the task that checked access first.
pub(super) type OpenedSlot = Arc<parking_lot::Mutex<Option<Opened>>>;

pub(super) struct Opened {
    pub(super) key: InformerKey,
    pub(super) informer: Arc<crate::informer::factory::DynamicInformer>,
    pub(super) registration: Option<HandlerRegistration<DynamicObject>>,
    /// A drilled view's gate (for `Effect::SetDrill`).
    pub(super) gate: Option<FedGate>,
}

/// Whether an informer's last error is a 403 and it holds nothing (it never listed).
pub(super) fn is_forbidden(informer: &crate::informer::factory::DynamicInformer) -> bool {
    !informer.has_synced()
        && informer
            .reflector_status()
            .is_some_and(|s| matches!(s.borrow().last_error, Some(InformerError::Forbidden(_))))
}

/// What attaching a view to its informer needs (run at once, or by the access-check task).
pub(super) struct Attach {
    pub(super) view: ViewId,
    pub(super) resource: ResourceInfo,
    /// `None` for all namespaces and cluster-scoped kinds.
    pub(super) namespace: Option<String>,
    pub(super) factory: Arc<SharedInformerFactory>,
    pub(super) tx: mpsc::UnboundedSender<Action>,
    pub(super) cancel: CancellationToken,
    pub(super) opened: OpenedSlot,
    /// A drill-down: the view is fed only what the drill's index files under its values.
    pub(super) drill: Option<Drill>,
    /// A merged view: the member these rows come from (their keys are put under it).
    pub(super) cluster: Option<Arc<str>>,
    /// While on, the feed task takes no keys (they wait, deduplicated, in the workqueue).
    pub(super) suspended: Suspended,
    /// The row batches in flight to the frame loop (bounded, see [`ROWS_IN_FLIGHT`]).
    pub(super) rows: RowsInFlight,
}

impl Attach {
    /// Start or reuse the informer, register the view's handler and start feeding its rows.
    pub(super) fn run(&self) {
        let view = self.view;
        let resource = &self.resource;
        let ns = self.namespace.as_deref();
        // The slot's lock orders this against `close_view`: a view closed meanwhile gets no
        // handler (close cancels before it takes the slot).
        let mut slot = self.opened.lock();
        if self.cancel.is_cancelled() {
            return;
        }
        // One watch per kind: a namespace view of a kind already watched across all namespaces
        // is served from that informer, its rows filtered to the namespace (not from one that
        // is forbidden: it holds nothing).
        let wide = ns.and_then(|_| {
            let want = InformerKey::new(&resource.api_resource, None);
            self.factory
                .informers()
                .into_iter()
                .find(|(k, i)| *k == want && !is_forbidden(i))
        });
        let (key, informer, only_namespace) = match wide {
            Some((k, i)) => (k, i, ns.map(str::to_string)),
            None => (
                InformerKey::new(&resource.api_resource, ns),
                self.factory.informer_for(&resource.api_resource, ns),
                None,
            ),
        };
        let _ = self.tx.send(match &self.cluster {
            Some(cluster) => Action::MemberStore {
                view,
                cluster: cluster.clone(),
                store: informer.indexer(),
            },
            None => Action::Store {
                view,
                store: informer.indexer(),
            },
        });
        let Subscription {
            queue,
            gate,
            registration,
        } = subscribe(&informer, self.drill.clone());
        let registration = match registration {
            Ok(r) => Some(r),
            Err(e) => {
                let _ = self.tx.send(Action::ViewError {
                    view,
                    message: e.to_string(),
                    forbidden: false,
                });
                None
            }
        };
        let tx = self.tx.clone();
        let kind = resource.api_resource.kind.clone();
        let printer = resource.printer_columns.clone();
        let store = informer.indexer();
        let gate = gate.map(|gate| FedGate {
            gate,
            queue: queue.clone(),
            store: store.clone(),
        });
        let task_cancel = self.cancel.clone();
        let cluster = self.cluster.clone();
        let suspended = self.suspended.clone();
        let rows = self.rows.clone();
        tokio::spawn(async move {
            let q = queue.clone();
            let feed = FeedTarget {
                view,
                kind,
                printer,
                only_namespace,
                cluster,
            };
            tokio::select! {
                _ = task_cancel.cancelled() => { q.shut_down(); }
                _ = feed_view(feed, store, queue, tx, suspended, rows) => {}
            }
        });
        *slot = Some(Opened {
            key,
            informer,
            registration,
            gate,
        });
    }
}

/// What a view's feed task renders and where it sends it.
pub(super) struct FeedTarget {
    pub(super) view: ViewId,
    pub(super) kind: String,
    pub(super) printer: Option<Vec<render::PrinterColumn>>,
    /// Rows of a namespace view served by the all-namespaces informer: this namespace's only.
    pub(super) only_namespace: Option<String>,
    /// A merged view's member: keys are put under it.
    pub(super) cluster: Option<Arc<str>>,
}

/// Take keys from the view's queue in batches, read the latest objects from the indexer and send
/// their rows. A key updated many times while queued is taken once. While `suspended` (a shell
/// has the terminal) no key is taken: they wait in the queue, each once, and are read when the
/// app reads again, so it gets the objects' state as of then and no backlog. While
/// [`ROWS_IN_FLIGHT`] batches wait for the frame loop, a batch's rows are read only once it may
/// be sent (keys changed meanwhile are queued again and sent again, latest state each time).
pub(super) async fn feed_view(
    feed: FeedTarget,
    store: Arc<ThreadSafeStore<DynamicObject>>,
    queue: Arc<RateLimitingQueue<Arc<str>>>,
    tx: mpsc::UnboundedSender<Action>,
    mut suspended: Suspended,
    rows: RowsInFlight,
) {
    let FeedTarget {
        view,
        kind,
        printer,
        only_namespace,
        cluster,
    } = feed;
    let printer = printer.as_deref();
    let prefix = only_namespace.as_ref().map(|ns| format!("{ns}/"));
    loop {
        suspended.resumed().await;
        let keys = tokio::select! {
            _ = suspended.begun() => continue,
            keys = next_key_batch(&queue, BATCH) => keys,
        };
        let Some(keys) = keys else {
            return;
        };
        let keys: Vec<Arc<str>> = match &prefix {
            Some(p) => keys
                .into_iter()
                .filter(|k| k.starts_with(p.as_str()))
                .collect(),
            None => keys,
        };
        rows.reserve().await;
        let (upserts, deletes) = rows_for_keys(&kind, printer, &store, cluster.as_deref(), &keys);
        if tx
            .send(Action::Rows {
                view,
                upserts,
                deletes,
            })
            .is_err()
        {
            return;
        }
    }
}

/// Wait for a key, then take every key already ready, up to `max`, and mark them done (the
/// caller reads the indexer after this, so a key re-added meanwhile is queued again and read
/// again). `None` once the queue is shut down.
pub async fn next_key_batch(
    queue: &RateLimitingQueue<Arc<str>>,
    max: usize,
) -> Option<Vec<Arc<str>>> {
    let first = queue.get().await?;
    let mut keys = vec![first];
    while keys.len() < max {
        // `get` takes an item synchronously when one is ready, so polling it once is a
        // non-blocking take; dropping the pending future takes nothing.
        match queue.get().now_or_never() {
            Some(Some(k)) => keys.push(k),
            _ => break,
        }
    }
    for key in &keys {
        queue.done(key);
    }
    Some(keys)
}
