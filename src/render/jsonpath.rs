//! The JSONPath subset that CRD `additionalPrinterColumns` use (client-go's `util/jsonpath`
//! restricted to what the apiextensions validation allows in a printer column: a single simple
//! path). Supported: optional `{...}` braces, `.field`, `.field\.with\.dots`, `['field']`,
//! `[N]` (negative counts from the end), `[*]`, and filters `[?(@.a.b=="x")]`, `!=`, numeric or
//! bare literals, and existence `[?(@.a)]`.

use serde_json::Value;

/// A parse error with the offending expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unsupported JSONPath {expr:?}: {why}")]
pub struct JsonPathError {
    /// The expression.
    pub expr: String,
    /// What is wrong with it.
    pub why: &'static str,
}

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Field(String),
    Index(i64),
    All,
    Filter {
        path: Vec<String>,
        test: Option<(bool /* equal */, Value)>,
    },
}

/// A parsed path.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    segs: Vec<Seg>,
}

impl JsonPath {
    /// Parse `expr` (e.g. `.status.conditions[?(@.type=="Ready")].status`).
    pub fn parse(expr: &str) -> Result<JsonPath, JsonPathError> {
        let err = |why| JsonPathError {
            expr: expr.to_string(),
            why,
        };
        let mut s = expr.trim();
        if let Some(inner) = s.strip_prefix('{') {
            s = inner
                .strip_suffix('}')
                .ok_or_else(|| err("unclosed '{'"))?
                .trim();
        }
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        let mut segs = Vec::new();
        // A path may start with '$' (root) or '@'.
        if matches!(chars.first(), Some('$') | Some('@')) {
            i = 1;
        }
        while i < chars.len() {
            match chars[i] {
                '.' => {
                    i += 1;
                    if chars.get(i) == Some(&'.') {
                        return Err(err("recursive descent is not supported"));
                    }
                    let (name, next) = read_name(&chars, i);
                    if name.is_empty() {
                        // A lone trailing '.' (".") means the root.
                        if next >= chars.len() {
                            break;
                        }
                        return Err(err("empty field name"));
                    }
                    segs.push(Seg::Field(name));
                    i = next;
                }
                '[' => {
                    let close = find_bracket_end(&chars, i).ok_or_else(|| err("unclosed '['"))?;
                    let inner: String = chars[i + 1..close].iter().collect();
                    segs.push(parse_bracket(inner.trim()).ok_or_else(|| err("bad [...]"))?);
                    i = close + 1;
                }
                c if c.is_whitespace() => i += 1,
                _ if segs.is_empty() && i == 0 => {
                    // "metadata.name" without the leading dot.
                    let (name, next) = read_name(&chars, i);
                    segs.push(Seg::Field(name));
                    i = next;
                }
                _ => return Err(err("unexpected character")),
            }
        }
        Ok(JsonPath { segs })
    }

    /// All values the path selects in `root`, in document order.
    pub fn find<'a>(&self, root: &'a Value) -> Vec<&'a Value> {
        let mut cur = vec![root];
        for seg in &self.segs {
            let mut next = Vec::new();
            for v in cur {
                match seg {
                    Seg::Field(name) => {
                        if let Some(x) = v.as_object().and_then(|m| m.get(name)) {
                            next.push(x);
                        }
                    }
                    Seg::Index(n) => {
                        if let Some(a) = v.as_array() {
                            let len = a.len() as i64;
                            let idx = if *n < 0 { len + n } else { *n };
                            if (0..len).contains(&idx)
                                && let Some(x) = a.get(idx as usize)
                            {
                                next.push(x);
                            }
                        }
                    }
                    Seg::All => match v {
                        Value::Array(a) => next.extend(a.iter()),
                        Value::Object(m) => next.extend(m.values()),
                        _ => {}
                    },
                    Seg::Filter { path, test } => {
                        let items: Vec<&Value> = match v {
                            Value::Array(a) => a.iter().collect(),
                            Value::Object(m) => m.values().collect(),
                            _ => Vec::new(),
                        };
                        for item in items {
                            let mut x = Some(item);
                            for key in path {
                                x = x.and_then(|x| x.as_object()).and_then(|m| m.get(key));
                            }
                            let keep = match (x, test) {
                                (None, _) => false,
                                (Some(_), None) => true,
                                (Some(x), Some((equal, want))) => values_equal(x, want) == *equal,
                            };
                            if keep {
                                next.push(item);
                            }
                        }
                    }
                }
            }
            cur = next;
        }
        cur
    }

    /// The first value the path selects.
    pub fn first<'a>(&self, root: &'a Value) -> Option<&'a Value> {
        self.find(root).into_iter().next()
    }

    /// The field names the path walks from the root while they are plain fields
    /// (`.metadata.labels.app` → `metadata`, `labels`, `app`), and whether more follows.
    pub fn leading_fields(&self) -> (Vec<&str>, bool) {
        let mut names = Vec::new();
        for s in &self.segs {
            match s {
                Seg::Field(n) => names.push(n.as_str()),
                _ => return (names, true),
            }
        }
        (names, false)
    }

    /// The decoder mask keeping what the path reads of an object's data (its fields; an array
    /// along the way whole), `None` when it reads nothing but metadata. Built once per view;
    /// the few slices it makes live as long as the program (as the history masks' unions).
    pub fn data_mask(&self) -> Option<crate::informer::decode::Mask> {
        use crate::informer::decode::Mask;
        if matches!(self.segs.first(), Some(Seg::Field(n)) if n == "metadata") {
            return None;
        }
        // From the leaf up: every segment after the first non-field keeps its value whole.
        let mut mask = Mask::All;
        let fields: Vec<&str> = self
            .segs
            .iter()
            .map_while(|s| match s {
                Seg::Field(n) => Some(n.as_str()),
                _ => None,
            })
            .collect();
        for name in fields.iter().rev() {
            let name: &'static str = Box::leak(name.to_string().into_boxed_str());
            mask = Mask::Keys(Box::leak(Box::new([(name, mask)])));
        }
        Some(mask)
    }
}

fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        // client-go compares the printed forms for mixed types.
        (x, Value::String(y)) => scalar_text(x).as_deref() == Some(y.as_str()),
        _ => a == b,
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A field name up to the next unescaped '.' or '['; `\.` is a literal dot.
fn read_name(chars: &[char], mut i: usize) -> (String, usize) {
    let mut name = String::new();
    while i < chars.len() {
        match chars[i] {
            '\\' if i + 1 < chars.len() => {
                name.push(chars[i + 1]);
                i += 2;
            }
            '.' | '[' => break,
            c => {
                name.push(c);
                i += 1;
            }
        }
    }
    (name.trim_end().to_string(), i)
}

/// The index of the ']' closing the '[' at `open`, skipping quoted strings and nested brackets.
fn find_bracket_end(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (j, &c) in chars.iter().enumerate().skip(open) {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '[' => depth += 1,
            ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

fn unquote(s: &str) -> Option<String> {
    let s = s.trim();
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return Some(inner.to_string());
        }
    }
    None
}

fn parse_bracket(inner: &str) -> Option<Seg> {
    if inner == "*" {
        return Some(Seg::All);
    }
    if let Some(name) = unquote(inner) {
        return Some(Seg::Field(name));
    }
    if let Ok(n) = inner.parse::<i64>() {
        return Some(Seg::Index(n));
    }
    let filter = inner.strip_prefix('?')?.trim();
    let body = filter.strip_prefix('(')?.strip_suffix(')')?.trim();
    let (lhs, test) = if let Some((l, r)) = body.split_once("==") {
        (l, Some((true, literal(r.trim()))))
    } else if let Some((l, r)) = body.split_once("!=") {
        (l, Some((false, literal(r.trim()))))
    } else {
        (body, None)
    };
    let lhs = lhs.trim().strip_prefix('@')?;
    let mut path = Vec::new();
    let chars: Vec<char> = lhs.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '.' {
            return None;
        }
        let (name, next) = read_name(&chars, i + 1);
        if name.is_empty() {
            return None;
        }
        path.push(name);
        i = next;
    }
    Some(Seg::Filter { path, test })
}

fn literal(s: &str) -> Value {
    if let Some(q) = unquote(s) {
        return Value::String(q);
    }
    if let Ok(n) = s.parse::<i64>() {
        return Value::from(n);
    }
    if let Ok(f) = s.parse::<f64>() {
        return serde_json::Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null);
    }
    match s {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => Value::String(s.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc() -> Value {
        json!({
            "metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "web"}},
            "spec": {"replicas": 3, "ports": [{"port": 80}, {"port": 443}]},
            "status": {"conditions": [
                {"type": "Synced", "status": "True", "reason": "Ok"},
                {"type": "Ready", "status": "False", "reason": "Waiting"}
            ]}
        })
    }

    fn first(expr: &str) -> Option<Value> {
        JsonPath::parse(expr)
            .ok()
            .and_then(|p| p.first(&doc()).cloned())
    }

    #[test]
    fn jsonpath_selects_nested_fields() {
        assert_eq!(first(".spec.replicas"), Some(json!(3)));
        assert_eq!(first("{.metadata.name}"), Some(json!("x")));
        assert_eq!(first(".spec.missing"), None);
    }

    #[test]
    fn jsonpath_indexes_arrays_including_negative() {
        assert_eq!(first(".spec.ports[0].port"), Some(json!(80)));
        assert_eq!(first(".spec.ports[-1].port"), Some(json!(443)));
        assert_eq!(first(".spec.ports[7].port"), None);
        assert_eq!(
            JsonPath::parse(".spec.ports[*].port")
                .map(|p| p.find(&doc()).len())
                .ok(),
            Some(2)
        );
    }

    #[test]
    fn jsonpath_filters_conditions_by_type() {
        assert_eq!(
            first(r#".status.conditions[?(@.type=="Ready")].status"#),
            Some(json!("False"))
        );
        assert_eq!(
            first(".status.conditions[?(@.type=='Synced')].reason"),
            Some(json!("Ok"))
        );
        assert_eq!(
            first(r#".status.conditions[?(@.type!="Synced")].type"#),
            Some(json!("Ready"))
        );
        assert_eq!(
            first(r#".status.conditions[?(@.type=="Nope")].status"#),
            None
        );
    }

    #[test]
    fn jsonpath_handles_escaped_dots_and_quoted_keys() {
        assert_eq!(
            first(r".metadata.labels.app\.kubernetes\.io/name"),
            Some(json!("web"))
        );
        assert_eq!(
            first(".metadata.labels['app.kubernetes.io/name']"),
            Some(json!("web"))
        );
    }

    #[test]
    fn jsonpath_rejects_malformed_expressions() {
        assert!(JsonPath::parse(".a[0").is_err());
        assert!(JsonPath::parse("..a").is_err());
        assert!(JsonPath::parse(".a[?(x)]").is_err());
        assert!(JsonPath::parse("{.a").is_err());
    }
}
