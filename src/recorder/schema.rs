//! The recording's schema, its version, and the checks a file passes before it is read or
//! written: each bad file is named in one line (see [`super::Error`]).

use std::path::Path;

use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::Error;

/// The schema this build writes and the newest it reads (`PRAGMA user_version`, and `schema`
/// in the `meta` table).
pub const SCHEMA_VERSION: i64 = 2;

/// `PRAGMA application_id`: "kinf". A SQLite file with another id is not a recording.
pub const APPLICATION_ID: i64 = 0x6b69_6e66;

/// The value of `meta.format`.
pub const FORMAT: &str = "kinformer-recording";

/// The tables, as the README documents them.
pub const SCHEMA: &str = "
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    cluster TEXT NOT NULL,
    context TEXT NOT NULL,
    server_version TEXT,
    started_ms INTEGER NOT NULL,
    ended_ms INTEGER,
    kinds TEXT NOT NULL
);
CREATE TABLE gaps (
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    start_ms INTEGER NOT NULL,
    end_ms INTEGER,
    reason TEXT NOT NULL
);
CREATE TABLE resources (
    resource TEXT PRIMARY KEY,
    api_version TEXT NOT NULL,
    kind TEXT NOT NULL,
    plural TEXT NOT NULL
);
CREATE TABLE objects (
    id INTEGER PRIMARY KEY,
    cluster TEXT NOT NULL,
    resource TEXT NOT NULL,
    kind TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    uid TEXT NOT NULL,
    first_ms INTEGER NOT NULL,
    first_delta TEXT NOT NULL,
    gone_ms INTEGER,
    UNIQUE (cluster, resource, namespace, name, uid)
);
CREATE TABLE versions (
    id INTEGER PRIMARY KEY,
    object_id INTEGER NOT NULL REFERENCES objects(id),
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    at_ms INTEGER NOT NULL,
    rv TEXT NOT NULL,
    delta TEXT NOT NULL,
    writer TEXT,
    fields TEXT,
    whole INTEGER NOT NULL,
    body BLOB NOT NULL
);
CREATE INDEX versions_by_object ON versions (object_id, id);
CREATE INDEX versions_whole ON versions (object_id, id, at_ms) WHERE whole = 1;
CREATE INDEX versions_by_time ON versions (at_ms);
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES sessions(id),
    seen_ms INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    cluster TEXT NOT NULL,
    resource TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    uid TEXT NOT NULL,
    rv TEXT NOT NULL,
    delta TEXT NOT NULL,
    object_kind TEXT NOT NULL,
    object_name TEXT NOT NULL,
    object_uid TEXT NOT NULL,
    type TEXT,
    reason TEXT,
    message TEXT,
    count INTEGER NOT NULL,
    rest BLOB
);
CREATE INDEX events_by_object ON events (object_uid);
CREATE INDEX events_by_seen ON events (seen_ms);
CREATE TABLE marks (at_ms INTEGER NOT NULL, note TEXT NOT NULL);
";

/// Files up to this size are checked page by page when opened (`PRAGMA quick_check`).
const QUICK_CHECK_UP_TO: u64 = 64 * 1024 * 1024;

/// The first bytes of every SQLite 3 file.
const MAGIC: &[u8; 16] = b"SQLite format 3\0";

/// Check the file's header without SQLite: missing, empty, not SQLite, truncated.
fn check_header(path: &Path) -> Result<(), Error> {
    let shown = path.display().to_string();
    let io = |e: std::io::Error| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Missing(shown.clone()),
        _ => Error::Io(shown.clone(), e.to_string()),
    };
    let len = std::fs::metadata(path).map_err(io)?.len();
    let mut bytes = Vec::with_capacity(100);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(std::fs::File::open(path).map_err(io)?, 100),
        &mut bytes,
    )
    .map_err(io)?;
    if bytes.is_empty() {
        return Err(Error::Empty(shown));
    }
    if bytes.len() < 100 || &bytes[..16] != MAGIC {
        return Err(if bytes.starts_with(&MAGIC[..bytes.len().min(16)]) {
            Error::Truncated(shown, bytes.len() as u64, 100)
        } else {
            Error::NotSqlite(shown)
        });
    }
    // The page size (1 means 65536) and the page count, valid when the "version valid for"
    // number equals the change counter (SQLite's file format, section 1.3).
    let page_size = match u16::from_be_bytes([bytes[16], bytes[17]]) {
        1 => 65_536u64,
        n => u64::from(n),
    };
    let be32 =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let pages = u64::from(be32(28));
    let wal_exists = std::fs::metadata(sqlite_wal(path)).is_ok_and(|m| m.len() > 0);
    if be32(92) == be32(24) && !wal_exists {
        let expected = pages * page_size;
        if len < expected {
            return Err(Error::Truncated(shown, len, expected));
        }
    }
    Ok(())
}

/// The write-ahead log beside a database file (`FILE-wal`).
pub fn sqlite_wal(path: &Path) -> std::path::PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push("-wal");
    s.into()
}

/// Whether the open database is a recording this build reads: ours (application id and
/// `meta.format`) and not newer.
fn check_ours(conn: &Connection, shown: &str) -> Result<(), Error> {
    let app: i64 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(|e| Error::from_sqlite(shown, e))?;
    let format: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'format'", [], |r| {
            r.get(0)
        })
        .optional()
        .unwrap_or(None);
    if app != APPLICATION_ID || format.as_deref() != Some(FORMAT) {
        return Err(Error::Foreign(shown.to_string()));
    }
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| Error::from_sqlite(shown, e))?;
    if version > SCHEMA_VERSION {
        return Err(Error::Newer(shown.to_string(), version, SCHEMA_VERSION));
    }
    // Every page readable: a file cut short in the middle is malformed. It reads the whole
    // file: only for small ones (a replay opens a large one at once; a damaged page there is
    // named when a read meets it).
    if std::fs::metadata(shown).is_ok_and(|m| m.len() > QUICK_CHECK_UP_TO) {
        return Ok(());
    }
    let quick: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(|e| Error::from_sqlite(shown, e))?;
    if quick != "ok" {
        return Err(Error::Corrupt(shown.to_string(), quick));
    }
    Ok(())
}

/// Open an existing recording to read it (the replay may add marks: read-write, never
/// created).
pub fn open_existing(path: &Path) -> Result<Connection, Error> {
    check_header(path)?;
    let shown = path.display().to_string();
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .or_else(|_| Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY))
    .map_err(|e| Error::from_sqlite(&shown, e))?;
    check_ours(&conn, &shown)?;
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| Error::from_sqlite(&shown, e))?;
    if version < SCHEMA_VERSION {
        return Err(Error::Older(shown, version, SCHEMA_VERSION));
    }
    Ok(conn)
}

/// Open `path` to record into: a new file gets the schema; an existing recording of this
/// schema is appended to (a new session); anything else is refused.
pub fn open_for_writing(path: &Path) -> Result<Connection, Error> {
    let shown = path.display().to_string();
    let fresh = match std::fs::metadata(path) {
        Ok(m) => m.len() == 0,
        Err(_) => true,
    };
    if !fresh {
        check_header(path)?;
    }
    let conn = Connection::open(path).map_err(|e| Error::from_sqlite(&shown, e))?;
    let setup = |conn: &Connection| -> rusqlite::Result<()> {
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "journal_size_limit", 64 * 1024 * 1024)?;
        Ok(())
    };
    if fresh {
        let create = |conn: &Connection| -> rusqlite::Result<()> {
            setup(conn)?;
            conn.execute_batch(&format!(
                "BEGIN; {SCHEMA}
                 INSERT INTO meta VALUES ('format', '{FORMAT}'), ('schema', '{SCHEMA_VERSION}'),
                   ('created_by', 'kinformer {}');
                 PRAGMA application_id = {APPLICATION_ID};
                 PRAGMA user_version = {SCHEMA_VERSION};
                 COMMIT;",
                env!("CARGO_PKG_VERSION")
            ))
        };
        create(&conn).map_err(|e| Error::from_sqlite(&shown, e))?;
    } else {
        check_ours(&conn, &shown)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| Error::from_sqlite(&shown, e))?;
        if version != SCHEMA_VERSION {
            return Err(Error::Older(shown, version, SCHEMA_VERSION));
        }
        setup(&conn).map_err(|e| Error::from_sqlite(&shown, e))?;
    }
    Ok(conn)
}
