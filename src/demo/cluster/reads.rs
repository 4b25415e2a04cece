//! Reads as kube-apiserver serves them: the consistency a read asks for (`ReadAt`: the watch
//! cache, an exact resourceVersion, the latest from etcd), paged lists with continue tokens,
//! and watches from a resourceVersion.

use super::*;

#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct ContinueToken {
    v: String,
    rv: u64,
    start: String,
}

/// Encode a continue token the way kube-apiserver's etcd3 store does.
pub(super) fn encode_continue(rv: u64, last_key: &str) -> String {
    let t = ContinueToken {
        v: "meta.k8s.io/v1".into(),
        rv,
        start: format!("{last_key}\u{0}"),
    };
    let raw = serde_json::to_vec(&t).unwrap_or_default();
    base64::engine::general_purpose::URL_SAFE.encode(raw)
}

/// Decode a continue token into (rv, last key returned).
pub fn decode_continue(token: &str) -> Result<(u64, String), StatusError> {
    let invalid = |why: &str| StatusError::bad_request(format!("continue key is not valid: {why}"));
    let raw = base64::engine::general_purpose::URL_SAFE
        .decode(token)
        .or_else(|_| base64::engine::general_purpose::STANDARD.decode(token))
        .map_err(|_| invalid("incorrect encoded start resourceVersion (version meta.k8s.io/v1)"))?;
    let t: ContinueToken =
        serde_json::from_slice(&raw).map_err(|_| invalid("cannot decode token"))?;
    if t.v != "meta.k8s.io/v1" {
        return Err(invalid("server does not recognize this encoded key"));
    }
    let Some(start) = t.start.strip_suffix('\u{0}') else {
        return Err(invalid("start key is malformed"));
    };
    if t.rv == 0 {
        return Err(invalid("incorrect encoded start resourceVersion"));
    }
    Ok((t.rv, start.to_string()))
}

pub(super) fn key_bounds(ns: Option<&str>, after: Option<&str>) -> (Bound<String>, Bound<String>) {
    let (lo, hi) = match ns {
        Some(ns) => (
            Bound::Included(format!("{ns}/")),
            Bound::Excluded(format!("{ns}0")),
        ),
        None => (Bound::Unbounded, Bound::Unbounded),
    };
    let lo = match (after, &lo) {
        (Some(a), Bound::Included(l)) if a < l.as_str() => lo,
        (Some(a), _) => Bound::Excluded(a.to_string()),
        (None, _) => lo,
    };
    (lo, hi)
}

/// Whether a key range is empty (`BTreeMap::range` panics on inverted bounds).
pub(super) fn bounds_empty(b: &(Bound<String>, Bound<String>)) -> bool {
    match b {
        (Bound::Included(l) | Bound::Excluded(l), Bound::Excluded(h)) => l >= h,
        _ => false,
    }
}

impl DemoCluster {
    /// Validate a list's resourceVersion against the cluster and decide what state to read.
    pub fn check_read_at(&self, at: ReadAt) -> Result<(), StatusError> {
        let st = self.state.lock();
        if let ReadAt::Exact(rv) = at {
            if rv > st.rv {
                return Err(StatusError::too_large_resource_version(rv, st.rv));
            }
            if rv < st.compacted {
                return Err(StatusError::expired(format!(
                    "The resourceVersion for the provided list is too old. (requested {rv}, oldest available {})",
                    st.compacted
                )));
            }
        }
        Ok(())
    }

    /// List one page. `after` is the last key returned by the previous page (from a continue
    /// token, whose rv then arrives as `ReadAt::Exact`). `filter` applies the selectors.
    pub fn list_page(
        &self,
        idx: usize,
        req: &PageRequest<'_>,
        filter: &dyn Fn(&Stored) -> bool,
    ) -> Result<ListResult, StatusError> {
        let PageRequest {
            ns,
            at,
            after,
            limit,
            continuing,
        } = *req;
        let st = self.state.lock();
        let snapshot = match at {
            ReadAt::Latest => st.rv,
            ReadAt::Exact(rv) => {
                if rv < st.compacted {
                    return Err(if continuing {
                        StatusError::expired(
                            "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.",
                        )
                    } else {
                        StatusError::expired(format!(
                            "The resourceVersion for the provided list is too old. (requested {rv}, oldest available {})",
                            st.compacted
                        ))
                    });
                }
                if rv > st.rv {
                    return Err(StatusError::too_large_resource_version(rv, st.rv));
                }
                rv
            }
        };
        let bounds = key_bounds(ns, after);
        if bounds_empty(&bounds) {
            return Ok(ListResult {
                rv: snapshot,
                items: Vec::new(),
                continue_token: None,
            });
        }
        // Objects changed after the snapshot: their state at the snapshot.
        let mut overlay: BTreeMap<&str, Option<&Arc<Stored>>> = BTreeMap::new();
        if snapshot < st.rv {
            let first = st.history.partition_point(|e| e.rv <= snapshot);
            for ev in st.history.range(first..) {
                if ev.resource != idx {
                    continue;
                }
                overlay
                    .entry(ev.obj.key.as_str())
                    .or_insert(ev.prev.as_ref());
            }
        }
        let limit = limit.filter(|l| *l > 0).unwrap_or(usize::MAX);
        let mut items = Vec::new();
        let mut current = st.objects[idx].range(bounds.clone()).peekable();
        let mut past = overlay
            .range::<str, _>((
                bounds.0.as_ref().map(String::as_str),
                bounds.1.as_ref().map(String::as_str),
            ))
            .peekable();
        let mut last_key: Option<String> = None;
        let mut more = false;
        loop {
            let next: Option<Option<&Arc<Stored>>> = match (current.peek(), past.peek()) {
                (None, None) => break,
                (Some((ck, cv)), Some((pk, pv))) => {
                    if ck.as_str() < **pk {
                        let v = Some(*cv);
                        current.next();
                        Some(v)
                    } else if ck.as_str() == **pk {
                        let v = **pv;
                        current.next();
                        past.next();
                        Some(v)
                    } else {
                        let v = **pv;
                        past.next();
                        Some(v)
                    }
                }
                (Some((_, cv)), None) => {
                    let v = Some(*cv);
                    current.next();
                    Some(v)
                }
                (None, Some((_, pv))) => {
                    let v = **pv;
                    past.next();
                    Some(v)
                }
            };
            let Some(Some(obj)) = next else { continue };
            if items.len() >= limit {
                more = true;
                break;
            }
            last_key = Some(obj.key.clone());
            if filter(obj) {
                items.push(obj.clone());
            }
        }
        let continue_token = match (more, last_key) {
            (true, Some(k)) => Some(encode_continue(snapshot, &k)),
            _ => None,
        };
        Ok(ListResult {
            rv: snapshot,
            items,
            continue_token,
        })
    }

    /// Start a watch: subscribe under the lock, with the backlog after `from` (or the current
    /// state as synthetic ADDED events when `initial`).
    pub fn watch(
        &self,
        idx: usize,
        ns: Option<&str>,
        from: Option<u64>,
        initial: bool,
    ) -> Result<WatchStart, StatusError> {
        let st = self.state.lock();
        let rx = self.events.subscribe();
        let mut backlog = Vec::new();
        if let Some(from) = from {
            if from < st.compacted {
                return Err(StatusError::expired(format!(
                    "too old resource version: {from} ({})",
                    st.compacted
                )));
            }
            if from < st.watch_cache_since {
                // The watch cache holds no events before its start.
                return Err(StatusError::expired(format!(
                    "too old resource version: {from} ({})",
                    st.watch_cache_since
                )));
            }
            let first = st.history.partition_point(|e| e.rv <= from);
            backlog = st
                .history
                .range(first..)
                .filter(|e| e.resource == idx)
                .cloned()
                .collect();
        }
        let initial = if initial {
            st.objects[idx]
                .range(key_bounds(ns, None))
                .map(|(_, s)| s.clone())
                .collect()
        } else {
            Vec::new()
        };
        Ok(WatchStart {
            initial,
            backlog,
            rx,
            rv: st.rv,
        })
    }
}
