//! [`Replacing`]: a relist handed to a [`DeltaFifo`] object by object, as it is decoded.

use std::fmt;
use std::sync::Arc;

use kube::Resource;
use tracing::debug;

use super::delta_fifo::DeltaFifo;
use super::error::{FifoError, Result};
use crate::store::meta_namespace_key_func;

impl<K: Resource + Send + Sync + 'static> DeltaFifo<K> {
    /// Starts a relist that is handed over object by object: [`Replacing::push`] queues a
    /// [`Delta::Replaced`](super::Delta::Replaced) for each listed object at once, and
    /// [`Replacing::finish`] queues the tombstones that [`replace`](Self::replace) would
    /// for the keys not listed. The FIFO then holds only what the consumer has not popped
    /// yet, not the whole list: a consumer that turns objects into something smaller (a
    /// compact store) keeps its memory at the size of what it stores.
    ///
    /// What this gives up against [`replace`](Self::replace): the relist is not one batch.
    /// A consumer pops it in parts, so readers of its store see a relist half applied
    /// (new states of some objects, deleted ones not yet gone) until `finish`; and a list
    /// that fails part way (the `Replacing` dropped without `finish`) has queued the
    /// objects it read, with no tombstones. Those are the server's states of those
    /// objects, at least as new as what was known; the next relist completes the picture.
    /// client-go has no counterpart: its `Replace` takes the whole list.
    ///
    /// Before the first relist finishes, [`has_synced`](Self::has_synced) stays false,
    /// however much of it was popped, and every popped key counts as part of the initial
    /// list. While a relist is being handed over, [`resync`](Self::resync) queues nothing.
    /// Starting a relist supersedes one still being handed over: the older one's later
    /// calls fail with [`FifoError::Superseded`] and it makes no tombstones.
    pub fn start_replace(&self) -> Replacing<K> {
        let generation = self.locked(|state, _| state.begin_replace());
        Replacing { fifo: self.clone(), generation, pushed: 0, done: false }
    }
}

/// A relist being handed to a [`DeltaFifo`] object by object
/// ([`DeltaFifo::start_replace`]). Dropped without [`finish`](Self::finish), it is given
/// up: what it pushed stays queued, and it makes no tombstones.
#[must_use = "a relist that is never finished makes no tombstones"]
pub struct Replacing<K> {
    fifo: DeltaFifo<K>,
    generation: u64,
    pushed: usize,
    done: bool,
}

impl<K: Resource + Send + Sync + 'static> Replacing<K> {
    /// Queues a [`Delta::Replaced`](super::Delta::Replaced) for one listed object.
    ///
    /// # Errors
    /// [`FifoError::Key`] when the object has no name (nothing is queued for it), and
    /// [`FifoError::Superseded`] when a later relist has started.
    pub fn push(&mut self, obj: Arc<K>) -> Result<()> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        let generation = self.generation;
        if !self.fifo.locked(|state, _| state.push_replaced(generation, key, obj)) {
            return Err(FifoError::Superseded);
        }
        self.pushed += 1;
        Ok(())
    }

    /// How many objects were pushed.
    pub fn pushed(&self) -> usize {
        self.pushed
    }

    /// Ends the relist: a tombstone for every key that is queued, being processed or
    /// known, and was not pushed, as [`DeltaFifo::replace`] makes. The first relist to
    /// finish marks the FIFO populated, so that it syncs once everything queued is
    /// processed. `resource_version` is the list's, as for `replace` (not used).
    ///
    /// # Errors
    /// [`FifoError::Superseded`] when a later relist has started.
    pub fn finish(mut self, resource_version: &str) -> Result<()> {
        self.done = true;
        let generation = self.generation;
        if !self.fifo.locked(|state, known| state.finish_replace(generation, known)) {
            return Err(FifoError::Superseded);
        }
        debug!(items = self.pushed, %resource_version, "replaced DeltaFIFO content object by object");
        Ok(())
    }
}

impl<K> Drop for Replacing<K> {
    fn drop(&mut self) {
        if !self.done {
            let generation = self.generation;
            debug!(items = self.pushed, "relist given up part way; no tombstones");
            self.fifo.locked(|state, _| state.abort_replace(generation));
        }
    }
}

impl<K> fmt::Debug for Replacing<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Replacing")
            .field("generation", &self.generation)
            .field("pushed", &self.pushed)
            .finish_non_exhaustive()
    }
}
