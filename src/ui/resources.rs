//! Resolving what the user types after `:` to an API resource, and completing it.
//!
//! Until discovery answers, a built-in table of the common kinds lets the first view open at once;
//! discovery results (CRDs included) replace it.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::APIResource;

use crate::cluster::ResourceInfo;
use crate::render::PrinterColumn;

fn builtin(
    group: &str,
    version: &str,
    kind: &str,
    plural: &str,
    namespaced: bool,
    short: &[&str],
) -> Option<ResourceInfo> {
    let r = APIResource {
        name: plural.to_string(),
        kind: kind.to_string(),
        namespaced,
        singular_name: kind.to_lowercase(),
        short_names: Some(short.iter().map(|s| s.to_string()).collect()),
        verbs: ["get", "list", "watch", "delete"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        ..Default::default()
    };
    ResourceInfo::from_api_resource(group, version, &r)
}

/// The common built-in kinds (used until discovery answers).
pub fn builtin_resources() -> Vec<ResourceInfo> {
    [
        builtin("", "v1", "Pod", "pods", true, &["po"]),
        builtin("apps", "v1", "Deployment", "deployments", true, &["deploy"]),
        builtin("apps", "v1", "ReplicaSet", "replicasets", true, &["rs"]),
        builtin("apps", "v1", "StatefulSet", "statefulsets", true, &["sts"]),
        builtin("apps", "v1", "DaemonSet", "daemonsets", true, &["ds"]),
        builtin("batch", "v1", "Job", "jobs", true, &[]),
        builtin("batch", "v1", "CronJob", "cronjobs", true, &["cj"]),
        builtin("", "v1", "Service", "services", true, &["svc"]),
        builtin("", "v1", "ConfigMap", "configmaps", true, &["cm"]),
        builtin("", "v1", "Secret", "secrets", true, &[]),
        builtin("", "v1", "ServiceAccount", "serviceaccounts", true, &["sa"]),
        builtin("", "v1", "Event", "events", true, &["ev"]),
        builtin("", "v1", "Node", "nodes", false, &["no"]),
        builtin("", "v1", "Namespace", "namespaces", false, &["ns"]),
        builtin(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
            "customresourcedefinitions",
            false,
            &["crd", "crds"],
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Find a resource by plural, singular, short name, kind (case-insensitive) or `plural.group`
/// (kubectl's rules, see [`crate::cluster::resolve`]).
/// k9s's own aliases (`:dp`, `:sec`, ... see [`K9S_ALIASES`](super::screens::aliases::K9S_ALIASES))
/// are tried when nothing else matches.
pub fn resolve<'a>(resources: &'a [ResourceInfo], name: &str) -> Option<&'a ResourceInfo> {
    crate::cluster::resolve(resources, name).or_else(|| {
        super::screens::aliases::k9s_alias(name.trim())
            .and_then(|target| crate::cluster::resolve(resources, target))
    })
}

/// The CRD additionalPrinterColumns of a resource, from discovery (`None`: built-in kind, or a
/// CRD without them, shown as NAME AGE).
pub fn printer_columns_of(resource: &ResourceInfo) -> Option<&[PrinterColumn]> {
    resource.printer_columns.as_deref()
}

/// Words accepted after `:` besides resources.
pub const COMMANDS: [&str; 11] = [
    "ns",
    "ctx",
    "informers",
    "events",
    "pulse",
    "pulses",
    "xray",
    "changes",
    "messages",
    "help",
    "q",
];

/// The root kinds `:xray` takes.
pub const XRAY_KINDS: [&str; 7] = ["deploy", "sts", "ds", "job", "svc", "node", "ns"];

/// Completion candidates for a command-line prefix, best first.
pub fn complete(
    resources: &[ResourceInfo],
    namespaces: &[String],
    contexts: &[String],
    input: &str,
) -> Vec<String> {
    let lower = input.to_lowercase();
    if let Some(rest) = lower.strip_prefix("ns ") {
        return namespaces
            .iter()
            .filter(|n| n.starts_with(rest.trim()))
            .map(|n| format!("ns {n}"))
            .collect();
    }
    if let Some(rest) = input.strip_prefix("ctx ") {
        return contexts
            .iter()
            .filter(|n| n.starts_with(rest.trim()))
            .map(|n| format!("ctx {n}"))
            .collect();
    }
    if let Some(rest) = lower.strip_prefix("xray ") {
        return XRAY_KINDS
            .iter()
            .filter(|k| k.starts_with(rest.trim()))
            .map(|k| format!("xray {k}"))
            .collect();
    }
    if lower.is_empty() {
        return vec![];
    }
    let mut out: Vec<String> = COMMANDS
        .iter()
        .filter(|c| c.starts_with(&lower))
        .map(|c| c.to_string())
        .collect();
    for r in resources {
        let names = std::iter::once(r.api_resource.plural.as_str())
            .chain(std::iter::once(r.singular.as_str()))
            .chain(r.short_names.iter().map(String::as_str));
        for n in names {
            if n.starts_with(&lower) && !out.iter().any(|o| o == n) {
                out.push(n.to_string());
            }
        }
    }
    out.sort_by_key(|s| s.len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_plural_singular_short_name_and_kind() {
        let rs = builtin_resources();
        for name in ["po", "pod", "pods", "Pod", "PODS"] {
            assert_eq!(
                resolve(&rs, name).map(|r| r.api_resource.kind.as_str()),
                Some("Pod"),
                "{name}"
            );
        }
        assert_eq!(
            resolve(&rs, "deploy").map(|r| r.api_resource.plural.as_str()),
            Some("deployments")
        );
        assert_eq!(
            resolve(&rs, "svc").map(|r| r.api_resource.plural.as_str()),
            Some("services")
        );
        assert_eq!(
            resolve(&rs, "deployments.apps").map(|r| r.api_resource.kind.as_str()),
            Some("Deployment")
        );
        assert!(resolve(&rs, "nonsense").is_none());
    }

    #[test]
    fn completes_resources_commands_and_namespaces() {
        let rs = builtin_resources();
        let c = complete(&rs, &[], &[], "dep");
        assert_eq!(c.first().map(String::as_str), Some("deploy"));
        let c = complete(&rs, &["default".into(), "kube-system".into()], &[], "ns ku");
        assert_eq!(c, vec!["ns kube-system".to_string()]);
        assert!(complete(&rs, &[], &[], "inf").contains(&"informers".to_string()));
    }
}
