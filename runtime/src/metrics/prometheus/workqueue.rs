//! client-go's work queue metrics (`workqueue_depth`, `workqueue_adds_total`, …) as a
//! [`MetricsProvider`] over prometheus-client.

use std::sync::Arc;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use crate::workqueue::{MetricsProvider, WorkQueueMetrics};

/// The `name` label of one queue.
type QueueLabels = [(&'static str, String); 1];

type Histograms = Family<QueueLabels, Histogram, fn() -> Histogram>;

/// client-go's buckets for queue and work durations: 10ns to 1000s, by powers of ten.
fn duration_histogram() -> Histogram {
    Histogram::new(exponential_buckets(10e-9, 10.0, 12))
}

/// Records every named queue's metrics in a prometheus-client [`Registry`], under
/// client-go's names, with the queue's name as the `name` label:
///
/// | metric | type | what |
/// |---|---|---|
/// | `workqueue_depth` | gauge | items waiting in the queue |
/// | `workqueue_adds_total` | counter | adds accepted (not deduplicated) |
/// | `workqueue_queue_duration_seconds` | histogram | how long an item waited before a worker got it |
/// | `workqueue_work_duration_seconds` | histogram | how long a worker held an item, `get` to `done` |
/// | `workqueue_unfinished_work_seconds` | gauge | seconds of work in progress not yet done |
/// | `workqueue_longest_running_processor_seconds` | gauge | how long the longest-running item has been processing |
/// | `workqueue_retries_total` | counter | `add_after` and `add_rate_limited` calls |
///
/// Create one per registry and clone it for every queue: a second provider on the same
/// registry would register the names twice.
///
/// ```
/// use kube_informers_runtime::metrics::prometheus::WorkQueueMetricsProvider;
/// use kube_informers_runtime::workqueue::{QueueConfig, WorkQueue};
/// use prometheus_client::registry::Registry;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let mut registry = Registry::default();
/// let provider = WorkQueueMetricsProvider::new(&mut registry);
/// let queue: WorkQueue<String> =
///     WorkQueue::with_config(QueueConfig::new().name("deployments").metrics_provider(provider));
/// queue.add("prod/web".to_owned());
///
/// let mut text = String::new();
/// prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
/// assert!(text.contains(r#"workqueue_adds_total{name="deployments"} 1"#));
/// assert!(text.contains(r#"workqueue_depth{name="deployments"} 1"#));
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct WorkQueueMetricsProvider {
    families: Arc<Families>,
}

#[derive(Debug)]
struct Families {
    depth: Family<QueueLabels, Gauge>,
    adds: Family<QueueLabels, Counter>,
    latency: Histograms,
    work_duration: Histograms,
    unfinished_work: Family<QueueLabels, Gauge<f64, AtomicU64>>,
    longest_running_processor: Family<QueueLabels, Gauge<f64, AtomicU64>>,
    retries: Family<QueueLabels, Counter>,
}

impl WorkQueueMetricsProvider {
    /// A provider whose metrics are registered with `registry`.
    pub fn new(registry: &mut Registry) -> Self {
        let families = Families {
            depth: Family::default(),
            adds: Family::default(),
            latency: Family::new_with_constructor(duration_histogram),
            work_duration: Family::new_with_constructor(duration_histogram),
            unfinished_work: Family::default(),
            longest_running_processor: Family::default(),
            retries: Family::default(),
        };
        registry.register("workqueue_depth", "Current depth of workqueue", families.depth.clone());
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            families.adds.clone(),
        );
        registry.register_with_unit(
            "workqueue_queue_duration",
            "How long in seconds an item stays in workqueue before being requested",
            Unit::Seconds,
            families.latency.clone(),
        );
        registry.register_with_unit(
            "workqueue_work_duration",
            "How long in seconds processing an item from workqueue takes",
            Unit::Seconds,
            families.work_duration.clone(),
        );
        registry.register_with_unit(
            "workqueue_unfinished_work",
            "How many seconds of work has been done that is in progress and hasn't been \
             observed by work_duration",
            Unit::Seconds,
            families.unfinished_work.clone(),
        );
        registry.register_with_unit(
            "workqueue_longest_running_processor",
            "How many seconds has the longest running processor for workqueue been running",
            Unit::Seconds,
            families.longest_running_processor.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            families.retries.clone(),
        );
        Self { families: Arc::new(families) }
    }
}

impl MetricsProvider for WorkQueueMetricsProvider {
    fn queue_metrics(&self, name: &str) -> Arc<dyn WorkQueueMetrics> {
        let labels = [("name", name.to_owned())];
        let f = &self.families;
        Arc::new(QueueMetrics {
            depth: f.depth.get_or_create_owned(&labels),
            adds: f.adds.get_or_create_owned(&labels),
            latency: f.latency.get_or_create_owned(&labels),
            work_duration: f.work_duration.get_or_create_owned(&labels),
            unfinished_work: f.unfinished_work.get_or_create_owned(&labels),
            longest_running_processor: f.longest_running_processor.get_or_create_owned(&labels),
            retries: f.retries.get_or_create_owned(&labels),
        })
    }
}

/// One queue's series; each is a handle on the value its family encodes.
struct QueueMetrics {
    depth: Gauge,
    adds: Counter,
    latency: Histogram,
    work_duration: Histogram,
    unfinished_work: Gauge<f64, AtomicU64>,
    longest_running_processor: Gauge<f64, AtomicU64>,
    retries: Counter,
}

impl WorkQueueMetrics for QueueMetrics {
    fn inc_depth(&self) {
        self.depth.inc();
    }
    fn dec_depth(&self) {
        self.depth.dec();
    }
    fn inc_adds(&self) {
        self.adds.inc();
    }
    fn observe_latency(&self, waited: Duration) {
        self.latency.observe(waited.as_secs_f64());
    }
    fn observe_work_duration(&self, worked: Duration) {
        self.work_duration.observe(worked.as_secs_f64());
    }
    fn set_unfinished_work_seconds(&self, seconds: f64) {
        self.unfinished_work.set(seconds);
    }
    fn set_longest_running_processor_seconds(&self, seconds: f64) {
        self.longest_running_processor.set(seconds);
    }
    fn inc_retries(&self) {
        self.retries.inc();
    }
}
