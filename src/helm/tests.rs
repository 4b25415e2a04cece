use super::*;
use serde_json::json;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

fn sample_release() -> Value {
    json!({
        "name": "web",
        "namespace": "shop",
        "version": 3,
        "info": {
            "first_deployed": "2026-01-02T10:00:00.123456789Z",
            "last_deployed": "2026-01-05T12:30:00Z",
            "deleted": "",
            "description": "Upgrade complete",
            "status": "deployed",
            "notes": "Visit http://web.shop/"
        },
        "chart": {
            "metadata": {"name": "nginx", "version": "15.4.2", "appVersion": "1.25.3", "apiVersion": "v2"},
            "templates": [],
            "values": {"replicaCount": 1, "image": {"repository": "nginx", "tag": "1.25"}, "service": {"type": "ClusterIP"}}
        },
        "config": {"replicaCount": 3, "image": {"tag": "1.25.3"}, "service": null},
        "manifest": "---\n# Source: nginx/templates/svc.yaml\napiVersion: v1\nkind: Service\n",
        "hooks": []
    })
}

fn helm_secret(release: &Value) -> Value {
    let helm = encode_release(release);
    json!({
        "apiVersion": "v1",
        "kind": "Secret",
        "type": SECRET_TYPE,
        "metadata": {
            "name": "sh.helm.release.v1.web.v3",
            "namespace": "shop",
            "creationTimestamp": "2026-01-05T12:29:59Z",
            "labels": {"name": "web", "owner": "helm", "status": "deployed", "version": "3"}
        },
        "data": {"release": b64(helm.as_bytes())}
    })
}

#[test]
fn a_release_encoded_as_helm_does_decodes_back() {
    let r = decode_release(&encode_release(&sample_release())).unwrap();
    assert_eq!(r.name, "web");
    assert_eq!(r.version, 3);
    assert_eq!(r.info.status, "deployed");
    assert_eq!(r.chart_label(), "nginx-15.4.2");
    assert_eq!(r.chart.metadata.app_version, "1.25.3");
    assert!(r.manifest.contains("kind: Service"));
    assert_eq!(r.info.notes, "Visit http://web.shop/");
}

#[test]
fn a_secrets_release_is_base64_twice_and_a_configmaps_once() {
    let secret = helm_secret(&sample_release());
    let r = decode_object(&secret, Storage::Secret).unwrap();
    assert_eq!(r.name, "web");
    // Read as a ConfigMap, the Secret's value is one base64 too many: not gzip nor JSON.
    assert!(matches!(
        decode_object(&secret, Storage::ConfigMap),
        Err(HelmError::NotGzip(_))
    ));
    let cm = json!({
        "kind": "ConfigMap",
        "metadata": {"name": "sh.helm.release.v1.web.v3", "namespace": "shop",
                     "labels": {"owner": "helm", "name": "web", "version": "3"}},
        "data": {"release": encode_release(&sample_release())}
    });
    assert_eq!(decode_object(&cm, Storage::ConfigMap).unwrap().version, 3);
}

#[test]
fn a_release_stored_before_helm_compressed_them_is_read_as_json() {
    let data = b64(serde_json::to_vec(&sample_release()).unwrap().as_slice());
    assert_eq!(decode_release(&data).unwrap().name, "web");
}

#[test]
fn bad_release_data_gets_one_clear_error_each() {
    assert!(matches!(
        decode_release("%%% not base64"),
        Err(HelmError::NotBase64(_))
    ));
    assert!(matches!(
        decode_release(&b64(b"\x00\x01plain bytes")),
        Err(HelmError::NotGzip(_))
    ));
    // gzip's magic, then garbage.
    assert!(matches!(
        decode_release(&b64(b"\x1f\x8b\x08garbage")),
        Err(HelmError::NotGzip(_))
    ));
    let e = decode_release(&b64(&gzip(b"{\"name\": 3"))).unwrap_err();
    assert!(matches!(e, HelmError::BadJson(_)), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("the release is not helm's release JSON")
    );
    let no_data = json!({"kind": "Secret", "type": SECRET_TYPE, "metadata": {"name": "x"}});
    assert_eq!(
        decode_object(&no_data, Storage::Secret),
        Err(HelmError::NoData)
    );
    // Empty input neither panics nor passes.
    assert!(decode_release("").is_err());
}

#[test]
fn all_values_are_the_charts_defaults_under_the_users_values() {
    let r = decode_release(&encode_release(&sample_release())).unwrap();
    assert_eq!(
        r.user_values(),
        json!({"replicaCount": 3, "image": {"tag": "1.25.3"}, "service": null})
    );
    // The user's null removes the chart's key, as helm's coalescing does.
    assert_eq!(
        r.all_values(),
        json!({"replicaCount": 3, "image": {"repository": "nginx", "tag": "1.25.3"}})
    );
}

#[test]
fn a_row_reads_the_labels_and_the_decoded_chart() {
    let rev = revision_of(&helm_secret(&sample_release()), Storage::Secret).unwrap();
    assert_eq!(
        (rev.name.as_str(), rev.revision, rev.status.as_str()),
        ("web", 3, "deployed")
    );
    assert_eq!(rev.chart, "nginx-15.4.2");
    assert_eq!(rev.app_version, "1.25.3");
    assert_eq!(rev.updated, parse_time("2026-01-05T12:30:00Z"));
    assert_eq!(rev.error, None);
}

#[test]
fn a_row_whose_release_cannot_be_decoded_keeps_its_labels_and_says_why() {
    let mut s = helm_secret(&sample_release());
    s["data"]["release"] = json!(b64(b"not helm"));
    let rev = revision_of(&s, Storage::Secret).unwrap();
    assert_eq!((rev.name.as_str(), rev.revision), ("web", 3));
    assert!(rev.error.unwrap().contains("not base64"));
}

#[test]
fn objects_that_are_not_helms_give_no_row() {
    let mut s = helm_secret(&sample_release());
    s["type"] = json!("Opaque");
    assert_eq!(revision_of(&s, Storage::Secret), None);
    let mut s = helm_secret(&sample_release());
    s["metadata"]["labels"]["owner"] = json!("someone");
    assert_eq!(revision_of(&s, Storage::Secret), None);
}

#[test]
fn a_compacted_object_keeps_the_row_and_drops_the_release() {
    let s = helm_secret(&sample_release());
    let obj: kube::api::DynamicObject = serde_json::from_value(s.clone()).unwrap();
    let compacted = compact_object(obj, Storage::Secret);
    assert!(compacted.data.get("data").is_none());
    assert_eq!(
        cached_revision(&compacted),
        revision_of(&s, Storage::Secret)
    );
    // Compacting twice changes nothing.
    let again = compact_object(compacted.clone(), Storage::Secret);
    assert_eq!(again.data, compacted.data);
}

fn rev(ns: &str, name: &str, n: u64) -> Revision {
    Revision {
        namespace: ns.into(),
        name: name.into(),
        revision: n,
        status: "deployed".into(),
        chart: String::new(),
        app_version: String::new(),
        description: String::new(),
        updated: None,
        storage: Storage::Secret,
        object: format!("sh.helm.release.v1.{name}.v{n}"),
        error: None,
    }
}

#[test]
fn the_releases_are_the_latest_revision_of_each_and_the_history_newest_first() {
    let all = vec![
        rev("shop", "web", 1),
        rev("shop", "web", 3),
        rev("data", "web", 1),
        rev("shop", "web", 2),
    ];
    let l: Vec<(&str, u64)> = latest(&all)
        .iter()
        .map(|r| (r.namespace.as_str(), r.revision))
        .collect();
    assert_eq!(l, vec![("data", 1), ("shop", 3)]);
    let h: Vec<u64> = history(&all, "shop", "web")
        .iter()
        .map(|r| r.revision)
        .collect();
    assert_eq!(h, vec![3, 2, 1]);
}

/// Python's base64, gzip and json (an implementation that shares nothing with ours) read what
/// we encode, and we read what it encodes the way helm's Go code does.
#[test]
fn the_encoding_agrees_with_an_independent_implementation() {
    let Ok(out) = std::process::Command::new("python3")
        .arg("--version")
        .output()
    else {
        eprintln!("skipped: python3 is not installed");
        return;
    };
    assert!(out.status.success());
    let secret = helm_secret(&sample_release());
    let wire = secret["data"]["release"].as_str().unwrap();
    let script = r#"
import base64, gzip, json, sys
wire = sys.argv[1]
helm = base64.b64decode(wire)           # the Secret's wire encoding
raw = base64.b64decode(helm)            # helm's own base64
assert raw[:3] == b'\x1f\x8b\x08', raw[:3]
rel = json.loads(gzip.decompress(raw))
print(rel["name"], rel["version"], rel["chart"]["metadata"]["version"], rel["info"]["status"])
mine = {"name": "py", "version": 7, "info": {"status": "failed", "description": "d"},
        "chart": {"metadata": {"name": "c", "version": "1.0.0", "appVersion": "2"}},
        "config": {"a": 1}, "manifest": "m"}
print(base64.b64encode(gzip.compress(json.dumps(mine).encode())).decode())
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script, wire])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("web 3 15.4.2 deployed"));
    let theirs = decode_release(lines.next().unwrap()).unwrap();
    assert_eq!(
        (
            theirs.name.as_str(),
            theirs.version,
            theirs.info.status.as_str()
        ),
        ("py", 7, "failed")
    );
    assert_eq!(theirs.chart_label(), "c-1.0.0");
}
