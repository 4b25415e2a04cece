//! Small presentation helpers the screens share: a delta type's colour, a clock time.

use ratatui::style::{Color, Modifier, Style};

use crate::informer::delta_fifo::DeltaType;

/// The dim grey of secondary text (as `widgets::DIM`).
const DIM: Color = Color::DarkGray;

/// `HH:MM:SS` (UTC) of a millisecond timestamp.
pub(crate) fn clock(ms: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .map(|t| t.format("%H:%M:%S").to_string())
        .unwrap_or_default()
}

pub(crate) fn delta_style(delta: Option<DeltaType>, tombstone: bool) -> Style {
    match (delta, tombstone) {
        (_, true) => Style::default()
            .fg(Color::LightRed)
            .add_modifier(Modifier::BOLD),
        (Some(DeltaType::Added), _) => Style::default().fg(Color::Green),
        (Some(DeltaType::Updated), _) => Style::default().fg(Color::Cyan),
        (Some(DeltaType::Deleted), _) => Style::default().fg(Color::Red),
        (Some(DeltaType::Replaced), _) => Style::default().fg(Color::Yellow),
        (Some(DeltaType::Sync), _) | (None, _) => Style::default().fg(DIM),
    }
}
