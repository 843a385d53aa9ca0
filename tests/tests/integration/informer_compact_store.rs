//! A factory built with `.compact_store()` (issue 18) syncs, answers its generated listers,
//! delivers add/update/delete events and `DeletedFinalStateUnknown` tombstones exactly as a
//! typed-store factory does (with managedFields dropped, which the compact store implies)
//! (client-go: informers/factory.go + listers, shared_informer.go's notifications,
//! delta_fifo.go Replace's tombstones after a relist on "too old resource version").

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use kube_informers::{NAMESPACE_INDEX, Selector, SharedInformerFactory};
use kube_informers_testkit::SeedKind;
use kube_informers_tests::{Event, Outage, Recorder, Seen, eventually, key_of, on_both_servers};
use tokio::sync::mpsc::UnboundedReceiver;

fn sorted(mut pods: Vec<Arc<Pod>>) -> Vec<Arc<Pod>> {
    pods.sort_by_key(|p| key_of(p.as_ref()));
    pods
}

/// Every event received so far, per key (the order across keys is the arrival order of
/// each informer's own deltas, which two informers need not share; per key it is fixed).
fn drain(events: &mut UnboundedReceiver<Event<Pod>>, into: &mut BTreeMap<String, Vec<Seen<Pod>>>) {
    while let Ok(event) = events.try_recv() {
        into.entry(event.key()).or_default().push(event.seen());
    }
}

on_both_servers! {
async fn compact_store_factory_matches_the_typed_store(server) {
    server.seed(SeedKind::Pods, "prod", 40).await.unwrap();
    let admin = server.client().unwrap();
    let outage = Outage::prepare(&server).await;
    let compact = SharedInformerFactory::builder(outage.client(&server)).compact_store().build();
    let typed =
        SharedInformerFactory::builder(outage.client(&server)).strip_managed_fields().build();
    let compact_pods = compact.core().v1().pods();
    let typed_pods = typed.core().v1().pods();
    assert!(compact_pods.informer().get_indexer().is_compact());
    assert!(!typed_pods.informer().get_indexer().is_compact());
    let (recorder, mut compact_events) = Recorder::new();
    compact_pods.informer().add_event_handler(recorder).unwrap();
    let (recorder, mut typed_events) = Recorder::new();
    typed_pods.informer().add_event_handler(recorder).unwrap();
    compact.start();
    typed.start();
    for factory in [&compact, &typed] {
        let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(60)).await;
        assert!(synced.values().all(|ok| *ok), "{synced:?}");
    }

    // Listers: everything, one namespace, a selector, get, the namespace index.
    let (cl, tl) = (compact_pods.lister(), typed_pods.lister());
    let all = Selector::default();
    assert_eq!(sorted(cl.list(&all)).len(), 40);
    assert_eq!(sorted(cl.list(&all)), sorted(tl.list(&all)));
    assert!(cl.list(&all).iter().all(|p| p.metadata.managed_fields.is_none()));
    let app: Selector = [("app", "app-3")].into_iter().collect();
    assert_eq!(sorted(cl.pods("prod").list(&app)), sorted(tl.pods("prod").list(&app)));
    let names: Vec<String> =
        tl.list(&all).iter().map(|p| p.metadata.name.clone().unwrap()).collect();
    for name in &names {
        assert_eq!(cl.pods("prod").get(name), tl.pods("prod").get(name));
    }
    let (ci, ti) = (compact_pods.informer().get_indexer(), typed_pods.informer().get_indexer());
    assert_eq!(
        sorted(ci.by_index(NAMESPACE_INDEX, "prod").unwrap()),
        sorted(ti.by_index(NAMESPACE_INDEX, "prod").unwrap())
    );

    // Events: an update, a delete, while watching.
    let api = Api::<Pod>::namespaced(admin.clone(), "prod");
    let patch = serde_json::json!({"metadata": {"labels": {"touched": "yes"}}});
    api.patch(&names[0], &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    api.delete(&names[1], &DeleteParams::default().grace_period(0)).await.unwrap();
    // Both informers see the update and the delete on their watches before the link goes
    // down: one that missed them would learn of them from the relist instead (a tombstone
    // for the delete, one update fewer), and the two notification streams would differ by
    // timing, not by store.
    let (patched, deleted) = (format!("prod/{}", names[0]), format!("prod/{}", names[1]));
    eventually(Duration::from_secs(30), "both informers watch the update and the delete", || {
        let seen = [&ci, &ti].iter().all(|ix| {
            ix.get_by_key(&deleted).is_none()
                && ix.get_by_key(&patched).is_some_and(|p| {
                    p.metadata.labels.as_ref().is_some_and(|l| l.contains_key("touched"))
                })
        });
        async move { seen }
    })
    .await;
    // A delete missed while the watch is down, and a relist: a tombstone.
    outage.begin(&server);
    api.delete(&names[2], &DeleteParams::default().grace_period(0)).await.unwrap();
    server.expire_history().await.unwrap();
    outage.end(&server);
    outage.expire_next_watch(&server);

    let expected = {
        let mut expected: Vec<String> =
            api.list(&Default::default()).await.unwrap().items.iter().map(key_of).collect();
        expected.sort();
        expected
    };
    let (mut from_compact, mut from_typed) = (BTreeMap::new(), BTreeMap::new());
    eventually(Duration::from_secs(60), "both informers converge", || {
        drain(&mut compact_events, &mut from_compact);
        drain(&mut typed_events, &mut from_typed);
        let keys = |ix: &kube_informers::Indexer<Pod>| {
            let mut keys = ix.list_keys();
            keys.sort();
            keys
        };
        let tombstoned = |seen: &BTreeMap<String, Vec<Seen<Pod>>>| {
            seen.get(&format!("prod/{}", names[2]))
                .is_some_and(|v| matches!(v.last(), Some(Seen::Delete(_, Some(_)))))
        };
        let done = keys(&ci) == expected
            && keys(&ti) == expected
            && tombstoned(&from_compact)
            && tombstoned(&from_typed);
        async move { done }
    })
    .await;
    assert_eq!(sorted(cl.list(&all)), sorted(tl.list(&all)));
    // The same notifications per key, objects included: the update's old object and the
    // tombstone's last known state come from the compact store, decoded.
    let differing: Vec<&String> = from_compact
        .keys()
        .chain(from_typed.keys())
        .filter(|k| from_compact.get(*k) != from_typed.get(*k))
        .collect();
    assert!(differing.is_empty(), "notifications differ for {differing:?}");
    assert_eq!(from_compact, from_typed);
    let updated = &from_compact[&format!("prod/{}", names[0])];
    assert!(
        matches!(updated.last(), Some(Seen::Update(old, new))
            if old.metadata.labels.as_ref().unwrap().get("touched").is_none()
                && new.metadata.labels.as_ref().unwrap()["touched"] == "yes"),
        "{updated:?}"
    );
    assert!(matches!(
        from_compact[&format!("prod/{}", names[1])].last(),
        Some(Seen::Delete(_, None))
    ));
    let stats = ci.compact_stats().unwrap();
    assert_eq!(stats.objects, expected.len());
    compact.shutdown().await;
    typed.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}

/// The next `on_update` for `key`, skipping other callbacks.
async fn next_update(events: &mut UnboundedReceiver<Event<Pod>>, key: &str) -> Arc<Pod> {
    let wait = async {
        loop {
            match events.recv().await {
                Some(Event::Update(_, new)) if key_of(new.as_ref()) == key => return new,
                Some(_) => {}
                None => panic!("the recorder was dropped before an update of {key}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(60), wait)
        .await
        .unwrap_or_else(|_| panic!("no update of {key} within 60 s"))
}

// The decoded cache of a compact store holds what is read: a watch event's object (a
// controller reads it next) and the keys read twice, which a relist refreshes. A list's or a
// resync's objects go in only for keys already cached: thousands of listed objects, each read
// at most once by a controller's first pass, would otherwise pass through the cache and keep
// its budget of decoded objects alive during every sync (BENCH.md, "The decoded cache during a
// sync").
on_both_servers! {
async fn a_compact_informer_caches_watched_and_read_objects_not_listed_ones(server) {
    server.seed(SeedKind::Pods, "prod", 20).await.unwrap();
    let admin = server.client().unwrap();
    let outage = Outage::prepare(&server).await;
    let factory = SharedInformerFactory::builder(outage.client(&server)).compact_store().build();
    let pods = factory.core().v1().pods();
    let (recorder, mut events) = Recorder::new();
    pods.informer().add_event_handler(recorder).unwrap();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(60)).await;
    assert!(synced.values().all(|ok| *ok), "{synced:?}");
    let indexer = pods.informer().get_indexer();
    let stats = || indexer.compact_stats().unwrap();
    assert_eq!(stats().objects, 20);
    assert_eq!(stats().cached_objects, 0, "the initial list's objects are not cached");

    let mut keys = indexer.list_keys();
    keys.sort();
    let name = |key: &str| key.split_once('/').unwrap().1.to_owned();
    let (read, watched, relisted) = (&keys[0], &keys[1], &keys[keys.len() - 1]);
    let lister = pods.lister();
    // Read twice: cached (the doorkeeper admits a key on its second read).
    let _ = lister.pods("prod").get(&name(read)).unwrap();
    let _ = lister.pods("prod").get(&name(read)).unwrap();
    assert_eq!(stats().cached_objects, 1);

    // A watch event's object is cached as the handlers received it.
    let api = Api::<Pod>::namespaced(admin.clone(), "prod");
    let touch = |value: &str| Patch::Merge(serde_json::json!({"metadata": {"labels": {"touched": value}}}));
    api.patch(&name(watched), &PatchParams::default(), &touch("watch")).await.unwrap();
    let handed = next_update(&mut events, watched).await;
    assert_eq!(stats().cached_objects, 2);
    let decoded = stats().decoded;
    assert!(Arc::ptr_eq(&lister.pods("prod").get(&name(watched)).unwrap(), &handed));
    assert_eq!(stats().decoded, decoded, "read from the cache");

    // A relist: the last key in list order changed meanwhile, so its update is the relist's
    // last notification, after the store took every listed object.
    outage.begin(&server);
    api.patch(&name(relisted), &PatchParams::default(), &touch("relist")).await.unwrap();
    server.expire_history().await.unwrap();
    outage.end(&server);
    outage.expire_next_watch(&server);
    let relisted_obj = next_update(&mut events, relisted).await;
    assert_eq!(relisted_obj.metadata.labels.as_ref().unwrap()["touched"], "relist");
    assert!(pods.informer().stats().reflector.replaces > 1, "a relist");
    assert_eq!(stats().cached_objects, 2, "the relist refreshed the cached keys and added none");
    let decoded = stats().decoded;
    for key in [read, watched] {
        let _ = lister.pods("prod").get(&name(key)).unwrap();
    }
    assert_eq!(stats().decoded, decoded, "both still read from the cache");
    let _ = lister.pods("prod").get(&name(relisted)).unwrap();
    assert_eq!(stats().decoded, decoded + 1, "the relisted object was not cached");

    factory.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}
