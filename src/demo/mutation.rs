//! What the churn simulator asks the demo server to do.
//!
//! The simulator ([`super::sim`]) is a deterministic generator of [`Mutation`]s; the server applies
//! them exactly as it would apply the same request from a client (new resourceVersion, watch events).

use serde_json::Value;

/// Which collection an object lives in, as the API path names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ResourceId {
    /// API group; `""` for the core group.
    pub group: &'static str,
    pub version: &'static str,
    /// Lower-case plural, as in the URL (`pods`, `deployments`).
    pub plural: &'static str,
}

impl ResourceId {
    pub const fn new(group: &'static str, version: &'static str, plural: &'static str) -> Self {
        Self {
            group,
            version,
            plural,
        }
    }
}

/// One change the simulator wants applied.
#[derive(Debug, Clone, PartialEq)]
pub enum Mutation {
    /// Create this object (a full JSON object with apiVersion, kind and metadata).
    Create { resource: ResourceId, object: Value },
    /// Replace this object (same key); the server assigns the new resourceVersion.
    Update { resource: ResourceId, object: Value },
    /// Delete the object with this key.
    Delete {
        resource: ResourceId,
        namespace: Option<String>,
        name: String,
    },
}
