//! Carrying out a [`Write`] (the runtime's half of the one write path; what a write is, its
//! checks and prompts are [`crate::ui::operate`]): one request with kubectl's semantics, one log
//! line (operation, object, result — never a header or token) and a [`WriteOutcome`] with the
//! server's answer for the footer. A refusal keeps the server's message, and a 403 names the verb
//! and resource that were refused. Every write names kinformer as its field manager
//! ([`FIELD_MANAGER`]), as kubectl names itself `kubectl-scale`, `kubectl-edit`..., so the
//! object's `managedFields` (and `b`, and the writers history names) say who made the change;
//! without one the API server would take the User-Agent's product.

use k8s_openapi::api::batch::v1::{CronJob, Job};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, DynamicObject, EvictParams, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::cluster::one_line;
use crate::ui::operate::{
    Applied, ContainerImage, Operation, Propagation, Write, WriteOutcome, container_images,
    job_from_cronjob, manual_job_name, restart_patch, set_image_patch,
};

/// The field manager kinformer's writes name (`?fieldManager=`).
pub const FIELD_MANAGER: &str = "kinformer";

/// Patch options naming kinformer as the field manager.
pub fn patch_params() -> PatchParams {
    PatchParams {
        field_manager: Some(FIELD_MANAGER.into()),
        ..PatchParams::default()
    }
}

/// Create and update options naming kinformer as the field manager.
pub fn post_params() -> PostParams {
    PostParams {
        field_manager: Some(FIELD_MANAGER.into()),
        ..PostParams::default()
    }
}

/// Eviction options naming kinformer as the field manager.
pub fn evict_params() -> EvictParams {
    EvictParams {
        post_options: post_params(),
        ..EvictParams::default()
    }
}

fn policy(p: Propagation) -> kube::api::PropagationPolicy {
    match p {
        Propagation::Background => kube::api::PropagationPolicy::Background,
        Propagation::Foreground => kube::api::PropagationPolicy::Foreground,
        Propagation::Orphan => kube::api::PropagationPolicy::Orphan,
    }
}

/// The footer line for a failed request: the server's message, and for a 403 which verb on
/// which resource was refused.
pub fn failure(w: &Write, e: &kube::Error) -> String {
    let head = format!("{} {}", w.op.name(), w.what());
    match e {
        kube::Error::Api(s) if s.code == 403 => format!(
            "{head}: forbidden ({}): {}",
            w.op.rbac(&w.resource),
            one_line(&s.message)
        ),
        kube::Error::Api(s) => format!("{head}: {} ({})", one_line(&s.message), s.reason),
        e => format!("{head}: {}", one_line(&e.to_string())),
    }
}

fn api(w: &Write, client: kube::Client) -> Api<DynamicObject> {
    match &w.namespace {
        Some(ns) if w.resource.namespaced => {
            Api::namespaced_with(client, ns, &w.resource.api_resource)
        }
        _ => Api::all_with(client, &w.resource.api_resource),
    }
}

/// The containers and images of the object `w` names (a GET: the cache keeps no containers),
/// for the set-image dialog; the error is the server's answer on one line.
pub async fn fetch_images(client: kube::Client, w: &Write) -> Result<Vec<ContainerImage>, String> {
    let obj = api(w, client)
        .get(&w.name)
        .await
        .map_err(|e| one_line(&e.to_string()))?;
    Ok(container_images(&w.resource.api_resource.kind, &obj.data))
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
        Ok(made) => WriteOutcome {
            message: w.success(made.as_deref()),
            error: false,
        },
        Err(e) => WriteOutcome {
            message: failure(w, e),
            error: true,
        },
    };
    log_write(w, &outcome);
    let code = match &result {
        Err(kube::Error::Api(s)) => Some(s.code),
        _ => None,
    };
    (outcome, code)
}

/// An [`Operation::Apply`] write (a dry run or the real one), as [`execute_with_code`], with
/// the object the server answered (what it stores, or would store).
pub async fn execute_apply(
    client: kube::Client,
    w: &Write,
) -> (WriteOutcome, Option<u16>, Option<serde_json::Value>) {
    let result = match &w.op {
        Operation::Apply(a) => server_side_apply(&api(w, client), w, a).await,
        _ => Err(kube::Error::Service("not an apply".into())),
    };
    let outcome = match &result {
        Ok(_) => WriteOutcome {
            message: w.success(None),
            error: false,
        },
        Err(e) => WriteOutcome {
            message: failure(w, e),
            error: true,
        },
    };
    log_write(w, &outcome);
    match result {
        Ok(v) => (outcome, None, Some(v)),
        Err(kube::Error::Api(s)) => (outcome, Some(s.code), None),
        Err(_) => (outcome, None, None),
    }
}

/// `PATCH` with `application/apply-patch+yaml` as the field manager `kinformer`.
async fn server_side_apply(
    api: &Api<DynamicObject>,
    w: &Write,
    a: &Applied,
) -> Result<serde_json::Value, kube::Error> {
    let mut pp = PatchParams::apply(crate::ui::apply::FIELD_MANAGER);
    pp.force = a.force;
    pp.dry_run = a.dry_run;
    let made = api.patch(&w.name, &pp, &Patch::Apply(&a.object)).await?;
    serde_json::to_value(made).map_err(kube::Error::SerdeError)
}

/// The one log line of a write.
fn log_write(w: &Write, outcome: &WriteOutcome) {
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
}

/// Send the write; `Ok(Some(name))` names what it created (`namespace/name`).
async fn send(client: kube::Client, w: &Write) -> Result<Option<String>, kube::Error> {
    let api = api(w, client.clone());
    let pp = patch_params();
    if let Operation::Trigger = w.op {
        let ns = w.namespace.as_deref().unwrap_or("default");
        let cronjob = Api::<CronJob>::namespaced(client.clone(), ns)
            .get(&w.name)
            .await?;
        let job = job_from_cronjob(&cronjob, &manual_job_name(&w.name, rand::random()));
        let made = Api::<Job>::namespaced(client, ns)
            .create(&post_params(), &job)
            .await?;
        return Ok(Some(format!(
            "{ns}/{}",
            made.metadata.name.unwrap_or_default()
        )));
    }
    let sent = match &w.op {
        Operation::Delete(p) => {
            let dp = DeleteParams {
                propagation_policy: Some(policy(*p)),
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
            pods.evict(&w.name, &evict_params()).await.map(drop)
        }
        Operation::Edit(obj) => {
            let obj: DynamicObject =
                serde_json::from_value((**obj).clone()).map_err(kube::Error::SerdeError)?;
            api.replace(&w.name, &post_params(), &obj).await.map(drop)
        }
        Operation::Suspend(on) => api
            .patch(
                &w.name,
                &pp,
                &Patch::Strategic(json!({"spec": {"suspend": on}})),
            )
            .await
            .map(drop),
        Operation::SetImage(c) => api
            .patch(
                &w.name,
                &pp,
                &Patch::Strategic(set_image_patch(&w.resource.api_resource.kind, c)),
            )
            .await
            .map(drop),
        Operation::Apply(a) => server_side_apply(&api, w, a).await.map(drop),
        // Sent above (a GET, then a POST to another resource).
        Operation::Trigger => Ok(()),
    };
    sent.map(|()| None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::ResourceInfo;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;

    fn write(op: Operation) -> Write {
        let r = APIResource {
            name: "deployments".into(),
            kind: "Deployment".into(),
            namespaced: true,
            singular_name: "deployment".into(),
            verbs: ["get", "list", "watch", "patch", "delete"]
                .map(String::from)
                .to_vec(),
            ..APIResource::default()
        };
        Write {
            resource: ResourceInfo::from_api_resource("apps", "v1", &r).unwrap(),
            namespace: Some("shop".into()),
            name: "web".into(),
            op,
            cluster: None,
        }
    }

    #[test]
    fn a_403_names_the_verb_and_resource_refused() {
        let status =
            kube::core::Status::failure("deployments.apps \"web\" is forbidden", "Forbidden")
                .with_code(403);
        let e = kube::Error::Api(Box::new(status));
        assert_eq!(
            failure(&write(Operation::Scale(3)), &e),
            "scale deployment shop/web: forbidden (patch deployments.apps/scale): deployments.apps \"web\" is forbidden"
        );
    }
}
