//! The xray through the runtime (informers, view feeds; no terminal) against the demo server
//! over real HTTP: `:xray` opens its feeds through the access-checked path, the tree fills from
//! their indexers, and a rollout of the demo's churn shows up in place (a new ReplicaSet under
//! its Deployment, filling with pods). No assertion on elapsed time; `HANG_GUARD` only turns a
//! hang into a failure.
//!
//! With `KINFORMER_TEST_KUBECONFIG` set the rollout test skips: it waits for the demo
//! simulator's rollouts, which a real cluster does not run by itself.

mod runtime_support;

use std::collections::HashSet;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::app_main::DemoSpec;
use kinformer::ui::App;
use kinformer::ui::action::Action;
use kinformer::ui::app::Screen;
use kinformer::ui::xray::{NodeKind, XKind, XNode};
use runtime_support::{Setup, headless_on_demo};

const HANG_GUARD: Duration = Duration::from_secs(90);

/// (deployment id, ReplicaSet id, pods under it) for every ReplicaSet of the tree.
fn replicasets(app: &App) -> Vec<(String, String, u32)> {
    let Some(Screen::Xray(x)) = app.current_screen() else {
        return Vec::new();
    };
    x.model
        .roots()
        .flat_map(|d: &XNode| {
            d.children
                .iter()
                .filter(|c| c.kind == NodeKind::Object(XKind::ReplicaSet))
                .map(move |rs| (d.id.to_string(), rs.id.to_string(), rs.total))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demo_rollout_shows_up_in_the_xray_tree_as_a_new_replicaset_filling() {
    if std::env::var("KINFORMER_TEST_KUBECONFIG").is_ok() {
        println!("skipping: waits for the demo simulator's rollouts");
        return;
    }
    let Setup {
        mut app,
        mut rt,
        demo: _demo,
        ..
    } = headless_on_demo(
        &DemoSpec {
            port: 0,
            pods: 60,
            nodes: Some(3),
            churn_per_sec: 150.0,
            seed: 11,
            history: 10_000,
            metrics: false,
            namespace_user: None,
            pod_shape: kinformer::demo::realistic::PodShape::Compact,
            watch_list_unsupported: false,
            log_lines_per_second: 0.0,
        },
        Duration::from_secs(30),
    )
    .await;
    let mut keys: Vec<Action> = ":xray"
        .chars()
        .map(|c| Action::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)))
        .collect();
    keys.push(Action::Key(KeyEvent::new(
        KeyCode::Enter,
        KeyModifiers::NONE,
    )));
    for k in keys {
        for e in app.update(k) {
            rt.carry_out(e).await;
        }
    }
    assert!(matches!(app.current_screen(), Some(Screen::Xray(_))));

    let factory = rt.factory().clone();
    // Feed the app (with the once-a-second tick the runtime sends, here faster) until `done`.
    let mut feed = async |app: &mut App, what: &str, done: &dyn Fn(&App) -> bool| {
        let r = tokio::time::timeout(HANG_GUARD, async {
            let mut now = 1_000_000i64;
            while !done(app) {
                tokio::select! {
                    a = rt.next_action() => {
                        for e in app.update(a.expect("runtime gone")) {
                            rt.carry_out(e).await;
                        }
                    }
                    _ = tokio::time::sleep(Duration::from_millis(100)) => {
                        now += 1000;
                        app.update(Action::Tick(now));
                    }
                }
            }
        })
        .await;
        assert!(r.is_ok(), "never: {what}");
    };
    // `before` is taken once the tree's informers have synced and their rows have reached the
    // tree: a ReplicaSet of the initial lists still arriving must not count as a new one.
    feed(&mut app, "the tree holds the deployments' pods", &|app| {
        factory.informers().iter().all(|(_, i)| i.has_synced())
            && replicasets(app)
                .iter()
                .filter(|(_, _, pods)| *pods > 0)
                .count()
                >= 3
    })
    .await;
    let settled = std::time::Instant::now() + Duration::from_millis(500);
    feed(&mut app, "the initial rows reach the tree", &|_| {
        std::time::Instant::now() >= settled
    })
    .await;
    let before: HashSet<String> = replicasets(&app).into_iter().map(|(_, rs, _)| rs).collect();
    feed(
        &mut app,
        "a new ReplicaSet with pods under its deployment",
        &|app| {
            replicasets(app)
                .iter()
                .any(|(_, rs, pods)| !before.contains(rs) && *pods > 0)
        },
    )
    .await;
    let (deploy, new_rs, _) = replicasets(&app)
        .into_iter()
        .find(|(_, rs, pods)| !before.contains(rs) && *pods > 0)
        .expect("new rs");
    // The deployment's tree also still holds its old ReplicaSet (draining, or drained).
    let siblings = replicasets(&app)
        .into_iter()
        .filter(|(d, rs, _)| *d == deploy && *rs != new_rs)
        .count();
    assert!(siblings >= 1, "{deploy}: only {new_rs}");
    rt.shutdown().await;
}
