//! A token bucket for the overall retry rate (client-go `TypedBucketRateLimiter` over
//! `golang.org/x/time/rate`).

use std::time::Duration;

use parking_lot::Mutex;
use tokio::time::Instant;

use super::error::{Result, WorkQueueError};
use super::rate_limiter::RateLimiter;

/// A token bucket shared by all items: `burst` retries may go at once, then `qps` per
/// second. Each [`when`](RateLimiter::when) reserves a token and answers how long to wait
/// for it, like Go's `Limiter.Reserve().Delay()`. Items are not tracked:
/// [`num_requeues`](RateLimiter::num_requeues) is always 0.
///
/// Time is [`tokio::time::Instant`], so a paused test clock drives refills.
#[derive(Debug)]
pub struct BucketRateLimiter {
    qps: f64,
    burst: f64,
    bucket: Mutex<Bucket>,
}

#[derive(Debug)]
struct Bucket {
    /// Tokens available at `updated`; negative when reservations wait for future tokens.
    tokens: f64,
    updated: Option<Instant>,
}

impl BucketRateLimiter {
    /// A bucket refilled at `qps` tokens per second, holding at most `burst`, starting full.
    /// `f64::INFINITY` never waits. A rate that is not positive is an error.
    pub fn new(qps: f64, burst: u32) -> Result<Self> {
        if qps.is_nan() || qps <= 0.0 {
            return Err(WorkQueueError::InvalidRate { qps });
        }
        Ok(Self {
            qps,
            burst: f64::from(burst),
            bucket: Mutex::new(Bucket { tokens: f64::from(burst), updated: None }),
        })
    }

    /// client-go's controller default: 10 per second, burst 100.
    pub fn default_controller() -> Self {
        Self {
            qps: 10.0,
            burst: 100.0,
            bucket: Mutex::new(Bucket { tokens: 100.0, updated: None }),
        }
    }

    /// Reserves one token and returns how long to wait for it.
    fn reserve(&self) -> Duration {
        if self.qps.is_infinite() {
            return Duration::ZERO;
        }
        let now = Instant::now();
        let mut bucket = self.bucket.lock();
        if let Some(updated) = bucket.updated {
            let elapsed = now.saturating_duration_since(updated).as_secs_f64();
            bucket.tokens = (bucket.tokens + elapsed * self.qps).min(self.burst);
        }
        bucket.updated = Some(now);
        bucket.tokens -= 1.0;
        if bucket.tokens >= 0.0 {
            return Duration::ZERO;
        }
        Duration::try_from_secs_f64(-bucket.tokens / self.qps).unwrap_or(Duration::MAX)
    }
}

impl<T> RateLimiter<T> for BucketRateLimiter {
    fn when(&self, _item: &T) -> Duration {
        self.reserve()
    }

    fn forget(&self, _item: &T) {}

    fn num_requeues(&self, _item: &T) -> u32 {
        0
    }
}
