//! `/openapi/v3`: the OpenAPI v3 discovery kube-apiserver serves (`k8s.io/kube-openapi`'s
//! `handler3`): an index of group-versions, each with the `serverRelativeURL` of its document
//! (`?hash=` of its content, so clients may cache it), and per group-version a document whose
//! `components.schemas` hold each kind's schema tagged `x-kubernetes-group-version-kind`.
//!
//! Where it differs, and why: only the demo's CustomResourceDefinition (Widget) is published,
//! from its `openAPIV3Schema`, as kube-apiserver publishes a CRD's; the built-in kinds have no
//! schema here (there is no generated OpenAPI of them in the demo), so their group-versions are
//! not in the index and a client falls back as it would for a server without OpenAPI v3.

use serde_json::{Value, json};

use super::objects::widget_crd;

/// The published CRDs' group, version, kind and schema.
fn published() -> Vec<(String, String, String, Value)> {
    let crd = widget_crd("", 0);
    let spec = &crd["spec"];
    let group = spec["group"].as_str().unwrap_or_default().to_string();
    let kind = spec["names"]["kind"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    spec["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|v| v["served"].as_bool() == Some(true))
        .filter_map(|v| {
            let schema = v.pointer("/schema/openAPIV3Schema")?.clone();
            Some((
                group.clone(),
                v["name"].as_str()?.to_string(),
                kind.clone(),
                schema,
            ))
        })
        .collect()
}

/// A schema's name in `components.schemas`: the reversed group, the version, the kind
/// (`io.kinformer.demo.v1.Widget`), as kube-apiserver names a CRD's.
fn schema_name(group: &str, version: &str, kind: &str) -> String {
    let mut parts: Vec<&str> = group.split('.').collect();
    parts.reverse();
    format!("{}.{version}.{kind}", parts.join("."))
}

/// The group-version document of `apis/GROUP/VERSION`, if one is published.
pub fn group_version_doc(group: &str, version: &str) -> Option<Value> {
    let mut schemas = serde_json::Map::new();
    for (g, v, kind, mut schema) in published() {
        if g != group || v != version {
            continue;
        }
        if let Some(o) = schema.as_object_mut() {
            o.insert(
                "x-kubernetes-group-version-kind".into(),
                json!([{"group": g, "kind": kind, "version": v}]),
            );
        }
        schemas.insert(schema_name(&g, &v, &kind), schema);
    }
    if schemas.is_empty() {
        return None;
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes CRD Swagger", "version": "v0.1.0"},
        "paths": {},
        "components": {"schemas": schemas},
    }))
}

/// The `/openapi/v3` index.
pub fn index() -> Value {
    let mut paths = serde_json::Map::new();
    for (g, v, _, _) in published() {
        let key = format!("apis/{g}/{v}");
        let hash = group_version_doc(&g, &v)
            .map(|d| {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                d.to_string().hash(&mut h);
                format!("{:016X}", h.finish())
            })
            .unwrap_or_default();
        paths.insert(
            key.clone(),
            json!({"serverRelativeURL": format!("/openapi/v3/{key}?hash={hash}")}),
        );
    }
    json!({"paths": paths})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_names_the_crds_group_version_document_which_tags_its_kind() {
        let index = index();
        let url = index
            .pointer("/paths/apis~1demo.kinformer.io~1v1/serverRelativeURL")
            .and_then(Value::as_str)
            .unwrap();
        assert!(
            url.starts_with("/openapi/v3/apis/demo.kinformer.io/v1?hash="),
            "{url}"
        );
        let doc = group_version_doc("demo.kinformer.io", "v1").unwrap();
        let widget = &doc["components"]["schemas"]["io.kinformer.demo.v1.Widget"];
        assert_eq!(
            widget["x-kubernetes-group-version-kind"],
            json!([{"group": "demo.kinformer.io", "kind": "Widget", "version": "v1"}])
        );
        assert_eq!(widget["properties"]["spec"]["required"], json!(["size"]));
        assert!(group_version_doc("apps", "v1").is_none());
    }
}
