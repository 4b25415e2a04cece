//! `kinformer replay FILE`: the dashboard on a recording, with no cluster.
//!
//! Opening reads nothing but the kinds and the span: each table reads the objects present at
//! its instant from the file when it opens ([`crate::recorder::Recording::state_at`]: per
//! object, the latest whole version at or before the instant and the patches after it), the
//! end for its store and rows (the replay's "now"), any earlier instant for the dashboard's
//! own past view of the table (`:at`, `[`, `]`, `space` playing; see `ui::replay`). `h` and
//! blame read the one object's versions when asked; `:changes` reads the history loaded into
//! [`History`] on a thread of its own once the first table is drawn. [`ReplayBackend`] carries out the app's effects from
//! the recording: anything that would reach a cluster (a write, logs, a shell, a
//! port-forward) is answered "replay: read-only".

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream, KeyEventKind};
use futures::StreamExt;
use kube::api::DynamicObject;

use super::session::ExitSignals;
use super::terminal;
use crate::cluster::ResourceInfo;
use crate::informer::factory::indexers_for;
use crate::informer::history::{History, PastRow, PastView, history_resource};
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::recorder::reader::RecordedKind;
use crate::recorder::{Mark, Recording};
use crate::ui::action::{
    Access, Action, ConnectionState, Effect, InformerRow, InformerState, ObjectSummary,
};
use crate::ui::app::{App, AppConfig};
use crate::ui::keys::KeyMap;
use crate::ui::replay::{READ_ONLY, Replay};

/// What `kinformer replay` was asked.
pub struct ReplaySetup {
    pub file: PathBuf,
    pub at: Option<String>,
    pub resource: Option<String>,
    pub namespace: Option<String>,
    pub keys: KeyMap,
    pub user: Arc<crate::config::UserConfig>,
}

/// A recording open, answering the app's effects.
pub struct ReplayBackend {
    pub recording: Recording,
    /// Every version of the recording, for `:changes`: filled in the background
    /// ([`Self::load_in_background`]) or at once ([`Self::load`]).
    pub history: Arc<History>,
    /// Versions loaded into `history` so far, and whether it is complete.
    loading: Arc<(AtomicU64, AtomicBool)>,
    pub kinds: Vec<RecordedKind>,
    span: Option<(i64, i64)>,
    /// The objects at the end, by resource, read when first asked.
    end: HashMap<String, Vec<Arc<DynamicObject>>>,
    /// The instant views open at (the instant shown when they are opened), `None`: the end.
    pub cursor: Option<i64>,
    /// The kinds recorded, as the app's tables know them.
    pub resources: Vec<ResourceInfo>,
    /// The views open: their resource label and namespace scope.
    views: HashMap<crate::ui::action::ViewId, (String, Option<String>)>,
}

/// Instants either side of the one shown handed to the app for `[` and `]` (each step asks
/// again, so the window moves with it).
const NEIGHBOUR_TIMES: usize = 512;

/// The recorded kinds as tables: the built-in kind's description when it is one, else made
/// from what was recorded.
fn resources_of(kinds: &[RecordedKind]) -> Vec<ResourceInfo> {
    let builtin = crate::ui::resources::builtin_resources();
    kinds
        .iter()
        .map(|k| {
            builtin
                .iter()
                .find(|b| history_resource(&b.api_resource) == k.resource)
                .cloned()
                .unwrap_or_else(|| {
                    let (group, version) = match k.api_version.split_once('/') {
                        Some((g, v)) => (g.to_string(), v.to_string()),
                        None => (String::new(), k.api_version.clone()),
                    };
                    ResourceInfo {
                        api_resource: kube::discovery::ApiResource {
                            group,
                            version,
                            api_version: k.api_version.clone(),
                            kind: k.kind.clone(),
                            plural: k.plural.clone(),
                        },
                        namespaced: k.namespaced,
                        singular: k.kind.to_lowercase(),
                        short_names: Vec::new(),
                        verbs: vec!["list".into(), "watch".into(), "get".into()],
                        printer_columns: None,
                    }
                })
        })
        .collect()
}

fn in_scope(obj: &DynamicObject, namespace: Option<&str>) -> bool {
    namespace.is_none_or(|set| {
        let ns = obj.metadata.namespace.as_deref().unwrap_or("");
        set.split(',').any(|n| n.trim() == ns)
    })
}

impl ReplayBackend {
    /// Open `file`: the kinds and the span, nothing else read yet (each table reads the
    /// objects at its instant when asked; `:changes` waits for [`Self::load_in_background`]).
    pub fn open(file: &std::path::Path) -> Result<Self, crate::recorder::Error> {
        let recording = Recording::open(file)?;
        // Everything the file holds, and room to spare (the screens show the budget).
        let file_bytes = std::fs::metadata(file).map_or(0, |m| m.len()) as usize;
        let history = Arc::new(History::new(
            file_bytes.saturating_mul(8).max(256 * 1024 * 1024),
        ));
        let kinds = recording.kinds()?;
        let span = recording.span()?;
        let resources = resources_of(&kinds);
        Ok(Self {
            recording,
            history,
            loading: Arc::new((AtomicU64::new(0), AtomicBool::new(false))),
            kinds,
            span,
            end: HashMap::new(),
            cursor: None,
            resources,
            views: HashMap::new(),
        })
    }

    /// [`Self::open`], and every version loaded into history before it returns.
    pub fn load(
        file: &std::path::Path,
        progress: impl FnMut(u64, u64),
    ) -> Result<Self, crate::recorder::Error> {
        let backend = Self::open(file)?;
        let loaded = backend.recording.load(&backend.history, progress)?;
        backend.loading.0.store(loaded.versions, Ordering::Relaxed);
        backend.loading.1.store(true, Ordering::Relaxed);
        Ok(backend)
    }

    /// Load every version into history on a thread of its own (its own connection), for
    /// `:changes`; the tables do not wait for it.
    pub fn load_in_background(&self) {
        let path = self.recording.path().to_path_buf();
        let history = Arc::clone(&self.history);
        let loading = Arc::clone(&self.loading);
        let spawned = std::thread::Builder::new()
            .name("replay-load".into())
            .spawn(move || {
                let started = Instant::now();
                let result = Recording::open(&path).and_then(|r| {
                    r.load(&history, |done, _| loading.0.store(done, Ordering::Relaxed))
                });
                match result {
                    Ok(l) => tracing::info!(
                        versions = l.versions,
                        ms = started.elapsed().as_millis() as u64,
                        "replay: history loaded"
                    ),
                    Err(e) => tracing::warn!(error = %e, "replay: history not loaded"),
                }
                loading.1.store(true, Ordering::Relaxed);
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "replay: history not loaded");
        }
    }

    /// The first and last instants recorded.
    pub fn span(&self) -> (i64, i64) {
        self.span.unwrap_or((0, 0))
    }

    /// The objects of `resource` present at the end, in `namespace` (or all).
    pub fn end_objects(
        &mut self,
        resource: &str,
        namespace: Option<&str>,
    ) -> Vec<Arc<DynamicObject>> {
        if !self.end.contains_key(resource) {
            let objects = self
                .recording
                .state_at(resource, self.span().1)
                .map(|rows| rows.into_iter().map(|r| r.object).collect())
                .unwrap_or_else(|e| {
                    tracing::warn!(error = %e, %resource, "replay: objects not read");
                    Vec::new()
                });
            self.end.insert(resource.to_string(), objects);
        }
        self.end
            .get(resource)
            .map(|objs| {
                objs.iter()
                    .filter(|o| in_scope(o, namespace))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The objects of `resource` present at `at_ms`, in `namespace` (or all).
    fn objects_at(
        &self,
        resource: &str,
        namespace: Option<&str>,
        at_ms: i64,
    ) -> Vec<Arc<DynamicObject>> {
        self.past_view(resource, namespace, at_ms)
            .rows
            .into_iter()
            .map(|r| r.object)
            .collect()
    }

    /// `resource` in `namespace` as it was at `at_ms`, read from the file.
    pub fn past_view(&self, resource: &str, namespace: Option<&str>, asked_ms: i64) -> PastView {
        // Before the first instant recorded: the first (as a live past view clamps to the
        // oldest version its history holds).
        let start = self.span().0;
        let at_ms = asked_ms.max(start);
        let mut rows: Vec<PastRow> = self
            .recording
            .state_at(resource, at_ms)
            .unwrap_or_else(|e| {
                tracing::warn!(error = %e, %resource, "replay: past view not read");
                Vec::new()
            })
            .into_iter()
            .filter(|r| in_scope(&r.object, namespace))
            .map(|r| PastRow {
                key: Arc::from(r.key.as_str()),
                object: r.object,
                since: r.since,
                version: None,
            })
            .collect();
        rows.sort_by(|a, b| a.key.cmp(&b.key));
        PastView {
            asked_ms,
            at_ms,
            earliest_ms: Some(start),
            rows,
        }
    }

    /// The app, set up for a replay of this recording at its end.
    pub fn app(
        &self,
        setup_resource: Option<&str>,
        namespace: Option<String>,
        keys: KeyMap,
        user: Arc<crate::config::UserConfig>,
    ) -> App {
        let (start, end) = self.span();
        let session = self
            .recording
            .sessions()
            .ok()
            .and_then(|s| s.last().cloned());
        let mut app = App::new(
            AppConfig {
                context: session
                    .as_ref()
                    .map(|s| s.context.clone())
                    .unwrap_or_default(),
                namespace,
                resource: setup_resource.unwrap_or("pods").to_string(),
                readonly: true,
                now_ms: end,
                user,
                ..AppConfig::default()
            },
            keys,
        );
        app.readonly_why = READ_ONLY.to_string();
        app.replay = Some(Replay {
            file: self.recording.path().display().to_string(),
            start_ms: start,
            end_ms: end,
            speed: None,
            marks: self
                .recording
                .marks()
                .unwrap_or_default()
                .into_iter()
                .map(|m| (m.at_ms, m.note))
                .collect(),
            new_marks: Vec::new(),
        });
        app.update(Action::Connection(ConnectionState {
            context: app.connection.context.clone(),
            reachable: true,
            server_version: session.and_then(|s| s.server_version),
            retry_at_ms: None,
            last_error: None,
        }));
        app
    }

    /// Carry out one effect on `app` (answers go straight to it); false for `Quit`.
    pub fn carry_out(&mut self, app: &mut App, effect: Effect) -> bool {
        let mut more = Vec::new();
        let mut answer = |app: &mut App, a: Action| more.extend(app.update(a));
        match effect {
            Effect::Quit => return false,
            Effect::CheckAccess {
                view, namespace, ..
            } => answer(
                app,
                Action::AccessChecked {
                    view,
                    namespace,
                    access: Access::Allowed,
                },
            ),
            Effect::OpenResource {
                view,
                resource,
                namespace,
                drill,
            } => {
                let label = history_resource(&resource.api_resource);
                let ns = namespace.as_deref().filter(|_| resource.namespaced);
                // A table opens at the end and travels to the instant shown (its `esc` is the
                // end); any other feed (the xray's) is the objects at the instant shown.
                let objects = match self.cursor.filter(|_| !app.views.contains_key(&view)) {
                    Some(at) => self.objects_at(&label, ns, at),
                    None => self.end_objects(&label, ns),
                };
                let store = Arc::new(ThreadSafeStore::new(indexers_for(&resource.api_resource)));
                let mut rows = Vec::with_capacity(objects.len());
                for o in &objects {
                    let Ok(key) = crate::informer::meta_namespace_key(&**o) else {
                        continue;
                    };
                    let _ = store.add(&key, Arc::clone(o));
                    if let Some(s) = ObjectSummary::with_key(
                        &resource.api_resource.kind,
                        Arc::from(key.as_str()),
                        o,
                        resource.printer_columns.as_deref(),
                    ) {
                        rows.push(s);
                    }
                }
                self.views
                    .insert(view, (label.clone(), ns.map(str::to_string)));
                answer(
                    app,
                    Action::InformerStats(vec![informer_row(&label, ns, objects.len())]),
                );
                answer(app, Action::Store { view, store });
                if drill.is_none() {
                    answer(app, Action::Resync { view, rows });
                }
                if let Some(at) = self.cursor {
                    app.travel_to(view, at, &mut more);
                }
            }
            Effect::CloseView { view } => {
                self.views.remove(&view);
            }
            Effect::FetchPastView {
                view,
                resource,
                namespace,
                at_ms,
            } => {
                let asked = Instant::now();
                let past = self.past_view(&resource, namespace.as_deref(), at_ms);
                let times = self
                    .recording
                    .change_times_near(&resource, at_ms, NEIGHBOUR_TIMES)
                    .unwrap_or_default();
                tracing::info!(
                    %resource,
                    rows = past.rows.len(),
                    us = asked.elapsed().as_micros() as u64,
                    "replay: past view"
                );
                answer(
                    app,
                    Action::PastView {
                        view,
                        past: Box::new(past),
                        times,
                    },
                );
            }
            Effect::FetchHistory {
                resource,
                key,
                kind: _,
            } => {
                // This object's versions only, read now (the whole history may still be
                // loading).
                let own = History::with_mib(64);
                if let Err(e) = self.recording.load_object(&own, &resource, &key) {
                    tracing::warn!(error = %e, %resource, %key, "replay: history not read");
                }
                let timeline = own.timeline(&resource, &key).map(Box::new);
                let uid = self
                    .end_objects(&resource, None)
                    .into_iter()
                    .find(|o| crate::informer::meta_namespace_key(&**o).is_ok_and(|k| k == key))
                    .and_then(|o| o.metadata.uid.clone())
                    .or_else(|| self.uid_of(&resource, &key));
                let events = uid
                    .and_then(|u| self.recording.events_about(&u).ok())
                    .unwrap_or_default();
                let stats = own.stats();
                answer(
                    app,
                    Action::History {
                        resource,
                        key,
                        timeline,
                        stats,
                        events,
                        events_unavailable: None,
                    },
                );
            }
            Effect::FetchChanges { filter, limit } => {
                answer(app, super::changes(&self.history, filter, limit));
                if !self.loading.1.load(Ordering::Relaxed) {
                    answer(
                        app,
                        Action::Notify {
                            message: format!(
                                "replay: still loading the recording for :changes ({} versions so far)",
                                self.loading.0.load(Ordering::Relaxed)
                            ),
                            error: false,
                        },
                    );
                }
            }
            Effect::FetchYaml {
                request,
                resource,
                namespace,
                name,
            } => {
                let label = history_resource(&resource.api_resource);
                let found = self
                    .end_objects(&label, namespace.as_deref())
                    .into_iter()
                    .find(|o| o.metadata.name.as_deref() == Some(name.as_str()));
                let result = match found {
                    Some(o) => serde_json::to_value(&*o).map_err(|e| e.to_string()),
                    None => Err(format!(
                        "{name} is not in the recording at its end (in a past view, y shows it as it was)"
                    )),
                };
                answer(app, Action::Yaml { request, result });
            }
            Effect::FetchDescribe { request, .. } => answer(
                app,
                Action::Describe {
                    request,
                    result: Err(format!(
                        "{READ_ONLY}: describe asks the cluster; y shows the recorded object"
                    )),
                },
            ),
            Effect::SaveTable {
                path,
                contents,
                rows,
            } => answer(app, super::save_table(&path, &contents, rows)),
            // Nothing to start or stop without a cluster.
            Effect::CloseHistory
            | Effect::SetDrill { .. }
            | Effect::WatchMetrics { .. }
            | Effect::CloseLogs { .. }
            | Effect::StopForward { .. }
            | Effect::CancelDrain => {}
            // Anything else would reach a cluster.
            _ => answer(
                app,
                Action::Notify {
                    message: format!("{READ_ONLY}: there is no cluster in a replay"),
                    error: true,
                },
            ),
        }
        for e in more {
            if !self.carry_out(app, e) {
                return false;
            }
        }
        true
    }

    /// The uid of the object `key` of `resource` last recorded (for its Events).
    fn uid_of(&self, resource: &str, key: &str) -> Option<String> {
        let (ns, name) = key.split_once('/').unwrap_or(("", key));
        self.recording
            .connection()
            .query_row(
                "SELECT uid FROM objects WHERE resource = ?1 AND namespace = ?2 AND name = ?3
                 ORDER BY id DESC LIMIT 1",
                rusqlite::params![resource, ns, name],
                |r| r.get(0),
            )
            .ok()
    }

    /// Keep the marks made in `app` in the file.
    pub fn save_marks(&self, app: &mut App) {
        let Some(r) = app.replay.as_mut() else {
            return;
        };
        for (at_ms, note) in std::mem::take(&mut r.new_marks) {
            if let Err(e) = self.recording.add_mark(&Mark { at_ms, note }) {
                app.update(Action::Notify {
                    message: format!("the mark is not kept in the file: {e}"),
                    error: true,
                });
                return;
            }
        }
    }

    /// The instant `--at ARG` names: `HH:MM[:SS]` (UTC, the recording's last day), `-5m`
    /// before the end, or an RFC 3339 time.
    pub fn parse_at(&self, arg: &str) -> Result<i64, String> {
        let (start, end) = self.span();
        if let Ok(t) = chrono::DateTime::parse_from_rfc3339(arg.trim()) {
            return Ok(t.timestamp_millis());
        }
        match crate::ui::time_travel::parse_at(arg, end) {
            Ok(Some(at)) => Ok(at.max(start)),
            Ok(None) => Ok(end),
            Err(e) => Err(format!("--at: {e}")),
        }
    }
}

fn informer_row(label: &str, namespace: Option<&str>, cached: usize) -> InformerRow {
    InformerRow {
        resource: label.to_string(),
        namespace: namespace.map(str::to_string),
        state: InformerState::Watching,
        list_mode: "replay",
        wire: "sqlite",
        last_rv: String::new(),
        cached,
        queue_depth: 0,
        deltas_total: 0,
        deltas_per_sec: 0.0,
        relists: 0,
        last_error: None,
        synced: true,
        forbidden: false,
        cluster: None,
        progress: None,
        stale: false,
        history_reset: None,
    }
}

/// Run the replay in the terminal until the user quits or a signal arrives.
pub async fn run(setup: ReplaySetup) -> Result<(), String> {
    let started = Instant::now();
    let mut backend = ReplayBackend::open(&setup.file).map_err(|e| e.to_string())?;
    tracing::info!(
        file = %setup.file.display(),
        ms = started.elapsed().as_millis() as u64,
        "replay: recording open"
    );
    if backend.span.is_none() {
        return Err(format!(
            "{}: the recording holds no version yet",
            setup.file.display()
        ));
    }
    let at = setup
        .at
        .as_deref()
        .map(|a| backend.parse_at(a))
        .transpose()?;
    if let Some(r) = &setup.resource
        && crate::cluster::resolve(&backend.resources, r).is_none()
    {
        return Err(format!(
            "{r}: not in the recording (it holds {})",
            backend
                .kinds
                .iter()
                .map(|k| k.resource.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let mut app = backend.app(
        setup.resource.as_deref(),
        setup.namespace.clone(),
        setup.keys,
        setup.user,
    );
    let end = backend.span().1;
    backend.cursor = at.filter(|a| *a < end);
    let mut fx = app.update(Action::Discovery(backend.resources.clone()));
    fx.extend(app.init());
    let (mut tui, _guard) = terminal::setup(false).map_err(|e| format!("terminal: {e}"))?;
    if let Ok(s) = tui.size() {
        app.update(Action::Resize(s.width, s.height));
    }
    let mut running = true;
    for e in fx {
        running &= backend.carry_out(&mut app, e);
    }
    let mut events = EventStream::new();
    let mut signals = ExitSignals::new().map_err(|e| e.to_string())?;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let wall = Instant::now();
    let mut last_tick = Instant::now();
    let mut ticks = 0u64;
    let draw = |tui: &mut terminal::Tui, app: &App| {
        tui.draw(|f| f.render_widget(app, f.area())).map(|_| ())
    };
    draw(&mut tui, &app).map_err(|e| e.to_string())?;
    tracing::info!(
        ms = started.elapsed().as_millis() as u64,
        "replay: first table drawn"
    );
    // The table is up: the rest of the file (for `:changes`) loads behind it.
    backend.load_in_background();
    while running {
        let action = tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => Some(Action::Key(k)),
                Some(Ok(Event::Mouse(m))) => Some(Action::Mouse(m)),
                Some(Ok(Event::Resize(w, h))) => Some(Action::Resize(w, h)),
                Some(Ok(_)) => None,
                Some(Err(_)) | None => { running = false; None }
            },
            _ = tick.tick() => {
                let elapsed = last_tick.elapsed().as_millis() as i64;
                last_tick = Instant::now();
                ticks += 1;
                let mut fx = app.replay_advance(elapsed);
                if ticks.is_multiple_of(4) {
                    fx.extend(app.update(Action::Tick(end + wall.elapsed().as_millis() as i64)));
                }
                for e in fx {
                    running &= backend.carry_out(&mut app, e);
                }
                None
            },
            _ = signals.recv() => { running = false; None }
        };
        if let Some(action) = action {
            let fx = match &action {
                Action::Key(k) => match app.replay_key(k) {
                    Some(fx) => fx,
                    None => app.update(action),
                },
                _ => app.update(action),
            };
            for e in fx {
                running &= backend.carry_out(&mut app, e);
            }
            backend.save_marks(&mut app);
        }
        // Views opened from now on open at the instant shown.
        backend.cursor = app.replay_instant().filter(|a| *a < end);
        if running && app.take_dirty() {
            draw(&mut tui, &app).map_err(|e| e.to_string())?;
        }
    }
    terminal::restore();
    Ok(())
}
