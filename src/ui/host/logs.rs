//! Opening the [log screen](crate::ui::screens::logs) of a pod or a workload (and asking for
//! its streams), handing it the streams' batches and the answer to a save, and fitting the log
//! screens to the terminal.

use std::path::PathBuf;

use crate::ui::action::{Effect, ObjectSummary, ViewId};
use crate::ui::app::{App, Screen};
use crate::ui::log_stream::{ContainerPick, LogEvent, PodFilter};
use crate::ui::log_view::LogView;
use crate::ui::screens::logs::{CHROME, LogScreen, log_target};

impl App {
    /// `L` on the selected row of the table on top: push a log screen and ask for its streams.
    /// `l` (`previous`: `p`, the previous container instance) on the selected row.
    pub(crate) fn open_logs(&mut self, previous: bool, fx: &mut Vec<Effect>) {
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let kind = view.resource.api_resource.kind.clone();
        let obj = obj.clone();
        self.open_logs_of(&kind, &obj, ContainerPick::All, previous, fx);
    }

    /// The logs of one object of `kind` (a pod, or a workload's or Service's pods), of the
    /// containers `containers` picks: push a log screen and ask for its streams.
    pub(crate) fn open_logs_of(
        &mut self,
        kind: &str,
        obj: &ObjectSummary,
        containers: ContainerPick,
        previous: bool,
        fx: &mut Vec<Effect>,
    ) {
        let Some(namespace) = obj.namespace.as_deref().map(str::to_string) else {
            self.error(format!(
                "no logs for a {kind}: L opens the logs of a pod, a workload or a Service"
            ));
            return;
        };
        let (title, filter) = match log_target(kind, obj) {
            Ok(t) => t,
            Err(e) => {
                self.error(e);
                return;
            }
        };
        let stem = match &filter {
            PodFilter::Name(pod) => format!("{namespace}_{pod}"),
            PodFilter::Selector(_) => format!("{namespace}_{}", title.replace('/', "-")),
        };
        let mut log = LogView::new(title, stem, self.log_cap_bytes)
            .with_previous(previous)
            .with_k9s_logger(&self.user.settings.k9s_logger);
        let (w, h) = self.size;
        log.set_viewport(w, h.saturating_sub(CHROME));
        let stream = self.next_view;
        self.next_view += 1;
        fx.push(Effect::OpenLogs {
            view: stream,
            namespace: namespace.clone(),
            filter: filter.clone(),
            containers: containers.clone(),
            options: log.options(),
        });
        let picked = match &containers {
            ContainerPick::One(c) => Some(c.clone()),
            ContainerPick::All => None,
        };
        self.stack.push(Screen::Logs(Box::new(LogScreen {
            stream,
            namespace,
            filter,
            containers,
            picked,
            view: log,
        })));
    }

    /// The log screen streaming under `stream`, wherever it is on the stack.
    fn log_screen_mut(&mut self, stream: ViewId) -> Option<&mut LogScreen> {
        self.stack.iter_mut().find_map(|s| match s {
            Screen::Logs(l) if l.stream == stream => Some(&mut **l),
            _ => None,
        })
    }

    /// A frame's worth of stream events; a batch for a closed or restarted stream is dropped.
    /// Redraws only when the screen is on top.
    pub(crate) fn on_log_batch(&mut self, stream: ViewId, batch: Vec<LogEvent>) {
        let Some(l) = self.log_screen_mut(stream) else {
            return;
        };
        l.view.ingest(batch);
        if matches!(self.current_screen(), Some(Screen::Logs(l)) if l.stream == stream) {
            self.dirty = true;
        }
    }

    /// The runtime's answer to a save.
    pub(crate) fn on_log_saved(
        &mut self,
        stream: ViewId,
        result: Result<(PathBuf, usize), String>,
    ) {
        if let Some(l) = self.log_screen_mut(stream) {
            l.view.saved(result);
            self.dirty = true;
        }
    }

    /// Tell the log screens their size (after a resize or a full-screen toggle).
    pub(crate) fn fit_logs(&mut self) {
        let size = self.size;
        for s in &mut self.stack {
            if let Screen::Logs(l) = s {
                l.fit(size);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use kube::api::DynamicObject;

    use super::*;
    use crate::ui::AppConfig;
    use crate::ui::action::Action;
    use crate::ui::keys::KeyMap;

    fn pod_with_two_containers() -> ObjectSummary {
        let obj: DynamicObject = serde_json::from_value(serde_json::json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1"},
            "spec": {"containers": [{"name": "app"}, {"name": "proxy"}]}
        }))
        .unwrap();
        ObjectSummary::from_object("Pod", &Arc::new(obj), None).unwrap()
    }

    fn containers_opened(fx: &[Effect]) -> Vec<ContainerPick> {
        fx.iter()
            .filter_map(|e| match e {
                Effect::OpenLogs { containers, .. } => Some(containers.clone()),
                _ => None,
            })
            .collect()
    }

    fn press(app: &mut App, c: char) -> Vec<Effect> {
        app.update(Action::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::NONE,
        )))
    }

    #[test]
    fn a_switches_a_one_container_view_to_every_container_and_back() {
        let mut app = App::new(AppConfig::default(), KeyMap::defaults().unwrap());
        let mut fx = Vec::new();
        app.open_logs_of(
            "Pod",
            &pod_with_two_containers(),
            ContainerPick::One("proxy".into()),
            false,
            &mut fx,
        );
        let fx = press(&mut app, 'a');
        assert_eq!(containers_opened(&fx), vec![ContainerPick::All]);
        assert!(fx.iter().any(|e| matches!(e, Effect::CloseLogs { .. })));
        let fx = press(&mut app, 'a');
        assert_eq!(
            containers_opened(&fx),
            vec![ContainerPick::One("proxy".into())]
        );
    }

    #[test]
    fn a_on_a_view_of_every_container_says_so_and_restarts_nothing() {
        let mut app = App::new(AppConfig::default(), KeyMap::defaults().unwrap());
        let mut fx = Vec::new();
        app.open_logs_of(
            "Pod",
            &pod_with_two_containers(),
            ContainerPick::All,
            false,
            &mut fx,
        );
        let fx = press(&mut app, 'a');
        assert!(containers_opened(&fx).is_empty(), "{fx:?}");
        let Some(Screen::Logs(l)) = app.current_screen() else {
            panic!("log screen expected");
        };
        assert!(l.view.status().is_some_and(|s| s.contains("already")));
    }
}
