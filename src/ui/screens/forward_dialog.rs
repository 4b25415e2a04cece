//! The port-forward dialog (`F` on a pod, a Service or a Deployment): the pod's container ports
//! (fetched with a GET: the informer's cache keeps no ports), a Service's ports (each mapped to
//! its targetPort) or a Deployment's template ports; ↑/↓ picks one, the local port defaults to
//! the same (typed digits replace it; taken → the next free one), Enter starts the forward (to a
//! Service or Deployment: to one ready pod of its selector, following its pods).

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::ui::action::{ContainerPort, Effect, ForwardKind, SelectorPorts};
use crate::ui::app::{App, Mode};
use crate::ui::portforward::RemotePort;
use crate::ui::widgets::{centered, dialog_block};

/// An open port-forward dialog.
#[derive(Debug, Clone)]
pub struct ForwardDialog {
    pub namespace: String,
    /// The pod's name, or the Service's or Deployment's (see `kind`).
    pub pod: String,
    pub kind: ForwardKind,
    /// A Service's or Deployment's pod selector (known with the ports).
    pub selector: Option<String>,
    /// The pod port of each entry of `ports` (a Service's targetPorts).
    pub remotes: Vec<RemotePort>,
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
            kind: ForwardKind::Pod,
            selector: None,
            remotes: Vec::new(),
            ports: None,
            selected: 0,
            local: Input::default(),
            local_typed: false,
            error: None,
        });
    }

    /// `shift-f` on a container (its ports known): the dialog over those ports.
    pub(crate) fn open_forward_dialog_with(
        &mut self,
        namespace: String,
        pod: String,
        ports: Vec<ContainerPort>,
    ) {
        let mut d = ForwardDialog {
            namespace,
            pod,
            kind: ForwardKind::Pod,
            selector: None,
            remotes: Vec::new(),
            ports: Some(Ok(ports)),
            selected: 0,
            local: Input::default(),
            local_typed: false,
            error: None,
        };
        d.follow_selection();
        self.mode = Mode::Forward(d);
    }

    /// `F` on a Service or Deployment: open the dialog and fetch its ports and selector.
    pub(crate) fn open_target_forward_dialog(
        &mut self,
        namespace: String,
        name: String,
        kind: ForwardKind,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::FetchTargetPorts {
            namespace: namespace.clone(),
            kind,
            name: name.clone(),
        });
        self.mode = Mode::Forward(ForwardDialog {
            namespace,
            pod: name,
            kind,
            selector: None,
            remotes: Vec::new(),
            ports: None,
            selected: 0,
            local: Input::default(),
            local_typed: false,
            error: None,
        });
    }

    /// A Service's or Deployment's ports arrived (ignored unless its dialog is open).
    pub(crate) fn on_target_ports(
        &mut self,
        namespace: &str,
        name: &str,
        result: Result<SelectorPorts, String>,
    ) {
        if let Mode::Forward(d) = &mut self.mode
            && d.kind != ForwardKind::Pod
            && d.namespace == namespace
            && d.pod == name
        {
            let kind = if d.kind == ForwardKind::Service {
                "service"
            } else {
                "deployment"
            };
            d.ports = Some(match result {
                Ok(sp) if sp.selector.is_empty() => {
                    Err(format!("the {kind} has no selector: no pods to forward to"))
                }
                Ok(sp) => {
                    if sp.ports.is_empty() {
                        d.error = Some(format!("the {kind} declares no ports"));
                    }
                    d.selector = Some(sp.selector);
                    d.remotes = sp.remotes;
                    Ok(sp.ports)
                }
                Err(e) => Err(e),
            });
            d.selected = 0;
            d.follow_selection();
            self.dirty = true;
        }
    }

    /// The pod's ports arrived (ignored unless the dialog for that pod is open).
    pub(crate) fn on_ports(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<Vec<ContainerPort>, String>,
    ) {
        if let Mode::Forward(d) = &mut self.mode
            && d.kind == ForwardKind::Pod
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
                            self.error(crate::ui::operate::readonly_refusal(
                                "port-forward",
                                &self.readonly_why,
                            ));
                            return Mode::Normal;
                        }
                        let id = self.next_forward;
                        self.next_forward += 1;
                        if d.kind != ForwardKind::Pod {
                            let (Some(selector), Some(remote)) =
                                (d.selector.clone(), d.remotes.get(d.selected).cloned())
                            else {
                                d.error = Some("no port to forward".into());
                                return Mode::Forward(d);
                            };
                            let what = format!("{}/{}", d.kind.short(), d.pod);
                            self.info(format!(
                                "forwarding to {}/{what}:{port} (one ready pod)…",
                                d.namespace
                            ));
                            fx.push(Effect::StartForwardTarget {
                                id,
                                namespace: d.namespace,
                                what,
                                selector,
                                port: remote,
                                local,
                            });
                            return Mode::Normal;
                        }
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
    let title = match d.kind {
        ForwardKind::Pod => format!("Forward a port of pod {}/{}", d.namespace, d.pod),
        k => format!(
            "Forward a port of {}/{}/{} (one ready pod)",
            k.short(),
            d.namespace,
            d.pod
        ),
    };
    // Wide enough for its first line (a long object name), within 100 columns.
    let width = (title.chars().count() + 4).clamp(60, 100) as u16;
    let r = centered(area, width, 8 + n.min(8) as u16);
    Clear.render(r, buf);
    let mut lines = vec![Line::from(title).centered(), Line::raw("")];
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
        .block(dialog_block(
            " Port-forward ",
            Color::Cyan,
            " ↑/↓: port  digits: local port  enter: start  esc: cancel ",
        ))
        .render(r, buf);
}
