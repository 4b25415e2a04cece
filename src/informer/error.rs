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

    /// A 500 `StorageReadError` (apimachinery's `StatusReasonStoreReadError`): the server could
    /// not read an object from storage (a corrupt or undecryptable object, or the watch event of
    /// its unsafe deletion).
    pub fn is_store_read_error(&self) -> bool {
        matches!(self, Error::Api { reason, .. } if reason == super::wire_values::REASON_STORE_READ_ERROR)
    }
}

use super::wire_values::{
    CAUSE_RESOURCE_VERSION_TOO_LARGE, REASON_EXPIRED, REASON_FORBIDDEN, REASON_GONE,
    REASON_TIMEOUT, REASON_TOO_MANY_REQUESTS, TOO_LARGE_RV_MESSAGE,
};

/// client-go's `isTooLargeResourceVersionError`: the server has not caught up with the RV asked
/// for. A `ResourceVersionTooLarge` cause (`causes` are `(reason, message)` pairs) says so
/// whatever the status; older servers are recognised by the message, of a cause (1.17.0–1.18.5)
/// or of the status itself (before 1.17), and then only on a 504 Timeout.
pub fn is_too_large_resource_version<'a>(
    code: u16,
    reason: &str,
    message: &str,
    causes: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> bool {
    let mut cause_message = false;
    for (cause_reason, cause_msg) in causes {
        if cause_reason == CAUSE_RESOURCE_VERSION_TOO_LARGE {
            return true;
        }
        cause_message |= cause_msg == TOO_LARGE_RV_MESSAGE;
    }
    let timeout = code == 504 || reason == REASON_TIMEOUT;
    timeout && (cause_message || message.contains(TOO_LARGE_RV_MESSAGE))
}

/// Classify a non-success API `Status` (HTTP code, `reason`, `message`) into an [`Error`].
///
/// - "Too large resource version" ([`is_too_large_resource_version`], checked first: the server
///   sends it as a 504) → [`Error::TooLargeResourceVersion`];
/// - 410, or reason `Expired`/`Gone` (also an expired `continue` token) → [`Error::Gone`];
/// - 403 → [`Error::Forbidden`]; 429 → [`Error::TooManyRequests`];
/// - anything else → [`Error::Api`].
pub fn classify_status(code: u16, reason: &str, message: &str) -> Error {
    classify_status_with_causes(code, reason, message, [])
}

/// [`classify_status`] for a `Status` whose `details.causes` (`(reason, message)` pairs) are known.
pub fn classify_status_with_causes<'a>(
    code: u16,
    reason: &str,
    message: &str,
    causes: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Error {
    if is_too_large_resource_version(code, reason, message, causes) {
        return Error::TooLargeResourceVersion(message.to_string());
    }
    match (code, reason) {
        (410, _) | (_, REASON_EXPIRED) | (_, REASON_GONE) => Error::Gone(message.to_string()),
        (403, _) | (_, REASON_FORBIDDEN) => Error::Forbidden(message.to_string()),
        (429, _) | (_, REASON_TOO_MANY_REQUESTS) => Error::TooManyRequests(message.to_string()),
        _ => Error::Api {
            code,
            reason: reason.to_string(),
            message: message.to_string(),
        },
    }
}
