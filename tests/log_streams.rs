//! The log view's stream tasks against the demo server over HTTP: a workload view follows the
//! informer (a pod created mid-stream gets its stream, a deleted one ends with a marker), a lost
//! connection resumes from the last line without a duplicate or a gap, containers that have not
//! started wait for their pod to change, refusals are reported, and cancelling a view leaves no
//! task or connection behind.
//!
//! These need running containers, which the demo fakes (no kubelet): against a real cluster
//! (`KINFORMER_TEST_KUBECONFIG`) they skip with the reason.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kinformer::demo::cluster::UpdateMode;
use kinformer::demo::resources;
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::informer::factory::{FactoryOptions, SharedInformerFactory};
use kinformer::runtime::log_stream::{
    ContainerPick, LOG_CHANNEL, LogContext, LogCounters, LogEvent, LogLine, PodFilter, SourceState,
    StreamOptions, spawn_log_view,
};
use kinformer::selector::LabelSelector;
use kube::api::{Api, LogParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::core::ApiResource;
use kube::{Client, Config};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Only guards against a hang; nothing asserts on elapsed time.
const HANG_GUARD: Duration = Duration::from_secs(30);

fn skip_on_real_cluster(test: &str) -> bool {
    if std::env::var_os("KINFORMER_TEST_KUBECONFIG").is_some() {
        println!(
            "skipping {test}: needs the demo's generated container logs (no kubelet runs them here)"
        );
        return true;
    }
    false
}

struct Env {
    demo: DemoHandle,
    client: Client,
    factory: Arc<SharedInformerFactory>,
}

async fn env(rate: f64) -> Env {
    let demo = DemoServer::start(DemoOptions {
        log_lines_per_second: rate,
        ..DemoOptions::default()
    })
    .await
    .unwrap();
    let kc = Kubeconfig::from_yaml(&demo.kubeconfig_yaml()).unwrap();
    let config = Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .unwrap();
    let client = Client::try_from(config).unwrap();
    let factory = Arc::new(SharedInformerFactory::from_client(
        client.clone(),
        FactoryOptions::default(),
    ));
    factory.start();
    let ns = resources::find("", "v1", "namespaces").unwrap();
    demo.cluster()
        .create(
            ns,
            None,
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}}),
        )
        .unwrap();
    Env {
        demo,
        client,
        factory,
    }
}

fn rfc3339(secs_ago: i64) -> String {
    (chrono::Utc::now() - chrono::Duration::seconds(secs_ago))
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

fn pod_json(name: &str, app: &str, state: Value) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "labels": {"app": app}},
        "spec": {"nodeName": "node-1", "containers": [
            {"name": "main", "image": "docker.io/shop/api:1.0"},
            {"name": "sidecar", "image": "docker.io/envoyproxy/envoy:v1.31"}]},
        "status": {"phase": "Running", "containerStatuses": [
            {"name": "main", "restartCount": 0, "state": state.clone(), "lastState": {}},
            {"name": "sidecar", "restartCount": 0, "state": state, "lastState": {}}]}
    })
}

fn running(secs_ago: i64) -> Value {
    json!({"running": {"startedAt": rfc3339(secs_ago)}})
}

fn pods_idx() -> usize {
    resources::find("", "v1", "pods").unwrap()
}

struct View {
    rx: mpsc::Receiver<LogEvent>,
    cancel: CancellationToken,
    counters: Arc<LogCounters>,
}

fn open(e: &Env, filter: PodFilter, pick: ContainerPick, options: StreamOptions) -> View {
    let (tx, rx) = mpsc::channel(LOG_CHANNEL);
    let counters = LogCounters::new();
    let cancel = CancellationToken::new();
    let pods = e
        .factory
        .informer_for(&ApiResource::erase::<Pod>(&()), Some("shop"));
    spawn_log_view(
        LogContext {
            client: e.client.clone(),
            tx,
            counters: counters.clone(),
            options,
        },
        pods,
        Some("shop".into()),
        filter,
        pick,
        cancel.clone(),
    );
    View {
        rx,
        cancel,
        counters,
    }
}

impl View {
    /// Events until `done` says so (hang guard only).
    async fn until(&mut self, seen: &mut Vec<LogEvent>, done: impl Fn(&[LogEvent]) -> bool) {
        let deadline = tokio::time::Instant::now() + HANG_GUARD;
        while !done(seen) {
            match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(ev)) => seen.push(ev),
                Ok(None) => panic!("channel closed; events so far: {seen:#?}"),
                Err(_) => panic!("timed out; events so far: {seen:#?}"),
            }
        }
    }

    /// Cancel, then wait for every task and connection to end.
    async fn close(mut self) {
        self.cancel.cancel();
        let deadline = tokio::time::Instant::now() + HANG_GUARD;
        // Keep draining so no sender stays blocked on a full channel.
        while self.counters.tasks() > 0 || self.counters.connections() > 0 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "leaked: {} tasks, {} connections",
                self.counters.tasks(),
                self.counters.connections()
            );
            let _ = tokio::time::timeout(Duration::from_millis(20), self.rx.recv()).await;
        }
    }
}

fn lines_of<'a>(events: &'a [LogEvent], pod: &str, container: &str) -> Vec<&'a LogLine> {
    events
        .iter()
        .filter_map(|e| match e {
            LogEvent::Lines { source, lines }
                if source.pod == pod && source.container == container =>
            {
                Some(lines.iter())
            }
            _ => None,
        })
        .flatten()
        .collect()
}

fn has_state(events: &[LogEvent], pod: &str, f: impl Fn(&SourceState) -> bool) -> bool {
    events
        .iter()
        .any(|e| matches!(e, LogEvent::State { source, state } if source.pod == pod && f(state)))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workload_view_picks_up_a_pod_created_mid_stream_and_marks_a_deleted_one() {
    if skip_on_real_cluster(
        "workload_view_picks_up_a_pod_created_mid_stream_and_marks_a_deleted_one",
    ) {
        return;
    }
    let e = env(20.0).await;
    let cluster = e.demo.cluster();
    cluster
        .create(
            pods_idx(),
            Some("shop"),
            pod_json("api-1", "api", running(5)),
        )
        .unwrap();
    cluster
        .create(
            pods_idx(),
            Some("shop"),
            pod_json("other-1", "other", running(5)),
        )
        .unwrap();
    let mut v = open(
        &e,
        PodFilter::Selector(LabelSelector::parse("app=api").unwrap()),
        ContainerPick::All,
        StreamOptions::default(),
    );
    let mut seen = Vec::new();
    v.until(&mut seen, |s| {
        !lines_of(s, "api-1", "main").is_empty() && !lines_of(s, "api-1", "sidecar").is_empty()
    })
    .await;
    // A rollout's new pod joins the running view.
    cluster
        .create(
            pods_idx(),
            Some("shop"),
            pod_json("api-2", "api", running(1)),
        )
        .unwrap();
    v.until(&mut seen, |s| !lines_of(s, "api-2", "main").is_empty())
        .await;
    // The deleted pod's streams end, with a marker.
    cluster
        .delete(
            pods_idx(),
            Some("shop"),
            "api-1",
            &kinformer::demo::cluster::DeleteOptions::now(),
        )
        .unwrap();
    v.until(&mut seen, |s| {
        s.iter()
            .any(|e| matches!(e, LogEvent::PodGone { pod, .. } if pod == "api-1"))
    })
    .await;
    assert!(
        lines_of(&seen, "other-1", "main").is_empty(),
        "a pod outside the selector streamed"
    );
    // api-2 keeps streaming after api-1 left.
    let before = lines_of(&seen, "api-2", "main").len();
    v.until(&mut seen, |s| {
        lines_of(s, "api-2", "main").len() > before + 5
    })
    .await;
    v.close().await;
    e.demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lost_connections_resume_from_the_last_line_without_duplicates_or_gaps() {
    if skip_on_real_cluster("lost_connections_resume_from_the_last_line_without_duplicates_or_gaps")
    {
        return;
    }
    let e = env(50.0).await;
    let cluster = e.demo.cluster();
    cluster
        .create(
            pods_idx(),
            Some("shop"),
            pod_json("api-1", "api", running(3)),
        )
        .unwrap();
    let mut v = open(
        &e,
        PodFilter::Name("api-1".into()),
        ContainerPick::One("main".into()),
        StreamOptions {
            tail_lines: None,
            ..StreamOptions::default()
        },
    );
    let mut seen = Vec::new();
    for round in 1..=3 {
        let n = lines_of(&seen, "api-1", "main").len();
        v.until(&mut seen, |s| lines_of(s, "api-1", "main").len() > n + 20)
            .await;
        // As an apiserver restart does: every open stream ends.
        e.demo.faults().drop_watches();
        let streaming = |s: &[LogEvent]| {
            s.iter()
                .filter(|e| {
                    matches!(
                        e,
                        LogEvent::State {
                            state: SourceState::Streaming,
                            ..
                        }
                    )
                })
                .count()
        };
        v.until(&mut seen, |s| streaming(s) > round).await;
    }
    let n = lines_of(&seen, "api-1", "main").len();
    v.until(&mut seen, |s| lines_of(s, "api-1", "main").len() > n + 20)
        .await;
    v.close().await;
    let got: Vec<(i64, String)> = lines_of(&seen, "api-1", "main")
        .into_iter()
        .map(|l| (l.ts_ns, l.text.clone()))
        .collect();
    // The whole log, read once: the streamed lines are exactly its first lines.
    let api: Api<Pod> = Api::namespaced(e.client.clone(), "shop");
    let whole = api
        .logs(
            "api-1",
            &LogParams {
                container: Some("main".into()),
                timestamps: true,
                ..LogParams::default()
            },
        )
        .await
        .unwrap();
    let want: Vec<(i64, String)> = whole
        .lines()
        .take(got.len())
        .map(|l| {
            let (ts, text) = kinformer::runtime::log_stream::split_timestamp(l);
            (ts, text.to_string())
        })
        .collect();
    assert_eq!(got.len(), want.len());
    let first_diff = got.iter().zip(&want).position(|(a, b)| a != b);
    assert_eq!(first_diff, None, "streamed lines differ from the log");
    e.demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_container_not_started_yet_streams_once_its_pod_says_it_runs() {
    if skip_on_real_cluster("a_container_not_started_yet_streams_once_its_pod_says_it_runs") {
        return;
    }
    let e = env(20.0).await;
    let cluster = e.demo.cluster();
    let creating = json!({"waiting": {"reason": "ContainerCreating"}});
    cluster
        .create(pods_idx(), Some("shop"), pod_json("api-1", "api", creating))
        .unwrap();
    let mut v = open(
        &e,
        PodFilter::Name("api-1".into()),
        ContainerPick::One("main".into()),
        StreamOptions::default(),
    );
    let mut seen = Vec::new();
    v.until(&mut seen, |s| {
        has_state(s, "api-1", |st| {
            matches!(st, SourceState::Waiting(m) if m.contains("is waiting to start: ContainerCreating"))
        })
    })
    .await;
    // The kubelet reports the container running: the informer's update starts the stream
    // (well before the waiting stream's fallback timer).
    let mut pod = pod_json("api-1", "api", running(0));
    pod["metadata"]["resourceVersion"] = json!(null);
    cluster
        .update(pods_idx(), Some("shop"), "api-1", pod, UpdateMode::Full)
        .unwrap();
    v.until(&mut seen, |s| !lines_of(s, "api-1", "main").is_empty())
        .await;
    v.close().await;
    e.demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_are_reported_and_end_the_stream() {
    if skip_on_real_cluster("refusals_are_reported_and_end_the_stream") {
        return;
    }
    let e = env(20.0).await;
    let cluster = e.demo.cluster();
    cluster
        .create(
            pods_idx(),
            Some("shop"),
            pod_json("api-1", "api", running(5)),
        )
        .unwrap();
    // No previous instance: the server's 400, then nothing.
    let mut v = open(
        &e,
        PodFilter::Name("api-1".into()),
        ContainerPick::One("main".into()),
        StreamOptions {
            previous: true,
            ..StreamOptions::default()
        },
    );
    let mut seen = Vec::new();
    v.until(&mut seen, |s| {
        has_state(s, "api-1", |st| {
            matches!(st, SourceState::Failed(m) if m.contains("previous terminated container \"main\""))
        })
    })
    .await;
    v.close().await;
    // 403 on pods/log.
    e.demo.faults().forbid("", "pods/log");
    let mut v = open(
        &e,
        PodFilter::Name("api-1".into()),
        ContainerPick::One("main".into()),
        StreamOptions::default(),
    );
    let mut seen = Vec::new();
    v.until(&mut seen, |s| {
        has_state(
            s,
            "api-1",
            |st| matches!(st, SourceState::Failed(m) if m.contains("forbidden")),
        )
    })
    .await;
    v.close().await;
    e.demo.shutdown().await;
}

/// The dashboard's whole log path against the demo server: `L` in the App emits `OpenLogs`, the
/// runtime's `LogFeeds` runs the streams and sends coalesced batches, the App shows them, `esc`
/// emits `CloseLogs` and afterwards no log task or connection is left. A 5,000 lines/s pod
/// (two containers) is coalesced into at most one batch — one frame — per `LOG_FRAME`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dashboard_log_screen_streams_through_the_runtime_and_leaves_nothing_after_close() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use kinformer::runtime::log_feeds::{LOG_FRAME, LogFeeds};
    use kinformer::ui::action::{Action, Effect, ObjectSummary};
    use kinformer::ui::app::Screen;
    use kinformer::ui::{App, AppConfig, KeyMap};
    use kube::api::DynamicObject;

    if skip_on_real_cluster(
        "dashboard_log_screen_streams_through_the_runtime_and_leaves_nothing_after_close",
    ) {
        return;
    }
    let e = env(2.0).await;
    let mut pod = pod_json("flood-1", "flood", running(2));
    pod["metadata"]["annotations"] = json!({ (kinformer::demo::logs::RATE_ANNOTATION): "5000" });
    e.demo
        .cluster()
        .create(pods_idx(), Some("shop"), pod)
        .unwrap();

    let mut app = App::new(
        AppConfig {
            namespace: Some("shop".into()),
            ..AppConfig::default()
        },
        KeyMap::defaults().unwrap(),
    );
    app.update(Action::Resize(160, 40));
    let first = app
        .init()
        .iter()
        .find_map(|f| match f {
            Effect::OpenResource { view, .. } => Some(*view),
            _ => None,
        })
        .unwrap();
    let api: Api<DynamicObject> =
        Api::namespaced_with(e.client.clone(), "shop", &ApiResource::erase::<Pod>(&()));
    let obj = Arc::new(api.get("flood-1").await.unwrap());
    let row = ObjectSummary::from_object("Pod", &obj, None).unwrap();
    app.update(Action::Resync {
        view: first,
        rows: vec![row],
    });

    let (app_tx, _app_rx) = mpsc::unbounded_channel();
    let (mut feeds, mut batches) = LogFeeds::new(
        e.client.clone(),
        e.factory.clone(),
        CancellationToken::new(),
    );
    let counters = feeds.counters();
    let fx = app.update(Action::Key(KeyEvent::new(
        KeyCode::Char('L'),
        KeyModifiers::SHIFT,
    )));
    let mut opened = 0;
    for f in &fx {
        opened += usize::from(feeds.carry_out(f, &app_tx));
    }
    assert_eq!(opened, 1, "{fx:?}");
    assert_eq!(feeds.open_views(), 1);

    let shown = |app: &App| match app.current_screen() {
        Some(Screen::Logs(l)) => l.view.len(),
        _ => 0,
    };
    // The runtime's loop: wait for a batch, take what else is queued, update, and draw one
    // frame if the app is dirty.
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    let mut frames = 0usize;
    let mut measured_from = None;
    let mut lines_at_start = 0;
    loop {
        let (view, batch) = tokio::time::timeout_at(deadline, batches.recv())
            .await
            .expect("log batches keep coming")
            .expect("channel open");
        app.update(Action::Log { view, batch });
        while let Ok((view, batch)) = batches.try_recv() {
            app.update(Action::Log { view, batch });
        }
        let dirty = app.take_dirty();
        // Measure once both containers stream (their tails are in).
        if measured_from.is_none() && shown(&app) >= 400 {
            measured_from = Some(tokio::time::Instant::now());
            lines_at_start = shown(&app);
            continue;
        }
        if let Some(t0) = measured_from {
            frames += usize::from(dirty);
            if t0.elapsed() >= Duration::from_secs(2) {
                break;
            }
        }
    }
    let elapsed = measured_from.unwrap().elapsed();
    let lines = shown(&app) - lines_at_start;
    let bound = (elapsed.as_millis() / LOG_FRAME.as_millis()) as usize + 1;
    println!(
        "{lines} lines in {elapsed:?} arrived in {frames} frames (bound {bound}, frame {LOG_FRAME:?})"
    );
    assert!(
        lines > 1_000,
        "the flood must really flow: {lines} lines in {elapsed:?}"
    );
    assert!(
        frames <= bound,
        "{frames} frames for {lines} lines in {elapsed:?}: more than one per {LOG_FRAME:?}"
    );

    let fx = app.update(Action::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)));
    assert!(
        fx.iter().any(|f| matches!(f, Effect::CloseLogs { .. })),
        "{fx:?}"
    );
    for f in &fx {
        feeds.carry_out(f, &app_tx);
    }
    assert_eq!(feeds.open_views(), 0);
    let deadline = tokio::time::Instant::now() + HANG_GUARD;
    while counters.tasks() > 0 || counters.connections() > 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "leaked after close: {} tasks, {} connections",
            counters.tasks(),
            counters.connections()
        );
        // Keep draining so no forwarder stays blocked on a full channel.
        let _ = tokio::time::timeout(Duration::from_millis(20), batches.recv()).await;
    }
    e.demo.shutdown().await;
}
