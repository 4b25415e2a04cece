//! List cursors the screens share: where a navigation key moves a cursor, and the scroll that
//! keeps it in view. Pure functions of numbers (no screen, no `App`).

use super::keys::KeyAction;

/// A list cursor after a navigation key: `n` rows up or down (clamped to `len`), top or bottom;
/// other actions leave it where it is.
pub(crate) fn moved_cursor(action: KeyAction, n: usize, cursor: usize, len: usize) -> usize {
    let last = len.saturating_sub(1);
    match action {
        KeyAction::Up | KeyAction::PageUp => cursor.saturating_sub(n),
        KeyAction::Down | KeyAction::PageDown => (cursor + n).min(last),
        KeyAction::Top => 0,
        KeyAction::Bottom => last,
        _ => cursor,
    }
}

/// The first visible row that keeps `cursor` in a window of `page` rows starting at `scroll`.
pub(crate) fn scrolled_to(cursor: usize, scroll: usize, page: usize) -> usize {
    if cursor < scroll {
        cursor
    } else if cursor >= scroll + page {
        cursor + 1 - page
    } else {
        scroll
    }
}
