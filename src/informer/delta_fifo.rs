//! TODO: delta_fifo

use std::sync::Arc;

/// The indexer as seen by the DeltaFIFO (client-go's `KeyListerGetter`).
pub trait KnownObjects<K>: Send + Sync {
    /// Every key currently held.
    fn list_keys(&self) -> Vec<String>;
    /// The object held under `key`.
    fn get_by_key(&self, key: &str) -> Option<Arc<K>>;
}
