//! The screens of the navigation stack and the dialogs over them, one component per file.
//!
//! A screen's file holds its state (the [`Screen`] variant's payload, or the [`Mode`] variant's
//! for a dialog), its key handling (`on_*_key`, `nav_*`, as `impl App` blocks: a screen reads
//! and writes the shared parts of [`App`] — views, informer rows, the event ring, the footer
//! message) and its drawing (a pure function of `&App`). This module routes: `on_key` and
//! `nav` send a key to the screen on top, `draw`, `header_lines` and `hints` ask it how
//! to look.
//!
//! - [`table`]: a resource table (the informer-fed rows), its filters, sort and drill-down.
//! - [`text`]: YAML / describe of one object.
//! - [`events`]: the DeltaFIFO event log, full screen and as the pane under a table.
//! - [`informers`]: the informer panel.
//! - [`pulse`]: the cluster pulse (tiles, usage, sparklines, restarts, warnings).
//! - [`usage`]: the CPU/memory columns the pods and nodes tables join from metrics.
//! - [`logs`]: container logs of a pod or of a workload's pods (a [`LogView`](super::log_view::LogView) fed by streams).
//! - [`help`], [`confirm`], [`labels`], [`scale`], [`drain`]: dialogs (key help, confirm a
//!   destructive write, label picker, scale, drain progress).
//! - [`history`]: one object's recorded versions, [`history_diff`]: a diff of two of them,
//!   [`changes`]: the latest changes across the cluster.
//! - [`portforwards`]: the active port-forwards (`:pf`); [`forward_dialog`]: start one.
//! - [`xray`]: the live owner tree (`:xray`).
//! - [`operations`]: the table's operating keys (delete, kill, scale, restart, cordon, drain).

pub mod aliases;
pub mod apply_confirm;
pub mod changes;
pub mod confirm;
pub mod container_picker;
pub mod containers;
pub mod contexts;
pub mod drain;
pub mod events;
pub mod forward_dialog;
pub mod help;
pub mod history;
pub mod history_diff;
pub mod informers;
pub mod k9s;
pub mod labels;
pub mod logs;
pub mod node_actions;
pub mod operations;
pub mod plugin_inputs;
pub mod portforwards;
pub mod pulse;
pub mod scale;
pub mod set_image;
pub mod table;
pub mod text;
pub mod usage;
pub mod xray;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use crossterm::event::KeyEvent;

use super::action::{Effect, ViewId};
use super::app::{App, Mode};
use super::keys::KeyAction;
use logs::LogScreen;
use text::TextView;

/// One screen of the navigation stack.
#[derive(Debug, Clone)]
pub enum Screen {
    Table(ViewId),
    Events,
    Informers,
    Text(TextView),
    Pulse,
    Logs(Box<LogScreen>),
    PortForwards(portforwards::ForwardsView),
    Xray(Box<xray::XrayScreen>),
    History(Box<history::HistoryView>),
    HistoryDiff(Box<history_diff::DiffView>),
    Changes(Box<changes::ChangesView>),
    /// `ctrl-a`: every resource and the names that open it.
    Aliases(aliases::AliasesView),
    /// `:ctx`: the kubeconfig's contexts.
    Contexts(contexts::ContextsView),
    /// Enter on a pod: its containers.
    Containers(Box<containers::ContainersView>),
}

/// A key before the key map is asked (normal mode): a screen with its own key table (the log
/// view) takes it here; true when taken.
pub(crate) fn on_raw_key(app: &mut App, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    match app.current_screen() {
        Some(Screen::Logs(_)) => app.on_logs_key(key, fx),
        Some(Screen::Text(_)) => app.on_text_raw_key(key),
        _ => false,
    }
}

/// A key that is not global (quit, help, command line, back, moves, the event pane): the screen
/// on top takes it first; what it does not take goes to the resource table under it (sorting,
/// filtering, YAML of the selection), then to the event pane.
pub(crate) fn on_key(app: &mut App, action: KeyAction, fx: &mut Vec<Effect>) {
    let taken = match app.current_screen() {
        Some(Screen::Text(_)) => app.on_text_key(action),
        Some(Screen::Events) => app.on_events_key(action) || app.history_of_event(action, fx),
        Some(Screen::Informers) => app.on_informers_key(action, fx),
        // The pulse takes Enter; the rest is not for a table under it.
        Some(Screen::Pulse) => {
            app.on_pulse_key(action, fx);
            return;
        }
        // What the log view's key map does not bind does nothing there (no table beneath).
        Some(Screen::Logs(_)) => true,
        Some(Screen::PortForwards(_)) => app.on_forwards_key(action, fx),
        // The tree takes its keys; table keys do nothing there.
        Some(Screen::Xray(_)) => {
            app.on_xray_key(action, fx);
            return;
        }
        Some(Screen::History(_)) => app.on_history_key(action, fx),
        // Nothing beneath takes keys (Back is global).
        Some(Screen::HistoryDiff(_)) => true,
        Some(Screen::Changes(_)) => app.on_changes_key(action, fx),
        Some(Screen::Aliases(_)) => app.on_aliases_key(action, fx),
        Some(Screen::Contexts(_)) => app.on_contexts_key(action, fx),
        Some(Screen::Containers(_)) => containers::on_key(app, action, fx),
        Some(Screen::Table(_)) | None => false,
    };
    if !taken && !app.on_table_key(action, fx) {
        app.on_events_key(action);
    }
}

/// Up, down, page, top, bottom (`n` rows) on the screen on top.
pub(crate) fn nav(app: &mut App, action: KeyAction, n: usize) {
    match app.current_screen() {
        Some(Screen::Text(_)) => app.nav_text(action, n),
        Some(Screen::Events) => app.nav_events(action, n),
        Some(Screen::Informers) => app.nav_informers(action, n),
        Some(Screen::Pulse) => app.nav_pulse(action),
        // The log view scrolls with its own keys.
        Some(Screen::Logs(_)) => {}
        Some(Screen::PortForwards(_)) => app.nav_forwards(action, n),
        Some(Screen::Xray(_)) => app.nav_xray(action, n),
        Some(Screen::History(_)) => app.nav_history(action, n),
        Some(Screen::HistoryDiff(_)) => app.nav_history_diff(action, n),
        Some(Screen::Changes(_)) => app.nav_changes(action, n),
        Some(Screen::Aliases(_)) => app.nav_aliases(action, n),
        Some(Screen::Contexts(_)) => app.nav_contexts(action, n),
        Some(Screen::Containers(_)) => {
            let page = app.table_height();
            if let Some(Screen::Containers(v)) = app.stack.last_mut() {
                v.nav(action, n, page);
            }
        }
        Some(Screen::Table(id)) => {
            let id = *id;
            app.nav_table(id, action, n);
        }
        None => {}
    }
}

/// Draw the screen on top into the body area.
pub(crate) fn draw(app: &App, screen: Option<&Screen>, area: Rect, buf: &mut Buffer) {
    match screen {
        Some(Screen::Table(id)) => match app.views.get(id) {
            Some(v) => app.render_table(v, area, buf),
            None => Paragraph::new("view closed").render(area, buf),
        },
        Some(Screen::Events) => events::render_events(
            &app.events,
            app.fleet
                .is_fleet()
                .then_some(app.connection.context.as_str()),
            app.listing_note().as_deref(),
            area,
            buf,
            true,
        ),
        Some(Screen::Informers) => app.render_informers(area, buf),
        Some(Screen::Text(t)) => text::render_text(t, area, buf),
        Some(Screen::Pulse) => app.render_pulse(area, buf),
        Some(Screen::Logs(l)) => app.render_logs(l, area, buf),
        Some(Screen::PortForwards(_)) => app.render_forwards(area, buf),
        Some(Screen::Xray(x)) => app.render_xray(x, area, buf),
        Some(Screen::History(h)) => history::render_history(
            h,
            app.theme.health(crate::render::Health::Warning),
            area,
            buf,
        ),
        Some(Screen::HistoryDiff(d)) => history_diff::render_history_diff(d, area, buf),
        Some(Screen::Changes(c)) => changes::render_changes(c, area, buf),
        Some(Screen::Aliases(a)) => app.render_aliases(a, area, buf),
        Some(Screen::Contexts(c)) => app.render_contexts(c, area, buf),
        Some(Screen::Containers(c)) => c.draw(
            &app.theme,
            app.now_ms.div_euclid(1000),
            &app.forwards,
            area,
            buf,
        ),
        None => Paragraph::new("starting…").render(area, buf),
    }
}

/// Draw the dialog the mode has open, over everything.
pub(crate) fn draw_dialog(app: &App, area: Rect, buf: &mut Buffer) {
    match &app.mode {
        Mode::Help { scroll } => app.render_help(*scroll, area, buf),
        Mode::Confirm(c) => confirm::render_confirm(c, area, buf),
        Mode::ConfirmApply(d) => apply_confirm::render_apply_confirm(d, area, buf),
        Mode::Scale(d) => scale::render_scale(d, area, buf),
        Mode::SetImage(d) => set_image::render_set_image(d, area, buf),
        Mode::Drain => app.render_drain(area, buf),
        Mode::Forward(d) => forward_dialog::render_forward_dialog(d, area, buf),
        Mode::Containers(p) => container_picker::render_container_picker(p, area, buf),
        Mode::NodeActions(m) => node_actions::render_node_actions(m, area, buf),
        Mode::Labels(p) => labels::render_picker(p, area, buf),
        Mode::PluginInputs(d) => d.render(area, buf),
        _ => {}
    }
}

/// Header lines 2 and 3 of a screen that describes itself there; `None`: the informer and
/// filter lines of the current resource table.
pub(crate) fn header_lines<'a>(
    app: &'a App,
    screen: Option<&Screen>,
    label: Style,
    value: Style,
) -> Option<[Line<'a>; 2]> {
    match screen {
        Some(Screen::Events) => Some(app.events_header(label, value)),
        Some(Screen::Informers) => Some(app.informers_header(label, value)),
        Some(Screen::Pulse) => Some(app.pulse_header(label, value)),
        Some(Screen::Logs(l)) => Some(app.logs_header(l, label, value)),
        Some(Screen::Xray(x)) => Some(app.xray_header(x, label, value)),
        Some(Screen::History(h)) => Some(app.history_header(h, label, value)),
        Some(Screen::Changes(c)) => Some(app.changes_header(c, label, value)),
        Some(Screen::HistoryDiff(d)) => Some(history_diff::diff_header(d, label, value)),
        Some(Screen::Contexts(c)) => Some(app.contexts_header(c, label, value)),
        Some(Screen::Containers(c)) => Some(c.header(label, value)),
        _ => None,
    }
}

/// The footer's key hints for a screen; `None`: the key map's hinted bindings.
pub(crate) fn hints(screen: Option<&Screen>) -> Option<Vec<KeyAction>> {
    match screen {
        Some(Screen::Events) => Some(events::HINTS.to_vec()),
        Some(Screen::Text(t)) => Some(text::hints(t)),
        Some(Screen::Informers) => Some(informers::HINTS.to_vec()),
        Some(Screen::Pulse) => Some(pulse::HINTS.to_vec()),
        Some(Screen::Logs(_)) => Some(logs::HINTS.to_vec()),
        Some(Screen::PortForwards(_)) => Some(portforwards::HINTS.to_vec()),
        Some(Screen::Xray(_)) => Some(xray::HINTS.to_vec()),
        Some(Screen::History(_)) => Some(history::HINTS.to_vec()),
        Some(Screen::HistoryDiff(_)) => Some(history_diff::HINTS.to_vec()),
        Some(Screen::Changes(_)) => Some(changes::HINTS.to_vec()),
        Some(Screen::Aliases(_)) => Some(aliases::HINTS.to_vec()),
        Some(Screen::Contexts(_)) => Some(contexts::HINTS.to_vec()),
        Some(Screen::Containers(_)) => Some(containers::HINTS.to_vec()),
        _ => None,
    }
}

/// A list cursor after a navigation key: `n` rows up or down (clamped to `len`), top or bottom;
/// other actions leave it where it is.
pub(crate) fn moved_cursor(action: KeyAction, n: usize, cursor: usize, len: usize) -> usize {
    let last = len.saturating_sub(1);
    match action {
        KeyAction::Up | KeyAction::PageUp => cursor.saturating_sub(n),
        KeyAction::Down | KeyAction::PageDown => (cursor + n).min(last),
        KeyAction::Top => 0,
        KeyAction::Bottom => last,
        _ => cursor,
    }
}

/// The first visible row that keeps `cursor` in a window of `page` rows starting at `scroll`.
pub(crate) fn scrolled_to(cursor: usize, scroll: usize, page: usize) -> usize {
    if cursor < scroll {
        cursor
    } else if cursor >= scroll + page {
        cursor + 1 - page
    } else {
        scroll
    }
}
