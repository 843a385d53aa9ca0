//! [`Indexer`]: the thread-safe store with named indices.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use kube::Resource;
use parking_lot::RwLock;

use super::index::Indexers;
use super::state::State;
use super::view::{IndexerTxn, IndexerView};
use super::{Result, meta_namespace_key_func};

/// A thread-safe store of `Arc<K>` keyed `namespace/name` (or `name`), with named indices
/// (client-go `cache.Indexer` over a `threadSafeMap`).
///
/// `Indexer` is a cheap handle: clones share one store. Reads take a shared lock
/// ([`parking_lot::RwLock`]), so readers never block each other; writes take it exclusively
/// and keep every index exact (an update drops the object's old index values, an emptied
/// bucket is removed).
///
/// Objects are never copied: what goes in is the `Arc` that comes out.
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kube::api::ObjectMeta;
/// use kube_informers_runtime::store::{namespace_indexers, Indexer, NAMESPACE_INDEX};
///
/// let indexer = Indexer::new(namespace_indexers::<ConfigMap>());
/// let cm = Arc::new(ConfigMap {
///     metadata: ObjectMeta { name: Some("cfg".into()), namespace: Some("prod".into()), ..Default::default() },
///     ..Default::default()
/// });
/// indexer.add(cm.clone())?;
/// assert!(Arc::ptr_eq(&indexer.get_by_key("prod/cfg").unwrap(), &cm));
/// assert_eq!(indexer.by_index(NAMESPACE_INDEX, "prod")?.len(), 1);
/// # Ok::<(), kube_informers_runtime::store::StoreError>(())
/// ```
pub struct Indexer<K> {
    state: Arc<RwLock<State<K>>>,
}

impl<K> Clone for Indexer<K> {
    fn clone(&self) -> Self {
        Self { state: Arc::clone(&self.state) }
    }
}

impl<K> fmt::Debug for Indexer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.read();
        f.debug_struct("Indexer")
            .field("len", &state.items.len())
            .field("indexers", &state.index.indexers().keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<K: Resource> Default for Indexer<K> {
    fn default() -> Self {
        Self::new(Indexers::new())
    }
}

impl<K: Resource> Indexer<K> {
    /// An empty store with the given indexers.
    pub fn new(indexers: Indexers<K>) -> Self {
        Self { state: Arc::new(RwLock::new(State::new(indexers))) }
    }

    /// Inserts or replaces the object.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name.
    pub fn add(&self, obj: Arc<K>) -> Result<()> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        self.state.write().upsert(&key, obj);
        Ok(())
    }

    /// Same as [`add`](Self::add) (client-go's `Add` calls `Update`).
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name.
    pub fn update(&self, obj: Arc<K>) -> Result<()> {
        self.add(obj)
    }

    /// Removes the object with the same key as `obj`; absent keys are ignored.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name.
    pub fn delete(&self, obj: &K) -> Result<()> {
        let key = meta_namespace_key_func(obj)?;
        self.state.write().remove(&key);
        Ok(())
    }

    /// Removes the object stored under `key`, returning it. Use with
    /// [`deletion_handling_meta_namespace_key_func`](super::deletion_handling_meta_namespace_key_func)
    /// to delete by tombstone.
    pub fn delete_key(&self, key: &str) -> Option<Arc<K>> {
        self.state.write().remove(key)
    }

    /// Replaces the whole content with `list` and rebuilds the indices
    /// (client-go `Replace`). Keys are computed first: if one object has no name, nothing
    /// changes. When `list` holds one key twice, the later object wins.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when an object has no name.
    pub fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<()> {
        let mut items = HashMap::with_capacity(list.len());
        for obj in list {
            let key: Arc<str> = meta_namespace_key_func(obj.as_ref())?.into();
            items.insert(key, obj);
        }
        self.state.write().replace(items, resource_version);
        Ok(())
    }

    /// The object with the same key as `obj`; `None` also when `obj` has no name (such an
    /// object cannot be stored).
    pub fn get(&self, obj: &K) -> Option<Arc<K>> {
        let key = meta_namespace_key_func(obj).ok()?;
        self.get_by_key(&key)
    }

    /// The object stored under `key` (`namespace/name` or `name`).
    pub fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.state.read().items.get(key).cloned()
    }

    /// Every stored object, in no particular order.
    pub fn list(&self) -> Vec<Arc<K>> {
        self.state.read().items.values().cloned().collect()
    }

    /// Every stored key, in no particular order.
    pub fn list_keys(&self) -> Vec<String> {
        self.state.read().items.keys().map(|key| key.to_string()).collect()
    }

    /// Number of stored objects.
    pub fn len(&self) -> usize {
        self.state.read().items.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.state.read().items.is_empty()
    }

    /// The resource version given to the last [`replace`](Self::replace) (empty before).
    pub fn resource_version(&self) -> String {
        self.state.read().resource_version.clone()
    }

    /// The objects that share at least one value of index `name` with `obj`
    /// (client-go `Index`). `obj` itself need not be stored.
    ///
    /// # Errors
    /// [`StoreError::IndexNotFound`](super::StoreError::IndexNotFound) for an unknown index.
    pub fn index(&self, name: &str, obj: &K) -> Result<Vec<Arc<K>>> {
        let state = self.state.read();
        let values = state.index.func(name)?(obj);
        if let [value] = values.as_slice() {
            let bucket = state.index.bucket(name, value)?;
            return Ok(bucket.into_iter().flat_map(|b| b.values().cloned()).collect());
        }
        let mut out = Vec::new();
        let mut seen: HashSet<&Arc<str>> = HashSet::new();
        for value in &values {
            for (key, obj) in state.index.bucket(name, value)?.into_iter().flatten() {
                if seen.insert(key) {
                    out.push(Arc::clone(obj));
                }
            }
        }
        Ok(out)
    }

    /// The keys whose index `name` contains `value`, sorted (client-go `IndexKeys`).
    ///
    /// # Errors
    /// [`StoreError::IndexNotFound`](super::StoreError::IndexNotFound) for an unknown index.
    pub fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>> {
        let state = self.state.read();
        let mut keys: Vec<String> = state
            .index
            .bucket(name, value)?
            .into_iter()
            .flat_map(|b| b.keys())
            .map(|key| key.to_string())
            .collect();
        keys.sort_unstable();
        Ok(keys)
    }

    /// The objects whose index `name` contains `value`, in no particular order
    /// (client-go `ByIndex`).
    ///
    /// # Errors
    /// [`StoreError::IndexNotFound`](super::StoreError::IndexNotFound) for an unknown index.
    pub fn by_index(&self, name: &str, value: &str) -> Result<Vec<Arc<K>>> {
        let state = self.state.read();
        let bucket = state.index.bucket(name, value)?;
        Ok(bucket.into_iter().flat_map(|b| b.values().cloned()).collect())
    }

    /// The values present in index `name`; empty for an unknown index
    /// (client-go `ListIndexFuncValues`).
    pub fn list_index_func_values(&self, name: &str) -> Vec<String> {
        self.state.read().index.values(name)
    }

    /// Adds indexers and indexes every stored object with them (client-go `AddIndexers`).
    /// If any name is already registered, nothing is added.
    ///
    /// # Errors
    /// [`StoreError::IndexerConflict`](super::StoreError::IndexerConflict) listing the
    /// names that already exist.
    pub fn add_indexers(&self, indexers: Indexers<K>) -> Result<()> {
        let mut guard = self.state.write();
        let state = &mut *guard;
        state.index.add_indexers(indexers, state.items.iter())
    }

    /// A copy of the registered indexers (the functions are shared, not cloned).
    pub fn get_indexers(&self) -> Indexers<K> {
        self.state.read().index.indexers().clone()
    }

    /// Number of distinct values held by index `name` (0 for an unknown index). Empty
    /// buckets are removed, so this shrinks when values disappear.
    pub fn index_value_count(&self, name: &str) -> usize {
        self.state.read().index.bucket_count(name)
    }

    /// Runs `f` under the shared lock with a consistent view of the store. Other readers
    /// run at the same time; writers wait. Keep `f` short and do not call back into this
    /// indexer's write methods from it (that would deadlock).
    pub fn read<R>(&self, f: impl FnOnce(&IndexerView<'_, K>) -> R) -> R {
        let state = self.state.read();
        f(&IndexerView { state: &state })
    }

    /// Runs `f` under the exclusive lock: readers see either none or all of its changes
    /// (used to apply a relist atomically).
    ///
    /// Do not call this indexer's other methods from `f` (deadlock), and do not call into a
    /// [`DeltaFifo`](crate::fifo::DeltaFifo) that uses this indexer as its known objects
    /// (the FIFO reads the indexer while holding its own lock). If `f` panics, the changes
    /// made before the panic stay (the lock does not poison).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kube::api::ObjectMeta;
    /// use kube_informers_runtime::store::Indexer;
    ///
    /// let cm = |name: &str| Arc::new(ConfigMap {
    ///     metadata: ObjectMeta { name: Some(name.into()), ..Default::default() },
    ///     ..Default::default()
    /// });
    /// let indexer = Indexer::<ConfigMap>::default();
    /// indexer.add(cm("old"))?;
    /// indexer.transaction(|txn| {
    ///     txn.delete_key("old");
    ///     txn.add(cm("new")).map(|_| ())
    /// })?;
    /// assert_eq!(indexer.list_keys(), vec!["new".to_string()]);
    /// # Ok::<(), kube_informers_runtime::store::StoreError>(())
    /// ```
    pub fn transaction<R>(&self, f: impl FnOnce(&mut IndexerTxn<'_, K>) -> R) -> R {
        let mut state = self.state.write();
        f(&mut IndexerTxn { state: &mut state })
    }
}
