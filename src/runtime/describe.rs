//! `describe` as the runtime answers it: the object, its events, and for a node the pods on it
//! (from the node index of a synced all-namespaces pods informer, else one LIST) with their summed
//! requests and limits against allocatable.

use super::*;

/// The pods the node index files under `node`, when an all-namespaces pods informer has synced
/// (its cache holds every pod, pruned but with their summed requests and limits).
pub(super) fn pods_on_node_from_cache(
    factory: &SharedInformerFactory,
    node: &str,
) -> Option<Vec<Arc<DynamicObject>>> {
    let pods = InformerKey::new(
        &kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
        None,
    );
    let (_, informer) = factory.informers().into_iter().find(|(k, _)| *k == pods)?;
    if !informer.has_synced() {
        return None;
    }
    informer
        .indexer()
        .by_index(crate::informer::index::NODE_INDEX, node)
        .ok()
}

/// Describe text for `name`; `node`: `Some` for a Node, with its pods when the cache had them.
pub(super) async fn describe(
    client: kube::Client,
    api: Api<DynamicObject>,
    namespace: Option<String>,
    name: &str,
    node: Option<Option<Vec<Arc<DynamicObject>>>>,
) -> Result<String, String> {
    let obj = api.get(name).await.map_err(|e| one_line(&e.to_string()))?;
    let node_section = match node {
        Some(cached) => Some(node_resources(client.clone(), &obj, name, cached).await),
        None => None,
    };
    let uid = obj.metadata.uid.clone().unwrap_or_default();
    let events_api: Api<DynamicObject> = {
        let ar = kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Event>(&());
        match namespace.as_deref() {
            Some(ns) => Api::namespaced_with(client, ns, &ar),
            None => Api::all_with(client, &ar),
        }
    };
    let events = match events_api
        .list(&ListParams::default().fields(&format!("involvedObject.uid={uid}")))
        .await
    {
        Ok(list) => list.items.into_iter().map(Arc::new).collect::<Vec<_>>(),
        // Events are a bonus: describe still works without permission to list them.
        Err(e) => {
            tracing::debug!(error = %e, "listing events for describe failed");
            Vec::new()
        }
    };
    let mut text = render::describe(&obj, &events);
    if let Some(section) = node_section {
        // Before the Events, as `kubectl describe node` puts "Allocated resources".
        match text.find("\nEvents:") {
            Some(at) => text.insert_str(at + 1, &section),
            None => text.push_str(&section),
        }
    }
    Ok(text)
}

/// A node's requests (its non-terminated pods, as `kubectl describe node` lists them) and usage
/// (its NodeMetrics) against allocatable, on the user's `d` only. The pods come from the cache
/// (`cached`: the node index) when it has them, else from one LIST by `spec.nodeName`.
pub(super) async fn node_resources(
    client: kube::Client,
    node: &DynamicObject,
    name: &str,
    cached: Option<Vec<Arc<DynamicObject>>>,
) -> String {
    let pods: Result<Vec<Arc<DynamicObject>>, String> = match cached {
        Some(pods) => Ok(pods),
        None => {
            let pods_api: Api<DynamicObject> = Api::all_with(
                client.clone(),
                &kube::discovery::ApiResource::erase::<k8s_openapi::api::core::v1::Pod>(&()),
            );
            pods_api
                .list(&ListParams::default().fields(&format!("spec.nodeName={name}")))
                .await
                .map(|l| l.items.into_iter().map(Arc::new).collect())
                .map_err(|e| one_line(&e.to_string()))
        }
    };
    let usage = KubeMetricsSource::new(client).node_usage(name).await;
    let pod_data: Result<Vec<&serde_json::Value>, String> = match &pods {
        Ok(list) => Ok(list.iter().map(|p| &p.data).collect()),
        Err(e) => Err(e.clone()),
    };
    render::node_detail::describe_section(
        &node.data,
        pod_data.as_ref().map(Vec::as_slice).map_err(Clone::clone),
        usage,
    )
}
