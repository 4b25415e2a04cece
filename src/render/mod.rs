//! Object → table row functions, per kind (k9s's `render` package; the column logic follows
//! kubectl's `pkg/printers/internalversion/printers.go` and, for custom resources, the
//! apiextensions-apiserver table convertor driven by `additionalPrinterColumns`).
//!
//! Everything here is a pure function of a [`DynamicObject`]: no I/O, no clock (times are kept as
//! unix seconds in [`Cell::Age`] / [`Cell::Restarts`] / [`Cell::Elapsed`] and turned into "5m"
//! at draw time by [`Cell::display`]), and no panics on any input: a missing or mistyped field
//! shows as kubectl shows it (`<none>`, `<unknown>`, `0`, or an empty cell).
//!
//! - [`columns`] / [`row`]: the table for a Kind (cells in column order, without NAMESPACE).
//! - [`prune`]: the cache transform that keeps only what rows, indexes and drill-down read;
//!   `row(kind, &prune(kind, obj)) == row(kind, &obj)` holds for every kind.
//! - [`to_yaml`] / [`describe`]: the `y` and `d` views (fed by a full GET, not the cache).

use kube::api::DynamicObject;

mod cell;
mod crd;
mod describe;
pub mod history_mask;
pub mod jsonpath;
pub mod metrics;
pub mod node_detail;
mod pod;
mod prune;
pub mod resources;
pub mod view_mask;
pub use resources::{ColumnDef, wide_columns};
mod yaml;

pub use cell::*;
pub use crd::{PrinterColumn, printer_columns_from_crd};
pub use describe::{describe, describe_at};
pub use history_mask::{decode_mask as history_decode_mask, history_mask};
pub use jsonpath::{JsonPath, JsonPathError};
pub use pod::{PodSummary, pod_health, pod_phase_reason};
pub use prune::{mask as cache_mask, pod_uses, prune};
pub use yaml::to_yaml;

/// The columns for `kind` (a Kind such as `"Pod"`). With `printer_columns` (a custom resource's
/// `additionalPrinterColumns`, see [`printer_columns_from_crd`]) the columns are NAME followed by
/// those; kinds without a dedicated printer get NAME AGE.
pub fn columns(kind: &str, printer_columns: Option<&[PrinterColumn]>) -> Vec<Column> {
    if let Some(pcs) = printer_columns {
        return crd::custom_columns(pcs);
    }
    if let Some(t) = resources::table(kind) {
        return t.columns();
    }
    match kind {
        "Pod" => pod::columns(),
        "CustomResourceDefinition" => crd::crd_columns(),
        _ => name_age_columns(),
    }
}

/// The row for `obj` of kind `kind`, cells in [`columns`] order. Never panics: missing or
/// malformed fields render as kubectl renders them.
pub fn row(kind: &str, obj: &DynamicObject, printer_columns: Option<&[PrinterColumn]>) -> Row {
    // A packed ReplicaSet's columns read its data as it was.
    let obj = &*crate::informer::cached::unpacked(obj);
    if let Some(pcs) = printer_columns {
        return crd::custom_row(obj, pcs);
    }
    if let Some(t) = resources::table(kind) {
        return t.row(obj);
    }
    match kind {
        "Pod" => pod::row(obj),
        "CustomResourceDefinition" => crd::crd_row(obj),
        _ => name_age_row(obj),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cmp::Ordering;

    #[test]
    fn format_age_matches_kubectl_human_duration() {
        let cases = [
            (-5, "<invalid>"),
            (-1, "0s"),
            (0, "0s"),
            (45, "45s"),
            (119, "119s"),
            (120, "2m"),
            (310, "5m10s"),
            (599, "9m59s"),
            (600, "10m"),
            (179 * 60 + 59, "179m"),
            (3 * 3600 + 2 * 60, "3h2m"),
            (5 * 3600, "5h"),
            (8 * 3600, "8h"),
            (47 * 3600 + 59 * 60, "47h"),
            (48 * 3600, "2d"),
            (2 * 86400 + 5 * 3600, "2d5h"),
            (7 * 86400 + 23 * 3600, "7d23h"),
            (8 * 86400, "8d"),
            (45 * 86400, "45d"),
            (729 * 86400, "729d"),
            (730 * 86400, "2y"),
            (770 * 86400, "2y40d"),
            (8 * 365 * 86400, "8y"),
            (20 * 365 * 86400 + 100 * 86400, "20y"),
        ];
        for (secs, want) in cases {
            assert_eq!(format_age(secs), want, "format_age({secs})");
        }
    }

    #[test]
    fn cell_display_renders_ages_against_now() {
        assert_eq!(Cell::Age(Some(1000)).display(1310), "5m10s");
        assert_eq!(Cell::Age(None).display(1310), "<unknown>");
        assert_eq!(Cell::Ratio(1, 2).display(0), "1/2");
        assert_eq!(Cell::Restarts(5, Some(880)).display(1000), "5 (2m ago)");
        assert_eq!(Cell::Restarts(0, Some(880)).display(1000), "0");
        assert_eq!(Cell::Restarts(3, None).display(1000), "3");
        assert_eq!(
            Cell::Elapsed {
                start: 0,
                end: Some(30)
            }
            .display(1000),
            "30s"
        );
        assert_eq!(
            Cell::Elapsed {
                start: 0,
                end: None
            }
            .display(150),
            "2m30s"
        );
    }

    #[test]
    fn cmp_for_sort_orders_numbers_numerically_and_ages_youngest_first() {
        assert_eq!(Cell::Int(9).cmp_for_sort(&Cell::Int(10)), Ordering::Less);
        assert_eq!(
            Cell::text("9").cmp_for_sort(&Cell::text("10")),
            Ordering::Greater
        );
        // created at 200 is younger than created at 100
        assert_eq!(
            Cell::Age(Some(200)).cmp_for_sort(&Cell::Age(Some(100))),
            Ordering::Less
        );
        assert_eq!(
            Cell::Age(None).cmp_for_sort(&Cell::Age(Some(100))),
            Ordering::Greater
        );
        assert_eq!(
            Cell::Ratio(2, 3).cmp_for_sort(&Cell::Ratio(10, 10)),
            Ordering::Less
        );
        assert_eq!(
            Cell::Restarts(2, None).cmp_for_sort(&Cell::Restarts(10, Some(5))),
            Ordering::Less
        );
    }

    #[test]
    fn format_labels_sorts_by_key() {
        let v = serde_json::json!({"b": "2", "a": "1"});
        assert_eq!(format_labels(Some(&v)), "a=1,b=2");
        assert_eq!(format_labels(None), "<none>");
        assert_eq!(format_labels(Some(&serde_json::json!({}))), "<none>");
    }
}
