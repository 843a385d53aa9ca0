//! The interface a reflector lists and watches through: client-go's `ListerWatcher`,
//! the stream a watch returns, and the hook that adjusts every request's parameters.

use std::sync::Arc;

use futures::{FutureExt, future::BoxFuture, stream::BoxStream};
use kube::{
    api::{ListParams, WatchParams},
    core::{ObjectList, WatchEvent},
};

use super::skipped::SkippedObject;

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
/// reflector holds it as `Arc<dyn ListerWatcher<K>>`; tests provide scripted fakes.
pub trait ListerWatcher<K: Clone>: Send + Sync + 'static {
    /// Lists one page of objects.
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>>;

    /// Lists one page, leaving out the items that do not decode into `K` and saying which
    /// ([`ListPage::skipped`]): what the reflector calls. The default calls
    /// [`list`](Self::list), which skips nothing: one undecodable item fails the page.
    /// [`ApiListerWatcher`](super::ApiListerWatcher) decodes item by item and skips.
    /// Wrappers must forward it.
    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>>
    where
        K: 'a,
    {
        self.list(params)
            .map(|list| list.map(|list| ListPage { list, skipped: Vec::new() }))
            .boxed()
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
