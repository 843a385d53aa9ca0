//! The shared informer factory: one informer per resource type, shared by every caller
//! (client-go's `informers/factory.go`).

mod builder;

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use kube::core::GroupVersionResource;
use kube::{Client, Resource};
use parking_lot::Mutex;
use serde::Serialize;
use serde::de::DeserializeOwned;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::debug;

pub use builder::{MetadataTransform, SharedInformerFactoryBuilder};

use crate::informer::{
    ErasedInformer, InformerScope, SharedIndexInformer, filtered_lister_watcher,
};
use crate::reflector::{ReflectorConfig, TweakListParams};
use crate::store::{Indexers, NAMESPACE_INDEX, meta_namespace_index_func};

/// What a factory applies to each informer it makes.
struct FactoryOptions {
    /// The name of every informer of this factory, if any.
    name: Option<String>,
    namespace: Option<String>,
    default_resync: Duration,
    custom_resync: HashMap<TypeId, Duration>,
    tweak: Option<TweakListParams>,
    transform: Option<MetadataTransform>,
    /// Drop `metadata.managedFields`: while decoding for the informers this factory
    /// builds, after decoding for those built by an `informer_for_with` constructor.
    strip_managed_fields: bool,
    reflector_config: ReflectorConfig,
}

/// Hands out one shared informer per resource type, starts them, waits for them to sync
/// and shuts them all down.
///
/// Cloning is cheap; every clone is the same factory.
///
/// ```no_run
/// # use std::time::Duration;
/// # use k8s_openapi::api::apps::v1::Deployment;
/// # use kube_informers_runtime::SharedInformerFactory;
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// let factory = SharedInformerFactory::new(client, Duration::ZERO);
/// let deployments = factory.informer_for::<Deployment>();
/// factory.start();
/// let synced = factory.wait_for_cache_sync().await;
/// assert!(synced.values().all(|ok| *ok));
/// let count = deployments.get_indexer().len();
/// # let _ = count;
/// factory.shutdown().await;
/// # }
/// ```
#[derive(Clone)]
pub struct SharedInformerFactory {
    inner: Arc<FactoryInner>,
}

struct FactoryInner {
    client: Client,
    options: FactoryOptions,
    cancel: CancellationToken,
    state: Mutex<FactoryState>,
}

#[derive(Default)]
struct FactoryState {
    /// In creation order, so that start and sync reports are deterministic.
    informers: Vec<(TypeId, ErasedInformer)>,
    started: Vec<TypeId>,
    tasks: Vec<JoinHandle<()>>,
    shutting_down: bool,
}

impl SharedInformerFactory {
    /// A factory over all namespaces whose handlers resync every `default_resync` (zero:
    /// never) (client-go's `NewSharedInformerFactory`).
    pub fn new(client: Client, default_resync: Duration) -> Self {
        Self::builder(client).default_resync(default_resync).build()
    }

    /// A builder for a factory with options (client-go's
    /// `NewSharedInformerFactoryWithOptions`).
    pub fn builder(client: Client) -> SharedInformerFactoryBuilder<Self> {
        SharedInformerFactoryBuilder::new(client)
    }

    fn from_options(client: Client, options: FactoryOptions) -> Self {
        Self {
            inner: Arc::new(FactoryInner {
                client,
                options,
                cancel: CancellationToken::new(),
                state: Mutex::new(FactoryState::default()),
            }),
        }
    }

    /// The client informers of this factory use.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The namespace this factory watches, `None` for all.
    pub fn namespace(&self) -> Option<&str> {
        self.inner.options.namespace.as_deref()
    }

    /// The name given to this factory's informers by
    /// [`SharedInformerFactoryBuilder::name`], if any.
    pub fn name(&self) -> Option<&str> {
        self.inner.options.name.as_deref()
    }

    /// The shared informer for `K`, created on first use with the factory's namespace,
    /// list tweak, resync, transform and the namespace index (client-go's `InformerFor`).
    ///
    /// An informer created after [`start`](Self::start) runs from the next `start` call.
    /// `K` must serialize so that [`informers`](Self::informers) can list its cache as
    /// dynamic objects (see [`ErasedInformer::lister`]).
    pub fn informer_for<K>(&self) -> SharedIndexInformer<K>
    where
        K: Resource<DynamicType = ()>
            + Clone
            + Serialize
            + DeserializeOwned
            + Debug
            + Send
            + Sync
            + 'static,
        K::Scope: InformerScope,
    {
        let strip = self.inner.options.strip_managed_fields;
        self.informer_for_inner(strip, |client, options| {
            let mut indexers: Indexers<K> = Indexers::default();
            indexers.insert(NAMESPACE_INDEX.to_owned(), Arc::new(meta_namespace_index_func::<K>));
            let mut lister_watcher =
                filtered_lister_watcher::<K>(client, options.namespace, options.tweak);
            if strip {
                lister_watcher = lister_watcher.skip_managed_fields();
            }
            SharedIndexInformer::new(Arc::new(lister_watcher), options.resync, indexers)
        })
    }

    /// The shared informer for `K`, made by `new_informer` on first use (client-go's
    /// `InformerFor` with its `NewInformerFunc`): for callers that build informers their own
    /// way but still want one per type in this factory.
    pub fn informer_for_with<K>(
        &self,
        new_informer: impl FnOnce(Client, InformerOptions<'_>) -> SharedIndexInformer<K>,
    ) -> SharedIndexInformer<K>
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + Debug + Send + Sync + 'static,
    {
        self.informer_for_inner(false, new_informer)
    }

    /// [`informer_for_with`](Self::informer_for_with), where `skips_managed_fields` says
    /// whether `new_informer` already drops managed fields while decoding.
    fn informer_for_inner<K>(
        &self,
        skips_managed_fields: bool,
        new_informer: impl FnOnce(Client, InformerOptions<'_>) -> SharedIndexInformer<K>,
    ) -> SharedIndexInformer<K>
    where
        K: Resource<DynamicType = ()> + Clone + Serialize + Debug + Send + Sync + 'static,
    {
        let type_id = TypeId::of::<K>();
        let mut state = self.inner.state.lock();
        if let Some(informer) = state
            .informers
            .iter()
            .find(|(id, _)| *id == type_id)
            .and_then(|(_, existing)| existing.downcast::<K>())
        {
            return informer;
        }
        let options = &self.inner.options;
        let resync = options.custom_resync.get(&type_id).copied().unwrap_or(options.default_resync);
        let informer = new_informer(
            self.inner.client.clone(),
            InformerOptions {
                namespace: options.namespace.as_deref(),
                resync,
                tweak: options.tweak.clone(),
            },
        );
        // A fresh informer has not started, so these cannot fail.
        let _ = informer.set_reflector_config(options.reflector_config.clone());
        if let Some(name) = &options.name {
            let _ = informer.set_name(name.clone());
        }
        let strip_after_decode = options.strip_managed_fields && !skips_managed_fields;
        let transform = options.transform.clone();
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
        debug!(resource = %gvr.resource, informer = options.name.as_deref(), "created shared informer");
        state.informers.push((type_id, ErasedInformer::new(informer.clone(), gvr)));
        informer
    }

    /// Starts every informer not started yet; call it again after asking for more informers
    /// (client-go's `Start`). Must be called within a Tokio runtime. Does nothing after
    /// [`shutdown`](Self::shutdown).
    pub fn start(&self) {
        let mut state = self.inner.state.lock();
        if state.shutting_down {
            return;
        }
        let FactoryState { informers, started, tasks, .. } = &mut *state;
        for (type_id, informer) in informers.iter() {
            if started.contains(type_id) {
                continue;
            }
            started.push(*type_id);
            let informer = informer.clone();
            let cancel = self.inner.cancel.child_token();
            tasks.push(tokio::spawn(async move { informer.run(cancel).await }));
        }
    }

    /// Waits until every started informer has synced; the map says, per resource, whether
    /// it did (`false` only for one that stopped first) (client-go's `WaitForCacheSync`).
    pub async fn wait_for_cache_sync(&self) -> HashMap<GroupVersionResource, bool> {
        self.wait_for_cache_sync_until(std::future::pending()).await
    }

    /// Like [`wait_for_cache_sync`](Self::wait_for_cache_sync), giving up after `timeout`:
    /// informers not synced by then map to `false`.
    pub async fn wait_for_cache_sync_timeout(
        &self,
        timeout: Duration,
    ) -> HashMap<GroupVersionResource, bool> {
        self.wait_for_cache_sync_until(tokio::time::sleep(timeout)).await
    }

    /// Like [`wait_for_cache_sync`](Self::wait_for_cache_sync), giving up when `stop`
    /// completes (a cancellation token's `cancelled()`, a timer, a signal): informers not
    /// synced by then map to `false`.
    pub async fn wait_for_cache_sync_until(
        &self,
        stop: impl std::future::Future<Output = ()>,
    ) -> HashMap<GroupVersionResource, bool> {
        let started: Vec<ErasedInformer> = {
            let state = self.inner.state.lock();
            state
                .informers
                .iter()
                .filter(|(id, _)| state.started.contains(id))
                .map(|(_, informer)| informer.clone())
                .collect()
        };
        let all = join_all(started.iter().map(|informer| informer.wait_for_sync()));
        tokio::select! {
            synced = all => started.iter().map(|i| i.gvr().clone()).zip(synced).collect(),
            () = stop => started.iter().map(|i| (i.gvr().clone(), i.has_synced())).collect(),
        }
    }

    /// Every informer this factory made, with its resource.
    pub fn informers(&self) -> Vec<ErasedInformer> {
        self.inner.state.lock().informers.iter().map(|(_, informer)| informer.clone()).collect()
    }

    /// Stops every informer and returns once all of their tasks and handler threads have
    /// ended (client-go's `Shutdown`). The factory starts nothing afterwards.
    pub async fn shutdown(&self) {
        let tasks = {
            let mut state = self.inner.state.lock();
            state.shutting_down = true;
            std::mem::take(&mut state.tasks)
        };
        self.inner.cancel.cancel();
        for task in tasks {
            // A task only fails by panicking, which the informer already contains.
            let _ = task.await;
        }
    }
}

/// What a factory hands to a [`SharedInformerFactory::informer_for_with`] constructor.
#[derive(Clone)]
pub struct InformerOptions<'a> {
    /// The factory's namespace, `None` for all.
    pub namespace: Option<&'a str>,
    /// The resync period for this type (custom, or the factory default).
    pub resync: Duration,
    /// The factory's list tweak.
    pub tweak: Option<TweakListParams>,
}

/// The GroupVersionResource of a typed resource.
pub fn gvr_of<K: Resource<DynamicType = ()>>() -> GroupVersionResource {
    GroupVersionResource::gvr(&K::group(&()), &K::version(&()), &K::plural(&()))
}
