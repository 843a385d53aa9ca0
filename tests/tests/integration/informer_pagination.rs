//! Lists come in pages the way client-go's reflector asks for them (reflector.go `list`
//! through tools/pager, `WatchListPageSize`): the first list, at resourceVersion "0", is
//! served whole from the watch cache (kube-apiserver ignores `limit` there, and testkit
//! does too), while the consistent relist that follows a watch answered 410 Expired
//! (client-go: `isLastSyncResourceVersionUnavailable`, relist at "") comes in pages of
//! `page_size` joined by continue tokens. On both servers, counting the informer's own LIST
//! requests through the link it uses.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams};
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_runtime::reflector::ReflectorConfig;
use kube_informers_testkit::SeedKind;
use kube_informers_tests::{Outage, eventually, on_both_servers};

const OBJECTS: usize = 120;
const PAGE: u32 = 25;
const DELETED: usize = 5;

on_both_servers! {
async fn consistent_relist_after_an_expired_watch_comes_in_pages(server) {
    server.seed(SeedKind::ConfigMaps, "paged", OBJECTS).await.unwrap();
    let outage = Outage::prepare(&server).await;
    let config = ReflectorConfig { page_size: PAGE, ..ReflectorConfig::default() };
    let factory = TypedInformerFactory::builder(outage.client(&server))
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
        outage.list_requests(&server, "configmaps"),
        1,
        "the first list, at resourceVersion 0, is answered whole despite limit={PAGE}"
    );

    // Changes the watch delivers, then a watch the server refuses as too old.
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
    outage.expire_next_watch(&server);

    let pages = (OBJECTS - DELETED).div_ceil(PAGE as usize) as u64;
    eventually(Duration::from_secs(30), "the informer relists in pages", || {
        let lists = outage.list_requests(&server, "configmaps");
        async move { lists > pages }
    })
    .await;
    // Pages may not outnumber what the server holds: each continue token was followed once.
    let relist_requests = outage.list_requests(&server, "configmaps") - 1;
    assert_eq!(relist_requests, pages, "{} objects in pages of {PAGE}", OBJECTS - DELETED);
    let cache: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
    assert_eq!(cache, expected, "the relist replaced the cache with the same objects");
    factory.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}
