//! The seam between [`App`](super::app::App) and what it shows: every screen and dialog is a
//! [`Component`] that owns its state, takes the keys given to it (answering an [`Outcome`]) and
//! draws itself from its state and a read-only [`Ctx`].
//!
//! Models (facts, not code): gitui's `components/` (each component owns its state, `event()`
//! says whether it consumed the key, `draw()` renders it), k9s's `internal/view/` (one type per
//! view with its own `bindKeys`), ratatui's component template.
//!
//! # The contract
//! - A component changes only its own state. What it wants of the rest of the program (the
//!   runtime, the screen stack, the footer, a write, a shared model) it asks for in the
//!   [`Outcome`] it returns; it never sees `App`. This module imports no screen and not the
//!   `App` (`tests/layering.rs` fails otherwise), so a component file that imports only this,
//!   the models and the widgets is outside `App`'s import circle.
//! - [`Ctx`] is what a component may read: the shared models by shared reference (views and
//!   their tables, informer rows, the event ring, config, key maps, theme, clock, read-only
//!   state, terminal size). A component reads it while it handles a key or draws; it keeps
//!   nothing borrowed from it.
//! - Drawing is a pure function of the component and the `Ctx`: no I/O, locks or awaits.
//!
//! # How `App` runs an outcome
//! `App` takes the dialog (or screen) out of its slot, calls [`Component::on_key`] with a `Ctx`
//! borrowed from its own fields, puts the component back, then carries the outcome out in
//! order (`App::run_outcome`):
//! - [`Outcome::NotConsumed`]: the key goes on, as before (a screen's key to the table under it,
//!   then to the event pane); for a dialog it is the same as `Consumed`.
//! - [`Outcome::Consumed`]: nothing more (the component changed its own state; `App` redraws).
//! - [`Outcome::Close`]: the dialog on top closes (keys go to the screens again).
//! - [`Outcome::Effects`]: handed to the runtime as they are.
//! - [`Outcome::Info`] / [`Outcome::Error`]: the footer message (and `:messages`).
//! - [`Outcome::Write`]: through the one write path, `App::run_write`: refused with the reason
//!   where writes are refused (`--readonly`, `--readonly-contexts`, k9s's `readOnly`, the row's
//!   own cluster), sent to the confirmation dialog when destructive and not yet confirmed,
//!   otherwise the footer says what is sent (the outcome's note, or `<op> <what>…`) and the
//!   runtime gets `Effect::Write`, whose answer comes back as `Action::Notify`.
//! - [`Outcome::Pop`]: the screen on top goes (as `esc` does), closing what it opened.
//! - [`Outcome::Ask`]: a [`Request`] only `App` can carry out, because it changes a shared
//!   model or opens something whose state is built from several of them.
//! - [`Outcome::Seq`]: each in order.
//!
//! Keys reach a component in two forms: [`Component::on_key`] gets the terminal's key as it
//! came (dialogs and prompts, which type text), [`Component::on_action`] the key map's meaning
//! of it (screens: `Up`, `Enter`, `Describe`…; navigation too, with [`Ctx::page`] rows a page).

use std::collections::HashMap;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;

use std::sync::Arc;

use super::action::{
    ClusterHealth, ConnectionState, ContainerPort, ContextRow, Effect, InformerRow, ObjectSummary,
    ViewId,
};
use super::drain::DrainOptions;
use super::event_log::{EventLog, LogChange};
use super::keys::{KeyAction, KeyMap};
use super::log_stream::ContainerPick;
use super::log_view::LogKeyMap;
use super::metrics::MetricsScope;
use super::operate::Write;
use super::plugin_run::PluginRun;
use super::portforward::ForwardRow;
use super::theme::Theme;
use super::usage::UsageMap;
use super::view::{ResourceView, TextKind};
use crate::cluster::ResourceInfo;
use crate::config::UserConfig;
use crate::informer::history::DiffLine;

/// What every screen and dialog does: take keys, draw itself, name its keys and itself.
pub trait Component: ComponentClone + std::fmt::Debug {
    /// A key as the terminal sent it (before the key map is asked).
    fn on_key(&mut self, _key: KeyEvent, _ctx: &Ctx) -> Outcome {
        Outcome::NotConsumed
    }

    /// A key's meaning in the key map (screens), navigation included.
    fn on_action(&mut self, _action: KeyAction, _ctx: &Ctx) -> Outcome {
        Outcome::NotConsumed
    }

    /// Up, down, page, top, bottom by `n` rows (a screen; the mouse wheel moves 3).
    fn on_nav(&mut self, _action: KeyAction, _n: usize, _ctx: &Ctx) {}

    /// Draw into `area` (the body for a screen, the whole frame for a dialog).
    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx);

    /// A screen's header lines 2 and 3, in the header's `label` and `value` styles; `None`:
    /// the informer and filter lines of the resource table under it.
    fn header(&self, _ctx: &Ctx, _label: Style, _value: Style) -> Option<[Line<'static>; 2]> {
        None
    }

    /// The footer's key hints; `None`: the key map's hinted bindings.
    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        None
    }

    /// The title (a dialog's frame, a screen's header), if it has one of its own.
    fn title(&self, _ctx: &Ctx) -> Option<String> {
        None
    }
}

/// Cloning a boxed component (the `App` is `Clone`).
pub trait ComponentClone {
    fn clone_box(&self) -> Box<dyn Component>;
}

impl<T: Component + Clone + 'static> ComponentClone for T {
    fn clone_box(&self) -> Box<dyn Component> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn Component> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// What a key asks of the rest of the program (see the module doc for how `App` runs it).
#[derive(Debug, Default)]
pub enum Outcome {
    /// Not this component's key: it goes on to the next taker.
    #[default]
    NotConsumed,
    /// Taken; the component changed its own state (or nothing).
    Consumed,
    /// Close the dialog on top.
    Close,
    /// Effects for the runtime.
    Effects(Vec<Effect>),
    /// A footer message (info: it leaves after a while).
    Info(String),
    /// A footer message that stays until a key.
    Error(String),
    /// A write, through the one write path (read-only check, confirmation, footer, runtime).
    Write {
        write: Box<Write>,
        /// The user has confirmed it already (the confirmation dialog, a typed count).
        confirmed: bool,
        /// What the footer says while it is sent; `None`: `<op> <what>…`.
        note: Option<String>,
    },
    /// Pop the screen on top (as `esc`).
    Pop,
    /// Something only `App` can do.
    Ask(Request),
    /// Several, in order.
    Seq(Vec<Outcome>),
}

impl Outcome {
    /// Whether the key was taken.
    pub fn consumed(&self) -> bool {
        !matches!(self, Outcome::NotConsumed)
    }

    /// `self`, then `next`.
    pub fn then(self, next: Outcome) -> Outcome {
        match (self, next) {
            (Outcome::NotConsumed | Outcome::Consumed, n) => n,
            (s, Outcome::NotConsumed | Outcome::Consumed) => s,
            (Outcome::Seq(mut v), n) => {
                v.push(n);
                Outcome::Seq(v)
            }
            (s, n) => Outcome::Seq(vec![s, n]),
        }
    }
}

/// What a component asks of `App` that it cannot do itself: changes to shared models, or
/// opening something whose state `App` builds from several of them.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// Start draining `node` (cordon, then evict every pod) and show its progress.
    StartDrain { node: String, opts: DrainOptions },
    /// Carry out these confirmed writes (every marked row's), each checked for read-only.
    Writes(Vec<Write>),
    /// Run a k9s plugin (its inputs asked, its confirmation given).
    StartPlugin(Box<PluginRun>),
    /// Ask to confirm a k9s plugin run (its `confirm: true`) before it starts.
    ConfirmPlugin(Box<PluginRun>),
    /// Start a port-forward (`Effect::StartForward` or `StartForwardTarget`; `App` sets its
    /// id), the footer saying `note`.
    StartForward { note: String, effect: Box<Effect> },
    /// Run `action` as its key would on the screen on top (a menu's pick).
    Act(KeyAction),
    /// Apply a label selector to the table (or `:changes`); the label picker's Enter.
    LabelSelector(String),
    /// Apply these writes (a create's or an apply's, confirmed in its dialog), the footer
    /// saying `note`; `edited`: the editor's text (reopened with the server's refusal).
    Apply {
        note: String,
        writes: Vec<Write>,
        edited: Option<String>,
    },
    /// Open the search line over the screen on top, holding `text` (its Enter comes back to
    /// the screen).
    Search { text: String },
    /// Pause the event log, or change its filters (the pane's too).
    EventLog(LogChange),
    /// Open the history of the object `key` of `resource` (an informer's label), on `cluster`
    /// when a fleet member's, selecting the version `rv` if it is recorded.
    OpenHistory {
        resource: String,
        key: String,
        rv: Option<String>,
        cluster: Option<String>,
    },
    /// Open the YAML or describe of the object `namespace/name` of `resource`.
    OpenText {
        kind: TextKind,
        resource: Box<ResourceInfo>,
        namespace: Option<String>,
        name: String,
    },
    /// Open a diff of two versions of an object (the history's Enter).
    OpenDiff { title: String, lines: Vec<DiffLine> },
    /// Open the label picker over the screen on top (its choices are App's to gather).
    LabelPicker,
    /// Replace the whole stack with a table of `resource` (in the namespace scope).
    ResetTo(Box<ResourceInfo>),
    /// Run a `:` command line (without the colon), as typed.
    RunCommand(String),
    /// An operating key (delete, scale, shell…) on the selection of the screen on top,
    /// through the table's code path (read-only refusal, kinds, confirmation).
    Operate(KeyAction),
    /// The actions menu of an object (the xray's Enter on a node).
    NodeActions {
        resource: Box<ResourceInfo>,
        obj: Box<ObjectSummary>,
        expandable: bool,
    },
    /// The logs of an object of `kind` (a pod's, or a workload's pods).
    OpenLogs {
        kind: String,
        obj: Box<ObjectSummary>,
        pick: ContainerPick,
    },
    /// Fetch a pod's containers for the xray (a GET of the pod).
    FetchContainers(Arc<str>),
    /// Open a table of `resource` in `namespace` (`None`: all) on top.
    OpenTable {
        resource: Box<ResourceInfo>,
        namespace: Option<String>,
    },
    /// Run a line typed at the `:` prompt (kept for Up/Down first), without the colon.
    TypedCommand(String),
    /// The `/` line changed, was entered or left: the screen on top filters (or searches).
    Filter(FilterLine),
    /// [`Request::OpenLogs`] of the containers' previous instances (`kubectl logs -p`).
    OpenPreviousLogs {
        kind: String,
        obj: Box<ObjectSummary>,
        pick: ContainerPick,
    },
    /// The port-forward dialog for one of `ports` of `namespace/pod`.
    ForwardPorts {
        namespace: String,
        pod: String,
        ports: Vec<ContainerPort>,
    },
    /// The component numbered `requests` fetches from [`Ctx::next_request`] on and `views`
    /// streams or feeds from [`Ctx::next_view`] on: `App` counts past them.
    UseIds { requests: u64, views: u64 },
    /// Push a text screen titled `title` showing the answer to the fetch `request` (asked for
    /// in the same outcome).
    AwaitText { title: String, request: u64 },
    /// The revisions of the helm release `namespace/name`, over the releases.
    OpenHelmRelease { namespace: String, name: String },
    /// Open a table of `resource` (in the namespace scope) on top, its text filter `filter`
    /// and, with `faults`, only its faulty rows (`ctrl-z`).
    OpenFiltered {
        resource: Box<ResourceInfo>,
        filter: Option<String>,
        faults: bool,
    },
    /// The key acknowledged the footer message: it goes.
    ClearMessage,
}

/// What the `/` line tells the screen on top.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterLine {
    /// Its text now (a key typed): live filtering.
    Typed(String),
    /// Enter on this text (as typed, untrimmed).
    Enter(String),
    /// Esc: the line is left (a live filter is cleared).
    Esc,
}

/// What a component may read while it handles a key or draws: shared references to `App`'s
/// models. Built by `App::ctx`.
#[derive(Debug, Clone, Copy)]
pub struct Ctx<'a> {
    /// The resource tables open, by id.
    pub views: &'a HashMap<ViewId, ResourceView>,
    /// The resource table under the screen on top, if there is one.
    pub current_view: Option<ViewId>,
    /// One row per informer, as the runtime reports them.
    pub informers: &'a [InformerRow],
    /// The DeltaFIFO event ring.
    pub events: &'a EventLog,
    /// The server's resources (discovery, or the built-in list before it answers).
    pub resources: &'a [ResourceInfo],
    /// The connection to the current context.
    pub connection: &'a ConnectionState,
    /// The namespace scope (`None`: all namespaces).
    pub namespace: Option<&'a str>,
    /// The user's configuration.
    pub user: &'a UserConfig,
    /// The key map and the log view's own.
    pub keys: &'a KeyMap,
    pub log_keys: &'a LogKeyMap,
    pub theme: &'a Theme,
    /// Wall clock, unix ms (from the last tick).
    pub now_ms: i64,
    /// Terminal columns and lines.
    pub size: (u16, u16),
    /// Rows a page moves (the table's height less one).
    pub page: usize,
    /// Rows visible in the table area (a screen's list has as many).
    pub table_height: usize,
    /// Writes are refused on the current context, and why (`readonly_why`).
    pub readonly: bool,
    pub readonly_why: &'a str,
    /// Several clusters are selected.
    pub fleet: bool,
    /// The selected clusters (one: the current context) and their states.
    pub fleet_members: &'a [(String, ClusterHealth)],
    /// The kubeconfig's context names, and its contexts in detail (empty until read).
    pub contexts: &'a [String],
    pub context_rows: &'a [ContextRow],
    /// The active port-forwards, as the runtime reports them.
    pub forwards: &'a [ForwardRow],
    /// The lines run at the `:` prompt, oldest first.
    pub command_history: &'a std::collections::VecDeque<String>,
    /// The namespaces view (the names `:ns` completes).
    pub ns_view: Option<ViewId>,
    /// The number the next fetch takes (a component that fetches numbers its own from here on
    /// and asks for [`Request::UseIds`]).
    pub next_request: u64,
    /// The id the next stream or feed takes (the same, for [`Request::UseIds`]).
    pub next_view: ViewId,
    /// The last metrics poll of each scope, and why metrics are unavailable (if they are).
    pub metrics: &'a HashMap<MetricsScope, UsageMap>,
    pub metrics_unavailable: Option<&'a str>,
}

impl Ctx<'_> {
    /// The resource table under the screen on top.
    pub fn view(&self) -> Option<&ResourceView> {
        self.current_view.and_then(|id| self.views.get(&id))
    }

    /// Known namespace names (from the namespaces view), each once.
    pub fn namespace_names(&self) -> Vec<String> {
        super::view::namespace_names(self.ns_view.and_then(|id| self.views.get(&id)))
    }
}
