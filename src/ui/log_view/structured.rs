//! Drawing a parsed line: the structured layout (`time level message key=value…`), column
//! cells, and the whole line pretty-printed (`enter`). Pure functions of the parsed fields.

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Span;

use super::fields::{Format, Level, Parsed, short_time};

/// Widest a column gets (longer values are cut with `…`).
pub const MAX_COLUMN: usize = 40;

pub fn level_style(level: Level) -> Style {
    let s = Style::default().fg(level.colour());
    if level >= Level::Error {
        s.add_modifier(Modifier::BOLD)
    } else {
        s
    }
}

/// The style of a field's value: errors red, HTTP statuses by class.
fn value_style(key: &str, value: &str) -> Style {
    match key {
        "error" | "err" | "exception" => Style::default().fg(Color::Red),
        "status" | "status_code" | "http.status" | "http.status_code" => {
            match value.as_bytes().first() {
                Some(b'5') => Style::default().fg(Color::Red),
                Some(b'4') => Style::default().fg(Color::Yellow),
                _ => Style::default(),
            }
        }
        _ => Style::default(),
    }
}

/// `time level message key=value…` with the level coloured and the keys dim.
pub fn field_spans(p: &Parsed, offset_secs: i32) -> Vec<Span<'static>> {
    let dim = Style::default().fg(Color::DarkGray);
    let mut spans = Vec::with_capacity(4 + p.fields.len() * 2);
    if let Some(t) = &p.time {
        let shown = short_time(t, offset_secs).unwrap_or_else(|| t.to_string());
        spans.push(Span::styled(format!("{shown} "), dim));
    }
    match p.level {
        Some(l) => spans.push(Span::styled(
            format!("{:<5} ", l.label().to_ascii_uppercase()),
            level_style(l),
        )),
        None if p.format == Format::Access => {
            let status = p.get("status").unwrap_or_default().to_string();
            spans.push(Span::styled(
                format!("{status:<5} "),
                value_style("status", &status),
            ));
        }
        None => {}
    }
    if let Some(m) = &p.msg {
        spans.push(Span::styled(
            m.to_string(),
            Style::default().add_modifier(Modifier::BOLD),
        ));
    }
    for (k, v) in &p.fields {
        if p.format == Format::Access && &**k == "status" {
            continue;
        }
        spans.push(Span::styled(format!(" {k}="), dim));
        let shown = if v.is_empty() || v.contains(' ') {
            format!("{v:?}")
        } else {
            v.to_string()
        };
        spans.push(Span::styled(shown, value_style(k, v)));
    }
    spans
}

/// A column's text for one line (empty when the line has no such field).
pub fn cell(p: Option<&Parsed>, column: &str) -> String {
    p.and_then(|p| p.get(column))
        .map(|v| v.replace(['\n', '\t'], " "))
        .unwrap_or_default()
}

/// A column's cell padded or cut to `width`, styled by its field.
pub fn cell_span(column: &str, value: &str, width: usize) -> Span<'static> {
    let n = value.chars().count();
    let text = if n > width {
        let mut t: String = value.chars().take(width.saturating_sub(1)).collect();
        t.push('…');
        t
    } else {
        format!("{value:<width$}")
    };
    let style = match Level::parse(value) {
        Some(l) if column.eq_ignore_ascii_case("level") => level_style(l),
        _ => value_style(column, value),
    };
    Span::styled(format!("{text}  "), style)
}

/// The whole line, one row per field: JSON pretty-printed, the other formats `key: value`; a
/// line that does not parse is shown as it is.
pub fn detail_rows(text: &str, parsed: Option<&Parsed>) -> Vec<String> {
    match parsed {
        Some(p) => p.pretty(text),
        None => vec![text.to_string()],
    }
}

pub fn format_name(parsed: Option<&Parsed>) -> &'static str {
    match parsed.map(|p| p.format) {
        Some(Format::Json) => "JSON",
        Some(Format::Logfmt) => "logfmt",
        Some(Format::Klog) => "klog",
        Some(Format::Access) => "access log",
        None => "plain text",
    }
}
