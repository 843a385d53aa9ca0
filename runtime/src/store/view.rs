//! Borrowed access to the store while its lock is held: [`IndexerView`] for reads,
//! [`IndexerTxn`] for atomic writes.

use std::sync::Arc;

use kube::Resource;

use super::compact::Origin;
use super::state::State;
use super::{Result, meta_namespace_key_func};

/// A consistent read-only view of an [`Indexer`](super::Indexer), valid inside
/// [`Indexer::read`](super::Indexer::read). Lets a caller filter or count without first
/// copying every `Arc` out of the store.
///
/// The view hands out owned `Arc<K>`s (a clone of the stored `Arc` in a typed store, an
/// object decoded as the iterator advances, or from the decoded cache, in a
/// [compact](super::Indexer::compact) one), so that both kinds of store have one view.
/// In a compact store, prefer [`Indexer::list`](super::Indexer::list) and
/// [`Indexer::by_index`](super::Indexer::by_index) for many objects: they decode after
/// releasing the lock, where a view decodes under it.
pub struct IndexerView<'a, K> {
    pub(crate) state: &'a State<K>,
}

impl<'a, K: Resource> IndexerView<'a, K> {
    /// The object stored under `key`.
    pub fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.state.get(key)
    }

    /// Every `(key, object)` pair, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, Arc<K>)> + 'a {
        self.state.iter()
    }

    /// Number of stored objects.
    pub fn len(&self) -> usize {
        self.state.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.state.len() == 0
    }

    /// Whether an index named `name` exists.
    pub fn has_index(&self, name: &str) -> bool {
        self.state.has_index(name)
    }

    /// The objects whose index `name` contains `value`, in no particular order.
    ///
    /// # Errors
    /// [`StoreError::IndexNotFound`](super::StoreError::IndexNotFound) for an unknown index.
    pub fn by_index(&self, name: &str, value: &str) -> Result<impl Iterator<Item = Arc<K>> + 'a> {
        self.state.bucket_objects(name, value)
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
        self.state.get(key)
    }

    /// Number of stored objects, including changes made in this transaction.
    pub fn len(&self) -> usize {
        self.state.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.state.len() == 0
    }

    /// Inserts or replaces the object; returns the object it replaced.
    ///
    /// In a [compact](super::Indexer::compact) store the previous object is decoded,
    /// unless the decoded cache holds it.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name;
    /// [`StoreError::Encode`](super::StoreError::Encode) when a compact store cannot
    /// encode it.
    pub fn add(&mut self, obj: Arc<K>) -> Result<Option<Arc<K>>> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        self.state.upsert(&key, obj, true, Origin::Event)
    }

    /// [`add`](Self::add) of an object that a relist or a resync brought, not a watch event:
    /// a compact store's decoded cache takes it only if it holds its key already.
    pub(crate) fn add_listed(&mut self, obj: Arc<K>) -> Result<Option<Arc<K>>> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        self.state.upsert(&key, obj, true, Origin::Listed)
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
        self.state.remove(key, true).flatten()
    }

    /// Removes the object stored under `key` without returning it: whether there was one.
    /// Same as [`delete_key`](Self::delete_key) in a typed store; a compact store need not
    /// decode the removed object.
    pub fn discard_key(&mut self, key: &str) -> bool {
        self.state.remove(key, false).is_some()
    }
}
