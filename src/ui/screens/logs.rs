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
//!
//! The screen is a [component](crate::ui::component): it takes the terminal's keys before the
//! key map (its own key table), numbers a restart's streams from `Ctx::next_view` and answers
//! an [`Outcome`]. `App`'s side (opening it, handing it the streams' batches, fitting it to the
//! terminal) is `ui/host/logs.rs`.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use crate::ui::action::{Effect, ObjectSummary, ViewId};
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::keys::KeyAction;
use crate::ui::kit::DIM;
use crate::ui::log_stream::{ContainerPick, PodFilter, StreamOptions};
use crate::ui::log_view::{LogEffect, LogView};

/// The footer's dashboard hints while the log screen is on top (its own keys are in its footer).
pub(crate) const HINTS: &[KeyAction] = &[KeyAction::Command, KeyAction::Help];

/// Header rows (3) and footer row (1) of the dashboard around a screen.
pub(crate) const CHROME: u16 = 4;

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

impl LogScreen {
    /// Close the streams and open them again under the id `stream` (the batches still in
    /// flight for the old id find no screen).
    fn restart(&mut self, stream: ViewId, options: StreamOptions, fx: &mut Vec<Effect>) {
        fx.push(Effect::CloseLogs { view: self.stream });
        self.stream = stream;
        fx.push(Effect::OpenLogs {
            view: stream,
            namespace: self.namespace.clone(),
            filter: self.filter.clone(),
            containers: self.containers.clone(),
            options,
        });
    }

    /// `a`: a view opened on one container streams every container of the pod, and back.
    fn switch_containers(&mut self) -> Option<StreamOptions> {
        let Some(picked) = self.picked.clone() else {
            self.view.set_status(
                "this view already streams every container (a switches only a view \
                 opened on one container)",
                false,
            );
            return None;
        };
        let (containers, msg) = match self.containers {
            ContainerPick::One(_) => (ContainerPick::All, "every container of the pod".to_string()),
            ContainerPick::All => (
                ContainerPick::One(picked.clone()),
                format!("container {picked} only"),
            ),
        };
        self.containers = containers;
        let options = self.view.restart_streams();
        self.view.set_status(msg, false);
        Some(options)
    }

    /// The log view's size: the body between the dashboard's header and footer, or the whole
    /// terminal in full-screen mode.
    pub(crate) fn fit(&mut self, (w, h): (u16, u16)) {
        let h = if self.view.fullscreen {
            h
        } else {
            h.saturating_sub(CHROME)
        };
        self.view.set_viewport(w, h);
    }
}

impl Component for LogScreen {
    /// A key while the log screen is on top: the log view takes what its key map binds (and
    /// everything while its search/filter line is open); not the rest (`?`, `:`), which the
    /// dashboard handles.
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        if !self.view.is_typing() && ctx.log_keys.action(&key).is_none() {
            // The dashboard's way out and its overlays work here; any other key says it does
            // nothing rather than nothing happening.
            if matches!(
                ctx.keys.action(&key),
                Some(KeyAction::Quit | KeyAction::Help | KeyAction::Command | KeyAction::Back)
            ) {
                return Outcome::NotConsumed;
            }
            let name = crate::ui::keys::KeySpec::from_event(&key).to_string();
            self.view.set_status(
                format!("{name}: no action in the log view (? lists its keys)"),
                true,
            );
            return Outcome::Consumed;
        }
        let mut fx = Vec::new();
        let mut views = 0;
        let mut close = false;
        for effect in self.view.handle_key(&key, ctx.log_keys, ctx.now_ms) {
            match effect {
                LogEffect::Close => {
                    close = true;
                    break;
                }
                LogEffect::AllContainers => {
                    if let Some(options) = self.switch_containers() {
                        self.restart(ctx.next_view + views, options, &mut fx);
                        views += 1;
                    }
                }
                LogEffect::Restart(options) => {
                    self.restart(ctx.next_view + views, options, &mut fx);
                    views += 1;
                }
                LogEffect::Save { path, contents } => fx.push(Effect::SaveLogs {
                    view: self.stream,
                    path,
                    contents,
                }),
            }
        }
        if !close {
            self.fit(ctx.size);
        }
        let mut out = Outcome::Ask(Request::ClearMessage).then(Outcome::Effects(fx));
        if views > 0 {
            out = out.then(Outcome::Ask(Request::UseIds { requests: 0, views }));
        }
        if close {
            out = out.then(Outcome::Pop);
        }
        out
    }

    /// What the log view's key map does not bind does nothing there (no table beneath).
    fn on_action(&mut self, _action: KeyAction, _ctx: &Ctx) -> Outcome {
        Outcome::Consumed
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        self.view.render_with(area, buf, Some(ctx.log_keys));
    }

    /// Header lines 2 and 3 over the log screen: what it streams, and how full its buffer is.
    fn header(&self, _ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        let l = self;
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
        Some([Line::from(l2), Line::from(l3)])
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}
