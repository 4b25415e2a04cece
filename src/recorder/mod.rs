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
//! Measured (2026-12-07 22:11 UTC, debug build, the 2 shared cores at load 8–10; the release
//! build did not finish in time under that load): a demo server with 10,000 realistic pods and
//! 100 changes/s, `record` (default kinds) against `record --informers-only` for 120 s: 11.5 s
//! of CPU against 3.8 s (the target is +10 %: a miss in debug; serialising, diffing and
//! compressing every version on the writer thread, and the first list's 17,600 whole objects,
//! are most of it). The file: 34.5 MB after 120 s, ~23 MB of it the first list; the churn's
//! ~11.8 MB per 120 s extrapolates to ~380 MB an hour (target 200 MB): half of it new Events
//! (each a new object, stored whole, with its `objects` row and unique-index entry), then the
//! `fields` text and the row overhead. `replay` of that file: 8.4 s to the first table (every
//! version is loaded into history first: linear, so ~4 min from 1 GB; target 1 s), a first
//! `:at` over 10,000 pods 210 ms, a `[` step 42 ms. Next steps: load lazily (the state at the
//! instant from the last whole versions first, history behind it), Events as rows of `events`
//! only, `fields` as interned path ids.
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
