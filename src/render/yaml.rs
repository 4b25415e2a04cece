//! The `y` view: an object as YAML (kubectl `get -o yaml` without `managedFields`), with Secret
//! values hidden unless revealed.

use base64::Engine;
use serde_json::Value;

/// `obj` (a full object as JSON, e.g. from a GET) as YAML. `metadata.managedFields` is dropped;
/// for a Secret, every `data` / `stringData` value is replaced by `<hidden: N bytes>` (N the
/// decoded size) unless `reveal_secrets`; revealed, `data` is shown decoded as k9s's `x` shows
/// it (a value that is not UTF-8 text stays base64, marked so).
pub fn to_yaml(obj: &Value, reveal_secrets: bool) -> String {
    let mut v = obj.clone();
    if let Some(meta) = v.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    let is_secret = v.get("kind").and_then(Value::as_str) == Some("Secret");
    if is_secret && !reveal_secrets {
        hide(&mut v, "data", |s| {
            base64::engine::general_purpose::STANDARD
                .decode(s.trim())
                .map(|b| b.len())
                .unwrap_or(s.len())
        });
        hide(&mut v, "stringData", str::len);
    }
    if is_secret && reveal_secrets {
        decode(&mut v);
    }
    match serde_norway::to_string(&v) {
        Ok(s) => s,
        Err(e) => {
            tracing::warn!(error = %e, "YAML encoding failed, showing JSON");
            serde_json::to_string_pretty(&v).unwrap_or_default()
        }
    }
}

fn hide(v: &mut Value, key: &str, size: impl Fn(&str) -> usize) {
    if let Some(Value::Object(m)) = v.get_mut(key) {
        for val in m.values_mut() {
            let n = val.as_str().map(&size).unwrap_or(0);
            *val = Value::String(format!("<hidden: {n} bytes>"));
        }
    }
}

/// A Secret's `data` values decoded from base64 to their text.
fn decode(v: &mut Value) {
    if let Some(Value::Object(m)) = v.get_mut("data") {
        for val in m.values_mut() {
            let Some(s) = val.as_str() else { continue };
            let text = base64::engine::general_purpose::STANDARD
                .decode(s.trim())
                .ok()
                .and_then(|b| String::from_utf8(b).ok());
            *val = Value::String(match text {
                Some(t) => t,
                None => format!("<binary, base64: {s}>"),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secret_values_are_hidden_unless_revealed() {
        let s = json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "db", "managedFields": [{"manager": "kubectl"}]},
            "data": {"password": "aHVudGVyMg=="},
            "stringData": {"user": "admin"}
        });
        let hidden = to_yaml(&s, false);
        assert!(hidden.contains("password: '<hidden: 7 bytes>'"), "{hidden}");
        assert!(hidden.contains("user: '<hidden: 5 bytes>'"), "{hidden}");
        assert!(!hidden.contains("aHVudGVyMg=="));
        assert!(!hidden.contains("managedFields"));
        let shown = to_yaml(&s, true);
        assert!(shown.contains("password: hunter2"), "{shown}");
        assert!(shown.contains("user: admin"), "{shown}");
        assert!(!shown.contains("managedFields"));
    }

    #[test]
    fn configmap_data_is_not_hidden() {
        let cm = json!({"kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"k": "v"}});
        assert!(to_yaml(&cm, false).contains("k: v"));
    }
}
