//! Helm releases in helm's own storage: a few releases with several revisions each, written as
//! helm 3's storage drivers write them (`pkg/storage/driver`): one object per revision named
//! `sh.helm.release.v1.<release>.v<revision>`, labelled `owner=helm`, `name`, `version`,
//! `status`; a Secret of type `helm.sh/release.v1` (the default driver) or a ConfigMap (the
//! ConfigMap driver), `data.release` holding base64(gzip(release JSON))
//! ([`crate::helm::encode_release`]; a Secret's data is base64 again on the wire).
//!
//! Seeded without the simulator's random source (uids come from the names), so adding them moves
//! nothing else of the seed.

use serde_json::{Map, Value, json};

use super::{CONFIGMAPS, SECRETS, SeedOut, Simulator, objects};
use crate::helm::Storage;

/// One revision to seed.
struct Rev {
    status: &'static str,
    chart_version: &'static str,
    app_version: &'static str,
    description: &'static str,
    /// The user's values.
    config: Value,
    /// Hours after the release's first install.
    after_h: i64,
}

/// One release: its namespace, name, chart, driver, default values, notes and revisions.
struct Rel {
    namespace: &'static str,
    name: &'static str,
    chart: &'static str,
    storage: Storage,
    defaults: Value,
    notes: &'static str,
    /// Days after the cluster's creation it was first installed.
    installed_d: i64,
    revisions: Vec<Rev>,
}

fn releases() -> Vec<Rel> {
    let rev = |status, chart_version, app_version, description, config, after_h| Rev {
        status,
        chart_version,
        app_version,
        description,
        config,
        after_h,
    };
    vec![
        Rel {
            namespace: "default",
            name: "redis",
            chart: "redis",
            storage: Storage::Secret,
            defaults: json!({"architecture": "replication", "auth": {"enabled": true},
                             "master": {"persistence": {"size": "8Gi"}}, "replica": {"replicaCount": 3}}),
            notes: "Redis can be accessed on redis-master.default.svc.cluster.local:6379",
            installed_d: 20,
            revisions: vec![
                rev(
                    "superseded",
                    "18.6.1",
                    "7.2.3",
                    "Install complete",
                    json!({"architecture": "standalone"}),
                    0,
                ),
                rev(
                    "deployed",
                    "18.6.4",
                    "7.2.4",
                    "Upgrade complete",
                    json!({"architecture": "standalone", "auth": {"enabled": false}}),
                    30,
                ),
            ],
        },
        Rel {
            namespace: "ingress-nginx",
            name: "ingress-nginx",
            chart: "ingress-nginx",
            storage: Storage::Secret,
            defaults: json!({"controller": {"replicaCount": 1, "service": {"type": "LoadBalancer"},
                             "metrics": {"enabled": false}}}),
            notes: "The ingress-nginx controller has been installed.\nIt may take a few minutes for the load balancer IP to be available.",
            installed_d: 3,
            revisions: vec![
                rev(
                    "superseded",
                    "4.9.1",
                    "1.9.6",
                    "Install complete",
                    json!({"controller": {"replicaCount": 2}}),
                    0,
                ),
                rev(
                    "superseded",
                    "4.10.0",
                    "1.10.0",
                    "Upgrade complete",
                    json!({"controller": {"replicaCount": 2, "metrics": {"enabled": true}}}),
                    240,
                ),
                rev(
                    "deployed",
                    "4.10.1",
                    "1.10.1",
                    "Upgrade complete",
                    json!({"controller": {"replicaCount": 3, "metrics": {"enabled": true}}}),
                    600,
                ),
            ],
        },
        Rel {
            namespace: "monitoring",
            name: "kube-prometheus-stack",
            chart: "kube-prometheus-stack",
            storage: Storage::Secret,
            defaults: json!({"grafana": {"enabled": true}, "prometheus": {"prometheusSpec": {"retention": "10d"}}}),
            notes: "kube-prometheus-stack has been installed. Check its status by running:\n  kubectl --namespace monitoring get pods -l \"release=kube-prometheus-stack\"",
            installed_d: 5,
            revisions: vec![
                rev(
                    "deployed",
                    "56.6.2",
                    "v0.71.2",
                    "Install complete",
                    json!({"grafana": {"adminPassword": "prom-operator"}}),
                    0,
                ),
                rev(
                    "failed",
                    "57.0.1",
                    "v0.72.0",
                    "Upgrade \"kube-prometheus-stack\" failed: timed out waiting for the condition",
                    json!({"grafana": {"adminPassword": "prom-operator"},
                           "prometheus": {"prometheusSpec": {"retention": "30d"}}}),
                    100,
                ),
            ],
        },
        Rel {
            namespace: "cert-manager",
            name: "cert-manager",
            chart: "cert-manager",
            storage: Storage::ConfigMap,
            defaults: json!({"installCRDs": false, "replicaCount": 1}),
            notes: "cert-manager v1.14.4 has been deployed successfully!",
            installed_d: 4,
            revisions: vec![
                rev(
                    "superseded",
                    "v1.14.3",
                    "v1.14.3",
                    "Install complete",
                    json!({"installCRDs": true}),
                    0,
                ),
                rev(
                    "deployed",
                    "v1.14.4",
                    "v1.14.4",
                    "Upgrade complete",
                    json!({"installCRDs": true}),
                    48,
                ),
            ],
        },
        Rel {
            namespace: "shop",
            name: "storefront",
            chart: "storefront",
            storage: Storage::Secret,
            defaults: json!({"replicaCount": 1, "image": {"repository": "registry.local/shop/storefront", "tag": "latest"}}),
            notes: "",
            installed_d: 10,
            revisions: vec![
                rev(
                    "superseded",
                    "0.3.0",
                    "2.4.0",
                    "Install complete",
                    json!({"replicaCount": 3, "image": {"tag": "2.4.0"}}),
                    0,
                ),
                rev(
                    "deployed",
                    "0.3.1",
                    "2.4.1",
                    "Upgrade complete",
                    json!({"replicaCount": 3, "image": {"tag": "2.4.1"}}),
                    72,
                ),
            ],
        },
    ]
}

/// A version-4-shaped uid from a name (FNV-1a), so the seed's random source is not drawn from.
fn uid_of(name: &str) -> String {
    let mut h: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    for b in name.bytes() {
        h ^= u128::from(b);
        h = h.wrapping_mul(0x0000_0000_0100_0000_0000_0000_0000_013b);
    }
    let hex = format!("{h:032x}");
    format!(
        "{}-{}-4{}-a{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// A manifest of the release at a revision (what `helm get manifest` prints).
fn manifest(rel: &Rel, rev: &Rev) -> String {
    let replicas = rev
        .config
        .pointer("/replicaCount")
        .or_else(|| rev.config.pointer("/controller/replicaCount"))
        .and_then(Value::as_u64)
        .unwrap_or(1);
    format!(
        "---\n# Source: {chart}/templates/serviceaccount.yaml\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {name}\n  labels:\n    app.kubernetes.io/managed-by: Helm\n    helm.sh/chart: {chart}-{v}\n---\n# Source: {chart}/templates/deployment.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels:\n    app.kubernetes.io/version: \"{app}\"\n    helm.sh/chart: {chart}-{v}\nspec:\n  replicas: {replicas}\n",
        chart = rel.chart,
        name = rel.name,
        v = rev.chart_version,
        app = rev.app_version,
    )
}

impl Simulator {
    /// The helm releases of the namespaces the demo has.
    pub(super) fn seed_helm(&mut self, cluster_created: i64, out: &mut SeedOut) {
        for rel in releases() {
            if !self.namespaces.iter().any(|n| &**n == rel.namespace) {
                continue;
            }
            let installed = cluster_created + rel.installed_d * 86_400;
            for (i, rev) in rel.revisions.iter().enumerate() {
                let version = i + 1;
                let at = installed + rev.after_h * 3600;
                let object = format!("sh.helm.release.v1.{}.v{version}", rel.name);
                let release = json!({
                    "name": rel.name,
                    "namespace": rel.namespace,
                    "version": version,
                    "info": {
                        "first_deployed": objects::rfc3339(installed),
                        "last_deployed": objects::rfc3339(at),
                        "deleted": "",
                        "description": rev.description,
                        "status": rev.status,
                        "notes": rel.notes,
                    },
                    "chart": {
                        "metadata": {
                            "name": rel.chart,
                            "version": rev.chart_version,
                            "appVersion": rev.app_version,
                            "apiVersion": "v2",
                            "type": "application",
                        },
                        "lock": null,
                        "templates": [],
                        "values": rel.defaults,
                        "schema": null,
                        "files": [],
                    },
                    "config": rev.config,
                    "manifest": manifest(&rel, rev),
                });
                let helm = crate::helm::encode_release(&release);
                let labels = objects::labels([
                    ("name", rel.name),
                    ("owner", "helm"),
                    ("status", rev.status),
                    ("version", version.to_string().as_str()),
                ]);
                let mut data = Map::new();
                let uid = uid_of(&format!("{}/{object}", rel.namespace));
                let (resource, obj) = match rel.storage {
                    Storage::Secret => {
                        data.insert("release".into(), Value::from(super::b64(helm.as_bytes())));
                        let o = objects::secret(
                            rel.namespace,
                            &object,
                            &uid,
                            at,
                            crate::helm::SECRET_TYPE,
                            Some(labels),
                            data,
                        );
                        (SECRETS, o)
                    }
                    Storage::ConfigMap => {
                        data.insert("release".into(), Value::from(helm));
                        let o = objects::configmap(
                            rel.namespace,
                            &object,
                            &uid,
                            at,
                            Some(labels),
                            data,
                        );
                        (CONFIGMAPS, o)
                    }
                };
                out.push(self.create_static(resource, rel.namespace, &object, obj));
            }
        }
    }
}
