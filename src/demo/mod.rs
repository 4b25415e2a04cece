//! The built-in demo cluster: a Kubernetes-API-compatible server on loopback.
//!
//! - [`server`]: the axum HTTP server ([`DemoServer`], [`DemoHandle`], [`DemoOptions`]);
//! - [`cluster`]: storage with one global resourceVersion, history/compaction, watch fan-out;
//! - [`resources`]: the served kinds and discovery documents; [`table`]: server-side printing;
//! - [`patch`]: merge / JSON / strategic-merge patches; [`faults`]: fault injection;
//! - [`proto`]: the little protobuf kubectl's `create namespace|configmap|secret` sends;
//! - [`churn`]: the loop feeding simulator mutations into the cluster;
//! - [`sim`] and [`objects`]: the deterministic churn simulator and realistic object builders.
//!
//! Never imported by the informer core.
pub mod churn;
pub mod cluster;
pub mod error;
pub mod faults;
pub mod mutation;
pub mod objects;
pub mod patch;
pub mod proto;
pub mod resources;
pub mod server;
pub mod sim;
pub mod table;

pub use cluster::DemoCluster;
pub use error::{DemoError, StatusError};
pub use faults::FaultInjector;
pub use server::{DemoHandle, DemoOptions, DemoServer};
