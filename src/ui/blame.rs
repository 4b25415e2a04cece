//! `b` / `:blame`: an object's fields grouped by the field manager that owns them (from its
//! `metadata.managedFields`, see `informer::history::Ownership`), the latest write first, each
//! with the time of that manager's last write and the fields' current values.
//!
//! kubectl counterpart: `kubectl get -o yaml --show-managed-fields` prints the raw entries; k9s
//! shows nothing of them. Here they are read as "who owns what, since when".

use serde_json::Value;

use crate::informer::history::Ownership;
use crate::informer::history::{display_path, unescape};
use crate::ui::style::{ago, clock};

/// The value at `path` (a JSON pointer as history names it: list items by their `name`, else
/// `type`, else index), as one line.
fn value_at<'a>(obj: &'a Value, path: &str) -> Option<&'a Value> {
    let mut cur = obj;
    for seg in path.split('/').skip(1).map(unescape) {
        cur = match cur {
            Value::Object(m) => m.get(&seg)?,
            Value::Array(items) => items
                .iter()
                .find(|x| {
                    x.get("name").and_then(Value::as_str) == Some(seg.as_str())
                        || (x.get("name").is_none()
                            && x.get("type").and_then(Value::as_str) == Some(seg.as_str()))
                })
                .or_else(|| seg.parse::<usize>().ok().and_then(|i| items.get(i)))?,
            _ => return None,
        };
    }
    Some(cur)
}

fn show(v: &Value) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Object(m) if m.is_empty() => "{}".into(),
        Value::Object(m) if m.len() == 1 => "{1 field}".into(),
        Value::Object(m) => format!("{{{} fields}}", m.len()),
        Value::Array(a) if a.len() == 1 => "[1 item]".into(),
        Value::Array(a) => format!("[{} items]", a.len()),
        other => other.to_string(),
    };
    if s.chars().count() > 80 {
        let cut: String = s.chars().take(77).collect();
        format!("{cut}...")
    } else {
        s
    }
}

/// The blame view's lines for `obj` (a full object, as a GET returns it) at `now_ms`.
pub fn blame_lines(obj: &Value, now_ms: i64) -> Vec<String> {
    let entries: Vec<k8s_openapi::apimachinery::pkg::apis::meta::v1::ManagedFieldsEntry> = obj
        .pointer("/metadata/managedFields")
        .cloned()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let ownership = Ownership::of(&entries);
    if ownership.is_empty() {
        return vec![
            "No managedFields on this object: nobody is on record as owning its fields.".into(),
        ];
    }
    let mut out = Vec::new();
    for g in ownership.groups() {
        let when = match g.write.at {
            Some(s) => format!("last write {} ({})", clock(s * 1000), ago(s * 1000, now_ms)),
            None => "no write time".into(),
        };
        let n = g.fields.len();
        out.push(format!(
            "{} · {when} · {n} field{}",
            g.write.writer,
            if n == 1 { "" } else { "s" }
        ));
        // Paths dotted as the timeline and its diffs name them (`data.key`).
        for f in &g.fields {
            let shown = display_path(f);
            match value_at(obj, f) {
                Some(v) => out.push(format!("    {shown}: {}", show(v))),
                None => out.push(format!("    {shown}")),
            }
        }
        out.push(String::new());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::show;
    use serde_json::json;

    #[test]
    fn a_map_or_list_of_one_reads_in_the_singular() {
        assert_eq!(show(&json!({"a": 1})), "{1 field}");
        assert_eq!(show(&json!({"a": 1, "b": 2})), "{2 fields}");
        assert_eq!(show(&json!([1])), "[1 item]");
        assert_eq!(show(&json!([1, 2])), "[2 items]");
        assert_eq!(show(&json!({})), "{}");
    }
}
