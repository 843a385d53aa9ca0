//! [`KnownObjects`]: what the consumer has already applied, as the FIFO sees it.

use std::sync::Arc;

use kube::Resource;

use crate::store::Indexer;

/// The objects the consumer of a [`DeltaFifo`](super::DeltaFifo) already holds, usually
/// its [`Indexer`] (client-go `KeyListerGetter`). The FIFO reads it to turn a relist into
/// tombstones, to decide whether a delete is news, and to resync.
///
/// The FIFO calls these methods while holding its own lock, so an implementation must not
/// call back into the FIFO.
pub trait KnownObjects<K>: Send + Sync {
    /// Every known key.
    fn list_keys(&self) -> Vec<String>;
    /// The known object under `key`.
    fn get_by_key(&self, key: &str) -> Option<Arc<K>>;
}

impl<K: Resource + Send + Sync> KnownObjects<K> for Indexer<K> {
    fn list_keys(&self) -> Vec<String> {
        Indexer::list_keys(self)
    }

    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        Indexer::get_by_key(self, key)
    }
}
