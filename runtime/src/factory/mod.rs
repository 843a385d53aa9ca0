//! Shared informer factories: one informer per resource, shared by every caller, started,
//! synced and shut down together (client-go's `informers/factory.go`, `dynamicinformer` and
//! `metadatainformer`).
//!
//! One core (`core`) owns the informers, their tasks and cancellation, and implements start,
//! wait-for-sync, removal and shutdown; one builder (`builder`) takes the options every
//! factory has. The front-ends choose only how informers are found and made:
//! - `typed`: [`TypedInformerFactory`], one informer per Rust type (`informer_for::<K>()`),
//!   held as [`ErasedInformer`]s;
//! - `generic`: [`GenericInformerFactory`], one [`GenericInformer`] per GroupVersionResource,
//!   with `dynamic` ([`DynamicSharedInformerFactory`], whole objects) and `metadata`
//!   ([`MetadataSharedInformerFactory`], `PartialObjectMetadata`) choosing the
//!   lister-watcher.

mod api_resource;
mod builder;
mod core;
mod dynamic;
mod erased;
mod error;
mod generic;
mod generic_builder;
mod generic_informer;
mod informer_factory;
mod metadata;
mod options;
mod typed;
mod typed_builder;

pub use builder::FactoryBuilder;
pub use dynamic::{DynamicSharedInformerFactory, DynamicSharedInformerFactoryBuilder};
pub use erased::ErasedInformer;
pub use error::{DynamicError, Result as DynamicResult};
pub use generic::{Generic, GenericInformerFactory, GenericObject};
pub use generic_builder::DynamicFactoryBuilder;
pub use generic_informer::GenericInformer;
pub use informer_factory::{FrontEnd, InformerFactory};
pub use metadata::{
    MetadataObject, MetadataSharedInformerFactory, MetadataSharedInformerFactoryBuilder,
};
pub use options::{GenericSetup, MetadataTransform, TypedSetup};
pub use typed::{InformerOptions, Typed, TypedInformerFactory, TypedObject, TypedResource, gvr_of};
pub use typed_builder::TypedFactoryBuilder;
