//! Server-side apply against the store: the field manager's merge ([`managed::apply`]) of a
//! configuration into the live object, or a create when there is none, retried on a concurrent
//! write as the apiserver's `GuaranteedUpdate` retries.

use super::*;

/// A server-side apply request's options (`fieldManager`, `force`, `dryRun=All`).
#[derive(Debug, Clone, Copy)]
pub struct ApplyRequest<'a> {
    pub manager: &'a str,
    pub force: bool,
    pub dry_run: bool,
}

impl DemoCluster {
    /// Apply `config` to `name` (a PATCH with `application/apply-patch+yaml`); returns the
    /// object and whether it was created. A `metadata.resourceVersion` in the configuration is
    /// a precondition; otherwise a concurrent write makes it retry.
    pub fn server_side_apply(
        &self,
        idx: usize,
        ns: Option<&str>,
        name: &str,
        mut config: Value,
        req: ApplyRequest<'_>,
        mode: UpdateMode,
    ) -> Result<(Value, bool), StatusError> {
        let info = &RESOURCES[idx];
        Self::check_kind(info, &mut config)?;
        let body_name = config
            .pointer("/metadata/name")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !body_name.is_empty() && body_name != name {
            return Err(StatusError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        if let Some(m) = config.get_mut("metadata").and_then(Value::as_object_mut) {
            m.insert("name".into(), Value::String(name.to_string()));
        }
        let pinned = config
            .pointer("/metadata/resourceVersion")
            .and_then(Value::as_str)
            .is_some_and(|rv| !rv.is_empty());
        let strip_status = info.status_subresource && mode != UpdateMode::Status;
        let write = WriteOptions {
            manager: None,
            dry_run: req.dry_run,
            subresource: None,
        };
        for _ in 0..16 {
            let current = match self.get_stored(idx, ns, name) {
                Ok(c) => Some(c),
                Err(e) if e.code == 404 && mode != UpdateMode::Status && !pinned => None,
                Err(e) => return Err(e),
            };
            let Some(current) = current else {
                let mut v = managed::apply(
                    None,
                    &config,
                    req.manager,
                    req.force,
                    strip_status,
                    &now_rfc3339(),
                )?;
                if strip_status && let Some(o) = v.as_object_mut() {
                    o.remove("status");
                }
                match self.create_with(idx, ns, v, &write) {
                    Err(e) if e.reason == wv::REASON_ALREADY_EXISTS => continue,
                    r => return r.map(|v| (v, true)),
                }
            };
            let live = current.value()?;
            let mut v = managed::apply(
                Some(&live),
                &config,
                req.manager,
                req.force,
                strip_status,
                &now_rfc3339(),
            )?;
            if !pinned && let Some(m) = v.get_mut("metadata").and_then(Value::as_object_mut) {
                m.insert(
                    "resourceVersion".into(),
                    Value::String(current.rv.to_string()),
                );
            }
            match self.update_with(idx, ns, name, v, mode, &write) {
                Err(e) if e.reason == wv::REASON_CONFLICT && !pinned => continue,
                r => return r.map(|v| (v, false)),
            }
        }
        Err(StatusError::conflict(&target(info, name)))
    }
}
