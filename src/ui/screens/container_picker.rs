//! The container picker `s` opens on a pod: its containers (fetched with a GET: the informer's
//! cache keeps none), the default one (`kubectl.kubernetes.io/default-container`, else the first)
//! selected. A pod with one container opens its shell at once; ↑/↓ and Enter pick otherwise.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::ui::action::Effect;
use crate::ui::component::{Component, Ctx, Outcome};
use crate::ui::kit::{centered, dialog_block};

/// An open container picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContainerPicker {
    pub namespace: String,
    pub pod: String,
    /// `None` while the pod is fetched.
    pub containers: Option<Result<Vec<String>, String>>,
    pub selected: usize,
    /// `a`: attach to the container's main process rather than open a shell.
    pub attach: bool,
}

impl ContainerPicker {
    /// The session the pick starts: a shell, or attached (`a`).
    fn session(&self, container: Option<String>) -> Effect {
        let (namespace, pod) = (self.namespace.clone(), self.pod.clone());
        match (self.attach, container) {
            (true, Some(container)) => Effect::Attach {
                namespace,
                pod,
                container,
            },
            (_, container) => Effect::Shell {
                namespace,
                pod,
                container,
            },
        }
    }
}

impl ContainerPicker {
    /// A picker for `pod`'s containers, still to be fetched.
    pub fn new(namespace: String, pod: String) -> ContainerPicker {
        ContainerPicker {
            namespace,
            pod,
            containers: None,
            selected: 0,
            attach: false,
        }
    }

    /// The pod's containers arrived (`default`: the one kubectl would pick); `None`: they are
    /// another pod's. With one container the shell opens at once.
    pub fn arrived(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<(Vec<String>, usize), String>,
    ) -> Option<Outcome> {
        if self.namespace != namespace || self.pod != pod {
            return None;
        }
        Some(match result {
            Ok((names, _)) if names.len() == 1 => Outcome::Close.then(Outcome::Effects(vec![
                self.session(names.into_iter().next()),
            ])),
            Ok((names, default)) => {
                self.selected = default.min(names.len().saturating_sub(1));
                self.containers = Some(Ok(names));
                Outcome::Consumed
            }
            Err(e) => {
                self.containers = Some(Err(e));
                Outcome::Consumed
            }
        })
    }
}

impl Component for ContainerPicker {
    fn on_key(&mut self, key: KeyEvent, _ctx: &Ctx) -> Outcome {
        let n = match &self.containers {
            Some(Ok(names)) => names.len(),
            _ => 0,
        };
        match key.code {
            KeyCode::Up | KeyCode::Char('k') if n > 0 => {
                self.selected = (self.selected + n - 1) % n
            }
            KeyCode::Down | KeyCode::Char('j') if n > 0 => self.selected = (self.selected + 1) % n,
            KeyCode::Enter if n > 0 => {
                let container = match &self.containers {
                    Some(Ok(names)) => names.get(self.selected).cloned(),
                    _ => None,
                };
                return Outcome::Close.then(Outcome::Effects(vec![self.session(container)]));
            }
            KeyCode::Esc | KeyCode::Char('q') => {
                let what = if self.attach { "attach" } else { "shell" };
                return Outcome::Close.then(Outcome::Info(format!("{what} cancelled")));
            }
            _ => {}
        }
        Outcome::Consumed
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_container_picker(self, area, buf)
    }
}

pub(crate) fn render_container_picker(p: &ContainerPicker, area: Rect, buf: &mut Buffer) {
    let n = match &p.containers {
        Some(Ok(c)) => c.len().min(10),
        _ => 1,
    };
    let r = centered(area, 56, 5 + n as u16);
    Clear.render(r, buf);
    let mut lines = vec![
        Line::from(format!(
            "{} pod {}/{}",
            if p.attach { "Attach to" } else { "Shell in" },
            p.namespace,
            p.pod
        ))
        .centered(),
        Line::raw(""),
    ];
    match &p.containers {
        None => lines.push(Line::styled(
            "loading containers…",
            Style::default().fg(Color::Gray),
        )),
        Some(Err(e)) => lines.push(Line::styled(e.clone(), Style::default().fg(Color::Red))),
        Some(Ok(names)) => {
            for (i, c) in names.iter().enumerate().take(10) {
                let style = if i == p.selected {
                    Style::default().add_modifier(Modifier::REVERSED)
                } else {
                    Style::default()
                };
                lines.push(Line::styled(
                    format!(" {} {c} ", if i == p.selected { "▶" } else { " " }),
                    style,
                ));
            }
        }
    }
    Paragraph::new(lines)
        .block(dialog_block(
            " Container ",
            Color::Cyan,
            " ↑/↓: container  enter: shell  esc: cancel ",
        ))
        .render(r, buf);
}
