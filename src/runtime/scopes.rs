//! A view of several namespaces (`-n shop,payments`, `:ns shop,payments`): which informers
//! serve it.
//!
//! k9s has no such view (its #1679). Where the user may list and watch the kind across
//! namespaces (the access review at the cluster scope allows it), one all-namespaces informer
//! serves it, its rows filtered to the namespaces (the informer is shared with any other
//! view of the kind, one watch per kind, and its namespace index answers drill-downs).
//! Otherwise one informer per namespace, each checked as a view of that namespace is: a
//! forbidden namespace is named in the footer and the others show; all forbidden, the view
//! says so as a forbidden view does. The choice is sent to the view
//! ([`Action::ScopeServed`]) and shown over the informer panel. The answers are cached for the
//! session as every view's are. Unlike a one-namespace view, a forbidden namespace is not
//! checked again every few minutes by itself; `ctrl-r` on a view whose namespaces are all
//! forbidden forgets the answers for each of them (and across namespaces) and asks again.

use super::*;

impl Runtime {
    /// Attach `view` (scope `scope`, several namespaces) to its informers, once access is
    /// known: returns the slots the informers will be recorded in (the all-namespaces one
    /// first, then one per namespace).
    pub(super) fn attach_several(
        &self,
        source: FeedSource,
        view: ViewId,
        resource: &ResourceInfo,
        scope: String,
        drill: &Option<Drill>,
        cancel: &CancellationToken,
    ) -> Vec<OpenedSlot> {
        let names: Vec<String> = crate::ui::scope::names(Some(&scope))
            .into_iter()
            .map(str::to_string)
            .collect();
        let slots: Vec<OpenedSlot> = (0..=names.len()).map(|_| Arc::default()).collect();
        let FeedSource {
            factory,
            client,
            access: cache,
            cluster,
        } = source;
        let attach = |namespace: Option<String>, opened: OpenedSlot, wide: bool| Attach {
            view,
            resource: resource.clone(),
            namespace,
            factory: factory.clone(),
            tx: self.tx.clone(),
            cancel: cancel.clone(),
            opened,
            drill: drill.clone(),
            cluster: cluster.clone(),
            suspended: self.suspend.watcher(),
            rows: self.rows.clone(),
            scope: wide.then(|| scope.clone()),
            send_store: wide,
        };
        let wide = attach(None, slots[0].clone(), true);
        let each: Vec<(String, Attach)> = names
            .iter()
            .zip(&slots[1..])
            .map(|(n, slot)| (n.clone(), attach(Some(n.clone()), slot.clone(), false)))
            .collect();
        let tx = self.tx.clone();
        let resource = resource.clone();
        let plural = resource.api_resource.plural.clone();
        tokio::spawn(async move {
            // Across namespaces only on a clear yes: without an answer (no review API) the
            // per-namespace informers need the least.
            if matches!(
                check_access(&client, &cache, &resource, None).await,
                Access::Allowed
            ) {
                if wide.cancel.is_cancelled() {
                    return;
                }
                wide.run();
                let _ = tx.send(Action::ScopeServed {
                    view,
                    served: format!("one all-namespaces {plural} informer, rows of {scope} only"),
                });
                return;
            }
            let mut shown = Vec::new();
            let mut denied: Vec<(String, Denial)> = Vec::new();
            for (ns, a) in each {
                let access = check_access(&client, &cache, &resource, Some(&ns)).await;
                if a.cancel.is_cancelled() {
                    return;
                }
                match access {
                    Access::Allowed | Access::Unknown => {
                        a.run();
                        shown.push(ns);
                    }
                    Access::Denied(d) => denied.push((ns, d)),
                }
            }
            let forbidden: Vec<&str> = denied.iter().map(|(n, _)| n.as_str()).collect();
            let mut served = format!(
                "one {plural} informer per namespace ({})",
                if shown.is_empty() {
                    "none allowed".to_string()
                } else {
                    shown.join(", ")
                }
            );
            if !forbidden.is_empty() {
                served.push_str(&format!("; forbidden in {}", forbidden.join(", ")));
            }
            let _ = tx.send(Action::ScopeServed { view, served });
            if shown.is_empty() {
                if let Some((_, denial)) = denied.into_iter().next() {
                    let _ = tx.send(Action::Forbidden { view, denial });
                }
            } else if let Some((ns, d)) = denied.first() {
                let more = if denied.len() > 1 {
                    format!(" (and {} more)", denied.len() - 1)
                } else {
                    String::new()
                };
                let _ = tx.send(Action::Notify {
                    message: format!(
                        "namespace {ns}{more}: {}; showing {}",
                        d.message,
                        shown.join(", ")
                    ),
                    error: true,
                });
            }
        });
        slots
    }
}
