//! Listers over a dynamic informer's cache (client-go's `dynamiclister`).

use std::fmt::{self, Debug};
use std::sync::Arc;

use kube::Resource;
use kube::core::{DynamicObject, GroupVersionResource, Selector};

use super::typed::{Lister, NamespaceLister};
use crate::store::Indexer;

/// A cache that hands out its objects as `K` only on read, such as a typed informer's
/// cache seen as [`DynamicObject`]s through
/// [`ErasedInformer::lister`](crate::ErasedInformer::lister).
///
/// It lets one lister type serve both dynamic informers, which store `K` itself, and
/// erased typed informers, which store another type and convert what is read.
pub(crate) trait ObjectView<K>: Send + Sync {
    /// The objects of `namespace` (`""`: every namespace) whose labels match `selector`.
    fn list(&self, namespace: &str, selector: &Selector) -> Vec<Arc<K>>;
    /// The object stored under `key` (`namespace/name`, or `name`).
    fn get(&self, key: &str) -> Option<Arc<K>>;
}

/// Where a [`GenericLister`] reads: a cache of `K`, or a view converting another type.
enum Source<K> {
    Cache(Lister<K>),
    View(Arc<dyn ObjectView<K>>),
}

impl<K> Clone for Source<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Cache(lister) => Self::Cache(lister.clone()),
            Self::View(view) => Self::View(Arc::clone(view)),
        }
    }
}

/// Where a [`GenericNamespaceLister`] reads, with its namespace.
enum NamespaceSource<K> {
    Cache(NamespaceLister<K>),
    View(Arc<dyn ObjectView<K>>, String),
}

impl<K> Clone for NamespaceSource<K> {
    fn clone(&self) -> Self {
        match self {
            Self::Cache(lister) => Self::Cache(lister.clone()),
            Self::View(view, namespace) => Self::View(Arc::clone(view), namespace.clone()),
        }
    }
}

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
    source: Source<K>,
    gvr: GroupVersionResource,
}

impl<K> Clone for GenericLister<K> {
    fn clone(&self) -> Self {
        Self { source: self.source.clone(), gvr: self.gvr.clone() }
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
        Self { source: Source::Cache(Lister::new(indexer)), gvr }
    }

    /// A lister reading `view`, which converts another cache's objects to `K` on read.
    pub(crate) fn from_view(view: Arc<dyn ObjectView<K>>, gvr: GroupVersionResource) -> Self {
        Self { source: Source::View(view), gvr }
    }

    /// The resource this lister reads.
    pub fn gvr(&self) -> &GroupVersionResource {
        &self.gvr
    }

    /// Every object, in any namespace, whose labels match `selector`.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        match &self.source {
            Source::Cache(lister) => lister.list(selector),
            Source::View(view) => view.list("", selector),
        }
    }

    /// The object stored under `key`: its name for a cluster-scoped resource,
    /// `namespace/name` for a namespaced one.
    pub fn get(&self, key: &str) -> Option<Arc<K>> {
        match &self.source {
            Source::Cache(lister) => lister.get(key),
            Source::View(view) => view.get(key),
        }
    }

    /// A lister for one namespace (client-go's `Namespace`); `""` means all namespaces.
    pub fn by_namespace(&self, namespace: &str) -> GenericNamespaceLister<K> {
        let source = match &self.source {
            Source::Cache(lister) => NamespaceSource::Cache(lister.namespaced(namespace)),
            Source::View(view) => NamespaceSource::View(Arc::clone(view), namespace.to_owned()),
        };
        GenericNamespaceLister { source, gvr: self.gvr.clone() }
    }
}

/// Lists and gets the objects of one GroupVersionResource in one namespace (client-go's
/// `dynamiclister.NamespaceLister`). Listing reads the namespace index.
pub struct GenericNamespaceLister<K = DynamicObject> {
    source: NamespaceSource<K>,
    gvr: GroupVersionResource,
}

impl<K> Clone for GenericNamespaceLister<K> {
    fn clone(&self) -> Self {
        Self { source: self.source.clone(), gvr: self.gvr.clone() }
    }
}

impl<K: Resource> Debug for GenericNamespaceLister<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericNamespaceLister")
            .field("gvr", &self.gvr)
            .field("namespace", &self.namespace())
            .finish_non_exhaustive()
    }
}

impl<K: Resource> GenericNamespaceLister<K> {
    /// The namespace this lister reads (`""`: all).
    pub fn namespace(&self) -> &str {
        match &self.source {
            NamespaceSource::Cache(lister) => lister.namespace(),
            NamespaceSource::View(_, namespace) => namespace,
        }
    }

    /// The objects of this namespace whose labels match `selector`.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        match &self.source {
            NamespaceSource::Cache(lister) => lister.list(selector),
            NamespaceSource::View(view, namespace) => view.list(namespace, selector),
        }
    }

    /// The object `name` of this namespace (key `namespace/name`).
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        match &self.source {
            NamespaceSource::Cache(lister) => lister.get(name),
            NamespaceSource::View(view, namespace) if namespace.is_empty() => view.get(name),
            NamespaceSource::View(view, namespace) => view.get(&format!("{namespace}/{name}")),
        }
    }
}
