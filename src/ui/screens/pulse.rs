//! The pulse screen (`:pulse`, `P`): the component around the pulse model
//! ([`crate::ui::pulse::Pulse`]: counts kept incrementally, sparklines, top restarts, warnings).
//!
//! Opening it asks the runtime for one feed per kind the pulse follows (pods, deployments,
//! nodes, jobs, events: [`Effect::OpenResource`] with view ids that are not tables; the runtime
//! shares the informers with the views that use them) and for node metrics
//! ([`Effect::WatchMetrics`]); closing it closes those feeds ([`Effect::CloseView`]), which ends
//! the metrics poller when no nodes view uses it. The rows of those feeds go to the model, not
//! to a table. Rows do not redraw by themselves: the once-a-second tick redraws the pulse (its
//! sparklines move each second), so a churning cluster costs at most one pulse frame a second
//! plus the frames of keys.

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::Screen;
use crate::ui::action::{Effect, InformerRow, ObjectSummary, ViewId};
use crate::ui::app::App;
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

impl App {
    /// Show the pulse: open it (its feeds and node metrics), or go back to it if it is on the
    /// stack already (closing the screens above it).
    pub(crate) fn open_pulse(&mut self, fx: &mut Vec<Effect>) {
        if self.stack.iter().any(|s| matches!(s, Screen::Pulse)) {
            while !matches!(self.current_screen(), Some(Screen::Pulse)) && self.stack.len() > 1 {
                self.pop_screen(fx);
            }
            self.dirty = true;
            return;
        }
        let mut screen = PulseScreen {
            namespace: self.namespace.clone(),
            ..PulseScreen::default()
        };
        for kind in PulseKind::ALL {
            let Some(resource) = resolve(&self.resources, kind.resource()).cloned() else {
                continue;
            };
            let view = self.next_view;
            self.next_view += 1;
            let namespace = self.scope_for(&resource);
            // With several clusters the feed is merged (every cluster's objects, keyed under
            // it): the tiles sum them and the per-cluster strip breaks them down.
            fx.push(Effect::OpenResource {
                view,
                resource,
                namespace,
                drill: None,
            });
            if kind == PulseKind::Nodes {
                fx.push(Effect::WatchMetrics {
                    view,
                    scope: MetricsScope::Nodes,
                });
            }
            screen.feeds.insert(view, kind);
        }
        screen.pulse.rates = self.rates.clone();
        if self.fleet.is_fleet() {
            screen.pulse.set_current_cluster(&self.connection.context);
        }
        self.pulse = Some(Box::new(screen));
        self.stack.push(Screen::Pulse);
        self.dirty = true;
    }

    /// The pulse left the stack: close its feeds.
    pub(crate) fn close_pulse(&mut self, fx: &mut Vec<Effect>) {
        if let Some(p) = self.pulse.take() {
            let mut ids: Vec<ViewId> = p.feeds.keys().copied().collect();
            ids.sort_unstable();
            fx.extend(ids.into_iter().map(|view| Effect::CloseView { view }));
        }
    }

    /// Rows of a pulse feed go to the model; false when `view` is not one.
    pub(crate) fn pulse_rows(
        &mut self,
        view: ViewId,
        upserts: &[ObjectSummary],
        deletes: &[Arc<str>],
    ) -> bool {
        let Some(p) = self.pulse.as_mut() else {
            return false;
        };
        let Some(kind) = p.feeds.get(&view).copied() else {
            return false;
        };
        p.pulse.apply(kind, upserts, deletes);
        true
    }

    /// The complete content of a pulse feed; false when `view` is not one.
    pub(crate) fn pulse_resync(&mut self, view: ViewId, rows: &[ObjectSummary]) -> bool {
        let Some(p) = self.pulse.as_mut() else {
            return false;
        };
        let Some(kind) = p.feeds.get(&view).copied() else {
            return false;
        };
        p.pulse.resync(kind, rows);
        true
    }

    /// A sparkline sample per informer, at most one a second (the deltas of skipped stats add
    /// up in the next sample), kept whether the pulse is open or not.
    pub(crate) fn pulse_stats(&mut self, rows: &[InformerRow]) {
        if self.rates.record(rows, self.now_ms.div_euclid(1000))
            && let Some(p) = self.pulse.as_mut()
        {
            p.pulse.rates = self.rates.clone();
        }
    }

    /// Enter opens the selected tile's list filtered to what is wrong (`ctrl-z`'s faulty rows;
    /// the events tile: Warnings).
    pub(crate) fn on_pulse_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        match action {
            KeyAction::Enter => {
                let Some(open) = self.pulse.as_ref().map(|p| p.pulse.open_selected()) else {
                    return true;
                };
                let Some(resource) = resolve(&self.resources, open.resource).cloned() else {
                    self.error(format!("{} is not served here", open.resource));
                    return true;
                };
                let ns = self.scope_for(&resource);
                let id = self.open_view(resource, ns, fx);
                self.stack.push(Screen::Table(id));
                if let Some(f) = open.filter {
                    self.set_text_filter(id, &f);
                }
                if open.faults
                    && let Some(v) = self.views.get_mut(&id)
                {
                    v.table.filters.faults = true;
                    let cands = Self::label_candidates(v);
                    v.table.refilter(cands);
                }
                self.scroll_current();
                true
            }
            _ => false,
        }
    }

    /// Up/down move between the tiles.
    pub(crate) fn nav_pulse(&mut self, action: KeyAction) {
        if let Some(p) = self.pulse.as_mut() {
            match action {
                KeyAction::Up | KeyAction::PageUp | KeyAction::Top => p.pulse.select_prev(),
                _ => p.pulse.select_next(),
            }
        }
    }

    pub(crate) fn render_pulse(&self, area: Rect, buf: &mut Buffer) {
        if let Some(p) = &self.pulse {
            p.pulse.draw(self.now_ms.div_euclid(1000), area, buf);
        }
    }

    /// Header lines: the scope and the metrics state.
    pub(crate) fn pulse_header(&self, label: Style, value: Style) -> [Line<'_>; 2] {
        let scope = self
            .pulse
            .as_ref()
            .and_then(|p| p.namespace.clone())
            .unwrap_or_else(|| "all namespaces".into());
        let l2 = Line::from(vec![
            Span::styled(" Pulse: ", label),
            Span::styled(scope, value),
            Span::raw(" │ j/k tile, enter opens what is wrong, P closes"),
        ]);
        let l3 = Line::from(vec![
            Span::styled(" Metrics: ", label),
            Span::raw(match &self.metrics_unavailable {
                Some(why) => why.clone(),
                None if self.metrics.contains_key(&MetricsScope::Nodes) => {
                    "metrics.k8s.io (node usage)".to_string()
                }
                None => "waiting for the first poll".to_string(),
            }),
        ]);
        [l2, l3]
    }
}
