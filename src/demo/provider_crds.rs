//! Many custom resource kinds, as Crossplane providers bring them (`--demo-crds N`): N
//! CustomResourceDefinitions spread over ⌈N/10⌉ API groups (`ec2.aws.demo.kinformer.io`, …), ten
//! kinds per group, each a cluster-scoped managed resource with Crossplane's printer columns
//! (READY, SYNCED, EXTERNAL-NAME, AGE) and a couple of objects.
//!
//! Invariants:
//! - kind `i` is the same in every process and cluster (group `i / 10`, kind `i % 10`), so the
//!   resource table ([`super::resources::RESOURCES`]) can hold all [`MAX`] of them once;
//! - a cluster serves kind `i` exactly while its CustomResourceDefinition object exists, as the
//!   apiextensions-apiserver serves a CRD once it is stored (discovery and the REST paths both
//!   ask [`super::DemoCluster::serves`]).
//!
//! Where this differs from kube-apiserver, and why: a CRD created through the API for any other
//! group does not make its kind served (only these generated kinds and the Widget are known to the
//! demo's resource table); the demo needs many kinds for scale figures, not a CRD controller.

use serde_json::{Value, json};

use super::mutation::ResourceId;
use super::resources::ResourceInfo;

/// The most kinds `--demo-crds` accepts.
pub const MAX: usize = 1000;

/// Kinds per group, as a provider family's service brings a handful each.
pub const PER_GROUP: usize = 10;

/// The groups' services (Crossplane's AWS provider family); past these, `svcN`.
const SERVICES: &[&str] = &[
    "ec2",
    "s3",
    "iam",
    "rds",
    "eks",
    "lambda",
    "sqs",
    "sns",
    "dynamodb",
    "route53",
    "cloudwatch",
    "kms",
    "ecr",
    "ecs",
    "elasticache",
    "efs",
    "cloudfront",
    "apigateway",
    "secretsmanager",
    "ssm",
    "elb",
    "glue",
    "kinesis",
    "logs",
    "opensearch",
    "redshift",
    "sfn",
    "acm",
    "backup",
    "batch",
];

/// The ten kinds of every group (plural: lower-case kind + `s`).
const KINDS: [&str; PER_GROUP] = [
    "Instance", "Bucket", "Cluster", "Queue", "Topic", "Table", "Function", "Key", "Volume",
    "Gateway",
];

/// The categories every generated kind is in (`kubectl get managed`).
const CATEGORIES: &[&str] = &["crossplane", "managed", "aws"];

/// The domain every generated group ends in.
pub const DOMAIN: &str = "aws.demo.kinformer.io";

fn leak(s: String) -> &'static str {
    Box::leak(s.into_boxed_str())
}

/// The group of kind `i`.
pub fn group_name(i: usize) -> String {
    let g = i / PER_GROUP;
    match SERVICES.get(g) {
        Some(s) => format!("{s}.{DOMAIN}"),
        None => format!("svc{g}.{DOMAIN}"),
    }
}

/// Every generated kind's row of the resource table (built once per process).
pub fn resource_infos() -> Vec<ResourceInfo> {
    (0..MAX)
        .map(|i| {
            let kind = KINDS[i % PER_GROUP];
            let singular = kind.to_lowercase();
            let plural = leak(format!("{singular}s"));
            ResourceInfo {
                id: ResourceId::new(leak(group_name(i)), "v1", plural),
                kind,
                singular: leak(singular),
                namespaced: false,
                short_names: &[],
                categories: CATEGORIES,
                status_subresource: true,
                extra_fields: &[],
            }
        })
        .collect()
}

/// Whether a resource is one of the generated managed-resource kinds.
pub fn is_generated(info: &ResourceInfo) -> bool {
    info.id.group.ends_with(DOMAIN)
}

/// The CRD's name (`instances.ec2.aws.demo.kinformer.io`).
pub fn crd_name(info: &ResourceInfo) -> String {
    format!("{}.{}", info.id.plural, info.id.group)
}

/// The CustomResourceDefinition of a generated kind, with a spec schema of the size a provider's
/// CRD has (a few dozen `forProvider` fields).
pub fn crd(info: &ResourceInfo) -> Value {
    let mut for_provider = serde_json::Map::new();
    for f in 0..24 {
        for_provider.insert(
            format!("parameter{f}"),
            json!({"type": "string", "description": format!("Parameter {f} of the {} as the provider's API names it.", info.kind)}),
        );
    }
    for_provider.insert("region".into(), json!({"type": "string", "description": "Region is the region you'd like your resource to be created in."}));
    let condition = json!({"type": "object", "required": ["lastTransitionTime", "reason", "status", "type"],
        "properties": {"lastTransitionTime": {"type": "string", "format": "date-time"},
            "message": {"type": "string"}, "reason": {"type": "string"},
            "status": {"type": "string"}, "type": {"type": "string"}}});
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": crd_name(info),
            "labels": {"pkg.crossplane.io/provider": format!("provider-aws-{}", info.id.group.split('.').next().unwrap_or(""))}},
        "spec": {
            "group": info.id.group,
            "names": {"plural": info.id.plural, "singular": info.singular, "kind": info.kind,
                      "listKind": format!("{}List", info.kind), "categories": CATEGORIES},
            "scope": "Cluster",
            "conversion": {"strategy": "None"},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "READY", "type": "string", "jsonPath": ".status.conditions[?(@.type=='Ready')].status"},
                    {"name": "SYNCED", "type": "string", "jsonPath": ".status.conditions[?(@.type=='Synced')].status"},
                    {"name": "EXTERNAL-NAME", "type": "string", "jsonPath": ".metadata.annotations.crossplane\\.io/external-name"},
                    {"name": "AGE", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
                ],
                "schema": {"openAPIV3Schema": {
                    "type": "object",
                    "description": format!("{} is the Schema for the {} API.", info.kind, info.id.plural),
                    "properties": {
                        "apiVersion": {"type": "string"},
                        "kind": {"type": "string"},
                        "metadata": {"type": "object"},
                        "spec": {"type": "object", "required": ["forProvider"], "properties": {
                            "deletionPolicy": {"type": "string", "enum": ["Orphan", "Delete"], "default": "Delete"},
                            "forProvider": {"type": "object", "properties": Value::Object(for_provider)},
                            "providerConfigRef": {"type": "object", "properties": {"name": {"type": "string"}}}}},
                        "status": {"type": "object", "properties": {
                            "atProvider": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                            "conditions": {"type": "array", "items": condition,
                                "x-kubernetes-list-map-keys": ["type"], "x-kubernetes-list-type": "map"}}}
                    }
                }}
            }]
        },
        "status": {"acceptedNames": {"plural": info.id.plural, "singular": info.singular, "kind": info.kind,
                   "listKind": format!("{}List", info.kind), "categories": CATEGORIES},
                   "storedVersions": ["v1"],
                   "conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}]}
    })
}

/// The `n`-th object of a generated kind (`n` of two: one ready, one still syncing).
pub fn object(info: &ResourceInfo, i: usize, n: usize) -> Value {
    let name = format!("{}-{i}-{}", info.singular, ["a", "b"][n % 2]);
    let ready = if n.is_multiple_of(2) { "True" } else { "False" };
    let now = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    json!({
        "apiVersion": format!("{}/v1", info.id.group),
        "kind": info.kind,
        "metadata": {"name": name,
            "annotations": {"crossplane.io/external-name": format!("{}-{i:04}{n}", &info.singular[..3.min(info.singular.len())])}},
        "spec": {"forProvider": {"region": "eu-west-1"}, "providerConfigRef": {"name": "default"},
                 "deletionPolicy": "Delete"},
        "status": {"conditions": [
            {"type": "Ready", "status": ready, "reason": if ready == "True" {"Available"} else {"Creating"}, "lastTransitionTime": now},
            {"type": "Synced", "status": "True", "reason": "ReconcileSuccess", "lastTransitionTime": now}
        ]}
    })
}

/// The server-side Table columns of a generated kind (its CRD's printer columns).
pub fn table_columns() -> [(&'static str, &'static str); 4] {
    [
        ("READY", "string"),
        ("SYNCED", "string"),
        ("EXTERNAL-NAME", "string"),
        ("AGE", "date"),
    ]
}

/// A generated object's cells after its name: READY, SYNCED, EXTERNAL-NAME (AGE is the caller's).
pub fn table_cells(o: &Value) -> [Value; 3] {
    let condition = |t: &str| {
        o.pointer("/status/conditions")
            .and_then(Value::as_array)
            .and_then(|cs| cs.iter().find(|c| c["type"] == t))
            .map_or(Value::Null, |c| c["status"].clone())
    };
    let external = o
        .pointer("/metadata/annotations")
        .and_then(|a| a.get("crossplane.io/external-name"))
        .cloned()
        .unwrap_or(Value::Null);
    [condition("Ready"), condition("Synced"), external]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_spread_ten_to_a_group_with_crossplane_names() {
        let infos = resource_infos();
        assert_eq!(infos.len(), MAX);
        assert_eq!(infos[0].id.group, "ec2.aws.demo.kinformer.io");
        assert_eq!(infos[0].id.plural, "instances");
        assert_eq!(infos[9].id.group, infos[0].id.group);
        assert_eq!(infos[10].id.group, "s3.aws.demo.kinformer.io");
        assert_eq!(infos[10].kind, "Instance");
        assert_eq!(infos[999].id.group, "svc99.aws.demo.kinformer.io");
        assert_eq!(crd_name(&infos[11]), "buckets.s3.aws.demo.kinformer.io");
    }
}
