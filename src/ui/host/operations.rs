//! The operating keys of the resource table and the xray tree: delete (`ctrl-d`, propagation
//! chosen in the dialog), kill (`ctrl-k`, grace period 0), scale (`S`), rollout restart (`r`),
//! a CronJob's trigger (`T`) and suspend / resume (`Z`, by its current `spec.suspend`), cordon
//! (`c`), uncordon (`u`), drain (`D`), a shell in a pod (`s`), port-forward (`F`), edit
//! (`E`, `ctrl-e`) and set image (`i`, a dialog: [`crate::ui::screens::set_image`]). Each builds a [`Write`] for the selected object (a table row, or an xray
//! node's object: a container node stands for its pod) and goes through
//! [`crate::ui::operate`]: refused in read-only mode or on a kind it does not apply to (the
//! footer says why), confirmed when destructive, sent as an [`Effect::Write`] whose answer comes
//! back as a footer message.

use crate::cluster::ResourceInfo;
use crate::ui::action::{Effect, ObjectSummary};
use crate::ui::app::{App, Mode};
use crate::ui::drain::DrainOptions;
use crate::ui::keys::KeyAction;
use crate::ui::operate::{Operation, Propagation, Write, readonly_refusal};
use crate::ui::screens::Screen;
use crate::ui::screens::confirm::Pending;
use crate::ui::screens::scale::ScaleDialog;

impl App {
    /// The operating keys on a resource table or the xray tree; true when `action` is one of them.
    pub(crate) fn on_operate_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        let op = match action {
            KeyAction::Delete => Operation::Delete(Propagation::Background),
            KeyAction::Kill => Operation::Kill,
            KeyAction::Scale => Operation::Scale(0),
            KeyAction::Restart => Operation::Restart,
            KeyAction::Trigger => Operation::Trigger,
            // Suspend a running CronJob, resume a suspended one.
            KeyAction::Suspend => Operation::Suspend(!self.selected_suspended()),
            KeyAction::Cordon => Operation::Cordon,
            KeyAction::Uncordon => Operation::Uncordon,
            KeyAction::Drain => {
                self.ask_drain();
                return true;
            }
            KeyAction::Shell => {
                self.open_shell(fx);
                return true;
            }
            KeyAction::Attach => {
                if let Some((namespace, pod)) = self.selected_pod("attach") {
                    self.open_attach_picker(namespace, pod, fx);
                }
                return true;
            }
            KeyAction::PortForward => {
                self.ask_forward(fx);
                return true;
            }
            KeyAction::Edit => {
                self.ask_edit(fx);
                return true;
            }
            KeyAction::SetImage => {
                self.ask_set_image(fx);
                return true;
            }
            _ => return false,
        };
        self.ask_write(op, fx);
        true
    }

    /// The object the operating keys act on: the selected table row, or the selected xray
    /// node's object (a container node: its pod).
    pub(crate) fn operate_target(&self) -> Option<(ResourceInfo, ObjectSummary)> {
        if let Some(Screen::Xray(_)) = self.current_screen() {
            let (resource, _, obj) = self.xray_selected()?;
            return Some((resource, obj));
        }
        let (view, obj) = self.selected_object()?;
        Some((view.resource.clone(), obj.clone()))
    }

    /// Whether the selected object's `spec.suspend` is true (a CronJob the cache keeps it of).
    fn selected_suspended(&self) -> bool {
        self.operate_target()
            .and_then(|(_, o)| o.object.data.get("spec")?.get("suspend")?.as_bool())
            .unwrap_or(false)
    }

    /// The write `op` on the selected object, if there is one.
    fn selected_write(&self, op: Operation) -> Option<Write> {
        let (resource, obj) = self.operate_target()?;
        Some(Write {
            resource,
            namespace: obj.namespace.as_deref().map(str::to_string),
            name: obj.name.to_string(),
            op,
            cluster: obj.cluster().map(str::to_string),
        })
    }

    fn ask_write(&mut self, op: Operation, fx: &mut Vec<Effect>) {
        // Marked rows (`space`): a delete or a kill acts on each of them, as in k9s.
        if matches!(op, Operation::Delete(_) | Operation::Kill)
            && matches!(self.current_screen(), Some(Screen::Table(_)))
        {
            let marked = self.marked_objects();
            if !marked.is_empty()
                && let Some(v) = self.current_view()
            {
                let resource = v.resource.clone();
                let writes: Vec<Write> = marked
                    .iter()
                    .map(|obj| Write {
                        resource: resource.clone(),
                        namespace: obj.namespace.as_deref().map(str::to_string),
                        name: obj.name.to_string(),
                        op: op.clone(),
                        cluster: obj.cluster().map(str::to_string),
                    })
                    .collect();
                for w in &writes {
                    if let Err(e) = w.check(self.readonly_for_write(w)) {
                        self.error(e);
                        return;
                    }
                }
                self.ask_confirm(Pending::Writes(writes));
                return;
            }
        }
        let Some(w) = self.selected_write(op) else {
            return;
        };
        if let Err(e) = w.check(self.readonly_for_write(&w)) {
            self.error(e);
            return;
        }
        match w.op {
            Operation::Scale(_) => {
                let current = self.operate_target().and_then(|(_, o)| {
                    let object = crate::informer::cached::unpacked(&o.object);
                    object.data.get("spec")?.get("replicas")?.as_i64()
                });
                // The object's own cluster (a merged table's row), else the current one.
                let cluster = self.fleet.is_fleet().then(|| {
                    w.cluster
                        .clone()
                        .unwrap_or_else(|| self.connection.context.clone())
                });
                self.mode = Mode::Scale(ScaleDialog::new(w, current, cluster));
            }
            _ if w.op.destructive() => self.ask_confirm(Pending::Write(Box::new(w))),
            _ => {
                self.info(format!("{} {}…", w.op.name(), w.what()));
                fx.push(Effect::Write(w));
            }
        }
    }

    /// The selected pod's namespace and name, or the footer says why not (`what`: the
    /// operation's name).
    fn selected_pod(&mut self, what: &str) -> Option<(String, String)> {
        let (resource, obj) = self.operate_target()?;
        let ar = &resource.api_resource;
        let kind = ar.kind.clone();
        let is_pod = ar.group.is_empty() && kind == "Pod";
        let (namespace, name) = (obj.namespace.clone(), obj.name.to_string());
        if self.readonly {
            self.error(readonly_refusal(what, &self.readonly_why));
            return None;
        }
        if !is_pod {
            self.error(format!("{what} does not apply to a {kind}"));
            return None;
        }
        Some((namespace.as_deref()?.to_string(), name))
    }

    /// `F` on a pod, a Service or a Deployment: the port-forward dialog.
    fn ask_forward(&mut self, fx: &mut Vec<Effect>) {
        use crate::ui::action::ForwardKind;
        let target = self.operate_target().map(|(resource, obj)| {
            let ar = &resource.api_resource;
            let kind = match (ar.group.as_str(), ar.kind.as_str()) {
                ("", "Service") => Some(ForwardKind::Service),
                ("apps", "Deployment") => Some(ForwardKind::Deployment),
                _ => None,
            };
            (kind, obj.namespace.clone(), obj.name.to_string())
        });
        match target {
            Some((Some(kind), Some(namespace), name)) if !self.readonly => {
                self.open_target_forward_dialog(namespace.to_string(), name, kind, fx);
            }
            _ => {
                if let Some((namespace, pod)) = self.selected_pod("port-forward") {
                    self.open_forward_dialog(namespace, pod, fx);
                }
            }
        }
    }

    /// `s` on a pod: pick a container (at once when there is one), then a shell in it.
    fn open_shell(&mut self, fx: &mut Vec<Effect>) {
        if let Some((r, obj)) = self.operate_target()
            && r.api_resource.group.is_empty()
            && r.api_resource.kind == "Node"
        {
            self.ask_node_shell(&obj.name);
            return;
        }
        if let Some((namespace, pod)) = self.selected_pod("shell") {
            self.open_container_picker(namespace, pod, fx);
        }
    }

    /// `s` on a node: k9s's node shell (see [`crate::ui::node_shell`]), refused read-only,
    /// else confirmed first.
    fn ask_node_shell(&mut self, node: &str) {
        if self.readonly {
            self.error(readonly_refusal("node shell", &self.readonly_why));
            return;
        }
        if !self.user.settings.k9s_node_shell {
            self.error(crate::ui::node_shell::gate_off_message(
                self.user.context_state.as_ref().map(|s| s.path.as_path()),
            ));
            return;
        }
        let cfg = &self.user.settings.k9s_shell_pod;
        let name = crate::ui::node_shell::pod_name(node, self.now_ms);
        let pod = crate::ui::node_shell::shell_pod(node, &name, cfg);
        self.ask_confirm(Pending::NodeShell {
            node: node.to_string(),
            namespace: cfg.namespace.clone(),
            name,
            pod: Box::new(pod),
        });
    }

    /// `E` / `ctrl-e`: edit the selected object in the user's editor (the runtime suspends the
    /// dashboard for it); refused in read-only mode before anything opens.
    fn ask_edit(&mut self, fx: &mut Vec<Effect>) {
        let Some(w) = self.selected_write(Operation::Edit(Box::default())) else {
            return;
        };
        if let Err(e) = w.check(self.readonly_for_write(&w)) {
            self.error(e);
            return;
        }
        fx.push(Effect::Edit {
            resource: w.resource,
            namespace: w.namespace,
            name: w.name,
        });
    }

    /// `i`: the set-image dialog for the selected pod or workload (its containers fetched);
    /// refused in read-only mode and on other kinds before anything opens.
    fn ask_set_image(&mut self, fx: &mut Vec<Effect>) {
        let Some(w) = self.selected_write(Operation::SetImage(Default::default())) else {
            return;
        };
        if let Err(e) = w.check(self.readonly_for_write(&w)) {
            self.error(e);
            return;
        }
        self.open_set_image(w, fx);
    }

    fn ask_drain(&mut self) {
        // A drain starts with a cordon: it applies where cordon does.
        let Some(w) = self.selected_write(Operation::Cordon) else {
            return;
        };
        if self.readonly {
            self.error(readonly_refusal("drain", &self.readonly_why));
            return;
        }
        let ar = &w.resource.api_resource;
        if !w.op.applies_to(&ar.group, &ar.kind) {
            self.error(format!("drain does not apply to a {}", ar.kind));
            return;
        }
        self.ask_confirm(Pending::Drain {
            node: w.name,
            opts: DrainOptions::default(),
        });
    }
}
