//! RBAC of the demo server: a namespace-scoped user, as kube-apiserver's RBAC authorizer judges it.
//!
//! The demo server serves one restricted identity besides the unrestricted default one: the user
//! named in [`NamespaceUser`], who authenticates with its bearer token and holds one Role in one
//! namespace (get/list/watch on pods, events and configmaps), plus what every authenticated user
//! has (`system:basic-user`: self-subject access and rules reviews; `system:discovery`:
//! discovery, version, health). Requests without that token keep the demo's unrestricted access.
//!
//! Answers follow kube-apiserver: a refused request is a 403 `Status` whose message is
//! `pods is forbidden: User "jane" cannot list resource "pods" in API group "" at the cluster
//! scope` (or `in the namespace "ns"`, with `pods "name"` for a named object), and
//! `SelfSubjectAccessReview` / `SelfSubjectRulesReview` answer from the same rules.

use crate::informer::wire_values as wv;
use serde_json::{Value, json};

use super::error::StatusError;

/// A user allowed get/list/watch on pods, events and configmaps in one namespace only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceUser {
    /// The user name (`jane`).
    pub name: String,
    /// The only namespace it may read.
    pub namespace: String,
    /// Its bearer token.
    pub token: String,
}

impl NamespaceUser {
    /// A user `name` (token `<name>-token`) who may read pods, events, configmaps in `namespace`.
    pub fn new(name: &str, namespace: &str) -> Self {
        Self {
            name: name.to_string(),
            namespace: namespace.to_string(),
            token: format!("{name}-token"),
        }
    }

    /// The Role's name (also its RoleBinding's), as the allowed review reason names it.
    fn role(&self) -> String {
        format!("{}-reader", self.name)
    }
}

/// What the Role grants, in the user's namespace.
const ROLE_RESOURCES: &[&str] = &["pods", "events", "configmaps"];
const ROLE_VERBS: &[&str] = &["get", "list", "watch"];
/// Non-resource URLs `system:discovery` and `system:public-info-viewer` grant.
const PUBLIC_PATHS: &[&str] = &[
    "/api",
    "/api/*",
    "/apis",
    "/apis/*",
    "/version",
    "/version/",
    "/healthz",
    "/livez",
    "/readyz",
    "/openapi",
    "/openapi/*",
];

/// Who is asking: the demo's unrestricted default identity, or the namespace-scoped user.
#[derive(Debug, Clone, Copy)]
pub enum Subject<'a> {
    Admin,
    User(&'a NamespaceUser),
}

/// One request as the authorizer sees it.
#[derive(Debug, Clone, Copy)]
pub struct Attributes<'a> {
    pub verb: &'a str,
    pub group: &'a str,
    pub resource: &'a str,
    pub subresource: &'a str,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
}

impl Subject<'_> {
    /// The identity of a request: the user when it presents its bearer token or is impersonated
    /// (`Impersonate-User`, kubeconfig `as:`; kubectl sends no token over plain HTTP, as the
    /// demo server speaks), else the unrestricted default identity.
    pub fn of<'u>(user: Option<&'u NamespaceUser>, headers: &http::HeaderMap) -> Subject<'u> {
        let Some(u) = user else {
            return Subject::Admin;
        };
        let header = |name: http::header::HeaderName| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
        };
        let token = header(http::header::AUTHORIZATION).and_then(|a| a.strip_prefix("Bearer "));
        let impersonated = header(http::header::HeaderName::from_static("impersonate-user"));
        if token == Some(u.token.as_str()) || impersonated == Some(u.name.as_str()) {
            Subject::User(u)
        } else {
            Subject::Admin
        }
    }

    pub fn name(&self) -> &str {
        match self {
            Subject::Admin => "system:anonymous",
            Subject::User(u) => &u.name,
        }
    }

    /// Whether this subject may do `a` (RBAC: allowed or no opinion = denied).
    pub fn allows(&self, a: &Attributes<'_>) -> bool {
        let Subject::User(u) = self else {
            return true;
        };
        if a.group == "authorization.k8s.io"
            && matches!(
                a.resource,
                "selfsubjectaccessreviews" | "selfsubjectrulesreviews"
            )
            && a.verb == "create"
        {
            return true;
        }
        a.namespace == Some(u.namespace.as_str())
            && a.group.is_empty()
            && a.subresource.is_empty()
            && ROLE_RESOURCES.contains(&a.resource)
            && ROLE_VERBS.contains(&a.verb)
    }

    /// Whether this subject may `verb` a non-resource path (discovery, version, health).
    pub fn allows_path(&self, verb: &str, path: &str) -> bool {
        let Subject::User(_) = self else {
            return true;
        };
        verb == "get"
            && PUBLIC_PATHS.iter().any(|p| match p.strip_suffix('*') {
                Some(prefix) => path.starts_with(prefix),
                None => path == *p,
            })
    }

    /// `Ok` when allowed, else kube-apiserver's 403.
    pub fn authorize(&self, a: &Attributes<'_>) -> Result<(), StatusError> {
        if self.allows(a) {
            Ok(())
        } else {
            Err(forbidden(self.name(), a))
        }
    }

    /// Why an allowed request is allowed, as RBAC words it in a review's `status.reason`.
    fn allowed_reason(&self) -> String {
        match self {
            Subject::Admin => "RBAC: allowed by ClusterRoleBinding \"kinformer-demo-admin\" of ClusterRole \"cluster-admin\" to User \"system:anonymous\"".to_string(),
            Subject::User(u) => format!(
                "RBAC: allowed by RoleBinding \"{role}/{ns}\" of Role \"{role}\" to User \"{user}\"",
                role = u.role(),
                ns = u.namespace,
                user = u.name
            ),
        }
    }

    /// Answer a `SelfSubjectAccessReview`: the request echoed with its `status`.
    pub fn access_review(&self, body: &Value) -> Result<Value, StatusError> {
        let spec = body
            .get("spec")
            .ok_or_else(|| invalid_review("spec", "Required value"))?;
        let status = if let Some(ra) = spec.get("resourceAttributes") {
            let s = |k: &str| ra.get(k).and_then(Value::as_str).unwrap_or("");
            let ns = s("namespace");
            let a = Attributes {
                verb: s("verb"),
                group: s("group"),
                resource: s("resource"),
                subresource: s("subresource"),
                namespace: (!ns.is_empty()).then_some(ns),
                name: s("name"),
            };
            // "*" asks for every verb/resource: only the unrestricted identity has that.
            let wildcard = [a.verb, a.group, a.resource].contains(&"*");
            let allowed = if wildcard {
                matches!(self, Subject::Admin)
            } else {
                self.allows(&a)
            };
            review_status(allowed, self)
        } else if let Some(nra) = spec.get("nonResourceAttributes") {
            let s = |k: &str| nra.get(k).and_then(Value::as_str).unwrap_or("");
            review_status(self.allows_path(s("verb"), s("path")), self)
        } else {
            return Err(invalid_review(
                "spec.resourceAttributes",
                "Required value: exactly one of nonResourceAttributes or resourceAttributes must be specified",
            ));
        };
        let mut out = body.clone();
        out["apiVersion"] = json!("authorization.k8s.io/v1");
        out["kind"] = json!("SelfSubjectAccessReview");
        out["metadata"] = json!({"creationTimestamp": null});
        out["status"] = status;
        Ok(out)
    }

    /// Answer a `SelfSubjectRulesReview` for `spec.namespace`.
    pub fn rules_review(&self, body: &Value) -> Result<Value, StatusError> {
        let ns = body
            .pointer("/spec/namespace")
            .and_then(Value::as_str)
            .unwrap_or("");
        let review_rules = json!({"verbs": ["create"], "apiGroups": ["authorization.k8s.io"],
            "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]});
        let (resource_rules, non_resource_rules) = match self {
            Subject::Admin => (
                json!([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]),
                json!([{"verbs": ["*"], "nonResourceURLs": ["*"]}]),
            ),
            Subject::User(u) => {
                let mut rules = vec![review_rules];
                if ns == u.namespace {
                    rules.push(json!({"verbs": ROLE_VERBS, "apiGroups": [""],
                        "resources": ROLE_RESOURCES}));
                }
                (
                    json!(rules),
                    json!([{"verbs": ["get"], "nonResourceURLs": PUBLIC_PATHS}]),
                )
            }
        };
        Ok(json!({
            "kind": "SelfSubjectRulesReview",
            "apiVersion": "authorization.k8s.io/v1",
            "metadata": {"creationTimestamp": null},
            "spec": {"namespace": ns},
            "status": {
                "resourceRules": resource_rules,
                "nonResourceRules": non_resource_rules,
                "incomplete": false,
            },
        }))
    }
}

fn review_status(allowed: bool, who: &Subject<'_>) -> Value {
    if allowed {
        json!({"allowed": true, "reason": who.allowed_reason()})
    } else {
        // RBAC has no opinion on what no rule grants: denied, without a reason.
        json!({"allowed": false})
    }
}

fn invalid_review(field: &str, message: &str) -> StatusError {
    StatusError {
        details: Some(
            json!({"group": "authorization.k8s.io", "kind": "SelfSubjectAccessReview",
            "causes": [{"reason": "FieldValueRequired", "message": message, "field": field}]}),
        ),
        ..StatusError::new(
            422,
            wv::REASON_INVALID,
            format!(
                "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: {field}: {message}"
            ),
        )
    }
}

/// kube-apiserver's `ForbiddenStatusError` for `a` refused to `user`.
pub fn forbidden(user: &str, a: &Attributes<'_>) -> StatusError {
    let resource = if a.subresource.is_empty() {
        a.resource.to_string()
    } else {
        format!("{}/{}", a.resource, a.subresource)
    };
    let scope = match a.namespace {
        Some(ns) => format!("in the namespace \"{ns}\""),
        None => "at the cluster scope".to_string(),
    };
    let reason = format!(
        "User \"{user}\" cannot {} resource \"{resource}\" in API group \"{}\" {scope}",
        a.verb, a.group
    );
    let qualified = if a.group.is_empty() {
        a.resource.to_string()
    } else {
        format!("{}.{}", a.resource, a.group)
    };
    let message = if a.name.is_empty() {
        format!("{qualified} is forbidden: {reason}")
    } else {
        format!("{qualified} \"{}\" is forbidden: {reason}", a.name)
    };
    let mut details = json!({"kind": a.resource});
    if !a.name.is_empty() {
        details["name"] = json!(a.name);
    }
    if !a.group.is_empty() {
        details["group"] = json!(a.group);
    }
    StatusError {
        details: Some(details),
        ..StatusError::new(403, wv::REASON_FORBIDDEN, message)
    }
}

/// kube-apiserver's 403 for a non-resource path.
pub fn forbidden_path(user: &str, verb: &str, path: &str) -> StatusError {
    StatusError {
        details: Some(json!({})),
        ..StatusError::new(
            403,
            wv::REASON_FORBIDDEN,
            format!("forbidden: User \"{user}\" cannot {verb} path \"{path}\""),
        )
    }
}

/// A request's authorization attributes, owned (see [`RequestAttributes::parse`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestAttributes {
    pub verb: String,
    pub group: String,
    pub resource: String,
    pub subresource: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl RequestAttributes {
    /// The attributes of a resource request (kube-apiserver's `RequestInfoFactory`), `None` for
    /// a non-resource path (discovery, `/version`, health). `watch` is the `watch` parameter.
    pub fn parse(method: &str, path: &str, watch: bool) -> Option<Self> {
        let segs: Vec<&str> = path.trim_matches('/').split('/').collect();
        let (group, rest) = match segs.as_slice() {
            ["api", _v, rest @ ..] if !rest.is_empty() => ("", rest),
            ["apis", g, _v, rest @ ..] if !rest.is_empty() => (*g, rest),
            _ => return None,
        };
        let (namespace, rest) = match rest {
            ["namespaces", ns, r, tail @ ..] if !matches!(*r, "status" | "finalize") => {
                (Some((*ns).to_string()), {
                    let mut v = vec![*r];
                    v.extend_from_slice(tail);
                    v
                })
            }
            other => (None, other.to_vec()),
        };
        let resource = rest.first()?.to_string();
        let name = rest.get(1).map(|s| (*s).to_string()).unwrap_or_default();
        let subresource = rest.get(2).map(|s| (*s).to_string()).unwrap_or_default();
        // A namespace object's own name is its namespace for authorization.
        let namespace = match (&namespace, resource.as_str()) {
            (None, "namespaces") if !name.is_empty() => Some(name.clone()),
            _ => namespace,
        };
        let verb = match (method, name.is_empty()) {
            // Streaming subresources are authorized as `create`, GET (websocket) or POST.
            (_, false) if matches!(subresource.as_str(), "exec" | "attach" | "portforward") => {
                "create"
            }
            ("GET" | "HEAD", _) if watch => "watch",
            ("GET" | "HEAD", false) => "get",
            ("GET" | "HEAD", true) => "list",
            ("POST", _) => "create",
            ("PUT", _) => "update",
            ("PATCH", _) => "patch",
            ("DELETE", false) => "delete",
            ("DELETE", true) => "deletecollection",
            _ => "unknown",
        };
        Some(Self {
            verb: verb.to_string(),
            group: group.to_string(),
            resource,
            subresource,
            namespace,
            name,
        })
    }

    pub fn borrowed(&self) -> Attributes<'_> {
        Attributes {
            verb: &self.verb,
            group: &self.group,
            resource: &self.resource,
            subresource: &self.subresource,
            namespace: self.namespace.as_deref(),
            name: &self.name,
        }
    }
}

/// The `authorization.k8s.io/v1` discovery document.
pub fn api_resource_list() -> Value {
    json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": "authorization.k8s.io/v1",
        "resources": [
            {"name": "selfsubjectaccessreviews", "singularName": "selfsubjectaccessreview",
             "namespaced": false, "kind": "SelfSubjectAccessReview", "verbs": ["create"]},
            {"name": "selfsubjectrulesreviews", "singularName": "selfsubjectrulesreview",
             "namespaced": false, "kind": "SelfSubjectRulesReview", "verbs": ["create"]},
        ],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jane() -> NamespaceUser {
        NamespaceUser::new("jane", "bench")
    }

    fn attrs<'a>(
        verb: &'a str,
        group: &'a str,
        resource: &'a str,
        ns: Option<&'a str>,
    ) -> Attributes<'a> {
        Attributes {
            verb,
            group,
            resource,
            subresource: "",
            namespace: ns,
            name: "",
        }
    }

    #[test]
    fn namespace_user_reads_its_role_resources_in_its_namespace_only() {
        let u = jane();
        let s = Subject::User(&u);
        assert!(s.allows(&attrs("list", "", "pods", Some("bench"))));
        assert!(s.allows(&attrs("watch", "", "events", Some("bench"))));
        assert!(!s.allows(&attrs("list", "", "pods", None)), "cluster scope");
        assert!(!s.allows(&attrs("list", "", "pods", Some("default"))));
        assert!(!s.allows(&attrs("delete", "", "pods", Some("bench"))));
        assert!(!s.allows(&attrs("list", "apps", "deployments", Some("bench"))));
        assert!(!s.allows(&attrs("list", "", "namespaces", None)));
        assert!(Subject::Admin.allows(&attrs("delete", "", "namespaces", None)));
    }

    #[test]
    fn the_users_bearer_token_or_impersonation_selects_the_user() {
        let u = jane();
        let headers = |k: &'static str, v: &'static str| {
            let mut h = http::HeaderMap::new();
            h.insert(k, http::HeaderValue::from_static(v));
            h
        };
        let token = headers("authorization", "Bearer jane-token");
        assert!(matches!(Subject::of(Some(&u), &token), Subject::User(_)));
        let as_jane = headers("impersonate-user", "jane");
        assert!(matches!(Subject::of(Some(&u), &as_jane), Subject::User(_)));
        let other = headers("authorization", "Bearer other");
        assert!(matches!(Subject::of(Some(&u), &other), Subject::Admin));
        assert!(matches!(
            Subject::of(Some(&u), &http::HeaderMap::new()),
            Subject::Admin
        ));
        assert!(matches!(Subject::of(None, &token), Subject::Admin));
    }

    #[test]
    fn request_attributes_follow_the_path() {
        let a = RequestAttributes::parse("GET", "/api/v1/namespaces/bench/pods", true)
            .expect("resource request");
        assert_eq!(
            (a.verb.as_str(), a.resource.as_str(), a.namespace.as_deref()),
            ("watch", "pods", Some("bench"))
        );
        let a = RequestAttributes::parse("GET", "/apis/apps/v1/deployments", false).expect("list");
        assert_eq!(
            (a.verb.as_str(), a.group.as_str(), a.namespace),
            ("list", "apps", None)
        );
        let a = RequestAttributes::parse("GET", "/api/v1/namespaces/bench/pods/web-0/log", false)
            .expect("log");
        assert_eq!(
            (a.verb.as_str(), a.name.as_str(), a.subresource.as_str()),
            ("get", "web-0", "log")
        );
        let a = RequestAttributes::parse("GET", "/api/v1/namespaces/bench/pods/web-0/exec", false)
            .expect("exec");
        assert_eq!(a.verb, "create");
        let a = RequestAttributes::parse("GET", "/api/v1/namespaces/bench", false).expect("ns");
        assert_eq!(
            (a.resource.as_str(), a.namespace.as_deref()),
            ("namespaces", Some("bench"))
        );
        assert_eq!(
            RequestAttributes::parse("GET", "/apis/apps/v1", false),
            None
        );
        assert_eq!(RequestAttributes::parse("GET", "/version", false), None);
    }

    #[test]
    fn forbidden_messages_are_kube_apiservers() {
        let e = forbidden("jane", &attrs("list", "", "pods", None));
        assert_eq!(
            e.message,
            "pods is forbidden: User \"jane\" cannot list resource \"pods\" in API group \"\" at the cluster scope"
        );
        let e = forbidden(
            "jane",
            &attrs("watch", "apps", "deployments", Some("bench")),
        );
        assert_eq!(
            e.message,
            "deployments.apps is forbidden: User \"jane\" cannot watch resource \"deployments\" in API group \"apps\" in the namespace \"bench\""
        );
        let named = Attributes {
            subresource: "log",
            name: "web-0",
            ..attrs("get", "", "pods", Some("bench"))
        };
        assert_eq!(
            forbidden("jane", &named).message,
            "pods \"web-0\" is forbidden: User \"jane\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"bench\""
        );
    }
}
