//! The last resource version the reflector synced to, shared with readers.

use std::sync::Arc;

use parking_lot::RwLock;

/// A cheap, cloneable handle on a reflector's last-synced resource version
/// (client-go's `LastSyncResourceVersion`). Readable at any time, including while the
/// reflector runs; empty until the first list completes.
#[derive(Clone, Debug, Default)]
pub struct LastSyncResourceVersion {
    inner: Arc<RwLock<String>>,
}

impl LastSyncResourceVersion {
    /// The resource version of the last list, watch event or bookmark applied.
    pub fn get(&self) -> String {
        self.inner.read().clone()
    }

    pub(crate) fn set(&self, resource_version: &str) {
        let mut current = self.inner.write();
        if *current != resource_version {
            resource_version.clone_into(&mut current);
        }
    }
}
