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

/// The keys indexed under one value, each with what the store keeps beside it: the object
/// itself in the typed store (saves `by_index` a second lookup per hit), nothing in the
/// compact store (its objects are decoded on read, so a bucket holds keys only). Keys are
/// shared with the item map.
pub(crate) type Bucket<V> = HashMap<Arc<str>, V>;

/// Index value -> bucket, for one index. Values are `Arc<str>` so that the compact store's
/// items can keep the values they are indexed under without a copy of each string.
type Index<V> = HashMap<Arc<str>, Bucket<V>>;

/// The index values of one item, one slot per indexer in registration order (what the
/// compact store keeps per item, so that an update or a delete removes the old entries
/// without decoding the old object).
pub(crate) type ItemValues = Box<[SlotValues]>;

/// The values of one item in one index.
pub(crate) type SlotValues = Box<[Arc<str>]>;

/// The indexers and the indices they maintain (client-go `storeIndex`); `V` is what a
/// bucket holds per key (see [`Bucket`]).
pub(crate) struct StoreIndex<K, V> {
    indexers: Indexers<K>,
    /// Indexer names in registration order: slot `i` of an [`ItemValues`] is `names[i]`.
    names: Vec<String>,
    indices: HashMap<String, Index<V>>,
}

impl<K, V: Clone> StoreIndex<K, V> {
    pub(crate) fn new(indexers: Indexers<K>) -> Self {
        let mut names: Vec<String> = indexers.keys().cloned().collect();
        names.sort();
        let indices = names.iter().map(|name| (name.clone(), Index::new())).collect();
        Self { indexers, names, indices }
    }

    pub(crate) fn indexers(&self) -> &Indexers<K> {
        &self.indexers
    }

    pub(crate) fn has_index(&self, name: &str) -> bool {
        self.indexers.contains_key(name)
    }

    /// Moves `key` from the values of `old` to those of `new`, in every index
    /// (client-go `updateIndices`), computing both sets of values. `None` means absent;
    /// `payload` is what the buckets hold for `key` (`None` with `new`: nothing).
    pub(crate) fn update(
        &mut self,
        key: &Arc<str>,
        old: Option<&K>,
        new: Option<&K>,
        payload: Option<&V>,
    ) {
        for (name, func) in &self.indexers {
            let index = self.indices.entry(name.clone()).or_default();
            let old_values = old.map(|o| func(o)).unwrap_or_default();
            let new_values = new.map(|n| func(n)).unwrap_or_default();
            update_single(index, key, &old_values, &new_values, payload);
        }
    }

    /// Like [`update`](Self::update), with the old values given (as stored with the item)
    /// instead of computed from an old object; returns the new values to store.
    pub(crate) fn update_stored(
        &mut self,
        key: &Arc<str>,
        old: Option<&ItemValues>,
        new: Option<&K>,
        payload: Option<&V>,
    ) -> ItemValues {
        let mut stored = Vec::with_capacity(self.names.len());
        for (slot, name) in self.names.iter().enumerate() {
            let func = &self.indexers[name];
            let index = self.indices.entry(name.clone()).or_default();
            let old_values: &[Arc<str>] = old.and_then(|o| o.get(slot)).map_or(&[], |v| v);
            let new_values = new.map(|n| func(n)).unwrap_or_default();
            update_single(index, key, old_values, &new_values, payload);
            stored.push(intern(index, &new_values));
        }
        stored.into_boxed_slice()
    }

    /// Forgets every index entry (before a replace re-indexes everything).
    pub(crate) fn clear(&mut self) {
        for index in self.indices.values_mut() {
            index.clear();
        }
    }

    /// Rejects `new` if any of its names is registered already (client-go `AddIndexers`).
    fn check_conflicts(&self, new: &Indexers<K>) -> Result<()> {
        let mut conflicts: Vec<String> =
            new.keys().filter(|name| self.indexers.contains_key(*name)).cloned().collect();
        if !conflicts.is_empty() {
            conflicts.sort();
            return Err(StoreError::IndexerConflict(conflicts));
        }
        Ok(())
    }

    /// Registers new indexers and indexes `items` (key, object, bucket payload) with them;
    /// a name that exists already rejects the whole call (client-go `AddIndexers`).
    /// `added` receives, per item, the values of the new slots (for the compact store).
    pub(crate) fn add_indexers<O: std::ops::Deref<Target = K>>(
        &mut self,
        new: Indexers<K>,
        items: impl Iterator<Item = (Arc<str>, O, V)>,
        mut added: impl FnMut(&Arc<str>, Vec<SlotValues>),
    ) -> Result<()> {
        self.check_conflicts(&new)?;
        let mut fresh: Vec<(String, IndexFunc<K>, Index<V>)> =
            new.into_iter().map(|(name, func)| (name, func, Index::new())).collect();
        fresh.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, obj, payload) in items {
            let mut values = Vec::with_capacity(fresh.len());
            for (_, func, index) in &mut fresh {
                let new_values = func(&obj);
                update_single::<V, String, String>(index, &key, &[], &new_values, Some(&payload));
                values.push(intern(index, &new_values));
            }
            added(&key, values);
        }
        for (name, func, index) in fresh {
            self.indices.insert(name.clone(), index);
            self.indexers.insert(name.clone(), func);
            self.names.push(name);
        }
        Ok(())
    }

    /// The keys under `value` in index `name`.
    pub(crate) fn bucket(&self, name: &str, value: &str) -> Result<Option<&Bucket<V>>> {
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
        self.indices
            .get(name)
            .map(|index| index.keys().map(|value| value.to_string()).collect())
            .unwrap_or_default()
    }

    /// Number of buckets in index `name` (for leak tests through the public API).
    pub(crate) fn bucket_count(&self, name: &str) -> usize {
        self.indices.get(name).map_or(0, HashMap::len)
    }
}

/// The `Arc`s the index holds for `values` (every one is a bucket key after an update).
fn intern<V>(index: &Index<V>, values: &[String]) -> SlotValues {
    values
        .iter()
        .map(|value| match index.get_key_value(value.as_str()) {
            Some((shared, _)) => Arc::clone(shared),
            None => Arc::from(value.as_str()),
        })
        .collect()
}

fn update_single<V: Clone, A: AsRef<str>, B: AsRef<str>>(
    index: &mut Index<V>,
    key: &Arc<str>,
    old_values: &[A],
    new_values: &[B],
    payload: Option<&V>,
) {
    // The common case: one value that did not change (a namespace never does); only what
    // the bucket holds for the key changes.
    if let ([old_value], [new_value], Some(payload)) = (old_values, new_values, payload)
        && old_value.as_ref() == new_value.as_ref()
        && let Some(slot) = index.get_mut(new_value.as_ref()).and_then(|b| b.get_mut(key))
    {
        *slot = payload.clone();
        return;
    }
    for value in old_values {
        let value = value.as_ref();
        if new_values.iter().any(|v| v.as_ref() == value) {
            continue;
        }
        if let Some(bucket) = index.get_mut(value) {
            bucket.remove(key);
            // Empty buckets are dropped, so values that vanish do not leak.
            if bucket.is_empty() {
                index.remove(value);
            }
        }
    }
    if let Some(payload) = payload {
        for value in new_values {
            let value = value.as_ref();
            if !index.contains_key(value) {
                index.insert(Arc::from(value), Bucket::new());
            }
            if let Some(bucket) = index.get_mut(value) {
                bucket.insert(Arc::clone(key), payload.clone());
            }
        }
    }
}
