//! k9s's `hotkeys.yaml` (k9s `internal/config/hotkey.go`): a shortcut runs a `:` command.
//!
//! ```yaml
//! hotKeys:
//!   shift-0:
//!     shortCut: Shift-0
//!     description: Viewing pods
//!     command: pods
//!     keepHistory: true
//! ```
//!
//! `keepHistory` (k9s: whether the view goes on the history stack) is kept: with it the
//! command's table opens on top of the current one (`esc` returns), without it it replaces
//! the current view as `:` does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::{Error, Problem};
use super::yaml::{locate, parse as parse_yaml};

/// One hotkey and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HotKey {
    pub name: String,
    /// As written (`Shift-0`, `Ctrl-U`); the key map parses it.
    pub shortcut: String,
    pub description: String,
    /// A `:` command line (`pods`, `dp kube-system`).
    pub command: String,
    pub keep_history: bool,
    /// k9s's `override`: the hotkey may take a key already bound (otherwise such a hotkey is
    /// refused, as k9s refuses it).
    pub allow_override: bool,
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HotKeyFile {
    #[serde(default)]
    hot_keys: BTreeMap<String, RawHotKey>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawHotKey {
    short_cut: String,
    #[serde(default)]
    description: String,
    command: String,
    #[serde(default)]
    keep_history: bool,
    /// Whether the hotkey may replace a key already bound.
    #[serde(default, rename = "override")]
    allow_override: bool,
}

/// Parse a `hotkeys.yaml`.
pub fn parse(text: &str, path: &Path) -> Result<Vec<HotKey>, Error> {
    let file: Option<HotKeyFile> = parse_yaml(text, path)?;
    let Some(file) = file else { return Ok(vec![]) };
    let mut out = Vec::new();
    for (name, raw) in file.hot_keys {
        let (line, column) = locate(text, &name, 0);
        let command = raw
            .command
            .trim()
            .trim_start_matches(':')
            .trim()
            .to_string();
        if command.is_empty() {
            return Err(Error::Parse(Problem::new(
                path,
                line,
                column,
                format!("hotkey {name:?} has no command"),
            )));
        }
        out.push(HotKey {
            name,
            shortcut: raw.short_cut,
            description: raw.description,
            command,
            keep_history: raw.keep_history,
            allow_override: raw.allow_override,
            file: path.to_path_buf(),
            line,
            column,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hotkeys_are_read_with_their_command_and_history_flag() {
        let text = "hotKeys:\n  shift-0:\n    shortCut: Shift-0\n    description: Viewing pods\n    command: pods\n    keepHistory: true\n  ctrl-d:\n    shortCut: Ctrl-U\n    command: ':dp kube-system'\n";
        let hk = parse(text, Path::new("h.yaml")).unwrap();
        assert_eq!(hk.len(), 2);
        let pods = hk.iter().find(|h| h.name == "shift-0").unwrap();
        assert_eq!(
            (
                pods.shortcut.as_str(),
                pods.command.as_str(),
                pods.keep_history
            ),
            ("Shift-0", "pods", true)
        );
        assert_eq!(pods.line, 2);
        let dp = hk.iter().find(|h| h.name == "ctrl-d").unwrap();
        assert_eq!(dp.command, "dp kube-system");
    }
}
