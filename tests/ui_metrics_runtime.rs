//! Issue 14 through the runtime (informers, view feeds, metrics hub; no terminal) against the
//! demo server over real HTTP: a pods view gets usage from the first poll, closing the view ends
//! its poller, and the pulse's feeds and node metrics come and go with it.
//! No assertion on elapsed time; `HANG_GUARD` only turns a hang into a failure.
//!
//! With `KINFORMER_TEST_KUBECONFIG` set these tests skip: whether a real cluster runs
//! metrics-server, and what it reports, is not ours to assert.

mod runtime_support;

use std::collections::HashMap;
use std::time::Duration;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use kinformer::app_main::DemoSpec;
use kinformer::render::metrics::UsageCell;
use kinformer::ui::App;
use kinformer::ui::action::Action;
use kinformer::ui::action::NodePods;
use kinformer::ui::app::Screen;
use kinformer::ui::metrics::MetricsScope;
use kinformer::ui::usage::view_usage;
use runtime_support::{Setup, headless_on_demo, skip_on_real_cluster};

const HANG_GUARD: Duration = Duration::from_secs(60);
/// A short poll period: the test waits for polls, never for metrics-server's 15 s.
const PERIOD: Duration = Duration::from_millis(300);

fn real_cluster(test: &str) -> bool {
    skip_on_real_cluster(test, "asserts the demo metrics-server's behaviour")
}

async fn setup() -> Setup {
    headless_on_demo(
        &DemoSpec {
            port: 0,
            pods: 60,
            nodes: Some(3),
            churn_per_sec: 0.0,
            seed: 5,
            history: 10_000,
            metrics: true,
            namespace_user: None,
            pod_shape: kinformer::demo::realistic::PodShape::Compact,
            watch_list_unsupported: false,
            log_lines_per_second: 2.0,
        },
        PERIOD,
    )
    .await
}

impl Setup {
    async fn apply(&mut self, action: Action) {
        for e in self.app.update(action) {
            self.rt.carry_out(e).await;
        }
    }

    /// Feed the app until `done` holds.
    async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let r = tokio::time::timeout(HANG_GUARD, async {
            while !done(&self.app) {
                let a = self.rt.next_action().await.expect("runtime gone");
                self.apply(a).await;
            }
        })
        .await;
        assert!(r.is_ok(), "never: {what}");
    }

    async fn keys(&mut self, s: &str) {
        for c in s.chars() {
            let m = if c.is_ascii_uppercase() {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::NONE
            };
            self.apply(Action::Key(KeyEvent::new(KeyCode::Char(c), m)))
                .await;
        }
    }

    async fn key(&mut self, code: KeyCode) {
        self.apply(Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
            .await;
    }

    /// Wait (feeding the app meanwhile) until no metrics poller task runs.
    async fn until_no_poller(&mut self) {
        let r = tokio::time::timeout(HANG_GUARD, async {
            while self.rt.live_metrics_tasks() > 0 {
                tokio::select! {
                    a = self.rt.next_action() => {
                        let a = a.expect("runtime gone");
                        self.apply(a).await;
                    }
                    _ = tokio::time::sleep(Duration::from_millis(10)) => {}
                }
            }
        })
        .await;
        assert!(r.is_ok(), "a metrics poller outlived its views");
    }
}

/// Rows of the current table whose CPU cell has a value.
fn rows_with_usage(app: &App) -> usize {
    let Some(v) = app.current_view() else {
        return 0;
    };
    let Some((kind, joined)) = view_usage(&app.metrics, app.node_pods.as_ref(), None, v) else {
        return 0;
    };
    let cpu = kind.columns().iter().position(|c| *c == "CPU").unwrap_or(0);
    v.table
        .entries()
        .filter(|e| kind.cells(&e.summary, Some(&joined))[cpu] != UsageCell::NotAvailable)
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pods_view_gets_usage_from_the_poller_and_closing_it_ends_the_poller() {
    if real_cluster("pods_view_gets_usage_from_the_poller_and_closing_it_ends_the_poller") {
        return;
    }
    let mut s = setup().await;
    s.until("pods listed", |a| {
        a.current_view().is_some_and(|v| v.table.total() >= 60)
    })
    .await;
    assert_eq!(s.rt.metrics_scopes(), vec![MetricsScope::Pods(None)]);
    assert_eq!(s.rt.live_metrics_tasks(), 1, "one poller for the view");
    s.until("usage in the pods table", |a| rows_with_usage(a) > 0)
        .await;

    // :no — the pods view closes (its poller ends), the nodes view polls node metrics.
    s.keys(":no").await;
    s.key(KeyCode::Enter).await;
    assert_eq!(s.rt.metrics_scopes(), vec![MetricsScope::Nodes]);
    s.until("node usage", |a| rows_with_usage(a) == 3).await;
    // PODS: the non-terminated pods per node, from the shared pods informer's node index; the
    // counts agree with a walk over every cached pod.
    s.until(
        "pods counted per node",
        |a| matches!(&a.node_pods, Some(NodePods::Counts(c)) if c.values().sum::<u64>() >= 60),
    )
    .await;
    let Some(NodePods::Counts(counts)) = s.app.node_pods.clone() else {
        panic!("no counts")
    };
    let pods =
        s.rt.factory()
            .informers()
            .into_iter()
            .find(|(k, _)| k.short_label() == "pods")
            .expect("pods informer")
            .1;
    let mut walked: HashMap<String, u64> = HashMap::new();
    for p in pods.indexer().list() {
        let node = kinformer::informer::index::dynamic_pod_node(&p.data);
        let phase = p.data.pointer("/status/phase").and_then(|v| v.as_str());
        if let Some(node) = node
            && !matches!(phase, Some("Succeeded" | "Failed"))
        {
            *walked.entry(node.to_string()).or_default() += 1;
        }
    }
    assert_eq!(*counts, walked);

    // d on a node: describe ends with its pods' requests and its usage against allocatable.
    s.keys("d").await;
    s.until(
        "the node's describe text",
        |a| matches!(a.current_screen(), Some(Screen::Text(t)) if t.lines.is_some()),
    )
    .await;
    let Some(Screen::Text(t)) = s.app.current_screen() else {
        panic!("no text screen")
    };
    let text = t
        .lines
        .clone()
        .expect("loaded")
        .expect("describe ok")
        .join("\n");
    assert!(text.contains("Resources (pods on the node"), "{text}");
    let pods_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("Pods:"))
        .expect("pods line");
    assert!(
        !pods_line.contains(" 0/"),
        "pods on the node counted: {pods_line}"
    );
    assert!(text.contains("Requests:    cpu "), "{text}");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with("Usage:       cpu ") && l.contains("%)")),
        "{text}"
    );
    s.key(KeyCode::Esc).await;

    // :deploy — no view shows usage: no poller task is left.
    s.keys(":deploy").await;
    s.key(KeyCode::Enter).await;
    assert!(s.rt.metrics_scopes().is_empty());
    s.until_no_poller().await;
    assert_eq!(s.rt.live_metrics_tasks(), 0);
    s.rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pulse_counts_from_its_feeds_and_its_node_poller_ends_with_it() {
    if real_cluster("pulse_counts_from_its_feeds_and_its_node_poller_ends_with_it") {
        return;
    }
    let mut s = setup().await;
    s.keys(":deploy").await;
    s.key(KeyCode::Enter).await;
    s.until_no_poller().await;

    s.keys("P").await;
    assert!(matches!(s.app.current_screen(), Some(Screen::Pulse)));
    assert_eq!(s.rt.metrics_scopes(), vec![MetricsScope::Nodes]);
    s.until("the pulse counts pods and nodes and has node usage", |a| {
        a.pulse.as_ref().is_some_and(|p| {
            let c = p.pulse.counts();
            c.pods >= 60 && c.nodes == 3 && c.deployments > 0 && p.pulse.cluster_usage().is_some()
        })
    })
    .await;

    // Enter on the pods tile opens pods (a second poller, for pod metrics); Esc closes it.
    s.key(KeyCode::Enter).await;
    assert!(s.rt.metrics_scopes().contains(&MetricsScope::Pods(None)));
    s.key(KeyCode::Esc).await;
    assert_eq!(s.rt.metrics_scopes(), vec![MetricsScope::Nodes]);
    // Esc leaves the pulse: its feeds close and the node poller ends.
    s.key(KeyCode::Esc).await;
    assert!(s.app.pulse.is_none());
    assert!(s.rt.metrics_scopes().is_empty());
    s.until_no_poller().await;
    s.rt.shutdown().await;
}
