//! A delaying queue paced by a rate limiter (client-go `util/workqueue/rate_limiting_queue.go`).

use std::hash::Hash;
use std::sync::Arc;
use std::time::Duration;

use super::delaying::DelayingQueue;
use super::queue::QueueConfig;
use super::rate_limiter::RateLimiter;

/// A [`DelayingQueue`] whose retries wait as long as a [`RateLimiter`] says
/// (client-go `TypedRateLimitingInterface`).
///
/// It has every [`DelayingQueue`] and [`WorkQueue`](super::WorkQueue) method too, as Go
/// embeds the interfaces. Remember to [`forget`](Self::forget) an item once it succeeds, or the limiter
/// keeps counting its failures.
pub struct RateLimitingQueue<T> {
    queue: DelayingQueue<T>,
    limiter: Arc<dyn RateLimiter<T>>,
}

impl<T> Clone for RateLimitingQueue<T> {
    fn clone(&self) -> Self {
        Self { queue: self.queue.clone(), limiter: Arc::clone(&self.limiter) }
    }
}

impl<T> std::fmt::Debug for RateLimitingQueue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimitingQueue").field("queue", &self.queue).finish_non_exhaustive()
    }
}

impl<T: Eq + Hash + Clone + Send + Sync + 'static> RateLimitingQueue<T> {
    /// An unnamed queue without metrics (client-go `NewTypedRateLimitingQueue`).
    pub fn new(limiter: impl RateLimiter<T> + 'static) -> Self {
        Self::with_config(limiter, QueueConfig::new())
    }

    /// A named queue (client-go `NewNamedRateLimitingQueue`).
    pub fn named(limiter: impl RateLimiter<T> + 'static, name: impl Into<String>) -> Self {
        Self::with_config(limiter, QueueConfig::new().name(name))
    }

    /// A queue built from `config` (client-go `NewTypedRateLimitingQueueWithConfig`).
    pub fn with_config(limiter: impl RateLimiter<T> + 'static, config: QueueConfig) -> Self {
        Self { queue: DelayingQueue::with_config(config), limiter: Arc::new(limiter) }
    }

    /// Adds `item` after the delay the rate limiter picks for it (client-go `AddRateLimited`).
    pub fn add_rate_limited(&self, item: T) {
        let delay = self.limiter.when(&item);
        self.queue.add_after(item, delay);
    }

    /// Adds `item` once `delay` has passed (client-go `AddAfter`); see
    /// [`DelayingQueue::add_after`].
    pub fn add_after(&self, item: T, delay: Duration) {
        self.queue.add_after(item, delay);
    }

    /// The delaying queue underneath.
    pub fn as_delaying_queue(&self) -> &DelayingQueue<T> {
        &self.queue
    }

    /// Stops tracking `item`'s retries, whether it succeeded or failed for good (client-go
    /// `Forget`). It does not replace [`done`](super::WorkQueue::done).
    pub fn forget(&self, item: &T) {
        self.limiter.forget(item);
    }

    /// How many times `item` was requeued through [`add_rate_limited`](Self::add_rate_limited)
    /// since it was last forgotten (client-go `NumRequeues`).
    pub fn num_requeues(&self, item: &T) -> u32 {
        self.limiter.num_requeues(item)
    }
}

work_queue_methods!(RateLimitingQueue, queue);
