//! A metadata-only informer (client-go's `metadatainformer`) syncs thousands of seeded Pods
//! and caches their metadata. On the real kube-apiserver the list and watch answer with
//! `PartialObjectMetadata` (the `as=PartialObjectMetadataList` Accept header), not full Pods.

use std::time::Duration;

use kube::core::{GroupVersionResource, Selector};
use kube_informers_runtime::dynamic::MetadataSharedInformerFactory;
use kube_informers_runtime::labels;
use kube_informers_testkit::{SeedKind, ServerKind};
use kube_informers_tests::on_both_servers;

on_both_servers! {
async fn metadata_informer_syncs_thousands_of_pods(server) {
    // Seeding goes through the API on the real server: fewer Pods keep it quick.
    let count = if server.kind() == ServerKind::Real { 2_000 } else { 10_000 };
    let seeded = server.seed(SeedKind::Pods, "bulk", count).await.unwrap();
    let (first, _) = seeded.names.clone().expect("names");
    let pods = GroupVersionResource::gvr("", "v1", "pods");
    let factory = MetadataSharedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
    let informer = factory.for_resource(&pods);
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(120)).await;
    assert_eq!(synced, [(pods.clone(), true)].into());

    let lister = informer.lister();
    assert_eq!(lister.list(&Selector::default()).len(), count);
    assert_eq!(lister.by_namespace("bulk").list(&Selector::default()).len(), count);
    let pod = lister.by_namespace("bulk").get(&first).expect("first seeded pod");
    assert_eq!(pod.metadata.name.as_deref(), Some(first.as_str()));
    assert!(pod.metadata.uid.is_some() && pod.metadata.resource_version.is_some());
    // Seeded pods spread over ten `app` labels.
    let app0 = labels::parse("app=app-0").unwrap();
    assert_eq!(lister.list(&app0).len(), count / 10);
    // The real server also writes leases meanwhile, so its list can be newer than the seed.
    let synced_rv: u64 = informer.informer().last_sync_resource_version().parse().unwrap();
    assert!(synced_rv >= seeded.resource_version, "{synced_rv} < {}", seeded.resource_version);
    if server.kind() == ServerKind::Testkit {
        assert_eq!(synced_rv, seeded.resource_version);
    }
    factory.shutdown().await;
    server.shutdown().await;
}
}
