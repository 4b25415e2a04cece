//! Figures 5 to 7 and the pulse: label filter, sort and frame at 100k rows, the pulse screen's
//! frame, drill-down through the indexes.
//!
//! # Measured
//!
//! Label filter (release, compact pods, 2026-11-23 04:07–04:15 UTC, load 0.9–1.7): the label
//! index answers 1 % of 100k pods in 0.03 ms (objects 0.18 ms; a linear scan 77 ms) and 10 % in
//! 0.50 ms (objects 8.0 ms; scan 110 ms); the App's `l` filter plus its frame 1.45 ms and
//! 5.92 ms. Pulse frame at 1k / 150k pods 0.22 / 0.27 ms (dev build, 19:55 UTC).
//!
//! Drill-down (`--only drill`, 2026-11-23 19:47–20:08 UTC, load 5–10, so wall times vary ±50 %):
//! at 150k pods on 500 nodes, 1,000 ReplicaSets of 500 Deployments in 50 namespaces, Enter on a
//! node (node index → 300 pods) takes 0.43–0.64 ms, on a Deployment (owner index → 2 ReplicaSets
//! → 300 pods) 0.47–0.70 ms, on a namespace (3,000 pods; Enter on a namespace now switches the
//! scope instead, as k9s, and is no longer measured) 14–29 ms. Before the indexes answered,
//! every pod's row was sent to the new view (1.4–4.4 s) and scanned for the node (0.2–0.6 s).
//! The cost follows the matches, not the cache: a drilled view reads its keys from the index and
//! its informer handler is gated by the same index function, so the other 149,700 pods are never
//! rendered, sent or sorted for it (registering the handler on a synced informer still replays
//! the cache to it, as client-go's `AddEventHandler` does; the gate drops those adds unread).

use super::common::*;
use super::pipeline::{
    BATCH_ROWS, HEIGHT, SORT_COLUMN, WIDTH, draw, fixture_pods, new_terminal, now_ms, pods_app,
    shown_rows, store_rows, table, time_median,
};
use super::sync::{dashboard_pod_indexers, pod_transform};

pub(super) fn label_and_render(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = if opts.smoke { 20_000 } else { 100_000 };
    let nk = format!("{}k", n / 1000);
    let store = ThreadSafeStore::new(dashboard_pod_indexers());
    let store = Arc::new(store);
    let transform = pod_transform();
    for p in fixture_pods(n)? {
        let p = Arc::new(transform(p));
        store.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
    }
    // The App's pods view holding every row, with the indexer attached (as the runtime does).
    let (mut app, view) = pods_app()?;
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    app.update(Action::Resync {
        view,
        rows: store_rows(&store),
    });
    let runs = 21;
    // Figure 5: label filter.
    for (sel, pct) in [("app=app-7", "1%"), ("tier=tier-3", "10%")] {
        let selector = LabelSelector::parse(sel).map_err(|e| BenchError::Setup(e.to_string()))?;
        let (k, v) = sel.split_once('=').unwrap_or((sel, ""));
        let idx_term = label_value(k, v);
        let hits = store
            .index_keys_all(LABEL_INDEX, &[idx_term.as_str()])?
            .len();
        // What the App's `l` filter asks the index: the matching keys.
        let t_index = time_median(runs, || {
            store.index_keys_all(LABEL_INDEX, &[idx_term.as_str()])
        });
        let t_objects = time_median(runs, || {
            store.by_index_all(LABEL_INDEX, &[idx_term.as_str()])
        });
        let t_scan = time_median(runs, || {
            store
                .list()
                .into_iter()
                .filter(|o| selector.matches(crate::informer::cached::labels(o)))
                .count()
        });
        let sec = format!("label {pct} of {nk}");
        report.fig(
            &sec,
            &format!("index lookup `{sel}`: index_keys_all ({hits} keys)"),
            ms(t_index),
            "≤ 1 ms",
            verdict(t_index <= Duration::from_millis(1)),
        );
        report.fig(
            &sec,
            "the same with the objects (by_index_all)",
            ms(t_objects),
            "",
            Verdict::Info,
        );
        report.fig(
            &sec,
            "linear scan with LabelSelector::matches",
            ms(t_scan),
            "",
            Verdict::Info,
        );
        // Full frame: `l` filter on the App (label index → refilter) → draw.
        let mut term = new_terminal()?;
        let mut shown = 0;
        let t_frame = time_median(runs, || {
            app.apply_label_filter(view, sel);
            shown = shown_rows(&app, view);
            draw(&mut term, &app)
        });
        if shown != hits {
            return Err(BenchError::Setup(format!(
                "label filter `{sel}`: the App shows {shown} rows, the index has {hits}"
            )));
        }
        report.fig(
            &sec,
            "filtered frame (App `l` filter via label index + draw)",
            ms(t_frame),
            "≤ 10 ms",
            verdict(t_frame <= Duration::from_millis(10)),
        );
        app.apply_label_filter(view, "");
    }

    // Figure 6: sort 100k rows by a column, then frames of the visible rows.
    let mut t_sort = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        if let Some(tb) = table(&mut app, view) {
            tb.set_sort(SortBy::Cell(SORT_COLUMN));
        }
        t_sort.push(t.elapsed());
        if let Some(tb) = table(&mut app, view) {
            tb.set_sort(SortBy::Key);
        }
    }
    if let Some(tb) = table(&mut app, view) {
        tb.set_sort(SortBy::Cell(SORT_COLUMN));
    }
    let t_sort = median(&mut t_sort);
    let mut term = new_terminal()?;
    let height = app.table_height();
    let mut offset = 0usize;
    let t_frame = time_median(101, || {
        offset = (offset + 997) % n;
        if let Some(tb) = table(&mut app, view) {
            tb.select_index(offset);
            tb.scroll_into_view(height);
        }
        draw(&mut term, &app)
    });
    let sec = format!("render {nk} rows");
    report.fig(
        &sec,
        "sort by STATUS (full, on sort change)",
        ms(t_sort),
        "",
        Verdict::Info,
    );
    report.fig(
        &sec,
        "App frame (visible rows, 200×60 TestBackend)",
        ms(t_frame),
        "≤ 10 ms",
        verdict(t_frame <= Duration::from_millis(10)),
    );
    // One watch event's cost to the view: summary + `Action::Rows` into the sorted App table.
    let sample = table(&mut app, view).and_then(|tb| tb.list().get(n / 2).cloned());
    if let Some(key) = sample
        && let Some(obj) = store.get(&key)
    {
        let t_upd = time_median(101, || {
            let upserts: Vec<ObjectSummary> = ObjectSummary::from_object("Pod", &obj, None)
                .into_iter()
                .collect();
            app.update(Action::Rows {
                view,
                upserts,
                deletes: Vec::new(),
            })
        });
        report.fig(
            &sec,
            "one row update (summary + Action::Rows, sorted App table)",
            ms(t_upd),
            "",
            Verdict::Info,
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Pulse draw (issue 14): the frame reads counters kept incrementally, so it costs the same at 1k
// and at 150k pods.

/// The App with the pulse open over its pods view, fed `pods` pods (as the pulse's pods feed
/// receives them) and 500 nodes with node metrics.
pub(super) fn pulse_app(pods: &[ObjectSummary]) -> Result<App, BenchError> {
    let (mut app, _) = pods_app()?;
    let fx = app.update(Action::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('P'),
        crossterm::event::KeyModifiers::SHIFT,
    )));
    let feed = |plural: &str| {
        fx.iter().find_map(|e| match e {
            Effect::OpenResource { view, resource, .. }
                if resource.api_resource.plural == plural =>
            {
                Some(*view)
            }
            _ => None,
        })
    };
    let (Some(pods_feed), Some(nodes_feed)) = (feed("pods"), feed("nodes")) else {
        return Err(BenchError::Setup(
            "the pulse opened no pods/nodes feed".into(),
        ));
    };
    for chunk in pods.chunks(BATCH_ROWS) {
        app.update(Action::Rows {
            view: pods_feed,
            upserts: chunk.to_vec(),
            deletes: Vec::new(),
        });
    }
    let mut usage = HashMap::new();
    let nodes: Vec<ObjectSummary> = (0..500)
        .filter_map(|i| {
            let name = format!("node-{i}");
            usage.insert(
                name.clone(),
                crate::render::metrics::Usage {
                    cpu_n: 2_000_000_000,
                    mem: 8 << 30,
                },
            );
            let obj: DynamicObject = serde_json::from_value(serde_json::json!({
                "apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name},
                "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                    "conditions": [{"type": "Ready", "status": "True"}]}
            }))
            .ok()?;
            ObjectSummary::from_object("Node", &Arc::new(obj), None)
        })
        .collect();
    app.update(Action::Rows {
        view: nodes_feed,
        upserts: nodes,
        deletes: Vec::new(),
    });
    app.update(Action::Metrics(crate::ui::metrics::MetricsUpdate::Usage {
        scope: crate::ui::metrics::MetricsScope::Nodes,
        usage: Arc::new(usage),
    }));
    let counted = app.pulse.as_ref().map_or(0, |p| p.pulse.counts().pods);
    if counted != pods.len() {
        return Err(BenchError::Setup(format!(
            "the pulse counts {counted} pods, {} were fed",
            pods.len()
        )));
    }
    Ok(app)
}

pub(super) fn pulse_draw(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = if opts.smoke { 20_000 } else { 150_000 };
    let transform = pod_transform();
    let rows: Vec<ObjectSummary> = fixture_pods(n)?
        .into_iter()
        .filter_map(|p| ObjectSummary::from_object("Pod", &Arc::new(transform(p)), None))
        .collect();
    let mut frames = Vec::new();
    for count in [1_000, n] {
        let app = pulse_app(&rows[..count.min(rows.len())])?;
        let mut term = new_terminal()?;
        frames.push((count, time_median(101, || draw(&mut term, &app))));
    }
    let sec = "pulse";
    for (count, t) in &frames {
        report.fig(
            sec,
            &format!("pulse frame at {}k pods (200×60 TestBackend)", count / 1000),
            ms(*t),
            "≤ 10 ms",
            verdict(*t <= Duration::from_millis(10)),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Figure 7: drill-down through the indexes

/// ReplicaSets of the drill-down fixture: `rs-{k}` (uid `rs-uid-{k}`) in `ns-{k % 50}`, owned by
/// Deployment `deploy-uid-{k % 500}` (two ReplicaSets each, as after a rollout).
pub(super) const FIXTURE_REPLICASETS: usize = 1_000;

pub(super) fn owner_ref(kind: &str, name: &str, uid: &str) -> Value {
    serde_json::json!([{ "apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid,
        "controller": true }])
}

/// A workload object as the informer would cache it (what drill-down reads: uid, owners).
pub(super) fn workload_object(
    kind: &str,
    ns: &str,
    name: &str,
    uid: &str,
    owner: Option<Value>,
) -> Result<DynamicObject, BenchError> {
    let mut v = serde_json::json!({
        "apiVersion": "apps/v1", "kind": kind,
        "metadata": { "name": name, "namespace": ns, "uid": uid, "resourceVersion": "1" },
        "spec": { "replicas": 2 }, "status": { "replicas": 2, "readyReplicas": 2 },
    });
    if let Some(o) = owner {
        v["metadata"]["ownerReferences"] = o;
    }
    serde_json::from_value(v).map_err(|e| BenchError::Setup(format!("{kind} fixture: {e}")))
}

/// An App showing `resource` with one row (`obj`, as `kind`) selected; Enter drills into it.
pub(super) fn app_on(
    resource: &str,
    kind: &str,
    obj: DynamicObject,
) -> Result<(App, ViewId), BenchError> {
    let keys = KeyMap::defaults().map_err(|e| BenchError::Setup(format!("key map: {e}")))?;
    let mut app = App::new(
        AppConfig {
            context: "bench".into(),
            namespace: None,
            resource: resource.into(),
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
            // The first view comes first (then the namespaces view behind `:ns`).
            Effect::OpenResource { view, .. } => Some(view),
            _ => None,
        })
        .ok_or_else(|| BenchError::Setup(format!("the app opened no {resource} view")))?;
    let row = ObjectSummary::from_object(kind, &Arc::new(obj), None)
        .ok_or_else(|| BenchError::Setup(format!("{kind} fixture has no name")))?;
    app.update(Action::Resync {
        view,
        rows: vec![row],
    });
    Ok((app, view))
}

/// Press Enter on the selected row and hand each opened view its informer's store, as the
/// runtime does; returns the drilled pods view's rows and header. `stores`: plural → store.
pub(super) fn drill_once(
    app: &mut App,
    stores: &HashMap<&str, Arc<ThreadSafeStore<DynamicObject>>>,
) -> Result<(usize, String), BenchError> {
    let fx = app.update(Action::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    )));
    let mut pods_view = None;
    // The feeder (ReplicaSets) first: the order the runtime sends them in does not matter.
    let mut opened: Vec<(ViewId, String)> = fx
        .into_iter()
        .filter_map(|e| match e {
            Effect::OpenResource { view, resource, .. } => {
                Some((view, resource.api_resource.plural))
            }
            _ => None,
        })
        .collect();
    opened.reverse();
    for (view, plural) in opened {
        if plural == "pods" {
            pods_view = Some(view);
        }
        let store = stores
            .get(plural.as_str())
            .ok_or_else(|| BenchError::Setup(format!("no {plural} store")))?;
        app.update(Action::Store {
            view,
            store: store.clone(),
        });
    }
    let v = pods_view
        .and_then(|id| app.views.get(&id))
        .ok_or_else(|| BenchError::Setup("the drill-down opened no pods view".into()))?;
    Ok((v.table.list().len(), v.drill_text().unwrap_or_default()))
}

/// Back from a drill-down (Esc closes its views).
pub(super) fn drill_back(app: &mut App) {
    app.update(Action::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Esc,
        crossterm::event::KeyModifiers::NONE,
    )));
}

/// A fixture cache of figures 7 and 8.
pub(super) type FixtureCache = Arc<ThreadSafeStore<DynamicObject>>;

/// The caches of figures 7 and 8, indexed as the dashboard indexes them: `n` pods as in figures
/// 5-6 (node-{i % 500}, ns-{i % 50}), pruned, each owned by ReplicaSet rs-{i % 1000}; the 1,000
/// ReplicaSets, each owned by Deployment deploy-{k % 500}.
pub(super) fn owned_fixture_caches(n: usize) -> Result<(FixtureCache, FixtureCache), BenchError> {
    let pods = Arc::new(ThreadSafeStore::new(dashboard_pod_indexers()));
    let transform = pod_transform();
    for (i, mut p) in fixture_pods(n)?.into_iter().enumerate() {
        let k = i % FIXTURE_REPLICASETS;
        if let Ok(refs) = serde_json::from_value(owner_ref(
            "ReplicaSet",
            &format!("rs-{k}"),
            &format!("rs-uid-{k}"),
        )) {
            p.metadata.owner_references = Some(refs);
        }
        let p = Arc::new(transform(p));
        pods.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
    }
    let replicasets = Arc::new(ThreadSafeStore::new(default_indexers::<DynamicObject>()));
    for k in 0..FIXTURE_REPLICASETS {
        let d = k % 500;
        let rs = Arc::new(workload_object(
            "ReplicaSet",
            &format!("ns-{}", k % 50),
            &format!("rs-{k}"),
            &format!("rs-uid-{k}"),
            Some(owner_ref(
                "Deployment",
                &format!("deploy-{d}"),
                &format!("deploy-uid-{d}"),
            )),
        )?);
        replicasets.add(&crate::informer::meta_namespace_key(rs.as_ref())?, rs)?;
    }
    Ok((pods, replicasets))
}

pub(super) fn drill_down(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = if opts.smoke { 20_000 } else { 150_000 };
    let nk = format!("{}k", n / 1000);
    let sec = format!("drill-down at {nk} pods");
    let (pods, replicasets) = owned_fixture_caches(n)?;
    let stores: HashMap<&str, Arc<ThreadSafeStore<DynamicObject>>> =
        [("pods", pods.clone()), ("replicasets", replicasets.clone())]
            .into_iter()
            .collect();
    let runs = 21;
    let node: DynamicObject =
        serde_json::from_value(serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node-7", "uid": "node-uid-7"}}))
        .map_err(|e| BenchError::Setup(format!("node fixture: {e}")))?;
    let deployment = workload_object("Deployment", "ns-7", "deploy-7", "deploy-uid-7", None)?;
    let cases = [
        ("node", "nodes", "Node", node, n / 500),
        (
            "deployment",
            "deployments",
            "Deployment",
            deployment,
            n / FIXTURE_REPLICASETS * 2,
        ),
        // Enter on a namespace switches the scope of every view (as k9s) rather than drilling
        // down: it opens a namespace's table, as `:ns NAME` does, not measured here.
    ];
    for (what, resource, kind, obj, expect) in cases {
        let (mut app, _) = app_on(resource, kind, obj)?;
        let mut shown = 0;
        let mut header = String::new();
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t = Instant::now();
            (shown, header) = drill_once(&mut app, &stores)?;
            times.push(t.elapsed());
            drill_back(&mut app);
        }
        if shown != expect {
            return Err(BenchError::Setup(format!(
                "{what} drill-down shows {shown} pods, expected {expect} ({header})"
            )));
        }
        let t = median(&mut times);
        let per_row = t.as_secs_f64() * 1e6 / shown.max(1) as f64;
        let (target, v) = ("≤ 10 ms", verdict(t <= Duration::from_millis(10)));
        report.fig(
            &sec,
            &format!("{what} drill-down (Enter → index → {shown} rows): {header}"),
            format!("{} ({per_row:.1} µs per row)", ms(t)),
            target,
            v,
        );
    }
    // Before: the drilled view received every pod's row and filtered them with a scan.
    let (mut app, view) = pods_app()?;
    let t_rows = time_median(3, || {
        let rows = store_rows(&pods);
        app.update(Action::Resync { view, rows })
    });
    let t_scan = time_median(runs, || {
        if let Some(tb) = table(&mut app, view) {
            tb.filters.drill = Some(crate::ui::table::Drill::Node(Arc::from("node-7")));
            tb.refilter(None);
        }
        shown_rows(&app, view)
    });
    report.fig(
        &sec,
        &format!("before: every row to the drilled view ({nk} summaries + Resync)"),
        ms(t_rows),
        "",
        Verdict::Info,
    );
    report.fig(
        &sec,
        &format!("before: node filter by a scan of the {nk} rows"),
        ms(t_scan),
        "",
        Verdict::Info,
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
