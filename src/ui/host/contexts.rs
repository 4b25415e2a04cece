//! Opening the [contexts table](crate::ui::screens::contexts).

use crate::ui::app::{App, Screen};
use crate::ui::screens::contexts::{ContextsView, context_table};

impl App {
    /// Open the contexts table with the current context selected.
    pub(crate) fn show_contexts(&mut self) {
        if matches!(self.current_screen(), Some(Screen::Contexts(_))) {
            return;
        }
        let cursor = context_table(&self.context_rows, &self.contexts)
            .iter()
            .position(|r| r.name == self.connection.context)
            .unwrap_or(0);
        self.stack.push(Screen::Contexts(ContextsView {
            cursor,
            ..ContextsView::default()
        }));
    }
}
