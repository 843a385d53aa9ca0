//! Informers and listers for any GroupVersionResource, known only at run time (client-go's
//! `dynamicinformer`, `dynamiclister` and `metadatainformer`).
//!
//! - [`DynamicSharedInformerFactory`] caches whole objects as [`DynamicObject`](kube::core::DynamicObject).
//! - [`MetadataSharedInformerFactory`] caches only their metadata ([`MetadataObject`]),
//!   listing and watching through the API server's `PartialObjectMetadata` endpoints.
//!
//! Both are the same [`GenericInformerFactory`]: `for_resource(&gvr)` hands out one
//! [`GenericInformer`] per resource (one watch however many callers), `start`,
//! `wait_for_cache_sync` and `shutdown` behave as on the typed
//! [`SharedInformerFactory`](crate::SharedInformerFactory). Beyond client-go:
//! [`remove`](GenericInformerFactory::remove) stops one informer (say, after its CRD was
//! deleted), the builder takes a transform, and
//! [`for_resource_discovered`](GenericInformerFactory::for_resource_discovered) asks
//! discovery for the kind and scope. Without discovery, URLs are built from the GVR alone.

mod api_resource;
mod builder;
mod dynamic_factory;
mod error;
mod factory;
mod generic_informer;
mod generic_lister;
mod metadata;
mod metadata_lister_watcher;

pub use builder::DynamicFactoryBuilder;
pub use dynamic_factory::{DynamicSharedInformerFactory, DynamicSharedInformerFactoryBuilder};
pub use error::{DynamicError, Result};
pub use factory::GenericInformerFactory;
pub use generic_informer::GenericInformer;
pub(crate) use generic_lister::ObjectView;
pub use generic_lister::{GenericLister, GenericNamespaceLister};
pub use metadata::{
    MetadataObject, MetadataSharedInformerFactory, MetadataSharedInformerFactoryBuilder,
};
pub use metadata_lister_watcher::MetadataListerWatcher;
