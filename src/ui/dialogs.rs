//! `App`'s side of the dialogs: opening each one with what it needs from the shared models,
//! and handing it what the runtime answers for it. The dialogs' own state, keys and drawing
//! are in their files under [`super::screens`] (as [`super::component::Component`]s).

use super::action::Effect;
use super::action::ObjectSummary;
use super::action::{ContainerPort, ForwardKind, SelectorPorts};
use super::app::{App, Mode};
use super::component::Component;
use super::drain::{DrainEvent, DrainOptions};
use super::operate::{ContainerImage, Write};
use super::screens::Screen;
use super::screens::container_picker::ContainerPicker;
use super::screens::drain::{DrainProgress, DrainState};
use super::screens::forward_dialog::ForwardDialog;
use super::screens::help::HelpDialog;
use super::screens::labels::LabelPicker;
use super::screens::node_actions::NodeActions;
use super::screens::set_image::SetImageDialog;
use crate::cluster::ResourceInfo;
use crate::informer::index::LABEL_INDEX;
use crossterm::event::KeyEvent;
use std::collections::HashMap;

impl App {
    /// `s` on a pod (checks done by the caller): open the picker and fetch the containers.
    pub(crate) fn open_container_picker(
        &mut self,
        namespace: String,
        pod: String,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::FetchContainers {
            namespace: namespace.clone(),
            pod: pod.clone(),
        });
        self.mode = Mode::Containers(ContainerPicker::new(namespace, pod));
    }

    /// `a` on a pod (checks done by the caller): the picker, then attach to the one picked.
    pub(crate) fn open_attach_picker(
        &mut self,
        namespace: String,
        pod: String,
        fx: &mut Vec<Effect>,
    ) {
        self.open_container_picker(namespace, pod, fx);
        if let Mode::Containers(p) = &mut self.mode {
            p.attach = true;
        }
    }

    /// The pod's containers arrived: to the picker, if it is still open for that pod.
    pub(crate) fn on_containers(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<(Vec<String>, usize), String>,
        fx: &mut Vec<Effect>,
    ) {
        let Mode::Containers(p) = &mut self.mode else {
            return;
        };
        if let Some(out) = p.arrived(namespace, pod, result) {
            self.dirty = true;
            self.run_outcome(out, fx);
        }
    }

    /// `F` on a pod (checks done by the caller): open the dialog and fetch the pod's ports.
    pub(crate) fn open_forward_dialog(
        &mut self,
        namespace: String,
        pod: String,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::FetchPorts {
            namespace: namespace.clone(),
            pod: pod.clone(),
        });
        self.mode = Mode::Forward(ForwardDialog::new(namespace, pod, ForwardKind::Pod));
    }

    /// `shift-f` on a container (its ports known): the dialog over those ports.
    pub(crate) fn open_forward_dialog_with(
        &mut self,
        namespace: String,
        pod: String,
        ports: Vec<crate::ui::action::ContainerPort>,
    ) {
        let mut d = ForwardDialog::new(namespace, pod, ForwardKind::Pod);
        d.ports = Some(Ok(ports));
        d.follow_selection();
        self.mode = Mode::Forward(d);
    }

    /// `F` on a Service or Deployment: open the dialog and fetch its ports and selector.
    pub(crate) fn open_target_forward_dialog(
        &mut self,
        namespace: String,
        name: String,
        kind: ForwardKind,
        fx: &mut Vec<Effect>,
    ) {
        fx.push(Effect::FetchTargetPorts {
            namespace: namespace.clone(),
            kind,
            name: name.clone(),
        });
        self.mode = Mode::Forward(ForwardDialog::new(namespace, name, kind));
    }

    /// A Service's or Deployment's ports arrived (ignored unless its dialog is open).
    pub(crate) fn on_target_ports(
        &mut self,
        namespace: &str,
        name: &str,
        result: Result<SelectorPorts, String>,
    ) {
        if let Mode::Forward(d) = &mut self.mode
            && d.target_ports_arrived(namespace, name, result)
        {
            self.dirty = true;
        }
    }

    /// The pod's ports arrived (ignored unless the dialog for that pod is open).
    pub(crate) fn on_ports(
        &mut self,
        namespace: &str,
        pod: &str,
        result: Result<Vec<ContainerPort>, String>,
    ) {
        if let Mode::Forward(d) = &mut self.mode
            && d.ports_arrived(namespace, pod, result)
        {
            self.dirty = true;
        }
    }

    /// Start the port-forward a dialog asked for, numbered here.
    pub(crate) fn start_forward(&mut self, note: String, mut effect: Effect, fx: &mut Vec<Effect>) {
        if let Effect::StartForward { id, .. } | Effect::StartForwardTarget { id, .. } = &mut effect
        {
            *id = self.next_forward;
            self.next_forward += 1;
        }
        self.info(note);
        fx.push(effect);
    }

    /// Open the set-image dialog for `write` (checked by the caller) and fetch the object's
    /// containers.
    pub(crate) fn open_set_image(&mut self, write: Write, fx: &mut Vec<Effect>) {
        // The object's own cluster (a merged table's row), else the current one.
        let cluster = self.fleet.is_fleet().then(|| {
            write
                .cluster
                .clone()
                .unwrap_or_else(|| self.connection.context.clone())
        });
        fx.push(Effect::FetchImages(Box::new(write.clone())));
        self.mode = Mode::SetImage(SetImageDialog::new(write, cluster));
    }

    /// The containers of a set-image's object arrived (ignored unless its dialog is open).
    pub(crate) fn on_images(&mut self, write: &Write, result: Result<Vec<ContainerImage>, String>) {
        if let Mode::SetImage(d) = &mut self.mode
            && d.images_arrived(write, result)
        {
            self.dirty = true;
        }
    }

    /// Start the confirmed drain: the dialog shows its progress.
    pub(crate) fn start_drain(
        &mut self,
        node: String,
        opts: DrainOptions,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        if self.drain.as_ref().is_some_and(DrainProgress::running) {
            self.error("a drain is already running");
            return Mode::Normal;
        }
        self.drain = Some(DrainProgress::new(node.clone(), &opts));
        fx.push(Effect::Drain { node, opts });
        Mode::Drain
    }

    /// A drain event from the runtime.
    pub(crate) fn on_drain_event(&mut self, ev: DrainEvent) {
        let Some(d) = self.drain.as_mut() else {
            return;
        };
        if let Some((summary, error)) = d.apply(ev) {
            if error {
                self.error(summary);
            } else {
                self.info(summary);
            }
        }
        self.dirty = true;
    }

    /// A key while the drain dialog is open; a finished drain is forgotten when it closes.
    pub(crate) fn on_drain_key(&mut self, key: KeyEvent, fx: &mut Vec<Effect>) -> Mode {
        let Some(mut d) = self.drain.take() else {
            return Mode::Normal;
        };
        let out = d.on_key(key, &self.ctx());
        if !matches!(d.state, DrainState::Finished { .. }) {
            self.drain = Some(d);
        }
        self.dialog_outcome(Mode::Drain, out, fx)
    }

    /// Enter on an xray object node: the menu of its actions.
    pub(crate) fn open_node_actions(
        &mut self,
        resource: &ResourceInfo,
        obj: &ObjectSummary,
        expandable: bool,
    ) {
        self.mode = Mode::NodeActions(NodeActions::new(
            resource,
            obj,
            expandable,
            self.readonly,
            &self.keys,
        ));
    }

    /// `ctrl-l` / `:labels`: the label picker, offering the current table's labels (from its
    /// index when the index answers for the view, else from its rows) or, on `:changes`, the
    /// labels the listed versions carried.
    pub(crate) fn open_picker(&mut self) {
        if let Some(Screen::Changes(c)) = self.current_screen() {
            // `:changes`: the labels the listed versions carried.
            let mut counts: HashMap<String, usize> = HashMap::new();
            for r in c.rows.iter().flatten() {
                for (k, val) in &r.labels {
                    *counts.entry(format!("{k}={val}")).or_default() += 1;
                    *counts.entry(k.clone()).or_default() += 1;
                }
            }
            let mut all: Vec<(String, usize)> = counts.into_iter().collect();
            all.sort();
            let text = c.filter.selector.clone();
            self.mode = Mode::Labels(LabelPicker::new(all, text, "changes listed"));
            return;
        }
        let Some(v) = self.current_view() else { return };
        // A namespace's view may be served by the all-namespaces informer, and a drill-down
        // shows part of its informer: the index's counts are wider than the view, so the
        // choices and counts come from the view's own rows (what the selector would pick).
        let scoped = v.namespace.is_some() || v.table.filters.drill.is_some();
        let source = match (&v.store, scoped) {
            (Some(_), false) => "label index",
            (Some(_), true) => "view's rows",
            (None, _) => "rows (index not attached)",
        };
        let index = v.store.as_ref().filter(|_| !scoped);
        let mut all: Vec<(String, usize)> = match index {
            Some(s) => s
                .list_index_func_values(LABEL_INDEX)
                .into_iter()
                .map(|val| {
                    let n = s.index_cardinality(LABEL_INDEX, &val);
                    (val, n)
                })
                .collect(),
            None => {
                // Scoped, or no index attached (yet): offer what the rows carry.
                let mut counts: HashMap<String, usize> = HashMap::new();
                for e in v.table.entries() {
                    for (k, val) in e.summary.labels() {
                        *counts.entry(format!("{k}={val}")).or_default() += 1;
                        *counts.entry(k.to_string()).or_default() += 1;
                    }
                }
                counts.into_iter().collect()
            }
        };
        all.sort();
        let text = v
            .table
            .filters
            .label
            .as_ref()
            .map(|l| l.text.clone())
            .unwrap_or_default();
        self.mode = Mode::Labels(LabelPicker::new(all, text, source));
    }

    /// The label picker's Enter: apply `text` as the selector of the table (or `:changes`);
    /// refused, the picker stays open with the error inline.
    pub(crate) fn apply_picked_labels(&mut self, text: &str, fx: &mut Vec<Effect>) {
        let applied = if let Some(Screen::Changes(_)) = self.current_screen() {
            self.set_changes_selector(text, fx)
        } else {
            let Some(id) = self.current_view_id() else {
                self.mode = Mode::Normal;
                return;
            };
            let applied = self.apply_label_filter(id, text);
            if applied {
                let msg = self.views.get(&id).and_then(|v| {
                    let lf = v.table.filters.label.as_ref()?;
                    let n = v.table.list().len();
                    Some(format!(
                        "-l {}: {n} {} ({})",
                        lf.text,
                        if n == 1 { "match" } else { "matches" },
                        if lf.from_index { "label index" } else { "scan" }
                    ))
                });
                if let Some(m) = msg {
                    self.info(m);
                }
            }
            applied
        };
        if applied {
            self.mode = Mode::Normal;
        } else {
            let error = self.message.take().map(|(m, _)| m);
            if let Mode::Labels(p) = &mut self.mode {
                p.error = error;
            }
        }
    }

    /// The help dialog at `scroll` (its keys depend on the screen on top).
    pub(crate) fn help_dialog(&self, scroll: usize) -> HelpDialog {
        HelpDialog {
            scroll,
            logs: matches!(self.current_screen(), Some(Screen::Logs(_))),
        }
    }
}
