//! The watch stage: client-go's `watchWithResync`, `watch` and `handleWatch`.

use std::{sync::Arc, time::Duration};

use kube::{Resource, api::WatchParams, core::WatchEvent};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::listwatch::{IdleLimit, SkippedObject, WatchStream, WireError, open_within};

use super::{
    ObjectKey, Phase, Reflector, ReflectorError, StoreOperation,
    attempt::Failed,
    error::Disposition,
    state::{Flow, RunState},
};

/// A watch that closes sooner than this without any event counts as a failure
/// (client-go's `VeryShortWatchError`), so that a server closing watches at once does
/// not make the reflector spin.
const VERY_SHORT_WATCH: Duration = Duration::from_secs(1);

/// How one watch stream ended.
enum WatchEnd {
    Cancelled,
    /// The stream ended normally (server timeout, closed connection) after `events` events.
    Closed {
        events: usize,
    },
    /// The stream failed: an `ERROR` event or an error item.
    Failed(kube::Error),
}

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// Watches (continuing `live` first, if a streaming list handed it over) with the
    /// resync timer running alongside.
    pub(super) async fn watch_with_resync(
        &self,
        state: &mut RunState,
        live: Option<WatchStream<K>>,
        cancel: &CancellationToken,
    ) -> Flow {
        tokio::select! {
            flow = self.watch(state, live, cancel) => flow,
            err = self.resync_loop() => {
                // client-go: a failed resync ends ListAndWatch with its error.
                self.report(&err);
                Flow::RELIST
            }
        }
    }

    /// Opens watches from the last synced resource version until one fails in a way
    /// that calls for a relist, or until cancelled.
    #[tracing::instrument(name = "watch", skip_all, fields(reflector = %self.config.name))]
    async fn watch(
        &self,
        state: &mut RunState,
        mut live: Option<WatchStream<K>>,
        cancel: &CancellationToken,
    ) -> Flow {
        loop {
            if cancel.is_cancelled() {
                return Flow::Stop;
            }
            let started = Instant::now();
            let stream = match live.take() {
                Some(stream) => stream,
                None => {
                    let resource_version = self.last_sync.get();
                    let params = WatchParams {
                        bookmarks: true,
                        timeout: Some(self.config.random_watch_timeout_secs()),
                        ..WatchParams::default()
                    };
                    tracing::debug!(%resource_version, timeout = ?params.timeout, "starting watch");
                    let opened = cancel
                        .run_until_cancelled(open_within(
                            self.config.watch_idle_limit(),
                            self.lister_watcher.watch(&params, &resource_version),
                        ))
                        .await;
                    match opened {
                        None => return Flow::Stop,
                        Some(Ok(stream)) => stream,
                        Some(Err(err)) => match self.watch_failed(state, err, true, cancel).await {
                            Some(flow) => return flow,
                            None => continue,
                        },
                    }
                }
            };

            match self.consume(stream, cancel).await {
                WatchEnd::Cancelled => return Flow::Stop,
                WatchEnd::Closed { events } => {
                    let elapsed = started.elapsed();
                    if events == 0 && elapsed < VERY_SHORT_WATCH {
                        self.note(&ReflectorError::VeryShortWatch { elapsed });
                        return Flow::RELIST;
                    }
                    tracing::debug!(
                        events,
                        "watch closed; resuming from the last resource version"
                    );
                }
                WatchEnd::Failed(err) => {
                    if let Some(flow) = self.watch_failed(state, err, false, cancel).await {
                        return flow;
                    }
                }
            }
        }
    }

    /// Reports a failed watch (`opening`: the request failed, not its stream). Returns
    /// `None` to re-watch from the last resource version (after a backoff for throttling,
    /// 5xx and transport failures), or the next step.
    async fn watch_failed(
        &self,
        state: &mut RunState,
        err: kube::Error,
        opening: bool,
        cancel: &CancellationToken,
    ) -> Option<Flow> {
        match self.attempt_failed(state, Phase::Watch, err, true, opening, cancel).await {
            // Relist at the last synced version, as client-go does (see `attempt_failed`).
            Failed::Expired => Some(Flow::RELIST),
            Failed::BackedOff => None,
            Failed::Cancelled => Some(Flow::Stop),
            Failed::Other(err, Disposition::Decode) => {
                self.note(&ReflectorError::Decode(err));
                Some(Flow::RELIST)
            }
            // Rejected (403, 400, ...): relist after the backoff. A refused request ends
            // the cycle for the handler too; an ERROR event mid-stream does not (client-go).
            Failed::Other(err, _) => {
                let err = ReflectorError::Watch(err);
                if opening {
                    self.report(&err);
                } else {
                    self.note(&err);
                }
                Some(Flow::RELIST)
            }
        }
    }

    /// Applies the events of one watch stream to the store until it ends.
    async fn consume(&self, mut stream: WatchStream<K>, cancel: &CancellationToken) -> WatchEnd {
        let mut events = 0;
        let mut idle = IdleLimit::new(self.config.watch_idle_limit());
        loop {
            let Some(item) = cancel.run_until_cancelled(idle.next(&mut stream)).await else {
                return WatchEnd::Cancelled;
            };
            match item {
                None => return WatchEnd::Closed { events },
                Some(Ok(event)) => {
                    if let Err(err) = self.apply(event) {
                        return WatchEnd::Failed(err);
                    }
                    events += 1;
                }
                Some(Err(err)) => match undecodable(&err) {
                    Some(skipped) => {
                        self.skip(skipped);
                        events += 1;
                    }
                    None => return WatchEnd::Failed(err),
                },
            }
        }
    }

    /// Skips a watch event whose object does not decode: reports it, drops the object from
    /// the store (its cached version is no longer the server's), and moves the resource
    /// version past it, so that the watch goes on and a later resume does not get it again.
    /// The object comes back with its first change that decodes.
    fn skip(&self, skipped: SkippedObject) {
        if !skipped.key.is_empty()
            && let Err(source) = self.store.forget(&skipped.key)
        {
            self.note(&ReflectorError::Store { operation: StoreOperation::Forget, source });
        }
        if let Some(resource_version) = &skipped.resource_version {
            self.last_sync.set(resource_version);
        }
        self.report(&ReflectorError::Undecodable(vec![skipped]));
    }

    /// Applies one watch event; an `ERROR` event becomes the error it carries.
    fn apply(&self, event: WatchEvent<K>) -> Result<(), kube::Error> {
        let (operation, obj) = match event {
            WatchEvent::Added(obj) => (StoreOperation::Add, obj),
            WatchEvent::Modified(obj) => (StoreOperation::Update, obj),
            WatchEvent::Deleted(obj) => (StoreOperation::Delete, obj),
            WatchEvent::Bookmark(bookmark) => {
                tracing::debug!(resource_version = %bookmark.metadata.resource_version, "bookmark");
                self.last_sync.set(&bookmark.metadata.resource_version);
                return Ok(());
            }
            WatchEvent::Error(status) => return Err(kube::Error::Api(status)),
        };
        tracing::debug!(key = %ObjectKey(&obj), %operation, "watch event");
        let resource_version = obj.meta().resource_version.clone();
        let obj = Arc::new(obj);
        let stored = match operation {
            StoreOperation::Add => self.store.add(obj),
            StoreOperation::Update => self.store.update(obj),
            _ => self.store.delete(obj),
        };
        if let Err(source) = stored {
            // As client-go: log, and keep watching.
            self.note(&ReflectorError::Store { operation, source });
        }
        if let Some(resource_version) = resource_version {
            self.last_sync.set(&resource_version);
        }
        Ok(())
    }
}

/// The object of a watch event that does not decode, if that is what `err` is.
pub(super) fn undecodable(err: &kube::Error) -> Option<SkippedObject> {
    match WireError::find_in(err)? {
        WireError::UndecodableObject { object, .. } => Some(object.clone()),
        _ => None,
    }
}
