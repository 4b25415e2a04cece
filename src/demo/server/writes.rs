//! A write's query options as kube-apiserver validates them (`CreateOptions`, `UpdateOptions`,
//! `PatchOptions`, `DeleteOptions`): `fieldManager` (by default the User-Agent's product, as
//! the apiserver's `prefixFromUserAgent`), `dryRun=All`, and `force` (apply only); and the
//! server-side apply PATCH itself.

use super::*;
use crate::demo::cluster::ApplyRequest;
use crate::demo::managed::WriteOptions;

/// The longest field manager kube-apiserver accepts.
const MAX_MANAGER: usize = 128;

/// 422 `Invalid` on the options object, as the apiserver reports a bad query option.
fn invalid_option(kind: &str, field: &str, cause: &str, detail: &str) -> StatusError {
    StatusError {
        details: Some(json!({
            "group": "meta.k8s.io",
            "kind": kind,
            "causes": [{"reason": cause, "message": detail, "field": field}],
        })),
        ..StatusError::new(
            422,
            wv::REASON_INVALID,
            format!("{kind}.meta.k8s.io \"\" is invalid: {field}: {detail}"),
        )
    }
}

/// The options of a `verb` request (`create`, `update`, `patch`, `delete`); `apply` for a
/// server-side apply PATCH. Returns them with `force`.
pub(super) fn write_options(
    verb: &str,
    apply: bool,
    q: &Params,
    headers: &HeaderMap,
) -> Result<(WriteOptions, bool), StatusError> {
    let kind = match verb {
        "create" => "CreateOptions",
        "update" => "UpdateOptions",
        "patch" => "PatchOptions",
        _ => "DeleteOptions",
    };
    let dry_run = match param(q, "dryRun") {
        None | Some("") => false,
        Some("All") => true,
        Some(other) => {
            return Err(invalid_option(
                kind,
                "dryRun",
                "FieldValueNotSupported",
                &format!("Unsupported value: []string{{{other:?}}}: supported values: \"All\""),
            ));
        }
    };
    let force = bool_param(q, "force")?.unwrap_or(false);
    if force && !apply {
        return Err(invalid_option(
            kind,
            "force",
            "FieldValueForbidden",
            "Forbidden: may not be specified for non-apply patch",
        ));
    }
    let manager = match param(q, "fieldManager") {
        Some(m) if !m.is_empty() => m.to_string(),
        _ if apply => {
            return Err(invalid_option(
                kind,
                "fieldManager",
                "FieldValueRequired",
                "Required value: is required for apply patch",
            ));
        }
        _ => {
            let agent = headers
                .get(header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            let product = agent.split('/').next().unwrap_or("");
            product.chars().take(MAX_MANAGER).collect()
        }
    };
    if manager.len() > MAX_MANAGER {
        return Err(invalid_option(
            kind,
            "fieldManager",
            "FieldValueTooLong",
            &format!("Too long: may not be more than {MAX_MANAGER} bytes"),
        ));
    }
    Ok((
        WriteOptions {
            manager: Some(manager),
            dry_run,
            subresource: None,
        },
        force,
    ))
}

/// A server-side apply PATCH: the body is YAML (or JSON); 201 when it created the object.
pub(super) fn apply_patch(
    app: &Arc<App>,
    t: &Target,
    body: &[u8],
    w: &WriteOptions,
    force: bool,
    mode: UpdateMode,
) -> Result<Response, StatusError> {
    let config: Value = serde_norway::from_slice(body)
        .map_err(|e| StatusError::bad_request(format!("error decoding YAML: {e}")))?;
    if !config.is_object() {
        return Err(StatusError::bad_request(
            "the object provided is unrecognized (must be a YAML or JSON object)",
        ));
    }
    let name = t.name.as_deref().unwrap_or_default();
    let req = ApplyRequest {
        manager: w.manager.as_deref().unwrap_or_default(),
        force,
        dry_run: w.dry_run,
    };
    let (v, created) =
        app.cluster
            .server_side_apply(t.idx, t.ns.as_deref(), name, config, req, mode)?;
    let code = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok(json_response(code, &v))
}
