//! The active port-forwards (`:pf`, `:portforwards`): local port → pod:port with connection and
//! byte counters (the runtime refreshes them once a second while they change); `ctrl-d` stops
//! the selected forward (its listener closes, its task ends).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Row, Table, Widget};

use crate::ui::action::Effect;
use crate::ui::component::{Component, Ctx, Outcome};
use crate::ui::cursor::moved_cursor;
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

impl ForwardsView {
    /// The cursor, within the forwards there are now.
    fn at(&self, ctx: &Ctx) -> usize {
        self.cursor.min(ctx.forwards.len().saturating_sub(1))
    }
}

impl Component for ForwardsView {
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        match action {
            KeyAction::Delete => match ctx.forwards.get(self.at(ctx)) {
                Some(f) => {
                    Outcome::Info(format!("stopping 127.0.0.1:{} → {}…", f.local, f.remote()))
                        .then(Outcome::Effects(vec![Effect::StopForward { id: f.id }]))
                }
                None => Outcome::Info("no port-forward to stop".into()),
            },
            // The resource table's keys do not apply here.
            KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => {
                Outcome::NotConsumed
            }
            _ => Outcome::Consumed,
        }
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        self.cursor = moved_cursor(action, n, self.at(ctx), ctx.forwards.len());
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        render_forwards(self.at(ctx), ctx, area, buf)
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}

fn render_forwards(cursor: usize, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    {
        let block = Block::bordered()
            .border_style(Style::default().fg(Color::Blue))
            .title(
                Line::styled(
                    format!(" PortForwards[{}] ", ctx.forwards.len()),
                    Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
                )
                .centered(),
            );
        let inner = block.inner(area);
        block.render(area, buf);
        if ctx.forwards.is_empty() {
            Paragraph::new(Line::styled(
                "no active port-forwards (F on a pod starts one)",
                Style::default().fg(DIM),
            ))
            .centered()
            .render(inner, buf);
            return;
        }
        let rows = ctx.forwards.iter().enumerate().map(|(i, f)| {
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
