//! `kinformer config` and `kinformer completions` with the real binary: what was read from where
//! and every problem (named with file, line and column) on stdout, exit 0; a completion script
//! per shell, and no panic when the reader closes the pipe early.

use std::io::Read as _;
use std::process::{Command, Stdio};

fn kinformer(home: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(args)
        .arg("--log-file")
        .arg(home.join("kinformer.log"))
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env_remove("K9S_CONFIG_DIR")
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .output()
        .expect("run kinformer");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn kinformer_config_names_each_file_and_each_problem_with_its_line_and_column() {
    let home = tempfile::tempdir().unwrap();
    let k9s = home.path().join("config/k9s");
    std::fs::create_dir_all(&k9s).unwrap();
    std::fs::write(k9s.join("aliases.yaml"), "aliases:\n  pp: v1/pods\n").unwrap();
    std::fs::write(k9s.join("plugins.yaml"), "plugins:\n\tbad: x\n").unwrap();
    let (code, stdout, stderr) = kinformer(home.path(), &["config"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("k9s aliases") && stdout.contains("loaded (1)"),
        "{stdout}"
    );
    assert!(stdout.contains("pp           v1/pods"), "{stdout}");
    let plugins = k9s.join("plugins.yaml").display().to_string();
    assert!(stdout.contains(&format!("{plugins}:2:1: ")), "{stdout}");
    assert!(stdout.contains("Problems (1)"), "{stdout}");
}

#[test]
fn completions_print_a_script_per_shell_and_survive_a_closed_pipe() {
    let home = tempfile::tempdir().unwrap();
    for (shell, marker) in [
        ("bash", "_kinformer()"),
        ("zsh", "#compdef kinformer"),
        ("fish", "complete -c kinformer"),
    ] {
        let (code, stdout, stderr) = kinformer(home.path(), &["completions", shell]);
        assert_eq!(code, Some(0), "{shell}: {stderr}");
        assert!(
            stdout.contains(marker),
            "{shell}: {}",
            &stdout[..stdout.len().min(200)]
        );
    }
    // A reader that stops after one byte (as `| head -c1`): no panic, no backtrace.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(["completions", "bash", "--log-file"])
        .arg(home.path().join("k.log"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut one = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut one).unwrap();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        status.success() || status.code() == Some(0) || status.code().is_none(),
        "{status:?}"
    );
}

#[test]
fn kinformer_config_lists_k9s_settings_names_the_unsupported_and_the_refused_keys() {
    let home = tempfile::tempdir().unwrap();
    let k9s = home.path().join("config/k9s");
    std::fs::create_dir_all(&k9s).unwrap();
    std::fs::write(
        k9s.join("config.yaml"),
        "k9s:\n  readOnly: true\n  ui:\n    noIcons: true\n",
    )
    .unwrap();
    std::fs::write(
        k9s.join("plugins.yaml"),
        "plugins:\n  clash:\n    shortCut: Ctrl-D\n    description: x\n    scopes: [pods]\n    command: echo\n",
    )
    .unwrap();
    let (code, stdout, stderr) = kinformer(home.path(), &["config"]);
    assert_eq!(code, Some(0), "{stderr}");
    let cfg = k9s.join("config.yaml").display().to_string();
    assert!(
        stdout.contains(&format!("{cfg}:2  k9s.readOnly = true\n")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("{cfg}:4  k9s.ui.noIcons = true  not supported")),
        "{stdout}"
    );
    assert!(
        stdout.contains("Writes: refused (k9s readOnly: true in"),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"duplicate plugin key found for "Ctrl-D" in "clash""#),
        "{stdout}"
    );
    assert!(stdout.contains("1 setting is not supported"), "{stdout}");
    assert!(!stdout.contains("No problems"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kinformer_config_with_a_kubeconfig_names_an_alias_the_cluster_does_not_serve() {
    use kinformer::app_main::{DemoSpec, start_demo};
    let demo = start_demo(&DemoSpec {
        port: 0,
        pods: 10,
        nodes: Some(1),
        churn_per_sec: 0.0,
        seed: 3,
        history: 1_000,
        metrics: false,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 0.0,
    })
    .await
    .expect("demo");
    let home = tempfile::tempdir().unwrap();
    let k9s = home.path().join("config/k9s");
    std::fs::create_dir_all(&k9s).unwrap();
    std::fs::write(
        k9s.join("aliases.yaml"),
        "aliases:\n  dp: apps/v1/nope\n  pp: v1/pods\n",
    )
    .unwrap();
    let kubeconfig = home.path().join("kubeconfig");
    demo.handle
        .write_kubeconfig(&kubeconfig)
        .expect("kubeconfig");
    let dir = home.path().to_path_buf();
    let (code, stdout, stderr) = tokio::task::spawn_blocking(move || {
        kinformer(
            &dir,
            &["config", "--kubeconfig", &kubeconfig.display().to_string()],
        )
    })
    .await
    .unwrap();
    demo.stop().await;
    assert_eq!(code, Some(0), "{stderr}");
    let aliases = k9s.join("aliases.yaml").display().to_string();
    assert!(stdout.contains("checked against"), "{stdout}");
    assert!(
        stdout.contains(&format!("{aliases}:2:3: alias \"dp\": unknown target")),
        "{stdout}"
    );
    assert!(stdout.contains("Problems (1)"), "{stdout}");
}
