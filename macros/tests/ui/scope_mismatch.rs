// A hand-written root type whose `Resource::Scope` disagrees with the declared scope fails
// to compile at the declared scope, rather than giving a lister whose lookups miss.
//
// The UI tests cannot depend on kube-informers, so `crate = "..."` points the derive at
// `fake`, which stands in for the few items the generated code names. That also shows the
// generated code names nothing else: a path to `::kube_informers` would fail here too.

use kube_informers_macros::Informer;

mod fake {
    pub mod __private {
        pub use std::sync::Arc;
        pub use std::time::Duration;

        pub trait Resource {
            type Scope;
        }
        pub struct NamespaceResourceScope;
        pub struct ClusterResourceScope;
        pub struct Client;
        pub struct Selector;
        pub struct TweakListParams;
        pub struct Indexers<K>(Vec<K>);
        #[derive(Clone, Debug)]
        pub struct Indexer<K>(Vec<K>);
        #[derive(Clone, Debug)]
        pub struct Lister<K>(Vec<K>);
        #[derive(Clone, Debug)]
        pub struct NamespaceLister<K>(Vec<K>);
        pub struct SharedIndexInformer<K>(Vec<K>);
        #[derive(Clone)]
        pub struct SharedInformerFactory;

        impl SharedInformerFactory {
            pub fn informer_for<K>(&self) -> SharedIndexInformer<K> {
                SharedIndexInformer(Vec::new())
            }
        }
        impl<K> SharedIndexInformer<K> {
            pub fn get_indexer(&self) -> Indexer<K> {
                Indexer(Vec::new())
            }
        }
        impl<K> Lister<K> {
            pub fn new(_: Indexer<K>) -> Self {
                Lister(Vec::new())
            }
            pub fn list(&self, _: &Selector) -> Vec<Arc<K>> {
                Vec::new()
            }
            pub fn get(&self, _: &str) -> Option<Arc<K>> {
                None
            }
            pub fn namespaced(&self, _: &str) -> NamespaceLister<K> {
                NamespaceLister(Vec::new())
            }
        }
        impl<K> NamespaceLister<K> {
            pub fn list(&self, _: &Selector) -> Vec<Arc<K>> {
                Vec::new()
            }
            pub fn get(&self, _: &str) -> Option<Arc<K>> {
                None
            }
        }
        pub fn new_filtered_informer<K>(
            _: Client,
            _: Option<&str>,
            _: Duration,
            _: Indexers<K>,
            _: Option<TweakListParams>,
        ) -> SharedIndexInformer<K> {
            SharedIndexInformer(Vec::new())
        }
    }
}

use fake::__private::{ClusterResourceScope, NamespaceResourceScope, Resource};

// Declared and real scopes agree: no error.
#[derive(Informer, Clone, Debug)]
#[informer(crate = "crate::fake", group = "", version = "v1", kind = "Pod", namespaced)]
pub struct MyPod {}
impl Resource for MyPod {
    type Scope = NamespaceResourceScope;
}

// Declared namespaced, really cluster-scoped.
#[derive(Informer, Clone, Debug)]
#[informer(crate = "crate::fake", group = "", version = "v1", kind = "Node", namespaced)]
pub struct MyNode {}
impl Resource for MyNode {
    type Scope = ClusterResourceScope;
}

// Declared cluster-scoped, really namespaced.
#[derive(Informer, Clone, Debug)]
#[informer(crate = "crate::fake", group = "", version = "v1", kind = "Secret")]
pub struct MySecret {}
impl Resource for MySecret {
    type Scope = NamespaceResourceScope;
}

fn main() {}
