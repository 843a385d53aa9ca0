//! The dynamic and metadata front-end of the factory core: one informer per
//! GroupVersionResource, found by its GVR, removable one by one (client-go's
//! `dynamicSharedInformerFactory`).

use std::fmt::Debug;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

use kube::core::{ApiResource, DynamicObject, GroupVersionResource};
use kube::discovery::Scope;
use kube::{Api, Resource};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::debug;

use super::api_resource::{self, ResolvedResource};
use super::core::Member;
use super::error::Result;
use super::generic_informer::GenericInformer;
use super::informer_factory::{FrontEnd, InformerFactory};
use super::options::GenericSetup;
use crate::informer::SharedIndexInformer;
use crate::listwatch::{ListerWatcher, TweakListParams};
use crate::store::namespace_indexers;

/// What a generic factory caches, and how it lists and watches it: whole objects
/// ([`DynamicObject`]) or metadata only ([`MetadataObject`](crate::dynamic::MetadataObject)).
pub trait GenericObject:
    Resource<DynamicType = ApiResource> + Clone + Debug + Send + Sync + 'static
{
    /// The lister-watcher of one informer, from the `Api` its URLs come from; its lists
    /// ask for gzip unless `compression` is `false`.
    fn lister_watcher(
        api: Api<DynamicObject>,
        tweak: Option<TweakListParams>,
        compression: bool,
    ) -> Arc<dyn ListerWatcher<Self>>;
}

/// Implements [`GenericObject`] for `$object`, listed and watched by `$lister_watcher`
/// (which has `new(Api)`, `with_tweak(TweakListParams)` and `disable_compression()`).
macro_rules! generic_object {
    ($object:ty, $lister_watcher:ident) => {
        impl GenericObject for $object {
            fn lister_watcher(
                api: Api<DynamicObject>,
                tweak: Option<TweakListParams>,
                compression: bool,
            ) -> Arc<dyn ListerWatcher<$object>> {
                let mut lister_watcher = $lister_watcher::new(api);
                if !compression {
                    lister_watcher = lister_watcher.disable_compression();
                }
                Arc::new(tweaked(lister_watcher, tweak, $lister_watcher::with_tweak))
            }
        }
    };
}
pub(crate) use generic_object;

/// The generic front-end: informers found by GroupVersionResource, caching `K`.
pub struct Generic<K>(PhantomData<fn() -> K>);

impl<K: GenericObject> FrontEnd for Generic<K> {
    type Key = GroupVersionResource;
    type Member = GenericInformer<K>;
    type Options = GenericSetup<K>;
}

/// Hands out one shared informer per GroupVersionResource, starts them, waits for them to
/// sync, removes them one by one and shuts them all down.
///
/// Use it through its two aliases: [`DynamicSharedInformerFactory`](crate::dynamic::DynamicSharedInformerFactory)
/// (whole objects as [`DynamicObject`]) and
/// [`MetadataSharedInformerFactory`](crate::dynamic::MetadataSharedInformerFactory) (metadata
/// only). Cloning is cheap; every clone is the same factory.
pub type GenericInformerFactory<K> = InformerFactory<Generic<K>>;

impl<K: GenericObject> InformerFactory<Generic<K>> {
    /// The shared informer for `gvr`, created on first use (client-go's `ForResource`).
    /// Every call for the same resource returns the same informer, so there is one watch.
    ///
    /// URLs are built from the GVR alone, as client-go's dynamic client does: no discovery
    /// request, and the factory's namespace (if any) goes into the URL. An informer created
    /// after [`start`](Self::start) runs from the next `start` call.
    pub fn for_resource(&self, gvr: &GroupVersionResource) -> GenericInformer<K> {
        let gvr = api_resource::normalize(gvr);
        let resolved = api_resource::from_gvr(&gvr);
        self.get_or_create(gvr, resolved)
    }

    /// Like [`for_resource`](Self::for_resource), but asks the API server's discovery for
    /// the resource's kind and scope first, so that a cluster-scoped resource is watched
    /// cluster-wide even in a namespaced factory and objects get their kind. An informer
    /// that already exists for `gvr` is returned without asking.
    ///
    /// Fails if discovery fails or the group/version does not serve the resource.
    pub async fn for_resource_discovered(
        &self,
        gvr: &GroupVersionResource,
    ) -> Result<GenericInformer<K>> {
        let gvr = api_resource::normalize(gvr);
        if let Some(existing) = self.get(&gvr) {
            return Ok(existing);
        }
        let resolved = api_resource::discover(self.client(), &gvr).await?;
        Ok(self.get_or_create(gvr, resolved))
    }

    /// The informer for `gvr`, if this factory has made one.
    pub fn get(&self, gvr: &GroupVersionResource) -> Option<GenericInformer<K>> {
        self.parts().core.get(&api_resource::normalize(gvr))
    }

    /// The resources this factory has informers for, in creation order.
    pub fn resources(&self) -> Vec<GroupVersionResource> {
        self.parts().core.members().iter().map(|informer| informer.gvr().clone()).collect()
    }

    fn get_or_create(
        &self,
        gvr: GroupVersionResource,
        resolved: ResolvedResource,
    ) -> GenericInformer<K> {
        self.parts().core.get_or_insert_with(gvr.clone(), || self.new_informer(gvr, resolved))
    }

    fn new_informer(
        &self,
        gvr: GroupVersionResource,
        resolved: ResolvedResource,
    ) -> GenericInformer<K> {
        let parts = self.parts();
        let (options, generic) = (&parts.common, &parts.options);
        let client = parts.core.client().clone();
        let ar = &resolved.api_resource;
        let api = match (resolved.scope, options.namespace.as_deref()) {
            (Some(Scope::Cluster), _) | (_, None) => Api::all_with(client, ar),
            (_, Some(namespace)) => Api::namespaced_with(client, namespace, ar),
        };
        let lister_watcher = K::lister_watcher(api, options.tweak.clone(), options.compression);
        let informer =
            SharedIndexInformer::new(lister_watcher, options.default_resync, namespace_indexers());
        // A fresh informer has not started, so these cannot fail.
        let _ = informer.set_reflector_config(options.reflector_config.clone());
        if let Some(name) = &options.name {
            let _ = informer.set_name(name.clone());
        }
        if let Some(transform) = generic.transform.clone() {
            let _ = informer.set_transform(move |obj: &mut K| transform(obj));
        }
        debug!(group = %gvr.group, version = %gvr.version, resource = %gvr.resource, informer = options.name.as_deref(), "created dynamic informer");
        GenericInformer::new(gvr, resolved.api_resource, informer)
    }

    /// Stops and forgets the informer for `gvr`, returning once its task and handler
    /// threads have ended; `false` if the factory had none. Other informers carry on.
    ///
    /// client-go cannot do this (kubernetes#79610): there, an informer for a deleted CRD
    /// keeps relisting until the whole factory stops. A later
    /// [`for_resource`](Self::for_resource) for the same GVR makes a fresh informer.
    pub async fn remove(&self, gvr: &GroupVersionResource) -> bool {
        let gvr = api_resource::normalize(gvr);
        let removed = self.parts().core.remove(&gvr).await;
        if removed {
            debug!(group = %gvr.group, version = %gvr.version, resource = %gvr.resource, "removed dynamic informer");
        }
        removed
    }
}

impl<K> Member for GenericInformer<K>
where
    K: Resource + Clone + Debug + Send + Sync + 'static,
{
    fn gvr(&self) -> &GroupVersionResource {
        GenericInformer::gvr(self)
    }
    fn spawn(&self, cancel: CancellationToken) -> JoinHandle<()> {
        let informer = self.informer();
        tokio::spawn(async move { informer.run(cancel).await })
    }
    fn wait_for_sync(&self) -> impl Future<Output = bool> + Send {
        let informer = self.informer();
        async move { informer.wait_for_sync().await }
    }
    fn has_synced(&self) -> bool {
        self.informer().has_synced()
    }
}
