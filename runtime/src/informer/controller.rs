//! The controller: pops deltas from the DeltaFIFO and hands them to a process function,
//! while a reflector fills the FIFO (client-go's `tools/cache/controller.go`).

use std::sync::Arc;

use futures::future::BoxFuture;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{debug, debug_span, warn};

use crate::fifo::{DeltaFifo, Deltas};
use crate::reflector::{BoxError, Reflector};

/// One key's deltas that a [`ProcessFunc`] could not apply, and why.
pub struct ProcessFailure<K> {
    /// The store key the deltas belong to.
    pub key: String,
    /// The deltas, handed back so that they can be re-queued.
    pub deltas: Deltas<K>,
    /// What went wrong.
    pub error: BoxError,
}

/// Applies a batch of popped deltas, oldest key first.
///
/// The batch holds every key that was queued when it was popped, so a relist is handed over
/// whole and can be applied atomically. The flag tells whether the batch belongs to the
/// initial list. Keys that could not be applied are returned.
pub type ProcessFunc<K> =
    Arc<dyn Fn(Vec<Deltas<K>>, bool) -> Vec<ProcessFailure<K>> + Send + Sync + 'static>;

/// Awaited after each processed batch, before the next pop: where an informer waits for
/// handlers that apply back-pressure
/// ([`OverflowPolicy::Block`](crate::processor::OverflowPolicy::Block)).
pub type AfterBatchFunc = Arc<dyn Fn() -> BoxFuture<'static, ()> + Send + Sync + 'static>;

/// What a [`Controller`] needs (client-go's `cache.Config`).
pub struct ControllerConfig<K: Clone> {
    /// The queue the reflector fills and the process loop drains.
    pub queue: DeltaFifo<K>,
    /// The reflector that lists and watches into `queue`.
    pub reflector: Reflector<K>,
    /// Applies popped deltas.
    pub process: ProcessFunc<K>,
    /// Re-queue deltas whose processing failed (client-go's `RetryOnError`), unless the key
    /// was queued again meanwhile.
    pub retry_on_error: bool,
    /// Set to `true` once the initial list has been processed (or an empty one queued).
    /// The controller's process loop is the only writer.
    pub synced: Option<watch::Sender<bool>>,
    /// Awaited after each batch, before `synced` is set and the next batch popped; the
    /// wait is abandoned when the controller is cancelled, and `synced` is then never set.
    pub after_batch: Option<AfterBatchFunc>,
}

/// Runs a reflector and a process loop over one DeltaFIFO (client-go's `cache.New(cfg).Run`).
pub struct Controller<K: Clone> {
    config: ControllerConfig<K>,
}

impl<K> Controller<K>
where
    K: kube::Resource + Clone + std::fmt::Debug + Send + Sync + 'static,
{
    /// A controller over `config`; nothing runs until [`Controller::run`].
    pub fn new(config: ControllerConfig<K>) -> Self {
        Self { config }
    }

    /// Whether the initial list has been popped and processed.
    pub fn has_synced(&self) -> bool {
        self.config.queue.has_synced()
    }

    /// Runs the reflector and the process loop until `cancel` fires, then closes the queue and
    /// returns once both have ended.
    pub async fn run(self, cancel: CancellationToken) {
        let ControllerConfig { queue, reflector, process, retry_on_error, synced, after_batch } =
            self.config;
        let reflector_cancel = cancel.child_token();
        let reflector_task = async move { reflector.run(reflector_cancel).await };
        let close_queue = {
            let queue = queue.clone();
            let cancel = cancel.clone();
            async move {
                cancel.cancelled().await;
                queue.close();
            }
        };
        let process_loop =
            process_loop(queue, process, retry_on_error, synced, after_batch, cancel.clone());
        // The queue is closed on cancel, which ends the process loop; the reflector watches the
        // same token, so all three futures finish.
        futures::join!(reflector_task, close_queue, process_loop);
    }
}

async fn process_loop<K>(
    queue: DeltaFifo<K>,
    process: ProcessFunc<K>,
    retry_on_error: bool,
    synced: Option<watch::Sender<bool>>,
    after_batch: Option<AfterBatchFunc>,
    cancel: CancellationToken,
) where
    K: kube::Resource + Send + Sync + 'static,
{
    // Set once an after-batch wait was abandoned: a handler may then have missed part of
    // the initial list, so the informer must not report synced.
    let mut abandoned = false;
    loop {
        let mut failures = Vec::new();
        let pop = queue.pop_batch(usize::MAX, |batch, is_in_initial_list| {
            let _span =
                debug_span!("process_batch", keys = batch.len(), is_in_initial_list).entered();
            failures = process(batch, is_in_initial_list);
            Ok::<(), std::convert::Infallible>(())
        });
        let unpublished = !abandoned && synced.as_ref().is_some_and(|synced| !*synced.borrow());
        let popped = if unpublished {
            // Until synced is published, an empty first list (nothing to pop) syncs too.
            // The pop goes first, so queued deltas (and a closed queue) are seen before the
            // sync; it is cancel-safe, as a pop that takes a batch processes it in that poll.
            tokio::select! {
                biased;
                popped = pop => Some(popped),
                () = queue.synced() => None,
            }
        } else {
            Some(pop.await)
        };
        if let Some(popped) = popped {
            if popped.is_err() {
                debug!("queue closed, process loop ends");
                return;
            }
            if let Some(after_batch) = &after_batch {
                tokio::select! {
                    biased;
                    () = cancel.cancelled() => abandoned = true,
                    () = after_batch() => {}
                }
            }
        }
        if !abandoned
            && let Some(synced) = &synced
            && queue.has_synced()
            && !*synced.borrow()
        {
            debug!("initial list processed");
            synced.send_replace(true);
        }
        for failure in failures {
            warn!(key = %failure.key, error = %failure.error, "failed to process deltas");
            if retry_on_error {
                queue.add_if_not_present(failure.key, failure.deltas);
            }
        }
    }
}
