//! Listing and watching through the metadata endpoints: the server sends
//! `PartialObjectMetadata`, never whole objects.

use std::fmt;

use futures::future::BoxFuture;
use kube::api::{ListParams, WatchParams};
use kube::core::{ObjectList, PartialObjectMeta, Request};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;

use crate::reflector::{
    ApiListerWatcher, ListerWatcher, TweakListParams, WatchStream, list_objects, watch_objects,
};

/// A [`ListerWatcher`] of [`PartialObjectMeta<K>`] over [`Api::list_metadata`] and
/// [`Api::watch_metadata`] (the `Accept: ...;as=PartialObjectMetadataList` requests that
/// client-go's `metadatainformer` makes). The namespace comes from the `Api`, and the
/// tweak is applied exactly as [`ApiListerWatcher`] applies it, and bodies are read
/// and decoded the same way.
///
/// ```no_run
/// # #[allow(dead_code)]
/// # async fn doc(client: kube::Client) {
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kube::Api;
/// use kube_informers_runtime::dynamic::MetadataListerWatcher;
/// use kube_informers_runtime::{SharedIndexInformer, store::namespace_indexers};
///
/// let pods = MetadataListerWatcher::new(Api::<Pod>::all(client));
/// let informer = SharedIndexInformer::new(Arc::new(pods), std::time::Duration::ZERO, namespace_indexers());
/// # let _ = informer;
/// # }
/// ```
pub struct MetadataListerWatcher<K> {
    /// Holds the client, URL, tweak and decode options, and applies the parameters, so
    /// both lister-watchers filter and decode alike.
    params: ApiListerWatcher<K>,
}

impl<K: Resource + Clone> MetadataListerWatcher<K> {
    /// Lists and watches the metadata of `api`'s objects, unfiltered.
    pub fn new(api: Api<K>) -> Self {
        Self { params: ApiListerWatcher::new(api) }
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
        Box::pin(async move {
            let request = Request::new(self.params.url_path())
                .list_metadata(&self.params.list_params(params));
            list_objects(self.params.client(), request, self.params.decode_options()).await
        })
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<PartialObjectMeta<K>>, kube::Error>> {
        Box::pin(async move {
            let watch = self.params.watch_params(params);
            let request =
                Request::new(self.params.url_path()).watch_metadata(&watch, resource_version);
            watch_objects(self.params.client(), request, self.params.decode_options()).await
        })
    }
}
