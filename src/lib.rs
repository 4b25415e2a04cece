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
//! # Why each dependency is there
//! | crate | why |
//! | --- | --- |
//! | kube (client, runtime, config, ws) | kubeconfig and auth, the HTTP client, exec/attach/port-forward; kube-runtime is the bench's Rust peer |
//! | k8s-openapi | typed objects for discovery, events, tests and the bench floor |
//! | tokio, tokio-util, futures, async-stream | runtime, cancellation tokens, watch streams |
//! | axum, hyper, hyper-util, http, bytes, http-body-util | the demo server; reading a response's headers then its body as a stream |
//! | serde, serde_json (raw_value) | decoding list items one by one |
//! | serde_norway | YAML for `y` (a maintained serde_yaml successor) |
//! | ratatui, crossterm, tui-input | the terminal UI and its text fields |
//! | clap, clap_complete | flags; shell completions |
//! | thiserror | one error enum per layer |
//! | tracing, tracing-subscriber, tracing-appender | logs to a file, never to the screen |
//! | parking_lot | small fast locks in the store, FIFO and queue |
//! | foldhash | fast hashing for the indexer, FIFO and row tables |
//! | tokio-tungstenite, form_urlencoded | the demo server's side of exec and port-forward |
//! | flate2 (zlib-rs) | SPDY/3.1 header compression for `kubectl port-forward` against the demo |
//! | rustls (ring) | TLS accepting X.509 v1 client certificates, as kubectl does |
//! | similar | history diffs |
//! | rand, chrono, regex, base64 | jitter and the simulator, timestamps, `/~regex`, Secret data |
//! | dirs, toml | config paths and key files |
//! | csscolorparser | k9s skins' colour names |
//! | textwrap | wrapping the help's descriptions under their column |
//! | proptest, insta, criterion, tempfile, k8s-pb, prost (dev) | property tests, snapshots, micro-benchmarks, temp files, an independent encoder to check the protobuf tables |
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
