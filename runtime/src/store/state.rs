//! The data behind the lock: items plus their indices, typed or compact.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use kube::Resource;
use kube::core::Selector;

use super::Result;
use super::compact::{CompactStore, Origin, Pending};
use super::index::{IndexFunc, Indexers, StoreIndex};

/// The store's content (client-go `threadSafeMap` without the lock) and the resource
/// version of the last replace.
pub(crate) struct State<K> {
    pub(crate) storage: Storage<K>,
    pub(crate) resource_version: String,
}

/// How the objects are kept.
pub(crate) enum Storage<K> {
    /// As `Arc<K>`, shared with whoever inserted them.
    Typed(TypedStore<K>),
    /// Encoded, decoded on read (see [`super::CompactConfig`]).
    Compact(Box<CompactStore<K>>),
}

/// The typed storage. Each key is allocated once and shared with the index buckets,
/// which hold the objects too.
pub(crate) struct TypedStore<K> {
    pub(crate) items: HashMap<Arc<str>, Arc<K>>,
    pub(crate) index: StoreIndex<K, Arc<K>>,
}

/// Objects read under the lock: final for the typed store, partly still to decode (after
/// the lock is released) for the compact one.
pub(crate) enum Gathered<K> {
    Objects(Vec<Arc<K>>),
    Pending(Pending<K>),
}

impl<K> Gathered<K> {
    /// The objects `keep` accepts (the typed store applied it already).
    pub(crate) fn resolve(self, keep: &dyn Fn(&K) -> bool) -> Vec<Arc<K>> {
        match self {
            Gathered::Objects(objects) => objects,
            Gathered::Pending(pending) => pending.resolve(keep),
        }
    }
}

impl<K> State<K> {
    pub(crate) fn new(storage: Storage<K>) -> Self {
        Self { storage, resource_version: String::new() }
    }

    pub(crate) fn typed(indexers: Indexers<K>) -> Self {
        Self::new(Storage::Typed(TypedStore {
            items: HashMap::new(),
            index: StoreIndex::new(indexers),
        }))
    }
}

/// Runs `$body` with `$index` bound to the store's index, whatever the storage.
macro_rules! with_index {
    ($state:expr, $index:ident => $body:expr) => {
        match &$state.storage {
            Storage::Typed(typed) => {
                let $index = &typed.index;
                $body
            }
            Storage::Compact(compact) => {
                let $index = &compact.index;
                $body
            }
        }
    };
}

impl<K: Resource> State<K> {
    pub(crate) fn len(&self) -> usize {
        match &self.storage {
            Storage::Typed(typed) => typed.items.len(),
            Storage::Compact(compact) => compact.len(),
        }
    }

    pub(crate) fn is_compact(&self) -> bool {
        matches!(self.storage, Storage::Compact(_))
    }

    pub(crate) fn keys(&self) -> Vec<String> {
        match &self.storage {
            Storage::Typed(typed) => typed.items.keys().map(|key| key.to_string()).collect(),
            Storage::Compact(compact) => compact.keys().map(|key| key.to_string()).collect(),
        }
    }

    /// The object under `key` (compact: from the decoded cache, or decoded and cached).
    pub(crate) fn get(&self, key: &str) -> Option<Arc<K>> {
        match &self.storage {
            Storage::Typed(typed) => typed.items.get(key).cloned(),
            Storage::Compact(compact) => compact.get(key),
        }
    }

    /// Inserts or replaces `key`, keeping the indices exact; returns the previous object
    /// when `want_old` (the typed store always can, at no cost). `origin` only matters to
    /// a compact store's decoded cache.
    pub(crate) fn upsert(
        &mut self,
        key: &str,
        obj: Arc<K>,
        want_old: bool,
        origin: Origin,
    ) -> Result<Option<Arc<K>>> {
        match &mut self.storage {
            Storage::Typed(typed) => {
                let key: Arc<str> = match typed.items.get_key_value(key) {
                    Some((existing, _)) => Arc::clone(existing),
                    None => Arc::from(key),
                };
                let old = typed.items.insert(Arc::clone(&key), Arc::clone(&obj));
                typed.index.update(&key, old.as_deref(), Some(&obj), Some(&obj));
                Ok(old)
            }
            Storage::Compact(compact) => compact.upsert(key, obj, want_old, origin),
        }
    }

    /// Removes `key`, keeping the indices exact: `None` if it was absent, else the
    /// removed object when `want_old` (the typed store always has it).
    pub(crate) fn remove(&mut self, key: &str, want_old: bool) -> Option<Option<Arc<K>>> {
        match &mut self.storage {
            Storage::Typed(typed) => {
                let (key, old) = typed.items.remove_entry(key)?;
                typed.index.update(&key, Some(&old), None, None);
                Some(Some(old))
            }
            Storage::Compact(compact) => compact.remove(key, want_old),
        }
    }

    /// Swaps in a new set of items and rebuilds every index.
    pub(crate) fn replace(
        &mut self,
        list: Vec<(Arc<str>, Arc<K>)>,
        resource_version: &str,
    ) -> Result<()> {
        match &mut self.storage {
            Storage::Typed(typed) => {
                typed.items = list.into_iter().collect();
                typed.index.clear();
                for (key, obj) in &typed.items {
                    typed.index.update(key, None, Some(obj), Some(obj));
                }
            }
            Storage::Compact(compact) => compact.replace(list)?,
        }
        resource_version.clone_into(&mut self.resource_version);
        Ok(())
    }

    pub(crate) fn indexers(&self) -> &Indexers<K> {
        with_index!(self, index => index.indexers())
    }

    pub(crate) fn has_index(&self, name: &str) -> bool {
        with_index!(self, index => index.has_index(name))
    }

    pub(crate) fn func(&self, name: &str) -> Result<&IndexFunc<K>> {
        with_index!(self, index => index.func(name))
    }

    pub(crate) fn index_values(&self, name: &str) -> Vec<String> {
        with_index!(self, index => index.values(name))
    }

    pub(crate) fn bucket_count(&self, name: &str) -> usize {
        with_index!(self, index => index.bucket_count(name))
    }

    /// The keys whose index `name` holds `value`.
    pub(crate) fn bucket_keys(&self, name: &str, value: &str) -> Result<Vec<&Arc<str>>> {
        with_index!(self, index => Ok(index.bucket(name, value)?.into_iter().flat_map(|b| b.keys()).collect()))
    }

    /// The keys that share a value of index `name` with the `values` given, once each.
    pub(crate) fn keys_sharing(&self, name: &str, values: &[String]) -> Result<Vec<&Arc<str>>> {
        if let [value] = values {
            return self.bucket_keys(name, value);
        }
        let mut seen: HashSet<&Arc<str>> = HashSet::new();
        let mut out = Vec::new();
        for value in values {
            for key in self.bucket_keys(name, value)? {
                if seen.insert(key) {
                    out.push(key);
                }
            }
        }
        Ok(out)
    }

    /// Every object `keep` accepts (the compact store decodes, and applies `keep`, in
    /// [`Gathered::resolve`], after the lock is released). `labels`, if any, is part of what
    /// `keep` checks: the compact store applies it first, to the labels it keeps, and decodes
    /// only the objects it admits.
    pub(crate) fn gather_all(
        &self,
        labels: Option<&Selector>,
        keep: &dyn Fn(&K) -> bool,
    ) -> Gathered<K> {
        match &self.storage {
            Storage::Typed(typed) => {
                Gathered::Objects(typed.items.values().filter(|o| keep(o)).cloned().collect())
            }
            Storage::Compact(compact) => Gathered::Pending(compact.gather_all(labels)),
        }
    }

    /// The objects of index `name` under `value` that `keep` accepts, as
    /// [`gather_all`](Self::gather_all).
    pub(crate) fn gather_bucket(
        &self,
        name: &str,
        value: &str,
        labels: Option<&Selector>,
        keep: &dyn Fn(&K) -> bool,
    ) -> Result<Gathered<K>> {
        Ok(match &self.storage {
            Storage::Typed(typed) => Gathered::Objects(
                typed
                    .index
                    .bucket(name, value)?
                    .into_iter()
                    .flat_map(|b| b.values())
                    .filter(|o| keep(o))
                    .cloned()
                    .collect(),
            ),
            Storage::Compact(compact) => {
                let keys = self.bucket_keys(name, value)?;
                Gathered::Pending(compact.gather(keys.into_iter(), labels))
            }
        })
    }

    /// The objects under `keys`, as [`gather_all`](Self::gather_all).
    pub(crate) fn gather_keys(&self, keys: Vec<&Arc<str>>) -> Gathered<K> {
        match &self.storage {
            Storage::Typed(typed) => Gathered::Objects(
                keys.into_iter().filter_map(|key| typed.items.get(&**key)).cloned().collect(),
            ),
            Storage::Compact(compact) => Gathered::Pending(compact.gather(keys.into_iter(), None)),
        }
    }

    /// Every `(key, object)`, decoded as the iterator advances in a compact store.
    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = (&str, Arc<K>)> + '_> {
        match &self.storage {
            Storage::Typed(typed) => {
                Box::new(typed.items.iter().map(|(key, obj)| (&**key, Arc::clone(obj))))
            }
            Storage::Compact(compact) => Box::new(compact.iter()),
        }
    }

    /// The objects of index `name` under `value`, decoded as the iterator advances in a
    /// compact store.
    pub(crate) fn bucket_objects(
        &self,
        name: &str,
        value: &str,
    ) -> Result<Box<dyn Iterator<Item = Arc<K>> + '_>> {
        Ok(match &self.storage {
            Storage::Typed(typed) => Box::new(
                typed.index.bucket(name, value)?.into_iter().flat_map(|b| b.values()).cloned(),
            ),
            Storage::Compact(compact) => {
                let keys = compact.index.bucket(name, value)?.into_iter().flat_map(|b| b.keys());
                Box::new(compact.objects(keys))
            }
        })
    }

    /// Registers indexers and indexes every stored object with them.
    pub(crate) fn add_indexers(&mut self, new: Indexers<K>) -> Result<()> {
        match &mut self.storage {
            Storage::Typed(typed) => {
                let items = typed
                    .items
                    .iter()
                    .map(|(key, obj)| (Arc::clone(key), Arc::clone(obj), Arc::clone(obj)));
                typed.index.add_indexers(new, items, |_, _| {})
            }
            Storage::Compact(compact) => compact.add_indexers(new),
        }
    }
}
