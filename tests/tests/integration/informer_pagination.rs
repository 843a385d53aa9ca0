//! Lists come in pages the way client-go's reflector asks for them (reflector.go `list`
//! through tools/pager, `WatchListPageSize`): the first list, at resourceVersion "0", is
//! served whole from the watch cache (kube-apiserver ignores `limit` there, and testkit
//! does too); the relist after a watch answered 410 Expired asks for the last synced
//! resourceVersion without a limit, also served whole from the watch cache (client-go's
//! watch() leaves `isLastSyncResourceVersionUnavailable` unset after a watch's expiry);
//! only when that list is refused as expired does the relist turn to a consistent read
//! (resourceVersion "") in pages of `page_size` joined by continue tokens. On both
//! servers, counting the informer's own LIST requests through the link it uses.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams};
use kube_informers_runtime::reflector::ReflectorConfig;
use kube_informers_runtime::{SharedIndexInformer, TypedInformerFactory};
use kube_informers_testkit::{Cluster, SeedKind};
use kube_informers_tests::{Outage, eventually, on_both_servers};

const OBJECTS: usize = 120;
const PAGE: u32 = 25;
const DELETED: usize = 5;

/// A synced informer over `OBJECTS` ConfigMaps in pages of `PAGE`, whose watch has then
/// delivered `DELETED` deletes. Returns the keys left.
async fn synced_then_deleted(
    server: &Cluster,
    outage: &Outage,
) -> (TypedInformerFactory, SharedIndexInformer<ConfigMap>, BTreeSet<String>) {
    server.seed(SeedKind::ConfigMaps, "paged", OBJECTS).await.unwrap();
    let config = ReflectorConfig { page_size: PAGE, ..ReflectorConfig::default() };
    let factory = TypedInformerFactory::builder(outage.client(server))
        .namespace("paged")
        .reflector_config(config)
        .build();
    let informer = factory.informer_for::<ConfigMap>();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    let keys: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
    assert_eq!(keys.len(), OBJECTS);
    assert_eq!(
        outage.list_requests(server, "configmaps"),
        1,
        "the first list, at resourceVersion 0, is answered whole despite limit={PAGE}"
    );

    let api = Api::<ConfigMap>::namespaced(server.client().unwrap(), "paged");
    let deleted: BTreeSet<String> = keys.iter().take(DELETED).cloned().collect();
    for key in &deleted {
        let name = key.split_once('/').map_or(key.as_str(), |(_, name)| name);
        api.delete(name, &DeleteParams::default()).await.unwrap();
    }
    let expected: BTreeSet<String> = keys.difference(&deleted).cloned().collect();
    eventually(Duration::from_secs(30), "the watch delivers the deletes", || {
        let cache: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
        let expected = expected.clone();
        async move { cache == expected }
    })
    .await;
    (factory, informer, expected)
}

on_both_servers! {
async fn relist_after_an_expired_watch_is_one_whole_list_at_the_last_resource_version(server) {
    let outage = Outage::prepare(&server).await;
    let (factory, informer, expected) = synced_then_deleted(&server, &outage).await;
    let synced_at = informer.last_sync_resource_version();
    outage.expire_next_watch(&server);

    eventually(Duration::from_secs(30), "the informer relists", || {
        let replaced = informer.stats().reflector.replaces;
        async move { replaced > 1 }
    })
    .await;
    assert_eq!(outage.list_requests(&server, "configmaps"), 2, "one relist request, whole");
    if let Some(queries) = outage.list_queries(&server, "configmaps") {
        let relist: Vec<(&str, &str)> =
            queries[1].split('&').filter_map(|pair| pair.split_once('=')).collect();
        assert!(!relist.iter().any(|(name, _)| *name == "limit"), "no limit: {relist:?}");
        let at = relist.iter().find(|(name, _)| *name == "resourceVersion").map(|(_, rv)| *rv);
        let (at, synced_at) = (at.and_then(|rv| rv.parse::<u64>().ok()), synced_at.parse::<u64>());
        assert!(
            matches!((at, synced_at), (Some(at), Ok(synced)) if at >= synced),
            "at the last synced version: {relist:?}"
        );
    }
    let cache: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
    assert_eq!(cache, expected, "the relist replaced the cache with the same objects");
    factory.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}

on_both_servers! {
async fn consistent_relist_comes_in_pages_when_the_last_resource_version_is_refused(server) {
    let outage = Outage::prepare(&server).await;
    let (factory, informer, expected) = synced_then_deleted(&server, &outage).await;
    outage.expire_next_list(&server);
    outage.expire_next_watch(&server);

    // The refused list at the last version, then the consistent read in pages.
    let pages = (OBJECTS - DELETED).div_ceil(PAGE as usize) as u64;
    eventually(Duration::from_secs(30), "the informer relists in pages", || {
        let replaced = informer.stats().reflector.replaces;
        async move { replaced > 1 }
    })
    .await;
    // Pages may not outnumber what the server holds: each continue token was followed once.
    let relist_requests = outage.list_requests(&server, "configmaps") - 2;
    assert_eq!(relist_requests, pages, "{} objects in pages of {PAGE}", OBJECTS - DELETED);
    let cache: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
    assert_eq!(cache, expected, "the relist replaced the cache with the same objects");
    factory.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}
