//! `Retry-After` over real HTTP: the demo server answers a list or a watch request with a 429 or
//! a 503 carrying `Retry-After: 3` (and `details.retryAfterSeconds: 3`, as kube-apiserver's
//! `ErrorNegotiated` writes them), in JSON and in protobuf, and the reflector sends its next
//! request no sooner than three seconds later: client-go's rest client waits
//! `max(backoff, Retry-After)` before retrying (`checkWait` in `rest/with_retry.go`), where the
//! reflector's own first backoff is 0.8–1.6 s. The lower bound is the assertion; the upper one
//! (two more seconds) only says the wait is not much longer than asked, on a loaded machine.

use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer::demo::{DemoOptions, DemoServer};
use kinformer::informer::Error;
use kinformer::informer::delta_fifo::{DeltaFifo, DeltaFifoOptions};
use kinformer::informer::list_watch::{KubeListerWatcher, client_for_informers};
use kinformer::informer::pb::client::WireFormat;
use kinformer::informer::reflector::{Reflector, ReflectorConfig, ReflectorState};
use kube::api::DynamicObject;
use kube::core::ApiResource;
use tokio_util::sync::CancellationToken;

const ASKED: Duration = Duration::from_secs(3);
const SLACK: Duration = Duration::from_secs(2);
const HANG_GUARD: Duration = Duration::from_secs(30);

/// The reflector's next request after a `code` answer asking for 3 s, on a list (the first
/// one) and on a watch (after the open watch is dropped), in `wire`.
async fn honours_retry_after(code: u16, wire: WireFormat) {
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo server");
    let url = demo.base_url().parse().expect("url");
    let client = client_for_informers(kube::Config::new(url)).expect("client");
    let lw = Arc::new(
        KubeListerWatcher::dynamic(client, &ApiResource::erase::<ConfigMap>(&()), None)
            .with_wire(wire),
    );
    let fifo = Arc::new(DeltaFifo::<DynamicObject>::new(DeltaFifoOptions::default()));
    let reflector = Reflector::new(
        lw,
        fifo,
        ReflectorConfig {
            kind: "v1/ConfigMap".into(),
            use_streaming_list: false,
            // The watch dropped below is a normal close, however young.
            very_short_watch: Duration::ZERO,
            ..ReflectorConfig::default()
        },
    );
    let mut status = reflector.status();
    let cancel = CancellationToken::new();

    // The first list is refused.
    demo.faults().fail_next_asking(code, 1, 3);
    let start = Instant::now();
    let task = tokio::spawn(reflector.run(cancel.clone()));
    let synced = tokio::time::timeout(
        HANG_GUARD,
        status.wait_for(|s| s.lists == 1 && s.state == ReflectorState::Watching),
    )
    .await
    .expect("synced in time")
    .expect("status channel open")
    .clone();
    let took = start.elapsed();
    let what = format!("{code} {wire:?} list");
    assert!(
        (ASKED..ASKED + SLACK).contains(&took),
        "{what}: listed {took:?} after the refusal"
    );
    match (code, &synced.last_error) {
        (429, Some(Error::TooManyRequests(m))) => assert_eq!(
            m,
            "The server has received too many requests and has asked us to try again later"
        ),
        (
            503,
            Some(Error::Api {
                code: 503, reason, ..
            }),
        ) => {
            assert_eq!(reason, "ServiceUnavailable")
        }
        (_, other) => panic!("{what}: {other:?}"),
    }

    // The next watch request is refused.
    let watches = synced.watches;
    demo.faults().fail_next_asking(code, 1, 3);
    demo.faults().drop_watches();
    let start = Instant::now();
    tokio::time::timeout(
        HANG_GUARD,
        status.wait_for(|s| s.watches > watches && s.state == ReflectorState::Watching),
    )
    .await
    .expect("watching again in time")
    .expect("status channel open");
    let took = start.elapsed();
    assert!(
        (ASKED..ASKED + SLACK).contains(&took),
        "{code} {wire:?} watch: watching again {took:?} after the refusal"
    );
    assert_eq!(status.borrow().lists, 1, "{code} {wire:?}: no relist");

    cancel.cancel();
    task.await.expect("reflector task");
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_or_503_with_retry_after_delays_the_next_list_or_watch_as_asked() {
    futures::future::join_all(
        [
            (429, WireFormat::Json),
            (429, WireFormat::Protobuf),
            (503, WireFormat::Json),
            (503, WireFormat::Protobuf),
        ]
        .map(|(code, wire)| honours_retry_after(code, wire)),
    )
    .await;
}
