//! The actions menu Enter opens on an xray object node: what the table offers on a row — open /
//! close (a node with children), YAML, describe, logs, history, and the operating keys that apply
//! to the object's kind (none in read-only mode). ↑/↓ and Enter pick one, or its own key; each
//! runs through the xray's key path (so an operating key goes through
//! `ui/host/operations.rs`: same checks and confirmations as on a table row).

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph, Widget};

use crate::cluster::ResourceInfo;
use crate::ui::action::ObjectSummary;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::keys::{KeyAction, KeyMap};
use crate::ui::kit::{centered, dialog_block, hint_name};
use crate::ui::log_stream::log_target;
use crate::ui::operate::{Operation, Propagation};

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
    if obj.namespace.is_some() && log_target(kind, &obj.name, &obj.object).is_ok() {
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

impl NodeActions {
    /// The menu of `obj`'s actions (`expandable`: its node has children to fold), each with the
    /// key that runs it in `keys`.
    pub fn new(
        resource: &ResourceInfo,
        obj: &ObjectSummary,
        expandable: bool,
        readonly: bool,
        keys: &KeyMap,
    ) -> NodeActions {
        let items = node_actions(resource, obj, expandable, readonly)
            .into_iter()
            .map(|a| (a, keys.key_for(a)))
            .collect();
        let title = match &obj.namespace {
            Some(ns) => format!("{} {ns}/{}", resource.singular, obj.name),
            None => format!("{} {}", resource.singular, obj.name),
        };
        NodeActions {
            title,
            items,
            selected: 0,
        }
    }
}

impl Component for NodeActions {
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        let m = self;
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
            KeyCode::Esc | KeyCode::Char('q') => return Outcome::Close,
            _ => match ctx.keys.action(&key) {
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
        match picked {
            // The action runs as its key would on the tree; it may open a dialog of its own.
            Some(action) => Outcome::Close.then(Outcome::Ask(Request::Act(action))),
            None => Outcome::Consumed,
        }
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_node_actions(self, area, buf)
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
