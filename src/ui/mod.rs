//! The terminal dashboard.
pub mod terminal;
