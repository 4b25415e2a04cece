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

use crate::cluster::ResourceInfo;
use crate::ui::action::Effect;
use crate::ui::app::{App, Mode};
use crate::ui::apply::{ApplyPlan, ApplySource, template_namespace};
use crate::ui::kit::{centered, dialog_block};
use crate::ui::resources::resolve;

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

impl App {
    /// Why creates and applies are refused, if they are: read-only mode for the key's target
    /// or for the current context, where they are sent.
    fn create_refused(&self) -> Option<String> {
        self.readonly_for_cluster(None)
            .or_else(|| self.fleet.readonly_reason(&self.connection.context))
            .map(|why| format!("read-only mode: create and apply are disabled ({why})"))
    }

    /// Where a new object goes: the current namespace, the first of a set, else `default`.
    fn create_namespace(&self) -> String {
        template_namespace(self.namespace.as_deref(), true).unwrap_or_default()
    }

    /// Open the editor on a template for a new `resource` (refused in read-only mode).
    pub(crate) fn ask_create(&mut self, resource: ResourceInfo, fx: &mut Vec<Effect>) {
        if let Some(refused) = self.create_refused() {
            self.error(refused);
            return;
        }
        fx.push(Effect::Create {
            resource,
            namespace: self.create_namespace(),
            resources: self.resources.clone(),
            reopen: None,
        });
    }

    /// The server refused a confirmed apply from the editor: say so, and reopen the editor on
    /// the user's text with the message over it (not in read-only mode).
    pub(crate) fn on_apply_refused(
        &mut self,
        resource: ResourceInfo,
        text: String,
        message: String,
        fx: &mut Vec<Effect>,
    ) {
        if let Some(refused) = self.create_refused() {
            self.error(refused);
            return;
        }
        self.error(message.clone());
        fx.push(Effect::Create {
            resource,
            namespace: self.create_namespace(),
            resources: self.resources.clone(),
            reopen: Some(crate::ui::apply::Reopen {
                text,
                errors: vec![message],
            }),
        });
    }

    /// `ctrl-n`: create an object of the current table's kind.
    pub(crate) fn create_here(&mut self, fx: &mut Vec<Effect>) {
        match self.current_view().map(|v| v.resource.clone()) {
            Some(r) => self.ask_create(r, fx),
            None => self.error("create: open a table of the kind first, or :create KIND"),
        }
    }

    /// `:create KIND` (KIND as `:` resolves resources: alias, short name, plural, kind).
    pub(crate) fn create_command(&mut self, arg: Option<&str>, fx: &mut Vec<Effect>) {
        let Some(kind) = arg else {
            self.create_here(fx);
            return;
        };
        match resolve(&self.resources, kind).cloned() {
            Some(r) => self.ask_create(r, fx),
            None => self.error(format!("create: unknown kind {kind}")),
        }
    }

    /// `:apply PATH`: a manifest file, or a directory's manifests.
    pub(crate) fn apply_command(&mut self, arg: Option<&str>, fx: &mut Vec<Effect>) {
        if let Some(refused) = self.create_refused() {
            self.error(refused);
            return;
        }
        let Some(path) = arg else {
            self.error("apply: name a manifest file or directory (:apply PATH)");
            return;
        };
        let path = match path.strip_prefix("~/") {
            Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
            None => std::path::PathBuf::from(path),
        };
        self.info(format!("apply {}: dry run…", path.display()));
        fx.push(Effect::ApplyFile {
            path,
            namespace: self.create_namespace(),
            resources: self.resources.clone(),
        });
    }

    /// The dry runs passed: ask (read-only mode may have come meanwhile: refused then).
    pub(crate) fn on_apply_plan(&mut self, plan: ApplyPlan) {
        if let Some(refused) = self.create_refused() {
            self.error(refused);
            return;
        }
        let cluster = self
            .fleet
            .is_fleet()
            .then(|| self.connection.context.clone());
        self.mode = Mode::ConfirmApply(Box::new(ApplyDialog {
            plan,
            force_asked: false,
            scroll: 0,
            cluster,
        }));
    }

    pub(crate) fn on_apply_key(
        &mut self,
        key: KeyEvent,
        mut d: Box<ApplyDialog>,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        let lines = dialog_lines(&d).len();
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
                    return Mode::ConfirmApply(d);
                }
                if let Some(refused) = self.create_refused() {
                    self.error(refused);
                    return Mode::Normal;
                }
                let writes = d.plan.writes(d.force_asked);
                let what = match writes.as_slice() {
                    [one] => one.what(),
                    many => format!("{} objects", many.len()),
                };
                self.info(format!("apply {what}…"));
                fx.push(Effect::Apply {
                    writes,
                    edited: d.plan.edited(),
                });
                return Mode::Normal;
            }
            _ => {
                self.info("apply cancelled");
                return Mode::Normal;
            }
        }
        Mode::ConfirmApply(d)
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
        lines.extend(doc.diff.iter().map(super::history_diff::line));
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
