//! kinformer: a terminal dashboard for Kubernetes fed by a Rust port of client-go's informers.
//!
//! - [`informer`]: the informer core (reflector, DeltaFIFO, indexer, shared informers, workqueue);
//!   it never imports anything else from this crate but [`selector`]-free plain data.
//! - [`selector`]: label and field selectors (parse, match), as in apimachinery's `labels`/`fields`.
//! - [`fleet`]: which contexts are selected when several clusters are shown at once.
//! - [`demo`]: a Kubernetes-API-compatible server on loopback with a churn simulator and faults.
//! - [`render`]: pure object → table row functions, per kind.
//! - [`ui`]: the terminal dashboard (app state, key bindings, widgets, runtime glue).
pub mod app_main;
pub mod bench;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod demo;
pub mod fleet;
pub mod informer;
pub mod logging;
pub mod process;
pub mod recorder;
pub mod render;
pub mod runtime;
pub mod selector;
pub mod ui;
