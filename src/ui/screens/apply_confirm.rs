//! Create and apply: the keys and commands that start them (`ctrl-n` on a table, `:create
//! KIND`, `:apply PATH`) and the confirmation of their dry runs (see [`crate::ui::apply`]).
//!
//! The dialog lists each document (`create configmap shop/cfg`, `configure ...`), the conflict
//! its dry run met, if any (the managers and fields, as the server names them), and the diff
//! between the live object and the dry run's result, coloured as the history diff is. `y`
//! applies; over a conflict the first `y` asks again (a forced apply takes the fields from
//! their managers), the second sends it forced. k9s has no create (derailed/k9s#969);
//! `kubectl diff` then `kubectl apply --server-side` is the closest.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget, Wrap};

use crate::ui::apply::{ApplyPlan, ApplySource};
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::kit::{centered, dialog_block};

/// The confirmation of an apply's dry runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplyDialog {
    pub plan: ApplyPlan,
    /// The user confirmed once over a conflict: the next `y` sends the forced apply.
    pub force_asked: bool,
    /// The first line shown.
    pub scroll: usize,
    /// The cluster it is applied to, named when several are selected (creates and applies go
    /// to the current context, never to a merged table row's member).
    pub cluster: Option<String>,
}

impl ApplyDialog {
    /// The confirmation of `plan`'s dry runs; `cluster`: named in the dialog (several are
    /// selected).
    pub fn new(plan: ApplyPlan, cluster: Option<String>) -> ApplyDialog {
        ApplyDialog {
            plan,
            force_asked: false,
            scroll: 0,
            cluster,
        }
    }
}

impl Component for ApplyDialog {
    fn on_key(&mut self, key: KeyEvent, _ctx: &Ctx) -> Outcome {
        let d = self;
        let lines = dialog_lines(d).len();
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => {
                d.scroll = (d.scroll + 1).min(lines.saturating_sub(1))
            }
            KeyCode::Up | KeyCode::Char('k') => d.scroll = d.scroll.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => {
                d.scroll = (d.scroll + 10).min(lines.saturating_sub(1));
            }
            KeyCode::PageUp => d.scroll = d.scroll.saturating_sub(10),
            KeyCode::Char('y') | KeyCode::Char('Y') => {
                if d.plan.conflicts() && !d.force_asked {
                    d.force_asked = true;
                    d.scroll = 0;
                    return Outcome::Consumed;
                }
                let writes = d.plan.writes(d.force_asked);
                let what = match writes.as_slice() {
                    [one] => one.what(),
                    many => format!("{} objects", many.len()),
                };
                return Outcome::Close.then(Outcome::Ask(Request::Apply {
                    note: format!("apply {what}…"),
                    writes,
                    edited: d.plan.edited(),
                }));
            }
            _ => return Outcome::Close.then(Outcome::Info("apply cancelled".into())),
        }
        Outcome::Consumed
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_apply_confirm(self, area, buf)
    }
}

/// The dialog's text: the question, then per document its headline, conflict and diff.
fn dialog_lines(d: &ApplyDialog) -> Vec<Line<'_>> {
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let red = Style::default().fg(Color::Red);
    let mut lines = Vec::new();
    let from = match &d.plan.source {
        ApplySource::Editor { .. } => String::new(),
        ApplySource::File(p) => format!(" from {p}"),
    };
    if d.force_asked {
        lines.push(Line::styled(
            "Force the apply? The conflicting fields below are taken from their managers.",
            red.add_modifier(Modifier::BOLD),
        ));
    } else if d.plan.conflicts() {
        lines.push(Line::styled(
            format!(
                "The dry run{from} conflicts with another field manager (below). Apply anyway? \
                 (y asks once more before forcing)"
            ),
            red.add_modifier(Modifier::BOLD),
        ));
    } else {
        lines.push(Line::styled(
            format!(
                "Dry run passed{from}. Apply {} (server-side, field manager kinformer)?",
                match d.plan.docs.len() {
                    1 => "it".to_string(),
                    n => format!("these {n} objects"),
                }
            ),
            bold,
        ));
    }
    if let Some(cluster) = &d.cluster {
        // Acting on the wrong cluster is the classic accident: its name stands out.
        lines.push(Line::from(vec![
            ratatui::text::Span::raw("on cluster "),
            ratatui::text::Span::styled(format!(" {cluster} "), crate::ui::kit::cluster_style()),
        ]));
    }
    for doc in &d.plan.docs {
        lines.push(Line::raw(""));
        lines.push(Line::styled(doc.headline(), bold.fg(Color::Cyan)));
        if let Some(c) = &doc.conflict {
            for l in c.lines() {
                lines.push(Line::styled(format!("! {l}"), red));
            }
            lines.push(Line::styled(
                "! the diff is the forced apply's: it takes these fields",
                red,
            ));
        }
        lines.extend(doc.diff.iter().map(crate::ui::kit::diff_line));
    }
    lines
}

pub(crate) fn render_apply_confirm(d: &ApplyDialog, area: Rect, buf: &mut Buffer) {
    let width = area.width.saturating_sub(4).min(110);
    let height = area.height.saturating_sub(2);
    let r = centered(area, width, height);
    Clear.render(r, buf);
    let verb = if d.force_asked { "force" } else { "apply" };
    let keys = format!(" y: {verb}  j/k: scroll  n/esc: cancel ");
    let title = if d.force_asked {
        " Confirm forced apply "
    } else {
        " Confirm apply (dry-run diff) "
    };
    Paragraph::new(dialog_lines(d))
        .wrap(Wrap { trim: false })
        .scroll((u16::try_from(d.scroll).unwrap_or(u16::MAX), 0))
        .block(dialog_block(title, Color::Red, keys))
        .render(r, buf);
}
