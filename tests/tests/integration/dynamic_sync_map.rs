//! `wait_for_cache_sync_timeout` reports each resource on its own: one denied with 403,
//! one healthy (client-go: dynamicinformer WaitForCacheSync returns a per-GVR map). On testkit
//! and on the real kube-apiserver (RBAC).

use std::time::Duration;

use kube::core::GroupVersionResource;
use kube_informers_runtime::dynamic::DynamicSharedInformerFactory;
use kube_informers_tests::{crd_json, on_both_servers};

on_both_servers! {
async fn sync_map_reports_the_denied_and_the_healthy_informer(server) {
    server.register_crd(&crd_json("example.com", "Widget", "widgets", true)).await.unwrap();
    server.register_crd(&crd_json("example.com", "Gadget", "gadgets", true)).await.unwrap();
    server.set_read_access("widgets.example.com", false).await.unwrap();
    server.set_read_access("gadgets.example.com", true).await.unwrap();
    let widgets = GroupVersionResource::gvr("example.com", "v1", "widgets");
    let gadgets = GroupVersionResource::gvr("example.com", "v1", "gadgets");
    let factory = DynamicSharedInformerFactory::new(server.restricted_client().unwrap(), Duration::ZERO);
    factory.for_resource(&widgets);
    factory.for_resource(&gadgets);
    factory.start();

    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(3)).await;
    assert_eq!(synced, [(widgets.clone(), false), (gadgets.clone(), true)].into());
    if let Some(testkit) = server.testkit() {
        assert!(
            testkit.request_count("list", "widgets.example.com") >= 1,
            "the denied informer did try"
        );
    }

    server.set_read_access("widgets.example.com", true).await.unwrap();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert_eq!(synced, [(widgets, true), (gadgets, true)].into(), "it syncs once allowed");
    factory.shutdown().await;
    server.shutdown().await;
}
}
