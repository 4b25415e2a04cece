//! The one place every write to the cluster goes through.
//!
//! A [`Write`] is an [`Operation`] on one object. The dashboard asks [`Write::check`] before it
//! offers the operation (`--readonly` refuses every write; an operation only applies to the kinds
//! kubectl applies it to), shows [`Write::prompt`] and waits for `y` when [`Operation::destructive`]
//! says so, then hands it to the runtime, which calls `crate::runtime::operate::execute`: one
//! request with kubectl's semantics, one log line (operation, object, result — never a header or
//! token) and a [`WriteOutcome`] with the server's answer for the footer. A refusal keeps the server's message,
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
//! | edit (`kubectl edit`, see `crate::runtime::edit`) | `PUT` of the edited object with the resourceVersion it was read at |
//! | trigger (`kubectl create job NAME --from=cronjob/CJ`) | `GET` of the CronJob, `POST` of a Job made from its `jobTemplate` ([`job_from_cronjob`]) |
//! | suspend / resume (`kubectl patch cronjob CJ -p '{"spec":{"suspend":true}}'`) | strategic-merge `PATCH` of `spec.suspend` |
//! | set image (`kubectl set image KIND/NAME CONTAINER=IMAGE`) | strategic-merge `PATCH` of the one container's `image`, merged by `name` ([`set_image_patch`]) |
//! | apply (`kubectl apply --server-side --field-manager=kinformer [--dry-run=server] [--force-conflicts]`, see [`crate::ui::apply`]) | `PATCH` with `application/apply-patch+yaml`, `fieldManager=kinformer`, `dryRun=All` for the dry run, `force=true` once confirmed over a conflict |

use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use serde_json::json;

use crate::cluster::ResourceInfo;

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
    /// Run a CronJob now: a Job made from its job template, as `kubectl create job --from`.
    Trigger,
    /// Set a CronJob's `spec.suspend` (`true`: no further runs are scheduled; `false`: resume).
    Suspend(bool),
    /// Set one container's image (`kubectl set image`): of the pod, or of the pod template.
    SetImage(ContainerImage),
    /// Server-side apply of this object (`kubectl apply --server-side`), created when missing.
    Apply(Box<Applied>),
}

/// A server-side apply's object and parameters.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Applied {
    pub object: serde_json::Value,
    /// Take the fields other managers own (`force=true`), after the user confirmed it.
    pub force: bool,
    /// `dryRun=All`: the server answers what it would store, and stores nothing.
    pub dry_run: bool,
}

/// A container of a pod or of a pod template, and its image.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ContainerImage {
    pub name: String,
    pub image: String,
    /// An init container (`initContainers`).
    pub init: bool,
}

/// Where `kind`'s pod spec is: the pod's own, a CronJob's job template's, else the template's.
fn pod_spec_path(kind: &str) -> &'static [&'static str] {
    match kind {
        "Pod" => &["spec"],
        "CronJob" => &["spec", "jobTemplate", "spec", "template", "spec"],
        _ => &["spec", "template", "spec"],
    }
}

/// The containers (init containers first, as a pod starts them) of an object of `kind`.
pub fn container_images(kind: &str, obj: &serde_json::Value) -> Vec<ContainerImage> {
    let mut spec = obj;
    for key in pod_spec_path(kind) {
        match spec.get(key) {
            Some(v) => spec = v,
            None => return Vec::new(),
        }
    }
    let mut out = Vec::new();
    for (list, init) in [("initContainers", true), ("containers", false)] {
        for c in spec
            .get(list)
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            let field = |k: &str| {
                c.get(k)
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            out.push(ContainerImage {
                name: field("name"),
                image: field("image"),
                init,
            });
        }
    }
    out
}

/// The strategic-merge patch `kubectl set image` sends for one container: the container list
/// merged by `name`, so the other containers and the container's other fields stay.
pub fn set_image_patch(kind: &str, c: &ContainerImage) -> serde_json::Value {
    let list = if c.init {
        "initContainers"
    } else {
        "containers"
    };
    let mut v = json!({ list: [{"name": c.name, "image": c.image}] });
    for key in pod_spec_path(kind).iter().rev() {
        v = json!({ *key: v });
    }
    v
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
            Operation::Trigger => "trigger",
            Operation::Suspend(true) => "suspend",
            Operation::Suspend(false) => "resume",
            Operation::SetImage(_) => "set image",
            Operation::Apply(a) if a.dry_run => "dry-run apply",
            Operation::Apply(_) => "apply",
        }
    }

    /// The operation for the log line: its parameters, never an edited object's content (a
    /// Secret's data must not reach the log).
    pub fn detail(&self) -> String {
        match self {
            Operation::Edit(_) => "Edit".to_string(),
            Operation::Apply(a) => {
                format!("Apply {{ force: {}, dry_run: {} }}", a.force, a.dry_run)
            }
            op => format!("{op:?}"),
        }
    }

    /// The operations confirmed before they are sent: the destructive ones, and those k9s
    /// confirms (cordon, uncordon, a CronJob's trigger, suspend and resume: k9s
    /// `internal/view/node.go`, `cronjob.go`). Scale is confirmed by its own dialog (the user
    /// types the replica count), an edit by the user saving the file.
    pub fn destructive(&self) -> bool {
        matches!(
            self,
            Operation::Delete(_)
                | Operation::Kill
                | Operation::Restart
                | Operation::Evict
                | Operation::Trigger
                | Operation::Cordon
                | Operation::Uncordon
                | Operation::Suspend(_)
        )
    }

    /// Whether the operation applies to objects of `kind` (in `group`).
    pub fn applies_to(&self, group: &str, kind: &str) -> bool {
        match self {
            Operation::Delete(_) | Operation::Edit(_) | Operation::Apply(_) => true,
            Operation::Kill | Operation::Evict => group.is_empty() && kind == "Pod",
            Operation::Scale(_) => {
                group == "apps" && matches!(kind, "Deployment" | "StatefulSet" | "ReplicaSet")
            }
            Operation::Restart => {
                group == "apps" && matches!(kind, "Deployment" | "StatefulSet" | "DaemonSet")
            }
            Operation::Cordon | Operation::Uncordon => group.is_empty() && kind == "Node",
            Operation::Trigger | Operation::Suspend(_) => group == "batch" && kind == "CronJob",
            Operation::SetImage(_) => matches!(
                (group, kind),
                ("", "Pod")
                    | (
                        "apps",
                        "Deployment" | "StatefulSet" | "DaemonSet" | "ReplicaSet"
                    )
                    | ("batch", "CronJob")
            ),
        }
    }

    /// The RBAC verb and resource the request needs, as kubectl names them
    /// (`patch deployments.apps/scale`), for a 403's explanation.
    pub fn rbac(&self, resource: &ResourceInfo) -> String {
        let r = resource.display_name();
        match self {
            Operation::Delete(_) | Operation::Kill => format!("delete {r}"),
            Operation::Scale(_) => format!("patch {r}/scale"),
            Operation::Restart
            | Operation::Cordon
            | Operation::Uncordon
            | Operation::Suspend(_)
            | Operation::SetImage(_) => format!("patch {r}"),
            Operation::Evict => "create pods/eviction".to_string(),
            Operation::Edit(_) => format!("update {r}"),
            Operation::Apply(_) => format!("patch {r}"),
            Operation::Trigger => format!("get {r}, create jobs.batch"),
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

/// Why every write is refused in `kinformer replay` (there is no cluster).
pub const REPLAY_READ_ONLY: &str = "replay: read-only";

/// The footer's refusal of `what` (an operation's name) in read-only mode, and why.
pub fn readonly_refusal(what: &str, why: &str) -> String {
    if why == REPLAY_READ_ONLY {
        return format!("{why}: {what} is disabled");
    }
    format!("read-only mode: {what} is disabled ({why})")
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

    /// Why this write may not be offered, if it may not. `readonly`: why writes are refused
    /// here (`started with --readonly`, a k9s `readOnly` setting), if they are.
    pub fn check(&self, readonly: Option<String>) -> Result<(), String> {
        if let Some(why) = readonly {
            return Err(readonly_refusal(self.op.name(), &why));
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
            Operation::Trigger => format!("Trigger {what} (create a Job from its template now)?"),
            Operation::Suspend(true) => format!("Suspend {what} (no further runs scheduled)?"),
            Operation::Suspend(false) => format!("Resume {what}?"),
            Operation::SetImage(c) => {
                format!("Set the image of {what}'s {} to {}?", c.name, c.image)
            }
            Operation::Apply(a) if a.force => {
                format!("Apply {what}, taking the conflicting fields from their managers?")
            }
            Operation::Apply(_) => format!("Apply {what}?"),
        }
    }

    /// The footer line for a request the server accepted; `made`: what it created, when it
    /// created something (a triggered CronJob's Job).
    pub fn success(&self, made: Option<&str>) -> String {
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
            Operation::Trigger => match made {
                Some(job) => format!("{what} triggered: job {job} created"),
                None => format!("{what} triggered"),
            },
            Operation::Suspend(true) => format!("{what} suspended"),
            Operation::Suspend(false) => format!("{what} resumed"),
            Operation::SetImage(c) => {
                format!("{what}: container {} image set to {}", c.name, c.image)
            }
            Operation::Apply(a) if a.dry_run => format!("{what}: dry run passed"),
            Operation::Apply(a) if a.force => format!("{what} applied (forced)"),
            Operation::Apply(_) => format!("{what} applied"),
        }
    }
}

/// The Job `kubectl create job NAME --from=cronjob/CJ` makes: the job template's spec, labels
/// and annotations (with `cronjob.kubernetes.io/instantiate: manual`, which the template's own
/// annotations may override, as in kubectl), owned by the CronJob.
pub fn job_from_cronjob(cronjob: &CronJob, name: &str) -> Job {
    let template = cronjob.spec.as_ref().map(|s| &s.job_template);
    let meta = template.and_then(|t| t.metadata.as_ref());
    let mut annotations = std::collections::BTreeMap::new();
    annotations.insert(
        "cronjob.kubernetes.io/instantiate".to_string(),
        "manual".to_string(),
    );
    if let Some(a) = meta.and_then(|m| m.annotations.as_ref()) {
        annotations.extend(a.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    Job {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            namespace: cronjob.metadata.namespace.clone(),
            annotations: Some(annotations),
            labels: meta.and_then(|m| m.labels.clone()),
            owner_references: Some(vec![OwnerReference {
                api_version: "batch/v1".into(),
                kind: "CronJob".into(),
                name: cronjob.metadata.name.clone().unwrap_or_default(),
                uid: cronjob.metadata.uid.clone().unwrap_or_default(),
                ..OwnerReference::default()
            }]),
            ..ObjectMeta::default()
        },
        spec: template.and_then(|t| t.spec.clone()),
        status: None,
    }
}

/// The name of a Job triggered by hand: `CRONJOB-manual-xyz`, three random characters from
/// apimachinery's `rand.String` alphabet (no vowels, no look-alikes). A CronJob's name is at
/// most 52 characters, so the Job's stays within the 63 its pods' `job-name` label allows.
pub fn manual_job_name(cronjob: &str, random: u32) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut suffix = String::with_capacity(3);
    let mut r = random;
    for _ in 0..3 {
        suffix.push(char::from(ALPHABET[(r % ALPHABET.len() as u32) as usize]));
        r /= ALPHABET.len() as u32;
    }
    let base: String = cronjob.chars().take(52).collect();
    format!("{base}-manual-{suffix}")
}

/// The `kubectl rollout restart` patch at `now` (RFC 3339).
pub fn restart_patch(now: &str) -> serde_json::Value {
    json!({"spec": {"template": {"metadata": {"annotations": {
        "kubectl.kubernetes.io/restartedAt": now}}}}})
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
            Operation::Trigger,
            Operation::Suspend(true),
            Operation::Suspend(false),
            Operation::SetImage(ContainerImage::default()),
            Operation::Apply(Box::default()),
        ] {
            let name = op.name();
            let err = write(op)
                .check(Some("started with --readonly".into()))
                .unwrap_err();
            assert_eq!(
                err,
                format!("read-only mode: {name} is disabled (started with --readonly)")
            );
        }
    }

    #[test]
    fn operations_apply_to_the_kinds_kubectl_applies_them_to() {
        assert!(write(Operation::Scale(1)).check(None).is_ok());
        assert!(write(Operation::Restart).check(None).is_ok());
        assert_eq!(
            write(Operation::Cordon).check(None).unwrap_err(),
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
    fn the_writes_k9s_confirms_are_confirmed() {
        for op in [
            Operation::Cordon,
            Operation::Uncordon,
            Operation::Trigger,
            Operation::Suspend(true),
            Operation::Suspend(false),
        ] {
            assert!(op.destructive(), "{op:?}");
        }
    }

    #[test]
    fn destructive_operations_are_confirmed_with_a_prompt_naming_the_object() {
        assert!(Operation::Kill.destructive());
        assert!(Operation::Delete(Propagation::Foreground).destructive());
        assert!(!Operation::Scale(1).destructive());
        assert_eq!(
            write(Operation::Delete(Propagation::Orphan)).prompt(),
            "Delete deployment shop/web (propagation Orphan)?"
        );
        assert_eq!(Propagation::Orphan.next(), Propagation::Background);
    }

    #[test]
    fn cronjob_operations_apply_to_cronjobs_only_and_are_confirmed() {
        assert!(Operation::Trigger.applies_to("batch", "CronJob"));
        assert!(Operation::Suspend(true).applies_to("batch", "CronJob"));
        assert!(!Operation::Trigger.applies_to("batch", "Job"));
        assert!(!Operation::Suspend(false).applies_to("apps", "Deployment"));
        assert!(Operation::Trigger.destructive());
        assert!(Operation::Suspend(true).destructive());
        let w = Write {
            resource: info("batch", "cronjobs", "CronJob", true),
            namespace: Some("shop".into()),
            name: "report".into(),
            op: Operation::Trigger,
            cluster: None,
        };
        assert_eq!(
            w.prompt(),
            "Trigger cronjob shop/report (create a Job from its template now)?"
        );
        assert_eq!(
            w.success(Some("shop/report-manual-x7k")),
            "cronjob shop/report triggered: job shop/report-manual-x7k created"
        );
        assert_eq!(
            Operation::Trigger.rbac(&w.resource),
            "get cronjobs.batch, create jobs.batch"
        );
    }

    #[test]
    fn a_triggered_job_is_kubectls_job_from_the_cronjob_template() {
        let cj: CronJob = serde_json::from_value(json!({
            "metadata": {"name": "report", "namespace": "shop", "uid": "u-1",
                         "labels": {"owner": "cj-only"}},
            "spec": {"schedule": "0 3 * * *", "jobTemplate": {
                "metadata": {"labels": {"app": "report"},
                             "annotations": {"team": "billing",
                                             "cronjob.kubernetes.io/instantiate": "template"}},
                "spec": {"backoffLimit": 2, "template": {"spec": {"restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}]}}}}}
        }))
        .unwrap();
        let job = serde_json::to_value(job_from_cronjob(&cj, "report-manual-x7k")).unwrap();
        assert_eq!(
            job,
            json!({
                "apiVersion": "batch/v1",
                "kind": "Job",
                "metadata": {
                    "name": "report-manual-x7k",
                    "namespace": "shop",
                    // kubectl sets `manual` first, and the template's annotations overwrite it.
                    "annotations": {"cronjob.kubernetes.io/instantiate": "template",
                                    "team": "billing"},
                    "labels": {"app": "report"},
                    "ownerReferences": [{"apiVersion": "batch/v1", "kind": "CronJob",
                                         "name": "report", "uid": "u-1"}]
                },
                "spec": {"backoffLimit": 2, "template": {"spec": {"restartPolicy": "Never",
                    "containers": [{"name": "c", "image": "busybox"}]}}}
            })
        );
    }

    #[test]
    fn manual_job_names_fit_the_job_name_label() {
        assert_eq!(manual_job_name("report", 0), "report-manual-bbb");
        let n = manual_job_name(&"x".repeat(60), u32::MAX);
        assert_eq!(n.len(), 63, "{n}");
        assert!(n.starts_with(&"x".repeat(52)));
        assert_ne!(manual_job_name("r", 1), manual_job_name("r", 2));
    }

    #[test]
    fn container_images_are_read_where_each_kind_keeps_its_pod_spec() {
        let spec = json!({"initContainers": [{"name": "init", "image": "busybox"}],
                          "containers": [{"name": "web", "image": "web:1"},
                                         {"name": "proxy", "image": "envoy:2"}]});
        let img = |name: &str, image: &str, init: bool| ContainerImage {
            name: name.into(),
            image: image.into(),
            init,
        };
        let all = vec![
            img("init", "busybox", true),
            img("web", "web:1", false),
            img("proxy", "envoy:2", false),
        ];
        assert_eq!(container_images("Pod", &json!({"spec": spec})), all);
        assert_eq!(
            container_images("Deployment", &json!({"spec": {"template": {"spec": spec}}})),
            all
        );
        assert_eq!(
            container_images(
                "CronJob",
                &json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": spec}}}}})
            ),
            all
        );
        assert!(container_images("Deployment", &json!({"spec": {}})).is_empty());
    }

    #[test]
    fn the_set_image_patch_is_kubectls_merged_by_container_name() {
        let c = ContainerImage {
            name: "web".into(),
            image: "web:2".into(),
            init: false,
        };
        assert_eq!(
            set_image_patch("Deployment", &c),
            json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "web:2"}]}}}})
        );
        assert_eq!(
            set_image_patch(
                "Pod",
                &ContainerImage {
                    init: true,
                    ..c.clone()
                }
            ),
            json!({"spec": {"initContainers": [{"name": "web", "image": "web:2"}]}})
        );
        assert_eq!(
            set_image_patch("CronJob", &c),
            json!({"spec": {"jobTemplate": {"spec": {"template": {"spec":
                {"containers": [{"name": "web", "image": "web:2"}]}}}}}})
        );
        let op = Operation::SetImage(c);
        assert!(op.applies_to("apps", "StatefulSet") && op.applies_to("", "Pod"));
        assert!(!op.applies_to("batch", "Job") && !op.applies_to("", "Node"));
        assert!(!op.destructive());
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
