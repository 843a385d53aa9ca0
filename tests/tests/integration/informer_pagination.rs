//! Lists come in pages the way client-go's reflector asks for them (reflector.go `list`
//! through tools/pager, `WatchListPageSize`): the first list, at resourceVersion "0", is
//! served whole from the watch cache (kube-apiserver ignores `limit` there, and testkit
//! does too), while a relist that has to be consistent, after the watch's history expired,
//! comes in pages of `page_size` joined by continue tokens. On both servers, counting the
//! informer's own LIST requests through the link it uses.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, DeleteParams};
use kube_informers_runtime::SharedInformerFactory;
use kube_informers_runtime::reflector::ReflectorConfig;
use kube_informers_testkit::SeedKind;
use kube_informers_tests::{Outage, eventually, on_both_servers};

const OBJECTS: usize = 120;
const PAGE: u32 = 25;
const DELETED: usize = 5;

on_both_servers! {
async fn consistent_relist_after_expired_history_comes_in_pages(server) {
    server.seed(SeedKind::ConfigMaps, "paged", OBJECTS).await.unwrap();
    let outage = Outage::prepare(&server).await;
    let config = ReflectorConfig { page_size: PAGE, ..ReflectorConfig::default() };
    let factory = SharedInformerFactory::builder(outage.client(&server))
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

    // The informer misses deletes and every version it could resume from.
    outage.begin(&server);
    let api = Api::<ConfigMap>::namespaced(server.client().unwrap(), "paged");
    let deleted: Vec<String> = keys.iter().take(DELETED).cloned().collect();
    for key in &deleted {
        let name = key.split_once('/').map_or(key.as_str(), |(_, name)| name);
        api.delete(name, &DeleteParams::default()).await.unwrap();
    }
    server.expire_history().await.unwrap();
    outage.end(&server);

    let expected: BTreeSet<String> = keys.difference(&deleted.iter().cloned().collect()).cloned().collect();
    eventually(Duration::from_secs(60), "the relist removes the missed deletes", || {
        let cache: BTreeSet<String> = informer.get_indexer().list_keys().into_iter().collect();
        let expected = expected.clone();
        async move { cache == expected }
    })
    .await;
    let pages = (OBJECTS - DELETED).div_ceil(PAGE as usize) as u64;
    let relist_requests = outage.list_requests(&server, "configmaps") - 1;
    assert!(
        relist_requests >= pages,
        "the consistent relist of {} objects came in {relist_requests} requests, not {pages}+ pages of {PAGE}",
        OBJECTS - DELETED
    );
    factory.shutdown().await;
    outage.shutdown().await;
    server.shutdown().await;
}
}
