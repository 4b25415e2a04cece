//! kubectl port-forward over SPDY.

use super::*;

/// kubectl's typed clients (create, describe) speak protobuf for the built-in kinds kinformer
/// has tables for: what it creates reads back through kubectl's Go decoder with the right values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_creates_and_describes_workloads_services_and_secrets_over_protobuf() {
    let Some(s) =
        setup("kubectl_creates_and_describes_workloads_services_and_secrets_over_protobuf").await
    else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let image = "registry.k8s.io/pause:3.10";
    k.ok(&[
        "create",
        "deployment",
        "web",
        "--image",
        image,
        "--replicas",
        "2",
        "--port",
        "8080",
        "-n",
        ns,
    ])
    .await;
    k.ok(&["create", "job", "once", "--image", image, "-n", ns])
        .await;
    k.ok(&[
        "create",
        "service",
        "clusterip",
        "web",
        "--tcp",
        "80:8080",
        "-n",
        ns,
    ])
    .await;
    k.ok(&[
        "create",
        "secret",
        "generic",
        "creds",
        "--from-literal",
        "user=admin",
        "-n",
        ns,
    ])
    .await;
    k.ok(&["create", "serviceaccount", "robot", "-n", ns]).await;

    // describe's GETs ask protobuf first; the server answers it (kubectl logs the headers).
    let describe = |kind: &'static str, name: &'static str| async move {
        let (ok, out, log) = k.run(&["describe", kind, name, "-n", ns, "-v=8"]).await;
        assert!(ok, "kubectl describe {kind} {name} failed: {log}");
        assert!(
            log.contains("Content-Type: application/vnd.kubernetes.protobuf"),
            "describe {kind} was not answered in protobuf"
        );
        (out, log)
    };
    let (out, _) = describe("deployment", "web").await;
    assert!(
        out.contains("Selector:") && out.contains("app=web"),
        "{out}"
    );
    assert!(out.contains("2 desired"), "{out}");
    assert!(out.contains(image), "{out}");
    // (`8080/TCP` on a real server, which defaults the protocol; the demo does not default it.)
    assert!(out.contains("8080/"), "{out}");
    // (A real server also defaults the job's selector, parallelism and completions; the demo
    // stores what kubectl sent.)
    let (out, _) = describe("job", "once").await;
    assert!(out.contains(image), "{out}");
    let (out, _) = describe("service", "web").await;
    assert!(out.contains("ClusterIP"), "{out}");
    assert!(out.contains("80/TCP") && out.contains("8080/TCP"), "{out}");
    let (out, _) = describe("secret", "creds").await;
    // (A real server defaults `type: Opaque`; the demo stores what kubectl sent.)
    assert!(out.contains("user:") && out.contains("5 bytes"), "{out}");
    let (out, _) = describe("serviceaccount", "robot").await;
    assert!(out.contains("robot"), "{out}");
    s.cleanup().await;
}
