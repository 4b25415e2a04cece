//! Opening the [timeline](crate::ui::screens::history) of one object, asking for it again
//! every second, and handing it the runtime's answers.

use crate::informer::history::{HistoryStats, Timeline, TimelineEvent};
use crate::ui::action::Effect;
use crate::ui::app::{App, Screen};
use crate::ui::screens::history::HistoryView;

impl App {
    /// Open the history of `key` of `resource` (fetched now, refreshed every second).
    pub(crate) fn open_history(
        &mut self,
        resource: &str,
        key: &str,
        select_rv: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let mut view = HistoryView::new(resource, key);
        view.select_rv = select_rv;
        view.kind = crate::ui::resources::resolve(&self.resources, resource)
            .map(|r| r.api_resource.kind.clone())
            .unwrap_or_default();
        fx.push(Effect::FetchHistory {
            resource: resource.to_string(),
            key: key.to_string(),
            kind: view.kind.clone(),
        });
        self.stack.push(Screen::History(Box::new(view)));
        self.dirty = true;
    }

    /// `h` on a table row.
    pub(crate) fn history_of_selection(&mut self, fx: &mut Vec<Effect>) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let resource = crate::ui::action::resource_label(&view.resource);
        let key = obj.object_key().to_string();
        self.open_history(&resource, &key, None, fx);
    }

    /// Answer to [`Effect::FetchHistory`].
    pub(crate) fn on_history(
        &mut self,
        resource: &str,
        key: &str,
        timeline: Option<Timeline>,
        stats: HistoryStats,
        events: Vec<TimelineEvent>,
        events_unavailable: Option<String>,
    ) {
        for s in self.stack.iter_mut() {
            if let Screen::History(h) = s
                && h.resource == resource
                && h.key == key
            {
                let was = (
                    h.state.clone(),
                    h.stats,
                    h.events.clone(),
                    h.events_unavailable.clone(),
                );
                h.set(
                    timeline.clone(),
                    stats,
                    events.clone(),
                    events_unavailable.clone(),
                );
                if (
                    h.state.clone(),
                    h.stats,
                    h.events.clone(),
                    h.events_unavailable.clone(),
                ) != was
                {
                    self.dirty = true;
                }
            }
        }
    }

    /// Once a second while the timeline is on top: ask again (new versions, evictions).
    pub(crate) fn refresh_history(&self, fx: &mut Vec<Effect>) {
        if let Some(Screen::History(h)) = self.current_screen() {
            fx.push(Effect::FetchHistory {
                resource: h.resource.clone(),
                key: h.key.clone(),
                kind: h.kind.clone(),
            });
        }
    }
}
