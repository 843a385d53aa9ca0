/// The shared informer and lister of `CronTab` (kind `CronTab` of `example.com/v1`, resource `crontabs`) in a shared informer factory.
///
/// Every `CronTabInformer` of one factory shares the factory's single `CronTab` informer: one watch and one cache.
#[derive(::core::clone::Clone)]
#[allow(dead_code)]
pub struct CronTabInformer {
    factory: ::kube_informers::__private::SharedInformerFactory,
}
impl ::core::fmt::Debug for CronTabInformer {
    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
        f.debug_struct(::core::stringify!(CronTabInformer)).finish_non_exhaustive()
    }
}
#[allow(dead_code)]
impl CronTabInformer {
    /// Access to the `CronTab` informer of `factory`; the informer is created on first use.
    pub fn new(factory: &::kube_informers::__private::SharedInformerFactory) -> Self {
        Self {
            factory: ::core::clone::Clone::clone(factory),
        }
    }
    /// The factory's shared informer for `CronTab`, registered on first use so that the factory's next `start` runs it (client-go's `Informer()`).
    pub fn informer(&self) -> ::kube_informers::__private::SharedIndexInformer<CronTab> {
        self.factory.informer_for::<CronTab>()
    }
    /// A lister over the shared `CronTab` informer's cache (client-go's `Lister()`).
    pub fn lister(&self) -> CronTabLister {
        CronTabLister::new(self.informer().get_indexer())
    }
    /// A `CronTab` informer of its own, outside any factory (client-go's `NewFilteredCronTabInformer`); `namespace` is ignored for cluster-scoped kinds.
    ///
    /// Prefer `informer()`: each informer made here opens its own watch and keeps its own cache.
    pub fn new_filtered(
        client: ::kube_informers::__private::Client,
        namespace: ::core::option::Option<&str>,
        resync: ::kube_informers::__private::Duration,
        indexers: ::kube_informers::__private::Indexers<CronTab>,
        tweak: ::core::option::Option<::kube_informers::__private::TweakListParams>,
    ) -> ::kube_informers::__private::SharedIndexInformer<CronTab> {
        ::kube_informers::__private::new_filtered_informer::<
            CronTab,
        >(client, namespace, resync, indexers, tweak)
    }
}
/// Lists and gets `CronTab` objects from an informer's cache.
#[derive(::core::clone::Clone, ::core::fmt::Debug)]
#[allow(dead_code)]
pub struct CronTabLister {
    inner: ::kube_informers::__private::Lister<CronTab>,
}
#[allow(dead_code)]
impl CronTabLister {
    /// A lister over `indexer`, the cache of a `CronTab` informer.
    pub fn new(indexer: ::kube_informers::__private::Indexer<CronTab>) -> Self {
        Self {
            inner: ::kube_informers::__private::Lister::new(indexer),
        }
    }
    /// Every `CronTab` in the cache, in any namespace, whose labels match `selector`; an empty selector matches all.
    pub fn list(
        &self,
        selector: &::kube_informers::__private::Selector,
    ) -> ::std::vec::Vec<::kube_informers::__private::Arc<CronTab>> {
        self.inner.list(selector)
    }
    /// A lister for the `CronTab` objects of `namespace` (`""`: all).
    pub fn cron_tabs(&self, namespace: &str) -> CronTabNamespaceLister {
        CronTabNamespaceLister {
            inner: self.inner.namespaced(namespace),
        }
    }
}
/// Lists and gets `CronTab` objects of one namespace.
#[derive(::core::clone::Clone, ::core::fmt::Debug)]
#[allow(dead_code)]
pub struct CronTabNamespaceLister {
    inner: ::kube_informers::__private::NamespaceLister<CronTab>,
}
#[allow(dead_code)]
impl CronTabNamespaceLister {
    /// The `CronTab` objects of this namespace whose labels match `selector`.
    pub fn list(
        &self,
        selector: &::kube_informers::__private::Selector,
    ) -> ::std::vec::Vec<::kube_informers::__private::Arc<CronTab>> {
        self.inner.list(selector)
    }
    /// The `CronTab` named `name` in this namespace, if cached.
    pub fn get(
        &self,
        name: &str,
    ) -> ::core::option::Option<::kube_informers::__private::Arc<CronTab>> {
        self.inner.get(name)
    }
}
const _: () = {
    fn scope_is_namespaced<
        K: ::kube_informers::__private::Resource<
                Scope = ::kube_informers::__private::NamespaceResourceScope,
            >,
    >() {}
    let _ = scope_is_namespaced::<CronTab>;
};
