//! The list stage: client-go's `Reflector.list` with its pager (`tools/pager`).

use std::sync::Arc;

use kube::{Resource, api::ListParams, core::ObjectList};
use tokio_util::sync::CancellationToken;

use crate::listwatch::{ListPage, SkippedObject};

use super::{
    BoxError, Phase, Reflector, ReflectorError, ReflectorStore, ReplaceSink, Room, StoreOperation,
    error::{Disposition, classify},
    paced::{Paced, grace},
    state::{Flow, RunState},
};

/// The items of a (possibly paginated) list and the list's resource version.
struct Listed<'a, K> {
    items: Collected<'a, K>,
    resource_version: String,
    /// More than one page was needed.
    paginated: bool,
    /// Items left out because they do not decode, over all pages.
    skipped: Vec<SkippedObject>,
}

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// Lists everything and replaces the store's content with it. On success the last
    /// synced resource version is the list's; on failure the error has been reported and
    /// the returned [`Flow`] says what to do next.
    #[tracing::instrument(name = "list", skip_all, fields(reflector = %self.config.name))]
    pub(super) async fn list(
        &self,
        state: &mut RunState,
        cancel: &CancellationToken,
    ) -> Result<(), Flow> {
        let resource_version = state.relist_resource_version(self.last_sync.get());
        let limit = self.page_limit(state, &resource_version);
        tracing::debug!(%resource_version, ?limit, "listing");

        let listed = match self.paged_list(&resource_version, limit, cancel).await {
            None => return Err(Flow::Stop),
            Some(Ok(listed)) => listed,
            Some(Err(err)) if classify(&err) == Disposition::Expired => {
                // client-go: the version we listed at is gone (or the server has not
                // caught up with it): retry at once with a consistent read. Routine: only
                // a failure of that retry ends the cycle.
                self.note(&ReflectorError::Expired { phase: Phase::List, source: err });
                state.rv_unavailable = true;
                let limit = self.page_limit(state, "");
                match self.paged_list("", limit, cancel).await {
                    None => return Err(Flow::Stop),
                    Some(Ok(listed)) => listed,
                    Some(Err(err)) => return Err(self.list_failed(state, err)),
                }
            }
            Some(Err(err)) => return Err(self.list_failed(state, err)),
        };

        if resource_version == "0" && listed.paginated {
            state.paginated_result = true;
        }
        state.rv_unavailable = false;
        let count = listed.items.len();
        let stored = match listed.items {
            Collected::Whole(items) => self.store.replace(items, listed.resource_version.clone()),
            Collected::Streamed { failed: Some(source), .. } => Err(source),
            Collected::Streamed { sink, .. } => sink.finish(listed.resource_version.clone()),
        };
        if let Err(source) = stored {
            self.report(&ReflectorError::Store { operation: StoreOperation::Replace, source });
            return Err(Flow::RELIST);
        }
        self.last_sync.set(&listed.resource_version);
        tracing::debug!(
            count,
            resource_version = %listed.resource_version,
            paginated = listed.paginated,
            skipped = listed.skipped.len(),
            "list synced"
        );
        if !listed.skipped.is_empty() {
            // Once per list, whatever the number of pages; the list itself succeeded.
            self.report(&ReflectorError::Undecodable(listed.skipped));
        }
        Ok(())
    }

    /// Reports a failed list and decides the next step: back off (honouring
    /// `Retry-After`) and relist.
    fn list_failed(&self, state: &mut RunState, err: kube::Error) -> Flow {
        let disposition = classify(&err);
        if disposition == Disposition::Expired {
            state.rv_unavailable = true;
            self.report(&ReflectorError::Expired { phase: Phase::List, source: err });
        } else {
            self.report(&ReflectorError::List(err));
        }
        Flow::Relist { min_delay: disposition.retry_after() }
    }

    /// client-go's page-size choice: the configured size, except that a relist at a
    /// specific resource version is sent without a limit so that the API server can
    /// serve it from its watch cache, unless the server has shown it pages
    /// `resourceVersion="0"` lists (no watch cache).
    fn page_limit(&self, state: &RunState, resource_version: &str) -> Option<u32> {
        let specific = !resource_version.is_empty() && resource_version != "0";
        if self.config.page_size == 0 || (specific && !state.paginated_result) {
            None
        } else {
            Some(self.config.page_size)
        }
    }

    /// client-go's `ListPager.List` with `FullListIfExpired`: follows continue tokens,
    /// and when a token expires on page 2 or later, lists again whole (no limit) at the
    /// originally requested version. `None` when cancelled.
    async fn paged_list(
        &self,
        resource_version: &str,
        limit: Option<u32>,
        cancel: &CancellationToken,
    ) -> Option<Result<Listed<'_, K>, kube::Error>> {
        let requested = match resource_version {
            "" => ListParams::default(),
            "0" => ListParams::default().match_any(),
            rv => ListParams::default().at(rv),
        };
        let requested = ListParams { limit, ..requested };
        let mut params = requested.clone();
        let mut items = Collected::start(&*self.store);
        let mut skipped = Vec::new();
        let mut list_resource_version = None;
        let mut paginated = false;

        loop {
            let page = cancel.run_until_cancelled(self.list_page(&params, &mut items)).await?;
            let page = match page {
                Ok(page) => page,
                Err(err)
                    if params.continue_token.is_some()
                        && classify(&err) == Disposition::Expired =>
                {
                    tracing::debug!("continue token expired; falling back to a full list");
                    let full = ListParams { limit: None, continue_token: None, ..requested };
                    // What was pushed of the first pages is given up with its sink,
                    // before the full list starts another.
                    drop(items);
                    items = Collected::start(&*self.store);
                    let whole =
                        cancel.run_until_cancelled(self.list_page(&full, &mut items)).await?;
                    return Some(whole.map(|page| {
                        let (resource_version, _) = split(page.list);
                        Listed { items, resource_version, paginated, skipped: page.skipped }
                    }));
                }
                Err(err) => return Some(Err(err)),
            };

            let ListPage { list: page, skipped: page_skipped } = page;
            skipped.extend(page_skipped);
            let (page_resource_version, continue_token) = split(page);
            list_resource_version.get_or_insert(page_resource_version);
            match continue_token {
                Some(token) => {
                    tracing::debug!(items = items.len(), "fetching the next page");
                    // The API server rejects a resource version together with `continue`.
                    params.continue_token = Some(token);
                    params.resource_version = None;
                    params.version_match = None;
                    paginated = true;
                }
                None => {
                    return Some(Ok(Listed {
                        items,
                        resource_version: list_resource_version.unwrap_or_default(),
                        paginated,
                        skipped,
                    }));
                }
            }
        }
    }

    /// One list request, given up (as a transport error, so the list is retried after a
    /// backoff) once it has been silent for
    /// [`list_idle_timeout`](super::ReflectorConfig::list_idle_timeout). Each item is
    /// added to `items` as soon as it is decoded: the store's object where it holds the
    /// same version ([`ReflectorStore::reuse`]), so that a relist holds an unchanged object
    /// once, not twice; else the item moved into an `Arc`. Before the first list has synced
    /// the store holds nothing to reuse, so it is not asked. A store taking the list object
    /// by object may pace it ([`ReplaceSink::room`]).
    async fn list_page(
        &self,
        params: &ListParams,
        items: &mut Collected<'_, K>,
    ) -> Result<ListPage<K>, kube::Error> {
        let store = (!self.last_sync.get().is_empty()).then_some(&self.store);
        let room = items.room();
        let mut each = |item: K| {
            let stored = store.and_then(|store| store.reuse(&item));
            items.push(stored.unwrap_or_else(|| Arc::new(item)));
        };
        let idle_limit = self.config.list_idle_limit();
        let list = self.lister_watcher.list_page_into(params, idle_limit, &mut each);
        let Some(room) = room else { return list.await };
        let mut paced = Paced::new(list, room, grace(idle_limit));
        let page = (&mut paced).await;
        let gave_up = paced.gave_up();
        drop(paced);
        if gave_up {
            items.stop_pacing();
        }
        page
    }
}

/// Where a list's items go as they are decoded.
enum Collected<'a, K> {
    /// Kept, for one [`ReflectorStore::replace`] once the list ends.
    Whole(Vec<Arc<K>>),
    /// Handed to the store at once ([`ReflectorStore::start_replace`]). After the sink's
    /// first error, the rest of the list is dropped and the error reported at its end.
    /// `room` paces the list ([`ReplaceSink::room`]) until a wait for it outlasts the grace.
    Streamed {
        sink: Box<dyn ReplaceSink<K> + 'a>,
        pushed: usize,
        failed: Option<BoxError>,
        room: Option<Arc<dyn Room>>,
    },
}

impl<'a, K> Collected<'a, K> {
    /// A new list into `store`, object by object if the store takes it so.
    fn start(store: &'a dyn ReflectorStore<K>) -> Self {
        match store.start_replace() {
            Some(sink) => {
                let room = sink.room();
                Self::Streamed { sink, pushed: 0, failed: None, room }
            }
            None => Self::Whole(Vec::new()),
        }
    }

    fn push(&mut self, obj: Arc<K>) {
        match self {
            Self::Whole(items) => items.push(obj),
            Self::Streamed { failed: Some(_), .. } => {}
            Self::Streamed { sink, pushed, failed, .. } => match sink.push(obj) {
                Ok(()) => *pushed += 1,
                Err(err) => *failed = Some(err),
            },
        }
    }

    fn len(&self) -> usize {
        match self {
            Self::Whole(items) => items.len(),
            Self::Streamed { pushed, .. } => *pushed,
        }
    }

    /// What a streamed list waits on ([`ReplaceSink::room`]); nothing once the sink failed
    /// or the pacing was given up.
    fn room(&self) -> Option<Arc<dyn Room>> {
        match self {
            Self::Streamed { room, failed: None, .. } => room.clone(),
            _ => None,
        }
    }

    /// Reads the rest of the list unpaced.
    fn stop_pacing(&mut self) {
        if let Self::Streamed { room, .. } = self {
            *room = None;
        }
    }
}

/// A page's resource version and continue token.
fn split<K: Clone>(list: ObjectList<K>) -> (String, Option<String>) {
    let ObjectList { metadata, .. } = list;
    (
        metadata.resource_version.unwrap_or_default(),
        metadata.continue_.filter(|token| !token.is_empty()),
    )
}
