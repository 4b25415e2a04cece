//! The recording side: [`Recorder`] takes versions from the informers' observers and hands
//! them, through a bounded channel, to one thread that diffs, encodes and commits them in
//! batches (see the module docs of [`super`]).

use std::collections::HashMap;
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::{Duration, Instant};

use kube::api::DynamicObject;
use parking_lot::Mutex;
use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use super::{Error, patch, schema};
use crate::informer::delta_fifo::{DeltaType, Observer};
use crate::informer::history::{TimelineEvent, history_resource};

/// An object is stored whole every this many versions (its first one included).
pub const WHOLE_EVERY: u32 = 64;

/// Bodies longer than this are compressed.
pub const COMPRESS_OVER: usize = 200;

/// Versions in flight between the observers and the writer thread.
pub const CHANNEL: usize = 16_384;

/// The longest a version waits before its batch is committed.
const BATCH_WINDOW: Duration = Duration::from_millis(200);

/// Which cluster a recording session is of.
#[derive(Debug, Clone, Default)]
pub struct SessionInfo {
    /// The kubeconfig's cluster name (the context's, when unknown).
    pub cluster: String,
    pub context: String,
    pub server_version: Option<String>,
    /// The resources recorded (`pods`, `deployments.apps`, or `all`).
    pub kinds: Vec<String>,
}

/// How a recorder behaves.
#[derive(Debug, Clone)]
pub struct RecorderOptions {
    /// `--max-mib`: the oldest versions go first beyond this many bytes of pages in use.
    pub max_bytes: Option<u64>,
    /// When the channel is full: wait (`record`) rather than drop the version (the dashboard,
    /// whose informers must not wait for a disk).
    pub block_when_full: bool,
    /// An object is stored whole every this many versions.
    pub whole_every: u32,
}

impl Default for RecorderOptions {
    fn default() -> Self {
        Self {
            max_bytes: None,
            block_when_full: false,
            whole_every: WHOLE_EVERY,
        }
    }
}

enum Msg {
    Version {
        resource: Arc<str>,
        kind: Arc<str>,
        at_ms: i64,
        delta: Option<DeltaType>,
        obj: Box<DynamicObject>,
    },
    /// A deletion no object came with (a relist found the object gone).
    Tombstone {
        resource: Arc<str>,
        key: String,
        at_ms: i64,
    },
    /// An informer of this kind started: its API version, for the replay's tables.
    Resource(kube::discovery::ApiResource),
    GapStart {
        at_ms: i64,
        reason: String,
    },
    GapEnd {
        at_ms: i64,
    },
    Flush(std::sync::mpsc::Sender<()>),
}

/// Counters the progress line reads.
#[derive(Debug, Default)]
struct Shared {
    stopped: AtomicBool,
    error: Mutex<Option<String>>,
    versions: AtomicU64,
    objects: AtomicU64,
    dropped: AtomicU64,
    bytes: AtomicU64,
    pruned: AtomicU64,
    gaps: AtomicU64,
}

/// What the recorder has done so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecorderStats {
    pub versions: u64,
    pub objects: u64,
    /// Versions not recorded because the writer fell behind (the dashboard only).
    pub dropped: u64,
    /// Bytes of pages in use in the file.
    pub bytes: u64,
    /// Versions deleted to stay within `--max-mib`.
    pub pruned: u64,
    pub gaps: u64,
    /// Why recording stopped (one line), if it did.
    pub error: Option<String>,
}

/// A recording in progress. Cheap to share (`Arc`); [`Recorder::finish`] ends it.
pub struct Recorder {
    tx: Mutex<Option<SyncSender<Msg>>>,
    shared: Arc<Shared>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
    block: bool,
    path: PathBuf,
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

impl Recorder {
    /// Open (or create) `path` and start a session of `session`.
    pub fn open(
        path: &Path,
        session: SessionInfo,
        options: RecorderOptions,
    ) -> Result<Self, Error> {
        let conn = schema::open_for_writing(path)?;
        Self::start(conn, path, session, options)
    }

    /// Start recording on an open connection (tests set limits on it first).
    pub fn start(
        conn: Connection,
        path: &Path,
        session: SessionInfo,
        options: RecorderOptions,
    ) -> Result<Self, Error> {
        let shown = path.display().to_string();
        let started = now_ms();
        conn.execute(
            "INSERT INTO sessions (cluster, context, server_version, started_ms, kinds)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                session.cluster,
                session.context,
                session.server_version,
                started,
                session.kinds.join(",")
            ],
        )
        .map_err(|e| Error::from_sqlite(&shown, e))?;
        let session_id = conn.last_insert_rowid();
        let (tx, rx) = std::sync::mpsc::sync_channel(CHANNEL);
        let shared = Arc::new(Shared::default());
        let mut writer = Writer {
            conn,
            shown,
            session: session_id,
            cluster: session.cluster,
            objects: HashMap::new(),
            events: HashMap::new(),
            options: options.clone(),
            shared: Arc::clone(&shared),
            gap: None,
        };
        let thread = std::thread::Builder::new()
            .name("recorder".into())
            .spawn(move || writer.run(&rx))
            .map_err(|e| Error::Io(path.display().to_string(), e.to_string()))?;
        Ok(Self {
            tx: Mutex::new(Some(tx)),
            shared,
            thread: Mutex::new(Some(thread)),
            block: options.block_when_full,
            path: path.to_path_buf(),
        })
    }

    /// The file recorded into.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn send(&self, msg: Msg) {
        if self.shared.stopped.load(Ordering::Relaxed) {
            return;
        }
        let Some(tx) = self.tx.lock().clone() else {
            return;
        };
        match tx.try_send(msg) {
            Ok(()) => {}
            Err(TrySendError::Full(msg)) if self.block => {
                let _ = tx.send(msg);
            }
            Err(TrySendError::Full(_)) => {
                self.shared.dropped.fetch_add(1, Ordering::Relaxed);
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// Record `obj` of `resource` (as `history_resource` names it) as seen now.
    pub fn observe(
        &self,
        resource: &Arc<str>,
        kind: &Arc<str>,
        obj: &DynamicObject,
        delta: Option<DeltaType>,
    ) {
        self.observe_at(resource, kind, obj, delta, now_ms());
    }

    /// [`Self::observe`] at a given time.
    pub fn observe_at(
        &self,
        resource: &Arc<str>,
        kind: &Arc<str>,
        obj: &DynamicObject,
        delta: Option<DeltaType>,
        at_ms: i64,
    ) {
        self.send(Msg::Version {
            resource: Arc::clone(resource),
            kind: Arc::clone(kind),
            at_ms,
            delta,
            obj: Box::new(obj.clone()),
        });
    }

    /// A deletion found without its object (a relist's tombstone): `key` is `namespace/name`.
    pub fn deleted(&self, resource: &Arc<str>, key: &str) {
        self.send(Msg::Tombstone {
            resource: Arc::clone(resource),
            key: key.to_string(),
            at_ms: now_ms(),
        });
    }

    /// The server stopped answering (`reason`): a gap starts, unless one is open.
    pub fn gap_started(&self, reason: &str) {
        self.send(Msg::GapStart {
            at_ms: now_ms(),
            reason: reason.to_string(),
        });
    }

    /// The server answers again: the open gap ends.
    pub fn gap_ended(&self) {
        self.send(Msg::GapEnd { at_ms: now_ms() });
    }

    /// An informer of `ar` starts: its API version is kept for the replay's tables.
    pub fn kind_seen(&self, ar: &kube::discovery::ApiResource) {
        self.send(Msg::Resource(ar.clone()));
    }

    /// The factory's observer for one kind: every object decoded, with its delta type.
    pub fn observer(
        self: &Arc<Self>,
        ar: &kube::discovery::ApiResource,
    ) -> Observer<DynamicObject> {
        let resource: Arc<str> = Arc::from(history_resource(ar));
        let kind: Arc<str> = Arc::from(ar.kind.as_str());
        let me = Arc::clone(self);
        self.send(Msg::Resource(ar.clone()));
        Arc::new(move |obj: &DynamicObject, delta| me.observe(&resource, &kind, obj, delta))
    }

    /// Wait until everything sent so far is committed (or recording stopped).
    pub fn flush(&self) {
        let (tx, rx) = std::sync::mpsc::channel();
        self.send(Msg::Flush(tx));
        let _ = rx.recv();
    }

    /// What has been recorded.
    pub fn stats(&self) -> RecorderStats {
        let s = &self.shared;
        RecorderStats {
            versions: s.versions.load(Ordering::Relaxed),
            objects: s.objects.load(Ordering::Relaxed),
            dropped: s.dropped.load(Ordering::Relaxed),
            bytes: s.bytes.load(Ordering::Relaxed),
            pruned: s.pruned.load(Ordering::Relaxed),
            gaps: s.gaps.load(Ordering::Relaxed),
            error: s.error.lock().clone(),
        }
    }

    /// Why recording stopped, once it has (one line).
    pub fn error(&self) -> Option<String> {
        self.shared.error.lock().clone()
    }

    /// Commit what is queued, end the session and close the file.
    pub fn finish(&self) -> RecorderStats {
        self.tx.lock().take();
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
        self.stats()
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.finish();
    }
}

/// What the writer remembers of an object: its row, the version last written (to diff the
/// next one against) and its managedFields stamps (to name the next version's writer).
struct ObjState {
    id: i64,
    uid: String,
    last: Value,
    rv: String,
    since_whole: u32,
    stamps: Vec<(String, String)>,
    deleted: bool,
}

/// What the writer remembers of an Event not deleted: its uid and resourceVersion (to skip
/// a relist's same version) and its last row (a relist's deletion repeats it).
struct EventState {
    uid: String,
    rv: String,
    row: i64,
}

struct Writer {
    conn: Connection,
    shown: String,
    session: i64,
    cluster: String,
    objects: HashMap<(Arc<str>, String), ObjState>,
    events: HashMap<(Arc<str>, String), EventState>,
    options: RecorderOptions,
    shared: Arc<Shared>,
    /// The open gap's row.
    gap: Option<i64>,
}

/// A body as stored: `j` + JSON, or `z` + zlib-compressed JSON.
pub fn encode(json: &[u8]) -> Vec<u8> {
    if json.len() > COMPRESS_OVER {
        let mut enc = flate2::write::ZlibEncoder::new(vec![b'z'], flate2::Compression::fast());
        if enc.write_all(json).is_ok()
            && let Ok(out) = enc.finish()
        {
            return out;
        }
    }
    let mut out = Vec::with_capacity(json.len() + 1);
    out.push(b'j');
    out.extend_from_slice(json);
    out
}

/// The JSON of a stored body.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    match body.split_first() {
        Some((b'j', json)) => serde_json::from_slice(json).map_err(|e| e.to_string()),
        Some((b'z', z)) => {
            let mut json = Vec::new();
            flate2::read::ZlibDecoder::new(z)
                .read_to_end(&mut json)
                .map_err(|e| e.to_string())?;
            serde_json::from_slice(&json).map_err(|e| e.to_string())
        }
        _ => Err("unknown body encoding".into()),
    }
}

/// `(manager|operation|subresource, time)` of each managedFields entry.
fn stamps(obj: &Value) -> Vec<(String, String)> {
    obj.pointer("/metadata/managedFields")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .map(|e| {
                    let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_string();
                    (format!("{} ({})", s("manager"), s("operation")), s("time"))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The writer of a version: the managedFields entry whose time moved since `before` (the
/// latest such), as history names it.
fn writer_of(before: &[(String, String)], now: &[(String, String)]) -> Option<String> {
    now.iter()
        .filter(|(who, time)| !before.iter().any(|(w, t)| w == who && t == time))
        .max_by(|a, b| a.1.cmp(&b.1))
        .map(|(who, _)| who.clone())
}

/// The columns of `events` an Event's JSON gives up (its `type`, `reason` and `message`,
/// when they are strings); `None`: it has none.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct EventColumns {
    pub kind: Option<String>,
    pub reason: Option<String>,
    pub message: Option<String>,
}

/// Take out of an Event's JSON what `events` holds in columns: `metadata`'s name, namespace,
/// uid and resourceVersion, and the top-level `type`, `reason` and `message` strings (the
/// last three returned). [`join_event`] puts them back.
pub fn split_event(value: &mut Value) -> EventColumns {
    let Some(map) = value.as_object_mut() else {
        return EventColumns::default();
    };
    if let Some(Value::Object(meta)) = map.get_mut("metadata") {
        for k in ["name", "namespace", "uid", "resourceVersion"] {
            meta.remove(k);
        }
    }
    let mut take = |k: &str| match map.get(k) {
        Some(Value::String(_)) => match map.remove(k) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        },
        _ => None,
    };
    EventColumns {
        kind: take("type"),
        reason: take("reason"),
        message: take("message"),
    }
}

/// An Event's JSON from its row: `rest` with the columns [`split_event`] took put back.
pub fn join_event(
    mut rest: Value,
    namespace: &str,
    name: &str,
    uid: &str,
    rv: &str,
    cols: EventColumns,
) -> Value {
    let Some(map) = rest.as_object_mut() else {
        return rest;
    };
    let meta = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        for (k, v) in [
            ("name", name),
            ("namespace", namespace),
            ("uid", uid),
            ("resourceVersion", rv),
        ] {
            if !v.is_empty() {
                meta.insert(k.into(), Value::String(v.into()));
            }
        }
    }
    for (k, v) in [
        ("type", cols.kind),
        ("reason", cols.reason),
        ("message", cols.message),
    ] {
        if let Some(v) = v {
            map.insert(k.into(), Value::String(v));
        }
    }
    rest
}

impl Writer {
    fn run(&mut self, rx: &Receiver<Msg>) {
        let mut open = true;
        while open {
            let Ok(first) = rx.recv() else {
                break;
            };
            let mut batch = vec![first];
            let deadline = Instant::now() + BATCH_WINDOW;
            let mut flushes = Vec::new();
            loop {
                if let Some(Msg::Flush(_)) = batch.last() {
                    if let Some(Msg::Flush(f)) = batch.pop() {
                        flushes.push(f);
                    }
                    break;
                }
                let left = deadline.saturating_duration_since(Instant::now());
                match rx.recv_timeout(left) {
                    Ok(m) => batch.push(m),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            let result = self.commit(batch).and_then(|()| self.bound());
            let failed = result.is_err();
            if let Err(e) = result {
                self.stop(e);
            }
            for f in flushes {
                let _ = f.send(());
            }
            if failed {
                return;
            }
        }
        let end = now_ms();
        let ended = self
            .conn
            .execute(
                "UPDATE sessions SET ended_ms = ?1 WHERE id = ?2",
                params![end, self.session],
            )
            .and_then(|_| {
                self.conn.execute(
                    "UPDATE gaps SET end_ms = ?1 WHERE end_ms IS NULL",
                    params![end],
                )
            })
            .and_then(|_| {
                self.conn
                    .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            });
        if let Err(e) = ended {
            self.stop(Error::from_sqlite(&self.shown, e));
        }
    }

    fn stop(&self, e: Error) {
        tracing::error!(error = %e, "recording stopped");
        *self.shared.error.lock() = Some(format!("recording stopped: {e}"));
        self.shared.stopped.store(true, Ordering::Relaxed);
    }

    fn commit(&mut self, batch: Vec<Msg>) -> Result<(), Error> {
        let shown = self.shown.clone();
        let sql = |e| Error::from_sqlite(&shown, e);
        self.conn.execute_batch("BEGIN").map_err(sql)?;
        for msg in batch {
            let done = match msg {
                Msg::Version {
                    resource,
                    kind,
                    at_ms,
                    delta,
                    obj,
                } => self.version(resource, kind, at_ms, delta, &obj),
                Msg::Tombstone {
                    resource,
                    key,
                    at_ms,
                } => self.tombstone(resource, key, at_ms),
                Msg::Resource(ar) => self.resource(&ar),
                Msg::GapStart { at_ms, reason } => self.gap_start(at_ms, &reason),
                Msg::GapEnd { at_ms } => self.gap_end(at_ms),
                Msg::Flush(f) => {
                    let _ = f.send(());
                    Ok(())
                }
            };
            if let Err(e) = done {
                let _ = self.conn.execute_batch("ROLLBACK");
                return Err(sql(e));
            }
        }
        self.conn.execute_batch("COMMIT").map_err(sql)
    }

    fn version(
        &mut self,
        resource: Arc<str>,
        kind: Arc<str>,
        at_ms: i64,
        delta: Option<DeltaType>,
        obj: &DynamicObject,
    ) -> rusqlite::Result<()> {
        let Some(name) = obj.metadata.name.clone() else {
            return Ok(());
        };
        let namespace = obj.metadata.namespace.clone().unwrap_or_default();
        let uid = obj.metadata.uid.clone().unwrap_or_default();
        let rv = obj.metadata.resource_version.clone().unwrap_or_default();
        let key = if namespace.is_empty() {
            name.clone()
        } else {
            format!("{namespace}/{name}")
        };
        let deleting = delta == Some(DeltaType::Deleted);
        if &*kind == "Event" {
            return self.event(resource, key, at_ms, delta, obj);
        }
        let value = match serde_json::to_value(obj) {
            Ok(v) => v,
            Err(_) => return Ok(()),
        };
        let now_stamps = stamps(&value);
        let map_key = (Arc::clone(&resource), key);
        if let Some(s) = self.objects.get(&map_key).filter(|s| s.uid == uid) {
            let again = if deleting {
                s.deleted
            } else {
                !s.deleted && !rv.is_empty() && s.rv == rv
            };
            if again {
                return Ok(());
            }
        }
        let delta_name = delta.map_or("Updated", DeltaType::as_str);
        let whole_every = self.options.whole_every.max(1);
        let (object_id, whole, body, fields, writer) = match self.objects.get_mut(&map_key) {
            Some(s) if s.uid == uid && !s.deleted => {
                let (ops, fields) = patch::diff(&s.last, &value);
                let writer = writer_of(&s.stamps, &now_stamps);
                s.since_whole += 1;
                let whole = s.since_whole >= whole_every;
                if whole {
                    s.since_whole = 0;
                }
                let json = if whole {
                    serde_json::to_vec(&value)
                } else {
                    serde_json::to_vec(&ops)
                }
                .unwrap_or_default();
                s.last = value;
                s.rv = rv.clone();
                s.stamps = now_stamps;
                s.deleted = deleting;
                (s.id, whole, encode(&json), Some(fields.join("\n")), writer)
            }
            _ => {
                let id: i64 = self
                    .conn
                    .prepare_cached(
                        "INSERT INTO objects (cluster, resource, kind, namespace, name, uid,
                     first_ms, first_delta) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                     ON CONFLICT (cluster, resource, namespace, name, uid)
                     DO UPDATE SET kind = excluded.kind, gone_ms = NULL RETURNING id",
                    )?
                    .query_row(
                        params![
                            self.cluster,
                            &*resource,
                            &*kind,
                            namespace,
                            name,
                            uid,
                            at_ms,
                            delta_name
                        ],
                        |r| r.get(0),
                    )?;
                self.shared.objects.fetch_add(1, Ordering::Relaxed);
                let writer = writer_of(&[], &now_stamps);
                let json = serde_json::to_vec(&value).unwrap_or_default();
                self.objects.insert(
                    map_key,
                    ObjState {
                        id,
                        uid: uid.clone(),
                        last: value,
                        rv: rv.clone(),
                        since_whole: 0,
                        stamps: now_stamps,
                        deleted: deleting,
                    },
                );
                (id, true, encode(&json), None, writer)
            }
        };
        self.conn
            .prepare_cached(
                "INSERT INTO versions (object_id, session_id, at_ms, rv, delta, writer, fields,
                 whole, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                object_id,
                self.session,
                at_ms,
                rv,
                delta_name,
                writer,
                fields,
                whole,
                body
            ])?;
        self.shared.versions.fetch_add(1, Ordering::Relaxed);
        if deleting {
            self.gone(object_id, at_ms)?;
        }
        Ok(())
    }

    /// The object `object_id` is deleted at `at_ms` (`objects.gone_ms`).
    fn gone(&mut self, object_id: i64, at_ms: i64) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached("UPDATE objects SET gone_ms = ?1 WHERE id = ?2")?
            .execute(params![at_ms, object_id])?;
        Ok(())
    }

    /// An Event's version: one row of `events`, its columns (the object it is about, when,
    /// why) and, in `rest`, the rest of the Event (see [`split_event`]). An Event is stored
    /// nowhere else: it is most of what a cluster changes, and seldom changes itself.
    fn event(
        &mut self,
        resource: Arc<str>,
        key: String,
        seen_ms: i64,
        delta: Option<DeltaType>,
        obj: &DynamicObject,
    ) -> rusqlite::Result<()> {
        let deleting = delta == Some(DeltaType::Deleted);
        let uid = obj.metadata.uid.clone().unwrap_or_default();
        let rv = obj.metadata.resource_version.clone().unwrap_or_default();
        let map_key = (resource, key);
        let known = self.events.get(&map_key).filter(|s| s.uid == uid);
        if !deleting && known.is_some_and(|s| !rv.is_empty() && s.rv == rv) {
            return Ok(());
        }
        if known.is_none() {
            self.shared.objects.fetch_add(1, Ordering::Relaxed);
        }
        let Ok(mut value) = serde_json::to_value(obj) else {
            return Ok(());
        };
        let timeline = TimelineEvent::of(obj);
        let about = obj
            .data
            .get("involvedObject")
            .or_else(|| obj.data.get("regarding"));
        let field = |k: &str| {
            about
                .and_then(|a| a.get(k))
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let (object_kind, object_name, object_uid) = (field("kind"), field("name"), field("uid"));
        let cols = split_event(&mut value);
        let rest = serde_json::to_vec(&value).unwrap_or_default();
        let (resource, key) = map_key;
        let row: i64 = self
            .conn
            .prepare_cached(
                "INSERT INTO events (session_id, seen_ms, at_ms, cluster, resource, namespace,
                 name, uid, rv, delta, object_kind, object_name, object_uid, type, reason,
                 message, count, rest)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
                 ?17, ?18) RETURNING id",
            )?
            .query_row(
                params![
                    self.session,
                    seen_ms,
                    timeline.as_ref().map_or(seen_ms, |t| t.at_ms),
                    self.cluster,
                    &*resource,
                    obj.metadata.namespace.as_deref().unwrap_or(""),
                    obj.metadata.name.as_deref().unwrap_or(""),
                    uid,
                    rv,
                    delta.map_or("Updated", DeltaType::as_str),
                    object_kind,
                    object_name,
                    object_uid,
                    cols.kind,
                    cols.reason,
                    cols.message,
                    timeline.as_ref().map_or(1, |t| t.count as i64),
                    encode(&rest)
                ],
                |r| r.get(0),
            )?;
        self.shared.versions.fetch_add(1, Ordering::Relaxed);
        let map_key = (resource, key);
        if deleting {
            self.events.remove(&map_key);
        } else {
            self.events.insert(map_key, EventState { uid, rv, row });
        }
        Ok(())
    }

    fn tombstone(&mut self, resource: Arc<str>, key: String, at_ms: i64) -> rusqlite::Result<()> {
        let map_key = (resource, key);
        if let Some(e) = self.events.remove(&map_key) {
            // The Event's last row again, deleted, its body that row's (`rest` NULL).
            self.conn
                .prepare_cached(
                    "INSERT INTO events (session_id, seen_ms, at_ms, cluster, resource,
                     namespace, name, uid, rv, delta, object_kind, object_name, object_uid,
                     type, reason, message, count, rest)
                     SELECT ?1, ?2, at_ms, cluster, resource, namespace, name, uid, rv,
                     'Deleted', object_kind, object_name, object_uid, type, reason, message,
                     count, NULL FROM events WHERE id = ?3",
                )?
                .execute(params![self.session, at_ms, e.row])?;
            self.shared.versions.fetch_add(1, Ordering::Relaxed);
            return Ok(());
        }
        let Some(s) = self.objects.get_mut(&map_key) else {
            return Ok(());
        };
        if s.deleted {
            return Ok(());
        }
        s.deleted = true;
        self.conn
            .prepare_cached(
                "INSERT INTO versions (object_id, session_id, at_ms, rv, delta, writer, fields,
                 whole, body) VALUES (?1, ?2, ?3, ?4, 'Deleted', NULL, '', 0, ?5)",
            )?
            .execute(params![s.id, self.session, at_ms, s.rv, encode(b"[]")])?;
        self.shared.versions.fetch_add(1, Ordering::Relaxed);
        let id = s.id;
        self.gone(id, at_ms)
    }

    fn resource(&mut self, ar: &kube::discovery::ApiResource) -> rusqlite::Result<()> {
        self.conn
            .prepare_cached(
                "INSERT INTO resources VALUES (?1, ?2, ?3, ?4) ON CONFLICT (resource) DO NOTHING",
            )?
            .execute(params![
                history_resource(ar),
                ar.api_version,
                ar.kind,
                ar.plural
            ])?;
        Ok(())
    }

    fn gap_start(&mut self, at_ms: i64, reason: &str) -> rusqlite::Result<()> {
        if self.gap.is_some() {
            return Ok(());
        }
        self.conn.execute(
            "INSERT INTO gaps (session_id, start_ms, reason) VALUES (?1, ?2, ?3)",
            params![self.session, at_ms, reason],
        )?;
        self.gap = Some(self.conn.last_insert_rowid());
        self.shared.gaps.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn gap_end(&mut self, at_ms: i64) -> rusqlite::Result<()> {
        if let Some(id) = self.gap.take() {
            self.conn.execute(
                "UPDATE gaps SET end_ms = ?1 WHERE rowid = ?2",
                params![at_ms, id],
            )?;
        }
        Ok(())
    }

    /// Bytes of pages in use (the file less its free pages).
    fn used_bytes(&self) -> rusqlite::Result<u64> {
        let q = |p: &str| -> rusqlite::Result<i64> {
            self.conn
                .query_row(&format!("PRAGMA {p}"), [], |r| r.get(0))
        };
        Ok(((q("page_count")? - q("freelist_count")?) * q("page_size")?).max(0) as u64)
    }

    /// Keep the file within `--max-mib`: drop the oldest tenth of the versions while over.
    fn bound(&mut self) -> Result<(), Error> {
        let shown = self.shown.clone();
        let sql = |e| Error::from_sqlite(&shown, e);
        let mut used = self.used_bytes().map_err(sql)?;
        self.shared.bytes.store(used, Ordering::Relaxed);
        let Some(max) = self.options.max_bytes else {
            return Ok(());
        };
        let mut rounds = 0;
        while used > max && rounds < 8 {
            rounds += 1;
            let pruned = prune_oldest(&self.conn, 10).map_err(sql)?;
            if pruned == 0 {
                break;
            }
            self.shared.pruned.fetch_add(pruned, Ordering::Relaxed);
            used = self.used_bytes().map_err(sql)?;
            self.shared.bytes.store(used, Ordering::Relaxed);
        }
        Ok(())
    }
}

/// The object of version `version_id` of object `object_id`, rebuilt from the last whole
/// version at or before it and the patches since.
pub fn object_at(conn: &Connection, object_id: i64, version_id: i64) -> rusqlite::Result<Value> {
    let mut stmt = conn.prepare_cached(
        "SELECT whole, body FROM versions WHERE object_id = ?1 AND id <= ?2 AND id >= (
             SELECT MAX(id) FROM versions WHERE object_id = ?1 AND id <= ?2 AND whole = 1)
         ORDER BY id",
    )?;
    let mut rows = stmt.query(params![object_id, version_id])?;
    let mut obj = patch::empty();
    while let Some(r) = rows.next()? {
        let whole: bool = r.get(0)?;
        let body: Vec<u8> = r.get(1)?;
        let v = decode(&body).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(9, rusqlite::types::Type::Blob, e.into())
        })?;
        if whole {
            obj = v;
        } else if let Value::Array(ops) = v {
            patch::apply(&mut obj, &ops).map_err(|e| {
                rusqlite::Error::FromSqlConversionFailure(
                    9,
                    rusqlite::types::Type::Blob,
                    e.0.into(),
                )
            })?;
        }
    }
    Ok(obj)
}

/// Delete the oldest `percent` % of the versions (and the Events and gaps older than the
/// oldest version kept), rewriting whole each object's first version that remains.
/// Returns how many versions went.
pub fn prune_oldest(conn: &Connection, percent: u32) -> rusqlite::Result<u64> {
    let count: i64 = conn.query_row("SELECT COUNT(*) FROM versions", [], |r| r.get(0))?;
    let skip = (count * i64::from(percent) / 100).max(1);
    let cutoff: Option<i64> = conn
        .query_row(
            "SELECT id FROM versions ORDER BY id LIMIT 1 OFFSET ?1",
            params![skip],
            |r| r.get(0),
        )
        .optional()?;
    // Fewer than `skip` versions: keep the newest.
    let Some(cutoff) = cutoff else {
        return Ok(0);
    };
    conn.execute_batch("BEGIN")?;
    let done = (|| {
        // Each object's first version from the cutoff on, when it is a patch on older ones.
        let firsts: Vec<(i64, i64)> = conn
            .prepare(
                "SELECT v.object_id, MIN(v.id) FROM versions v WHERE v.id >= ?1
                 AND EXISTS (SELECT 1 FROM versions o WHERE o.object_id = v.object_id AND o.id < ?1)
                 GROUP BY v.object_id",
            )?
            .query_map(params![cutoff], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (object, first) in firsts {
            let whole: bool = conn.query_row(
                "SELECT whole FROM versions WHERE id = ?1",
                params![first],
                |r| r.get(0),
            )?;
            if whole {
                continue;
            }
            let obj = object_at(conn, object, first)?;
            let json = serde_json::to_vec(&obj).unwrap_or_default();
            conn.execute(
                "UPDATE versions SET whole = 1, body = ?1 WHERE id = ?2",
                params![encode(&json), first],
            )?;
        }
        let gone = conn.execute("DELETE FROM versions WHERE id < ?1", params![cutoff])?;
        let oldest: i64 =
            conn.query_row("SELECT COALESCE(MIN(at_ms), 0) FROM versions", [], |r| {
                r.get(0)
            })?;
        conn.execute("DELETE FROM events WHERE at_ms < ?1", params![oldest])?;
        conn.execute(
            "DELETE FROM objects WHERE id NOT IN (SELECT object_id FROM versions)",
            [],
        )?;
        conn.execute(
            "INSERT INTO meta VALUES ('pruned_before_ms', ?1)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            params![oldest.to_string()],
        )?;
        Ok(gone as u64)
    })();
    match done {
        Ok(n) => {
            conn.execute_batch("COMMIT")?;
            Ok(n)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK");
            Err(e)
        }
    }
}
