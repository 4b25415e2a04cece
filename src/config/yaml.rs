//! Parsing helpers: a YAML/TOML error as a [`Problem`] with its line and column, and the line of
//! a key in a file (for problems found after parsing: an unknown scope, a bad shortcut).

use std::path::Path;

use serde::de::DeserializeOwned;

use super::error::{Error, Problem};

/// Parse YAML into `T`; an error names the file, line and column.
pub(crate) fn parse<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T, Error> {
    serde_norway::from_str(text).map_err(|e| {
        let (line, column) = e.location().map_or((0, 0), |l| (l.line(), l.column()));
        let mut msg = e.to_string();
        // The message repeats the position ("... at line 3 column 5"): keep one.
        if let Some(i) = msg.find(" at line ") {
            msg.truncate(i);
        }
        Error::Parse(Problem::new(path, line, column, msg))
    })
}

/// Parse TOML into `T`; an error names the file, line and column.
pub(crate) fn parse_toml<T: DeserializeOwned>(text: &str, path: &Path) -> Result<T, Error> {
    toml::from_str(text).map_err(|e| {
        let (line, column) = e
            .span()
            .map_or((0, 0), |s| line_col(text, s.start.min(text.len())));
        Error::Parse(Problem::new(path, line, column, e.message().to_string()))
    })
}

/// 1-based line and column of byte offset `at`.
pub(crate) fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before
        .rfind('\n')
        .map_or(before.len(), |i| before.len() - i - 1)
        + 1;
    (line, col)
}

/// Where `key` is written as a mapping key (`key:`, `"key":`, `'key':`), searching from the
/// line after `after_line` (1-based; 0 searches from the start). `(0, 0)` when not found.
pub(crate) fn locate(text: &str, key: &str, after_line: usize) -> (usize, usize) {
    for (i, l) in text.lines().enumerate().skip(after_line) {
        let t = l.trim_start();
        let t = t.strip_prefix("- ").unwrap_or(t).trim_start();
        let indent = l.len() - t.len();
        for form in [
            format!("{key}:"),
            format!("\"{key}\":"),
            format!("'{key}':"),
        ] {
            if t.starts_with(&form) {
                return (i + 1, indent + 1);
            }
        }
    }
    (0, 0)
}

/// Where a value `value` is written (an item of a list, a scope), from line `after_line`.
pub(crate) fn locate_value(text: &str, value: &str, after_line: usize) -> (usize, usize) {
    for (i, l) in text.lines().enumerate().skip(after_line) {
        if let Some(c) = l.find(value) {
            return (i + 1, c + 1);
        }
    }
    (0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based() {
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
        assert_eq!(line_col("ab", 0), (1, 1));
        assert_eq!(locate("a:\n  pp: x\n", "pp", 0), (2, 3));
        assert_eq!(locate("a:\n  - 'pp': x\n", "pp", 0), (2, 5));
    }
}
