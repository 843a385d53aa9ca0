//! Applying a popped batch of deltas: to the cache in one transaction, then to the
//! handlers, holding back what blocked handlers cannot take yet (client-go's
//! `HandleDeltas` and `processDeltas`).

use std::fmt::Debug;
use std::sync::Arc;

use kube::Resource;

use super::controller::ProcessFailure;
use super::inner::Inner;
use crate::fifo::{Delta, Deltas};
use crate::processor::{Deferred, Notification};
use crate::store::{
    StoreError, deletion_handling_meta_namespace_key_func, meta_namespace_key_func,
};

impl<K> Inner<K>
where
    K: Resource + Clone + Debug + Send + Sync + 'static,
{
    /// Applies a batch to the cache in one transaction, then notifies handlers
    /// (client-go's `HandleDeltas` + `processDeltas`, made atomic per batch) in the order
    /// the deltas arrived, across keys: client-go's `RealFIFO` order (the default since
    /// 1.33, GA in 1.36), where its `DeltaFIFO` grouped each key's deltas. The cache ends up
    /// the same either way; handlers see A1, B1, A2 as they happened, not A1, A2, B1.
    pub(super) fn handle_deltas(
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
                for (arrival, delta) in deltas.with_arrivals() {
                    let applied = match delta {
                        Delta::Added(obj)
                        | Delta::Updated(obj)
                        | Delta::Replaced(obj)
                        | Delta::Sync(obj) => {
                            // A relist's or a resync's object, which a compact store's
                            // decoded cache takes only for a key it holds already.
                            let stored = if matches!(delta, Delta::Replaced(_) | Delta::Sync(_)) {
                                txn.add_listed(Arc::clone(obj))
                            } else {
                                txn.update(Arc::clone(obj))
                            };
                            stored.map(|old| match old {
                                Some(old) => {
                                    // Same resourceVersion: a resync or an unchanged relist
                                    // entry, sent only to handlers due for a resync.
                                    let is_sync =
                                        old.meta().resource_version == obj.meta().resource_version;
                                    notifications.push((
                                        arrival,
                                        Notification::Update { old, new: Arc::clone(obj) },
                                        is_sync,
                                    ));
                                }
                                None => notifications.push((
                                    arrival,
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
                                txn.discard_key(&key);
                                notifications.push((
                                    arrival,
                                    Notification::Delete(gone.clone()),
                                    false,
                                ));
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
                            other => {
                                meta_namespace_key_func(other.object().as_ref()).unwrap_or_default()
                            }
                        })
                        .unwrap_or_default();
                    failures.push(ProcessFailure { key, deltas, error: Box::new(error) });
                }
            }
        });
        // Stable, so that equal numbers keep their order.
        notifications.sort_by_key(|(arrival, _, _)| *arrival);
        let mut deferred = self.deferred.lock();
        for (_, notification, is_sync) in notifications {
            self.processor.distribute_deferring(notification, is_sync, &mut deferred);
        }
        failures
    }

    /// Hands blocked handlers what the last batch held back for them, waiting until each
    /// has room: the back-pressure of [`OverflowPolicy::Block`](crate::processor::OverflowPolicy::Block).
    /// The informer pops no further deltas meanwhile; removing the handler or stopping the
    /// informer ends the wait.
    pub(super) async fn deliver_deferred(&self) {
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
