//! client-go's informer machinery for Rust: a thread-safe indexed store, the DeltaFIFO,
//! the reflector, shared informers with their processor and listeners, and listers.
//!
//! Objects are shared as `Arc<K>` from the moment they are decoded: the store, the FIFO
//! and every handler see the same allocation, and nothing is deep-copied.
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

pub mod tombstone;

pub use tombstone::{DeletedFinalStateUnknown, DeletedObject};
