//! The compact storage of an [`Indexer`](super::Indexer): each object kept encoded (JSON
//! without `metadata.managedFields`, zstd-compressed with a dictionary trained per store),
//! decoded on read, with a small cache of decoded objects bounded by bytes (issue 18).
//!
//! What is kept per object: its key, its encoded bytes, the values it is indexed under
//! (computed at insert, so that index buckets hold keys only and an update or a delete
//! removes the old entries without decoding the old object), and its labels (so that a
//! label selector decodes only the objects it selects).

mod codec;
mod config;
mod hot;
mod labels;
mod train;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::Arc;

use kube::Resource;
use kube::core::Selector;
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;

pub(crate) use self::codec::Pending;
#[cfg(feature = "zstd")]
use self::codec::zstd_codec;
use self::codec::{Codec, Encoder, Part, decode_json, encode_json, undecodable};
pub use self::config::{CompactConfig, CompactStats, DECODED_BYTES_PER_JSON_BYTE};
use self::hot::HotCache;
use self::labels::{LabelFilter, StoredLabels};
use super::index::{ItemValues, SlotValues, StoreIndex};
use super::{Result, StoreError};

/// Where an object written to the store comes from, which decides whether a compact store's
/// decoded cache takes it (a typed store keeps every object decoded anyway).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A watch event, or a caller's own write: cached, as the next read is likely of it.
    Event,
    /// A relist's or a resync's object: cached only if its key already is.
    Listed,
}

/// One stored object.
struct Item {
    bytes: Arc<[u8]>,
    /// Length of the object's JSON: sizes the decompression buffer and, times
    /// [`DECODED_BYTES_PER_JSON_BYTE`], its estimated size in the decoded cache.
    plain_len: u32,
    /// The values it is indexed under, per indexer slot.
    values: ItemValues,
    /// Its labels, for label selectors (see [`LabelFilter`]).
    labels: StoredLabels,
}

impl Item {
    fn decoded_estimate(&self) -> usize {
        (self.plain_len as usize).saturating_mul(DECODED_BYTES_PER_JSON_BYTE)
    }
}

/// The compact storage: encoded items, indices over keys, the codec and the decoded cache.
pub(crate) struct CompactStore<K> {
    items: HashMap<Arc<str>, Item>,
    pub(crate) index: StoreIndex<K, ()>,
    codec: Arc<Codec<K>>,
    encoder: Mutex<Encoder<K>>,
    hot: Mutex<HotCache<K>>,
    config: CompactConfig,
    /// The item count at which to train a dictionary; `None` once trained, or never.
    train_at: Option<usize>,
    /// The trained dictionary's size (0: none yet).
    dictionary_bytes: usize,
}

impl<K> fmt::Debug for CompactStore<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompactStore")
            .field("len", &self.items.len())
            .field("config", &self.config)
            .field("dictionary", &self.train_at.is_none())
            .finish_non_exhaustive()
    }
}

impl<K: Resource + Clone + Serialize + DeserializeOwned> CompactStore<K> {
    pub(crate) fn new(indexers: super::Indexers<K>, config: CompactConfig) -> Self {
        let train_at = (cfg!(feature = "zstd") && config.dictionary_after > 0)
            .then_some(config.dictionary_after);
        Self {
            items: HashMap::new(),
            index: StoreIndex::new(indexers),
            codec: Arc::new(Codec {
                decode: decode_json::<K>,
                decoded: Arc::default(),
                #[cfg(feature = "zstd")]
                zstd: zstd_codec::Decoder::new(None),
            }),
            encoder: Mutex::new(Encoder {
                encode: encode_json::<K>,
                json: Vec::new(),
                #[cfg(feature = "zstd")]
                zstd: zstd_codec::Encoder::new(config.level, None),
            }),
            hot: Mutex::new(HotCache::new(config.hot_cache_bytes)),
            config,
            train_at,
            dictionary_bytes: 0,
        }
    }
}

impl<K: Resource> CompactStore<K> {
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn stats(&self) -> CompactStats {
        let hot = self.hot.lock();
        CompactStats {
            objects: self.items.len(),
            encoded_bytes: self.items.values().map(|item| item.bytes.len()).sum(),
            json_bytes: self.items.values().map(|item| item.plain_len as usize).sum(),
            dictionary_bytes: self.dictionary_bytes,
            cached_objects: hot.len(),
            cached_bytes: hot.used(),
            decoded: self.codec.decoded.load(std::sync::atomic::Ordering::Relaxed),
        }
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &Arc<str>> {
        self.items.keys()
    }

    /// A point read: from the decoded cache, or decoded and then cached if the key was
    /// read recently too ([`HotCache::admit`]). Call it under
    /// the store's lock (read or write), so that no writer changes `key` between the
    /// decode and the caching.
    pub(crate) fn get(&self, key: &str) -> Option<Arc<K>> {
        let (key, item) = self.items.get_key_value(key)?;
        if let Some(obj) = self.hot.lock().get(key) {
            return Some(obj);
        }
        let obj = Arc::new(self.decode_item(key, item)?);
        let mut hot = self.hot.lock();
        if hot.admit(key) {
            hot.put(key, Arc::clone(&obj), item.decoded_estimate());
        }
        Some(obj)
    }

    fn decode_item(&self, key: &str, item: &Item) -> Option<K> {
        self.codec
            .decode(&item.bytes, item.plain_len)
            .map_err(|error| undecodable(key, &error))
            .ok()
    }

    /// Whether the decoded cache may hold `obj` as given: only if it equals what decoding
    /// its stored bytes returns, i.e. has no managedFields.
    fn cacheable(obj: &K) -> bool {
        obj.meta().managed_fields.is_none()
    }

    /// Inserts or replaces `key`; returns the previous object if `want_old` (decoded, or
    /// from the cache). `origin` decides whether the decoded cache takes `obj` (see
    /// [`Origin`]): a list's objects passing through it one after the other would keep
    /// its whole budget of decoded objects alive during a sync, for keys mostly never read.
    pub(crate) fn upsert(
        &mut self,
        key: &str,
        obj: Arc<K>,
        want_old: bool,
        origin: Origin,
    ) -> Result<Option<Arc<K>>> {
        let (bytes, plain_len) = self
            .encoder
            .get_mut()
            .encode(&obj)
            .map_err(|message| StoreError::Encode { key: key.to_owned(), message })?;
        let key: Arc<str> = match self.items.get_key_value(key) {
            Some((existing, _)) => Arc::clone(existing),
            None => Arc::from(key),
        };
        let cached_old = self.hot.get_mut().remove(&key);
        let cache = origin == Origin::Event || cached_old.is_some();
        let old_item = self.items.remove(&key);
        let old = match (&old_item, cached_old) {
            (Some(_), Some(cached)) if want_old => Some(cached),
            (Some(item), None) if want_old => self.decode_item(&key, item).map(Arc::new),
            _ => None,
        };
        let values = self.index.update_stored(
            &key,
            old_item.as_ref().map(|item| &item.values),
            Some(&obj),
            Some(&()),
        );
        let labels = StoredLabels::of(obj.meta().labels.as_ref());
        let item = Item { bytes, plain_len, values, labels };
        if cache && Self::cacheable(&obj) {
            let estimate = item.decoded_estimate();
            self.hot.get_mut().put(&key, obj, estimate);
        }
        self.items.insert(key, item);
        self.maybe_train();
        Ok(old)
    }

    /// Removes `key`: `None` if absent, else the removed object if `want_old`.
    pub(crate) fn remove(&mut self, key: &str, want_old: bool) -> Option<Option<Arc<K>>> {
        let (key, item) = self.items.remove_entry(key)?;
        self.index.update_stored(&key, Some(&item.values), None, None);
        let cached = self.hot.get_mut().remove(&key);
        if !want_old {
            return Some(None);
        }
        Some(cached.or_else(|| self.decode_item(&key, &item).map(Arc::new)))
    }

    /// Swaps in `list` and rebuilds every index. Everything is encoded first: if one
    /// object fails to encode, nothing changes. The decoded cache keeps the keys it held
    /// (with their new objects) and takes no other, as for [`Origin::Listed`].
    pub(crate) fn replace(&mut self, list: Vec<(Arc<str>, Arc<K>)>) -> Result<()> {
        let encoder = self.encoder.get_mut();
        let mut encoded = Vec::with_capacity(list.len());
        for (key, obj) in list {
            let (bytes, plain_len) = encoder
                .encode(&obj)
                .map_err(|message| StoreError::Encode { key: key.to_string(), message })?;
            encoded.push((key, obj, bytes, plain_len));
        }
        self.items = HashMap::with_capacity(encoded.len());
        self.index.clear();
        let hot = self.hot.get_mut();
        let was_cached: HashSet<Arc<str>> = hot.keys().cloned().collect();
        hot.clear();
        for (key, obj, bytes, plain_len) in encoded {
            // A later duplicate replaces the earlier one, as in the typed store.
            let old = self.items.remove(&key);
            let values = self.index.update_stored(
                &key,
                old.as_ref().map(|o| &o.values),
                Some(&obj),
                Some(&()),
            );
            let labels = StoredLabels::of(obj.meta().labels.as_ref());
            let item = Item { bytes, plain_len, values, labels };
            if was_cached.contains(&key) && Self::cacheable(&obj) {
                self.hot.get_mut().put(&key, obj, item.decoded_estimate());
            }
            self.items.insert(key, item);
        }
        self.maybe_train();
        Ok(())
    }

    /// Registers indexers and indexes every stored object with them (decoding each once).
    pub(crate) fn add_indexers(&mut self, new: super::Indexers<K>) -> Result<()> {
        let codec = Arc::clone(&self.codec);
        let hot = self.hot.get_mut();
        let decoded = self.items.iter().filter_map(|(key, item)| {
            let obj = match hot.peek(key) {
                Some(obj) => obj,
                None => match codec.decode(&item.bytes, item.plain_len) {
                    Ok(obj) => Arc::new(obj),
                    Err(error) => {
                        undecodable(key, &error);
                        return None;
                    }
                },
            };
            Some((Arc::clone(key), obj, ()))
        });
        let mut added: Vec<(Arc<str>, Vec<SlotValues>)> = Vec::new();
        self.index
            .add_indexers(new, decoded, |key, values| added.push((Arc::clone(key), values)))?;
        for (key, values) in added {
            if let Some(item) = self.items.get_mut(&key) {
                let mut all = std::mem::take(&mut item.values).into_vec();
                all.extend(values);
                item.values = all.into_boxed_slice();
            }
        }
        Ok(())
    }

    /// Every object whose kept labels the selector `labels` selects, with those not in the
    /// decoded cache left to decode after the lock is released.
    pub(crate) fn gather_all(&self, labels: Option<&Selector>) -> Pending<K> {
        self.gather_items(self.items.iter(), labels)
    }

    /// The objects under `keys`, as [`gather_all`](Self::gather_all) does.
    pub(crate) fn gather<'a>(
        &self,
        keys: impl Iterator<Item = &'a Arc<str>>,
        labels: Option<&Selector>,
    ) -> Pending<K> {
        self.gather_items(keys.filter_map(|key| self.items.get_key_value(&**key)), labels)
    }

    fn gather_items<'a>(
        &self,
        items: impl Iterator<Item = (&'a Arc<str>, &'a Item)>,
        labels: Option<&Selector>,
    ) -> Pending<K> {
        let labels = labels.and_then(LabelFilter::new);
        let mut hot = self.hot.lock();
        let parts = items
            .filter(|(_, item)| labels.as_ref().is_none_or(|filter| filter.admits(&item.labels)))
            .map(|(key, item)| Self::part(&mut hot, key, item))
            .collect();
        Pending { codec: Arc::clone(&self.codec), parts }
    }

    fn part(hot: &mut HotCache<K>, key: &Arc<str>, item: &Item) -> Part<K> {
        // Bulk reads use the cache but do not fill it: one list() of everything would
        // otherwise evict every hot key for objects read once.
        match hot.peek(key) {
            Some(obj) => Part::Ready(obj),
            None => Part::Encoded(Arc::clone(key), Arc::clone(&item.bytes), item.plain_len),
        }
    }

    /// Every `(key, object)`, decoded one by one as the iterator advances (under the lock,
    /// for [`IndexerView`](super::IndexerView)).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, Arc<K>)> + '_ {
        self.items.iter().filter_map(|(key, item)| {
            let cached = self.hot.lock().peek(key);
            let obj = match cached {
                Some(obj) => obj,
                None => Arc::new(self.decode_item(key, item)?),
            };
            Some((&**key, obj))
        })
    }

    /// The objects under `keys`, decoded one by one (under the lock).
    pub(crate) fn objects<'a>(
        &'a self,
        keys: impl Iterator<Item = &'a Arc<str>> + 'a,
    ) -> impl Iterator<Item = Arc<K>> + 'a {
        keys.filter_map(|key| {
            let item = self.items.get(&**key)?;
            let cached = self.hot.lock().peek(key);
            match cached {
                Some(obj) => Some(obj),
                None => self.decode_item(key, item).map(Arc::new),
            }
        })
    }
}
