//! The DeltaFIFO (client-go `tools/cache/delta_fifo.go`): the queue between the reflector
//! and the controller.
//!
//! Each queued key holds the ordered [`Deltas`] that happened to its object since it was
//! last popped; a key is queued once however many deltas it collects, and keeps its place.
//!
//! # Processing without the lock
//!
//! client-go runs the consumer's process function while holding the FIFO lock, which makes
//! every producer wait for the slowest handler. [`DeltaFifo`] releases the lock first. That
//! alone would open races: while key `X` is popped but not yet written to the store, a
//! relist or resync reading the store (the [`KnownObjects`]) would miss `X` or see its old
//! state, and queue a stale `Sync`, miss a tombstone, or drop a delete. So the FIFO keeps
//! popped keys *in flight* until `process` returns, with the state they are about to have,
//! and treats them as known:
//!
//! - `delete` of an in-flight key is queued if the key is about to exist;
//! - `replace` queues a tombstone for an in-flight key missing from the list (carrying its
//!   in-flight object), and does not consult the store for it;
//! - `resync` skips in-flight keys, as it skips queued ones: their deltas are being
//!   delivered anyway.
//!
//! Pops are serialized (one consumer at a time, like client-go's lock), so a key's deltas
//! are always processed in order. Lock order is FIFO, then the known objects; the process
//! function may call the FIFO (e.g. to re-queue) but must not do so from inside an
//! [`Indexer::transaction`](crate::store::Indexer::transaction) on the known-objects
//! indexer.
//!
//! # Applying a relist atomically
//!
//! There is no `has_pending_replace`: [`DeltaFifo::replace`] queues a whole relist under
//! one lock, so [`DeltaFifo::pop_batch`] with `max = usize::MAX` gets either none or all of
//! it, and a consumer that applies each batch in one store transaction never shows readers
//! a half-applied relist. The one exception is by design: while the keys of the *initial*
//! list are still being popped, a batch stops at their end (so that its
//! `is_in_initial_list` flag is exact), and a second relist queued in that window may be
//! split across two batches.
//!
//! [`DeltaFifo::start_replace`] is the other exception, by choice of the producer: it
//! hands a relist over object by object ([`Replacing`]), for consumers whose store is much
//! smaller than the decoded objects, at the price of the relist being popped in parts.

mod delta;
mod delta_fifo;
mod error;
mod known;
mod queue;
mod replacing;
mod room;

pub use delta::{Delta, DeltaType, Deltas};
pub use delta_fifo::DeltaFifo;
pub use error::{FifoError, PopError, Result};
pub use known::KnownObjects;
pub use replacing::Replacing;
