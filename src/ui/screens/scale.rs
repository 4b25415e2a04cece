//! The scale dialog (`S` on a Deployment, StatefulSet or ReplicaSet): the current replica count,
//! an input for the new one; Enter sends the `/scale` patch through [`crate::ui::operate`]
//! (typing the count is the confirmation), Esc cancels.

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::ui::component::{Component, Ctx, Outcome};
use crate::ui::kit::{centered, dialog_block};
use crate::ui::operate::{Operation, Write};

/// Most replicas the dialog accepts (a typo guard; `kubectl scale` would take more).
pub const MAX_REPLICAS: u32 = 10_000;

/// An open scale dialog.
#[derive(Debug, Clone)]
pub struct ScaleDialog {
    /// The write to send, its count replaced by the input's.
    pub write: Box<Write>,
    /// `spec.replicas` when the dialog opened.
    pub current: Option<i64>,
    pub input: Input,
    /// The input still holds the current count as the dialog opened with it, shown selected:
    /// the first digit typed replaces it (backspace clears it), as a selected field does;
    /// another key keeps it for editing.
    pub prefilled: bool,
    /// Why the input is not a count (shown in the dialog).
    pub error: Option<String>,
    /// The cluster it scales on, named when several are selected (`None`: one).
    pub cluster: Option<String>,
}

impl ScaleDialog {
    /// The replica count typed, if it is one.
    pub fn count(&self) -> Result<u32, String> {
        let t = self.input.value().trim();
        match t.parse::<u32>() {
            Ok(n) if n <= MAX_REPLICAS => Ok(n),
            Ok(_) => Err(format!("at most {MAX_REPLICAS} replicas")),
            Err(_) if t.is_empty() => Err("type a replica count".into()),
            Err(_) => Err(format!("{t:?} is not a replica count")),
        }
    }
}

impl ScaleDialog {
    /// The dialog for `write` (a scale), the object's replicas being `current`; `cluster`:
    /// the cluster named in the dialog (several are selected).
    pub fn new(write: Write, current: Option<i64>, cluster: Option<String>) -> ScaleDialog {
        let start = current.map(|c| c.to_string()).unwrap_or_default();
        ScaleDialog {
            write: Box::new(write),
            current,
            prefilled: !start.is_empty(),
            input: Input::new(start),
            error: None,
            cluster,
        }
    }
}

impl Component for ScaleDialog {
    fn on_key(&mut self, key: KeyEvent, _ctx: &Ctx) -> Outcome {
        let d = self;
        match key.code {
            KeyCode::Esc => Outcome::Close.then(Outcome::Info("scale cancelled".into())),
            KeyCode::Enter => match d.count() {
                Ok(n) => {
                    let mut w = d.write.clone();
                    w.op = Operation::Scale(n);
                    let note = format!("scaling {} to {n}…", w.what());
                    // Typing the count is the confirmation.
                    Outcome::Close.then(Outcome::Write {
                        write: w,
                        confirmed: true,
                        note: Some(note),
                    })
                }
                Err(e) => {
                    d.error = Some(e);
                    Outcome::Consumed
                }
            },
            KeyCode::Char(c) if !c.is_ascii_digit() => {
                d.error = Some("digits only".into());
                Outcome::Consumed
            }
            KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Delete if d.prefilled => {
                d.prefilled = false;
                d.input = Input::default();
                if let KeyCode::Char(_) = key.code {
                    d.input.handle_event(&Event::Key(key));
                }
                d.error = None;
                Outcome::Consumed
            }
            _ => {
                d.prefilled = false;
                d.input.handle_event(&Event::Key(key));
                d.error = None;
                Outcome::Consumed
            }
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_scale(self, area, buf)
    }
}

pub(crate) fn render_scale(d: &ScaleDialog, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 56, 8);
    Clear.render(r, buf);
    let current = d
        .current
        .map_or_else(|| "unknown".to_string(), |c| c.to_string());
    let mut lines = vec![Line::from(format!("Scale {}", d.write.what())).centered()];
    if let Some(cluster) = &d.cluster {
        lines.push(
            Line::from(vec![
                Span::raw("on cluster "),
                Span::styled(format!(" {cluster} "), crate::ui::kit::cluster_style()),
            ])
            .centered(),
        );
    }
    lines.extend([
        Line::styled(
            format!("current replicas: {current}"),
            Style::default().fg(Color::Gray),
        )
        .centered(),
        Line::raw(""),
        Line::from(vec![
            Span::raw("replicas: "),
            Span::styled(
                d.input.value().to_string(),
                if d.prefilled {
                    // Selected: typing replaces it.
                    Style::default()
                        .fg(Color::Black)
                        .bg(Color::White)
                        .add_modifier(Modifier::BOLD)
                } else {
                    Style::default()
                        .fg(Color::White)
                        .add_modifier(Modifier::BOLD)
                },
            ),
            Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
        ])
        .centered(),
    ]);
    if let Some(e) = &d.error {
        lines.push(Line::styled(e.clone(), Style::default().fg(Color::Red)).centered());
    }
    Paragraph::new(lines)
        .block(dialog_block(
            " Scale ",
            Color::Yellow,
            " enter: scale  esc: cancel ",
        ))
        .render(r, buf);
}
