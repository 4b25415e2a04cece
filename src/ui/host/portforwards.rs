//! Opening the [port-forwards screen](crate::ui::screens::portforwards).

use crate::ui::app::{App, Screen};
use crate::ui::screens::portforwards::ForwardsView;

impl App {
    /// Open `:pf`.
    pub(crate) fn show_forwards(&mut self) {
        if !matches!(self.current_screen(), Some(Screen::PortForwards(_))) {
            self.stack
                .push(Screen::PortForwards(ForwardsView::default()));
        }
    }
}
