//! The keys a k9s user reaches for in the first minute, where they differ from a plain key →
//! action table (k9s: `internal/view/*.go`, each view's `bindKeys`).
//!
//! - **One key, the action that fits** (`App::resolve_key`): k9s binds `s` to a shell on a
//!   pod, scale on a Deployment and suspend/resume on a CronJob; `r` restarts a Deployment and
//!   drains a node; `t` triggers a CronJob and, on the DeltaFIFO log, cycles its type filter.
//!   The key map lists such a key under several actions ([`KeyMap::actions`](crate::ui::keys::KeyMap::actions)); the first whose
//!   `App::key_applies` holds for the selected object or the screen is taken. When none does,
//!   the footer says what the key does and where, instead of nothing.
//! - **Moving around as k9s does**: `shift-j` jumps to the owner (the controller reference),
//!   `o` to a pod's node, `0`–`9` to the namespace favourites (`0` all namespaces, `1`–`9` the
//!   most recently used, listed in the header), `ctrl-z` keeps the faulty rows only, `ctrl-s`
//!   saves the table as CSV, k9s's `shift-<letter>` sorts a column by name.
//!
//! Where this differs from k9s: `ctrl-s` writes under the platform state directory
//! (`~/.local/state/kinformer/dumps`) rather than k9s's screen-dump directory, and the jump
//! targets open as a new table on the stack (`esc` returns), selecting the owner once its row
//! arrives from the informer.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent};

use crate::cluster::ResourceInfo;
use crate::ui::keys::{KeyAction, KeySpec};
pub use crate::ui::table::is_fault;
pub use crate::ui::view::SelectOnArrival;

/// At most this many namespaces are remembered as favourites (`1`–`9`).
pub const FAVOURITES: usize = 9;

/// What a key means here: the first of its actions that applies, or why none does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyMeaning {
    Action(KeyAction),
    /// Bound, but to nothing that applies to what is selected here (the footer says so).
    NotHere(String),
    /// Not bound at all (a printable key says so; others are ignored).
    Unbound,
}

pub(crate) fn is_pod(r: &ResourceInfo) -> bool {
    r.api_resource.group.is_empty() && r.api_resource.kind == "Pod"
}

/// One CSV record (RFC 4180: fields with a comma, quote or line break are quoted).
pub(crate) fn csv_line<'a>(fields: impl Iterator<Item = impl AsRef<str> + 'a>) -> String {
    let mut out = String::new();
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.push(',');
        }
        let f = f.as_ref();
        if f.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&f.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(f);
        }
    }
    out.push('\n');
    out
}

/// A name safe in a file name (`/` and other separators become `_`).
pub(crate) fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `~/.local/state/kinformer/dumps` (platform state dir; the home directory otherwise).
pub fn default_dump_dir() -> PathBuf {
    crate::logging::state_dir().join("dumps")
}

/// A printable key with no binding: the footer names it (other keys are ignored).
pub(crate) fn unbound_message(key: &KeyEvent) -> Option<String> {
    match key.code {
        KeyCode::Char(_) => Some(format!(
            "{}: no key binding here (? lists the keys)",
            KeySpec::from_event(key)
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::Health;

    #[test]
    fn csv_fields_with_commas_or_quotes_are_quoted() {
        assert_eq!(csv_line(["a", "b c"].iter()), "a,b c\n");
        assert_eq!(
            csv_line(["x,y", "say \"hi\""].iter()),
            "\"x,y\",\"say \"\"hi\"\"\"\n"
        );
    }

    #[test]
    fn file_names_keep_no_separators() {
        assert_eq!(sanitize("prod/eu:1"), "prod_eu_1");
        assert_eq!(sanitize("deployments.apps"), "deployments.apps");
    }

    #[test]
    fn completed_and_healthy_rows_are_not_faults() {
        assert!(!is_fault(Health::Ok));
        assert!(!is_fault(Health::Completed));
        assert!(is_fault(Health::Error));
        assert!(is_fault(Health::Pending));
        assert!(is_fault(Health::Warning));
        assert!(is_fault(Health::Terminating));
    }
}
