//! Rejections: forgetting what the server refused, cascading as the garbage collector would.

use super::*;

impl Simulator {
    // -----------------------------------------------------------------------------------------
    // Rejections
    // -----------------------------------------------------------------------------------------

    /// The server refused `m` (typically: the object was deleted or replaced behind the
    /// simulator's back, e.g. with kubectl). The model forgets the object, cascades what the
    /// garbage collector would (pods of a forgotten ReplicaSet, ReplicaSets of a forgotten
    /// Deployment) and lets controllers recreate what they own on later ticks.
    pub fn rejected(&mut self, m: &Mutation) {
        let (resource, ns, name, was_create) = match m {
            Mutation::Create { resource, object } | Mutation::Update { resource, object } => {
                let ns = object
                    .pointer("/metadata/namespace")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let Some(name) = object.pointer("/metadata/name").and_then(Value::as_str) else {
                    return;
                };
                (
                    *resource,
                    ns,
                    name.to_string(),
                    matches!(m, Mutation::Create { .. }),
                )
            }
            // A refused delete means the object is already gone; the model forgot it already.
            Mutation::Delete { .. } => return,
        };
        let _ = was_create;
        let k = match &ns {
            Some(ns) => key(ns, &name),
            None => name.clone(),
        };
        self.purge_pending(resource, ns.as_deref(), &name);
        match resource.plural {
            "pods" => {
                if let Some(p) = self.remove_pod(&k) {
                    self.dirty.push_back((p.workload, p.set));
                }
            }
            "replicasets" => {
                let Some(ns) = ns else { return };
                let found = self.workloads.iter().enumerate().find_map(|(wi, wl)| {
                    (wl.kind == WKind::Deployment && *wl.ns == *ns)
                        .then(|| {
                            wl.sets
                                .iter()
                                .find(|s| *s.name == *name)
                                .map(|s| (wi as u32, s.id))
                        })
                        .flatten()
                });
                if let Some((w, set_id)) = found {
                    self.forget_set(w, set_id);
                }
            }
            "deployments" | "statefulsets" | "daemonsets" | "jobs" => {
                if let Some(&w) = self.workload_index.get(&(resource.plural, k.clone())) {
                    self.forget_workload(w);
                }
            }
            "nodes" => {
                if let Some(i) = self
                    .nodes
                    .iter()
                    .position(|n| n.info.name == name && n.alive)
                {
                    self.nodes[i].alive = false;
                    let on_node: Vec<String> = self
                        .pods
                        .iter()
                        .filter(|p| p.node == Some(i as u32))
                        .map(|p| key(&p.ns, &p.name))
                        .collect();
                    for pk in on_node {
                        if let Some(p) = self.remove_pod(&pk) {
                            self.pending.push_back(Mutation::Delete {
                                resource: PODS,
                                namespace: Some(p.ns.to_string()),
                                name: p.name.to_string(),
                            });
                            let kind = self.workloads.get(p.workload as usize).map(|w| w.kind);
                            if matches!(kind, Some(WKind::Deployment | WKind::StatefulSet)) {
                                self.dirty.push_back((p.workload, p.set));
                            }
                        }
                    }
                }
            }
            "events" => {
                if let Some(e) = self.events.remove(&k) {
                    let agg = (e.involved.3.clone(), e.reason);
                    if self.event_agg.get(&agg) == Some(&k) {
                        self.event_agg.remove(&agg);
                    }
                }
            }
            "widgets" => {
                for w in self.widgets.iter_mut() {
                    if w.as_ref()
                        .is_some_and(|x| x.name == name && Some(&x.namespace) == ns.as_ref())
                    {
                        *w = None;
                    }
                }
            }
            other => {
                self.statics.remove(&(other, k));
            }
        }
    }

    pub(super) fn purge_pending(&mut self, resource: ResourceId, ns: Option<&str>, name: &str) {
        self.pending.retain(|m| match m {
            Mutation::Create {
                resource: r,
                object,
            }
            | Mutation::Update {
                resource: r,
                object,
            } => {
                !(*r == resource
                    && object.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
                    && object
                        .pointer("/metadata/namespace")
                        .and_then(Value::as_str)
                        == ns)
            }
            Mutation::Delete {
                resource: r,
                namespace,
                name: n,
            } => !(*r == resource && n == name && namespace.as_deref() == ns),
        });
    }

    /// A ReplicaSet vanished: its pods are garbage-collected; if it was the deployment's current
    /// one, the deployment controller creates it again (same template hash, new uid).
    pub(super) fn forget_set(&mut self, w: u32, set_id: u32) {
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        let Some(pos) = wl.sets.iter().position(|s| s.id == set_id) else {
            return;
        };
        let is_current = pos + 1 == wl.sets.len();
        let ns = wl.ns.clone();
        let pods: Vec<Arc<str>> = wl.sets[pos].pods.clone();
        for p in pods {
            let k = key(&ns, &p);
            if self.remove_pod(&k).is_some() {
                self.purge_pending(PODS, Some(&ns), &p);
                self.pending.push_back(Mutation::Delete {
                    resource: PODS,
                    namespace: Some(ns.to_string()),
                    name: p.to_string(),
                });
            }
        }
        let uid = self.new_uid();
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        if is_current {
            if let Some(s) = wl.sets.get_mut(pos) {
                s.uid = uid;
            }
            let Some(wl) = self.workloads.get(w as usize) else {
                return;
            };
            if let Some(s) = wl.set(set_id) {
                self.pending.push_back(Mutation::Create {
                    resource: REPLICASETS,
                    object: self.render_rs(wl, s),
                });
            }
            self.dirty.push_back((w, set_id));
        } else {
            wl.sets.remove(pos);
        }
    }

    /// A workload vanished: everything it owns is garbage-collected.
    pub(super) fn forget_workload(&mut self, w: u32) {
        let Some(wl) = self.workloads.get_mut(w as usize) else {
            return;
        };
        if !wl.alive {
            return;
        }
        wl.alive = false;
        wl.rolling = false;
        let ns = wl.ns.clone();
        let kind = wl.kind;
        let sets: Vec<(Arc<str>, Vec<Arc<str>>)> = wl
            .sets
            .iter()
            .map(|s| (s.name.clone(), s.pods.clone()))
            .collect();
        wl.sets.iter_mut().for_each(|s| s.replicas = 0);
        for (set_name, pods) in sets {
            for p in pods {
                let k = key(&ns, &p);
                if self.remove_pod(&k).is_some() {
                    self.purge_pending(PODS, Some(&ns), &p);
                    self.pending.push_back(Mutation::Delete {
                        resource: PODS,
                        namespace: Some(ns.to_string()),
                        name: p.to_string(),
                    });
                }
            }
            if kind == WKind::Deployment {
                self.purge_pending(REPLICASETS, Some(&ns), &set_name);
                self.pending.push_back(Mutation::Delete {
                    resource: REPLICASETS,
                    namespace: Some(ns.to_string()),
                    name: set_name.to_string(),
                });
            }
        }
        self.rollouts.retain(|&x| x != w);
    }
}
