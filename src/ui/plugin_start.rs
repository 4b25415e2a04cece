//! The app's side of running a k9s plugin ([`super::plugin_run`] is the model): whether a
//! plugin applies on the current screen, asking for its inputs or a confirmation, refusing a
//! dangerous one where writes are refused, and handing the runtime an [`Effect::RunPlugin`].

use super::action::Effect;
use super::app::{App, Mode, Screen};
use super::plugin_run::{PluginRun, plugin_vars, resource_names};
use super::screens::confirm::Pending;
use super::screens::plugin_inputs::PluginInputsDialog;
use crate::config::Plugin;
use crate::config::plugins::expand;

impl App {
    fn plugin(&self, index: u16) -> Option<&Plugin> {
        self.user.plugins.get(index as usize)
    }

    /// Whether plugin `index` applies on the current screen: a table whose kind one of its
    /// scopes names (or `all`), or whose kind a user alias in its scopes opens.
    pub(crate) fn plugin_applies(&self, index: u16) -> bool {
        let Some(p) = self.plugin(index) else {
            return false;
        };
        let Some(Screen::Table(_)) = self.current_screen() else {
            return false;
        };
        let Some(view) = self.current_view() else {
            return false;
        };
        let mut names = resource_names(&view.resource);
        for a in self.user.aliases.iter() {
            if let Some(Ok(e)) = self.user.aliases.expand(&a.name)
                && super::resources::resolve(&self.resources, &e.resource).is_some_and(|r| {
                    r.api_resource.group == view.resource.api_resource.group
                        && r.api_resource.plural == view.resource.api_resource.plural
                })
            {
                names.push(a.name.clone());
            }
        }
        for (alias, target) in super::screens::aliases::K9S_ALIASES {
            if names.iter().any(|n| n == target) {
                names.push(alias.to_string());
            }
        }
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        p.applies_to(&refs)
    }

    /// Run plugin `index` on the selected row, or once on each marked row (`space`) after one
    /// confirmation when the plugin asks for one (see the module documentation).
    pub(crate) fn run_plugin(&mut self, index: u16, fx: &mut Vec<Effect>) {
        let Some(p) = self.plugin(index).cloned() else {
            return;
        };
        if !self.plugin_applies(index) {
            self.error(format!(
                "plugin {}: not for this view (scopes: {})",
                p.name,
                p.scopes.join(", ")
            ));
            return;
        }
        let marked = self.marked_objects();
        let objects = if marked.is_empty() {
            match self.selected_object() {
                Some((_, obj)) => vec![obj.clone()],
                None => {
                    self.error(format!("plugin {}: no row selected", p.name));
                    return;
                }
            }
        } else {
            marked
        };
        let mut runs = Vec::with_capacity(objects.len());
        for obj in &objects {
            match self.plugin_run_on(&p, obj) {
                Ok(run) => runs.push(run),
                Err(e) => return self.error(e),
            }
        }
        let mut runs = runs.into_iter();
        let Some(mut run) = runs.next() else {
            return;
        };
        run.more = runs.collect();
        if !p.inputs.is_empty() {
            self.mode = Mode::PluginInputs(Box::new(PluginInputsDialog::new(run, p.inputs)));
            return;
        }
        if p.confirm {
            self.ask_confirm(Pending::Plugin(Box::new(run)));
        } else {
            self.start_plugin(run, fx);
        }
    }

    /// Plugin `p` on `obj`, a row of the current table: k9s's variables of that row, or why it
    /// is refused (a dangerous plugin where writes are refused, for the row's own cluster).
    fn plugin_run_on(
        &self,
        p: &Plugin,
        obj: &super::action::ObjectSummary,
    ) -> Result<PluginRun, String> {
        let Some(view) = self.current_view() else {
            return Err(format!("plugin {}: no table", p.name));
        };
        let row_cluster = obj.cluster().map(str::to_string);
        if p.dangerous
            && let Some(why) = self.readonly_for_cluster(row_cluster.as_deref())
        {
            return Err(format!(
                "read-only mode: plugin {} is dangerous and disabled ({why})",
                p.name
            ));
        }
        let context = row_cluster.unwrap_or_else(|| self.connection.context.clone());
        let (cluster, user) = self
            .context_rows
            .iter()
            .find(|r| r.name == context)
            .map(|r| (r.cluster.clone(), r.user.clone()))
            .unwrap_or_default();
        let columns: Vec<String> = view.columns.iter().map(|c| c.name.clone()).collect();
        let vars = plugin_vars(
            &view.resource,
            obj,
            &columns,
            &context,
            &cluster,
            &user,
            &view.table.filters.text_raw,
        );
        let target = match &obj.namespace {
            Some(ns) => format!("{} {ns}/{}", view.resource.singular, obj.name),
            None => format!("{} {}", view.resource.singular, obj.name),
        };
        let lookup = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        Ok(PluginRun {
            name: p.name.clone(),
            command: expand(&p.command, &lookup),
            args: p.args.iter().map(|a| expand(a, &lookup)).collect(),
            templates: (p.command.clone(), p.args.clone()),
            vars,
            background: p.background,
            overwrite_output: p.overwrite_output,
            context,
            target,
            more: Vec::new(),
        })
    }

    /// Hand a plugin run to the runtime: one run per marked row (the marks go with it, as
    /// with a write on them), in the rows' order.
    pub(crate) fn start_plugin(&mut self, mut run: PluginRun, fx: &mut Vec<Effect>) {
        let more = std::mem::take(&mut run.more);
        if run.background {
            let on = match more.len() {
                0 => run.target.clone(),
                n => format!("{} rows", n + 1),
            };
            self.info(format!(
                "plugin {} running in the background on {on}",
                run.name
            ));
        }
        if !more.is_empty() {
            self.clear_marks();
        }
        fx.extend(
            std::iter::once(run)
                .chain(more)
                .map(|r| Effect::RunPlugin(Box::new(r))),
        );
    }
}
