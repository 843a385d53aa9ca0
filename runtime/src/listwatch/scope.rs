//! Which URLs a typed lister-watcher uses: one namespace or all for namespaced resources,
//! always all for cluster-scoped ones (client-go's generated per-scope informers).

use kube::core::{ClusterResourceScope, DynamicResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};

use super::api::ApiListerWatcher;
use super::lister_watcher::{TweakListParams, tweaked};

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

/// The lister-watcher of a typed informer: `K`'s `Api` in `namespace` (ignored for
/// cluster-scoped `K`), with `tweak` applied (client-go's generated
/// `NewFilteredXxxInformer` list and watch functions).
pub(crate) fn filtered_lister_watcher<K>(
    client: Client,
    namespace: Option<&str>,
    tweak: Option<TweakListParams>,
) -> ApiListerWatcher<K>
where
    K: Resource<DynamicType = ()>,
    K::Scope: InformerScope,
{
    tweaked(
        ApiListerWatcher::new(K::Scope::api::<K>(client, namespace)),
        tweak,
        ApiListerWatcher::with_tweak,
    )
}
