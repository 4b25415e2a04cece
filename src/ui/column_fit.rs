//! Which columns give way when a table is wider than the terminal: NAME and NAMESPACE are cut
//! (down to a floor) before the kind's later columns are left out, so that a pods table at 100
//! columns with `-A` and long names keeps IP and NODE, as k9s's does, ahead of the usage
//! columns (which are left out first).
//!
//! Pure: widths in, widths out; the table's drawing ([`crate::ui::screens::table`]) decides
//! which columns exist and in what order.

/// The narrowest NAME is cut to.
pub const NAME_FLOOR: u16 = 16;
/// The narrowest NAMESPACE is cut to (its header).
pub const NAMESPACE_FLOOR: u16 = 9;
/// The last kept column is counted at most this wide (it is cut to the room left after).
pub const LAST_AT_MOST: u16 = 16;
/// Columns are separated by this many spaces.
const GAP: u32 = 2;

/// Cut the columns `shrink` (each with its floor, in order: the first gives way first) so that
/// the columns `keep` fit in `avail`, the last of them counted at most [`LAST_AT_MOST`] wide.
/// Nothing changes when they fit already; a column is never cut below its floor.
pub fn give_way(widths: &mut [u16], keep: &[usize], shrink: &[(usize, u16)], avail: u32) {
    let Some((&last, rest)) = keep.split_last() else {
        return;
    };
    let need: u32 = rest
        .iter()
        .filter_map(|&i| widths.get(i))
        .map(|&w| u32::from(w) + GAP)
        .sum::<u32>()
        + u32::from(widths.get(last).copied().unwrap_or(0).min(LAST_AT_MOST));
    let mut excess = need.saturating_sub(avail);
    for &(i, floor) in shrink {
        if excess == 0 {
            break;
        }
        let Some(w) = widths.get_mut(i) else {
            continue;
        };
        let give = u32::from(w.saturating_sub(floor)).min(excess);
        *w -= give as u16;
        excess -= give;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_gives_way_first_then_namespace_down_to_their_floors() {
        // NAMESPACE, NAME, READY, IP, NODE in 60 columns.
        let mut w = [13, 41, 5, 12, 40];
        give_way(
            &mut w,
            &[0, 1, 2, 3, 4],
            &[(1, NAME_FLOOR), (0, NAMESPACE_FLOOR)],
            60,
        );
        // 13+2 + n+2 + 5+2 + 12+2 + 16 = 60 → n = 6, floored at 16; NAMESPACE gives 4 more.
        assert_eq!(w[1], NAME_FLOOR);
        assert_eq!(w[0], NAMESPACE_FLOOR);
        assert_eq!(w[4], 40, "the last is cut by the caller, to the room left");
    }

    #[test]
    fn columns_that_fit_are_left_alone() {
        let mut w = [9, 20, 5];
        give_way(
            &mut w,
            &[0, 1, 2],
            &[(1, NAME_FLOOR), (0, NAMESPACE_FLOOR)],
            100,
        );
        assert_eq!(w, [9, 20, 5]);
    }
}
