//! The built-in demo cluster: a Kubernetes-API-compatible server on loopback.
//!
//! - [`server`]: the axum HTTP server ([`DemoServer`], [`DemoHandle`], [`DemoOptions`]);
//! - [`cluster`]: storage with one global resourceVersion, history/compaction, watch fan-out;
//! - [`resources`]: the served kinds and discovery documents; [`table`]: server-side printing;
//! - [`metrics`]: `metrics.k8s.io` (PodMetrics, NodeMetrics) with usage following the simulation;
//! - [`patch`]: merge / JSON / strategic-merge patches; [`faults`]: fault injection;
//! - [`logs`]: `pods/{name}/log`, container logs generated from the pod's container instances;
//! - [`proto`]: the little protobuf kubectl's `create namespace|configmap|secret` sends;
//! - [`eviction`]: the Eviction subresource and PodDisruptionBudget status;
//! - [`exec`], [`shell`], [`portforward`]: exec/attach and port-forward over websockets, into a
//!   simulated shell and HTTP page per pod; [`spdy`]: SPDY/3.1 port-forward for kubectl;
//! - [`fleet`]: several demo servers with one kubeconfig (a context per server);
//! - [`churn`]: the loop feeding simulator mutations into the cluster;
//! - [`sim`] and [`objects`]: the deterministic churn simulator and realistic object builders.
//!
//! Never imported by the informer core.
pub mod churn;
pub mod cluster;
pub mod error;
pub mod eviction;
pub mod exec;
pub mod faults;
pub mod fleet;
pub mod logs;
pub mod metrics;
pub mod mutation;
pub mod objects;
pub mod patch;
pub mod portforward;
pub mod proto;
pub mod rbac;
pub mod realistic;
pub mod resources;
pub mod server;
pub mod shell;
pub mod sim;
pub mod spdy;
pub mod table;
pub mod wire;

pub use cluster::DemoCluster;
pub use error::{DemoError, StatusError};
pub use faults::FaultInjector;
pub use server::{DemoHandle, DemoOptions, DemoServer};
