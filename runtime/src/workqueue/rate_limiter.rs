//! The rate limiter trait: how long an item waits before it is retried (client-go's
//! `TypedRateLimiter` in `util/workqueue/default_rate_limiters.go`).

use std::sync::Arc;
use std::time::Duration;

/// Decides how long an item waits before it is retried (client-go `TypedRateLimiter`).
pub trait RateLimiter<T>: Send + Sync {
    /// How long `item` should wait now; counts as one more requeue of it.
    fn when(&self, item: &T) -> Duration;
    /// Stops tracking `item`, after success or final failure.
    fn forget(&self, item: &T);
    /// How many failures `item` has had since it was last forgotten.
    fn num_requeues(&self, item: &T) -> u32;
}

impl<T, L: RateLimiter<T> + ?Sized> RateLimiter<T> for Box<L> {
    fn when(&self, item: &T) -> Duration {
        (**self).when(item)
    }
    fn forget(&self, item: &T) {
        (**self).forget(item)
    }
    fn num_requeues(&self, item: &T) -> u32 {
        (**self).num_requeues(item)
    }
}

impl<T, L: RateLimiter<T> + ?Sized> RateLimiter<T> for Arc<L> {
    fn when(&self, item: &T) -> Duration {
        (**self).when(item)
    }
    fn forget(&self, item: &T) {
        (**self).forget(item)
    }
    fn num_requeues(&self, item: &T) -> u32 {
        (**self).num_requeues(item)
    }
}
