//! The lock-protected bookkeeping shared by every queue flavour.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::Arc;

use tokio::time::Instant;

use super::metrics::WorkQueueMetrics;

/// Dirty and processing sets, the FIFO of ready items and the delayed items.
///
/// Invariants (client-go `queue.go`): every queued item is dirty and not processing; an
/// item that is both dirty and processing is queued again by [`State::done`].
pub(super) struct State<T> {
    queue: VecDeque<T>,
    dirty: HashSet<T>,
    processing: HashSet<T>,
    /// Delayed items by (ready time, arrival order); at most one entry per item.
    waiting: BTreeMap<(Instant, u64), T>,
    waiting_by_item: HashMap<T, (Instant, u64)>,
    next_seq: u64,
    pub(super) shutting_down: bool,
    pub(super) drain: bool,
    metrics: ItemMetrics<T>,
}

/// Per-item timing for the metrics, kept only when metrics are enabled.
struct ItemMetrics<T> {
    sink: Option<Arc<dyn WorkQueueMetrics>>,
    add_times: HashMap<T, Instant>,
    processing_since: HashMap<T, Instant>,
}

impl<T: Eq + Hash + Clone> State<T> {
    pub(super) fn new(metrics: Option<Arc<dyn WorkQueueMetrics>>) -> Self {
        Self {
            queue: VecDeque::new(),
            dirty: HashSet::new(),
            processing: HashSet::new(),
            waiting: BTreeMap::new(),
            waiting_by_item: HashMap::new(),
            next_seq: 0,
            shutting_down: false,
            drain: false,
            metrics: ItemMetrics {
                sink: metrics,
                add_times: HashMap::new(),
                processing_since: HashMap::new(),
            },
        }
    }

    pub(super) fn queued_len(&self) -> usize {
        self.queue.len()
    }

    pub(super) fn processing_is_empty(&self) -> bool {
        self.processing.is_empty()
    }

    /// Marks `item` dirty and queues it unless it is being processed. Returns whether it
    /// was queued (and a getter should be woken).
    pub(super) fn add(&mut self, item: T, now: Instant) -> bool {
        if self.shutting_down || self.dirty.contains(&item) {
            return false;
        }
        if let Some(sink) = &self.metrics.sink {
            sink.inc_adds();
            sink.inc_depth();
            self.metrics.add_times.entry(item.clone()).or_insert(now);
        }
        self.dirty.insert(item.clone());
        if self.processing.contains(&item) {
            return false;
        }
        self.queue.push_back(item);
        true
    }

    /// Hands the next queued item to a worker.
    pub(super) fn pop(&mut self, now: Instant) -> Option<T> {
        let item = self.queue.pop_front()?;
        if let Some(sink) = &self.metrics.sink {
            sink.dec_depth();
            self.metrics.processing_since.insert(item.clone(), now);
            if let Some(added) = self.metrics.add_times.remove(&item) {
                sink.observe_latency(now.saturating_duration_since(added));
            }
        }
        self.dirty.remove(&item);
        self.processing.insert(item.clone());
        Some(item)
    }

    /// Ends processing of `item`. Returns (queued again, nothing left processing).
    pub(super) fn done(&mut self, item: &T, now: Instant) -> (bool, bool) {
        if let Some(sink) = &self.metrics.sink
            && let Some(started) = self.metrics.processing_since.remove(item)
        {
            sink.observe_work_duration(now.saturating_duration_since(started));
        }
        self.processing.remove(item);
        let requeued = self.dirty.contains(item);
        if requeued {
            self.queue.push_back(item.clone());
        }
        (requeued, self.processing.is_empty())
    }

    /// Counts a delayed or rate-limited add.
    pub(super) fn record_retry(&self) {
        if let Some(sink) = &self.metrics.sink {
            sink.inc_retries();
        }
    }

    /// Schedules `item` for `ready_at`; an item already waiting keeps the sooner of the two
    /// times (client-go `insert`). Returns whether this is now the earliest entry.
    pub(super) fn schedule(&mut self, item: T, ready_at: Instant) -> bool {
        if let Some(&existing) = self.waiting_by_item.get(&item) {
            if existing.0 <= ready_at {
                return false;
            }
            self.waiting.remove(&existing);
        }
        let key = (ready_at, self.next_seq);
        self.next_seq += 1;
        self.waiting_by_item.insert(item.clone(), key);
        self.waiting.insert(key, item);
        self.waiting.first_key_value().map(|(k, _)| *k) == Some(key)
    }

    /// Moves every delayed item due at `now` into the queue, earliest first. Returns how
    /// many were queued.
    pub(super) fn promote_due(&mut self, now: Instant) -> usize {
        let mut queued = 0;
        while let Some(entry) = self.waiting.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let item = entry.remove();
            self.waiting_by_item.remove(&item);
            if self.add(item, now) {
                queued += 1;
            }
        }
        queued
    }

    /// When the earliest delayed item becomes due.
    pub(super) fn next_ready_at(&self) -> Option<Instant> {
        self.waiting.first_key_value().map(|((at, _), _)| *at)
    }

    /// Drops the delayed items: client-go's waiting loop ends at shutdown without adding them.
    pub(super) fn clear_waiting(&mut self) {
        self.waiting.clear();
        self.waiting_by_item.clear();
    }

    /// Pushes the unfinished-work gauges (client-go `updateUnfinishedWork`).
    pub(super) fn update_unfinished_work(&self, now: Instant) {
        let Some(sink) = &self.metrics.sink else {
            return;
        };
        let mut total = 0.0;
        let mut oldest: f64 = 0.0;
        for started in self.metrics.processing_since.values() {
            let age = now.saturating_duration_since(*started).as_secs_f64();
            total += age;
            oldest = oldest.max(age);
        }
        sink.set_unfinished_work_seconds(total);
        sink.set_longest_running_processor_seconds(oldest);
    }
}
