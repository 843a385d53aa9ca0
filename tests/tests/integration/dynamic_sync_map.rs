//! `wait_for_cache_sync_timeout` reports each resource on its own: one denied with 403,
//! one healthy (client-go: dynamicinformer WaitForCacheSync returns a per-GVR map).

use std::time::Duration;

use kube::core::GroupVersionResource;
use kube_informers_runtime::dynamic::DynamicSharedInformerFactory;
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::{crd_json, init_tracing};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_map_reports_the_denied_and_the_healthy_informer() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.register_crd(&crd_json("example.com", "Widget", "widgets", true)).unwrap();
    server.register_crd(&crd_json("example.com", "Gadget", "gadgets", true)).unwrap();
    server.deny("widgets.example.com");
    let widgets = GroupVersionResource::gvr("example.com", "v1", "widgets");
    let gadgets = GroupVersionResource::gvr("example.com", "v1", "gadgets");
    let factory = DynamicSharedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
    factory.for_resource(&widgets);
    factory.for_resource(&gadgets);
    factory.start();

    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(3)).await;
    assert_eq!(synced, [(widgets.clone(), false), (gadgets.clone(), true)].into());
    assert!(
        server.request_count("list", "widgets.example.com") >= 1,
        "the denied informer did try"
    );

    server.allow("widgets.example.com");
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert_eq!(synced, [(widgets, true), (gadgets, true)].into(), "it syncs once allowed");
    factory.shutdown().await;
    server.shutdown().await;
}
