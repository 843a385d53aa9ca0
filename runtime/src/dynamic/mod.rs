//! Informers and listers for any GroupVersionResource, known only at run time (client-go's
//! `dynamicinformer`, `dynamiclister` and `metadatainformer`).
//!
//! - [`DynamicSharedInformerFactory`] caches whole objects as [`DynamicObject`](kube::core::DynamicObject).
//! - [`MetadataSharedInformerFactory`] caches only their metadata ([`MetadataObject`]),
//!   listing and watching through the API server's `PartialObjectMetadata` endpoints.
//!
//! Both are the same [`GenericInformerFactory`], the dynamic front-end of the one factory
//! core in `factory/` (this module only gathers their public paths): `for_resource(&gvr)` hands out one
//! [`GenericInformer`] per resource (one watch however many callers), `start`,
//! `wait_for_cache_sync` and `shutdown` behave as on the typed
//! [`TypedInformerFactory`](crate::TypedInformerFactory). Beyond client-go:
//! [`remove`](GenericInformerFactory::remove) stops one informer (say, after its CRD was
//! deleted), the builder takes a transform, and
//! [`for_resource_discovered`](GenericInformerFactory::for_resource_discovered) asks
//! discovery for the kind and scope. Without discovery, URLs are built from the GVR alone.

pub use crate::factory::DynamicResult as Result;
pub use crate::factory::{
    DynamicError, DynamicFactoryBuilder, DynamicSharedInformerFactory,
    DynamicSharedInformerFactoryBuilder, GenericInformer, GenericInformerFactory, GenericSetup,
    MetadataObject, MetadataSharedInformerFactory, MetadataSharedInformerFactoryBuilder,
};
pub use crate::lister::{GenericLister, GenericNamespaceLister};
pub use crate::listwatch::MetadataListerWatcher;
