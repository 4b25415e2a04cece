//! The dashboard (App + runtime, no terminal) against the demo server as a namespace-scoped
//! user: `jane` may get/list/watch pods, events and configmaps in namespace `bench` only.
//!
//! Demo-only: it needs that user, and does not set up RBAC on the cluster
//! `KINFORMER_TEST_KUBECONFIG` names (each test prints why it skips there).

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, Pod};
use kinformer::cluster::Connection;
use kinformer::demo::rbac::NamespaceUser;
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::informer::factory::InformerKey;
use kinformer::runtime::Headless;
use kinformer::ui::action::Action;
use kinformer::ui::{App, AppConfig, KeyMap};
use kube::api::{Api, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use serde_json::json;

fn skip_on_real_cluster(test: &str) -> bool {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!(
            "skipping {test}: needs a namespace-scoped user; the test does not set up RBAC on the cluster KINFORMER_TEST_KUBECONFIG names"
        );
        return true;
    }
    false
}

/// The demo server with `jane`, namespace `bench` holding two pods (made by the unrestricted
/// context), and a connection as jane (the kubeconfig's current context).
async fn jane_on_demo() -> (DemoHandle, Connection) {
    let h = DemoServer::start(DemoOptions {
        namespace_user: Some(NamespaceUser::new("jane", "bench")),
        ..DemoOptions::default()
    })
    .await
    .unwrap();
    let kc = Kubeconfig::from_yaml(&h.kubeconfig_yaml()).unwrap();
    let admin_opts = KubeConfigOptions {
        context: Some("kinformer-demo".into()),
        ..KubeConfigOptions::default()
    };
    let admin = kube::Client::try_from(
        kube::Config::from_custom_kubeconfig(kc.clone(), &admin_opts)
            .await
            .unwrap(),
    )
    .unwrap();
    let nss: Api<Namespace> = Api::all(admin.clone());
    nss.create(
        &PostParams::default(),
        &serde_json::from_value(json!({"metadata": {"name": "bench"}})).unwrap(),
    )
    .await
    .unwrap();
    let pods: Api<Pod> = Api::namespaced(admin, "bench");
    for name in ["web-0", "web-1"] {
        pods.create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": name},
                "spec": {"containers": [{"name": "c", "image": "pause"}]}}))
            .unwrap(),
        )
        .await
        .unwrap();
    }
    let conn = Connection::from_kubeconfig(kc, "test".into(), None)
        .await
        .unwrap();
    assert_eq!(conn.default_namespace, "bench");
    (h, conn)
}

struct Dash {
    app: App,
    rt: Headless,
}

impl Dash {
    /// The dashboard as `kinformer -A` would start for jane: all namespaces first, the
    /// context's namespace `bench` to fall back to.
    async fn start(conn: Connection) -> Dash {
        let now = chrono::Utc::now().timestamp_millis();
        let mut app = App::new(
            AppConfig {
                context: conn.context.clone(),
                namespace: None,
                resource: "pods".into(),
                now_ms: now,
                context_namespace: Some(conn.default_namespace.clone()),
                ..AppConfig::default()
            },
            KeyMap::defaults().unwrap(),
        );
        app.update(Action::Resize(140, 30));
        let mut rt = Headless::start(conn, Duration::from_secs(15));
        for fx in app.init() {
            rt.carry_out(fx).await;
        }
        Dash { app, rt }
    }

    async fn apply(&mut self, action: Action) {
        for fx in self.app.update(action) {
            self.rt.carry_out(fx).await;
        }
    }

    /// Feed the runtime's actions to the app until `done` holds (panics after 20 s).
    async fn until(&mut self, what: &str, done: impl Fn(&Dash) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while !done(self) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; informers {:?}; screen:\n{}",
                self.informer_keys(),
                self.screen()
            );
            if let Ok(Some(a)) =
                tokio::time::timeout(Duration::from_millis(100), self.rt.next_action()).await
            {
                self.apply(a).await;
            }
        }
    }

    async fn command(&mut self, line: &str) {
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let key = |c| Action::Key(KeyEvent::new(c, KeyModifiers::NONE));
        self.apply(key(KeyCode::Char(':'))).await;
        for c in line.chars() {
            self.apply(key(KeyCode::Char(c))).await;
        }
        self.apply(key(KeyCode::Enter)).await;
    }

    fn informer_keys(&self) -> Vec<String> {
        self.rt
            .factory()
            .informers()
            .iter()
            .map(|(k, _)| k.to_string())
            .collect()
    }

    fn rows(&self) -> Vec<String> {
        self.app
            .current_view()
            .map(|v| v.table.list().iter().map(|k| k.to_string()).collect())
            .unwrap_or_default()
    }

    fn screen(&self) -> String {
        let (w, h) = self.app.size;
        let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).unwrap();
        t.draw(|f| f.render_widget(&self.app, f.area())).unwrap();
        let buf = t.backend().buffer();
        let mut out = String::new();
        for y in 0..buf.area.height {
            for x in 0..buf.area.width {
                out.push_str(buf[(x, y)].symbol());
            }
            out.push('\n');
        }
        out
    }
}

fn pods_key(ns: Option<&str>) -> InformerKey {
    InformerKey::new(&kube::discovery::ApiResource::erase::<Pod>(&()), ns)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn namespace_scoped_user_sees_its_pods_and_a_plain_forbidden_view_without_useless_informers()
{
    if skip_on_real_cluster(
        "namespace_scoped_user_sees_its_pods_and_a_plain_forbidden_view_without_useless_informers",
    ) {
        return;
    }
    let (h, conn) = jane_on_demo().await;
    let mut d = Dash::start(conn).await;
    // All namespaces is denied, `bench` allowed: the view moves there and shows its pods.
    d.until("the pods of bench", |d| {
        d.app.namespace.as_deref() == Some("bench") && d.rows() == ["bench/web-0", "bench/web-1"]
    })
    .await;
    let msg = d.app.message.clone().map(|m| m.0).unwrap_or_default();
    assert_eq!(
        msg,
        "listing pods in all namespaces is forbidden for user jane: showing namespace bench"
    );
    // Only what she may have runs: no all-namespaces pods informer, no namespaces informer.
    let keys = d.rt.factory().informers();
    assert_eq!(
        keys.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
        vec![pods_key(Some("bench"))],
        "{:?}",
        d.informer_keys()
    );
    assert_eq!(d.rt.factory().running(), 1);

    d.command("deploy").await;
    d.until("the forbidden deployments view", |d| {
        d.app.current_view().is_some_and(|v| v.denial.is_some())
    })
    .await;
    let screen = d.screen();
    assert!(
        screen.contains("listing deployments is forbidden for user jane in namespace bench"),
        "{screen}"
    );
    let flat = |t: &str| t.replace(['│', '\n', ' '], "");
    assert!(
        flat(&screen).contains(&flat("deployments.apps is forbidden: User \"jane\" cannot list resource \"deployments\" in API group \"apps\" in the namespace \"bench\"")),
        "{screen}"
    );
    for transient in ["backing off", "syncing"] {
        assert!(!screen.contains(transient), "{transient:?}: {screen}");
    }
    assert_eq!(d.rt.factory().running(), 1, "{:?}", d.informer_keys());
    d.rt.shutdown().await;
    h.shutdown().await;
}

/// Without access reviews (the server refuses them), informers open unchecked and the 403
/// tells; the fallback to `bench` then stops the all-namespaces pods informer it replaced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_access_reviews_the_fallback_stops_the_forbidden_all_namespaces_informer() {
    if skip_on_real_cluster(
        "without_access_reviews_the_fallback_stops_the_forbidden_all_namespaces_informer",
    ) {
        return;
    }
    let (h, conn) = jane_on_demo().await;
    h.faults()
        .forbid("authorization.k8s.io", "selfsubjectaccessreviews");
    let mut d = Dash::start(conn).await;
    // Opened unchecked: the all-namespaces pods informer runs and gets its 403.
    d.until("the all-namespaces informer", |d| {
        d.rt.factory()
            .informers()
            .iter()
            .any(|(k, _)| *k == pods_key(None))
    })
    .await;
    d.until("the pods of bench", |d| {
        d.app.namespace.as_deref() == Some("bench") && d.rows() == ["bench/web-0", "bench/web-1"]
    })
    .await;
    let keys: Vec<InformerKey> =
        d.rt.factory()
            .informers()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
    assert!(!keys.contains(&pods_key(None)), "stopped: {keys:?}");
    assert!(keys.contains(&pods_key(Some("bench"))));
    // What runs: pods in bench, and the namespaces informer its (open) view still asks for.
    assert_eq!(d.rt.factory().running(), keys.len());
    assert_eq!(keys.len(), 2, "{keys:?}");

    // A forbidden informer is shown as forbidden with its slow retry, and ctrl-r lists again
    // at once with a fresh informer.
    d.command("cm").await;
    d.until("configmaps of bench (allowed)", |d| {
        d.app.current_view().is_some_and(|v| v.synced)
    })
    .await;
    d.command("deploy").await;
    let deploys = InformerKey::new(
        &kube::discovery::ApiResource::erase::<k8s_openapi::api::apps::v1::Deployment>(&()),
        Some("bench"),
    );
    d.until("the deployments informer's 403", |d| {
        d.app.informers.iter().any(|r| {
            r.resource == "deployments.apps"
                && matches!(
                    r.state,
                    kinformer::ui::action::InformerState::Forbidden { .. }
                )
        })
    })
    .await;
    let screen = d.screen();
    assert!(
        screen.contains("listing deployments is forbidden for user jane in namespace bench"),
        "{screen}"
    );
    assert!(screen.contains("forbidden, retry in"), "{screen}");
    assert!(!screen.contains("backing off"), "{screen}");
    let before =
        d.rt.factory()
            .informers()
            .into_iter()
            .find(|(k, _)| *k == deploys)
            .map(|(_, i)| i)
            .expect("deployments informer");
    d.apply(Action::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char('r'),
        crossterm::event::KeyModifiers::CONTROL,
    )))
    .await;
    d.until("a fresh deployments informer that listed again", |d| {
        d.rt.factory().informers().iter().any(|(k, i)| {
            *k == deploys
                && !std::sync::Arc::ptr_eq(i, &before)
                && i.reflector_status()
                    .is_some_and(|s| s.borrow().last_error.is_some())
        })
    })
    .await;
    assert!(!before.is_running(), "the old informer was stopped");
    d.rt.shutdown().await;
    h.shutdown().await;
}

/// Namespace `shop` with pod `cart-0`, made by the unrestricted context (jane may not see it),
/// and a connection as that context.
async fn shop_and_admin(h: &DemoHandle) -> Connection {
    let kc = Kubeconfig::from_yaml(&h.kubeconfig_yaml()).unwrap();
    let admin = Connection::from_kubeconfig(kc, "test".into(), Some("kinformer-demo".into()))
        .await
        .unwrap();
    let nss: Api<Namespace> = Api::all(admin.client.clone());
    for ns in ["shop", "other"] {
        nss.create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap(),
        )
        .await
        .unwrap();
        let pods: Api<Pod> = Api::namespaced(admin.client.clone(), ns);
        pods.create(
            &PostParams::default(),
            &serde_json::from_value(json!({"metadata": {"name": "cart-0"},
                "spec": {"containers": [{"name": "c", "image": "pause"}]}}))
            .unwrap(),
        )
        .await
        .unwrap();
    }
    admin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_namespaces_with_one_forbidden_show_the_allowed_one_and_name_the_other() {
    if skip_on_real_cluster(
        "several_namespaces_with_one_forbidden_show_the_allowed_one_and_name_the_other",
    ) {
        return;
    }
    let (h, conn) = jane_on_demo().await;
    shop_and_admin(&h).await;
    let mut d = Dash::start(conn).await;
    d.until("the pods of bench", |d| {
        d.rows() == ["bench/web-0", "bench/web-1"]
    })
    .await;
    d.command("ns bench,shop").await;
    d.until("bench's pods under the two-namespace scope", |d| {
        d.app
            .current_view()
            .is_some_and(|v| v.namespace.as_deref() == Some("bench,shop") && v.served.is_some())
            && d.rows() == ["bench/web-0", "bench/web-1"]
            && d.app
                .message
                .as_ref()
                .is_some_and(|m| m.0.starts_with("namespace shop"))
    })
    .await;
    let v = d.app.current_view().unwrap();
    assert_eq!(
        v.served.as_deref(),
        Some("one pods informer per namespace (bench); forbidden in shop")
    );
    assert!(v.denial.is_none());
    let msg = d.app.message.clone().map(|m| m.0).unwrap_or_default();
    assert!(
        msg.starts_with("namespace shop: ") && msg.ends_with("; showing bench"),
        "{msg}"
    );
    assert!(msg.contains("forbidden"), "{msg}");
    // Not across namespaces (she may not): the one informer she may have.
    assert_eq!(
        d.rt.factory()
            .informers()
            .into_iter()
            .map(|(k, _)| k)
            .collect::<Vec<_>>(),
        vec![pods_key(Some("bench"))]
    );
    let screen = d.screen();
    assert!(screen.contains("NAMESPACE"), "{screen}");
    assert!(screen.contains("Pods(bench,shop)"), "{screen}");
    d.rt.shutdown().await;
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_namespaces_a_user_may_list_across_share_one_all_namespaces_informer() {
    if skip_on_real_cluster(
        "several_namespaces_a_user_may_list_across_share_one_all_namespaces_informer",
    ) {
        return;
    }
    let (h, _) = jane_on_demo().await;
    let admin = shop_and_admin(&h).await;
    let mut d = Dash::start(admin).await;
    d.command("ns bench,shop").await;
    d.until("the pods of bench and shop only", |d| {
        d.app.current_view().is_some_and(|v| v.served.is_some())
            && d.rows() == ["bench/web-0", "bench/web-1", "shop/cart-0"]
    })
    .await;
    assert_eq!(
        d.app.current_view().unwrap().served.as_deref(),
        Some("one all-namespaces pods informer, rows of bench,shop only")
    );
    let keys: Vec<InformerKey> =
        d.rt.factory()
            .informers()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
    assert!(keys.contains(&pods_key(None)), "{keys:?}");
    assert!(!keys.contains(&pods_key(Some("bench"))), "{keys:?}");
    // The informer panel says which.
    d.command("informers").await;
    let screen = d.screen();
    assert!(
        screen.contains("Scope: bench,shop │ one all-namespaces pods informer"),
        "{screen}"
    );
    d.rt.shutdown().await;
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeline_whose_events_are_forbidden_gets_the_servers_403_message() {
    if skip_on_real_cluster("a_timeline_whose_events_are_forbidden_gets_the_servers_403_message") {
        return;
    }
    let (_h, conn) = jane_on_demo().await;
    let mut d = Dash::start(conn).await;
    // A node's timeline (as from the event log): its Events are in all namespaces, where
    // jane may not list Events. Asked every second, as the open timeline does.
    let fetch = || kinformer::ui::action::Effect::FetchHistory {
        resource: "nodes".into(),
        key: "kind-worker".into(),
        kind: "Node".into(),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    let why = 'found: loop {
        assert!(
            Instant::now() < deadline,
            "no reason given for the missing Events"
        );
        d.rt.carry_out(fetch()).await;
        let until = Instant::now() + Duration::from_millis(200);
        while let Ok(Some(a)) = tokio::time::timeout(
            until.saturating_duration_since(Instant::now()),
            d.rt.next_action(),
        )
        .await
        {
            if let Action::History {
                events,
                events_unavailable: Some(why),
                ..
            } = &a
            {
                assert!(events.is_empty());
                break 'found why.clone();
            }
            d.apply(a).await;
        }
    };
    assert_eq!(
        why,
        r#"events is forbidden: User "jane" cannot list resource "events" in API group "" at the cluster scope"#
    );
}
