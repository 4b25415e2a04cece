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
//! The screen is a self-contained component: it owns its state, maps keys to an [`Outcome`] the
//! app carries out, and draws from its own rows.
//!
//! Where this differs from k9s: k9s's CPU/R:L, MEM/R:L and (wide) VALID columns are left out
//! (the percentages say the same), and the rows are not re-sorted (the pod's order).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Row, Table, Widget};

use super::Screen;
use crate::render::Health;
use crate::render::metrics::UsageCell;
use crate::ui::action::{ContainerPort, Effect, ObjectSummary};
use crate::ui::app::App;
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, header_style, screen_block};
use crate::ui::log_stream::ContainerPick;
use crate::ui::portforward::ForwardRow;
use crate::ui::theme::Theme;

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

/// What a key on the containers screen asks the app to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Done here (a move), or nothing to do.
    Taken,
    /// Not this screen's key (the app's global keys: back, command line, help).
    NotMine,
    /// The container's logs (`previous`: its previous instance's).
    Logs {
        container: String,
        previous: bool,
    },
    Shell(String),
    Attach(String),
    /// Port-forward one of these ports (the container's).
    Forward(Vec<ContainerPort>),
}

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

    /// A key (after the key map): what the app should do.
    pub fn on_key(&mut self, action: KeyAction) -> Outcome {
        let name = || self.selected().map(|r| r.name.clone());
        let on_container = |f: fn(String) -> Outcome| name().map_or(Outcome::Taken, f);
        match action {
            KeyAction::Enter | KeyAction::Logs => on_container(|container| Outcome::Logs {
                container,
                previous: false,
            }),
            KeyAction::PreviousLogs => on_container(|container| Outcome::Logs {
                container,
                previous: true,
            }),
            KeyAction::Shell => on_container(Outcome::Shell),
            KeyAction::Attach => on_container(Outcome::Attach),
            KeyAction::PortForward => match self.selected() {
                Some(r) => Outcome::Forward(r.ports.clone()),
                None => Outcome::Taken,
            },
            KeyAction::Back | KeyAction::Quit | KeyAction::Command | KeyAction::Help => {
                Outcome::NotMine
            }
            // The resource table's keys do not apply here.
            _ => Outcome::Taken,
        }
    }

    /// Up, down, page, top, bottom; `page`: rows on screen.
    pub fn nav(&mut self, action: KeyAction, n: usize, page: usize) {
        self.cursor = crate::ui::cursor::moved_cursor(action, n, self.cursor, self.len());
        self.scroll = crate::ui::cursor::scrolled_to(self.cursor, self.scroll, page.max(1));
    }

    /// Header lines 2 and 3: the pod, and how many containers of each sort.
    pub fn header(&self, label: Style, value: Style) -> [Line<'static>; 2] {
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

    /// Draw the table. `now_unix`: the clock for AGE; `forwards`: the active port-forwards
    /// (PF shows `Ⓕ` on a container one of them goes to, as k9s).
    pub fn draw(
        &self,
        theme: &Theme,
        now_unix: i64,
        forwards: &[ForwardRow],
        area: Rect,
        buf: &mut Buffer,
    ) {
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

/// Why `what` is refused here (read-only), if it is.
fn refusal(app: &App, what: &str) -> Option<String> {
    app.readonly
        .then(|| crate::ui::operate::readonly_refusal(what, &app.readonly_why))
}

/// Enter on a pod: push its containers screen and read them.
pub(crate) fn open(app: &mut App, pod: ObjectSummary, fx: &mut Vec<Effect>) {
    let view = ContainersView::new(pod);
    fx.push(view.fetch());
    app.stack.push(Screen::Containers(Box::new(view)));
}

/// The pod's containers arrived: to every containers screen of that pod on the stack.
pub(crate) fn on_rows(
    app: &mut App,
    namespace: &str,
    pod: &str,
    result: Result<PodContainers, String>,
) {
    for s in app.stack.iter_mut() {
        if let Screen::Containers(v) = s
            && v.namespace() == namespace
            && *v.pod.name == *pod
        {
            v.set_rows(result.clone());
        }
    }
}

/// The pods table under the screen on top got rows: when the pod's row has a new
/// resourceVersion, read its containers again (they changed: a restart, a state, a probe).
pub(crate) fn follow_pod(app: &mut App, fx: &mut Vec<Effect>) {
    let Some(Screen::Containers(v)) = app.stack.last() else {
        return;
    };
    let Some(table) = app.current_view() else {
        return;
    };
    let Some(entry) = table.table.entry(&v.pod.key) else {
        return;
    };
    let rv = entry.summary.object.metadata.resource_version.clone();
    if rv.as_deref().unwrap_or_default() == v.read_at {
        return;
    }
    let summary = entry.summary.clone();
    if let Some(Screen::Containers(v)) = app.stack.last_mut() {
        v.read_at = rv.unwrap_or_default();
        v.pod = summary;
        fx.push(v.fetch());
    }
}

/// A key for the containers screen on top; false when it is not its key.
pub(crate) fn on_key(app: &mut App, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
    let Some(Screen::Containers(v)) = app.stack.last_mut() else {
        return false;
    };
    let outcome = v.on_key(action);
    let pod = v.pod.clone();
    let namespace = v.namespace().to_string();
    match outcome {
        Outcome::Taken => {}
        Outcome::NotMine => return false,
        Outcome::Logs {
            container,
            previous,
        } => app.open_logs_of("Pod", &pod, ContainerPick::One(container), previous, fx),
        Outcome::Shell(container) => {
            if let Some(why) = refusal(app, "shell") {
                app.error(why);
            } else {
                fx.push(Effect::Shell {
                    namespace,
                    pod: pod.name.to_string(),
                    container: Some(container),
                });
            }
        }
        Outcome::Attach(container) => {
            if let Some(why) = refusal(app, "attach") {
                app.error(why);
            } else {
                fx.push(Effect::Attach {
                    namespace,
                    pod: pod.name.to_string(),
                    container,
                });
            }
        }
        Outcome::Forward(ports) => {
            if let Some(why) = refusal(app, "port-forward") {
                app.error(why);
            } else if ports.is_empty() {
                app.error("the container declares no ports");
            } else {
                app.open_forward_dialog_with(namespace, pod.name.to_string(), ports);
            }
        }
    }
    true
}
