//! A view's informer subscription: opening a view (the informer for its kind and scope, or
//! one per namespace of a set, its feed task and workqueue), attaching it to a fleet member,
//! and closing it (the feed stops; an informer nobody watches any more is stopped).

use super::*;

impl Runtime {
    /// Open a view: its informer starts once the server's access review allows list and watch
    /// in the view's scope (answers cached for the session). Refused: no informer; the view is
    /// told why ([`Action::Forbidden`]) and access is checked again every
    /// [`FORBIDDEN_RECHECK`]. Without an answer (no review API): open and let a 403 tell.
    pub(super) fn open_view(
        &mut self,
        view: ViewId,
        resource: ResourceInfo,
        namespace: Option<String>,
        drill: Option<Drill>,
    ) {
        self.open_view_on(view, resource, namespace, drill, None);
    }

    /// [`open_view`](Self::open_view) fed by every fleet member (a merged view: rows keyed
    /// under their cluster), or by member `only` ([`Effect::OnCluster`]). A view restricted to
    /// the current context without a drill (the xray's and pulse's feeds) is not merged.
    pub(super) fn open_view_on(
        &mut self,
        view: ViewId,
        resource: ResourceInfo,
        namespace: Option<String>,
        drill: Option<Drill>,
        only: Option<String>,
    ) {
        self.close_view(view);
        let ns = if resource.namespaced {
            namespace.clone()
        } else {
            None
        };
        let cancel = self.conn_cancel.child_token();
        let current = self.connection.context.clone();
        let only_current = only.as_deref() == Some(current.as_str());
        let merged = !self.members.is_empty() && (!only_current || drill.is_some());
        let wanted = |c: &str| only.as_deref().is_none_or(|o| o == c);
        let mut opened: OpenedSlot = Arc::default();
        let mut members = Vec::new();
        if wanted(&current) {
            let target = FeedSource {
                factory: self.factory.clone(),
                client: self.connection.client.clone(),
                access: self.access.clone(),
                cluster: merged.then(|| Arc::from(current.as_str())),
            };
            let mut slots = self
                .attach_on(target, view, &resource, ns.clone(), &drill, &cancel)
                .into_iter();
            opened = slots.next().unwrap_or_default();
            // A view of several namespaces: the per-namespace informers' slots (closed with it).
            members.extend(slots.map(|s| (current.clone(), s)));
        }
        if merged {
            let sources: Vec<(String, FeedSource)> = self
                .members
                .iter()
                .filter(|(name, _)| wanted(name))
                .map(|(name, m)| (name.clone(), m.source(name)))
                .collect();
            for (name, source) in sources {
                for slot in self.attach_on(source, view, &resource, ns.clone(), &drill, &cancel) {
                    members.push((name.clone(), slot));
                }
            }
        }
        self.views.insert(
            view,
            ViewFeed {
                resource,
                namespace,
                drill,
                opened,
                cancel,
                members,
                only,
                merged,
            },
        );
    }

    /// Attach `view` to `source`'s informer once its access review allows (see
    /// [`open_view`](Self::open_view)); a merged view's member that refuses is named in the
    /// footer (the other members' rows stay).
    pub(super) fn attach_on(
        &self,
        source: FeedSource,
        view: ViewId,
        resource: &ResourceInfo,
        ns: Option<String>,
        drill: &Option<Drill>,
        cancel: &CancellationToken,
    ) -> Vec<OpenedSlot> {
        if resource.namespaced && crate::ui::scope::several(ns.as_deref()) {
            let scope = ns.unwrap_or_default();
            return self.attach_several(source, view, resource, scope, drill, cancel);
        }
        let opened: OpenedSlot = Arc::default();
        let FeedSource {
            factory,
            client,
            access: cache,
            cluster,
        } = source;
        let attach = Attach {
            view,
            resource: resource.clone(),
            namespace: ns.clone(),
            factory,
            tx: self.tx.clone(),
            cancel: cancel.clone(),
            opened: opened.clone(),
            drill: drill.clone(),
            cluster: cluster.clone(),
            suspended: self.suspend.watcher(),
            rows: self.rows.clone(),
            scope: None,
            send_store: true,
        };
        if cache.open_at_once(resource, ns.as_deref()) {
            attach.run();
            return vec![opened];
        }
        let tx = self.tx.clone();
        let member = cluster.filter(|c| **c != *self.connection.context);
        tokio::spawn(async move {
            loop {
                let access = check_access(
                    &client,
                    &cache,
                    &attach.resource,
                    attach.namespace.as_deref(),
                )
                .await;
                if attach.cancel.is_cancelled() {
                    return;
                }
                match access {
                    Access::Allowed | Access::Unknown => {
                        attach.run();
                        return;
                    }
                    Access::Denied(mut denial) => {
                        tracing::info!(view, message = %denial.message, "view forbidden: informer not started");
                        denial.retry_at_ms = Some(now_ms() + FORBIDDEN_RECHECK.as_millis() as i64);
                        let sent = match &member {
                            Some(c) => tx.send(Action::Notify {
                                message: format!("{c}: {}", denial.message),
                                error: true,
                            }),
                            None => tx.send(Action::Forbidden { view, denial }),
                        };
                        if sent.is_err() {
                            return;
                        }
                    }
                }
                tokio::select! {
                    _ = attach.cancel.cancelled() => return,
                    _ = tokio::time::sleep(FORBIDDEN_RECHECK) => {}
                }
                cache.forget(&attach.resource, attach.namespace.as_deref());
            }
        });
        vec![opened]
    }

    /// Stop streaming to a view. Its informer stops too when no other view uses it and it is
    /// forbidden (it would only keep listing and failing, e.g. the all-namespaces informer a
    /// fallback to the context's namespace replaced).
    pub(super) fn close_view(&mut self, view: ViewId) {
        // A view may poll metrics without a feed of its own (the pulse's node usage).
        self.metrics.close_view(view);
        let Some(feed) = self.views.remove(&view) else {
            return;
        };
        feed.cancel.cancel();
        for (_, slot) in &feed.members {
            if let Some(r) = slot.lock().take().and_then(|o| o.registration) {
                r.remove();
            }
        }
        let Some(opened) = feed.opened.lock().take() else {
            return;
        };
        if let Some(r) = opened.registration {
            r.remove();
        }
        let shared = self.views.values().any(|f| {
            f.opened
                .lock()
                .as_ref()
                .is_some_and(|o| o.key == opened.key)
        });
        if !shared && is_forbidden(&opened.informer) {
            self.factory.stop(&opened.key);
        }
    }
}
