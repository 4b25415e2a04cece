//! `kinformer bench --clusters N`: several clusters at once.
//!
//! - sync: N demo clusters of P pods each (one child `demo-server --clusters N`), each synced by
//!   its own client and informer (as the dashboard's fleet does: nothing shared), all started
//!   together, until every one has synced; next to one cluster of P pods synced alone (a child
//!   `demo-server` of one). Target: within 1.5 × the single time;
//! - memory: RSS growth over the same baseline (taken before either run) once the N informers
//!   hold every pod, next to the single cluster's. Target: ≤ N × single + 10 MiB;
//! - label filter over N × 100k pods: one label index per cluster, each asked for the
//!   selector's keys and the answers merged into (cluster, key) pairs, as a merged table's `l`
//!   filter would. Target ≤ 5 ms.
//!
//! - all on screen: the synced stores handed to a fleet App as the runtime's merged feeds do
//!   (`Action::MemberStore`, then every member's rows keyed under it) and its first frame
//!   drawn, after the sync; next to one cluster's first screen after its own. Target: within
//!   1.5 × the single time.
//!
//! What these do not measure yet: the runtime's per-member feed tasks (the rows are built
//! here from the stores, as those tasks build them).
//!
//! Each demo server's protobuf encodings are made first, as for the single-cluster figures.
//!
//! # Measured
//!
//! Release, 2026-11-24 01:50–01:52 UTC, load 2.4–2.9 on the 2 shared cores, 3 × 10k realistic
//! pods, protobuf, `bench --pods 10000 --runs 1 --only fleet --clusters 3 --no-peer
//! [--server-mbps 58,70]`:
//!
//! | figure | servers paced at 58 / 70 MB/s | unpaced (loopback) | target |
//! |---|---|---|---|
//! | 30,000 pods on screen, merged table of 3 | 1.73–1.78 s (1.27–1.34×) | 1.12 s (2.7×) | ≤ 1.5 × one |
//! | 10,000 pods on screen, one cluster | 1.33–1.36 s | 0.41 s | |
//! | 3 clusters synced together | 1.58–1.64 s (1.22–1.28×) | 1.03 s (2.7×) | ≤ 1.5 × one |
//! | RSS growth, 3 clusters / one | 151–153 / 55–56 MiB | 154 / 55 MiB | ≤ 3 × one + 10 MiB |
//! | label filter over 3 × 100k, 1 % / 10 % | 0.16 / 3.56 ms | 0.15 / 2.25 ms | ≤ 5 ms |
//!
//! Paced at a real kube-apiserver's encode rate, each cluster's list arrives at its own pace, as
//! from three machines, and the three streams decode side by side. Unpaced, the three demo
//! servers and the dashboard share the same two cores and the comparison measures CPU.

use super::common::*;
use super::pipeline::{
    HEIGHT, WIDTH, draw, fixture_pod, fixture_pod_at, new_terminal, now_ms, shown_rows, time_median,
};
use super::server::{ChildServer, client_from_kubeconfig, set_send_rate};
use super::sync::{
    RunningInformer, dashboard_pod_indexers, first_screen, kinformer_sync, pod_transform,
    start_informer,
};
use super::wire::raw_list_proto;
use crate::cluster::Connection;

/// Pods per cluster of the label filter figure (smaller with `--smoke`).
fn label_pods(opts: &BenchOptions) -> usize {
    if opts.smoke { 20_000 } else { 100_000 }
}

fn count(n: usize) -> String {
    if n >= 1000 && n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// One informer with the dashboard's indexers, transform and decode mask on `client`.
fn pods_informer(client: &kube::Client) -> RunningInformer {
    let ar = ApiResource::erase::<Pod>(&());
    let lw: Arc<dyn ListerWatcher<DynamicObject>> = Arc::new(
        KubeListerWatcher::dynamic(client.clone(), &ar, None).with_mask(render::cache_mask("Pod")),
    );
    start_informer(lw)
}

/// A client per context of the kubeconfig at `path`, each built from its own context.
async fn clients_of(path: &Path) -> Result<Vec<(String, kube::Client)>, BenchError> {
    let kc = Kubeconfig::read_from(path).map_err(|e| BenchError::Cluster(e.to_string()))?;
    let mut out = Vec::new();
    for ctx in kc.contexts.iter().map(|c| c.name.clone()) {
        let conn =
            Connection::from_kubeconfig(kc.clone(), path.display().to_string(), Some(ctx.clone()))
                .await
                .map_err(|e| BenchError::Cluster(e.to_string()))?;
        out.push((ctx, conn.client));
    }
    Ok(out)
}

/// Get a demo server ready as the single-cluster figures do: its protobuf encodings made (it
/// encodes an object on its first protobuf request and keeps it, as kube-apiserver's watch cache
/// keeps each serialization), then, with `--server-mbps`, sending no faster than a real API server
/// encodes (each cluster its own server, on its own machine in a real fleet: the rate is per
/// member). Without the warm-up the figure measures N demo servers encoding on the client's cores.
async fn pace(client: &kube::Client, opts: &BenchOptions) -> Result<(), BenchError> {
    raw_list_proto(client).await?;
    if let Some(mbps) = opts.server_mbps {
        set_send_rate(client, mbps).await?;
    }
    Ok(())
}

pub(super) async fn fleet_figures(
    opts: &BenchOptions,
    report: &mut Report,
) -> Result<(), BenchError> {
    let n = opts.clusters;
    let pods = opts.pods.first().copied().unwrap_or(10_000);
    let section = format!("fleet {n} × {} pods", count(pods));
    let baseline = rss_bytes().unwrap_or(0);

    // One cluster alone.
    let single = ChildServer::start(pods, opts.pod_shape).await?;
    let client = client_from_kubeconfig(&single.kubeconfig).await?;
    pace(&client, opts).await?;
    let (t_single, running) = kinformer_sync(&client, opts.wire).await?;
    let rss_single = rss_bytes().unwrap_or(0).saturating_sub(baseline);
    let (single_screen, on_screen) = first_screen(&running)?;
    let single_shown = on_screen.shown;
    drop(on_screen);
    let t_single_screen = t_single + single_screen;
    let single_cached = running.informer.indexer().len();
    running.stop().await;
    drop(client);
    single.stop().await;

    // N clusters together, each on its own client and informer.
    let fleet = ChildServer::start_fleet(pods, opts.pod_shape, n).await?;
    let result = async {
        let clients = clients_of(&fleet.kubeconfig).await?;
        if clients.len() != n {
            return Err(BenchError::Setup(format!(
                "{} contexts in the fleet's kubeconfig, {n} expected",
                clients.len()
            )));
        }
        for (_, c) in &clients {
            pace(c, opts).await?;
        }
        let start = Instant::now();
        let running: Vec<RunningInformer> = clients.iter().map(|(_, c)| pods_informer(c)).collect();
        wait_until("fleet sync", Duration::from_secs(900), || {
            running.iter().all(|r| r.informer.has_synced())
        })
        .await?;
        let t_fleet = start.elapsed();
        let rss_fleet = rss_bytes().unwrap_or(0).saturating_sub(baseline);
        let cached: usize = running.iter().map(|r| r.informer.indexer().len()).sum();
        let stores: Vec<(String, Arc<ThreadSafeStore<DynamicObject>>)> = clients
            .iter()
            .zip(&running)
            .map(|((name, _), r)| (name.clone(), r.informer.indexer()))
            .collect();
        let (screen, shown) = merged_first_screen(&stores)?;
        drop(stores);
        for r in running {
            r.stop().await;
        }
        Ok((t_fleet, rss_fleet, cached, t_fleet + screen, shown))
    }
    .await;
    fleet.stop().await;
    let (t_fleet, rss_fleet, cached, t_fleet_screen, fleet_shown) = result?;

    let screen_target = t_single_screen.mul_f64(1.5);
    report.fig(
        &section,
        &format!("all {fleet_shown} pods on screen, merged table of {n} clusters"),
        secs(t_fleet_screen),
        &format!("≤ 1.5 × single ({})", secs(screen_target)),
        verdict(t_fleet_screen <= screen_target && fleet_shown == cached),
    );
    report.fig(
        &section,
        &format!("all {single_shown} pods on screen, one cluster"),
        secs(t_single_screen),
        "",
        Verdict::Info,
    );

    let time_target = t_single.mul_f64(1.5);
    report.fig(
        &section,
        &format!("{n} clusters synced together ({cached} pods, own client + informer each)"),
        secs(t_fleet),
        &format!("≤ 1.5 × single ({})", secs(time_target)),
        verdict(t_fleet <= time_target),
    );
    report.fig(
        &section,
        &format!("one cluster synced alone ({single_cached} pods)"),
        secs(t_single),
        "",
        Verdict::Info,
    );
    let rss_target = rss_single.saturating_mul(n as u64) + 10 * 1024 * 1024;
    report.fig(
        &section,
        &format!("RSS growth, {n} clusters synced"),
        mib(rss_fleet),
        &format!("≤ {n} × single + 10 MiB ({})", mib(rss_target)),
        verdict(rss_fleet <= rss_target),
    );
    report.fig(
        &section,
        "RSS growth, one cluster synced",
        mib(rss_single),
        "",
        Verdict::Info,
    );
    label_over_fleet(opts.clusters, label_pods(opts), report)
}

/// The merged pods table of `members` (context, synced store) on its first frame: a fleet
/// App gets each member's store and that member's rows keyed under it (as the runtime's
/// merged feeds send them), then draws. The time it took and the rows shown.
fn merged_first_screen(
    members: &[(String, Arc<ThreadSafeStore<DynamicObject>>)],
) -> Result<(Duration, usize), BenchError> {
    let start = Instant::now();
    let keys = KeyMap::defaults().map_err(|e| BenchError::Setup(format!("key map: {e}")))?;
    let mut app = App::new(
        AppConfig {
            context: members.first().map(|(c, _)| c.clone()).unwrap_or_default(),
            namespace: None,
            now_ms: now_ms(),
            fleet: members.iter().map(|(c, _)| c.clone()).collect(),
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
        .ok_or_else(|| BenchError::Setup("the fleet App opened no pods view".into()))?;
    for (cluster, store) in members {
        app.update(Action::MemberStore {
            view,
            cluster: Arc::from(cluster.as_str()),
            store: store.clone(),
        });
        let keys: Vec<Arc<str>> = store.list_keys().into_iter().map(Arc::from).collect();
        let (upserts, _) =
            crate::ui::table::rows_for_keys("Pod", None, store, Some(cluster), &keys);
        app.update(Action::Rows {
            view,
            upserts,
            deletes: Vec::new(),
        });
    }
    let mut term = new_terminal()?;
    draw(&mut term, &app)?;
    Ok((start.elapsed(), shown_rows(&app, view)))
}

/// The label filter over `n` stores of `per` pods: each cluster's label index, merged.
fn label_over_fleet(n: usize, per: usize, report: &mut Report) -> Result<(), BenchError> {
    let base = fixture_pod()?;
    let transform = pod_transform();
    let mut stores = Vec::with_capacity(n);
    for _ in 0..n {
        let store = ThreadSafeStore::new(dashboard_pod_indexers());
        for i in 0..per {
            let p = Arc::new(transform(fixture_pod_at(&base, i)));
            store.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
        }
        stores.push(store);
    }
    let section = format!("fleet label filter {n} × {}", count(per));
    for (k, v, pct) in [("app", "app-7", "1%"), ("tier", "tier-3", "10%")] {
        let term = label_value(k, v);
        let merge = || -> Result<Vec<(usize, String)>, BenchError> {
            let mut keys = Vec::new();
            for (cluster, store) in stores.iter().enumerate() {
                keys.extend(
                    store
                        .index_keys_all(LABEL_INDEX, &[term.as_str()])?
                        .into_iter()
                        .map(|key| (cluster, key.to_string())),
                );
            }
            Ok(keys)
        };
        let hits = merge()?.len();
        // Same-named pods in every cluster stay apart: (cluster, key) pairs, never merged.
        if hits
            != n * stores[0]
                .index_keys_all(LABEL_INDEX, &[term.as_str()])?
                .len()
        {
            return Err(BenchError::Setup(
                "merged label keys lost a cluster's rows".into(),
            ));
        }
        let t = time_median(21, merge);
        report.fig(
            &section,
            &format!("`{k}={v}` ({pct}): every cluster's label index, merged ({hits} keys)"),
            ms(t),
            "≤ 5 ms",
            verdict(t <= Duration::from_millis(5)),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_merged_first_screen_shows_every_clusters_same_named_pods() -> Result<(), BenchError> {
        let base = fixture_pod()?;
        let transform = pod_transform();
        let mut members = Vec::new();
        for name in ["prod-eu", "prod-us"] {
            let store = Arc::new(ThreadSafeStore::new(dashboard_pod_indexers()));
            for i in 0..50 {
                let p = Arc::new(transform(fixture_pod_at(&base, i)));
                store.add(&crate::informer::meta_namespace_key(p.as_ref())?, p)?;
            }
            members.push((name.to_string(), store));
        }
        let (_, shown) = merged_first_screen(&members)?;
        assert_eq!(shown, 100, "the same 50 names in each cluster are 100 rows");
        Ok(())
    }

    #[test]
    fn the_fleet_label_filter_keeps_every_clusters_same_named_pods_apart() -> Result<(), BenchError>
    {
        let mut report = Report::default();
        label_over_fleet(3, 500, &mut report)?;
        let names: Vec<&str> = report.figures.iter().map(|f| f.name.as_str()).collect();
        // 1% and 10% of 500 pods in each of 3 clusters (the same names in every cluster).
        assert!(names[0].contains("(15 keys)"), "{names:?}");
        assert!(names[1].contains("(150 keys)"), "{names:?}");
        assert!(
            report
                .figures
                .iter()
                .all(|f| f.section == "fleet label filter 3 × 500")
        );
        Ok(())
    }
}
