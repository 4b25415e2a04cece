//! Figures 3 and 4: pipeline throughput and event → frame latency, with the dashboard's App
//! driven as the runtime drives it.

use super::common::*;
use super::sync::{start_informer, start_informer_with};

// The dashboard App as the runtime drives it (src/ui/runtime.rs)

/// The frame size of figures 4 and 6.
pub(super) const WIDTH: u16 = 200;
pub(super) const HEIGHT: u16 = 60;

/// Column the pods table is sorted by in figures 4 and 6 (index into the pod row's cells:
/// NAME READY STATUS ...; we sort by STATUS).
pub(super) const SORT_COLUMN: usize = 2;
/// Rows per `Action::Rows` when feeding the pulse (the runtime's batch size).
pub(super) const BATCH_ROWS: usize = 4096;

pub(super) fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// The dashboard's App at 200×60 on all namespaces, initialised; returns the pods view it opened.
pub(super) fn pods_app() -> Result<(App, ViewId), BenchError> {
    let keys = KeyMap::defaults().map_err(|e| BenchError::Setup(format!("key map: {e}")))?;
    let mut app = App::new(
        AppConfig {
            context: "bench".into(),
            namespace: None,
            now_ms: now_ms(),
            ..AppConfig::default()
        },
        keys,
    );
    app.update(Action::Resize(WIDTH, HEIGHT));
    let view = app
        .init()
        .into_iter()
        .find_map(|e| match e {
            Effect::OpenResource { view, resource, .. }
                if resource.api_resource.plural == "pods" =>
            {
                Some(view)
            }
            _ => None,
        })
        .ok_or_else(|| BenchError::Setup("the app opened no pods view".into()))?;
    Ok((app, view))
}

/// The runtime's summaries of cached pods.
/// Every cached pod's row as the runtime makes it (`rows_for_keys`: the indexer's key `Arc`s).
pub(super) fn store_rows(store: &ThreadSafeStore<DynamicObject>) -> Vec<ObjectSummary> {
    let keys: Vec<Arc<str>> = store.list_keys().into_iter().map(Arc::from).collect();
    rows_for_keys("Pod", None, store, None, &keys).0
}

/// Rows in the App's view (after filters).
pub(super) fn shown_rows(app: &App, view: ViewId) -> usize {
    app.views.get(&view).map_or(0, |v| v.table.list().len())
}

/// The App's table of `view`.
pub(super) fn table(app: &mut App, view: ViewId) -> Option<&mut crate::ui::table::TableModel> {
    app.views.get_mut(&view).map(|v| &mut v.table)
}

/// Draw the App as the runtime does (`impl Widget for &App`, visible rows only).
pub(super) fn draw(term: &mut Terminal<TestBackend>, app: &App) -> Result<(), BenchError> {
    term.draw(|f| f.render_widget(app, f.area()))
        .map_err(|e| BenchError::Setup(format!("draw: {e}")))?;
    Ok(())
}

pub(super) fn new_terminal() -> Result<Terminal<TestBackend>, BenchError> {
    Terminal::new(TestBackend::new(WIDTH, HEIGHT))
        .map_err(|e| BenchError::Setup(format!("terminal: {e}")))
}

// ---------------------------------------------------------------------------------------------
// Fixture pods (figures 3, 5, 6)

pub(super) fn fixture_pod() -> Result<DynamicObject, BenchError> {
    serde_json::from_value(crate::demo::realistic::fixture_pod())
        .map_err(|e| BenchError::Setup(format!("pod fixture: {e}")))
}

/// `n` realistic pods ([`crate::demo::realistic::fixture_pod`]: ~12 KB of JSON, managedFields
/// from two managers, two containers with env, probes and volumes), each with its own
/// name/uid/rv/node, label `app=app-{i % 100}` (1% each) and `tier=tier-{i % 10}` (10% each).
pub(super) fn fixture_pods(n: usize) -> Result<Vec<DynamicObject>, BenchError> {
    let base = fixture_pod()?;
    Ok((0..n).map(|i| fixture_pod_at(&base, i)).collect())
}

/// Pod `i` of [`fixture_pods`], from its base (one at a time, for stores filled in a stream).
pub(super) fn fixture_pod_at(base: &DynamicObject, i: usize) -> DynamicObject {
    let mut p = base.clone();
    p.metadata.name = Some(format!("pod-{i:06}"));
    p.metadata.namespace = Some(format!("ns-{}", i % 50));
    p.metadata.uid = Some(format!("uid-{i}"));
    p.metadata.resource_version = Some(format!("{}", 1000 + i));
    let labels = p.metadata.labels.get_or_insert_with(BTreeMap::new);
    labels.insert("app".into(), format!("app-{}", i % 100));
    labels.insert("tier".into(), format!("tier-{}", i % 10));
    if let Some(spec) = p.data.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert(
            "nodeName".into(),
            Value::String(format!("node-{}", i % 500)),
        );
    }
    p
}

// ---------------------------------------------------------------------------------------------
// Figure 3: pipeline throughput

/// resourceVersions received per key, not yet in the row model.
type PendingRvs = Arc<Mutex<HashMap<Arc<str>, Vec<String>>>>;

/// Handler → workqueue, as the dashboard's informer glue does; counts notifications.
pub(super) struct QueueHandler {
    pub(super) queue: RateLimitingQueue<Arc<str>>,
    pub(super) seen: AtomicUsize,
    /// Pending resourceVersions per key (figure 4 only).
    pub(super) rvs: Option<PendingRvs>,
}

impl QueueHandler {
    pub(super) fn push(&self, obj: &DynamicObject) {
        let Ok(key) = crate::informer::meta_namespace_key(obj) else {
            return;
        };
        let key: Arc<str> = Arc::from(key.as_str());
        if let (Some(rvs), Some(rv)) = (&self.rvs, obj.metadata.resource_version.as_ref()) {
            rvs.lock().entry(key.clone()).or_default().push(rv.clone());
        }
        self.queue.add(key);
        self.seen.fetch_add(1, AtomicOrdering::Relaxed);
    }
}

impl ResourceEventHandler<DynamicObject> for QueueHandler {
    fn on_add(&self, obj: &Arc<DynamicObject>, _: bool) {
        self.push(obj);
    }
    fn on_update(&self, _: &Arc<DynamicObject>, new: &Arc<DynamicObject>) {
        self.push(new);
    }
    fn on_delete(&self, obj: &DeleteObject<DynamicObject>) {
        match obj {
            DeltaObject::Object(o) => self.push(o),
            DeltaObject::Tombstone(t) => {
                self.queue.add(Arc::from(t.key.as_str()));
                self.seen.fetch_add(1, AtomicOrdering::Relaxed);
            }
        }
    }
}

/// Rows for the App with the resourceVersions they carry (figure 4).
type Feed = (Action, Vec<String>);

/// The runtime's `feed_view`: workqueue (batches of ready keys) → indexer read →
/// `ObjectSummary::from_object` → `Action::Rows`; `fed` counts the keys sent.
pub(super) fn spawn_feeder(
    view: ViewId,
    queue: RateLimitingQueue<Arc<str>>,
    store: Arc<ThreadSafeStore<DynamicObject>>,
    rvs: Option<PendingRvs>,
    fed: Arc<AtomicU64>,
    tx: tokio::sync::mpsc::UnboundedSender<Feed>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while let Some(keys) = next_key_batch(&queue, 256).await {
            let (upserts, deletes) = rows_for_keys("Pod", None, &store, None, &keys);
            let mut carried = Vec::new();
            if let Some(r) = &rvs {
                let mut pending = r.lock();
                for key in &keys {
                    if let Some(v) = pending.remove(key) {
                        carried.extend(v);
                    }
                }
            }
            fed.fetch_add(keys.len() as u64, AtomicOrdering::Relaxed);
            let action = Action::Rows {
                view,
                upserts,
                deletes,
            };
            if tx.send((action, carried)).is_err() {
                return;
            }
        }
    })
}

/// What the App loop shares with the bench while it runs.
#[derive(Default)]
pub(super) struct AppLoopStats {
    /// Keys applied (upserts + deletes of the `Action::Rows` taken).
    pub(super) applied: AtomicU64,
    /// Rows in the view after the last batch.
    pub(super) rows: AtomicUsize,
    pub(super) frames: AtomicU64,
    /// Event → frame latencies (figure 4).
    pub(super) samples: Mutex<Vec<Duration>>,
}

/// The runtime's main loop minus the terminal: take an action, drain what is queued (a burst is
/// one redraw), update the App, draw when `take_dirty()` (only if `terminal` is given). Each rv
/// carried by a batch is sampled at the end of the first frame after the App took it.
pub(super) fn spawn_app_loop(
    mut app: App,
    view: ViewId,
    mut terminal: Option<Terminal<TestBackend>>,
    mut rx: tokio::sync::mpsc::UnboundedReceiver<Feed>,
    applied_at: Arc<Mutex<HashMap<String, Instant>>>,
    stats: Arc<AppLoopStats>,
    stop: CancellationToken,
) -> JoinHandle<App> {
    tokio::spawn(async move {
        let mut in_app: Vec<String> = Vec::new();
        loop {
            let first = tokio::select! {
                _ = stop.cancelled() => break,
                f = rx.recv() => match f { Some(f) => f, None => break },
            };
            let mut pending = vec![first];
            while pending.len() < 256 {
                match rx.try_recv() {
                    Ok(f) => pending.push(f),
                    Err(_) => break,
                }
            }
            let mut n = 0u64;
            for (action, rvs) in pending {
                if let Action::Rows {
                    upserts, deletes, ..
                } = &action
                {
                    n += (upserts.len() + deletes.len()) as u64;
                }
                app.update(action);
                in_app.extend(rvs);
            }
            stats
                .rows
                .store(shown_rows(&app, view), AtomicOrdering::Relaxed);
            stats.applied.fetch_add(n, AtomicOrdering::Relaxed);
            if let Some(term) = terminal.as_mut()
                && app.take_dirty()
            {
                if draw(term, &app).is_err() {
                    break;
                }
                let now = Instant::now();
                stats.frames.fetch_add(1, AtomicOrdering::Relaxed);
                let at = applied_at.lock();
                let mut s = stats.samples.lock();
                for rv in in_app.drain(..) {
                    if let Some(t0) = at.get(&rv) {
                        s.push(now.saturating_duration_since(*t0));
                    }
                }
            }
        }
        app
    })
}

pub(super) async fn pipeline_throughput(
    opts: &BenchOptions,
    report: &mut Report,
) -> Result<(), BenchError> {
    let (objects, events) = if opts.smoke {
        (2_000, 20_000)
    } else {
        (10_000, 200_000)
    };
    let pods = fixture_pods(objects)?;
    // The watch events are made while the clock runs, by a producer thread, from the pods as
    // the dashboard's decoder hands them to the informer (through the cache mask), each a
    // MODIFIED with a new rv and a changed label, cycling through the pods. Making one costs
    // ~1 µs (a clone of a masked pod), well under the pipeline's per-event cost; building
    // 200k full pods up front instead would take ~15 GB.
    let mask = render::cache_mask("Pod");
    let masked: Vec<DynamicObject> = pods
        .into_iter()
        .map(|mut p| {
            mask.apply(&mut p);
            p
        })
        .collect();
    let fake = FakeListerWatcher::<DynamicObject>::shared();
    fake.push_list_page(masked.clone(), "1000000", None);
    let sender = fake.push_watch_live();
    let lw: Arc<dyn ListerWatcher<DynamicObject>> = fake;
    // The fake scripts a list then a live watch, so the reflector lists then watches (a
    // streaming list would ask the fake's only watch for initial events it never sends).
    let running = start_informer_with(
        lw,
        ReflectorConfig {
            use_streaming_list: false,
            ..ReflectorConfig::default()
        },
    );
    let queue: RateLimitingQueue<Arc<str>> = RateLimitingQueue::new();
    let handler = Arc::new(QueueHandler {
        queue: queue.clone(),
        seen: AtomicUsize::new(0),
        rvs: None,
    });
    let reg = running.informer.add_event_handler(handler.clone(), None)?;
    let (app, view) = pods_app()?;
    let fed = Arc::new(AtomicU64::new(0));
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let feeder = spawn_feeder(
        view,
        queue.clone(),
        running.informer.indexer(),
        None,
        fed.clone(),
        tx,
    );
    let stats = Arc::new(AppLoopStats::default());
    let stop = CancellationToken::new();
    let app_loop = spawn_app_loop(
        app,
        view,
        None,
        rx,
        Arc::default(),
        stats.clone(),
        stop.clone(),
    );
    wait_until("pipeline initial sync", Duration::from_secs(300), || {
        reg.has_synced() && handler.seen.load(AtomicOrdering::Relaxed) >= objects
    })
    .await?;
    wait_until("pipeline initial rows", Duration::from_secs(300), || {
        queue.is_empty() && stats.rows.load(AtomicOrdering::Relaxed) == objects
    })
    .await?;
    let seen0 = handler.seen.load(AtomicOrdering::Relaxed);
    let start = Instant::now();
    let seen = handler.clone();
    let producer = std::thread::spawn(move || {
        let mut rv = 1_000_000u64;
        for i in 0..events {
            // At most 20k events in flight (a steady stream, not 200k objects queued at once).
            while i > 20_000
                + seen
                    .seen
                    .load(AtomicOrdering::Relaxed)
                    .saturating_sub(seen0)
            {
                std::thread::sleep(Duration::from_micros(200));
            }
            let mut p = masked[i % objects].clone();
            rv += 1;
            p.metadata.resource_version = Some(rv.to_string());
            if let Some(l) = p.metadata.labels.as_mut() {
                l.insert("gen".into(), (i / objects).to_string());
            }
            if sender.send(Ok(WatchEvent::Modified(p))).is_err() {
                return false;
            }
        }
        true
    });
    wait_until("pipeline events", Duration::from_secs(600), || {
        handler.seen.load(AtomicOrdering::Relaxed) >= seen0 + events
    })
    .await?;
    let t_handler = start.elapsed();
    if !producer.join().unwrap_or(false) {
        return Err(BenchError::Setup("fake watch closed".into()));
    }
    // Drained: nothing queued and every key the feeder sent is in the App; a key taken by the
    // feeder but not yet counted is caught by checking again 5 ms later.
    let drained = || {
        queue.is_empty()
            && fed.load(AtomicOrdering::Relaxed) == stats.applied.load(AtomicOrdering::Relaxed)
    };
    loop {
        wait_until("pipeline rows", Duration::from_secs(600), drained).await?;
        tokio::time::sleep(Duration::from_millis(5)).await;
        if drained() {
            break;
        }
    }
    let t_model = start.elapsed().saturating_sub(Duration::from_millis(5));
    queue.shut_down();
    let _ = feeder.await;
    stop.cancel();
    let _ = app_loop.await;
    running.stop().await;
    let rate_h = events as f64 / t_handler.as_secs_f64();
    let rate_m = events as f64 / t_model.as_secs_f64();
    let sec = "pipeline";
    report.fig(
        sec,
        &format!("watch ev/s → FIFO → indexer → handler ({events} ev, {objects} pods)"),
        format!("{rate_h:.0} ev/s"),
        "",
        Verdict::Info,
    );
    report.fig(
        sec,
        "watch ev/s → … → workqueue → Action::Rows → App",
        format!("{rate_m:.0} ev/s"),
        "",
        Verdict::Info,
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Figure 4: event → frame latency

pub(super) async fn latency(
    opts: &BenchOptions,
    rate: f64,
    report: &mut Report,
) -> Result<(), BenchError> {
    let pods = if opts.smoke { 2_000 } else { 10_000 };
    let window = if opts.smoke {
        Duration::from_secs(3)
    } else {
        Duration::from_secs(10)
    };
    let handle = DemoServer::start(DemoOptions {
        port: 0,
        history: 200_000,
        ..DemoOptions::default()
    })
    .await
    .map_err(|e| BenchError::Setup(format!("demo server: {e}")))?;
    let mut sim = Simulator::new(SimConfig {
        pods,
        nodes: (pods / 30).max(3),
        seed: 7,
        start: chrono::Utc::now(),
        ..SimConfig::default()
    });
    let cluster = handle.cluster();
    let seed = sim.seed_mutations();
    let sim = Arc::new(Mutex::new(sim));
    apply_all(&cluster, seed, |m, _| sim.lock().rejected(m));

    let kc = Kubeconfig::from_yaml(&handle.kubeconfig_yaml())
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let config = kube::Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let client = client_for_informers(config)?;
    let ar = ApiResource::erase::<Pod>(&());
    let lw: Arc<dyn ListerWatcher<DynamicObject>> =
        Arc::new(KubeListerWatcher::dynamic(client, &ar, None));
    let running = start_informer(lw);

    let rvs: PendingRvs = Arc::default();
    let queue: RateLimitingQueue<Arc<str>> = RateLimitingQueue::new();
    let handler = Arc::new(QueueHandler {
        queue: queue.clone(),
        seen: AtomicUsize::new(0),
        rvs: Some(rvs.clone()),
    });
    let reg = running.informer.add_event_handler(handler.clone(), None)?;
    let (mut app, view) = pods_app()?;
    let store = running.informer.indexer();
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    if let Some(v) = app.views.get_mut(&view) {
        v.table.set_sort(SortBy::Cell(SORT_COLUMN));
    }
    let fed = Arc::new(AtomicU64::new(0));
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let feeder = spawn_feeder(
        view,
        queue.clone(),
        store,
        Some(rvs.clone()),
        fed.clone(),
        tx,
    );
    let applied_at: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let stats = Arc::new(AppLoopStats::default());
    let stop = CancellationToken::new();
    let app_loop = spawn_app_loop(
        app,
        view,
        Some(new_terminal()?),
        rx,
        applied_at.clone(),
        stats.clone(),
        stop.clone(),
    );
    let inf = running.informer.clone();
    wait_until("latency sync", Duration::from_secs(300), || {
        inf.has_synced() && reg.has_synced()
    })
    .await?;
    wait_until("latency rows", Duration::from_secs(300), || {
        queue.is_empty()
            && fed.load(AtomicOrdering::Relaxed) == stats.applied.load(AtomicOrdering::Relaxed)
    })
    .await?;
    // Samples start with the churn (no initial-list rv is in `applied_at`).
    stats.samples.lock().clear();
    let frames0 = stats.frames.load(AtomicOrdering::Relaxed);

    // Churn: the simulator's mutations at `rate` per second, in 10 ms ticks; pod mutations are
    // timestamped just before they are applied.
    let start = Instant::now();
    let mut due = 0.0f64;
    let mut sent_pods = 0usize;
    let mut tick = tokio::time::interval(Duration::from_millis(10));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    while start.elapsed() < window {
        tick.tick().await;
        due += rate / 100.0;
        let n = due.floor() as usize;
        due -= n as f64;
        if n == 0 {
            continue;
        }
        let muts = sim.lock().tick(n);
        for m in muts {
            sent_pods += apply_timed(&cluster, &sim, &applied_at, m);
        }
    }
    // Let the tail drain.
    let drain = Instant::now();
    while drain.elapsed() < Duration::from_secs(2)
        && (!queue.is_empty()
            || fed.load(AtomicOrdering::Relaxed) != stats.applied.load(AtomicOrdering::Relaxed))
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    queue.shut_down();
    let _ = feeder.await;
    stop.cancel();
    let _ = app_loop.await;
    running.stop().await;
    handle.shutdown().await;

    let mut s = std::mem::take(&mut *stats.samples.lock());
    s.sort();
    let p50 = percentile(&s, 0.50);
    let p99 = percentile(&s, 0.99);
    let target = if rate <= 100.0 { 50 } else { 100 };
    let sec = format!("latency {rate:.0} ev/s");
    report.fig(
        &sec,
        &format!(
            "event → frame p50 ({} pod events, {} samples, {} frames)",
            sent_pods,
            s.len(),
            stats.frames.load(AtomicOrdering::Relaxed) - frames0
        ),
        ms(p50),
        "",
        Verdict::Info,
    );
    report.fig(
        &sec,
        "event → frame p99",
        ms(p99),
        &format!("≤ {target} ms"),
        verdict(!s.is_empty() && p99 <= Duration::from_millis(target)),
    );
    Ok(())
}

/// Apply one mutation; if it is a pod's, record when it was applied under its new rv.
pub(super) fn apply_timed(
    cluster: &Arc<DemoCluster>,
    sim: &Arc<Mutex<Simulator>>,
    applied_at: &Arc<Mutex<HashMap<String, Instant>>>,
    m: Mutation,
) -> usize {
    let is_pod = match &m {
        Mutation::Create { resource, .. }
        | Mutation::Update { resource, .. }
        | Mutation::Delete { resource, .. } => {
            resource.plural == "pods" && resource.group.is_empty()
        }
    };
    let t0 = Instant::now();
    match cluster.apply(m.clone()) {
        Ok(v) => {
            if is_pod {
                if let Some(rv) = v
                    .pointer("/metadata/resourceVersion")
                    .and_then(Value::as_str)
                {
                    applied_at.lock().insert(rv.to_string(), t0);
                }
                return 1;
            }
            0
        }
        Err(_) => {
            sim.lock().rejected(&m);
            0
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Figures 5 and 6: label filter and render at 100k rows

pub(super) fn time_median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut v: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    median(&mut v)
}
