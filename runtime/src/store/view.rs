//! Borrowed access to the store while its lock is held: [`IndexerView`] for reads,
//! [`IndexerTxn`] for atomic writes.

use std::sync::Arc;

use kube::Resource;

use super::state::State;
use super::{Result, meta_namespace_key_func};

/// A consistent read-only view of an [`Indexer`](super::Indexer), valid inside
/// [`Indexer::read`](super::Indexer::read). Lets a caller filter or count without first
/// copying every `Arc` out of the store.
pub struct IndexerView<'a, K> {
    pub(crate) state: &'a State<K>,
}

impl<'a, K> IndexerView<'a, K> {
    /// The object stored under `key`.
    pub fn get_by_key(&self, key: &str) -> Option<&'a Arc<K>> {
        self.state.items.get(key)
    }

    /// Every `(key, object)` pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, &'a Arc<K>)> + 'a {
        self.state.items.iter().map(|(key, obj)| (&**key, obj))
    }

    /// Number of stored objects.
    pub fn len(&self) -> usize {
        self.state.items.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.state.items.is_empty()
    }

    /// Whether an index named `name` exists.
    pub fn has_index(&self, name: &str) -> bool {
        self.state.index.has_index(name)
    }

    /// The objects whose index `name` contains `value`, in no particular order.
    ///
    /// # Errors
    /// [`StoreError::IndexNotFound`](super::StoreError::IndexNotFound) for an unknown index.
    pub fn by_index(
        &self,
        name: &str,
        value: &str,
    ) -> Result<impl Iterator<Item = &'a Arc<K>> + 'a> {
        let bucket = self.state.index.bucket(name, value)?;
        Ok(bucket.into_iter().flat_map(|bucket| bucket.values()))
    }
}

/// Write access inside [`Indexer::transaction`](super::Indexer::transaction). Every change
/// made through it becomes visible to readers at once, when the transaction ends.
pub struct IndexerTxn<'a, K> {
    pub(crate) state: &'a mut State<K>,
}

impl<K: Resource> IndexerTxn<'_, K> {
    /// The object stored under `key`, including changes made earlier in this transaction.
    pub fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.state.items.get(key).cloned()
    }

    /// Number of stored objects, including changes made in this transaction.
    pub fn len(&self) -> usize {
        self.state.items.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.state.items.is_empty()
    }

    /// Inserts or replaces the object; returns the object it replaced.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name.
    pub fn add(&mut self, obj: Arc<K>) -> Result<Option<Arc<K>>> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        Ok(self.state.upsert(&key, obj))
    }

    /// Same as [`add`](Self::add): the store does not distinguish the two (client-go neither).
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name.
    pub fn update(&mut self, obj: Arc<K>) -> Result<Option<Arc<K>>> {
        self.add(obj)
    }

    /// Removes the object stored under `key`, returning it.
    pub fn delete_key(&mut self, key: &str) -> Option<Arc<K>> {
        self.state.remove(key)
    }
}
