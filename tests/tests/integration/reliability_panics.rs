//! A panic in user code the informer runs (a transform, an index function) stops that
//! informer visibly instead of killing its task silently: it is stopped, says why, is
//! reported unsynced, and shutdown leaves none of its tasks or threads behind. (client-go
//! crashes the process on such a panic; a Rust library should not take the program down.)

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube_informers_runtime::store::{Indexers, index_func};
use kube_informers_runtime::{
    InformerError, ResourceEventHandlerFuncs, SharedIndexInformer, TypedInformerFactory,
};
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::{counting_threads_alone, init_tracing, listener_threads};

/// Starts `factory` with a healthy Secret informer beside `broken`, and checks what a
/// panic in `broken`'s user code leaves: a stopped informer that says why, a sync report
/// with it `false` and the other `true`, and no listener thread after shutdown.
async fn assert_stopped_by_panic(
    factory: TypedInformerFactory,
    broken: SharedIndexInformer<ConfigMap>,
    server: TestApiServer,
) {
    let baseline_threads = listener_threads();
    broken.add_event_handler(ResourceEventHandlerFuncs::new()).unwrap();
    let healthy = factory.informer_for::<Secret>();
    healthy.add_event_handler(ResourceEventHandlerFuncs::new()).unwrap();
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await;
    assert_eq!(synced.len(), 2);
    assert!(synced.iter().any(|(gvr, ok)| gvr.resource == "configmaps" && !ok), "{synced:?}");
    assert!(synced.iter().any(|(gvr, ok)| gvr.resource == "secrets" && *ok), "{synced:?}");
    assert!(broken.is_stopped());
    match broken.stop_error() {
        Some(InformerError::Panicked { message }) => {
            assert!(message.contains("user bug"), "{message}")
        }
        other => panic!("expected a panic as the stop reason, got {other:?}"),
    }
    assert!(healthy.stop_error().is_none());
    factory.shutdown().await;
    assert_eq!(listener_threads(), baseline_threads, "listener threads outlived shutdown");
    // Stopped by cancellation, not by an error.
    assert!(healthy.is_stopped() && healthy.stop_error().is_none());
    server.shutdown().await;
}

// The guard serializes the tests that count listener threads; holding it across the
// test's awaits is the point.
#[allow(clippy::await_holding_lock)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_transform_stops_the_informer_and_says_why() {
    let _alone = counting_threads_alone();
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("p", 3).unwrap();
    let factory = TypedInformerFactory::builder(server.client().unwrap())
        .transform_metadata(|meta| {
            if meta.name.as_deref().is_some_and(|name| name.ends_with('1')) {
                panic!("user bug in a transform");
            }
        })
        .build();
    let broken = factory.informer_for::<ConfigMap>();
    assert_stopped_by_panic(factory, broken, server).await;
}

// The guard serializes the tests that count listener threads; holding it across the
// test's awaits is the point.
#[allow(clippy::await_holding_lock)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_index_function_stops_the_informer_and_says_why() {
    let _alone = counting_threads_alone();
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("p", 3).unwrap();
    let factory = TypedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
    let broken = factory.informer_for::<ConfigMap>();
    let mut indexers = Indexers::new();
    indexers.insert(
        "byData".to_owned(),
        index_func(|cm: &ConfigMap| -> Vec<String> {
            if cm.metadata.name.as_deref().is_some_and(|name| name.ends_with('1')) {
                panic!("user bug in an index function");
            }
            Vec::new()
        }),
    );
    broken.add_indexers(indexers).unwrap();
    assert_stopped_by_panic(factory, broken, server).await;
}
