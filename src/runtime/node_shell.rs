//! k9s's node shell, run with the terminal (see [`crate::ui::node_shell`] for the pod): create
//! the pod, wait until it runs, exec `nsenter` into PID 1's namespaces with the terminal attached,
//! and delete the pod when the shell exits (also when it never ran). Each write is logged as one
//! line; the footer gets the outcome.

use std::io::Write as _;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{DeleteParams, PostParams};

use super::*;
use crate::ui::node_shell::{CONTAINER, NSENTER};

/// How often the pod is asked whether it runs, and for how long at most.
const POLL: Duration = Duration::from_millis(500);
const START_TIMEOUT: Duration = Duration::from_secs(90);

fn say(text: &str) {
    let mut o = std::io::stdout();
    let _ = write!(o, "\r\nkinformer: {text}\r\n");
    let _ = o.flush();
}

/// The node shell on `node`; returns the footer line.
pub(super) async fn run(
    client: kube::Client,
    node: &str,
    namespace: &str,
    name: &str,
    pod: serde_json::Value,
) -> (String, bool) {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    let pod: Pod = match serde_json::from_value(pod) {
        Ok(p) => p,
        Err(e) => return (format!("node shell on {node}: {e}"), true),
    };
    let created = pods.create(&PostParams::default(), &pod).await;
    tracing::info!(target: "kinformer::write", op = "create", namespace, name, node, result = ?created.as_ref().map(|_| "created").map_err(|e| e.to_string()), "write");
    if let Err(e) = created {
        return (
            format!("node shell on {node}: {}", one_line(&e.to_string())),
            true,
        );
    }
    say(&format!(
        "starting the shell pod {namespace}/{name} on node {node}…"
    ));
    let outcome = match wait_running(&pods, name).await {
        Ok(()) => {
            shell::run_command_in_terminal(client, namespace, name, Some(CONTAINER), &NSENTER).await
        }
        Err(e) => (format!("node shell on {node}: {e}"), true),
    };
    // "node shell on NODE exited", not the pod's long name twice in one footer line.
    let outcome = (
        outcome.0.replacen(
            &format!("shell in {namespace}/{name} ({CONTAINER})"),
            &format!("node shell on {node}"),
            1,
        ),
        outcome.1,
    );
    let deleted = pods
        .delete(
            name,
            &DeleteParams {
                grace_period_seconds: Some(0),
                ..DeleteParams::default()
            },
        )
        .await;
    tracing::info!(target: "kinformer::write", op = "delete", namespace, name, result = ?deleted.as_ref().map(|_| "deleted").map_err(|e| e.to_string()), "write");
    match deleted {
        Ok(_) => (
            format!("{}; pod {namespace}/{name} deleted", outcome.0),
            outcome.1,
        ),
        Err(e) => (
            format!(
                "{}; deleting pod {namespace}/{name} failed: {}",
                outcome.0,
                one_line(&e.to_string())
            ),
            true,
        ),
    }
}

/// Until the pod runs (an error when it ends first or does not start in time).
async fn wait_running(pods: &Api<Pod>, name: &str) -> Result<(), String> {
    let deadline = tokio::time::Instant::now() + START_TIMEOUT;
    loop {
        let phase = pods
            .get(name)
            .await
            .ok()
            .and_then(|p| p.status)
            .and_then(|s| s.phase);
        match phase.as_deref() {
            Some("Running") => return Ok(()),
            Some(p @ ("Succeeded" | "Failed")) => {
                return Err(format!(
                    "the shell pod ended ({p}) before the shell started"
                ));
            }
            _ => {}
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(format!(
                "the shell pod did not start within {}s",
                START_TIMEOUT.as_secs()
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}
