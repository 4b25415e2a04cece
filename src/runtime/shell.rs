//! An interactive shell in a container (`s` on a pod), as `kubectl exec -it POD -- /bin/sh -c
//! "command -v bash >/dev/null 2>&1 && exec bash || exec sh"` does: kube's websocket exec with a
//! TTY (v5.channel.k8s.io, v4 fallback), bash when the image has it, `sh` otherwise.
//!
//! [`session`] carries one exec over plain channels (keys in, bytes out, window sizes) and ends
//! with the shell's exit; it is what the tests drive against the demo's simulated shell.
//! [`run_in_terminal`] is the dashboard's side: the runtime has stopped reading terminal events
//! and left the alternate screen; the terminal stays in raw mode, keys are read with crossterm on
//! a thread that stops with the session and turned back into the bytes a terminal sends
//! ([`key_bytes`]), window resizes are forwarded, and the output goes to stdout. The runtime
//! then restores the dashboard and redraws it.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use futures::SinkExt as _;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Status;
use kube::api::{Api, AttachParams, TerminalSize};
use tokio::io::{AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::sync::mpsc;

use crate::cluster::one_line;

/// The command a shell is opened with: bash when the image has it, `sh` otherwise.
pub const SHELL_COMMAND: [&str; 3] = [
    "/bin/sh",
    "-c",
    "command -v bash >/dev/null 2>&1 && exec bash || exec sh",
];

/// What goes to the remote terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Bytes typed (as a terminal sends them).
    Bytes(Vec<u8>),
    /// The window is now this many columns and rows.
    Resize(u16, u16),
}

/// How a shell session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellExit {
    /// The shell exited with this code.
    Exited(i32),
    /// The server refused the exec or the connection dropped.
    Failed(String),
}

/// The exit code a `v1 Status` from the error channel carries (`Success` is 0; a failure names
/// it in a cause of reason `ExitCode`).
pub fn exit_code(status: &Status) -> Option<i32> {
    if status.status.as_deref() == Some("Success") {
        return Some(0);
    }
    status
        .details
        .as_ref()?
        .causes
        .as_ref()?
        .iter()
        .find(|c| c.reason.as_deref() == Some("ExitCode"))?
        .message
        .as_deref()?
        .parse()
        .ok()
}

/// The container kubectl execs into when none is named: the
/// `kubectl.kubernetes.io/default-container` annotation, else the first container.
pub fn default_container(pod: &Pod) -> Option<String> {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("kubectl.kubernetes.io/default-container"))
        .cloned()
        .or_else(|| {
            pod.spec
                .as_ref()
                .and_then(|s| s.containers.first())
                .map(|c| c.name.clone())
        })
}

/// The pod's container names and the index of [`default_container`] among them.
pub fn containers(pod: &Pod) -> (Vec<String>, usize) {
    let names: Vec<String> = pod
        .spec
        .iter()
        .flat_map(|s| &s.containers)
        .map(|c| c.name.clone())
        .collect();
    let default = default_container(pod)
        .and_then(|d| names.iter().position(|n| *n == d))
        .unwrap_or(0);
    (names, default)
}

/// Run a shell in `namespace/pod` (its `container`, or the pod's default) until it exits:
/// `input` goes to its stdin and window size, its output to `out`.
pub async fn session<O: AsyncWrite + Unpin>(
    pods: &Api<Pod>,
    pod: &str,
    container: Option<&str>,
    size: (u16, u16),
    input: mpsc::Receiver<Input>,
    out: &mut O,
) -> ShellExit {
    session_as(Session::Shell, pods, pod, container, size, input, out).await
}

/// What a terminal session runs in the container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Session<'a> {
    /// A new shell (`kubectl exec -it … -- sh -c 'bash || sh'`).
    Shell,
    /// The container's main process (`kubectl attach -it`).
    Attach,
    /// This command (the node shell's `nsenter`), as `kubectl exec -it … -- command`.
    Command(&'a [&'a str]),
}

/// [`session`], or attached to the container's main process (`Session::Attach`).
pub async fn session_as<O: AsyncWrite + Unpin>(
    what: Session<'_>,
    pods: &Api<Pod>,
    pod: &str,
    container: Option<&str>,
    size: (u16, u16),
    mut input: mpsc::Receiver<Input>,
    out: &mut O,
) -> ShellExit {
    let mut ap = AttachParams::interactive_tty();
    if let Some(c) = container {
        ap = ap.container(c);
    }
    let started = match what {
        Session::Shell => pods.exec(pod, SHELL_COMMAND, &ap).await,
        Session::Command(command) => pods.exec(pod, command.to_vec(), &ap).await,
        Session::Attach => pods.attach(pod, &ap).await,
    };
    let mut p = match started {
        Ok(p) => p,
        Err(e) => return ShellExit::Failed(one_line(&e.to_string())),
    };
    let (Some(stdin), Some(mut stdout), Some(status)) = (p.stdin(), p.stdout(), p.take_status())
    else {
        return ShellExit::Failed("the exec has no stdin/stdout".into());
    };
    let mut resize = p.terminal_size();
    if let Some(r) = resize.as_mut() {
        let _ = r
            .send(TerminalSize {
                width: size.0,
                height: size.1,
            })
            .await;
    }
    let mut buf = vec![0u8; 8192];
    let mut stdin = Some(stdin);
    let mut input_open = true;
    loop {
        tokio::select! {
            n = stdout.read(&mut buf) => match n {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if out.write_all(&buf[..n]).await.is_err() {
                        break;
                    }
                    let _ = out.flush().await;
                }
            },
            i = input.recv(), if input_open => match i {
                Some(Input::Bytes(b)) => {
                    if let Some(stdin) = stdin.as_mut()
                        && stdin.write_all(&b).await.is_err()
                    {
                        break;
                    }
                }
                Some(Input::Resize(width, height)) => {
                    if let Some(r) = resize.as_mut() {
                        let _ = r.send(TerminalSize { width, height }).await;
                    }
                }
                // The terminal's input has ended (its reader stopped): close the shell's stdin,
                // as kubectl does at the end of its input, so that the shell ends rather than
                // waiting for keys that cannot come.
                // (Dropping kube's writer half alone would not end the stream: shut it down.)
                None => {
                    input_open = false;
                    if let Some(mut stdin) = stdin.take() {
                        let _ = stdin.shutdown().await;
                    }
                }
            },
        }
    }
    drop(stdin);
    let exit = match tokio::time::timeout(Duration::from_secs(5), status).await {
        Ok(Some(s)) => match exit_code(&s) {
            Some(code) => ShellExit::Exited(code),
            None => ShellExit::Failed(one_line(s.message.as_deref().unwrap_or("exec failed"))),
        },
        Ok(None) => ShellExit::Failed("the connection closed without an exit status".into()),
        Err(_) => ShellExit::Failed("no exit status from the server".into()),
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), p.join()).await;
    exit
}

/// The bytes a terminal in raw mode sends for a key (xterm's sequences); empty for keys it
/// sends nothing for.
pub fn key_bytes(key: &KeyEvent) -> Vec<u8> {
    if key.kind == KeyEventKind::Release {
        return Vec::new();
    }
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    let mut out: Vec<u8> = match key.code {
        KeyCode::Char(c) if ctrl && c.is_ascii_alphabetic() => {
            vec![(c.to_ascii_lowercase() as u8) & 0x1f]
        }
        KeyCode::Char(' ') if ctrl => vec![0],
        KeyCode::Char(c) => c.to_string().into_bytes(),
        KeyCode::Enter => vec![b'\r'],
        KeyCode::Backspace => vec![0x7f],
        KeyCode::Tab => vec![b'\t'],
        KeyCode::BackTab => b"\x1b[Z".to_vec(),
        KeyCode::Esc => vec![0x1b],
        KeyCode::Up => b"\x1b[A".to_vec(),
        KeyCode::Down => b"\x1b[B".to_vec(),
        KeyCode::Right => b"\x1b[C".to_vec(),
        KeyCode::Left => b"\x1b[D".to_vec(),
        KeyCode::Home => b"\x1b[H".to_vec(),
        KeyCode::End => b"\x1b[F".to_vec(),
        KeyCode::PageUp => b"\x1b[5~".to_vec(),
        KeyCode::PageDown => b"\x1b[6~".to_vec(),
        KeyCode::Delete => b"\x1b[3~".to_vec(),
        KeyCode::Insert => b"\x1b[2~".to_vec(),
        _ => Vec::new(),
    };
    if alt && !out.is_empty() {
        out.insert(0, 0x1b);
    }
    out
}

/// Read terminal events on a thread until `stop`: keys as bytes, resizes as sizes.
fn read_terminal(tx: mpsc::Sender<Input>, stop: Arc<AtomicBool>) {
    while !stop.load(Ordering::Relaxed) {
        match crossterm::event::poll(Duration::from_millis(50)) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(_) => break,
        }
        let input = match crossterm::event::read() {
            Ok(Event::Key(k)) => Input::Bytes(key_bytes(&k)),
            Ok(Event::Paste(s)) => Input::Bytes(s.into_bytes()),
            Ok(Event::Resize(w, h)) => Input::Resize(w, h),
            Ok(_) => continue,
            Err(_) => break,
        };
        if matches!(&input, Input::Bytes(b) if b.is_empty()) {
            continue;
        }
        if tx.blocking_send(input).is_err() {
            break;
        }
    }
}

/// The dashboard's shell: the caller has stopped reading terminal events and left the alternate
/// screen (raw mode stays on). Returns the footer line to show when the dashboard is back.
pub async fn run_in_terminal(
    client: kube::Client,
    namespace: &str,
    pod: &str,
    container: Option<&str>,
) -> (String, bool) {
    run_session_in_terminal(Session::Shell, client, namespace, pod, container).await
}

/// [`run_in_terminal`] running `command` (the node shell's `nsenter`).
pub async fn run_command_in_terminal(
    client: kube::Client,
    namespace: &str,
    pod: &str,
    container: Option<&str>,
    command: &[&str],
) -> (String, bool) {
    run_session_in_terminal(Session::Command(command), client, namespace, pod, container).await
}

/// [`run_in_terminal`] for any kind of [`Session`].
pub async fn run_session_in_terminal(
    kind: Session<'_>,
    client: kube::Client,
    namespace: &str,
    pod: &str,
    container: Option<&str>,
) -> (String, bool) {
    let pods: Api<Pod> = Api::namespaced(client, namespace);
    // As kubectl: the pod's default-container annotation, else its first container.
    let chosen = match container {
        Some(c) => Some(c.to_string()),
        None => pods
            .get(pod)
            .await
            .ok()
            .as_ref()
            .and_then(default_container),
    };
    let container = chosen.as_deref();
    let what = match container {
        Some(c) => format!("{namespace}/{pod} ({c})"),
        None => format!("{namespace}/{pod}"),
    };
    {
        let mut o = std::io::stdout();
        let _ = write!(
            o,
            "\r\nkinformer: {} {what}; {} to return to the dashboard\r\n",
            label(kind),
            match kind {
                Session::Shell | Session::Command(_) => "exit the shell",
                Session::Attach => "end the process (or its input: ctrl-d)",
            }
        );
        let _ = o.flush();
    }
    let size = crossterm::terminal::size().unwrap_or((80, 24));
    let (tx, rx) = mpsc::channel(256);
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let stop = stop.clone();
        std::thread::spawn(move || read_terminal(tx, stop))
    };
    let mut out = tokio::io::stdout();
    let exit = session_as(kind, &pods, pod, container, size, rx, &mut out).await;
    stop.store(true, Ordering::Relaxed);
    let _ = tokio::task::spawn_blocking(move || reader.join()).await;
    let result = match exit {
        ShellExit::Exited(0) => (format!("{} {what} exited", label(kind)), false),
        ShellExit::Exited(n) => (
            format!("{} {what} exited with code {n}", label(kind)),
            false,
        ),
        ShellExit::Failed(m) => (format!("{} {what}: {m}", label(kind)), true),
    };
    let op = match kind {
        Session::Shell | Session::Command(_) => "exec",
        Session::Attach => "attach",
    };
    tracing::info!(target: "kinformer::write", op, namespace, pod, container = container.unwrap_or(""), result = %result.0, "write");
    result
}

/// The footer's word for a session: `shell in`, `attach to`.
fn label(kind: Session<'_>) -> &'static str {
    match kind {
        Session::Shell | Session::Command(_) => "shell in",
        Session::Attach => "attach to",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{StatusCause, StatusDetails};

    fn k(code: KeyCode, m: KeyModifiers) -> Vec<u8> {
        key_bytes(&KeyEvent::new(code, m))
    }

    #[test]
    fn keys_become_the_bytes_a_terminal_sends() {
        assert_eq!(k(KeyCode::Char('a'), KeyModifiers::NONE), b"a");
        assert_eq!(k(KeyCode::Char('A'), KeyModifiers::SHIFT), b"A");
        assert_eq!(k(KeyCode::Char('c'), KeyModifiers::CONTROL), [3]);
        assert_eq!(k(KeyCode::Char('d'), KeyModifiers::CONTROL), [4]);
        assert_eq!(k(KeyCode::Enter, KeyModifiers::NONE), b"\r");
        assert_eq!(k(KeyCode::Backspace, KeyModifiers::NONE), [0x7f]);
        assert_eq!(k(KeyCode::Up, KeyModifiers::NONE), b"\x1b[A");
        assert_eq!(k(KeyCode::Char('b'), KeyModifiers::ALT), b"\x1bb");
        assert_eq!(k(KeyCode::Char('é'), KeyModifiers::NONE), "é".as_bytes());
        assert!(k(KeyCode::F(5), KeyModifiers::NONE).is_empty());
    }

    #[test]
    fn the_default_container_is_the_annotated_one_else_the_first() {
        let pod = |annotation: Option<&str>| -> Pod {
            let mut v = serde_json::json!({"metadata": {"name": "p"},
                "spec": {"containers": [{"name": "app"}, {"name": "proxy"}]}});
            if let Some(a) = annotation {
                v["metadata"]["annotations"] =
                    serde_json::json!({"kubectl.kubernetes.io/default-container": a});
            }
            serde_json::from_value(v).unwrap()
        };
        assert_eq!(
            containers(&pod(None)),
            (vec!["app".into(), "proxy".into()], 0)
        );
        assert_eq!(containers(&pod(Some("proxy"))).1, 1);
        assert_eq!(
            containers(&pod(Some("gone"))).1,
            0,
            "an unknown name falls back"
        );
        assert_eq!(default_container(&pod(None)).as_deref(), Some("app"));
    }

    #[test]
    fn the_exit_code_comes_from_the_status_cause() {
        let ok = Status {
            status: Some("Success".into()),
            ..Status::default()
        };
        assert_eq!(exit_code(&ok), Some(0));
        let failed = Status {
            status: Some("Failure".into()),
            reason: Some("NonZeroExitCode".into()),
            details: Some(StatusDetails {
                causes: Some(vec![StatusCause {
                    reason: Some("ExitCode".into()),
                    message: Some("4".into()),
                    ..StatusCause::default()
                }]),
                ..StatusDetails::default()
            }),
            ..Status::default()
        };
        assert_eq!(exit_code(&failed), Some(4));
        let refused = Status {
            status: Some("Failure".into()),
            ..Status::default()
        };
        assert_eq!(exit_code(&refused), None);
    }
}
