//! The actions menu Enter opens on an xray object node: what the table offers on a row — open /
//! close (a node with children), YAML, describe, logs, history, and the operating keys that apply
//! to the object's kind (none in read-only mode). ↑/↓ and Enter pick one, or its own key; each
//! runs through the xray's key path (so an operating key goes through
//! [`crate::ui::screens::operations`]: same checks and confirmations as on a table row).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::cluster::ResourceInfo;
use crate::ui::action::{Effect, ObjectSummary};
use crate::ui::app::{App, Mode};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{centered, dialog_block, hint_name};
use crate::ui::operate::{Operation, Propagation};
use crate::ui::screens::logs::log_target;

/// An open actions menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeActions {
    /// `deployment default/web`.
    pub title: String,
    /// The actions offered, with the key each is bound to.
    pub items: Vec<(KeyAction, String)>,
    pub selected: usize,
}

/// The actions that apply to `obj` of `resource` (`expandable`: the node has children).
pub fn node_actions(
    resource: &ResourceInfo,
    obj: &ObjectSummary,
    expandable: bool,
    readonly: bool,
) -> Vec<KeyAction> {
    let ar = &resource.api_resource;
    let (group, kind) = (ar.group.as_str(), ar.kind.as_str());
    let mut out = Vec::new();
    if expandable {
        out.push(KeyAction::ToggleNode);
    }
    out.extend([KeyAction::Yaml, KeyAction::Describe]);
    if obj.namespace.is_some() && log_target(kind, obj).is_ok() {
        out.push(KeyAction::Logs);
    }
    out.push(KeyAction::History);
    if readonly {
        return out;
    }
    let pod = group.is_empty() && kind == "Pod";
    let writes = [
        (
            KeyAction::Delete,
            Operation::Delete(Propagation::Background).applies_to(group, kind),
        ),
        (KeyAction::Kill, Operation::Kill.applies_to(group, kind)),
        (
            KeyAction::Scale,
            Operation::Scale(0).applies_to(group, kind),
        ),
        (
            KeyAction::Restart,
            Operation::Restart.applies_to(group, kind),
        ),
        (
            KeyAction::Trigger,
            Operation::Trigger.applies_to(group, kind),
        ),
        (
            KeyAction::Suspend,
            Operation::Suspend(true).applies_to(group, kind),
        ),
        (
            KeyAction::SetImage,
            Operation::SetImage(Default::default()).applies_to(group, kind),
        ),
        (KeyAction::Cordon, Operation::Cordon.applies_to(group, kind)),
        (
            KeyAction::Uncordon,
            Operation::Uncordon.applies_to(group, kind),
        ),
        // A drain starts with a cordon: it applies where cordon does.
        (KeyAction::Drain, Operation::Cordon.applies_to(group, kind)),
        (KeyAction::Shell, pod),
        (
            KeyAction::PortForward,
            pod || matches!((group, kind), ("", "Service") | ("apps", "Deployment")),
        ),
        (
            KeyAction::Edit,
            Operation::Edit(Box::default()).applies_to(group, kind),
        ),
    ];
    out.extend(writes.into_iter().filter(|(_, ok)| *ok).map(|(a, _)| a));
    out
}

impl App {
    /// Enter on an xray object node: the menu of its actions.
    pub(crate) fn open_node_actions(
        &mut self,
        resource: &ResourceInfo,
        obj: &ObjectSummary,
        expandable: bool,
    ) {
        let items = node_actions(resource, obj, expandable, self.readonly)
            .into_iter()
            .map(|a| (a, self.keys.key_for(a)))
            .collect();
        let title = match &obj.namespace {
            Some(ns) => format!("{} {ns}/{}", resource.singular, obj.name),
            None => format!("{} {}", resource.singular, obj.name),
        };
        self.mode = Mode::NodeActions(NodeActions {
            title,
            items,
            selected: 0,
        });
    }

    pub(crate) fn on_node_actions_key(
        &mut self,
        key: KeyEvent,
        mut m: NodeActions,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        let n = m.items.len();
        let picked = match key.code {
            KeyCode::Up if n > 0 => {
                m.selected = (m.selected + n - 1) % n;
                None
            }
            KeyCode::Down if n > 0 => {
                m.selected = (m.selected + 1) % n;
                None
            }
            KeyCode::Enter => m.items.get(m.selected).map(|(a, _)| *a),
            KeyCode::Esc | KeyCode::Char('q') => return Mode::Normal,
            _ => match self.keys.action(&key) {
                Some(KeyAction::Up) if n > 0 => {
                    m.selected = (m.selected + n - 1) % n;
                    None
                }
                Some(KeyAction::Down) if n > 0 => {
                    m.selected = (m.selected + 1) % n;
                    None
                }
                Some(a) if m.items.iter().any(|(i, _)| *i == a) => Some(a),
                _ => None,
            },
        };
        let Some(action) = picked else {
            return Mode::NodeActions(m);
        };
        // The action runs as its key would on the tree; it may open a dialog of its own.
        self.mode = Mode::Normal;
        self.dirty = true;
        self.on_xray_key(action, fx);
        std::mem::replace(&mut self.mode, Mode::Normal)
    }
}

pub(crate) fn render_node_actions(m: &NodeActions, area: Rect, buf: &mut Buffer) {
    // Wide enough for the object's name in the title.
    let w = (m.title.chars().count() as u16 + 6).max(44);
    let r = centered(area, w, 2 + m.items.len() as u16);
    Clear.render(r, buf);
    let lines: Vec<Line> = m
        .items
        .iter()
        .enumerate()
        .map(|(i, (a, k))| {
            let style = if i == m.selected {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            };
            let name = match a {
                KeyAction::ToggleNode => "open / close",
                a => hint_name(*a),
            };
            Line::styled(
                format!(
                    " {} {k:<7} {name} ",
                    if i == m.selected { "▶" } else { " " }
                ),
                style,
            )
        })
        .collect();
    Paragraph::new(lines)
        .block(dialog_block(
            format!(" {} ", m.title),
            Color::Cyan,
            " ↑/↓ enter or its key: run  esc: cancel ",
        ))
        .render(r, buf);
}
