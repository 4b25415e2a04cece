//! Blame: which field manager owns each field of an object, from its `metadata.managedFields`
//! (server-side apply's field ownership: each entry names a manager, the operation, the
//! subresource written through, when, and the set of fields it owns as `fieldsV1`).
//!
//! client-go / apimachinery counterpart: `managedfields` and structured-merge-diff's
//! `fieldpath.Set` decode `fieldsV1` into paths of `f:` (a field), `k:` (a list item by its
//! key fields), `v:` (a set item by value) and `i:` (an index) segments, `.` marking the node
//! itself. Here each path is written the way history names its leaves (a JSON pointer, a list
//! item by its `name`, else its `type`, else its index, see `super::item_name`), so a recorded
//! change is matched with the manager that owns it; an item keyed by other fields (a port by
//! `containerPort` and `protocol`) gets a segment that names no history leaf, and a field under it
//! goes to the manager owning the nearest enclosing path. kubectl shows none of this (only
//! `--show-managed-fields` prints the raw entries); k9s neither.
//!
//! Invariants:
//! - the owner of a path is the writer of the longest owned path that is the path or encloses
//!   it (an atomic list such as a pod's `f:containerStatuses: {}` owns everything under it);
//!   among co-owners (several appliers of one value) the latest write wins;
//! - never panics on a malformed `fieldsV1` (what does not parse owns nothing).

use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry;
use serde_json::Value;

/// Who wrote: the manager, its operation (`Update`, `Apply`) and the subresource written
/// through (`status`, `scale`; empty for the object itself).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Writer {
    pub manager: Arc<str>,
    pub operation: Arc<str>,
    pub subresource: Arc<str>,
}

impl std::fmt::Display for Writer {
    /// `kubectl-scale (Update)`, `kubelet (Update, status)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let manager = if self.manager.is_empty() {
            "(unnamed manager)"
        } else {
            &self.manager
        };
        write!(f, "{manager} ({}", self.operation)?;
        if !self.subresource.is_empty() {
            write!(f, ", {}", self.subresource)?;
        }
        write!(f, ")")
    }
}

/// One writer's entry: who, and when its last write was (Unix seconds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    pub writer: Writer,
    pub at: Option<i64>,
}

/// The fields a writer owns, for the blame view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlameGroup {
    pub write: Write,
    /// Owned paths (JSON pointers as history names them), sorted.
    pub fields: Vec<String>,
}

/// Field ownership of one object.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Ownership {
    pub writes: Vec<Write>,
    /// (owned path, index in `writes`), sorted by path.
    owned: Vec<(String, usize)>,
}

impl Ownership {
    /// The ownership `entries` (an object's `metadata.managedFields`) describe.
    pub fn of(entries: &[ManagedFieldsEntry]) -> Self {
        let mut out = Ownership::default();
        for e in entries {
            let writer = Writer {
                manager: Arc::from(e.manager.as_deref().unwrap_or("")),
                operation: Arc::from(e.operation.as_deref().unwrap_or("")),
                subresource: Arc::from(e.subresource.as_deref().unwrap_or("")),
            };
            let at = e.time.as_ref().map(|t| t.0.as_second());
            let index = out.writes.len();
            out.writes.push(Write { writer, at });
            if let Some(fields) = &e.fields_v1 {
                let mut path = String::new();
                walk(&fields.0, &mut path, &mut |p| {
                    out.owned.push((p.to_string(), index))
                });
            }
        }
        out.owned.sort();
        out.owned.dedup();
        out
    }

    /// No entry (an object read without its managedFields).
    pub fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// Who owns `path` (a JSON pointer as history names it): the writer of the longest owned
    /// path that is `path` or encloses it, the latest write among co-owners.
    pub fn owner(&self, path: &str) -> Option<&Write> {
        let mut best: Option<(usize, &Write)> = None;
        let mut prefix = path;
        loop {
            // Every owned entry equal to `prefix`.
            let start = self.owned.partition_point(|(p, _)| p.as_str() < prefix);
            for (p, w) in self.owned.iter().skip(start) {
                if p != prefix {
                    break;
                }
                let Some(write) = self.writes.get(*w) else {
                    continue;
                };
                let later = match best {
                    Some((len, b)) => len == prefix.len() && write.at > b.at,
                    None => true,
                };
                if later {
                    best = Some((prefix.len(), write));
                }
            }
            if best.is_some() {
                return best.map(|(_, w)| w);
            }
            match prefix.rfind('/') {
                Some(0) | None => return None,
                Some(i) => prefix = &prefix[..i],
            }
        }
    }

    /// The owned fields grouped by writer, the latest write first.
    pub fn groups(&self) -> Vec<BlameGroup> {
        let mut groups: Vec<BlameGroup> = self
            .writes
            .iter()
            .enumerate()
            .map(|(i, w)| BlameGroup {
                write: w.clone(),
                fields: self
                    .owned
                    .iter()
                    .filter(|(_, o)| *o == i)
                    .map(|(p, _)| p.clone())
                    .collect(),
            })
            .collect();
        groups.sort_by_key(|g| std::cmp::Reverse(g.write.at));
        groups
    }
}

/// Visit every path `set` (a `fieldsV1` node at `path`) owns.
fn walk(set: &Value, path: &mut String, visit: &mut impl FnMut(&str)) {
    let Value::Object(m) = set else {
        return;
    };
    if m.is_empty() && !path.is_empty() {
        visit(path);
        return;
    }
    for (k, child) in m {
        let len = path.len();
        if k == "." {
            if !path.is_empty() {
                visit(path);
            }
            continue;
        }
        let Some(seg) = segment(k) else {
            continue;
        };
        path.push('/');
        push_escaped(path, &seg);
        walk(child, path, visit);
        path.truncate(len);
    }
}

/// A `fieldsV1` key as history's path segment: `f:replicas` → `replicas`,
/// `k:{"name":"web"}` → `web` (its `type` when it has no `name`, else its fields:
/// `k:{"uid":"6f1c"}` → `uid=6f1c`), `i:2` → `2`, `v:"x"` → `x`.
fn segment(k: &str) -> Option<String> {
    let (kind, rest) = k.split_at_checked(2)?;
    match kind {
        "f:" => Some(rest.to_string()),
        "i:" => Some(rest.to_string()),
        "v:" => Some(match serde_json::from_str::<Value>(rest) {
            Ok(Value::String(s)) => s,
            _ => rest.to_string(),
        }),
        "k:" => {
            let key: Value = serde_json::from_str(rest).ok()?;
            let by = |f: &str| key.get(f).and_then(Value::as_str).map(str::to_string);
            Some(by("name").or_else(|| by("type")).unwrap_or_else(|| {
                // Other key fields (a port by `containerPort` and `protocol`, an owner
                // reference by `uid`): `field=value,…`, which the dotted form shows as a
                // selector (`ports[containerPort=8080,protocol=TCP]`).
                match key.as_object() {
                    Some(m) if !m.is_empty() => m
                        .iter()
                        .map(|(f, v)| match v {
                            Value::String(s) => format!("{f}={s}"),
                            other => format!("{f}={other}"),
                        })
                        .collect::<Vec<_>>()
                        .join(","),
                    _ => rest.to_string(),
                }
            }))
        }
        _ => None,
    }
}

/// A JSON pointer segment, escaped as history escapes its paths.
fn push_escaped(path: &mut String, seg: &str) {
    for ch in seg.chars() {
        match ch {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

#[cfg(test)]
#[path = "blame_tests.rs"]
mod tests;
