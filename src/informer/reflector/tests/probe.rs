//! The recovery probe (no client-go counterpart: client-go waits every backoff out).

use super::*;

fn connect() -> Error {
    Error::Connect("tcp connect error: Connection refused".into())
}

fn server_error() -> Error {
    Error::Api {
        code: 503,
        reason: "ServiceUnavailable".into(),
        message: "apiserver is shutting down".into(),
    }
}

/// Lists once, then fails the watch `failures` times with `err`, then watches for good.
fn script(fake: &FakeListerWatcher<ConfigMap>, failures: usize, err: impl Fn() -> Error) {
    fake.push_list_page(vec![cm("a", "1")], "1", None);
    for _ in 0..failures {
        fake.push_watch_error(err());
    }
    fake.push_watch(WatchScript::new().then_hang());
}

#[tokio::test(start_paused = true)]
async fn an_unreachable_server_is_retried_at_the_first_probe_that_answers() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.set_probe(false);
    // Failures at 0, 0.8, 2.4 and 5.6 s, then a 6.4 s backoff: the fifth request would go out
    // 12 s after the first failure; the server is back 7 s after it.
    script(&fake, 4, connect);
    let run = start(&fake, config());
    fake.wait_for_watch_calls(1).await;
    let first_failure = fake.watch_call_times()[0];
    let back = first_failure + Duration::from_secs(7);
    tokio::time::sleep_until(back).await;
    fake.set_probe(true);
    fake.wait_for_watch_calls(5).await;
    let retried = *fake.watch_call_times().last().unwrap();
    assert!(
        retried - back <= Duration::from_secs(1),
        "retried {:?} after the server came back",
        retried - back
    );
    let probes = fake.probe_call_times();
    assert!(!probes.is_empty());
    // At most one probe a second.
    assert!(
        probes
            .windows(2)
            .all(|w| w[1] - w[0] >= Duration::from_secs(1))
    );
    let status = run.stop().await;
    assert_eq!(status.recoveries, 1);
    assert_eq!(status.probes, probes.len() as u64);
}

#[tokio::test(start_paused = true)]
async fn without_the_probe_the_backoff_is_waited_out_as_client_go_does() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.set_probe(true);
    script(&fake, 5, connect);
    let run = start(
        &fake,
        ReflectorConfig {
            recovery_probe: None,
            ..config()
        },
    );
    fake.wait_for_watch_calls(6).await;
    let times = fake.watch_call_times();
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(
        gaps,
        [800, 1_600, 3_200, 6_400, 12_800].map(Duration::from_millis)
    );
    assert!(fake.probe_call_times().is_empty());
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn a_server_error_waits_the_backoff_out_while_probes_say_the_server_is_up() {
    // The server answers /readyz but refuses the watch with 503: nothing to recover from.
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.set_probe(true);
    script(&fake, 4, server_error);
    let run = start(&fake, config());
    fake.wait_for_watch_calls(5).await;
    let times = fake.watch_call_times();
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, [800, 1_600, 3_200, 6_400].map(Duration::from_millis));
    assert_eq!(run.stop().await.recoveries, 0);
}

#[tokio::test(start_paused = true)]
async fn a_server_error_is_retried_once_a_failed_probe_is_followed_by_an_answer() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.set_probe(false);
    script(&fake, 5, server_error);
    let run = start(&fake, config());
    fake.wait_for_watch_calls(5).await;
    // The fifth failure starts a 12.8 s backoff; the server is ready 2.5 s into it.
    let fifth = *fake.watch_call_times().last().unwrap();
    let ready = fifth + Duration::from_millis(2_500);
    tokio::time::sleep_until(ready).await;
    fake.set_probe(true);
    fake.wait_for_watch_calls(6).await;
    let retried = *fake.watch_call_times().last().unwrap();
    assert!(
        retried - ready <= Duration::from_secs(1),
        "{:?}",
        retried - ready
    );
    assert_eq!(run.stop().await.recoveries, 1);
}

#[tokio::test(start_paused = true)]
async fn too_many_requests_is_not_an_outage_and_is_waited_out() {
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.set_probe(true);
    script(&fake, 3, || Error::TooManyRequests("slow down".into()));
    let run = start(&fake, config());
    fake.wait_for_watch_calls(4).await;
    let times = fake.watch_call_times();
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, [800, 1_600, 3_200].map(Duration::from_millis));
    assert!(fake.probe_call_times().is_empty());
    run.stop().await;
}

#[tokio::test(start_paused = true)]
async fn very_short_watches_are_not_an_outage_and_their_backoff_grows() {
    // A proxy that accepts each watch and closes it at once: the server answers probes, yet
    // nothing is recovered by retrying sooner.
    let fake = FakeListerWatcher::<ConfigMap>::shared();
    fake.set_probe(true);
    for rv in 1..=4 {
        fake.push_list_page(vec![cm("a", "1")], &rv.to_string(), None);
        fake.push_watch(WatchScript::new().then_close());
    }
    fake.push_list_page(vec![cm("a", "1")], "5", None);
    fake.push_watch(WatchScript::new().then_hang());
    let run = start(&fake, config());
    fake.wait_for_list_calls(5).await;
    let times = fake.list_call_times();
    let gaps: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(gaps, [800, 1_600, 3_200, 6_400].map(Duration::from_millis));
    assert_eq!(run.stop().await.recoveries, 0);
}
