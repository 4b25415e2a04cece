//! Figure 13 (issue 43, "many kinds and names"): what many custom resource kinds and many names
//! cost the dashboard.
//!
//! - **Discovery with 0 and 300 CRDs in 30 groups** (`--demo-crds 300`, as Crossplane providers
//!   bring): [`Connection::discover`] against an in-process demo server, cold (an empty kubectl
//!   cache directory: every document asked of the server, then written) and warm (every document
//!   read from the cache kubectl would read); then the App's start over those kinds (`App::new`,
//!   `init`, the first frame of 2,000 pods). The 2,000 pods' list is the same with and without
//!   the CRDs, so the first frame's difference is discovery's plus the App start's; target: ≤ 20 ms
//!   more with 300 CRDs.
//! - **`:` completion over 1,000 names** (the built-in kinds and 1,000 generated ones, several
//!   names each): `:` then `instance` typed one key at a time, each key's update and frame;
//!   target ≤ 10 ms a key.
//! - **`:ns` with 2,000 namespaces and the nodes table with 5,000 nodes**: the table's frames
//!   once the rows are in, then 100 `j` (each key's update and frame); target: every frame
//!   ≤ 16 ms.
//!
//! Median of `runs` (at least 5) for discovery; the longest of every key or frame for the rest.
//!
//! # Measured
//!
//! Release, 2026-12-08 01:26 UTC, load 3.5 (2 shared cores), `bench --only names --runs 5`:
//! discovery 2.6 / 0.4 ms (cold / warm) with no CRDs, 12.3 / 5.6 ms with 300; the App's start
//! 1.1 / 1.4 ms; so 10.0 / 5.4 ms more with 300 CRDs (target ≤ 20 ms: PASS). Completion 0.3 ms a
//! key; `:ns` 0.7 ms and nodes 2.5 ms a frame at most. Before the CRD list was read without
//! its schemas and in parallel with discovery (a debug build, load 14): 121 / 88 ms more; the CRD
//! list (300 × ~6 KB parsed into JSON trees, after discovery) was most of it. The demo's CRDs are
//! small beside a cloud provider's (100 KB and more, mostly schema): there the skipped schema
//! matters more, and the list's bytes on the wire remain (not measured on a real server here).

use super::common::*;
use super::pipeline::{
    HEIGHT, WIDTH, draw, fixture_pod, fixture_pod_at, new_terminal, now_ms, shown_rows, store_rows,
};
use super::sync::{dashboard_pod_indexers, pod_transform};
use crate::cluster::Connection;
use crate::demo::{DemoOptions, DemoServer};
use crossterm::event::KeyCode;

const KEY_BUDGET: Duration = Duration::from_millis(10);
const FRAME: Duration = Duration::from_millis(16);

pub(super) async fn names_figures(
    opts: &BenchOptions,
    report: &mut Report,
) -> Result<(), BenchError> {
    let sec = "names";
    let runs = opts.runs.max(5);
    let mut per_crds = Vec::new();
    for crds in [0usize, 300] {
        let (cold, warm, resources) = discovery_times(crds, runs).await?;
        let start = app_start(&resources)?;
        report.fig(
            sec,
            &format!(
                "discovery with {crds} CRDs ({} kinds): cold / warm kubectl disk cache, median of {runs}",
                resources.len()
            ),
            format!("{} / {}", ms(cold), ms(warm)),
            "—",
            Verdict::Info,
        );
        report.fig(
            sec,
            &format!(
                "App start over those kinds: new + init + first frame of 2,000 pods ({crds} CRDs)"
            ),
            ms(start),
            "—",
            Verdict::Info,
        );
        per_crds.push((cold, warm, start));
    }
    let (c0, w0, s0) = per_crds[0];
    let (c3, w3, s3) = per_crds[1];
    let more_cold = (c3 + s3).saturating_sub(c0 + s0);
    let more_warm = (w3 + s3).saturating_sub(w0 + s0);
    report.fig(
        sec,
        "first frame, 300 CRDs in 30 groups vs none: added time, cold / warm cache",
        format!("{} / {}", ms(more_cold), ms(more_warm)),
        "≤ 20 ms",
        verdict(more_cold <= Duration::from_millis(20) && more_warm <= Duration::from_millis(20)),
    );

    let (longest, names) = completion_keys()?;
    report.fig(
        sec,
        &format!("`:` completion over {names} names: longest key (update + frame)"),
        ms(longest),
        "≤ 10 ms",
        verdict(longest <= KEY_BUDGET),
    );
    for (label, command, n) in [("`:ns` namespaces", "ns", 2_000), ("nodes", "nodes", 5_000)] {
        let longest = big_table_frames(command, n)?;
        report.fig(
            sec,
            &format!("{label} table with {n} rows: longest frame (rows in, then 100 `j`)"),
            ms(longest),
            "≤ 16 ms",
            verdict(longest <= FRAME),
        );
    }
    Ok(())
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Cold and warm discovery (medians) against a demo server with `crds` CRDs, and what it found.
async fn discovery_times(
    crds: usize,
    runs: usize,
) -> Result<(Duration, Duration, Vec<crate::cluster::ResourceInfo>), BenchError> {
    let setup = |e: String| BenchError::Setup(format!("names: {e}"));
    let handle = DemoServer::start(DemoOptions::default())
        .await
        .map_err(|e| setup(e.to_string()))?;
    let result = async {
        handle
            .cluster()
            .install_provider_crds(crds)
            .map_err(|e| setup(e.to_string()))?;
        let kc = kube::config::Kubeconfig::from_yaml(&handle.kubeconfig_yaml())
            .map_err(|e| setup(e.to_string()))?;
        let mut conn = Connection::from_kubeconfig(kc, "bench".into(), None)
            .await
            .map_err(|e| setup(e.to_string()))?;
        let (mut cold, mut warm) = (Vec::new(), Vec::new());
        let mut found = Vec::new();
        for _ in 0..runs {
            let dir = tempfile_dir()?;
            conn.cache_root = Some(dir.clone());
            let t = Instant::now();
            found = conn.discover().await.map_err(|e| setup(e.to_string()))?;
            cold.push(t.elapsed());
            let t = Instant::now();
            conn.discover().await.map_err(|e| setup(e.to_string()))?;
            warm.push(t.elapsed());
            let _ = std::fs::remove_dir_all(&dir);
        }
        Ok((median(cold), median(warm), found))
    }
    .await;
    handle.shutdown().await;
    result
}

fn tempfile_dir() -> Result<std::path::PathBuf, BenchError> {
    let dir = std::env::temp_dir().join(format!(
        "kinformer-bench-discovery-{}-{}",
        std::process::id(),
        now_ms()
    ));
    std::fs::create_dir_all(&dir)
        .map_err(|e| BenchError::Setup(format!("names: cache dir {}: {e}", dir.display())))?;
    Ok(dir)
}

fn app_with(resources: Vec<crate::cluster::ResourceInfo>) -> Result<App, BenchError> {
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
    // As the runtime starts it: what discovery found, then the first view.
    app.update(Action::Discovery(resources));
    app.init();
    Ok(app)
}

/// `App::new`, `init` and the first frame holding 2,000 pods, over `resources`.
fn app_start(resources: &[crate::cluster::ResourceInfo]) -> Result<Duration, BenchError> {
    let store = Arc::new(ThreadSafeStore::new(dashboard_pod_indexers()));
    let transform = pod_transform();
    let base = fixture_pod()?;
    for i in 0..2_000 {
        let p = Arc::new(transform(fixture_pod_at(&base, i)));
        store.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
    }
    let rows = store_rows(&store);
    let mut term = new_terminal()?;
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut app = app_with(resources.to_vec())?;
        let view = app
            .current_view_id()
            .ok_or_else(|| BenchError::Setup("names: no first view".into()))?;
        app.update(Action::Store {
            view,
            store: store.clone(),
        });
        app.update(Action::Resync {
            view,
            rows: rows.clone(),
        });
        draw(&mut term, &app)?;
        times.push(t.elapsed());
    }
    Ok(median(times))
}

/// The built-in kinds and the 1,000 generated provider kinds, as discovery names them.
fn many_kinds() -> Vec<crate::cluster::ResourceInfo> {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;
    let mut out = crate::ui::resources::builtin_resources();
    out.extend(
        crate::demo::provider_crds::resource_infos()
            .iter()
            .filter_map(|r| {
                crate::cluster::ResourceInfo::from_api_resource(
                    r.id.group,
                    r.id.version,
                    &APIResource {
                        name: r.id.plural.into(),
                        kind: r.kind.into(),
                        namespaced: r.namespaced,
                        singular_name: r.singular.into(),
                        verbs: vec!["list".into(), "watch".into(), "get".into()],
                        categories: Some(r.categories.iter().map(|c| c.to_string()).collect()),
                        ..Default::default()
                    },
                )
            }),
    );
    out
}

/// `:` and `instance` typed a key at a time: the longest key (update + frame), and how many
/// names completion chooses from.
fn completion_keys() -> Result<(Duration, usize), BenchError> {
    let kinds = many_kinds();
    let names: std::collections::BTreeSet<String> =
        kinds.iter().flat_map(|r| r.aliases()).collect();
    let mut app = app_with(kinds)?;
    let mut term = new_terminal()?;
    draw(&mut term, &app)?;
    let mut longest = Duration::ZERO;
    for _ in 0..5 {
        for c in ":instance".chars() {
            let t = Instant::now();
            app.update(key(KeyCode::Char(c)));
            draw(&mut term, &app)?;
            longest = longest.max(t.elapsed());
        }
        app.update(key(KeyCode::Esc));
    }
    Ok((longest, names.len()))
}

fn key(code: KeyCode) -> Action {
    Action::Key(crossterm::event::KeyEvent::new(
        code,
        crossterm::event::KeyModifiers::NONE,
    ))
}

/// `command`'s table with `n` rows (namespaces or nodes): the frame with the rows in, then 100
/// `j`, each key's update and frame; the longest.
fn big_table_frames(command: &str, n: usize) -> Result<Duration, BenchError> {
    let (kind, objects): (&str, Vec<serde_json::Value>) = if command == "ns" {
        (
            "Namespace",
            (0..n)
                .map(|i| {
                    crate::demo::objects::namespace(
                        &format!("team-{i:05}"),
                        &format!("uid-{i}"),
                        1_700_000_000,
                    )
                })
                .collect(),
        )
    } else {
        (
            "Node",
            (0..n)
                .map(|i| crate::demo::objects::node(&node_info(i)))
                .collect(),
        )
    };
    let store = Arc::new(ThreadSafeStore::new(
        crate::informer::index::default_indexers::<DynamicObject>(),
    ));
    for o in objects {
        let o: DynamicObject = serde_json::from_value(o)
            .map_err(|e| BenchError::Setup(format!("names: {kind}: {e}")))?;
        let o = Arc::new(o);
        store.add(&crate::informer::meta_namespace_key(o.as_ref())?, o)?;
    }
    let keys: Vec<Arc<str>> = store.list_keys().into_iter().map(Arc::from).collect();
    let rows = crate::ui::table::rows_for_keys(kind, None, &store, None, &keys).0;
    let mut app = app_with(crate::ui::resources::builtin_resources())?;
    let mut fx = Vec::new();
    app.run_command(command, &mut fx);
    let view = app
        .current_view_id()
        .ok_or_else(|| BenchError::Setup(format!("names: :{command} opened no table")))?;
    let mut term = new_terminal()?;
    let mut longest = Duration::ZERO;
    let t = Instant::now();
    app.update(Action::Store {
        view,
        store: store.clone(),
    });
    app.update(Action::Resync { view, rows });
    draw(&mut term, &app)?;
    longest = longest.max(t.elapsed());
    if shown_rows(&app, view) != n {
        return Err(BenchError::Setup(format!(
            "names: :{command} shows {} rows of {n}",
            shown_rows(&app, view)
        )));
    }
    for _ in 0..100 {
        let t = Instant::now();
        app.update(key(KeyCode::Char('j')));
        draw(&mut term, &app)?;
        longest = longest.max(t.elapsed());
    }
    Ok(longest)
}

/// A worker node of the demo's shape.
fn node_info(i: usize) -> crate::demo::objects::NodeInfo {
    let (third, fourth) = (i / 250, i % 250 + 4);
    let created = 1_700_000_000 + i as i64;
    crate::demo::objects::NodeInfo {
        name: format!("ip-10-0-{third}-{fourth}.eu-west-1.compute.internal"),
        uid: format!("uid-{i}"),
        created,
        control_plane: false,
        zone: ["eu-west-1a", "eu-west-1b", "eu-west-1c"][i % 3],
        region: "eu-west-1",
        instance_type: "m6i.2xlarge",
        cpu: 8,
        memory_gi: 32,
        max_pods: 110,
        internal_ip: format!("10.0.{third}.{fourth}"),
        pod_cidr: format!("10.{}.{}.0/24", 64 + i / 256, i % 256),
        ready: true,
        memory_pressure: false,
        disk_pressure: false,
        ready_since: created + 25,
        pressure_since: created + 5,
        heartbeat: created + 3600,
        machine_id: format!("{i:032x}"),
        kernel: "6.8.0-1024-aws",
    }
}
