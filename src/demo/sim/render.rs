//! Rendering the model into Kubernetes objects: pods, workloads, ReplicaSets and their counts.

use super::*;

impl Simulator {
    // -----------------------------------------------------------------------------------------
    // Rendering
    // -----------------------------------------------------------------------------------------

    pub(super) fn pod_node_name(&self, i: usize) -> Option<String> {
        self.pods
            .get(i)
            .and_then(|p| p.node)
            .and_then(|n| self.nodes.get(n as usize))
            .map(|n| n.info.name.clone())
    }

    pub(super) fn pod_container(&self, i: usize) -> String {
        self.pods
            .get(i)
            .and_then(|p| {
                self.workloads
                    .get(p.workload as usize)
                    .and_then(|w| w.set(p.set))
            })
            .map(|s| s.template.container.clone())
            .unwrap_or_default()
    }

    pub(super) fn render_pod(&self, i: usize) -> Option<Value> {
        let p = self.pods.get(i)?;
        let w = self.workloads.get(p.workload as usize)?;
        let set = w.set(p.set)?;
        let node = p.node.and_then(|n| self.nodes.get(n as usize));
        let node_name = node.map(|n| n.info.name.as_str());
        let host_ip = node.map(|n| n.info.internal_ip.as_str());
        let ord = p.ordinal.map(|o| o.to_string());
        let rev;
        let gen_s;
        let mut extra: Vec<(&str, &str)> = Vec::with_capacity(4);
        let mut ann: Vec<(&str, &str)> = Vec::new();
        let owner_ref;
        let pvc;
        match w.kind {
            WKind::Deployment => {
                extra.push(("pod-template-hash", &set.hash));
                owner_ref = ("apps/v1", "ReplicaSet", &*set.name, &*set.uid);
                pvc = None;
            }
            WKind::StatefulSet => {
                rev = format!("{}-{}", w.name, set.hash);
                extra.push(("controller-revision-hash", &rev));
                if let Some(o) = &ord {
                    extra.push(("apps.kubernetes.io/pod-index", o));
                }
                extra.push(("statefulset.kubernetes.io/pod-name", &p.name));
                owner_ref = ("apps/v1", "StatefulSet", &*w.name, &*w.uid);
                pvc = Some(format!("data-{}", p.name));
            }
            WKind::DaemonSet => {
                gen_s = w.generation.to_string();
                extra.push(("controller-revision-hash", &set.hash));
                extra.push(("pod-template-generation", &gen_s));
                owner_ref = ("apps/v1", "DaemonSet", &*w.name, &*w.uid);
                pvc = None;
            }
            WKind::Job => {
                extra.push(("batch.kubernetes.io/controller-uid", &w.uid));
                extra.push(("batch.kubernetes.io/job-name", &w.name));
                extra.push(("controller-uid", &w.uid));
                extra.push(("job-name", &w.name));
                ann.push(("batch.kubernetes.io/job-tracking", ""));
                owner_ref = ("batch/v1", "Job", &*w.name, &*w.uid);
                pvc = None;
            }
            WKind::Static => {
                ann.push(("kubernetes.io/config.source", "file"));
                ann.push(("kubernetes.io/config.hash", &set.hash));
                ann.push(("kubernetes.io/config.mirror", &set.hash));
                let n = node?;
                owner_ref = ("v1", "Node", n.info.name.as_str(), n.info.uid.as_str());
                pvc = None;
            }
        }
        let client_ann: Vec<(&str, &str)> = set
            .client_template
            .as_ref()
            .and_then(|t| t.pointer("/metadata/annotations"))
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.as_str(), v.as_str()?)))
                    .collect()
            })
            .unwrap_or_default();
        ann.extend(client_ann);
        let is_sts = w.kind == WKind::StatefulSet;
        let mut pod = objects::pod(&objects::PodView {
            namespace: &p.ns,
            name: &p.name,
            uid: &p.uid,
            created: p.created,
            template: &set.template,
            extra_labels: &extra,
            annotations: &ann,
            owner: owner_ref,
            node: node_name,
            host_ip,
            pod_ip: p.ip.as_deref(),
            hostname: is_sts.then_some(&*p.name),
            subdomain: is_sts.then_some(&*w.name),
            pvc: pvc.as_deref(),
            stage: p.stage,
            scheduled_at: p.scheduled,
            started_at: p.started,
            restarts: p.restarts,
            last: p.last,
            container_id: &p.container_id,
            image_id: &set.image_id,
            cached: Some(&set.rendered),
        });
        if self.cfg.pod_shape == crate::demo::realistic::PodShape::Realistic {
            crate::demo::realistic::make_realistic(&mut pod);
        }
        Some(pod)
    }

    pub(super) fn counts(&self, w: &Workload, set: Option<&PodSet>) -> ReplicaCounts {
        let sets: Vec<&PodSet> = match set {
            Some(s) => vec![s],
            None => w.sets.iter().collect(),
        };
        let mut c = ReplicaCounts {
            desired: match set {
                Some(s) => s.replicas,
                None => w.replicas,
            },
            ..Default::default()
        };
        let newest = w.sets.last().map(|s| s.id);
        for s in sets {
            for name in &s.pods {
                if let Some(&i) = self.pod_index.get(&key(&w.ns, name)) {
                    let p = &self.pods[i];
                    c.current += 1;
                    if p.stage == PodStage::Running
                        || (w.kind == WKind::Job && p.stage == PodStage::Succeeded)
                    {
                        c.ready += 1;
                    }
                    if Some(s.id) == newest {
                        c.updated += 1;
                    }
                }
            }
        }
        c
    }

    /// Renders workload `w` (and, for deployments, its ReplicaSets when `with_sets`), with a
    /// client's pod template verbatim and a StatefulSet's revisions mid-rollout.
    pub(super) fn render_workload(&self, w: u32, with_sets: bool) -> Vec<(ResourceId, Value)> {
        let mut out = self.render_workload_typed(w, with_sets);
        let Some(wl) = self.workloads.get(w as usize) else {
            return out;
        };
        let Some(cur) = wl.current() else { return out };
        if let Some((_, first)) = out.first_mut() {
            if cur.client_template.is_some()
                && let Some(spec) = first.get_mut("spec").and_then(Value::as_object_mut)
            {
                spec.insert("template".into(), rollout::template_json(wl.kind, cur));
            }
            if wl.kind == WKind::StatefulSet
                && let Some(old) = wl
                    .sets
                    .iter()
                    .find(|s| s.id != cur.id && !s.pods.is_empty())
                && let Some(st) = first.get_mut("status").and_then(Value::as_object_mut)
            {
                st.insert(
                    "currentRevision".into(),
                    Value::from(format!("{}-{}", wl.name, old.hash)),
                );
                let current: usize = wl
                    .sets
                    .iter()
                    .filter(|s| s.id != cur.id)
                    .map(|s| s.pods.len())
                    .sum();
                st.insert("currentReplicas".into(), Value::from(current));
            }
        }
        out
    }

    fn render_workload_typed(&self, w: u32, with_sets: bool) -> Vec<(ResourceId, Value)> {
        let mut out = Vec::new();
        let Some(wl) = self.workloads.get(w as usize) else {
            return out;
        };
        let Some(cur) = wl.current() else { return out };
        let now = self.now_s();
        match wl.kind {
            WKind::Deployment => {
                out.push((
                    DEPLOYMENTS,
                    objects::deployment(&objects::DeploymentView {
                        namespace: &wl.ns,
                        name: &wl.name,
                        uid: &wl.uid,
                        created: wl.created,
                        generation: wl.generation,
                        revision: cur.revision,
                        template: &cur.template,
                        counts: self.counts(wl, None),
                        available_since: wl.available_since,
                        progressing_since: wl.progressing_since,
                        now,
                        new_rs: &cur.name,
                    }),
                ));
                if with_sets {
                    for s in &wl.sets {
                        out.push((REPLICASETS, self.render_rs(wl, s)));
                    }
                }
            }
            WKind::StatefulSet => out.push((
                STATEFULSETS,
                objects::statefulset(&objects::StatefulSetView {
                    namespace: &wl.ns,
                    name: &wl.name,
                    uid: &wl.uid,
                    created: wl.created,
                    generation: wl.generation,
                    revision_hash: &cur.hash,
                    template: &cur.template,
                    service: &wl.name,
                    counts: self.counts(wl, None),
                }),
            )),
            WKind::DaemonSet => {
                let mut c = self.counts(wl, None);
                c.desired = self.nodes.iter().filter(|n| n.alive).count() as u32;
                out.push((
                    DAEMONSETS,
                    objects::daemonset(&objects::DaemonSetView {
                        namespace: &wl.ns,
                        name: &wl.name,
                        uid: &wl.uid,
                        created: wl.created,
                        generation: wl.generation,
                        template: &cur.template,
                        counts: c,
                        control_plane_too: true,
                    }),
                ))
            }
            WKind::Job => {
                let c = self.counts(wl, None);
                let succeeded = cur
                    .pods
                    .iter()
                    .filter(|n| {
                        self.pod_index
                            .get(&key(&wl.ns, n))
                            .is_some_and(|&i| self.pods[i].stage == PodStage::Succeeded)
                    })
                    .count() as u32;
                let ready = c.ready - succeeded.min(c.ready);
                out.push((
                    JOBS,
                    objects::job(&objects::JobView {
                        namespace: &wl.ns,
                        name: &wl.name,
                        uid: &wl.uid,
                        created: wl.created,
                        template: &cur.template,
                        controller_uid: &wl.uid,
                        completions: wl.replicas,
                        active: c.current - succeeded.min(c.current),
                        succeeded,
                        ready,
                        start: wl.created,
                        completed_at: wl.completed,
                    }),
                ))
            }
            WKind::Static => {}
        }
        out
    }

    pub(super) fn render_rs(&self, wl: &Workload, s: &PodSet) -> Value {
        let mut rs = self.render_rs_typed(wl, s);
        if let Some(t) = &s.client_template {
            let mut t = (**t).clone();
            let hash = Value::from(s.hash.as_str());
            if let Some(md) = t.get_mut("metadata").and_then(Value::as_object_mut) {
                let labels = md
                    .entry("labels")
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(l) = labels.as_object_mut() {
                    l.insert("pod-template-hash".into(), hash.clone());
                }
            }
            if let Some(l) = t.pointer("/metadata/labels").cloned()
                && let Some(md) = rs.get_mut("metadata").and_then(Value::as_object_mut)
            {
                md.insert("labels".into(), l);
            }
            if let Some(spec) = rs.get_mut("spec").and_then(Value::as_object_mut) {
                spec.insert("template".into(), t);
            }
        }
        rs
    }

    fn render_rs_typed(&self, wl: &Workload, s: &PodSet) -> Value {
        objects::replicaset(&objects::ReplicaSetView {
            namespace: &wl.ns,
            name: &s.name,
            uid: &s.uid,
            created: s.created,
            hash: &s.hash,
            revision: s.revision,
            template: &s.template,
            deployment: &wl.name,
            deployment_uid: &wl.uid,
            deployment_replicas: wl.replicas,
            generation: s.generation,
            counts: self.counts(wl, Some(s)),
        })
    }

    pub(super) fn emit_workload(&self, w: u32, out: &mut Vec<Mutation>, create: bool) {
        for (resource, object) in self.render_workload(w, create) {
            out.push(if create {
                Mutation::Create { resource, object }
            } else {
                Mutation::Update { resource, object }
            });
        }
    }
}
