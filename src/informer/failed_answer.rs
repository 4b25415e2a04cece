//! A failed answer from the API server: its `Status` body as an [`Error`], and the wait its
//! `Retry-After` header asks for.
//!
//! client-go counterpart: `rest.Request`'s `transformResponse` (the body decoded as a `Status`,
//! or its text when it is not one) and `checkWait`/`retryAfterSeconds` in `rest/with_retry.go`
//! and `rest/request.go`: a 429 or any 5xx with `Retry-After: N` (whole seconds) makes the rest
//! client wait `max(backoff, N s)` and send the same request again, up to 10 times, before the
//! caller sees the error.
//!
//! Where kinformer differs, and why: the informers' `kube::Client` does not retry (see
//! [`super::list_watch::client_for_informers`]): every failed answer reaches the reflector at
//! once, so the dashboard shows it and a "Too large resource version" 504 triggers the
//! consistent relist. The wait the server asked for is kept by the lister-watcher
//! ([`super::list_watch::ListerWatcher::take_retry_after`]) and the reflector's backoff lasts at
//! least that long, which is the same schedule for the next request.
//!
//! Invariants: only 429 and 5xx answers carry a wait (as `checkWait`); `Retry-After` is read as
//! whole seconds, and any other form (an HTTP date, a negative or non-numeric value) is ignored,
//! as client-go ignores it; an error body is read up to [`MAX_ERROR_BODY`] bytes, so a hostile
//! server cannot make the client hold an endless "error".

use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt as _;
use parking_lot::Mutex;

use super::Error;
use super::list_watch::{classify_status, map_kube_error};
use super::pb::{decode_status, unwrap_envelope};
use super::wire_values::RETRY_AFTER_HEADER;

/// The most of an error body that is read (a `Status` is a few hundred bytes).
pub const MAX_ERROR_BODY: usize = 64 * 1024;

/// The wait a failed answer with HTTP `code` asks for in its headers (client-go's `checkWait`):
/// `Retry-After` in whole seconds on a 429 or 5xx, else `None`.
pub fn retry_after(code: u16, headers: &http::HeaderMap) -> Option<Duration> {
    if code != 429 && code < 500 {
        return None;
    }
    let value = headers.get(RETRY_AFTER_HEADER)?.to_str().ok()?;
    value
        .parse::<u32>()
        .ok()
        .map(|s| Duration::from_secs(s.into()))
}

/// The most of a body that is not a `Status` kept as an error's message.
pub const MAX_TEXT_MESSAGE: usize = 200;

/// A non-success answer's body (`proto`: its `Content-Type` is protobuf) as an [`Error`]: a
/// protobuf or JSON `Status`, classified as every other one, or, when the body is not a `Status`
/// (a proxy's HTML page, priority and fairness' plain-text 429), its text with the HTTP code:
/// on one line, at most [`MAX_TEXT_MESSAGE`] characters, so the dashboard's one status line
/// holds it.
pub fn error_of_body(status: http::StatusCode, proto: bool, bytes: &[u8]) -> Error {
    if proto && let Ok((_, raw)) = unwrap_envelope(bytes) {
        return decode_status(raw);
    }
    match serde_json::from_slice::<kube::core::Status>(bytes) {
        Ok(s) => map_kube_error(kube::Error::Api(s.boxed())),
        Err(_) => classify_status(
            status.as_u16(),
            status.canonical_reason().unwrap_or(""),
            &one_line(&String::from_utf8_lossy(bytes)),
        ),
    }
}

/// `text` with every run of whitespace (newlines included) made one space, cut at
/// [`MAX_TEXT_MESSAGE`] characters (with `…`).
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for (n, word) in text.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX_TEXT_MESSAGE {
            break;
        }
    }
    match out.char_indices().nth(MAX_TEXT_MESSAGE) {
        Some((cut, _)) => {
            out.truncate(cut);
            out.push('…');
            out
        }
        None => out,
    }
}

/// The wait the server asked for with the latest answer to a lister-watcher's requests
/// (`None` after an answer that asked for none). Cheap to clone; clones share it.
#[derive(Debug, Clone, Default)]
pub struct AskedWait(Arc<Mutex<Option<Duration>>>);

impl AskedWait {
    pub fn set(&self, wait: Option<Duration>) {
        *self.0.lock() = wait;
    }

    /// The wait asked for, if any, leaving none.
    pub fn take(&self) -> Option<Duration> {
        self.0.lock().take()
    }
}

/// Send `req`; a non-success answer becomes its [`Error`] (its body decoded as JSON or text),
/// and the wait it asks for is kept in `wait`.
pub async fn send_checked(
    client: &kube::Client,
    req: http::Request<Vec<u8>>,
    wait: &AskedWait,
) -> Result<http::Response<kube::client::Body>, Error> {
    wait.set(None);
    let res = client
        .send(req.map(kube::client::Body::from))
        .await
        .map_err(map_kube_error)?;
    let status = res.status();
    if status.is_client_error() || status.is_server_error() {
        let (err, asked) = read_failed_answer(res, false).await;
        wait.set(asked);
        return Err(err);
    }
    Ok(res)
}

/// Read a failed answer: its error, and the wait it asks for.
pub async fn read_failed_answer(
    res: http::Response<kube::client::Body>,
    proto: bool,
) -> (Error, Option<Duration>) {
    let status = res.status();
    let wait = retry_after(status.as_u16(), res.headers());
    let body = http_body_util::Limited::new(res.into_body(), MAX_ERROR_BODY);
    let error = match body.collect().await {
        Ok(c) => error_of_body(status, proto, &c.to_bytes()),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => classify_status(
            status.as_u16(),
            status.canonical_reason().unwrap_or(""),
            &format!("error body longer than {MAX_ERROR_BODY} bytes"),
        ),
        Err(e) => Error::Connect(format!("error body: {e}")),
    };
    (error, wait)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> http::HeaderMap {
        let mut h = http::HeaderMap::new();
        h.insert(
            http::header::RETRY_AFTER,
            http::HeaderValue::from_str(value).expect("a header value"),
        );
        h
    }

    #[test]
    fn retry_after_is_read_on_429_and_5xx_only_in_whole_seconds() {
        let secs = |n| Some(Duration::from_secs(n));
        for (code, value, want) in [
            (429, "1", secs(1)),
            (429, "5", secs(5)),
            (503, "3", secs(3)),
            (500, "2", secs(2)),
            (504, "1", secs(1)),
            (429, "0", secs(0)),
            // checkWait: no wait on other codes, whatever the header says.
            (403, "5", None),
            (410, "5", None),
            (200, "5", None),
            // retryAfterSeconds: strconv.Atoi or nothing.
            (429, "Wed, 21 Oct 2015 07:28:00 GMT", None),
            (429, "-1", None),
            (429, "1.5", None),
            (429, "", None),
            (429, "99999999999", None),
        ] {
            assert_eq!(
                retry_after(code, &headers(value)),
                want,
                "{code} Retry-After: {value:?}"
            );
        }
        assert_eq!(retry_after(429, &http::HeaderMap::new()), None);
    }

    #[test]
    fn a_proxy_page_becomes_one_short_line_with_the_http_code() {
        let page = format!(
            "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>{}</body>\n</html>\n",
            "x ".repeat(500)
        );
        let err = error_of_body(http::StatusCode::BAD_GATEWAY, false, page.as_bytes());
        let Error::Api {
            code,
            reason,
            message,
        } = err
        else {
            panic!("{err:?}");
        };
        assert_eq!((code, reason.as_str()), (502, "Bad Gateway"));
        assert!(
            message.starts_with("<html> <head><title>502 Bad Gateway</title></head> <body>x x"),
            "{message}"
        );
        assert_eq!(message.chars().count(), MAX_TEXT_MESSAGE + 1);
        assert!(message.ends_with('…') && !message.contains('\n'));
    }

    #[test]
    fn a_plain_text_429_from_priority_and_fairness_is_too_many_requests() {
        let err = error_of_body(
            http::StatusCode::TOO_MANY_REQUESTS,
            false,
            b"Too many requests, please try again later.\n",
        );
        assert_eq!(
            err,
            Error::TooManyRequests("Too many requests, please try again later.".into())
        );
    }
}
