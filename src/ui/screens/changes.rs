//! The latest changes across the cluster (`:changes [RESOURCE] [-n NS|-A] [-l SELECTOR]`):
//! every version history recorded, newest first, with its one-line summary — "what changed in
//! the last 10 minutes". Filtered by resource, namespace (the current one by default) and label
//! selector like the tables; `/` filters the lines by substring (`/-l SELECTOR` sets the
//! selector); Enter opens the object's timeline at that version.

use crossterm::event::{Event, KeyCode, KeyEvent};
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell as TCell, Paragraph, Row as TRow, Table, Widget};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::Screen;
use super::history::{clock, delta_style};
use crate::informer::history::{ChangeRow, HistoryStats};
use crate::selector::LabelSelector;
pub use crate::ui::action::ChangesFilter;
use crate::ui::action::{Effect, resource_label};
use crate::ui::app::{App, Mode};
use crate::ui::event_log::{fit_resource, resource_cap};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};
use crate::ui::resources::resolve;
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

impl App {
    /// `:changes [RESOURCE] [-n NS|-A] [-l SELECTOR]`.
    pub(crate) fn open_changes(&mut self, args: &[&str], fx: &mut Vec<Effect>) {
        let mut filter = ChangesFilter {
            namespace: self.namespace.clone(),
            ..ChangesFilter::default()
        };
        let mut words = args.iter();
        while let Some(w) = words.next() {
            match *w {
                "-A" => filter.namespace = None,
                "-n" => filter.namespace = words.next().map(|s| s.to_string()),
                "-l" => filter.selector = words.next().map_or(String::new(), |s| s.to_string()),
                name => match resolve(&self.resources, name) {
                    Some(r) => filter.resource = Some(resource_label(r)),
                    None => {
                        self.error(format!("unknown resource: {name}"));
                        return;
                    }
                },
            }
        }
        if let Err(e) = LabelSelector::parse(&filter.selector) {
            self.error(format!("invalid selector: {e}"));
            return;
        }
        fx.push(Effect::FetchChanges {
            filter: filter.clone(),
            limit: CHANGES_LIMIT,
        });
        self.stack.push(Screen::Changes(Box::new(ChangesView {
            filter,
            text: String::new(),
            rows: None,
            stats: HistoryStats::default(),
            selected: 0,
            scroll: 0,
        })));
        self.dirty = true;
    }

    /// Answer to [`Effect::FetchChanges`]: the lines for every changes screen with that filter.
    pub(crate) fn on_changes(
        &mut self,
        filter: &ChangesFilter,
        rows: Vec<ChangeRow>,
        stats: HistoryStats,
    ) {
        for s in self.stack.iter_mut() {
            if let Screen::Changes(c) = s
                && c.filter == *filter
                && (c.rows.as_ref() != Some(&rows) || c.stats != stats)
            {
                // Keep the selected line selected as newer lines arrive on top.
                // (A line is its object's version: its delta type may arrive later.)
                if let Some(top) = c.rows.as_ref().and_then(|old| old.first())
                    && c.selected > 0
                    && let Some(shift) = rows
                        .iter()
                        .position(|r| r.id == top.id && r.resource_version == top.resource_version)
                {
                    c.selected += shift;
                }
                c.rows = Some(rows.clone());
                c.stats = stats;
                let n = c.shown().count();
                c.selected = c.selected.min(n.saturating_sub(1));
                self.dirty = true;
            }
        }
    }

    /// Once a second while the changes screen is on top: ask again.
    pub(crate) fn refresh_changes(&self, fx: &mut Vec<Effect>) {
        if let Some(Screen::Changes(c)) = self.current_screen() {
            fx.push(Effect::FetchChanges {
                filter: c.filter.clone(),
                limit: CHANGES_LIMIT,
            });
        }
    }

    pub(crate) fn on_changes_key(&mut self, action: KeyAction, fx: &mut Vec<Effect>) -> bool {
        let Some(Screen::Changes(c)) = self.stack.last() else {
            return false;
        };
        let text = c.text.clone();
        let selected = c.shown().nth(c.selected).cloned();
        match action {
            KeyAction::Filter => {
                self.mode = Mode::Filter {
                    input: Input::new(text),
                };
            }
            KeyAction::LabelFilter => self.open_picker(),
            KeyAction::Enter | KeyAction::History => {
                if let Some(r) = selected {
                    self.open_history(
                        &r.id.resource,
                        &r.id.key,
                        Some(r.resource_version.clone()),
                        fx,
                    );
                }
            }
            _ => return !matches!(action, KeyAction::Back),
        }
        true
    }

    /// The label selector of the changes screen on top (from `/-l` or the `l` picker): the list
    /// asked again with it. False, with the footer saying why, when it does not parse.
    pub(crate) fn set_changes_selector(&mut self, sel: &str, fx: &mut Vec<Effect>) -> bool {
        let sel = sel.trim().to_string();
        if let Err(e) = LabelSelector::parse(&sel) {
            self.error(format!("invalid selector: {e}"));
            return false;
        }
        if let Some(Screen::Changes(c)) = self.stack.last_mut() {
            c.filter.selector = sel;
            c.rows = None;
            c.text.clear();
            c.selected = 0;
            c.scroll = 0;
            fx.push(Effect::FetchChanges {
                filter: c.filter.clone(),
                limit: CHANGES_LIMIT,
            });
            self.dirty = true;
        }
        true
    }

    /// A key of the `/` line over the changes screen: live substring filter; `-l SELECTOR`
    /// (on Enter) changes the selector and asks again; Esc clears.
    pub(crate) fn on_changes_filter_key(
        &mut self,
        key: KeyEvent,
        mut input: Input,
        fx: &mut Vec<Effect>,
    ) -> Mode {
        let text = match key.code {
            KeyCode::Esc => Some(String::new()),
            KeyCode::Enter => {
                let text = input.value().trim().to_string();
                if let Some(sel) = text.strip_prefix("-l") {
                    self.set_changes_selector(sel, fx);
                    return Mode::Normal;
                }
                if let Some(Screen::Changes(c)) = self.stack.last_mut() {
                    c.text = text;
                }
                return Mode::Normal;
            }
            _ => {
                input.handle_event(&Event::Key(key));
                let t = input.value().to_string();
                (!t.starts_with("-l")).then_some(t)
            }
        };
        if let (Some(t), Some(Screen::Changes(c))) = (text, self.stack.last_mut()) {
            c.text = t;
            c.selected = 0;
            c.scroll = 0;
        }
        if key.code == KeyCode::Esc {
            Mode::Normal
        } else {
            Mode::Filter { input }
        }
    }

    pub(crate) fn nav_changes(&mut self, action: KeyAction, n: usize) {
        let page = self.table_height().max(1);
        let Some(Screen::Changes(c)) = self.stack.last_mut() else {
            return;
        };
        c.selected = super::moved_cursor(action, n, c.selected, c.shown().count());
        c.scroll = super::scrolled_to(c.selected, c.scroll, page);
    }

    /// Header lines 2 and 3 over the changes screen: the filters and how far back it goes.
    pub(crate) fn changes_header(
        &self,
        c: &ChangesView,
        label: Style,
        value: Style,
    ) -> [Line<'static>; 2] {
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
                crate::render::format_age(self.now_ms.saturating_sub(t) / 1000)
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
        [Line::from(l2), Line::from(l3)]
    }
}

pub(crate) fn render_changes(c: &ChangesView, area: Rect, buf: &mut Buffer) {
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
pub(crate) const HINTS: [KeyAction; 5] = [
    KeyAction::Enter,
    KeyAction::Filter,
    KeyAction::LabelFilter,
    KeyAction::Back,
    KeyAction::Help,
];
