//! The confirm-delete dialog: nothing is deleted without it, never in read-only mode.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::cluster::ResourceInfo;
use crate::ui::action::Effect;
use crate::ui::app::{App, Mode};
use crate::ui::widgets::centered;

/// A pending delete awaiting confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmDelete {
    pub resource: ResourceInfo,
    pub namespace: Option<String>,
    pub name: String,
    /// Which button has focus (false: Cancel, the default).
    pub yes: bool,
}

impl App {
    pub(crate) fn ask_delete(&mut self) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        if self.readonly {
            self.error("read-only mode: delete is disabled (started with --readonly)");
            return;
        }
        let c = ConfirmDelete {
            resource: view.resource.clone(),
            namespace: obj.namespace.as_deref().map(str::to_string),
            name: obj.name.to_string(),
            yes: false,
        };
        self.mode = Mode::Confirm(c);
    }

    pub(crate) fn on_confirm_key(
        &mut self,
        key: KeyEvent,
        mut c: ConfirmDelete,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => {
                c.yes = !c.yes;
                Mode::Confirm(c)
            }
            KeyCode::Char('y') | KeyCode::Char('Y') => self.confirm_delete(c, fx),
            KeyCode::Enter if c.yes => self.confirm_delete(c, fx),
            _ => {
                self.info("delete cancelled");
                Mode::Normal
            }
        }
    }

    pub(crate) fn confirm_delete(&mut self, c: ConfirmDelete, fx: &mut Vec<Effect>) -> Mode {
        if self.readonly {
            self.error("read-only mode: delete is disabled (started with --readonly)");
            return Mode::Normal;
        }
        self.info(format!(
            "deleting {}/{}",
            c.resource.api_resource.plural, c.name
        ));
        fx.push(Effect::Delete {
            resource: c.resource,
            namespace: c.namespace,
            name: c.name,
        });
        Mode::Normal
    }
}

pub(crate) fn render_confirm(c: &ConfirmDelete, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 60, 7);
    Clear.render(r, buf);
    let what = match &c.namespace {
        Some(ns) => format!("{} {}/{}", c.resource.singular, ns, c.name),
        None => format!("{} {}", c.resource.singular, c.name),
    };
    let button = |label: &str, focus: bool| {
        let s = if focus {
            Style::default()
                .fg(Color::Black)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().fg(Color::White)
        };
        Span::styled(format!("[ {label} ]"), s)
    };
    let lines = vec![
        Line::raw(""),
        Line::from(format!("Delete {what}?")).centered(),
        Line::raw(""),
        Line::from(vec![
            button("Cancel", !c.yes),
            Span::raw("   "),
            button("Delete", c.yes),
        ])
        .centered(),
    ];
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .border_style(Style::default().fg(Color::Red))
                .title(
                    Line::styled(
                        " Confirm delete ",
                        Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                    )
                    .centered(),
                )
                .title_bottom(Line::from(" y: delete  n/esc: cancel  tab: switch ").centered()),
        )
        .render(r, buf);
}
