//! `kinformer demo-server --no-watch-list` mimics an API server on etcd without
//! RequestWatchProgress: the dashboard's informers (WatchList by default) are refused a streaming
//! list and fall back to list + watch, and the informer panel's LIST column says so. Without the
//! flag the same dashboard streams. The real binary in tmux, driven like a user; skips (with a
//! printed reason) where tmux is missing. It starts its own demo servers, so it asserts nothing
//! about KINFORMER_TEST_KUBECONFIG's cluster.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod tmux_support;

use tmux_support::{Session, tmux_available};

/// A `kinformer demo-server` child process, killed on drop.
struct DemoServerProcess {
    child: Child,
    kubeconfig: PathBuf,
}

impl DemoServerProcess {
    fn start(dir: &Path, extra: &[&str]) -> DemoServerProcess {
        let kubeconfig = dir.join("demo.kubeconfig");
        let mut child = Command::new(env!("CARGO_BIN_EXE_kinformer"))
            .args(["demo-server", "--pods", "60", "--churn", "0", "--port", "0"])
            .args(extra)
            .arg("--kubeconfig-out")
            .arg(&kubeconfig)
            .arg("--log-file")
            .arg(dir.join("demo-server.log"))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn demo-server");
        let stdout = child.stdout.take().expect("demo-server stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) if line.contains("listening on") => break,
                Ok(_) => {}
                Err(e) => panic!("demo-server did not start listening: {e}"),
            }
        }
        DemoServerProcess { child, kubeconfig }
    }
}

impl Drop for DemoServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The informer panel's LIST cell for all-namespace pods, once it is synced and watching
/// (cells: RESOURCE NAMESPACE STATE LIST SYNCED ...), and the whole row. A relist under load
/// (synced, its STATE `listing 99%`, two words) or a backoff is waited out: the LIST cell is
/// read from a row whose STATE is the one word `watching`.
fn synced_pods_list_mode(dash: &Session) -> (String, String) {
    dash.wait_for("the pods table", 60, |t| {
        t.contains("Pods(all)") && t.contains("Running")
    });
    dash.keys(&[":"]);
    dash.text("informers");
    dash.keys(&["Enter"]);
    let is_pods_row = |l: &str| {
        let cells: Vec<&str> = l
            .trim_matches(|c: char| c == '│' || c.is_whitespace())
            .split_whitespace()
            .collect();
        cells.first() == Some(&"pods")
            && cells.get(2) == Some(&"watching")
            && cells.contains(&"true")
    };
    let screen = dash.wait_for("a synced pods informer in the panel", 60, |t| {
        t.lines().any(is_pods_row)
    });
    let row = screen
        .lines()
        .find(|l| is_pods_row(l))
        .unwrap_or_default()
        .to_string();
    let list = row
        .trim_matches(|c: char| c == '│' || c.is_whitespace())
        .split_whitespace()
        .nth(3)
        .unwrap_or_default()
        .to_string();
    (list, row)
}

/// The dashboard against `kubeconfig`, all namespaces, in tmux.
fn dashboard(tag: &str, kubeconfig: &Path) -> Session {
    Session::start_with(
        tag,
        200,
        &format!("--kubeconfig {} -A", kubeconfig.display()),
    )
}

#[test]
fn dashboard_falls_back_to_list_and_watch_against_a_server_without_watch_list() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");

    let old_etcd = DemoServerProcess::start(dir.path(), &["--no-watch-list"]);
    let dash = dashboard("old", &old_etcd.kubeconfig);
    let (list, row) = synced_pods_list_mode(&dash);
    assert_eq!(list, "fallback", "{row}");
    drop(dash);
    drop(old_etcd);

    let current = DemoServerProcess::start(dir.path(), &[]);
    let dash = dashboard("new", &current.kubeconfig);
    let (list, row) = synced_pods_list_mode(&dash);
    assert_eq!(list, "stream", "{row}");
}
