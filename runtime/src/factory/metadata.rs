//! Metadata-only informers of any resource (client-go's `metadatainformer`): the cache
//! holds `PartialObjectMetadata`, a fraction of the memory of whole objects.

use std::sync::Arc;
use std::time::Duration;

use kube::core::{DynamicObject, PartialObjectMeta};
use kube::{Api, Client};

use super::generic::GenericInformerFactory;
use super::generic_builder::DynamicFactoryBuilder;
use crate::dynamic::MetadataListerWatcher;
use crate::reflector::{ListerWatcher, TweakListParams};

/// The objects a metadata-only informer caches: `apiVersion`, `kind` and `metadata`.
pub type MetadataObject = PartialObjectMeta<DynamicObject>;

/// Shared metadata-only informers for any GroupVersionResource (client-go's
/// `metadatainformer.SharedInformerFactory`): same shape as
/// [`DynamicSharedInformerFactory`](crate::dynamic::DynamicSharedInformerFactory), but lists and
/// watches ask the server for `PartialObjectMetadata` and the caches hold only metadata.
///
/// ```no_run
/// # use std::time::Duration;
/// # use kube::core::GroupVersionResource;
/// # use kube_informers_runtime::dynamic::MetadataSharedInformerFactory;
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// let factory = MetadataSharedInformerFactory::new(client, Duration::ZERO);
/// let pods = factory.for_resource(&GroupVersionResource::gvr("", "v1", "pods"));
/// factory.start();
/// factory.wait_for_cache_sync().await;
/// let owners = pods.lister().get("kube-system/coredns-0").and_then(|pod| pod.metadata.owner_references.clone());
/// # let _ = owners;
/// factory.shutdown().await;
/// # }
/// ```
pub type MetadataSharedInformerFactory = GenericInformerFactory<MetadataObject>;

/// Builds a [`MetadataSharedInformerFactory`].
pub type MetadataSharedInformerFactoryBuilder = DynamicFactoryBuilder<MetadataObject>;

fn metadata_lister_watcher(
    api: Api<DynamicObject>,
    tweak: Option<TweakListParams>,
) -> Arc<dyn ListerWatcher<MetadataObject>> {
    let lister_watcher = MetadataListerWatcher::new(api);
    Arc::new(match tweak {
        Some(tweak) => lister_watcher.with_tweak(tweak),
        None => lister_watcher,
    })
}

impl GenericInformerFactory<MetadataObject> {
    /// A factory over all namespaces whose handlers resync every `default_resync` (zero:
    /// never) (client-go's `metadatainformer.NewSharedInformerFactory`).
    pub fn new(client: Client, default_resync: Duration) -> Self {
        Self::builder(client).default_resync(default_resync).build()
    }

    /// A factory limited to `namespace` (`None`: all) whose lists and watches go through
    /// `tweak` (client-go's `metadatainformer.NewFilteredSharedInformerFactory`).
    pub fn filtered(
        client: Client,
        default_resync: Duration,
        namespace: Option<String>,
        tweak: Option<TweakListParams>,
    ) -> Self {
        Self::builder(client).default_resync(default_resync).filter(namespace, tweak).build()
    }

    /// A builder for a factory with more options (a transform, reflector settings).
    pub fn builder(client: Client) -> MetadataSharedInformerFactoryBuilder {
        DynamicFactoryBuilder::generic(client, metadata_lister_watcher)
    }
}
