//! TODO: shared_informer
