//! Bad input on the command line: the real binary must print exactly one clear error line on
//! stderr (no panic, no backtrace) and exit with 2 for a missing kubeconfig, a malformed
//! kubeconfig and an unknown context; a kubeconfig pointing at a closed port is one line too.
//! Every bad flag value, unknown flag and missing value is one line and exit 2 as well (one
//! table, [`every_bad_flag_is_one_exact_line_and_exit_2`]), not clap's usage block.

use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Only guards against a hang (e.g. a dashboard that waits for a terminal); never asserted on.
const HANG_GUARD: Duration = Duration::from_secs(30);

struct Outcome {
    code: Option<i32>,
    stderr: String,
    stdout: String,
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    run_with_kubeconfig_env(dir, args, None)
}

/// `kubeconfig_env`: the value of `$KUBECONFIG` (`None`: unset).
fn run_with_kubeconfig_env(dir: &Path, args: &[&str], kubeconfig_env: Option<&str>) -> Outcome {
    let mut command = Command::new(env!("CARGO_BIN_EXE_kinformer"));
    match kubeconfig_env {
        Some(v) => command.env("KUBECONFIG", v),
        None => command.env_remove("KUBECONFIG"),
    };
    // `--log-file` first: after a subcommand, only that subcommand's flags are accepted.
    let mut child = command
        .arg("--log-file")
        .arg(dir.join("kinformer.log"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir)
        .env("RUST_BACKTRACE", "1")
        .env("RUST_LOG", "debug")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the kinformer binary starts");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waitable child") {
            break Some(s);
        }
        if start.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    let mut stdout = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = e.read_to_string(&mut stderr);
    }
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut stdout);
    }
    assert!(
        status.is_some(),
        "kinformer {args:?} did not exit within {HANG_GUARD:?}; stderr: {stderr}"
    );
    Outcome {
        code: status.and_then(|s| s.code()),
        stderr,
        stdout,
    }
}

/// Exactly one non-empty stderr line, prefixed `kinformer:`, mentioning `needle`; no panic.
fn assert_one_clear_line(o: &Outcome, needle: &str) -> String {
    let lines: Vec<&str> = o.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len(),
        1,
        "want exactly one error line on stderr, got: {:?}",
        o.stderr
    );
    let line = lines[0];
    assert!(line.starts_with("kinformer: "), "unprefixed line: {line}");
    assert!(
        line.contains(needle),
        "the line should mention {needle:?}: {line}"
    );
    for bad in ["panicked", "backtrace", "RUST_BACKTRACE", "stack backtrace"] {
        assert!(
            !o.stderr.contains(bad),
            "panic output on stderr: {}",
            o.stderr
        );
    }
    assert!(
        o.stdout.trim().is_empty(),
        "nothing on stdout: {}",
        o.stdout
    );
    line.to_string()
}

const GOOD_KUBECONFIG: &str = "apiVersion: v1
kind: Config
clusters:
- name: c1
  cluster:
    server: http://127.0.0.1:PORT
contexts:
- name: ctx-one
  context:
    cluster: c1
    user: u1
current-context: ctx-one
users:
- name: u1
  user:
    token: kinformer-bad-input-secret-token
";

#[test]
fn missing_kubeconfig_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("does-not-exist.yaml");
    let o = run(dir.path(), &["--kubeconfig", missing.to_str().unwrap()]);
    let line = assert_one_clear_line(&o, "does-not-exist.yaml");
    assert!(line.contains("not found"), "{line}");
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
}

#[test]
fn malformed_kubeconfig_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("broken.yaml");
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Config\nclusters: [ {name: \n  - : :\n",
    )
    .unwrap();
    let o = run(dir.path(), &["--kubeconfig", path.to_str().unwrap()]);
    assert_one_clear_line(&o, "broken.yaml");
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
}

#[test]
fn kubeconfig_of_the_wrong_shape_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wrong-shape.yaml");
    // Valid YAML, wrong types: contexts must be a list.
    std::fs::write(
        &path,
        "apiVersion: v1\nkind: Config\ncontexts: 42\nusers: {a: b}\n",
    )
    .unwrap();
    let o = run(dir.path(), &["--kubeconfig", path.to_str().unwrap()]);
    assert_one_clear_line(&o, "wrong-shape.yaml");
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
}

#[test]
fn unknown_context_is_one_line_naming_the_available_ones_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kc.yaml");
    std::fs::write(&path, GOOD_KUBECONFIG.replace("PORT", "1")).unwrap();
    let o = run(
        dir.path(),
        &[
            "--kubeconfig",
            path.to_str().unwrap(),
            "--context",
            "no-such-ctx",
        ],
    );
    let line = assert_one_clear_line(&o, "no-such-ctx");
    assert!(
        line.contains("ctx-one"),
        "lists the available contexts: {line}"
    );
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
}

/// `--demo` builds its own kubeconfig; a `--context` it does not hold is refused as with any
/// kubeconfig (it was silently ignored).
#[test]
fn unknown_context_with_the_demo_is_one_line_naming_the_demo_contexts_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let o = run(
        dir.path(),
        &["--demo", "--demo-pods", "10", "--context", "nope"],
    );
    let line = assert_one_clear_line(&o, "\"nope\"");
    assert!(
        line.contains("kinformer-demo"),
        "lists the demo's contexts: {line}"
    );
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
}

#[test]
fn kubeconfig_pointing_at_a_closed_port_is_one_line_without_the_token() {
    let dir = tempfile::tempdir().unwrap();
    // Bind then drop a listener: the port is free and nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let path = dir.path().join("kc.yaml");
    std::fs::write(&path, GOOD_KUBECONFIG.replace("PORT", &port.to_string())).unwrap();
    let o = run(dir.path(), &["--kubeconfig", path.to_str().unwrap()]);
    let line = assert_one_clear_line(&o, &format!("127.0.0.1:{port}"));
    assert!(!line.contains("kinformer-bad-input-secret-token"), "{line}");
    // Not a usage error: the input was fine, the server is not there.
    assert_eq!(o.code, Some(1), "stderr: {}", o.stderr);
    // The debug-level log of the failed connection never carries the token either.
    let log = std::fs::read_to_string(dir.path().join("kinformer.log")).unwrap_or_default();
    assert!(
        !log.contains("kinformer-bad-input-secret-token"),
        "token leaked into the log: {log}"
    );
}

/// Issue 11: no kubeconfig anywhere is one clean sentence naming where we looked and pointing a
/// newcomer at --kubeconfig and --demo (no `kubeconfig : failed to read kubeconfig from
/// '"/x/.kube/config"'`); an empty $KUBECONFIG counts as unset, as kubectl does.
#[test]
fn missing_default_kubeconfig_says_where_it_looked_and_suggests_demo() {
    let dir = tempfile::tempdir().unwrap();
    let default = dir.path().join(".kube").join("config");
    for env in [None, Some("")] {
        let o = run_with_kubeconfig_env(dir.path(), &[], env);
        let line = assert_one_clear_line(&o, &default.display().to_string());
        assert!(
            line.contains("--demo") && line.contains("--kubeconfig"),
            "{line}"
        );
        assert!(!line.contains("'\""), "no debug-quoted path: {line}");
        assert!(!line.contains("kubeconfig :"), "no empty path: {line}");
        assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
    }
}

/// Files listed in $KUBECONFIG that do not exist are skipped (kubectl); none existing is one line.
#[test]
fn kubeconfig_env_naming_only_missing_files_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone.yaml");
    let o = run_with_kubeconfig_env(dir.path(), &[], Some(missing.to_str().unwrap()));
    let line = assert_one_clear_line(&o, "gone.yaml");
    assert!(
        line.contains("$KUBECONFIG") && line.contains("--demo"),
        "{line}"
    );
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);

    // One missing, one present (with an unknown context asked for): the present one is read.
    let present = dir.path().join("kc.yaml");
    std::fs::write(&present, GOOD_KUBECONFIG.replace("PORT", "1")).unwrap();
    let list = format!("{}:{}", missing.display(), present.display());
    let o = run_with_kubeconfig_env(dir.path(), &["--context", "nope"], Some(&list));
    let line = assert_one_clear_line(&o, "nope");
    assert!(line.contains("ctx-one"), "{line}");
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
}

/// A context whose cluster is not defined names the context and the cluster in plain words.
#[test]
fn context_with_an_undefined_cluster_is_one_plain_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kc.yaml");
    std::fs::write(
        &path,
        GOOD_KUBECONFIG
            .replace("PORT", "1")
            .replace("    cluster: c1\n", "    cluster: no-such-cluster\n"),
    )
    .unwrap();
    let o = run(dir.path(), &["--kubeconfig", path.to_str().unwrap()]);
    let line = assert_one_clear_line(&o, "no-such-cluster");
    assert!(line.contains("ctx-one"), "{line}");
    assert!(!line.contains("failed to"), "plain words: {line}");
    assert_eq!(o.code, Some(2), "stderr: {}", o.stderr);
}

/// One row per kind of bad flag: a value of the wrong type, out of range, an empty or invalid
/// namespace (alone or in a list), an unknown flag, a missing value, conflicting flags, a bad
/// selector, and the same for the demo server's own flags. Each is exactly this one line on
/// stderr, nothing on stdout, exit 2, before anything connects or listens.
#[test]
fn every_bad_flag_is_one_exact_line_and_exit_2() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows: &[(&[&str], &str)] = &[
        (
            &["--history-mib", "abc"],
            "invalid value 'abc' for '--history-mib <MIB>': invalid digit found in string (see --help)",
        ),
        (
            &["--history-mib", "0"],
            "invalid value '0' for '--history-mib <MIB>': 0 is not in 1..=65536 (see --help)",
        ),
        (
            &["--history-mib", "99999999999"],
            "invalid value '99999999999' for '--history-mib <MIB>': 99999999999 is not in 1..=65536 (see --help)",
        ),
        (
            &["--history-mib", "-5"],
            "unexpected argument '-5' found (see --help)",
        ),
        (
            &["--log-buffer-mib", "0"],
            "invalid value '0' for '--log-buffer-mib <MIB>': 0 is not in 1..=4096 (see --help)",
        ),
        (
            &["--demo-clusters", "17"],
            "invalid value '17' for '--demo-clusters <N>': 17 is not in 1..=16 (see --help)",
        ),
        (
            &["-n", ""],
            "invalid value '' for '--namespace <NAMESPACE>': empty namespace name (see --help)",
        ),
        (
            &["-n", " , "],
            "invalid value ' , ' for '--namespace <NAMESPACE>': empty namespace name (see --help)",
        ),
        (
            &["-n", "shop,,payments"],
            "invalid value 'shop,,payments' for '--namespace <NAMESPACE>': empty namespace name in \"shop,,payments\" (see --help)",
        ),
        (
            &["-n", "Shop"],
            "invalid value 'Shop' for '--namespace <NAMESPACE>': \"Shop\" is not a namespace name (lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit) (see --help)",
        ),
        (
            &["-n", "shop,-x"],
            "invalid value 'shop,-x' for '--namespace <NAMESPACE>': \"-x\" is not a namespace name (lowercase letters, digits and '-', at most 63, starting and ending with a letter or digit) (see --help)",
        ),
        (
            &["-n"],
            "a value is required for '--namespace <NAMESPACE>' but none was supplied (see --help)",
        ),
        (
            &["-n", "shop", "-A"],
            "the argument '--namespace <NAMESPACE>' cannot be used with '--all-namespaces' (see --help)",
        ),
        (
            &["--nope"],
            "unexpected argument '--nope' found (see --help)",
        ),
        (
            &["--server-mbps", "58"],
            "unexpected argument '--server-mbps' found (see --help)",
        ),
        (
            &["--demo", "-l", "app in ("],
            "invalid label selector \"app in (\": unable to parse requirement at position 8: found end of input, expected: ')'",
        ),
        (
            &["demo-server", "--server-mbps", "x"],
            "invalid value 'x' for '--server-mbps <MB_PER_S>': \"x\": invalid digit found in string (want MB/s: JSON[,PROTOBUF], e.g. 58,70) (see --help)",
        ),
        (
            &["demo-server", "--server-mbps", "5,,6"],
            "invalid value '5,,6' for '--server-mbps <MB_PER_S>': \",6\": invalid digit found in string (want MB/s: JSON[,PROTOBUF], e.g. 58,70) (see --help)",
        ),
        (
            &["demo-server", "--server-mbps", "-1"],
            "unexpected argument '-1' found (see --help)",
        ),
    ];
    for (args, want) in rows {
        let o = run(dir.path(), args);
        let line = assert_one_clear_line(&o, want);
        assert_eq!(line, format!("kinformer: {want}"), "{args:?}");
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.stderr);
    }
    assert!(
        !dir.path().join("kinformer-demo.kubeconfig").exists(),
        "a bad demo-server flag started the server"
    );
}
