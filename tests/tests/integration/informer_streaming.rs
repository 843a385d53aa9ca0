//! The opt-in streaming-list mode syncs from a watch with `sendInitialEvents=true`, and falls
//! back to a plain list when the attempt fails (client-go: reflector.go watchList and the
//! `fallbackToList` of ListAndWatchWithContext, reflector_watchlist_test.go). On testkit and
//! on the real kube-apiserver; the refusals the real server cannot be made to send come from
//! a proxy in front of it.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube_informers_runtime::{TypedInformerFactory, reflector::ReflectorConfig};
use kube_informers_testkit::real::{FaultProxy, RealApiServer};
use kube_informers_testkit::{InjectedFailure, SeedKind};
use kube_informers_tests::{cache_model, init_tracing, on_both_servers};

fn streaming() -> ReflectorConfig {
    ReflectorConfig { streaming_list: true, ..ReflectorConfig::default() }
}

on_both_servers! {
async fn streaming_list_syncs_without_a_list_request(server) {
    server.seed(SeedKind::ConfigMaps, "stream", 700).await.unwrap();
    let client = server.client().unwrap();
    let factory =
        TypedInformerFactory::builder(client.clone()).reflector_config(streaming()).build();
    let informer = factory.informer_for::<ConfigMap>();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    if let Some(testkit) = server.testkit() {
        assert_eq!(testkit.request_count("list", "configmaps"), 0, "streaming mode must not list");
        assert!(testkit.request_count("watch", "configmaps") >= 1);
    }
    let listed = kube::Api::<ConfigMap>::all(client).list(&Default::default()).await.unwrap();
    let listed: Vec<_> = listed.items.into_iter().map(std::sync::Arc::new).collect();
    assert_eq!(cache_model(&informer.get_indexer().list()), cache_model(&listed));
    factory.shutdown().await;
    server.shutdown().await;
}
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streaming_list_falls_back_to_a_list_when_refused() {
    init_tracing();
    let server = kube_informers_testkit::TestApiServer::start().await.unwrap();
    server.seed().config_maps("stream", 50).unwrap();
    // A server that rejects the streaming parameters answers the first watch with 422.
    server.fail_next("watch", "configmaps", 1, InjectedFailure { code: 422, retry_after: None });
    let factory = TypedInformerFactory::builder(server.client().unwrap())
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

/// Real-server halves of the fallback: the server itself is real, the refusal comes from a
/// [`FaultProxy`] between the informer and the server.
mod real_server {
    use super::*;

    /// 50 ConfigMaps in `stream` and a proxy whose client the informer uses.
    async fn seeded() -> (RealApiServer, FaultProxy) {
        init_tracing();
        let server = RealApiServer::start().await.unwrap();
        server.seed(SeedKind::ConfigMaps, "stream", 50).await.unwrap();
        let proxy = server.fault_proxy().await.unwrap();
        (server, proxy)
    }

    /// Syncs a streaming informer through `proxy` and checks it holds the 50 ConfigMaps.
    async fn syncs_through(proxy: &FaultProxy, config: ReflectorConfig, within: Duration) {
        let factory = TypedInformerFactory::builder(proxy.client().unwrap())
            .namespace("stream")
            .reflector_config(config)
            .build();
        let informer = factory.informer_for::<ConfigMap>();
        factory.start();
        let synced = factory.wait_for_cache_sync_timeout(within).await;
        assert!(synced.values().all(|ok| *ok), "not synced within {within:?}");
        assert_eq!(informer.get_indexer().len(), 50);
        factory.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn streaming_list_answered_with_an_error_event_falls_back_to_a_list() {
        // kube-apiserver on an etcd without watch progress answers every streaming list with
        // a 500 ERROR event; client-go falls back to a LIST. Before the fallback we retried
        // the stream forever and never synced.
        let (server, proxy) = seeded().await;
        proxy.refuse_streaming_lists(true);
        syncs_through(&proxy, streaming(), Duration::from_secs(20)).await;
        proxy.shutdown().await;
        server.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn streaming_list_without_its_end_bookmark_falls_back_to_a_list() {
        // A proxy that drops the initial-events-end bookmark (k9s #4186): the server closes
        // the stream at its timeout (3 s here), and the reflector lists instead.
        let (server, proxy) = seeded().await;
        proxy.drop_initial_events_end(true);
        let config = ReflectorConfig {
            min_watch_timeout: Duration::from_secs(3),
            max_watch_timeout: Duration::from_secs(3),
            watch_idle_margin: Duration::from_secs(1),
            ..streaming()
        };
        syncs_through(&proxy, config, Duration::from_secs(20)).await;
        proxy.shutdown().await;
        server.shutdown().await;
    }
}
