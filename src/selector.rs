//! Label and field selectors, with the semantics of apimachinery's `pkg/labels` and `pkg/fields`.
//!
//! Label selectors (`labels.Parse`):
//! - a comma-separated conjunction of requirements; the empty string selects everything;
//! - operators `=`, `==`, `!=`, `in (..)`, `notin (..)`, `key` (exists), `!key` (does not exist),
//!   and the integer comparisons `key>N`, `key<N` that kube-apiserver also accepts;
//! - keys are qualified names (optional DNS-subdomain prefix, `/`, name of at most 63 characters);
//!   values are empty or at most 63 characters of `[A-Za-z0-9_.-]` starting and ending alphanumeric;
//! - `!=` and `notin` match objects that do not carry the key at all (as Kubernetes does);
//! - requirements are kept sorted by key and value sets sorted and de-duplicated, so [`Display`]
//!   prints the canonical form and `parse(display(s)) == s`.
//!
//! Field selectors (`fields.ParseSelector`): comma-separated `field=value`, `field==value`,
//! `field!=value` terms; `\`, `,` and `=` in values are escaped with a backslash. A missing field
//! reads as the empty string, as `fields.Set.Get` does.
//!
//! [`Display`]: std::fmt::Display

use std::collections::BTreeMap;
use std::fmt;

/// Why a selector string was rejected. Positions are byte offsets into the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    /// The string does not follow the selector grammar.
    #[error("unable to parse requirement at position {position}: {message}")]
    Syntax { position: usize, message: String },
    /// A label key is not a valid qualified name.
    #[error("invalid label key {key:?} at position {position}: {message}")]
    InvalidKey {
        position: usize,
        key: String,
        message: String,
    },
    /// A label value is not a valid label value (or not an integer for `>`/`<`).
    #[error("invalid label value {value:?} at position {position}: {message}")]
    InvalidValue {
        position: usize,
        value: String,
        message: String,
    },
    /// A field selector term could not be understood.
    #[error("invalid field selector at position {position}: {message}")]
    Field { position: usize, message: String },
}

/// A label selector operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    /// `key=value`
    Equals,
    /// `key==value`
    DoubleEquals,
    /// `key!=value` (matches objects without the key)
    NotEquals,
    /// `key in (a,b)`
    In,
    /// `key notin (a,b)` (matches objects without the key)
    NotIn,
    /// `key`
    Exists,
    /// `!key`
    DoesNotExist,
    /// `key>N` (integer comparison)
    GreaterThan,
    /// `key<N` (integer comparison)
    LessThan,
}

/// A set of labels a selector can be matched against: a `metadata.labels` map, or the labels
/// of a cached object wherever the cache keeps them (`informer::cached::Labels`).
pub trait LabelSet {
    /// The value of label `key` (`None`: absent).
    fn label(&self, key: &str) -> Option<&str>;
}

impl LabelSet for BTreeMap<String, String> {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

impl<T: LabelSet + ?Sized> LabelSet for &T {
    fn label(&self, key: &str) -> Option<&str> {
        (**self).label(key)
    }
}

/// One requirement of a label selector.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Requirement {
    pub key: String,
    pub op: Operator,
    /// Exactly one value for the equality and comparison operators, at least one (sorted,
    /// de-duplicated) for `in`/`notin`, none for `Exists`/`DoesNotExist`.
    pub values: Vec<String>,
}

impl Requirement {
    /// Whether a label set satisfies this requirement.
    pub fn matches(&self, labels: impl LabelSet) -> bool {
        self.matches_value(labels.label(&self.key))
    }

    /// Whether a label value (`None` = the key is absent) satisfies this requirement.
    pub fn matches_value(&self, value: Option<&str>) -> bool {
        match self.op {
            Operator::Equals | Operator::DoubleEquals | Operator::In => {
                value.is_some_and(|v| self.values.iter().any(|x| x == v))
            }
            Operator::NotEquals | Operator::NotIn => {
                value.is_none_or(|v| !self.values.iter().any(|x| x == v))
            }
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::GreaterThan | Operator::LessThan => {
                let (Some(v), Some(bound)) = (value, self.values.first()) else {
                    return false;
                };
                let (Ok(v), Ok(bound)) = (v.parse::<i64>(), bound.parse::<i64>()) else {
                    return false;
                };
                if self.op == Operator::GreaterThan {
                    v > bound
                } else {
                    v < bound
                }
            }
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let first = self.values.first().map(String::as_str).unwrap_or("");
        match self.op {
            Operator::Equals => write!(f, "{}={}", self.key, first),
            Operator::DoubleEquals => write!(f, "{}=={}", self.key, first),
            Operator::NotEquals => write!(f, "{}!={}", self.key, first),
            Operator::GreaterThan => write!(f, "{}>{}", self.key, first),
            Operator::LessThan => write!(f, "{}<{}", self.key, first),
            Operator::Exists => write!(f, "{}", self.key),
            Operator::DoesNotExist => write!(f, "!{}", self.key),
            Operator::In | Operator::NotIn => {
                let op = if self.op == Operator::In {
                    "in"
                } else {
                    "notin"
                };
                write!(f, "{} {} ({})", self.key, op, self.values.join(","))
            }
        }
    }
}

/// A parsed label selector: the conjunction of its requirements.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct LabelSelector {
    /// Sorted by key (stable), as apimachinery's internal selector keeps them.
    pub requirements: Vec<Requirement>,
}

impl LabelSelector {
    /// The selector that selects everything.
    pub fn everything() -> Self {
        Self::default()
    }

    /// Parse a selector string (`labels.Parse`).
    pub fn parse(input: &str) -> Result<Self, SelectorError> {
        let tokens = lex(input)?;
        let mut parser = Parser { tokens, pos: 0 };
        let mut requirements = parser.parse_requirements(input.len())?;
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Self { requirements })
    }

    /// True when the selector has no requirement (it matches everything).
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether a label set satisfies every requirement.
    pub fn matches(&self, labels: impl LabelSet) -> bool {
        self.requirements
            .iter()
            .all(|r| r.matches_value(labels.label(&r.key)))
    }

    /// Like [`Self::matches`], reading labels through a lookup function.
    pub fn matches_fn<'a>(&self, mut get: impl FnMut(&str) -> Option<&'a str>) -> bool {
        self.requirements
            .iter()
            .all(|r| r.matches_value(get(&r.key)))
    }

    /// The selector of a `metav1.LabelSelector` object (`matchLabels` + `matchExpressions`),
    /// as a workload's `spec.selector` or a budget's carries it. `None` (absent or null) selects
    /// nothing; `{}` selects everything (`metav1.LabelSelectorAsSelector`).
    pub fn from_metav1(sel: Option<&serde_json::Value>) -> Result<Option<Self>, String> {
        use serde_json::Value;
        let Some(sel) = sel.filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let mut requirements = Vec::new();
        if let Some(m) = sel.get("matchLabels").and_then(Value::as_object) {
            for (k, v) in m {
                requirements.push(Requirement {
                    key: k.clone(),
                    op: Operator::Equals,
                    values: vec![v.as_str().unwrap_or_default().to_string()],
                });
            }
        }
        for e in sel
            .get("matchExpressions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let key = e
                .get("key")
                .and_then(Value::as_str)
                .ok_or("matchExpressions: key is required")?;
            let mut values: Vec<String> = e
                .get("values")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            values.sort();
            values.dedup();
            let op = match e.get("operator").and_then(Value::as_str) {
                Some("In") => Operator::In,
                Some("NotIn") => Operator::NotIn,
                Some("Exists") => Operator::Exists,
                Some("DoesNotExist") => Operator::DoesNotExist,
                other => {
                    return Err(format!(
                        "matchExpressions: {other:?} is not a valid operator"
                    ));
                }
            };
            requirements.push(Requirement {
                key: key.to_string(),
                op,
                values,
            });
        }
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Some(LabelSelector { requirements }))
    }

    /// The selector of a Service's `spec.selector` (a plain label map). `None` when absent or
    /// empty: such a Service selects no pods (its endpoints are managed by hand).
    pub fn from_map(map: Option<&serde_json::Value>) -> Option<Self> {
        let m = map?.as_object().filter(|m| !m.is_empty())?;
        let mut requirements: Vec<Requirement> = m
            .iter()
            .map(|(k, v)| Requirement {
                key: k.clone(),
                op: Operator::Equals,
                values: vec![v.as_str().unwrap_or_default().to_string()],
            })
            .collect();
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Some(LabelSelector { requirements })
    }
}

/// `a,b,c`: how both selector kinds print their requirements.
fn write_comma_separated<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(",")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

impl fmt::Display for LabelSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_comma_separated(f, &self.requirements)
    }
}

impl std::str::FromStr for LabelSelector {
    type Err = SelectorError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Not,          // !
    NotEquals,    // !=
    Equals,       // =
    DoubleEquals, // ==
    Gt,           // >
    Lt,           // <
    OpenPar,      // (
    ClosePar,     // )
    Comma,        // ,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("'{s}'"),
            Tok::Not => "'!'".into(),
            Tok::NotEquals => "'!='".into(),
            Tok::Equals => "'='".into(),
            Tok::DoubleEquals => "'=='".into(),
            Tok::Gt => "'>'".into(),
            Tok::Lt => "'<'".into(),
            Tok::OpenPar => "'('".into(),
            Tok::ClosePar => "')'".into(),
            Tok::Comma => "','".into(),
        }
    }
}

fn is_special(c: char) -> bool {
    matches!(c, '!' | '=' | '(' | ')' | ',' | '>' | '<')
}

/// Tokens with their byte offsets.
fn lex(input: &str) -> Result<Vec<(usize, Tok)>, SelectorError> {
    let mut out = Vec::new();
    let mut chars = input.char_indices().peekable();
    while let Some(&(pos, c)) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        if is_special(c) {
            chars.next();
            let next_is_eq = matches!(chars.peek(), Some((_, '=')));
            let tok = match c {
                '!' if next_is_eq => {
                    chars.next();
                    Tok::NotEquals
                }
                '!' => Tok::Not,
                '=' if next_is_eq => {
                    chars.next();
                    Tok::DoubleEquals
                }
                '=' => Tok::Equals,
                '>' => Tok::Gt,
                '<' => Tok::Lt,
                '(' => Tok::OpenPar,
                ')' => Tok::ClosePar,
                _ => Tok::Comma,
            };
            out.push((pos, tok));
            continue;
        }
        let start = pos;
        let mut end = input.len();
        while let Some(&(p, c)) = chars.peek() {
            if c.is_whitespace() || is_special(c) {
                end = p;
                break;
            }
            chars.next();
        }
        out.push((start, Tok::Ident(input[start..end].to_string())));
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(usize, Tok)>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&(usize, Tok)> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<(usize, Tok)> {
        let t = self.tokens.get(self.pos).cloned();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }

    fn parse_requirements(&mut self, end: usize) -> Result<Vec<Requirement>, SelectorError> {
        let mut out = Vec::new();
        if self.tokens.is_empty() {
            return Ok(out);
        }
        loop {
            out.push(self.parse_requirement(end)?);
            match self.next() {
                None => return Ok(out),
                Some((_, Tok::Comma)) => {
                    if self.peek().is_none() {
                        return Err(SelectorError::Syntax {
                            position: end,
                            message: "found end of input, expected: identifier after ','".into(),
                        });
                    }
                }
                Some((p, t)) => {
                    return Err(SelectorError::Syntax {
                        position: p,
                        message: format!("found {}, expected: ',' or end of input", t.describe()),
                    });
                }
            }
        }
    }

    fn parse_requirement(&mut self, end: usize) -> Result<Requirement, SelectorError> {
        let (pos, tok) = self.next().ok_or_else(|| SelectorError::Syntax {
            position: end,
            message: "found end of input, expected: identifier".into(),
        })?;
        let (key_pos, key, negated) = match tok {
            Tok::Not => match self.next() {
                Some((p, Tok::Ident(k))) => (p, k, true),
                Some((p, t)) => {
                    return Err(SelectorError::Syntax {
                        position: p,
                        message: format!("found {}, expected: identifier after '!'", t.describe()),
                    });
                }
                None => {
                    return Err(SelectorError::Syntax {
                        position: end,
                        message: "found end of input, expected: identifier after '!'".into(),
                    });
                }
            },
            Tok::Ident(k) if k != "in" && k != "notin" => (pos, k, false),
            t => {
                return Err(SelectorError::Syntax {
                    position: pos,
                    message: format!("found {}, expected: '!' or identifier", t.describe()),
                });
            }
        };
        validate_label_key(&key, key_pos)?;
        if negated {
            return Ok(Requirement {
                key,
                op: Operator::DoesNotExist,
                values: Vec::new(),
            });
        }
        // key alone (end or comma) means Exists
        let op = match self.peek() {
            None | Some((_, Tok::Comma)) => {
                return Ok(Requirement {
                    key,
                    op: Operator::Exists,
                    values: Vec::new(),
                });
            }
            Some((_, Tok::Equals)) => Operator::Equals,
            Some((_, Tok::DoubleEquals)) => Operator::DoubleEquals,
            Some((_, Tok::NotEquals)) => Operator::NotEquals,
            Some((_, Tok::Gt)) => Operator::GreaterThan,
            Some((_, Tok::Lt)) => Operator::LessThan,
            Some((_, Tok::Ident(s))) if s == "in" => Operator::In,
            Some((_, Tok::Ident(s))) if s == "notin" => Operator::NotIn,
            Some((p, t)) => {
                return Err(SelectorError::Syntax {
                    position: *p,
                    message: format!(
                        "found {}, expected: '=', '!=', '==', 'in', 'notin', '>', '<', ',' or end of input",
                        t.describe()
                    ),
                });
            }
        };
        let (op_pos, _) = self.next().ok_or_else(|| SelectorError::Syntax {
            position: end,
            message: "unexpected end of input".into(),
        })?;
        let values = match op {
            Operator::In | Operator::NotIn => self.parse_value_set(end)?,
            _ => {
                // A single value; an absent identifier means the empty value (`a=`).
                let (vpos, v) = match self.peek() {
                    Some((p, Tok::Ident(v))) => {
                        let r = (*p, v.clone());
                        self.pos += 1;
                        r
                    }
                    None | Some((_, Tok::Comma)) => (op_pos + 1, String::new()),
                    Some((p, t)) => {
                        return Err(SelectorError::Syntax {
                            position: *p,
                            message: format!("found {}, expected: identifier", t.describe()),
                        });
                    }
                };
                if matches!(op, Operator::GreaterThan | Operator::LessThan) {
                    if v.parse::<i64>().is_err() {
                        return Err(SelectorError::InvalidValue {
                            position: vpos,
                            value: v,
                            message: "for '>' and '<' the value must be an integer".into(),
                        });
                    }
                } else {
                    validate_label_value(&v, vpos)?;
                }
                vec![v]
            }
        };
        Ok(Requirement { key, op, values })
    }

    /// `( v1, v2 )`; `()` is the set holding the empty value, empty slots are empty values.
    fn parse_value_set(&mut self, end: usize) -> Result<Vec<String>, SelectorError> {
        match self.next() {
            Some((_, Tok::OpenPar)) => {}
            Some((p, t)) => {
                return Err(SelectorError::Syntax {
                    position: p,
                    message: format!("found {}, expected: '('", t.describe()),
                });
            }
            None => {
                return Err(SelectorError::Syntax {
                    position: end,
                    message: "found end of input, expected: '('".into(),
                });
            }
        }
        let mut values: Vec<String> = Vec::new();
        let mut expect_value = true;
        loop {
            match self.next() {
                Some((p, Tok::Ident(v))) if expect_value => {
                    validate_label_value(&v, p)?;
                    values.push(v);
                    expect_value = false;
                }
                Some((_, Tok::Comma)) => {
                    if expect_value {
                        values.push(String::new());
                    }
                    expect_value = true;
                }
                Some((_, Tok::ClosePar)) => {
                    if expect_value {
                        values.push(String::new());
                    }
                    break;
                }
                Some((p, t)) => {
                    return Err(SelectorError::Syntax {
                        position: p,
                        message: format!("found {}, expected: ',' or ')'", t.describe()),
                    });
                }
                None => {
                    return Err(SelectorError::Syntax {
                        position: end,
                        message: "found end of input, expected: ')'".into(),
                    });
                }
            }
        }
        values.sort();
        values.dedup();
        Ok(values)
    }
}

fn is_alnum(c: char) -> bool {
    c.is_ascii_alphanumeric()
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_qualified_name_part(s: &str) -> bool {
    let (Some(first), Some(last)) = (s.chars().next(), s.chars().last()) else {
        return false;
    };
    is_alnum(first)
        && is_alnum(last)
        && s.chars()
            .all(|c| is_alnum(c) || matches!(c, '-' | '_' | '.'))
}

/// RFC 1123 subdomain: lower-case alphanumeric labels separated by dots, at most 253 characters.
fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            let (Some(first), Some(last)) = (label.chars().next(), label.chars().last()) else {
                return false;
            };
            let ok = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
            ok(first) && ok(last) && label.chars().all(|c| ok(c) || c == '-')
        })
}

fn validate_label_key(key: &str, position: usize) -> Result<(), SelectorError> {
    let err = |message: &str| SelectorError::InvalidKey {
        position,
        key: key.to_string(),
        message: message.to_string(),
    };
    let name = match key.split_once('/') {
        Some((prefix, name)) => {
            if prefix.is_empty() {
                return Err(err("prefix part must be non-empty"));
            }
            if !is_dns1123_subdomain(prefix) {
                return Err(err(
                    "prefix part must be a lowercase RFC 1123 subdomain of at most 253 characters",
                ));
            }
            if name.contains('/') {
                return Err(err(
                    "a qualified name must consist of an optional prefix and a name separated by one '/'",
                ));
            }
            name
        }
        None => key,
    };
    if name.is_empty() {
        return Err(err("name part must be non-empty"));
    }
    if name.len() > 63 {
        return Err(err("name part must be no more than 63 characters"));
    }
    if !is_qualified_name_part(name) {
        return Err(err(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        ));
    }
    Ok(())
}

/// Whether `s` is a valid label value (empty, or at most 63 characters of the qualified-name
/// alphabet starting and ending alphanumeric).
pub fn is_valid_label_value(s: &str) -> bool {
    s.is_empty() || (s.len() <= 63 && is_qualified_name_part(s))
}

fn validate_label_value(value: &str, position: usize) -> Result<(), SelectorError> {
    if value.len() > 63 {
        return Err(SelectorError::InvalidValue {
            position,
            value: value.to_string(),
            message: "must be no more than 63 characters".into(),
        });
    }
    if !is_valid_label_value(value) {
        return Err(SelectorError::InvalidValue {
            position,
            value: value.to_string(),
            message: "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character".into(),
        });
    }
    Ok(())
}

/// A field selector operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FieldOperator {
    Equals,
    DoubleEquals,
    NotEquals,
}

/// One `field op value` term.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FieldRequirement {
    pub field: String,
    pub op: FieldOperator,
    /// Unescaped value.
    pub value: String,
}

impl FieldRequirement {
    /// Whether a field value (`None` = absent, read as `""`) satisfies this term.
    pub fn matches_value(&self, value: Option<&str>) -> bool {
        let v = value.unwrap_or("");
        match self.op {
            FieldOperator::Equals | FieldOperator::DoubleEquals => v == self.value,
            FieldOperator::NotEquals => v != self.value,
        }
    }
}

impl fmt::Display for FieldRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let op = match self.op {
            FieldOperator::Equals => "=",
            FieldOperator::DoubleEquals => "==",
            FieldOperator::NotEquals => "!=",
        };
        write!(f, "{}{}{}", self.field, op, escape_field_value(&self.value))
    }
}

/// A parsed field selector: the conjunction of its terms.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FieldSelector {
    pub requirements: Vec<FieldRequirement>,
}

impl FieldSelector {
    /// Parse a field selector (`fields.ParseSelector`).
    pub fn parse(input: &str) -> Result<Self, SelectorError> {
        let mut requirements = Vec::new();
        for (start, term) in split_unescaped_commas(input) {
            if term.is_empty() {
                continue;
            }
            let Some((idx, op, op_len)) = find_operator(term) else {
                return Err(SelectorError::Field {
                    position: start,
                    message: format!(
                        "can't understand {term:?}: expected field=value, field==value or field!=value"
                    ),
                });
            };
            let field = term[..idx].trim();
            let raw = &term[idx + op_len..];
            if field.is_empty() {
                return Err(SelectorError::Field {
                    position: start,
                    message: format!("missing field name in {term:?}"),
                });
            }
            // `a! =x` would print as `a!=x`, which means something else: no field path ends in
            // `!`, so refuse it rather than keep a selector that cannot be written back.
            if field.ends_with('!') {
                return Err(SelectorError::Field {
                    position: start,
                    message: format!("invalid field name {field:?} in {term:?}"),
                });
            }
            let value = unescape_field_value(raw).map_err(|message| SelectorError::Field {
                position: start + idx + op_len,
                message,
            })?;
            requirements.push(FieldRequirement {
                field: field.to_string(),
                op,
                value,
            });
        }
        Ok(Self { requirements })
    }

    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether the object (seen through `get(field)`) satisfies every term.
    pub fn matches<'a>(&self, mut get: impl FnMut(&str) -> Option<&'a str>) -> bool {
        self.requirements
            .iter()
            .all(|r| r.matches_value(get(&r.field)))
    }

    /// The value `field` must equal for any object to match (`RequiresExactMatch`).
    pub fn requires_exact_match(&self, field: &str) -> Option<&str> {
        self.requirements
            .iter()
            .find(|r| {
                r.field == field
                    && matches!(r.op, FieldOperator::Equals | FieldOperator::DoubleEquals)
            })
            .map(|r| r.value.as_str())
    }
}

impl fmt::Display for FieldSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_comma_separated(f, &self.requirements)
    }
}

impl std::str::FromStr for FieldSelector {
    type Err = SelectorError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Split on commas not preceded by a backslash escape; yields (byte offset, term).
fn split_unescaped_commas(input: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut escaped = false;
    for (i, c) in input.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            ',' => {
                out.push((start, &input[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, &input[start..]));
    out
}

/// First operator occurrence, trying `!=`, `==`, `=` at each position (as apimachinery does).
fn find_operator(term: &str) -> Option<(usize, FieldOperator, usize)> {
    for (i, _) in term.char_indices() {
        let rest = &term[i..];
        if rest.starts_with("!=") {
            return Some((i, FieldOperator::NotEquals, 2));
        }
        if rest.starts_with("==") {
            return Some((i, FieldOperator::DoubleEquals, 2));
        }
        if rest.starts_with('=') {
            return Some((i, FieldOperator::Equals, 1));
        }
    }
    None
}

/// Escape `\`, `,` and `=` with a backslash (`fields.EscapeValue`).
pub fn escape_field_value(v: &str) -> String {
    let mut out = String::with_capacity(v.len());
    for c in v.chars() {
        if matches!(c, '\\' | ',' | '=') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn unescape_field_value(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut in_slash = false;
    for c in s.chars() {
        if in_slash {
            if matches!(c, '\\' | ',' | '=') {
                out.push(c);
                in_slash = false;
                continue;
            }
            return Err(format!("invalid escape sequence \\{c}"));
        }
        match c {
            '\\' => in_slash = true,
            ',' | '=' => return Err(format!("unescaped {c} in field value")),
            _ => out.push(c),
        }
    }
    if in_slash {
        return Err("invalid escape sequence \\ at end of value".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn sel(s: &str) -> LabelSelector {
        LabelSelector::parse(s).unwrap()
    }

    #[test]
    fn empty_selector_matches_everything() {
        let s = sel("");
        assert!(s.is_empty());
        assert!(s.matches(labels(&[])));
        assert!(s.matches(labels(&[("a", "b")])));
        assert!(sel("   ").is_empty());
    }

    #[test]
    fn equals_requires_key_with_value() {
        let s = sel("app=web");
        assert_eq!(s.requirements[0].op, Operator::Equals);
        assert!(s.matches(labels(&[("app", "web")])));
        assert!(!s.matches(labels(&[("app", "db")])));
        assert!(!s.matches(labels(&[])));
    }

    #[test]
    fn double_equals_behaves_like_equals_and_prints_as_written() {
        let s = sel("app==web");
        assert_eq!(s.requirements[0].op, Operator::DoubleEquals);
        assert!(s.matches(labels(&[("app", "web")])));
        assert!(!s.matches(labels(&[("app", "x")])));
        assert_eq!(s.to_string(), "app==web");
    }

    #[test]
    fn not_equals_matches_objects_without_the_key() {
        let s = sel("tier!=frontend");
        assert!(s.matches(labels(&[])));
        assert!(s.matches(labels(&[("tier", "backend")])));
        assert!(!s.matches(labels(&[("tier", "frontend")])));
    }

    #[test]
    fn in_matches_any_listed_value() {
        let s = sel("env in (prod, staging)");
        assert_eq!(s.requirements[0].values, vec!["prod", "staging"]);
        assert!(s.matches(labels(&[("env", "prod")])));
        assert!(s.matches(labels(&[("env", "staging")])));
        assert!(!s.matches(labels(&[("env", "dev")])));
        assert!(!s.matches(labels(&[])));
    }

    #[test]
    fn notin_matches_objects_without_the_key() {
        let s = sel("env notin (prod,dev)");
        assert!(s.matches(labels(&[])));
        assert!(s.matches(labels(&[("env", "qa")])));
        assert!(!s.matches(labels(&[("env", "dev")])));
    }

    #[test]
    fn bare_key_requires_existence() {
        let s = sel("gpu");
        assert_eq!(s.requirements[0].op, Operator::Exists);
        assert!(s.matches(labels(&[("gpu", "")])));
        assert!(!s.matches(labels(&[("cpu", "x")])));
    }

    #[test]
    fn bang_key_requires_absence() {
        let s = sel("!gpu");
        assert_eq!(s.requirements[0].op, Operator::DoesNotExist);
        assert!(s.matches(labels(&[("cpu", "x")])));
        assert!(!s.matches(labels(&[("gpu", "1")])));
    }

    #[test]
    fn greater_and_less_compare_integers() {
        let s = sel("replicas>2,replicas<10");
        assert!(s.matches(labels(&[("replicas", "5")])));
        assert!(!s.matches(labels(&[("replicas", "2")])));
        assert!(!s.matches(labels(&[("replicas", "abc")])));
        assert!(!s.matches(labels(&[])));
        assert!(matches!(
            LabelSelector::parse("a>b"),
            Err(SelectorError::InvalidValue { .. })
        ));
    }

    #[test]
    fn requirements_are_anded_and_sorted_by_key() {
        let s = sel("z=1,a in (x),!m");
        let keys: Vec<_> = s.requirements.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["a", "m", "z"]);
        assert!(s.matches(labels(&[("a", "x"), ("z", "1")])));
        assert!(!s.matches(labels(&[("a", "x"), ("z", "1"), ("m", "")])));
        assert_eq!(s.to_string(), "a in (x),!m,z=1");
    }

    #[test]
    fn empty_value_and_empty_set_mean_the_empty_string() {
        let s = sel("a=");
        assert!(s.matches(labels(&[("a", "")])));
        assert!(!s.matches(labels(&[("a", "x")])));
        let s = sel("a in ()");
        assert_eq!(s.requirements[0].values, vec![""]);
        assert!(s.matches(labels(&[("a", "")])));
    }

    #[test]
    fn prefixed_keys_are_accepted() {
        let s = sel("app.kubernetes.io/name=nginx");
        assert!(s.matches(labels(&[("app.kubernetes.io/name", "nginx")])));
    }

    #[test]
    fn invalid_keys_are_rejected_with_position() {
        let e = LabelSelector::parse("a=b, -bad=x").unwrap_err();
        assert_eq!(
            e,
            SelectorError::InvalidKey {
                position: 5,
                key: "-bad".into(),
                message: "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character".into()
            }
        );
        assert!(LabelSelector::parse("Upper.Case/x=1").is_err());
        assert!(LabelSelector::parse("/x=1").is_err());
        assert!(LabelSelector::parse("a/b/c=1").is_err());
        assert!(LabelSelector::parse(&"k".repeat(64)).is_err());
        assert!(LabelSelector::parse(&"k".repeat(63)).is_ok());
    }

    #[test]
    fn invalid_values_are_rejected() {
        assert!(matches!(
            LabelSelector::parse(&format!("a={}", "v".repeat(64))),
            Err(SelectorError::InvalidValue { position: 2, .. })
        ));
        assert!(LabelSelector::parse("a=-x").is_err());
        assert!(LabelSelector::parse("a in (ok, b@d)").is_err());
    }

    #[test]
    fn syntax_errors_report_position() {
        let e = LabelSelector::parse("a in (b").unwrap_err();
        assert_eq!(
            e,
            SelectorError::Syntax {
                position: 7,
                message: "found end of input, expected: ')'".into()
            }
        );
        assert!(matches!(
            LabelSelector::parse("a=b c"),
            Err(SelectorError::Syntax { position: 4, .. })
        ));
        assert!(LabelSelector::parse("a=b,").is_err());
        assert!(LabelSelector::parse(",a").is_err());
        assert!(LabelSelector::parse("a in b").is_err());
        assert!(LabelSelector::parse("!").is_err());
        assert!(LabelSelector::parse("a (b)").is_err());
        let msg = LabelSelector::parse("a in (b").unwrap_err().to_string();
        assert!(msg.contains("position 7"), "{msg}");
    }

    #[test]
    fn field_selector_equality_and_inequality() {
        let f = FieldSelector::parse("metadata.namespace=default,status.phase!=Running").unwrap();
        let get = |phase: &'static str| {
            move |field: &str| match field {
                "metadata.namespace" => Some("default"),
                "status.phase" => Some(phase),
                _ => None,
            }
        };
        assert!(f.matches(get("Pending")));
        assert!(!f.matches(get("Running")));
        assert_eq!(
            f.requires_exact_match("metadata.namespace"),
            Some("default")
        );
        assert_eq!(f.requires_exact_match("status.phase"), None);
    }

    #[test]
    fn field_selector_double_equals_and_missing_field_reads_empty() {
        let f = FieldSelector::parse("spec.nodeName==").unwrap();
        assert_eq!(f.requirements[0].op, FieldOperator::DoubleEquals);
        assert!(f.matches(|_| None));
        assert!(!f.matches(|_| Some("node-1")));
        let f = FieldSelector::parse("spec.nodeName!=").unwrap();
        assert!(f.matches(|_| Some("node-1")));
        assert!(!f.matches(|_| None));
    }

    #[test]
    fn field_selector_refuses_a_field_ending_in_bang_it_could_not_print_back() {
        // `a! =x` would print as `a!=x` (a != x): found by the round-trip property test.
        assert!(FieldSelector::parse("! =").is_err());
        assert!(FieldSelector::parse("a! =x").is_err());
        let ok = FieldSelector::parse("a!=x").expect("inequality");
        assert_eq!(ok.to_string(), "a!=x");
    }

    #[test]
    fn field_selector_escapes_round_trip() {
        let f = FieldSelector::parse(r"metadata.name=a\,b\=c\\d").unwrap();
        assert_eq!(f.requirements[0].value, r"a,b=c\d");
        assert_eq!(f.to_string(), r"metadata.name=a\,b\=c\\d");
    }

    #[test]
    fn field_selector_rejects_malformed_terms() {
        assert!(matches!(
            FieldSelector::parse("metadata.name"),
            Err(SelectorError::Field { position: 0, .. })
        ));
        assert!(FieldSelector::parse("a=b=c").is_err());
        assert!(FieldSelector::parse(r"a=b\x").is_err());
        assert!(FieldSelector::parse(r"a=b\").is_err());
        assert!(FieldSelector::parse("=b").is_err());
        assert!(FieldSelector::parse("").unwrap().is_empty());
    }

    fn key_strategy() -> impl Strategy<Value = String> {
        (
            proptest::option::of("[a-z0-9]{1,5}(\\.[a-z0-9]{1,5}){0,2}"),
            "[A-Za-z0-9]([A-Za-z0-9_.-]{0,8}[A-Za-z0-9])?",
        )
            .prop_map(|(prefix, name)| match prefix {
                Some(p) => format!("{p}/{name}"),
                None => name,
            })
            .prop_filter("keywords are not keys", |k| k != "in" && k != "notin")
    }

    fn value_strategy() -> impl Strategy<Value = String> {
        "([A-Za-z0-9]([A-Za-z0-9_.-]{0,8}[A-Za-z0-9])?)?"
    }

    fn requirement_strategy() -> impl Strategy<Value = Requirement> {
        let single = (
            key_strategy(),
            prop_oneof![
                Just(Operator::Equals),
                Just(Operator::DoubleEquals),
                Just(Operator::NotEquals)
            ],
            value_strategy(),
        )
            .prop_map(|(key, op, v)| Requirement {
                key,
                op,
                values: vec![v],
            });
        let set = (
            key_strategy(),
            prop_oneof![Just(Operator::In), Just(Operator::NotIn)],
            proptest::collection::btree_set(value_strategy(), 1..4),
        )
            .prop_map(|(key, op, vs)| Requirement {
                key,
                op,
                values: vs.into_iter().collect(),
            });
        let unary = (
            key_strategy(),
            prop_oneof![Just(Operator::Exists), Just(Operator::DoesNotExist)],
        )
            .prop_map(|(key, op)| Requirement {
                key,
                op,
                values: vec![],
            });
        let cmp = (
            key_strategy(),
            prop_oneof![Just(Operator::GreaterThan), Just(Operator::LessThan)],
            any::<i32>(),
        )
            .prop_map(|(key, op, n)| Requirement {
                key,
                op,
                values: vec![n.to_string()],
            });
        prop_oneof![single, set, unary, cmp]
    }

    proptest! {
        #[test]
        fn label_parser_never_panics(s in ".{0,60}") {
            let _ = LabelSelector::parse(&s);
        }

        #[test]
        fn label_parser_never_panics_on_selector_alphabet(s in "[a-z!=(), <>/.-]{0,40}") {
            if let Ok(parsed) = LabelSelector::parse(&s) {
                // Anything accepted prints to something that parses back to the same selector.
                prop_assert_eq!(LabelSelector::parse(&parsed.to_string()).unwrap(), parsed);
            }
        }

        #[test]
        fn label_display_parse_round_trip(reqs in proptest::collection::vec(requirement_strategy(), 0..5)) {
            let mut reqs = reqs;
            reqs.sort_by(|a, b| a.key.cmp(&b.key));
            let s = LabelSelector { requirements: reqs };
            let printed = s.to_string();
            let parsed = LabelSelector::parse(&printed).unwrap();
            prop_assert_eq!(parsed, s);
        }

        #[test]
        fn field_parser_never_panics(s in ".{0,60}") {
            let _ = FieldSelector::parse(&s);
        }

        #[test]
        fn field_display_parse_round_trip(
            terms in proptest::collection::vec(
                ("[a-z]{1,6}(\\.[a-zA-Z]{1,6}){0,2}",
                 prop_oneof![Just(FieldOperator::Equals), Just(FieldOperator::DoubleEquals), Just(FieldOperator::NotEquals)],
                 "[a-z0-9,=\\\\ -]{0,8}"),
                0..4)
        ) {
            let s = FieldSelector {
                requirements: terms.into_iter().map(|(field, op, value)| FieldRequirement { field, op, value }).collect(),
            };
            let parsed = FieldSelector::parse(&s.to_string()).unwrap();
            prop_assert_eq!(parsed, s);
        }
    }
}
