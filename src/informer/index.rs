//! TODO: index
