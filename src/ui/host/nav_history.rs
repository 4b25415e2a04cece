//! App's side of k9s's navigation history and breadcrumbs ([`crate::ui::nav_history`]): `[`,
//! `]` and `-` run commands of the history, and the crumbs name the screens on App's stack.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use crate::ui::action::Effect;
use crate::ui::app::App;
use crate::ui::nav_history::{ScreenStack, draw_crumbs};
use crate::ui::screens::Screen;

impl App {
    /// `[` (`back`) or `]` in a live view: run the previous or next command of the history.
    pub(crate) fn nav_step(&mut self, back: bool, fx: &mut Vec<Effect>) {
        match self.nav_history.step(back) {
            Some(line) => self.nav_replay(&line, fx),
            None if back => self.info("no earlier command ([ goes back through the commands run)"),
            None => self.info("no later command (] goes forward after [)"),
        }
    }

    /// `-`: the command before the current one, run as a new one (again: back).
    pub(crate) fn nav_last(&mut self, fx: &mut Vec<Effect>) {
        let h = &self.nav_history;
        let Some(line) = h.at.checked_sub(1).and_then(|i| h.lines.get(i)).cloned() else {
            self.info("no previous command (- returns to the last view command)");
            return;
        };
        self.run_command(&line, fx);
    }

    fn nav_replay(&mut self, line: &str, fx: &mut Vec<Effect>) {
        self.nav_history.replaying = true;
        self.run_command(line, fx);
        self.nav_history.replaying = false;
        self.info(format!(":{line}"));
    }

    /// A screen's crumb: its name, with the detail it has (a table's resource and what it is
    /// drilled from, a release's name, a pod's).
    fn crumb(&self, s: &Screen) -> String {
        match s {
            Screen::Table(id) => self.views.get(id).map_or_else(
                || s.name().to_string(),
                |v| match &v.drilled_from {
                    Some(from) => format!("{}({from})", v.resource.api_resource.plural),
                    None => v.resource.api_resource.plural.clone(),
                },
            ),
            Screen::Helm(h) => match &h.release {
                Some((_, name)) => format!("revisions({name})"),
                None => s.name().to_string(),
            },
            Screen::Containers(c) => format!("{}({})", s.name(), c.pod.name),
            _ => s.name().to_string(),
        }
    }

    /// Draw the breadcrumbs on the bottom row of `area` (the screen's bottom border), when
    /// shown and there is more than the root screen (not under the log view: its last line is
    /// its own status line, no border to write on).
    pub(crate) fn draw_crumbs(&self, area: Rect, buf: &mut Buffer) {
        if !self.chrome.crumbs || self.stack.len() < 2 {
            return;
        }
        if matches!(self.current_screen(), Some(Screen::Logs(_))) {
            return;
        }
        draw_crumbs(&self.crumbs(), area, buf);
    }
}

impl ScreenStack for App {
    fn crumbs(&self) -> Vec<String> {
        self.stack.iter().map(|s| self.crumb(s)).collect()
    }
}
