//! The row model every printer fills (cells, health, columns) and the JSON accessors and
//! formatters they share: its own file, so the printers (`pod`, `resources`, `crd`, …) import
//! it without importing `render` itself.

use std::borrow::Cow;
use std::cmp::Ordering;

use kube::api::DynamicObject;
use serde_json::Value;

/// One table cell. Values that change with the clock are stored as timestamps and rendered at
/// draw time, so a row computed once stays correct while it ages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    /// Plain text, sorted lexically.
    Text(String),
    /// An integer, sorted numerically.
    Int(i64),
    /// A JSON number as the server prints it (`0.5`, `1e3`: a printer column of type
    /// `number`), sorted numerically.
    Number(String),
    /// The unix seconds of a timestamp, rendered as its age ("5m10s"); `None` renders as
    /// kubectl's `<unknown>` (a zero timestamp).
    Age(Option<i64>),
    /// `ready/total` (READY 1/2), sorted by the first number, then the second.
    Ratio(u32, u32),
    /// Pod RESTARTS: the count and the unix seconds of the last restart, rendered as kubectl's
    /// `5 (2m ago)` (just `5` when there is no last-restart time, `0` when there are none).
    Restarts(i64, Option<i64>),
    /// A duration from `start` to `end` (or to now while `end` is `None`), e.g. Job DURATION.
    Elapsed {
        /// Unix seconds of the start.
        start: i64,
        /// Unix seconds of the end, `None` while still running.
        end: Option<i64>,
    },
}

impl Cell {
    /// A text cell.
    pub fn text(s: impl Into<String>) -> Self {
        Cell::Text(s.into())
    }

    /// The cell as kubectl prints it, with ages computed against `now_unix` (unix seconds).
    pub fn display(&self, now_unix: i64) -> Cow<'_, str> {
        match self {
            Cell::Text(s) => Cow::Borrowed(s.as_str()),
            Cell::Int(n) => Cow::Owned(n.to_string()),
            Cell::Number(s) => Cow::Borrowed(s.as_str()),
            Cell::Age(None) => Cow::Borrowed("<unknown>"),
            Cell::Age(Some(t)) => Cow::Owned(format_age(now_unix.saturating_sub(*t))),
            Cell::Ratio(a, b) => Cow::Owned(format!("{a}/{b}")),
            Cell::Restarts(n, Some(t)) if *n != 0 => Cow::Owned(format!(
                "{n} ({} ago)",
                format_age(now_unix.saturating_sub(*t))
            )),
            Cell::Restarts(n, _) => Cow::Owned(n.to_string()),
            Cell::Elapsed { start, end } => {
                Cow::Owned(format_age(end.unwrap_or(now_unix).saturating_sub(*start)))
            }
        }
    }

    /// A total order for sorting a column: numbers numerically, ages youngest first (ascending
    /// age), ratios by the first number then the second, text lexically. Cells of different
    /// variants (only possible with malformed data) order by variant.
    pub fn cmp_for_sort(&self, other: &Cell) -> Ordering {
        match (self, other) {
            (Cell::Text(a), Cell::Text(b)) => a.cmp(b),
            (Cell::Int(a), Cell::Int(b)) => a.cmp(b),
            (Cell::Number(a), Cell::Number(b)) => {
                let n = |s: &str| s.parse::<f64>().unwrap_or(f64::NAN);
                n(a).total_cmp(&n(b))
            }
            // Ascending age = descending timestamp; unknown ages sort last.
            (Cell::Age(a), Cell::Age(b)) => match (a, b) {
                (Some(a), Some(b)) => b.cmp(a),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            (Cell::Ratio(a1, a2), Cell::Ratio(b1, b2)) => a1.cmp(b1).then(a2.cmp(b2)),
            (Cell::Restarts(a, ta), Cell::Restarts(b, tb)) => a.cmp(b).then(ta.cmp(tb)),
            (Cell::Elapsed { start: s1, end: e1 }, Cell::Elapsed { start: s2, end: e2 }) => {
                // Still-running spans are open-ended: longer than any finished one.
                let d1 = e1.map(|e| e.saturating_sub(*s1));
                let d2 = e2.map(|e| e.saturating_sub(*s2));
                match (d1, d2) {
                    (Some(a), Some(b)) => a.cmp(&b),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    // Both running: the earlier start has run longer.
                    (None, None) => s2.cmp(s1),
                }
            }
            _ => self.rank().cmp(&other.rank()),
        }
    }

    pub(super) fn rank(&self) -> u8 {
        match self {
            Cell::Text(_) => 0,
            Cell::Int(_) => 1,
            Cell::Age(_) => 2,
            Cell::Ratio(..) => 3,
            Cell::Restarts(..) => 4,
            Cell::Elapsed { .. } => 5,
            Cell::Number(_) => 6,
        }
    }
}

/// A row's health, for colouring (k9s's row colours).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Health {
    /// Running and ready / fully available.
    Ok,
    /// Starting up: scheduling, pulling, creating, initializing.
    Pending,
    /// Degraded but not failed: not all ready, progressing, a Warning event.
    Warning,
    /// Failed: crash loops, pull errors, non-zero exits, NotReady nodes.
    Error,
    /// Being deleted.
    Terminating,
    /// Finished successfully (completed pods and jobs).
    Completed,
}

/// A table column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The header, upper-case as kubectl prints it (`NAME`, `READY`, `PORT(S)`).
    pub name: String,
    /// A width under which the column's usual content would be cut.
    pub min_width: u16,
    /// Shown only in wide mode (kubectl's `-o wide`, printer-column priority > 0).
    pub wide: bool,
}

impl Column {
    pub(super) fn new(name: &str, min_width: u16) -> Self {
        Column {
            name: name.to_string(),
            min_width,
            wide: false,
        }
    }
}

/// One table row: cells in [`columns`] order (NAMESPACE excluded) and the row's health.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The cells, one per column of [`columns`] for the same kind.
    pub cells: Vec<Cell>,
    /// The row colour.
    pub health: Health,
}

pub(crate) fn name_age_columns() -> Vec<Column> {
    vec![Column::new("NAME", 20), Column::new("AGE", 5)]
}

pub(crate) fn name_age_row(obj: &DynamicObject) -> Row {
    Row {
        cells: vec![name_cell(obj), age_cell(obj)],
        health: if obj.metadata.deletion_timestamp.is_some() {
            Health::Terminating
        } else {
            Health::Ok
        },
    }
}

/// kubectl's `duration.HumanDuration` for a duration in whole seconds: `45s` (under 2 minutes),
/// `5m10s` (under 10 minutes), `42m` (under 3 hours), `3h2m` (under 8 hours), `20h` (under 2
/// days), `2d5h` (under 8 days), `45d` (under 2 years), `2y40d` (under 8 years), else `9y`.
/// A negative duration of more than one second (clock skew) is `<invalid>`, of one second `0s`.
pub fn format_age(seconds: i64) -> String {
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        let s = seconds % 60;
        return if s == 0 {
            format!("{minutes}m")
        } else {
            format!("{minutes}m{s}s")
        };
    }
    if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = seconds / 3600;
    if hours < 8 {
        let m = minutes % 60;
        return if m == 0 {
            format!("{hours}h")
        } else {
            format!("{hours}h{m}m")
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        let h = hours % 24;
        return if h == 0 {
            format!("{}d", hours / 24)
        } else {
            format!("{}d{h}h", hours / 24)
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        return if dy == 0 {
            format!("{}y", hours / 24 / 365)
        } else {
            format!("{}y{dy}d", hours / 24 / 365)
        };
    }
    format!("{}y", hours / 24 / 365)
}

// ---- helpers shared by the per-kind printers -------------------------------------------------

/// `v` at `path` (object keys only).
pub(crate) fn at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a Value> {
    let mut cur = v;
    for key in path {
        cur = cur.as_object()?.get(*key)?;
    }
    Some(cur)
}

/// The string at `path`, or `""`.
pub(crate) fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    at(v, path).and_then(Value::as_str).unwrap_or("")
}

/// The integer at `path` (floats truncated), or `None`.
pub(crate) fn int_opt(v: &Value, path: &[&str]) -> Option<i64> {
    let x = at(v, path)?;
    x.as_i64().or_else(|| x.as_f64().map(|f| f as i64))
}

/// The integer at `path`, or 0.
pub(crate) fn int_at(v: &Value, path: &[&str]) -> i64 {
    int_opt(v, path).unwrap_or(0)
}

/// The bool at `path`, or `false`.
pub(crate) fn bool_at(v: &Value, path: &[&str]) -> bool {
    at(v, path).and_then(Value::as_bool).unwrap_or(false)
}

/// The array at `path`, or an empty slice.
pub(crate) fn arr_at<'a>(v: &'a Value, path: &[&str]) -> &'a [Value] {
    at(v, path)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// The number of entries of the object or array at `path`.
pub(crate) fn len_at(v: &Value, path: &[&str]) -> usize {
    match at(v, path) {
        Some(Value::Object(m)) => m.len(),
        Some(Value::Array(a)) => a.len(),
        _ => 0,
    }
}

/// An RFC 3339 timestamp as unix seconds.
pub(crate) fn parse_time(s: &str) -> Option<i64> {
    s.parse::<k8s_openapi::jiff::Timestamp>()
        .ok()
        .map(|t| t.as_second())
}

/// The timestamp at `path` as unix seconds.
pub(crate) fn time_at(v: &Value, path: &[&str]) -> Option<i64> {
    at(v, path).and_then(Value::as_str).and_then(parse_time)
}

/// The NAME cell.
pub(crate) fn name_cell(obj: &DynamicObject) -> Cell {
    Cell::Text(obj.metadata.name.clone().unwrap_or_default())
}

/// The AGE cell (creationTimestamp).
pub(crate) fn age_cell(obj: &DynamicObject) -> Cell {
    Cell::Age(
        obj.metadata
            .creation_timestamp
            .as_ref()
            .map(|t| t.0.as_second()),
    )
}

/// `s`, or `<none>` when empty (kubectl's habit for optional strings).
pub(crate) fn or_none(s: &str) -> String {
    if s.is_empty() {
        "<none>".to_string()
    } else {
        s.to_string()
    }
}

/// apimachinery's `labels.FormatLabels`: `k=v,k2=v2` sorted by key, `<none>` when empty.
pub(crate) fn format_labels(v: Option<&Value>) -> String {
    let Some(Value::Object(m)) = v else {
        return "<none>".to_string();
    };
    if m.is_empty() {
        return "<none>".to_string();
    }
    let mut pairs: Vec<(&String, String)> = m
        .iter()
        .map(|(k, v)| (k, v.as_str().map(str::to_string).unwrap_or_default()))
        .collect();
    pairs.sort();
    pairs
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}
