//! `E` / `ctrl-e`: edit an object in `$KUBE_EDITOR` / `$EDITOR`, as `kubectl edit` does.
//!
//! [`edit_loop`] GETs the full object, drops `metadata.managedFields` and `status`, writes it as
//! YAML under kubectl's header comment to a private temporary file and runs the editor on it.
//! An unchanged (or emptied) file sends nothing. A changed one is sent as one
//! [`Operation::Edit`] write through [`crate::ui::operate`] (a `PUT` carrying the resourceVersion
//! the edit started from). A 409 Conflict, a 422/400 validation error or YAML that does not parse
//! reopens the editor with the error as `# ` lines at the top and the user's text kept; saving it
//! unchanged gives up. After a conflict the next save is sent against the version the server has
//! now (the user saw the conflict and edited again).
//!
//! The loop takes the editor as a function so it runs without a terminal in tests; the
//! dashboard suspends itself around it (`runtime::shell_session`) and passes [`run_editor`].

use std::io::Write as _;
use std::path::{Path, PathBuf};

use kube::api::{Api, DynamicObject};
use serde_json::Value;

use crate::cluster::{ResourceInfo, one_line};
use crate::runtime::operate::execute_with_code;
use crate::ui::apply::strip_comments;
use crate::ui::operate::{Operation, Write, WriteOutcome};

/// kubectl edit's header.
const HEADER: &str = "# Please edit the object below. Lines beginning with a '#' will be ignored,\n\
# and an empty file will abort the edit. If an error occurs while saving this file will be\n\
# reopened with the relevant failures.\n#\n";

/// The editor command: `$KUBE_EDITOR`, else `$EDITOR`, else `vi`, split on whitespace as kubectl
/// splits it (`EDITOR="code -w"`).
pub fn editor_command() -> Vec<String> {
    editor_from(
        std::env::var("KUBE_EDITOR").ok(),
        std::env::var("EDITOR").ok(),
    )
}

/// The editor as the dashboard runs it (for `e` and `ctrl-n`): the terminal as a shell would give
/// it (the main screen, cooked, as kubectl edit runs it) while it runs; as soon as it exits the
/// dashboard's screen is taken back and `back` gets `note`, so that the frame loop draws the
/// dashboard with that note while the dry run or the save that follows talks to the server
/// (not the shell's screen meanwhile).
pub fn terminal_editor(
    note: String,
    back: tokio::sync::mpsc::UnboundedSender<String>,
) -> impl FnMut(&Path) -> std::io::Result<()> {
    let command = editor_command();
    move |p| {
        tokio::task::block_in_place(|| {
            editor_on_terminal(
                &mut std::io::stdout(),
                &mut |on| {
                    let _ = if on {
                        crossterm::terminal::enable_raw_mode()
                    } else {
                        crossterm::terminal::disable_raw_mode()
                    };
                },
                || run_editor(&command, p),
                &note,
                &back,
            )
        })
    }
}

/// One editor run on the dashboard's terminal `out`: the main screen with the cursor shown and
/// raw mode off (`raw(false)`) while `run` runs, then raw mode back, the alternate screen
/// entered and cleared, and `note` sent on `back` (the frame loop redraws on it). The
/// editor's own failure is returned after the screen is taken back.
pub(crate) fn editor_on_terminal(
    out: &mut impl std::io::Write,
    raw: &mut impl FnMut(bool),
    run: impl FnOnce() -> std::io::Result<()>,
    note: &str,
    back: &tokio::sync::mpsc::UnboundedSender<String>,
) -> std::io::Result<()> {
    super::terminal::capture_mouse(false);
    crossterm::execute!(
        out,
        crossterm::terminal::LeaveAlternateScreen,
        crossterm::cursor::Show
    )?;
    raw(false);
    let r = run();
    raw(true);
    crossterm::execute!(
        out,
        crossterm::terminal::EnterAlternateScreen,
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )?;
    super::terminal::capture_mouse(true);
    let _ = back.send(note.to_string());
    r
}

/// [`editor_command`] from the two variables' values.
pub fn editor_from(kube_editor: Option<String>, editor: Option<String>) -> Vec<String> {
    [kube_editor, editor]
        .into_iter()
        .flatten()
        .map(|v| v.split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .find(|words| !words.is_empty())
        .unwrap_or_else(|| vec!["vi".to_string()])
}

/// Run `command` with `path` as its last argument and wait for it; an error when it cannot be
/// started or exits unsuccessfully.
pub fn run_editor(command: &[String], path: &Path) -> std::io::Result<()> {
    let Some((program, args)) = command.split_first() else {
        return Err(std::io::Error::other("no editor command"));
    };
    let status = std::process::Command::new(program)
        .args(args)
        .arg(path)
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "{program} exited with {status}"
        )))
    }
}

/// The object as `kubectl edit` shows it: without `metadata.managedFields` and `status`.
pub fn editable(mut obj: Value) -> Value {
    if let Some(m) = obj.as_object_mut() {
        m.remove("status");
        if let Some(meta) = m.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
        }
    }
    obj
}

/// What the editor is given: the header, the errors of the last save as `# ` lines, the text.
fn file_text(header: &str, errors: &[String], body: &str) -> String {
    let mut s = header.to_string();
    for e in errors {
        for line in e.lines() {
            s.push_str("# ");
            s.push_str(line);
            s.push('\n');
        }
    }
    if !errors.is_empty() {
        s.push_str("#\n");
    }
    s.push_str(body);
    s
}

/// What one round in the editor gave (comment lines stripped, as kubectl ignores them).
pub(crate) enum Saved {
    /// Text that differs from what was shown.
    Edited(String),
    /// An empty file: the user cancels.
    Empty,
    /// Saved as shown: cancelled, or given up after an error.
    Unchanged,
}

/// One round of `e` and `ctrl-n`: `header`, `errors` as `# ` lines and `body` written to `file`,
/// the editor run on it, the text read back. The error says what failed (`temporary file: …`,
/// `editor: …`).
pub(crate) fn editor_round(
    file: &TempFile,
    header: &str,
    errors: &[String],
    body: &str,
    editor: &mut impl FnMut(&Path) -> std::io::Result<()>,
) -> Result<Saved, String> {
    let shown = strip_comments(body);
    file.write(&file_text(header, errors, body))
        .map_err(|e| format!("temporary file: {e}"))?;
    editor(&file.0).map_err(|e| format!("editor: {e}"))?;
    let text = std::fs::read_to_string(&file.0).map_err(|e| format!("temporary file: {e}"))?;
    let edited = strip_comments(&text);
    Ok(if edited.trim().is_empty() {
        Saved::Empty
    } else if edited == shown {
        Saved::Unchanged
    } else {
        Saved::Edited(edited)
    })
}

/// A private temporary file for the edit, removed when dropped.
pub(crate) struct TempFile(pub(crate) PathBuf);

impl TempFile {
    pub(crate) fn create(name: &str) -> std::io::Result<Self> {
        use std::os::unix::fs::OpenOptionsExt;
        let safe: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let path = std::env::temp_dir().join(format!(
            "kinformer-edit-{}-{:08x}-{safe}.yaml",
            std::process::id(),
            rand::random::<u32>()
        ));
        // Owner-only: a Secret's data may be in it.
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        Ok(Self(path))
    }

    pub(crate) fn write(&self, text: &str) -> std::io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&self.0)?;
        f.write_all(text.as_bytes())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn outcome(message: String, error: bool) -> WriteOutcome {
    WriteOutcome { message, error }
}

fn resource_version(obj: &Value) -> Option<String> {
    obj.pointer("/metadata/resourceVersion")
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Edit `namespace/name` of `resource` with `editor` (called with the file to edit) until it is
/// saved, given up or refused; the answer for the footer.
pub async fn edit_loop(
    client: kube::Client,
    resource: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
    mut editor: impl FnMut(&Path) -> std::io::Result<()>,
) -> WriteOutcome {
    let mut write = Write {
        resource: resource.clone(),
        namespace: namespace.map(str::to_string),
        name: name.to_string(),
        op: Operation::Edit(Box::default()),
        cluster: None,
    };
    let what = write.what();
    let api: Api<DynamicObject> = match namespace {
        Some(ns) if resource.namespaced => {
            Api::namespaced_with(client.clone(), ns, &resource.api_resource)
        }
        _ => Api::all_with(client.clone(), &resource.api_resource),
    };
    let get = |api: Api<DynamicObject>| async move {
        let obj = api.get(name).await.map_err(|e| one_line(&e.to_string()))?;
        serde_json::to_value(&obj).map_err(|e| e.to_string())
    };
    let original = match get(api.clone()).await {
        Ok(v) => editable(v),
        Err(e) => return outcome(format!("edit {what}: {e}"), true),
    };
    // The version the next save is checked against.
    let mut base_rv = resource_version(&original);
    let mut body = match serde_norway::to_string(&original) {
        Ok(t) => t,
        Err(e) => return outcome(format!("edit {what}: {e}"), true),
    };
    let file = match TempFile::create(name) {
        Ok(f) => f,
        Err(e) => return outcome(format!("edit {what}: temporary file: {e}"), true),
    };
    let mut errors: Vec<String> = Vec::new();
    loop {
        let edited = match editor_round(&file, HEADER, &errors, &body, &mut editor) {
            Ok(Saved::Edited(t)) => t,
            Ok(Saved::Empty) => {
                return outcome(format!("edit {what} cancelled, empty file"), false);
            }
            Ok(Saved::Unchanged) => {
                return match errors.first() {
                    None => outcome("edit cancelled, no changes".to_string(), false),
                    Some(e) => outcome(format!("edit {what} given up: {}", one_line(e)), true),
                };
            }
            Err(e) => return outcome(format!("edit {what}: {e}"), true),
        };
        // The user's text (without the header and error lines) is what the next round shows.
        body = edited.clone();
        let mut obj: Value = match serde_norway::from_str(&edited) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                errors = vec!["The edited file is not a YAML object".to_string()];
                continue;
            }
            Err(e) => {
                errors = vec![format!("The edited file had a syntax error: {e}")];
                continue;
            }
        };
        if let (Some(rv), Some(meta)) = (
            &base_rv,
            obj.get_mut("metadata").and_then(Value::as_object_mut),
        ) {
            meta.insert("resourceVersion".into(), Value::String(rv.clone()));
        }
        write.op = Operation::Edit(Box::new(obj));
        let (answer, code) = execute_with_code(client.clone(), &write).await;
        match code {
            Some(409) => {
                errors = vec![format!(
                    "{}\nThe object changed on the server since it was read; save again to \
                     replace it with your edit, or save unchanged to give up.",
                    answer.message
                )];
                if let Ok(current) = get(api.clone()).await {
                    base_rv = resource_version(&current);
                }
            }
            Some(400 | 422) => errors = vec![answer.message],
            _ => return answer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_editor_variable_is_split_on_whitespace_and_kube_editor_wins() {
        assert_eq!(
            editor_from(Some("code -w".into()), Some("nano".into())),
            ["code", "-w"]
        );
        assert_eq!(editor_from(None, Some("nano".into())), ["nano"]);
        assert_eq!(editor_from(Some("  ".into()), None), ["vi"]);
        assert_eq!(editor_from(None, None), ["vi"]);
    }

    #[test]
    fn the_edited_object_has_no_status_and_no_managed_fields() {
        let obj = json!({"metadata": {"name": "a", "managedFields": [{}], "resourceVersion": "7"},
                         "spec": {"x": 1}, "status": {"phase": "Running"}});
        assert_eq!(
            editable(obj),
            json!({"metadata": {"name": "a", "resourceVersion": "7"}, "spec": {"x": 1}})
        );
    }

    #[test]
    fn errors_are_comment_lines_above_the_kept_text() {
        let t = file_text(HEADER, &["first\nsecond".to_string()], "a: 1\n");
        assert!(t.starts_with(HEADER), "{t}");
        assert!(t.ends_with("# first\n# second\n#\na: 1\n"), "{t}");
        assert_eq!(strip_comments(&t), "a: 1\n");
        let t = file_text("# h\n", &["bad\nworse".into()], "a: 1\n");
        assert_eq!(t, "# h\n# bad\n# worse\n#\na: 1\n");
    }

    #[test]
    fn the_dashboards_screen_is_back_and_its_redraw_asked_before_the_editor_round_returns() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let mut out: Vec<u8> = Vec::new();
        let steps = std::cell::RefCell::new(Vec::<String>::new());
        let r = editor_on_terminal(
            &mut out,
            &mut |on| steps.borrow_mut().push(format!("raw {on}")),
            || {
                steps.borrow_mut().push("editor".into());
                Err(std::io::Error::other("exit 1"))
            },
            "edit pods/web: saving…",
            &tx,
        );
        // The editor's failure still comes back, after the screen is taken back.
        assert_eq!(r.map_err(|e| e.to_string()), Err("exit 1".to_string()));
        assert_eq!(*steps.borrow(), ["raw false", "editor", "raw true"]);
        let text = String::from_utf8(out).unwrap();
        let leave = text
            .find("\x1b[?1049l")
            .expect("main screen for the editor");
        let enter = text.find("\x1b[?1049h").expect("alternate screen after");
        assert!(leave < enter, "{text:?}");
        assert!(text[enter..].contains("\x1b[2J"), "cleared: {text:?}");
        // What follows (the dry run, the save) runs with the redraw asked for.
        assert_eq!(
            rx.try_recv().ok().as_deref(),
            Some("edit pods/web: saving…")
        );
    }

    #[test]
    fn a_failing_editor_is_an_error() {
        let err = run_editor(&["false".to_string()], Path::new("/nonexistent")).unwrap_err();
        assert!(err.to_string().contains("false exited"), "{err}");
        assert!(run_editor(&[], Path::new("/x")).is_err());
    }
}
