//! The informer core: a port of client-go's `tools/cache` and `util/workqueue`.
//!
//! Data flows `ListerWatcher` → [`reflector::Reflector`] → [`delta_fifo::DeltaFifo`] →
//! [`thread_safe_store::ThreadSafeStore`] (the indexer) → event handlers of a
//! [`shared_informer::SharedIndexInformer`]; [`factory::SharedInformerFactory`] shares one
//! informer per resource kind and scope, and [`workqueue::RateLimitingQueue`] coalesces keys.
//!
//! This module never imports UI or demo-server code.

pub mod cached;
pub mod consistency;
pub mod decode;
pub mod delta_fifo;
pub mod error;
pub mod factory;
pub mod failed_answer;
pub mod history;
pub mod index;
pub mod list_body;
pub mod list_watch;
pub mod listing;
pub mod pb;
pub mod reflector;
pub mod shared_informer;
pub mod store;
pub mod thread_safe_store;
pub mod wire_values;
pub mod workqueue;

pub use error::Error;
pub use store::{Object, meta_namespace_key};
