//! The settings of k9s's `config.yaml` files, one by one, for `kinformer config`: every leaf
//! key a file sets (`k9s.readOnly`, `k9s.logger.tail`), where it is written, and whether
//! kinformer uses it. A setting kinformer does not use is listed as "not supported", so the
//! report never hides one behind "No problems".
//!
//! The files are parsed by serde first ([`super::own`]); this scanner only finds the keys and
//! their lines in a text already known to be valid YAML. It reads block mappings (what k9s
//! writes); a flow mapping (`ui: {skin: x}`) is one setting with its text as the value.

use std::path::{Path, PathBuf};

/// One setting of a k9s `config.yaml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct K9sSetting {
    pub file: PathBuf,
    /// 1-based.
    pub line: usize,
    /// Dotted path (`k9s.ui.skin`).
    pub key: String,
    /// As written (`(list)` for a block list).
    pub value: String,
    /// Whether kinformer uses it.
    pub supported: bool,
}

/// What kinformer reads from k9s's `config.yaml`.
pub const MAIN_SUPPORTED: [&str; 16] = [
    "k9s.refreshRate",
    "k9s.readOnly",
    "k9s.noExitOnCtrlC",
    "k9s.ui.skin",
    "k9s.ui.enableMouse",
    "k9s.ui.headless",
    "k9s.ui.crumbsless",
    "k9s.logger.tail",
    "k9s.logger.buffer",
    "k9s.logger.sinceSeconds",
    "k9s.logger.textWrap",
    "k9s.logger.showTime",
    "k9s.shellPod.image",
    "k9s.shellPod.namespace",
    "k9s.shellPod.limits.cpu",
    "k9s.shellPod.limits.memory",
];
/// What kinformer reads from a context's `config.yaml`.
pub const CONTEXT_SUPPORTED: [&str; 7] = [
    "k9s.readOnly",
    "k9s.featureGates.nodeShell",
    "k9s.skin",
    "k9s.namespace.active",
    "k9s.namespace.favorites",
    "k9s.namespace.lockFavorites",
    "k9s.view.active",
];

/// A mapping key on this line (not a list item): its indent, key and the rest after `:`.
fn key_line(line: &str) -> Option<(usize, String, String)> {
    let t = line.trim_start();
    if t.is_empty() || t.starts_with('#') || t.starts_with('-') || t.starts_with("...") {
        return None;
    }
    let indent = line.len() - t.len();
    let (key, rest) = if let Some(q) = t.strip_prefix('"').or_else(|| t.strip_prefix('\'')) {
        let end = q.find(['"', '\''])?;
        (&q[..end], q[end + 1..].strip_prefix(':')?)
    } else {
        let i = t
            .char_indices()
            .find(|&(i, c)| c == ':' && t[i + 1..].chars().next().is_none_or(char::is_whitespace))
            .map(|(i, _)| i)?;
        (&t[..i], &t[i + 1..])
    };
    let rest = match rest.find(" #") {
        Some(i) => &rest[..i],
        None => rest,
    };
    Some((indent, key.trim().to_string(), rest.trim().to_string()))
}

/// The next line that is not blank nor a comment: its indent and trimmed text.
fn next_significant<'a>(lines: &[&'a str], from: usize) -> Option<(usize, &'a str)> {
    lines[from..].iter().find_map(|l| {
        let t = l.trim_start();
        (!t.is_empty() && !t.starts_with('#')).then(|| (l.len() - t.len(), t))
    })
}

/// Every leaf setting of `text` (a valid YAML file), marked supported when its dotted key is
/// in `supported`.
pub fn scan(text: &str, path: &Path, supported: &[&str]) -> Vec<K9sSetting> {
    let lines: Vec<&str> = text.lines().collect();
    let mut stack: Vec<(usize, String)> = Vec::new();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some((indent, key, rest)) = key_line(line) else {
            continue;
        };
        while stack.last().is_some_and(|(ind, _)| *ind >= indent) {
            stack.pop();
        }
        let value = if rest.is_empty() {
            match next_significant(&lines, i + 1) {
                // A nested mapping: its keys are the settings.
                Some((ind, t)) if ind > indent && !t.starts_with('-') => {
                    stack.push((indent, key));
                    continue;
                }
                Some((ind, t)) if ind >= indent && t.starts_with('-') => "(list)".to_string(),
                _ => String::new(),
            }
        } else {
            rest
        };
        let dotted = stack
            .iter()
            .map(|(_, k)| k.as_str())
            .chain(std::iter::once(key.as_str()))
            .collect::<Vec<_>>()
            .join(".");
        out.push(K9sSetting {
            file: path.to_path_buf(),
            line: i + 1,
            supported: supported.contains(&dotted.as_str()),
            key: dotted,
            value,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_leaf_is_listed_with_its_line_and_whether_it_is_used() {
        let text = "k9s:\n  refreshRate: 2\n  readOnly: true # safe\n  ui:\n    skin: night\n    enableMouse: false\n  logger:\n    tail: 200\n  shellPod:\n    labels:\n      - a\n";
        let s = scan(text, Path::new("c.yaml"), &MAIN_SUPPORTED);
        let got: Vec<(usize, &str, &str, bool)> = s
            .iter()
            .map(|s| (s.line, s.key.as_str(), s.value.as_str(), s.supported))
            .collect();
        assert_eq!(
            got,
            vec![
                (2, "k9s.refreshRate", "2", true),
                (3, "k9s.readOnly", "true", true),
                (5, "k9s.ui.skin", "night", true),
                (6, "k9s.ui.enableMouse", "false", true),
                (8, "k9s.logger.tail", "200", true),
                (10, "k9s.shellPod.labels", "(list)", false),
            ]
        );
    }
}
