//! The counters an informer keeps as it lists and watches, always on and cheap: relaxed
//! atomic increments on a shared cell, read whenever someone asks.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use tokio::sync::watch;
use tokio::time::Instant;

use crate::listwatch::WireError;
use crate::processor::ListenerId;
use crate::reflector::{ErrorObserver, ReflectorError};

/// Counts what one reflector asked the API server and what it got back.
///
/// A cheap, cloneable handle: every clone counts into the same cells. A
/// [`SharedIndexInformer`](crate::SharedIndexInformer) keeps one and reports it through
/// [`stats`](crate::SharedIndexInformer::stats). To count for a [`Reflector`](crate::Reflector)
/// of your own, wrap its lister-watcher with
/// [`instrument_lister_watcher`](Self::instrument_lister_watcher) and its store with
/// [`instrument_store`](Self::instrument_store).
///
/// ```
/// use kube_informers_runtime::metrics::ReflectorStats;
///
/// let stats = ReflectorStats::new();
/// let counts = stats.counts();
/// assert_eq!(counts.list_requests, 0);
/// assert_eq!(counts.relists(), 0);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ReflectorStats {
    cells: Arc<Cells>,
}

#[derive(Debug, Default)]
struct Cells {
    list_requests: AtomicU64,
    list_failures: AtomicU64,
    watch_requests: AtomicU64,
    watch_failures: AtomicU64,
    added: AtomicU64,
    modified: AtomicU64,
    deleted: AtomicU64,
    bookmarks: AtomicU64,
    errors: AtomicU64,
    replaces: AtomicU64,
    stalls: AtomicU64,
    expirations: AtomicU64,
    undecodable: AtomicU64,
}

/// Watch events received, by type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventCounts {
    /// `ADDED` events, including the initial events of streaming lists.
    pub added: u64,
    /// `MODIFIED` events.
    pub modified: u64,
    /// `DELETED` events.
    pub deleted: u64,
    /// `BOOKMARK` events.
    pub bookmarks: u64,
    /// `ERROR` events and stream errors (undecodable events, broken connections).
    pub errors: u64,
}

/// What a [`ReflectorStats`] counted, at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReflectorCounts {
    /// List requests sent, one per page.
    pub list_requests: u64,
    /// List requests that failed.
    pub list_failures: u64,
    /// Watch requests sent, streaming lists included.
    pub watch_requests: u64,
    /// Watch requests the server refused or that failed to connect.
    pub watch_failures: u64,
    /// Events received on watch streams.
    pub events: EventCounts,
    /// Times a complete list (plain or streaming) replaced the store's content.
    pub replaces: u64,
    /// Lists and watches abandoned because nothing arrived within their idle limit
    /// ([`WireError::Stalled`](crate::listwatch::WireError::Stalled)): presumed dead
    /// connections.
    pub stalls: u64,
    /// Lists, watches and streaming lists answered `410 Expired` (or "resource version too
    /// large").
    pub expirations: u64,
    /// Objects skipped because they could not be decoded, counted once per list and once
    /// per watch event ([`ReflectorError::Undecodable`](crate::reflector::ReflectorError::Undecodable)).
    pub undecodable_objects: u64,
}

impl ReflectorCounts {
    /// Replacements after the first one: lists that followed a watch failure, an
    /// expired resource version or a failed list (client-go's relists).
    pub fn relists(&self) -> u64 {
        self.replaces.saturating_sub(1)
    }
}

/// Which counter a watch stream item moves.
#[derive(Clone, Copy, Debug)]
pub(crate) enum EventKind {
    Added,
    Modified,
    Deleted,
    Bookmark,
    Error,
}

impl ReflectorStats {
    /// Counters at zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// The current values.
    pub fn counts(&self) -> ReflectorCounts {
        let c = &*self.cells;
        let read = |cell: &AtomicU64| cell.load(Ordering::Relaxed);
        ReflectorCounts {
            list_requests: read(&c.list_requests),
            list_failures: read(&c.list_failures),
            watch_requests: read(&c.watch_requests),
            watch_failures: read(&c.watch_failures),
            events: EventCounts {
                added: read(&c.added),
                modified: read(&c.modified),
                deleted: read(&c.deleted),
                bookmarks: read(&c.bookmarks),
                errors: read(&c.errors),
            },
            replaces: read(&c.replaces),
            stalls: read(&c.stalls),
            expirations: read(&c.expirations),
            undecodable_objects: read(&c.undecodable),
        }
    }

    pub(crate) fn list_sent(&self) {
        bump(&self.cells.list_requests);
    }

    pub(crate) fn list_failed(&self) {
        bump(&self.cells.list_failures);
    }

    pub(crate) fn watch_sent(&self) {
        bump(&self.cells.watch_requests);
    }

    pub(crate) fn watch_failed(&self) {
        bump(&self.cells.watch_failures);
    }

    pub(crate) fn event(&self, kind: EventKind) {
        let c = &*self.cells;
        bump(match kind {
            EventKind::Added => &c.added,
            EventKind::Modified => &c.modified,
            EventKind::Deleted => &c.deleted,
            EventKind::Bookmark => &c.bookmarks,
            EventKind::Error => &c.errors,
        });
    }

    pub(crate) fn replaced(&self) {
        bump(&self.cells.replaces);
    }

    /// An observer for [`Reflector::set_error_observer`](crate::Reflector::set_error_observer)
    /// that counts stalls, expirations and undecodable objects (the requests and events are
    /// counted by [`instrument_lister_watcher`](Self::instrument_lister_watcher)).
    pub fn error_observer(&self) -> ErrorObserver {
        let stats = self.clone();
        Arc::new(move |err| stats.observe(err))
    }

    fn observe(&self, err: &ReflectorError) {
        let c = &*self.cells;
        match err {
            ReflectorError::Expired { .. } => bump(&c.expirations),
            ReflectorError::Undecodable(skipped) => {
                c.undecodable.fetch_add(skipped.len() as u64, Ordering::Relaxed);
            }
            _ if is_stall(err) => bump(&c.stalls),
            _ => {}
        }
    }
}

/// Whether a [`WireError::Stalled`] is among the causes of `err`.
fn is_stall(err: &ReflectorError) -> bool {
    matches!(WireError::find_in(err), Some(WireError::Stalled { .. }))
}

fn bump(cell: &AtomicU64) {
    cell.fetch_add(1, Ordering::Relaxed);
}

/// What one informer has done so far: [`SharedIndexInformer::stats`](crate::SharedIndexInformer::stats).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InformerStats {
    /// Its reflector's requests and events.
    pub reflector: ReflectorCounts,
    /// Notifications queued and not yet handled, per registered handler, oldest handler
    /// first.
    pub handler_pending: Vec<(ListenerId, usize)>,
    /// The resource version of the last list, event or bookmark applied; empty before
    /// the first list.
    pub last_sync_resource_version: String,
    /// Whether the initial list has reached the cache.
    pub has_synced: bool,
    /// How long the informer took from [`run`](crate::SharedIndexInformer::run) to
    /// [`has_synced`](crate::SharedIndexInformer::has_synced); `None` until it synced.
    pub sync_duration: Option<Duration>,
}

/// The counters an informer owns: created with it, so they can be read and registered
/// before it starts.
#[derive(Debug, Default)]
pub(crate) struct InformerStatsCells {
    pub(crate) reflector: ReflectorStats,
    sync: Mutex<SyncTiming>,
}

#[derive(Debug, Default)]
struct SyncTiming {
    started: Option<Instant>,
    duration: Option<Duration>,
}

impl InformerStatsCells {
    /// Runs `run` (the informer's controller) and records how long after its start
    /// `synced` first turned true.
    pub(crate) async fn time_sync(
        &self,
        mut synced: watch::Receiver<bool>,
        run: impl Future<Output = ()>,
    ) {
        self.sync.lock().started = Some(Instant::now());
        let timer = async {
            if synced.wait_for(|synced| *synced).await.is_ok() {
                self.mark_synced();
            }
        };
        tokio::pin!(run);
        tokio::select! {
            () = &mut run => return,
            () = timer => {}
        }
        run.await;
    }

    /// Records the sync duration, unless already recorded. Whoever first sees the informer
    /// synced (the timer, or a reader that got there first) records it, so a reader that
    /// sees `has_synced` also sees a duration.
    fn mark_synced(&self) -> Option<Duration> {
        let mut sync = self.sync.lock();
        if sync.duration.is_none() {
            sync.duration = sync.started.map(|started| started.elapsed());
        }
        sync.duration
    }

    pub(crate) fn snapshot(
        &self,
        handler_pending: Vec<(ListenerId, usize)>,
        last_sync_resource_version: String,
        has_synced: bool,
    ) -> InformerStats {
        let sync_duration = if has_synced { self.mark_synced() } else { None };
        InformerStats {
            reflector: self.reflector.counts(),
            handler_pending,
            last_sync_resource_version,
            has_synced,
            sync_duration,
        }
    }
}
