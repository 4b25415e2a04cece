//! Port-forwards that follow a Service's or Deployment's ready pods (`ui::portforward`), over
//! real HTTP against the demo server: the pod chosen by a pods informer, moved to another when it
//! goes away or turns not ready, connections held while none is ready, a Service's named
//! targetPort mapped to the container port. The demo's pods answer HTTP with a page naming the
//! pod: on a real cluster (KINFORMER_TEST_KUBECONFIG) these tests skip with that reason. Also the
//! SPDY/3.1 port-forward kubectl uses, spoken directly over a plain upgrade.
//! No assertion on elapsed time; `HANG_GUARD` only turns a hang into a failure.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, Service};
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::runtime::portforward::{
    Following, ForwardStats, RemotePort, bind_local, forward_selected, selector_ports,
};
use kinformer::ui::action::ForwardKind;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const HANG_GUARD: Duration = Duration::from_secs(60);

/// The demo server (none on a real cluster: the caller skips) and a namespace of the test's own.
async fn demo() -> Option<(DemoHandle, kube::Client, String)> {
    if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        println!("skipping: needs running containers answering HTTP (the demo's pods)");
        return None;
    }
    let h = DemoServer::start(DemoOptions::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    h.write_kubeconfig(&path).unwrap();
    let config = kube::Config::from_custom_kubeconfig(
        kube::config::Kubeconfig::read_from(&path).unwrap(),
        &Default::default(),
    )
    .await
    .unwrap();
    let client = kube::Client::try_from(config).unwrap();
    let ns = format!("kinformer-pf-{}", rand::random::<u32>());
    Api::<Namespace>::all(client.clone())
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap(),
        )
        .await
        .unwrap();
    Some((h, client, ns))
}

async fn read_all(mut r: impl tokio::io::AsyncRead + Unpin) -> String {
    use tokio::io::AsyncReadExt;
    let mut s = String::new();
    tokio::time::timeout(HANG_GUARD, r.read_to_string(&mut s))
        .await
        .expect("output ends")
        .unwrap();
    s
}

/// A pod of `app=web` answering on container port `http` (8080), reported ready or not (the
/// demo has no kubelet: the test writes the status a kubelet would).
async fn web_pod(pods: &Api<Pod>, name: &str, app: &str) {
    pods.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": name, "labels": {"app": app}},
            "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10",
                "ports": [{"containerPort": 8080, "name": "http"}]}]}}))
        .unwrap(),
    )
    .await
    .unwrap();
    set_ready(pods, name, true).await;
}

async fn set_ready(pods: &Api<Pod>, name: &str, ready: bool) {
    let status = if ready { "True" } else { "False" };
    pods.patch_status(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({"status": {"phase": "Running",
            "conditions": [{"type": "Ready", "status": status}]}})),
    )
    .await
    .unwrap();
}

async fn get_through(local: std::net::SocketAddr) -> String {
    use tokio::io::AsyncWriteExt;
    let mut conn = tokio::net::TcpStream::connect(local).await.unwrap();
    conn.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    tokio::time::timeout(HANG_GUARD, read_all(&mut conn))
        .await
        .expect("an answer")
}

/// Polls `follow` until `want` holds (the informer's event moves the forward).
async fn until_following(
    follow: &parking_lot::Mutex<Following>,
    want: impl Fn(&Following) -> bool,
) -> Following {
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    loop {
        let f = follow.lock().clone();
        if want(&f) {
            return f;
        }
        assert!(tokio::time::Instant::now() < deadline, "still {f:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deployment_forward_moves_to_another_ready_pod_when_its_pod_goes_away() {
    use std::sync::atomic::Ordering;
    let Some((_demo, client, ns)) = demo().await else {
        return;
    };
    let deploys: Api<Deployment> = Api::namespaced(client.clone(), &ns);
    deploys
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "metadata": {"name": "web"},
                "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                         "template": {"metadata": {"labels": {"app": "web"}},
                                      "spec": {"containers": [{"name": "app",
                                          "image": "registry.k8s.io/pause:3.10",
                                          "ports": [{"containerPort": 8080, "name": "http"}]}]}}}
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    web_pod(&pods, "web-a", "web").await;
    web_pod(&pods, "web-b", "web").await;
    web_pod(&pods, "aaa-other", "other").await;
    // The selector and ports as the dashboard's dialog takes them from the Deployment.
    let choice = selector_ports(client.clone(), &ns, ForwardKind::Deployment, "web")
        .await
        .unwrap();
    assert_eq!(choice.selector, "app=web");
    assert_eq!(choice.remotes, [RemotePort::Number(8080)]);
    let selector = choice.selector;

    let listener = bind_local(0).await.unwrap();
    let local = listener.local_addr().unwrap();
    let stats = Arc::new(ForwardStats::default());
    let follow = Arc::new(parking_lot::Mutex::new(Following::default()));
    let cancel = CancellationToken::new();
    let task = tokio::spawn(forward_selected(
        client.clone(),
        ns.clone(),
        selector,
        RemotePort::Number(8080),
        listener,
        stats.clone(),
        follow.clone(),
        cancel.clone(),
    ));
    let page = get_through(local).await;
    assert!(
        page.contains(&format!("kinformer demo pod {}/web-a", ns)),
        "{page}"
    );
    assert!(page.contains("port 8080"), "{page}");
    assert_eq!(
        follow.lock().clone(),
        Following {
            pod: Some("web-a".into()),
            moved: 0
        }
    );

    pods.delete("web-a", &DeleteParams::default().grace_period(0))
        .await
        .unwrap();
    let f = until_following(&follow, |f| f.pod.as_deref() == Some("web-b")).await;
    assert_eq!(f.moved, 1);
    let page = get_through(local).await;
    assert!(
        page.contains(&format!("kinformer demo pod {}/web-b", ns)),
        "{page}"
    );

    // Not ready: no pod to use; a connection is held until one is ready again.
    set_ready(&pods, "web-b", false).await;
    until_following(&follow, |f| f.pod.is_none()).await;
    let held = tokio::spawn(get_through(local));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!held.is_finished(), "held while no pod is ready");
    set_ready(&pods, "web-b", true).await;
    let page = tokio::time::timeout(HANG_GUARD, held)
        .await
        .unwrap()
        .unwrap();
    assert!(
        page.contains(&format!("kinformer demo pod {}/web-b", ns)),
        "{page}"
    );
    assert_eq!(follow.lock().moved, 1, "back to the same pod is no move");

    cancel.cancel();
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stats.active.load(Ordering::Relaxed), 0);
    assert_eq!(stats.connections.load(Ordering::Relaxed), 3);
    assert!(tokio::net::TcpStream::connect(local).await.is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_forward_maps_its_named_target_port_to_the_pods_container_port() {
    let Some((_demo, client, ns)) = demo().await else {
        return;
    };
    Api::<Service>::namespaced(client.clone(), &ns)
        .create(
            &PostParams::default(),
            &serde_json::from_value(json!({
                "metadata": {"name": "web"},
                "spec": {"selector": {"app": "web"},
                         "ports": [{"name": "web", "port": 80, "targetPort": "http"},
                                   {"name": "raw", "port": 81, "targetPort": 8080}]}
            }))
            .unwrap(),
        )
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(client.clone(), &ns);
    web_pod(&pods, "web-a", "web").await;
    let choice = selector_ports(client.clone(), &ns, ForwardKind::Service, "web")
        .await
        .unwrap();
    assert_eq!(choice.selector, "app=web");
    let ports: Vec<(u16, &str)> = choice
        .ports
        .iter()
        .map(|p| (p.port, p.name.as_str()))
        .collect();
    assert_eq!(ports, [(80, "web"), (81, "raw")]);
    assert_eq!(
        choice.remotes,
        [RemotePort::Name("http".into()), RemotePort::Number(8080)]
    );
    let missing = selector_ports(client.clone(), &ns, ForwardKind::Service, "nope").await;
    assert!(missing.unwrap_err().contains("not found"));

    // The named targetPort is resolved on the pod: `http` is its container port 8080.
    let listener = bind_local(0).await.unwrap();
    let local = listener.local_addr().unwrap();
    let stats = Arc::new(ForwardStats::default());
    let follow = Arc::new(parking_lot::Mutex::new(Following::default()));
    let cancel = CancellationToken::new();
    let task = tokio::spawn(forward_selected(
        client.clone(),
        ns.clone(),
        choice.selector.clone(),
        choice.remotes[0].clone(),
        listener,
        stats,
        follow,
        cancel.clone(),
    ));
    let page = get_through(local).await;
    assert!(
        page.contains(&format!("kinformer demo pod {ns}/web-a")),
        "{page}"
    );
    assert!(page.contains("port 8080"), "{page}");
    cancel.cancel();
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
}

/// The SPDY/3.1 side kubectl uses, spoken directly (no kubectl needed): a plain
/// `Upgrade: SPDY/3.1` negotiating `portforward.k8s.io`, the error/data stream pair of one
/// forwarded connection, the pod's page on the data stream and both streams half-closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_spdy_upgrade_forwards_one_connection_to_the_pods_page() {
    use kinformer::demo::spdy::{FLAG_FIN, Frame, Framer};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let Some((h, client, ns)) = demo().await else {
        return;
    };
    web_pod(&Api::namespaced(client, &ns), "web", "web").await;
    let upgrade = |protocol: &str| {
        format!(
            "POST /api/v1/namespaces/{ns}/pods/web/portforward HTTP/1.1\r\nHost: demo\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: {protocol}\r\nContent-Length: 0\r\n\r\n"
        )
    };
    // A stream protocol the kubelet does not speak is refused.
    let mut conn = tokio::net::TcpStream::connect(h.addr()).await.unwrap();
    conn.write_all(upgrade("channel.k8s.io").as_bytes())
        .await
        .unwrap();
    let mut head = vec![0u8; 1024];
    let n = conn.read(&mut head).await.unwrap();
    let refused = String::from_utf8_lossy(&head[..n]).into_owned();
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");

    let mut conn = tokio::net::TcpStream::connect(h.addr()).await.unwrap();
    conn.write_all(upgrade("portforward.k8s.io").as_bytes())
        .await
        .unwrap();
    let mut head = Vec::new();
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let mut b = [0u8; 1];
        assert_eq!(conn.read(&mut b).await.unwrap(), 1, "connection closed");
        head.push(b[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 101"), "{head}");
    assert!(head.contains("upgrade: spdy/3.1"), "{head}");
    assert!(
        head.contains("x-stream-protocol-version: portforward.k8s.io"),
        "{head}"
    );
    let mut framer = Framer::new();
    let syn = |stream: u32, kind: &str| Frame::SynStream {
        stream,
        associated: 0,
        priority: 0,
        flags: 0,
        headers: vec![
            ("streamtype".into(), kind.into()),
            ("port".into(), "8080".into()),
            ("requestid".into(), "0".into()),
        ],
    };
    for f in [
        syn(1, "error"),
        Frame::Data {
            stream: 1,
            flags: FLAG_FIN,
            data: Vec::new(),
        },
        syn(3, "data"),
        Frame::Data {
            stream: 3,
            flags: 0,
            data: b"GET /spdy HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
        },
    ] {
        conn.write_all(&framer.encode(&f).unwrap()).await.unwrap();
    }
    let (mut page, mut data_fin, mut error_fin, mut replies) = (Vec::new(), false, false, 0);
    let mut buf = vec![0u8; 4096];
    while !(data_fin && error_fin) {
        let n = tokio::time::timeout(HANG_GUARD, conn.read(&mut buf))
            .await
            .expect("frames from the demo")
            .unwrap();
        assert!(n > 0, "closed before both streams ended");
        framer.push(&buf[..n]);
        while let Some(f) = framer.next_frame().unwrap() {
            match f {
                Frame::SynReply { .. } => replies += 1,
                Frame::Data {
                    stream,
                    flags,
                    data,
                } => {
                    if stream == 3 {
                        page.extend(data);
                        data_fin |= flags & FLAG_FIN != 0;
                    } else {
                        assert!(data.is_empty(), "{}", String::from_utf8_lossy(&data));
                        error_fin |= flags & FLAG_FIN != 0;
                    }
                }
                other => panic!("unexpected frame {other:?}"),
            }
        }
    }
    assert_eq!(replies, 2);
    let page = String::from_utf8_lossy(&page);
    assert!(page.starts_with("HTTP/1.1 200 OK"), "{page}");
    assert!(
        page.contains(&format!("kinformer demo pod {ns}/web")),
        "{page}"
    );
    assert!(page.contains("request: GET /spdy HTTP/1.1"), "{page}");
}
