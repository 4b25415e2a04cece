//! PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and a strategic merge patch
//! that behaves like a merge patch (maps merge, `null` deletes) plus the `$patch: delete/replace`
//! directive on maps, and merges the lists the Kubernetes types give a `patchMergeKey` by that
//! key (`merge_key`: containers by `name`, volume mounts by `mountPath`, ...), an element with
//! `$patch: delete` removing its match; other lists are replaced, as strategic merge does for
//! lists without a merge key. `$setElementOrder` and the other `$` directives are ignored.

use crate::informer::wire_values as wv;
use serde_json::Value;

use super::error::StatusError;

/// The patch flavours kube-apiserver accepts on this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchType {
    Merge,
    Json,
    Strategic,
    /// Server-side apply: the body is a configuration, merged by the field manager
    /// ([`super::managed`]), not here.
    Apply,
}

impl PatchType {
    /// From a `Content-Type` header (parameters ignored).
    pub fn from_content_type(ct: &str) -> Result<Self, StatusError> {
        let base = ct.split(';').next().unwrap_or("").trim();
        match base {
            "application/merge-patch+json" => Ok(Self::Merge),
            "application/json-patch+json" => Ok(Self::Json),
            "application/strategic-merge-patch+json" => Ok(Self::Strategic),
            "application/apply-patch+yaml" => Ok(Self::Apply),
            _ => Err(StatusError::unsupported_media_type(ct)),
        }
    }
}

/// Apply `patch` to `target`.
pub fn apply(kind: PatchType, target: &mut Value, patch: &Value) -> Result<(), StatusError> {
    match kind {
        PatchType::Merge => merge(target, patch, false),
        PatchType::Strategic => {
            if !patch.is_object() {
                return Err(StatusError::bad_request(
                    "strategic merge patch must be a JSON object",
                ));
            }
            merge(target, patch, true)
        }
        PatchType::Json => json_patch(target, patch),
        PatchType::Apply => Err(StatusError::internal(
            "an apply patch goes through the field manager",
        )),
    }
}

fn merge(target: &mut Value, patch: &Value, strategic: bool) -> Result<(), StatusError> {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return Ok(());
    };
    if strategic {
        match p.get("$patch").and_then(Value::as_str) {
            Some("delete") => {
                *target = Value::Null;
                return Ok(());
            }
            Some("replace") => {
                let mut m = p.clone();
                m.remove("$patch");
                *target = Value::Object(m);
                return Ok(());
            }
            _ => {}
        }
    }
    if !target.is_object() {
        *target = Value::Object(serde_json::Map::new());
    }
    let Value::Object(t) = target else {
        return Ok(());
    };
    for (k, v) in p {
        if strategic && k.starts_with('$') {
            continue;
        }
        if v.is_null() {
            t.remove(k);
            continue;
        }
        if strategic
            && let (Value::Array(items), Some(Value::Array(existing))) = (v, t.get_mut(k))
            && let Some(key) = merge_key(k, items, existing)
        {
            merge_list(existing, items, key)?;
            continue;
        }
        if v.is_object() {
            let entry = t.entry(k.clone()).or_insert(Value::Null);
            merge(entry, v, strategic)?;
            if entry.is_null() {
                t.remove(k);
            }
        } else {
            t.insert(k.clone(), v.clone());
        }
    }
    Ok(())
}

/// The `patchMergeKey` of the list field `field` in the Kubernetes types, by field name (the
/// lists a pod template and object metadata carry); `ports` is keyed by `containerPort` in a
/// container and by `port` in a Service, told apart by the elements.
pub(crate) fn merge_key(field: &str, patch: &[Value], target: &[Value]) -> Option<&'static str> {
    Some(match field {
        "containers"
        | "initContainers"
        | "ephemeralContainers"
        | "env"
        | "volumes"
        | "imagePullSecrets"
        | "resourceClaims" => "name",
        "volumeMounts" => "mountPath",
        "volumeDevices" => "devicePath",
        "hostAliases" => "ip",
        "ownerReferences" => "uid",
        "conditions" => "type",
        "ports" => {
            let has = |k: &str| patch.iter().chain(target).any(|e| e.get(k).is_some());
            if has("containerPort") {
                "containerPort"
            } else if has("port") {
                "port"
            } else {
                return None;
            }
        }
        _ => return None,
    })
}

/// Merge list `patch` into `target` by `key`: an element matching one in the target is merged
/// into it (strategically), a new one is appended, one with `$patch: delete` removes its match.
/// An element without the key is refused as kube-apiserver refuses it (a 500 whose message is
/// apimachinery's `ErrNoMergeKey`).
fn merge_list(target: &mut Vec<Value>, patch: &[Value], key: &str) -> Result<(), StatusError> {
    for item in patch {
        let Some(id) = item.get(key) else {
            return Err(StatusError::new(
                500,
                "",
                format!(
                    "map: {} does not contain declared merge key: {key}",
                    go_map(item)
                ),
            ));
        };
        let pos = target.iter().position(|t| t.get(key) == Some(id));
        let delete = item.get("$patch").and_then(Value::as_str) == Some("delete");
        match (pos, delete) {
            (Some(i), true) => {
                target.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => merge(&mut target[i], item, true)?,
            (None, false) => {
                let mut fresh = Value::Null;
                merge(&mut fresh, item, true)?;
                target.push(fresh);
            }
        }
    }
    Ok(())
}

/// `v` as Go's `%v` prints a decoded JSON value: `map[k:v ...]` with sorted keys, `[a b]`.
fn go_map(v: &Value) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{k}:{}", go_map(&m[k])))
                .collect();
            format!("map[{}]", inner.join(" "))
        }
        Value::Array(a) => format!("[{}]", a.iter().map(go_map).collect::<Vec<_>>().join(" ")),
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".into(),
        other => other.to_string(),
    }
}

fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn split_pointer(path: &str) -> Result<Vec<String>, StatusError> {
    if path.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = path.strip_prefix('/') else {
        return Err(StatusError::bad_request(format!(
            "json patch path {path:?} must start with '/'"
        )));
    };
    Ok(rest.split('/').map(unescape).collect())
}

fn bad(msg: String) -> StatusError {
    // kube-apiserver reports JSON patch application failures as 422 Invalid-ish; a malformed
    // operation is a 400. Both are 4xx; we use 422 for "cannot apply" like the apiserver.
    StatusError::new(422, wv::REASON_INVALID, msg)
}

fn parent_mut<'a>(root: &'a mut Value, tokens: &[String]) -> Result<&'a mut Value, StatusError> {
    let mut cur = root;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m
                .get_mut(t)
                .ok_or_else(|| bad(format!("doc is missing path: /{}", tokens.join("/"))))?,
            Value::Array(a) => {
                let i: usize = t
                    .parse()
                    .map_err(|_| bad(format!("invalid array index {t:?}")))?;
                a.get_mut(i)
                    .ok_or_else(|| bad(format!("array index {i} out of bounds")))?
            }
            _ => return Err(bad(format!("doc is missing path: /{}", tokens.join("/")))),
        };
    }
    Ok(cur)
}

fn get_at(root: &Value, tokens: &[String]) -> Result<Value, StatusError> {
    let mut cur = root;
    for t in tokens {
        cur = match cur {
            Value::Object(m) => m.get(t),
            Value::Array(a) => t.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        }
        .ok_or_else(|| bad(format!("doc is missing path: /{}", tokens.join("/"))))?;
    }
    Ok(cur.clone())
}

fn remove_at(root: &mut Value, tokens: &[String]) -> Result<Value, StatusError> {
    let Some((last, parent)) = tokens.split_last() else {
        return Err(bad("cannot remove the whole document".into()));
    };
    match parent_mut(root, parent)? {
        Value::Object(m) => m
            .remove(last)
            .ok_or_else(|| bad(format!("unable to remove nonexistent key: {last}"))),
        Value::Array(a) => {
            let i: usize = last
                .parse()
                .map_err(|_| bad(format!("invalid array index {last:?}")))?;
            if i >= a.len() {
                return Err(bad(format!("array index {i} out of bounds")));
            }
            Ok(a.remove(i))
        }
        _ => Err(bad("remove target is not a container".into())),
    }
}

fn add_at(
    root: &mut Value,
    tokens: &[String],
    value: Value,
    replace: bool,
) -> Result<(), StatusError> {
    let Some((last, parent)) = tokens.split_last() else {
        *root = value;
        return Ok(());
    };
    match parent_mut(root, parent)? {
        Value::Object(m) => {
            if replace && !m.contains_key(last) {
                return Err(bad(format!(
                    "replace operation does not apply: doc is missing key: /{}",
                    tokens.join("/")
                )));
            }
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" && !replace {
                a.push(value);
                return Ok(());
            }
            let i: usize = last
                .parse()
                .map_err(|_| bad(format!("invalid array index {last:?}")))?;
            if replace {
                let slot = a
                    .get_mut(i)
                    .ok_or_else(|| bad(format!("array index {i} out of bounds")))?;
                *slot = value;
            } else {
                if i > a.len() {
                    return Err(bad(format!("array index {i} out of bounds")));
                }
                a.insert(i, value);
            }
            Ok(())
        }
        _ => Err(bad("add target is not a container".into())),
    }
}

fn json_patch(target: &mut Value, patch: &Value) -> Result<(), StatusError> {
    let Value::Array(ops) = patch else {
        return Err(StatusError::bad_request(
            "json patch must be an array of operations",
        ));
    };
    for op in ops {
        let name = op
            .get("op")
            .and_then(Value::as_str)
            .ok_or_else(|| StatusError::bad_request("json patch operation is missing \"op\""))?;
        let path = op
            .get("path")
            .and_then(Value::as_str)
            .ok_or_else(|| StatusError::bad_request("json patch operation is missing \"path\""))?;
        let tokens = split_pointer(path)?;
        let value = || {
            op.get("value").cloned().ok_or_else(|| {
                StatusError::bad_request(format!("json patch {name} operation needs \"value\""))
            })
        };
        let from = || -> Result<Vec<String>, StatusError> {
            let f = op.get("from").and_then(Value::as_str).ok_or_else(|| {
                StatusError::bad_request(format!("json patch {name} operation needs \"from\""))
            })?;
            split_pointer(f)
        };
        match name {
            "add" => add_at(target, &tokens, value()?, false)?,
            "replace" => add_at(target, &tokens, value()?, true)?,
            "remove" => {
                remove_at(target, &tokens)?;
            }
            "test" => {
                if get_at(target, &tokens)? != value()? {
                    return Err(bad(format!("testing value {path} failed")));
                }
            }
            "move" => {
                let v = remove_at(target, &from()?)?;
                add_at(target, &tokens, v, false)?;
            }
            "copy" => {
                let v = get_at(target, &from()?)?;
                add_at(target, &tokens, v, false)?;
            }
            other => {
                return Err(StatusError::bad_request(format!(
                    "unexpected json patch operation {other:?}"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patch_merges_maps_and_null_deletes() {
        let mut v = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "spec": {"x": [1, 2]}});
        apply(
            PatchType::Merge,
            &mut v,
            &json!({"metadata": {"labels": {"a": null, "c": "3"}}, "spec": {"x": [3]}}),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"metadata": {"labels": {"b": "2", "c": "3"}}, "spec": {"x": [3]}})
        );
    }

    #[test]
    fn strategic_patch_honours_patch_directives_on_maps() {
        let mut v = json!({"metadata": {"labels": {"a": "1"}, "annotations": {"x": "y"}}});
        apply(
            PatchType::Strategic,
            &mut v,
            &json!({"metadata": {"labels": {"$patch": "replace", "z": "9"}, "annotations": {"$patch": "delete"}}}),
        )
        .unwrap();
        assert_eq!(v, json!({"metadata": {"labels": {"z": "9"}}}));
    }

    #[test]
    fn strategic_patch_merges_keyed_lists_as_kube_apiserver_does() {
        let mut v = json!({"spec": {"template": {"spec": {
            "containers": [
                {"name": "web", "image": "web:1", "ports": [{"containerPort": 80, "name": "http"}]},
                {"name": "proxy", "image": "envoy:1"}
            ],
            "tolerations": [{"key": "a"}]
        }}}});
        // What `kubectl set image deploy/x proxy=envoy:2` sends, plus a new container, a
        // deleted one and a list without a merge key.
        apply(
            PatchType::Strategic,
            &mut v,
            &json!({"spec": {"template": {"spec": {
                "$setElementOrder/containers": [{"name": "web"}, {"name": "proxy"}],
                "containers": [
                    {"name": "proxy", "image": "envoy:2"},
                    {"name": "web", "ports": [{"containerPort": 80, "protocol": "TCP"}]},
                    {"name": "debug", "image": "busybox"}
                ],
                "tolerations": [{"key": "b"}]
            }}}}),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"spec": {"template": {"spec": {
                "containers": [
                    {"name": "web", "image": "web:1",
                     "ports": [{"containerPort": 80, "name": "http", "protocol": "TCP"}]},
                    {"name": "proxy", "image": "envoy:2"},
                    {"name": "debug", "image": "busybox"}
                ],
                "tolerations": [{"key": "b"}]
            }}}})
        );
        apply(
            PatchType::Strategic,
            &mut v,
            &json!({"spec": {"template": {"spec": {
                "containers": [{"name": "debug", "$patch": "delete"}]
            }}}}),
        )
        .unwrap();
        // An element without its merge key is refused, as kube-apiserver refuses it.
        let err = apply(
            PatchType::Strategic,
            &mut v.clone(),
            &json!({"spec": {"template": {"spec": {"containers": [{"image": "x"}]}}}}),
        )
        .unwrap_err();
        assert_eq!(err.code, 500);
        assert_eq!(
            err.message,
            "map: map[image:x] does not contain declared merge key: name"
        );
        let names: Vec<&str> = v["spec"]["template"]["spec"]["containers"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(names, ["web", "proxy"]);
    }

    #[test]
    fn json_patch_supports_all_operations() {
        let mut v = json!({"a": {"b": 1}, "l": [1, 2]});
        apply(
            PatchType::Json,
            &mut v,
            &json!([
                {"op": "add", "path": "/a/c", "value": 2},
                {"op": "replace", "path": "/a/b", "value": 5},
                {"op": "add", "path": "/l/-", "value": 3},
                {"op": "remove", "path": "/l/0"},
                {"op": "copy", "from": "/a/c", "path": "/d"},
                {"op": "move", "from": "/d", "path": "/e"},
                {"op": "test", "path": "/e", "value": 2},
                {"op": "add", "path": "/k~1x", "value": true}
            ]),
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": {"b": 5, "c": 2}, "l": [2, 3], "e": 2, "k/x": true})
        );
    }

    #[test]
    fn json_patch_failures_are_4xx() {
        let mut v = json!({"a": 1});
        let e = apply(
            PatchType::Json,
            &mut v,
            &json!([{"op": "test", "path": "/a", "value": 2}]),
        )
        .unwrap_err();
        assert_eq!(e.code, 422);
        let e = apply(PatchType::Json, &mut v, &json!({"op": "add"})).unwrap_err();
        assert_eq!(e.code, 400);
        let e = apply(
            PatchType::Json,
            &mut v,
            &json!([{"op": "remove", "path": "/zz"}]),
        )
        .unwrap_err();
        assert_eq!(e.code, 422);
        assert_eq!(
            PatchType::from_content_type("application/apply-patch+yaml"),
            Ok(PatchType::Apply)
        );
        assert!(PatchType::from_content_type("application/apply-patch+cbor").is_err());
    }
}
