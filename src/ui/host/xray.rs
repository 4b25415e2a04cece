//! The [xray](crate::ui::screens::xray)'s side in `App`: opening it (its feeds), the feeds'
//! indexers, rows and errors, the container fetches, the `/` line over it, and what the
//! operating keys read of its selection.

use std::collections::HashMap;
use std::sync::Arc;

use kube::api::DynamicObject;

use crate::informer::thread_safe_store::ThreadSafeStore;
use crate::selector::LabelSelector;
use crate::ui::action::{Effect, ObjectSummary, ViewId};
use crate::ui::app::{App, Screen};
use crate::ui::component::FilterLine;
use crate::ui::keys::KeyAction;
use crate::ui::resources::resolve;
use crate::ui::screens::xray::XrayScreen;
use crate::ui::table::TextFilter;
use crate::ui::xray::{ContainerInfo, XFilter, XKind, Xray};

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

    /// The selected node's object as a row summary, with its resource (the operating keys
    /// act on it).
    pub(crate) fn xray_selected(
        &self,
    ) -> Option<(crate::cluster::ResourceInfo, XKind, ObjectSummary)> {
        match self.current_screen() {
            Some(Screen::Xray(x)) => x.selected(&self.ctx()),
            _ => None,
        }
    }

    /// A key on the xray on top as its own key would act (its node menu's pick); false when
    /// the xray is not on top.
    pub(crate) fn on_xray_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        matches!(self.current_screen(), Some(Screen::Xray(_)))
            && crate::ui::screens::on_top_action(self, action, fx)
    }

    /// Ask for a pod's containers (a GET of the pod), for the topmost xray.
    pub(crate) fn fetch_xray_containers(&mut self, pod: Arc<str>, fx: &mut Vec<Effect>) {
        self.fetch_containers(pod, fx);
    }

    /// A key of the filter line while the xray is on top: `/text` (live), `/-l selector` (on
    /// Enter).
    pub(crate) fn on_xray_filter_line(&mut self, line: FilterLine) {
        match line {
            FilterLine::Esc => self.set_xray_filter(""),
            FilterLine::Enter(text) => self.set_xray_filter(text.trim()),
            FilterLine::Typed(text) => {
                if !text.starts_with("-l") {
                    self.set_xray_filter(&text);
                }
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
}
