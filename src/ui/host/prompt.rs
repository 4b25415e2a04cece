//! App's side of the [prompts](crate::ui::screens::prompt): a key goes to the prompt (taken
//! out of the mode while it runs, as every dialog), then App carries out its outcome: the
//! command line run, or the filter line handed to the screen on top.

use crossterm::event::KeyEvent;

use crate::ui::action::Effect;
use crate::ui::app::{App, Mode, Screen};
use crate::ui::component::{Component, FilterLine, Outcome};
use crate::ui::screens::prompt::Prompt;

/// Whether `o` closes the prompt.
fn closes(o: &Outcome) -> bool {
    match o {
        Outcome::Close => true,
        Outcome::Seq(all) => all.iter().any(closes),
        _ => false,
    }
}

impl App {
    /// A key at a prompt (`wrap` puts it back in its mode); returns the mode to keep. The
    /// outcome runs with the prompt out of the mode, as the line's own keys always did (a
    /// live filter sees the table's height without the prompt).
    pub(crate) fn on_prompt_key(
        &mut self,
        key: KeyEvent,
        mut p: Prompt,
        wrap: fn(Prompt) -> Mode,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        let out = p.on_key(key, &self.ctx());
        let close = closes(&out);
        self.run_outcome(out, fx);
        if close {
            // What the command opened (help, a dialog) stays.
            std::mem::replace(&mut self.mode, Mode::Normal)
        } else {
            wrap(p)
        }
    }

    /// The `/` line changed, was entered or left: the screen on top filters or searches.
    pub(crate) fn on_filter_line(&mut self, line: FilterLine, fx: &mut Vec<Effect>) {
        match self.current_screen() {
            Some(Screen::Changes(_)) => self.on_changes_filter_line(line, fx),
            Some(Screen::Text(_)) => self.on_text_search_line(line, fx),
            Some(Screen::Xray(_)) => self.on_xray_filter_line(line),
            _ => self.on_table_filter_line(line),
        }
    }
}
