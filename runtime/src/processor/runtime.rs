//! The Tokio runtime handlers run in: listener threads are plain OS threads, so without
//! it a handler calling `tokio::spawn` or `Handle::current()` would panic.

use std::sync::{Arc, OnceLock};

use tokio::runtime::{EnterGuard, Handle};

/// A runtime handle shared by a processor and its listener threads, set once.
#[derive(Clone, Default)]
pub(crate) struct Runtime(Arc<OnceLock<Handle>>);

impl Runtime {
    /// Sets the runtime, unless one is set already.
    pub(crate) fn set(&self, handle: Handle) {
        let _ = self.0.set(handle);
    }

    /// Makes the runtime current on this thread until the guard drops; `None` while no
    /// runtime is known.
    pub(crate) fn enter(&self) -> Option<EnterGuard<'_>> {
        self.0.get().map(Handle::enter)
    }
}
