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
    /// The known object under `key`, if holding it costs nothing more: a relist may then
    /// keep it in place of the object it just decoded (see
    /// [`ReflectorStore::reuse`](crate::reflector::ReflectorStore::reuse)). The default is
    /// [`get_by_key`](Self::get_by_key).
    fn get_shared(&self, key: &str) -> Option<Arc<K>> {
        self.get_by_key(key)
    }
}

impl<K: Resource + Send + Sync> KnownObjects<K> for Indexer<K> {
    fn list_keys(&self) -> Vec<String> {
        Indexer::list_keys(self)
    }

    fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        Indexer::get_by_key(self, key)
    }

    /// `None` for a compact store: it holds no decoded object to share, and decoding one
    /// to compare versions would cost what the relist's own decoding did.
    fn get_shared(&self, key: &str) -> Option<Arc<K>> {
        if self.is_compact() { None } else { Indexer::get_by_key(self, key) }
    }
}
