//! `SharedIndexInformer`: one list/watch feeding one indexed cache and any number of
//! handlers (client-go's `tools/cache/shared_informer.go`).

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use kube::Resource;
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::sync::watch;
use tracing::warn;

use super::error::{InformerError, Result};
use super::inner::{Inner, State};
use super::options::MINIMUM_RESYNC_PERIOD;
use super::registration::ResourceEventHandlerRegistration;
use crate::listwatch::ListerWatcher;
use crate::metrics::{InformerStats, InformerStatsCells};
use crate::processor::{
    Deferred, HandlerOptions, ListenerHandle, Notification, ResourceEventHandler, SharedProcessor,
};
use crate::reflector::{ReflectorConfig, ReflectorError};
use crate::store::{CompactConfig, Indexer, Indexers};

/// An informer shared by every handler of one resource: one list/watch, one cache, one
/// notification pipeline per handler.
///
/// Cloning is cheap and every clone drives the same informer.
pub struct SharedIndexInformer<K> {
    pub(super) inner: Arc<Inner<K>>,
}

impl<K> Clone for SharedIndexInformer<K> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
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
        Self::with_indexer(lister_watcher, default_resync, Indexer::new(indexers))
    }

    /// [`new`](Self::new) with a compact cache ([`Indexer::compact`]): each object is kept
    /// encoded, without `metadata.managedFields`, and decoded on read, for a fraction of
    /// the memory (issue 18). Handlers still receive the `Arc<K>`s the reflector decoded,
    /// shared by all of them; the old object of an update and the object of a
    /// `DeletedFinalStateUnknown` come from the cache (decoded, or from its decoded
    /// cache), so they lack managedFields too.
    ///
    /// Give it a lister-watcher that skips managedFields while decoding
    /// ([`ApiListerWatcher::skip_managed_fields`](crate::ApiListerWatcher::skip_managed_fields)),
    /// as the factory's [`compact_store`](crate::factory::TypedFactoryBuilder::compact_store)
    /// does: then handlers and listers see the same objects, and the decoded cache can hold
    /// the objects of the informer's watch events (one with managedFields is never cached,
    /// as it would differ from what a read decodes). A relist's objects are cached only for
    /// keys the cache holds already.
    pub fn with_compact_store(
        lister_watcher: Arc<dyn ListerWatcher<K>>,
        default_resync: Duration,
        indexers: Indexers<K>,
        config: CompactConfig,
    ) -> Self
    where
        K: Serialize + DeserializeOwned,
    {
        Self::with_indexer(lister_watcher, default_resync, Indexer::compact(indexers, config))
    }

    /// The informer of [`new`](Self::new) over `indexer`, which must be empty.
    fn with_indexer(
        lister_watcher: Arc<dyn ListerWatcher<K>>,
        default_resync: Duration,
        indexer: Indexer<K>,
    ) -> Self {
        let resource =
            std::any::type_name::<K>().rsplit("::").next().unwrap_or("object").to_owned();
        Self {
            inner: Arc::new(Inner {
                indexer,
                processor: SharedProcessor::new(),
                lister_watcher,
                block_deltas: Mutex::new(()),
                deferred: Mutex::new(Deferred::default()),
                state: Mutex::new(State {
                    started: false,
                    stopped: false,
                    panicked: None,
                    resync_check_period: default_resync,
                    default_handler_resync_period: default_resync,
                    name: None,
                    transform: None,
                    watch_error_handler: None,
                    error_observer: None,
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

    /// Runs `set` on the state unless the informer has started: what every setter that
    /// only applies before the start does.
    fn before_start(&self, set: impl FnOnce(&mut State<K>)) -> Result<()> {
        let mut state = self.inner.state.lock();
        if state.started {
            return Err(InformerError::AlreadyStarted);
        }
        set(&mut state);
        Ok(())
    }

    /// Sets the reflector's configuration (page size, backoff, watch timeouts, streaming
    /// lists). Fails once the informer has started.
    pub fn set_reflector_config(&self, config: ReflectorConfig) -> Result<()> {
        self.before_start(|state| state.reflector_config = config)
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
        self.before_start(|state| state.name = Some(name.into()))
    }

    /// The name given by [`set_name`](Self::set_name), if any.
    pub fn name(&self) -> Option<String> {
        self.inner.state.lock().name.clone()
    }

    /// Sets a transform that runs on every object before it is stored (client-go's
    /// `SetTransform`). Fails once the informer has started.
    pub fn set_transform(&self, transform: impl Fn(&mut K) + Send + Sync + 'static) -> Result<()> {
        self.before_start(|state| state.transform = Some(Arc::new(transform)))
    }

    /// Sets the handler that receives the errors that end a list-and-watch cycle (client-go's
    /// `SetWatchErrorHandler`, with its semantics: a failed list, a failed watch request,
    /// a store failure, and objects skipped because they do not decode; see
    /// [`WatchErrorHandler`](crate::reflector::WatchErrorHandler) for the exact list).
    /// Routine errors the reflector recovers from within the cycle (a `410` watch, a
    /// broken or silent stream, a streaming list that falls back) do not reach it; they are
    /// logged and counted in [`stats`](Self::stats). Fails once the informer has started.
    pub fn set_watch_error_handler(
        &self,
        handler: impl Fn(&ReflectorError) + Send + Sync + 'static,
    ) -> Result<()> {
        self.before_start(|state| state.watch_error_handler = Some(Arc::new(handler)))
    }

    /// Sets a function that receives every error the reflector logs, including the routine
    /// ones the watch-error handler does not see: for a user's own metrics or tests. Called
    /// on the reflector's task: keep it short. Fails once the informer has started.
    pub fn set_error_observer(
        &self,
        observer: impl Fn(&ReflectorError) + Send + Sync + 'static,
    ) -> Result<()> {
        self.before_start(|state| state.error_observer = Some(Arc::new(observer)))
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
    /// notifications queued for it, with the [`OverflowPolicy`](crate::processor::OverflowPolicy)
    /// that applies at the bound.
    ///
    /// A handler added after the informer started first receives `on_add(obj, true)` for
    /// every cached object, exactly once, and then every later event: no event is lost or
    /// doubled in between. Adding a handler to a stopped informer is an error. With a
    /// bound, the cached objects count against it: under
    /// [`OverflowPolicy::Block`](crate::processor::OverflowPolicy::Block) this call blocks until the
    /// handler has taken all but `max_pending` of them (the informer applies no deltas
    /// meanwhile); under [`OverflowPolicy::Disconnect`](crate::processor::OverflowPolicy::Disconnect) a
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
        ResourceEventHandlerRegistration::new(handle, Arc::downgrade(&self.inner))
    }

    /// Removes a handler; it receives nothing more once this returns.
    pub fn remove_event_handler(&self, registration: &ResourceEventHandlerRegistration<K>) -> bool {
        let _blocked = self.inner.block_deltas.lock();
        self.inner.processor.remove_listener(registration.handle())
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

    /// Why the informer stopped, if it stopped on an error rather than because it was
    /// cancelled: [`InformerError::Panicked`] when a transform, an index function or a list
    /// tweak panicked. Such an informer is stopped, reports unsynced, and has ended its
    /// tasks and handler threads; client-go would crash the process instead.
    pub fn stop_error(&self) -> Option<InformerError> {
        let state = self.inner.state.lock();
        state.panicked.clone().map(|message| InformerError::Panicked { message })
    }

    /// Whether the informer has been started.
    pub fn is_started(&self) -> bool {
        self.inner.state.lock().started
    }

    /// The number of handlers.
    pub fn handler_count(&self) -> usize {
        self.inner.processor.listeners_len()
    }
}
