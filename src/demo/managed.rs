//! Managed fields and server-side apply, as kube-apiserver's field manager keeps them
//! (`k8s.io/apimachinery/pkg/util/managedfields` over `sigs.k8s.io/structured-merge-diff`).
//!
//! Every client write records which manager owns which fields in `metadata.managedFields`
//! (`FieldsV1`: `f:name` for a field, `k:{"name":"web"}` for a keyed list element, `.` for the
//! node itself): an `Update` entry (create, update, patch) takes the fields it added or changed
//! from the other managers; an `Apply` entry (a PATCH with `application/apply-patch+yaml`) owns
//! exactly the fields of its last applied configuration, conflicts (409, causes of type
//! `FieldManagerConflict`) when it would change a field another manager owns unless forced, and
//! removes the fields it stopped applying that nobody else owns. An object written before
//! managed fields existed is attributed to `before-first-apply` on its first apply, as the
//! apiserver's `SkipNonAppliedManager` does.
//!
//! Where it differs, and why: there is no OpenAPI schema behind it. Maps are granular, lists are
//! atomic except those [`super::patch`] merges by a key (containers by `name`, ...), keyed by
//! that one field (kube keys container ports by `containerPort` and `protocol`); structs the
//! schema marks atomic (a `LabelSelector`) are granular here. Entries are kept per manager,
//! operation and subresource (each kind has one apiVersion here).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::error::StatusError;
use super::patch::{self, PatchType};
use crate::informer::wire_values as wv;

/// The manager kube-apiserver attributes an unmanaged object's fields to on its first apply.
pub const BEFORE_FIRST_APPLY: &str = "before-first-apply";

/// Who writes and how: a client request's `fieldManager` and `dryRun=All`. `manager: None` is
/// the simulator's own write (no managed fields recorded, the stored ones kept).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteOptions {
    pub manager: Option<String>,
    pub dry_run: bool,
    /// The subresource written through when the update's mode does not say it (`scale`; a
    /// `status` update is recorded as `status` anyway).
    pub subresource: Option<String>,
}

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Elem {
    Field(String),
    /// A keyed list element: its key fields with their values as JSON text, sorted by field.
    Key(Vec<(String, String)>),
}

/// A set of field paths, as a tree: `member` when the path ending here is in the set.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldSet {
    member: bool,
    children: BTreeMap<Elem, FieldSet>,
}

/// A path as structured-merge-diff prints it: `.spec.containers[name="web"].image`.
pub fn path_string(path: &[Elem]) -> String {
    let mut s = String::new();
    for e in path {
        match e {
            Elem::Field(f) => {
                s.push('.');
                s.push_str(f);
            }
            Elem::Key(kv) => {
                let parts: Vec<String> = kv.iter().map(|(k, v)| format!("{k}={v}")).collect();
                s.push('[');
                s.push_str(&parts.join(","));
                s.push(']');
            }
        }
    }
    s
}

impl FieldSet {
    pub fn is_empty(&self) -> bool {
        !self.member && self.children.values().all(FieldSet::is_empty)
    }

    pub fn insert(&mut self, path: &[Elem]) {
        match path.split_first() {
            None => self.member = true,
            Some((head, rest)) => self.children.entry(head.clone()).or_default().insert(rest),
        }
    }

    pub fn contains(&self, path: &[Elem]) -> bool {
        match path.split_first() {
            None => self.member,
            Some((head, rest)) => self.children.get(head).is_some_and(|c| c.contains(rest)),
        }
    }

    /// Drop the member `path` (not what lies under it).
    pub fn remove(&mut self, path: &[Elem]) {
        match path.split_first() {
            None => self.member = false,
            Some((head, rest)) => {
                if let Some(c) = self.children.get_mut(head) {
                    c.remove(rest);
                    if c.is_empty() {
                        self.children.remove(head);
                    }
                }
            }
        }
    }

    pub fn union(&mut self, other: &FieldSet) {
        self.member |= other.member;
        for (k, c) in &other.children {
            self.children.entry(k.clone()).or_default().union(c);
        }
    }

    fn combine(&self, other: &FieldSet, keep: fn(bool, bool) -> bool) -> FieldSet {
        let empty = FieldSet::default();
        let mut out = FieldSet {
            member: keep(self.member, other.member),
            children: BTreeMap::new(),
        };
        for (k, c) in &self.children {
            let sub = c.combine(other.children.get(k).unwrap_or(&empty), keep);
            if !sub.is_empty() {
                out.children.insert(k.clone(), sub);
            }
        }
        out
    }

    /// The members of `self` not in `other`.
    pub fn difference(&self, other: &FieldSet) -> FieldSet {
        self.combine(other, |a, b| a && !b)
    }

    pub fn intersection(&self, other: &FieldSet) -> FieldSet {
        self.combine(other, |a, b| a && b)
    }

    /// Every member path, in set order.
    pub fn paths(&self) -> Vec<Vec<Elem>> {
        let mut out = Vec::new();
        self.collect(&mut Vec::new(), &mut out);
        out
    }

    fn collect(&self, prefix: &mut Vec<Elem>, out: &mut Vec<Vec<Elem>>) {
        if self.member {
            out.push(prefix.clone());
        }
        for (k, c) in &self.children {
            prefix.push(k.clone());
            c.collect(prefix, out);
            prefix.pop();
        }
    }

    /// The `FieldsV1` JSON form.
    pub fn to_fields_v1(&self) -> Value {
        let mut m = Map::new();
        if self.member && !self.children.is_empty() {
            m.insert(".".into(), json!({}));
        }
        for (k, c) in &self.children {
            let key = match k {
                Elem::Field(f) => format!("f:{f}"),
                Elem::Key(kv) => {
                    let parts: Vec<String> = kv
                        .iter()
                        .map(|(k, v)| format!("{}:{v}", Value::String(k.clone())))
                        .collect();
                    format!("k:{{{}}}", parts.join(","))
                }
            };
            m.insert(key, c.to_fields_v1());
        }
        Value::Object(m)
    }

    /// From `FieldsV1`; value (`v:`) and index (`i:`) elements, which this server never
    /// writes, are skipped.
    pub fn from_fields_v1(v: &Value) -> FieldSet {
        let mut out = FieldSet::default();
        let Some(m) = v.as_object() else {
            return out;
        };
        if m.is_empty() {
            out.member = true;
        }
        for (k, c) in m {
            let elem = if k == "." {
                out.member = true;
                continue;
            } else if let Some(f) = k.strip_prefix("f:") {
                Elem::Field(f.to_string())
            } else if let Some(Ok(Value::Object(kv))) =
                k.strip_prefix("k:").map(serde_json::from_str::<Value>)
            {
                Elem::Key(kv.iter().map(|(k, v)| (k.clone(), v.to_string())).collect())
            } else {
                continue;
            };
            out.children.insert(elem, FieldSet::from_fields_v1(c));
        }
        out
    }
}

/// The key field of the list under `field`, when every element carries it.
fn list_key(field: Option<&str>, items: &[Value]) -> Option<&'static str> {
    let key = patch::merge_key(field?, items, &[])?;
    items.iter().all(|i| i.get(key).is_some()).then_some(key)
}

fn key_elem(key: &str, item: &Value) -> Elem {
    let v = item.get(key).map(Value::to_string).unwrap_or_default();
    Elem::Key(vec![(key.to_string(), v)])
}

/// The fields an applied configuration sets: its leaves (an empty map is one) and its keyed
/// list elements.
fn leaves(v: &Value, field: Option<&str>, path: &mut Vec<Elem>, out: &mut FieldSet) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, c) in m {
                path.push(Elem::Field(k.clone()));
                leaves(c, Some(k), path, out);
                path.pop();
            }
        }
        Value::Array(items) => match list_key(field, items) {
            Some(key) => {
                for item in items {
                    path.push(key_elem(key, item));
                    out.insert(path);
                    leaves(item, None, path, out);
                    path.pop();
                }
            }
            None => out.insert(path),
        },
        _ => out.insert(path),
    }
}

/// `path` and everything under it.
fn whole(v: &Value, field: Option<&str>, path: &mut Vec<Elem>, out: &mut FieldSet) {
    out.insert(path);
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                path.push(Elem::Field(k.clone()));
                whole(c, Some(k), path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            if let Some(key) = list_key(field, items) {
                for item in items {
                    path.push(key_elem(key, item));
                    whole(item, None, path, out);
                    path.pop();
                }
            }
        }
        _ => {}
    }
}

/// What changed from one object to the next, as structured-merge-diff's `Comparison`.
#[derive(Debug, Default)]
pub struct Comparison {
    pub added: FieldSet,
    pub modified: FieldSet,
    pub removed: FieldSet,
}

fn compare_at(
    old: &Value,
    new: &Value,
    field: Option<&str>,
    path: &mut Vec<Elem>,
    c: &mut Comparison,
) {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (k, ov) in o {
                path.push(Elem::Field(k.clone()));
                match n.get(k) {
                    Some(nv) => compare_at(ov, nv, Some(k), path, c),
                    None => whole(ov, Some(k), path, &mut c.removed),
                }
                path.pop();
            }
            for (k, nv) in n.iter().filter(|(k, _)| !o.contains_key(*k)) {
                path.push(Elem::Field(k.clone()));
                whole(nv, Some(k), path, &mut c.added);
                path.pop();
            }
        }
        (Value::Array(o), Value::Array(n))
            if list_key(field, o).is_some() && list_key(field, o) == list_key(field, n) =>
        {
            let Some(key) = list_key(field, o) else {
                return;
            };
            for ov in o {
                path.push(key_elem(key, ov));
                match n.iter().find(|nv| nv.get(key) == ov.get(key)) {
                    Some(nv) => compare_at(ov, nv, None, path, c),
                    None => whole(ov, None, path, &mut c.removed),
                }
                path.pop();
            }
            for nv in n
                .iter()
                .filter(|nv| !o.iter().any(|ov| ov.get(key) == nv.get(key)))
            {
                path.push(key_elem(key, nv));
                whole(nv, None, path, &mut c.added);
                path.pop();
            }
        }
        _ => {
            if old != new {
                c.modified.insert(path);
            }
        }
    }
}

/// Compare two (stripped) objects.
pub fn compare(old: &Value, new: &Value) -> Comparison {
    let mut c = Comparison::default();
    compare_at(old, new, None, &mut Vec::new(), &mut c);
    c
}

/// The object as the field manager sees it: without the server-owned metadata, and without
/// `status` where the main resource resets it (a kind with a status subresource).
fn strip(v: &Value, strip_status: bool) -> Value {
    let mut v = v.clone();
    if let Some(o) = v.as_object_mut() {
        o.remove("apiVersion");
        o.remove("kind");
        if strip_status {
            o.remove("status");
        }
        if let Some(m) = o.get_mut("metadata").and_then(Value::as_object_mut) {
            for f in [
                "name",
                "namespace",
                "creationTimestamp",
                "selfLink",
                "uid",
                "generation",
                "managedFields",
                "resourceVersion",
            ] {
                m.remove(f);
            }
        }
    }
    v
}

/// Remove the members no manager may own (the ignored `metadata` node itself, the root).
fn ignore(set: &mut FieldSet) {
    set.remove(&[Elem::Field("metadata".into())]);
    set.remove(&[]);
}

/// One `managedFields` entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: &'static str,
    pub api_version: String,
    pub time: Option<String>,
    pub subresource: Option<String>,
    pub fields: FieldSet,
}

impl Entry {
    fn same_owner(&self, manager: &str, operation: &str, subresource: Option<&str>) -> bool {
        self.manager == manager
            && self.operation == operation
            && self.subresource.as_deref() == subresource
    }

    /// How a conflict names it (apimachinery's `printManager`; the identifier it prints
    /// carries no time).
    fn printed(&self) -> String {
        let mut s = format!("{:?}", self.manager);
        if let Some(sub) = &self.subresource {
            s.push_str(&format!(" with subresource {sub:?}"));
        }
        if self.operation == "Update" {
            s.push_str(&format!(" using {}", self.api_version));
        }
        s
    }

    fn to_json(&self) -> Value {
        let mut e = json!({
            "manager": self.manager,
            "operation": self.operation,
            "apiVersion": self.api_version,
            "fieldsType": "FieldsV1",
            "fieldsV1": self.fields.to_fields_v1(),
        });
        if let Some(t) = &self.time {
            e["time"] = json!(t);
        }
        if let Some(s) = &self.subresource {
            e["subresource"] = json!(s);
        }
        e
    }

    fn from_json(v: &Value) -> Option<Entry> {
        let operation = match v.get("operation")?.as_str()? {
            "Apply" => "Apply",
            "Update" => "Update",
            _ => return None,
        };
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        Some(Entry {
            manager: s("manager").unwrap_or_default(),
            operation,
            api_version: s("apiVersion")?,
            time: s("time"),
            subresource: s("subresource").filter(|s| !s.is_empty()),
            fields: FieldSet::from_fields_v1(v.get("fieldsV1").unwrap_or(&Value::Null)),
        })
    }
}

/// The entries an object carries.
pub fn entries(obj: &Value) -> Vec<Entry> {
    obj.pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Entry::from_json).collect())
        .unwrap_or_default()
}

/// Write `entries` into `obj`, in the apiserver's order (Apply before Update, then by time,
/// manager, apiVersion and subresource); none left removes the field.
fn set_entries(obj: &mut Value, mut entries: Vec<Entry>) {
    entries.retain(|e| !e.fields.is_empty());
    entries.sort_by(|a, b| {
        (
            a.operation,
            &a.time,
            &a.manager,
            &a.api_version,
            &a.subresource,
        )
            .cmp(&(
                b.operation,
                &b.time,
                &b.manager,
                &b.api_version,
                &b.subresource,
            ))
    });
    let Some(meta) = obj.get_mut("metadata").and_then(Value::as_object_mut) else {
        return;
    };
    if entries.is_empty() {
        meta.remove("managedFields");
    } else {
        meta.insert(
            "managedFields".into(),
            Value::Array(entries.iter().map(Entry::to_json).collect()),
        );
    }
}

fn api_version_of(obj: &Value) -> String {
    obj.get("apiVersion")
        .and_then(Value::as_str)
        .unwrap_or("v1")
        .to_string()
}

/// Record an `Update` by `manager` from `old` (none: a create) to `new`: the fields it added or
/// changed become its own and leave the other managers; removed fields leave everyone. The
/// entries are the stored object's (a client's `managedFields` in the body are not taken).
pub fn record_update(
    old: Option<&Value>,
    new: &mut Value,
    manager: &str,
    subresource: Option<&str>,
    strip_status: bool,
    now: &str,
) {
    let empty = json!({});
    let old_v = old.unwrap_or(&empty);
    let mut list = entries(old_v);
    // A write through `status` changes the status alone (kube-apiserver's status strategies
    // keep the stored spec): its writer owns no field outside it, whatever else the
    // simulator's whole-object write carried (a pod's `spec.nodeName`, which the scheduler's
    // binding sets without a managedFields owner).
    let seen = |v: &Value| match subresource {
        Some("status") => match v.get("status") {
            Some(s) => json!({ "status": s }),
            None => json!({}),
        },
        _ => strip(v, strip_status),
    };
    let c = compare(&seen(old_v), &seen(new));
    let mut changed = c.added.clone();
    changed.union(&c.modified);
    ignore(&mut changed);
    let changed_anything = !changed.is_empty() || !c.removed.is_empty();
    for e in list.iter_mut() {
        if !e.same_owner(manager, "Update", subresource) {
            e.fields = e.fields.difference(&changed).difference(&c.removed);
        }
    }
    let api_version = api_version_of(new);
    match list
        .iter_mut()
        .find(|e| e.same_owner(manager, "Update", subresource))
    {
        Some(e) => {
            let mut fields = e.fields.clone();
            fields.union(&changed);
            e.fields = fields.difference(&c.removed);
            if changed_anything {
                e.time = Some(now.to_string());
            }
        }
        None => list.push(Entry {
            manager: manager.to_string(),
            operation: "Update",
            api_version,
            time: Some(now.to_string()),
            subresource: subresource.map(str::to_string),
            fields: changed,
        }),
    }
    set_entries(new, list);
}

/// Remove the value at `path` (a field or a keyed list element).
fn remove_path(v: &mut Value, path: &[Elem]) {
    let Some((last, parent)) = path.split_last() else {
        return;
    };
    let mut cur = v;
    for e in parent {
        let next = match (e, cur) {
            (Elem::Field(f), Value::Object(m)) => m.get_mut(f),
            (Elem::Key(kv), Value::Array(items)) => items.iter_mut().find(|i| matches_key(i, kv)),
            _ => None,
        };
        match next {
            Some(n) => cur = n,
            None => return,
        }
    }
    match (last, cur) {
        (Elem::Field(f), Value::Object(m)) => {
            m.remove(f);
        }
        (Elem::Key(kv), Value::Array(items)) => items.retain(|i| !matches_key(i, kv)),
        _ => {}
    }
}

fn matches_key(item: &Value, kv: &[(String, String)]) -> bool {
    kv.iter()
        .all(|(k, v)| item.get(k).map(Value::to_string).as_deref() == Some(v.as_str()))
}

/// A server-side apply of `config` by `manager` onto `live` (none: the object is created).
/// Returns the object to store, its `managedFields` set; a 409 naming each conflicting field
/// and its owner when another manager owns a field the configuration changes, unless `force`
/// (which takes the fields over).
pub fn apply(
    live: Option<&Value>,
    config: &Value,
    manager: &str,
    force: bool,
    strip_status: bool,
    now: &str,
) -> Result<Value, StatusError> {
    if config
        .pointer("/metadata/managedFields")
        .is_some_and(|m| !m.is_null())
    {
        return Err(StatusError::bad_request(
            "metadata.managedFields must be nil",
        ));
    }
    let api_version = api_version_of(config);
    let mut merged = match live {
        Some(l) => {
            let mut m = l.clone();
            patch::apply(PatchType::Strategic, &mut m, config)?;
            m
        }
        None => config.clone(),
    };
    let mut list = live.map(entries).unwrap_or_default();
    if let Some(l) = live
        && list.is_empty()
    {
        // Fields written before anyone applied belong to `before-first-apply`.
        let mut fields = compare(&json!({}), &strip(l, strip_status)).added;
        ignore(&mut fields);
        list.push(Entry {
            manager: BEFORE_FIRST_APPLY.into(),
            operation: "Update",
            api_version: api_version_of(l),
            time: None,
            subresource: None,
            fields,
        });
    }
    let live_s = live.map_or_else(|| json!({}), |l| strip(l, strip_status));
    let c = compare(&live_s, &strip(&merged, strip_status));
    let mut changed = c.modified;
    changed.union(&c.added);
    let mut conflicts: Vec<(String, Vec<Elem>)> = Vec::new();
    for e in list
        .iter_mut()
        .filter(|e| !e.same_owner(manager, "Apply", None))
    {
        let clash = e.fields.intersection(&changed);
        if clash.is_empty() {
            continue;
        }
        if force {
            e.fields = e.fields.difference(&clash);
        } else {
            conflicts.extend(clash.paths().into_iter().map(|p| (e.printed(), p)));
        }
    }
    if !conflicts.is_empty() {
        return Err(conflict_error(conflicts));
    }
    let mut applied = FieldSet::default();
    leaves(
        &strip(config, strip_status),
        None,
        &mut Vec::new(),
        &mut applied,
    );
    ignore(&mut applied);
    let previous = list
        .iter()
        .find(|e| e.same_owner(manager, "Apply", None))
        .map(|e| e.fields.clone())
        .unwrap_or_default();
    let mut others = FieldSet::default();
    for e in list
        .iter()
        .filter(|e| !e.same_owner(manager, "Apply", None))
    {
        others.union(&e.fields);
    }
    // Fields this manager applied before and no longer does, that nobody else owns, go.
    for p in previous.difference(&applied).difference(&others).paths() {
        remove_path(&mut merged, &p);
    }
    list.retain(|e| !e.same_owner(manager, "Apply", None));
    list.push(Entry {
        manager: manager.to_string(),
        operation: "Apply",
        api_version,
        time: Some(now.to_string()),
        subresource: None,
        fields: applied,
    });
    set_entries(&mut merged, list);
    Ok(merged)
}

/// kube-apiserver's apply conflict: 409 `Conflict`, one `FieldManagerConflict` cause per field.
fn conflict_error(mut conflicts: Vec<(String, Vec<Elem>)>) -> StatusError {
    conflicts.sort();
    let causes: Vec<Value> = conflicts
        .iter()
        .map(|(m, p)| {
            json!({
                "reason": "FieldManagerConflict",
                "message": format!("conflict with {m}"),
                "field": path_string(p),
            })
        })
        .collect();
    let message = if let [(m, p)] = conflicts.as_slice() {
        format!(
            "Apply failed with 1 conflict: conflict with {m}: {}",
            path_string(p)
        )
    } else {
        let mut lines = Vec::new();
        let mut last: Option<&str> = None;
        for (m, p) in &conflicts {
            if last != Some(m.as_str()) {
                lines.push(format!("conflicts with {m}:"));
                last = Some(m);
            }
            lines.push(format!("- {}", path_string(p)));
        }
        format!(
            "Apply failed with {} conflicts: {}",
            conflicts.len(),
            lines.join("\n")
        )
    };
    StatusError {
        details: Some(json!({ "causes": causes })),
        ..StatusError::new(409, wv::REASON_CONFLICT, message)
    }
}

#[cfg(test)]
mod tests;
