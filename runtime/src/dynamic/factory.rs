//! The factory core shared by dynamic and metadata-only informers: one informer per
//! GroupVersionResource, started, synced, removed and shut down together (client-go's
//! `dynamicSharedInformerFactory`).

use std::collections::HashMap;
use std::fmt::{self, Debug};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::future::join_all;
use kube::core::{ApiResource, DynamicObject, GroupVersionResource};
use kube::discovery::Scope;
use kube::{Api, Client, Resource};
use parking_lot::Mutex;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::debug;

use super::api_resource::{self, ResolvedResource};
use super::error::Result;
use super::generic_informer::GenericInformer;
use crate::informer::{SharedIndexInformer, Transform};
use crate::reflector::{ListerWatcher, ReflectorConfig, TweakListParams};
use crate::store::namespace_indexers;

/// Makes the lister-watcher of one informer from the `Api` its URLs come from: this is
/// all that differs between the dynamic and the metadata factory.
pub(crate) type MakeListerWatcher<K> =
    fn(Api<DynamicObject>, Option<TweakListParams>) -> Arc<dyn ListerWatcher<K>>;

pub(crate) struct FactoryOptions<K> {
    /// The name of every informer of this factory, if any.
    pub(crate) name: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) default_resync: Duration,
    pub(crate) tweak: Option<TweakListParams>,
    pub(crate) transform: Option<Transform<K>>,
    pub(crate) reflector_config: ReflectorConfig,
    pub(crate) make_lister_watcher: MakeListerWatcher<K>,
}

/// Hands out one shared informer per GroupVersionResource, starts them, waits for them to
/// sync, removes them one by one and shuts them all down.
///
/// Use it through its two aliases: [`DynamicSharedInformerFactory`](super::DynamicSharedInformerFactory)
/// (whole objects as [`DynamicObject`]) and
/// [`MetadataSharedInformerFactory`](super::MetadataSharedInformerFactory) (metadata
/// only). Cloning is cheap; every clone is the same factory.
pub struct GenericInformerFactory<K> {
    inner: Arc<Inner<K>>,
}

impl<K> Clone for GenericInformerFactory<K> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner) }
    }
}

impl<K> Debug for GenericInformerFactory<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GenericInformerFactory")
            .field("namespace", &self.inner.options.namespace)
            .field("informers", &self.inner.state.lock().entries.len())
            .finish_non_exhaustive()
    }
}

struct Inner<K> {
    client: Client,
    options: FactoryOptions<K>,
    cancel: CancellationToken,
    state: Mutex<State<K>>,
}

struct State<K> {
    /// In creation order, so that start and sync reports are deterministic.
    entries: Vec<Entry<K>>,
    shutting_down: bool,
}

struct Entry<K> {
    informer: GenericInformer<K>,
    /// Set once started: the informer's own token (a child of the factory's) and its task,
    /// until shutdown takes the task to await it.
    running: Option<(CancellationToken, Option<JoinHandle<()>>)>,
}

impl<K> GenericInformerFactory<K> {
    pub(crate) fn from_options(client: Client, options: FactoryOptions<K>) -> Self {
        Self {
            inner: Arc::new(Inner {
                client,
                options,
                cancel: CancellationToken::new(),
                state: Mutex::new(State { entries: Vec::new(), shutting_down: false }),
            }),
        }
    }
}

impl<K> GenericInformerFactory<K>
where
    K: Resource<DynamicType = ApiResource> + Clone + Debug + Send + Sync + 'static,
{
    /// The client informers of this factory use.
    pub fn client(&self) -> &Client {
        &self.inner.client
    }

    /// The namespace this factory watches, `None` for all.
    pub fn namespace(&self) -> Option<&str> {
        self.inner.options.namespace.as_deref()
    }

    /// The name given to this factory's informers by
    /// [`DynamicFactoryBuilder::name`](super::DynamicFactoryBuilder::name), if any.
    pub fn name(&self) -> Option<&str> {
        self.inner.options.name.as_deref()
    }

    /// The shared informer for `gvr`, created on first use (client-go's `ForResource`).
    /// Every call for the same resource returns the same informer, so there is one watch.
    ///
    /// URLs are built from the GVR alone, as client-go's dynamic client does: no discovery
    /// request, and the factory's namespace (if any) goes into the URL. An informer created
    /// after [`start`](Self::start) runs from the next `start` call.
    pub fn for_resource(&self, gvr: &GroupVersionResource) -> GenericInformer<K> {
        let gvr = api_resource::normalize(gvr);
        let resolved = api_resource::from_gvr(&gvr);
        self.get_or_create(gvr, resolved)
    }

    /// Like [`for_resource`](Self::for_resource), but asks the API server's discovery for
    /// the resource's kind and scope first, so that a cluster-scoped resource is watched
    /// cluster-wide even in a namespaced factory and objects get their kind. An informer
    /// that already exists for `gvr` is returned without asking.
    ///
    /// Fails if discovery fails or the group/version does not serve the resource.
    pub async fn for_resource_discovered(
        &self,
        gvr: &GroupVersionResource,
    ) -> Result<GenericInformer<K>> {
        let gvr = api_resource::normalize(gvr);
        if let Some(existing) = self.get(&gvr) {
            return Ok(existing);
        }
        let resolved = api_resource::discover(&self.inner.client, &gvr).await?;
        Ok(self.get_or_create(gvr, resolved))
    }

    /// The informer for `gvr`, if this factory has made one.
    pub fn get(&self, gvr: &GroupVersionResource) -> Option<GenericInformer<K>> {
        let gvr = api_resource::normalize(gvr);
        let state = self.inner.state.lock();
        state.entries.iter().find(|e| e.informer.gvr() == &gvr).map(|e| e.informer.clone())
    }

    /// The resources this factory has informers for, in creation order.
    pub fn resources(&self) -> Vec<GroupVersionResource> {
        self.inner.state.lock().entries.iter().map(|e| e.informer.gvr().clone()).collect()
    }

    fn get_or_create(
        &self,
        gvr: GroupVersionResource,
        resolved: ResolvedResource,
    ) -> GenericInformer<K> {
        let mut state = self.inner.state.lock();
        if let Some(entry) = state.entries.iter().find(|e| e.informer.gvr() == &gvr) {
            return entry.informer.clone();
        }
        let informer = self.new_informer(gvr, resolved);
        state.entries.push(Entry { informer: informer.clone(), running: None });
        informer
    }

    fn new_informer(
        &self,
        gvr: GroupVersionResource,
        resolved: ResolvedResource,
    ) -> GenericInformer<K> {
        let options = &self.inner.options;
        let client = self.inner.client.clone();
        let ar = &resolved.api_resource;
        let api = match (resolved.scope, options.namespace.as_deref()) {
            (Some(Scope::Cluster), _) | (_, None) => Api::all_with(client, ar),
            (_, Some(namespace)) => Api::namespaced_with(client, namespace, ar),
        };
        let lister_watcher = (options.make_lister_watcher)(api, options.tweak.clone());
        let informer =
            SharedIndexInformer::new(lister_watcher, options.default_resync, namespace_indexers());
        // A fresh informer has not started, so these cannot fail.
        let _ = informer.set_reflector_config(options.reflector_config.clone());
        if let Some(name) = &options.name {
            let _ = informer.set_name(name.clone());
        }
        if let Some(transform) = options.transform.clone() {
            let _ = informer.set_transform(move |obj: &mut K| transform(obj));
        }
        debug!(group = %gvr.group, version = %gvr.version, resource = %gvr.resource, informer = options.name.as_deref(), "created dynamic informer");
        GenericInformer::new(gvr, resolved.api_resource, informer)
    }

    /// Starts every informer not started yet; call it again after asking for more
    /// informers (client-go's `Start`). Must be called within a Tokio runtime. Does
    /// nothing after [`shutdown`](Self::shutdown).
    pub fn start(&self) {
        let mut state = self.inner.state.lock();
        if state.shutting_down {
            return;
        }
        for entry in state.entries.iter_mut().filter(|e| e.running.is_none()) {
            let informer = entry.informer.informer();
            let cancel = self.inner.cancel.child_token();
            let token = cancel.clone();
            let task = tokio::spawn(async move { informer.run(token).await });
            entry.running = Some((cancel, Some(task)));
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
    /// completes: informers not synced by then map to `false`.
    pub async fn wait_for_cache_sync_until(
        &self,
        stop: impl Future<Output = ()>,
    ) -> HashMap<GroupVersionResource, bool> {
        let started: Vec<GenericInformer<K>> = {
            let state = self.inner.state.lock();
            state
                .entries
                .iter()
                .filter(|e| e.running.is_some())
                .map(|e| e.informer.clone())
                .collect()
        };
        let informers: Vec<SharedIndexInformer<K>> =
            started.iter().map(GenericInformer::informer).collect();
        let all = join_all(informers.iter().map(SharedIndexInformer::wait_for_sync));
        let gvrs = started.iter().map(|i| i.gvr().clone());
        tokio::select! {
            synced = all => gvrs.zip(synced).collect(),
            () = stop => gvrs.zip(informers.iter().map(SharedIndexInformer::has_synced)).collect(),
        }
    }

    /// Stops and forgets the informer for `gvr`, returning once its task and handler
    /// threads have ended; `false` if the factory had none. Other informers carry on.
    ///
    /// client-go cannot do this (kubernetes#79610): there, an informer for a deleted CRD
    /// keeps relisting until the whole factory stops. A later
    /// [`for_resource`](Self::for_resource) for the same GVR makes a fresh informer.
    pub async fn remove(&self, gvr: &GroupVersionResource) -> bool {
        let gvr = api_resource::normalize(gvr);
        let entry = {
            let mut state = self.inner.state.lock();
            match state.entries.iter().position(|e| e.informer.gvr() == &gvr) {
                Some(index) => state.entries.remove(index),
                None => return false,
            }
        };
        if let Some((cancel, task)) = entry.running {
            cancel.cancel();
            let Some(task) = task else { return true };
            // A task only fails by panicking, which the informer already contains.
            let _ = task.await;
        }
        debug!(group = %gvr.group, version = %gvr.version, resource = %gvr.resource, "removed dynamic informer");
        true
    }

    /// Stops every informer and returns once all of their tasks and handler threads have
    /// ended (client-go's `Shutdown`). The factory starts nothing afterwards.
    pub async fn shutdown(&self) {
        let tasks: Vec<JoinHandle<()>> = {
            let mut state = self.inner.state.lock();
            state.shutting_down = true;
            state
                .entries
                .iter_mut()
                .filter_map(|e| e.running.as_mut().and_then(|(_, task)| task.take()))
                .collect()
        };
        self.inner.cancel.cancel();
        for task in tasks {
            let _ = task.await;
        }
    }
}
