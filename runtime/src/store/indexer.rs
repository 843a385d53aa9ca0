//! [`Indexer`]: the thread-safe store with named indices.

use std::fmt;
use std::sync::Arc;

use kube::Resource;
use parking_lot::RwLock;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::compact::{CompactConfig, CompactStats, CompactStore, Origin};
use super::index::Indexers;
use super::state::{State, Storage};
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
/// A store made by [`Indexer::new`] never copies objects: what goes in is the `Arc` that
/// comes out. One made by [`Indexer::compact`] keeps them encoded instead, for a fraction
/// of the memory, and decodes on read (see there for what that changes).
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

impl<K: Resource> fmt::Debug for Indexer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state.read();
        f.debug_struct("Indexer")
            .field("len", &state.len())
            .field("compact", &state.is_compact())
            .field("indexers", &state.indexers().keys().collect::<Vec<_>>())
            .finish()
    }
}

impl<K: Resource> Default for Indexer<K> {
    fn default() -> Self {
        Self::new(Indexers::new())
    }
}

impl<K> Indexer<K>
where
    K: Resource + Clone + Serialize + DeserializeOwned,
{
    /// An empty compact store with the given indexers: every object is kept encoded (its
    /// JSON without `metadata.managedFields`, compressed with zstd and, once the store holds
    /// [`CompactConfig::dictionary_after`] objects, a dictionary trained on them) and
    /// decoded on read, with a cache of decoded objects bounded by
    /// [`CompactConfig::hot_cache_bytes`] (issue 18).
    ///
    /// Every method keeps its meaning, with these differences:
    ///
    /// - **managedFields are dropped**: what comes out is what went in with
    ///   `metadata.managedFields` set to `None` (what `strip_managed_fields()` does);
    ///   everything else round-trips exactly.
    /// - **Objects are copies**: a read returns an `Arc` decoded from the stored bytes,
    ///   or the one the decoded cache holds (the last object inserted or read under that
    ///   key, if it is still cached), not necessarily the `Arc` that was inserted. Compare
    ///   objects by value, not with `Arc::ptr_eq`.
    /// - **What the cache takes**: objects inserted with [`add`](Self::add),
    ///   [`update`](Self::update) or a transaction (an informer's watch events), and keys
    ///   read twice. [`replace`](Self::replace) and an informer's relists and resyncs only
    ///   refresh the keys it holds already: a list passing through the cache would keep its
    ///   whole budget of decoded objects alive during every sync, for keys mostly never read
    ///   (a 10,000-Pod sync's peak fell from 79 to 55 MB without it; tests/BENCH.md).
    /// - **Reads cost a decode** on a cache miss (about 20 µs for a realistic Pod):
    ///   [`get_by_key`](Self::get_by_key) and the other point reads fill the cache with a
    ///   key on its second read in a while (its first only decodes, so a pass that reads
    ///   many keys once each does not evict the hot ones);
    ///   [`list`](Self::list), [`by_index`](Self::by_index) and [`index`](Self::index) use
    ///   it but do not fill it (one scan would evict every hot key), and decode after
    ///   releasing the lock, so writers are not held up by a long list.
    /// - **Index values are computed once**, when an object is inserted, and kept with
    ///   it; buckets hold keys. [`add_indexers`](Self::add_indexers) decodes every object
    ///   once.
    /// - **Labels are kept too**, so a [`Lister`](crate::lister::Lister)'s label selector
    ///   is applied before decoding: `list(selector)` decodes only the objects it returns.
    ///   [`CompactStats::decoded`] counts the decodes.
    /// - Writes encode (about 15 µs for a Pod); [`add`](Self::add) and
    ///   [`update`](Self::update) do not decode the object they replace, the
    ///   [`transaction`](Self::transaction) methods that return it do. An object the
    ///   `Serialize` impl fails on is refused with [`StoreError::Encode`](super::StoreError::Encode).
    ///
    /// `K` must round-trip through serde_json, as every k8s-openapi type and every
    /// `#[derive(CustomResource)]` type does; an object that does not decode back is
    /// logged (by key, at error level) and read as absent.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use k8s_openapi::api::core::v1::ConfigMap;
    /// use kube::api::ObjectMeta;
    /// use kube_informers_runtime::store::{namespace_indexers, CompactConfig, Indexer, NAMESPACE_INDEX};
    ///
    /// let indexer = Indexer::compact(namespace_indexers::<ConfigMap>(), CompactConfig::default());
    /// let cm = Arc::new(ConfigMap {
    ///     metadata: ObjectMeta { name: Some("cfg".into()), namespace: Some("prod".into()), ..Default::default() },
    ///     data: Some([("k".to_string(), "v".to_string())].into()),
    ///     ..Default::default()
    /// });
    /// indexer.add(cm.clone())?;
    /// assert_eq!(indexer.get_by_key("prod/cfg").as_deref(), Some(&*cm));
    /// assert_eq!(indexer.by_index(NAMESPACE_INDEX, "prod")?.len(), 1);
    /// assert!(indexer.is_compact());
    /// # Ok::<(), kube_informers_runtime::store::StoreError>(())
    /// ```
    pub fn compact(indexers: Indexers<K>, config: CompactConfig) -> Self {
        let storage = Storage::Compact(Box::new(CompactStore::new(indexers, config)));
        Self { state: Arc::new(RwLock::new(State::new(storage))) }
    }
}

impl<K: Resource> Indexer<K> {
    /// An empty store with the given indexers.
    pub fn new(indexers: Indexers<K>) -> Self {
        Self { state: Arc::new(RwLock::new(State::typed(indexers))) }
    }

    /// Whether this store keeps its objects encoded (made by [`compact`](Self::compact)).
    pub fn is_compact(&self) -> bool {
        self.state.read().is_compact()
    }

    /// What a compact store holds (sizes, dictionary, decoded cache); `None` for a typed
    /// store.
    pub fn compact_stats(&self) -> Option<CompactStats> {
        match &self.state.read().storage {
            Storage::Typed(_) => None,
            Storage::Compact(compact) => Some(compact.stats()),
        }
    }

    /// Inserts or replaces the object.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name;
    /// [`StoreError::Encode`](super::StoreError::Encode) when a compact store cannot
    /// encode it.
    pub fn add(&self, obj: Arc<K>) -> Result<()> {
        let key = meta_namespace_key_func(obj.as_ref())?;
        self.state.write().upsert(&key, obj, false, Origin::Event)?;
        Ok(())
    }

    /// Same as [`add`](Self::add) (client-go's `Add` calls `Update`).
    ///
    /// # Errors
    /// As [`add`](Self::add).
    pub fn update(&self, obj: Arc<K>) -> Result<()> {
        self.add(obj)
    }

    /// Removes the object with the same key as `obj`; absent keys are ignored.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when the object has no name.
    pub fn delete(&self, obj: &K) -> Result<()> {
        let key = meta_namespace_key_func(obj)?;
        self.state.write().remove(&key, false);
        Ok(())
    }

    /// Removes the object stored under `key`, returning it. Use with
    /// [`deletion_handling_meta_namespace_key_func`](super::deletion_handling_meta_namespace_key_func)
    /// to delete by tombstone.
    pub fn delete_key(&self, key: &str) -> Option<Arc<K>> {
        self.state.write().remove(key, true).flatten()
    }

    /// Replaces the whole content with `list` and rebuilds the indices
    /// (client-go `Replace`). Keys are computed (and, in a compact store, objects encoded)
    /// first: if one object has no name, nothing changes. When `list` holds one key twice,
    /// the later object wins.
    ///
    /// # Errors
    /// [`StoreError::Key`](super::StoreError::Key) when an object has no name;
    /// [`StoreError::Encode`](super::StoreError::Encode) when a compact store cannot
    /// encode one.
    pub fn replace(&self, list: Vec<Arc<K>>, resource_version: &str) -> Result<()> {
        let mut keyed = Vec::with_capacity(list.len());
        for obj in list {
            let key: Arc<str> = meta_namespace_key_func(obj.as_ref())?.into();
            keyed.push((key, obj));
        }
        self.state.write().replace(keyed, resource_version)
    }

    /// The object with the same key as `obj`; `None` also when `obj` has no name (such an
    /// object cannot be stored).
    pub fn get(&self, obj: &K) -> Option<Arc<K>> {
        let key = meta_namespace_key_func(obj).ok()?;
        self.get_by_key(&key)
    }

    /// The object stored under `key` (`namespace/name` or `name`).
    pub fn get_by_key(&self, key: &str) -> Option<Arc<K>> {
        self.state.read().get(key)
    }

    /// Every stored object, in no particular order.
    pub fn list(&self) -> Vec<Arc<K>> {
        self.select_all(None, &|_| true)
    }

    /// Every stored object `keep` accepts. A compact store decodes after releasing the
    /// lock (and applies `keep` then), only the objects whose labels the selector `labels`
    /// selects (a check `keep` must include: the typed store leaves it to `keep`).
    pub(crate) fn select_all(
        &self,
        labels: Option<&kube::core::Selector>,
        keep: &dyn Fn(&K) -> bool,
    ) -> Vec<Arc<K>> {
        let gathered = self.state.read().gather_all(labels, keep);
        gathered.resolve(keep)
    }

    /// The objects of index `name` under `value` that `keep` accepts, as
    /// [`select_all`](Self::select_all).
    pub(crate) fn select_by_index(
        &self,
        name: &str,
        value: &str,
        labels: Option<&kube::core::Selector>,
        keep: &dyn Fn(&K) -> bool,
    ) -> Result<Vec<Arc<K>>> {
        let gathered = self.state.read().gather_bucket(name, value, labels, keep)?;
        Ok(gathered.resolve(keep))
    }

    /// Every stored key, in no particular order.
    pub fn list_keys(&self) -> Vec<String> {
        self.state.read().keys()
    }

    /// Number of stored objects.
    pub fn len(&self) -> usize {
        self.state.read().len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.state.read().len() == 0
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
        let gathered = {
            let state = self.state.read();
            let values = state.func(name)?(obj);
            let keys = state.keys_sharing(name, &values)?;
            state.gather_keys(keys)
        };
        Ok(gathered.resolve(&|_| true))
    }

    /// The keys whose index `name` contains `value`, sorted (client-go `IndexKeys`).
    ///
    /// # Errors
    /// [`StoreError::IndexNotFound`](super::StoreError::IndexNotFound) for an unknown index.
    pub fn index_keys(&self, name: &str, value: &str) -> Result<Vec<String>> {
        let state = self.state.read();
        let mut keys: Vec<String> =
            state.bucket_keys(name, value)?.into_iter().map(|key| key.to_string()).collect();
        keys.sort_unstable();
        Ok(keys)
    }

    /// The objects whose index `name` contains `value`, in no particular order
    /// (client-go `ByIndex`).
    ///
    /// # Errors
    /// [`StoreError::IndexNotFound`](super::StoreError::IndexNotFound) for an unknown index.
    pub fn by_index(&self, name: &str, value: &str) -> Result<Vec<Arc<K>>> {
        self.select_by_index(name, value, None, &|_| true)
    }

    /// The values present in index `name`; empty for an unknown index
    /// (client-go `ListIndexFuncValues`).
    pub fn list_index_func_values(&self, name: &str) -> Vec<String> {
        self.state.read().index_values(name)
    }

    /// Adds indexers and indexes every stored object with them (client-go `AddIndexers`).
    /// If any name is already registered, nothing is added.
    ///
    /// # Errors
    /// [`StoreError::IndexerConflict`](super::StoreError::IndexerConflict) listing the
    /// names that already exist.
    pub fn add_indexers(&self, indexers: Indexers<K>) -> Result<()> {
        self.state.write().add_indexers(indexers)
    }

    /// A copy of the registered indexers (the functions are shared, not cloned).
    pub fn get_indexers(&self) -> Indexers<K> {
        self.state.read().indexers().clone()
    }

    /// Number of distinct values held by index `name` (0 for an unknown index). Empty
    /// buckets are removed, so this shrinks when values disappear.
    pub fn index_value_count(&self, name: &str) -> usize {
        self.state.read().bucket_count(name)
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
