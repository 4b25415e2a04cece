//! A demo fleet: several demo API servers, each with its own name and seed, and one kubeconfig
//! with a context per server (`--demo-clusters N`, `demo-server --clusters N`).
//!
//! Each member is a separate [`super::DemoServer`] on its own port with its own storage, fault
//! injector and resourceVersions: nothing is shared, as between two real clusters. This module
//! only names the members and writes the kubeconfig; starting and seeding them is
//! `app_main::start_demo_fleet`.

use std::fmt::Write as _;

/// Names of the first members, in order; further members are `cluster-<n>`.
pub const FLEET_NAMES: &[&str] = &[
    "prod-eu", "prod-us", "staging", "dev", "prod-ap", "qa", "canary", "sandbox",
];

/// Most members a demo fleet may have (each is a server with its own seeded cluster).
pub const MAX_FLEET: usize = 16;

/// The name of member `index` (0-based): [`FLEET_NAMES`], then `cluster-9`, `cluster-10`, ...
pub fn member_name(index: usize) -> String {
    FLEET_NAMES
        .get(index)
        .map(|n| n.to_string())
        .unwrap_or_else(|| format!("cluster-{}", index + 1))
}

/// The simulator seed of member `index` given the fleet's base seed: different for every member
/// (different pod names, placements and churn), the same for the same fleet.
pub fn member_seed(base: u64, index: usize) -> u64 {
    base.wrapping_add(index as u64)
}

/// One member of the kubeconfig: the context, cluster and user are all named `name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FleetMember {
    pub name: String,
    /// `http://127.0.0.1:PORT`
    pub server: String,
}

/// A kubeconfig with one cluster, user and context per member (namespace `default`), the first
/// member's context current. Empty `members`: a kubeconfig without contexts.
pub fn fleet_kubeconfig_yaml(members: &[FleetMember]) -> String {
    let mut clusters = String::new();
    let mut contexts = String::new();
    let mut users = String::new();
    for m in members {
        let _ = write!(
            clusters,
            "- name: {0}\n  cluster:\n    server: {1}\n",
            m.name, m.server
        );
        let _ = write!(
            contexts,
            "- name: {0}\n  context:\n    cluster: {0}\n    user: {0}\n    namespace: default\n",
            m.name
        );
        let _ = write!(users, "- name: {0}\n  user: {{}}\n", m.name);
    }
    let current = members.first().map(|m| m.name.as_str()).unwrap_or("");
    let list = |s: String| {
        if s.is_empty() {
            " []\n".to_string()
        } else {
            format!("\n{s}")
        }
    };
    format!(
        "apiVersion: v1\nkind: Config\nclusters:{}contexts:{}current-context: \"{current}\"\nusers:{}preferences: {{}}\n",
        list(clusters),
        list(contexts),
        list(users)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::config::Kubeconfig;

    #[test]
    fn members_are_named_after_environments_then_numbered() {
        let names: Vec<String> = (0..10).map(member_name).collect();
        assert_eq!(&names[..3], ["prod-eu", "prod-us", "staging"]);
        assert_eq!(names[8], "cluster-9");
        assert_eq!(names[9], "cluster-10");
        let unique: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), names.len());
    }

    #[test]
    fn member_seeds_differ_and_follow_the_base_seed() {
        assert_ne!(member_seed(1, 0), member_seed(1, 1));
        assert_eq!(member_seed(7, 2), 9);
        assert_eq!(member_seed(u64::MAX, 1), 0);
    }

    #[test]
    fn fleet_kubeconfig_has_one_context_per_member_pointing_at_its_server() {
        let members = vec![
            FleetMember {
                name: "prod-eu".into(),
                server: "http://127.0.0.1:4001".into(),
            },
            FleetMember {
                name: "prod-us".into(),
                server: "http://127.0.0.1:4002".into(),
            },
        ];
        let kc = Kubeconfig::from_yaml(&fleet_kubeconfig_yaml(&members)).expect("valid kubeconfig");
        assert_eq!(kc.current_context.as_deref(), Some("prod-eu"));
        let contexts: Vec<&str> = kc.contexts.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(contexts, ["prod-eu", "prod-us"]);
        for m in &members {
            let ctx = kc
                .contexts
                .iter()
                .find(|c| c.name == m.name)
                .and_then(|c| c.context.as_ref())
                .expect("context body");
            let cluster = kc
                .clusters
                .iter()
                .find(|c| c.name == ctx.cluster)
                .and_then(|c| c.cluster.as_ref())
                .expect("cluster body");
            assert_eq!(cluster.server.as_deref(), Some(m.server.as_str()));
            assert_eq!(ctx.namespace.as_deref(), Some("default"));
            assert!(
                kc.auth_infos
                    .iter()
                    .any(|u| Some(&u.name) == ctx.user.as_ref())
            );
        }
    }
}
