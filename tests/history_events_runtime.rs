//! Issue 30, Events in the timeline, through the runtime (informers, effects; no terminal):
//! `h` on a pod starts an events informer for its namespace (none ran), the timeline lists the
//! pod's Events (the server's answer to a list of Events about its uid), an Event created
//! while the timeline is open appears in it, and closing the timeline stops the informer.
//!
//! On the demo server by default; with `KINFORMER_TEST_KUBECONFIG` set, on that cluster (it
//! creates one Event about a pod in the pod's namespace and deletes it at the end).
//! No assertion on elapsed time; `HANG_GUARD` only turns a hang into a failure.

mod runtime_support;

use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use k8s_openapi::api::core::v1::{Event, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use kinformer::app_main::DemoSpec;
use kinformer::cluster::{ConnectOptions, Connection};
use kinformer::runtime::Headless;
use kinformer::ui::action::Action;
use kinformer::ui::app::Screen;
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::{Api, DeleteParams, ListParams, PostParams};
use runtime_support::{Setup, headless_on_demo};

const HANG_GUARD: Duration = Duration::from_secs(60);

struct Env {
    app: App,
    rt: Headless,
    client: kube::Client,
    _demo: Option<kinformer::app_main::RunningDemo>,
}

async fn setup() -> Env {
    if let Ok(path) = std::env::var("KINFORMER_TEST_KUBECONFIG") {
        let conn = Connection::open(&ConnectOptions {
            kubeconfig: Some(path.into()),
            context: None,
        })
        .await
        .expect("connect");
        let resources = conn.discover().await.expect("discovery");
        let client = conn.client.clone();
        let mut app = App::new(
            AppConfig {
                namespace: None,
                ..AppConfig::default()
            },
            KeyMap::defaults().expect("keys"),
        );
        app.update(Action::Discovery(resources));
        let mut rt = Headless::start(conn, Duration::from_secs(60));
        for e in app.init() {
            rt.carry_out(e).await;
        }
        return Env {
            app,
            rt,
            client,
            _demo: None,
        };
    }
    let Setup { app, rt, demo, .. } = headless_on_demo(
        &DemoSpec {
            port: 0,
            pods: 20,
            nodes: Some(2),
            churn_per_sec: 0.0,
            seed: 7,
            history: 10_000,
            metrics: false,
            namespace_user: None,
            pod_shape: kinformer::demo::realistic::PodShape::Compact,
            watch_list_unsupported: false,
            log_lines_per_second: 0.0,
        },
        Duration::from_secs(60),
    )
    .await;
    let kc =
        kube::config::Kubeconfig::from_yaml(&demo.handle.kubeconfig_yaml()).expect("kubeconfig");
    let config =
        kube::Config::from_custom_kubeconfig(kc, &kube::config::KubeConfigOptions::default())
            .await
            .expect("config");
    let client = kube::Client::try_from(config).expect("demo client");
    Env {
        app,
        rt,
        client,
        _demo: Some(demo),
    }
}

impl Env {
    async fn apply(&mut self, action: Action) {
        for e in self.app.update(action) {
            self.rt.carry_out(e).await;
        }
    }

    /// Feed the app (and tick it every 100 ms, as the frame loop does) until `done` holds.
    async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let mut tick = tokio::time::interval(Duration::from_millis(100));
        let r = tokio::time::timeout(HANG_GUARD, async {
            while !done(&self.app) {
                tokio::select! {
                    a = self.rt.next_action() => {
                        let a = a.expect("runtime gone");
                        self.apply(a).await;
                    }
                    _ = tick.tick() => {
                        let now = chrono::Utc::now().timestamp_millis();
                        self.apply(Action::Tick(now)).await;
                    }
                }
            }
        })
        .await;
        assert!(r.is_ok(), "never: {what}");
    }

    async fn key(&mut self, code: KeyCode) {
        self.apply(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
            .await;
    }

    /// Names of events informers running (key labels).
    fn events_informers(&self) -> Vec<String> {
        self.rt
            .factory()
            .informers()
            .into_iter()
            .filter(|(k, _)| k.plural == "events")
            .map(|(k, _)| k.to_string())
            .collect()
    }
}

/// The timeline's Event names, when the timeline is on top.
fn timeline_events(app: &App) -> Vec<String> {
    match app.current_screen() {
        Some(Screen::History(h)) => h.events.iter().map(|e| e.name.clone()).collect(),
        _ => Vec::new(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeline_of_a_pod_lists_its_events_and_a_new_one_while_open() {
    let mut s = setup().await;
    s.until("pods listed", |a| {
        a.current_view()
            .is_some_and(|v| v.resource.api_resource.plural == "pods" && v.table.total() > 0)
    })
    .await;
    let obj = s
        .app
        .current_view()
        .and_then(|v| v.table.selected())
        .map(|e| e.summary.object.clone())
        .expect("a selected pod");
    let ns = obj.metadata.namespace.clone().expect("namespaced");
    let name = obj.metadata.name.clone().expect("named");
    let uid = obj.metadata.uid.clone().expect("uid");
    // What the server says are its Events (kubectl describe's question, answered client-side).
    let events: Api<Event> = Api::namespaced(s.client.clone(), &ns);
    let mut known: Vec<String> = events
        .list(&ListParams::default())
        .await
        .expect("list events")
        .items
        .into_iter()
        .filter(|e| e.involved_object.uid.as_deref() == Some(uid.as_str()))
        .filter_map(|e| e.metadata.name)
        .collect();
    known.sort();
    let before = s.events_informers();

    s.apply(Action::Key(KeyEvent::new(
        KeyCode::Char('h'),
        KeyModifiers::NONE,
    )))
    .await;
    assert!(matches!(s.app.current_screen(), Some(Screen::History(_))));
    let scoped = format!("v1/events in {ns}");
    if before.is_empty() {
        assert_eq!(s.events_informers(), vec![scoped.clone()]);
    }
    s.until("the pod's Events in its timeline", |a| {
        let mut got = timeline_events(a);
        got.sort();
        known.iter().all(|k| got.contains(k))
    })
    .await;

    // Live: an Event about the pod created while the timeline is open shows up in it.
    let new_name = format!(
        "{name}.kinformer-test-{}",
        chrono::Utc::now().timestamp_millis()
    );
    let now = Time(k8s_openapi::jiff::Timestamp::now());
    events
        .create(
            &PostParams::default(),
            &Event {
                metadata: ObjectMeta {
                    name: Some(new_name.clone()),
                    namespace: Some(ns.clone()),
                    ..ObjectMeta::default()
                },
                involved_object: ObjectReference {
                    api_version: Some("v1".into()),
                    kind: Some("Pod".into()),
                    name: Some(name.clone()),
                    namespace: Some(ns.clone()),
                    uid: Some(uid.clone()),
                    ..ObjectReference::default()
                },
                reason: Some("KinformerTest".into()),
                message: Some("made by the history events test".into()),
                type_: Some("Warning".into()),
                count: Some(3),
                first_timestamp: Some(now.clone()),
                last_timestamp: Some(now),
                ..Event::default()
            },
        )
        .await
        .expect("create the event");
    s.until("the new Event in the timeline", |a| {
        timeline_events(a).contains(&new_name)
    })
    .await;
    let Some(Screen::History(h)) = s.app.current_screen() else {
        panic!("timeline not on top")
    };
    let e = h
        .events
        .iter()
        .find(|e| e.name == new_name)
        .expect("listed");
    assert!(e.is_warning());
    assert_eq!(
        e.summary(),
        "KinformerTest: made by the history events test ×3"
    );

    // Closing the timeline stops the informer it started.
    s.key(KeyCode::Esc).await;
    assert!(!matches!(s.app.current_screen(), Some(Screen::History(_))));
    assert_eq!(s.events_informers(), before);
    events
        .delete(&new_name, &DeleteParams::default())
        .await
        .expect("delete the event");
}
