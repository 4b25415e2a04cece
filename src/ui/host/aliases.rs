//! Opening the [aliases screen](crate::ui::screens::aliases).

use crate::ui::app::{App, Screen};
use crate::ui::screens::aliases::AliasesView;

impl App {
    /// Open the aliases view.
    pub(crate) fn show_aliases(&mut self) {
        if !matches!(self.current_screen(), Some(Screen::Aliases(_))) {
            self.stack.push(Screen::Aliases(AliasesView::default()));
        }
    }
}
