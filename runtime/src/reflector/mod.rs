//! The reflector: lists and watches one resource and mirrors it into a
//! [`ReflectorStore`], client-go's `tools/cache/reflector.go`.
//!
//! This module is the list/watch state machine only: relists, resuming watches,
//! bookmarks, streaming lists, backoff and resync. The requests it makes and their
//! decoding belong to [`listwatch`](crate::listwatch): the reflector drives any
//! [`ListerWatcher`], usually an [`ApiListerWatcher`](crate::listwatch::ApiListerWatcher).
//!
//! [`Reflector::run`] repeats client-go's `ListAndWatch` until cancelled:
//!
//! 1. **List**, paginated with `limit`/`continue` ([`ReflectorConfig::page_size`]). The
//!    first list asks for `resourceVersion="0"` (any version, so the API server can serve
//!    it from its watch cache); later relists ask for the last synced version, or for `""`
//!    (a consistent read) once that version has expired. When a continue token expires
//!    mid-pagination, the pages are dropped and the list is retried whole, without a
//!    limit (client-go's pager `FullListIfExpired`). The items and the list's resource
//!    version go to [`ReflectorStore::replace`]. A list request that stays silent for
//!    [`ReflectorConfig::list_idle_timeout`] (no response, or no more of its body; a long
//!    list that keeps sending is never cut) is presumed dead and fails with
//!    [`WireError::Stalled`](crate::listwatch::WireError::Stalled), a failed list.
//! 2. **Watch** from the last resource version with `allowWatchBookmarks=true` and a
//!    random server timeout in `[min_watch_timeout, max_watch_timeout]`. `ADDED`,
//!    `MODIFIED` and `DELETED` go to `add`/`update`/`delete`; bookmarks only advance the
//!    last synced resource version. A watch that ends normally is reopened from the last
//!    resource version, without a relist. A watch that receives nothing (not even its
//!    response) for longer than its server timeout plus
//!    [`ReflectorConfig::watch_idle_margin`] is presumed dead: it fails with
//!    [`WireError::Stalled`](crate::listwatch::WireError::Stalled) and is reopened like
//!    any broken connection.
//! 3. **Failures** (each logged through `tracing` and passed to the error observer; the
//!    watch-error handler gets those that end the cycle, see [`WatchErrorHandler`]): a
//!    `410 Gone`/`Expired` watch relists at the last synced resource version without a
//!    limit, served from the API server's watch cache as client-go's does, and only if
//!    that list is refused as expired or too large turns to a consistent read
//!    (`resourceVersion=""`, paginated); `429`, `5xx` and transport failures of a watch
//!    back off and re-watch; a failed list (a stalled one included), a `403` or another refusal, or a watch that
//!    closes at once without events back off and relist. The backoff is exponential
//!    ([`BackoffConfig`]), honours `Retry-After`, and starts over after two quiet minutes.
//! 4. **Resync**: while watching, every [`ReflectorConfig::resync_period`] the reflector
//!    asks `should_resync` and, if it agrees, calls [`ReflectorStore::resync`].
//!
//! With [`ReflectorConfig::streaming_list`], step 1 is a watch with
//! `sendInitialEvents=true` whose initial events are collected until the
//! `k8s.io/initial-events-end` bookmark, replaced into the store, and whose stream then
//! carries on as the watch of step 2. If the attempt fails (a refusal, an ERROR event, a
//! stream that ends or stalls before the bookmark), that cycle falls back to a plain list and
//! the next relist streams again, as client-go does.
//!
//! Its files: `run` is the outer loop of cycles separated by backoff; `list`, `streaming`
//! and `watch` are the stages of a cycle, with `resync`'s timer beside the watch;
//! `attempt` classifies a failed watch or streaming-list attempt, once for both; `state`
//! holds what the stages share (the run's state, the step a stage asks for, a
//! cancellable sleep) and `report` passes errors to the handler and the logs. Below them
//! are `error` ([`ReflectorError`] and the classification of API failures), `backoff`,
//! `config`, `version` ([`LastSyncResourceVersion`]) and `reflector_store`
//! ([`ReflectorStore`], [`BoxError`]).
//!
//! ```no_run
//! # #[tokio::main]
//! # async fn main() -> Result<(), kube::Error> {
//! use std::sync::Arc;
//! use k8s_openapi::api::core::v1::Pod;
//! use kube::{Api, Client};
//! use kube_informers_runtime::listwatch::ApiListerWatcher;
//! use kube_informers_runtime::reflector::{BoxError, Reflector, ReflectorConfig, ReflectorStore};
//! use tokio_util::sync::CancellationToken;
//!
//! struct Print;
//! impl ReflectorStore<Pod> for Print {
//!     fn replace(&self, list: Vec<Arc<Pod>>, rv: String) -> Result<(), BoxError> {
//!         println!("{} pods at {rv}", list.len());
//!         Ok(())
//!     }
//!     fn add(&self, _: Arc<Pod>) -> Result<(), BoxError> { Ok(()) }
//!     fn update(&self, _: Arc<Pod>) -> Result<(), BoxError> { Ok(()) }
//!     fn delete(&self, _: Arc<Pod>) -> Result<(), BoxError> { Ok(()) }
//!     fn resync(&self) -> Result<(), BoxError> { Ok(()) }
//! }
//!
//! let client = Client::try_default().await?;
//! let lister_watcher = Arc::new(ApiListerWatcher::new(Api::<Pod>::all(client)));
//! let mut reflector = Reflector::new(lister_watcher, Arc::new(Print), ReflectorConfig::default());
//! reflector.set_watch_error_handler(Arc::new(|err| eprintln!("reflector: {err}")));
//! let version = reflector.last_sync_resource_version_handle();
//!
//! let cancel = CancellationToken::new();
//! let task = tokio::spawn({
//!     let cancel = cancel.clone();
//!     async move { reflector.run(cancel).await }
//! });
//! // ... later
//! println!("synced to {}", version.get());
//! cancel.cancel();
//! task.await.expect("reflector task");
//! # Ok(())
//! # }
//! ```

mod attempt;
mod backoff;
mod config;
mod error;
mod list;
mod paced;
mod reflector_store;
mod report;
mod resync;
mod run;
mod state;
mod streaming;
mod version;
mod watch;

use std::{fmt, sync::Arc};

use kube::Resource;

use crate::listwatch::ListerWatcher;

pub use config::{BackoffConfig, ReflectorConfig};
pub use error::{Phase, ReflectorError, Result, StoreOperation};
pub use paced::LIST_PACE_GRACE;
pub use reflector_store::{BoxError, ReflectorStore, ReplaceSink, Room};
pub use version::LastSyncResourceVersion;

/// Decides, each time the resync timer fires, whether to resync (client-go's
/// `ShouldResyncFunc`; the shared informer passes its processor's `shouldResync`).
pub type ShouldResyncFn = Arc<dyn Fn() -> bool + Send + Sync>;

/// Receives the errors that end a list-and-watch cycle, as client-go's `WatchErrorHandler`
/// receives what `ListAndWatch` returns. Called on the reflector's task: keep it short. A
/// panic in it is caught and logged.
///
/// It receives, as client-go's does:
/// - a failed list ([`ReflectorError::List`]), after the immediate consistent retry an
///   expired list gets, including a list that went silent;
/// - a failed `replace` or `resync` of the store ([`ReflectorError::Store`]);
/// - a watch request that failed for any reason other than a refused connection or a
///   `429` ([`ReflectorError::Watch`]). client-go relists after one; this reflector
///   re-watches from the last resource version after a backoff when the failure is
///   transient (a 5xx, a request that went unanswered), and relists after a refusal;
/// - objects that could not be decoded and were skipped
///   ([`ReflectorError::Undecodable`]), once per list and once per watch event. client-go
///   has no such case: one such object stops its informer's lists for good.
///
/// It does not receive what the reflector recovers from within the cycle, which client-go
/// logs without calling its handler either: a `410 Expired` watch (the reflector relists at
/// the last resource version), an expired list retried at once, a refused connection or a
/// `429` on a watch request (retried after the backoff), a watch stream that breaks, goes
/// silent or ends at once ([`ReflectorError::VeryShortWatch`]), `ERROR` events, a streaming
/// list that falls back to a plain list, and a store `add`/`update`/`delete` that fails.
/// Every one of them is still logged through `tracing` and passed to the
/// [error observer](Reflector::set_error_observer); an informer counts them in its
/// [stats](crate::SharedIndexInformer::stats).
pub type WatchErrorHandler = Arc<dyn Fn(&ReflectorError) + Send + Sync>;

/// Receives every error the reflector logs, routine and retried ones included (see
/// [`Reflector::set_error_observer`]).
pub type ErrorObserver = Arc<dyn Fn(&ReflectorError) + Send + Sync>;

/// The bookmark annotation that ends the initial events of a streaming list.
pub const INITIAL_EVENTS_END_ANNOTATION: &str = "k8s.io/initial-events-end";

/// Lists and watches one resource into a [`ReflectorStore`]. See the
/// [module documentation](self) for the full behaviour.
pub struct Reflector<K: Clone> {
    lister_watcher: Arc<dyn ListerWatcher<K>>,
    store: Arc<dyn ReflectorStore<K>>,
    config: ReflectorConfig,
    should_resync: Option<ShouldResyncFn>,
    watch_error_handler: Option<WatchErrorHandler>,
    error_observer: Option<ErrorObserver>,
    last_sync: LastSyncResourceVersion,
}

impl<K> Reflector<K>
where
    K: Resource + Clone + Send + Sync + 'static,
{
    /// A reflector that lists and watches through `lister_watcher` into `store`.
    pub fn new(
        lister_watcher: Arc<dyn ListerWatcher<K>>,
        store: Arc<dyn ReflectorStore<K>>,
        config: ReflectorConfig,
    ) -> Self {
        Self {
            lister_watcher,
            store,
            config,
            should_resync: None,
            watch_error_handler: None,
            error_observer: None,
            last_sync: LastSyncResourceVersion::default(),
        }
    }

    /// Consults `should_resync` each time the resync timer fires; without it, every
    /// tick resyncs.
    pub fn set_should_resync(&mut self, should_resync: ShouldResyncFn) {
        self.should_resync = Some(should_resync);
    }

    /// Passes the errors that end a list-and-watch cycle to `handler` (client-go's
    /// semantics; [`WatchErrorHandler`] lists which), in addition to logging them.
    pub fn set_watch_error_handler(&mut self, handler: WatchErrorHandler) {
        self.watch_error_handler = Some(handler);
    }

    /// Passes every error the reflector logs to `observer`, including those it recovers
    /// from within a cycle and that the watch-error handler does not see: for metrics. An
    /// informer counts them in its stats this way. Called on the reflector's task; a panic
    /// in it is caught and logged.
    pub fn set_error_observer(&mut self, observer: ErrorObserver) {
        self.error_observer = Some(observer);
    }

    /// The resource version of the last list, event or bookmark applied; empty before the
    /// first list completes.
    pub fn last_sync_resource_version(&self) -> String {
        self.last_sync.get()
    }

    /// A handle that reads [`last_sync_resource_version`](Self::last_sync_resource_version)
    /// at any time, including while [`run`](Self::run) holds the reflector.
    pub fn last_sync_resource_version_handle(&self) -> LastSyncResourceVersion {
        self.last_sync.clone()
    }

    /// The configuration this reflector runs with.
    pub fn config(&self) -> &ReflectorConfig {
        &self.config
    }
}

impl<K: Clone> fmt::Debug for Reflector<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Reflector")
            .field("config", &self.config)
            .field("last_sync_resource_version", &self.last_sync.get())
            .finish_non_exhaustive()
    }
}

/// Displays an object's store key, `namespace/name` or `name`, for debug logs.
/// Formatted only when the log line is enabled.
struct ObjectKey<'a, K>(&'a K);

impl<K: Resource> fmt::Display for ObjectKey<'_, K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let meta = self.0.meta();
        let name = meta.name.as_deref().unwrap_or_default();
        match meta.namespace.as_deref() {
            Some(namespace) if !namespace.is_empty() => write!(f, "{namespace}/{name}"),
            _ => f.write_str(name),
        }
    }
}
