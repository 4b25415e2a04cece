//! The latest changes across the cluster (`:changes [RESOURCE] [-n NS|-A] [-l SELECTOR]`):
//! every version history recorded, newest first, with its one-line summary — "what changed in
//! the last 10 minutes". Filtered by resource, namespace (the current one by default) and label
//! selector like the tables; `/` filters the lines by substring (`/-l SELECTOR` sets the
//! selector); Enter opens the object's timeline at that version.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell as TCell, Paragraph, Row as TRow, Table, Widget};

use crate::informer::history::{ChangeRow, HistoryStats};
pub use crate::ui::action::ChangesFilter;
use crate::ui::action::Effect;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::cursor::{moved_cursor, scrolled_to};
use crate::ui::event_log::{fit_resource, resource_cap};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};
use crate::ui::style::{clock, delta_style};
use crate::ui::xray::counted;

/// Most lines the changes screen asks for.
pub const CHANGES_LIMIT: usize = 1000;

/// The changes screen's state.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangesView {
    pub filter: ChangesFilter,
    /// The `/` substring filter over resource, key and summary.
    pub text: String,
    /// `None` until the first answer.
    pub rows: Option<Vec<ChangeRow>>,
    pub stats: HistoryStats,
    pub selected: usize,
    pub scroll: usize,
}

impl ChangesView {
    /// The rows the text filter lets through, newest first.
    pub fn shown(&self) -> impl Iterator<Item = &ChangeRow> {
        let needle = self.text.to_lowercase();
        self.rows.iter().flatten().filter(move |r| {
            needle.is_empty()
                || r.id.resource.to_lowercase().contains(&needle)
                || r.id.key.to_lowercase().contains(&needle)
                || r.summary.to_lowercase().contains(&needle)
        })
    }
}

impl ChangesView {
    /// A changes screen for `filter`, waiting for its first answer.
    pub fn new(filter: ChangesFilter) -> ChangesView {
        ChangesView {
            filter,
            text: String::new(),
            rows: None,
            stats: HistoryStats::default(),
            selected: 0,
            scroll: 0,
        }
    }

    /// The runtime's lines for its filter: the selected line stays selected as newer lines
    /// arrive on top. False when nothing changed.
    pub fn answer(&mut self, rows: &[ChangeRow], stats: HistoryStats) -> bool {
        let c = self;
        if c.rows.as_deref() == Some(rows) && c.stats == stats {
            return false;
        }
        // (A line is its object's version: its delta type may arrive later.)
        if let Some(top) = c.rows.as_ref().and_then(|old| old.first())
            && c.selected > 0
            && let Some(shift) = rows
                .iter()
                .position(|r| r.id == top.id && r.resource_version == top.resource_version)
        {
            c.selected += shift;
        }
        c.rows = Some(rows.to_vec());
        c.stats = stats;
        let n = c.shown().count();
        c.selected = c.selected.min(n.saturating_sub(1));
        true
    }

    /// The `/` line's text filter (the lines shown from the top).
    pub fn set_text(&mut self, text: String) {
        self.text = text;
        self.selected = 0;
        self.scroll = 0;
    }

    /// A new label selector: the lines asked again with it (the effect that asks).
    pub fn set_selector(&mut self, selector: String) -> Effect {
        self.filter.selector = selector;
        self.rows = None;
        self.text.clear();
        self.selected = 0;
        self.scroll = 0;
        Effect::FetchChanges {
            filter: self.filter.clone(),
            limit: CHANGES_LIMIT,
        }
    }
}

impl Component for ChangesView {
    fn on_action(&mut self, action: KeyAction, _ctx: &Ctx) -> Outcome {
        match action {
            KeyAction::Filter => Outcome::Ask(Request::Search {
                text: self.text.clone(),
            }),
            KeyAction::LabelFilter => Outcome::Ask(Request::LabelPicker),
            KeyAction::Enter | KeyAction::History => match self.shown().nth(self.selected) {
                Some(r) => Outcome::Ask(Request::OpenHistory {
                    resource: r.id.resource.to_string(),
                    key: r.id.key.to_string(),
                    rv: Some(r.resource_version.clone()),
                    cluster: None,
                }),
                None => Outcome::Consumed,
            },
            // Nothing under it takes table keys.
            KeyAction::Back => Outcome::NotConsumed,
            _ => Outcome::Consumed,
        }
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let page = ctx.table_height.max(1);
        self.selected = moved_cursor(action, n, self.selected, self.shown().count());
        self.scroll = scrolled_to(self.selected, self.scroll, page);
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_changes(self, area, buf)
    }

    /// Header lines 2 and 3 over the changes screen: the filters and how far back it goes.
    fn header(&self, ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        let c = self;
        let f = &c.filter;
        let l2 = vec![
            Span::styled(" Changes: ", label),
            Span::styled(
                format!(
                    "{} │ ns {} │ labels {}{}",
                    f.resource.as_deref().unwrap_or("all resources"),
                    f.namespace.as_deref().unwrap_or("all"),
                    if f.selector.is_empty() {
                        "any"
                    } else {
                        &f.selector
                    },
                    if c.text.is_empty() {
                        String::new()
                    } else {
                        format!(" │ /{}", c.text)
                    }
                ),
                value,
            ),
        ];
        let back = match c.stats.oldest_ms {
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
                    "{back} │ {} of {} │ {:.1}/{} MiB",
                    counted(c.stats.versions, "version", "versions"),
                    counted(c.stats.objects, "object", "objects"),
                    c.stats.bytes as f64 / (1024.0 * 1024.0),
                    c.stats.budget / (1024 * 1024),
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

fn render_changes(c: &ChangesView, area: Rect, buf: &mut Buffer) {
    let shown: Vec<&ChangeRow> = c.shown().collect();
    let title = Line::from(vec![Span::styled(
        format!(" Changes[{}] ", shown.len()),
        Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
    )]);
    let block = Block::bordered()
        .border_style(Style::default().fg(Color::Blue))
        .title(title.centered());
    if c.rows.is_none() {
        Paragraph::new(Line::styled("loading…", Style::default().fg(DIM)))
            .block(block)
            .render(area, buf);
        return;
    }
    let inner_h = block.inner(area).height.saturating_sub(1) as usize;
    // RESOURCE as wide as the widest visible one, the plural alone when its group does not fit.
    let resource_w = shown
        .iter()
        .skip(c.scroll)
        .take(inner_h)
        .map(|r| r.id.resource.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(8, resource_cap(area.width));
    // OBJECT as wide as the longest visible key (pods of one ReplicaSet differ only at the
    // end), leaving CHANGES at least two fifths of what TIME, RESOURCE and DELTA leave.
    let rest = usize::from(area.width.saturating_sub(2)).saturating_sub(8 + resource_w + 9 + 4);
    let object_w = shown
        .iter()
        .skip(c.scroll)
        .take(inner_h)
        .map(|r| r.id.key.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(10, (rest * 3 / 5).clamp(10, 64)) as u16;
    let rows = shown
        .iter()
        .enumerate()
        .skip(c.scroll)
        .take(inner_h)
        .map(|(i, r)| {
            let mut style = delta_style(r.delta, r.tombstone);
            if i == c.selected {
                style = style.add_modifier(Modifier::REVERSED);
            }
            let delta = match (r.delta, r.tombstone) {
                (Some(d), true) => format!("{d}†"),
                (Some(d), false) => d.to_string(),
                (None, _) => "Queued".into(),
            };
            TRow::new([
                clock(r.at_ms),
                fit_resource(&r.id.resource, resource_w).into_owned(),
                delta,
                r.id.key.to_string(),
                r.summary.clone(),
            ])
            .style(style)
        });
    let header = TRow::new(["TIME", "RESOURCE", "DELTA", "OBJECT", "CHANGES"].map(TCell::from))
        .style(
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        );
    let widths = [
        Constraint::Length(8),
        Constraint::Length(resource_w as u16),
        Constraint::Length(9),
        Constraint::Length(object_w),
        Constraint::Fill(1),
    ];
    Widget::render(
        Table::new(rows, widths)
            .header(header)
            .block(block)
            .column_spacing(1),
        area,
        buf,
    );
}

/// Footer hints on the changes screen.
const HINTS: [KeyAction; 5] = [
    KeyAction::Enter,
    KeyAction::Filter,
    KeyAction::LabelFilter,
    KeyAction::Back,
    KeyAction::Help,
];
