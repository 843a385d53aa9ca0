//! Ports of client-go `thread_safe_store_test.go`, `index_test.go` and `store_test.go`,
//! plus the key functions.
//!
//! Every test of the store's behaviour runs three times (`typed::`, `compact::`,
//! `compact_cold::`): on a typed store, on a compact one (objects encoded, decoded cache
//! on) and on a compact one without a decoded cache, so that every read decodes.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::api::ObjectMeta;
use kube::core::{DynamicObject, ObjectList, PartialObjectMeta};
use kube_informers_runtime::store::{
    CompactConfig, Indexer, Indexers, KeyError, NAMESPACE_INDEX, StoreError,
    deletion_handling_meta_namespace_key_func, index_func, meta_namespace_index_func,
    meta_namespace_key_func, namespace_indexers, split_meta_namespace_key,
};
use kube_informers_runtime::{DeletedFinalStateUnknown, DeletedObject};

/// Which store a test runs on.
#[derive(Clone, Copy, Debug)]
enum Mode {
    Typed,
    /// Compact, default configuration (reads may come from the decoded cache).
    Compact,
    /// Compact without a decoded cache: every read decodes.
    CompactCold,
}

impl Mode {
    fn indexer<K>(self, indexers: Indexers<K>) -> Indexer<K>
    where
        K: kube::Resource + Clone + serde::Serialize + serde::de::DeserializeOwned,
    {
        match self {
            Mode::Typed => Indexer::new(indexers),
            Mode::Compact => Indexer::compact(indexers, CompactConfig::default()),
            Mode::CompactCold => Indexer::compact(
                indexers,
                CompactConfig { hot_cache_bytes: 0, ..CompactConfig::default() },
            ),
        }
    }

    /// Whether `got` is `want`: the same `Arc` from a typed store (it never copies), an
    /// equal object from a compact one (it decodes copies).
    fn same<K: PartialEq>(self, got: &Arc<K>, want: &Arc<K>) -> bool {
        match self {
            Mode::Typed => Arc::ptr_eq(got, want),
            Mode::Compact | Mode::CompactCold => got == want,
        }
    }
}

/// Runs each listed `fn(Mode)` test on every kind of store.
macro_rules! in_every_mode {
    ($($test:ident),* $(,)?) => {
        mod typed {
            $( #[test] fn $test() { super::$test(super::Mode::Typed) } )*
        }
        mod compact {
            $( #[test] fn $test() { super::$test(super::Mode::Compact) } )*
        }
        mod compact_cold {
            $( #[test] fn $test() { super::$test(super::Mode::CompactCold) } )*
        }
    };
}

in_every_mode!(
    key_func_works_for_dynamic_and_metadata_objects,
    store_add_update_delete_list_replace,
    replace_with_a_nameless_object_changes_nothing,
    delete_removes_empty_sets_from_index,
    delete_keeps_non_empty_set_in_index,
    indexing_functions_with_multiple_values,
    update_moving_between_single_values_drops_old_bucket,
    replace_rebuilds_indices_from_scratch,
    get_index_func_values,
    multi_index_keys,
    index_returns_objects_sharing_a_value_without_duplicates,
    unknown_index_name_is_an_error,
    add_indexers_reindexes_existing_items_and_rejects_conflicts,
    transaction_returns_previous_objects_and_applies_everything,
    delete_key_removes_by_tombstone_key,
    objects_are_shared_not_copied,
    by_index_returns_the_updated_object_when_index_values_do_not_change,
);

fn pod(ns: &str, name: &str, labels: &[(&str, &str)], annotations: &[(&str, &str)]) -> Arc<Pod> {
    let map = |kv: &[(&str, &str)]| {
        (!kv.is_empty()).then(|| {
            kv.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>()
        })
    };
    Arc::new(Pod {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: (!ns.is_empty()).then(|| ns.to_string()),
            labels: map(labels),
            annotations: map(annotations),
            ..Default::default()
        },
        ..Default::default()
    })
}

fn cm(ns: &str, name: &str, value: &str) -> Arc<ConfigMap> {
    Arc::new(ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: (!ns.is_empty()).then(|| ns.to_string()),
            ..Default::default()
        },
        data: Some([("v".to_string(), value.to_string())].into()),
        ..Default::default()
    })
}

/// Index function over a ConfigMap's comma-separated `v` value, like client-go's test
/// indexer over `strings.Split(obj, ",")`.
fn by_value() -> Indexers<ConfigMap> {
    let mut indexers = Indexers::new();
    indexers.insert(
        "by_value".into(),
        index_func(|c: &ConfigMap| {
            let v = c.data.as_ref().and_then(|d| d.get("v")).cloned().unwrap_or_default();
            if v.is_empty() { Vec::new() } else { v.split(',').map(str::to_owned).collect() }
        }),
    );
    indexers
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

fn names<K: kube::Resource>(objs: &[Arc<K>]) -> Vec<String> {
    let mut out: Vec<String> =
        objs.iter().map(|o| o.meta().name.clone().unwrap_or_default()).collect();
    out.sort();
    out
}

// client-go: store_test.go TestKeyError / MetaNamespaceKeyFunc
#[test]
fn meta_namespace_key_func_formats_and_rejects_nameless_objects() {
    assert_eq!(meta_namespace_key_func(pod("ns", "a", &[], &[]).as_ref()).unwrap(), "ns/a");
    assert_eq!(meta_namespace_key_func(pod("", "node-a", &[], &[]).as_ref()).unwrap(), "node-a");
    let nameless = Pod {
        metadata: ObjectMeta { namespace: Some("ns".into()), ..Default::default() },
        ..Default::default()
    };
    assert_eq!(
        meta_namespace_key_func(&nameless),
        Err(KeyError::MissingName { namespace: Some("ns".into()) })
    );
    let empty_name = Pod {
        metadata: ObjectMeta { name: Some(String::new()), ..Default::default() },
        ..Default::default()
    };
    assert!(meta_namespace_key_func(&empty_name).is_err());
}

fn key_func_works_for_dynamic_and_metadata_objects(mode: Mode) {
    let mut dynamic: DynamicObject = serde_json::from_value(serde_json::json!({
        "apiVersion": "example.com/v1", "kind": "Foo",
        "metadata": {"name": "f", "namespace": "team"}
    }))
    .unwrap();
    assert_eq!(meta_namespace_key_func(&dynamic).unwrap(), "team/f");
    dynamic.metadata.namespace = None;
    assert_eq!(meta_namespace_key_func(&dynamic).unwrap(), "f");

    let list: ObjectList<PartialObjectMeta<Pod>> = serde_json::from_value(serde_json::json!({
        "apiVersion": "v1", "kind": "PodList", "metadata": {},
        "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ns"}}]
    }))
    .unwrap();
    let indexer = mode.indexer(namespace_indexers());
    for item in list.items {
        indexer.add(Arc::new(item)).unwrap();
    }
    assert_eq!(indexer.index_keys(NAMESPACE_INDEX, "ns").unwrap(), vec!["ns/p".to_string()]);
}

// client-go: store.go DeletionHandlingMetaNamespaceKeyFunc
#[test]
fn deletion_handling_key_func_uses_tombstone_key() {
    let obj = pod("ns", "a", &[], &[]);
    assert_eq!(
        deletion_handling_meta_namespace_key_func(&DeletedObject::Object(obj.clone())).unwrap(),
        "ns/a"
    );
    let tombstone = DeletedObject::DeletedFinalStateUnknown(DeletedFinalStateUnknown {
        key: "other/key".into(),
        object: obj,
    });
    assert_eq!(deletion_handling_meta_namespace_key_func(&tombstone).unwrap(), "other/key");
}

// client-go: store.go SplitMetaNamespaceKey
#[test]
fn split_meta_namespace_key_cases() {
    assert_eq!(split_meta_namespace_key("ns/a").unwrap(), (Some("ns"), "a"));
    assert_eq!(split_meta_namespace_key("a").unwrap(), (None, "a"));
    assert_eq!(
        split_meta_namespace_key("a/b/c"),
        Err(KeyError::InvalidKey { key: "a/b/c".into() })
    );
}

// client-go: store_test.go doTestStore (add, update, delete, list, replace)
fn store_add_update_delete_list_replace(mode: Mode) {
    let store = mode.indexer::<ConfigMap>(Indexers::new());
    store.add(cm("", "foo", "1")).unwrap();
    store.add(cm("", "bar", "1")).unwrap();
    let updated = cm("", "foo", "2");
    store.update(updated.clone()).unwrap();
    assert!(mode.same(&store.get_by_key("foo").unwrap(), &updated));
    assert!(mode.same(&store.get(&cm("", "foo", "x")).unwrap(), &updated));
    assert!(store.get(&ConfigMap::default()).is_none());
    store.delete(&cm("", "bar", "")).unwrap();
    assert!(store.get_by_key("bar").is_none());
    assert_eq!(store.list_keys(), vec!["foo".to_string()]);
    assert_eq!(store.len(), 1);
    // Deleting an absent key is not an error.
    store.delete(&cm("", "bar", "")).unwrap();

    store.replace(vec![cm("", "a", "1"), cm("", "b", "2"), cm("", "c", "3")], "42").unwrap();
    assert_eq!(sorted(store.list_keys()), vec!["a", "b", "c"]);
    assert_eq!(store.list().len(), 3);
    assert_eq!(store.resource_version(), "42");
    assert!(store.get_by_key("foo").is_none());
}

fn replace_with_a_nameless_object_changes_nothing(mode: Mode) {
    let store = mode.indexer::<ConfigMap>(Indexers::new());
    store.add(cm("", "keep", "1")).unwrap();
    let nameless = Arc::new(ConfigMap::default());
    let err = store.replace(vec![cm("", "new", "1"), nameless.clone()], "1").unwrap_err();
    assert!(matches!(err, StoreError::Key(KeyError::MissingName { .. })));
    assert_eq!(store.list_keys(), vec!["keep".to_string()]);
    assert!(store.add(nameless).is_err());
}

// client-go: thread_safe_store_test.go TestThreadSafeStoreDeleteRemovesEmptySetsFromIndex
fn delete_removes_empty_sets_from_index(mode: Mode) {
    let store = mode.indexer(by_value());
    store.add(cm("", "testKey", "testKey")).unwrap();
    assert_eq!(store.index_keys("by_value", "testKey").unwrap(), vec!["testKey".to_string()]);
    assert_eq!(store.index_value_count("by_value"), 1);
    store.delete(&cm("", "testKey", "")).unwrap();
    assert_eq!(store.index_value_count("by_value"), 0);
    assert!(store.list_index_func_values("by_value").is_empty());
}

// client-go: thread_safe_store_test.go TestThreadSafeStoreAddKeepsNonEmptySetPostDeleteFromIndex
fn delete_keeps_non_empty_set_in_index(mode: Mode) {
    let store = mode.indexer(by_value());
    store.add(cm("", "retain", "testIndex")).unwrap();
    store.add(cm("", "delete", "testIndex")).unwrap();
    assert_eq!(store.index_keys("by_value", "testIndex").unwrap().len(), 2);
    store.delete(&cm("", "delete", "")).unwrap();
    assert_eq!(store.index_keys("by_value", "testIndex").unwrap(), vec!["retain".to_string()]);
}

// client-go: thread_safe_store_test.go TestThreadSafeStoreIndexingFunctionsWithMultipleValues
// (stale index values are removed on update)
fn indexing_functions_with_multiple_values(mode: Mode) {
    let store = mode.indexer(by_value());
    let keys = |value: &str| store.index_keys("by_value", value).unwrap();
    store.add(cm("", "key1", "foo")).unwrap();
    store.add(cm("", "key2", "bar")).unwrap();
    assert_eq!(keys("foo"), ["key1"]);
    assert_eq!(keys("bar"), ["key2"]);

    store.update(cm("", "key2", "foo,bar")).unwrap();
    assert_eq!(keys("foo"), ["key1", "key2"]);
    assert_eq!(keys("bar"), ["key2"]);

    store.update(cm("", "key1", "foo,bar")).unwrap();
    assert_eq!(keys("foo"), ["key1", "key2"]);
    assert_eq!(keys("bar"), ["key1", "key2"]);

    store.add(cm("", "key3", "foo,bar,baz")).unwrap();
    assert_eq!(keys("foo"), ["key1", "key2", "key3"]);
    assert_eq!(keys("bar"), ["key1", "key2", "key3"]);
    assert_eq!(keys("baz"), ["key3"]);

    store.update(cm("", "key1", "foo")).unwrap();
    assert_eq!(keys("foo"), ["key1", "key2", "key3"]);
    assert_eq!(keys("bar"), ["key2", "key3"]);

    store.update(cm("", "key2", "bar")).unwrap();
    assert_eq!(keys("foo"), ["key1", "key3"]);
    assert_eq!(keys("bar"), ["key2", "key3"]);

    store.delete(&cm("", "key1", "")).unwrap();
    assert_eq!(keys("foo"), ["key3"]);
    store.delete(&cm("", "key3", "")).unwrap();
    assert!(keys("foo").is_empty());
    assert_eq!(keys("bar"), ["key2"]);
    assert!(keys("baz").is_empty());
    assert_eq!(sorted(store.list_index_func_values("by_value")), ["bar"]);
}

fn update_moving_between_single_values_drops_old_bucket(mode: Mode) {
    let store = mode.indexer(by_value());
    store.add(cm("", "k", "old")).unwrap();
    store.update(cm("", "k", "new")).unwrap();
    assert!(store.by_index("by_value", "old").unwrap().is_empty());
    assert_eq!(names(&store.by_index("by_value", "new").unwrap()), ["k"]);
    assert_eq!(store.index_value_count("by_value"), 1);
    // An update to no value at all removes the key from every bucket.
    store.update(cm("", "k", "")).unwrap();
    assert_eq!(store.index_value_count("by_value"), 0);
}

fn replace_rebuilds_indices_from_scratch(mode: Mode) {
    let store = mode.indexer(by_value());
    store.add(cm("", "a", "x")).unwrap();
    store.add(cm("", "b", "y")).unwrap();
    store.replace(vec![cm("", "b", "z"), cm("", "c", "z")], "7").unwrap();
    assert!(store.index_keys("by_value", "x").unwrap().is_empty());
    assert!(store.index_keys("by_value", "y").unwrap().is_empty());
    assert_eq!(store.index_keys("by_value", "z").unwrap(), ["b", "c"]);
    assert_eq!(sorted(store.list_index_func_values("by_value")), ["z"]);
}

// client-go: index_test.go TestGetIndexFuncValues
fn get_index_func_values(mode: Mode) {
    let mut indexers = Indexers::new();
    indexers.insert(
        "testmodes".to_string(),
        index_func(|p: &Pod| {
            vec![p.metadata.labels.as_ref().and_then(|l| l.get("foo")).cloned().unwrap_or_default()]
        }),
    );
    let index = mode.indexer(indexers);
    index.add(pod("", "one", &[("foo", "bar")], &[])).unwrap();
    index.add(pod("", "two", &[("foo", "bar")], &[])).unwrap();
    index.add(pod("", "tre", &[("foo", "biz")], &[])).unwrap();
    assert_eq!(sorted(index.list_index_func_values("testmodes")), ["bar", "biz"]);
    assert!(index.list_index_func_values("unknown").is_empty());
}

fn users_indexers() -> Indexers<Pod> {
    let mut indexers = Indexers::new();
    indexers.insert(
        "byUser".to_string(),
        index_func(|p: &Pod| {
            let users = p
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get("users"))
                .cloned()
                .unwrap_or_default();
            users.split(',').map(str::to_owned).collect()
        }),
    );
    indexers
}

// client-go: index_test.go TestMultiIndexKeys
fn multi_index_keys(mode: Mode) {
    let index = mode.indexer(users_indexers());
    let pod1 = pod("", "one", &[], &[("users", "ernie,bert")]);
    let pod2 = pod("", "two", &[], &[("users", "bert,oscar")]);
    let pod3 = pod("", "tre", &[], &[("users", "ernie,elmo")]);
    for p in [&pod1, &pod2, &pod3] {
        index.add(p.clone()).unwrap();
    }
    let by_user = |u: &str| names(&index.by_index("byUser", u).unwrap());
    assert_eq!(by_user("ernie"), ["one", "tre"]);
    assert_eq!(by_user("bert"), ["one", "two"]);
    assert_eq!(by_user("elmo"), ["tre"]);
    assert_eq!(by_user("oscar"), ["two"]);
    assert!(by_user("elmo1").is_empty());

    index.delete(&pod3).unwrap();
    assert_eq!(by_user("ernie"), ["one"]);
    assert!(by_user("elmo").is_empty());

    index.update(pod("", "two", &[], &[("users", "oscar")])).unwrap();
    assert_eq!(by_user("bert"), ["one"]);
}

// client-go: thread_safe_store.go Index (objects sharing any index value with a probe)
fn index_returns_objects_sharing_a_value_without_duplicates(mode: Mode) {
    let index = mode.indexer(users_indexers());
    index.add(pod("", "one", &[], &[("users", "ernie,bert")])).unwrap();
    index.add(pod("", "two", &[], &[("users", "bert,oscar")])).unwrap();
    index.add(pod("", "tre", &[], &[("users", "elmo")])).unwrap();
    // The probe is not stored; "one" matches on both values and must appear once.
    let probe = pod("", "probe", &[], &[("users", "ernie,bert")]);
    assert_eq!(names(&index.index("byUser", &probe).unwrap()), ["one", "two"]);
    let single = pod("", "probe", &[], &[("users", "elmo")]);
    assert_eq!(names(&index.index("byUser", &single).unwrap()), ["tre"]);
}

// client-go: "Index with name %s does not exist"
fn unknown_index_name_is_an_error(mode: Mode) {
    let index = mode.indexer(users_indexers());
    let p = pod("", "one", &[], &[]);
    index.add(p.clone()).unwrap();
    let expected = StoreError::IndexNotFound("nope".into());
    assert_eq!(index.by_index("nope", "x").unwrap_err(), expected);
    assert_eq!(index.index_keys("nope", "x").unwrap_err(), expected);
    assert_eq!(index.index("nope", &p).unwrap_err(), expected);
    assert_eq!(expected.to_string(), "index with name nope does not exist");
}

// client-go: thread_safe_store.go AddIndexers (re-indexes existing items, rejects conflicts)
fn add_indexers_reindexes_existing_items_and_rejects_conflicts(mode: Mode) {
    let index = mode.indexer(namespace_indexers::<Pod>());
    index.add(pod("a", "one", &[], &[("users", "ernie")])).unwrap();
    index.add(pod("b", "two", &[], &[("users", "ernie,bert")])).unwrap();

    index.add_indexers(users_indexers()).unwrap();
    assert_eq!(index.index_keys("byUser", "ernie").unwrap(), ["a/one", "b/two"]);
    assert_eq!(index.index_keys("byUser", "bert").unwrap(), ["b/two"]);
    assert_eq!(sorted(index.get_indexers().into_keys().collect()), ["byUser", NAMESPACE_INDEX]);

    // New objects are indexed by the added indexer too.
    index.add(pod("a", "three", &[], &[("users", "bert")])).unwrap();
    assert_eq!(index.index_keys("byUser", "bert").unwrap(), ["a/three", "b/two"]);

    // A conflicting name rejects the whole call: "other" must not be added either.
    let mut conflicting = users_indexers();
    conflicting.insert("other".into(), index_func(|_: &Pod| vec!["x".to_string()]));
    let err = index.add_indexers(conflicting).unwrap_err();
    assert_eq!(err, StoreError::IndexerConflict(vec!["byUser".into()]));
    assert!(index.by_index("other", "x").is_err());
    assert_eq!(index.get_indexers().len(), 2);
}

#[test]
fn namespace_index_func_matches_client_go() {
    assert_eq!(meta_namespace_index_func(pod("ns", "a", &[], &[]).as_ref()), ["ns"]);
    assert_eq!(meta_namespace_index_func(pod("", "a", &[], &[]).as_ref()), [""]);
}

fn transaction_returns_previous_objects_and_applies_everything(mode: Mode) {
    let index = mode.indexer(by_value());
    let first = cm("", "a", "x");
    index.add(first.clone()).unwrap();
    let second = cm("", "a", "y");
    let (previous, removed, missing) = index.transaction(|txn| {
        let previous = txn.update(second.clone()).unwrap();
        assert!(mode.same(&txn.get_by_key("a").unwrap(), &second));
        txn.add(cm("", "b", "y")).unwrap();
        assert_eq!(txn.len(), 2);
        let removed = txn.delete_key("b");
        let missing = txn.delete_key("never");
        (previous, removed, missing)
    });
    assert!(mode.same(&previous.unwrap(), &first));
    assert_eq!(names(&[removed.unwrap()]), ["b"]);
    assert!(missing.is_none());
    assert_eq!(index.index_keys("by_value", "y").unwrap(), ["a"]);
    assert!(index.index_keys("by_value", "x").unwrap().is_empty());
    // A nameless object is an error inside a transaction too.
    assert!(index.transaction(|txn| txn.add(Arc::new(ConfigMap::default()))).is_err());
}

fn delete_key_removes_by_tombstone_key(mode: Mode) {
    let index = mode.indexer(by_value());
    index.add(cm("ns", "a", "x")).unwrap();
    let tombstone = DeletedObject::DeletedFinalStateUnknown(DeletedFinalStateUnknown {
        key: "ns/a".into(),
        object: cm("ns", "a", "stale"),
    });
    let key = deletion_handling_meta_namespace_key_func(&tombstone).unwrap();
    assert!(index.delete_key(&key).is_some());
    assert!(index.is_empty());
    assert_eq!(index.index_value_count("by_value"), 0);
}

fn objects_are_shared_not_copied(mode: Mode) {
    let index = mode.indexer(namespace_indexers::<ConfigMap>());
    let obj = cm("ns", "a", "x");
    index.add(obj.clone()).unwrap();
    for got in [
        index.get_by_key("ns/a").unwrap(),
        index.list().remove(0),
        index.by_index(NAMESPACE_INDEX, "ns").unwrap().remove(0),
    ] {
        assert!(mode.same(&got, &obj));
    }
}

fn by_index_returns_the_updated_object_when_index_values_do_not_change(mode: Mode) {
    let index = mode.indexer(namespace_indexers::<ConfigMap>());
    index.add(cm("ns", "a", "1")).unwrap();
    let v2 = cm("ns", "a", "2");
    index.update(v2.clone()).unwrap();
    assert!(mode.same(&index.by_index(NAMESPACE_INDEX, "ns").unwrap()[0], &v2));
    let v3 = cm("ns", "a", "3");
    index.transaction(|txn| txn.update(v3.clone())).unwrap();
    assert!(mode.same(&index.index(NAMESPACE_INDEX, &v3).unwrap()[0], &v3));
    index.read(|view| {
        let got: Vec<_> = view.by_index(NAMESPACE_INDEX, "ns").unwrap().collect();
        assert!(mode.same(&got[0], &v3));
    });
    // Multi-value indices refresh the object in every bucket too.
    let store = mode.indexer(by_value());
    store.add(cm("", "k", "x,y")).unwrap();
    let newer = cm("", "k", "x,y");
    store.update(newer.clone()).unwrap();
    for value in ["x", "y"] {
        assert!(mode.same(&store.by_index("by_value", value).unwrap()[0], &newer));
    }
}
