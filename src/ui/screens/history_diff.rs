//! A unified, coloured diff of the fields history recorded between two versions of one object
//! (Enter on the timeline), one `pointer: value` line per field, as `kubectl diff` colours it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use crate::informer::history::DiffLine;
use crate::ui::component::{Component, Ctx, Outcome};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};

/// The diff screen's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffView {
    pub title: String,
    pub lines: Vec<DiffLine>,
    pub scroll: usize,
    /// What is compared, for the third header line (`None`: history's recorded fields).
    pub about: Option<&'static str>,
}

impl DiffView {
    pub fn new(title: String, lines: Vec<DiffLine>) -> DiffView {
        DiffView {
            title,
            lines,
            scroll: 0,
            about: None,
        }
    }
}

impl Component for DiffView {
    /// Nothing beneath takes keys (Back is global).
    fn on_action(&mut self, _action: KeyAction, _ctx: &Ctx) -> Outcome {
        Outcome::Consumed
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let page = ctx.table_height.max(1);
        let last = self.lines.len().saturating_sub(page);
        self.scroll = match action {
            KeyAction::Up | KeyAction::PageUp => self.scroll.saturating_sub(n),
            KeyAction::Down | KeyAction::PageDown => (self.scroll + n).min(last),
            KeyAction::Top => 0,
            _ => last,
        };
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_history_diff(self, area, buf)
    }

    fn header(&self, _ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        Some(diff_header(self, label, value))
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}

/// Header lines 2 and 3 over the diff.
fn diff_header(d: &DiffView, label: Style, value: Style) -> [Line<'static>; 2] {
    [
        Line::from(vec![
            Span::styled(" Diff: ", label),
            Span::styled(d.title.clone(), value),
        ]),
        Line::from(vec![
            Span::styled(
                if d.about.is_some() {
                    " Compares: "
                } else {
                    " Fields: "
                },
                label,
            ),
            Span::styled(
                d.about
                    .unwrap_or("the recorded fields of the two versions, one dotted path a line")
                    .to_string(),
                value,
            ),
        ]),
    ]
}

pub(crate) use crate::ui::kit::diff_line as line;

fn render_history_diff(d: &DiffView, area: Rect, buf: &mut Buffer) {
    let added = d
        .lines
        .iter()
        .filter(|l| matches!(l, DiffLine::Added(_)))
        .count();
    let removed = d
        .lines
        .iter()
        .filter(|l| matches!(l, DiffLine::Removed(_)))
        .count();
    let title = Line::from(vec![
        Span::styled(
            format!(" Diff: {} ", d.title),
            Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
        ),
        Span::styled(format!("+{added} "), Style::default().fg(Color::Green)),
        Span::styled(format!("-{removed} "), Style::default().fg(Color::Red)),
    ]);
    let block = Block::bordered()
        .border_style(Style::default().fg(Color::Blue))
        .title(title.centered());
    if d.lines.is_empty() {
        Paragraph::new(Line::styled(
            "no tracked field differs between these versions",
            Style::default().fg(DIM),
        ))
        .block(block)
        .render(area, buf);
        return;
    }
    let h = block.inner(area).height as usize;
    let shown: Vec<Line> = d.lines.iter().skip(d.scroll).take(h).map(line).collect();
    Paragraph::new(shown).block(block).render(area, buf);
}

/// Footer hints on the diff.
const HINTS: [KeyAction; 3] = [KeyAction::Down, KeyAction::Up, KeyAction::Back];
