//! The differential conformance test against client-go: the format its observers write,
//! our observer's writer of it, and the comparison of the two outputs.
//!
//! Two observers, client-go's (`conformance/cmd/observer`) and ours (the
//! `conformance_observer` binary), write one JSON line per handler callback and, at the
//! end, one line per factory with its cache. Fields that don't apply to a callback's kind
//! are omitted: `initial` only on adds, `old_rv` only on updates, `tombstone` only on
//! deletes. The test (`tests/integration/conformance_client_go.rs`) reads both files with
//! [`Observation::parse`] and compares them with [`compare`].

mod compare;
mod format;
mod observation;
mod writer;

#[cfg(test)]
mod tests;

pub use compare::{
    CACHE_DIFFERS, CALLBACKS_DIFFER, Difference, RELIST_UNCHANGED_UPDATE, allowed_differences,
    compare,
};
pub use format::{CacheLine, Callback, FACTORIES, SCOPED_NAMESPACE, WEB_SELECTOR};
pub use observation::Observation;
pub use writer::{CallbackWriter, LineWriter, cache_line};
