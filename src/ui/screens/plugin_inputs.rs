//! The inputs of a k9s plugin (k9s `internal/ui/dialog/plugin_inputs.go`, the plugin's
//! `inputs:`), asked before it runs: one field per input, its label and its default. A string
//! or number is typed; a bool (`space` toggles) and a dropdown (`←`/`→` pick an option) are
//! chosen. `Tab` / `↓` and `Shift-Tab` / `↑` move between fields, Enter checks every field (a
//! required one filled, a number a number) and runs the plugin with each value as
//! `$INPUT_<NAME>` (the name upper-cased, as k9s), Esc cancels.
//!
//! The dialog owns its state and its keys ([`PluginInputsDialog::on_key`]); the app only
//! holds it in [`crate::ui::app::Mode::PluginInputs`] and acts on the outcome.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::config::plugins::{InputType, PluginInput};
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::kit::{centered, dialog_block};
use crate::ui::plugin_run::PluginRun;

/// An open inputs dialog: the run it completes, and one field per input.
#[derive(Debug, Clone)]
pub struct PluginInputsDialog {
    pub run: Box<PluginRun>,
    pub inputs: Vec<PluginInput>,
    /// The typed text of each input (a bool's `true`/`false`, a dropdown's option).
    pub values: Vec<Input>,
    /// The field taking keys.
    pub focus: usize,
    /// Why Enter was refused (shown in the dialog).
    pub error: Option<String>,
}

/// What a key did to the dialog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputsOutcome {
    /// Still open.
    Open,
    /// Esc.
    Cancelled,
    /// Enter with every field acceptable: the run with the inputs' values.
    Done(Box<PluginRun>),
}

impl PluginInputsDialog {
    /// A dialog for `run`'s plugin's `inputs`, each field holding its default (a dropdown
    /// without one: its first option; a bool: `false`).
    pub fn new(run: PluginRun, inputs: Vec<PluginInput>) -> Self {
        let values = inputs
            .iter()
            .map(|i| {
                let start = match (i.kind, i.default.is_empty()) {
                    (_, false) => i.default.clone(),
                    (InputType::Bool, true) => "false".to_string(),
                    (InputType::Dropdown, true) => i.options.first().cloned().unwrap_or_default(),
                    _ => String::new(),
                };
                Input::new(start)
            })
            .collect();
        PluginInputsDialog {
            run: Box::new(run),
            inputs,
            values,
            focus: 0,
            error: None,
        }
    }

    /// The values as `(INPUT_<NAME>, value)`.
    pub fn vars(&self) -> Vec<(String, String)> {
        self.inputs
            .iter()
            .zip(&self.values)
            .map(|(i, v)| {
                (
                    format!("INPUT_{}", i.name.to_ascii_uppercase()),
                    v.value().to_string(),
                )
            })
            .collect()
    }

    /// Handle one key.
    pub fn take_key(&mut self, key: KeyEvent) -> InputsOutcome {
        let n = self.inputs.len().max(1);
        let shift_tab = key.code == KeyCode::BackTab
            || (key.code == KeyCode::Tab && key.modifiers.contains(KeyModifiers::SHIFT));
        match key.code {
            KeyCode::Esc => return InputsOutcome::Cancelled,
            KeyCode::Enter => {
                let bad = self
                    .inputs
                    .iter()
                    .zip(&self.values)
                    .enumerate()
                    .find_map(|(i, (input, v))| input.invalid(v.value().trim()).map(|e| (i, e)));
                if let Some((i, why)) = bad {
                    self.focus = i;
                    self.error = Some(why);
                    return InputsOutcome::Open;
                }
                let mut run = self.run.clone();
                run.add_vars(self.vars());
                return InputsOutcome::Done(run);
            }
            _ if shift_tab => self.focus = (self.focus + n - 1) % n,
            KeyCode::Up => self.focus = (self.focus + n - 1) % n,
            KeyCode::Tab | KeyCode::Down => self.focus = (self.focus + 1) % n,
            _ => self.edit(key),
        }
        InputsOutcome::Open
    }

    /// A key for the focused field.
    fn edit(&mut self, key: KeyEvent) {
        let (Some(input), Some(value)) =
            (self.inputs.get(self.focus), self.values.get_mut(self.focus))
        else {
            return;
        };
        self.error = None;
        match input.kind {
            InputType::Bool => {
                if matches!(
                    key.code,
                    KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right
                ) {
                    let flipped = if value.value() == "true" {
                        "false"
                    } else {
                        "true"
                    };
                    *value = Input::new(flipped.to_string());
                }
            }
            InputType::Dropdown => {
                let step: isize = match key.code {
                    KeyCode::Right | KeyCode::Char(' ') => 1,
                    KeyCode::Left => -1,
                    _ => return,
                };
                let opts = &input.options;
                if opts.is_empty() {
                    return;
                }
                let at = opts.iter().position(|o| o == value.value()).unwrap_or(0) as isize;
                let next = (at + step).rem_euclid(opts.len() as isize) as usize;
                *value = Input::new(opts[next].clone());
            }
            InputType::String | InputType::Number => {
                value.handle_event(&Event::Key(key));
            }
        }
    }

    /// Draw the dialog over `area`.
    pub fn render(&self, area: Rect, buf: &mut Buffer) {
        let height = (self.inputs.len() as u16).saturating_add(6);
        let r = centered(area, 64, height);
        Clear.render(r, buf);
        let label_w = self
            .inputs
            .iter()
            .map(|i| label(i).chars().count())
            .max()
            .unwrap_or(0);
        let mut lines = vec![
            Line::from(format!("{} on {}", self.run.name, self.run.target)).centered(),
            Line::raw(""),
        ];
        for (i, (input, value)) in self.inputs.iter().zip(&self.values).enumerate() {
            let focused = i == self.focus;
            let shown = match input.kind {
                InputType::Bool | InputType::Dropdown => format!("‹ {} ›", value.value()),
                _ => format!("{}{}", value.value(), if focused { "▏" } else { "" }),
            };
            let style = if focused {
                Style::default()
                    .fg(Color::Black)
                    .bg(Color::Cyan)
                    .add_modifier(Modifier::BOLD)
            } else {
                Style::default().fg(Color::White)
            };
            let req = if input.required { "*" } else { " " };
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{:>w$}{req} ", label(input), w = label_w),
                    Style::default().fg(Color::Yellow),
                ),
                Span::styled(shown, style),
            ]));
        }
        lines.push(Line::raw(""));
        if let Some(e) = &self.error {
            lines.push(Line::styled(e.clone(), Style::default().fg(Color::Red)));
        }
        Paragraph::new(lines)
            .block(dialog_block(
                " Plugin inputs ",
                Color::Cyan,
                " tab/↑↓ field · space/←→ choose · enter run · esc cancel ",
            ))
            .render(r, buf);
    }
}

/// An input's label (its name when it has none).
fn label(i: &PluginInput) -> &str {
    if i.label.is_empty() {
        &i.name
    } else {
        &i.label
    }
}

impl Component for PluginInputsDialog {
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        match self.take_key(key) {
            InputsOutcome::Open => Outcome::Consumed,
            InputsOutcome::Cancelled => {
                Outcome::Close.then(Outcome::Info(format!("plugin {} cancelled", self.run.name)))
            }
            InputsOutcome::Done(run) => {
                let confirm = ctx
                    .user
                    .plugins
                    .iter()
                    .find(|p| p.name == run.name)
                    .is_none_or(|p| p.confirm);
                Outcome::Close.then(Outcome::Ask(if confirm {
                    Request::ConfirmPlugin(run)
                } else {
                    Request::StartPlugin(run)
                }))
            }
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        self.render(area, buf)
    }
}
