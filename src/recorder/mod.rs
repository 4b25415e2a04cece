//! The flight recorder: every version the informers see, kept in a SQLite file that outlives
//! the dashboard, for `kinformer record` (headless), `--record FILE`, `--history-file` and
//! `kinformer replay`.
//!
//! client-go counterpart: none (an informer keeps only the latest version of each object).
//! The recorder is fed where per-object history is (`informer::history`): the factory's
//! observer shows it each object as decoded, with its delta type, before the cache transform
//! prunes it; so the recording holds what the dashboard's tables, `h`, blame and `:at` read
//! (the history decode mask: the cache's fields, the tracked ones, who wrote and when), not
//! the fields nothing here shows. The informer core never imports this module.
//!
//! How a version is stored (`versions.body`): whole every [`writer::WHOLE_EVERY`]th version of
//! an object (its first one included), else as a patch on the version before (see
//! [`patch`]: set or remove one field, arrays of named items diffed item by item). Whole
//! versions and patches longer than [`writer::COMPRESS_OVER`] bytes are zlib-compressed. A
//! patch and not a compressed whole object every time: a pod's status change is ~100-300
//! bytes as a patch against ~1-2 KB compressed whole, and one hour of 100 events/s must fit
//! in 200 MB (~550 bytes a version, indexes included). Each body starts with one byte saying
//! how it is encoded: `j` JSON, `z` zlib-compressed JSON.
//!
//! Events are stored apart: each version of an Event is one row of `events` and nothing else
//! (no `objects` row, no version): the columns a query asks for (the object it is about, type,
//! reason, message, count) and, in `rest`, the rest of the Event ([`writer::split_event`];
//! [`writer::join_event`] rebuilds it). An Event is new far more often than it changes, so a
//! whole object a version is what it costs anyway, and half of a busy cluster's versions are
//! Events.
//!
//! Writes go through a bounded channel to one thread that owns the connection and commits in
//! batches (a transaction per ~200 ms), so the informers never wait for the disk (the
//! dashboard drops versions when the channel is full and says so; `record` waits instead).
//! The file is in WAL mode with `synchronous = NORMAL`: a committed batch survives `kill -9`
//! (only a power cut may lose the last batches), and the file always opens.
//!
//! Measured (`src/bench/recorder.sh`, SECS=60, release build, 2026-12-08 01:13 UTC, the
//! 2 shared cores at load 13–15): a demo server with 10,000 realistic pods and 100 changes/s,
//! `record` against `record --informers-only`: 5.77 s of CPU against 0.95 s in 60 s (+507 %,
//! the first list's 17,000 whole objects included; target +10 %: a miss, not profiled yet:
//! the suspects are the writer's JSON round trip of every version, `serde_json::to_value`,
//! the diff walk and zlib on the whole ones). The file: 32.4 MB after 60 s; the churn's
//! versions and Events hold ~2.35 MB of bodies a minute (~140 MB an hour before indexes).
//! `replay` of it: open 0.12 s, first table drawn 1.9 s, an `:at` over 10k pods 3.3 s: each
//! past view rebuilds every object from the file (inflate, JSON parse, deserialize), ~0.3 ms
//! a pod at that load. Next steps: cache the objects rebuilt per instant and patch them
//! forward on a step, store bodies as the rows' printed cells for the first table, profile
//! the writer.
//!
//! Invariants:
//! - every object's first version held is whole: pruning (`--max-mib`) deletes the oldest
//!   versions and first rewrites, whole, each object's oldest version that remains;
//! - a version is written only when its resourceVersion changed (a relist of the same
//!   version writes nothing), or when it is a deletion (a watch's, or one a relist finds:
//!   the factory's pop observer reports those, for `record` and `--record` alike);
//! - a file this build cannot read is refused with one line naming why ([`Error`]); a write
//!   that fails (a full disk) stops the recording with one line, never the dashboard.

pub mod patch;
pub mod reader;
pub mod schema;
pub mod writer;

pub use reader::{Loaded, Mark, Recording, SessionRow};
pub use writer::{Recorder, RecorderOptions, SessionInfo};

/// What can go wrong with a recording, each one line naming the file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("{0}: no such file")]
    Missing(String),
    #[error("{0}: empty file, not a recording")]
    Empty(String),
    #[error("{0}: not a SQLite file, so not a kinformer recording")]
    NotSqlite(String),
    #[error("{0}: a SQLite database, but not a kinformer recording")]
    Foreign(String),
    #[error("{0}: truncated ({1} bytes of {2}); the rest of the file is missing")]
    Truncated(String, u64, u64),
    #[error("{0}: damaged ({1})")]
    Corrupt(String, String),
    #[error(
        "{0}: recorded by a newer kinformer (schema {1}; this one reads up to {2}): upgrade kinformer"
    )]
    Newer(String, i64, i64),
    #[error(
        "{0}: an older recording (schema {1}; this kinformer reads and writes schema {2} only)"
    )]
    Older(String, i64, i64),
    #[error("{0}: the disk is full")]
    DiskFull(String),
    #[error("{0}: {1}")]
    Io(String, String),
    #[error("{0}: {1}")]
    Sqlite(String, String),
}

impl Error {
    /// A SQLite error on `file`, named as the user needs it.
    pub fn from_sqlite(file: &str, e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode;
        match e.sqlite_error_code() {
            Some(ErrorCode::DiskFull) => Error::DiskFull(file.to_string()),
            Some(ErrorCode::NotADatabase) => Error::NotSqlite(file.to_string()),
            Some(ErrorCode::DatabaseCorrupt) => {
                Error::Corrupt(file.to_string(), "database disk image is malformed".into())
            }
            _ => Error::Sqlite(file.to_string(), e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests;
