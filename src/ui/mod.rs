//! The terminal dashboard's pure side: a state machine ([`app::App`]) fed with
//! [`action::Action`]s, answering with [`action::Effect`]s, and drawn by `impl Widget for &App`
//! ([`widgets`]). Nothing here does I/O, awaits, spawns or holds a client: every task that talks
//! to a cluster or a terminal is in [`crate::runtime`], which depends on this module and never
//! the other way round (`tests/layering.rs` fails otherwise).
//!
//! - [`action`]: the messages in and out, and the plain data types they carry.
//! - [`app`]: `App::update` — the shared state (config, key map, resources, views, informer
//!   rows, event ring, footer message, mode, screen stack, clock, dirty flag) and the routing of
//!   actions and keys to the screen on top.
//! - [`screens`]: one component per screen or dialog (state, keys, drawing): the resource table,
//!   YAML/describe, the event log, the informer panel, container logs, help, confirm delete, the
//!   label picker.
//! - [`table`]: one resource table, sorted incrementally, with filters and a sticky selection.
//! - [`event_log`]: the bounded DeltaFIFO event log.
//! - [`listing`]: a list in progress as the header, the title and the informer panel say it.
//! - [`keys`]: key bindings as data (`assets/keys.toml`, overridable by the user).
//! - [`resources`]: `:` command resolution and completion.
//! - [`log_stream`]: what a log stream is (pods, containers, options, lines and states), and
//!   [`log_view`]: the log screen's buffer, keys and drawing.
//! - [`operate`]: what a write is (read-only check, the kinds it applies to, confirmation
//!   prompt), [`drain`]: a node drain's options, plan and progress, [`portforward`]: a forward's
//!   target and its `:pf` row, [`metrics`]: the metrics a view asks for and what comes back.
//! - [`xray`]: the live owner tree of `:xray`, built from the informers' indexes.
//! - [`widgets`]: rendering; reads `&App` only, draws only visible rows: the frame (header,
//!   command line, footer) around the screen on top, which draws itself.
//!
//! - [`component`]: the seam every screen and dialog implements ([`component::Component`]:
//!   keys in, [`component::Outcome`] out, drawing from a read-only [`component::Ctx`]);
//!   [`view`]: the resource table's model; [`kit`]: the drawing kit. None imports `App`.
//!
//! # How to add a screen
//! 1. One new file `src/ui/screens/<name>.rs`: the screen's state (a struct) implementing
//!    [`component::Component`]: `on_action` (the key map's meaning; navigation included,
//!    `Ctx::page` rows a page) or `on_key` (raw keys, for text input), `draw`, `hints`, `title`;
//!    its name in [`screens::Screen::name`] (the breadcrumbs and the key table's places). It
//!    reads shared models through the `Ctx` and asks for everything else with an `Outcome`
//!    (effects, pop, a footer message, a write through the one write path, a
//!    [`component::Request`] for `App`). It imports neither `App` nor another screen
//!    (`tests/layering.rs`).
//! 2. One push: the command or key that opens it puts it on the stack. When opening it needs
//!    `App`'s models (its state built from several), or the runtime answers it later, that is
//!    `App`'s side: an `impl App` block in `src/ui/host/<name>.rs` (`host/xray.rs`,
//!    `host/history.rs`), which `App` calls by method and never names, so it stays out of
//!    `App`'s import circle. A `Request` variant is how the screen asks for it.
//! 3. One key row in `assets/keys.toml` (a [`keys::KeyAction`] variant; its place in
//!    [`keys::applies`] when it only applies there); it shows in help and the README's table.
//!
//! Screens still written as `impl App` blocks (listed in `tests/layering.rs`'s
//! `NOT_YET_COMPONENTS`) are routed by the matches of `screens/mod.rs` until converted; the
//! resource table, its k9s and operating keys are App's own code in `host/` (`table.rs`,
//! `k9s.rs`, `operations.rs`) until the table is a component.
//!
//! # The runtime's side of the protocol ([`crate::runtime`])
//! - Create the app with `App::new(AppConfig, KeyMap::load(user)?)`, `user` being the
//!   user's key file as `crate::runtime::user_file::read` found it
//!   and carry out the effects of `App::init()` (the first view and a namespaces view).
//! - `Effect::OpenResource { view, resource, namespace, drill }`: start or reuse the informer,
//!   send `Action::Store { view, store }` (the indexer, for label filters, the picker and
//!   drill-downs), then the rows: `Action::Rows` with `ObjectSummary::from_object` summaries of
//!   changed keys and the deleted keys (or `Action::Resync` with the complete list). With a
//!   `drill`, only objects the drill's index files under its values are sent (the app reads the
//!   initial ones from the index); `Effect::SetDrill` changes those values. `Effect::CloseView`:
//!   stop. At most a fixed number of `Rows` batches are sent and not yet taken by the frame loop
//!   (16); above it the feeds wait and their keys wait, deduplicated, in their workqueues.
//! - Only when changed — with every batch of `Action::Rows` (same frame), on every reflector
//!   transition, and once a second for rates and countdowns: `Action::InformerStats` (a row per informer, matched to
//!   views by `resource_label` and namespace; `synced` turns on change highlighting, `forbidden`
//!   shows the 403 message) and `Action::Connection` (unreachable → header countdown and STALE).
//! - `Effect::WatchMetrics { view, scope }`: poll metrics.k8s.io for the scope while the view is
//!   open (one poller per scope, shared; `Effect::CloseView` of its last view ends it), one
//!   `Action::Metrics` per poll or unavailability reason. The pulse's feeds are `OpenResource`
//!   views that are not tables: their rows go to the pulse model (the xray's feeds likewise: their
//!   `Action::Store` indexers and rows go to the xray model).
//! - `Action::Tap` with new event-tap entries; `Action::Discovery`, `Action::Contexts` at start
//!   and after `Effect::SwitchContext`.
//! - `Effect::OpenLogs`/`CloseLogs`/`SaveLogs`: `crate::runtime::log_feeds::LogFeeds::carry_out`; its
//!   batches arrive as `Action::Log` (at most one per view per frame), saves as
//!   `Action::LogSaved`.
//! - `Effect::FetchYaml`/`FetchDescribe` → `Action::Yaml`/`Action::Describe` with the same
//!   `request`; `Effect::Write` (never in read-only mode, destructive ones only after
//!   confirmation) → `operate::execute` → `Action::Notify` with the server's answer;
//!   `Effect::Drain` → a `drain::drain` task whose events come back as `Action::Drain`,
//!   `Effect::CancelDrain` cancels its token; `Effect::Quit` → restore the terminal and exit.
//! - Several clusters ([`fleet`]): `Effect::WatchCluster(context)` probes a member on its own
//!   client until `Effect::UnwatchCluster`, answering `Action::ClusterHealth` when its state
//!   changes, and makes it a runtime member (own connection, informers, access cache): views
//!   opened then are merged ([`fleet_table`]: `Action::MemberStore` per member, rows keyed
//!   `cluster\u{1f}key`); `Effect::OnCluster { cluster, effect }` carries an effect out on
//!   that member (the app wraps what a key aims at a merged row); `Effect::FetchDiff` GETs an
//!   object from each member → `Action::Diff`.
//! - Terminal input → `Action::Key`/`Mouse`/`Resize`; `Action::Tick(now_ms)` once a second (ages)
//!   and at `App::next_deadline_ms()` (highlights fading, deleted rows leaving, countdowns).
//!   Draw only when `App::take_dirty()` says so.

pub mod action;
pub mod app;
pub mod apply;
pub mod blame;
mod column_fit;
mod command;
pub mod component;
mod create;
mod cursor;
pub mod custom_columns;
mod dialogs;
pub mod drain;
mod error;
pub mod event_log;
mod feeds;
pub mod fleet;
pub mod fleet_diff;
pub mod fleet_table;
mod host;
pub mod k9s_state;
pub mod keys;
pub mod kit;
pub mod listing;
pub mod log_stream;
pub mod log_text;
pub mod log_view;
pub mod metrics;
pub mod nav_history;
pub mod node_shell;
pub mod operate;
mod outcome;
pub mod plugin_run;
mod plugin_start;
pub mod pod_containers;
pub mod portforward;
pub mod pulse;
pub mod replay;
pub mod resources;
pub mod scope;
pub mod screens;
pub(crate) mod style;
pub mod table;
pub mod theme;
pub mod time_travel;
pub mod usage;
pub mod user_config;
pub mod user_keys;
mod verify;
pub mod view;
pub mod widgets;
pub mod xray;

pub use action::{Action, Effect};
pub use app::{App, AppConfig};
pub use keys::KeyMap;

pub use error::Error;
