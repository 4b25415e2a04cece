//! The port-forward dialog (`F` on a pod): the pod's container ports (fetched with a GET: the
//! informer's cache keeps no ports), ↑/↓ picks one, the local port defaults to the same (typed
//! digits replace it; taken → the next free one), Enter starts the forward.

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::ui::action::{ContainerPort, Effect};
use crate::ui::app::{App, Mode};
use crate::ui::widgets::centered;

/// An open port-forward dialog.
#[derive(Debug, Clone)]
pub struct ForwardDialog {
    pub namespace: String,
    pub pod: String,
    /// `None` while the pod is fetched.
    pub ports: Option<Result<Vec<ContainerPort>, String>>,
    pub selected: usize,
    pub local: Input,
    /// The user typed a local port (it no longer follows the selected port).
    pub local_typed: bool,
    pub error: Option<String>,
}

impl ForwardDialog {
    fn selected_port(&self) -> Option<&ContainerPort> {
        self.ports.as_ref()?.as_ref().ok()?.get(self.selected)
    }

    fn follow_selection(&mut self) {
        if !self.local_typed
            && let Some(p) = self.selected_port()
        {
            self.local = Input::new(p.port.to_string());
        }
    }
}

impl App {
    /// `F` on a pod (checks done by the caller): open the dialog and fetch the pod's ports.
    pub(crate) fn open_forward_dialog(
        &mut self,
        namespace: String,
        pod: String,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::FetchPorts {
            namespace: namespace.clone(),
            pod: pod.clone(),
        });
        self.mode = Mode::Forward(ForwardDialog {
            namespace,
            pod,
            ports: None,
            selected: 0,
            local: Input::default(),
            local_typed: false,
            error: None,
        });
    }

    /// The pod's ports arrived (ignored unless the dialog for that pod is open).
    pub(crate) fn on_ports(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<Vec<ContainerPort>, String>,
    ) {
        if let Mode::Forward(d) = &mut self.mode
            && d.namespace == namespace
            && d.pod == pod
        {
            if matches!(&result, Ok(p) if p.is_empty()) {
                d.error = Some("the pod declares no container ports".into());
            }
            d.ports = Some(result);
            d.selected = 0;
            d.follow_selection();
            self.dirty = true;
        }
    }

    pub(crate) fn on_forward_dialog_key(
        &mut self,
        key: KeyEvent,
        mut d: ForwardDialog,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        let n = d
            .ports
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .map_or(0, Vec::len);
        match key.code {
            KeyCode::Esc => {
                self.info("port-forward cancelled");
                return Mode::Normal;
            }
            KeyCode::Up | KeyCode::BackTab if n > 0 => {
                d.selected = (d.selected + n - 1) % n;
                d.follow_selection();
            }
            KeyCode::Down | KeyCode::Tab if n > 0 => {
                d.selected = (d.selected + 1) % n;
                d.follow_selection();
            }
            KeyCode::Enter => {
                let Some(port) = d.selected_port().map(|p| p.port) else {
                    d.error = Some("no container port to forward".into());
                    return Mode::Forward(d);
                };
                let local = match d.local.value().trim() {
                    "" => Ok(0),
                    t => t.parse::<u16>().map_err(|_| format!("{t:?} is not a port")),
                };
                match local {
                    Ok(local) => {
                        if self.readonly {
                            self.error(
                                "read-only mode: port-forward is disabled (started with --readonly)",
                            );
                            return Mode::Normal;
                        }
                        let id = self.next_forward;
                        self.next_forward += 1;
                        self.info(format!("forwarding to {}/{}:{port}…", d.namespace, d.pod));
                        fx.push(Effect::StartForward {
                            id,
                            namespace: d.namespace,
                            pod: d.pod,
                            port,
                            local,
                        });
                        return Mode::Normal;
                    }
                    Err(e) => d.error = Some(e),
                }
            }
            KeyCode::Char(c) if !c.is_ascii_digit() => {
                d.error = Some("digits only".into());
            }
            KeyCode::Char(_) | KeyCode::Backspace | KeyCode::Delete => {
                d.local.handle_event(&Event::Key(key));
                d.local_typed = true;
                d.error = None;
            }
            _ => {}
        }
        Mode::Forward(d)
    }
}

pub(crate) fn render_forward_dialog(d: &ForwardDialog, area: Rect, buf: &mut Buffer) {
    let n = d
        .ports
        .as_ref()
        .and_then(|r| r.as_ref().ok())
        .map_or(1, |p| p.len().max(1));
    let r = centered(area, 60, 8 + n.min(8) as u16);
    Clear.render(r, buf);
    let mut lines = vec![
        Line::from(format!("Forward a port of pod {}/{}", d.namespace, d.pod)).centered(),
        Line::raw(""),
    ];
    match &d.ports {
        None => lines.push(Line::styled(
            "loading ports…",
            Style::default().fg(Color::Gray),
        )),
        Some(Err(e)) => lines.push(Line::styled(e.clone(), Style::default().fg(Color::Red))),
        Some(Ok(ports)) => {
            for (i, p) in ports.iter().enumerate().take(8) {
                let text = format!(
                    " {} {}/{} ({}) ",
                    if i == d.selected { "▶" } else { " " },
                    p.port,
                    p.protocol,
                    if p.name.is_empty() {
                        p.container.clone()
                    } else {
                        format!("{}, {}", p.container, p.name)
                    }
                );
                let style = if i == d.selected {
                    Style::default().add_modifier(Modifier::REVERSED)
                } else {
                    Style::default()
                };
                lines.push(Line::styled(text, style));
            }
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::from(vec![
        Span::raw("local port (127.0.0.1): "),
        Span::styled(
            d.local.value().to_string(),
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        ),
        Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
    ]));
    if let Some(e) = &d.error {
        lines.push(Line::styled(e.clone(), Style::default().fg(Color::Red)));
    }
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .border_style(Style::default().fg(Color::Cyan))
                .title(
                    Line::styled(
                        " Port-forward ",
                        Style::default()
                            .fg(Color::Cyan)
                            .add_modifier(Modifier::BOLD),
                    )
                    .centered(),
                )
                .title_bottom(
                    Line::from(" ↑/↓: port  digits: local port  enter: start  esc: cancel ")
                        .centered(),
                ),
        )
        .render(r, buf);
}
