//! Metadata-only informers of any resource (client-go's `metadatainformer`): the cache
//! holds `PartialObjectMetadata`, a fraction of the memory of whole objects.

use std::sync::Arc;

use kube::Api;
use kube::core::{DynamicObject, PartialObjectMeta};

use super::generic::{GenericInformerFactory, GenericObject, generic_object};
use super::generic_builder::DynamicFactoryBuilder;
use crate::listwatch::MetadataListerWatcher;
use crate::listwatch::{ListerWatcher, TweakListParams, tweaked};

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

generic_object!(MetadataObject, MetadataListerWatcher);
