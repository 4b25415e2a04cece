//! End-to-end (issue 28): against a demo server that sends at 1 MB/s (a big list takes seconds,
//! as on a real cluster), the real binary inside tmux shows a non-zero count and pod rows while
//! the pods list is still streaming, then syncs. Skips (with a printed reason) where tmux is
//! missing.

mod tmux_support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use tmux_support::{Session, tmux_available};

/// `kinformer demo-server` as a child process, killed on drop.
struct DemoServer(Child);

impl Drop for DemoServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn demo_server(kubeconfig: &std::path::Path, args: &[&str]) -> DemoServer {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .arg("demo-server")
        .arg("--kubeconfig-out")
        .arg(kubeconfig)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("demo-server starts");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let ready = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|l| l.contains("kubeconfig written to"));
    assert!(ready, "demo-server exited before writing its kubeconfig");
    // Keep reading so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines.map_while(Result::ok) {});
    DemoServer(child)
}

/// The count in the pods table's title: `Pods(all)[1,234]`.
fn pods_count(screen: &str) -> Option<u64> {
    let rest = &screen[screen.find("Pods(all)[")? + "Pods(all)[".len()..];
    rest[..rest.find(']')?].replace(',', "").parse().ok()
}

#[test]
fn rows_and_progress_show_while_a_paced_list_streams_before_the_sync_ends() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("demo.kubeconfig");
    let _server = demo_server(
        &kubeconfig,
        &["--pods", "1500", "--churn", "0", "--server-mbps", "1"],
    );
    let s = Session::start_with(
        "listing",
        160,
        &format!("--kubeconfig {} -A", kubeconfig.display()),
    );
    // While the list streams: rows on screen, a non-zero count and the progress, not synced yet.
    let partial = s.wait_for(
        "pod rows and a count while the pods list streams",
        90,
        |t| {
            t.contains("Informer: pods listing")
                && t.contains("syncing")
                && pods_count(t).is_some_and(|n| n > 0)
                && t.contains("Running")
        },
    );
    let n = pods_count(&partial).unwrap_or(0);
    assert!(
        n < 1500,
        "a partial list shows part of the pods: {n}\n{partial}"
    );
    assert!(
        partial.contains(" listing "),
        "the title's badge:\n{partial}"
    );
    assert!(
        partial.contains("MB at"),
        "bytes and rate in the header:\n{partial}"
    );
    // Then the list ends: every pod, synced, the progress gone.
    let synced = s.wait_for("the pods list synced", 180, |t| {
        t.contains("pods watching") && t.contains("synced") && pods_count(t) == Some(1500)
    });
    assert!(!synced.contains("listing"), "{synced}");
    s.quit();
}
