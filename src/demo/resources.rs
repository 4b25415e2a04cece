//! The kinds the demo server serves, and the discovery documents describing them.

use serde_json::{Value, json};

use super::mutation::ResourceId;

/// Static description of one served resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceInfo {
    pub id: ResourceId,
    pub kind: &'static str,
    pub singular: &'static str,
    pub namespaced: bool,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    /// Subresources served (`status`).
    pub status_subresource: bool,
    /// Field selector labels accepted besides `metadata.name` and `metadata.namespace`.
    pub extra_fields: &'static [&'static str],
}

const ALL: &[&str] = &["all"];
const NONE: &[&str] = &[];

#[allow(clippy::too_many_arguments)] // a row of the static table below
const fn r(
    group: &'static str,
    plural: &'static str,
    kind: &'static str,
    singular: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    categories: &'static [&'static str],
    extra_fields: &'static [&'static str],
) -> ResourceInfo {
    ResourceInfo {
        id: ResourceId::new(group, "v1", plural),
        kind,
        singular,
        namespaced,
        short_names,
        categories,
        status_subresource: true,
        extra_fields,
    }
}

/// For kinds without a `status` subresource (configmaps, secrets, events, serviceaccounts).
const fn no_status(mut r: ResourceInfo) -> ResourceInfo {
    r.status_subresource = false;
    r
}

/// For a kind served at another version than `v1` (`autoscaling/v2`).
const fn version(v: &'static str, mut r: ResourceInfo) -> ResourceInfo {
    r.id.version = v;
    r
}

/// The demo CRD group.
pub const DEMO_GROUP: &str = "demo.kinformer.io";

/// Every resource served, in discovery order: the built-in kinds and the Widget, then the
/// generated provider kinds of [`super::provider_crds`] (served only while their CRD exists).
pub static RESOURCES: std::sync::LazyLock<Vec<ResourceInfo>> = std::sync::LazyLock::new(|| {
    let mut all = BUILTIN.to_vec();
    all.extend(super::provider_crds::resource_infos());
    all
});

/// How many of [`RESOURCES`] every cluster serves (the generated kinds follow).
pub fn builtin_len() -> usize {
    BUILTIN.len()
}

/// The kinds every demo cluster serves.
const BUILTIN: &[ResourceInfo] = &[
    r(
        "",
        "namespaces",
        "Namespace",
        "namespace",
        false,
        &["ns"],
        NONE,
        &["status.phase"],
    ),
    r(
        "",
        "nodes",
        "Node",
        "node",
        false,
        &["no"],
        NONE,
        &["spec.unschedulable"],
    ),
    r(
        "",
        "pods",
        "Pod",
        "pod",
        true,
        &["po"],
        ALL,
        &[
            "spec.nodeName",
            "status.phase",
            "spec.restartPolicy",
            "spec.schedulerName",
            "spec.serviceAccountName",
            "status.podIP",
            "status.nominatedNodeName",
        ],
    ),
    r(
        "",
        "services",
        "Service",
        "service",
        true,
        &["svc"],
        ALL,
        &["spec.type", "spec.clusterIP"],
    ),
    no_status(r(
        "",
        "configmaps",
        "ConfigMap",
        "configmap",
        true,
        &["cm"],
        NONE,
        &[],
    )),
    no_status(r(
        "",
        "secrets",
        "Secret",
        "secret",
        true,
        NONE,
        NONE,
        &["type"],
    )),
    no_status(r(
        "",
        "events",
        "Event",
        "event",
        true,
        &["ev"],
        NONE,
        &[
            "involvedObject.kind",
            "involvedObject.namespace",
            "involvedObject.name",
            "involvedObject.uid",
            "involvedObject.apiVersion",
            "involvedObject.resourceVersion",
            "involvedObject.fieldPath",
            "reason",
            "reportingComponent",
            "source",
            "type",
        ],
    )),
    no_status(r(
        "",
        "serviceaccounts",
        "ServiceAccount",
        "serviceaccount",
        true,
        &["sa"],
        NONE,
        &[],
    )),
    r(
        "apps",
        "deployments",
        "Deployment",
        "deployment",
        true,
        &["deploy"],
        ALL,
        &[],
    ),
    r(
        "apps",
        "replicasets",
        "ReplicaSet",
        "replicaset",
        true,
        &["rs"],
        ALL,
        &["status.replicas"],
    ),
    r(
        "apps",
        "statefulsets",
        "StatefulSet",
        "statefulset",
        true,
        &["sts"],
        ALL,
        &[],
    ),
    r(
        "apps",
        "daemonsets",
        "DaemonSet",
        "daemonset",
        true,
        &["ds"],
        ALL,
        &[],
    ),
    r(
        "batch",
        "jobs",
        "Job",
        "job",
        true,
        NONE,
        ALL,
        &["status.successful"],
    ),
    r(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        "CustomResourceDefinition",
        "customresourcedefinition",
        false,
        &["crd", "crds"],
        NONE,
        &[],
    ),
    r(
        DEMO_GROUP,
        "widgets",
        "Widget",
        "widget",
        true,
        &["wd"],
        NONE,
        &[],
    ),
    r(
        "policy",
        "poddisruptionbudgets",
        "PodDisruptionBudget",
        "poddisruptionbudget",
        true,
        &["pdb"],
        NONE,
        &[],
    ),
    r(
        "batch",
        "cronjobs",
        "CronJob",
        "cronjob",
        true,
        &["cj"],
        ALL,
        &[],
    ),
    r(
        "",
        "persistentvolumeclaims",
        "PersistentVolumeClaim",
        "persistentvolumeclaim",
        true,
        &["pvc"],
        NONE,
        &[],
    ),
    r(
        "",
        "persistentvolumes",
        "PersistentVolume",
        "persistentvolume",
        false,
        &["pv"],
        NONE,
        &[],
    ),
    r(
        "networking.k8s.io",
        "ingresses",
        "Ingress",
        "ingress",
        true,
        &["ing"],
        NONE,
        &[],
    ),
    version(
        "v2",
        r(
            "autoscaling",
            "horizontalpodautoscalers",
            "HorizontalPodAutoscaler",
            "horizontalpodautoscaler",
            true,
            &["hpa"],
            ALL,
            &[],
        ),
    ),
    no_status(r(
        "rbac.authorization.k8s.io",
        "roles",
        "Role",
        "role",
        true,
        NONE,
        NONE,
        &[],
    )),
    no_status(r(
        "rbac.authorization.k8s.io",
        "rolebindings",
        "RoleBinding",
        "rolebinding",
        true,
        NONE,
        NONE,
        &[],
    )),
    no_status(r(
        "rbac.authorization.k8s.io",
        "clusterroles",
        "ClusterRole",
        "clusterrole",
        false,
        NONE,
        NONE,
        &[],
    )),
    no_status(r(
        "rbac.authorization.k8s.io",
        "clusterrolebindings",
        "ClusterRoleBinding",
        "clusterrolebinding",
        false,
        NONE,
        NONE,
        &[],
    )),
    no_status(r(
        "networking.k8s.io",
        "networkpolicies",
        "NetworkPolicy",
        "networkpolicy",
        true,
        &["netpol"],
        NONE,
        &[],
    )),
    no_status(r(
        "storage.k8s.io",
        "storageclasses",
        "StorageClass",
        "storageclass",
        false,
        &["sc"],
        NONE,
        &[],
    )),
    no_status(r(
        "discovery.k8s.io",
        "endpointslices",
        "EndpointSlice",
        "endpointslice",
        true,
        NONE,
        NONE,
        &[],
    )),
    no_status(r(
        "coordination.k8s.io",
        "leases",
        "Lease",
        "lease",
        true,
        NONE,
        NONE,
        &[],
    )),
    r(
        "",
        "resourcequotas",
        "ResourceQuota",
        "resourcequota",
        true,
        &["quota"],
        NONE,
        &[],
    ),
    no_status(r(
        "",
        "limitranges",
        "LimitRange",
        "limitrange",
        true,
        &["limits"],
        NONE,
        &[],
    )),
    no_status(r(
        "scheduling.k8s.io",
        "priorityclasses",
        "PriorityClass",
        "priorityclass",
        false,
        &["pc"],
        NONE,
        &[],
    )),
];

/// Index of a resource in [`RESOURCES`].
pub fn find(group: &str, version: &str, plural: &str) -> Option<usize> {
    RESOURCES
        .iter()
        .position(|r| r.id.group == group && r.id.version == version && r.id.plural == plural)
}

/// Index of a resource by its [`ResourceId`].
pub fn find_id(id: &ResourceId) -> Option<usize> {
    find(id.group, id.version, id.plural)
}

impl ResourceInfo {
    /// `v1` or `apps/v1`.
    pub fn api_version(&self) -> String {
        if self.id.group.is_empty() {
            self.id.version.to_string()
        } else {
            format!("{}/{}", self.id.group, self.id.version)
        }
    }

    /// Whether `field` may be used in a field selector for this resource.
    pub fn supports_field(&self, field: &str) -> bool {
        field == "metadata.name"
            || field == "metadata.namespace"
            || self.extra_fields.contains(&field)
    }
}

const VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];

/// `APIResourceList` for one group/version (`/api/v1`, `/apis/apps/v1`).
/// Only the kinds `served` says the cluster serves are listed (see [`Served`]).
pub fn api_resource_list(group: &str, version: &str, served: Served<'_>) -> Option<Value> {
    let gv = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    let mut resources = Vec::new();
    for (_, r) in RESOURCES
        .iter()
        .enumerate()
        .filter(|(i, r)| r.id.group == group && r.id.version == version && served(*i))
    {
        let mut entry = json!({
            "name": r.id.plural,
            "singularName": r.singular,
            "namespaced": r.namespaced,
            "kind": r.kind,
            "verbs": VERBS,
        });
        if !r.short_names.is_empty() {
            entry["shortNames"] = json!(r.short_names);
        }
        if !r.categories.is_empty() {
            entry["categories"] = json!(r.categories);
        }
        resources.push(entry);
        if matches!(r.id.plural, "deployments" | "replicasets" | "statefulsets") {
            resources.push(json!({
                "name": format!("{}/scale", r.id.plural),
                "singularName": "",
                "namespaced": true,
                "group": "autoscaling",
                "version": "v1",
                "kind": "Scale",
                "verbs": ["get", "patch", "update"],
            }));
        }
        if r.id.plural == "pods" {
            // What `kubectl drain` looks up to use the Eviction API (policy/v1).
            resources.push(json!({
                "name": "pods/eviction",
                "singularName": "",
                "namespaced": true,
                "group": "policy",
                "version": "v1",
                "kind": "Eviction",
                "verbs": ["create"],
            }));
        }
        if r.status_subresource {
            resources.push(json!({
                "name": format!("{}/status", r.id.plural),
                "singularName": "",
                "namespaced": r.namespaced,
                "kind": r.kind,
                "verbs": ["get", "patch", "update"],
            }));
        }
    }
    if resources.is_empty() {
        return None;
    }
    Some(json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": gv,
        "resources": resources,
    }))
}

/// `APIVersions` for `/api`.
pub fn api_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}],
    })
}

/// Whether the cluster serves the kind at this index of [`RESOURCES`]
/// ([`super::DemoCluster::serves`]).
pub type Served<'a> = &'a dyn Fn(usize) -> bool;

fn groups(served: Served<'_>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (i, r) in RESOURCES.iter().enumerate() {
        if !r.id.group.is_empty() && served(i) && seen.insert(r.id.group) {
            out.push(r.id.group);
        }
    }
    out
}

fn api_group(name: &str) -> Value {
    let v = RESOURCES
        .iter()
        .find(|r| r.id.group == name)
        .map_or("v1", |r| r.id.version);
    let gv = json!({"groupVersion": format!("{name}/{v}"), "version": v});
    json!({"name": name, "versions": [gv.clone()], "preferredVersion": gv})
}

/// `APIGroupList` for `/apis` (with `authorization.k8s.io`, served by [`super::rbac`]).
pub fn api_group_list(served: Served<'_>) -> Value {
    let mut groups: Vec<Value> = groups(served).into_iter().map(api_group).collect();
    groups.push(api_group("authorization.k8s.io"));
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `APIGroup` for `/apis/{group}`.
pub fn api_group_doc(group: &str, served: Served<'_>) -> Option<Value> {
    groups(served).contains(&group).then(|| {
        let mut g = api_group(group);
        g["kind"] = json!("APIGroup");
        g["apiVersion"] = json!("v1");
        g
    })
}

/// `APIGroup` for `/apis/authorization.k8s.io`.
pub fn authorization_group_doc() -> Value {
    let mut g = api_group("authorization.k8s.io");
    g["kind"] = json!("APIGroup");
    g["apiVersion"] = json!("v1");
    g
}

/// `/version`.
pub fn version_info() -> Value {
    json!({
        "major": "1",
        "minor": "33",
        "gitVersion": "v1.33.0",
        "gitCommit": "kinformer-demo",
        "gitTreeState": "clean",
        "buildDate": "2025-04-23T00:00:00Z",
        "goVersion": "go1.24.2",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

/// The `CustomResourceDefinition` describing the demo `Widget` kind.
pub fn widget_crd() -> Value {
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{DEMO_GROUP}")},
        "spec": {
            "group": DEMO_GROUP,
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                      "listKind": "WidgetList", "shortNames": ["wd"]},
            "scope": "Namespaced",
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": {"type": "object",
                    "x-kubernetes-preserve-unknown-fields": true}},
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "Color", "type": "string", "jsonPath": ".spec.color"},
                    {"name": "Size", "type": "string", "jsonPath": ".spec.size"},
                    {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
                ]
            }]
        },
        "status": {"acceptedNames": {"plural": "widgets", "singular": "widget", "kind": "Widget",
                   "listKind": "WidgetList", "shortNames": ["wd"]},
                   "storedVersions": ["v1"],
                   "conditions": [{"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}]}
    })
}
