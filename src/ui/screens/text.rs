//! The text screen: YAML or describe of one object, scrolled and wrapped like `less`.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::Screen;
use crate::cluster::ResourceInfo;
use crate::render::to_yaml;
use crate::ui::action::{Effect, ObjectSummary};
use crate::ui::app::App;
use crate::ui::keys::KeyAction;
use crate::ui::widgets::{DIM, TITLE};

/// What a text screen shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextKind {
    Yaml,
    Describe,
    /// `:diff`: the object across the fleet's clusters (see [`crate::ui::fleet_diff`]).
    Diff,
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

/// Rows a line takes when hard-wrapped at `width` characters (at least one).
pub fn wrapped_rows(line: &str, width: usize) -> usize {
    line.chars().count().div_ceil(width.max(1)).max(1)
}

pub(crate) enum TextResult {
    Yaml(serde_json::Value),
    Describe(String),
}

impl App {
    /// Keys of the text screen: wrap and reveal; false for any other.
    pub(crate) fn on_text_key(&mut self, action: KeyAction) -> bool {
        match action {
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
        for s in self.stack.iter_mut() {
            if let Screen::Text(t) = s
                && t.request == request
            {
                match result {
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
        let name = obj.name.to_string();
        let title = format!(
            "{}: {}",
            if kind == TextKind::Yaml {
                "YAML"
            } else {
                "Describe"
            },
            match obj.cluster() {
                Some(c) => format!("{} on {c}", obj.object_key()),
                None => obj.key.to_string(),
            }
        );
        let request = self.next_request;
        self.next_request += 1;
        fx.push(match kind {
            TextKind::Yaml => Effect::FetchYaml {
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

/// Footer hints on a text screen (reveal only on a Secret's YAML).
pub(crate) fn hints(t: &TextView) -> Vec<KeyAction> {
    let mut a = vec![KeyAction::Down, KeyAction::Up, KeyAction::ToggleWrap];
    if t.kind == TextKind::Yaml && t.is_secret() {
        a.push(KeyAction::RevealSecrets);
    }
    a.push(KeyAction::Back);
    a
}
