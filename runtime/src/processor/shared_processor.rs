//! [`SharedProcessor`]: fans notifications out to one listener per handler (client-go's
//! `sharedProcessor`).

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use parking_lot::RwLock;
use tokio::time::Instant;

use super::buffer::Pushed;
use super::deferred::Deferred;
use super::handler::ResourceEventHandler;
use super::listener::{ListenerHandle, ListenerId};
use super::notification::Notification;
use super::options::HandlerOptions;
use super::resync::ResyncSchedule;
use super::runtime::Runtime;

/// Why a listener could not be added.
#[derive(Debug, thiserror::Error)]
pub enum ProcessorError {
    /// The processor has been shut down and takes no new listeners.
    #[error("the shared processor has been shut down")]
    ShutDown,
    /// The operating system refused to start the listener's thread.
    #[error("failed to start a listener thread")]
    SpawnListener(#[source] std::io::Error),
}

/// The result of processor operations.
pub(crate) type Result<T, E = ProcessorError> = std::result::Result<T, E>;

/// Delivers an informer's notifications to its handlers, each through its own listener.
///
/// Every listener has its own unbounded buffer and its own OS thread (named
/// [`LISTENER_THREAD_NAME`](super::LISTENER_THREAD_NAME)) that calls the handler, one
/// notification at a time, in the order they were distributed. Handlers are synchronous
/// callbacks, as in client-go: a handler that blocks its thread delays only its own
/// notifications, never another handler nor the caller of [`distribute`](Self::distribute),
/// whatever tokio runtime that caller uses. A handler that panics has that notification
/// skipped and the panic logged; its listener carries on.
///
/// # What a thread per handler costs
///
/// Measured by `cargo bench -p kube-informers-runtime --bench listeners` (1,000 handlers:
/// 100 processors, as 100 informers, with 10 handlers each; 2 cores): adding them took
/// 22.8 ms (23 µs each) and 11 KiB of resident memory each (a thread's stack is reserved,
/// not committed), 11 MiB for all 1,000; they then made 1.15 million handler calls per
/// second between them, and shutting all down took 35 ms with no thread left. So 1,000
/// handlers, or 500 (100 informers × 5), are well within what the design holds; the limit
/// is the system's thread limit (`/proc/sys/kernel/threads-max`, `ulimit -u`), tens of
/// thousands by default. Listeners as tokio tasks with `spawn_blocking` around each call
/// would not hold more: a handler that blocks would hold one of the runtime's blocking
/// threads (512 by default) instead of its own.
///
/// # Which thread frees an object
///
/// A handler is often the last to hold an object: with a compact store, which keeps no
/// decoded objects, and for an update's old object or a deleted one. Its listener does not
/// free it: it hands its handled notifications back, and [`distribute`](Self::distribute)
/// drops them on the producer's thread, which decoded the objects. With glibc's malloc, a
/// `free` on the listener's thread of a block from the producer's arena takes that arena's
/// lock, and while the producer decoded the next object both threads waited on it at each
/// `free` and `malloc`: with the compact store and protobuf, 7,200 `futex` calls per
/// 10,000 Pods, 3,100 once the producer frees (BENCH.md, 2026-12-07), and a sync's CPU
/// 0.77× as much (paired median). Go's collector frees on its own threads, so client-go
/// has no counterpart. A listener holds at most [`RELEASE_HELD_MAX`](super::RELEASE_HELD_MAX)
/// handled notifications for the producer, and frees them itself after
/// [`RELEASE_IDLE`](super::RELEASE_IDLE) with nothing to handle and when it stops: an object
/// outlives its last notification by at most that long.
///
/// The buffers are unbounded by default, as in client-go: a handler that stalls for good
/// makes its buffer, and the memory it keeps alive, grow without limit. Watch
/// [`ListenerHandle::pending`], or bound the buffer with
/// [`HandlerOptions::max_pending`] (see
/// [`add_listener_with_options`](Self::add_listener_with_options) and
/// [`OverflowPolicy`](super::OverflowPolicy)).
///
/// Cloning is cheap; every clone drives the same listeners.
///
/// ```
/// use std::sync::{Arc, mpsc};
/// use std::time::Duration;
/// use kube_informers_runtime::{Notification, ResourceEventHandlerFuncs, SharedProcessor};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let processor = SharedProcessor::new();
/// let (tx, rx) = mpsc::channel();
/// let tx = std::sync::Mutex::new(tx);
/// let handler = ResourceEventHandlerFuncs::new().on_add(move |n: &Arc<u32>, _| {
///     tx.lock().unwrap().send(**n).unwrap();
/// });
/// let registration = processor.add_listener(Arc::new(handler), Duration::ZERO)?;
///
/// processor.distribute(Notification::Add { object: Arc::new(7), is_in_initial_list: true }, false);
/// assert_eq!(rx.recv()?, 7);
///
/// processor.shutdown().await; // every listener thread has ended
/// assert!(registration.has_finished());
/// # Ok(())
/// # }
/// ```
pub struct SharedProcessor<K> {
    state: Arc<RwLock<State<K>>>,
    /// The runtime handlers run in (see [`set_runtime`](Self::set_runtime)).
    runtime: Runtime,
}

struct State<K> {
    /// Registered listeners, oldest first.
    listeners: BTreeMap<ListenerId, Registered<K>>,
    /// Every listener whose thread may still be running, including removed ones, so that
    /// shutdown can wait for all of them.
    threads: Vec<ListenerHandle<K>>,
    shut_down: bool,
}

struct Registered<K> {
    handle: ListenerHandle<K>,
    resync: ResyncSchedule,
}

impl<K> Clone for SharedProcessor<K> {
    fn clone(&self) -> Self {
        Self { state: Arc::clone(&self.state), runtime: self.runtime.clone() }
    }
}

impl<K> Default for SharedProcessor<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K> fmt::Debug for SharedProcessor<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.read();
        f.debug_struct("SharedProcessor")
            .field("listeners", &state.listeners.len())
            .field("shut_down", &state.shut_down)
            .finish()
    }
}

impl<K> SharedProcessor<K> {
    /// A processor without listeners.
    pub fn new() -> Self {
        Self {
            state: Arc::new(RwLock::new(State {
                listeners: BTreeMap::new(),
                threads: Vec::new(),
                shut_down: false,
            })),
            runtime: Runtime::default(),
        }
    }

    /// Makes `runtime` current on every listener thread while it calls its handler, so a
    /// handler may `tokio::spawn` or call `Handle::current()`. The informer hands over its
    /// own runtime when it starts; before that, the runtime a listener is added in (if any)
    /// is taken. The first runtime set stays.
    pub fn set_runtime(&self, runtime: tokio::runtime::Handle) {
        self.runtime.set(runtime);
    }

    /// The number of registered listeners.
    pub fn listeners_len(&self) -> usize {
        self.state.read().listeners.len()
    }

    /// Notifications queued and not yet handled, per registered listener, oldest first.
    pub fn pending_per_listener(&self) -> Vec<(ListenerId, usize)> {
        let state = self.state.read();
        state.listeners.iter().map(|(id, registered)| (*id, registered.handle.pending())).collect()
    }

    /// Whether [`shutdown`](Self::shutdown) has been called.
    pub fn is_shut_down(&self) -> bool {
        self.state.read().shut_down
    }
}

impl<K> SharedProcessor<K>
where
    K: Send + Sync + 'static,
{
    /// Registers `handler` behind a new listener whose thread starts at once, so it works
    /// at any time, before or while notifications flow.
    ///
    /// `resync_period` is how often the handler wants sync notifications (zero: never);
    /// see [`should_resync`](Self::should_resync). The listener receives only notifications
    /// distributed after this returns, plus whatever is queued through the returned
    /// handle's [`add`](ListenerHandle::add).
    ///
    /// Fails with [`ProcessorError::ShutDown`] after [`shutdown`](Self::shutdown).
    pub fn add_listener(
        &self,
        handler: Arc<dyn ResourceEventHandler<K>>,
        resync_period: Duration,
    ) -> Result<ListenerHandle<K>> {
        self.add_listener_with_options(handler, HandlerOptions::new().resync_period(resync_period))
    }

    /// Like [`add_listener`](Self::add_listener), with the resync period (unset: never) and
    /// the optional bound on pending notifications taken from `options`.
    pub fn add_listener_with_options(
        &self,
        handler: Arc<dyn ResourceEventHandler<K>>,
        options: HandlerOptions,
    ) -> Result<ListenerHandle<K>> {
        if self.is_shut_down() {
            return Err(ProcessorError::ShutDown);
        }
        let resync_period = options.get_resync_period().unwrap_or(Duration::ZERO);
        // Started outside the lock, so distribution never waits for a thread to spawn.
        if let Ok(current) = tokio::runtime::Handle::try_current() {
            self.runtime.set(current);
        }
        let runtime = self.runtime.clone();
        let handle = ListenerHandle::spawn(handler, resync_period, options.bound(), runtime)
            .map_err(ProcessorError::SpawnListener)?;
        let mut state = self.state.write();
        if state.shut_down {
            // Shut down meanwhile: this thread is not among those shutdown waits for, so end
            // it here. With nothing queued it exits at once, without calling the handler.
            drop(state);
            handle.stop();
            handle.join_thread();
            return Err(ProcessorError::ShutDown);
        }
        state.threads.retain(|thread| !thread.has_finished());
        state.threads.push(handle.clone());
        let resync = ResyncSchedule::new(resync_period, Instant::now());
        state.listeners.insert(handle.id(), Registered { handle: handle.clone(), resync });
        Ok(handle)
    }

    /// Unregisters a listener: its thread ends after the notification it is handling, and
    /// the notifications queued for it are dropped. Returns false if `handle` is not
    /// registered here (already removed, or from another processor).
    ///
    /// This does not wait; await [`ListenerHandle::finished`] for that.
    pub fn remove_listener(&self, handle: &ListenerHandle<K>) -> bool {
        let mut state = self.state.write();
        match state.listeners.get(&handle.id()) {
            Some(registered) if registered.handle == *handle => {
                state.listeners.remove(&handle.id());
                handle.stop();
                true
            }
            _ => false,
        }
    }

    /// Queues `notification` for listeners without waiting for any handler, except a
    /// bounded listener that is full under [`OverflowPolicy::Block`](super::OverflowPolicy::Block):
    /// then it blocks the calling thread until that listener has room or is removed.
    /// A bounded listener that overflows under
    /// [`OverflowPolicy::Disconnect`](super::OverflowPolicy::Disconnect) is removed.
    ///
    /// A non-sync notification goes to every listener. A sync notification (a periodic
    /// resync, or a relist entry whose resourceVersion did not change) goes only to the
    /// listeners the last [`should_resync`](Self::should_resync) found due.
    pub fn distribute(&self, notification: Notification<K>, is_sync: bool) {
        let mut deferred = Deferred::default();
        self.distribute_deferring(notification, is_sync, &mut deferred);
        if !deferred.is_empty() {
            // Waits without the processor's lock, so that removal and shutdown, which take
            // it, can release the wait.
            futures::executor::block_on(deferred.deliver());
        }
    }

    /// Like [`distribute`](Self::distribute), but never waits: what a full, blocking
    /// listener cannot take yet goes to `deferred`, as does everything after it for that
    /// listener, for the caller to [deliver](Deferred::deliver) before distributing more.
    pub(crate) fn distribute_deferring(
        &self,
        notification: Notification<K>,
        is_sync: bool,
        deferred: &mut Deferred<K>,
    ) {
        let mut disconnected = Vec::new();
        // Dropped after the lock: see "Which thread frees an object".
        let mut handled = Vec::new();
        {
            let state = self.state.read();
            for registered in state.listeners.values() {
                if is_sync && !registered.resync.is_syncing() {
                    continue;
                }
                let handle = &registered.handle;
                if deferred.holds(handle.id()) {
                    deferred.push(handle.clone(), notification.clone());
                    continue;
                }
                match handle.try_add(notification.clone(), &mut handled) {
                    Pushed::Queued => {}
                    Pushed::Full(notification) => deferred.push(handle.clone(), notification),
                    // Removal and shutdown take listeners out under the write lock before
                    // closing them, so a closed listener seen here disconnected itself.
                    Pushed::Closed | Pushed::Overflowed => disconnected.push(handle.clone()),
                }
            }
        }
        drop(handled);
        for handle in disconnected {
            self.remove_listener(&handle);
        }
    }

    /// Recomputes which listeners are due for a resync, now, by their resync periods
    /// (zero: never), and schedules each due listener's next resync one period later.
    /// Returns whether any listener is due: the reflector then queues a resync, whose sync
    /// notifications reach only the due listeners.
    ///
    /// The clock is [`tokio::time::Instant`], so paused test time applies.
    pub fn should_resync(&self) -> bool {
        let now = Instant::now();
        let mut state = self.state.write();
        let mut any_due = false;
        // Every listener is checked, not just until the first due one: the check also takes
        // the others out of the syncing set.
        for registered in state.listeners.values_mut() {
            any_due |= registered.resync.check(now);
        }
        any_due
    }

    /// Stops every listener and refuses new ones. Each listener's thread ends after the
    /// notification it is handling; queued notifications are dropped.
    ///
    /// Stopping happens when this is called; the returned future resolves once every
    /// listener thread this processor ever started, including those removed earlier, has
    /// ended and dropped its handler. A handler that never returns keeps it pending, and
    /// awaiting it from a handler deadlocks.
    pub fn shutdown(&self) -> impl Future<Output = ()> + Send + 'static {
        let threads = {
            let mut state = self.state.write();
            state.shut_down = true;
            for (_, registered) in std::mem::take(&mut state.listeners) {
                registered.handle.stop();
            }
            std::mem::take(&mut state.threads)
        };
        async move {
            for thread in threads {
                thread.finished().await;
            }
        }
    }
}
