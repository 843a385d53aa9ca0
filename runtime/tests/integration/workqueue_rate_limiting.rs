//! The rate-limiting queue; ports client-go `util/workqueue/rate_limiting_queue_test.go`.

use std::time::Duration;

use kube_informers_runtime::workqueue::{
    ItemExponentialFailureRateLimiter, RateLimitingQueue, default_controller_rate_limiter,
};
use tokio::time::advance;

const MS: Duration = Duration::from_millis(1);
const US: Duration = Duration::from_micros(1);

/// Asserts that exactly `delay` must pass before `item` is queued.
async fn assert_fires_after(queue: &RateLimitingQueue<&'static str>, item: &str, delay: Duration) {
    assert_eq!(queue.len(), 0);
    advance(delay - US).await;
    assert_eq!(queue.len(), 0, "{item} fired before {delay:?}");
    advance(US).await;
    assert_eq!(queue.len(), 1, "{item} did not fire at {delay:?}");
    let got = queue.get().await.unwrap();
    assert_eq!(got, item);
    queue.done(&got);
}

// client-go: rate_limiting_queue_test.go TestRateLimitingQueue
#[tokio::test(start_paused = true)]
async fn rate_limiting_queue() {
    let queue =
        RateLimitingQueue::new(ItemExponentialFailureRateLimiter::new(MS, Duration::from_secs(1)));
    queue.add_rate_limited("one");
    assert_fires_after(&queue, "one", MS).await;
    queue.add_rate_limited("one");
    assert_fires_after(&queue, "one", 2 * MS).await;
    assert_eq!(queue.num_requeues(&"one"), 2);

    queue.add_rate_limited("two");
    assert_fires_after(&queue, "two", MS).await;
    queue.add_rate_limited("two");
    assert_fires_after(&queue, "two", 2 * MS).await;

    queue.forget(&"one");
    assert_eq!(queue.num_requeues(&"one"), 0);
    queue.add_rate_limited("one");
    assert_fires_after(&queue, "one", MS).await;
}

#[tokio::test(start_paused = true)]
async fn a_controller_loop_retries_with_backoff_then_forgets() {
    let queue: RateLimitingQueue<String> =
        RateLimitingQueue::named(default_controller_rate_limiter(), "controller");
    assert_eq!(queue.name(), Some("controller"));
    queue.add("ns/a".to_owned());
    let mut attempts = 0;
    while let Some(key) = queue.get().await {
        attempts += 1;
        if attempts < 4 {
            queue.add_rate_limited(key.clone());
        } else {
            queue.forget(&key);
            queue.shut_down();
        }
        queue.done(&key);
    }
    assert_eq!(attempts, 4);
    assert_eq!(queue.num_requeues(&"ns/a".to_owned()), 0);
}
