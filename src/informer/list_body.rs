//! Streaming decode of list response bodies: bytes in, items out, as the body arrives.
//!
//! client-go counterpart: none (client-go reads a list body whole, then decodes it, as
//! `rest.Result.Into` does; its WatchList streams instead). A kube-apiserver answers a list at
//! resourceVersion "0" (and a relist at a specific RV without `limit`) from its watch cache in one
//! body, whatever the `limit`: 105 MB for 10k realistic pods. Decoding that body as it streams in
//! keeps at most one chunk and one item of it in memory besides the decoded (masked) objects, and
//! overlaps decoding with the transfer.
//!
//! The seam: a [`ListBodyDecoder`] turns chunks of an encoded list body into items, calling a sink
//! for each, and reports the list's metadata. [`JsonListDecoder`] does it for JSON over
//! [`JsonListSplitter`] (which finds each item's bytes) and an object decoder (one item's JSON text
//! → object); another encoding (protobuf) plugs in as another `ListBodyDecoder`.
//!
//! Invariants:
//! - [`JsonListSplitter`] hands out each element of the top-level `items` array exactly once, as
//!   the exact bytes of that element, in order, however the body is cut into chunks; the
//!   top-level `metadata` is parsed whether it comes before or after `items`; other top-level keys
//!   are skipped; a body that is not a JSON object, or ends early, is an error;
//! - the splitter keeps only the bytes of the value it is inside (an unfinished item, or the
//!   metadata): consumed bytes are dropped after every chunk;
//! - a scan resumes where the previous chunk left it, so each byte is scanned once;
//! - an item that fails to decode is skipped and counted (never fails the list), as
//!   [`super::list_watch::decode_list_page_with`] does.

use serde::Deserialize;

use super::Error;

/// A list's metadata (`metadata` of an `XxxList`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListMeta {
    #[serde(default)]
    pub resource_version: Option<String>,
    #[serde(default, rename = "continue")]
    pub continue_token: Option<String>,
    #[serde(default)]
    pub remaining_item_count: Option<i64>,
}

/// Decodes an encoded list body fed chunk by chunk.
pub trait ListBodyDecoder<K>: Send {
    /// Feed the next chunk; `sink` receives every item completed by it, in order.
    fn feed(&mut self, chunk: &[u8], sink: &mut dyn FnMut(K)) -> Result<(), Error>;
    /// The list's metadata, once read (API servers write it before the items).
    fn meta(&self) -> Option<&ListMeta>;
    /// The body ended: its metadata and the number of items skipped as malformed.
    fn finish(&mut self) -> Result<(ListMeta, usize), Error>;
}

/// Where the splitter is in the top-level object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Top {
    /// Before the opening `{`.
    Start,
    /// After `{` or after a member: a key, `,` or `}` comes next.
    BeforeKey,
    /// Inside a key string.
    Key,
    /// After a key: `:` comes next.
    Colon,
    /// After `:`: the value starts (its kind chosen by the key).
    Value,
    /// Inside a value being skipped or kept whole (`metadata`, or any other key).
    Scalar,
    /// Inside `items`, between elements: an element, `,` or `]` comes next.
    Items,
    /// Inside one element of `items`.
    Item,
    /// After the closing `}`.
    Done,
}

/// A resumable scan of one JSON value: depth of brackets, inside a string, after a backslash.
#[derive(Debug, Default, Clone, Copy)]
struct Scan {
    depth: u32,
    in_str: bool,
    esc: bool,
    /// Started (saw the first byte of the value).
    started: bool,
    /// A scalar (number, true, false, null) rather than a string/object/array.
    scalar: bool,
}

impl Scan {
    /// Advance over `b`; returns `Some(consumed)` when the value ended within `b` (`consumed`
    /// bytes belong to it), `None` when it needs more bytes.
    fn advance(&mut self, b: &[u8]) -> Option<usize> {
        for (i, &c) in b.iter().enumerate() {
            if !self.started {
                self.started = true;
                match c {
                    b'{' | b'[' => self.depth = 1,
                    b'"' => self.in_str = true,
                    _ => self.scalar = true,
                }
                continue;
            }
            if self.scalar {
                if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                    return Some(i);
                }
                continue;
            }
            if self.in_str {
                if self.esc {
                    self.esc = false;
                } else if c == b'\\' {
                    self.esc = true;
                } else if c == b'"' {
                    self.in_str = false;
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                continue;
            }
            match c {
                b'"' => self.in_str = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

/// What the value after the current key is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Member {
    Metadata,
    Items,
    Other,
}

/// Splits a JSON list body (`{"kind":..,"metadata":{..},"items":[..]}`) into the bytes of its
/// items as chunks arrive.
#[derive(Debug)]
pub struct JsonListSplitter {
    top: Top,
    /// Bytes of the value (item, key or metadata) being scanned; its scan resumes at `buf.len()`.
    buf: Vec<u8>,
    scan: Scan,
    member: Member,
    key_esc: bool,
    meta: Option<ListMeta>,
}

impl Default for JsonListSplitter {
    fn default() -> Self {
        Self {
            top: Top::Start,
            buf: Vec::new(),
            scan: Scan::default(),
            member: Member::Other,
            key_esc: false,
            meta: None,
        }
    }
}

fn bad(msg: impl std::fmt::Display) -> Error {
    Error::Decode(format!("list body: {msg}"))
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

impl JsonListSplitter {
    pub fn new() -> Self {
        Self::default()
    }

    /// The list's metadata, once read.
    pub fn meta(&self) -> Option<&ListMeta> {
        self.meta.as_ref()
    }

    /// Feed a chunk; `item` receives the bytes of each element of `items` completed by it.
    pub fn feed(&mut self, chunk: &[u8], item: &mut dyn FnMut(&[u8])) -> Result<(), Error> {
        let mut i = 0;
        while i < chunk.len() {
            let c = chunk[i];
            match self.top {
                Top::Start => {
                    if c == b'{' {
                        self.top = Top::BeforeKey;
                    } else if !is_ws(c) {
                        return Err(bad("not a JSON object"));
                    }
                    i += 1;
                }
                Top::BeforeKey => {
                    match c {
                        b'"' => {
                            self.top = Top::Key;
                            self.buf.clear();
                            self.key_esc = false;
                        }
                        b'}' => self.top = Top::Done,
                        b',' => {}
                        c if is_ws(c) => {}
                        _ => return Err(bad("expected a key")),
                    }
                    i += 1;
                }
                Top::Key => {
                    // Keys of a list are short: byte by byte.
                    if self.key_esc {
                        self.key_esc = false;
                        self.buf.push(c);
                    } else if c == b'\\' {
                        self.key_esc = true;
                        self.buf.push(c);
                    } else if c == b'"' {
                        self.member = match self.buf.as_slice() {
                            b"metadata" => Member::Metadata,
                            b"items" => Member::Items,
                            _ => Member::Other,
                        };
                        self.buf.clear();
                        self.top = Top::Colon;
                    } else {
                        self.buf.push(c);
                    }
                    i += 1;
                }
                Top::Colon => {
                    if c == b':' {
                        self.top = Top::Value;
                    } else if !is_ws(c) {
                        return Err(bad("expected ':'"));
                    }
                    i += 1;
                }
                Top::Value => {
                    if is_ws(c) {
                        i += 1;
                    } else if self.member == Member::Items && c == b'[' {
                        self.top = Top::Items;
                        i += 1;
                    } else {
                        // `metadata`, any other member, or `items: null`: scanned whole.
                        self.top = Top::Scalar;
                        self.scan = Scan::default();
                        self.buf.clear();
                    }
                }
                Top::Scalar => {
                    let rest = &chunk[i..];
                    match self.scan.advance(rest) {
                        Some(n) => {
                            if self.member == Member::Metadata {
                                self.buf.extend_from_slice(&rest[..n]);
                                let meta: ListMeta = serde_json::from_slice(&self.buf)
                                    .map_err(|e| bad(format!("metadata: {e}")))?;
                                self.meta = Some(meta);
                            }
                            self.buf.clear();
                            self.top = Top::BeforeKey;
                            i += n;
                        }
                        None => {
                            if self.member == Member::Metadata {
                                self.buf.extend_from_slice(rest);
                            }
                            i = chunk.len();
                        }
                    }
                }
                Top::Items => match c {
                    b']' => {
                        self.top = Top::BeforeKey;
                        i += 1;
                    }
                    b',' => i += 1,
                    c if is_ws(c) => i += 1,
                    _ => {
                        self.top = Top::Item;
                        self.scan = Scan::default();
                        self.buf.clear();
                    }
                },
                Top::Item => {
                    let rest = &chunk[i..];
                    match self.scan.advance(rest) {
                        Some(n) => {
                            if self.buf.is_empty() {
                                // The whole item is in this chunk: no copy.
                                item(&rest[..n]);
                            } else {
                                self.buf.extend_from_slice(&rest[..n]);
                                item(&self.buf);
                                self.buf.clear();
                            }
                            self.top = Top::Items;
                            i += n;
                        }
                        None => {
                            self.buf.extend_from_slice(rest);
                            i = chunk.len();
                        }
                    }
                }
                Top::Done => {
                    if !is_ws(c) {
                        return Err(bad("trailing data after the list"));
                    }
                    i += 1;
                }
            }
        }
        // A value that does not fit a chunk keeps only its own bytes; release a big buffer once
        // it is done with.
        if self.buf.is_empty() && self.buf.capacity() > 1 << 20 {
            self.buf = Vec::new();
        }
        Ok(())
    }

    /// The body ended: its metadata (defaults when absent).
    pub fn finish(&mut self) -> Result<ListMeta, Error> {
        if self.top != Top::Done {
            return Err(bad("ended before the list was complete"));
        }
        Ok(self.meta.take().unwrap_or_default())
    }
}

/// Decodes one object from its JSON text.
pub type JsonObjectDecoder<K> =
    std::sync::Arc<dyn Fn(&str) -> Result<K, serde_json::Error> + Send + Sync>;

/// [`ListBodyDecoder`] for JSON: [`JsonListSplitter`] and an object decoder.
pub struct JsonListDecoder<K> {
    splitter: JsonListSplitter,
    decode: JsonObjectDecoder<K>,
    malformed: usize,
}

impl<K> JsonListDecoder<K> {
    pub fn new(decode: JsonObjectDecoder<K>) -> Self {
        Self {
            splitter: JsonListSplitter::new(),
            decode,
            malformed: 0,
        }
    }
}

impl<K> ListBodyDecoder<K> for JsonListDecoder<K> {
    fn feed(&mut self, chunk: &[u8], sink: &mut dyn FnMut(K)) -> Result<(), Error> {
        let decode = &self.decode;
        let malformed = &mut self.malformed;
        self.splitter.feed(chunk, &mut |bytes| {
            let result = std::str::from_utf8(bytes)
                .map_err(|e| e.to_string())
                .and_then(|json| decode(json).map_err(|e| e.to_string()));
            match result {
                Ok(obj) => sink(obj),
                Err(e) => {
                    *malformed += 1;
                    let text = String::from_utf8_lossy(bytes);
                    tracing::warn!(error = %e, item = %super::list_watch::identify(&text),
                        "skipping malformed object in list body");
                }
            }
        })
    }

    fn meta(&self) -> Option<&ListMeta> {
        self.splitter.meta()
    }

    fn finish(&mut self) -> Result<(ListMeta, usize), Error> {
        let meta = self.splitter.finish()?;
        Ok((meta, self.malformed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_all(body: &[u8], chunk: usize) -> Result<(Vec<String>, ListMeta), Error> {
        let mut s = JsonListSplitter::new();
        let mut items = Vec::new();
        for c in body.chunks(chunk.max(1)) {
            s.feed(c, &mut |b| {
                items.push(String::from_utf8(b.to_vec()).unwrap())
            })?;
        }
        Ok((items, s.finish()?))
    }

    const BODY: &str = r#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"c\"1"},"items":[{"metadata":{"name":"a","annotations":{"x":"}]\\\"{"}}},
      {"metadata":{"name":"b"},"n":[1,[2,{}]],"s":"]"} , {"metadata":{"name":"c"}}]}"#;

    #[test]
    fn items_are_split_exactly_whatever_the_chunking() {
        let (whole, meta) = split_all(BODY.as_bytes(), BODY.len()).unwrap();
        assert_eq!(whole.len(), 3);
        assert_eq!(
            whole[0],
            r#"{"metadata":{"name":"a","annotations":{"x":"}]\\\"{"}}}"#
        );
        assert_eq!(
            whole[1],
            r#"{"metadata":{"name":"b"},"n":[1,[2,{}]],"s":"]"}"#
        );
        assert_eq!(meta.resource_version.as_deref(), Some("42"));
        assert_eq!(meta.continue_token.as_deref(), Some("c\"1"));
        for chunk in 1..40 {
            let (items, m) = split_all(BODY.as_bytes(), chunk).unwrap();
            assert_eq!(items, whole, "chunk size {chunk}");
            assert_eq!(m, meta);
        }
    }

    #[test]
    fn metadata_after_items_and_unknown_members_are_handled() {
        let body = br#"{"items":[{"a":1},{"b":"x"}],"extra":[1,2,{"z":null}],"n":12,"t":true,"metadata":{"resourceVersion":"7"}}"#;
        for chunk in 1..20 {
            let (items, meta) = split_all(body, chunk).unwrap();
            assert_eq!(items, vec![r#"{"a":1}"#, r#"{"b":"x"}"#]);
            assert_eq!(meta.resource_version.as_deref(), Some("7"));
        }
    }

    #[test]
    fn empty_and_null_items_are_empty_lists() {
        for body in [
            &br#"{"metadata":{"resourceVersion":"1"},"items":[]}"#[..],
            br#"{"metadata":{"resourceVersion":"1"},"items":null}"#,
            br#" { "metadata" : { "resourceVersion" : "1" } } "#,
        ] {
            let (items, meta) = split_all(body, 3).unwrap();
            assert!(items.is_empty());
            assert_eq!(meta.resource_version.as_deref(), Some("1"));
        }
    }

    #[test]
    fn truncated_or_non_object_bodies_are_errors_not_panics() {
        assert!(split_all(br#"{"items":[{"a":1}"#, 4).is_err());
        assert!(split_all(br#"[1,2]"#, 4).is_err());
        assert!(split_all(br#"{"metadata":{"resourceVersion":1}}"#, 4).is_err());
        assert!(split_all(b"", 4).is_err());
        assert!(split_all(br#"{"a":1} x"#, 4).is_err());
    }

    #[test]
    fn json_decoder_skips_malformed_items_and_counts_them() {
        let mut d: JsonListDecoder<serde_json::Value> =
            JsonListDecoder::new(std::sync::Arc::new(|s: &str| serde_json::from_str(s)));
        let body = br#"{"metadata":{"resourceVersion":"3"},"items":[{"a":1},{"b":tru},{"c":3}]}"#;
        let mut out = Vec::new();
        for c in body.chunks(5) {
            d.feed(c, &mut |v| out.push(v)).unwrap();
        }
        let (meta, malformed) = d.finish().unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(malformed, 1);
        assert_eq!(meta.resource_version.as_deref(), Some("3"));
    }
}
