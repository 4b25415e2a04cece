use std::collections::HashMap;

use axum::extract::{Query, RawQuery};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use futures::TryStreamExt;
use k8s_openapi::api::core::v1::ConfigMap;

use super::*;

#[test]
fn malformed_objects_are_logged_by_key_never_by_content() {
    let raw = r#"{"kind":"Secret","metadata":{"name":"db","namespace":"shop","labels":7},"data":{"password":"aHVudGVyMg=="}}"#;
    let shown = identify(raw);
    assert_eq!(shown, "Secret shop/db");
    assert!(!identify(r#"{"data":"aHVudGVyMg==""#).contains("aHVudGVyMg"));
}

fn cm_json(name: &str, rv: &str) -> String {
    format!(
        r#"{{"metadata":{{"name":"{name}","namespace":"default","resourceVersion":"{rv}"}},"data":{{"k":"v"}}}}"#
    )
}

#[test]
fn list_page_skips_malformed_items_and_keeps_the_rest() {
    let body = format!(
        r#"{{"kind":"ConfigMapList","apiVersion":"v1","metadata":{{"resourceVersion":"42","continue":"tok","remainingItemCount":7}},
           "items":[{},{{"metadata":{{"name":"bad"}},"data":{{"k":17}}}},{}]}}"#,
        cm_json("a", "1"),
        cm_json("c", "3")
    );
    let page = decode_list_page::<ConfigMap>(&body).expect("envelope decodes");
    let names: Vec<_> = page
        .items
        .iter()
        .map(|o| o.metadata.name.clone().unwrap_or_default())
        .collect();
    assert_eq!(names, vec!["a", "c"]);
    assert_eq!(page.malformed, 1);
    assert_eq!(page.resource_version, "42");
    assert_eq!(page.continue_token.as_deref(), Some("tok"));
    assert_eq!(page.remaining_item_count, Some(7));
}

#[test]
fn list_page_with_null_items_and_empty_continue_is_last_page() {
    let page = decode_list_page::<ConfigMap>(
        r#"{"metadata":{"resourceVersion":"5","continue":""},"items":null}"#,
    )
    .expect("decodes");
    assert!(page.items.is_empty());
    assert_eq!(page.continue_token, None);
    assert!(matches!(
        decode_list_page::<ConfigMap>("not json"),
        Err(Error::Decode(_))
    ));
}

#[test]
fn continue_token_is_peeked_from_the_list_metadata_wherever_it_is() {
    let before = r#"{"kind":"PodList","metadata":{"resourceVersion":"5","continue":"tok"},"items":[{"a":1}]}"#;
    assert_eq!(peek_continue(before).as_deref(), Some("tok"));
    let after = r#"{"items":[{"a":1}],"metadata":{"continue":"tok2"}}"#;
    assert_eq!(peek_continue(after).as_deref(), Some("tok2"));
    assert_eq!(
        peek_continue(r#"{"metadata":{"continue":""},"items":[]}"#),
        None
    );
    assert_eq!(
        peek_continue(r#"{"metadata":{"resourceVersion":"1"}}"#),
        None
    );
    assert_eq!(peek_continue(r#"{"items":[]}"#), None);
    assert_eq!(peek_continue("not json"), None);
    assert_eq!(peek_continue(r#"{"metadata":{"continue":7}}"#), None);
}

#[test]
fn watch_lines_decode_one_event_at_a_time() {
    let added = format!(r#"{{"type":"ADDED","object":{}}}"#, cm_json("a", "1"));
    assert!(
        matches!(decode_watch_line::<ConfigMap>(&added), Some(WatchEvent::Added(o)) if o.metadata.name.as_deref() == Some("a"))
    );
    let bad = r#"{"type":"MODIFIED","object":{"metadata":{"name":"a"},"data":[1]}}"#;
    assert!(matches!(
        decode_watch_line::<ConfigMap>(bad),
        Some(WatchEvent::Malformed(_))
    ));
    assert!(matches!(
        decode_watch_line::<ConfigMap>("{garbage"),
        Some(WatchEvent::Malformed(_))
    ));
    assert!(decode_watch_line::<ConfigMap>("   ").is_none());
    let bookmark = r#"{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"99","annotations":{"k8s.io/initial-events-end":"true"}}}}"#;
    assert!(matches!(
        decode_watch_line::<ConfigMap>(bookmark),
        Some(WatchEvent::Bookmark { resource_version, initial_events_end: true }) if resource_version == "99"
    ));
    let plain = r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"100"}}}"#;
    assert!(matches!(
        decode_watch_line::<ConfigMap>(plain),
        Some(WatchEvent::Bookmark {
            initial_events_end: false,
            ..
        })
    ));
    let gone = r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (5)","reason":"Expired","code":410}}"#;
    assert!(matches!(
        decode_watch_line::<ConfigMap>(gone),
        Some(WatchEvent::Error(Error::Gone(_)))
    ));
}

#[test]
fn statuses_are_classified_like_client_go() {
    assert!(matches!(
        classify_status(410, "Expired", "x"),
        Error::Gone(_)
    ));
    assert!(matches!(classify_status(410, "Gone", "x"), Error::Gone(_)));
    assert!(matches!(
        classify_status(
            504,
            "Timeout",
            "Too large resource version: 12, current: 10"
        ),
        Error::TooLargeResourceVersion(_)
    ));
    assert!(matches!(
        classify_status(403, "Forbidden", "x"),
        Error::Forbidden(_)
    ));
    assert!(matches!(
        classify_status(429, "TooManyRequests", "x"),
        Error::TooManyRequests(_)
    ));
    assert!(matches!(
        classify_status(500, "InternalError", "x"),
        Error::Api { code: 500, .. }
    ));
}

#[test]
fn list_url_keeps_rv_zero_with_limit_and_drops_rv_with_continue() {
    let opts = ListOptions {
        label_selector: Some("app in (a,b)".into()),
        limit: Some(500),
        resource_version: Some("0".into()),
        ..ListOptions::default()
    };
    assert_eq!(
        list_url("/api/v1/pods", &opts),
        "/api/v1/pods?labelSelector=app%20in%20%28a%2Cb%29&limit=500&resourceVersion=0"
    );
    let next = ListOptions {
        continue_token: Some("abc=".into()),
        ..opts
    };
    assert_eq!(
        list_url("/api/v1/pods", &next),
        "/api/v1/pods?labelSelector=app%20in%20%28a%2Cb%29&limit=500&continue=abc%3D"
    );
    let consistent = ListOptions {
        resource_version: Some(String::new()),
        ..ListOptions::default()
    };
    assert_eq!(list_url("/api/v1/pods", &consistent), "/api/v1/pods");
}

#[test]
fn watch_url_carries_bookmarks_timeout_and_streaming_list() {
    let opts = WatchOptions {
        resource_version: Some("10".into()),
        timeout_seconds: Some(301),
        allow_watch_bookmarks: true,
        ..WatchOptions::default()
    };
    assert_eq!(
        watch_url("/api/v1/pods", &opts),
        "/api/v1/pods?watch=true&resourceVersion=10&timeoutSeconds=301&allowWatchBookmarks=true"
    );
    let streaming = WatchOptions {
        resource_version: Some(String::new()),
        send_initial_events: true,
        resource_version_match: Some("NotOlderThan".into()),
        ..opts
    };
    assert_eq!(
        watch_url("/api/v1/pods", &streaming),
        "/api/v1/pods?watch=true&timeoutSeconds=301&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
    );
}

fn status_body(code: u16, reason: &str, message: &str) -> String {
    format!(
        r#"{{"kind":"Status","apiVersion":"v1","metadata":{{}},"status":"Failure","message":"{message}","reason":"{reason}","code":{code}}}"#
    )
}

/// A tiny loopback server speaking the list/watch protocol for ConfigMaps in `default`.
async fn serve() -> (String, tokio::task::JoinHandle<()>) {
    async fn handler(
        Query(q): Query<HashMap<String, String>>,
        RawQuery(raw): RawQuery,
    ) -> axum::response::Response {
        let raw = raw.unwrap_or_default();
        if q.get("watch").map(String::as_str) == Some("true") {
            let body = [
                format!(r#"{{"type":"ADDED","object":{}}}"#, cm_json("w", "11")),
                r#"{"type":"MODIFIED","object":{"metadata":{"name":"w"},"data":5}}"#.to_string(),
                r#"{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"12","annotations":{"k8s.io/initial-events-end":"true"}}}}"#.to_string(),
                r#"{"type":"ERROR","object":{"kind":"Status","status":"Failure","reason":"Expired","code":410,"message":"too old"}}"#.to_string(),
            ]
            .join("\n")
                + "\n";
            return (StatusCode::OK, [("x-query", raw)], body).into_response();
        }
        match q.get("labelSelector").map(String::as_str) {
            Some("fail=gone") => (
                StatusCode::GONE,
                status_body(410, "Expired", "The provided continue parameter is too old"),
            )
                .into_response(),
            Some("fail=forbidden") => {
                (StatusCode::FORBIDDEN, status_body(403, "Forbidden", "no")).into_response()
            }
            Some("fail=429") => (
                StatusCode::TOO_MANY_REQUESTS,
                status_body(429, "TooManyRequests", "slow"),
            )
                .into_response(),
            Some("fail=toolarge") => (
                StatusCode::GATEWAY_TIMEOUT,
                status_body(
                    504,
                    "Timeout",
                    "Too large resource version: 20, current: 10",
                ),
            )
                .into_response(),
            _ => {
                let body = format!(
                    r#"{{"kind":"ConfigMapList","apiVersion":"v1","metadata":{{"resourceVersion":"10"}},"items":[{},{{"metadata":{{"name":"bad"}},"data":[]}}]}}"#,
                    cm_json("a", "7")
                );
                (StatusCode::OK, body).into_response()
            }
        }
    }
    let app = axum::Router::new().route("/api/v1/namespaces/default/configmaps", get(handler));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind loopback");
    let addr = listener.local_addr().expect("local addr");
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (format!("http://{addr}"), task)
}

fn client(url: &str) -> kube::Client {
    let uri: http::Uri = url.parse().expect("valid uri");
    client_for_informers(kube::Config::new(uri)).expect("client")
}

#[tokio::test]
async fn kube_lister_watcher_lists_and_watches_over_http() {
    let (url, server) = serve().await;
    let lw = KubeListerWatcher::<ConfigMap>::typed(client(&url), Some("default"));
    assert_eq!(lw.path(), "/api/v1/namespaces/default/configmaps");

    let page = lw
        .list(&ListOptions {
            limit: Some(500),
            resource_version: Some("0".into()),
            ..ListOptions::default()
        })
        .await
        .expect("list");
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.malformed, 1);
    assert_eq!(page.resource_version, "10");

    let events: Vec<WatchEvent<ConfigMap>> = lw
        .watch(&WatchOptions {
            resource_version: Some("10".into()),
            allow_watch_bookmarks: true,
            timeout_seconds: Some(300),
            ..WatchOptions::default()
        })
        .await
        .expect("watch")
        .try_collect()
        .await
        .expect("stream");
    assert_eq!(events.len(), 4);
    assert!(matches!(&events[0], WatchEvent::Added(o) if o.metadata.name.as_deref() == Some("w")));
    assert!(matches!(events[1], WatchEvent::Malformed(_)));
    assert!(matches!(
        &events[2],
        WatchEvent::Bookmark { resource_version, initial_events_end: true } if resource_version == "12"
    ));
    assert!(matches!(events[3], WatchEvent::Error(Error::Gone(_))));

    let fail = |sel: &str| ListOptions {
        label_selector: Some(sel.into()),
        ..ListOptions::default()
    };
    assert!(matches!(
        lw.list(&fail("fail=gone")).await,
        Err(Error::Gone(_))
    ));
    assert!(matches!(
        lw.list(&fail("fail=forbidden")).await,
        Err(Error::Forbidden(_))
    ));
    assert!(matches!(
        lw.list(&fail("fail=429")).await,
        Err(Error::TooManyRequests(_))
    ));
    assert!(matches!(
        lw.list(&fail("fail=toolarge")).await,
        Err(Error::TooLargeResourceVersion(_))
    ));

    // The same server through the dynamic flavour.
    let ar = ApiResource::erase::<ConfigMap>(&());
    let dyn_lw = KubeListerWatcher::dynamic(client(&url), &ar, Some("default"));
    let page = dyn_lw
        .list(&ListOptions::default())
        .await
        .expect("dynamic list");
    assert_eq!(
        page.items.len(),
        2,
        "a DynamicObject accepts any data shape"
    );
    server.abort();
}

#[tokio::test]
async fn connection_refused_is_a_connect_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let lw = KubeListerWatcher::<ConfigMap>::typed(client(&format!("http://{addr}")), None);
    assert!(matches!(
        lw.list(&ListOptions::default()).await,
        Err(Error::Connect(_))
    ));
    assert!(matches!(
        lw.watch(&WatchOptions::default()).await.map(|_| ()),
        Err(Error::Connect(_))
    ));
}

#[tokio::test(start_paused = true)]
async fn fake_records_options_and_plays_scripts() {
    let fake = FakeListerWatcher::<ConfigMap>::new();
    fake.push_list_error(Error::Gone("x".into()));
    let opts = ListOptions {
        resource_version: Some("0".into()),
        ..ListOptions::default()
    };
    assert!(matches!(fake.list(&opts).await, Err(Error::Gone(_))));
    assert_eq!(fake.list_calls(), vec![opts]);

    let tx = fake.push_watch_live();
    let mut stream = fake.watch(&WatchOptions::default()).await.expect("watch");
    let _ = tx.send(Ok(WatchEvent::Bookmark {
        resource_version: "3".into(),
        initial_events_end: false,
    }));
    assert!(matches!(
        stream.next().await,
        Some(Ok(WatchEvent::Bookmark { .. }))
    ));
    drop(tx);
    assert!(
        stream.next().await.is_none(),
        "dropping the sender closes the watch"
    );

    // An unscripted call waits instead of inventing an answer.
    let pending =
        tokio::time::timeout(Duration::from_secs(5), fake.list(&ListOptions::default())).await;
    assert!(pending.is_err());
    assert_eq!(fake.list_calls().len(), 2);
}
