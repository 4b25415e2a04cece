//! The terminal dashboard: a pure state machine ([`app::App`]) fed with [`action::Action`]s,
//! answering with [`action::Effect`]s, and drawn by `impl Widget for &App` ([`widgets`]).
//!
//! - [`action`]: the messages in and out, and the view-model types the runtime builds.
//! - [`app`]: `App::update` — key handling, tables, filters, drill-down, dialogs.
//! - [`table`]: one resource table, sorted incrementally, with filters and a sticky selection.
//! - [`event_log`]: the bounded DeltaFIFO event log.
//! - [`keys`]: key bindings as data (`assets/keys.toml`, overridable by the user).
//! - [`resources`]: `:` command resolution and completion.
//! - [`widgets`]: rendering; reads `&App` only, draws only visible rows.

//!
//! # The runtime's side of the protocol
//! - Create the app with `App::new(AppConfig, KeyMap::load(keys::user_keys_path().as_deref())?)`
//!   and carry out the effects of `App::init()` (the first view and a namespaces view).
//! - `Effect::OpenResource { view, resource, namespace }`: start or reuse the informer, send
//!   `Action::Store { view, store }` (the indexer, for label filters and the picker), then the
//!   rows: `Action::Rows` with `ObjectSummary::from_object` summaries of changed keys and the
//!   deleted keys (or `Action::Resync` with the complete list). `Effect::CloseView`: stop.
//! - Once a second (only when changed): `Action::InformerStats` (a row per informer, matched to
//!   views by `resource_label` and namespace; `synced` turns on change highlighting, `forbidden`
//!   shows the 403 message) and `Action::Connection` (unreachable → header countdown and STALE).
//! - `Action::Tap` with new event-tap entries; `Action::Discovery`, `Action::Contexts` at start
//!   and after `Effect::SwitchContext`.
//! - `Effect::FetchYaml`/`FetchDescribe` → `Action::Yaml`/`Action::Describe` with the same
//!   `request`; `Effect::Delete` (only ever emitted after confirmation, never in read-only mode)
//!   → `Action::Notify` with the outcome; `Effect::Quit` → restore the terminal and exit.
//! - Terminal input → `Action::Key`/`Mouse`/`Resize`; `Action::Tick(now_ms)` once a second (ages)
//!   and at `App::next_deadline_ms()` (highlights fading, deleted rows leaving, countdowns).
//!   Draw only when `App::take_dirty()` says so.

pub mod action;
pub mod app;
pub mod event_log;
pub mod keys;
pub mod resources;
pub mod runtime;
pub mod table;
pub mod terminal;
pub mod widgets;

pub use action::{Action, Effect};
pub use app::{App, AppConfig};
pub use keys::KeyMap;

/// Errors of the UI layer.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A key-binding file could not be read or parsed.
    #[error("key bindings in {origin}: {message}")]
    KeyMap { origin: String, message: String },
}
