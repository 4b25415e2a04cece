//! `Store`: the interface the reflector writes into, and the key function.
//!
//! client-go counterpart: `tools/cache/store.go` (`Store`, `KeyFunc`, `MetaNamespaceKeyFunc`,
//! `ExplicitKey`). Any type that implements [`kube::Resource`] (all k8s-openapi types and
//! [`kube::api::DynamicObject`], so CRDs too) is an [`Object`].
//!
//! Invariants:
//! - an object's key is `namespace/name` for namespaced objects and `name` for cluster-scoped ones;
//!   the key never changes for the life of an object;
//! - objects are shared as `Arc<K>` and never mutated after they enter a store.

use std::sync::Arc;

use kube::Resource;

use super::Error;
use super::delta_fifo::DeltaType;

/// What the informer machinery can hold: any Kubernetes resource, typed or dynamic.
pub trait Object: Resource + Clone + Send + Sync + std::fmt::Debug + 'static {}
impl<T: Resource + Clone + Send + Sync + std::fmt::Debug + 'static> Object for T {}

/// client-go's `MetaNamespaceKeyFunc`: `namespace/name`, or `name` when the object has no namespace.
pub fn meta_namespace_key<K: Resource>(obj: &K) -> Result<String, Error> {
    let meta = obj.meta();
    let name = meta.name.as_deref().ok_or(Error::MissingName)?;
    Ok(match meta.namespace.as_deref() {
        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
        _ => name.to_string(),
    })
}

/// Split a key made by [`meta_namespace_key`] back into `(namespace, name)`.
pub fn split_meta_namespace_key(key: &str) -> (Option<&str>, &str) {
    match key.split_once('/') {
        Some((ns, name)) => (Some(ns), name),
        None => (None, key),
    }
}

/// The object's `metadata.resourceVersion`, or `""`.
pub fn resource_version<K: Resource>(obj: &K) -> &str {
    obj.meta().resource_version.as_deref().unwrap_or("")
}

/// What a reflector writes into (client-go's `Store` as used by `Reflector`): in the informer this
/// is the [`DeltaFifo`](super::delta_fifo::DeltaFifo); tests use a recording fake.
pub trait ReflectorStore<K: Object>: Send + Sync {
    /// A watch ADDED event.
    fn add(&self, obj: Arc<K>) -> Result<(), Error>;
    /// A watch MODIFIED event.
    fn update(&self, obj: Arc<K>) -> Result<(), Error>;
    /// A watch DELETED event.
    fn delete(&self, obj: Arc<K>) -> Result<(), Error>;
    /// A complete list: the new truth as of `resource_version`.
    fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<(), Error>;
    /// [`Self::replace`] with each object's key (its [`meta_namespace_key`]) already computed:
    /// the reflector keys a streaming list's objects as they arrive. The default drops the keys.
    fn replace_keyed(
        &self,
        list: Vec<(Arc<str>, Arc<K>)>,
        resource_version: &str,
    ) -> Result<(), Error> {
        self.replace(list.into_iter().map(|(_, o)| o).collect(), resource_version)
    }
    /// Called by the reflector for every object it receives (listed or watched), before the object
    /// is passed to `add`/`update`/`delete`/`replace`. The store applies its transform here (e.g.
    /// stripping `managedFields`), and may return a copy it already holds when that copy has the
    /// same key and resourceVersion, so a freshly decoded duplicate is dropped at once: a relist
    /// then costs one page of extra memory instead of a second copy of the whole cache.
    /// `add`/`update`/`delete`/`replace` do not transform again.
    fn prepare(&self, obj: K) -> Arc<K> {
        Arc::new(obj)
    }
    /// [`Self::prepare`] of an object the reflector will hand over as `kind`: a listed object
    /// `Replaced`, a watch event's `Added`, `Updated` or `Deleted` (what the FIFO queues it as).
    fn prepare_as(&self, obj: K, kind: DeltaType) -> Arc<K> {
        let _ = kind;
        self.prepare(obj)
    }
    /// Periodic resync (client-go's `Resync`): queue `Sync` deltas for known objects.
    fn resync(&self) -> Result<(), Error> {
        Ok(())
    }
}
