//! Opening the [changes screen](crate::ui::screens::changes), asking again every second, its
//! answers, and the `/` line and label picker `App` runs over it.

use crossterm::event::{Event, KeyCode, KeyEvent};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::informer::history::{ChangeRow, HistoryStats};
use crate::selector::LabelSelector;
use crate::ui::action::{ChangesFilter, Effect, resource_label};
use crate::ui::app::{App, Mode, Screen};
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
    pub(crate) fn on_changes_filter_key(
        &mut self,
        key: KeyEvent,
        mut input: Input,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        let text = match key.code {
            KeyCode::Esc => Some(String::new()),
            KeyCode::Enter => {
                let text = input.value().trim().to_string();
                if let Some(sel) = text.strip_prefix("-l") {
                    self.set_changes_selector(sel, fx);
                    return Mode::Normal;
                }
                if let Some(Screen::Changes(c)) = self.stack.last_mut() {
                    c.text = text;
                }
                return Mode::Normal;
            }
            _ => {
                input.handle_event(&Event::Key(key));
                let t = input.value().to_string();
                (!t.starts_with("-l")).then_some(t)
            }
        };
        if let (Some(t), Some(Screen::Changes(c))) = (text, self.stack.last_mut()) {
            c.set_text(t);
        }
        if key.code == KeyCode::Esc {
            Mode::Normal
        } else {
            Mode::Filter { input }
        }
    }
}
