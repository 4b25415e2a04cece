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
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::kit::{centered, dialog_block};
use crate::ui::operate::readonly_refusal;
use crate::ui::portforward::RemotePort;

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

    pub(crate) fn follow_selection(&mut self) {
        if !self.local_typed
            && let Some(p) = self.selected_port()
        {
            self.local = Input::new(p.port.to_string());
        }
    }
}

impl ForwardDialog {
    /// A dialog forwarding to `name` (a pod, or a Service's or Deployment's ready pod), its ports
    /// still to be fetched.
    pub fn new(namespace: String, name: String, kind: ForwardKind) -> ForwardDialog {
        ForwardDialog {
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
        }
    }

    /// A Service's or Deployment's ports arrived; false: they are not this dialog's.
    pub fn target_ports_arrived(
        &mut self,
        namespace: &str,
        name: &str,
        result: Result<SelectorPorts, String>,
    ) -> bool {
        let d = self;
        if d.kind == ForwardKind::Pod || d.namespace != namespace || d.pod != name {
            return false;
        }
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
        true
    }

    /// The pod's ports arrived; false: they are not this dialog's.
    pub fn ports_arrived(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<Vec<ContainerPort>, String>,
    ) -> bool {
        let d = self;
        if d.kind != ForwardKind::Pod || d.namespace != namespace || d.pod != pod {
            return false;
        }
        if matches!(&result, Ok(p) if p.is_empty()) {
            d.error = Some("the pod declares no container ports".into());
        }
        d.ports = Some(result);
        d.selected = 0;
        d.follow_selection();
        true
    }
}

impl Component for ForwardDialog {
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        let d = self;
        let n = d
            .ports
            .as_ref()
            .and_then(|r| r.as_ref().ok())
            .map_or(0, Vec::len);
        match key.code {
            KeyCode::Esc => {
                return Outcome::Close.then(Outcome::Info("port-forward cancelled".into()));
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
                    return Outcome::Consumed;
                };
                let local = match d.local.value().trim() {
                    "" => Ok(0),
                    t => t.parse::<u16>().map_err(|_| format!("{t:?} is not a port")),
                };
                match local {
                    Ok(local) => {
                        if ctx.readonly {
                            return Outcome::Close.then(Outcome::Error(readonly_refusal(
                                "port-forward",
                                ctx.readonly_why,
                            )));
                        }
                        if d.kind != ForwardKind::Pod {
                            let (Some(selector), Some(remote)) =
                                (d.selector.clone(), d.remotes.get(d.selected).cloned())
                            else {
                                d.error = Some("no port to forward".into());
                                return Outcome::Consumed;
                            };
                            let what = format!("{}/{}", d.kind.short(), d.pod);
                            let note = format!(
                                "forwarding to {}/{what}:{port} (one ready pod)…",
                                d.namespace
                            );
                            return Outcome::Close.then(Outcome::Ask(Request::StartForward {
                                note,
                                effect: Box::new(Effect::StartForwardTarget {
                                    id: 0,
                                    namespace: d.namespace.clone(),
                                    what,
                                    selector,
                                    port: remote,
                                    local,
                                }),
                            }));
                        }
                        let note = format!("forwarding to {}/{}:{port}…", d.namespace, d.pod);
                        return Outcome::Close.then(Outcome::Ask(Request::StartForward {
                            note,
                            effect: Box::new(Effect::StartForward {
                                id: 0,
                                namespace: d.namespace.clone(),
                                pod: d.pod.clone(),
                                port,
                                local,
                            }),
                        }));
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
        Outcome::Consumed
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_forward_dialog(self, area, buf)
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
