//! kubectl's protobuf requests: creates, gets and describes decoded by Go's generated code.

use super::*;

/// The newer built-in kinds over kubectl's protobuf requests: `create cronjob|ingress|pdb|role|
/// rolebinding` post
/// protobuf, `describe` reads protobuf back, `get cronjobs,pvc,ingress,pdb` lists them, and the
/// server's errors to protobuf requests (a `Status` in protobuf) read as kubectl's usual
/// "Error from server (Reason)".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_creates_gets_and_describes_cronjobs_ingresses_pvcs_pdbs_and_roles_over_protobuf() {
    let Some(s) = setup(
        "kubectl_creates_gets_and_describes_cronjobs_ingresses_pvcs_pdbs_and_roles_over_protobuf",
    )
    .await
    else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let image = "registry.k8s.io/pause:3.10";
    let cronjob = [
        "create",
        "cronjob",
        "nightly",
        "--image",
        image,
        "--schedule",
        "0 3 * * *",
        "-n",
        ns,
    ];
    k.ok(&cronjob).await;
    k.ok(&[
        "create",
        "ingress",
        "web",
        "--rule",
        "shop.example.com/*=web:80",
        "-n",
        ns,
    ])
    .await;
    k.ok(&[
        "create",
        "poddisruptionbudget",
        "web",
        "--selector",
        "app=web",
        "--min-available",
        "1",
        "-n",
        ns,
    ])
    .await;
    k.apply_stdin(&format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\n  namespace: {ns}\n\
         spec:\n  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n"
    ))
    .await;

    let out = k
        .ok(&["get", "cronjobs,pvc,ingress,pdb", "-n", ns, "-o", "name"])
        .await;
    for name in [
        "cronjob.batch/nightly",
        "persistentvolumeclaim/data",
        "ingress.networking.k8s.io/web",
        "poddisruptionbudget.policy/web",
    ] {
        assert!(out.lines().any(|l| l == name), "{name} missing:\n{out}");
    }

    let describe = |kind: &'static str, name: &'static str| async move {
        let (ok, out, log) = k.run(&["describe", kind, name, "-n", ns, "-v=8"]).await;
        assert!(ok, "kubectl describe {kind} {name} failed: {log}");
        assert!(
            log.contains("Content-Type: application/vnd.kubernetes.protobuf"),
            "describe {kind} was not answered in protobuf"
        );
        out
    };
    let out = describe("cronjob", "nightly").await;
    assert!(out.contains("0 3 * * *") && out.contains(image), "{out}");
    let out = describe("ingress", "web").await;
    assert!(
        out.contains("shop.example.com") && out.contains("web:80"),
        "{out}"
    );
    let out = describe("pdb", "web").await;
    assert!(out.contains("app=web"), "{out}");
    let out = describe("pvc", "data").await;
    assert!(
        out.contains("ReadWriteOnce") || out.contains("data"),
        "{out}"
    );

    // RBAC: kubectl's typed rbac/v1 client posts protobuf; describe reads it back through Go's
    // generated decoder (rules and subjects in their fields).
    k.ok(&[
        "create",
        "role",
        "pod-reader",
        "--verb",
        "get,list",
        "--resource",
        "pods",
        "-n",
        ns,
    ])
    .await;
    k.ok(&[
        "create",
        "rolebinding",
        "read-pods",
        "--role",
        "pod-reader",
        "--user",
        "jane",
        "--serviceaccount",
        &format!("{ns}:robot"),
        "-n",
        ns,
    ])
    .await;
    let out = describe("role", "pod-reader").await;
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("pods") && l.contains("[get list]")),
        "{out}"
    );
    let out = describe("rolebinding", "read-pods").await;
    assert!(
        out.contains("pod-reader") && out.contains("jane") && out.contains("robot"),
        "{out}"
    );

    // Errors to protobuf requests (kubectl prints the Status's message, and its reason where
    // the command does not wrap the error).
    let (ok, _, err) = k.run(&cronjob).await;
    assert!(!ok);
    assert!(
        err.contains("cronjobs.batch \"nightly\" already exists"),
        "{err}"
    );
    let (ok, _, err) = k.run(&["create", "namespace", ns]).await;
    assert!(!ok);
    assert!(
        err.contains("Error from server (AlreadyExists)") && err.contains("already exists"),
        "{err}"
    );
    let (ok, _, err) = k.run(&["describe", "cronjob", "nope", "-n", ns]).await;
    assert!(!ok);
    assert!(
        err.contains("Error from server (NotFound)") && err.contains("\"nope\" not found"),
        "{err}"
    );
    s.cleanup().await;
}

/// Every newer kind kubectl has a typed describer for, applied from its realistic fixture and
/// described: kubectl's GET asks protobuf first, the server answers protobuf, and Go's generated
/// decoder (which knows the real field numbers and wire types) puts each value where `describe`
/// prints it. A wrong field number or wire type in a table shows up here as a decode error or a
/// value missing from the output. Cluster-scoped kinds only on the demo.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_describes_the_newer_kinds_decoded_from_protobuf() {
    let Some(s) = setup("kubectl_describes_the_newer_kinds_decoded_from_protobuf").await else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let cases: [(&str, &str, bool, &[&str]); 10] = [
        (
            "hpa",
            "horizontalpodautoscaler",
            true,
            &["Deployment/web", "Min replicas:", "Max replicas:", "70%"],
        ),
        (
            "networkpolicy",
            "networkpolicy",
            true,
            &["app=web", "8080", "10.0.0.0/8", "10.1.0.0/16", "UDP"],
        ),
        (
            "endpointslice",
            "endpointslice",
            true,
            &[
                "IPv4",
                "10.244.1.5",
                "10.244.2.7",
                "node-1",
                "eu-west-1a",
                "8080",
            ],
        ),
        (
            "resourcequota",
            "resourcequota",
            true,
            &["requests.memory", "8Gi", "pods"],
        ),
        (
            "limitrange",
            "limitrange",
            true,
            &[
                "Container",
                "500m",
                "128Mi",
                "PersistentVolumeClaim",
                "50Gi",
            ],
        ),
        (
            "pv",
            "persistentvolume",
            false,
            &[
                "ebs.csi.aws.com",
                "vol-0abc",
                "10Gi",
                "eu-west-1a",
                "standard",
            ],
        ),
        (
            "storageclass",
            "storageclass",
            false,
            &[
                "ebs.csi.aws.com",
                "type=gp3",
                "WaitForFirstConsumer",
                "eu-west-1b",
            ],
        ),
        (
            "priorityclass",
            "priorityclass",
            false,
            &["1000000", "PreemptLowerPriority", "front end"],
        ),
        (
            "clusterrole",
            "clusterrole",
            false,
            &["[/metrics]", "[/healthz]", "*.apps", "[get list watch]"],
        ),
        (
            "clusterrolebinding",
            "clusterrolebinding",
            false,
            &["system:monitoring", "ClusterRole"],
        ),
    ];
    for (fixture_name, kind, namespaced, wanted) in cases {
        if !namespaced && s.demo.is_none() {
            println!(
                "skipping cluster-scoped {kind}: demo-only (KINFORMER_TEST_KUBECONFIG is set)"
            );
            continue;
        }
        let mut obj = fixture(fixture_name);
        let status = obj.get("status").cloned();
        let name = format!("{}-{ns}", obj["metadata"]["name"].as_str().unwrap());
        let mut meta = serde_json::json!({"name": name});
        if namespaced {
            meta["namespace"] = serde_json::json!(ns);
        }
        obj["metadata"] = meta;
        k.apply_stdin(&obj.to_string()).await;
        if let (Some(st), "resourcequota") = (&status, fixture_name) {
            // A quota's describe prints its status, which its controller writes.
            let patch = serde_json::json!({"status": st}).to_string();
            k.ok(&[
                "patch",
                kind,
                &name,
                "-n",
                ns,
                "--subresource",
                "status",
                "--type",
                "merge",
                "-p",
                &patch,
            ])
            .await;
        }
        let args = if namespaced {
            vec!["describe", kind, &name, "-n", ns, "-v=8"]
        } else {
            vec!["describe", kind, &name, "-v=8"]
        };
        let (ok, out, log) = k.run(&args).await;
        assert!(ok, "kubectl describe {kind} failed: {log}");
        assert!(
            log.contains("Content-Type: application/vnd.kubernetes.protobuf"),
            "describe {kind} was not answered in protobuf"
        );
        for w in wanted {
            assert!(out.contains(w), "describe {kind}: {w:?} missing:\n{out}");
        }
        if !namespaced {
            k.ok(&["delete", kind, &name, "--wait=false"]).await;
        }
    }
    s.cleanup().await;
}

/// The fields the protobuf tables gained, through Go's generated code both ways: a CronJob whose
/// job template has failure and success policies and whose pod template has affinity, spread
/// constraints and a DNS config is served in protobuf to `kubectl create job --from=cronjob/`,
/// whose typed client decodes it and posts the new Job in protobuf; the Job read back has every
/// one of those fields (a wrong number or wire type in a table would be a decode error or a
/// value lost on the way). PersistentVolumes of in-tree sources (rbd, iscsi, azureDisk) are
/// described from protobuf with their values (cluster-scoped: demo only).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_round_trips_job_policies_pod_scheduling_and_in_tree_pv_sources_over_protobuf() {
    let Some(s) = setup(
        "kubectl_round_trips_job_policies_pod_scheduling_and_in_tree_pv_sources_over_protobuf",
    )
    .await
    else {
        return;
    };
    let k = &s.kubectl;
    let ns = s.ns.as_str();
    let job = fixture("job_indexed");
    let pod = fixture("pod_scheduling");
    let mut spec = job["spec"].clone();
    let Some(o) = spec.as_object_mut() else {
        panic!("a job spec")
    };
    // A real server generates the selector itself.
    o.remove("selector");
    o.remove("manualSelector");
    let mut affinity = pod["spec"]["affinity"].clone();
    // matchLabelKeys are merged into the selector when a pod is created; not compared here.
    if let Some(t) = affinity["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
        [0]
    .as_object_mut()
    {
        t.remove("matchLabelKeys");
    }
    let mut spread = pod["spec"]["topologySpreadConstraints"].clone();
    if let Some(t) = spread[0].as_object_mut() {
        t.remove("matchLabelKeys");
    }
    spec["template"]["spec"]["affinity"] = affinity;
    spec["template"]["spec"]["topologySpreadConstraints"] = spread;
    spec["template"]["spec"]["dnsConfig"] = pod["spec"]["dnsConfig"].clone();
    let cronjob = serde_json::json!({
        "apiVersion": "batch/v1", "kind": "CronJob",
        "metadata": {"name": "shards", "namespace": ns},
        "spec": {"schedule": "0 4 * * *", "suspend": true,
                 "jobTemplate": {"spec": spec.clone()}},
    });
    k.apply_stdin(&cronjob.to_string()).await;
    let (ok, _, log) = k
        .run(&[
            "create",
            "job",
            "shards-now",
            "--from=cronjob/shards",
            "-n",
            ns,
            "-v=8",
        ])
        .await;
    assert!(ok, "kubectl create job --from failed: {log}");
    assert!(
        log.contains("Content-Type: application/vnd.kubernetes.protobuf"),
        "the cronjob was not read in protobuf: {log}"
    );
    let got: serde_json::Value = serde_json::from_str(
        &k.ok(&["get", "job", "shards-now", "-n", ns, "-o", "json"])
            .await,
    )
    .unwrap();
    for field in [
        "completionMode",
        "backoffLimitPerIndex",
        "maxFailedIndexes",
        "podReplacementPolicy",
        "podFailurePolicy",
        "successPolicy",
        "parallelism",
        "completions",
    ] {
        assert_eq!(got["spec"][field], spec[field], "job spec.{field}");
    }
    for field in ["affinity", "topologySpreadConstraints", "dnsConfig"] {
        assert_eq!(
            got["spec"]["template"]["spec"][field], spec["template"]["spec"][field],
            "job template spec.{field}"
        );
    }
    let (ok, out, log) = k
        .run(&["describe", "job", "shards-now", "-n", ns, "-v=8"])
        .await;
    assert!(ok, "kubectl describe job failed: {log}");
    assert!(
        log.contains("Content-Type: application/vnd.kubernetes.protobuf"),
        "describe job was not answered in protobuf"
    );
    assert!(out.contains("Indexed"), "{out}");

    if s.demo.is_none() {
        println!(
            "skipping in-tree PV sources: cluster-scoped, demo-only (KINFORMER_TEST_KUBECONFIG is set)"
        );
    } else {
        let cases: [(&str, &[&str]); 3] = [
            (
                "pv_rbd",
                &[
                    "10.16.154.78:6789",
                    "kube-data-0",
                    "xfs",
                    "admin",
                    "ceph-secret",
                    "/etc/ceph/keyring",
                ],
            ),
            (
                "pv_iscsi",
                &[
                    "10.0.2.15:3260",
                    "iqn.2001-04.com.example:storage.kube.sys1.xyz",
                    "10.0.2.17:3260",
                    "chap-secret",
                    "iqn.1994-05.com.example:node-1",
                ],
            ),
            (
                "pv_azuredisk",
                &[
                    "pvc-disk-1",
                    "/subscriptions/sub/resourceGroups/rg",
                    "Managed",
                    "ReadOnly",
                ],
            ),
        ];
        for (name, wanted) in cases {
            let mut pv = fixture(name);
            let pv_name = format!("{}-{ns}", pv["metadata"]["name"].as_str().unwrap());
            pv["metadata"] = serde_json::json!({"name": pv_name});
            if let Some(sp) = pv["spec"].as_object_mut() {
                sp.remove("claimRef");
            }
            k.apply_stdin(&pv.to_string()).await;
            let (ok, out, log) = k.run(&["describe", "pv", &pv_name, "-v=8"]).await;
            assert!(ok, "kubectl describe pv {name} failed: {log}");
            assert!(
                log.contains("Content-Type: application/vnd.kubernetes.protobuf"),
                "describe pv {name} was not answered in protobuf"
            );
            for w in wanted {
                assert!(out.contains(w), "describe pv {name}: {w:?} missing:\n{out}");
            }
            k.ok(&["delete", "pv", &pv_name, "--wait=false"]).await;
        }
    }
    s.cleanup().await;
}
