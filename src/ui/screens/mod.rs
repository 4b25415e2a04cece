//! The screens of the navigation stack and the dialogs over them, one component per file.
//!
//! A dialog's file holds its state (the [`Mode`] variant's payload) as a
//! [`super::component::Component`]: its keys answer an `Outcome` that `App` runs
//! (`ui/outcome.rs`), it draws from a read-only `Ctx`, and it imports neither `App` nor another
//! screen; `App`'s side of opening it and feeding it the runtime's answers is `ui/dialogs.rs`.
//! The screens not yet converted (`tests/layering.rs`'s `NOT_YET_COMPONENTS`) are still
//! `impl App` blocks that read and write `App`'s shared parts. This module routes: `on_key` and
//! `nav` send a key to the screen on top, `draw`, `header_lines` and `hints` ask it how to look.
//!
//! - [`table`]: a resource table's model (the screen itself, its filters, sort and drill-down, is App's code in `ui/host/table.rs`).
//! - [`text`]: YAML / describe of one object.
//! - [`events`]: the DeltaFIFO event log, full screen and as the pane under a table.
//! - [`informers`]: the informer panel.
//! - [`pulse`]: the cluster pulse (tiles, usage, sparklines, restarts, warnings).
//! - [`logs`]: container logs of a pod or of a workload's pods (a [`LogView`](super::log_view::LogView) fed by streams).
//! - [`help`], [`confirm`], [`labels`], [`scale`], [`drain`]: dialogs (key help, confirm a
//!   destructive write, label picker, scale, drain progress).
//! - [`history`]: one object's recorded versions, [`history_diff`]: a diff of two of them,
//!   [`changes`]: the latest changes across the cluster.
//! - [`portforwards`]: the active port-forwards (`:pf`); [`forward_dialog`]: start one.
//! - [`xray`]: the live owner tree (`:xray`).
//! - the table's operating keys (delete, kill, scale, restart, cordon, drain): `ui/host/operations.rs`.
//! - [`prompt`]: the `:` command line and the `/` filter line over the screen on top.

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
pub mod helm;
pub mod help;
pub mod history;
pub mod history_diff;
pub mod informers;
pub mod k9s;
pub mod labels;
pub mod logs;
pub mod node_actions;
pub mod plugin_inputs;
pub mod portforwards;
pub mod prompt;
pub mod pulse;
pub mod scale;
pub mod set_image;
pub mod table;
pub mod text;
pub mod xray;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use crossterm::event::KeyEvent;

use super::action::{Effect, ViewId};
use super::app::{App, Mode};
use super::component::{Component, Ctx, Outcome};
use super::keys::KeyAction;
use logs::LogScreen;
use text::TextView;

/// One screen of the navigation stack.
#[derive(Debug, Clone)]
pub enum Screen {
    Table(ViewId),
    Events(events::EventsScreen),
    Informers(informers::InformersScreen),
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
    /// `:helm`: the releases, or one release's revisions.
    Helm(Box<helm::HelmScreen>),
    /// Enter on a pod: its containers.
    Containers(Box<containers::ContainersView>),
}

impl Screen {
    /// The screen's one name: its breadcrumb (with a detail where it has one: a table's
    /// resource, a release, a pod) and the place a key row names (`keys::Place::Screen`).
    pub fn name(&self) -> &'static str {
        match self {
            Screen::Table(_) => "table",
            Screen::Events(_) => "deltas",
            Screen::Informers(_) => "informers",
            Screen::Text(t) => match t.kind {
                text::TextKind::Yaml => "yaml",
                text::TextKind::Describe => "describe",
                text::TextKind::Diff => "diff",
                text::TextKind::Blame => "blame",
            },
            Screen::Pulse => "pulse",
            Screen::Logs(_) => "logs",
            Screen::PortForwards(_) => "portforwards",
            Screen::Xray(_) => "xray",
            Screen::History(_) => "history",
            Screen::HistoryDiff(_) => "diff",
            Screen::Changes(_) => "changes",
            Screen::Aliases(_) => "aliases",
            Screen::Contexts(_) => "contexts",
            Screen::Helm(_) => "helm",
            Screen::Containers(_) => "containers",
        }
    }

    /// The screen as a [`Component`] (owning its state, answering an [`Outcome`]), for those
    /// converted; `None`: one `App` still drives through its `impl App` block.
    pub(crate) fn component(&self) -> Option<&dyn Component> {
        match self {
            Screen::Text(t) => Some(t),
            Screen::Informers(s) => Some(s),
            Screen::Events(s) => Some(s),
            Screen::History(s) => Some(s.as_ref()),
            Screen::HistoryDiff(s) => Some(s.as_ref()),
            Screen::Changes(s) => Some(s.as_ref()),
            Screen::Aliases(s) => Some(s),
            Screen::Contexts(s) => Some(s),
            Screen::PortForwards(s) => Some(s),
            Screen::Xray(s) => Some(s.as_ref()),
            Screen::Containers(s) => Some(s.as_ref()),
            Screen::Helm(s) => Some(s.as_ref()),
            Screen::Logs(s) => Some(s.as_ref()),
            _ => None,
        }
    }

    fn component_mut(&mut self) -> Option<&mut dyn Component> {
        match self {
            Screen::Text(t) => Some(t),
            Screen::Informers(s) => Some(s),
            Screen::Events(s) => Some(s),
            Screen::History(s) => Some(s.as_mut()),
            Screen::HistoryDiff(s) => Some(s.as_mut()),
            Screen::Changes(s) => Some(s.as_mut()),
            Screen::Aliases(s) => Some(s),
            Screen::Contexts(s) => Some(s),
            Screen::PortForwards(s) => Some(s),
            Screen::Xray(s) => Some(s.as_mut()),
            Screen::Containers(s) => Some(s.as_mut()),
            Screen::Helm(s) => Some(s.as_mut()),
            Screen::Logs(s) => Some(s.as_mut()),
            _ => None,
        }
    }
}

/// The component a screen is: its own, or for the pulse the state `App` keeps (its feeds'
/// rows arrive while other screens are on top).
fn component_of<'a>(app: &'a App, screen: Option<&'a Screen>) -> Option<&'a dyn Component> {
    match screen? {
        Screen::Pulse => app.pulse.as_deref().map(|p| p as &dyn Component),
        s => s.component(),
    }
}

/// Run `f` on the screen on top if it is a component: it leaves the stack while it runs (with
/// the `Ctx` App lends), goes back, then App carries out its outcome. `None`: the screen on top
/// is not a component; else whether it took the key.
fn on_top(
    app: &mut App,
    fx: &mut Vec<Effect>,
    f: impl FnOnce(&mut dyn Component, &Ctx) -> Outcome,
) -> Option<bool> {
    if matches!(app.current_screen(), Some(Screen::Pulse)) {
        // The pulse takes every key (nothing goes to a table under it).
        let Some(mut p) = app.pulse.take() else {
            return Some(true);
        };
        let out = f(p.as_mut(), &app.ctx());
        app.pulse = Some(p);
        let taken = out.consumed();
        app.run_outcome(out, fx);
        return Some(taken);
    }
    let mut top = app.stack.pop()?;
    let out = match top.component_mut() {
        Some(c) => f(c, &app.ctx()),
        None => {
            app.stack.push(top);
            return None;
        }
    };
    app.stack.push(top);
    let taken = out.consumed();
    app.run_outcome(out, fx);
    Some(taken)
}

/// A key's meaning for the screen on top when it is a component (a dialog runs one over it:
/// the xray's node menu); false when not taken or not a component.
pub(crate) fn on_top_action(app: &mut App, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
    on_top(app, fx, |c, ctx| c.on_action(action, ctx)).unwrap_or(false)
}

/// A key before the key map is asked (normal mode): a screen with its own key table (the log
/// view) takes it here; true when taken.
pub(crate) fn on_raw_key(app: &mut App, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
    on_top(app, fx, |c, ctx| c.on_key(key, ctx)).unwrap_or(false)
}

/// A key that is not global (quit, help, command line, back, moves, the event pane): the screen
/// on top takes it first; what it does not take goes to the resource table under it (sorting,
/// filtering, YAML of the selection), then to the event pane.
pub(crate) fn on_key(app: &mut App, action: KeyAction, fx: &mut Vec<Effect>) {
    // A table, nothing, or a component that did not take it.
    let taken = on_top(app, fx, |c, ctx| c.on_action(action, ctx)).unwrap_or(false);
    if !taken && !app.on_table_key(action, fx) {
        app.on_events_key(action);
    }
}

/// Up, down, page, top, bottom (`n` rows) on the screen on top.
pub(crate) fn nav(app: &mut App, action: KeyAction, n: usize) {
    let mut fx = Vec::new();
    if on_top(app, &mut fx, |c, ctx| {
        c.on_nav(action, n, ctx);
        Outcome::Consumed
    })
    .is_some()
    {
        return;
    }
    if let Some(Screen::Table(id)) = app.current_screen() {
        let id = *id;
        app.nav_table(id, action, n);
    }
}

/// Draw the screen on top into the body area.
pub(crate) fn draw(app: &App, screen: Option<&Screen>, area: Rect, buf: &mut Buffer) {
    if let Some(c) = component_of(app, screen) {
        return c.draw(area, buf, &app.ctx());
    }
    match screen {
        Some(Screen::Table(id)) => match app.views.get(id) {
            Some(v) => app.render_table(v, area, buf),
            None => Paragraph::new("view closed").render(area, buf),
        },
        None => Paragraph::new("starting…").render(area, buf),
        // A component (drawn above).
        Some(_) => {}
    }
}

/// Draw the dialog the mode has open, over everything.
pub(crate) fn draw_dialog(app: &App, area: Rect, buf: &mut Buffer) {
    match &app.mode {
        Mode::Help { scroll } => app.help_dialog(*scroll).draw(area, buf, &app.ctx()),
        Mode::Confirm(c) => c.draw(area, buf, &app.ctx()),
        Mode::ConfirmApply(d) => d.draw(area, buf, &app.ctx()),
        Mode::Scale(d) => d.draw(area, buf, &app.ctx()),
        Mode::SetImage(d) => d.draw(area, buf, &app.ctx()),
        Mode::Drain => {
            if let Some(d) = &app.drain {
                d.draw(area, buf, &app.ctx())
            }
        }
        Mode::Forward(d) => d.draw(area, buf, &app.ctx()),
        Mode::Containers(p) => p.draw(area, buf, &app.ctx()),
        Mode::NodeActions(m) => m.draw(area, buf, &app.ctx()),
        Mode::Labels(p) => p.draw(area, buf, &app.ctx()),
        Mode::PluginInputs(d) => d.draw(area, buf, &app.ctx()),
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
    component_of(app, screen).and_then(|c| c.header(&app.ctx(), label, value))
}

/// The footer's key hints for a screen; `None`: the key map's hinted bindings.
pub(crate) fn hints(app: &App, screen: Option<&Screen>) -> Option<Vec<KeyAction>> {
    component_of(app, screen).and_then(|c| c.hints(&app.ctx()))
}
