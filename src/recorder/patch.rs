//! The diff between two versions of an object, as stored between whole versions, and the
//! changed fields named for queries.
//!
//! A patch is a JSON array of operations, each `[path]` (remove) or `[path, value]` (set),
//! where a path is an array of segments: an object key (a string) or an array index (a
//! number). Two arrays of the same length whose items pair up (the same `name`, else the same
//! `type`, else both plain values or both unnamed objects) are diffed item by item; any other
//! array is set whole. So a restart is one small operation
//! (`[["status","containerStatuses",0,"restartCount"],3]`), not a whole status.
//!
//! The changed fields are JSON pointers where an array item with a `name` (else a `type`) is
//! addressed by it, as history names them (`/status/containerStatuses/web/restartCount`):
//! what `sqlite3` queries match with `LIKE`.
//!
//! Invariants: `apply(old, diff(old, new)) == new` for any two JSON values (the table tests
//! pin it, arrays and nulls included).

use serde_json::{Map, Value};

/// At most this many changed fields are named per version (the rest are summed up as `…`).
pub const MAX_FIELDS: usize = 64;

/// One segment of a path.
#[derive(Debug, Clone)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize, Option<&'a str>),
}

/// The operations that turn `old` into `new` (empty: equal), and the changed fields.
pub fn diff(old: &Value, new: &Value) -> (Vec<Value>, Vec<String>) {
    let mut ops = Vec::new();
    let mut fields = Vec::new();
    let mut path = Vec::new();
    walk(old, new, &mut path, &mut ops, &mut fields);
    if fields.len() > MAX_FIELDS {
        fields.truncate(MAX_FIELDS);
        fields.push("…".into());
    }
    (ops, fields)
}

fn item_name(v: &Value) -> Option<&str> {
    let o = v.as_object()?;
    o.get("name")
        .or_else(|| o.get("type"))
        .and_then(Value::as_str)
}

/// Whether two arrays pair up item by item (see the module docs).
fn paired(a: &[Value], b: &[Value]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Value::Object(_), Value::Object(_)) => item_name(x) == item_name(y),
            (Value::Object(_), _) | (_, Value::Object(_)) => false,
            _ => true,
        })
}

fn path_value(path: &[Seg<'_>]) -> Value {
    Value::Array(
        path.iter()
            .map(|s| match s {
                Seg::Key(k) => Value::String((*k).to_string()),
                Seg::Index(i, _) => Value::from(*i),
            })
            .collect(),
    )
}

fn pointer(path: &[Seg<'_>]) -> String {
    let mut s = String::new();
    for seg in path {
        s.push('/');
        match seg {
            Seg::Key(k) => s.push_str(&k.replace('~', "~0").replace('/', "~1")),
            Seg::Index(_, Some(name)) => s.push_str(&name.replace('~', "~0").replace('/', "~1")),
            Seg::Index(i, None) => s.push_str(&i.to_string()),
        }
    }
    s
}

fn walk<'a>(
    old: &'a Value,
    new: &'a Value,
    path: &mut Vec<Seg<'a>>,
    ops: &mut Vec<Value>,
    fields: &mut Vec<String>,
) {
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                path.push(Seg::Key(k));
                match b.get(k) {
                    Some(vb) => walk(va, vb, path, ops, fields),
                    None => {
                        ops.push(Value::Array(vec![path_value(path)]));
                        fields.push(pointer(path));
                    }
                }
                path.pop();
            }
            for (k, vb) in b {
                if !a.contains_key(k) {
                    path.push(Seg::Key(k));
                    ops.push(Value::Array(vec![path_value(path), vb.clone()]));
                    fields.push(pointer(path));
                    path.pop();
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if paired(a, b) => {
            for (i, (va, vb)) in a.iter().zip(b).enumerate() {
                path.push(Seg::Index(i, item_name(vb)));
                walk(va, vb, path, ops, fields);
                path.pop();
            }
        }
        _ if old == new => {}
        _ => {
            ops.push(Value::Array(vec![path_value(path), new.clone()]));
            fields.push(pointer(path));
        }
    }
}

/// Why a patch could not be applied (the file's patch does not fit the version before it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPatch(pub String);

/// Apply `ops` (as [`diff`] makes them) to `target`.
pub fn apply(target: &mut Value, ops: &[Value]) -> Result<(), BadPatch> {
    for op in ops {
        let (path, value) = match op.as_array().map(Vec::as_slice) {
            Some([Value::Array(p)]) => (p, None),
            Some([Value::Array(p), v]) => (p, Some(v)),
            _ => return Err(BadPatch(format!("not an operation: {op}"))),
        };
        let Some((last, parents)) = path.split_last() else {
            // The root itself.
            match value {
                Some(v) => *target = v.clone(),
                None => *target = Value::Null,
            }
            continue;
        };
        let mut at = &mut *target;
        for seg in parents {
            at = match (at, seg) {
                (Value::Object(m), Value::String(k)) => m
                    .get_mut(k)
                    .ok_or_else(|| BadPatch(format!("no field {k:?}")))?,
                (Value::Array(a), Value::Number(n)) => {
                    let i = n.as_u64().unwrap_or(u64::MAX) as usize;
                    a.get_mut(i)
                        .ok_or_else(|| BadPatch(format!("no item {i}")))?
                }
                (_, seg) => return Err(BadPatch(format!("cannot descend into {seg}"))),
            };
        }
        match (at, last, value) {
            (Value::Object(m), Value::String(k), Some(v)) => {
                m.insert(k.clone(), v.clone());
            }
            (Value::Object(m), Value::String(k), None) => {
                m.remove(k);
            }
            (Value::Array(a), Value::Number(n), Some(v)) => {
                let i = n.as_u64().unwrap_or(u64::MAX) as usize;
                let slot = a
                    .get_mut(i)
                    .ok_or_else(|| BadPatch(format!("no item {i}")))?;
                *slot = v.clone();
            }
            (_, seg, _) => return Err(BadPatch(format!("cannot set {seg}"))),
        }
    }
    Ok(())
}

/// An empty object, for a value that is not one.
pub fn empty() -> Value {
    Value::Object(Map::new())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn applying_the_diff_of_two_values_gives_the_second() {
        let cases = [
            (json!({}), json!({"a": 1})),
            (
                json!({"a": 1, "b": {"c": [1, 2]}}),
                json!({"b": {"c": [1, 2, 3]}}),
            ),
            (json!({"a": null}), json!({"a": 0})),
            (json!({"a": 0}), json!({"a": null})),
            (json!([1, 2]), json!({"x": 1})),
            (
                json!({"s": [{"name": "web", "n": 1}, {"name": "db", "n": 1}]}),
                json!({"s": [{"name": "web", "n": 2}, {"name": "db", "n": 1}]}),
            ),
            (
                json!({"s": [{"name": "web"}, {"name": "db"}]}),
                json!({"s": [{"name": "db"}, {"name": "web"}]}),
            ),
            (json!({"s": [{"x": 1}, 3]}), json!({"s": [{"x": 2}, 4]})),
            (json!({"k/~": 1}), json!({"k/~": 2})),
        ];
        for (old, new) in cases {
            let (ops, _) = diff(&old, &new);
            let mut got = old.clone();
            apply(&mut got, &ops).expect("applies");
            assert_eq!(got, new, "{old} → {new} by {ops:?}");
        }
    }

    #[test]
    fn a_restart_is_one_operation_named_by_the_containers_name() {
        let old = json!({"status": {"containerStatuses": [
            {"name": "web", "restartCount": 0, "ready": true},
            {"name": "sidecar", "restartCount": 0, "ready": true}]}});
        let mut new = old.clone();
        new["status"]["containerStatuses"][0]["restartCount"] = json!(1);
        let (ops, fields) = diff(&old, &new);
        assert_eq!(
            ops,
            vec![json!([
                ["status", "containerStatuses", 0, "restartCount"],
                1
            ])]
        );
        assert_eq!(fields, vec!["/status/containerStatuses/web/restartCount"]);
    }

    #[test]
    fn a_patch_that_does_not_fit_is_refused_not_applied_somewhere_else() {
        let mut v = json!({"a": 1});
        assert!(apply(&mut v, &[json!([["b", "c"], 1])]).is_err());
        assert!(apply(&mut v, &[json!("nonsense")]).is_err());
    }
}
