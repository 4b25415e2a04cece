//! The bench's child demo server ends with the bench, even when the bench is killed outright
//! (SIGKILL: no destructor runs, so `kill_on_drop` cannot help). Linux only: it rests on the
//! parent-death signal and reads /proc.
#![cfg(target_os = "linux")]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A process's state letter and parent pid, from /proc/PID/stat (None: no such process).
fn state_and_ppid(pid: u32) -> Option<(char, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let mut rest = stat.rsplit_once(')')?.1.split_whitespace();
    let state = rest.next()?.chars().next()?;
    let ppid = rest.next()?.parse().ok()?;
    Some((state, ppid))
}

/// Running (not gone, not a zombie waiting to be reaped).
fn alive(pid: u32) -> bool {
    state_and_ppid(pid).is_some_and(|(state, _)| state != 'Z' && state != 'X')
}

/// The live `kinformer demo-server` children of `parent`.
fn demo_server_children(parent: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&pid| {
            state_and_ppid(pid).is_some_and(|(s, ppid)| ppid == parent && s != 'Z' && s != 'X')
        })
        .filter(|&pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == b"demo-server"))
        })
        .collect()
}

/// Poll `done` every 20 ms until it holds or `limit` passes; whether it held.
fn poll_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    loop {
        if done() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill {sig} {pid}");
}

fn bench(tmp: &Path) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args(["bench", "--only", "sync", "--pods", "200", "--runs", "1"])
        .args(["--smoke", "--no-peer", "--pod-shape", "compact"])
        .arg("--log-file")
        .arg(tmp.join("bench.log"))
        .env("TMPDIR", tmp)
        .env("HOME", tmp)
        .env_remove("KUBECONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start kinformer bench")
}

#[test]
fn a_bench_killed_with_sigkill_takes_its_child_demo_server_with_it() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bench = bench(tmp.path());
    let bench_pid = bench.id();

    // Catch the bench while it holds a demo server: find the child, freeze the bench
    // (SIGSTOP) so it cannot stop that child itself, and check the child is still its own.
    let mut server = None;
    let found = poll_until(Duration::from_secs(120), || {
        let Some(&pid) = demo_server_children(bench_pid).first() else {
            return false;
        };
        signal(bench_pid, "-STOP");
        if state_and_ppid(pid).is_some_and(|(s, ppid)| ppid == bench_pid && s != 'Z') {
            server = Some(pid);
            return true;
        }
        signal(bench_pid, "-CONT");
        false
    });
    let Some(server) = server.filter(|_| found) else {
        let _ = bench.kill();
        let _ = bench.wait();
        panic!("the bench never started a demo server");
    };

    bench.kill().expect("SIGKILL the bench");
    let status = bench.wait().expect("reap the bench");
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "the bench was killed, not ended by itself: {status:?}"
    );

    let ended = poll_until(Duration::from_secs(30), || !alive(server));
    if !ended {
        signal(server, "-KILL");
    }
    assert!(
        ended,
        "demo server {server} still running 30 s after its bench was killed"
    );
}
