//! End-to-end: a k9s user's configuration with the real binary in tmux. `XDG_CONFIG_HOME` points
//! at `tests/fixtures/config` (k9s's files in k9s's formats, kinformer's config.toml): the `:pp`
//! alias opens pods, ctrl-a lists the user's aliases, and the `where` plugin (Shift-W, a
//! foreground `sh -c` that appends `$NAMESPACE/$NAME` to a file) runs on the selected pod with
//! the terminal and gives it back. Skips (with a printed reason) where tmux is missing.

mod tmux_support;

use tmux_support::{Session, tmux_available};

fn fixture() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/config")
}

#[test]
fn a_k9s_users_alias_plugin_and_aliases_view_work_in_the_dashboard() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    let out = scratch.path().join("where.txt");
    let env = format!(
        "XDG_CONFIG_HOME={} XDG_DATA_HOME={} XDG_STATE_HOME={} KINFORMER_PLUGIN_OUT={}",
        fixture().display(),
        scratch.path().join("data").display(),
        scratch.path().join("state").display(),
        out.display()
    );
    let s = Session::start_env(
        "config",
        160,
        &env,
        "--demo --demo-pods 120 --demo-churn 5 -A -r deploy",
    );
    s.wait_for("the deployments table", 60, |t| {
        t.contains("Deployments(all)") && t.contains("UP-TO-DATE")
    });

    // `pp: v1/pods` from aliases.yaml.
    s.keys(&[":"]);
    s.text("pp");
    s.keys(&["Enter"]);
    let pods = s.wait_for("the pods table opened by the :pp alias", 30, |t| {
        t.contains("Pods(all)") && t.contains("Running")
    });
    // views.yaml's columns for v1/pods: NAME APP PHASE READY STATUS AGE (NODE is |W), APP a
    // label, PHASE `.status.phase` — a field the cache keeps for this column only; the usage
    // columns (joined from metrics) follow.
    let header = pods
        .lines()
        .find(|l| l.contains("NAME") && l.contains("PHASE"))
        .unwrap_or_else(|| panic!("no custom header:\n{pods}"));
    let cols: Vec<&str> = header
        .split(|c: char| c.is_whitespace() || c == '│')
        .filter(|w| !w.is_empty())
        .collect();
    assert_eq!(
        cols.iter()
            .take(7)
            .map(|c| c.trim_end_matches(['↑', '↓']))
            .collect::<Vec<_>>(),
        [
            "NAMESPACE",
            "NAME",
            "APP",
            "PHASE",
            "READY",
            "STATUS",
            "AGE"
        ],
        "{header}"
    );
    assert!(
        pods.lines()
            .any(|l| l.contains(" Running ") && l.matches("Running").count() == 2),
        "PHASE and STATUS both read Running on a running pod:\n{pods}"
    );
    assert!(!pods.contains("<error>"), "{pods}");

    // The `where` plugin on the selected pod: k9s's variables expanded, run with the terminal.
    s.keys(&["W"]);
    let done = s.wait_for("the plugin's exit in the footer", 30, |t| {
        t.contains("plugin where on pod ")
    });
    let line = done
        .lines()
        .find(|l| l.contains("plugin where on pod "))
        .unwrap_or_default();
    let target = line
        .split("plugin where on pod ")
        .nth(1)
        .and_then(|r| r.split(':').next())
        .unwrap_or_default()
        .trim()
        .to_string();
    assert!(line.contains("exit 0"), "{line}");
    let written = std::fs::read_to_string(&out).expect("the plugin wrote its file");
    assert_eq!(
        written.trim(),
        target,
        "the selected pod's $NAMESPACE/$NAME"
    );
    assert!(
        done.contains("Pods(all)"),
        "the dashboard is back after the plugin:\n{done}"
    );

    // ctrl-a: the user's aliases next to the built-in names.
    s.keys(&["C-a"]);
    let aliases = s.wait_for("the aliases view", 15, |t| t.contains("Aliases["));
    assert!(aliases.contains("pp, web (default app=web)"), "{aliases}");
    s.keys(&["Escape"]);

    s.quit();
    s.wait_for("the dashboard exits", 15, |t| t.contains("EXIT=0"));
    s.assert_terminal_cooked();
}
