//! The prompts over the screen on top, as in k9s: the `:` command line (completion as ghost
//! text and a list, `tab` takes the first; Up/Down recall the lines run before; Backspace on an
//! empty line or Esc leaves it) and the `/` filter line (what it filters is the screen's:
//! `App` hands every change of the line to the screen on top).
//!
//! The prompt owns its line and where Up/Down stand in the command history; it reads the
//! history, the resources, the namespaces and the contexts through the [`Ctx`], and asks
//! `App` to run a command ([`Request::TypedCommand`]) or to filter ([`Request::Filter`]).

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::ui::component::{Component, Ctx, FilterLine, Outcome, Request};
use crate::ui::kit::DIM;
use crate::ui::resources::complete;

/// Which prompt it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `:`: a command line.
    Command,
    /// `/`: the filter (or search) line of the screen on top.
    Filter,
}

/// A prompt's state.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: Input,
    /// The completions of the command line typed (none for a filter).
    pub completions: Vec<String>,
    /// Where Up/Down stand in the command history (`None`: the line typed).
    recall: Option<usize>,
}

impl Prompt {
    /// The `:` line holding `text` (completions come with the first key).
    pub fn command(text: &str) -> Self {
        Prompt {
            kind: PromptKind::Command,
            input: Input::new(text.to_string()),
            completions: Vec::new(),
            recall: None,
        }
    }

    /// The `/` line holding `text` (the filter in force).
    pub fn filter(text: String) -> Self {
        Prompt {
            kind: PromptKind::Filter,
            input: Input::new(text),
            completions: Vec::new(),
            recall: None,
        }
    }

    /// The line typed.
    pub fn value(&self) -> &str {
        self.input.value()
    }

    fn complete(&mut self, ctx: &Ctx) {
        let text = self.input.value();
        let mut c = complete(ctx.resources, &ctx.namespace_names(), ctx.contexts, text);
        c.retain(|s| s != text);
        self.completions = c;
    }

    fn on_command_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        match key.code {
            KeyCode::Esc => Outcome::Close,
            // Backspace on an empty line leaves the command line, as in k9s.
            KeyCode::Backspace if self.input.value().is_empty() => Outcome::Close,
            KeyCode::Enter => {
                let line = self.input.value().trim().to_string();
                Outcome::Close.then(Outcome::Ask(Request::TypedCommand(line)))
            }
            // Up and Down recall the lines run before, as k9s's command history.
            KeyCode::Up | KeyCode::Down => {
                let history = ctx.command_history;
                let n = history.len();
                self.recall = match (key.code, self.recall) {
                    (KeyCode::Up, None) => n.checked_sub(1),
                    (KeyCode::Up, Some(i)) => Some(i.saturating_sub(1)),
                    (_, Some(i)) if i + 1 < n => Some(i + 1),
                    _ => None,
                };
                let line = self
                    .recall
                    .and_then(|i| history.get(i))
                    .cloned()
                    .unwrap_or_default();
                self.input = Input::new(line);
                self.complete(ctx);
                Outcome::Consumed
            }
            KeyCode::Tab => {
                if let Some(c) = self.completions.first() {
                    self.input = Input::new(c.clone());
                    self.complete(ctx);
                }
                Outcome::Consumed
            }
            _ => {
                self.input.handle_event(&Event::Key(key));
                self.complete(ctx);
                Outcome::Consumed
            }
        }
    }

    fn on_filter_key(&mut self, key: KeyEvent) -> Outcome {
        let line = match key.code {
            KeyCode::Esc => {
                return Outcome::Close.then(Outcome::Ask(Request::Filter(FilterLine::Esc)));
            }
            KeyCode::Enter => {
                let text = self.input.value().to_string();
                return Outcome::Close.then(Outcome::Ask(Request::Filter(FilterLine::Enter(text))));
            }
            _ => {
                self.input.handle_event(&Event::Key(key));
                FilterLine::Typed(self.input.value().to_string())
            }
        };
        Outcome::Ask(Request::Filter(line))
    }
}

impl Component for Prompt {
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        match self.kind {
            PromptKind::Command => self.on_command_key(key, ctx),
            PromptKind::Filter => self.on_filter_key(key),
        }
    }

    /// The prompt's three rows (a bordered line).
    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        let v = self.input.value();
        let (sigil, ghost, extra) = match self.kind {
            PromptKind::Command => {
                let ghost = self
                    .completions
                    .first()
                    .and_then(|c| c.strip_prefix(v))
                    .unwrap_or("")
                    .to_string();
                let extra = if self.completions.len() > 1 {
                    format!(
                        "   {}",
                        self.completions
                            .iter()
                            .take(6)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                } else {
                    String::new()
                };
                (":", ghost, extra)
            }
            PromptKind::Filter => ("/", String::new(), String::new()),
        };
        let line = Line::from(vec![
            Span::styled(format!(" {sigil}"), Style::default().fg(Color::Yellow)),
            Span::styled(v.to_string(), Style::default().fg(Color::White)),
            Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
            Span::styled(ghost, Style::default().fg(DIM)),
            Span::styled(extra, Style::default().fg(DIM)),
        ]);
        Paragraph::new(line)
            .block(Block::bordered().border_style(Style::default().fg(Color::Yellow)))
            .render(area, buf);
    }

    fn title(&self, _ctx: &Ctx) -> Option<String> {
        Some(match self.kind {
            PromptKind::Command => ":".to_string(),
            PromptKind::Filter => "/".to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_filter_line_hands_every_change_to_app_and_closes_on_enter_or_esc() {
        let app = crate::ui::App::new(
            crate::ui::AppConfig::default(),
            crate::ui::KeyMap::defaults().unwrap(),
        );
        let mut p = Prompt::filter("we".into());
        let typed = p.on_key(key(KeyCode::Char('b')), &app.ctx());
        assert!(matches!(
            typed,
            Outcome::Ask(Request::Filter(FilterLine::Typed(ref t))) if t == "web"
        ));
        let enter = p.on_key(key(KeyCode::Enter), &app.ctx());
        let Outcome::Seq(v) = enter else {
            panic!("{enter:?}")
        };
        assert!(matches!(v[0], Outcome::Close));
        assert!(matches!(
            v[1],
            Outcome::Ask(Request::Filter(FilterLine::Enter(ref t))) if t == "web"
        ));
    }
}
