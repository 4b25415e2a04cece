//! Rollouts: what the Deployment, StatefulSet and DaemonSet controllers do when a pod template
//! changes, be it the simulator's own image bump or a client's (`kubectl rollout restart`,
//! `kubectl set image`, an edit).
//!
//! - Deployment: a new ReplicaSet (new pod-template-hash, revision = highest + 1; a template equal
//!   to an old ReplicaSet's reuses it, as a rollback does) rolled as the controller's
//!   `rolloutRolling` does: each step either scales the new ReplicaSet up within
//!   `replicas + maxSurge`, or scales old ones down keeping `replicas - maxUnavailable` available
//!   (unhealthy old pods first); 25%/25%, maxSurge rounded up and maxUnavailable down, as
//!   `intstr.GetScaledValueFromIntOrPercent` does. Old ReplicaSets end at 0 and are kept.
//! - StatefulSet (OrderedReady, RollingUpdate): once every updated pod runs, the old pod with the
//!   highest ordinal is replaced by one of the update revision; `currentRevision` follows when
//!   none is left.
//! - DaemonSet (maxUnavailable 1, maxSurge 0): one node at a time.
//!
//! A client's template reaches [`Simulator::external_template`] with the object's generation, so
//! the simulator's own writes (generation already observed) are told apart from clients'.

use super::*;

/// Scaled maxSurge and maxUnavailable for `replicas` at 25% each, as the deployment controller
/// resolves them (`ResolveFenceposts`): surge rounds up, unavailable rounds down, and both being
/// 0 makes unavailable 1.
pub(super) fn surge_and_unavailable(replicas: u32) -> (u32, u32) {
    let surge = replicas.div_ceil(4);
    let unavailable = replicas / 4;
    if surge == 0 && unavailable == 0 {
        (0, 1)
    } else {
        (surge, unavailable)
    }
}

/// `template` with the image of container `container` (or of the first one) set to `image`.
pub(super) fn with_image(template: &Value, container: &str, image: &str) -> Value {
    let mut t = template.clone();
    if let Some(Value::Array(cs)) = t.pointer_mut("/spec/containers") {
        let at = cs
            .iter()
            .position(|c| c.get("name").and_then(Value::as_str) == Some(container))
            .unwrap_or(0);
        if let Some(Value::Object(c)) = cs.get_mut(at) {
            c.insert("image".into(), Value::from(image));
        }
    }
    t
}

/// Labels and pod spec of a client's template, as pods are rendered from it (falling back to the
/// typed template's for a template without them).
pub(super) fn rendered_from(template: &Value, t: &PodTemplate) -> objects::RenderedTemplate {
    let labels = template
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(|| t.label_map());
    let spec = template
        .get("spec")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_else(|| t.pod_spec(None));
    objects::RenderedTemplate { labels, spec }
}

/// The pod template of `set` as its workload's spec shows it.
pub(super) fn template_json(kind: WKind, set: &PodSet) -> Value {
    if let Some(c) = &set.client_template {
        return (**c).clone();
    }
    let mut t = set.template.template(&[]);
    if kind == WKind::DaemonSet
        && let Some(spec) = t.get_mut("spec").and_then(Value::as_object_mut)
    {
        // As objects::daemonset renders it.
        spec.insert(
            "nodeSelector".into(),
            serde_json::json!({"kubernetes.io/os": "linux"}),
        );
    }
    t
}

impl Simulator {
    /// A client changed the pod template of a Deployment, StatefulSet or DaemonSet (the object
    /// now has `generation`): its controller rolls the pods to it. Nothing when the simulator
    /// already observed that generation (its own write) or does not know the workload; a
    /// template equal to the current one only records the generation.
    pub fn external_template(
        &mut self,
        ns: &str,
        kind: &str,
        name: &str,
        template: &Value,
        generation: i64,
    ) -> Vec<Mutation> {
        let mut out = Vec::new();
        let want = match kind {
            "Deployment" => WKind::Deployment,
            "StatefulSet" => WKind::StatefulSet,
            "DaemonSet" => WKind::DaemonSet,
            _ => return out,
        };
        let Some(&w) = self.workload_index.get(&(plural_of(want), key(ns, name))) else {
            return out;
        };
        let Some(wl) = self.workloads.get(w as usize) else {
            return out;
        };
        if !wl.alive || wl.kind != want || generation <= wl.generation {
            return out;
        }
        let Some(cur) = wl.current() else { return out };
        let cur_id = cur.id;
        if template_json(want, cur) == *template {
            if let Some(wl) = self.workloads.get_mut(w as usize) {
                wl.generation = generation;
            }
            self.emit_workload(w, &mut out, false);
            return out;
        }
        let earlier = wl
            .sets
            .iter()
            .find(|s| s.id != cur_id && template_json(want, s) == *template)
            .map(|s| s.id);
        let now = self.now_s();
        let revision = wl.sets.iter().map(|s| s.revision).max().unwrap_or(0) + 1;
        match earlier {
            Some(id) => {
                if let Some(wl) = self.workloads.get_mut(w as usize)
                    && let Some(pos) = wl.sets.iter().position(|s| s.id == id)
                {
                    let mut s = wl.sets.remove(pos);
                    s.revision = revision;
                    s.generation += 1;
                    wl.sets.push(s);
                }
            }
            None => self.push_client_set(w, template, revision),
        }
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return out;
        };
        wl.generation = generation;
        wl.rolling = true;
        wl.progressing_since = now;
        if let Some(wl) = self.workloads.get(w as usize)
            && let Some(s) = wl.current()
            && want == WKind::Deployment
        {
            let object = self.render_rs(wl, s);
            out.push(if earlier.is_some() {
                Mutation::Update {
                    resource: REPLICASETS,
                    object,
                }
            } else {
                Mutation::Create {
                    resource: REPLICASETS,
                    object,
                }
            });
        }
        self.emit_workload(w, &mut out, false);
        if !self.rollouts.contains(&w) {
            self.rollouts.push_back(w);
        }
        out
    }

    /// Appends a new (empty) set for the client's `template` as the workload's current one.
    fn push_client_set(&mut self, w: u32, template: &Value, revision: u32) {
        let now = self.now_s();
        let hash = objects::template_hash(&mut self.rng);
        let uid = self.new_uid();
        let digest = self.hex64();
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        let Some(cur) = wl.current() else { return };
        let mut t = (*cur.template).clone();
        let container = template
            .pointer("/spec/containers")
            .and_then(Value::as_array)
            .and_then(|cs| {
                cs.iter()
                    .find(|c| c.get("name").and_then(Value::as_str) == Some(&t.container))
                    .or_else(|| cs.first())
            });
        if let Some(c) = container {
            if let Some(name) = c.get("name").and_then(Value::as_str) {
                t.container = name.to_string();
            }
            if let Some(image) = c.get("image").and_then(Value::as_str) {
                t.image = image.to_string();
            }
        }
        let image_id = if t.image == cur.template.image {
            cur.image_id.clone()
        } else {
            let repo = t.image.rsplit_once(':').map_or(t.image.as_str(), |r| r.0);
            format!("{repo}@sha256:{digest}")
        };
        let (name, set_uid): (Arc<str>, Arc<str>) = if wl.kind == WKind::Deployment {
            (Arc::from(format!("{}-{hash}", wl.name).as_str()), uid)
        } else {
            (wl.name.clone(), wl.uid.clone())
        };
        let id = wl.next_set_id;
        wl.next_set_id += 1;
        wl.sets.push(PodSet {
            id,
            name,
            uid: set_uid,
            hash,
            revision,
            rendered: Arc::new(rendered_from(template, &t)),
            template: Arc::new(t),
            image_id,
            replicas: 0,
            pods: Vec::new(),
            created: now,
            generation: 1,
            client_template: Some(Arc::new(template.clone())),
        });
    }

    /// One controller sync of the rollout at the front of the queue; requeued unless complete.
    pub(super) fn rollout_step(&mut self, out: &mut Vec<Mutation>) {
        let Some(w) = self.rollouts.pop_front() else {
            return;
        };
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        let done = match wl.kind {
            WKind::Deployment => self.roll_deployment(w, out),
            WKind::StatefulSet | WKind::DaemonSet => self.roll_one_at_a_time(w, out),
            _ => true,
        };
        if !done {
            self.rollouts.push_back(w);
            return;
        }
        let now = self.now_s();
        let ns = wl_ns(&self.workloads, w);
        let mut removed = Vec::new();
        if let Some(wl) = self.workloads.get_mut(w as usize) {
            wl.rolling = false;
            wl.progressing_since = now;
            if wl.kind == WKind::Deployment {
                // Keep the three newest old ReplicaSets (revision history), delete the rest.
                while wl.sets.len() > 4 && wl.sets.first().is_some_and(|s| s.pods.is_empty()) {
                    let s = wl.sets.remove(0);
                    removed.push(s.name);
                }
            } else {
                // Revisions of StatefulSets and DaemonSets are ControllerRevisions, not served.
                let keep = wl.sets.len().saturating_sub(1);
                wl.sets.drain(..keep);
            }
        }
        for n in removed {
            out.push(Mutation::Delete {
                resource: REPLICASETS,
                namespace: Some(ns.to_string()),
                name: n.to_string(),
            });
        }
        self.emit_workload(w, out, false);
    }

    /// Pods of `set` that run (ready, hence available: the demo's minReadySeconds is 0).
    fn available(&self, ns: &str, set: &PodSet) -> u32 {
        set.pods
            .iter()
            .filter(|n| {
                self.pod_index
                    .get(&key(ns, n))
                    .is_some_and(|&i| self.pods[i].stage == PodStage::Running)
            })
            .count() as u32
    }

    /// The deployment controller's `rolloutRolling`: scale the new ReplicaSet up, or else old
    /// ones down; true once the rollout is complete.
    fn roll_deployment(&mut self, w: u32, out: &mut Vec<Mutation>) -> bool {
        let Some(wl) = self.workloads.get(w as usize) else {
            return true;
        };
        let Some(new) = wl.current() else { return true };
        let target = wl.replicas;
        let (surge, unavailable) = surge_and_unavailable(target);
        let new_id = new.id;
        let new_replicas = new.replicas;
        let total: u32 = wl.sets.iter().map(|s| s.replicas).sum();
        if new_replicas > target {
            self.scale_set(w, new_id, target, out);
            return false;
        }
        if new_replicas < target && total < target + surge {
            let up = (target + surge - total).min(target - new_replicas);
            self.scale_set(w, new_id, new_replicas + up, out);
            return false;
        }
        let min_available = target.saturating_sub(unavailable);
        let new_unavailable = new_replicas.saturating_sub(self.available(&wl.ns, new));
        let max_down = i64::from(total) - i64::from(min_available) - i64::from(new_unavailable);
        // Old sets, oldest first: (id, replicas, available).
        let olds: Vec<(u32, u32, u32)> = wl
            .sets
            .iter()
            .filter(|s| s.id != new_id && s.replicas > 0)
            .map(|s| (s.id, s.replicas, self.available(&wl.ns, s)))
            .collect();
        let available_total: u32 = wl.sets.iter().map(|s| self.available(&wl.ns, s)).sum();
        if olds.is_empty() {
            return new_replicas == target && self.available(&wl.ns, new) >= target;
        }
        if max_down <= 0 {
            return false;
        }
        let max_down = u32::try_from(max_down).unwrap_or(u32::MAX);
        // Unhealthy old pods go first, within the budget.
        let mut cleaned = 0;
        let mut olds_after = Vec::with_capacity(olds.len());
        for (id, replicas, available) in olds {
            let unhealthy = replicas - available.min(replicas);
            let n = unhealthy.min(max_down - cleaned);
            if n > 0 {
                self.scale_set(w, id, replicas - n, out);
                cleaned += n;
            }
            olds_after.push((id, replicas - n));
        }
        if cleaned > 0 {
            return false;
        }
        if available_total <= min_available {
            return false;
        }
        let mut budget = available_total - min_available;
        for (id, replicas) in olds_after {
            if budget == 0 {
                break;
            }
            let n = replicas.min(budget);
            if n > 0 {
                self.scale_set(w, id, replicas - n, out);
                budget -= n;
            }
        }
        false
    }

    /// Sets `set`'s desired replicas to `to` and creates or deletes its pods, with the deployment
    /// controller's ScalingReplicaSet event.
    fn scale_set(&mut self, w: u32, set_id: u32, to: u32, out: &mut Vec<Mutation>) {
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        let (ns, name, uid) = (wl.ns.clone(), wl.name.clone(), wl.uid.clone());
        let Some(s) = wl.set_mut(set_id) else { return };
        let from = s.replicas;
        if from == to {
            return;
        }
        s.replicas = to;
        s.generation += 1;
        let msg = format!(
            "Scaled {} replica set {} from {from} to {to}",
            if to > from { "up" } else { "down" },
            s.name
        );
        self.record_event(
            ns,
            ("apps/v1", "Deployment", name, uid, None),
            "ScalingReplicaSet",
            msg,
            false,
            "deployment-controller",
            None,
            out,
        );
        if to > from {
            for _ in from..to {
                self.create_replacement(w, set_id, None, None, out);
            }
        } else {
            for _ in to..from {
                self.delete_from_set(w, set_id, out);
            }
        }
        self.emit_status(w, set_id, out);
    }

    /// A StatefulSet's or DaemonSet's rolling update: once every pod runs, one old pod (highest ordinal; any node) is replaced by one of the new revision.
    /// True once no old pod is left and every pod is ready.
    fn roll_one_at_a_time(&mut self, w: u32, out: &mut Vec<Mutation>) -> bool {
        let Some(wl) = self.workloads.get(w as usize) else {
            return true;
        };
        let Some(new) = wl.current() else { return true };
        let new_id = new.id;
        let ns = wl.ns.clone();
        let ordinal = |n: &str| n.rsplit('-').next().and_then(|x| x.parse::<u32>().ok());
        let old = wl
            .sets
            .iter()
            .filter(|s| s.id != new_id)
            .flat_map(|s| s.pods.iter().map(move |p| (s.id, p.clone())))
            .max_by_key(|(_, p)| ordinal(p).unwrap_or(0));
        // OrderedReady / maxUnavailable 1: nothing more while any pod is not ready.
        let all_ready = wl
            .sets
            .iter()
            .all(|s| self.available(&ns, s) >= s.pods.len() as u32);
        let Some((old_id, victim)) = old else {
            return all_ready;
        };
        if !all_ready {
            return false;
        }
        let kind = wl.kind;
        let (node, ord) = match self.pod_index.get(&key(&ns, &victim)) {
            Some(&i) => (
                self.pods[i].node.or(self.pods[i].target_node),
                self.pods[i].ordinal,
            ),
            None => (None, ordinal(&victim)),
        };
        if let Some(wl) = self.workloads.get_mut(w as usize) {
            if let Some(s) = wl.set_mut(old_id) {
                s.replicas = s.replicas.saturating_sub(1);
            }
            if let Some(s) = wl.set_mut(new_id) {
                s.replicas += 1;
            }
        }
        self.delete_pod_of_set(w, old_id, &victim, out);
        match kind {
            WKind::StatefulSet => self.create_replacement(w, new_id, ord, None, out),
            _ => self.create_replacement(w, new_id, None, node, out),
        }
        self.emit_status(w, new_id, out);
        false
    }
}
