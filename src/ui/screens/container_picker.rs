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
use crate::ui::app::{App, Mode};
use crate::ui::widgets::{centered, dialog_block};

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

impl App {
    /// `s` on a pod (checks done by the caller): open the picker and fetch the containers.
    pub(crate) fn open_container_picker(
        &mut self,
        namespace: String,
        pod: String,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::FetchContainers {
            namespace: namespace.clone(),
            pod: pod.clone(),
        });
        self.mode = Mode::Containers(ContainerPicker {
            namespace,
            pod,
            containers: None,
            selected: 0,
            attach: false,
        });
    }

    /// `a` on a pod (checks done by the caller): the picker, then attach to the one picked.
    pub(crate) fn open_attach_picker(
        &mut self,
        namespace: String,
        pod: String,
        fx: &mut Vec<Effect>,
    ) {
        self.open_container_picker(namespace, pod, fx);
        if let Mode::Containers(p) = &mut self.mode {
            p.attach = true;
        }
    }

    /// The pod's containers arrived (`default`: the one kubectl would pick). With one container
    /// the shell opens at once.
    pub(crate) fn on_containers(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<(Vec<String>, usize), String>,
        fx: &mut Vec<Effect>,
    ) {
        let Mode::Containers(p) = &mut self.mode else {
            return;
        };
        if p.namespace != namespace || p.pod != pod {
            return;
        }
        self.dirty = true;
        match result {
            Ok((names, _)) if names.len() == 1 => {
                fx.push(p.session(names.into_iter().next()));
                self.mode = Mode::Normal;
            }
            Ok((names, default)) => {
                p.selected = default.min(names.len().saturating_sub(1));
                p.containers = Some(Ok(names));
            }
            Err(e) => p.containers = Some(Err(e)),
        }
    }

    pub(crate) fn on_container_picker_key(
        &mut self,
        key: KeyEvent,
        mut p: ContainerPicker,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        let names = match &p.containers {
            Some(Ok(n)) => n.clone(),
            _ => Vec::new(),
        };
        let n = names.len();
        match key.code {
            KeyCode::Up | KeyCode::Char('k') if n > 0 => p.selected = (p.selected + n - 1) % n,
            KeyCode::Down | KeyCode::Char('j') if n > 0 => p.selected = (p.selected + 1) % n,
            KeyCode::Enter if n > 0 => {
                fx.push(p.session(names.get(p.selected).cloned()));
                return Mode::Normal;
            }
            KeyCode::Esc | KeyCode::Char('q') => {
                self.info(if p.attach {
                    "attach cancelled"
                } else {
                    "shell cancelled"
                });
                return Mode::Normal;
            }
            _ => {}
        }
        Mode::Containers(p)
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
