//! What the app does with the user's configuration ([`crate::config`]): configuration problems
//! in the footer, k9s aliases on the command line, hotkeys.
//!
//! - Problems: every file problem is in `kinformer config`; the footer names the first one at
//!   start (and how many more). The alias targets and plugin scopes are checked once discovery
//!   has answered (a CRD's plural is known then), and the footer names those found then; an
//!   alias whose target is not served is dropped, so its name keeps its built-in meaning.
//! - `:alias [ARGS]` resolves as k9s does ([`crate::config::aliases`]): to a kind with an
//!   optional namespace, `@context`, label selector and `/filter`.
//! - A hotkey runs its `:` command; with k9s's `keepHistory` the command's table opens on top of
//!   the current one (`esc` returns), otherwise it replaces it as `:` does.

use super::action::Effect;
use super::app::{App, Screen};
use super::resources::{COMMANDS, resolve};
use crate::config::Problem;
use crate::config::aliases::Expanded;

/// k9s views that are not API resources but may be plugin scopes or alias targets.
const K9S_VIEWS: [&str; 14] = [
    "containers",
    "container",
    "co",
    "contexts",
    "context",
    "ctx",
    "portforwards",
    "pf",
    "aliases",
    "help",
    "xray",
    "pulses",
    "pulse",
    "screendumps",
];

/// Whether `name` is something `:` opens with these resources and aliases (a resource, a
/// command, a k9s view, an alias).
pub fn names_something(
    resources: &[crate::cluster::ResourceInfo],
    aliases: &crate::config::Aliases,
    name: &str,
) -> bool {
    resolve(resources, name).is_some()
        || COMMANDS.contains(&name)
        || K9S_VIEWS.iter().any(|v| v.eq_ignore_ascii_case(name))
        || aliases.get(name).is_some()
}

/// The alias targets and plugin scopes that name nothing the cluster serves (`resources`: its
/// discovery), each a problem at its definition, and the aliases to drop.
pub fn check_against(
    user: &crate::config::UserConfig,
    resources: &[crate::cluster::ResourceInfo],
) -> (Vec<String>, Vec<Problem>) {
    let known = |n: &str| names_something(resources, &user.aliases, n);
    let (names, mut found): (Vec<String>, Vec<Problem>) = user
        .aliases
        .unknown_target_names(&known)
        .into_iter()
        .unzip();
    found.extend(crate::config::plugins::unknown_scopes(
        &user.plugins,
        &known,
    ));
    (names, found)
}

impl App {
    /// Put problems in the footer: the first, and how many more.
    fn show_problems(&mut self, found: &[Problem]) {
        if let Some(first) = found.first() {
            let more = match found.len() {
                1 => String::new(),
                n => format!(" (+{} more: kinformer config)", n - 1),
            };
            self.error(format!("config: {first}{more}"));
        }
    }

    /// At start: the problems found while loading.
    pub(crate) fn report_config_problems(&mut self) {
        let all = self.config_problems.clone();
        self.show_problems(&all);
    }

    /// Once discovery has answered: alias targets and plugin scopes that name nothing.
    pub(crate) fn check_config_against_discovery(&mut self) {
        if self.config_checked {
            return;
        }
        self.config_checked = true;
        let (dead, found) = check_against(&self.user, &self.resources);
        // An alias to what the cluster does not serve is not loaded: its name keeps its
        // built-in meaning (`dp: apps/v1/nope` leaves `:dp` the Deployments).
        if !dead.is_empty() {
            let user = std::sync::Arc::make_mut(&mut self.user);
            for name in &dead {
                user.aliases.remove(name);
            }
        }
        if !found.is_empty() {
            self.show_problems(&found);
            self.config_problems.extend(found);
        }
    }

    /// Run `line` if its first word is a user alias; false if it is not one.
    pub(crate) fn run_alias(&mut self, line: &str, fx: &mut Vec<Effect>) -> bool {
        let Some(expanded) = self.user.aliases.expand(line) else {
            return false;
        };
        match expanded {
            Ok(e) => self.open_expanded(&e, false, fx),
            Err(why) => self.error(why),
        }
        true
    }

    /// Open what an alias resolved to: the context, the kind in the namespace, then the
    /// selector and filter on its table. `on_top`: push the table (`esc` returns).
    pub(crate) fn open_expanded(&mut self, e: &Expanded, on_top: bool, fx: &mut Vec<Effect>) {
        let Some(r) = resolve(&self.resources, &e.resource).cloned() else {
            // A command (`ctx`, `pf`, ...) the alias names: run it as typed.
            let mut line = e.resource.clone();
            if let Some(ns) = &e.args.namespace {
                line.push(' ');
                line.push_str(ns);
            }
            if K9S_VIEWS.contains(&e.resource.as_str()) || COMMANDS.contains(&e.resource.as_str()) {
                self.run_command(&line, fx);
            } else {
                self.error(format!("unknown resource or command: {}", e.resource));
            }
            return;
        };
        if let Some(ctx) = &e.args.context
            && ctx != &self.connection.context
        {
            if !self.contexts.is_empty() && !self.contexts.iter().any(|c| c == ctx) {
                self.error(format!("unknown context: {ctx}"));
                return;
            }
            self.switch_to_context(ctx, fx);
        }
        if let Some(text) = &e.args.namespace {
            let all = text == "-A"
                || (text == "all" && !self.namespace_names().iter().any(|n| n == "all"));
            if all {
                self.namespace = None;
            } else {
                // `shop,payments`: one table over several namespaces.
                let ns = crate::ui::scope::parse(text);
                let names = crate::ui::scope::names(ns.as_deref());
                if ns.is_none() {
                    self.error(format!("no namespace in {text:?}"));
                    return;
                }
                if !names.iter().all(|n| self.valid_namespace(n)) {
                    return;
                }
                self.namespace = ns;
            }
        }
        if on_top {
            let ns = self.scope_for(&r);
            let id = self.open_view(r, ns, fx);
            self.stack.push(Screen::Table(id));
        } else {
            self.reset_to(r, fx);
        }
        if let Some(id) = self.current_view_id() {
            if let Some(sel) = &e.args.selector {
                self.apply_label_filter(id, sel);
            }
            if let Some(f) = &e.args.filter {
                self.set_text_filter(id, f);
            }
        }
    }

    /// A hotkey: its `:` command (an alias, a kind, a command).
    pub(crate) fn run_hotkey(&mut self, index: u16, fx: &mut Vec<Effect>) {
        let Some(h) = self.user.hotkeys.get(index as usize).cloned() else {
            return;
        };
        if !h.keep_history {
            self.run_command(&h.command, fx);
            return;
        }
        // keepHistory: a kind (or an alias of one) opens on top of the current table.
        let expanded = match self.user.aliases.expand(&h.command) {
            Some(Ok(e)) => Some(e),
            Some(Err(why)) => {
                self.error(why);
                return;
            }
            None => {
                let mut words = h.command.split_whitespace();
                let first = words.next().unwrap_or_default().to_string();
                resolve(&self.resources, &first).map(|_| Expanded {
                    resource: first,
                    args: crate::config::aliases::CommandArgs::parse(words),
                })
            }
        };
        match expanded {
            Some(e) => self.open_expanded(&e, true, fx),
            None => self.run_command(&h.command, fx),
        }
    }
}
