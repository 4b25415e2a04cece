//! The event log's keys where `App` takes them (the pane under a table), and the history the
//! [full-screen log](crate::ui::screens::events) opens.

use crate::ui::action::Effect;
use crate::ui::app::{App, Screen};
use crate::ui::keys::KeyAction;

impl App {
    /// Keys of the event log pane under a table (the full screen takes its own): pause and
    /// filters; false for any other.
    pub(crate) fn on_events_key(&mut self, action: KeyAction) -> bool {
        match action {
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
            _ => return false,
        }
        true
    }

    pub(crate) fn events_visible(&self) -> bool {
        self.show_events_pane || matches!(self.current_screen(), Some(Screen::Events(_)))
    }

    /// The history of the object `key` of `resource`, selecting `rv`; a fleet member's
    /// (`cluster`): that member's history.
    pub(crate) fn open_history_on(
        &mut self,
        resource: &str,
        key: &str,
        rv: Option<String>,
        cluster: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let start = fx.len();
        self.open_history(resource, key, rv, fx);
        if let Some(cluster) = cluster {
            for e in &mut fx[start..] {
                let inner = std::mem::replace(e, Effect::Quit);
                *e = Effect::OnCluster {
                    cluster: cluster.clone(),
                    effect: Box::new(inner),
                };
            }
        }
    }
}
