//! The one place every write to the cluster goes through.
//!
//! A [`Write`] is an [`Operation`] on one object. The dashboard asks [`Write::check`] before it
//! offers the operation (`--readonly` refuses every write; an operation only applies to the kinds
//! kubectl applies it to), shows [`Write::prompt`] and waits for `y` when [`Operation::destructive`]
//! says so, then hands it to the runtime, which calls [`execute`]: one request with kubectl's
//! semantics, one log line (operation, object, result — never a header or token) and a
//! [`WriteOutcome`] with the server's answer for the footer. A refusal keeps the server's message,
//! and a 403 names the verb and resource that were refused.
//!
//! | operation | request (as kubectl sends it) |
//! | --- | --- |
//! | delete (`kubectl delete --cascade=...`) | `DELETE` with `propagationPolicy` |
//! | kill (`kubectl delete --grace-period=0 --force`) | `DELETE` with `gracePeriodSeconds: 0` |
//! | scale (`kubectl scale`) | merge `PATCH` of the `/scale` subresource |
//! | restart (`kubectl rollout restart`) | strategic-merge `PATCH` of `spec.template.metadata.annotations["kubectl.kubernetes.io/restartedAt"]` |
//! | cordon / uncordon | strategic-merge `PATCH` of `spec.unschedulable` (`true` / `null`) |
//! | evict (`kubectl drain`, per pod) | `POST .../pods/NAME/eviction` (policy/v1) |
//! | edit (`kubectl edit`, see [`crate::ui::edit`]) | `PUT` of the edited object with the resourceVersion it was read at |

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, DynamicObject, EvictParams, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::cluster::{ResourceInfo, one_line};

/// `propagationPolicy` of a delete (`kubectl delete --cascade=background|foreground|orphan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Propagation {
    /// Delete the owner now, its dependents in the background (kubectl's default).
    #[default]
    Background,
    /// Delete the dependents first, then the owner.
    Foreground,
    /// Leave the dependents, without owner.
    Orphan,
}

impl Propagation {
    pub const ALL: [Propagation; 3] = [
        Propagation::Background,
        Propagation::Foreground,
        Propagation::Orphan,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Propagation::Background => "Background",
            Propagation::Foreground => "Foreground",
            Propagation::Orphan => "Orphan",
        }
    }

    /// The next policy (a dialog cycles through them).
    pub fn next(self) -> Self {
        match self {
            Propagation::Background => Propagation::Foreground,
            Propagation::Foreground => Propagation::Orphan,
            Propagation::Orphan => Propagation::Background,
        }
    }

    fn policy(self) -> kube::api::PropagationPolicy {
        match self {
            Propagation::Background => kube::api::PropagationPolicy::Background,
            Propagation::Foreground => kube::api::PropagationPolicy::Foreground,
            Propagation::Orphan => kube::api::PropagationPolicy::Orphan,
        }
    }
}

/// One write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    Delete(Propagation),
    /// Delete a pod with grace period 0.
    Kill,
    Scale(u32),
    /// `kubectl rollout restart`: a new pod template, so a new rollout.
    Restart,
    Cordon,
    Uncordon,
    /// Evict a pod through the Eviction API (honours PodDisruptionBudgets).
    Evict,
    /// Replace the object with this edited one (`kubectl edit`): a `PUT` whose
    /// `metadata.resourceVersion` is the version the edit started from.
    Edit(Box<serde_json::Value>),
}

impl Operation {
    /// Short name for messages and the log (`delete`, `kill`, `scale`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Operation::Delete(_) => "delete",
            Operation::Kill => "kill",
            Operation::Scale(_) => "scale",
            Operation::Restart => "restart",
            Operation::Cordon => "cordon",
            Operation::Uncordon => "uncordon",
            Operation::Evict => "evict",
            Operation::Edit(_) => "edit",
        }
    }

    /// The operation for the log line: its parameters, never an edited object's content (a
    /// Secret's data must not reach the log).
    pub fn detail(&self) -> String {
        match self {
            Operation::Edit(_) => "Edit".to_string(),
            op => format!("{op:?}"),
        }
    }

    /// Destructive operations are confirmed before they are sent. Scale is confirmed by its own
    /// dialog (the user types the replica count), cordon/uncordon are undone by each other.
    pub fn destructive(&self) -> bool {
        matches!(
            self,
            Operation::Delete(_) | Operation::Kill | Operation::Restart | Operation::Evict
        )
    }

    /// Whether the operation applies to objects of `kind` (in `group`).
    pub fn applies_to(&self, group: &str, kind: &str) -> bool {
        match self {
            Operation::Delete(_) | Operation::Edit(_) => true,
            Operation::Kill | Operation::Evict => group.is_empty() && kind == "Pod",
            Operation::Scale(_) => {
                group == "apps" && matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet")
            }
            Operation::Restart => {
                group == "apps" && matches!(kind, "Deployment" | "StatefulSet" | "DaemonSet")
            }
            Operation::Cordon | Operation::Uncordon => group.is_empty() && kind == "Node",
        }
    }

    /// The RBAC verb and resource the request needs, as kubectl names them
    /// (`patch deployments.apps/scale`), for a 403's explanation.
    pub fn rbac(&self, resource: &ResourceInfo) -> String {
        let r = resource.display_name();
        match self {
            Operation::Delete(_) | Operation::Kill => format!("delete {r}"),
            Operation::Scale(_) => format!("patch {r}/scale"),
            Operation::Restart | Operation::Cordon | Operation::Uncordon => format!("patch {r}"),
            Operation::Evict => "create pods/eviction".to_string(),
            Operation::Edit(_) => format!("update {r}"),
        }
    }
}

/// An operation on one object.
#[derive(Debug, Clone, PartialEq)]
pub struct Write {
    pub resource: ResourceInfo,
    pub namespace: Option<String>,
    pub name: String,
    pub op: Operation,
    /// The fleet member the object is in (a merged table's row); the runtime sends the write
    /// to that member's connection. `None`: the current context.
    pub cluster: Option<String>,
}

/// What came of a write (shown inline, in the footer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteOutcome {
    pub message: String,
    pub error: bool,
}

impl Write {
    /// `deployment shop/web` or `node worker-1`.
    pub fn what(&self) -> String {
        let what = match &self.namespace {
            Some(ns) if self.resource.namespaced => {
                format!("{} {ns}/{}", self.resource.singular, self.name)
            }
            _ => format!("{} {}", self.resource.singular, self.name),
        };
        match &self.cluster {
            Some(c) => format!("{what} on {c}"),
            None => what,
        }
    }

    /// Why this write may not be offered, if it may not.
    pub fn check(&self, readonly: bool) -> Result<(), String> {
        if readonly {
            return Err(format!(
                "read-only mode: {} is disabled (started with --readonly)",
                self.op.name()
            ));
        }
        let ar = &self.resource.api_resource;
        if !self.op.applies_to(&ar.group, &ar.kind) {
            return Err(format!(
                "{} does not apply to a {}",
                self.op.name(),
                ar.kind
            ));
        }
        Ok(())
    }

    /// The question a confirmation dialog asks.
    pub fn prompt(&self) -> String {
        let what = self.what();
        match &self.op {
            Operation::Delete(p) => format!("Delete {what} (propagation {})?", p.as_str()),
            Operation::Kill => format!("Kill {what} now (grace period 0)?"),
            Operation::Scale(n) => format!("Scale {what} to {n} replicas?"),
            Operation::Restart => format!("Restart {what} (a new rollout of every pod)?"),
            Operation::Cordon => format!("Cordon {what} (no new pods scheduled)?"),
            Operation::Uncordon => format!("Uncordon {what}?"),
            Operation::Evict => format!("Evict {what} (honours its disruption budget)?"),
            Operation::Edit(_) => format!("Edit {what}?"),
        }
    }

    fn success(&self) -> String {
        let what = self.what();
        match &self.op {
            Operation::Delete(p) => format!("{what} deleted (propagation {})", p.as_str()),
            Operation::Kill => format!("{what} killed"),
            Operation::Scale(n) => format!("{what} scaled to {n}"),
            Operation::Restart => format!("{what} restarted"),
            Operation::Cordon => format!("{what} cordoned"),
            Operation::Uncordon => format!("{what} uncordoned"),
            Operation::Evict => format!("{what} evicted"),
            Operation::Edit(_) => format!("{what} edited"),
        }
    }

    /// The footer line for a failed request: the server's message, and for a 403 which verb on
    /// which resource was refused.
    pub fn failure(&self, e: &kube::Error) -> String {
        let head = format!("{} {}", self.op.name(), self.what());
        match e {
            kube::Error::Api(s) if s.code == 403 => format!(
                "{head}: forbidden ({}): {}",
                self.op.rbac(&self.resource),
                one_line(&s.message)
            ),
            kube::Error::Api(s) => format!("{head}: {} ({})", one_line(&s.message), s.reason),
            e => format!("{head}: {}", one_line(&e.to_string())),
        }
    }

    fn api(&self, client: kube::Client) -> Api<DynamicObject> {
        match &self.namespace {
            Some(ns) if self.resource.namespaced => {
                Api::namespaced_with(client, ns, &self.resource.api_resource)
            }
            _ => Api::all_with(client, &self.resource.api_resource),
        }
    }
}

/// The `kubectl rollout restart` patch at `now` (RFC 3339).
pub fn restart_patch(now: &str) -> serde_json::Value {
    json!({"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": now}}}}})
}

/// Send the write; log one line; report the server's answer.
pub async fn execute(client: kube::Client, w: &Write) -> WriteOutcome {
    execute_with_code(client, w).await.0
}

/// [`execute`], with the HTTP status code of the server's refusal (409 Conflict, 422 Invalid, ...)
/// when it refused.
pub async fn execute_with_code(client: kube::Client, w: &Write) -> (WriteOutcome, Option<u16>) {
    let result = send(client, w).await;
    let outcome = match &result {
        Ok(()) => WriteOutcome {
            message: w.success(),
            error: false,
        },
        Err(e) => WriteOutcome {
            message: w.failure(e),
            error: true,
        },
    };
    let ar = &w.resource.api_resource;
    tracing::info!(
        target: "kinformer::write",
        op = w.op.name(),
        detail = %w.op.detail(),
        resource = %ar.plural,
        group = %ar.group,
        namespace = w.namespace.as_deref().unwrap_or(""),
        name = %w.name,
        ok = !outcome.error,
        result = %outcome.message,
        "write"
    );
    let code = match &result {
        Err(kube::Error::Api(s)) => Some(s.code),
        _ => None,
    };
    (outcome, code)
}

async fn send(client: kube::Client, w: &Write) -> Result<(), kube::Error> {
    let api = w.api(client.clone());
    let pp = PatchParams::default();
    match &w.op {
        Operation::Delete(p) => {
            let dp = DeleteParams {
                propagation_policy: Some(p.policy()),
                ..DeleteParams::default()
            };
            api.delete(&w.name, &dp).await.map(drop)
        }
        Operation::Kill => api
            .delete(&w.name, &DeleteParams::default().grace_period(0))
            .await
            .map(drop),
        Operation::Scale(n) => api
            .patch_scale(
                &w.name,
                &pp,
                &Patch::Merge(json!({"spec": {"replicas": n}})),
            )
            .await
            .map(drop),
        Operation::Restart => {
            let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
            api.patch(&w.name, &pp, &Patch::Strategic(restart_patch(&now)))
                .await
                .map(drop)
        }
        Operation::Cordon | Operation::Uncordon => {
            let v = if w.op == Operation::Cordon {
                json!(true)
            } else {
                serde_json::Value::Null
            };
            api.patch(
                &w.name,
                &pp,
                &Patch::Strategic(json!({"spec": {"unschedulable": v}})),
            )
            .await
            .map(drop)
        }
        Operation::Evict => {
            let ns = w.namespace.as_deref().unwrap_or("default");
            let pods: Api<Pod> = Api::namespaced(client, ns);
            pods.evict(&w.name, &EvictParams::default()).await.map(drop)
        }
        Operation::Edit(obj) => {
            let obj: DynamicObject =
                serde_json::from_value((**obj).clone()).map_err(kube::Error::SerdeError)?;
            api.replace(&w.name, &PostParams::default(), &obj)
                .await
                .map(drop)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;

    fn info(group: &str, plural: &str, kind: &str, namespaced: bool) -> ResourceInfo {
        let r = APIResource {
            name: plural.into(),
            kind: kind.into(),
            namespaced,
            singular_name: kind.to_lowercase(),
            verbs: ["get", "list", "watch", "patch", "delete"]
                .map(String::from)
                .to_vec(),
            ..APIResource::default()
        };
        ResourceInfo::from_api_resource(group, "v1", &r).unwrap()
    }

    fn write(op: Operation) -> Write {
        Write {
            resource: info("apps", "deployments", "Deployment", true),
            namespace: Some("shop".into()),
            name: "web".into(),
            op,
            cluster: None,
        }
    }

    #[test]
    fn readonly_refuses_every_operation() {
        for op in [
            Operation::Delete(Propagation::Orphan),
            Operation::Kill,
            Operation::Scale(2),
            Operation::Restart,
            Operation::Cordon,
            Operation::Uncordon,
            Operation::Evict,
            Operation::Edit(Box::default()),
        ] {
            let name = op.name();
            let err = write(op).check(true).unwrap_err();
            assert_eq!(
                err,
                format!("read-only mode: {name} is disabled (started with --readonly)")
            );
        }
    }

    #[test]
    fn operations_apply_to_the_kinds_kubectl_applies_them_to() {
        assert!(write(Operation::Scale(1)).check(false).is_ok());
        assert!(write(Operation::Restart).check(false).is_ok());
        assert_eq!(
            write(Operation::Cordon).check(false).unwrap_err(),
            "cordon does not apply to a Deployment"
        );
        assert!(Operation::Restart.applies_to("apps", "DaemonSet"));
        assert!(!Operation::Scale(1).applies_to("apps", "DaemonSet"));
        assert!(Operation::Kill.applies_to("", "Pod"));
        assert!(!Operation::Kill.applies_to("apps", "Deployment"));
        assert!(Operation::Uncordon.applies_to("", "Node"));
        assert!(Operation::Delete(Propagation::Background).applies_to("x.io", "Widget"));
    }

    #[test]
    fn destructive_operations_are_confirmed_with_a_prompt_naming_the_object() {
        assert!(Operation::Kill.destructive());
        assert!(Operation::Delete(Propagation::Foreground).destructive());
        assert!(!Operation::Cordon.destructive());
        assert_eq!(
            write(Operation::Delete(Propagation::Orphan)).prompt(),
            "Delete deployment shop/web (propagation Orphan)?"
        );
        assert_eq!(Propagation::Orphan.next(), Propagation::Background);
    }

    #[test]
    fn a_403_names_the_verb_and_resource_refused() {
        let status =
            kube::core::Status::failure("deployments.apps \"web\" is forbidden", "Forbidden")
                .with_code(403);
        let e = kube::Error::Api(Box::new(status));
        assert_eq!(
            write(Operation::Scale(3)).failure(&e),
            "scale deployment shop/web: forbidden (patch deployments.apps/scale): deployments.apps \"web\" is forbidden"
        );
    }

    #[test]
    fn the_restart_patch_is_kubectls() {
        assert_eq!(
            restart_patch("2026-01-01T00:00:00Z"),
            json!({"spec": {"template": {"metadata": {"annotations": {
                "kubectl.kubernetes.io/restartedAt": "2026-01-01T00:00:00Z"}}}}})
        );
    }
}
