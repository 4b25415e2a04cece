//! TODO: thread_safe_store
