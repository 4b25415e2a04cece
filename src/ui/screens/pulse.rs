//! The pulse screen (`:pulse`, `P`): the component around the pulse model
//! ([`crate::ui::pulse::Pulse`]: counts kept incrementally, sparklines, top restarts, warnings).
//!
//! Opening it asks the runtime for one feed per kind the pulse follows (pods, deployments,
//! nodes, jobs, events: `Effect::OpenResource` with view ids that are not tables; the runtime
//! shares the informers with the views that use them) and for node metrics
//! (`Effect::WatchMetrics`); closing it closes those feeds (`Effect::CloseView`), which ends
//! the metrics poller when no nodes view uses it. The rows of those feeds go to the model, not
//! to a table. Rows do not redraw by themselves: the once-a-second tick redraws the pulse (its
//! sparklines move each second), so a churning cluster costs at most one pulse frame a second
//! plus the frames of keys.
//!
//! The screen is a [component](crate::ui::component); its state lives in `App::pulse` (the
//! feeds' rows go there while other screens are on top) and `App`'s side (opening it, its
//! feeds, closing them) is `ui/host/pulse.rs`.

use std::collections::HashMap;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::ui::action::ViewId;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::keys::KeyAction;
use crate::ui::metrics::MetricsScope;
use crate::ui::pulse::{Pulse, PulseKind};
use crate::ui::resources::resolve;

/// The footer's hints on the pulse.
pub(crate) const HINTS: [KeyAction; 5] = [
    KeyAction::Down,
    KeyAction::Up,
    KeyAction::Enter,
    KeyAction::Back,
    KeyAction::Help,
];

/// The pulse screen's state: the model and the feeds it asked for.
#[derive(Debug, Clone, Default)]
pub struct PulseScreen {
    pub pulse: Pulse,
    /// Feed view id → the kind its rows are.
    pub feeds: HashMap<ViewId, PulseKind>,
    /// The namespace the feeds are scoped to (`None`: all).
    pub namespace: Option<String>,
}

impl PulseScreen {
    /// The feed of `kind`, if it was opened.
    pub fn feed_of(&self, kind: PulseKind) -> Option<ViewId> {
        self.feeds
            .iter()
            .find(|(_, k)| **k == kind)
            .map(|(id, _)| *id)
    }
}

impl Component for PulseScreen {
    /// Enter opens the selected tile's list filtered to what is wrong (`ctrl-z`'s faulty rows;
    /// the events tile: Warnings). No other key goes to a table under it.
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        if action != KeyAction::Enter {
            return Outcome::Consumed;
        }
        let open = self.pulse.open_selected();
        let Some(resource) = resolve(ctx.resources, open.resource).cloned() else {
            return Outcome::Error(format!("{} is not served here", open.resource));
        };
        Outcome::Ask(Request::OpenFiltered {
            resource: Box::new(resource),
            filter: open.filter,
            faults: open.faults,
        })
    }

    /// Up/down move between the tiles.
    fn on_nav(&mut self, action: KeyAction, _n: usize, _ctx: &Ctx) {
        match action {
            KeyAction::Up | KeyAction::PageUp | KeyAction::Top => self.pulse.select_prev(),
            _ => self.pulse.select_next(),
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        self.pulse.draw(ctx.now_ms.div_euclid(1000), area, buf);
    }

    /// Header lines: the scope and the metrics state.
    fn header(&self, ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        let scope = self
            .namespace
            .clone()
            .unwrap_or_else(|| "all namespaces".into());
        let l2 = Line::from(vec![
            Span::styled(" Pulse: ", label),
            Span::styled(scope, value),
            Span::raw(" │ j/k tile, enter opens what is wrong, P closes"),
        ]);
        let l3 = Line::from(vec![
            Span::styled(" Metrics: ", label),
            Span::raw(match ctx.metrics_unavailable {
                Some(why) => why.to_string(),
                None if ctx.metrics.contains_key(&MetricsScope::Nodes) => {
                    "metrics.k8s.io (node usage)".to_string()
                }
                None => "waiting for the first poll".to_string(),
            }),
        ]);
        Some([l2, l3])
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}
