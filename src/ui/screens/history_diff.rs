//! A unified, coloured diff of the fields history recorded between two versions of one object
//! (Enter on the timeline), one `pointer: value` line per field, as `kubectl diff` colours it.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::Screen;
use crate::informer::history::DiffLine;
use crate::ui::app::App;
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};

/// The diff screen's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffView {
    pub title: String,
    pub lines: Vec<DiffLine>,
    pub scroll: usize,
}

impl App {
    pub(crate) fn nav_history_diff(&mut self, action: KeyAction, n: usize) {
        let page = self.table_height().max(1);
        let Some(Screen::HistoryDiff(d)) = self.stack.last_mut() else {
            return;
        };
        let last = d.lines.len().saturating_sub(page);
        d.scroll = match action {
            KeyAction::Up | KeyAction::PageUp => d.scroll.saturating_sub(n),
            KeyAction::Down | KeyAction::PageDown => (d.scroll + n).min(last),
            KeyAction::Top => 0,
            _ => last,
        };
    }
}

/// Header lines 2 and 3 over the diff.
pub(crate) fn diff_header(d: &DiffView, label: Style, value: Style) -> [Line<'static>; 2] {
    [
        Line::from(vec![
            Span::styled(" Diff: ", label),
            Span::styled(d.title.clone(), value),
        ]),
        Line::from(vec![
            Span::styled(" Fields: ", label),
            Span::styled(
                "the recorded fields of the two versions, one dotted path a line".to_string(),
                value,
            ),
        ]),
    ]
}

pub(crate) use crate::ui::kit::diff_line as line;

pub(crate) fn render_history_diff(d: &DiffView, area: Rect, buf: &mut Buffer) {
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
pub(crate) const HINTS: [KeyAction; 3] = [KeyAction::Down, KeyAction::Up, KeyAction::Back];
