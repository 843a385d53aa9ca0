//! [`MetadataListerWatcher`]: listing and watching through the metadata endpoints, so
//! the server sends `PartialObjectMetadata`, never whole objects.

use std::{fmt, time::Duration};

use futures::future::BoxFuture;
use kube::api::{ListParams, WatchParams};
use kube::core::{ObjectList, PartialObjectMeta};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;

use super::api::ApiListerWatcher;
use super::lister_watcher::{ListPage, ListerWatcher, TweakListParams, WatchStream};

/// A [`ListerWatcher`] of [`PartialObjectMeta<K>`] over [`Api::list_metadata`] and
/// [`Api::watch_metadata`] (the `Accept: ...;as=PartialObjectMetadataList` requests that
/// client-go's `metadatainformer` makes). The namespace comes from the `Api`; the tweak
/// is applied, and bodies are read and decoded, by an [`ApiListerWatcher`] of
/// `PartialObjectMeta<K>`.
///
/// ```no_run
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kube::Api;
/// use kube_informers_runtime::listwatch::MetadataListerWatcher;
/// use kube_informers_runtime::{SharedIndexInformer, store::namespace_indexers};
///
/// let pods = MetadataListerWatcher::new(Api::<Pod>::all(client));
/// let informer = SharedIndexInformer::new(Arc::new(pods), std::time::Duration::ZERO, namespace_indexers());
/// # let _ = informer;
/// # }
/// ```
pub struct MetadataListerWatcher<K> {
    /// Sends the metadata requests: it filters and decodes as for whole objects.
    params: ApiListerWatcher<PartialObjectMeta<K>>,
}

impl<K: Resource + Clone> MetadataListerWatcher<K> {
    /// Lists and watches the metadata of `api`'s objects, unfiltered.
    pub fn new(api: Api<K>) -> Self {
        Self { params: ApiListerWatcher::metadata_of(api) }
    }

    /// Skips `metadata.managedFields` while decoding (see
    /// [`ApiListerWatcher::skip_managed_fields`]).
    #[must_use]
    pub fn skip_managed_fields(mut self) -> Self {
        self.params = self.params.skip_managed_fields();
        self
    }

    /// Applies `tweak` to the parameters of every list and watch.
    #[must_use]
    pub fn with_tweak(mut self, tweak: TweakListParams) -> Self {
        self.params = self.params.with_tweak(tweak);
        self
    }

    /// Lists no longer ask for gzip (see [`ApiListerWatcher::disable_compression`]).
    #[must_use]
    pub fn disable_compression(mut self) -> Self {
        self.params = self.params.disable_compression();
        self
    }
}

impl<K: Clone> Clone for MetadataListerWatcher<K> {
    fn clone(&self) -> Self {
        Self { params: self.params.clone() }
    }
}

impl<K> fmt::Debug for MetadataListerWatcher<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MetadataListerWatcher").field("params", &self.params).finish()
    }
}

impl<K> ListerWatcher<PartialObjectMeta<K>> for MetadataListerWatcher<K>
where
    K: Resource + Clone + DeserializeOwned + fmt::Debug + Send + Sync + 'static,
{
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<PartialObjectMeta<K>>, kube::Error>> {
        self.params.list(params)
    }

    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
    ) -> BoxFuture<'a, Result<ListPage<PartialObjectMeta<K>>, kube::Error>> {
        self.params.list_page(params, idle_limit)
    }

    fn list_page_into<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
        each: &'a mut (dyn FnMut(PartialObjectMeta<K>) + Send),
    ) -> BoxFuture<'a, Result<ListPage<PartialObjectMeta<K>>, kube::Error>> {
        self.params.list_page_into(params, idle_limit, each)
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<PartialObjectMeta<K>>, kube::Error>> {
        self.params.watch(params, resource_version)
    }
}
