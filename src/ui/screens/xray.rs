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
//! ([`crate::ui::screens::operations`]: read-only refusal, kinds, confirmation), a container node
//! standing for its pod; `/` filters by name (`/-l selector` and `l`: by labels).

use std::collections::HashMap;
use std::sync::Arc;

use crossterm::event::{Event, KeyCode, KeyEvent};
use kube::api::DynamicObject;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::Screen;
use super::text::TextKind;
use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::selector::LabelSelector;
use crate::ui::action::{Effect, ObjectSummary, ViewId};
use crate::ui::app::{App, Mode};
use crate::ui::keys::KeyAction;
use crate::ui::log_stream::ContainerPick;
use crate::ui::resources::resolve;
use crate::ui::table::TextFilter;
use crate::ui::xray::{ContainerInfo, NodeKind, XFilter, XKind, Xray, counted};

/// The footer's hints on the xray.
pub(crate) const HINTS: [KeyAction; 8] = [
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

impl App {
    /// `:xray [kind]`: push the tree of `kind` roots (deployments unless told) and open its feeds.
    pub(crate) fn open_xray(&mut self, arg: Option<&str>, fx: &mut Vec<Effect>) {
        let Some(root) = XKind::root_from_arg(arg) else {
            self.error(format!(
                "xray of what? {}: one of deploy, sts, ds, job, svc, node, ns",
                arg.unwrap_or_default()
            ));
            return;
        };
        let mut screen = XrayScreen {
            model: Xray::new(root, self.namespace.clone()),
            feeds: HashMap::new(),
            fetches: HashMap::new(),
        };
        for kind in root.feeds() {
            let Some(resource) = resolve(&self.resources, kind.resource()).cloned() else {
                continue;
            };
            let view = self.next_view;
            self.next_view += 1;
            let namespace = self.scope_for(&resource);
            fx.push(self.current_cluster_only(Effect::OpenResource {
                view,
                resource,
                namespace,
                drill: None,
            }));
            screen.feeds.insert(view, *kind);
        }
        self.stack.push(Screen::Xray(Box::new(screen)));
        self.dirty = true;
    }

    /// The xray left the stack: close its feeds.
    pub(crate) fn close_xray(screen: &XrayScreen, fx: &mut Vec<Effect>) {
        let mut ids: Vec<ViewId> = screen.feeds.keys().copied().collect();
        ids.sort_unstable();
        fx.extend(ids.into_iter().map(|view| Effect::CloseView { view }));
    }

    /// The xray screen whose feed `view` is.
    fn xray_of_feed(&mut self, view: ViewId) -> Option<(&mut XrayScreen, XKind)> {
        self.stack.iter_mut().find_map(|s| match s {
            Screen::Xray(x) => {
                let kind = x.feeds.get(&view).copied()?;
                Some((&mut **x, kind))
            }
            _ => None,
        })
    }

    fn xray_on_top(&mut self) -> Option<&mut XrayScreen> {
        match self.stack.last_mut() {
            Some(Screen::Xray(x)) => Some(x),
            _ => None,
        }
    }

    /// The indexer of an xray feed; false when `view` is not one.
    pub(crate) fn xray_store(
        &mut self,
        view: ViewId,
        store: &Arc<ThreadSafeStore<DynamicObject>>,
    ) -> bool {
        let Some((x, kind)) = self.xray_of_feed(view) else {
            return false;
        };
        x.model.set_store(kind, store.clone());
        if x.model.flush(false) {
            self.dirty = true;
        }
        true
    }

    /// Changed objects of an xray feed: the roots they belong to are rebuilt (now when few,
    /// else at the next tick); false when `view` is not one.
    pub(crate) fn xray_rows(
        &mut self,
        view: ViewId,
        upserts: &[ObjectSummary],
        deletes: &[Arc<str>],
        fx: &mut Vec<Effect>,
    ) -> bool {
        let Some((x, kind)) = self.xray_of_feed(view) else {
            return false;
        };
        let refetch = x
            .model
            .apply(kind, upserts.iter().map(|u| u.object.clone()), deletes);
        let changed = x.model.flush(false);
        for pod in refetch {
            self.fetch_containers(pod, fx);
        }
        if changed {
            self.dirty = true;
        }
        true
    }

    /// The complete content of an xray feed (keys absent are gone): every root is checked again;
    /// false when `view` is not one.
    pub(crate) fn xray_resync(
        &mut self,
        view: ViewId,
        rows: &[ObjectSummary],
        fx: &mut Vec<Effect>,
    ) -> bool {
        match self.xray_of_feed(view) {
            Some((x, _)) => x.model.mark_all(),
            None => return false,
        }
        self.xray_rows(view, rows, &[], fx)
    }

    /// The tick: a burst of changes left for it is rebuilt now.
    pub(crate) fn xray_tick(&mut self) -> bool {
        let mut changed = false;
        for s in &mut self.stack {
            if let Screen::Xray(x) = s {
                changed |= x.model.flush(true);
            }
        }
        changed
    }

    /// An xray feed could not be opened (forbidden, failed); false when `view` is not one.
    pub(crate) fn xray_feed_error(&mut self, view: ViewId, message: &str) -> bool {
        let Some((_, kind)) = self.xray_of_feed(view) else {
            return false;
        };
        self.error(format!("xray: {}: {message}", kind.resource()));
        self.dirty = true;
        true
    }

    /// Ask for a pod's containers (a GET of the pod).
    fn fetch_containers(&mut self, pod: Arc<str>, fx: &mut Vec<Effect>) {
        let Some(resource) = resolve(&self.resources, "pods").cloned() else {
            return;
        };
        let (namespace, name) = match pod.split_once('/') {
            Some((ns, n)) => (Some(ns.to_string()), n.to_string()),
            None => (None, pod.to_string()),
        };
        let request = self.next_request;
        self.next_request += 1;
        if let Some(x) = self.stack.iter_mut().rev().find_map(|s| match s {
            Screen::Xray(x) => Some(x),
            _ => None,
        }) {
            x.fetches.insert(request, pod);
            fx.push(Effect::FetchYaml {
                request,
                resource,
                namespace,
                name,
            });
        }
    }

    /// The answer to a container fetch; false when `request` is not one.
    pub(crate) fn xray_fetched(
        &mut self,
        request: u64,
        result: &Result<serde_json::Value, String>,
    ) -> bool {
        for s in &mut self.stack {
            if let Screen::Xray(x) = s
                && let Some(pod) = x.fetches.remove(&request)
            {
                let containers = match result {
                    Ok(v) => ContainerInfo::of_pod(v),
                    Err(e) => {
                        tracing::info!(%pod, error = %e, "xray: containers not fetched");
                        Vec::new()
                    }
                };
                x.model.set_containers(pod, containers);
                self.dirty = true;
                return true;
            }
        }
        false
    }

    /// Keys of the xray screen; false when not one of them.
    pub(crate) fn on_xray_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        let h = self.table_height();
        let Some(x) = self.xray_on_top() else {
            return false;
        };
        match action {
            KeyAction::ToggleNode | KeyAction::Mark => {
                if let Some(pod) = x.model.toggle() {
                    self.fetch_containers(pod, fx);
                }
            }
            KeyAction::Enter => {
                let Some(row) = x.model.selected().cloned() else {
                    return true;
                };
                if row.kind == NodeKind::Container {
                    self.xray_logs(fx);
                } else if let Some((resource, _, obj)) = self.xray_selected() {
                    // An object node: the menu of what the table offers on a row.
                    self.open_node_actions(&resource, &obj, row.expandable);
                } else if row.expandable
                    && let Some(pod) = self.xray_on_top().and_then(|x| x.model.toggle())
                {
                    self.fetch_containers(pod, fx);
                }
            }
            KeyAction::ExpandAll => x.model.expand_all(true),
            KeyAction::CollapseAll => x.model.expand_all(false),
            KeyAction::Yaml => self.xray_text(TextKind::Yaml, fx),
            KeyAction::Describe => self.xray_text(TextKind::Describe, fx),
            KeyAction::Logs => self.xray_logs(fx),
            KeyAction::History => self.xray_history(fx),
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
            | KeyAction::PortForward => {
                self.on_operate_key(action, fx);
                return true;
            }
            KeyAction::Filter => {
                self.mode = Mode::Filter {
                    input: Input::new(x.model.filter.raw.clone()),
                }
            }
            KeyAction::LabelFilter => {
                let raw = x.model.filter.raw.clone();
                let text = if raw.starts_with("-l") {
                    raw
                } else {
                    "-l ".to_string()
                };
                self.mode = Mode::Filter {
                    input: Input::new(text),
                }
            }
            // Sorting keys do not apply to the tree.
            _ => return true,
        }
        if let Some(x) = self.xray_on_top() {
            x.model.scroll_into_view(h);
        }
        true
    }

    /// The selected node's object as a row summary, with its resource.
    pub(crate) fn xray_selected(
        &self,
    ) -> Option<(crate::cluster::ResourceInfo, XKind, ObjectSummary)> {
        let Some(Screen::Xray(x)) = self.current_screen() else {
            return None;
        };
        let (kind, obj) = x.model.selected_object()?;
        let resource = resolve(&self.resources, kind.resource()).cloned()?;
        let summary = ObjectSummary::from_object(kind.kind(), &obj, None)?;
        Some((resource, kind, summary))
    }

    fn xray_text(&mut self, kind: TextKind, fx: &mut Vec<Effect>) {
        if let Some((resource, _, obj)) = self.xray_selected() {
            self.fetch_text_of(kind, resource, &obj, fx);
        }
    }

    /// `h`: the history timeline of the selected node's object (a container node: its pod).
    fn xray_history(&mut self, fx: &mut Vec<Effect>) {
        if let Some((resource, _, obj)) = self.xray_selected() {
            let label = crate::ui::action::resource_label(&resource);
            self.open_history(&label, &obj.key, None, fx);
        }
    }

    /// Logs of the selected node: a container's, a pod's, or a workload's / Service's pods.
    fn xray_logs(&mut self, fx: &mut Vec<Effect>) {
        let Some((_, kind, obj)) = self.xray_selected() else {
            return;
        };
        let pick = match self.current_screen() {
            Some(Screen::Xray(x)) => x
                .model
                .selected()
                .filter(|r| r.kind == NodeKind::Container)
                .and_then(|r| r.id.rsplit_once("/c/").map(|(_, c)| c.to_string()))
                .map_or(ContainerPick::All, ContainerPick::One),
            _ => ContainerPick::All,
        };
        self.open_logs_of(kind.kind(), &obj, pick, false, fx);
    }

    /// Up, down, page, top, bottom.
    pub(crate) fn nav_xray(&mut self, action: KeyAction, n: usize) {
        let h = self.table_height();
        let Some(x) = self.xray_on_top() else {
            return;
        };
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
        x.model.scroll_into_view(h);
    }

    /// A key of the filter line while the xray is on top: `/text` (live), `/-l selector` (on
    /// Enter).
    pub(crate) fn on_xray_filter_key(&mut self, key: KeyEvent, mut input: Input) -> Mode {
        match key.code {
            KeyCode::Esc => {
                self.set_xray_filter("");
                Mode::Normal
            }
            KeyCode::Enter => {
                let text = input.value().trim().to_string();
                self.set_xray_filter(&text);
                Mode::Normal
            }
            _ => {
                input.handle_event(&Event::Key(key));
                let text = input.value().to_string();
                if !text.starts_with("-l") {
                    self.set_xray_filter(&text);
                }
                Mode::Filter { input }
            }
        }
    }

    /// Parse and apply a filter to the xray on top (empty: clear); an invalid one is an error.
    pub(crate) fn set_xray_filter(&mut self, text: &str) {
        let filter = if let Some(sel) = text.strip_prefix("-l") {
            match LabelSelector::parse(sel.trim()) {
                Ok(s) if s.is_empty() => Ok(XFilter::default()),
                Ok(s) => Ok(XFilter {
                    text: None,
                    label: Some(s),
                    raw: text.to_string(),
                }),
                Err(e) => Err(format!("invalid label selector {sel:?}: {e}")),
            }
        } else if text.is_empty() {
            Ok(XFilter::default())
        } else {
            TextFilter::parse(text).map(|t| XFilter {
                text: Some(t),
                label: None,
                raw: text.to_string(),
            })
        };
        let h = self.table_height();
        match filter {
            Ok(f) => {
                if let Some(x) = self.xray_on_top() {
                    x.model.set_filter(f);
                    x.model.scroll_into_view(h);
                }
            }
            Err(e) => self.error(e),
        }
    }

    /// Esc on a filtered xray clears the filter (true) before going back.
    pub(crate) fn xray_clear_filter(&mut self) -> bool {
        match self.xray_on_top() {
            Some(x) if !x.model.filter.is_empty() => {
                x.model.set_filter(XFilter::default());
                true
            }
            _ => false,
        }
    }

    /// Header lines: the root kind and scope, the filter and the tree's size.
    pub(crate) fn xray_header(&self, x: &XrayScreen, label: Style, value: Style) -> [Line<'_>; 2] {
        let m = &x.model;
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
        [l2, l3]
    }

    pub(crate) fn render_xray(&self, x: &XrayScreen, area: Rect, buf: &mut Buffer) {
        x.model.draw(area, buf);
    }
}
