//! Running a `:` command line (`:pods`, `:ns`, `:ctx`, `:informers`, `:deltas`, `:q`) and
//! keeping it for Up/Down; the prompt itself is [`super::screens::prompt`].

use super::action::Effect;
use super::app::{App, Mode, Screen};
use super::resources::resolve;

/// How many `:` lines Up/Down recall.
const COMMAND_HISTORY: usize = 50;

impl App {
    /// Keep a line run at the `:` prompt for Up/Down (the same line twice in a row once; the
    /// last `COMMAND_HISTORY` lines).
    pub(crate) fn remember_command(&mut self, line: &str) {
        if line.is_empty() || self.command_history.back().is_some_and(|l| l == line) {
            return;
        }
        if self.command_history.len() == COMMAND_HISTORY {
            self.command_history.pop_front();
        }
        self.command_history.push_back(line.to_string());
    }

    /// Run a `:` command line.
    pub fn run_command(&mut self, line: &str, fx: &mut Vec<Effect>) {
        let mut words = line.split_whitespace();
        let Some(cmd) = words.next() else { return };
        let arg = words.next();
        match cmd {
            "q" | "q!" | "quit" => {
                self.should_quit = true;
                fx.push(Effect::Quit);
            }
            "help" | "?" => self.mode = Mode::Help { scroll: 0 },
            "informers" | "inf" => {
                if !matches!(self.current_screen(), Some(Screen::Informers(_))) {
                    self.stack.push(Screen::Informers(Default::default()));
                }
            }
            // `:pulses` is k9s's name for it.
            "pulse" | "pulses" | "pu" => self.open_pulse(fx),
            "aliases" | "alias" | "a" => self.show_aliases(),
            // The footer's recent messages, whole (the footer cuts a long one at a word).
            "messages" | "msg" => self.show_messages(),
            // The log view's field columns (`:cols level,status,path`; alone: off).
            "cols" | "columns" => {
                let rest = line.split_once(char::is_whitespace).map_or("", |(_, r)| r);
                match self.stack.last_mut() {
                    Some(Screen::Logs(l)) => l.view.set_columns(rest),
                    _ => self.error(":cols sets the log view's field columns; open logs first (l)"),
                }
            }
            "xray" => self.open_xray(arg, fx),
            "helm" | "hm" | "charts" | "chart" => {
                self.open_helm(arg, fx);
                // A view command, as in k9s: `[` and `-` come back to it.
                self.nav_history.record(line);
            }
            "verify" => self.verify_command(fx),
            // A table as it was (`:at 10:42`, `:at -5m`, `:at now`).
            "at" => self.at_command(arg, fx),
            // A replay's marks (`m` opens `:mark `).
            "mark" | "marks" => self.replay_command(cmd, line),
            "blame" => self.fetch_text(crate::ui::app::TextKind::Blame, fx),
            // The DeltaFIFO log; `:events` is the Event objects, as in kubectl and k9s.
            "deltas" | "fifo" => {
                if !matches!(self.current_screen(), Some(Screen::Events(_))) {
                    self.stack.push(Screen::Events(Default::default()));
                }
            }
            "pf" | "portforward" | "portforwards" => self.show_forwards(),
            "diff" => self.fetch_diff(fx),
            "create" => self.create_command(arg, fx),
            "apply" => self.apply_command(arg, fx),
            "changes" | "ch" => {
                let args: Vec<&str> = line.split_whitespace().skip(1).collect();
                self.open_changes(&args, fx);
            }
            // `:ns` alone opens the namespaces table, as k9s (Enter there switches the scope).
            "ns" | "namespace" | "namespaces" if arg.is_none() => {
                if let Some(r) = resolve(&self.resources, "namespaces").cloned() {
                    self.reset_to(r, fx);
                }
            }
            "ns" | "namespace" => self.switch_namespace(arg, fx),
            "ctx" | "context" | "contexts" => match arg {
                // As k9s: the contexts table (Enter switches, space marks several).
                None => self.show_contexts(),
                Some(names) if names.starts_with('+') => self.fleet_add(&names[1..], fx),
                Some(names) if names.starts_with('-') => self.fleet_remove(&names[1..], fx),
                // Only a context the kubeconfig names (kubectl: `no context exists with the
                // name`); with none known, none is, but the one in use.
                Some(name)
                    if name != self.connection.context
                        && !self.contexts.iter().any(|c| c == name) =>
                {
                    self.error(unknown_context(name, &self.contexts))
                }
                Some(name) => {
                    self.switch_to_context(name, fx);
                    // `:ctx NAME` alone: just that cluster.
                    self.fleet_only(name, fx);
                }
            },
            // A user's k9s alias first (it may shadow a kind's name, as in k9s).
            _ if self.run_alias(line, fx) => self.nav_history.record(line),
            // k9s's arguments, in any order: a namespace (or `ns1,ns2`, `all`, `-A`), `/filter`,
            // a label selector (`app=web,env=dev`), `@context`.
            name => match resolve(&self.resources, name) {
                Some(_) => {
                    let e = crate::config::aliases::Expanded {
                        resource: name.to_string(),
                        args: crate::config::aliases::CommandArgs::parse(
                            line.split_whitespace().skip(1),
                        ),
                    };
                    let before = self.current_view_id();
                    self.open_expanded(&e, false, fx);
                    if self.current_view_id() != before {
                        // With the scope it opened in: `[` returns to that table as it was.
                        let namespaced = self.current_view().is_some_and(|v| v.resource.namespaced);
                        let line = match (&e.args.namespace, namespaced) {
                            (None, true) => {
                                format!("{line} {}", self.namespace.as_deref().unwrap_or("-A"))
                            }
                            _ => line.to_string(),
                        };
                        self.nav_history.record(&line);
                    }
                }
                // Discovery may be hours old (kubectl's disk cache) or older than a CRD
                // installed since: ask the server again once, as kubectl does, then say so.
                None if self.replay.is_none()
                    && self.connection.reachable
                    && self.pending_command.is_none() =>
                {
                    self.pending_command = Some(line.to_string());
                    fx.push(Effect::Rediscover);
                    self.info(format!("{name}: not in discovery; asking the server again"));
                }
                None => self.error(format!("unknown resource or command: {name}")),
            },
        }
    }

    /// Show context `name`: the runtime reconnects, the current table is reopened there.
    pub(crate) fn switch_to_context(&mut self, name: &str, fx: &mut Vec<Effect>) {
        fx.push(Effect::SwitchContext(name.to_string()));
        self.connection.context = name.to_string();
        self.connection.server_version = None;
        self.refresh_readonly();
        let current = self.current_view().map(|v| v.resource.clone());
        if let Some(ns) = self.ns_view.take() {
            self.close_view(ns, fx);
        }
        self.informers.clear();
        self.metrics.clear();
        self.metrics_unavailable = None;
        if let Some(r) = current {
            self.reset_to(r, fx);
        }
        self.open_ns_view(fx);
        self.info(format!("switched to context {name}"));
    }

    pub(crate) fn valid_namespace(&mut self, ns: &str) -> bool {
        let known = self.namespace_names();
        let ns_view_ok = self
            .ns_view
            .and_then(|id| self.views.get(&id))
            .is_some_and(|v| v.synced && v.error.is_none());
        // Without permission to list namespaces, trust the user (k9s users hit this often).
        if ns_view_ok && !known.iter().any(|k| k == ns) {
            self.error(format!("unknown namespace: {ns}"));
            return false;
        }
        true
    }

    fn switch_namespace(&mut self, arg: Option<&str>, fx: &mut Vec<Effect>) {
        let ns = match arg {
            None | Some("-A") => None,
            Some("all") if !self.namespace_names().iter().any(|n| n == "all") => None,
            // `:ns shop,payments`: one table over several namespaces.
            Some(text) => {
                let ns = crate::ui::scope::parse(text);
                if ns.is_none() {
                    // `:ns ,` names no namespace: not a request for all of them.
                    self.error(format!(
                        "no namespace in {text:?}: :ns NAME[,NAME...], or :ns alone for all"
                    ));
                    return;
                }
                let names = crate::ui::scope::names(ns.as_deref());
                if !names.iter().all(|n| self.valid_namespace(n)) {
                    return;
                }
                ns
            }
        };
        self.use_namespace(ns.clone(), fx);
        let unlisted = self
            .ns_view
            .and_then(|id| self.views.get(&id))
            .is_some_and(|v| self.forbidden_view(v).is_some());
        if let (Some(n), true) = (ns, unlisted) {
            self.info(format!(
                "namespace: {n} (namespaces cannot be listed for this user: no completion, the name is not checked)"
            ));
        }
    }
}

/// What `:ctx NAME` says about a context the kubeconfig does not name, with the known ones.
fn unknown_context(name: &str, known: &[String]) -> String {
    let known = match known {
        [] => "no contexts known".to_string(),
        k => format!("known: {}", k.join(", ")),
    };
    format!("unknown context \"{name}\": no context exists with that name ({known})")
}
