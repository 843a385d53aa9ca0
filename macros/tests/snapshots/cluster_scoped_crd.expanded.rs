/// The shared informer and lister of `Policy` (kind `ClusterPolicy` of `example.com/v1alpha1`, resource `clusterpolicies`) in a shared informer factory.
///
/// Every `PolicyInformer` of one factory shares the factory's single `Policy` informer: one watch and one cache.
#[derive(::core::clone::Clone)]
#[allow(dead_code)]
pub(crate) struct PolicyInformer {
    factory: ::kube_informers::__private::SharedInformerFactory,
}
impl ::core::fmt::Debug for PolicyInformer {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.debug_struct(::core::stringify!(PolicyInformer)).finish_non_exhaustive()
    }
}
#[allow(dead_code)]
impl PolicyInformer {
    /// Access to the `Policy` informer of `factory`; the informer is created on first use.
    pub(crate) fn new(
        factory: &::kube_informers::__private::SharedInformerFactory,
    ) -> Self {
        Self {
            factory: ::core::clone::Clone::clone(factory),
        }
    }
    /// The factory's shared informer for `Policy`, registered on first use so that the factory's next `start` runs it (client-go's `Informer()`).
    pub(crate) fn informer(
        &self,
    ) -> ::kube_informers::__private::SharedIndexInformer<Policy> {
        self.factory.informer_for::<Policy>()
    }
    /// A lister over the shared `Policy` informer's cache (client-go's `Lister()`).
    pub(crate) fn lister(&self) -> PolicyLister {
        PolicyLister::new(self.informer().get_indexer())
    }
    /// A `Policy` informer of its own, outside any factory (client-go's `NewFilteredPolicyInformer`); `namespace` is ignored for cluster-scoped kinds.
    ///
    /// Prefer `informer()`: each informer made here opens its own watch and keeps its own cache.
    pub(crate) fn new_filtered(
        client: ::kube_informers::__private::Client,
        namespace: ::core::option::Option<&str>,
        resync: ::kube_informers::__private::Duration,
        indexers: ::kube_informers::__private::Indexers<Policy>,
        tweak: ::core::option::Option<::kube_informers::__private::TweakListParams>,
    ) -> ::kube_informers::__private::SharedIndexInformer<Policy> {
        ::kube_informers::__private::new_filtered_informer::<
            Policy,
        >(client, namespace, resync, indexers, tweak)
    }
}
/// Lists and gets `Policy` objects from an informer's cache.
#[derive(::core::clone::Clone, ::core::fmt::Debug)]
#[allow(dead_code)]
pub(crate) struct PolicyLister {
    inner: ::kube_informers::__private::Lister<Policy>,
}
#[allow(dead_code)]
impl PolicyLister {
    /// A lister over `indexer`, the cache of a `Policy` informer.
    pub(crate) fn new(indexer: ::kube_informers::__private::Indexer<Policy>) -> Self {
        Self {
            inner: ::kube_informers::__private::Lister::new(indexer),
        }
    }
    /// Every `Policy` in the cache, in any namespace, whose labels match `selector`; an empty selector matches all.
    pub(crate) fn list(
        &self,
        selector: &::kube_informers::__private::Selector,
    ) -> ::std::vec::Vec<::kube_informers::__private::Arc<Policy>> {
        self.inner.list(selector)
    }
    /// The `Policy` named `name`, if cached.
    pub(crate) fn get(
        &self,
        name: &str,
    ) -> ::core::option::Option<::kube_informers::__private::Arc<Policy>> {
        self.inner.get(name)
    }
}
const _: () = {
    fn scope_is_cluster<
        K: ::kube_informers::__private::Resource<
                Scope = ::kube_informers::__private::ClusterResourceScope,
            >,
    >() {}
    let _ = scope_is_cluster::<Policy>;
};
