//! Verifying an informer's cache against the server: a fresh consistent list compared by key and
//! resourceVersion (`:verify`).
//!
//! client-go counterpart: `tools/cache/data_consistency_detector.go`
//! (`CheckDataConsistency`), which, when `KUBE_WATCHLIST_INCONSISTENCY_DETECTOR` is set, lists
//! at the RV a streaming list ended at and panics if the store differs. Here the check is asked
//! for by the user (or on a period), reads the server's current state, and reports what differs.
//!
//! Invariants:
//! - the list is a consistent read (resourceVersion ""), paged at the reflector's page size, in
//!   the informer's encoding (the lister-watcher's, protobuf where it uses it);
//! - a difference is one of: `Missing` (on the server, not in the cache), `Extra` (in the cache,
//!   not on the server), `Older` (the cache's RV is lower than the server's). A cached object
//!   newer than the list (changed after its snapshot: RV above the list's) is not a difference;
//! - RVs are compared as integers when both are; otherwise any difference is `Older`.
//!
//! # Where this differs from client-go, and why
//! - **On demand, against the current state**: client-go checks once, at the list's RV, in
//!   tests and CI. A dashboard's user asks "is what I see true?" now; the answer relists when
//!   it is not, instead of panicking.

use std::collections::BTreeMap;

use super::list_watch::{ListOptions, ListerWatcher};
use super::store::{meta_namespace_key, resource_version};
use super::{Error, Object};

/// How one object differs between the cache and the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DifferenceKind {
    /// On the server, not in the cache.
    Missing,
    /// In the cache, not on the server.
    Extra,
    /// In both, the cache's resourceVersion older than the server's.
    Older,
}

impl DifferenceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DifferenceKind::Missing => "missing",
            DifferenceKind::Extra => "extra",
            DifferenceKind::Older => "older",
        }
    }
}

/// One object that differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    pub key: String,
    pub kind: DifferenceKind,
    /// The cache's RV (`None`: missing from the cache).
    pub cached: Option<String>,
    /// The server's RV (`None`: not on the server).
    pub server: Option<String>,
}

/// The outcome of a verification.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verification {
    /// The list's resourceVersion.
    pub resource_version: String,
    /// Objects on the server (the list's length).
    pub server_objects: usize,
    /// Objects found the same in both.
    pub matched: usize,
    /// What differs, by key.
    pub differences: Vec<Difference>,
}

/// Compare the cache (`key → RV`, read after the list) with a list of the server (`key → RV`,
/// at `list_rv`); `cache_rv` is the RV the cache was synced to before the list was asked. A
/// consistent list is at least as new as anything served before it, so a `cache_rv` above the
/// list's means the server's history went back: then no allowance is made for cached objects
/// newer than the list (otherwise they changed after it).
pub fn compare(
    cached: &BTreeMap<String, String>,
    cache_rv: &str,
    server: &BTreeMap<String, String>,
    list_rv: &str,
) -> Verification {
    let as_n = |rv: &str| rv.parse::<u64>().ok();
    let list_n = as_n(list_rv);
    let rewound = matches!((as_n(cache_rv), list_n), (Some(c), Some(l)) if c > l);
    let mut out = Verification {
        resource_version: list_rv.to_string(),
        server_objects: server.len(),
        ..Verification::default()
    };
    for (key, srv) in server {
        match cached.get(key) {
            None => out.differences.push(Difference {
                key: key.clone(),
                kind: DifferenceKind::Missing,
                cached: None,
                server: Some(srv.clone()),
            }),
            Some(c) if c == srv => out.matched += 1,
            Some(c) => {
                let newer = !rewound && matches!((as_n(c), as_n(srv)), (Some(c), Some(s)) if c > s);
                if newer {
                    // Changed after the list's snapshot: the cache is ahead, not wrong.
                    out.matched += 1;
                } else {
                    out.differences.push(Difference {
                        key: key.clone(),
                        kind: DifferenceKind::Older,
                        cached: Some(c.clone()),
                        server: Some(srv.clone()),
                    });
                }
            }
        }
    }
    for (key, c) in cached {
        if server.contains_key(key) {
            continue;
        }
        let after_list = !rewound && matches!((as_n(c), list_n), (Some(c), Some(l)) if c > l);
        if !after_list {
            out.differences.push(Difference {
                key: key.clone(),
                kind: DifferenceKind::Extra,
                cached: Some(c.clone()),
                server: None,
            });
        }
    }
    out.differences.sort_by(|a, b| a.key.cmp(&b.key));
    out
}

/// List the server consistently through `lw` (paged by `page_size`, with the informer's
/// selectors) and compare with the cache as `cached` reads it once the list is in; `cache_rv`
/// is the cache's RV before the list (see [`compare`]).
pub async fn verify<K: Object>(
    lw: &dyn ListerWatcher<K>,
    cached: impl FnOnce() -> BTreeMap<String, String>,
    cache_rv: &str,
    page_size: u32,
    label_selector: Option<String>,
    field_selector: Option<String>,
) -> Result<Verification, Error> {
    let first = ListOptions {
        label_selector,
        field_selector,
        limit: (page_size > 0).then_some(page_size),
        continue_token: None,
        resource_version: Some(String::new()),
        resource_version_match: None,
    };
    let mut opts = first.clone();
    let mut server: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let page = {
            let mut sink = |obj: K| {
                if let Ok(key) = meta_namespace_key(&obj) {
                    server.insert(key, resource_version(&obj).to_string());
                }
            };
            lw.list_each(&opts, &mut sink).await?
        };
        match page.continue_token {
            Some(token) if !token.is_empty() => {
                opts = ListOptions {
                    continue_token: Some(token),
                    resource_version: None,
                    ..first.clone()
                };
            }
            _ => {
                return Ok(compare(
                    &cached(),
                    cache_rv,
                    &server,
                    &page.resource_version,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_cache_equal_to_the_server_matches() {
        let both = map(&[("default/a", "5"), ("default/b", "6")]);
        let v = compare(&both, "10", &both, "10");
        assert_eq!((v.matched, v.server_objects), (2, 2));
        assert!(v.differences.is_empty());
    }

    #[test]
    fn an_object_only_on_the_server_is_missing() {
        let v = compare(
            &map(&[("default/a", "5")]),
            "10",
            &map(&[("default/a", "5"), ("default/b", "6")]),
            "10",
        );
        assert_eq!(
            v.differences,
            vec![Difference {
                key: "default/b".into(),
                kind: DifferenceKind::Missing,
                cached: None,
                server: Some("6".into()),
            }]
        );
    }

    #[test]
    fn an_object_only_in_the_cache_is_extra_unless_newer_than_the_list() {
        let v = compare(
            &map(&[
                ("default/a", "5"),
                ("default/gone", "7"),
                ("default/new", "12"),
            ]),
            "10",
            &map(&[("default/a", "5")]),
            "10",
        );
        assert_eq!(
            v.differences,
            vec![Difference {
                key: "default/gone".into(),
                kind: DifferenceKind::Extra,
                cached: Some("7".into()),
                server: None,
            }],
            "default/new was created after the list's snapshot"
        );
    }

    #[test]
    fn a_cache_synced_past_the_list_gets_no_allowance() {
        // The server's history went back: RV 12 in the cache is from the old history.
        let v = compare(
            &map(&[("default/a", "12")]),
            "12",
            &map(&[("default/a", "3")]),
            "4",
        );
        assert_eq!(v.differences.len(), 1);
        assert_eq!(v.differences[0].kind, DifferenceKind::Older);
    }

    #[test]
    fn a_cached_object_behind_the_server_is_older_and_one_ahead_is_not() {
        let v = compare(
            &map(&[("default/a", "5"), ("default/b", "9")]),
            "10",
            &map(&[("default/a", "8"), ("default/b", "6")]),
            "10",
        );
        assert_eq!(v.matched, 1);
        assert_eq!(
            v.differences,
            vec![Difference {
                key: "default/a".into(),
                kind: DifferenceKind::Older,
                cached: Some("5".into()),
                server: Some("8".into()),
            }]
        );
    }
}
