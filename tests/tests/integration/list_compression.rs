//! Lists ask for gzip, as client-go's do (issue 18): a list answer the server compresses
//! (kube-apiserver and testkit compress 128 KiB or more) decodes to the same objects as the
//! uncompressed answer, in JSON and in protobuf, and `disable_compression()` (on a
//! lister-watcher or a whole factory) asks for none.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use kube::Api;
use kube::api::ListParams;
use kube::core::ObjectList;
use kube_informers_runtime::{ApiListerWatcher, ListerWatcher};
use kube_informers_testkit::SeedKind;
use kube_informers_tests::on_both_servers;

/// The Pods of a list by name.
fn by_name(list: ObjectList<Pod>) -> BTreeMap<String, Pod> {
    list.items.into_iter().map(|pod| (pod.metadata.name.clone().unwrap_or_default(), pod)).collect()
}

on_both_servers! {
async fn a_compressed_list_decodes_to_the_objects_of_the_uncompressed_one(cluster) {
    // About 10 KB of JSON each: a list of 1.5 MB, well over the compression threshold.
    cluster.seed(SeedKind::Pods, "gz", 150).await.unwrap();
    let pods = Api::<Pod>::namespaced(cluster.client().unwrap(), "gz");
    let params = ListParams::default();
    let compressed = |cluster: &kube_informers_testkit::Cluster| {
        cluster.testkit().map(|testkit| testkit.compressed_count("list", "pods"))
    };
    let testkit = cluster.testkit().is_some();

    let plain = ApiListerWatcher::new(pods.clone()).disable_compression().list(&params).await.unwrap();
    assert_eq!(plain.items.len(), 150);
    assert_eq!(compressed(&cluster), testkit.then_some(0), "disable_compression asks for none");

    let gzip = ApiListerWatcher::new(pods.clone()).list(&params).await.unwrap();
    assert_eq!(compressed(&cluster), testkit.then_some(1), "a list asks for gzip by default");
    let protobuf = ApiListerWatcher::new(pods.clone()).protobuf().list(&params).await.unwrap();
    assert_eq!(compressed(&cluster), testkit.then_some(2));

    let plain = by_name(plain);
    assert_eq!(by_name(gzip), plain);
    assert_eq!(by_name(protobuf), plain);
}
}

/// A factory's informers (typed, and metadata-only by GroupVersionResource) ask for gzip,
/// unless the factory was built with `disable_compression()` (testkit counts the answers it
/// compressed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_factory_built_with_disable_compression_lists_uncompressed() {
    kube_informers_tests::init_tracing();
    let server = kube_informers_testkit::TestApiServer::start().await.unwrap();
    server.seed().pods("gz", 150).unwrap();
    let client = server.client().unwrap();
    let timeout = std::time::Duration::from_secs(30);
    let pods_gvr = kube::core::GroupVersionResource::gvr("", "v1", "pods");

    for compression in [true, false] {
        let before = server.compressed_count("list", "pods");
        let builder = kube_informers_runtime::TypedInformerFactory::builder(client.clone());
        let factory = if compression { builder } else { builder.disable_compression() }.build();
        let informer = factory.informer_for::<Pod>();
        factory.start();
        assert!(factory.wait_for_cache_sync_timeout(timeout).await.values().all(|ok| *ok));
        assert_eq!(informer.get_indexer().len(), 150);
        factory.shutdown().await;
        let expected = u64::from(compression);
        assert_eq!(
            server.compressed_count("list", "pods") - before,
            expected,
            "typed, {compression}"
        );

        let before = server.compressed_count("list", "pods");
        let builder =
            kube_informers_runtime::dynamic::MetadataSharedInformerFactory::builder(client.clone());
        let factory = if compression { builder } else { builder.disable_compression() }.build();
        let informer = factory.for_resource(&pods_gvr);
        factory.start();
        assert!(factory.wait_for_cache_sync_timeout(timeout).await.values().all(|ok| *ok));
        assert_eq!(informer.lister().list(&kube::core::Selector::default()).len(), 150);
        factory.shutdown().await;
        assert_eq!(
            server.compressed_count("list", "pods") - before,
            expected,
            "metadata, {compression}"
        );
    }
    server.shutdown().await;
}
