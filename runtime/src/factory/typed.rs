//! The typed front-end of the factory core: one informer per Rust type, made with the
//! factory's namespace, list tweak, resync, transform and the namespace index (client-go's
//! `informers/factory.go`).

use std::any::TypeId;
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use kube::core::GroupVersionResource;
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use tracing::debug;

use super::erased::ErasedInformer;
use super::informer_factory::{FrontEnd, InformerFactory};
use super::options::TypedOptions;
use crate::informer::SharedIndexInformer;
use crate::listwatch::{InformerScope, TweakListParams, filtered_lister_watcher};
use crate::store::{CompactConfig, Indexers, NAMESPACE_INDEX, meta_namespace_index_func};

/// What a typed factory holds: a Kubernetes object type with no dynamic type information
/// (every k8s-openapi type and every `#[derive(CustomResource)]` type), serializable so that
/// an [`ErasedInformer`] can show its cache as dynamic objects. Implemented for every such
/// type.
pub trait TypedObject:
    Resource<DynamicType = ()> + Clone + Serialize + Debug + Send + Sync + 'static
{
}

impl<K> TypedObject for K where
    K: Resource<DynamicType = ()> + Clone + Serialize + Debug + Send + Sync + 'static
{
}

/// What [`TypedInformerFactory::informer_for`] builds informers for itself: a
/// [`TypedObject`] it can decode, whose scope says which URLs to list and watch.
/// Implemented for every such type.
pub trait TypedResource: TypedObject + DeserializeOwned + Resource<Scope: InformerScope> {}

impl<K> TypedResource for K where K: TypedObject + DeserializeOwned + Resource<Scope: InformerScope> {}

/// The typed front-end: informers found by Rust type, held as [`ErasedInformer`]s.
#[derive(Debug)]
pub struct Typed;

impl FrontEnd for Typed {
    type Key = TypeId;
    type Member = ErasedInformer;
    type Options = TypedOptions;
}

/// Hands out one shared informer per resource type, starts them, waits for them to sync
/// and shuts them all down: the typed factory of this crate, with `informer_for::<K>()`
/// for any `K`.
///
/// The `kube-informers` crate's `SharedInformerFactory` is this factory plus client-go's
/// generated accessors (`factory.apps().v1().deployments()`); use that one in programs.
/// Cloning is cheap; every clone is the same factory.
///
/// ```no_run
/// # use std::time::Duration;
/// # use k8s_openapi::api::apps::v1::Deployment;
/// # use kube_informers_runtime::TypedInformerFactory;
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// let factory = TypedInformerFactory::new(client, Duration::ZERO);
/// let deployments = factory.informer_for::<Deployment>();
/// factory.start();
/// let synced = factory.wait_for_cache_sync().await;
/// assert!(synced.values().all(|ok| *ok));
/// let count = deployments.get_indexer().len();
/// # let _ = count;
/// factory.shutdown().await;
/// # }
/// ```
pub type TypedInformerFactory = InformerFactory<Typed>;

impl InformerFactory<Typed> {
    /// The shared informer for `K`, created on first use with the factory's namespace,
    /// list tweak, resync, transform and the namespace index (client-go's `InformerFor`).
    ///
    /// An informer created after [`start`](Self::start) runs from the next `start` call.
    /// `K` must serialize so that [`informers`](Self::informers) can list its cache as
    /// dynamic objects (see [`ErasedInformer::lister`]).
    ///
    /// With [`compact_store`](super::TypedFactoryBuilder::compact_store) (or
    /// [`compact_store_for::<K>`](super::TypedFactoryBuilder::compact_store_for)) the
    /// informer's cache is compact and its lister-watcher skips managedFields.
    pub fn informer_for<K: TypedResource>(&self) -> SharedIndexInformer<K> {
        let options = &self.parts().options;
        let compact = options.compact_store_of(TypeId::of::<K>());
        let strip = options.strip_managed_fields || compact.is_some();
        let protobuf = options.protobuf;
        self.informer_for_inner(strip, |client, options| {
            let mut indexers: Indexers<K> = Indexers::default();
            indexers.insert(NAMESPACE_INDEX.to_owned(), Arc::new(meta_namespace_index_func::<K>));
            let mut lister_watcher =
                filtered_lister_watcher::<K>(client, options.namespace, options.tweak);
            if strip {
                lister_watcher = lister_watcher.skip_managed_fields();
            }
            if protobuf {
                lister_watcher = lister_watcher.protobuf();
            }
            if !options.compression {
                lister_watcher = lister_watcher.disable_compression();
            }
            let lister_watcher = Arc::new(lister_watcher);
            match options.compact_store {
                Some(config) => SharedIndexInformer::with_compact_store(
                    lister_watcher,
                    options.resync,
                    indexers,
                    config,
                ),
                None => SharedIndexInformer::new(lister_watcher, options.resync, indexers),
            }
        })
    }

    /// The shared informer for `K`, made by `new_informer` on first use (client-go's
    /// `InformerFor` with its `NewInformerFunc`): for callers that build informers their own
    /// way but still want one per type in this factory.
    pub fn informer_for_with<K: TypedObject>(
        &self,
        new_informer: impl FnOnce(Client, InformerOptions<'_>) -> SharedIndexInformer<K>,
    ) -> SharedIndexInformer<K> {
        self.informer_for_inner(false, new_informer)
    }

    /// [`informer_for_with`](Self::informer_for_with), where `skips_managed_fields` says
    /// whether `new_informer` already drops managed fields while decoding.
    fn informer_for_inner<K: TypedObject>(
        &self,
        skips_managed_fields: bool,
        new_informer: impl FnOnce(Client, InformerOptions<'_>) -> SharedIndexInformer<K>,
    ) -> SharedIndexInformer<K> {
        let type_id = TypeId::of::<K>();
        let made = self.parts().core.get_or_insert_with(type_id, || {
            ErasedInformer::new(
                self.new_informer(skips_managed_fields, new_informer),
                gvr_of::<K>(),
            )
        });
        made.downcast::<K>().expect("the informer under a type's TypeId is of that type")
    }

    /// A new informer made by `new_informer`, with the factory's options applied.
    fn new_informer<K: TypedObject>(
        &self,
        skips_managed_fields: bool,
        new_informer: impl FnOnce(Client, InformerOptions<'_>) -> SharedIndexInformer<K>,
    ) -> SharedIndexInformer<K> {
        let parts = self.parts();
        let (core, common, typed) = (&parts.core, &parts.common, &parts.options);
        let type_id = TypeId::of::<K>();
        let resync = typed.custom_resync.get(&type_id).copied().unwrap_or(common.default_resync);
        let informer = new_informer(
            core.client().clone(),
            InformerOptions {
                namespace: common.namespace.as_deref(),
                resync,
                tweak: common.tweak.clone(),
                compact_store: typed.compact_store_of(type_id),
                compression: common.compression,
            },
        );
        // A fresh informer has not started, so these cannot fail.
        let _ = informer.set_reflector_config(common.reflector_config.clone());
        if let Some(name) = &common.name {
            let _ = informer.set_name(name.clone());
        }
        let strip_after_decode = typed.strip_managed_fields && !skips_managed_fields;
        let transform = typed.transform.clone();
        if strip_after_decode || transform.is_some() {
            let _ = informer.set_transform(move |obj: &mut K| {
                let meta = obj.meta_mut();
                if strip_after_decode {
                    meta.managed_fields = None;
                }
                if let Some(transform) = &transform {
                    transform(meta);
                }
            });
        }
        let gvr = gvr_of::<K>();
        debug!(resource = %gvr.resource, informer = common.name.as_deref(), "created shared informer");
        informer
    }

    /// Every informer this factory made, with its resource.
    pub fn informers(&self) -> Vec<ErasedInformer> {
        self.parts().core.members()
    }
}

/// What a factory hands to a [`TypedInformerFactory::informer_for_with`] constructor.
#[derive(Clone)]
pub struct InformerOptions<'a> {
    /// The factory's namespace, `None` for all.
    pub namespace: Option<&'a str>,
    /// The resync period for this type (custom, or the factory default).
    pub resync: Duration,
    /// The factory's list tweak.
    pub tweak: Option<TweakListParams>,
    /// The compact-store configuration for this type, if the factory was asked for one
    /// ([`compact_store`](super::TypedFactoryBuilder::compact_store)): a constructor that
    /// honours it builds its informer with
    /// [`SharedIndexInformer::with_compact_store`] (and a lister-watcher that skips
    /// managedFields).
    pub compact_store: Option<CompactConfig>,
    /// Whether lists ask for gzip: `false` once the factory was built with
    /// [`disable_compression`](super::FactoryBuilder::disable_compression), which a
    /// constructor honours with
    /// [`ApiListerWatcher::disable_compression`](crate::ApiListerWatcher::disable_compression).
    pub compression: bool,
}

/// The GroupVersionResource of a typed resource.
pub fn gvr_of<K: Resource<DynamicType = ()>>() -> GroupVersionResource {
    GroupVersionResource::gvr(&K::group(&()), &K::version(&()), &K::plural(&()))
}
