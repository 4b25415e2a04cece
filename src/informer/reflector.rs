//! TODO: reflector
