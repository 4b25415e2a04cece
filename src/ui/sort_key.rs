//! Sort keys decorated once: a table sort reduces each row's sort cell to a few integers before
//! sorting, so the sort's n log n comparisons compare integers held side by side in one `Vec`
//! instead of following each row's pointers to its cells (a comparison of two rows read ~8
//! scattered cache lines: 163 ms for 300k rows by STATUS).
//!
//! k9s counterpart: k9s sorts its table rows with `sort.Slice` and a comparator that parses
//! each cell's text on every comparison (durations, quantities); here cells are typed
//! ([`Cell`]), and the order is the one [`Cell::cmp_for_sort`] defines (this module must agree
//! with it: a property test checks it does).
//!
//! A text cell is decorated with its first 8 bytes and its length (capped at 9): two texts of at
//! most 8 bytes compare exactly by that; longer texts with the same first 8 bytes fall back to
//! comparing the texts.

use std::cmp::Ordering;

use crate::render::Cell;

/// A sort cell reduced to integers (`Option<&Cell>`: a row without that cell sorts first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SortKey {
    /// 0: no cell; else 1 + the cell's variant rank (mixed variants sort by variant).
    rank: u8,
    a: u64,
    b: u64,
}

/// Map an `i64` onto a `u64` preserving order.
fn flip(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

impl SortKey {
    /// The key of a number that may be missing (a joined column's `n/a`, first); always exact.
    pub fn number(v: Option<u64>) -> SortKey {
        SortKey {
            rank: u8::from(v.is_some()),
            a: v.unwrap_or(0),
            b: 0,
        }
    }

    /// The key of a row's sort cell, and whether it decides every comparison by itself (else
    /// equal keys need a comparison of the cells: long texts sharing their first 8 bytes).
    pub fn of(cell: Option<&Cell>) -> (SortKey, bool) {
        let Some(cell) = cell else {
            return (
                SortKey {
                    rank: 0,
                    a: 0,
                    b: 0,
                },
                true,
            );
        };
        let key = |rank: u8, a: u64, b: u64| SortKey { rank, a, b };
        match cell {
            Cell::Text(t) => {
                let bytes = t.as_bytes();
                let mut head = [0u8; 8];
                let n = bytes.len().min(8);
                head[..n].copy_from_slice(&bytes[..n]);
                let len = bytes.len().min(9) as u64;
                (key(1, u64::from_be_bytes(head), len), bytes.len() <= 8)
            }
            Cell::Int(v) => (key(2, flip(*v), 0), true),
            // Ascending age = descending timestamp; unknown ages last.
            Cell::Age(Some(t)) => (key(3, 0, !flip(*t)), true),
            Cell::Age(None) => (key(3, 1, 0), true),
            Cell::Ratio(x, y) => (key(4, u64::from(*x), u64::from(*y)), true),
            // `None` before any time; `i64::MIN` would share `None`'s 0: compared in full.
            Cell::Restarts(n, t) => (key(5, flip(*n), t.map_or(0, flip)), *t != Some(i64::MIN)),
            // Finished spans by duration, then running ones (the earlier start first).
            Cell::Elapsed {
                start,
                end: Some(end),
            } => (key(6, 0, flip(end.saturating_sub(*start))), true),
            Cell::Elapsed { start, end: None } => (key(6, 1, !flip(*start)), true),
        }
    }
}

/// A decorated row: its sort key, whether the key is exact, and the row's cell for a fallback.
pub type Decorated<'a, T> = (SortKey, bool, Option<&'a Cell>, T);

/// The order of two decorated rows by their sort cells ([`Cell::cmp_for_sort`]'s order, with a
/// missing cell first), comparing the cells only when the keys cannot decide.
pub fn cmp_decorated<T>(x: &Decorated<'_, T>, y: &Decorated<'_, T>) -> Ordering {
    match x.0.cmp(&y.0) {
        Ordering::Equal if !(x.1 && y.1) => match (x.2, y.2) {
            (Some(a), Some(b)) => a.cmp_for_sort(b),
            (a, b) => a.is_some().cmp(&b.is_some()),
        },
        o => o,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cell() -> impl Strategy<Value = Option<Cell>> {
        let t = prop_oneof![
            Just(i64::MIN),
            Just(i64::MAX),
            Just(0i64),
            -5i64..5,
            any::<i64>()
        ];
        let text = prop_oneof![
            "[a-c]{0,10}",
            "(Running|Pending|ContainerCreating|ContainerCannotRun|CrashLoopBackOff)",
            "[a\u{0}é]{0,10}",
        ];
        proptest::option::of(prop_oneof![
            text.prop_map(Cell::Text),
            t.clone().prop_map(Cell::Int),
            proptest::option::of(t.clone()).prop_map(Cell::Age),
            (0u32..3, 0u32..3).prop_map(|(a, b)| Cell::Ratio(a, b)),
            (t.clone(), proptest::option::of(t.clone())).prop_map(|(n, w)| Cell::Restarts(n, w)),
            (t.clone(), proptest::option::of(t))
                .prop_map(|(start, end)| Cell::Elapsed { start, end }),
        ])
    }

    fn reference(a: Option<&Cell>, b: Option<&Cell>) -> Ordering {
        match (a, b) {
            (Some(x), Some(y)) => x.cmp_for_sort(y),
            (x, y) => x.is_some().cmp(&y.is_some()),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn decorated_keys_order_cells_as_cmp_for_sort_does(a in cell(), b in cell()) {
            let (ka, ea) = SortKey::of(a.as_ref());
            let (kb, eb) = SortKey::of(b.as_ref());
            let got = cmp_decorated(&(ka, ea, a.as_ref(), ()), &(kb, eb, b.as_ref(), ()));
            prop_assert_eq!(got, reference(a.as_ref(), b.as_ref()), "{:?} vs {:?}", a, b);
            // An exact key decides alone: equal exact keys mean equal cells.
            if ea && eb && ka == kb {
                prop_assert_eq!(reference(a.as_ref(), b.as_ref()), Ordering::Equal);
            }
        }
    }

    #[test]
    fn short_texts_are_exact_and_long_ones_sharing_a_head_fall_back_to_the_text() {
        let r = Cell::text("Running");
        let (k, exact) = SortKey::of(Some(&r));
        assert!(exact);
        assert_eq!(SortKey::of(Some(&Cell::text("Running"))).0, k);
        let long = [Cell::text("abcdefghZ"), Cell::text("abcdefghAA")];
        let d: Vec<_> = long
            .iter()
            .map(|c| {
                let (k, e) = SortKey::of(Some(c));
                (k, e, Some(c), ())
            })
            .collect();
        assert!(!d[0].1 && !d[1].1);
        assert_eq!(cmp_decorated(&d[1], &d[0]), Ordering::Less);
    }
}
