//! Property tests of the incremental table: whatever the sequence of upserts, deletes, sort
//! changes, filters and clock ticks, the shown list stays sorted, complete and duplicate-free,
//! and the selection stays on a shown row; a label filter answered from index candidates (few:
//! sorted; many: a pass over the sorted keys by row pointer) shows exactly the matching rows;
//! every shown key is the very `Arc` that keys the table's entries. A text filter's pass in
//! slices (a few rows per update, interleaved with every other change) shows a sorted subset of
//! the matches while it lasts and exactly the matches once it ends. A sort over more than a few
//! slices runs over several updates too: the previous order shows meanwhile, and once it ends the
//! rows are in the order asked for, whatever changed in between.

mod ui_support;

use std::cmp::Ordering;
use std::collections::BTreeMap;

use std::sync::Arc;

use kinformer::ui::table::{LabelFilter, Mark, SortBy, TableModel, TextFilter};
use proptest::prelude::*;
use ui_support::*;

#[derive(Debug, Clone)]
enum Op {
    Upsert {
        name: u8,
        restarts: i64,
        age: i64,
    },
    Batch(Vec<(u8, i64)>),
    Delete(u8),
    Tick(i64),
    Sort(Option<usize>),
    Flip,
    Filter(Option<u8>),
    /// One more character typed into the text filter (`/p1` → `/p12`): the shown rows are
    /// narrowed in place, and must be what a filter from scratch shows.
    Narrow(u8),
    Label(Option<u8>),
    Move(i8),
    /// A metrics poll: every row's joined key set from `seed` (some rows n/a), then sort by it.
    Joined(u8),
    /// The next slice of a filter pass in progress.
    Continue,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0u8..40, 0i64..5, 0i64..1000).prop_map(|(name, restarts, age)| Op::Upsert { name, restarts, age }),
        1 => proptest::collection::vec((0u8..40, 0i64..5), 0..300).prop_map(Op::Batch),
        3 => (0u8..40).prop_map(Op::Delete),
        2 => (0i64..3000).prop_map(Op::Tick),
        1 => proptest::option::of(0usize..7).prop_map(Op::Sort),
        1 => Just(Op::Flip),
        1 => proptest::option::of(0u8..4).prop_map(Op::Filter),
        1 => (0u8..10).prop_map(Op::Narrow),
        1 => proptest::option::of(0u8..3).prop_map(Op::Label),
        2 => (-5i8..5).prop_map(Op::Move),
        1 => (0u8..5).prop_map(Op::Joined),
        3 => Just(Op::Continue),
    ]
}

fn name(n: u8) -> String {
    format!("p{n:02}")
}

/// The `grp` label of pod `n`.
fn group(n: u8) -> &'static str {
    ["g0", "g1", "g2"][(n % 3) as usize]
}

fn labelled(n: u8, restarts: i64, age: i64) -> kinformer::ui::action::ObjectSummary {
    let nm = name(n);
    pod(PodSpec {
        name: &nm,
        restarts,
        age_secs: age,
        labels: &[("grp", group(n))],
        ..PodSpec::default()
    })
}

fn check(t: &TableModel, alive: &BTreeMap<String, ()>, filter: Option<&str>, label: Option<u8>) {
    let list = t.list();
    // Sorted by the sort column, ties by key, reversed when descending (while a sort runs over
    // several updates: the previous sort's order).
    let (sort, desc) = t.shown_sort();
    if t.sorting().is_none() {
        assert_eq!(t.shown_sort(), t.sort());
    }
    for w in list.windows(2) {
        let (a, b) = (t.entry(&w[0]).unwrap(), t.entry(&w[1]).unwrap());
        let mut o = match sort {
            SortBy::Key => Ordering::Equal,
            SortBy::Cell(i) => a.summary.row.cells[i].cmp_for_sort(&b.summary.row.cells[i]),
            SortBy::Joined(_) => a.joined.cmp(&b.joined),
        }
        .then_with(|| a.summary.key.cmp(&b.summary.key));
        if desc {
            o = o.reverse();
        }
        assert_eq!(o, Ordering::Less, "{:?} before {:?}", w[0], w[1]);
    }
    // Every live (not deleted) object matching the filter is shown; nothing else but lingering
    // deleted rows.
    let shown_live: Vec<String> = list
        .iter()
        .filter(|k| t.entry(k).unwrap().mark != Mark::Deleted)
        .map(|k| k.to_string())
        .collect();
    // The title's count: the shown rows without the deleted ones lingering.
    assert_eq!(t.live_len(), shown_live.len());
    for k in list {
        let own = t.intern(k).unwrap();
        assert!(Arc::ptr_eq(&own, k), "{k} is not the entries' own key Arc");
    }
    // While a filter pass is in progress, the rows found so far: a subset of the matches.
    let partial = t.filtering();
    let mut expected: Vec<String> = alive
        .keys()
        .filter(|k| filter.is_none_or(|f| k.starts_with(f)))
        .filter(|k| {
            label.is_none_or(|g| {
                let n: u8 = k[1..].parse().unwrap();
                n % 3 == g
            })
        })
        .map(|k| format!("default/{k}"))
        .collect();
    expected.sort();
    let mut got = shown_live.clone();
    got.sort();
    if partial {
        assert!(
            got.iter().all(|k| expected.binary_search(k).is_ok()),
            "{got:?} ⊄ {expected:?}"
        );
        let mut unique = got.clone();
        unique.dedup();
        assert_eq!(unique.len(), got.len(), "a row shown twice: {got:?}");
    } else {
        assert_eq!(got, expected);
    }
    // Selection on a shown row, cursor pointing at it.
    match t.selected_key() {
        Some(k) => assert_eq!(&list[t.cursor()], k),
        None => assert!(list.is_empty()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn incremental_table_stays_sorted_complete_and_selected(
        ops in proptest::collection::vec(op(), 1..60),
        slice in prop_oneof![1usize..8, Just(10_000)],
    ) {
        let mut t = TableModel::default();
        t.set_slice_rows(slice);
        let mut alive: BTreeMap<String, ()> = BTreeMap::new();
        let mut now = NOW_MS;
        let mut filter: Option<String> = None;
        let mut label: Option<u8> = None;
        for op in ops {
            match op {
                Op::Upsert { name: n, restarts, age } => {
                    t.upsert(labelled(n, restarts, age), now);
                    alive.insert(name(n), ());
                }
                Op::Batch(items) => {
                    let rows = items.iter().map(|(n, r)| {
                        alive.insert(name(*n), ());
                        labelled(*n, *r, 3600)
                    }).collect();
                    t.apply(rows, vec![], now, true);
                }
                Op::Delete(n) => {
                    let nm = name(n);
                    t.delete(&format!("default/{nm}"), now);
                    alive.remove(&nm);
                }
                Op::Tick(d) => {
                    now += d;
                    t.expire(now);
                }
                Op::Sort(c) => t.set_sort(c.map_or(SortBy::Key, SortBy::Cell)),
                Op::Flip => t.flip_sort(),
                Op::Joined(seed) => {
                    // Usage-like keys with ties and n/a: (name number × seed) mod 7, none when 0.
                    t.set_joined_keys(|e| {
                        let n: u64 = e.summary.name[1..].parse().unwrap_or(0);
                        Some(n * u64::from(seed) % 7).filter(|v| *v > 0)
                    });
                    if t.sort().0 != SortBy::Joined(0) {
                        t.set_sort(SortBy::Joined(0));
                    }
                }
                Op::Filter(f) => {
                    filter = f.map(|f| format!("p{f}"));
                    // "p{f}" can only match names (no other cell contains a "p").
                    t.filters.text = filter.as_deref().map(|f| TextFilter::parse(f).unwrap());
                    t.refilter_sliced();
                }
                Op::Narrow(d) => {
                    let longer = match &filter {
                        Some(f) if f.len() < 3 => format!("{f}{d}"),
                        Some(f) => f.clone(),
                        None => "p".to_string(),
                    };
                    let parsed = TextFilter::parse(&longer).unwrap();
                    match t.narrow_text(parsed) {
                        // Narrowed only from a filtered table, over a filter it extends.
                        Ok(()) => prop_assert!(filter.is_some()),
                        // Refused: no filter to narrow, or more shown rows than a slice.
                        Err(parsed) => {
                            prop_assert!(filter.is_none() || t.list().len() > slice);
                            t.filters.text = Some(parsed);
                            t.refilter_sliced();
                        }
                    }
                    filter = Some(longer);
                }
                Op::Label(g) => {
                    label = g;
                    t.filters.label = g.map(|g| {
                        let mut f = LabelFilter::parse(&format!("grp=g{g}")).unwrap();
                        f.from_index = true;
                        f
                    });
                    // The index's answer: fresh key Arcs (the store's, not the table's), for
                    // live objects only.
                    let candidates = g.map(|g| {
                        alive
                            .keys()
                            .filter(|k| k[1..].parse::<u8>().unwrap() % 3 == g)
                            .map(|k| Arc::from(format!("default/{k}").as_str()))
                            .collect::<Vec<Arc<str>>>()
                    });
                    t.refilter(candidates);
                }
                Op::Move(d) => t.move_by(d as isize),
                Op::Continue => {
                    t.continue_filter();
                    t.continue_sort();
                }
            }
            check(&t, &alive, filter.as_deref(), label);
        }
        // A sort in progress ends, in the order asked for.
        let mut sort_updates = 0;
        while t.sorting().is_some() {
            t.continue_sort();
            sort_updates += 1;
            prop_assert!(sort_updates <= 10 * (t.total() / slice + 1), "the sort does not end");
        }
        prop_assert_eq!(t.shown_sort(), t.sort());
        // A pass in progress ends after at most one update per slice of rows, with exactly the
        // matches shown.
        let mut updates = 0;
        while t.continue_filter() {
            updates += 1;
            prop_assert!(updates <= t.total() / slice + 1, "the pass does not end");
        }
        check(&t, &alive, filter.as_deref(), label);
        // Once every linger is over, only live rows remain.
        t.expire(now + 10_000);
        t.expire(now + 20_000);
        prop_assert!(t.entries().all(|e| e.mark != Mark::Deleted));
        prop_assert_eq!(t.total(), alive.len());
    }
}

/// A list streaming into a filtered table (`/p1` typed while listing): each batch's rows that
/// pass are merged into the shown list in sort order, and those that do not stay out, with the
/// table sorted by key and by a cell.
#[test]
fn rows_listed_into_a_filtered_table_are_shown_in_order_when_they_pass() {
    for sort in [SortBy::Key, SortBy::Cell(3)] {
        let mut t = TableModel::default();
        t.set_sort(sort);
        t.filters.text = Some(TextFilter::parse("p1").unwrap());
        t.refilter(None);
        let mut alive: BTreeMap<String, ()> = BTreeMap::new();
        // Three batches over the bulk threshold, names interleaved across batches.
        for start in 0..3u8 {
            let rows: Vec<_> = (0..40u8)
                .map(|i| {
                    let n = i * 3 + start;
                    alive.insert(name(n), ());
                    labelled(n, i64::from(n % 5), 3600)
                })
                .collect();
            t.apply_listed(rows, vec![], NOW_MS);
            check(&t, &alive, Some("p1"), None);
        }
        assert_eq!(t.list().len(), 30, "p10-p19 and p100-p119 of p00-p119");
    }
}
