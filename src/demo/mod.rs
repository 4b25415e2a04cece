//! The built-in demo cluster: a Kubernetes-API-compatible server on loopback.
//!
//! Never imported by the informer core.
pub mod churn;
pub mod mutation;
pub mod objects;
pub mod sim;
