//! The literal strings kube-apiserver (and the kubelet, through it) puts on the wire that kinformer
//! matches or sends: `Status.reason` values, `StatusCause.reason` (cause type) values,
//! `Status.status` values, the WatchList bookmark annotation, and the messages and headers the
//! client recognises.
//!
//! Counterpart: apimachinery's `pkg/apis/meta/v1/types.go` (`StatusReason*`, `CauseType*`,
//! `StatusSuccess`/`StatusFailure`, `InitialEventsAnnotationKey`) and
//! `pkg/util/remotecommand` (`NonZeroExitCodeReason`, `ExitCodeCauseType`). Each constant here
//! holds the Go constant's *value*, which is what travels; the doc comment names the Go constant.
//! They differ once: `StatusReasonStoreReadError` is sent as `"StorageReadError"`.
//!
//! Both sides use these constants: the informer when it classifies an answer, the demo server when
//! it builds one, so the two cannot drift apart; the tests in `wire_values_tests` spell each value
//! out literally, as kube-apiserver sends it, so a typo here fails there.

// ---------------------------------------------------------------------------------------------
// Status.reason (metav1.StatusReason)
// ---------------------------------------------------------------------------------------------

/// `metav1.StatusReasonUnauthorized` (401).
pub const REASON_UNAUTHORIZED: &str = "Unauthorized";
/// `metav1.StatusReasonForbidden` (403).
pub const REASON_FORBIDDEN: &str = "Forbidden";
/// `metav1.StatusReasonNotFound` (404).
pub const REASON_NOT_FOUND: &str = "NotFound";
/// `metav1.StatusReasonAlreadyExists` (409).
pub const REASON_ALREADY_EXISTS: &str = "AlreadyExists";
/// `metav1.StatusReasonConflict` (409).
pub const REASON_CONFLICT: &str = "Conflict";
/// `metav1.StatusReasonGone` (410).
pub const REASON_GONE: &str = "Gone";
/// `metav1.StatusReasonInvalid` (422).
pub const REASON_INVALID: &str = "Invalid";
/// `metav1.StatusReasonServerTimeout` (500).
pub const REASON_SERVER_TIMEOUT: &str = "ServerTimeout";
/// `metav1.StatusReasonStoreReadError` (500): the server could not read (decrypt, decode) an
/// object from storage; also the reason of the watch event that reports a corrupt object's unsafe
/// deletion. Note the value: `Storage`, not `Store`.
pub const REASON_STORE_READ_ERROR: &str = "StorageReadError";
/// `metav1.StatusReasonTimeout` (504).
pub const REASON_TIMEOUT: &str = "Timeout";
/// `metav1.StatusReasonTooManyRequests` (429).
pub const REASON_TOO_MANY_REQUESTS: &str = "TooManyRequests";
/// `metav1.StatusReasonBadRequest` (400).
pub const REASON_BAD_REQUEST: &str = "BadRequest";
/// `metav1.StatusReasonMethodNotAllowed` (405).
pub const REASON_METHOD_NOT_ALLOWED: &str = "MethodNotAllowed";
/// `metav1.StatusReasonNotAcceptable` (406).
pub const REASON_NOT_ACCEPTABLE: &str = "NotAcceptable";
/// `metav1.StatusReasonRequestEntityTooLarge` (413).
pub const REASON_REQUEST_ENTITY_TOO_LARGE: &str = "RequestEntityTooLarge";
/// `metav1.StatusReasonUnsupportedMediaType` (415).
pub const REASON_UNSUPPORTED_MEDIA_TYPE: &str = "UnsupportedMediaType";
/// `metav1.StatusReasonInternalError` (500).
pub const REASON_INTERNAL_ERROR: &str = "InternalError";
/// `metav1.StatusReasonExpired` (410): a too-old resourceVersion or continue token.
pub const REASON_EXPIRED: &str = "Expired";
/// `metav1.StatusReasonServiceUnavailable` (503).
pub const REASON_SERVICE_UNAVAILABLE: &str = "ServiceUnavailable";
/// `remotecommand.NonZeroExitCodeReason`: an exec'd command exited non-zero (exec error channel).
pub const REASON_NON_ZERO_EXIT_CODE: &str = "NonZeroExitCode";

// ---------------------------------------------------------------------------------------------
// StatusCause.reason (metav1.CauseType; the JSON field is `reason`)
// ---------------------------------------------------------------------------------------------

/// `metav1.CauseTypeResourceVersionTooLarge`: the RV asked for is newer than the server has seen.
pub const CAUSE_RESOURCE_VERSION_TOO_LARGE: &str = "ResourceVersionTooLarge";
/// `metav1.CauseTypeFieldValueInvalid`.
pub const CAUSE_FIELD_VALUE_INVALID: &str = "FieldValueInvalid";
/// `field.ErrorTypeForbidden` (a cause's reason on a 422 Invalid).
pub const CAUSE_FIELD_VALUE_FORBIDDEN: &str = "FieldValueForbidden";
/// `field.ErrorTypeNotSupported` (a cause's reason on a 422 Invalid).
pub const CAUSE_FIELD_VALUE_NOT_SUPPORTED: &str = "FieldValueNotSupported";
/// `metav1.CauseTypeUnexpectedServerResponse`.
pub const CAUSE_UNEXPECTED_SERVER_RESPONSE: &str = "UnexpectedServerResponse";
/// `remotecommand.ExitCodeCauseType`: the cause whose message is an exec'd command's exit code.
pub const CAUSE_EXIT_CODE: &str = "ExitCode";

// ---------------------------------------------------------------------------------------------
// Status.status, annotations, messages, headers
// ---------------------------------------------------------------------------------------------

/// `metav1.StatusSuccess`.
pub const STATUS_SUCCESS: &str = "Success";
/// `metav1.StatusFailure`.
pub const STATUS_FAILURE: &str = "Failure";

/// `metav1.InitialEventsAnnotationKey`: set to `"true"` on the BOOKMARK that ends a streaming
/// list's initial events (WatchList, KEP-3157).
pub const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";

/// The message of the 429 `TooManyRequests` (with `retryAfterSeconds: 1`) that kube-apiserver's
/// watch cache answers while it is (re)building after a restart, before it can serve lists and
/// watches.
pub const STORAGE_INITIALIZING_MESSAGE: &str = "storage is (re)initializing";

/// The message of a "too large resource version" answer: the status message contains it, and API
/// servers 1.17.0–1.18.5 send it as the cause message instead of the cause type.
pub const TOO_LARGE_RV_MESSAGE: &str = "Too large resource version";

/// The `Retry-After` response header (seconds) that comes with 429 and 504 answers. The HTTP
/// crates spell it `retry-after` (header names are case-insensitive); kube-apiserver writes it as
/// here.
pub const RETRY_AFTER_HEADER: &str = "Retry-After";

#[cfg(test)]
mod tests;
