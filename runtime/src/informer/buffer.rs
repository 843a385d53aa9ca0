//! The per-listener notification buffer (client-go's `pendingNotifications` ring buffer
//! plus `synctrack.SingleFileTracker`'s counter).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::{Condvar, Mutex};

use super::notification::Notification;

/// Notifications queued for one listener, with the counts its handle reports.
///
/// The buffer is **unbounded**, as in client-go: a handler that stalls makes its buffer
/// grow without limit, until the process runs out of memory. Each entry is a few `Arc`s,
/// never a copy of an object, but the objects it keeps alive stay in memory. A bound, when
/// one is added, belongs in [`NotificationBuffer::push`], the single place notifications
/// enter.
pub(crate) struct NotificationBuffer<K> {
    state: Mutex<State<K>>,
    ready: Condvar,
    /// Mirrors `State::closed`, for readers that should not contend with the producer.
    closed: AtomicBool,
    /// Queued or being handled, not yet finished.
    pending: AtomicUsize,
    /// Initial-list adds queued or being handled, not yet finished.
    initial_list_pending: AtomicUsize,
}

struct State<K> {
    queued: VecDeque<Notification<K>>,
    closed: bool,
}

impl<K> NotificationBuffer<K> {
    pub(crate) fn new() -> Self {
        Self {
            state: Mutex::new(State { queued: VecDeque::new(), closed: false }),
            ready: Condvar::new(),
            closed: AtomicBool::new(false),
            pending: AtomicUsize::new(0),
            initial_list_pending: AtomicUsize::new(0),
        }
    }

    /// Queues `notification`, without ever blocking on the consumer. Returns false, and
    /// drops the notification, once the buffer is closed.
    pub(crate) fn push(&self, notification: Notification<K>) -> bool {
        let mut state = self.state.lock();
        if state.closed {
            return false;
        }
        // Counted under the lock, before the consumer can see the notification, so neither
        // count can dip below its true value, and `close` can subtract exactly what it drops.
        self.pending.fetch_add(1, Ordering::AcqRel);
        if notification.is_initial_list_add() {
            self.initial_list_pending.fetch_add(1, Ordering::AcqRel);
        }
        state.queued.push_back(notification);
        drop(state);
        self.ready.notify_one();
        true
    }

    /// Waits for the oldest queued notification and takes it; `None` once the buffer is
    /// closed, even if notifications were queued.
    ///
    /// One at a time, not in batches: whatever the consumer has not taken stays in the
    /// buffer, where `close` can drop and uncount it at once.
    pub(crate) fn next(&self) -> Option<Notification<K>> {
        let mut state = self.state.lock();
        let mut yielded = false;
        loop {
            if state.closed {
                return None;
            }
            if let Some(notification) = state.queued.pop_front() {
                return Some(notification);
            }
            // Yield once before parking: a busy producer usually refills the queue meanwhile,
            // which saves it a wake-up per notification (about 10x fan-out throughput in
            // benches/fanout.rs). An idle listener parks after one yield.
            if !yielded {
                yielded = true;
                drop(state);
                std::thread::yield_now();
                state = self.state.lock();
                continue;
            }
            self.ready.wait(&mut state);
        }
    }

    /// Records that the handler has finished with `notification` (returned or panicked).
    pub(crate) fn handled(&self, notification: &Notification<K>) {
        if notification.is_initial_list_add() {
            self.initial_list_pending.fetch_sub(1, Ordering::AcqRel);
        }
        self.pending.fetch_sub(1, Ordering::AcqRel);
    }

    /// Closes the buffer: later pushes are refused, queued notifications are dropped and
    /// uncounted from `pending`, and the consumer is woken to exit.
    ///
    /// Dropped initial-list adds stay counted in `initial_list_pending`: the handler never
    /// saw them, so it must never report itself synced.
    /// Returns false if it was already closed.
    pub(crate) fn close(&self) -> bool {
        let mut state = self.state.lock();
        if state.closed {
            return false;
        }
        state.closed = true;
        self.closed.store(true, Ordering::Release);
        let dropped = std::mem::take(&mut state.queued);
        self.pending.fetch_sub(dropped.len(), Ordering::AcqRel);
        drop(state);
        self.ready.notify_all();
        // Dropped outside the lock: releasing the last `Arc` of an object runs its destructor.
        drop(dropped);
        true
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }

    pub(crate) fn initial_list_pending(&self) -> usize {
        self.initial_list_pending.load(Ordering::Acquire)
    }
}
