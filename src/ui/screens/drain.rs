//! The drain progress dialog: a node drain ([`crate::ui::drain`], a task of the runtime) reports
//! its [`DrainEvent`]s here — cordoned, the plan (pods to evict, skipped ones and why), each
//! eviction, a disruption budget refusing one (429, retried with backoff), the end. Esc cancels a
//! running drain (the node stays cordoned, as after an interrupted `kubectl drain`); once it has
//! ended any key closes the dialog.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::ui::action::Effect;
use crate::ui::component::{Component, Ctx, Outcome};
use crate::ui::drain::{DrainEvent, DrainOptions, PodRef};
use crate::ui::kit::{centered, dialog_block};

/// Where a drain is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrainState {
    Running,
    /// Cancel asked, waiting for the task to stop.
    Cancelling,
    /// Ended: the summary, and whether it is an error.
    Finished {
        summary: String,
        error: bool,
    },
}

/// Progress of the one drain the dashboard runs at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct DrainProgress {
    pub node: String,
    pub flags: String,
    pub state: DrainState,
    pub cordoned: bool,
    /// Pods to evict (known once planned).
    pub planned: Option<usize>,
    pub skipped: usize,
    pub warnings: Vec<String>,
    pub evicted: Vec<PodRef>,
    pub failed: Vec<(PodRef, String)>,
    /// The last refusal (a disruption budget), while it is still the latest news.
    pub blocked: Option<(PodRef, String)>,
}

impl DrainProgress {
    pub fn new(node: String, opts: &DrainOptions) -> Self {
        DrainProgress {
            node,
            flags: opts.flags(),
            state: DrainState::Running,
            cordoned: false,
            planned: None,
            skipped: 0,
            warnings: Vec::new(),
            evicted: Vec::new(),
            failed: Vec::new(),
            blocked: None,
        }
    }

    pub fn running(&self) -> bool {
        !matches!(self.state, DrainState::Finished { .. })
    }

    /// Apply one event; the summary when the drain ended with it.
    pub fn apply(&mut self, ev: DrainEvent) -> Option<(String, bool)> {
        let node = &self.node;
        let end = match ev {
            DrainEvent::Cordoned => {
                self.cordoned = true;
                None
            }
            DrainEvent::Planned {
                evict,
                skipped,
                warnings,
            } => {
                self.planned = Some(evict.len());
                self.skipped = skipped.len();
                self.warnings = warnings;
                None
            }
            DrainEvent::Blocked {
                pod,
                message,
                retry_in,
            } => {
                self.blocked = Some((
                    pod,
                    format!("{message} (retry in {:.1}s)", retry_in.as_secs_f64()),
                ));
                None
            }
            DrainEvent::Evicted(pod) => {
                if self.blocked.as_ref().is_some_and(|(p, _)| *p == pod) {
                    self.blocked = None;
                }
                self.evicted.push(pod);
                None
            }
            DrainEvent::Failed { pod, message } => {
                if self.blocked.as_ref().is_some_and(|(p, _)| *p == pod) {
                    self.blocked = None;
                }
                self.failed.push((pod, message));
                None
            }
            DrainEvent::Done { evicted, failed } => Some(if failed == 0 {
                (
                    format!("node {node} drained: {evicted} pods evicted"),
                    false,
                )
            } else {
                (
                    format!("drain node {node}: {evicted} pods evicted, {failed} failed"),
                    true,
                )
            }),
            DrainEvent::Error(m) => Some((format!("drain node {node}: {m}"), true)),
            DrainEvent::Cancelled => Some((
                format!(
                    "drain node {node} cancelled after {} evictions (the node stays cordoned)",
                    self.evicted.len()
                ),
                false,
            )),
        };
        if let Some((summary, error)) = &end {
            self.blocked = None;
            self.state = DrainState::Finished {
                summary: summary.clone(),
                error: *error,
            };
        }
        end
    }
}

impl Component for DrainProgress {
    /// Esc cancels a running drain; once it has ended any key closes the dialog (and `App`
    /// forgets the drain).
    fn on_key(&mut self, key: KeyEvent, _ctx: &Ctx) -> Outcome {
        match self.state {
            DrainState::Running => {
                if matches!(key.code, KeyCode::Esc | KeyCode::Char('c')) {
                    self.state = DrainState::Cancelling;
                    return Outcome::Effects(vec![Effect::CancelDrain]);
                }
                Outcome::Consumed
            }
            DrainState::Cancelling => Outcome::Consumed,
            DrainState::Finished { .. } => Outcome::Close,
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        let d = self;
        let r = centered(area, 72, 14);
        Clear.render(r, buf);
        let dim = Style::default().fg(Color::Gray);
        let mut lines = vec![Line::styled(
            format!("kubectl drain {} {}", d.node, d.flags),
            dim,
        )];
        lines.push(Line::from(if d.cordoned {
            "✓ cordoned".to_string()
        } else {
            "… cordoning".to_string()
        }));
        match d.planned {
            Some(n) => lines.push(Line::from(format!(
                "evicted {}/{n}  failed {}  skipped {} (DaemonSet / mirror pods)",
                d.evicted.len(),
                d.failed.len(),
                d.skipped
            ))),
            None if d.cordoned => lines.push(Line::from("… listing pods on the node")),
            None => {}
        }
        if let Some((pod, msg)) = &d.blocked {
            lines.push(Line::styled(
                format!("blocked {pod}: {msg}"),
                Style::default().fg(Color::Yellow),
            ));
        }
        if let Some(p) = d.evicted.last() {
            lines.push(Line::styled(format!("last evicted: {p}"), dim));
        }
        for (p, m) in d.failed.iter().rev().take(2) {
            lines.push(Line::styled(
                format!("failed {p}: {m}"),
                Style::default().fg(Color::Red),
            ));
        }
        for w in d.warnings.iter().take(2) {
            lines.push(Line::styled(format!("warning: {w}"), dim));
        }
        let (keys, colour) = match &d.state {
            DrainState::Running => (" esc: cancel the drain ", Color::Yellow),
            DrainState::Cancelling => {
                lines.push(Line::styled(
                    "cancelling…",
                    Style::default().fg(Color::Yellow),
                ));
                (" cancelling ", Color::Yellow)
            }
            DrainState::Finished { summary, error } => {
                let c = if *error { Color::Red } else { Color::Green };
                lines.push(Line::styled(
                    summary.clone(),
                    Style::default().fg(c).add_modifier(Modifier::BOLD),
                ));
                (" any key: close ", c)
            }
        };
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(dialog_block(
                format!(" Drain node {} ", d.node),
                colour,
                keys,
            ))
            .render(r, buf);
    }
}
