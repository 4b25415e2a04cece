//! List and watch answers: single objects, list bodies (JSON, protobuf, tables; pages and
//! the watch cache's rules), and watch streams (events, bookmarks, the initial-events end
//! marker, selectors entering and leaving, errors as ERROR events).

use super::*;
use crate::informer::wire_values as wv;

pub(super) fn single(
    info: &ResourceInfo,
    bytes: &Bytes,
    out: Output,
    rv: u64,
) -> Result<Response, StatusError> {
    match out {
        Output::Json | Output::Protobuf(_) => Ok(bytes_response(StatusCode::OK, bytes.clone())),
        Output::Table(inc) => {
            let v: Value =
                serde_json::from_slice(bytes).map_err(|e| StatusError::internal(e.to_string()))?;
            let t = table::table(info, vec![table::row(info, &v, inc)], rv, None);
            Ok(json_response(StatusCode::OK, &t))
        }
        Output::Metadata => {
            let v: Value =
                serde_json::from_slice(bytes).map_err(|e| StatusError::internal(e.to_string()))?;
            Ok(json_response(StatusCode::OK, &metadata_object(&v)))
        }
    }
}

/// A streamed `XxxList` body.
pub(super) fn list_body(
    info: &ResourceInfo,
    rv: u64,
    continue_token: Option<String>,
    remaining: Option<usize>,
    items: Vec<Arc<Stored>>,
    send_rate: u64,
) -> Response {
    let mut meta = json!({"resourceVersion": rv.to_string()});
    if let Some(c) = continue_token {
        meta["continue"] = json!(c);
    }
    if let Some(r) = remaining {
        meta["remainingItemCount"] = json!(r);
    }
    let head = format!(
        "{{\"kind\":\"{}List\",\"apiVersion\":\"{}\",\"metadata\":{},\"items\":[",
        info.kind,
        info.api_version(),
        meta
    );
    let stream = async_stream::stream! {
        yield Ok::<Bytes, std::io::Error>(Bytes::from(head));
        let mut buf: Vec<u8> = Vec::with_capacity(64 * 1024);
        for (i, s) in items.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            buf.extend_from_slice(&s.bytes);
            if buf.len() >= 64 * 1024 {
                yield Ok(Bytes::from(std::mem::take(&mut buf)));
                buf.reserve(64 * 1024);
            }
        }
        buf.extend_from_slice(b"]}");
        yield Ok(Bytes::from(buf));
    };
    let stream = crate::demo::faults::paced(
        send_rate,
        |c: &Result<Bytes, std::io::Error>| c.as_ref().map_or(0, Bytes::len),
        stream,
    );
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}

/// apimachinery's `ValidateListOptions` (meta/internalversion/validation) over the query: the field
/// errors, in its order, that kube-apiserver answers with a 422 `ListOptions.meta.k8s.io "" is
/// invalid` before reading anything. `watch` picks `validateWatchOptions` (the WatchList feature gate
/// is on, as from 1.32).
fn list_options_errors(q: &Params, watch: bool) -> Vec<(&'static str, &'static str, String)> {
    let rv = param(q, "resourceVersion").unwrap_or("");
    let rvm = param(q, "resourceVersionMatch").unwrap_or("");
    let cont = param(q, "continue").unwrap_or("");
    // Present at all, whatever its value: the Go field is a *bool.
    let send_initial = param(q, "sendInitialEvents").is_some();
    let forbidden = |field, detail: &str| {
        (
            field,
            wv::CAUSE_FIELD_VALUE_FORBIDDEN,
            format!("Forbidden: {detail}"),
        )
    };
    let not_supported = |field, value: &str, supported: &[&str]| {
        let list: Vec<String> = supported.iter().map(|v| format!("{v:?}")).collect();
        (
            field,
            wv::CAUSE_FIELD_VALUE_NOT_SUPPORTED,
            format!(
                "Unsupported value: {value:?}: supported values: {}",
                list.join(", ")
            ),
        )
    };
    let mut errs = Vec::new();
    if watch {
        if send_initial && rvm != "NotOlderThan" {
            errs.push(forbidden(
                "resourceVersionMatch",
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        if !rvm.is_empty() {
            if !send_initial {
                errs.push(forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
                ));
            }
            if rvm != "NotOlderThan" {
                errs.push(not_supported(
                    "resourceVersionMatch",
                    rvm,
                    &["NotOlderThan"],
                ));
            }
            if !cont.is_empty() {
                errs.push(forbidden(
                    "resourceVersionMatch",
                    "resourceVersionMatch is forbidden when continue is provided",
                ));
            }
        }
        return errs;
    }
    if !rvm.is_empty() {
        if rv.is_empty() {
            errs.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if !cont.is_empty() {
            errs.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if rvm != "Exact" && rvm != "NotOlderThan" {
            errs.push(not_supported(
                "resourceVersionMatch",
                rvm,
                &["Exact", "NotOlderThan", ""],
            ));
        }
        if rvm == "Exact" && rv == "0" {
            errs.push(forbidden(
                "resourceVersionMatch",
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if send_initial {
        errs.push(forbidden(
            "sendInitialEvents",
            "sendInitialEvents is forbidden for list",
        ));
    }
    errs
}

pub(super) fn list_handler(
    app: &Arc<App>,
    t: &Target,
    q: &Params,
    out: Output,
) -> Result<Response, StatusError> {
    let info = &RESOURCES[t.idx];
    let filter = Filter::new(info, t.ns.clone(), q)?;
    let rv = param(q, "resourceVersion");
    let rvm = param(q, "resourceVersionMatch");
    let cont = param(q, "continue");
    let limit = param(q, "limit")
        .map(|l| {
            l.parse::<i64>()
                .map_err(|_| StatusError::bad_request(format!("invalid limit: {l:?}")))
        })
        .transpose()?
        .filter(|l| *l > 0)
        .map(|l| usize::try_from(l).unwrap_or(usize::MAX));
    let errs = list_options_errors(q, false);
    if !errs.is_empty() {
        return Err(StatusError::invalid_list_options(&errs));
    }
    if cont.is_some() && rv.is_some_and(|r| r != "0") {
        return Err(StatusError::bad_request(
            "specifying resource version is not allowed when using continue",
        ));
    }
    // Which state is read, as kube-apiserver decides (cacher's `shouldDelegateList`): a continue
    // token, `Exact`, or an RV with a limit and no match (the legacy exact read kept for paging)
    // read etcd at that RV; "" is a consistent read (paged); "0", `NotOlderThan` and an RV without
    // a limit are answered whole by the watch cache, which ignores `limit`, with data at least as
    // new as the RV.
    let (at, after, continuing, limit) = match (cont, rv.filter(|r| !r.is_empty())) {
        (Some(c), _) => {
            let (rv, key) = decode_continue(c)?;
            (ReadAt::Exact(rv), Some(key), true, limit)
        }
        (None, None) => (ReadAt::Latest, None, false, limit),
        (None, Some("0")) => (ReadAt::Latest, None, false, None),
        (None, Some(r)) => {
            let n = parse_rv(r)?;
            if rvm == Some("Exact") || (rvm.is_none() && limit.is_some()) {
                (ReadAt::Exact(n), None, false, limit)
            } else {
                let cur = app.cluster.resource_version();
                if n > cur {
                    return Err(StatusError::too_large_resource_version(n, cur));
                }
                (ReadAt::Latest, None, false, None)
            }
        }
    };
    if app.faults.take_gone_list() {
        return Err(StatusError::expired(
            "The resourceVersion for the provided list is too old.",
        ));
    }
    let req = PageRequest {
        ns: t.ns.as_deref(),
        at,
        after: after.as_deref(),
        limit,
        continuing,
    };
    let page = app.cluster.list_page(t.idx, &req, &|s| filter.matches(s))?;
    // etcd3's store counts what follows a page when nothing filters the list (kube-apiserver
    // sends `remainingItemCount` only then).
    let remaining = match &page.continue_token {
        Some(token)
            if filter.labels.requirements.is_empty() && filter.fields.requirements.is_empty() =>
        {
            let (_, last) = decode_continue(token)?;
            Some(app.cluster.count_after(t.idx, t.ns.as_deref(), &last))
        }
        _ => None,
    };
    match out {
        Output::Json => Ok(list_body(
            info,
            page.rv,
            page.continue_token,
            remaining,
            page.items,
            app.faults.send_rate(),
        )),
        Output::Protobuf(msg) => Ok(crate::demo::wire::list(
            info,
            msg,
            page.rv,
            page.continue_token.clone(),
            remaining,
            page.items.clone(),
            app.faults.send_rate_for(true),
        )
        .unwrap_or_else(|| {
            list_body(
                info,
                page.rv,
                page.continue_token,
                remaining,
                page.items,
                app.faults.send_rate(),
            )
        })),
        Output::Table(inc) => {
            let rows = page
                .items
                .iter()
                .filter_map(|s| s.value().ok())
                .map(|v| table::row(info, &v, inc))
                .collect();
            let t = table::table(info, rows, page.rv, page.continue_token.as_deref());
            Ok(json_response(StatusCode::OK, &t))
        }
        Output::Metadata => {
            let items: Vec<Value> = page
                .items
                .iter()
                .filter_map(|s| s.value().ok())
                .map(|v| metadata_object(&v))
                .collect();
            let mut meta = json!({"resourceVersion": page.rv.to_string()});
            if let Some(c) = page.continue_token {
                meta["continue"] = json!(c);
            }
            Ok(json_response(
                StatusCode::OK,
                &json!({"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1",
                        "metadata": meta, "items": items}),
            ))
        }
    }
}

/// One watch event for a stored object version (its protobuf encoding is kept with it).
pub(super) fn stored_event(info: &ResourceInfo, kind: &str, s: &Stored, out: Output) -> Bytes {
    if let Output::Protobuf(msg) = out
        && let Some(raw) = crate::demo::wire::encoded(s, msg)
    {
        return crate::demo::wire::event_frame(info, kind, &raw);
    }
    event_line(info, kind, &s.bytes, out, s.rv)
}

/// Serialize one watch event line.
pub(super) fn event_line(
    info: &ResourceInfo,
    kind: &str,
    obj: &Bytes,
    out: Output,
    rv: u64,
) -> Bytes {
    if let Output::Protobuf(msg) = out {
        return crate::demo::wire::event(info, kind, obj, msg);
    }
    let mut line = Vec::with_capacity(obj.len() + 40);
    line.extend_from_slice(b"{\"type\":\"");
    line.extend_from_slice(kind.as_bytes());
    line.extend_from_slice(b"\",\"object\":");
    match out {
        Output::Json | Output::Protobuf(_) => line.extend_from_slice(obj),
        Output::Table(_) | Output::Metadata if kind != "BOOKMARK" && kind != "ERROR" => {
            let v: Value = serde_json::from_slice(obj).unwrap_or(Value::Null);
            let converted = if let Output::Table(inc) = out {
                table::table(info, vec![table::row(info, &v, inc)], rv, None)
            } else {
                metadata_object(&v)
            };
            line.extend_from_slice(&serde_json::to_vec(&converted).unwrap_or_default());
        }
        _ => line.extend_from_slice(obj),
    }
    line.extend_from_slice(b"}\n");
    Bytes::from(line)
}

pub(super) fn bookmark(info: &ResourceInfo, rv: u64, initial_end: bool) -> Bytes {
    let mut meta = json!({"resourceVersion": rv.to_string(), "creationTimestamp": null});
    if initial_end {
        meta["annotations"] = json!({ wv::INITIAL_EVENTS_END_ANNOTATION: "true" });
    }
    let obj = json!({"kind": info.kind, "apiVersion": info.api_version(), "metadata": meta});
    Bytes::from(serde_json::to_vec(&obj).unwrap_or_default())
}

pub(super) fn error_event(e: &StatusError) -> Bytes {
    let line = json!({"type": "ERROR", "object": e.to_status()});
    let mut b = serde_json::to_vec(&line).unwrap_or_default();
    b.push(b'\n');
    Bytes::from(b)
}

pub(super) fn watch_body_for(
    stream: impl futures::Stream<Item = Bytes> + Send + 'static,
    out: Output,
) -> Response {
    match out {
        Output::Protobuf(_) => crate::demo::wire::watch_body(stream),
        _ => watch_body(stream),
    }
}

pub(super) fn error_event_for(e: &StatusError, out: Output) -> Bytes {
    match out {
        Output::Protobuf(_) => crate::demo::wire::error_event(e),
        _ => error_event(e),
    }
}

pub(super) fn watch_body(stream: impl futures::Stream<Item = Bytes> + Send + 'static) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json"),
            (header::CACHE_CONTROL, "no-cache, private"),
        ],
        Body::from_stream(stream.map(Ok::<Bytes, std::io::Error>)),
    )
        .into_response()
}

pub(super) fn watch_handler(
    app: &Arc<App>,
    t: &Target,
    q: &Params,
    out: Output,
) -> Result<Response, StatusError> {
    let info: &'static ResourceInfo = &RESOURCES[t.idx];
    let mut filter = Filter::new(info, t.ns.clone(), q)?;
    if let Some(name) = &t.name {
        // GET .../pods/NAME?watch=true is a watch on that single object.
        filter
            .fields
            .requirements
            .push(crate::selector::FieldRequirement {
                field: "metadata.name".into(),
                op: crate::selector::FieldOperator::Equals,
                value: name.clone(),
            });
    }
    let rv = param(q, "resourceVersion");
    let bookmarks = bool_param(q, "allowWatchBookmarks")?.unwrap_or(false);
    let send_initial = bool_param(q, "sendInitialEvents")?;
    let timeout = match param(q, "timeoutSeconds") {
        Some(s) => Duration::from_secs(
            s.parse::<u64>()
                .map_err(|_| StatusError::bad_request(format!("invalid timeoutSeconds: {s:?}")))?,
        ),
        None => {
            let min = app.opts.min_request_timeout;
            min + min.mul_f64(rand::random::<f64>())
        }
    };
    let errs = list_options_errors(q, true);
    if !errs.is_empty() {
        return Err(StatusError::invalid_list_options(&errs));
    }
    if send_initial.is_some() && !bookmarks {
        // The watch cache's own check (cacher.Watch), after validation: a 400, not a 422.
        return Err(StatusError::bad_request(
            "sendInitialEvents requires setting allowWatchBookmarks to true",
        ));
    }
    let rv_num = match rv {
        None | Some("0") => None,
        Some(r) => Some(parse_rv(r)?),
    };
    if send_initial == Some(true) && app.opts.watch_list_unsupported {
        let e = StatusError::new(
            500,
            wv::REASON_INTERNAL_ERROR,
            "a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled",
        );
        return Ok(watch_body_for(
            futures::stream::once(async move { error_event_for(&e, out) }),
            out,
        ));
    }
    let (from, initial) = match send_initial {
        Some(true) => {
            if let Some(n) = rv_num {
                let cur = app.cluster.resource_version();
                if n > cur {
                    return Err(StatusError::too_large_resource_version(n, cur));
                }
            }
            (None, true)
        }
        Some(false) => (rv_num.or(Some(app.cluster.resource_version())), false),
        None => match rv_num {
            Some(n) => (Some(n), false),
            None => (None, true),
        },
    };
    if app.faults.take_gone_watch() {
        let e = StatusError::expired(format!(
            "too old resource version: {} ({})",
            rv_num.unwrap_or(0),
            app.cluster.resource_version()
        ));
        return Ok(watch_body_for(
            futures::stream::once(async move { error_event_for(&e, out) }),
            out,
        ));
    }
    if app.faults.take_store_read_error_watch() {
        let e = StatusError::store_read_error(info.kind);
        return Ok(watch_body_for(
            futures::stream::once(async move { error_event_for(&e, out) }),
            out,
        ));
    }
    let start = match app.cluster.watch(t.idx, t.ns.as_deref(), from, initial) {
        Ok(s) => s,
        Err(e) if e.code == 410 => {
            return Ok(watch_body_for(
                futures::stream::once(async move { error_event_for(&e, out) }),
                out,
            ));
        }
        Err(e) => return Err(e),
    };
    let mut drop_rx = app.faults.drop_signal();
    let bookmark_every = app.opts.bookmark_interval;
    let idx = t.idx;
    let min_rv = from.unwrap_or(start.rv);
    let initial_end = send_initial == Some(true);
    let stream = async_stream::stream! {
        let crate::demo::cluster::WatchStart { initial, backlog, mut rx, rv: start_rv } = start;
        drop_rx.borrow_and_update();
        for s in &initial {
            if filter.matches(s) {
                yield stored_event(info, "ADDED", s, out);
            }
        }
        if initial_end {
            yield event_line(info, "BOOKMARK", &bookmark(info, start_rv, true), out, start_rv);
        }
        let mut progress = start_rv.max(min_rv);
        for ev in &backlog {
            if ev.rv <= min_rv {
                continue;
            }
            if let Some(line) = translate(info, ev, &filter, out) {
                yield line;
            }
        }
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut ticker = tokio::time::interval_at(
            tokio::time::Instant::now() + bookmark_every,
            bookmark_every,
        );
        loop {
            tokio::select! {
                r = rx.recv() => match r {
                    Ok(ev) => {
                        if ev.rv <= progress {
                            continue;
                        }
                        progress = ev.rv;
                        if ev.resource != idx {
                            continue;
                        }
                        if let Some(line) = translate(info, &ev, &filter, out) {
                            yield line;
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(n)) => {
                        tracing::debug!(n, "watcher fell behind; closing its watch");
                        break;
                    }
                    Err(broadcast::error::RecvError::Closed) => break,
                },
                _ = ticker.tick(), if bookmarks => {
                    yield event_line(info, "BOOKMARK", &bookmark(info, progress, false), out, progress);
                }
                _ = &mut deadline => break,
                _ = drop_rx.changed() => break,
            }
        }
    };
    Ok(watch_body_for(
        crate::demo::faults::paced(
            app.faults.send_rate_for(matches!(out, Output::Protobuf(_))),
            Bytes::len,
            stream,
        ),
        out,
    ))
}

/// Apply the watcher's selectors to one event (enter = ADDED, leave = DELETED).
pub(super) fn translate(
    info: &ResourceInfo,
    ev: &crate::demo::cluster::Event,
    f: &Filter,
    out: Output,
) -> Option<Bytes> {
    let now = f.matches(&ev.obj);
    match ev.kind {
        EventType::Added => now.then(|| stored_event(info, "ADDED", &ev.obj, out)),
        EventType::Deleted => {
            let was = ev.prev.as_ref().is_some_and(|p| f.matches(p)) || now;
            was.then(|| stored_event(info, "DELETED", &ev.obj, out))
        }
        EventType::Modified => {
            let was = ev.prev.as_ref().is_some_and(|p| f.matches(p));
            match (was, now) {
                (true, true) => Some(stored_event(info, "MODIFIED", &ev.obj, out)),
                (false, true) => Some(stored_event(info, "ADDED", &ev.obj, out)),
                (true, false) => {
                    let prev = ev.prev.as_ref()?;
                    let bytes = with_rv(prev, ev.rv).ok()?;
                    Some(event_line(info, "DELETED", &bytes, out, ev.rv))
                }
                (false, false) => None,
            }
        }
    }
}
