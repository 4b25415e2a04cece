//! Issue 42, the flight recorder through the runtime: the dashboard recording the demo
//! (`--record FILE`: the recorder fed by the same informers as the live history), then the
//! recording replayed (`kinformer replay`'s backend) shows the same past rows as the live
//! dashboard at several recorded instants; and a `kinformer record` killed with SIGKILL while
//! writing leaves a file that opens and replays.
//!
//! No assertion on elapsed time; `HANG_GUARD` only turns a hang into a failure.

use std::sync::Arc;
use std::time::Duration;

use kinformer::app_main::{DemoSpec, start_demo};
use kinformer::cluster::{ConnectOptions, Connection};
use kinformer::informer::history::PastView;
use kinformer::recorder::{Recorder, RecorderOptions, Recording, SessionInfo};
use kinformer::runtime::Headless;
use kinformer::runtime::replay::ReplayBackend;
use kinformer::ui::action::{Action, Effect, ObjectSummary};
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::{Api, DynamicObject, ListParams};

const HANG_GUARD: Duration = Duration::from_secs(120);

/// Each row's key and the table cells the pods table prints for it.
fn printed(past: &PastView) -> Vec<(String, Vec<String>)> {
    past.rows
        .iter()
        .map(|r| {
            let s = ObjectSummary::with_key("Pod", r.key.clone(), &r.object, None).expect("row");
            (
                r.key.to_string(),
                s.row.cells.iter().map(|c| format!("{c:?}")).collect(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replay_of_a_demo_recording_shows_the_live_dashboards_past_rows_at_several_instants() {
    let demo = start_demo(&DemoSpec {
        port: 0,
        pods: 60,
        nodes: Some(3),
        churn_per_sec: 40.0,
        seed: 11,
        history: 10_000,
        metrics: false,
        namespace_user: None,
        pod_shape: kinformer::demo::realistic::PodShape::Compact,
        watch_list_unsupported: false,
        log_lines_per_second: 0.0,
    })
    .await
    .expect("demo");
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    demo.handle
        .write_kubeconfig(&kubeconfig)
        .expect("kubeconfig");
    let conn = Connection::open(&ConnectOptions {
        kubeconfig: Some(kubeconfig),
        context: None,
    })
    .await
    .expect("connect");
    let resources = conn.discover().await.expect("discovery");
    let client = conn.client.clone();
    let file = dir.path().join("rec.db");
    let recorder = Arc::new(
        Recorder::open(
            &file,
            SessionInfo {
                cluster: "demo".into(),
                context: conn.context.clone(),
                server_version: None,
                kinds: vec!["dashboard".into()],
            },
            RecorderOptions::default(),
        )
        .expect("recorder"),
    );
    let mut app = App::new(
        AppConfig {
            namespace: None,
            ..AppConfig::default()
        },
        KeyMap::defaults().expect("keys"),
    );
    app.update(Action::Discovery(resources));
    let mut rt = Headless::start_recording(conn, Duration::from_secs(60), Some(recorder.clone()));
    for e in app.init() {
        rt.carry_out(e).await;
    }
    let view = app.current_view_id().expect("the pods view");
    let run = async {
        // Churn until history holds a few dozen updates past the first list.
        while rt.history().stats().versions < 120 {
            let Some(a) = rt.next_action().await else {
                break;
            };
            for e in app.update(a) {
                rt.carry_out(e).await;
            }
        }
        demo.churn.abort();
        demo.scales.abort();
        // Caught up: the informer holds every pod at the server's resourceVersion.
        let pods: Api<DynamicObject> = Api::all_with(
            client.clone(),
            &kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
        );
        let informer = rt
            .factory()
            .informers()
            .into_iter()
            .find(|(k, _)| k.plural == "pods")
            .map(|(_, i)| i)
            .expect("pods informer");
        loop {
            let server: std::collections::BTreeMap<String, String> = pods
                .list(&ListParams::default())
                .await
                .expect("list")
                .items
                .iter()
                .map(|p| {
                    (
                        format!(
                            "{}/{}",
                            p.metadata.namespace.clone().unwrap_or_default(),
                            p.metadata.name.clone().unwrap_or_default()
                        ),
                        p.metadata.resource_version.clone().unwrap_or_default(),
                    )
                })
                .collect();
            let cached: std::collections::BTreeMap<String, String> = informer
                .indexer()
                .list()
                .iter()
                .map(|p| {
                    (
                        format!(
                            "{}/{}",
                            p.metadata.namespace.clone().unwrap_or_default(),
                            p.metadata.name.clone().unwrap_or_default()
                        ),
                        p.metadata.resource_version.clone().unwrap_or_default(),
                    )
                })
                .collect();
            if server == cached {
                break;
            }
            let Some(a) = rt.next_action().await else {
                break;
            };
            for e in app.update(a) {
                rt.carry_out(e).await;
            }
        }
        recorder.flush();
        let times = rt.history().change_times("pods", None);
        assert!(times.len() > 10, "{} instants", times.len());
        // Opened as `kinformer replay` opens it: every view read from the file at its instant.
        let replay = ReplayBackend::open(&file).expect("replays");
        assert_eq!(
            replay.recording.change_times("pods").expect("times"),
            times,
            "the same instants to step through"
        );
        let picks: Vec<i64> = [0, times.len() / 4, times.len() / 2, times.len() * 3 / 4]
            .into_iter()
            .chain([times.len() - 1])
            .map(|i| times[i])
            .collect();
        for at in picks.iter().flat_map(|t| [*t, t + 1, t - 1]) {
            // What the live dashboard's `:at` shows (the runtime's answer to the app).
            rt.carry_out(Effect::FetchPastView {
                view,
                resource: "pods".into(),
                namespace: None,
                at_ms: at,
            })
            .await;
            let live = loop {
                match rt.next_action().await {
                    Some(Action::PastView { view: v, past, .. }) if v == view => break past,
                    Some(_) => {}
                    None => panic!("runtime gone"),
                }
            };
            let replayed = replay.past_view("pods", None, at);
            assert_eq!(live.at_ms, replayed.at_ms);
            assert_eq!(printed(&live), printed(&replayed), "at {at}");
            assert!(!live.rows.is_empty());
        }
    };
    tokio::time::timeout(HANG_GUARD, run)
        .await
        .expect("no hang");
    rt.shutdown().await;
    recorder.finish();
    demo.handle.shutdown().await;
}

#[test]
fn a_record_killed_with_sigkill_while_writing_leaves_a_file_that_opens_and_replays() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("killed.db");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_kinformer"))
        .args([
            "record",
            "--demo",
            "--demo-pods",
            "200",
            "--demo-churn",
            "200",
            "--quiet",
        ])
        .arg("--out")
        .arg(&file)
        .arg("--log-file")
        .arg(dir.path().join("log"))
        .stdin(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // Wait for committed versions (a reader sees only committed batches), then a few more
    // batches so the kill lands while it writes.
    let deadline = std::time::Instant::now() + HANG_GUARD;
    let committed = || -> i64 {
        Recording::open(&file)
            .ok()
            .and_then(|r| {
                r.connection()
                    .query_row("SELECT COUNT(*) FROM versions", [], |x| x.get(0))
                    .ok()
            })
            .unwrap_or(0)
    };
    let mut first = 0;
    while std::time::Instant::now() < deadline {
        let n = committed();
        if first == 0 && n > 0 {
            first = n;
        }
        if first > 0 && n > first {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        first > 0,
        "the recorder committed something before the deadline"
    );
    child.kill().expect("SIGKILL");
    child.wait().expect("reaped");
    let rec = Recording::open(&file).expect("opens after kill -9");
    let sessions = rec.sessions().expect("sessions");
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].ended_ms, None, "killed: never ended");
    let h = kinformer::informer::history::History::with_mib(64);
    let loaded = rec.load(&h, |_, _| {}).expect("loads");
    assert!(loaded.versions >= first as u64 && loaded.unreadable == 0);
    assert!(loaded.end.get("pods").is_some_and(|p| !p.is_empty()));
}

/// The versions recorded of the pod `name` (its delta types, oldest first).
fn recorded_deltas(file: &std::path::Path, name: &str) -> Vec<String> {
    let Ok(rec) = Recording::open(file) else {
        return Vec::new();
    };
    rec.connection()
        .prepare(
            "SELECT v.delta FROM versions v JOIN objects o ON o.id = v.object_id
             WHERE o.kind = 'Pod' AND o.name = ?1 ORDER BY v.id",
        )
        .and_then(|mut s| {
            s.query_map([name], |r| r.get::<_, String>(0))?
                .collect::<rusqlite::Result<Vec<String>>>()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_dashboards_recording_keeps_a_deletion_only_a_relist_finds() {
    let demo = start_demo(&DemoSpec {
        port: 0,
        pods: 5,
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
    demo.churn.abort();
    demo.scales.abort();
    let cluster = demo.handle.cluster();
    let faults = demo.handle.faults();
    // The etcd backup holds no pod `doomed`; the informers see it created after.
    faults.save_snapshot(&cluster);
    let dir = tempfile::tempdir().expect("tmp");
    let kubeconfig = dir.path().join("kubeconfig");
    demo.handle
        .write_kubeconfig(&kubeconfig)
        .expect("kubeconfig");
    let conn = Connection::open(&ConnectOptions {
        kubeconfig: Some(kubeconfig),
        context: None,
    })
    .await
    .expect("connect");
    let resources = conn.discover().await.expect("discovery");
    let file = dir.path().join("rec.db");
    let recorder = Arc::new(
        Recorder::open(
            &file,
            SessionInfo {
                cluster: "demo".into(),
                context: conn.context.clone(),
                server_version: None,
                kinds: vec!["dashboard".into()],
            },
            RecorderOptions::default(),
        )
        .expect("recorder"),
    );
    let mut app = App::new(
        AppConfig {
            namespace: None,
            ..AppConfig::default()
        },
        KeyMap::defaults().expect("keys"),
    );
    app.update(Action::Discovery(resources));
    let mut rt = Headless::start_recording(conn, Duration::from_secs(60), Some(recorder.clone()));
    for e in app.init() {
        rt.carry_out(e).await;
    }
    let run = async {
        // Until the recording holds `deltas` (or more) of `doomed`, driving the app meanwhile.
        async fn until(
            rt: &mut Headless,
            app: &mut App,
            recorder: &Recorder,
            file: &std::path::Path,
            done: impl Fn(&[String]) -> bool,
        ) {
            loop {
                recorder.flush();
                if done(&recorded_deltas(file, "doomed")) {
                    return;
                }
                tokio::select! {
                    a = rt.next_action() => {
                        for e in app.update(a.expect("runtime")) {
                            rt.carry_out(e).await;
                        }
                    }
                    _ = tokio::time::sleep(Duration::from_millis(20)) => {}
                }
            }
        }
        cluster
            .apply(kinformer::demo::mutation::Mutation::Create {
                resource: kinformer::demo::objects::PODS,
                object: serde_json::json!({"apiVersion": "v1", "kind": "Pod",
                    "metadata": {"name": "doomed", "namespace": "default"},
                    "spec": {"containers": [{"name": "c", "image": "busybox"}]}}),
            })
            .expect("create");
        until(&mut rt, &mut app, &recorder, &file, |d| !d.is_empty()).await;
        // etcd restored from the backup under the watches: the relist finds `doomed` gone.
        assert!(faults.restore_snapshot(&cluster));
        until(&mut rt, &mut app, &recorder, &file, |d| {
            d.last().is_some_and(|l| l == "Deleted")
        })
        .await;
        let mut replay = ReplayBackend::open(&file).expect("replays");
        assert!(
            replay
                .end_objects("pods", None)
                .iter()
                .all(|o| o.metadata.name.as_deref() != Some("doomed")),
            "the replay's end holds no deleted pod"
        );
    };
    tokio::time::timeout(HANG_GUARD, run)
        .await
        .expect("the recording holds the relist's deletion");
    rt.shutdown().await;
    recorder.finish();
    demo.handle.shutdown().await;
}

/// 2026-12-07 03:00:00 UTC.
const T0: i64 = 1_796_612_400_000;

fn on_node(kind: &str, name: &str, rv: u64) -> DynamicObject {
    let body = if kind == "Node" {
        serde_json::json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "uid": format!("uid-{name}"),
                         "resourceVersion": rv.to_string()},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}})
    } else {
        serde_json::json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "shop", "uid": format!("uid-{name}"),
                         "resourceVersion": rv.to_string(),
                         "creationTimestamp": "2026-12-07T02:00:00Z"},
            "spec": {"nodeName": "node-1", "containers": [{"name": "web", "image": "web:1"}]},
            "status": {"phase": "Running",
                       "containerStatuses": [{"name": "web", "ready": true, "restartCount": 0}]}})
    };
    serde_json::from_value(body).expect("an object")
}

/// A recording of node-1 and its pods: alpha and bravo from 03:00, charlie from 03:03, alpha
/// deleted at 03:04; the end is 03:05.
fn node_recording(dir: &std::path::Path) -> std::path::PathBuf {
    use kinformer::informer::delta_fifo::DeltaType;
    let file = dir.join("node.db");
    let r = Recorder::open(
        &file,
        SessionInfo {
            cluster: "demo".into(),
            context: "demo".into(),
            server_version: None,
            kinds: vec!["pods".into(), "nodes".into()],
        },
        RecorderOptions::default(),
    )
    .expect("recorder");
    let (pods, nodes) = (
        kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
        kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Node>(&()),
    );
    r.kind_seen(&pods);
    r.kind_seen(&nodes);
    let label = |s: &str| -> Arc<str> { Arc::from(s) };
    let steps = [
        (0, "Node", "node-1", 1, DeltaType::Replaced),
        (0, "Pod", "web-alpha", 2, DeltaType::Replaced),
        (0, "Pod", "web-bravo", 3, DeltaType::Replaced),
        (180, "Pod", "web-charlie", 4, DeltaType::Added),
        (240, "Pod", "web-alpha", 5, DeltaType::Deleted),
        (300, "Pod", "web-bravo", 6, DeltaType::Updated),
    ];
    for (s, kind, name, rv, delta) in steps {
        let resource = if kind == "Node" { "nodes" } else { "pods" };
        r.observe_at(
            &label(resource),
            &label(kind),
            &on_node(kind, name, rv),
            Some(delta),
            T0 + s * 1000,
        );
    }
    r.finish();
    file
}

/// A replay of `file` as `kinformer replay` opens it (120×30, the pods table).
fn replay_app(file: &std::path::Path) -> (ReplayBackend, App) {
    let mut backend = ReplayBackend::open(file).expect("replays");
    let mut app = backend.app(
        Some("pods"),
        None,
        KeyMap::defaults().expect("keys"),
        Arc::new(kinformer::config::UserConfig::default()),
    );
    app.update(Action::Resize(120, 30));
    let mut fx = app.update(Action::Discovery(backend.resources.clone()));
    fx.extend(app.init());
    for e in fx {
        assert!(backend.carry_out(&mut app, e));
    }
    (backend, app)
}

/// Type `:line` and Enter, as the replay's loop does (its cursor follows the instant shown).
fn command(backend: &mut ReplayBackend, app: &mut App, line: &str) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let keys = std::iter::once(KeyCode::Char(':'))
        .chain(line.chars().map(KeyCode::Char))
        .chain(std::iter::once(KeyCode::Enter));
    for code in keys {
        for e in app.update(Action::Key(KeyEvent::new(code, KeyModifiers::NONE))) {
            assert!(backend.carry_out(app, e));
        }
    }
    backend.cursor = app.replay_instant().filter(|a| *a < backend.span().1);
}

fn screen_text(app: &App) -> String {
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(app.size.0, app.size.1))
            .expect("terminal");
    terminal
        .draw(|f| f.render_widget(&*app, f.area()))
        .expect("draw");
    let buf = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            out.push_str(buf[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

#[test]
fn an_xray_in_a_replay_shows_the_instant_viewed_not_the_end() {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut backend, mut app) = replay_app(&node_recording(dir.path()));
    command(&mut backend, &mut app, "at 03:01");
    assert_eq!(app.replay_instant(), Some(T0 + 60_000));
    command(&mut backend, &mut app, "xray node");
    let text = screen_text(&app);
    assert!(
        text.contains("web-alpha") && text.contains("web-bravo"),
        "the pods on node-1 at 03:01:\n{text}"
    );
    assert!(
        !text.contains("web-charlie"),
        "charlie came at 03:03:\n{text}"
    );
}

#[test]
fn choosing_an_instant_while_a_replay_plays_pauses_there() {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    let dir = tempfile::tempdir().expect("tmp");
    let (mut backend, mut app) = replay_app(&node_recording(dir.path()));
    let space = KeyEvent::new(KeyCode::Char(' '), KeyModifiers::NONE);
    for e in app.replay_key(&space).expect("space plays") {
        assert!(backend.carry_out(&mut app, e));
    }
    assert_eq!(app.replay.as_ref().and_then(|r| r.speed), Some(1));
    command(&mut backend, &mut app, "at 03:01");
    assert_eq!(app.replay.as_ref().and_then(|r| r.speed), None, "paused");
    for e in app.replay_advance(10_000) {
        assert!(backend.carry_out(&mut app, e));
    }
    assert_eq!(
        app.replay_instant(),
        Some(T0 + 60_000),
        "the next tick leaves the instant chosen"
    );
}

#[test]
fn a_replay_counts_at_back_from_its_end_and_never_past_it() {
    let dir = tempfile::tempdir().expect("tmp");
    let (mut backend, mut app) = replay_app(&node_recording(dir.path()));
    let end = backend.span().1;
    assert_eq!(end, T0 + 300_000);
    // Ten minutes of wall clock in the replay.
    for e in app.update(Action::Tick(end + 600_000)) {
        assert!(backend.carry_out(&mut app, e));
    }
    command(&mut backend, &mut app, "at -1m");
    assert_eq!(app.replay_instant(), Some(end - 60_000));
    command(&mut backend, &mut app, "at 03:07");
    assert_eq!(
        app.replay_instant(),
        Some(end - 60_000),
        "03:07 is after the recording's end: refused"
    );
    let text = screen_text(&app);
    assert!(
        text.contains("AS OF 03:04:00 (−1m0s)"),
        "ago counts from the end:\n{text}"
    );
}
