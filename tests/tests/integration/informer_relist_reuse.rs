//! A relist keeps the stored object of every object that did not change: the same `Arc`
//! before and after, so an unchanged object is held once, not twice, while the relist is
//! read (issue 18: no transient doubling during a relist). client-go decodes and keeps a
//! second, equal copy of each (reflector.go `list` then `syncWith`/`Replace`) and hands
//! `OnUpdate` two distinct objects. On testkit and on the real kube-apiserver.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, Patch, PatchParams};
use kube_informers_runtime::{ResourceEventHandlerFuncs, TypedInformerFactory};
use kube_informers_testkit::SeedKind;
use kube_informers_tests::{Outage, eventually, on_both_servers};

on_both_servers! {
async fn a_relist_keeps_the_stored_object_of_every_unchanged_object(server) {
    server.seed(SeedKind::ConfigMaps, "team", 40).await.unwrap();
    let client = server.client().unwrap();
    let outage = Outage::prepare(&server).await;
    let factory = TypedInformerFactory::builder(outage.client(&server)).namespace("team").build();
    let informer = factory.informer_for::<ConfigMap>();
    let (same, distinct) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (same2, distinct2) = (same.clone(), distinct.clone());
    informer
        .add_event_handler(ResourceEventHandlerFuncs::new().on_update(
            move |old: &Arc<ConfigMap>, new: &Arc<ConfigMap>| {
                let counter = if Arc::ptr_eq(old, new) { &same2 } else { &distinct2 };
                counter.fetch_add(1, Ordering::Relaxed);
            },
        ))
        .unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    let indexer = informer.get_indexer();
    let before: BTreeMap<String, Arc<ConfigMap>> =
        indexer.list().into_iter().map(|cm| (cm.metadata.name.clone().unwrap(), cm)).collect();
    assert_eq!(before.len(), 40);

    // One object changes while the watch is down, and the history is gone: a relist.
    outage.begin(&server);
    let api = Api::<ConfigMap>::namespaced(client, "team");
    let changed = before.keys().next().unwrap().clone();
    let patch = serde_json::json!({"data": {"changed": "yes"}});
    let patched = api.patch(&changed, &PatchParams::default(), &Patch::Merge(&patch)).await.unwrap();
    server.expire_history().await.unwrap();
    outage.end(&server);

    let key = format!("team/{changed}");
    eventually(Duration::from_secs(60), "the relist brings the change", || {
        let stored = indexer.get_by_key(&key);
        let want = patched.metadata.resource_version.clone();
        async move { stored.is_some_and(|cm| cm.metadata.resource_version == want) }
    })
    .await;

    let after = indexer.list();
    assert_eq!(after.len(), 40);
    for cm in &after {
        let name = cm.metadata.name.as_deref().unwrap();
        if name == changed {
            assert!(!Arc::ptr_eq(cm, &before[name]), "the changed object is the new one");
        } else {
            assert!(Arc::ptr_eq(cm, &before[name]), "{name} is unchanged: the stored Arc is kept");
        }
    }
    // As in client-go, an unchanged relist entry (same resourceVersion) reaches only
    // handlers due for a resync: none here. The changed object's update carries the new one.
    eventually(Duration::from_secs(10), "the changed object's update is delivered", || {
        let done = distinct.load(Ordering::Relaxed) >= 1;
        async move { done }
    })
    .await;
    assert_eq!(same.load(Ordering::Relaxed), 0);
    factory.shutdown().await;
}
}
