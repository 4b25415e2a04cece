//! `App`'s side of the [component seam](super::component): the read-only [`Ctx`] it lends a
//! component, and how it carries out the [`Outcome`] a component answers (the module doc of
//! [`super::component`] lists what each outcome does).

use super::action::Effect;
use super::app::{App, Mode, Screen};
use super::component::{Ctx, Outcome, Request};
use super::operate::Write;
use super::screens::confirm::{ConfirmWrite, Pending};
use super::screens::history_diff::DiffView;
use super::screens::prompt::Prompt;
use super::view::TextKind;

impl App {
    /// What a component may read now.
    pub(crate) fn ctx(&self) -> Ctx<'_> {
        Ctx {
            views: &self.views,
            current_view: self.current_view_id(),
            informers: &self.informers,
            events: &self.events,
            resources: &self.resources,
            connection: &self.connection,
            namespace: self.namespace.as_deref(),
            user: &self.user,
            keys: &self.keys,
            log_keys: &self.log_keys,
            theme: &self.theme,
            now_ms: self.now_ms,
            size: self.size,
            page: self.table_height().saturating_sub(1).max(1),
            table_height: self.table_height(),
            readonly: self.readonly,
            readonly_why: &self.readonly_why,
            fleet: self.fleet.is_fleet(),
            fleet_members: &self.fleet.members,
            contexts: &self.contexts,
            context_rows: &self.context_rows,
            forwards: &self.forwards,
            command_history: &self.command_history,
            ns_view: self.ns_view,
            next_request: self.next_request,
            next_view: self.next_view,
            metrics: &self.metrics,
            metrics_unavailable: self.metrics_unavailable.as_deref(),
        }
    }

    /// Carry out what a component asked for, in order.
    pub(crate) fn run_outcome(&mut self, outcome: Outcome, fx: &mut Vec<Effect>) {
        match outcome {
            Outcome::NotConsumed | Outcome::Consumed => {}
            Outcome::Close => self.mode = Mode::Normal,
            Outcome::Effects(effects) => fx.extend(effects),
            Outcome::Info(m) => self.info(m),
            Outcome::Error(m) => self.error(m),
            Outcome::Write {
                write,
                confirmed,
                note,
            } => self.run_write(write, confirmed, note, fx),
            Outcome::Pop => self.pop_screen(fx),
            Outcome::Ask(request) => self.run_request(request, fx),
            Outcome::Seq(all) => {
                for o in all {
                    self.run_outcome(o, fx);
                }
            }
        }
    }

    /// A dialog's key: `dialog` is the mode taken out while it ran (put back first), `outcome`
    /// what it answered. Returns the mode to keep (the dialog, or what the outcome opened).
    pub(crate) fn dialog_outcome(
        &mut self,
        dialog: Mode,
        outcome: Outcome,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        self.mode = dialog;
        self.run_outcome(outcome, fx);
        std::mem::replace(&mut self.mode, Mode::Normal)
    }

    /// The one write path: refused where writes are refused, confirmed first when destructive,
    /// then sent with a footer line saying so (the server's answer comes as `Action::Notify`).
    pub(crate) fn run_write(
        &mut self,
        write: Box<Write>,
        confirmed: bool,
        note: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        if let Err(e) = write.check(self.readonly_for_write(&write)) {
            self.error(e);
            return;
        }
        if !confirmed && write.op.destructive() {
            self.ask_confirm(Pending::Write(write));
            return;
        }
        self.info(note.unwrap_or_else(|| format!("{} {}…", write.op.name(), write.what())));
        fx.push(Effect::Write(*write));
    }

    /// Open the confirmation dialog for `pending` (the caller has checked read-only mode and the
    /// kind).
    pub(crate) fn ask_confirm(&mut self, pending: Pending) {
        // The object's own cluster (a merged table's row), else the one keys act on now.
        let cluster = self.fleet.is_fleet().then(|| {
            match &pending {
                Pending::Write(w) => w.cluster.clone(),
                Pending::Writes(ws) => ws.first().and_then(|w| w.cluster.clone()),
                Pending::Drain { .. } => None,
                Pending::Plugin(p) => Some(p.context.clone()),
                Pending::NodeShell { .. } => None,
            }
            .or_else(|| self.target_cluster.clone())
            .unwrap_or_else(|| self.connection.context.clone())
        });
        self.mode = Mode::Confirm(ConfirmWrite {
            pending,
            yes: false,
            cluster,
        });
    }

    /// Confirmed writes on every marked row: each checked for read-only first (one refusal
    /// stops them all), then one footer line, the marks cleared and one write each.
    fn run_writes(&mut self, ws: Vec<Write>, fx: &mut Vec<Effect>) {
        for w in &ws {
            if let Err(e) = w.check(self.readonly_for_write(w)) {
                self.error(e);
                return;
            }
        }
        if let Some(first) = ws.first() {
            self.info(format!(
                "{} {} {}…",
                first.op.name(),
                ws.len(),
                first.resource.api_resource.plural
            ));
        }
        self.clear_marks();
        fx.extend(ws.into_iter().map(Effect::Write));
    }

    fn run_request(&mut self, request: Request, fx: &mut Vec<Effect>) {
        match request {
            Request::StartDrain { node, opts } => self.mode = self.start_drain(node, opts, fx),
            Request::Writes(ws) => self.run_writes(ws, fx),
            Request::StartPlugin(run) => self.start_plugin(*run, fx),
            Request::ConfirmPlugin(run) => self.ask_confirm(Pending::Plugin(run)),
            Request::StartForward { note, effect } => self.start_forward(note, *effect, fx),
            Request::Apply {
                note,
                writes,
                edited,
            } => self.run_apply(note, writes, edited, fx),
            Request::LabelSelector(text) => self.apply_picked_labels(&text, fx),
            Request::Act(action) => {
                self.dirty = true;
                // The xray's node menu: the tree takes its keys, never the table beneath.
                if matches!(self.current_screen(), Some(Screen::Xray(_))) {
                    self.on_xray_key(action, fx);
                } else {
                    super::screens::on_key(self, action, fx);
                }
            }
            Request::EventLog(change) => self.events.change(change),
            Request::OpenHistory {
                resource,
                key,
                rv,
                cluster,
            } => self.open_history_on(&resource, &key, rv, cluster, fx),
            Request::OpenText {
                kind,
                resource,
                namespace,
                name,
            } => self.fetch_text_named(kind, *resource, namespace, &name, None, fx),
            Request::OpenDiff { title, lines } => {
                self.stack
                    .push(Screen::HistoryDiff(Box::new(DiffView::new(title, lines))));
            }
            Request::LabelPicker => self.open_picker(),
            Request::Operate(action) => {
                self.on_operate_key(action, fx);
            }
            Request::NodeActions {
                resource,
                obj,
                expandable,
            } => self.open_node_actions(&resource, &obj, expandable),
            Request::OpenLogs { kind, obj, pick } => {
                self.open_logs_of(&kind, &obj, pick, false, fx)
            }
            Request::FetchContainers(pod) => self.fetch_xray_containers(pod, fx),
            Request::RunCommand(line) => self.run_command(&line, fx),
            Request::ResetTo(resource) => self.reset_to(*resource, fx),
            Request::OpenTable {
                resource,
                namespace,
            } => {
                let id = self.open_view(*resource, namespace, fx);
                self.stack.push(Screen::Table(id));
                self.scroll_current();
            }
            Request::OpenPreviousLogs { kind, obj, pick } => {
                self.open_logs_of(&kind, &obj, pick, true, fx)
            }
            Request::ForwardPorts {
                namespace,
                pod,
                ports,
            } => self.open_forward_dialog_with(namespace, pod, ports),
            Request::UseIds { requests, views } => {
                self.next_request += requests;
                self.next_view += views;
            }
            Request::AwaitText { title, request } => {
                self.stack
                    .push(Screen::Text(super::screens::text::TextView::new(
                        TextKind::Describe,
                        title,
                        request,
                        None,
                    )))
            }
            Request::OpenHelmRelease { namespace, name } => self.open_helm_release(namespace, name),
            Request::OpenFiltered {
                resource,
                filter,
                faults,
            } => self.open_filtered(*resource, filter, faults, fx),
            Request::ClearMessage => self.message = None,
            Request::Search { text } => {
                self.mode = Mode::Filter {
                    input: Prompt::filter(text),
                }
            }
            Request::TypedCommand(line) => {
                self.remember_command(&line);
                self.run_command(&line, fx);
            }
            Request::Filter(line) => self.on_filter_line(line, fx),
        }
    }
}
