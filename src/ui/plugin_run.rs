//! Running a k9s plugin on the selected object (k9s `internal/view/actions.go` `pluginAction`,
//! `internal/view/exec.go`): the pure side. The app decides whether a plugin applies here (its
//! scopes name the table's kind by plural, singular, kind, a short name or an alias, or `all`),
//! expands k9s's variables from the selected row ([`plugin_vars`]), asks first when the plugin
//! says `confirm`, refuses a `dangerous` one where writes are refused (the read-only check of
//! every write: `--readonly`, `--readonly-contexts`, the row's own cluster in a fleet), and
//! hands the runtime an `Effect::RunPlugin`. This file is the model (no `App`); the app's side
//! (whether a plugin applies, starting one) is `ui/plugin_start.rs`.
//!
//! The command is run with the expanded arguments as its argv, never through a shell (a
//! plugin whose command is `sh -c ...` gets one, as it asked). Foreground plugins get the
//! terminal as the shell does; background ones run as a task with their output in a file
//! under the state directory, and the footer says how they ended.
//!
//! Marked rows (`space`): the plugin runs once on each, in the rows' order, each with its own
//! row's variables ([`PluginRun::more`]), after one confirmation and one inputs dialog for all.
//!
//! Where this differs from k9s: k9s's plugin action reads the cursor row only and ignores the
//! marks (its `pluginAction` expands from `GetSelectedItem`); here marks are honoured as
//! `ctrl-d` honours them, and without marks the cursor row is used as in k9s. `$CONTAINER` is a pod's first container (k9s sets it in its
//! containers view only); `$GROUPS` is empty (k9s's impersonation groups); variables that are
//! not k9s's are left to the environment (the runtime expands them from its own, in the same
//! single pass, so a value is never expanded again).

use super::action::ObjectSummary;
use crate::cluster::ResourceInfo;
use crate::config::plugins::expand;

/// One plugin run, ready for the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluginRun {
    pub name: String,
    /// The command and its arguments with k9s's variables expanded, as shown to the user; the
    /// runtime runs [`Self::templates`] expanded once from [`Self::vars`], then its
    /// environment, so that a value (a cell, the filter) containing `$HOME` stays as it is.
    pub command: String,
    pub args: Vec<String>,
    /// The plugin's own command and arguments, unexpanded.
    pub templates: (String, Vec<String>),
    /// k9s's variables of the selected row.
    pub vars: Vec<(String, String)>,
    pub background: bool,
    /// Background output: one file per plugin, overwritten each run (else one file per run).
    pub overwrite_output: bool,
    /// The object's cluster (`$CONTEXT`), for the message.
    pub context: String,
    /// What it runs on (`pod shop/web-1`), for messages.
    pub target: String,
    /// The same plugin on the other marked rows, run after this one (confirmed once, with the
    /// same inputs); empty on the runtime's side.
    pub more: Vec<PluginRun>,
}

impl PluginRun {
    /// Add variables (a plugin's inputs, `INPUT_<NAME>`) and expand the command and arguments
    /// again with them.
    pub fn add_vars(&mut self, vars: Vec<(String, String)>) {
        for m in &mut self.more {
            m.add_vars(vars.clone());
        }
        for (k, v) in vars {
            self.vars.retain(|(x, _)| *x != k);
            self.vars.push((k, v));
        }
        let vars = &self.vars;
        let lookup = |n: &str| vars.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
        self.command = expand(&self.templates.0, &lookup);
        self.args = self
            .templates
            .1
            .iter()
            .map(|a| expand(a, &lookup))
            .collect();
    }

    /// What it runs on: the target, or how many rows when it runs on several.
    pub fn targets(&self) -> String {
        match self.more.len() {
            0 => self.target.clone(),
            n => format!("{} marked rows", n + 1),
        }
    }

    /// Every row it runs on, in order (`pod shop/web-1`, ...).
    pub fn all_targets(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.target.as_str()).chain(self.more.iter().map(|m| m.target.as_str()))
    }

    /// The command line as shown in the confirmation dialog.
    pub fn command_line(&self) -> String {
        std::iter::once(self.command.as_str())
            .chain(self.args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The names a resource is known by (for scopes): plural, singular, kind, short names.
pub(crate) fn resource_names(r: &ResourceInfo) -> Vec<String> {
    let ar = &r.api_resource;
    let mut names = vec![
        ar.plural.clone(),
        r.singular.clone(),
        ar.kind.clone(),
        if ar.group.is_empty() {
            ar.plural.clone()
        } else {
            format!("{}.{}", ar.plural, ar.group)
        },
    ];
    names.extend(r.short_names.iter().cloned());
    names
}

/// k9s's variables for `obj` of `resource` (`context`: the row's cluster; `cluster`, `user`:
/// the context's in the kubeconfig; `filter`: the table's text filter; `columns`: the table's
/// headers, whose cells are `obj.row.cells`).
pub fn plugin_vars(
    resource: &ResourceInfo,
    obj: &ObjectSummary,
    columns: &[String],
    context: &str,
    cluster: &str,
    user: &str,
    filter: &str,
) -> Vec<(String, String)> {
    let ar = &resource.api_resource;
    let mut vars = vec![
        (
            "NAMESPACE".to_string(),
            obj.namespace.as_deref().unwrap_or_default().to_string(),
        ),
        ("NAME".to_string(), obj.name.to_string()),
        ("CONTEXT".to_string(), context.to_string()),
        ("CLUSTER".to_string(), cluster.to_string()),
        ("USER".to_string(), user.to_string()),
        ("GROUPS".to_string(), String::new()),
        ("FILTER".to_string(), filter.to_string()),
        ("RESOURCE_GROUP".to_string(), ar.group.clone()),
        ("RESOURCE_VERSION".to_string(), ar.version.clone()),
        ("RESOURCE_NAME".to_string(), ar.plural.clone()),
    ];
    if ar.group.is_empty() && ar.kind == "Pod" {
        let first = obj
            .object
            .data
            .get("spec")
            .and_then(|s| s.get("containers"))
            .and_then(|c| c.get(0))
            .and_then(|c| c.get("name"))
            .and_then(|n| n.as_str())
            .unwrap_or_default();
        vars.push(("CONTAINER".to_string(), first.to_string()));
    }
    for (name, cell) in columns.iter().zip(obj.row.cells.iter()) {
        vars.push((format!("COL-{name}"), cell.display(0).into_owned()));
    }
    vars
}
