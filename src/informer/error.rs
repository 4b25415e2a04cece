//! The informer layer's one error type.
//!
//! Errors are `Clone` so the latest one can be kept in a status snapshot for the dashboard.

/// Everything that can go wrong inside the informer core.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// 410 Gone / Expired: the requested resourceVersion (or continue token) is older than the
    /// server's retained history. The reflector answers with a relist.
    #[error("resource version expired (410 Gone): {0}")]
    Gone(String),
    /// The server answered "Too large resource version": it has not caught up with the RV we asked
    /// for (e.g. after failing over to a lagging apiserver). Treated like Gone: relist consistently.
    #[error("too large resource version: {0}")]
    TooLargeResourceVersion(String),
    /// 403 Forbidden: the identity may not list/watch this kind in this scope.
    #[error("forbidden (403): {0}")]
    Forbidden(String),
    /// 429 Too Many Requests: back off and retry.
    #[error("too many requests (429): {0}")]
    TooManyRequests(String),
    /// Any other non-success `Status` from the API server.
    #[error("API error {code} {reason}: {message}")]
    Api {
        code: u16,
        reason: String,
        message: String,
    },
    /// The server could not be reached (connection refused, reset, TLS, timeout).
    #[error("cannot reach the API server: {0}")]
    Connect(String),
    /// A response or watch event could not be decoded.
    #[error("cannot decode server response: {0}")]
    Decode(String),
    /// An object has no name, so no key can be computed for it.
    #[error("object has no metadata.name; cannot compute a key")]
    MissingName,
    /// An index function failed for an object.
    #[error("index function {index:?} failed on {key}: {message}")]
    IndexFunc {
        index: String,
        key: String,
        message: String,
    },
    /// An index name was registered twice, or indexers were added in a conflicting way.
    #[error("indexer conflict: {0}")]
    IndexerConflict(String),
    /// The named index does not exist.
    #[error("index {0:?} does not exist")]
    IndexNotFound(String),
    /// An empty list of deltas was given where one with at least one delta is needed (client-go's
    /// `ErrZeroLengthDeltasObject`).
    #[error("0 length Deltas object; can't get key")]
    ZeroLengthDeltas,
    /// The queue or informer was shut down.
    #[error("closed")]
    Closed,
}

impl Error {
    /// Errors that mean "our resourceVersion is unusable: list again from a consistent read".
    pub fn is_expired(&self) -> bool {
        matches!(self, Error::Gone(_) | Error::TooLargeResourceVersion(_))
    }
}
