//! A work queue that can add items later (client-go `util/workqueue/delaying_queue.go`).

use std::hash::Hash;
use std::time::Duration;

use super::queue::{QueueConfig, WorkQueue};

/// A [`WorkQueue`] with [`add_after`](Self::add_after) (client-go `TypedDelayingInterface`),
/// to requeue items after failures without a hot loop.
///
/// It has every [`WorkQueue`] method too, as Go embeds the interface.
///
/// Delays are measured with [`tokio::time::Instant`], so tests can drive them with
/// `tokio::time::pause()` and `advance()`. There is no timer task: every queue operation
/// first moves the due items into the queue, and a waiting [`get`](Self::get) sleeps
/// until the earliest delay ends. So the queue can be built and used anywhere, and
/// [`len`](WorkQueue::len) counts an item as soon as its delay has passed. Delayed items
/// not yet due are dropped at shutdown, as client-go's waiting loop drops them.
pub struct DelayingQueue<T> {
    queue: WorkQueue<T>,
}

impl<T> Clone for DelayingQueue<T> {
    fn clone(&self) -> Self {
        Self { queue: self.queue.clone() }
    }
}

impl<T> std::fmt::Debug for DelayingQueue<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DelayingQueue").field(&self.queue).finish()
    }
}

impl<T: Eq + Hash + Clone + Send + Sync + 'static> Default for DelayingQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Eq + Hash + Clone + Send + Sync + 'static> DelayingQueue<T> {
    /// An unnamed delaying queue without metrics (client-go `NewTypedDelayingQueue`).
    pub fn new() -> Self {
        Self::with_config(QueueConfig::new())
    }

    /// A named delaying queue (client-go `NewNamedDelayingQueue`).
    pub fn named(name: impl Into<String>) -> Self {
        Self::with_config(QueueConfig::new().name(name))
    }

    /// A delaying queue built from `config` (client-go `NewTypedDelayingQueueWithConfig`).
    pub fn with_config(config: QueueConfig) -> Self {
        Self { queue: WorkQueue::with_config(config) }
    }

    /// Adds `item` once `delay` has passed (client-go `AddAfter`).
    ///
    /// A zero delay adds it now. If the item is already waiting, the sooner of the two
    /// times wins. Ignored after shutdown. Counts as a retry in the metrics.
    pub fn add_after(&self, item: T, delay: Duration) {
        self.queue.add_after(item, delay);
    }

    /// The plain queue handle underneath.
    pub fn as_work_queue(&self) -> &WorkQueue<T> {
        &self.queue
    }
}

work_queue_methods!(DelayingQueue, queue);
