//! The text screen: YAML or describe of one object, scrolled and wrapped like `less`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::Screen;
use crate::cluster::ResourceInfo;
use crate::render::to_yaml;
use crate::ui::action::{Effect, ObjectSummary};
use crate::ui::app::{App, Mode};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{DIM, TITLE};

/// What a text screen shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextKind {
    Yaml,
    Describe,
    /// `:diff`: the object across the fleet's clusters (see [`crate::ui::fleet_diff`]).
    Diff,
    /// `b`: the object's fields grouped by the manager owning them (see [`crate::ui::blame`]).
    Blame,
}

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

pub(crate) enum TextResult {
    Yaml(serde_json::Value),
    Describe(String),
}

impl App {
    /// Keys of the text screen: wrap, reveal and `/` (search, not the table beneath's filter);
    /// false for any other.
    pub(crate) fn on_text_key(&mut self, action: KeyAction) -> bool {
        match action {
            KeyAction::Filter => {
                let Some(Screen::Text(t)) = self.stack.last() else {
                    return false;
                };
                self.mode = Mode::Filter {
                    input: Input::new(t.search.clone().unwrap_or_default()),
                };
            }
            KeyAction::RevealSecrets => self.toggle_reveal(),
            KeyAction::ToggleWrap => {
                let (w, h) = text_area(self.size);
                if let Some(Screen::Text(t)) = self.stack.last_mut() {
                    t.wrap = !t.wrap;
                    t.scroll = t.scroll.min(t.max_scroll(w, h));
                }
            }
            _ => return false,
        }
        true
    }

    /// The search line over a text screen: Enter searches from the line shown first (wrapping
    /// around), Esc leaves it as it was.
    pub(crate) fn on_text_search_key(&mut self, key: KeyEvent, mut input: Input) -> Mode {
        match key.code {
            KeyCode::Esc => Mode::Normal,
            KeyCode::Enter => {
                let text = input.value().trim().to_string();
                if let Some(Screen::Text(t)) = self.stack.last_mut() {
                    t.search = (!text.is_empty()).then_some(text);
                    t.hit = None;
                }
                self.go_to_match(true, false);
                Mode::Normal
            }
            _ => {
                input.handle_event(&Event::Key(key));
                Mode::Filter { input }
            }
        }
    }

    /// `n` and `N` on a text screen with a search: the next and previous line holding it.
    pub(crate) fn on_text_raw_key(&mut self, key: KeyEvent) -> bool {
        let searching = matches!(self.stack.last(), Some(Screen::Text(t)) if t.search.is_some());
        match key.code {
            KeyCode::Char('n')
                if searching && key.modifiers.difference(KeyModifiers::SHIFT).is_empty() =>
            {
                self.go_to_match(true, true);
                true
            }
            KeyCode::Char('N') if searching => {
                self.go_to_match(false, true);
                true
            }
            _ => false,
        }
    }

    /// Scroll the text screen to the next (or previous) line holding its search; `skip`: past
    /// the line shown first (`n`), else from it (a new search). The footer says where, or that
    /// nothing holds it.
    fn go_to_match(&mut self, forward: bool, skip: bool) {
        let (w, h) = text_area(self.size);
        let Some(Screen::Text(t)) = self.stack.last_mut() else {
            return;
        };
        let Some(search) = t.search.clone() else {
            return;
        };
        // On from the current match (the page may not start at it: the last page is shown
        // whole), else from the first line shown.
        let at = t.hit.unwrap_or(t.scroll);
        let from = if skip && forward { at + 1 } else { at };
        let total = t
            .lines
            .as_ref()
            .and_then(|l| l.as_ref().ok())
            .map_or(0, Vec::len);
        match t.find(from.min(total.saturating_sub(1)), forward) {
            Some(i) => {
                t.hit = Some(i);
                // The match as the first line, unless the last page is shown (then it is on it).
                t.scroll = i.min(t.max_scroll(w, h));
                self.info(format!("/{search}: line {} of {total}", i + 1));
            }
            None => self.error(format!("/{search}: not found")),
        }
    }

    pub(crate) fn nav_text(&mut self, action: KeyAction, n: usize) {
        let n = n as isize;
        let Some(Screen::Text(t)) = self.stack.last_mut() else {
            return;
        };
        let (w, h) = text_area(self.size);
        let max = t.max_scroll(w, h);
        t.scroll = match action {
            KeyAction::Up | KeyAction::PageUp => t.scroll.saturating_sub(n as usize),
            KeyAction::Down | KeyAction::PageDown => (t.scroll + n as usize).min(max),
            KeyAction::Top => 0,
            _ => max,
        };
    }

    pub(crate) fn on_text(&mut self, request: u64, result: Result<TextResult, String>) {
        let now_ms = self.now_ms;
        for s in self.stack.iter_mut() {
            if let Screen::Text(t) = s
                && t.request == request
            {
                match result {
                    Ok(TextResult::Yaml(v)) if t.kind == TextKind::Blame => {
                        t.lines = Some(Ok(crate::ui::blame::blame_lines(&v, now_ms)));
                        t.value = Some(v);
                    }
                    Ok(TextResult::Yaml(v)) => {
                        t.lines = Some(Ok(to_yaml(&v, t.reveal)
                            .lines()
                            .map(str::to_string)
                            .collect()));
                        t.value = Some(v);
                    }
                    Ok(TextResult::Describe(text)) => {
                        t.lines = Some(Ok(text.lines().map(str::to_string).collect()));
                    }
                    Err(e) => t.lines = Some(Err(e)),
                }
                self.dirty = true;
                return;
            }
        }
    }

    pub(crate) fn fetch_text(&mut self, kind: TextKind, fx: &mut Vec<Effect>) {
        if kind == TextKind::Diff {
            return self.fetch_diff(fx);
        }
        let Some((view, obj)) = self.selected_object() else {
            return;
        };
        let resource = view.resource.clone();
        let obj = obj.clone();
        self.fetch_text_of(kind, resource, &obj, fx);
    }

    /// YAML or describe of one object (of `resource`): ask for it and push the text screen.
    pub(crate) fn fetch_text_of(
        &mut self,
        kind: TextKind,
        resource: ResourceInfo,
        obj: &ObjectSummary,
        fx: &mut Vec<Effect>,
    ) {
        let namespace = obj.namespace.as_deref().map(str::to_string);
        let shown = match obj.cluster() {
            Some(c) => format!("{} on {c}", obj.object_key()),
            None => obj.key.to_string(),
        };
        self.fetch_text_named(kind, resource, namespace, &obj.name, Some(shown), fx);
    }

    /// YAML or describe of the object `namespace/name` of `resource`, titled `shown` (or its
    /// key): ask for it and push the text screen.
    pub(crate) fn fetch_text_named(
        &mut self,
        kind: TextKind,
        resource: ResourceInfo,
        namespace: Option<String>,
        name: &str,
        shown: Option<String>,
        fx: &mut Vec<Effect>,
    ) {
        let shown = shown.unwrap_or_else(|| match &namespace {
            Some(ns) => format!("{ns}/{name}"),
            None => name.to_string(),
        });
        let name = name.to_string();
        let title = format!(
            "{}: {shown}",
            match kind {
                TextKind::Yaml => "YAML",
                TextKind::Blame => "Blame",
                TextKind::Describe | TextKind::Diff => "Describe",
            },
        );
        let request = self.next_request;
        self.next_request += 1;
        fx.push(match kind {
            // Blame reads the object's managedFields from the same GET.
            TextKind::Yaml | TextKind::Blame => Effect::FetchYaml {
                request,
                resource,
                namespace,
                name,
            },
            TextKind::Describe | TextKind::Diff => Effect::FetchDescribe {
                request,
                resource,
                namespace,
                name,
            },
        });
        self.stack.push(Screen::Text(TextView {
            kind,
            title,
            request,
            lines: None,
            value: None,
            reveal: false,
            scroll: 0,
            wrap: true,
            search: None,
            hit: None,
        }));
    }

    /// `:messages`: the footer's recent messages whole, newest last (the footer cuts a long one
    /// at a word and points here).
    pub(crate) fn show_messages(&mut self) {
        let lines: Vec<String> = if self.messages.is_empty() {
            vec!["no messages yet".to_string()]
        } else {
            self.messages
                .iter()
                .map(|(m, error)| {
                    if *error {
                        format!("error: {m}")
                    } else {
                        m.clone()
                    }
                })
                .collect()
        };
        let request = self.next_request;
        self.next_request += 1;
        self.stack.push(Screen::Text(TextView {
            kind: TextKind::Describe,
            title: format!("Messages ({})", self.messages.len()),
            request,
            lines: Some(Ok(lines)),
            value: None,
            reveal: false,
            scroll: 0,
            wrap: true,
            search: None,
            hit: None,
        }));
    }

    pub(crate) fn toggle_reveal(&mut self) {
        if let Some(Screen::Text(t)) = self.stack.last_mut()
            && t.is_secret()
        {
            t.reveal = !t.reveal;
            if let Some(v) = &t.value {
                t.lines = Some(Ok(to_yaml(v, t.reveal)
                    .lines()
                    .map(str::to_string)
                    .collect()));
            }
        }
    }
}

pub(crate) fn render_text(t: &TextView, area: Rect, buf: &mut Buffer) {
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
pub(crate) fn hints(t: &TextView) -> Vec<KeyAction> {
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
