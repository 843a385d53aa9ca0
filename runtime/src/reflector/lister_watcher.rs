//! Listing and watching one resource: the trait the reflector drives, and its
//! implementation over `kube::Api`.

use std::{fmt, sync::Arc};

use futures::{StreamExt, future::BoxFuture, stream::BoxStream};
use kube::{
    Api, Resource,
    api::{ListParams, WatchParams},
    core::{ObjectList, WatchEvent},
};
use serde::de::DeserializeOwned;

/// The stream of events a watch returns.
pub type WatchStream<K> = BoxStream<'static, Result<WatchEvent<K>, kube::Error>>;

/// A function that adjusts the list parameters of every request (client-go's
/// `TweakListOptionsFunc`), typically to set label or field selectors.
pub type TweakListParams = Arc<dyn Fn(&mut ListParams) + Send + Sync>;

/// Lists and watches one resource: client-go's `ListerWatcher`. Object safe, so a
/// reflector holds it as `Arc<dyn ListerWatcher<K>>`; tests provide scripted fakes.
pub trait ListerWatcher<K: Clone>: Send + Sync + 'static {
    /// Lists one page of objects.
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>>;

    /// Starts a watch from `resource_version` (`""` for "now" / a consistent streaming list).
    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<K>, kube::Error>>;
}

/// A [`ListerWatcher`] over a [`kube::Api`], client-go's `NewFilteredListWatchFromClient`:
/// the namespace comes from the `Api` (`Api::all`, `Api::namespaced`, `Api::all_with` for
/// `DynamicObject`...), and an optional tweak adjusts the parameters of every list and
/// watch. The label and field selectors the tweak sets are copied into the watch
/// parameters so that list and watch always see the same objects.
///
/// ```no_run
/// # #[tokio::main]
/// # async fn main() -> Result<(), kube::Error> {
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kube::{Api, Client};
/// use kube_informers_runtime::reflector::ApiListerWatcher;
///
/// let client = Client::try_default().await?;
/// let pods = ApiListerWatcher::new(Api::<Pod>::namespaced(client, "prod"))
///     .with_tweak(Arc::new(|lp| lp.label_selector = Some("app=web".into())));
/// # let _ = pods;
/// # Ok(())
/// # }
/// ```
pub struct ApiListerWatcher<K> {
    api: Api<K>,
    tweak: Option<TweakListParams>,
}

impl<K> ApiListerWatcher<K> {
    /// Lists and watches through `api`, unfiltered.
    pub fn new(api: Api<K>) -> Self {
        Self { api, tweak: None }
    }

    /// Applies `tweak` to the parameters of every list and watch.
    #[must_use]
    pub fn with_tweak(mut self, tweak: TweakListParams) -> Self {
        self.tweak = Some(tweak);
        self
    }

    /// The parameters actually sent for a list the reflector asked for: the tweak applied
    /// to `params`.
    ///
    /// kube never sends `resourceVersion=0` together with a `limit` (it drops the
    /// resource version, turning the request into a paginated read from etcd). client-go's
    /// `resourceVersion=0&limit=500` is served whole from the API server's watch cache,
    /// so to get the same server-side behaviour the limit is dropped for a first page
    /// at resource version `"0"`.
    pub fn list_params(&self, params: &ListParams) -> ListParams {
        let mut list = params.clone();
        if let Some(tweak) = &self.tweak {
            tweak(&mut list);
        }
        if list.continue_token.is_none() && list.resource_version.as_deref() == Some("0") {
            list.limit = None;
        }
        list
    }

    /// The parameters actually sent for a watch the reflector asked for: the label and
    /// field selectors the tweak produces are copied into `params`.
    pub fn watch_params(&self, params: &WatchParams) -> WatchParams {
        let mut watch = params.clone();
        if let Some(tweak) = &self.tweak {
            let mut list = ListParams {
                label_selector: watch.label_selector.take(),
                field_selector: watch.field_selector.take(),
                ..ListParams::default()
            };
            tweak(&mut list);
            watch.label_selector = list.label_selector;
            watch.field_selector = list.field_selector;
        }
        watch
    }
}

impl<K: Clone> Clone for ApiListerWatcher<K> {
    fn clone(&self) -> Self {
        Self { api: self.api.clone(), tweak: self.tweak.clone() }
    }
}

impl<K> fmt::Debug for ApiListerWatcher<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiListerWatcher")
            .field("resource", &std::any::type_name::<K>())
            .field("tweak", &self.tweak.is_some())
            .finish()
    }
}

impl<K> ListerWatcher<K> for ApiListerWatcher<K>
where
    K: Resource + Clone + DeserializeOwned + fmt::Debug + Send + Sync + 'static,
{
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>> {
        Box::pin(async move { self.api.list(&self.list_params(params)).await })
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<K>, kube::Error>> {
        Box::pin(async move {
            let stream = self.api.watch(&self.watch_params(params), resource_version).await?;
            Ok(stream.boxed())
        })
    }
}
