//! The UI layer's error enum (its own file so that what returns it need not import the
//! `ui` module and, through its re-exports, the `App`).

/// Errors of the UI layer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A key-binding file could not be read or parsed.
    #[error("key bindings in {origin}: {message}")]
    KeyMap { origin: String, message: String },
}
