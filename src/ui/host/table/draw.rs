//! The resource table's drawing: a pure function of `&App` (no I/O, locks or awaits): the
//! header, the visible rows' cells (the kind's own or a custom view's columns, wide mode's,
//! usage), the widths that fit, the forbidden and empty states.

use super::*;

impl App {
    pub(crate) fn render_table(&self, v: &ResourceView, area: Rect, buf: &mut Buffer) {
        let t = &v.table;
        let list = t.list();
        let merged = self.fleet.is_fleet();
        let stale_clusters = if merged {
            self.stale_clusters()
        } else {
            Vec::new()
        };
        let stale = if merged {
            !stale_clusters.is_empty()
        } else {
            !self.connection.reachable
        };
        // The title's count and the position agree: both count the objects there (rows of
        // deletions shown for a moment are not counted).
        // As k9s titles it: a cluster-scoped kind reads `(all)` as all namespaces do, and the
        // count has its thousands grouped (`Pods(all)[100,000]`).
        let live = t.live_len();
        let count = crate::ui::listing::thousands(live_count(live));
        let title = format!(
            " {}({}){}[{}] ",
            capitalized(&v.resource.api_resource.plural),
            v.namespace.as_deref().unwrap_or("all"),
            v.drilled_from
                .as_deref()
                .map(|d| format!(" <{d}> "))
                .unwrap_or_default(),
            count
        );
        // The room a banner may take: the frame's width less its corners and the title.
        let room = usize::from(area.width)
            .saturating_sub(4)
            .saturating_sub(title.chars().count());
        let mut title_spans = vec![Span::styled(
            title,
            Style::default()
                .fg(self.theme.title)
                .add_modifier(Modifier::BOLD),
        )];
        if let Some(p) = &v.past {
            title_spans.push(Span::styled(
                p.banner(self.present_ms(), room),
                Style::default()
                    .fg(Color::Black)
                    .bg(Color::LightMagenta)
                    .add_modifier(Modifier::BOLD),
            ));
        }
        if stale {
            title_spans.push(Span::styled(
                if merged {
                    format!(" STALE: {} ", stale_clusters.join(", "))
                } else {
                    " STALE ".to_string()
                },
                Style::default().fg(Color::Black).bg(Color::Yellow),
            ));
        }
        // A list in progress: how far it is; a relist keeps the previous rows, stale.
        if let Some(p) = self.informer_for(v).and_then(|r| r.progress.as_ref()) {
            title_spans.push(if v.relisting {
                Span::styled(
                    format!(" STALE: re{} ", p.badge()),
                    Style::default().fg(Color::Black).bg(Color::Yellow),
                )
            } else {
                Span::styled(
                    format!(" {} ", p.badge()),
                    Style::default().fg(Color::Yellow),
                )
            });
        }
        // A sort in progress over many rows: the previous order shows until it ends.
        if let Some(pct) = t.sorting() {
            title_spans.push(Span::styled(
                format!(" sorting {pct}% "),
                Style::default().fg(Color::Yellow),
            ));
        }
        if merged && self.forbidden_view(v).is_some() {
            title_spans.push(Span::styled(
                format!(" forbidden on {} ", self.connection.context),
                Style::default().fg(Color::Red),
            ));
        }
        if merged {
            let lacking = self.clusters_lacking(v);
            if !lacking.is_empty() {
                title_spans.push(Span::styled(
                    format!(
                        " no {} in {} ",
                        v.resource.api_resource.plural,
                        lacking.join(", ")
                    ),
                    Style::default().fg(Color::Yellow),
                ));
            }
        }
        let position = if list.is_empty() {
            " 0/0 ".to_string()
        } else {
            format!(" {}/{live} ", (t.cursor() + 1).min(live.max(1)))
        };
        let mut block = Block::bordered()
            .border_style(Style::default().fg(if stale {
                Color::Yellow
            } else {
                self.theme.border
            }))
            .title(Line::from(title_spans).centered())
            .title_bottom(Line::from(position).right_aligned());
        // Why the usage columns say n/a, under the table that has them.
        if let Some(why) = &self.metrics_unavailable
            && UsageKind::of(&v.resource).is_some()
        {
            block = block.title_bottom(
                Line::styled(format!(" {why} "), Style::default().fg(DIM)).left_aligned(),
            );
        }
        let inner = block.inner(area);
        block.render(area, buf);

        // A merged view keeps the other clusters' rows when the current one forbids the kind
        // (its title says so).
        let denied = self.forbidden_view(v);
        if let Some(d) = &denied
            && (!merged || list.is_empty())
        {
            self.render_forbidden(v, d, inner, buf);
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

        let all_ns =
            crate::ui::scope::spans_namespaces(v.namespace.as_deref(), v.resource.namespaced);
        let (sort, desc) = t.sort();
        let arrow = if desc { "↓" } else { "↑" };
        let mut headers: Vec<String> = Vec::with_capacity(v.columns.len() + 2);
        // A merged table: the rows' cluster first (sorted with the key: cluster, then key).
        let lead = usize::from(merged) + usize::from(all_ns);
        // Key order is marked once, on the column it sorts by first: the cluster, else the
        // namespace, else the name.
        let key_arrow = |first: bool| {
            if sort == SortBy::Key && first {
                arrow
            } else {
                ""
            }
        };
        // The column `shift-o` sorts by (picked with shift-left / shift-right): in brackets.
        let picked = |by: SortBy, name: String| {
            if v.sort_pick == Some(by) {
                format!("[{name}]")
            } else {
                name
            }
        };
        if merged {
            headers.push(format!("CLUSTER{}", key_arrow(true)));
        }
        if all_ns {
            headers.push(picked(
                SortBy::Key,
                format!("NAMESPACE{}", key_arrow(!merged)),
            ));
        }
        // The columns shown: the kind's own, or the user's custom view of it (views.yaml).
        let shown = shown_columns(v, self.custom_view(&v.resource));
        let shown_cols: Vec<Column> = shown
            .iter()
            .map(|s| match s {
                Shown::Own(i) => v.columns[*i].clone(),
                Shown::Path(c) => Column {
                    name: c.name.clone(),
                    min_width: c.name.chars().count() as u16,
                    wide: false,
                },
            })
            .collect();
        for (pos, s) in shown.iter().enumerate() {
            let c = &shown_cols[pos];
            // Key order is the name order: marked on a first NAME column only (an event's
            // first column is LAST SEEN, which key order does not sort by).
            let by_key = pos == 0 && lead == 0 && c.name == "NAME";
            let sorted = matches!(s, Shown::Own(i) if sort == SortBy::Cell(*i))
                || !key_arrow(by_key).is_empty();
            let by = match s {
                Shown::Own(i) if by_key => Some(SortBy::Key).filter(|_| *i == 0),
                Shown::Own(i) => Some(SortBy::Cell(*i)),
                Shown::Path(_) => None,
            };
            let name = format!("{}{}", c.name, if sorted { arrow } else { "" });
            headers.push(match by {
                Some(by) => picked(by, name),
                None => name,
            });
        }
        // Wide mode's columns, read from the cached objects of the visible rows (a custom view
        // has its own: its `|W` columns).
        let wide = if v.wide && self.custom_view(&v.resource).is_none() {
            crate::render::wide_columns(&v.resource.api_resource.kind)
        } else {
            Vec::new()
        };
        headers.extend(wide.iter().map(|c| c.name.to_string()));
        // Usage columns (pods, nodes): joined from the last metrics poll, visible rows only.
        let usage = view_usage(
            &self.metrics,
            self.node_pods.as_ref(),
            merged.then_some(self.connection.context.as_str()),
            v,
        );
        if let Some((kind, _)) = usage {
            for (i, name) in kind.columns().iter().enumerate() {
                let sorted = sort == SortBy::Joined(i);
                headers.push(picked(
                    SortBy::Joined(i),
                    format!("{name}{}", if sorted { arrow } else { "" }),
                ));
            }
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
        // Ages in a past view are as they read then.
        let now_unix = v
            .past
            .as_ref()
            .map_or(self.now_ms, |p| p.at_ms)
            .div_euclid(1000);

        // Cells of the visible rows only.
        type Levels = Vec<crate::render::metrics::Level>;
        let mut rows_text: Vec<(Vec<Cow<'_, str>>, Style, bool, Levels)> =
            Vec::with_capacity(window.len());
        for key in window {
            let Some(e) = t.entry(key) else { continue };
            let mut cells: Vec<Cow<'_, str>> = Vec::with_capacity(headers.len());
            if merged {
                cells.push(Cow::Borrowed(e.summary.cluster().unwrap_or("")));
            }
            if all_ns {
                cells.push(Cow::Borrowed(e.summary.namespace.as_deref().unwrap_or("")));
            }
            for s in &shown {
                cells.push(match s {
                    Shown::Own(i) => e
                        .summary
                        .row
                        .cells
                        .get(*i)
                        .map_or(Cow::Borrowed(""), |c| c.display(now_unix)),
                    Shown::Path(c) => Cow::Owned(custom_cell(c, &e.summary)),
                });
            }
            for c in &wide {
                cells.push(Cow::Owned(
                    (c.cell)(&e.summary.object).display(now_unix).into_owned(),
                ));
            }
            let mut levels = Vec::new();
            if let Some((kind, polled)) = usage {
                for c in kind.cells(&e.summary, Some(&polled)) {
                    cells.push(Cow::Owned(c.display()));
                    levels.push(c.level());
                }
            }
            let mut style = mark_style(
                self.theme.health(e.summary.row.health),
                e.mark_at(self.now_ms),
                &self.theme,
            );
            // The previous list's row, not listed again yet by the relist in progress.
            if e.stale {
                style = style.add_modifier(Modifier::DIM);
            }
            // A past view: rows that read otherwise now are marked (deleted since: struck).
            match v.past.as_ref().and_then(|p| p.since.get(key)) {
                Some(Since::Changed) => {
                    style = style.add_modifier(Modifier::ITALIC | Modifier::UNDERLINED)
                }
                Some(Since::Deleted) => style = mark_style(style, Mark::Deleted, &self.theme),
                _ => {}
            }
            // A member that is down or forbids the kind: its rows stay, dimmed (stale).
            if e.summary
                .cluster()
                .is_some_and(|c| stale_clusters.contains(&c))
            {
                style = style.fg(DIM).add_modifier(Modifier::DIM);
            }
            if v.marked.iter().any(|m| *m == *e.summary.key) {
                style = style.fg(Color::LightMagenta).add_modifier(Modifier::BOLD);
            }
            let selected = t.selected_key().is_some_and(|s| s == key);
            rows_text.push((cells, style, selected, levels));
        }
        let mut widths: Vec<u16> = headers.iter().map(|h| h.chars().count() as u16).collect();
        /// The narrowest a column cut to the room left is still shown at.
        const MIN_CUT_COLUMN: u32 = 8;
        // Never narrower than what this view has shown before (stable while scrolling).
        for (w, seen) in widths.iter_mut().zip(&v.col_widths) {
            *w = (*w).max(*seen);
        }
        for (cells, _, _, _) in &rows_text {
            for (w, c) in widths.iter_mut().zip(cells) {
                *w = (*w).max(c.chars().count().min(60) as u16);
            }
        }
        if rows_text.is_empty() {
            for (w, c) in widths.iter_mut().skip(lead).zip(shown_cols.iter()) {
                *w = (*w).max(c.min_width.min(20));
            }
        }
        // Usage columns sit before IP (k9s's order: usage, then IP, NODE...); with them, the
        // columns that do not fit are left out from the right instead of squeezing them all.
        let n_usage = usage.map_or(0, |(k, _)| k.columns().len());
        let base = headers.len() - n_usage;
        let mut order: Vec<usize> = if n_usage == 0 {
            (0..headers.len()).collect()
        } else {
            let at = shown_cols
                .iter()
                .position(|c| c.name == "IP")
                .map_or(base, |i| i + lead);
            let mut order: Vec<usize> = (0..at).chain(base..headers.len()).collect();
            order.extend(at..base);
            order
        };
        // An Event's row is read for its MESSAGE: with one, SOURCE and the columns after the
        // message (kubectl's `-o wide` ones: COUNT, FIRST SEEN) are the ones left out first
        // when they do not all fit, instead of squeezing the message to nothing.
        let message = order
            .iter()
            .position(|&i| headers[i].starts_with("MESSAGE"))
            .filter(|_| n_usage == 0 && wide.is_empty());
        // The columns kept whatever the room: an Event's up to its MESSAGE but SOURCE.
        let mut must_keep = 1;
        let by_priority: Option<Vec<usize>> = if let Some(m) = message {
            let low = |p: usize| p > m || headers[order[p]].starts_with("SOURCE");
            must_keep = (0..order.len()).filter(|&p| !low(p)).count();
            Some(
                (0..order.len())
                    .filter(|&p| !low(p))
                    .chain((0..order.len()).filter(|&p| low(p)))
                    .map(|p| order[p])
                    .collect(),
            )
        } else if n_usage > 0 || !wide.is_empty() {
            // Which columns are kept, by priority: the kind's own first (a narrow pods table
            // keeps IP and NODE), then in wide mode the wide ones the user asked for, then the
            // usage columns; those kept are shown in display order (usage before IP).
            Some((0..base).chain(base..headers.len()).collect())
        } else {
            None
        };
        // A pods table keeps IP and NODE: NAME, then NAMESPACE, are cut to make room for them.
        let at = |n: &str| {
            shown_cols
                .iter()
                .position(|c| c.name == n)
                .map(|i| i + lead)
        };
        if let (Some(_), Some(node), Some(name)) = (at("IP"), at("NODE"), at("NAME")) {
            use crate::ui::column_fit::{NAME_FLOOR, NAMESPACE_FLOOR, give_way};
            let mut shrink = vec![(name, NAME_FLOOR)];
            if all_ns {
                shrink.push((lead - 1, NAMESPACE_FLOOR));
            }
            let keep: Vec<usize> = (0..=node).collect();
            give_way(&mut widths, &keep, &shrink, u32::from(inner.width));
        }
        if let Some(by_priority) = by_priority {
            // The columns that fit whole are kept; the next one too, cut to the room left, when
            // that is still a useful width (a status one character wider must not drop NODE;
            // wide mode's columns never squeeze the kind's own). The kept ones are shown in
            // display order.
            let avail = u32::from(inner.width);
            let mut used = 0u32;
            let mut fit = 0;
            for &i in &by_priority {
                let gap = if fit == 0 { 0 } else { 2 };
                if used + gap + u32::from(widths[i]) <= avail {
                    used += gap + u32::from(widths[i]);
                    fit += 1;
                    continue;
                }
                let rest = avail.saturating_sub(used + gap);
                if rest >= MIN_CUT_COLUMN {
                    widths[i] = rest as u16;
                    fit += 1;
                }
                break;
            }
            // When even the message does not fit, kubectl's default columns stay, squeezed.
            let kept = &by_priority[..fit.max(must_keep)];
            order.retain(|i| kept.contains(i));
        }
        // Room left on the right goes to the MESSAGE column (an Event's), else the last one, up
        // to its longest value (a message is not cut at 60 characters with half the screen
        // empty).
        let grows = order
            .iter()
            .copied()
            .find(|&i| headers[i].starts_with("MESSAGE"))
            .or(order.last().copied());
        if let Some(last) = grows {
            let used: u32 = order.iter().map(|&i| u32::from(widths[i]) + 2).sum::<u32>() - 2;
            let spare = u32::from(inner.width).saturating_sub(used);
            let longest = rows_text
                .iter()
                .filter_map(|(cells, _, _, _)| cells.get(last))
                .map(|c| c.chars().count() as u32)
                .max()
                .unwrap_or(0);
            let w = u32::from(widths[last]);
            if spare > 0 && longest > w {
                widths[last] = (w + spare.min(longest - w)) as u16;
            }
        }
        let header = TRow::new(order.iter().map(|&i| TCell::from(headers[i].clone())))
            .style(self.theme.header());
        let widths: Vec<u16> = order.iter().map(|&i| widths[i]).collect();
        let rows = rows_text
            .into_iter()
            .map(|(cells, style, selected, levels)| {
                let style = if selected {
                    self.theme.selected(style)
                } else {
                    style
                };
                // Usage cells are coloured by level over the row's colour.
                TRow::new(order.iter().map(|&i| {
                    let cell = TCell::from(cells.get(i).map_or(String::new(), |c| c.to_string()));
                    match i.checked_sub(base).and_then(|u| levels.get(u)) {
                        Some(l) => cell.style(level_style(style, *l)),
                        None => cell,
                    }
                }))
                .style(style)
            });
        let constraints: Vec<Constraint> = widths.iter().map(|w| Constraint::Length(*w)).collect();
        Widget::render(
            Table::new(rows, constraints)
                .header(header)
                .style(Style::default().bg(self.theme.table_bg))
                .column_spacing(2),
            inner,
            buf,
        );
        if n == 0 {
            let filtered = v.table.filters.label.is_some() || !v.table.filters.text_raw.is_empty();
            let msg = if filtered && self.listing(v) {
                "no rows match the filter so far (still listing)".to_string()
            } else if v.table.filtering() {
                "no rows match the filter so far (still filtering)".to_string()
            } else if !v.synced && self.informer_for(v).is_none_or(|r| !r.synced) {
                "loading… (listing)".to_string()
            } else if filtered {
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
}

impl App {
    /// Whether the view's informer is listing: its rows (and a filter's matches) are so far.
    pub(crate) fn listing(&self, v: &ResourceView) -> bool {
        self.informer_for(v).is_some_and(|r| r.progress.is_some())
    }

    /// A view the user may not list: what is forbidden, for whom, where, in the server's words,
    /// and when it is tried again. Not an outage: no backoff or syncing language.
    fn render_forbidden(&self, v: &ResourceView, d: &Denial, inner: Rect, buf: &mut Buffer) {
        let plural = &v.resource.api_resource.plural;
        let gerund = if d.verb == "watch" {
            "watching"
        } else {
            "listing"
        };
        let scope = match (&v.namespace, v.resource.namespaced) {
            (Some(n), true) if crate::ui::scope::several(Some(n)) => format!("namespaces {n}"),
            (Some(n), true) => format!("namespace {n}"),
            (None, true) => "all namespaces".to_string(),
            (_, false) => "the cluster".to_string(),
        };
        let user = d
            .user
            .as_deref()
            .map(|u| format!(" for user {u}"))
            .unwrap_or_default();
        let scope = match &v.fallback_denied {
            Some((ns, _)) => format!("{scope} and in namespace {ns}"),
            None => scope,
        };
        let red = Style::default().fg(Color::Red).add_modifier(Modifier::BOLD);
        let dim = Style::default().fg(DIM);
        // The server's messages wrap: they are what the user needs to read in full.
        let mut text = vec![
            Line::styled(
                format!("{gerund} {plural} is forbidden{user} in {scope}"),
                red,
            ),
            Line::styled(d.message.clone(), dim),
        ];
        if let Some((_, fd)) = &v.fallback_denied {
            text.push(Line::styled(fd.message.clone(), dim));
        }
        let key = self.keys.key_for(KeyAction::Retry);
        text.push(Line::styled(
            match d.retry_at_ms {
                Some(at) => format!(
                    "Permissions are checked again in {} ({key}: now).",
                    crate::ui::kit::countdown(self.now_ms, at)
                ),
                None => format!("{key} checks again now."),
            },
            dim,
        ));
        text.push(Line::styled(
            "Other views keep working: try :ns NAME or another resource.",
            dim,
        ));
        let width = usize::from(inner.width.max(1));
        let h: usize = text.iter().map(|l| l.width().div_ceil(width).max(1)).sum();
        Paragraph::new(text)
            .wrap(ratatui::widgets::Wrap { trim: false })
            .render(centered(inner, inner.width, h as u16), buf);
    }
}

/// `pods` → `Pods`, as k9s titles its tables.
pub(super) fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// A column the table shows: the kind's own (its index in the view's columns) or a custom
/// JSONPath column.
pub(super) enum Shown<'a> {
    Own(usize),
    Path(&'a crate::ui::custom_columns::CustomCol),
}

/// The kind's columns in order (wide-only ones left out unless the view is wide), or the custom
/// view's (its own columns by header, in its order; hidden ones left out, wide-only ones too
/// unless the view is wide).
pub(super) fn shown_columns<'a>(
    v: &ResourceView,
    custom: Option<&'a crate::ui::custom_columns::CustomView>,
) -> Vec<Shown<'a>> {
    use crate::ui::custom_columns::Source;
    match custom {
        // A custom resource's printer columns of priority > 0 only in wide mode (kubectl -o
        // wide).
        None => (0..v.columns.len())
            .filter(|i| v.wide || !v.columns[*i].wide)
            .map(Shown::Own)
            .collect(),
        Some(cv) => cv
            .columns
            .iter()
            .filter(|c| !c.hidden && (v.wide || !c.wide_only))
            .filter_map(|c| match &c.source {
                Source::Own(name) => v
                    .columns
                    .iter()
                    .position(|x| x.name == *name)
                    .map(Shown::Own),
                Source::Path(..) => Some(Shown::Path(c)),
            })
            .collect(),
    }
}

/// A custom JSONPath column's text: the value, `<none>` for an absent label or annotation,
/// `<error>` for any other path that finds nothing (the footer says why, once).
pub(super) fn custom_cell(c: &crate::ui::custom_columns::CustomCol, obj: &ObjectSummary) -> String {
    let crate::ui::custom_columns::Source::Path(p, text) = &c.source else {
        return String::new();
    };
    match crate::ui::custom_columns::path_cell(p, text, obj) {
        Some(s) => s,
        None if c.optional => "<none>".to_string(),
        None => "<error>".to_string(),
    }
}

pub(super) fn mark_style(base: Style, m: Mark, theme: &crate::ui::theme::Theme) -> Style {
    match m {
        Mark::None => base,
        Mark::Added => base.fg(Color::Black).bg(theme.added),
        Mark::Updated => base.add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        Mark::Deleted => Style::default()
            .fg(Color::Red)
            .add_modifier(Modifier::CROSSED_OUT | Modifier::DIM),
    }
}

/// A row count as the title's thousands formatter takes it.
fn live_count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
