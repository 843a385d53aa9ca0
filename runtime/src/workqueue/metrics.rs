//! Queue metrics (client-go `util/workqueue/metrics.go`).
//!
//! A queue records through one [`WorkQueueMetrics`] per queue name, obtained from a
//! [`MetricsProvider`] given in [`QueueConfig`](super::QueueConfig). As in client-go, an
//! unnamed queue or a queue without a provider records nothing. [`InMemoryMetricsProvider`]
//! keeps plain counters that tests and dashboards can read; with the `metrics` feature,
//! `metrics::prometheus::WorkQueueMetricsProvider` records them in a prometheus-client
//! registry under client-go's names (`workqueue_depth`, `workqueue_adds_total`, …).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;

/// What one named queue records. Every method has a no-op default, so an implementation
/// only overrides what it exports.
pub trait WorkQueueMetrics: Send + Sync {
    /// An item entered the queue (client-go `depth.Inc`).
    fn inc_depth(&self) {}
    /// An item left the queue for processing (client-go `depth.Dec`).
    fn dec_depth(&self) {}
    /// A new (not deduplicated) add was accepted (client-go `adds`).
    fn inc_adds(&self) {}
    /// How long an item waited in the queue before a worker got it (client-go `latency`).
    fn observe_latency(&self, _waited: Duration) {}
    /// How long a worker held an item, from `get` to `done` (client-go `workDuration`).
    fn observe_work_duration(&self, _worked: Duration) {}
    /// Total seconds of work in progress that has not been marked done
    /// (client-go `unfinishedWorkSeconds`).
    fn set_unfinished_work_seconds(&self, _seconds: f64) {}
    /// Seconds the longest-running item has been processing
    /// (client-go `longestRunningProcessor`).
    fn set_longest_running_processor_seconds(&self, _seconds: f64) {}
    /// `add_after` or `add_rate_limited` was called (client-go `retries`).
    fn inc_retries(&self) {}
}

/// Creates the [`WorkQueueMetrics`] of each named queue (client-go `MetricsProvider`).
pub trait MetricsProvider: Send + Sync {
    /// The metrics for the queue called `name`. Called once per queue, when it is built.
    fn queue_metrics(&self, name: &str) -> Arc<dyn WorkQueueMetrics>;
}

/// Records nothing; what an unnamed queue, or a queue without a provider, uses.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoopMetrics;

impl WorkQueueMetrics for NoopMetrics {}

impl MetricsProvider for NoopMetrics {
    fn queue_metrics(&self, _name: &str) -> Arc<dyn WorkQueueMetrics> {
        Arc::new(NoopMetrics)
    }
}

/// Count, sum and last value of a duration series.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Observations {
    /// How many observations were made.
    pub count: u64,
    /// Their sum.
    pub sum: Duration,
    /// The most recent one.
    pub last: Option<Duration>,
}

impl Observations {
    fn observe(&mut self, value: Duration) {
        self.count += 1;
        self.sum = self.sum.saturating_add(value);
        self.last = Some(value);
    }
}

/// The values an [`InMemoryQueueMetrics`] holds at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MetricsSnapshot {
    /// Items waiting in the queue (not counting delayed items not yet due).
    pub depth: i64,
    /// Accepted adds.
    pub adds: u64,
    /// Time items spent queued.
    pub latency: Observations,
    /// Time items spent processing.
    pub work_duration: Observations,
    /// Last value set for unfinished work, in seconds.
    pub unfinished_work_seconds: f64,
    /// Last value set for the longest running processor, in seconds.
    pub longest_running_processor_seconds: f64,
    /// Delayed or rate-limited re-adds.
    pub retries: u64,
}

/// In-memory metrics of one queue.
#[derive(Debug, Default)]
pub struct InMemoryQueueMetrics {
    values: Mutex<MetricsSnapshot>,
}

impl InMemoryQueueMetrics {
    /// A copy of the current values.
    pub fn snapshot(&self) -> MetricsSnapshot {
        self.values.lock().clone()
    }
}

impl WorkQueueMetrics for InMemoryQueueMetrics {
    fn inc_depth(&self) {
        self.values.lock().depth += 1;
    }
    fn dec_depth(&self) {
        self.values.lock().depth -= 1;
    }
    fn inc_adds(&self) {
        self.values.lock().adds += 1;
    }
    fn observe_latency(&self, waited: Duration) {
        self.values.lock().latency.observe(waited);
    }
    fn observe_work_duration(&self, worked: Duration) {
        self.values.lock().work_duration.observe(worked);
    }
    fn set_unfinished_work_seconds(&self, seconds: f64) {
        self.values.lock().unfinished_work_seconds = seconds;
    }
    fn set_longest_running_processor_seconds(&self, seconds: f64) {
        self.values.lock().longest_running_processor_seconds = seconds;
    }
    fn inc_retries(&self) {
        self.values.lock().retries += 1;
    }
}

/// A [`MetricsProvider`] keeping each queue's metrics in memory, readable by name.
///
/// Cloning shares the same registry. Two queues built with the same name share metrics.
#[derive(Debug, Clone, Default)]
pub struct InMemoryMetricsProvider {
    queues: Arc<Mutex<HashMap<String, Arc<InMemoryQueueMetrics>>>>,
}

impl InMemoryMetricsProvider {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The metrics of the queue called `name`, if such a queue was built.
    pub fn queue(&self, name: &str) -> Option<Arc<InMemoryQueueMetrics>> {
        self.queues.lock().get(name).cloned()
    }

    /// The names of the queues built with this provider, sorted.
    pub fn queue_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.queues.lock().keys().cloned().collect();
        names.sort();
        names
    }
}

impl MetricsProvider for InMemoryMetricsProvider {
    fn queue_metrics(&self, name: &str) -> Arc<dyn WorkQueueMetrics> {
        let mut queues = self.queues.lock();
        Arc::clone(queues.entry(name.to_owned()).or_default()) as Arc<dyn WorkQueueMetrics>
    }
}
