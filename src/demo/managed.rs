//! `metadata.managedFields` on the demo server's writes, as kube-apiserver's field manager keeps
//! them for `Update` operations: the writer's entry (manager, operation, subresource) gains the
//! fields its write changed, with the write's time; other entries lose those fields; an entry
//! left owning nothing is dropped.
//!
//! Counterpart: apiserver's `fieldmanager` (`managedfields.NewFieldManager`, its update path
//! with `structured-merge-diff`'s set operations). Differences: the sets are computed from a
//! JSON diff of the stored and the written object (no OpenAPI schema: lists are keyed by the
//! fields [`super::realistic`] knows, other lists are atomic), there is no server-side apply
//! (`Apply` operations, conflicts), and removed fields just leave their owners' sets as they
//! were. The manager is the request's `fieldManager` parameter, else the User-Agent's program
//! name, as the API server defaults it.

use serde_json::{Map, Value, json};

use super::realistic::{fields_v1, list_keys};

/// Who writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldManager {
    pub manager: String,
    /// `""` for the object itself, `status`, `scale`.
    pub subresource: &'static str,
}

impl FieldManager {
    pub fn new(manager: impl Into<String>, subresource: &'static str) -> Self {
        Self {
            manager: manager.into(),
            subresource,
        }
    }

    /// The manager of a request: its `fieldManager` parameter, else the program name the
    /// User-Agent starts with (`kubectl/v1.33.0 (linux/amd64)` → `kubectl`).
    pub fn of_request(
        field_manager: Option<&str>,
        user_agent: &str,
        subresource: &'static str,
    ) -> Self {
        let manager = match field_manager.filter(|m| !m.is_empty()) {
            Some(m) => m.to_string(),
            None => {
                let program = user_agent.split('/').next().unwrap_or("").trim();
                if program.is_empty() {
                    "unknown".to_string()
                } else {
                    program.to_string()
                }
            }
        };
        Self::new(manager, subresource)
    }

    /// The simulated controller writing the status of `kind` (the kubelet for pods).
    pub fn status_of(kind: &str) -> Self {
        let manager = if kind == "Pod" {
            "kubelet"
        } else {
            "kube-controller-manager"
        };
        Self::new(manager, "status")
    }

    /// The simulated controllers' spec and metadata writes.
    pub fn controller() -> Self {
        Self::new("kube-controller-manager", "")
    }
}

/// The part of `new` that differs from `old` (`name`: the field holding them, for list keys):
/// changed leaves, keyed list items with their key fields. `None`: nothing changed.
fn changed(old: Option<&Value>, new: &Value, name: &str) -> Option<Value> {
    match (old, new) {
        (Some(o), n) if o == n => None,
        (Some(Value::Object(o)), Value::Object(n)) => {
            let m: Map<String, Value> = n
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), changed(o.get(k), v, k)?)))
                .collect();
            (!m.is_empty()).then_some(Value::Object(m))
        }
        (Some(Value::Array(o)), Value::Array(n)) => {
            let Some(keys) = list_keys(name) else {
                return Some(new.clone());
            };
            let key_of = |item: &Value| -> Vec<Option<Value>> {
                keys.iter().map(|k| item.get(*k).cloned()).collect()
            };
            let items: Vec<Value> = n
                .iter()
                .filter_map(|item| {
                    let before = o.iter().find(|x| key_of(x) == key_of(item));
                    let mut diff = changed(before, item, "")?;
                    if let (Value::Object(d), Value::Object(i)) = (&mut diff, item) {
                        for k in keys.iter() {
                            if let Some(v) = i.get(*k) {
                                d.insert((*k).to_string(), v.clone());
                            }
                        }
                    }
                    Some(diff)
                })
                .collect();
            (!items.is_empty()).then_some(Value::Array(items))
        }
        _ => Some(new.clone()),
    }
}

/// Add the set `add` to `set`.
fn merge(set: &mut Map<String, Value>, add: &Map<String, Value>) {
    for (k, v) in add {
        match (set.get_mut(k), v) {
            (Some(Value::Object(mine)), Value::Object(theirs)) => merge(mine, theirs),
            _ => {
                set.insert(k.clone(), v.clone());
            }
        }
    }
}

/// Take the leaves of `gone` out of `set` (a sub-set left empty goes too).
fn subtract(set: &mut Map<String, Value>, gone: &Map<String, Value>) {
    for (k, v) in gone {
        if k == "." {
            continue;
        }
        let Value::Object(sub) = v else { continue };
        if sub.is_empty() || sub.keys().all(|k| k == ".") {
            set.remove(k);
            continue;
        }
        if let Some(Value::Object(mine)) = set.get_mut(k) {
            subtract(mine, sub);
            if mine.is_empty() {
                set.remove(k);
            }
        }
    }
}

/// What of an object a write can own: its labels and annotations, everything but metadata.
fn ownable(v: &Value, with_status: bool, only_status: bool) -> Value {
    let mut out = Map::new();
    let Some(m) = v.as_object() else {
        return Value::Object(out);
    };
    for (k, x) in m {
        match k.as_str() {
            "apiVersion" | "kind" => {}
            "metadata" => {
                if only_status {
                    continue;
                }
                let mut meta = Map::new();
                for f in ["labels", "annotations"] {
                    if let Some(x) = x.get(f) {
                        meta.insert(f.to_string(), x.clone());
                    }
                }
                out.insert(k.clone(), Value::Object(meta));
            }
            "status" if with_status => {
                out.insert(k.clone(), x.clone());
            }
            "status" => {}
            _ if only_status => {}
            _ => {
                out.insert(k.clone(), x.clone());
            }
        }
    }
    Value::Object(out)
}

/// Record `by`'s write of `new` over `old` (`None`: a create) in `new`'s managedFields (the
/// entries it holds: the stored ones, carried over by the caller), at `time` (RFC 3339). `status`: which part the write owns: the status only (a status write),
/// everything but the status (a main-resource write), or both.
pub fn record(old: Option<&Value>, new: &mut Value, by: &FieldManager, part: Part, time: &str) {
    let (with_status, only_status) = match part {
        Part::Status => (true, true),
        Part::Main => (false, false),
        Part::All => (true, false),
    };
    let before = old.map(|o| ownable(o, with_status, only_status));
    let after = ownable(new, with_status, only_status);
    let Some(Value::Object(diff)) = changed(before.as_ref(), &after, "") else {
        return;
    };
    let set = fields_v1(&diff);
    let api_version = new
        .get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("v1")
        .to_string();
    let mut entries: Vec<Value> = new
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let is_mine = |e: &Value| {
        e.get("manager").and_then(Value::as_str) == Some(by.manager.as_str())
            && e.get("operation").and_then(Value::as_str) == Some("Update")
            && e.get("subresource").and_then(Value::as_str).unwrap_or("") == by.subresource
    };
    for e in entries.iter_mut().filter(|e| !is_mine(e)) {
        if let Some(Value::Object(fields)) = e.get_mut("fieldsV1") {
            subtract(fields, &set);
        }
    }
    match entries.iter_mut().find(|e| is_mine(e)) {
        Some(e) => {
            if let Some(Value::Object(fields)) = e.get_mut("fieldsV1") {
                merge(fields, &set);
            }
            e["time"] = json!(time);
        }
        None => {
            let mut e = json!({"manager": by.manager, "operation": "Update",
                "apiVersion": api_version, "time": time, "fieldsType": "FieldsV1",
                "fieldsV1": Value::Object(set)});
            if !by.subresource.is_empty() {
                e["subresource"] = json!(by.subresource);
            }
            entries.push(e);
        }
    }
    entries.retain(|e| {
        e.get("fieldsV1")
            .and_then(Value::as_object)
            .is_some_and(|f| !f.is_empty())
    });
    if let Some(meta) = new.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.insert("managedFields".into(), Value::Array(entries));
    }
}

/// Which part of an object a write owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// A `/status` write.
    Status,
    /// A main-resource write of a kind with a status subresource.
    Main,
    /// A kind without a status subresource, or a create.
    All,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::history::Ownership;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;

    fn deployment(replicas: u32, image: &str) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}},
            "spec": {"replicas": replicas, "template": {"spec": {"containers": [
                {"name": "web", "image": image, "imagePullPolicy": "IfNotPresent"}]}}},
            "status": {"replicas": replicas}})
    }

    fn owner(v: &Value, path: &str) -> String {
        let entries: Vec<ManagedFieldsEntry> =
            serde_json::from_value(v["metadata"]["managedFields"].clone()).expect("entries");
        Ownership::of(&entries)
            .owner(path)
            .map_or("nobody".into(), |w| w.writer.to_string())
    }

    #[test]
    fn each_write_gives_its_manager_the_fields_it_changed() {
        let mut created = deployment(3, "web:1.4");
        record(
            None,
            &mut created,
            &FieldManager::new("kubectl-create", ""),
            Part::Main,
            "2026-11-28T10:01:00Z",
        );
        let mut scaled = deployment(5, "web:1.4");
        scaled["metadata"]["managedFields"] = created["metadata"]["managedFields"].clone();
        let by = FieldManager::new("kubectl-scale", "scale");
        record(
            Some(&created),
            &mut scaled,
            &by,
            Part::Main,
            "2026-11-28T10:02:00Z",
        );
        let mut set = deployment(5, "web:1.5");
        set["metadata"]["managedFields"] = scaled["metadata"]["managedFields"].clone();
        let by = FieldManager::new("kubectl-set", "");
        record(
            Some(&scaled),
            &mut set,
            &by,
            Part::Main,
            "2026-11-28T10:03:00Z",
        );

        assert_eq!(
            owner(&set, "/spec/replicas"),
            "kubectl-scale (Update, scale)"
        );
        assert_eq!(
            owner(&set, "/spec/template/spec/containers/web/image"),
            "kubectl-set (Update)"
        );
        assert_eq!(
            owner(&set, "/spec/template/spec/containers/web/imagePullPolicy"),
            "kubectl-create (Update)"
        );
        assert_eq!(
            owner(&set, "/metadata/labels/app"),
            "kubectl-create (Update)"
        );
        // A main-resource write owns no status.
        assert_eq!(owner(&set, "/status/replicas"), "nobody");
    }

    #[test]
    fn a_status_write_is_owned_through_the_status_subresource() {
        let old = deployment(3, "web:1.4");
        let mut new = deployment(3, "web:1.4");
        new["status"]["replicas"] = json!(2);
        record(
            Some(&old),
            &mut new,
            &FieldManager::status_of("Deployment"),
            Part::Status,
            "2026-11-28T10:04:00Z",
        );
        assert_eq!(
            owner(&new, "/status/replicas"),
            "kube-controller-manager (Update, status)"
        );
        assert_eq!(owner(&new, "/spec/replicas"), "nobody");
    }

    #[test]
    fn an_entry_left_owning_nothing_is_dropped() {
        let mut old = deployment(3, "web:1.4");
        old["metadata"]["managedFields"] = json!([{"manager": "hpa", "operation": "Update",
            "apiVersion": "apps/v1", "time": "2026-11-28T10:00:00Z", "fieldsType": "FieldsV1",
            "fieldsV1": {"f:spec": {"f:replicas": {}}}}]);
        let mut new = deployment(4, "web:1.4");
        new["metadata"]["managedFields"] = old["metadata"]["managedFields"].clone();
        record(
            Some(&old),
            &mut new,
            &FieldManager::new("kubectl-scale", "scale"),
            Part::Main,
            "2026-11-28T10:01:00Z",
        );
        let managers: Vec<&str> = new["metadata"]["managedFields"]
            .as_array()
            .expect("entries")
            .iter()
            .filter_map(|e| e["manager"].as_str())
            .collect();
        assert_eq!(managers, ["kubectl-scale"]);
    }

    #[test]
    fn the_manager_defaults_to_the_user_agents_program() {
        let m = FieldManager::of_request(None, "kubectl/v1.33.0 (linux/amd64) kubernetes/abc", "");
        assert_eq!(m.manager, "kubectl");
        let m = FieldManager::of_request(Some("kubectl-scale"), "kubectl/v1.33.0", "scale");
        assert_eq!(
            (m.manager.as_str(), m.subresource),
            ("kubectl-scale", "scale")
        );
    }
}
