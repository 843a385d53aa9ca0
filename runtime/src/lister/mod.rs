//! Listers: read-only, label-selecting views of an informer's cache (client-go's
//! `tools/cache/listers.go`, the generated `XxxLister`/`XxxNamespaceLister`, and
//! `dynamiclister`).
//!
//! - [`Lister`] and [`NamespaceLister`] read a typed [`Indexer`](crate::store::Indexer).
//! - [`GenericLister`] and [`GenericNamespaceLister`] read the cache of one
//!   GroupVersionResource: a dynamic or metadata informer's, or a typed informer's seen as
//!   [`DynamicObject`](kube::core::DynamicObject)s (`dynamic_view`, behind
//!   [`ErasedInformer::lister`](crate::ErasedInformer::lister)).

mod dynamic_view;
mod generic;
mod typed;

pub(crate) use dynamic_view::DynamicView;
pub(crate) use generic::ObjectView;
pub use generic::{GenericLister, GenericNamespaceLister};
pub use typed::{Lister, NamespaceLister};
