//! A type-erased handle on a typed informer, for code that picks informers by
//! GroupVersionResource (client-go's `GenericInformer` in `informers/generic.go`).

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use futures::future::BoxFuture;
use kube::Resource;
use kube::core::GroupVersionResource;
use tokio_util::sync::CancellationToken;

use super::shared_informer::SharedIndexInformer;
use crate::metrics::InformerStats;

/// What the factory and generic callers need of an informer without knowing its type.
trait AnyInformer: Send + Sync {
    fn has_synced(&self) -> bool;
    fn is_stopped(&self) -> bool;
    fn is_started(&self) -> bool;
    fn stats(&self) -> InformerStats;
    fn last_sync_resource_version(&self) -> String;
    fn cached_keys(&self) -> Vec<String>;
    fn wait_for_sync(&self) -> BoxFuture<'static, bool>;
    fn run(&self, cancel: CancellationToken) -> BoxFuture<'static, ()>;
    fn as_any(&self) -> &dyn Any;
}

impl<K> AnyInformer for SharedIndexInformer<K>
where
    K: Resource + Clone + Debug + Send + Sync + 'static,
{
    fn has_synced(&self) -> bool {
        SharedIndexInformer::has_synced(self)
    }
    fn is_stopped(&self) -> bool {
        SharedIndexInformer::is_stopped(self)
    }
    fn is_started(&self) -> bool {
        SharedIndexInformer::is_started(self)
    }
    fn stats(&self) -> InformerStats {
        SharedIndexInformer::stats(self)
    }
    fn last_sync_resource_version(&self) -> String {
        SharedIndexInformer::last_sync_resource_version(self)
    }
    fn cached_keys(&self) -> Vec<String> {
        self.get_indexer().list_keys()
    }
    fn wait_for_sync(&self) -> BoxFuture<'static, bool> {
        let informer = self.clone();
        Box::pin(async move { informer.wait_for_sync().await })
    }
    fn run(&self, cancel: CancellationToken) -> BoxFuture<'static, ()> {
        let informer = self.clone();
        Box::pin(async move { informer.run(cancel).await })
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A typed informer whose type is known only at run time, with the resource it watches.
///
/// Get the typed informer back with [`ErasedInformer::downcast`].
#[derive(Clone)]
pub struct ErasedInformer {
    gvr: GroupVersionResource,
    informer: Arc<dyn AnyInformer>,
}

impl std::fmt::Debug for ErasedInformer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ErasedInformer").field("gvr", &self.gvr).finish_non_exhaustive()
    }
}

impl ErasedInformer {
    /// Erases the type of `informer`, which watches `gvr`.
    pub fn new<K>(informer: SharedIndexInformer<K>, gvr: GroupVersionResource) -> Self
    where
        K: Resource + Clone + Debug + Send + Sync + 'static,
    {
        Self { gvr, informer: Arc::new(informer) }
    }

    /// The resource this informer watches.
    pub fn gvr(&self) -> &GroupVersionResource {
        &self.gvr
    }

    /// The typed informer, if it holds objects of type `K`.
    pub fn downcast<K>(&self) -> Option<SharedIndexInformer<K>>
    where
        K: Resource + Clone + Debug + Send + Sync + 'static,
    {
        self.informer.as_any().downcast_ref::<SharedIndexInformer<K>>().cloned()
    }

    /// Whether the initial list has reached the cache.
    pub fn has_synced(&self) -> bool {
        self.informer.has_synced()
    }

    /// Whether the informer has run and stopped.
    pub fn is_stopped(&self) -> bool {
        self.informer.is_stopped()
    }

    /// Whether the informer has been started.
    pub fn is_started(&self) -> bool {
        self.informer.is_started()
    }

    /// What the informer has done so far (see [`SharedIndexInformer::stats`]).
    pub fn stats(&self) -> InformerStats {
        self.informer.stats()
    }

    /// The last resourceVersion the informer saw.
    pub fn last_sync_resource_version(&self) -> String {
        self.informer.last_sync_resource_version()
    }

    /// The keys of every cached object.
    pub fn cached_keys(&self) -> Vec<String> {
        self.informer.cached_keys()
    }

    /// Waits until the informer has synced (`true`) or stopped first (`false`).
    pub async fn wait_for_sync(&self) -> bool {
        self.informer.wait_for_sync().await
    }

    /// Runs the informer until `cancel` fires (see [`SharedIndexInformer::run`]).
    pub async fn run(&self, cancel: CancellationToken) {
        self.informer.run(cancel).await
    }
}
