//! Drawing the log screen: its header (sources' states, matches, drops, switches), footer
//! (autoscroll state, messages, key hints), the lines (plain, structured, as columns, with
//! context separators) and the whole-line view.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line as TextLine, Span};

use super::{
    InputKind, Line, LineKind, LogKey, LogKeyMap, LogView, MAX_DISPLAY_CHARS, SourceState, fields,
    structured,
};

impl LogView {
    fn header(&self) -> TextLine<'_> {
        let mut spans = vec![Span::styled(
            format!(" Logs {} ", self.title),
            Style::default().add_modifier(Modifier::BOLD),
        )];
        let count =
            |f: fn(&SourceState) -> bool| self.sources.iter().filter(|s| f(&s.state)).count();
        let streaming = count(|s| matches!(s, SourceState::Streaming));
        let connecting = count(|s| matches!(s, SourceState::Connecting));
        let waiting = count(|s| matches!(s, SourceState::Waiting(_)));
        let retrying = count(|s| matches!(s, SourceState::Retrying { .. }));
        let ended = count(|s| matches!(s, SourceState::Ended(_) | SourceState::Failed(_)));
        let mut parts = vec![format!("{streaming} live")];
        if connecting > 0 {
            parts.push(format!("{connecting} connecting"));
        }
        if waiting > 0 {
            parts.push(format!("{waiting} waiting"));
        }
        if retrying > 0 {
            parts.push(format!("{retrying} reconnecting"));
        }
        if ended > 0 {
            parts.push(format!("{ended} ended"));
        }
        spans.push(Span::raw(format!("[{}] ", parts.join(", "))));
        if self.filter.is_some() {
            let total = self
                .lines
                .iter()
                .filter(|l| l.kind == LineKind::Log)
                .count();
            spans.push(Span::styled(
                format!("{} of {total} lines match ", self.matched),
                Style::default().fg(Color::Cyan),
            ));
        }
        if self.dropped > 0 {
            spans.push(Span::styled(
                format!(
                    "{} oldest lines dropped (cap {} MiB) ",
                    self.dropped,
                    self.cap / (1024 * 1024)
                ),
                Style::default().fg(Color::Yellow),
            ));
        }
        if self.not_kept > 0 {
            spans.push(Span::styled(
                format!(
                    "head: buffer full (cap {} MiB), {} later lines not kept ",
                    self.cap / (1024 * 1024),
                    self.not_kept
                ),
                Style::default().fg(Color::Yellow),
            ));
        }
        let mut flags = vec![self.since.label().to_string()];
        if self.options.previous {
            flags.push("previous".into());
        }
        if self.timestamps {
            flags.push("timestamps".into());
        }
        if self.wrap {
            flags.push("wrap".into());
        }
        if !self.structured.is_empty() {
            let names: Vec<&str> = self.structured.iter().map(String::as_str).collect();
            flags.push(format!("structured {}", names.join(",")));
        }
        if !self.columns.is_empty() {
            flags.push(format!("cols {}", self.columns.join(",")));
        }
        if self.filter.is_some() {
            flags.push(format!("filter {:?}", self.filter_raw));
            if self.context > 0 {
                flags.push(format!("context {}", self.context));
            }
        }
        if let Some(s) = &self.search {
            flags.push(format!("search {:?}", s.raw));
        }
        spans.push(Span::styled(
            format!("{} ", flags.join(" · ")),
            Style::default().fg(Color::DarkGray),
        ));
        spans.extend(self.pod_states());
        TextLine::from(spans)
    }

    /// Per pod, whether its streams are live, reconnecting or ended (a pod's worst container).
    fn pod_states(&self) -> Vec<Span<'_>> {
        let mut pods: Vec<(&str, u8)> = Vec::new();
        for s in &self.sources {
            let rank = match s.state {
                SourceState::Streaming => 0,
                SourceState::Connecting | SourceState::Waiting(_) => 1,
                SourceState::Ended(_) | SourceState::Failed(_) => 2,
                SourceState::Retrying { .. } => 3,
            };
            match pods.iter_mut().find(|p| p.0 == s.id.pod) {
                Some(p) => p.1 = p.1.max(rank),
                None => pods.push((&s.id.pod, rank)),
            }
        }
        if pods.len() < 2 {
            return Vec::new();
        }
        let mut out = vec![Span::styled("│ ", Style::default().fg(Color::DarkGray))];
        for (pod, rank) in pods {
            let (word, colour) = match rank {
                0 => ("live", Color::Green),
                1 => ("starting", Color::Cyan),
                2 => ("ended", Color::DarkGray),
                _ => ("reconnecting", Color::Yellow),
            };
            out.push(Span::raw(format!("{pod} ")));
            out.push(Span::styled(
                format!("{word}  "),
                Style::default().fg(colour),
            ));
        }
        out
    }

    fn footer(&self, keys: Option<&LogKeyMap>) -> TextLine<'_> {
        if let Some((kind, input)) = &self.input {
            let p = match kind {
                InputKind::Search => "/",
                InputKind::Filter => "&",
                InputKind::Columns => "cols: ",
            };
            return TextLine::from(vec![
                Span::styled(p, Style::default().fg(Color::Yellow)),
                Span::raw(input.value().to_string()),
                Span::styled(" ", Style::default().add_modifier(Modifier::REVERSED)),
            ]);
        }
        let mut spans = Vec::new();
        if self.follow {
            spans.push(Span::styled(
                " FOLLOW ",
                Style::default().fg(Color::Black).bg(Color::Green),
            ));
        } else {
            spans.push(Span::styled(
                format!(" PAUSED · {} new lines · G to resume ", self.unseen),
                Style::default().fg(Color::Black).bg(Color::Yellow),
            ));
        }
        spans.push(Span::raw(" "));
        if let Some((msg, err)) = &self.status {
            let st = if *err {
                Style::default().fg(Color::Red)
            } else {
                Style::default().fg(Color::Cyan)
            };
            spans.push(Span::styled(msg.clone(), st));
        } else if let Some(k) = keys {
            let hints: Vec<String> = k
                .bindings
                .iter()
                .filter(|b| b.3)
                .map(|b| format!("{} {}", k.first_key(b.0), short_help(b.0)))
                .collect();
            spans.push(Span::styled(
                hints.join("  "),
                Style::default().fg(Color::DarkGray),
            ));
        }
        TextLine::from(spans)
    }

    /// Width of the `pod/container` column (0 with one source): the longest name, at most a
    /// third of the screen (and never less than 40 columns for it).
    fn prefix_width(&self, width: usize) -> usize {
        if self.sources.len() <= 1 {
            return 0;
        }
        self.sources
            .iter()
            .map(|s| s.id.to_string().chars().count())
            .max()
            .unwrap_or(0)
            .min((width / 3).max(40))
            + 1
    }

    fn line_spans(&self, l: &Line, prefix: usize, widths: &[usize]) -> Vec<Span<'_>> {
        let mut spans = Vec::new();
        if self.timestamps && l.ts_ns != 0 {
            let t = chrono::DateTime::from_timestamp_nanos(l.ts_ns)
                + chrono::Duration::seconds(i64::from(self.utc_offset_secs));
            spans.push(Span::styled(
                format!("{} ", t.format("%H:%M:%S%.3f")),
                Style::default().fg(Color::DarkGray),
            ));
        }
        let src = &self.sources[usize::from(l.source)];
        if l.kind == LineKind::Mark {
            spans.push(Span::styled(
                l.text.text.to_string(),
                Style::default()
                    .fg(Color::Yellow)
                    .add_modifier(Modifier::BOLD),
            ));
            return spans;
        }
        if l.kind == LineKind::Marker {
            spans.push(Span::styled(
                l.text.text.to_string(),
                Style::default()
                    .fg(src.colour)
                    .add_modifier(Modifier::ITALIC),
            ));
            return spans;
        }
        if prefix > 0 {
            // Too long: keep the end (the pod's own suffix and the container tell sources apart).
            let full = src.id.to_string();
            let n = full.chars().count();
            let name: String = if n < prefix {
                full
            } else {
                let keep = prefix.saturating_sub(2);
                std::iter::once('…')
                    .chain(full.chars().skip(n - keep))
                    .collect()
            };
            spans.push(Span::styled(
                format!("{name:<width$} ", width = prefix - 1),
                Style::default().fg(src.colour),
            ));
        }
        if self.shows_fields(l) {
            let owned;
            let parsed = match &l.parsed {
                Some(p) => p.as_deref(),
                None => {
                    owned = fields::parse(&l.text.text);
                    owned.as_ref()
                }
            };
            if !self.columns.is_empty() {
                for (c, w) in self.columns.iter().zip(widths) {
                    spans.push(structured::cell_span(c, &structured::cell(parsed, c), *w));
                }
                if parsed.is_none() {
                    spans.push(Span::raw(l.text.text.to_string()));
                    return spans;
                }
            }
            let structured_on = self
                .structured
                .contains(&self.sources[usize::from(l.source)].id.container);
            if let Some(p) = parsed {
                if structured_on {
                    spans.extend(structured::field_spans(p, self.utc_offset_secs));
                    return spans;
                }
                if !self.columns.is_empty() {
                    let msg = p.msg.as_deref().unwrap_or_default();
                    spans.push(Span::raw(msg.to_string()));
                    return spans;
                }
            }
        }
        let text = &l.text.text;
        let shown_end = text
            .char_indices()
            .nth(MAX_DISPLAY_CHARS)
            .map_or(text.len(), |(i, _)| i);
        let matches = self
            .search
            .as_ref()
            .map(|m| m.find(&text[..shown_end]))
            .unwrap_or_default();
        // Boundaries where the style may change: style runs and match edges.
        let mut cuts: Vec<usize> = vec![0, shown_end];
        cuts.extend(
            l.text
                .runs
                .iter()
                .map(|r| r.0 as usize)
                .filter(|o| *o < shown_end),
        );
        for (a, b) in &matches {
            cuts.push(*a);
            cuts.push(*b);
        }
        cuts.sort_unstable();
        cuts.dedup();
        let hl = Style::default().fg(Color::Black).bg(Color::Yellow);
        let current = self
            .current_match
            .and_then(|c| self.line(c))
            .is_some_and(|c| std::ptr::eq(c, l));
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            if a >= b || !text.is_char_boundary(a) || !text.is_char_boundary(b) {
                continue;
            }
            let in_match = matches.iter().any(|(s, e)| a >= *s && b <= *e);
            let style = if in_match {
                if current { hl.bg(Color::LightRed) } else { hl }
            } else {
                l.text.style_at(a)
            };
            spans.push(Span::styled(text[a..b].to_string(), style));
        }
        if shown_end < text.len() {
            spans.push(Span::styled(
                format!(" … [{} more bytes]", text.len() - shown_end),
                Style::default().fg(Color::DarkGray),
            ));
        }
        spans
    }

    /// Draws with the footer's key hints from `keys`.
    pub fn render_with(&self, area: Rect, buf: &mut Buffer, keys: Option<&LogKeyMap>) {
        if area.height == 0 || area.width == 0 {
            return;
        }
        let mut body = area;
        if !self.fullscreen && body.height > 2 {
            buf.set_line(area.x, area.y, &self.header(), area.width);
            body.y += 1;
            body.height -= 1;
        }
        if body.height > 1 {
            body.height -= 1;
            buf.set_line(area.x, body.y + body.height, &self.footer(keys), area.width);
        }
        let prefix = self.prefix_width(usize::from(area.width));
        if let Some((seq, scroll)) = self.detail {
            self.render_detail(seq, scroll, body, buf);
            return;
        }
        let mut rows = usize::from(body.height);
        let width = usize::from(body.width).max(1);
        // Lines to draw, top first.
        let seqs = self.screen_seqs(rows);
        // Columns: a heading row, and each column as wide as its widest cell on screen.
        let widths: Vec<usize> = self
            .columns
            .iter()
            .map(|c| {
                seqs.iter()
                    .filter_map(|s| self.line(*s))
                    .filter(|l| self.shows_fields(l))
                    .map(|l| match &l.parsed {
                        Some(p) => structured::cell(p.as_deref(), c).chars().count(),
                        None => structured::cell(fields::parse(&l.text.text).as_ref(), c)
                            .chars()
                            .count(),
                    })
                    .max()
                    .unwrap_or(0)
                    .max(c.len())
                    .min(structured::MAX_COLUMN)
            })
            .collect();
        if !self.columns.is_empty() && rows > 1 {
            let mut head = vec![Span::raw(" ".repeat(prefix))];
            for (c, w) in self.columns.iter().zip(&widths) {
                head.push(Span::styled(
                    format!("{:<w$}  ", c.to_uppercase(), w = *w),
                    Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                ));
            }
            buf.set_line(body.x, body.y, &TextLine::from(head), body.width);
            body.y += 1;
            body.height -= 1;
            rows -= 1;
        }
        let separators = self.context > 0 && self.filter.is_some();
        let current = (!self.follow).then(|| self.current_line()).flatten();
        let mut rendered: Vec<TextLine<'_>> = Vec::new();
        let mut prev: Option<u64> = None;
        for s in &seqs {
            let Some(l) = self.line(*s) else { continue };
            if separators && prev.is_some_and(|p| *s > p + 1) {
                rendered.push(TextLine::styled("--", Style::default().fg(Color::DarkGray)));
            }
            prev = Some(*s);
            let mut line = TextLine::from(self.line_spans(l, prefix, &widths));
            if current == Some(*s) && self.search.is_none() {
                line = line.patch_style(Style::default().add_modifier(Modifier::UNDERLINED));
            }
            if self.wrap {
                rendered.extend(wrap_line(line, width, prefix));
            } else {
                rendered.push(line);
            }
        }
        // Following: the newest rows at the bottom; paused: from the anchor down.
        let skip = if self.follow {
            rendered.len().saturating_sub(rows)
        } else {
            0
        };
        for (i, line) in rendered.iter().skip(skip).take(rows).enumerate() {
            let y = body.y + u16::try_from(i).unwrap_or(u16::MAX);
            buf.set_line(body.x, y, line, body.width);
        }
    }

    /// `enter`: one line whole, pretty-printed, over the body.
    fn render_detail(&self, seq: u64, scroll: usize, body: Rect, buf: &mut Buffer) {
        let Some(l) = self.line(seq) else {
            return;
        };
        let owned;
        let parsed = match &l.parsed {
            Some(p) => p.as_deref(),
            None => {
                owned = fields::parse(&l.text.text);
                owned.as_ref()
            }
        };
        let src = &self.sources[usize::from(l.source)];
        let title = TextLine::from(vec![
            Span::styled(format!(" {} ", src.id), Style::default().fg(src.colour)),
            Span::styled(
                format!(
                    "{} · esc or enter closes · j/k scroll ",
                    structured::format_name(parsed)
                ),
                Style::default().fg(Color::DarkGray),
            ),
        ]);
        buf.set_line(body.x, body.y, &title, body.width);
        let width = usize::from(body.width).max(1);
        let rows: Vec<TextLine<'static>> = structured::detail_rows(&l.text.text, parsed)
            .into_iter()
            .flat_map(|r| wrap_line(TextLine::raw(r), width, 2))
            .collect();
        for (i, row) in rows
            .iter()
            .skip(scroll)
            .take(usize::from(body.height.saturating_sub(1)))
            .enumerate()
        {
            let y = body.y + 1 + u16::try_from(i).unwrap_or(u16::MAX);
            buf.set_line(body.x, y, row, body.width);
        }
    }
}

fn short_help(k: LogKey) -> &'static str {
    match k {
        LogKey::Close => "close",
        LogKey::Follow => "follow",
        LogKey::Search => "search",
        LogKey::Filter => "filter",
        LogKey::Previous => "previous",
        LogKey::Since => "since",
        LogKey::Save => "save",
        LogKey::Timestamps => "timestamps",
        LogKey::Wrap => "wrap",
        LogKey::Fullscreen => "full screen",
        LogKey::Clear => "clear",
        LogKey::Autoscroll => "autoscroll",
        LogKey::Copy => "copy",
        LogKey::Mark => "mark",
        LogKey::AllContainers => "all containers",
        LogKey::Structured => "structured",
        LogKey::Context => "context",
        LogKey::Columns => "columns",
        LogKey::Detail => "whole line",
        LogKey::SinceTail => "tail",
        LogKey::SinceHead => "head",
        LogKey::Since1m => "1m",
        LogKey::Since5m => "5m",
        LogKey::Since15m => "15m",
        LogKey::Since30m => "30m",
        LogKey::Since1h => "1h",
        _ => "",
    }
}

/// Splits a line into rows of `width` cells; continuation rows are indented by `indent`.
fn wrap_line(line: TextLine<'_>, width: usize, indent: usize) -> Vec<TextLine<'static>> {
    let indent = indent.min(width / 2);
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0usize;
    for span in line.spans {
        let mut cur = String::new();
        for c in span.content.chars() {
            let w = unicode_width(c);
            if used + w > width && used > 0 {
                let row = rows.last_mut().expect("rows is never empty");
                row.push(Span::styled(std::mem::take(&mut cur), span.style));
                rows.push(vec![Span::raw(" ".repeat(indent))]);
                used = indent;
            }
            cur.push(c);
            used += w;
        }
        if !cur.is_empty()
            && let Some(row) = rows.last_mut()
        {
            row.push(Span::styled(cur, span.style));
        }
    }
    rows.into_iter().map(TextLine::from).collect()
}

fn unicode_width(c: char) -> usize {
    use ratatui::text::Span as S;
    S::raw(c.to_string()).width()
}
