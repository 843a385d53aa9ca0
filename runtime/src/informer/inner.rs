//! The state one [`SharedIndexInformer`](super::SharedIndexInformer) and its clones share:
//! the cache, the processor, the lock that orders deltas against late handlers, and what
//! the informer was configured with before it started.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;

use super::options::Transform;
use crate::fifo::DeltaFifo;
use crate::listwatch::ListerWatcher;
use crate::metrics::InformerStatsCells;
use crate::processor::{Deferred, SharedProcessor};
use crate::reflector::{
    ErrorObserver, LastSyncResourceVersion, ReflectorConfig, WatchErrorHandler,
};
use crate::store::Indexer;

pub(super) struct Inner<K> {
    pub(super) indexer: Indexer<K>,
    pub(super) processor: SharedProcessor<K>,
    pub(super) lister_watcher: Arc<dyn ListerWatcher<K>>,
    /// Held while a batch of deltas is applied and distributed, and while a late handler
    /// receives the cache's content: a late handler sees each object exactly once
    /// (client-go's `blockDeltas`).
    pub(super) block_deltas: Mutex<()>,
    /// Notifications the last batch could not hand to handlers that were full under
    /// [`OverflowPolicy::Block`](crate::processor::OverflowPolicy::Block); delivered, asynchronously,
    /// before the next batch.
    pub(super) deferred: Mutex<Deferred<K>>,
    pub(super) state: Mutex<State<K>>,
    pub(super) synced: watch::Sender<bool>,
    pub(super) resource: String,
    pub(super) stats: InformerStatsCells,
}

pub(super) struct State<K> {
    pub(super) started: bool,
    pub(super) stopped: bool,
    /// The panic message, if the informer stopped because user code it runs panicked.
    pub(super) panicked: Option<String>,
    pub(super) resync_check_period: Duration,
    pub(super) default_handler_resync_period: Duration,
    pub(super) name: Option<String>,
    pub(super) transform: Option<Transform<K>>,
    pub(super) watch_error_handler: Option<WatchErrorHandler>,
    pub(super) error_observer: Option<ErrorObserver>,
    pub(super) reflector_config: ReflectorConfig,
    pub(super) queue: Option<DeltaFifo<K>>,
    pub(super) last_sync_resource_version: Option<LastSyncResourceVersion>,
}
