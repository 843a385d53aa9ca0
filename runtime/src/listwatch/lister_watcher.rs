//! The interface a reflector lists and watches through: client-go's `ListerWatcher`,
//! the stream a watch returns, and the hook that adjusts every request's parameters.

use std::{sync::Arc, time::Duration};

use futures::{FutureExt, future::BoxFuture, stream::BoxStream};
use kube::{
    api::{ListParams, WatchParams},
    core::{ObjectList, WatchEvent},
};

use super::{idle::open_within, skipped::SkippedObject};

/// One page of a list, with the items skipped because they do not decode (what
/// [`ListerWatcher::list_page`] returns).
#[derive(Debug)]
pub struct ListPage<K: Clone> {
    /// The page.
    pub list: ObjectList<K>,
    /// Items of the page left out of `list` because they do not decode into `K`.
    pub skipped: Vec<SkippedObject>,
}

/// The stream of events a watch returns.
pub type WatchStream<K> = BoxStream<'static, Result<WatchEvent<K>, kube::Error>>;

/// A function that adjusts the list parameters of every request (client-go's
/// `TweakListOptionsFunc`), typically to set label or field selectors.
pub type TweakListParams = Arc<dyn Fn(&mut ListParams) + Send + Sync>;

/// Lists and watches one resource: client-go's `ListerWatcher`. Object safe, so a
/// reflector holds it as `Arc<dyn ListerWatcher<K>>`; tests provide scripted fakes. The
/// objects are owned (`K: 'static`), as every decoded Kubernetes object is.
pub trait ListerWatcher<K: Clone + 'static>: Send + Sync + 'static {
    /// Lists one page of objects.
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>>;

    /// Lists one page as [`list`](Self::list) does, with two differences; the reflector
    /// lists through this.
    ///
    /// - Items that do not decode into `K` may be left out and named in
    ///   [`ListPage::skipped`] instead of failing the page.
    ///   [`ApiListerWatcher`](super::ApiListerWatcher) decodes item by item and does so.
    /// - A request that stays silent for `idle_limit` fails with
    ///   [`WireError::Stalled`](super::WireError::Stalled), carried as a transport error
    ///   (`kube::Error::ReadEvents` of kind `TimedOut`); `None` waits as long as `list`. The
    ///   reflector passes
    ///   [`ReflectorConfig::list_idle_timeout`](crate::reflector::ReflectorConfig::list_idle_timeout).
    ///
    /// This default skips nothing (one undecodable item fails the page) and bounds the
    /// whole `list` call, so a page that takes longer than `idle_limit` in all fails,
    /// however steadily its body arrives. An implementation that reads the body as it
    /// arrives should override it to bound each wait instead (the response head, then each
    /// piece of the body after the one before), as `ApiListerWatcher` does; a wrapper
    /// should forward it to the lister-watcher it wraps, or this default would bound that
    /// one's whole call and skip nothing.
    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        open_within(idle_limit, self.list(params))
            .map(|list| list.map(|list| ListPage { list, skipped: Vec::new() }))
            .boxed()
    }

    /// Lists one page as [`list_page`](Self::list_page) does, handing each item to `each`
    /// instead of collecting it: the returned page's `items` are empty. The reflector lists
    /// through this, so that it never holds a page's objects twice (see
    /// [`ReflectorStore::reuse`](crate::reflector::ReflectorStore::reuse)).
    ///
    /// This default collects the page with `list_page`, then hands its items over. An
    /// implementation that decodes the body as it arrives should override it to hand over
    /// each item once decoded, as [`ApiListerWatcher`](super::ApiListerWatcher) does; a
    /// wrapper should forward it.
    fn list_page_into<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
        each: &'a mut (dyn FnMut(K) + Send),
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        Box::pin(async move {
            let mut page = self.list_page(params, idle_limit).await?;
            std::mem::take(&mut page.list.items).into_iter().for_each(each);
            Ok(page)
        })
    }

    /// Starts a watch from `resource_version` (`""` for "now" / a consistent streaming list).
    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<K>, kube::Error>>;
}

/// `lister_watcher` with `tweak` applied by `with_tweak`, if there is one: how every
/// constructor here takes an optional tweak.
pub(crate) fn tweaked<L>(
    lister_watcher: L,
    tweak: Option<TweakListParams>,
    with_tweak: impl FnOnce(L, TweakListParams) -> L,
) -> L {
    match tweak {
        Some(tweak) => with_tweak(lister_watcher, tweak),
        None => lister_watcher,
    }
}
