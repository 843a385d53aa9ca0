//! [`ApiListerWatcher`]: the [`ListerWatcher`] over `kube::Api`, sending the requests
//! itself and decoding the bodies as they arrive.

use std::{fmt, marker::PhantomData, time::Duration};

use futures::{StreamExt, future::BoxFuture};
use kube::{
    Api, Client, Resource,
    api::{ListParams, WatchParams},
    core::{ObjectList, PartialObjectMeta, Request},
};
use serde::de::DeserializeOwned;

use super::{
    decode::decode_event,
    gzip::accepting_gzip,
    in_place,
    item::DecodeOptions,
    list_request::list_objects,
    lister_watcher::{ListPage, ListerWatcher, TweakListParams, WatchStream},
    protobuf::{self, Message, accepting},
    wire::{self, Framing, LineReader},
};

/// A [`ListerWatcher`] over a [`kube::Api`], client-go's `NewFilteredListWatchFromClient`:
/// the namespace comes from the `Api` (`Api::all`, `Api::namespaced`, `Api::all_with` for
/// `DynamicObject`...), and an optional tweak adjusts the parameters of every list and
/// watch. The label and field selectors the tweak sets are copied into the watch
/// parameters so that list and watch always see the same objects.
///
/// A list body is decoded while it arrives, item by item, so the whole body is never
/// held in memory; watch events are decoded line by line as they arrive. Its
/// [`list_page`](ListerWatcher::list_page) limits each wait of a list (for the
/// response head, then for each piece of the body), never the length of the whole list. With
/// [`skip_managed_fields`](Self::skip_managed_fields), every object's
/// `metadata.managedFields` is skipped while decoding, never built. With
/// [`protobuf`](Self::protobuf), a built-in type is asked for in protobuf, JSON being the
/// fallback. Lists ask for gzip, as client-go's do, and a compressed body is inflated as it
/// arrives ([`disable_compression`](Self::disable_compression) turns that off).
/// An error response becomes `kube::Error::Api` with its `Status` (as `kube::Api`
/// reports it). An object that is valid JSON but does not decode into `K` is left out of
/// the page by `list_page` (named in [`ListPage::skipped`]), and comes out of a watch as
/// [`WireError::UndecodableObject`](super::WireError::UndecodableObject); anything else
/// that does not decode is `kube::Error::SerdeError`.
///
/// ```no_run
/// # #[tokio::main]
/// # async fn main() -> Result<(), kube::Error> {
/// use std::sync::Arc;
/// use k8s_openapi::api::core::v1::Pod;
/// use kube::{Api, Client};
/// use kube_informers_runtime::listwatch::ApiListerWatcher;
///
/// let client = Client::try_default().await?;
/// let pods = ApiListerWatcher::new(Api::<Pod>::namespaced(client, "prod"))
///     .with_tweak(Arc::new(|lp| lp.label_selector = Some("app=web".into())));
/// # let _ = pods;
/// # Ok(())
/// # }
/// ```
pub struct ApiListerWatcher<K> {
    client: Client,
    url_path: String,
    tweak: Option<TweakListParams>,
    decode: DecodeOptions,
    /// The protobuf message of `K`, when protobuf is asked for and `K` has one.
    protobuf: Option<&'static Message>,
    /// Lists ask for gzip (`Accept-Encoding: gzip`).
    gzip: bool,
    _resource: PhantomData<fn() -> K>,
}

impl<K: Resource> ApiListerWatcher<K> {
    /// Lists and watches through `api`, unfiltered.
    pub fn new(api: Api<K>) -> Self {
        Self::at(api)
    }
}

impl<K: Resource> ApiListerWatcher<PartialObjectMeta<K>> {
    /// Lists and watches the metadata of `api`'s objects, unfiltered: the same URL,
    /// asked for `PartialObjectMetadata` (what
    /// [`MetadataListerWatcher`](super::MetadataListerWatcher) is built on).
    pub(crate) fn metadata_of(api: Api<K>) -> Self {
        Self::at(api)
    }
}

impl<K> ApiListerWatcher<K> {
    /// Over `api`'s client and URL, unfiltered; responses decode to `K`, which need not
    /// be `api`'s type (metadata requests go to the URL of the whole objects).
    fn at<R: Resource>(api: Api<R>) -> Self {
        Self {
            url_path: api.resource_url().to_owned(),
            client: api.into_client(),
            tweak: None,
            decode: DecodeOptions::default(),
            protobuf: None,
            gzip: true,
            _resource: PhantomData,
        }
    }

    /// Skips `metadata.managedFields` while decoding every listed and watched object:
    /// the field is `None`, and its value is never built. This is what
    /// `SharedInformerFactoryBuilder::strip_managed_fields` uses.
    #[must_use]
    pub fn skip_managed_fields(mut self) -> Self {
        self.decode.skip_managed_fields = true;
        self
    }

    /// Lists no longer ask for gzip (client-go's `DisableCompression`): their bodies come
    /// uncompressed, in more and smaller chunks. By default a list asks for gzip, which
    /// kube-apiserver uses for answers of 128 KiB or more; the body is inflated while it
    /// arrives, a few KiB at a time. On a fast network to a busy server, compressing costs
    /// the server more than it saves the client (kubectl's `--disable-compression`).
    /// Watches never ask for it.
    #[must_use]
    pub fn disable_compression(mut self) -> Self {
        self.gzip = false;
        self
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

impl<K> Clone for ApiListerWatcher<K> {
    fn clone(&self) -> Self {
        Self {
            client: self.client.clone(),
            url_path: self.url_path.clone(),
            tweak: self.tweak.clone(),
            decode: self.decode,
            protobuf: self.protobuf,
            gzip: self.gzip,
            _resource: PhantomData,
        }
    }
}

impl<K> fmt::Debug for ApiListerWatcher<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApiListerWatcher")
            .field("resource", &std::any::type_name::<K>())
            .field("url_path", &self.url_path)
            .field("tweak", &self.tweak.is_some())
            .field("skip_managed_fields", &self.decode.skip_managed_fields)
            .field("protobuf", &self.protobuf.is_some())
            .field("gzip", &self.gzip)
            .finish()
    }
}

impl<K: Resource<DynamicType = ()>> ApiListerWatcher<K> {
    /// Asks for lists and watches in protobuf (`application/vnd.kubernetes.protobuf`,
    /// client-go's default wire format), which costs less to decode than JSON, when `K` is a
    /// built-in type; JSON stays the fallback. Each request then accepts
    /// `application/vnd.kubernetes.protobuf, application/json`, as client-go's do, and its
    /// body is decoded as its `Content-Type` says, so a server that answers JSON still works.
    ///
    /// Types outside the built-in schema table (custom resources, CustomResourceDefinitions
    /// themselves, the metadata-only `PartialObjectMeta`) keep asking for JSON alone; see
    /// [`uses_protobuf`](Self::uses_protobuf). The objects decoded from protobuf equal the
    /// ones decoded from JSON: the table is generated from client-go v0.36's Go types and
    /// applies their JSON rules (see the `listwatch::protobuf` module's docs). Watches,
    /// including streaming lists (`sendInitialEvents`), are protobuf too.
    ///
    /// client-go picks protobuf per client (`ContentType` in its REST config) and fails on a
    /// type it has no protobuf code for; this picks it per lister-watcher and falls back.
    #[must_use]
    pub fn protobuf(mut self) -> Self {
        self.protobuf = if K::metadata_api() {
            None
        } else {
            protobuf::schema_for(&K::group(&()), &K::version(&()), &K::kind(&()))
        };
        self
    }
}

impl<K> ApiListerWatcher<K> {
    /// Whether lists and watches ask for protobuf: [`protobuf`](Self::protobuf) was set and
    /// `K` is a built-in type of the schema table.
    pub fn uses_protobuf(&self) -> bool {
        self.protobuf.is_some()
    }
}

impl<K> ListerWatcher<K> for ApiListerWatcher<K>
where
    K: Resource + Clone + DeserializeOwned + fmt::Debug + Send + Sync + 'static,
{
    /// Fails with a `kube::Error::SerdeError` when an item does not decode; the reflector
    /// calls [`list_page`](ListerWatcher::list_page), which skips such items.
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>> {
        Box::pin(async move {
            let page = self.list_page(params, None).await?;
            match page.skipped.first() {
                None => Ok(page.list),
                Some(skipped) => Err(kube::Error::SerdeError(serde::de::Error::custom(format!(
                    "a list item does not decode: {skipped}"
                )))),
            }
        })
    }

    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        Box::pin(async move {
            let mut items = Vec::new();
            let mut page =
                self.list_page_into(params, idle_limit, &mut |item| items.push(item)).await?;
            page.list.items = items;
            Ok(page)
        })
    }

    /// Hands each item over as soon as it is decoded.
    fn list_page_into<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
        each: &'a mut (dyn FnMut(K) + Send),
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        Box::pin(async move {
            let request = Request::new(&self.url_path);
            let params = self.list_params(params);
            let built = if K::metadata_api() {
                request.list_metadata(&params)
            } else {
                request.list(&params)
            };
            let built = if self.gzip { accepting_gzip(built) } else { built };
            list_objects(&self.client, built, self.decode, self.protobuf, idle_limit, each).await
        })
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<K>, kube::Error>> {
        Box::pin(async move {
            let request = Request::new(&self.url_path);
            let params = self.watch_params(params);
            let built = if K::metadata_api() {
                request.watch_metadata(&params, resource_version)
            } else {
                request.watch(&params, resource_version)
            };
            watch_objects(&self.client, built, self.decode, self.protobuf).await
        })
    }
}

/// Sends a watch request and decodes its events as they arrive: line by line, or frame by
/// frame when `protobuf` is set and the server answers in it.
async fn watch_objects<T>(
    client: &Client,
    request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
    decode: DecodeOptions,
    protobuf: Option<&'static Message>,
) -> Result<WatchStream<T>, kube::Error>
where
    T: Clone + DeserializeOwned + Send + 'static,
{
    // As kube: watch bodies are not compressed (multi-member gzip is not decoded).
    let request = request.map(|mut request| {
        request
            .headers_mut()
            .entry(http::header::ACCEPT_ENCODING)
            .or_insert(http::HeaderValue::from_static("identity"));
        request
    });
    let request = accepting(request, protobuf);
    let response = wire::send(client, request, "watch").await?;
    let message = protobuf.filter(|_| protobuf::is_protobuf(response.headers()));
    let framing = if message.is_some() { Framing::LengthPrefixed } else { Framing::Lines };
    let lines = LineReader::new(response, framing);
    let in_place = in_place::decoder_of::<T>();
    let events = futures::stream::unfold(lines, move |mut lines| async move {
        let event = match (lines.next_line().await?, message) {
            (Ok(frame), Some(message)) => protobuf::decode_event::<T>(frame, message, decode),
            (Ok(line), None) => decode_event::<T>(line, decode, in_place),
            (Err(err), _) => Err(err),
        };
        Some((event, lines))
    });
    Ok(events.boxed())
}
