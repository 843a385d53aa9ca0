//! A request that goes silent (what a half-open TCP connection looks like: no data, no
//! error, no end) is abandoned once it has been silent for longer than the server could
//! have kept it so, and the informer recovers: a silent watch is resumed without a relist,
//! a silent list (no answer, or an answer that stops mid-body) is relisted.
//!
//! client-go has no such check on HTTP/1 (it relies on HTTP/2 pings) and kube's client
//! sets no read timeout by default; kube-runtime's watcher has the same idle limit on
//! watches (watcher.rs `next_with_idle_timeout`), none on lists. The chaos soak met watch
//! stalls under CPU load; issue 17 is the list that never answers during a relist.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube_informers_runtime::listwatch::WireError;
use kube_informers_runtime::reflector::{Phase, ReflectorConfig, ReflectorError};
use kube_informers_runtime::{SharedIndexInformer, TypedInformerFactory};
use kube_informers_testkit::SeedKind;
use kube_informers_testkit::TestApiServer;
use kube_informers_testkit::real::RealApiServer;
use kube_informers_tests::{Event, Recorder, init_tracing, next_event};
use parking_lot::Mutex;

/// Watches the server closes after 2 s; one silent for 3 s is abandoned.
fn short_watches(streaming_list: bool) -> ReflectorConfig {
    ReflectorConfig {
        name: "stall".into(),
        min_watch_timeout: Duration::from_secs(2),
        max_watch_timeout: Duration::from_secs(2),
        watch_idle_margin: Duration::from_secs(1),
        streaming_list,
        ..ReflectorConfig::default()
    }
}

/// The stage a reported stall hit and how long it had been silent.
fn stall(err: &ReflectorError) -> Option<(Phase, Duration)> {
    let (phase, source) = match err {
        ReflectorError::List(source) => (Phase::List, source),
        ReflectorError::Watch(source) => (Phase::Watch, source),
        ReflectorError::StreamingList(source) => (Phase::StreamingList, source),
        _ => return None,
    };
    let kube::Error::ReadEvents(io) = source else { return None };
    match io.get_ref()?.downcast_ref::<WireError>()? {
        WireError::Stalled { idle } => Some((phase, *idle)),
        _ => None,
    }
}

/// Every stall the informer reports, as it reports them.
fn record_stalls(informer: &SharedIndexInformer<ConfigMap>) -> Arc<Mutex<Vec<(Phase, Duration)>>> {
    let stalls = Arc::new(Mutex::new(Vec::new()));
    let sink = stalls.clone();
    informer
        .set_error_observer(move |err| {
            if let Some(stall) = stall(err) {
                sink.lock().push(stall);
            }
        })
        .unwrap();
    stalls
}

async fn unanswered_watch_recovers(streaming_list: bool) {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("apps", 3).unwrap();
    let client = server.client().unwrap();
    // The informer's first watch (its streaming list, in that mode) gets no answer.
    server.faults().hang_next("watch", "configmaps", 1);
    let factory = TypedInformerFactory::builder(client.clone())
        .reflector_config(short_watches(streaming_list))
        .build();
    let informer = factory.informer_for::<ConfigMap>();
    let stalls = record_stalls(&informer);
    let (recorder, mut events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(10)).await.values().all(|ok| *ok)
    );
    for _ in 0..3 {
        assert!(matches!(next_event(&mut events).await, Event::Add(_, true)));
    }

    // Made once synced, so only a working watch can deliver it: in plain mode the first
    // watch is the hung one; in streaming mode the hung stream was abandoned before sync.
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some("after-sync".into());
    Api::<ConfigMap>::namespaced(client.clone(), "apps")
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
    match next_event(&mut events).await {
        Event::Add(obj, false) => assert_eq!(obj.metadata.name.as_deref(), Some("after-sync")),
        other => panic!("expected the live add, got {other:?}"),
    }
    let phase = if streaming_list { Phase::StreamingList } else { Phase::Watch };
    assert_eq!(*stalls.lock(), [(phase, Duration::from_secs(3))], "one stall, reported once");
    let lists = server.request_count("list", "configmaps");
    if streaming_list {
        // Like any failed streaming attempt (client-go's fallbackToList), the stalled one is
        // followed by a plain list.
        assert_eq!(lists, 1, "the stalled streaming list fell back to a list");
    } else {
        assert_eq!(lists, 1, "a stalled watch resumes without a relist");
    }
    assert!(server.request_count("watch", "configmaps") >= 2);
    factory.shutdown().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswered_watch_is_abandoned_and_resumed_without_relisting() {
    unanswered_watch_recovers(false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unanswered_streaming_list_is_abandoned_and_falls_back_to_a_list() {
    unanswered_watch_recovers(true).await;
}

/// Lists silent for 1 s are abandoned.
fn short_lists() -> ReflectorConfig {
    ReflectorConfig {
        name: "list-stall".into(),
        list_idle_timeout: Duration::from_secs(1),
        ..ReflectorConfig::default()
    }
}

/// Starts an informer of the ConfigMaps in `namespace` through `client`, whose first list
/// stalls, and checks that it gives that list up, relists, and syncs with all `expected`
/// objects, reporting the stall once as a failed list.
async fn stalled_list_is_relisted(client: kube::Client, namespace: &str, expected: usize) {
    let factory = TypedInformerFactory::builder(client)
        .namespace(namespace)
        .reflector_config(short_lists())
        .build();
    let informer = factory.informer_for::<ConfigMap>();
    let stalls = record_stalls(&informer);
    factory.start();
    let synced = factory.wait_for_cache_sync_timeout(Duration::from_secs(20)).await;
    assert!(synced.values().all(|ok| *ok), "not synced: the stalled list was never given up");
    assert_eq!(informer.get_indexer().len(), expected, "every object, from the relist");
    assert_eq!(*stalls.lock(), [(Phase::List, Duration::from_secs(1))], "one list stall");
    let stats = informer.stats();
    assert_eq!(stats.reflector.list_failures, 1, "the stall counts as a failed list");
    assert_eq!(stats.reflector.list_requests, 2, "the stalled list, then the relist");
    assert_eq!(stats.reflector.replaces, 1, "only the relist reached the store");
    tracing::info!(recovered = ?stats.sync_duration, "synced after a stalled list");
    factory.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_list_that_hangs_mid_body_is_abandoned_and_relisted() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("apps", 300).unwrap();
    // The first list sends its head and half its items, then nothing.
    server.faults().hang_next_mid_body("list", "configmaps", 1);
    stalled_list_is_relisted(server.client().unwrap(), "apps", 300).await;
    assert_eq!(server.request_count("list", "configmaps"), 2);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_list_is_abandoned_and_relisted() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("apps", 3).unwrap();
    // The first list gets no answer at all, not even a status line.
    server.faults().hang_next("list", "configmaps", 1);
    stalled_list_is_relisted(server.client().unwrap(), "apps", 3).await;
    assert_eq!(server.request_count("list", "configmaps"), 2);
    server.shutdown().await;
}

/// The same against kube-apiserver: the server is real, the half-open connection is a
/// `FaultProxy` that forwards half the first list's body and then goes silent.
mod real_server {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_list_that_hangs_mid_body_is_abandoned_and_relisted() {
        init_tracing();
        let server = RealApiServer::start().await.unwrap();
        server.seed(SeedKind::ConfigMaps, "stall", 300).await.unwrap();
        let proxy = server.fault_proxy().await.unwrap();
        proxy.hang_next_lists_mid_body(1);
        stalled_list_is_relisted(proxy.client().unwrap(), "stall", 300).await;
        let lists = proxy.requests().iter().filter(|r| !r.contains("watch=")).count();
        assert_eq!(lists, 2, "{:?}", proxy.requests());
        proxy.shutdown().await;
        server.shutdown().await;
    }
}
