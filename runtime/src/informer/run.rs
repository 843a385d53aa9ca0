//! Running a [`SharedIndexInformer`]: its DeltaFIFO, the reflector that fills it and the
//! controller that drains it into the cache and the handlers (client-go's
//! `sharedIndexInformer.Run`).

use std::any::Any;
use std::fmt::Debug;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Weak};

use futures::FutureExt;
use kube::Resource;
use tokio_util::sync::CancellationToken;
use tracing::{error, info, warn};

use super::controller::{Controller, ControllerConfig};
use super::fifo_sink::FifoSink;
use super::shared_informer::SharedIndexInformer;
use crate::fifo::{DeltaFifo, KnownObjects};
use crate::reflector::{Reflector, ReflectorConfig};

impl<K> SharedIndexInformer<K>
where
    K: Resource + Clone + Debug + Send + Sync + 'static,
{
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
            let queue = DeltaFifo::in_arrival_order(Some(known));
            // A compact cache holds a fraction of the decoded objects: a relist is queued as
            // it is decoded, so that it is never held decoded whole.
            let streamed = self.inner.indexer.is_compact();
            let sink = FifoSink::new(queue.clone(), state.transform.clone(), streamed);
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
            // Handlers run with this runtime current, so they may spawn tasks on it.
            self.inner.processor.set_runtime(tokio::runtime::Handle::current());
            let processor = self.inner.processor.clone();
            reflector.set_should_resync(Arc::new(move || processor.should_resync()));
            if let Some(handler) = state.watch_error_handler.clone() {
                reflector.set_watch_error_handler(handler);
            }
            let count = counted.error_observer();
            reflector.set_error_observer(match state.error_observer.clone() {
                Some(user) => Arc::new(move |err| {
                    count(err);
                    user(err);
                }),
                None => count,
            });
            state.last_sync_resource_version = Some(reflector.last_sync_resource_version_handle());
            state.queue = Some(queue.clone());
            let weak = Arc::downgrade(&self.inner);
            let deliver_weak = Weak::clone(&weak);
            Controller::new(ControllerConfig {
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
        let running =
            self.inner.stats.time_sync(self.inner.synced.subscribe(), controller.run(cancel));
        // User code runs inside: a transform and a list tweak on the reflector's side, index
        // functions while deltas are applied. Its panic stops this informer, visibly.
        let outcome = AssertUnwindSafe(running).catch_unwind().await;
        {
            let mut state = self.inner.state.lock();
            state.stopped = true;
            if let Err(payload) = outcome {
                // The message is user code's own and may quote an object: not logged.
                error!("informer stopped: a transform, index function or list tweak panicked");
                state.panicked = Some(panic_message(payload.as_ref()));
            }
        }
        // Wake sync waiters so they see the stop.
        self.inner.synced.send_modify(|_| {});
        self.inner.processor.shutdown().await;
        // Whatever was held back for blocked handlers is for stopped listeners now.
        drop(std::mem::take(&mut *self.inner.deferred.lock()));
        info!("informer stopped");
    }
}

/// The text of a panic's payload: what `panic!` was given, when it was a string.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    match payload.downcast_ref::<&str>() {
        Some(message) => (*message).to_owned(),
        None => payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_else(|| "a non-string panic payload".to_owned()),
    }
}
