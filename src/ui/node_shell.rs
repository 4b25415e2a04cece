//! `s` on a node, as k9s's node shell (only where the context's `config.yaml` sets
//! `k9s.featureGates.nodeShell: true`, k9s's opt-in; else the footer says how): a pod of k9s's `shellPod` image (busybox unless the
//! user's `config.yaml` says) pinned to the node, privileged, in the host's PID and network
//! namespaces, with the host's `/` at `/host`; the shell enters PID 1's namespaces with
//! `nsenter`, and the pod is deleted when the shell exits (the runtime does both).
//!
//! The pod is k9s's (`internal/view/exec.go` `k9sShellPod`): same security context, volumes,
//! tolerance of no restarts and zero grace period; its name is `kinformer-shell-<node>-<n>`
//! instead of `k9s-shell-<pid>` (the UI has no process id, and the node in the name tells an
//! operator whose pod it is).

use serde_json::{Value, json};

use crate::config::ShellPod;

/// The footer line when the context's feature gate is off (k9s offers no node shell then):
/// how to turn it on, in the context's `config.yaml` (`file`, when the context is known).
pub fn gate_off_message(file: Option<&std::path::Path>) -> String {
    let file = file.map_or_else(
        || "the context's clusters/<cluster>/<context>/config.yaml".to_string(),
        |p| p.display().to_string(),
    );
    format!(
        "node shell is off for this context, as in k9s: set k9s.featureGates.nodeShell: true in {file}"
    )
}

/// The container's name.
pub const CONTAINER: &str = "kinformer-shell";

/// What the shell runs in the pod: a shell in the namespaces of the node's PID 1.
pub const NSENTER: [&str; 10] = [
    "nsenter", "-t", "1", "-m", "-u", "-i", "-n", "-p", "--", "sh",
];

/// The shell pod's name for `node` (`n` tells two shells apart).
pub fn pod_name(node: &str, n: i64) -> String {
    // A pod name is a DNS subdomain: at most 253 characters.
    let node: String = node.chars().take(200).collect();
    format!("kinformer-shell-{node}-{}", n.rem_euclid(100_000))
}

/// The shell pod for `node`, as k9s builds it from its `shellPod` settings.
pub fn shell_pod(node: &str, name: &str, cfg: &ShellPod) -> Value {
    let limits: serde_json::Map<String, Value> = cfg
        .limits
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
        .collect();
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": cfg.namespace,
            "labels": {"app.kubernetes.io/managed-by": "kinformer", "kinformer.io/node-shell": "true"},
        },
        "spec": {
            "nodeName": node,
            "restartPolicy": "Never",
            "hostPID": true,
            "hostNetwork": true,
            "terminationGracePeriodSeconds": 0,
            "tolerations": [{"operator": "Exists"}],
            "volumes": [{"name": "root-vol", "hostPath": {"path": "/"}}],
            "containers": [{
                "name": CONTAINER,
                "image": cfg.image,
                // Kept alive for the exec (busybox's sh would exit at once without a terminal).
                "command": ["sleep", "86400"],
                "stdin": true,
                "tty": true,
                "securityContext": {"privileged": true},
                "resources": {"limits": limits},
                "volumeMounts": [{"name": "root-vol", "mountPath": "/host", "readOnly": true}],
            }],
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shell_pod_is_k9ss_privileged_host_pid_pod_on_the_node() {
        let cfg = ShellPod::default();
        let name = pod_name("worker-1", 1_234_567);
        assert_eq!(name, "kinformer-shell-worker-1-34567");
        let p = shell_pod("worker-1", &name, &cfg);
        assert_eq!(p["metadata"]["namespace"], "default");
        assert_eq!(p["spec"]["nodeName"], "worker-1");
        assert_eq!(p["spec"]["hostPID"], true);
        assert_eq!(p["spec"]["hostNetwork"], true);
        assert_eq!(p["spec"]["restartPolicy"], "Never");
        assert_eq!(p["spec"]["terminationGracePeriodSeconds"], 0);
        let c = &p["spec"]["containers"][0];
        assert_eq!(c["image"], "busybox:1.35.0");
        assert_eq!(c["securityContext"]["privileged"], true);
        assert_eq!(c["resources"]["limits"]["cpu"], "100m");
        assert_eq!(c["volumeMounts"][0]["mountPath"], "/host");
        assert_eq!(p["spec"]["volumes"][0]["hostPath"]["path"], "/");
        // A valid Pod for the typed client.
        let typed: k8s_openapi::api::core::v1::Pod = serde_json::from_value(p).unwrap();
        assert_eq!(typed.spec.unwrap().host_pid, Some(true));
    }

    #[test]
    fn the_shell_pod_takes_the_k9s_shell_pod_settings() {
        let cfg = ShellPod {
            image: "alpine:3.20".into(),
            namespace: "ops".into(),
            limits: [("memory".to_string(), "64Mi".to_string())].into(),
        };
        let p = shell_pod("n", "x", &cfg);
        assert_eq!(p["metadata"]["namespace"], "ops");
        assert_eq!(p["spec"]["containers"][0]["image"], "alpine:3.20");
        assert_eq!(
            p["spec"]["containers"][0]["resources"]["limits"],
            json!({"memory": "64Mi"})
        );
    }

    #[test]
    fn the_shell_enters_pid_1s_namespaces() {
        assert_eq!(&NSENTER[..3], ["nsenter", "-t", "1"]);
        assert_eq!(NSENTER.last(), Some(&"sh"));
    }
}
