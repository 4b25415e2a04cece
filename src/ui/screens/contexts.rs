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

use crate::ui::action::{ContextRow, Effect};
use crate::ui::app::{App, Screen};
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

impl App {
    /// The rows of the contexts table: the kubeconfig's details, else the bare names.
    pub(crate) fn context_table(&self) -> Vec<ContextRow> {
        if !self.context_rows.is_empty() {
            return self.context_rows.clone();
        }
        self.contexts
            .iter()
            .map(|name| ContextRow {
                name: name.clone(),
                ..ContextRow::default()
            })
            .collect()
    }

    /// Open the contexts table with the current context selected.
    pub(crate) fn show_contexts(&mut self) {
        if matches!(self.current_screen(), Some(Screen::Contexts(_))) {
            return;
        }
        let cursor = self
            .context_table()
            .iter()
            .position(|r| r.name == self.connection.context)
            .unwrap_or(0);
        self.stack.push(Screen::Contexts(ContextsView {
            cursor,
            ..ContextsView::default()
        }));
    }

    pub(crate) fn on_contexts_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        let rows = self.context_table();
        let Some(Screen::Contexts(v)) = self.stack.last_mut() else {
            return false;
        };
        match action {
            // `space`: the key map's Mark (history) and ToggleNode (xray) share it.
            KeyAction::Mark | KeyAction::ToggleNode => {
                if let Some(r) = rows.get(v.cursor)
                    && !v.marked.remove(&r.name)
                {
                    v.marked.insert(r.name.clone());
                }
                v.cursor = (v.cursor + 1).min(rows.len().saturating_sub(1));
                true
            }
            KeyAction::Enter => {
                let Some(selected) = rows.get(v.cursor).map(|r| r.name.clone()) else {
                    return true;
                };
                let marked: Vec<String> = v.marked.iter().cloned().collect();
                self.stack.pop();
                if marked.is_empty() || marked == [selected.clone()] {
                    self.run_command(&format!("ctx {selected}"), fx);
                } else {
                    // The selected row first (the current cluster), then the other marked ones.
                    let first = if marked.contains(&selected) {
                        selected
                    } else {
                        marked[0].clone()
                    };
                    self.run_command(&format!("ctx {first}"), fx);
                    let others: Vec<&str> = marked
                        .iter()
                        .map(String::as_str)
                        .filter(|m| *m != first)
                        .collect();
                    self.run_command(&format!("ctx +{}", others.join(",")), fx);
                }
                true
            }
            KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => false,
            // The resource table's keys do not apply here.
            _ => true,
        }
    }

    pub(crate) fn nav_contexts(&mut self, action: KeyAction, n: usize) {
        let len = self.context_table().len();
        let page = self.table_height().max(1);
        if let Some(Screen::Contexts(v)) = self.stack.last_mut() {
            v.cursor = super::moved_cursor(action, n, v.cursor, len);
            v.scroll = super::scrolled_to(v.cursor, v.scroll, page);
        }
    }

    /// Header lines 2 and 3 over the contexts table: how many, the current one (and the
    /// clusters shown together), the marks. Not the informer line of the table beneath.
    pub(crate) fn contexts_header(
        &self,
        view: &ContextsView,
        label: Style,
        value: Style,
    ) -> [Line<'_>; 2] {
        let n = self.context_table().len();
        let mut l2 = vec![
            Span::styled(" Contexts: ", label),
            Span::styled(format!("{n} │ current {}", self.connection.context), value),
        ];
        if self.fleet.is_fleet() {
            l2.push(Span::styled(
                format!(" │ shown together: {}", self.fleet.names().join(", ")),
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
        [
            Line::from(l2),
            Line::from(vec![Span::styled(" Marked: ", label), marked]),
        ]
    }

    pub(crate) fn render_contexts(&self, view: &ContextsView, area: Rect, buf: &mut Buffer) {
        let rows = self.context_table();
        let block = screen_block(format!(" Contexts[{}] ", rows.len()), &self.theme);
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
        let members = self.fleet.names();
        let page = inner.height.saturating_sub(1) as usize;
        let scroll = super::scrolled_to(view.cursor, view.scroll, page.max(1));
        let body = rows
            .iter()
            .enumerate()
            .skip(scroll)
            .take(page)
            .map(|(i, r)| {
                let current = r.name == self.connection.context;
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
                    Style::default().fg(self.theme.ok)
                };
                if i == view.cursor {
                    style = self.theme.selected(style);
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
            .style(header_style(&self.theme));
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
