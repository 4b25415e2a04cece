//! `:diff`: how the same-named object differs across the fleet's clusters (e.g. is `payments`
//! on the same image in eu and us). The runtime GETs the object from every member on its own
//! client; [`diff_text`] compares them field by field.
//!
//! Compared: every leaf of the object (`spec.template.spec.containers[0].image = ...`) but its
//! `status` and the fields a server sets on its own (uid, resourceVersion, generation,
//! creationTimestamp, managedFields, selfLink), which always differ between clusters.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// Metadata a server sets itself: never compared.
const SERVER_SET: &[&str] = &[
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "managedFields",
    "selfLink",
];

/// Leaf path → value text, for the comparable part of `obj`.
pub fn leaves(obj: &Value) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Value::Object(top) = obj {
        for (k, v) in top {
            match k.as_str() {
                "status" => {}
                "metadata" => {
                    if let Value::Object(meta) = v {
                        for (mk, mv) in meta {
                            if !SERVER_SET.contains(&mk.as_str()) {
                                walk(&format!("metadata.{mk}"), mv, &mut out);
                            }
                        }
                    }
                }
                _ => walk(k, v, &mut out),
            }
        }
    }
    out
}

fn walk(path: &str, v: &Value, out: &mut BTreeMap<String, String>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, child) in m {
                walk(&format!("{path}.{k}"), child, out);
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, child) in a.iter().enumerate() {
                walk(&format!("{path}[{i}]"), child, out);
            }
        }
        Value::String(s) => {
            out.insert(path.to_string(), s.clone());
        }
        other => {
            out.insert(path.to_string(), other.to_string());
        }
    }
}

/// The `:diff` screen's text: which clusters have the object, then each differing field with
/// every cluster's value (`(absent)` where a cluster lacks it), then how many fields agree.
/// `results` are in fleet order; `what` names the object (`deployments.apps shop/payments`).
pub fn diff_text(what: &str, results: &[(String, Result<Value, String>)]) -> String {
    let mut out = vec![format!(
        "{what} across {} clusters: {}",
        results.len(),
        results
            .iter()
            .map(|(c, _)| c.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )];
    let found: Vec<(&str, BTreeMap<String, String>)> = results
        .iter()
        .filter_map(|(c, r)| r.as_ref().ok().map(|v| (c.as_str(), leaves(v))))
        .collect();
    for (c, r) in results {
        if let Err(e) = r {
            out.push(format!("{c}: {e}"));
        }
    }
    out.push(String::new());
    if found.len() < 2 {
        out.push(format!(
            "nothing to compare: {} cluster{} the object",
            found.len(),
            if found.len() == 1 { " has" } else { "s have" }
        ));
        return out.join("\n");
    }
    let paths: BTreeSet<&String> = found.iter().flat_map(|(_, l)| l.keys()).collect();
    let width = found.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    let mut same = 0usize;
    let mut differing = Vec::new();
    for path in paths {
        let values: Vec<Option<&String>> = found.iter().map(|(_, l)| l.get(path)).collect();
        if values.iter().all(|v| *v == values[0]) {
            same += 1;
            continue;
        }
        differing.push(path.clone());
        for ((c, _), v) in found.iter().zip(&values) {
            differing.push(format!(
                "  {c:<width$}  {}",
                v.map(String::as_str).unwrap_or("(absent)")
            ));
        }
    }
    let n = differing.iter().filter(|l| !l.starts_with("  ")).count();
    if n == 0 {
        out.push(format!(
            "the same in every cluster that has it ({same} fields compared; status and server-set metadata left out)"
        ));
    } else {
        out.push(format!(
            "{n} field{} differ{} ({same} the same; status and server-set metadata left out):",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" }
        ));
        out.extend(differing);
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn deploy(image: &str, replicas: u32, uid: &str) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "payments", "namespace": "shop", "uid": uid,
                         "resourceVersion": "17", "labels": {"app": "payments"}},
            "spec": {"replicas": replicas,
                     "template": {"spec": {"containers": [{"name": "app", "image": image}]}}},
            "status": {"readyReplicas": 1}
        })
    }

    #[test]
    fn differing_fields_list_every_clusters_value_and_server_set_fields_are_ignored() {
        let text = diff_text(
            "deployments.apps shop/payments",
            &[
                ("prod-eu".into(), Ok(deploy("payments:1.4.2", 3, "a"))),
                ("prod-us".into(), Ok(deploy("payments:1.4.1", 3, "b"))),
                ("staging".into(), Err("not found".into())),
            ],
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "deployments.apps shop/payments across 3 clusters: prod-eu, prod-us, staging"
        );
        assert_eq!(lines[1], "staging: not found");
        assert!(lines[3].starts_with("1 field differs"), "{text}");
        assert_eq!(lines[4], "spec.template.spec.containers[0].image");
        assert_eq!(lines[5], "  prod-eu  payments:1.4.2");
        assert_eq!(lines[6], "  prod-us  payments:1.4.1");
        assert_eq!(
            lines.len(),
            7,
            "uid, resourceVersion and status are not compared: {text}"
        );
    }

    #[test]
    fn a_field_only_one_cluster_has_shows_absent_elsewhere() {
        let mut b = deploy("x", 2, "b");
        b["metadata"]["labels"]["canary"] = json!("true");
        let text = diff_text(
            "d",
            &[("eu".into(), Ok(deploy("x", 2, "a"))), ("us".into(), Ok(b))],
        );
        assert!(
            text.contains("metadata.labels.canary\n  eu  (absent)\n  us  true"),
            "{text}"
        );
    }

    #[test]
    fn identical_objects_and_a_single_copy_say_so() {
        let same = diff_text(
            "d",
            &[
                ("eu".into(), Ok(deploy("x", 2, "a"))),
                ("us".into(), Ok(deploy("x", 2, "b"))),
            ],
        );
        assert!(same.contains("the same in every cluster"), "{same}");
        let one = diff_text(
            "d",
            &[
                ("eu".into(), Ok(deploy("x", 2, "a"))),
                ("us".into(), Err("403 forbidden".into())),
            ],
        );
        assert!(
            one.contains("nothing to compare: 1 cluster has the object"),
            "{one}"
        );
    }
}
