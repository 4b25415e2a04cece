//! The drawing kit every screen and dialog uses: colours, the dialog and screen frames,
//! centring, cutting text to a width, key names for hints. Plain functions of their arguments;
//! this module imports no screen and not the `App`.

use std::borrow::Cow;

use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use super::action::InformerState;
use super::keys::KeyAction;

pub(crate) const TITLE: Color = Color::Cyan;
pub(crate) const DIM: Color = Color::DarkGray;
pub(crate) const KEY: Color = Color::Magenta;

/// `5s`, `2m10s` until a unix-ms instant.
pub(crate) fn countdown(now_ms: i64, at_ms: i64) -> String {
    let secs = ((at_ms - now_ms).max(0) + 999) / 1000;
    format!("{secs}s")
}

pub(crate) fn state_text(state: &InformerState, now_ms: i64) -> String {
    match state {
        InformerState::Starting => "starting".into(),
        InformerState::Listing => "listing".into(),
        InformerState::Watching => "watching".into(),
        InformerState::BackingOff { until_ms } => {
            format!("backing off, retry in {}", countdown(now_ms, *until_ms))
        }
        InformerState::Forbidden { retry_at_ms } => {
            format!("forbidden, retry in {}", countdown(now_ms, *retry_at_ms))
        }
        InformerState::Checking => "checking history".into(),
        InformerState::Stopped => "stopped".into(),
    }
}

pub(crate) fn truncate(s: &str, max: usize) -> Cow<'_, str> {
    if s.chars().count() <= max {
        Cow::Borrowed(s)
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        Cow::Owned(t)
    }
}

/// What the footer says after a message cut to fit: where the whole of it is.
pub(crate) const MESSAGE_CUT_HINT: &str = " (:messages)";

/// A footer message in `width` characters: whole when it fits, else cut after its last whole
/// word that leaves room for `…` and [`MESSAGE_CUT_HINT`] (a word longer than that is cut).
pub(crate) fn fit_message(msg: &str, width: usize) -> Cow<'_, str> {
    if msg.chars().count() <= width {
        return Cow::Borrowed(msg);
    }
    let hint = if width >= 3 * MESSAGE_CUT_HINT.len() {
        MESSAGE_CUT_HINT
    } else {
        ""
    };
    let room = width.saturating_sub(hint.chars().count() + 1);
    let end = msg.char_indices().nth(room).map_or(msg.len(), |(i, _)| i);
    let cut = msg
        .char_indices()
        .take(room + 1)
        .filter(|(i, c)| c.is_whitespace() && *i > 0)
        .map(|(i, _)| i)
        .last()
        .unwrap_or(end);
    Cow::Owned(format!("{}…{hint}", msg[..cut].trim_end()))
}

/// A dialog's frame: a border and a bold title in `colour`, both centred, and the dialog's keys
/// at the bottom (`title` and `keys` as shown, spaces included).
pub(crate) fn dialog_block<'a>(
    title: impl Into<Cow<'a, str>>,
    colour: Color,
    keys: impl Into<Cow<'a, str>>,
) -> Block<'a> {
    Block::bordered()
        .border_style(Style::default().fg(colour))
        .title(
            Line::styled(
                title,
                Style::default().fg(colour).add_modifier(Modifier::BOLD),
            )
            .centered(),
        )
        .title_bottom(Line::from(keys.into()).centered())
}

/// A list screen's frame (`:pf`, aliases, contexts): a blue border and its bold title centred.
pub(crate) fn screen_block<'a>(title: String, theme: &crate::ui::theme::Theme) -> Block<'a> {
    Block::bordered()
        .border_style(Style::default().fg(theme.border))
        .title(
            Line::styled(
                title,
                Style::default()
                    .fg(theme.title)
                    .add_modifier(Modifier::BOLD),
            )
            .centered(),
        )
}

/// A list screen's column header style.
pub(crate) fn header_style(theme: &crate::ui::theme::Theme) -> Style {
    theme.header()
}

/// The width of a column holding `f` of each row, at least `min`.
pub(crate) fn widest<T>(rows: &[T], f: impl Fn(&T) -> usize, min: usize) -> u16 {
    rows.iter()
        .map(f)
        .max()
        .unwrap_or(0)
        .max(min)
        .min(u16::MAX as usize) as u16
}

pub(crate) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// The footer's short name of an action.
pub(crate) fn hint_name(a: KeyAction) -> &'static str {
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
        KeyAction::Logs => "logs",
        KeyAction::Delete => "delete",
        KeyAction::Kill => "kill",
        KeyAction::Scale => "scale",
        KeyAction::Restart => "restart",
        KeyAction::Trigger => "trigger",
        KeyAction::Suspend => "suspend",
        KeyAction::SetImage => "set image",
        KeyAction::Cordon => "cordon",
        KeyAction::Uncordon => "uncordon",
        KeyAction::Drain => "drain",
        KeyAction::Shell => "shell",
        KeyAction::Edit => "edit",
        KeyAction::Create => "create",
        KeyAction::PortForward => "port-fwd",
        KeyAction::RevealSecrets => "reveal",
        KeyAction::ToggleWrap => "wrap",
        KeyAction::ToggleEvents => "events",
        KeyAction::SortName => "sort name",
        KeyAction::SortAge => "sort age",
        KeyAction::SortNext => "sort next",
        KeyAction::SortPrev => "sort prev",
        KeyAction::SortFlip => "reverse",
        KeyAction::SortCpu => "sort cpu",
        KeyAction::SortMem => "sort mem",
        KeyAction::Pulse => "pulse",
        KeyAction::Pause => "pause",
        KeyAction::EventType => "type",
        KeyAction::EventKind => "kind",
        KeyAction::Retry => "retry",
        KeyAction::ToggleNode => "toggle",
        KeyAction::ExpandAll => "open all",
        KeyAction::CollapseAll => "close all",
        KeyAction::History => "history",
        KeyAction::TimeBack => "earlier",
        KeyAction::Blame => "blame",
        KeyAction::TimeForward => "later",
        KeyAction::Mark => "mark",
        KeyAction::PreviousLogs => "prev logs",
        KeyAction::SortReady => "sort ready",
        KeyAction::SortStatus => "sort status",
        KeyAction::SortRestarts => "sort restarts",
        KeyAction::SortIp => "sort ip",
        KeyAction::SortNode => "sort node",
        KeyAction::JumpOwner => "owner",
        KeyAction::PodNode => "node",
        KeyAction::ShowForwards => "port-fwds",
        KeyAction::ToggleFaults => "faults",
        KeyAction::ToggleWide => "wide",
        KeyAction::UsedBy => "used by",
        KeyAction::SaveTable => "save",
        KeyAction::Favourite => "favourites",
        KeyAction::Aliases => "aliases",
        KeyAction::HelmValues => "values",
        KeyAction::HelmAllValues => "all values",
        KeyAction::HelmManifest => "manifest",
        KeyAction::HelmNotes => "notes",
        KeyAction::HistoryBack => "cmd back",
        KeyAction::HistoryForward => "cmd fwd",
        KeyAction::LastView => "last view",
        KeyAction::ToggleCrumbs => "crumbs",
        KeyAction::ToggleHeader => "header",
        KeyAction::MarkRange => "mark range",
        KeyAction::ClearMarks => "unmark",
        KeyAction::Attach => "attach",
        KeyAction::SortPicked => "sort column",
        KeyAction::PickColumnLeft => "column ←",
        KeyAction::PickColumnRight => "column →",
        KeyAction::HotKey(_) => "hotkey",
        KeyAction::Plugin(_) => "plugin",
    }
}

/// Style of a cluster's name where a mistake would be costly: it must stand out.
pub fn cluster_style() -> Style {
    Style::default()
        .fg(Color::Black)
        .bg(Color::LightYellow)
        .add_modifier(Modifier::BOLD)
}

/// One line of a diff: `+` green, `-` red, a hunk header cyan.
pub(crate) fn diff_line(l: &crate::informer::history::DiffLine) -> Line<'_> {
    match l {
        crate::informer::history::DiffLine::Hunk(s) => {
            Line::styled(s.as_str(), Style::default().fg(Color::Cyan))
        }
        crate::informer::history::DiffLine::Same(s) => {
            Line::from(vec![Span::raw("  "), Span::raw(s.as_str())])
        }
        crate::informer::history::DiffLine::Removed(s) => {
            Line::styled(format!("- {s}"), Style::default().fg(Color::Red))
        }
        crate::informer::history::DiffLine::Added(s) => {
            Line::styled(format!("+ {s}"), Style::default().fg(Color::Green))
        }
    }
}
