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

pub mod action;
pub mod app;
pub mod compat;
pub mod event_log;
pub mod keys;
pub mod resources;
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
