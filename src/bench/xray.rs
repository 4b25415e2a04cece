//! Figure 8 (`--only xray`): the xray owner tree at 150k pods (20k with `--smoke`).
//!
//! The caches of figure 7 (pods owned by 1,000 ReplicaSets, each owned by one of 500
//! Deployments spread over 50 namespaces), indexed as the dashboard indexes them, pods pruned.
//! Measured on the xray model the screen uses ([`Xray`]):
//! - one Deployment's tree (its ReplicaSets from the owner index, their pods from the owner
//!   index): the rebuild of one root, O(its objects);
//! - the same answer from a scan of the pod cache (what it costs without the owner index);
//! - one pod of that deployment changing: the batch marks its root (membership map), the root is
//!   rebuilt and the visible rows flattened again, as `Action::Rows` does in the App;
//! - the whole tree of one namespace's deployments (`:xray` scoped to a namespace).
//!
//! Measured (release, 2026-11-23 22:47 UTC, load 4.9 on 2 shared cores): one Deployment's tree
//! (303 objects) 1.03 ms by the owner index against 34 ms by a scan of the 150k cached pods; a
//! pod update (root found, rebuilt, rows spliced in) 1.98 ms; one namespace's whole tree (10
//! deployments, 3,030 objects) 23 ms.

use super::common::*;
use super::pipeline::time_median;
use super::screen::{FIXTURE_REPLICASETS, owned_fixture_caches, workload_object};
use crate::ui::xray::{XKind, Xray};

pub(super) fn xray_tree(opts: &BenchOptions, report: &mut Report) -> Result<(), BenchError> {
    let n = if opts.smoke { 20_000 } else { 150_000 };
    let nk = format!("{}k", n / 1000);
    let sec = format!("xray at {nk} pods");
    let (pods, replicasets) = owned_fixture_caches(n)?;
    let deployments = Arc::new(ThreadSafeStore::new(default_indexers::<DynamicObject>()));
    for d in 0..500 {
        let o = Arc::new(workload_object(
            "Deployment",
            &format!("ns-{}", d % 50),
            &format!("deploy-{d}"),
            &format!("deploy-uid-{d}"),
            None,
        )?);
        deployments.add(&crate::informer::meta_namespace_key(o.as_ref())?, o)?;
    }
    let mut x = Xray::new(XKind::Deployment, Some("ns-7".into()));
    x.set_store(XKind::Deployment, deployments);
    x.set_store(XKind::ReplicaSet, replicasets);
    x.set_store(XKind::Pod, pods.clone());
    let runs = 21;

    // The whole namespace's tree (every deployment of ns-7).
    let t_ns = time_median(5, || {
        x.set_store(XKind::Pod, pods.clone());
        x.flush(true)
    });
    let ns_objects = x.object_count();
    let roots = x.root_count();

    // One deployment: 2 ReplicaSets of n/1000 pods each.
    let key: Arc<str> = Arc::from("ns-7/deploy-7");
    let t_one = time_median(runs, || x.rebuild_root(&key));
    let one = x.node("deploy/ns-7/deploy-7").map_or(0, |d| {
        1 + d.children.len() + d.children.iter().map(|rs| rs.children.len()).sum::<usize>()
    });
    let expect = 1 + 2 + 2 * n / FIXTURE_REPLICASETS;
    if one != expect {
        return Err(BenchError::Setup(format!(
            "deploy-7's tree holds {one} objects, expected {expect}"
        )));
    }
    report.fig(
        &sec,
        &format!("one deployment's tree by the owner index ({one} objects)"),
        format!(
            "{} ({:.1} µs per object)",
            ms(t_one),
            t_one.as_secs_f64() * 1e6 / one as f64
        ),
        "≤ 10 ms",
        verdict(t_one <= Duration::from_millis(10)),
    );

    // Without the owner index: a scan of the pod cache for the ReplicaSets' uids.
    let t_scan = time_median(5, || {
        pods.list()
            .into_iter()
            .filter(|p| {
                p.metadata
                    .owner_references
                    .iter()
                    .flatten()
                    .any(|r| r.uid == "rs-uid-7" || r.uid == "rs-uid-507")
            })
            .count()
    });
    report.fig(
        &sec,
        &format!("the same pods by a scan of the {nk} cached pods"),
        ms(t_scan),
        "",
        Verdict::Info,
    );

    // One pod of deploy-7 changes: its root found, rebuilt, rows flattened again.
    let pod_key = pods
        .index_keys(crate::informer::index::OWNER_INDEX, "rs-uid-7")?
        .into_iter()
        .next()
        .ok_or_else(|| BenchError::Setup("rs-7 has no pods".into()))?;
    let changed = pods
        .get(&pod_key)
        .ok_or_else(|| BenchError::Setup(format!("no pod {pod_key}")))?;
    let before = x.rebuilds;
    let t_update = time_median(runs, || {
        x.apply(XKind::Pod, [changed.clone()], &[]);
        x.flush(false)
    });
    if x.rebuilds - before != runs as u64 {
        return Err(BenchError::Setup(format!(
            "a pod update rebuilt {} roots over {runs} runs, expected one each",
            x.rebuilds - before
        )));
    }
    report.fig(
        &sec,
        "a pod update: its root rebuilt in place + rows flattened",
        ms(t_update),
        "≤ 10 ms",
        verdict(t_update <= Duration::from_millis(10)),
    );
    report.fig(
        &sec,
        &format!("the namespace's whole tree ({roots} deployments, {ns_objects} objects)"),
        ms(t_ns),
        "",
        Verdict::Info,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The xray figures check the tree they time: one deployment holds exactly its two
    /// ReplicaSets and their pods, and a pod update rebuilds one root.
    #[test]
    fn xray_figures_build_one_deployments_tree_from_the_indexes() -> Result<(), BenchError> {
        let opts = BenchOptions {
            pods: Vec::new(),
            runs: 1,
            no_peer: true,
            churn: Vec::new(),
            kubeconfig: None,
            smoke: true,
            only: vec![FigureGroup::Xray],
            pod_shape: PodShape::Compact,
            server_mbps: None,
            clusters: 1,
            wire: crate::informer::pb::client::WireFormat::Protobuf,
        };
        let mut report = Report::default();
        xray_tree(&opts, &mut report)?;
        let names: Vec<&str> = report.figures.iter().map(|f| f.name.as_str()).collect();
        for want in [
            "one deployment's tree by the owner index (43 objects)",
            "a pod update",
            "the namespace's whole tree (10 deployments",
        ] {
            assert!(names.iter().any(|n| n.contains(want)), "{want}: {names:?}");
        }
        Ok(())
    }
}
