//! The demo server's errors: [`DemoError`] for starting/stopping it, [`StatusError`] for API
//! answers (serialized as a `v1 Status`, exactly as kube-apiserver reports failures).

use crate::informer::wire_values as wv;
use serde_json::{Value, json};

/// Failures of the demo server itself (not of an API request).
#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error("cannot bind 127.0.0.1:{port}: {source}")]
    Bind {
        port: u16,
        #[source]
        source: std::io::Error,
    },
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("seeding the demo cluster failed: {0}")]
    Seed(StatusError),
    #[error("the demo server is not running")]
    NotRunning,
}

/// A failed API request, rendered as a `Status` object with an HTTP code and a reason.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code} {reason}: {message}")]
pub struct StatusError {
    pub code: u16,
    /// `NotFound`, `AlreadyExists`, `Conflict`, `Expired`, `Gone`, `Forbidden`, ...
    pub reason: &'static str,
    pub message: String,
    /// `details` (name, group, kind, causes, retryAfterSeconds), if any.
    pub details: Option<Value>,
}

/// What a `Status` names: the resource (plural, as in `details.kind`), its group and the name.
pub struct Target<'a> {
    pub group: &'a str,
    pub plural: &'a str,
    pub name: &'a str,
}

impl Target<'_> {
    /// `pods` or `deployments.apps`, as kube-apiserver prints a qualified resource.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }

    fn details(&self) -> Value {
        let mut d = json!({"name": self.name, "kind": self.plural});
        if !self.group.is_empty() {
            d["group"] = json!(self.group);
        }
        d
    }
}

impl StatusError {
    pub fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    pub fn not_found(t: &Target<'_>) -> Self {
        Self {
            details: Some(t.details()),
            ..Self::new(
                404,
                wv::REASON_NOT_FOUND,
                format!("{} \"{}\" not found", t.qualified(), t.name),
            )
        }
    }

    pub fn already_exists(t: &Target<'_>) -> Self {
        Self {
            details: Some(t.details()),
            ..Self::new(
                409,
                wv::REASON_ALREADY_EXISTS,
                format!("{} \"{}\" already exists", t.qualified(), t.name),
            )
        }
    }

    pub fn conflict(t: &Target<'_>) -> Self {
        Self {
            details: Some(t.details()),
            ..Self::new(
                409,
                wv::REASON_CONFLICT,
                format!(
                    "Operation cannot be fulfilled on {} \"{}\": the object has been modified; please apply your changes to the latest version and try again",
                    t.qualified(),
                    t.name
                ),
            )
        }
    }

    /// 410 Gone with reason `Expired` (a too-old resourceVersion or continue token).
    pub fn expired(message: impl Into<String>) -> Self {
        Self::new(410, wv::REASON_EXPIRED, message)
    }

    pub fn forbidden(verb: &str, group: &str, plural: &str, namespace: Option<&str>) -> Self {
        let scope = match namespace {
            Some(ns) => format!(" in the namespace \"{ns}\""),
            None => " at the cluster scope".to_string(),
        };
        let mut d = json!({"kind": plural});
        if !group.is_empty() {
            d["group"] = json!(group);
        }
        let qualified = if group.is_empty() {
            plural.to_string()
        } else {
            format!("{plural}.{group}")
        };
        Self {
            details: Some(d),
            ..Self::new(
                403,
                wv::REASON_FORBIDDEN,
                format!(
                    "{qualified} is forbidden: User \"system:anonymous\" cannot {verb} resource \"{plural}\" in API group \"{group}\"{scope}"
                ),
            )
        }
    }

    pub fn too_many_requests(retry_after: u32) -> Self {
        Self {
            details: Some(json!({"retryAfterSeconds": retry_after})),
            ..Self::new(
                429,
                wv::REASON_TOO_MANY_REQUESTS,
                "The server has received too many requests and has asked us to try again later",
            )
        }
    }

    /// What kube-apiserver's watch cache answers while it (re)builds after a restart.
    pub fn storage_initializing() -> Self {
        Self {
            details: Some(json!({"retryAfterSeconds": 1})),
            ..Self::new(
                429,
                wv::REASON_TOO_MANY_REQUESTS,
                wv::STORAGE_INITIALIZING_MESSAGE,
            )
        }
    }

    /// 500 `StorageReadError`: an object of `kind` could not be read from storage (as
    /// kube-apiserver reports a corrupt object's unsafe deletion inside a watch).
    pub fn store_read_error(kind: &str) -> Self {
        Self {
            details: Some(json!({"kind": kind})),
            ..Self::new(
                500,
                wv::REASON_STORE_READ_ERROR,
                "failed to prepare current and previous objects: corrupt object has been deleted",
            )
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(
            500,
            wv::REASON_INTERNAL_ERROR,
            format!("Internal error occurred: {}", message.into()),
        )
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, wv::REASON_BAD_REQUEST, message)
    }

    /// 422 with one cause.
    pub fn invalid(t: &Target<'_>, kind: &str, field: &str, message: &str) -> Self {
        let mut d = json!({"name": t.name, "kind": kind, "causes": [{
            "reason": wv::CAUSE_FIELD_VALUE_INVALID, "message": message, "field": field}]});
        if !t.group.is_empty() {
            d["group"] = json!(t.group);
        }
        Self {
            details: Some(d),
            ..Self::new(
                422,
                wv::REASON_INVALID,
                format!("{kind} \"{}\" is invalid: {field}: {message}", t.name),
            )
        }
    }

    /// 422 `NewInvalid(meta.k8s.io ListOptions, "", errs)`: the answer to list or watch options
    /// apimachinery's `ValidateListOptions` refuses. Each error is `(field, cause type, body)`,
    /// the body being `field.Error.ErrorBody()` (`Forbidden: …`, `Unsupported value: …`).
    pub fn invalid_list_options(errs: &[(&str, &'static str, String)]) -> Self {
        let causes: Vec<Value> = errs
            .iter()
            .map(|(field, cause, body)| json!({"reason": cause, "message": body, "field": field}))
            .collect();
        let each: Vec<String> = errs.iter().map(|(f, _, b)| format!("{f}: {b}")).collect();
        // `utilerrors.Aggregate`: one error prints alone, several as `[a, b]`.
        let all = match each.as_slice() {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        Self {
            details: Some(json!({"group": "meta.k8s.io", "kind": "ListOptions", "causes": causes})),
            ..Self::new(
                422,
                wv::REASON_INVALID,
                format!("ListOptions.meta.k8s.io \"\" is invalid: {all}"),
            )
        }
    }

    pub fn method_not_allowed(message: impl Into<String>) -> Self {
        Self::new(405, wv::REASON_METHOD_NOT_ALLOWED, message)
    }

    pub fn unsupported_media_type(content_type: &str) -> Self {
        Self::new(
            415,
            wv::REASON_UNSUPPORTED_MEDIA_TYPE,
            format!(
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json; got {content_type:?}"
            ),
        )
    }

    /// The resource (path) does not exist on this server.
    pub fn unknown_path() -> Self {
        Self {
            details: Some(json!({})),
            ..Self::new(
                404,
                wv::REASON_NOT_FOUND,
                "the server could not find the requested resource",
            )
        }
    }

    /// `Too large resource version` (504 Timeout with a ResourceVersionTooLarge cause).
    pub fn too_large_resource_version(requested: u64, current: u64) -> Self {
        Self {
            details: Some(
                json!({"causes": [{"reason": wv::CAUSE_RESOURCE_VERSION_TOO_LARGE,
                "message": wv::TOO_LARGE_RV_MESSAGE}], "retryAfterSeconds": 1}),
            ),
            ..Self::new(
                504,
                wv::REASON_TIMEOUT,
                // apimachinery's `NewTimeoutError` prefixes its message with "Timeout: ".
                format!("Timeout: Too large resource version: {requested}, current: {current}"),
            )
        }
    }

    /// The `v1 Status` object.
    pub fn to_status(&self) -> Value {
        let mut s = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": wv::STATUS_FAILURE,
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(d) = &self.details {
            s["details"] = d.clone();
        }
        s
    }
}
