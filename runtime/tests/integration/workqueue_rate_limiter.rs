//! Rate limiters; ports client-go `util/workqueue/default_rate_limiters_test.go`.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use kube_informers_runtime::workqueue::{
    BucketRateLimiter, ItemExponentialFailureRateLimiter, ItemFastSlowRateLimiter,
    MaxOfRateLimiter, RateLimiter, WithMaxWaitRateLimiter, WorkQueueError,
    default_controller_rate_limiter,
};
use tokio::time::advance;

const MS: Duration = Duration::from_millis(1);

// client-go: default_rate_limiters_test.go TestItemExponentialFailureRateLimiter
#[test]
fn item_exponential_failure_rate_limiter() {
    let limiter = ItemExponentialFailureRateLimiter::new(MS, Duration::from_secs(1));
    for expected in [1, 2, 4, 8, 16] {
        assert_eq!(limiter.when(&"one"), expected * MS);
    }
    assert_eq!(limiter.num_requeues(&"one"), 5);

    assert_eq!(limiter.when(&"two"), MS);
    assert_eq!(limiter.when(&"two"), 2 * MS);
    assert_eq!(limiter.num_requeues(&"two"), 2);

    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), MS);
}

// client-go: default_rate_limiters_test.go TestItemExponentialFailureRateLimiterOverFlow
#[test]
fn item_exponential_failure_rate_limiter_overflow() {
    let limiter = ItemExponentialFailureRateLimiter::new(MS, Duration::from_secs(1000));
    for _ in 0..5 {
        limiter.when(&"one");
    }
    assert_eq!(limiter.when(&"one"), 32 * MS);
    for _ in 0..1000 {
        limiter.when(&"overflow1");
    }
    assert_eq!(limiter.when(&"overflow1"), Duration::from_secs(1000));

    let minute = Duration::from_secs(60);
    let limiter = ItemExponentialFailureRateLimiter::new(minute, 1000 * 60 * minute);
    for _ in 0..2 {
        limiter.when(&"two");
    }
    assert_eq!(limiter.when(&"two"), 4 * minute);
    for _ in 0..1000 {
        limiter.when(&"overflow2");
    }
    assert_eq!(limiter.when(&"overflow2"), 1000 * 60 * minute);
}

// client-go: default_rate_limiters_test.go TestItemFastSlowRateLimiter
#[test]
fn item_fast_slow_rate_limiter() {
    let slow = Duration::from_secs(10);
    let limiter = ItemFastSlowRateLimiter::new(5 * MS, slow, 3);
    for expected in [5 * MS, 5 * MS, 5 * MS, slow, slow] {
        assert_eq!(limiter.when(&"one"), expected);
    }
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), 5 * MS);
}

// client-go: default_rate_limiters_test.go TestMaxOfRateLimiter
#[test]
fn max_of_rate_limiter() {
    let slow = Duration::from_secs(3);
    let limiter: MaxOfRateLimiter<&str> = MaxOfRateLimiter::new(vec![
        Box::new(ItemFastSlowRateLimiter::new(5 * MS, slow, 3)),
        Box::new(ItemExponentialFailureRateLimiter::new(MS, Duration::from_secs(1))),
    ]);
    for expected in [5 * MS, 5 * MS, 5 * MS, slow, slow] {
        assert_eq!(limiter.when(&"one"), expected);
    }
    assert_eq!(limiter.num_requeues(&"one"), 5);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.when(&"two"), 5 * MS);
    assert_eq!(limiter.num_requeues(&"two"), 2);
    limiter.forget(&"one");
    assert_eq!(limiter.num_requeues(&"one"), 0);
    assert_eq!(limiter.when(&"one"), 5 * MS);
}

/// client-go's test-only StepRateLimiter: `base` for the first `threshold` calls, then `max`.
struct StepRateLimiter {
    count: AtomicU32,
    threshold: u32,
    base: Duration,
    max: Duration,
}

impl RateLimiter<u32> for StepRateLimiter {
    fn when(&self, _item: &u32) -> Duration {
        if self.count.fetch_add(1, Ordering::SeqCst) < self.threshold {
            self.base
        } else {
            self.max
        }
    }
    fn forget(&self, _item: &u32) {}
    fn num_requeues(&self, _item: &u32) -> u32 {
        0
    }
}

// client-go: default_rate_limiters_test.go TestWithMaxWaitRateLimiter
#[test]
fn with_max_wait_rate_limiter() {
    let step = StepRateLimiter {
        count: AtomicU32::new(0),
        threshold: 100,
        base: 5 * MS,
        max: Duration::from_secs(1000),
    };
    let limiter = WithMaxWaitRateLimiter::new(step, Duration::from_secs(500));
    for i in 0..100 {
        assert_eq!(limiter.when(&i), 5 * MS);
    }
    for i in 100..200 {
        assert_eq!(limiter.when(&i), Duration::from_secs(500));
    }
}

// client-go: default_rate_limiters.go TypedBucketRateLimiter (Reserve().Delay() semantics)
#[tokio::test(start_paused = true)]
async fn bucket_rate_limiter_allows_a_burst_then_paces() {
    let limiter = BucketRateLimiter::new(10.0, 3).unwrap();
    for _ in 0..3 {
        assert_eq!(RateLimiter::<&str>::when(&limiter, &"x"), Duration::ZERO);
    }
    // The bucket is empty: each reservation waits one more token (100 ms at 10 qps).
    assert_eq!(RateLimiter::<&str>::when(&limiter, &"x"), 100 * MS);
    assert_eq!(RateLimiter::<&str>::when(&limiter, &"y"), 200 * MS);
    assert_eq!(RateLimiter::<&str>::num_requeues(&limiter, &"x"), 0);

    // After a long pause the bucket is full again, never fuller than the burst.
    advance(Duration::from_secs(60)).await;
    for _ in 0..3 {
        assert_eq!(RateLimiter::<&str>::when(&limiter, &"x"), Duration::ZERO);
    }
    assert!(RateLimiter::<&str>::when(&limiter, &"x") > Duration::ZERO);
}

#[tokio::test(start_paused = true)]
async fn bucket_rate_limiter_refills_over_time() {
    let limiter = BucketRateLimiter::new(10.0, 1).unwrap();
    assert_eq!(RateLimiter::<u8>::when(&limiter, &0), Duration::ZERO);
    assert_eq!(RateLimiter::<u8>::when(&limiter, &0), 100 * MS);
    // 200 ms later the reserved token is paid back and one more has accrued.
    advance(200 * MS).await;
    assert_eq!(RateLimiter::<u8>::when(&limiter, &0), Duration::ZERO);
}

#[test]
fn bucket_rate_limiter_rejects_a_rate_that_is_not_positive() {
    for qps in [0.0, -1.0, f64::NAN] {
        let err = BucketRateLimiter::new(qps, 10).unwrap_err();
        assert!(matches!(err, WorkQueueError::InvalidRate { .. }), "{qps}");
    }
    let unlimited = BucketRateLimiter::new(f64::INFINITY, 0).unwrap();
    assert_eq!(RateLimiter::<u8>::when(&unlimited, &0), Duration::ZERO);
}

// client-go: default_rate_limiters.go DefaultTypedControllerRateLimiter
#[tokio::test(start_paused = true)]
async fn default_controller_rate_limiter_combines_backoff_and_bucket() {
    let limiter = default_controller_rate_limiter::<String>();
    let key = "ns/name".to_owned();
    assert_eq!(limiter.when(&key), 5 * MS);
    assert_eq!(limiter.when(&key), 10 * MS);
    assert_eq!(limiter.num_requeues(&key), 2);
    for _ in 0..40 {
        limiter.when(&key);
    }
    assert_eq!(limiter.when(&key), Duration::from_secs(1000), "capped at 1000 s");

    // 100 distinct first failures drain the burst (3 tokens already spent); the next ones
    // wait for the 10 qps refill, longer than their own 5 ms backoff.
    let fresh = default_controller_rate_limiter::<u32>();
    for item in 0..100 {
        assert_eq!(fresh.when(&item), 5 * MS);
    }
    assert_eq!(fresh.when(&100), 100 * MS);
    limiter.forget(&key);
    assert_eq!(limiter.num_requeues(&key), 0);
}
