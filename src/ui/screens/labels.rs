//! The label picker (`l`): a selector being typed, with the label index's values to choose from.

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::kit::{DIM, TITLE, centered, truncate};

/// The label picker: a selector being typed, with label-index values to choose from.
#[derive(Debug, Clone)]
pub struct LabelPicker {
    pub input: Input,
    /// `(value, objects)` from the label index (`key=value` and `key`), sorted.
    pub all: Vec<(String, usize)>,
    /// Indexes into `all` matching the term being typed.
    pub shown: Vec<usize>,
    pub selected: usize,
    pub error: Option<String>,
    /// Where `all` comes from, for the picker's count line (`label index`, ...).
    pub source: &'static str,
}

impl LabelPicker {
    /// A picker offering `all` (selector terms and how many objects each picks, sorted), the
    /// input holding `text`; `source`: where the counts come from (said in the picker).
    pub fn new(all: Vec<(String, usize)>, text: String, source: &'static str) -> LabelPicker {
        let mut p = LabelPicker {
            input: Input::new(text),
            shown: Vec::new(),
            all,
            selected: 0,
            error: None,
            source,
        };
        refresh_picker(&mut p);
        p
    }
}

impl Component for LabelPicker {
    fn on_key(&mut self, key: KeyEvent, _ctx: &Ctx) -> Outcome {
        let p = self;
        match key.code {
            KeyCode::Esc => Outcome::Close,
            KeyCode::Up => {
                p.selected = p.selected.saturating_sub(1);
                Outcome::Consumed
            }
            KeyCode::Down => {
                p.selected = (p.selected + 1).min(p.shown.len().saturating_sub(1));
                Outcome::Consumed
            }
            KeyCode::Tab => {
                complete_picker(p);
                Outcome::Consumed
            }
            KeyCode::Enter => {
                // Enter takes the highlighted value (as Tab would) whenever one is shown; only a
                // typed term that matches no indexed value (a complete selector with an operator,
                // e.g. `env!=prod` or `tier in (a,b)`), or one inside an unclosed `(...)` set, is
                // applied as typed.
                let v = p.input.value();
                let in_set = v.matches('(').count() > v.matches(')').count();
                if !p.shown.is_empty() && !in_set {
                    complete_picker(p);
                }
                let text = p.input.value().trim().trim_end_matches(',').to_string();
                // Applied, the picker closes; refused, it stays open with the error inline.
                Outcome::Ask(Request::LabelSelector(text))
            }
            _ => {
                let before = p.input.value().to_string();
                p.input.handle_event(&Event::Key(key));
                p.error = None;
                if p.input.value() != before {
                    // The list is re-ranked for the new term: highlight its best match.
                    p.selected = 0;
                }
                refresh_picker(p);
                Outcome::Consumed
            }
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_picker(self, area, buf)
    }
}

/// The comma-separated term being typed (the last one).
fn current_term(text: &str) -> &str {
    text.rsplit(',').next().unwrap_or("").trim()
}

fn refresh_picker(p: &mut LabelPicker) {
    let term = current_term(p.input.value()).to_string();
    p.shown = p
        .all
        .iter()
        .enumerate()
        .filter(|(_, (v, _))| term.is_empty() || v.contains(term.as_str()))
        .map(|(i, _)| i)
        .collect();
    // Best match first: the exact value, then values starting with the term, then the rest.
    let all = &p.all;
    p.shown.sort_by_key(|i| {
        let v = all.get(*i).map(|(v, _)| v.as_str()).unwrap_or("");
        (v != term, !v.starts_with(term.as_str()))
    });
    p.selected = p.selected.min(p.shown.len().saturating_sub(1));
}

/// Replace the term being typed with the highlighted picker value.
fn complete_picker(p: &mut LabelPicker) {
    let Some((val, _)) = p.shown.get(p.selected).and_then(|i| p.all.get(*i)) else {
        return;
    };
    let text = p.input.value();
    let prefix = match text.rfind(',') {
        Some(i) => format!("{},", &text[..i]),
        None => String::new(),
    };
    p.input = Input::new(format!("{prefix}{val}"));
    refresh_picker(p);
}

/// The input line: `> ` and the text, scrolled so that the cursor shows, the cursor drawn
/// where it is (the character under it reversed, or a reversed space at the end).
fn input_line(input: &Input, width: usize) -> Line<'static> {
    let room = width.saturating_sub(3).max(1);
    let scroll = input.visual_scroll(room);
    let cursor = input.visual_cursor().saturating_sub(scroll);
    let visible: Vec<char> = input.value().chars().skip(scroll).collect();
    let before: String = visible.iter().take(cursor).collect();
    let at: String = visible.get(cursor).map_or(" ".to_string(), char::to_string);
    let after: String = visible.iter().skip(cursor + 1).collect();
    let text = Style::default().fg(Color::White);
    Line::from(vec![
        Span::styled("> ", Style::default().fg(DIM)),
        Span::styled(before, text),
        Span::styled(at, text.add_modifier(Modifier::REVERSED)),
        Span::styled(after, text),
    ])
}

pub(crate) fn render_picker(p: &LabelPicker, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 64, area.height.saturating_sub(4).clamp(8, 20));
    Clear.render(r, buf);
    let source = p.source;
    let block = Block::bordered()
        .border_style(Style::default().fg(Color::Yellow))
        .title(
            Line::styled(
                " Label filter ",
                Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
            )
            .centered(),
        )
        .title_bottom(Line::from(" ↑↓ choose  tab complete  enter apply  esc cancel ").centered());
    let inner = block.inner(r);
    block.render(r, buf);
    let width = usize::from(inner.width);
    // The whole error, word-wrapped inside the picker (the list keeps at least a row).
    let info: Vec<Line> = match &p.error {
        Some(e) => textwrap::wrap(e, width.max(1))
            .into_iter()
            .map(|l| Line::styled(l.into_owned(), Style::default().fg(Color::Red)))
            .collect(),
        None => vec![Line::styled(
            format!(
                "{} {} from the {source}",
                p.shown.len(),
                if p.shown.len() == 1 {
                    "value"
                } else {
                    "values"
                }
            ),
            Style::default().fg(DIM),
        )],
    };
    let info_h = u16::try_from(info.len())
        .unwrap_or(u16::MAX)
        .min(inner.height.saturating_sub(2))
        .max(1);
    let [input_area, err_area, list_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(info_h),
        Constraint::Fill(1),
    ])
    .areas(inner);
    input_line(&p.input, width).render(input_area, buf);
    Paragraph::new(info).render(err_area, buf);
    let h = list_area.height as usize;
    let start = p.selected.saturating_sub(h.saturating_sub(1));
    let lines: Vec<Line> = p
        .shown
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .filter_map(|(i, idx)| {
            let (val, n) = p.all.get(*idx)?;
            let style = if i == p.selected {
                Style::default().fg(Color::Black).bg(Color::Cyan)
            } else {
                Style::default().fg(Color::Cyan)
            };
            let w = list_area.width.saturating_sub(10) as usize;
            Some(Line::styled(
                format!(" {:<w$} {:>7}", truncate(val, w), n),
                style,
            ))
        })
        .collect();
    Paragraph::new(lines).render(list_area, buf);
}
