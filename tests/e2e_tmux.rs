//! End-to-end: the real binary with `--demo` inside tmux, driven with keys like a user, read with
//! `capture-pane`. Skips (with a printed reason) where tmux is missing.
//!
//! Also pins that SIGTERM and a panic-free `q` leave the terminal in cooked mode: the binary runs
//! under a shell that prints `stty -a` after it exits.

mod tmux_support;

use std::process::Command;

use tmux_support::{Session, demo_server, tail, tmux_available};

#[test]
fn dashboard_navigates_deployments_filters_labels_and_quits() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("nav", "-A");
    // The first screen: pods, the informer state and the live event log at once.
    s.wait_for(
        "the pods table with running pods and the event log",
        60,
        |t| {
            t.contains("Pods(all)")
                && t.contains("Running")
                && t.contains("synced")
                && t.contains("DeltaFIFO events")
        },
    );

    s.keys(&[":"]);
    s.text("deploy");
    s.keys(&["Enter"]);
    let deploys = s.wait_for("the deployments table", 30, |t| {
        t.contains("Deployments(all)") && t.contains("UP-TO-DATE") && t.contains("AVAILABLE")
    });
    assert!(deploys.contains("READY"));

    // Drill down from the selected deployment to its pods (owner index).
    s.keys(&["Enter"]);
    s.wait_for(
        "the deployment's pods, answered by the owner index",
        30,
        |t| {
            t.contains("Pods(")
                && t.contains("<deployments/")
                && t.contains("RESTARTS")
                && t.contains("owner index")
        },
    );
    s.keys(&["Escape"]);
    s.wait_for("back on deployments", 15, |t| {
        t.contains("Deployments(all)")
    });

    // Label filter, answered from the label index.
    s.keys(&[":"]);
    s.text("po");
    s.keys(&["Enter"]);
    s.wait_for("pods again", 15, |t| t.contains("Pods(all)"));
    s.keys(&["C-l"]);
    s.text("app.kubernetes.io/part-of=identity");
    s.keys(&["Enter"]);
    let filtered = s.wait_for("the label filter applied", 15, |t| {
        t.contains("app.kubernetes.io/part-of=identity")
    });
    assert!(
        filtered.contains("identity"),
        "filtered pods should be in the identity namespace:\n{filtered}"
    );

    // An invalid selector is an inline error, not a crash.
    s.keys(&["Escape"]);
    s.keys(&["C-l"]);
    s.text("app in (");
    s.keys(&["Enter"]);
    s.wait_for("an inline selector error", 15, |t| {
        t.to_lowercase().contains("invalid") || t.to_lowercase().contains("error")
    });
    s.keys(&["Escape", "Escape"]);

    // Quit with `:q` (q alone is Back, as in k9s): the shell prints the exit code, and the terminal is back in cooked mode.
    s.quit();
    s.wait_for("the dashboard to exit", 20, |t| t.contains("EXIT="));
    let screen = s.wait_for("exit code", 5, |t| t.contains("EXIT=0"));
    assert!(!screen.contains("panicked"), "{screen}");
    s.assert_terminal_cooked();
}

#[test]
fn sigterm_restores_the_terminal() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("term", "");
    s.wait_for("the dashboard", 60, |t| {
        t.contains("Pods(") && t.contains("synced")
    });
    let pid = s.pid().expect("the dashboard's pid");
    let status = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success());
    s.wait_for("the dashboard to exit on SIGTERM", 20, |t| {
        t.contains("EXIT=")
    });
    s.assert_terminal_cooked();
}

/// Issue 11: as the demo's namespace-scoped user (`jane`: pods, events, configmaps in `shop`),
/// `-A` falls back to her namespace, and `:deploy` says plainly that it is forbidden for her
/// there (not "backing off"); `ctrl-r` checks again.
#[test]
fn namespace_scoped_user_falls_back_to_its_namespace_and_sees_a_plain_forbidden_view() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("rbac", "--demo-as-namespace-user shop -A");
    s.wait_for("the pods of shop after the fallback", 60, |t| {
        t.contains("Pods(shop)")
            && t.contains("Running")
            && t.contains(
                "listing pods in all namespaces is forbidden for user jane: showing namespace shop",
            )
    });
    s.keys(&[":"]);
    s.text("deploy");
    s.keys(&["Enter"]);
    let screen = s.wait_for("the forbidden deployments view", 30, |t| {
        t.contains("listing deployments is forbidden for user jane in namespace shop")
    });
    assert!(screen.contains("forbidden: not started"), "{screen}");
    assert!(!screen.contains("backing off"), "{screen}");
    s.keys(&["C-r"]);
    s.wait_for("access checked again", 15, |t| {
        t.contains("listing deployments is forbidden for user jane in namespace shop")
    });
    s.quit();
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

#[test]
fn capital_l_opens_logs_on_a_pod_and_on_a_deployment_and_esc_closes_them() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("logs", "-A");
    s.wait_for("the pods table with running pods", 60, |t| {
        t.contains("Pods(all)") && t.contains("Running") && t.contains("synced")
    });

    // A pod: its containers' logs, following.
    s.keys(&["L"]);
    let pod = s.wait_for("the pod's log screen streaming", 30, |t| {
        t.contains("Logs pod/") && t.contains("live") && t.contains("FOLLOW")
    });
    assert!(pod.contains("(every container)"), "{pod}");
    // Scrolling up pauses, G resumes.
    s.keys(&["k", "k"]);
    s.wait_for("paused autoscroll", 10, |t| t.contains("PAUSED"));
    s.keys(&["G"]);
    s.wait_for("following again", 10, |t| t.contains("FOLLOW"));
    s.keys(&["Escape"]);
    s.wait_for("back on the pods table", 15, |t| t.contains("Pods(all)"));

    // A deployment: every pod of its selector, each line prefixed with pod/container.
    s.keys(&[":"]);
    s.text("deploy");
    s.keys(&["Enter"]);
    s.wait_for("the deployments table", 30, |t| {
        t.contains("Deployments(all)")
    });
    s.keys(&["L"]);
    let workload = s.wait_for("the workload log screen streaming", 30, |t| {
        t.contains("Logs deployment/")
            && t.contains("follows pods as they come and go")
            && t.contains("live")
    });
    assert!(workload.contains("Pods: -l "), "{workload}");
    s.keys(&["q"]);
    s.wait_for("back on the deployments table", 15, |t| {
        t.contains("Deployments(all)")
    });

    // Both views' streams were stopped (the runtime logs each open and close).
    let log = std::fs::read_to_string(s.log_path()).unwrap_or_default();
    assert_eq!(
        log.matches("log view opened").count(),
        2,
        "{}",
        tail(&log, 40)
    );
    assert_eq!(
        log.matches("log view closed").count(),
        2,
        "{}",
        tail(&log, 40)
    );
    s.quit();
    let screen = s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
    assert!(!screen.contains("panicked"), "{screen}");
}

#[test]
fn a_shell_in_a_demo_pod_runs_a_command_and_returns_to_the_dashboard() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("shell", "-n shop");
    s.wait_for("the pods table", 60, |t| {
        t.contains("Pods(shop)") && t.contains("Running") && t.contains("synced")
    });
    s.keys(&["s"]);
    // A pod of one container opens its shell at once; only a picker that lists containers may
    // be answered with Enter. (A key sent while the picker still said `loading containers…`
    // hid a frozen frame loop: that key was what let it go on, and it went to the shell.)
    let first = s.wait_for("the shell's prompt or the container picker", 30, |t| {
        t.contains(":/$") || (t.contains("enter: shell") && !t.contains("loading containers"))
    });
    if !first.contains(":/$") {
        s.keys(&["Enter"]);
    }
    s.wait_for("the shell's prompt", 30, |t| {
        t.contains("kinformer: shell in shop/") && t.contains(":/$")
    });
    // The window size reached the shell: `$COLUMNS` is tmux's width, alone on its line.
    s.text("echo $COLUMNS");
    s.keys(&["Enter"]);
    let out = s.wait_for("the command's output", 15, |t| {
        t.lines().any(|l| l.trim() == "160")
    });
    assert!(
        !out.contains("Pods(shop)"),
        "the dashboard is suspended:\n{out}"
    );
    s.text("exit 3");
    s.keys(&["Enter"]);
    let back = s.wait_for("the dashboard again", 15, |t| {
        t.contains("Pods(shop)") && t.contains("exited with code 3")
    });
    assert!(
        !back.contains(":/$"),
        "the shell is gone from the screen:\n{back}"
    );
    // Keys reach the dashboard again, none lost.
    s.keys(&[":"]);
    s.text("deploy");
    s.keys(&["Enter"]);
    s.wait_for("the deployments table", 15, |t| {
        t.contains("Deployments(shop)")
    });
    s.quit();
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

#[test]
fn changes_lists_a_churned_demo_pod_and_its_history_opens_with_a_diff() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("history", "-A");
    s.wait_for("the pods table synced", 60, |t| {
        t.contains("Pods(all)") && t.contains("synced")
    });
    // The churn updates pods: `:changes` lists them with a summary of what changed.
    s.keys(&[":"]);
    s.text("changes pods -A");
    s.keys(&["Enter"]);
    s.wait_for("an Updated pod among the changes", 60, |t| {
        t.contains("Changes[") && t.contains("Updated")
    });
    // The newest line is selected; `/Updated` would filter, but the churn keeps it current:
    // filter on the delta type through the summary-free way, the DELTA column's text.
    s.keys(&["/"]);
    s.text("→");
    s.keys(&["Enter"]);
    s.keys(&["Enter"]);
    let timeline = s.wait_for("the pod's timeline with at least two versions", 30, |t| {
        t.contains("History: pods") && t.contains("Updated") && t.contains("Recorded: since")
    });
    assert!(
        timeline.contains("Added") || timeline.contains("Replaced"),
        "the first version is the pod as first seen:\n{timeline}"
    );
    // Enter: the selected version against the one before it, as a unified diff.
    s.keys(&["Enter"]);
    s.wait_for("a unified diff", 15, |t| {
        t.contains("Diff:") && t.contains("@@")
    });
    s.keys(&["Escape", "Escape", "Escape"]);
    s.quit();
    let screen = s.wait_for("exit code", 20, |t| t.contains("EXIT="));
    assert!(screen.contains("EXIT=0"), "{}", tail(&screen, 10));
}

/// A k9s user's first minute: `:ns` and Enter switch every view's scope, `:deploy` stays there,
/// `:svc` and Enter show a Service's pods, `:dp` is an alias, `l` opens logs, `e` edits in
/// `$EDITOR` (a script here), `0` goes back to all namespaces.
#[test]
fn k9s_keys_and_views_work_as_a_k9s_user_expects() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let scripts = tempfile::tempdir().unwrap();
    let editor = scripts.path().join("editor.sh");
    // Adds a label to the object being edited, as a user would in vi.
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/^  labels:$/  labels:\\n    edited-by: kinformer-e2e/' \"$1\"\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let s = Session::start_env(
        "k9s",
        160,
        &format!("EDITOR={}", editor.display()),
        "--demo --demo-pods 120 --demo-churn 5 -A",
    );
    s.wait_for("the pods table", 60, |t| {
        t.contains("Pods(all)") && t.contains("synced")
    });

    // :ns opens the namespaces table; Enter on shop makes it the scope (and favourite 1).
    s.keys(&[":"]);
    s.text("ns");
    s.keys(&["Enter"]);
    s.wait_for("the namespaces table", 30, |t| t.contains("Namespaces("));
    s.keys(&["/"]);
    s.text("shop");
    s.keys(&["Enter"]);
    s.wait_for("shop filtered", 15, |t| t.contains("/shop"));
    s.keys(&["Enter"]);
    s.wait_for("the pods of shop, shop a favourite", 30, |t| {
        t.contains("Pods(shop)") && t.contains("<1>shop")
    });
    // Sticky: the next kind opens in shop too.
    s.keys(&[":"]);
    s.text("deploy");
    s.keys(&["Enter"]);
    s.wait_for("deployments in shop", 30, |t| {
        t.contains("Deployments(shop)")
    });

    // Enter on a Service: the pods its selector chooses.
    s.keys(&[":"]);
    s.text("svc");
    s.keys(&["Enter"]);
    s.wait_for("services in shop", 30, |t| {
        t.contains("Services(shop)") && t.contains("synced")
    });
    s.keys(&["Enter"]);
    let pods = s.wait_for("the service's pods", 30, |t| {
        t.contains("Pods(shop) <services/") && t.contains("-l ")
    });
    assert!(pods.contains("Running"), "{pods}");
    s.keys(&["Escape"]);
    s.wait_for("back on services", 15, |t| t.contains("Services(shop)"));

    // k9s's alias :dp, then `l`: the workload's logs.
    s.keys(&[":"]);
    s.text("dp");
    s.keys(&["Enter"]);
    s.wait_for("deployments by alias", 30, |t| {
        t.contains("Deployments(shop)") && t.contains("synced")
    });
    s.keys(&["l"]);
    s.wait_for("the workload's logs", 30, |t| {
        t.contains("Logs deployment/") && t.contains("live")
    });
    s.keys(&["Escape"]);
    s.wait_for("back on deployments", 15, |t| {
        t.contains("Deployments(shop)")
    });

    // `e`: the editor (the script) changes the object; the server's answer is in the footer.
    s.keys(&["e"]);
    s.wait_for("the edit's answer", 30, |t| t.contains(" edited"));
    s.keys(&["y"]);
    s.wait_for("the edited label in the YAML", 30, |t| {
        t.contains("edited-by: kinformer-e2e")
    });
    s.keys(&["Escape"]);

    // `0`: all namespaces again.
    s.keys(&["0"]);
    s.wait_for("deployments in every namespace", 30, |t| {
        t.contains("Deployments(all)")
    });
    s.quit();
    let end = s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
    assert!(!end.contains("panicked"), "{end}");
}

/// Structured logs: a workload that logs logfmt, `J` shows its lines as fields, `&level=error`
/// keeps only the error lines, each with its fields, and the header counts the matches.
#[test]
fn structured_logs_filtered_by_level_show_only_error_lines_with_their_fields() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("structured", "-n shop");
    s.wait_for("the pods table", 60, |t| {
        t.contains("Pods(shop)") && t.contains("synced")
    });
    s.keys(&[":"]);
    s.text("deploy");
    s.keys(&["Enter"]);
    s.wait_for("deployments", 30, |t| {
        t.contains("Deployments(shop)") && t.contains("catalog")
    });
    s.keys(&["/"]);
    s.text("catalog");
    s.keys(&["Enter"]);
    s.keys(&["l"]);
    s.wait_for("the catalog logs streaming", 30, |t| {
        t.contains("Logs deployment/catalog") && t.contains("live")
    });
    s.keys(&["J"]);
    s.keys(&["&"]);
    s.text("level=error");
    s.keys(&["Enter"]);
    let shown = s.wait_for("only error lines, counted", 60, |t| {
        t.contains("lines match") && t.contains(" ERROR ")
    });
    let log_lines: Vec<&str> = shown
        .lines()
        .filter(|l| l.starts_with("catalog-"))
        .collect();
    assert!(!log_lines.is_empty(), "{shown}");
    for l in &log_lines {
        assert!(
            l.contains(" ERROR "),
            "a line that is not an error: {l}\n{shown}"
        );
        assert!(
            l.contains("error=") || l.contains("caller="),
            "no fields: {l}"
        );
    }
    // The first q clears the filter (as esc), the second closes the log view, then quit.
    s.keys(&["q", "q"]);
    s.wait_for("back on deployments", 15, |t| {
        t.contains("Deployments(shop)") && !t.contains("Logs deployment/")
    });
    s.quit();
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

#[test]
fn ns_with_two_namespaces_shows_one_table_over_both_with_a_namespace_column() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("multins", "");
    s.wait_for("the demo's pods", 60, |t| {
        t.contains("Pods(all)") && t.contains("Running")
    });
    s.keys(&[":"]);
    s.text("ns shop,payments");
    s.keys(&["Enter"]);
    let screen = s.wait_for("the pods of shop and payments", 30, |t| {
        t.contains("Pods(shop,payments)") && t.contains("│payments ") && t.contains("│shop ")
    });
    assert!(screen.contains("NAMESPACE"), "{screen}");
    // Rows of the two namespaces only.
    for line in screen.lines().filter(|l| l.contains("Running")) {
        assert!(
            line.starts_with("│shop ") || line.starts_with("│payments "),
            "a row of another namespace: {line}\n{screen}"
        );
    }
    // The demo user may list pods across namespaces: one all-namespaces informer serves it.
    s.keys(&[":"]);
    s.text("informers");
    s.keys(&["Enter"]);
    s.wait_for("the informer panel naming how the set is served", 15, |t| {
        t.contains("Scope: shop,payments") && t.contains("one all-namespaces pods informer")
    });
    s.keys(&["q"]); // back from the panel
    s.keys(&["C-c"]); // ctrl-c quits from anywhere
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

/// Create from the editor on `--demo`: over `:ns shop,payments`, `:cm` then `ctrl-n` opens
/// `$EDITOR` (a script that names the ConfigMap) on a template in shop; the dry run's diff is
/// confirmed with `y`, and the new ConfigMap shows in the table.
#[test]
fn ctrl_n_creates_a_configmap_from_the_editor_that_then_shows_in_the_table() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let scripts = tempfile::tempdir().unwrap();
    let editor = scripts.path().join("editor.sh");
    // Names the ConfigMap and sets its data, as a user would in vi.
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i -e 's/^  name: .*$/  name: e2e-made/' -e 's/key: value/made-by: e2e/' \"$1\"\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let s = Session::start_env(
        "create",
        160,
        &format!("EDITOR={}", editor.display()),
        "--demo --demo-pods 40 --demo-churn 2",
    );
    s.wait_for("the demo's pods", 60, |t| {
        t.contains("Pods(all)") && t.contains("Running")
    });
    s.keys(&[":"]);
    s.text("ns shop,payments");
    s.keys(&["Enter"]);
    s.wait_for("the pods of shop and payments", 30, |t| {
        t.contains("Pods(shop,payments)") && t.contains("│payments ") && t.contains("│shop ")
    });
    s.keys(&[":"]);
    s.text("cm");
    s.keys(&["Enter"]);
    s.wait_for("the configmaps of the set", 30, |t| {
        t.contains("Configmaps(shop,payments)") && t.contains("synced")
    });
    s.keys(&["C-n"]);
    let dialog = s.wait_for("the dry run's diff", 30, |t| {
        t.contains("Confirm apply") && t.contains("create configmap shop/e2e-made")
    });
    assert!(dialog.contains("made-by: e2e"), "{dialog}");
    s.keys(&["y"]);
    s.wait_for("the applied ConfigMap in the table", 30, |t| {
        t.contains("configmap shop/e2e-made applied") && table(t).contains("e2e-made")
    });
    s.quit();
    let end = s.wait_for("exit code", 20, |t| t.contains("EXIT="));
    assert!(end.contains("EXIT=0"), "{}", tail(&end, 10));
}

/// The table part of a screen (above the DeltaFIFO events pane, which names keys too).
fn table(screen: &str) -> String {
    screen
        .lines()
        .take_while(|l| !l.contains("DeltaFIFO events"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Time travel on `--demo`: a pod killed (`ctrl-k`, grace 0) is gone from the live table,
/// `:at -20s` shows it again under the AS OF banner, esc returns to live where it is gone.
#[test]
fn a_killed_pod_is_back_at_a_past_instant_and_gone_again_live() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start_with("travel", 160, "--demo --demo-pods 12 --demo-churn 0 -A");
    s.wait_for("the pods table synced", 60, |t| {
        t.contains("Pods(all)") && t.contains("synced") && t.contains("storefront-")
    });
    // A Deployment's pod (its replacement gets another name); the filter selects its first.
    s.keys(&["/"]);
    s.text("storefront");
    s.keys(&["Enter"]);
    let filtered = s.wait_for("only storefront pods", 15, |t| {
        let t = table(t);
        t.contains("storefront-") && !t.contains("postgres")
    });
    let name = table(&filtered)
        .lines()
        .find(|l| l.contains("storefront-"))
        .and_then(|l| {
            l.split(|c: char| c.is_whitespace() || c == '│')
                .find(|w| w.starts_with("storefront-"))
        })
        .expect("a storefront pod row")
        .to_string();
    s.keys(&["C-k"]);
    s.wait_for("the kill dialog", 15, |t| {
        t.contains(&name) && t.contains("y")
    });
    s.keys(&["y"]);
    s.wait_for(&format!("{name} gone from the live table"), 30, |t| {
        !table(t).contains(&name) && t.contains("Pods(all)")
    });
    s.keys(&[":"]);
    s.text("at -20s");
    s.keys(&["Enter"]);
    s.wait_for("the pod back in the past view", 30, |t| {
        t.contains("AS OF") && table(t).contains(&name)
    });
    s.keys(&["Escape"]);
    s.wait_for("live again, without the pod", 30, |t| {
        !t.contains("AS OF") && !table(t).contains(&name)
    });
    s.quit();
    let screen = s.wait_for("exit code", 20, |t| t.contains("EXIT="));
    assert!(screen.contains("EXIT=0"), "{}", tail(&screen, 10));
}

/// Issue 39: k9s's `readOnly: true` in its config.yaml refuses ctrl-d with the file named, and
/// the header says read-only; Esc then `/web` typed in one burst (read as Alt-/ by the terminal
/// library) opens the filter with `web` and runs no table key (`e` would open the editor).
#[test]
fn k9s_read_only_refuses_ctrl_d_and_esc_slash_typed_fast_opens_the_filter() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let k9s = home.path().join("config/k9s");
    std::fs::create_dir_all(&k9s).expect("k9s dir");
    std::fs::write(k9s.join("config.yaml"), "k9s:\n  readOnly: true\n").expect("config.yaml");
    let env = format!(
        "XDG_CONFIG_HOME={} XDG_DATA_HOME={} XDG_STATE_HOME={}",
        home.path().join("config").display(),
        home.path().join("data").display(),
        home.path().join("state").display(),
    );
    let s = Session::start_env(
        "k9sro",
        160,
        &env,
        "--demo --demo-pods 120 --demo-churn 5 -A",
    );
    let first = s.wait_for("the pods table, read-only", 60, |t| {
        t.contains("Pods(all)") && t.contains("Running") && t.contains("[readonly]")
    });
    assert!(first.contains("[readonly]"), "{first}");
    s.keys(&["C-d"]);
    let refused = s.wait_for("ctrl-d refused", 15, |t| {
        t.contains("read-only mode: delete is disabled")
    });
    assert!(!refused.contains("Delete pod"), "{refused}");
    assert!(refused.contains("k9s readOnly"), "{refused}");

    assert!(!refused.contains("│ /web "), "{refused}");
    s.burst(&["Escape", "/web"]);
    // The prompt sits on the table's first line: `│ /web`.
    let filter = s.wait_for("the filter prompt holding web", 15, |t| {
        t.contains("│ /web ")
    });
    // Dropped, the Alt-/ would leave `e` to the table: "edit is disabled" in the footer.
    assert!(!filter.contains("edit is disabled"), "{filter}");
    s.keys(&["Escape"]);
    s.quit();
    s.wait_for("the dashboard to exit", 20, |t| t.contains("EXIT=0"));
}

/// Issue 39 on the demo: `-r wd` (the Widget CRD's short name) starts on Widgets, not on Pods,
/// and the table shows the CRD's printer columns (kubectl's COLOR, PHASE...), not NAME AGE.
#[test]
fn r_with_a_crd_short_name_starts_on_its_table_with_the_crds_printer_columns() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("crd", "-r wd");
    let screen = s.wait_for("the widgets table with its printer columns", 60, |t| {
        t.contains("Widgets(all)") && t.contains("COLOR") && t.contains("PHASE")
    });
    assert!(!screen.contains("Pods(all)"), "{screen}");
    assert!(!screen.contains("unknown resource"), "{screen}");
    // `:widgets.demo.kinformer.io` (plural.group) resolves the same.
    s.keys(&[":"]);
    s.text("po");
    s.keys(&["Enter"]);
    s.wait_for("pods", 30, |t| t.contains("Pods(all)"));
    s.keys(&[":"]);
    s.text("widgets.demo.kinformer.io");
    s.keys(&["Enter"]);
    s.wait_for("widgets again", 30, |t| {
        t.contains("Widgets(all)") && t.contains("COLOR")
    });
    s.quit();
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

/// Issue 39: with several clusters `:ns shop` said "unknown namespace: shop" although `:ns`
/// listed it (the namespaces view's rows are keyed under their cluster).
#[test]
fn ns_name_switches_the_namespace_with_several_clusters() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start_with(
        "fleetns",
        160,
        "--demo --demo-clusters 3 --demo-pods 60 --demo-churn 5",
    );
    s.wait_for("the merged pods table", 90, |t| {
        t.contains("CLUSTER") && t.contains("Running")
    });
    // The namespaces are known (listed) before the name is checked against them.
    s.keys(&[":"]);
    s.text("ns");
    s.keys(&["Enter"]);
    s.wait_for("the namespaces table listing shop", 30, |t| {
        t.contains("Namespaces") && t.contains(" shop ")
    });
    s.keys(&["Escape"]);
    s.keys(&[":"]);
    s.text("ns shop");
    s.keys(&["Enter"]);
    let screen = s.wait_for("the pods of shop", 30, |t| {
        t.contains("Pods(shop)") || t.contains("unknown namespace")
    });
    assert!(!screen.contains("unknown namespace"), "{screen}");
    s.quit();
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

/// The count in the pods table's title: `Pods(all)[1,234]`.
fn pods_count(screen: &str) -> Option<u64> {
    let rest = &screen[screen.find("Pods(all)[")? + "Pods(all)[".len()..];
    rest[..rest.find(']')?].replace(',', "").parse().ok()
}

/// Issue 38: a demo server replaced on the same port by another with fewer pods (a re-created
/// cluster: new `kube-system` uid, lower resourceVersions). A watch from the old RV would be
/// accepted and stay silent; the history check after the reconnect notices, the dashboard lists
/// again, and the table shows the new count within 15 s of the new server answering.
#[test]
fn a_demo_server_replaced_on_the_same_port_with_fewer_pods_shows_the_new_count() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let kubeconfig = dir.path().join("demo.kubeconfig");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
        .to_string();
    let first = demo_server(
        &kubeconfig,
        &["--port", &port, "--pods", "300", "--churn", "0"],
    );
    let s = Session::start_with(
        "restore",
        160,
        &format!("--kubeconfig {} -A", kubeconfig.display()),
    );
    s.wait_for("300 pods synced", 90, |t| {
        t.contains("pods watching") && t.contains("synced") && pods_count(t) == Some(300)
    });
    drop(first);
    let second_kubeconfig = dir.path().join("second.kubeconfig");
    let _second = demo_server(
        &second_kubeconfig,
        &["--port", &port, "--pods", "100", "--churn", "0"],
    );
    let screen = s.wait_for("the new server's 100 pods", 15, |t| {
        pods_count(t) == Some(100) && t.contains("synced")
    });
    assert!(screen.contains("history went back"), "{screen}");
    s.quit();
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

/// Issue 41: `:helm` on the demo lists the releases from helm's storage (the latest revision of
/// each, a failed upgrade among them, one release in ConfigMaps); Enter shows a release's
/// revisions and `v` its values.
#[test]
fn helm_lists_the_demos_releases_and_enter_shows_the_revisions() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("helm", "-A");
    s.wait_for("the pods table", 60, |t| t.contains("Pods(all)"));
    s.keys(&[":"]);
    s.text("helm");
    s.keys(&["Enter"]);
    let releases = s.wait_for("the helm releases", 30, |t| {
        t.contains("Helm(all)[5]") && t.contains("kube-prometheus-stack")
    });
    assert!(releases.contains("failed"), "{releases}");
    assert!(releases.contains("APP VERSION"), "{releases}");
    // The first row: cert-manager (ConfigMap driver), two revisions.
    s.keys(&["Enter"]);
    let history = s.wait_for("the revisions", 20, |t| {
        t.contains("History(cert-manager/cert-manager)[2]")
    });
    assert!(history.contains("superseded"), "{history}");
    assert!(history.contains("cert-manager-v1.14.3"), "{history}");
    s.keys(&["v"]);
    let values = s.wait_for("the values", 20, |t| t.contains("USER-SUPPLIED VALUES"));
    assert!(values.contains("installCRDs: true"), "{values}");
    s.keys(&["Escape", "Escape", "Escape"]);
    s.quit();
    s.wait_for("the dashboard to exit", 20, |t| t.contains("EXIT=0"));
}

/// Issue 41: k9s's `logger.tail` (and `showTime`) from its config.yaml start the log view: the
/// demo pod's logs open on its last 7 lines with timestamps shown.
#[test]
fn k9s_logger_tail_from_the_k9s_config_starts_the_log_view() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let k9s = home.path().join("config/k9s");
    std::fs::create_dir_all(&k9s).expect("k9s dir");
    std::fs::write(
        k9s.join("config.yaml"),
        "k9s:\n  logger:\n    tail: 7\n    showTime: true\n",
    )
    .expect("config.yaml");
    let env = format!(
        "XDG_CONFIG_HOME={} XDG_DATA_HOME={} XDG_STATE_HOME={}",
        home.path().join("config").display(),
        home.path().join("data").display(),
        home.path().join("state").display(),
    );
    let s = Session::start_env("k9slog", 160, &env, "--demo --demo-pods 120 -A");
    s.wait_for("the pods table with running pods", 60, |t| {
        t.contains("Pods(all)") && t.contains("Running") && t.contains("synced")
    });
    s.keys(&["l"]);
    let logs = s.wait_for("the log screen on the k9s tail", 30, |t| {
        t.contains("Logs pod/") && t.contains("tail 7")
    });
    assert!(logs.contains("timestamps"), "{logs}");
    assert!(!logs.contains("tail 200"), "{logs}");
    s.keys(&["Escape"]);
    s.quit();
    s.wait_for("the dashboard to exit", 20, |t| t.contains("EXIT=0"));
}

#[test]
fn a_demo_recorded_headless_replays_with_its_rows_the_replay_banner_and_a_step_back() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    // `kinformer record` needs no terminal: run it as a script would.
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("demo.db");
    let out = Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(["record", "--demo", "--duration", "15", "--out"])
        .arg(&file)
        .arg("--log-file")
        .arg(dir.path().join("record.log"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("record runs");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "record: {said}");
    assert!(
        said.contains("recorded ") && said.contains(" versions of ") && said.contains("demo.db"),
        "the summary line: {said}"
    );
    let s = Session::start_with("replay", 160, &format!("replay {}", file.display()));
    let first = s.wait_for(
        "the recorded pods at the end, under a REPLAY banner",
        60,
        |t| t.contains("Pods(all)") && t.contains("Running") && t.contains("REPLAY"),
    );
    assert!(first.contains("❚❚"), "paused at first:\n{first}");
    s.keys(&["["]);
    s.wait_for("a step back to the previous recorded change", 30, |t| {
        t.contains("AS OF") && t.contains("REPLAY")
    });
    // Writes are refused: there is no cluster.
    s.keys(&["C-d"]);
    s.wait_for("the read-only refusal", 15, |t| {
        t.contains("replay: read-only")
    });
    s.quit();
    s.wait_for("the replay exits cleanly", 30, |t| t.contains("EXIT=0"));
    s.assert_terminal_cooked();
}

/// k9s's navigation, as a k9s user drives it: `:pod /web` and `:pod shop` (command arguments),
/// Enter on a pod shows its containers, `/!Running` keeps the rows that are not running, `[`
/// goes back to the previous command and `]` forward again, and two pods marked with `space`
/// are deleted at once after one confirmation.
#[test]
fn k9s_navigation_containers_command_arguments_history_and_marked_deletes() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start("k9snav", "-A");
    s.wait_for("the pods table", 60, |t| {
        t.contains("Pods(all)") && t.contains("synced")
    });

    // `:pod /web`: a filter as the command's argument.
    s.keys(&[":"]);
    s.text("pod /web");
    s.keys(&["Enter"]);
    s.wait_for("the pods filtered by /web", 30, |t| {
        t.contains("Filter: /web") && t.contains("-webhook-")
    });
    // `:pod shop`: a namespace as the argument.
    s.keys(&[":"]);
    s.text("pod shop");
    s.keys(&["Enter"]);
    s.wait_for("the pods of shop", 30, |t| {
        t.contains("Pods(shop)") && t.contains("cart-") && t.contains("synced")
    });

    // Enter on a pod: its containers; esc returns.
    s.keys(&["Enter"]);
    s.wait_for("the pod's containers", 30, |t| {
        t.contains("Containers(shop/") && t.contains("PROBES(L:R)") && t.contains("Running")
    });
    s.keys(&["Escape"]);
    s.wait_for("back on the pods", 15, |t| t.contains("Pods(shop)"));

    // `/!Running`: the rows that do not match.
    s.keys(&["/"]);
    s.text("!Running");
    s.keys(&["Enter"]);
    let inverted = s.wait_for("the pods that are not running", 15, |t| {
        t.contains("Completed") && !t.contains("cart-")
    });
    assert!(
        !inverted.lines().any(|l| l.contains(" Running ")),
        "{inverted}"
    );
    s.keys(&["Escape"]);
    s.wait_for("the filter cleared", 15, |t| t.contains("cart-"));

    // `[`: back to `:pod /web` (in the scope it ran in); `]`: forward to `:pod shop`.
    s.keys(&["["]);
    s.wait_for("the previous command's table", 30, |t| {
        t.contains("Pods(all)") && t.contains("Filter: /web") && t.contains("-webhook-")
    });
    s.keys(&["]"]);
    let shop = s.wait_for("the next command's table", 30, |t| {
        t.contains("Pods(shop)") && t.contains("cart-") && t.contains("synced")
    });

    // Two marked pods, one confirmation, both deleted.
    let names: Vec<String> = shop
        .lines()
        .filter_map(|l| l.trim_start_matches('│').split_whitespace().next())
        .filter(|n| n.starts_with("cart-"))
        .take(2)
        .map(str::to_string)
        .collect();
    assert_eq!(names.len(), 2, "{shop}");
    s.keys(&["Space", "Space"]);
    s.keys(&["C-d"]);
    s.wait_for("one confirmation for both", 15, |t| {
        t.contains("Delete 2 pods") && names.iter().all(|n| t.contains(n.as_str()))
    });
    s.keys(&["y"]);
    // Deleted with the pods' grace period: each terminating, or already gone.
    s.wait_for("both pods terminating or gone", 30, |t| {
        t.contains("Pods(shop)")
            && names.iter().all(|n| {
                t.lines()
                    .filter(|l| l.contains(n.as_str()) && l.starts_with('│'))
                    .all(|l| l.contains("Terminating"))
            })
    });
    s.quit();
    let end = s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
    assert!(!end.contains("panicked"), "{end}");
}

/// Issue 41: k9s's node shell on the demo, opted in as k9s asks (the context's
/// `featureGates.nodeShell`): `s` on a node asks, the pod (k9s's spec, bound to the node) runs,
/// the shell is on the node (its hostname), and the pod is deleted when the shell exits;
/// `--readonly` refuses it before anything is created.
#[test]
fn a_node_shell_on_the_demo_runs_its_pod_on_the_node_and_deletes_it_after() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let home = tempfile::tempdir().expect("tempdir");
    let ctx = home
        .path()
        .join("data/k9s/clusters/kinformer-demo/kinformer-demo");
    std::fs::create_dir_all(&ctx).expect("context dir");
    std::fs::write(
        ctx.join("config.yaml"),
        "k9s:\n  cluster: kinformer-demo\n  featureGates:\n    nodeShell: true\n",
    )
    .expect("config.yaml");
    let env = format!(
        "XDG_CONFIG_HOME={} XDG_DATA_HOME={} XDG_STATE_HOME={}",
        home.path().join("config").display(),
        home.path().join("data").display(),
        home.path().join("state").display(),
    );
    let s = Session::start_env("nodeshell", 160, &env, "--demo --demo-pods 60 -r nodes");
    let nodes = s.wait_for("the nodes table", 60, |t| {
        t.contains("Nodes(") && t.contains("synced") && t.contains("Ready")
    });
    // The first row (the cursor's), under the header.
    let node = nodes
        .lines()
        .skip_while(|l| !l.contains("NAME"))
        .nth(1)
        .and_then(|l| l.trim_start_matches('│').split_whitespace().next())
        .unwrap_or_else(|| panic!("a node row:\n{nodes}"))
        .to_string();
    s.keys(&["s"]);
    s.wait_for("the confirmation", 15, |t| {
        t.contains(&format!("Open a shell on node {node}?")) && t.contains("busybox")
    });
    s.keys(&["y"]);
    s.wait_for("the node's shell prompt", 60, |t| {
        t.contains("kinformer: shell in default/kinformer-shell-")
            && t.contains(&format!("{node}:/$"))
    });
    s.text("cat /README");
    s.keys(&["Enter"]);
    s.wait_for("the node's banner", 15, |t| {
        t.contains(&format!(
            "simulated shell on node {node}, entered with nsenter"
        ))
    });
    s.text("exit");
    s.keys(&["Enter"]);
    let back = s.wait_for("the dashboard, the pod deleted", 30, |t| {
        t.contains("Nodes(") && t.contains(&format!("node shell on {node} exited; pod"))
    });
    assert!(!back.contains(":/$"), "{back}");
    let log = std::fs::read_to_string(s.log_path()).unwrap_or_default();
    assert!(
        log.lines().any(|l| l.contains("op=\"delete\"")
            && l.contains("kinformer-shell-")
            && l.contains("Ok(\"deleted\")")),
        "the pod deleted after the shell:\n{log}"
    );
    s.quit();
    s.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
    drop(s);

    let ro = Session::start_env(
        "nodeshellro",
        160,
        &env,
        "--demo --demo-pods 60 --readonly -r nodes",
    );
    ro.wait_for("the nodes table", 60, |t| {
        t.contains("Nodes(") && t.contains("synced")
    });
    ro.keys(&["s"]);
    let refused = ro.wait_for("the refusal", 15, |t| {
        t.contains("read-only") && t.contains("node shell")
    });
    assert!(!refused.contains("Open a shell"), "{refused}");
    ro.quit();
    ro.wait_for("exit code", 20, |t| t.contains("EXIT=0"));
}

/// `--demo --demo-pods 60000` draws at once: the header, the pods table filling and the demo
/// seed's progress in the footer, instead of a blank terminal while 60,000 pods are stored; a
/// quit while it goes on exits at once (the seed stops at the next object).
#[test]
fn a_big_demo_draws_at_once_with_its_seeds_progress_and_quits_while_seeding() {
    if !tmux_available() {
        eprintln!("skipping: tmux is not installed");
        return;
    }
    let s = Session::start_with("seeding", 160, "--demo --demo-pods 60000");
    let first = s.wait_for("the dashboard with the seed's progress", 60, |t| {
        t.contains("Context:") && t.contains("demo cluster: seeding 60,000 pods…")
    });
    assert!(first.contains("Pods(all)"), "{first}");
    s.quit();
    let screen = s.wait_for("exit code", 30, |t| t.contains("EXIT="));
    assert!(screen.contains("EXIT=0"), "{screen}");
}
