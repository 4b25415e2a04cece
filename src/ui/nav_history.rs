//! k9s's navigation history and chrome: `[` and `]` go back and forward through the view
//! commands run (`:pod shop`, `:dp`, an alias), `-` returns to the one before (again: back),
//! the breadcrumbs at the bottom name the screens on the stack (`ctrl-g` hides them) and
//! `ctrl-e` hides the header.
//!
//! A command run from the history moves through it without adding to it; a command typed after
//! going back drops the ones ahead (a browser's history), and `-` runs the previous command as
//! a new one, so pressing it again toggles between the two, as k9s's "last view".
//!
//! Where this differs from k9s: in a past view (`:at`) `[` and `]` keep stepping through time
//! (kinformer's time travel); the crumbs show once there is more than one screen (a single root
//! table needs no path), and they sit on the bottom border of the screen rather than on a line
//! of their own.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// Commands kept for `[` / `]`.
pub const NAV_HISTORY: usize = 50;

/// The view commands run, oldest first, and where `[` / `]` stand among them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NavHistory {
    pub lines: Vec<String>,
    /// The index of the command shown now.
    pub at: usize,
    /// A command from the history is running: it is not recorded again.
    pub(crate) replaying: bool,
}

impl NavHistory {
    /// A view command ran (not from the history): it becomes the current entry, after the
    /// ones ahead of the current one are dropped.
    pub fn record(&mut self, line: &str) {
        if self.replaying {
            return;
        }
        if !self.lines.is_empty() {
            self.lines.truncate(self.at + 1);
        }
        if self.lines.last().is_some_and(|l| l == line) {
            return;
        }
        if self.lines.len() == NAV_HISTORY {
            self.lines.remove(0);
        }
        self.lines.push(line.to_string());
        self.at = self.lines.len() - 1;
    }

    /// The command `[` (`back`) or `]` goes to, moving there; `None` at an end.
    pub(crate) fn step(&mut self, back: bool) -> Option<String> {
        let to = if back {
            self.at.checked_sub(1)?
        } else {
            Some(self.at + 1).filter(|i| *i < self.lines.len())?
        };
        self.at = to;
        self.lines.get(to).cloned()
    }
}

/// Whether the header and the breadcrumbs are shown (`ctrl-e`, `ctrl-g`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chrome {
    pub header: bool,
    pub crumbs: bool,
}

impl Default for Chrome {
    fn default() -> Self {
        Chrome {
            header: true,
            crumbs: true,
        }
    }
}

/// What the breadcrumbs name: the screens on the stack, the current one last (`App`'s stack,
/// each screen by its [`name`](crate::ui::screens::Screen::name) or a detail of it).
pub trait ScreenStack {
    fn crumbs(&self) -> Vec<String>;
}

/// The breadcrumbs: one crumb per screen on the stack, the current one last.
pub fn crumbs(stack: &impl ScreenStack) -> Vec<String> {
    stack.crumbs()
}

/// Draw the breadcrumbs `all` on the bottom row of `area` (the screen's bottom border).
pub(crate) fn draw_crumbs(all: &[String], area: Rect, buf: &mut Buffer) {
    if all.is_empty() || area.height == 0 || area.width < 8 {
        return;
    }
    let last = all.len() - 1;
    let mut spans = Vec::new();
    for (i, c) in all.iter().enumerate() {
        let style = if i == last {
            Style::default()
                .fg(Color::Black)
                .bg(Color::Cyan)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().fg(Color::Black).bg(Color::DarkGray)
        };
        spans.push(Span::raw(" "));
        spans.push(Span::styled(format!("<{c}>"), style));
    }
    let row = Rect {
        x: area.x + 1,
        y: area.y + area.height - 1,
        width: area.width.saturating_sub(2),
        height: 1,
    };
    spans.push(Span::raw(" "));
    let line = Line::from(spans);
    let width = line.width() as u16;
    Line::from(line.spans).render(
        Rect {
            width: width.min(row.width),
            ..row
        },
        buf,
    );
}
