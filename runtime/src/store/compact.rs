//! The compact storage of an [`Indexer`](super::Indexer): each object kept encoded (JSON
//! without `metadata.managedFields`, zstd-compressed with a dictionary trained per store),
//! decoded on read, with a small cache of decoded objects bounded by bytes (issue 18).
//!
//! What is kept per object: its key, its encoded bytes, and the values it is indexed
//! under (computed at insert, so that index buckets hold keys only and an update or a
//! delete removes the old entries without decoding the old object).

use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::sync::Arc;

use kube::Resource;
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::index::{ItemValues, SlotValues, StoreIndex};
use super::{Result, StoreError};

/// How a compact [`Indexer`](super::Indexer) keeps its objects; see
/// [`Indexer::compact`](super::Indexer::compact). Build it with struct update syntax
/// from [`CompactConfig::default`].
///
/// ```
/// use kube_informers_runtime::store::CompactConfig;
///
/// let config = CompactConfig { hot_cache_bytes: 64 << 20, ..CompactConfig::default() };
/// # let _ = config;
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactConfig {
    /// The budget of the cache of decoded objects, in estimated bytes (default 16 MiB).
    /// An object's size is estimated as [`DECODED_BYTES_PER_JSON_BYTE`] times the length
    /// of its JSON: a realistic Pod without managedFields (7.4 KB of JSON) counts 37 KB,
    /// its measured heap, so the default holds about 450 such Pods. `0` disables the cache:
    /// every read decodes.
    pub hot_cache_bytes: usize,
    /// Train a compression dictionary once the store holds this many objects (default
    /// 1,000), on the objects it holds then; `0` never trains one. Until then, and
    /// forever in a store that never grows that large, objects are compressed without a
    /// dictionary (about a third of their JSON instead of a few percent). Ignored without
    /// the `zstd` feature.
    pub dictionary_after: usize,
    /// The largest dictionary to train, in bytes (default 64 KiB; smaller when the
    /// samples are small). Ignored without the `zstd` feature.
    pub dictionary_bytes: usize,
    /// The zstd compression level (default 3). Ignored without the `zstd` feature.
    pub level: i32,
}

/// How many bytes of heap a decoded object is estimated to hold per byte of its JSON
/// (without managedFields), for the budget of the decoded cache: measured 5.0 for
/// realistic Pods (`benches/store_encodings.rs`).
pub const DECODED_BYTES_PER_JSON_BYTE: usize = 5;

impl Default for CompactConfig {
    fn default() -> Self {
        Self {
            hot_cache_bytes: 16 << 20,
            dictionary_after: 1_000,
            dictionary_bytes: 64 << 10,
            level: 3,
        }
    }
}

/// What a compact store holds, from [`Indexer::compact_stats`](super::Indexer::compact_stats).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CompactStats {
    /// Stored objects.
    pub objects: usize,
    /// The encoded bytes of all of them (the allocations that hold them add 16 bytes
    /// each, plus the allocator's own overhead).
    pub encoded_bytes: usize,
    /// The length of their JSON, all together: what they would take uncompressed.
    pub json_bytes: usize,
    /// The size of the trained dictionary; 0 until one is trained.
    pub dictionary_bytes: usize,
    /// Objects in the decoded cache.
    pub cached_objects: usize,
    /// Their estimated size (see [`CompactConfig::hot_cache_bytes`]).
    pub cached_bytes: usize,
}

/// Serializes an object as the compact store keeps it: JSON without managedFields.
type EncodeFn<K> = fn(&K, &mut Vec<u8>) -> serde_json::Result<()>;
/// Deserializes what [`EncodeFn`] wrote.
type DecodeFn<K> = fn(&[u8]) -> serde_json::Result<K>;

fn encode_json<K: Resource + Clone + Serialize>(
    obj: &K,
    out: &mut Vec<u8>,
) -> serde_json::Result<()> {
    if obj.meta().managed_fields.is_some() {
        // Rare in an informer that skips the field while decoding (the factory's compact
        // store does): a copy without it.
        let mut copy = obj.clone();
        copy.meta_mut().managed_fields = None;
        serde_json::to_writer(out, &copy)
    } else {
        serde_json::to_writer(out, obj)
    }
}

fn decode_json<K: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<K> {
    serde_json::from_slice(bytes)
}

/// Reading stored bytes back: decompression (with the store's dictionary, if trained)
/// and deserialization. Shared, behind an `Arc`, by readers that decode outside the lock:
/// training a dictionary installs a new codec and re-encodes every item, so bytes read
/// under the lock always go with the codec read with them.
pub(crate) struct Codec<K> {
    decode: DecodeFn<K>,
    #[cfg(feature = "zstd")]
    zstd: zstd_codec::Decoder,
}

impl<K> Codec<K> {
    /// Runs `f` on the plain JSON of `item`'s bytes.
    fn plain<R>(
        &self,
        bytes: &[u8],
        plain_len: u32,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<R, String> {
        #[cfg(feature = "zstd")]
        {
            self.zstd.decompress(bytes, plain_len as usize, f)
        }
        #[cfg(not(feature = "zstd"))]
        {
            let _ = plain_len;
            Ok(f(bytes))
        }
    }

    /// The object stored as `bytes`; an error names what failed, never the contents.
    pub(crate) fn decode(&self, bytes: &[u8], plain_len: u32) -> Result<K, String> {
        self.plain(bytes, plain_len, self.decode)?.map_err(|e| {
            format!("{:?} error at line {} column {}", e.classify(), e.line(), e.column())
        })
    }
}

/// What writes use: the serializer, and the compressor with the dictionary once trained.
/// Only used under the store's write lock (the `Mutex` around it is never contended; it
/// is there because a compression context is not `Sync`).
struct Encoder<K> {
    encode: EncodeFn<K>,
    json: Vec<u8>,
    #[cfg(feature = "zstd")]
    zstd: zstd_codec::Encoder,
}

impl<K> Encoder<K> {
    /// `obj` as stored: its bytes and the length of its JSON.
    fn encode(&mut self, obj: &K) -> Result<(Arc<[u8]>, u32), String> {
        self.json.clear();
        (self.encode)(obj, &mut self.json).map_err(|e| format!("{:?} error", e.classify()))?;
        let plain_len =
            u32::try_from(self.json.len()).map_err(|_| "object over 4 GiB".to_owned())?;
        #[cfg(feature = "zstd")]
        let bytes = self.zstd.compress(&self.json)?;
        #[cfg(not(feature = "zstd"))]
        let bytes = Arc::from(self.json.as_slice());
        // Keep the scratch buffer from holding on to one huge object's capacity.
        if self.json.capacity() > 1 << 20 {
            self.json = Vec::new();
        }
        Ok((bytes, plain_len))
    }
}

/// One stored object.
struct Item {
    bytes: Arc<[u8]>,
    /// Length of the object's JSON: sizes the decompression buffer and, times
    /// [`DECODED_BYTES_PER_JSON_BYTE`], its estimated size in the decoded cache.
    plain_len: u32,
    /// The values it is indexed under, per indexer slot.
    values: ItemValues,
}

impl Item {
    fn decoded_estimate(&self) -> usize {
        (self.plain_len as usize).saturating_mul(DECODED_BYTES_PER_JSON_BYTE)
    }
}

/// An object read under the lock, decoded later: from the decoded cache, or its bytes.
pub(crate) enum Part<K> {
    Ready(Arc<K>),
    Encoded(Arc<str>, Arc<[u8]>, u32),
}

/// Objects gathered under the lock, decoded once it is released.
pub(crate) struct Pending<K> {
    codec: Arc<Codec<K>>,
    parts: Vec<Part<K>>,
}

impl<K> Pending<K> {
    /// Decodes what is left and keeps the objects `keep` accepts. Objects that do not
    /// decode are logged (by key) and left out.
    pub(crate) fn resolve(self, keep: &dyn Fn(&K) -> bool) -> Vec<Arc<K>> {
        let mut out = Vec::with_capacity(self.parts.len());
        for part in self.parts {
            let obj = match part {
                Part::Ready(obj) => obj,
                Part::Encoded(key, bytes, plain_len) => {
                    match self.codec.decode(&bytes, plain_len) {
                        Ok(obj) => Arc::new(obj),
                        Err(error) => {
                            undecodable(&key, &error);
                            continue;
                        }
                    }
                }
            };
            if keep(&obj) {
                out.push(obj);
            }
        }
        out
    }
}

fn undecodable(key: &str, error: &str) {
    tracing::error!(key, error, "compact store: a stored object does not decode; it is skipped");
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
            cached_objects: hot.entries.len(),
            cached_bytes: hot.used,
        }
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &Arc<str>> {
        self.items.keys()
    }

    /// A point read: from the decoded cache, or decoded and then cached. Call it under
    /// the store's lock (read or write), so that no writer changes `key` between the
    /// decode and the caching.
    pub(crate) fn get(&self, key: &str) -> Option<Arc<K>> {
        let (key, item) = self.items.get_key_value(key)?;
        if let Some(obj) = self.hot.lock().get(key) {
            return Some(obj);
        }
        let obj = Arc::new(self.decode_item(key, item)?);
        self.hot.lock().put(key, Arc::clone(&obj), item.decoded_estimate());
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
    /// from the cache).
    pub(crate) fn upsert(
        &mut self,
        key: &str,
        obj: Arc<K>,
        want_old: bool,
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
        let item = Item { bytes, plain_len, values };
        if Self::cacheable(&obj) {
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
    /// object fails to encode, nothing changes.
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
        self.hot.get_mut().clear();
        for (key, obj, bytes, plain_len) in encoded {
            // A later duplicate replaces the earlier one, as in the typed store.
            let old = self.items.remove(&key);
            let values = self.index.update_stored(
                &key,
                old.as_ref().map(|o| &o.values),
                Some(&obj),
                Some(&()),
            );
            self.items.insert(key, Item { bytes, plain_len, values });
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

    /// Every object, with those not in the decoded cache left to decode after the lock is
    /// released.
    pub(crate) fn gather_all(&self) -> Pending<K> {
        let mut hot = self.hot.lock();
        let parts = self.items.iter().map(|(key, item)| Self::part(&mut hot, key, item)).collect();
        Pending { codec: Arc::clone(&self.codec), parts }
    }

    /// The objects under `keys`, as [`gather_all`](Self::gather_all) does.
    pub(crate) fn gather<'a>(&self, keys: impl Iterator<Item = &'a Arc<str>>) -> Pending<K> {
        let mut hot = self.hot.lock();
        let parts = keys
            .filter_map(|key| self.items.get_key_value(&**key))
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

    /// Trains a dictionary on the stored objects once there are enough of them, then
    /// re-encodes every object with it (decompressing and compressing, no serde).
    fn maybe_train(&mut self) {
        #[cfg(feature = "zstd")]
        {
            let Some(at) = self.train_at else { return };
            if self.items.len() < at {
                return;
            }
            let started = std::time::Instant::now();
            let codec = Arc::clone(&self.codec);
            let samples: Vec<Vec<u8>> = self
                .items
                .values()
                .take(self.config.dictionary_after.max(1))
                .filter_map(|item| codec.plain(&item.bytes, item.plain_len, <[u8]>::to_vec).ok())
                .collect();
            let total: usize = samples.iter().map(Vec::len).sum();
            // zstd wants samples of about 10-100 times the dictionary's size.
            let size = self.config.dictionary_bytes.min(total / 10);
            let trained = if size >= 1024 {
                zstd::dict::from_samples(&samples, size).map_err(|e| e.to_string())
            } else {
                Err(format!("{total} bytes of samples are too few"))
            };
            let dictionary = match trained {
                Ok(dictionary) => dictionary,
                Err(error) => {
                    // Try again once the store is four times larger.
                    self.train_at = Some(at.saturating_mul(4));
                    tracing::debug!(%error, objects = self.items.len(), "compact store: no dictionary trained");
                    return;
                }
            };
            let new_codec = Arc::new(Codec {
                decode: codec.decode,
                zstd: zstd_codec::Decoder::new(Some(&dictionary)),
            });
            let encoder = self.encoder.get_mut();
            encoder.zstd = zstd_codec::Encoder::new(self.config.level, Some(&dictionary));
            let (mut before, mut after) = (0usize, 0usize);
            for item in self.items.values_mut() {
                let bytes =
                    codec.plain(&item.bytes, item.plain_len, |plain| encoder.zstd.compress(plain));
                if let Ok(Ok(bytes)) = bytes {
                    before += item.bytes.len();
                    after += bytes.len();
                    item.bytes = bytes;
                }
            }
            self.codec = new_codec;
            self.train_at = None;
            self.dictionary_bytes = dictionary.len();
            tracing::debug!(
                objects = self.items.len(),
                dictionary_bytes = dictionary.len(),
                bytes_before = before,
                bytes_after = after,
                elapsed = ?started.elapsed(),
                "compact store: trained a dictionary and re-encoded every object"
            );
        }
    }
}

/// The zstd side: per-store dictionaries, a pool of decompression contexts (readers run
/// in parallel under the shared lock) and one compression context (writes are exclusive).
#[cfg(feature = "zstd")]
mod zstd_codec {
    use std::sync::Arc;

    use parking_lot::Mutex;
    use zstd::zstd_safe::{CCtx, CDict, DCtx, DDict};

    /// Decompression contexts kept for reuse; more may exist while readers run at once.
    const POOLED: usize = 4;

    pub(super) struct Decoder {
        dictionary: Option<DDict<'static>>,
        pool: Mutex<Vec<(DCtx<'static>, Vec<u8>)>>,
    }

    impl Decoder {
        pub(super) fn new(dictionary: Option<&[u8]>) -> Self {
            Self { dictionary: dictionary.map(DDict::create), pool: Mutex::new(Vec::new()) }
        }

        pub(super) fn decompress<R>(
            &self,
            bytes: &[u8],
            plain_len: usize,
            f: impl FnOnce(&[u8]) -> R,
        ) -> Result<R, String> {
            let (mut ctx, mut buffer) =
                self.pool.lock().pop().unwrap_or_else(|| (DCtx::create(), Vec::new()));
            buffer.clear();
            buffer.reserve(plain_len);
            let result = match &self.dictionary {
                Some(dictionary) => ctx.decompress_using_ddict(&mut buffer, bytes, dictionary),
                None => ctx.decompress(&mut buffer, bytes),
            };
            let out = match result {
                Ok(_) => Ok(f(&buffer)),
                Err(code) => Err(format!("zstd: {}", zstd::zstd_safe::get_error_name(code))),
            };
            if buffer.capacity() > 1 << 20 {
                buffer = Vec::new();
            }
            let mut pool = self.pool.lock();
            if pool.len() < POOLED {
                pool.push((ctx, buffer));
            }
            out
        }
    }

    pub(super) struct Encoder {
        ctx: CCtx<'static>,
        dictionary: Option<CDict<'static>>,
        level: i32,
        buffer: Vec<u8>,
    }

    impl Encoder {
        pub(super) fn new(level: i32, dictionary: Option<&[u8]>) -> Self {
            Self {
                ctx: CCtx::create(),
                dictionary: dictionary.map(|d| CDict::create(d, level)),
                level,
                buffer: Vec::new(),
            }
        }

        pub(super) fn compress(&mut self, plain: &[u8]) -> Result<Arc<[u8]>, String> {
            self.buffer.clear();
            self.buffer.reserve(zstd::zstd_safe::compress_bound(plain.len()));
            let result = match &self.dictionary {
                Some(dictionary) => {
                    self.ctx.compress_using_cdict(&mut self.buffer, plain, dictionary)
                }
                None => self.ctx.compress(&mut self.buffer, plain, self.level),
            };
            result.map_err(|code| format!("zstd: {}", zstd::zstd_safe::get_error_name(code)))?;
            let bytes = Arc::from(self.buffer.as_slice());
            if self.buffer.capacity() > 1 << 20 {
                self.buffer = Vec::new();
            }
            Ok(bytes)
        }
    }
}

/// Decoded objects of hot keys, bounded by their estimated bytes; evicts with CLOCK
/// (second chance): a key read since it was last passed over stays one more round.
struct HotCache<K> {
    budget: usize,
    used: usize,
    next: u64,
    entries: HashMap<Arc<str>, HotEntry<K>>,
    /// Keys in insertion order with the number of their entry; a number that no longer
    /// matches is a removed or replaced entry, skipped.
    clock: VecDeque<(Arc<str>, u64)>,
}

struct HotEntry<K> {
    obj: Arc<K>,
    bytes: usize,
    number: u64,
    referenced: bool,
}

impl<K> HotCache<K> {
    fn new(budget: usize) -> Self {
        Self { budget, used: 0, next: 0, entries: HashMap::new(), clock: VecDeque::new() }
    }

    /// The cached object, marked as read.
    fn get(&mut self, key: &str) -> Option<Arc<K>> {
        let entry = self.entries.get_mut(key)?;
        entry.referenced = true;
        Some(Arc::clone(&entry.obj))
    }

    /// The cached object, without marking it (bulk reads).
    fn peek(&self, key: &str) -> Option<Arc<K>> {
        self.entries.get(key).map(|entry| Arc::clone(&entry.obj))
    }

    fn remove(&mut self, key: &str) -> Option<Arc<K>> {
        let entry = self.entries.remove(key)?;
        self.used -= entry.bytes;
        Some(entry.obj)
    }

    fn clear(&mut self) {
        self.entries.clear();
        self.clock.clear();
        self.used = 0;
    }

    fn put(&mut self, key: &Arc<str>, obj: Arc<K>, bytes: usize) {
        self.remove(key);
        if bytes > self.budget {
            return;
        }
        let number = self.next;
        self.next += 1;
        self.entries.insert(Arc::clone(key), HotEntry { obj, bytes, number, referenced: false });
        self.clock.push_back((Arc::clone(key), number));
        self.used += bytes;
        while self.used > self.budget {
            let Some((key, number)) = self.clock.pop_front() else { break };
            let Some(entry) = self.entries.get_mut(&key).filter(|e| e.number == number) else {
                continue;
            };
            if entry.referenced {
                entry.referenced = false;
                self.clock.push_back((key, number));
            } else {
                self.remove(&key);
            }
        }
        // Removed and replaced entries leave stale clock slots; drop them now and then.
        if self.clock.len() > 2 * self.entries.len() + 64 {
            let entries = &self.entries;
            self.clock
                .retain(|(key, number)| entries.get(key).is_some_and(|e| e.number == *number));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hot_cache_stays_within_its_budget_and_gives_read_keys_a_second_chance() {
        let mut cache = HotCache::<u32>::new(100);
        let key = |i: u32| -> Arc<str> { Arc::from(format!("k{i}").as_str()) };
        for i in 0..5 {
            cache.put(&key(i), Arc::new(i), 20);
        }
        assert_eq!(cache.used, 100);
        // k0 is read, so the next insert passes it over and evicts k1.
        assert!(cache.get("k0").is_some());
        cache.put(&key(5), Arc::new(5), 20);
        assert!(cache.peek("k0").is_some());
        assert!(cache.peek("k1").is_none());
        assert_eq!(cache.used, 100);
        // Too large for the budget: not cached, and nothing else is evicted for it.
        cache.put(&key(9), Arc::new(9), 101);
        assert!(cache.peek("k9").is_none());
        assert_eq!(cache.entries.len(), 5);
        // Replacing a key does not count it twice.
        cache.put(&key(0), Arc::new(10), 20);
        assert_eq!(cache.used, 100);
        assert_eq!(cache.remove("k0").as_deref(), Some(&10));
        assert_eq!(cache.used, 80);
        // Stale clock slots are dropped, so the clock does not grow without bound.
        for _ in 0..1_000 {
            cache.put(&key(2), Arc::new(2), 1);
        }
        assert!(cache.clock.len() <= 2 * cache.entries.len() + 64);
    }

    #[test]
    fn a_zero_budget_caches_nothing() {
        let mut cache = HotCache::<u32>::new(0);
        cache.put(&Arc::from("k"), Arc::new(1), 1);
        assert!(cache.get("k").is_none());
        assert_eq!(cache.used, 0);
    }
}
