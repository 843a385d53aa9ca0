//! One informer of a dynamic factory and its lister (client-go's `dynamicInformer`).

use std::fmt::{self, Debug};

use kube::Resource;
use kube::core::{ApiResource, DynamicObject, GroupVersionResource};

use crate::informer::SharedIndexInformer;
use crate::lister::GenericLister;

/// A shared informer for one GroupVersionResource, and a lister over its cache
/// (client-go's `informers.GenericInformer`).
///
/// `K` is [`DynamicObject`] for a [`DynamicSharedInformerFactory`](crate::dynamic::DynamicSharedInformerFactory)
/// and [`MetadataObject`](crate::dynamic::MetadataObject) for a
/// [`MetadataSharedInformerFactory`](crate::dynamic::MetadataSharedInformerFactory). Cloning is
/// cheap; every clone is the same informer.
pub struct GenericInformer<K = DynamicObject> {
    gvr: GroupVersionResource,
    api_resource: ApiResource,
    informer: SharedIndexInformer<K>,
}

impl<K> Clone for GenericInformer<K> {
    fn clone(&self) -> Self {
        Self {
            gvr: self.gvr.clone(),
            api_resource: self.api_resource.clone(),
            informer: self.informer.clone(),
        }
    }
}

impl<K> Debug for GenericInformer<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericInformer")
            .field("gvr", &self.gvr)
            .field("api_resource", &self.api_resource)
            .finish_non_exhaustive()
    }
}

impl<K> GenericInformer<K>
where
    K: Resource + Clone + Debug + Send + Sync + 'static,
{
    pub(crate) fn new(
        gvr: GroupVersionResource,
        api_resource: ApiResource,
        informer: SharedIndexInformer<K>,
    ) -> Self {
        Self { gvr, api_resource, informer }
    }

    /// The shared informer: add handlers and indexers here.
    pub fn informer(&self) -> SharedIndexInformer<K> {
        self.informer.clone()
    }

    /// A lister over the informer's cache.
    pub fn lister(&self) -> GenericLister<K> {
        GenericLister::new(self.informer.get_indexer(), self.gvr.clone())
    }

    /// The resource this informer watches.
    pub fn gvr(&self) -> &GroupVersionResource {
        &self.gvr
    }

    /// What the informer's URLs are built from: derived from the GVR alone (empty kind),
    /// or filled by discovery.
    pub fn api_resource(&self) -> &ApiResource {
        &self.api_resource
    }
}
