//! client-go's `thread_safe_store_test.go`, `index_test.go` and `store_test.go`, ported case by
//! case. Each test names the client-go test it ports. The objects are ConfigMaps whose `v`
//! annotation plays the part of client-go's test values (comma-separated where client-go splits).

use super::*;
use k8s_openapi::api::core::v1::ConfigMap;

/// A ConfigMap keyed `name` (no namespace) with annotation `v`.
fn obj(name: &str, v: &str) -> Arc<ConfigMap> {
    let mut c = ConfigMap::default();
    c.metadata.name = Some(name.into());
    c.metadata.annotations = Some([("v".to_string(), v.to_string())].into());
    Arc::new(c)
}

fn v_of(c: &ConfigMap) -> String {
    c.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("v"))
        .cloned()
        .unwrap_or_default()
}

/// Files an object under each comma-separated part of its `v` annotation.
fn split_index() -> IndexFunc<ConfigMap> {
    Arc::new(|c: &ConfigMap| Ok(v_of(c).split(',').map(String::from).collect()))
}

/// Files every object under one constant value.
fn constant_index(value: &'static str) -> IndexFunc<ConfigMap> {
    Arc::new(move |_: &ConfigMap| Ok(vec![value.to_string()]))
}

fn store_with(name: &str, f: IndexFunc<ConfigMap>) -> ThreadSafeStore<ConfigMap> {
    ThreadSafeStore::new([(name.to_string(), f)].into())
}

fn add(store: &ThreadSafeStore<ConfigMap>, name: &str, v: &str) {
    store.add(name, obj(name, v)).expect("add");
}

/// The keys filed under `value`, sorted (client-go compares `sets.String.List()`, sorted too).
fn keys_under(store: &ThreadSafeStore<ConfigMap>, index: &str, value: &str) -> Vec<String> {
    let mut keys = store.index_keys(index, value).expect("index exists");
    keys.sort();
    keys
}

/// Whether the index holds a set for `value` at all (client-go inspects `indices[..].values`).
fn has_set(store: &ThreadSafeStore<ConfigMap>, index: &str, value: &str) -> bool {
    store
        .inner
        .read()
        .indices
        .get(index)
        .is_some_and(|i| i.contains_key(value))
}

/// `TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex`.
#[test]
fn delete_of_the_last_object_under_a_value_removes_its_set() {
    let store = store_with("testIndexer", split_index());
    add(&store, "testKey", "testKey");
    assert_eq!(
        keys_under(&store, "testIndexer", "testKey"),
        vec!["testKey"]
    );
    store.delete("testKey");
    assert!(!has_set(&store, "testIndexer", "testKey"));
}

/// `TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex`.
#[test]
fn delete_of_one_of_two_objects_under_a_value_keeps_its_set() {
    let store = store_with("testIndexer", constant_index("testIndex"));
    add(&store, "retain", "retain");
    add(&store, "delete", "delete");
    assert_eq!(
        keys_under(&store, "testIndexer", "testIndex"),
        vec!["delete", "retain"]
    );
    store.delete("delete");
    assert!(has_set(&store, "testIndexer", "testIndex"));
    assert_eq!(
        keys_under(&store, "testIndexer", "testIndex"),
        vec!["retain"]
    );
}

/// `TestThreadSafeStoreIndexingFunctionsWithMultipleValues`.
#[test]
fn objects_with_several_index_values_move_between_sets_on_update_and_delete() {
    let store = store_with("testIndexer", split_index());
    let check = |foo: &[&str], bar: &[&str], baz: &[&str]| {
        assert_eq!(keys_under(&store, "testIndexer", "foo"), foo, "foo");
        assert_eq!(keys_under(&store, "testIndexer", "bar"), bar, "bar");
        assert_eq!(keys_under(&store, "testIndexer", "baz"), baz, "baz");
    };
    add(&store, "key1", "foo");
    add(&store, "key2", "bar");
    check(&["key1"], &["key2"], &[]);
    store.update("key2", obj("key2", "foo,bar")).unwrap();
    check(&["key1", "key2"], &["key2"], &[]);
    store.update("key1", obj("key1", "foo,bar")).unwrap();
    check(&["key1", "key2"], &["key1", "key2"], &[]);
    add(&store, "key3", "foo,bar,baz");
    check(
        &["key1", "key2", "key3"],
        &["key1", "key2", "key3"],
        &["key3"],
    );
    store.update("key1", obj("key1", "foo")).unwrap();
    check(&["key1", "key2", "key3"], &["key2", "key3"], &["key3"]);
    store.update("key2", obj("key2", "bar")).unwrap();
    check(&["key1", "key3"], &["key2", "key3"], &["key3"]);
    store.delete("key1");
    check(&["key3"], &["key2", "key3"], &["key3"]);
    store.delete("key3");
    check(&[], &["key2"], &[]);
    assert!(!has_set(&store, "testIndexer", "foo"));
    assert!(!has_set(&store, "testIndexer", "baz"));
}

/// `TestGetIndexFuncValues`.
#[test]
fn list_index_func_values_lists_each_value_once() {
    let store = store_with("testmodes", split_index());
    add(&store, "one", "bar");
    add(&store, "two", "bar");
    add(&store, "tre", "biz");
    let mut values = store.list_index_func_values("testmodes");
    values.sort();
    assert_eq!(values, vec!["bar", "biz"]);
}

fn names(objs: Vec<Arc<ConfigMap>>) -> Vec<String> {
    let mut n: Vec<String> = objs
        .iter()
        .filter_map(|o| o.metadata.name.clone())
        .collect();
    n.sort();
    n
}

/// `TestMultiIndexKeys`.
#[test]
fn by_index_finds_objects_filed_under_several_values() {
    let store = store_with("byUser", split_index());
    add(&store, "one", "ernie,bert");
    add(&store, "two", "bert,oscar");
    add(&store, "tre", "ernie,elmo");
    let by_user = |u: &str| names(store.by_index("byUser", u).expect("index"));
    assert_eq!(by_user("ernie"), vec!["one", "tre"]);
    assert_eq!(by_user("bert"), vec!["one", "two"]);
    assert_eq!(by_user("elmo"), vec!["tre"]);
    assert_eq!(by_user("oscar"), vec!["two"]);
    assert!(by_user("elmo1").is_empty());

    store.delete("tre");
    assert_eq!(by_user("ernie"), vec!["one"]);
    assert!(by_user("elmo").is_empty());

    store.update("two", obj("two", "oscar")).unwrap();
    assert_eq!(by_user("bert"), vec!["one"]);
}

/// `TestCache` (`doTestStore`): add, update, delete, list and replace.
#[test]
fn store_adds_updates_deletes_lists_and_replaces() {
    let store = ThreadSafeStore::<ConfigMap>::new(Indexers::new());
    add(&store, "foo", "bar");
    assert_eq!(
        store.get("foo").as_deref().map(v_of).as_deref(),
        Some("bar")
    );
    store.update("foo", obj("foo", "baz")).unwrap();
    assert_eq!(
        store.get("foo").as_deref().map(v_of).as_deref(),
        Some("baz")
    );
    store.delete("foo");
    assert!(store.get("foo").is_none(), "found deleted item");

    add(&store, "a", "b");
    add(&store, "c", "d");
    add(&store, "e", "e");
    let mut vals: Vec<String> = store.list().iter().map(|o| v_of(o)).collect();
    vals.sort();
    assert_eq!(vals, vec!["b", "d", "e"]);

    store
        .replace(vec![
            ("foo".into(), obj("foo", "foo")),
            ("bar".into(), obj("bar", "bar")),
        ])
        .unwrap();
    let mut vals: Vec<String> = store.list().iter().map(|o| v_of(o)).collect();
    vals.sort();
    assert_eq!(vals, vec!["bar", "foo"]);
}

/// `TestIndex` (`doTestIndex`): `index` finds the objects sharing the query object's values.
#[test]
fn index_finds_objects_sharing_the_query_objects_value() {
    let store = store_with("by_val", split_index());
    add(&store, "a", "b");
    add(&store, "c", "b");
    add(&store, "e", "f");
    add(&store, "g", "h");
    let query = |v: &str| names(store.index("by_val", &obj("", v)).expect("index"));
    assert_eq!(query("b"), vec!["a", "c"]);
    assert_eq!(query("f"), vec!["e"]);
    assert_eq!(query("h"), vec!["g"]);
}
