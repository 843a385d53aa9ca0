//! The always-on informer counters: list and watch requests, events by type, relists, the
//! last synced resource version, sync duration and handlers' pending notifications, read
//! through `SharedIndexInformer::stats` while a scripted lister-watcher lists, watches,
//! fails and relists.

use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::core::WatchEvent;
use kube_informers_runtime::listwatch::ListerWatcher;
use kube_informers_runtime::metrics::{EventCounts, ReflectorCounts};
use kube_informers_runtime::store::Indexers;
use kube_informers_runtime::{ResourceEventHandlerFuncs, SharedIndexInformer};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::reflector_support::*;

/// An informer running on its own task.
pub(crate) struct Running {
    pub(crate) informer: SharedIndexInformer<Pod>,
    pub(crate) lw: Arc<FakeListerWatcher>,
    cancel: CancellationToken,
    task: JoinHandle<()>,
}

impl Running {
    pub(crate) fn start(lw: FakeListerWatcher) -> Self {
        Self::start_with(lw, |_| {})
    }

    pub(crate) fn start_with(
        lw: FakeListerWatcher,
        customize: impl FnOnce(&SharedIndexInformer<Pod>),
    ) -> Self {
        let lw = Arc::new(lw);
        let informer = SharedIndexInformer::new(
            lw.clone() as Arc<dyn ListerWatcher<Pod>>,
            Duration::ZERO,
            Indexers::default(),
        );
        // No jitter: the backoff after the failed list is exactly 800 ms.
        informer.set_reflector_config(config()).unwrap();
        customize(&informer);
        let cancel = CancellationToken::new();
        let task = tokio::spawn({
            let (informer, cancel) = (informer.clone(), cancel.clone());
            async move { informer.run(cancel).await }
        });
        Self { informer, lw, cancel, task }
    }

    /// Waits (on the paused clock, or in real time for handler threads) until `done`.
    pub(crate) async fn until(&self, what: &str, done: impl Fn(&SharedIndexInformer<Pod>) -> bool) {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while !done(&self.informer) {
            assert!(
                std::time::Instant::now() < deadline,
                "timed out waiting for {what}; stats: {:#?}; calls: {:#?}",
                self.informer.stats(),
                self.lw.calls()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
            std::thread::sleep(Duration::from_micros(100));
        }
    }

    pub(crate) async fn stop(self) {
        self.cancel.cancel();
        self.task.await.expect("informer task");
    }
}

/// A failed list, a list, a watch with one event of each kind, a watch refused with 410, a
/// relist, a watch ending in an `ERROR` event, a second relist, and a watch with a bookmark.
pub(crate) fn known_sequence() -> FakeListerWatcher {
    FakeListerWatcher::new()
        .list(Err(api_error(500, "InternalError")))
        .list(Ok(page(vec![pod("a", "1"), pod("b", "2")], "10", None)))
        .watch(WatchScript::Close(vec![
            Ok(WatchEvent::Added(pod("c", "11"))),
            Ok(WatchEvent::Modified(pod("a", "12"))),
            Ok(WatchEvent::Deleted(pod("b", "13"))),
            Ok(bookmark("14")),
        ]))
        .watch(WatchScript::Fail(api_error(410, "Expired")))
        .list(Ok(page(vec![pod("a", "12"), pod("c", "11")], "20", None)))
        .watch(WatchScript::Close(vec![
            Ok(WatchEvent::Added(pod("d", "21"))),
            Ok(error_event(410, "Expired")),
        ]))
        .list(Ok(page(vec![pod("a", "12"), pod("c", "11"), pod("d", "21")], "30", None)))
        .watch(WatchScript::Hang(vec![Ok(bookmark("31"))]))
}

/// What [`known_sequence`] leaves in the counters.
pub(crate) const KNOWN_COUNTS: ReflectorCounts = ReflectorCounts {
    list_requests: 4,
    list_failures: 1,
    watch_requests: 4,
    watch_failures: 1,
    events: EventCounts { added: 2, modified: 1, deleted: 1, bookmarks: 2, errors: 1 },
    replaces: 3,
    stalls: 0,
    expirations: 2,
    undecodable_objects: 0,
};

/// Runs [`known_sequence`] to its end.
pub(crate) async fn run_known_sequence() -> Running {
    let running = Running::start(known_sequence());
    running
        .until("the last bookmark", |informer| informer.last_sync_resource_version() == "31")
        .await;
    running
}

#[tokio::test(start_paused = true)]
async fn counters_follow_lists_watches_events_and_relists() {
    let running = run_known_sequence().await;
    let stats = running.informer.stats();
    assert_eq!(stats.reflector, KNOWN_COUNTS);
    assert_eq!(
        stats.reflector.relists(),
        2,
        "three complete lists: the initial one and two relists"
    );
    assert_eq!(stats.last_sync_resource_version, "31");
    assert!(stats.has_synced);
    // The counters agree with what the lister-watcher was asked.
    assert_eq!(running.lw.lists().len() as u64, stats.reflector.list_requests);
    assert_eq!(running.lw.watches().len() as u64, stats.reflector.watch_requests);
    // Counting does not change what reaches the cache.
    let mut keys = running.informer.get_indexer().list_keys();
    keys.sort();
    assert_eq!(keys, ["default/a", "default/c", "default/d"]);
    running.stop().await;
}

#[tokio::test(start_paused = true)]
async fn counters_start_at_zero_and_move_step_by_step() {
    // The first list never answers: nothing but one list request has happened.
    let running = Running::start(FakeListerWatcher::new());
    let before = running.informer.stats();
    assert_eq!(before.reflector, ReflectorCounts::default());
    assert!(!before.has_synced);
    assert_eq!(before.sync_duration, None);
    assert_eq!(before.last_sync_resource_version, "");
    running.until("the list request", |i| i.stats().reflector.list_requests == 1).await;
    let listing = running.informer.stats();
    assert_eq!(listing.reflector.replaces, 0);
    assert_eq!(listing.reflector.watch_requests, 0);
    assert!(!listing.has_synced);
    assert_eq!(listing.sync_duration, None, "no sync duration before the sync");
    running.stop().await;
}

#[tokio::test(start_paused = true)]
async fn sync_duration_runs_from_start_to_synced() {
    // The first list fails; the second comes after the 800 ms backoff (no jitter, paused
    // clock), so the informer syncs exactly 800 ms after it started.
    let lw = FakeListerWatcher::new().list(Err(api_error(500, "InternalError"))).list(Ok(page(
        vec![pod("a", "1")],
        "10",
        None,
    )));
    let running = Running::start(lw);
    assert!(running.informer.wait_for_sync().await);
    // A reader that sees the informer synced also sees its sync duration.
    let stats = running.informer.stats();
    assert!(stats.has_synced);
    assert_eq!(stats.sync_duration, Some(Duration::from_millis(800)));
    // Recorded once: it does not grow afterwards.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(running.informer.stats().sync_duration, Some(Duration::from_millis(800)));
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn handler_pending_counts_notifications_not_yet_handled() {
    let lw = FakeListerWatcher::new().list(Ok(page(
        vec![pod("a", "1"), pod("b", "2"), pod("c", "3")],
        "10",
        None,
    )));
    // The handler blocks on its first notification until the test lets it go.
    let (release, gate) = mpsc::channel::<()>();
    let gate = Mutex::new(gate);
    let mut registration = None;
    let mut idle = None;
    let running = Running::start_with(lw, |informer| {
        registration = Some(
            informer
                .add_event_handler(ResourceEventHandlerFuncs::new().on_add(
                    move |_: &Arc<Pod>, _| {
                        let _ = gate.lock().unwrap().recv();
                    },
                ))
                .unwrap(),
        );
        idle = Some(informer.add_event_handler(ResourceEventHandlerFuncs::new()).unwrap());
    });
    let (blocked, idle) = (registration.unwrap(), idle.unwrap());

    // Three adds queued for the blocked handler (the one it is handling included); the
    // other handler has handled all of its own.
    running
        .until("the blocked handler's backlog", |i| {
            i.stats().handler_pending.iter().map(|(_, n)| *n).collect::<Vec<_>>() == [3, 0]
        })
        .await;
    let pending = running.informer.stats().handler_pending;
    assert_eq!(pending.len(), 2, "one entry per handler");
    assert!(pending[0].0 < pending[1].0, "oldest handler first");
    assert_eq!(blocked.pending(), 3);
    assert_eq!(idle.pending(), 0);

    for _ in 0..3 {
        release.send(()).unwrap();
    }
    running
        .until("the backlog to drain", |i| i.stats().handler_pending.iter().all(|(_, n)| *n == 0))
        .await;
    running.stop().await;
}
