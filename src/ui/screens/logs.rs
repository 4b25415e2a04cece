//! The log screen: a [`LogView`] (its own state, keys and drawing, in `ui/log_view.rs`) fed by
//! the streams the runtime runs for [`Effect::OpenLogs`].
//!
//! `L` on a pod opens that pod's logs (every container, init and ephemeral ones included); on a
//! Deployment, ReplicaSet, StatefulSet, DaemonSet, Job or Service it opens the workload view: the
//! pods its selector matches, and the pods that match later (a rollout, a scale-up, a crash
//! replacement) as the shared pod informer sees them.
//!
//! Invariants:
//! - every way a log screen leaves the stack (close key, back, a `:` command that resets the
//!   stack) emits [`Effect::CloseLogs`] for its stream id, so no stream outlives its screen;
//! - a restart (since preset, previous instance) closes the streams and opens new ones under a
//!   new id: batches still in flight for the old id find no screen and are dropped, so nothing
//!   from before the restart lands in the cleared buffer.

use std::path::PathBuf;

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::Screen;
use crate::ui::action::{Effect, ObjectSummary, ViewId};
use crate::ui::app::App;
use crate::ui::keys::KeyAction;
use crate::ui::kit::DIM;
use crate::ui::log_stream::{ContainerPick, LogEvent, PodFilter, StreamOptions};
use crate::ui::log_view::{LogEffect, LogView};

/// The footer's dashboard hints while the log screen is on top (its own keys are in its footer).
pub(crate) const HINTS: &[KeyAction] = &[KeyAction::Command, KeyAction::Help];

/// Header rows (3) and footer row (1) of the dashboard around a screen.
const CHROME: u16 = 4;

/// One open log screen.
#[derive(Debug, Clone)]
pub struct LogScreen {
    /// The id the runtime tags this screen's batches with (a restart takes a new one).
    pub stream: ViewId,
    pub namespace: String,
    pub filter: PodFilter,
    pub containers: ContainerPick,
    /// The container picked when the view opened on one (`a` switches between it and all).
    pub picked: Option<String>,
    pub view: LogView,
}

/// Which pods `L` on an object of `kind` streams (see [`crate::ui::log_stream::log_target`]).
pub fn log_target(kind: &str, obj: &ObjectSummary) -> Result<(String, PodFilter), String> {
    crate::ui::log_stream::log_target(kind, &obj.name, &obj.object)
}

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
        let (w, h) = self.log_viewport(false);
        log.set_viewport(w, h);
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

    /// A key while the log screen is on top: the log view takes what its key map binds (and
    /// everything while its search/filter line is open); false for the rest (`?`, `:`), which
    /// the dashboard handles.
    pub(crate) fn on_logs_key(&mut self, key: KeyEvent, fx: &mut Vec<Effect>) -> bool {
        let now = self.now_ms;
        let keys = &self.log_keys;
        let Some(Screen::Logs(l)) = self.stack.last_mut() else {
            return false;
        };
        if !l.view.is_typing() && keys.action(&key).is_none() {
            // The dashboard's way out and its overlays work here; any other key says it does
            // nothing rather than nothing happening.
            if matches!(
                self.keys.action(&key),
                Some(KeyAction::Quit | KeyAction::Help | KeyAction::Command | KeyAction::Back)
            ) {
                return false;
            }
            let name = crate::ui::keys::KeySpec::from_event(&key).to_string();
            l.view.set_status(
                format!("{name}: no action in the log view (? lists its keys)"),
                true,
            );
            return true;
        }
        self.message = None;
        let effects = l.view.handle_key(&key, keys, now);
        for effect in effects {
            match effect {
                LogEffect::Close => {
                    self.pop_screen(fx);
                    return true;
                }
                LogEffect::AllContainers => {
                    let Some(Screen::Logs(l)) = self.stack.last_mut() else {
                        return true;
                    };
                    let Some(picked) = l.picked.clone() else {
                        l.view.set_status(
                            "this view already streams every container (a switches only a view \
                             opened on one container)",
                            false,
                        );
                        continue;
                    };
                    let (containers, msg) = match l.containers {
                        ContainerPick::One(_) => {
                            (ContainerPick::All, "every container of the pod".to_string())
                        }
                        ContainerPick::All => (
                            ContainerPick::One(picked.clone()),
                            format!("container {picked} only"),
                        ),
                    };
                    l.containers = containers;
                    let options = l.view.restart_streams();
                    l.view.set_status(msg, false);
                    self.restart_log_streams(options, fx);
                }
                LogEffect::Restart(options) => self.restart_log_streams(options, fx),
                LogEffect::Save { path, contents } => {
                    if let Some(Screen::Logs(l)) = self.stack.last() {
                        fx.push(Effect::SaveLogs {
                            view: l.stream,
                            path,
                            contents,
                        });
                    }
                }
            }
        }
        self.fit_logs();
        true
    }

    /// Close the top log screen's streams and open them again under a new id.
    fn restart_log_streams(&mut self, options: StreamOptions, fx: &mut Vec<Effect>) {
        let stream = self.next_view;
        self.next_view += 1;
        let Some(Screen::Logs(l)) = self.stack.last_mut() else {
            return;
        };
        fx.push(Effect::CloseLogs { view: l.stream });
        l.stream = stream;
        fx.push(Effect::OpenLogs {
            view: stream,
            namespace: l.namespace.clone(),
            filter: l.filter.clone(),
            containers: l.containers.clone(),
            options,
        });
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

    /// The area the log view draws in: the body between the dashboard's header and footer, or
    /// the whole terminal in full-screen mode.
    fn log_viewport(&self, fullscreen: bool) -> (u16, u16) {
        let (w, h) = self.size;
        (
            w,
            if fullscreen {
                h
            } else {
                h.saturating_sub(CHROME)
            },
        )
    }

    /// Tell the log screens their size (after a resize or a full-screen toggle).
    pub(crate) fn fit_logs(&mut self) {
        let (w, h) = self.size;
        for s in &mut self.stack {
            if let Screen::Logs(l) = s {
                let full = l.view.fullscreen;
                let h = if full { h } else { h.saturating_sub(CHROME) };
                l.view.set_viewport(w, h);
            }
        }
    }

    /// Header lines 2 and 3 over the log screen: what it streams, and how full its buffer is.
    pub(crate) fn logs_header(&self, l: &LogScreen, label: Style, value: Style) -> [Line<'_>; 2] {
        let v = &l.view;
        let mib = |b: usize| b as f64 / (1024.0 * 1024.0);
        let l2 = vec![
            Span::styled(" Logs: ", label),
            Span::styled(format!("{} ", v.title), value),
            Span::raw(format!(
                "│ {} │ {} lines │ {:.1}/{:.0} MiB",
                match v.source_count() {
                    1 => "1 source".to_string(),
                    n => format!("{n} sources"),
                },
                v.len(),
                mib(v.bytes()),
                mib(v.cap())
            )),
        ];
        let mut l3 = vec![Span::styled(" Pods: ", label)];
        match &l.filter {
            PodFilter::Name(pod) => {
                l3.push(Span::styled(format!("{}/{pod}", l.namespace), value));
                let which = match &l.containers {
                    ContainerPick::One(c) => format!(" (container {c})"),
                    ContainerPick::All => " (every container)".to_string(),
                };
                l3.push(Span::styled(which, Style::default().fg(DIM)));
            }
            PodFilter::Selector(sel) => {
                l3.push(Span::styled(format!("-l {sel} -n {}", l.namespace), value));
                l3.push(Span::styled(
                    " (follows pods as they come and go)",
                    Style::default().fg(Color::Green),
                ));
            }
        }
        [Line::from(l2), Line::from(l3)]
    }

    pub(crate) fn render_logs(&self, l: &LogScreen, area: Rect, buf: &mut Buffer) {
        l.view.render_with(area, buf, Some(&self.log_keys));
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
