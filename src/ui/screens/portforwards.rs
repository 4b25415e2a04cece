//! The active port-forwards (`:pf`, `:portforwards`): local port → pod:port with connection and
//! byte counters (the runtime refreshes them once a second while they change); `ctrl-d` stops
//! the selected forward (its listener closes, its task ends).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Row, Table, Widget};

use crate::ui::action::Effect;
use crate::ui::app::{App, Screen};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};

/// The footer hints of the screen.
pub const HINTS: [KeyAction; 4] = [
    KeyAction::Delete,
    KeyAction::Back,
    KeyAction::Command,
    KeyAction::Help,
];

/// The `:pf` screen's own state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForwardsView {
    pub cursor: usize,
}

fn human_bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 20 => format!("{:.1}MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1}KiB", n as f64 / 1024.0),
        n => format!("{n}B"),
    }
}

impl App {
    /// Open `:pf`.
    pub(crate) fn show_forwards(&mut self) {
        if !matches!(self.current_screen(), Some(Screen::PortForwards(_))) {
            self.stack
                .push(Screen::PortForwards(ForwardsView::default()));
        }
    }

    fn forwards_cursor(&self) -> usize {
        match self.current_screen() {
            Some(Screen::PortForwards(v)) => v.cursor.min(self.forwards.len().saturating_sub(1)),
            _ => 0,
        }
    }

    pub(crate) fn on_forwards_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        match action {
            KeyAction::Delete => {
                match self.forwards.get(self.forwards_cursor()).cloned() {
                    Some(f) => {
                        self.info(format!("stopping 127.0.0.1:{} → {}…", f.local, f.remote()));
                        fx.push(Effect::StopForward { id: f.id });
                    }
                    None => self.info("no port-forward to stop"),
                }
                true
            }
            // The resource table's keys do not apply here.
            KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => false,
            _ => true,
        }
    }

    pub(crate) fn nav_forwards(&mut self, action: KeyAction, n: usize) {
        let len = self.forwards.len();
        let cur = self.forwards_cursor();
        let next = super::moved_cursor(action, n, cur, len);
        if let Some(Screen::PortForwards(v)) = self.stack.last_mut() {
            v.cursor = next;
        }
    }

    pub(crate) fn render_forwards(&self, area: Rect, buf: &mut Buffer) {
        let block = Block::bordered()
            .border_style(Style::default().fg(Color::Blue))
            .title(
                Line::styled(
                    format!(" PortForwards[{}] ", self.forwards.len()),
                    Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
                )
                .centered(),
            );
        let inner = block.inner(area);
        block.render(area, buf);
        if self.forwards.is_empty() {
            Paragraph::new(Line::styled(
                "no active port-forwards (F on a pod starts one)",
                Style::default().fg(DIM),
            ))
            .centered()
            .render(inner, buf);
            return;
        }
        let cursor = self.forwards_cursor();
        let rows = self.forwards.iter().enumerate().map(|(i, f)| {
            let style = if i == cursor {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default().fg(Color::Cyan)
            };
            Row::new(vec![
                format!("127.0.0.1:{}", f.local),
                match &f.target {
                    None => f.remote(),
                    Some(_) if f.pod.is_empty() => {
                        format!("{} → waiting for a ready pod", f.remote())
                    }
                    Some(_) => format!("{} → {} (moved {})", f.remote(), f.pod, f.moved),
                },
                f.connections.to_string(),
                f.active.to_string(),
                human_bytes(f.bytes_out),
                human_bytes(f.bytes_in),
                f.errors.to_string(),
            ])
            .style(style)
        });
        let header = Row::new(vec![
            "LOCAL", "POD:PORT", "CONNS", "ACTIVE", "SENT", "RECEIVED", "ERRORS",
        ])
        .style(
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        );
        Widget::render(
            Table::new(
                rows,
                [
                    Constraint::Length(16),
                    Constraint::Fill(1),
                    Constraint::Length(6),
                    Constraint::Length(6),
                    Constraint::Length(9),
                    Constraint::Length(9),
                    Constraint::Length(6),
                ],
            )
            .header(header)
            .column_spacing(2),
            inner,
            buf,
        );
    }
}
