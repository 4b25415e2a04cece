//! The runtime while a shell or an editor has the terminal (the frame loop reads no action):
//! under heavy churn nothing queues up for the app, and once it reads again its table shows the
//! informer's current state and its event log the latest entries, with no task left over.
//! Against the demo server over real HTTP; `HANG_GUARD` only turns a hang into a failure.
//!
//! With `KINFORMER_TEST_KUBECONFIG` set these tests skip: the churn is written straight into
//! the demo cluster (50,000 writes through a real API server would be a load test).

mod runtime_support;

use std::collections::HashMap;
use std::time::Duration;

use kinformer::app_main::DemoSpec;
use kinformer::demo::DemoCluster;
use kinformer::demo::mutation::{Mutation, ResourceId};
use kinformer::ui::App;
use kinformer::ui::action::Action;
use kinformer::ui::event_log::EVENT_LOG_CAPACITY;
use kinformer::ui::table::Mark;
use runtime_support::{Setup, headless_on_demo, skip_on_real_cluster};
use serde_json::Value;

const HANG_GUARD: Duration = Duration::from_secs(120);
const PODS: usize = 200;
const CHANGES: usize = 50_000;
/// Pods deleted and as many created while suspended.
const REPLACED: usize = 20;

fn real_cluster(test: &str) -> bool {
    skip_on_real_cluster(test, "writes its churn straight into the demo cluster")
}

async fn setup() -> Setup {
    headless_on_demo(
        &DemoSpec {
            port: 0,
            pods: PODS,
            nodes: Some(3),
            churn_per_sec: 0.0,
            seed: 11,
            // The whole churn fits the watch cache: the informer follows it without a relist.
            history: CHANGES * 2,
            metrics: false,
            namespace_user: None,
            pod_shape: kinformer::demo::realistic::PodShape::Compact,
            watch_list_unsupported: false,
            log_lines_per_second: 0.0,
        },
        Duration::from_secs(60),
    )
    .await
}

/// Keys and resourceVersions of the shown pods view's live rows (struck deleted rows left out).
fn table_rvs(app: &App) -> HashMap<String, String> {
    let view = app.current_view().expect("a view");
    view.table
        .entries()
        .filter(|e| e.mark != Mark::Deleted)
        .map(|e| {
            let rv = e.summary.object.metadata.resource_version.clone();
            (e.summary.key.to_string(), rv.unwrap_or_default())
        })
        .collect()
}

/// Keys and resourceVersions the view's informer holds.
fn store_rvs(app: &App) -> HashMap<String, String> {
    let view = app.current_view().expect("a view");
    let store = view.store.as_ref().expect("the view's store");
    store
        .list()
        .iter()
        .filter_map(|o| {
            let key = format!(
                "{}/{}",
                o.metadata.namespace.as_deref()?,
                o.metadata.name.as_deref()?
            );
            Some((key, o.metadata.resource_version.clone().unwrap_or_default()))
        })
        .collect()
}

impl Setup {
    async fn apply(&mut self, action: Action) {
        for e in self.app.update(action) {
            self.rt.carry_out(e).await;
        }
    }

    /// Feed the app until `done` holds; returns how many actions it took.
    async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) -> usize {
        let mut n = 0;
        let r = tokio::time::timeout(HANG_GUARD, async {
            while !done(&self.app) {
                let a = self.rt.next_action().await.expect("runtime gone");
                self.apply(a).await;
                n += 1;
            }
        })
        .await;
        assert!(r.is_ok(), "never: {what}");
        n
    }

    /// Feed the app what is queued until nothing arrives for `quiet`.
    async fn settle(&mut self, quiet: Duration) {
        while let Ok(a) = tokio::time::timeout(quiet, self.rt.next_action()).await {
            let a = a.expect("runtime gone");
            self.apply(a).await;
        }
    }
}

/// `CHANGES` writes straight into the demo cluster: relabels of the pods, round robin, with
/// `REPLACED` pods deleted and as many created among them. Returns the created pods' keys.
fn churn(cluster: &DemoCluster) -> Vec<String> {
    let pods = ResourceId::new("", "v1", "pods");
    let mut objects: Vec<Value> = cluster.list(&pods, None);
    assert!(
        objects.len() >= PODS,
        "the demo seeded {} pods",
        objects.len()
    );
    let mut created = Vec::new();
    for i in 0..CHANGES {
        if i % (CHANGES / REPLACED) == 0 && created.len() < REPLACED {
            let gone = objects.remove(0);
            let ns = gone["metadata"]["namespace"].as_str().map(str::to_string);
            let name = gone["metadata"]["name"].as_str().expect("name").to_string();
            cluster
                .apply(Mutation::Delete {
                    resource: pods,
                    namespace: ns.clone(),
                    name: name.clone(),
                })
                .expect("delete");
            let mut fresh = gone;
            let new_name = format!("{name}-again-{i}");
            let meta = fresh["metadata"].as_object_mut().expect("metadata");
            meta.insert("name".into(), Value::from(new_name.clone()));
            for field in ["uid", "resourceVersion", "creationTimestamp"] {
                meta.remove(field);
            }
            let stored = cluster
                .apply(Mutation::Create {
                    resource: pods,
                    object: fresh,
                })
                .expect("create");
            created.push(format!("{}/{new_name}", ns.unwrap_or_default()));
            objects.push(stored);
            continue;
        }
        let at = i % objects.len();
        let mut object = objects[at].clone();
        let meta = object["metadata"].as_object_mut().expect("metadata");
        meta.remove("resourceVersion");
        let labels = meta
            .entry("labels")
            .or_insert_with(|| Value::Object(Default::default()));
        labels["churn"] = Value::from(i.to_string());
        objects[at] = cluster
            .apply(Mutation::Update {
                resource: pods,
                object,
            })
            .expect("update");
    }
    created
}

fn alive_tasks() -> usize {
    tokio::runtime::Handle::current()
        .metrics()
        .num_alive_tasks()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspended_dashboard_queues_nothing_under_churn_and_shows_the_informers_state_after() {
    if real_cluster("a_suspended_dashboard_queues_nothing_under_churn") {
        return;
    }
    let mut s = setup().await;
    s.until("the pods view shows every pod", |app| {
        app.current_view().is_some_and(|v| {
            v.resource.api_resource.plural == "pods"
                && v.store.as_ref().is_some_and(|st| st.len() >= PODS)
                && v.table.total() >= PODS
        })
    })
    .await;
    s.settle(Duration::from_millis(1500)).await;
    let tasks_before = alive_tasks();
    let tap = s.rt.factory().tap();

    s.rt.suspend();
    let queued_before = s.rt.queued();
    let cluster = s.demo.handle.cluster();
    let started = std::time::Instant::now();
    // Off the runtime's workers: the informers follow meanwhile.
    let created = tokio::task::spawn_blocking(move || churn(&cluster))
        .await
        .expect("churn");
    let churn_time = started.elapsed();
    let target_rv = s.demo.handle.cluster().resource_version().to_string();
    // The informer has every change (its store is what the table must show on return).
    let r = tokio::time::timeout(HANG_GUARD, async {
        loop {
            let store = s.app.current_view().and_then(|v| v.store.clone());
            let caught_up = store.is_some_and(|st| {
                created.iter().all(|k| st.contains_key(k))
                    && st
                        .list()
                        .iter()
                        .any(|o| o.metadata.resource_version.as_deref() == Some(&target_rv))
            });
            if caught_up {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(r.is_ok(), "the informer never saw the churn");
    // Longer than the stats' second and the tap's frame: what would be sent has been.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let queued = s.rt.queued();
    let tasks_suspended = alive_tasks();
    println!(
        "{CHANGES} changes in {churn_time:?} while suspended: {} actions queued \
         (before: {queued_before}); tasks {tasks_before} → {tasks_suspended}; tap at seq {}",
        queued,
        tap.latest_seq()
    );
    assert!(
        queued <= queued_before + 2,
        "{queued} actions queued while suspended (before: {queued_before})"
    );
    assert!(
        tasks_suspended <= tasks_before,
        "tasks grew while suspended: {tasks_before} → {tasks_suspended}"
    );

    s.rt.resume();
    let actions = s
        .until("the table shows the informer's state", |app| {
            let store = store_rvs(app);
            store.len() >= PODS && table_rvs(app) == store
        })
        .await;
    println!("after resuming: {actions} actions until the table equals the store");
    assert!(
        actions < 100,
        "{actions} actions replayed after resuming (a backlog)"
    );
    let newest = tap.latest_seq();
    s.until("the event log reaches the tap's newest entry", |app| {
        app.events.shown().next().map(|e| e.seq) == Some(newest)
    })
    .await;
    let seqs: Vec<u64> = s.app.events.shown().map(|e| e.seq).collect();
    assert_eq!(
        seqs.len(),
        EVENT_LOG_CAPACITY,
        "the event log keeps its bound"
    );
    assert!(
        seqs.windows(2).all(|w| w[0] == w[1] + 1),
        "the event log holds the latest entries without a gap"
    );
    s.settle(Duration::from_millis(1500)).await;
    let tasks_after = alive_tasks();
    assert!(
        tasks_after <= tasks_before,
        "tasks left over after resuming: {tasks_before} → {tasks_after}"
    );
    s.rt.shutdown().await;
    s.demo.stop().await;
}
