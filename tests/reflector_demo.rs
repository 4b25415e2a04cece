//! The reflector against the demo API server over real HTTP, through `KubeListerWatcher` and into
//! a real `DeltaFifo`: a paged list (more than two pages) or a streaming list, then live watch
//! events. No assertion on elapsed time; `HANG_GUARD` only turns a hang into a failure.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kinformer::demo::mutation::{Mutation, ResourceId};
use kinformer::demo::{DemoOptions, DemoServer};
use kinformer::informer::delta_fifo::{DeltaFifo, DeltaFifoOptions, DeltaType};
use kinformer::informer::list_watch::{KubeListerWatcher, ListerWatcher, client_for_informers};
use kinformer::informer::reflector::{Reflector, ReflectorConfig, ReflectorState};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const HANG_GUARD: Duration = Duration::from_secs(60);
const CONFIGMAPS: ResourceId = ResourceId {
    group: "",
    version: "v1",
    plural: "configmaps",
};
const NAMESPACES: ResourceId = ResourceId {
    group: "",
    version: "v1",
    plural: "namespaces",
};

fn configmap(ns: &str, name: &str) -> serde_json::Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
           "metadata": {"name": name, "namespace": ns}, "data": {"k": name}})
}

fn last_delta(fifo: &DeltaFifo<ConfigMap>, key: &str) -> Option<DeltaType> {
    fifo.get_by_key(key)
        .and_then(|d| d.last().map(|delta| delta.kind))
}

async fn list_then_watch(streaming: bool) {
    const N: usize = 1203; // three pages of 500
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo server");
    let cluster = demo.cluster();
    for ns in ["refl", "other"] {
        let _ = cluster.apply(Mutation::Create {
            resource: NAMESPACES,
            object: json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}),
        });
    }
    for i in 0..N {
        cluster
            .apply(Mutation::Create {
                resource: CONFIGMAPS,
                object: configmap("refl", &format!("cm-{i}")),
            })
            .expect("seed");
    }
    cluster
        .apply(Mutation::Create {
            resource: CONFIGMAPS,
            object: configmap("other", "elsewhere"),
        })
        .expect("seed other namespace");

    let url = demo.base_url().parse().expect("url");
    let client = client_for_informers(kube::Config::new(url)).expect("client");
    let lw = Arc::new(KubeListerWatcher::<ConfigMap>::typed(client, Some("refl")));
    let fifo = Arc::new(DeltaFifo::new(DeltaFifoOptions::default()));
    let reflector = Reflector::new(
        lw.clone(),
        fifo.clone(),
        ReflectorConfig {
            kind: "v1/ConfigMap".into(),
            use_streaming_list: streaming,
            ..ReflectorConfig::default()
        },
    );
    let mut status = reflector.status();
    let cancel = CancellationToken::new();
    let task = tokio::spawn(reflector.run(cancel.clone()));

    tokio::time::timeout(
        HANG_GUARD,
        status.wait_for(|s| s.lists == 1 && s.state == ReflectorState::Watching),
    )
    .await
    .expect("synced in time")
    .expect("status channel open");
    let synced = status.borrow().clone();
    assert_eq!(synced.last_error, None, "no fallback, no retry: {synced:?}");
    assert_eq!(synced.relists, 0);
    assert_eq!(synced.malformed, 0);
    let keys = fifo.list_keys();
    assert_eq!(keys.len(), N);
    // The list's progress counted its body: every object's JSON went by (each well over 100
    // bytes), so the count is at least that.
    let read = lw.received_bytes().expect("counted");
    assert!(read > 100 * N as u64, "{read} bytes for {N} objects");
    assert!(keys.iter().all(|k| k.starts_with("refl/")));
    assert_eq!(last_delta(&fifo, "refl/cm-1202"), Some(DeltaType::Replaced));

    cluster
        .apply(Mutation::Create {
            resource: CONFIGMAPS,
            object: configmap("refl", "late"),
        })
        .expect("create");
    cluster
        .apply(Mutation::Delete {
            resource: CONFIGMAPS,
            namespace: Some("refl".into()),
            name: "cm-0".into(),
        })
        .expect("delete");
    tokio::time::timeout(HANG_GUARD, async {
        while last_delta(&fifo, "refl/late") != Some(DeltaType::Added)
            || last_delta(&fifo, "refl/cm-0") != Some(DeltaType::Deleted)
        {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("watch events arrive");
    let after = status.borrow().clone();
    assert_eq!(after.lists, 1, "watch events must not cause a relist");
    assert!(after.events >= 2);
    assert_eq!(
        after.last_sync_resource_version,
        cluster.resource_version().to_string()
    );

    cancel.cancel();
    tokio::time::timeout(HANG_GUARD, task)
        .await
        .expect("reflector stops")
        .expect("reflector task");
    assert_eq!(status.borrow().state, ReflectorState::Stopped);
    demo.shutdown().await;
}

#[tokio::test]
async fn paged_list_then_watch_against_demo_server() {
    list_then_watch(false).await;
}

#[tokio::test]
async fn streaming_list_then_watch_against_demo_server() {
    list_then_watch(true).await;
}

/// `KubeListerWatcher` requests a paged list's next page while the current one is decoded; the
/// prefetched page is the one the pager asks for next, and any other request (a restarted list,
/// another page size) gets its own answer.
#[tokio::test]
async fn prefetched_next_page_is_used_only_for_the_request_it_answers() {
    use kinformer::informer::list_watch::{ListOptions, ListerWatcher};
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo server");
    let cluster = demo.cluster();
    let _ = cluster.apply(Mutation::Create {
        resource: NAMESPACES,
        object: json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "pf"}}),
    });
    for i in 0..25 {
        cluster
            .apply(Mutation::Create {
                resource: CONFIGMAPS,
                object: configmap("pf", &format!("cm-{i:02}")),
            })
            .expect("seed");
    }
    let url = demo.base_url().parse().expect("url");
    let client = client_for_informers(kube::Config::new(url)).expect("client");
    let lw = KubeListerWatcher::<ConfigMap>::typed(client.clone(), Some("pf"));
    let names = |items: &[ConfigMap]| -> Vec<String> {
        items
            .iter()
            .map(|c| c.metadata.name.clone().unwrap_or_default())
            .collect()
    };
    // A consistent read (RV ""): paged by the server (at RV "0" a watch cache ignores `limit`).
    let first = ListOptions {
        limit: Some(10),
        resource_version: Some(String::new()),
        ..ListOptions::default()
    };
    // Walk the pages as the reflector's pager does: every page once, in order.
    let mut all = Vec::new();
    let mut opts = first.clone();
    loop {
        let page = tokio::time::timeout(HANG_GUARD, lw.list(&opts))
            .await
            .expect("hang")
            .expect("page");
        all.extend(names(&page.items));
        match page.continue_token {
            Some(t) => {
                opts = ListOptions {
                    continue_token: Some(t),
                    resource_version: None,
                    ..first.clone()
                }
            }
            None => break,
        }
    }
    let expected: Vec<String> = (0..25).map(|i| format!("cm-{i:02}")).collect();
    assert_eq!(all, expected);
    // A page 1 (which prefetches page 2), then a different request: it is answered for itself.
    let page1 = lw.list(&first).await.expect("page 1");
    assert_eq!(page1.items.len(), 10);
    let bigger = ListOptions {
        limit: Some(20),
        ..first.clone()
    };
    let other = lw.list(&bigger).await.expect("other list");
    assert_eq!(names(&other.items), expected[..20].to_vec());
    // And the same page twice in a row is the same page (the prefetch of page 2 is not it).
    let again = lw.list(&bigger).await.expect("again");
    assert_eq!(names(&again.items), expected[..20].to_vec());
}

/// The recovery probe over real HTTP: `GET /readyz` answers while the demo server serves, fails
/// with a connection error while it restarts, and answers again once it is back.
#[tokio::test]
async fn the_recovery_probe_follows_the_demo_server_through_a_restart() {
    use kinformer::informer::Error;
    use kinformer::informer::list_watch::ListerWatcher;
    let handle = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo server");
    let url = handle.base_url().parse().expect("url");
    let client = client_for_informers(kube::Config::new(url)).expect("client");
    let lw = KubeListerWatcher::<ConfigMap>::typed(client, Some("default"));
    let probe = || async { lw.probe().expect("KubeListerWatcher probes").await };
    assert_eq!(probe().await, Ok(()));
    assert!(handle.faults().restart(Duration::from_secs(2)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let down = probe().await;
    assert!(matches!(down, Err(Error::Connect(_))), "{down:?}");
    let guard = tokio::time::Instant::now() + HANG_GUARD;
    while probe().await.is_err() {
        assert!(
            tokio::time::Instant::now() < guard,
            "the probe never answered again"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    handle.shutdown().await;
}

/// A 500 `StorageReadError` ERROR event inside a watch, as the demo server writes it in JSON
/// and in protobuf, reaches the reflector as a store read error and makes it relist.
#[tokio::test]
async fn a_storage_read_error_event_over_http_relists_in_both_encodings() {
    use kinformer::informer::pb::client::WireFormat;
    use kube::api::DynamicObject;
    use kube::core::ApiResource;
    for wire in [WireFormat::Json, WireFormat::Protobuf] {
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
        let task = tokio::spawn(reflector.run(cancel.clone()));
        tokio::time::timeout(
            HANG_GUARD,
            status.wait_for(|s| s.lists == 1 && s.state == ReflectorState::Watching),
        )
        .await
        .expect("synced in time")
        .expect("status channel open");
        demo.faults().store_read_error_next_watch();
        demo.faults().drop_watches();
        let relisted = tokio::time::timeout(HANG_GUARD, status.wait_for(|s| s.relists == 1))
            .await
            .expect("relisted in time")
            .expect("status channel open")
            .clone();
        assert!(
            matches!(&relisted.last_error, Some(e) if e.is_store_read_error()),
            "{wire:?}: {:?}",
            relisted.last_error
        );
        cancel.cancel();
        task.await.expect("reflector task");
        demo.shutdown().await;
    }
}

/// Issue 38 over real HTTP: the demo server's etcd restored from an older snapshot (the
/// `restore` fault: fewer objects, lower resourceVersions, open watches ended), then its cluster
/// re-created (the `recreate` fault: a new `kube-system` uid). Each time the informer lists from
/// scratch and holds exactly the server's objects and RVs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_informer_over_http_follows_a_restored_and_a_recreated_demo_cluster() {
    use kinformer::informer::shared_informer::{InformerConfig, SharedIndexInformer};
    use std::collections::BTreeMap;
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo server");
    let cluster = demo.cluster();
    let faults = demo.faults();
    let create = |name: &str| {
        cluster
            .apply(Mutation::Create {
                resource: CONFIGMAPS,
                object: configmap("default", name),
            })
            .expect("create");
    };
    for i in 0..5 {
        create(&format!("kept-{i}"));
    }
    faults.save_snapshot(&cluster);
    for i in 0..8 {
        create(&format!("later-{i}"));
    }
    let url = demo.base_url().parse().expect("url");
    let client = client_for_informers(kube::Config::new(url)).expect("client");
    let lw = Arc::new(KubeListerWatcher::<ConfigMap>::typed(
        client,
        Some("default"),
    ));
    let informer = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            ..InformerConfig::default()
        },
    );
    let cancel = CancellationToken::new();
    let (inf, c) = (informer.clone(), cancel.clone());
    let task = tokio::spawn(async move { inf.run(c).await });
    let server_state = || -> BTreeMap<String, String> {
        cluster
            .list(&CONFIGMAPS, Some("default"))
            .iter()
            .map(|v| {
                (
                    format!("default/{}", v["metadata"]["name"].as_str().unwrap_or("")),
                    v["metadata"]["resourceVersion"]
                        .as_str()
                        .unwrap_or("")
                        .to_string(),
                )
            })
            .collect()
    };
    let informer_state = || -> BTreeMap<String, String> {
        informer
            .indexer()
            .list()
            .iter()
            .map(|o| {
                (
                    format!("default/{}", o.metadata.name.as_deref().unwrap_or("")),
                    o.metadata.resource_version.clone().unwrap_or_default(),
                )
            })
            .collect()
    };
    let converge = |what: &'static str| async move {
        tokio::time::timeout(HANG_GUARD, async {
            while informer_state() != server_state() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .unwrap_or_else(|_| {
            panic!(
                "{what}: informer {:?}\nserver {:?}",
                informer_state(),
                server_state()
            )
        });
    };
    converge("first sync").await;
    assert_eq!(informer_state().len(), 13);
    assert!(faults.restore_snapshot(&cluster));
    converge("after the restore").await;
    assert_eq!(informer_state().len(), 5, "the restored snapshot's objects");
    let resets = || {
        informer
            .stats()
            .reflector
            .map(|s| s.history_resets)
            .unwrap_or(0)
    };
    assert_eq!(resets(), 1);
    faults.recreate_cluster(&cluster);
    create("fresh");
    converge("after the re-creation").await;
    assert_eq!(resets(), 2);
    cancel.cancel();
    let _ = task.await;
}

/// `:verify` over real HTTP: the demo's etcd is restored under an open watch that stays silent
/// (as kube-apiserver's does for an RV it has not reached). The verification finds what is
/// missing, extra and different, the informer lists again, and a second verification matches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_finds_what_a_silent_watch_hides_and_the_relist_fixes_it() {
    use kinformer::informer::consistency::DifferenceKind;
    use kinformer::informer::shared_informer::{InformerConfig, SharedIndexInformer};
    let demo = DemoServer::start(DemoOptions::default())
        .await
        .expect("demo server");
    let cluster = demo.cluster();
    for name in ["a", "b", "c"] {
        cluster
            .apply(Mutation::Create {
                resource: CONFIGMAPS,
                object: configmap("default", name),
            })
            .expect("create");
    }
    let snap = cluster.snapshot();
    cluster
        .apply(Mutation::Create {
            resource: CONFIGMAPS,
            object: configmap("default", "later"),
        })
        .expect("create");
    let url = demo.base_url().parse().expect("url");
    let client = client_for_informers(kube::Config::new(url)).expect("client");
    let lw = Arc::new(KubeListerWatcher::<ConfigMap>::typed(
        client,
        Some("default"),
    ));
    let informer = SharedIndexInformer::new(
        lw,
        InformerConfig {
            kind: "configmaps".into(),
            ..InformerConfig::default()
        },
    );
    let cancel = CancellationToken::new();
    let (inf, c) = (informer.clone(), cancel.clone());
    let task = tokio::spawn(async move { inf.run(c).await });
    tokio::time::timeout(HANG_GUARD, async {
        while informer.indexer().list().len() < 4 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("synced");
    let matched = informer.verify().await.expect("verify");
    assert!(matched.differences.is_empty(), "{matched:?}");
    assert_eq!(matched.matched, 4);
    // Restored under the open watch, which stays silent; then a write the watch never sends.
    cluster.restore(&snap);
    cluster
        .apply(Mutation::Create {
            resource: CONFIGMAPS,
            object: configmap("default", "new"),
        })
        .expect("create");
    let found = informer.verify().await.expect("verify");
    let kinds: Vec<(String, DifferenceKind)> = found
        .differences
        .iter()
        .map(|d| (d.key.clone(), d.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("default/later".to_string(), DifferenceKind::Extra),
            ("default/new".to_string(), DifferenceKind::Missing),
        ]
    );
    // The relist it asked for brings the cache to the server's state.
    tokio::time::timeout(HANG_GUARD, async {
        loop {
            let v = informer.verify().await.expect("verify");
            if v.differences.is_empty() {
                assert_eq!(v.matched, 4);
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await
    .expect("the relist converged");
    cancel.cancel();
    let _ = task.await;
}
