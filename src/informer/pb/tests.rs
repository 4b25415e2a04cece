use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::informer::decode::{Mask, decode_dynamic_masked};

/// What the dashboard's cache keeps of a pod (`render::cache_mask("Pod")`, restated here: the
/// informer never imports rendering code).
const POD_CACHE: ObjectMask = ObjectMask {
    data: Mask::Keys(&[
        (
            "spec",
            Mask::Keys(&[
                ("nodeName", Mask::All),
                (
                    "containers",
                    Mask::Each(&Mask::Keys(&[
                        ("name", Mask::All),
                        (
                            "resources",
                            Mask::Keys(&[("requests", Mask::All), ("limits", Mask::All)]),
                        ),
                    ])),
                ),
            ]),
        ),
        (
            "status",
            Mask::Keys(&[
                ("phase", Mask::All),
                (
                    "conditions",
                    Mask::Each(&Mask::Keys(&[("type", Mask::All), ("status", Mask::All)])),
                ),
                (
                    "containerStatuses",
                    Mask::Each(&Mask::Keys(&[
                        ("name", Mask::All),
                        ("restartCount", Mask::All),
                        ("state", Mask::All),
                        ("ready", Mask::All),
                        ("started", Mask::All),
                    ])),
                ),
                ("podIP", Mask::All),
                ("podIPs", Mask::Each(&Mask::Keys(&[("ip", Mask::All)]))),
            ]),
        ),
    ]),
    annotations: AnnotationMask::Drop,
    managed_fields: false,
    managed_writers: false,
    generate_name: false,
};

const CM_CACHE: ObjectMask = ObjectMask {
    data: Mask::Keys(&[
        (
            "data",
            Mask::Blank(crate::informer::decode::Sizes {
                keep: 4,
                base64: false,
            }),
        ),
        (
            "binaryData",
            Mask::Blank(crate::informer::decode::Sizes {
                keep: 0,
                base64: true,
            }),
        ),
    ]),
    annotations: AnnotationMask::Only(&["keep"]),
    managed_fields: false,
    managed_writers: false,
    generate_name: true,
};

/// The object as the JSON path caches it from a list item (no `apiVersion`/`kind`, as an API
/// server writes list items), and as the protobuf path caches it from the same object.
fn both_ways(obj: &Value, msg: &'static Msg, mask: &ObjectMask) -> (Value, Value) {
    let mut item = obj.clone();
    if let Some(m) = item.as_object_mut() {
        m.remove("apiVersion");
        m.remove("kind");
    }
    let json = decode_dynamic_masked(&item.to_string(), mask).unwrap();
    let raw = encode_object(obj, msg).unwrap();
    let pb = decode_object(&raw, msg, mask, None).unwrap();
    (
        serde_json::to_value(json).unwrap(),
        serde_json::to_value(pb).unwrap(),
    )
}

/// A JSON fixture from `tests/fixtures/` (also read by `schema_tests`).
pub(super) fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}.json", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn fixture_objects_decode_from_protobuf_as_from_json_full_and_masked() {
    for (name, msg, mask) in [
        ("pod", &schema::POD, POD_CACHE),
        ("pod_completed", &schema::POD, POD_CACHE),
        ("pod_crashloop", &schema::POD, POD_CACHE),
        ("pod_init", &schema::POD, POD_CACHE),
        ("pod_terminating", &schema::POD, POD_CACHE),
        ("namespace", &schema::NAMESPACE, ObjectMask::ALL),
        ("configmap", &schema::CONFIG_MAP, CM_CACHE),
    ] {
        let obj = fixture(name);
        // History's mask keeps who wrote each managedFields entry, not its fieldsV1.
        let writers = ObjectMask {
            managed_writers: true,
            ..mask
        };
        for m in [ObjectMask::ALL, mask, writers] {
            let (json, pb) = both_ways(&obj, msg, &m);
            assert_eq!(json, pb, "{name} under {m:?}");
        }
    }
}

/// The built-in kinds beyond Pod, Namespace and ConfigMap: each realistic fixture (as an API
/// server prints it) decodes from protobuf to what the JSON path gives, full and under the
/// dashboard's cache mask for that kind.
#[test]
fn more_builtin_kinds_decode_from_protobuf_as_from_json_full_and_masked() {
    for (name, api_version, kind) in [
        ("node", "v1", "Node"),
        ("service", "v1", "Service"),
        ("event", "v1", "Event"),
        ("secret", "v1", "Secret"),
        ("serviceaccount", "v1", "ServiceAccount"),
        ("endpoints", "v1", "Endpoints"),
        ("deployment", "apps/v1", "Deployment"),
        ("replicaset", "apps/v1", "ReplicaSet"),
        ("statefulset", "apps/v1", "StatefulSet"),
        ("daemonset", "apps/v1", "DaemonSet"),
        ("job", "batch/v1", "Job"),
        ("cronjob", "batch/v1", "CronJob"),
        ("pvc", "v1", "PersistentVolumeClaim"),
        ("pv", "v1", "PersistentVolume"),
        ("ingress", "networking.k8s.io/v1", "Ingress"),
        ("pdb", "policy/v1", "PodDisruptionBudget"),
        ("hpa", "autoscaling/v2", "HorizontalPodAutoscaler"),
        ("role", "rbac.authorization.k8s.io/v1", "Role"),
        ("rolebinding", "rbac.authorization.k8s.io/v1", "RoleBinding"),
        ("clusterrole", "rbac.authorization.k8s.io/v1", "ClusterRole"),
        (
            "clusterrolebinding",
            "rbac.authorization.k8s.io/v1",
            "ClusterRoleBinding",
        ),
        ("networkpolicy", "networking.k8s.io/v1", "NetworkPolicy"),
        ("storageclass", "storage.k8s.io/v1", "StorageClass"),
        ("endpointslice", "discovery.k8s.io/v1", "EndpointSlice"),
        ("lease", "coordination.k8s.io/v1", "Lease"),
        ("resourcequota", "v1", "ResourceQuota"),
        ("limitrange", "v1", "LimitRange"),
        ("priorityclass", "scheduling.k8s.io/v1", "PriorityClass"),
    ] {
        let obj = fixture(name);
        assert_eq!(obj["kind"], kind, "{name}");
        let msg = schema::kind(api_version, kind).unwrap_or_else(|| panic!("no table for {kind}"));
        for m in [ObjectMask::ALL, crate::render::cache_mask(kind)] {
            let (json, pb) = both_ways(&obj, msg, &m);
            assert_eq!(json, pb, "{name} under {m:?}");
        }
        // The full decode gives back the object itself (nothing lost or invented on the wire).
        let (_, pb) = both_ways(&obj, msg, &ObjectMask::ALL);
        let mut want = obj.clone();
        if let Some(o) = want.as_object_mut() {
            o.remove("apiVersion");
            o.remove("kind");
        }
        assert_eq!(pb, want, "{name} round trip");
    }
}

#[test]
fn an_empty_match_labels_does_not_survive_protobuf_as_on_a_real_server() {
    let mut d = fixture("deployment");
    d["spec"]["selector"] = json!({"matchLabels": {}});
    let raw = encode_object(&d, &schema::workloads::DEPLOYMENT).unwrap();
    let pb = decode_object(&raw, &schema::workloads::DEPLOYMENT, &ObjectMask::ALL, None).unwrap();
    assert_eq!(pb.data["spec"]["selector"], json!({}));
}

#[test]
fn empty_maps_and_omitempty_zeros_are_dropped_as_go_does_and_then_both_encodings_agree() {
    let mut d = fixture("deployment");
    d["metadata"]["labels"] = json!({});
    d["spec"]["selector"] = json!({"matchLabels": {}});
    d["spec"]["template"]["spec"]["nodeSelector"] = json!({});
    d["spec"]["template"]["spec"]["containers"][0]["resources"] = json!({"limits": {}});
    d["status"]["readyReplicas"] = json!(0); // omitempty
    d["spec"]["replicas"] = json!(0); // a pointer: JSON keeps its zero
    let Some(obj) = d.as_object_mut() else {
        panic!("fixture is an object")
    };
    omit_empty(obj, &schema::workloads::DEPLOYMENT);
    assert!(d["metadata"].get("labels").is_none());
    assert_eq!(d["spec"]["selector"], json!({}));
    assert!(d["spec"]["template"]["spec"].get("nodeSelector").is_none());
    assert_eq!(
        d["spec"]["template"]["spec"]["containers"][0]["resources"],
        json!({})
    );
    assert!(d["status"].get("readyReplicas").is_none());
    assert_eq!(d["spec"]["replicas"], 0);
    // Non-empty maps stay.
    assert_eq!(d["spec"]["template"]["metadata"]["labels"]["app"], "web");
    let (json, pb) = both_ways(&d, &schema::workloads::DEPLOYMENT, &ObjectMask::ALL);
    assert_eq!(json, pb);
}

#[test]
fn workload_fields_outside_the_table_are_refused_so_the_server_answers_json() {
    let mut j = fixture("job");
    j["spec"]["podFailurePolicy"] = json!({"rules": [{"action": "Ignore", "onFutureThing": {}}]});
    let err = encode_object(&j, &schema::workloads::JOB).unwrap_err();
    assert_eq!(
        err,
        "Job.spec: JobSpec.podFailurePolicy: PodFailurePolicy.rules: PodFailurePolicyRule.onFutureThing"
    );
}

#[test]
fn masked_fields_are_skipped_without_being_decoded() {
    // A pod whose dropped parts are not even valid messages: the masked decode never looks.
    let mut raw = Vec::new();
    let mut meta = Vec::new();
    put_bytes(&mut meta, 1, b"p");
    put_bytes(&mut meta, 17, b"\xff\xff\xff"); // managedFields: garbage
    put_bytes(&mut meta, 12, b"\x0a\x05"); // an annotation entry cut short
    put_bytes(&mut raw, 1, &meta);
    let mut spec = Vec::new();
    put_bytes(&mut spec, 10, b"node-1");
    put_bytes(&mut spec, 1, b"\x0f\x0f"); // volumes: garbage
    put_bytes(&mut raw, 2, &spec);
    let obj = decode_object(&raw, &schema::POD, &POD_CACHE, None).unwrap();
    assert_eq!(obj.metadata.name.as_deref(), Some("p"));
    // `containers` has no `omitempty`: Go's JSON of this pod says `null`, and so does the
    // protobuf decode.
    assert_eq!(
        obj.data,
        json!({"spec": {"nodeName": "node-1", "containers": null}})
    );
    // The full decode does look, and says where.
    let err = decode_object(&raw, &schema::POD, &ObjectMask::ALL, None).unwrap_err();
    assert!(matches!(err, Error::Decode(_)), "{err:?}");
}

#[test]
fn unknown_json_fields_are_refused_by_the_encoder_by_name() {
    let err = encode_object(
        &json!({"metadata": {"name": "a"}, "spec": {"nodeName": "n", "fancy": 1}}),
        &schema::POD,
    )
    .unwrap_err();
    assert_eq!(err, "Pod.spec: PodSpec.fancy");
}

fn list_body(items: &[Value], rv: &str, cont: Option<&str>) -> Vec<u8> {
    let raw: Vec<Vec<u8>> = items
        .iter()
        .map(|o| encode_object(o, &schema::POD).unwrap())
        .collect();
    let meta = ListMeta {
        resource_version: Some(rv.into()),
        continue_token: cont.map(str::to_owned),
        remaining_item_count: None,
    };
    envelope("v1", "PodList", &encode_list(&meta, &raw))
}

fn decode_chunked(
    body: &[u8],
    chunk: usize,
) -> Result<(Vec<DynamicObject>, ListMeta, usize), Error> {
    let mut d = ProtoListDecoder::new(dynamic_item_decoder(&schema::POD, ObjectMask::ALL));
    let mut out = Vec::new();
    for c in body.chunks(chunk.max(1)) {
        d.feed(c, &mut |o| out.push(o))?;
    }
    let (meta, malformed) = d.finish()?;
    Ok((out, meta, malformed))
}

#[test]
fn list_items_stream_out_in_order_whatever_the_chunking() {
    let pods: Vec<Value> = ["pod", "pod_init", "pod_crashloop"]
        .iter()
        .map(|n| fixture(n))
        .collect();
    let body = list_body(&pods, "77", Some("tok"));
    let (whole, meta, malformed) = decode_chunked(&body, body.len()).unwrap();
    assert_eq!(whole.len(), 3);
    assert_eq!(malformed, 0);
    assert_eq!(meta.resource_version.as_deref(), Some("77"));
    assert_eq!(meta.continue_token.as_deref(), Some("tok"));
    for (obj, pod) in whole.iter().zip(&pods) {
        assert_eq!(
            obj.metadata.name.as_deref(),
            pod["metadata"]["name"].as_str()
        );
    }
    for chunk in [1, 2, 3, 7, 64, 1000] {
        let (items, m, _) = decode_chunked(&body, chunk).unwrap();
        assert_eq!(items, whole, "chunk {chunk}");
        assert_eq!(m, meta);
    }
}

#[test]
fn an_empty_list_has_its_metadata_and_a_cut_body_is_an_error() {
    let body = list_body(&[], "5", None);
    let (items, meta, _) = decode_chunked(&body, 3).unwrap();
    assert!(items.is_empty());
    assert_eq!(meta.resource_version.as_deref(), Some("5"));
    let full = list_body(&[fixture("pod")], "5", None);
    for cut in [0, 3, 10, full.len() / 2, full.len() - 1] {
        assert!(decode_chunked(&full[..cut], 5).is_err(), "cut at {cut}");
    }
    assert!(decode_chunked(b"{\"kind\":\"PodList\"}", 4).is_err());
}

#[test]
fn a_malformed_item_is_skipped_and_counted() {
    let good = encode_object(&fixture("pod"), &schema::POD).unwrap();
    let meta = ListMeta {
        resource_version: Some("9".into()),
        ..ListMeta::default()
    };
    let body = envelope(
        "v1",
        "PodList",
        &encode_list(&meta, &[good.clone(), b"\x0a\x09ab".to_vec(), good]),
    );
    let (items, _, malformed) = decode_chunked(&body, 11).unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(malformed, 1);
}

#[test]
fn watch_frames_split_and_carry_the_object_envelope() {
    let pod = fixture("pod");
    let env = envelope("v1", "Pod", &encode_object(&pod, &schema::POD).unwrap());
    let mut stream = watch_frame("ADDED", &env);
    stream.extend(watch_frame("DELETED", &env));
    for chunk in [1, 5, stream.len()] {
        let mut s = FrameSplitter::default();
        let mut frames = Vec::new();
        for c in stream.chunks(chunk) {
            s.feed(c, &mut |f| frames.push(f.to_vec())).unwrap();
        }
        assert_eq!(frames.len(), 2);
        let (kind, object) = decode_watch_frame(&frames[1]).unwrap();
        assert_eq!(kind, "DELETED");
        let (types, raw) = unwrap_envelope(object).unwrap();
        assert_eq!(
            (types.api_version.as_str(), types.kind.as_str()),
            ("v1", "Pod")
        );
        let obj = decode_object(raw, &schema::POD, &ObjectMask::ALL, Some(types)).unwrap();
        assert_eq!(
            obj.metadata.name.as_deref(),
            pod["metadata"]["name"].as_str()
        );
    }
}

#[test]
fn protobuf_status_answers_classify_like_json_ones() {
    let mut st = Vec::new();
    put_bytes(&mut st, 2, b"Failure");
    put_bytes(&mut st, 3, b"too old resource version: 1 (5)");
    put_bytes(&mut st, 4, b"Expired");
    put_int(&mut st, 6, 410);
    assert!(matches!(decode_status(&st), Error::Gone(_)));
}

// ---------------------------------------------------------------------------------------------
// The property: any pod the table covers, in the form an API server prints it, caches the same
// through JSON and through protobuf, under the dashboard's mask and under none.
// ---------------------------------------------------------------------------------------------

fn word() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,8}"
}

fn opt<T: std::fmt::Debug + Clone>(
    s: impl Strategy<Value = T>,
) -> impl Strategy<Value = Option<T>> {
    prop::option::of(s)
}

/// `metav1.Time` prints whole seconds, `metav1.MicroTime` six fraction digits, both in UTC with
/// `Z`, as the API server's JSON does; the zero time is `null`.
#[test]
fn times_decode_as_the_api_server_prints_them() {
    let msg = |secs: i64, nanos: i64| {
        let mut b = Vec::new();
        put_int(&mut b, 1, secs);
        put_int(&mut b, 2, nanos);
        b
    };
    assert_eq!(
        time(&msg(1_700_000_000, 123_456_789), false).unwrap(),
        json!("2023-11-14T22:13:20Z")
    );
    assert_eq!(
        time(&msg(1_700_000_000, 123_456_789), true).unwrap(),
        json!("2023-11-14T22:13:20.123456Z")
    );
    assert_eq!(
        time(&msg(1_700_000_000, 0), true).unwrap(),
        json!("2023-11-14T22:13:20.000000Z")
    );
    assert_eq!(time(&msg(0, 0), false).unwrap(), Value::Null);
}

fn time_str() -> impl Strategy<Value = Value> {
    (1_500_000_000i64..1_900_000_000).prop_map(|s| {
        json!(
            chrono::DateTime::from_timestamp(s, 0)
                .unwrap()
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        )
    })
}

fn quantities() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map(
        prop::sample::select(vec!["cpu", "memory", "ephemeral-storage"]).prop_map(str::to_owned),
        prop::sample::select(vec!["100m", "1", "64Mi", "1Gi", "2500m"]).prop_map(Value::from),
        0..3,
    )
    .prop_map(|m| m.into_iter().collect())
}

fn container() -> impl Strategy<Value = Value> {
    (word(), opt(word()), quantities(), quantities(), opt(1i64..65535), opt(word()))
        .prop_map(|(name, image, req, lim, port, env)| {
            let mut c = json!({"name": name, "resources": {}});
            if let Some(i) = image {
                c["image"] = json!(i);
            }
            if !req.is_empty() {
                c["resources"]["requests"] = Value::Object(req);
            }
            if !lim.is_empty() {
                c["resources"]["limits"] = Value::Object(lim);
            }
            if let Some(p) = port {
                c["ports"] = json!([{"containerPort": p, "protocol": "TCP"}]);
                c["readinessProbe"] = json!({"httpGet": {"path": "/", "port": p, "scheme": "HTTP"}, "periodSeconds": 10});
                c["livenessProbe"] = json!({"tcpSocket": {"port": "http"}, "failureThreshold": 3});
            }
            if let Some(e) = env {
                c["env"] = json!([{"name": "A", "value": e},
                                  {"name": "B", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}]);
            }
            c
        })
}

fn state() -> impl Strategy<Value = Value> {
    prop_oneof![
        (opt(word())).prop_map(|r| match r {
            Some(r) => json!({"waiting": {"reason": r}}),
            None => json!({"waiting": {}}),
        }),
        time_str().prop_map(|t| json!({"running": {"startedAt": t}})),
        (-1i64..3, time_str(), opt(word())).prop_map(|(code, t, reason)| {
            let mut s =
                json!({"terminated": {"exitCode": code, "startedAt": t.clone(), "finishedAt": t}});
            if let Some(r) = reason {
                s["terminated"]["reason"] = json!(r);
            }
            s
        }),
    ]
}

fn container_status() -> impl Strategy<Value = Value> {
    (
        word(),
        state(),
        any::<bool>(),
        0i64..5,
        opt(any::<bool>()),
        any::<bool>(),
    )
        .prop_map(|(name, state, ready, restarts, started, last)| {
            let mut s = json!({"name": name, "state": state, "lastState": {}, "ready": ready,
                               "restartCount": restarts, "image": "img", "imageID": ""});
            if let Some(b) = started {
                s["started"] = json!(b);
            }
            if last {
                s["lastState"] =
                    json!({"terminated": {"exitCode": 1, "startedAt": null, "finishedAt": null}});
            }
            s
        })
}

fn pod() -> impl Strategy<Value = Value> {
    (
        (word(), word(), opt(word()), time_str(), opt(time_str()), 0i64..4),
        prop::collection::btree_map(word(), word(), 0..4),
        prop::collection::btree_map(
            prop_oneof![word(), Just("kubectl.kubernetes.io/last-applied-configuration".to_string())],
            word(),
            0..3,
        ),
        any::<bool>(),
        (opt(word()), prop::collection::vec(container(), 1..3), opt(word())),
        (
            opt(prop::sample::select(vec!["Pending", "Running", "Succeeded", "Failed"])),
            prop::collection::vec((word(), any::<bool>(), opt(word()), time_str()), 0..3),
            prop::collection::vec(container_status(), 0..3),
            opt("10\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}"),
        ),
    )
        .prop_map(|((name, ns, gen_name, created, deleted, rv), labels, annotations, owned, (node, containers, sa), (phase, conds, statuses, ip))| {
            let mut md = json!({"name": name, "namespace": ns, "uid": format!("uid-{name}"),
                                "resourceVersion": rv.to_string(), "creationTimestamp": created});
            if let Some(g) = gen_name {
                md["generateName"] = json!(g);
            }
            if let Some(d) = deleted {
                md["deletionTimestamp"] = d;
                md["deletionGracePeriodSeconds"] = json!(0);
            }
            if !labels.is_empty() {
                md["labels"] = json!(labels);
            }
            if !annotations.is_empty() {
                md["annotations"] = json!(annotations);
            }
            if owned {
                md["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs",
                    "uid": "u1", "controller": true, "blockOwnerDeletion": true}]);
                md["managedFields"] = json!([{"manager": "kubelet", "operation": "Update", "apiVersion": "v1",
                    "time": "2024-05-01T10:00:00Z", "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:status": {"f:phase": {}}}, "subresource": "status"}]);
            }
            let mut spec = json!({"containers": containers, "restartPolicy": "Always",
                                  "terminationGracePeriodSeconds": 30,
                                  "volumes": [{"name": "v", "emptyDir": {}},
                                              {"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                                                  {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                                                  {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}}]}}]});
            if let Some(n) = node {
                spec["nodeName"] = json!(n);
            }
            if let Some(s) = sa {
                spec["serviceAccountName"] = json!(s);
            }
            let mut status = json!({});
            if let Some(p) = phase {
                status["phase"] = json!(p);
            }
            if !conds.is_empty() {
                status["conditions"] = Value::Array(conds.into_iter().map(|(ty, ok, reason, t)| {
                    let mut c = json!({"type": ty, "status": if ok {"True"} else {"False"},
                                       "lastProbeTime": null, "lastTransitionTime": t});
                    if let Some(r) = reason {
                        c["reason"] = json!(r);
                    }
                    c
                }).collect());
            }
            if !statuses.is_empty() {
                status["containerStatuses"] = Value::Array(statuses);
            }
            if let Some(ip) = ip {
                status["podIP"] = json!(ip);
                status["podIPs"] = json!([{"ip": ip}]);
            }
            json!({"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec, "status": status})
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn masked_decode_equals_the_json_path(p in pod()) {
        for mask in [ObjectMask::ALL, POD_CACHE] {
            let (json, pb) = both_ways(&p, &schema::POD, &mask);
            prop_assert_eq!(json, pb);
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_decoders(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = decode_object(&bytes, &schema::POD, &ObjectMask::ALL, None);
        let _ = decode_object(&bytes, &schema::POD, &POD_CACHE, None);
        let mut body = MAGIC.to_vec();
        body.extend_from_slice(&bytes);
        let _ = decode_chunked(&body, 7);
        let _ = decode_watch_frame(&bytes);
        let _ = FrameSplitter::default().feed(&bytes, &mut |_| {});
    }
}
