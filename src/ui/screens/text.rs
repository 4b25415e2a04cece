//! The text screen: YAML or describe of one object, scrolled and wrapped like `less`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::render::to_yaml;
use crate::ui::component::{Component, Ctx, Outcome, Request};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};

pub use crate::ui::view::TextKind;

/// The YAML or describe screen.
#[derive(Debug, Clone)]
pub struct TextView {
    pub kind: TextKind,
    pub title: String,
    pub request: u64,
    /// None while loading.
    pub lines: Option<Result<Vec<String>, String>>,
    pub value: Option<serde_json::Value>,
    pub reveal: bool,
    /// First line shown (a logical line; wrapped lines take several rows).
    pub scroll: usize,
    /// Long lines wrap onto the next rows (on by default, `w` toggles); off: they are cut.
    pub wrap: bool,
    /// The text searched with `/` (matched ignoring case; `n`/`N` go to the next/previous line
    /// holding it, and its matches are highlighted).
    pub search: Option<String>,
    /// The line of the search's current match (`n`/`N` go on from it; it is highlighted).
    pub hit: Option<usize>,
}

impl TextView {
    /// The greatest `scroll` that still fills a page of `height` rows `width` wide (like less,
    /// `G` stops at the last full page rather than showing the last line alone).
    pub fn max_scroll(&self, width: usize, height: usize) -> usize {
        let Some(Ok(lines)) = &self.lines else {
            return 0;
        };
        let mut rows = 0;
        for (i, l) in lines.iter().enumerate().rev() {
            rows += if self.wrap { wrapped_rows(l, width) } else { 1 };
            if rows > height {
                return i + 1;
            }
        }
        0
    }

    /// The first line holding the search from line `from` on, forward or backward, wrapping
    /// around the ends (`from` itself is looked at first going forward, last going back).
    pub fn find(&self, from: usize, forward: bool) -> Option<usize> {
        let needle = self.search.as_deref()?.to_ascii_lowercase();
        let Some(Ok(lines)) = &self.lines else {
            return None;
        };
        let n = lines.len();
        let hit = |i: usize| lines[i].to_ascii_lowercase().contains(&needle);
        (0..n)
            .map(|k| {
                if forward {
                    (from + k) % n
                } else {
                    (from + n - 1 - k % n) % n
                }
            })
            .find(|&i| hit(i))
    }

    pub fn is_secret(&self) -> bool {
        self.value
            .as_ref()
            .and_then(|v| v.get("kind"))
            .and_then(|k| k.as_str())
            == Some("Secret")
    }
}

/// Width and height inside a text (YAML/describe) screen's border at a terminal size: the
/// header (3), footer (1) and border (2) around it.
pub fn text_area(size: (u16, u16)) -> (usize, usize) {
    (
        usize::from(size.0.saturating_sub(2)).max(1),
        usize::from(size.1.saturating_sub(6)).max(1),
    )
}

/// Rows a line takes when wrapped at `width` characters (at least one); see [`word_wrap`].
pub fn wrapped_rows(line: &str, width: usize) -> usize {
    if line.chars().count() <= width.max(1) {
        return 1;
    }
    word_wrap(line, width).len()
}

/// `line` in rows of at most `width` characters, broken after the last space that fits (the
/// space ends the row); a word longer than a row is cut where the row ends. Never empty.
pub fn word_wrap(line: &str, width: usize) -> Vec<&str> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut rest = line;
    while rest.chars().count() > width {
        // Byte offset of the character just past the row, and of the last space within it.
        let end = rest
            .char_indices()
            .nth(width)
            .map_or(rest.len(), |(i, _)| i);
        let space = rest
            .char_indices()
            .take(width + 1)
            .filter(|(i, c)| *c == ' ' && *i > 0)
            .map(|(i, _)| i)
            .last();
        match space {
            Some(at) => {
                rows.push(&rest[..at]);
                rest = &rest[at + 1..];
            }
            None => {
                rows.push(&rest[..end]);
                rest = &rest[end..];
            }
        }
    }
    rows.push(rest);
    rows
}

pub enum TextResult {
    Yaml(serde_json::Value),
    Describe(String),
}

impl TextView {
    /// A text screen titled `title`, waiting for the answer to `request` (or showing `lines`).
    pub fn new(
        kind: TextKind,
        title: String,
        request: u64,
        lines: Option<Result<Vec<String>, String>>,
    ) -> TextView {
        TextView {
            kind,
            title,
            request,
            lines,
            value: None,
            reveal: false,
            scroll: 0,
            wrap: true,
            search: None,
            hit: None,
        }
    }

    /// The answer to the screen's request.
    pub fn answer(&mut self, result: Result<TextResult, String>, now_ms: i64) {
        match result {
            Ok(TextResult::Yaml(v)) if self.kind == TextKind::Blame => {
                self.lines = Some(Ok(crate::ui::blame::blame_lines(&v, now_ms)));
                self.value = Some(v);
            }
            Ok(TextResult::Yaml(v)) => {
                self.lines = Some(Ok(to_yaml(&v, self.reveal)
                    .lines()
                    .map(str::to_string)
                    .collect()));
                self.value = Some(v);
            }
            Ok(TextResult::Describe(text)) => {
                self.lines = Some(Ok(text.lines().map(str::to_string).collect()));
            }
            Err(e) => self.lines = Some(Err(e)),
        }
    }

    /// The search line's Enter: search `text` from the line shown first (wrapping around).
    pub fn search_for(&mut self, text: &str, ctx: &Ctx) -> Outcome {
        let text = text.trim();
        self.search = (!text.is_empty()).then(|| text.to_string());
        self.hit = None;
        self.go_to_match(true, false, ctx)
    }

    /// Scroll to the next (or previous) line holding the search; `skip`: past the line shown
    /// first (`n`), else from it (a new search). The footer says where, or that nothing holds
    /// it.
    fn go_to_match(&mut self, forward: bool, skip: bool, ctx: &Ctx) -> Outcome {
        let (w, h) = text_area(ctx.size);
        let Some(search) = self.search.clone() else {
            return Outcome::Consumed;
        };
        // On from the current match (the page may not start at it: the last page is shown
        // whole), else from the first line shown.
        let at = self.hit.unwrap_or(self.scroll);
        let from = if skip && forward { at + 1 } else { at };
        let total = self
            .lines
            .as_ref()
            .and_then(|l| l.as_ref().ok())
            .map_or(0, Vec::len);
        match self.find(from.min(total.saturating_sub(1)), forward) {
            Some(i) => {
                self.hit = Some(i);
                // The match as the first line, unless the last page is shown (then it is on it).
                self.scroll = i.min(self.max_scroll(w, h));
                Outcome::Info(format!("/{search}: line {} of {total}", i + 1))
            }
            None => Outcome::Error(format!("/{search}: not found")),
        }
    }

    fn toggle_reveal(&mut self) {
        if self.is_secret() {
            self.reveal = !self.reveal;
            if let Some(v) = &self.value {
                self.lines = Some(Ok(to_yaml(v, self.reveal)
                    .lines()
                    .map(str::to_string)
                    .collect()));
            }
        }
    }
}

impl Component for TextView {
    /// `n` and `N` with a search: the next and previous line holding it.
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        if self.search.is_none() {
            return Outcome::NotConsumed;
        }
        match key.code {
            KeyCode::Char('n') if key.modifiers.difference(KeyModifiers::SHIFT).is_empty() => {
                self.go_to_match(true, true, ctx)
            }
            KeyCode::Char('N') => self.go_to_match(false, true, ctx),
            _ => Outcome::NotConsumed,
        }
    }

    /// Wrap, reveal and `/` (search, not the table beneath's filter); any other key goes on.
    fn on_action(&mut self, action: KeyAction, ctx: &Ctx) -> Outcome {
        match action {
            KeyAction::Filter => {
                return Outcome::Ask(Request::Search {
                    text: self.search.clone().unwrap_or_default(),
                });
            }
            KeyAction::RevealSecrets => self.toggle_reveal(),
            KeyAction::ToggleWrap => {
                let (w, h) = text_area(ctx.size);
                self.wrap = !self.wrap;
                self.scroll = self.scroll.min(self.max_scroll(w, h));
            }
            _ => return Outcome::NotConsumed,
        }
        Outcome::Consumed
    }

    fn on_nav(&mut self, action: KeyAction, n: usize, ctx: &Ctx) {
        let (w, h) = text_area(ctx.size);
        let max = self.max_scroll(w, h);
        self.scroll = match action {
            KeyAction::Up | KeyAction::PageUp => self.scroll.saturating_sub(n),
            KeyAction::Down | KeyAction::PageDown => (self.scroll + n).min(max),
            KeyAction::Top => 0,
            _ => max,
        };
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, _ctx: &Ctx) {
        render_text(self, area, buf)
    }

    fn hints(&self, _ctx: &Ctx) -> Option<Vec<KeyAction>> {
        Some(hints(self))
    }
}

fn render_text(t: &TextView, area: Rect, buf: &mut Buffer) {
    let mut title = vec![Span::styled(
        format!(" {} ", t.title),
        Style::default().fg(TITLE).add_modifier(Modifier::BOLD),
    )];
    if t.kind == TextKind::Yaml && t.is_secret() {
        title.push(Span::styled(
            if t.reveal {
                " secrets DECODED (x hides) "
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
            let needle = t.search.as_deref().map(str::to_ascii_lowercase);
            for (i, l) in lines.iter().enumerate().skip(t.scroll) {
                if shown.len() >= h {
                    break;
                }
                // A line holding the search: its matches highlighted (the current one's line
                // marked too), cut at the width rather than wrapped.
                if let Some(needle) = needle.as_deref()
                    && l.to_ascii_lowercase().contains(needle)
                {
                    shown.push(search_line(l, needle, t.hit == Some(i)));
                    continue;
                }
                if !t.wrap || l.chars().count() <= w {
                    shown.push(yaml_line(l, yaml));
                    continue;
                }
                // Wrapped at word boundaries (a word longer than a row is cut); the first
                // row keeps the key colour.
                for (n, row) in word_wrap(l, w).into_iter().enumerate() {
                    if shown.len() >= h {
                        break;
                    }
                    shown.push(if n == 0 {
                        yaml_line(row, yaml)
                    } else {
                        Line::raw(row)
                    });
                }
            }
            Paragraph::new(shown).render(inner, buf);
        }
    }
}

/// A line with the (lower-case) `needle`'s matches highlighted, ignoring ASCII case; `current`:
/// the search's current match is on it.
fn search_line<'a>(l: &'a str, needle: &str, current: bool) -> Line<'a> {
    let lower = l.to_ascii_lowercase();
    let hit = Style::default().fg(Color::Black).bg(Color::Yellow);
    let mut spans = Vec::new();
    let mut at = 0;
    if !needle.is_empty() {
        // ASCII lower-casing keeps byte offsets, so `lower`'s match is `l`'s.
        while let Some(off) = lower[at..].find(needle) {
            let start = at + off;
            let end = start + needle.len();
            spans.push(Span::raw(&l[at..start]));
            spans.push(Span::styled(&l[start..end], hit));
            at = end;
        }
    }
    spans.push(Span::raw(&l[at..]));
    let line = Line::from(spans);
    if current {
        line.style(Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED))
    } else {
        line
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

/// Footer hints on a text screen (reveal only on a Secret's YAML).
fn hints(t: &TextView) -> Vec<KeyAction> {
    let mut a = vec![
        KeyAction::Down,
        KeyAction::Up,
        KeyAction::Filter,
        KeyAction::ToggleWrap,
    ];
    if t.kind == TextKind::Yaml && t.is_secret() {
        a.push(KeyAction::RevealSecrets);
    }
    a.push(KeyAction::Back);
    a
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

    /// Issue 39: describe wrapped mid-word; rows now break after the last space that fits.
    #[test]
    fn long_lines_wrap_at_word_boundaries_and_a_longer_word_is_cut() {
        assert_eq!(
            word_wrap("Message: back-off restarting failed container", 20),
            ["Message: back-off", "restarting failed", "container"]
        );
        assert_eq!(
            word_wrap("abcdefghij klm", 4),
            ["abcd", "efgh", "ij", "klm"]
        );
        assert_eq!(word_wrap("short", 20), ["short"]);
        assert_eq!(word_wrap("", 5), [""]);
        assert_eq!(word_wrap("naïve café crème", 6), ["naïve", "café", "crème"]);
        assert_eq!(
            wrapped_rows("Message: back-off restarting failed container", 20),
            3
        );
    }
}
