//! Structured log lines: a line's fields when it is a JSON object, logfmt, a klog line or a
//! combined (nginx/Apache) access log line, for the log view's structured display (`J`), its
//! field filters (`level>=warn`, `status>=500`) and its columns.
//!
//! k9s shows log lines as text only (its issues #364, #2148 and #2998 ask for this). The key
//! names recognised are the ones the common loggers write: zap and go-kit (`ts`, `level`, `msg`,
//! `caller`), slog and logrus (`time`, `level`, `msg`), bunyan/pino (`time`, numeric `level`),
//! Elastic's ECS (`@timestamp`, `log.level`, `message`), Google Cloud (`severity`, `message`),
//! klog's header (`Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg`, then its `key=value` pairs).
//!
//! Invariants:
//! - parsing never panics and is linear in the line's length; a line over [`MAX_PARSE_BYTES`] is
//!   not parsed (it shows as it is);
//! - a line is parsed from its cleaned text (ANSI sequences already removed by `log_text`);
//! - `fields` holds every field but the time, level and message, the well-known ones first (in
//!   [`WELL_KNOWN`] order) and the rest sorted by key, so the order is the same on every line.

use std::borrow::Cow;
use std::sync::LazyLock;

use ratatui::style::Color;
use regex::Regex;
use serde_json::Value;

/// Lines longer than this are shown as they are (parsing them would cost more than it shows).
pub const MAX_PARSE_BYTES: usize = 64 * 1024;

/// Keys holding the time, the level and the message.
const TIME_KEYS: &[&str] = &["ts", "time", "timestamp", "@timestamp", "t"];
const LEVEL_KEYS: &[&str] = &["level", "lvl", "severity", "log.level", "loglevel"];
const MSG_KEYS: &[&str] = &["msg", "message", "@message"];
/// Fields shown right after the message, in this order; the rest follow sorted by key.
pub const WELL_KNOWN: &[&str] = &[
    "error",
    "err",
    "caller",
    "logger",
    "trace_id",
    "traceId",
    "span_id",
    "spanId",
    "request_id",
];

/// A log level, in severity order (filters compare with it: `level>=warn`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

impl Level {
    /// The level a logger's word or number means (case-insensitive; bunyan/pino numbers).
    pub fn parse(s: &str) -> Option<Level> {
        let l = s.trim().to_ascii_lowercase();
        Some(match l.as_str() {
            "trace" | "trc" | "t" | "10" => Level::Trace,
            "debug" | "dbg" | "d" | "20" => Level::Debug,
            "info" | "inf" | "information" | "informational" | "notice" | "i" | "30" => Level::Info,
            "warn" | "wrn" | "warning" | "w" | "40" => Level::Warn,
            "error" | "err" | "eror" | "e" | "50" => Level::Error,
            "fatal" | "ftl" | "critical" | "crit" | "panic" | "dpanic" | "alert" | "emergency"
            | "emerg" | "f" | "60" => Level::Fatal,
            _ => return None,
        })
    }

    pub fn label(self) -> &'static str {
        match self {
            Level::Trace => "trace",
            Level::Debug => "debug",
            Level::Info => "info",
            Level::Warn => "warn",
            Level::Error => "error",
            Level::Fatal => "fatal",
        }
    }

    pub fn colour(self) -> Color {
        match self {
            Level::Trace => Color::DarkGray,
            Level::Debug => Color::Blue,
            Level::Info => Color::Green,
            Level::Warn => Color::Yellow,
            Level::Error => Color::Red,
            Level::Fatal => Color::LightRed,
        }
    }
}

/// Which format a line was parsed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Logfmt,
    Klog,
    Access,
}

/// A parsed line.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    pub format: Format,
    /// The time as written.
    pub time: Option<Box<str>>,
    pub level: Option<Level>,
    pub msg: Option<Box<str>>,
    /// The other fields (see the module's invariants for their order).
    pub fields: Vec<(Box<str>, Box<str>)>,
}

impl Parsed {
    /// Heap bytes this parse holds (counted against the view's byte cap).
    pub fn heap_bytes(&self) -> usize {
        let s = |b: &Option<Box<str>>| b.as_ref().map_or(0, |b| b.len());
        std::mem::size_of::<Parsed>()
            + s(&self.time)
            + s(&self.msg)
            + self
                .fields
                .iter()
                .map(|(k, v)| k.len() + v.len() + std::mem::size_of::<(Box<str>, Box<str>)>())
                .sum::<usize>()
    }

    /// A field's value by name: `level`, `msg`, `time` and their aliases name those; other keys
    /// match exactly, then case-insensitively.
    pub fn get(&self, key: &str) -> Option<Cow<'_, str>> {
        let lower = key.to_ascii_lowercase();
        if LEVEL_KEYS.contains(&lower.as_str()) && self.level.is_some() {
            return self.level.map(|l| Cow::Borrowed(l.label()));
        }
        if MSG_KEYS.contains(&lower.as_str()) {
            return self.msg.as_deref().map(Cow::Borrowed);
        }
        if TIME_KEYS.contains(&lower.as_str()) && self.time.is_some() {
            return self.time.as_deref().map(Cow::Borrowed);
        }
        self.fields
            .iter()
            .find(|(k, _)| &**k == key)
            .or_else(|| {
                self.fields
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(key))
            })
            .map(|(_, v)| Cow::Borrowed(&**v))
    }

    /// The whole line, one field a row: JSON pretty-printed, the others `key: value`.
    pub fn pretty(&self, raw: &str) -> Vec<String> {
        if self.format == Format::Json
            && let Ok(v) = serde_json::from_str::<Value>(raw)
            && let Ok(p) = serde_json::to_string_pretty(&v)
        {
            return p.lines().map(str::to_string).collect();
        }
        let mut out = Vec::new();
        if let Some(t) = &self.time {
            out.push(format!("time: {t}"));
        }
        if let Some(l) = self.level {
            out.push(format!("level: {}", l.label()));
        }
        if let Some(m) = &self.msg {
            out.push(format!("msg: {m}"));
        }
        out.extend(self.fields.iter().map(|(k, v)| format!("{k}: {v}")));
        out
    }
}

/// Parses one (cleaned) line; `None` when it is in none of the formats.
pub fn parse(text: &str) -> Option<Parsed> {
    if text.len() > MAX_PARSE_BYTES {
        return None;
    }
    let t = text.trim();
    if t.starts_with('{') {
        return parse_json(t);
    }
    parse_klog(t)
        .or_else(|| parse_access(t))
        .or_else(|| parse_logfmt(t))
}

/// Sorts the well-known keys first, the rest by key.
fn order(fields: &mut [(Box<str>, Box<str>)]) {
    fields.sort_by(|a, b| {
        let rank = |k: &str| {
            WELL_KNOWN
                .iter()
                .position(|w| *w == k)
                .unwrap_or(usize::MAX)
        };
        rank(&a.0).cmp(&rank(&b.0)).then_with(|| a.0.cmp(&b.0))
    });
}

/// Takes the time, level and message out of `pairs` (first key of each kind wins).
fn assemble(format: Format, pairs: Vec<(String, String)>) -> Parsed {
    let mut p = Parsed {
        format,
        time: None,
        level: None,
        msg: None,
        fields: Vec::with_capacity(pairs.len()),
    };
    let mut level_raw: Option<String> = None;
    for (k, v) in pairs {
        let lower = k.to_ascii_lowercase();
        if p.time.is_none() && TIME_KEYS.contains(&lower.as_str()) {
            p.time = Some(v.into());
        } else if level_raw.is_none() && LEVEL_KEYS.contains(&lower.as_str()) {
            p.level = Level::parse(&v);
            if p.level.is_none() {
                // An unknown level word stays visible as a field.
                p.fields.push((k.into(), v.clone().into()));
            }
            level_raw = Some(v);
        } else if p.msg.is_none() && MSG_KEYS.contains(&lower.as_str()) {
            p.msg = Some(v.into());
        } else {
            p.fields.push((k.into(), v.into()));
        }
    }
    order(&mut p.fields);
    p
}

fn parse_json(t: &str) -> Option<Parsed> {
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(t) else {
        return None;
    };
    let mut pairs = Vec::with_capacity(map.len());
    for (k, v) in map {
        flatten(k, v, &mut pairs, 0);
    }
    Some(assemble(Format::Json, pairs))
}

/// Nested objects become dotted keys (`http.status`); arrays stay compact JSON.
fn flatten(key: String, v: Value, out: &mut Vec<(String, String)>, depth: usize) {
    match v {
        Value::Object(m) if depth < 8 && !m.is_empty() => {
            for (k, v) in m {
                flatten(format!("{key}.{k}"), v, out, depth + 1);
            }
        }
        Value::String(s) => out.push((key, s)),
        other => out.push((key, other.to_string())),
    }
}

fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '@' | '-' | '/')
}

/// logfmt tokens: `key=value`, `key="quoted \" value"`, bare `key`. `None` when a token is not
/// one of these (the line is not logfmt).
fn logfmt_pairs(s: &str) -> Option<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    loop {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
        let Some(&(start, _)) = chars.peek() else {
            break;
        };
        let mut end = start;
        while let Some((i, c)) = chars.next_if(|(_, c)| is_key_char(*c)) {
            end = i + c.len_utf8();
        }
        if end == start {
            return None;
        }
        let key = s[start..end].to_string();
        match chars.peek() {
            None => {
                out.push((key, String::new()));
                break;
            }
            Some((_, c)) if c.is_whitespace() => out.push((key, String::new())),
            Some((_, '=')) => {
                chars.next();
                let mut value = String::new();
                if chars.next_if(|(_, c)| *c == '"').is_some() {
                    // Quoted: to the closing quote (or the end of a cut line).
                    while let Some((_, c)) = chars.next() {
                        match c {
                            '"' => break,
                            '\\' => {
                                if let Some((_, e)) = chars.next() {
                                    value.push(match e {
                                        'n' => '\n',
                                        't' => '\t',
                                        other => other,
                                    });
                                }
                            }
                            c => value.push(c),
                        }
                    }
                    if chars.peek().is_some_and(|(_, c)| !c.is_whitespace()) {
                        return None;
                    }
                } else {
                    while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
                        value.push(c);
                    }
                }
                out.push((key, value));
            }
            Some(_) => return None,
        }
    }
    Some(out)
}

fn parse_logfmt(t: &str) -> Option<Parsed> {
    let pairs = logfmt_pairs(t)?;
    // Plain words are valid bare keys: it takes two real pairs to call a line logfmt.
    if pairs.iter().filter(|(_, v)| !v.is_empty()).count() < 2
        || pairs.iter().filter(|(_, v)| v.is_empty()).count() > pairs.len() / 2
    {
        return None;
    }
    Some(assemble(Format::Logfmt, pairs))
}

/// `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg` (klog's header).
fn parse_klog(t: &str) -> Option<Parsed> {
    let b = t.as_bytes();
    let level = match b.first()? {
        b'I' => Level::Info,
        b'W' => Level::Warn,
        b'E' => Level::Error,
        b'F' => Level::Fatal,
        _ => return None,
    };
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|s| s.len() == r.len() && s.iter().all(u8::is_ascii_digit))
    };
    let header_ok = digits(1..5)
        && b.get(5) == Some(&b' ')
        && digits(6..8)
        && b.get(8) == Some(&b':')
        && digits(9..11)
        && b.get(11) == Some(&b':')
        && digits(12..14)
        && b.get(14) == Some(&b'.');
    if !header_ok {
        return None;
    }
    let close = t.find("] ").or_else(|| t.strip_suffix(']').map(str::len))?;
    let head = &t[..close];
    let mut parts = head[15..].split_whitespace();
    let _micros = parts.next()?;
    let _thread = parts.next()?;
    let caller = parts.next()?;
    let time = format!("{}-{} {}", &head[1..3], &head[3..5], &head[6..]);
    let time = time
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ");
    let rest = t.get(close + 2..).unwrap_or("");
    let (msg, mut fields) = klog_message(rest);
    fields.push(("caller".into(), caller.into()));
    let mut p = Parsed {
        format: Format::Klog,
        time: Some(time.into()),
        level: Some(level),
        msg: Some(msg.into()),
        fields: fields
            .into_iter()
            .map(|(k, v)| (k.into_boxed_str(), v.into_boxed_str()))
            .collect(),
    };
    order(&mut p.fields);
    Some(p)
}

/// klog's structured form: `"message" key=value…`; otherwise the whole text is the message.
fn klog_message(rest: &str) -> (String, Vec<(String, String)>) {
    if let Some(body) = rest.strip_prefix('"') {
        let mut msg = String::new();
        let mut chars = body.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, e)) = chars.next() {
                        msg.push(e);
                    }
                }
                '"' => {
                    let tail = &body[i + 1..];
                    if let Some(pairs) = logfmt_pairs(tail) {
                        return (msg, pairs);
                    }
                    break;
                }
                c => msg.push(c),
            }
        }
    }
    (rest.to_string(), Vec::new())
}

static ACCESS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"^(\S+) \S+ (\S+) \[([^\]]+)\] "(\S+) (\S+)(?: ([^"]*))?" (\d{3}) (\d+|-)(?: "([^"]*)" "([^"]*)")?(.*)$"#,
    )
    .ok()
});

/// The combined log format (nginx, Apache, Envoy's default): its fields, and any `key=value`
/// pairs after it (`rt=0.012`). Access lines have no level: the status shows the outcome.
fn parse_access(t: &str) -> Option<Parsed> {
    let re = ACCESS.as_ref()?;
    let c = re.captures(t)?;
    let g = |i: usize| c.get(i).map_or("", |m| m.as_str());
    let mut pairs: Vec<(String, String)> = vec![
        ("remote_addr".into(), g(1).into()),
        ("method".into(), g(4).into()),
        ("path".into(), g(5).into()),
        ("status".into(), g(7).into()),
        ("bytes".into(), g(8).into()),
    ];
    if g(2) != "-" {
        pairs.push(("user".into(), g(2).into()));
    }
    if !g(6).is_empty() {
        pairs.push(("protocol".into(), g(6).into()));
    }
    if !g(9).is_empty() && g(9) != "-" {
        pairs.push(("referer".into(), g(9).into()));
    }
    if !g(10).is_empty() {
        pairs.push(("user_agent".into(), g(10).into()));
    }
    if let Some(extra) = logfmt_pairs(g(11)) {
        pairs.extend(extra);
    }
    let mut p = assemble(Format::Access, pairs);
    p.time = Some(g(3).into());
    p.msg = Some(format!("{} {}", g(4), g(5)).into());
    Some(p)
}

/// The time of day of a field's time (`HH:MM:SS.mmm`, in `offset_secs` when the value says its
/// zone or is a Unix time), or `None` when it does not read as a time.
pub fn short_time(raw: &str, offset_secs: i32) -> Option<String> {
    let local = |t: chrono::DateTime<chrono::Utc>| {
        (t + chrono::Duration::seconds(i64::from(offset_secs)))
            .format("%H:%M:%S%.3f")
            .to_string()
    };
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(raw) {
        return Some(local(t.to_utc()));
    }
    if let Ok(n) = raw.parse::<f64>()
        && n.is_finite()
        && n > 0.0
    {
        // Seconds (zap's `ts`), or milliseconds (pino, bunyan numbers) past 10^11.
        let ms = if n > 1e11 { n } else { n * 1000.0 };
        return chrono::DateTime::from_timestamp_millis(ms as i64).map(local);
    }
    // Anything with a clock in it (klog's `11-28 12:00:00.000000`, access logs' `:12:00:00`).
    let b = raw.as_bytes();
    (0..b.len().saturating_sub(7)).find_map(|i| {
        let w = &b[i..i + 8];
        let clock = (i == 0 || !b[i - 1].is_ascii_digit())
            && w[2] == b':'
            && w[5] == b':'
            && [0, 1, 3, 4, 6, 7].iter().all(|k| w[*k].is_ascii_digit());
        clock.then(|| {
            let frac: String = raw[i + 8..]
                .strip_prefix('.')
                .map(|f| f.chars().take_while(char::is_ascii_digit).take(3).collect())
                .unwrap_or_default();
            if frac.is_empty() {
                raw[i..i + 8].to_string()
            } else {
                format!("{}.{frac}", &raw[i..i + 8])
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::log_text::clean;

    fn keys(p: &Parsed) -> Vec<&str> {
        p.fields.iter().map(|(k, _)| &**k).collect()
    }

    #[test]
    fn json_lines_give_time_level_message_and_the_rest_well_known_first_then_sorted() {
        let p = parse(
            r#"{"zeta":1,"ts":"2026-11-28T12:00:00.5Z","caller":"main.go:3","level":"ERROR","msg":"boom","error":"EOF","alpha":"x","http":{"status":503,"path":"/a"}}"#,
        )
        .unwrap();
        assert_eq!(p.format, Format::Json);
        assert_eq!(p.level, Some(Level::Error));
        assert_eq!(p.msg.as_deref(), Some("boom"));
        assert_eq!(p.time.as_deref(), Some("2026-11-28T12:00:00.5Z"));
        assert_eq!(
            keys(&p),
            [
                "error",
                "caller",
                "alpha",
                "http.path",
                "http.status",
                "zeta"
            ]
        );
        assert_eq!(p.get("http.status").as_deref(), Some("503"));
        assert_eq!(p.get("lvl").as_deref(), Some("error"));
        assert_eq!(p.get("message").as_deref(), Some("boom"));
    }

    #[test]
    fn numeric_levels_and_epoch_times_are_read() {
        let p = parse(r#"{"time":1764331200123,"level":50,"msg":"pino"}"#).unwrap();
        assert_eq!(p.level, Some(Level::Error));
        assert_eq!(
            short_time(p.time.as_deref().unwrap(), 0).unwrap(),
            "12:00:00.123"
        );
        let p = parse(r#"{"ts":1764331200.5,"level":"warn","msg":"zap"}"#).unwrap();
        assert_eq!(
            short_time(p.time.as_deref().unwrap(), 3600).unwrap(),
            "13:00:00.500"
        );
    }

    #[test]
    fn logfmt_lines_with_quotes_escapes_and_bare_keys() {
        let p = parse(
            r#"ts=2026-11-28T12:00:00Z level=warn msg="slow \"query\"" user=jane duration_ms=812 cached"#,
        )
        .unwrap();
        assert_eq!(p.format, Format::Logfmt);
        assert_eq!(p.level, Some(Level::Warn));
        assert_eq!(p.msg.as_deref(), Some(r#"slow "query""#));
        assert_eq!(keys(&p), ["cached", "duration_ms", "user"]);
        assert_eq!(p.get("user").as_deref(), Some("jane"));
    }

    #[test]
    fn klog_lines_get_their_level_caller_and_structured_pairs() {
        let p = parse(r#"E1128 12:00:00.123456       1 reflector.go:376] "Unhandled Error" err="context deadline exceeded" items=3"#).unwrap();
        assert_eq!(p.format, Format::Klog);
        assert_eq!(p.level, Some(Level::Error));
        assert_eq!(p.msg.as_deref(), Some("Unhandled Error"));
        assert_eq!(p.get("err").as_deref(), Some("context deadline exceeded"));
        assert_eq!(p.get("caller").as_deref(), Some("reflector.go:376"));
        assert_eq!(
            short_time(p.time.as_deref().unwrap(), 0).unwrap(),
            "12:00:00.123"
        );
        let p = parse("I1128 12:00:00.000000 1 file.go:12] plain message here").unwrap();
        assert_eq!(p.level, Some(Level::Info));
        assert_eq!(p.msg.as_deref(), Some("plain message here"));
    }

    #[test]
    fn access_log_lines_give_method_path_status_and_trailing_pairs() {
        let p = parse(r#"10.244.1.7 - - [28/Nov/2026:12:00:00 +0000] "GET /healthz HTTP/1.1" 503 612 "-" "kube-probe/1.33" rt=0.250"#).unwrap();
        assert_eq!(p.format, Format::Access);
        assert_eq!(p.level, None);
        assert_eq!(p.get("status").as_deref(), Some("503"));
        assert_eq!(p.get("path").as_deref(), Some("/healthz"));
        assert_eq!(p.get("rt").as_deref(), Some("0.250"));
        assert_eq!(p.msg.as_deref(), Some("GET /healthz"));
        assert_eq!(
            short_time(p.time.as_deref().unwrap(), 0).unwrap(),
            "12:00:00"
        );
    }

    #[test]
    fn malformed_partial_and_plain_lines_do_not_parse() {
        for line in [
            r#"{"level":"info","msg":"cut in the mid"#,
            r#"{"level": }"#,
            "[1, 2, 3]",
            "Connected to upstream services",
            "GET /healthz 200",
            "panic: runtime error: index out of range",
            "a=1 and some words after",
            "",
            "I1128 not klog",
            "2026-11-28 12:00:00.000 UTC [1] LOG:  checkpoint starting: time",
        ] {
            assert_eq!(parse(line), None, "{line:?}");
        }
        // A logfmt line cut inside a quoted value keeps what it has.
        let p = parse(r#"level=error msg="cut here"#).unwrap();
        assert_eq!(p.msg.as_deref(), Some("cut here"));
    }

    #[test]
    fn huge_lines_are_not_parsed_and_long_ones_are() {
        let big = format!(
            r#"{{"level":"info","msg":"{}"}}"#,
            "x".repeat(MAX_PARSE_BYTES)
        );
        assert_eq!(parse(&big), None);
        let long = format!(r#"{{"level":"info","msg":"{}"}}"#, "x".repeat(60_000));
        assert_eq!(parse(&long).unwrap().msg.unwrap().len(), 60_000);
    }

    #[test]
    fn ansi_coloured_lines_parse_once_cleaned() {
        let l = clean("\x1b[2m{\"level\":\"warn\",\x1b[0m\"msg\":\"hot\"}");
        assert_eq!(parse(&l.text).unwrap().level, Some(Level::Warn));
        let l = clean("level=\x1b[31merror\x1b[0m msg=x");
        assert_eq!(parse(&l.text).unwrap().level, Some(Level::Error));
    }

    #[test]
    fn an_unknown_level_word_stays_a_field_and_levels_order_by_severity() {
        let p = parse(r#"{"level":"verbose","msg":"x"}"#).unwrap();
        assert_eq!(p.level, None);
        assert_eq!(p.fields[0], ("level".into(), "verbose".into()));
        assert!(Level::Trace < Level::Debug && Level::Warn < Level::Error);
        assert_eq!(Level::parse("WARNING"), Some(Level::Warn));
    }
}
