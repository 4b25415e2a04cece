//! k9s's `views.yaml` (k9s `internal/config/views.go`, the README's Custom Views section):
//! the columns of a resource's table, by GVR.
//!
//! ```yaml
//! views:
//!   v1/pods:
//!     sortColumn: AGE:desc
//!     columns:
//!       - NAME
//!       - APP:.metadata.labels.app     # NAME:JSONPATH, a label or any field
//!       - NODE|W                       # |flags: W wide only, H hidden, S shown, R right, N number, T time
//!       - AGE
//! ```
//!
//! A column without a path is one of the table's own (by header); a path is parsed with the
//! printer-column JSONPath subset ([`crate::render::jsonpath`]); a path that does not parse
//! is a problem naming the file and line, and the view is skipped.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::error::{Error, Problem};
use super::yaml::{locate, locate_value, parse as parse_yaml};
use crate::render::jsonpath::JsonPath;

/// One configured column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The header.
    pub name: String,
    /// A JSONPath into the object (`.metadata.labels.app`); `None`: the table's own column.
    pub path: Option<String>,
    pub wide: bool,
    pub hide: bool,
    pub show: bool,
    pub right: bool,
    pub number: bool,
    pub time: bool,
}

/// One resource's view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewSetting {
    pub columns: Vec<ColumnSpec>,
    /// `(column, descending)` from `sortColumn: NAME:asc|desc`.
    pub sort: Option<(String, bool)>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawView {
    #[serde(default)]
    columns: Vec<String>,
    #[serde(default)]
    sort_column: Option<String>,
}

#[derive(Deserialize)]
struct ViewsFile {
    #[serde(default)]
    views: BTreeMap<String, RawView>,
}

/// Parse one column spec: `NAME`, `NAME:JSONPATH`, either with `|FLAGS`.
pub fn parse_column(spec: &str) -> Result<ColumnSpec, String> {
    let spec = spec.trim();
    // Flags follow the last '|' when only flag letters come after it.
    let (body, flags) = match spec.rfind('|') {
        Some(i) if spec[i + 1..].chars().all(|c| "WHSRNTwhsrnt".contains(c)) => {
            (&spec[..i], &spec[i + 1..])
        }
        _ => (spec, ""),
    };
    let (name, path) = match body.split_once(':') {
        Some((n, p)) => (n.trim(), Some(p.trim())),
        None => (body.trim(), None),
    };
    if name.is_empty() {
        return Err(format!("column {spec:?} has no name"));
    }
    if let Some(p) = path {
        if p.is_empty() {
            return Err(format!("column {name}: empty JSONPath"));
        }
        JsonPath::parse(p).map_err(|e| format!("column {name}: {e}"))?;
    }
    let has = |c: char| flags.chars().any(|f| f.eq_ignore_ascii_case(&c));
    Ok(ColumnSpec {
        name: name.to_string(),
        path: path.map(str::to_string),
        wide: has('W'),
        hide: has('H'),
        show: has('S'),
        right: has('R'),
        number: has('N'),
        time: has('T'),
    })
}

/// Parse a `views.yaml`: `(gvr, view)` in file order of keys (sorted).
pub fn parse(text: &str, path: &Path) -> Result<Vec<(String, ViewSetting)>, Error> {
    let file: Option<ViewsFile> = parse_yaml(text, path)?;
    let Some(file) = file else { return Ok(vec![]) };
    let mut out = Vec::new();
    for (gvr, raw) in file.views {
        let (gline, gcol) = locate(text, &gvr, 0);
        let mut columns = Vec::new();
        for c in &raw.columns {
            let col = parse_column(c).map_err(|why| {
                let (line, column) = match locate_value(text, c, gline.saturating_sub(1)) {
                    (0, _) => (gline, gcol),
                    at => at,
                };
                Error::Parse(Problem::new(path, line, column, format!("{gvr}: {why}")))
            })?;
            columns.push(col);
        }
        let sort = match raw.sort_column.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(s) => {
                let (col, dir) = s.split_once(':').unwrap_or((s, "asc"));
                let desc = match dir.trim().to_ascii_lowercase().as_str() {
                    "asc" => false,
                    "desc" => true,
                    _ => {
                        let (line, column) = locate(text, "sortColumn", gline.saturating_sub(1));
                        return Err(Error::Parse(Problem::new(
                            path,
                            line,
                            column,
                            format!("{gvr}: sortColumn {s:?}: expected NAME:asc or NAME:desc"),
                        )));
                    }
                };
                Some((col.trim().to_string(), desc))
            }
        };
        out.push((gvr, ViewSetting { columns, sort }));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_specs_read_name_path_and_flags() {
        let c = parse_column("APP:.metadata.labels.app|WR").unwrap();
        assert_eq!(c.name, "APP");
        assert_eq!(c.path.as_deref(), Some(".metadata.labels.app"));
        assert!(c.wide && c.right && !c.hide);
        let c = parse_column("NODE").unwrap();
        assert_eq!((c.name.as_str(), c.path.is_none()), ("NODE", true));
        let c = parse_column("READY:.status.conditions[?(@.type==\"Ready\")].status").unwrap();
        assert_eq!(c.name, "READY");
        assert!(parse_column("BAD:.a[").is_err());
    }

    #[test]
    fn views_and_sort_columns_are_read() {
        let v = parse(
            "views:\n  v1/pods:\n    sortColumn: AGE:desc\n    columns:\n      - NAME\n      - APP:.metadata.labels.app\n",
            Path::new("v.yaml"),
        )
        .unwrap();
        assert_eq!(v[0].0, "v1/pods");
        assert_eq!(v[0].1.sort, Some(("AGE".to_string(), true)));
        assert_eq!(v[0].1.columns.len(), 2);
    }
}
