//! kubectl against many custom resource kinds (`--demo-crds`): discovery lists them, their CRDs'
//! printer columns show, and their categories resolve.

use super::*;

/// A demo server (not a shared real cluster: the kinds are the demo's) and kubectl whose
/// discovery cache is in the test's own directory.
async fn demo_with_crds(test: &str, n: usize) -> Option<(Kubectl, DemoHandle, tempfile::TempDir)> {
    let Some(bin) = kubectl_on_path() else {
        println!("skipping {test}: kubectl is not on PATH");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let h = DemoServer::start(DemoOptions::default()).await.unwrap();
    assert_eq!(h.cluster().install_provider_crds(n).unwrap(), n);
    let kubeconfig = dir.path().join("kubeconfig");
    h.write_kubeconfig(&kubeconfig).unwrap();
    Some((Kubectl { bin, kubeconfig }, h, dir))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_lists_and_gets_the_demo_crds_kinds_with_their_printer_columns() {
    let test = "kubectl_lists_and_gets_the_demo_crds_kinds_with_their_printer_columns";
    let Some((k, h, dir)) = demo_with_crds(test, 30).await else {
        return;
    };
    let cache = dir.path().join("cache");
    let cache = cache.to_str().unwrap();

    // Thirty kinds in three groups, cluster-scoped, in the managed category.
    let out = k
        .ok(&[
            "--cache-dir",
            cache,
            "api-resources",
            "--categories",
            "managed",
        ])
        .await;
    let rows: Vec<Vec<&str>> = out
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows.len(), 30, "{out}");
    let groups: std::collections::BTreeSet<&str> = rows.iter().map(|r| r[1]).collect();
    assert_eq!(
        groups.into_iter().collect::<Vec<_>>(),
        [
            "ec2.aws.demo.kinformer.io/v1",
            "iam.aws.demo.kinformer.io/v1",
            "s3.aws.demo.kinformer.io/v1"
        ]
    );
    assert!(
        rows.contains(&vec![
            "buckets",
            "s3.aws.demo.kinformer.io/v1",
            "false",
            "Bucket"
        ]),
        "{out}"
    );

    // The CRD's printer columns, from the server's Table.
    let out = k
        .ok(&[
            "--cache-dir",
            cache,
            "get",
            "buckets.s3.aws.demo.kinformer.io",
        ])
        .await;
    let lines: Vec<Vec<&str>> = out
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        lines[0],
        ["NAME", "READY", "SYNCED", "EXTERNAL-NAME", "AGE"]
    );
    assert_eq!(lines[1][..4], ["bucket-11-a", "True", "True", "buc-00110"]);
    assert_eq!(lines[2][..4], ["bucket-11-b", "False", "True", "buc-00111"]);

    // A category names every kind in it; the CRDs are objects too.
    let out = k
        .ok(&["--cache-dir", cache, "get", "managed", "-o", "name"])
        .await;
    assert_eq!(out.lines().count(), 60, "{out}");
    let out = k
        .ok(&["--cache-dir", cache, "get", "crd", "-o", "name"])
        .await;
    assert!(
        out.lines()
            .any(|l| l
                == "customresourcedefinition.apiextensions.k8s.io/keys.iam.aws.demo.kinformer.io"),
        "{out}"
    );
    h.shutdown().await;
}

/// A kind is served while its CRD is stored, as the apiextensions-apiserver serves it: the 31st
/// kind is unknown to a cluster with thirty.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_does_not_find_a_kind_whose_crd_the_demo_does_not_hold() {
    let test = "kubectl_does_not_find_a_kind_whose_crd_the_demo_does_not_hold";
    let Some((k, h, dir)) = demo_with_crds(test, 30).await else {
        return;
    };
    let cache = dir.path().join("cache");
    let cache = cache.to_str().unwrap();
    let (ok, _, err) = k
        .run(&[
            "--cache-dir",
            cache,
            "get",
            "instances.rds.aws.demo.kinformer.io",
        ])
        .await;
    assert!(!ok);
    assert!(
        err.contains("the server doesn't have a resource type"),
        "{err}"
    );
    h.shutdown().await;
}

/// The demo stops serving `buckets.s3…` (its CRD deleted): what lists it afterwards read it from
/// a cache.
fn forget_buckets(h: &DemoHandle) {
    use kinformer::demo::cluster::DeleteOptions;
    use kinformer::demo::resources;
    let crds = resources::find("apiextensions.k8s.io", "v1", "customresourcedefinitions").unwrap();
    h.cluster()
        .delete(
            crds,
            None,
            "buckets.s3.aws.demo.kinformer.io",
            &DeleteOptions::now(),
        )
        .unwrap();
}

async fn kinformer_connection(
    k: &Kubectl,
    cache: &std::path::Path,
) -> kinformer::cluster::Connection {
    let kc = kube::config::Kubeconfig::read_from(&k.kubeconfig).unwrap();
    let mut c = kinformer::cluster::Connection::from_kubeconfig(kc, "test".into(), None)
        .await
        .unwrap();
    c.cache_root = Some(cache.to_path_buf());
    c
}

fn names(resources: &[kinformer::cluster::ResourceInfo]) -> Vec<String> {
    resources.iter().map(|r| r.display_name()).collect()
}

/// kubectl's discovery cache (`--cache-dir DIR`: `DIR/discovery/127.0.0.1_PORT/…`) is read by
/// kinformer as it is: a kind the server no longer serves is still found there, until kinformer
/// asks again (an unknown kind typed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kinformer_reads_the_discovery_cache_kubectl_wrote() {
    let test = "kinformer_reads_the_discovery_cache_kubectl_wrote";
    let Some((k, h, dir)) = demo_with_crds(test, 30).await else {
        return;
    };
    let cache = dir.path().join("cache");
    k.ok(&["--cache-dir", cache.to_str().unwrap(), "api-resources"])
        .await;
    let host = h.addr().to_string().replace(':', "_");
    assert!(
        cache
            .join(format!(
                "discovery/{host}/s3.aws.demo.kinformer.io/v1/serverresources.json"
            ))
            .is_file()
    );
    forget_buckets(&h);
    let c = kinformer_connection(&k, &cache).await;
    let cached = names(&c.discover().await.unwrap());
    assert!(cached.contains(&"buckets.s3.aws.demo.kinformer.io".to_string()));
    assert!(
        cached.contains(&"pods".to_string()) && cached.contains(&"deployments.apps".to_string())
    );
    let fresh = names(&c.rediscover().await.unwrap());
    assert!(!fresh.contains(&"buckets.s3.aws.demo.kinformer.io".to_string()));
    assert!(fresh.contains(&"instances.s3.aws.demo.kinformer.io".to_string()));
    // Asking again rewrote the cache: the next start reads the fresh documents.
    let again = names(&c.discover().await.unwrap());
    assert_eq!(again, fresh);
    h.shutdown().await;
}

/// What kinformer writes, kubectl reads (`api-resources --cached` uses the cache alone): a kind
/// the server stopped serving is still listed from kinformer's files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_reads_the_discovery_cache_kinformer_wrote() {
    let test = "kubectl_reads_the_discovery_cache_kinformer_wrote";
    let Some((k, h, dir)) = demo_with_crds(test, 30).await else {
        return;
    };
    let cache = dir.path().join("cache");
    kinformer_connection(&k, &cache)
        .await
        .discover()
        .await
        .unwrap();
    forget_buckets(&h);
    let cache = cache.to_str().unwrap();
    let bucket = "buckets.s3.aws.demo.kinformer.io";
    let cached = k
        .ok(&[
            "--cache-dir",
            cache,
            "api-resources",
            "--cached",
            "-o",
            "name",
        ])
        .await;
    assert!(cached.lines().any(|l| l == bucket), "{cached}");
    assert!(cached.lines().any(|l| l == "pods"), "{cached}");
    assert!(cached.lines().any(|l| l == "deployments.apps"), "{cached}");
    // The control: asked of the server, the kind is gone.
    let live = k
        .ok(&["--cache-dir", cache, "api-resources", "-o", "name"])
        .await;
    assert!(!live.lines().any(|l| l == bucket), "{live}");
    h.shutdown().await;
}
