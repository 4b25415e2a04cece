//! Property tests for the demo server's request parsing, the way kube-apiserver's is attacked:
//! arbitrary methods, paths (API paths with damaged or hostile segments, percent-escapes, dot
//! segments), query strings (`labelSelector`, `fieldSelector`, `limit`, `continue`,
//! `resourceVersion`, `resourceVersionMatch`, `watch`, `sendInitialEvents`, `timeoutSeconds`,
//! ... with selector-like, numeric, huge and garbage values, and raw undecodable query text),
//! headers (`Accept`, `Content-Type`, both valid and not) and bodies (arbitrary bytes, JSON of
//! any shape), sent in-process to the server's router ([`DemoHandle::router`]). For each:
//! - no panic, and an answer within a few seconds (a streaming answer's headers, at least);
//! - no 5xx but the 504 kube-apiserver answers to a resourceVersion from the future: bad
//!   input is the client's fault;
//! - a 4xx (and that 504) is a `Status` (JSON, or protobuf when asked for first) whose code is the HTTP code
//!   and whose message is one non-empty line that says what was wrong.
//!
//! The admin endpoint (`/_demo/faults/...`) is left out: it arms faults (latency, restarts) on
//! purpose. CI runs 256 cases (well under a second); a longer run:
//! `PROPTEST_CASES=100000 cargo test --test request_props` (run when written: 100,000 cases in
//! 17 s, debug build on 2 shared cores, no failure). It found one defect, since fixed and pinned
//! below: exec, attach and port-forward answered a path whose percent-escape is not UTF-8 with
//! axum's plain-text rejection instead of a `Status`.

use std::time::Duration;

use axum::body::Body;
use http_body_util::BodyExt as _;
use kinformer::demo::mutation::{Mutation, ResourceId};
use kinformer::demo::{DemoHandle, DemoOptions, DemoServer};
use kinformer::informer::pb::{decode_status, unwrap_envelope};
use proptest::prelude::*;
use serde_json::json;
use tower::ServiceExt as _;

const ANSWER_GUARD: Duration = Duration::from_secs(5);

/// A request as the strategies build it.
#[derive(Debug, Clone)]
struct Req {
    method: &'static str,
    path: String,
    query: String,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

/// Percent-encode every byte but RFC 3986's unreserved ones.
fn enc(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "api", "apis", "v1", "apps", "v1beta1", "metrics.k8s.io", "namespaces", "default",
            "kube-system", "fuzz", "pods", "deployments", "replicasets", "configmaps", "nodes",
            "events", "namespaces", "web-1", "cm-1", "status", "log", "exec", "attach",
            "portforward", "scale", "eviction", "binding", "ephemeralcontainers", "version",
            "readyz", "livez", "openapi", "v2", "apis", "authorization.k8s.io",
            "selfsubjectaccessreviews", "", ".", "..", "%2F", "%00", "%FF", "%", "%zz",
        ])
        .prop_map(str::to_string),
        1 => "[a-zA-Z0-9._~-]{0,12}",
        1 => ".{0,8}".prop_map(|s| enc(&s)),
    ]
}

fn path() -> impl Strategy<Value = String> {
    prop_oneof![
        // Well-formed API paths around the objects the server holds, one piece damaged.
        3 => (
            prop::sample::select(vec![
                "/api/v1/namespaces/fuzz/pods",
                "/api/v1/namespaces/fuzz/pods/web-1",
                "/api/v1/namespaces/fuzz/pods/web-1/log",
                "/api/v1/namespaces/fuzz/pods/web-1/exec",
                "/api/v1/namespaces/fuzz/pods/web-1/portforward",
                "/api/v1/namespaces/fuzz/configmaps/cm-1",
                "/api/v1/pods",
                "/api/v1/nodes",
                "/api/v1/namespaces",
                "/apis/apps/v1/namespaces/fuzz/deployments",
                "/apis/apps/v1/deployments",
                "/apis/metrics.k8s.io/v1beta1/pods",
                "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                "/api",
                "/apis",
                "/version",
            ]),
            prop::option::of((0usize..8, segment())),
        )
            .prop_map(|(p, damage)| match damage {
                None => p.to_string(),
                Some((i, s)) => {
                    let mut parts: Vec<String> = p.split('/').map(str::to_string).collect();
                    let i = 1 + i % (parts.len() - 1);
                    parts[i] = s;
                    parts.join("/")
                }
            }),
        1 => prop::collection::vec(segment(), 0..8).prop_map(|s| format!("/{}", s.join("/"))),
    ]
}

fn query_value() -> impl Strategy<Value = String> {
    prop_oneof![
        // Selector-like text.
        "[a-z0-9=!,() .\\-/]{0,24}",
        prop::sample::select(vec![
            "app=web",
            "app!=web",
            "app in (a,b)",
            "app notin (a)",
            "!app",
            "app",
            "=",
            "app in (",
            "a==b==c",
            "metadata.name=web-1",
            "spec.nodeName!=",
            "status.phase=Running",
            "metadata.namespace==fuzz",
            "x.y.z=1",
            "true",
            "false",
            "1",
            "True",
            "yes",
            "NotOlderThan",
            "Exact",
            "Any",
        ])
        .prop_map(str::to_string),
        // Numbers: negative, zero, huge, not integers.
        prop::sample::select(vec![
            "0",
            "-1",
            "1",
            "500",
            "4294967296",
            "18446744073709551616",
            "99999999999999999999999",
            "1e3",
            "0x10",
            " 5",
            "",
        ])
        .prop_map(str::to_string),
        // Continue tokens: base64 of anything, and not base64.
        prop::collection::vec(any::<u8>(), 0..48).prop_map(|b| {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD.encode(b)
        }),
        ".{0,16}",
    ]
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(
            (
                prop_oneof![
                    6 => prop::sample::select(vec![
                        "labelSelector", "fieldSelector", "limit", "continue", "resourceVersion",
                        "resourceVersionMatch", "watch", "sendInitialEvents",
                        "allowWatchBookmarks", "timeoutSeconds", "propagationPolicy",
                        "gracePeriodSeconds", "dryRun", "fieldManager", "force", "follow",
                        "tailLines", "sinceSeconds", "container", "previous", "timestamps",
                        "limitBytes", "command", "stdin", "stdout", "tty", "ports",
                    ])
                    .prop_map(str::to_string),
                    1 => "[a-zA-Z]{0,10}",
                ],
                query_value(),
            ),
            0..6,
        )
        .prop_map(|kv| {
            kv.iter()
                .map(|(k, v)| format!("{k}={}", enc(v)))
                .collect::<Vec<_>>()
                .join("&")
        }),
        // Raw text that does not decode as a query string.
        1 => "[&=%a-z0-9+;]{0,24}",
    ]
}

fn headers() -> impl Strategy<Value = Vec<(&'static str, String)>> {
    (
        prop::option::of(prop_oneof![
            prop::sample::select(vec![
                "application/json",
                "application/vnd.kubernetes.protobuf",
                "application/vnd.kubernetes.protobuf, application/json",
                "application/vnd.kubernetes.protobuf;type=watch",
                "application/json;as=Table;v=v1;g=meta.k8s.io, application/json",
                "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
                "application/yaml",
                "*/*",
                "text/html",
                ";;;,,,",
            ])
            .prop_map(str::to_string),
            "[ -~]{0,24}",
        ]),
        prop::option::of(prop_oneof![
            prop::sample::select(vec![
                "application/json",
                "application/merge-patch+json",
                "application/strategic-merge-patch+json",
                "application/json-patch+json",
                "application/apply-patch+yaml",
                "application/vnd.kubernetes.protobuf",
                "text/plain",
            ])
            .prop_map(str::to_string),
            "[ -~]{0,24}",
        ]),
    )
        .prop_map(|(accept, content_type)| {
            let mut h = Vec::new();
            if let Some(a) = accept {
                h.push(("accept", a));
            }
            if let Some(c) = content_type {
                h.push(("content-type", c));
            }
            h
        })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(Vec::new()),
        prop::collection::vec(any::<u8>(), 0..128),
        prop::sample::select(vec![
            json!({}),
            json!([]),
            json!(null),
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}),
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": 5}}),
            json!([{"op": "replace", "path": "/metadata/labels", "value": 1}]),
            json!({"metadata": {"labels": {"a": null}}, "spec": "x"}),
            json!({"kind": "DeleteOptions", "gracePeriodSeconds": -5}),
            json!({"apiVersion": "policy/v1", "kind": "Eviction"}),
        ])
        .prop_map(|v| v.to_string().into_bytes()),
    ]
}

fn request() -> impl Strategy<Value = Req> {
    (
        prop::sample::select(vec![
            "GET", "GET", "GET", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS",
        ]),
        path(),
        query(),
        headers(),
        body(),
    )
        .prop_map(|(method, path, query, headers, body)| Req {
            method,
            path,
            query,
            headers,
            body,
        })
}

/// A demo server with a namespace, a pod and a configmap to aim at.
fn server(rt: &tokio::runtime::Runtime) -> DemoHandle {
    rt.block_on(async {
        let demo = DemoServer::start(DemoOptions::default())
            .await
            .expect("demo server");
        let cluster = demo.cluster();
        let create = |group, version, plural, object| {
            cluster
                .apply(Mutation::Create {
                    resource: ResourceId {
                        group,
                        version,
                        plural,
                    },
                    object,
                })
                .expect("seed");
        };
        create(
            "",
            "v1",
            "namespaces",
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "fuzz"}}),
        );
        create(
            "",
            "v1",
            "pods",
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": "web-1", "namespace": "fuzz", "labels": {"app": "web"}},
                   "spec": {"containers": [{"name": "web", "image": "nginx",
                                            "ports": [{"containerPort": 80}]}]}}),
        );
        create(
            "",
            "v1",
            "configmaps",
            json!({"apiVersion": "v1", "kind": "ConfigMap",
                   "metadata": {"name": "cm-1", "namespace": "fuzz"}, "data": {"k": "v"}}),
        );
        demo
    })
}

/// Send `req`; check the answer as the module documentation says. `Ok`: the code and message of
/// a 4xx (`None` for a success); `Err`: what was wrong.
async fn check(demo: &DemoHandle, req: &Req) -> Result<Option<(u16, String)>, String> {
    let uri = if req.query.is_empty() {
        req.path.clone()
    } else {
        format!("{}?{}", req.path, req.query)
    };
    let mut b = http::Request::builder().method(req.method).uri(&uri);
    for (k, v) in &req.headers {
        b = b.header(*k, v.as_str());
    }
    // A URI or header the HTTP layer refuses never reaches the server's parsing.
    let Ok(request) = b.body(Body::from(req.body.clone())) else {
        return Ok(None);
    };
    let answer = tokio::time::timeout(ANSWER_GUARD, demo.router().oneshot(request))
        .await
        .map_err(|_| format!("no answer in {ANSWER_GUARD:?}"))?
        .map_err(|e| format!("router error: {e}"))?;
    let code = answer.status().as_u16();
    // 504 is kube-apiserver's "Too large resource version" (an RV from the future): a Status
    // like a 4xx; any other 5xx is a server fault.
    if code >= 500 && code != 504 {
        let body = answer.into_body().collect().await.map(|c| c.to_bytes());
        return Err(format!("{code}: {body:?}"));
    }
    if code < 400 || req.method == "HEAD" {
        // A success (maybe an endless watch or log stream): its body is not read.
        return Ok(None);
    }
    let proto = answer
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/vnd.kubernetes.protobuf"));
    let bytes = tokio::time::timeout(
        ANSWER_GUARD,
        http_body_util::Limited::new(answer.into_body(), 1 << 20).collect(),
    )
    .await
    .map_err(|_| "error body not finished".to_string())?
    .map_err(|e| format!("error body: {e}"))?
    .to_bytes();
    let (status_code, message) = if proto {
        let (_, raw) = unwrap_envelope(&bytes).map_err(|e| format!("protobuf Status: {e}"))?;
        // Classified like any Status; its text is what a client shows.
        let err = decode_status(raw).to_string();
        (code, err)
    } else {
        let status: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|e| format!("not a JSON Status ({e})"))?;
        if status["kind"] != "Status" || status["status"] != "Failure" {
            return Err(format!("not a failure Status: {status}"));
        }
        let c = status["code"].as_u64().unwrap_or(0) as u16;
        let m = status["message"].as_str().unwrap_or("").to_string();
        (c, m)
    };
    if status_code != code {
        return Err(format!("Status code {status_code} on HTTP {code}"));
    }
    if message.trim().is_empty() || message.contains('\n') {
        return Err(format!("{code}: message not one line: {message:?}"));
    }
    Ok(Some((code, message)))
}

fn cases(ci: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(ci)
}

#[test]
fn demo_request_parsing_answers_every_request_with_a_clear_status_and_never_panics() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let demo = server(&rt);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(256),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let result = runner.run(&request(), |req| {
        prop_assume!(!req.path.starts_with("/_demo"));
        rt.block_on(check(&demo, &req))
            .map(drop)
            .map_err(|e| TestCaseError::fail(format!("{req:?}: {e}")))
    });
    rt.block_on(demo.shutdown());
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// One row per query parameter a list parses: the exact answer to a bad value (a 400, or the 422 of
/// apimachinery's ValidateListOptions; kube-apiserver's
/// wording where the demo server copies it), or a success where kube-apiserver accepts the value
/// too (a negative `limit` means none; `timeoutSeconds` is ignored on a list; an undecodable
/// parameter name is an unknown parameter).
#[test]
fn each_bad_list_query_value_gets_one_exact_400_or_422_line() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let demo = server(&rt);
    let bad = |m: &str| Some((400, m.to_string()));
    // apimachinery's ValidateListOptions: 422 `NewInvalid(meta.k8s.io ListOptions, "", errs)`.
    let invalid = |m: &str| Some((422, format!("ListOptions.meta.k8s.io \"\" is invalid: {m}")));
    let rows: [(&str, Option<(u16, String)>); 17] = [
        (
            "labelSelector=app%20in%20(",
            bad(
                "unable to parse requested label selector: unable to parse requirement at position 8: found end of input, expected: ')'",
            ),
        ),
        (
            "labelSelector=%3D%3D",
            bad(
                "unable to parse requested label selector: unable to parse requirement at position 0: found '==', expected: '!' or identifier",
            ),
        ),
        (
            "fieldSelector=spec.nodeName%3D%3D%3Dx",
            bad(
                "unable to parse requested field selector: invalid field selector at position 15: unescaped = in field value",
            ),
        ),
        ("limit=-1", None),
        (
            "limit=18446744073709551616",
            bad("invalid limit: \"18446744073709551616\""),
        ),
        ("limit=abc", bad("invalid limit: \"abc\"")),
        (
            "continue=%25%25not-base64",
            bad(
                "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
            ),
        ),
        (
            "resourceVersion=abc",
            bad("invalid resource version: \"abc\""),
        ),
        (
            "resourceVersion=-5",
            bad("invalid resource version: \"-5\""),
        ),
        (
            "resourceVersionMatch=Sometimes&resourceVersion=1",
            invalid(
                "resourceVersionMatch: Unsupported value: \"Sometimes\": supported values: \"Exact\", \"NotOlderThan\", \"\"",
            ),
        ),
        (
            "resourceVersionMatch=Exact&continue=abc",
            invalid(
                "[resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided]",
            ),
        ),
        (
            "watch=true&resourceVersionMatch=NotOlderThan",
            invalid(
                "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ),
        ),
        ("watch=maybe", bad("invalid value for watch: \"maybe\"")),
        ("timeoutSeconds=-3", None),
        ("timeoutSeconds=99999999999999999999", None),
        (
            "sendInitialEvents=false",
            invalid("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"),
        ),
        ("%zz=%zz", None),
    ];
    for (query, want) in rows {
        let req = Req {
            method: "GET",
            path: "/api/v1/namespaces/fuzz/pods".into(),
            query: query.into(),
            headers: vec![],
            body: vec![],
        };
        let got = rt
            .block_on(check(&demo, &req))
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(got, want, "{query}");
    }
    rt.block_on(demo.shutdown());
}

#[test]
fn a_streaming_route_whose_path_is_not_utf8_answers_a_400_status() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let demo = server(&rt);
    for sub in ["exec", "attach", "portforward"] {
        let req = Req {
            method: "GET",
            path: format!("/api/v1/namespaces/%FF/pods/web-1/{sub}"),
            query: String::new(),
            headers: vec![],
            body: vec![],
        };
        let got = rt
            .block_on(check(&demo, &req))
            .unwrap_or_else(|e| panic!("{sub}: {e}"));
        assert_eq!(
            got,
            Some((
                400,
                "invalid path: Invalid URL: Invalid UTF-8 in `ns`".to_string()
            )),
            "{sub}"
        );
    }
    rt.block_on(demo.shutdown());
}
