//! Server-side apply and dry runs: what kubectl prints against the demo is what it prints
//! against kube-apiserver (managed fields per manager, conflicts naming the manager and field,
//! `--force-conflicts`, `--dry-run=server` storing nothing).

use super::*;

fn configmap(ns: &str, name: &str, a: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {ns}\ndata:\n  a: \"{a}\"\n"
    )
}

async fn data_a(k: &Kubectl, ns: &str, name: &str) -> String {
    k.ok(&[
        "get",
        "configmap",
        name,
        "-n",
        ns,
        "-o",
        "jsonpath={.data.a}",
    ])
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_server_side_apply_conflicts_forces_and_dry_runs() {
    let Some(s) = setup("kubectl_server_side_apply_conflicts_forces_and_dry_runs").await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let out = k
        .ok(&["create", "configmap", "cfg", "-n", ns, "--from-literal=a=1"])
        .await;
    assert_eq!(out.trim(), "configmap/cfg created");

    // Another manager (kubectl-create) owns data.a: applying another value conflicts.
    let (ok, out, err) = k
        .run_stdin(
            &["apply", "--server-side", "-f", "-"],
            &configmap(ns, "cfg", "2"),
        )
        .await;
    assert!(!ok, "{out}");
    assert!(
        err.contains(
            "Apply failed with 1 conflict: conflict with \"kubectl-create\" using v1: .data.a"
        ),
        "{err}"
    );

    // A server dry run says what it would do and stores nothing.
    let (ok, out, err) = k
        .run_stdin(
            &[
                "apply",
                "--server-side",
                "--force-conflicts",
                "--dry-run=server",
                "-f",
                "-",
            ],
            &configmap(ns, "cfg", "2"),
        )
        .await;
    assert!(ok, "{err}");
    assert_eq!(
        out.trim(),
        "configmap/cfg serverside-applied (server dry run)"
    );
    assert_eq!(data_a(k, ns, "cfg").await, "1");

    // Forced, the field changes hands; the creator keeps the map itself.
    let (ok, out, err) = k
        .run_stdin(
            &["apply", "--server-side", "--force-conflicts", "-f", "-"],
            &configmap(ns, "cfg", "2"),
        )
        .await;
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "configmap/cfg serverside-applied");
    assert_eq!(data_a(k, ns, "cfg").await, "2");
    let managers = k
        .ok(&[
            "get",
            "configmap",
            "cfg",
            "-n",
            ns,
            "-o",
            "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation} {end}",
        ])
        .await;
    assert_eq!(managers.trim(), "kubectl/Apply kubectl-create/Update");
    let fields = k
        .ok(&[
            "get",
            "configmap",
            "cfg",
            "-n",
            ns,
            "-o",
            "jsonpath={.metadata.managedFields[0].fieldsV1}",
        ])
        .await;
    assert_eq!(fields, r#"{"f:data":{"f:a":{}}}"#);

    // Now an applier owns it: another applier conflicts with it by name alone.
    let (ok, _, err) = k
        .run_stdin(
            &["apply", "--server-side", "--field-manager=ci", "-f", "-"],
            &configmap(ns, "cfg", "3"),
        )
        .await;
    assert!(!ok);
    assert!(
        err.contains("Apply failed with 1 conflict: conflict with \"kubectl\": .data.a"),
        "{err}"
    );

    // An apply creates what is not there; a create dry run stores nothing.
    let (ok, out, err) = k
        .run_stdin(
            &["apply", "--server-side", "-f", "-"],
            &configmap(ns, "fresh", "x"),
        )
        .await;
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "configmap/fresh serverside-applied");
    assert_eq!(data_a(k, ns, "fresh").await, "x");
    let (ok, out, err) = k
        .run_stdin(
            &["create", "--dry-run=server", "-f", "-"],
            &configmap(ns, "ghost", "g"),
        )
        .await;
    assert!(ok, "{err}");
    assert_eq!(out.trim(), "configmap/ghost created (server dry run)");
    let (ok, _, err) = k.run(&["get", "configmap", "ghost", "-n", ns]).await;
    assert!(!ok);
    assert!(err.contains("NotFound"), "{err}");
    s.cleanup().await;
}
