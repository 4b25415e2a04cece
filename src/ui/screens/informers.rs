//! The informer panel (`:informers`): a row per informer, Enter opens its resource.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell as TCell, Row as TRow, Table, Widget};

use crate::ui::action::{InformerRow, InformerState, resource_label};
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::event_log::{fit_resource, resource_cap};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE, state_text, truncate};

/// The informer panel: its cursor (an informer row's index; the rows come from [`Ctx`]).
#[derive(Debug, Clone, Default)]
pub struct InformersScreen {
    cursor: usize,
}

impl InformersScreen {
    /// The cursor, within the rows there are now (the list may have shrunk since it moved).
    fn at(&self, ctx: &Ctx) -> usize {
        self.cursor.min(ctx.informers.len().saturating_sub(1))
    }
}

impl Component for InformersScreen {
    /// Enter opens the informer's resource in its scope; other keys go on.
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        if action != KeyAction::Enter {
            return Outcome::NotConsumed;
        }
        let Some(row) = ctx.informers.get(self.at(ctx)) else {
            return Outcome::Consumed;
        };
        match ctx
            .resources
            .iter()
            .find(|r| resource_label(r) == row.resource)
        {
            Some(r) => Outcome::Ask(Request::OpenTable {
                resource: Box::new(r.clone()),
                namespace: row.namespace.clone(),
            }),
            None => Outcome::Consumed,
        }
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let len = ctx.informers.len();
        let c = self.at(ctx);
        self.cursor = match action {
            KeyAction::Up | KeyAction::PageUp => c.saturating_sub(n),
            KeyAction::Down | KeyAction::PageDown => (c + n).min(len.saturating_sub(1)),
            KeyAction::Top => 0,
            _ => len.saturating_sub(1),
        };
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        render_informers(self.at(ctx), ctx, area, buf)
    }

    fn header(&self, ctx: &Ctx, label: Style, value: Style) -> Option<[Line<'static>; 2]> {
        Some(informers_header(ctx, label, value))
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(HINTS.to_vec())
    }
}

/// Header lines 2 and 3 over the informers panel.
fn informers_header(ctx: &Ctx, label: Style, value: Style) -> [Line<'static>; 2] {
    {
        let n = ctx.informers.len();
        let synced = ctx.informers.iter().filter(|r| r.synced).count();
        // Failing now: refused or waiting to retry. An informer watching again after an error
        // (a streaming list refused and the list fallback working, a watch re-established) is
        // healthy; its last error stays in its row, in yellow.
        let failing = ctx
            .informers
            .iter()
            .filter(|r| {
                r.forbidden
                    || matches!(
                        r.state,
                        InformerState::BackingOff { .. } | InformerState::Forbidden { .. }
                    )
            })
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
        // The table under the panel, if it shows several namespaces: which informers serve it.
        let served = ctx
            .view()
            .and_then(|v| Some((v.namespace.as_deref()?, v.served.as_deref()?)));
        let l3 = match served {
            Some((scope, how)) => vec![
                Span::styled(" Scope: ", label),
                Span::styled(scope.to_string(), value),
                Span::raw(format!(" │ {how}")),
            ],
            None => vec![
                Span::styled(" Filter: ", label),
                Span::styled("none", Style::default().fg(DIM)),
            ],
        };
        [Line::from(l2), Line::from(l3)]
    }
}

fn render_informers(cursor: usize, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
    {
        let block = Block::bordered()
            .border_style(Style::default().fg(Color::Blue))
            .title(
                Line::styled(
                    format!(" Informers[{}] ", ctx.informers.len()),
                    Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
                )
                .centered(),
            );
        // With several clusters, a CLUSTER column first (the current context's name on its rows).
        let fleet = ctx.fleet || ctx.informers.iter().any(|r| r.cluster.is_some());
        let shift = usize::from(fleet);
        let headers: Vec<&str> = fleet
            .then_some("CLUSTER")
            .into_iter()
            .chain(INFORMER_HEADERS)
            .collect();
        // Counters read as numbers: right-aligned under their headers.
        let cell = |c: usize, text: String| -> TCell<'static> {
            if (6 + shift..=10 + shift).contains(&c) {
                TCell::from(Line::from(text).right_aligned())
            } else {
                TCell::from(text)
            }
        };
        let inner_h = area.height.saturating_sub(3) as usize;
        let start = cursor.saturating_sub(inner_h.saturating_sub(1));
        let texts: Vec<(Vec<String>, Style)> =
            ctx.informers
                .iter()
                .enumerate()
                .skip(start)
                .take(inner_h)
                .map(|(i, r): (usize, &InformerRow)| {
                    let mut style = match (&r.state, r.forbidden, r.last_error.is_some()) {
                        (_, true, _)
                        | (
                            InformerState::BackingOff { .. } | InformerState::Forbidden { .. },
                            _,
                            _,
                        ) => Style::default().fg(Color::Red),
                        (InformerState::Watching, _, false) => Style::default().fg(Color::Cyan),
                        _ => Style::default().fg(Color::Yellow),
                    };
                    if i == cursor {
                        style = style.add_modifier(Modifier::REVERSED);
                    }
                    let cluster = fleet.then(|| match &r.cluster {
                        Some(c) => c.to_string(),
                        None => ctx.connection.context.clone(),
                    });
                    let cells = cluster.into_iter().chain([
                        // A group too long for a narrow panel gives way to the plural.
                        fit_resource(&r.resource, resource_cap(area.width)).into_owned(),
                        r.namespace.clone().unwrap_or_else(|| "(all)".into()),
                        match &r.progress {
                            Some(p) => p.badge(),
                            None => state_text(&r.state, ctx.now_ms),
                        },
                        r.list_mode.to_string(),
                        r.wire.to_string(),
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
                    ]);
                    (cells.collect(), style)
                })
                .collect();
        let lengths: Vec<usize> = headers
            .iter()
            .enumerate()
            .map(|(c, h)| {
                texts
                    .iter()
                    .map(|(t, _)| t[c].chars().count())
                    .max()
                    .unwrap_or(0)
                    .max(h.chars().count())
            })
            .collect();
        // The columns that fit whole, from the left (a narrow terminal leaves out the right
        // ones rather than squeezing every column, which cut numbers and headers at the left:
        // `BJECTS`); LAST ERROR, last, takes what is left.
        let room = usize::from(area.width.saturating_sub(2));
        let mut used = 0;
        let mut keep = 0;
        for (c, w) in lengths.iter().enumerate() {
            let gap = if c == 0 { 0 } else { 2 };
            let last = c + 1 == lengths.len();
            if used + gap + if last { 1 } else { *w } > room && c > 0 {
                break;
            }
            used += gap + w;
            keep += 1;
        }
        let mut widths: Vec<Constraint> = lengths[..keep]
            .iter()
            .map(|w| Constraint::Length(*w as u16))
            .collect();
        if keep == lengths.len()
            && let Some(last) = widths.last_mut()
        {
            *last = Constraint::Fill(1);
        }
        let header = TRow::new(
            headers[..keep]
                .iter()
                .enumerate()
                .map(|(c, h)| cell(c, h.to_string())),
        )
        .style(
            Style::default()
                .fg(Color::White)
                .add_modifier(Modifier::BOLD),
        );
        let rows = texts.into_iter().map(|(t, style)| {
            TRow::new(
                t.into_iter()
                    .take(keep)
                    .enumerate()
                    .map(|(c, x)| cell(c, x)),
            )
            .style(style)
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
}

const INFORMER_HEADERS: [&str; 13] = [
    "RESOURCE",
    "NAMESPACE",
    "STATE",
    "LIST",
    "WIRE",
    "SYNCED",
    "OBJECTS",
    "QUEUE",
    "DELTAS",
    "Δ/S",
    "RELISTS",
    "LAST RV",
    "LAST ERROR",
];

/// Footer hints on the informers panel.
const HINTS: [KeyAction; 4] = [
    KeyAction::Down,
    KeyAction::Up,
    KeyAction::Back,
    KeyAction::Help,
];
