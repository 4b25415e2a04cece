//! Opening the [changes screen](crate::ui::screens::changes), asking again every second, its
//! answers, and the `/` line and label picker `App` runs over it.

use crate::informer::history::{ChangeRow, HistoryStats};
use crate::selector::LabelSelector;
use crate::ui::action::{ChangesFilter, Effect, resource_label};
use crate::ui::app::{App, Screen};
use crate::ui::component::FilterLine;
use crate::ui::resources::resolve;
use crate::ui::screens::changes::{CHANGES_LIMIT, ChangesView};

impl App {
    /// `:changes [RESOURCE] [-n NS|-A] [-l SELECTOR]`.
    pub(crate) fn open_changes(&mut self, args: &[&str], fx: &mut Vec<Effect>) {
        let mut filter = ChangesFilter {
            namespace: self.namespace.clone(),
            ..ChangesFilter::default()
        };
        let mut words = args.iter();
        while let Some(w) = words.next() {
            match *w {
                "-A" => filter.namespace = None,
                "-n" => filter.namespace = words.next().map(|s| s.to_string()),
                "-l" => filter.selector = words.next().map_or(String::new(), |s| s.to_string()),
                name => match resolve(&self.resources, name) {
                    Some(r) => filter.resource = Some(resource_label(r)),
                    None => {
                        self.error(format!("unknown resource: {name}"));
                        return;
                    }
                },
            }
        }
        if let Err(e) = LabelSelector::parse(&filter.selector) {
            self.error(format!("invalid selector: {e}"));
            return;
        }
        fx.push(Effect::FetchChanges {
            filter: filter.clone(),
            limit: CHANGES_LIMIT,
        });
        self.stack
            .push(Screen::Changes(Box::new(ChangesView::new(filter))));
        self.dirty = true;
    }

    /// Answer to [`Effect::FetchChanges`]: the lines for every changes screen with that filter.
    pub(crate) fn on_changes(
        &mut self,
        filter: &ChangesFilter,
        rows: Vec<ChangeRow>,
        stats: HistoryStats,
    ) {
        for s in self.stack.iter_mut() {
            if let Screen::Changes(c) = s
                && c.filter == *filter
                && c.answer(&rows, stats)
            {
                self.dirty = true;
            }
        }
    }

    /// Once a second while the changes screen is on top: ask again.
    pub(crate) fn refresh_changes(&self, fx: &mut Vec<Effect>) {
        if let Some(Screen::Changes(c)) = self.current_screen() {
            fx.push(Effect::FetchChanges {
                filter: c.filter.clone(),
                limit: CHANGES_LIMIT,
            });
        }
    }

    /// The label selector of the changes screen on top (from `/-l` or the `l` picker): the list
    /// asked again with it. False, with the footer saying why, when it does not parse.
    pub(crate) fn set_changes_selector(&mut self, sel: &str, fx: &mut Vec<Effect>) -> bool {
        let sel = sel.trim().to_string();
        if let Err(e) = LabelSelector::parse(&sel) {
            self.error(format!("invalid selector: {e}"));
            return false;
        }
        if let Some(Screen::Changes(c)) = self.stack.last_mut() {
            fx.push(c.set_selector(sel));
            self.dirty = true;
        }
        true
    }

    /// A key of the `/` line over the changes screen: live substring filter; `-l SELECTOR`
    /// (on Enter) changes the selector and asks again; Esc clears.
    pub(crate) fn on_changes_filter_line(&mut self, line: FilterLine, fx: &mut Vec<Effect>) {
        let text = match line {
            FilterLine::Esc => Some(String::new()),
            FilterLine::Enter(text) => {
                let text = text.trim().to_string();
                if let Some(sel) = text.strip_prefix("-l") {
                    self.set_changes_selector(sel, fx);
                    return;
                }
                if let Some(Screen::Changes(c)) = self.stack.last_mut() {
                    c.text = text;
                }
                return;
            }
            FilterLine::Typed(t) => (!t.starts_with("-l")).then_some(t),
        };
        if let (Some(t), Some(Screen::Changes(c))) = (text, self.stack.last_mut()) {
            c.set_text(t);
        }
    }
}
