//! Fleet members' probes (see [`crate::ui::fleet`]): one task per selected context, on that
//! context's own client (its own auth from the kubeconfig), asking `GET /version` every
//! [`PROBE_PERIOD`] and backing off (doubling up to [`PROBE_BACKOFF_MAX`]) while it is down.
//! Each member is probed independently: a slow or dead cluster delays only its own answer.

use super::*;
use crate::ui::action::ClusterHealth;

/// How often a reachable member is probed.
pub const PROBE_PERIOD: Duration = Duration::from_secs(10);
/// The longest wait between two probes of a member that is down.
pub const PROBE_BACKOFF_MAX: Duration = Duration::from_secs(30);

/// The running probes, by context.
#[derive(Default)]
pub(super) struct Probes {
    tasks: HashMap<String, CancellationToken>,
}

impl Probes {
    pub(super) fn stop_all(&mut self) {
        for (_, c) in self.tasks.drain() {
            c.cancel();
        }
    }

    pub(super) fn live(&self) -> Vec<String> {
        let mut v: Vec<String> = self.tasks.keys().cloned().collect();
        v.sort();
        v
    }
}

impl Runtime {
    /// Start probing `context` (once; a second watch of the same context does nothing).
    pub(super) fn watch_cluster(&mut self, context: String) {
        if self.probes.tasks.contains_key(&context) {
            return;
        }
        let cancel = CancellationToken::new();
        self.probes.tasks.insert(context.clone(), cancel.clone());
        tokio::spawn(probe_loop(
            self.connection.clone(),
            context,
            self.tx.clone(),
            cancel,
            self.probe_period,
            self.suspend.watcher(),
        ));
    }

    pub(super) fn unwatch_cluster(&mut self, context: &str) {
        if let Some(c) = self.probes.tasks.remove(context) {
            c.cancel();
        }
    }
}

/// Probe `context` (a context of `base`'s kubeconfig) until cancelled, sending its state each
/// time it changes.
async fn probe_loop(
    base: Connection,
    context: String,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
    period: Duration,
    suspended: Suspended,
) {
    let first_backoff = period.min(Duration::from_secs(1));
    let mut backoff = first_backoff;
    let mut conn: Option<Connection> = None;
    let mut last: Option<ClusterHealth> = None;
    // Discovered when the member comes up (again): a kind the current view shows may be
    // missing there.
    let mut kinds: Option<Vec<String>> = None;
    loop {
        if conn.is_none() {
            conn = match base.switch_context(&context).await {
                Ok(c) => Some(c),
                Err(e) => {
                    tracing::warn!(context = %context, error = %e, "fleet member: no client");
                    None
                }
            };
        }
        let (health, wait) = match &conn {
            None => (None, PROBE_BACKOFF_MAX),
            Some(c) => match probe(c).await {
                Ok(ClusterHealth::Up { version, .. }) => {
                    backoff = first_backoff;
                    let was_up = matches!(last, Some(ClusterHealth::Up { .. }));
                    if !was_up || kinds.is_none() {
                        kinds = c
                            .discover()
                            .await
                            .ok()
                            .map(|r| r.iter().map(crate::ui::action::resource_label).collect());
                    }
                    (
                        Some(ClusterHealth::Up {
                            version,
                            kinds: kinds.clone(),
                        }),
                        period,
                    )
                }
                Ok(h) => {
                    backoff = first_backoff;
                    (Some(h), period)
                }
                Err(error) => {
                    let wait = backoff;
                    backoff = (backoff * 2).min(PROBE_BACKOFF_MAX);
                    let retry_at_ms = now_ms() + wait.as_millis() as i64;
                    (
                        Some(ClusterHealth::Unreachable { error, retry_at_ms }),
                        wait,
                    )
                }
            },
        };
        let health = health.unwrap_or_else(|| ClusterHealth::Unreachable {
            error: format!("context {context:?} has no usable client"),
            retry_at_ms: now_ms() + PROBE_BACKOFF_MAX.as_millis() as i64,
        });
        if cancel.is_cancelled() {
            return;
        }
        // A failed probe carries its next attempt, so each one is sent (the countdown moves).
        // Not while a shell has the terminal: the first probe after it sends the state then.
        if last.as_ref() != Some(&health) && !suspended.is_on() {
            if tx
                .send(Action::ClusterHealth {
                    context: context.clone(),
                    health: health.clone(),
                })
                .is_err()
            {
                return;
            }
            last = Some(health);
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// One `GET /version` on the member's client, bounded by [`PROBE_BACKOFF_MAX`]: up or
/// forbidden (it answered), else why it is unreachable.
async fn probe(conn: &Connection) -> Result<ClusterHealth, String> {
    match tokio::time::timeout(PROBE_BACKOFF_MAX, conn.client.apiserver_version()).await {
        Ok(Ok(info)) => Ok(ClusterHealth::Up {
            version: info.git_version,
            kinds: None,
        }),
        Ok(Err(kube::Error::Api(s))) if s.code == 401 || s.code == 403 => {
            Ok(ClusterHealth::Forbidden {
                error: one_line(&s.message),
            })
        }
        Ok(Err(e)) => Err(one_line(&e.to_string())),
        Err(_) => Err(format!("no answer within {}s", PROBE_BACKOFF_MAX.as_secs())),
    }
}

impl Runtime {
    /// `:diff`: GET `namespace/name` from every context in parallel, each on its own client
    /// (the current one on the current client), and send the comparison.
    pub(super) fn fetch_diff(
        &self,
        request: u64,
        resource: ResourceInfo,
        namespace: Option<String>,
        name: String,
        contexts: Vec<String>,
    ) {
        let base = self.connection.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let ns = namespace.as_deref().filter(|_| resource.namespaced);
            let gets = contexts.into_iter().map(|context| {
                let (base, resource, name) = (base.clone(), &resource, &name);
                async move {
                    let conn = if context == base.context {
                        Ok(base)
                    } else {
                        base.switch_context(&context)
                            .await
                            .map_err(|e| e.to_string())
                    };
                    let got = match conn {
                        Ok(c) => get_value(&c.client, resource, ns, name).await,
                        Err(e) => Err(e),
                    };
                    (context, got)
                }
            });
            let results = futures::future::join_all(gets).await;
            let what = format!(
                "{} {}",
                crate::ui::action::resource_label(&resource),
                match ns {
                    Some(ns) => format!("{ns}/{name}"),
                    None => name.clone(),
                }
            );
            let _ = tx.send(Action::Diff {
                request,
                result: Ok(crate::ui::fleet_diff::diff_text(&what, &results)),
            });
        });
    }
}

/// The object as JSON, or why not (`not found`, the server's message), within
/// [`PROBE_BACKOFF_MAX`].
async fn get_value(
    client: &kube::Client,
    resource: &ResourceInfo,
    namespace: Option<&str>,
    name: &str,
) -> Result<serde_json::Value, String> {
    let api: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource.api_resource),
        None => Api::all_with(client.clone(), &resource.api_resource),
    };
    match tokio::time::timeout(PROBE_BACKOFF_MAX, api.get(name)).await {
        Ok(Ok(obj)) => serde_json::to_value(&obj).map_err(|e| e.to_string()),
        Ok(Err(kube::Error::Api(s))) if s.code == 404 => Err("not found".to_string()),
        Ok(Err(e)) => Err(one_line(&e.to_string())),
        Err(_) => Err(format!("no answer within {}s", PROBE_BACKOFF_MAX.as_secs())),
    }
}
