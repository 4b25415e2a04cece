//! How recorded changes read: one-line summaries of a version's field changes (`replicas 3→5`,
//! `+2 labels`) and unified diffs of two versions, with paths dotted for people
//! ([`display_path`]).

use super::*;

/// A JSON-pointer segment back to its text.
pub fn unescape(seg: &str) -> String {
    seg.replace("~1", "/").replace("~0", "~")
}

pub(super) fn segments(path: &str) -> Vec<String> {
    path.split('/').skip(1).map(unescape).collect()
}

/// A recorded path (a JSON pointer as history names its leaves: `/metadata/labels/app`) as
/// people read it, kubectl's and k9s's dotted form: `metadata.labels.app`. A segment that
/// would not read back as one dotted name (it holds `.`, `/`, brackets, quotes or spaces, or
/// is empty: label keys such as `app.kubernetes.io/name`) is quoted in brackets, as jq and
/// yq write it: `metadata.labels["app.kubernetes.io/name"]`; a list item blame names by its
/// key fields (`uid=6f1c`) is a selector: `metadata.ownerReferences[uid=6f1c]`. The timeline's
/// summaries, the diffs and blame all name fields this way.
pub fn display_path(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for seg in segments(pointer) {
        // Blame's list item keyed by fields other than a name (`uid=6f1c`,
        // `containerPort=8080,protocol=TCP`): a selector on the list.
        let selector = seg.contains('=')
            && !seg
                .chars()
                .any(|c| matches!(c, '/' | '[' | ']' | '"' | '\\') || c.is_whitespace());
        if selector {
            out.push('[');
            out.push_str(&seg);
            out.push(']');
            continue;
        }
        let plain = !seg.is_empty()
            && !seg
                .chars()
                .any(|c| matches!(c, '.' | '/' | '[' | ']' | '"' | '\\') || c.is_whitespace());
        if plain {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        } else {
            out.push('[');
            out.push_str(&serde_json::Value::String(seg).to_string());
            out.push(']');
        }
    }
    out
}

/// How a changed value prints: `old→new`, with `(none)` for a field that appeared or went.
pub(super) fn arrow(c: &FieldChange) -> String {
    match (&c.old, &c.new) {
        (Some(o), Some(n)) => format!("{o}→{n}"),
        (None, Some(n)) => format!("(none)→{n}"),
        (Some(o), None) => format!("{o}→(none)"),
        (None, None) => String::new(),
    }
}

/// [`arrow`] for a count where absent reads as 0: the status counts the API server leaves out
/// at zero (`readyReplicas`, `numberReady`: a Deployment losing its last ready pod prints
/// `readyReplicas 1→0`), and `restartCount` of a container status that appears or goes. `None`
/// when the count did not change (a new container's `restartCount 0` is no restart).
pub(super) fn count_arrow(c: &FieldChange) -> Option<String> {
    let (old, new) = (
        c.old.as_deref().unwrap_or("0"),
        c.new.as_deref().unwrap_or("0"),
    );
    (old != new).then(|| format!("{old}→{new}"))
}

/// One line for a version's changes: the most telling first (phase, restarts, termination
/// reasons, images, replicas, labels), then the rest by path, `, `-separated.
pub fn summarize(changes: &[FieldChange]) -> String {
    if changes.is_empty() {
        return "no tracked field changed".into();
    }
    let mut parts: Vec<(u8, String)> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let mut env: Vec<String> = Vec::new();
    for c in changes {
        let segs = segments(&c.path);
        let s: Vec<&str> = segs.iter().map(String::as_str).collect();
        match s.as_slice() {
            ["metadata", "labels", k] => labels.push(match (&c.old, &c.new) {
                (None, Some(n)) => format!("+{k}={n}"),
                (Some(_), None) => format!("-{k}"),
                (Some(o), Some(n)) => format!("{k}={o}→{n}"),
                (None, None) => continue,
            }),
            _ if s
                .iter()
                .position(|x| *x == "env")
                .is_some_and(|i| i + 1 < s.len()) =>
            {
                let i = s.iter().position(|x| *x == "env").unwrap_or(0);
                let name = s[i + 1].to_string();
                if !env.contains(&name) {
                    env.push(name);
                }
            }
            [.., "annotations", "kubectl.kubernetes.io/restartedAt"] => match &c.new {
                Some(at) => parts.push((1, format!("rollout restart {at}"))),
                None => continue,
            },
            ["status", "phase"] => parts.push((0, format!("status.phase {}", arrow(c)))),
            [.., "restartCount"] => match count_arrow(c) {
                Some(a) => parts.push((1, format!("restartCount {a}"))),
                None => continue,
            },
            [.., "lastState", "terminated", "reason"] | [.., "state", "terminated", "reason"] => {
                let which = s[s.len() - 3];
                match &c.new {
                    Some(n) => parts.push((1, format!("{which}.terminated.reason {n}"))),
                    None => continue,
                }
            }
            [.., "state", "waiting", "reason"] => match &c.new {
                Some(n) => parts.push((1, format!("waiting {n}"))),
                None => continue,
            },
            [.., "image"] => parts.push((2, format!("image {}", arrow(c)))),
            [.., "terminated", "exitCode"] => match &c.new {
                Some(n) => parts.push((4, format!("exitCode {n}"))),
                None => continue,
            },
            [
                ..,
                "containerStatuses" | "initContainerStatuses",
                _,
                "ready",
            ] => parts.push((3, format!("ready {}", arrow(c)))),
            ["spec", "replicas"] => parts.push((2, format!("replicas {}", arrow(c)))),
            ["status", r] if r.ends_with("eplicas") || *r == "numberReady" => {
                // `status.replicas` (the pods there, a rollout's surge included) is not the
                // `replicas` asked for in the spec.
                let r = if *r == "replicas" {
                    "status.replicas"
                } else {
                    r
                };
                match count_arrow(c) {
                    Some(a) => parts.push((3, format!("{r} {a}"))),
                    None => continue,
                }
            }
            ["status", "conditions", t, "status"] => parts.push((4, format!("{t} {}", arrow(c)))),
            _ => parts.push((5, format!("{} {}", display_path(&c.path), arrow(c)))),
        }
    }
    if !labels.is_empty() {
        parts.push((2, format!("labels {}", labels.join(" "))));
    }
    if !env.is_empty() {
        parts.push((2, format!("env {}", env.join(" "))));
    }
    parts.sort_by_key(|(rank, _)| *rank);
    let mut line = String::new();
    for (_, p) in parts {
        if !line.is_empty() {
            line.push_str(", ");
        }
        line.push_str(&p);
    }
    if line.is_empty() {
        // Only changes that say nothing alone (a new container's restartCount 0, a termination
        // reason cleared): the count, so the line is never blank.
        return format!("{} tracked fields changed", changes.len());
    }
    line
}

/// One line of a unified diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// `@@ … @@` hunk header.
    Hunk(String),
    Same(String),
    Removed(String),
    Added(String),
}

/// A unified diff (3 lines of context) of two states, one `path: value` line per field, the
/// path dotted ([`display_path`]), in the states' (pointer) order.
pub fn unified_diff(
    old: &BTreeMap<Arc<str>, String>,
    new: &BTreeMap<Arc<str>, String>,
) -> Vec<DiffLine> {
    let render = |m: &BTreeMap<Arc<str>, String>| {
        let mut s = String::new();
        for (k, v) in m {
            s.push_str(&display_path(k));
            s.push_str(": ");
            s.push_str(v);
            s.push('\n');
        }
        s
    };
    text_diff(&render(old), &render(new))
}

/// A unified diff (3 lines of context) of two texts, line by line (a live object's YAML and a
/// dry run's result, for the apply confirmation).
pub fn text_diff(a: &str, b: &str) -> Vec<DiffLine> {
    let diff = similar::TextDiff::from_lines(a, b);
    let mut out = Vec::new();
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (o, n) = (first.old_range().start, first.new_range().start);
        let (oe, ne) = (last.old_range().end, last.new_range().end);
        out.push(DiffLine::Hunk(format!(
            "@@ -{},{} +{},{} @@",
            o + 1,
            oe - o,
            n + 1,
            ne - n
        )));
        for op in &group {
            for change in diff.iter_changes(op) {
                let text = change.value().trim_end_matches('\n').to_string();
                out.push(match change.tag() {
                    similar::ChangeTag::Equal => DiffLine::Same(text),
                    similar::ChangeTag::Delete => DiffLine::Removed(text),
                    similar::ChangeTag::Insert => DiffLine::Added(text),
                });
            }
        }
    }
    out
}
