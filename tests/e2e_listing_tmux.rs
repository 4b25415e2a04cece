//! End-to-end (issue 28): against a demo server that sends at 1 MB/s (a big list takes seconds,
//! as on a real cluster), the real binary inside tmux shows a non-zero count and pod rows while
//! the pods list is still streaming, then syncs. Skips (with a printed reason) where tmux is
//! missing.

mod tmux_support;

use tmux_support::{Session, demo_server, tmux_available};

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
