//! The indexer: a thread-safe, indexed map of `key → Arc<K>`.
//!
//! client-go counterpart: `tools/cache/thread_safe_store.go` (`threadSafeMap`, `storeIndex`) and
//! the `Indexer` interface of `tools/cache/index.go`.
//!
//! Invariants (all hold whenever the lock is released):
//! - every key in an index set is a key of `items`, and each object in `items` is filed under
//!   exactly the values its index functions return for it, for every registered index;
//! - no index holds an empty set (a value whose last object leaves is removed);
//! - a failing index function leaves the store exactly as it was (no partial update);
//! - objects are never mutated: `get`/`list` hand out the same `Arc<K>` that was stored;
//! - a key is allocated once as an `Arc<str>` and shared by `items` and every index set, so an
//!   object filed under ten index values costs ten pointers, not ten strings.
//!
//! Differences from client-go (checked against its `thread_safe_store_test.go`, `index_test.go`
//! and `store_test.go`, ported case by case in `ported_tests`):
//! - a failing index function is an [`Error::IndexFunc`] and leaves the store unchanged; client-go
//!   panics in `updateSingleIndex` (a dashboard must not crash on one odd object);
//! - the caller passes the key (the informer's `namespace/name`) instead of a `KeyFunc`.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use parking_lot::RwLock;

use super::Error;
use super::delta_fifo::KnownObjects;
use super::index::{IndexFunc, Indexers};

/// The store's maps and sets are hashed with foldhash (seeded per process) instead of SipHash:
/// applying a list of 10k pods to the dashboard's indexes hashed each key a dozen times, and
/// SipHash was half of the instructions of that (callgrind, `sync_tail` bench).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;
type FastSet<K> = HashSet<K, foldhash::fast::RandomState>;

/// One index: index value → keys of the objects filed under it. Never holds an empty set.
type Index = FastMap<Box<str>, FastSet<Arc<str>>>;

struct Inner<K> {
    /// key → object. Keys are `namespace/name` or `name`.
    items: FastMap<Arc<str>, Arc<K>>,
    /// index name → index function. Same key set as `indices`.
    indexers: Indexers<K>,
    /// index name → index. Same key set as `indexers`.
    indices: FastMap<String, Index>,
}

/// A thread-safe store of objects with secondary indexes (client-go's `Indexer`).
///
/// Reads take a shared lock and never block each other; share the store as
/// `Arc<ThreadSafeStore<K>>`.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kinformer::informer::index::{default_indexers, LABEL_INDEX};
/// use kinformer::informer::thread_safe_store::ThreadSafeStore;
///
/// let store = ThreadSafeStore::<ConfigMap>::new(default_indexers());
/// let mut cm = ConfigMap::default();
/// cm.metadata.name = Some("cfg".into());
/// cm.metadata.namespace = Some("prod".into());
/// cm.metadata.labels = Some([("app".to_string(), "web".to_string())].into());
/// store.add("prod/cfg", Arc::new(cm)).unwrap();
/// assert_eq!(store.index_keys(LABEL_INDEX, "app=web").unwrap(), vec!["prod/cfg"]);
/// ```
pub struct ThreadSafeStore<K> {
    inner: RwLock<Inner<K>>,
}

impl<K> std::fmt::Debug for ThreadSafeStore<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.inner.read();
        f.debug_struct("ThreadSafeStore")
            .field("items", &inner.items.len())
            .field("indexers", &inner.indexers.keys().collect::<Vec<_>>())
            .finish()
    }
}

fn index_err(index: &str, key: &str, message: String) -> Error {
    Error::IndexFunc {
        index: index.to_string(),
        key: key.to_string(),
        message,
    }
}

/// An index's name and function (borrowed from the store's indexers) and the values it gave.
type Computed<'a, K> = (&'a str, &'a IndexFunc<K>, Vec<String>);

/// Run every index function on `obj`; the first failure aborts (nothing has been changed yet).
fn compute_all<'a, K>(
    indexers: &'a Indexers<K>,
    key: &str,
    obj: &K,
) -> Result<Vec<Computed<'a, K>>, Error> {
    let mut out = Vec::with_capacity(indexers.len());
    for (name, f) in indexers {
        let values = f(obj).map_err(|m| index_err(name, key, m))?;
        out.push((name.as_str(), f, values));
    }
    Ok(out)
}

fn remove_from_index(index: &mut Index, value: &str, key: &str) {
    if let Some(set) = index.get_mut(value) {
        set.remove(key);
        if set.is_empty() {
            index.remove(value);
        }
    }
}

fn add_to_index(index: &mut Index, value: &str, key: &Arc<str>) {
    match index.get_mut(value) {
        Some(set) => {
            set.insert(Arc::clone(key));
        }
        None => {
            let mut set = FastSet::with_capacity_and_hasher(1, Default::default());
            set.insert(Arc::clone(key));
            index.insert(Box::from(value), set);
        }
    }
}

/// Remove `key` from every set of `index` (used only when an old object's values cannot be
/// recomputed because its index function is not pure).
fn scrub_index(index: &mut Index, key: &str) {
    index.retain(|_, set| {
        set.remove(key);
        !set.is_empty()
    });
}

/// client-go's `updateSingleIndex`: move `key` from the old object's values to the new ones.
/// `old` is `None` for an add, `new` is `None` for a delete.
fn update_single_index<K>(
    index: &mut Index,
    f: &IndexFunc<K>,
    key: &Arc<str>,
    old: Option<&K>,
    new: Option<&[String]>,
) {
    let old_values = match old {
        None => Some(Vec::new()),
        Some(o) => match f(o) {
            Ok(v) => Some(v),
            Err(m) => {
                tracing::warn!(key = %key, error = %m, "index function failed on a stored object; rebuilding its index entries");
                None
            }
        },
    };
    let new = new.unwrap_or(&[]);
    if let Some(old_values) = &old_values {
        // Fast path (the common case: a pod's namespace or node does not change on update).
        if old_values.len() == 1 && new.len() == 1 && old_values[0] == new[0] {
            return;
        }
        for v in old_values {
            remove_from_index(index, v, key);
        }
    } else {
        scrub_index(index, key);
    }
    for v in new {
        add_to_index(index, v, key);
    }
}

impl<K> ThreadSafeStore<K> {
    /// An empty store with the given indexers.
    pub fn new(indexers: Indexers<K>) -> Self {
        let indices = indexers
            .keys()
            .map(|n| (n.clone(), Index::default()))
            .collect();
        Self {
            inner: RwLock::new(Inner {
                items: FastMap::default(),
                indexers,
                indices,
            }),
        }
    }

    /// Insert or replace the object under `key` (client-go `Add`; same as [`Self::update`]).
    pub fn add(&self, key: &str, obj: Arc<K>) -> Result<(), Error> {
        self.update(key, obj)
    }

    /// Insert or replace the object under `key`, keeping every index up to date.
    /// If an index function fails on `obj`, nothing changes and the error is returned.
    pub fn update(&self, key: &str, obj: Arc<K>) -> Result<(), Error> {
        self.update_with(key, || Arc::from(key), obj).map(drop)
    }

    /// [`Self::update`] with the caller's `Arc<str>` of the key, kept (and shared by every index
    /// set) when the key is new, so the informer's popped key is not copied again. Returns the
    /// object it replaced, read under the same lock (the informer needs it to tell an add from
    /// an update, and would otherwise look it up first).
    pub fn update_shared(&self, key: &Arc<str>, obj: Arc<K>) -> Result<Option<Arc<K>>, Error> {
        self.update_with(key, || Arc::clone(key), obj)
    }

    fn update_with(
        &self,
        key: &str,
        new_key: impl FnOnce() -> Arc<str>,
        obj: Arc<K>,
    ) -> Result<Option<Arc<K>>, Error> {
        let mut guard = self.inner.write();
        let Inner {
            items,
            indexers,
            indices,
        } = &mut *guard;
        let new_values = compute_all(indexers, key, &obj)?;
        let (shared_key, old) = match items.get_key_value(key) {
            Some((k, o)) => (Arc::clone(k), Some(Arc::clone(o))),
            None => (new_key(), None),
        };
        for (name, f, values) in &new_values {
            if let Some(index) = indices.get_mut(*name) {
                update_single_index(index, f, &shared_key, old.as_deref(), Some(values));
            }
        }
        items.insert(shared_key, obj);
        Ok(old)
    }

    /// Remove the object under `key` (a no-op when absent); returns the removed object.
    pub fn delete(&self, key: &str) -> Option<Arc<K>> {
        let mut guard = self.inner.write();
        let inner = &mut *guard;
        let (shared_key, old) = inner.items.remove_entry(key)?;
        for (name, f) in &inner.indexers {
            if let Some(index) = inner.indices.get_mut(name) {
                update_single_index(index, f, &shared_key, Some(&old), None);
            }
        }
        Some(old)
    }

    /// The object under `key`.
    pub fn get(&self, key: &str) -> Option<Arc<K>> {
        self.inner.read().items.get(key).cloned()
    }

    /// The object under `key` with the store's own key `Arc` (the one its indexes hold), so a
    /// consumer keeping the key shares it instead of allocating a copy.
    pub fn get_key_value(&self, key: &str) -> Option<(Arc<str>, Arc<K>)> {
        self.inner
            .read()
            .items
            .get_key_value(key)
            .map(|(k, v)| (Arc::clone(k), Arc::clone(v)))
    }

    /// Whether an object is held under `key`.
    pub fn contains_key(&self, key: &str) -> bool {
        self.inner.read().items.contains_key(key)
    }

    /// Every object, in no particular order.
    pub fn list(&self) -> Vec<Arc<K>> {
        self.inner.read().items.values().cloned().collect()
    }

    /// Every key, in no particular order.
    pub fn list_keys(&self) -> Vec<String> {
        self.inner
            .read()
            .items
            .keys()
            .map(|k| k.to_string())
            .collect()
    }

    /// Number of objects held.
    pub fn len(&self) -> usize {
        self.inner.read().items.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.inner.read().items.is_empty()
    }

    /// Replace the whole content (client-go `Replace`), rebuilding every index. All or nothing:
    /// if an index function fails on any object the store is left unchanged.
    pub fn replace(&self, items: Vec<(String, Arc<K>)>) -> Result<(), Error> {
        let indexers = self.inner.read().indexers.clone();
        let mut new_items: FastMap<Arc<str>, Arc<K>> =
            FastMap::with_capacity_and_hasher(items.len(), Default::default());
        let mut new_indices: FastMap<String, Index> = indexers
            .keys()
            .map(|n| (n.clone(), Index::default()))
            .collect();
        for (key, obj) in items {
            let key: Arc<str> = Arc::from(key);
            // A later duplicate key wins, as in a map assignment; drop the earlier filing first.
            if let Some(old) = new_items.get(&*key) {
                for (name, f) in &indexers {
                    if let Some(index) = new_indices.get_mut(name) {
                        update_single_index(index, f, &key, Some(old), None);
                    }
                }
            }
            for (name, _, values) in compute_all(&indexers, &key, &obj)? {
                if let Some(index) = new_indices.get_mut(name) {
                    for v in &values {
                        add_to_index(index, v, &key);
                    }
                }
            }
            new_items.insert(key, obj);
        }
        let mut inner = self.inner.write();
        if inner.indexers.len() != indexers.len() {
            // Indexers were added while we built; index the new ones too (rare).
            for (name, f) in &inner.indexers {
                if new_indices.contains_key(name) {
                    continue;
                }
                let mut index = Index::default();
                for (key, obj) in &new_items {
                    for v in f(obj).map_err(|m| index_err(name, key, m))? {
                        add_to_index(&mut index, &v, key);
                    }
                }
                new_indices.insert(name.clone(), index);
            }
        }
        inner.items = new_items;
        inner.indices = new_indices;
        Ok(())
    }

    fn indexer(inner: &Inner<K>, name: &str) -> Result<IndexFunc<K>, Error> {
        inner
            .indexers
            .get(name)
            .cloned()
            .ok_or_else(|| Error::IndexNotFound(name.to_string()))
    }

    /// Objects that share an index value with `obj` under index `name` (client-go `Index`).
    pub fn index(&self, name: &str, obj: &K) -> Result<Vec<Arc<K>>, Error> {
        let inner = self.inner.read();
        let f = Self::indexer(&inner, name)?;
        let values = f(obj).map_err(|m| index_err(name, "<query object>", m))?;
        let Some(index) = inner.indices.get(name) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        if values.len() == 1 {
            if let Some(set) = index.get(values[0].as_str()) {
                out.extend(set.iter().filter_map(|k| inner.items.get(k).cloned()));
            }
            return Ok(out);
        }
        let mut seen: HashSet<&Arc<str>> = HashSet::new();
        for v in &values {
            if let Some(set) = index.get(v.as_str()) {
                for k in set {
                    if seen.insert(k)
                        && let Some(o) = inner.items.get(k)
                    {
                        out.push(Arc::clone(o));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Objects filed under `value` in index `name` (client-go `ByIndex`).
    pub fn by_index(&self, name: &str, value: &str) -> Result<Vec<Arc<K>>, Error> {
        let inner = self.inner.read();
        Self::indexer(&inner, name)?;
        Ok(inner
            .indices
            .get(name)
            .and_then(|i| i.get(value))
            .map(|set| {
                set.iter()
                    .filter_map(|k| inner.items.get(k).cloned())
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Keys of the objects filed under `value` in index `name` (client-go `IndexKeys`).
    pub fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>, Error> {
        let inner = self.inner.read();
        Self::indexer(&inner, name)?;
        Ok(inner
            .indices
            .get(name)
            .and_then(|i| i.get(value))
            .map(|set| set.iter().map(|k| k.to_string()).collect())
            .unwrap_or_default())
    }

    /// Every value of index `name` that has at least one object (client-go
    /// `ListIndexFuncValues`); empty for an unknown index.
    pub fn list_index_func_values(&self, name: &str) -> Vec<String> {
        self.inner
            .read()
            .indices
            .get(name)
            .map(|i| i.keys().map(|v| v.to_string()).collect())
            .unwrap_or_default()
    }

    /// Objects filed under *every* one of `values` in index `name` (an AND of selector terms such
    /// as `app=web,tier=db`). Iterates the smallest set and probes the others: O(smallest match
    /// set × terms). With no values, every object matches.
    pub fn by_index_all(&self, name: &str, values: &[&str]) -> Result<Vec<Arc<K>>, Error> {
        let inner = self.inner.read();
        Ok(Self::keys_under_all(&inner, name, values)?
            .into_iter()
            .filter_map(|k| inner.items.get(k).cloned())
            .collect())
    }

    /// Keys of the objects filed under *every* value in `values` of index `name` (the key-only
    /// [`by_index_all`](Self::by_index_all), client-go's `IndexKeys` over several values); no
    /// object is touched.
    pub fn index_keys_all(&self, name: &str, values: &[&str]) -> Result<Vec<Arc<str>>, Error> {
        let inner = self.inner.read();
        Ok(Self::keys_under_all(&inner, name, values)?
            .into_iter()
            .cloned()
            .collect())
    }

    /// The keys filed under every one of `values` (all keys when `values` is empty): the smallest
    /// set is walked and each key probed in the others.
    fn keys_under_all<'a>(
        inner: &'a Inner<K>,
        name: &str,
        values: &[&str],
    ) -> Result<Vec<&'a Arc<str>>, Error> {
        Self::indexer(inner, name)?;
        if values.is_empty() {
            return Ok(inner.items.keys().collect());
        }
        let Some(index) = inner.indices.get(name) else {
            return Ok(Vec::new());
        };
        let mut sets = Vec::with_capacity(values.len());
        for v in values {
            match index.get(*v) {
                Some(set) => sets.push(set),
                None => return Ok(Vec::new()),
            }
        }
        sets.sort_by_key(|s| s.len());
        let (first, rest) = sets.split_at(1);
        Ok(first[0]
            .iter()
            .filter(|k| rest.iter().all(|s| s.contains(&***k)))
            .collect())
    }

    /// Number of objects filed under `value` in index `name` (0 when none or unknown index).
    pub fn index_cardinality(&self, name: &str, value: &str) -> usize {
        self.inner
            .read()
            .indices
            .get(name)
            .and_then(|i| i.get(value))
            .map_or(0, |s| s.len())
    }

    /// Register more indexers (client-go `AddIndexers`), also after objects exist: they are
    /// indexed at once. A name that is already registered is an [`Error::IndexerConflict`]; a
    /// failing index function is an [`Error::IndexFunc`]; in both cases nothing changes.
    pub fn add_indexers(&self, new: Indexers<K>) -> Result<(), Error> {
        let mut guard = self.inner.write();
        let inner = &mut *guard;
        let mut conflicts: Vec<&str> = new
            .keys()
            .filter(|n| inner.indexers.contains_key(*n))
            .map(String::as_str)
            .collect();
        if !conflicts.is_empty() {
            conflicts.sort_unstable();
            return Err(Error::IndexerConflict(conflicts.join(", ")));
        }
        let mut built = Vec::with_capacity(new.len());
        for (name, f) in &new {
            let mut index = Index::default();
            for (key, obj) in &inner.items {
                for v in f(obj).map_err(|m| index_err(name, key, m))? {
                    add_to_index(&mut index, &v, key);
                }
            }
            built.push((name.clone(), index));
        }
        inner.indices.extend(built);
        inner.indexers.extend(new);
        Ok(())
    }

    /// The registered indexers (client-go `GetIndexers`).
    pub fn get_indexers(&self) -> Indexers<K> {
        self.inner.read().indexers.clone()
    }

    /// Names of the registered indexes.
    pub fn index_names(&self) -> Vec<String> {
        self.inner.read().indexers.keys().cloned().collect()
    }
}

impl<K: Send + Sync> KnownObjects<K> for ThreadSafeStore<K> {
    fn list_keys(&self) -> Vec<String> {
        ThreadSafeStore::list_keys(self)
    }
    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.get(key)
    }
}

#[cfg(test)]
mod ported_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::informer::index::{
        LABEL_INDEX, NAMESPACE_INDEX, NODE_INDEX, OWNER_INDEX, default_indexers,
        pod_node_index_func,
    };
    use crate::informer::meta_namespace_key;
    use k8s_openapi::api::core::v1::{Pod, PodSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    use std::collections::{BTreeMap, BTreeSet};

    fn pod(ns: &str, name: &str, node: Option<&str>, labels: &[(&str, &str)]) -> Arc<Pod> {
        let mut p = Pod::default();
        p.metadata.name = Some(name.into());
        p.metadata.namespace = Some(ns.into());
        if !labels.is_empty() {
            p.metadata.labels = Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            );
        }
        p.spec = Some(PodSpec {
            node_name: node.map(String::from),
            ..Default::default()
        });
        Arc::new(p)
    }

    fn pod_indexers() -> Indexers<Pod> {
        let mut ix = default_indexers::<Pod>();
        ix.insert(NODE_INDEX.to_string(), pod_node_index_func());
        ix
    }

    fn sorted(mut v: Vec<String>) -> Vec<String> {
        v.sort();
        v
    }

    fn names(v: Vec<Arc<Pod>>) -> Vec<String> {
        sorted(
            v.into_iter()
                .map(|p| p.metadata.name.clone().unwrap_or_default())
                .collect(),
        )
    }

    /// Rebuild every index from scratch from `list()` and compare with the live indices.
    fn assert_indices_match_rebuild(store: &ThreadSafeStore<Pod>) {
        let inner = store.inner.read();
        for (name, f) in &inner.indexers {
            let mut expected: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for (key, obj) in &inner.items {
                for v in f(obj).unwrap_or_default() {
                    expected.entry(v).or_default().insert(key.to_string());
                }
            }
            let actual: BTreeMap<String, BTreeSet<String>> = inner.indices[name]
                .iter()
                .map(|(v, set)| (v.to_string(), set.iter().map(|k| k.to_string()).collect()))
                .collect();
            assert_eq!(actual, expected, "index {name} differs from a rebuild");
        }
    }

    #[test]
    fn update_moves_object_between_index_values() {
        let s = ThreadSafeStore::new(pod_indexers());
        s.add("a/p", pod("a", "p", Some("n1"), &[("app", "web")]))
            .unwrap();
        s.update("a/p", pod("a", "p", Some("n2"), &[("app", "db")]))
            .unwrap();
        assert_eq!(
            s.index_keys(NODE_INDEX, "n1").unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(s.index_keys(NODE_INDEX, "n2").unwrap(), vec!["a/p"]);
        assert_eq!(s.index_keys(LABEL_INDEX, "app=db").unwrap(), vec!["a/p"]);
        assert_eq!(s.index_cardinality(LABEL_INDEX, "app=web"), 0);
        assert_eq!(s.len(), 1);
        assert_indices_match_rebuild(&s);
    }

    #[test]
    fn delete_removes_empty_index_sets() {
        let s = ThreadSafeStore::new(pod_indexers());
        s.add("a/p1", pod("a", "p1", Some("n1"), &[("app", "web")]))
            .unwrap();
        s.add("b/p2", pod("b", "p2", Some("n1"), &[])).unwrap();
        assert!(s.delete("a/p1").is_some());
        // The values only p1 had are gone entirely, not left as empty sets.
        assert_eq!(sorted(s.list_index_func_values(NAMESPACE_INDEX)), vec!["b"]);
        assert!(s.list_index_func_values(LABEL_INDEX).is_empty());
        assert_eq!(s.list_index_func_values(NODE_INDEX), vec!["n1"]);
        assert!(s.delete("b/p2").is_some());
        let inner = s.inner.read();
        assert!(inner.indices.values().all(|i| i.is_empty()));
        drop(inner);
        assert!(s.delete("b/p2").is_none());
    }

    #[test]
    fn add_indexers_after_start_indexes_existing_objects() {
        let s = ThreadSafeStore::new(default_indexers::<Pod>());
        s.add("a/p1", pod("a", "p1", Some("n1"), &[])).unwrap();
        s.add("a/p2", pod("a", "p2", Some("n2"), &[])).unwrap();
        assert_eq!(
            s.by_index(NODE_INDEX, "n1"),
            Err(Error::IndexNotFound(NODE_INDEX.into()))
        );
        let mut extra = Indexers::new();
        extra.insert(NODE_INDEX.to_string(), pod_node_index_func());
        s.add_indexers(extra.clone()).unwrap();
        assert_eq!(names(s.by_index(NODE_INDEX, "n1").unwrap()), vec!["p1"]);
        // Later writes keep the new index up to date.
        s.add("a/p3", pod("a", "p3", Some("n1"), &[])).unwrap();
        assert_eq!(
            names(s.by_index(NODE_INDEX, "n1").unwrap()),
            vec!["p1", "p3"]
        );
        // Registering the same name again is a conflict and changes nothing.
        assert!(matches!(
            s.add_indexers(extra),
            Err(Error::IndexerConflict(n)) if n == NODE_INDEX
        ));
        assert_eq!(s.get_indexers().len(), 4);
        assert_indices_match_rebuild(&s);
    }

    fn failing_on(name: &'static str) -> IndexFunc<Pod> {
        Arc::new(move |p: &Pod| {
            if p.metadata.name.as_deref() == Some(name) {
                Err("boom".to_string())
            } else {
                Ok(vec!["ok".to_string()])
            }
        })
    }

    #[test]
    fn failing_index_function_is_an_error_not_a_panic() {
        let mut ix = pod_indexers();
        ix.insert("picky".to_string(), failing_on("bad"));
        let s = ThreadSafeStore::new(ix);
        s.add("a/good", pod("a", "good", Some("n1"), &[("app", "web")]))
            .unwrap();
        let err = s.add("a/bad", pod("a", "bad", Some("n1"), &[("app", "web")]));
        assert!(
            matches!(err, Err(Error::IndexFunc { ref index, ref key, .. }) if index == "picky" && key == "a/bad")
        );
        // No partial update: the object is absent and no index mentions it.
        assert!(s.get("a/bad").is_none());
        assert_eq!(s.index_keys(NODE_INDEX, "n1").unwrap(), vec!["a/good"]);
        assert_eq!(s.index_keys(LABEL_INDEX, "app").unwrap(), vec!["a/good"]);
        // An update that fails leaves the previous version in place.
        let mut renamed = (*pod("a", "bad", Some("n9"), &[])).clone();
        renamed.metadata.name = Some("bad".into());
        assert!(s.update("a/good", Arc::new(renamed)).is_err());
        assert_eq!(s.index_keys(NODE_INDEX, "n1").unwrap(), vec!["a/good"]);
        // add_indexers with a function that fails on an existing object is refused whole.
        s.add("a/bad2", pod("a", "bad2", None, &[])).unwrap();
        let mut extra = Indexers::new();
        extra.insert("picky2".to_string(), failing_on("bad2"));
        assert!(s.add_indexers(extra).is_err());
        assert_eq!(s.get_indexers().len(), 5);
        // replace is all-or-nothing too.
        assert!(
            s.replace(vec![("a/bad".into(), pod("a", "bad", None, &[]))])
                .is_err()
        );
        assert_eq!(s.len(), 2);
        assert_indices_match_rebuild(&s);
    }

    /// a/1 app=web,tier=fe; a/2 app=web,tier=db; a/3 app=api,tier=db.
    fn web_and_api_pods() -> ThreadSafeStore<Pod> {
        let s = ThreadSafeStore::new(pod_indexers());
        for (name, app, tier) in [("1", "web", "fe"), ("2", "web", "db"), ("3", "api", "db")] {
            s.add(
                &format!("a/{name}"),
                pod("a", name, None, &[("app", app), ("tier", tier)]),
            )
            .unwrap();
        }
        s
    }

    #[test]
    fn index_keys_all_returns_the_keys_by_index_all_finds_sharing_the_store_arcs() {
        let s = web_and_api_pods();
        for terms in [
            &["app=web", "tier=db"][..],
            &["tier"],
            &["app=web"],
            &["app=none"],
            &[],
        ] {
            let mut keys: Vec<String> = s
                .index_keys_all(LABEL_INDEX, terms)
                .unwrap()
                .iter()
                .map(|k| k.to_string())
                .collect();
            keys.sort();
            let mut expected: Vec<String> = s
                .by_index_all(LABEL_INDEX, terms)
                .unwrap()
                .iter()
                .map(|p| meta_namespace_key(&**p).unwrap())
                .collect();
            expected.sort();
            assert_eq!(keys, expected, "{terms:?}");
        }
        assert!(matches!(
            s.index_keys_all("nope", &["x"]),
            Err(Error::IndexNotFound(_))
        ));
        // The key handed out is the store's own Arc, the one the index sets hold.
        let (k, _) = s.get_key_value("a/2").unwrap();
        let from_index = s
            .index_keys_all(LABEL_INDEX, &["tier=db", "app=web"])
            .unwrap();
        assert!(Arc::ptr_eq(&k, &from_index[0]));
        assert!(s.get_key_value("a/9").is_none());
    }

    #[test]
    fn by_index_all_intersects_selector_terms() {
        let s = web_and_api_pods();
        assert_eq!(
            names(
                s.by_index_all(LABEL_INDEX, &["app=web", "tier=db"])
                    .unwrap()
            ),
            vec!["2"]
        );
        assert_eq!(
            names(s.by_index_all(LABEL_INDEX, &["tier", "app=web"]).unwrap()),
            vec!["1", "2"]
        );
        assert!(
            s.by_index_all(LABEL_INDEX, &["app=web", "nope"])
                .unwrap()
                .is_empty()
        );
        assert_eq!(s.by_index_all(LABEL_INDEX, &[]).unwrap().len(), 3);
        assert!(s.by_index_all("missing", &["x"]).is_err());
    }

    #[test]
    fn index_unions_values_of_the_query_object() {
        let s = ThreadSafeStore::new(pod_indexers());
        let mut owned = (*pod("a", "1", None, &[])).clone();
        owned.metadata.owner_references = Some(vec![OwnerReference {
            uid: "rs-1".into(),
            ..Default::default()
        }]);
        s.add("a/1", Arc::new(owned.clone())).unwrap();
        s.add("a/2", pod("a", "2", None, &[("app", "x")])).unwrap();
        assert_eq!(names(s.index(OWNER_INDEX, &owned).unwrap()), vec!["1"]);
        let q = pod("z", "q", None, &[("app", "x")]);
        // `app=x` and `app` both hit p2; it is returned once.
        assert_eq!(names(s.index(LABEL_INDEX, &q).unwrap()), vec!["2"]);
        assert_eq!(
            names(s.index(NAMESPACE_INDEX, &q).unwrap()),
            Vec::<String>::new()
        );
    }

    #[test]
    fn replace_rebuilds_items_and_indices() {
        let s = ThreadSafeStore::new(pod_indexers());
        s.add("a/old", pod("a", "old", Some("n1"), &[("app", "web")]))
            .unwrap();
        s.replace(vec![
            ("b/new".into(), pod("b", "new", Some("n2"), &[])),
            ("b/new2".into(), pod("b", "new2", Some("n2"), &[])),
        ])
        .unwrap();
        assert_eq!(sorted(s.list_keys()), vec!["b/new", "b/new2"]);
        assert_eq!(s.index_cardinality(NODE_INDEX, "n2"), 2);
        assert_eq!(s.index_cardinality(NODE_INDEX, "n1"), 0);
        assert_indices_match_rebuild(&s);
    }

    #[test]
    fn keys_are_shared_between_items_and_index_sets() {
        let s = ThreadSafeStore::new(pod_indexers());
        s.add("a/p", pod("a", "p", Some("n1"), &[("app", "web")]))
            .unwrap();
        let inner = s.inner.read();
        let (k, _) = inner.items.get_key_value("a/p").unwrap();
        // items + namespace + 2 label values + node = 5 references to one allocation.
        assert_eq!(Arc::strong_count(k), 5);
    }

    #[test]
    fn update_shared_keeps_the_callers_key_and_returns_the_object_it_replaced() {
        let s = ThreadSafeStore::new(pod_indexers());
        let popped: Arc<str> = Arc::from("a/p");
        let first = pod("a", "p", Some("n1"), &[("app", "web")]);
        let old = s.update_shared(&popped, Arc::clone(&first)).unwrap();
        assert!(old.is_none());
        {
            let inner = s.inner.read();
            let (k, _) = inner.items.get_key_value("a/p").unwrap();
            assert!(Arc::ptr_eq(k, &popped));
        }
        // The caller's reference + items + namespace + 2 label values + node.
        assert_eq!(Arc::strong_count(&popped), 6);
        // A second key Arc for the same key is not taken: the stored one stays everywhere.
        let other: Arc<str> = Arc::from("a/p");
        let old = s
            .update_shared(&other, pod("a", "p", Some("n2"), &[("app", "db")]))
            .unwrap();
        assert!(old.is_some_and(|o| Arc::ptr_eq(&o, &first)));
        assert_eq!(Arc::strong_count(&other), 1);
        assert_eq!(Arc::strong_count(&popped), 6);
        assert_indices_match_rebuild(&s);
        assert_eq!(s.index_keys(NODE_INDEX, "n2").unwrap(), vec!["a/p"]);
    }

    /// ≥100,000 random add/update/delete events over a small key space: the store never holds a
    /// key twice and every index equals a from-scratch rebuild at every checkpoint.
    #[test]
    fn random_events_keep_indices_equal_to_rebuild() {
        let s = ThreadSafeStore::new(pod_indexers());
        let mut rng = SmallRng::seed_from_u64(0x5eed);
        let mut model: HashMap<String, Arc<Pod>> = HashMap::new();
        let apps = ["web", "db", "api", "cache"];
        for i in 0..100_000u32 {
            let ns = format!("ns{}", rng.random_range(0..4));
            let name = format!("p{}", rng.random_range(0..400));
            let key = format!("{ns}/{name}");
            if rng.random_bool(0.25) {
                assert_eq!(s.delete(&key).is_some(), model.remove(&key).is_some());
            } else {
                let node = format!("n{}", rng.random_range(0..8));
                let app = apps[rng.random_range(0..apps.len())];
                let mut labels = vec![("app", app)];
                if rng.random_bool(0.5) {
                    labels.push(("tier", if rng.random_bool(0.5) { "a" } else { "b" }));
                }
                let p = pod(&ns, &name, rng.random_bool(0.9).then_some(&*node), &labels);
                assert_eq!(meta_namespace_key(&*p).ok().as_deref(), Some(key.as_str()));
                s.update(&key, Arc::clone(&p)).unwrap();
                model.insert(key, p);
            }
            if i % 10_000 == 9_999 {
                let keys = s.list_keys();
                let unique: HashSet<&String> = keys.iter().collect();
                assert_eq!(unique.len(), keys.len(), "duplicate keys in the store");
                assert_eq!(keys.len(), model.len());
                assert_indices_match_rebuild(&s);
            }
        }
        for (k, v) in &model {
            assert!(s.get(k).is_some_and(|o| Arc::ptr_eq(&o, v)));
        }
        assert_indices_match_rebuild(&s);
    }
}
