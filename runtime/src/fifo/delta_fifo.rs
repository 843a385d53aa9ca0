//! [`DeltaFifo`]: the handle producers push into and the consumer pops from.

use std::fmt;
use std::sync::Arc;

use kube::Resource;
use parking_lot::Mutex;
use tokio::sync::Notify;
use tracing::debug;

use super::delta::{Delta, Deltas};
use super::error::{PopError, Result};
use super::known::KnownObjects;
use super::queue::{QueueState, Taken};
use crate::store::{deletion_handling_meta_namespace_key_func, meta_namespace_key_func};
use crate::tombstone::DeletedObject;

/// client-go's `DeltaFIFO`: a queue of keys, each with the ordered [`Deltas`] that happened
/// to it since it was last popped.
///
/// Producers (the reflector) call [`add`](Self::add), [`update`](Self::update),
/// [`delete`](Self::delete), [`replace`](Self::replace) and [`resync`](Self::resync); one
/// consumer (the controller) calls [`pop`](Self::pop) or [`pop_batch`](Self::pop_batch).
/// `DeltaFifo` is a cheap handle: clones share one queue.
///
/// Relists always queue [`Delta::Replaced`] (client-go's `EmitDeltaTypeReplaced`, always on).
/// See the [module docs](super) for how popping without holding the lock stays correct.
///
/// ```
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use std::{convert::Infallible, sync::Arc};
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kube::api::ObjectMeta;
/// use kube_informers_runtime::fifo::{DeltaFifo, DeltaType};
///
/// let fifo = DeltaFifo::<ConfigMap>::new(None);
/// let cm = Arc::new(ConfigMap {
///     metadata: ObjectMeta { name: Some("cfg".into()), namespace: Some("prod".into()), ..Default::default() },
///     ..Default::default()
/// });
/// fifo.add(cm.clone())?;
/// fifo.update(cm)?;
/// fifo.pop(|deltas, _is_in_initial_list| {
///     assert_eq!(deltas.kinds(), [DeltaType::Added, DeltaType::Updated]);
///     Ok::<_, Infallible>(())
/// })
/// .await?;
/// # Ok(()) }
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(demo()).unwrap();
/// ```
pub struct DeltaFifo<K> {
    inner: Arc<Inner<K>>,
}

struct Inner<K> {
    state: Mutex<QueueState<K>>,
    known: Option<Arc<dyn KnownObjects<K>>>,
    /// Wakes a waiting consumer when something is queued or the FIFO closes.
    notify: Notify,
    /// Held by a consumer from the start of a pop until its process function returns, so
    /// pops (and their processing) never overlap, as under client-go's lock.
    consumer: tokio::sync::Mutex<()>,
}

impl<K> Clone for DeltaFifo<K> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

impl<K> fmt::Debug for DeltaFifo<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.state.lock();
        f.debug_struct("DeltaFifo")
            .field("len", &state.len())
            .field("has_synced", &state.has_synced())
            .field("closed", &state.is_closed())
            .finish()
    }
}

impl<K> DeltaFifo<K> {
    /// Runs `f` on the queue under its lock, with the known objects, then wakes a waiting
    /// consumer: how a relist handed over object by object queues.
    pub(super) fn locked<R>(
        &self,
        f: impl FnOnce(&mut QueueState<K>, Option<&dyn KnownObjects<K>>) -> R,
    ) -> R {
        let out = f(&mut self.inner.state.lock(), self.inner.known.as_deref());
        self.inner.notify.notify_waiters();
        out
    }

    /// Runs `f` on the queue under its lock, reading only, so waking no one.
    pub(super) fn peek<R>(&self, f: impl FnOnce(&QueueState<K>) -> R) -> R {
        f(&self.inner.state.lock())
    }
}

/// Finishes a pop when dropped: takes the popped keys out of flight and counts them towards
/// `has_synced`, even if the process function panicked.
struct InFlight<'a, K> {
    inner: &'a Inner<K>,
    keys: Vec<Arc<str>>,
    counted: usize,
}

impl<K> Drop for InFlight<'_, K> {
    fn drop(&mut self) {
        self.inner.state.lock().finish(&self.keys, self.counted);
    }
}

impl<K: Resource + Send + Sync + 'static> DeltaFifo<K> {
    /// An empty FIFO. `known_objects` is what the consumer already holds (its
    /// [`Indexer`](crate::store::Indexer)); without it, a relist can only make tombstones
    /// for queued keys, and [`resync`](Self::resync) does nothing.
    pub fn new(known_objects: Option<Arc<dyn KnownObjects<K>>>) -> Self {
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(QueueState::new()),
                known: known_objects,
                notify: Notify::new(),
                consumer: tokio::sync::Mutex::new(()),
            }),
        }
    }

    /// Like [`new`](Self::new), for a consumer that applies each batch in arrival order
    /// across keys (as the shared informer does; client-go's `RealFIFO` since 1.33). Every
    /// delta carries its arrival number, so any consumer can do that within a batch; what
    /// this adds is the boundary of the initial list: while it is popped, a listed key's
    /// deltas that arrived after the relist stay queued in their arrival place, and reach a
    /// later batch after those of the keys that arrived before them. Without it (client-go's
    /// `DeltaFIFO`), popping a key hands over all its deltas at once.
    pub fn in_arrival_order(known_objects: Option<Arc<dyn KnownObjects<K>>>) -> Self {
        let fifo = Self::new(known_objects);
        fifo.inner.state.lock().split_initial_list();
        fifo
    }

    fn known(&self) -> Option<&dyn KnownObjects<K>> {
        self.inner.known.as_deref()
    }

    fn queue(&self, key: &str, delta: Delta<K>) {
        {
            let mut state = self.inner.state.lock();
            state.mark_populated();
            state.queue_action(key, delta);
        }
        self.inner.notify.notify_waiters();
    }

    /// Queues an [`Delta::Added`].
    ///
    /// # Errors
    /// [`FifoError::Key`](super::FifoError::Key) when the object has no name.
    pub fn add(&self, obj: Arc<K>) -> Result<()> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        self.queue(&key, Delta::Added(obj));
        Ok(())
    }

    /// Queues an [`Delta::Updated`].
    ///
    /// # Errors
    /// [`FifoError::Key`](super::FifoError::Key) when the object has no name.
    pub fn update(&self, obj: Arc<K>) -> Result<()> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        self.queue(&key, Delta::Updated(obj));
        Ok(())
    }

    /// Queues a [`Delta::Deleted`], unless the key is neither queued, being processed, nor
    /// known: then there is nothing to delete and the call is ignored (client-go `Delete`).
    /// Takes the delete payload, so a caller can pass an object or a tombstone (whose key
    /// is used as is). Two consecutive deletes of one key collapse into one, keeping the
    /// one that is not a tombstone.
    ///
    /// # Errors
    /// [`FifoError::Key`](super::FifoError::Key) when the object has no name.
    pub fn delete(&self, obj: DeletedObject<K>) -> Result<()> {
        let key = deletion_handling_meta_namespace_key_func(&obj)?;
        {
            let mut state = self.inner.state.lock();
            state.mark_populated();
            if !state.delete_is_relevant(&key, self.known()) {
                debug!(%key, "ignoring delete of an unknown key");
                return Ok(());
            }
            state.queue_action(&key, Delta::Deleted(obj));
        }
        self.inner.notify.notify_waiters();
        Ok(())
    }

    /// Queues a [`DeletedFinalStateUnknown`](crate::DeletedFinalStateUnknown) tombstone for
    /// `key`, carrying the newest state the FIFO or the consumer has for it, unless the key
    /// is unknown or already queued as deleted. This is the tombstone a relist without the
    /// object would queue: the reflector forgets an object whose latest version no longer
    /// decodes, so that the cache holds only decodable objects, as after a relist. client-go
    /// has no counterpart (it cannot skip such an object).
    pub fn forget(&self, key: &str) {
        let queued = self.inner.state.lock().forget(key, self.known());
        if queued {
            self.inner.notify.notify_waiters();
        }
    }

    /// Queues a relist (client-go `Replace`): a [`Delta::Replaced`] for each listed object,
    /// then a [`DeletedFinalStateUnknown`](crate::DeletedFinalStateUnknown) tombstone for
    /// every key that is queued, being processed or known, but absent from `list`. A
    /// tombstone carries the newest object the FIFO or the consumer has for its key.
    ///
    /// The whole relist is queued under one lock, so a consumer popping with
    /// [`pop_batch(usize::MAX, ..)`](Self::pop_batch) gets all of it (plus anything queued
    /// earlier) in one batch. The first replace (before any add, update or delete) sets the
    /// number of keys to process before [`has_synced`](Self::has_synced) turns true.
    ///
    /// `resource_version` is not used by the FIFO (the reflector tracks it); it is taken for
    /// symmetry with [`Indexer::replace`](crate::store::Indexer::replace).
    ///
    /// # Errors
    /// [`FifoError::Key`](super::FifoError::Key) when an object has no name; nothing is
    /// queued then.
    pub fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<()> {
        let mut keyed = Vec::with_capacity(list.len());
        for obj in list {
            keyed.push((meta_namespace_key_func(obj.as_ref())?, obj));
        }
        debug!(items = keyed.len(), %resource_version, "replacing DeltaFIFO content");
        self.inner.state.lock().replace(keyed, self.known());
        self.inner.notify.notify_waiters();
        Ok(())
    }

    /// The newest state the FIFO knows for `key`: the object of its newest queued delta
    /// (`None` if that is a delete), else the state a popped key is being processed into,
    /// else the known objects' when they can share it without decoding
    /// ([`KnownObjects::get_shared`]): what a relist compares with.
    pub fn newest(&self, key: &str) -> Option<Arc<K>> {
        self.inner.state.lock().newest(key, self.known())
    }

    /// Queues a [`Delta::Sync`] for every known key that is not already queued or being
    /// processed (client-go `Resync`); those will be delivered anyway. Does nothing without
    /// known objects.
    ///
    /// # Errors
    /// None today; the `Result` keeps the producer interface uniform.
    pub fn resync(&self) -> Result<()> {
        let Some(known) = self.known() else { return Ok(()) };
        self.inner.state.lock().resync(known);
        self.inner.notify.notify_waiters();
        Ok(())
    }

    /// Puts back deltas whose processing failed, at the end of the queue, unless `key` is
    /// queued already: then the newer deltas win and these are dropped (client-go
    /// `AddIfNotPresent`, used with `RetryOnError`). `key` is the deltas' store key. Empty
    /// deltas are ignored.
    pub fn add_if_not_present(&self, key: impl AsRef<str>, deltas: Deltas<K>) {
        let added = self.inner.state.lock().add_if_not_present(key.as_ref(), deltas);
        if added {
            self.inner.notify.notify_waiters();
        }
    }

    /// Waits for the next key and hands its deltas to `process`, with whether they belong
    /// to the initial list (client-go `Pop`).
    ///
    /// Waits without spinning. After [`close`](Self::close), keys still queued are popped
    /// first; `Err(PopError::Closed)` comes once the queue is empty, as client-go returns
    /// `ErrFIFOClosed` only from an empty queue. A consumer that must stop at once should
    /// race `pop` against its own cancellation instead.
    ///
    /// `process` runs without the FIFO lock, so producers never wait on a slow consumer.
    /// [`has_synced`](Self::has_synced) counts the popped key only after `process` returns.
    /// Pops are serialized: a second concurrent `pop` waits until the first one's `process`
    /// has returned.
    ///
    /// # Errors
    /// [`PopError::Closed`], or [`PopError::Process`] with `process`'s error; the deltas are
    /// gone from the FIFO either way (re-queue with
    /// [`add_if_not_present`](Self::add_if_not_present)).
    pub async fn pop<E>(
        &self,
        process: impl FnOnce(Deltas<K>, bool) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), PopError<E>> {
        self.pop_batch(1, |batch, is_in_initial_list| match batch.into_iter().next() {
            Some(deltas) => process(deltas, is_in_initial_list),
            None => Ok(()),
        })
        .await
    }

    /// Like [`pop`](Self::pop), but takes up to `max` keys (at least one) in queue order
    /// and hands all their deltas to `process` at once. With `max = usize::MAX` a consumer
    /// gets every queued key, so a relist queued by [`replace`](Self::replace) arrives in
    /// one batch and can be applied to the store in one transaction.
    ///
    /// While the keys of the initial list are being popped, a batch stops at the end of
    /// them, so the `is_in_initial_list` flag is exact for every key of a batch.
    ///
    /// # Errors
    /// As for [`pop`](Self::pop).
    pub async fn pop_batch<E>(
        &self,
        max: usize,
        process: impl FnOnce(Vec<Deltas<K>>, bool) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), PopError<E>> {
        let _consumer = self.inner.consumer.lock().await;
        let taken = self.wait_and_take(max.max(1)).await?;
        let Taken { batch, keys, counted, is_in_initial_list } = taken;
        let _in_flight = InFlight { inner: &self.inner, keys, counted };
        process(batch, is_in_initial_list).map_err(PopError::Process)
    }

    async fn wait_and_take<E>(&self, max: usize) -> std::result::Result<Taken<K>, PopError<E>> {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            // Registered before looking at the queue, so a push in between still wakes us.
            notified.as_mut().enable();
            {
                let mut state = self.inner.state.lock();
                if let Some(taken) = state.take(max) {
                    return Ok(taken);
                }
                if state.is_closed() {
                    return Err(PopError::Closed);
                }
            }
            notified.await;
        }
    }

    /// Completes once [`has_synced`](Self::has_synced) is true, or the FIFO is closed: how
    /// a consumer blocked in [`pop`](Self::pop) learns that an empty first
    /// [`replace`](Self::replace) synced the queue with nothing to pop.
    pub async fn synced(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            // Registered before looking at the state, so a replace in between still wakes us.
            notified.as_mut().enable();
            {
                let state = self.inner.state.lock();
                if state.has_synced() || state.is_closed() {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Closes the FIFO: waiting pops wake up, and once the queue is empty every pop returns
    /// [`PopError::Closed`]. Producers may still queue (as in client-go).
    pub fn close(&self) {
        self.inner.state.lock().close();
        self.inner.notify.notify_waiters();
    }

    /// Whether [`close`](Self::close) was called.
    pub fn is_closed(&self) -> bool {
        self.inner.state.lock().is_closed()
    }

    /// True once the first add, update or delete was queued, or every key of the first
    /// [`replace`](Self::replace) was popped and processed (client-go `HasSynced`).
    pub fn has_synced(&self) -> bool {
        self.inner.state.lock().has_synced()
    }

    /// Number of queued keys.
    pub fn len(&self) -> usize {
        self.inner.state.lock().len()
    }

    /// Whether no key is queued.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The queued keys, in pop order.
    pub fn list_keys(&self) -> Vec<String> {
        self.inner.state.lock().list_keys()
    }

    /// A copy of the deltas queued for `key` (the objects are shared).
    pub fn get_by_key(&self, key: &str) -> Option<Deltas<K>> {
        self.inner.state.lock().get(key)
    }
}
