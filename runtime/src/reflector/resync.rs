//! The resync timer (client-go's `startResync`).

use std::panic::AssertUnwindSafe;

use kube::Resource;

use super::{Reflector, ReflectorError, StoreOperation};

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// Every `resync_period`, asks `should_resync` and resyncs the store when it agrees.
    /// Never returns when the period is zero; returns the store's error if a resync fails.
    pub(super) async fn resync_loop(&self) -> ReflectorError {
        let period = self.config.resync_period;
        if period.is_zero() {
            return std::future::pending().await;
        }
        loop {
            tokio::time::sleep(period).await;
            if self.should_resync_now() {
                tracing::debug!("forcing resync");
                if let Err(source) = self.store.resync() {
                    return ReflectorError::Store { operation: StoreOperation::Resync, source };
                }
            }
        }
    }

    fn should_resync_now(&self) -> bool {
        let Some(should_resync) = &self.should_resync else {
            return true;
        };
        std::panic::catch_unwind(AssertUnwindSafe(|| should_resync())).unwrap_or_else(|_| {
            tracing::error!("should_resync panicked; skipping this resync");
            false
        })
    }
}
