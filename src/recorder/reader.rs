//! The reading side: a recording opened for `kinformer replay` (and `--history-file`), loaded
//! into the same per-object history the live dashboard keeps, so every past view is the live
//! dashboard's own code.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use kube::api::DynamicObject;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Deserialize as _;
use serde_json::Value;

use super::writer::{EventColumns, decode, join_event};
use super::{Error, patch, schema};
use crate::informer::delta_fifo::{DeletedFinalStateUnknown, Delta, DeltaObject, DeltaType};
use crate::informer::history::{History, Since, TimelineEvent};

/// One recording session, as `sessions` holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRow {
    pub id: i64,
    pub cluster: String,
    pub context: String,
    pub server_version: Option<String>,
    pub started_ms: i64,
    /// `None`: the recorder did not end it (killed, or still recording).
    pub ended_ms: Option<i64>,
    /// `(start, end)` of each time the server was unreachable (`end` `None`: never came back).
    pub gaps: Vec<(i64, Option<i64>, String)>,
}

/// A note at an instant (`m` in replay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    pub at_ms: i64,
    pub note: String,
}

/// A recorded kind: its resource label (`deployments.apps`), API version, kind and plural.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedKind {
    pub resource: String,
    pub api_version: String,
    pub kind: String,
    pub plural: String,
    /// Whether its objects have a namespace.
    pub namespaced: bool,
}

/// A recording loaded into a [`History`]: the objects present at its end (the replay's "now"),
/// by resource, and the Events recorded.
#[derive(Debug, Default)]
pub struct Loaded {
    /// By resource label, the objects not deleted at the end of the recording.
    pub end: BTreeMap<String, Vec<Arc<DynamicObject>>>,
    pub kinds: Vec<RecordedKind>,
    /// The first and last instants recorded.
    pub span: Option<(i64, i64)>,
    pub versions: u64,
    /// Versions that could not be read back (a damaged body): skipped, counted.
    pub unreadable: u64,
}

/// Each object's latest state while a recording loads, by object row (an Event by the negated
/// id of its first row): the JSON, whether deleted, its resource and kind.
type Current = HashMap<i64, (Value, bool, Arc<str>, Arc<str>)>;

/// One object as it was at an instant ([`Recording::state_at`]).
#[derive(Debug, Clone)]
pub struct StateRow {
    /// `namespace/name`.
    pub key: String,
    pub object: Arc<DynamicObject>,
    /// When this version was recorded.
    pub at_ms: i64,
    /// Whether it changed (or went) by the end of the recording.
    pub since: Since,
}

/// An open recording.
pub struct Recording {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recording")
            .field("path", &self.path)
            .finish()
    }
}

fn delta_of(s: &str) -> Option<DeltaType> {
    Some(match s {
        "Added" => DeltaType::Added,
        "Updated" => DeltaType::Updated,
        "Deleted" => DeltaType::Deleted,
        "Replaced" => DeltaType::Replaced,
        "Sync" => DeltaType::Sync,
        _ => return None,
    })
}

impl Recording {
    /// Open `path`, refusing in one line a file that is not a recording this build reads.
    pub fn open(path: &Path) -> Result<Self, Error> {
        let conn = schema::open_existing(path)?;
        Ok(Self {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        Error::from_sqlite(&self.path.display().to_string(), e)
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every session, oldest first, with its gaps.
    pub fn sessions(&self) -> Result<Vec<SessionRow>, Error> {
        let read = || -> rusqlite::Result<Vec<SessionRow>> {
            let mut out: Vec<SessionRow> = self
                .conn
                .prepare(
                    "SELECT id, cluster, context, server_version, started_ms, ended_ms
                     FROM sessions ORDER BY id",
                )?
                .query_map([], |r| {
                    Ok(SessionRow {
                        id: r.get(0)?,
                        cluster: r.get(1)?,
                        context: r.get(2)?,
                        server_version: r.get(3)?,
                        started_ms: r.get(4)?,
                        ended_ms: r.get(5)?,
                        gaps: Vec::new(),
                    })
                })?
                .collect::<rusqlite::Result<_>>()?;
            let mut stmt = self.conn.prepare(
                "SELECT session_id, start_ms, end_ms, reason FROM gaps ORDER BY start_ms",
            )?;
            let gaps = stmt.query_map([], |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, String>(3)?,
                ))
            })?;
            for g in gaps {
                let (session, start, end, reason) = g?;
                if let Some(s) = out.iter_mut().find(|s| s.id == session) {
                    s.gaps.push((start, end, reason));
                }
            }
            Ok(out)
        };
        read().map_err(|e| self.err(e))
    }

    /// The kinds recorded.
    pub fn kinds(&self) -> Result<Vec<RecordedKind>, Error> {
        let read = || -> rusqlite::Result<Vec<RecordedKind>> {
            self.conn
                .prepare(
                    "SELECT r.resource, r.api_version, r.kind, r.plural,
                     EXISTS (SELECT 1 FROM objects o WHERE o.resource = r.resource
                             AND o.namespace <> '')
                     OR (r.kind = 'Event' AND EXISTS (SELECT 1 FROM events e
                             WHERE e.resource = r.resource AND e.namespace <> ''))
                     FROM resources r ORDER BY r.resource",
                )?
                .query_map([], |r| {
                    Ok(RecordedKind {
                        resource: r.get(0)?,
                        api_version: r.get(1)?,
                        kind: r.get(2)?,
                        plural: r.get(3)?,
                        namespaced: r.get(4)?,
                    })
                })?
                .collect()
        };
        read().map_err(|e| self.err(e))
    }

    /// Load every version, oldest first, into `history` at the instant it was recorded, and
    /// return the objects present at the end. `progress(done, total)` is called every few
    /// thousand versions.
    pub fn load(&self, history: &History, progress: impl FnMut(u64, u64)) -> Result<Loaded, Error> {
        self.load_cluster(history, None, progress)
    }

    /// [`Self::load`], only the objects of `cluster` when given (`--history-file` loads the
    /// current cluster's).
    pub fn load_cluster(
        &self,
        history: &History,
        cluster: Option<&str>,
        progress: impl FnMut(u64, u64),
    ) -> Result<Loaded, Error> {
        let mut loaded = Loaded {
            kinds: self.kinds()?,
            ..Loaded::default()
        };
        let mut current = HashMap::new();
        let mut names: HashMap<String, Arc<str>> = HashMap::new();
        let mut intern = |s: String| -> Arc<str> {
            names
                .entry(s)
                .or_insert_with_key(|k| Arc::from(k.as_str()))
                .clone()
        };
        self.load_versions(
            history,
            "?1 IS NULL OR o.cluster = ?1",
            &[&cluster],
            &mut loaded,
            &mut intern,
            &mut current,
            None,
            progress,
        )?;
        self.load_events(history, cluster, &mut loaded, &mut intern, &mut current)?;
        for (value, deleted, resource, _) in current.into_values() {
            if deleted {
                continue;
            }
            if let Ok(obj) = DynamicObject::deserialize(&value) {
                loaded
                    .end
                    .entry(resource.to_string())
                    .or_default()
                    .push(Arc::new(obj));
            }
        }
        Ok(loaded)
    }

    /// The versions of the objects `filter` (SQL on `o`, with `args`) selects, oldest first,
    /// into `history`; `current` ends with each object's latest state.
    #[allow(clippy::too_many_arguments)]
    fn load_versions(
        &self,
        history: &History,
        filter: &str,
        args: &[&dyn rusqlite::ToSql],
        loaded: &mut Loaded,
        intern: &mut impl FnMut(String) -> Arc<str>,
        current: &mut Current,
        total: Option<i64>,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<(), Error> {
        let total = match total {
            Some(t) => t,
            None => self
                .conn
                .query_row("SELECT COUNT(*) FROM versions", [], |r| r.get::<_, i64>(0))
                .map_err(|e| self.err(e))?,
        };
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT v.object_id, v.at_ms, v.delta, v.whole, v.body, o.resource, o.kind
                 FROM versions v JOIN objects o ON o.id = v.object_id
                 WHERE {filter} ORDER BY v.id"
            ))
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query(args).map_err(|e| self.err(e))?;
        let mut masks: HashMap<Arc<str>, crate::informer::decode::Mask> = HashMap::new();
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let read = (|| -> rusqlite::Result<_> {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, bool>(3)?,
                    r.get::<_, Vec<u8>>(4)?,
                    r.get::<_, String>(5)?,
                    r.get::<_, String>(6)?,
                ))
            })();
            let (object_id, at_ms, delta, whole, body, resource, kind) =
                read.map_err(|e| self.err(e))?;
            loaded.versions += 1;
            if loaded.versions.is_multiple_of(4096) {
                progress(loaded.versions, total as u64);
            }
            let delta = delta_of(&delta);
            let deleting = delta == Some(DeltaType::Deleted);
            let body = match decode(&body) {
                Ok(b) => b,
                Err(_) => {
                    loaded.unreadable += 1;
                    continue;
                }
            };
            let entry = if whole {
                let resource = intern(resource);
                let kind = intern(kind);
                current.insert(object_id, (body, deleting, resource, kind));
                current.get_mut(&object_id)
            } else {
                let e = current.get_mut(&object_id);
                match (e, body) {
                    (Some(e), Value::Array(ops)) => {
                        if patch::apply(&mut e.0, &ops).is_err() {
                            loaded.unreadable += 1;
                            continue;
                        }
                        e.1 = deleting;
                        Some(e)
                    }
                    _ => {
                        loaded.unreadable += 1;
                        continue;
                    }
                }
            };
            let Some((value, _, resource, kind)) = entry else {
                continue;
            };
            let Ok(obj) = DynamicObject::deserialize(&*value) else {
                loaded.unreadable += 1;
                continue;
            };
            let mask = *masks
                .entry(Arc::clone(kind))
                .or_insert_with(|| crate::render::history_mask(kind));
            history.observe_as_at(resource, &obj, mask, delta, at_ms);
            if deleting {
                // A relist's tombstone carries the version already held: name the deletion.
                let key = crate::informer::meta_namespace_key(&obj).unwrap_or_default();
                let d = Delta {
                    kind: DeltaType::Deleted,
                    object: DeltaObject::Tombstone(DeletedFinalStateUnknown {
                        key: key.clone(),
                        obj: Some(Arc::new(obj)),
                    }),
                };
                history.popped_at(resource, &key, &[d], at_ms);
            }
            loaded.span = Some(match loaded.span {
                None => (at_ms, at_ms),
                Some((a, b)) => (a.min(at_ms), b.max(at_ms)),
            });
        }
        progress(loaded.versions, total as u64);
        Ok(())
    }

    /// The Events' rows into `history` (and `current`, keyed by the negated row id of their
    /// first row, with the objects' states).
    fn load_events(
        &self,
        history: &History,
        cluster: Option<&str>,
        loaded: &mut Loaded,
        intern: &mut impl FnMut(String) -> Arc<str>,
        current: &mut Current,
    ) -> Result<(), Error> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, seen_ms, resource, namespace, name, uid, rv, delta, type, reason,
                 message, rest FROM events WHERE ?1 IS NULL OR cluster = ?1 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query(params![cluster]).map_err(|e| self.err(e))?;
        // Each Event's slot in `current`, by (resource, namespace, name, uid).
        let mut slots: HashMap<(Arc<str>, String, String, String), i64> = HashMap::new();
        let mask = crate::render::history_mask("Event");
        let kind = intern("Event".to_string());
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let read = (|| -> rusqlite::Result<_> {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i64>(1)?,
                    r.get::<_, String>(2)?,
                    (
                        r.get::<_, String>(3)?,
                        r.get::<_, String>(4)?,
                        r.get::<_, String>(5)?,
                        r.get::<_, String>(6)?,
                    ),
                    r.get::<_, String>(7)?,
                    EventColumns {
                        kind: r.get(8)?,
                        reason: r.get(9)?,
                        message: r.get(10)?,
                    },
                    r.get::<_, Option<Vec<u8>>>(11)?,
                ))
            })();
            let (id, seen_ms, resource, (namespace, name, uid, rv), delta, cols, rest) =
                read.map_err(|e| self.err(e))?;
            loaded.versions += 1;
            let resource = intern(resource);
            let delta = delta_of(&delta);
            let deleting = delta == Some(DeltaType::Deleted);
            let slot_key = (Arc::clone(&resource), namespace, name, uid);
            let slot = *slots.entry(slot_key.clone()).or_insert(-id);
            let value = match rest {
                Some(rest) => match decode(&rest) {
                    Ok(rest) => join_event(rest, &slot_key.1, &slot_key.2, &slot_key.3, &rv, cols),
                    Err(_) => {
                        loaded.unreadable += 1;
                        continue;
                    }
                },
                // A relist's deletion: the Event as its row before.
                None => match current.get(&slot) {
                    Some(c) => c.0.clone(),
                    None => {
                        loaded.unreadable += 1;
                        continue;
                    }
                },
            };
            let Ok(obj) = DynamicObject::deserialize(&value) else {
                loaded.unreadable += 1;
                continue;
            };
            history.observe_as_at(&resource, &obj, mask, delta, seen_ms);
            if deleting {
                let key = crate::informer::meta_namespace_key(&obj).unwrap_or_default();
                let d = Delta {
                    kind: DeltaType::Deleted,
                    object: DeltaObject::Tombstone(DeletedFinalStateUnknown {
                        key: key.clone(),
                        obj: Some(Arc::new(obj)),
                    }),
                };
                history.popped_at(&resource, &key, &[d], seen_ms);
                current.remove(&slot);
                slots.remove(&slot_key);
            } else {
                current.insert(slot, (value, false, resource, Arc::clone(&kind)));
            }
            loaded.span = Some(match loaded.span {
                None => (seen_ms, seen_ms),
                Some((a, b)) => (a.min(seen_ms), b.max(seen_ms)),
            });
        }
        Ok(())
    }

    /// The first and last instants recorded (versions and Events), from the time indexes.
    pub fn span(&self) -> Result<Option<(i64, i64)>, Error> {
        let read = || -> rusqlite::Result<Option<(i64, i64)>> {
            let q = |sql: &str| -> rusqlite::Result<(Option<i64>, Option<i64>)> {
                self.conn.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?)))
            };
            let (a, b) = q("SELECT MIN(at_ms), MAX(at_ms) FROM versions")?;
            let (c, d) = q("SELECT MIN(seen_ms), MAX(seen_ms) FROM events")?;
            let start = [a, c].into_iter().flatten().min();
            let end = [b, d].into_iter().flatten().max();
            Ok(start.zip(end))
        };
        read().map_err(|e| self.err(e))
    }

    /// The objects of `resource` present at `at_ms` (of every cluster), each rebuilt from its
    /// latest whole version at or before `at_ms` and the patches after it (a range read on
    /// `versions (object_id, id)`, the whole one found on `versions_whole`): what a replay
    /// shows without loading the file. Events are read from `events`.
    pub fn state_at(&self, resource: &str, at_ms: i64) -> Result<Vec<StateRow>, Error> {
        let read = || -> rusqlite::Result<Vec<StateRow>> {
            if self.is_events(resource)? {
                return self.events_at(resource, at_ms);
            }
            let mut out = Vec::new();
            // Objects recorded by then: the latest whole version at or before the instant,
            // and the patches after it.
            self.rebuild(
                "SELECT o.id, v.id, v.at_ms, v.delta, v.whole, v.body
                 FROM objects o JOIN versions v ON v.object_id = o.id
                 WHERE o.resource = ?1 AND o.first_ms <= ?2
                   AND (o.gone_ms IS NULL OR o.gone_ms > ?2)
                   AND v.at_ms <= ?2
                   AND v.id >= (SELECT w.id FROM versions w
                                WHERE w.object_id = o.id AND w.whole = 1 AND w.at_ms <= ?2
                                ORDER BY w.id DESC LIMIT 1)
                 ORDER BY o.id, v.id",
                resource,
                at_ms,
                &mut out,
            )?;
            // Objects first recorded later by a list (not created then): they existed before,
            // as that first version (as the live dashboard's past views have it).
            self.rebuild(
                "SELECT o.id, v.id, v.at_ms, v.delta, v.whole, v.body
                 FROM objects o JOIN versions v ON v.object_id = o.id
                 WHERE o.resource = ?1 AND o.first_ms > ?2 AND o.first_delta <> 'Added'
                   AND v.id = (SELECT MIN(f.id) FROM versions f WHERE f.object_id = o.id)",
                resource,
                at_ms,
                &mut out,
            )?;
            Ok(out)
        };
        read().map_err(|e| self.err(e))
    }

    /// The objects `sql` gives the versions of (object id, version id, time, delta, whole,
    /// body; by object, then version), each rebuilt, into `out` unless deleted.
    fn rebuild(
        &self,
        sql: &str,
        resource: &str,
        at_ms: i64,
        out: &mut Vec<StateRow>,
    ) -> rusqlite::Result<()> {
        let mut stmt = self.conn.prepare_cached(sql)?;
        let mut latest = self.conn.prepare_cached(
            "SELECT id, delta FROM versions WHERE object_id = ?1 ORDER BY id DESC LIMIT 1",
        )?;
        let mut rows = stmt.query(params![resource, at_ms])?;
        // The object being rebuilt: (object id, value, last version id, its time, deleted).
        let mut cur: Option<(i64, Value, i64, i64, bool)> = None;
        let mut finish = |cur: Option<(i64, Value, i64, i64, bool)>,
                          out: &mut Vec<StateRow>|
         -> rusqlite::Result<()> {
            let Some((object, value, version, at, deleted)) = cur else {
                return Ok(());
            };
            if deleted {
                return Ok(());
            }
            let Ok(obj) = DynamicObject::deserialize(&value) else {
                return Ok(());
            };
            let Ok(key) = crate::informer::meta_namespace_key(&obj) else {
                return Ok(());
            };
            let (last, delta): (i64, String) =
                latest.query_row(params![object], |r| Ok((r.get(0)?, r.get(1)?)))?;
            let since = if last == version {
                Since::Unchanged
            } else if delta == "Deleted" {
                Since::Deleted
            } else {
                Since::Changed
            };
            out.push(StateRow {
                key,
                object: Arc::new(obj),
                at_ms: at,
                since,
            });
            Ok(())
        };
        while let Some(r) = rows.next()? {
            let object: i64 = r.get(0)?;
            let version: i64 = r.get(1)?;
            let at: i64 = r.get(2)?;
            let deleted = r.get_ref(3)?.as_str().is_ok_and(|d| d == "Deleted");
            let whole: bool = r.get(4)?;
            let body = decode(r.get_ref(5)?.as_blob()?).ok();
            if cur.as_ref().is_some_and(|c| c.0 != object) {
                finish(cur.take(), out)?;
            }
            if whole {
                if let Some(v) = body {
                    cur = Some((object, v, version, at, deleted));
                }
            } else if let (Some(c), Some(Value::Array(ops))) = (cur.as_mut(), body)
                && patch::apply(&mut c.1, &ops).is_ok()
            {
                (c.2, c.3, c.4) = (version, at, deleted);
            }
        }
        finish(cur.take(), out)
    }

    /// Whether `resource` is recorded as Events (rows of `events`).
    fn is_events(&self, resource: &str) -> rusqlite::Result<bool> {
        self.conn
            .prepare_cached("SELECT kind = 'Event' FROM resources WHERE resource = ?1")?
            .query_row(params![resource], |r| r.get(0))
            .optional()
            .map(|k| k.unwrap_or(false))
    }

    /// [`Self::state_at`] of an Event resource: each Event's latest row at or before `at_ms`.
    fn events_at(&self, resource: &str, at_ms: i64) -> rusqlite::Result<Vec<StateRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT e.namespace, e.name, e.uid, e.rv, e.delta, e.type, e.reason, e.message,
             e.rest, e.seen_ms FROM events e JOIN (
               SELECT MAX(id) AS id FROM events WHERE resource = ?1 AND seen_ms <= ?2
               GROUP BY namespace, name, uid) l ON l.id = e.id
             WHERE e.delta <> 'Deleted' AND e.rest IS NOT NULL",
        )?;
        let mut rows = stmt.query(params![resource, at_ms])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let (namespace, name, uid, rv): (String, String, String, String) =
                (r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?);
            let cols = EventColumns {
                kind: r.get(5)?,
                reason: r.get(6)?,
                message: r.get(7)?,
            };
            let Ok(rest) = decode(r.get_ref(8)?.as_blob()?) else {
                continue;
            };
            let value = join_event(rest, &namespace, &name, &uid, &rv, cols);
            let Ok(obj) = DynamicObject::deserialize(&value) else {
                continue;
            };
            let Ok(key) = crate::informer::meta_namespace_key(&obj) else {
                continue;
            };
            out.push(StateRow {
                key,
                object: Arc::new(obj),
                at_ms: r.get(9)?,
                since: Since::Unchanged,
            });
        }
        Ok(out)
    }

    /// Up to `n` instants `resource` changed at before `at_ms`, `at_ms` itself, and up to `n`
    /// after, in order (the neighbours `[` and `]` step to), from the time index.
    pub fn change_times_near(
        &self,
        resource: &str,
        at_ms: i64,
        n: usize,
    ) -> Result<Vec<i64>, Error> {
        let read = || -> rusqlite::Result<Vec<i64>> {
            let side = |sql: &str| -> rusqlite::Result<Vec<i64>> {
                self.conn
                    .prepare_cached(sql)?
                    .query_map(params![resource, at_ms, n as i64], |r| r.get(0))?
                    .collect()
            };
            let (before, after) = if self.is_events(resource)? {
                (
                    side(
                        "SELECT DISTINCT seen_ms FROM events WHERE seen_ms < ?2
                         AND resource = ?1 ORDER BY seen_ms DESC LIMIT ?3",
                    )?,
                    side(
                        "SELECT DISTINCT seen_ms FROM events WHERE seen_ms > ?2
                         AND resource = ?1 ORDER BY seen_ms LIMIT ?3",
                    )?,
                )
            } else {
                (
                    side(
                        "SELECT DISTINCT v.at_ms FROM versions v JOIN objects o
                         ON o.id = v.object_id WHERE v.at_ms < ?2 AND o.resource = ?1
                         ORDER BY v.at_ms DESC LIMIT ?3",
                    )?,
                    side(
                        "SELECT DISTINCT v.at_ms FROM versions v JOIN objects o
                         ON o.id = v.object_id WHERE v.at_ms > ?2 AND o.resource = ?1
                         ORDER BY v.at_ms LIMIT ?3",
                    )?,
                )
            };
            let mut times: Vec<i64> = before.into_iter().rev().collect();
            times.push(at_ms);
            times.extend(after);
            Ok(times)
        };
        read().map_err(|e| self.err(e))
    }

    /// Every instant `resource` changed at, in order.
    pub fn change_times(&self, resource: &str) -> Result<Vec<i64>, Error> {
        let read = || -> rusqlite::Result<Vec<i64>> {
            self.conn
                .prepare(
                    "SELECT DISTINCT v.at_ms FROM versions v JOIN objects o
                     ON o.id = v.object_id WHERE o.resource = ?1 ORDER BY v.at_ms",
                )?
                .query_map(params![resource], |r| r.get(0))?
                .collect()
        };
        read().map_err(|e| self.err(e))
    }

    /// The versions of the objects named `key` of `resource` (every uid it had), into
    /// `history`: what `h` and blame read, without loading the rest of the file.
    pub fn load_object(&self, history: &History, resource: &str, key: &str) -> Result<(), Error> {
        let (namespace, name) = key.split_once('/').unwrap_or(("", key));
        let mut names: HashMap<String, Arc<str>> = HashMap::new();
        let mut intern = |s: String| -> Arc<str> {
            names
                .entry(s)
                .or_insert_with_key(|k| Arc::from(k.as_str()))
                .clone()
        };
        self.load_versions(
            history,
            "o.resource = ?1 AND o.namespace = ?2 AND o.name = ?3",
            &[&resource, &namespace, &name],
            &mut Loaded::default(),
            &mut intern,
            &mut HashMap::new(),
            Some(0),
            |_, _| {},
        )
    }

    /// The Events recorded about the object with `uid`, oldest first.
    pub fn events_about(&self, uid: &str) -> Result<Vec<TimelineEvent>, Error> {
        let read = || -> rusqlite::Result<Vec<TimelineEvent>> {
            self.conn
                .prepare_cached(
                    "SELECT at_ms, COALESCE(type, ''), COALESCE(reason, ''),
                     COALESCE(message, ''), count, namespace FROM events
                     WHERE object_uid = ?1 AND delta <> 'Deleted' ORDER BY at_ms",
                )?
                .query_map(params![uid], |r| {
                    let ns: String = r.get(5)?;
                    Ok(TimelineEvent {
                        at_ms: r.get(0)?,
                        kind: r.get(1)?,
                        reason: r.get(2)?,
                        message: r.get(3)?,
                        count: r.get::<_, i64>(4)?.max(1) as u64,
                        group: String::new(),
                        namespace: (!ns.is_empty()).then_some(ns),
                        name: String::new(),
                    })
                })?
                .collect()
        };
        read().map_err(|e| self.err(e))
    }

    /// The marks, by instant.
    pub fn marks(&self) -> Result<Vec<Mark>, Error> {
        let read = || -> rusqlite::Result<Vec<Mark>> {
            self.conn
                .prepare("SELECT at_ms, note FROM marks ORDER BY at_ms")?
                .query_map([], |r| {
                    Ok(Mark {
                        at_ms: r.get(0)?,
                        note: r.get(1)?,
                    })
                })?
                .collect()
        };
        read().map_err(|e| self.err(e))
    }

    /// Keep a mark in the file (so whoever opens it next sees it).
    pub fn add_mark(&self, mark: &Mark) -> Result<(), Error> {
        self.conn
            .execute(
                "INSERT INTO marks (at_ms, note) VALUES (?1, ?2)",
                params![mark.at_ms, mark.note],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }

    /// The connection, for queries (tests, the README's examples).
    pub fn connection(&self) -> &Connection {
        &self.conn
    }
}
