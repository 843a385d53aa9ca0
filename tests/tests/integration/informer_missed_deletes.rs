//! Deletes that happen while the watch is down, and whose events are compacted away, reach
//! handlers as `DeletedFinalStateUnknown` tombstones after the relist (client-go:
//! delta_fifo.go Replace + shared_informer_test.go TestSharedInformerMissedDeletes-style
//! behaviour, reflector.go's relist on "too old resource version"). On testkit (failed
//! watches, compacted history) and on the real kube-apiserver (a partition between the
//! informer and the server, etcd compacted, the apiserver restarted with a fresh watch cache).

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams, PostParams};
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_testkit::SeedKind;
use kube_informers_tests::{
    CallbackModel, Event, Outage, Recorder, cache_model, eventually, on_both_servers,
};

on_both_servers! {
async fn missed_deletes_become_tombstones_after_relist(server) {
    server.seed(SeedKind::ConfigMaps, "team", 40).await.unwrap();
    let client = server.client().unwrap();
    let outage = Outage::prepare(&server).await;
    let factory = TypedInformerFactory::builder(outage.client(&server)).namespace("team").build();
    let informer = factory.informer_for::<ConfigMap>();
    let (recorder, mut events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    let lists_before = server.testkit().map(|testkit| testkit.request_count("list", "configmaps"));

    // Take the watch down and keep it down while the server changes.
    outage.begin(&server);
    let api = Api::<ConfigMap>::namespaced(client.clone(), "team");
    let names: Vec<String> = api
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .iter()
        .map(|cm| cm.metadata.name.clone().unwrap())
        .collect();
    let deleted: BTreeSet<String> = names.iter().take(10).cloned().collect();
    for name in &deleted {
        api.delete(name, &DeleteParams::default()).await.unwrap();
    }
    let mut extra = ConfigMap::default();
    extra.metadata.name = Some("created-while-down".into());
    api.create(&PostParams::default(), &extra).await.unwrap();
    // Nothing the informer could replay is left: it must relist.
    server.expire_history().await.unwrap();
    outage.end(&server);

    let mut model = CallbackModel::default();
    let server_state = || async {
        cache_model(
            &api.list(&Default::default())
                .await
                .unwrap()
                .items
                .into_iter()
                .map(std::sync::Arc::new)
                .collect::<Vec<_>>(),
        )
    };
    let expected = server_state().await;
    eventually(Duration::from_secs(60), "cache converges to the server", || {
        let cache = cache_model(&informer.get_indexer().list());
        let expected = expected.clone();
        async move { cache == expected }
    })
    .await;
    if let (Some(testkit), Some(before)) = (server.testkit(), lists_before) {
        assert!(testkit.request_count("list", "configmaps") > before, "the informer relisted");
    }

    // Every callback, initial list included, rebuilds exactly the server state, and the
    // deletes arrived as tombstones for exactly the missed keys.
    eventually(Duration::from_secs(10), "handler converges", || {
        while let Ok(event) = events.try_recv() {
            if let Event::Delete(gone) = &event {
                assert!(gone.is_tombstone(), "a missed delete must arrive as a tombstone");
            }
            model.apply(&event);
        }
        let done = model.objects == expected;
        async move { done }
    })
    .await;
    let tombstoned: BTreeSet<String> =
        model.tombstones.keys().map(|key| key.trim_start_matches("team/").to_string()).collect();
    assert_eq!(tombstoned, deleted);
    assert!(model.tombstones.values().all(|n| *n == 1));
    factory.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}
