//! Port-forward: the library call and the dashboard's forwards.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn port_forward_carries_an_http_get_through_a_local_port() {
    use kinformer::runtime::portforward::{ForwardStats, bind_local, forward};
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    use tokio::io::AsyncWriteExt;
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container answering HTTP (the demo's pods)");
        return s.cleanup().await;
    }
    running_pod(&s, "web").await;
    // The preferred port is taken: the next free one is used.
    let taken = bind_local(0).await.unwrap();
    let preferred = taken.local_addr().unwrap().port();
    let listener = bind_local(preferred).await.unwrap();
    let local = listener.local_addr().unwrap();
    assert_ne!(local.port(), preferred);
    let stats = Arc::new(ForwardStats::default());
    let cancel = CancellationToken::new();
    let task = tokio::spawn(forward(
        s.conn.client.clone(),
        s.ns.clone(),
        "web".into(),
        8080,
        listener,
        stats.clone(),
        cancel.clone(),
    ));
    for _ in 0..2 {
        let mut conn = tokio::net::TcpStream::connect(local).await.unwrap();
        conn.write_all(b"GET /hello HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .await
            .unwrap();
        let page = read_all(&mut conn).await;
        assert!(page.starts_with("HTTP/1.1 200 OK\r\n"), "{page}");
        assert!(
            page.contains(&format!("kinformer demo pod {}/web", s.ns)),
            "{page}"
        );
        assert!(page.contains("container app, port 8080"), "{page}");
        assert!(page.contains("request: GET /hello HTTP/1.1"), "{page}");
    }
    assert_eq!(stats.connections.load(Ordering::Relaxed), 2);
    assert!(stats.bytes_in.load(Ordering::Relaxed) > 100);
    cancel.cancel();
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .unwrap()
        .unwrap();
    // Stopped: the local port is closed.
    assert!(tokio::net::TcpStream::connect(local).await.is_err());
    drop(taken);
    s.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dashboard_forward_carries_bytes_and_stopping_it_closes_the_port_and_ends_its_task() {
    use kinformer::runtime::portforward::Forwards;
    use tokio::io::AsyncWriteExt;
    let s = setup().await;
    if s.demo.is_none() {
        println!("skipping: needs a running container answering HTTP (the demo's pods)");
        return s.cleanup().await;
    }
    running_pod(&s, "web").await;
    let mut forwards = Forwards::new(s.conn.client.clone());
    let local = forwards
        .start(7, s.ns.clone(), "web".into(), 8080, 0)
        .await
        .unwrap();
    assert_eq!(forwards.running(), 1);
    let mut conn = tokio::net::TcpStream::connect(("127.0.0.1", local))
        .await
        .unwrap();
    conn.write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let page = tokio::time::timeout(HANG_GUARD, read_all(&mut conn))
        .await
        .unwrap();
    assert!(
        page.contains(&format!("kinformer demo pod {}/web", s.ns)),
        "{page}"
    );
    let rows = forwards.rows();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].id, rows[0].local, rows[0].port), (7, local, 8080));
    assert_eq!(rows[0].connections, 1);
    let stopped = forwards.stop(7).await.unwrap();
    assert_eq!(stopped.local, local);
    assert!(
        tokio::net::TcpStream::connect(("127.0.0.1", local))
            .await
            .is_err(),
        "the listener is closed"
    );
    assert_eq!(forwards.running(), 0);
    assert!(forwards.rows().is_empty());
    assert!(forwards.stop(7).await.is_none(), "stopped once");
    s.cleanup().await;
}
