//! The `:helm` screens' feed: helm's storage objects, and only those, watched by informers of
//! their own (a factory whose list and watch carry helm's selectors: Secrets with
//! `fieldSelector=type=helm.sh/release.v1,labelSelector=owner=helm`, ConfigMaps with
//! `labelSelector=owner=helm`), so no other Secret is ever listed or cached. Their transform
//! keeps one table row per revision ([`crate::helm::compact_object`]): the values, manifest and
//! notes are read when viewed ([`fetch_release`], one GET).
//!
//! Once a second while the screens are open, the rows are collected from both caches and sent
//! when they changed. A context switch or the last helm screen closing ends the feed.

use super::*;
use crate::helm::{self, Revision, Storage};

/// How often the caches are read for changes.
const HELM_PERIOD: Duration = Duration::from_secs(1);

fn core(kind: &str, plural: &str) -> kube::discovery::ApiResource {
    kube::discovery::ApiResource {
        group: String::new(),
        version: "v1".into(),
        api_version: "v1".into(),
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// A factory whose informers list and watch with helm's selectors and keep only the rows.
fn helm_factory(client: kube::Client, storage: Storage) -> SharedInformerFactory {
    let options = FactoryOptions {
        label_selector: Some(helm::LABEL_SELECTOR.into()),
        field_selector: (storage == Storage::Secret).then(|| helm::SECRET_FIELD_SELECTOR.into()),
        transform: Some(Arc::new(move |_: &kube::discovery::ApiResource| {
            Some(
                Arc::new(move |obj: DynamicObject| helm::compact_object(obj, storage))
                    as Transform<DynamicObject>,
            )
        })),
        ..FactoryOptions::default()
    };
    SharedInformerFactory::from_client(client, options)
}

/// Watch helm's releases in `namespace` (`None`: all) until `cancel`, sending
/// [`Action::HelmReleases`] when they change.
pub(super) async fn watch_helm(
    client: kube::Client,
    namespace: Option<String>,
    tx: mpsc::UnboundedSender<Action>,
    cancel: CancellationToken,
) {
    let secrets = helm_factory(client.clone(), Storage::Secret);
    let configmaps = helm_factory(client, Storage::ConfigMap);
    let ns = namespace.as_deref();
    let informers = [
        secrets.informer_for(&core("Secret", "secrets"), ns),
        configmaps.informer_for(&core("ConfigMap", "configmaps"), ns),
    ];
    secrets.start();
    configmaps.start();
    let mut sent: Option<Result<Vec<Revision>, String>> = None;
    let mut tick = tokio::time::interval(HELM_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = cancel.cancelled() => break,
            _ = tick.tick() => {}
        }
        // The Secrets are helm's default storage: until they are listed there is nothing to
        // say but why not (ConfigMaps are rarely used; they join when listed).
        let now = if informers[0].has_synced() {
            let mut rows: Vec<Revision> = informers
                .iter()
                .filter(|i| i.has_synced())
                .flat_map(|i| i.indexer().list())
                .filter_map(|o| helm::cached_revision(&o))
                .collect();
            rows.sort_by(|a, b| {
                (&a.namespace, &a.name, a.revision).cmp(&(&b.namespace, &b.name, b.revision))
            });
            Ok(rows)
        } else {
            match informers[0]
                .reflector_status()
                .and_then(|s| s.borrow().last_error.as_ref().map(|e| e.to_string()))
            {
                Some(e) => Err(format!(
                    "helm releases (Secrets of type {}): {e}",
                    helm::SECRET_TYPE
                )),
                None => continue,
            }
        };
        if sent.as_ref() != Some(&now) {
            sent = Some(now.clone());
            if tx.send(Action::HelmReleases(now)).is_err() {
                break;
            }
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(2), async {
        secrets.shutdown().await;
        configmaps.shutdown().await;
    })
    .await;
}

/// GET one revision's storage object and decode its release.
pub(super) async fn fetch_release(
    client: kube::Client,
    namespace: &str,
    storage: Storage,
    object: &str,
) -> Result<Box<helm::Release>, String> {
    let ar = match storage {
        Storage::Secret => core("Secret", "secrets"),
        Storage::ConfigMap => core("ConfigMap", "configmaps"),
    };
    let api: Api<DynamicObject> = Api::namespaced_with(client, namespace, &ar);
    let obj = api
        .get(object)
        .await
        .map_err(|e| one_line(&e.to_string()))?;
    let value = serde_json::to_value(&obj).map_err(|e| e.to_string())?;
    helm::decode_object(&value, storage)
        .map(Box::new)
        .map_err(|e| format!("{object}: {e}"))
}
