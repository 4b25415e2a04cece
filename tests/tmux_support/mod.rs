//! Driving the real binary in a detached tmux session (keys in, `capture-pane` out), shared by
//! the end-to-end tests. Each test binary uses a part of it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn tmux_available() -> bool {
    Command::new("tmux")
        .arg("-V")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

pub struct Session {
    name: String,
    socket: String,
    dir: tempfile::TempDir,
}

impl Session {
    /// `kinformer --demo` (120 pods, 5 ev/s churn) with `args`, 160×40.
    pub fn start(tag: &str, args: &str) -> Session {
        Session::start_with(
            tag,
            160,
            &format!("--demo --demo-pods 120 --demo-churn 5 {args}"),
        )
    }

    /// `kinformer <args>` in a detached tmux session `width`×40; the wrapping shell prints the
    /// exit code and `stty -a` once the dashboard is gone.
    pub fn start_with(tag: &str, width: u16, args: &str) -> Session {
        Session::start_env(tag, width, "", args)
    }

    /// [`start_with`](Self::start_with) with environment assignments before the command
    /// (`EDITOR=/path/to/script`).
    pub fn start_env(tag: &str, width: u16, env: &str, args: &str) -> Session {
        let dir = tempfile::tempdir().expect("tempdir");
        let name = format!("kinformer-e2e-{tag}-{}", std::process::id());
        let socket = dir.path().join("tmux.sock").display().to_string();
        let bin = env!("CARGO_BIN_EXE_kinformer");
        let log = dir.path().join("kinformer.log");
        let stty = dir.path().join("stty.txt");
        // The user's own k9s and kinformer files stay out of it, and what a run saves (a
        // context's view and favourites on exit, as k9s saves them; kubectl's discovery cache,
        // kept by a demo server's port that a later test may reuse) stays in this session's
        // directory: tests running at once never start on each other's saved state. A test's
        // own `env` comes after, so it wins.
        let home = dir.path().display();
        let isolated = format!(
            "XDG_CONFIG_HOME={home}/config XDG_DATA_HOME={home}/data XDG_STATE_HOME={home}/state \
             KUBECACHEDIR={home}/kube-cache"
        );
        let script = format!(
            "{isolated} {env} {bin} --log-file {} {args}; echo EXIT=$? ; stty -a > {}; sleep 60",
            log.display(),
            stty.display()
        );
        let width = width.to_string();
        let status = Command::new("tmux")
            .args([
                "-S",
                &socket,
                "new-session",
                "-d",
                "-s",
                &name,
                "-x",
                &width,
                "-y",
                "40",
            ])
            .arg(script)
            .status()
            .expect("tmux new-session");
        assert!(status.success(), "tmux new-session failed");
        Session { name, socket, dir }
    }

    /// Quit as a k9s user does: `:q` and Enter (`q` alone is Back, never quit).
    pub fn quit(&self) {
        self.keys(&[":", "q", "Enter"]);
    }

    pub fn keys(&self, keys: &[&str]) {
        for k in keys {
            let status = Command::new("tmux")
                .args(["-S", &self.socket, "send-keys", "-t", &self.name, k])
                .status()
                .expect("tmux send-keys");
            assert!(status.success());
            // Separate keys so ESC is never read as an Alt prefix of the next key.
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    /// Several keys in one `send-keys`: tmux writes them to the terminal at once, as a paste or
    /// a fast hand would (`Escape` then `/web` arrives as `ESC / w e b`).
    pub fn burst(&self, keys: &[&str]) {
        let status = Command::new("tmux")
            .args(["-S", &self.socket, "send-keys", "-t", &self.name])
            .args(keys)
            .status()
            .expect("tmux send-keys");
        assert!(status.success());
        std::thread::sleep(Duration::from_millis(150));
    }

    pub fn text(&self, text: &str) {
        let status = Command::new("tmux")
            .args([
                "-S",
                &self.socket,
                "send-keys",
                "-t",
                &self.name,
                "-l",
                text,
            ])
            .status()
            .expect("tmux send-keys -l");
        assert!(status.success());
        std::thread::sleep(Duration::from_millis(150));
    }

    pub fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["-S", &self.socket, "capture-pane", "-p", "-t", &self.name])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Wait until the screen satisfies `pred`; panics with the last screen after `secs`.
    pub fn wait_for(&self, what: &str, secs: u64, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            if Instant::now() > deadline {
                let log = std::fs::read_to_string(self.dir.path().join("kinformer.log"))
                    .unwrap_or_default();
                panic!(
                    "timed out waiting for {what}; screen:\n{s}\nlog tail:\n{}",
                    tail(&log, 40)
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The dashboard's pid, from /proc: the process whose argv[0] is the binary and whose
    /// arguments name this session's log file (the wrapping shell's argv[0] is the shell).
    pub fn pid(&self) -> Option<u32> {
        let bin = env!("CARGO_BIN_EXE_kinformer");
        let log = self.log_path().display().to_string();
        std::fs::read_dir("/proc")
            .ok()?
            .flatten()
            .find_map(|entry| {
                let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
                let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
                let args: Vec<String> = cmdline
                    .split(|b| *b == 0)
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                (args.first().map(String::as_str) == Some(bin) && args.contains(&log))
                    .then_some(pid)
            })
    }

    /// The session's own temporary directory (scripts, files a test writes).
    pub fn dir(&self) -> &std::path::Path {
        self.dir.path()
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.path().join("kinformer.log")
    }

    pub fn stty(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("stty.txt")).unwrap_or_default()
    }

    /// The shell wrote `stty -a` after the dashboard exited: raw mode must be gone.
    pub fn assert_terminal_cooked(&self) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.stty().is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(
            is_cooked(&self.stty()),
            "terminal left in raw mode:\n{}",
            self.stty()
        );
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .status();
    }
}

pub fn tail(s: &str, n: usize) -> String {
    let lines: Vec<&str> = s.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Raw mode clears `icanon` and `echo`; cooked mode has both.
pub fn is_cooked(stty: &str) -> bool {
    let words: Vec<&str> = stty.split_whitespace().collect();
    words.contains(&"icanon") && words.contains(&"echo")
}

/// `kinformer demo-server` as a child process, killed on drop.
pub struct DemoServer(Child);

impl Drop for DemoServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn demo_server(kubeconfig: &std::path::Path, args: &[&str]) -> DemoServer {
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
