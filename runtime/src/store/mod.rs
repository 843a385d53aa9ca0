//! The thread-safe indexed store (client-go `tools/cache` `Indexer` / `ThreadSafeStore`)
//! and its key functions.
//!
//! - [`Indexer`]: `Arc<K>` objects keyed `namespace/name` (or `name`), with named indices
//!   kept exact on every write, readable concurrently, with atomic
//!   [`transaction`](Indexer::transaction)s.
//! - Key functions: [`meta_namespace_key_func`],
//!   [`deletion_handling_meta_namespace_key_func`], [`split_meta_namespace_key`].
//! - Index functions: [`IndexFunc`], [`Indexers`], [`NAMESPACE_INDEX`] /
//!   [`meta_namespace_index_func`].
//!
//! Keys are stored once, as `Arc<str>`, and shared by the item map and every index bucket.
//!
//! An [`Indexer`] keeps `Arc<K>`s ([`Indexer::new`]) or, for a fraction of the memory,
//! each object encoded and decoded on read ([`Indexer::compact`], configured by
//! [`CompactConfig`]); both are the same type with the same methods, so informers,
//! listers and the DeltaFIFO work with either.

mod compact;
mod error;
mod index;
mod indexer;
mod key;
mod state;
mod view;

pub use compact::{CompactConfig, CompactStats, DECODED_BYTES_PER_JSON_BYTE};
pub use error::{KeyError, Result, StoreError};
pub use index::{
    IndexFunc, Indexers, NAMESPACE_INDEX, index_func, meta_namespace_index_func, namespace_indexers,
};
pub use indexer::Indexer;
pub use key::{
    deletion_handling_meta_namespace_key_func, meta_namespace_key_func, split_meta_namespace_key,
};
pub use view::{IndexerTxn, IndexerView};
