//! Lists ask for gzip, as client-go's do (issue 18): a list answer the server compresses
//! (kube-apiserver and testkit compress 128 KiB or more) decodes to the same objects as the
//! uncompressed answer, in JSON and in protobuf, and `disable_compression()` asks for none.

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
