//! The `metrics` feature: informers' stats and work queue metrics in the Prometheus text
//! exposition, under the documented names and labels.
#![cfg(feature = "metrics")]

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Client;
use kube::client::Body;
use kube::core::WatchEvent;
use kube_informers_runtime::metrics::prometheus::{
    InformerCollector, WorkQueueMetricsProvider, register_factory,
};
use kube_informers_runtime::workqueue::{
    ItemExponentialFailureRateLimiter, QueueConfig, RateLimitingQueue,
};
use kube_informers_runtime::{ResourceEventHandlerFuncs, TypedInformerFactory};
use parking_lot::Mutex;
use prometheus_client::encoding::text::encode;
use prometheus_client::registry::Registry;
use tokio::time::advance;

use crate::metrics_informer_stats::{Running, run_known_sequence};
use crate::reflector_support::{FakeListerWatcher, WatchScript, page, pod};

fn exposition(registry: &Registry) -> String {
    let mut text = String::new();
    encode(&mut text, registry).expect("encodes");
    text
}

/// The sample lines of `text` (no `#` comments).
fn samples(text: &str) -> Vec<&str> {
    text.lines().filter(|line| !line.starts_with('#')).collect()
}

fn assert_has(text: &str, line: &str) {
    assert!(samples(text).contains(&line), "missing `{line}` in:\n{text}");
}

#[tokio::test(start_paused = true)]
async fn informer_metrics_after_a_known_sequence() {
    let running = run_known_sequence().await;
    let mut registry = Registry::default();
    InformerCollector::new().informer("v1/pods", &running.informer).register(&mut registry);
    let text = exposition(&registry);

    for line in [
        r#"informer_list_requests_total{resource="v1/pods"} 4"#,
        r#"informer_list_failures_total{resource="v1/pods"} 1"#,
        r#"informer_watch_requests_total{resource="v1/pods"} 4"#,
        r#"informer_watch_failures_total{resource="v1/pods"} 1"#,
        r#"informer_events_total{resource="v1/pods",type="added"} 2"#,
        r#"informer_events_total{resource="v1/pods",type="modified"} 1"#,
        r#"informer_events_total{resource="v1/pods",type="deleted"} 1"#,
        r#"informer_events_total{resource="v1/pods",type="bookmark"} 2"#,
        r#"informer_events_total{resource="v1/pods",type="error"} 1"#,
        r#"informer_relists_total{resource="v1/pods"} 2"#,
        r#"informer_synced{resource="v1/pods"} 1"#,
        r#"informer_last_sync_resource_version{resource="v1/pods"} 31"#,
        // Paused clock: one failed list, then the 800 ms backoff before the list that synced.
        r#"informer_sync_duration_seconds{resource="v1/pods"} 0.8"#,
    ] {
        assert_has(&text, line);
    }
    for header in [
        "# TYPE informer_list_requests counter",
        "# TYPE informer_events counter",
        "# TYPE informer_handler_pending gauge",
        "# TYPE informer_sync_duration_seconds gauge",
        "# UNIT informer_sync_duration_seconds seconds",
    ] {
        assert!(text.contains(header), "missing `{header}` in:\n{text}");
    }
    // Labels name resources, never objects.
    for sample in samples(&text) {
        for name in ["\"a\"", "\"c\"", "\"d\"", "default/"] {
            assert!(!sample.contains(name), "object identity in `{sample}`");
        }
    }
    running.stop().await;
}

#[tokio::test(start_paused = true)]
async fn each_scrape_reads_current_values() {
    // One add right away, a second one ten (paused) seconds later.
    let lw = FakeListerWatcher::new().list(Ok(page(vec![pod("a", "1")], "10", None))).watch(
        WatchScript::Later(
            vec![Ok(WatchEvent::Added(pod("b", "11")))],
            Duration::from_secs(10),
            Box::new(Ok(WatchEvent::Added(pod("c", "12")))),
        ),
    );
    let running = Running::start_with(lw, |informer| {
        informer.add_event_handler(ResourceEventHandlerFuncs::new()).unwrap();
    });
    let mut registry = Registry::default();
    InformerCollector::new().informer("Pod", &running.informer).register(&mut registry);
    running.until("the first add", |i| i.last_sync_resource_version() == "11").await;
    running
        .until("the handler to catch up", |i| {
            i.stats().handler_pending.iter().all(|(_, n)| *n == 0)
        })
        .await;
    let handler = running.informer.stats().handler_pending[0].0;

    let text = exposition(&registry);
    assert_has(&text, r#"informer_events_total{resource="Pod",type="added"} 1"#);
    assert_has(&text, r#"informer_last_sync_resource_version{resource="Pod"} 11"#);
    assert_has(
        &text,
        &format!(r#"informer_handler_pending{{resource="Pod",handler="{handler}"}} 0"#),
    );

    running.until("the second add", |i| i.last_sync_resource_version() == "12").await;
    let text = exposition(&registry);
    assert_has(&text, r#"informer_events_total{resource="Pod",type="added"} 2"#);
    assert_has(&text, r#"informer_last_sync_resource_version{resource="Pod"} 12"#);
    running.stop().await;
}

/// A client whose lists return one object, and whose watches hang until cancelled.
fn quiet_client(requests: Arc<Mutex<Vec<String>>>) -> Client {
    let service = tower::service_fn(move |request: http::Request<kube::client::Body>| {
        let uri = request.uri().to_string();
        requests.lock().push(uri.clone());
        async move {
            if uri.contains("watch=true") {
                futures::future::pending::<()>().await;
            }
            let body = if uri.contains("/pods") {
                r#"{"apiVersion":"v1","kind":"PodList","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"secret-pod","namespace":"prod","resourceVersion":"5"}}]}"#
            } else {
                r#"{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"9"},"items":[]}"#
            };
            Ok::<_, Infallible>(http::Response::new(Body::from(body.as_bytes().to_vec())))
        }
    });
    Client::new(service, "default")
}

#[tokio::test]
async fn a_factory_registers_every_informer_it_has_started() {
    let requests = Arc::new(Mutex::new(Vec::new()));
    let factory = TypedInformerFactory::new(quiet_client(requests.clone()), Duration::ZERO);
    let mut registry = Registry::default();
    register_factory(&mut registry, &factory);

    let pods = factory.informer_for::<Pod>();
    factory.start();
    assert!(pods.wait_for_sync().await);
    // Made after start and not started yet: not reported.
    let config_maps = factory.informer_for::<ConfigMap>();
    let text = exposition(&registry);
    assert_has(&text, r#"informer_list_requests_total{resource="v1/pods"} 1"#);
    assert_has(&text, r#"informer_synced{resource="v1/pods"} 1"#);
    assert_has(&text, r#"informer_last_sync_resource_version{resource="v1/pods"} 7"#);
    assert!(!text.contains("v1/configmaps"), "an informer not started is not reported:\n{text}");
    assert!(!text.contains("secret-pod"), "object names never appear:\n{text}");

    // Started later: the next scrape finds it, without registering anything again.
    factory.start();
    assert!(config_maps.wait_for_sync().await);
    let text = exposition(&registry);
    assert_has(&text, r#"informer_list_requests_total{resource="v1/configmaps"} 1"#);
    assert_has(&text, r#"informer_synced{resource="v1/configmaps"} 1"#);
    assert_has(&text, r#"informer_list_requests_total{resource="v1/pods"} 1"#);
    assert_eq!(
        requests.lock().iter().filter(|uri| !uri.contains("watch=true")).count(),
        2,
        "one list per informer"
    );
    factory.shutdown().await;
}

// client-go: metrics_test.go TestMetrics, through the Prometheus provider
#[tokio::test(start_paused = true)]
async fn workqueue_provider_records_client_go_metrics() {
    let mut registry = Registry::default();
    let provider = WorkQueueMetricsProvider::new(&mut registry);
    let queue: RateLimitingQueue<&str> = RateLimitingQueue::with_config(
        ItemExponentialFailureRateLimiter::new(Duration::from_millis(5), Duration::from_secs(1)),
        QueueConfig::new().name("deployments").metrics_provider(provider.clone()),
    );

    queue.add("prod/web");
    queue.add("prod/api");
    queue.add("prod/web"); // deduplicated: not an add
    let text = exposition(&registry);
    assert_has(&text, r#"workqueue_adds_total{name="deployments"} 2"#);
    assert_has(&text, r#"workqueue_depth{name="deployments"} 2"#);

    advance(Duration::from_millis(250)).await;
    let key = queue.get().await.unwrap();
    assert_eq!(key, "prod/web");
    advance(Duration::from_millis(500)).await;
    queue.update_unfinished_work_metrics();
    let text = exposition(&registry);
    assert_has(&text, r#"workqueue_depth{name="deployments"} 1"#);
    assert_has(&text, r#"workqueue_queue_duration_seconds_count{name="deployments"} 1"#);
    assert_has(&text, r#"workqueue_queue_duration_seconds_sum{name="deployments"} 0.25"#);
    assert_has(&text, r#"workqueue_unfinished_work_seconds{name="deployments"} 0.5"#);
    assert_has(&text, r#"workqueue_longest_running_processor_seconds{name="deployments"} 0.5"#);
    // 0.25 s falls in the bucket up to 1 s, not in the one up to 0.1 s (client-go's buckets).
    assert_has(&text, r#"workqueue_queue_duration_seconds_bucket{le="0.1",name="deployments"} 0"#);
    assert_has(&text, r#"workqueue_queue_duration_seconds_bucket{le="1.0",name="deployments"} 1"#);

    queue.add_rate_limited(key);
    queue.done(&key);
    let text = exposition(&registry);
    assert_has(&text, r#"workqueue_retries_total{name="deployments"} 1"#);
    assert_has(&text, r#"workqueue_work_duration_seconds_count{name="deployments"} 1"#);
    assert_has(&text, r#"workqueue_work_duration_seconds_sum{name="deployments"} 0.5"#);
    for header in [
        "# TYPE workqueue_depth gauge",
        "# TYPE workqueue_adds counter",
        "# TYPE workqueue_queue_duration_seconds histogram",
        "# TYPE workqueue_work_duration_seconds histogram",
        "# TYPE workqueue_retries counter",
    ] {
        assert!(text.contains(header), "missing `{header}` in:\n{text}");
    }

    // A second queue from the same provider gets its own series.
    let other: RateLimitingQueue<&str> = RateLimitingQueue::with_config(
        ItemExponentialFailureRateLimiter::new(Duration::from_millis(5), Duration::from_secs(1)),
        QueueConfig::new().name("configmaps").metrics_provider(provider),
    );
    other.add("prod/x");
    let text = exposition(&registry);
    assert_has(&text, r#"workqueue_adds_total{name="configmaps"} 1"#);
    assert_has(&text, r#"workqueue_adds_total{name="deployments"} 2"#);
    queue.shut_down();
    other.shut_down();
}
