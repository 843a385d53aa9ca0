//! One handler's listener: its buffer, the thread that calls the handler, and the
//! [`ListenerHandle`] that observes it (client-go's `processorListener`).

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

use tokio::sync::watch;
use tracing::{debug, error, warn};

use super::buffer::{NotificationBuffer, Pushed};
use super::handler::ResourceEventHandler;
use super::notification::Notification;
use super::options::{Bound, OverflowPolicy};
use super::runtime::Runtime;

/// The name of every listener thread.
pub const LISTENER_THREAD_NAME: &str = "kube-informers-listener";

/// Identifies a listener; unique within the process, so a handle from one processor never
/// matches a listener of another.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ListenerId(u64);

impl ListenerId {
    fn next() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl fmt::Display for ListenerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

struct Shared<K> {
    id: ListenerId,
    resync_period: Duration,
    buffer: NotificationBuffer<K>,
    /// Latched once the handler has synced (client-go's `SingleFileTracker`).
    synced: AtomicBool,
    /// Set to true when the listener thread has dropped its handler and is about to exit.
    finished: watch::Sender<bool>,
    /// The listener thread, joined once it has finished, so that nothing of it is left
    /// when [`ListenerHandle::finished`] returns.
    thread: parking_lot::Mutex<Option<thread::JoinHandle<()>>>,
}

/// A handler's registration with a [`SharedProcessor`](super::SharedProcessor): reports how
/// far behind the handler is and whether it has received its initial list.
///
/// Cloning is cheap; every clone observes the same listener.
///
/// # Sync contract
///
/// [`has_synced(upstream_synced)`](Self::has_synced) is true once `upstream_synced` is true
/// (the informer's cache holds its initial list, and every initial-list add has been
/// queued) and the handler has finished every [`Notification::Add`] with
/// `is_in_initial_list == true` queued for it. Once true it stays true, unless the listener
/// is [disconnected](Self::is_disconnected): from then on it is false for good, since the
/// handler no longer follows the cache. An initial-list add whose handler panicked counts as
/// finished; one dropped because the listener was removed does not, so a removed handler
/// that missed part of its initial list never reports synced.
///
/// # Bound
///
/// A listener registered with [`HandlerOptions::max_pending`](super::HandlerOptions::max_pending)
/// never has more than that many [pending](Self::pending) notifications; see
/// [`OverflowPolicy`] for what happens at the bound.
pub struct ListenerHandle<K> {
    shared: Arc<Shared<K>>,
}

impl<K> Clone for ListenerHandle<K> {
    fn clone(&self) -> Self {
        Self { shared: Arc::clone(&self.shared) }
    }
}

impl<K> PartialEq for ListenerHandle<K> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl<K> Eq for ListenerHandle<K> {}

impl<K> fmt::Debug for ListenerHandle<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ListenerHandle")
            .field("id", &self.shared.id)
            .field("resync_period", &self.shared.resync_period)
            .field("pending", &self.pending())
            .field("removed", &self.is_removed())
            .field("disconnected", &self.is_disconnected())
            .finish()
    }
}

impl<K> ListenerHandle<K>
where
    K: Send + Sync + 'static,
{
    /// Starts a listener thread that feeds `handler` from a new buffer.
    pub(crate) fn spawn(
        handler: Arc<dyn ResourceEventHandler<K>>,
        resync_period: Duration,
        bound: Option<Bound>,
        runtime: Runtime,
    ) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            id: ListenerId::next(),
            resync_period,
            buffer: NotificationBuffer::new(bound),
            synced: AtomicBool::new(false),
            finished: watch::Sender::new(false),
            thread: parking_lot::Mutex::new(None),
        });
        let thread_shared = Arc::clone(&shared);
        let thread =
            thread::Builder::new().name(LISTENER_THREAD_NAME.to_owned()).spawn(move || {
                // Declared first, dropped last: `finished` flips only after `run` has dropped
                // the handler, even if `run` unwinds.
                let _finished = SignalFinished(&thread_shared);
                run(&thread_shared, handler, &runtime);
            })?;
        *shared.thread.lock() = Some(thread);
        debug!(listener = %shared.id, "listener started");
        Ok(Self { shared })
    }

    /// Queues `notification` for this listener alone; returns false if it was not queued:
    /// the listener has been removed, or was disconnected (by this call, if it overflowed
    /// under [`OverflowPolicy::Disconnect`]). Used to hand a handler that joins a running
    /// informer the cache's content.
    ///
    /// Never blocks, unless the listener is full under [`OverflowPolicy::Block`]: then it
    /// blocks the calling thread until the handler has made room or the listener is removed.
    pub fn add(&self, notification: Notification<K>) -> bool {
        let mut handled = Vec::new();
        match self.try_add(notification, &mut handled) {
            Pushed::Queued => true,
            Pushed::Closed | Pushed::Overflowed => false,
            Pushed::Full(notification) => {
                futures::executor::block_on(self.add_when_room(notification))
            }
        }
    }

    /// Offers `notification` without waiting; see [`Pushed`]. Moves what the handler has
    /// finished with since into `handled`, for the caller to drop outside its locks: the
    /// producer frees the objects it allocated
    /// ([`SharedProcessor`](super::SharedProcessor#which-thread-frees-an-object)).
    pub(crate) fn try_add(
        &self,
        notification: Notification<K>,
        handled: &mut Vec<Notification<K>>,
    ) -> Pushed<K> {
        let pushed = self.shared.buffer.try_push(notification, handled);
        self.report_overflow(&pushed);
        pushed
    }

    /// Queues `notification`, waiting asynchronously while the listener is full under
    /// [`OverflowPolicy::Block`]; returns false if it was not queued (as [`Self::add`]).
    pub(crate) async fn add_when_room(&self, notification: Notification<K>) -> bool {
        let pushed = self.shared.buffer.push_when_room(notification).await;
        self.report_overflow(&pushed);
        matches!(pushed, Pushed::Queued)
    }

    fn report_overflow(&self, pushed: &Pushed<K>) {
        if let (Pushed::Overflowed, Some(bound)) = (pushed, self.shared.buffer.bound()) {
            // Names the listener and the bound only: never the objects it was behind on.
            warn!(
                listener = %self.shared.id,
                max_pending = bound.max.get(),
                "resource event handler fell max_pending notifications behind; \
                 disconnected (OverflowPolicy::Disconnect), its queued notifications dropped"
            );
        }
    }
}

impl<K> ListenerHandle<K> {
    /// This listener's id.
    pub fn id(&self) -> ListenerId {
        self.shared.id
    }

    /// The resync period this listener was registered with (zero: never).
    pub fn resync_period(&self) -> Duration {
        self.shared.resync_period
    }

    /// Notifications queued for the handler and not yet handled, including the one it is
    /// handling now. Drops to zero when the listener is removed (its queue is discarded).
    pub fn pending(&self) -> usize {
        self.shared.buffer.pending()
    }

    /// The bound on [`pending`](Self::pending), if the listener was registered with one.
    pub fn max_pending(&self) -> Option<std::num::NonZeroUsize> {
        self.shared.buffer.bound().map(|bound| bound.max)
    }

    /// What happens at the bound; `None` for an unbounded listener.
    pub fn overflow_policy(&self) -> Option<OverflowPolicy> {
        self.shared.buffer.bound().map(|bound| bound.policy)
    }

    /// Whether the listener was disconnected because it overflowed its bound under
    /// [`OverflowPolicy::Disconnect`]. A disconnected listener is also
    /// [removed](Self::is_removed), and never [synced](Self::has_synced) again.
    pub fn is_disconnected(&self) -> bool {
        self.shared.buffer.is_disconnected()
    }

    /// Initial-list adds queued for the handler and not yet handled (see the
    /// [sync contract](Self#sync-contract)).
    pub fn initial_list_pending(&self) -> usize {
        self.shared.buffer.initial_list_pending()
    }

    /// Whether the handler has synced, given whether its source (the informer) has: see the
    /// [sync contract](Self#sync-contract).
    pub fn has_synced(&self, upstream_synced: bool) -> bool {
        if self.is_disconnected() {
            return false;
        }
        if self.shared.synced.load(Ordering::Acquire) {
            return true;
        }
        let synced = upstream_synced && self.initial_list_pending() == 0;
        if synced {
            self.shared.synced.store(true, Ordering::Release);
        }
        synced
    }

    /// Whether the listener was removed, disconnected, or its processor shut down: it
    /// accepts no more notifications. Its thread may still be finishing the current one; see
    /// [`Self::finished`].
    pub fn is_removed(&self) -> bool {
        self.shared.buffer.is_closed()
    }

    /// Whether the listener's thread has ended and dropped its handler.
    pub fn has_finished(&self) -> bool {
        *self.shared.finished.borrow()
    }

    /// Resolves once the listener has been removed and its thread has ended, having dropped
    /// the handler (client-go's `ShutdownChan`). Never resolves while the listener is
    /// registered; never call it from the handler itself.
    pub async fn finished(&self) {
        let mut finished = self.shared.finished.subscribe();
        // The sender lives in `self.shared`, so the channel cannot close under us.
        let _ = finished.wait_for(|done| *done).await;
        // The flag flips just before the thread returns: joining it takes moments, and
        // afterwards no thread of this listener is left.
        self.join_thread();
    }

    /// Waits for the listener's thread to end; only once it has been stopped.
    pub(crate) fn join_thread(&self) {
        let thread = self.shared.thread.lock().take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }

    /// Stops the listener after the notification its handler is handling, dropping the
    /// queued ones. Returns false if it was already stopped.
    pub(crate) fn stop(&self) -> bool {
        let stopped = self.shared.buffer.close();
        if stopped {
            debug!(listener = %self.shared.id, "listener stopping");
        }
        stopped
    }
}

struct SignalFinished<'a, K>(&'a Shared<K>);

impl<K> Drop for SignalFinished<'_, K> {
    fn drop(&mut self) {
        self.0.finished.send_replace(true);
        debug!(listener = %self.0.id, "listener finished");
    }
}

/// The listener thread: hands each queued notification to the handler, in order, until the
/// buffer is closed. Takes the handler by value so it is dropped before this returns.
fn run<K: Send + Sync + 'static>(
    shared: &Shared<K>,
    handler: Arc<dyn ResourceEventHandler<K>>,
    runtime: &Runtime,
) {
    // The last notification handled, handed back when the next is taken.
    let mut done = None;
    while let Some(notification) = shared.buffer.next(done.take()) {
        let _entered = runtime.enter();
        // Handlers are user code: a panic skips this notification, not the listener.
        let outcome = catch_unwind(AssertUnwindSafe(|| notification.dispatch_to(&*handler)));
        if outcome.is_err() {
            // The panic payload may quote the object; log only what kind of call it was.
            error!(
                listener = %shared.id,
                notification = notification.kind(),
                "resource event handler panicked; notification skipped"
            );
        }
        done = Some(notification);
    }
}
