//! Churn: one tick's changes, as the controllers and kubelets of a busy cluster make them
//! (pod progress, crash loops, kills, scaling, rollouts, node flips, heartbeats, widgets).

use super::*;

impl Simulator {
    // -----------------------------------------------------------------------------------------
    // Churn
    // -----------------------------------------------------------------------------------------

    /// The next `n` changes (exactly `n` unless `n` is 0). Seeds first if not seeded yet? No:
    /// ticks before `seed_mutations` only see an empty cluster and return nothing.
    pub fn tick(&mut self, n: usize) -> Vec<Mutation> {
        let mut out = Vec::with_capacity(n.min(65_536));
        if !self.seeded || self.workloads.is_empty() && self.nodes.is_empty() {
            return out;
        }
        let mut guard = 0usize;
        while out.len() < n {
            if let Some(m) = self.pending.pop_front() {
                out.push(m);
                continue;
            }
            let mut batch = Vec::new();
            self.step(&mut batch);
            self.pending.extend(batch);
            guard += 1;
            if self.pending.is_empty() && guard > n * 50 + 1000 {
                break;
            }
        }
        out
    }

    /// Mutations already decided but not yet returned by [`Simulator::tick`] (the rest of the
    /// last simulated change, or garbage collection after a rejection). After applying them the
    /// server holds exactly what the model holds.
    pub fn drain_pending(&mut self) -> Vec<Mutation> {
        self.pending.drain(..).collect()
    }

    pub(super) fn step(&mut self, out: &mut Vec<Mutation>) {
        self.now_ms += self.cfg.step_millis as i64;
        if let Some((w, set)) = self.dirty.pop_front() {
            self.top_up(w, set, out);
            return;
        }
        let r = self.below(100);
        match r {
            0..=34 if !self.progress.is_empty() => self.advance_progress(out),
            0..=34 => self.advance_crash(out),
            35..=52 => self.advance_crash(out),
            53..=64 => self.kill_pod(out),
            65..=72 => self.scale(out),
            73..=74 => self.start_rollout(out),
            75..=90 if !self.rollouts.is_empty() => self.rollout_step(out),
            75..=90 => self.advance_progress(out),
            91..=92 => self.flip_node(out),
            93..=95 => self.touch_widget(out),
            _ => self.node_heartbeat(out),
        }
        self.gc_events(out);
    }

    pub(super) fn top_up(&mut self, w: u32, set_id: u32, out: &mut Vec<Mutation>) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        let Some(set) = wl.set(set_id) else { return };
        let missing = set.replicas.saturating_sub(set.pods.len() as u32);
        for _ in 0..missing {
            self.create_replacement(w, set_id, None, None, out);
        }
        if missing > 0 {
            self.emit_status(w, set_id, out);
        }
    }

    /// The owner's controller creates a new pod for `set` (Pending, queued to progress).
    pub(super) fn create_replacement(
        &mut self,
        w: u32,
        set_id: u32,
        ordinal: Option<u32>,
        node_hint: Option<u32>,
        out: &mut Vec<Mutation>,
    ) {
        let now = self.now_s();
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let kind = wl.kind;
        let node = match kind {
            WKind::Static => wl.node,
            WKind::DaemonSet => node_hint,
            _ => None,
        };
        let ordinal = match (kind, ordinal) {
            (WKind::StatefulSet, Some(o)) => Some(o),
            (WKind::StatefulSet, None) => {
                let taken: Vec<u32> = wl
                    .set(set_id)
                    .map(|s| {
                        s.pods
                            .iter()
                            .filter_map(|n| n.rsplit('-').next().and_then(|x| x.parse().ok()))
                            .collect()
                    })
                    .unwrap_or_default();
                (0..).find(|o| !taken.contains(o))
            }
            _ => None,
        };
        let stage = if kind == WKind::Static {
            PodStage::ContainerCreating
        } else {
            PodStage::Pending
        };
        let Some(i) = self.insert_pod(w, set_id, node, now, stage, ordinal) else {
            return;
        };
        let crashy =
            crash_prone(kind, &wl_ns(&self.workloads, w)) && self.chance(self.cfg.crash_fraction);
        if let Some(p) = self.pods.get_mut(i) {
            p.crashy = crashy;
            p.scheduled = now;
            p.started = now;
        }
        if let Some(v) = self.render_pod(i) {
            out.push(Mutation::Create {
                resource: PODS,
                object: v,
            });
        }
        let (pname, ns) = (self.pods[i].name.clone(), self.pods[i].ns.clone());
        self.progress.push_back(key(&ns, &pname));
        if let Some(wl) = self.workloads.get(w as usize)
            && let Some(set) = wl.set(set_id)
        {
            let (api, kind_s, owner, uid, component) = match kind {
                WKind::Deployment => (
                    "apps/v1",
                    "ReplicaSet",
                    set.name.clone(),
                    set.uid.clone(),
                    "replicaset-controller",
                ),
                WKind::StatefulSet => (
                    "apps/v1",
                    "StatefulSet",
                    wl.name.clone(),
                    wl.uid.clone(),
                    "statefulset-controller",
                ),
                WKind::DaemonSet => (
                    "apps/v1",
                    "DaemonSet",
                    wl.name.clone(),
                    wl.uid.clone(),
                    "daemonset-controller",
                ),
                WKind::Job => (
                    "batch/v1",
                    "Job",
                    wl.name.clone(),
                    wl.uid.clone(),
                    "job-controller",
                ),
                WKind::Static => return,
            };
            let msg = if kind == WKind::StatefulSet {
                format!("create Pod {pname} in StatefulSet {} successful", wl.name)
            } else {
                format!("Created pod: {pname}")
            };
            self.record_event(
                ns,
                (api, kind_s, owner, uid, None),
                "SuccessfulCreate",
                msg,
                false,
                component,
                None,
                out,
            );
        }
    }

    /// Emits status updates for a pod's owners (ReplicaSet + Deployment, or the workload).
    pub(super) fn emit_status(&mut self, w: u32, set_id: u32, out: &mut Vec<Mutation>) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        if wl.kind == WKind::Deployment
            && let Some(s) = wl.set(set_id)
        {
            out.push(Mutation::Update {
                resource: REPLICASETS,
                object: self.render_rs(wl, s),
            });
        }
        self.emit_workload(w, out, false);
    }

    pub(super) fn advance_progress(&mut self, out: &mut Vec<Mutation>) {
        let Some(k) = self.progress.pop_front() else {
            return self.advance_crash(out);
        };
        let Some(&i) = self.pod_index.get(&k) else {
            return;
        };
        let now = self.now_s();
        let stage = self.pods[i].stage;
        let (w, set) = (self.pods[i].workload, self.pods[i].set);
        let kind = self.workloads.get(w as usize).map(|wl| wl.kind);
        match stage {
            PodStage::Pending => {
                let node = match kind {
                    Some(WKind::DaemonSet) => {
                        self.pods[i].target_node.or_else(|| self.pick_worker())
                    }
                    _ => self.pick_worker(),
                };
                let Some(node) = node else {
                    self.progress.push_back(k);
                    return;
                };
                let host_network = self
                    .workloads
                    .get(w as usize)
                    .and_then(|wl| wl.set(set))
                    .is_some_and(|s| s.template.host_network);
                let ip = if host_network {
                    self.nodes
                        .get(node as usize)
                        .map(|n| n.info.internal_ip.clone())
                } else {
                    self.next_pod_ip(node)
                };
                if let Some(p) = self.pods.get_mut(i) {
                    p.node = Some(node);
                    p.ip = ip;
                    p.stage = PodStage::ContainerCreating;
                    p.scheduled = now;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                let node_name = self.pod_node_name(i).unwrap_or_default();
                let msg = format!("Successfully assigned {} to {node_name}", k);
                self.record_pod_event(i, "Scheduled", msg, false, "default-scheduler", None, out);
                self.progress.push_back(k);
            }
            PodStage::ContainerCreating => {
                if let Some(p) = self.pods.get_mut(i) {
                    p.stage = PodStage::Running;
                    p.started = now;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                self.started_events(i, out);
                if self.pods[i].crashy {
                    self.crashing.push(k.clone());
                }
                if kind == Some(WKind::Job) {
                    self.progress.push_back(k);
                }
                self.emit_status(w, set, out);
            }
            PodStage::Running if kind == Some(WKind::Job) => {
                if let Some(p) = self.pods.get_mut(i) {
                    p.stage = PodStage::Succeeded;
                    p.started = now;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                if let Some(wl) = self.workloads.get_mut(w as usize) {
                    wl.completed = Some(now);
                }
                self.emit_status(w, set, out);
                if let Some(wl) = self.workloads.get(w as usize) {
                    let inv = ("batch/v1", "Job", wl.name.clone(), wl.uid.clone(), None);
                    let ns = wl.ns.clone();
                    self.record_event(
                        ns,
                        inv,
                        "Completed",
                        "Job completed".into(),
                        false,
                        "job-controller",
                        None,
                        out,
                    );
                }
            }
            _ => {}
        }
    }

    pub(super) fn pick_crashing(&mut self) -> Option<usize> {
        for _ in 0..4 {
            if self.crashing.is_empty() {
                return None;
            }
            let j = self.below(self.crashing.len());
            match self.pod_index.get(&self.crashing[j]) {
                Some(&i)
                    if self.pods[i].crashy
                        && self.pods[i].stage != PodStage::Pending
                        && self.pods[i].stage != PodStage::ContainerCreating =>
                {
                    return Some(i);
                }
                Some(_) => return None,
                None => {
                    self.crashing.swap_remove(j);
                }
            }
        }
        None
    }

    pub(super) fn advance_crash(&mut self, out: &mut Vec<Mutation>) {
        let Some(i) = self.pick_crashing() else {
            return self.node_heartbeat(out);
        };
        let now = self.now_s();
        let (w, set) = (self.pods[i].workload, self.pods[i].set);
        let host = self.pod_node_name(i);
        let stage = self.pods[i].stage;
        match stage {
            PodStage::Running => {
                let code = if self.chance(0.2) { 137 } else { 1 };
                if let Some(p) = self.pods.get_mut(i) {
                    p.last = Some(LastTermination {
                        exit_code: code,
                        reason: if code == 137 { "OOMKilled" } else { "Error" },
                        started: p.started,
                        finished: now,
                    });
                    p.stage = PodStage::Error;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                self.emit_status(w, set, out);
            }
            PodStage::Error => {
                if let Some(p) = self.pods.get_mut(i) {
                    p.stage = PodStage::CrashLoopBackOff;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                let p = &self.pods[i];
                let msg = format!(
                    "Back-off restarting failed container {} in pod {}_{}({})",
                    self.pod_container(i),
                    p.name,
                    p.ns,
                    p.uid
                );
                self.record_pod_event(i, "BackOff", msg, true, "kubelet", host, out);
            }
            PodStage::CrashLoopBackOff => {
                let cid = format!("containerd://{}", self.hex64());
                if let Some(p) = self.pods.get_mut(i) {
                    p.restarts += 1;
                    p.stage = PodStage::Running;
                    p.started = now;
                    p.container_id = cid;
                }
                if let Some(v) = self.render_pod(i) {
                    out.push(Mutation::Update {
                        resource: PODS,
                        object: v,
                    });
                }
                self.started_events(i, out);
                self.emit_status(w, set, out);
            }
            _ => {}
        }
    }

    /// Deletes a random pod (evicted, or a user/automation killed it); its controller replaces it.
    pub(super) fn kill_pod(&mut self, out: &mut Vec<Mutation>) {
        if self.pods.is_empty() {
            return;
        }
        let i = self.below(self.pods.len());
        let (w, set) = (self.pods[i].workload, self.pods[i].set);
        let kind = self.workloads.get(w as usize).map(|wl| wl.kind);
        if matches!(kind, Some(WKind::Job | WKind::Static) | None) {
            return self.advance_progress(out);
        }
        let host = self.pod_node_name(i);
        if host.is_some() && self.pods[i].stage != PodStage::Pending {
            let c = self.pod_container(i);
            self.record_pod_event(
                i,
                "Killing",
                format!("Stopping container {c}"),
                false,
                "kubelet",
                host,
                out,
            );
        }
        let ordinal = self.pods[i].ordinal;
        let node_hint = self.pods[i].node.or(self.pods[i].target_node);
        let (ns, name) = (self.pods[i].ns.clone(), self.pods[i].name.clone());
        self.remove_pod(&key(&ns, &name));
        out.push(Mutation::Delete {
            resource: PODS,
            namespace: Some(ns.to_string()),
            name: name.to_string(),
        });
        self.create_replacement(w, set, ordinal, node_hint, out);
        self.emit_status(w, set, out);
    }

    /// A client deleted (or evicted) the pod `ns/name`, which is now terminating (`gone`: or
    /// removed): when the model still holds it, its set's controller creates a replacement, as
    /// kube-controller-manager does (`kubectl delete pod`, the dashboard's ctrl-d and ctrl-k, a
    /// drain) — a ReplicaSet or DaemonSet once the pod is terminating, a StatefulSet only once
    /// it is gone (its replacement takes the same name). Nothing when the model no longer holds
    /// that pod — the simulator's own deletions, and a StatefulSet's pod it already replaced
    /// under the same name (a new `uid`) — or the pod is not a set's (a Job's, a static one).
    pub fn external_pod_deleted(
        &mut self,
        ns: &str,
        name: &str,
        uid: &str,
        gone: bool,
    ) -> Vec<Mutation> {
        let mut out = Vec::new();
        let Some(&i) = self.pod_index.get(&key(ns, name)) else {
            return out;
        };
        if &*self.pods[i].uid != uid {
            return out;
        }
        let (w, set) = (self.pods[i].workload, self.pods[i].set);
        let kind = self.workloads.get(w as usize).map(|wl| wl.kind);
        if kind == Some(WKind::StatefulSet) && !gone {
            return out;
        }
        let ordinal = self.pods[i].ordinal;
        let node_hint = self.pods[i].node.or(self.pods[i].target_node);
        self.remove_pod(&key(ns, name));
        if matches!(kind, Some(WKind::Job | WKind::Static) | None) {
            return out;
        }
        self.create_replacement(w, set, ordinal, node_hint, &mut out);
        self.emit_status(w, set, &mut out);
        out
    }

    /// Forgets a pod: dense-vector swap-remove plus index fixes, and its owner set's list.
    pub(super) fn remove_pod(&mut self, k: &str) -> Option<Pod> {
        let i = self.pod_index.remove(k)?;
        let p = self.pods.swap_remove(i);
        if let Some(moved) = self.pods.get(i) {
            let mk = key(&moved.ns, &moved.name);
            self.pod_index.insert(mk, i);
        }
        if let Some(set) = self
            .workloads
            .get_mut(p.workload as usize)
            .and_then(|w| w.set_mut(p.set))
            && let Some(pos) = set.pods.iter().position(|n| *n == p.name)
        {
            set.pods.remove(pos);
        }
        Some(p)
    }

    pub(super) fn pick_workload(&mut self, kinds: &[WKind]) -> Option<u32> {
        for _ in 0..16 {
            let w = self.below(self.workloads.len());
            let wl = self.workloads.get(w)?;
            if wl.alive && !wl.rolling && kinds.contains(&wl.kind) {
                return Some(w as u32);
            }
        }
        None
    }

    pub(super) fn scale(&mut self, out: &mut Vec<Mutation>) {
        let Some(w) = self.pick_workload(&[WKind::Deployment, WKind::StatefulSet]) else {
            return self.advance_progress(out);
        };
        let total = self.pods.len();
        let target = self.cfg.pods;
        let Some(from) = self.workloads.get(w as usize).map(|wl| wl.replicas) else {
            return;
        };
        let up = if total < target {
            self.chance(0.8)
        } else if total > target {
            self.chance(0.2)
        } else {
            self.chance(0.5)
        };
        let delta = 1 + self.below(if from >= 10 { 4 } else { 2 }) as u32;
        let to = if up {
            from + delta
        } else {
            from.saturating_sub(delta).max(1)
        };
        if to == from {
            return self.advance_progress(out);
        }
        self.scale_workload(w, from, to, out);
    }

    /// A client scaled a Deployment or StatefulSet (`kubectl scale`, the `/scale` subresource)
    /// to `to` replicas: its controller creates or deletes pods as it would for its own scaling.
    /// Nothing when the model already has that count (the simulator's own scaling) or does not
    /// know the workload.
    pub fn external_scale(&mut self, ns: &str, kind: &str, name: &str, to: u32) -> Vec<Mutation> {
        let want = match kind {
            "Deployment" => WKind::Deployment,
            "StatefulSet" => WKind::StatefulSet,
            _ => return Vec::new(),
        };
        let found = self
            .workloads
            .iter()
            .position(|wl| wl.alive && wl.kind == want && &*wl.ns == ns && &*wl.name == name);
        let mut out = Vec::new();
        if let Some(w) = found
            && let Some(from) = self.workloads.get(w).map(|wl| wl.replicas)
            && from != to
        {
            self.scale_workload(w as u32, from, to, &mut out);
        }
        out
    }

    /// A client cordoned (`on`) or uncordoned a node: the scheduler places no new pod on a
    /// cordoned node while another can take it.
    pub fn set_cordoned(&mut self, node: &str, on: bool) {
        if let Some(n) = self.nodes.iter_mut().find(|n| n.info.name == node) {
            n.cordoned = on;
        }
    }

    fn scale_workload(&mut self, w: u32, from: u32, to: u32, out: &mut Vec<Mutation>) {
        let up = to > from;
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let kind = wl.kind;
        let (ns, name, uid) = (wl.ns.clone(), wl.name.clone(), wl.uid.clone());
        let Some(set_id) = wl.current().map(|s| s.id) else {
            return;
        };
        let set_name = wl.current().map(|s| s.name.clone()).unwrap_or_default();
        if let Some(wl) = self.workloads.get_mut(w as usize) {
            wl.replicas = to;
            wl.generation += 1;
            if let Some(s) = wl.set_mut(set_id) {
                s.replicas = to;
                s.generation += 1;
            }
        }
        if kind == WKind::Deployment {
            let msg = format!(
                "Scaled {} replica set {set_name} from {from} to {to}",
                if up { "up" } else { "down" }
            );
            self.record_event(
                ns.clone(),
                ("apps/v1", "Deployment", name.clone(), uid.clone(), None),
                "ScalingReplicaSet",
                msg,
                false,
                "deployment-controller",
                None,
                out,
            );
        }
        self.emit_status(w, set_id, out);
        if up {
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

    /// The set's controller deletes one of its pods (newest first for ReplicaSets, highest
    /// ordinal for StatefulSets).
    pub(super) fn delete_from_set(&mut self, w: u32, set_id: u32, out: &mut Vec<Mutation>) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let Some(set) = wl.set(set_id) else { return };
        let victim = if wl.kind == WKind::StatefulSet {
            set.pods
                .iter()
                .max_by_key(|n| {
                    n.rsplit('-')
                        .next()
                        .and_then(|x| x.parse::<u32>().ok())
                        .unwrap_or(0)
                })
                .cloned()
        } else {
            // As the ReplicaSet controller ranks them: not-yet-running pods go first (pending
            // before creating), then the newest.
            let stage_of = |n: &Arc<str>| {
                self.pod_index
                    .get(&key(&wl.ns, n))
                    .map(|&i| self.pods[i].stage)
            };
            set.pods
                .iter()
                .rev()
                .find(|n| stage_of(n) == Some(PodStage::Pending))
                .or_else(|| {
                    set.pods
                        .iter()
                        .rev()
                        .find(|n| stage_of(n).is_some_and(|s| s != PodStage::Running))
                })
                .or_else(|| set.pods.last())
                .cloned()
        };
        let Some(victim) = victim else { return };
        self.delete_pod_of_set(w, set_id, &victim, out);
    }

    /// The set's controller deletes its pod `victim` (a Killing event if it runs on a node).
    pub(super) fn delete_pod_of_set(
        &mut self,
        w: u32,
        set_id: u32,
        victim: &str,
        out: &mut Vec<Mutation>,
    ) {
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        let Some(set) = wl.set(set_id) else { return };
        let ns = wl.ns.clone();
        let (api, kind_s, owner, uid, component) = match wl.kind {
            WKind::Deployment => (
                "apps/v1",
                "ReplicaSet",
                set.name.clone(),
                set.uid.clone(),
                "replicaset-controller",
            ),
            WKind::DaemonSet => (
                "apps/v1",
                "DaemonSet",
                wl.name.clone(),
                wl.uid.clone(),
                "daemonset-controller",
            ),
            _ => (
                "apps/v1",
                "StatefulSet",
                wl.name.clone(),
                wl.uid.clone(),
                "statefulset-controller",
            ),
        };
        let msg = if kind_s == "StatefulSet" {
            format!("delete Pod {victim} in StatefulSet {owner} successful")
        } else {
            format!("Deleted pod: {victim}")
        };
        let k = key(&ns, victim);
        if let Some(&i) = self.pod_index.get(&k)
            && self.pods[i].node.is_some()
        {
            let host = self.pod_node_name(i);
            let c = self.pod_container(i);
            self.record_pod_event(
                i,
                "Killing",
                format!("Stopping container {c}"),
                false,
                "kubelet",
                host,
                out,
            );
        }
        self.remove_pod(&k);
        out.push(Mutation::Delete {
            resource: PODS,
            namespace: Some(ns.to_string()),
            name: victim.to_string(),
        });
        self.record_event(
            ns,
            (api, kind_s, owner, uid, None),
            "SuccessfulDelete",
            msg,
            false,
            component,
            None,
            out,
        );
    }

    pub(super) fn start_rollout(&mut self, out: &mut Vec<Mutation>) {
        let Some(w) = self.pick_workload(&[WKind::Deployment]) else {
            return self.advance_progress(out);
        };
        let now = self.now_s();
        let hash = objects::template_hash(&mut self.rng);
        let uid = self.new_uid();
        let digest = self.hex64();
        let bump_minor = self.chance(0.3);
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        if wl.replicas == 0 || wl.current().is_none() {
            return;
        }
        let (a, b, c) = wl.version;
        wl.version = if bump_minor {
            (a, b + 1, 0)
        } else {
            (a, b, c + 1)
        };
        let image = wl.image();
        let Some(cur) = wl.current() else { return };
        let mut t = (*cur.template).clone();
        t.image = image.clone();
        let client_template = cur
            .client_template
            .as_ref()
            .map(|c| Arc::new(rollout::with_image(c, &t.container, &image)));
        let rendered = match &client_template {
            Some(c) => rollout::rendered_from(c, &t),
            None => objects::RenderedTemplate::new(&t),
        };
        let revision = cur.revision + 1;
        let id = wl.next_set_id;
        wl.next_set_id += 1;
        wl.generation += 1;
        wl.rolling = true;
        wl.progressing_since = now;
        let name: Arc<str> = Arc::from(format!("{}-{hash}", wl.name).as_str());
        wl.sets.push(PodSet {
            id,
            name: name.clone(),
            uid,
            hash,
            revision,
            rendered: Arc::new(rendered),
            template: Arc::new(t),
            image_id: format!("{}@sha256:{digest}", wl.repo),
            replicas: 0,
            pods: Vec::new(),
            created: now,
            generation: 1,
            client_template,
        });
        let Some(wl) = self.workloads.get(w as usize) else {
            return;
        };
        if let Some(s) = wl.set(id) {
            out.push(Mutation::Create {
                resource: REPLICASETS,
                object: self.render_rs(wl, s),
            });
        }
        self.emit_workload(w, out, false);
        self.rollouts.push_back(w);
    }

    pub(super) fn flip_node(&mut self, out: &mut Vec<Mutation>) {
        let now = self.now_s();
        let down = self.nodes.iter().position(|n| n.alive && !n.info.ready);
        let mp = self
            .nodes
            .iter()
            .position(|n| n.alive && n.info.memory_pressure);
        let i = if let Some(i) = down.filter(|_| self.chance(0.7)) {
            let n = &mut self.nodes[i].info;
            n.ready = true;
            n.ready_since = now;
            n.heartbeat = now;
            i
        } else if let Some(i) = mp.filter(|_| self.chance(0.6)) {
            let n = &mut self.nodes[i].info;
            n.memory_pressure = false;
            n.pressure_since = now;
            n.heartbeat = now;
            i
        } else {
            let Some(i) = self.pick_worker() else { return };
            let make_down = self.chance(0.5);
            let n = &mut self.nodes[i as usize].info;
            if make_down {
                n.ready = false;
                n.ready_since = now;
            } else {
                n.memory_pressure = true;
                n.pressure_since = now;
                n.heartbeat = now;
            }
            i as usize
        };
        let info = &self.nodes[i].info;
        out.push(Mutation::Update {
            resource: NODES,
            object: objects::node(info),
        });
        let (reason, msg, warn, comp): (&'static str, String, bool, &'static str) = if !info.ready {
            (
                "NodeNotReady",
                format!("Node {} status is now: NodeNotReady", info.name),
                true,
                "node-controller",
            )
        } else if info.memory_pressure {
            (
                "NodeHasInsufficientMemory",
                format!(
                    "Node {} status is now: NodeHasInsufficientMemory",
                    info.name
                ),
                true,
                "kubelet",
            )
        } else if info.ready_since == now {
            (
                "NodeReady",
                format!("Node {} status is now: NodeReady", info.name),
                false,
                "kubelet",
            )
        } else {
            (
                "NodeHasSufficientMemory",
                format!("Node {} status is now: NodeHasSufficientMemory", info.name),
                false,
                "kubelet",
            )
        };
        let name: Arc<str> = Arc::from(info.name.as_str());
        // kubelet refers to its node by name with the name as the uid (kubelet's `nodeRef`:
        // it does not read its Node's uid); the node controller uses the Node's real uid.
        let uid: Arc<str> = if comp == "kubelet" {
            Arc::clone(&name)
        } else {
            Arc::from(info.uid.as_str())
        };
        let host = (comp == "kubelet").then(|| info.name.clone());
        self.record_event(
            Arc::from("default"),
            ("v1", "Node", name, uid, None),
            reason,
            msg,
            warn,
            comp,
            host,
            out,
        );
    }

    /// A kubelet posts its node status (heartbeat), as every node does every few seconds.
    pub(super) fn node_heartbeat(&mut self, out: &mut Vec<Mutation>) {
        if self.nodes.is_empty() {
            return;
        }
        let i = self.below(self.nodes.len());
        let now = self.now_s();
        let n = &mut self.nodes[i];
        if !n.alive || !n.info.ready {
            return;
        }
        n.info.heartbeat = now;
        out.push(Mutation::Update {
            resource: NODES,
            object: objects::node(&n.info),
        });
    }

    pub(super) fn touch_widget(&mut self, out: &mut Vec<Mutation>) {
        let live: Vec<usize> = (0..self.widgets.len())
            .filter(|&i| self.widgets[i].is_some())
            .collect();
        if live.is_empty() {
            return self.node_heartbeat(out);
        }
        let i = live[self.below(live.len())];
        let bump = self.chance(0.4);
        let replicas = 1 + self.below(6) as u32;
        let Some(w) = self.widgets.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        w.phase = match w.phase {
            "Ready" if bump => "Pending",
            "Ready" => "Degraded",
            "Pending" => "Ready",
            _ => "Ready",
        };
        if bump {
            w.generation += 1;
            w.replicas = replicas;
        }
        out.push(Mutation::Update {
            resource: WIDGETS,
            object: objects::widget(w),
        });
    }
}
