//! What the seeded cluster holds: system components, applications and their accessories
//! (services, config maps, secrets, service accounts), widgets and the first events.

use super::*;

impl Simulator {
    pub(super) fn seed_system(&mut self, cc: i64, budget: &mut usize, out: &mut SeedOut) {
        let n_nodes = self.nodes.len();
        let cps: Vec<u32> = (0..n_nodes as u32)
            .filter(|&i| self.nodes[i as usize].info.control_plane)
            .collect();
        let static_pods = cps.len() * 4;
        let ds_pods = n_nodes * 2;
        let has = |s: &Self, ns: &str| s.namespaces.iter().any(|n| &**n == ns);
        // Only clusters with room for their system pods get them (tiny test configs may not).
        if *budget >= static_pods + ds_pods + 4 && *budget >= 2 * (static_pods + ds_pods) {
            for (i, &node) in cps.iter().enumerate() {
                for (comp, image, cpu) in [
                    ("etcd", "registry.k8s.io/etcd:3.5.21-0", "100m"),
                    (
                        "kube-apiserver",
                        "registry.k8s.io/kube-apiserver:v1.33.4",
                        "250m",
                    ),
                    (
                        "kube-controller-manager",
                        "registry.k8s.io/kube-controller-manager:v1.33.4",
                        "200m",
                    ),
                    (
                        "kube-scheduler",
                        "registry.k8s.io/kube-scheduler:v1.33.4",
                        "100m",
                    ),
                ] {
                    let mut t = self.system_template(
                        comp,
                        image,
                        vec![
                            ("component".into(), comp.into()),
                            ("tier".into(), "control-plane".into()),
                        ],
                    );
                    t.host_network = true;
                    t.flavor = AppFlavor::ControlPlane;
                    t.priority_class = Some("system-node-critical");
                    t.cpu_request = cpu;
                    t.port = None;
                    let (repo, ver) = split_image(image);
                    let w = self.add_workload(
                        WKind::Static,
                        "kube-system",
                        comp,
                        cc - 60 + i as i64,
                        1,
                        repo,
                        "",
                        ver,
                        t,
                    );
                    if let Some(wl) = self.workloads.get_mut(w as usize) {
                        wl.node = Some(node);
                    }
                    self.seed_pods(w, 1, out);
                }
            }
            *budget -= static_pods;
            for (name, image, labels) in [
                (
                    "kube-proxy",
                    "registry.k8s.io/kube-proxy:v1.33.4",
                    vec![("k8s-app".to_string(), "kube-proxy".to_string())],
                ),
                (
                    "calico-node",
                    "docker.io/calico/node:v3.29.3",
                    vec![("k8s-app".to_string(), "calico-node".to_string())],
                ),
            ] {
                let mut t = self.system_template(name, image, labels);
                t.host_network = true;
                t.flavor = AppFlavor::Agent;
                t.priority_class = Some("system-node-critical");
                let (repo, ver) = split_image(image);
                let w = self.add_workload(
                    WKind::DaemonSet,
                    "kube-system",
                    name,
                    cc + 30,
                    n_nodes as u32,
                    repo,
                    "v",
                    ver,
                    t,
                );
                out.0.push(Seed::Workload(w));
                self.seed_pods(w, n_nodes as u32, out);
            }
            *budget -= ds_pods;
            for (name, image, replicas, labels) in [
                (
                    "coredns",
                    "registry.k8s.io/coredns/coredns:v1.12.0",
                    2u32,
                    vec![("k8s-app".to_string(), "kube-dns".to_string())],
                ),
                (
                    "metrics-server",
                    "registry.k8s.io/metrics-server/metrics-server:v0.7.2",
                    1,
                    vec![("k8s-app".to_string(), "metrics-server".to_string())],
                ),
                (
                    "calico-kube-controllers",
                    "docker.io/calico/kube-controllers:v3.29.3",
                    1,
                    vec![("k8s-app".to_string(), "calico-kube-controllers".to_string())],
                ),
            ] {
                if *budget < replicas as usize {
                    break;
                }
                let mut t = self.system_template(name, image, labels);
                t.priority_class = Some("system-cluster-critical");
                t.flavor = AppFlavor::Http;
                t.port = Some((
                    if name == "coredns" { 53 } else { 10250 },
                    if name == "coredns" { "dns" } else { "https" },
                ));
                let (repo, ver) = split_image(image);
                let w = self.add_workload(
                    WKind::Deployment,
                    "kube-system",
                    name,
                    cc + 40,
                    replicas,
                    repo,
                    "v",
                    ver,
                    t,
                );
                out.0.push(Seed::Workload(w));
                self.seed_pods(w, replicas, out);
                *budget -= replicas as usize;
                if name == "coredns" {
                    let uid = self.new_uid();
                    let mut sel = Map::new();
                    sel.insert("k8s-app".into(), Value::from("kube-dns"));
                    let svc = objects::service(&objects::ServiceView {
                        namespace: "kube-system",
                        name: "kube-dns",
                        uid: &uid,
                        created: cc + 40,
                        labels: objects::labels([
                            ("k8s-app", "kube-dns"),
                            ("kubernetes.io/name", "CoreDNS"),
                        ]),
                        selector: Some(sel),
                        cluster_ip: Some("10.96.0.10"),
                        ports: &[
                            (53, 53, "dns", "UDP"),
                            (53, 53, "dns-tcp", "TCP"),
                            (9153, 9153, "metrics", "TCP"),
                        ],
                        service_type: "ClusterIP",
                        node_port_base: 0,
                    });
                    out.push(self.create_static(SERVICES, "kube-system", "kube-dns", svc));
                }
            }
            // Daemonset agents of infra namespaces.
            for (ns, name, image) in [
                (
                    "monitoring",
                    "node-exporter",
                    "quay.io/prometheus/node-exporter:v1.8.2",
                ),
                (
                    "logging",
                    "fluent-bit",
                    "cr.fluentbit.io/fluent/fluent-bit:3.2.4",
                ),
            ] {
                if !has(self, ns) || *budget < 4 * n_nodes {
                    continue;
                }
                let labels = vec![
                    ("app.kubernetes.io/name".to_string(), name.to_string()),
                    ("app.kubernetes.io/instance".to_string(), name.to_string()),
                    (
                        "app.kubernetes.io/managed-by".to_string(),
                        "Helm".to_string(),
                    ),
                ];
                let mut t = self.system_template(name, image, labels);
                t.flavor = AppFlavor::Agent;
                t.host_network = name == "node-exporter";
                t.service_account = name.to_string();
                let (repo, ver) = split_image(image);
                let w = self.add_workload(
                    WKind::DaemonSet,
                    ns,
                    name,
                    cc + 5 * 86_400,
                    n_nodes as u32,
                    repo,
                    "v",
                    ver,
                    t,
                );
                out.0.push(Seed::Workload(w));
                self.seed_pods(w, n_nodes as u32, out);
                self.seed_app_accessories(w, out);
                *budget -= n_nodes;
            }
        }
        // Infra deployments / statefulsets.
        let infra: [(&str, &str, &str, u32, WKind); 8] = [
            (
                "monitoring",
                "prometheus-server",
                "quay.io/prometheus/prometheus:v2.55.1",
                2,
                WKind::StatefulSet,
            ),
            (
                "monitoring",
                "alertmanager",
                "quay.io/prometheus/alertmanager:v0.27.0",
                3,
                WKind::StatefulSet,
            ),
            (
                "monitoring",
                "grafana",
                "docker.io/grafana/grafana:11.3.1",
                1,
                WKind::Deployment,
            ),
            (
                "monitoring",
                "kube-state-metrics",
                "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.14.0",
                1,
                WKind::Deployment,
            ),
            (
                "ingress-nginx",
                "ingress-nginx-controller",
                "registry.k8s.io/ingress-nginx/controller:v1.12.1",
                3,
                WKind::Deployment,
            ),
            (
                "cert-manager",
                "cert-manager",
                "quay.io/jetstack/cert-manager-controller:v1.16.2",
                1,
                WKind::Deployment,
            ),
            (
                "cert-manager",
                "cert-manager-webhook",
                "quay.io/jetstack/cert-manager-webhook:v1.16.2",
                1,
                WKind::Deployment,
            ),
            (
                "cert-manager",
                "cert-manager-cainjector",
                "quay.io/jetstack/cert-manager-cainjector:v1.16.2",
                1,
                WKind::Deployment,
            ),
        ];
        for (ns, name, image, replicas, kind) in infra {
            if !has(self, ns) || *budget < 2 * replicas as usize + 10 {
                continue;
            }
            let labels = vec![
                ("app.kubernetes.io/name".to_string(), name.to_string()),
                ("app.kubernetes.io/instance".to_string(), ns.to_string()),
                (
                    "app.kubernetes.io/managed-by".to_string(),
                    "Helm".to_string(),
                ),
            ];
            let mut t = self.system_template(name, image, labels);
            t.service_account = name.to_string();
            t.flavor = if kind == WKind::StatefulSet {
                AppFlavor::Database
            } else {
                AppFlavor::Http
            };
            t.port = Some(match name {
                "grafana" => (3000, "grafana"),
                "prometheus-server" => (9090, "web"),
                "alertmanager" => (9093, "web"),
                "ingress-nginx-controller" => (80, "http"),
                _ => (8080, "http"),
            });
            let (repo, ver) = split_image(image);
            let created = cc + 4 * 86_400 + self.below(86_400) as i64;
            let w = self.add_workload(kind, ns, name, created, replicas, repo, "v", ver, t);
            if kind == WKind::Deployment && self.chance(0.6) {
                let old = 1 + self.below(3) as u32;
                self.add_history(w, old);
            }
            out.0.push(Seed::Workload(w));
            self.seed_pods(w, replicas, out);
            self.seed_app_accessories(w, out);
            *budget -= replicas as usize;
        }
    }

    pub(super) fn system_template(
        &mut self,
        name: &str,
        image: &str,
        labels: Vec<(String, String)>,
    ) -> PodTemplate {
        let mut t = self.make_template(TemplateSpec {
            ns: "kube-system",
            app: name,
            container: name,
            image: image.to_string(),
            flavor: AppFlavor::Http,
            labels,
            service_account: name.to_string(),
            config_map: None,
            secret: None,
        });
        t.env.truncate(1);
        t
    }

    pub(super) fn seed_apps(&mut self, cc: i64, budget: &mut usize, out: &mut SeedOut) {
        let app_ns: Vec<Arc<str>> = {
            let v: Vec<Arc<str>> = self
                .namespaces
                .iter()
                .filter(|n| {
                    !SYSTEM_NAMESPACES.contains(&&***n) && !INFRA_NAMESPACES.contains(&&***n)
                })
                .cloned()
                .collect();
            if v.is_empty() {
                vec![Arc::from("default")]
            } else {
                v
            }
        };
        let scale = ((self.cfg.pods as f64 / 4_000.0).sqrt()).max(1.0);
        let mut used: HashMap<String, u32> = HashMap::new();
        let mut round = 0usize;
        // Stateful backing services first (one per a few namespaces), then deployments round-robin.
        for (i, ns) in app_ns.iter().enumerate() {
            let (name, image, replicas) = match (&**ns, i % 3) {
                ("search", _) => (
                    "elasticsearch",
                    "docker.elastic.co/elasticsearch/elasticsearch:8.15.3",
                    3u32,
                ),
                ("data", _) => ("kafka", "docker.io/bitnami/kafka:3.8.1", 3),
                ("analytics", _) => (
                    "clickhouse",
                    "docker.io/clickhouse/clickhouse-server:24.8.4",
                    2,
                ),
                (_, 0) => ("postgres", "docker.io/bitnami/postgresql:16.4.0", 2),
                (_, 1) => ("redis", "docker.io/library/redis:7.4.1", 1),
                _ => continue,
            };
            if *budget < replicas as usize * 4 {
                continue;
            }
            used.insert(key(ns, name), 1);
            let labels = vec![
                ("app.kubernetes.io/name".to_string(), name.to_string()),
                (
                    "app.kubernetes.io/instance".to_string(),
                    format!("{ns}-{name}"),
                ),
                (
                    "app.kubernetes.io/component".to_string(),
                    "primary".to_string(),
                ),
            ];
            let mut t = self.make_template(TemplateSpec {
                ns,
                app: name,
                container: name,
                image: image.to_string(),
                flavor: AppFlavor::Database,
                labels,
                service_account: name.to_string(),
                config_map: None,
                secret: Some(format!("{name}-credentials")),
            });
            t.port = Some(match name {
                "elasticsearch" => (9200, "http"),
                "kafka" => (9092, "kafka"),
                "clickhouse" => (8123, "http"),
                "redis" => (6379, "redis"),
                _ => (5432, "tcp-postgresql"),
            });
            let (repo, ver) = split_image(image);
            let created = cc + 86_400 * (2 + self.below(20) as i64);
            let w = self.add_workload(
                WKind::StatefulSet,
                ns,
                name,
                created,
                replicas,
                repo,
                "",
                ver,
                t,
            );
            out.0.push(Seed::Workload(w));
            self.seed_pods(w, replicas, out);
            self.seed_app_accessories(w, out);
            *budget -= replicas as usize;
        }
        // A couple of completed jobs (migrations, reports).
        for ns in app_ns.iter().take(4) {
            if *budget < 20 {
                break;
            }
            let ts = self.now_s() / 60 - self.below(600) as i64;
            let name = if self.chance(0.5) {
                format!("db-migrate-{}", objects::suffix(&mut self.rng, 5))
            } else {
                format!("nightly-report-{ts}")
            };
            let labels = vec![("app.kubernetes.io/name".to_string(), "batch".to_string())];
            let image = format!("ghcr.io/acme/{ns}-tools:1.{}.0", 3 + self.below(9));
            let t = self.make_template(TemplateSpec {
                ns,
                app: &name,
                container: "job",
                image: image.clone(),
                flavor: AppFlavor::Batch,
                labels,
                service_account: "default".to_string(),
                config_map: None,
                secret: None,
            });
            let (repo, ver) = split_image(&image);
            let created = self.now_s() - 3600 - self.below(20 * 3600) as i64;
            let w = self.add_workload(WKind::Job, ns, &name, created, 1, repo, "", ver, t);
            self.seed_pods(w, 1, out);
            if let Some(wl) = self.workloads.get_mut(w as usize) {
                wl.completed = Some(created + 95);
            }
            out.0.push(Seed::Workload(w));
            *budget -= 1;
        }
        // Deployments until the pod budget is spent.
        let mut i = 0usize;
        while *budget > 0 {
            let ns = app_ns[i % app_ns.len()].clone();
            i += 1;
            let own = namespace_apps(&ns);
            let base: String = if round < own.len() && i <= app_ns.len() * (round + 1) {
                own.get(round).map(|s| s.to_string()).unwrap_or_default()
            } else {
                String::new()
            };
            if i.is_multiple_of(app_ns.len()) {
                round += 1;
            }
            let base = if base.is_empty() {
                let p = GENERIC_PREFIXES[self.below(GENERIC_PREFIXES.len())];
                let s = GENERIC_SUFFIXES[self.below(GENERIC_SUFFIXES.len())];
                format!("{p}-{s}")
            } else {
                base
            };
            let n = used.entry(key(&ns, &base)).or_insert(0);
            *n += 1;
            let name = if *n == 1 {
                base.clone()
            } else {
                format!("{base}-{}", *n)
            };
            let draw = match self.below(100) {
                0..=19 => 1,
                20..=49 => 2,
                50..=74 => 3,
                75..=89 => 4 + self.below(3),
                90..=96 => 8 + self.below(5),
                _ => 20 + self.below(21),
            } as f64;
            let replicas = ((draw * scale).round() as usize).clamp(1, *budget) as u32;
            let flavor = flavor_of(&base);
            let labels = vec![
                ("app".to_string(), name.clone()),
                ("app.kubernetes.io/name".to_string(), name.clone()),
                ("app.kubernetes.io/part-of".to_string(), ns.to_string()),
                ("team".to_string(), format!("{ns}-team")),
            ];
            let version = (
                1 + self.below(3) as u32,
                self.below(20) as u32,
                self.below(12) as u32,
            );
            let repo = format!("ghcr.io/acme/{ns}/{base}");
            let config_map = self.chance(0.5).then(|| format!("{name}-config"));
            let secret = self.chance(0.3).then(|| format!("{name}-secrets"));
            let t = self.make_template(TemplateSpec {
                ns: &ns,
                app: &name,
                container: &base,
                image: format!("{repo}:v{}.{}.{}", version.0, version.1, version.2),
                flavor,
                labels,
                service_account: name.clone(),
                config_map,
                secret,
            });
            let created = cc + 86_400 + self.below(44 * 86_400) as i64;
            let w = self.add_workload(
                WKind::Deployment,
                &ns,
                &name,
                created,
                replicas,
                &repo,
                "v",
                version,
                t,
            );
            if self.chance(0.7) {
                let old = 1 + self.below(4) as u32;
                self.add_history(w, old);
            }
            out.0.push(Seed::Workload(w));
            self.seed_pods(w, replicas, out);
            self.seed_app_accessories(w, out);
            *budget -= replicas as usize;
        }
    }

    /// Service, service account, config map and secret of a seeded workload.
    pub(super) fn seed_app_accessories(&mut self, w: u32, out: &mut SeedOut) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let Some(t) = wl.current().map(|s| s.template.clone()) else {
            return;
        };
        let (ns, name, kind, created) = (wl.ns.clone(), wl.name.clone(), wl.kind, wl.created);
        let replicas = wl.replicas;
        if t.service_account != "default"
            && !self
                .statics
                .contains_key(&(SERVICEACCOUNTS.plural, key(&ns, &t.service_account)))
        {
            let uid = self.new_uid();
            let l = t.selector_map();
            out.push(self.create_static(
                SERVICEACCOUNTS,
                &ns,
                &t.service_account,
                objects::serviceaccount(&ns, &t.service_account, &uid, created - 2, Some(l)),
            ));
        }
        if let Some(cm) = &t.config_map {
            let uid = self.new_uid();
            let mut data = Map::new();
            data.insert(
                "config.yaml".into(),
                Value::from(format!(
                    "server:\n  port: 8080\n  gracefulShutdown: 20s\nlogging:\n  level: info\n  format: json\nservice:\n  name: {name}\n  namespace: {ns}\n"
                )),
            );
            data.insert(
                "FEATURE_FLAGS".into(),
                Value::from("new-checkout=false,fast-path=true"),
            );
            out.push(self.create_static(
                CONFIGMAPS,
                &ns,
                cm,
                objects::configmap(&ns, cm, &uid, created - 1, Some(t.selector_map()), data),
            ));
        }
        if let Some(sec) = &t.secret {
            let uid = self.new_uid();
            let mut data = Map::new();
            let pw = objects::suffix(&mut self.rng, 24);
            data.insert("username".into(), Value::from(b64(name.as_bytes())));
            data.insert("password".into(), Value::from(b64(pw.as_bytes())));
            out.push(self.create_static(
                SECRETS,
                &ns,
                sec,
                objects::secret(
                    &ns,
                    sec,
                    &uid,
                    created - 1,
                    "Opaque",
                    Some(t.selector_map()),
                    data,
                ),
            ));
        }
        if t.port.is_some() && matches!(kind, WKind::Deployment | WKind::StatefulSet) {
            let (port, pname) = t.port.unwrap_or((8080, "http"));
            let uid = self.new_uid();
            let headless = kind == WKind::StatefulSet;
            let ip = if headless {
                None
            } else {
                Some(self.next_cluster_ip())
            };
            let lb = &*name == "ingress-nginx-controller";
            let svc_port = if t.flavor == AppFlavor::Http && !lb {
                80
            } else {
                port
            };
            let ports: Vec<(u16, u16, &str, &str)> = if lb {
                vec![(80, 80, "http", "TCP"), (443, 443, "https", "TCP")]
            } else {
                vec![(svc_port, port, pname, "TCP")]
            };
            let node_port_base = 30_000 + self.below(2_000) as u16;
            let svc = objects::service(&objects::ServiceView {
                namespace: &ns,
                name: &name,
                uid: &uid,
                created: created - 1,
                labels: t.selector_map(),
                selector: Some(t.selector_map()),
                cluster_ip: ip.as_deref(),
                ports: &ports,
                service_type: if lb { "LoadBalancer" } else { "ClusterIP" },
                node_port_base,
            });
            out.push(self.create_static(SERVICES, &ns, &name, svc));
        }
        // Replicated serving apps get a disruption budget, as production charts ship one: a
        // node drain then evicts their pods one at a time (see `demo::eviction`).
        if t.port.is_some()
            && replicas >= 2
            && matches!(kind, WKind::Deployment | WKind::StatefulSet)
        {
            let uid = self.new_uid();
            let pdb = serde_json::json!({
                "apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                "metadata": {"name": &*name, "namespace": &*ns, "uid": uid,
                             "creationTimestamp": objects::rfc3339(created - 1),
                             "labels": t.selector_map()},
                "spec": {"maxUnavailable": 1, "selector": {"matchLabels": t.selector_map()}},
            });
            let pdbs =
                super::super::mutation::ResourceId::new("policy", "v1", "poddisruptionbudgets");
            out.push(self.create_static(pdbs, &ns, &name, pdb));
        }
    }

    pub(super) fn seed_widgets(&mut self, cc: i64, out: &mut SeedOut) {
        let app_ns: Vec<Arc<str>> = self
            .namespaces
            .iter()
            .filter(|n| !SYSTEM_NAMESPACES.contains(&&***n) || &***n == "default")
            .cloned()
            .collect();
        for i in 0..self.cfg.widgets {
            let Some(ns) = app_ns.get(i % app_ns.len().max(1)).cloned() else {
                break;
            };
            let color = WIDGET_COLORS[self.below(WIDGET_COLORS.len())];
            let size = WIDGET_SIZES[self.below(WIDGET_SIZES.len())];
            let name = format!(
                "{color}-{}-{}",
                ["gizmo", "sprocket", "flange", "gear"][i % 4],
                i / 4 + 1
            );
            let uid = self.new_uid();
            let w = WidgetInfo {
                namespace: ns.to_string(),
                name,
                uid: uid.to_string(),
                created: cc + 4 * 86_400 + self.below(40 * 86_400) as i64,
                size,
                color,
                replicas: 1 + self.below(5) as u32,
                owner: format!("{ns}-team"),
                generation: 1 + self.below(4) as i64,
                phase: if self.chance(0.85) {
                    "Ready"
                } else {
                    "Degraded"
                },
            };
            out.push(Mutation::Create {
                resource: WIDGETS,
                object: objects::widget(&w),
            });
            self.widgets.push(Some(w));
        }
    }

    pub(super) fn seed_events(&mut self, seed_out: &mut SeedOut) {
        let mut tmp = Vec::new();
        let out = &mut tmp;
        let limit = (self.cfg.max_events / 3).min(400);
        let n = self.pods.len();
        let mut done = 0;
        // Crash-loopers first (their BackOff warnings are what operators look for).
        let crashing = self.crashing.clone();
        for k in crashing.iter().take(limit / 2) {
            if let Some(&i) = self.pod_index.get(k) {
                let restarts = self.pods[i].restarts;
                let node_name = self.pod_node_name(i);
                let msg = format!(
                    "Back-off restarting failed container {} in pod {}_{}({})",
                    self.pod_container(i),
                    self.pods[i].name,
                    self.pods[i].ns,
                    self.pods[i].uid
                );
                self.record_pod_event(i, "BackOff", msg, true, "kubelet", node_name, out);
                if let Some(last) = self
                    .event_agg
                    .get(&(self.pods[i].uid.clone(), "BackOff"))
                    .cloned()
                    && let Some(e) = self.events.get_mut(&last)
                {
                    e.count = restarts * 3 + 2;
                    e.first = e.last - i64::from(restarts) * 300;
                }
                done += 1;
            }
        }
        // The youngest running pods' start-up events.
        let mut youngest: Vec<usize> = (0..n).collect();
        youngest.sort_by_key(|&i| std::cmp::Reverse(self.pods[i].created));
        for &i in youngest.iter().take(limit.saturating_sub(done) / 3) {
            if self.pods[i].stage != PodStage::Running {
                continue;
            }
            let node_name = self.pod_node_name(i);
            let msg = format!(
                "Successfully assigned {}/{} to {}",
                self.pods[i].ns,
                self.pods[i].name,
                node_name.as_deref().unwrap_or("")
            );
            self.record_pod_event(i, "Scheduled", msg, false, "default-scheduler", None, out);
            self.started_events(i, out);
        }
        // Rendered at the end, so that aggregated counts are the final ones.
        for m in tmp {
            if let Mutation::Create { resource, object } = m
                && resource == EVENTS
            {
                let name = object.pointer("/metadata/name").and_then(Value::as_str);
                let ns = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str);
                if let (Some(name), Some(ns)) = (name, ns) {
                    seed_out.0.push(Seed::Event(key(ns, name)));
                }
            }
        }
    }
}
