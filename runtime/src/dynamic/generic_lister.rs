//! Listers over a dynamic informer's cache (client-go's `dynamiclister`).

use std::fmt::{self, Debug};
use std::sync::Arc;

use kube::Resource;
use kube::core::{DynamicObject, GroupVersionResource, Selector};

use crate::lister::{Lister, NamespaceLister};
use crate::store::Indexer;

/// Lists and gets the objects of one GroupVersionResource (client-go's
/// `dynamiclister.Lister`).
///
/// Objects are stored under `namespace/name`, or `name` for cluster-scoped resources:
/// [`get`](Self::get) takes such a key, so `get("web")` finds a cluster-scoped object and
/// `get("prod/web")` a namespaced one, as client-go's `Get` does.
///
/// ```
/// use std::sync::Arc;
/// use kube::core::{ApiResource, DynamicObject, GroupVersionKind, GroupVersionResource, Selector};
/// use kube_informers_runtime::dynamic::GenericLister;
/// use kube_informers_runtime::store::{namespace_indexers, Indexer};
///
/// let ar = ApiResource::from_gvk(&GroupVersionKind::gvk("example.com", "v1", "Widget"));
/// let indexer = Indexer::new(namespace_indexers::<DynamicObject>());
/// indexer.add(Arc::new(DynamicObject::new("w1", &ar).within("prod")))?;
/// let lister = GenericLister::new(indexer, GroupVersionResource::gvr("example.com", "v1", "widgets"));
/// assert!(lister.get("prod/w1").is_some());
/// assert!(lister.by_namespace("prod").get("w1").is_some());
/// assert_eq!(lister.list(&Selector::default()).len(), 1);
/// # Ok::<(), kube_informers_runtime::store::StoreError>(())
/// ```
pub struct GenericLister<K = DynamicObject> {
    lister: Lister<K>,
    gvr: GroupVersionResource,
}

impl<K> Clone for GenericLister<K> {
    fn clone(&self) -> Self {
        Self { lister: self.lister.clone(), gvr: self.gvr.clone() }
    }
}

impl<K> Debug for GenericLister<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericLister").field("gvr", &self.gvr).finish_non_exhaustive()
    }
}

impl<K: Resource> GenericLister<K> {
    /// A lister over `indexer`, which holds objects of `gvr` (client-go's
    /// `dynamiclister.New`).
    pub fn new(indexer: Indexer<K>, gvr: GroupVersionResource) -> Self {
        Self { lister: Lister::new(indexer), gvr }
    }

    /// The resource this lister reads.
    pub fn gvr(&self) -> &GroupVersionResource {
        &self.gvr
    }

    /// Every object, in any namespace, whose labels match `selector`.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.lister.list(selector)
    }

    /// The object stored under `key`: its name for a cluster-scoped resource,
    /// `namespace/name` for a namespaced one.
    pub fn get(&self, key: &str) -> Option<Arc<K>> {
        self.lister.get(key)
    }

    /// A lister for one namespace (client-go's `Namespace`); `""` means all namespaces.
    pub fn by_namespace(&self, namespace: &str) -> GenericNamespaceLister<K> {
        GenericNamespaceLister { lister: self.lister.namespaced(namespace), gvr: self.gvr.clone() }
    }
}

/// Lists and gets the objects of one GroupVersionResource in one namespace (client-go's
/// `dynamiclister.NamespaceLister`). Listing reads the namespace index.
pub struct GenericNamespaceLister<K = DynamicObject> {
    lister: NamespaceLister<K>,
    gvr: GroupVersionResource,
}

impl<K> Clone for GenericNamespaceLister<K> {
    fn clone(&self) -> Self {
        Self { lister: self.lister.clone(), gvr: self.gvr.clone() }
    }
}

impl<K: Resource> Debug for GenericNamespaceLister<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericNamespaceLister")
            .field("gvr", &self.gvr)
            .field("namespace", &self.lister.namespace())
            .finish_non_exhaustive()
    }
}

impl<K: Resource> GenericNamespaceLister<K> {
    /// The namespace this lister reads (`""`: all).
    pub fn namespace(&self) -> &str {
        self.lister.namespace()
    }

    /// The objects of this namespace whose labels match `selector`.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.lister.list(selector)
    }

    /// The object `name` of this namespace (key `namespace/name`).
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        self.lister.get(name)
    }
}
