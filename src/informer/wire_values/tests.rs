//! One test per wire string the client matches: each feeds the answer kube-apiserver sends, with
//! the value spelled out literally as it is on the wire (not through the constants), through the
//! client's own decoding, and checks what the client makes of it.

use k8s_openapi::api::core::v1::ConfigMap;

use super::*;
use crate::informer::Error;
use crate::informer::list_watch::{WatchEvent, decode_watch_line};
use crate::informer::pb::{decode_status, put_bytes};

/// The error an ERROR watch event carrying this `Status` JSON becomes.
fn watch_error(status: &str) -> Error {
    let line = format!(r#"{{"type":"ERROR","object":{status}}}"#);
    match decode_watch_line::<ConfigMap>(&line) {
        Some(WatchEvent::Error(e)) => e,
        other => panic!("not an ERROR event: {other:?}"),
    }
}

#[test]
fn a_500_storage_read_error_watch_event_is_a_store_read_error() {
    // As kube-apiserver's watch sends a corrupt object's unsafe deletion.
    let err = watch_error(
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"failed to prepare current and previous objects: corrupt object has been deleted","reason":"StorageReadError","code":500}"#,
    );
    assert!(err.is_store_read_error(), "{err:?}");
    // The Go constant's name is not what travels.
    let name =
        watch_error(r#"{"kind":"Status","status":"Failure","reason":"StoreReadError","code":500}"#);
    assert!(!name.is_store_read_error());
}

#[test]
fn a_protobuf_storage_read_error_status_is_a_store_read_error() {
    let mut st = Vec::new();
    put_bytes(&mut st, 2, b"Failure");
    put_bytes(
        &mut st,
        3,
        b"failed to read one or more secrets from the storage",
    );
    put_bytes(&mut st, 4, b"StorageReadError");
    st.extend_from_slice(&[6 << 3, 0xF4, 0x03]); // code = 500
    assert!(decode_status(&st).is_store_read_error());
}

#[test]
fn a_410_expired_status_is_gone() {
    let err = watch_error(
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}"#,
    );
    assert!(matches!(err, Error::Gone(_)), "{err:?}");
}

#[test]
fn a_gone_reason_is_gone_whatever_the_code() {
    let err =
        watch_error(r#"{"kind":"Status","status":"Failure","message":"gone","reason":"Gone"}"#);
    assert!(matches!(err, Error::Gone(_)), "{err:?}");
}

#[test]
fn a_429_storage_initializing_status_is_too_many_requests() {
    // What the watch cache answers while it rebuilds after a restart.
    let err = watch_error(
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"storage is (re)initializing","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}"#,
    );
    assert_eq!(
        err,
        Error::TooManyRequests("storage is (re)initializing".into())
    );
    assert_eq!(STORAGE_INITIALIZING_MESSAGE, "storage is (re)initializing");
}

#[test]
fn a_too_many_requests_reason_without_a_code_is_too_many_requests() {
    let err = watch_error(
        r#"{"kind":"Status","status":"Failure","message":"slow down","reason":"TooManyRequests"}"#,
    );
    assert!(matches!(err, Error::TooManyRequests(_)), "{err:?}");
}

#[test]
fn a_504_timeout_with_a_resource_version_too_large_cause_is_too_large_rv() {
    let err = watch_error(
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Timeout: Too large resource version: 20, current: 10","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge","message":"Too large resource version"}],"retryAfterSeconds":1},"code":504}"#,
    );
    assert!(matches!(err, Error::TooLargeResourceVersion(_)), "{err:?}");
}

#[test]
fn an_old_servers_too_large_rv_cause_message_on_a_timeout_is_too_large_rv() {
    // API servers 1.17.0–1.18.5: the message in the cause, no cause type.
    let err = watch_error(
        r#"{"kind":"Status","status":"Failure","message":"Timeout: too large resource version","reason":"Timeout","details":{"causes":[{"message":"Too large resource version"}]},"code":504}"#,
    );
    assert!(matches!(err, Error::TooLargeResourceVersion(_)), "{err:?}");
}

#[test]
fn a_403_forbidden_status_is_forbidden() {
    let err = watch_error(
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods is forbidden: User \"jane\" cannot watch resource \"pods\" in API group \"\" at the cluster scope","reason":"Forbidden","details":{"kind":"pods"},"code":403}"#,
    );
    assert!(matches!(err, Error::Forbidden(_)), "{err:?}");
}

#[test]
fn a_503_service_unavailable_status_is_a_server_error() {
    let err = watch_error(
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"service unavailable","reason":"ServiceUnavailable","code":503}"#,
    );
    assert!(
        matches!(err, Error::Api { code: 503, ref reason, .. } if reason == "ServiceUnavailable")
    );
}

#[test]
fn the_initial_events_end_annotation_marks_the_bookmark_that_ends_a_streaming_list() {
    let line = r#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"42","creationTimestamp":null,"annotations":{"k8s.io/initial-events-end":"true"}}}}"#;
    assert!(matches!(
        decode_watch_line::<ConfigMap>(line),
        Some(WatchEvent::Bookmark { initial_events_end: true, resource_version }) if resource_version == "42"
    ));
    let other = line.replace("k8s.io/initial-events-end", "initial-events-end");
    assert!(matches!(
        decode_watch_line::<ConfigMap>(&other),
        Some(WatchEvent::Bookmark {
            initial_events_end: false,
            ..
        })
    ));
}

/// Every constant against apimachinery's value, spelled out: a typo in the module fails here.
#[test]
fn every_constant_holds_apimachinerys_wire_value() {
    let table = [
        (REASON_UNAUTHORIZED, "Unauthorized"),
        (REASON_FORBIDDEN, "Forbidden"),
        (REASON_NOT_FOUND, "NotFound"),
        (REASON_ALREADY_EXISTS, "AlreadyExists"),
        (REASON_CONFLICT, "Conflict"),
        (REASON_GONE, "Gone"),
        (REASON_INVALID, "Invalid"),
        (REASON_SERVER_TIMEOUT, "ServerTimeout"),
        (REASON_STORE_READ_ERROR, "StorageReadError"),
        (REASON_TIMEOUT, "Timeout"),
        (REASON_TOO_MANY_REQUESTS, "TooManyRequests"),
        (REASON_BAD_REQUEST, "BadRequest"),
        (REASON_METHOD_NOT_ALLOWED, "MethodNotAllowed"),
        (REASON_NOT_ACCEPTABLE, "NotAcceptable"),
        (REASON_REQUEST_ENTITY_TOO_LARGE, "RequestEntityTooLarge"),
        (REASON_UNSUPPORTED_MEDIA_TYPE, "UnsupportedMediaType"),
        (REASON_INTERNAL_ERROR, "InternalError"),
        (REASON_EXPIRED, "Expired"),
        (REASON_SERVICE_UNAVAILABLE, "ServiceUnavailable"),
        (REASON_NON_ZERO_EXIT_CODE, "NonZeroExitCode"),
        (CAUSE_RESOURCE_VERSION_TOO_LARGE, "ResourceVersionTooLarge"),
        (CAUSE_FIELD_VALUE_FORBIDDEN, "FieldValueForbidden"),
        (CAUSE_FIELD_VALUE_NOT_SUPPORTED, "FieldValueNotSupported"),
        (CAUSE_FIELD_VALUE_INVALID, "FieldValueInvalid"),
        (CAUSE_UNEXPECTED_SERVER_RESPONSE, "UnexpectedServerResponse"),
        (CAUSE_EXIT_CODE, "ExitCode"),
        (STATUS_SUCCESS, "Success"),
        (STATUS_FAILURE, "Failure"),
        (INITIAL_EVENTS_END_ANNOTATION, "k8s.io/initial-events-end"),
        (STORAGE_INITIALIZING_MESSAGE, "storage is (re)initializing"),
        (TOO_LARGE_RV_MESSAGE, "Too large resource version"),
        (RETRY_AFTER_HEADER, "Retry-After"),
    ];
    for (constant, wire) in table {
        assert_eq!(constant, wire);
    }
}
