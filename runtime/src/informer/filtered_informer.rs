//! Building an informer for one resource type without a factory
//! (client-go's generated `NewFilteredXxxInformer`).

use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use kube::core::{ClusterResourceScope, DynamicResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};
use serde::de::DeserializeOwned;

use super::shared_informer::SharedIndexInformer;
use crate::listwatch::{ApiListerWatcher, TweakListParams};
use crate::store::Indexers;

/// How a resource scope builds the [`Api`] an informer lists and watches through.
///
/// Informers of cluster-scoped resources ignore a namespace, as client-go's generated
/// cluster-scoped informers do.
pub trait InformerScope: Sized {
    /// `true` when list and watch URLs can be restricted to one namespace.
    const NAMESPACED: bool;

    /// An `Api` for `K` in `namespace` (all namespaces for `None`, and always for
    /// cluster-scoped resources).
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>;
}

impl InformerScope for NamespaceResourceScope {
    const NAMESPACED: bool = true;

    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        match namespace {
            Some(namespace) => Api::namespaced(client, namespace),
            None => Api::all(client),
        }
    }
}

impl InformerScope for ClusterResourceScope {
    const NAMESPACED: bool = false;

    fn api<K>(client: Client, _namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        Api::all(client)
    }
}

impl InformerScope for DynamicResourceScope {
    const NAMESPACED: bool = true;

    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        match namespace {
            Some(namespace) => Api::namespaced_with(client, namespace, &()),
            None => Api::all(client),
        }
    }
}

/// An informer for `K` restricted to `namespace` (all namespaces when `None`, or when `K`
/// is cluster-scoped), with list parameters adjusted by `tweak`.
///
/// Prefer a factory's shared informer: each informer made here opens its own watch and
/// holds its own cache.
pub fn new_filtered_informer<K>(
    client: Client,
    namespace: Option<&str>,
    resync: Duration,
    indexers: Indexers<K>,
    tweak: Option<TweakListParams>,
) -> SharedIndexInformer<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: InformerScope,
{
    let lister_watcher = filtered_lister_watcher::<K>(client, namespace, tweak);
    SharedIndexInformer::new(Arc::new(lister_watcher), resync, indexers)
}

/// The lister-watcher [`new_filtered_informer`] lists and watches through: `K`'s `Api` in
/// `namespace`, with `tweak` applied.
pub(crate) fn filtered_lister_watcher<K>(
    client: Client,
    namespace: Option<&str>,
    tweak: Option<TweakListParams>,
) -> ApiListerWatcher<K>
where
    K: Resource<DynamicType = ()>,
    K::Scope: InformerScope,
{
    let lister_watcher = ApiListerWatcher::new(K::Scope::api::<K>(client, namespace));
    match tweak {
        Some(tweak) => lister_watcher.with_tweak(tweak),
        None => lister_watcher,
    }
}
