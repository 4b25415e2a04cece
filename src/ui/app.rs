//! The dashboard's state machine: `App::update(Action) -> Vec<Effect>`.
//!
//! Everything the screen shows is in [`App`]; rendering (`impl Widget for &App`, in
//! [`super::widgets`]) only reads it. `update` does the work: it keeps tables sorted, applies
//! filters (reading the label index under a brief read lock), follows the selection, and asks the
//! runtime for I/O through [`Effect`]s.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind};
use kube::api::DynamicObject;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::action::{
    Action, ConnectionState, Effect, InformerRow, ObjectSummary, ViewId, resource_label,
};
use super::event_log::EventLog;
use super::keys::{KeyAction, KeyMap};
use super::resources::printer_columns_of;
use super::resources::{builtin_resources, complete, resolve};
use super::table::{Drill, LabelFilter, SortBy, TableModel, TextFilter};
use crate::cluster::ResourceInfo;
use crate::informer::index::LABEL_INDEX;
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::render::{Column, columns, to_yaml};

/// How the app was started (from the command line).
#[derive(Debug, Clone)]
pub struct AppConfig {
    pub context: String,
    /// `None`: all namespaces (`-A`).
    pub namespace: Option<String>,
    /// The resource shown first (`pods` unless told).
    pub resource: String,
    /// `-l`: a label selector applied to the first view.
    pub selector: Option<String>,
    pub readonly: bool,
    /// Wall clock at start, unix ms.
    pub now_ms: i64,
    /// The kubeconfig context's namespace: where an all-namespaces view falls back to when
    /// listing across namespaces is forbidden (instead of showing nothing).
    pub context_namespace: Option<String>,
}

impl Default for AppConfig {
    fn default() -> Self {
        AppConfig {
            context: String::new(),
            namespace: Some("default".into()),
            resource: "pods".into(),
            selector: None,
            readonly: false,
            now_ms: 0,
            context_namespace: None,
        }
    }
}

/// One resource table (one informer subscription).
#[derive(Debug, Clone)]
pub struct ResourceView {
    pub id: ViewId,
    pub resource: ResourceInfo,
    pub namespace: Option<String>,
    pub columns: Vec<Column>,
    pub table: TableModel,
    /// The informer failed: message and whether it was a 403.
    pub error: Option<(String, bool)>,
    /// At least one Resync arrived.
    pub synced: bool,
    pub store: Option<Arc<ThreadSafeStore<DynamicObject>>>,
    /// What was drilled into, shown in the title (`deployments/web`).
    pub drilled_from: Option<String>,
    /// Not shown: feeds the owner uids of another view (Deployment → ReplicaSets → pods).
    pub feeds: Option<OwnerFeed>,
    /// Widest cell seen per rendered column (NAMESPACE first in an all-namespaces view), from
    /// the rows that were visible: grows while the view is open, never shrinks, so columns do
    /// not jump as rows scroll in and out.
    pub col_widths: Vec<u16>,
}

/// An auxiliary view whose rows owned by `root` become owner uids of `target`'s drill filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerFeed {
    pub target: ViewId,
    pub root: Arc<str>,
}

/// What a text screen shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextKind {
    Yaml,
    Describe,
}

/// The YAML or describe screen.
#[derive(Debug, Clone)]
pub struct TextView {
    pub kind: TextKind,
    pub title: String,
    pub request: u64,
    /// None while loading.
    pub lines: Option<Result<Vec<String>, String>>,
    pub value: Option<serde_json::Value>,
    pub reveal: bool,
    /// First line shown (a logical line; wrapped lines take several rows).
    pub scroll: usize,
    /// Long lines wrap onto the next rows (on by default, `w` toggles); off: they are cut.
    pub wrap: bool,
}

impl TextView {
    /// The greatest `scroll` that still fills a page of `height` rows `width` wide (like less,
    /// `G` stops at the last full page rather than showing the last line alone).
    pub fn max_scroll(&self, width: usize, height: usize) -> usize {
        let Some(Ok(lines)) = &self.lines else {
            return 0;
        };
        let mut rows = 0;
        for (i, l) in lines.iter().enumerate().rev() {
            rows += if self.wrap { wrapped_rows(l, width) } else { 1 };
            if rows > height {
                return i + 1;
            }
        }
        0
    }

    pub fn is_secret(&self) -> bool {
        self.value
            .as_ref()
            .and_then(|v| v.get("kind"))
            .and_then(|k| k.as_str())
            == Some("Secret")
    }
}

/// One screen of the navigation stack.
#[derive(Debug, Clone)]
pub enum Screen {
    Table(ViewId),
    Events,
    Informers,
    Text(TextView),
}

/// A pending delete awaiting confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmDelete {
    pub resource: ResourceInfo,
    pub namespace: Option<String>,
    pub name: String,
    /// Which button has focus (false: Cancel, the default).
    pub yes: bool,
}

/// The label picker: a selector being typed, with label-index values to choose from.
#[derive(Debug, Clone)]
pub struct LabelPicker {
    pub input: Input,
    /// `(value, objects)` from the label index (`key=value` and `key`), sorted.
    pub all: Vec<(String, usize)>,
    /// Indexes into `all` matching the term being typed.
    pub shown: Vec<usize>,
    pub selected: usize,
    pub error: Option<String>,
}

/// What keys currently go to.
#[derive(Debug, Clone)]
pub enum Mode {
    Normal,
    Command {
        input: Input,
        completions: Vec<String>,
    },
    Filter {
        input: Input,
    },
    Labels(LabelPicker),
    Confirm(ConfirmDelete),
    Help {
        scroll: usize,
    },
}

/// The whole dashboard state.
#[derive(Debug, Clone)]
pub struct App {
    pub keys: KeyMap,
    pub readonly: bool,
    pub now_ms: i64,
    pub size: (u16, u16),
    pub connection: ConnectionState,
    pub resources: Vec<ResourceInfo>,
    pub contexts: Vec<String>,
    /// Current namespace scope (`None`: all namespaces).
    pub namespace: Option<String>,
    pub views: HashMap<ViewId, ResourceView>,
    pub stack: Vec<Screen>,
    pub informers: Vec<InformerRow>,
    pub informer_cursor: usize,
    pub events: EventLog,
    pub show_events_pane: bool,
    pub mode: Mode,
    /// Footer message and whether it is an error.
    pub message: Option<(String, bool)>,
    /// When an info message leaves the footer (errors stay until a key). None with an info
    /// message: the countdown starts at the next tick (the clock is only known from ticks).
    pub message_until_ms: Option<i64>,
    pub should_quit: bool,
    /// The namespaces view (not shown) used to validate and complete `:ns`.
    pub ns_view: Option<ViewId>,
    initial_resource: String,
    initial_selector: Option<String>,
    context_namespace: Option<String>,
    next_view: ViewId,
    next_request: u64,
    dirty: bool,
}

/// Lines above and below the table (header, borders, footer) at the default layout.
const CHROME_ROWS: u16 = 7;

/// How long an info message (e.g. the start-up banner) replaces the footer's key hints.
pub const INFO_MESSAGE_MS: i64 = 5_000;

/// Width and height inside a text (YAML/describe) screen's border at a terminal size: the
/// header (3), footer (1) and border (2) around it.
pub fn text_area(size: (u16, u16)) -> (usize, usize) {
    (
        usize::from(size.0.saturating_sub(2)).max(1),
        usize::from(size.1.saturating_sub(6)).max(1),
    )
}

impl App {
    pub fn new(config: AppConfig, keys: KeyMap) -> App {
        App {
            keys,
            readonly: config.readonly,
            now_ms: config.now_ms,
            size: (80, 24),
            connection: ConnectionState {
                context: config.context,
                reachable: true,
                ..ConnectionState::default()
            },
            resources: builtin_resources(),
            contexts: Vec::new(),
            namespace: config.namespace,
            views: HashMap::new(),
            stack: Vec::new(),
            informers: Vec::new(),
            informer_cursor: 0,
            events: EventLog::default(),
            show_events_pane: false,
            mode: Mode::Normal,
            message: None,
            message_until_ms: None,
            should_quit: false,
            ns_view: None,
            initial_resource: config.resource,
            context_namespace: config.context_namespace,
            initial_selector: config.selector,
            next_view: 1,
            next_request: 1,
            dirty: true,
        }
    }

    /// Open the first view (and the namespaces view behind `:ns`). Call once, before any action.
    pub fn init(&mut self) -> Vec<Effect> {
        let mut fx = Vec::new();
        let name = self.initial_resource.clone();
        match resolve(&self.resources, &name).cloned() {
            Some(r) => {
                let ns = self.scope_for(&r);
                let id = self.open_view(r, ns, &mut fx);
                self.stack.push(Screen::Table(id));
            }
            None => {
                self.error(format!("unknown resource: {name}"));
                if let Some(r) = resolve(&self.resources, "pods").cloned() {
                    let ns = self.scope_for(&r);
                    let id = self.open_view(r, ns, &mut fx);
                    self.stack.push(Screen::Table(id));
                }
            }
        }
        if let Some(sel) = self.initial_selector.take()
            && let Some(id) = self.current_view_id()
        {
            self.apply_label_filter(id, &sel);
        }
        self.open_ns_view(&mut fx);
        fx
    }

    /// True once when the screen needs redrawing; the runtime draws only then.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// When the screen will change by itself (a highlight fades, a deleted row leaves, a countdown
    /// ticks): the runtime sends `Action::Tick` then. Ages only need a slow tick.
    pub fn next_deadline_ms(&self) -> Option<i64> {
        let mut d = self.current_view().and_then(|v| v.table.next_deadline());
        if !self.connection.reachable
            && let Some(at) = self.connection.retry_at_ms
            && at > self.now_ms
        {
            let next_second = self.now_ms + 1000 - self.now_ms.rem_euclid(1000);
            d = Some(d.map_or(next_second, |x| x.min(next_second)));
        }
        if matches!(self.message, Some((_, false)))
            && let Some(until) = self.message_until_ms
        {
            d = Some(d.map_or(until, |x| x.min(until)));
        }
        d
    }

    pub fn current_screen(&self) -> Option<&Screen> {
        self.stack.last()
    }

    pub fn current_view_id(&self) -> Option<ViewId> {
        self.stack.iter().rev().find_map(|s| match s {
            Screen::Table(id) => Some(*id),
            _ => None,
        })
    }

    /// The resource table under the current screen (the last table on the stack).
    pub fn current_view(&self) -> Option<&ResourceView> {
        self.current_view_id().and_then(|id| self.views.get(&id))
    }

    /// The informer row matching a view's resource and scope.
    pub fn informer_for(&self, view: &ResourceView) -> Option<&InformerRow> {
        let label = resource_label(&view.resource);
        // A namespace view of a kind already watched across all namespaces is served by that
        // informer (one watch per kind), so fall back to the all-namespaces row.
        self.informers
            .iter()
            .find(|r| r.resource == label && r.namespace == view.namespace)
            .or_else(|| {
                self.informers
                    .iter()
                    .find(|r| r.resource == label && r.namespace.is_none())
            })
    }

    /// Known namespace names (from the namespaces view).
    pub fn namespace_names(&self) -> Vec<String> {
        self.ns_view
            .and_then(|id| self.views.get(&id))
            .map(|v| v.table.list().iter().map(|k| k.to_string()).collect())
            .unwrap_or_default()
    }

    /// Rows visible in the table area at the current terminal size.
    pub fn table_height(&self) -> usize {
        let mut h = self.size.1.saturating_sub(CHROME_ROWS);
        if self.show_events_pane {
            h = h.saturating_sub(self.size.1 * 2 / 5);
        }
        if matches!(self.mode, Mode::Command { .. } | Mode::Filter { .. }) {
            h = h.saturating_sub(3);
        }
        usize::from(h.max(1))
    }

    fn scope_for(&self, r: &ResourceInfo) -> Option<String> {
        if r.namespaced {
            self.namespace.clone()
        } else {
            None
        }
    }

    fn error(&mut self, msg: impl Into<String>) {
        self.message = Some((msg.into(), true));
        self.message_until_ms = None;
    }

    /// A transient footer message: shown for [`INFO_MESSAGE_MS`], then the key hints return.
    fn info(&mut self, msg: impl Into<String>) {
        self.message = Some((msg.into(), false));
        self.message_until_ms = None;
    }

    /// Start or run out an info message's time on screen.
    fn expire_message(&mut self, now: i64) -> bool {
        if !matches!(self.message, Some((_, false))) {
            return false;
        }
        match self.message_until_ms {
            None => {
                self.message_until_ms = Some(now + INFO_MESSAGE_MS);
                false
            }
            Some(until) if now >= until => {
                self.message = None;
                self.message_until_ms = None;
                true
            }
            Some(_) => false,
        }
    }

    fn open_view(
        &mut self,
        resource: ResourceInfo,
        namespace: Option<String>,
        fx: &mut Vec<Effect>,
    ) -> ViewId {
        let id = self.next_view;
        self.next_view += 1;
        let cols = columns(&resource.api_resource.kind, printer_columns_of(&resource));
        fx.push(Effect::OpenResource {
            view: id,
            resource: resource.clone(),
            namespace: namespace.clone(),
        });
        self.views.insert(
            id,
            ResourceView {
                id,
                resource,
                namespace,
                columns: cols,
                table: TableModel::default(),
                error: None,
                synced: false,
                store: None,
                drilled_from: None,
                feeds: None,
                col_widths: Vec::new(),
            },
        );
        id
    }

    fn open_ns_view(&mut self, fx: &mut Vec<Effect>) {
        if let Some(r) = resolve(&self.resources, "namespaces").cloned() {
            let id = self.open_view(r, None, fx);
            self.ns_view = Some(id);
        }
    }

    fn close_view(&mut self, id: ViewId, fx: &mut Vec<Effect>) {
        if self.views.remove(&id).is_some() {
            fx.push(Effect::CloseView { view: id });
        }
        let feeders: Vec<ViewId> = self
            .views
            .values()
            .filter(|v| v.feeds.as_ref().is_some_and(|f| f.target == id))
            .map(|v| v.id)
            .collect();
        for f in feeders {
            self.views.remove(&f);
            fx.push(Effect::CloseView { view: f });
        }
    }

    fn pop_screen(&mut self, fx: &mut Vec<Effect>) {
        if self.stack.len() <= 1 {
            return;
        }
        if let Some(Screen::Table(id)) = self.stack.pop()
            && !self
                .stack
                .iter()
                .any(|s| matches!(s, Screen::Table(x) if *x == id))
        {
            self.close_view(id, fx);
        }
    }

    /// Replace the whole stack with a new root table.
    fn reset_to(&mut self, resource: ResourceInfo, fx: &mut Vec<Effect>) {
        let old: Vec<ViewId> = self
            .views
            .keys()
            .copied()
            .filter(|id| Some(*id) != self.ns_view)
            .collect();
        for id in old {
            self.close_view(id, fx);
        }
        self.stack.clear();
        let ns = self.scope_for(&resource);
        let id = self.open_view(resource, ns, fx);
        self.stack.push(Screen::Table(id));
    }

    /// Apply one action; returns what the runtime must do.
    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        let mut fx = Vec::new();
        match action {
            Action::Key(key) => {
                if key.kind != KeyEventKind::Release {
                    self.dirty = true;
                    self.on_key(key, &mut fx);
                }
            }
            Action::Mouse(m) => match m.kind {
                MouseEventKind::ScrollDown => {
                    self.dirty = true;
                    self.nav(KeyAction::Down, 3);
                }
                MouseEventKind::ScrollUp => {
                    self.dirty = true;
                    self.nav(KeyAction::Up, 3);
                }
                MouseEventKind::Down(crossterm::event::MouseButton::Left) => {
                    // Table rows start below the header (3 lines), the border and the column
                    // header.
                    if matches!(self.mode, Mode::Normal)
                        && let Some(Screen::Table(id)) = self.current_screen().cloned()
                        && let Some(v) = self.views.get_mut(&id)
                        && m.row >= 5
                    {
                        let i = v.table.offset + usize::from(m.row - 5);
                        if i < v.table.list().len() {
                            v.table.select_index(i);
                            self.dirty = true;
                        }
                    }
                }
                _ => {}
            },
            Action::Resize(w, h) => {
                self.size = (w, h);
                self.dirty = true;
                self.scroll_current();
            }
            Action::Tick(now) => {
                let second_changed = now / 1000 != self.now_ms / 1000;
                self.now_ms = now;
                let mut changed = second_changed | self.expire_message(now);
                for v in self.views.values_mut() {
                    changed |= v.table.expire(now);
                }
                if changed {
                    self.dirty = true;
                    self.scroll_current();
                }
            }
            Action::Rows {
                view,
                upserts,
                deletes,
            } => {
                let now = self.now_ms;
                let Some(v) = self.views.get_mut(&view) else {
                    return fx;
                };
                // The initial list is not news: highlight only once the view is synced.
                let highlight = v.synced;
                if v.table.apply(upserts, deletes, now, highlight) {
                    self.after_rows(view);
                }
            }
            Action::Resync { view, rows } => {
                let now = self.now_ms;
                let Some(v) = self.views.get_mut(&view) else {
                    return fx;
                };
                v.synced = true;
                v.error = None;
                v.table.resync(rows, now);
                self.dirty = true;
                self.after_rows(view);
            }
            Action::Store { view, store } => {
                if let Some(v) = self.views.get_mut(&view) {
                    v.store = Some(store);
                    // A selector given before the index was attached (`-l` at start) is now
                    // answered by the index.
                    if v.table.filters.label.is_some() {
                        let cands = Self::label_candidates(v);
                        v.table.refilter(cands);
                        self.dirty = true;
                    }
                }
            }
            Action::ViewError {
                view,
                message,
                forbidden,
            } => {
                if let Some(v) = self.views.get_mut(&view) {
                    v.error = Some((message, forbidden));
                    self.dirty = true;
                }
            }
            Action::InformerStats(rows) => {
                if rows != self.informers {
                    self.informers = rows;
                    let synced: Vec<ViewId> = self
                        .views
                        .values()
                        .filter(|v| !v.synced && self.informer_for(v).is_some_and(|r| r.synced))
                        .map(|v| v.id)
                        .collect();
                    for id in synced {
                        if let Some(v) = self.views.get_mut(&id) {
                            v.synced = true;
                        }
                    }
                    self.fall_back_from_forbidden_all_namespaces(&mut fx);
                    self.informer_cursor = self
                        .informer_cursor
                        .min(self.informers.len().saturating_sub(1));
                    self.dirty = true;
                }
            }
            Action::Tap(entries) => {
                if self.events.push(entries)
                    && (self.show_events_pane
                        || matches!(self.current_screen(), Some(Screen::Events)))
                {
                    self.dirty = true;
                }
            }
            Action::Yaml { request, result } => self.on_text(request, result.map(TextResult::Yaml)),
            Action::Describe { request, result } => {
                self.on_text(request, result.map(TextResult::Describe))
            }
            Action::Connection(c) => {
                if c != self.connection {
                    self.connection = c;
                    self.dirty = true;
                }
            }
            Action::Discovery(resources) => {
                if !resources.is_empty() {
                    self.resources = resources;
                    for v in self.views.values_mut() {
                        if let Some(fresh) = self.resources.iter().find(|r| {
                            r.api_resource.group == v.resource.api_resource.group
                                && r.api_resource.plural == v.resource.api_resource.plural
                        }) && printer_columns_of(fresh) != printer_columns_of(&v.resource)
                        {
                            v.columns =
                                columns(&fresh.api_resource.kind, printer_columns_of(fresh));
                        }
                    }
                    self.dirty = true;
                }
            }
            Action::Contexts(c) => self.contexts = c,
            Action::Notify { message, error } => {
                if error {
                    self.error(message);
                } else {
                    self.info(message);
                }
                self.dirty = true;
            }
        }
        if self.dirty {
            self.remember_col_widths();
        }
        fx
    }

    /// Grow the current table's remembered column widths to fit its visible rows (O(visible
    /// rows), never a scan of the whole table).
    fn remember_col_widths(&mut self) {
        let h = self.table_height();
        let now_unix = self.now_ms.div_euclid(1000);
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let all_ns = v.namespace.is_none() && v.resource.namespaced;
        let skip = usize::from(all_ns);
        let ncols = v.columns.len() + skip;
        if v.col_widths.len() != ncols {
            v.col_widths = vec![0; ncols];
        }
        let list = v.table.list();
        let n = list.len();
        let start = v.table.offset.min(n);
        for key in &list[start..(start + h).min(n)] {
            let Some(e) = v.table.entry(key) else {
                continue;
            };
            if all_ns && let Some(w) = v.col_widths.first_mut() {
                let len = e.summary.namespace.as_deref().map_or(0, str::len);
                *w = (*w).max(len.min(60) as u16);
            }
            for (w, c) in v.col_widths.iter_mut().skip(skip).zip(&e.summary.row.cells) {
                *w = (*w).max(c.display(now_unix).chars().count().min(60) as u16);
            }
        }
    }

    /// An all-namespaces view that may not list across namespaces switches to the context's
    /// namespace (once), rather than showing nothing.
    fn fall_back_from_forbidden_all_namespaces(&mut self, fx: &mut Vec<Effect>) {
        let Some(Screen::Table(id)) = self.current_screen() else {
            return;
        };
        let Some(v) = self.views.get(id) else { return };
        if v.namespace.is_some() || !v.resource.namespaced || v.drilled_from.is_some() {
            return;
        }
        if !self.informer_for(v).is_some_and(|r| r.forbidden) {
            return;
        }
        let Some(ns) = self.context_namespace.take() else {
            return;
        };
        let resource = v.resource.clone();
        let plural = resource.api_resource.plural.clone();
        self.namespace = Some(ns.clone());
        self.reset_to(resource, fx);
        self.error(format!(
            "no permission to list {plural} in all namespaces: showing namespace {ns}"
        ));
        self.dirty = true;
    }

    fn after_rows(&mut self, view: ViewId) {
        self.dirty = true;
        let feed = self.views.get(&view).and_then(|v| v.feeds.clone());
        if let Some(feed) = feed {
            self.refresh_owner_feed(view, &feed);
        }
        self.scroll_current();
    }

    /// Recompute the owner uids a feeder view provides (e.g. a Deployment's ReplicaSets) and
    /// refilter the target when they changed.
    fn refresh_owner_feed(&mut self, feeder: ViewId, feed: &OwnerFeed) {
        let Some(src) = self.views.get(&feeder) else {
            return;
        };
        let mut uids: HashSet<Arc<str>> = src
            .table
            .entries()
            .filter(|e| e.mark != super::table::Mark::Deleted)
            .filter(|e| e.summary.owner_uids().any(|u| u == &*feed.root))
            .map(|e| Arc::from(e.summary.uid()))
            .collect();
        uids.insert(feed.root.clone());
        let Some(target) = self.views.get_mut(&feed.target) else {
            return;
        };
        let new = Some(Drill::Owners(uids));
        if target.table.filters.drill != new {
            target.table.filters.drill = new;
            target.table.refilter(None);
        }
    }

    fn scroll_current(&mut self) {
        let h = self.table_height();
        if let Some(id) = self.current_view_id()
            && let Some(v) = self.views.get_mut(&id)
        {
            v.table.scroll_into_view(h);
        }
    }

    fn on_text(&mut self, request: u64, result: Result<TextResult, String>) {
        for s in self.stack.iter_mut() {
            if let Screen::Text(t) = s
                && t.request == request
            {
                match result {
                    Ok(TextResult::Yaml(v)) => {
                        t.lines = Some(Ok(to_yaml(&v, t.reveal)
                            .lines()
                            .map(str::to_string)
                            .collect()));
                        t.value = Some(v);
                    }
                    Ok(TextResult::Describe(text)) => {
                        t.lines = Some(Ok(text.lines().map(str::to_string).collect()));
                    }
                    Err(e) => t.lines = Some(Err(e)),
                }
                self.dirty = true;
                return;
            }
        }
    }

    // ------------------------------------------------------------------ keys

    fn on_key(&mut self, key: KeyEvent, fx: &mut Vec<Effect>) {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.should_quit = true;
            fx.push(Effect::Quit);
            return;
        }
        let mode = std::mem::replace(&mut self.mode, Mode::Normal);
        self.mode = match mode {
            Mode::Normal => {
                self.on_normal_key(key, fx);
                return;
            }
            Mode::Command { input, completions } => {
                self.on_command_key(key, input, completions, fx)
            }
            Mode::Filter { input } => self.on_filter_key(key, input),
            Mode::Labels(p) => self.on_picker_key(key, p),
            Mode::Confirm(c) => self.on_confirm_key(key, c, fx),
            Mode::Help { scroll } => match self.keys.action(&key) {
                Some(KeyAction::Down) => Mode::Help { scroll: scroll + 1 },
                Some(KeyAction::Up) => Mode::Help {
                    scroll: scroll.saturating_sub(1),
                },
                Some(KeyAction::PageDown) => Mode::Help {
                    scroll: scroll + 10,
                },
                Some(KeyAction::PageUp) => Mode::Help {
                    scroll: scroll.saturating_sub(10),
                },
                _ => Mode::Normal,
            },
        };
    }

    fn on_normal_key(&mut self, key: KeyEvent, fx: &mut Vec<Effect>) {
        let Some(action) = self.keys.action(&key) else {
            return;
        };
        if action != KeyAction::Back {
            // Any other key acknowledges the footer message.
            self.message = None;
        }
        let page = self.table_height().saturating_sub(1).max(1);
        match action {
            KeyAction::Quit => {
                if self.stack.len() > 1 {
                    self.pop_screen(fx);
                } else {
                    self.should_quit = true;
                    fx.push(Effect::Quit);
                }
            }
            KeyAction::Help => self.mode = Mode::Help { scroll: 0 },
            KeyAction::Command => {
                self.mode = Mode::Command {
                    input: Input::default(),
                    completions: Vec::new(),
                }
            }
            KeyAction::Filter => {
                if let Some(v) = self.current_view() {
                    let raw = v.table.filters.text_raw.clone();
                    self.mode = Mode::Filter {
                        input: Input::new(raw),
                    };
                }
            }
            KeyAction::LabelFilter => self.open_picker(),
            KeyAction::Back => self.back(fx),
            KeyAction::Up => self.nav(action, 1),
            KeyAction::Down => self.nav(action, 1),
            KeyAction::PageUp | KeyAction::PageDown => self.nav(action, page),
            KeyAction::Top | KeyAction::Bottom => self.nav(action, 0),
            KeyAction::Enter => self.enter(fx),
            KeyAction::Yaml => self.fetch_text(TextKind::Yaml, fx),
            KeyAction::Describe => self.fetch_text(TextKind::Describe, fx),
            KeyAction::Delete => self.ask_delete(),
            KeyAction::RevealSecrets => self.toggle_reveal(),
            KeyAction::ToggleWrap => {
                let (w, h) = text_area(self.size);
                if let Some(Screen::Text(t)) = self.stack.last_mut() {
                    t.wrap = !t.wrap;
                    t.scroll = t.scroll.min(t.max_scroll(w, h));
                }
            }
            KeyAction::ToggleEvents => {
                self.show_events_pane = !self.show_events_pane;
                self.scroll_current();
            }
            KeyAction::SortName => {
                // Outside -A the key order is the name order.
                let all_ns = self
                    .current_view()
                    .is_some_and(|v| v.namespace.is_none() && v.resource.namespaced);
                let by = if all_ns { SortBy::Cell(0) } else { SortBy::Key };
                self.sort_table(move |_, _| by, true)
            }
            KeyAction::SortAge => self.sort_table(
                |cols, _| {
                    cols.iter()
                        .position(|c| c.name == "AGE")
                        .map_or(SortBy::Key, SortBy::Cell)
                },
                true,
            ),
            KeyAction::SortNext | KeyAction::SortPrev => {
                let fwd = action == KeyAction::SortNext;
                let all_ns = self
                    .current_view()
                    .is_some_and(|v| v.namespace.is_none() && v.resource.namespaced);
                self.sort_table(
                    move |cols, cur| {
                        // Positions: Key (NAMESPACE in -A, else NAME) then cells (skipping NAME
                        // when Key already stands for it).
                        let mut seq: Vec<SortBy> = vec![SortBy::Key];
                        let first = if all_ns { 0 } else { 1 };
                        seq.extend((first..cols.len()).map(SortBy::Cell));
                        let i = seq.iter().position(|s| *s == cur).unwrap_or(0);
                        let n = seq.len();
                        seq[if fwd { (i + 1) % n } else { (i + n - 1) % n }]
                    },
                    false,
                )
            }
            KeyAction::SortFlip => {
                if let Some(id) = self.current_view_id()
                    && let Some(v) = self.views.get_mut(&id)
                {
                    v.table.flip_sort();
                }
                self.scroll_current();
            }
            KeyAction::Pause => {
                if self.events_visible() {
                    self.events.toggle_pause();
                }
            }
            KeyAction::EventType => {
                if self.events_visible() {
                    self.events.cycle_type();
                }
            }
            KeyAction::EventKind => {
                if self.events_visible() {
                    self.events.cycle_kind();
                }
            }
        }
    }

    fn events_visible(&self) -> bool {
        self.show_events_pane || matches!(self.current_screen(), Some(Screen::Events))
    }

    fn sort_table(&mut self, pick: impl Fn(&[Column], SortBy) -> SortBy, same_flips: bool) {
        let Some(id) = self.current_view_id() else {
            return;
        };
        let Some(v) = self.views.get_mut(&id) else {
            return;
        };
        let (cur, _) = v.table.sort();
        let by = pick(&v.columns, cur);
        if by == cur && !same_flips {
            return;
        }
        v.table.set_sort(by);
        self.scroll_current();
    }

    fn back(&mut self, fx: &mut Vec<Effect>) {
        // Esc first clears the current table's text/label filter, then goes back.
        if let Some(Screen::Table(id)) = self.current_screen().cloned()
            && let Some(v) = self.views.get_mut(&id)
            && (v.table.filters.text.is_some() || v.table.filters.label.is_some())
        {
            v.table.filters.text = None;
            v.table.filters.text_raw.clear();
            v.table.filters.label = None;
            v.table.refilter(None);
            self.scroll_current();
            return;
        }
        self.message = None;
        self.pop_screen(fx);
        self.scroll_current();
    }

    fn nav(&mut self, action: KeyAction, n: usize) {
        let n = n as isize;
        match self.stack.last_mut() {
            Some(Screen::Text(t)) => {
                let (w, h) = text_area(self.size);
                let max = t.max_scroll(w, h);
                t.scroll = match action {
                    KeyAction::Up | KeyAction::PageUp => t.scroll.saturating_sub(n as usize),
                    KeyAction::Down | KeyAction::PageDown => (t.scroll + n as usize).min(max),
                    KeyAction::Top => 0,
                    _ => max,
                };
            }
            Some(Screen::Events) => {
                let len = self.events.shown().count();
                self.events.scroll = match action {
                    KeyAction::Up | KeyAction::PageUp => {
                        self.events.scroll.saturating_sub(n as usize)
                    }
                    KeyAction::Down | KeyAction::PageDown => {
                        (self.events.scroll + n as usize).min(len.saturating_sub(1))
                    }
                    KeyAction::Top => 0,
                    _ => len.saturating_sub(1),
                };
            }
            Some(Screen::Informers) => {
                let len = self.informers.len();
                let c = self.informer_cursor as isize;
                self.informer_cursor = match action {
                    KeyAction::Up | KeyAction::PageUp => (c - n).max(0) as usize,
                    KeyAction::Down | KeyAction::PageDown => {
                        ((c + n) as usize).min(len.saturating_sub(1))
                    }
                    KeyAction::Top => 0,
                    _ => len.saturating_sub(1),
                };
            }
            Some(Screen::Table(id)) => {
                let id = *id;
                if let Some(v) = self.views.get_mut(&id) {
                    match action {
                        KeyAction::Up | KeyAction::PageUp => v.table.move_by(-n),
                        KeyAction::Down | KeyAction::PageDown => v.table.move_by(n),
                        KeyAction::Top => v.table.select_index(0),
                        _ => v.table.select_index(usize::MAX),
                    }
                }
                self.scroll_current();
            }
            None => {}
        }
    }

    fn selected_object(&self) -> Option<(&ResourceView, &ObjectSummary)> {
        let Some(Screen::Table(id)) = self.current_screen() else {
            return None;
        };
        let v = self.views.get(id)?;
        let e = v.table.selected()?;
        Some((v, &e.summary))
    }

    fn enter(&mut self, fx: &mut Vec<Effect>) {
        if let Some(Screen::Informers) = self.current_screen() {
            // Enter on an informer opens its resource in its scope.
            let Some(row) = self.informers.get(self.informer_cursor) else {
                return;
            };
            let ns = row.namespace.clone();
            let Some(r) = self
                .resources
                .iter()
                .find(|r| resource_label(r) == row.resource)
                .cloned()
            else {
                return;
            };
            let id = self.open_view(r, ns, fx);
            self.stack.push(Screen::Table(id));
            self.scroll_current();
            return;
        }
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let kind = view.resource.api_resource.kind.clone();
        let ns = obj.namespace.as_deref().map(str::to_string);
        let name = obj.name.to_string();
        let uid: Arc<str> = Arc::from(obj.uid());
        let Some(pods) = resolve(&self.resources, "pods").cloned() else {
            return;
        };
        let (scope, drill, feeder) = match kind.as_str() {
            "ReplicaSet" | "StatefulSet" | "DaemonSet" | "Job" => (
                ns.clone(),
                Some(Drill::Owners([uid.clone()].into_iter().collect())),
                None,
            ),
            "Deployment" => (
                ns.clone(),
                Some(Drill::Owners([uid.clone()].into_iter().collect())),
                resolve(&self.resources, "replicasets").cloned(),
            ),
            "Node" => (None, Some(Drill::Node(Arc::from(name.as_str()))), None),
            "Namespace" => (Some(name.clone()), None, None),
            _ => {
                // Other kinds: Enter shows the YAML, as k9s's default "view" action.
                self.fetch_text(TextKind::Yaml, fx);
                return;
            }
        };
        let plural = view.resource.api_resource.plural.clone();
        let id = self.open_view(pods, scope.clone(), fx);
        if let Some(v) = self.views.get_mut(&id) {
            v.drilled_from = Some(format!("{plural}/{name}"));
            v.table.filters.drill = drill;
            v.table.refilter(None);
        }
        if let Some(rs) = feeder {
            let fid = self.open_view(rs, scope, fx);
            if let Some(f) = self.views.get_mut(&fid) {
                f.feeds = Some(OwnerFeed {
                    target: id,
                    root: uid,
                });
            }
        }
        self.stack.push(Screen::Table(id));
        self.scroll_current();
    }

    fn fetch_text(&mut self, kind: TextKind, fx: &mut Vec<Effect>) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let resource = view.resource.clone();
        let namespace = obj.namespace.as_deref().map(str::to_string);
        let name = obj.name.to_string();
        let title = format!(
            "{}: {}",
            if kind == TextKind::Yaml {
                "YAML"
            } else {
                "Describe"
            },
            obj.key
        );
        let request = self.next_request;
        self.next_request += 1;
        fx.push(match kind {
            TextKind::Yaml => Effect::FetchYaml {
                request,
                resource,
                namespace,
                name,
            },
            TextKind::Describe => Effect::FetchDescribe {
                request,
                resource,
                namespace,
                name,
            },
        });
        self.stack.push(Screen::Text(TextView {
            kind,
            title,
            request,
            lines: None,
            value: None,
            reveal: false,
            scroll: 0,
            wrap: true,
        }));
    }

    fn toggle_reveal(&mut self) {
        if let Some(Screen::Text(t)) = self.stack.last_mut()
            && t.is_secret()
        {
            t.reveal = !t.reveal;
            if let Some(v) = &t.value {
                t.lines = Some(Ok(to_yaml(v, t.reveal)
                    .lines()
                    .map(str::to_string)
                    .collect()));
            }
        }
    }

    fn ask_delete(&mut self) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        if self.readonly {
            self.error("read-only mode: delete is disabled (started with --readonly)");
            return;
        }
        let c = ConfirmDelete {
            resource: view.resource.clone(),
            namespace: obj.namespace.as_deref().map(str::to_string),
            name: obj.name.to_string(),
            yes: false,
        };
        self.mode = Mode::Confirm(c);
    }

    fn on_confirm_key(
        &mut self,
        key: KeyEvent,
        mut c: ConfirmDelete,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => {
                c.yes = !c.yes;
                Mode::Confirm(c)
            }
            KeyCode::Char('y') | KeyCode::Char('Y') => self.confirm_delete(c, fx),
            KeyCode::Enter if c.yes => self.confirm_delete(c, fx),
            _ => {
                self.info("delete cancelled");
                Mode::Normal
            }
        }
    }

    fn confirm_delete(&mut self, c: ConfirmDelete, fx: &mut Vec<Effect>) -> Mode {
        if self.readonly {
            self.error("read-only mode: delete is disabled (started with --readonly)");
            return Mode::Normal;
        }
        self.info(format!(
            "deleting {}/{}",
            c.resource.api_resource.plural, c.name
        ));
        fx.push(Effect::Delete {
            resource: c.resource,
            namespace: c.namespace,
            name: c.name,
        });
        Mode::Normal
    }

    // ------------------------------------------------------------------ command line

    fn on_command_key(
        &mut self,
        key: KeyEvent,
        mut input: Input,
        mut completions: Vec<String>,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        match key.code {
            KeyCode::Esc => Mode::Normal,
            // Backspace on an empty line leaves the command line, as in k9s.
            KeyCode::Backspace if input.value().is_empty() => Mode::Normal,
            KeyCode::Enter => {
                let line = input.value().trim().to_string();
                self.run_command(&line, fx);
                Mode::Normal
            }
            KeyCode::Tab => {
                if let Some(c) = completions.first() {
                    input = Input::new(c.clone());
                    completions = self.completions(input.value());
                }
                Mode::Command { input, completions }
            }
            _ => {
                input.handle_event(&Event::Key(key));
                completions = self.completions(input.value());
                Mode::Command { input, completions }
            }
        }
    }

    fn completions(&self, text: &str) -> Vec<String> {
        let mut c = complete(
            &self.resources,
            &self.namespace_names(),
            &self.contexts,
            text,
        );
        c.retain(|s| s != text);
        c
    }

    /// Run a `:` command line.
    pub fn run_command(&mut self, line: &str, fx: &mut Vec<Effect>) {
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else { return };
        let arg = words.next();
        match cmd {
            "q" | "q!" | "quit" => {
                self.should_quit = true;
                fx.push(Effect::Quit);
            }
            "help" | "?" => self.mode = Mode::Help { scroll: 0 },
            "informers" | "inf" => {
                if !matches!(self.current_screen(), Some(Screen::Informers)) {
                    self.stack.push(Screen::Informers);
                }
            }
            "events" if arg.is_none() => {
                if !matches!(self.current_screen(), Some(Screen::Events)) {
                    self.stack.push(Screen::Events);
                }
            }
            "ns" | "namespace" => self.switch_namespace(arg, fx),
            "ctx" | "context" => match arg {
                None => self.info(format!(
                    "context: {} (known: {})",
                    self.connection.context,
                    self.contexts.join(", ")
                )),
                Some(name)
                    if !self.contexts.is_empty() && !self.contexts.iter().any(|c| c == name) =>
                {
                    self.error(format!("unknown context: {name}"))
                }
                Some(name) => {
                    fx.push(Effect::SwitchContext(name.to_string()));
                    self.connection.context = name.to_string();
                    self.connection.server_version = None;
                    let current = self.current_view().map(|v| v.resource.clone());
                    if let Some(ns) = self.ns_view.take() {
                        self.close_view(ns, fx);
                    }
                    self.informers.clear();
                    if let Some(r) = current {
                        self.reset_to(r, fx);
                    }
                    self.open_ns_view(fx);
                    self.info(format!("switched to context {name}"));
                }
            },
            name => match resolve(&self.resources, name).cloned() {
                Some(r) => {
                    if let Some(ns) = arg {
                        if !self.valid_namespace(ns) {
                            return;
                        }
                        self.namespace = Some(ns.to_string());
                    }
                    self.reset_to(r, fx);
                }
                None => self.error(format!("unknown resource or command: {name}")),
            },
        }
    }

    fn valid_namespace(&mut self, ns: &str) -> bool {
        let known = self.namespace_names();
        let ns_view_ok = self
            .ns_view
            .and_then(|id| self.views.get(&id))
            .is_some_and(|v| v.synced && v.error.is_none());
        // Without permission to list namespaces, trust the user (k9s users hit this often).
        if ns_view_ok && !known.iter().any(|k| k == ns) {
            self.error(format!("unknown namespace: {ns}"));
            return false;
        }
        true
    }

    fn switch_namespace(&mut self, arg: Option<&str>, fx: &mut Vec<Effect>) {
        let ns = match arg {
            None | Some("-A") => None,
            Some("all") if !self.namespace_names().iter().any(|n| n == "all") => None,
            Some(ns) => {
                if !self.valid_namespace(ns) {
                    return;
                }
                Some(ns.to_string())
            }
        };
        self.namespace = ns.clone();
        let current = self
            .current_view()
            .map(|v| v.resource.clone())
            .or_else(|| resolve(&self.resources, "pods").cloned());
        if let Some(r) = current {
            self.reset_to(r, fx);
        }
        self.info(match ns {
            Some(n) => format!("namespace: {n}"),
            None => "all namespaces".to_string(),
        });
    }

    // ------------------------------------------------------------------ filters

    fn on_filter_key(&mut self, key: KeyEvent, mut input: Input) -> Mode {
        match key.code {
            KeyCode::Esc => {
                if let Some(id) = self.current_view_id() {
                    self.set_text_filter(id, "");
                }
                Mode::Normal
            }
            KeyCode::Enter => {
                let text = input.value().trim().to_string();
                if let Some(sel) = text.strip_prefix("-l") {
                    if let Some(id) = self.current_view_id() {
                        self.set_text_filter(id, "");
                        self.apply_label_filter(id, sel.trim());
                    }
                } else if let Some(id) = self.current_view_id() {
                    self.set_text_filter(id, &text);
                }
                Mode::Normal
            }
            _ => {
                input.handle_event(&Event::Key(key));
                let text = input.value().to_string();
                // Live substring/regex filtering while typing; `-l` waits for Enter.
                if !text.starts_with("-l")
                    && let Some(id) = self.current_view_id()
                {
                    self.set_text_filter(id, &text);
                }
                Mode::Filter { input }
            }
        }
    }

    fn set_text_filter(&mut self, id: ViewId, text: &str) {
        let parsed = if text.is_empty() {
            Ok(None)
        } else {
            TextFilter::parse(text).map(Some)
        };
        match parsed {
            Ok(f) => {
                if self
                    .message
                    .as_ref()
                    .is_some_and(|(m, e)| *e && m.starts_with("invalid regex"))
                {
                    self.message = None;
                }
                if let Some(v) = self.views.get_mut(&id) {
                    v.table.filters.text = f;
                    v.table.filters.text_raw = text.to_string();
                    let cands = Self::label_candidates(v);
                    v.table.refilter(cands);
                }
                self.scroll_current();
            }
            Err(e) => self.error(e),
        }
    }

    /// Candidates from the label index for the view's label filter (None: scan all rows).
    fn label_candidates(v: &mut ResourceView) -> Option<Vec<Arc<str>>> {
        let lf = v.table.filters.label.as_mut()?;
        let from_index = match v.store.as_ref() {
            Some(s) if !lf.index_terms.is_empty() => {
                let terms: Vec<&str> = lf.index_terms.iter().map(String::as_str).collect();
                s.index_keys_all(LABEL_INDEX, &terms).ok()
            }
            _ => None,
        };
        lf.from_index = from_index.is_some();
        // The store's keys are `namespace/name`, as the table's (a key the table has not
        // received yet is skipped by `refilter`).
        from_index
    }

    /// Parse and apply a label selector to a view (empty: clear). Invalid → inline error.
    pub fn apply_label_filter(&mut self, id: ViewId, text: &str) -> bool {
        let parsed = if text.trim().is_empty() {
            Ok(None)
        } else {
            LabelFilter::parse(text.trim()).map(Some)
        };
        match parsed {
            Ok(f) => {
                if let Some(v) = self.views.get_mut(&id) {
                    v.table.filters.label = f;
                    let cands = Self::label_candidates(v);
                    v.table.refilter(cands);
                }
                self.scroll_current();
                true
            }
            Err(e) => {
                self.error(format!("invalid label selector {text:?}: {e}"));
                false
            }
        }
    }

    fn open_picker(&mut self) {
        let Some(v) = self.current_view() else { return };
        let mut all: Vec<(String, usize)> = match &v.store {
            Some(s) => s
                .list_index_func_values(LABEL_INDEX)
                .into_iter()
                .map(|val| {
                    let n = s.index_cardinality(LABEL_INDEX, &val);
                    (val, n)
                })
                .collect(),
            None => {
                // No index attached (yet): offer what the rows carry.
                let mut counts: HashMap<String, usize> = HashMap::new();
                for e in v.table.entries() {
                    for (k, val) in e.summary.labels() {
                        *counts.entry(format!("{k}={val}")).or_default() += 1;
                        *counts.entry(k.clone()).or_default() += 1;
                    }
                }
                counts.into_iter().collect()
            }
        };
        all.sort();
        let text = v
            .table
            .filters
            .label
            .as_ref()
            .map(|l| l.text.clone())
            .unwrap_or_default();
        let mut p = LabelPicker {
            input: Input::new(text),
            shown: Vec::new(),
            all,
            selected: 0,
            error: None,
        };
        refresh_picker(&mut p);
        self.mode = Mode::Labels(p);
    }

    fn on_picker_key(&mut self, key: KeyEvent, mut p: LabelPicker) -> Mode {
        match key.code {
            KeyCode::Esc => Mode::Normal,
            KeyCode::Up => {
                p.selected = p.selected.saturating_sub(1);
                Mode::Labels(p)
            }
            KeyCode::Down => {
                p.selected = (p.selected + 1).min(p.shown.len().saturating_sub(1));
                Mode::Labels(p)
            }
            KeyCode::Tab => {
                complete_picker(&mut p);
                Mode::Labels(p)
            }
            KeyCode::Enter => {
                // Enter takes the highlighted value (as Tab would) whenever one is shown; only a
                // typed term that matches no indexed value (a complete selector with an operator,
                // e.g. `env!=prod` or `tier in (a,b)`), or one inside an unclosed `(...)` set, is
                // applied as typed.
                let v = p.input.value();
                let in_set = v.matches('(').count() > v.matches(')').count();
                if !p.shown.is_empty() && !in_set {
                    complete_picker(&mut p);
                }
                let text = p.input.value().trim().trim_end_matches(',').to_string();
                let Some(id) = self.current_view_id() else {
                    return Mode::Normal;
                };
                if self.apply_label_filter(id, &text) {
                    let msg = self.views.get(&id).and_then(|v| {
                        let lf = v.table.filters.label.as_ref()?;
                        let n = v.table.list().len();
                        Some(format!(
                            "-l {}: {n} {} ({})",
                            lf.text,
                            if n == 1 { "match" } else { "matches" },
                            if lf.from_index { "label index" } else { "scan" }
                        ))
                    });
                    if let Some(m) = msg {
                        self.info(m);
                    }
                    Mode::Normal
                } else {
                    // Keep the picker open with the error inline.
                    p.error = self.message.take().map(|(m, _)| m);
                    Mode::Labels(p)
                }
            }
            _ => {
                let before = p.input.value().to_string();
                p.input.handle_event(&Event::Key(key));
                p.error = None;
                if p.input.value() != before {
                    // The list is re-ranked for the new term: highlight its best match.
                    p.selected = 0;
                }
                refresh_picker(&mut p);
                Mode::Labels(p)
            }
        }
    }
}

enum TextResult {
    Yaml(serde_json::Value),
    Describe(String),
}

/// Rows a line takes when hard-wrapped at `width` characters (at least one).
pub fn wrapped_rows(line: &str, width: usize) -> usize {
    line.chars().count().div_ceil(width.max(1)).max(1)
}

/// The comma-separated term being typed (the last one).
fn current_term(text: &str) -> &str {
    text.rsplit(',').next().unwrap_or("").trim()
}

fn refresh_picker(p: &mut LabelPicker) {
    let term = current_term(p.input.value()).to_string();
    p.shown = p
        .all
        .iter()
        .enumerate()
        .filter(|(_, (v, _))| term.is_empty() || v.contains(term.as_str()))
        .map(|(i, _)| i)
        .collect();
    // Best match first: the exact value, then values starting with the term, then the rest.
    let all = &p.all;
    p.shown.sort_by_key(|i| {
        let v = all.get(*i).map(|(v, _)| v.as_str()).unwrap_or("");
        (v != term, !v.starts_with(term.as_str()))
    });
    p.selected = p.selected.min(p.shown.len().saturating_sub(1));
}

/// Replace the term being typed with the highlighted picker value.
fn complete_picker(p: &mut LabelPicker) {
    let Some((val, _)) = p.shown.get(p.selected).and_then(|i| p.all.get(*i)) else {
        return;
    };
    let text = p.input.value();
    let prefix = match text.rfind(',') {
        Some(i) => format!("{},", &text[..i]),
        None => String::new(),
    };
    p.input = Input::new(format!("{prefix}{val}"));
    refresh_picker(p);
}
