//! Bad input from the server: each case yields a typed error through the informer's error
//! observer (or, for input that is valid, none), no panic, every other object intact in the
//! cache, and recovery (cache == server) once the server is healthy again.
//!
//! client-go: reflector.go's handling of list and watch decode failures (watchHandler returns
//! the error, the reflector relists; the store is only ever replaced by a complete list), and
//! delta_fifo.go's `KeyError` for objects whose key cannot be computed. Where client-go fails
//! the whole list or ends the watch for an object of the wrong shape, we skip that object
//! (see `reliability_poison`).
//!
//! Two cases cannot report a clear error today because kube's client hides them before the
//! reflector sees anything (see each test): a watch cut in the middle of an event line ends
//! like a clean close, and a JSON error body that is not a `Status` loses its HTTP code.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, PostParams};
use kube_informers_runtime::reflector::ReflectorError;
use kube_informers_runtime::{SharedIndexInformer, TypedInformerFactory};
use kube_informers_testkit::{Malformed, TestApiServer};
use kube_informers_tests::{cache_model, eventually, init_tracing};
use parking_lot::Mutex;

/// A synced informer over 20 seeded ConfigMaps, recording every reported error.
struct Fixture {
    server: TestApiServer,
    factory: TypedInformerFactory,
    informer: SharedIndexInformer<ConfigMap>,
    errors: Arc<Mutex<Vec<Seen>>>,
}

/// One error the error observer received.
#[derive(Debug, Clone)]
struct Seen {
    variant: String,
    /// The full error chain.
    text: String,
    /// [`ReflectorError::status_code`].
    code: Option<u16>,
}

fn variant(err: &ReflectorError) -> &'static str {
    match err {
        ReflectorError::List(_) => "List",
        ReflectorError::Watch(_) => "Watch",
        ReflectorError::Expired { .. } => "Expired",
        ReflectorError::Decode(_) => "Decode",
        ReflectorError::Store { .. } => "Store",
        ReflectorError::VeryShortWatch { .. } => "VeryShortWatch",
        ReflectorError::Undecodable(_) => "Undecodable",
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
        Fixture::start_with(TestApiServer::client).await
    }

    /// Starts with the informer's client built by `client` from the server.
    async fn start_with(
        client: fn(&TestApiServer) -> kube_informers_testkit::Result<kube::Client>,
    ) -> Fixture {
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
        let factory = TypedInformerFactory::builder(client(&server).unwrap())
            .reflector_config(config)
            .build();
        let informer = factory.informer_for::<ConfigMap>();
        let errors = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&errors);
        informer
            .set_error_observer(move |err| {
                seen.lock().push(Seen {
                    variant: variant(err).to_string(),
                    text: chain(err),
                    code: err.status_code(),
                })
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

    /// Waits for an error of `variant` whose chain contains `needle`, and returns it.
    async fn expect_error(&self, variant: &str, needle: &str) -> Seen {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        loop {
            let found = self
                .errors
                .lock()
                .iter()
                .find(|e| e.variant == variant && e.text.contains(needle))
                .cloned();
            if let Some(found) = found {
                return found;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "no {variant} error mentioning {needle:?}; errors: {:?}; cache: {:?}",
                self.errors.lock(),
                self.informer.get_indexer().list_keys()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Variants of every error reported so far.
    fn variants(&self) -> Vec<String> {
        self.errors.lock().iter().map(|e| e.variant.clone()).collect()
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
///
/// A watch request already past the server's fault check when the watches are dropped can
/// still open afterwards and survive both faults (seen under load: no error at all), so the
/// faults are repeated until a list request shows the relist started.
async fn force_relist(server: &TestApiServer) {
    let lists = server.request_count("list", "configmaps");
    for _ in 0..10 {
        server.compact();
        server.fail_next("watch", "configmaps", 1, 410);
        server.faults().drop_watches();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
        while tokio::time::Instant::now() < deadline {
            if server.request_count("list", "configmaps") > lists {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    panic!("the informer never relisted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_item_in_a_list_fails_the_list_and_keeps_the_cache() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    fx.server.faults().malformed_in_next_list("configmaps", Malformed::InvalidJson);
    force_relist(&fx.server).await;
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

/// client-go fails the whole list here (and relists forever); we skip the one item.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrongly_typed_item_in_a_list_is_skipped_and_the_rest_replaced() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    fx.server.faults().malformed_in_next_list("configmaps", Malformed::WrongType);
    force_relist(&fx.server).await;
    let seen = fx.expect_error("Undecodable", "default/malformed-").await;
    assert!(!seen.text.contains("this-should-be-a-map"), "no contents: {}", seen.text);
    assert!(!fx.variants().iter().any(|v| v == "List"), "the list itself succeeded");
    let during = cache_model(&fx.informer.get_indexer().list());
    assert_eq!(during, before, "every listed object, without the skipped one");
    fx.recovers().await;
    fx.finish().await;
}

/// `variant` is the error the case produces: a syntax error is a `Decode` error and
/// relists; a wrongly typed field skips that one event (kube's own watch decoder turned it
/// into an empty Status).
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
async fn wrongly_typed_field_in_a_watch_skips_that_event() {
    malformed_watch_event(Malformed::WrongType, "Undecodable", "do not decode: default/malformed-")
        .await;
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
    force_relist(&fx.server).await;
    fx.recovers().await;
    assert_eq!(fx.informer.get_indexer().len(), 22);
    assert!(fx.variants().iter().all(|v| v != "Decode" && v != "List"), "{:?}", fx.errors.lock());
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
    force_relist(&fx.server).await;
    fx.recovers().await;
    assert!(fx.variants().iter().all(|v| v != "Decode" && v != "List"), "{:?}", fx.errors.lock());
    fx.finish().await;
}

/// The cache has no key of a nameless object (`""`, `"ns/"`), and nothing nameless.
fn assert_no_nameless_key(informer: &SharedIndexInformer<ConfigMap>) {
    let keys = informer.get_indexer().list_keys();
    assert!(keys.iter().all(|k| !k.is_empty() && !k.ends_with('/')), "{keys:?}");
    assert!(informer.get_indexer().list().iter().all(|cm| cm.metadata.name.is_some()));
}

/// A watch cut in the middle of an event line (half the JSON, then the connection aborted).
///
/// kube's own watch decoder ends the stream silently here (it logs "eof in poll"); our line
/// reader reports the unfinished line as `WireError::TruncatedEvent` through a `Watch` error,
/// and the reflector re-watches from the last resourceVersion it applied, so the cut event
/// arrives again and nothing is lost, without a relist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_cut_in_the_middle_of_an_event_recovers_without_loss() {
    let fx = Fixture::start().await;
    let watches = fx.server.request_count("watch", "configmaps");
    fx.server.faults().truncate_next_watch_event("configmaps");
    let api = Api::<ConfigMap>::namespaced(fx.server.client().unwrap(), "bad");
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some("cut-mid-line".into());
    api.create(&PostParams::default(), &cm).await.unwrap();
    eventually(Duration::from_secs(10), "the cut event arrives on a new watch", || {
        let ok = fx.informer.get_indexer().get_by_key("bad/cut-mid-line").is_some();
        async move { ok }
    })
    .await;
    assert_eq!(fx.server.faults().pending_truncations(), 0, "the event was cut");
    assert!(fx.server.request_count("watch", "configmaps") > watches, "the informer re-watched");
    let seen = fx.expect_error("Watch", "ended in the middle of an event").await;
    assert!(seen.text.contains("bytes without a newline"), "{}", seen.text);
    fx.recovers().await;
    assert_eq!(fx.informer.get_indexer().len(), 22);
    assert!(
        fx.variants().iter().all(|v| v != "Decode" && v != "List" && v != "Store"),
        "a cut watch is re-watched, not relisted: {:?}",
        fx.errors.lock()
    );
    fx.finish().await;
}

/// An object without `metadata.name` in a relist: the DeltaFIFO's key function rejects it
/// with `KeyError::MissingName`, the whole replace is refused (client-go `DeltaFIFO.Replace`
/// returns the `KeyError` too), the error is reported as `Store { Replace }`, the cache keeps
/// its objects, and the reflector relists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nameless_object_in_a_list_is_a_store_error_and_keeps_the_cache() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    fx.server.faults().nameless_in_next_list("configmaps");
    force_relist(&fx.server).await;
    let seen = fx.expect_error("Store", "object has no name").await;
    assert!(seen.text.contains("store replace failed"), "{}", seen.text);
    let during = cache_model(&fx.informer.get_indexer().list());
    assert!(before.keys().all(|key| during.contains_key(key)), "a refused list drops nothing");
    assert_no_nameless_key(&fx.informer);
    fx.recovers().await;
    assert_no_nameless_key(&fx.informer);
    fx.finish().await;
}

/// An object without `metadata.name` in a watch event: the key function rejects it, the
/// reflector reports `Store { Add }` and keeps watching (as client-go); nothing else changes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nameless_object_in_a_watch_is_skipped_with_a_store_error() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    let lists = fx.server.request_count("list", "configmaps");
    eventually(Duration::from_secs(10), "the watch is open", || {
        let sent = fx.server.faults().nameless_in_watch("configmaps") > 0;
        async move { sent }
    })
    .await;
    let seen = fx.expect_error("Store", "object has no name").await;
    assert!(seen.text.contains("store add failed"), "{}", seen.text);
    assert_eq!(cache_model(&fx.informer.get_indexer().list()), before);
    assert_no_nameless_key(&fx.informer);
    fx.recovers().await;
    // The one list is `recovers`' own.
    assert_eq!(fx.server.request_count("list", "configmaps"), lists + 1, "no relist was needed");
    assert_no_nameless_key(&fx.informer);
    fx.finish().await;
}

/// A 502 with an HTML body from a proxy, on a relist: a `List` error whose status carries
/// the HTTP code and the body text; the cache is kept and the next relist succeeds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn html_502_from_a_proxy_on_a_list_is_a_list_error() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    let html = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
    fx.server.faults().fail_next_with_body("list", "configmaps", 1, 502, "text/html", html);
    force_relist(&fx.server).await;
    let seen = fx.expect_error("List", "502 Bad Gateway").await;
    assert_eq!(seen.code, Some(502));
    let during = cache_model(&fx.informer.get_indexer().list());
    assert!(before.keys().all(|key| during.contains_key(key)));
    fx.recovers().await;
    fx.finish().await;
}

/// Creates one object and waits until the informer has it, so that its watch has delivered
/// an event (a watch dropped before any event would count as a "very short watch").
async fn watch_delivers(fx: &Fixture, name: &str) {
    let api = Api::<ConfigMap>::namespaced(fx.server.client().unwrap(), "bad");
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.into());
    api.create(&PostParams::default(), &cm).await.unwrap();
    let key = format!("bad/{name}");
    eventually(Duration::from_secs(10), "the watch delivers an event", || {
        let ok = fx.informer.get_indexer().get_by_key(&key).is_some();
        async move { ok }
    })
    .await;
}

/// A 503 with a plain-text body on a watch: a `Watch` error with code 503; the reflector
/// backs off and re-watches from the last resourceVersion (no relist).
///
/// The informer's client here does not retry: kube's default client retries 503 itself
/// (15 times, with exponential backoff from 5 ms), so a short burst of 503s never reaches
/// the reflector at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_text_503_on_a_watch_is_a_watch_error() {
    let fx = Fixture::start_with(TestApiServer::client_without_retry).await;
    watch_delivers(&fx, "before-503").await;
    let lists = fx.server.request_count("list", "configmaps");
    fx.server.faults().fail_next_with_body(
        "watch",
        "configmaps",
        1,
        503,
        "text/plain; charset=utf-8",
        "upstream connect error or disconnect/reset before headers",
    );
    fx.server.faults().drop_watches();
    let seen = fx.expect_error("Watch", "upstream connect error").await;
    assert_eq!(seen.code, Some(503));
    fx.recovers().await;
    // The one list is `recovers`' own.
    assert_eq!(fx.server.request_count("list", "configmaps"), lists + 1, "re-watched, no relist");
    fx.finish().await;
}

/// With kube's default (retrying) client, a few 503s on a watch are absorbed by the client:
/// no error reaches the handler and the informer re-watches without a relist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_text_503s_on_a_watch_are_retried_by_the_kube_client() {
    let fx = Fixture::start().await;
    watch_delivers(&fx, "before-503").await;
    let lists = fx.server.request_count("list", "configmaps");
    let watches = fx.server.request_count("watch", "configmaps");
    fx.server.faults().fail_next_with_body("watch", "configmaps", 3, 503, "text/plain", "busy");
    fx.server.faults().drop_watches();
    fx.recovers().await;
    assert!(fx.server.request_count("watch", "configmaps") >= watches + 4, "3 × 503, then a watch");
    assert_eq!(fx.server.request_count("list", "configmaps"), lists + 1);
    assert!(fx.errors.lock().is_empty(), "{:?}", fx.errors.lock());
    fx.finish().await;
}

/// A 500 whose body is JSON but not a `Status`.
///
/// kube's client parses any JSON object as a `Status` (every field has a default) and
/// reports code 0 with an empty message. Our request path falls back to the HTTP code and the
/// body text, so the handler sees a `List` error with code 500, and the reflector treats it as
/// the transient 5xx it is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_500_that_is_not_a_status_is_a_list_error_with_its_code() {
    let fx = Fixture::start().await;
    let before = cache_model(&fx.informer.get_indexer().list());
    let body = r#"{"error":"internal proxy failure","requestId":"42"}"#;
    fx.server.faults().fail_next_with_body("list", "configmaps", 1, 500, "application/json", body);
    force_relist(&fx.server).await;
    // kube's own client reports such a body as code 0 with an empty message; our request
    // path keeps the HTTP code and the body text.
    let seen = fx.expect_error("List", "internal proxy failure").await;
    assert_eq!(seen.code, Some(500), "{seen:?}");
    let during = cache_model(&fx.informer.get_indexer().list());
    assert!(before.keys().all(|key| during.contains_key(key)));
    fx.recovers().await;
    fx.finish().await;
}
