/// The shared informer and lister of `MyPod` (kind `Pod` of `v1`, resource `pods`) in a shared informer factory.
///
/// Every `MyPodInformer` of one factory shares the factory's single `MyPod` informer: one watch and one cache.
#[derive(::core::clone::Clone)]
#[allow(dead_code)]
pub struct MyPodInformer {
    factory: ::kube_informers::__private::SharedInformerFactory,
}
impl ::core::fmt::Debug for MyPodInformer {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.debug_struct(::core::stringify!(MyPodInformer)).finish_non_exhaustive()
    }
}
#[allow(dead_code)]
impl MyPodInformer {
    /// Access to the `MyPod` informer of `factory`; the informer is created on first use.
    pub fn new(factory: &::kube_informers::__private::SharedInformerFactory) -> Self {
        Self {
            factory: ::core::clone::Clone::clone(factory),
        }
    }
    /// The factory's shared informer for `MyPod`, registered on first use so that the factory's next `start` runs it (client-go's `Informer()`).
    pub fn informer(&self) -> ::kube_informers::__private::SharedIndexInformer<MyPod> {
        self.factory.informer_for::<MyPod>()
    }
    /// A lister over the shared `MyPod` informer's cache (client-go's `Lister()`).
    pub fn lister(&self) -> MyPodLister {
        MyPodLister::new(self.informer().get_indexer())
    }
    /// A `MyPod` informer of its own, outside any factory (client-go's `NewFilteredMyPodInformer`); `namespace` is ignored for cluster-scoped kinds.
    ///
    /// Prefer `informer()`: each informer made here opens its own watch and keeps its own cache.
    pub fn new_filtered(
        client: ::kube_informers::__private::Client,
        namespace: ::core::option::Option<&str>,
        resync: ::kube_informers::__private::Duration,
        indexers: ::kube_informers::__private::Indexers<MyPod>,
        tweak: ::core::option::Option<::kube_informers::__private::TweakListParams>,
    ) -> ::kube_informers::__private::SharedIndexInformer<MyPod> {
        ::kube_informers::__private::new_filtered_informer::<
            MyPod,
        >(client, namespace, resync, indexers, tweak)
    }
}
/// Lists and gets `MyPod` objects from an informer's cache.
#[derive(::core::clone::Clone, ::core::fmt::Debug)]
#[allow(dead_code)]
pub struct MyPodLister {
    inner: ::kube_informers::__private::Lister<MyPod>,
}
#[allow(dead_code)]
impl MyPodLister {
    /// A lister over `indexer`, the cache of a `MyPod` informer.
    pub fn new(indexer: ::kube_informers::__private::Indexer<MyPod>) -> Self {
        Self {
            inner: ::kube_informers::__private::Lister::new(indexer),
        }
    }
    /// Every `MyPod` in the cache, in any namespace, whose labels match `selector`; an empty selector matches all.
    pub fn list(
        &self,
        selector: &::kube_informers::__private::Selector,
    ) -> ::std::vec::Vec<::kube_informers::__private::Arc<MyPod>> {
        self.inner.list(selector)
    }
    /// A lister for the `MyPod` objects of `namespace` (`""`: all).
    pub fn pods(&self, namespace: &str) -> MyPodNamespaceLister {
        MyPodNamespaceLister {
            inner: self.inner.namespaced(namespace),
        }
    }
}
/// Lists and gets `MyPod` objects of one namespace.
#[derive(::core::clone::Clone, ::core::fmt::Debug)]
#[allow(dead_code)]
pub struct MyPodNamespaceLister {
    inner: ::kube_informers::__private::NamespaceLister<MyPod>,
}
#[allow(dead_code)]
impl MyPodNamespaceLister {
    /// The `MyPod` objects of this namespace whose labels match `selector`.
    pub fn list(
        &self,
        selector: &::kube_informers::__private::Selector,
    ) -> ::std::vec::Vec<::kube_informers::__private::Arc<MyPod>> {
        self.inner.list(selector)
    }
    /// The `MyPod` named `name` in this namespace, if cached.
    pub fn get(
        &self,
        name: &str,
    ) -> ::core::option::Option<::kube_informers::__private::Arc<MyPod>> {
        self.inner.get(name)
    }
}
const _: () = {
    fn scope_is_namespaced<
        K: ::kube_informers::__private::Resource<
                Scope = ::kube_informers::__private::NamespaceResourceScope,
            >,
    >() {}
    let _ = scope_is_namespaced::<MyPod>;
};
