//! The DeltaFIFO event log: full screen (`:deltas`) and as the pane under a table (`e`).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell as TCell, Row as TRow, Table, Widget};

use crate::informer::delta_fifo::DeltaType;
use crate::informer::shared_informer::TapEntry;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::event_log::{
    EventLog, LogChange, delta_name, fit_resource, resource_cap, shown_kind,
};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};
use crate::ui::listing::listing_note;

/// The full-screen event log (`:deltas`): how far it is scrolled (the log itself, shared with
/// the pane under a table, is [`Ctx::events`]).
#[derive(Debug, Clone, Default)]
pub struct EventsScreen {
    /// Rows scrolled down from the newest shown entry.
    scroll: usize,
}

impl Component for EventsScreen {
    /// Pause and the filters (the log's, so the pane's too: App changes them), Enter the history
    /// of the object of the line at the top; other keys go on.
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        let change = match action {
            KeyAction::Pause => LogChange::TogglePause,
            KeyAction::EventType => LogChange::CycleType,
            KeyAction::EventKind => LogChange::CycleKind,
            KeyAction::Enter => return history_of_entry(ctx.events.shown().nth(self.scroll)),
            _ => return Outcome::NotConsumed,
        };
        self.scroll = 0;
        Outcome::Ask(Request::EventLog(change))
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let len = ctx.events.shown().count();
        self.scroll = match action {
            KeyAction::Up | KeyAction::PageUp => self.scroll.saturating_sub(n),
            KeyAction::Down | KeyAction::PageDown => (self.scroll + n).min(len.saturating_sub(1)),
            KeyAction::Top => 0,
            _ => len.saturating_sub(1),
        };
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        render_events(
            ctx.events,
            ctx.fleet.then_some(ctx.connection.context.as_str()),
            listing_note(ctx.informers).as_deref(),
            area,
            buf,
            Some(self.scroll),
        )
    }

    fn header(&self, ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        Some(events_header(ctx.events, label, value))
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}

/// Enter on a line: the history of its object (a fleet member's entry: on that member).
fn history_of_entry(e: Option<&TapEntry>) -> Outcome {
    let Some(e) = e else {
        return Outcome::Consumed;
    };
    // The tap names informers `pods`, `deployments.apps@namespace`: history files objects
    // under the resource without the informer's namespace.
    Outcome::Ask(Request::OpenHistory {
        resource: e.kind.split('@').next().unwrap_or_default().to_string(),
        key: e.key.to_string(),
        rv: (!e.resource_version.is_empty()).then(|| e.resource_version.clone()),
        cluster: e.cluster.as_deref().map(str::to_string),
    })
}

/// Header lines 2 and 3 over the full-screen event log.
fn events_header(log: &EventLog, label: Style, value: Style) -> [Line<'static>; 2] {
    let mut l2 = vec![
        Span::styled(" Event log: ", label),
        Span::styled(format!("{}/{} entries", log.len(), log.capacity()), value),
    ];
    if log.paused() {
        l2.push(Span::styled(
            format!(" │ PAUSED (+{} new)", log.new_while_paused()),
            Style::default().fg(Color::Yellow),
        ));
    } else {
        l2.push(Span::styled(" │ live", Style::default().fg(Color::Green)));
    }
    let mut l3 = vec![Span::styled(" Filter: ", label)];
    if log.type_filter.is_none() && log.kind_filter.is_none() {
        l3.push(Span::styled("none", Style::default().fg(DIM)));
    } else {
        l3.push(Span::styled(
            format!(
                "type:{} kind:{}",
                log.type_filter.map_or("all", delta_name),
                log.kind_filter.as_deref().unwrap_or("all")
            ),
            value,
        ));
    }
    [Line::from(l2), Line::from(l3)]
}

/// The event log pane in one line (a terminal of 30 rows or fewer): the latest delta shown,
/// and how many the log holds.
pub(crate) fn render_events_line(log: &EventLog, area: Rect, buf: &mut Buffer) {
    let mut spans = vec![Span::styled(
        format!(" DeltaFIFO[{}] ", log.len()),
        Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
    )];
    match log.shown().next() {
        Some(e) => {
            let time = chrono::DateTime::<chrono::Utc>::from(e.at)
                .format("%H:%M:%S%.3f")
                .to_string();
            let delta = if e.tombstone {
                "DeletedFinalStateUnknown"
            } else {
                delta_name(e.delta)
            };
            spans.push(Span::styled(time, Style::default().fg(DIM)));
            spans.push(Span::raw(format!(
                "  {}  {delta}  {}  rv {}",
                shown_kind(&e.kind),
                e.key,
                e.resource_version
            )));
        }
        None => spans.push(Span::styled("no deltas yet", Style::default().fg(DIM))),
    }
    ratatui::widgets::Paragraph::new(Line::from(spans)).render(area, buf);
}

/// `fleet`: several clusters are selected and this is the current one: a CLUSTER column
/// names each entry's (the members' taps name theirs; the current context's do not).
/// `listing`: the informers still listing (their deltas come when their list ends), said in the
/// title. `full`: the full screen, scrolled this many rows (else the pane under a table).
pub(crate) fn render_events(
    log: &EventLog,
    fleet: Option<&str>,
    listing: Option<&str>,
    area: Rect,
    buf: &mut Buffer,
    full: Option<usize>,
) {
    let scroll = full.unwrap_or(0);
    let full = full.is_some();
    // Filtered: the rows shown of those kept (a filter showing none says 0, not the ring's
    // fill); else how full the ring is.
    let count = if log.type_filter.is_some() || log.kind_filter.is_some() {
        format!("{} of {}", log.shown().count(), log.len())
    } else {
        format!("{}/{}", log.len(), log.capacity())
    };
    let mut title = vec![Span::styled(
        format!(" DeltaFIFO events[{count}] "),
        Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
    )];
    title.push(Span::styled(
        format!(
            "type:{} kind:{} ",
            log.type_filter.map_or("all", delta_name),
            log.kind_filter.as_deref().unwrap_or("all")
        ),
        Style::default().fg(Color::White),
    ));
    if let Some(l) = listing {
        title.push(Span::styled(
            format!(" {l} "),
            Style::default().fg(Color::Yellow),
        ));
    }
    if log.paused() {
        title.push(Span::styled(
            format!(" PAUSED (+{} new) ", log.new_while_paused()),
            Style::default().fg(Color::Black).bg(Color::Yellow),
        ));
    }
    let block = Block::default()
        .borders(if full { Borders::ALL } else { Borders::TOP })
        .border_style(Style::default().fg(Color::Blue))
        .title(Line::from(title).centered());
    let inner_h = block.inner(area).height.saturating_sub(1) as usize;
    // Stable widths: KIND fits the widest kind seen, DELTA is wide only while tombstones exist.
    // KIND shows the informer's resource without its `@namespace` (KEY starts with it), its
    // plural alone when the group does not fit.
    let kind_cap = resource_cap(area.width);
    let kind_w = log.kind_width().clamp(4, kind_cap);
    let delta_w: u16 = if log.has_tombstones() { 24 } else { 8 };
    // RV as wide as the visible ones (KEY, which needs the room, takes the rest).
    let rv_w = log
        .shown()
        .skip(scroll)
        .take(inner_h)
        .map(|e| e.resource_version.chars().count())
        .max()
        .map_or(10, |w| w.clamp(2, 20)) as u16;
    let rows = log
        .shown()
        .skip(scroll)
        .take(inner_h)
        .enumerate()
        .map(|(i, e)| {
            let time = chrono::DateTime::<chrono::Utc>::from(e.at)
                .format("%H:%M:%S%.3f")
                .to_string();
            let (ty, style) = if e.tombstone {
                (
                    "DeletedFinalStateUnknown".to_string(),
                    Style::default()
                        .fg(Color::LightRed)
                        .add_modifier(Modifier::BOLD),
                )
            } else {
                let s = match e.delta {
                    DeltaType::Added => Style::default().fg(Color::Green),
                    DeltaType::Updated => Style::default().fg(Color::Cyan),
                    DeltaType::Deleted => Style::default().fg(Color::Red),
                    DeltaType::Replaced => Style::default().fg(Color::Yellow),
                    DeltaType::Sync => Style::default().fg(DIM),
                };
                (delta_name(e.delta).to_string(), s)
            };
            let mut cells = Vec::with_capacity(7);
            if let Some(current) = fleet {
                cells.push(e.cluster.as_deref().unwrap_or(current).to_string());
            }
            cells.extend([
                time,
                fit_resource(shown_kind(&e.kind), kind_w).into_owned(),
                ty,
                e.key.to_string(),
                e.resource_version.clone(),
                e.queue_depth.to_string(),
            ]);
            TRow::new(cells)
                // The top line of the full screen is the one Enter opens the history of.
                .style(if full && i == 0 {
                    style.add_modifier(Modifier::REVERSED)
                } else {
                    style
                })
        });
    let mut names = vec!["TIME", "KIND", "DELTA", "KEY", "RV", "QUEUE"];
    let mut widths = Vec::with_capacity(7);
    if fleet.is_some() {
        names.insert(0, "CLUSTER");
        widths.push(Constraint::Length(12));
    }
    let header = TRow::new(names.into_iter().map(TCell::from)).style(
        Style::default()
            .fg(Color::White)
            .add_modifier(Modifier::BOLD),
    );
    widths.extend([
        Constraint::Length(12),
        Constraint::Length(kind_w as u16),
        Constraint::Length(delta_w),
        Constraint::Fill(1),
        Constraint::Length(rv_w),
        Constraint::Length(5),
    ]);
    Widget::render(
        Table::new(rows, widths)
            .header(header)
            .block(block)
            .column_spacing(2),
        area,
        buf,
    );
}

/// Footer hints on the full-screen event log.
const HINTS: [KeyAction; 5] = [
    KeyAction::Pause,
    KeyAction::EventType,
    KeyAction::EventKind,
    KeyAction::Back,
    KeyAction::Help,
];
