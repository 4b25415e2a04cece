//! Small presentation helpers the screens share: a delta type's colour, a clock time.

use ratatui::style::{Color, Modifier, Style};

use crate::informer::delta_fifo::DeltaType;

use super::kit::DIM;

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

/// `−4m12s`: how long before `now_ms` the instant `at_ms` is.
pub fn ago(at_ms: i64, now_ms: i64) -> String {
    let s = (now_ms - at_ms).max(0) / 1000;
    let (h, m, sec) = (s / 3600, (s / 60) % 60, s % 60);
    if h > 0 {
        format!("−{h}h{m}m{sec}s")
    } else if m > 0 {
        format!("−{m}m{sec}s")
    } else {
        format!("−{sec}s")
    }
}
