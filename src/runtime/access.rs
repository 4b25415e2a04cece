//! Access checks before a view opens its informer: SelfSubjectAccessReview answers cached per
//! verb, resource and namespace, and the 403 message a refused view shows.
//!
//! As `kubectl auth can-i` does, a view (and the namespaces informer behind `:ns`) asks a review
//! for list and watch in its scope before its informer starts; answers are cached for the
//! session. A denied view starts no informer and says what is forbidden for whom where (`listing
//! deployments is forbidden for user jane in namespace bench`, then the server's own 403
//! message); it is checked again every 5 minutes (permissions change rarely), `ctrl-r` checks
//! now. A denied all-namespaces view moves to the context's namespace if that one is allowed.
//! Without the review API (404/403) informers open unchecked: a 403 then shows the same message,
//! the reflector retries every 5 minutes (the header says `forbidden`, not `backing off`), and an
//! informer a fallback replaced is stopped. `:ns NAME` still switches to a namespace typed by hand
//! when namespaces cannot be listed. Tested in `tests/rbac_runtime.rs` against the demo's
//! namespace-scoped user.

use super::*;

/// How long a forbidden view waits before the runtime asks the server again by itself
/// (permissions change rarely); `ctrl-r` asks at once.
pub const FORBIDDEN_RECHECK: Duration = Duration::from_secs(300);

/// `(verb, group, plural, namespace)`.
pub(super) type AccessKey = (&'static str, String, String, Option<String>);

/// Access review answers for the session (per connection): `true`/`false` per verb, group,
/// resource and namespace; and whether the review API answers at all.
#[derive(Clone, Default)]
pub(super) struct AccessCache {
    pub(super) answers: Arc<parking_lot::Mutex<HashMap<AccessKey, bool>>>,
    /// The server has no SelfSubjectAccessReview for us (404/403): open and let a 403 tell.
    pub(super) unavailable: Arc<std::sync::atomic::AtomicBool>,
}

impl AccessCache {
    pub(super) fn key(verb: &'static str, resource: &ResourceInfo, ns: Option<&str>) -> AccessKey {
        let ar = &resource.api_resource;
        (
            verb,
            ar.group.clone(),
            ar.plural.clone(),
            ns.map(str::to_string),
        )
    }

    /// Known to be allowed (both verbs), or not answerable: open without asking.
    pub(super) fn open_at_once(&self, resource: &ResourceInfo, ns: Option<&str>) -> bool {
        if self.unavailable.load(std::sync::atomic::Ordering::Relaxed) {
            return true;
        }
        let answers = self.answers.lock();
        ["list", "watch"]
            .iter()
            .all(|v| answers.get(&Self::key(v, resource, ns)) == Some(&true))
    }

    pub(super) fn forget(&self, resource: &ResourceInfo, ns: Option<&str>) {
        let mut answers = self.answers.lock();
        for v in ["list", "watch"] {
            answers.remove(&Self::key(v, resource, ns));
        }
    }
}

/// Whether `resource` may be listed and watched in `ns`: SelfSubjectAccessReviews (cached), and
/// for a refused list, the server's own 403 message from a one-item list.
pub(super) async fn check_access(
    client: &kube::Client,
    cache: &AccessCache,
    resource: &ResourceInfo,
    ns: Option<&str>,
) -> Access {
    use std::sync::atomic::Ordering;
    for verb in ["list", "watch"] {
        let key = AccessCache::key(verb, resource, ns);
        let cached = cache.answers.lock().get(&key).copied();
        let allowed = match cached {
            Some(a) => a,
            None => {
                if cache.unavailable.load(Ordering::Relaxed) {
                    return Access::Unknown;
                }
                match access_review(client, verb, resource, ns).await {
                    Ok(a) => {
                        cache.answers.lock().insert(key, a);
                        a
                    }
                    Err(ReviewError::Unavailable(why)) => {
                        tracing::info!(
                            why,
                            "no SelfSubjectAccessReview on this server: opening informers unchecked"
                        );
                        cache.unavailable.store(true, Ordering::Relaxed);
                        return Access::Unknown;
                    }
                    Err(ReviewError::Failed(why)) => {
                        tracing::debug!(why, "access review failed; opening unchecked");
                        return Access::Unknown;
                    }
                }
            }
        };
        if !allowed {
            let message = forbidden_message(client, verb, resource, ns).await;
            return Access::Denied(Denial::from_message(verb, &message, None));
        }
    }
    Access::Allowed
}

pub(super) enum ReviewError {
    /// 404 or 403 for the review itself.
    Unavailable(String),
    /// Anything else (unreachable, 5xx): no answer this time.
    Failed(String),
}

/// `POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews` (what `kubectl auth can-i`
/// asks): may this user `verb` the resource in `ns` (cluster scope when `None`)?
pub(super) async fn access_review(
    client: &kube::Client,
    verb: &str,
    resource: &ResourceInfo,
    ns: Option<&str>,
) -> Result<bool, ReviewError> {
    let ar = &resource.api_resource;
    let mut attrs = serde_json::json!({"verb": verb, "group": ar.group, "resource": ar.plural});
    if let Some(ns) = ns {
        attrs["namespace"] = serde_json::json!(ns);
    }
    let body = serde_json::json!({"apiVersion": "authorization.k8s.io/v1",
        "kind": "SelfSubjectAccessReview", "spec": {"resourceAttributes": attrs}});
    let bytes = serde_json::to_vec(&body).map_err(|e| ReviewError::Failed(e.to_string()))?;
    let req = http::Request::post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews")
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(bytes)
        .map_err(|e| ReviewError::Failed(e.to_string()))?;
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        client.request::<serde_json::Value>(req),
    )
    .await
    .map_err(|_| ReviewError::Failed("timed out".into()))?;
    match answer {
        Ok(v) => v
            .pointer("/status/allowed")
            .and_then(serde_json::Value::as_bool)
            .ok_or_else(|| ReviewError::Unavailable("the review has no status.allowed".into())),
        Err(kube::Error::Api(s)) if s.code == 404 || s.code == 403 => {
            Err(ReviewError::Unavailable(s.message))
        }
        Err(e) => Err(ReviewError::Failed(one_line(&e.to_string()))),
    }
}

/// The server's words for a refused `verb`: a one-item list answers kube-apiserver's 403 with
/// the user's name; a refused watch (list allowed) is described from the review.
pub(super) async fn forbidden_message(
    client: &kube::Client,
    verb: &str,
    resource: &ResourceInfo,
    ns: Option<&str>,
) -> String {
    let ar = &resource.api_resource;
    let qualified = if ar.group.is_empty() {
        ar.plural.clone()
    } else {
        format!("{}.{}", ar.plural, ar.group)
    };
    let scope = match ns {
        Some(n) => format!("in the namespace \"{n}\""),
        None => "at the cluster scope".to_string(),
    };
    let fallback = format!(
        "{qualified} is forbidden: the server's access review denies {verb} on resource \"{}\" in API group \"{}\" {scope}",
        ar.plural, ar.group
    );
    if verb != "list" {
        return fallback;
    }
    let api: Api<DynamicObject> = match ns {
        Some(n) if resource.namespaced => Api::namespaced_with(client.clone(), n, ar),
        _ => Api::all_with(client.clone(), ar),
    };
    match tokio::time::timeout(
        Duration::from_secs(10),
        api.list_metadata(&ListParams::default().limit(1)),
    )
    .await
    {
        Ok(Err(kube::Error::Api(s))) if s.code == 403 => s.message,
        _ => fallback,
    }
}
