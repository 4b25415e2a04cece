//! The confirmation dialog: no destructive write (delete, kill, restart, drain) is sent without
//! it, and none at all in read-only mode. A delete chooses its propagation here (`p` cycles
//! background → foreground → orphan); a drain states kubectl's flags it runs with.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::ui::action::Effect;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::drain::DrainOptions;
use crate::ui::kit::{centered, dialog_block};
use crate::ui::operate::{Operation, Write, readonly_refusal};

/// What waits for the user's yes.
#[derive(Debug, Clone, PartialEq)]
pub enum Pending {
    /// One write through [`crate::ui::operate`].
    Write(Box<Write>),
    /// The same operation on every marked row (`space`): one write each, each answered.
    Writes(Vec<Write>),
    /// A node drain (cordon, then evict every pod) with these options.
    Drain { node: String, opts: DrainOptions },
    /// A k9s plugin with `confirm: true`.
    Plugin(Box<crate::ui::plugin_run::PluginRun>),
    /// A node shell (`s` on a node): this pod created on the node, then a shell in it.
    NodeShell {
        node: String,
        namespace: String,
        name: String,
        pod: Box<serde_json::Value>,
    },
}

/// A pending destructive operation awaiting confirmation.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmWrite {
    pub pending: Pending,
    /// Which button has focus (false: Cancel, the default).
    pub yes: bool,
    /// The cluster it acts on, named by the dialog when several are selected (`None`: one).
    pub cluster: Option<String>,
}

impl ConfirmWrite {
    /// The dialog's title and button label (`Delete`, `Kill`, `Restart`, `Drain`, ...).
    pub fn verb(&self) -> &'static str {
        let op = match &self.pending {
            Pending::Write(w) => Some(&w.op),
            Pending::Writes(ws) => ws.first().map(|w| &w.op),
            _ => None,
        };
        match &self.pending {
            Pending::Write(_) | Pending::Writes(_) => match op.unwrap_or(&Operation::Kill) {
                Operation::Delete(_) => "Delete",
                Operation::Kill => "Kill",
                Operation::Scale(_) => "Scale",
                Operation::Restart => "Restart",
                Operation::Cordon => "Cordon",
                Operation::Uncordon => "Uncordon",
                Operation::Evict => "Evict",
                Operation::Edit(_) => "Edit",
                Operation::Trigger => "Trigger",
                Operation::Suspend(true) => "Suspend",
                Operation::Suspend(false) => "Resume",
                Operation::SetImage(_) => "Set image",
                Operation::Apply(_) => "Apply",
            },
            Pending::Drain { .. } => "Drain",
            Pending::Plugin(_) => "Run",
            Pending::NodeShell { .. } => "Shell",
        }
    }

    /// The question, and the lines under it.
    fn text(&self) -> (String, Vec<String>) {
        match &self.pending {
            Pending::Write(w) => {
                let extra = match w.op {
                    Operation::Delete(_) if w.resource.api_resource.kind != "Pod" => vec![
                        "background / foreground: dependents deleted too; orphan: kept".to_string(),
                    ],
                    _ => Vec::new(),
                };
                (w.prompt(), extra)
            }
            Pending::Writes(ws) => {
                let Some(first) = ws.first() else {
                    return (String::new(), Vec::new());
                };
                let r = &first.resource;
                let kinds = if ws.len() == 1 {
                    r.singular.clone()
                } else {
                    r.api_resource.plural.clone()
                };
                let question = match &first.op {
                    Operation::Delete(p) => {
                        format!("Delete {} {kinds} (propagation {})?", ws.len(), p.as_str())
                    }
                    Operation::Kill => format!("Kill {} {kinds} now (grace period 0)?", ws.len()),
                    op => format!("{} {} {kinds}?", op.name(), ws.len()),
                };
                const SHOWN: usize = 5;
                let mut names: Vec<String> = ws
                    .iter()
                    .take(SHOWN)
                    .map(|w| match &w.namespace {
                        Some(ns) if r.namespaced => format!("{ns}/{}", w.name),
                        _ => w.name.clone(),
                    })
                    .collect();
                if ws.len() > SHOWN {
                    names.push(format!("and {} more", ws.len() - SHOWN));
                }
                (question, vec![names.join(", ")])
            }
            Pending::Drain { node, opts } => (
                format!("Drain node {node}?"),
                vec![
                    "cordon, then evict every pod (disruption budgets honoured)".to_string(),
                    format!("as kubectl drain {}", opts.flags()),
                ],
            ),
            Pending::Plugin(p) if !p.more.is_empty() => {
                const SHOWN: usize = 5;
                let mut names: Vec<&str> = p.all_targets().take(SHOWN).collect();
                let rest = format!("and {} more", p.more.len() + 1 - names.len());
                if p.more.len() + 1 > SHOWN {
                    names.push(&rest);
                }
                (
                    format!("Run plugin {} on {}?", p.name, p.targets()),
                    vec![
                        format!("once on each: {}", names.join(", ")),
                        format!("first: {}", p.command_line()),
                    ],
                )
            }
            Pending::Plugin(p) => (
                format!("Run plugin {} on {}?", p.name, p.target),
                vec![p.command_line()],
            ),
            Pending::NodeShell {
                node,
                namespace,
                name,
                pod,
            } => (
                format!("Open a shell on node {node}?"),
                vec![
                    format!(
                        "a privileged pod {namespace}/{name} ({}) on the node, hostPID,",
                        pod.pointer("/spec/containers/0/image")
                            .and_then(serde_json::Value::as_str)
                            .unwrap_or("?")
                    ),
                    "entered with nsenter into PID 1; deleted when the shell exits".to_string(),
                ],
            ),
        }
    }
}

impl Component for ConfirmWrite {
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        match key.code {
            KeyCode::Left | KeyCode::Right | KeyCode::Tab | KeyCode::BackTab => {
                self.yes = !self.yes;
                Outcome::Consumed
            }
            KeyCode::Char('p') | KeyCode::Char(' ') => {
                if let Pending::Write(w) = &mut self.pending
                    && let Operation::Delete(p) = w.op
                {
                    w.op = Operation::Delete(p.next());
                }
                if let Pending::Writes(ws) = &mut self.pending {
                    for w in ws {
                        if let Operation::Delete(p) = w.op {
                            w.op = Operation::Delete(p.next());
                        }
                    }
                }
                Outcome::Consumed
            }
            KeyCode::Char('y') | KeyCode::Char('Y') => Outcome::Close.then(self.confirmed(ctx)),
            KeyCode::Enter if self.yes => Outcome::Close.then(self.confirmed(ctx)),
            _ => Outcome::Close.then(Outcome::Info(format!(
                "{} cancelled",
                self.verb().to_lowercase()
            ))),
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_confirm(self, area, buf)
    }
}

impl ConfirmWrite {
    /// What the yes asks for: the write (confirmed), the drain, the plugin.
    fn confirmed(&self, ctx: &Ctx) -> Outcome {
        match &self.pending {
            Pending::Write(w) => Outcome::Write {
                write: w.clone(),
                confirmed: true,
                note: None,
            },
            Pending::Drain { .. } if ctx.readonly => {
                Outcome::Error(readonly_refusal("drain", ctx.readonly_why))
            }
            Pending::Writes(ws) => Outcome::Ask(Request::Writes(ws.clone())),
            Pending::Drain { node, opts } => Outcome::Ask(Request::StartDrain {
                node: node.clone(),
                opts: opts.clone(),
            }),
            Pending::Plugin(run) => Outcome::Ask(Request::StartPlugin(run.clone())),
            Pending::NodeShell { .. } if ctx.readonly => {
                Outcome::Error(readonly_refusal("node shell", ctx.readonly_why))
            }
            Pending::NodeShell {
                node,
                namespace,
                name,
                pod,
            } => Outcome::Seq(vec![
                Outcome::Info(format!("starting a shell pod on node {node}…")),
                Outcome::Effects(vec![Effect::NodeShell {
                    node: node.clone(),
                    namespace: namespace.clone(),
                    name: name.clone(),
                    pod: pod.clone(),
                }]),
            ]),
        }
    }
}

pub(crate) fn render_confirm(c: &ConfirmWrite, area: Rect, buf: &mut Buffer) {
    let (question, extra) = c.text();
    // Wide enough for the question and every line under it (they would wrap under the
    // buttons otherwise), within 100 columns.
    let widest = extra
        .iter()
        .map(|e| e.chars().count())
        .chain([question.chars().count()])
        .max()
        .unwrap_or(0);
    let width = (widest + 6).clamp(64, 100) as u16;
    let on_cluster = usize::from(c.cluster.is_some());
    let r = centered(area, width, 7 + (extra.len() + on_cluster) as u16);
    Clear.render(r, buf);
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
    let verb = c.verb();
    let mut lines = vec![Line::raw(""), Line::from(question).centered()];
    if let Some(cluster) = &c.cluster {
        // Acting on the wrong cluster is the classic accident: its name stands out.
        lines.push(
            Line::from(vec![
                Span::raw("on cluster "),
                Span::styled(format!(" {cluster} "), crate::ui::kit::cluster_style()),
            ])
            .centered(),
        );
    }
    for e in extra {
        lines.push(Line::styled(e, Style::default().fg(Color::Gray)).centered());
    }
    lines.push(Line::raw(""));
    lines.push(
        Line::from(vec![
            button("Cancel", !c.yes),
            Span::raw("   "),
            button(verb, c.yes),
        ])
        .centered(),
    );
    let keys = match &c.pending {
        Pending::Write(w) if matches!(w.op, Operation::Delete(_)) => {
            " y: delete  p: propagation  n/esc: cancel  tab: switch ".to_string()
        }
        Pending::Writes(ws)
            if ws
                .first()
                .is_some_and(|w| matches!(w.op, Operation::Delete(_))) =>
        {
            " y: delete  p: propagation  n/esc: cancel  tab: switch ".to_string()
        }
        _ => format!(" y: {}  n/esc: cancel  tab: switch ", verb.to_lowercase()),
    };
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(dialog_block(
            format!(" Confirm {} ", verb.to_lowercase()),
            Color::Red,
            keys,
        ))
        .render(r, buf);
}
