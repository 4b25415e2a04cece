//! Opening the [text screen](crate::ui::screens::text) (YAML, describe, blame, `:messages`)
//! and handing it the runtime's answer and the search line's.

use crate::cluster::ResourceInfo;
use crate::ui::action::{Effect, ObjectSummary};
use crate::ui::app::{App, Screen};
use crate::ui::component::FilterLine;
use crate::ui::screens::text::{TextKind, TextResult, TextView};

impl App {
    /// The search line over a text screen: Enter searches from the line shown first (wrapping
    /// around), Esc leaves it as it was.
    pub(crate) fn on_text_search_line(&mut self, line: FilterLine, fx: &mut Vec<Effect>) {
        let FilterLine::Enter(text) = line else {
            return;
        };
        let mut top = self.stack.pop();
        let out = match &mut top {
            Some(Screen::Text(t)) => t.search_for(&text, &self.ctx()),
            _ => Default::default(),
        };
        self.stack.extend(top);
        self.run_outcome(out, fx);
    }

    pub(crate) fn on_text(&mut self, request: u64, result: Result<TextResult, String>) {
        let now_ms = self.now_ms;
        for s in self.stack.iter_mut() {
            if let Screen::Text(t) = s
                && t.request == request
            {
                t.answer(result, now_ms);
                self.dirty = true;
                return;
            }
        }
    }

    pub(crate) fn fetch_text(&mut self, kind: TextKind, fx: &mut Vec<Effect>) {
        if kind == TextKind::Diff {
            return self.fetch_diff(fx);
        }
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let resource = view.resource.clone();
        let obj = obj.clone();
        self.fetch_text_of(kind, resource, &obj, fx);
    }

    /// YAML or describe of one object (of `resource`): ask for it and push the text screen.
    pub(crate) fn fetch_text_of(
        &mut self,
        kind: TextKind,
        resource: ResourceInfo,
        obj: &ObjectSummary,
        fx: &mut Vec<Effect>,
    ) {
        let namespace = obj.namespace.as_deref().map(str::to_string);
        let shown = match obj.cluster() {
            Some(c) => format!("{} on {c}", obj.object_key()),
            None => obj.key.to_string(),
        };
        self.fetch_text_named(kind, resource, namespace, &obj.name, Some(shown), fx);
    }

    /// YAML or describe of the object `namespace/name` of `resource`, titled `shown` (or its
    /// key): ask for it and push the text screen.
    pub(crate) fn fetch_text_named(
        &mut self,
        kind: TextKind,
        resource: ResourceInfo,
        namespace: Option<String>,
        name: &str,
        shown: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let shown = shown.unwrap_or_else(|| match &namespace {
            Some(ns) => format!("{ns}/{name}"),
            None => name.to_string(),
        });
        let name = name.to_string();
        let title = format!(
            "{}: {shown}",
            match kind {
                TextKind::Yaml => "YAML",
                TextKind::Blame => "Blame",
                TextKind::Describe | TextKind::Diff => "Describe",
            },
        );
        let request = self.next_request;
        self.next_request += 1;
        fx.push(match kind {
            // Blame reads the object's managedFields from the same GET.
            TextKind::Yaml | TextKind::Blame => Effect::FetchYaml {
                request,
                resource,
                namespace,
                name,
            },
            TextKind::Describe | TextKind::Diff => Effect::FetchDescribe {
                request,
                resource,
                namespace,
                name,
            },
        });
        self.stack
            .push(Screen::Text(TextView::new(kind, title, request, None)));
    }

    /// `:messages`: the footer's recent messages whole, newest last (the footer cuts a long one
    /// at a word and points here).
    pub(crate) fn show_messages(&mut self) {
        let lines: Vec<String> = if self.messages.is_empty() {
            vec!["no messages yet".to_string()]
        } else {
            self.messages
                .iter()
                .map(|(m, error)| {
                    if *error {
                        format!("error: {m}")
                    } else {
                        m.clone()
                    }
                })
                .collect()
        };
        let request = self.next_request;
        self.next_request += 1;
        self.stack.push(Screen::Text(TextView::new(
            TextKind::Describe,
            format!("Messages ({})", self.messages.len()),
            request,
            Some(Ok(lines)),
        )));
    }
}
