//! Generic listers: read-only, label-selecting views of an [`Indexer`] (client-go
//! `tools/cache/listers.go` and the generated `XxxLister`/`XxxNamespaceLister`).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use kube::Resource;
use kube::core::{Selector, SelectorExt};

use crate::store::{Indexer, NAMESPACE_INDEX};

static NO_LABELS: BTreeMap<String, String> = BTreeMap::new();

fn matches<K: Resource>(selector: &Selector, obj: &K) -> bool {
    selector.selects_all() || selector.matches(obj.meta().labels.as_ref().unwrap_or(&NO_LABELS))
}

/// Lists and gets objects of one kind from an informer's [`Indexer`], typed or
/// [compact](Indexer::compact) (which decodes what it returns, after releasing the
/// store's lock).
///
/// ```
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::ConfigMap;
/// use kube::api::ObjectMeta;
/// use kube::core::Selector;
/// use kube_informers_runtime::lister::Lister;
/// use kube_informers_runtime::store::{namespace_indexers, Indexer};
///
/// let indexer = Indexer::new(namespace_indexers::<ConfigMap>());
/// indexer.add(Arc::new(ConfigMap {
///     metadata: ObjectMeta {
///         name: Some("cfg".into()),
///         namespace: Some("prod".into()),
///         labels: Some([("app".to_string(), "web".to_string())].into()),
///         ..Default::default()
///     },
///     ..Default::default()
/// }))?;
/// let lister = Lister::new(indexer);
/// let web: Selector = [("app", "web")].into_iter().collect();
/// assert_eq!(lister.list(&web).len(), 1);
/// assert!(lister.namespaced("prod").get("cfg").is_some());
/// assert!(lister.namespaced("dev").list(&Selector::default()).is_empty());
/// # Ok::<(), kube_informers_runtime::store::StoreError>(())
/// ```
pub struct Lister<K> {
    indexer: Indexer<K>,
}

impl<K> Clone for Lister<K> {
    fn clone(&self) -> Self {
        Self { indexer: self.indexer.clone() }
    }
}

impl<K> fmt::Debug for Lister<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lister").finish_non_exhaustive()
    }
}

impl<K: Resource> Lister<K> {
    /// A lister over `indexer`.
    pub fn new(indexer: Indexer<K>) -> Self {
        Self { indexer }
    }

    /// The indexer this lister reads.
    pub fn indexer(&self) -> &Indexer<K> {
        &self.indexer
    }

    /// Every object, in any namespace, whose labels match `selector` (client-go
    /// `ListAll`). An empty selector matches everything.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.indexer.select_all(Some(selector), &|obj| matches(selector, obj))
    }

    /// The object stored under key `name`: for cluster-scoped kinds, its name.
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        self.indexer.get_by_key(name)
    }

    /// A lister for one namespace. `""` means all namespaces, as client-go's
    /// `NamespaceAll`.
    pub fn namespaced(&self, namespace: &str) -> NamespaceLister<K> {
        NamespaceLister { indexer: self.indexer.clone(), namespace: namespace.to_owned() }
    }
}

/// Lists and gets objects of one namespace (client-go `XxxNamespaceLister`).
pub struct NamespaceLister<K> {
    indexer: Indexer<K>,
    namespace: String,
}

impl<K> Clone for NamespaceLister<K> {
    fn clone(&self) -> Self {
        Self { indexer: self.indexer.clone(), namespace: self.namespace.clone() }
    }
}

impl<K> fmt::Debug for NamespaceLister<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NamespaceLister")
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

impl<K: Resource> NamespaceLister<K> {
    /// The namespace this lister reads (`""`: all).
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    /// The objects of this namespace whose labels match `selector` (client-go
    /// `ListAllByNamespace`): read from the [`NAMESPACE_INDEX`] when the indexer has it,
    /// by a scan otherwise.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        list_namespace(&self.indexer, &self.namespace, selector)
    }

    /// The object `name` in this namespace.
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        if self.namespace.is_empty() {
            return self.indexer.get_by_key(name);
        }
        let mut key = String::with_capacity(self.namespace.len() + 1 + name.len());
        key.push_str(&self.namespace);
        key.push('/');
        key.push_str(name);
        self.indexer.get_by_key(&key)
    }
}

fn list_namespace<K: Resource>(
    indexer: &Indexer<K>,
    namespace: &str,
    selector: &Selector,
) -> Vec<Arc<K>> {
    let selected = |obj: &K| matches(selector, obj);
    // A compact store checks labels before decoding; the typed one leaves it to `selected`.
    let labels = Some(selector);
    if namespace.is_empty() {
        return indexer.select_all(labels, &selected);
    }
    match indexer.select_by_index(NAMESPACE_INDEX, namespace, labels, &selected) {
        Ok(objects) => objects,
        // No namespace index: scan, as client-go does.
        Err(_) => indexer.select_all(labels, &|obj| {
            obj.meta().namespace.as_deref() == Some(namespace) && selected(obj)
        }),
    }
}
