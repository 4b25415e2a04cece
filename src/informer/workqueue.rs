//! TODO: workqueue
