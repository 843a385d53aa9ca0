//! Queue metrics; ports client-go `util/workqueue/metrics_test.go`.

use std::time::Duration;

use kube_informers_runtime::workqueue::{
    DelayingQueue, InMemoryMetricsProvider, InMemoryQueueMetrics,
    ItemExponentialFailureRateLimiter, QueueConfig, RateLimitingQueue,
    UNFINISHED_WORK_UPDATE_PERIOD, WorkQueue,
};
use tokio::time::advance;

const US: Duration = Duration::from_micros(1);

fn named(provider: &InMemoryMetricsProvider, name: &str) -> QueueConfig {
    QueueConfig::new().name(name).metrics_provider(provider.clone())
}

async fn wait_for_update(metrics: &InMemoryQueueMetrics) {
    for _ in 0..100 {
        if metrics.snapshot().unfinished_work_seconds > 0.0 {
            return;
        }
        tokio::task::yield_now().await;
    }
    panic!("the unfinished-work gauges were never updated");
}

// client-go: metrics_test.go TestMetrics
#[tokio::test(start_paused = true)]
async fn metrics() {
    let provider = InMemoryMetricsProvider::new();
    let queue: WorkQueue<&str> = WorkQueue::with_config(named(&provider, "test"));
    let metrics = provider.queue("test").expect("the queue registered its metrics");

    queue.add("foo");
    let snapshot = metrics.snapshot();
    assert_eq!(snapshot.adds, 1);
    assert_eq!(snapshot.depth, 1);

    advance(50 * US).await;
    let item = queue.get().await.unwrap();
    let snapshot = metrics.snapshot();
    assert_eq!(snapshot.latency.last, Some(50 * US));
    assert_eq!(snapshot.latency.count, 1);

    // Adds while processing are de-duplicated.
    for _ in 0..5 {
        queue.add(item);
    }
    let snapshot = metrics.snapshot();
    assert_eq!(snapshot.adds, 2);
    assert_eq!(snapshot.depth, 1, "one thing remains in the queue");

    advance(25 * US).await;
    queue.done(&item);
    let snapshot = metrics.snapshot();
    assert_eq!(snapshot.work_duration.last, Some(25 * US));
    assert_eq!(snapshot.work_duration.count, 1);
    assert_eq!(snapshot.depth, 1);

    // It is back on the queue; its latency counts from the re-add.
    let item = queue.get().await.unwrap();
    assert_eq!(item, "foo");
    let snapshot = metrics.snapshot();
    assert_eq!(snapshot.latency.last, Some(25 * US));
    assert_eq!(snapshot.latency.count, 2);
    assert_eq!(snapshot.depth, 0);

    advance(Duration::from_millis(1)).await;
    queue.update_unfinished_work_metrics();
    let snapshot = metrics.snapshot();
    assert_eq!(snapshot.unfinished_work_seconds, 0.001);
    assert_eq!(snapshot.longest_running_processor_seconds, 0.001);

    queue.done(&item);
    let snapshot = metrics.snapshot();
    assert_eq!(snapshot.work_duration.last, Some(Duration::from_millis(1)));
    assert_eq!(snapshot.work_duration.count, 2);
    queue.shut_down();
}

// client-go: metrics_test.go TestMetrics (the ticker half) and TestMetricShutdown
#[tokio::test(start_paused = true)]
async fn unfinished_work_is_updated_periodically_until_shutdown() {
    let provider = InMemoryMetricsProvider::new();
    let queue: WorkQueue<u32> = WorkQueue::with_config(named(&provider, "ticker"));
    let metrics = provider.queue("ticker").unwrap();
    queue.add(1);
    queue.add(2);
    let one = queue.get().await.unwrap();
    advance(Duration::from_millis(100)).await;
    let _two = queue.get().await.unwrap();
    assert_eq!(metrics.snapshot().unfinished_work_seconds, 0.0);

    advance(UNFINISHED_WORK_UPDATE_PERIOD).await;
    wait_for_update(&metrics).await;
    let snapshot = metrics.snapshot();
    assert!(snapshot.longest_running_processor_seconds >= 0.5);
    assert!(snapshot.unfinished_work_seconds > snapshot.longest_running_processor_seconds);

    queue.done(&one);
    queue.shut_down();
    let before = metrics.snapshot();
    advance(Duration::from_secs(3600)).await;
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    queue.update_unfinished_work_metrics();
    assert_eq!(metrics.snapshot(), before, "no update after shutdown");
}

// client-go: metrics.go retries (counted by AddAfter, hence by AddRateLimited)
#[tokio::test(start_paused = true)]
async fn retries_count_delayed_and_rate_limited_adds() {
    let provider = InMemoryMetricsProvider::new();
    let delaying: DelayingQueue<&str> = DelayingQueue::with_config(named(&provider, "delaying"));
    delaying.add_after("a", Duration::ZERO);
    delaying.add_after("b", Duration::from_secs(1));
    delaying.add("c");
    let snapshot = provider.queue("delaying").unwrap().snapshot();
    assert_eq!(snapshot.retries, 2);
    assert_eq!(snapshot.adds, 2, "b is not added until it is due");
    assert_eq!(snapshot.depth, 2);

    let limited: RateLimitingQueue<&str> = RateLimitingQueue::with_config(
        ItemExponentialFailureRateLimiter::new(US, Duration::from_secs(1)),
        named(&provider, "limited"),
    );
    limited.add_rate_limited("x");
    limited.add_rate_limited("x");
    assert_eq!(provider.queue("limited").unwrap().snapshot().retries, 2);
    assert_eq!(provider.queue_names(), ["delaying", "limited"]);
}

// client-go: metrics.go newQueueMetrics ("If unnamed, the metrics will not be registered")
#[tokio::test]
async fn unnamed_queues_record_nothing() {
    let provider = InMemoryMetricsProvider::new();
    let queue: WorkQueue<u8> =
        WorkQueue::with_config(QueueConfig::new().metrics_provider(provider.clone()));
    queue.add(1);
    assert_eq!(queue.get().await, Some(1));
    assert!(provider.queue_names().is_empty());
}
