//! Rendering: `impl Widget for &App`. A pure function of the app state: no I/O, no locks, no
//! allocation proportional to the number of rows — only the visible window of a table is touched,
//! so 100k rows cost what 100 cost per frame.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell as TCell, Clear, Paragraph, Row as TRow, Scrollbar, ScrollbarOrientation,
    ScrollbarState, StatefulWidget, Table, Widget,
};

use super::action::{InformerRow, InformerState};
use super::app::{App, ConfirmDelete, LabelPicker, Mode, ResourceView, Screen, TextKind, TextView};
use super::event_log::{EventLog, delta_name};
use super::keys::KeyAction;
use super::table::{Mark, SortBy};
use crate::informer::delta_fifo::DeltaType;
use crate::render::Health;

const TITLE: Color = Color::Cyan;
const DIM: Color = Color::DarkGray;
const KEY: Color = Color::Magenta;
const INFORMER_HEADERS: [&str; 11] = [
    "RESOURCE",
    "NAMESPACE",
    "STATE",
    "SYNCED",
    "OBJECTS",
    "QUEUE",
    "DELTAS",
    "Δ/S",
    "RELISTS",
    "LAST RV",
    "LAST ERROR",
];

fn health_style(h: Health) -> Style {
    Style::default().fg(match h {
        Health::Ok => Color::Cyan,
        Health::Pending => Color::Yellow,
        Health::Warning => Color::LightYellow,
        Health::Error => Color::Red,
        Health::Terminating => Color::Magenta,
        Health::Completed => Color::DarkGray,
    })
}

fn mark_style(base: Style, m: Mark) -> Style {
    match m {
        Mark::None => base,
        Mark::Added => base.fg(Color::Black).bg(Color::Green),
        Mark::Updated => base.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        Mark::Deleted => Style::default()
            .fg(Color::Red)
            .add_modifier(Modifier::CROSSED_OUT | Modifier::DIM),
    }
}

/// `5s`, `2m10s` until a unix-ms instant.
fn countdown(now_ms: i64, at_ms: i64) -> String {
    let secs = ((at_ms - now_ms).max(0) + 999) / 1000;
    format!("{secs}s")
}

fn state_text(state: &InformerState, now_ms: i64) -> String {
    match state {
        InformerState::Starting => "starting".into(),
        InformerState::Listing => "listing".into(),
        InformerState::Watching => "watching".into(),
        InformerState::BackingOff { until_ms } => {
            format!("backing off, retry in {}", countdown(now_ms, *until_ms))
        }
        InformerState::Stopped => "stopped".into(),
    }
}

fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    if s.chars().count() <= max {
        Cow::Borrowed(s)
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        Cow::Owned(t)
    }
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let prompt = matches!(self.mode, Mode::Command { .. } | Mode::Filter { .. });
        let screen = self.current_screen();
        let pane = self.show_events_pane && matches!(screen, Some(Screen::Table(_)));
        let [header, prompt_area, body, pane_area, footer] = Layout::vertical([
            Constraint::Length(3),
            Constraint::Length(if prompt { 3 } else { 0 }),
            Constraint::Fill(1),
            Constraint::Length(if pane { area.height * 2 / 5 } else { 0 }),
            Constraint::Length(1),
        ])
        .areas(area);
        self.render_header(header, buf);
        if prompt {
            self.render_prompt(prompt_area, buf);
        }
        match screen {
            Some(Screen::Table(id)) => match self.views.get(id) {
                Some(v) => self.render_table(v, body, buf),
                None => Paragraph::new("view closed").render(body, buf),
            },
            Some(Screen::Events) => render_events(&self.events, self.now_ms, body, buf, true),
            Some(Screen::Informers) => self.render_informers(body, buf),
            Some(Screen::Text(t)) => render_text(t, body, buf),
            None => Paragraph::new("starting…").render(body, buf),
        }
        if pane {
            render_events(&self.events, self.now_ms, pane_area, buf, false);
        }
        self.render_footer(footer, buf);
        match &self.mode {
            Mode::Help { scroll } => self.render_help(*scroll, area, buf),
            Mode::Confirm(c) => render_confirm(c, area, buf),
            Mode::Labels(p) => render_picker(p, self.current_view(), area, buf),
            _ => {}
        }
    }
}

impl App {
    fn render_header(&self, area: Rect, buf: &mut Buffer) {
        let label = Style::default().fg(Color::Yellow);
        let value = Style::default()
            .fg(Color::White)
            .add_modifier(Modifier::BOLD);
        let c = &self.connection;
        let mut l1 = vec![
            Span::styled(" Context: ", label),
            Span::styled(
                if c.context.is_empty() {
                    "-"
                } else {
                    c.context.as_str()
                },
                value,
            ),
            Span::styled("  Server: ", label),
            Span::styled(c.server_version.as_deref().unwrap_or("?"), value),
            Span::styled("  Namespace: ", label),
            Span::styled(self.header_scope(), value),
        ];
        if self.readonly {
            l1.push(Span::styled(
                "  [readonly]",
                Style::default().fg(Color::LightRed),
            ));
        }
        let screen = self.current_screen();
        // The informer and filter lines describe the screen on top, not the table beneath it.
        match screen {
            Some(Screen::Events) => {
                let log = &self.events;
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
                Paragraph::new(vec![Line::from(l1), Line::from(l2), Line::from(l3)])
                    .render(area, buf);
                return;
            }
            Some(Screen::Informers) => {
                let n = self.informers.len();
                let synced = self.informers.iter().filter(|r| r.synced).count();
                let failing = self
                    .informers
                    .iter()
                    .filter(|r| r.forbidden || r.last_error.is_some())
                    .count();
                let mut l2 = vec![
                    Span::styled(" Informers: ", label),
                    Span::styled(n.to_string(), value),
                    Span::raw(format!(" │ {synced} synced")),
                ];
                if failing > 0 {
                    l2.push(Span::styled(
                        format!(" │ {failing} failing"),
                        Style::default().fg(Color::Red),
                    ));
                }
                let l3 = vec![
                    Span::styled(" Filter: ", label),
                    Span::styled("none", Style::default().fg(DIM)),
                ];
                Paragraph::new(vec![Line::from(l1), Line::from(l2), Line::from(l3)])
                    .render(area, buf);
                return;
            }
            _ => {}
        }
        let mut l2 = vec![Span::styled(" Informer: ", label)];
        let view = self.current_view();
        if !c.reachable {
            l2.push(Span::styled(
                " UNREACHABLE ",
                Style::default()
                    .fg(Color::White)
                    .bg(Color::Red)
                    .add_modifier(Modifier::BOLD),
            ));
            l2.push(Span::styled(
                " STALE: cached data",
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ));
            if let Some(at) = c.retry_at_ms {
                l2.push(Span::styled(
                    format!(" retry in {}", countdown(self.now_ms, at)),
                    Style::default().fg(Color::Red),
                ));
            }
            if let Some(e) = &c.last_error {
                l2.push(Span::styled(
                    format!(" ({})", truncate(e, 60)),
                    Style::default().fg(DIM),
                ));
            }
        } else if let Some(v) = view {
            match self.informer_for(v) {
                Some(r) => {
                    let st = state_text(&r.state, self.now_ms);
                    let st_style = match r.state {
                        InformerState::Watching => Style::default().fg(Color::Green),
                        InformerState::BackingOff { .. } => Style::default().fg(Color::Red),
                        _ => Style::default().fg(Color::Yellow),
                    };
                    l2.push(Span::styled(format!("{} ", r.resource), value));
                    l2.push(Span::styled(st, st_style));
                    l2.push(Span::raw(format!(
                        " │ {} objects │ {:.1} ev/s │ RV {}{}",
                        r.cached,
                        r.deltas_per_sec,
                        if r.last_rv.is_empty() {
                            "-"
                        } else {
                            &r.last_rv
                        },
                        if r.synced {
                            " │ synced"
                        } else {
                            " │ syncing"
                        }
                    )));
                }
                None => l2.push(Span::styled("starting", Style::default().fg(Color::Yellow))),
            }
        }
        let mut l3 = vec![Span::styled(" Filter: ", label)];
        match view.filter(|_| matches!(screen, Some(Screen::Table(_)))) {
            Some(v) => {
                let f = &v.table.filters;
                let mut any = false;
                if !f.text_raw.is_empty() {
                    l3.push(Span::styled(format!("/{}  ", f.text_raw), value));
                    any = true;
                }
                if let Some(l) = &f.label {
                    l3.push(Span::styled(format!("-l {}", l.text), value));
                    let n = v.table.list().len();
                    l3.push(Span::raw(format!(
                        " ({n} {}, {})  ",
                        if n == 1 { "match" } else { "matches" },
                        if l.from_index { "label index" } else { "scan" }
                    )));
                    any = true;
                }
                if let Some(d) = &v.drilled_from {
                    l3.push(Span::styled(format!("owner: {d}"), value));
                    any = true;
                }
                if !any {
                    l3.push(Span::styled("none", Style::default().fg(DIM)));
                }
            }
            None => l3.push(Span::styled("none", Style::default().fg(DIM))),
        }
        Paragraph::new(vec![Line::from(l1), Line::from(l2), Line::from(l3)]).render(area, buf);
    }

    /// The namespace scope of what is shown: the table on top's own scope (a drill-down or a
    /// view opened in another namespace keeps its own), else the app's current namespace.
    fn header_scope(&self) -> &str {
        match (self.current_screen(), self.current_view()) {
            (Some(Screen::Table(_) | Screen::Text(_)), Some(v)) => match &v.namespace {
                Some(ns) => ns,
                None if v.resource.namespaced => "all",
                None => "-",
            },
            _ => self.namespace.as_deref().unwrap_or("all"),
        }
    }

    fn render_prompt(&self, area: Rect, buf: &mut Buffer) {
        let (sigil, input, ghost, extra) = match &self.mode {
            Mode::Command { input, completions } => {
                let v = input.value();
                let ghost = completions
                    .first()
                    .and_then(|c| c.strip_prefix(v))
                    .unwrap_or("")
                    .to_string();
                let extra = if completions.len() > 1 {
                    format!(
                        "   {}",
                        completions
                            .iter()
                            .take(6)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                } else {
                    String::new()
                };
                (":", v.to_string(), ghost, extra)
            }
            Mode::Filter { input } => {
                ("/", input.value().to_string(), String::new(), String::new())
            }
            _ => return,
        };
        let line = Line::from(vec![
            Span::styled(format!(" {sigil}"), Style::default().fg(Color::Yellow)),
            Span::styled(input, Style::default().fg(Color::White)),
            Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
            Span::styled(ghost, Style::default().fg(DIM)),
            Span::styled(extra, Style::default().fg(DIM)),
        ]);
        Paragraph::new(line)
            .block(Block::bordered().border_style(Style::default().fg(Color::Yellow)))
            .render(area, buf);
    }

    fn render_table(&self, v: &ResourceView, area: Rect, buf: &mut Buffer) {
        let t = &v.table;
        let list = t.list();
        let stale = !self.connection.reachable;
        let title = format!(
            " {}({}){}[{}] ",
            capitalized(&v.resource.api_resource.plural),
            v.namespace
                .as_deref()
                .unwrap_or(if v.resource.namespaced { "all" } else { "-" }),
            v.drilled_from
                .as_deref()
                .map(|d| format!(" <{d}> "))
                .unwrap_or_default(),
            list.len()
        );
        let mut title_spans = vec![Span::styled(
            title,
            Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
        )];
        if stale {
            title_spans.push(Span::styled(
                " STALE ",
                Style::default().fg(Color::Black).bg(Color::Yellow),
            ));
        }
        let position = if list.is_empty() {
            " 0/0 ".to_string()
        } else {
            format!(" {}/{} ", t.cursor() + 1, list.len())
        };
        let block = Block::bordered()
            .border_style(Style::default().fg(if stale { Color::Yellow } else { Color::Blue }))
            .title(Line::from(title_spans).centered())
            .title_bottom(Line::from(position).right_aligned());
        let inner = block.inner(area);
        block.render(area, buf);

        let forbidden = v
            .error
            .as_ref()
            .filter(|(_, f)| *f)
            .map(|(m, _)| m.clone())
            .or_else(|| {
                self.informer_for(v)
                    .filter(|r| r.forbidden)
                    .map(|r| r.last_error.clone().unwrap_or_else(|| "forbidden".into()))
            });
        if let Some(msg) = forbidden {
            let text = vec![
                Line::styled(
                    format!(
                        "403 Forbidden: no permission to list/watch {} in {}",
                        v.resource.api_resource.plural,
                        v.namespace
                            .as_deref()
                            .map_or("all namespaces".to_string(), |n| format!("namespace {n}"))
                    ),
                    Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                ),
                Line::styled(
                    truncate(&msg, inner.width as usize).into_owned(),
                    Style::default().fg(DIM),
                ),
                Line::styled(
                    "Other views keep working: try :ns NAME or another resource.",
                    Style::default().fg(DIM),
                ),
            ];
            Paragraph::new(text).render(centered(inner, inner.width, 3), buf);
            return;
        }
        if let Some((msg, _)) = &v.error
            && list.is_empty()
        {
            Paragraph::new(Line::styled(
                format!("error: {msg}"),
                Style::default().fg(Color::Red),
            ))
            .render(inner, buf);
            return;
        }

        let all_ns = v.namespace.is_none() && v.resource.namespaced;
        let (sort, desc) = t.sort();
        let arrow = if desc { "↓" } else { "↑" };
        let mut headers: Vec<String> = Vec::with_capacity(v.columns.len() + 1);
        if all_ns {
            headers.push(format!(
                "NAMESPACE{}",
                if sort == SortBy::Key { arrow } else { "" }
            ));
        }
        for (i, c) in v.columns.iter().enumerate() {
            let sorted = sort == SortBy::Cell(i) || (sort == SortBy::Key && i == 0 && !all_ns);
            headers.push(format!("{}{}", c.name, if sorted { arrow } else { "" }));
        }

        let height = inner.height.saturating_sub(1) as usize;
        let n = list.len();
        let mut offset = t.offset.min(n.saturating_sub(height));
        if t.cursor() < offset {
            offset = t.cursor();
        } else if height > 0 && t.cursor() >= offset + height {
            offset = t.cursor() + 1 - height;
        }
        let window = &list[offset.min(n)..(offset + height).min(n)];
        let now_unix = self.now_ms.div_euclid(1000);

        // Cells of the visible rows only.
        let mut rows_text: Vec<(Vec<Cow<'_, str>>, Style, bool)> = Vec::with_capacity(window.len());
        for key in window {
            let Some(e) = t.entry(key) else { continue };
            let mut cells: Vec<Cow<'_, str>> = Vec::with_capacity(headers.len());
            if all_ns {
                cells.push(Cow::Borrowed(e.summary.namespace.as_deref().unwrap_or("")));
            }
            for i in 0..v.columns.len() {
                cells.push(
                    e.summary
                        .row
                        .cells
                        .get(i)
                        .map_or(Cow::Borrowed(""), |c| c.display(now_unix)),
                );
            }
            let style = mark_style(health_style(e.summary.row.health), e.mark_at(self.now_ms));
            let selected = t.selected_key().is_some_and(|s| s == key);
            rows_text.push((cells, style, selected));
        }
        let mut widths: Vec<u16> = headers.iter().map(|h| h.chars().count() as u16).collect();
        // Never narrower than what this view has shown before (stable while scrolling).
        for (w, seen) in widths.iter_mut().zip(&v.col_widths) {
            *w = (*w).max(*seen);
        }
        for (cells, _, _) in &rows_text {
            for (w, c) in widths.iter_mut().zip(cells) {
                *w = (*w).max(c.chars().count().min(60) as u16);
            }
        }
        if rows_text.is_empty() {
            for (w, c) in widths
                .iter_mut()
                .skip(usize::from(all_ns))
                .zip(v.columns.iter())
            {
                *w = (*w).max(c.min_width.min(20));
            }
        }
        let header = TRow::new(headers.into_iter().map(TCell::from)).style(
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        );
        let rows = rows_text.into_iter().map(|(cells, style, selected)| {
            let style = if selected {
                style.add_modifier(Modifier::REVERSED)
            } else {
                style
            };
            TRow::new(cells.into_iter().map(|c| TCell::from(c.into_owned()))).style(style)
        });
        let constraints: Vec<Constraint> = widths.iter().map(|w| Constraint::Length(*w)).collect();
        Widget::render(
            Table::new(rows, constraints)
                .header(header)
                .column_spacing(2),
            inner,
            buf,
        );
        if n == 0 {
            let msg = if !v.synced && self.informer_for(v).is_none_or(|r| !r.synced) {
                "loading… (listing)".to_string()
            } else if v.table.filters.label.is_some() || !v.table.filters.text_raw.is_empty() {
                "no rows match the filter (esc clears it)".to_string()
            } else {
                format!("no {} here", v.resource.api_resource.plural)
            };
            let r = Rect {
                y: inner.y + 2.min(inner.height),
                height: inner.height.saturating_sub(2).min(1),
                ..inner
            };
            Paragraph::new(Line::styled(msg, Style::default().fg(DIM)).centered()).render(r, buf);
        }
        if n > height && height > 0 {
            let mut st = ScrollbarState::new(n.saturating_sub(height))
                .position(offset)
                .viewport_content_length(height);
            let sb_area = Rect {
                y: inner.y + 1,
                height: inner.height.saturating_sub(1),
                ..area
            };
            StatefulWidget::render(
                Scrollbar::new(ScrollbarOrientation::VerticalRight)
                    .begin_symbol(None)
                    .end_symbol(None),
                sb_area,
                buf,
                &mut st,
            );
        }
    }

    fn render_informers(&self, area: Rect, buf: &mut Buffer) {
        let block = Block::bordered()
            .border_style(Style::default().fg(Color::Blue))
            .title(
                Line::styled(
                    format!(" Informers[{}] ", self.informers.len()),
                    Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
                )
                .centered(),
            );
        // Counters read as numbers: right-aligned under their headers.
        let cell = |c: usize, text: String| -> TCell<'static> {
            if (4..=8).contains(&c) {
                TCell::from(Line::from(text).right_aligned())
            } else {
                TCell::from(text)
            }
        };
        let header = TRow::new(
            INFORMER_HEADERS
                .iter()
                .enumerate()
                .map(|(c, h)| cell(c, h.to_string())),
        )
        .style(
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        );
        let inner_h = area.height.saturating_sub(3) as usize;
        let start = self
            .informer_cursor
            .saturating_sub(inner_h.saturating_sub(1));
        let texts: Vec<([String; 11], Style)> = self
            .informers
            .iter()
            .enumerate()
            .skip(start)
            .take(inner_h)
            .map(|(i, r): (usize, &InformerRow)| {
                let mut style = match (&r.state, r.forbidden, r.last_error.is_some()) {
                    (_, true, _) | (InformerState::BackingOff { .. }, _, _) => {
                        Style::default().fg(Color::Red)
                    }
                    (InformerState::Watching, _, false) => Style::default().fg(Color::Cyan),
                    _ => Style::default().fg(Color::Yellow),
                };
                if i == self.informer_cursor {
                    style = style.add_modifier(Modifier::REVERSED);
                }
                let cells = [
                    r.resource.clone(),
                    r.namespace.clone().unwrap_or_else(|| "(all)".into()),
                    state_text(&r.state, self.now_ms),
                    if r.synced { "true" } else { "false" }.to_string(),
                    r.cached.to_string(),
                    r.queue_depth.to_string(),
                    r.deltas_total.to_string(),
                    format!("{:.1}", r.deltas_per_sec),
                    r.relists.to_string(),
                    r.last_rv.clone(),
                    r.last_error
                        .as_deref()
                        .map(|e| truncate(e, 80).into_owned())
                        .unwrap_or_default(),
                ];
                (cells, style)
            })
            .collect();
        let mut widths: Vec<Constraint> = INFORMER_HEADERS
            .iter()
            .enumerate()
            .map(|(c, h)| {
                let w = texts
                    .iter()
                    .map(|(t, _)| t[c].chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(h.chars().count());
                Constraint::Length(w as u16)
            })
            .collect();
        if let Some(last) = widths.last_mut() {
            *last = Constraint::Fill(1);
        }
        let rows = texts.into_iter().map(|(t, style)| {
            TRow::new(t.into_iter().enumerate().map(|(c, x)| cell(c, x))).style(style)
        });
        Widget::render(
            Table::new(rows, widths)
                .header(header)
                .block(block)
                .column_spacing(2),
            area,
            buf,
        );
    }

    fn render_footer(&self, area: Rect, buf: &mut Buffer) {
        if let Some((msg, err)) = &self.message {
            let style = if *err {
                Style::default().fg(Color::White).bg(Color::Red)
            } else {
                Style::default().fg(Color::Green)
            };
            Paragraph::new(Line::styled(format!(" {msg}"), style)).render(area, buf);
            return;
        }
        let actions: Vec<KeyAction> = match self.current_screen() {
            Some(Screen::Events) => vec![
                KeyAction::Pause,
                KeyAction::EventType,
                KeyAction::EventKind,
                KeyAction::Back,
                KeyAction::Help,
            ],
            Some(Screen::Text(t)) => {
                let mut a = vec![KeyAction::Down, KeyAction::Up, KeyAction::ToggleWrap];
                if t.kind == TextKind::Yaml && t.is_secret() {
                    a.push(KeyAction::RevealSecrets);
                }
                a.push(KeyAction::Back);
                a
            }
            Some(Screen::Informers) => vec![
                KeyAction::Down,
                KeyAction::Up,
                KeyAction::Back,
                KeyAction::Help,
            ],
            _ => self
                .keys
                .bindings()
                .iter()
                .filter(|b| b.hint)
                .map(|b| b.action)
                .collect(),
        };
        let mut spans = Vec::new();
        for a in actions {
            let Some(b) = self.keys.bindings().iter().find(|b| b.action == a) else {
                continue;
            };
            let Some(k) = b.keys.first() else { continue };
            spans.push(Span::styled(
                format!(" <{k}>"),
                Style::default().fg(KEY).add_modifier(Modifier::BOLD),
            ));
            spans.push(Span::styled(hint_name(a), Style::default().fg(DIM)));
        }
        Paragraph::new(Line::from(spans)).render(area, buf);
    }

    fn render_help(&self, scroll: usize, area: Rect, buf: &mut Buffer) {
        let r = centered(
            area,
            area.width.saturating_sub(8).max(40),
            area.height.saturating_sub(4).max(10),
        );
        Clear.render(r, buf);
        let mut lines: Vec<Line> = Vec::new();
        lines.push(Line::styled(
            "Keys",
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
        for b in self.keys.bindings() {
            let keys = b
                .keys
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<16}"), Style::default().fg(KEY)),
                Span::raw(b.help.clone()),
            ]));
        }
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "Commands",
            Style::default()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        ));
        for (c, h) in [
            (
                ":po :deploy :svc :<crd>",
                "any resource by plural, singular, short name or kind",
            ),
            (":ns NAME", "switch namespace (:ns alone: all namespaces)"),
            (":ctx NAME", "switch kubeconfig context"),
            (":informers", "informer panel"),
            (":events", "DeltaFIFO event log, full screen"),
            (":q", "quit"),
            ("/text  /~regex", "filter rows (substring, or regex)"),
            (
                "/-l sel  l",
                "label selector, answered from the label index",
            ),
        ] {
            lines.push(Line::from(vec![
                Span::styled(format!("  {c:<24}"), Style::default().fg(KEY)),
                Span::raw(h),
            ]));
        }
        let lines: Vec<Line> = lines.into_iter().skip(scroll).collect();
        Paragraph::new(lines)
            .block(
                Block::bordered()
                    .border_style(Style::default().fg(Color::Yellow))
                    .title(
                        Line::styled(
                            " Help ",
                            Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
                        )
                        .centered(),
                    )
                    .title_bottom(Line::from(" esc: close ").right_aligned()),
            )
            .render(r, buf);
    }
}

/// `pods` → `Pods`, as k9s titles its tables.
fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The footer's short name of an action.
fn hint_name(a: KeyAction) -> &'static str {
    match a {
        KeyAction::Quit => "quit",
        KeyAction::Help => "help",
        KeyAction::Command => "cmd",
        KeyAction::Filter => "filter",
        KeyAction::LabelFilter => "labels",
        KeyAction::Back => "back",
        KeyAction::Up => "up",
        KeyAction::Down => "down",
        KeyAction::PageUp => "pgup",
        KeyAction::PageDown => "pgdn",
        KeyAction::Top => "top",
        KeyAction::Bottom => "bottom",
        KeyAction::Enter => "drill",
        KeyAction::Yaml => "yaml",
        KeyAction::Describe => "describe",
        KeyAction::Delete => "delete",
        KeyAction::RevealSecrets => "reveal",
        KeyAction::ToggleWrap => "wrap",
        KeyAction::ToggleEvents => "events",
        KeyAction::SortName => "sort name",
        KeyAction::SortAge => "sort age",
        KeyAction::SortNext => "sort next",
        KeyAction::SortPrev => "sort prev",
        KeyAction::SortFlip => "reverse",
        KeyAction::Pause => "pause",
        KeyAction::EventType => "type",
        KeyAction::EventKind => "kind",
    }
}

fn render_events(log: &EventLog, _now_ms: i64, area: Rect, buf: &mut Buffer, full: bool) {
    let mut title = vec![Span::styled(
        format!(" DeltaFIFO events[{}/{}] ", log.len(), log.capacity()),
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
    let scroll = if full { log.scroll } else { 0 };
    // Stable widths: KIND fits the widest kind seen, DELTA is wide only while tombstones exist.
    let kind_w = log.kind_width().clamp(4, 24) as u16;
    let delta_w: u16 = if log.has_tombstones() { 24 } else { 8 };
    let rows = log.shown().skip(scroll).take(inner_h).map(|e| {
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
        TRow::new([
            time,
            e.kind.to_string(),
            ty,
            e.key.to_string(),
            e.resource_version.clone(),
            e.queue_depth.to_string(),
        ])
        .style(style)
    });
    let header = TRow::new(["TIME", "KIND", "DELTA", "KEY", "RV", "QUEUE"].map(TCell::from)).style(
        Style::default()
            .fg(Color::White)
            .add_modifier(Modifier::BOLD),
    );
    let widths = [
        Constraint::Length(12),
        Constraint::Length(kind_w),
        Constraint::Length(delta_w),
        Constraint::Fill(1),
        Constraint::Length(10),
        Constraint::Length(5),
    ];
    Widget::render(
        Table::new(rows, widths)
            .header(header)
            .block(block)
            .column_spacing(2),
        area,
        buf,
    );
}

fn render_text(t: &TextView, area: Rect, buf: &mut Buffer) {
    let mut title = vec![Span::styled(
        format!(" {} ", t.title),
        Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
    )];
    if t.kind == TextKind::Yaml && t.is_secret() {
        title.push(Span::styled(
            if t.reveal {
                " secrets REVEALED (x hides) "
            } else {
                " secrets hidden (x reveals) "
            },
            Style::default().fg(Color::Black).bg(Color::Yellow),
        ));
    }
    let total = t
        .lines
        .as_ref()
        .and_then(|l| l.as_ref().ok())
        .map_or(0, Vec::len);
    let block = Block::bordered()
        .border_style(Style::default().fg(Color::Blue))
        .title(Line::from(title).centered())
        .title_bottom(
            Line::from(format!(" {}/{} ", (t.scroll + 1).min(total), total)).right_aligned(),
        );
    let inner = block.inner(area);
    block.render(area, buf);
    match &t.lines {
        None => {
            Paragraph::new(Line::styled("loading…", Style::default().fg(DIM))).render(inner, buf)
        }
        Some(Err(e)) => Paragraph::new(Line::styled(
            format!("error: {e}"),
            Style::default().fg(Color::Red),
        ))
        .render(inner, buf),
        Some(Ok(lines)) => {
            let yaml = t.kind == TextKind::Yaml;
            let h = inner.height as usize;
            let w = usize::from(inner.width).max(1);
            let mut shown: Vec<Line> = Vec::with_capacity(h);
            for l in lines.iter().skip(t.scroll) {
                if shown.len() >= h {
                    break;
                }
                if !t.wrap || l.chars().count() <= w {
                    shown.push(yaml_line(l, yaml));
                    continue;
                }
                // Hard wrap at the width (as `less` does); the first row keeps the key colour.
                let mut rest = l.as_str();
                let mut first = true;
                while !rest.is_empty() && shown.len() < h {
                    let cut = rest.char_indices().nth(w).map_or(rest.len(), |(i, _)| i);
                    let (row, tail) = rest.split_at(cut);
                    shown.push(if first {
                        yaml_line(row, yaml)
                    } else {
                        Line::raw(row)
                    });
                    first = false;
                    rest = tail;
                }
            }
            Paragraph::new(shown).render(inner, buf);
        }
    }
}

fn yaml_line(l: &str, yaml: bool) -> Line<'_> {
    if !yaml {
        return Line::raw(l);
    }
    match l.split_once(':') {
        Some((k, rest)) if !k.trim_start().starts_with('-') || k.contains(' ') => Line::from(vec![
            Span::styled(k, Style::default().fg(Color::Cyan)),
            Span::styled(":", Style::default().fg(DIM)),
            Span::styled(rest, Style::default().fg(Color::White)),
        ]),
        _ => Line::raw(l),
    }
}

fn render_confirm(c: &ConfirmDelete, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 60, 7);
    Clear.render(r, buf);
    let what = match &c.namespace {
        Some(ns) => format!("{} {}/{}", c.resource.singular, ns, c.name),
        None => format!("{} {}", c.resource.singular, c.name),
    };
    let button = |label: &str, focus: bool| {
        let s = if focus {
            Style::default()
                .fg(Color::Black)
                .bg(Color::Red)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default().fg(Color::White)
        };
        Span::styled(format!("[ {label} ]"), s)
    };
    let lines = vec![
        Line::raw(""),
        Line::from(format!("Delete {what}?")).centered(),
        Line::raw(""),
        Line::from(vec![
            button("Cancel", !c.yes),
            Span::raw("   "),
            button("Delete", c.yes),
        ])
        .centered(),
    ];
    Paragraph::new(lines)
        .block(
            Block::bordered()
                .border_style(Style::default().fg(Color::Red))
                .title(
                    Line::styled(
                        " Confirm delete ",
                        Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
                    )
                    .centered(),
                )
                .title_bottom(Line::from(" y: delete  n/esc: cancel  tab: switch ").centered()),
        )
        .render(r, buf);
}

fn render_picker(p: &LabelPicker, view: Option<&ResourceView>, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 64, area.height.saturating_sub(4).clamp(8, 20));
    Clear.render(r, buf);
    let source = if view.is_some_and(|v| v.store.is_some()) {
        "label index"
    } else {
        "rows (index not attached)"
    };
    let block = Block::bordered()
        .border_style(Style::default().fg(Color::Yellow))
        .title(
            Line::styled(
                " Label filter ",
                Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
            )
            .centered(),
        )
        .title_bottom(Line::from(" ↑↓ choose  tab complete  enter apply  esc cancel ").centered());
    let inner = block.inner(r);
    block.render(r, buf);
    let [input_area, err_area, list_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(inner);
    Paragraph::new(Line::from(vec![
        Span::styled("> ", Style::default().fg(DIM)),
        Span::styled(p.input.value(), Style::default().fg(Color::White)),
        Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
    ]))
    .render(input_area, buf);
    let info = match &p.error {
        Some(e) => Line::styled(
            truncate(e, inner.width as usize).into_owned(),
            Style::default().fg(Color::Red),
        ),
        None => Line::styled(
            format!(
                "{} {} from the {source}",
                p.shown.len(),
                if p.shown.len() == 1 {
                    "value"
                } else {
                    "values"
                }
            ),
            Style::default().fg(DIM),
        ),
    };
    Paragraph::new(info).render(err_area, buf);
    let h = list_area.height as usize;
    let start = p.selected.saturating_sub(h.saturating_sub(1));
    let lines: Vec<Line> = p
        .shown
        .iter()
        .enumerate()
        .skip(start)
        .take(h)
        .filter_map(|(i, idx)| {
            let (val, n) = p.all.get(*idx)?;
            let style = if i == p.selected {
                Style::default().fg(Color::Black).bg(Color::Cyan)
            } else {
                Style::default().fg(Color::Cyan)
            };
            let w = list_area.width.saturating_sub(10) as usize;
            Some(Line::styled(
                format!(" {:<w$} {:>7}", truncate(val, w), n),
                style,
            ))
        })
        .collect();
    Paragraph::new(lines).render(list_area, buf);
}
