//! The containers of one pod (Enter on a pod, as k9s's container view): k9s's columns NAME, PF,
//! IMAGE, READY, STATE, INIT, RESTARTS, PROBES(L:R), CPU, MEM, %CPU/R, %CPU/L, %MEM/R, %MEM/L,
//! PORTS, AGE. Init containers come first (INIT `true`), then the app containers, then the
//! ephemeral ones (INIT `ephemeral`). Enter or `l` opens the selected container's logs, `p` its
//! previous instance's, `s` a shell in it, `a` attaches to it, `shift-f` port-forwards one of its
//! ports.
//!
//! The informer's cache keeps no containers (see [`crate::render::prune`]): the pod and its
//! PodMetrics are read with a GET ([`Effect::FetchPodContainers`]) when the view opens and again
//! whenever the pod's row changes (a new resourceVersion in the table under it).
//!
//! The screen is a [component](crate::ui::component): it owns its state, maps keys to an
//! [`Outcome`] the app carries out, and draws from its own rows and the `Ctx` (theme, clock,
//! port-forwards). `App`'s side (opening it, reading the pod again, handing it the rows) is
//! `ui/host/containers.rs`.
//!
//! Where this differs from k9s: k9s's CPU/R:L, MEM/R:L and (wide) VALID columns are left out
//! (the percentages say the same), and the rows are not re-sorted (the pod's order).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, Widget};

use crate::render::Health;
use crate::render::metrics::UsageCell;
use crate::ui::action::{Effect, ObjectSummary};
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, header_style, screen_block};
use crate::ui::log_stream::ContainerPick;

/// The footer hints of the screen.
pub const HINTS: [KeyAction; 6] = [
    KeyAction::Logs,
    KeyAction::PreviousLogs,
    KeyAction::Shell,
    KeyAction::Attach,
    KeyAction::PortForward,
    KeyAction::Back,
];

/// The column names, in order (k9s's container view).
pub const COLUMNS: [&str; 16] = [
    "NAME",
    "PF",
    "IMAGE",
    "READY",
    "STATE",
    "INIT",
    "RESTARTS",
    "PROBES(L:R)",
    "CPU",
    "MEM",
    "%CPU/R",
    "%CPU/L",
    "%MEM/R",
    "%MEM/L",
    "PORTS",
    "AGE",
];

pub use crate::ui::pod_containers::*;

/// The containers screen's own state.
#[derive(Debug, Clone)]
pub struct ContainersView {
    /// The pod's row (its namespace, name, resourceVersion; what the log screen opens on).
    pub pod: ObjectSummary,
    /// `None` while the pod is read.
    pub rows: Option<Result<Vec<ContainerRow>, String>>,
    pub cursor: usize,
    pub scroll: usize,
    /// The pod's creation, unix seconds (the AGE of every row, as k9s).
    pub created: Option<i64>,
    /// The resourceVersion the rows were read at (a new one in the table reads them again).
    pub read_at: String,
}

impl ContainersView {
    pub fn new(pod: ObjectSummary) -> Self {
        let created = pod
            .object
            .metadata
            .creation_timestamp
            .as_ref()
            .map(|t| t.0.as_second());
        let read_at = pod
            .object
            .metadata
            .resource_version
            .clone()
            .unwrap_or_default();
        ContainersView {
            pod,
            rows: None,
            cursor: 0,
            scroll: 0,
            created,
            read_at,
        }
    }

    pub fn namespace(&self) -> &str {
        self.pod.namespace.as_deref().unwrap_or_default()
    }

    fn selected(&self) -> Option<&ContainerRow> {
        self.rows.as_ref()?.as_ref().ok()?.get(self.cursor)
    }

    fn len(&self) -> usize {
        match &self.rows {
            Some(Ok(r)) => r.len(),
            _ => 0,
        }
    }

    /// The fetch that reads (again) the pod's containers.
    pub fn fetch(&self) -> Effect {
        Effect::FetchPodContainers {
            namespace: self.namespace().to_string(),
            pod: self.pod.name.to_string(),
        }
    }

    /// The rows arrived; the selection stays on its container when it is still there.
    pub fn set_rows(&mut self, result: Result<PodContainers, String>) {
        let was = self.selected().map(|r| r.name.clone());
        if let (Some(name), Ok(p)) = (&was, &result) {
            self.cursor = p.rows.iter().position(|r| r.name == *name).unwrap_or(0);
        }
        if let Ok(p) = &result
            && p.created.is_some()
        {
            self.created = p.created;
        }
        self.rows = Some(result.map(|p| p.rows));
        self.cursor = self.cursor.min(self.len().saturating_sub(1));
    }

    /// Why `what` is refused here (read-only), if it is.
    fn refusal(ctx: &Ctx, what: &str) -> Option<Outcome> {
        ctx.readonly
            .then(|| Outcome::Error(crate::ui::operate::readonly_refusal(what, ctx.readonly_why)))
    }

    /// The logs of the selected container (`previous`: its previous instance's).
    fn logs(&self, previous: bool) -> Outcome {
        let Some(container) = self.selected().map(|r| r.name.clone()) else {
            return Outcome::Consumed;
        };
        let obj = Box::new(self.pod.clone());
        let pick = ContainerPick::One(container);
        Outcome::Ask(if previous {
            Request::OpenPreviousLogs {
                kind: "Pod".into(),
                obj,
                pick,
            }
        } else {
            Request::OpenLogs {
                kind: "Pod".into(),
                obj,
                pick,
            }
        })
    }
    /// Header lines 2 and 3: the pod, and how many containers of each sort.
    fn header_lines(&self, label: Style, value: Style) -> [Line<'static>; 2] {
        let pod = format!("{}/{}", self.namespace(), self.pod.name);
        let counts = match &self.rows {
            None => "reading the pod…".to_string(),
            Some(Err(e)) => e.clone(),
            Some(Ok(rows)) => {
                let n = |k| rows.iter().filter(|r| r.kind == k).count();
                let apps = n(ContainerKind::App);
                let mut parts = vec![format!(
                    "{apps} container{}",
                    if apps == 1 { "" } else { "s" }
                )];
                if n(ContainerKind::Init) > 0 {
                    parts.push(format!("{} init", n(ContainerKind::Init)));
                }
                if n(ContainerKind::Ephemeral) > 0 {
                    parts.push(format!("{} ephemeral", n(ContainerKind::Ephemeral)));
                }
                parts.join(", ")
            }
        };
        [
            Line::from(vec![
                Span::styled(" Pod: ", label),
                Span::styled(pod, value),
            ]),
            Line::from(vec![
                Span::styled(" Containers: ", label),
                Span::styled(counts, value),
            ]),
        ]
    }
}

impl Component for ContainersView {
    /// A key (after the key map): Enter or `l` the selected container's logs, `p` its previous
    /// instance's, `s` a shell, `a` attach, `shift-f` port-forward.
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        let pod = self.pod.name.to_string();
        let namespace = self.namespace().to_string();
        let Some(container) = self.selected().map(|r| r.name.clone()) else {
            return match action {
                KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => {
                    Outcome::NotConsumed
                }
                _ => Outcome::Consumed,
            };
        };
        match action {
            KeyAction::Enter | KeyAction::Logs => self.logs(false),
            KeyAction::PreviousLogs => self.logs(true),
            KeyAction::Shell => Self::refusal(ctx, "shell").unwrap_or_else(|| {
                Outcome::Effects(vec![Effect::Shell {
                    namespace,
                    pod,
                    container: Some(container),
                }])
            }),
            KeyAction::Attach => Self::refusal(ctx, "attach").unwrap_or_else(|| {
                Outcome::Effects(vec![Effect::Attach {
                    namespace,
                    pod,
                    container,
                }])
            }),
            KeyAction::PortForward => {
                let ports = self.selected().map(|r| r.ports.clone()).unwrap_or_default();
                match Self::refusal(ctx, "port-forward") {
                    Some(refused) => refused,
                    None if ports.is_empty() => {
                        Outcome::Error("the container declares no ports".into())
                    }
                    None => Outcome::Ask(Request::ForwardPorts {
                        namespace,
                        pod,
                        ports,
                    }),
                }
            }
            KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => {
                Outcome::NotConsumed
            }
            // The resource table's keys do not apply here.
            _ => Outcome::Consumed,
        }
    }

    /// Up, down, page, top, bottom; a page is the rows on screen.
    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        self.cursor = crate::ui::cursor::moved_cursor(action, n, self.cursor, self.len());
        self.scroll =
            crate::ui::cursor::scrolled_to(self.cursor, self.scroll, ctx.table_height.max(1));
    }

    fn header(&self, _ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        Some(self.header_lines(label, value))
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }

    /// The table: AGE from the clock; PF shows `Ⓕ` on a container one of the active
    /// port-forwards goes to, as k9s.
    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        let (theme, now_unix, forwards) = (ctx.theme, ctx.now_ms.div_euclid(1000), ctx.forwards);
        let title = format!(
            " Containers({}/{})[{}] ",
            self.namespace(),
            self.pod.name,
            self.len()
        );
        let block = screen_block(title, theme);
        let inner = block.inner(area);
        block.render(area, buf);
        let rows = match &self.rows {
            None => {
                Paragraph::new(Line::styled("reading the pod…", Style::default().fg(DIM)))
                    .centered()
                    .render(inner, buf);
                return;
            }
            Some(Err(e)) => {
                Paragraph::new(Line::styled(e.clone(), theme.health(Health::Error)))
                    .centered()
                    .render(inner, buf);
                return;
            }
            Some(Ok(rows)) => rows,
        };
        let age = self.created.map_or_else(
            || "-".to_string(),
            |c| crate::render::format_age(now_unix - c),
        );
        let forwarded = |r: &ContainerRow| {
            forwards.iter().any(|f| {
                f.namespace == self.namespace()
                    && f.pod == *self.pod.name
                    && r.ports.iter().any(|p| p.port == f.port)
            })
        };
        let cells: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                let mut v = vec![
                    r.name.clone(),
                    if forwarded(r) { "Ⓕ" } else { "●" }.to_string(),
                    r.image.clone(),
                    r.ready.to_string(),
                    r.state.clone(),
                    r.init_cell().to_string(),
                    r.restarts.to_string(),
                    format!(
                        "{}:{}",
                        if r.liveness { "on" } else { "off" },
                        if r.readiness { "on" } else { "off" }
                    ),
                ];
                v.extend(r.usage_cells().iter().map(UsageCell::display));
                v.push(r.ports_cell());
                v.push(age.clone());
                v
            })
            .collect();
        let mut widths: Vec<usize> = COLUMNS
            .iter()
            .enumerate()
            .map(|(i, h)| {
                cells
                    .iter()
                    .map(|c| c[i].chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(h.chars().count())
                    .min(60)
            })
            .collect();
        // Too narrow for every column: the usage columns go first (the percentages, then MEM
        // and CPU), then PF, PORTS and PROBES, before IMAGE or STATE are cut.
        let mut kept: Vec<usize> = (0..COLUMNS.len()).collect();
        for drop in [13, 12, 11, 10, 9, 8, 1, 14, 7] {
            let total: usize = kept.iter().map(|&i| widths[i] + 1).sum();
            if total <= usize::from(inner.width) + 1 {
                break;
            }
            kept.retain(|&i| i != drop);
        }
        widths = kept.iter().map(|&i| widths[i]).collect();
        let cells: Vec<Vec<String>> = cells
            .into_iter()
            .map(|c| kept.iter().map(|&i| c[i].clone()).collect())
            .collect();
        let headers: Vec<&str> = kept.iter().map(|&i| COLUMNS[i]).collect();
        let widths: Vec<Constraint> = widths
            .into_iter()
            .map(|w| Constraint::Length(w as u16))
            .collect();
        let page = inner.height.saturating_sub(1) as usize;
        let scroll = crate::ui::cursor::scrolled_to(self.cursor, self.scroll, page.max(1));
        let body = cells
            .into_iter()
            .zip(rows)
            .enumerate()
            .skip(scroll)
            .take(page)
            .map(|(i, (c, r))| {
                let mut style = theme.health(r.health());
                if r.kind != ContainerKind::App {
                    style = style.add_modifier(Modifier::ITALIC);
                }
                if i == self.cursor {
                    style = theme.selected(style);
                }
                Row::new(c).style(style)
            });
        let header = Row::new(headers).style(header_style(theme));
        Table::new(body, widths)
            .header(header)
            .column_spacing(1)
            .render(inner, buf);
    }
}
