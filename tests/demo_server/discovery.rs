//! Discovery asks every API group at once: a slow group (an aggregated API server that hangs, a
//! provider's) does not keep the others waiting.

use super::*;

/// Every group version is asked for while one group's answer is held; discovery ends once it
/// is released, with that group's kinds. Asked one after another, the groups after the held
/// one would never be asked (the wait below would end at the hang guard).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_group_does_not_keep_discovery_from_asking_every_other_group() {
    let h = DemoServer::start(DemoOptions::default()).await.unwrap();
    h.cluster().install_provider_crds(30).unwrap();
    let faults = h.faults();
    let held = "ec2.aws.demo.kinformer.io";
    faults.hold_discovery(held);
    let kc = Kubeconfig::from_yaml(&h.kubeconfig_yaml()).unwrap();
    let conn = kinformer::cluster::Connection::from_kubeconfig(kc, "demo".into(), None)
        .await
        .unwrap();
    let mut asked = faults.discovery_asked();
    let discovery = tokio::spawn(async move { conn.discover().await });
    // Groups after the held one in the server's order, the core group and a built-in one.
    let want = [
        "v1",
        "apps/v1",
        "ec2.aws.demo.kinformer.io/v1",
        "s3.aws.demo.kinformer.io/v1",
        "iam.aws.demo.kinformer.io/v1",
    ];
    tokio::time::timeout(
        HANG_GUARD,
        asked.wait_for(|s| want.iter().all(|gv| s.contains(*gv))),
    )
    .await
    .expect("the groups after the held one were not asked while it was held")
    .unwrap();
    assert!(
        !discovery.is_finished(),
        "discovery ended without the held group"
    );
    faults.release_discovery();
    let resources = tokio::time::timeout(HANG_GUARD, discovery)
        .await
        .expect("discovery hung after the release")
        .unwrap()
        .unwrap();
    let names: Vec<String> = resources.iter().map(|r| r.display_name()).collect();
    for kind in [
        "instances.ec2.aws.demo.kinformer.io",
        "buckets.s3.aws.demo.kinformer.io",
        "pods",
    ] {
        assert!(names.iter().any(|n| n == kind), "{kind} in {names:?}");
    }
    h.shutdown().await;
}
