//! What the user sees of a list in progress: its progress as the header, the table title, the
//! informer panel and the DeltaFIFO log say it (objects received, MB and MB/s, a percentage where
//! the total is known, `~` before an estimated total), and whether a view's rows are a partial
//! list (filters say `so far`) or the previous list's, kept until a relist replaces them (stale).
//!
//! k9s counterpart: none — k9s shows nothing until its informer has synced (k9s #1462, #3245).
//! Pure: built by the runtime from the reflector's list progress, read by the draw code.

use crate::informer::listing::ListTotal;
use crate::ui::action::InformerRow;

/// A list in progress, as the informer row carries it to the app.
#[derive(Debug, Clone, PartialEq)]
pub struct ListingProgress {
    /// Objects received so far.
    pub objects: u64,
    /// Body bytes received so far (when counted).
    pub bytes: Option<u64>,
    /// Bytes per second since the list started (when counted).
    pub bytes_per_sec: Option<f64>,
    pub total: Option<ListTotal>,
}

impl ListingProgress {
    /// Percent received, when a total is known (an estimate exceeded shows 99%: the list is not
    /// over until it is).
    pub fn percent(&self) -> Option<u64> {
        let total = self.total?.count();
        (total > 0).then(|| (self.objects.saturating_mul(100) / total).min(99))
    }

    /// `12,345 of ~30,000 (41%)`, `12,345 of 30,000 (41%)`, or `12,345` without a total.
    pub fn count_text(&self) -> String {
        let mut s = thousands(self.objects);
        if let Some(total) = self.total {
            let tilde = if matches!(total, ListTotal::Estimate(_)) {
                "~"
            } else {
                ""
            };
            s.push_str(&format!(" of {tilde}{}", thousands(total.count())));
            if let Some(p) = self.percent() {
                s.push_str(&format!(" ({p}%)"));
            }
        }
        s
    }

    /// `35.2 MB at 12.1 MB/s` (`None` when bytes are not counted).
    pub fn bytes_text(&self) -> Option<String> {
        let bytes = self.bytes?;
        Some(match self.bytes_per_sec {
            Some(rate) => format!("{} at {}/s", megabytes(bytes as f64), megabytes(rate)),
            None => megabytes(bytes as f64),
        })
    }

    /// The header's and the informer panel's text: `12,345 of ~30,000 (41%) │ 35.2 MB at 12.1 MB/s`.
    pub fn text(&self) -> String {
        match self.bytes_text() {
            Some(b) => format!("{} │ {b}", self.count_text()),
            None => self.count_text(),
        }
    }

    /// The table title's badge: `listing 41%`, `listing 12,345` without a total.
    pub fn badge(&self) -> String {
        match self.percent() {
            Some(p) => format!("listing {p}%"),
            None => format!("listing {}", thousands(self.objects)),
        }
    }
}

/// The current context's informers still listing, for the DeltaFIFO log's title (their
/// deltas come when their list ends): `listing: pods 41%, services 120`.
pub fn listing_note(informers: &[InformerRow]) -> Option<String> {
    let listing: Vec<String> = informers
        .iter()
        .filter(|r| r.cluster.is_none())
        .filter_map(|r| {
            let p = r.progress.as_ref()?;
            Some(match p.percent() {
                Some(pc) => format!("{} {pc}%", r.resource),
                None => format!("{} {}", r.resource, thousands(p.objects)),
            })
        })
        .collect();
    (!listing.is_empty()).then(|| format!("listing: {}", listing.join(", ")))
}

/// `1,234,567`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Decimal megabytes, as transfer rates are quoted: `35.2 MB`, `0.4 MB`.
fn megabytes(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(objects: u64, total: Option<ListTotal>) -> ListingProgress {
        ListingProgress {
            objects,
            bytes: Some(35_200_000),
            bytes_per_sec: Some(12_100_000.0),
            total,
        }
    }

    #[test]
    fn an_estimated_total_is_marked_and_an_exact_one_is_not() {
        assert_eq!(
            progress(12_345, Some(ListTotal::Estimate(30_000))).text(),
            "12,345 of ~30,000 (41%) │ 35.2 MB at 12.1 MB/s"
        );
        assert_eq!(
            progress(500, Some(ListTotal::Exact(2_000))).count_text(),
            "500 of 2,000 (25%)"
        );
        assert_eq!(progress(7, None).count_text(), "7");
        assert_eq!(progress(7, None).badge(), "listing 7");
        assert_eq!(
            progress(1_500, Some(ListTotal::Estimate(1_000))).badge(),
            "listing 99%",
            "past an estimate the list is still not done"
        );
    }

    #[test]
    fn thousands_groups_digits_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
