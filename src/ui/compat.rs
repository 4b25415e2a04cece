//! Placeholder of `crate::informer::shared_informer::TapEntry` until the informer's event tap
//! lands on main; deleted then (imports switch to the real type).

use std::sync::Arc;

use crate::informer::delta_fifo::DeltaType;

/// One delta popped by an informer (placeholder of the event tap's entry).
#[derive(Debug, Clone)]
pub struct TapEntry {
    pub seq: u64,
    pub at: std::time::SystemTime,
    pub kind: Arc<str>,
    pub delta: DeltaType,
    pub tombstone: bool,
    pub key: Arc<str>,
    pub resource_version: String,
    pub queue_depth: usize,
}
