//! The per-listener notification buffer (client-go's `pendingNotifications` ring buffer
//! plus `synctrack.SingleFileTracker`'s counter), with its optional bound.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use parking_lot::{Condvar, Mutex, MutexGuard};
use tokio::sync::Notify;

use super::notification::Notification;
use super::options::{Bound, OverflowPolicy};

/// How many handled notifications a listener holds for its producer to free, at most: past
/// this, it frees them itself (see
/// [`SharedProcessor`](super::SharedProcessor#which-thread-frees-an-object)). It bounds
/// what the hand-back keeps alive: 16 of the benchmark's decoded Pods are about 1.6 MB.
pub const RELEASE_HELD_MAX: usize = 16;

/// How long a listener with nothing to handle keeps its handled notifications for the
/// producer before it frees them itself: the longest a handled object outlives its last
/// notification when no more come (see
/// [`SharedProcessor`](super::SharedProcessor#which-thread-frees-an-object)).
pub const RELEASE_IDLE: std::time::Duration = std::time::Duration::from_secs(1);

/// Notifications queued for one listener, with the counts its handle reports.
///
/// Unbounded by default, as in client-go: a handler that stalls makes its buffer grow
/// without limit, until the process runs out of memory. Each entry is a few `Arc`s, never a
/// copy of an object, but the objects it keeps alive stay in memory.
///
/// With a [`Bound`], [`try_push`](Self::try_push) (the single place notifications enter)
/// never lets `pending` (queued plus being handled) exceed `max`. At the bound,
/// [`OverflowPolicy::Block`] hands the notification back for the producer to retry once
/// the consumer has made room ([`push_when_room`](Self::push_when_room) waits for that),
/// and [`OverflowPolicy::Disconnect`] closes the buffer for good, freeing what it held and
/// marking it disconnected. Nothing is dropped without the producer being told.
///
/// A handled notification is handed back ([`next`](Self::next)), and the producer
/// drops it in its next [`try_push`](Self::try_push): see
/// [`SharedProcessor`](super::SharedProcessor#which-thread-frees-an-object) for why. The
/// listener drops what it holds itself once it holds [`RELEASE_HELD_MAX`], after
/// [`RELEASE_IDLE`] with nothing to handle, and when the buffer closes.
pub(crate) struct NotificationBuffer<K> {
    bound: Option<Bound>,
    state: Mutex<State<K>>,
    ready: Condvar,
    /// Woken when a bounded, blocking buffer gains room or closes.
    room: Notify,
    /// Mirrors `State::closed`, for readers that should not contend with the producer.
    closed: AtomicBool,
    /// Set, before `closed`, when the buffer closed because it overflowed.
    disconnected: AtomicBool,
    /// Queued or being handled, not yet finished.
    pending: AtomicUsize,
    /// Initial-list adds queued or being handled, not yet finished.
    initial_list_pending: AtomicUsize,
}

struct State<K> {
    queued: VecDeque<Notification<K>>,
    /// Handled notifications, for the producer to drop.
    handled: Vec<Notification<K>>,
    closed: bool,
}

/// What became of a notification offered to a buffer.
#[derive(Debug)]
pub(crate) enum Pushed<K> {
    /// Queued for the consumer.
    Queued,
    /// Refused: the buffer was already closed (removed, shut down or disconnected).
    Closed,
    /// Handed back: the buffer is full and its policy is [`OverflowPolicy::Block`].
    Full(Notification<K>),
    /// Refused, and the buffer is now disconnected: it was full and its policy is
    /// [`OverflowPolicy::Disconnect`].
    Overflowed,
}

impl<K> NotificationBuffer<K> {
    pub(crate) fn new(bound: Option<Bound>) -> Self {
        Self {
            bound,
            state: Mutex::new(State {
                queued: VecDeque::new(),
                handled: Vec::new(),
                closed: false,
            }),
            ready: Condvar::new(),
            room: Notify::new(),
            closed: AtomicBool::new(false),
            disconnected: AtomicBool::new(false),
            pending: AtomicUsize::new(0),
            initial_list_pending: AtomicUsize::new(0),
        }
    }

    /// Offers `notification`, never waiting for the consumer: queues it, unless the buffer
    /// is closed or at its bound (see [`Pushed`]). Moves the notifications the consumer has
    /// handled since into `handled`, for the caller to drop outside its locks.
    pub(crate) fn try_push(
        &self,
        notification: Notification<K>,
        handled: &mut Vec<Notification<K>>,
    ) -> Pushed<K> {
        let mut state = self.state.lock();
        handled.append(&mut state.handled);
        if state.closed {
            return Pushed::Closed;
        }
        // `pending` only grows under this lock, so the check cannot be overtaken by another
        // push; the consumer may lower it meanwhile, which only makes the check cautious.
        if let Some(bound) = self.bound
            && self.pending.load(Ordering::Acquire) >= bound.max.get()
        {
            return match bound.policy {
                OverflowPolicy::Block => Pushed::Full(notification),
                OverflowPolicy::Disconnect => {
                    self.disconnected.store(true, Ordering::Release);
                    let dropped = self.close_locked(state);
                    drop((dropped, notification));
                    Pushed::Overflowed
                }
            };
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
        Pushed::Queued
    }

    /// Offers `notification`, waiting (asynchronously) while the buffer is full under
    /// [`OverflowPolicy::Block`]; never returns [`Pushed::Full`]. Closing the buffer
    /// releases the wait.
    pub(crate) async fn push_when_room(&self, mut notification: Notification<K>) -> Pushed<K> {
        let mut handled = Vec::new();
        loop {
            let room = self.room.notified();
            tokio::pin!(room);
            // Registered before trying, so room made in between still wakes us.
            room.as_mut().enable();
            match self.try_push(notification, &mut handled) {
                Pushed::Full(back) => notification = back,
                done => return done,
            }
            room.await;
        }
    }

    /// Hands back `done`, the notification the consumer last took, if any (see
    /// [`handed_back`](Self::handed_back)), then waits for the oldest queued notification
    /// and takes it; `None` once the buffer is closed, even if notifications were queued.
    ///
    /// One at a time, not in batches: whatever the consumer has not taken stays in the
    /// buffer, where `close` can drop and uncount it at once. Handing back and taking share
    /// one lock, so the hand-back costs the consumer no extra locking.
    pub(crate) fn next(&self, done: Option<Notification<K>>) -> Option<Notification<K>> {
        let mut state = self.state.lock();
        if let Some(done) = done {
            state = self.handed_back(state, done);
        }
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
            if state.handled.is_empty() {
                self.ready.wait(&mut state);
            } else if self.ready.wait_for(&mut state, RELEASE_IDLE).timed_out() {
                // Idle: the producer is not coming back soon to free them.
                let handled = std::mem::take(&mut state.handled);
                state = self.drop_unlocked(state, handled);
            }
        }
    }

    /// Records that the handler has finished with `done` (returned or panicked), and keeps
    /// it for the producer to drop, or drops it here, with the others held, once they reach
    /// [`RELEASE_HELD_MAX`] (and alone once the buffer is closed). Returns the lock, taken
    /// again if it had to be let go for the drop.
    fn handed_back<'a>(
        &'a self,
        mut state: MutexGuard<'a, State<K>>,
        done: Notification<K>,
    ) -> MutexGuard<'a, State<K>> {
        let initial_list_add = done.is_initial_list_add();
        let to_drop = if state.closed {
            vec![done]
        } else {
            state.handled.push(done);
            if state.handled.len() >= RELEASE_HELD_MAX {
                std::mem::take(&mut state.handled)
            } else {
                Vec::new()
            }
        };
        if !to_drop.is_empty() {
            state = self.drop_unlocked(state, to_drop);
        }
        // After the drop: whoever sees the notification finished sees it freed or held,
        // never in between.
        if initial_list_add {
            self.initial_list_pending.fetch_sub(1, Ordering::AcqRel);
        }
        self.pending.fetch_sub(1, Ordering::AcqRel);
        if self.bound.is_some_and(|bound| bound.policy == OverflowPolicy::Block) {
            self.room.notify_waiters();
        }
        state
    }

    /// Drops `notifications` with the lock let go, and takes it again: an object's
    /// destructor never runs under the lock.
    fn drop_unlocked<'a>(
        &'a self,
        state: MutexGuard<'a, State<K>>,
        notifications: Vec<Notification<K>>,
    ) -> MutexGuard<'a, State<K>> {
        drop(state);
        drop(notifications);
        self.state.lock()
    }

    /// Closes the buffer: later pushes are refused, queued notifications are dropped and
    /// uncounted from `pending`, the consumer is woken to exit, and a producer waiting for
    /// room is released.
    ///
    /// Dropped initial-list adds stay counted in `initial_list_pending`: the handler never
    /// saw them, so it must never report itself synced.
    /// Returns false if it was already closed.
    pub(crate) fn close(&self) -> bool {
        let state = self.state.lock();
        if state.closed {
            return false;
        }
        drop(self.close_locked(state));
        true
    }

    /// Closes an open buffer whose lock the caller holds, wakes the consumer and any
    /// producer waiting for room, and returns the dropped notifications, for the caller to
    /// drop: releasing the last `Arc` of an object runs its destructor, which must not run
    /// under the lock.
    fn close_locked(&self, mut state: MutexGuard<'_, State<K>>) -> VecDeque<Notification<K>> {
        state.closed = true;
        self.closed.store(true, Ordering::Release);
        let mut dropped = std::mem::take(&mut state.queued);
        self.pending.fetch_sub(dropped.len(), Ordering::AcqRel);
        dropped.extend(std::mem::take(&mut state.handled));
        drop(state);
        self.ready.notify_all();
        self.room.notify_waiters();
        dropped
    }

    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// Whether the buffer closed because it overflowed under
    /// [`OverflowPolicy::Disconnect`].
    pub(crate) fn is_disconnected(&self) -> bool {
        self.disconnected.load(Ordering::Acquire)
    }

    pub(crate) fn bound(&self) -> Option<Bound> {
        self.bound
    }

    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }

    pub(crate) fn initial_list_pending(&self) -> usize {
        self.initial_list_pending.load(Ordering::Acquire)
    }
}
