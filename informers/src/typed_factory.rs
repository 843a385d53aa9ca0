//! The typed factory users build: the runtime's [`TypedInformerFactory`] plus the generated
//! group accessors (`apps()`, `core()`, …) and `for_resource`.

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use kube::core::GroupVersionResource;
use kube_informers_runtime::factory::{
    InformerOptions, TypedFactoryBuilder, TypedObject, TypedResource,
};
use kube_informers_runtime::{ErasedInformer, SharedIndexInformer, TypedInformerFactory};

/// Hands out one shared informer per resource type, through client-go's typed accessors:
/// `factory.apps().v1().deployments()` (client-go's `informers.SharedInformerFactory`).
///
/// It is a [`TypedInformerFactory`] (see [`typed`](Self::typed)) with the generated
/// accessors; its other methods are that factory's. Cloning is cheap; every clone is the
/// same factory.
///
/// ```no_run
/// # use std::time::Duration;
/// # async fn doc(client: kube::Client) {
/// let factory = kube_informers::SharedInformerFactory::new(client, Duration::ZERO);
/// let pods = factory.core().v1().pods().informer();
/// factory.start();
/// factory.wait_for_cache_sync().await;
/// # let _ = pods;
/// # }
/// # let _ = doc;
/// ```
#[derive(Clone)]
pub struct SharedInformerFactory(TypedInformerFactory);

/// Builds a [`SharedInformerFactory`]: namespace, list tweak, custom resyncs, transforms
/// (client-go's `NewSharedInformerFactoryWithOptions`).
pub type SharedInformerFactoryBuilder = TypedFactoryBuilder<SharedInformerFactory>;

impl SharedInformerFactory {
    /// A factory over all namespaces whose handlers resync every `default_resync` (zero:
    /// never) (client-go's `NewSharedInformerFactory`).
    pub fn new(client: kube::Client, default_resync: Duration) -> Self {
        Self(TypedInformerFactory::new(client, default_resync))
    }

    /// A builder for a factory with options: namespace, list tweak, custom resyncs
    /// (client-go's `NewSharedInformerFactoryWithOptions`).
    pub fn builder(client: kube::Client) -> SharedInformerFactoryBuilder {
        SharedInformerFactoryBuilder::new(client)
    }

    /// The typed factory underneath, for APIs that take one.
    pub fn typed(&self) -> &TypedInformerFactory {
        &self.0
    }

    /// See [`TypedInformerFactory::client`].
    pub fn client(&self) -> &kube::Client {
        self.0.client()
    }

    /// See [`TypedInformerFactory::namespace`].
    pub fn namespace(&self) -> Option<&str> {
        self.0.namespace()
    }

    /// See [`TypedInformerFactory::name`].
    pub fn name(&self) -> Option<&str> {
        self.0.name()
    }

    /// The shared informer for `K`, created on first use (client-go's `InformerFor`); see
    /// [`TypedInformerFactory::informer_for`].
    pub fn informer_for<K: TypedResource>(&self) -> SharedIndexInformer<K> {
        self.0.informer_for()
    }

    /// The shared informer for `K`, made by `new_informer` on first use; see
    /// [`TypedInformerFactory::informer_for_with`].
    pub fn informer_for_with<K: TypedObject>(
        &self,
        new_informer: impl FnOnce(kube::Client, InformerOptions<'_>) -> SharedIndexInformer<K>,
    ) -> SharedIndexInformer<K> {
        self.0.informer_for_with(new_informer)
    }

    /// Every informer this factory made, with its resource.
    pub fn informers(&self) -> Vec<ErasedInformer> {
        self.0.informers()
    }

    /// Starts every informer not started yet (client-go's `Start`); see
    /// [`TypedInformerFactory::start`].
    pub fn start(&self) {
        self.0.start();
    }

    /// Waits until every started informer has synced (client-go's `WaitForCacheSync`); see
    /// [`TypedInformerFactory::wait_for_cache_sync`].
    pub async fn wait_for_cache_sync(&self) -> HashMap<GroupVersionResource, bool> {
        self.0.wait_for_cache_sync().await
    }

    /// Like [`wait_for_cache_sync`](Self::wait_for_cache_sync), giving up after `timeout`.
    pub async fn wait_for_cache_sync_timeout(
        &self,
        timeout: Duration,
    ) -> HashMap<GroupVersionResource, bool> {
        self.0.wait_for_cache_sync_timeout(timeout).await
    }

    /// Like [`wait_for_cache_sync`](Self::wait_for_cache_sync), giving up when `stop`
    /// completes.
    pub async fn wait_for_cache_sync_until(
        &self,
        stop: impl Future<Output = ()>,
    ) -> HashMap<GroupVersionResource, bool> {
        self.0.wait_for_cache_sync_until(stop).await
    }

    /// Stops every informer and returns once all of their tasks and handler threads have
    /// ended (client-go's `Shutdown`).
    pub async fn shutdown(&self) {
        self.0.shutdown().await;
    }
}

impl AsRef<TypedInformerFactory> for SharedInformerFactory {
    fn as_ref(&self) -> &TypedInformerFactory {
        &self.0
    }
}

impl From<TypedInformerFactory> for SharedInformerFactory {
    fn from(typed: TypedInformerFactory) -> Self {
        Self(typed)
    }
}
