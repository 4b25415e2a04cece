//! `App`'s side of creating and applying objects (`ctrl-n`, `:create`, `:apply`): the
//! read-only check, the namespace a template gets, the editor and dry-run round trips with the
//! runtime, and opening the confirmation dialog ([`super::screens::apply_confirm`]) on the dry
//! runs' plan.

use super::action::Effect;
use super::app::{App, Mode};
use super::apply::{ApplyPlan, template_namespace};
use super::operate::Write;
use super::resources::resolve;
use super::screens::apply_confirm::ApplyDialog;
use crate::cluster::ResourceInfo;

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
        self.dirty = true;
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
        self.dirty = true;
        if let Some(refused) = self.create_refused() {
            self.error(refused);
            return;
        }
        let cluster = self
            .fleet
            .is_fleet()
            .then(|| self.connection.context.clone());
        self.mode = Mode::ConfirmApply(Box::new(ApplyDialog::new(plan, cluster)));
    }

    /// A confirmed apply (the apply dialog's yes): refused if read-only mode came meanwhile.
    pub(crate) fn run_apply(
        &mut self,
        note: String,
        writes: Vec<Write>,
        edited: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        if let Some(refused) = self.create_refused() {
            self.error(refused);
            return;
        }
        self.info(note);
        fx.push(Effect::Apply { writes, edited });
    }
}
