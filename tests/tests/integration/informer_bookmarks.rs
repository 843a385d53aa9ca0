//! Bookmarks advance the informer's last-synced resourceVersion without events, and a
//! watch that closes resumes from that version without a relist (client-go:
//! reflector_test.go TestReflectorWatchListBookmark / TestReflectorResumesWatch-style).
//!
//! Testkit only, deliberately: the test needs bookmarks within seconds and a watch dropped
//! by the server while the informer's resourceVersion is still resumable. kube-apiserver
//! sends bookmarks about once a minute (its watch cache decides when; no flag shortens it),
//! so waiting for one would make the test take minutes and its timing depend on the
//! server, and the real server has no `faults().drop_watches()`: cutting a proxy would
//! drop every connection, not just the watch, and asserting "no relist" there needs request
//! counts that only testkit keeps. A real-server half would have to drop those assertions,
//! which is the point of the test, so there is none.

use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, PostParams};
use kube_informers_runtime::TypedInformerFactory;
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::{Event, Recorder, eventually, init_tracing, next_event};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookmarks_advance_the_resource_version_and_resumes_do_not_relist() {
    init_tracing();
    let server = TestApiServer::builder()
        .bookmark_interval(Duration::from_millis(100))
        .start()
        .await
        .unwrap();
    server.seed().config_maps("apps", 20).unwrap();
    let client = server.client().unwrap();
    let factory = TypedInformerFactory::new(client.clone(), Duration::ZERO);
    let informer = factory.informer_for::<ConfigMap>();
    let (recorder, mut events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    for _ in 0..20 {
        assert!(matches!(next_event(&mut events).await, Event::Add(_, true)));
    }
    let synced_rv: u64 = informer.last_sync_resource_version().parse().unwrap();

    // A change to another resource moves the server's resourceVersion; only a bookmark
    // can tell the ConfigMap informer about it.
    let mut secret = Secret::default();
    secret.metadata.name = Some("unrelated".into());
    Api::<Secret>::namespaced(client.clone(), "apps")
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();
    let server_rv = server.resource_version();
    assert!(server_rv > synced_rv);
    eventually(Duration::from_secs(10), "a bookmark advances the last synced RV", || {
        let rv: u64 = informer.last_sync_resource_version().parse().unwrap_or(0);
        async move { rv >= server_rv }
    })
    .await;
    assert!(events.try_recv().is_err(), "bookmarks reach no handler");

    // A dropped watch resumes from the bookmarked RV: no relist, and no event is lost.
    let lists = server.request_count("list", "configmaps");
    let watches = server.request_count("watch", "configmaps");
    server.faults().drop_watches();
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some("after-drop".into());
    Api::<ConfigMap>::namespaced(client.clone(), "apps")
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
    match next_event(&mut events).await {
        Event::Add(obj, false) => assert_eq!(obj.metadata.name.as_deref(), Some("after-drop")),
        other => panic!("expected the live add, got {other:?}"),
    }
    assert!(server.request_count("watch", "configmaps") > watches, "the watch was re-opened");
    assert_eq!(
        server.request_count("list", "configmaps"),
        lists,
        "a resumed watch must not relist"
    );
    factory.shutdown().await;
    server.shutdown().await;
}
