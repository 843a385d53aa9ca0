//! A metadata-only informer (client-go's `metadatainformer`) syncs 10,000 seeded Pods and
//! caches their metadata.

use std::time::Duration;

use kube::core::{GroupVersionResource, Selector};
use kube_informers_runtime::dynamic::MetadataSharedInformerFactory;
use kube_informers_runtime::labels;
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::init_tracing;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_informer_syncs_ten_thousand_pods() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    let seeded = server.seed().pods("bulk", 10_000).unwrap();
    let (first, _) = seeded.names.clone().expect("names");
    let pods = GroupVersionResource::gvr("", "v1", "pods");
    let factory = MetadataSharedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
    let informer = factory.for_resource(&pods);
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(120)).await;
    assert_eq!(synced, [(pods.clone(), true)].into());

    let lister = informer.lister();
    assert_eq!(lister.list(&Selector::default()).len(), 10_000);
    assert_eq!(lister.by_namespace("bulk").list(&Selector::default()).len(), 10_000);
    let pod = lister.by_namespace("bulk").get(&first).expect("first seeded pod");
    assert_eq!(pod.metadata.name.as_deref(), Some(first.as_str()));
    assert!(pod.metadata.uid.is_some() && pod.metadata.resource_version.is_some());
    // Seeded pods spread over ten `app` labels.
    let app0 = labels::parse("app=app-0").unwrap();
    assert_eq!(lister.list(&app0).len(), 1_000);
    assert_eq!(
        informer.informer().last_sync_resource_version(),
        seeded.resource_version.to_string()
    );
    factory.shutdown().await;
    server.shutdown().await;
}
