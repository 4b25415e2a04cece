//! The dashboard's state machine: `App::update(Action) -> Vec<Effect>`.
//!
//! Everything the screen shows is in [`App`]; rendering (`impl Widget for &App`, in
//! [`super::widgets`]) only reads it. `update` does the work: it keeps tables sorted, applies
//! filters (reading the label index under a brief read lock), follows the selection, and asks the
//! runtime for I/O through [`Effect`]s.

use std::collections::HashMap;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::action::{Action, ConnectionState, Effect, InformerRow, ViewId, resource_label};
use super::component::Component;
use super::event_log::EventLog;
use super::keys::{KeyAction, KeyMap};
use super::log_view::LogKeyMap;
use super::metrics::MetricsScope;
use super::resources::printer_columns_of;
use super::resources::{builtin_resources, resolve};
use super::table::{Drill, TableModel};
use crate::cluster::ResourceInfo;
use crate::config::{Problem, UserConfig};
use crate::render::columns;

pub use super::screens::Screen;
pub use super::screens::confirm::{ConfirmWrite, Pending};
pub use super::screens::container_picker::ContainerPicker;
pub use super::screens::drain::{DrainProgress, DrainState};
pub use super::screens::forward_dialog::ForwardDialog;
pub use super::screens::labels::LabelPicker;
pub use super::screens::portforwards::ForwardsView;
use super::screens::prompt::Prompt;
use super::screens::pulse::PulseScreen;
pub use super::screens::scale::ScaleDialog;
pub use super::screens::table::{DrillAnswer, DrillVia, OwnerFeed, ResourceView};
pub use super::screens::text::{TextKind, TextView, text_area, wrapped_rows};
use super::screens::{self, text::TextResult};
use super::usage::UsageMap;

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
    /// Bytes of log lines a log view keeps (`--log-buffer-mib`).
    pub log_cap_bytes: usize,
    /// Wall clock at start, unix ms.
    pub now_ms: i64,
    /// The kubeconfig context's namespace: where an all-namespaces view falls back to when
    /// listing across namespaces is forbidden (instead of showing nothing).
    pub context_namespace: Option<String>,
    /// The selected clusters (`--context a,b`, `--all-contexts`), `context` among them; empty:
    /// just `context` (see [`super::fleet`]).
    pub fleet: Vec<String>,
    /// `--readonly-contexts`: names and globs of contexts where writes are refused.
    pub readonly_contexts: Option<String>,
    /// k9s's `readOnly` settings and `--write` (see [`super::fleet::K9sReadOnly`]).
    pub k9s_readonly: super::fleet::K9sReadOnly,
    /// The user's configuration (kinformer's settings, a k9s user's files).
    pub user: Arc<UserConfig>,
    /// Problems found after loading (keys that cannot be bound); shown with the file problems.
    pub config_problems: Vec<Problem>,
}

impl Default for AppConfig {
    fn default() -> Self {
        AppConfig {
            context: String::new(),
            namespace: Some("default".into()),
            resource: "pods".into(),
            selector: None,
            readonly: false,
            log_cap_bytes: super::log_view::DEFAULT_CAP_BYTES,
            now_ms: 0,
            context_namespace: None,
            fleet: Vec::new(),
            readonly_contexts: None,
            k9s_readonly: Default::default(),
            user: Arc::new(UserConfig::default()),
            config_problems: Vec::new(),
        }
    }
}

/// What keys currently go to.
#[derive(Debug, Clone)]
pub enum Mode {
    Normal,
    /// The `:` prompt (`input.value()`: its line).
    Command {
        input: Prompt,
    },
    /// The `/` prompt over the screen on top (`input.value()`: its line).
    Filter {
        input: Prompt,
    },
    Labels(LabelPicker),
    Confirm(ConfirmWrite),
    /// The confirmation of a create's or an apply's dry runs (their diff).
    ConfirmApply(Box<crate::ui::screens::apply_confirm::ApplyDialog>),
    /// The scale dialog (replica count input).
    Scale(ScaleDialog),
    /// The set-image dialog (a container, its new image).
    SetImage(crate::ui::screens::set_image::SetImageDialog),
    /// The drain progress dialog (its state is [`App::drain`]).
    Drain,
    /// The port-forward dialog.
    Forward(ForwardDialog),
    /// The container picker before a shell.
    Containers(ContainerPicker),
    /// The actions menu of an xray node (Enter).
    NodeActions(crate::ui::screens::node_actions::NodeActions),
    /// A k9s plugin's inputs, asked before it runs.
    PluginInputs(Box<crate::ui::screens::plugin_inputs::PluginInputsDialog>),
    Help {
        scroll: usize,
    },
}

/// The whole dashboard state.
#[derive(Debug, Clone)]
pub struct App {
    pub keys: KeyMap,
    /// The user's configuration (aliases, hotkeys, plugins, views, skin; see [`crate::config`]).
    pub user: Arc<UserConfig>,
    /// Every configuration problem found so far (files at start, alias targets and plugin
    /// scopes once discovery answered); the footer names the first of each batch.
    pub config_problems: Vec<Problem>,
    /// Whether the alias targets and plugin scopes were checked against discovery.
    pub(crate) config_checked: bool,
    /// The colours: the built-in look, or the user's k9s skin mapped onto it.
    pub theme: super::theme::Theme,
    /// The user's custom views (views.yaml), by `(group, plural)`.
    pub(crate) custom_views: HashMap<(String, String), super::custom_columns::CustomView>,
    /// Custom columns already named in the footer (`gvr:column`).
    pub(crate) reported_columns: std::collections::HashSet<String>,
    /// The log screen's own key table (`assets/log_keys.toml`).
    pub log_keys: LogKeyMap,
    pub readonly: bool,
    /// A replay of a recording (`kinformer replay`), with no cluster (see [`super::replay`]).
    pub replay: Option<super::replay::Replay>,
    /// Why writes are refused (`started with --readonly`, a k9s `readOnly` setting) while
    /// [`App::readonly`].
    pub readonly_why: String,
    /// Bytes of log lines a log view keeps.
    pub log_cap_bytes: usize,
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
    pub events: EventLog,
    pub show_events_pane: bool,
    pub mode: Mode,
    /// Footer message and whether it is an error.
    pub message: Option<(String, bool)>,
    /// When an info message leaves the footer (errors stay until a key). None with an info
    /// message: the countdown starts at the next tick (the clock is only known from ticks).
    pub message_until_ms: Option<i64>,
    /// The demo cluster still being seeded: the footer's line until it is done.
    pub demo_seeding: Option<super::action::DemoSeeding>,
    /// The footer's recent messages, whole and oldest first (`:messages` shows them; the
    /// footer cuts a long one at a word).
    pub messages: std::collections::VecDeque<(String, bool)>,
    pub should_quit: bool,
    /// The `:` lines run, oldest first (Up and Down recall them in the prompt, as in k9s).
    pub command_history: std::collections::VecDeque<String>,
    /// The view commands run, for `[`, `]` and `-` (see [`super::nav_history`]).
    pub nav_history: super::nav_history::NavHistory,
    /// Header and breadcrumbs shown (`ctrl-e`, `ctrl-g`).
    pub chrome: super::nav_history::Chrome,
    /// The node drain in progress or just ended (shown by the drain dialog).
    pub drain: Option<DrainProgress>,
    /// The active port-forwards, as the runtime reports them.
    pub forwards: Vec<crate::ui::portforward::ForwardRow>,
    pub(super) next_forward: u64,
    /// The namespaces view (not shown) used to validate and complete `:ns`.
    pub ns_view: Option<ViewId>,
    /// The last metrics poll per scope (pods of a namespace or all, nodes), joined to the pods
    /// and nodes tables at draw time.
    pub metrics: HashMap<MetricsScope, UsageMap>,
    /// Why metrics are not shown (no metrics-server, 403, 503), when they are not.
    pub metrics_unavailable: Option<String>,
    /// The nodes tables' PODS column (`None` until first counted).
    pub node_pods: Option<crate::ui::action::NodePods>,
    /// The pulse screen's state while it is on the stack.
    pub pulse: Option<Box<PulseScreen>>,
    /// Deltas per second per informer since the start (the pulse's sparklines).
    pub rates: super::pulse::Rates,
    /// The selected clusters and their states (see [`super::fleet`]).
    pub fleet: super::fleet::FleetState,
    /// The fleet member the keys act on (the selected row's cluster in a merged table; `None`:
    /// the current context). See `App::on_key_routed`.
    pub target_cluster: Option<String>,
    /// The kubeconfig's contexts in detail (the `:ctx` table).
    pub context_rows: Vec<super::action::ContextRow>,
    /// Namespace favourites, most recent first (`1`–`9`; `0` is all namespaces).
    pub favourites: Vec<String>,
    pub(super) initial_resource: String,
    /// `-r NAME` that the resources known at start (the built-in ones when the server was
    /// unreachable) did not name: opened when discovery names it, if the user has not moved on.
    pub(super) pending_resource: Option<String>,
    /// A `:` line naming a kind discovery did not know, run again when discovery answers anew
    /// ([`Effect::Rediscover`]).
    pub(super) pending_command: Option<String>,
    /// A discovery answer has arrived (the resources are the server's, not the built-in list).
    pub(super) discovered: bool,
    pub(super) initial_selector: Option<String>,
    pub(super) context_namespace: Option<String>,
    pub(super) next_view: ViewId,
    pub(super) next_request: u64,
    pub(super) dirty: bool,
}

/// Footer messages `:messages` keeps.
pub const MESSAGES_KEPT: usize = 100;

/// Lines above and below the table (header, borders, footer) at the default layout.
const CHROME_ROWS: u16 = 7;

/// Lines of the header (3) and footer (1) around the body.
const FRAME_ROWS: u16 = 4;

/// A terminal this high or lower shows the event log pane as one line.
pub const ONE_LINE_PANE_ROWS: u16 = 30;

/// The smallest useful event log pane: its title, column header and one entry.
const MIN_PANE_ROWS: u16 = 3;

/// Height of the event log pane under a table in a terminal `height` lines high: about a quarter
/// of the body (the table keeps the rest); one line (the latest delta) in a terminal of
/// [`ONE_LINE_PANE_ROWS`] rows or fewer, where the table needs them.
pub fn events_pane_rows(height: u16) -> u16 {
    if height <= ONE_LINE_PANE_ROWS {
        return 1;
    }
    let rows = height.saturating_sub(FRAME_ROWS) / 4;
    if rows < MIN_PANE_ROWS { 0 } else { rows }
}

/// How long an info message (e.g. the start-up banner) replaces the footer's key hints.
pub const INFO_MESSAGE_MS: i64 = 5_000;

impl App {
    pub fn new(config: AppConfig, keys: KeyMap) -> App {
        let mut config_problems = config.user.problems.clone();
        config_problems.extend(config.config_problems);
        // k9s's `ui.headless` and `ui.crumbsless` are how it starts: ctrl-e and ctrl-g toggle
        // them, as in k9s.
        let chrome = super::nav_history::Chrome {
            header: !config.user.settings.k9s_ui.headless,
            crumbs: !config.user.settings.k9s_ui.crumbsless,
        };
        // k9s's per-context favourites (its order), the start namespace among them.
        let favourites = super::k9s_state::start_favourites(
            config.namespace.as_deref(),
            config
                .user
                .context_state
                .as_ref()
                .map_or(&[][..], |s| &s.favorites[..]),
        );
        let theme = config
            .user
            .skin
            .as_ref()
            .map(super::theme::Theme::from_skin)
            .unwrap_or_default();
        App {
            keys,
            theme,
            custom_views: super::custom_columns::custom_views(&config.user),
            reported_columns: Default::default(),
            user: config.user,
            config_problems,
            config_checked: false,
            // The embedded table is parsed in tests; an empty table cannot happen in practice.
            log_keys: LogKeyMap::defaults().unwrap_or_default(),
            readonly: config.readonly,
            replay: None,
            readonly_why: if config.readonly {
                "started with --readonly".into()
            } else {
                String::new()
            },
            log_cap_bytes: config.log_cap_bytes.max(1),
            now_ms: config.now_ms,
            size: (80, 24),
            connection: ConnectionState {
                context: config.context,
                reachable: true,
                ..ConnectionState::default()
            },
            resources: builtin_resources(),
            contexts: Vec::new(),
            favourites,
            context_rows: Vec::new(),
            namespace: config.namespace,
            views: HashMap::new(),
            stack: Vec::new(),
            informers: Vec::new(),
            events: EventLog::default(),
            // The event log is the dashboard's signature: on the first screen, `e` hides it.
            show_events_pane: true,
            mode: Mode::Normal,
            message: None,
            demo_seeding: None,
            messages: std::collections::VecDeque::new(),
            message_until_ms: None,
            should_quit: false,
            command_history: std::collections::VecDeque::new(),
            nav_history: Default::default(),
            chrome,
            drain: None,
            forwards: Vec::new(),
            next_forward: 1,
            ns_view: None,
            metrics: HashMap::new(),
            metrics_unavailable: None,
            node_pods: None,
            pulse: None,
            rates: Default::default(),
            fleet: super::fleet::FleetState {
                k9s: config.k9s_readonly,
                ..super::fleet::FleetState::new(
                    &config.fleet,
                    config.readonly,
                    config.readonly_contexts,
                )
            },
            target_cluster: None,
            initial_resource: config.resource,
            pending_resource: None,
            pending_command: None,
            discovered: false,
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
        self.report_config_problems();
        // The members first: the views that follow are fed from every one of them.
        self.init_fleet(&mut fx);
        let name = self.initial_resource.clone();
        match resolve(&self.resources, &name) {
            Some(r) if r.namespaced => self.nav_history.record(&format!(
                "{name} {}",
                self.namespace.as_deref().unwrap_or("-A")
            )),
            _ => self.nav_history.record(&name),
        }
        match resolve(&self.resources, &name).cloned() {
            Some(r) => {
                let ns = self.scope_for(&r);
                let id = self.open_view(r, ns, &mut fx);
                self.stack.push(Screen::Table(id));
            }
            None => {
                self.error(format!("unknown resource: {name}"));
                // Before discovery only the built-in kinds are known: a custom resource's name
                // is tried again when discovery answers.
                if !self.discovered {
                    self.pending_resource = Some(name);
                }
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

    /// `-r NAME` that only discovery knows (the server was unreachable at start): open it now,
    /// unless the user has gone elsewhere since (more than the first table on the stack).
    pub(super) fn open_pending_resource(&mut self, fx: &mut Vec<Effect>) {
        let Some(name) = self.pending_resource.take() else {
            return;
        };
        if self.stack.len() != 1 {
            return;
        }
        if let Some(r) = resolve(&self.resources, &name).cloned() {
            self.reset_to(r, fx);
            self.info(format!("{name}: found by discovery"));
        }
    }

    /// True once when the screen needs redrawing; the runtime draws only then.
    pub fn take_dirty(&mut self) -> bool {
        std::mem::take(&mut self.dirty)
    }

    /// When the screen will change by itself (a highlight fades, a deleted row leaves, a countdown
    /// ticks): the runtime sends `Action::Tick` then. Ages only need a slow tick.
    pub fn next_deadline_ms(&self) -> Option<i64> {
        let mut d = self.current_view().and_then(|v| v.table.next_deadline());
        // A filter pass in progress: its next slice on the next tick, at once.
        if self
            .current_view()
            .is_some_and(|v| v.table.filtering() || v.table.sorting().is_some())
        {
            d = Some(self.now_ms);
        }
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
        // informer (one watch per kind), so fall back to the all-namespaces row. A view of
        // several namespaces is served by that row too, or by one informer per namespace
        // (the first one's row stands for them).
        let first = crate::ui::scope::names(view.namespace.as_deref())
            .first()
            .map(|n| n.to_string());
        let own = if crate::ui::scope::several(view.namespace.as_deref()) {
            self.informers
                .iter()
                .find(|r| r.cluster.is_none() && r.resource == label && r.namespace.is_none())
        } else {
            None
        };
        own.or_else(|| {
            self.informers
                .iter()
                .find(|r| r.cluster.is_none() && r.resource == label && r.namespace == first)
        })
        .or_else(|| {
            self.informers
                .iter()
                .find(|r| r.cluster.is_none() && r.resource == label && r.namespace.is_none())
        })
    }

    /// A synced view whose informer starts a relist marks its rows stale (the new list brings
    /// them again, or its end deletes them); once the relist is over, the marks left go with
    /// the rows the store path sends.
    pub(super) fn follow_relists(&mut self) {
        let relisting: Vec<(ViewId, bool)> = self
            .views
            .values()
            .map(|v| {
                let listing = self.informer_for(v).is_some_and(|r| r.progress.is_some());
                (v.id, v.synced && listing)
            })
            .collect();
        for (id, now) in relisting {
            if let Some(v) = self.views.get_mut(&id)
                && v.relisting != now
            {
                v.relisting = now;
                if now {
                    v.table.mark_stale();
                }
            }
        }
        // After an outage the rows are stale until the informer is confirmed current again
        // (the watch delivered, the history check passed) or a relist brings them again.
        let outdated: Vec<(ViewId, bool)> = self
            .views
            .values()
            .map(|v| {
                let stale = self.informer_for(v).is_some_and(|r| r.stale);
                (v.id, v.synced && stale)
            })
            .collect();
        for (id, now) in outdated {
            if let Some(v) = self.views.get_mut(&id)
                && v.outdated != now
            {
                v.outdated = now;
                if now {
                    v.table.mark_stale();
                } else if !v.relisting {
                    v.table.clear_stale();
                }
            }
        }
    }

    /// The current context's informers still listing (see [`super::listing::listing_note`]).
    pub fn listing_note(&self) -> Option<String> {
        super::listing::listing_note(&self.informers)
    }

    /// Known namespace names (from the namespaces view). With several clusters its rows are
    /// keyed under their cluster: each name once, whichever clusters have it.
    pub fn namespace_names(&self) -> Vec<String> {
        super::view::namespace_names(self.ns_view.and_then(|id| self.views.get(&id)))
    }

    /// Rows visible in the table area at the current terminal size.
    pub fn table_height(&self) -> usize {
        let chrome = if self.chrome.header {
            CHROME_ROWS
        } else {
            CHROME_ROWS - 3
        };
        let mut h = self.size.1.saturating_sub(chrome);
        if self.show_events_pane {
            h = h.saturating_sub(events_pane_rows(self.size.1));
        }
        if matches!(self.mode, Mode::Command { .. } | Mode::Filter { .. }) {
            h = h.saturating_sub(3);
        }
        usize::from(h.max(1))
    }

    pub(crate) fn scope_for(&self, r: &ResourceInfo) -> Option<String> {
        if r.namespaced {
            self.namespace.clone()
        } else {
            None
        }
    }

    pub(super) fn error(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        self.remember_message(&msg, true);
        self.message = Some((msg, true));
        self.message_until_ms = None;
    }

    /// Keep the last [`MESSAGES_KEPT`] footer messages for `:messages`.
    fn remember_message(&mut self, msg: &str, error: bool) {
        if self.messages.len() == MESSAGES_KEPT {
            self.messages.pop_front();
        }
        self.messages.push_back((msg.to_string(), error));
    }

    /// A transient footer message: shown for [`INFO_MESSAGE_MS`], then the key hints return.
    pub(super) fn info(&mut self, msg: impl Into<String>) {
        let msg = msg.into();
        self.remember_message(&msg, false);
        self.message = Some((msg, false));
        self.message_until_ms = None;
    }

    /// Start or run out an info message's time on screen.
    pub(super) fn expire_message(&mut self, now: i64) -> bool {
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

    pub(super) fn open_view(
        &mut self,
        resource: ResourceInfo,
        namespace: Option<String>,
        fx: &mut Vec<Effect>,
    ) -> ViewId {
        self.open_view_with(resource, namespace, None, fx)
    }

    /// [`open_view`](Self::open_view); with a `drill`, the view shows only the drill's objects,
    /// read from its index once the store arrives (see `fill_from_index`).
    pub(super) fn open_view_with(
        &mut self,
        resource: ResourceInfo,
        namespace: Option<String>,
        drill: Option<Drill>,
        fx: &mut Vec<Effect>,
    ) -> ViewId {
        let id = self.next_view;
        self.next_view += 1;
        let cols = columns(&resource.api_resource.kind, printer_columns_of(&resource));
        fx.push(Effect::OpenResource {
            view: id,
            resource: resource.clone(),
            namespace: namespace.clone(),
            drill: drill.clone(),
        });
        let mut table = TableModel::default();
        // Events open newest first, by LAST SEEN (they have no NAME column to sort by).
        if cols.first().is_some_and(|c| c.name == "LAST SEEN") {
            table.set_sort(crate::ui::table::SortBy::Cell(0));
        }
        let drill_answer = drill.as_ref().map(|d| DrillAnswer {
            index: d.index(),
            via: None,
            answered: false,
        });
        if drill.is_some() {
            table.filters.drill = drill;
            table.refilter(None);
        }
        self.views.insert(
            id,
            ResourceView {
                id,
                resource,
                namespace,
                columns: cols,
                table,
                error: None,
                denial: None,
                fallback_denied: None,
                synced: false,
                relisting: false,
                outdated: false,
                store: None,
                member_stores: Vec::new(),
                drilled_from: None,
                drill_answer,
                feeds: None,
                col_widths: Vec::new(),
                wide: false,
                select_on_arrival: None,
                served: None,
                marked: Vec::new(),
                sort_pick: None,
                past: None,
            },
        );
        self.watch_usage(id, fx);
        self.apply_custom_sort(id);
        id
    }

    pub(super) fn open_ns_view(&mut self, fx: &mut Vec<Effect>) {
        if let Some(r) = resolve(&self.resources, "namespaces").cloned() {
            let id = self.open_view(r, None, fx);
            self.ns_view = Some(id);
        }
    }

    pub(super) fn close_view(&mut self, id: ViewId, fx: &mut Vec<Effect>) {
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

    pub(super) fn pop_screen(&mut self, fx: &mut Vec<Effect>) {
        if self.stack.len() <= 1 {
            // A command's own view alone on the stack (`:helm`): back to the command before,
            // as k9s's Esc on a root view (`PrevCmd`).
            if matches!(self.stack.last(), Some(Screen::Helm(_))) {
                self.nav_step(true, fx);
            }
            return;
        }
        match self.stack.pop() {
            Some(Screen::Table(id))
                if !self
                    .stack
                    .iter()
                    .any(|s| matches!(s, Screen::Table(x) if *x == id)) =>
            {
                self.close_view(id, fx);
            }
            Some(Screen::Pulse) => self.close_pulse(fx),
            Some(Screen::Logs(l)) => fx.push(Effect::CloseLogs { view: l.stream }),
            Some(Screen::Xray(x)) => Self::close_xray(&x, fx),
            Some(Screen::History(_))
                if !self.stack.iter().any(|s| matches!(s, Screen::History(_))) =>
            {
                fx.push(Effect::CloseHistory);
            }
            Some(Screen::Helm(_)) => self.helm_closed(fx),
            _ => {}
        }
    }

    /// Replace the whole stack with a new root table.
    pub(super) fn reset_to(&mut self, resource: ResourceInfo, fx: &mut Vec<Effect>) {
        self.clear_stack(fx);
        let ns = self.scope_for(&resource);
        let id = self.open_view(resource, ns, fx);
        self.stack.push(Screen::Table(id));
    }

    /// Close every screen and view (but the namespaces table kept for `:ns`), as a `:`
    /// command does in k9s before it shows its view: the breadcrumbs then name that view only.
    pub(crate) fn clear_stack(&mut self, fx: &mut Vec<Effect>) {
        let old: Vec<ViewId> = self
            .views
            .keys()
            .copied()
            .filter(|id| Some(*id) != self.ns_view)
            .collect();
        for id in old {
            self.close_view(id, fx);
        }
        self.close_pulse(fx);
        if self.stack.iter().any(|s| matches!(s, Screen::History(_))) {
            fx.push(Effect::CloseHistory);
        }
        for s in std::mem::take(&mut self.stack) {
            match s {
                Screen::Logs(l) => fx.push(Effect::CloseLogs { view: l.stream }),
                Screen::Xray(x) => Self::close_xray(&x, fx),
                Screen::Helm(_) => self.helm_closed(fx),
                _ => {}
            }
        }
    }

    /// Apply one action; returns what the runtime must do.
    pub fn update(&mut self, action: Action) -> Vec<Effect> {
        let mut fx = Vec::new();
        match action {
            Action::Key(key) => {
                if key.kind != KeyEventKind::Release {
                    self.dirty = true;
                    self.on_key_routed(key, &mut fx);
                }
            }
            Action::Mouse(m) => self.on_mouse(m),
            Action::Resize(w, h) => self.on_resize(w, h),
            Action::Tick(now) => self.on_tick(now, &mut fx),
            Action::Rows {
                view,
                upserts,
                deletes,
            } => {
                if !self.on_rows(view, upserts, deletes, &mut fx) {
                    return fx;
                }
            }
            Action::ListedRows {
                view,
                upserts,
                deletes,
            } => {
                if !self.on_listed_rows(view, upserts, deletes, &mut fx) {
                    return fx;
                }
            }
            Action::Resync { view, rows } => {
                if !self.on_resync(view, rows, &mut fx) {
                    return fx;
                }
            }
            Action::MemberStore {
                view,
                cluster,
                store,
            } => self.on_member_store(view, cluster, store, &mut fx),
            Action::Store { view, store } => {
                if !self.on_store(view, store, &mut fx) {
                    return fx;
                }
            }
            Action::ViewError {
                view,
                message,
                forbidden,
            } => {
                if !self.on_view_error(view, message, forbidden) {
                    return fx;
                }
            }
            Action::Verified { view, result } => self.on_verified(view, result),
            Action::VerifyTick => self.on_verify_tick(&mut fx),
            Action::InformerStats(rows) => self.on_informer_stats(rows, &mut fx),
            Action::Forbidden { view, denial } => {
                if !self.on_forbidden(view, denial, &mut fx) {
                    return fx;
                }
            }
            Action::AccessChecked {
                view,
                namespace,
                access,
            } => self.on_access_checked(view, namespace, access, &mut fx),
            Action::Tap(entries) => self.on_tap(entries),
            Action::Yaml { request, result } => self.on_yaml(request, result),
            Action::Describe { request, result } => {
                self.on_text(request, result.map(TextResult::Describe))
            }
            Action::Connection(c) => self.on_connection(c),
            Action::Discovery(resources) => self.on_discovery(resources, &mut fx),
            Action::Contexts(c) => self.contexts = c,
            Action::ContextRows(rows) => self.context_rows = rows,
            Action::ClusterHealth { context, health } => self.on_cluster_health(context, health),
            Action::Diff { request, result } => {
                self.on_text(request, result.map(TextResult::Describe))
            }
            Action::Drain(ev) => self.on_drain_event(ev),
            Action::HelmReleases(result) => self.on_helm_releases(result),
            Action::HelmRelease { request, result } => self.on_helm_release(request, result),
            Action::Ports {
                namespace,
                pod,
                result,
            } => self.on_ports(&namespace, &pod, result),
            Action::TargetPorts {
                namespace,
                name,
                result,
            } => self.on_target_ports(&namespace, &name, result),
            Action::Containers {
                namespace,
                pod,
                result,
            } => self.on_containers(&namespace, &pod, result, &mut fx),
            Action::PodContainers {
                namespace,
                pod,
                result,
            } => {
                self.on_pod_containers(&namespace, &pod, result);
                self.dirty = true;
            }
            Action::Images { write, result } => self.on_images(&write, result),
            Action::Forwards(rows) => self.on_forwards(rows),
            Action::ScopeServed { view, served } => self.on_scope_served(view, served),
            Action::ApplyRefused {
                resource,
                text,
                message,
            } => self.on_apply_refused(resource, text, message, &mut fx),
            Action::ApplyPlan(plan) => self.on_apply_plan(*plan),
            Action::Notify { message, error } => self.notify(message, error),
            Action::DemoSeeding(s) => {
                self.demo_seeding = s.seeded.is_none().then_some(s);
                self.dirty = true;
            }
            Action::DemoSeeded(banner) => {
                if self.message.is_none() {
                    self.info(banner);
                }
            }
            Action::Metrics(update) => self.on_metrics(update),
            Action::NodePods(update) => self.on_node_pods(update),
            Action::Log { view, batch } => self.on_log_batch(view, batch),
            Action::LogSaved { view, result } => self.on_log_saved(view, result),
            Action::PastView { view, past, times } => {
                self.on_past_view(view, *past, times, &mut fx)
            }
            Action::History {
                resource,
                key,
                timeline,
                stats,
                events,
                events_unavailable,
            } => self.on_history(
                &resource,
                &key,
                timeline.map(|t| *t),
                stats,
                events,
                events_unavailable,
            ),
            Action::Changes {
                filter,
                rows,
                stats,
            } => self.on_changes(&filter, rows, stats),
        }
        if self.dirty {
            self.remember_col_widths();
        }
        fx
    }

    pub(super) fn scroll_current(&mut self) {
        let h = self.table_height();
        if let Some(id) = self.current_view_id()
            && let Some(v) = self.views.get_mut(&id)
        {
            v.table.scroll_into_view(h);
        }
    }

    // ------------------------------------------------------------------ keys

    pub(crate) fn on_key(&mut self, key: KeyEvent, fx: &mut Vec<Effect>) {
        // ctrl-c quits from anywhere, as in k9s, unless k9s's `noExitOnCtrlC` is set (`:q`
        // still quits). `q` never quits: it is Back (see keys.toml).
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            if self.user.settings.k9s_no_exit_on_ctrl_c {
                self.info("ctrl-c does not quit (k9s noExitOnCtrlC): :q quits");
            } else {
                self.should_quit = true;
                fx.push(Effect::Quit);
            }
            return;
        }
        // Esc then a key typed fast (a paste, tmux, a quick hand) reaches the terminal as one
        // sequence that crossterm reports as Alt+key: an Alt+key nothing binds is that Esc
        // followed by the key, as if typed slowly.
        if let Some(plain) = self.unbound_alt(&key) {
            self.on_key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE), fx);
            self.on_key(plain, fx);
            return;
        }
        let mode = std::mem::replace(&mut self.mode, Mode::Normal);
        self.mode = match mode {
            Mode::Normal => {
                if !screens::on_raw_key(self, key, fx) {
                    self.on_normal_key(key, fx);
                }
                return;
            }
            Mode::Command { input } => {
                self.on_prompt_key(key, input, |input| Mode::Command { input }, fx)
            }
            Mode::Filter { input } => {
                self.on_prompt_key(key, input, |input| Mode::Filter { input }, fx)
            }
            Mode::Labels(mut p) => {
                let out = p.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::Labels(p), out, fx)
            }
            Mode::Confirm(mut c) => {
                let out = c.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::Confirm(c), out, fx)
            }
            Mode::ConfirmApply(mut d) => {
                let out = d.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::ConfirmApply(d), out, fx)
            }
            Mode::Scale(mut d) => {
                let out = d.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::Scale(d), out, fx)
            }
            Mode::SetImage(mut d) => {
                let out = d.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::SetImage(d), out, fx)
            }
            Mode::Drain => self.on_drain_key(key, fx),
            Mode::Forward(mut d) => {
                let out = d.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::Forward(d), out, fx)
            }
            Mode::Containers(mut p) => {
                let out = p.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::Containers(p), out, fx)
            }
            Mode::NodeActions(mut m) => {
                let out = m.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::NodeActions(m), out, fx)
            }
            Mode::PluginInputs(mut d) => {
                let out = d.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::PluginInputs(d), out, fx)
            }
            Mode::Help { scroll } => {
                let mut h = self.help_dialog(scroll);
                let out = h.on_key(key, &self.ctx());
                self.dialog_outcome(Mode::Help { scroll: h.scroll }, out, fx)
            }
        };
    }

    /// `key` without its Alt when it is an Alt+character (without Ctrl) that no binding of the
    /// key map, nor the log view's, knows: the key that followed an Esc. (Alt+Backspace stays:
    /// the prompts delete a word with it.)
    fn unbound_alt(&self, key: &KeyEvent) -> Option<KeyEvent> {
        if !matches!(key.code, KeyCode::Char(_))
            || !key.modifiers.contains(KeyModifiers::ALT)
            || key.modifiers.contains(KeyModifiers::CONTROL)
            || !self.keys.actions(key).is_empty()
            || (matches!(self.current_screen(), Some(Screen::Logs(_)))
                && self.log_keys.action(key).is_some())
        {
            return None;
        }
        let mut plain = *key;
        plain.modifiers.remove(KeyModifiers::ALT);
        Some(plain)
    }

    fn on_normal_key(&mut self, key: KeyEvent, fx: &mut Vec<Effect>) {
        let action = match self.resolve_key(&key) {
            screens::k9s::KeyMeaning::Action(a) => a,
            screens::k9s::KeyMeaning::NotHere(why) => {
                self.error(why);
                return;
            }
            screens::k9s::KeyMeaning::Unbound => {
                if let Some(m) = screens::k9s::unbound_message(&key) {
                    self.info(m);
                }
                return;
            }
        };
        if action != KeyAction::Back {
            // Any other key acknowledges the footer message.
            self.message = None;
        }
        let page = self.table_height().saturating_sub(1).max(1);
        match action {
            KeyAction::Quit => {
                self.should_quit = true;
                fx.push(Effect::Quit);
            }
            KeyAction::Help => self.mode = Mode::Help { scroll: 0 },
            KeyAction::Command => {
                self.mode = Mode::Command {
                    input: Prompt::command(""),
                };
            }
            KeyAction::Back => self.back(fx),
            KeyAction::Up => self.nav(action, 1),
            KeyAction::Down => self.nav(action, 1),
            KeyAction::PageUp | KeyAction::PageDown => self.nav(action, page),
            KeyAction::Top | KeyAction::Bottom => self.nav(action, 0),
            // `P` toggles: on the pulse it closes it (as esc does).
            KeyAction::Pulse if matches!(self.current_screen(), Some(Screen::Pulse)) => {
                self.pop_screen(fx)
            }
            KeyAction::Pulse => self.open_pulse(fx),
            KeyAction::Aliases => self.show_aliases(),
            KeyAction::HotKey(i) => self.run_hotkey(i, fx),
            KeyAction::Plugin(i) => self.run_plugin(i, fx),
            KeyAction::Favourite => {
                let i = self.keys.key_index(KeyAction::Favourite, &key).unwrap_or(0);
                self.use_favourite(i, fx);
            }
            KeyAction::ToggleEvents => {
                self.show_events_pane = !self.show_events_pane;
                self.scroll_current();
            }
            KeyAction::HistoryBack => self.nav_step(true, fx),
            KeyAction::HistoryForward => self.nav_step(false, fx),
            KeyAction::LastView => self.nav_last(fx),
            KeyAction::ToggleCrumbs => self.chrome.crumbs = !self.chrome.crumbs,
            KeyAction::ToggleHeader => {
                self.chrome.header = !self.chrome.header;
                self.scroll_current();
            }
            // Everything else belongs to a screen (see `screens::on_key`).
            _ => screens::on_key(self, action, fx),
        }
    }

    fn back(&mut self, fx: &mut Vec<Effect>) {
        // Esc on a table shown as it was returns it to live first.
        if let Some(Screen::Table(id)) = self.current_screen().cloned()
            && self.views.get(&id).is_some_and(|v| v.past.is_some())
        {
            self.leave_past(id);
            return;
        }
        // Esc first clears the current table's text/label filter, then goes back.
        // A drill-down's own selector (a Service's pods) is not the user's: Esc goes back.
        if let Some(Screen::Table(id)) = self.current_screen().cloned()
            && let Some(v) = self.views.get_mut(&id)
            && (v.table.filters.text.is_some()
                || v.table.filters.text_invalid
                || (v.table.filters.label.is_some() && v.drilled_from.is_none()))
        {
            v.table.filters.text = None;
            v.table.filters.text_raw.clear();
            v.table.filters.text_invalid = false;
            if v.drilled_from.is_none() {
                v.table.filters.label = None;
            }
            v.table.refilter(None);
            self.scroll_current();
            return;
        }
        if self.xray_clear_filter() {
            return;
        }
        self.message = None;
        self.pop_screen(fx);
        self.scroll_current();
    }

    pub(super) fn nav(&mut self, action: KeyAction, n: usize) {
        screens::nav(self, action, n);
    }

    // ------------------------------------------------------------------ command line

    // ------------------------------------------------------------------ filters
}
