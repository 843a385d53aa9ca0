//! What only the compact store ([`Indexer::compact`]) has: the round trip of every object
//! through its encoding (byte-exact but for managedFields), the dictionary it trains, the
//! decoded cache, and the index values it keeps per object. The store's behaviour shared
//! with the typed store is tested in `store_indexer` (every test there runs in both modes).

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Resource;
use kube::core::{Expression, Selector};
use kube_informers_runtime::lister::Lister;
use kube_informers_runtime::store::{
    CompactConfig, Indexer, Indexers, NAMESPACE_INDEX, index_func, namespace_indexers,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Objects decoded from testkit's realistic templates (the Pod is the one the benchmarks
/// seed: about 11 KB of JSON with managedFields).
fn objects<K: DeserializeOwned>(make: fn(&str, &str, u64) -> Value, count: u64) -> Vec<Arc<K>> {
    (0..count)
        .map(|i| {
            let ns = format!("ns-{}", i % 3);
            Arc::new(serde_json::from_value(make(&ns, &format!("obj-{i}"), i)).unwrap())
        })
        .collect()
}

fn without_managed_fields<K: Resource + Clone>(obj: &K) -> K {
    let mut copy = obj.clone();
    copy.meta_mut().managed_fields = None;
    copy
}

/// Inserts `objs` into a compact store without a decoded cache (so reads decode), with a
/// dictionary trained after `dictionary_after` objects, and checks every read against the
/// object without managedFields: equal as values and as serialized JSON.
fn assert_round_trip<K>(objs: &[Arc<K>], dictionary_after: usize) -> Indexer<K>
where
    K: Resource + Clone + Serialize + DeserializeOwned + PartialEq + std::fmt::Debug + 'static,
{
    let config = CompactConfig { hot_cache_bytes: 0, dictionary_after, ..CompactConfig::default() };
    let store = Indexer::compact(namespace_indexers::<K>(), config);
    for obj in objs {
        store.add(obj.clone()).unwrap();
    }
    for obj in objs {
        let want = without_managed_fields(obj.as_ref());
        let got = store.get(obj).expect("stored");
        assert_eq!(*got, want);
        assert_eq!(serde_json::to_vec(&*got).unwrap(), serde_json::to_vec(&want).unwrap());
    }
    let mut listed: Vec<Vec<u8>> =
        store.list().iter().map(|o| serde_json::to_vec(&**o).unwrap()).collect();
    let mut want: Vec<Vec<u8>> = objs
        .iter()
        .map(|o| serde_json::to_vec(&without_managed_fields(o.as_ref())).unwrap())
        .collect();
    listed.sort();
    want.sort();
    assert_eq!(listed, want);
    store
}

#[test]
fn realistic_objects_round_trip_exactly_but_for_managed_fields() {
    let pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 40);
    assert!(pods[0].metadata.managed_fields.is_some(), "the template carries managedFields");
    assert_round_trip(&pods, 0);
    assert_round_trip(&objects::<ConfigMap>(kube_informers_testkit::seed::config_map, 40), 0);
    assert_round_trip(&objects::<Deployment>(kube_informers_testkit::seed::deployment, 40), 0);
}

#[test]
fn a_dictionary_is_trained_once_enough_objects_are_stored_and_everything_still_round_trips() {
    let pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 300);
    let store = assert_round_trip(&pods[..299], 300);
    let before = store.compact_stats().unwrap();
    assert_eq!(before.dictionary_bytes, 0, "no dictionary below dictionary_after");
    store.add(pods[299].clone()).unwrap();
    let after = store.compact_stats().unwrap();
    if cfg!(feature = "zstd") {
        assert!(after.dictionary_bytes > 0, "{after:?}");
        // Re-encoded with the dictionary: the template's Pods shrink to a few percent.
        let per_object = after.encoded_bytes / after.objects;
        assert!(per_object * 4 < before.encoded_bytes / before.objects, "{before:?} {after:?}");
    }
    for pod in &pods {
        assert_eq!(*store.get(pod).unwrap(), without_managed_fields(pod.as_ref()));
    }
    // Writes after training use the dictionary too.
    let mut changed = (*pods[3]).clone();
    changed.metadata.labels.get_or_insert_default().insert("changed".into(), "yes".into());
    store.update(Arc::new(changed.clone())).unwrap();
    assert_eq!(*store.get(&changed).unwrap(), without_managed_fields(&changed));
}

#[test]
fn the_decoded_cache_serves_the_object_inserted_unless_it_carries_managed_fields() {
    let store = Indexer::compact(namespace_indexers::<Pod>(), CompactConfig::default());
    let pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 2);
    let plain = Arc::new(without_managed_fields(pods[0].as_ref()));
    store.add(plain.clone()).unwrap();
    assert!(Arc::ptr_eq(&store.get(&plain).unwrap(), &plain), "inserted, then read from the cache");
    // With managedFields the inserted Arc differs from what a read decodes: not cached.
    store.add(pods[1].clone()).unwrap();
    let got = store.get(&pods[1]).unwrap();
    assert!(!Arc::ptr_eq(&got, &pods[1]));
    assert_eq!(got.metadata.managed_fields, None);
    // A key's first point read only decodes; its second caches what it decoded, which the
    // third then gets.
    assert_eq!(store.compact_stats().unwrap().cached_objects, 1);
    let again = store.get(&pods[1]).unwrap();
    assert!(!Arc::ptr_eq(&again, &got));
    assert!(Arc::ptr_eq(&store.get(&pods[1]).unwrap(), &again));
    assert_eq!(store.compact_stats().unwrap().cached_objects, 2);
    // Bulk reads return the cached objects too.
    assert!(store.list().iter().any(|p| Arc::ptr_eq(p, &plain)));
    // Deleting forgets the cached object.
    store.delete(&plain).unwrap();
    assert!(store.get(&plain).is_none());
    assert_eq!(store.compact_stats().unwrap().cached_objects, 1);
}

// A relist through `replace` refreshes the keys the decoded cache held, with the listed
// objects, and adds no other: a list passing through the cache would evict every hot key for
// objects mostly never read (the informer's streamed relist does the same, tested in the
// tests crate's `informer_compact_store`).
#[test]
fn replace_keeps_the_cached_keys_cached_with_their_new_objects_and_caches_no_other() {
    let pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 10);
    let plain: Vec<Arc<Pod>> =
        pods.iter().map(|pod| Arc::new(without_managed_fields(pod.as_ref()))).collect();
    let store = Indexer::compact(namespace_indexers::<Pod>(), CompactConfig::default());
    store.replace(plain.clone(), "1").unwrap();
    assert_eq!(store.compact_stats().unwrap().cached_objects, 0, "a list caches nothing");
    let _ = store.get(&plain[3]);
    let _ = store.get(&plain[3]);
    assert_eq!(store.compact_stats().unwrap().cached_objects, 1);
    let relisted: Vec<Arc<Pod>> = plain.iter().map(|pod| Arc::new(pod.as_ref().clone())).collect();
    store.replace(relisted.clone(), "2").unwrap();
    let stats = store.compact_stats().unwrap();
    assert_eq!(stats.cached_objects, 1, "{stats:?}");
    assert!(Arc::ptr_eq(&store.get(&plain[3]).unwrap(), &relisted[3]), "the listed object");
    assert_eq!(store.compact_stats().unwrap().decoded, stats.decoded);
    // A key the new list no longer has leaves the cache.
    store.replace(relisted[4..].to_vec(), "3").unwrap();
    assert_eq!(store.compact_stats().unwrap().cached_objects, 0);
    assert!(store.get(&plain[3]).is_none());
}

// A pass that reads many keys once each (a resync's worker, a report) would otherwise fill
// the decoded cache with objects read once, evict the hot ones, and pay for each eviction in
// the read that causes it. Keys are admitted on their second read instead (the doorkeeper of
// TinyLFU caches).
#[test]
fn a_pass_over_many_keys_read_once_leaves_the_hot_keys_cached() {
    let pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 60);
    // Room for about four decoded Pods.
    let config = CompactConfig { hot_cache_bytes: 160_000, ..CompactConfig::default() };
    let store = Indexer::compact(namespace_indexers::<Pod>(), config);
    for pod in &pods {
        // Inserted with managedFields, so the inserts themselves cache nothing.
        store.add(pod.clone()).unwrap();
    }
    assert_eq!(store.compact_stats().unwrap().cached_objects, 0);
    let hot = &pods[0];
    let _ = store.get(hot);
    let cached = store.get(hot).unwrap();
    assert_eq!(store.compact_stats().unwrap().cached_objects, 1);
    let decoded = store.compact_stats().unwrap().decoded;
    for pod in &pods[1..] {
        assert!(store.get(pod).is_some());
    }
    let stats = store.compact_stats().unwrap();
    assert_eq!(stats.decoded - decoded, 59, "each key read once is decoded once");
    assert_eq!(stats.cached_objects, 1, "and none of them is cached");
    assert!(Arc::ptr_eq(&store.get(hot).unwrap(), &cached), "the hot key stayed cached");
    // Read twice, a key is cached even when that evicts others.
    for pod in &pods[1..10] {
        let _ = store.get(pod);
        let _ = store.get(pod);
    }
    let stats = store.compact_stats().unwrap();
    assert!(stats.cached_objects > 1 && stats.cached_bytes <= 160_000, "{stats:?}");
}

#[test]
fn the_decoded_cache_stays_within_its_byte_budget() {
    let pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 100);
    let budget = 200_000;
    let config = CompactConfig { hot_cache_bytes: budget, ..CompactConfig::default() };
    let store = Indexer::compact(namespace_indexers::<Pod>(), config);
    for pod in &pods {
        store.add(Arc::new(without_managed_fields(pod.as_ref()))).unwrap();
        let _ = store.get(pod);
    }
    let stats = store.compact_stats().unwrap();
    assert!(stats.cached_bytes <= budget, "{stats:?}");
    assert!(stats.cached_objects > 0 && stats.cached_objects < 100, "{stats:?}");
}

// client-go: thread_safe_store.go updateIndices, which needs the old object; the compact
// store keeps each object's index values instead, so a stale value is removed even when
// the index function would now compute something else for the old object.
#[test]
fn index_values_are_computed_at_insert_and_kept() {
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = calls.clone();
    let mut indexers = Indexers::new();
    indexers.insert(
        "by_value".to_string(),
        index_func(move |c: &ConfigMap| {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            c.data.as_ref().and_then(|d| d.get("v")).into_iter().cloned().collect()
        }),
    );
    let store =
        Indexer::compact(indexers, CompactConfig { hot_cache_bytes: 0, ..Default::default() });
    let cm = |v: &str| {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some("a".into());
        cm.data = Some([("v".to_string(), v.to_string())].into());
        Arc::new(cm)
    };
    store.add(cm("x")).unwrap();
    store.update(cm("y")).unwrap();
    // One call per insert: the old object's values were kept, not recomputed.
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
    for _ in 0..3 {
        assert_eq!(store.by_index("by_value", "y").unwrap().len(), 1);
        assert!(store.by_index("by_value", "x").unwrap().is_empty());
        assert_eq!(store.index_keys("by_value", "y").unwrap(), ["a"]);
    }
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2, "queries compute nothing");
    store.delete(&cm("ignored")).unwrap();
    assert_eq!(store.index_value_count("by_value"), 0);
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
}

/// Listers over a typed and a compact store (with a decoded cache of `hot_cache_bytes`)
/// that both hold `pods` without managedFields.
fn typed_and_compact(pods: &[Arc<Pod>], hot_cache_bytes: usize) -> (Lister<Pod>, Lister<Pod>) {
    let typed = Lister::new(Indexer::new(namespace_indexers::<Pod>()));
    let compact = Lister::new(Indexer::compact(
        namespace_indexers::<Pod>(),
        CompactConfig { hot_cache_bytes, ..CompactConfig::default() },
    ));
    for pod in pods {
        let pod = Arc::new(without_managed_fields(pod.as_ref()));
        typed.indexer().add(pod.clone()).unwrap();
        compact.indexer().add(pod).unwrap();
    }
    (typed, compact)
}

#[test]
fn listers_read_a_compact_store_like_a_typed_one() {
    let pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 30);
    let (typed, compact) = typed_and_compact(&pods, 100_000);
    let sorted = |mut v: Vec<Arc<Pod>>| {
        v.sort_by_key(|p| p.metadata.name.clone());
        v
    };
    for selector in &selectors() {
        assert_eq!(sorted(typed.list(selector)), sorted(compact.list(selector)));
        for ns in ["", "ns-0", "ns-2", "absent"] {
            assert_eq!(
                sorted(typed.namespaced(ns).list(selector)),
                sorted(compact.namespaced(ns).list(selector))
            );
        }
    }
    assert_eq!(typed.namespaced("ns-1").get("obj-4"), compact.namespaced("ns-1").get("obj-4"));
    assert_eq!(
        sorted(typed.indexer().by_index(NAMESPACE_INDEX, "ns-1").unwrap()),
        sorted(compact.indexer().by_index(NAMESPACE_INDEX, "ns-1").unwrap())
    );
}

/// Selectors of every expression kind, over the `app` label testkit's objects carry (ten
/// values) and a label none carries.
fn selectors() -> Vec<Selector> {
    let set =
        |values: &[&str]| -> BTreeSet<String> { values.iter().map(|v| v.to_string()).collect() };
    vec![
        Selector::default(),
        [("app", "app-3")].into_iter().collect(),
        [("app", "nope")].into_iter().collect(),
        Expression::In("app".into(), set(&["app-1", "app-4"])).into(),
        Expression::NotIn("app".into(), set(&["app-1", "app-4"])).into(),
        Expression::NotEqual("app".into(), "app-2".into()).into(),
        Expression::Exists("app".into()).into(),
        Expression::DoesNotExist("app".into()).into(),
        Expression::Exists("tier".into()).into(),
        Expression::DoesNotExist("tier".into()).into(),
        Expression::NotIn("tier".into(), set(&["web"])).into(),
        [Expression::Exists("app".into()), Expression::Equal("app".into(), "app-5".into())]
            .into_iter()
            .collect(),
    ]
}

// The compact store keeps each object's labels beside its bytes, so a lister's label
// selector is applied before decoding: only the objects it selects are decoded (in every
// namespace, in one, and through the namespace index), with the same results as the typed
// store's (where the selector runs on the decoded objects, as in client-go).
#[test]
fn a_label_selector_decodes_only_the_objects_it_selects() {
    let mut pods: Vec<Arc<Pod>> = objects(kube_informers_testkit::seed::pod, 30);
    // Two without any labels, which only `!app`-style expressions select.
    for pod in &mut pods[..2] {
        Arc::make_mut(pod).metadata.labels = None;
    }
    let (typed, compact) = typed_and_compact(&pods, 0);
    let decoded = || compact.indexer().compact_stats().unwrap().decoded;
    let names = |v: Vec<Arc<Pod>>| {
        let mut names: Vec<String> = v.iter().filter_map(|p| p.metadata.name.clone()).collect();
        names.sort();
        names
    };
    for selector in &selectors() {
        for ns in ["", "ns-0", "ns-2", "absent"] {
            let want = names(typed.namespaced(ns).list(selector));
            let before = decoded();
            let got = names(compact.namespaced(ns).list(selector));
            assert_eq!(got, want, "selector {selector} in {ns:?}");
            let count = want.len() as u64;
            assert_eq!(decoded() - before, count, "decodes for {selector} in {ns:?}");
        }
        let want = names(typed.list(selector));
        let before = decoded();
        assert_eq!(names(compact.list(selector)), want, "selector {selector}");
        assert_eq!(decoded() - before, want.len() as u64, "decodes for {selector}");
    }
    // Relabelled: the kept labels follow the update.
    let mut moved = without_managed_fields(pods[5].as_ref());
    moved.metadata.labels = Some([("app".to_string(), "moved".to_string())].into());
    compact.indexer().update(Arc::new(moved)).unwrap();
    let selector: Selector = [("app", "moved")].into_iter().collect();
    let before = decoded();
    assert_eq!(names(compact.list(&selector)), ["obj-5"]);
    assert_eq!(decoded() - before, 1);
    let old: Selector = [("app", "app-5")].into_iter().collect();
    assert!(!names(compact.namespaced("ns-2").list(&old)).contains(&"obj-5".to_string()));
}
