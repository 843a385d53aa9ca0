//! The streaming-list stage: client-go's `Reflector.watchList` (the `WatchListClient`
//! feature): the initial state arrives as watch events, ended by a bookmark.
//!
//! Like client-go, a failed attempt falls back to a plain list for that cycle only, and the
//! next relist streams again: a server that refuses once (an ERROR event, a 4xx or 5xx, a
//! stream that ends or stalls before the end bookmark) still gets a working informer, and
//! one that recovers gets streaming lists back.

use std::{collections::BTreeMap, sync::Arc};

use kube::{Resource, api::WatchParams, core::WatchEvent};
use tokio_util::sync::CancellationToken;

use crate::listwatch::{IdleLimit, SkippedObject, WatchStream, open_within};

use super::{
    INITIAL_EVENTS_END_ANNOTATION, ObjectKey, Phase, Reflector, ReflectorError, StoreOperation,
    attempt::Failed, error::Disposition, state::RunState, watch::undecodable,
};

/// How a streaming list ended.
pub(super) enum StreamingOutcome<K> {
    /// The store holds the initial state; the stream carries on as the live watch.
    Synced(WatchStream<K>),
    /// A failure (reported): fall back to a plain list for this cycle.
    FallBack,
    /// Cancelled.
    Cancelled,
}

/// How the initial events of one streaming attempt ended.
enum InitialEvents {
    /// The initial-events-end bookmark arrived, at this resource version.
    Complete(String),
    /// The stream ended, or ran past the idle limit, before the bookmark.
    Incomplete,
    /// An `ERROR` event or an error item.
    Failed(kube::Error),
    Cancelled,
}

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// Streams the initial state into the store, retrying throttling, transport failures
    /// of the request and expiry (from `""`) like client-go, and falling back on anything
    /// else.
    #[tracing::instrument(name = "streaming_list", skip_all, fields(reflector = %self.config.name))]
    pub(super) async fn streaming_list(
        &self,
        state: &mut RunState,
        cancel: &CancellationToken,
    ) -> StreamingOutcome<K> {
        loop {
            if cancel.is_cancelled() {
                return StreamingOutcome::Cancelled;
            }
            let resource_version = state.rewatch_resource_version(self.last_sync.get());
            let params = WatchParams {
                bookmarks: true,
                send_initial_events: true,
                timeout: Some(self.config.random_watch_timeout_secs()),
                ..WatchParams::default()
            };
            tracing::debug!(%resource_version, "starting streaming list");
            let opened = cancel
                .run_until_cancelled(open_within(
                    self.config.watch_idle_limit(),
                    self.lister_watcher.watch(&params, &resource_version),
                ))
                .await;
            let mut stream = match opened {
                None => return StreamingOutcome::Cancelled,
                Some(Ok(stream)) => stream,
                Some(Err(err)) => match self.streaming_failed(state, err, true, cancel).await {
                    Some(outcome) => return outcome,
                    None => continue,
                },
            };

            let mut objects = BTreeMap::new();
            let mut skipped = Vec::new();
            match self.initial_events(&mut stream, &mut objects, &mut skipped, cancel).await {
                InitialEvents::Cancelled => return StreamingOutcome::Cancelled,
                InitialEvents::Incomplete => {
                    self.note(&ReflectorError::StreamingListIncomplete);
                    return StreamingOutcome::FallBack;
                }
                InitialEvents::Failed(err) => {
                    match self.streaming_failed(state, err, false, cancel).await {
                        Some(outcome) => return outcome,
                        None => continue,
                    }
                }
                InitialEvents::Complete(resource_version) => {
                    state.rv_unavailable = false;
                    let count = objects.len();
                    let items = objects.into_values().collect();
                    if let Err(source) = self.store.replace(items, resource_version.clone()) {
                        self.note(&ReflectorError::Store {
                            operation: StoreOperation::Replace,
                            source,
                        });
                        return StreamingOutcome::FallBack;
                    }
                    self.last_sync.set(&resource_version);
                    tracing::debug!(count, %resource_version, "streaming list synced");
                    if !skipped.is_empty() {
                        // Once per streaming list, as for a plain list.
                        self.report(&ReflectorError::Undecodable(skipped));
                    }
                    return StreamingOutcome::Synced(stream);
                }
            }
        }
    }

    /// Collects the initial events, keyed like the store, until the end bookmark. The idle
    /// limit bounds each item and also the whole phase: a stream kept busy by bookmarks or
    /// events but never ended (a proxy that drops the end bookmark and ignores the timeout)
    /// is abandoned when the server would have closed it.
    /// An object that does not decode is left out (and out of `objects`, should an earlier
    /// event have put it there) and added to `skipped`.
    async fn initial_events(
        &self,
        stream: &mut WatchStream<K>,
        objects: &mut BTreeMap<String, Arc<K>>,
        skipped: &mut Vec<SkippedObject>,
        cancel: &CancellationToken,
    ) -> InitialEvents {
        let idle_limit = self.config.watch_idle_limit();
        let mut idle = IdleLimit::new(idle_limit);
        // The whole of the initial events is bounded too: one timer for all of them.
        let mut all_within = idle_limit.map(|limit| Box::pin(tokio::time::sleep(limit)));
        loop {
            let next = async {
                match all_within.as_mut() {
                    None => Ok(idle.next(stream).await),
                    Some(all_within) => tokio::select! {
                        biased;
                        item = idle.next(stream) => Ok(item),
                        () = all_within.as_mut() => Err(()),
                    },
                }
            };
            let Some(item) = cancel.run_until_cancelled(next).await else {
                return InitialEvents::Cancelled;
            };
            let Ok(item) = item else {
                tracing::debug!(?idle_limit, "no end bookmark within the idle limit");
                return InitialEvents::Incomplete;
            };
            match item {
                None => return InitialEvents::Incomplete,
                Some(Ok(WatchEvent::Added(obj) | WatchEvent::Modified(obj))) => {
                    let key = ObjectKey(&obj).to_string();
                    tracing::debug!(%key, "initial event");
                    skipped.retain(|earlier| earlier.key != key);
                    objects.insert(key, Arc::new(obj));
                }
                Some(Ok(WatchEvent::Deleted(obj))) => {
                    objects.remove(&ObjectKey(&obj).to_string());
                }
                Some(Ok(WatchEvent::Bookmark(bookmark))) => {
                    let ended = bookmark
                        .metadata
                        .annotations
                        .get(INITIAL_EVENTS_END_ANNOTATION)
                        .is_some_and(|value| value == "true");
                    if ended {
                        return InitialEvents::Complete(bookmark.metadata.resource_version);
                    }
                }
                Some(Ok(WatchEvent::Error(status))) => {
                    return InitialEvents::Failed(kube::Error::Api(status));
                }
                Some(Err(err)) => match undecodable(&err) {
                    Some(object) => {
                        objects.remove(&object.key);
                        skipped
                            .retain(|earlier| earlier.key != object.key || object.key.is_empty());
                        skipped.push(object);
                    }
                    None => return InitialEvents::Failed(err),
                },
            }
        }
    }

    /// Reports a failed streaming attempt (`opening`: the request itself failed). Returns
    /// `None` to try streaming again (after a backoff, or at once from `""` after an
    /// expiry), or the outcome.
    ///
    /// Retried, as client-go's `isWatchErrorRetriable` and `isExpiredError` do: expiry, 429,
    /// and a request that could not be sent (connection refused or reset). A request the
    /// server refused (a 4xx) falls back as refused; everything else (a stall, a 5xx status,
    /// an ERROR event) falls back to a plain list too: retrying a server that cannot stream
    /// would never sync.
    async fn streaming_failed(
        &self,
        state: &mut RunState,
        err: kube::Error,
        opening: bool,
        cancel: &CancellationToken,
    ) -> Option<StreamingOutcome<K>> {
        // A transport failure of the request itself (connection refused or reset), not a
        // status from the server, nor a stream that went silent, nor an error mid-stream.
        let unanswered =
            opening && matches!(err, kube::Error::HyperError(_) | kube::Error::Service(_));
        match self
            .attempt_failed(state, Phase::StreamingList, err, unanswered, opening, cancel)
            .await
        {
            Failed::Expired | Failed::BackedOff => None,
            Failed::Cancelled => Some(StreamingOutcome::Cancelled),
            Failed::Other(err, Disposition::Rejected) if opening => {
                self.note(&ReflectorError::StreamingListRefused(err));
                Some(StreamingOutcome::FallBack)
            }
            // A 5xx, a stall, a decode failure or a refusal in an ERROR event.
            Failed::Other(err, _) => {
                self.note(&ReflectorError::StreamingList(err));
                Some(StreamingOutcome::FallBack)
            }
        }
    }
}
