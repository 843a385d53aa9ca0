//! `SharedIndexInformer`: one list/watch feeding one indexed cache and any number of
//! handlers (client-go's `tools/cache/shared_informer.go`).

use std::fmt::Debug;
use std::sync::{Arc, Weak};
use std::time::Duration;

use kube::Resource;
use parking_lot::Mutex;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::controller::{Config, Controller, ProcessFailure};
use super::deferred::Deferred;
use super::error::{InformerError, Result};
use super::fifo_sink::FifoSink;
use super::{HandlerOptions, ListenerHandle, Notification, ResourceEventHandler, SharedProcessor};
use crate::fifo::{Delta, DeltaFifo, Deltas, KnownObjects};
use crate::metrics::{InformerStats, InformerStatsCells};
use crate::reflector::{
    LastSyncResourceVersion, ListerWatcher, Reflector, ReflectorConfig, ReflectorError,
};
use crate::store::{Indexer, Indexers, StoreError, deletion_handling_meta_namespace_key_func};

/// The shortest resync period a handler can ask for (client-go's `minimumResyncPeriod`).
pub const MINIMUM_RESYNC_PERIOD: Duration = Duration::from_secs(1);

/// Mutates each object before it is stored, e.g. to drop fields the program never reads.
///
/// It runs once per object, on the decoding task, before the object is queued: handlers and
/// listers only ever see transformed objects.
pub type Transform<K> = Arc<dyn Fn(&mut K) + Send + Sync + 'static>;

/// Receives every error of the list/watch loop (client-go's `WatchErrorHandler`).
pub type WatchErrorHandler = Arc<dyn Fn(&ReflectorError) + Send + Sync + 'static>;

/// An informer shared by every handler of one resource: one list/watch, one cache, one
/// notification pipeline per handler.
///
/// Cloning is cheap and every clone drives the same informer.
pub struct SharedIndexInformer<K> {
    inner: Arc<Inner<K>>,
}

impl<K> Clone for SharedIndexInformer<K> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

struct Inner<K> {
    indexer: Indexer<K>,
    processor: SharedProcessor<K>,
    lister_watcher: Arc<dyn ListerWatcher<K>>,
    /// Held while a batch of deltas is applied and distributed, and while a late handler
    /// receives the cache's content: a late handler sees each object exactly once
    /// (client-go's `blockDeltas`).
    block_deltas: Mutex<()>,
    /// Notifications the last batch could not hand to handlers that were full under
    /// [`OverflowPolicy::Block`](super::OverflowPolicy::Block); delivered, asynchronously,
    /// before the next batch.
    deferred: Mutex<Deferred<K>>,
    state: Mutex<State<K>>,
    synced: watch::Sender<bool>,
    resource: String,
    stats: InformerStatsCells,
}

struct State<K> {
    started: bool,
    stopped: bool,
    resync_check_period: Duration,
    default_handler_resync_period: Duration,
    name: Option<String>,
    transform: Option<Transform<K>>,
    watch_error_handler: Option<WatchErrorHandler>,
    reflector_config: ReflectorConfig,
    queue: Option<DeltaFifo<K>>,
    last_sync_resource_version: Option<LastSyncResourceVersion>,
}

impl<K> SharedIndexInformer<K>
where
    K: Resource + Clone + Debug + Send + Sync + 'static,
{
    /// An informer over `lister_watcher` whose handlers resync every `default_resync`
    /// (zero: never) unless they ask otherwise, with `indexers` on its cache
    /// (client-go's `NewSharedIndexInformer`).
    pub fn new(
        lister_watcher: Arc<dyn ListerWatcher<K>>,
        default_resync: Duration,
        indexers: Indexers<K>,
    ) -> Self {
        let resource =
            std::any::type_name::<K>().rsplit("::").next().unwrap_or("object").to_owned();
        Self {
            inner: Arc::new(Inner {
                indexer: Indexer::new(indexers),
                processor: SharedProcessor::new(),
                lister_watcher,
                block_deltas: Mutex::new(()),
                deferred: Mutex::new(Deferred::default()),
                state: Mutex::new(State {
                    started: false,
                    stopped: false,
                    resync_check_period: default_resync,
                    default_handler_resync_period: default_resync,
                    name: None,
                    transform: None,
                    watch_error_handler: None,
                    reflector_config: ReflectorConfig::default(),
                    queue: None,
                    last_sync_resource_version: None,
                }),
                synced: watch::Sender::new(false),
                resource,
                stats: InformerStatsCells::default(),
            }),
        }
    }

    /// Sets the reflector's configuration (page size, backoff, watch timeouts, streaming
    /// lists). Fails once the informer has started.
    pub fn set_reflector_config(&self, config: ReflectorConfig) -> Result<()> {
        let mut state = self.inner.state.lock();
        if state.started {
            return Err(InformerError::AlreadyStarted);
        }
        state.reflector_config = config;
        Ok(())
    }

    /// Names the informer (client-go's `SharedIndexInformerOptions.Identifier`), so that two
    /// informers of one type (two factories, two namespaces) are told apart. Fails once the
    /// informer has started.
    ///
    /// The name is the `informer` field of the informer's tracing span, which the spans of
    /// its reflector sit under, and the `informer` label of its Prometheus series (with the
    /// `metrics` feature, see [`crate::metrics`]). Choose a few fixed names, such as a team or
    /// a component: every distinct name is a new set of series. A reflector left with the
    /// default [`ReflectorConfig::name`] is named `<name>/<resource>`.
    pub fn set_name(&self, name: impl Into<String>) -> Result<()> {
        let mut state = self.inner.state.lock();
        if state.started {
            return Err(InformerError::AlreadyStarted);
        }
        state.name = Some(name.into());
        Ok(())
    }

    /// The name given by [`set_name`](Self::set_name), if any.
    pub fn name(&self) -> Option<String> {
        self.inner.state.lock().name.clone()
    }

    /// Sets a transform that runs on every object before it is stored (client-go's
    /// `SetTransform`). Fails once the informer has started.
    pub fn set_transform(&self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> Result<()> {
        let mut state = self.inner.state.lock();
        if state.started {
            return Err(InformerError::AlreadyStarted);
        }
        state.transform = Some(Arc::new(transform));
        Ok(())
    }

    /// Sets the handler that receives every list/watch error (client-go's
    /// `SetWatchErrorHandler`). Fails once the informer has started.
    pub fn set_watch_error_handler(
        &self,
        handler: impl Fn(&ReflectorError) + Send + Sync + 'static,
    ) -> Result<()> {
        let mut state = self.inner.state.lock();
        if state.started {
            return Err(InformerError::AlreadyStarted);
        }
        state.watch_error_handler = Some(Arc::new(handler));
        Ok(())
    }

    /// Adds a handler that resyncs at the informer's default period, with an unbounded
    /// buffer (see [`add_event_handler_with_options`](Self::add_event_handler_with_options)).
    pub fn add_event_handler(
        &self,
        handler: impl ResourceEventHandler<K>,
    ) -> Result<ResourceEventHandlerRegistration<K>> {
        self.add_event_handler_with_options(handler, HandlerOptions::new())
    }

    /// Adds a handler that receives `on_update(x, x)` for every cached object every
    /// `resync_period` (zero: never; below one second: one second), with an unbounded
    /// buffer (see [`add_event_handler_with_options`](Self::add_event_handler_with_options)).
    pub fn add_event_handler_with_resync_period(
        &self,
        handler: impl ResourceEventHandler<K>,
        resync_period: Duration,
    ) -> Result<ResourceEventHandlerRegistration<K>> {
        self.add_event_handler_with_options(
            handler,
            HandlerOptions::new().resync_period(resync_period),
        )
    }

    /// Adds a handler as `options` say: its resync period (unset: the informer's default;
    /// zero: never; below one second: one second) and an optional bound on the
    /// notifications queued for it, with the [`OverflowPolicy`](super::OverflowPolicy)
    /// that applies at the bound.
    ///
    /// A handler added after the informer started first receives `on_add(obj, true)` for
    /// every cached object, exactly once, and then every later event: no event is lost or
    /// doubled in between. Adding a handler to a stopped informer is an error. With a
    /// bound, the cached objects count against it: under
    /// [`OverflowPolicy::Block`](super::OverflowPolicy::Block) this call blocks until the
    /// handler has taken all but `max_pending` of them (the informer applies no deltas
    /// meanwhile); under [`OverflowPolicy::Disconnect`](super::OverflowPolicy::Disconnect) a
    /// handler that cannot keep up is disconnected at once, which the returned registration
    /// reports.
    ///
    /// Unlike client-go, a handler's resync period is honoured even when the informer was
    /// created with a zero default resync, as long as it is added before the informer
    /// starts (client-go silently disables it).
    ///
    /// ```no_run
    /// # use std::num::NonZeroUsize;
    /// # use k8s_openapi::api::core::v1::Pod;
    /// # use kube_informers_runtime::{HandlerOptions, OverflowPolicy, ResourceEventHandlerFuncs};
    /// # use kube_informers_runtime::SharedIndexInformer;
    /// # fn demo(informer: SharedIndexInformer<Pod>) -> Result<(), Box<dyn std::error::Error>> {
    /// let registration = informer.add_event_handler_with_options(
    ///     ResourceEventHandlerFuncs::new().on_add(|pod: &std::sync::Arc<Pod>, _| {
    ///         let _ = pod;
    ///     }),
    ///     HandlerOptions::new()
    ///         .max_pending(NonZeroUsize::new(50_000).unwrap())
    ///         .overflow(OverflowPolicy::Disconnect),
    /// )?;
    /// // Later, e.g. from a health check:
    /// if registration.is_disconnected() {
    ///     // The handler fell 50,000 notifications behind and was dropped; register it
    ///     // again to catch up from the cache.
    /// }
    /// # Ok(())
    /// # }
    /// # let _ = demo;
    /// ```
    pub fn add_event_handler_with_options(
        &self,
        handler: impl ResourceEventHandler<K>,
        options: HandlerOptions,
    ) -> Result<ResourceEventHandlerRegistration<K>> {
        let handler: Arc<dyn ResourceEventHandler<K>> = Arc::new(handler);
        let mut state = self.inner.state.lock();
        if state.stopped {
            return Err(InformerError::Stopped);
        }
        let mut period = options.get_resync_period().unwrap_or(state.default_handler_resync_period);
        if !period.is_zero() {
            period = period.max(MINIMUM_RESYNC_PERIOD);
            if state.resync_check_period.is_zero() || period < state.resync_check_period {
                if state.started {
                    if state.resync_check_period.is_zero() {
                        warn!(
                            resource = %self.inner.resource,
                            "informer started without resync; the handler's resync period is ignored"
                        );
                        period = Duration::ZERO;
                    } else {
                        period = state.resync_check_period;
                    }
                } else {
                    state.resync_check_period = period;
                }
            }
        }
        let options = options.resync_period(period);
        if !state.started {
            let handle = self.inner.processor.add_listener_with_options(handler, options)?;
            return Ok(self.registration(handle));
        }
        drop(state);
        // Join a running informer: stop distribution, hand the new handler the cache's
        // content, then let distribution resume (client-go's blockDeltas dance).
        let _blocked = self.inner.block_deltas.lock();
        let handle = self.inner.processor.add_listener_with_options(handler, options)?;
        for object in self.inner.indexer.list() {
            if !handle.add(Notification::Add { object, is_in_initial_list: true }) {
                // Disconnected for overflow (or shut down meanwhile): nothing more to hand.
                break;
            }
        }
        if handle.is_disconnected() {
            self.inner.processor.remove_listener(&handle);
        }
        Ok(self.registration(handle))
    }

    fn registration(&self, handle: ListenerHandle<K>) -> ResourceEventHandlerRegistration<K> {
        ResourceEventHandlerRegistration { handle, informer: Arc::downgrade(&self.inner) }
    }

    /// Removes a handler; it receives nothing more once this returns.
    pub fn remove_event_handler(&self, registration: &ResourceEventHandlerRegistration<K>) -> bool {
        let _blocked = self.inner.block_deltas.lock();
        self.inner.processor.remove_listener(&registration.handle)
    }

    /// Adds indexers, before or after start; existing objects are indexed at once.
    pub fn add_indexers(&self, indexers: Indexers<K>) -> Result<()> {
        let _blocked = self.inner.block_deltas.lock();
        self.inner.indexer.add_indexers(indexers).map_err(InformerError::from)
    }

    /// The informer's cache. Read it freely; never write to it.
    pub fn get_indexer(&self) -> Indexer<K> {
        self.inner.indexer.clone()
    }

    /// Whether the initial list has reached the cache.
    pub fn has_synced(&self) -> bool {
        *self.inner.synced.borrow()
    }

    /// Waits until the informer has synced (`true`) or stopped before syncing (`false`).
    pub async fn wait_for_sync(&self) -> bool {
        let mut synced = self.inner.synced.subscribe();
        loop {
            if *synced.borrow_and_update() {
                return true;
            }
            if self.is_stopped() {
                return false;
            }
            if synced.changed().await.is_err() {
                return *synced.borrow();
            }
        }
    }

    /// The resourceVersion of the last list or event the reflector saw; empty before start.
    pub fn last_sync_resource_version(&self) -> String {
        self.inner
            .state
            .lock()
            .last_sync_resource_version
            .as_ref()
            .map(|rv| rv.get())
            .unwrap_or_default()
    }

    /// What the informer has done so far: list and watch requests, events by type,
    /// relists, handlers' pending notifications, last synced resource version and sync
    /// duration. See [`crate::metrics`].
    pub fn stats(&self) -> InformerStats {
        let pending = self.inner.processor.pending_per_listener();
        let synced = self.has_synced();
        self.inner.stats.snapshot(pending, self.last_sync_resource_version(), synced)
    }

    /// Whether the informer has run and stopped.
    pub fn is_stopped(&self) -> bool {
        self.inner.state.lock().stopped
    }

    /// Whether the informer has been started.
    pub fn is_started(&self) -> bool {
        self.inner.state.lock().started
    }

    /// The number of handlers.
    pub fn handler_count(&self) -> usize {
        self.inner.processor.listeners_len()
    }

    /// Lists, watches and notifies handlers until `cancel` fires; returns once every task
    /// and handler thread of this informer has ended. Running an informer twice is a no-op
    /// that returns at once.
    #[tracing::instrument(
        name = "informer",
        skip_all,
        fields(resource = %self.inner.resource, informer = tracing::field::Empty)
    )]
    pub async fn run(&self, cancel: CancellationToken) {
        let controller = {
            let mut state = self.inner.state.lock();
            if let Some(name) = &state.name {
                tracing::Span::current().record("informer", name.as_str());
            }
            if state.started {
                warn!("informer already started");
                return;
            }
            state.started = true;
            let known: Arc<dyn KnownObjects<K>> = Arc::new(self.inner.indexer.clone());
            let queue = DeltaFifo::new(Some(known));
            let sink =
                FifoSink::new(queue.clone(), state.transform.clone(), self.inner.synced.clone());
            let mut config = state.reflector_config.clone();
            config.resync_period = state.resync_check_period;
            if let Some(name) = &state.name
                && config.name == ReflectorConfig::default().name
            {
                config.name = format!("{name}/{}", self.inner.resource);
            }
            let counted = &self.inner.stats.reflector;
            let mut reflector = Reflector::new(
                counted.instrument_lister_watcher(Arc::clone(&self.inner.lister_watcher)),
                counted.instrument_store(Arc::new(sink)),
                config,
            );
            let processor = self.inner.processor.clone();
            reflector.set_should_resync(Arc::new(move || processor.should_resync()));
            if let Some(handler) = state.watch_error_handler.clone() {
                reflector.set_watch_error_handler(handler);
            }
            state.last_sync_resource_version = Some(reflector.last_sync_resource_version_handle());
            state.queue = Some(queue.clone());
            let weak = Arc::downgrade(&self.inner);
            let deliver_weak = Weak::clone(&weak);
            Controller::new(Config {
                queue,
                reflector,
                process: Arc::new(move |batch, is_in_initial_list| match weak.upgrade() {
                    Some(inner) => inner.handle_deltas(batch, is_in_initial_list),
                    None => Vec::new(),
                }),
                retry_on_error: false,
                synced: Some(self.inner.synced.clone()),
                after_batch: Some(Arc::new(move || {
                    let weak = Weak::clone(&deliver_weak);
                    Box::pin(async move {
                        if let Some(inner) = weak.upgrade() {
                            inner.deliver_deferred().await;
                        }
                    })
                })),
            })
        };
        info!("starting informer");
        self.inner.stats.time_sync(self.inner.synced.subscribe(), controller.run(cancel)).await;
        self.inner.state.lock().stopped = true;
        // Wake sync waiters so they see the stop.
        self.inner.synced.send_modify(|_| {});
        self.inner.processor.shutdown().await;
        // Whatever was held back for blocked handlers is for stopped listeners now.
        drop(std::mem::take(&mut *self.inner.deferred.lock()));
        info!("informer stopped");
    }
}

impl<K> Inner<K>
where
    K: Resource + Clone + Debug + Send + Sync + 'static,
{
    /// Applies a batch to the cache in one transaction, then notifies handlers
    /// (client-go's `HandleDeltas` + `processDeltas`, made atomic per batch).
    fn handle_deltas(
        &self,
        batch: Vec<Deltas<K>>,
        is_in_initial_list: bool,
    ) -> Vec<ProcessFailure<K>> {
        let _blocked = self.block_deltas.lock();
        let mut notifications = Vec::new();
        let mut failures = Vec::new();
        self.indexer.transaction(|txn| {
            for deltas in batch {
                let mut error = None;
                for delta in deltas.iter() {
                    let applied = match delta {
                        Delta::Added(obj)
                        | Delta::Updated(obj)
                        | Delta::Replaced(obj)
                        | Delta::Sync(obj) => {
                            txn.update(Arc::clone(obj)).map(|old| match old {
                                Some(old) => {
                                    // Same resourceVersion: a resync or an unchanged relist
                                    // entry, sent only to handlers due for a resync.
                                    let is_sync =
                                        old.meta().resource_version == obj.meta().resource_version;
                                    notifications.push((
                                        Notification::Update { old, new: Arc::clone(obj) },
                                        is_sync,
                                    ));
                                }
                                None => notifications.push((
                                    Notification::Add {
                                        object: Arc::clone(obj),
                                        is_in_initial_list,
                                    },
                                    false,
                                )),
                            })
                        }
                        Delta::Deleted(gone) => deletion_handling_meta_namespace_key_func(gone)
                            .map(|key| {
                                txn.delete_key(&key);
                                notifications.push((Notification::Delete(gone.clone()), false));
                            })
                            .map_err(StoreError::from),
                    };
                    if let Err(e) = applied {
                        error = Some(e);
                        break;
                    }
                }
                if let Some(error) = error {
                    let key = deltas
                        .newest()
                        .map(|d| match d {
                            Delta::Deleted(gone) => {
                                deletion_handling_meta_namespace_key_func(gone).unwrap_or_default()
                            }
                            other => crate::store::meta_namespace_key_func(other.object().as_ref())
                                .unwrap_or_default(),
                        })
                        .unwrap_or_default();
                    failures.push(ProcessFailure { key, deltas, error: Box::new(error) });
                }
            }
        });
        let mut deferred = self.deferred.lock();
        for (notification, is_sync) in notifications {
            self.processor.distribute_deferring(notification, is_sync, &mut deferred);
        }
        failures
    }

    /// Hands blocked handlers what the last batch held back for them, waiting until each
    /// has room: the back-pressure of [`OverflowPolicy::Block`](super::OverflowPolicy::Block).
    /// The informer pops no further deltas meanwhile; removing the handler or stopping the
    /// informer ends the wait.
    async fn deliver_deferred(&self) {
        let deferred = std::mem::take(&mut *self.deferred.lock());
        if deferred.is_empty() {
            return;
        }
        let mut delivering = PutBackOnDrop { inner: self, deferred };
        delivering.deferred.deliver().await;
    }
}

/// Notifications being delivered to blocked handlers. If the wait is abandoned (the informer
/// is stopping), what is left goes back in front of whatever was held back meanwhile, so a
/// handler never receives a later notification ahead of an earlier one.
struct PutBackOnDrop<'a, K> {
    inner: &'a Inner<K>,
    deferred: Deferred<K>,
}

impl<K> Drop for PutBackOnDrop<'_, K> {
    fn drop(&mut self) {
        if !self.deferred.is_empty() {
            let left = std::mem::take(&mut self.deferred);
            self.inner.deferred.lock().prepend(left);
        }
    }
}

/// A handler's registration with an informer: tells whether that handler has received the
/// initial list, how far behind it is, and whether it was disconnected for overflowing its
/// bound ([`OverflowPolicy::Disconnect`](super::OverflowPolicy::Disconnect)).
pub struct ResourceEventHandlerRegistration<K> {
    handle: ListenerHandle<K>,
    informer: Weak<Inner<K>>,
}

impl<K> ResourceEventHandlerRegistration<K>
where
    K: Send + Sync + 'static,
{
    /// True once the informer has synced and this handler has handled every object of the
    /// initial list (client-go's `ResourceEventHandlerRegistration.HasSynced`).
    ///
    /// False, for good, once the handler is [disconnected](Self::is_disconnected): it no
    /// longer follows the cache, so nothing waiting for it to sync should proceed as if it
    /// did. Register a new handler to catch up.
    pub fn has_synced(&self) -> bool {
        let upstream = self.informer.upgrade().is_some_and(|inner| *inner.synced.borrow());
        upstream && !self.handle.is_disconnected() && self.handle.initial_list_pending() == 0
    }

    /// Notifications queued for this handler and not yet handled, including the one being
    /// handled. Never above the handler's
    /// [`max_pending`](HandlerOptions::max_pending), if it has one.
    pub fn pending(&self) -> usize {
        self.handle.pending()
    }

    /// Whether the handler was disconnected because it fell
    /// [`max_pending`](HandlerOptions::max_pending) notifications behind under
    /// [`OverflowPolicy::Disconnect`](super::OverflowPolicy::Disconnect). It then receives
    /// nothing more and has been removed from the informer; a warning naming its listener id
    /// and the bound was logged.
    pub fn is_disconnected(&self) -> bool {
        self.handle.is_disconnected()
    }

    /// The listener behind this handler: its id (as logged), bound and counts.
    pub fn listener(&self) -> &ListenerHandle<K> {
        &self.handle
    }
}
