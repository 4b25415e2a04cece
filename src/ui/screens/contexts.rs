//! The contexts table (`:ctx` alone, as k9s's): every context of the kubeconfig with its cluster,
//! user and namespace, the current one marked `(*)` and the fleet's members `(+)`. Enter switches
//! to the selected context (just that cluster, as `:ctx NAME`); `space` marks several, and Enter
//! then shows them together as a fleet (as `--context a,b`), the selected row first.
//!
//! Where this differs from k9s: k9s has no fleet, so `space` there marks rows for a bulk delete
//! of kubeconfig entries; here it picks the clusters shown together.

use std::collections::BTreeSet;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, Widget};

use crate::ui::action::ContextRow;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::cursor::{moved_cursor, scrolled_to};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, header_style, screen_block, widest};

/// The footer hints of the screen.
pub const HINTS: [KeyAction; 5] = [
    KeyAction::Enter,
    KeyAction::Mark,
    KeyAction::Back,
    KeyAction::Command,
    KeyAction::Help,
];

/// The contexts screen's own state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContextsView {
    pub cursor: usize,
    pub scroll: usize,
    /// Contexts marked with `space` (Enter shows them together).
    pub marked: BTreeSet<String>,
}

/// The rows of the contexts table: the kubeconfig's details (`rows`), else the bare `names`.
pub fn context_table(rows: &[ContextRow], names: &[String]) -> Vec<ContextRow> {
    if !rows.is_empty() {
        return rows.to_vec();
    }
    names
        .iter()
        .map(|name| ContextRow {
            name: name.clone(),
            ..ContextRow::default()
        })
        .collect()
}

fn rows_of(ctx: &Ctx) -> Vec<ContextRow> {
    context_table(ctx.context_rows, ctx.contexts)
}

/// The fleet's members' names.
fn members(ctx: &Ctx) -> Vec<String> {
    ctx.fleet_members.iter().map(|(m, _)| m.clone()).collect()
}

impl Component for ContextsView {
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        let rows = rows_of(ctx);
        let v = self;
        match action {
            // `space`: the key map's Mark (history) and ToggleNode (xray) share it.
            KeyAction::Mark | KeyAction::ToggleNode => {
                if let Some(r) = rows.get(v.cursor)
                    && !v.marked.remove(&r.name)
                {
                    v.marked.insert(r.name.clone());
                }
                v.cursor = (v.cursor + 1).min(rows.len().saturating_sub(1));
                Outcome::Consumed
            }
            KeyAction::Enter => {
                let Some(selected) = rows.get(v.cursor).map(|r| r.name.clone()) else {
                    return Outcome::Consumed;
                };
                let marked: Vec<String> = v.marked.iter().cloned().collect();
                let run = |c: String| Outcome::Ask(Request::RunCommand(c));
                if marked.is_empty() || marked == [selected.clone()] {
                    return Outcome::Pop.then(run(format!("ctx {selected}")));
                }
                // The selected row first (the current cluster), then the other marked ones.
                let first = if marked.contains(&selected) {
                    selected
                } else {
                    marked[0].clone()
                };
                let others: Vec<&str> = marked
                    .iter()
                    .map(String::as_str)
                    .filter(|m| *m != first)
                    .collect();
                Outcome::Pop
                    .then(run(format!("ctx {first}")))
                    .then(run(format!("ctx +{}", others.join(","))))
            }
            KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => {
                Outcome::NotConsumed
            }
            // The resource table's keys do not apply here.
            _ => Outcome::Consumed,
        }
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let len = rows_of(ctx).len();
        let page = ctx.table_height.max(1);
        self.cursor = moved_cursor(action, n, self.cursor, len);
        self.scroll = scrolled_to(self.cursor, self.scroll, page);
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        render_contexts(self, ctx, area, buf)
    }

    /// Header lines 2 and 3 over the contexts table: how many, the current one (and the
    /// clusters shown together), the marks. Not the informer line of the table beneath.
    fn header(&self, ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        let view = self;
        let n = rows_of(ctx).len();
        let mut l2 = vec![
            Span::styled(" Contexts: ", label),
            Span::styled(format!("{n} │ current {}", ctx.connection.context), value),
        ];
        if ctx.fleet {
            l2.push(Span::styled(
                format!(" │ shown together: {}", members(ctx).join(", ")),
                value,
            ));
        }
        let marked = if view.marked.is_empty() {
            Span::styled(
                "none (space marks several, enter shows them together)",
                Style::default().fg(DIM),
            )
        } else {
            Span::styled(
                view.marked.iter().cloned().collect::<Vec<_>>().join(", "),
                value,
            )
        };
        Some([
            Line::from(l2),
            Line::from(vec![Span::styled(" Marked: ", label), marked]),
        ])
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}

fn render_contexts(view: &ContextsView, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    {
        let rows = rows_of(ctx);
        let block = screen_block(format!(" Contexts[{}] ", rows.len()), ctx.theme);
        let inner = block.inner(area);
        block.render(area, buf);
        if rows.is_empty() {
            Paragraph::new(Line::styled(
                "no contexts known (the kubeconfig has none, or it is still loading)",
                Style::default().fg(DIM),
            ))
            .centered()
            .render(inner, buf);
            return;
        }
        let members = members(ctx);
        let page = inner.height.saturating_sub(1) as usize;
        let scroll = scrolled_to(view.cursor, view.scroll, page.max(1));
        let body = rows
            .iter()
            .enumerate()
            .skip(scroll)
            .take(page)
            .map(|(i, r)| {
                let current = r.name == ctx.connection.context;
                let mut name = r.name.clone();
                if current {
                    name.push_str("(*)");
                } else if members.contains(&r.name) {
                    name.push_str("(+)");
                }
                let mark = if view.marked.contains(&r.name) {
                    "✓"
                } else {
                    " "
                };
                let mut style = if current {
                    Style::default()
                        .fg(Color::LightGreen)
                        .add_modifier(Modifier::BOLD)
                } else {
                    Style::default().fg(ctx.theme.ok)
                };
                if i == view.cursor {
                    style = ctx.theme.selected(style);
                }
                Row::new(vec![
                    mark.to_string(),
                    name,
                    r.cluster.clone(),
                    r.user.clone(),
                    r.namespace.clone().unwrap_or_else(|| "default".into()),
                ])
                .style(style)
            });
        let header = Row::new(vec!["", "NAME", "CLUSTER", "AUTHINFO", "NAMESPACE"])
            .style(header_style(ctx.theme));
        Table::new(
            body,
            [
                Constraint::Length(1),
                Constraint::Length(widest(&rows, |r| r.name.chars().count() + 3, 4)),
                Constraint::Length(widest(&rows, |r| r.cluster.chars().count(), 7)),
                Constraint::Length(widest(&rows, |r| r.user.chars().count(), 8)),
                Constraint::Fill(1),
            ],
        )
        .header(header)
        .render(inner, buf);
    }
}
