//! `:helm` and `App`'s side of the [helm screens](crate::ui::screens::helm): opening them (and
//! the feed of helm's storage objects), handing them the feed's rows and the releases fetched
//! for a text screen or a diff, and stopping the feed with the last one.

use std::sync::Arc;

use crate::helm::{Release, Revision};
use crate::ui::action::Effect;
use crate::ui::app::{App, Screen};
use crate::ui::screens::helm::{Answer, HelmScreen};
use crate::ui::screens::history_diff::DiffView;
use crate::ui::screens::text::TextResult;

impl App {
    /// `:helm` (the current scope), `:helm NS`, `:helm all` (or `-A`): the releases.
    pub(crate) fn open_helm(&mut self, arg: Option<&str>, fx: &mut Vec<Effect>) {
        let namespace = match arg {
            Some("all" | "-A" | "*") => None,
            Some(ns) => Some(ns.to_string()),
            None => self.namespace.clone(),
        };
        // A command replaces the stack, as in k9s (`:helm` over a pod's containers is `<helm>`,
        // not `<pods> <containers> <helm>`); `[` and `-` come back to the command before.
        self.clear_stack(fx);
        fx.push(Effect::WatchHelm {
            namespace: namespace.clone(),
        });
        self.stack
            .push(Screen::Helm(Box::new(HelmScreen::releases(namespace))));
    }

    /// Enter on a release: its revisions, over the releases.
    pub(crate) fn open_helm_release(&mut self, namespace: String, name: String) {
        if let Some(Screen::Helm(h)) = self.stack.last() {
            let revisions = h.revisions_of(namespace, name);
            self.stack.push(Screen::Helm(Box::new(revisions)));
        }
    }

    /// The feed's rows: every helm screen on the stack takes them.
    pub(crate) fn on_helm_releases(&mut self, result: Result<Vec<Revision>, String>) {
        let shared = result.map(Arc::new);
        for s in self.stack.iter_mut() {
            if let Screen::Helm(h) = s {
                h.set_revisions(&shared);
            }
        }
        self.dirty = true;
    }

    /// A release fetched for a text screen or a diff.
    pub(crate) fn on_helm_release(&mut self, request: u64, result: Result<Box<Release>, String>) {
        let answer = self.stack.iter_mut().find_map(|s| match s {
            Screen::Helm(h) => h.on_release(request, &result),
            _ => None,
        });
        match answer {
            Some(Answer::Text(text)) => self.on_text(request, text.map(TextResult::Describe)),
            // Shown only if the user is still where they asked for it.
            Some(Answer::Diff { title, lines })
                if matches!(self.current_screen(), Some(Screen::Helm(_))) =>
            {
                let mut view = DiffView::new(title, lines);
                view.about =
                    Some("the two revisions' user-supplied values, then their rendered manifests");
                self.stack.push(Screen::HistoryDiff(Box::new(view)));
                self.dirty = true;
            }
            Some(Answer::Failed(e)) => self.error(e),
            _ => {}
        }
    }

    /// A helm screen left the stack: the feed stops with the last one.
    pub(crate) fn helm_closed(&self, fx: &mut Vec<Effect>) {
        if !self.stack.iter().any(|s| matches!(s, Screen::Helm(_))) {
            fx.push(Effect::UnwatchHelm);
        }
    }
}
