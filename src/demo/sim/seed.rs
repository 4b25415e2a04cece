//! Seeding: the cluster that exists at start (nodes, workloads, their pods and history), in an
//! order a server can apply.

use super::*;

impl Simulator {
    // -----------------------------------------------------------------------------------------
    // Seeding
    // -----------------------------------------------------------------------------------------

    /// Everything that exists when the cluster starts, in an order a server can apply
    /// (namespaces and the CRD before what lives in them). Calling it twice returns nothing new.
    pub fn seed_mutations(&mut self) -> Vec<Mutation> {
        self.seed_iter().collect()
    }

    /// The same mutations as [`Simulator::seed_mutations`], rendered one at a time: the model is
    /// built first, JSON is made as the iterator is consumed, so a server that stores each object
    /// as it comes never holds the JSON trees of 150k pods at once.
    pub fn seed_iter(&mut self) -> SeedIter<'_> {
        let plan = self.build_seed();
        SeedIter {
            sim: self,
            planned: plan.len(),
            plan: plan.into_iter(),
            buf: VecDeque::new(),
        }
    }

    pub(super) fn build_seed(&mut self) -> Vec<Seed> {
        if self.seeded {
            return Vec::new();
        }
        self.seeded = true;
        let start = self.now_s();
        let cluster_created = start - 47 * 86_400 - 3 * 3600 - self.below(86_400) as i64;
        let mut out = SeedOut(Vec::with_capacity(self.cfg.pods * 5 / 4 + 256));

        // Namespaces.
        let count = self.cfg.namespaces.max(2);
        let mut names: Vec<String> = NAMESPACE_ORDER
            .iter()
            .take(count)
            .map(|s| s.to_string())
            .collect();
        let mut team = 1;
        while names.len() < count {
            names.push(format!(
                "team-{}",
                GENERIC_PREFIXES[team % GENERIC_PREFIXES.len()]
            ));
            if team >= GENERIC_PREFIXES.len() {
                let last = names.len() - 1;
                names[last] = format!(
                    "team-{}-{}",
                    GENERIC_PREFIXES[team % GENERIC_PREFIXES.len()],
                    team / GENERIC_PREFIXES.len() + 1
                );
            }
            team += 1;
        }
        for n in &names {
            let created = if SYSTEM_NAMESPACES.contains(&n.as_str()) {
                cluster_created
            } else {
                cluster_created + 3600 + self.below(30 * 86_400) as i64
            };
            let uid = self.new_uid();
            out.push(Mutation::Create {
                resource: NAMESPACES,
                object: objects::namespace(n, &uid, created),
            });
            self.statics.insert((NAMESPACES.plural, n.clone()), ());
            self.namespaces.push(Arc::from(n.as_str()));
        }

        // The demo CRD.
        let crd_uid = self.new_uid();
        out.push(Mutation::Create {
            resource: CRDS,
            object: objects::widget_crd(&crd_uid, cluster_created + 3 * 86_400 + 1234),
        });
        self.statics
            .insert((CRDS.plural, objects::WIDGET_CRD_NAME.to_string()), ());

        // Nodes.
        self.seed_nodes(cluster_created, &mut out);

        // Per-namespace objects every namespace has.
        for ns in self.namespaces.clone() {
            let created = cluster_created + 1;
            let uid = self.new_uid();
            out.push(self.create_static(
                SERVICEACCOUNTS,
                &ns,
                "default",
                objects::serviceaccount(&ns, "default", &uid, created, None),
            ));
            let uid = self.new_uid();
            let mut data = Map::new();
            data.insert("ca.crt".into(), Value::from(objects::ROOT_CA));
            let mut ann = Map::new();
            ann.insert(
                "kubernetes.io/description".into(),
                Value::from("Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."),
            );
            let mut cm = objects::configmap(&ns, "kube-root-ca.crt", &uid, created, None, data);
            if let Some(md) = cm.get_mut("metadata").and_then(Value::as_object_mut) {
                md.insert("annotations".into(), Value::Object(ann));
            }
            out.push(self.create_static(CONFIGMAPS, &ns, "kube-root-ca.crt", cm));
        }
        if self.namespaces.iter().any(|n| &**n == "default") {
            let uid = self.new_uid();
            let mut l = Map::new();
            l.insert("component".into(), Value::from("apiserver"));
            l.insert("provider".into(), Value::from("kubernetes"));
            let svc = objects::service(&objects::ServiceView {
                namespace: "default",
                name: "kubernetes",
                uid: &uid,
                created: cluster_created,
                labels: l,
                selector: None,
                cluster_ip: Some("10.96.0.1"),
                ports: &[(443, 6443, "https", "TCP")],
                service_type: "ClusterIP",
                node_port_base: 0,
            });
            out.push(self.create_static(SERVICES, "default", "kubernetes", svc));
        }

        // Workloads and their pods.
        let mut budget = self.cfg.pods;
        self.seed_system(cluster_created, &mut budget, &mut out);
        self.seed_apps(cluster_created, &mut budget, &mut out);

        // Widgets.
        self.seed_widgets(cluster_created, &mut out);

        // Helm releases in helm's storage (Secrets and ConfigMaps).
        self.seed_helm(cluster_created, &mut out);

        // Recent events: what happened to the youngest pods and the crash-loopers.
        self.seed_events(&mut out);
        out.0
    }

    pub(super) fn create_static(
        &mut self,
        resource: ResourceId,
        ns: &str,
        name: &str,
        object: Value,
    ) -> Mutation {
        self.statics.insert((resource.plural, key(ns, name)), ());
        Mutation::Create { resource, object }
    }

    pub(super) fn seed_nodes(&mut self, cluster_created: i64, out: &mut SeedOut) {
        let n = self.cfg.nodes.max(1);
        let cps = if n >= 6 {
            3
        } else if n >= 2 {
            1
        } else {
            0
        };
        self.control_planes = cps;
        let workers = (n - cps).max(1);
        let per_worker = self.cfg.pods.div_ceil(workers);
        let max_pods = if per_worker > 100 {
            (per_worker as u32 * 5 / 4).max(250)
        } else {
            110
        };
        for i in 0..n {
            let control_plane = i < cps;
            let zone_idx = i % ZONES.len();
            let third = zone_idx * 64 + (i / 250) % 64;
            let fourth = i % 250 + 4;
            let ip = format!("10.0.{third}.{fourth}");
            let name = format!("ip-10-0-{third}-{fourth}.eu-west-1.compute.internal");
            let (itype, cpu, mem) = if control_plane {
                ("m6i.xlarge", 4, 16)
            } else {
                INSTANCE_TYPES[self.below(INSTANCE_TYPES.len())]
            };
            let created = if control_plane {
                cluster_created - 120
            } else {
                cluster_created + 600 + self.below(40 * 86_400) as i64
            };
            let uid = self.new_uid();
            let machine = self.hex64();
            let info = NodeInfo {
                name,
                uid: uid.to_string(),
                created,
                control_plane,
                zone: ZONES[zone_idx],
                region: "eu-west-1",
                instance_type: itype,
                cpu,
                memory_gi: mem,
                max_pods: if control_plane { 110 } else { max_pods },
                internal_ip: ip,
                pod_cidr: format!("10.{}.{}.0/24", 64 + i / 256, i % 256),
                ready: true,
                memory_pressure: false,
                disk_pressure: false,
                ready_since: created + 25,
                pressure_since: created + 5,
                heartbeat: self.now_s() - self.below(40) as i64,
                machine_id: machine[..32].to_string(),
                kernel: "6.8.0-1024-aws",
            };
            out.push(Mutation::Create {
                resource: NODES,
                object: objects::node(&info),
            });
            self.nodes.push(NodeSlot {
                info,
                alive: true,
                cordoned: false,
                next_ip: 2,
            });
        }
    }

    pub(super) fn pick_worker(&mut self) -> Option<u32> {
        let cps = self.control_planes;
        let workers = self.nodes.len() - cps;
        for _ in 0..8 {
            let i = if workers > 0 {
                cps + self.below(workers)
            } else {
                self.below(self.nodes.len())
            };
            if self
                .nodes
                .get(i)
                .is_some_and(|n| n.alive && n.info.ready && !n.cordoned)
            {
                return Some(i as u32);
            }
        }
        self.nodes
            .iter()
            .position(|n| n.alive && n.info.ready && !n.info.control_plane && !n.cordoned)
            .or_else(|| self.nodes.iter().position(|n| n.alive))
            .map(|i| i as u32)
    }

    pub(super) fn next_pod_ip(&mut self, node: u32) -> Option<String> {
        let slot = self.nodes.get_mut(node as usize)?;
        let host = slot.next_ip;
        slot.next_ip = if slot.next_ip >= 254 {
            2
        } else {
            slot.next_ip + 1
        };
        let i = node as usize;
        Some(format!("10.{}.{}.{host}", 64 + i / 256, i % 256))
    }

    pub(super) fn next_cluster_ip(&mut self) -> String {
        self.service_ip += 1;
        let n = self.service_ip;
        format!(
            "10.{}.{}.{}",
            96 + n / 65_536 % 16,
            (n / 256) % 256,
            n % 256
        )
    }

    pub(super) fn make_template(&mut self, t: TemplateSpec<'_>) -> PodTemplate {
        let (cpu, mem, mem_limit, cpu_limit): (&str, &str, &str, Option<&str>) = match t.flavor {
            AppFlavor::Database => ("500m", "1Gi", "2Gi", None),
            AppFlavor::Agent | AppFlavor::ControlPlane => ("100m", "128Mi", "256Mi", None),
            AppFlavor::Batch => ("250m", "256Mi", "512Mi", None),
            AppFlavor::Worker => {
                const W: [(&str, &str, &str); 3] = [
                    ("100m", "128Mi", "256Mi"),
                    ("200m", "256Mi", "512Mi"),
                    ("250m", "512Mi", "1Gi"),
                ];
                let (a, b, c) = W[self.below(W.len())];
                (a, b, c, None)
            }
            AppFlavor::Http => {
                const H: [(&str, &str, &str, Option<&str>); 4] = [
                    ("50m", "64Mi", "128Mi", None),
                    ("100m", "128Mi", "256Mi", None),
                    ("250m", "256Mi", "512Mi", Some("1")),
                    ("500m", "512Mi", "512Mi", Some("500m")),
                ];
                H[self.below(H.len())]
            }
        };
        let port = match t.flavor {
            AppFlavor::Http => Some((8080, "http")),
            AppFlavor::Database => Some((5432, "tcp")),
            AppFlavor::Agent => Some((9100, "metrics")),
            AppFlavor::Worker | AppFlavor::Batch | AppFlavor::ControlPlane => None,
        };
        let log_level = if self.chance(0.2) { "debug" } else { "info" };
        let mut env = vec![
            ("LOG_LEVEL".to_string(), log_level.to_string()),
            (
                "OTEL_EXPORTER_OTLP_ENDPOINT".to_string(),
                "http://otel-collector.monitoring:4317".to_string(),
            ),
        ];
        if t.flavor == AppFlavor::Http {
            env.push(("PORT".to_string(), "8080".to_string()));
        }
        if t.flavor == AppFlavor::Worker {
            env.push((
                "KAFKA_BROKERS".to_string(),
                "kafka-0.kafka.data:9092,kafka-1.kafka.data:9092".to_string(),
            ));
        }
        let _ = t.ns;
        PodTemplate {
            app: t.app.to_string(),
            container: t.container.to_string(),
            image: t.image,
            port,
            flavor: t.flavor,
            cpu_request: cpu,
            memory_request: mem,
            memory_limit: mem_limit,
            cpu_limit,
            service_account: t.service_account,
            host_network: false,
            priority_class: None,
            config_map: t.config_map,
            secret: t.secret,
            env,
            labels: t.labels,
        }
    }

    /// Registers a workload (no pods yet) and returns its index.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add_workload(
        &mut self,
        kind: WKind,
        ns: &str,
        name: &str,
        created: i64,
        replicas: u32,
        repo: &str,
        tag_prefix: &'static str,
        version: (u32, u32, u32),
        template: PodTemplate,
    ) -> u32 {
        let uid = self.new_uid();
        let idx = self.workloads.len() as u32;
        let mut w = Workload {
            kind,
            ns: Arc::from(ns),
            name: Arc::from(name),
            uid: uid.clone(),
            created,
            replicas,
            generation: 1,
            repo: repo.to_string(),
            tag_prefix,
            version,
            sets: Vec::new(),
            next_set_id: 0,
            alive: true,
            rolling: false,
            available_since: created + 30,
            progressing_since: created,
            node: None,
            completed: None,
        };
        let image_id = format!(
            "{}@sha256:{}",
            repo.split(':').next().unwrap_or(repo),
            self.hex64()
        );
        let hash = objects::template_hash(&mut self.rng);
        let (set_name, set_uid) = if kind == WKind::Deployment {
            (Arc::from(format!("{name}-{hash}").as_str()), self.new_uid())
        } else {
            (w.name.clone(), uid)
        };
        w.sets.push(PodSet {
            id: 0,
            name: set_name,
            uid: set_uid,
            hash,
            revision: 1,
            rendered: Arc::new(objects::RenderedTemplate::new(&template)),
            template: Arc::new(template),
            image_id,
            replicas,
            pods: Vec::new(),
            created,
            generation: 1,
            client_template: None,
        });
        w.next_set_id = 1;
        let plural = plural_of(kind);
        self.workload_index.insert((plural, key(ns, name)), idx);
        self.workloads.push(w);
        idx
    }

    /// Gives an existing deployment `old` older revisions (ReplicaSets scaled to zero), as a
    /// cluster that has seen rollouts has.
    pub(super) fn add_history(&mut self, w: u32, old: u32) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if wl.kind != WKind::Deployment || old == 0 {
            return;
        }
        let (name, created, repo, prefix, (ma, mi, pa)) = (
            wl.name.clone(),
            wl.created,
            wl.repo.clone(),
            wl.tag_prefix,
            wl.version,
        );
        let Some(cur) = wl.current() else { return };
        let template = (*cur.template).clone();
        let mut history = Vec::new();
        let span = (self.now_ms / 1000 - created).max(2 * i64::from(old) + 2);
        for r in 0..old {
            let created = created + span / 2 * i64::from(r) / i64::from(old);
            let back = old - r;
            let version = (ma, mi.saturating_sub(back / 2), pa + back);
            let mut t = template.clone();
            t.image = format!("{repo}:{prefix}{}.{}.{}", version.0, version.1, version.2);
            let hash = objects::template_hash(&mut self.rng);
            let uid = self.new_uid();
            let image_id = format!("{repo}@sha256:{}", self.hex64());
            history.push(PodSet {
                id: r,
                name: Arc::from(format!("{name}-{hash}").as_str()),
                uid,
                hash,
                revision: r + 1,
                rendered: Arc::new(objects::RenderedTemplate::new(&t)),
                template: Arc::new(t),
                image_id,
                replicas: 0,
                pods: Vec::new(),
                created,
                generation: 3,
                client_template: None,
            });
        }
        if let Some(wl) = self.workloads.get_mut(w as usize) {
            let span = (self.now_ms / 1000 - wl.created).max(1);
            if let Some(cur) = wl.sets.last_mut() {
                cur.id = old;
                cur.revision = old + 1;
                cur.created = wl.created + span / 2;
            }
            wl.next_set_id = old + 1;
            wl.generation = i64::from(old) + 1;
            history.append(&mut wl.sets);
            wl.sets = history;
            wl.progressing_since = wl.created + span / 2;
        }
    }

    /// Creates `count` pods for the current set of workload `w` at seed time.
    pub(super) fn seed_pods(&mut self, w: u32, count: u32, out: &mut SeedOut) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let kind = wl.kind;
        let set_created = wl.current().map(|s| s.created).unwrap_or(wl.created);
        let Some(set_id) = wl.current().map(|s| s.id) else {
            return;
        };
        let now = self.now_s();
        for i in 0..count {
            let node = match kind {
                WKind::DaemonSet => Some(i),
                WKind::Static => wl_node(&self.workloads, w),
                _ => self.pick_worker(),
            };
            let age_span = (now - set_created).max(60);
            let created =
                set_created + 20 + self.below(age_span as usize).min(age_span as usize) as i64 / 2;
            let created = created.min(now - 30);
            let roll = self.rng.random::<f64>();
            let crashy =
                crash_prone(kind, &wl_ns(&self.workloads, w)) && roll < self.cfg.crash_fraction;
            let stage = if kind == WKind::Job {
                PodStage::Succeeded
            } else if crashy {
                PodStage::CrashLoopBackOff
            } else if roll < self.cfg.crash_fraction + 0.004 {
                PodStage::ContainerCreating
            } else {
                PodStage::Running
            };
            // Pods still starting were created moments ago.
            let created = if stage == PodStage::ContainerCreating {
                now - 3 - self.below(40) as i64
            } else {
                created
            };
            let ordinal = matches!(kind, WKind::StatefulSet).then_some(i);
            let idx = self.insert_pod(w, set_id, node, created, stage, ordinal);
            let restarts = 3 + self.below(37) as u32;
            if let Some(p) = idx.and_then(|i| self.pods.get_mut(i)) {
                p.scheduled = created + 1;
                p.started = created + 4 + (i64::from(i) % 7);
                if crashy {
                    p.restarts = restarts;
                    p.crashy = true;
                    p.last = Some(LastTermination {
                        exit_code: 1,
                        reason: "Error",
                        started: now - 95,
                        finished: now - 62,
                    });
                }
                if kind == WKind::Job {
                    p.started = created + 40 + (i64::from(i) % 50);
                }
            }
            if let Some(i) = idx {
                let k = key(&self.pods[i].ns, &self.pods[i].name);
                if crashy {
                    self.crashing.push(k.clone());
                }
                if stage == PodStage::ContainerCreating {
                    self.progress.push_back(k);
                }
                out.0.push(Seed::Pod(i));
            }
        }
    }

    /// Adds a pod to the model (node assigned, IP allocated) and returns its position.
    pub(super) fn insert_pod(
        &mut self,
        w: u32,
        set_id: u32,
        node: Option<u32>,
        created: i64,
        stage: PodStage,
        ordinal: Option<u32>,
    ) -> Option<usize> {
        let wl = self.workloads.get(w as usize)?;
        let set = wl.set(set_id)?;
        let ns = wl.ns.clone();
        let (kind, wname, set_name) = (wl.kind, wl.name.clone(), set.name.clone());
        let host_network = set.template.host_network;
        let name: Arc<str> = match kind {
            WKind::Deployment => {
                let base = set_name;
                loop {
                    let s = objects::suffix(&mut self.rng, 5);
                    let n = format!("{base}-{s}");
                    if !self.pod_index.contains_key(&key(&ns, &n)) {
                        break Arc::from(n.as_str());
                    }
                }
            }
            WKind::StatefulSet => Arc::from(format!("{wname}-{}", ordinal.unwrap_or(0)).as_str()),
            WKind::Static => {
                let node_name = node
                    .and_then(|n| self.nodes.get(n as usize))
                    .map(|n| n.info.name.clone())
                    .unwrap_or_default();
                Arc::from(format!("{wname}-{node_name}").as_str())
            }
            WKind::DaemonSet | WKind::Job => {
                let base = wname;
                loop {
                    let s = objects::suffix(&mut self.rng, 5);
                    let n = format!("{base}-{s}");
                    if !self.pod_index.contains_key(&key(&ns, &n)) {
                        break Arc::from(n.as_str());
                    }
                }
            }
        };
        let k = key(&ns, &name);
        if self.pod_index.contains_key(&k) {
            return None;
        }
        let uid = self.new_uid();
        let ip = match (node, stage) {
            (_, PodStage::Pending) | (None, _) => None,
            (Some(n), _) if host_network => self
                .nodes
                .get(n as usize)
                .map(|s| s.info.internal_ip.clone()),
            (Some(n), _) => self.next_pod_ip(n),
        };
        let container_id = format!("containerd://{}", self.hex64());
        let pod = Pod {
            ns,
            name: name.clone(),
            uid,
            workload: w,
            set: set_id,
            node: if stage == PodStage::Pending {
                None
            } else {
                node
            },
            target_node: node,
            ip,
            created,
            scheduled: created + 1,
            started: created + 5,
            stage,
            restarts: 0,
            crashy: false,
            last: None,
            container_id,
            ordinal,
        };
        let pos = self.pods.len();
        self.pods.push(pod);
        self.pod_index.insert(k, pos);
        if let Some(set) = self
            .workloads
            .get_mut(w as usize)
            .and_then(|wl| wl.set_mut(set_id))
        {
            set.pods.push(name);
        }
        Some(pos)
    }
}
