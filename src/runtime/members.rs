//! Per-cluster runtime state of a fleet (see [`crate::ui::fleet`]): every selected context
//! other than the current one is a [`Member`] with its own [`Connection`] (its own auth from
//! the kubeconfig: exec plugins, tokens, certs), informer factory, access cache and history;
//! nothing is shared that could mix two clusters' objects. Merged views are fed from each
//! member ([`Runtime::open_view_on`]); [`Effect::OnCluster`] carries an effect out on one.
//!
//! A member is made when its context is first watched ([`Effect::WatchCluster`]): building
//! its client reads the kubeconfig only (no request), and its informers list and watch in
//! their own tasks, so start-up never waits for a slow or dead member.

use super::*;

/// One selected context other than the current one.
pub(super) struct Member {
    pub(super) connection: Connection,
    pub(super) factory: Arc<SharedInformerFactory>,
    pub(super) access: AccessCache,
    pub(super) history: Arc<History>,
    /// Ends its background tasks (the event tap's reader).
    pub(super) cancel: CancellationToken,
}

/// Where a view's rows come from: one cluster's informers, client and access answers.
pub(super) struct FeedSource {
    pub(super) factory: Arc<SharedInformerFactory>,
    pub(super) client: kube::Client,
    pub(super) access: AccessCache,
    /// A merged view: the cluster its rows are keyed under.
    pub(super) cluster: Option<Arc<str>>,
}

impl Member {
    pub(super) fn source(&self, name: &str) -> FeedSource {
        FeedSource {
            factory: self.factory.clone(),
            client: self.connection.client.clone(),
            access: self.access.clone(),
            cluster: Some(Arc::from(name)),
        }
    }
}

impl Runtime {
    /// Make `context` a member (not the current context, once). The merged views open now
    /// are fed from it too.
    pub(super) async fn add_member(&mut self, context: &str) {
        if context == self.connection.context || self.members.contains_key(context) {
            return;
        }
        let connection = match self.connection.switch_context(context).await {
            Ok(c) => c,
            Err(e) => {
                // Its probe reports it (no usable client): the others go on.
                tracing::warn!(context, error = %e, "fleet member: no client");
                return;
            }
        };
        let history = Arc::new(History::new(self.history.stats().budget));
        let factory = make_factory(&connection, &history, None);
        factory.start();
        let cancel = CancellationToken::new();
        spawn_tap(
            &factory,
            self.tx.clone(),
            cancel.clone(),
            Some(Arc::from(context)),
            self.suspend.watcher(),
        );
        let member = Member {
            connection,
            factory,
            access: AccessCache::default(),
            history,
            cancel,
        };
        let open: Vec<ViewId> = self
            .views
            .iter()
            .filter(|(_, f)| f.merged && f.only.is_none())
            .map(|(id, _)| *id)
            .collect();
        for view in open {
            let Some(f) = self.views.get(&view) else {
                continue;
            };
            let ns = f.namespace.clone().filter(|_| f.resource.namespaced);
            let (resource, drill, cancel) = (f.resource.clone(), f.drill.clone(), f.cancel.clone());
            let slots =
                self.attach_on(member.source(context), view, &resource, ns, &drill, &cancel);
            if let Some(f) = self.views.get_mut(&view) {
                f.members
                    .extend(slots.into_iter().map(|s| (context.to_string(), s)));
            }
        }
        tracing::info!(context, "fleet member added");
        self.members.insert(context.to_string(), member);
        self.stats_members();
    }

    /// The informer panel's rows cover the members' informers (named after their member).
    pub(super) fn stats_members(&self) {
        let mut members: Vec<(Arc<str>, Arc<SharedInformerFactory>)> = self
            .members
            .iter()
            .map(|(name, m)| (Arc::from(name.as_str()), m.factory.clone()))
            .collect();
        members.sort_by(|a, b| a.0.cmp(&b.0));
        self.stats.lock().members = members;
    }

    /// `context` leaves the fleet: the views stop receiving its rows, its informers stop.
    pub(super) fn remove_member(&mut self, context: &str) {
        let Some(member) = self.members.remove(context) else {
            return;
        };
        member.cancel.cancel();
        self.stats_members();
        for feed in self.views.values_mut() {
            feed.members.retain(|(name, slot)| {
                if name != context {
                    return true;
                }
                if let Some(r) = slot.lock().take().and_then(|o| o.registration) {
                    r.remove();
                }
                false
            });
        }
        tokio::spawn(async move {
            let _ = tokio::time::timeout(Duration::from_secs(2), member.factory.shutdown()).await;
        });
        tracing::info!(context, "fleet member removed");
    }

    /// The client of `cluster` (the current context's or a member's); `None`: not selected.
    pub(super) fn client_for(&self, cluster: &str) -> Option<kube::Client> {
        if cluster == self.connection.context {
            return Some(self.connection.client.clone());
        }
        self.members
            .get(cluster)
            .map(|m| m.connection.client.clone())
    }

    /// Carry out `effect` on `cluster` ([`Effect::OnCluster`]): on the current context as
    /// usual; on a member with that member's connection, informers, access cache and history
    /// in place of the current ones while the effect is set going (a log view or a
    /// port-forward started so keeps the member's client). Never on another cluster: one no
    /// longer selected is refused in the footer.
    pub(super) async fn carry_out_on(&mut self, cluster: String, effect: Effect) -> bool {
        if let Effect::OpenResource {
            view,
            resource,
            namespace,
            drill,
        } = effect
        {
            if cluster == self.connection.context || self.members.contains_key(&cluster) {
                self.open_view_on(view, resource, namespace, drill, Some(cluster));
            } else {
                self.refuse(format!("{cluster} is no longer in the fleet"));
            }
            return true;
        }
        if cluster == self.connection.context {
            return Box::pin(self.carry_out(effect)).await;
        }
        // The run loop gives them the member's client; without a terminal they cannot run.
        if matches!(
            effect,
            Effect::Shell { .. }
                | Effect::NodeShell { .. }
                | Effect::Attach { .. }
                | Effect::Edit { .. }
                | Effect::Create { .. }
        ) {
            self.refuse(format!(
                "a terminal session on {cluster} needs the dashboard's terminal"
            ));
            return true;
        }
        let Some(mut member) = self.members.remove(&cluster) else {
            self.refuse(format!("{cluster} is no longer in the fleet"));
            return true;
        };
        self.swap_member(&mut member);
        let going = Box::pin(self.carry_out(effect)).await;
        self.swap_member(&mut member);
        self.members.insert(cluster, member);
        going
    }

    /// Put `m`'s connection, informers, access cache and history in place of the current
    /// ones (and back, called again); log views and port-forwards opened meanwhile use them.
    fn swap_member(&mut self, m: &mut Member) {
        std::mem::swap(&mut self.connection, &mut m.connection);
        std::mem::swap(&mut self.factory, &mut m.factory);
        std::mem::swap(&mut self.access, &mut m.access);
        std::mem::swap(&mut self.history, &mut m.history);
        self.logs
            .point_at(self.connection.client.clone(), self.factory.clone());
        self.forwards.point_at(self.connection.client.clone());
    }

    fn refuse(&self, message: String) {
        let _ = self.tx.send(Action::Notify {
            message,
            error: true,
        });
    }

    /// The members (not the current context), by name.
    pub(super) fn member_names(&self) -> Vec<String> {
        self.members.keys().cloned().collect()
    }

    /// A member's informer factory (for tests and the bench).
    pub(super) fn member_factory(&self, context: &str) -> Option<Arc<SharedInformerFactory>> {
        self.members.get(context).map(|m| m.factory.clone())
    }
}
