//! The xray screen (`:xray [deploy|sts|ds|job|svc|node|ns]`): the component around the xray
//! model ([`crate::ui::xray::Xray`]: a live owner tree built from the informers' indexes).
//!
//! Opening it asks the runtime for one feed per kind the tree reads ([`Effect::OpenResource`]
//! with view ids that are not tables, through the runtime's access-checked path; informers are
//! shared with the views that use them). A feed's indexer
//! ([`Action::Store`](crate::ui::action::Action::Store)) goes to the model, which answers its
//! lookups from the indexes; a feed's rows only tell which objects changed, so that the model
//! rebuilds the roots they belong to. Closing it closes those feeds. A pod opened
//! in the tree has its containers fetched with a GET ([`Effect::FetchYaml`]: the cache holds
//! pruned pods), again whenever the pod changes while open.
//!
//! Keys: space (enter on a node with children) opens / closes a node, `+` / `-` all; `y`, `d`,
//! `L`, `h` (history) act on the selected node's object (`L` on a container: that container's
//! logs; enter on a container too); the table's operating keys (`ctrl-d`, `ctrl-k`, `S`, `r`,
//! `c`, `u`, `D`, `s`, `F`, `E`) act on it through the same code path as on a table row
//! (`ui/host/operations.rs`: read-only refusal, kinds, confirmation), a container node
//! standing for its pod; `/` filters by name (`/-l selector` and `l`: by labels).

use std::collections::HashMap;
use std::sync::Arc;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::cluster::ResourceInfo;
use crate::ui::action::{ObjectSummary, ViewId};
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::keys::KeyAction;
use crate::ui::log_stream::ContainerPick;
use crate::ui::resources::resolve;
use crate::ui::view::TextKind;
use crate::ui::xray::{NodeKind, XKind, Xray, counted};

/// The footer's hints on the xray.
const HINTS: [KeyAction; 8] = [
    KeyAction::ToggleNode,
    KeyAction::ExpandAll,
    KeyAction::CollapseAll,
    KeyAction::Yaml,
    KeyAction::Logs,
    KeyAction::History,
    KeyAction::Filter,
    KeyAction::Back,
];

/// The xray screen's state: the tree, the feeds it asked for and the pods being fetched.
#[derive(Debug, Clone)]
pub struct XrayScreen {
    pub model: Xray,
    /// Feed view id → the kind its rows are.
    pub feeds: HashMap<ViewId, XKind>,
    /// YAML request → the pod whose containers it fetches.
    pub fetches: HashMap<u64, Arc<str>>,
}

impl XrayScreen {
    /// The selected node's object as a row summary, with its resource.
    pub fn selected(&self, ctx: &Ctx) -> Option<(ResourceInfo, XKind, ObjectSummary)> {
        let (kind, obj) = self.model.selected_object()?;
        let resource = resolve(ctx.resources, kind.resource()).cloned()?;
        let summary = ObjectSummary::from_object(kind.kind(), &obj, None)?;
        Some((resource, kind, summary))
    }

    fn text(&self, kind: TextKind, ctx: &Ctx) -> Outcome {
        match self.selected(ctx) {
            Some((resource, _, obj)) => Outcome::Ask(Request::OpenText {
                kind,
                resource: Box::new(resource),
                namespace: obj.namespace.as_deref().map(str::to_string),
                name: obj.name.to_string(),
            }),
            None => Outcome::Consumed,
        }
    }

    /// `h`: the history timeline of the selected node's object (a container node: its pod).
    fn history(&self, ctx: &Ctx) -> Outcome {
        match self.selected(ctx) {
            Some((resource, _, obj)) => Outcome::Ask(Request::OpenHistory {
                resource: crate::ui::action::resource_label(&resource),
                key: obj.key.to_string(),
                rv: None,
                cluster: None,
            }),
            None => Outcome::Consumed,
        }
    }

    /// Logs of the selected node: a container's, a pod's, or a workload's / Service's pods.
    fn logs(&self, ctx: &Ctx) -> Outcome {
        let Some((_, kind, obj)) = self.selected(ctx) else {
            return Outcome::Consumed;
        };
        let pick = self
            .model
            .selected()
            .filter(|r| r.kind == NodeKind::Container)
            .and_then(|r| r.id.rsplit_once("/c/").map(|(_, c)| c.to_string()))
            .map_or(ContainerPick::All, ContainerPick::One);
        Outcome::Ask(Request::OpenLogs {
            kind: kind.kind().to_string(),
            obj: Box::new(obj),
            pick,
        })
    }

    fn fetch(pod: Option<Arc<str>>) -> Outcome {
        pod.map_or(Outcome::Consumed, |pod| {
            Outcome::Ask(Request::FetchContainers(pod))
        })
    }
}

impl Component for XrayScreen {
    /// The tree takes its keys; table keys do nothing here.
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        let out = match action {
            KeyAction::ToggleNode | KeyAction::Mark => Self::fetch(self.model.toggle()),
            KeyAction::Enter => {
                let Some(row) = self.model.selected().cloned() else {
                    return Outcome::Consumed;
                };
                if row.kind == NodeKind::Container {
                    self.logs(ctx)
                } else if let Some((resource, _, obj)) = self.selected(ctx) {
                    // An object node: the menu of what the table offers on a row.
                    Outcome::Ask(Request::NodeActions {
                        resource: Box::new(resource),
                        obj: Box::new(obj),
                        expandable: row.expandable,
                    })
                } else if row.expandable {
                    Self::fetch(self.model.toggle())
                } else {
                    Outcome::Consumed
                }
            }
            KeyAction::ExpandAll => {
                self.model.expand_all(true);
                Outcome::Consumed
            }
            KeyAction::CollapseAll => {
                self.model.expand_all(false);
                Outcome::Consumed
            }
            KeyAction::Yaml => self.text(TextKind::Yaml, ctx),
            KeyAction::Describe => self.text(TextKind::Describe, ctx),
            KeyAction::Logs => self.logs(ctx),
            KeyAction::History => self.history(ctx),
            // The operating keys act on the node's object through the table's code path
            // (readonly refusal, kinds, confirmation: `operations.rs`).
            KeyAction::Delete
            | KeyAction::Kill
            | KeyAction::Scale
            | KeyAction::Restart
            | KeyAction::Trigger
            | KeyAction::Suspend
            | KeyAction::SetImage
            | KeyAction::Cordon
            | KeyAction::Uncordon
            | KeyAction::Drain
            | KeyAction::Shell
            | KeyAction::Edit
            | KeyAction::PortForward => return Outcome::Ask(Request::Operate(action)),
            KeyAction::Filter => Outcome::Ask(Request::Search {
                text: self.model.filter.raw.clone(),
            }),
            KeyAction::LabelFilter => {
                let raw = self.model.filter.raw.clone();
                let text = if raw.starts_with("-l") {
                    raw
                } else {
                    "-l ".to_string()
                };
                Outcome::Ask(Request::Search { text })
            }
            // Sorting keys do not apply to the tree.
            _ => return Outcome::Consumed,
        };
        self.model.scroll_into_view(ctx.table_height);
        out
    }

    /// Up, down, page, top, bottom.
    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let x = self;
        let len = x.model.rows().len();
        let cur = x.model.cursor();
        let next = match action {
            KeyAction::Up | KeyAction::PageUp => cur.saturating_sub(n.max(1)),
            KeyAction::Down | KeyAction::PageDown => cur + n.max(1),
            KeyAction::Top => 0,
            KeyAction::Bottom => len.saturating_sub(1),
            _ => cur,
        };
        x.model.select(next);
        x.model.scroll_into_view(ctx.table_height);
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        self.model.draw(area, buf);
    }

    /// Header lines: the root kind and scope, the filter and the tree's size.
    fn header(&self, _ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        let m = &self.model;
        let l2 = Line::from(vec![
            Span::styled(" Xray: ", label),
            Span::styled(
                format!(
                    "{} in {}",
                    m.root.resource(),
                    m.namespace.as_deref().unwrap_or("all namespaces")
                ),
                value,
            ),
            Span::raw(" │ space opens/closes, +/- all, enter: actions, y/d/L/h"),
        ]);
        let l3 = Line::from(vec![
            Span::styled(" Filter: ", label),
            Span::raw(if m.filter.raw.is_empty() {
                "none".to_string()
            } else {
                m.filter.raw.clone()
            }),
            Span::styled(" │ Tree: ", label),
            Span::raw(format!(
                "{}, {}, {}",
                counted(m.root_count(), "root", "roots"),
                counted(m.object_count(), "object", "objects"),
                counted(
                    usize::try_from(m.rebuilds).unwrap_or(usize::MAX),
                    "rebuild",
                    "rebuilds"
                )
            )),
        ]);
        Some([l2, l3])
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}
