//! Per-item and combined rate limiters (client-go `util/workqueue/default_rate_limiters.go`).

use std::collections::HashMap;
use std::hash::Hash;
use std::time::Duration;

use parking_lot::Mutex;

use super::bucket::BucketRateLimiter;
use super::rate_limiter::RateLimiter;

/// client-go's default for controllers (`DefaultTypedControllerRateLimiter`): the worse of
/// a per-item exponential backoff from 5 ms to 1000 s and an overall token bucket of
/// 10 events per second with a burst of 100.
pub fn default_controller_rate_limiter<T>() -> MaxOfRateLimiter<T>
where
    T: Eq + Hash + Clone + Send + Sync + 'static,
{
    MaxOfRateLimiter::new(vec![
        Box::new(ItemExponentialFailureRateLimiter::new(
            Duration::from_millis(5),
            Duration::from_secs(1000),
        )),
        Box::new(BucketRateLimiter::default_controller()),
    ])
}

/// Waits `base_delay * 2^failures`, capped at `max_delay`, per item
/// (client-go `TypedItemExponentialFailureRateLimiter`).
#[derive(Debug)]
pub struct ItemExponentialFailureRateLimiter<T> {
    failures: Mutex<HashMap<T, u32>>,
    base_delay: Duration,
    max_delay: Duration,
}

impl<T: Eq + Hash + Clone> ItemExponentialFailureRateLimiter<T> {
    /// A limiter starting at `base_delay` and never waiting more than `max_delay`.
    pub fn new(base_delay: Duration, max_delay: Duration) -> Self {
        Self { failures: Mutex::new(HashMap::new()), base_delay, max_delay }
    }

    /// client-go's `DefaultTypedItemBasedRateLimiter`: 1 ms up to 1000 s.
    pub fn default_item_based() -> Self {
        Self::new(Duration::from_millis(1), Duration::from_secs(1000))
    }

    fn backoff(&self, exponent: u32) -> Duration {
        let factor = 1u128.checked_shl(exponent).filter(|_| exponent < 128);
        let nanos = factor.and_then(|factor| self.base_delay.as_nanos().checked_mul(factor));
        match nanos.and_then(|nanos| u64::try_from(nanos).ok()) {
            Some(nanos) => Duration::from_nanos(nanos).min(self.max_delay),
            None => self.max_delay,
        }
    }
}

impl<T: Eq + Hash + Clone + Send + Sync> RateLimiter<T> for ItemExponentialFailureRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        let mut failures = self.failures.lock();
        let count = failures.entry(item.clone()).or_insert(0);
        let exponent = *count;
        *count = count.saturating_add(1);
        self.backoff(exponent)
    }

    fn forget(&self, item: &T) {
        self.failures.lock().remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.failures.lock().get(item).copied().unwrap_or(0)
    }
}

/// Retries quickly for the first attempts, then slowly
/// (client-go `TypedItemFastSlowRateLimiter`).
#[derive(Debug)]
pub struct ItemFastSlowRateLimiter<T> {
    failures: Mutex<HashMap<T, u32>>,
    fast_delay: Duration,
    slow_delay: Duration,
    max_fast_attempts: u32,
}

impl<T: Eq + Hash + Clone> ItemFastSlowRateLimiter<T> {
    /// Waits `fast_delay` for the first `max_fast_attempts` failures of an item, then
    /// `slow_delay`.
    pub fn new(fast_delay: Duration, slow_delay: Duration, max_fast_attempts: u32) -> Self {
        Self { failures: Mutex::new(HashMap::new()), fast_delay, slow_delay, max_fast_attempts }
    }
}

impl<T: Eq + Hash + Clone + Send + Sync> RateLimiter<T> for ItemFastSlowRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        let mut failures = self.failures.lock();
        let count = failures.entry(item.clone()).or_insert(0);
        *count = count.saturating_add(1);
        if *count <= self.max_fast_attempts { self.fast_delay } else { self.slow_delay }
    }

    fn forget(&self, item: &T) {
        self.failures.lock().remove(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.failures.lock().get(item).copied().unwrap_or(0)
    }
}

/// Asks every limiter and answers with the longest wait (client-go `TypedMaxOfRateLimiter`).
///
/// Every limiter's `when` is called each time, so each one counts the failure. With a token
/// bucket inside, the burst can seem exceeded when some items were held back longer by
/// their own backoff.
pub struct MaxOfRateLimiter<T> {
    limiters: Vec<Box<dyn RateLimiter<T>>>,
}

impl<T> std::fmt::Debug for MaxOfRateLimiter<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MaxOfRateLimiter").field("limiters", &self.limiters.len()).finish()
    }
}

impl<T> MaxOfRateLimiter<T> {
    /// Combines `limiters`; with none, every wait is zero.
    pub fn new(limiters: Vec<Box<dyn RateLimiter<T>>>) -> Self {
        Self { limiters }
    }
}

impl<T> RateLimiter<T> for MaxOfRateLimiter<T> {
    fn when(&self, item: &T) -> Duration {
        self.limiters.iter().map(|limiter| limiter.when(item)).fold(Duration::ZERO, Duration::max)
    }

    fn forget(&self, item: &T) {
        for limiter in &self.limiters {
            limiter.forget(item);
        }
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.limiters.iter().map(|limiter| limiter.num_requeues(item)).max().unwrap_or(0)
    }
}

/// Caps another limiter's waits at `max_delay` (client-go `TypedWithMaxWaitRateLimiter`).
#[derive(Debug)]
pub struct WithMaxWaitRateLimiter<L> {
    limiter: L,
    max_delay: Duration,
}

impl<L> WithMaxWaitRateLimiter<L> {
    /// Wraps `limiter` so no wait exceeds `max_delay`.
    pub fn new(limiter: L, max_delay: Duration) -> Self {
        Self { limiter, max_delay }
    }
}

impl<T, L: RateLimiter<T>> RateLimiter<T> for WithMaxWaitRateLimiter<L> {
    fn when(&self, item: &T) -> Duration {
        self.limiter.when(item).min(self.max_delay)
    }

    fn forget(&self, item: &T) {
        self.limiter.forget(item);
    }

    fn num_requeues(&self, item: &T) -> u32 {
        self.limiter.num_requeues(item)
    }
}
