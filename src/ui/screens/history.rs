//! One object's history (`h` on a table row, Enter on an event-log line or a `:changes` line):
//! its recorded versions, newest first — time, delta type (tombstones marked), resourceVersion
//! and a one-line summary of what changed. Space marks a version; Enter diffs the marked and
//! the selected version (or the selected one against the version before it).
//!
//! The object's Events are interleaved with its versions by time (k9s #1678: the events of one
//! object; k9s shows them only in describe): each as one line with its type (Warning in the
//! theme's warning colour), reason, message and count, from the events informer's `involved`
//! index, refreshed with the versions. Enter on an Event line opens the Event's YAML. When the
//! user may not list Events there, one red line over the timeline gives the server's 403
//! message (as a forbidden view does) instead of an unexplained absence.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell as TCell, Paragraph, Row as TRow, Table, Widget};

use crate::informer::history::{
    DiffLine, HistoryStats, Timeline, TimelineEvent, TimelineRow, display_path, interleave,
    unified_diff,
};
use crate::render::Health;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::cursor::{moved_cursor, scrolled_to};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};
use crate::ui::view::TextKind;

/// What the timeline screen shows.
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryState {
    /// Asked for, not answered yet.
    Loading,
    /// Nothing recorded for this object (never seen by an informer, or evicted).
    Missing,
    Loaded(Box<Timeline>),
}

/// A timeline line's identity across answers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum LineId {
    Version(String),
    Event(Option<String>, String),
}

/// The timeline screen's state.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryView {
    /// The history's resource name (`pods`, `deployments.apps`).
    pub resource: String,
    /// `namespace/name` (or `name`).
    pub key: String,
    pub state: HistoryState,
    pub stats: HistoryStats,
    /// Selected row (0 = newest version).
    pub selected: usize,
    /// The marked row's version index (oldest = 0), for a diff of two versions.
    pub marked: Option<usize>,
    pub scroll: usize,
    /// Select this resourceVersion when the timeline arrives (opened from `:changes`).
    pub select_rv: Option<String>,
    /// The object's kind (`Pod`; empty when the resource is not known), for its Events.
    pub kind: String,
    /// The object's Events, in no order (the rows interleave them with the versions).
    pub events: Vec<TimelineEvent>,
    /// Why its Events cannot be shown (the server's 403 message), shown on one line.
    pub events_unavailable: Option<String>,
}

impl HistoryView {
    pub fn new(resource: &str, key: &str) -> Self {
        Self {
            resource: resource.to_string(),
            key: key.to_string(),
            state: HistoryState::Loading,
            stats: HistoryStats::default(),
            selected: 0,
            marked: None,
            scroll: 0,
            select_rv: None,
            kind: String::new(),
            events: Vec::new(),
            events_unavailable: None,
        }
    }

    fn timeline(&self) -> Option<&Timeline> {
        match &self.state {
            HistoryState::Loaded(t) => Some(t),
            _ => None,
        }
    }

    /// The timeline's lines, newest first: versions and Events by time.
    pub fn rows(&self) -> Vec<TimelineRow> {
        let versions = self.timeline().map_or(&[][..], |t| &t.versions[..]);
        interleave(versions, &self.events)
    }

    fn len(&self) -> usize {
        self.timeline().map_or(0, |t| t.versions.len()) + self.events.len()
    }

    /// The version index (oldest = 0) of a row (0 = newest); `None` on an Event line.
    fn version_index(&self, row: usize) -> Option<usize> {
        match self.rows().get(row) {
            Some(TimelineRow::Version(i)) => Some(*i),
            _ => None,
        }
    }

    /// The Event of a row; `None` on a version line.
    pub fn event_at(&self, row: usize) -> Option<&TimelineEvent> {
        match self.rows().get(row) {
            Some(TimelineRow::Event(i)) => self.events.get(*i),
            _ => None,
        }
    }

    /// A new answer for this object: keep the selected line selected as new ones arrive (the
    /// newest line stays selected if it was).
    pub fn set(
        &mut self,
        timeline: Option<Timeline>,
        stats: HistoryStats,
        events: Vec<TimelineEvent>,
        events_unavailable: Option<String>,
    ) {
        let was = (self.selected > 0)
            .then(|| self.line_id(self.selected))
            .flatten();
        self.stats = stats;
        self.events = events;
        self.events_unavailable = events_unavailable;
        self.state = match timeline {
            Some(t) => HistoryState::Loaded(Box::new(t)),
            None => HistoryState::Missing,
        };
        let after = self.len();
        let select_rv = self.select_rv.take();
        let rows = self.rows();
        let find =
            |id: &LineId| (0..rows.len()).find(|&r| self.line_id_of(rows[r]).as_ref() == Some(id));
        let found = match select_rv {
            Some(rv) => find(&LineId::Version(rv)),
            None => was.as_ref().and_then(find),
        };
        if let Some(r) = found {
            self.selected = r;
        }
        self.selected = self.selected.min(after.saturating_sub(1));
        if let Some(m) = self.marked
            && m >= self.timeline().map_or(0, |t| t.versions.len())
        {
            self.marked = None;
        }
    }

    /// What a line shows, to find it again among new lines: a version by resourceVersion,
    /// an Event by namespace and name.
    fn line_id_of(&self, row: TimelineRow) -> Option<LineId> {
        match row {
            TimelineRow::Version(i) => self
                .timeline()
                .and_then(|t| t.versions.get(i))
                .map(|v| LineId::Version(v.resource_version.clone())),
            TimelineRow::Event(i) => self
                .events
                .get(i)
                .map(|e| LineId::Event(e.namespace.clone(), e.name.clone())),
        }
    }

    fn line_id(&self, row: usize) -> Option<LineId> {
        self.rows().get(row).and_then(|r| self.line_id_of(*r))
    }

    /// The title and lines of the diff Enter opens: marked vs selected, or selected vs the
    /// version before.
    pub fn diff(&self) -> Option<(String, Vec<DiffLine>)> {
        let t = self.timeline()?;
        let sel = self.version_index(self.selected)?;
        let (from, to, title) = match self.marked {
            Some(m) if m != sel => {
                let (a, b) = (m.min(sel), m.max(sel));
                (
                    t.state_at(a),
                    t.state_at(b),
                    format!(
                        "{} rv {} → rv {}",
                        self.key, t.versions[a].resource_version, t.versions[b].resource_version
                    ),
                )
            }
            _ => (
                t.state_before(sel),
                t.state_at(sel),
                format!(
                    "{} rv {} vs the version before",
                    self.key, t.versions[sel].resource_version
                ),
            ),
        };
        // Blame: each added line of a version's own diff says who made the change (the field's
        // manager in that version's managedFields).
        let blame: std::collections::HashMap<String, String> = match self.marked {
            Some(m) if m != sel => std::collections::HashMap::new(),
            _ => t.versions[sel]
                .changes
                .iter()
                .filter_map(|c| Some((display_path(&c.path), c.by.as_ref()?.to_string())))
                .collect(),
        };
        let lines = unified_diff(&from, &to)
            .into_iter()
            .map(|l| match l {
                DiffLine::Added(text) => {
                    let path = text.split(": ").next().unwrap_or("");
                    match blame.get(path) {
                        Some(by) => DiffLine::Added(format!("{text}  · {by}")),
                        None => DiffLine::Added(text),
                    }
                }
                other => other,
            })
            .collect();
        Some((title, lines))
    }
}

impl Component for HistoryView {
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        let h = self;
        match action {
            // `space` is bound to both mark (here) and toggle-node (the xray); the key map
            // answers one of them for it, so the timeline takes either. An Event line has
            // nothing to mark.
            KeyAction::Mark | KeyAction::ToggleNode => {
                if let Some(idx) = h.version_index(h.selected) {
                    h.marked = if h.marked == Some(idx) {
                        None
                    } else {
                        Some(idx)
                    };
                }
            }
            KeyAction::Enter if h.event_at(h.selected).is_some() => {
                if let Some(e) = h.event_at(h.selected) {
                    return event_yaml(e, ctx);
                }
            }
            KeyAction::Enter => {
                if let Some((title, lines)) = h.diff() {
                    return Outcome::Ask(Request::OpenDiff { title, lines });
                }
            }
            // Nothing under it takes table keys.
            KeyAction::Back => return Outcome::NotConsumed,
            _ => {}
        }
        Outcome::Consumed
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let h = self;
        // The line saying why Events are not shown takes one of the table's.
        let page = ctx
            .table_height
            .saturating_sub(usize::from(h.events_unavailable.is_some()))
            .max(1);
        h.selected = moved_cursor(action, n, h.selected, h.len());
        h.scroll = scrolled_to(h.selected, h.scroll, page);
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        render_history(self, ctx.theme.health(Health::Warning), area, buf)
    }

    /// Header lines 2 and 3 over the timeline: the object and how far back history goes.
    fn header(&self, ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        let h = self;
        let l2 = vec![
            Span::styled(" History: ", label),
            Span::styled(format!("{} {}", h.resource, h.key), value),
        ];
        let back = match h.stats.oldest_ms {
            Some(t) => format!(
                "since {} ({} ago)",
                clock(t),
                crate::render::format_age(ctx.now_ms.saturating_sub(t) / 1000)
            ),
            None => "nothing recorded yet".into(),
        };
        let l3 = vec![
            Span::styled(" Recorded: ", label),
            Span::styled(
                format!(
                    "{back} │ {} version{} of {} object{} │ {:.1}/{} MiB{}",
                    h.stats.versions,
                    if h.stats.versions == 1 { "" } else { "s" },
                    h.stats.objects,
                    if h.stats.objects == 1 { "" } else { "s" },
                    h.stats.bytes as f64 / (1024.0 * 1024.0),
                    h.stats.budget / (1024 * 1024),
                    if h.stats.evicted > 0 {
                        format!(" │ {} evicted", h.stats.evicted)
                    } else {
                        String::new()
                    }
                ),
                value,
            ),
        ];
        Some([Line::from(l2), Line::from(l3)])
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}

/// Enter on an Event line: the Event's YAML (the text screen's YAML, as `y` on a row).
fn event_yaml(event: &TimelineEvent, ctx: &Ctx) -> Outcome {
    let name = if event.group.is_empty() {
        "events".to_string()
    } else {
        format!("events.{}", event.group)
    };
    let Some(resource) = crate::ui::resources::resolve(ctx.resources, &name).cloned() else {
        return Outcome::Consumed;
    };
    Outcome::Ask(Request::OpenText {
        kind: TextKind::Yaml,
        resource: Box::new(resource),
        namespace: event.namespace.clone(),
        name: event.name.clone(),
    })
}

pub(crate) use crate::ui::style::{clock, delta_style};

/// The timeline; `warning` is the theme's style for a Warning (an Event line of that type).
fn render_history(h: &HistoryView, warning: Style, area: Rect, buf: &mut Buffer) {
    let mut title = vec![Span::styled(
        format!(" History: {} {} ", h.resource, h.key),
        Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
    )];
    if let Some(t) = h.timeline() {
        title.push(Span::styled(
            format!("[{}] ", t.versions.len()),
            Style::default().fg(Color::White),
        ));
        if t.deleted {
            title.push(Span::styled(
                " DELETED ",
                Style::default().fg(Color::Black).bg(Color::Red),
            ));
        }
        if t.truncated {
            title.push(Span::styled(
                " older versions evicted ",
                Style::default().fg(Color::Black).bg(Color::Yellow),
            ));
        }
    }
    let block = Block::bordered()
        .border_style(Style::default().fg(Color::Blue))
        .title(Line::from(title).centered());
    let mut inner = block.inner(area);
    block.render(area, buf);
    // Events the user may not list: one line saying so, with the server's 403 message, above
    // the lines (as a forbidden view shows its 403).
    if let Some(why) = &h.events_unavailable {
        let line = Line::styled(
            format!("Events not shown: {why}"),
            Style::default().fg(Color::Red),
        );
        Paragraph::new(line).render(Rect { height: 1, ..inner }, buf);
        inner.y = inner.y.saturating_add(1).min(inner.bottom());
        inner.height = inner.height.saturating_sub(1);
    }
    let versions = match &h.state {
        HistoryState::Loaded(t) => &t.versions[..],
        HistoryState::Missing if !h.events.is_empty() => &[][..],
        HistoryState::Loading => {
            Paragraph::new(Line::styled("loading…", Style::default().fg(DIM))).render(inner, buf);
            return;
        }
        HistoryState::Missing => {
            Paragraph::new(Line::styled(
                "no history recorded for this object (history starts when its informer sees it; \
                 the oldest is evicted when the budget is full)",
                Style::default().fg(DIM),
            ))
            .render(inner, buf);
            return;
        }
    };
    let inner_h = inner.height.saturating_sub(1) as usize;
    let lines = h.rows();
    let rows = lines
        .iter()
        .enumerate()
        .skip(h.scroll)
        .take(inner_h)
        .filter_map(|(row, line)| {
            let (cells, mut style) = match *line {
                TimelineRow::Version(i) => {
                    let v = versions.get(i)?;
                    let fields = match h.timeline() {
                        Some(t) if v.baseline => t.state_at(i).len(),
                        _ => 0,
                    };
                    let mark = if h.marked == Some(i) { "●" } else { " " };
                    (
                        [
                            mark.to_string(),
                            clock(v.at_ms),
                            v.delta_label().to_string(),
                            v.resource_version.clone(),
                            v.summary(fields),
                        ],
                        delta_style(v.delta, v.tombstone),
                    )
                }
                TimelineRow::Event(i) => {
                    let e = h.events.get(i)?;
                    (
                        [
                            " ".to_string(),
                            clock(e.at_ms),
                            e.kind.clone(),
                            "event".to_string(),
                            e.summary(),
                        ],
                        if e.is_warning() {
                            warning
                        } else {
                            Style::default().fg(Color::White)
                        },
                    )
                }
            };
            if row == h.selected {
                style = style.add_modifier(Modifier::REVERSED);
            }
            Some(TRow::new(cells).style(style))
        });
    let header = TRow::new(["", "TIME", "DELTA", "RV", "CHANGES"].map(TCell::from)).style(
        Style::default()
            .fg(Color::White)
            .add_modifier(Modifier::BOLD),
    );
    let widths = [
        Constraint::Length(1),
        Constraint::Length(8),
        Constraint::Length(9),
        Constraint::Length(10),
        Constraint::Fill(1),
    ];
    Widget::render(
        Table::new(rows, widths).header(header).column_spacing(1),
        inner,
        buf,
    );
}

/// Footer hints on the timeline.
const HINTS: [KeyAction; 4] = [
    KeyAction::Enter,
    KeyAction::Mark,
    KeyAction::Back,
    KeyAction::Help,
];
