//! The opt-in streaming-list mode syncs from a watch with `sendInitialEvents=true`, and falls
//! back to a plain list when the server refuses it (client-go: reflector.go watchList and
//! its fallback, reflector_watchlist_test.go).

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube_informers_runtime::{SharedInformerFactory, reflector::ReflectorConfig};
use kube_informers_testkit::{InjectedFailure, TestApiServer};
use kube_informers_tests::{cache_model, init_tracing};

fn streaming() -> ReflectorConfig {
    ReflectorConfig { streaming_list: true, ..ReflectorConfig::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_list_syncs_without_a_list_request() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("stream", 700).unwrap();
    let client = server.client().unwrap();
    let factory =
        SharedInformerFactory::builder(client.clone()).reflector_config(streaming()).build();
    let informer = factory.informer_for::<ConfigMap>();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    assert_eq!(informer.get_indexer().len(), 700);
    assert_eq!(server.request_count("list", "configmaps"), 0, "streaming mode must not list");
    assert!(server.request_count("watch", "configmaps") >= 1);
    let listed = kube::Api::<ConfigMap>::all(client).list(&Default::default()).await.unwrap();
    let listed: Vec<_> = listed.items.into_iter().map(std::sync::Arc::new).collect();
    assert_eq!(cache_model(&informer.get_indexer().list()), cache_model(&listed));
    factory.shutdown().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_list_falls_back_to_a_list_when_refused() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("stream", 50).unwrap();
    // A server that rejects the streaming parameters answers the first watch with 422.
    server.fail_next("watch", "configmaps", 1, InjectedFailure { code: 422, retry_after: None });
    let factory = SharedInformerFactory::builder(server.client().unwrap())
        .reflector_config(streaming())
        .build();
    let informer = factory.informer_for::<ConfigMap>();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    assert_eq!(informer.get_indexer().len(), 50);
    assert!(server.request_count("list", "configmaps") >= 1, "the fallback lists");
    factory.shutdown().await;
    server.shutdown().await;
}
