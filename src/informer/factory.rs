//! SharedInformerFactory: one informer per resource kind and namespace scope, shared by every
//! view that asks for it.
//!
//! client-go counterpart: `informers/factory.go` (`sharedInformerFactory`) and
//! `dynamic/dynamicinformer/informer.go` (the dynamic factory keyed by `GroupVersionResource`).
//!
//! Invariants:
//! - at most one informer exists per [`InformerKey`] (group, version, plural, namespace scope)
//!   for the life of the factory, however many times it is requested;
//! - after [`SharedInformerFactory::start`], every informer requested is running: those that
//!   existed are spawned by `start`, later ones at once by `informer_for`;
//! - an informer is spawned at most once; after [`SharedInformerFactory::shutdown`] nothing is
//!   spawned any more and every spawned informer has returned;
//! - all informers of a factory record into one bounded [`EventTap`] (the dashboard's event log).
//!
//! Differences from client-go:
//! - an informer requested after `start` starts at once; client-go's factory starts it only at
//!   the next `Start` call (the dashboard opens views at any time and must not forget to);
//! - one informer can be stopped and forgotten (`stop`) when no view needs it any more; client-go
//!   only shuts the whole factory down.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use kube::api::{ApiResource, DynamicObject};
use parking_lot::Mutex;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::decode::ObjectMask;
use super::delta_fifo::{Observer, Transform, default_transform};
use super::history::{History, history_resource};
use super::index::{Indexers, NODE_INDEX, default_indexers, dynamic_pod_node_index_func};
use super::list_watch::{KubeListerWatcher, ListerWatcher};
use super::listing::ListSizeHint;
use super::reflector::ReflectorConfig;
use super::shared_informer::{
    DEFAULT_TAP_CAPACITY, EventTap, InformerConfig, PopObserver, SharedIndexInformer,
};

/// The informer type a factory hands out.
pub type DynamicInformer = SharedIndexInformer<DynamicObject>;

/// Builds the ListerWatcher for one kind and namespace scope (`None` = all namespaces).
pub type ListerWatcherMaker =
    Arc<dyn Fn(&ApiResource, Option<&str>) -> Arc<dyn ListerWatcher<DynamicObject>> + Send + Sync>;

/// Chooses the transform for a kind; `None` = [`default_transform`].
pub type TransformHook =
    Arc<dyn Fn(&ApiResource) -> Option<Transform<DynamicObject>> + Send + Sync>;

/// Chooses the observer for a kind (shown each object as decoded, with its delta type); `None`
/// = none.
pub type ObserverHook = Arc<dyn Fn(&ApiResource) -> Option<Observer<DynamicObject>> + Send + Sync>;

/// Chooses the pop observer for a kind (shown each pop's key and deltas); `None` = none.
pub type PopObserverHook =
    Arc<dyn Fn(&ApiResource) -> Option<PopObserver<DynamicObject>> + Send + Sync>;

/// Chooses the decode mask for a kind (see [`super::decode`]); `None` = decode everything. It
/// must drop no more than that kind's transform drops.
pub type MaskHook = Arc<dyn Fn(&ApiResource) -> Option<ObjectMask> + Send + Sync>;

/// What identifies a shared informer: the resource and the namespace scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InformerKey {
    pub group: String,
    pub version: String,
    pub plural: String,
    /// `None` = all namespaces (or a cluster-scoped kind).
    pub namespace: Option<String>,
}

impl InformerKey {
    /// The key for `resource` in `namespace`.
    pub fn new(resource: &ApiResource, namespace: Option<&str>) -> Self {
        Self {
            group: resource.group.clone(),
            version: resource.version.clone(),
            plural: resource.plural.clone(),
            namespace: namespace.filter(|n| !n.is_empty()).map(str::to_string),
        }
    }

    /// `group/version/plural` (`version/plural` for the core group), the informer's kind label.
    pub fn resource_label(&self) -> String {
        if self.group.is_empty() {
            format!("{}/{}", self.version, self.plural)
        } else {
            format!("{}/{}/{}", self.group, self.version, self.plural)
        }
    }
}

impl InformerKey {
    /// How people name the informer: `pods`, `deployments.apps`, with `@namespace` for a
    /// namespace-scoped one. The informer's kind (and so the event log's KIND column) uses it, so
    /// two informers of one kind in different scopes stay apart.
    pub fn short_label(&self) -> String {
        let mut s = if self.group.is_empty() {
            self.plural.clone()
        } else {
            format!("{}.{}", self.plural, self.group)
        };
        if let Some(ns) = &self.namespace {
            s.push('@');
            s.push_str(ns);
        }
        s
    }
}

impl std::fmt::Display for InformerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.namespace {
            Some(ns) => write!(f, "{} in {ns}", self.resource_label()),
            None => f.write_str(&self.resource_label()),
        }
    }
}

/// Settings applied to every informer of a factory.
#[derive(Clone)]
pub struct FactoryOptions {
    /// Default handler resync period (client-go's `defaultResync`); `None` = never.
    pub default_resync: Option<Duration>,
    /// Indexers added to the defaults (namespace, label, owner; pods also get `node`).
    pub extra_indexers: Indexers<DynamicObject>,
    /// Per-kind transform; kinds it returns `None` for use [`default_transform`].
    pub transform: Option<TransformHook>,
    /// Per-kind decode mask for [`SharedInformerFactory::from_client`]: the transform pushed
    /// down into the JSON decoder.
    pub decode_mask: Option<MaskHook>,
    /// Label selector for every informer (client-go's `WithTweakListOptions`).
    pub label_selector: Option<String>,
    /// Field selector for every informer.
    pub field_selector: Option<String>,
    /// Capacity of the factory-wide event tap.
    pub tap_capacity: usize,
    /// Reflector settings for every informer (paging, streaming list, backoff); selectors above
    /// override the ones in here.
    pub reflector: ReflectorConfig,
    /// Per-kind observer (per-object history records each version there, with the decode mask
    /// widened by what history tracks).
    pub observer: Option<ObserverHook>,
    /// Per-object history: told of every pop (deletions, tombstones).
    pub history: Option<Arc<History>>,
    /// Per-kind pop observer (a flight recorder learns of a relist's deletions there).
    pub pop_observer: Option<PopObserverHook>,
}

impl Default for FactoryOptions {
    fn default() -> Self {
        Self {
            default_resync: None,
            extra_indexers: Indexers::new(),
            transform: None,
            decode_mask: None,
            label_selector: None,
            field_selector: None,
            tap_capacity: DEFAULT_TAP_CAPACITY,
            reflector: ReflectorConfig::default(),
            observer: None,
            history: None,
            pop_observer: None,
        }
    }
}

impl std::fmt::Debug for FactoryOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FactoryOptions")
            .field("default_resync", &self.default_resync)
            .field(
                "extra_indexers",
                &self.extra_indexers.keys().collect::<Vec<_>>(),
            )
            .field("transform", &self.transform.is_some())
            .field("decode_mask", &self.decode_mask.is_some())
            .field("label_selector", &self.label_selector)
            .field("field_selector", &self.field_selector)
            .field("tap_capacity", &self.tap_capacity)
            .field("history", &self.history.is_some())
            .finish()
    }
}

struct Entry {
    informer: Arc<DynamicInformer>,
    /// The running informer's task; `None` until spawned.
    task: Option<JoinHandle<()>>,
    /// Stops this informer only (a child of the factory's token).
    cancel: CancellationToken,
}

struct State {
    informers: BTreeMap<InformerKey, Entry>,
    /// The object count of each scope's last list, kept when its informer stops: the estimated
    /// total of the next list of that scope in this session.
    list_sizes: BTreeMap<InformerKey, ListSizeHint>,
    /// `start` was called (later informers start at once).
    started: bool,
    /// `shutdown` was called: nothing starts any more.
    shut_down: bool,
}

/// The indexers an informer of `resource` gets: the defaults (namespace, label, owner), and
/// a pod's node and uses, an Event's involved object (a replay's stores get the same).
pub fn indexers_for(resource: &ApiResource) -> Indexers<DynamicObject> {
    let mut indexers = default_indexers::<DynamicObject>();
    if resource.group.is_empty() && resource.plural == "pods" {
        indexers.insert(NODE_INDEX.to_string(), dynamic_pod_node_index_func());
        indexers.insert(
            crate::informer::index::USES_INDEX.to_string(),
            crate::informer::index::dynamic_pod_uses_index_func(),
        );
    }
    if resource.plural == "events" && matches!(resource.group.as_str(), "" | "events.k8s.io") {
        indexers.insert(
            crate::informer::index::INVOLVED_INDEX.to_string(),
            crate::informer::index::dynamic_event_involved_index_func(),
        );
    }
    indexers
}

/// client-go's `SharedInformerFactory` for dynamic kinds.
pub struct SharedInformerFactory {
    lw_maker: ListerWatcherMaker,
    options: FactoryOptions,
    tap: Arc<EventTap>,
    cancel: CancellationToken,
    state: Mutex<State>,
}

impl std::fmt::Debug for SharedInformerFactory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.lock();
        f.debug_struct("SharedInformerFactory")
            .field("informers", &s.informers.keys().collect::<Vec<_>>())
            .field("started", &s.started)
            .field("shut_down", &s.shut_down)
            .finish()
    }
}

impl SharedInformerFactory {
    /// A factory whose informers get their ListerWatchers from `lw_maker`.
    pub fn new(lw_maker: ListerWatcherMaker, options: FactoryOptions) -> Self {
        Self {
            lw_maker,
            tap: Arc::new(EventTap::new(options.tap_capacity)),
            options,
            cancel: CancellationToken::new(),
            state: Mutex::new(State {
                informers: BTreeMap::new(),
                list_sizes: BTreeMap::new(),
                started: false,
                shut_down: false,
            }),
        }
    }

    /// A factory over a real cluster (dynamic API, so any kind found by discovery works).
    pub fn from_client(client: kube::Client, options: FactoryOptions) -> Self {
        let mask_hook = options.decode_mask.clone();
        let maker: ListerWatcherMaker = Arc::new(move |resource, namespace| {
            let lw = KubeListerWatcher::dynamic(client.clone(), resource, namespace);
            match mask_hook.as_ref().and_then(|hook| hook(resource)) {
                Some(mask) => Arc::new(lw.with_mask(mask)),
                None => Arc::new(lw),
            }
        });
        Self::new(maker, options)
    }

    /// The factory-wide event tap.
    pub fn tap(&self) -> Arc<EventTap> {
        Arc::clone(&self.tap)
    }

    fn build(
        &self,
        key: &InformerKey,
        resource: &ApiResource,
        list_size: ListSizeHint,
    ) -> Arc<DynamicInformer> {
        let mut indexers = indexers_for(resource);
        for (name, f) in &self.options.extra_indexers {
            indexers.insert(name.clone(), Arc::clone(f));
        }
        let transform = self
            .options
            .transform
            .as_ref()
            .and_then(|hook| hook(resource))
            .unwrap_or_else(default_transform);
        let mut reflector = self.options.reflector.clone();
        reflector.list_size_hint = Some(list_size);
        if self.options.label_selector.is_some() {
            reflector.label_selector = self.options.label_selector.clone();
        }
        if self.options.field_selector.is_some() {
            reflector.field_selector = self.options.field_selector.clone();
        }
        let lw = (self.lw_maker)(resource, key.namespace.as_deref());
        SharedIndexInformer::new(
            lw,
            InformerConfig {
                kind: key.short_label(),
                resync_period: self.options.default_resync,
                indexers,
                transform: Some(transform),
                tap: Some(Arc::clone(&self.tap)),
                tap_capacity: self.options.tap_capacity,
                reflector,
                observer: self
                    .options
                    .observer
                    .as_ref()
                    .and_then(|hook| hook(resource)),
                history: self.options.history.as_ref().map(|h| {
                    (
                        Arc::from(history_resource(resource).as_str()),
                        Arc::clone(h),
                    )
                }),
                pop_observer: self
                    .options
                    .pop_observer
                    .as_ref()
                    .and_then(|hook| hook(resource)),
            },
        )
    }

    fn spawn(&self, entry: &mut Entry) {
        if entry.task.is_some() {
            return;
        }
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            tracing::error!(kind = %entry.informer.kind(), "no tokio runtime; informer not started");
            return;
        };
        let informer = Arc::clone(&entry.informer);
        let cancel = entry.cancel.clone();
        entry.task = Some(handle.spawn(async move { informer.run(cancel).await }));
    }

    /// The shared informer for `resource` in `namespace` (`None` = all namespaces), created on
    /// first request. After [`Self::start`] a new informer starts at once.
    pub fn informer_for(
        &self,
        resource: &ApiResource,
        namespace: Option<&str>,
    ) -> Arc<DynamicInformer> {
        let key = InformerKey::new(resource, namespace);
        let mut state = self.state.lock();
        if let Some(e) = state.informers.get(&key) {
            return Arc::clone(&e.informer);
        }
        let list_size = state.list_sizes.entry(key.clone()).or_default().clone();
        let mut entry = Entry {
            informer: self.build(&key, resource, list_size),
            task: None,
            cancel: self.cancel.child_token(),
        };
        if state.started && !state.shut_down {
            self.spawn(&mut entry);
        }
        let informer = Arc::clone(&entry.informer);
        tracing::debug!(%key, "informer created");
        state.informers.insert(key, entry);
        informer
    }

    /// Start every informer not yet running (needs a tokio runtime). Informers requested later
    /// start when requested. Does nothing after [`Self::shutdown`].
    pub fn start(&self) {
        let mut state = self.state.lock();
        if state.shut_down {
            return;
        }
        state.started = true;
        for entry in state.informers.values_mut() {
            self.spawn(entry);
        }
    }

    /// Wait until every started informer has synced, or `timeout` passes (polling every 100 ms,
    /// as client-go does). Returns each started informer's `has_synced`.
    pub async fn wait_for_cache_sync(&self, timeout: Duration) -> BTreeMap<InformerKey, bool> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let status: BTreeMap<InformerKey, bool> = {
                let state = self.state.lock();
                state
                    .informers
                    .iter()
                    .filter(|(_, e)| e.task.is_some())
                    .map(|(k, e)| (k.clone(), e.informer.has_synced()))
                    .collect()
            };
            let now = tokio::time::Instant::now();
            if status.values().all(|s| *s) || now >= deadline {
                return status;
            }
            let next = (now + Duration::from_millis(100)).min(deadline);
            tokio::time::sleep_until(next).await;
        }
    }

    /// Stop every informer and wait for all of them to return. Idempotent.
    pub async fn shutdown(&self) {
        let tasks: Vec<(InformerKey, JoinHandle<()>)> = {
            let mut state = self.state.lock();
            state.shut_down = true;
            self.cancel.cancel();
            state
                .informers
                .iter_mut()
                .filter_map(|(k, e)| e.task.take().map(|t| (k.clone(), t)))
                .collect()
        };
        for (key, task) in tasks {
            if let Err(e) = task.await {
                tracing::error!(%key, error = %e, "informer task failed");
            }
        }
    }

    /// Stop one informer and forget it (its cache goes with it; asking for the same key again
    /// builds a fresh one). What a view that cannot use it (a forbidden scope) does, so that it
    /// does not keep listing and failing. False if there was no such informer.
    pub fn stop(&self, key: &InformerKey) -> bool {
        let Some(entry) = self.state.lock().informers.remove(key) else {
            return false;
        };
        entry.cancel.cancel();
        tracing::debug!(%key, "informer stopped");
        true
    }

    /// How many informers are running (started and not stopped or finished).
    pub fn running(&self) -> usize {
        self.state
            .lock()
            .informers
            .values()
            .filter(|e| e.task.as_ref().is_some_and(|t| !t.is_finished()))
            .count()
    }

    /// Every informer created so far, ordered by key.
    pub fn informers(&self) -> Vec<(InformerKey, Arc<DynamicInformer>)> {
        self.state
            .lock()
            .informers
            .iter()
            .map(|(k, e)| (k.clone(), Arc::clone(&e.informer)))
            .collect()
    }
}

impl SharedInformerFactory {
    /// Every informer's stats, ordered by key (the dashboard's informer panel).
    pub fn stats(&self) -> Vec<(InformerKey, super::shared_informer::InformerStats)> {
        self.informers()
            .into_iter()
            .map(|(k, i)| (k, i.stats()))
            .collect()
    }
}

impl Drop for SharedInformerFactory {
    fn drop(&mut self) {
        // Informer tasks hold no reference to the factory; make sure they do not outlive it.
        self.cancel.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::list_watch::FakeListerWatcher;
    use crate::informer::reflector::ReflectorState;
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::Pod;
    use std::collections::HashMap;

    type Fakes = Arc<Mutex<HashMap<String, Arc<FakeListerWatcher<DynamicObject>>>>>;

    /// A maker handing out one fake per (resource, namespace), recording how often it was asked.
    fn fake_maker() -> (ListerWatcherMaker, Fakes, Arc<Mutex<Vec<String>>>) {
        let fakes: Fakes = Arc::default();
        let calls: Arc<Mutex<Vec<String>>> = Arc::default();
        let maker: ListerWatcherMaker = {
            let fakes = Arc::clone(&fakes);
            let calls = Arc::clone(&calls);
            Arc::new(move |ar: &ApiResource, ns: Option<&str>| {
                let id = format!("{}@{}", ar.plural, ns.unwrap_or("*"));
                calls.lock().push(id.clone());
                let fake = Arc::clone(
                    fakes
                        .lock()
                        .entry(id)
                        .or_insert_with(FakeListerWatcher::shared),
                );
                let lw: Arc<dyn ListerWatcher<DynamicObject>> = fake;
                lw
            })
        };
        (maker, fakes, calls)
    }

    /// Options whose informers list, then watch: the fakes script a list page and a watch.
    fn listing_options() -> FactoryOptions {
        FactoryOptions {
            reflector: ReflectorConfig {
                use_streaming_list: false,
                ..ReflectorConfig::default()
            },
            ..FactoryOptions::default()
        }
    }

    fn pods() -> ApiResource {
        ApiResource::erase::<Pod>(&())
    }

    fn deployments() -> ApiResource {
        ApiResource::erase::<Deployment>(&())
    }

    fn obj(ar: &ApiResource, ns: &str, name: &str, rv: &str) -> DynamicObject {
        let mut o = DynamicObject::new(name, ar).within(ns);
        o.metadata.resource_version = Some(rv.into());
        o
    }

    fn fake(fakes: &Fakes, id: &str) -> Arc<FakeListerWatcher<DynamicObject>> {
        Arc::clone(
            fakes
                .lock()
                .entry(id.to_string())
                .or_insert_with(FakeListerWatcher::shared),
        )
    }

    #[test]
    fn same_kind_and_scope_share_one_informer() {
        let (maker, _fakes, calls) = fake_maker();
        let f = SharedInformerFactory::new(maker, FactoryOptions::default());
        let a = f.informer_for(&pods(), None);
        let b = f.informer_for(&pods(), None);
        let c = f.informer_for(&pods(), Some("prod"));
        let d = f.informer_for(&deployments(), None);
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert!(!Arc::ptr_eq(&a, &d));
        // An empty namespace is "all namespaces".
        assert!(Arc::ptr_eq(&a, &f.informer_for(&pods(), Some(""))));
        assert_eq!(*calls.lock(), vec!["pods@*", "pods@prod", "deployments@*"]);
        let keys: Vec<String> = f.informers().iter().map(|(k, _)| k.to_string()).collect();
        // Ordered by (group, version, plural, namespace): the core group "" first.
        assert_eq!(
            keys,
            vec!["v1/pods", "v1/pods in prod", "apps/v1/deployments"]
        );
        assert_eq!(a.kind(), "pods");
        // Pods get the node and uses indexes on top of the defaults.
        let mut names = a.indexer().index_names();
        names.sort();
        assert_eq!(names, vec!["label", "namespace", "node", "owner", "uses"]);
    }

    #[test]
    fn an_events_informer_files_events_by_involved_object() {
        let (maker, _, _) = fake_maker();
        let f = SharedInformerFactory::new(maker, listing_options());
        for ar in [
            ApiResource::erase::<k8s_openapi::api::core::v1::Event>(&()),
            ApiResource::erase::<k8s_openapi::api::events::v1::Event>(&()),
        ] {
            let inf = f.informer_for(&ar, Some("shop"));
            assert!(
                inf.indexer()
                    .index_names()
                    .contains(&crate::informer::index::INVOLVED_INDEX.to_string()),
                "{}",
                ar.group
            );
        }
        let pods = f.informer_for(&pods(), None);
        assert!(
            !pods
                .indexer()
                .index_names()
                .contains(&crate::informer::index::INVOLVED_INDEX.to_string())
        );
    }

    #[tokio::test(start_paused = true)]
    async fn informer_requested_after_start_runs() {
        let (maker, fakes, _) = fake_maker();
        let f = SharedInformerFactory::new(maker, listing_options());
        let p = pods();
        fake(&fakes, "pods@*").push_list_page(vec![obj(&p, "a", "p1", "5")], "5", None);
        fake(&fakes, "pods@*").push_watch_live();
        let early = f.informer_for(&p, None);
        f.start();
        let d = deployments();
        fake(&fakes, "deployments@*").push_list_page(
            vec![obj(&d, "a", "d1", "7"), obj(&d, "b", "d2", "8")],
            "8",
            None,
        );
        fake(&fakes, "deployments@*").push_watch_live();
        let late = f.informer_for(&d, None);
        let synced = f.wait_for_cache_sync(Duration::from_secs(10)).await;
        assert_eq!(synced.len(), 2);
        assert!(synced.values().all(|s| *s), "{synced:?}");
        assert_eq!(early.indexer().len(), 1);
        assert_eq!(late.indexer().len(), 2);
        assert!(late.is_running());
        // Both informers record into the factory's one tap.
        let kinds: std::collections::BTreeSet<String> = f
            .tap()
            .since(0)
            .iter()
            .map(|e| e.kind.to_string())
            .collect();
        assert_eq!(kinds, ["deployments.apps", "pods"].map(String::from).into());
        f.shutdown().await;
    }

    #[tokio::test(start_paused = true)]
    async fn wait_for_cache_sync_reports_informers_that_did_not_sync() {
        let (maker, fakes, _) = fake_maker();
        let f = SharedInformerFactory::new(maker, listing_options());
        let p = pods();
        fake(&fakes, "pods@*").push_list_page(vec![obj(&p, "a", "p1", "5")], "5", None);
        fake(&fakes, "pods@*").push_watch_live();
        f.informer_for(&p, None);
        // No list response is ever queued for deployments: its first list never completes.
        f.informer_for(&deployments(), None);
        f.start();
        let started = tokio::time::Instant::now();
        let synced = f.wait_for_cache_sync(Duration::from_secs(3)).await;
        assert_eq!(started.elapsed(), Duration::from_secs(3));
        let by_name: BTreeMap<String, bool> =
            synced.into_iter().map(|(k, v)| (k.plural, v)).collect();
        assert_eq!(
            by_name,
            [
                ("deployments".to_string(), false),
                ("pods".to_string(), true)
            ]
            .into()
        );
        f.shutdown().await;
    }

    #[tokio::test(start_paused = true)]
    async fn stop_ends_one_informer_and_forgets_it() {
        let (maker, fakes, calls) = fake_maker();
        let f = SharedInformerFactory::new(maker, listing_options());
        let p = pods();
        let d = deployments();
        fake(&fakes, "pods@*").push_watch_live();
        fake(&fakes, "deployments@*").push_watch_live();
        let wide = f.informer_for(&p, None);
        f.informer_for(&d, None);
        f.start();
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(f.running(), 2);
        assert!(f.stop(&InformerKey::new(&p, None)));
        tokio::time::sleep(Duration::from_millis(10)).await;
        assert_eq!(f.running(), 1, "only the deployments informer runs");
        assert!(!wide.is_running());
        assert_eq!(f.informers().len(), 1);
        assert!(!f.stop(&InformerKey::new(&p, None)), "already gone");
        // Asked again, the key gets a fresh informer (a new list/watch).
        let again = f.informer_for(&p, None);
        assert!(!Arc::ptr_eq(&wide, &again));
        assert_eq!(calls.lock().iter().filter(|c| *c == "pods@*").count(), 2);
        f.shutdown().await;
    }

    #[tokio::test(start_paused = true)]
    async fn shutdown_stops_all() {
        let (maker, fakes, _) = fake_maker();
        let f = SharedInformerFactory::new(maker, listing_options());
        let p = pods();
        let d = deployments();
        for (id, ar) in [("pods@*", &p), ("deployments@*", &d), ("pods@ns", &p)] {
            fake(&fakes, id).push_list_page(vec![obj(ar, "ns", "x", "1")], "1", None);
            fake(&fakes, id).push_watch_live();
        }
        f.informer_for(&p, None);
        f.informer_for(&d, None);
        f.informer_for(&p, Some("ns"));
        f.start();
        let synced = f.wait_for_cache_sync(Duration::from_secs(10)).await;
        assert!(synced.values().all(|s| *s));
        let stats = f.stats();
        assert_eq!(stats.len(), 3);
        assert!(
            stats
                .iter()
                .all(|(_, s)| s.running && s.has_synced && s.cached_objects == 1)
        );
        assert!(f.informers().iter().all(|(_, i)| i.is_running()));
        f.shutdown().await;
        for (key, inf) in f.informers() {
            assert!(!inf.is_running(), "{key} still running");
            assert_eq!(
                inf.stats().reflector.map(|r| r.state),
                Some(ReflectorState::Stopped),
                "{key}"
            );
        }
        // Nothing starts after shutdown, not even on request.
        let late = f.informer_for(
            &ApiResource::erase::<k8s_openapi::api::core::v1::Node>(&()),
            None,
        );
        f.start();
        assert!(!late.is_running());
        f.shutdown().await;
    }

    #[test]
    fn options_apply_selectors_transform_hook_and_extra_indexers() {
        let (maker, _fakes, _) = fake_maker();
        let identity: TransformHook = Arc::new(|ar: &ApiResource| {
            (ar.plural == "deployments").then(|| {
                let t: Transform<DynamicObject> = Arc::new(|o| o);
                t
            })
        });
        let mut extra = Indexers::new();
        extra.insert(
            "by-name".to_string(),
            Arc::new(|o: &DynamicObject| Ok(o.metadata.name.clone().into_iter().collect())) as _,
        );
        let f = SharedInformerFactory::new(
            maker,
            FactoryOptions {
                transform: Some(identity),
                extra_indexers: extra,
                label_selector: Some("app=web".into()),
                ..Default::default()
            },
        );
        let inf = f.informer_for(&deployments(), None);
        assert!(inf.indexer().index_names().contains(&"by-name".to_string()));
        let d = deployments();
        let mut raw = obj(&d, "a", "d", "1");
        raw.metadata.managed_fields = Some(vec![Default::default()]);
        // The deployments hook keeps managedFields; pods get the default transform.
        assert!(
            inf.fifo_prepare_for_test(raw.clone())
                .metadata
                .managed_fields
                .is_some()
        );
        let pods_inf = f.informer_for(&pods(), None);
        let p = pods();
        let mut raw = obj(&p, "a", "p", "1");
        raw.metadata.managed_fields = Some(vec![Default::default()]);
        assert!(
            pods_inf
                .fifo_prepare_for_test(raw)
                .metadata
                .managed_fields
                .is_none()
        );
        assert_eq!(
            inf.reflector_config_for_test().label_selector.as_deref(),
            Some("app=web")
        );
    }
}
