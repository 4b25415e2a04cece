//! The terminal dashboard. TODO
