//! Encoding and decoding a compact store's objects: JSON without managedFields, compressed
//! with zstd (a dictionary once trained) when the `zstd` feature is on.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use kube::Resource;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Serializes an object as the compact store keeps it: JSON without managedFields.
pub(crate) type EncodeFn<K> = fn(&K, &mut Vec<u8>) -> serde_json::Result<()>;
/// Deserializes what [`EncodeFn`] wrote.
pub(crate) type DecodeFn<K> = fn(&[u8]) -> serde_json::Result<K>;

pub(crate) fn encode_json<K: Resource + Clone + Serialize>(
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

pub(crate) fn decode_json<K: DeserializeOwned>(bytes: &[u8]) -> serde_json::Result<K> {
    serde_json::from_slice(bytes)
}

/// Reading stored bytes back: decompression (with the store's dictionary, if trained)
/// and deserialization. Shared, behind an `Arc`, by readers that decode outside the lock:
/// training a dictionary installs a new codec and re-encodes every item, so bytes read
/// under the lock always go with the codec read with them.
pub(crate) struct Codec<K> {
    pub(crate) decode: DecodeFn<K>,
    /// Objects decoded so far ([`CompactStats::decoded`](super::CompactStats::decoded)),
    /// shared with the codec that replaces this one.
    pub(crate) decoded: Arc<AtomicU64>,
    #[cfg(feature = "zstd")]
    pub(crate) zstd: zstd_codec::Decoder,
}

impl<K> Codec<K> {
    /// Runs `f` on the plain JSON of `item`'s bytes.
    pub(crate) fn plain<R>(
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
        let obj = self.plain(bytes, plain_len, self.decode)?.map_err(|e| {
            format!("{:?} error at line {} column {}", e.classify(), e.line(), e.column())
        })?;
        self.decoded.fetch_add(1, Ordering::Relaxed);
        Ok(obj)
    }
}

/// What writes use: the serializer, and the compressor with the dictionary once trained.
/// Only used under the store's write lock (the `Mutex` around it is never contended; it
/// is there because a compression context is not `Sync`).
pub(crate) struct Encoder<K> {
    pub(crate) encode: EncodeFn<K>,
    pub(crate) json: Vec<u8>,
    #[cfg(feature = "zstd")]
    pub(crate) zstd: zstd_codec::Encoder,
}

impl<K> Encoder<K> {
    /// `obj` as stored: its bytes and the length of its JSON.
    pub(crate) fn encode(&mut self, obj: &K) -> Result<(Arc<[u8]>, u32), String> {
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

/// An object read under the lock, decoded later: from the decoded cache, or its bytes.
pub(crate) enum Part<K> {
    Ready(Arc<K>),
    Encoded(Arc<str>, Arc<[u8]>, u32),
}

/// Objects gathered under the lock, decoded once it is released.
pub(crate) struct Pending<K> {
    pub(crate) codec: Arc<Codec<K>>,
    pub(crate) parts: Vec<Part<K>>,
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

pub(crate) fn undecodable(key: &str, error: &str) {
    tracing::error!(key, error, "compact store: a stored object does not decode; it is skipped");
}

/// The zstd side: per-store dictionaries, a pool of decompression contexts (readers run
/// in parallel under the shared lock) and one compression context (writes are exclusive).
#[cfg(feature = "zstd")]
pub(crate) mod zstd_codec {
    use std::sync::Arc;

    use parking_lot::Mutex;
    use zstd::zstd_safe::{CCtx, CDict, DCtx, DDict};

    /// Decompression contexts kept for reuse; more may exist while readers run at once.
    const POOLED: usize = 4;

    pub(crate) struct Decoder {
        dictionary: Option<DDict<'static>>,
        pool: Mutex<Vec<(DCtx<'static>, Vec<u8>)>>,
    }

    impl Decoder {
        pub(crate) fn new(dictionary: Option<&[u8]>) -> Self {
            Self { dictionary: dictionary.map(DDict::create), pool: Mutex::new(Vec::new()) }
        }

        pub(crate) fn decompress<R>(
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

    pub(crate) struct Encoder {
        ctx: CCtx<'static>,
        dictionary: Option<CDict<'static>>,
        level: i32,
        buffer: Vec<u8>,
    }

    impl Encoder {
        pub(crate) fn new(level: i32, dictionary: Option<&[u8]>) -> Self {
            Self {
                ctx: CCtx::create(),
                dictionary: dictionary.map(|d| CDict::create(d, level)),
                level,
                buffer: Vec::new(),
            }
        }

        pub(crate) fn compress(&mut self, plain: &[u8]) -> Result<Arc<[u8]>, String> {
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
