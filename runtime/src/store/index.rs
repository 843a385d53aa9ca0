//! Index functions and the index bookkeeping behind [`Indexer`](super::Indexer).

use std::collections::HashMap;
use std::sync::Arc;

use kube::Resource;

use super::{Result, StoreError};

/// Computes the values an object is indexed under (client-go `IndexFunc`). An object may
/// have zero, one or many values.
pub type IndexFunc<K> = Arc<dyn Fn(&K) -> Vec<String> + Send + Sync>;

/// Named index functions (client-go `Indexers`). A plain map, so the usual ways of building
/// one work; [`index_func`] wraps a closure and [`namespace_indexers`] builds the common
/// namespace-only set.
pub type Indexers<K> = HashMap<String, IndexFunc<K>>;

/// The name of the namespace index (client-go `NamespaceIndex`).
pub const NAMESPACE_INDEX: &str = "namespace";

/// Indexes an object by its namespace (client-go `MetaNamespaceIndexFunc`); a
/// cluster-scoped object is indexed under `""`, as in client-go.
pub fn meta_namespace_index_func<K: Resource>(obj: &K) -> Vec<String> {
    vec![obj.meta().namespace.clone().unwrap_or_default()]
}

/// Wraps a closure as an [`IndexFunc`].
///
/// ```
/// use k8s_openapi::api::core::v1::Pod;
/// use kube_informers_runtime::store::{index_func, Indexers};
///
/// let mut indexers = Indexers::<Pod>::new();
/// indexers.insert(
///     "node".into(),
///     index_func(|p: &Pod| p.spec.as_ref().and_then(|s| s.node_name.clone()).into_iter().collect()),
/// );
/// ```
pub fn index_func<K>(f: impl Fn(&K) -> Vec<String> + Send + Sync + 'static) -> IndexFunc<K> {
    Arc::new(f)
}

/// The indexers every factory informer starts with: [`NAMESPACE_INDEX`] by
/// [`meta_namespace_index_func`].
pub fn namespace_indexers<K: Resource + 'static>() -> Indexers<K> {
    let mut indexers = Indexers::new();
    indexers.insert(NAMESPACE_INDEX.to_owned(), index_func(meta_namespace_index_func::<K>));
    indexers
}

/// The objects indexed under one value, by store key. Keys are shared with the item map;
/// holding the object too saves `by_index` a second lookup per hit.
pub(crate) type Bucket<K> = HashMap<Arc<str>, Arc<K>>;

/// Index value -> bucket, for one index.
type Index<K> = HashMap<String, Bucket<K>>;

/// The indexers and the indices they maintain (client-go `storeIndex`).
pub(crate) struct StoreIndex<K> {
    indexers: Indexers<K>,
    indices: HashMap<String, Index<K>>,
}

impl<K> StoreIndex<K> {
    pub(crate) fn new(indexers: Indexers<K>) -> Self {
        let indices = indexers.keys().map(|name| (name.clone(), Index::new())).collect();
        Self { indexers, indices }
    }

    pub(crate) fn indexers(&self) -> &Indexers<K> {
        &self.indexers
    }

    pub(crate) fn has_index(&self, name: &str) -> bool {
        self.indexers.contains_key(name)
    }

    /// Moves `key` from the values of `old` to those of `new`, in every index
    /// (client-go `updateIndices`). `None` means absent.
    pub(crate) fn update(&mut self, key: &Arc<str>, old: Option<&Arc<K>>, new: Option<&Arc<K>>) {
        for (name, func) in &self.indexers {
            let index = self.indices.entry(name.clone()).or_default();
            update_single(index, func, key, old, new);
        }
    }

    /// Forgets every index entry (before a replace re-indexes everything).
    pub(crate) fn clear(&mut self) {
        for index in self.indices.values_mut() {
            index.clear();
        }
    }

    /// Registers new indexers and indexes `items` with them; a name that exists already
    /// rejects the whole call (client-go `AddIndexers`).
    pub(crate) fn add_indexers<'a>(
        &mut self,
        new: Indexers<K>,
        items: impl Iterator<Item = (&'a Arc<str>, &'a Arc<K>)>,
    ) -> Result<()>
    where
        K: 'a,
    {
        let mut conflicts: Vec<String> =
            new.keys().filter(|name| self.indexers.contains_key(*name)).cloned().collect();
        if !conflicts.is_empty() {
            conflicts.sort();
            return Err(StoreError::IndexerConflict(conflicts));
        }
        let mut fresh: Vec<(String, IndexFunc<K>, Index<K>)> =
            new.into_iter().map(|(name, func)| (name, func, Index::new())).collect();
        for (key, obj) in items {
            for (_, func, index) in &mut fresh {
                update_single(index, func, key, None, Some(obj));
            }
        }
        for (name, func, index) in fresh {
            self.indices.insert(name.clone(), index);
            self.indexers.insert(name, func);
        }
        Ok(())
    }

    /// The keys under `value` in index `name`.
    pub(crate) fn bucket(&self, name: &str, value: &str) -> Result<Option<&Bucket<K>>> {
        if !self.indexers.contains_key(name) {
            return Err(StoreError::IndexNotFound(name.to_owned()));
        }
        Ok(self.indices.get(name).and_then(|index| index.get(value)))
    }

    /// The index function registered as `name`.
    pub(crate) fn func(&self, name: &str) -> Result<&IndexFunc<K>> {
        self.indexers.get(name).ok_or_else(|| StoreError::IndexNotFound(name.to_owned()))
    }

    /// The values present in index `name` (empty for an unknown name, as in client-go).
    pub(crate) fn values(&self, name: &str) -> Vec<String> {
        self.indices.get(name).map(|index| index.keys().cloned().collect()).unwrap_or_default()
    }

    /// Number of buckets in index `name` (for leak tests through the public API).
    pub(crate) fn bucket_count(&self, name: &str) -> usize {
        self.indices.get(name).map_or(0, HashMap::len)
    }
}

fn update_single<K>(
    index: &mut Index<K>,
    func: &IndexFunc<K>,
    key: &Arc<str>,
    old: Option<&Arc<K>>,
    new: Option<&Arc<K>>,
) {
    let old_values = old.map(|o| func(o)).unwrap_or_default();
    let new_values = new.map(|n| func(n)).unwrap_or_default();
    // The common case: one value that did not change (a namespace never does); only the
    // object held by the bucket changes.
    if let ([old_value], [new_value], Some(obj)) =
        (old_values.as_slice(), new_values.as_slice(), new)
        && old_value == new_value
        && let Some(slot) = index.get_mut(new_value.as_str()).and_then(|b| b.get_mut(key))
    {
        *slot = Arc::clone(obj);
        return;
    }
    for value in &old_values {
        if new_values.contains(value) {
            continue;
        }
        if let Some(bucket) = index.get_mut(value.as_str()) {
            bucket.remove(key);
            // Empty buckets are dropped, so values that vanish do not leak.
            if bucket.is_empty() {
                index.remove(value.as_str());
            }
        }
    }
    if let Some(obj) = new {
        for value in new_values {
            index.entry(value).or_default().insert(Arc::clone(key), Arc::clone(obj));
        }
    }
}
