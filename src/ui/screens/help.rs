//! The help overlay (`?`): key bindings (from the key map) and commands.
//!
//! k9s's help is a full-screen table that the navigation keys scroll and esc/q/? close; here it
//! is an overlay over the current screen with the same keys: every navigation key scrolls it
//! (`j`/`k`, arrows, page keys, `g`/`G`, home/end), only esc, `q` and `?` close it, and any other
//! key is ignored (the overlay stays open). Descriptions are word-wrapped under their own
//! column (a hanging indent), so nothing is cut at narrow widths.

use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use crate::ui::component::{Component, Ctx, Outcome};
use crate::ui::keys::KeyAction;
use crate::ui::kit::{KEY, TITLE, centered};

/// Width of the key column of the key bindings (two spaces of margin included).
const KEYS_COL: usize = 18;
/// Width of the command column of the commands.
const COMMANDS_COL: usize = 26;

/// The commands section: what the `:` command line and `/` take.
const COMMANDS: [(&str, &str); 13] = [
    (
        ":po :deploy :svc :<crd>",
        "any resource by plural, singular, short name or kind",
    ),
    (":ns NAME", "switch namespace (:ns alone: all namespaces)"),
    (":ctx NAME", "switch kubeconfig context"),
    (":informers", "informer panel"),
    (
        ":deltas",
        "DeltaFIFO event log, full screen (:events: the Event objects)",
    ),
    (
        ":pulse",
        "cluster pulse: counts, usage, rates, restarts, warnings",
    ),
    (
        ":xray [KIND]",
        "owner tree of deploy, sts, ds, job, svc, node or ns",
    ),
    (
        ":changes",
        "latest changes across the cluster (per-object history)",
    ),
    (":pf", "active port-forwards"),
    (":diff", "the selected object across the selected clusters"),
    (":q", "quit"),
    ("/text  /~regex", "filter rows (substring, or regex)"),
    (
        "/-l sel  l",
        "label selector, answered from the label index",
    ),
];

/// One logical line of the help, before wrapping.
enum HelpLine {
    Heading(&'static str),
    Blank,
    /// A key (or command) in a column of `col` cells, and its description.
    Entry {
        key: String,
        col: usize,
        help: String,
    },
}

/// The overlay's rectangle in a terminal area.
fn help_rect(area: Rect) -> Rect {
    centered(
        area,
        area.width.saturating_sub(8).max(40),
        area.height.saturating_sub(4).max(10),
    )
}

/// The inside of the overlay's border.
fn inner(r: Rect) -> Rect {
    Block::bordered().inner(r)
}

/// The wrapped lines of one entry: the key in its column, the description word-wrapped to the
/// rest of the width, continuation lines indented to the description's column. A key wider
/// than its column puts the description one space after it.
fn entry_lines(key: &str, col: usize, help: &str, width: usize) -> Vec<Line<'static>> {
    let key_text = format!("  {key}");
    let key_w = textwrap::core::display_width(&key_text);
    let first_col = col.max(key_w + 1);
    // Wrapped to the description column; a key wider than its column pushes the first line's
    // start right (an initial indent taken off again below).
    let extra = " ".repeat(first_col - col);
    let opts = textwrap::Options::new(width.saturating_sub(col).max(10)).initial_indent(&extra);
    let mut out = Vec::new();
    for (i, l) in textwrap::wrap(help, opts).into_iter().enumerate() {
        let lead = if i == 0 {
            Span::styled(
                format!("{key_text:<w$}", w = first_col),
                Style::default().fg(KEY),
            )
        } else {
            Span::raw(" ".repeat(col))
        };
        let text = if i == 0 { l.trim_start() } else { &l };
        out.push(Line::from(vec![lead, Span::raw(text.to_string())]));
    }
    if out.is_empty() {
        out.push(Line::styled(key_text, Style::default().fg(KEY)));
    }
    out
}

/// The help dialog (`?`): every key of the key map and every command, the log view's keys
/// first when it is on top. `App` keeps only its scroll (`Mode::Help`) and builds this to
/// hand it a key or draw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelpDialog {
    pub scroll: usize,
    /// The log view is on top: its own keys come first.
    pub logs: bool,
}

impl Component for HelpDialog {
    fn on_key(&mut self, key: KeyEvent, ctx: &Ctx) -> Outcome {
        let Some(action) = ctx.keys.action(&key) else {
            return Outcome::Consumed;
        };
        let area = Rect::new(0, 0, ctx.size.0, ctx.size.1);
        let inner = inner(help_rect(area));
        let height = usize::from(inner.height).max(1);
        let total = self.help_lines(ctx, usize::from(inner.width)).len();
        let max = total.saturating_sub(height);
        let page = height.saturating_sub(1).max(1);
        let scroll = self.scroll.min(max);
        let scroll = match action {
            KeyAction::Back | KeyAction::Quit | KeyAction::Help => return Outcome::Close,
            KeyAction::Down => scroll + 1,
            KeyAction::Up => scroll.saturating_sub(1),
            KeyAction::PageDown => scroll + page,
            KeyAction::PageUp => scroll.saturating_sub(page),
            KeyAction::Top => 0,
            KeyAction::Bottom => max,
            _ => scroll,
        };
        self.scroll = scroll.min(max);
        Outcome::Consumed
    }

    fn draw(&self, area: Rect, buf: &mut Buffer, ctx: &Ctx) {
        self.render_help(ctx, area, buf)
    }
}

impl HelpDialog {
    /// Keys while the help overlay is open: the navigation keys scroll, esc / `q` / `?` close,
    /// any other key is ignored.
    fn help_entries(&self, ctx: &Ctx) -> Vec<HelpLine> {
        let mut out = Vec::new();
        if self.logs {
            out.push(HelpLine::Heading("Log view keys"));
            for (_, keys, help, _) in &ctx.log_keys.bindings {
                out.push(HelpLine::Entry {
                    key: keys
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    col: KEYS_COL,
                    help: help.clone(),
                });
            }
            out.push(HelpLine::Blank);
        }
        out.push(HelpLine::Heading("Keys"));
        for b in ctx.keys.bindings() {
            out.push(HelpLine::Entry {
                key: b
                    .keys
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                col: KEYS_COL,
                help: b.help.clone(),
            });
        }
        out.push(HelpLine::Blank);
        out.push(HelpLine::Heading("Commands"));
        for (c, h) in COMMANDS {
            out.push(HelpLine::Entry {
                key: c.to_string(),
                col: COMMANDS_COL,
                help: h.to_string(),
            });
        }
        out
    }

    /// The help's lines wrapped at `width` cells.
    fn help_lines(&self, ctx: &Ctx, width: usize) -> Vec<Line<'static>> {
        let heading = Style::default()
            .fg(Color::Yellow)
            .add_modifier(Modifier::BOLD);
        let mut lines = Vec::new();
        for e in self.help_entries(ctx) {
            match e {
                HelpLine::Heading(h) => lines.push(Line::styled(h, heading)),
                HelpLine::Blank => lines.push(Line::raw("")),
                HelpLine::Entry { key, col, help } => {
                    lines.extend(entry_lines(&key, col, &help, width))
                }
            }
        }
        lines
    }

    fn render_help(&self, ctx: &Ctx, area: Rect, buf: &mut Buffer) {
        let scroll = self.scroll;
        let r = help_rect(area);
        Clear.render(r, buf);
        let inner = inner(r);
        let lines = self.help_lines(ctx, usize::from(inner.width));
        let height = usize::from(inner.height).max(1);
        let scroll = scroll.min(lines.len().saturating_sub(height));
        let position = format!(
            " {}-{}/{} ",
            (scroll + 1).min(lines.len()),
            (scroll + height).min(lines.len()),
            lines.len()
        );
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
                    .title_bottom(Line::from(position).left_aligned())
                    .title_bottom(
                        Line::from(" j/k pgup/pgdn g/G scroll · esc close ").right_aligned(),
                    ),
            )
            .render(r, buf);
    }
}
