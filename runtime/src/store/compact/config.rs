//! What a compact store is configured with, and what it reports.

/// How a compact [`Indexer`](crate::store::Indexer) keeps its objects; see
/// [`Indexer::compact`](crate::store::Indexer::compact). Build it with struct update syntax
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

/// What a compact store holds, from [`Indexer::compact_stats`](crate::store::Indexer::compact_stats).
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
    /// Objects decoded from their stored bytes since the store was created: the reads the
    /// decoded cache did not serve. A label selector only decodes the objects it selects.
    pub decoded: u64,
}
