//! What an informer is configured with besides its lister-watcher and indexers: the
//! transform its objects go through and the shortest resync period a handler may ask for.

use std::sync::Arc;
use std::time::Duration;

/// The shortest resync period a handler can ask for (client-go's `minimumResyncPeriod`).
pub const MINIMUM_RESYNC_PERIOD: Duration = Duration::from_secs(1);

/// Mutates each object before it is stored, e.g. to drop fields the program never reads.
///
/// It runs once per object, on the decoding task, before the object is queued: handlers and
/// listers only ever see transformed objects.
pub type Transform<K> = Arc<dyn Fn(&mut K) + Send + Sync + 'static>;
