//! The deduplicating work queue; ports client-go `util/workqueue/queue_test.go`.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube_informers_runtime::workqueue::WorkQueue;
use tokio::task::JoinSet;
use tokio::time::timeout;

#[derive(Clone, Copy, Debug)]
enum Shutdown {
    Plain,
    Drain,
}

async fn shut_down(queue: &WorkQueue<String>, how: Shutdown) {
    match how {
        Shutdown::Plain => queue.shut_down(),
        Shutdown::Drain => queue.shut_down_with_drain().await,
    }
}

// client-go: queue_test.go TestBasic
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn basic_concurrent_producers_and_consumers() {
    for how in [Shutdown::Plain, Shutdown::Drain] {
        let queue: WorkQueue<String> = WorkQueue::new();
        let mut producers = JoinSet::new();
        for i in 0..50 {
            let queue = queue.clone();
            producers.spawn(async move {
                for _ in 0..50 {
                    queue.add(i.to_string());
                    tokio::task::yield_now().await;
                }
            });
        }
        let in_flight: Arc<Mutex<HashSet<String>>> = Arc::default();
        let mut consumers = JoinSet::new();
        for _ in 0..10 {
            let queue = queue.clone();
            let in_flight = Arc::clone(&in_flight);
            consumers.spawn(async move {
                let mut got = 0usize;
                while let Some(item) = queue.get().await {
                    assert_ne!(item, "added after shutdown!");
                    assert!(
                        in_flight.lock().unwrap().insert(item.clone()),
                        "{item} handed to two workers at once"
                    );
                    got += 1;
                    tokio::task::yield_now().await;
                    in_flight.lock().unwrap().remove(&item);
                    queue.done(&item);
                }
                got
            });
        }
        while let Some(done) = producers.join_next().await {
            done.unwrap();
        }
        shut_down(&queue, how).await;
        queue.add("added after shutdown!".to_owned());
        let mut total = 0;
        while let Some(got) = consumers.join_next().await {
            total += got.unwrap();
        }
        assert!(total >= 50, "every item is processed at least once, got {total}");
        assert!(total <= 50 * 50, "deduplicated adds are processed once, got {total}");
        assert_eq!(queue.len(), 0, "{how:?}");
    }
}

// client-go: queue_test.go TestAddWhileProcessing
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn add_while_processing_requeues_on_done() {
    for how in [Shutdown::Plain, Shutdown::Drain] {
        let queue: WorkQueue<String> = WorkQueue::new();
        let mut producers = JoinSet::new();
        for i in 0..50 {
            let queue = queue.clone();
            producers.spawn(async move { queue.add(i.to_string()) });
        }
        let mut consumers = JoinSet::new();
        for _ in 0..10 {
            let queue = queue.clone();
            consumers.spawn(async move {
                // Every worker re-adds each item it sees the first time, while still
                // processing it: the dirty-while-processing case.
                let mut counters: HashMap<String, u32> = HashMap::new();
                while let Some(item) = queue.get().await {
                    let seen = counters.entry(item.clone()).or_default();
                    *seen += 1;
                    if *seen < 2 {
                        queue.add(item.clone());
                    }
                    queue.done(&item);
                }
            });
        }
        while let Some(done) = producers.join_next().await {
            done.unwrap();
        }
        // Wait until every item is processed twice by someone: the queue empties and no
        // one processes. Drain shutdown waits for processing; plain shutdown may leave
        // items that consumers still get, which is what client-go allows.
        shut_down(&queue, how).await;
        while let Some(done) = consumers.join_next().await {
            done.unwrap();
        }
        assert_eq!(queue.len(), 0, "{how:?}");
    }
}

// client-go: queue_test.go TestLen
#[test]
fn len_counts_distinct_queued_items() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    assert_eq!(queue.len(), 1);
    queue.add("bar");
    assert_eq!(queue.len(), 2);
    queue.add("foo");
    assert_eq!(queue.len(), 2, "a queued item is not queued twice");
}

// client-go: queue_test.go TestReinsert
#[tokio::test]
async fn reinsert_while_processing_returns_after_done() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    let item = queue.get().await.unwrap();
    assert_eq!(item, "foo");
    queue.add(item);
    assert_eq!(queue.len(), 0, "a processing item waits for done");
    queue.done(&item);
    assert_eq!(queue.len(), 1);
    let item = queue.get().await.unwrap();
    assert_eq!(item, "foo");
    queue.done(&item);
    assert_eq!(queue.len(), 0);
}

// client-go: queue_test.go TestCollapse (without the Touch hook, which we do not expose)
#[tokio::test]
async fn collapse_adds_of_a_queued_item() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("bar");
    queue.add("bar");
    let item = queue.get().await.unwrap();
    assert_eq!(item, "bar");
    queue.done(&item);
    assert_eq!(queue.len(), 0);
}

// client-go: queue_test.go TestCollapseWhileProcessing
#[tokio::test(start_paused = true)]
async fn collapse_adds_while_processing() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    let first = queue.get().await.unwrap();
    queue.add("foo");
    queue.add("foo");
    let other_worker = tokio::spawn({
        let queue = queue.clone();
        async move {
            let item = queue.get().await.unwrap();
            queue.done(&item);
            item
        }
    });
    // The other worker must stay blocked while "foo" is processing.
    assert!(timeout(Duration::from_secs(1), queue.get()).await.is_err());
    assert!(!other_worker.is_finished());
    queue.done(&first);
    assert_eq!(other_worker.await.unwrap(), "foo");
    assert_eq!(queue.len(), 0);
}

// client-go: queue_test.go TestQueueDrainageUsingShutDownWithDrain
#[tokio::test]
async fn drain_waits_for_processing_items() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    queue.add("bar");
    let first = queue.get().await.unwrap();
    let second = queue.get().await.unwrap();
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    while queue.get().await.is_some() {}
    assert!(queue.shutting_down());
    tokio::task::yield_now().await;
    assert!(!drain.is_finished(), "two items are still processing");
    queue.done(&first);
    tokio::task::yield_now().await;
    assert!(!drain.is_finished(), "one item is still processing");
    queue.done(&second);
    drain.await.unwrap();
}

// client-go: queue_test.go TestNoQueueDrainageUsingShutDown
#[tokio::test]
async fn plain_shutdown_does_not_wait_for_processing() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    queue.add("bar");
    queue.get().await.unwrap();
    queue.get().await.unwrap();
    queue.shut_down();
    assert!(queue.shutting_down());
    assert_eq!(queue.get().await, None);
}

// client-go: queue_test.go TestForceQueueShutdownUsingShutDown
#[tokio::test]
async fn shutdown_forces_a_pending_drain_to_end() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    queue.add("bar");
    queue.get().await.unwrap();
    queue.get().await.unwrap();
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    while queue.get().await.is_some() {}
    tokio::task::yield_now().await;
    assert!(!drain.is_finished());
    queue.shut_down();
    drain.await.unwrap();
}

// client-go: queue_test.go TestQueueDrainageUsingShutDownWithDrainWithDirtyItem
#[tokio::test]
async fn drain_with_a_dirty_processing_item() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    let gotten = queue.get().await.unwrap();
    queue.add("foo");
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    while queue.get().await.is_some() {}
    queue.done(&gotten);
    let again = queue.get().await;
    assert_eq!(again, Some("foo"), "done re-queued the dirty item");
    queue.done(&"foo");
    assert_eq!(queue.get().await, None);
    drain.await.unwrap();
}

// client-go: queue.go Add ("When the queue is shutdown new items will silently be ignored")
#[tokio::test]
async fn shutdown_drains_queued_items_then_ends() {
    let queue: WorkQueue<u32> = WorkQueue::new();
    queue.add(1);
    queue.add(2);
    queue.shut_down();
    queue.add(3);
    assert_eq!(queue.get().await, Some(1));
    assert_eq!(queue.get().await, Some(2));
    assert_eq!(queue.get().await, None);
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn a_waiting_get_wakes_on_add_and_on_shutdown() {
    let queue: WorkQueue<u32> = WorkQueue::new();
    let waiter = tokio::spawn({
        let queue = queue.clone();
        async move { (queue.get().await, queue.get().await) }
    });
    tokio::task::yield_now().await;
    assert!(!waiter.is_finished());
    queue.add(7);
    tokio::task::yield_now().await;
    queue.shut_down();
    assert_eq!(waiter.await.unwrap(), (Some(7), None));
}

#[tokio::test(start_paused = true)]
async fn a_dropped_get_loses_no_item() {
    let queue: WorkQueue<u32> = WorkQueue::new();
    assert!(timeout(Duration::from_millis(10), queue.get()).await.is_err());
    queue.add(1);
    assert_eq!(queue.get().await, Some(1));
}

// client-go: queue.go ShutDownWithDrain waits for processing only; a dirty item re-queued
// by Done stays for the workers to get.
#[tokio::test]
async fn drain_ends_when_processing_empties_even_if_done_requeues() {
    let queue: WorkQueue<&str> = WorkQueue::new();
    queue.add("foo");
    let gotten = queue.get().await.unwrap();
    queue.add("foo");
    let drain = tokio::spawn({
        let queue = queue.clone();
        async move { queue.shut_down_with_drain().await }
    });
    tokio::task::yield_now().await;
    assert!(!drain.is_finished());
    queue.done(&gotten);
    drain.await.unwrap();
    assert_eq!(queue.len(), 1);
    assert_eq!(queue.get().await, Some("foo"));
}
