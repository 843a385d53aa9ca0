//! Informers of whole objects of any resource, as [`DynamicObject`] (client-go's
//! `dynamicinformer`).

use std::sync::Arc;

use kube::Api;
use kube::core::DynamicObject;

use super::generic::{GenericInformerFactory, GenericObject, generic_object};
use super::generic_builder::DynamicFactoryBuilder;
use crate::listwatch::{ApiListerWatcher, ListerWatcher, TweakListParams, tweaked};

/// Shared informers of whole objects for any GroupVersionResource (client-go's
/// `DynamicSharedInformerFactory`).
///
/// ```no_run
/// # use std::time::Duration;
/// # use kube::core::{GroupVersionResource, Selector};
/// # use kube_informers_runtime::dynamic::DynamicSharedInformerFactory;
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// let factory = DynamicSharedInformerFactory::new(client, Duration::ZERO);
/// let widgets = factory.for_resource(&GroupVersionResource::gvr("example.com", "v1", "widgets"));
/// factory.start();
/// let synced = factory.wait_for_cache_sync().await;
/// assert!(synced.values().all(|ok| *ok));
/// let in_prod = widgets.lister().by_namespace("prod").list(&Selector::default());
/// # let _ = in_prod;
/// factory.shutdown().await;
/// # }
/// ```
pub type DynamicSharedInformerFactory = GenericInformerFactory<DynamicObject>;

/// Builds a [`DynamicSharedInformerFactory`].
pub type DynamicSharedInformerFactoryBuilder = DynamicFactoryBuilder<DynamicObject>;

generic_object!(DynamicObject, ApiListerWatcher);
