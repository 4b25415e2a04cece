//! Exec and the dashboard's shell session.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exec_runs_a_command_and_reports_its_exit_code() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "shell").await;
    let ap = kube::api::AttachParams::default().stdout(true).stderr(true);
    let mut p = pods
        .exec(
            "shell",
            [
                "sh",
                "-c",
                "cat /etc/config/app.yaml; echo $MODE; hostname; exit 3",
            ],
            &ap,
        )
        .await
        .unwrap();
    let status = p.take_status().unwrap();
    let out = read_all(p.stdout().unwrap()).await;
    assert_eq!(out, "port: 8080\ndemo\nshell\n");
    let st = tokio::time::timeout(HANG_GUARD, status)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st.reason.as_deref(), Some("NonZeroExitCode"));
    let code = st.details.unwrap().causes.unwrap()[0].message.clone();
    assert_eq!(code.as_deref(), Some("3"));

    // The second container, chosen by name; exit 0 is a Success status.
    let mut p = pods
        .exec(
            "shell",
            ["ls", "/etc"],
            &kube::api::AttachParams::default()
                .stdout(true)
                .stderr(true)
                .container("sidecar"),
        )
        .await
        .unwrap();
    let status = p.take_status().unwrap();
    let out = read_all(p.stdout().unwrap()).await;
    assert_eq!(
        out, "hostname\nhosts\nos-release\n",
        "no configmap mounted in the sidecar"
    );
    let st = tokio::time::timeout(HANG_GUARD, status)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st.status.as_deref(), Some("Success"));
    p.join().await.unwrap();
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interactive_tty_echoes_follows_resizes_and_exits() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "tty").await;
    let mut p = pods
        .exec(
            "tty",
            [
                "/bin/sh",
                "-c",
                "command -v bash >/dev/null 2>&1 && exec bash || exec sh",
            ],
            &kube::api::AttachParams::interactive_tty(),
        )
        .await
        .unwrap();
    let mut resize = p.terminal_size().unwrap();
    use futures::SinkExt;
    resize
        .send(kube::api::TerminalSize {
            width: 132,
            height: 40,
        })
        .await
        .unwrap();
    let mut stdin = p.stdin().unwrap();
    let mut stdout = p.stdout().unwrap();
    let status = p.take_status().unwrap();
    let mut seen = String::new();
    let mut buf = [0u8; 1024];
    // Wait for the prompt, then type (the resize went first on the same connection).
    while !seen.contains("$ ") {
        let n = tokio::time::timeout(HANG_GUARD, stdout.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "{seen:?}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    stdin.write_all(b"echo $COLUMNS\r").await.unwrap();
    while !seen.ends_with("132\r\ntty:/$ ") {
        let n = tokio::time::timeout(HANG_GUARD, stdout.read(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert!(n > 0, "{seen:?}");
        seen.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert_eq!(
        seen, "tty:/$ echo $COLUMNS\r\n132\r\ntty:/$ ",
        "echo, output, prompt"
    );
    stdin.write_all(b"exit 4\r").await.unwrap();
    let rest = read_all(stdout).await;
    assert_eq!(rest, "exit 4\r\n");
    let st = tokio::time::timeout(HANG_GUARD, status)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        st.details.unwrap().causes.unwrap()[0].message.as_deref(),
        Some("4")
    );
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_shell_session_runs_commands_and_reports_the_exit_code() {
    use kinformer::runtime::shell::{Input, ShellExit, session};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "shell").await;
    let (tx, rx) = mpsc::channel(16);
    let (mut out, mut seen) = tokio::io::duplex(64 * 1024);
    let typing = tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        let mut text = String::new();
        let mut buf = [0u8; 1024];
        let mut typed = 0;
        loop {
            let n = seen.read(&mut buf).await.unwrap_or(0);
            if n == 0 {
                return text;
            }
            text.push_str(&String::from_utf8_lossy(&buf[..n]));
            // Type at each prompt: a resize, a command, then exit with a code.
            if text.matches("$ ").count() > typed {
                typed += 1;
                let line: &[u8] = match typed {
                    1 => {
                        tx.send(Input::Resize(100, 30)).await.unwrap();
                        // kube's attach task multiplexes its stdin and resize channels without
                        // an order between them: give the resize time to be sent first.
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        b"echo $COLUMNS; hostname\r"
                    }
                    _ => b"exit 3\r",
                };
                for b in line {
                    tx.send(Input::Bytes(vec![*b])).await.unwrap();
                }
            }
        }
    });
    let exit = tokio::time::timeout(
        HANG_GUARD,
        session(&pods, "shell", None, (80, 24), rx, &mut out),
    )
    .await
    .unwrap();
    drop(out);
    let text = typing.await.unwrap();
    assert_eq!(exit, ShellExit::Exited(3), "{text}");
    assert!(
        text.contains("echo $COLUMNS; hostname\r\n100\r\nshell\r\n"),
        "{text:?}"
    );
    assert!(text.ends_with("exit 3\r\n"), "{text:?}");
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_in_a_missing_pod_fails_with_the_servers_message() {
    use kinformer::runtime::shell::{ShellExit, session};
    let s = setup().await;
    let pods: Api<Pod> = Api::namespaced(s.conn.client.clone(), &s.ns);
    let (_tx, rx) = mpsc::channel(1);
    let mut out = Vec::new();
    let exit = tokio::time::timeout(
        HANG_GUARD,
        session(&pods, "nope", Some("c"), (80, 24), rx, &mut out),
    )
    .await
    .unwrap();
    match exit {
        ShellExit::Failed(m) => assert!(m.contains("not found") || m.contains("404"), "{m}"),
        other => panic!("{other:?}"),
    }
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shell_whose_terminal_input_ends_closes_its_stdin_and_ends() {
    use kinformer::runtime::shell::{ShellExit, session};
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container (the demo's simulated shell)");
        return s.cleanup().await;
    }
    let pods = running_pod(&s, "shell").await;
    let (tx, rx) = mpsc::channel(1);
    // The terminal reader failing drops its sender: the input ends before any key.
    drop(tx);
    let mut out = Vec::new();
    let exit = tokio::time::timeout(
        HANG_GUARD,
        session(&pods, "shell", None, (80, 24), rx, &mut out),
    )
    .await
    .expect("the session ends once its input has ended");
    assert_eq!(
        exit,
        ShellExit::Exited(0),
        "{:?}",
        String::from_utf8_lossy(&out)
    );
    s.cleanup().await;
}

/// k9s's node shell on the demo: its pod (k9s's spec, bound to the node) is run by the node's
/// kubelet, `nsenter` into PID 1 reaches the node, and the pod goes when deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_node_shell_pod_runs_on_its_node_and_nsenter_reaches_the_node() {
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs the demo's kubelet and simulated shell");
        return s.cleanup().await;
    }
    let node = format!("shell-node-{}", rand::random::<u16>());
    create_node(&s, &node).await;
    let cfg = kinformer::config::ShellPod {
        namespace: s.ns.clone(),
        ..Default::default()
    };
    let name = kinformer::ui::node_shell::pod_name(&node, 1);
    let spec = kinformer::ui::node_shell::shell_pod(&node, &name, &cfg);
    let pods: Api<Pod> = Api::namespaced(s.conn.client.clone(), &s.ns);
    let created = pods
        .create(
            &PostParams::default(),
            &serde_json::from_value(spec).unwrap(),
        )
        .await
        .unwrap();
    let phase = |p: &Pod| p.status.as_ref().and_then(|s| s.phase.clone());
    assert_eq!(
        phase(&created).as_deref(),
        Some("Pending"),
        "answered as created"
    );
    // The kubelet's status follows the create.
    let running = pods.get(&name).await.unwrap();
    let status = running.status.clone().unwrap();
    assert_eq!(status.phase.as_deref(), Some("Running"));
    assert!(status.start_time.is_some() && status.host_ip.is_some());
    assert_eq!(
        status.pod_ip, status.host_ip,
        "hostNetwork: the node's address"
    );
    assert_eq!(status.qos_class.as_deref(), Some("Guaranteed"));
    let cs = &status.container_statuses.unwrap()[0];
    assert_eq!(cs.name, kinformer::ui::node_shell::CONTAINER);
    assert!(cs.ready && cs.state.as_ref().unwrap().running.is_some());
    // The node shell's command, with a command instead of the interactive sh.
    let mut command: Vec<&str> = kinformer::ui::node_shell::NSENTER.to_vec();
    command.pop();
    command.extend(["sh", "-c", "hostname; cat /etc/os-release"]);
    let ap = kube::api::AttachParams::default()
        .stdout(true)
        .stderr(true)
        .container(kinformer::ui::node_shell::CONTAINER);
    let mut p = pods.exec(&name, command, &ap).await.unwrap();
    let out = read_all(p.stdout().unwrap()).await;
    assert!(out.starts_with(&format!("{node}\n")), "{out}");
    assert!(out.contains("demo node"), "{out}");
    p.join().await.unwrap();
    // Without privileges nsenter cannot enter (as on a real node).
    let mut plain = kinformer::ui::node_shell::shell_pod(&node, "unprivileged", &cfg);
    plain["spec"]["containers"][0]["securityContext"]["privileged"] = json!(false);
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(plain).unwrap(),
    )
    .await
    .unwrap();
    let mut p = pods
        .exec("unprivileged", kinformer::ui::node_shell::NSENTER, &ap)
        .await
        .unwrap();
    let status = p.take_status().unwrap();
    let out = read_all(p.stdout().unwrap()).await;
    assert!(out.contains("Operation not permitted"), "{out}");
    let st = tokio::time::timeout(HANG_GUARD, status)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(st.reason.as_deref(), Some("NonZeroExitCode"));
    // Deleted with no grace period, as the node shell deletes it: gone at once.
    pods.delete(
        &name,
        &DeleteParams {
            grace_period_seconds: Some(0),
            ..DeleteParams::default()
        },
    )
    .await
    .unwrap();
    assert!(pods.get_opt(&name).await.unwrap().is_none());
    s.cleanup().await;
}
