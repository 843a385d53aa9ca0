//! Handler faults: a panicking handler is isolated; a handler blocked on a channel delays
//! neither the other handlers nor the lister; its backlog is visible through
//! `registration.pending()` (client-go: shared_informer.go processorListener, where each
//! listener has its own goroutine and an unbounded buffer).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube_informers_runtime::{ResourceEventHandlerFuncs, TypedInformerFactory};
use kube_informers_testkit::TestApiServer;
use kube_informers_tests::{Event, Recorder, eventually, init_tracing, next_event};

async fn create(api: &Api<ConfigMap>, name: &str) {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.into());
    api.create(&PostParams::default(), &cm).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_is_isolated() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("h", 5).unwrap();
    let client = server.client().unwrap();
    let factory = TypedInformerFactory::new(client.clone(), Duration::ZERO);
    let informer = factory.informer_for::<ConfigMap>();
    let panics = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&panics);
    let bad = informer
        .add_event_handler(ResourceEventHandlerFuncs::new().on_add(move |_: &Arc<ConfigMap>, _| {
            counted.fetch_add(1, Ordering::SeqCst);
            panic!("handler bug");
        }))
        .unwrap();
    let (recorder, mut events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );
    for _ in 0..5 {
        assert!(matches!(next_event(&mut events).await, Event::Add(_, true)));
    }
    // The panicking handler keeps receiving (each panic is contained, not fatal to it) and
    // the others and the cache are unaffected.
    let api = Api::<ConfigMap>::namespaced(client, "h");
    create(&api, "after-panics").await;
    let event = next_event(&mut events).await;
    assert_eq!(event.key(), "h/after-panics");
    // The handler counts before it panics, and a notification stays pending until its
    // panic has unwound: wait for both, or the count can be read a moment too early.
    eventually(Duration::from_secs(10), "every add reached the panicking handler", || {
        let (n, pending) = (panics.load(Ordering::SeqCst), bad.pending());
        async move { n == 6 && pending == 0 }
    })
    .await;
    assert_eq!(informer.get_indexer().len(), 6);
    factory.shutdown().await;
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_handler_delays_neither_others_nor_the_lister() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    let client = server.client().unwrap();
    let factory = TypedInformerFactory::new(client.clone(), Duration::ZERO);
    let informer = factory.informer_for::<ConfigMap>();
    let (release, gate) = std::sync::mpsc::channel::<()>();
    let gate = parking_lot::Mutex::new(gate);
    let handled = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&handled);
    let slow = informer
        .add_event_handler(ResourceEventHandlerFuncs::new().on_add(move |_: &Arc<ConfigMap>, _| {
            // Blocks until the test releases it, one notification per message.
            let _ = gate.lock().recv();
            counted.fetch_add(1, Ordering::SeqCst);
        }))
        .unwrap();
    let (recorder, mut events) = Recorder::new();
    informer.add_event_handler(recorder).unwrap();
    factory.start();
    assert!(
        factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok)
    );

    let api = Api::<ConfigMap>::namespaced(client, "h");
    for i in 0..10 {
        let name = format!("cm-{i}");
        create(&api, &name).await;
        // The fast handler and the lister see each object while the slow one is stuck.
        assert_eq!(next_event(&mut events).await.key(), format!("h/{name}"));
        assert!(informer.get_indexer().get_by_key(&format!("h/{name}")).is_some());
    }
    assert_eq!(handled.load(Ordering::SeqCst), 0, "the slow handler is still blocked");
    // One notification is being handled (blocked), the other nine wait in its buffer.
    eventually(Duration::from_secs(10), "the backlog is visible", || {
        let pending = slow.pending();
        async move { pending >= 9 }
    })
    .await;
    for _ in 0..10 {
        release.send(()).unwrap();
    }
    eventually(Duration::from_secs(10), "the slow handler catches up", || {
        let done = handled.load(Ordering::SeqCst) == 10 && slow.pending() == 0;
        async move { done }
    })
    .await;
    factory.shutdown().await;
    server.shutdown().await;
}

/// A handler may `tokio::spawn` or call `Handle::current()` (as a client-go handler may
/// start a goroutine): it runs with the informer's runtime current, even when it was added
/// from a thread where no runtime is. Before, the spawn panicked on the bare listener
/// thread, and the panic skipped the notification.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_may_spawn_tokio_tasks() {
    init_tracing();
    let server = TestApiServer::start().await.unwrap();
    server.seed().config_maps("s", 3).unwrap();
    let factory = TypedInformerFactory::new(server.client().unwrap(), Duration::ZERO);
    let informer = factory.informer_for::<ConfigMap>();
    let (tx, mut spawned) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        let handler = ResourceEventHandlerFuncs::new().on_add(move |cm: &Arc<ConfigMap>, _| {
            let (tx, name) = (tx.clone(), cm.metadata.name.clone().unwrap_or_default());
            tokio::spawn(async move {
                let _ = tx.send(name);
            });
        });
        informer.add_event_handler(handler).unwrap();
    })
    .join()
    .unwrap();
    factory.start();
    for _ in 0..3 {
        let name = tokio::time::timeout(Duration::from_secs(30), spawned.recv()).await;
        assert!(name.expect("a task spawned by the handler within 30 s").is_some());
    }
    factory.shutdown().await;
    server.shutdown().await;
}
