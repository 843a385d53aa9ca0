//! Measurement, not assertion: heap held per cached Pod by a metadata-only informer and by
//! the full typed informer, in the same run. Run with
//! `cargo nextest run -p kube-informers-tests --run-ignored only -E 'binary(dynamic_memory)' --no-capture`.
//!
//! A counting global allocator sees every allocation of the process (the in-process test
//! server included), so each informer's share is measured as what its caches give back
//! when the factory is shut down and dropped.

use std::alloc::System;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::Api;
use kube::core::GroupVersionResource;
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_runtime::dynamic::MetadataSharedInformerFactory;
use kube_informers_runtime::store::{Indexer, namespace_indexers};
use kube_informers_testkit::TestApiServer;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const PODS: usize = 10_000;

/// Bytes currently allocated by the whole process.
fn live_bytes() -> i128 {
    let stats = GLOBAL.stats();
    // Reallocations are already counted in both totals.
    stats.bytes_allocated as i128 - stats.bytes_deallocated as i128
}

/// What a synced metadata-only Pod informer gives back when dropped.
async fn metadata_informer_heap(server: &TestApiServer, strip_managed_fields: bool) -> i128 {
    let mut builder = MetadataSharedInformerFactory::builder(server.client().unwrap());
    if strip_managed_fields {
        builder = builder.transform(|obj| obj.metadata.managed_fields = None);
    }
    let factory = builder.build();
    let informer = factory.for_resource(&GroupVersionResource::gvr("", "v1", "pods"));
    factory.start();
    assert!(factory.wait_for_cache_sync().await.values().all(|ok| *ok));
    assert_eq!(informer.informer().get_indexer().len(), PODS);
    factory.shutdown().await;
    let held = live_bytes();
    drop(informer);
    drop(factory);
    held - live_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: prints heap per object, asserts only that the caches filled"]
async fn heap_per_pod_metadata_vs_typed() {
    let server = TestApiServer::start().await.unwrap();
    server.seed().pods("bulk", PODS).unwrap();

    let metadata_bytes = metadata_informer_heap(&server, false).await;
    let stripped_bytes = metadata_informer_heap(&server, true).await;
    let typed_bytes = {
        let factory = TypedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
        let informer = factory.informer_for::<Pod>();
        factory.start();
        assert!(factory.wait_for_cache_sync().await.values().all(|ok| *ok));
        assert_eq!(informer.get_indexer().len(), PODS);
        factory.shutdown().await;
        let held = live_bytes();
        drop(informer);
        drop(factory);
        held - live_bytes()
    };
    let per = |bytes: i128| bytes / PODS as i128;
    println!(
        "heap held for {PODS} pods: metadata-only {} KiB ({} B/pod), metadata-only without \
         managedFields {} KiB ({} B/pod), typed Pod {} KiB ({} B/pod)",
        metadata_bytes / 1024,
        per(metadata_bytes),
        stripped_bytes / 1024,
        per(stripped_bytes),
        typed_bytes / 1024,
        per(typed_bytes),
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "measurement: prints the heap of decoded objects alone, for comparison"]
async fn heap_per_pod_decoded_and_indexed_without_an_informer() {
    let server = TestApiServer::start().await.unwrap();
    server.seed().pods("bulk", PODS).unwrap();
    let api: Api<Pod> = Api::all(server.client().unwrap());
    let start = live_bytes();
    let list = api.list_metadata(&Default::default()).await.unwrap();
    let decoded = live_bytes() - start;
    let indexer = Indexer::new(namespace_indexers());
    for item in list.items {
        indexer.add(Arc::new(item)).unwrap();
    }
    let indexed = live_bytes() - start;
    let typed_start = live_bytes();
    let typed = api.list(&Default::default()).await.unwrap();
    let typed_decoded = live_bytes() - typed_start;
    println!(
        "decoded metadata list {} B/pod, in an indexer {} B/pod; decoded typed list {} B/pod",
        decoded / PODS as i128,
        indexed / PODS as i128,
        typed_decoded / PODS as i128
    );
    assert_eq!(indexer.len() + typed.items.len(), 2 * PODS);
    server.shutdown().await;
}
