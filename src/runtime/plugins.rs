//! Running a k9s plugin (the I/O side of [`crate::ui::plugin_run`]): the command with its
//! arguments as argv (no shell unless the plugin's command is one), variables the app left
//! unexpanded taken from the environment, `KUBECONFIG` set to the dashboard's kubeconfig file.
//!
//! - Foreground: the dashboard gives the plugin the terminal as it does for a shell (the run
//!   loop's suspended session), in cooked mode, and takes it back when the plugin exits.
//! - Background: a task; stdout and stderr go to `<state dir>/plugins/<name>-<time>.log`
//!   (`<name>.log`, overwritten, with `overwriteOutput`), and the footer says how it ended
//!   (exit status and the output file).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::config::plugins::expand;
use crate::ui::plugin_run::PluginRun;

/// The command and its argv: the plugin's own, expanded once from k9s's variables, then the
/// environment (`$HOME`, `$KINFORMER_OUT`, ...). One pass: a value (an object's name, a cell,
/// the filter) reaches the command as it is, `$` and `;` included, never expanded again.
fn expand_env(run: &PluginRun) -> (String, Vec<String>) {
    let lookup = |n: &str| {
        run.vars
            .iter()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(n).ok())
    };
    let (command, args) = &run.templates;
    (
        expand(command, &lookup),
        args.iter().map(|a| expand(a, &lookup)).collect(),
    )
}

/// The output file of a background run.
pub fn output_path(
    state_dir: &Path,
    run: &PluginRun,
    now: chrono::DateTime<chrono::Local>,
) -> PathBuf {
    let safe: String = run
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let file = if run.overwrite_output {
        format!("{safe}.log")
    } else {
        format!("{safe}-{}.log", now.format("%Y%m%d-%H%M%S%.3f"))
    };
    state_dir.join("plugins").join(file)
}

fn status_text(status: std::process::ExitStatus) -> (String, bool) {
    match status.code() {
        Some(0) => ("exit 0".to_string(), false),
        Some(n) => (format!("exit {n}"), true),
        None => ("killed by a signal".to_string(), true),
    }
}

/// Run a background plugin to its end, its output under `state_dir`; the footer line.
pub async fn run_background(
    run: PluginRun,
    state_dir: PathBuf,
    kubeconfig: Option<PathBuf>,
) -> (String, bool) {
    let path = output_path(&state_dir, &run, chrono::Local::now());
    let (command, args) = expand_env(&run);
    let opened = async {
        if let Some(dir) = path.parent() {
            tokio::fs::create_dir_all(dir).await?;
        }
        let out = std::fs::File::create(&path)?;
        let err = out.try_clone()?;
        let mut cmd = tokio::process::Command::new(&command);
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .kill_on_drop(true);
        if let Some(k) = &kubeconfig {
            cmd.env("KUBECONFIG", k);
        }
        cmd.status().await
    };
    match opened.await {
        Ok(status) => {
            let (what, error) = status_text(status);
            (
                format!(
                    "plugin {} on {}: {what} (output: {})",
                    run.name,
                    run.target,
                    path.display()
                ),
                error,
            )
        }
        Err(e) => (
            format!("plugin {}: cannot run {command}: {e}", run.name),
            true,
        ),
    }
}

/// Run a foreground plugin with the terminal (the caller has left the alternate screen); the
/// footer line.
pub fn run_foreground(run: &PluginRun, kubeconfig: Option<&Path>) -> (String, bool) {
    let (command, args) = expand_env(run);
    let _ = crossterm::terminal::disable_raw_mode();
    let mut cmd = std::process::Command::new(&command);
    cmd.args(&args);
    if let Some(k) = kubeconfig {
        cmd.env("KUBECONFIG", k);
    }
    let result = cmd.status();
    let _ = crossterm::terminal::enable_raw_mode();
    match result {
        Ok(status) => {
            let (what, error) = status_text(status);
            (
                format!("plugin {} on {}: {what}", run.name, run.target),
                error,
            )
        }
        Err(e) => (
            format!("plugin {}: cannot run {command}: {e}", run.name),
            true,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, command: &str, args: &[&str], overwrite: bool) -> PluginRun {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        PluginRun {
            name: name.into(),
            command: command.into(),
            args: args.clone(),
            templates: (command.into(), args),
            vars: Vec::new(),
            background: true,
            overwrite_output: overwrite,
            context: "kind".into(),
            target: "pod default/web-1".into(),
            more: Vec::new(),
        }
    }

    #[test]
    fn output_files_are_per_run_unless_overwrite_output() {
        let now = chrono::Local::now();
        let a = output_path(Path::new("/s"), &run("my plug", "x", &[], false), now);
        assert!(a.starts_with("/s/plugins") && a.to_string_lossy().contains("my_plug-"));
        let b = output_path(Path::new("/s"), &run("p", "x", &[], true), now);
        assert_eq!(b, PathBuf::from("/s/plugins/p.log"));
    }

    #[tokio::test]
    async fn a_background_plugin_gets_its_args_as_argv_and_reports_its_exit_status() {
        // No shell: the `;` and `$(...)` reach printf as they are.
        let r = run("argv", "printf", &["%s|", "a b", "; echo x", "$(id)"], true);
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path().to_path_buf();
        let (msg, error) = run_background(r, state.clone(), None).await;
        assert!(!error, "{msg}");
        assert!(msg.contains("exit 0"), "{msg}");
        let path = msg
            .rsplit("(output: ")
            .next()
            .and_then(|s| s.strip_suffix(')'))
            .unwrap();
        let out = std::fs::read_to_string(path).unwrap();
        assert_eq!(out, "a b|; echo x|$(id)|");
        let (msg, error) =
            run_background(run("fails", "false", &[], true), state.clone(), None).await;
        assert!(error && msg.contains("exit 1"), "{msg}");
        let (msg, error) =
            run_background(run("missing", "/nonexistent/cmd", &[], true), state, None).await;
        assert!(error && msg.contains("cannot run"), "{msg}");
    }

    /// Reads back the output file named in a background run's footer line.
    fn output_of(msg: &str) -> String {
        let path = msg
            .rsplit("(output: ")
            .next()
            .and_then(|s| s.strip_suffix(')'))
            .unwrap();
        std::fs::read_to_string(path).unwrap()
    }

    #[tokio::test]
    async fn hostile_names_and_values_reach_the_plugin_as_single_argv_entries_never_a_shell() {
        // SAFETY of the test itself: `rm` is never reached; were a shell involved, `; touch
        // <canary>` would create the canary file.
        let dir = tempfile::tempdir().unwrap();
        let canary = dir.path().join("canary");
        let hostile = format!("web-1; rm -rf / ; touch {} #", canary.display());
        let mut r = run(
            "hostile",
            "printf",
            &[
                "[%s]",
                "$NAME",
                "$COL-LABELS",
                "${NAMESPACE}x",
                "$FILTER",
                "$KINFORMER_TEST_UNSET_VAR",
            ],
            true,
        );
        r.vars = vec![
            ("NAME".into(), hostile.clone()),
            ("NAMESPACE".into(), "`id` && $(id)".into()),
            // A cell or a filter holding `$HOME` is not expanded from the environment.
            ("COL-LABELS".into(), "app=$HOME|x>y".into()),
            ("FILTER".into(), "\"quoted\" 'single' * ?".into()),
        ];
        let (msg, error) = run_background(r, dir.path().to_path_buf(), None).await;
        assert!(!error, "{msg}");
        assert_eq!(
            output_of(&msg),
            format!(
                "[{hostile}][app=$HOME|x>y][`id` && $(id)x][\"quoted\" 'single' * ?][$KINFORMER_TEST_UNSET_VAR]"
            )
        );
        assert!(!canary.exists(), "a shell ran the name");
    }

    #[tokio::test]
    async fn a_plugin_whose_command_is_a_shell_gets_the_name_as_a_positional_argument() {
        // k9s's usual `sh -c 'kubectl logs "$1"' --`-style plugin: the shell is the plugin's
        // own, the name stays data ($1), and `;` in it runs nothing.
        let dir = tempfile::tempdir().unwrap();
        let canary = dir.path().join("canary");
        let hostile = format!("x; touch {}", canary.display());
        let mut r = run(
            "sh",
            "sh",
            &["-c", "printf '<%s>' \"$1\"", "--", "$NAME"],
            true,
        );
        r.vars = vec![("NAME".into(), hostile.clone())];
        let (msg, error) = run_background(r, dir.path().to_path_buf(), None).await;
        assert!(!error, "{msg}");
        assert_eq!(output_of(&msg), format!("<{hostile}>"));
        assert!(!canary.exists());
    }
}
