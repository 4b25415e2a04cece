//! The log view's filter language (`&`): space-separated terms that must all hold.
//!
//! - `word` or `"two words"`: the line contains it (case-insensitive);
//! - `~regex` or `~"regex with spaces"`: the line matches it (case-insensitive);
//! - `key=value`, `key>=value`, `key>value`, `key<=value`, `key<value`: a field of the parsed
//!   line (see `fields`) compares so; `level` compares by severity (`level>=warn`), values
//!   that are both numbers compare as numbers (`status>=500`), others as text (`=` ignoring
//!   case); a line without the field does not match;
//! - `!term` negates a term (`!path=/healthz`, `!~debug`); `key!=value` is `!key=value`.
//!
//! k9s's log filter is one regex (or its inverse with `!`); kubetui adds jq queries. Field terms
//! are closer to what LogQL's label filters (`| status >= 500`) do, on the line's own fields.
//!
//! Invariant: `LineFilter::to_string` prints a filter that parses back to the same filter.

use std::fmt;

use super::Matcher;
use super::fields::{Level, Parsed};

/// A comparison of a field term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }

    fn holds(self, o: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            Op::Eq => o == Equal,
            Op::Lt => o == Less,
            Op::Le => o != Greater,
            Op::Gt => o == Greater,
            Op::Ge => o != Less,
        }
    }
}

/// One term of a filter.
#[derive(Debug, Clone)]
pub enum TermKind {
    Text(Matcher),
    Field { key: String, op: Op, value: String },
}

#[derive(Debug, Clone)]
pub struct Term {
    pub negate: bool,
    pub kind: TermKind,
}

impl PartialEq for Term {
    fn eq(&self, other: &Self) -> bool {
        self.negate == other.negate
            && match (&self.kind, &other.kind) {
                (TermKind::Text(a), TermKind::Text(b)) => a.raw == b.raw,
                (
                    TermKind::Field { key, op, value },
                    TermKind::Field {
                        key: k2,
                        op: o2,
                        value: v2,
                    },
                ) => key == k2 && op == o2 && value == v2,
                _ => false,
            }
    }
}

/// A parsed `&` filter: every term must hold.
#[derive(Debug, Clone, PartialEq)]
pub struct LineFilter {
    pub terms: Vec<Term>,
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@' | '-')
}

/// Reads a `"quoted"` string (the opening quote already taken); `\"` and `\\` escape.
fn quoted(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, String> {
    let mut out = String::new();
    loop {
        match chars.next() {
            None => return Err("unterminated quote in the filter".into()),
            Some('"') => return Ok(out),
            Some('\\') => match chars.next() {
                Some(c) => out.push(c),
                None => return Err("unterminated quote in the filter".into()),
            },
            Some(c) => out.push(c),
        }
    }
}

/// A bare word (to whitespace) or a quoted string.
fn word(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<String, String> {
    if chars.next_if_eq(&'"').is_some() {
        return quoted(chars);
    }
    let mut out = String::new();
    while let Some(c) = chars.next_if(|c| !c.is_whitespace()) {
        out.push(c);
    }
    Ok(out)
}

/// `key op` at the start of a bare token: its key, op, and whether `!=` negates it.
fn field_head(token: &str) -> Option<(String, Op, bool, usize)> {
    let key_end = token
        .char_indices()
        .find(|(_, c)| !is_key_char(*c))
        .map_or(token.len(), |(i, _)| i);
    if key_end == 0 {
        return None;
    }
    let rest = &token[key_end..];
    let (op, neg, len) = [
        (">=", Op::Ge, false),
        ("<=", Op::Le, false),
        ("!=", Op::Eq, true),
        ("=", Op::Eq, false),
        (">", Op::Gt, false),
        ("<", Op::Lt, false),
    ]
    .into_iter()
    .find(|(s, ..)| rest.starts_with(s))
    .map(|(s, op, neg)| (op, neg, s.len()))?;
    Some((token[..key_end].to_string(), op, neg, key_end + len))
}

impl LineFilter {
    pub fn parse(raw: &str) -> Result<Self, String> {
        let mut terms = Vec::new();
        let mut chars = raw.chars().peekable();
        loop {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            if chars.peek().is_none() {
                break;
            }
            let mut negate = chars.next_if_eq(&'!').is_some();
            let kind = match chars.peek() {
                Some('"') => TermKind::Text(Matcher::parse(&word(&mut chars)?)?),
                Some('~') => {
                    chars.next();
                    TermKind::Text(Matcher::parse(&format!("~{}", word(&mut chars)?))?)
                }
                _ => {
                    // Up to whitespace, or to a quote right after an operator (`msg="a b"`).
                    let mut token = String::new();
                    while let Some(c) = chars.next_if(|c| !c.is_whitespace() && *c != '"') {
                        token.push(c);
                    }
                    match field_head(&token) {
                        Some((key, op, neg, at)) => {
                            let mut value = token[at..].to_string();
                            if value.is_empty() && chars.next_if_eq(&'"').is_some() {
                                value = quoted(&mut chars)?;
                            } else if chars.peek() == Some(&'"') {
                                return Err(format!(
                                    "a quote inside {token:?}: quote the whole value"
                                ));
                            }
                            negate ^= neg;
                            TermKind::Field { key, op, value }
                        }
                        None => {
                            if chars.peek() == Some(&'"') {
                                return Err(format!(
                                    "a quote inside {token:?}: quote the whole term"
                                ));
                            }
                            TermKind::Text(Matcher::parse(&token)?)
                        }
                    }
                }
            };
            if let TermKind::Text(m) = &kind
                && m.raw.is_empty()
            {
                if negate {
                    return Err("! needs a term after it".into());
                }
                continue;
            }
            terms.push(Term { negate, kind });
        }
        Ok(Self { terms })
    }

    /// Some term reads fields: lines must be parsed to run it.
    pub fn needs_fields(&self) -> bool {
        self.terms
            .iter()
            .any(|t| matches!(t.kind, TermKind::Field { .. }))
    }

    /// Every term holds for the line `text` (its fields: `parsed`).
    pub fn matches(&self, text: &str, parsed: Option<&Parsed>) -> bool {
        self.terms.iter().all(|t| {
            let hit = match &t.kind {
                TermKind::Text(m) => m.is_match(text),
                TermKind::Field { key, op, value } => {
                    parsed.is_some_and(|p| field_holds(p, key, *op, value))
                }
            };
            hit != t.negate
        })
    }

    /// The text terms' matchers (the view highlights what they find).
    pub fn text_terms(&self) -> impl Iterator<Item = &Matcher> {
        self.terms.iter().filter_map(|t| match &t.kind {
            TermKind::Text(m) if !t.negate => Some(m),
            _ => None,
        })
    }
}

fn field_holds(p: &Parsed, key: &str, op: Op, want: &str) -> bool {
    let Some(have) = p.get(key) else {
        return false;
    };
    if matches!(
        key.to_ascii_lowercase().as_str(),
        "level" | "lvl" | "severity" | "log.level" | "loglevel"
    ) && let (Some(a), Some(b)) = (Level::parse(&have), Level::parse(want))
    {
        return op.holds(a.cmp(&b));
    }
    if let (Ok(a), Ok(b)) = (have.trim().parse::<f64>(), want.trim().parse::<f64>()) {
        return a.partial_cmp(&b).is_some_and(|o| op.holds(o));
    }
    match op {
        Op::Eq => have.eq_ignore_ascii_case(want),
        _ => op.holds(have.as_ref().cmp(want)),
    }
}

/// Quotes `s` when printing it bare would not read back as the same text.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

fn bare_ok(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(|c| c.is_whitespace() || c == '"')
}

impl fmt::Display for Term {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negate {
            f.write_str("!")?;
        }
        match &self.kind {
            TermKind::Text(m) => match m.raw.strip_prefix('~') {
                Some(re) if bare_ok(re) => write!(f, "~{re}"),
                Some(re) => write!(f, "~{}", quote(re)),
                None => {
                    let plain = bare_ok(&m.raw)
                        && !m.raw.starts_with(['!', '~'])
                        && field_head(&m.raw).is_none();
                    if plain {
                        f.write_str(&m.raw)
                    } else {
                        f.write_str(&quote(&m.raw))
                    }
                }
            },
            TermKind::Field { key, op, value } => {
                // `a<` then `=b` would read back as `a<=` then `b`.
                if bare_ok(value) && !value.starts_with(['=', '<', '>']) {
                    write!(f, "{key}{}{value}", op.as_str())
                } else {
                    write!(f, "{key}{}{}", op.as_str(), quote(value))
                }
            }
        }
    }
}

impl fmt::Display for LineFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::log_view::fields::parse;

    fn m(filter: &str, line: &str) -> bool {
        let f = LineFilter::parse(filter).unwrap();
        f.matches(line, parse(line).as_ref())
    }

    const JSON_ERR: &str =
        r#"{"level":"error","msg":"upstream timeout","user":"jane","status":503,"path":"/api"}"#;
    const JSON_INFO: &str =
        r#"{"level":"info","msg":"served","user":"bob","status":200,"path":"/healthz"}"#;

    #[test]
    fn field_terms_compare_levels_by_severity_numbers_as_numbers_and_text_ignoring_case() {
        assert!(m("level=error", JSON_ERR));
        assert!(!m("level=error", JSON_INFO));
        assert!(m("level>=warn", JSON_ERR));
        assert!(!m("level>=warn", JSON_INFO));
        assert!(m("lvl<warn", JSON_INFO));
        assert!(m("status>=500", JSON_ERR));
        assert!(!m("status>=500", JSON_INFO));
        // 1000 > 999 as numbers, though "1000" < "999" as text.
        assert!(m("status<1000", JSON_INFO));
        assert!(m("user=JANE", JSON_ERR));
        assert!(m("!path=/healthz", JSON_ERR));
        assert!(!m("!path=/healthz", JSON_INFO));
        assert!(m("path!=/healthz", JSON_ERR));
    }

    #[test]
    fn terms_combine_with_and_alongside_substrings_and_regexes() {
        assert!(m("level>=warn timeout", JSON_ERR));
        assert!(!m("level>=warn served", JSON_ERR));
        assert!(m("~time(out)? status=503", JSON_ERR));
        assert!(m(r#""upstream timeout" user=jane"#, JSON_ERR));
        assert!(m(r#"msg="upstream timeout""#, JSON_ERR));
        assert!(!m("!~upstream", JSON_ERR));
    }

    #[test]
    fn a_field_term_misses_lines_without_the_field_and_its_negation_keeps_them() {
        assert!(!m("level=error", "plain text with error in it"));
        assert!(m("!level=error", "plain text with error in it"));
        assert!(m("error", "plain text with error in it"));
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(
            LineFilter::parse("\"open")
                .unwrap_err()
                .contains("unterminated")
        );
        assert!(LineFilter::parse("~(").unwrap_err().contains("regex"));
        assert!(LineFilter::parse("!").is_err());
        assert!(LineFilter::parse("ab\"cd\"").unwrap_err().contains("quote"));
    }

    #[test]
    fn printing_quotes_what_would_read_differently() {
        let f = LineFilter::parse(r#""a=b" "two words" ~"x y" msg="a \"b\"" !"!x""#).unwrap();
        assert_eq!(
            f.to_string(),
            r#""a=b" "two words" ~"x y" msg="a \"b\"" !"!x""#
        );
        assert_eq!(LineFilter::parse(&f.to_string()).unwrap(), f);
    }

    mod props {
        use proptest::prelude::*;

        use super::super::*;

        fn text() -> impl Strategy<Value = String> {
            proptest::string::string_regex(r#"[a-zA-Z0-9 =<>!~"\/._@	-]{1,12}"#).unwrap()
        }

        fn term() -> impl Strategy<Value = Term> {
            let kind = prop_oneof![
                text().prop_map(|t| TermKind::Text(
                    Matcher::parse(&t)
                        .unwrap_or_else(|_| { Matcher::parse(&format!("x{t}")).unwrap() })
                )),
                proptest::string::string_regex("[a-z ]{1,8}")
                    .unwrap()
                    .prop_map(|r| TermKind::Text(Matcher::parse(&format!("~{r}")).unwrap())),
                (
                    "[a-zA-Z0-9_.@-]{1,8}",
                    prop_oneof![
                        Just(Op::Eq),
                        Just(Op::Lt),
                        Just(Op::Le),
                        Just(Op::Gt),
                        Just(Op::Ge)
                    ],
                    proptest::string::string_regex(r#"[a-z0-9 ="\/<>!-]{0,10}"#).unwrap(),
                )
                    .prop_map(|(key, op, value)| TermKind::Field {
                        key,
                        op,
                        value
                    }),
            ];
            (any::<bool>(), kind).prop_map(|(negate, kind)| Term { negate, kind })
        }

        proptest! {
            #[test]
            fn a_printed_filter_parses_back_to_the_same_filter(
                terms in proptest::collection::vec(term(), 0..5)
            ) {
                // A text term that reads as a regex is printed as one: skip invalid ones.
                let f = LineFilter { terms };
                let printed = f.to_string();
                let back = LineFilter::parse(&printed);
                prop_assert_eq!(back.as_ref(), Ok(&f), "printed {:?}", printed);
            }

            #[test]
            fn whatever_parses_prints_to_a_filter_that_parses_the_same(
                raw in r#"[a-z0-9 =<>!~"\._-]{0,24}"#
            ) {
                if let Ok(f) = LineFilter::parse(&raw) {
                    let printed = f.to_string();
                    prop_assert_eq!(LineFilter::parse(&printed), Ok(f), "printed {:?}", printed);
                }
            }
        }
    }
}
