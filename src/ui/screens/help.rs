//! The help overlay (`?`): key bindings (from the key map) and commands.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::ui::app::{App, Mode, Screen};
use crate::ui::keys::KeyAction;
use crate::ui::widgets::{KEY, TITLE, centered};

impl App {
    /// Keys while the help overlay is open: scroll, anything else closes it.
    pub(crate) fn on_help_key(&mut self, key: KeyEvent, scroll: usize) -> Mode {
        match self.keys.action(&key) {
            Some(KeyAction::Down) => Mode::Help { scroll: scroll + 1 },
            Some(KeyAction::Up) => Mode::Help {
                scroll: scroll.saturating_sub(1),
            },
            Some(KeyAction::PageDown) => Mode::Help {
                scroll: scroll + 10,
            },
            Some(KeyAction::PageUp) => Mode::Help {
                scroll: scroll.saturating_sub(10),
            },
            _ => Mode::Normal,
        }
    }

    pub(crate) fn render_help(&self, scroll: usize, area: Rect, buf: &mut Buffer) {
        let r = centered(
            area,
            area.width.saturating_sub(8).max(40),
            area.height.saturating_sub(4).max(10),
        );
        Clear.render(r, buf);
        let mut lines: Vec<Line> = Vec::new();
        if matches!(self.current_screen(), Some(Screen::Logs(_))) {
            lines.push(Line::styled(
                "Log view keys",
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ));
            for (_, keys, help, _) in &self.log_keys.bindings {
                let keys = keys
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                lines.push(Line::from(vec![
                    Span::styled(format!("  {keys:<16}"), Style::default().fg(KEY)),
                    Span::raw(help.clone()),
                ]));
            }
            lines.push(Line::raw(""));
        }
        lines.push(Line::styled(
            "Keys",
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
        for b in self.keys.bindings() {
            let keys = b
                .keys
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<16}"), Style::default().fg(KEY)),
                Span::raw(b.help.clone()),
            ]));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Commands",
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
        for (c, h) in [
            (
                ":po :deploy :svc :<crd>",
                "any resource by plural, singular, short name or kind",
            ),
            (":ns NAME", "switch namespace (:ns alone: all namespaces)"),
            (":ctx NAME", "switch kubeconfig context"),
            (":informers", "informer panel"),
            (
                ":deltas",
                "DeltaFIFO event log, full screen (:events: the Event objects)",
            ),
            (
                ":pulse",
                "cluster pulse: counts, usage, rates, restarts, warnings",
            ),
            (
                ":xray [KIND]",
                "owner tree of deploy, sts, ds, job, svc, node or ns",
            ),
            (
                ":changes",
                "latest changes across the cluster (per-object history)",
            ),
            (":pf", "active port-forwards"),
            (":diff", "the selected object across the selected clusters"),
            (":q", "quit"),
            ("/text  /~regex", "filter rows (substring, or regex)"),
            (
                "/-l sel  l",
                "label selector, answered from the label index",
            ),
        ] {
            lines.push(Line::from(vec![
                Span::styled(format!("  {c:<24}"), Style::default().fg(KEY)),
                Span::raw(h),
            ]));
        }
        let lines: Vec<Line> = lines.into_iter().skip(scroll).collect();
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .border_style(Style::default().fg(Color::Yellow))
                    .title(
                        Line::styled(
                            " Help ",
                            Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
                        )
                        .centered(),
                    )
                    .title_bottom(Line::from(" esc: close ").right_aligned()),
            )
            .render(r, buf);
    }
}
