//! [`InformerFactory`]: the one factory type. Its front-end `F` ([`Typed`](super::Typed) or
//! [`Generic`](super::Generic)) chooses how informers are found and made; starting,
//! waiting for sync and shutting down are written once, here, over the
//! [`FactoryCore`].

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use kube::core::GroupVersionResource;

use super::core::{FactoryCore, Member};
use super::options::CommonOptions;

/// A factory front-end: the key informers are found by, the handle the factory holds for
/// each, and the options only this front-end takes. Implemented by
/// [`Typed`](super::Typed) and [`Generic`](super::Generic) alone.
pub trait FrontEnd: Send + Sync + 'static {
    /// How the factory finds an informer: a Rust type, a GroupVersionResource.
    type Key: PartialEq + Send + Sync + 'static;
    /// What the factory holds and runs for each informer.
    type Member: Member;
    /// What only this front-end's factories are configured with.
    type Options: Send + Sync + 'static;
}

/// Hands out one shared informer per resource, starts them, waits for them to sync and
/// shuts them all down (client-go's `SharedInformerFactory`). Use it through its aliases:
/// [`TypedInformerFactory`](super::TypedInformerFactory) (one informer per Rust type),
/// [`DynamicSharedInformerFactory`](crate::dynamic::DynamicSharedInformerFactory) and
/// [`MetadataSharedInformerFactory`](crate::dynamic::MetadataSharedInformerFactory) (one per
/// GroupVersionResource).
///
/// Cloning is cheap; every clone is the same factory.
pub struct InformerFactory<F: FrontEnd> {
    inner: Arc<Inner<F>>,
}

pub(crate) struct Inner<F: FrontEnd> {
    pub(crate) core: FactoryCore<F::Key, F::Member>,
    pub(crate) common: CommonOptions,
    pub(crate) options: F::Options,
}

impl<F: FrontEnd> Clone for InformerFactory<F> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

impl<F: FrontEnd> fmt::Debug for InformerFactory<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InformerFactory")
            .field("name", &self.inner.common.name)
            .field("namespace", &self.inner.common.namespace)
            .field("informers", &self.inner.core.len())
            .finish_non_exhaustive()
    }
}

impl<F: FrontEnd> InformerFactory<F> {
    pub(crate) fn from_parts(client: Client, common: CommonOptions, options: F::Options) -> Self {
        Self { inner: Arc::new(Inner { core: FactoryCore::new(client), common, options }) }
    }

    /// What the front-ends build on.
    pub(crate) fn parts(&self) -> &Inner<F> {
        &self.inner
    }

    /// The client informers of this factory use.
    pub fn client(&self) -> &Client {
        self.inner.core.client()
    }

    /// The namespace this factory watches, `None` for all.
    pub fn namespace(&self) -> Option<&str> {
        self.inner.common.namespace.as_deref()
    }

    /// The name given to this factory's informers by
    /// [`FactoryBuilder::name`](super::FactoryBuilder::name), if any.
    pub fn name(&self) -> Option<&str> {
        self.inner.common.name.as_deref()
    }

    /// Starts every informer not started yet; call it again after asking for more
    /// informers (client-go's `Start`). Must be called within a Tokio runtime. Does
    /// nothing after [`shutdown`](Self::shutdown).
    pub fn start(&self) {
        self.inner.core.start();
    }

    /// Waits until every started informer has synced; the map says, per resource, whether
    /// it did (`false` only for one that stopped first) (client-go's `WaitForCacheSync`).
    pub async fn wait_for_cache_sync(&self) -> HashMap<GroupVersionResource, bool> {
        self.wait_for_cache_sync_until(std::future::pending()).await
    }

    /// Like [`wait_for_cache_sync`](Self::wait_for_cache_sync), giving up after `timeout`:
    /// informers not synced by then map to `false`.
    pub async fn wait_for_cache_sync_timeout(
        &self,
        timeout: Duration,
    ) -> HashMap<GroupVersionResource, bool> {
        self.wait_for_cache_sync_until(tokio::time::sleep(timeout)).await
    }

    /// Like [`wait_for_cache_sync`](Self::wait_for_cache_sync), giving up when `stop`
    /// completes (a cancellation token's `cancelled()`, a timer, a signal): informers not
    /// synced by then map to `false`.
    pub async fn wait_for_cache_sync_until(
        &self,
        stop: impl Future<Output = ()>,
    ) -> HashMap<GroupVersionResource, bool> {
        self.inner.core.wait_for_cache_sync_until(stop).await
    }

    /// Stops every informer and returns once all of their tasks and handler threads have
    /// ended (client-go's `Shutdown`). The factory starts nothing afterwards.
    pub async fn shutdown(&self) {
        self.inner.core.shutdown().await;
    }
}

impl<F: FrontEnd> AsRef<InformerFactory<F>> for InformerFactory<F> {
    fn as_ref(&self) -> &InformerFactory<F> {
        self
    }
}
