//! Training a compact store's zstd dictionary once it holds enough objects.

#[cfg(feature = "zstd")]
use std::sync::Arc;

use kube::Resource;

use super::CompactStore;
#[cfg(feature = "zstd")]
use super::codec::{Codec, zstd_codec};

impl<K: Resource> CompactStore<K> {
    /// Trains a dictionary on the stored objects once there are enough of them, then
    /// re-encodes every object with it (decompressing and compressing, no serde).
    pub(super) fn maybe_train(&mut self) {
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
                decoded: Arc::clone(&codec.decoded),
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
