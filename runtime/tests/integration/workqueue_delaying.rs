//! The delaying queue under a paused Tokio clock; ports client-go
//! `util/workqueue/delaying_queue_test.go`.

use std::time::Duration;

use kube_informers_runtime::workqueue::DelayingQueue;
use tokio::time::{advance, timeout};

const MS: Duration = Duration::from_millis(1);

// client-go: delaying_queue_test.go TestSimpleQueue
#[tokio::test(start_paused = true)]
async fn simple_queue() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("foo", 50 * MS);
    assert_eq!(queue.len(), 0, "should not have added");

    advance(60 * MS).await;
    assert_eq!(queue.len(), 1, "should have added");
    let item = queue.get().await.unwrap();
    queue.done(&item);

    // Step past client-go's heartbeat: nothing more appears.
    advance(Duration::from_secs(10)).await;
    assert_eq!(queue.len(), 0, "should not have added");
}

// client-go: delaying_queue_test.go TestDeduping
#[tokio::test(start_paused = true)]
async fn deduping_keeps_the_sooner_time() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("foo", 50 * MS);
    queue.add_after("foo", 70 * MS);
    assert_eq!(queue.len(), 0);

    // Past the first time: it fires.
    advance(60 * MS).await;
    assert_eq!(queue.len(), 1);
    let item = queue.get().await.unwrap();
    queue.done(&item);

    // Past the later time: the later add was merged, nothing fires again.
    advance(20 * MS).await;
    assert_eq!(queue.len(), 0);

    // This time the sooner add comes second and wins.
    queue.add_after("foo", 50 * MS);
    queue.add_after("foo", 30 * MS);
    assert_eq!(queue.len(), 0);
    advance(40 * MS).await;
    assert_eq!(queue.len(), 1);
    let item = queue.get().await.unwrap();
    queue.done(&item);
    advance(20 * MS).await;
    assert_eq!(queue.len(), 0);
}

// client-go: delaying_queue_test.go TestAddTwoFireEarly
#[tokio::test(start_paused = true)]
async fn add_two_fire_early() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("foo", Duration::from_secs(1));
    queue.add_after("bar", 50 * MS);
    assert_eq!(queue.len(), 0);

    advance(60 * MS).await;
    assert_eq!(queue.len(), 1);
    assert_eq!(queue.get().await, Some("bar"));

    queue.add_after("baz", Duration::from_secs(2));
    advance(Duration::from_secs(1)).await;
    assert_eq!(queue.len(), 1);
    assert_eq!(queue.get().await, Some("foo"));

    advance(Duration::from_secs(2)).await;
    assert_eq!(queue.len(), 1);
    assert_eq!(queue.get().await, Some("baz"));
}

// client-go: delaying_queue_test.go TestCopyShifting
#[tokio::test(start_paused = true)]
async fn copy_shifting_fires_in_time_order() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("foo", Duration::from_secs(1));
    queue.add_after("bar", 500 * MS);
    queue.add_after("baz", 250 * MS);
    assert_eq!(queue.len(), 0);

    advance(Duration::from_secs(2)).await;
    assert_eq!(queue.len(), 3);
    assert_eq!(queue.get().await, Some("baz"));
    assert_eq!(queue.get().await, Some("bar"));
    assert_eq!(queue.get().await, Some("foo"));
}

// client-go: delaying_queue.go AddAfter ("immediately add things with no delay")
#[tokio::test(start_paused = true)]
async fn zero_delay_adds_now() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("now", Duration::ZERO);
    assert_eq!(queue.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_waiting_get_wakes_when_the_delay_ends() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("later", Duration::from_secs(30));
    let waiter = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    advance(Duration::from_secs(29)).await;
    assert!(!waiter.is_finished());
    // The paused clock advances on its own to the item's time.
    assert_eq!(waiter.await.unwrap(), Some("later"));
}

#[tokio::test(start_paused = true)]
async fn a_sooner_add_wakes_a_getter_sleeping_for_a_later_one() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("late", Duration::from_secs(3600));
    let waiter = tokio::spawn({
        let queue = queue.clone();
        async move { queue.get().await }
    });
    tokio::task::yield_now().await;
    queue.add_after("soon", Duration::from_secs(1));
    let got = timeout(Duration::from_secs(2), waiter).await;
    assert_eq!(got.expect("woken by the sooner item").unwrap(), Some("soon"));
}

// client-go: delaying_queue.go AddAfter after ShutDown, and waitingLoop exiting on stop
#[tokio::test(start_paused = true)]
async fn shutdown_drops_waiting_items_and_ignores_new_ones() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("waiting", Duration::from_secs(1));
    queue.shut_down();
    queue.add_after("after", Duration::ZERO);
    advance(Duration::from_secs(2)).await;
    assert_eq!(queue.len(), 0);
    assert_eq!(queue.get().await, None);
}

#[tokio::test(start_paused = true)]
async fn a_delayed_add_of_a_queued_item_does_not_duplicate_it() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add("foo");
    queue.add_after("foo", Duration::from_secs(1));
    advance(Duration::from_secs(2)).await;
    assert_eq!(queue.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_huge_delay_does_not_overflow() {
    let queue: DelayingQueue<&str> = DelayingQueue::new();
    queue.add_after("never", Duration::MAX);
    advance(Duration::from_secs(86_400)).await;
    assert_eq!(queue.len(), 0);
}
