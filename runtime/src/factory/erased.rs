//! A typed informer with its type erased: what a typed factory holds and hands out from
//! `informers()`, for code that picks informers by GroupVersionResource.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use futures::future::BoxFuture;
use kube::Resource;
use kube::core::{DynamicObject, GroupVersionResource};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use tokio::task::JoinHandle;

use super::core::Member;
use crate::informer::{InformerError, SharedIndexInformer};
use crate::lister::{DynamicView, GenericLister, Lister, ObjectView};
use crate::metrics::InformerStats;

/// What the factory and generic callers need of an informer without knowing its type.
trait AnyInformer: Send + Sync {
    fn has_synced(&self) -> bool;
    fn is_stopped(&self) -> bool;
    fn is_started(&self) -> bool;
    fn stop_error(&self) -> Option<InformerError>;
    fn stats(&self) -> InformerStats;
    fn last_sync_resource_version(&self) -> String;
    fn cached_keys(&self) -> Vec<String>;
    fn wait_for_sync(&self) -> BoxFuture<'static, bool>;
    fn run(&self, cancel: CancellationToken) -> BoxFuture<'static, ()>;
    fn dynamic_view(&self) -> Arc<dyn ObjectView<DynamicObject>>;
    fn as_any(&self) -> &dyn Any;
}

impl<K> AnyInformer for SharedIndexInformer<K>
where
    K: Resource + Clone + Serialize + Debug + Send + Sync + 'static,
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
    fn stop_error(&self) -> Option<InformerError> {
        SharedIndexInformer::stop_error(self)
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
    fn dynamic_view(&self) -> Arc<dyn ObjectView<DynamicObject>> {
        Arc::new(DynamicView::new(Lister::new(self.get_indexer())))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// A typed informer whose type is known only at run time, with the resource it watches.
///
/// Unlike a dynamic factory's [`GenericInformer`](crate::GenericInformer) (client-go's
/// `GenericInformer`, whose cache holds dynamic objects), the cache behind it holds typed
/// objects; its [`lister`](Self::lister) converts them on read.
///
/// Get the typed informer back with [`ErasedInformer::downcast`], or read its cache without
/// knowing the type through [`ErasedInformer::lister`].
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
    ///
    /// `K` must serialize so that [`lister`](Self::lister) can show its objects as
    /// [`DynamicObject`]s; every Kubernetes object type does, as the API server is sent
    /// them as JSON.
    pub fn new<K>(informer: SharedIndexInformer<K>, gvr: GroupVersionResource) -> Self
    where
        K: Resource + Clone + Serialize + Debug + Send + Sync + 'static,
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

    /// A lister over the informer's cache that shows its objects as [`DynamicObject`]s,
    /// for code that knows the resource only by its GVR (client-go's
    /// `GenericInformer.Lister()`, which lists `runtime.Object`s).
    ///
    /// It has the methods of a dynamic informer's [`GenericLister`]: `list(selector)`,
    /// `get(key)` and `by_namespace(ns)`. The cache holds only the typed objects, so
    /// nothing is stored twice and the objects are as fresh as the cache. The price is one
    /// conversion for each object returned, on every read: a serialization to JSON and a
    /// clone of the metadata. Measured by hand in an unoptimized (debug) build, listing
    /// 10,000 small ConfigMaps or one-container Pods took about 20 µs per object this way
    /// against about 0.5 µs through the typed lister; an optimized build is faster, but
    /// the ratio stays large. A label selector is matched before converting, so only the
    /// objects returned are paid for. Code that knows the type should
    /// [`downcast`](Self::downcast) and use the typed lister, which converts nothing.
    pub fn lister(&self) -> GenericLister<DynamicObject> {
        GenericLister::from_view(self.informer.dynamic_view(), self.gvr.clone())
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

    /// Why the informer stopped, if on an error (see [`SharedIndexInformer::stop_error`]).
    pub fn stop_error(&self) -> Option<InformerError> {
        self.informer.stop_error()
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

impl Member for ErasedInformer {
    fn gvr(&self) -> &GroupVersionResource {
        &self.gvr
    }
    fn spawn(&self, cancel: CancellationToken) -> JoinHandle<()> {
        tokio::spawn(self.informer.run(cancel))
    }
    fn wait_for_sync(&self) -> impl std::future::Future<Output = bool> + Send {
        self.informer.wait_for_sync()
    }
    fn has_synced(&self) -> bool {
        self.informer.has_synced()
    }
}
