//! The data behind the lock: items plus their indices.

use std::collections::HashMap;
use std::sync::Arc;

use super::index::{Indexers, StoreIndex};

/// Items keyed by store key, and the indices over them (client-go `threadSafeMap`
/// without the lock). Each key is allocated once and shared with the index buckets.
pub(crate) struct State<K> {
    pub(crate) items: HashMap<Arc<str>, Arc<K>>,
    pub(crate) index: StoreIndex<K>,
    pub(crate) resource_version: String,
}

impl<K> State<K> {
    pub(crate) fn new(indexers: Indexers<K>) -> Self {
        Self {
            items: HashMap::new(),
            index: StoreIndex::new(indexers),
            resource_version: String::new(),
        }
    }

    /// Inserts or replaces `key`, keeping the indices exact; returns the previous object.
    pub(crate) fn upsert(&mut self, key: &str, obj: Arc<K>) -> Option<Arc<K>> {
        let key: Arc<str> = match self.items.get_key_value(key) {
            Some((existing, _)) => Arc::clone(existing),
            None => Arc::from(key),
        };
        let old = self.items.insert(Arc::clone(&key), Arc::clone(&obj));
        self.index.update(&key, old.as_ref(), Some(&obj));
        old
    }

    /// Removes `key`, keeping the indices exact; returns the removed object.
    pub(crate) fn remove(&mut self, key: &str) -> Option<Arc<K>> {
        let (key, old) = self.items.remove_entry(key)?;
        self.index.update(&key, Some(&old), None);
        Some(old)
    }

    /// Swaps in a new set of items and rebuilds every index.
    pub(crate) fn replace(&mut self, items: HashMap<Arc<str>, Arc<K>>, resource_version: &str) {
        self.items = items;
        self.index.clear();
        for (key, obj) in &self.items {
            self.index.update(key, None, Some(obj));
        }
        resource_version.clone_into(&mut self.resource_version);
    }
}
