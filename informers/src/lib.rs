//! client-go's informers for Rust: a typed shared informer and lister for every built-in
//! Kubernetes resource that can be listed and watched, generated from k8s-openapi, over the
//! machinery of [`kube_informers_runtime`] (re-exported here).
//!
//! ```no_run
//! use std::sync::Arc;
//!
//! use k8s_openapi::api::apps::v1::Deployment;
//! use kube_informers::{Selector, SharedInformerFactory};
//!
//! # async fn doc(client: kube::Client) {
//! let factory = SharedInformerFactory::builder(client).namespace("prod").build();
//! let deployments = factory.apps().v1().deployments(); // DeploymentInformer
//! factory.start();
//! factory.wait_for_cache_sync().await;
//!
//! let lister = deployments.lister();
//! let web: Option<Arc<Deployment>> = lister.deployments("prod").get("web");
//! let all: Vec<Arc<Deployment>> = lister.list(&Selector::default());
//! # let _ = (web, all);
//! factory.shutdown().await;
//! # }
//! # let _ = doc;
//! ```
//!
//! Every accessor follows client-go's names in snake case: `factory.core().v1().pods()`,
//! `factory.networking().v1().network_policies()`. Each resource has an `XxxInformer`
//! (`informer()`, `lister()`, `new_filtered(..)`), an `XxxLister` and, for namespaced kinds,
//! an `XxxNamespaceLister`, in [`generated`]`::<group>::<version>`.
//! [`SharedInformerFactory::for_resource`] maps a GroupVersionResource to the same shared
//! informer.
//!
//! # Kubernetes versions
//!
//! Like any library over k8s-openapi, this crate picks no Kubernetes version: the final
//! binary enables one of k8s-openapi's version features. Groups, versions and resources
//! that version lacks are absent from the build.
//!
//! # Custom resources
//!
//! `#[derive(Informer)]` (feature `derive`, on by default) gives a CRD the same shape:
//!
//! ```no_run
//! use std::time::Duration;
//! use kube::CustomResource;
//! use kube_informers::{Informer, Selector, SharedInformerFactory};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(CustomResource, Informer, Clone, Debug, Deserialize, Serialize, JsonSchema)]
//! #[kube(group = "example.com", version = "v1", kind = "Foo", namespaced)]
//! pub struct FooSpec {
//!     replicas: u32,
//! }
//!
//! # async fn doc(client: kube::Client) {
//! let factory = SharedInformerFactory::new(client, Duration::ZERO);
//! let foos = FooInformer::new(&factory);
//! let informer = foos.informer(); // the factory's one watch of `Foo`
//! factory.start();
//! factory.wait_for_cache_sync().await;
//! let web: Option<std::sync::Arc<Foo>> = foos.lister().foos("prod").get("web");
//! let all = foos.lister().list(&Selector::default());
//! # let _ = (informer, web, all);
//! # }
//! # let _ = doc;
//! ```
//!
//! # API groups
//!
//! Accessors on [`SharedInformerFactory`], newest Kubernetes version k8s-openapi ships:
//!
#![doc = include_str!("generated/GROUPS.md")]
#![forbid(unsafe_code)]
#![doc(test(attr(deny(warnings))))]

mod typed_factory;
mod unknown_resource;
#[rustfmt::skip]
pub mod generated;

pub use kube::core::{Expression, GroupVersionResource, Selector};
pub use kube_informers_runtime::*;
pub use typed_factory::{SharedInformerFactory, SharedInformerFactoryBuilder};
pub use unknown_resource::UnknownResourceError;

/// `#[derive(Informer)]` for custom resources: `FooInformer`, `FooLister` and
/// `FooNamespaceLister`, shared through the factory like the built-in ones.
#[cfg(feature = "derive")]
pub use kube_informers_macros::Informer;

/// What `#[derive(Informer)]` expands to; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::SharedInformerFactory;
    pub use kube::Client;
    pub use kube::core::{ClusterResourceScope, NamespaceResourceScope, Resource, Selector};
    pub use kube_informers_runtime::lister::{Lister, NamespaceLister};
    pub use kube_informers_runtime::store::{Indexer, Indexers};
    pub use kube_informers_runtime::{SharedIndexInformer, TweakListParams, new_filtered_informer};
    pub use std::sync::Arc;
    pub use std::time::Duration;
}
