//! kinformer: a terminal dashboard for Kubernetes fed by a Rust port of client-go's informers.
//!
//! - [`informer`]: the informer core (reflector, DeltaFIFO, indexer, shared informers, workqueue);
//!   it never imports anything else from this crate but [`selector`]-free plain data.
//! - [`selector`]: label and field selectors (parse, match), as in apimachinery's `labels`/`fields`.
//! - [`fleet`]: which contexts are selected when several clusters are shown at once.
//! - [`demo`]: a Kubernetes-API-compatible server on loopback with a churn simulator and faults.
//! - [`render`]: pure object → table row functions, per kind.
//! - [`ui`]: the terminal dashboard (app state, key bindings, widgets, runtime glue).
//!
//! # The map of the crate
//!
//! | module | what | counterpart |
//! | --- | --- | --- |
//! | `src/informer/list_watch.rs`, `list_body.rs` | the only door to the API; list bodies decoded as they stream in | client-go `tools/cache/listwatch.go` |
//! | `src/informer/decode.rs`, `pb/` | JSON and protobuf decoding into the cached object through the cache's mask | `runtime/serializer`, `TransformFunc` |
//! | `src/informer/reflector.rs` | list, watch, relist, backoff as an explicit state machine | `tools/cache/reflector.go`, `tools/pager` |
//! | `src/informer/delta_fifo.rs` | per-object delta lists between reflector and indexer | `tools/cache/delta_fifo.go` |
//! | `src/informer/thread_safe_store.rs`, `index.rs` | the indexer and its index functions | `thread_safe_store.go`, `index.go` |
//! | `src/informer/shared_informer.rs`, `factory.rs` | informers, handlers, the shared factory | `shared_informer.go`, `informers/factory.go` |
//! | `src/informer/workqueue.rs` | dedup, delaying, rate-limited work queue | `util/workqueue` |
//! | `src/informer/history.rs` | per-object history | — |
//! | `src/selector.rs` | label and field selectors | apimachinery `labels`, `fields` |
//! | `src/render/` | object → row per kind (columns as data: `render/resources.rs`), the cache masks, YAML and describe | k9s `internal/render`, kubectl printers |
//! | `src/ui/` | the pure side: `App`, `Action`/`Effect`, one file per screen, view models, keys as data; no I/O | k9s `internal/view` |
//! | `src/runtime/` | every task that talks to a cluster or a terminal: feeds, log streams, shell, port-forward, metrics, writes, the frame loop | k9s `internal/model`, `internal/client` |
//! | `src/cluster.rs`, `src/fleet.rs` | kubeconfig, discovery, several clusters | kubectl discovery |
//! | `src/demo/` | the demo API server and simulator | kube-apiserver |
//!
//! Why each dependency is there: the README's table.
pub mod app_main;
pub mod bench;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod demo;
pub mod fleet;
pub mod helm;
pub mod informer;
pub mod logging;
pub mod process;
pub mod recorder;
pub mod render;
pub mod runtime;
pub mod selector;
pub mod ui;
