//! Resolving what the user types after `:` to an API resource, and completing it.
//!
//! Until discovery answers, a built-in table of the common kinds lets the first view open at once;
//! discovery results (CRDs included) replace it.

use kube::api::ApiResource;

use super::compat::ResourceInfo;

fn builtin(
    group: &str,
    version: &str,
    kind: &str,
    plural: &str,
    namespaced: bool,
    short: &[&str],
) -> ResourceInfo {
    let api_version = if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    };
    ResourceInfo {
        api_resource: ApiResource {
            group: group.to_string(),
            version: version.to_string(),
            api_version,
            kind: kind.to_string(),
            plural: plural.to_string(),
        },
        namespaced,
        short_names: short.iter().map(|s| s.to_string()).collect(),
        singular: kind.to_lowercase(),
        verbs: ["get", "list", "watch", "delete"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        printer_columns: None,
    }
}

/// The common built-in kinds (used until discovery answers).
pub fn builtin_resources() -> Vec<ResourceInfo> {
    vec![
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
}

/// Find a resource by plural, singular, short name, kind (case-insensitive) or `plural.group`.
/// Core and well-known groups win over CRDs sharing a name.
pub fn resolve<'a>(resources: &'a [ResourceInfo], name: &str) -> Option<&'a ResourceInfo> {
    let n = name.to_lowercase();
    let hit = |r: &&ResourceInfo| {
        let ar = &r.api_resource;
        ar.plural == n
            || r.singular == n
            || ar.kind.to_lowercase() == n
            || r.short_names.iter().any(|s| s.to_lowercase() == n)
            || (!ar.group.is_empty() && format!("{}.{}", ar.plural, ar.group) == n)
    };
    resources.iter().filter(hit).min_by_key(|r| {
        (
            !r.api_resource.group.is_empty(),
            r.api_resource.group.contains('.'),
        )
    })
}

/// Words accepted after `:` besides resources.
pub const COMMANDS: [&str; 6] = ["ns", "ctx", "informers", "events", "help", "q"];

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
