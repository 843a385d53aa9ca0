//! Bad input from the server: each case yields a typed error through the watch-error handler
//! (or, for input that is valid, none), no panic, every other object intact in the cache, and
//! recovery (cache == server) once the server is healthy again.
//!
//! client-go: reflector.go's handling of list and watch decode failures (watchHandler returns
//! the error, the reflector relists; the store is only ever replaced by a complete list).
//!
//! Not covered because the testkit cannot produce it: a watch stream cut in the middle of a
//! line (its drops end the stream at an event boundary; kube's decoder skips a truncated last
//! line silently anyway), an object without `metadata.name` (the testkit refuses to store one,
//! as kube-apiserver does), and a non-Status error body (every testkit error is a Status).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube_informers_runtime::reflector::ReflectorError;
use kube_informers_runtime::{SharedIndexInformer, SharedInformerFactory};
use kube_informers_testkit::{Malformed, TestApiServer};
use kube_informers_tests::{cache_model, eventually, init_tracing};
use parking_lot::Mutex;

/// A synced informer over 20 seeded ConfigMaps, recording every reported error as
/// `(variant, message)`.
struct Fixture {
    server: TestApiServer,
    factory: SharedInformerFactory,
    informer: SharedIndexInformer<ConfigMap>,
    errors: Arc<Mutex<Vec<(String, String)>>>,
}

fn variant(err: &ReflectorError) -> &'static str {
    match err {
        ReflectorError::List(_) => "List",
        ReflectorError::Watch(_) => "Watch",
        ReflectorError::Expired { .. } => "Expired",
        ReflectorError::Decode(_) => "Decode",
        ReflectorError::Store { .. } => "Store",
        ReflectorError::VeryShortWatch { .. } => "VeryShortWatch",
        _ => "Other",
    }
}

/// The full error chain, so a test can check the cause is named.
fn chain(err: &ReflectorError) -> String {
    let mut text = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

impl Fixture {
    async fn start() -> Fixture {
        init_tracing();
        let server = TestApiServer::builder()
            .bookmark_interval(Duration::from_millis(50))
            .start()
            .await
            .unwrap();
        server.seed().config_maps("bad", 20).unwrap();
        let config = kube_informers_runtime::reflector::ReflectorConfig {
            backoff: kube_informers_runtime::reflector::BackoffConfig {
                initial: Duration::from_millis(5),
                max: Duration::from_millis(50),
                ..Default::default()
            },
            ..Default::default()
        };
        let factory = SharedInformerFactory::builder(server.client().unwrap())
            .reflector_config(config)
            .build();
        let informer = factory.informer_for::<ConfigMap>();
        let errors = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&errors);
        informer
            .set_watch_error_handler(move |err| {
                seen.lock().push((variant(err).to_string(), chain(err)))
            })
            .unwrap();
        factory.start();
        assert!(
            factory
                .wait_for_cache_sync_timeout(Duration::from_secs(30))
                .await
                .values()
                .all(|ok| *ok)
        );
        assert_eq!(informer.get_indexer().len(), 20);
        Fixture { server, factory, informer, errors }
    }

    async fn truth(&self) -> BTreeMap<String, String> {
        let api = Api::<ConfigMap>::all(self.server.client().unwrap());
        cache_model(
            &api.list(&Default::default())
                .await
                .unwrap()
                .items
                .into_iter()
                .map(Arc::new)
                .collect::<Vec<_>>(),
        )
    }

    /// Waits for an error of `variant` whose chain contains `needle`.
    async fn expect_error(&self, variant: &str, needle: &str) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while !self.errors.lock().iter().any(|(v, text)| v == variant && text.contains(needle)) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "no {variant} error mentioning {needle:?}; errors: {:?}; cache: {:?}",
                self.errors.lock(),
                self.informer.get_indexer().list_keys()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Creates one more object (the server is healthy again) and waits for cache == server.
    async fn recovers(&self) {
        let api = Api::<ConfigMap>::namespaced(self.server.client().unwrap(), "bad");
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(format!("after-{}", self.server.resource_version()));
        api.create(&PostParams::default(), &cm).await.unwrap();
        let expected = self.truth().await;
        eventually(Duration::from_secs(20), "cache == server", || {
            let done = cache_model(&self.informer.get_indexer().list()) == expected;
            async move { done }
        })
        .await;
    }

    async fn finish(self) {
        self.factory.shutdown().await;
        self.server.shutdown().await;
    }
}

/// Makes the informer relist: its watch is dropped and the re-watch answers 410 Gone.
fn force_relist(server: &TestApiServer) {
    server.compact();
    server.fail_next("watch", "configmaps", 1, 410);
    server.faults().drop_watches();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_item_in_a_list_fails_the_list_and_keeps_the_cache() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    fx.server.faults().malformed_in_next_list("configmaps", Malformed::InvalidJson);
    force_relist(&fx.server);
    fx.expect_error("List", "").await;
    // The failed list replaced nothing: every cached object is still there.
    let during = cache_model(&fx.informer.get_indexer().list());
    assert!(
        before.keys().all(|key| during.contains_key(key)),
        "a failed list must not drop objects"
    );
    fx.recovers().await;
    fx.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrongly_typed_field_in_a_list_fails_the_list_and_keeps_the_cache() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    fx.server.faults().malformed_in_next_list("configmaps", Malformed::WrongType);
    force_relist(&fx.server);
    fx.expect_error("List", "").await;
    let during = cache_model(&fx.informer.get_indexer().list());
    assert!(before.keys().all(|key| during.contains_key(key)));
    fx.recovers().await;
    fx.finish().await;
}

/// `variant` is the error the case produces today: a syntax error is a `Decode` error, but
/// kube's watch decoder reports an event whose object has a wrongly typed field as an
/// `ERROR` event with an empty Status, so it arrives as a `Watch` error.
async fn malformed_watch_event(malformed: Malformed, variant: &str, needle: &str) {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    eventually(Duration::from_secs(10), "the watch is open", || {
        let sent = fx.server.faults().malformed_in_watch("configmaps", malformed) > 0;
        async move { sent }
    })
    .await;
    fx.expect_error(variant, needle).await;
    let during = cache_model(&fx.informer.get_indexer().list());
    assert_eq!(during, before, "an undecodable event changes nothing in the cache");
    fx.recovers().await;
    fx.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_in_a_watch_is_a_decode_error() {
    malformed_watch_event(Malformed::InvalidJson, "Decode", "decode").await;
}

/// The event's object has a wrongly typed field: a typed decode error naming the JSON
/// error (not an `ERROR` event with an empty Status, as kube's own watch decoder makes
/// it), then the relist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrongly_typed_field_in_a_watch_is_a_decode_error() {
    malformed_watch_event(Malformed::WrongType, "Decode", "invalid type").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_cut_between_events_recovers_without_error_or_loss() {
    let fx = Fixture::start().await;
    fx.server.faults().drop_watches_after(3);
    let api = Api::<ConfigMap>::namespaced(fx.server.client().unwrap(), "bad");
    for i in 0..10 {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(format!("cut-{i}"));
        api.create(&PostParams::default(), &cm).await.unwrap();
    }
    fx.recovers().await;
    assert_eq!(fx.informer.get_indexer().len(), 31);
    fx.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ten_megabyte_object_is_cached_intact() {
    let fx = Fixture::start().await;
    let api = Api::<ConfigMap>::namespaced(fx.server.client().unwrap(), "bad");
    let big = "x".repeat(10 * 1024 * 1024);
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some("big".into());
    cm.data = Some([("blob".to_string(), big.clone())].into());
    api.create(&PostParams::default(), &cm).await.unwrap();
    eventually(Duration::from_secs(30), "the big object is cached", || {
        let cached = fx.informer.get_indexer().get_by_key("bad/big");
        let ok = cached.is_some_and(|cm| {
            cm.data.as_ref().and_then(|d| d.get("blob")).map(String::len) == Some(big.len())
        });
        async move { ok }
    })
    .await;
    // A relist carries it too.
    force_relist(&fx.server);
    fx.recovers().await;
    assert_eq!(fx.informer.get_indexer().len(), 22);
    assert!(
        fx.errors.lock().iter().all(|(v, _)| v != "Decode" && v != "List"),
        "{:?}",
        fx.errors.lock()
    );
    fx.finish().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_fields_are_ignored_not_errors() {
    let fx = Fixture::start().await;
    let object = serde_json::json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "extra", "namespace": "bad", "futureField": {"x": 1}},
        "data": {"k": "v"},
        "someFieldFromTheFuture": [1, 2, 3],
    });
    fx.server.seed().values("configmaps", [object]).unwrap();
    eventually(Duration::from_secs(10), "the object with unknown fields is cached", || {
        let ok = fx.informer.get_indexer().get_by_key("bad/extra").is_some();
        async move { ok }
    })
    .await;
    force_relist(&fx.server);
    fx.recovers().await;
    assert!(
        fx.errors.lock().iter().all(|(v, _)| v != "Decode" && v != "List"),
        "{:?}",
        fx.errors.lock()
    );
    fx.finish().await;
}
