//! Wrappers that count into a [`ReflectorStats`] what passes between a reflector, its
//! lister-watcher and its store, so the reflector itself needs no counting code.

use std::{sync::Arc, time::Duration};

use futures::{FutureExt, StreamExt, future::BoxFuture};
use kube::api::{ListParams, WatchParams};
use kube::core::{ObjectList, WatchEvent};

use super::stats::{EventKind, ReflectorStats};
use crate::listwatch::{ListPage, ListerWatcher, WatchStream};
use crate::reflector::{BoxError, ReflectorStore, ReplaceSink, Room};

impl ReflectorStats {
    /// `lister_watcher`, counting every list and watch request, their failures, and the
    /// events of every watch stream by type.
    pub fn instrument_lister_watcher<K>(
        &self,
        lister_watcher: Arc<dyn ListerWatcher<K>>,
    ) -> Arc<dyn ListerWatcher<K>>
    where
        K: Clone + Send + 'static,
    {
        Arc::new(CountingListerWatcher { inner: lister_watcher, stats: self.clone() })
    }

    /// `store`, counting every successful [`replace`](ReflectorStore::replace), or relist
    /// taken object by object ([`start_replace`](ReflectorStore::start_replace)) that
    /// finishes: the initial list and each relist.
    pub fn instrument_store<K>(
        &self,
        store: Arc<dyn ReflectorStore<K>>,
    ) -> Arc<dyn ReflectorStore<K>>
    where
        K: 'static,
    {
        Arc::new(CountingStore { inner: store, stats: self.clone() })
    }
}

struct CountingListerWatcher<K> {
    inner: Arc<dyn ListerWatcher<K>>,
    stats: ReflectorStats,
}

impl<K: Clone> CountingListerWatcher<K> {
    /// Counts a list request sent as `listed`, and its failure if it fails.
    fn counted<'a, T: 'a>(
        &'a self,
        listed: BoxFuture<'a, Result<T, kube::Error>>,
    ) -> BoxFuture<'a, Result<T, kube::Error>> {
        self.stats.list_sent();
        listed
            .inspect(|listed| {
                if listed.is_err() {
                    self.stats.list_failed();
                }
            })
            .boxed()
    }
}

impl<K> ListerWatcher<K> for CountingListerWatcher<K>
where
    K: Clone + Send + 'static,
{
    fn list<'a>(
        &'a self,
        params: &'a ListParams,
    ) -> BoxFuture<'a, Result<ObjectList<K>, kube::Error>> {
        self.counted(self.inner.list(params))
    }

    fn list_page<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        self.counted(self.inner.list_page(params, idle_limit))
    }

    fn list_page_into<'a>(
        &'a self,
        params: &'a ListParams,
        idle_limit: Option<Duration>,
        each: &'a mut (dyn FnMut(K) + Send),
    ) -> BoxFuture<'a, Result<ListPage<K>, kube::Error>> {
        self.counted(self.inner.list_page_into(params, idle_limit, each))
    }

    fn watch<'a>(
        &'a self,
        params: &'a WatchParams,
        resource_version: &'a str,
    ) -> BoxFuture<'a, Result<WatchStream<K>, kube::Error>> {
        self.stats.watch_sent();
        self.inner
            .watch(params, resource_version)
            .map(|opened| match opened {
                Ok(stream) => {
                    let stats = self.stats.clone();
                    Ok(stream.inspect(move |item| stats.event(event_kind(item))).boxed())
                }
                Err(err) => {
                    self.stats.watch_failed();
                    Err(err)
                }
            })
            .boxed()
    }
}

fn event_kind<K>(item: &Result<WatchEvent<K>, kube::Error>) -> EventKind {
    match item {
        Ok(WatchEvent::Added(_)) => EventKind::Added,
        Ok(WatchEvent::Modified(_)) => EventKind::Modified,
        Ok(WatchEvent::Deleted(_)) => EventKind::Deleted,
        Ok(WatchEvent::Bookmark(_)) => EventKind::Bookmark,
        Ok(WatchEvent::Error(_)) | Err(_) => EventKind::Error,
    }
}

struct CountingStore<K> {
    inner: Arc<dyn ReflectorStore<K>>,
    stats: ReflectorStats,
}

impl<K> ReflectorStore<K> for CountingStore<K> {
    fn replace(&self, list: Vec<Arc<K>>, resource_version: String) -> Result<(), BoxError> {
        self.inner.replace(list, resource_version)?;
        self.stats.replaced();
        Ok(())
    }

    fn add(&self, obj: Arc<K>) -> Result<(), BoxError> {
        self.inner.add(obj)
    }

    fn update(&self, obj: Arc<K>) -> Result<(), BoxError> {
        self.inner.update(obj)
    }

    fn delete(&self, obj: Arc<K>) -> Result<(), BoxError> {
        self.inner.delete(obj)
    }

    fn resync(&self) -> Result<(), BoxError> {
        self.inner.resync()
    }

    fn reuse(&self, obj: &K) -> Option<Arc<K>> {
        self.inner.reuse(obj)
    }

    fn forget(&self, key: &str) -> Result<(), BoxError> {
        self.inner.forget(key)
    }

    fn start_replace(&self) -> Option<Box<dyn ReplaceSink<K> + '_>> {
        let inner = self.inner.start_replace()?;
        Some(Box::new(CountingReplace { inner, stats: &self.stats }))
    }
}

/// A relist taken object by object, counted as one replace once it finishes.
struct CountingReplace<'a, K> {
    inner: Box<dyn ReplaceSink<K> + 'a>,
    stats: &'a ReflectorStats,
}

impl<K> ReplaceSink<K> for CountingReplace<'_, K> {
    fn push(&mut self, obj: Arc<K>) -> Result<(), BoxError> {
        self.inner.push(obj)
    }

    fn finish(self: Box<Self>, resource_version: String) -> Result<(), BoxError> {
        self.inner.finish(resource_version)?;
        self.stats.replaced();
        Ok(())
    }

    fn room(&self) -> Option<Arc<dyn Room>> {
        self.inner.room()
    }
}
