//! Work queues for controllers (client-go `util/workqueue`), typed.
//!
//! An informer's event handlers turn changes into keys and [`add`](WorkQueue::add) them;
//! workers [`get`](WorkQueue::get) a key, reconcile it, then either
//! [`forget`](RateLimitingQueue::forget) it (success) or
//! [`add_rate_limited`](RateLimitingQueue::add_rate_limited) it (retry with backoff), and
//! always call [`done`](WorkQueue::done).
//!
//! - [`WorkQueue`]: deduplicates keys and never hands the same key to two workers at once;
//!   a key added while it is processing is queued again when it is done.
//! - [`DelayingQueue`]: adds [`add_after`](DelayingQueue::add_after).
//! - [`RateLimitingQueue`]: adds retries paced by a [`RateLimiter`]:
//!   [`ItemExponentialFailureRateLimiter`], [`BucketRateLimiter`],
//!   [`ItemFastSlowRateLimiter`], [`MaxOfRateLimiter`], [`WithMaxWaitRateLimiter`], or
//!   client-go's [`default_controller_rate_limiter`].
//! - Metrics ([`MetricsProvider`], [`InMemoryMetricsProvider`]) for named queues.
//!
//! Each queue is a cheap, cloneable handle. Timing uses [`tokio::time`], so tests can pause
//! the clock.
//!
//! # Example: a controller loop
//!
//! ```
//! use std::time::Duration;
//! use kube_informers_runtime::workqueue::{
//!     ItemExponentialFailureRateLimiter, QueueConfig, RateLimitingQueue,
//! };
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let queue: RateLimitingQueue<String> = RateLimitingQueue::with_config(
//!     ItemExponentialFailureRateLimiter::new(Duration::from_millis(1), Duration::from_secs(1)),
//!     QueueConfig::new().name("deployments"),
//! );
//!
//! // In an informer's event handler: queue the object's key.
//! queue.add("prod/web".to_owned());
//! queue.add("prod/api".to_owned());
//! queue.add("prod/web".to_owned()); // already queued: deduplicated
//!
//! // A worker.
//! let worker = tokio::spawn({
//!     let queue = queue.clone();
//!     async move {
//!         let mut reconciled = Vec::new();
//!         while let Some(key) = queue.get().await {
//!             // Pretend "prod/api" fails twice before it succeeds.
//!             let ok = key != "prod/api" || queue.num_requeues(&key) >= 2;
//!             if ok {
//!                 queue.forget(&key);
//!                 reconciled.push(key.clone());
//!             } else {
//!                 queue.add_rate_limited(key.clone());
//!             }
//!             queue.done(&key);
//!             if reconciled.len() == 2 {
//!                 queue.shut_down();
//!             }
//!         }
//!         reconciled
//!     }
//! });
//!
//! let reconciled = worker.await.unwrap();
//! assert_eq!(reconciled, ["prod/web", "prod/api"]);
//! # }
//! ```

#[macro_use]
mod delegate;

mod bucket;
mod default_limiters;
mod delaying;
mod error;
mod metrics;
mod queue;
mod rate_limiter;
mod rate_limiting;
mod state;

pub use bucket::BucketRateLimiter;
pub use default_limiters::{
    ItemExponentialFailureRateLimiter, ItemFastSlowRateLimiter, MaxOfRateLimiter,
    WithMaxWaitRateLimiter, default_controller_rate_limiter,
};
pub use delaying::DelayingQueue;
pub use error::{Result, WorkQueueError};
pub use metrics::{
    InMemoryMetricsProvider, InMemoryQueueMetrics, MetricsProvider, MetricsSnapshot, NoopMetrics,
    Observations, WorkQueueMetrics,
};
pub use queue::{QueueConfig, UNFINISHED_WORK_UPDATE_PERIOD, WorkQueue};
pub use rate_limiter::RateLimiter;
pub use rate_limiting::RateLimitingQueue;
