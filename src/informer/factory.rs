//! TODO: factory
