//! A watch request that never gets an answer (what a half-open TCP connection looks like:
//! no data, no error, no end) is abandoned once it has been silent for longer than the
//! server could have kept it open, and the informer catches up without a relist.
//!
//! client-go has no such check on HTTP/1 (it relies on HTTP/2 pings) and kube's client
//! sets no read timeout by default; kube-runtime's watcher has the same idle limit
//! (watcher.rs `next_with_idle_timeout`). The chaos soak met such stalls under CPU load.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_runtime::listwatch::WireError;
use kube_informers_runtime::reflector::{ReflectorConfig, ReflectorError};
use kube_informers_testkit::TestApiServer;
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

fn stalled_for(err: &ReflectorError) -> Option<Duration> {
    let (ReflectorError::Watch(kube::Error::ReadEvents(io))
    | ReflectorError::StreamingList(kube::Error::ReadEvents(io))) = err
    else {
        return None;
    };
    match io.get_ref()?.downcast_ref::<WireError>()? {
        WireError::Stalled { idle } => Some(*idle),
        _ => None,
    }
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
    let stalls = Arc::new(Mutex::new(Vec::new()));
    let sink = stalls.clone();
    informer
        .set_error_observer(move |err| {
            if let Some(idle) = stalled_for(err) {
                sink.lock().push(idle);
            }
        })
        .unwrap();
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
    assert_eq!(*stalls.lock(), [Duration::from_secs(3)], "one stall, reported once");
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
