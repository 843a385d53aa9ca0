//! The deduplicating work queue (client-go `util/workqueue/queue.go`).

use std::fmt;
use std::hash::Hash;
use std::sync::{Arc, Weak};
use std::time::Duration;

use parking_lot::{Mutex, MutexGuard};
use tokio::sync::Notify;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::metrics::MetricsProvider;
use super::state::State;

/// How often a queue with metrics refreshes its unfinished-work gauges
/// (client-go `defaultUnfinishedWorkUpdatePeriod`).
pub const UNFINISHED_WORK_UPDATE_PERIOD: Duration = Duration::from_millis(500);

/// Delays are capped here so that adding them to "now" cannot overflow.
const MAX_DELAY: Duration = Duration::from_secs(86_400 * 365 * 30);

/// Options of a queue (client-go `TypedQueueConfig`).
#[derive(Clone, Default)]
pub struct QueueConfig {
    pub(super) name: Option<String>,
    pub(super) metrics_provider: Option<Arc<dyn MetricsProvider>>,
}

impl QueueConfig {
    /// No name and no metrics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Names the queue. Metrics are recorded only for named queues, as in client-go.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Records metrics through `provider` (client-go `MetricsProvider`); without one the
    /// queue records nothing.
    pub fn metrics_provider(mut self, provider: impl MetricsProvider + 'static) -> Self {
        self.metrics_provider = Some(Arc::new(provider));
        self
    }
}

impl fmt::Debug for QueueConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueueConfig")
            .field("name", &self.name)
            .field("metrics_provider", &self.metrics_provider.is_some())
            .finish()
    }
}

/// A work queue that hands out each item to one worker at a time (client-go `workqueue.Typed`).
///
/// - Adding an item that is already queued does nothing: it is processed once.
/// - An item handed out by [`get`](Self::get) is *processing* until [`done`](Self::done).
///   Adding it meanwhile marks it dirty; `done` then queues it again, so it is never
///   processed by two workers at once and no change is missed.
/// - After [`shut_down`](Self::shut_down), adds are ignored and `get` keeps returning the
///   queued items, then `None`.
///
/// Cloning gives another handle to the same queue. No method holds a lock across an
/// `.await`; waiting uses [`tokio::sync::Notify`] and timers, never a spin.
///
/// A queue built inside a Tokio runtime with metrics enabled runs one small task that
/// refreshes the unfinished-work gauges every [`UNFINISHED_WORK_UPDATE_PERIOD`]; it ends at
/// shutdown or when the last handle is dropped. Built outside a runtime, the queue works
/// the same but the gauges change only when
/// [`update_unfinished_work_metrics`](Self::update_unfinished_work_metrics) is called.
pub struct WorkQueue<T> {
    inner: Arc<Inner<T>>,
}

struct Inner<T> {
    name: Option<String>,
    state: Mutex<State<T>>,
    /// Wakes getters: an item was queued, a sooner delay was scheduled, or shutdown.
    items: Notify,
    /// Wakes `shut_down_with_drain`: processing became empty, or `shut_down` forced it.
    idle: Notify,
    stop: StopOnDrop,
}

/// Stops the metrics task when the last handle goes away.
struct StopOnDrop(CancellationToken);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

impl<T> Clone for WorkQueue<T> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

impl<T> fmt::Debug for WorkQueue<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WorkQueue").field("name", &self.inner.name).finish_non_exhaustive()
    }
}

impl<T: Eq + Hash + Clone + Send + Sync + 'static> Default for WorkQueue<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Eq + Hash + Clone + Send + Sync + 'static> WorkQueue<T> {
    /// An unnamed queue without metrics (client-go `NewTyped`).
    pub fn new() -> Self {
        Self::with_config(QueueConfig::new())
    }

    /// A named queue (client-go `NewNamed`); it records metrics only if a provider is set
    /// with [`with_config`](Self::with_config).
    pub fn named(name: impl Into<String>) -> Self {
        Self::with_config(QueueConfig::new().name(name))
    }

    /// A queue built from `config` (client-go `NewTypedWithConfig`).
    pub fn with_config(config: QueueConfig) -> Self {
        let metrics = match (&config.name, &config.metrics_provider) {
            (Some(name), Some(provider)) if !name.is_empty() => Some(provider.queue_metrics(name)),
            _ => None,
        };
        let with_metrics = metrics.is_some();
        let queue = Self {
            inner: Arc::new(Inner {
                name: config.name,
                state: Mutex::new(State::new(metrics)),
                items: Notify::new(),
                idle: Notify::new(),
                stop: StopOnDrop(CancellationToken::new()),
            }),
        };
        if with_metrics {
            queue.spawn_unfinished_work_loop();
        }
        queue
    }

    /// The queue's name, if it has one.
    pub fn name(&self) -> Option<&str> {
        self.inner.name.as_deref()
    }

    /// Marks `item` as needing processing (client-go `Add`). Ignored after shutdown.
    pub fn add(&self, item: T) {
        let mut state = self.lock();
        if state.add(item, Instant::now()) {
            self.inner.items.notify_one();
        }
    }

    /// How many items are queued and ready, for information only: do not gate
    /// [`add`](Self::add) or [`get`](Self::get) on it (client-go `Len`). Items being
    /// processed and delayed items not yet due are not counted.
    pub fn len(&self) -> usize {
        self.lock().queued_len()
    }

    /// Whether [`len`](Self::len) is zero.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Waits for an item to process (client-go `Get`). Returns `None` once the queue is
    /// shutting down and empty: the worker should then stop. Call [`done`](Self::done) with
    /// the item when finished with it.
    ///
    /// Cancel-safe: dropping the future never loses an item.
    pub async fn get(&self) -> Option<T> {
        loop {
            let notified = self.inner.items.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let next_ready_at = {
                let mut state = self.lock();
                if let Some(item) = state.pop(Instant::now()) {
                    if state.queued_len() > 0 {
                        self.inner.items.notify_one();
                    }
                    return Some(item);
                }
                if state.shutting_down {
                    return None;
                }
                state.next_ready_at()
            };
            match next_ready_at {
                Some(at) => {
                    tokio::select! {
                        () = &mut notified => {}
                        () = tokio::time::sleep_until(at) => {}
                    }
                }
                None => notified.await,
            }
        }
    }

    /// Marks `item` as processed (client-go `Done`). If it was added again meanwhile, it is
    /// queued again now.
    pub fn done(&self, item: &T) {
        let mut state = self.lock();
        let (requeued, idle) = state.done(item, Instant::now());
        drop(state);
        if requeued {
            self.inner.items.notify_one();
        }
        if idle {
            self.inner.idle.notify_waiters();
        }
    }

    /// Stops accepting items (client-go `ShutDown`). Workers keep getting the queued items,
    /// then `None`. Delayed items not yet due are dropped. Also ends a pending
    /// [`shut_down_with_drain`](Self::shut_down_with_drain) without waiting for workers.
    pub fn shut_down(&self) {
        {
            let mut state = self.inner.state.lock();
            state.drain = false;
            state.shutting_down = true;
            state.clear_waiting();
        }
        tracing::debug!(queue = ?self.inner.name, "workqueue shutting down");
        self.wake_all();
    }

    /// Like [`shut_down`](Self::shut_down), then waits until no item is processing
    /// (client-go `ShutDownWithDrain`). Workers must call [`done`](Self::done) for every
    /// item they got, or this waits forever; a later `shut_down` ends the wait.
    pub async fn shut_down_with_drain(&self) {
        {
            let mut state = self.inner.state.lock();
            state.drain = true;
            state.shutting_down = true;
            state.clear_waiting();
        }
        tracing::debug!(queue = ?self.inner.name, "workqueue shutting down, draining");
        self.wake_all();
        loop {
            let notified = self.inner.idle.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let state = self.inner.state.lock();
                if state.processing_is_empty() || !state.drain {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Whether the queue is shutting down (client-go `ShuttingDown`).
    pub fn shutting_down(&self) -> bool {
        self.inner.state.lock().shutting_down
    }

    /// Sets the unfinished-work and longest-running-processor gauges from the items
    /// processing now. The queue does this on its own every
    /// [`UNFINISHED_WORK_UPDATE_PERIOD`] when it runs inside a Tokio runtime.
    pub fn update_unfinished_work_metrics(&self) {
        let state = self.inner.state.lock();
        if !state.shutting_down {
            state.update_unfinished_work(Instant::now());
        }
    }

    /// Schedules `item` to be added after `delay`, keeping the sooner time if it is already
    /// scheduled; a zero delay adds it now. Ignored after shutdown.
    pub(super) fn add_after(&self, item: T, delay: Duration) {
        let now = Instant::now();
        let mut state = self.lock();
        if state.shutting_down {
            return;
        }
        state.record_retry();
        if delay.is_zero() {
            if state.add(item, now) {
                self.inner.items.notify_one();
            }
            return;
        }
        if state.schedule(item, now + delay.min(MAX_DELAY)) {
            drop(state);
            // Getters sleeping until a later deadline must look again.
            self.inner.items.notify_waiters();
        }
    }

    /// Locks the state after queueing the delayed items that are due, so every operation
    /// sees them in the queue on time without a timer task.
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        let mut state = self.inner.state.lock();
        if state.promote_due(Instant::now()) > 0 {
            self.inner.items.notify_one();
        }
        state
    }

    fn wake_all(&self) {
        self.inner.stop.0.cancel();
        self.inner.items.notify_waiters();
        self.inner.idle.notify_waiters();
    }

    fn spawn_unfinished_work_loop(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::debug!(queue = ?self.inner.name, "no Tokio runtime: unfinished-work gauges update on demand only");
            return;
        };
        let weak: Weak<Inner<T>> = Arc::downgrade(&self.inner);
        let stop = self.inner.stop.0.clone();
        runtime.spawn(async move {
            let start = Instant::now() + UNFINISHED_WORK_UPDATE_PERIOD;
            let mut ticker = tokio::time::interval_at(start, UNFINISHED_WORK_UPDATE_PERIOD);
            loop {
                tokio::select! {
                    () = stop.cancelled() => return,
                    _ = ticker.tick() => {}
                }
                let Some(inner) = weak.upgrade() else { return };
                WorkQueue { inner }.update_unfinished_work_metrics();
            }
        });
    }
}
