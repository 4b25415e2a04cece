//! The event recorder: core/v1 Events aggregated by count, kubelet start events, deletion of
//! old ones.

use super::*;

impl Simulator {
    // -----------------------------------------------------------------------------------------
    // Events
    // -----------------------------------------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_event(
        &mut self,
        ns: Arc<str>,
        involved: (
            &'static str,
            &'static str,
            Arc<str>,
            Arc<str>,
            Option<String>,
        ),
        reason: &'static str,
        message: String,
        warning: bool,
        component: &'static str,
        host: Option<String>,
        out: &mut Vec<Mutation>,
    ) {
        let now = self.now_s();
        let agg_key = (involved.3.clone(), reason);
        if let Some(k) = self.event_agg.get(&agg_key).cloned()
            && let Some(e) = self.events.get_mut(&k)
            && e.message == message
        {
            e.count += 1;
            e.last = now;
            out.push(Mutation::Update {
                resource: EVENTS,
                object: render_event(e),
            });
            return;
        }
        self.event_seq += 1;
        let nanos = self.now_ms as u64 * 1_000_000 + self.event_seq % 1_000_000;
        let name = format!("{}.{nanos:x}", involved.2);
        let uid = self.new_uid().to_string();
        let e = Ev {
            ns,
            name: name.clone(),
            uid,
            involved,
            reason,
            message,
            warning,
            count: 1,
            first: now,
            last: now,
            component,
            host,
        };
        out.push(Mutation::Create {
            resource: EVENTS,
            object: render_event(&e),
        });
        let k = key(&e.ns, &name);
        self.event_agg.insert(agg_key, k.clone());
        self.events.insert(k.clone(), e);
        self.event_order.push_back(k);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn record_pod_event(
        &mut self,
        i: usize,
        reason: &'static str,
        message: String,
        warning: bool,
        component: &'static str,
        host: Option<String>,
        out: &mut Vec<Mutation>,
    ) {
        let Some(p) = self.pods.get(i) else { return };
        let fp = (component == "kubelet")
            .then(|| format!("spec.containers{{{}}}", self.pod_container(i)));
        let involved = ("v1", "Pod", p.name.clone(), p.uid.clone(), fp);
        let ns = p.ns.clone();
        self.record_event(ns, involved, reason, message, warning, component, host, out);
    }

    pub(super) fn started_events(&mut self, i: usize, out: &mut Vec<Mutation>) {
        let Some(p) = self.pods.get(i) else { return };
        let Some(w) = self.workloads.get(p.workload as usize) else {
            return;
        };
        let Some(set) = w.set(p.set) else { return };
        let image = set.template.image.clone();
        let container = set.template.container.clone();
        let host = self.pod_node_name(i);
        let restarts = p.restarts;
        if restarts == 0 {
            let ms = 400 + self.below(9_000);
            let size = 20_000_000 + self.below(180_000_000);
            self.record_pod_event(
                i,
                "Pulling",
                format!("Pulling image \"{image}\""),
                false,
                "kubelet",
                host.clone(),
                out,
            );
            self.record_pod_event(
                i,
                "Pulled",
                format!(
                    "Successfully pulled image \"{image}\" in {}.{:03}s ({}.{:03}s including waiting). Image size: {} bytes.",
                    ms / 1000, ms % 1000, ms / 1000, ms % 1000 + 3, size
                ),
                false,
                "kubelet",
                host.clone(),
                out,
            );
        } else {
            self.record_pod_event(
                i,
                "Pulled",
                format!("Container image \"{image}\" already present on machine"),
                false,
                "kubelet",
                host.clone(),
                out,
            );
        }
        self.record_pod_event(
            i,
            "Created",
            format!("Created container: {container}"),
            false,
            "kubelet",
            host.clone(),
            out,
        );
        self.record_pod_event(
            i,
            "Started",
            format!("Started container {container}"),
            false,
            "kubelet",
            host,
            out,
        );
    }

    pub(super) fn gc_events(&mut self, out: &mut Vec<Mutation>) {
        let ttl_edge = self.now_s() - 3600;
        while let Some(k) = self.event_order.front() {
            let Some(e) = self.events.get(k) else {
                self.event_order.pop_front();
                continue;
            };
            if self.events.len() <= self.cfg.max_events && e.last >= ttl_edge {
                break;
            }
            let Some(k) = self.event_order.pop_front() else {
                break;
            };
            if let Some(e) = self.events.remove(&k) {
                let agg = (e.involved.3.clone(), e.reason);
                if self.event_agg.get(&agg) == Some(&k) {
                    self.event_agg.remove(&agg);
                }
                out.push(Mutation::Delete {
                    resource: EVENTS,
                    namespace: Some(e.ns.to_string()),
                    name: e.name,
                });
            }
        }
    }
}

pub(super) fn render_event(e: &Ev) -> Value {
    objects::event(&objects::EventView {
        namespace: &e.ns,
        name: &e.name,
        uid: &e.uid,
        involved: (
            e.involved.0,
            e.involved.1,
            &e.involved.2,
            &e.involved.3,
            e.involved.4.as_deref(),
        ),
        reason: e.reason,
        message: &e.message,
        warning: e.warning,
        count: e.count,
        first: e.first,
        last: e.last,
        component: e.component,
        host: e.host.as_deref(),
    })
}
