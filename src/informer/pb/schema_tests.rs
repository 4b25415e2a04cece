//! The schema tables against themselves and against the JSON path: every field of every table
//! set at once, lists without `omitempty` (`null` vs `[]` vs absent), and the realistic
//! fixtures of the kinds whose tables grew (in-tree PersistentVolume sources, a Job's failure
//! and success policies, a Pod's scheduling fields).

use serde_json::json;

use super::tests::fixture;
use super::*;
use crate::informer::decode::decode_dynamic_masked;

/// Every kind [`schema::kind`] speaks, as (apiVersion, kind).
const KINDS: &[(&str, &str)] = &[
    ("v1", "Pod"),
    ("v1", "Namespace"),
    ("v1", "ConfigMap"),
    ("v1", "Node"),
    ("v1", "Service"),
    ("v1", "Endpoints"),
    ("v1", "Event"),
    ("v1", "Secret"),
    ("v1", "ServiceAccount"),
    ("v1", "PersistentVolumeClaim"),
    ("v1", "PersistentVolume"),
    ("v1", "ResourceQuota"),
    ("v1", "LimitRange"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("networking.k8s.io/v1", "Ingress"),
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("policy/v1", "PodDisruptionBudget"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("rbac.authorization.k8s.io/v1", "ClusterRole"),
    ("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"),
    ("storage.k8s.io/v1", "StorageClass"),
    ("discovery.k8s.io/v1", "EndpointSlice"),
    ("coordination.k8s.io/v1", "Lease"),
    ("scheduling.k8s.io/v1", "PriorityClass"),
];

/// A value for every field of `msg` (inlined messages merged in, lists of two), each scalar
/// distinct from its zero so that nothing is dropped as an `omitempty` zero.
fn every_field(msg: &Msg, depth: usize) -> Map<String, Value> {
    let mut out = Map::new();
    assert!(depth < 16, "{}: nesting too deep", msg.name);
    for f in msg.fields {
        let v = match f.ty {
            Ty::Inline(sub) => {
                out.extend(every_field(sub, depth + 1));
                continue;
            }
            Ty::Const(c) => json!(c),
            Ty::Str => json!(format!("{}-{}", f.name, f.num)),
            Ty::Bool => json!(true),
            Ty::Int => json!(i64::from(f.num) + 1000),
            Ty::Bytes => json!("AQID"),
            Ty::Msg(sub) => Value::Object(every_field(sub, depth + 1)),
            Ty::Time => json!("2026-11-20T10:00:01Z"),
            Ty::MicroTime => json!("2026-11-20T10:00:01.123456Z"),
            Ty::Quantity => json!("250m"),
            Ty::IntOrString if f.num % 2 == 0 => json!(8080),
            Ty::IntOrString => json!("http"),
            Ty::Raw => json!({"f:spec": {"f:replicas": {}}}),
            Ty::MapStr => json!({"a": "1", "b": "2"}),
            Ty::MapBytes => json!({"k": "AQID"}),
            Ty::MapQuantity => json!({"cpu": "1", "memory": "128Mi"}),
            Ty::MapTime => json!({"p": "2026-11-20T10:00:02Z"}),
        };
        let v = if f.rep {
            match f.ty {
                Ty::Str => json!([v, format!("{}-second", f.name)]),
                Ty::Int => json!([v, 7]),
                _ => json!([v.clone(), v]),
            }
        } else {
            v
        };
        out.insert(f.name.to_string(), v);
    }
    out
}

/// The object as the JSON path caches it and as the protobuf path caches it.
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

/// Each table with every one of its fields set (all volume and PV sources at once, every
/// scheduling field, the Job policies...) goes through protobuf and back unchanged, and the
/// JSON path caches the same object: no field is missing from a table, none shares a number or
/// a name with another, and each field's wire shape decodes to the JSON it was encoded from.
/// (That the numbers are kube-apiserver's is checked by Go's decoder in
/// `tests/kubectl_compat/protobuf.rs`.)
#[test]
fn every_field_of_every_table_survives_protobuf_and_matches_the_json_path() {
    for (api_version, kind) in KINDS {
        let msg = schema::kind(api_version, kind).unwrap();
        let mut data = every_field(msg, 0);
        // The envelope carries a top-level object's apiVersion and kind.
        data.remove("apiVersion");
        data.remove("kind");
        // ObjectMeta is cached as kube's typed struct: a realistic one, not every field.
        data.insert(
            "metadata".into(),
            json!({"name": "x", "namespace": "ns", "uid": "u", "resourceVersion": "7",
                   "labels": {"a": "1"}, "creationTimestamp": "2026-11-20T10:00:00Z"}),
        );
        let obj = Value::Object(data);
        let raw = encode_object(&obj, msg).unwrap_or_else(|e| panic!("{kind}: {e}"));
        let back = decode_object(&raw, msg, &ObjectMask::ALL, None).unwrap();
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            obj,
            "{kind}: protobuf round trip"
        );
        let (json, pb) = both_ways(&obj, msg, &ObjectMask::ALL);
        assert_eq!(json, pb, "{kind}: JSON path");
        let (json, pb) = both_ways(&obj, msg, &crate::render::cache_mask(kind));
        assert_eq!(json, pb, "{kind}: JSON path under the cache mask");
    }
}

#[test]
fn field_numbers_and_names_are_unique_in_every_message() {
    fn check(msg: &'static Msg, seen: &mut Vec<*const Msg>) {
        if seen.contains(&(msg as *const Msg)) {
            return;
        }
        seen.push(msg);
        let mut nums = std::collections::HashSet::new();
        let mut names = std::collections::HashSet::new();
        for f in msg.fields {
            if !matches!(f.ty, Ty::Const(_)) {
                assert!(nums.insert(f.num), "{}: number {} twice", msg.name, f.num);
            }
            if !f.name.is_empty() {
                assert!(names.insert(f.name), "{}: {} twice", msg.name, f.name);
            }
            if let Ty::Msg(sub) | Ty::Inline(sub) = f.ty {
                check(sub, seen);
            }
        }
    }
    let mut seen = Vec::new();
    for (api_version, kind) in KINDS {
        check(schema::kind(api_version, kind).unwrap(), &mut seen);
    }
    assert!(seen.len() > 200, "{} messages", seen.len());
}

/// kube-apiserver stores built-in kinds in etcd as protobuf, which has no empty list: a Role
/// created with `rules: []` reads back with a nil slice, which Go's JSON writes as
/// `"rules": null` (no `omitempty`) and leaves out when the field has `omitempty`. Both
/// encodings then give the same cached object: `null` for the first kind of list, absent for the
/// second, and the demo server stores objects that way.
#[test]
fn an_empty_list_is_null_without_omitempty_and_absent_with_it_from_both_encodings() {
    let role_msg = &schema::policy::ROLE;
    let mut role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "empty", "namespace": "ns", "finalizers": []}, "rules": []});
    let Some(obj) = role.as_object_mut() else {
        panic!("an object")
    };
    omit_empty(obj, role_msg);
    assert_eq!(role["rules"], Value::Null);
    assert!(role["metadata"].get("finalizers").is_none());
    for mask in [ObjectMask::ALL, crate::render::cache_mask("Role")] {
        let (json, pb) = both_ways(&role, role_msg, &mask);
        assert_eq!(json, pb, "{mask:?}");
    }
    let (_, pb) = both_ways(&role, role_msg, &ObjectMask::ALL);
    assert_eq!(pb["rules"], Value::Null);

    // Absent from the stored object: Go's struct still has the nil slice.
    let slice_msg = &schema::storage_network::ENDPOINT_SLICE;
    let mut slice = json!({"metadata": {"name": "s"}, "addressType": "IPv4"});
    let Some(obj) = slice.as_object_mut() else {
        panic!("an object")
    };
    omit_empty(obj, slice_msg);
    assert_eq!(slice["endpoints"], Value::Null);
    assert_eq!(slice["ports"], Value::Null);
    let (json, pb) = both_ways(&slice, slice_msg, &ObjectMask::ALL);
    assert_eq!(json, pb);
    assert_eq!(pb["endpoints"], Value::Null);

    // Nested, inside a message that is there: a node selector term list, a DNS config's lists.
    let pv_msg = &schema::storage_network::PERSISTENT_VOLUME;
    let mut pv = json!({"metadata": {"name": "p"}, "spec": {
        "nodeAffinity": {"required": {"nodeSelectorTerms": []}}, "accessModes": [],
        "rbd": {"monitors": [], "image": "i"}}});
    let Some(obj) = pv.as_object_mut() else {
        panic!("an object")
    };
    omit_empty(obj, pv_msg);
    assert_eq!(
        pv["spec"],
        json!({"nodeAffinity": {"required": {"nodeSelectorTerms": null}},
               "rbd": {"monitors": null, "image": "i"}})
    );
    let (json, pb) = both_ways(&pv, pv_msg, &ObjectMask::ALL);
    assert_eq!(json, pb);
    // A list with elements is kept as it is.
    let mut role = json!({"metadata": {"name": "r"}, "rules": [{"verbs": ["get"]}]});
    let Some(obj) = role.as_object_mut() else {
        panic!("an object")
    };
    omit_empty(obj, role_msg);
    assert_eq!(role["rules"], json!([{"verbs": ["get"]}]));
}

/// The one case the wire cannot carry: a server that keeps `[]` (a kube-apiserver run with
/// `--storage-media-type=application/json`, or an aggregated server) sends `"rules": []` in
/// JSON, while its protobuf has no element and reads back as `null` (as client-go's typed
/// decode gives a nil slice). Documented in the `pb` module docs; pinned here so that it is
/// known.
#[test]
fn an_empty_list_kept_by_the_server_reads_null_from_protobuf_the_one_known_difference() {
    let role = json!({"metadata": {"name": "r"}, "rules": []});
    let (json, pb) = both_ways(&role, &schema::policy::ROLE, &ObjectMask::ALL);
    assert_eq!(json["rules"], json!([]));
    assert_eq!(pb["rules"], Value::Null);
    // An `omitempty` list: `[]` in JSON, absent from protobuf.
    let ns = json!({"metadata": {"name": "n"}, "spec": {"finalizers": []}});
    let (json, pb) = both_ways(&ns, &schema::NAMESPACE, &ObjectMask::ALL);
    assert_eq!(json["spec"]["finalizers"], json!([]));
    assert_eq!(pb["spec"], json!({}));
}

/// Realistic objects of the fields the tables gained: a PersistentVolume of each kind of
/// in-tree source with its own secret reference form, an Indexed Job with failure and success
/// policies, a Pod with affinity, spread constraints, DNS config, an ephemeral container and
/// scheduling gates. Each decodes from protobuf to what the JSON path gives, full and under the
/// dashboard's cache mask, and the full decode is the object itself.
#[test]
fn new_fields_fixtures_decode_from_protobuf_as_from_json() {
    for (name, api_version, kind) in [
        ("pv_rbd", "v1", "PersistentVolume"),
        ("pv_iscsi", "v1", "PersistentVolume"),
        ("pv_azuredisk", "v1", "PersistentVolume"),
        ("job_indexed", "batch/v1", "Job"),
        ("pod_scheduling", "v1", "Pod"),
    ] {
        let obj = fixture(name);
        assert_eq!(obj["kind"], *kind, "{name}");
        let msg = schema::kind(api_version, kind).unwrap();
        for m in [ObjectMask::ALL, crate::render::cache_mask(kind)] {
            let (json, pb) = both_ways(&obj, msg, &m);
            assert_eq!(json, pb, "{name} under {m:?}");
        }
        let (_, pb) = both_ways(&obj, msg, &ObjectMask::ALL);
        let mut want = obj.clone();
        if let Some(o) = want.as_object_mut() {
            o.remove("apiVersion");
            o.remove("kind");
        }
        assert_eq!(pb, want, "{name} round trip");
    }
}

/// The object read through `k8s-openapi`'s typed struct for `kind` (the Go types' JSON names
/// and value types, independent of the tables) and written back.
fn through_typed(kind: &str, v: &Value) -> Value {
    use k8s_openapi::api::{
        apps::v1 as apps, autoscaling::v2 as autoscaling, batch::v1 as batch,
        coordination::v1 as coordination, core::v1 as core, discovery::v1 as discovery,
        networking::v1 as networking, policy::v1 as policy, rbac::v1 as rbac,
        scheduling::v1 as scheduling, storage::v1 as storage,
    };
    fn via<K: serde::de::DeserializeOwned + serde::Serialize>(v: &Value) -> Value {
        let k: K = serde_json::from_value(v.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", std::any::type_name::<K>()));
        serde_json::to_value(k).unwrap()
    }
    let mut out = match kind {
        "Pod" => via::<core::Pod>(v),
        "Namespace" => via::<core::Namespace>(v),
        "ConfigMap" => via::<core::ConfigMap>(v),
        "Node" => via::<core::Node>(v),
        "Service" => via::<core::Service>(v),
        "Endpoints" => via::<core::Endpoints>(v),
        "Event" => via::<core::Event>(v),
        "Secret" => via::<core::Secret>(v),
        "ServiceAccount" => via::<core::ServiceAccount>(v),
        "PersistentVolumeClaim" => via::<core::PersistentVolumeClaim>(v),
        "PersistentVolume" => via::<core::PersistentVolume>(v),
        "ResourceQuota" => via::<core::ResourceQuota>(v),
        "LimitRange" => via::<core::LimitRange>(v),
        "Deployment" => via::<apps::Deployment>(v),
        "ReplicaSet" => via::<apps::ReplicaSet>(v),
        "StatefulSet" => via::<apps::StatefulSet>(v),
        "DaemonSet" => via::<apps::DaemonSet>(v),
        "Job" => via::<batch::Job>(v),
        "CronJob" => via::<batch::CronJob>(v),
        "Ingress" => via::<networking::Ingress>(v),
        "NetworkPolicy" => via::<networking::NetworkPolicy>(v),
        "PodDisruptionBudget" => via::<policy::PodDisruptionBudget>(v),
        "HorizontalPodAutoscaler" => via::<autoscaling::HorizontalPodAutoscaler>(v),
        "Role" => via::<rbac::Role>(v),
        "RoleBinding" => via::<rbac::RoleBinding>(v),
        "ClusterRole" => via::<rbac::ClusterRole>(v),
        "ClusterRoleBinding" => via::<rbac::ClusterRoleBinding>(v),
        "StorageClass" => via::<storage::StorageClass>(v),
        "EndpointSlice" => via::<discovery::EndpointSlice>(v),
        "Lease" => via::<coordination::Lease>(v),
        "PriorityClass" => via::<scheduling::PriorityClass>(v),
        other => panic!("no typed struct for {other}"),
    };
    if let Some(o) = out.as_object_mut() {
        o.remove("apiVersion");
        o.remove("kind");
    }
    out
}

/// The paths of `a` that `b` lacks (list elements as `[]`).
fn dropped(a: &Value, b: &Value, path: &str, out: &mut std::collections::BTreeSet<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match y.get(k) {
                    Some(w) => dropped(v, w, &p, out),
                    None => {
                        out.insert(p);
                    }
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (v, w) in x.iter().zip(y) {
                dropped(v, w, &format!("{path}[]"), out);
            }
        }
        _ => {}
    }
}

/// Every JSON name and value type of every table, checked against the Go types as `k8s-openapi`
/// (Kubernetes 1.33, the project's feature) has them: an object with every field of a kind's
/// table set reads into the typed struct (a value of the wrong JSON type is an error) and
/// writes back the same, except for the fields newer than 1.33, which the typed struct does not
/// know (listed here by the end of their path, each of which must still be needed). A
/// misspelled name in a table shows up as one more dropped path.
#[test]
fn every_table_field_has_the_json_name_and_type_of_the_go_field() {
    const NEWER_THAN_1_33: &[&str] = &[
        ".valueFrom.fileKeyRef",
        "[].restartPolicyRules",
        "spec.hostnameOverride",
        ".sources[].podCertificate",
        "Node:status.declaredFeatures",
        "Pod:status.allocatedResources",
        "Pod:status.resources",
        "Pod:status.extendedResourceClaimStatus",
    ];
    let mut got = std::collections::BTreeSet::new();
    for (api_version, kind) in KINDS {
        let msg = schema::kind(api_version, kind).unwrap();
        let mut data = every_field(msg, 0);
        data.remove("apiVersion");
        data.remove("kind");
        let obj = Value::Object(data);
        let typed = through_typed(kind, &obj);
        let mut paths = std::collections::BTreeSet::new();
        dropped(&obj, &typed, "", &mut paths);
        got.extend(paths.into_iter().map(|p| format!("{kind}:{p}")));
    }
    let unexplained: Vec<_> = got
        .iter()
        .filter(|p| !NEWER_THAN_1_33.iter().any(|n| p.ends_with(n)))
        .collect();
    assert!(unexplained.is_empty(), "{unexplained:#?}");
    for n in NEWER_THAN_1_33 {
        assert!(got.iter().any(|p| p.ends_with(n)), "{n} is not dropped");
    }
}

/// A zero that Go writes on the wire and its JSON keeps (no `omitempty` or a pointer) reads as
/// that zero from protobuf too: a StatefulSet's `ordinals.start: 0`, a disruption budget's
/// `maxUnavailable: 0`, a Job's `suspend: false`.
#[test]
fn zeros_that_json_keeps_read_back_from_protobuf() {
    let mut sts = fixture("statefulset");
    sts["spec"]["ordinals"] = json!({"start": 0});
    let mut pdb = fixture("pdb");
    pdb["spec"]["maxUnavailable"] = json!(0);
    if let Some(s) = pdb["spec"].as_object_mut() {
        s.remove("minAvailable");
    }
    let mut job = fixture("job");
    job["spec"]["suspend"] = json!(false);
    for (obj, msg) in [
        (sts, &schema::workloads::STATEFUL_SET),
        (pdb, &schema::policy::POD_DISRUPTION_BUDGET),
        (job, &schema::workloads::JOB),
    ] {
        let (json, pb) = both_ways(&obj, msg, &ObjectMask::ALL);
        assert_eq!(json, pb, "{}", msg.name);
    }
}
