//! SPDY/3.1 for `kubectl port-forward`: the framer (frames, zlib header blocks primed with the
//! SPDY/3 dictionary) and the server side of the `portforward.k8s.io` stream protocol.
//!
//! kubectl 1.31+ opens a websocket with subprotocol `SPDY/3.1+portforward.k8s.io` and tunnels
//! SPDY frames inside binary messages (a byte stream: frames may span messages); older kubectl
//! (or a failed websocket upgrade) sends `POST` with `Upgrade: SPDY/3.1` and
//! `X-Stream-Protocol-Version: portforward.k8s.io` and speaks SPDY on the raw connection. Both
//! drive the same [`PortForwardSession`], a sans-IO state machine: bytes in, frames out.
//!
//! Per forwarded connection the client opens two streams carrying the headers `streamType`
//! (`error` then `data`), `port` and `requestID`; the server replies to each (SYN_REPLY), answers
//! the HTTP request read on the data stream with the demo pod's page and half-closes both streams
//! (DATA with FLAG_FIN), as the kubelet does when the container closes the connection. A port
//! the pod does not declare gets a message on the error stream. PINGs are echoed; SETTINGS and
//! WINDOW_UPDATE are accepted (answers are far below the 64 KiB initial window).

use crate::informer::wire_values as wv;
use std::collections::HashMap;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress};
use futures::{SinkExt as _, StreamExt as _};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use super::error::StatusError;
use super::exec::normal_close;
use super::portforward::http_page;

/// The subprotocol kubectl offers for SPDY tunneled over a websocket.
pub const TUNNEL_PROTOCOL: &str = "SPDY/3.1+portforward.k8s.io";
/// The stream protocol negotiated by `X-Stream-Protocol-Version` on a plain SPDY upgrade.
pub const PORTFORWARD_PROTOCOL: &str = "portforward.k8s.io";

const VERSION: u16 = 3;
pub const FLAG_FIN: u8 = 0x01;

const SYN_STREAM: u16 = 1;
const SYN_REPLY: u16 = 2;
const RST_STREAM: u16 = 3;
const SETTINGS: u16 = 4;
const PING: u16 = 6;
const GOAWAY: u16 = 7;
const HEADERS: u16 = 8;
const WINDOW_UPDATE: u16 = 9;

/// RST_STREAM status: the stream was refused / is not known.
pub const RST_PROTOCOL_ERROR: u32 = 1;
pub const RST_INVALID_STREAM: u32 = 2;

/// Headers of a SYN_STREAM, SYN_REPLY or HEADERS frame: lowercase names, values in order.
pub type HeaderList = Vec<(String, String)>;

/// One SPDY/3 frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    SynStream {
        stream: u32,
        associated: u32,
        priority: u8,
        flags: u8,
        headers: HeaderList,
    },
    SynReply {
        stream: u32,
        flags: u8,
        headers: HeaderList,
    },
    RstStream {
        stream: u32,
        status: u32,
    },
    Settings {
        flags: u8,
        /// (flags, id, value)
        entries: Vec<(u8, u32, u32)>,
    },
    Ping(u32),
    GoAway {
        last_good: u32,
        status: u32,
    },
    Headers {
        stream: u32,
        flags: u8,
        headers: HeaderList,
    },
    WindowUpdate {
        stream: u32,
        delta: u32,
    },
    Data {
        stream: u32,
        flags: u8,
        data: Vec<u8>,
    },
    /// A control frame of a type SPDY/3 does not define (to be ignored, as the spec says).
    Unknown {
        kind: u16,
    },
}

/// A malformed frame or header block: the connection cannot go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpdyError(pub String);

impl std::fmt::Display for SpdyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "spdy: {}", self.0)
    }
}

impl std::error::Error for SpdyError {}

fn err(m: impl Into<String>) -> SpdyError {
    SpdyError(m.into())
}

/// One direction's zlib stream state, both directions, and the bytes not yet framed. Each side
/// of a SPDY connection has one compression context for all the header blocks it sends.
pub struct Framer {
    inflate: Decompress,
    deflate: Compress,
    deflate_primed: bool,
    pending: Vec<u8>,
}

impl Default for Framer {
    fn default() -> Self {
        Self::new()
    }
}

impl Framer {
    pub fn new() -> Self {
        Self {
            inflate: Decompress::new(true),
            deflate: Compress::new(Compression::default(), true),
            deflate_primed: false,
            pending: Vec::new(),
        }
    }

    /// Bytes read from the peer (any split: a frame may arrive in pieces).
    pub fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
    }

    /// The next complete frame pushed, if any.
    pub fn next_frame(&mut self) -> Result<Option<Frame>, SpdyError> {
        if self.pending.len() < 8 {
            return Ok(None);
        }
        let len = usize::from(self.pending[5]) << 16
            | usize::from(self.pending[6]) << 8
            | usize::from(self.pending[7]);
        if self.pending.len() < 8 + len {
            return Ok(None);
        }
        let head: [u8; 8] = [
            self.pending[0],
            self.pending[1],
            self.pending[2],
            self.pending[3],
            self.pending[4],
            self.pending[5],
            self.pending[6],
            self.pending[7],
        ];
        let body: Vec<u8> = self.pending.drain(..8 + len).skip(8).collect();
        let flags = head[4];
        if head[0] & 0x80 == 0 {
            let stream = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
            return Ok(Some(Frame::Data {
                stream,
                flags,
                data: body,
            }));
        }
        let version = u16::from_be_bytes([head[0] & 0x7f, head[1]]);
        if version != VERSION {
            return Err(err(format!("unsupported SPDY version {version}")));
        }
        let kind = u16::from_be_bytes([head[2], head[3]]);
        let word = |i: usize| -> Result<u32, SpdyError> {
            body.get(i..i + 4)
                .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
                .ok_or_else(|| err(format!("control frame {kind} too short")))
        };
        let frame = match kind {
            SYN_STREAM => {
                let stream = word(0)? & 0x7fff_ffff;
                let associated = word(4)? & 0x7fff_ffff;
                let priority = body.get(8).copied().unwrap_or(0) >> 5;
                let headers = self.read_headers(body.get(10..).unwrap_or(&[]))?;
                Frame::SynStream {
                    stream,
                    associated,
                    priority,
                    flags,
                    headers,
                }
            }
            SYN_REPLY | HEADERS => {
                let stream = word(0)? & 0x7fff_ffff;
                let headers = self.read_headers(body.get(4..).unwrap_or(&[]))?;
                if kind == SYN_REPLY {
                    Frame::SynReply {
                        stream,
                        flags,
                        headers,
                    }
                } else {
                    Frame::Headers {
                        stream,
                        flags,
                        headers,
                    }
                }
            }
            RST_STREAM => Frame::RstStream {
                stream: word(0)? & 0x7fff_ffff,
                status: word(4)?,
            },
            SETTINGS => {
                let n = word(0)? as usize;
                let mut entries = Vec::with_capacity(n.min(64));
                for i in 0..n {
                    let id = word(4 + 8 * i)?;
                    let value = word(8 + 8 * i)?;
                    entries.push(((id >> 24) as u8, id & 0x00ff_ffff, value));
                }
                Frame::Settings { flags, entries }
            }
            PING => Frame::Ping(word(0)?),
            GOAWAY => Frame::GoAway {
                last_good: word(0)? & 0x7fff_ffff,
                status: word(4).unwrap_or(0),
            },
            WINDOW_UPDATE => Frame::WindowUpdate {
                stream: word(0)? & 0x7fff_ffff,
                delta: word(4)? & 0x7fff_ffff,
            },
            kind => Frame::Unknown { kind },
        };
        Ok(Some(frame))
    }

    /// The bytes of `frame`; header blocks go through this side's compression context.
    pub fn encode(&mut self, frame: &Frame) -> Result<Vec<u8>, SpdyError> {
        let (kind, flags, body) = match frame {
            Frame::Data {
                stream,
                flags,
                data,
            } => {
                let mut out = (stream & 0x7fff_ffff).to_be_bytes().to_vec();
                out.push(*flags);
                out.extend_from_slice(&length(data.len())?);
                out.extend_from_slice(data);
                return Ok(out);
            }
            Frame::SynStream {
                stream,
                associated,
                priority,
                flags,
                headers,
            } => {
                let mut b = stream.to_be_bytes().to_vec();
                b.extend_from_slice(&associated.to_be_bytes());
                b.push(priority << 5);
                b.push(0);
                b.extend(self.write_headers(headers)?);
                (SYN_STREAM, *flags, b)
            }
            Frame::SynReply {
                stream,
                flags,
                headers,
            } => {
                let mut b = stream.to_be_bytes().to_vec();
                b.extend(self.write_headers(headers)?);
                (SYN_REPLY, *flags, b)
            }
            Frame::Headers {
                stream,
                flags,
                headers,
            } => {
                let mut b = stream.to_be_bytes().to_vec();
                b.extend(self.write_headers(headers)?);
                (HEADERS, *flags, b)
            }
            Frame::RstStream { stream, status } => (RST_STREAM, 0, words(&[*stream, *status])),
            Frame::Settings { flags, entries } => {
                let mut b = u32::try_from(entries.len())
                    .map_err(|_| err("too many settings"))?
                    .to_be_bytes()
                    .to_vec();
                for (f, id, value) in entries {
                    b.extend_from_slice(
                        &((u32::from(*f) << 24) | (id & 0x00ff_ffff)).to_be_bytes(),
                    );
                    b.extend_from_slice(&value.to_be_bytes());
                }
                (SETTINGS, *flags, b)
            }
            Frame::Ping(id) => (PING, 0, words(&[*id])),
            Frame::GoAway { last_good, status } => (GOAWAY, 0, words(&[*last_good, *status])),
            Frame::WindowUpdate { stream, delta } => (WINDOW_UPDATE, 0, words(&[*stream, *delta])),
            Frame::Unknown { kind } => (*kind, 0, Vec::new()),
        };
        let mut out = (0x8000u16 | VERSION).to_be_bytes().to_vec();
        out.extend_from_slice(&kind.to_be_bytes());
        out.push(flags);
        out.extend_from_slice(&length(body.len())?);
        out.extend(body);
        Ok(out)
    }

    fn read_headers(&mut self, block: &[u8]) -> Result<HeaderList, SpdyError> {
        let raw = self.inflate_block(block)?;
        parse_header_block(&raw)
    }

    fn write_headers(&mut self, headers: &HeaderList) -> Result<Vec<u8>, SpdyError> {
        if !self.deflate_primed {
            self.deflate
                .set_dictionary(DICTIONARY)
                .map_err(|e| err(format!("deflate dictionary: {e}")))?;
            self.deflate_primed = true;
        }
        let raw = header_block(headers)?;
        let mut out = Vec::with_capacity(raw.len() + 64);
        let mut pos = 0;
        loop {
            if out.capacity() - out.len() < 64 {
                out.reserve(256);
            }
            let before = self.deflate.total_in();
            self.deflate
                .compress_vec(&raw[pos..], &mut out, FlushCompress::Sync)
                .map_err(|e| err(format!("deflate: {e}")))?;
            pos += usize::try_from(self.deflate.total_in() - before).unwrap_or(0);
            // Done once all the input is in and the flush left room to spare.
            if pos >= raw.len() && out.capacity() - out.len() > 0 {
                break;
            }
        }
        Ok(out)
    }

    fn inflate_block(&mut self, block: &[u8]) -> Result<Vec<u8>, SpdyError> {
        let mut out = Vec::with_capacity(block.len().saturating_mul(4).min(MAX_HEADER_BLOCK) + 256);
        let mut pos = 0;
        loop {
            if out.len() > MAX_HEADER_BLOCK {
                // A few kilobytes of deflate can claim gigabytes: stop at the cap.
                return Err(err(format!(
                    "header block inflates past {MAX_HEADER_BLOCK} bytes"
                )));
            }
            if out.capacity() - out.len() < 256 {
                out.reserve(4096);
            }
            let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
            let r = self
                .inflate
                .decompress_vec(&block[pos..], &mut out, FlushDecompress::Sync);
            let consumed = usize::try_from(self.inflate.total_in() - in0).unwrap_or(0);
            let produced = self.inflate.total_out() - out0;
            pos += consumed;
            match r {
                Ok(_) => {}
                Err(e) if e.needs_dictionary().is_some() => {
                    self.inflate
                        .set_dictionary(DICTIONARY)
                        .map_err(|e| err(format!("inflate dictionary: {e}")))?;
                    continue;
                }
                Err(e) => return Err(err(format!("header block: {e}"))),
            }
            if pos >= block.len() && out.capacity() - out.len() > 0 {
                break;
            }
            if consumed == 0 && produced == 0 {
                return Err(err("header block: inflate made no progress"));
            }
        }
        Ok(out)
    }
}

/// The largest header block accepted once inflated (Go's `http.DefaultMaxHeaderBytes`, 1 MiB):
/// real header blocks are a few hundred bytes.
pub const MAX_HEADER_BLOCK: usize = 1 << 20;

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_be_bytes()).collect()
}

fn length(n: usize) -> Result<[u8; 3], SpdyError> {
    if n > 0x00ff_ffff {
        return Err(err(format!("frame of {n} bytes is too large")));
    }
    let [_, a, b, c] = u32::try_from(n)
        .map_err(|_| err("frame too large"))?
        .to_be_bytes();
    Ok([a, b, c])
}

/// The uncompressed header block: count, then length-prefixed lowercase names and values.
pub fn header_block(headers: &HeaderList) -> Result<Vec<u8>, SpdyError> {
    let n = |x: usize| u32::try_from(x).map_err(|_| err("header block too large"));
    let mut out = n(headers.len())?.to_be_bytes().to_vec();
    for (k, v) in headers {
        let k = k.to_ascii_lowercase();
        out.extend_from_slice(&n(k.len())?.to_be_bytes());
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(&n(v.len())?.to_be_bytes());
        out.extend_from_slice(v.as_bytes());
    }
    Ok(out)
}

/// Parse an uncompressed header block.
pub fn parse_header_block(raw: &[u8]) -> Result<HeaderList, SpdyError> {
    let mut pos = 0usize;
    let word = |pos: &mut usize| -> Result<usize, SpdyError> {
        let b = raw
            .get(*pos..*pos + 4)
            .ok_or_else(|| err("header block truncated"))?;
        *pos += 4;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let count = word(&mut pos)?;
    let mut out = Vec::with_capacity(count.min(64));
    for _ in 0..count {
        let text = |pos: &mut usize| -> Result<String, SpdyError> {
            let len = word(pos)?;
            let b = raw
                .get(*pos..*pos + len)
                .ok_or_else(|| err("header block truncated"))?;
            *pos += len;
            String::from_utf8(b.to_vec()).map_err(|_| err("header is not UTF-8"))
        };
        let k = text(&mut pos)?;
        let v = text(&mut pos)?;
        out.push((k, v));
    }
    Ok(out)
}

/// One forwarded connection's data stream.
struct DataStream {
    port: u16,
    request_id: String,
    request: Vec<u8>,
    answered: bool,
}

/// The server side of `portforward.k8s.io` over SPDY for one pod: feed it the client's bytes,
/// write back the bytes it returns, stop when [`PortForwardSession::finished`].
pub struct PortForwardSession {
    framer: Framer,
    ns: String,
    pod: String,
    /// The pod's declared container ports: (port, container, port name).
    declared: Vec<(u16, String, String)>,
    data: HashMap<u32, DataStream>,
    /// requestID -> error stream id.
    errors: HashMap<String, u32>,
    finished: bool,
    /// Forwarded connections answered (for the log).
    pub answered: usize,
}

impl PortForwardSession {
    pub fn new(ns: String, pod: String, declared: Vec<(u16, String, String)>) -> Self {
        Self {
            framer: Framer::new(),
            ns,
            pod,
            declared,
            data: HashMap::new(),
            errors: HashMap::new(),
            finished: false,
            answered: 0,
        }
    }

    /// The client said GOAWAY, or sent something that ends the connection.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Bytes from the client; the frames to send back, each encoded.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<Vec<u8>>, SpdyError> {
        self.framer.push(bytes);
        let mut out = Vec::new();
        while let Some(frame) = self.framer.next_frame()? {
            for reply in self.on_frame(frame) {
                out.push(self.framer.encode(&reply)?);
            }
            if self.finished {
                break;
            }
        }
        Ok(out)
    }

    fn on_frame(&mut self, frame: Frame) -> Vec<Frame> {
        match frame {
            Frame::SynStream {
                stream, headers, ..
            } => self.on_syn(stream, &headers),
            Frame::Data { stream, data, .. } => self.on_data(stream, &data),
            Frame::Ping(id) => vec![Frame::Ping(id)],
            Frame::RstStream { stream, .. } => {
                self.data.remove(&stream);
                self.errors.retain(|_, s| *s != stream);
                Vec::new()
            }
            Frame::GoAway { .. } => {
                self.finished = true;
                Vec::new()
            }
            Frame::SynReply { .. }
            | Frame::Headers { .. }
            | Frame::Settings { .. }
            | Frame::WindowUpdate { .. }
            | Frame::Unknown { .. } => Vec::new(),
        }
    }

    fn on_syn(&mut self, stream: u32, headers: &HeaderList) -> Vec<Frame> {
        let get = |name: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        let port = get("port").and_then(|p| p.parse::<u16>().ok());
        let request_id = get("requestid").unwrap_or("").to_string();
        let (Some(port), Some(kind)) = (port, get("streamtype")) else {
            // The kubelet refuses a stream without a valid port or type.
            return vec![Frame::RstStream {
                stream,
                status: RST_PROTOCOL_ERROR,
            }];
        };
        let mut out = vec![Frame::SynReply {
            stream,
            flags: 0,
            headers: Vec::new(),
        }];
        match kind {
            "error" => {
                self.errors.insert(request_id, stream);
            }
            "data" => {
                if self.declared.iter().any(|(p, _, _)| *p == port) {
                    self.data.insert(
                        stream,
                        DataStream {
                            port,
                            request_id,
                            request: Vec::new(),
                            answered: false,
                        },
                    );
                } else {
                    let msg = format!(
                        "error forwarding port {port} to pod {}/{}: failed to connect to localhost:{port}: connection refused (the pod declares no such container port)",
                        self.ns, self.pod
                    );
                    if let Some(err_stream) = self.errors.remove(&request_id) {
                        out.push(Frame::Data {
                            stream: err_stream,
                            flags: 0,
                            data: msg.into_bytes(),
                        });
                        out.push(fin(err_stream));
                    }
                    out.push(fin(stream));
                }
            }
            _ => {
                return vec![Frame::RstStream {
                    stream,
                    status: RST_PROTOCOL_ERROR,
                }];
            }
        }
        out
    }

    fn on_data(&mut self, stream: u32, data: &[u8]) -> Vec<Frame> {
        let Some(ds) = self.data.get_mut(&stream) else {
            // Data on an error stream (the client writes none) or a closed one: nothing to do.
            return Vec::new();
        };
        if ds.answered {
            return Vec::new();
        }
        ds.request.extend_from_slice(data);
        let complete = ds.request.windows(4).any(|w| w == b"\r\n\r\n");
        if !complete && ds.request.len() < 64 * 1024 {
            return Vec::new();
        }
        ds.answered = true;
        let text = String::from_utf8_lossy(&ds.request);
        let line = text.lines().next().unwrap_or("").to_string();
        let container = self
            .declared
            .iter()
            .find(|(p, _, _)| *p == ds.port)
            .map(|(_, c, _)| c.as_str())
            .unwrap_or("");
        let page = http_page(&self.ns, &self.pod, container, ds.port, &line);
        let request_id = ds.request_id.clone();
        self.data.remove(&stream);
        self.answered += 1;
        let mut out = vec![Frame::Data {
            stream,
            flags: FLAG_FIN,
            data: page.into_bytes(),
        }];
        if let Some(err_stream) = self.errors.remove(&request_id) {
            out.push(fin(err_stream));
        }
        out
    }
}

fn fin(stream: u32) -> Frame {
    Frame::Data {
        stream,
        flags: FLAG_FIN,
        data: Vec::new(),
    }
}

/// Run `session` over a websocket carrying SPDY in binary messages (kubectl 1.31+).
pub async fn serve_tunneled<S>(ws: WebSocketStream<S>, mut session: PortForwardSession)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let (mut tx, mut rx) = ws.split();
    while let Some(Ok(msg)) = rx.next().await {
        let bytes = match msg {
            Message::Binary(b) => b,
            Message::Close(_) => break,
            _ => continue,
        };
        match session.feed(&bytes) {
            Ok(frames) => {
                for f in frames {
                    if tx.send(Message::binary(f)).await.is_err() {
                        return;
                    }
                }
            }
            Err(e) => {
                tracing::debug!(error = %e, "demo port-forward: bad SPDY from the client");
                break;
            }
        }
        if session.finished() {
            break;
        }
    }
    tracing::debug!(
        answered = session.answered,
        "demo port-forward (SPDY tunnel) ended"
    );
    let _ = tx.send(normal_close()).await;
    let _ = tx.flush().await;
}

/// Run `session` on a connection upgraded to plain SPDY/3.1.
pub async fn serve_raw<IO>(mut io: IO, mut session: PortForwardSession)
where
    IO: AsyncRead + AsyncWrite + Unpin,
{
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        let n = match io.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        match session.feed(&buf[..n]) {
            Ok(frames) => {
                for f in frames {
                    if io.write_all(&f).await.is_err() {
                        return;
                    }
                }
                if io.flush().await.is_err() {
                    return;
                }
            }
            Err(e) => {
                tracing::debug!(error = %e, "demo port-forward: bad SPDY from the client");
                break;
            }
        }
        if session.finished() {
            break;
        }
    }
    tracing::debug!(
        answered = session.answered,
        "demo port-forward (SPDY) ended"
    );
    let _ = io.shutdown().await;
}

/// Whether the request asks for a plain SPDY/3.1 upgrade.
pub fn is_spdy_upgrade(headers: &HeaderMap) -> bool {
    headers
        .get(header::UPGRADE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("SPDY/3.1"))
}

/// Whether a websocket request offers the SPDY tunnel subprotocol.
pub fn offers_tunnel(headers: &HeaderMap) -> bool {
    headers
        .get_all(header::SEC_WEBSOCKET_PROTOCOL)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|p| p.trim() == TUNNEL_PROTOCOL)
}

/// Answer a plain SPDY/3.1 upgrade (`X-Stream-Protocol-Version: portforward.k8s.io`) and run
/// `session` on the upgraded connection.
pub fn upgrade_raw(mut req: Request, session: PortForwardSession) -> Response {
    let offered: Vec<String> = req
        .headers()
        .get_all("x-stream-protocol-version")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(',').map(|p| p.trim().to_string()))
        .collect();
    if !offered.is_empty() && !offered.iter().any(|p| p == PORTFORWARD_PROTOCOL) {
        return StatusError::new(
            403,
            wv::REASON_FORBIDDEN,
            format!(
                "unable to upgrade: unable to negotiate protocol: client supports {offered:?}, server supports [\"{PORTFORWARD_PROTOCOL}\"]"
            ),
        )
        .into_response();
    }
    let on_upgrade = hyper::upgrade::on(&mut req);
    tokio::spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => serve_raw(hyper_util::rt::TokioIo::new(upgraded), session).await,
            Err(e) => tracing::debug!(error = %e, "SPDY upgrade failed"),
        }
    });
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = r.headers_mut();
    h.insert(header::CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(header::UPGRADE, HeaderValue::from_static("SPDY/3.1"));
    h.insert(
        "x-stream-protocol-version",
        HeaderValue::from_static(PORTFORWARD_PROTOCOL),
    );
    r
}

/// The SPDY/3 header compression dictionary (draft-mbelshe-httpbis-spdy-00, section 2.6.10.1):
/// both sides prime zlib with it. Must be byte-exact (its adler-32 is the zlib dictionary id).
#[rustfmt::skip]
pub const DICTIONARY: &[u8] = &[
    0x00, 0x00, 0x00, 0x07, 0x6f, 0x70, 0x74, 0x69, 0x6f, 0x6e, 0x73, 0x00, 0x00, 0x00, 0x04, 0x68,
    0x65, 0x61, 0x64, 0x00, 0x00, 0x00, 0x04, 0x70, 0x6f, 0x73, 0x74, 0x00, 0x00, 0x00, 0x03, 0x70,
    0x75, 0x74, 0x00, 0x00, 0x00, 0x06, 0x64, 0x65, 0x6c, 0x65, 0x74, 0x65, 0x00, 0x00, 0x00, 0x05,
    0x74, 0x72, 0x61, 0x63, 0x65, 0x00, 0x00, 0x00, 0x06, 0x61, 0x63, 0x63, 0x65, 0x70, 0x74, 0x00,
    0x00, 0x00, 0x0e, 0x61, 0x63, 0x63, 0x65, 0x70, 0x74, 0x2d, 0x63, 0x68, 0x61, 0x72, 0x73, 0x65,
    0x74, 0x00, 0x00, 0x00, 0x0f, 0x61, 0x63, 0x63, 0x65, 0x70, 0x74, 0x2d, 0x65, 0x6e, 0x63, 0x6f,
    0x64, 0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x0f, 0x61, 0x63, 0x63, 0x65, 0x70, 0x74, 0x2d, 0x6c,
    0x61, 0x6e, 0x67, 0x75, 0x61, 0x67, 0x65, 0x00, 0x00, 0x00, 0x0d, 0x61, 0x63, 0x63, 0x65, 0x70,
    0x74, 0x2d, 0x72, 0x61, 0x6e, 0x67, 0x65, 0x73, 0x00, 0x00, 0x00, 0x03, 0x61, 0x67, 0x65, 0x00,
    0x00, 0x00, 0x05, 0x61, 0x6c, 0x6c, 0x6f, 0x77, 0x00, 0x00, 0x00, 0x0d, 0x61, 0x75, 0x74, 0x68,
    0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x0d, 0x63, 0x61, 0x63,
    0x68, 0x65, 0x2d, 0x63, 0x6f, 0x6e, 0x74, 0x72, 0x6f, 0x6c, 0x00, 0x00, 0x00, 0x0a, 0x63, 0x6f,
    0x6e, 0x6e, 0x65, 0x63, 0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x0c, 0x63, 0x6f, 0x6e, 0x74,
    0x65, 0x6e, 0x74, 0x2d, 0x62, 0x61, 0x73, 0x65, 0x00, 0x00, 0x00, 0x10, 0x63, 0x6f, 0x6e, 0x74,
    0x65, 0x6e, 0x74, 0x2d, 0x65, 0x6e, 0x63, 0x6f, 0x64, 0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x10,
    0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6c, 0x61, 0x6e, 0x67, 0x75, 0x61, 0x67, 0x65,
    0x00, 0x00, 0x00, 0x0e, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6c, 0x65, 0x6e, 0x67,
    0x74, 0x68, 0x00, 0x00, 0x00, 0x10, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x2d, 0x6c, 0x6f,
    0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x0b, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e,
    0x74, 0x2d, 0x6d, 0x64, 0x35, 0x00, 0x00, 0x00, 0x0d, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74,
    0x2d, 0x72, 0x61, 0x6e, 0x67, 0x65, 0x00, 0x00, 0x00, 0x0c, 0x63, 0x6f, 0x6e, 0x74, 0x65, 0x6e,
    0x74, 0x2d, 0x74, 0x79, 0x70, 0x65, 0x00, 0x00, 0x00, 0x04, 0x64, 0x61, 0x74, 0x65, 0x00, 0x00,
    0x00, 0x04, 0x65, 0x74, 0x61, 0x67, 0x00, 0x00, 0x00, 0x06, 0x65, 0x78, 0x70, 0x65, 0x63, 0x74,
    0x00, 0x00, 0x00, 0x07, 0x65, 0x78, 0x70, 0x69, 0x72, 0x65, 0x73, 0x00, 0x00, 0x00, 0x04, 0x66,
    0x72, 0x6f, 0x6d, 0x00, 0x00, 0x00, 0x04, 0x68, 0x6f, 0x73, 0x74, 0x00, 0x00, 0x00, 0x08, 0x69,
    0x66, 0x2d, 0x6d, 0x61, 0x74, 0x63, 0x68, 0x00, 0x00, 0x00, 0x11, 0x69, 0x66, 0x2d, 0x6d, 0x6f,
    0x64, 0x69, 0x66, 0x69, 0x65, 0x64, 0x2d, 0x73, 0x69, 0x6e, 0x63, 0x65, 0x00, 0x00, 0x00, 0x0d,
    0x69, 0x66, 0x2d, 0x6e, 0x6f, 0x6e, 0x65, 0x2d, 0x6d, 0x61, 0x74, 0x63, 0x68, 0x00, 0x00, 0x00,
    0x08, 0x69, 0x66, 0x2d, 0x72, 0x61, 0x6e, 0x67, 0x65, 0x00, 0x00, 0x00, 0x13, 0x69, 0x66, 0x2d,
    0x75, 0x6e, 0x6d, 0x6f, 0x64, 0x69, 0x66, 0x69, 0x65, 0x64, 0x2d, 0x73, 0x69, 0x6e, 0x63, 0x65,
    0x00, 0x00, 0x00, 0x0d, 0x6c, 0x61, 0x73, 0x74, 0x2d, 0x6d, 0x6f, 0x64, 0x69, 0x66, 0x69, 0x65,
    0x64, 0x00, 0x00, 0x00, 0x08, 0x6c, 0x6f, 0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00,
    0x0c, 0x6d, 0x61, 0x78, 0x2d, 0x66, 0x6f, 0x72, 0x77, 0x61, 0x72, 0x64, 0x73, 0x00, 0x00, 0x00,
    0x06, 0x70, 0x72, 0x61, 0x67, 0x6d, 0x61, 0x00, 0x00, 0x00, 0x12, 0x70, 0x72, 0x6f, 0x78, 0x79,
    0x2d, 0x61, 0x75, 0x74, 0x68, 0x65, 0x6e, 0x74, 0x69, 0x63, 0x61, 0x74, 0x65, 0x00, 0x00, 0x00,
    0x13, 0x70, 0x72, 0x6f, 0x78, 0x79, 0x2d, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61,
    0x74, 0x69, 0x6f, 0x6e, 0x00, 0x00, 0x00, 0x05, 0x72, 0x61, 0x6e, 0x67, 0x65, 0x00, 0x00, 0x00,
    0x07, 0x72, 0x65, 0x66, 0x65, 0x72, 0x65, 0x72, 0x00, 0x00, 0x00, 0x0b, 0x72, 0x65, 0x74, 0x72,
    0x79, 0x2d, 0x61, 0x66, 0x74, 0x65, 0x72, 0x00, 0x00, 0x00, 0x06, 0x73, 0x65, 0x72, 0x76, 0x65,
    0x72, 0x00, 0x00, 0x00, 0x02, 0x74, 0x65, 0x00, 0x00, 0x00, 0x07, 0x74, 0x72, 0x61, 0x69, 0x6c,
    0x65, 0x72, 0x00, 0x00, 0x00, 0x11, 0x74, 0x72, 0x61, 0x6e, 0x73, 0x66, 0x65, 0x72, 0x2d, 0x65,
    0x6e, 0x63, 0x6f, 0x64, 0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x07, 0x75, 0x70, 0x67, 0x72, 0x61,
    0x64, 0x65, 0x00, 0x00, 0x00, 0x0a, 0x75, 0x73, 0x65, 0x72, 0x2d, 0x61, 0x67, 0x65, 0x6e, 0x74,
    0x00, 0x00, 0x00, 0x04, 0x76, 0x61, 0x72, 0x79, 0x00, 0x00, 0x00, 0x03, 0x76, 0x69, 0x61, 0x00,
    0x00, 0x00, 0x07, 0x77, 0x61, 0x72, 0x6e, 0x69, 0x6e, 0x67, 0x00, 0x00, 0x00, 0x10, 0x77, 0x77,
    0x77, 0x2d, 0x61, 0x75, 0x74, 0x68, 0x65, 0x6e, 0x74, 0x69, 0x63, 0x61, 0x74, 0x65, 0x00, 0x00,
    0x00, 0x06, 0x6d, 0x65, 0x74, 0x68, 0x6f, 0x64, 0x00, 0x00, 0x00, 0x03, 0x67, 0x65, 0x74, 0x00,
    0x00, 0x00, 0x06, 0x73, 0x74, 0x61, 0x74, 0x75, 0x73, 0x00, 0x00, 0x00, 0x06, 0x32, 0x30, 0x30,
    0x20, 0x4f, 0x4b, 0x00, 0x00, 0x00, 0x07, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6f, 0x6e, 0x00, 0x00,
    0x00, 0x08, 0x48, 0x54, 0x54, 0x50, 0x2f, 0x31, 0x2e, 0x31, 0x00, 0x00, 0x00, 0x03, 0x75, 0x72,
    0x6c, 0x00, 0x00, 0x00, 0x06, 0x70, 0x75, 0x62, 0x6c, 0x69, 0x63, 0x00, 0x00, 0x00, 0x0a, 0x73,
    0x65, 0x74, 0x2d, 0x63, 0x6f, 0x6f, 0x6b, 0x69, 0x65, 0x00, 0x00, 0x00, 0x0a, 0x6b, 0x65, 0x65,
    0x70, 0x2d, 0x61, 0x6c, 0x69, 0x76, 0x65, 0x00, 0x00, 0x00, 0x06, 0x6f, 0x72, 0x69, 0x67, 0x69,
    0x6e, 0x31, 0x30, 0x30, 0x31, 0x30, 0x31, 0x32, 0x30, 0x31, 0x32, 0x30, 0x32, 0x32, 0x30, 0x35,
    0x32, 0x30, 0x36, 0x33, 0x30, 0x30, 0x33, 0x30, 0x32, 0x33, 0x30, 0x33, 0x33, 0x30, 0x34, 0x33,
    0x30, 0x35, 0x33, 0x30, 0x36, 0x33, 0x30, 0x37, 0x34, 0x30, 0x32, 0x34, 0x30, 0x35, 0x34, 0x30,
    0x36, 0x34, 0x30, 0x37, 0x34, 0x30, 0x38, 0x34, 0x30, 0x39, 0x34, 0x31, 0x30, 0x34, 0x31, 0x31,
    0x34, 0x31, 0x32, 0x34, 0x31, 0x33, 0x34, 0x31, 0x34, 0x34, 0x31, 0x35, 0x34, 0x31, 0x36, 0x34,
    0x31, 0x37, 0x35, 0x30, 0x32, 0x35, 0x30, 0x34, 0x35, 0x30, 0x35, 0x32, 0x30, 0x33, 0x20, 0x4e,
    0x6f, 0x6e, 0x2d, 0x41, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x74, 0x61, 0x74, 0x69, 0x76, 0x65,
    0x20, 0x49, 0x6e, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x32, 0x30, 0x34, 0x20,
    0x4e, 0x6f, 0x20, 0x43, 0x6f, 0x6e, 0x74, 0x65, 0x6e, 0x74, 0x33, 0x30, 0x31, 0x20, 0x4d, 0x6f,
    0x76, 0x65, 0x64, 0x20, 0x50, 0x65, 0x72, 0x6d, 0x61, 0x6e, 0x65, 0x6e, 0x74, 0x6c, 0x79, 0x34,
    0x30, 0x30, 0x20, 0x42, 0x61, 0x64, 0x20, 0x52, 0x65, 0x71, 0x75, 0x65, 0x73, 0x74, 0x34, 0x30,
    0x31, 0x20, 0x55, 0x6e, 0x61, 0x75, 0x74, 0x68, 0x6f, 0x72, 0x69, 0x7a, 0x65, 0x64, 0x34, 0x30,
    0x33, 0x20, 0x46, 0x6f, 0x72, 0x62, 0x69, 0x64, 0x64, 0x65, 0x6e, 0x34, 0x30, 0x34, 0x20, 0x4e,
    0x6f, 0x74, 0x20, 0x46, 0x6f, 0x75, 0x6e, 0x64, 0x35, 0x30, 0x30, 0x20, 0x49, 0x6e, 0x74, 0x65,
    0x72, 0x6e, 0x61, 0x6c, 0x20, 0x53, 0x65, 0x72, 0x76, 0x65, 0x72, 0x20, 0x45, 0x72, 0x72, 0x6f,
    0x72, 0x35, 0x30, 0x31, 0x20, 0x4e, 0x6f, 0x74, 0x20, 0x49, 0x6d, 0x70, 0x6c, 0x65, 0x6d, 0x65,
    0x6e, 0x74, 0x65, 0x64, 0x35, 0x30, 0x33, 0x20, 0x53, 0x65, 0x72, 0x76, 0x69, 0x63, 0x65, 0x20,
    0x55, 0x6e, 0x61, 0x76, 0x61, 0x69, 0x6c, 0x61, 0x62, 0x6c, 0x65, 0x4a, 0x61, 0x6e, 0x20, 0x46,
    0x65, 0x62, 0x20, 0x4d, 0x61, 0x72, 0x20, 0x41, 0x70, 0x72, 0x20, 0x4d, 0x61, 0x79, 0x20, 0x4a,
    0x75, 0x6e, 0x20, 0x4a, 0x75, 0x6c, 0x20, 0x41, 0x75, 0x67, 0x20, 0x53, 0x65, 0x70, 0x74, 0x20,
    0x4f, 0x63, 0x74, 0x20, 0x4e, 0x6f, 0x76, 0x20, 0x44, 0x65, 0x63, 0x20, 0x30, 0x30, 0x3a, 0x30,
    0x30, 0x3a, 0x30, 0x30, 0x20, 0x4d, 0x6f, 0x6e, 0x2c, 0x20, 0x54, 0x75, 0x65, 0x2c, 0x20, 0x57,
    0x65, 0x64, 0x2c, 0x20, 0x54, 0x68, 0x75, 0x2c, 0x20, 0x46, 0x72, 0x69, 0x2c, 0x20, 0x53, 0x61,
    0x74, 0x2c, 0x20, 0x53, 0x75, 0x6e, 0x2c, 0x20, 0x47, 0x4d, 0x54, 0x63, 0x68, 0x75, 0x6e, 0x6b,
    0x65, 0x64, 0x2c, 0x74, 0x65, 0x78, 0x74, 0x2f, 0x68, 0x74, 0x6d, 0x6c, 0x2c, 0x69, 0x6d, 0x61,
    0x67, 0x65, 0x2f, 0x70, 0x6e, 0x67, 0x2c, 0x69, 0x6d, 0x61, 0x67, 0x65, 0x2f, 0x6a, 0x70, 0x67,
    0x2c, 0x69, 0x6d, 0x61, 0x67, 0x65, 0x2f, 0x67, 0x69, 0x66, 0x2c, 0x61, 0x70, 0x70, 0x6c, 0x69,
    0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2f, 0x78, 0x6d, 0x6c, 0x2c, 0x61, 0x70, 0x70, 0x6c, 0x69,
    0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2f, 0x78, 0x68, 0x74, 0x6d, 0x6c, 0x2b, 0x78, 0x6d, 0x6c,
    0x2c, 0x74, 0x65, 0x78, 0x74, 0x2f, 0x70, 0x6c, 0x61, 0x69, 0x6e, 0x2c, 0x74, 0x65, 0x78, 0x74,
    0x2f, 0x6a, 0x61, 0x76, 0x61, 0x73, 0x63, 0x72, 0x69, 0x70, 0x74, 0x2c, 0x70, 0x75, 0x62, 0x6c,
    0x69, 0x63, 0x70, 0x72, 0x69, 0x76, 0x61, 0x74, 0x65, 0x6d, 0x61, 0x78, 0x2d, 0x61, 0x67, 0x65,
    0x3d, 0x67, 0x7a, 0x69, 0x70, 0x2c, 0x64, 0x65, 0x66, 0x6c, 0x61, 0x74, 0x65, 0x2c, 0x73, 0x64,
    0x63, 0x68, 0x63, 0x68, 0x61, 0x72, 0x73, 0x65, 0x74, 0x3d, 0x75, 0x74, 0x66, 0x2d, 0x38, 0x63,
    0x68, 0x61, 0x72, 0x73, 0x65, 0x74, 0x3d, 0x69, 0x73, 0x6f, 0x2d, 0x38, 0x38, 0x35, 0x39, 0x2d,
    0x31, 0x2c, 0x75, 0x74, 0x66, 0x2d, 0x2c, 0x2a, 0x2c, 0x65, 0x6e, 0x71, 0x3d, 0x30, 0x2e,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// A client-side framer: its own compression contexts, as kubectl's is.
    fn client() -> Framer {
        Framer::new()
    }

    fn syn(stream: u32, kind: &str, port: u16, request: u32) -> Frame {
        Frame::SynStream {
            stream,
            associated: 0,
            priority: 0,
            flags: 0,
            headers: vec![
                ("streamtype".into(), kind.into()),
                ("port".into(), port.to_string()),
                ("requestid".into(), request.to_string()),
            ],
        }
    }

    fn decode_all(f: &mut Framer, chunks: &[Vec<u8>]) -> Vec<Frame> {
        let mut out = Vec::new();
        for c in chunks {
            f.push(c);
            while let Some(fr) = f.next_frame().expect("frame") {
                out.push(fr);
            }
        }
        out
    }

    #[test]
    fn every_frame_kind_round_trips_through_the_framer() {
        let frames = vec![
            syn(1, "error", 80, 0),
            Frame::SynReply {
                stream: 1,
                flags: 0,
                headers: vec![],
            },
            Frame::Headers {
                stream: 3,
                flags: FLAG_FIN,
                headers: vec![("x-a".into(), "b\0c".into())],
            },
            Frame::RstStream {
                stream: 5,
                status: RST_INVALID_STREAM,
            },
            Frame::Settings {
                flags: 1,
                entries: vec![(0, 7, 65536), (1, 4, 100)],
            },
            Frame::Ping(42),
            Frame::GoAway {
                last_good: 7,
                status: 0,
            },
            Frame::WindowUpdate {
                stream: 3,
                delta: 1000,
            },
            Frame::Data {
                stream: 3,
                flags: FLAG_FIN,
                data: b"GET / HTTP/1.1\r\n\r\n".to_vec(),
            },
        ];
        let mut tx = client();
        let mut rx = Framer::new();
        let bytes: Vec<Vec<u8>> = frames
            .iter()
            .map(|f| tx.encode(f).expect("encode"))
            .collect();
        assert_eq!(decode_all(&mut rx, &bytes), frames);
    }

    #[test]
    fn frames_split_at_any_byte_are_reassembled() {
        let mut tx = client();
        let mut all = Vec::new();
        for f in [
            syn(1, "error", 8080, 0),
            syn(3, "data", 8080, 0),
            Frame::Ping(1),
        ] {
            all.extend(tx.encode(&f).expect("encode"));
        }
        let one_byte_chunks: Vec<Vec<u8>> = all.iter().map(|b| vec![*b]).collect();
        let got = decode_all(&mut Framer::new(), &one_byte_chunks);
        assert_eq!(got.len(), 3);
        assert_eq!(got[1], syn(3, "data", 8080, 0));
    }

    #[test]
    fn header_blocks_are_zlib_with_the_spdy3_dictionary_and_one_context_per_direction() {
        let mut tx = client();
        let first = tx.encode(&syn(1, "error", 80, 0)).expect("encode");
        let second = tx.encode(&syn(3, "data", 80, 0)).expect("encode");
        // zlib header with FDICT set, then the SPDY/3 dictionary's id (its adler-32).
        let block = &first[18..];
        assert_eq!(block[0] & 0x0f, 8, "deflate");
        assert_ne!(block[1] & 0x20, 0, "FDICT");
        assert_eq!(&block[2..6], &0xe3c6_a7c2u32.to_be_bytes());
        assert_eq!(DICTIONARY.len(), 1423);
        // The second block continues the stream: no zlib header of its own, and it is shorter
        // since the names are now in the window.
        assert!(
            second.len() < first.len(),
            "{} < {}",
            second.len(),
            first.len()
        );
        // A fresh decompressor cannot read the second block alone; the connection's can.
        let mut fresh = Framer::new();
        fresh.push(&second);
        assert!(fresh.next_frame().is_err());
        let got = decode_all(&mut Framer::new(), &[first, second]);
        assert_eq!(got[1], syn(3, "data", 80, 0));
    }

    #[test]
    fn a_block_compressed_by_plain_zlib_with_the_dictionary_is_read() {
        // As another implementation (Go's compress/zlib) writes it: best compression.
        let raw = header_block(&vec![("streamtype".into(), "data".into())]).expect("block");
        let mut c = Compress::new(Compression::best(), true);
        c.set_dictionary(DICTIONARY).expect("dict");
        let mut block = Vec::with_capacity(256);
        c.compress_vec(&raw, &mut block, FlushCompress::Sync)
            .expect("deflate");
        let mut frame = vec![0x80, 0x03, 0x00, 0x02, 0x00];
        let len = u32::try_from(block.len() + 4).expect("len").to_be_bytes();
        frame.extend_from_slice(&len[1..]);
        frame.extend_from_slice(&9u32.to_be_bytes());
        frame.extend(block);
        let mut f = Framer::new();
        f.push(&frame);
        assert_eq!(
            f.next_frame().expect("frame"),
            Some(Frame::SynReply {
                stream: 9,
                flags: 0,
                headers: vec![("streamtype".into(), "data".into())],
            })
        );
    }

    fn pod_session() -> PortForwardSession {
        PortForwardSession::new(
            "shop".into(),
            "web-1".into(),
            vec![(8080, "app".into(), "http".into())],
        )
    }

    /// Drive a session the way kubectl does for one local connection; the frames it answers.
    fn forward(session: &mut PortForwardSession, port: u16) -> Vec<Frame> {
        let mut c = client();
        let mut bytes = c.encode(&syn(1, "error", port, 0)).expect("encode");
        bytes.extend(c.encode(&fin(1)).expect("encode"));
        bytes.extend(c.encode(&syn(3, "data", port, 0)).expect("encode"));
        bytes.extend(
            c.encode(&Frame::Data {
                stream: 3,
                flags: 0,
                data: b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(),
            })
            .expect("encode"),
        );
        bytes.extend(c.encode(&Frame::Ping(7)).expect("encode"));
        let out = session.feed(&bytes).expect("feed");
        decode_all(&mut Framer::new(), &out)
    }

    #[test]
    fn a_forwarded_connection_gets_replies_the_pod_page_and_both_streams_half_closed() {
        let mut s = pod_session();
        let got = forward(&mut s, 8080);
        let replies: Vec<u32> = got
            .iter()
            .filter_map(|f| match f {
                Frame::SynReply { stream, .. } => Some(*stream),
                _ => None,
            })
            .collect();
        assert_eq!(replies, vec![1, 3]);
        let page = got
            .iter()
            .find_map(|f| match f {
                Frame::Data {
                    stream: 3,
                    flags,
                    data,
                } if !data.is_empty() => Some((*flags, String::from_utf8_lossy(data).into_owned())),
                _ => None,
            })
            .expect("page on the data stream");
        assert_eq!(page.0, FLAG_FIN);
        assert!(page.1.starts_with("HTTP/1.1 200 OK"), "{}", page.1);
        assert!(page.1.contains("shop/web-1"), "{}", page.1);
        assert!(page.1.contains("GET /healthz HTTP/1.1"), "{}", page.1);
        assert!(got.contains(&fin(1)), "error stream closed: {got:?}");
        assert!(got.contains(&Frame::Ping(7)), "ping echoed: {got:?}");
        assert_eq!(s.answered, 1);
        assert!(!s.finished());
    }

    #[test]
    fn an_undeclared_port_is_refused_on_the_error_stream() {
        let mut s = pod_session();
        let got = forward(&mut s, 9999);
        let msg = got
            .iter()
            .find_map(|f| match f {
                Frame::Data {
                    stream: 1, data, ..
                } if !data.is_empty() => Some(String::from_utf8_lossy(data).into_owned()),
                _ => None,
            })
            .expect("error message");
        assert!(msg.contains("connection refused"), "{msg}");
        assert!(got.contains(&fin(3)));
        assert_eq!(s.answered, 0);
    }

    #[test]
    fn a_stream_without_a_port_is_reset_and_goaway_ends_the_session() {
        let mut s = pod_session();
        let mut c = client();
        let bad = Frame::SynStream {
            stream: 1,
            associated: 0,
            priority: 0,
            flags: 0,
            headers: vec![("streamtype".into(), "data".into())],
        };
        let out = s.feed(&c.encode(&bad).expect("encode")).expect("feed");
        assert_eq!(
            decode_all(&mut Framer::new(), &out),
            vec![Frame::RstStream {
                stream: 1,
                status: RST_PROTOCOL_ERROR
            }]
        );
        let goaway = Frame::GoAway {
            last_good: 0,
            status: 0,
        };
        s.feed(&c.encode(&goaway).expect("encode")).expect("feed");
        assert!(s.finished());
    }
}
